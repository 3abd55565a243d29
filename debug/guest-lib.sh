# shellcheck shell=bash
# Helpers for the debug-kernel scenarios (tests/cases/faults/400-*.sh,
# tests/cases/debug/99N-*.sh), sourced after tests/lib/common.sh inside the
# guest.  A knob that is missing is a failure, never a skip: these
# scenarios only run on the debug kernel ("# requires: debug-kernel"), where
# everything below must exist.

DBG_KO=${KO_DIR:-$REPO}/tests/modules-debug/mptest_debug.ko
KMEMLEAK=/sys/kernel/debug/kmemleak

# dbg_require PATH DESC: fail the scenario at once if PATH does not exist.
dbg_require() {
	if [ -e "$1" ]; then
		tap_ok "$2 ($1)"
	else
		tap_fail "$2 ($1)" "missing: not the debug kernel, or its config lost an option (debug/kernel.config)"
		exit 1
	fi
}

# dbg_plant BUG: load the self-test module with one planted bug and unload
# it again.  The bug is committed by the module's init.
dbg_plant() {
	dbg_require "$DBG_KO" "self-test module built against this kernel"
	check "insmod mptest_debug bug=$1" insmod "$DBG_KO" "bug=$1" || exit 1
	on_exit "rmmod mptest_debug"
}

# lockdep_live: lockdep has not switched itself off (it does after its
# first report, or when a table overflows).
lockdep_live() {
	grep -Eq '^ *debug_locks: +1$' /proc/lockdep_stats
}

# kmemleak_scan: one synchronous scan, leak records also printed to the
# kernel log (so the judge and console.log see the backtraces).
kmemleak_scan() {
	echo 1 >/sys/module/kmemleak/parameters/verbose
	echo scan >"$KMEMLEAK"
}

# kmemleak_records: the currently reported leaks, one record per blank-line
# separated paragraph (the debugfs file's own format).
kmemleak_records() {
	cat "$KMEMLEAK"
}
