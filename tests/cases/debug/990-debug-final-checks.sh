#!/bin/bash
# Debug kernel, end of run: no kmemleak leak and lockdep still live.
# Debug kernel, end of run: a kmemleak scan over everything the earlier
# scenarios did, and lockdep still alive (it switches itself off after its
# first report or when a table overflows, which would have made every later
# scenario unchecked).  Must run after every scenario that loads our
# modules (numbered below 990) and before the self-tests 991-995 (the
# lockdep one switches lockdep off on purpose, and so does any KASAN report).
#
# Any leak fails; records whose backtrace names our modules are called out.
# A leak allocated by a module that has been unloaded since shows a bare
# address instead of a symbol: it is listed as unattributed (it may be
# ours) and fails too.
# requires: debug-kernel
# each-guest: yes
# timeout: 300
source "${0%/*}/rc"

OURS='\[(dm_multipath|dm_round_robin|dm_emc)\]'

if lockdep_live; then
	tap_ok "lockdep still live after the whole run"
else
	tap_fail "lockdep still live after the whole run" \
		"$(grep -E 'debug_locks|lock-classes|direct dependencies|dependency chains' /proc/lockdep_stats)" \
		"an earlier scenario's lockdep report, or a lockdep table overflow, switched it off"
fi

dbg_require "$KMEMLEAK" "kmemleak in debugfs"
kmemleak_scan
sleep 1
kmemleak_scan
recs=$(kmemleak_records)
if [ -z "$recs" ]; then
	tap_ok "kmemleak: no leak after the whole run"
	exit 0
fi

# One record per "unreferenced object" paragraph.
n=0
while IFS= read -r -d $'\x1e' rec; do
	[ -n "${rec//[$'\n' ]/}" ] || continue
	n=$((n + 1))
	head=$(head -n 1 <<<"$rec")
	if grep -qE "$OURS" <<<"$rec"; then
		kind="in OUR module"
	elif grep -qE '\] 0xffffffff[0-9a-f]+$' <<<"$rec"; then
		kind="unattributed (frame in an unloaded module: possibly ours)"
	else
		kind="outside our modules"
	fi
	tap_fail "kmemleak #$n $kind: $head" "$rec"
done < <(awk '/^unreferenced object/ && NR > 1 { printf "\036" } { print } END { printf "\036" }' <<<"$recs")
