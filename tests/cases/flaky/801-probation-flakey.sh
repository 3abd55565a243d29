#!/bin/bash
# A dm-flakey path under verified fio, reinstated by a checker loop: probation on vs off.
# Path B is dm-flakey over a scsi_debug path (up 4 s, down 1 s: every I/O
# fails while down); a loop reinstates it every 0.5 s when failed, as
# multipathd's checker would (its TEST UNIT READY passes on such a path).
# fio writes 4 KiB random blocks at queue depth 8 and verifies them
# (crc32c). With probation (defaults, but probation_clean_ios 100 to keep
# the run short) the path is on probation once it has failed 3 times
# ("Path X on probation: 3 failures in 60 s."), and in the 8 s that follow
# gets only its trial share (under 5% of the bios, per the debugfs
# counters); with probation_fails 0 it takes a large share between
# failures in the same window (the same assertion would fail: checked,
# they differ), and the failures and failed bios of both are logged. fio sees no error either
# way. Then the flakiness stops (dm-flakey replaced by dm-linear): the
# path's clean trial reads earn back the trial share its failed trials
# cost it (805 tests the back-off), take it off probation by itself, and
# it gets its half again.
# timeout: 480
source "${0%/*}/rc"

mp_fixture 2 mpf flkb
# The paths' shares are counted with sequential reads: per-bio choices
# (a sequential stint would keep them on one path; 156 tests stints).
check "per-bio choices: sequential_stream_kb=0" mp_stream_off || exit 1
A=${DEVNUMS[0]}
check "dm-flakey loads" modprobe dm-flakey || exit 1
on_exit "modprobe -r dm-flakey"

CHECKER_PID= FIO_PID=
on_exit "kill \$FIO_PID 2>/dev/null; wait \$FIO_PID"
stop_checker() { [ -z "$CHECKER_PID" ] || { kill "$CHECKER_PID"; wait "$CHECKER_PID"; }; CHECKER_PID=; }
on_exit stop_checker
# checker: reinstate B every 0.5 s while it is failed
checker() {
	while :; do
		[ "$(path_state mpf "$B")" != F ] || dmsetup message mpf 0 reinstate_path "$B"
		sleep 0.5
	done
}

# run LABEL FEATURES: map mpf over A and a fresh flaky B, verified fio
# with the checker; once B has failed 3 times (and, with probation, is on
# it), an 8 s window: SHARE (B's % of the bios sent), ERRS (B's failed
# bios), FAILS (B's failures in it), PROB (paths on probation at its start).
run() {
	local a0 b0 e0 f0 da db rc j=/tmp/fio-flaky.json
	dm_remove mpf
	dm_remove flkb
	check "$1: dm-flakey over path 2 (up 4 s, down 1 s)" \
		dm_create flkb "0 $SECTORS flakey ${SD_DEVS[1]} 0 4 1"
	B=$(devnum /dev/mapper/flkb)
	check "$1: map over A and the flaky B" \
		dm_create mpf "0 $SECTORS multipath $2 0 1 1 round-robin 0 2 1 $A 1 $B 1"
	checker &
	CHECKER_PID=$!
	fio --name=flaky --filename=/dev/mapper/mpf --direct=1 --ioengine=libaio \
		--iodepth=8 --bs=4k --rw=randwrite --size=32M --verify=crc32c \
		--verify_backlog=64 --verify_fatal=1 --time_based --runtime=300 \
		--output-format=json --output="$j" &
	FIO_PID=$!
	check "$1: B failed 3 times" \
		wait_until 120 eval '[ "$(path_stat mpf "$B" fail_count)" -ge 3 ]'
	if [ "$1" = probation ]; then
		check "$1: B on probation once reinstated" wait_until 20 on_probation mpf "$B"
	else
		sleep 1
	fi
	PROB=$(nr_on_probation mpf)
	a0=$(path_stat mpf "$A" sent) b0=$(path_stat mpf "$B" sent)
	e0=$(path_stat mpf "$B" errors) f0=$(path_stat mpf "$B" fail_count)
	sleep 8
	da=$(($(path_stat mpf "$A" sent) - a0)) db=$(($(path_stat mpf "$B" sent) - b0))
	ERRS=$(($(path_stat mpf "$B" errors) - e0))
	FAILS=$(($(path_stat mpf "$B" fail_count) - f0))
	STATUS=$(dmsetup status mpf)
	kill -INT "$FIO_PID"
	wait "$FIO_PID"
	rc=$?
	FIO_PID=
	stop_checker
	# On SIGINT fio exits 128 and writes that line ahead of its report.
	check_match "$1: fio exit status 0, or 128 for our SIGINT" '^(0|128)$' "$rc"
	sed -n '/^{/,$p' "$j" >"$j.report"
	check_eq "$1: fio job error" 0 "$(jq '.jobs[0].error' "$j.report")"
	check_eq "$1: fio total_err" 0 "$(jq '.jobs[0].total_err // 0' "$j.report")"
	check "$1: fio read back and verified blocks" \
		test "$(jq '.jobs[0].read.io_bytes' "$j.report")" -gt 0
	SHARE=$((100 * db / (da + db)))
	diag "$1: in 8 s from B's 3rd failure on, A got $da bios and B $db ($SHARE%); B failed $FAILS times, $ERRS bios failed on it; on probation at the start: $PROB"
	diag "$(cat "/sys/kernel/debug/dm-multipath/$(map_devnum mpf)")"
}

