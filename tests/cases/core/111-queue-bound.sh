#!/bin/bash
# Bounded queueing: with no path, queued I/O is held until the bound, then EIO.
# queue_if_no_path_timeout_secs (table feature, and the module parameter of
# the same name): INFO status shows "4 <queue size> no_path <secs> <bound>"
# while the map queues for want of a path; just before the bound the I/O is
# still held, after it the writers get EIO, the kernel log says so, a dm
# event is raised and queue_if_no_path is off.  What was written before the
# outage is intact.  A path back before the bound completes the I/O;
# fail_if_no_path still ends queueing at once.
# timeout: 300
source "${0%/*}/rc"

mp_fixture 2 mpb
on_exit "kill \$(jobs -p) 2>/dev/null; echo 0 >/sys/module/dm_multipath/parameters/queue_if_no_path_timeout_secs"
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
BOUND=8
PARAM=/sys/module/dm_multipath/parameters/queue_if_no_path_timeout_secs
pat=/tmp/pattern.$$
old=/tmp/old.$$
head -c 1M /dev/urandom >"$pat"
head -c 1M /dev/urandom >"$old"

check_eq "module parameter defaults to 0 (no bound)" 0 "$(cat $PARAM)"
kmsg_mark
check_fail "module parameter: 86401 refused (0 to 86400)" sh -c "echo 86401 >$PARAM"
check_eq "... and left as it was" 0 "$(cat $PARAM)"
check_match "... with a log line that names it" \
	"dm-multipath: queue_if_no_path_timeout_secs '86401' refused: must be 0 to 86400" "$(kmsg_since)"
check "create a map bounded at $BOUND s" dm_create mpb \
	"0 $SECTORS multipath 3 queue_if_no_path queue_if_no_path_timeout_secs $BOUND 0 1 1 round-robin 0 2 0 $A $B"
check "write the data that must survive" dd if="$old" of=/dev/mapper/mpb bs=64k oflag=direct status=none
check_match "INFO before the outage: plain queue size" "^0 $SECTORS multipath 1 0 0 " "$(dmsetup status mpb)"

event0=$(dmsetup info -c --noheadings -o events mpb)
kmsg_mark
path_offline "${SD_NAMES[0]}"
path_offline "${SD_NAMES[1]}"
t0=$SECONDS
# The writers aim past the surviving data: 1 MiB on, so it stays intact.
WPIDS=()
for i in 0 1 2 3; do
	dd if="$pat" of=/dev/mapper/mpb bs=64k skip=$((i * 4)) seek=$((16 + i * 4)) count=4 \
		oflag=direct conv=notrunc status=none 2>"/tmp/dd.$i.err" &
	WPIDS+=($!)
done
check "the outage: 4 bios queued" wait_until 30 queue_size_is mpb 4
st=$(dmsetup status mpb)
check_match "INFO shows queueing for want of a path, with the bound" \
	"^0 $SECTORS multipath 4 4 no_path [0-9]+ $BOUND 0 " "$st"
# Just before the bound: still held (the bound counts from the failure of
# the last path, which happened before t0's first queued bio).
while [ $((SECONDS - t0)) -lt $((BOUND - 3)) ]; do sleep 0.5; done
check "$((BOUND - 3)) s into the outage the writers are still blocked" writers_none_done
check_eq "... with their bios queued" 4 "$(queue_size mpb)"
check "after the bound the writers finish" wait_until 30 writers_all_done
el=$((SECONDS - t0))
diag "writers released after ${el} s (bound $BOUND s)"
check "... not before the bound" test "$el" -ge $((BOUND - 1))
check_eq "every writer got an error" "1 1 1 1 " "$(writers_exits)"
check_match "with EIO" "Input/output error" "$(cat /tmp/dd.0.err)"
check_match "the kernel log says the bound was reached" \
	"multipath: queue_if_no_path timeout on [0-9]+:[0-9]+, failing queued IO \(no path [0-9]+ s, [0-9]+ I/O\)" "$(kmsg_since)"
