#!/bin/bash
# queue_mode rq: small sequential I/O merges in the map's queue while paths are busy.
# Two scsi_debug paths that take 4 ms per command, 2 commands at a time
# per device (queue_depth 2: I/O queues, as on a busy array; the SCSI
# midlayer holds the rest, and the map's busy hook sees the device busy).
# Not scsi_debug's max_queue=2: its own queue can be found full while the
# midlayer sends the next command, which it fails with DID_ABORT (seen on
# 6.1: both paths failed by their first writes). fio writes 32 MiB in 4 KiB
# sequential direct writes at queue depth 32, then reads it back and
# verifies it, through a request-based map with round-robin repeat_count 1
# (what multipathd writes): the map's own statistics count merged writes,
# the paths receive at most half as many write requests as fio wrote
# blocks (8 KiB or more each, on average), and the data verifies.
# timeout: 300
# cross-kernel: yes
source "${0%/*}/rc"

mp_fixture 2 mpm -- ndelay=4000000
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
for n in "${SD_NAMES[@]}"; do
	check "$n: queue_depth 2" sh -c "echo 2 >/sys/block/$n/device/queue_depth"
	check_eq "$n: queue_depth reads 2" 2 "$(cat "/sys/block/$n/device/queue_depth")"
done
check "create a request-based map, round-robin repeat_count 1" \
	dm_create mpm "0 $SECTORS multipath 2 queue_mode rq 0 1 1 round-robin 0 2 1 $A 1 $B 1"
DM=$(dmsetup info -c --noheadings -o blkdevname mpm)
check_match "the map is a dm device" "^dm-[0-9]+$" "$DM"

# stat_field DEV N: field N (0-based) of /sys/block/DEV/stat
stat_field() { local f; read -ra f <"/sys/block/$1/stat" && echo "${f[$2]}"; }
paths_writes() { echo $(($(path_writes "${SD_NAMES[0]}") + $(path_writes "${SD_NAMES[1]}"))); }

w0=$(paths_writes) m0=$(stat_field "$DM" 5)
J=/tmp/fio-117.json
fio --name=seq --filename=/dev/mapper/mpm --direct=1 --ioengine=libaio \
	--iodepth=32 --bs=4k --rw=write --size=32M --verify=crc32c \
	--do_verify=1 --verify_fatal=1 --output-format=json --output="$J"
rc=$?
FIO_JSON=$J
fio_check_clean "$rc"
blocks=$((32 * 256))
check_eq "fio wrote every block" $((blocks * 4096)) "$(jq '.jobs[0].write.io_bytes' "$J")"
check_eq "... and read back and verified every block" $((blocks * 4096)) "$(jq '.jobs[0].read.io_bytes' "$J")"
merged=$(($(stat_field "$DM" 5) - m0)) sent=$(($(paths_writes) - w0))
diag "$blocks writes of 4 KiB: $merged merged in the map's queue, $sent write requests at the paths ($((blocks * 4 / (sent > 0 ? sent : 1))) KiB each on average)"
check "the map's queue merged writes" test "$merged" -gt 0
check "the paths got at most half as many write requests as fio wrote blocks" \
	test "$sent" -gt 0 -a $((sent * 2)) -le "$blocks"
check "both paths took writes" test "$(path_writes "${SD_NAMES[0]}")" -gt 0 -a "$(path_writes "${SD_NAMES[1]}")" -gt 0
rm -f "$J"

dm_remove mpm
check "modules unload" mp_mods_unload