kmsg_mark
run probation "2 probation_clean_ios 100"
check_eq "probation: B on probation at the window's start" 1 "$PROB"
check "probation: B got its trial share only, under 5% ($SHARE%)" test "$SHARE" -lt 5
on_errs=$ERRS on_fails=$FAILS
kmsg_expect "the kernel said so" "Path $B on probation: [3-9] failures in 60 s\."

# The flakiness ends: the path proves itself and leaves probation.
diag "status with B on probation: $STATUS"
check "B (failed or not) is reinstated" dmsetup message mpf 0 reinstate_path "$B"
check "on probation" on_probation mpf "$B"
check "dm-flakey replaced by dm-linear: the path is healthy" \
	dm_reload flkb "0 $SECTORS linear ${SD_DEVS[1]} 0"
check "... live" dmsetup resume flkb
# probation_clean_ios 100: 6400 reads at the full trial share, and some
# for the per-CPU ticks; more while the back-off of the trials B failed
# above is earned back (one halving per 100 / 16 = 6 clean trials: from
# 1/1024, about 12000 reads more). Batches of 8000, up to 5.
diag "B before: $(grep "dev=$B " "/sys/kernel/debug/dm-multipath/$(map_devnum mpf)")"
for ((k = 0; k < 5; k++)); do
	fio --name=clean --filename=/dev/mapper/mpf --direct=1 --ioengine=libaio \
		--iodepth=8 --bs=4k --rw=randread --size=32M --number_ios=8000 \
		--output=/dev/null || break
	on_probation mpf "$B" || break
done
check_fail "B left probation ($(((k + 1) * 8000)) direct random reads or fewer)" on_probation mpf "$B"
kmsg_expect "'Path $B left probation.'" "Path $B left probation\."
b0=$(path_stat mpf "$B" sent)
check "200 reads" direct_reads mpf 200
check_eq "B takes its half again" 100 $(($(path_stat mpf "$B" sent) - b0))

# The same with probation off: the ping-pong the feature ends.
run off "2 probation_fails 0"
check_eq "off: nothing on probation" 0 "$PROB"
check "off: B takes a large share between failures ($SHARE% > 20%)" test "$SHARE" -gt 20
diag "in the 8 s windows: B failed $on_fails times with probation, $FAILS without; failed bios on B: $on_errs / $ERRS"
kmsg_check_expected
dm_remove mpf
dm_remove flkb
check "modules unload" mp_mods_unload
