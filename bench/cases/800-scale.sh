#!/bin/bash
# Scale: N maps x 4 paths, ours against the distro's bio-based and
# request-based targets (one PG of 4 paths, round-robin repeat_count 1 by
# default: see below), in one boot. scsi_debug with 4 hosts (adapters), each
# with the same targets and LUNs (num_tgts x max_luns, at most 256 LUNs per
# target here): vpd_use_hostno=0 gives LUN (t, l) the same WWID and the same
# RAM store on every host, as sdebug_up does for one LUN; map k's paths are
# LUN k on hosts 0..3 (50 us per command from a timer). For each N:
#   memory   /proc/meminfo (Slab, SUnreclaim, Percpu, VmallocUsed), the sum
#            of /proc/vmallocinfo and a /proc/slabinfo copy before and after
#            loading N maps of 2 paths, then N maps of 4 (per path = the
#            difference; per map = the rest)
#   load     one `dmsetup create --concise` of all N maps (create, load,
#            resume each), its time; then removal
#   storm    fio 4k random reads on every map (queue depth 1, 200 IOPS
#            each: light) and, on a sample of up to 4 maps,
#            4k random writes at queue depth 1, each read back and checked
#            (crc32c); then host 0's paths (a quarter) go offline at once,
#            then host 1's (half): the time until `dmsetup status` shows
#            all of them failed in every map, the dm events raised (event_nr
#            deltas); then both hosts running again and every failed path
#            reinstated by message: the time until no map has a failed
#            path. The sample's longest I/O (QD 1: the longest stall the
#            application saw) and every I/O error come from fio's JSON.
# A map sees a path fail only when I/O to it fails: the light I/O is what
# fails them (there is no multipathd here). So every path must carry I/O:
# round-robin 1 sends each map's I/Os to its paths in turn. A selector that
# chooses by load (service-time, multipathd's default: --only
# ours-st,distro-st,distro-rq-st) sees only ties at one I/O in flight per
# map, and whether every path then gets I/O is up to its tie-break.
# bench/analyze-scale writes scale.md and scale-*.png.
#
#   MEM=3072 bench/run-bench --modes icount --cases 800 --out bench/out-scale
#   ... --quick: N=16 only, no storm.  Knobs (run-bench --param
#   NAME=V1,V2): storm (0: none; 1, the default without --quick: run it), ns
#   (16,64,256; 1024 needs MEM=4096 or more); --only IMPL,... of
#   ours-r1,distro-bio,distro-rq (the default three) and
#   ours-st,distro-st,distro-rq-st.
# timeout: 40000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"

if [ "$BENCH_QUICK" = 1 ]; then
	NS=$(bench_param ns 16)
else
	NS=$(bench_param ns "16 64 256")
fi
IMPLS=""
if [ -z "$BENCH_ONLY" ]; then
	IMPLS="ours-r1 distro-bio distro-rq"
else
	for impl in ours-r1 distro-bio distro-rq ours-st distro-st distro-rq-st; do
		impl_wanted "$impl" && IMPLS+=" $impl"
	done
