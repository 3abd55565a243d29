#!/bin/bash
# Per-path statistics in debugfs: counts match the I/O sent, errors counted.
# /sys/kernel/debug/dm-multipath/<major:minor> has one "key=value" line per
# path (pg, dev, state, fail_count, sent, in_flight, errors,
# mean_latency_us) while the table is live: the counts follow a known number
# of direct I/Os, in_flight is 0 at rest, an offlined path's failed bio is
# an error of that path, and the file goes with suspend/remove and comes
# back with resume.
# timeout: 180
source "${0%/*}/rc"

mp_fixture 2 mps
check "per-bio choices: sequential_stream_kb=0" mp_stream_off || exit 1
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
check "create a 1-PG map, repeat_count 1" dm_create mps \
	"0 $SECTORS multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1"
DEV=$(dmsetup info -c --noheadings -o major,minor --separator : mps)
F=/sys/kernel/debug/dm-multipath/$DEV
check "the map's statistics file exists" test -r "$F"

# field FILE DEV KEY: the value of KEY on DEV's line
field() { sed -n "s/.* dev=$2 .*\<$3=\([^ ]*\).*/\1/p" "$1"; }

check "200 direct 4 KiB reads through the map" \
	dd if=/dev/mapper/mps of=/dev/null bs=4k count=200 iflag=direct status=none
diag "$(cat "$F")"
sa=$(field "$F" "$A" sent) sb=$(field "$F" "$B" sent)
check_eq "sent over both paths adds up to the 200 bios" 200 $((sa + sb))
check_eq "repeat_count 1 alternates: 100 each" "100 100" "$sa $sb"
check_eq "nothing in flight at rest ($A)" 0 "$(field "$F" "$A" in_flight)"
check_eq "no errors yet ($A)" 0 "$(field "$F" "$A" errors)"
check_eq "state active ($A)" active "$(field "$F" "$A" state)"
check_match "a latency estimate in us" "^[0-9]+$" "$(field "$F" "$A" mean_latency_us)"

path_offline "${SD_NAMES[0]}"
check "reads go on with one path offline" \
	dd if=/dev/mapper/mps of=/dev/null bs=4k count=20 iflag=direct status=none
check_eq "the offline path's failure counted as its error" 1 "$(field "$F" "$A" errors)"
check_eq "... and it is failed" "failed 1" "$(field "$F" "$A" state) $(field "$F" "$A" fail_count)"
check_eq "the other path had no error" 0 "$(field "$F" "$B" errors)"
path_running "${SD_NAMES[0]}"
check "reinstate it" dmsetup message mps 0 reinstate_path "$A"
check_eq "active again" active "$(field "$F" "$A" state)"

check "suspend" dmsetup suspend mps
check_fail "no statistics file while suspended" test -e "$F"
check "resume" dmsetup resume mps
check "the file is back after resume" test -r "$F"
check "remove the map" dm_remove mps
check_fail "no statistics file after remove" test -e "$F"
check "modules unload" mp_mods_unload
