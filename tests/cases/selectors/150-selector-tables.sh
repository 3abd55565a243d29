#!/bin/bash
# Selector table matrix: valid tables round-trip, bad arguments refused by name.
# queue-length, service-time and historical-service-time take the tables
# Linux 6.1's selectors take (defaults filled in, deprecated repeat_counts
# shown as 1 where 6.1 does so); `dmsetup table` text loads back to the same
# table; INFO carries info_args words per path. Each bad selector or path
# argument is refused, through a reload of a live map, with its own message
# (dm's table line and the selector's warning naming the word), and the map
# keeps its table and gets no inactive one.
# timeout: 420
# cross-kernel: yes
source "${0%/*}/rc"

mp_fixture 3 mpt1 mpt2 mpsel
A=${DEVNUMS[0]} B=${DEVNUMS[1]} C=${DEVNUMS[2]} S=$SECTORS

check_table_roundtrip "queue-length, repeat 1" \
	"0 0 1 1 queue-length 0 2 1 $A 1 $B 1" \
	"0 0 1 1 queue-length 0 2 1 $A 1 $B 1 "
check_table_roundtrip "queue-length, defaults" \
	"0 0 1 1 queue-length 0 2 0 $A $B" \
	"0 0 1 1 queue-length 0 2 1 $A 1 $B 1 "
check_table_roundtrip "queue-length, repeat_count 0 kept" \
	"0 0 1 1 queue-length 0 1 1 $A 0" \
	"0 0 1 1 queue-length 0 1 1 $A 0 "
kmsg_mark
check_table_roundtrip "queue-length, deprecated repeat_count 100 shown as 1" \
	"0 0 1 1 queue-length 0 1 1 $A 100" \
	"0 0 1 1 queue-length 0 1 1 $A 1 "
kmsg_expect "queue-length: repeat_count 100 warned about" \
	"queue-length: repeat_count 100 is deprecated, using 1"
check_table_roundtrip "service-time 0 as multipath-tools writes it" \
	"0 0 1 1 service-time 0 2 1 $A 1 $B 1" \
	"0 0 1 1 service-time 0 2 2 $A 1 1 $B 1 1 "
check_table_roundtrip "service-time, defaults" \
	"0 0 1 1 service-time 0 2 0 $A $B" \
	"0 0 1 1 service-time 0 2 2 $A 1 1 $B 1 1 "
check_table_roundtrip "service-time, throughputs 0 and 100" \
	"0 0 1 1 service-time 0 2 2 $A 0 0 $B 1 100" \
	"0 0 1 1 service-time 0 2 2 $A 0 0 $B 1 100 "
kmsg_mark
check_table_roundtrip "service-time, deprecated repeat_count 7 shown as 1" \
	"0 0 1 1 service-time 0 1 2 $A 7 5" \
	"0 0 1 1 service-time 0 1 2 $A 1 5 "
kmsg_expect "service-time: repeat_count 7 warned about" \
	"service-time: repeat_count 7 is deprecated, using 1"
check_table_roundtrip "multipath-tools failover policy, queue_if_no_path" \
	"1 queue_if_no_path 0 2 1 service-time 0 1 1 $A 1 service-time 0 1 1 $B 1" \
	"1 queue_if_no_path 0 2 1 service-time 0 1 2 $A 1 1 service-time 0 1 2 $B 1 1 "
check_table_roundtrip "historical-service-time, defaults" \
	"0 0 1 1 historical-service-time 0 2 0 $A $B" \
	"0 0 1 1 historical-service-time 2 972 0 2 1 $A 1 $B 1 "
check_table_roundtrip "historical-service-time, base_weight only" \
	"0 0 1 1 historical-service-time 1 0 2 1 $A 1 $B 3" \
	"0 0 1 1 historical-service-time 2 0 0 2 1 $A 1 $B 3 "
check_table_roundtrip "historical-service-time, both selector args at their limits" \
	"0 0 1 1 historical-service-time 2 1023 4294967295 1 0 $A" \
	"0 0 1 1 historical-service-time 2 1023 4294967295 1 1 $A 1 "
check_table_roundtrip "three selectors in three PGs" \
	"0 0 3 2 queue-length 0 1 0 $A service-time 0 1 2 $B 1 50 historical-service-time 0 1 0 $C" \
	"0 0 3 2 queue-length 0 1 1 $A 1 service-time 0 1 2 $B 1 50 historical-service-time 2 972 0 1 1 $C 1 "