fi
IMPLS=${IMPLS# }
HOSTS=4 SAMPLE=4 LIGHT_IOPS=200	# per map, queue depth 1
# The storm: on by default, off in the --quick smoke run (its I/O makes
# each guest second cost tens of wall seconds under icount).
STORM=$(bench_param storm $((1 - BENCH_QUICK)))
STORM_LIMIT_S=10	# guest seconds: a phase not complete by then is reported so
maxn=0
for n in $NS; do ((n > maxn)) && maxn=$n; done
if ((maxn <= 256)); then TGTS=1 LUNS=$maxn; else TGTS=$(((maxn + 255) / 256)) LUNS=256; fi
diag "mode=$BENCH_MODE quick=$BENCH_QUICK ns=$NS impls=$IMPLS hosts=$HOSTS targets=$TGTS luns=$LUNS"

# ---- the paths ----------------------------------------------------------
modprobe sd_mod
t0=$EPOCHREALTIME
check "scsi_debug: $HOSTS hosts x $TGTS targets x $LUNS LUNs" modprobe scsi_debug \
	add_host=$HOSTS num_tgts=$TGTS max_luns=$LUNS vpd_use_hostno=0 dev_size_mb=64 \
	ndelay=50000 || exit 1
on_exit sdebug_down
sd_disks() { local d n=0; for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do [ -e "$d" ] && n=$((n + 1)); done; echo $n; }
want=$((HOSTS * TGTS * LUNS))
wait_until 1800 eval '[ "$(sd_disks)" -ge $want ]' || { tap_fail "only $(sd_disks) of $want disks"; exit 1; }
tap_ok "$want scsi_debug disks up"
diag "scan took $(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 )) ms (guest clock)"
# PD[h * maxn + k]: kernel name of LUN k (target-major order) on host h;
# DN[...]: its MAJ:MIN. From sysfs alone: no fork per path.
declare -a PD DN
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
	wait_until 10 test -b "/dev/$s" || { tap_fail "/dev/$s"; exit 1; }
done
for ((h = 0; h < HOSTS; h++)); do
	for ((k = 0; k < maxn; k++)); do
		[ -n "${PD[h * maxn + k]:-}" ] || { tap_fail "no disk for LUN $k on host $h"; exit 1; }
	done
done
read -r SIZE <"/sys/block/${PD[0]}/size"
tap_ok "paths of $maxn maps found on $HOSTS hosts"

# ---- maps -----------------------------------------------------------------
# map_table IMPL NPATHS K: the table of map K over its first NPATHS paths,
# in the grammar impl_table (bench.sh) writes for these impls.
map_table() {
	local impl=$1 np=$2 k=$3 h feat sel args paths=""
	case $impl in
	ours-r1 | ours-st | distro-rq | distro-rq-st) feat="0" ;;
	distro-bio | distro-st) feat="2 queue_mode bio" ;;
	*) return 1 ;;
	esac
	case $impl in
	*-st) sel="service-time 0 $np 2" args="1 1" ;;
	*) sel="round-robin 0 $np 1" args=1 ;;
	esac
	for ((h = 0; h < np; h++)); do paths+=" ${DN[h * maxn + k]} $args"; done
	echo "0 $SIZE multipath $feat 0 1 1 $sel$paths"
}
# maps_create IMPL NPATHS N: all N maps in one dmsetup process; sets
# CREATE_US (guest clock).
maps_create() {
	local impl=$1 np=$2 n=$3 k spec="" t0 t1 rc
	for ((k = 0; k < n; k++)); do spec+="bench-s$k,,,,$(map_table "$impl" "$np" "$k");"; done
	printf '%s' "${spec%;}" >/tmp/scale.concise
	t0=$EPOCHREALTIME
	dmsetup create --concise </tmp/scale.concise
	rc=$?
	t1=$EPOCHREALTIME
	CREATE_US=$((${t1/./} - ${t0/./}))
	dmsetup mknodes >/dev/null 2>&1
	return $rc
}
# maps_remove: every bench-s map; sets REMOVE_US.
maps_remove() {
	local t0 t1 rc
	t0=$EPOCHREALTIME
	dmsetup remove_all
	rc=$?
	t1=$EPOCHREALTIME
	REMOVE_US=$((${t1/./} - ${t0/./}))
	return $rc
}
# mem_snap: kernel memory counters (kB) as "slab,sunreclaim,percpu,vmalloc_used,vmallocinfo"
mem_snap() {
	local k v _u slab=0 sun=0 pcpu=0 vm=0 vi=0 l f
	while read -r k v _u; do
		case $k in
		Slab:) slab=$v ;;
		SUnreclaim:) sun=$v ;;
		Percpu:) pcpu=$v ;;
		VmallocUsed:) vm=$v ;;
		esac
	done </proc/meminfo
	while read -r _ f l; do vi=$((vi + f)); done </proc/vmallocinfo
	echo "$slab,$sun,$pcpu,$vm,$((vi / 1024))"
}
# mem_settle: let deferred frees (RCU, workqueues) finish before a sample.
mem_settle() { bsleep 1; }

