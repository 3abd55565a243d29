#!/bin/bash
# Flaky path (issue 32): one path of two fails in bursts while multipathd
# 0.9.4 manages the map, as on a Debian system; what it costs each
# implementation in latency, retried I/O and path state changes.
#
# Paths: two tcm_loop disks with one WWID (bench/lib/lio-pair.sh), each an
# LIO iblock backstore over its own device-mapper layer over one null_blk
# disk that completes every I/O LAT_US (5 ms) after submission from a timer (a
# latency-bound array; the guest CPU stays mostly idle, so under icount a
# virtual second costs little wall time). At fio's start path A's layer
# becomes dm-flakey "UP DOWN": every I/O to path A fails for DOWN s out of
# every UP+DOWN s (defaults 19 and 1: 5% of the time, i.e. 2.5% of the
# map's I/O while round-robin sends half of it to A; dm-flakey counts whole
# seconds, so 1% would mean one burst per 100 s, too sparse for a 60 s
# fault window or multipathd's 60 s double-failure window to see a
# pattern within a few minutes). LIO answers TEST UNIT READY
# itself, so multipathd's checker finds path A healthy and reinstates it:
# the ping-pong the issue describes.
# Workload: fio 4 KiB random 50/50 read/write, QD32, one job, RUNTIME s,
# every I/O's completion latency logged (fio's lat log) for the plot. fio
# runs its job as a thread (--thread) in a session of its own (setsid): a
# forked job can take more than fio's 5 s start-up bound of guest time
# while its libraries come over 9p (the icount clock leaps while the guest
# waits for the host), and fio then ends with SIGTERM to its whole process
# group, this script included (seen once).
# Configurations (one multipathd each; /etc/multipath.conf blacklists all
# but this LUN and pins, for every configuration alike, one PG of both
# paths, round-robin 0 and no hardware handler; everything else at
# multipath-tools 0.9.4's defaults, i.e. Debian's):
#   distro            the distro's dm-multipath (request-based default)
#   distro-marginal   the same with multipathd's marginal_path_* settings
#                     (MARGINAL below; sample time 120 s, the minimum)
#   ours-off          ours, path probation off (probation_fails 0 when the
#                     target knows the feature, else plain: no probation)
#   ours-on           ours with path probation at its defaults (skipped,
#                     and said so, when the target does not know it)
# Per configuration: fio's JSON (p50/p99/p99.9), its latency log, the errors
# each path's requests completed with (block_rq_complete tracepoint: every
# one is an I/O the map retried on the other path, fio saw none; but those
# at sector 0 are multipathd's marginal-path sample reads, counted apart), the
# paths' SCSI ioerr_cnt, the map's dm event count and path A's fail count
# (status), and path A's state sampled every second.
# bench/analyze-flaky writes flaky.md and flaky-latency.png.
#
#   bench/run-bench --modes icount --cases 900 --out bench/out-flaky
# Knobs (--param NAME=V): runtime (s, default 180; marginal_path acts after
# a second failure within 60 s plus a 120 s sample: keep >= 200), up, down (s),
# lat_us (the null_blk disk's latency, default 5000), impls (comma-separated subset).
# --quick: runtime 30, up 9, distro and ours-off only.
# timeout: 20000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"
source "$REPO/tests/lib/multipathd.sh"
source "$REPO/bench/lib/lio-pair.sh"

if [ "$BENCH_QUICK" = 1 ]; then
	RUNTIME=$(bench_param runtime 30)
	IMPLS=$(bench_param impls "distro ours-off")
	UP=$(bench_param up 9)
else
	RUNTIME=$(bench_param runtime 180)
	IMPLS=$(bench_param impls "distro distro-marginal ours-off ours-on")
	UP=$(bench_param up 19)
fi
DOWN=$(bench_param down 1)
LAT_US=$(bench_param lat_us 5000)
MAP=flaky900
# multipathd's marginal path detection: a path that fails twice within
# 60 s is sampled for 120 s (the minimum) with 10 direct reads a second;
# above 5 errors per 1000 it stays failed for 300 s, then is sampled again.
MARGINAL="marginal_path_double_failed_time 60
		marginal_path_err_sample_time 120
		marginal_path_err_rate_threshold 5
		marginal_path_err_recheck_gap_time 300"
diag "mode=$BENCH_MODE runtime=${RUNTIME}s flakey up=$UP down=$DOWN lat=${LAT_US}us impls=$IMPLS"