# INFO: <#selector words> [words] <#paths> <#info_args> per PG, then per path
# <dev> <A|F> <fail count> and info_args words.
check "one PG per selector" dm_create mpt1 \
	"0 $S multipath 0 0 3 1 queue-length 0 1 0 $A service-time 0 1 2 $B 1 50 historical-service-time 2 900 3 1 0 $C"
st=$(dmsetup status mpt1)
check_match "queue-length INFO: 1 word per path, in flight 0" "[AE] 0 1 1 $A A 0 0 " "$st"
check_match "service-time INFO: 2 words per path, bytes in flight 0 and the throughput" \
	"[AE] 0 1 2 $B A 0 0 50 " "$st"
check_match "historical-service-time INFO: its 2 selector words, 3 per path (avg 1024 = 1 ns unmeasured, 0 in flight, fresh until 0)" \
	"[AE] 2 900 3 1 3 $C A 0 1024 0 0 " "$st"
dm_remove mpt1

# Refused arguments: a reload of a live map must fail and change nothing.
LIVE="0 $S multipath 0 0 1 1 service-time 0 2 2 $A 1 1 $B 1 1 "
check "a live map to reload" dm_create mpsel "$LIVE"
n_bad=0
# bad SELECTOR-AND-PATHS EXPECTED-ERROR BAD-WORD
bad() {
	n_bad=$((n_bad + 1))
	kmsg_mark
	check_fail "bad #$n_bad refused: '$1'" dmsetup reload mpsel --table "0 $S multipath 0 0 1 1 $1"
	kmsg_expect "bad #$n_bad: table error '$2'" "multipath: $2 \(-EINVAL\)"
	kmsg_expect "bad #$n_bad: the selector's warning names '$3'" "multipath: $2: '$3'"
}
bad "queue-length 1 x 1 0 $A" "queue-length: takes no selector arguments" x
bad "queue-length 0 1 2 $A 1 2" "queue-length: too many path arguments \(only <repeat_count>\)" 2
bad "queue-length 0 1 1 $A x" "queue-length: invalid repeat_count" x
bad "queue-length 0 1 1 $A -1" "queue-length: invalid repeat_count" -1
bad "queue-length 0 1 1 $A 4294967296" "queue-length: invalid repeat_count" 4294967296
bad "queue-length 0 1 1 $A 1x" "queue-length: invalid repeat_count" 1x
bad "service-time 1 0 1 0 $A" "service-time: takes no selector arguments" 0
bad "service-time 0 1 3 $A 1 1 1" \
	"service-time: too many path arguments \(only <repeat_count> <relative_throughput>\)" 1
bad "service-time 0 1 2 $A y 1" "service-time: invalid repeat_count" y
bad "service-time 0 1 2 $A 1 101" "service-time: invalid relative_throughput \(0-100\)" 101
bad "service-time 0 1 2 $A 1 -1" "service-time: invalid relative_throughput \(0-100\)" -1
bad "service-time 0 1 2 $A 1 5z" "service-time: invalid relative_throughput \(0-100\)" 5z
bad "historical-service-time 3 1 2 3 1 0 $A" \
	"historical-service-time: too many selector arguments \(only <base_weight> <threshold_multiplier>\)" 3
bad "historical-service-time 1 1024 1 0 $A" "historical-service-time: invalid base_weight \(0-1023\)" 1024
bad "historical-service-time 1 w 1 0 $A" "historical-service-time: invalid base_weight \(0-1023\)" w
bad "historical-service-time 2 972 -1 1 0 $A" "historical-service-time: invalid threshold_multiplier" -1
bad "historical-service-time 2 972 4294967296 1 0 $A" \
	"historical-service-time: invalid threshold_multiplier" 4294967296
bad "historical-service-time 0 1 2 $A 1 1" \
	"historical-service-time: too many path arguments \(only <repeat_count>\)" 1
bad "historical-service-time 0 1 1 $A q" "historical-service-time: invalid repeat_count" q
kmsg_check_expected
check_eq "the live map kept its table" "$LIVE" "$(dmsetup table mpsel)"
check_match "... and has no inactive table" "Tables present: +LIVE"$'\n' "$(dmsetup info mpsel)"
check "I/O through it still works" dd if=/dev/mapper/mpsel of=/dev/null bs=4k count=8 iflag=direct status=none
check_fail "a bad table does not create a map" \
	dmsetup create mpt1 --table "0 $S multipath 0 0 1 1 queue-length 0 1 1 $A x"
check_fail "... none is left" dmsetup info mpt1
dm_remove mpsel
check "modules unload" mp_mods_unload
