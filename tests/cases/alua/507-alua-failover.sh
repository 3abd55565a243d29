#!/bin/bash
# Every port of the active group fails: failover to the standby group by STPG.
# With fio (crc32c) writing through group 1, both of its ports lose their
# link (tcm_loop transport offline).  The map fails them and brings in
# group 2 with an STPG through one of its ports: LIO shows group 2
# active/optimized, altered by explicit STPG; fio ends with no error; the
# handler's status shows group 1's paths as not answering.  With the links
# back and the paths reinstated, group 1's paths serve reads again after
# switch_group 1 (group 1 is still active/optimized in LIO), and the
# handler shows both of them active/optimized again: the port the pg_init
# went through, and the other one, which the handler asks again by itself
# (it is not told of the reinstatement).
# timeout: 300
# cross-kernel: yes
source "${0%/*}/rc"

alua_begin_fio || exit 1
check "fail g1p0" lio_ctl fail g1p0
check "fail g1p1" lio_ctl fail g1p1
check "I/O moves to group 2" wait_until 60 group_io_gt 2 $((io2 + 50))
check "fio still running then" fio_running
fio_check
k=$(kmsg_since)
check_eq "LIO: group 2 active/optimized" ao "$(lio_ctl state 2)"
check_eq "LIO: group 2 altered by explicit STPG" "Altered by Explicit STPG" "$(lio_ctl status 2)"
[ "$ALUA_DH" = 1 ] || check_match "STPG sent through a group 2 port" \
	"multipath alua: (${LIO_NUM[g2p0]}|${LIO_NUM[g2p1]}) .*group 2 is standby: sending STPG" "$k"
check_group1_out mpalua noresp "not answering"

check "restore g1p0" lio_ctl restore g1p0
check "restore g1p1" lio_ctl restore g1p1
check "reinstate g1p0" dmsetup message mpalua 0 reinstate_path "${LIO_NUM[g1p0]}"
check "reinstate g1p1" dmsetup message mpalua 0 reinstate_path "${LIO_NUM[g1p1]}"
check "switch_group 1" dmsetup message mpalua 0 switch_group 1
io1=$(group_io 1)
check "read through group 1 again" dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=16 iflag=direct status=none
check "... it went through group 1" group_io_gt 1 "$io1"
# Not "noresp" for ever: both ports answer again, pg_init's and the other.
for p in g1p0 g1p1; do
	check "status: handler sees $p active/optimized again" \
		wait_until 30 eval "[ \"\$(seen mpalua $p)\" = ao ]"
done
diag "handler: $(for p in "${LIO_PORTS[@]}"; do printf '%s=%s ' "$p" "$(seen mpalua "$p")"; done)"
[ "$ALUA_DH" = 1 ] || check_match "kernel log: dm-alua saw a group 1 port answer again" \
	"multipath alua: (${LIO_NUM[g1p0]}|${LIO_NUM[g1p1]}) .*port answers again" "$(kmsg_since)"
check "remove map" dm_remove mpalua
check "modules unload" mp_mods_unload
