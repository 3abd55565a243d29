# shellcheck shell=bash
# The paths of the scale benchmarks (bench/cases/800-scale.sh, 810-scale-
# multipathd.sh): scsi_debug with HOSTS hosts (adapters), each with the
# same targets and LUNs (num_tgts x max_luns, at most 256 LUNs per target):
# vpd_use_hostno=0 gives LUN (t, l) the same WWID and the same RAM store on
# every host, so LUN k on hosts 0..HOSTS-1 are the paths of map k, 50 us
# per command from a timer. Sourced after tests/lib/common.sh and
# bench/lib/bench.sh.

# scale_choose QUICK_NS FULL_NS "DEFAULT_IMPLS" "KNOWN_IMPLS": sets NS (the
# ns knob, else QUICK_NS in a --quick run, FULL_NS otherwise) and IMPLS
# (those of KNOWN_IMPLS that --only names, else DEFAULT_IMPLS).
scale_choose() {
	local impl
	if [ "$BENCH_QUICK" = 1 ]; then NS=$(bench_param ns "$1"); else NS=$(bench_param ns "$2"); fi
	IMPLS=""
	if [ -z "$BENCH_ONLY" ]; then
		IMPLS=$3
	else
		for impl in $4; do impl_wanted "$impl" && IMPLS+=" $impl"; done
		IMPLS=${IMPLS# }
	fi
}

# paths_in_state STATE [MAP_RE]: how many paths of the multipath maps whose
# name matches MAP_RE (default: every map) dmsetup status shows in STATE
# (A: active, F: failed).
paths_in_state() {
	dmsetup status --target multipath | awk -v st="$1" -v re="${2:-.}" '
		$1 ~ re { for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+:[0-9]+$/ && $(i + 1) == st) n++ }
		END { print n + 0 }'
}

# scale_paths_up HOSTS MAXN: the disks of MAXN LUNs on every host. Sets
# TGTS, LUNS, SIZE (sectors), PD[h * MAXN + k] (the kernel name of LUN k,
# target-major order, on host h) and DN[...] (its MAJ:MIN), from sysfs
# alone: no fork per path. scsi_debug is removed at exit.
scale_paths_up() {
	local hosts=$1 maxn=$2 t0 want d hctl t l a h k s
	if ((maxn <= 256)); then TGTS=1 LUNS=$maxn; else TGTS=$(((maxn + 255) / 256)) LUNS=256; fi
	SCALE_MAXN=$maxn
	modprobe sd_mod
	t0=$EPOCHREALTIME
	check "scsi_debug: $hosts hosts x $TGTS targets x $LUNS LUNs" modprobe scsi_debug \
		add_host="$hosts" num_tgts=$TGTS max_luns=$LUNS vpd_use_hostno=0 dev_size_mb=64 \
		ndelay=50000 || return 1
	on_exit sdebug_down
	want=$((hosts * TGTS * LUNS))
	wait_until 1800 eval '[ "$(_scale_disks)" -ge $want ]' ||
		{ tap_fail "only $(_scale_disks) of $want disks"; return 1; }
	tap_ok "$want scsi_debug disks up"
	diag "scan took $(((${EPOCHREALTIME/./} - ${t0/./}) / 1000)) ms (guest clock)"
	declare -ga PD DN
	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		hctl=${d%/block/*}
		hctl=${hctl##*/}
		IFS=: read -r _ _ t l <<<"$hctl"
		a=${d#*/adapter}
		h=${a%%/*}
		k=$((t * LUNS + l))
		((k < maxn)) || continue
		s=${d##*/}
		PD[h * maxn + k]=$s
		read -r "DN[$((h * maxn + k))]" <"/sys/block/$s/dev"
		wait_until 10 test -b "/dev/$s" || { tap_fail "/dev/$s"; return 1; }
	done
	for ((h = 0; h < hosts; h++)); do
		for ((k = 0; k < maxn; k++)); do
			[ -n "${PD[h * maxn + k]:-}" ] || { tap_fail "no disk for LUN $k on host $h"; return 1; }
		done
	done
	read -r SIZE <"/sys/block/${PD[0]}/size"
	tap_ok "paths of $maxn maps found on $hosts hosts"
}
_scale_disks() {
	local d n=0
	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$d" ] && n=$((n + 1))
	done
	echo $n
}

# set_state HOST N STATE: the SCSI device state of every path of host HOST
# to the first N maps (offline: every command fails at once; running).
set_state() {
	local h=$1 n=$2 st=$3 k
	for ((k = 0; k < n; k++)); do echo "$st" >"/sys/block/${PD[h * SCALE_MAXN + k]}/device/state"; done
}

# The kernel's own times, free of the polls' cost (each poll is a dmsetup
# and an awk process: ~0.2 s of guest time at N=16 under the storm's I/O,
# coarser than the storm itself). klog_mark TEXT writes a marker to the
# kernel log just before a phase; klog_span TEXT REGEX prints "US COUNT
# FIRST_US": the printk time from that marker to the last line after it
# matching REGEX (the targets log "Failing path" / "Reinstating path" for
# every path, ours and the distro's alike), how many matched, and the time
# from the marker to the first of them (so last - first is the span of the
# targets' work once it began: for the restore, free of the message
# helper's start); "- 0 -" without the marker.
klog_mark() { echo "mpbench-storm $1" >/dev/kmsg; }
klog_span() {
	dmesg | awk -v m="mpbench-storm $1" -v re="$2" '
		function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l }
		index($0, m) { t0 = ts($0); seen = 1; done = 0; n = 0; t1 = t0; tf = t0; next }
		seen && index($0, "mpbench-storm ") { done = 1 }
		seen && !done && $0 ~ re { t1 = ts($0); if (!n) tf = t1; n++ }
		END {
			if (seen) printf "%.0f %d %.0f\n", (t1 - t0) * 1000000, n, (tf - t0) * 1000000
			else print "- 0 -"
		}'
}

