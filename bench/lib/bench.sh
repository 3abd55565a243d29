# shellcheck shell=bash
# Guest-side helpers for the benchmark scenarios in bench/cases/. Sourced
# after tests/lib/common.sh; runs as root inside the guest booted by
# bench/run-bench (through tests/vm/run-suite).
#
# Every measured point leaves a record in $BENCH_OUT/points.tsv (one line:
# key=value fields) plus fio's JSON output in $BENCH_OUT/raw/. The host
# (bench/analyze) turns them into the report: nothing is judged here.
#
# Why the measurement window is taken here and not around fio: under
# "-icount ... sleep=off" the guest clock jumps ahead whenever the guest is
# idle, and fio's start-up (dozens of libraries over 9p) is mostly idle
# waiting for the host. CPU and I/O counters sampled around the whole fio
# process would count that. So fio runs longer than needed and the window is
# a stretch of its steady state, sampled without forking anything (bash
# builtins only: reads of /proc and /sys, sleeps on a FIFO).

BENCH_OUT=/results/bench
mkdir -p "$BENCH_OUT/raw"

# Options from the guest kernel command line (set by bench/run-bench).
_bench_arg() { sed -n "s/.*mpbench\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
BENCH_MODE=$(_bench_arg mode)
BENCH_MODE=${BENCH_MODE:-unknown}
BENCH_QUICK=$(_bench_arg quick)
BENCH_QUICK=${BENCH_QUICK:-0}
BENCH_REPS=$(_bench_arg reps)
BENCH_REPS=${BENCH_REPS:-3}
BENCH_ONLY=$(_bench_arg only) # comma-separated impls, empty = all
BENCH_WORKLOADS=$(_bench_arg workloads | tr , ' ')
# bench_param NAME DEFAULT: a scenario's own knob, mpbench.NAME=v1,v2 on the
# kernel command line (run-bench --param NAME=v1,v2), as words.
bench_param() {
	local v
	v=$(_bench_arg "$1" | tr , ' ')
	echo "${v:-$2}"
}
KVER=$(uname -r)
DISTRO_MD=/lib/modules/$KVER/kernel/drivers/md

# ---- quiet kernel console ----------------------------------------------
# Every console line costs a serial write, which is expensive under TCG and
# would land in the middle of a measurement (e.g. "I/O error" lines during
# a failover). The kernel log itself is still recorded by the harness.
_BENCH_PRINTK=$(cat /proc/sys/kernel/printk)
echo "1 4 1 7" >/proc/sys/kernel/printk

# ---- sleeping without forking --------------------------------------------
_BENCH_FIFO=/tmp/bench.fifo.$$
mkfifo "$_BENCH_FIFO"
exec {_BENCH_SLP}<>"$_BENCH_FIFO"
rm -f "$_BENCH_FIFO"
bsleep() { read -r -t "$1" -u "$_BENCH_SLP" _ || true; }

# Progress lines (guest clock), written through to the host at once: when a
# guest hangs, the last one says where.
progress() { echo "$EPOCHREALTIME $*" >>"$BENCH_OUT/progress"; }

# ---- records --------------------------------------------------------------
# record key=value ...: one line of points.tsv (tab-separated pairs).
record() {
	local IFS=$'\t'
	echo "mode=$BENCH_MODE	$*" >>"$BENCH_OUT/points.tsv"
}

# Snapshot of the counters a window needs, as one word-free string:
# time_ns;cpu-line-of-/proc/stat;device-stat;idle_ns
# /proc/stat counts in 10 ms ticks, too coarse for a lightly loaded CPU;
# /proc/timer_list has each CPU's idle time in ns (tick-sched's
# idle_sleeptime + iowait_sleeptime, plus the idle period in progress).
# mapfile reads it in one go; it is parsed after the window (idle_ns).
snapshot() { # snapshot DEVNAME -> sets SNAP, SNAP_TL (raw timer_list)
	local t cpu dev
	t=${EPOCHREALTIME/./}
	read -r cpu </proc/stat
	read -r dev <"/sys/block/$1/stat"
	mapfile -t SNAP_TL </proc/timer_list
	SNAP="${t}000;${cpu// /,};${dev// /,}"
}
# idle_ns: total idle ns of all CPUs in SNAP_TL: the idle periods that
# have ended. timer_list does not say whether a CPU is idle right now
# (idle_entrytime is also rewritten when an idle period ends), so an idle
# period in progress on another CPU is missed: exact with one CPU (the
# reader is running), and bench/analyze uses /proc/stat (which does count
# it, in 10 ms ticks) when there are more.
idle_ns() {
	local l sum=0 v
	for l in "${SNAP_TL[@]}"; do
		case $l in
		*.idle_sleeptime* | *.iowait_sleeptime*)
			v=${l#*: }; sum=$((sum + ${v%% *}))
			;;
		esac
	done
	echo "$sum"
}

# ---- implementations ------------------------------------------------------
# An implementation is what sits between fio and the path devices:
#   raw         fio on the (first) path device itself
#   linear      dm-linear on it: the floor of any dm target's cost
#   ours        this project's multipath, round-robin, default repeat_count
#   ours-r1     the same with repeat_count 1 (switch path on every bio)
#   distro-bio  Debian's dm-multipath 1.14, "queue_mode bio"
#   distro-rq   Debian's dm-multipath 1.14, its request-based default
#   ours-ql/-st/-hst, distro-ql/-st (bio), distro-rq-ql/-rq-st: the
#               load-aware selectors (impl_table)
#   ours-rq, ours-rq-ql/-st/-hst: ours in queue_mode rq (request-based)
# Both multipath modules register "multipath", so which one is loaded is a
# state (mods_use) and each implementation needs one of them.
impl_mods() {
	case $1 in
	ours*) echo ours ;;
	distro*) echo distro ;;
	*) echo any ;;
	esac
}

