#!/bin/bash
# Bad messages are refused with -EINVAL and a log line, changing nothing.
# Messages are strict: unknown messages, wrong argument counts, bad or out
# of range numbers, devices that are not paths of the map are refused with
# -EINVAL and a kernel log line saying why, and change nothing.
# timeout: 240
# cross-kernel: yes
source "${0%/*}/rc"

mp_fixture 3 mpm
A=${DEVNUMS[0]} B=${DEVNUMS[1]} C=${DEVNUMS[2]}
check "create 2-PG map over 2 of the 3 paths" dm_create mpm \
	"0 $SECTORS multipath 0 0 2 1 round-robin 0 1 0 $A round-robin 0 1 0 $B"
T0=$(dmsetup table mpm) S0=$(dmsetup status mpm)

n=0
# badmsg EXPECTED-LOG WORDS...
badmsg() {
	local want=$1
	shift
	n=$((n + 1))
	kmsg_mark
	check_fail "message #$n refused: '$*'" dmsetup message mpm 0 "$@"
	kmsg_expect "message #$n: kernel says '$want'" "multipath: $want"
}
badmsg "unrecognised message frobnicate" frobnicate
badmsg "unrecognised message fail_paths" fail_paths 1
badmsg "message fail_path takes 1 argument, got 0" fail_path
badmsg "message fail_path takes 1 argument, got 2" fail_path "$A" "$B"
badmsg "message queue_if_no_path takes 0 arguments, got 1" queue_if_no_path 1
badmsg "message fail_if_no_path takes 0 arguments, got 1" fail_if_no_path now
badmsg "message switch_group takes 1 argument, got 0" switch_group
badmsg "switch_group: invalid priority group number 0 \(map has 2\)" switch_group 0
badmsg "switch_group: invalid priority group number 3 \(map has 2\)" switch_group 3
badmsg "switch_group: invalid priority group number 1x" switch_group 1x
badmsg "switch_group: invalid priority group number 0x1" switch_group 0x1
badmsg "disable_group: invalid priority group number 9" disable_group 9
badmsg "enable_group: invalid priority group number two" enable_group two
badmsg "message enable_group takes 1 argument, got 2" enable_group 1 2
badmsg "fail_path: $C is not a path of this map" fail_path "$C"
badmsg "reinstate_path: ${SD_DEVS[2]} is not a path of this map" reinstate_path "${SD_DEVS[2]}"
badmsg "fail_path: cannot find device /dev/no-such-disk" fail_path /dev/no-such-disk
badmsg "fail_path: cannot find device 8:x" fail_path 8:x
kmsg_check_expected
check_eq "refused messages changed nothing (TABLE)" "$T0" "$(dmsetup table mpm)"
check_eq "refused messages changed nothing (INFO)" "$S0" "$(dmsetup status mpm)"

check "fail_path by device name" dmsetup message mpm 0 fail_path "${SD_DEVS[0]}"
check_match "path failed" " $A F 1 " "$(dmsetup status mpm)"
check "fail_path of an already failed path is accepted" dmsetup message mpm 0 fail_path "$A"
check_match "fail count not bumped twice" " $A F 1 " "$(dmsetup status mpm)"
check "reinstate_path by device name, upper case message" dmsetup message mpm 0 REINSTATE_PATH "${SD_DEVS[0]}"
check_match "path active" " $A A 1 " "$(dmsetup status mpm)"
check "queue_if_no_path" dmsetup message mpm 0 queue_if_no_path
check_match "TABLE shows queue_if_no_path" "multipath 1 queue_if_no_path 0 " "$(dmsetup table mpm)"
check "fail_if_no_path" dmsetup message mpm 0 fail_if_no_path
check_match "TABLE without queue_if_no_path" "multipath 0 0 2 " "$(dmsetup table mpm)"
dm_remove mpm
check "modules unload" mp_mods_unload