check "... event number moved on" test "$(dmsetup info -c --noheadings -o events mpb)" -gt "$event0"
check_match "queue_if_no_path is off in TABLE (the bound stays)" \
	"^0 $SECTORS multipath 2 queue_if_no_path_timeout_secs $BOUND 0 " "$(dmsetup table mpb)"
check_match "INFO back to the plain form, nothing queued" "^0 $SECTORS multipath 1 0 0 " "$(dmsetup status mpb)"
check_fail "new I/O fails at once now" dd if=/dev/mapper/mpb of=/dev/null bs=4k count=1 iflag=direct status=none

path_running "${SD_NAMES[0]}"
path_running "${SD_NAMES[1]}"
check "reinstate both paths" sh -c "dmsetup message mpb 0 reinstate_path $A && dmsetup message mpb 0 reinstate_path $B"
check "nothing written before the outage was lost" \
	sh -c "dd if=/dev/mapper/mpb bs=64k count=16 iflag=direct status=none | cmp - $old"

# A path back before the bound: the queued I/O completes, no error.
check "queue_if_no_path again" dmsetup message mpb 0 queue_if_no_path
check "fail both paths" sh -c "dmsetup message mpb 0 fail_path $A && dmsetup message mpb 0 fail_path $B"
writers mpb "$pat"
check "queued again" wait_until 30 queue_size_is mpb 4
sleep 2
check "reinstate one path before the bound" dmsetup message mpb 0 reinstate_path "$B"
check "the writers finish" wait_until 30 writers_all_done
check_eq "every writer succeeded" "0 0 0 0 " "$(writers_exits)"
check "the data written while queued is there" \
	sh -c "dd if=/dev/mapper/mpb bs=64k count=16 iflag=direct status=none | cmp - $pat"
sleep $((BOUND + 1))
check_match "the bound did not fire later: queue_if_no_path still on" \
	"^0 $SECTORS multipath 3 queue_if_no_path queue_if_no_path_timeout_secs $BOUND " "$(dmsetup table mpb)"
check "reinstate the other path" dmsetup message mpb 0 reinstate_path "$A"
dm_remove mpb

# The module parameter bounds a map whose table sets none.
check "set the module parameter to 5 s" sh -c "echo 5 >$PARAM"
check "create a map with queue_if_no_path only" dm_create mpb \
	"0 $SECTORS multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 0 $A $B"
kmsg_mark
check "fail both paths" sh -c "dmsetup message mpb 0 fail_path $A && dmsetup message mpb 0 fail_path $B"
writers mpb "$pat"
check "queued" wait_until 30 queue_size_is mpb 4
check_match "INFO shows the module parameter's bound" "^0 $SECTORS multipath 4 4 no_path [0-9]+ 5 0 " "$(dmsetup status mpb)"
check "the writers are released by the bound" wait_until 30 writers_all_done
check_eq "every writer got an error" "1 1 1 1 " "$(writers_exits)"
check_match "the kernel log says so" "queue_if_no_path timeout on" "$(kmsg_since)"
check "module parameter back to 0" sh -c "echo 0 >$PARAM"
dm_remove mpb

# A table bound of 0 means none, even with the module parameter set.
check "set the module parameter to 3 s" sh -c "echo 3 >$PARAM"
check "create a map with queue_if_no_path_timeout_secs 0" dm_create mpb \
	"0 $SECTORS multipath 3 queue_if_no_path queue_if_no_path_timeout_secs 0 0 1 1 round-robin 0 2 0 $A $B"
check "fail both paths" sh -c "dmsetup message mpb 0 fail_path $A && dmsetup message mpb 0 fail_path $B"
writers mpb "$pat"
check "queued" wait_until 30 queue_size_is mpb 4
sleep 6
check "6 s later (module bound 3 s) still held: the table's 0 wins" writers_none_done
check "fail_if_no_path ends it at once" dmsetup message mpb 0 fail_if_no_path
check "the writers finish" wait_until 30 writers_all_done
check_eq "every writer got an error" "1 1 1 1 " "$(writers_exits)"
check "module parameter back to 0" sh -c "echo 0 >$PARAM"
dm_remove mpb
rm -f "$pat" "$old"
check "modules unload" mp_mods_unload
