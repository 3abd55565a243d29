#!/bin/bash
# Debug-kernel self-test: a planted out-of-bounds array index
# (tests/modules-debug) must produce a UBSAN report, and the judge must flag
# it.  This scenario passes only because the judge flags it.
# requires: debug-kernel
# expect-judge: UBSAN: array-index-out-of-bounds in .*mptest_debug\.c
# timeout: 120
source "$REPO/tests/lib/common.sh"
source "$REPO/debug/guest-lib.sh"

kmsg_mark
dbg_plant ubsan
check_match "UBSAN reported the planted index" \
	'UBSAN: array-index-out-of-bounds in .*mptest_debug\.c' "$(kmsg_since)"
