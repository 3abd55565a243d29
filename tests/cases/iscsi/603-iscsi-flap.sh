#!/bin/bash
# A flapping iSCSI link under verified fio: no error, the stable path runs.
# One of two links flaps (down 15 s, up 6 s, about 50 s in all): each down
# phase outlasts the NOP-Out ping and replacement_timeout (2 s), so the
# path fails in our map, and each up phase brings the session back, after
# which the checker reinstates it.  fio (crc32c) sees no error, the stable
# path never fails and carries the I/O throughout, the flapping path failed
# and came back more than once, nothing is logged as an error by the map.
# Runs without multipathd, with our target.
# tier: full (the default run keeps 601 (cuts one by one, three ways) and 602)
# timeout: 480
source "${0%/*}/rc"

san_rr_fio mpl 2 2 || exit 1

kmsg_mark
check "p0 flaps: down 15 s, up 6 s" san_ctl flap p0 21 15 down
# Sample the stable path every 3 s: it must never be failed and must
# complete I/O in every sample taken while p0 is failed.
stable_bad=0 samples=0 p0_failed_samples=0
for ((k = 0; k < 16; k++)); do
	b=$(io_of "${N[1]}") s0=$(path_state mpl "${P[0]}")
	sleep 3
	[ "$(path_state mpl "${P[1]}")" = A ] || stable_bad=$((stable_bad + 1))
	# (failed at both ends of the window: it held no I/O in between)
	if [ "$s0" = F ] && [ "$(path_state mpl "${P[0]}")" = F ]; then
		p0_failed_samples=$((p0_failed_samples + 1))
		[ "$(io_of "${N[1]}")" -gt "$b" ] || stable_bad=$((stable_bad + 1))
	fi
	samples=$((samples + 1))
	fio_running || break
done
check "san-ctl unflap p0" san_ctl unflap p0
diag "flaps: $(grep -c cut "$SAN_STATE/flap.0.log" 2>/dev/null) cuts; $samples samples, p0 failed in $p0_failed_samples"
check_eq "the stable path stayed active and carried I/O in every sample" 0 "$stable_bad"
check "fio ran through the flapping" fio_running
check "p0 reinstated after the flapping" wait_until 90 path_is mpl "${P[0]}" A
path_fields mpl "${P[0]}"
f0=$PATH_FAILS
path_fields mpl "${P[1]}"
diag "fail counts: p0 $f0, p1 $PATH_FAILS; checker: $(tr '\n' ';' <"$CHECKER_LOG")"
check "the flapping path failed more than once" test "$f0" -ge 2
check_eq "the stable path never failed" 0 "$PATH_FAILS"
check "the checker reinstated p0 as often as it failed" \
	test "$(grep -c "reinstated ${P[0]}\$" "$CHECKER_LOG")" -ge "$f0"
fio_stop_check "$FIO_JSON"
log=$(kmsg_since)
check_eq "no error from the map in the kernel log" "" \
	"$(grep -E 'multipath.*(giving up|error)|Buffer I/O error on dev dm-' <<<"$log")"
checker_stop
dm_remove mpl
check "modules unload" mp_mods_unload
