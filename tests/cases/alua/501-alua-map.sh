#!/bin/bash
# dm-alua maps one PG per port group: first I/O uses the active group as is.
# "1 alua" over the LIO array (group 1 active/optimized, group 2 standby,
# 2 ports each), one PG per port group.  Before any I/O the handler's
# status shows each path's group (from the scan) and state "unknown";
# the first I/O's pg_init asks the array (RTPG), finds group 1 active and
# sends no STPG: LIO still shows both groups as set, not altered by STPG.
# The handler's status then shows every path's state as the array reports
# it; fio (crc32c) runs through group 1's ports only.
# timeout: 300
source "${0%/*}/rc"

alua_begin --groups 2 --ports-per-group 2
alua_map mpalua || exit 1
check_match "table names the handler" " 1 alua 2 1 round-robin" "$(dmsetup table mpalua)"
for p in "${LIO_PORTS[@]}"; do
	check_match "before I/O: $p is in group ${LIO_GROUP[$p]}, state unknown" \
		" ${LIO_NUM[$p]} ${LIO_GROUP[$p]} unknown " " $(dmsetup status mpalua) "
done

kmsg_mark
check_read_logged "first read" 16
if [ "$ALUA_DH" = 1 ]; then
	check_match "pg_init went through scsi_dh_alua" "multipath alua: .*activating through scsi_dh_alua" "$k"
	check_match "... which found the port active/optimized" "scsi_dh_alua activated the port \(active/optimized\)" "$k"
else
	check_match "pg_init: group 1 active/optimized, path ready" \
		"multipath alua: ${LIO_NUM[g1p0]} .*group 1 is active/optimized: path ready|multipath alua: ${LIO_NUM[g1p1]} .*group 1 is active/optimized: path ready" "$k"
fi
check_fail "no STPG sent" grep -q "sending STPG" <<<"$k"
check_eq "LIO: group 1 active/optimized" ao "$(lio_ctl state 1)"
check_eq "LIO: group 2 standby" s "$(lio_ctl state 2)"
check_fail "LIO: no group altered by STPG" grep -q Explicit <<<"$(lio_ctl groups)"
for p in "${LIO_PORTS[@]}"; do
	want=ao
	[ "${LIO_GROUP[$p]}" = 2 ] && want=s
	check_eq "status: handler saw $p $want" "$want" "$(seen mpalua "$p")"
done

fio_start mpalua 16M
fio_check
check "I/O went through group 1" group_io_gt 1 "$io1"
check_eq "none through group 2" "$io2" "$(group_io 2)"
for p in "${LIO_PORTS[@]}"; do
	check_eq "$p active in the map" A "$(port_state mpalua "$p")"
done

check "remove map" dm_remove mpalua
check "modules unload" mp_mods_unload
