#!/bin/bash
# The back-off: a path on probation that keeps failing its trial reads gets ever fewer of them.
# Path B is a device-mapper layer over a scsi_debug path (dm-linear, or
# dm-error while it is sick), A the other path. Failed and reinstated 3
# times (messages), B is on probation with the trial share 1 in 64 (the
# debugfs record's trial_share=1/64). While its layer errors, each trial
# read fails B (one error, retried on A: dd sees none) and, reinstated by
# message, B stays on probation with its share halved: 1/128 ... 1/1024
# after four failed trials, one error each. Healthy again, in 2048 direct
# reads B gets 1 to 4 of them (at the fixed 1 in 64 of the code before the
# back-off: about 32), each counted clean. Two more failed trials reach
# the floor, 1/4096 (a third, 4096 reads more, would stay there: left out
# for the run time; the cap is PROBATION_BACKOFF_MAX); even so, with A
# failed B carries all the I/O (the last usable path is always used). Then, with
# probation_clean_ios 16 (one halving earned back per clean trial): one
# failed trial (1/128), clean trials earn the share back (1/64), B leaves
# probation by itself, and put on probation again starts at 1/64: the
# back-off is reset when the path leaves probation.
# timeout: 600
source "${0%/*}/rc"

mp_fixture 2 mpk bkb
# The paths' shares are counted with sequential reads: per-bio choices
# (a sequential stint would keep them on one path; 156 tests stints).
check "per-bio choices: sequential_stream_kb=0" mp_stream_off || exit 1
A=${DEVNUMS[0]}
check "dm-linear over path 2" dm_create bkb "0 $SECTORS linear ${SD_DEVS[1]} 0"
B=$(devnum /dev/mapper/bkb)

# layer linear|error: path B's layer healthy or failing every I/O
layer() {
	if [ "$1" = linear ]; then
		dm_reload bkb "0 $SECTORS linear ${SD_DEVS[1]} 0"
	else
		dm_reload bkb "0 $SECTORS error"
	fi && dmsetup resume bkb
}
share() { path_stat "$1" "$B" trial_share; }

# failed_trial MAP N SHARE: with B's layer failing, enough reads for one
# trial at share 1/SHARE (plus a margin for the per-CPU ticks) fail B
# once; reinstated, B is on probation at 1/(2 x SHARE) (capped at the
# floor, 4096), with N errors counted on it in all.
failed_trial() {
	local map=$1 n=$2 sh=$3 next=$(($3 * 2))
	[ "$next" -le 4096 ] || next=4096
	check "$map: $((sh + 256)) reads: a trial read fails B (n=$n)" direct_reads "$map" $((sh + 256))
	check_eq "$map: B failed" F "$(path_state "$map" "$B")"
	check_eq "$map: one error on B per failed trial" "$n" "$(path_stat "$map" "$B" errors)"
	check "$map: reinstate B" dmsetup message "$map" 0 reinstate_path "$B"
	check "$map: still on probation" on_probation "$map" "$B"
	check_eq "$map: its trial share halved: 1/$next" "1/$next" "$(share "$map")"
}

kmsg_mark
check "map: round-robin, probation_window_secs 3600" \
	dm_create mpk "0 $SECTORS multipath 2 probation_window_secs 3600 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check_eq "B not on probation: no trial share" - "$(share mpk)"
check "B failed and reinstated 3 times" fail_reinstate mpk "$B" 3
check_eq "on probation: 3 failures, 0 stalls in 3600 s, 0 of 1000 clean" \
	"3 0 3600 0 1000" "$(probation_of mpk "$B")"
check_eq "trial share 1/64" 1/64 "$(share mpk)"
diag "status with B on probation: $(dmsetup status mpk)"
check "B's layer fails every I/O (dm-error)" layer error
sh=64
for n in 1 2 3 4; do
	failed_trial mpk $n $sh
	sh=$((sh * 2))
done
check_eq "after 4 failed trials: 7 failures, 0 clean" "7 0 3600 0 1000" "$(probation_of mpk "$B")"

check "B's layer healthy again" layer linear
a0=$(path_stat mpk "$A" sent) b0=$(path_stat mpk "$B" sent)
check "2048 direct reads" direct_reads mpk 2048
da=$(($(path_stat mpk "$A" sent) - a0)) db=$(($(path_stat mpk "$B" sent) - b0))
diag "at 1/1024: reads sent to A $da, to B $db (at 1/64 B would get about 32)"
check_eq "every read sent once" 2048 $((da + db))
check "B got 1 to 4 of 2048 ($db)" test "$db" -ge 1 -a "$db" -le 4
check_eq "each counted clean" "7 0 3600 $db 1000" "$(probation_of mpk "$B")"
check_eq "a few clean trials earn nothing back yet (one per 62)" 1/1024 "$(share mpk)"

# The floor.
check "B's layer fails again" layer error
for n in 5 6; do
	failed_trial mpk $n $sh
	sh=$((sh * 2))
done
check "B's layer healthy again" layer linear
# The last usable path is always used, whatever its back-off.
check "fail A" dmsetup message mpk 0 fail_path "$A"
b0=$(path_stat mpk "$B" sent)
check "100 reads with A failed" direct_reads mpk 100
check_eq "B (on probation at the floor) carried all 100" 100 $(($(path_stat mpk "$B" sent) - b0))
check "reinstate A" dmsetup message mpk 0 reinstate_path "$A"
check_fail "A (1 failure) is not on probation" on_probation mpk "$A"
check_eq "A: no trial share" - "$(path_stat mpk "$A" trial_share)"
dm_remove mpk

# Earning the share back, leaving probation, the reset.
check "map: probation_clean_ios 16, window 3600" \
	dm_create mpk "0 $SECTORS multipath 4 probation_clean_ios 16 probation_window_secs 3600 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check "B failed and reinstated 3 times: on probation" fail_reinstate mpk "$B" 3
check_eq "trial share 1/64" 1/64 "$(share mpk)"
check "B's layer fails" layer error
failed_trial mpk 1 64
check "B's layer healthy" layer linear
# One clean trial at 1/128 earns 1/64 back (16 / 16), then 15 at 1/64:
# about 1100 reads; up to 4000 (the per-CPU ticks).
reads_until_off_probation mpk "$B" 4
check_fail "B left probation ($READS_DONE reads or fewer)" on_probation mpk "$B"
check_eq "no trial share off probation" - "$(share mpk)"
check "B failed and reinstated once more: back on probation" fail_reinstate mpk "$B" 1
check "... it is" on_probation mpk "$B"
check_eq "the back-off was reset: 1/64 again" 1/64 "$(share mpk)"
kmsg_expect "'Path $B left probation.'" "multipath: [0-9]+:[0-9]+: Path $B left probation\."
kmsg_check_expected
dm_remove mpk
dm_remove bkb
check "modules unload" mp_mods_unload