# failed_paths: failed paths over all bench-s maps (dmsetup status).
failed_paths() {
	dmsetup status | awk '$1 ~ /^bench-s/ { for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+:[0-9]+$/ && $(i + 1) == "F") n++ } END { print n + 0 }'
}
events_sum() {
	dmsetup info -c --noheadings -o name,events --separator ' ' |
		awk '$1 ~ /^bench-s/ { n += $2 } END { print n + 0 }'
}
# wait_failed TARGET: poll until failed_paths is TARGET; sets WAIT_US from
# START (guest clock, µs) and POLLS; 1 if STORM_LIMIT_S passed first.
wait_failed() {
	local target=$1 c t
	POLLS=0
	while :; do
		c=$(failed_paths)
		POLLS=$((POLLS + 1))
		t=${EPOCHREALTIME/./}
		WAIT_US=$((t - START))
		LAST_FAILED=$c
		[ "$c" = "$target" ] && return 0
		((WAIT_US > ${LIMIT_US:-$((STORM_LIMIT_S * 1000000))})) && return 1
		bsleep 0.01
	done
}
set_state() { # set_state HOST N STATE: every path of host HOST to N maps
	local h=$1 n=$2 st=$3 k
	for ((k = 0; k < n; k++)); do echo "$st" >"/sys/block/${PD[h * maxn + k]}/device/state"; done
}
# The kernel's own times, free of the polls' cost (each poll is a dmsetup
# and an awk process: ~0.2 s of guest time at N=16 under the storm's I/O,
# coarser than the storm itself). klog_mark TEXT writes a marker to the
# kernel log just before a phase; klog_span TEXT REGEX prints "US COUNT":
# the printk time from that marker to the last line after it matching REGEX
# (the targets log "Failing path" / "Reinstating path" for every path, ours
# and the distro's alike), and how many matched; "- 0" without the marker.
klog_mark() { echo "mpbench-storm $1" >/dev/kmsg; }
klog_span() {
	dmesg | awk -v m="mpbench-storm $1" -v re="$2" '
		function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l }
		index($0, m) { t0 = ts($0); seen = 1; done = 0; n = 0; t1 = t0; next }
		seen && index($0, "mpbench-storm ") { done = 1 }
		seen && !done && $0 ~ re { t1 = ts($0); n++ }
		END { if (seen) printf "%.0f %d\n", (t1 - t0) * 1000000, n; else print "- 0" }'
}

