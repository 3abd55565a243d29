#!/bin/bash
# Smoke test: a 2-path round-robin map carries data and shows its status.
# Smoke: a one-PG round-robin map over two scsi_debug paths carries data,
# shows the seed's INFO/TABLE status formats, and goes away cleanly.
# timeout: 120
# cross-kernel: yes
source "${0%/*}/rc"

mp_fixture 2 mpb
A=${DEVNUMS[0]} B=${DEVNUMS[1]}

check "create a 1-PG round-robin map" \
	dm_create mpb "0 $SECTORS multipath 0 0 1 1 round-robin 0 2 1 $A 16 $B 16"
check_eq "TABLE status" "0 $SECTORS multipath 0 0 1 1 round-robin 0 2 1 $A 16 $B 16 " \
	"$(dmsetup table mpb)"
check_eq "INFO status before any I/O" \
	"0 $SECTORS multipath 1 0 0 1 1 E 0 2 0 $A A 0 $B A 0 " "$(dmsetup status mpb)"

pattern=/tmp/pattern.$$
head -c 1M /dev/urandom >"$pattern"
check "write 1 MiB through the map" dd if="$pattern" of=/dev/mapper/mpb bs=64k oflag=direct status=none
check "read it back through a path" cmp -n 1048576 "$pattern" "${SD_DEVS[1]}"
check "read it back through the map" sh -c "dd if=/dev/mapper/mpb bs=64k count=16 iflag=direct status=none | cmp - $pattern"
check_match "INFO status after I/O: PG active" "^0 $SECTORS multipath 1 0 0 1 1 A 0 2 0 $A A 0 $B A 0 \$" \
	"$(dmsetup status mpb)"

check "fail_path message" dmsetup message mpb 0 fail_path "$A"
check_eq "path failed in INFO status" "0 $SECTORS multipath 1 0 0 1 1 A 0 2 0 $A F 1 $B A 0 " \
	"$(dmsetup status mpb)"
check "I/O still works" dd if=/dev/mapper/mpb of=/dev/null bs=4k count=64 iflag=direct status=none
check "reinstate_path message" dmsetup message mpb 0 reinstate_path "$A"
check_eq "path back in INFO status" "0 $SECTORS multipath 1 0 0 1 1 A 0 2 0 $A A 1 $B A 0 " \
	"$(dmsetup status mpb)"
rm -f "$pattern"
check "remove the map" dm_remove mpb
check "modules unload" mp_mods_unload
