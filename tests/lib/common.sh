# shellcheck shell=bash
# Shared helpers for the scenarios in tests/cases/FAMILY/. Sourced by each
# family's rc (tests/cases/FAMILY/rc, which each scenario sources first);
# scenarios run as root inside the test guest (see tests/vm/guest-init).
#
# Output is TAP: one "ok - ..." or "not ok - ..." line per assertion; the
# harness counts them, and judges exit status, leftovers and the kernel log.

: "${REPO:?REPO must be set by the harness}"
# Built modules: *.ko at the root, test-only ones under tests/modules*/.
: "${KO_DIR:=$REPO}"
export DM_DISABLE_UDEV=1
MP_MODULES=(dm_emc dm_alua dm_scsi_dh dm_round_robin dm_queue_length dm_service_time
	dm_historical_service_time dm_multipath)

# ---- TAP ----------------------------------------------------------------
tap_ok() { echo "ok - $1"; }
tap_fail() {
	echo "not ok - $1"
	shift
	local l
	for l in "$@"; do echo "#   $l"; done
}
diag() { echo "# $*"; }

check() { # check DESC CMD...
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then tap_ok "$d"; else tap_fail "$d" "command: $*" "${out:0:500}"; return 1; fi
}
check_fail() { # check_fail DESC CMD...: CMD must fail
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then tap_fail "$d" "command unexpectedly succeeded: $*" "${out:0:500}"; return 1; else tap_ok "$d"; fi
}
check_eq() { # check_eq DESC EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then tap_ok "$1"; else tap_fail "$1" "expected: '$2'" "actual:   '$3'"; return 1; fi
}
check_match() { # check_match DESC REGEX STRING
	if [[ $3 =~ $2 ]]; then tap_ok "$1"; else tap_fail "$1" "regex:  '$2'" "string: '${3:0:500}'"; return 1; fi
}

# cmdline_num NAME: the number N of mptest.NAME=N on the guest's kernel
# command line (how run-suite's GUEST_CMDLINE reaches a scenario), or "".
cmdline_num() { sed -n "s/.*mptest\.$1=\([0-9]*\).*/\1/p" /proc/cmdline; }

# ---- time ---------------------------------------------------------------
# The debug kernel (KASAN, lockdep, kmemleak; make check-debug) runs 5-10x
# slower under TCG, and every fork and exec there costs ~0.3 s: helpers in
# this file use shell builtins where a process is not needed.
debug_kernel() { local r; read -r r </proc/sys/kernel/osrelease; [[ $r == *-debug ]]; }
# per_kernel N DEBUG_N: a repetition count (cases, MiB of verified I/O) for
# this kernel. The debug kernel checks each code path for memory and locking
# bugs the first time it runs; many more rounds of the same paths only cost
# its time budget, so its scenarios run fewer of them.
per_kernel() { if debug_kernel; then echo "$2"; else echo "$1"; fi; }
# Every wait_until bound is stretched there, so that a bound sized for the
# distro kernel does not turn slowness into a failure.
WAIT_SCALE=${WAIT_SCALE:-$(per_kernel 1 4)}
# clariion-down (every scenario that uses the emulated array) leaves the
# target modules loaded on the debug kernel, where loading and unloading
# them costs ~9 s per scenario (214 checks the unload on both kernels).
export CLARIION_KEEP_MODULES=${CLARIION_KEEP_MODULES:-$(per_kernel 0 1)}
wait_until() { # wait_until SECONDS CMD...: poll every WAIT_POLL s (0.1)
	local deadline=$((SECONDS + $1 * WAIT_SCALE))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep "${WAIT_POLL:-0.1}"
	done
}

