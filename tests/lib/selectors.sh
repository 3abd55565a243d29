# shellcheck shell=bash
# Helpers for the path-selector scenarios (tests/cases/selectors/), sourced
# after common.sh. Their paths are dm devices stacked on scsi_debug paths to
# one LUN (shared data), so that one path can be slowed down or made to hold
# its I/O (dm-delay): a selector's choices then show in its INFO words and in
# each path's own counters.

# ps_stack SPEC...: a dm device ps<i> over SD_DEVS[i] per SPEC: "linear",
# "delay:MS" (every I/O held MS ms) or "hold" (every I/O held until
# ps_release, or 90 s, 360 s on the debug kernel: so that a scenario killed
# with held I/O does not wedge the guest's clean-up, as a suspended device
# would; on a loaded debug guest 152's four held steps outlasted 90 s, and
# the first held reads completed on their own). Sets PS_NUMS (their MAJ:MIN).
PS_HOLD_MS=$(per_kernel 90000 360000)
# ps_fixture MAP: the start 151-153 share: two scsi_debug paths to one LUN
# (S: its size in sectors) and, on exit, MAP removed first (a held read
# would keep it open), then the stacked paths, scsi_debug and our modules.
ps_fixture() {
	on_exit "ps_release_all; dm_remove $1; ps_unstack; sdebug_down; mp_mods_unload"
	sdebug_up 2 delay=0 || { tap_fail "scsi_debug with 2 paths"; exit 1; }
	check "selectors' per-bio choices: sequential_stream_kb=0" mp_stream_off || exit 1
	S=$(blockdev --getsz "${SD_DEVS[0]}")
}
# ps_info_both MAP: the first INFO word of P0 and of P1 in MAP ("w0 w1"):
# in flight (queue-length, historical-service-time) or bytes in flight
# (service-time).
ps_info_both() { echo "$(ps_words "$1" "$P0" 1) $(ps_words "$1" "$P1" 1)"; }
# sum_of "A B": A + B
sum_of() { local n; read -ra n <<<"$1" && echo $((n[0] + n[1])); }
ps_table() { # ps_table I SPEC: the table of ps<I>
	local dev=${SD_DEVS[$1]} sz
	sz=$(blockdev --getsz "$dev") || return 1
	case $2 in
	linear) echo "0 $sz linear $dev 0" ;;
	hold) echo "0 $sz delay $dev 0 $PS_HOLD_MS" ;;
	delay:*) echo "0 $sz delay $dev 0 ${2#delay:}" ;;
	*) return 1 ;;
	esac
}
ps_stack() {
	local i=0 spec t
	PS_NUMS=()
	for spec in "$@"; do
		t=$(ps_table $i "$spec") || return 1
		dm_create "ps$i" "$t" || return 1
		PS_NUMS+=("$(dmsetup info -c --noheadings -o major,minor --separator : "ps$i")")
		i=$((i + 1))
	done
}
# ps_set SPEC I...: give ps<I> a new table (SPEC as for ps_stack). The
# switch suspends the device, and dm-delay sends what it holds on at once:
# "linear" releases held I/O, "hold" holds again from then on.
ps_set() {
	local spec=$1 i
	shift
	for i in "$@"; do
		dmsetup reload "ps$i" --table "$(ps_table "$i" "$spec")" &&
			dmsetup resume "ps$i" || return 1
	done
}
ps_hold() { ps_set hold "$@"; }
ps_release() { ps_set linear "$@"; }
# check_stack DESC SPEC...: ps_stack as a test point, in this shell (it sets
# PS_NUMS); the scenario ends if the paths cannot be set up.
check_stack() {
	local d=$1
	shift
	if ps_stack "$@"; then
		tap_ok "$d"
	else
		tap_fail "$d" "$(dmesg | tail -n 3)"
		exit 1
	fi
}
# ps_release_all: every ps<i> there is lets its held I/O go.
ps_release_all() {
	local i
	for i in 0 1 2 3; do
		dmsetup info "ps$i" >/dev/null 2>&1 && ps_release "$i" >/dev/null 2>&1
	done
	return 0
}
# ps_unstack: release what they hold, remove them (the map on top first).
ps_unstack() {
	local i
	ps_release_all
	for i in 0 1 2 3; do
		dmsetup info "ps$i" >/dev/null 2>&1 && dm_remove "ps$i"
	done
	return 0
}

