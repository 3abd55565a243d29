#!/bin/bash
# An iSCSI link under netem loss bursts, verified fio: probation parks it, then it comes back.
# Two iSCSI paths (tests/iscsi SAN; NOP-Out ping 2 s, replacement_timeout
# 2 s), a round-robin map (repeat_count 8: the repeat fast path) with
# probation_clean_ios 100, the checker loop reinstating failed paths, fio
# writing and verifying (crc32c). Link p0 loses every packet (netem loss
# 100% both ways) for 3 s of every 6 s: each burst outlasts the ping and
# replacement timeouts, the session fails its I/O and p0 is failed; each
# quiet spell brings the session back and the checker reinstates it.
# After its third failure the reinstated p0 is on probation and gets under
# 5% of the bios; when the bursts stop its clean trial I/O takes it off
# probation by itself ("left probation.") and it carries its share again.
# fio sees no error.
# tier: full (800-802 cover probation by messages, dm-flakey and multipathd)
# timeout: 480
source "${0%/*}/rc"
source "$REPO/tests/iscsi/lib.sh"

san_rr_fio mpl 2 2 "2 probation_clean_ios 100" || exit 1

kmsg_mark
check "p0 loses every packet 3 s in every 6 s" san_ctl flap p0 6 3 loss
check "p0 on probation after its failures" wait_until 120 on_probation mpl "${P[0]}"
diag "status: $(dmsetup status mpl)"
a0=$(path_stat mpl "${P[1]}" sent) b0=$(path_stat mpl "${P[0]}" sent)
sleep 12
da=$(($(path_stat mpl "${P[1]}" sent) - a0)) db=$(($(path_stat mpl "${P[0]}" sent) - b0))
share=$((100 * db / (da + db)))
diag "12 s of bursts on probation: p1 got $da bios, p0 $db ($share%); p0 failed $(path_stat mpl "${P[0]}" fail_count) times"
check "p0 got its trial share only: under 5% ($share%)" test "$share" -lt 5
check "san-ctl unflap p0" san_ctl unflap p0
check "p0 reinstated after the bursts" wait_until 90 path_is mpl "${P[0]}" A
check "p0 left probation by itself" wait_until 120 eval "! on_probation mpl ${P[0]}"
b0=$(path_stat mpl "${P[0]}" sent)
check "p0 carries I/O again" wait_until 20 eval "[ \$(path_stat mpl ${P[0]} sent) -gt $((b0 + 1000)) ]"
check "fio ran through it all" fio_running
fio_stop_check "$FIO_JSON"
kmsg_expect "kernel log: p0 on probation" "Path ${P[0]} on probation: [0-9]+ failures in 60 s\."
kmsg_expect "kernel log: p0 left probation" "Path ${P[0]} left probation\."
kmsg_check_expected
checker_stop
dm_remove mpl
check "modules unload" mp_mods_unload
