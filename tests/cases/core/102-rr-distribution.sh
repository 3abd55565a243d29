#!/bin/bash
# Round-robin spreads reads by repeat_count, per-path counters show it.
# Round-robin spreads I/O by repeat_count, as seen in each path's own
# completed-read counter: repeat_count 1, 16 and the default 1000, over two
# and three paths; a failed path gets nothing; fail/reinstate keep the
# repeat_count.
# timeout: 300
source "${0%/*}/rc"

mp_fixture 3 mprr
check "per-bio choices: sequential_stream_kb=0" mp_stream_off || exit 1
A=${DEVNUMS[0]} B=${DEVNUMS[1]} C=${DEVNUMS[2]}
a=${SD_NAMES[0]} b=${SD_NAMES[1]} c=${SD_NAMES[2]}

# reads N: N direct 4 KiB reads through the map (one bio each, queue depth
# 1); sets DA DB DC to the reads each path completed meanwhile.
reads() {
	local ra rb rc
	ra=$(path_reads "$a") rb=$(path_reads "$b") rc=$(path_reads "$c")
	dd if=/dev/mapper/mprr of=/dev/null bs=4k count="$1" iflag=direct status=none
	DA=$(($(path_reads "$a") - ra)) DB=$(($(path_reads "$b") - rb)) DC=$(($(path_reads "$c") - rc))
	diag "$1 reads: $a=$DA $b=$DB $c=$DC"
}

# repeat_count 1: strict alternation.
check "create rr map, 2 paths, repeat_count 1" \
	dm_create mprr "0 $SECTORS multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1"
reads 1000
check_eq "repeat 1: first path gets half" 500 "$DA"
check_eq "repeat 1: second path gets half" 500 "$DB"
dm_remove mprr

# repeat_count 16: runs of 16.
check "create rr map, 2 paths, repeat_count 16" \
	dm_create mprr "0 $SECTORS multipath 0 0 1 1 round-robin 0 2 1 $A 16 $B 16"
reads 1600
check_eq "repeat 16: first path gets 800" 800 "$DA"
check_eq "repeat 16: second path gets 800" 800 "$DB"
reads 24
check_eq "repeat 16: 24 more reads: 16 on the first path" 16 "$DA"
check_eq "repeat 16: ... and 8 on the second" 8 "$DB"
dm_remove mprr

# Default repeat_count is 1000.
check "create rr map, 2 paths, default repeat_count" \
	dm_create mprr "0 $SECTORS multipath 0 0 1 1 round-robin 0 2 0 $A $B"
reads 1500
check_eq "default repeat: first 1000 reads on the first path" 1000 "$DA"
check_eq "default repeat: the next 500 on the second" 500 "$DB"
dm_remove mprr

# Three paths, unequal repeat counts: 2, 1, 1.
check "create rr map, 3 paths, repeat 2/1/1" \
	dm_create mprr "0 $SECTORS multipath 0 0 1 1 round-robin 0 3 1 $A 2 $B 1 $C 1"
reads 1200
check_eq "3 paths: repeat 2 path gets half" 600 "$DA"
check_eq "3 paths: second path a quarter" 300 "$DB"
check_eq "3 paths: third path a quarter" 300 "$DC"

# A failed path gets nothing; the others share.
check "fail_path the first path" dmsetup message mprr 0 fail_path "$A"
reads 600
check_eq "failed path gets no I/O" 0 "$DA"
check_eq "the rest alternate (1)" 300 "$DB"
check_eq "the rest alternate (2)" 300 "$DC"
check "reinstate_path the first path" dmsetup message mprr 0 reinstate_path "$A"
check_eq "repeat_count kept across fail/reinstate" \
	"0 $SECTORS multipath 0 0 1 1 round-robin 0 3 1 $A 2 $B 1 $C 1 " "$(dmsetup table mprr)"
reads 1200
check_eq "reinstated path is used again with repeat 2" 600 "$DA"
check_eq "reinstated: second path a quarter" 300 "$DB"
check_eq "reinstated: third path a quarter" 300 "$DC"
dm_remove mprr
check "modules unload" mp_mods_unload