impl_wanted() { # is IMPL selected by mpbench.only?
	[ -z "$BENCH_ONLY" ] && return 0
	case ",$BENCH_ONLY," in *",$1,"*) return 0 ;; esac
	return 1
}

_BENCH_MODS=none
mods_unload() {
	local m
	for m in dm_emc dm_alua dm_scsi_dh dm_round_robin dm_queue_length \
		dm_service_time dm_historical_service_time dm_multipath; do
		if [ -d "/sys/module/$m" ]; then
			rmmod "$m" || return 1
		fi
	done
	_BENCH_MODS=none
}
mods_use() { # mods_use ours|distro|any
	[ "$1" = any ] && return 0
	[ "$1" = "$_BENCH_MODS" ] && return 0
	mods_unload || return 1
	case $1 in
	ours)
		# Every selector and handler a table may name, as for the distro's
		# below: none is loaded on demand inside a timed window (810's
		# start: "1 alua" and service-time); the distro's "1 alua" is the
		# scsi_dh_alua attached at scan.
		modprobe -a dm-multipath dm-round-robin dm-queue-length dm-service-time \
			dm-historical-service-time dm-alua dm-emc || return 1
		;;
	distro)
		# By path, the selectors too: modprobe would pick ours (updates/).
		# Debian 12 ships no historical-service-time.
		insmod "$DISTRO_MD/dm-multipath.ko" &&
			insmod "$DISTRO_MD/dm-round-robin.ko" &&
			insmod "$DISTRO_MD/dm-queue-length.ko" &&
			insmod "$DISTRO_MD/dm-service-time.ko" || return 1
		;;
	esac
	_BENCH_MODS=$1
	MP_VERSION=$(dmsetup targets | awk '$1 == "multipath" {print $2}')
	diag "multipath modules: $1 ($MP_VERSION)"
	# Both register the same name and, since ours reports 1.14.0 too, the
	# same version: tell them apart by the out-of-tree taint ("O").
	case $1 in
	distro) [[ $(</sys/module/dm_multipath/taint) != *O* ]] ;;
	ours) [[ $(</sys/module/dm_multipath/taint) == *O* ]] ;;
	esac
}

