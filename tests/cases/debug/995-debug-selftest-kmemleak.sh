#!/bin/bash
# Debug-kernel self-test: kmemleak finds a planted leak, the judge flags it.
# Debug-kernel self-test: a planted leak (tests/modules-debug) must be found
# by a kmemleak scan with its allocation backtrace, and the judge must flag
# the report.  This scenario passes only because the judge flags it.
#
# Real leaks must not hide behind that expectation: the scan before the
# planted leak must come back empty, or this scenario fails on its own.
# Afterwards "clear" retires the reported objects, so a later kmemleak scan
# does not see the planted leak again.
# requires: debug-kernel
# expect-judge: kmemleak: unreferenced object 0x[0-9a-f]+ \(size 128\)
# timeout: 300
source "${0%/*}/rc"

dbg_require "$KMEMLEAK" "kmemleak in debugfs"
kmemleak_scan
before=$(kmemleak_records)
if [ -z "$before" ]; then
	tap_ok "no leak reported before the planted one"
else
	tap_fail "no leak reported before the planted one" "$(head -n 60 <<<"$before")"
fi

dbg_plant leak
# kmemleak only reports objects older than 5 s; scan twice, as its
# documentation advises, to rule out a pointer seen in transit.
sleep 6
kmemleak_scan
kmemleak_scan
after=$(kmemleak_records)
check_match "kmemleak found the planted 128-byte object" \
	'unreferenced object 0x[0-9a-f]+ \(size 128\)' "$after"
check_match "its backtrace names the planting function and module" \
	'mptest_leak\+0x[0-9a-f]+/0x[0-9a-f]+ \[mptest_debug\]' "$after"
check "kmemleak clear" sh -c "echo clear >$KMEMLEAK"
