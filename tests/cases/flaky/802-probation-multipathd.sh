#!/bin/bash
# multipathd 0.9.4 keeps reinstating a flapping path: probation parks it, multipathd still reads the status.
# multipathd builds the map over 2 scsi_debug paths (its table names no
# probation feature: the defaults apply, as for every multipathd user).
# Under verified fio, path B flaps: offline for 0.3 s every 1.5 s (its I/O
# is refused meanwhile, the kernel fails it; multipathd's TUR checker finds
# it up again and reinstates it). After its third failure within a minute
# the reinstated path is on probation ("Path X on probation: 3 failures in
# 60 s."), and from then on gets under 5% of the bios (its trial share)
# while multipathd goes on reinstating it; multipathd reads the status
# with the probation words in it (they are counted): it shows B active
# while on probation, logs no status it could not read, and when the
# flapping stops shows both paths "active ready". fio: no error, every
# block verified.
# timeout: 420
source "${0%/*}/rc"

mpd_setup 2 mpfl || exit 1
A=${PATH_NUMS[0]} B=${PATH_NUMS[1]} NB=${SD_NAMES[1]}
mpd_check_rr_table mpfl "0" "no features (probation at its defaults), round-robin over both paths"

FLAP_PID=
stop_flap() {
	[ -z "$FLAP_PID" ] || { kill "$FLAP_PID"; wait "$FLAP_PID"; }
	FLAP_PID=
	path_running "$NB"
}
flap() { while :; do path_offline "$NB"; sleep 0.3; path_running "$NB"; sleep 1.2; done; }
FIO_PID=
on_exit "kill \$FIO_PID 2>/dev/null; wait \$FIO_PID"
on_exit stop_flap

kmsg_mark
fio --name=mpd-flaky --filename="$MAP_DEV" --direct=1 --ioengine=libaio \
	--iodepth=8 --bs=4k --rw=randwrite --size=32M --verify=crc32c \
	--verify_backlog=64 --verify_fatal=1 --time_based --runtime=40 \
	--output-format=json --output=/tmp/fio-mpd-flaky.json &
FIO_PID=$!
sleep 2
flap &
FLAP_PID=$!
check "B on probation while multipathd reinstates it" wait_until 60 on_probation mpfl "$B"
diag "status: $(dmsetup status mpfl)"
check "multipathd shows B (on probation) active" \
	wait_until 20 eval '[ "$(mpd_dm_state mpfl "$NB")" = active ]'
a0=$(path_stat mpfl "$A" sent) b0=$(path_stat mpfl "$B" sent)
sleep 10
da=$(($(path_stat mpfl "$A" sent) - a0)) db=$(($(path_stat mpfl "$B" sent) - b0))
share=$((100 * db / (da + db)))
diag "10 s of flapping on probation: A got $da bios, B $db ($share%); B failed $(path_stat mpfl "$B" fail_count) times so far"
check "B got its trial share only: under 5% ($share%)" test "$share" -lt 5
check "B is on probation still" on_probation mpfl "$B"
stop_flap
wait "$FIO_PID"
check_eq "fio exit status" 0 "$?"
FIO_PID=
check_eq "fio job error" 0 "$(jq '.jobs[0].error' /tmp/fio-mpd-flaky.json)"
check_eq "fio total_err" 0 "$(jq '.jobs[0].total_err // 0' /tmp/fio-mpd-flaky.json)"
check "fio read back and verified blocks" \
	test "$(jq '.jobs[0].read.io_bytes' /tmp/fio-mpd-flaky.json)" -gt 0
check "the kernel has B active once the flapping stopped" \
	wait_until 30 eval '[ "$(path_state mpfl "$B")" = A ]'
check "multipathd: both paths active and ready" \
	wait_until 30 eval '[ "$(mpd_path_states mpfl | cut -d" " -f2- | sort -u)" = "active ready" ]'
mpd_diag_topology mpfl
kmsg_expect "kernel log: B on probation" "Path $B on probation: [0-9]+ failures in 60 s\."
kmsg_check_expected
check_fail "multipathd read every status (no 'cannot disassemble')" \
	grep -i "disassemble" "$MPD_LOG"
check "multipathd reinstated B again and again" \
	test "$(grep -c "reinstated" "$MPD_LOG")" -ge 3
mpd_finish
