#!/bin/bash
# Transitioning groups: I/O waits without errors, activation waits it out.
# 1. Under fio (crc32c) the active group 1 goes transitioning for 3 s, then
#    active/optimized again: fio ends with no error and no path failed.
# 2. Group 2 is transitioning (3 s, then active/optimized) when
#    "switch_group 2" is sent: the read that starts its pg_init completes,
#    after the transition, through group 2; no STPG was needed (LIO shows
#    group 2 altered implicitly) and no path failed.
# tier: full (the default run keeps 501-504, 507, 508 and 557 (with scsi_dh_alua))
# timeout: 300
source "${0%/*}/rc"

alua_begin_fio || exit 1
check "array: group 1 transitioning for 3 s, then active/optimized" lio_ctl transition 1 3 ao
check_eq "LIO: group 1 transitioning" t "$(lio_ctl state 1)"
check "transition ends" lio_ctl wait-transitions
check "fio was still running when it ended" fio_running
fio_check
check_eq "LIO: group 1 active/optimized" ao "$(lio_ctl state 1)"
for p in "${LIO_PORTS[@]}"; do
	check_eq "$p active, never failed" "A 0" "$(port_state mpalua "$p") $(port_fails mpalua "$p")"
done

check "array: group 2 transitioning for 3 s, then active/optimized" lio_ctl transition 2 3 ao
kmsg_mark
check "switch_group 2" dmsetup message mpalua 0 switch_group 2
io2=$(group_io 2)
check "read after the switch completes" dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=4 iflag=direct status=none
check_eq "LIO: the transition had ended when it completed" ao "$(lio_ctl state 2)"
k=$(kmsg_since)
if [ "$ALUA_DH" = 1 ]; then
	check_match "pg_init through scsi_dh_alua" "activating through scsi_dh_alua" "$k"
else
	check_match "pg_init saw group 2 transitioning and waited" "group 2 transitioning, waiting up to 60 s" "$k"
	check_match "... then found it active/optimized" "group 2 is active/optimized: path ready" "$k"
fi
check_fail "dm-alua sent no STPG" grep -q "sending STPG" <<<"$k"
check_eq "LIO: group 2 altered implicitly" "Altered by Implicit ALUA" "$(lio_ctl status 2)"
check "the read went through group 2" group_io_gt 2 "$io2"
for p in "${LIO_PORTS[@]}"; do
	check_eq "$p active" A "$(port_state mpalua "$p")"
done
check "remove map" dm_remove mpalua
check "modules unload" mp_mods_unload
