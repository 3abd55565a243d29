#!/bin/bash
# The probation window: faults older than probation_window_secs stop counting, and the count is whole however many fell within it.
# Path B is failed and reinstated by message (each failure is a fault).
# A path keeps the times of its last max(probation_fails, 4) faults (4 at
# the default probation_fails 3) and counts the window's faults in buckets
# of 1/7 of the window besides, so the status and the log give every fault
# of the window, not at most 4. With the window 12 s: two failures, 13 s
# pass, one more: it is the only one in the window and B is not put on
# probation (the decision needs 3 within it). With the window 3600 s: ten
# failures, and the status word and the log line say 10. With the window
# 14 s (buckets of 2 s): 3 failures, then 5 more about 6 s later: 8; then,
# once the first 3 are over 16 s old (the window and one bucket: the
# buckets may count a fault up to one bucket older than the window) while
# the later 5 are under 14 s old, one more failure makes 6. The script
# takes the times from the guest's clock and fails, naming the margin, if
# the guest was too slow to keep them apart.
# timeout: 300
source "${0%/*}/rc"

mp_fixture 2 mpw
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
now() { date +%s.%N; }
# age_between T LO HI: LO <= now - T < HI (seconds)
age_between() { awk -v t="$1" -v n="$(now)" -v lo="$2" -v hi="$3" 'BEGIN { exit !(n - t >= lo && n - t < hi) }'; }
kmsg_mark

# Window 12 s: faults age out.
check "map: probation_window_secs 12" \
	dm_create mpw "0 $SECTORS multipath 2 probation_window_secs 12 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check "B failed and reinstated twice" fail_reinstate mpw "$B" 2
check "13 s pass" sleep 13
t=$(now)
check "B failed and reinstated once more" fail_reinstate mpw "$B" 1
check_fail "one failure in the window: B is not on probation" on_probation mpw "$B"
check_eq "debugfs: 3 faults since the table load" 3 "$(path_stat mpw "$B" faults)"
check "two more" fail_reinstate mpw "$B" 2
check "margin: the last 3 within 11 s (the guest kept time)" age_between "$t" 0 11
check_eq "on probation: 3 failures in 12 s" "3 0 12 0 1000" "$(probation_of mpw "$B")"
dm_remove mpw

# Window 3600 s: more faults than the ring holds.
check "map: probation_window_secs 3600" \
	dm_create mpw "0 $SECTORS multipath 2 probation_window_secs 3600 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check "B failed and reinstated 10 times" fail_reinstate mpw "$B" 10
check_eq "on probation: 10 failures in 3600 s" "10 0 3600 0 1000" "$(probation_of mpw "$B")"
check_match "debugfs: 10 faults, the last 4 in the history" \
	"faults=10 stalls=0 history=fail:[0-9]+,fail:[0-9]+,fail:[0-9]+,fail:[0-9]+$" \
	"$(grep " dev=$B " "/sys/kernel/debug/dm-multipath/$(map_devnum mpw)")"
kmsg_expect "the kernel said it: 'Path $B on probation: 10 failures in 3600 s.'" \
	"multipath: [0-9]+:[0-9]+: Path $B on probation: 10 failures in 3600 s\."
dm_remove mpw

# Window 14 s: the count beyond the ring ages out too.
check "map: probation_window_secs 14" \
	dm_create mpw "0 $SECTORS multipath 2 probation_window_secs 14 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check "B failed and reinstated 3 times" fail_reinstate mpw "$B" 3
t_first=$(now)
check "6 s pass" sleep 6
t_later=$(now)
check "5 more" fail_reinstate mpw "$B" 5
check_eq "on probation: 8 failures in 14 s" "8 0 14 0 1000" "$(probation_of mpw "$B")"
check "wait until the first 3 are 16.5 s old" \
	sleep "$(awk -v t="$t_first" -v n="$(now)" 'BEGIN { d = t + 16.5 - n; print (d > 0 ? d : 0) }')"
check "margin: the later 5 are under 13 s old (the guest kept time)" age_between "$t_later" 0 13
kmsg_mark
check "one more" fail_reinstate mpw "$B" 1
check_eq "on probation: 6 failures in 14 s (the first 3 aged out)" "6 0 14 0 1000" "$(probation_of mpw "$B")"
check_eq "debugfs: 9 faults since the table load" 9 "$(path_stat mpw "$B" faults)"
kmsg_expect "the kernel said it: 'Path $B on probation: 6 failures in 14 s.'" \
	"multipath: [0-9]+:[0-9]+: Path $B on probation: 6 failures in 14 s\."
kmsg_check_expected
dm_remove mpw
check "modules unload" mp_mods_unload
