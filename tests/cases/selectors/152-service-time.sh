#!/bin/bash
# service-time follows bytes in flight per relative_throughput; 0 is a last resort.
# service-time sends each I/O down the path expected to finish it first:
# (bytes in flight + the I/O's) / relative_throughput, as seen in the
# selector's INFO words (bytes in flight, throughput) and each path's own
# read counter. With both paths holding their I/O (dm-delay devices):
# throughputs 1 and 3 take held reads 1:3; one held 64 KiB read weighs as
# much as sixteen 4 KiB reads; a path of throughput 0 gets nothing while
# the other is usable, however loaded, and everything once it is failed.
# Under a queue-depth-16 load a path slowed by 200 ms gets little.
# timeout: 400
source "${0%/*}/rc"

ps_fixture mpst
# bytes: the bytes in flight of each path
bytes() { ps_info_both mpst; }
bytes_are() { [ "$(bytes)" = "$1" ]; }
bytes_total() { sum_of "$(bytes)"; }
bytes_total_is() { [ "$(bytes_total)" = "$1" ]; }
# check_held DESC N SIZE: N held reads of SIZE submitted by one process (each
# counted in flight before the next is mapped), all counted in flight.
check_held() {
	local total=$(($(bytes_total) + $2 * $3))
	held_ios mpst "$2" "$3"
	if wait_until 30 bytes_total_is "$total"; then
		tap_ok "$1"
	else
		tap_fail "$1" "in flight: $(bytes), want $total in all"
	fi
}

check_stack "two linear paths" linear linear
P0=${PS_NUMS[0]} P1=${PS_NUMS[1]}

# Relative throughput 1 and 3: eight held reads split 2:6.
check "service-time map, throughputs 1 and 3" \
	dm_create mpst "0 $S multipath 0 0 1 1 service-time 0 2 2 $P0 1 1 $P1 1 3"
check_eq "INFO words: nothing in flight, the throughputs" "0 1 0 3" \
	"$(ps_words mpst "$P0" 2) $(ps_words mpst "$P1" 2)"
check "both paths hold their I/O" ps_hold 0 1
check_held "eight held 4 KiB reads" 8 4096
check_eq "split 1:3 by throughput (bytes in flight)" "8192 24576" "$(bytes)"
check "paths let their I/O go" ps_release 0 1
readers_wait
check_eq "the held reads completed without error" "" "${READERS_RC//0 /}"
check "nothing in flight" wait_until 10 bytes_are "0 0"
dm_remove mpst

# Equal throughput: a 64 KiB read in flight weighs as sixteen 4 KiB ones.
check "service-time map as multipath-tools writes it" \
	dm_create mpst "0 $S multipath 0 0 1 1 service-time 0 2 1 $P0 1 $P1 1"
check "both paths hold their I/O" ps_hold 0 1
check_held "one held 64 KiB read" 1 65536
check_eq "it went down the first path" "65536 0" "$(bytes)"
check_held "sixteen held 4 KiB reads" 16 4096
check_eq "all sixteen went down the other path" "65536 65536" "$(bytes)"
check_held "one more 4 KiB read" 1 4096
check_eq "with the loads equal it goes down the first path" "69632 65536" "$(bytes)"
check "paths let their I/O go" ps_release 0 1
readers_wait
check_eq "the held reads completed without error" "" "${READERS_RC//0 /}"
check "nothing in flight" wait_until 10 bytes_are "0 0"
dm_remove mpst

# Throughput 0: a last resort.
check "service-time map, throughputs 0 and 1" \
	dm_create mpst "0 $S multipath 0 0 1 1 service-time 0 2 2 $P0 1 0 $P1 1 1"
check "both paths hold their I/O" ps_hold 0 1
check_held "four held reads" 4 4096
check_eq "all four on the throughput-1 path, none on the throughput-0 one" "0 16384" "$(bytes)"
check "paths let their I/O go" ps_release 0 1
readers_wait
check_eq "the held reads completed without error" "" "${READERS_RC//0 /}"
# reads_split: 50 direct 4 KiB reads through mpst, one after the other;
# prints how many of them each path served ("P0's P1's"), or fails.
reads_split() {
	local r0 r1
	r0=$(dev_reads "$P0") r1=$(dev_reads "$P1")
	dd if=/dev/mapper/mpst of=/dev/null bs=4k count=50 iflag=direct status=none || return 1
	echo "$(($(dev_reads "$P0") - r0)) $(($(dev_reads "$P1") - r1))"
}
check_eq "50 reads one after the other: none on throughput 0, all on throughput 1" \
	"0 50" "$(reads_split)"
check "fail the throughput-1 path" dmsetup message mpst 0 fail_path "$P1"
check_eq "50 more: with nothing else usable the throughput-0 path takes all, the failed one none" \
	"50 0" "$(reads_split)"
check "reinstate it" dmsetup message mpst 0 reinstate_path "$P1"
check_eq "50 more: reinstated, the throughput-0 path is idle again" "0 50" "$(reads_split)"
dm_remove mpst
ps_unstack

# A slow path under load.
check_slow_path_shunned mpst service-time
check "modules unload" mp_mods_unload
