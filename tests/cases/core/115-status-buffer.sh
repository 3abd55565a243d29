#!/bin/bash
# A status that does not fit the caller's buffer is flagged, never cut silently.
# dm-ioctl flags a full result buffer (DM_BUFFER_FULL_FLAG, on which
# libdevmapper retries with a larger one) only when the target's string
# fills it to the last byte. For every buffer size from 1 byte to past the
# whole INFO and TABLE status of a map with a hardware handler, queueing
# features and two PGs (tests/lib/dm-status-sweep), each answer is either
# flagged full or the whole string: none is a shorter string passed off as
# complete (the handler section's count or name cut off).
# timeout: 300
source "${0%/*}/rc"

mp_fixture 2 mpb
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
check "modprobe dm-emc" modprobe dm-emc
on_exit "dm_remove mpb; modprobe -r dm-emc"
# dm-ioctl also flags a buffer too short to align the next entry (8
# bytes), which hides a cut string at some lengths: the feature section's
# length is varied (pg_init_delay_msecs of 1 to 5 digits)
# so that the handler section falls at five places in that alignment.
total=0 bad=0 n=0
for retries in 5; do
	for delay in 1 10 100 1000 10000; do
		t="0 $SECTORS multipath 5 queue_if_no_path pg_init_retries $retries pg_init_delay_msecs $delay 3 emc 0 1 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1"
		dm_create mpb "$t" || { tap_fail "create map: $t"; continue; }
		n=$((n + 1))
		for kind in info table; do
			out=$("$REPO/tests/lib/dm-status-sweep" mpb "$kind")
			total=$((total + $(grep -c '^[0-9]' <<<"$out")))
			cut=$(grep ' truncated ' <<<"$out")
			if [ -n "$cut" ]; then
				bad=$((bad + $(wc -l <<<"$cut")))
				diag "$kind of '$t': $(head -3 <<<"$cut")"
			fi
			check "$kind (delay $delay, retries $retries): a 1-byte buffer is flagged full" grep -qx "1 full" <<<"$out"
			check "$kind (delay $delay, retries $retries): the whole size gives the whole string" \
				grep -q ' complete$' <<<"$(tail -1 <<<"$out")"
		done
		check_match "dmsetup (libdevmapper) reads the whole TABLE" \
			"multipath 5 queue_if_no_path pg_init_retries $retries pg_init_delay_msecs $delay 3 emc 0 1 2 1 " "$(dmsetup table mpb)"
		dm_remove mpb
	done
done
diag "$total buffer sizes tried over $n maps"
check_eq "no buffer size gives a cut string without the full flag" 0 "$bad"
