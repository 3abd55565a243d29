#!/bin/bash
# Flushes, discards, write-zeroes and SG_IO/BLKGETSIZE64 through the map.
# Special bios and ioctls: flushes (fio --fsync, empty flushes), discards
# (blkdiscard) and write-zeroes (blkdiscard -z) go down a path and do what
# they should; SG_IO (sg_inq) and BLKGETSIZE64 on /dev/mapper/NAME reach the
# current path, choosing one if there is none, block while queue_if_no_path
# holds I/O and fail with fail_if_no_path.
# timeout: 300
source "${0%/*}/rc"

mp_fixture 2 mpx -- lbpu=1 lbprz=1
on_exit "kill \$(jobs -p) 2>/dev/null"
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
a=${SD_NAMES[0]} b=${SD_NAMES[1]}
# stat fields: 12 discards completed, 16 flushes completed
discards() { echo $(($(awk '{print $12}' /sys/block/$a/stat) + $(awk '{print $12}' /sys/block/$b/stat))); }
flushes() { echo $(($(awk '{print $16}' /sys/block/$a/stat) + $(awk '{print $16}' /sys/block/$b/stat))); }
dmq() { cat "/sys/block/$(dmsetup info -c --noheadings -o blkdevname mpx)/queue/$1"; }

check "create map" dm_create mpx "0 $SECTORS multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $A 1 $B 1"
diag "path: write_cache=$(cat /sys/block/$a/queue/write_cache) discard_max=$(cat /sys/block/$a/queue/discard_max_bytes) write_zeroes_max=$(cat /sys/block/$a/queue/write_zeroes_max_bytes)"
diag "map:  write_cache=$(dmq write_cache) discard_max=$(dmq discard_max_bytes) write_zeroes_max=$(dmq write_zeroes_max_bytes)"

# ioctls on a fresh map: no current path yet, prepare_ioctl chooses one.
out=$(sg_inq /dev/mapper/mpx 2>&1)
check_match "sg_inq (SG_IO) through the map on a fresh map" "Vendor identification: Linux" "$out"
check_match "... reaches a scsi_debug path" "Product identification: scsi_debug" "$out"
check_eq "BLKGETSIZE64 through the map" $((SECTORS * 512)) "$(blockdev --getsize64 /dev/mapper/mpx)"
check "sg_readcap (SG_IO READ CAPACITY)" sh -c "sg_readcap /dev/mapper/mpx | grep -q 'Last LBA=$((SECTORS - 1))'"

# Flushes.
check "the map inherits the paths' write-back cache" test "$(dmq write_cache)" = "write back"
f0=$(flushes)
check "fio with fsync after every write" fio --name=fsync --filename=/dev/mapper/mpx --direct=1 \
	--bs=4k --rw=write --size=256k --fsync=1 --output-format=json --output=/tmp/fio-fsync.json
f1=$(flushes)
nsync=$(jq '.jobs[0].sync.total_ios // .jobs[0].sync.lat_ns.N' /tmp/fio-fsync.json)
diag "fio fsyncs: $nsync; flushes completed on the paths: $((f1 - f0))"
check "fio issued fsyncs" test "$nsync" -gt 32
check "every fsync reached a path as a flush" test $((f1 - f0)) -ge "$nsync"
f0=$(flushes)
check "O_SYNC 4 KiB direct write (write + flush)" dd if=/dev/zero of=/dev/mapper/mpx bs=4k count=1 oflag=direct,sync status=none
check "... a flush reached a path" test $(($(flushes) - f0)) -ge 1

# Discard and write-zeroes.
pat=/tmp/pattern.$$
head -c 2M /dev/urandom >"$pat"
zeroes() { test "$(dd if=/dev/mapper/mpx bs=64k count=16 iflag=direct status=none | tr -d '\000' | wc -c)" = 0; }
second_mib_intact() { dd if=/dev/mapper/mpx bs=64k skip=16 count=16 iflag=direct status=none | cmp -s - <(tail -c 1M "$pat"); }
check "write 2 MiB of data" dd if="$pat" of=/dev/mapper/mpx bs=64k count=32 oflag=direct status=none
check_fail "the first MiB is not zeroes" zeroes
check "the map supports discard" test "$(dmq discard_max_bytes)" -gt 0
d0=$(discards)
check "blkdiscard the first MiB" blkdiscard -o 0 -l 1048576 /dev/mapper/mpx
check "discards reached a path" test $(($(discards) - d0)) -ge 1
check "discarded range reads back as zeroes (lbprz)" zeroes
check "the second MiB is untouched" second_mib_intact
check "write 2 MiB of data again" dd if="$pat" of=/dev/mapper/mpx bs=64k count=32 oflag=direct status=none
check "the map supports write zeroes" test "$(dmq write_zeroes_max_bytes)" -gt 0
check "blkdiscard -z (write zeroes) the first MiB" blkdiscard -z -o 0 -l 1048576 /dev/mapper/mpx
check "zeroed range reads back as zeroes" zeroes
check "the second MiB is untouched" second_mib_intact

# ioctls follow the path state.
check "fail_path $A" dmsetup message mpx 0 fail_path "$A"
check_match "sg_inq with one path failed" "Product identification: scsi_debug" "$(sg_inq /dev/mapper/mpx 2>&1)"
check "fail_path $B" dmsetup message mpx 0 fail_path "$B"
timeout 5 sg_inq /dev/mapper/mpx >/dev/null 2>&1
check_eq "no path, queue_if_no_path: sg_inq waits (killed by timeout)" 124 "$?"
f0=$(flushes)
dd if=/dev/zero of=/dev/mapper/mpx bs=4k count=1 oflag=direct,sync status=none &
DD=$!
check "no path: a write + flush is held" wait_until 10 sh -c "dmsetup status mpx | awk '{exit !(\$5 >= 1)}'"
check "reinstate_path $B" dmsetup message mpx 0 reinstate_path "$B"
check "held write + flush completes" wait_until 30 sh -c "! kill -0 $DD"
wait $DD
check_eq "... successfully" 0 "$?"
check_match "sg_inq works again" "Product identification: scsi_debug" "$(sg_inq /dev/mapper/mpx 2>&1)"
check "fail_path $B, fail_if_no_path" sh -c "dmsetup message mpx 0 fail_path $B && dmsetup message mpx 0 fail_if_no_path"
check_fail "no path, fail_if_no_path: sg_inq fails" timeout 20 sg_inq /dev/mapper/mpx
check_fail "no path: an empty flush fails" timeout 20 dd if=/dev/zero of=/dev/mapper/mpx bs=4k count=0 oflag=sync conv=fsync status=none
check_fail "no path: discard fails" timeout 20 blkdiscard -o 0 -l 65536 /dev/mapper/mpx
check "reinstate both" sh -c "dmsetup message mpx 0 reinstate_path $A && dmsetup message mpx 0 reinstate_path $B"
dm_remove mpx
rm -f "$pat"
check "modules unload" mp_mods_unload
