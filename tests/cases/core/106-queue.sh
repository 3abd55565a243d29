#!/bin/bash
# queue_if_no_path holds bios until a path returns; fail_if_no_path EIOs.
# No path left: with queue_if_no_path bios queue (queue size in the INFO
# status) and complete with the right data once a path is reinstated;
# fail_if_no_path releases queued bios with EIO, and new I/O then fails at
# once; a map with no priority groups queues or fails the same way.
# timeout: 300
source "${0%/*}/rc"

queueing_fixture mpq
on_exit "kill \$(jobs -p) 2>/dev/null"

check "zero the test area" writers_area_zero mpq

check "fail_path both paths" sh -c "dmsetup message mpq 0 fail_path $A && dmsetup message mpq 0 fail_path $B"
writers mpq "$WPAT"
check "4 bios queued (INFO status queue size)" wait_until 30 queue_size_is mpq 4
sleep 2
check "the writers are blocked" writers_none_done
check_eq "still 4 queued after 2 s" 4 "$(queue_size mpq)"
check "reinstate_path one path" dmsetup message mpq 0 reinstate_path "$B"
check "the writers finish" wait_until 60 writers_all_done
check_eq "every writer succeeded" "0 0 0 0 " "$(writers_exits)"
check_eq "queue empty" 0 "$(queue_size mpq)"
check "data written while queued is on disk (read through the other path later)" \
	cmp -n 1048576 "$WPAT" "${SD_DEVS[0]}"
check "reinstate the other path" dmsetup message mpq 0 reinstate_path "$A"

# Queued because the paths errored (offline), not because of messages.
check "zero the test area" writers_area_zero mpq
path_offline "${SD_NAMES[0]}"
path_offline "${SD_NAMES[1]}"
writers mpq "$WPAT"
check "offlined paths: 4 bios queued" wait_until 30 queue_size_is mpq 4
check_match "both paths failed by I/O errors" " $A F 2 $B F 2 $" "$(dmsetup status mpq)"
path_running "${SD_NAMES[0]}"
check "reinstate_path after the path is back" dmsetup message mpq 0 reinstate_path "$A"
check "the writers finish" wait_until 60 writers_all_done
check_eq "every writer succeeded" "0 0 0 0 " "$(writers_exits)"
check "data correct" writers_area_is_wpat mpq
path_running "${SD_NAMES[1]}"
check "reinstate the other path" dmsetup message mpq 0 reinstate_path "$B"

# fail_if_no_path releases queued I/O with EIO.
check "fail_path both paths" sh -c "dmsetup message mpq 0 fail_path $A && dmsetup message mpq 0 fail_path $B"
writers mpq "$WPAT"
check "4 bios queued" wait_until 30 queue_size_is mpq 4
check "fail_if_no_path" dmsetup message mpq 0 fail_if_no_path
check "the writers finish" wait_until 30 writers_all_done
check_eq "every writer failed" "1 1 1 1 " "$(writers_exits)"
check_match "with EIO" "Input/output error" "$(cat /tmp/dd.0.err)"
check_eq "queue empty" 0 "$(queue_size mpq)"
t0=$SECONDS
check_fail "new I/O with no path fails" dd if=/dev/mapper/mpq of=/dev/null bs=4k count=1 iflag=direct status=none
check "... promptly" test $((SECONDS - t0)) -le 5
check "queue_if_no_path again" dmsetup message mpq 0 queue_if_no_path
writers mpq "$WPAT"
check "queued again" wait_until 30 queue_size_is mpq 4
check "reinstate both paths" sh -c "dmsetup message mpq 0 reinstate_path $A && dmsetup message mpq 0 reinstate_path $B"
check "the writers finish" wait_until 60 writers_all_done
check_eq "every writer succeeded" "0 0 0 0 " "$(writers_exits)"
dm_remove mpq

# No priority groups at all (what the daemon loads when the last path goes).
check "create a map with no PGs, queue_if_no_path" dm_create mpq "0 $SECTORS multipath 1 queue_if_no_path 0 0 0"
writers mpq "$WPAT"
check "no PGs: 4 bios queued" wait_until 30 queue_size_is mpq 4
check "fail_if_no_path" dmsetup message mpq 0 fail_if_no_path
check "the writers finish" wait_until 30 writers_all_done
check_eq "every writer failed" "1 1 1 1 " "$(writers_exits)"
dm_remove mpq
check "create a map with no PGs, no queueing" dm_create mpq "0 $SECTORS multipath 0 0 0 0"
check_fail "no PGs: I/O fails" dd if=/dev/mapper/mpq of=/dev/null bs=4k count=1 iflag=direct status=none
dm_remove mpq
check "modules unload" mp_mods_unload
