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
source "$REPO/bench/lib/scale-paths.sh"

scale_choose 16 "16 64 256" "ours-r1 distro-bio distro-rq" \
	"ours-r1 distro-bio distro-rq ours-st distro-st distro-rq-st"
HOSTS=4 SAMPLE=4 LIGHT_IOPS=200	# per map, queue depth 1
# The storm: on by default, off in the --quick smoke run (its I/O makes
# each guest second cost tens of wall seconds under icount).
STORM=$(bench_param storm $((1 - BENCH_QUICK)))
STORM_LIMIT_S=10	# guest seconds: a phase not complete by then is reported so
maxn=0
for n in $NS; do ((n > maxn)) && maxn=$n; done
scale_paths_up $HOSTS "$maxn" || exit 1
diag "mode=$BENCH_MODE quick=$BENCH_QUICK ns=$NS impls=$IMPLS hosts=$HOSTS targets=$TGTS luns=$LUNS"

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

# failed_paths: failed paths over all bench-s maps.
failed_paths() { paths_in_state F '^bench-s'; }
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
# storm IMPL N: I/O on every map, the quarter and half failures, the
# restore; one record.
storm() {
	local impl=$1 n=$2 k ok=1 tag=scale_${1}_$2
	local e0 e1 e2 e3 q_us h_us r_msgs_us r_us q_polls h_polls r_polls a b
	local kq_us kq_n kq_f kh_us kh_n kh_f kr_us kr_n kr_f
	local maps=()
	for ((k = 0; k < n; k++)); do maps+=("/dev/mapper/bench-s$k"); done
	storm_io_start "$tag" "${maps[@]}" || { tap_fail "$impl N=$n: $STORM_IO_WHY"; return 1; }
	progress "scale $impl N=$n: I/O flowing after $STORM_IO_US us"
	e0=$(events_sum)
	progress "scale $impl N=$n: host 0 offline"
	klog_mark "$tag quarter"
	START=${EPOCHREALTIME/./}
	set_state 0 "$n" offline
	wait_failed "$n" || { tap_fail "$impl N=$n: quarter: $LAST_FAILED of $n paths failed after ${STORM_LIMIT_S}s"; ok=0; }
	q_us=$WAIT_US q_polls=$POLLS
	read -r kq_us kq_n kq_f < <(klog_span "$tag quarter" "Failing path")
	e1=$(events_sum)
	bsleep 1
	progress "scale $impl N=$n: host 1 offline"
	klog_mark "$tag half"
	START=${EPOCHREALTIME/./}
	set_state 1 "$n" offline
	wait_failed $((2 * n)) || { tap_fail "$impl N=$n: half: $LAST_FAILED of $((2 * n)) paths failed after ${STORM_LIMIT_S}s"; ok=0; }
	h_us=$WAIT_US h_polls=$POLLS
	read -r kh_us kh_n kh_f < <(klog_span "$tag half" "Failing path")
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
	read -r kr_us kr_n kr_f < <(klog_span "$tag restore" "Reinstating path")
	e3=$(events_sum)
	bsleep 1
	progress "scale $impl N=$n: stop I/O"
	storm_io_stop "$tag" || { tap_fail "$impl N=$n: $STORM_IO_WHY"; ok=0; }
	[ $ok = 1 ] || dmsetup status >"$BENCH_OUT/raw/${tag}_status.txt"
	record suite=scale-storm "impl=$impl" "ver=$MP_VERSION" "n=$n" "ok=$ok" \
		"quarter_us=$q_us" "quarter_polls=$q_polls" "half_us=$h_us" "half_polls=$h_polls" \
		"restore_msgs_us=$r_msgs_us" "restore_us=$r_us" "restore_polls=$r_polls" \
		"klog_quarter_us=$kq_us" "klog_quarter_n=$kq_n" "klog_half_us=$kh_us" "klog_half_n=$kh_n" \
		"klog_restore_us=$kr_us" "klog_restore_n=$kr_n" "io_start_us=$STORM_IO_US" \
		"klog_quarter_first_us=$kq_f" "klog_half_first_us=$kh_f" "klog_restore_first_us=$kr_f" \
		"light_iops=$STORM_LIGHT_IOPS" "sample_iops=$STORM_SAMPLE_IOPS" \
		"events_quarter=$((e1 - e0))" "events_half=$((e2 - e1))" "events_restore=$((e3 - e2))" \
		"light=raw/${tag}_light.json" "sample=raw/${tag}_sample.json" "sample_maps=$STORM_SAMPLE_MAPS"
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
