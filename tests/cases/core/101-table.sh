#!/bin/bash
# Table parsing: valid tables round-trip, malformed ones fail and say why.
# Table matrix: valid tables load and `dmsetup table` round-trips through
# `dmsetup create`; malformed tables fail with -EINVAL and a specific kernel
# log line, leave no map behind, and the modules still unload.
# timeout: 600
source "${0%/*}/rc"

mp_fixture 2 mpt1 mpt2 mpbad

# shown TABLE-FEATURES...: the TABLE expected for these features.  Target
# 1.15.0 (7.x, as the kernel's own) accepts retain_attached_hw_handler but
# no longer shows it (an attached scsi_dh is always kept): one word fewer.
shown() {
	local n=${1%% *} rest=${1#* }
	if [ "$MPATH_TARGET_VERSION" = v1.15.0 ] &&
	   [[ $rest == *"retain_attached_hw_handler "* ]]; then
		echo "$((n - 1)) ${rest/retain_attached_hw_handler /}"
	else
		echo "$1"
	fi
}
A=${DEVNUMS[0]} B=${DEVNUMS[1]}

check_table_roundtrip "1 PG, 2 paths, repeat 16" \
	"0 0 1 1 round-robin 0 2 1 $A 16 $B 16" \
	"0 0 1 1 round-robin 0 2 1 $A 16 $B 16 "
check_table_roundtrip "default repeat_count" \
	"0 0 1 1 round-robin 0 2 0 $A $B" \
	"0 0 1 1 round-robin 0 2 1 $A 1000 $B 1000 "
check_table_roundtrip "queue_if_no_path, 2 PGs, initial PG 2, device names" \
	"1 QUEUE_IF_NO_PATH 0 2 2 round-robin 0 1 1 ${SD_DEVS[0]} 7 round-robin 0 1 0 ${SD_DEVS[1]}" \
	"1 queue_if_no_path 0 2 2 round-robin 0 1 1 $A 7 round-robin 0 1 1 $B 1000 "
check_table_roundtrip "repeat_count 0 (stay until failure)" \
	"0 0 1 1 round-robin 0 1 1 $A 0" \
	"0 0 1 1 round-robin 0 1 1 $A 0 "
check_table_roundtrip "no priority groups (all paths gone)" "0 0 0 0" "0 0 0 0 "
check_table_roundtrip "no priority groups with queue_if_no_path" \
	"1 queue_if_no_path 0 0 0" "1 queue_if_no_path 0 0 0 "
check_table_roundtrip "every Linux 6.1 feature word, and the queueing bound" \
	"8 pg_init_delay_msecs 500 queue_mode BIO pg_init_retries 50 retain_attached_hw_handler queue_if_no_path 0 1 1 round-robin 0 1 0 $A" \
	"$(shown "8 queue_if_no_path pg_init_retries 50 pg_init_delay_msecs 500 retain_attached_hw_handler queue_mode bio 0 1 1 round-robin 0 1 1 $A 1000 ")"
check_table_roundtrip "queue_mode rq: request-based" \
	"2 queue_mode RQ 0 1 1 round-robin 0 1 0 $A" \
	"2 queue_mode rq 0 1 1 round-robin 0 1 1 $A 1000 "
check_table_roundtrip "queue_mode mq, the same mode's older name, shown as rq" \
	"3 queue_if_no_path queue_mode mq 0 1 1 round-robin 0 1 0 $A" \
	"3 queue_if_no_path queue_mode rq 0 1 1 round-robin 0 1 1 $A 1000 "
check_table_roundtrip "queue_mode given twice: the last counts" \
	"4 queue_mode rq queue_mode bio 0 1 1 round-robin 0 1 0 $A" \
	"2 queue_mode bio 0 1 1 round-robin 0 1 1 $A 1000 "
check_table_roundtrip "every feature word at once: 18 words" \
	"18 probation_stall_msecs 2000 queue_if_no_path_timeout_secs 7 pg_init_delay_msecs 500 probation_clean_ios 50 queue_mode bio pg_init_retries 5 probation_window_secs 30 retain_attached_hw_handler probation_fails 5 queue_if_no_path 0 1 1 round-robin 0 1 0 $A" \
	"$(shown "18 queue_if_no_path pg_init_retries 5 pg_init_delay_msecs 500 retain_attached_hw_handler queue_mode bio queue_if_no_path_timeout_secs 7 probation_fails 5 probation_window_secs 30 probation_clean_ios 50 probation_stall_msecs 2000 0 1 1 round-robin 0 1 1 $A 1000 ")"
# 17 words loaded, then the queue_if_no_path message: TABLE shows 18 words,
# and what it shows must load again.
check "create a 17-word map" dmsetup create mp9 --table \
	"0 $SECTORS multipath 17 pg_init_retries 5 pg_init_delay_msecs 500 retain_attached_hw_handler queue_mode bio queue_if_no_path_timeout_secs 7 probation_fails 0 probation_window_secs 1 probation_clean_ios 1000000 probation_stall_msecs 600000 0 1 1 round-robin 0 1 0 $A"
check "queue_if_no_path message" dmsetup message mp9 0 queue_if_no_path
t9=$(dmsetup table mp9)
n18=$(shown "18 retain_attached_hw_handler ")
check_match "its TABLE has ${n18%% *} feature words" "^0 $SECTORS multipath ${n18%% *} queue_if_no_path " "$t9"
check "that TABLE loads as a new map" dmsetup create mp10 --table "$t9"
check_eq "... and prints the same" "$t9" "$(dmsetup table mp10)"
dm_remove mp9
dm_remove mp10
check_table_roundtrip "the queueing bound, and a feature given twice" \
	"4 queue_if_no_path_timeout_secs 30 queue_if_no_path queue_if_no_path 0 1 1 round-robin 0 1 0 $A" \
	"3 queue_if_no_path queue_if_no_path_timeout_secs 30 0 1 1 round-robin 0 1 1 $A 1000 "
# The probation features print only where they differ from the defaults
# (probation_fails 3, probation_window_secs 60, probation_clean_ios 1000,
# probation_stall_msecs 0): multipathd's tables, which name none, print none.
check_table_roundtrip "probation features at their defaults print nothing" \
	"8 probation_fails 3 probation_window_secs 60 probation_clean_ios 1000 probation_stall_msecs 0 0 1 1 round-robin 0 1 0 $A" \
	"0 0 1 1 round-robin 0 1 1 $A 1000 "
check_table_roundtrip "probation off (probation_fails 0), bounds of the others" \
	"6 PROBATION_FAILS 0 probation_window_secs 86400 probation_clean_ios 1 0 1 1 round-robin 0 1 0 $A" \
	"6 probation_fails 0 probation_window_secs 86400 probation_clean_ios 1 0 1 1 round-robin 0 1 1 $A 1000 "
check_table_roundtrip "probation_fails 32 (the most) and a feature given twice" \
	"4 probation_fails 7 probation_fails 32 0 1 1 round-robin 0 1 0 $A" \
	"2 probation_fails 32 0 1 1 round-robin 0 1 1 $A 1000 "
check_table_roundtrip "pg_init_delay_msecs 0 and a bound of 0 (none) are kept" \
	"4 pg_init_delay_msecs 0 queue_if_no_path_timeout_secs 0 0 1 1 round-robin 0 1 0 $A" \
	"4 pg_init_delay_msecs 0 queue_if_no_path_timeout_secs 0 0 1 1 round-robin 0 1 1 $A 1000 "
check_table_roundtrip "emc hardware handler, defaults" \
	"0 1 emc 2 1 round-robin 0 1 0 $A round-robin 0 1 0 $B" \
	"0 1 emc 2 1 round-robin 0 1 1 $A 1000 round-robin 0 1 1 $B 1000 "
check_table_roundtrip "emc hardware handler with arguments" \
	"0 3 emc 0 1 1 1 round-robin 0 2 0 $A $B" \
	"0 3 emc 0 1 1 1 round-robin 0 2 1 $A 1000 $B 1000 "

n_bad=0
# bad CTOR-ARGS EXPECTED-ERROR
bad() {
	local args=$1 msg=$2
	n_bad=$((n_bad + 1))
	kmsg_mark
	check_fail "bad table #$n_bad refused: '$args'" \
		dmsetup create mpbad --table "0 $SECTORS multipath $args"
	kmsg_expect "bad table #$n_bad: kernel says '$msg' (-EINVAL)" \
		"multipath: $msg \(-EINVAL\)"
	check_fail "bad table #$n_bad left no map" dmsetup info mpbad
}

bad "" "missing number of feature arguments"
bad "x 0 1 1 round-robin 0 1 0 $A" "invalid number of feature arguments"
bad "19$(printf ' queue_if_no_path%.0s' {1..19}) 0 1 1 round-robin 0 1 0 $A" \
	"invalid number of feature arguments"
bad "+4294967297 queue_if_no_path 0 1 1 round-robin 0 1 0 $A" "invalid number of feature arguments"
bad "1" "not enough feature arguments"
bad "3 queue_if_no_path pg_init_retries" "not enough feature arguments"
bad "1 no_such_feature 0 1 1 round-robin 0 1 0 $A" "unrecognised feature"
kmsg_expect "the unrecognised feature is named" "unrecognised feature 'no_such_feature'"
bad "1 pg_init_retries 0 1 1 round-robin 0 1 0 $A" "pg_init_retries needs a value"
bad "2 pg_init_retries 0 0 1 1 round-robin 0 1 0 $A" "pg_init_retries must be between 1 and 50"
bad "2 pg_init_retries 51 0 1 1 round-robin 0 1 0 $A" "pg_init_retries must be between 1 and 50"
bad "2 pg_init_retries x 0 1 1 round-robin 0 1 0 $A" "pg_init_retries must be between 1 and 50"
bad "2 pg_init_delay_msecs 60001 0 1 1 round-robin 0 1 0 $A" "pg_init_delay_msecs must be between 0 and 60000"
bad "1 pg_init_delay_msecs 0 1 1 round-robin 0 1 0 $A" "pg_init_delay_msecs needs a value"
bad "2 queue_if_no_path_timeout_secs 86401 0 1 1 round-robin 0 1 0 $A" \
	"queue_if_no_path_timeout_secs must be between 0 and 86400"
bad "2 queue_mode foo 0 1 1 round-robin 0 1 0 $A" "unknown queue_mode"
kmsg_expect "the unknown queue_mode is named" "unknown queue_mode 'foo'"
bad "1 queue_mode 0 1 1 round-robin 0 1 0 $A" "queue_mode needs a value"
bad "2 probation_fails 33 0 1 1 round-robin 0 1 0 $A" "probation_fails must be between 0 and 32"
bad "2 probation_fails -1 0 1 1 round-robin 0 1 0 $A" "probation_fails must be between 0 and 32"
bad "1 probation_fails 0 1 1 round-robin 0 1 0 $A" "probation_fails needs a value"
bad "2 probation_window_secs 0 0 1 1 round-robin 0 1 0 $A" "probation_window_secs must be between 1 and 86400"
bad "2 probation_window_secs 86401 0 1 1 round-robin 0 1 0 $A" "probation_window_secs must be between 1 and 86400"
bad "2 probation_clean_ios 0 0 1 1 round-robin 0 1 0 $A" "probation_clean_ios must be between 1 and 1000000"
bad "2 probation_clean_ios 4294967297 0 1 1 round-robin 0 1 0 $A" "probation_clean_ios must be between 1 and 1000000"
bad "1 probation_clean_ios 0 1 1 round-robin 0 1 0 $A" "probation_clean_ios needs a value"
bad "2 probation_stall_msecs 600001 0 1 1 round-robin 0 1 0 $A" "probation_stall_msecs must be between 0 and 600000"
bad "2 probation_stall_msecs x 0 1 1 round-robin 0 1 0 $A" "probation_stall_msecs must be between 0 and 600000"
bad "0" "missing number of hardware handler arguments"
bad "0 1x 1 1 round-robin 0 1 0 $A" "invalid number of hardware handler arguments"
bad "0 3 emc 0" "not enough hardware handler arguments"
bad "0 1 no_such_handler 1 1 round-robin 0 1 0 $A" "unknown hardware handler type"
kmsg_expect "the unknown handler is named" "unknown hardware handler type 'no_such_handler'"
bad "0 2 emc 5 1 1 round-robin 0 1 0 $A" "emc: expected 0 or 2 arguments .<short_trespass> <honor_reservation>."
bad "0 3 emc 0 2 1 1 round-robin 0 1 0 $A" "emc: invalid honor_reservation: expected 0 or 1"
bad "0 0" "missing number of priority groups"
bad "0 0 1025 1" "invalid number of priority groups"
bad "0 0 1" "missing initial priority group number"
bad "0 0 0 1" "initial priority group must be 0 without priority groups"
bad "0 0 1 0 round-robin 0 1 0 $A" "initial priority group out of range"
bad "0 0 1 2 round-robin 0 1 0 $A" "initial priority group out of range"
bad "0 0 1 +-1 round-robin 0 1 0 $A" "invalid initial priority group number"
# Numbers past 2^32-1 must not wrap into range (4294967297 = 2^32 + 1).
bad "0 0 1 4294967297 round-robin 0 1 0 $A" "invalid initial priority group number"
bad "0 0 4294967297 1 round-robin 0 1 0 $A" "invalid number of priority groups"
bad "0 0 1 1 round-robin 0 4294967297 0 $A" "invalid number of paths"
bad "4294967297 queue_if_no_path 0 1 1 round-robin 0 1 0 $A" "invalid number of feature arguments"
bad "0 0 1 1" "missing priority group"
bad "0 0 2 1 round-robin 0 1 0 $A" "missing priority group"
bad "0 0 1 1 no-such-selector 0 1 0 $A" "unknown path selector type"
kmsg_expect "the unknown selector is named" "unknown path selector type 'no-such-selector'"
bad "0 0 1 1 round-robin" "missing number of path selector arguments"
bad "0 0 1 1 round-robin 1025 1 0 $A" "invalid number of path selector arguments"
bad "0 0 1 1 round-robin 3 1 0" "not enough path selector arguments"
bad "0 0 1 1 round-robin 1 foo 1 0 $A" "round-robin: takes no selector arguments"
bad "0 0 1 1 round-robin 0" "missing number of paths"
bad "0 0 1 1 round-robin 0 0 0" "invalid number of paths"
bad "0 0 1 1 round-robin 0 1" "missing number of path arguments"
bad "0 0 1 1 round-robin 0 1 -1 $A" "invalid number of path arguments"
bad "0 0 1 1 round-robin 0 1 0" "missing path device"
bad "0 0 1 1 round-robin 0 2 1 $A 10" "missing path device"
bad "0 0 1 1 round-robin 0 1 1 $A" "not enough path arguments"
bad "0 0 1 1 round-robin 0 2 1 $A 10 $B" "not enough path arguments"
bad "0 0 1 1 round-robin 0 1 0 /dev/no-such-device" "error getting device"
bad "0 0 1 1 round-robin 0 1 0 4095:1048575" "error getting device"
bad "0 0 1 1 round-robin 0 2 0 $A $A" "duplicate path device"
bad "0 0 1 1 round-robin 0 2 0 $A ${SD_DEVS[0]}" "duplicate path device"
bad "0 0 2 1 round-robin 0 1 0 $A round-robin 0 1 0 $A" "duplicate path device"
bad "0 0 1 1 round-robin 0 1 1 $A 12x" "round-robin: invalid repeat_count"
bad "0 0 1 1 round-robin 0 1 1 $A -5" "round-robin: invalid repeat_count"
bad "0 0 1 1 round-robin 0 1 2 $A 1 2" "round-robin: too many path arguments"
bad "0 0 1 1 round-robin 0 1 0 $A extra" "too many arguments"
bad "0 0 1 1 round-robin 0 1 0 $A 0 0 1 1" "too many arguments"
bad "0 0 0 0 round-robin" "too many arguments"
kmsg_check_expected
check_match "at least 30 malformed tables tried" "^([3-9][0-9]|[1-9][0-9]{2,})$" "$n_bad"

check_eq "no map left over" "No devices found" "$(dmsetup ls 2>&1)"
check "modules unload after the matrix" mp_mods_unload
