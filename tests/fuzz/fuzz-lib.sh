# shellcheck shell=bash
# Helpers for the fuzz scenarios (tests/cases/fuzz/30x-fuzz-*.sh), on top of
# tests/lib/common.sh. Runs in the guest.

FUZZ_DIR=$REPO/tests/fuzz
FUZZ=$FUZZ_DIR/dm-fuzz

# The host normally builds dm-fuzz (make check / make soak); build it here
# (into the guest's overlay) if it is missing or older than its sources.
fuzz_build() {
	local f stale=0
	[ -x "$FUZZ" ] || stale=1
	for f in "$FUZZ_DIR"/*.c "$FUZZ_DIR"/*.h "$FUZZ_DIR"/Makefile; do
		[ "$f" -nt "$FUZZ" ] && stale=1
	done
	[ $stale = 0 ] || make -s -C "$FUZZ_DIR" dm-fuzz
}

# fuzz_nullb_up N: N memory-backed null_blk devices, each with its own data
# (the fuzzer signs each, so a read shows which path served it). Sets NB_DEVS.
# blocking=1: memory_backed null_blk allocates its pages (GFP_NOIO, may
# sleep) in queue_rq, which a non-blocking queue runs under rcu_read_lock;
# the debug kernel reports that as "sleeping function called from invalid
# context" in null_insert_page. A blocking queue runs queue_rq where it may
# sleep.
fuzz_nullb_up() {
	local n=$1 i
	modprobe null_blk nr_devices="$n" gb=1 memory_backed=1 blocking=1 shared_tags=1 || return 1
	wait_until 120 test -b "/dev/nullb$((n - 1))" || return 1
	NB_DEVS=()
	for ((i = 0; i < n; i++)); do NB_DEVS+=("/dev/nullb$i"); done
}
fuzz_nullb_down() { mod_unload_retry null_blk; }

# fuzz_count KIND DEFAULT: how many cases: FUZZ_TABLES / FUZZ_MESSAGES, or
# mptest.fuzztables= / mptest.fuzzmessages= on the guest command line (make
# soak sets them: many more cases than make check), or DEFAULT.
fuzz_count() {
	local v env=FUZZ_${1^^}
	v=${!env:-$(cmdline_num "fuzz$1")}
	echo "${v:-$2}"
}

# A seed: FUZZ_SEED, or mptest.fuzzseed= on the guest command line, or new.
fuzz_seed() {
	local s
	s=${FUZZ_SEED:-$(cmdline_num fuzzseed)}
	echo "${s:-$(( $(date +%s%N) % 1000000007 ))}"
}

# The field after WORD in dm-fuzz's summary line ("... 5000 cases ...").
fuzz_field() { # fuzz_field SUMMARY WORD
	sed -n "s/.* \([0-9][0-9]*\) $2.*/\1/p" <<<"$1" | head -n1
}

# fuzz_begin MODE NDEVS MAP: the common start of a fuzz scenario: a seed
# (in SEED, with how to replay it), dm-fuzz built, NDEVS signed-to-be
# null_blk devices in NB_DEVS, and cleanup of them, our modules and MAP.
fuzz_begin() {
	SEED=$(fuzz_seed)
	diag "seed $SEED: replay with GUEST_CMDLINE=mptest.fuzzseed=$SEED, one case with" \
		"'dm-fuzz $1 --seed $SEED --only K DEVS' ($2 null_blk devices)"
	check "dm-fuzz builds" fuzz_build || return 1
	fuzz_nullb_up "$2" || { tap_fail "$2 null_blk path devices"; return 1; }
	on_exit fuzz_nullb_down
	on_exit mp_mods_unload
	on_exit "dmsetup remove $3"
	fuzz_no_autoload
}

# fuzz_no_autoload: the kernel's request_module() pointed at nothing until
# the scenario ends. Generated words name absent devices and unknown
# selectors and handlers on purpose, and some of them resolve: "100" in a
# device slot is name_to_dev_t's hex form of 1:0, whose block-major-1 alias
# loads brd, after which /dev/ram0 exists and the table is valid; a later
# scenario then finds brd loaded (nvme-up refuses somebody else's). The
# oracle judges against the scenario's own devices and modules, so nothing
# may be loaded behind its back; and every absent name would cost a
# modprobe run (~1.3 s in this guest). A scenario loads what it uses with
# modprobe (userspace, unaffected), then marks the set (fuzz_modules_mark).
fuzz_no_autoload() {
	local old
	old=$(cat /proc/sys/kernel/modprobe)
	on_exit "echo $old >/proc/sys/kernel/modprobe"
	echo /nonexistent/modprobe >/proc/sys/kernel/modprobe
}
fuzz_modules_mark() { sed 's/ .*//' /proc/modules | sort >/tmp/fuzz.mods.before; }

# fuzz_no_module_loaded: the check that no module was loaded since
# fuzz_modules_mark.
fuzz_no_module_loaded() {
	local new
	new=$(sed 's/ .*//' /proc/modules | sort | comm -13 /tmp/fuzz.mods.before -)
	new=$(echo $new)
	check_eq "no module loaded behind the scenario's back${new:+ ($new)}" "" "$new"
}