# Completed reads / writes of a block device given as MAJ:MIN.
dev_reads() { local f; read -ra f <"/sys/dev/block/$1/stat" && echo "${f[0]}"; }
dev_writes() { local f; read -ra f <"/sys/dev/block/$1/stat" && echo "${f[4]}"; }

# ps_words MAP DEV N: the N selector words of path DEV in MAP's INFO status.
# Past the features and the handler's words, as path_fields: a path on
# probation is also named in the feature section (its probation words).
ps_words() {
	local f i
	read -ra f <<<"$(dmsetup status "$1")" || return 1
	_table_pgs_index f i
	for (( ; i < ${#f[@]} - 2; i++)); do
		if [ "${f[i]}" = "$2" ]; then
			echo "${f[*]:i+3:$3}"
			return 0
		fi
	done
	return 1
}
ps_words_are() { [ "$(ps_words "$1" "$2" "$3")" = "$4" ]; }

# held_ios MAP N BYTES: N direct reads of BYTES through MAP, all submitted
# by one process in the background (fio, queue depth N): each is mapped,
# and counted in flight by the selector, before the next one is, so with
# paths that hold their I/O the choices follow in a known order. Its PID
# joins RPIDS.
RPIDS=()
held_ios() {
	fio --name=held --filename="/dev/mapper/$1" --rw=read --bs="$3" \
		--size=$(($2 * $3)) --offset=$(((RANDOM % 128) * 131072)) \
		--direct=1 --ioengine=libaio --iodepth="$2" --invalidate=0 \
		--output=/dev/null &
	RPIDS+=($!)
}
# readers_wait: wait for the held readers; READERS_RC is their exit
# statuses ("0 0 ... "). In this shell, not in $(...): they are its children.
readers_wait() {
	local p
	READERS_RC=""
	for p in "${RPIDS[@]}"; do wait "$p"; READERS_RC+="$? "; done
	RPIDS=()
}
# fio_load MAP SECONDS IODEPTH [RW]: random 4 KiB direct I/O through MAP.
fio_load() {
	fio --name=load --filename="/dev/mapper/$1" --rw="${4:-randread}" --bs=4k \
		--direct=1 --ioengine=libaio --iodepth="$3" --runtime="$2" \
		--time_based --size=32m --output=/dev/null
}

# check_slow_path_shunned MAP SELECTOR: a path slowed by 200 ms beside a fast
# one, under a SELECTOR map with default per-path args, and 3 s of queue
# depth 16 random reads: a load-aware selector gives the slow path an I/O
# only when the fast one is as busy, so the slow path is used but the fast
# one gets at least 4 times as many. Both paths' INFO word (in flight, or
# bytes in flight) is 0 after the load. Stacks and unstacks its own paths;
# P0 and P1 are theirs.
check_slow_path_shunned() {
	local map=$1 sel=$2 r0 r1 d0 d1

	check_stack "a path slowed by 200 ms and a fast one" delay:200 linear
	P0=${PS_NUMS[0]} P1=${PS_NUMS[1]}
	check "$sel map, default per-path args" \
		dm_create "$map" "0 $S multipath 0 0 1 1 $sel 0 2 0 $P0 $P1"
	r0=$(dev_reads "$P0") r1=$(dev_reads "$P1")
	check "3 s of 4 KiB random reads, queue depth 16" fio_load "$map" 3 16
	d0=$(($(dev_reads "$P0") - r0)) d1=$(($(dev_reads "$P1") - r1))
	diag "slow path: $d0 reads, fast path: $d1 reads"
	check "the slow path was used" test "$d0" -ge 1
	check "the fast path got at least 4 times as many" test "$d1" -ge $((4 * d0))
	check_eq "nothing in flight after the load" "0 0" "$(ps_info_both "$map")"
	dm_remove "$map"
	ps_unstack
}
