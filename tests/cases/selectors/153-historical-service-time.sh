#!/bin/bash
# historical-service-time prefers the faster path; a huge threshold evens it out.
# Paths: one slowed by 100 ms (dm-delay), one fast (linear), both over
# scsi_debug. Reads one at a time and at queue depth 8 go mostly down the
# fast path (at queue depth 8 the slow one is still probed now and then:
# it gets some); the slow path's measured average
# (INFO word 1, ns << 10) ends above the fast one's. Once the slow path's
# layer is linear again it gets its share back (at least a third of the
# other's reads at queue depth 8). With one usable path nothing is
# measured: its average stays as it was until there is a choice again.
# With threshold_multiplier 4294967295 no two averages count as different:
# reads one at a time then alternate exactly, as in-flight counts tie.
# In-flight counts return to 0.
# timeout: 300
source "${0%/*}/rc"

ps_fixture mphst
check_stack "a path slowed by 100 ms and a fast one" delay:100 linear
P0=${PS_NUMS[0]} P1=${PS_NUMS[1]}
# word MAP DEV N: the Nth (1-based) INFO selector word of path DEV
word() { local w; read -ra w <<<"$(ps_words "$1" "$2" 3)" && echo "${w[$3 - 1]}"; }
# spread DESC CMD...: run CMD as a test point, in this shell; D0 and D1 =
# the reads each path completed meanwhile.
spread() {
	local d=$1 r0 r1 out
	shift
	r0=$(dev_reads "$P0") r1=$(dev_reads "$P1")
	if out=$("$@" 2>&1); then tap_ok "$d"; else tap_fail "$d" "${out:0:500}"; fi
	D0=$(($(dev_reads "$P0") - r0)) D1=$(($(dev_reads "$P1") - r1))
	diag "$d: slow path $D0 reads, fast path $D1"
}

check "historical-service-time map, defaults" \
	dm_create mphst "0 $S multipath 0 0 1 1 historical-service-time 0 2 0 $P0 $P1"
spread "300 reads one after the other" \
	dd if=/dev/mapper/mphst of=/dev/null bs=4k count=300 iflag=direct status=none
check "one at a time: the fast path got at least 5 times as many" test "$D1" -ge $((5 * D0))
spread "3 s of 4 KiB random reads, queue depth 8" fio_load mphst 3 8
check "queue depth 8: the slow path was used" test "$D0" -ge 1
check "queue depth 8: the fast path got at least 5 times as many" test "$D1" -ge $((5 * D0))
a0=$(word mphst "$P0" 1) a1=$(word mphst "$P1" 1)
diag "averages (ns << 10): slow $a0, fast $a1"
check "the slow path's measured average is the larger" test "$a0" -gt "$a1"
check "the slow path's average is at least 25 ms (a quarter of its delay)" test "$a0" -ge $((25000000 << 10))
check_eq "nothing in flight" "0 0" "$(word mphst "$P0" 2) $(word mphst "$P1" 2)"
check "both were fresh at some time" test "$(word mphst "$P0" 3)" -gt 0 -a "$(word mphst "$P1" 3)" -gt 0

# The slow path recovers: it was given one probe at a time, each measuring
# its whole delay, and must still get its share back once as quick.
check "the slow path recovers (its layer back to linear)" ps_release 0
spread "3 s of 4 KiB random reads, queue depth 8, after the recovery" fio_load mphst 3 8
check "the recovered path got at least a third as many as the other" test $((3 * D0)) -ge "$D1"

# One usable path: no choice, nothing measured; its average moves again
# once there is a choice.
check "fail_path the recovered path" dmsetup message mphst 0 fail_path "$P0"
a1=$(word mphst "$P1" 1)
spread "200 reads on the sole usable path" \
	dd if=/dev/mapper/mphst of=/dev/null bs=4k count=200 iflag=direct status=none
check_eq "the sole path got them all" "0 200" "$D0 $D1"
check_eq "its average is as before (INFO word 1)" "$a1" "$(word mphst "$P1" 1)"
check "reinstate_path the other" dmsetup message mphst 0 reinstate_path "$P0"
spread "200 reads with two usable paths" \
	dd if=/dev/mapper/mphst of=/dev/null bs=4k count=200 iflag=direct status=none
check "its average moved" test "$(word mphst "$P1" 1)" != "$a1"
dm_remove mphst

check "historical-service-time map, threshold_multiplier 4294967295" \
	dm_create mphst "0 $S multipath 0 0 1 1 historical-service-time 2 972 4294967295 2 0 $P0 $P1"
spread "40 reads one after the other" \
	dd if=/dev/mapper/mphst of=/dev/null bs=4k count=40 iflag=direct status=none
check_eq "no path counts as faster: the slow path gets half" 20 "$D0"
check_eq "... and the fast path half" 20 "$D1"
check_eq "nothing in flight" "0 0" "$(word mphst "$P0" 2) $(word mphst "$P1" 2)"
dm_remove mphst
ps_unstack
check "modules unload" mp_mods_unload
