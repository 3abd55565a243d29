#!/bin/bash
# Debug-kernel self-test: the judge flags a planted ODEBUG free-active.
# Debug-kernel self-test: freeing memory that holds an armed timer
# (tests/modules-debug) must produce a DEBUG_OBJECTS report, and the judge
# must flag it.  This scenario passes only because the judge flags it.
# (debugobjects prints at most 5 such warnings per boot: this uses one.)
# requires: debug-kernel
# expect-judge: ODEBUG: free active .*timer_list hint: mptest_timer_fn
# timeout: 120
source "${0%/*}/rc"

kmsg_mark
dbg_plant odebug
check_match "DEBUG_OBJECTS reported the freed active timer" \
	'ODEBUG: free active .*timer_list hint: mptest_timer_fn' "$(kmsg_since)"
