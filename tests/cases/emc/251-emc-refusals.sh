#!/bin/bash
# dm-emc refuses paths it cannot trespass (non-SCSI, not a CLARiiON).
# dm-emc pg_init on paths that cannot be trespassed: a non-SCSI device
# (null_blk) is refused without sending it anything, a SCSI LUN that is no
# CLARiiON (scsi_debug answers page 0x22 with ILLEGAL REQUEST 26/00) fails
# the trespass; each path is failed with a log line naming it, the next
# candidate is tried, and with none left the I/O fails (no queueing).
# timeout: 200
source "${0%/*}/rc"

mp_fixture 1 mpemc
# The map holds nullb0: remove it before null_blk (mp_fixture's clean-up
# runs after this one and finds it gone).
on_exit "dm_remove mpemc; modprobe -r null_blk"
check "null_blk loads" modprobe null_blk nr_devices=1 gb=1 || exit 1
check "/dev/nullb0 exists" wait_until 10 test -b /dev/nullb0 || exit 1

nb=$(devnum /dev/nullb0)
sd=${DEVNUMS[0]}
reads0=$(path_reads nullb0)
sdreads0=$(path_reads "${SD_NAMES[0]}")
check "create map: PG1 = null_blk, PG2 = scsi_debug" dm_create mpemc \
	"0 $SECTORS multipath 0 1 emc 2 1 round-robin 0 1 0 $nb round-robin 0 1 0 $sd" || exit 1

kmsg_mark
check_fail "read fails: no path can be initialised" \
	dd if=/dev/mapper/mpemc of=/dev/null bs=4k count=1 iflag=direct status=none
k=$(kmsg_since)
check_match "null_blk path refused as non-SCSI, by name" \
	"multipath emc: $nb \(nullb0\): not a SCSI device, cannot trespass: failing path" "$k"
check_match "scsi_debug path: trespass sent" \
	"multipath emc: $sd \(${SD_NAMES[0]}\): sending long trespass" "$k"
check_match "scsi_debug path: trespass refused with its sense, path failed" \
	"multipath emc: $sd \(${SD_NAMES[0]}\): trespass failed, sense 05/26/00: failing path" "$k"
check_eq "null_blk path failed" F "$(path_state mpemc "$nb")"
check_eq "scsi_debug path failed" F "$(path_state mpemc "$sd")"
check_eq "nothing was read from the null_blk path" "$reads0" "$(path_reads nullb0)"
check_eq "scsi_debug saw no media read either" "$sdreads0" "$(path_reads "${SD_NAMES[0]}")"
check_fail "a second read fails at once too" \
	dd if=/dev/mapper/mpemc of=/dev/null bs=4k count=1 iflag=direct status=none

# Reinstated, the path gets a fresh pg_init (and fails it again).
kmsg_mark
check "reinstate the scsi_debug path" dmsetup message mpemc 0 reinstate_path "$sd"
check_fail "read after reinstating fails again" \
	dd if=/dev/mapper/mpemc of=/dev/null bs=4k count=1 iflag=direct status=none
check_match "... after a second trespass attempt" "$sd \(${SD_NAMES[0]}\): trespass failed, sense 05/26/00" \
	"$(kmsg_since)"

check "remove map" dm_remove mpemc
check "modules unload" mp_mods_unload
