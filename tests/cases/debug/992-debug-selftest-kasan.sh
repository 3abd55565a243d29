#!/bin/bash
# Debug-kernel self-test: the judge flags a planted KASAN use-after-free.
# Debug-kernel self-test: a planted use-after-free (tests/modules-debug)
# must produce a KASAN report, and the judge must flag it.  This scenario
# passes only because the judge flags it (expect-judge below).
# requires: debug-kernel
# expect-judge: KASAN: use-after-free in mptest_uaf
# timeout: 120
source "${0%/*}/rc"

check_match "kasan_multi_shot on the command line (else one report per boot)" \
	'(^| )kasan_multi_shot( |$)' "$(cat /proc/cmdline)"
kmsg_mark
dbg_plant uaf
check_match "KASAN reported the planted read" \
	'BUG: KASAN: use-after-free in mptest_uaf' "$(kmsg_since)"