# impl_table IMPL DEV...: the table for a map of IMPL over the paths DEV...
impl_table() {
	local impl=$1 size d paths="" n args=1
	shift
	n=$#
	size=$(blockdev --getsz "$1") || return 1
	case $impl in
	linear) echo "0 $size linear $1 0"; return ;;
	esac
	# ours-SEL-nostream: the same table (bench/cases/700 sets the module
	# parameter sequential_stream_kb=0 for it).
	impl=${impl%-nostream}
	case $impl in
	ours) args=1000 ;;
	*-st) args="1 1" ;;
	esac
	for d in "$@"; do paths+=" $(devnum "$d") $args"; done
	# ours-SEL / distro-SEL: each load-aware selector with the per-path
	# args multipath-tools writes (repeat_count 1; service-time adds its
	# relative_throughput 1); the distro's in queue_mode bio, as ours is.
	case $impl in
	ours | ours-r1) echo "0 $size multipath 0 0 1 1 round-robin 0 $n 1$paths" ;;
	distro-bio) echo "0 $size multipath 2 queue_mode bio 0 1 1 round-robin 0 $n 1$paths" ;;
	distro-rq) echo "0 $size multipath 0 0 1 1 round-robin 0 $n 1$paths" ;;
	ours-ql) echo "0 $size multipath 0 0 1 1 queue-length 0 $n 1$paths" ;;
	distro-ql) echo "0 $size multipath 2 queue_mode bio 0 1 1 queue-length 0 $n 1$paths" ;;
	ours-st) echo "0 $size multipath 0 0 1 1 service-time 0 $n 2$paths" ;;
	distro-st) echo "0 $size multipath 2 queue_mode bio 0 1 1 service-time 0 $n 2$paths" ;;
	# The distro's request-based default with the same selectors (the
	# table multipath-tools writes for it).
	distro-rq-ql) echo "0 $size multipath 0 0 1 1 queue-length 0 $n 1$paths" ;;
	distro-rq-st) echo "0 $size multipath 0 0 1 1 service-time 0 $n 2$paths" ;;
	ours-hst) echo "0 $size multipath 0 0 1 1 historical-service-time 0 $n 1$paths" ;;
	# Ours request-based (queue_mode rq), each selector as above.
	ours-rq) echo "0 $size multipath 2 queue_mode rq 0 1 1 round-robin 0 $n 1$paths" ;;
	ours-rq-ql) echo "0 $size multipath 2 queue_mode rq 0 1 1 queue-length 0 $n 1$paths" ;;
	ours-rq-st) echo "0 $size multipath 2 queue_mode rq 0 1 1 service-time 0 $n 2$paths" ;;
	ours-rq-hst) echo "0 $size multipath 2 queue_mode rq 0 1 1 historical-service-time 0 $n 1$paths" ;;
	*) return 1 ;;
	esac
}

# impl_dev IMPL NAME DEV...: make IMPL's device over DEV..., print its
# /dev path (raw: the first path itself). Maps are named bench-NAME.
impl_dev() {
	local impl=$1 name=bench-$2 table
	shift 2
	if [ "$impl" = raw ]; then
		echo "$1"
		return
	fi
	table=$(impl_table "$impl" "$@") || return 1
	dmsetup create "$name" --table "$table" >&2 || return 1
	dmsetup mknodes "$name" >/dev/null 2>&1
	echo "/dev/mapper/$name"
}
impl_dev_remove() { # impl_dev_remove DEVPATH
	case $1 in /dev/mapper/*) dm_remove "${1#/dev/mapper/}" ;; esac
}
# impl_dev runs in $(...): a cleanup registered there would be lost.
bench_maps_remove() {
	local n
	for n in $(dmsetup ls 2>/dev/null | awk '$1 ~ /^bench-/ {print $1}'); do
		dm_remove "$n"
	done
}

# reads_flowing KNAME MIN PID: wait (0.01 s polls, at most 20000) until
# more than MIN reads have completed on /sys/block/KNAME since the call;
# 1 if PID exits first or they never do. Without forking (each fork is a
# trip to the host over 9p) and without trusting guest seconds: under
# icount the clock leaps ahead while the guest idles waiting for the host.
reads_flowing() {
	local kn=$1 min=$2 pid=$3 n0 n1 i
	read -r n0 _ <"/sys/block/$kn/stat" || return 1
	for ((i = 0; i < 20000; i++)); do
		kill -0 "$pid" 2>/dev/null || return 1
		read -r n1 _ <"/sys/block/$kn/stat" || return 1
		((n1 - n0 > min)) && return 0
		bsleep 0.01
	done
	return 1
}

# Kernel name (dm-N, nullbX, sdX) of a block device node.
kname() { basename "$(readlink -f "/sys/dev/block/$(devnum "$1")")"; }

# ---- null_blk devices (configfs) -----------------------------------------
nullb_make() { # nullb_make NAME attr=value...: /dev/NAME
	local name=$1 a d=/sys/kernel/config/nullb/$1
	shift
	[ -d /sys/module/null_blk ] || modprobe null_blk nr_devices=0 || return 1
	mkdir "$d" || return 1
	for a in "$@"; do
		echo "${a#*=}" >"$d/${a%%=*}" || return 1
	done
	echo 1 >"$d/power" || return 1
	wait_until 10 test -b "/dev/$name"
}
nullb_remove() {
	local n
	for n in "$@"; do
		[ -d "/sys/kernel/config/nullb/$n" ] && rmdir "/sys/kernel/config/nullb/$n"
	done
	return 0
}
nullb_down() {
	local d
	for d in /sys/kernel/config/nullb/*/; do
		[ -f "$d/power" ] && rmdir "$d"
	done
	[ -d /sys/module/null_blk ] || return 0
	rmmod null_blk
}

