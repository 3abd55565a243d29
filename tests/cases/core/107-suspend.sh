#!/bin/bash
# Suspend (flush, noflush, reload) with I/O queued and under running I/O.
# Suspend with queued I/O: a flush suspend completes by failing the queued
# bios, and queue_if_no_path applies again after resume; a noflush suspend
# keeps them, and after a table reload they complete on the new table with
# no error and the right data; suspend/resume under running I/O neither
# deadlocks nor loses anything.
# timeout: 360
source "${0%/*}/rc"

queueing_fixture mps
on_exit "kill \$(jobs -p) 2>/dev/null; dmsetup resume mps"

fail_both() { dmsetup message mps 0 fail_path "$A" && dmsetup message mps 0 fail_path "$B"; }

diag "flush suspend with queued I/O"
check "fail both paths" fail_both
writers mps "$WPAT"
check "4 bios queued" wait_until 30 queue_size_is mps 4
check "flush suspend completes" timeout 60 dmsetup suspend mps
check "the queued writers were failed" wait_until 30 writers_all_done
check_eq "every writer got an error" "1 1 1 1 " "$(writers_exits)"
check_match "EIO" "Input/output error" "$(cat /tmp/dd.0.err)"
check "resume" dmsetup resume mps
check_match "queue_if_no_path kept across the suspend" "multipath 1 queue_if_no_path " "$(dmsetup table mps)"
writers mps "$WPAT"
check "after resume, I/O with no path queues again" wait_until 30 queue_size_is mps 4
check "reinstate both paths" sh -c "dmsetup message mps 0 reinstate_path $A && dmsetup message mps 0 reinstate_path $B"
check "the writers finish" wait_until 60 writers_all_done
check_eq "every writer succeeded" "0 0 0 0 " "$(writers_exits)"

diag "noflush suspend + reload with queued I/O"
check "zero the test area" writers_area_zero mps
check "fail both paths" fail_both
writers mps "$WPAT"
check "4 bios queued" wait_until 30 queue_size_is mps 4
check "noflush suspend completes" timeout 60 dmsetup suspend --noflush mps
sleep 1
check "the writers are still waiting (not failed)" writers_none_done
check "reload a table with usable paths" dm_reload mps "$TABLE"
check "resume onto the new table" dmsetup resume mps
check "the writers finish" wait_until 60 writers_all_done
check_eq "every writer succeeded" "0 0 0 0 " "$(writers_exits)"
check "data written across the reload is correct" writers_area_is_wpat mps
check_match "new table: all paths active, no fail counts" " $A A 0 $B A 0 $" "$(dmsetup status mps)"

diag "noflush suspend and resume without a reload"
check "zero the test area" writers_area_zero mps
check "fail both paths" fail_both
writers mps "$WPAT"
check "4 bios queued" wait_until 30 queue_size_is mps 4
check "noflush suspend" timeout 60 dmsetup suspend --noflush mps
check "resume the same table" dmsetup resume mps
check "the bios are queued in the target again" wait_until 30 queue_size_is mps 4
check "the writers are still waiting" writers_none_done
check "reinstate a path" dmsetup message mps 0 reinstate_path "$B"
check "the writers finish" wait_until 60 writers_all_done
check_eq "every writer succeeded" "0 0 0 0 " "$(writers_exits)"
check "data correct" writers_area_is_wpat mps
dm_remove mps

diag "noflush reload from a map with no priority groups"
check "create a map with no PGs, queue_if_no_path" dm_create mps "0 $SECTORS multipath 1 queue_if_no_path 0 0 0"
writers mps "$WPAT"
check "4 bios queued on the empty map" wait_until 30 queue_size_is mps 4
check "noflush suspend" timeout 60 dmsetup suspend --noflush mps
check "reload with the paths" dm_reload mps "$TABLE"
check "resume" dmsetup resume mps
check "the writers finish" wait_until 60 writers_all_done
check_eq "every writer succeeded" "0 0 0 0 " "$(writers_exits)"
check "data correct" writers_area_is_wpat mps

diag "suspend/resume and reloads under running I/O"
fio --name=susp --filename=/dev/mapper/mps --direct=1 --ioengine=libaio --iodepth=16 \
	--bs=4k --rw=randwrite --size=16M --verify=crc32c --verify_fatal=1 --loops=3 \
	--output-format=json --output=/tmp/fio-susp.json &
FIO=$!
sleep 3
for i in 1 2 3; do
	check "flush suspend #$i under I/O" timeout 60 dmsetup suspend mps
	check "resume #$i" dmsetup resume mps
	check "noflush suspend #$i under I/O" timeout 60 dmsetup suspend --noflush mps
	check "reload #$i" dm_reload mps "$TABLE"
	check "resume #$i onto the new table" dmsetup resume mps
	sleep 1
done
wait $FIO
check_eq "fio exit status" 0 "$?"
check_eq "fio: no error" 0 "$(jq '.jobs[0].error' /tmp/fio-susp.json)"
check_eq "fio verified everything" $((3 * 16 * 1048576)) "$(jq '.jobs[0].read.io_bytes' /tmp/fio-susp.json)"
dm_remove mps
check "modules unload" mp_mods_unload
