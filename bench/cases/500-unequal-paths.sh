#!/bin/bash
# Unequal paths: how much of two paths of very different latency each
# selector makes usable. Two null_blk paths completing every I/O after 5 ms
# (fast) and 50 ms (slow) from a timer, one PG; fio random 4 KiB reads,
# 2 jobs x queue depth 32. IOPS of each selector's map against the fast
# path alone (the raw device), and the share of reads each path served.
# Ours: round-robin (repeat_count 1 and 1000), queue-length, service-time
# (throughputs 1:1 and 10:1), historical-service-time; the distro's
# dm-multipath (queue_mode bio) with its own queue-length and service-time.
# Latency-bound by design: under icount the paths' timers run on the guest
# clock, so the figures are those of the selectors' choices, not of TCG.
# Not part of the default run-bench set: bench/run-bench --cases 500
# (--only ours-hst,distro-st,...: only these configurations).
# timeout: 20000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"

FAST_NS=5000000 SLOW_NS=50000000
if [ "$BENCH_QUICK" = 1 ]; then RUNTIME=1 RAMP=0.3; else RUNTIME=3 RAMP=0.5; fi
diag "mode=$BENCH_MODE quick=$BENCH_QUICK reps=$BENCH_REPS fast=${FAST_NS}ns slow=${SLOW_NS}ns"

check "fast null_blk path" nullb_make nbfast size=1024 queue_mode=2 irqmode=2 \
	completion_nsec=$FAST_NS submit_queues=1 hw_queue_depth=64 || exit 1
check "slow null_blk path" nullb_make nbslow size=1024 queue_mode=2 irqmode=2 \
	completion_nsec=$SLOW_NS submit_queues=1 hw_queue_depth=64 || exit 1
F=$(devnum /dev/nbfast) SL=$(devnum /dev/nbslow)
SIZE=$(blockdev --getsz /dev/nbfast)

# sel_table CONFIG: "<features> <selector words>" of a map over both paths
sel_table() {
	local feat="0 0 1 1"
	case $1 in distro-*) feat="2 queue_mode bio 0 1 1" ;; esac
	case ${1#*-} in
	rr-1) echo "$feat round-robin 0 2 1 $F 1 $SL 1" ;;
	rr-1000) echo "$feat round-robin 0 2 1 $F 1000 $SL 1000" ;;
	ql) echo "$feat queue-length 0 2 1 $F 1 $SL 1" ;;
	st) echo "$feat service-time 0 2 1 $F 1 $SL 1" ;;
	st-10) echo "$feat service-time 0 2 2 $F 1 10 $SL 1 1" ;;
	hst) echo "$feat historical-service-time 0 2 1 $F 1 $SL 1" ;;
	*) return 1 ;;
	esac
}
iops_of() { # fio JSON file -> read IOPS (integer)
	python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' "$1"
}

CONFIGS="fast-alone ours-rr-1 ours-rr-1000 ours-ql ours-st ours-st-10 ours-hst distro-ql distro-st distro-st-10"
declare -A SUM
# --only CFG,...: these configurations (the fast path alone always runs:
# it is the basis of every ratio).
wanted=""
for cfg in $CONFIGS; do
	[ "$cfg" = fast-alone ] || impl_wanted "$cfg" && wanted+=" $cfg"
done
CONFIGS=${wanted# }
for ((rep = 1; rep <= BENCH_REPS; rep++)); do
	for cfg in $CONFIGS; do
		case $cfg in
		fast-alone) dev=/dev/nbfast ;;
		*)
			if [[ $cfg == distro-* ]]; then
				mods_use distro
			else
				mods_use ours
			fi || { tap_fail "$cfg: load its modules"; continue; }
			if ! dmsetup create bench-uneq --table "0 $SIZE multipath $(sel_table "$cfg")"; then
				tap_fail "$cfg: create the map"
				continue
			fi
			dmsetup mknodes bench-uneq >/dev/null 2>&1
			dev=/dev/mapper/bench-uneq
			;;
		esac
		f0=$(path_reads nbfast) s0=$(path_reads nbslow)
		json=$BENCH_OUT/raw/unequal_${cfg}_rep$rep.json
		if fio --name=uneq --filename="$dev" --direct=1 --ioengine=libaio \
			--rw=randread --bs=4k --iodepth=32 --numjobs=2 --group_reporting \
			--time_based --ramp_time="$RAMP" --runtime="$RUNTIME" \
			--output-format=json --output="$json" >/dev/null 2>&1; then
			iops=$(iops_of "$json")
			df=$(($(path_reads nbfast) - f0)) ds=$(($(path_reads nbslow) - s0))
			tap_ok "$cfg rep $rep: $iops IOPS (reads fast $df, slow $ds)"
			# The selector's per-path words (averages, in flight...).
			[ "$cfg" = fast-alone ] ||
				diag "$cfg rep $rep status: $(dmsetup status bench-uneq)"
			record suite=unequal "impl=$cfg" "rep=$rep" "iops=$iops" "fast_reads=$df" "slow_reads=$ds"
			SUM[$cfg]=$((${SUM[$cfg]:-0} + iops))
		else
			tap_fail "$cfg rep $rep: fio failed"
		fi
		[ "$cfg" = fast-alone ] || dm_remove bench-uneq
	done
done

base=$((${SUM[fast-alone]:-0} / BENCH_REPS))
diag "unequal paths (fast 5 ms, slow 50 ms, QD 2x32), mean IOPS of $BENCH_REPS rep(s), % of the fast path alone:"
for cfg in $CONFIGS; do
	m=$((${SUM[$cfg]:-0} / BENCH_REPS))
	diag "$(printf '  %-14s %7d IOPS %5s%%' "$cfg" "$m" "$((base ? m * 100 / base : 0))")"
done
check "maps removed" dmsetup remove_all
check "multipath modules unloaded" mods_unload
check "null_blk removed" nullb_down
