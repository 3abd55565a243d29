#!/bin/bash
# Scale under multipathd 0.9.4: N maps x 4 paths made and managed by multipathd, ours against the distro's target, one boot.
# The paths of bench/cases/800-scale.sh (bench/lib/scale-paths.sh: scsi_debug,
# 4 hosts sharing every LUN), run the stock way: the kernel's scsi_dh_alua
# attached at scan (scsi_debug reports ALUA, so multipathd writes "1 alua"),
# systemd-udevd running (multipathd takes a path's WWID from the udev
# database), and multipathd
# with a stock configuration but for the blacklist (only scsi_debug) and
# path_grouping_policy group_by_prio (an ALUA array's PGs: the default,
# failover, would give each path a PG of its own), its default selector
# service-time 0. scsi_debug reports each host's port group in an ALUA
# state of its own (with vpd_use_hostno=0: the SCSI host number mod 3,
# active/optimized, active/non-optimized or standby), so a map's paths
# fall into PGs by prio, one of them standby; a host's paths going
# offline are failed by the I/O where its PG is in use, by multipathd's
# checker elsewhere. A PG with the standby port and others in it
# (multibus) would make
# both targets fail and reinstate that path over and over: scsi_dh_alua
# refuses I/O to a standby port and multipathd's TUR finds it up. It
# writes no queue_mode, so the distro's maps are request-based, as on any
# Debian system. For each N and target (ours-mpd, distro-mpd):
#   start    multipathd started with the N x 4 paths present: the time
#            until every map exists with 4 active paths (all of its
#            startup: discovery, table loads, udev's work for the maps).
#            Every path was claimed once before (claim_paths), so this is
#            multipathd's restart: the same udev work for both targets
#   checker  multipathd's own CPU time (utime + stime from /proc) over
#            CHECK_S quiet seconds: what its path checkers cost at N x 4
#            paths, at the default polling_interval (5 s)
#   storm    light I/O on every map and verified I/O on a sample
#            (storm_io_start), then host 0's paths offline at once
#            (quarter), then host 1's (half): from a kernel log marker to
#            the last of the N "Failing path" lines of each phase (the I/O
#            or multipathd's checker fails each path, whichever comes
#            first); then both hosts running again: the time until
#            multipathd's checkers have reinstated all 2N paths (the 2N
#            "Reinstating path" lines). I/O errors (must be 0) and the
#            sample's longest I/O come from fio's JSON.
# The times are those of the whole stack (multipathd's checker interval,
# udev, the target), which is what an admin sees; the target's own share
# is in bench/cases/800-scale.sh. bench/analyze-scale-mpathd writes
# scale-mpathd.md.
#
#   MEM=3072 bench/run-bench --modes icount --cases 810 --out bench/out-scale-mpathd
#   ... --quick: N=16 only.  Knobs (run-bench --param NAME=V1,V2): ns (16,64),
#   light_total, sample_iops (as 800); --only ours-mpd,distro-mpd.
# timeout: 40000
source "$REPO/tests/lib/common.sh"
source "$REPO/bench/lib/bench.sh"
source "$REPO/bench/lib/scale-paths.sh"
source "$REPO/tests/lib/multipathd.sh"

scale_choose 16 "16 64" "ours-mpd distro-mpd" "ours-mpd distro-mpd"
HOSTS=4 SAMPLE=4 LIGHT_IOPS=200
CHECK_S=30		# guest seconds of checker load measured
LIMIT_S=300		# guest seconds a phase may take before it is reported so
maxn=0
for n in $NS; do ((n > maxn)) && maxn=$n; done
diag "mode=$BENCH_MODE quick=$BENCH_QUICK ns=$NS impls=$IMPLS hosts=$HOSTS"

