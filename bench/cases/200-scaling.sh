#!/bin/bash
# Scaling over paths whose own latency is the bottleneck: null_blk devices
# completing every request after a fixed delay (timer mode) with a queue
# depth of 2, i.e. at most 2 I/Os per delay per path. fio keeps more in
# flight than 8 such paths can take, so IOPS measure how well a map spreads
# I/O over its paths.
# timeout: 20000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"

DELAY_NS=1000000 QDEPTH=2
if [ "$BENCH_QUICK" = 1 ]; then
	# Smoke run (CI): the 2 paths / 1 path target only.
	WARM=50 WIN=300 COUNTS="1 2"
	GROUPS_A="ours-r1" GROUPS_B=""
else
	WARM=200 WIN=1000 COUNTS="1 2 4 8"
	GROUPS_A="raw ours-r1 ours" GROUPS_B="distro-bio distro-rq"
fi
diag "mode=$BENCH_MODE quick=$BENCH_QUICK reps=$BENCH_REPS counts=$COUNTS delay=${DELAY_NS}ns qdepth=$QDEPTH"

max=0
for n in $COUNTS; do ((n > max)) && max=$n; done
PATHS=()
for ((i = 0; i < max; i++)); do
	check "slow null_blk path $i" nullb_make "bs$i" size=1024 queue_mode=2 \
		irqmode=2 completion_nsec=$DELAY_NS hw_queue_depth=$QDEPTH \
		submit_queues=1 || exit 1
	PATHS+=("/dev/bs$i")
done

reverse() { local w out=""; for w in $1; do out="$w $out"; done; echo "$out"; }

for ((rep = 1; rep <= BENCH_REPS; rep++)); do
	if ((rep % 2)); then order="$GROUPS_A|$GROUPS_B"; else order="$(reverse "$GROUPS_B")|$(reverse "$GROUPS_A")"; fi
	IFS='|' read -r g1 g2 <<<"$order"
	for g in "$g1" "$g2"; do
		for n in $COUNTS; do
			for impl in $g; do
				impl_wanted "$impl" || continue
				# raw is one path by definition; ours (repeat_count
				# 1000) only shows what the default does with 2.
				[ "$impl" = raw ] && [ "$n" != 1 ] && continue
				[ "$impl" = ours ] && [ "$n" != 2 ] && continue
				mods=$(impl_mods "$impl")
				if ! mods_use "$mods"; then
					tap_fail "load $mods multipath modules for $impl"
					continue
				fi
				if ! dev=$(impl_dev "$impl" "scale" "${PATHS[@]:0:n}"); then
					tap_fail "create a $impl map over $n paths"
					continue
				fi
				before=()
				for ((i = 0; i < n; i++)); do before+=("$(path_reads "bs$i")"); done
				measure suite=scaling "impl=$impl" "rep=$rep" "paths=$n" \
					"ver=$MP_VERSION" -- "$dev" scale-qd32 $WARM $WIN
				# Did every path carry I/O? (per-path reads, for the report)
				per=""
				for ((i = 0; i < n; i++)); do
					per+="$(($(path_reads "bs$i") - before[i])),"
				done
				record suite=scaling-paths "impl=$impl" "rep=$rep" "paths=$n" "reads=$per"
				impl_dev_remove "$dev"
			done
		done
	done
done

check "maps removed" dmsetup remove_all
check "multipath modules unloaded" mods_unload
check "null_blk removed" nullb_down
