#!/bin/bash
# A status that does not fit the caller's buffer is flagged, never cut silently.
# dm-ioctl flags a full result buffer (DM_BUFFER_FULL_FLAG, on which
# libdevmapper retries with a larger one) only when the target's string
# fills it to the last byte. For every buffer size from 1 byte to past the
# whole INFO and TABLE status of a map with a hardware handler, queueing
# features and two PGs (tests/lib/dm-status-sweep), each answer is either
# flagged full or the whole string: none is a shorter string passed off as
# complete (the handler section's count or name cut off).
source "${0%/*}/rc"

mp_fixture 2 mpb
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
check "modprobe dm-emc" modprobe dm-emc
on_exit "dm_remove mpb; modprobe -r dm-emc"
check "create map with emc handler words and features" dm_create mpb \
	"0 $SECTORS multipath 3 queue_if_no_path pg_init_retries 5 3 emc 0 1 2 1 round-robin 0 1 1 $A 1 round-robin 0 1 1 $B 1" || exit 1
for kind in info table; do
	out=$("$REPO/tests/lib/dm-status-sweep" mpb "$kind")
	diag "$(echo "$out" | head -1)"
	bad=$(echo "$out" | grep -c ' truncated ')
	[ "$bad" -eq 0 ] || diag "$(echo "$out" | grep ' truncated ' | head -5)"
	check_eq "$kind: no size gives a cut string without the full flag" 0 "$bad"
	check "$kind: a 1-byte buffer is flagged full" grep -qx "1 full" <<<"$out"
	check "$kind: the whole size gives the whole string" grep -q ' complete$' <<<"$(tail -1 <<<"$out")"
done
check_match "dmsetup (libdevmapper) reads the whole TABLE" "multipath 3 queue_if_no_path pg_init_retries 5 3 emc 0 1 2 1 " "$(dmsetup table mpb)"
