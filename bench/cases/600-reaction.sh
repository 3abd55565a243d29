#!/bin/bash
# Reaction: how fast each selector moves I/O off a path that turns 10x
# slower mid-run, and back once it recovers. Two null_blk paths completing
# every I/O after 1 ms from a timer, each under a dm-linear layer; one PG;
# fio random 4 KiB reads, 2 jobs x queue depth 32, for 6 s. At 2 s path A's
# layer is reloaded as dm-delay (+9 ms: 10x), at 4 s back to dm-linear.
# Reads completed by each path are sampled every 100 ms; the report plots
# path A's share over time per selector and gives the time its share took
# to cross the midpoint between before and during (and back).
# Latency-bound, timers on the guest clock (icount): the figures are the
# selectors' choices. Not part of the default run-bench set:
# bench/run-bench --cases 600 [--only ours-hst,...: these configurations].
# timeout: 20000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"

BASE_NS=1000000 EXTRA_MS=9
BIN_MS=100 NBINS=60 SLOW_AT=20 FAST_AT=40	# bins: slow at 2 s, fast at 4 s
CONFIGS="ours-rr-1 ours-ql ours-st ours-hst distro-ql distro-st"
[ "$BENCH_QUICK" = 1 ] && CONFIGS="ours-st"
# --only CFG,...: these configurations only.
wanted=""
for cfg in $CONFIGS; do impl_wanted "$cfg" && wanted+=" $cfg"; done
CONFIGS=${wanted# }
diag "mode=$BENCH_MODE quick=$BENCH_QUICK reps=$BENCH_REPS path ${BASE_NS}ns, +${EXTRA_MS}ms at bin $SLOW_AT to $FAST_AT"

for p in A B; do
	check "null_blk path $p" nullb_make "nbr$p" size=1024 queue_mode=2 irqmode=2 \
		completion_nsec=$BASE_NS submit_queues=1 hw_queue_depth=64 || exit 1
done
SIZE=$(blockdev --getsz /dev/nbrA)
lin() { echo "0 $SIZE linear /dev/nbr$1 0"; }
check "dm-linear layers over both" eval 'dmsetup create rxA --table "$(lin A)" && dmsetup create rxB --table "$(lin B)"' || exit 1
check "dm-delay loads" modprobe dm-delay || exit 1
on_exit "dmsetup remove rxA; dmsetup remove rxB"
A=$(devnum /dev/mapper/rxA) B=$(devnum /dev/mapper/rxB)
KA=$(kname /dev/mapper/rxA) KB=$(kname /dev/mapper/rxB)
# relayer TABLE: swap path A's layer (suspend waits for its in-flight I/O).
relayer() { dmsetup load rxA --table "$1" && dmsetup suspend rxA && dmsetup resume rxA; }

sel_table() { # CONFIG -> "<features> <selector words>" over A and B
	local feat="0 0 1 1"
	case $1 in distro-*) feat="2 queue_mode bio 0 1 1" ;; esac
	case ${1#*-} in
	rr-1) echo "$feat round-robin 0 2 1 $A 1 $B 1" ;;
	ql) echo "$feat queue-length 0 2 1 $A 1 $B 1" ;;
	st) echo "$feat service-time 0 2 2 $A 1 1 $B 1 1" ;;
	hst) echo "$feat historical-service-time 0 2 1 $A 1 $B 1" ;;
	*) return 1 ;;
	esac
}

for ((rep = 1; rep <= BENCH_REPS; rep++)); do
	for cfg in $CONFIGS; do
		if [[ $cfg == distro-* ]]; then mods_use distro; else mods_use ours; fi ||
			{ tap_fail "$cfg: load its modules"; continue; }
		dmsetup create bench-react --table "0 $SIZE multipath $(sel_table "$cfg")" ||
			{ tap_fail "$cfg: create the map"; continue; }
		dmsetup mknodes bench-react >/dev/null 2>&1
		fio --name=react --filename=/dev/mapper/bench-react --direct=1 --ioengine=libaio \
			--rw=randread --bs=4k --iodepth=32 --numjobs=2 --group_reporting \
			--time_based --runtime=30 --output=/dev/null >/dev/null 2>&1 &
		fio_pid=$!
		reads_flowing "$KA" 100 "$fio_pid" && reads_flowing "$KB" 0 "$fio_pid" ||
			{ tap_fail "$cfg: reads did not start"; kill "$fio_pid"; wait "$fio_pid"; dm_remove bench-react; continue; }
		# Samples "t_ns:readsA:readsB", no fork between them but the two
		# relayers (their time is in the series).
		series="" ok=1
		for ((i = 0; i <= NBINS; i++)); do
			read -r ra _ <"/sys/block/$KA/stat"
			read -r rb _ <"/sys/block/$KB/stat"
			series+="${EPOCHREALTIME/./}:$ra:$rb,"
			if ((i == SLOW_AT)); then
				relayer "0 $SIZE delay /dev/nbrA 0 $EXTRA_MS" || ok=0
			elif ((i == FAST_AT)); then
				relayer "$(lin A)" || ok=0
			fi
			bsleep "$(ms2s $BIN_MS)"
		done
		kill -INT "$fio_pid" 2>/dev/null
		wait "$fio_pid"
		if [ $ok = 1 ]; then
			tap_ok "$cfg rep $rep: $((NBINS + 1)) samples, path A slowed and restored"
			record suite=reaction "impl=$cfg" "rep=$rep" "bin_ms=$BIN_MS" \
				"slow_at=$SLOW_AT" "fast_at=$FAST_AT" "series=${series%,}"
		else
			tap_fail "$cfg rep $rep: reloading path A's layer failed"
		fi
		dm_remove bench-react
	done
done

check "maps removed" dmsetup remove_all
check "multipath modules unloaded" mods_unload
check "dm-delay unloaded" rmmod dm_delay
check "null_blk removed" nullb_down
