#!/bin/bash
# NVMe/TCP links cut one by one to the last and back under verified fio.
# A round-robin map over four NVMe/TCP paths (one controller per link,
# native NVMe multipath off) while fio writes and verifies (crc32c): the
# links are cut one by one down to the last (link down, netem loss 100%,
# iptables DROP: silence each time), found by the keep-alive, the
# controller's error recovery cancels the path's I/O and our target fails
# the path and resends the I/O on the others; then the links are restored
# one by one while a checker reinstates each path once its controller is
# live and its device readable again (as multipathd would).  0 verify
# errors, 0 I/O errors; each cut is one path failure in our target's status
# (fail_count +1); detection (cut -> path failed) and recovery (restore ->
# reinstated) times are reported.  Runs without multipathd, with our target.
# tier: full (the default run keeps 622; 601 runs the same cuts over iSCSI)
# timeout: 600
source "${0%/*}/rc"

nvt_map_fio mpn 4 round-robin || exit 1

fails() { path_fields mpn "$1" && echo "$PATH_FAILS"; }
is_state() { [ "$(path_state mpn "$1")" = "$2" ]; }
io_window() { # io_window I: I/O completed on path I in 2 s
	local b
	b=$(io_of "${N[$1]}")
	sleep 2
	echo $(($(io_of "${N[$1]}") - b))
}
ways=(down loss drop)
kmsg_mark
for i in 0 1 2; do
	f0=$(fails "${P[i]}")
	t=$(now)
	check "cut p$i (${ways[i]})" nvt_ctl cut "p$i" "${ways[i]}"
	check "p$i (${N[i]}, cut by ${ways[i]}) failed in the map within 90 s" wait_until 90 is_state "${P[i]}" F
	diag "p$i cut by ${ways[i]}: path failed $(secs_since "$t") s after the cut"
	check_eq "p$i: fail_count +1" $((f0 + 1)) "$(fails "${P[i]}")"
	check "fio still running" fio_running
done
check_match "INFO status: three paths failed, the last active" \
	" ${P[0]} F 1 ${P[1]} F 1 ${P[2]} F 1 ${P[3]} A 0 $" "$(dmsetup status mpn)"
b=$(io_of "${N[3]}")
check "the last path carries the I/O" wait_until 10 io_above "${N[3]}" $((b + 50))
log=$(kmsg_since)
for i in 0 1 2; do
	check_match "kernel log: our target failed ${N[i]}" "failing path ${P[i]}([^0-9]|$)" "$log"
	check_match "kernel log: ${NVT_CTRLS[i]} started error recovery" "${NVT_CTRLS[i]}: starting error recovery" "$log"
done
diag "status: $(nvt_ctl status | tr '\n' ';')"

for i in 2 1 0; do
	t=$(now)
	check "restore p$i (${ways[i]})" nvt_ctl restore "p$i"
	check "p$i reinstated by the checker within 90 s" wait_until 90 is_state "${P[i]}" A
	diag "p$i (${ways[i]}): reinstated $(secs_since "$t") s after the restore"
	check "p$i carries I/O again" test "$(io_window "$i")" -gt 0
done
check_match "INFO status: all active, one failure each on the cut paths" \
	" ${P[0]} A 1 ${P[1]} A 1 ${P[2]} A 1 ${P[3]} A 0 $" "$(dmsetup status mpn)"
diag "checker: $(tr '\n' ';' <"$CHECKER_LOG")"
fio_stop_check "$FIO_JSON"
check_eq "no I/O error reached the map's user (kernel log)" "" \
	"$(kmsg_since | grep -E 'multipath.*(giving up|error)|Buffer I/O error on dev dm-')"
checker_stop
dm_remove mpn
check "modules unload" mp_mods_unload
