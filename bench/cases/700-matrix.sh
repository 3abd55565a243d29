#!/bin/bash
# Workload matrix: every I/O pattern on 2 and 4 null_blk paths, each of our
# selectors against the distro's bio-based and request-based targets with
# the same selector, and one path alone, in one boot. Two kinds of path:
#   cpu     completes in softirq at once, 128 tags: the CPU is the limit
#   queued  completes 200 us after submission from a timer, 4 tags: I/O
#           queues at the path (as on a busy array: issue 33's measurement)
# Workloads are named PATTERN-BS-qdQD-IO: PATTERN read, write (sequential),
# randread, randwrite, randrw70 (70% reads); BS 4k or 128k; QD 1 or 32
# (one job, libaio); IO direct or buffered (buffered writes end with an
# fsync so their data reaches the paths inside the run).
# Per cell: fio's own IOPS and MB/s (JSON kept in raw/), and each path's
# /sys/block/*/stat deltas over the run (requests, merges, sectors), plus
# the map's own (a request-based map merges in its own queue first).
# bench/analyze-matrix writes matrix.md and matrix-*.png.
# One run per cell: under icount repeats agree to ~0.05% (vm.md).
#
#   bench/run-bench --modes icount --cases 700 --out bench/out-matrix
#   ... --quick: 2 queued paths, 3 workloads, 4 maps (a smoke run)
# Knobs (run-bench --param NAME=V1,V2; --only IMPL,... and --workloads
# WL,... as in 100): kinds (cpu,queued), npaths (2,4), io (direct,buffered),
# sched (the paths' I/O scheduler: mq-deadline, what the kernel gives a
# single-queue SCSI disk, by default; null_blk's own default is none),
# nr_requests (the paths' queue/nr_requests: the requests a path's
# scheduler holds before a submitter sleeps for one; the kernel's default,
# twice the tags, if not given), wbt_lat_usec (the paths' writeback
# throttling target, queue/wbt_lat_usec: 0 turns it off; the kernel's
# default, 2000 on these non-rotational paths, if not given).
# The whole matrix is ~1,900 cells, 10-25 s of wall time each: hours; the
# knobs select a part (e.g. --param kinds=queued --param npaths=2 --param
# io=direct for issue 33's measurement).
# timeout: 40000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"

# ours-SEL-nostream: ours with sequential_stream_kb=0 (the selector chooses
# every bio: the target before dm-mpath-stream.c), in the same boot.
# linear: dm-linear over the first path, measured once per kind as raw is:
# what any bio-based device-mapper target costs on its own.
IMPLS_ALL="raw linear ours ours-r1 ours-r1-nostream ours-rq ours-ql ours-ql-nostream ours-rq-ql ours-st ours-st-nostream ours-rq-st ours-hst ours-hst-nostream ours-rq-hst distro-bio distro-rq distro-ql distro-rq-ql distro-st distro-rq-st"
if [ "$BENCH_QUICK" = 1 ]; then
	RAMP=0.2 RUNTIME=1
	KINDS=$(bench_param kinds queued) NPATHS=$(bench_param npaths 2)
	IOS=$(bench_param io direct)
	IMPLS="raw ours-st ours-rq-st distro-st distro-rq-st"
	WORKLOADS=${BENCH_WORKLOADS:-write-4k-qd32-direct randread-4k-qd32-direct read-128k-qd1-direct}
else
	RAMP=0.3 RUNTIME=1.5
	KINDS=$(bench_param kinds "cpu queued") NPATHS=$(bench_param npaths "2 4")
	IOS=$(bench_param io "direct buffered")
	IMPLS=$IMPLS_ALL
	WORKLOADS=$BENCH_WORKLOADS
	if [ -z "$WORKLOADS" ]; then
		for io in $IOS; do
			for qd in 1 32; do
				for bs in 4k 128k; do
					for pat in read write randread randwrite randrw70; do
						WORKLOADS+=" $pat-$bs-qd$qd-$io"
					done
				done
			done
		done
	fi
