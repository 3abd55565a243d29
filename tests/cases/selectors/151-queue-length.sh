#!/bin/bash
# queue-length follows in-flight counts: held reads, an emptied path, a slow path.
# queue-length sends each I/O down the path with the fewest in flight, as
# seen in the selector's INFO word and in each path's own read counter.
# Two paths that hold their I/O (dm-delay devices over scsi_debug) take
# held reads in turns (3 and 3 in flight); with one path emptied, every new
# read goes to it; a path slowed down by 200 ms (dm-delay) gets few of the
# reads of a queue-depth-16 load. In-flight counts return to 0.
# timeout: 400
source "${0%/*}/rc"

ps_fixture mpql
inflight() { ps_info_both mpql; }
inflight_is() { [ "$(inflight)" = "$1" ]; }
inflight_total_is() { [ "$(sum_of "$(inflight)")" = "$1" ]; }

check_stack "two linear paths" linear linear
P0=${PS_NUMS[0]} P1=${PS_NUMS[1]}
check "queue-length map (module autoloads)" \
	dm_create mpql "0 $S multipath 0 0 1 1 queue-length 0 2 1 $P0 1 $P1 1"
check_eq "idle: nothing in flight" "0 0" "$(inflight)"

check "both paths hold their I/O" ps_hold 0 1
# One process submits them one after the other: each is counted in flight
# (start_io) before the next is mapped, and none completes meanwhile.
held_ios mpql 6 4096
check "six held reads in flight" wait_until 30 inflight_total_is 6
check_eq "six held reads: three in flight on each path" "3 3" "$(inflight)"

check "the second path lets its I/O go" ps_release 1
check "... and its queue empties" wait_until 10 inflight_is "3 0"
r0=$(dev_reads "$P0") r1=$(dev_reads "$P1")
check "20 reads one after the other" \
	dd if=/dev/mapper/mpql of=/dev/null bs=4k count=20 skip=100 iflag=direct status=none
check_eq "all 20 went down the empty path" 20 "$(($(dev_reads "$P1") - r1))"
check_eq "the held path still has its 3" "3 0" "$(inflight)"
check "the first path lets its I/O go" ps_release 0
readers_wait
check_eq "the held reads completed without error" "" "${READERS_RC//0 /}"
check_eq "the first path completed exactly its 3 held reads" 3 "$(($(dev_reads "$P0") - r0))"
check_eq "nothing in flight" "0 0" "$(inflight)"
dm_remove mpql
ps_unstack

# A slow path under load: queue-length keeps its queue no longer than the
# fast path's, i.e. gives it an I/O only when it has none in flight.
check_slow_path_shunned mpql queue-length
check "modules unload" mp_mods_unload
