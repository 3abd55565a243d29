#!/bin/bash
# iSCSI links cut one by one to the last and back under verified fio.
# A round-robin map over four iSCSI paths while fio writes and verifies
# (crc32c): the links are cut one by one down to the last (link down, netem
# loss 100%, iptables DROP: silence each time, no error comes back), then
# restored one by one while a checker reinstates each path once its disk is
# running and readable again (as multipathd would).  0 verify errors, 0 I/O
# errors; each cut is one path failure in our target's status (fail_count
# +1); detection (cut -> path failed) and recovery (restore -> reinstated)
# times are reported.  Runs without multipathd, with our target.
# timeout: 600
source "${0%/*}/rc"

san_rr_fio mpi 4 5 || exit 1

fails() { path_fields mpi "$1" && echo "$PATH_FAILS"; }
is_state() { [ "$(path_state mpi "$1")" = "$2" ]; }
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
	check "cut p$i (${ways[i]})" san_ctl cut "p$i" "${ways[i]}"
	check "p$i (${N[i]}, cut by ${ways[i]}) failed in the map within 90 s" wait_until 90 is_state "${P[i]}" F
	diag "p$i cut by ${ways[i]}: path failed $(secs_since "$t") s after the cut"
	check_eq "p$i: fail_count +1" $((f0 + 1)) "$(fails "${P[i]}")"
	check "fio still running" fio_running
done
check_match "INFO status: three paths failed, the last active" \
	" ${P[0]} F 1 ${P[1]} F 1 ${P[2]} F 1 ${P[3]} A 0 $" "$(dmsetup status mpi)"
b=$(io_of "${N[3]}")
check "the last path carries the I/O" wait_until 10 io_above "${N[3]}" $((b + 50))
log=$(kmsg_since)
for i in 0 1 2; do
	check_match "kernel log: our target failed ${N[i]}" "failing path ${P[i]}([^0-9]|$)" "$log"
done
check_match "kernel log: the silence was found by the NOP-Out ping" "ping timeout of 2 secs expired" "$log"

for i in 2 1 0; do
	t=$(now)
	check "restore p$i (${ways[i]})" san_ctl restore "p$i"
	check "p$i reinstated by the checker within 90 s" wait_until 90 is_state "${P[i]}" A
	diag "p$i (${ways[i]}): reinstated $(secs_since "$t") s after the restore"
	check "p$i carries I/O again" test "$(io_window "$i")" -gt 0
done
check_match "INFO status: all active, one failure each on the cut paths" \
	" ${P[0]} A 1 ${P[1]} A 1 ${P[2]} A 1 ${P[3]} A 0 $" "$(dmsetup status mpi)"
diag "checker: $(tr '\n' ';' <"$CHECKER_LOG")"
fio_stop_check "$FIO_JSON"
check_eq "no I/O error reached the map's user (kernel log)" "" \
	"$(kmsg_since | grep -E 'multipath.*(giving up|error)|Buffer I/O error on dev dm-')"
checker_stop
dm_remove mpi
check "modules unload" mp_mods_unload
