#!/bin/bash
# Path probation by messages, with every selector: the trial share, leaving it, the last path.
# A path failed and reinstated 3 times within a minute (the default
# probation_fails 3, probation_window_secs 60) is on probation when
# reinstated: the status lists it in counted words (the feature section's
# count covers them, as multipathd skips), the kernel says "Path X on
# probation: 3 failures in 60 s.", and with each selector (round-robin,
# queue-length, service-time, historical-service-time) it gets only its
# trial share of direct reads (1 in 64, per the debugfs counters) while the
# other path is usable, all of them clean (the status's clean count). It
# leaves probation by itself after probation_clean_ios clean I/Os (a dm
# event, "left probation."), and takes its share again. A failure during
# probation starts it again (clean count 0); with the healthy path failed
# the path on probation carries all I/O; two paths on probation share it;
# probation_fails 0 turns it off.
# timeout: 300
source "${0%/*}/rc"

mp_fixture 2 mpp
# The paths' shares are counted with sequential reads: per-bio choices
# (a sequential stint would keep them on one path; 156 tests stints).
check "per-bio choices: sequential_stream_kb=0" mp_stream_off || exit 1
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
kmsg_mark

# share SEL_TABLE: B on probation, 640 reads: B gets the trial share only.
trial_share() {
	local sel=$1 a0 b0 da db pw
	check "$sel: create the map (probation_clean_ios 64)" \
		dm_create mpp "0 $SECTORS multipath 2 probation_clean_ios 64 0 1 1 $2"
	check "$sel: fail and reinstate B twice" fail_reinstate mpp "$B" 2
	check_fail "$sel: 2 failures: not on probation" on_probation mpp "$B"
	check "$sel: a third time" fail_reinstate mpp "$B" 1
	pw=$(probation_of mpp "$B")
	check_eq "$sel: on probation: 3 failures 0 stalls in 60 s, 0 of 64 clean" "3 0 60 0 64" "$pw"
	check_eq "$sel: the path stays A (active) in the status" A "$(path_state mpp "$B")"
	a0=$(path_stat mpp "$A" sent) b0=$(path_stat mpp "$B" sent)
	check "$sel: 640 direct reads" direct_reads mpp 640
	da=$(($(path_stat mpp "$A" sent) - a0)) db=$(($(path_stat mpp "$B" sent) - b0))
	diag "$sel: reads sent to A $da, to B (on probation) $db"
	check_eq "$sel: every read sent once" 640 $((da + db))
	check "$sel: B got its trial share: 1 to 14 of 640 ($db)" test "$db" -ge 1 -a "$db" -le 14
	check_eq "$sel: each trial read counted clean" "3 0 60 $db 64" "$(probation_of mpp "$B")"
	check_eq "$sel: no errors on B" 0 "$(path_stat mpp "$B" errors)"
	# The healthy path fails: the one on probation is the last, and used.
	check "$sel: fail A" dmsetup message mpp 0 fail_path "$A"
	b0=$(path_stat mpp "$B" sent)
	check "$sel: 100 reads with A failed" direct_reads mpp 100
	check_eq "$sel: B (on probation) carried all 100" 100 $(($(path_stat mpp "$B" sent) - b0))
	check "$sel: reinstate A" dmsetup message mpp 0 reinstate_path "$A"
	check_fail "$sel: A (1 failure) is not on probation" on_probation mpp "$A"
	dm_remove mpp
}

trial_share round-robin "round-robin 0 2 1 $A 1 $B 1"
trial_share queue-length "queue-length 0 2 1 $A 1 $B 1"
trial_share service-time "service-time 0 2 2 $A 1 1 $B 1 1"
trial_share historical-service-time "historical-service-time 0 2 1 $A 1 $B 1"
kmsg_expect "the kernel said it: 'Path $B on probation: 3 failures in 60 s.'" \
	"multipath: [0-9]+:[0-9]+: Path $B on probation: 3 failures in 60 s\."

