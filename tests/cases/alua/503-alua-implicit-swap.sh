#!/bin/bash
# The array swaps the active group under fio: I/O follows, no error.
# With fio writing and verifying through group 1, the array makes group 2
# active/optimized and group 1 standby on its own (implicit ALUA).  Group
# 1's paths fail (their I/O now gets NOT READY 04/0B), the map moves to
# group 2, whose pg_init finds it already active: no STPG is sent (LIO
# shows group 2 altered implicitly), fio ends with no error, and the
# handler's status shows why group 1's paths went: standby.
# timeout: 300
source "${0%/*}/rc"

alua_begin_fio || exit 1
check "array: group 2 active/optimized" lio_ctl state 2 ao
check "array: group 1 standby" lio_ctl state 1 s
check "I/O follows to group 2" wait_until 60 group_io_gt 2 $((io2 + 50))
check "fio still running at the swap" fio_running
fio_check
k=$(kmsg_since)
check_eq "LIO: group 1 standby" s "$(lio_ctl state 1)"
check_eq "LIO: group 2 active/optimized" ao "$(lio_ctl state 2)"
check_eq "LIO: group 2 altered implicitly, not by STPG" "Altered by Implicit ALUA" "$(lio_ctl status 2)"
check_fail "dm-alua sent no STPG" grep -q "sending STPG" <<<"$k"
check_group1_out mpalua s "standby"
for p in g2p0 g2p1; do
	check_eq "$p active" A "$(port_state mpalua "$p")"
	check_eq "status: handler saw $p active/optimized" ao "$(seen mpalua "$p")"
done
check "remove map" dm_remove mpalua
check "modules unload" mp_mods_unload
