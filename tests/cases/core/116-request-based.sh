#!/bin/bash
# queue_mode rq: a request-based map, through failures and queueing.
# A map made with "queue_mode rq" is request-based (its own blk-mq queue in
# sysfs; a default map has none) and keeps that mode across reloads (dm
# core refuses a change); each path's debugfs counts follow the requests
# (100 + 100 for 200 reads, nothing in flight at rest); fio writes and
# verifies through it while a path goes offline, is failed by message and
# comes back, with no error; with no path, queue_if_no_path holds the
# writers until a path is reinstated (data correct), and fail_if_no_path
# ends them with EIO.
# timeout: 420
# cross-kernel: yes
source "${0%/*}/rc"

mp_fixture 2 mprq mpbio
on_exit "kill \$(jobs -p) 2>/dev/null"
check "per-request choices to count: sequential_stream_kb=0" mp_stream_off || exit 1
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
writers_pattern
RR="0 1 1 round-robin 0 2 1 $A 1 $B 1"

# sysfs_of MAP: the map's dm-N
sysfs_of() { dmsetup info -c --noheadings -o blkdevname "$1"; }

check "create a request-based map (queue_mode rq)" \
	dm_create mprq "0 $SECTORS multipath 3 queue_mode rq queue_if_no_path $RR"
check_eq "TABLE shows the mode" \
	"0 $SECTORS multipath 3 queue_if_no_path queue_mode rq $RR " "$(dmsetup table mprq)"
DM=$(sysfs_of mprq)
check_match "the map is a dm device" "^dm-[0-9]+$" "$DM"
check "the map has a request queue of its own (blk-mq contexts in sysfs)" \
	test -d "/sys/block/$DM/mq"
check_match "... with an I/O scheduler to choose" "mq-deadline" "$(cat "/sys/block/$DM/queue/scheduler")"
check "create a default map over the same paths" dm_create mpbio "0 $SECTORS multipath 0 $RR"
DMB=$(sysfs_of mpbio)
check_match "that map is a dm device" "^dm-[0-9]+$" "$DMB"
check_fail "the default map is bio-based (no blk-mq contexts)" test -d "/sys/block/$DMB/mq"
# (6.1 shows "none" there, 7.3 nothing)
check_fail "... and no I/O scheduler to choose" grep -q mq-deadline "/sys/block/$DMB/queue/scheduler"
dm_remove mpbio

kmsg_mark
check_fail "a reload may not make it bio-based" \
	dm_reload mprq "0 $SECTORS multipath 2 queue_mode bio $RR"
check_match "dm core says why" "can't change device type" "$(kmsg_since)"
check_fail "nor may a reload with no queue_mode (bio by default)" \
	dm_reload mprq "0 $SECTORS multipath 0 $RR"
check "a reload in the same mode is taken" \
	sh -c "dmsetup reload mprq --table '0 $SECTORS multipath 3 queue_mode MQ queue_if_no_path $RR' && dmsetup resume mprq"
check_eq "mq is the same mode, shown as rq" \
	"0 $SECTORS multipath 3 queue_if_no_path queue_mode rq $RR " "$(dmsetup table mprq)"

# Per-path counts, one request per 4 KiB read (one at a time: no merging).
DEV=$(dmsetup info -c --noheadings -o major,minor --separator : mprq)
F=/sys/kernel/debug/dm-multipath/$DEV
field() { sed -n "s/.* dev=$1 .*\<$2=\([^ ]*\).*/\1/p" "$F"; }
check "the map's statistics file exists" test -r "$F"
sa=$(field "$A" sent) sb=$(field "$B" sent)
check "200 direct 4 KiB reads" \
	dd if=/dev/mapper/mprq of=/dev/null bs=4k count=200 iflag=direct status=none
diag "$(cat "$F")"
check_eq "repeat_count 1 alternates the requests: 100 each" "100 100" \
	"$(($(field "$A" sent) - sa)) $(($(field "$B" sent) - sb))"