TRACE=/sys/kernel/tracing
mountpoint -q $TRACE || mount -t tracefs nodev $TRACE
mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug

# ---- set-up ---------------------------------------------------------------
flaky_cleanup() {
	mpd_stop
	dm_remove "$MAP"
	mpd_conf_remove
	lio_pair_down
	udevd_stop
	tracing_reset
}
on_exit flaky_cleanup
check "no multipathd left running by an earlier scenario" eval '! mpd_running' || mpd_stop
udevd_start
check "systemd-udevd started" udevd_running || exit 1
check "null_blk backing disk (${LAT_US} us per I/O)" nullb_make nbflaky size=1024 \
	queue_mode=2 irqmode=2 completion_nsec=$((LAT_US * 1000)) submit_queues=1 \
	hw_queue_depth=128 || exit 1
# (not inside check: it sets PAIR_DEVS)
if lio_pair_up /dev/nbflaky && [ ${#PAIR_DEVS[@]} = 2 ]; then
	tap_ok "two tcm_loop paths over their own layers: ${PAIR_DEVS[*]}"
else
	tap_fail "two tcm_loop paths over their own layers"
	exit 1
fi
udevadm settle --timeout=60
SDA=${PAIR_DEVS[0]} SDB=${PAIR_DEVS[1]}
NUMA=$(devnum "/dev/$SDA") NUMB=$(devnum "/dev/$SDB")
WWID=$(udev_prop "/dev/$SDA" ID_SERIAL)
check_eq "both paths have one WWID ($WWID)" "$WWID" "$(udev_prop "/dev/$SDB" ID_SERIAL)" || exit 1
SIZE=$(blockdev --getsz /dev/nbflaky)
diag "path A $SDA ($NUMA), path B $SDB ($NUMB)"

# cpu_busy_ticks: busy (non-idle) ticks of /proc/stat so far
cpu_busy_ticks() {
	local u n s q sq
	read -r _ u n s _ _ q sq _ </proc/stat
	echo $((u + n + s + q + sq))
}
# Calibration: path A alone (no map, no fault), 5 s of the same workload:
# the IOPS one path gives and how busy the guest CPU is meanwhile.
b0=$(cpu_busy_ticks) t0=${EPOCHREALTIME/./}
setsid -w fio --thread --name=calib --filename="/dev/$SDA" --direct=1 --ioengine=libaio --rw=randrw \
	--rwmixread=50 --bs=4k --iodepth=32 --numjobs=1 --time_based --runtime=5 \
	--output-format=json --output="$BENCH_OUT/raw/flaky_calib.json" >/dev/null 2>&1
b1=$(cpu_busy_ticks) t1=${EPOCHREALTIME/./}
record suite=flaky-calib "fio=raw/flaky_calib.json" "busy_ticks=$((b1 - b0))" "elapsed_us=$((t1 - t0))"
diag "calibration (path A alone, 5 s): busy $((b1 - b0)) ticks of $(((t1 - t0) / 10000))"

# The probation feature words of ours (issue 32), if this build has them.
OURS_PROBATION=0
ours_ko=$(modinfo -n dm-multipath 2>/dev/null)
if [ -n "$ours_ko" ] && grep -q probation_fails "$ours_ko" 2>/dev/null; then
	OURS_PROBATION=1
fi
diag "our target knows path probation: $OURS_PROBATION ($ours_ko)"

# conf_write EXTRA_DEFAULTS FEATURES: the configuration described above.
conf_write() {
	mkdir -p /etc/multipath
	cat >"$MPD_CONF" <<-EOF
		defaults {
			user_friendly_names no
			find_multipaths no
			$1
		}
		blacklist {
			wwid ".*"
		}
		blacklist_exceptions {
			wwid "^$WWID\$"
		}
		devices {
			device {
				vendor "LIO-ORG"
				product ".*"
				path_grouping_policy "multibus"
				path_selector "round-robin 0"
				hardware_handler "0"
				$2
			}
		}
		multipaths {
			multipath {
				wwid "$WWID"
				alias "$MAP"
			}
		}
	EOF
}

# path_field MAJ:MIN: "STATE FAILCOUNT" of that path in the map's status
path_field() {
	local f i
	read -ra f <<<"$(dmsetup status "$MAP" 2>/dev/null)" || return 1
	for ((i = 0; i < ${#f[@]} - 2; i++)); do
		if [ "${f[i]}" = "$1" ] && [[ ${f[i + 1]} == [AF] ]]; then
			echo "${f[i + 1]} ${f[i + 2]}"
			return 0
		fi
	done
	return 1
}
both_active() { [[ "$(path_field "$NUMA")" == A* && "$(path_field "$NUMB")" == A* ]]; }
# our_errors MAJ:MIN: the path's errors= in our debugfs record ("-" if none)
our_errors() {
	local rec
	rec=/sys/kernel/debug/dm-multipath/$(dmsetup info -c --noheadings -o major,minor \
		--separator : "$MAP" | tr -d ' ')
	[ -r "$rec" ] || { echo -; return; }
	sed -n "s/.* dev=$1 .* errors=\([0-9]*\).*/\1/p" "$rec" | head -n 1
}
map_events() { dmsetup info -c --noheadings -o events "$MAP" 2>/dev/null | tr -d ' '; }
ioerr() { echo $(($(cat "/sys/block/$1/device/ioerr_cnt"))); }

# ---- one configuration ----------------------------------------------------
run_config() {
	local impl=$1 mods extra_def="" features="" tag fio_pid rc states="" t0 st
	local ev0 ev1 fa0 fa1 fb0 fb1 ta tb ta0 ia0 ia1 ib0 ib1 dbg b0 b1 t1
	case $impl in
	distro*) mods=distro ;;
	ours*) mods=ours ;;
	esac
	case $impl in
	distro-marginal) extra_def=$MARGINAL ;;
	ours-off) [ $OURS_PROBATION = 1 ] && features='features "2 probation_fails 0"' ;;
	ours-on)
		if [ $OURS_PROBATION = 0 ]; then
			diag "ours-on: this build of our target has no path probation: not run"
			record suite=flaky "impl=$impl" ok=0 skipped=no-probation
			return 0
		fi
		;;
	esac
	progress "flaky $impl"
	# (not inside check: mods_use keeps its state in this shell)
	if mods_use "$mods"; then
		tap_ok "$impl: $mods multipath modules ($MP_VERSION)"
	else
		tap_fail "$impl: $mods multipath modules"
		return 1
	fi
	conf_write "$extra_def" "$features"
	# A start can take more than mpd_start's 30 s of guest time on a
	# loaded host (its libraries come over 9p, and the icount clock leaps
	# while the guest waits): wait longer rather than lose the run, and
	# never leave a daemon behind for the next configuration to meet.
	mpd_start || wait_until 120 mpd_running
	check "$impl: multipathd started" mpd_running || { mpd_log_tail; mpd_stop; return 1; }
	if ! check "$impl: multipathd made map $MAP over 2 paths" mpd_wait_map "$MAP" 2; then
		mpd_diag_stuck
		mpd_log_tail 15
		mpd_stop
		return 1
	fi
	wait_until 20 test -b "/dev/mapper/$MAP" || dmsetup mknodes "$MAP"
	diag "$impl table: $(dmsetup table "$MAP")"
	check "$impl: both paths active" wait_until 30 both_active

	# Errors completed by each path's requests, counted by the tracepoint.
	echo 0 >$TRACE/tracing_on
	echo >$TRACE/trace
	echo 4096 >$TRACE/buffer_size_kb
	echo 'error != 0' >$TRACE/events/block/block_rq_complete/filter
	echo 1 >$TRACE/events/block/block_rq_complete/enable
	echo 1 >$TRACE/tracing_on

	read -r _ fa0 <<<"$(path_field "$NUMA")"
	read -r _ fb0 <<<"$(path_field "$NUMB")"
	ev0=$(map_events) ia0=$(ioerr "$SDA") ib0=$(ioerr "$SDB")
	tag=flaky_$impl
	check "$impl: path A's layer turns flakey (up $UP s, down $DOWN s)" \
		pair_layer_table A "0 $SIZE flakey /dev/nbflaky 0 $UP $DOWN" || return 1
	t0=${EPOCHREALTIME/./} b0=$(cpu_busy_ticks)
	setsid -w fio --thread --name=flaky --filename="/dev/mapper/$MAP" --direct=1 --ioengine=libaio \
		--rw=randrw --rwmixread=50 --bs=4k --iodepth=32 --numjobs=1 \
		--randrepeat=1 --time_based --runtime="$RUNTIME" \
		--percentile_list=50:99:99.9 --write_lat_log="/tmp/$tag" --log_avg_msec=0 \
		--output-format=json --output="/tmp/$tag.json" >/dev/null 2>"/tmp/$tag.err" &
	fio_pid=$!
	# Path A's state once a second (guest clock), "t_us:STATE:FAILS".
	while kill -0 "$fio_pid" 2>/dev/null; do
		st=$(path_field "$NUMA")
		states+="$((${EPOCHREALTIME/./} - t0)):${st/ /:},"
		bsleep 1
	done
	wait "$fio_pid"
	rc=$?
	b1=$(cpu_busy_ticks) t1=${EPOCHREALTIME/./}
	echo 0 >$TRACE/tracing_on
	check "$impl: path A's layer linear again" \
		pair_layer_table A "0 $SIZE linear /dev/nbflaky 0"
	ev1=$(map_events)
	read -r _ fa1 <<<"$(path_field "$NUMA")"
	read -r _ fb1 <<<"$(path_field "$NUMB")"
	# The error completions, kept: multipathd's marginal-path sampling
	# reads path A itself (O_DIRECT, at offset 0), and those errors are
	# no retried I/O of the map's; counted apart (sector 0).
	grep "block_rq_complete" $TRACE/trace | gzip -1 >"$BENCH_OUT/raw/${tag}_errors.trace.gz"
	ta=$(grep " ${NUMA/:/,} " $TRACE/trace | grep -vc "() 0 + ")
	tb=$(grep " ${NUMB/:/,} " $TRACE/trace | grep -vc "() 0 + ")
	ta0=$(grep " ${NUMA/:/,} " $TRACE/trace | grep -c "() 0 + ")
	ia1=$(ioerr "$SDA") ib1=$(ioerr "$SDB")
	# Ours also counts them per path (debugfs, since the table's load).
	dbg=$(our_errors "$NUMA")
	cp "/tmp/$tag.json" "$BENCH_OUT/raw/$tag.json" 2>/dev/null
	gzip -1 -c "/tmp/${tag}_clat.1.log" >"$BENCH_OUT/raw/${tag}_clat.log.gz" 2>/dev/null
	rm -f /tmp/"${tag}"_*.log
	grep -E 'marginal|io_err|delay|reinstat|fail' "$MPD_LOG" | tail -n 12 | sed 's/^/# mpd: /'
	echo 0 >$TRACE/events/block/block_rq_complete/enable
	echo 0 >$TRACE/events/block/block_rq_complete/filter
	if [ $rc != 0 ]; then
		tap_fail "$impl: fio rc=$rc (an I/O error reached the application?)" \
			"$(tail -n 3 "/tmp/$tag.err")"
		record suite=flaky "impl=$impl" ok=0
	else
		tap_ok "$impl: ${RUNTIME}s of fio, no error reached it"
		record suite=flaky "impl=$impl" ok=1 "ver=$MP_VERSION" "runtime=$RUNTIME" \
			"up=$UP" "down=$DOWN" "lat_us=$LAT_US" "fio=raw/$tag.json" \
			"clat=raw/${tag}_clat.log.gz" "events=$((ev1 - ev0))" \
			"fails_a=$((fa1 - fa0))" "fails_b=$((fb1 - fb0))" \
			"rqerr_a=$ta" "rqerr_b=$tb" "rqerr_a_sector0=$ta0" "ioerr_a=$((ia1 - ia0))" "ioerr_b=$((ib1 - ib0))" "our_errors_a=${dbg:--}" \
			"busy_ticks=$((b1 - b0))" "elapsed_us=$((t1 - t0))" \
			"table=$(dmsetup table "$MAP" | tr ' ' _)" "states=${states%,}"
	fi
	diag "$impl: events $((ev1 - ev0)), path A failed $((fa1 - fa0))x, errors on A $ta (B $tb), ioerr A $((ia1 - ia0))"
	diag "$impl status: $(dmsetup status "$MAP")"
	mpd_stop
	multipath -F >/dev/null 2>&1
	dm_remove "$MAP"
	check_fail "$impl: map removed" dmsetup info "$MAP"
}

# Grouped by module (both register "multipath"): the distro's, then ours.
for impl in $IMPLS; do
	run_config "$impl" || tap_fail "$impl: not measured"
done

mpd_stop
mpd_conf_remove
check "paths removed" lio_pair_down
check "null_blk removed" nullb_down
check "udevd stopped" udevd_stop
check "multipath modules unloaded" mods_unload