check "no multipathd left running" eval '! mpd_running' || mpd_stop
# At exit, in reverse order: multipathd and its maps, scsi_debug, udevd
# and the kernel's ALUA handler.
on_exit "udevd_stop; mpd_conf_remove; scsi_dh_block scsi_dh_alua"
# The stock way: scsi_dh_alua loaded before the disks appear (an initramfs
# does), so it attaches to them at scan. scsi_debug reports ALUA (TPGS), so
# multipathd writes "1 alua": Linux's target needs the handler attached
# (or loadable), ours serves it with dm-alua beside the attached one.
check "the kernel's scsi_dh_alua loaded" scsi_dh_allow scsi_dh_alua || exit 1
# udevd first: its trigger (in udevd_start) and the scsi_debug disks'
# own add events then fill the udev database multipathd reads.
udevd_start
check "systemd-udevd started" udevd_running || exit 1
scale_paths_up $HOSTS "$maxn" || exit 1
on_exit "mpd_stop; dmsetup remove_all"
t0=${EPOCHREALTIME/./}
check "udev has processed the $((HOSTS * maxn)) paths" udevadm settle --timeout=3600
diag "udev settle: $(((${EPOCHREALTIME/./} - t0) / 1000)) ms (guest clock)"
# WWID[k]: LUN k's WWID as multipathd takes it (uid_attribute ID_SERIAL
# from the udev database), which names its map (no friendly names).
declare -a WWID
for ((k = 0; k < maxn; k++)); do WWID[k]=$(udev_prop "/dev/${PD[k]}" ID_SERIAL); done
check "the udev database has a WWID for each LUN" eval '[ -n "${WWID[maxn - 1]}" ]'
check_eq "one WWID per LUN, the same on every host" "$maxn ${WWID[0]}" \
	"$(printf '%s\n' "${WWID[@]}" | sort -u | wc -l) $(udev_prop "/dev/${PD[3 * maxn]}" ID_SERIAL)"

# conf_write N: multipathd's configuration for the first N LUNs (the others
# blacklisted by WWID, so that it manages N maps).
conf_write() {
	local n=$1 k
	mkdir -p /etc/multipath
	{
		cat <<-EOF
			defaults {
				user_friendly_names no
				find_multipaths no
			}
			blacklist {
				wwid ".*"
			}
			blacklist_exceptions {
		EOF
		for ((k = 0; k < n; k++)); do printf '\twwid "^%s$"\n' "${WWID[k]}"; done
		cat <<-EOF
			}
			devices {
				device {
					vendor "Linux"
					product "scsi_debug"
					path_grouping_policy "group_by_prio"
				}
			}
		EOF
	} >"$MPD_CONF"
}

# active_paths: active paths over all multipath maps
active_paths() { paths_in_state A; }
# mpd_up N LOG: multipathd started as its unit starts it (as mpd_start in
# tests/lib/multipathd.sh, but at -v2 and not waiting for its socket: the
# start is timed from here), then until the N maps' 4N paths are active,
# polled each 0.5 s (each poll is a dmsetup and an awk process on the
# guest's one CPU, which multipathd needs meanwhile); 1 after LIMIT_S.
mpd_up() {
	env -u DM_DISABLE_UDEV multipathd -d -s -v2 >"$2" 2>&1 &
	MPD_PID=$!
	WAIT_POLL=0.5 wait_until "$LIMIT_S" eval "[ \"\$(active_paths)\" -ge $((4 * $1)) ]"
}
# wait_klog TAG REGEX COUNT: until COUNT kernel log lines after marker TAG
# match REGEX (polled each 0.5 s); sets KLOG_US KLOG_N; 1 after LIMIT_S.
wait_klog() {
	local tag=$1 re=$2 want=$3 t0=${EPOCHREALTIME/./}
	while :; do
		read -r KLOG_US KLOG_N KLOG_FIRST < <(klog_span "$tag" "$re")
		[ "$KLOG_N" -ge "$want" ] && return 0
		((${EPOCHREALTIME/./} - t0 > LIMIT_S * 1000000)) && return 1
		bsleep 0.5
	done
}
# storm_phase NAME "HOST..." STATE REGEX COUNT: (in run_one: impl, n, tag)
# a kernel log marker, every path of those hosts to STATE at once, then
# wait_klog for COUNT lines matching REGEX; 1 (reported) if they did not
# all come.
storm_phase() {
	local name=$1 hosts=$2 st=$3 re=$4 want=$5 h
	progress "scale-mpathd $impl N=$n: $name"
	klog_mark "$tag $name"
	for h in $hosts; do set_state "$h" "$n" "$st"; done
	wait_klog "$tag $name" "$re" "$want" ||
		{ tap_fail "$impl N=$n: $name: $KLOG_N of $want \"$re\" lines"; return 1; }
}
# cpu_ticks PID: utime + stime of PID (clock ticks)
cpu_ticks() {
	local f
	read -ra f <"/proc/$1/stat" || return 1
	# fields after the command name, which has no space here
	echo $((f[13] + f[14]))
}

