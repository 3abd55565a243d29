#!/bin/bash
# Per-I/O overhead: raw path device vs dm-linear vs our multipath vs the
# distro's dm-multipath (bio and request-based), one fast null_blk path.
# Workloads alternate between implementations inside each repeat, and the
# order of the implementations is reversed on every other repeat, so any
# drift of the guest hits all of them alike.
# timeout: 20000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"

if [ "$BENCH_QUICK" = 1 ]; then
	# Smoke run (CI): the two ratios' operands only.
	WARM=50 WIN=200
	WORKLOADS=${BENCH_WORKLOADS:-randread-qd32}
	GROUPS_A="raw ours" GROUPS_B="distro-bio"
else
	WARM=300 WIN=1000
	WORKLOADS=${BENCH_WORKLOADS:-randread-qd32 randread-qd1 randwrite-qd32 seqread-1m}
	# Each selector against dm-linear and the distro's same-named one
	# (round-robin repeat_count 1: ours-r1 / distro-bio); ours in
	# queue_mode rq against the distro's request-based target.
	GROUPS_A="raw linear ours ours-r1 ours-ql ours-st ours-hst ours-rq ours-rq-st"
	GROUPS_B="distro-bio distro-rq distro-ql distro-st distro-rq-st"
fi
[ "$BENCH_MODE" = smp2 ] && WORKLOADS=${BENCH_WORKLOADS:-randread-qd32}

# One fast path: completes in softirq, no delay, no memory behind it.
check "null_blk path device" nullb_make bp0 size=4096 queue_mode=2 irqmode=1 \
	submit_queues=1 hw_queue_depth=128 || exit 1
PATHDEV=/dev/bp0
diag "mode=$BENCH_MODE quick=$BENCH_QUICK reps=$BENCH_REPS workloads=$WORKLOADS"

declare -A DEV QL_DONE
# ql_record IMPL DEV: the device's queue limits (/sys/block/X/queue/*), once
# per impl, for the report (differences between maps explain splits).
ql_record() {
	local kn f v vals=()
	[ -z "${QL_DONE[$1]:-}" ] || return 0
	QL_DONE[$1]=1
	kn=$(kname "$2")
	for f in /sys/block/"$kn"/queue/*; do
		[ -f "$f" ] || continue
		read -r v <"$f" 2>/dev/null || continue
		vals+=("ql_${f##*/}=${v// /_}")
	done
	record suite=qlimits "impl=$1" "${vals[@]}"
}
# state_up A|B: load the modules of that group and make its devices.
state_up() {
	local impl mods
	for impl in $1; do
		impl_wanted "$impl" || continue
		mods=$(impl_mods "$impl")
		if ! mods_use "$mods"; then
			tap_fail "load $mods multipath modules for $impl"
			continue
		fi
		if DEV[$impl]=$(impl_dev "$impl" "$impl" "$PATHDEV"); then
			VER[$impl]=$MP_VERSION
			ql_record "$impl" "${DEV[$impl]}"
		else
			tap_fail "create a $impl map over $PATHDEV"
			unset "DEV[$impl]"
		fi
	done
}
state_down() {
	local impl
	for impl in "${!DEV[@]}"; do impl_dev_remove "${DEV[$impl]}"; done
	DEV=()
}
declare -A VER

reverse() { local w out=""; for w in $1; do out="$w $out"; done; echo "$out"; }

for ((rep = 1; rep <= BENCH_REPS; rep++)); do
	if ((rep % 2)); then order="$GROUPS_A|$GROUPS_B"; else order="$(reverse "$GROUPS_B")|$(reverse "$GROUPS_A")"; fi
	IFS='|' read -r g1 g2 <<<"$order"
	for g in "$g1" "$g2"; do
		state_up "$g"
		for wl in $WORKLOADS; do
			for impl in $g; do
				[ -n "${DEV[$impl]:-}" ] || continue
				kn=$(kname "${DEV[$impl]}")
				read -r d0 _ _ _ dw0 _ <"/sys/block/$kn/stat"
				read -r p0 _ _ _ pw0 _ <"/sys/block/bp0/stat"
				measure suite=overhead "impl=$impl" "rep=$rep" "ver=${VER[$impl]:-}" \
					"paths=1" -- "${DEV[$impl]}" "$wl" $WARM $WIN
				# I/Os completed at the map and at the path over the whole
				# fio run: more at the path means the map split bios.
				read -r d1 _ _ _ dw1 _ <"/sys/block/$kn/stat"
				read -r p1 _ _ _ pw1 _ <"/sys/block/bp0/stat"
				record suite=splits "impl=$impl" "rep=$rep" "workload=$wl" \
					"dev_ios=$((d1 + dw1 - d0 - dw0))" "path_ios=$((p1 + pw1 - p0 - pw0))"
			done
		done
		state_down
	done
done

check "maps removed" dmsetup remove_all
check "multipath modules unloaded" mods_unload
check "null_blk removed" nullb_down