check_eq "nothing in flight at rest" "0 0" "$(field "$A" in_flight) $(field "$B" in_flight)"

# fio through path failures.
io_of() { echo $(($(path_reads "$1") + $(path_writes "$1"))); }
is_failed() { [ "$(path_state mprq "$1")" = F ]; }
fio_start_until_stopped /dev/mapper/mprq 4k 32 /tmp/fio-116.json
a0=$(io_of "${SD_NAMES[0]}")
check "fio's I/O flows through the first path" wait_until 120 eval '[ $(($(io_of "${SD_NAMES[0]}") - a0)) -ge 64 ]'
kmsg_mark
path_offline "${SD_NAMES[0]}"
check "an I/O error on the offlined path fails it" wait_until 30 is_failed "$A"
b0=$(io_of "${SD_NAMES[1]}")
check "I/O goes on through the other path" wait_until 30 eval '[ $(($(io_of "${SD_NAMES[1]}") - b0)) -ge 64 ]'
check_match "kernel log names the failed path" "Failing path $A\\." "$(kmsg_since)"
path_running "${SD_NAMES[0]}"
check "reinstate it" dmsetup message mprq 0 reinstate_path "$A"
a0=$(io_of "${SD_NAMES[0]}")
check "the reinstated path carries I/O again" wait_until 30 eval '[ $(($(io_of "${SD_NAMES[0]}") - a0)) -ge 64 ]'
check "fail_path the other path" dmsetup message mprq 0 fail_path "$B"
sleep 1
check "reinstate it" dmsetup message mprq 0 reinstate_path "$B"
sleep 1
fio_stop_verified
rm -f /tmp/fio-116.json
check_match "INFO status: both active, the offlined path failed once" \
	" $A A 1 $B A 1 $" "$(dmsetup status mprq)"
check "its failed requests counted as its errors" test "$(field "$A" errors)" -ge 1
check_eq "none on the other path" 0 "$(field "$B" errors)"
check_eq "nothing in flight after fio" "0 0" "$(field "$A" in_flight) $(field "$B" in_flight)"

# No path: queue_if_no_path holds the requests in the map's queue.
check "zero the test area" writers_area_zero mprq
check "fail_path both paths" sh -c "dmsetup message mprq 0 fail_path $A && dmsetup message mprq 0 fail_path $B"
writers mprq "$WPAT"
sleep 3
check "the writers are held" writers_none_done
check_eq "nothing reached the paths meanwhile (in flight)" "0 0" "$(field "$A" in_flight) $(field "$B" in_flight)"
check "reinstate_path one path" dmsetup message mprq 0 reinstate_path "$B"
check "the writers finish" wait_until 60 writers_all_done
check_eq "every writer succeeded" "0 0 0 0 " "$(writers_exits)"
check "data written while held is on the LUN (read through the other path)" \
	cmp -n 1048576 "$WPAT" "${SD_DEVS[0]}"
check "reinstate the other path" dmsetup message mprq 0 reinstate_path "$A"

# ... and fail_if_no_path ends them with EIO.
check "fail_path both paths" sh -c "dmsetup message mprq 0 fail_path $A && dmsetup message mprq 0 fail_path $B"
writers mprq "$WPAT"
sleep 2
check "the writers are held" writers_none_done
check "fail_if_no_path" dmsetup message mprq 0 fail_if_no_path
check "the writers finish" wait_until 30 writers_all_done
check_eq "every writer failed" "1 1 1 1 " "$(writers_exits)"
check_match "with EIO" "Input/output error" "$(cat /tmp/dd.0.err)"
check_fail "new I/O with no path fails" dd if=/dev/mapper/mprq of=/dev/null bs=4k count=1 iflag=direct status=none
check "reinstate both paths" sh -c "dmsetup message mprq 0 reinstate_path $A && dmsetup message mprq 0 reinstate_path $B"
check "I/O works again" dd if=/dev/mapper/mprq of=/dev/null bs=4k count=8 iflag=direct status=none

dm_remove mprq
check "modules unload" mp_mods_unload