# storm IMPL N: I/O on every map, the quarter and half failures, the
# restore; one record.
storm() {
	local impl=$1 n=$2 k i s ok=1 light_pid sample_pid tag=scale_${1}_$2
	local e0 e1 e2 e3 q_us h_us r_msgs_us r_us q_polls h_polls r_polls a b
	local kq_us kq_n kh_us kh_n kr_us kr_n io_us t_io
	# One job per map (threads of one fio). --disk_util=0 in both fio
	# runs: fio's disk statistics look up each file's device, and each dm
	# device's slaves, in sysfs for every job, which cost minutes of CPU
	# before the first I/O with N maps x 4 paths (without it the storm's
	# light I/O never started at N=16 under icount; with it, the storm
	# runs: see Documentation/benchmark-matrix-scale.rst).
	# Light I/O: LIGHT_IOPS a map, at most light_total (default 800: 50 a
	# map at N=16) in all; the sample's verified I/O: sample_iops a job (50).
	# Both rate-limited so that the guest's one CPU is not saturated: under
	# icount an idle guest's clock leaps to its next timer at no cost,
	# while a busy guest second costs tens of wall seconds on a loaded
	# host. At larger N each map then carries fewer I/Os, and a map fails a
	# path only at its next I/O to it: the times below include that wait.
	# Poisson arrivals: with fio's default (linear) rate every job issued at
	# the same ticks, every map's round-robin was at the same place, and a
	# storm time was a whole number of ticks set by the selector's order
	# after a failure (N=256, 3 IOPS a map: ~1 s for ours, ~0.37 s for the
	# distro's, in the half phase), not by the targets' cost.
	local largs=() rate total srate
	total=$(bench_param light_total 800)
	srate=$(bench_param sample_iops 50)
	rate=$((total / n))
	((rate > LIGHT_IOPS)) && rate=$LIGHT_IOPS
	((rate < 1)) && rate=1
	t_io=${EPOCHREALTIME/./}
	for ((k = 0; k < n; k++)); do largs+=("--name=light$k" "--filename=/dev/mapper/bench-s$k"); done
	fio --thread --disk_util=0 --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=1 \
		--rate_iops=$rate --rate_process=poisson --time_based --runtime=36000 --group_reporting \
		--output-format=json --output="/tmp/${tag}_light.json" "${largs[@]}" \
		>/dev/null 2>"/tmp/${tag}_light.err" &
	light_pid=$!
	local sargs=() ns=$SAMPLE
	((ns > n)) && ns=$n
	for ((i = 0; i < ns; i++)); do
		k=$((i * n / ns))
		sargs+=("--name=verified$k" "--filename=/dev/mapper/bench-s$k"
			"--offset=$((i * 4))M")
	done
	fio --disk_util=0 --direct=1 --ioengine=libaio --rw=randwrite --bs=4k --iodepth=1 --size=4M \
		--rate_iops="$srate" \
		--verify=crc32c --verify_backlog=16 --verify_fatal=1 --time_based \
		--runtime=36000 --output-format=json --output="/tmp/${tag}_sample.json" \
		"${sargs[@]}" >/dev/null 2>"/tmp/${tag}_sample.err" &
	sample_pid=$!
	if ! reads_flowing "$(kname "/dev/mapper/bench-s$((n - 1))")" 20 "$light_pid" ||
		! reads_flowing "$(kname /dev/mapper/bench-s0)" 100 "$sample_pid"; then
		tap_fail "$impl N=$n: I/O did not start" "$(tail -n 3 "/tmp/${tag}_sample.err" "/tmp/${tag}_light.err")"
		kill -9 "$light_pid" "$sample_pid" 2>/dev/null
		wait "$light_pid" "$sample_pid"
		return 1
	fi
	io_us=$((${EPOCHREALTIME/./} - t_io))
	progress "scale $impl N=$n: I/O flowing after $io_us us"
	bsleep 1
	if ! kill -0 "$light_pid" 2>/dev/null || [[ $(<"/proc/$light_pid/stat") == *") Z "* ]]; then
		tap_fail "$impl N=$n: the light I/O on every map stopped" "$(tail -n 5 "/tmp/${tag}_light.err")"
		kill -9 "$sample_pid" 2>/dev/null
		wait "$light_pid" "$sample_pid"
		return 1
	fi
	e0=$(events_sum)
	progress "scale $impl N=$n: host 0 offline"
	klog_mark "$tag quarter"
	START=${EPOCHREALTIME/./}
	set_state 0 "$n" offline
	wait_failed "$n" || { tap_fail "$impl N=$n: quarter: $LAST_FAILED of $n paths failed after ${STORM_LIMIT_S}s"; ok=0; }
	q_us=$WAIT_US q_polls=$POLLS
	read -r kq_us kq_n < <(klog_span "$tag quarter" "Failing path")
	e1=$(events_sum)
	bsleep 1
	progress "scale $impl N=$n: host 1 offline"
	klog_mark "$tag half"
	START=${EPOCHREALTIME/./}
	set_state 1 "$n" offline
	wait_failed $((2 * n)) || { tap_fail "$impl N=$n: half: $LAST_FAILED of $((2 * n)) paths failed after ${STORM_LIMIT_S}s"; ok=0; }
	h_us=$WAIT_US h_polls=$POLLS
	read -r kh_us kh_n < <(klog_span "$tag half" "Failing path")
	e2=$(events_sum)
	bsleep 1
	progress "scale $impl N=$n: restore"
	# Every reinstate_path message from one process (bench/lib/dm-messages:
	# a dmsetup each cost ~0.12 s of guest time under the storm's I/O).
	for ((k = 0; k < n; k++)); do
		for h in 0 1; do echo "bench-s$k reinstate_path ${DN[h * maxn + k]}"; done
	done >/tmp/scale.msgs
	klog_mark "$tag restore"
	START=${EPOCHREALTIME/./}
	set_state 0 "$n" running
	set_state 1 "$n" running
	if ! "$REPO/bench/lib/dm-messages" </tmp/scale.msgs 2>/tmp/scale.msgs.err; then
		# Then one dmsetup each (reinstating an active path is a no-op).
		diag "$impl N=$n: dm-messages failed, dmsetup instead: $(head -n 3 /tmp/scale.msgs.err)"
		while read -r a b; do
			# shellcheck disable=SC2086 # the message's words
			dmsetup message "$a" 0 $b ||
				{ tap_fail "$impl N=$n: $a: $b"; ok=0; }
		done </tmp/scale.msgs
	fi
	r_msgs_us=$((${EPOCHREALTIME/./} - START))
	# The limit counts from the last message: sending 2N of them is user
	# space's time, not the targets'.
	LIMIT_US=$((r_msgs_us + STORM_LIMIT_S * 1000000))
	wait_failed 0 || { tap_fail "$impl N=$n: restore: $LAST_FAILED paths still failed"; ok=0; }
	LIMIT_US=""
	r_us=$WAIT_US r_polls=$POLLS
	read -r kr_us kr_n < <(klog_span "$tag restore" "Reinstating path")
	e3=$(events_sum)
	bsleep 1
	progress "scale $impl N=$n: stop I/O"
	kill -INT "$light_pid" "$sample_pid"
	wait "$light_pid"
	a=$?
	wait "$sample_pid"
	b=$?
	cp "/tmp/${tag}_light.json" "/tmp/${tag}_sample.json" "$BENCH_OUT/raw/" 2>/dev/null
	# fio exits 0, 128 or 130 after a SIGINT; its own error fields must be 0.
	for s in "light:$a" "sample:$b"; do
		case ${s#*:} in 0 | 128 | 130) ;; *) tap_fail "$impl N=$n: fio ${s%%:*} rc=${s#*:}" \
			"$(tail -n 3 "/tmp/${tag}_${s%%:*}.err")"; ok=0 ;; esac
	done
	cp "/tmp/${tag}_light.err" "/tmp/${tag}_sample.err" "$BENCH_OUT/raw/" 2>/dev/null
	[ $ok = 1 ] || dmsetup status >"$BENCH_OUT/raw/${tag}_status.txt"
	record suite=scale-storm "impl=$impl" "ver=$MP_VERSION" "n=$n" "ok=$ok" \
		"quarter_us=$q_us" "quarter_polls=$q_polls" "half_us=$h_us" "half_polls=$h_polls" \
		"restore_msgs_us=$r_msgs_us" "restore_us=$r_us" "restore_polls=$r_polls" \
		"klog_quarter_us=$kq_us" "klog_quarter_n=$kq_n" "klog_half_us=$kh_us" "klog_half_n=$kh_n" \
		"klog_restore_us=$kr_us" "klog_restore_n=$kr_n" "io_start_us=$io_us" \
		"light_iops=$rate" "sample_iops=$srate" \
		"events_quarter=$((e1 - e0))" "events_half=$((e2 - e1))" "events_restore=$((e3 - e2))" \
		"light=raw/${tag}_light.json" "sample=raw/${tag}_sample.json" "sample_maps=$ns"
	[ $ok = 1 ] && tap_ok "$impl N=$n: storm (quarter ${q_us} us, half ${h_us} us, restore ${r_us} us)"
}

# The storm's programs (fio, the message helper's python3, dmesg, awk,
# dmsetup) run once before any figure: a first exec loads them over 9p,
# during which the icount clock leaps, and the first implementation
# measured would pay for it (its I/O start and restore times did: 9.2 s
# against 2.0 s, and 0.55 s against 0.19 s, at N=16).
if [ "$STORM" = 1 ]; then
	fio --disk_util=0 --direct=1 --ioengine=libaio --rw=randwrite --bs=4k --iodepth=1 \
		--size=1M --verify=crc32c --thread --name=warm --filename="/dev/${PD[0]}" \
		--output-format=json >/dev/null 2>&1
	"$REPO/bench/lib/dm-messages" </dev/null 2>/dev/null
	dmesg | awk 'END { }'
	dmsetup status >/dev/null 2>&1
fi

# Every implementation at one N before the next N: a run stopped at its
# deadline still compares them all at the N it finished.
for n in $NS; do
	for impl in $IMPLS; do
		mods_use "$(impl_mods "$impl")" || { tap_fail "$impl: load modules"; continue; }
		# The selector module loaded and dmsetup's files cached before any
		# figure: under icount the clock leaps while the guest waits for
		# the host (module and binary loads over 9p).
		maps_create "$impl" 4 1 && maps_remove || { tap_fail "$impl: a first map"; continue; }
		progress "scale $impl N=$n: 2-path maps"
		mem_settle
		m0=$(mem_snap)
		cat /proc/slabinfo >"$BENCH_OUT/raw/slab_${impl}_${n}_before2.txt"
		maps_create "$impl" 2 "$n" || { tap_fail "$impl N=$n: create 2-path maps"; continue; }
		c2_us=$CREATE_US
		mem_settle
		m2=$(mem_snap)
		cat /proc/slabinfo >"$BENCH_OUT/raw/slab_${impl}_${n}_2p.txt"
		maps_remove || tap_fail "$impl N=$n: remove 2-path maps"
		progress "scale $impl N=$n: 4-path maps"
		mem_settle
		m0b=$(mem_snap)
		cat /proc/slabinfo >"$BENCH_OUT/raw/slab_${impl}_${n}_before.txt"
		maps_create "$impl" 4 "$n" || { tap_fail "$impl N=$n: create 4-path maps"; continue; }
		c4_us=$CREATE_US
		mem_settle
		m4=$(mem_snap)
		cat /proc/slabinfo >"$BENCH_OUT/raw/slab_${impl}_${n}_4p.txt"
		got=$(dmsetup ls | grep -c '^bench-s')
		check_eq "$impl N=$n: $n maps loaded" "$n" "$got"
		record suite=scale-load "impl=$impl" "ver=$MP_VERSION" "n=$n" \
			"create2_us=$c2_us" "create4_us=$c4_us" "mem_before2=$m0" "mem_2p=$m2" \
			"mem_before4=$m0b" "mem_4p=$m4" "slab_before=raw/slab_${impl}_${n}_before.txt" \
			"slab_4p=raw/slab_${impl}_${n}_4p.txt" "slab_2p=raw/slab_${impl}_${n}_2p.txt" \
			"slab_before2=raw/slab_${impl}_${n}_before2.txt"
		[ "$STORM" = 1 ] && storm "$impl" "$n"
		maps_remove || tap_fail "$impl N=$n: remove maps"
		record suite=scale-remove "impl=$impl" "n=$n" "remove4_us=$REMOVE_US"
		tap_ok "$impl N=$n: create ${c4_us} us, remove ${REMOVE_US} us"
	done
done

check "maps removed" dmsetup remove_all
check "multipath modules unloaded" mods_unload
check "scsi_debug removed" sdebug_down