fi
wanted=""
for impl in $IMPLS; do impl_wanted "$impl" && wanted+=" $impl"; done
IMPLS=${wanted# }
SCHED=$(bench_param sched mq-deadline)
NR_REQUESTS=$(bench_param nr_requests "")
WBT_LAT_USEC=$(bench_param wbt_lat_usec "")
diag "mode=$BENCH_MODE quick=$BENCH_QUICK kinds=$KINDS npaths=$NPATHS sched=$SCHED impls=$IMPLS"
diag "workloads:$WORKLOADS"

# wl_args WORKLOAD: fio's arguments for it (1 if the name is not one)
wl_args() {
	local pat bs qd io a
	IFS=- read -r pat bs qd io <<<"$1"
	case $pat in
	read | write | randread | randwrite) a="--rw=$pat" ;;
	randrw70) a="--rw=randrw --rwmixread=70" ;;
	*) return 1 ;;
	esac
	case $bs in 4k | 128k) a+=" --bs=$bs" ;; *) return 1 ;; esac
	case $qd in qd[0-9]*) a+=" --iodepth=${qd#qd}" ;; *) return 1 ;; esac
	case $io in
	direct) a+=" --direct=1" ;;
	buffered)
		a+=" --direct=0"
		[ "$pat" = read ] || [ "$pat" = randread ] || a+=" --end_fsync=1"
		;;
	*) return 1 ;;
	esac
	echo "$a"
}
for wl in $WORKLOADS; do
	wl_args "$wl" >/dev/null || { tap_fail "workload name $wl"; exit 1; }
done

# The two path kinds (null_blk configfs attributes; size in MB, not
# memory-backed: reads return zeroes, writes are dropped).
kind_attrs() {
	case $1 in
	cpu) echo "queue_mode=2 irqmode=1 submit_queues=1 hw_queue_depth=128" ;;
	queued) echo "queue_mode=2 irqmode=2 completion_nsec=200000 submit_queues=1 hw_queue_depth=4" ;;
	*) return 1 ;;
	esac
}

# stat6 KNAME: reads, read merges, read sectors, writes, write merges,
# write sectors of a block device, comma-separated.
stat6() {
	local f
	read -ra f <"/sys/block/$1/stat"
	echo "${f[0]},${f[1]},${f[2]},${f[4]},${f[5]},${f[6]}"
}
# delta6 BEFORE AFTER: AFTER - BEFORE, field by field.
delta6() {
	local IFS=, a b i out=""
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	for i in 0 1 2 3 4 5; do out+="$((b[i] - a[i])),"; done
	echo "${out%,}"
}

# stream_kb_for IMPL: set our sequential_stream_kb for IMPL's cells (0 for
# -nostream, else STREAM_KB_DEFAULT: the module's own default, read before
# the first change, outside check's subshell); a module without the
# parameter (older than dm-mpath-stream.c) is left alone.
STREAM_PARAM=/sys/module/dm_multipath/parameters/sequential_stream_kb
STREAM_KB_DEFAULT=""
stream_kb_for() {
	[ "$(impl_mods "$1")" = ours ] && [ -f $STREAM_PARAM ] || return 0
	case $1 in
	*-nostream) echo 0 >$STREAM_PARAM ;;
	*) echo "$STREAM_KB_DEFAULT" >$STREAM_PARAM ;;
	esac
}

# cell KIND N IMPL DEV WL PATHNAMES...: one fio run, one record.
cell() {
	local kind=$1 n=$2 impl=$3 dev=$4 wl=$5 kn tag json p rc
	shift 5
	local paths=("$@") before=() after=() m0 m1 fields=()
	kn=$(kname "$dev")
	tag=matrix_${kind}_${n}p_${impl}_$wl
	json=$BENCH_OUT/raw/$tag.json
	case $wl in *-buffered) sync; echo 3 >/proc/sys/vm/drop_caches ;; esac
	for p in "${paths[@]}"; do before+=("$(stat6 "$p")"); done
	m0=$(stat6 "$kn")
	# shellcheck disable=SC2046
	fio --name=matrix --filename="$dev" --ioengine=libaio --numjobs=1 \
		$(wl_args "$wl") --time_based --ramp_time="$RAMP" --runtime="$RUNTIME" \
		--output-format=json --output="$json" >/dev/null 2>"/tmp/$tag.err"
	rc=$?
	m1=$(stat6 "$kn")
	for p in "${paths[@]}"; do after+=("$(stat6 "$p")"); done
	if [ $rc != 0 ]; then
		tap_fail "$tag: fio rc=$rc" "$(tail -n 3 "/tmp/$tag.err")"
		record suite=matrix "kind=$kind" "paths=$n" "impl=$impl" "workload=$wl" ok=0
		return 1
	fi
	for i in "${!paths[@]}"; do fields+=("p$i=$(delta6 "${before[i]}" "${after[i]}")"); done
	record suite=matrix "kind=$kind" "paths=$n" "impl=$impl" "ver=${MP_VERSION:-}" \
		"workload=$wl" ok=1 "fio=raw/$tag.json" "dev=$kn" \
		"stream_kb=$(cat $STREAM_PARAM 2>/dev/null)" \
		"map=$(delta6 "$m0" "$m1")" "${fields[@]}"
	tap_ok "$tag"
}

