#!/bin/bash
# switch_group to a standby group: the host sends STPG, LIO makes it active.
# After the first I/O on group 1, "switch_group 2": the next I/O's pg_init
# finds group 2 standby and sends SET TARGET PORT GROUPS through a group 2
# port; LIO's configfs shows group 2 active/optimized, altered by explicit
# STPG, and fio (crc32c) runs through group 2 only.  Then the array puts
# group 1 in standby and "switch_group 1" brings it back the same way.
# timeout: 300
source "${0%/*}/rc"

alua_begin --groups 2 --ports-per-group 2
alua_map mpalua || exit 1
check "first read (group 1)" dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=4 iflag=direct status=none
check_eq "LIO: group 2 standby" s "$(lio_ctl state 2)"

kmsg_mark
check "switch_group 2" dmsetup message mpalua 0 switch_group 2
check_read_logged "read after the switch" 4
if [ "$ALUA_DH" = 1 ]; then
	check_match "pg_init through scsi_dh_alua" "activating through scsi_dh_alua" "$k"
	check_match "scsi_dh_alua saw group 2 become active/optimized" "alua: port group 02 state A" "$k"
else
	check_match "STPG sent through a group 2 port" \
		"multipath alua: (${LIO_NUM[g2p0]}|${LIO_NUM[g2p1]}) .*group 2 is standby: sending STPG to active/optimized" "$k"
	check_match "... confirmed by RTPG" "group 2 is active/optimized: path ready" "$k"
fi
check_eq "LIO: group 2 active/optimized" ao "$(lio_ctl state 2)"
check_eq "LIO: altered by explicit STPG" "Altered by Explicit STPG" "$(lio_ctl status 2)"
fio_start mpalua 16M
fio_check
check "I/O went through group 2" group_io_gt 2 "$io2"
check_eq "none through group 1" "$io1" "$(group_io 1)"

check "array: group 1 standby" lio_ctl state 1 s
kmsg_mark
check "switch_group 1" dmsetup message mpalua 0 switch_group 1
io2=$(group_io 2)
check "read after switching back" dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=4 iflag=direct status=none
check_eq "LIO: group 1 active/optimized again" ao "$(lio_ctl state 1)"
check_eq "LIO: group 1 altered by explicit STPG" "Altered by Explicit STPG" "$(lio_ctl status 1)"
check_eq "no read through group 2 after the switch" "$io2" "$(group_io 2)"
for p in "${LIO_PORTS[@]}"; do
	check_eq "$p active in the map" A "$(port_state mpalua "$p")"
done
check "remove map" dm_remove mpalua
check "modules unload" mp_mods_unload
