#!/bin/bash
# Failover under load: fio keeps 32 random reads in flight on a 2-path map
# (two scsi_debug hosts sharing one store); one path at a time is taken
# offline, which makes every I/O sent to it fail at once, and is brought
# back (running + reinstate_path) a little later. Kernel block-layer trace
# events around each failure time the failed I/O's completion, its reissue
# on the other path and the completions the application sees; fio's IOPS
# log (10 ms bins) shows the same from the application's side.
# timeout: 20000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"

if [ "$BENCH_QUICK" = 1 ]; then
	# Smoke run (CI): our map only (the distro's is exercised by 100).
	NFAIL=2 IMPLS="ours"
else
	NFAIL=12 IMPLS="ours ours-r1 distro-bio distro-rq"
fi
# Settle before a failure, traced stretch before/after it (ms).
SETTLE=150 PRE=20 POST=80
SETTLE_S=$(ms2s $SETTLE) PRE_S=$(ms2s $PRE) POST_S=$(ms2s $POST)
diag "mode=$BENCH_MODE quick=$BENCH_QUICK failovers=$NFAIL impls=$IMPLS"

# 50 us per command, completed from a timer like a real HBA's interrupt.
# (not through check: sdebug_up sets SD_NAMES, a subshell would lose them)
if sdebug_up 2 ndelay=50000; then tap_ok "two scsi_debug paths"; else tap_fail "two scsi_debug paths"; exit 1; fi
A=${SD_NAMES[0]} B=${SD_NAMES[1]}
for p in "$A" "$B"; do
	wait_until 30 eval '[ "$(cat "/sys/block/$p/size")" -gt 0 ]' || { tap_fail "$p has no size"; exit 1; }
done

mkdev_t() { local IFS=:; set -- $1; echo $((($1 << 20) | $2)); }

[ -d $TRACEFS/events ] || mount -t tracefs nodev $TRACEFS
check "trace clock mono" sh -c "echo mono >$TRACEFS/trace_clock"
echo 32768 >$TRACEFS/buffer_size_kb

run_failovers() { # run_failovers IMPL
	local impl=$1 dev dm name=bench-fo tag i p fio_pid a ok=1 st
	progress "failover $impl: modules"
	mods_use "$(impl_mods "$impl")" || { tap_fail "$impl: load modules"; return 1; }
	dev=$(impl_dev "$impl" fo "/dev/$A" "/dev/$B") || { tap_fail "$impl: create map"; return 1; }
	dm=$(kname "$dev")
	progress "failover $impl: map $dev ($dm) up"
	local DA DB DD
	DA=$(mkdev_t "$(devnum "/dev/$A")") DB=$(mkdev_t "$(devnum "/dev/$B")")
	DD=$(mkdev_t "$(devnum "$dev")")
	tracing_reset
	echo "error != 0 || dev == $DD" >$TRACEFS/events/block/block_rq_complete/filter
	echo "dev == $DA || dev == $DB" >$TRACEFS/events/block/block_rq_issue/filter
	echo "dev == $DD" >$TRACEFS/events/block/block_bio_complete/filter
	for e in block_rq_complete block_rq_issue block_bio_complete; do
		echo 1 >$TRACEFS/events/block/$e/enable
	done
	progress "failover $impl: tracing set up"
	tag=failover_$impl
	fio --name=failover --filename="$dev" --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=32 --numjobs=1 --time_based --runtime=3600 \
		--write_iops_log="/tmp/$tag" --log_avg_msec=10 \
		--log_alternate_epoch=1 --log_alternate_epoch_clock_id=1 \
		--output-format=json --output="/tmp/$tag.json" >/dev/null 2>"/tmp/$tag.err" &
	fio_pid=$!
	if ! reads_flowing "$A" 1000 "$fio_pid"; then
		tap_fail "$impl: I/O did not start" "$(tail -n 3 "/tmp/$tag.err")"
		kill -9 "$fio_pid" 2>/dev/null; wait "$fio_pid"
		tracing_reset; impl_dev_remove "$dev"
		return 1
	fi
	progress "failover $impl: I/O started"
	bsleep 0.3
	for ((i = 1; i <= NFAIL; i++)); do
		if ((i % 2)); then p=$A; else p=$B; fi
		bsleep "$SETTLE_S"
		progress "failover $impl: $i: fail $p"
		echo 1 >$TRACEFS/tracing_on
		bsleep "$PRE_S"
		echo "mpbench fail $i $p" >$TRACEFS/trace_marker
		echo offline >"/sys/block/$p/device/state"
		bsleep "$POST_S"
		echo "mpbench end $i $p" >$TRACEFS/trace_marker
		echo 0 >$TRACEFS/tracing_on
		st=$(dmsetup status "${dev#/dev/mapper/}")
		progress "failover $impl: $i: reinstate $p"
		echo running >"/sys/block/$p/device/state"
		dmsetup message "${dev#/dev/mapper/}" 0 reinstate_path "$(devnum "/dev/$p")" ||
			{ tap_fail "$impl: reinstate $p"; ok=0; }
		# The failed path must have been failed by the map (status: F).
		[[ $st == *"$(devnum "/dev/$p") F"* ]] || { tap_fail "$impl: $p not failed by the map" "$st"; ok=0; }
	done
	bsleep "$SETTLE_S"
	progress "failover $impl: stop fio"
	kill -INT $fio_pid
	wait $fio_pid
	a=$?
	cat $TRACEFS/trace >"$BENCH_OUT/raw/$tag.trace"
	tracing_reset
	cp "/tmp/$tag.json" "$BENCH_OUT/raw/" 2>/dev/null
	cp /tmp/"${tag}"_iops*.log "$BENCH_OUT/raw/" 2>/dev/null
	# fio exits 0, 128 or 130 after a SIGINT; its own error field must be 0.
	if { [ $a != 0 ] && [ $a != 128 ] && [ $a != 130 ]; } ||
		! grep -q '"error" : 0,' "/tmp/$tag.json" 2>/dev/null; then
		tap_fail "$impl: fio rc=$a" "$(tail -n 3 "/tmp/$tag.err")"; ok=0
	fi
	record suite=failover "impl=$impl" "ver=$MP_VERSION" "nfail=$NFAIL" "ok=$ok" \
		"trace=raw/$tag.trace" "iopslog=raw/${tag}_iops.1.log" "fio=raw/$tag.json" \
		"paths=$A,$B" "dm=$dm" "devA=$DA" "devB=$DB" "devdm=$DD"
	impl_dev_remove "$dev"
	[ $ok = 1 ] && tap_ok "$impl: $NFAIL failovers under load"
}

for impl in $IMPLS; do
	impl_wanted "$impl" || continue
	run_failovers "$impl"
done

check "maps removed" dmsetup remove_all
check "multipath modules unloaded" mods_unload
check "scsi_debug removed" sdebug_down
