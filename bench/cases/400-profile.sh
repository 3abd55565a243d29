#!/bin/bash
# Where the instructions go: perf cpu-clock sampling of the whole guest
# during 4k randread QD32 2 jobs on one fast null_blk path, for the raw
# device, dm-linear, our multipath (round-robin with repeat_count 1000 and
# 1, and each load-aware selector) and the distro's in its bio mode. Under
# icount the sampling clock is the instruction count, so the shares are
# shares of guest instructions. perf.data and /proc/kallsyms go to
# $BENCH_OUT/raw/; bench/analyze runs perf report on the host.
# timeout: 20000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"

IMPLS="raw linear ours ours-r1 ours-ql ours-st ours-hst distro-bio"
PROF_S=1.5 FREQ=4000
[ "$BENCH_QUICK" = 1 ] && PROF_S=0.5
diag "mode=$BENCH_MODE quick=$BENCH_QUICK impls=$IMPLS window=${PROF_S}s freq=$FREQ"

if ! command -v perf >/dev/null; then
	tap_fail "perf is installed (linux-perf)"
	exit 1
fi
check "null_blk path device" nullb_make bp0 size=4096 queue_mode=2 irqmode=1 \
	submit_queues=1 hw_queue_depth=128 || exit 1
PATHDEV=/dev/bp0

profile_one() { # profile_one IMPL
	local impl=$1 dev kn fio_pid a n0 n1 out=/tmp/profile-$1.data
	mods_use "$(impl_mods "$impl")" || { tap_fail "$impl: load modules"; return 1; }
	dev=$(impl_dev "$impl" prof "$PATHDEV") || { tap_fail "$impl: create map"; return 1; }
	kn=$(kname "$dev")
	# shellcheck disable=SC2046
	fio --name=profile --filename="$dev" --direct=1 --ioengine=libaio \
		$(workload_args randread-qd32) --group_reporting --time_based \
		--runtime=3600 --output-format=json --output=/tmp/prof-$impl.json \
		>/dev/null 2>/tmp/prof-$impl.err &
	fio_pid=$!
	if reads_flowing "$kn" 5000 "$fio_pid"; then
		bsleep 0.3
		progress "profile $impl: perf record"
		read -r n0 _ _ _ _ _ _ _ _ _ <"/sys/block/$kn/stat"
		perf record -q -a -g -e cpu-clock -F $FREQ -o "$out" -- sleep "$PROF_S" \
			>/tmp/perf-$impl.log 2>&1
		a=$?
		read -r n1 _ _ _ _ _ _ _ _ _ <"/sys/block/$kn/stat"
		# Module addresses while this impl's modules are loaded.
		cat /proc/kallsyms >"$BENCH_OUT/raw/kallsyms-$impl"
	else
		a="I/O did not start"
	fi
	kill -INT "$fio_pid" 2>/dev/null
	wait "$fio_pid"
	impl_dev_remove "$dev"
	if [ "$a" != 0 ] || [ ! -s "$out" ]; then
		tap_fail "$impl: perf record (rc=$a)" "$(tail -n 3 /tmp/perf-$impl.log /tmp/prof-$impl.err)"
		return 1
	fi
	cp "$out" "$BENCH_OUT/raw/profile-$impl.data"
	# ios: reads completed at the device while perf recorded (perf's own
	# start-up included): samples / FREQ / ios = guest seconds per I/O.
	record suite=profile "impl=$impl" "ver=$MP_VERSION" "data=raw/profile-$impl.data" \
		"ios=$((n1 - n0))" "freq=$FREQ"
	tap_ok "$impl: profile recorded"
}

for impl in $IMPLS; do
	impl_wanted "$impl" || continue
	profile_one "$impl"
done
check "maps removed" dmsetup remove_all
check "multipath modules unloaded" mods_unload
check "null_blk removed" nullb_down
