#!/bin/bash
# Debug-kernel self-test: the judge flags a planted UBSAN out-of-bounds.
# Debug-kernel self-test: a planted out-of-bounds array index
# (tests/modules-debug) must produce a UBSAN report, and the judge must flag
# it.  This scenario passes only because the judge flags it.
# requires: debug-kernel
# expect-judge: UBSAN: array-index-out-of-bounds in .*mptest_debug\.c
# timeout: 120
source "${0%/*}/rc"

kmsg_mark
dbg_plant ubsan
check_match "UBSAN reported the planted index" \
	'UBSAN: array-index-out-of-bounds in .*mptest_debug\.c' "$(kmsg_since)"