# ---- cleanup ------------------------------------------------------------
_ON_EXIT=()
on_exit() { _ON_EXIT+=("$1"); }
_run_on_exit() {
	local i
	for ((i = ${#_ON_EXIT[@]} - 1; i >= 0; i--)); do
		eval "${_ON_EXIT[i]}" >/dev/null 2>&1 || true
	done
}
trap _run_on_exit EXIT

# ---- kernel log ---------------------------------------------------------
_KMSG_SEQ=0
kmsg_mark() {
	_KMSG_SEQ=$((_KMSG_SEQ + 1))
	echo "mptest-mark $$ $_KMSG_SEQ" >/dev/kmsg
}
# The SCSI midlayer logs a failed command's result and sense under one
# shared ratelimit (DEFAULT_RATELIMIT_INTERVAL 5 s, burst 10): after other
# failing commands, e.g. the partition scan of a passive path, the line a
# scenario looks for can be suppressed. Waiting out one interval first
# guarantees a fresh burst.
kmsg_ratelimit_settle() { sleep 5.2; }
kmsg_since() { # kernel log lines after the last kmsg_mark
	dmesg --notime | sed "0,/mptest-mark $$ $_KMSG_SEQ\$/d"
}
# For a run of refused commands, each to be checked for its log line:
# kmsg_mark, the command, then kmsg_expect DESC REGEX (the line must be logged
# between that mark and the next); kmsg_check_expected then reads the log
# once and checks them all, in order. One dmesg for the whole run instead of
# a dmesg and a sed per command (each exec is slow on the debug kernel).
_KMSG_EXP_SEQ=() _KMSG_EXP_DESC=() _KMSG_EXP_RE=()
kmsg_expect() {
	_KMSG_EXP_SEQ+=("$_KMSG_SEQ")
	_KMSG_EXP_DESC+=("$1")
	_KMSG_EXP_RE+=("$2")
}
kmsg_check_expected() {
	local -A seg=()
	local line seq="" i
	while IFS= read -r line; do
		if [[ $line == *"mptest-mark $$ "* ]]; then
			# The last occurrence counts (a PID of an earlier
			# scenario of this boot may come round again).
			seq=${line##* }
			seg[$seq]=""
		elif [ -n "$seq" ]; then
			seg[$seq]+=$line$'\n'
		fi
	done <<<"$(dmesg --notime)"
	for i in "${!_KMSG_EXP_SEQ[@]}"; do
		check_match "${_KMSG_EXP_DESC[i]}" "${_KMSG_EXP_RE[i]}" \
			"${seg[${_KMSG_EXP_SEQ[i]}]-}"
	done
	_KMSG_EXP_SEQ=() _KMSG_EXP_DESC=() _KMSG_EXP_RE=()
}

# MPATH_RELEASE: the release version every module of ours carries as its
# MODULE_VERSION (dm-mpath-release.h); the distro's modules carry none.
MPATH_RELEASE=$(sed -n 's/^#define DM_MPATH_RELEASE[[:space:]]*"\(.*\)"/\1/p' "$REPO/dm-mpath-release.h")

# MPATH_TARGET_VERSION: the target version the running kernel's own
# dm-multipath announces, and ours with it (the grammar multipath-tools
# picks by it; Documentation/kernels.md): 1.14.0 on 6.1 and 6.12, 1.15.0 on
# the 7.x kernels Debian ships.
case $(uname -r) in
6.*) MPATH_TARGET_VERSION=v1.14.0 ;;
*) MPATH_TARGET_VERSION=v1.15.0 ;;
esac

# ---- scsi_debug paths -----------------------------------------------------
# sdebug_up N [modparam=value ...]: N hosts, one shared store and one WWID,
# i.e. N paths to one LUN. Sets SD_DEVS (/dev/sdX) and SD_NAMES (sdX).
#
# With SDEBUG_HOST_MOD3=1 the first host's number is a multiple of 3, so
# that the first path is active/optimized and the second
# active/non-optimized: scsi_debug reports each host's port in the ALUA
# state host_no % 3 (0 active/optimized, 1 active/non-optimized, 2
# standby; resp_report_tgtpgs), and host numbers only grow, so otherwise
# the states depend on how many hosts the scenarios before made (651 met
# a standby second path in CI's 7.3 set once 116 and 117 were added, and
# its failover failed, as it must on such an array).  Throwaway hosts are
# added and removed until the next number fits.
sdebug_up() {
	local n=$1 h d
	shift
	if [ "${SDEBUG_HOST_MOD3:-0}" = 1 ]; then
		_sdebug_up_mod3 "$n" "$@" || return 1
	else
		modprobe scsi_debug add_host="$n" vpd_use_hostno=0 dev_size_mb=64 "$@" || return 1
	fi
	_sdebug_names() {
		local d
		for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
			[ -e "$d" ] && basename "$d"
		done
	}
	wait_until 30 eval '[ "$(_sdebug_names | wc -l)" -ge "$n" ]' || return 1
	SD_NAMES=()
	SD_DEVS=()
	for h in /sys/bus/pseudo/drivers/scsi_debug/adapter*; do
		for d in "$h"/host*/target*/*/block/*; do
			[ -e "$d" ] || continue
			SD_NAMES+=("$(basename "$d")")
			SD_DEVS+=("/dev/$(basename "$d")")
		done
	done
	for d in "${SD_DEVS[@]}"; do
		wait_until 10 test -b "$d" || return 1
	done
}
# _sdebug_up_mod3 N [modparam ...]: sdebug_up's SDEBUG_HOST_MOD3 start.
_sdebug_up_mod3() {
	local n=$1 h i ctl=/sys/bus/pseudo/drivers/scsi_debug/add_host
	shift
	modprobe scsi_debug add_host=0 vpd_use_hostno=0 dev_size_mb=64 "$@" || return 1
	for i in 1 2 3; do
		echo 1 >"$ctl" || return 1
		h=$(_sdebug_last_host_no)
		[ -n "$h" ] || return 1
		[ $((h % 3)) = 0 ] && break
		echo -1 >"$ctl" || return 1
	done
	[ $((h % 3)) = 0 ] || return 1
	for ((i = 1; i < n; i++)); do echo 1 >"$ctl" || return 1; done
}
# _sdebug_last_host_no: the highest host number scsi_debug has now
_sdebug_last_host_no() {
	local d
	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*; do
		[ -e "$d" ] && echo "${d##*/host}"
	done | sort -n | tail -n 1
}
# mod_unload_retry MODULE: unload it, retrying for up to 10 s while its
# devices are still being released (udev, a closing opener).
mod_unload_retry() {
	local i
	for i in $(seq 50); do
		[ -d "/sys/module/$1" ] || return 0
		modprobe -r "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
sdebug_down() { mod_unload_retry scsi_debug; }

devnum() { # devnum /dev/sdX -> MAJ:MIN
	local s maj min
	s=$(stat -L -c '%t %T' "$1") || return 1
	read -r maj min <<<"$s"
	echo "$((16#$maj)):$((16#$min))"
}

path_offline() { echo offline >"/sys/block/$1/device/state"; }
path_running() { echo running >"/sys/block/$1/device/state"; }
path_delete() { echo 1 >"/sys/block/$1/device/delete"; }
scsi_rescan_all() {
	local h
	for h in /sys/class/scsi_host/host*/scan; do echo "- - -" >"$h"; done
}
# Completed reads / writes of a block device (fields 1 and 5 of its stat).
path_reads() { local f; read -ra f <"/sys/block/$1/stat" && echo "${f[0]}"; }
path_writes() { local f; read -ra f <"/sys/block/$1/stat" && echo "${f[4]}"; }

# ---- the running kernel's own device-mapper modules (the oracles) ---------
# distro_ko NAME: the path of the running kernel's own drivers/md module
# NAME (dm-multipath, dm-round-robin, ...): .ko in 6.1's packages, .ko.xz
# in 6.12's and 7.x's (kmod's insmod reads both). Fails, printing the .ko
# path, if the kernel has no such module.
distro_ko() {
	local d f
	d=/lib/modules/$(uname -r)/kernel/drivers/md
	for f in "$d/$1.ko" "$d/$1.ko.xz" "$d/$1.ko.zst"; do
		[ -e "$f" ] && { echo "$f"; return 0; }
	done
	echo "$d/$1.ko"
	return 1
}
# distro_insmod NAME...: load those of the kernel's own modules, by path
# (ours, which have the same names, must be unloaded first).
distro_insmod() {
	local m f
	for m in "$@"; do
		f=$(distro_ko "$m") || { echo "distro_insmod: the kernel has no $m" >&2; return 1; }
		insmod "$f" || return 1
	done
}

# ---- our modules and maps -----------------------------------------------
mp_mods_load() { modprobe dm-multipath && modprobe dm-round-robin; }
# mp_stream_off: our maps choose a path for every bio, sequential or not
# (module parameter sequential_stream_kb=0; dm-mpath-stream.c), until the
# module is unloaded: for scenarios that count a selector's per-bio choices
# with sequential I/O (dd, fio --rw=read), which a stint would keep on one
# path. 156 tests the stints themselves.
mp_stream_off() {
	modprobe dm-multipath &&
		echo 0 >/sys/module/dm_multipath/parameters/sequential_stream_kb
}
mp_mods_unload() {
	local m
	for m in "${MP_MODULES[@]}"; do
		if [ -d "/sys/module/$m" ]; then
			modprobe -r "$m" || return 1
		fi
	done
}

# mp_fixture N [MAP ...] [-- SCSI_DEBUG_PARAM ...]: the start most
# scenarios share: N scsi_debug paths to one LUN (sdebug_up) and our
# modules loaded; on exit the MAPs are removed, the paths set running again
# (a scenario may have offlined them), scsi_debug and our modules unloaded.
# Sets SD_DEVS and SD_NAMES (sdebug_up), DEVNUMS (each path's MAJ:MIN, in
# SD_DEVS order) and SECTORS (the LUN's size).  A scenario's own clean-up
# that must come first (stop its I/O, resume a map) is registered after.
# Ends the scenario, with a failed point, if any of that cannot be set up.
mp_fixture() {
	local n=$1 maps=() d
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		maps+=("$1")
		shift
	done
	[ $# -eq 0 ] || shift
	on_exit "mp_fixture_down ${maps[*]}"
	sdebug_up "$n" "$@" || { tap_fail "scsi_debug with $n paths${*:+ ($*)}"; exit 1; }
	check "modules load" mp_mods_load || exit 1
	DEVNUMS=()
	for d in "${SD_DEVS[@]}"; do DEVNUMS+=("$(devnum "$d")"); done
	SECTORS=$(blockdev --getsz "${SD_DEVS[0]}")
}
mp_fixture_down() { # mp_fixture_down MAP...: mp_fixture's clean-up
	local m
	for m in "$@"; do dm_remove "$m"; done
	for m in "${SD_NAMES[@]}"; do path_running "$m"; done
	sdebug_down
	mp_mods_unload
}

dm_create() { dmsetup create "$1" --table "$2" && dmsetup mknodes "$1" >/dev/null 2>&1; }
dm_reload() { dmsetup reload "$1" --table "$2"; }
dm_remove() {
	local i
	for i in $(seq 20); do
		dmsetup info "$1" >/dev/null 2>&1 || return 0
		dmsetup remove "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	dmsetup remove --force "$1"
}

# table_pgs MAP: the map's priority groups from its table, one line each:
# "PG DEV DEV..." (PG 1-based, paths as MAJ:MIN in table order), past the
# features, the handler's words and each selector's and path's arguments.
table_pgs() {
	local f i n pg np npa line
	read -ra f <<<"$(dmsetup table "$1")" || return 1
	_table_pgs_index f i
	n=${f[i]}
	i=$((i + 2))			# #PGs, initial PG
	for ((pg = 1; pg <= n; pg++)); do
		i=$((i + 2 + f[i + 1]))	# selector name and args
		np=${f[i]} npa=${f[i + 1]}
		i=$((i + 2))
		line=$pg
		for ((; np > 0; np--)); do
			line+=" ${f[i]}"
			i=$((i + 1 + npa))
		done
		echo "$line"
	done
}

# table_pg_in_use MAP: the PG a reload of MAP's table starts in (TABLE's
# <initial PG>: the PG in use, or a pending switch_group's).
table_pg_in_use() {
	local f i
	read -ra f <<<"$(dmsetup table "$1")" || return 1
	_table_pgs_index f i
	echo "${f[i + 1]}"
}
# _table_pgs_index WORDS INDEX: set INDEX to where <#PGs> stands in the
# array WORDS (a TABLE or an INFO status split into words: both start
# "<start> <len> multipath", the features and the handler's words, each
# counted). Namerefs: no subshell per call.
_table_pgs_index() {
	local -n _words=$1 _at=$2
	_at=$((4 + _words[3]))			# past the features
	_at=$((_at + 1 + _words[_at]))		# past the hardware handler
}

# ---- I/O held by a map ------------------------------------------------------
# queue_size MAP: bios MAP holds for want of a path (INFO status field 5).
queue_size() { local f; read -ra f <<<"$(dmsetup status "$1")" && echo "${f[4]}"; }
queue_size_is() { [ "$(queue_size "$1")" = "$2" ]; }
# path_fields MAP DEV: set PATH_STATE (A or F) and PATH_FAILS (its fail
# count) of DEV (MAJ:MIN) from MAP's status; false if DEV is not in it.
# Read in the shell: an awk per call is one more slow exec on the debug kernel.
path_fields() {
	local f i
	read -ra f <<<"$(dmsetup status "$1")" || return 1
	# Past the features (a path on probation is named there) and the
	# handler's words (alua reports per-path words with the device in them).
	_table_pgs_index f i
	for (( ; i < ${#f[@]} - 2; i++)); do
		if [ "${f[i]}" = "$2" ]; then
			# shellcheck disable=SC2034  # PATH_FAILS: read by the scenarios
			PATH_STATE=${f[i + 1]} PATH_FAILS=${f[i + 2]}
			return 0
		fi
	done
	return 1
}
# pg_states MAP: each PG's state letter from MAP's INFO status, in table
# order, space-separated (A in use, E enabled, D bypassed).
pg_states() {
	local f i n pg np out=""
	read -ra f <<<"$(dmsetup status "$1")" || return 1
	_table_pgs_index f i
	n=${f[i]}
	i=$((i + 2))			# #PGs, PG in use
	for ((pg = 1; pg <= n; pg++)); do
		out+="${out:+ }${f[i]}"
		i=$((i + 2 + f[i + 1]))	# state, selector words
		np=${f[i]}
		i=$((i + 2 + np * (3 + f[i + 1])))
	done
	echo "$out"
}
# path_state MAP DEV: A or F
path_state() { path_fields "$1" "$2" && echo "$PATH_STATE"; }
# check_table_roundtrip WHAT CTOR-ARGS EXPECTED-TABLE-ARGS: a map of
# SECTORS sectors built from CTOR-ARGS loads, prints back EXPECTED-TABLE-ARGS
# as its TABLE, and that TABLE text loads as a second map printing the same.
# Uses (and removes) maps mpt1 and mpt2.
check_table_roundtrip() {
	local what=$1 args=$2 want=$3 t1
	if ! dm_create mpt1 "0 $SECTORS multipath $args"; then
		tap_fail "valid table loads: $what" "$(dmesg | tail -n 3)"
		return
	fi
	t1=$(dmsetup table mpt1)
	check_eq "TABLE of '$what'" "0 $SECTORS multipath $want" "$t1"
	if dm_create mpt2 "$t1"; then
		check_eq "'$what': the TABLE text loads to the same TABLE" "$t1" "$(dmsetup table mpt2)"
	else
		tap_fail "'$what': TABLE text loads as a new map" "$t1"
	fi
	dm_remove mpt2
	dm_remove mpt1
}
# fio_start_verified DEV MIB LOOPS BACKLOG JSON: in the background
# (FIO_PID), LOOPS passes of 4 KiB random writes over MIB MiB of DEV at
# queue depth 8, each block read back and checked (crc32c) at most BACKLOG
# writes later; the JSON report goes to JSON.
fio_start_verified() {
	FIO_JSON=$5 FIO_WANT=$(($2 * $3 * 1048576))
	fio --name=verified --filename="$1" --direct=1 --ioengine=libaio \
		--iodepth=8 --bs=4k --rw=randwrite --size="$2M" --verify=crc32c \
		--verify_backlog="$4" --verify_fatal=1 --loops="$3" \
		--output-format=json --output="$FIO_JSON" &
	FIO_PID=$!
}
# fio_check_clean RC: the job behind FIO_JSON exited RC = 0, with no job
# error and no I/O error.
fio_check_clean() {
	check_eq "fio exit status" 0 "$1"
	check_eq "fio job error" 0 "$(jq '.jobs[0].error' "$FIO_JSON")"
	check_eq "fio total_err" 0 "$(jq '.jobs[0].total_err // 0' "$FIO_JSON")"
}
# fio_wait_verified: wait for fio_start_verified's job: it exits 0 with no
# job error and no I/O error, and both wrote and read back (verified)
# everything.
fio_wait_verified() {
	local rc w r
	wait "$FIO_PID"
	rc=$?
	FIO_PID=
	fio_check_clean "$rc"
	w=$(jq '.jobs[0].write.io_bytes' "$FIO_JSON") r=$(jq '.jobs[0].read.io_bytes' "$FIO_JSON")
	diag "fio wrote $w bytes, read back and verified $r bytes"
	check_eq "fio wrote everything" "$FIO_WANT" "$w"
	check_eq "fio read back and verified everything" "$FIO_WANT" "$r"
}
# fio_start_until_stopped DEV BS MIB JSON: in the background (FIO_PID),
# random writes of BS over MIB MiB of DEV at queue depth 8, each block read
# back and checked (crc32c) at most 64 writes later, until
# fio_stop_verified; the JSON report goes to JSON.  For a failover under
# fio: a job of a fixed size can end before the failure it is to see (252
# on 7.3: fio's last reads went through A1 before A1 failed; nothing
# failed over).  A trigger file stops it; the runtime only bounds a
# scenario gone wrong.
fio_start_until_stopped() {
	FIO_JSON=$4 FIO_TRIGGER=$4.stop
	rm -f "$FIO_TRIGGER"
	fio --name=until-stopped --filename="$1" --direct=1 --ioengine=libaio \
		--iodepth=8 --bs="$2" --rw=randwrite --size="$3M" --verify=crc32c \
		--verify_backlog=64 --verify_fatal=1 --time_based --runtime=300 \
		--trigger-file="$FIO_TRIGGER" --output-format=json --output="$FIO_JSON" &
	FIO_PID=$!
	# a scenario that exits early leaves no fio behind
	on_exit '[ -z "$FIO_PID" ] || { kill -9 "$FIO_PID"; wait "$FIO_PID"; }'
}
# fio_stop_verified: fio_start_until_stopped's job was still running (all
# that the scenario did came under it); stop it: it exits 0 with no job
# error and no I/O error, having written and verified data.
fio_stop_verified() {
	local rc w r
	check "fio was still running" kill -0 "$FIO_PID"
	touch "$FIO_TRIGGER"
	check "fio stops at the trigger" wait_until 60 eval "! kill -0 $FIO_PID"
	kill -9 "$FIO_PID" 2>/dev/null
	wait "$FIO_PID"
	rc=$?
	FIO_PID=
	rm -f "$FIO_TRIGGER"
	fio_check_clean "$rc"
	w=$(jq '.jobs[0].write.io_bytes' "$FIO_JSON" 2>&1) r=$(jq '.jobs[0].read.io_bytes' "$FIO_JSON" 2>&1)
	diag "fio wrote $w bytes, read back and verified $r bytes"
	check_match "fio wrote and verified data" "^[1-9][0-9]* [1-9][0-9]*$" "$w $r"
}
# region_md5 DEV MIB: the md5 of DEV's first MIB MiB, read direct; fails
# as dd does, so that a failed read's (empty) md5 is not compared as data.
region_md5() {
	dd if="$1" bs=1M count="$2" iflag=direct status=none | md5sum
	return "${PIPESTATUS[0]}"
}
# writers_pattern: WPAT, a fresh file of 1 MiB of random data (what writers
# write), removed on exit.
writers_pattern() {
	WPAT=/tmp/pattern.$$
	head -c 1M /dev/urandom >"$WPAT"
	on_exit "rm -f '$WPAT'"
}
# writers_area_zero MAP: zero the MiB that writers writes.
writers_area_zero() { dd if=/dev/zero of="/dev/mapper/$1" bs=64k count=16 oflag=direct status=none; }
# writers_area_is_wpat MAP: that MiB reads back (O_DIRECT) as WPAT.
writers_area_is_wpat() {
	dd if="/dev/mapper/$1" bs=64k count=16 iflag=direct status=none | cmp - "$WPAT"
}
# writers MAP PATTERN: 4 concurrent writers of 256 KiB each (64 KiB direct
# writes) of PATTERN to MAP at the same offsets, so that 4 bios are
# outstanding at once; their PIDs in WPIDS.
writers() {
	local i
	WPIDS=()
	for i in 0 1 2 3; do
		dd if="$2" of="/dev/mapper/$1" bs=64k skip=$((i * 4)) seek=$((i * 4)) count=4 \
			oflag=direct conv=notrunc status=none 2>"/tmp/dd.$i.err" &
		WPIDS+=($!)
	done
}
writers_all_done() { local p; for p in "${WPIDS[@]}"; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }
writers_none_done() { local p; for p in "${WPIDS[@]}"; do kill -0 "$p" 2>/dev/null || return 1; done; return 0; }
# writers_exits: their exit statuses, "0 0 0 0 " when all succeeded.
writers_exits() { local p s=""; for p in "${WPIDS[@]}"; do wait "$p"; s+="$? "; done; echo "$s"; }

# ---- the kernel's own SCSI device handlers ------------------------------
# guest-init blocks scsi_dh_emc/alua/rdac/hp_sw (an "install NAME /bin/false"
# line each in /etc/modprobe.d/mptest.conf). A stock Debian system does not:
# an initramfs may load them before the disks are scanned, and then they
# attach and filter I/O. A scenario that runs "the stock way" lets one load
# (before its disks appear, so that it attaches at scan) and blocks it again
# on exit.
SCSI_DH_CONF=/etc/modprobe.d/mptest.conf
scsi_dh_allow() { # scsi_dh_allow scsi_dh_emc: unblock and load it
	sed -i "/^install $1 /d" "$SCSI_DH_CONF" && modprobe "$1"
}
scsi_dh_block() { # scsi_dh_block scsi_dh_emc: unload (once unused) and block
	mod_unload_retry "$1"
	grep -q "^install $1 " "$SCSI_DH_CONF" ||
		echo "install $1 /bin/false" >>"$SCSI_DH_CONF"
	[ ! -d "/sys/module/$1" ]
}