# ---- workloads ------------------------------------------------------------
# fio arguments of each workload (without file, runtime, output).
workload_args() {
	case $1 in
	randread-qd1) echo "--rw=randread --bs=4k --iodepth=1 --numjobs=1" ;;
	randread-qd32) echo "--rw=randread --bs=4k --iodepth=32 --numjobs=2" ;;
	randwrite-qd32) echo "--rw=randwrite --bs=4k --iodepth=32 --numjobs=2" ;;
	seqread-1m) echo "--rw=read --bs=1M --iodepth=4 --numjobs=1" ;;
	# Scaling over latency-bound paths: enough depth to fill 8 paths.
	scale-qd32) echo "--rw=randread --bs=4k --iodepth=32 --numjobs=1" ;;
	*) return 1 ;;
	esac
}

ms2s() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# measure KEY=VALUE... -- DEV WORKLOAD WARM_MS WINDOW_MS: one point.
# Runs fio on DEV, waits for its I/O to start, lets it settle WARM_MS, then
# samples the CPU and DEV's counters over WINDOW_MS; fio's JSON is kept.
# The record gets the KEY=VALUE pairs given (suite, impl, workload, rep...).
measure() {
	local keys=() dev wl warm win kn tag fio_pid s0 s1 started i n a tl0 i0 i1
	while [ "$1" != -- ]; do keys+=("$1"); shift; done
	shift
	dev=$1 wl=$2 warm=$3 win=$4
	# No forks inside the window: convert to seconds beforehand.
	local warm_s win_s
	warm_s=$(ms2s "$warm") win_s=$(ms2s "$win")
	kn=$(kname "$dev")
	tag=$(IFS=_; echo "${keys[*]}_wl=$wl" | tr -c 'A-Za-z0-9_.\n=-' '_')
	tag=${tag//=/-}
	# shellcheck disable=SC2046
	fio --name="$wl" --filename="$dev" --direct=1 --ioengine=libaio \
		$(workload_args "$wl") --group_reporting --time_based \
		--ramp_time="${warm}ms" --runtime="$((win + 500))ms" \
		--output-format=json --output="/tmp/$tag.json" >/dev/null 2>"/tmp/$tag.err" &
	fio_pid=$!
	# Wait (0.01 s polls) until I/O flows: start-up is not steady state.
	started=0 n=200000
	read -r a <"/sys/block/$kn/stat" || n=0
	for ((i = 0; i < n; i++)); do
		read -r s0 <"/sys/block/$kn/stat" || break
		if [ "$s0" != "$a" ]; then started=1; break; fi
		kill -0 "$fio_pid" 2>/dev/null || break
		bsleep 0.01
	done
	if [ $started = 1 ]; then
		bsleep "$warm_s"
		snapshot "$kn"; s0=$SNAP; tl0=("${SNAP_TL[@]}")
		bsleep "$win_s"
		snapshot "$kn"; s1=$SNAP
		i1=$(idle_ns)
		SNAP_TL=("${tl0[@]}")
		i0=$(idle_ns)
	fi
	wait "$fio_pid"
	a=$?
	cp "/tmp/$tag.json" "$BENCH_OUT/raw/$tag.json" 2>/dev/null
	if [ $started = 0 ] || [ $a != 0 ]; then
		tap_fail "$tag: fio rc=$a started=$started" "$(tail -n 3 "/tmp/$tag.err")"
		record "${keys[@]}" "workload=$wl" "dev=$kn" "ok=0"
		return 1
	fi
	record "${keys[@]}" "workload=$wl" "dev=$kn" "ok=1" "fio=raw/$tag.json" \
		"s0=$s0" "s1=$s1" "idle0=$i0" "idle1=$i1"
	tap_ok "$tag"
}

# ---- cleanup ----------------------------------------------------------------
TRACEFS=/sys/kernel/tracing
tracing_reset() {
	[ -f $TRACEFS/tracing_on ] || return 0
	echo 0 >$TRACEFS/tracing_on
	echo 0 >$TRACEFS/events/enable
	local f
	for f in $TRACEFS/events/block/*/filter; do echo 0 >"$f"; done
	echo >$TRACEFS/trace
}
bench_cleanup() {
	tracing_reset
	bench_maps_remove
	mods_unload
	nullb_down
	sdebug_down
	echo "$_BENCH_PRINTK" >/proc/sys/kernel/printk
}
on_exit bench_cleanup