run_one() {
	local impl=$1 n=$2 tag=mpd_${1}_$2 ok=1 t0 start_us c0 c1 k maps=()
	local kq_us kq_n kq_f kh_us kh_n kh_f kr_us kr_n kr_f tck
	mods_use "$(impl_mods "$impl")" || { tap_fail "$impl: load modules"; return 1; }
	conf_write "$n"
	progress "scale-mpathd $impl N=$n: start"
	klog_mark "$tag start"
	t0=${EPOCHREALTIME/./}
	if ! mpd_up "$n" "/tmp/$tag.log"; then
		tap_fail "$impl N=$n: multipathd made $(dmsetup ls --target multipath | wc -l) maps, $(active_paths) active paths" \
			"$(tail -n 5 "/tmp/$tag.log")"
		cp "/tmp/$tag.log" "$BENCH_OUT/raw/"
		mpd_stop
		dmsetup remove_all
		record suite=scale-mpathd "impl=$impl" "ver=$MP_VERSION" "n=$n" ok=0 start_us=- \
			checker_cpu_ms=0 checker_us=- light_iops=0 sample_iops=0 sample_maps=0 \
			"light=raw/${tag}_light.json" "sample=raw/${tag}_sample.json" "log=raw/$tag.log"
		return 1
	fi
	start_us=$((${EPOCHREALTIME/./} - t0))
	# The maps' /dev/mapper nodes are udev's work (its dm rules).
	check "$impl N=$n: udev has processed the maps" udevadm settle --timeout=$LIMIT_S || ok=0
	for ((k = 0; k < n; k++)); do maps+=("/dev/mapper/${WWID[k]}"); done
	check_eq "$impl N=$n: $n maps, one per LUN" "$n" "$(dmsetup ls --target multipath | wc -l)" || ok=0
	check "$impl N=$n: LUN $((n - 1))'s map" test -b "${maps[n - 1]}" || ok=0
	diag "$impl N=$n: map 0: $(dmsetup table "${WWID[0]}")"
	# Every path was claimed before (claim_paths): an I/O error now is I/O
	# a target sent to a path that refused it (a standby port).
	read -r _ k _ < <(klog_span "$tag start" "I/O error")
	check_eq "$impl N=$n: no path reported an I/O error during the start" 0 "$k" || ok=0
	tap_ok "$impl N=$n: multipathd up, every map with 4 active paths after $start_us us"

	# The checkers' load: multipathd's CPU over CHECK_S quiet seconds.
	tck=$(getconf CLK_TCK)
	c0=$(cpu_ticks "$MPD_PID") t0=${EPOCHREALTIME/./}
	bsleep "$CHECK_S"
	c1=$(cpu_ticks "$MPD_PID")
	local check_us=$((${EPOCHREALTIME/./} - t0)) cpu_ms=$(((c1 - c0) * 1000 / tck))
	progress "scale-mpathd $impl N=$n: checker ${cpu_ms} ms CPU in ${check_us} us"

	if [ $ok = 1 ] && storm_io_start "$tag" "${maps[@]}"; then
		progress "scale-mpathd $impl N=$n: I/O flowing"
		storm_phase quarter 0 offline "Failing path" "$n" || ok=0
		kq_us=$KLOG_US kq_n=$KLOG_N kq_f=$KLOG_FIRST
		bsleep 1
		storm_phase half 1 offline "Failing path" "$n" || ok=0
		kh_us=$KLOG_US kh_n=$KLOG_N kh_f=$KLOG_FIRST
		bsleep 1
		storm_phase restore "0 1" running "Reinstating path" $((2 * n)) || ok=0
		kr_us=$KLOG_US kr_n=$KLOG_N kr_f=$KLOG_FIRST
		check_eq "$impl N=$n: every path active again" $((4 * n)) "$(active_paths)" || ok=0
		bsleep 1
		storm_io_stop "$tag" || { tap_fail "$impl N=$n: $STORM_IO_WHY"; ok=0; }
	else
		[ $ok = 1 ] && tap_fail "$impl N=$n: $STORM_IO_WHY"
		ok=0
	fi
	progress "scale-mpathd $impl N=$n: stop"
	cp "/tmp/$tag.log" "$BENCH_OUT/raw/"
	check "$impl N=$n: multipathd stopped" mpd_stop || ok=0
	check "$impl N=$n: maps removed" dmsetup remove_all || ok=0
	record suite=scale-mpathd "impl=$impl" "ver=$MP_VERSION" "n=$n" "ok=$ok" \
		"start_us=$start_us" "checker_cpu_ms=$cpu_ms" "checker_us=$check_us" \
		"klog_quarter_us=${kq_us:--}" "klog_quarter_n=${kq_n:-0}" \
		"klog_half_us=${kh_us:--}" "klog_half_n=${kh_n:-0}" \
		"klog_restore_us=${kr_us:--}" "klog_restore_n=${kr_n:-0}" \
		"klog_quarter_first_us=${kq_f:--}" "klog_half_first_us=${kh_f:--}" \
		"klog_restore_first_us=${kr_f:--}" \
		"io_start_us=${STORM_IO_US:--}" "light_iops=${STORM_LIGHT_IOPS:-0}" \
		"sample_iops=${STORM_SAMPLE_IOPS:-0}" "sample_maps=${STORM_SAMPLE_MAPS:-0}" \
		"light=raw/${tag}_light.json" "sample=raw/${tag}_sample.json" "log=raw/$tag.log"
	[ $ok = 1 ] && tap_ok "$impl N=$n: storm under multipathd (quarter $kq_us us, half $kh_us us, restore $kr_us us)"
}