# ---- the storm's I/O --------------------------------------------------------
# storm_io_start TAG MAPDEV...: light I/O on every map and verified I/O on a
# sample of them (up to SAMPLE maps, spread over the list), until
# storm_io_stop TAG; returns once reads flow on the last map and the first
# sample map. Sets STORM_IO_US (guest clock from the start until then),
# STORM_LIGHT_IOPS, STORM_SAMPLE_IOPS, STORM_SAMPLE_MAPS; on failure
# STORM_IO_WHY.
# One job per map (threads of one fio). --disk_util=0 in both fio runs:
# fio's disk statistics look up each file's device, and each dm device's
# slaves, in sysfs for every job, which cost minutes of CPU before the
# first I/O with N maps x 4 paths (without it the storm's light I/O never
# started at N=16 under icount; with it, the storm runs: see
# Documentation/benchmark-matrix-scale.rst).
# Light I/O: LIGHT_IOPS a map, at most light_total (default 800: 50 a map
# at N=16) in all; the sample's verified I/O: sample_iops a job (50). Both
# rate-limited so that the guest's one CPU is not saturated: under icount
# an idle guest's clock leaps to its next timer at no cost, while a busy
# guest second costs tens of wall seconds on a loaded host. At larger N
# each map then carries fewer I/Os, and a map fails a path only at its next
# I/O to it: the storm times include that wait (unless multipathd's
# checker comes first).
# Poisson arrivals: with fio's default (linear) rate every job issued at the
# same ticks, every map's round-robin was at the same place, and a storm
# time was a whole number of ticks set by the selector's order after a
# failure (N=256, 3 IOPS a map: ~1 s for ours, ~0.37 s for the distro's,
# in the half phase), not by the targets' cost.
storm_io_start() {
	local tag=$1 t0 k i n largs=() sargs=() ns=$SAMPLE
	shift
	n=$#
	STORM_SAMPLE_IOPS=$(bench_param sample_iops 50)
	STORM_LIGHT_IOPS=$(($(bench_param light_total 800) / n))
	((STORM_LIGHT_IOPS > LIGHT_IOPS)) && STORM_LIGHT_IOPS=$LIGHT_IOPS
	((STORM_LIGHT_IOPS < 1)) && STORM_LIGHT_IOPS=1
	t0=${EPOCHREALTIME/./}
	for ((k = 1; k <= n; k++)); do largs+=("--name=light$((k - 1))" "--filename=${!k}"); done
	fio --thread --disk_util=0 --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=1 \
		--rate_iops=$STORM_LIGHT_IOPS --rate_process=poisson --time_based --runtime=36000 \
		--group_reporting --output-format=json --output="/tmp/${tag}_light.json" "${largs[@]}" \
		>/dev/null 2>"/tmp/${tag}_light.err" &
	_STORM_LIGHT_PID=$!
	((ns > n)) && ns=$n
	STORM_SAMPLE_MAPS=$ns
	for ((i = 0; i < ns; i++)); do
		k=$((i * n / ns + 1))
		sargs+=("--name=verified$((k - 1))" "--filename=${!k}" "--offset=$((i * 4))M")
	done
	fio --disk_util=0 --direct=1 --ioengine=libaio --rw=randwrite --bs=4k --iodepth=1 --size=4M \
		--rate_iops="$STORM_SAMPLE_IOPS" \
		--verify=crc32c --verify_backlog=16 --verify_fatal=1 --time_based \
		--runtime=36000 --output-format=json --output="/tmp/${tag}_sample.json" \
		"${sargs[@]}" >/dev/null 2>"/tmp/${tag}_sample.err" &
	_STORM_SAMPLE_PID=$!
	if ! reads_flowing "$(kname "${!n}")" 20 "$_STORM_LIGHT_PID" ||
		! reads_flowing "$(kname "$1")" 100 "$_STORM_SAMPLE_PID"; then
		STORM_IO_WHY="I/O did not start: $(tail -n 3 "/tmp/${tag}_sample.err" "/tmp/${tag}_light.err")"
		kill -9 "$_STORM_LIGHT_PID" "$_STORM_SAMPLE_PID" 2>/dev/null
		wait "$_STORM_LIGHT_PID" "$_STORM_SAMPLE_PID"
		return 1
	fi
	STORM_IO_US=$((${EPOCHREALTIME/./} - t0))
	bsleep 1
	if ! kill -0 "$_STORM_LIGHT_PID" 2>/dev/null ||
		[[ $(<"/proc/$_STORM_LIGHT_PID/stat") == *") Z "* ]]; then
		STORM_IO_WHY="the light I/O on every map stopped: $(tail -n 5 "/tmp/${tag}_light.err")"
		kill -9 "$_STORM_SAMPLE_PID" 2>/dev/null
		wait "$_STORM_LIGHT_PID" "$_STORM_SAMPLE_PID"
		return 1
	fi
}
# storm_io_stop TAG: both fio runs stopped, their JSON and stderr kept in
# $BENCH_OUT/raw/ (the analysis reads the I/O errors and the sample's
# longest I/O there); 1 if fio failed (STORM_IO_WHY).
storm_io_stop() {
	local tag=$1 a b s
	STORM_IO_WHY=""
	kill -INT "$_STORM_LIGHT_PID" "$_STORM_SAMPLE_PID"
	wait "$_STORM_LIGHT_PID"
	a=$?
	wait "$_STORM_SAMPLE_PID"
	b=$?
	cp "/tmp/${tag}_light.json" "/tmp/${tag}_sample.json" \
		"/tmp/${tag}_light.err" "/tmp/${tag}_sample.err" "$BENCH_OUT/raw/" 2>/dev/null
	# fio exits 0, 128 or 130 after a SIGINT; its own error fields must be 0.
	for s in "light:$a" "sample:$b"; do
		case ${s#*:} in
		0 | 128 | 130) ;;
		*) STORM_IO_WHY+="fio ${s%%:*} rc=${s#*:}: $(tail -n 3 "/tmp/${tag}_${s%%:*}.err") " ;;
		esac
	done
	[ -z "$STORM_IO_WHY" ]
}