# Leaving probation, and starting it again. A window of an hour: the reads
# below take a minute or more in an emulated guest.
kmsg_mark
check "create a round-robin map (probation_clean_ios 16, window 3600 s)" \
	dm_create mpp "0 $SECTORS multipath 4 probation_clean_ios 16 probation_window_secs 3600 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check "B failed and reinstated 3 times: on probation" fail_reinstate mpp "$B" 3
check "... it is" on_probation mpp "$B"
check "some reads" direct_reads mpp 320
clean=$(probation_of mpp "$B" | cut -d' ' -f4)
check "some clean trial reads ($clean)" test "${clean:-0}" -ge 1
check "a failure during probation" dmsetup message mpp 0 fail_path "$B"
check "reinstated" dmsetup message mpp 0 reinstate_path "$B"
check_eq "probation starts again: 4 failures, 0 clean" "4 0 3600 0 16" "$(probation_of mpp "$B")"
ev=$(map_events mpp)
# 16 clean trial reads take 16 x 64 = 1024 reads; more for the per-CPU ticks.
check "1400 reads" direct_reads mpp 1400
check_fail "B left probation by itself" on_probation mpp "$B"
check "... with a dm event ($ev -> $(map_events mpp))" test "$(map_events mpp)" -gt "$ev"
check_eq "no probation words left in the status" 0 "$(nr_on_probation mpp)"
b0=$(path_stat mpp "$B" sent)
check "200 reads" direct_reads mpp 200
check_eq "B takes its round-robin half again" 100 $(($(path_stat mpp "$B" sent) - b0))
kmsg_expect "'Path $B left probation.'" "multipath: [0-9]+:[0-9]+: Path $B left probation\."
kmsg_expect "... after 'on probation: 4 failures'" "Path $B on probation: 4 failures in 3600 s\."

# Both paths on probation: they share the I/O (a PG of them uses them).
kmsg_mark
check "A failed and reinstated 3 times too" fail_reinstate mpp "$A" 3
check "B once more: back on probation (within the window)" fail_reinstate mpp "$B" 1
check_eq "two paths on probation" 2 "$(nr_on_probation mpp)"
# The history holds the last max(probation_fails, 4) faults: 4 of the 5.
check_match "debugfs: B's record and error history (its last 4 faults)" \
	"probation=yes clean=0/16 probations=3 faults=5 stalls=0 history=fail:[0-9]+,fail:[0-9]+,fail:[0-9]+,fail:[0-9]+$" \
	"$(grep "dev=$B " "/sys/kernel/debug/dm-multipath/$(map_devnum mpp)")"
# A multipathd-style reader skips the probation words by their count.
PATH_STATE="" PATH_FAILS=""
path_fields mpp "$B"
check_eq "path_fields reads B's state past them: A, 5 failures" "A 5" "$PATH_STATE $PATH_FAILS"
diag "status with two paths on probation: $(dmsetup status mpp)"
a0=$(path_stat mpp "$A" sent) b0=$(path_stat mpp "$B" sent)
# 20: both stay under their clean run of 16.
check "20 reads" direct_reads mpp 20
check_eq "both on probation: round-robin halves" "10 10" \
	"$(($(path_stat mpp "$A" sent) - a0)) $(($(path_stat mpp "$B" sent) - b0))"
dm_remove mpp

# probation_fails 0: off.
check "a map with probation_fails 0" \
	dm_create mpp "0 $SECTORS multipath 2 probation_fails 0 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check "B failed and reinstated 5 times" fail_reinstate mpp "$B" 5
check_eq "nothing on probation" 0 "$(nr_on_probation mpp)"
b0=$(path_stat mpp "$B" sent)
check "200 reads" direct_reads mpp 200
check_eq "B takes its half" 100 $(($(path_stat mpp "$B" sent) - b0))
check_match "debugfs: the history is kept even so" "probation=no .*faults=5 " \
	"$(grep "dev=$B " "/sys/kernel/debug/dm-multipath/$(map_devnum mpp)")"
dm_remove mpp
kmsg_check_expected
check "modules unload" mp_mods_unload
