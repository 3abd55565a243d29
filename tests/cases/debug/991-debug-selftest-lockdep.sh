#!/bin/bash
# Debug-kernel self-test: the judge flags a planted lockdep report.
# Debug-kernel self-test: a planted lock-order inversion (tests/modules-debug)
# must produce a lockdep report, and the judge must flag it.  This scenario
# passes only because the judge flags it.
#
# Lockdep switches itself off after its first report (and after a KASAN
# report), so this runs after every real scenario and 990's lockdep-live
# check, and before the KASAN self-test (992).
# requires: debug-kernel
# expect-judge: possible circular locking dependency
# timeout: 120
source "${0%/*}/rc"

dbg_require /proc/lockdep_stats "lockdep present"
if lockdep_live; then
	tap_ok "lockdep live before the planted inversion"
else
	tap_fail "lockdep live before the planted inversion" \
		"already off: an earlier report or a table overflow; the planted one cannot show"
fi
kmsg_mark
dbg_plant lockdep
check_match "lockdep reported the planted inversion" \
	'possible circular locking dependency detected' "$(kmsg_since)"
check_match "the report names the self-test's locks" \
	'mptest_lock_[ab]' "$(kmsg_since)"