# queue_set DEV ATTR VALUE: the path's queue/ATTR set to VALUE (checked);
# nothing if VALUE is empty (the knob not given: the kernel's default).
queue_set() {
	[ -n "$3" ] || return 0
	check "$1 $2 $3" sh -c "echo $3 >/sys/block/$1/queue/$2"
}

maxn=0
for n in $NPATHS; do ((n > maxn)) && maxn=$n; done
for kind in $KINDS; do
	attrs=$(kind_attrs "$kind") || { tap_fail "path kind $kind"; continue; }
	PATHS=()
	for ((i = 0; i < maxn; i++)); do
		# shellcheck disable=SC2086
		check "$kind null_blk path $i" nullb_make "mx$i" size=512 $attrs || exit 1
		check "mx$i scheduler $SCHED" sh -c "echo $SCHED >/sys/block/mx$i/queue/scheduler" || exit 1
		queue_set "mx$i" nr_requests "$NR_REQUESTS" || exit 1
		queue_set "mx$i" wbt_lat_usec "$WBT_LAT_USEC" || exit 1
		PATHS+=("mx$i")
	done
	record suite=matrix-paths "kind=$kind" "attrs=${attrs// /,}" \
		"sched=$(tr ' ' , </sys/block/mx0/queue/scheduler)" \
		"max_sectors_kb=$(cat /sys/block/mx0/queue/max_sectors_kb)" \
		"nr_requests=$(cat /sys/block/mx0/queue/nr_requests)" \
		"wbt_lat_usec=$(cat /sys/block/mx0/queue/wbt_lat_usec 2>/dev/null)"
	first_n=${NPATHS%% *}
	for n in $NPATHS; do
		devs=()
		for ((i = 0; i < n; i++)); do devs+=("/dev/${PATHS[i]}"); done
		progress "matrix $kind $n paths"
		# Grouped by module (ours and the distro's both register
		# "multipath"): raw first, then ours, then the distro's.
		for grp in any ours distro; do
			for impl in $IMPLS; do
				[ "$(impl_mods "$impl")" = "$grp" ] || continue
				if ! mods_use "$grp"; then
					tap_fail "$impl: load the $grp multipath modules"
					continue
				fi
				if [ "$impl" = raw ] || [ "$impl" = linear ]; then
					# the same device for every path count: once
					[ "$n" = "$first_n" ] || continue
					# raw: the device itself (impl_dev)
					dev=$(impl_dev "$impl" mx "/dev/${PATHS[0]}") ||
						{ tap_fail "$impl: create a map over /dev/${PATHS[0]}"; continue; }
					# one path: its own counters only
					cells_paths=("${PATHS[0]}")
				else
					dev=$(impl_dev "$impl" mx "${devs[@]}") ||
						{ tap_fail "$impl: create a map over ${devs[*]}"; continue; }
					cells_paths=("${PATHS[@]:0:n}")
				fi
				if [ -z "$STREAM_KB_DEFAULT" ] && [ -f $STREAM_PARAM ] &&
					[ "$grp" = ours ]; then
					STREAM_KB_DEFAULT=$(<$STREAM_PARAM)
				fi
				check "$impl: sequential_stream_kb" stream_kb_for "$impl" || continue
				for wl in $WORKLOADS; do
					progress "matrix $kind $n $impl $wl"
					cell "$kind" "$n" "$impl" "$dev" "$wl" "${cells_paths[@]}"
				done
				impl_dev_remove "$dev"
			done
		done
	done
	check "maps removed" dmsetup remove_all
	check "multipath modules unloaded" mods_unload
	check "$kind null_blk paths removed" nullb_down
done