# fio, dmesg, awk and multipathd's client loaded once before any figure
# (the icount clock leaps during a first exec over 9p).
fio --disk_util=0 --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=1 \
	--size=1M --thread --name=warm --filename="/dev/${PD[0]}" --output-format=json >/dev/null 2>&1
dmesg | awk 'END { }'
multipathd show daemon >/dev/null 2>&1

# udev's first claim of a path: the first "change" event that marks a
# path DM_MULTIPATH_DEVICE_PATH=1 runs 68-del-part-nodes.rules (partx -d,
# once per device for the life of the device: DM_DEL_PART_NODES in udev's
# database), whose fsync sends an empty flush straight to the path, which
# scsi_dh_alua refuses on a standby port ("I/O error, dev sdX, sector 0 op
# 0x1:(WRITE) flags 0x800 phys_seg 0"). Whichever target started first
# paid for it (ours, which came first at every N) and its start was timed
# with it; so multipathd claims every path once, unmeasured, before any
# start is timed: each start is then multipathd's restart, the same work
# for both targets.
claim_paths() {
	local impl=${IMPLS%% *} k
	mods_use "$(impl_mods "$impl")" || { tap_fail "first claim: load modules"; return 1; }
	conf_write "$maxn"
	mpd_up "$maxn" /tmp/mpd_claim.log ||
		tap_fail "first claim: $(active_paths) of $((4 * maxn)) paths active"
	udevadm settle --timeout=$LIMIT_S
	check "first claim: udev ran partx once on every path" eval \
		'[ "$(for ((k = 0; k < 4 * maxn; k++)); do udev_prop "/dev/${PD[k]}" DM_DEL_PART_NODES; done | grep -c "^1$")" -eq $((4 * maxn)) ]'
	check "first claim: multipathd stopped" mpd_stop
	check "first claim: maps removed" dmsetup remove_all
}
claim_paths

# Every target at one N before the next N.
for n in $NS; do
	for impl in $IMPLS; do
		run_one "$impl" "$n"
	done
done
check "multipath modules unloaded" mods_unload
