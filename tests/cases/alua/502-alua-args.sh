#!/bin/bash
# dm-alua's table arguments: good ones echoed, bad ones refused by name.
# Over scsi_debug (which reports implicit ALUA, as multipathd's "1 alua"
# for it assumes) and null_blk: "alua" alone, "implicit_only" and
# "optimize" are accepted and come back in the table; an unknown word, a
# repeated one, both together and a non-SCSI path are refused, each with
# its own message, and leave no map behind.  A read through "1 alua" over
# scsi_debug works (pg_init understands its RTPG).
# timeout: 150
source "${0%/*}/rc"

mp_fixture 2 mpalua
on_exit "dm_remove mpalua; modprobe -r null_blk"
check "modprobe dm-alua" modprobe dm-alua || exit 1
check "null_blk loads" modprobe null_blk nr_devices=1 gb=1 || exit 1
check "/dev/nullb0 exists" wait_until 10 test -b /dev/nullb0 || exit 1
a=${DEVNUMS[0]} b=${DEVNUMS[1]} nb=$(devnum /dev/nullb0)
tbl() { echo "0 $SECTORS multipath 0 $1 2 1 round-robin 0 1 1 $a 1 round-robin 0 1 1 $b 1"; }

for h in "1 alua" "2 alua implicit_only" "2 alua optimize"; do
	check "accepted: $h" dm_create mpalua "$(tbl "$h")"
	check_match "table shows: $h" " 0 $h 2 1 round-robin" "$(dmsetup table mpalua)"
	check "remove" dm_remove mpalua
done

refuse() { # refuse DESC HWH-WORDS MESSAGE-REGEX [TABLE]
	kmsg_mark
	check_fail "refused: $1" dm_create mpalua "${4:-$(tbl "$2")}"
	kmsg_expect "... message: $3" "$3"
	check_fail "... no map left" dmsetup info mpalua
}
refuse "unknown word" "2 alua bogus" "alua: unknown argument \(expected implicit_only or optimize\)"
refuse "implicit_only twice" "3 alua implicit_only implicit_only" "alua: implicit_only given twice"
refuse "optimize twice" "3 alua optimize optimize" "alua: optimize given twice"
refuse "implicit_only with optimize" "3 alua implicit_only optimize" \
	"alua: implicit_only and optimize contradict"
refuse "a non-SCSI path" "1 alua" "alua: path is not a SCSI device" \
	"0 $SECTORS multipath 0 1 alua 1 1 round-robin 0 1 1 $nb 1"
kmsg_check_expected

check "create 1 alua over scsi_debug" dm_create mpalua "$(tbl "1 alua")"
kmsg_mark
check "read through it" dd if=/dev/mapper/mpalua of=/dev/null bs=4k count=16 iflag=direct status=none
k=$(kmsg_since)
diag "$(grep -m3 "multipath alua" <<<"$k")"
check_match "pg_init asked scsi_debug (RTPG) and found the path ready" "multipath alua: .*path ready" "$k"
check_eq "both paths active" "A A" "$(mp_path_state mpalua "$a") $(mp_path_state mpalua "$b")"
check "remove" dm_remove mpalua
check "modules unload" mp_mods_unload
