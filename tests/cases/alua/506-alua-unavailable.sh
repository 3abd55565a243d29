#!/bin/bash
# The active group goes unavailable under fio: its paths fail, I/O moves on.
# With fio (crc32c) writing through group 1, the array makes group 1
# unavailable (NOT READY 04/0C on media access).  Group 1's paths fail,
# group 2 (standby) is brought in with an STPG (LIO: active/optimized,
# altered by explicit STPG), fio ends with no error, and the handler's
# status shows group 1's paths as unavailable.
# tier: full (the default run keeps 501-504, 507, 508 and 557 (with scsi_dh_alua))
# timeout: 300
source "${0%/*}/rc"

alua_begin_fio || exit 1
check "array: group 1 unavailable" lio_ctl state 1 u
check "I/O moves to group 2" wait_until 60 group_io_gt 2 $((io2 + 50))
check "fio still running then" fio_running
fio_check
check_eq "LIO: group 1 unavailable" u "$(lio_ctl state 1)"
check_eq "LIO: group 2 active/optimized" ao "$(lio_ctl state 2)"
check_eq "LIO: group 2 altered by explicit STPG" "Altered by Explicit STPG" "$(lio_ctl status 2)"
check_group1_out mpalua u "unavailable"
for p in g2p0 g2p1; do
	check_eq "$p active" A "$(port_state mpalua "$p")"
done
check "remove map" dm_remove mpalua
check "modules unload" mp_mods_unload
