#!/bin/bash
# A suspended map refuses messages, and its no-path bound stands still.
# As in Linux 6.1, every message to a suspended map fails with EBUSY, is
# logged, and changes neither status nor table; after resume messages work
# again. The no-path queueing bound (queue_if_no_path_timeout_secs) does not
# count the time the map is suspended: a map suspended for longer than its
# whole bound still queues after resume, for what was left of the bound, and
# only then fails its queued I/O. A live multipath map cannot be reloaded
# with another target type (DM_TARGET_IMMUTABLE, as 6.1).
# timeout: 240
source "${0%/*}/rc"

mp_fixture 2 mps
on_exit "kill \$(jobs -p) 2>/dev/null; dmsetup resume mps 2>/dev/null"
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
check "create map" dm_create mps \
	"0 $SECTORS multipath 3 queue_if_no_path queue_if_no_path_timeout_secs 15 0 1 1 round-robin 0 2 1 $A 1 $B 1" || exit 1

diag "messages to a suspended map"
st0=$(dmsetup status mps) tb0=$(dmsetup table mps)
check "suspend" dmsetup suspend mps
kmsg_mark
for msg in "fail_path $A" "reinstate_path $B" "switch_group 1" "disable_group 1" \
	"fail_if_no_path" "queue_if_no_path" "no_such_message" "fail_path 999:999"; do
	out=$(dmsetup message mps 0 $msg 2>&1)
	rc=$?
	check "message '$msg' refused" test $rc -ne 0
	check_match "... with EBUSY" "Device or resource busy" "$out"
done
check_match "logged with the map and the message" "multipath: [0-9]+:[0-9]+: message fail_path refused: the map is suspended" "$(kmsg_since)"
check_eq "status unchanged" "$st0" "$(dmsetup status mps)"
check_eq "table unchanged" "$tb0" "$(dmsetup table mps)"
check "resume" dmsetup resume mps
check "after resume, fail_path works" dmsetup message mps 0 fail_path "$A"
check_eq "path A failed" F "$(path_state mps "$A")"
check "reinstate_path A" dmsetup message mps 0 reinstate_path "$A"

diag "reload with another target type"
check_fail "reload as linear refused" dm_reload mps "0 $SECTORS linear ${SD_DEVS[0]} 0"
check "the live table is still multipath" sh -c "dmsetup table mps | grep -q ' multipath '"
dmsetup clear mps 2>/dev/null

# The bound must outlast the steps up to the suspend (fail, queue a read,
# suspend), which a guest on a loaded host once took more than 6 s for: the
# bound then expired before the suspend (7.3 run, "no path 6 s, 1 I/O").
diag "no-path bound (15 s) across a 20 s suspend"
check "fail both paths" sh -c "dmsetup message mps 0 fail_path $A && dmsetup message mps 0 fail_path $B"
dd if=/dev/mapper/mps of=/dev/null bs=4k count=1 iflag=direct status=none 2>/tmp/dd114.err &
ddpid=$!
check "a read queues" wait_until 10 queue_size_is mps 1
sleep 1
check "noflush suspend (the read goes back to dm core)" dmsetup suspend --noflush mps
read -ra f <<<"$(dmsetup status mps)"
# What of the bound the steps so far used (a slow guest can use it all).
diag "status while suspended: ${f[*]:3:5}"
sleep 20
check "resume" dmsetup resume mps
check "the read queues again" wait_until 10 queue_size_is mps 1
read -ra f <<<"$(dmsetup status mps)"
diag "status after resume: ${f[*]:3:5}"
check_eq "still queueing with no path, bound 15 s" "4 1 no_path" "${f[*]:3:3}"
check "queued for less than the bound (suspended time not counted)" test "${f[6]}" -lt 15
check "the bound then fails the read" wait_until 30 eval '! kill -0 $ddpid 2>/dev/null'
wait $ddpid
check "the read failed (EIO)" test $? -ne 0
check "queue_if_no_path is off (bound reached)" sh -c "! dmsetup table mps | grep -q queue_if_no_path\ "
