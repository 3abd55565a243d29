# shellcheck shell=bash
# Helpers for the scenarios over the NVMe/TCP fabric (tests/cases/nvmetcp/),
# on top of tests/lib/common.sh.  Sourced.  The fio helpers (fio_start,
# fio_stop_check), the clock (now, secs_since), the per-device counters
# (io_of, io_above) and the checker's loop (checker_start, checker_stop)
# are the iSCSI family's (tests/iscsi/lib.sh); what differs is how a path's
# readiness is read: an NVMe controller's state instead of a SCSI device's.
NVT=$REPO/tests/nvmetcp
# shellcheck source=tests/iscsi/lib.sh
. "$REPO/tests/iscsi/lib.sh"
# shellcheck source=tests/nvmetcp/layout.sh
. "$NVT/layout.sh"
CHECKER_LOG=/tmp/nvmetcp-checker.log

# nvt_start ARGS...: nvme-up with those arguments; sets NVT_LINKS (p0 ...),
# NVT_NAMES (nvmeXnY), NVT_DEVS (/dev/nvmeXnY), NVT_NUMS (MAJ:MIN), NVT_CTRLS
# (nvmeX); registers nvme-down (after everything registered before it is
# undone, i.e. call it first).
nvt_start() {
	local out l d c
	on_exit "\"$NVT/nvme-down\""
	local t0
	t0=$(now)
	out=$("$NVT/nvme-up" "$@") || { echo "$out"; return 1; }
	diag "nvme-up $* took $(secs_since "$t0") s: $(tr '\n' ';' <<<"$out")"
	NVT_LINKS=() NVT_NAMES=() NVT_DEVS=() NVT_NUMS=() NVT_CTRLS=()
	while read -r l d; do
		NVT_LINKS+=("$l") NVT_DEVS+=("$d") NVT_NAMES+=("${d#/dev/}")
		NVT_NUMS+=("$(devnum "$d")")
	done <<<"$out"
	while read -r l c _; do NVT_CTRLS+=("$c"); done <"$NVT_STATE/links"
}
nvt_ctl() { "$NVT/nvme-ctl" "$@"; }
ctrl_state_is() { [ "$(nvt_ctl state "$1")" = "$2" ]; } # ctrl_state_is LINK STATE

# nvt_map_fio MAP LINKS SELECTOR [FEATURES]: the start the scenarios of
# failing links share: the fabric with LINKS links (keep-alive 5 s,
# fast_io_fail 2 s), our modules, a map MAP with SELECTOR ("round-robin" or
# "service-time", repeat_count 8 / 1) and FEATURES ("0" by default, e.g. "1
# queue_if_no_path") over each link's path, the path checker on it, fio
# writing and verifying through it (report in FIO_JSON), and all of it
# undone on exit, links restored first.  Sets P (MAJ:MIN), N (nvmeXnY), S
# (sectors).
nvt_map_fio() {
	local map=$1 links=$2 sel=$3 feat=${4:-0} what i rc=8 paths="" nargs=1
	what="nvme-up: $links links (keep-alive 5 s, fast_io_fail 2 s, reconnect 1 s)"
	nvt_start --links "$links" --kato 5 --fast-io-fail 2 --reconnect-delay 1 ||
		{ tap_fail "$what"; return 1; }
	tap_ok "$what"
	check "modules load" mp_mods_load || return 1
	if [ "$sel" != round-robin ]; then
		check "selector $sel loads" modprobe "dm-$sel" || return 1
		rc=1 nargs=2
	fi
	on_exit "dmsetup resume $map; dmsetup message $map 0 fail_if_no_path; dm_remove $map; mp_mods_unload"
	# shellcheck disable=SC2034  # N: read by the scenarios
	P=("${NVT_NUMS[@]}") N=("${NVT_NAMES[@]}")
	S=$(blockdev --getsz "${NVT_DEVS[0]}")
	for ((i = 0; i < links; i++)); do
		if [ "$nargs" = 1 ]; then paths+=" ${P[i]} $rc"; else paths+=" ${P[i]} $rc 1"; fi
	done
	check "create a $sel map (features: $feat) over the $links NVMe/TCP paths" \
		dm_create "$map" "0 $S multipath $feat 0 1 1 $sel 0 $links $nargs$paths" || return 1
	checker_start "$map"
	FIO_JSON=/tmp/fio-$map.json
	# (fio starts a verify batch only when its count of unverified writes
	# is a multiple of verify_backlog, and a batch of verify_backlog reads
	# ends even if writes the map held during an outage were not yet
	# verifiable: it would fall behind by up to a backlog per outage.  A
	# batch of 4 backlogs, verify_backlog_batch, drains what is there.)
	fio_start "/dev/mapper/$map" "$FIO_JSON" --verify_backlog_batch=1024
	on_exit "nvt_ctl restore all"
	sleep 3
	check "fio running" fio_running
}

# ---- the path checker's test ---------------------------------------------
# tests/iscsi/lib.sh's checker, with an NVMe path's ready state: its
# controller (/sys/block/nvmeXnY/device) "live" again, i.e. reconnected.
CHECKER_READY_STATE=live
