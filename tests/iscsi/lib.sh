# shellcheck shell=bash
# Helpers for the scenarios over the iSCSI SAN (tests/cases/iscsi/), on top
# of tests/lib/common.sh.  Sourced.
SAN=$REPO/tests/iscsi
# shellcheck source=tests/iscsi/layout.sh
. "$SAN/layout.sh"

# san_start ARGS...: san-up with those arguments; sets SAN_LINKS (p0 ...),
# SAN_NAMES (sdX, LUN 0 of each link), SAN_DEVS (/dev/sdX), SAN_NUMS
# (MAJ:MIN); registers san-down (after everything registered before it is
# undone, i.e. call it first).
san_start() {
	on_exit "\"$SAN/san-down\""
	san_up "$@"
}
# san_up ARGS...: san_start without registering san-down, for a caller
# that has registered it itself, in its own order (the soak: after its
# maps over the disks are removed, before the LIO arrays that share the
# target modules are torn down).
san_up() {
	local out l d
	local t0=${EPOCHREALTIME/./}
	out=$("$SAN/san-up" "$@") || { echo "$out"; return 1; }
	diag "san-up $* took $(secs_since "$t0") s: $(tr '\n' ';' <<<"$out")"
	SAN_LINKS=() SAN_NAMES=() SAN_DEVS=() SAN_NUMS=()
	while read -r l d _; do
		SAN_LINKS+=("$l") SAN_DEVS+=("$d") SAN_NAMES+=("${d#/dev/}")
		SAN_NUMS+=("$(devnum "$d")")
	done <<<"$out"
}
san_ctl() { "$SAN/san-ctl" "$@"; }

# san_rr_fio MAP LINKS REPLACEMENT_TIMEOUT [FEATURES]: the start the
# scenarios of failing links share: the SAN with LINKS links (NOP-Out ping
# every 2 s, 2 s timeout, replacement_timeout as given), our modules, a
# round-robin map MAP (repeat_count 8) with FEATURES ("0" by default, e.g.
# "1 queue_if_no_path") over each link's path, the path checker on it, fio
# writing and verifying through it (report in FIO_JSON), and all of it undone
# on exit, links restored first.  Sets P (MAJ:MIN), N (sdX) and S (sectors).
san_rr_fio() {
	local map=$1 links=$2 repl=$3 feat=${4:-0} what i paths=""

	what="san-up: $links links (noop 2/2 s, replacement_timeout $repl s)"
	san_start --links "$links" --noop-interval 2 --noop-timeout 2 \
		--replacement-timeout "$repl" || { tap_fail "$what"; return 1; }
	tap_ok "$what"
	check "modules load" mp_mods_load || return 1
	on_exit "dmsetup resume $map; dmsetup message $map 0 fail_if_no_path; dm_remove $map; mp_mods_unload"
	P=("${SAN_NUMS[@]}") N=("${SAN_NAMES[@]}")
	S=$(blockdev --getsz "${SAN_DEVS[0]}")
	for ((i = 0; i < links; i++)); do paths+=" ${P[i]} 8"; done
	check "create a round-robin map (features: $feat) over the $links iSCSI paths" \
		dm_create "$map" "0 $S multipath $feat 0 1 1 round-robin 0 $links 1$paths" || return 1
	checker_start "$map"
	FIO_JSON=/tmp/fio-$map.json
	fio_start "/dev/mapper/$map" "$FIO_JSON"
	on_exit "san_ctl restore all"
	sleep 3
	check "fio running" fio_running
}

now() { echo "${EPOCHREALTIME/./}"; } # microseconds
# secs_since T0: seconds (one decimal) from T0 (a now) to now
secs_since() { local d=$(($(now) - $1)); printf '%d.%d' $((d / 1000000)) $((d / 100000 % 10)); }

# cut_one_by_one MAP CTL: the body 601 (iSCSI) and 621 (NVMe/TCP) share.
# On a map MAP over 4 links with the checker and fio running (P, N set):
# links p0-p2 are cut one by one (link down, total loss, silent drop) down
# to the last, each seen as exactly one path failure (fail_count +1) and
# logged by our target; p3 carries the I/O; then they are restored one by
# one and reinstated by the checker, each carrying I/O again; fio ends
# verified with no error; the map is removed.  CTL is the transport's link
# control (san_ctl, nvt_ctl); the caller's cut_log_check LOG checks what
# the transport itself logged for the cuts.
cut_one_by_one() {
	local map=$1 ctl=$2 ways=(down loss drop) i f0 t b log

	kmsg_mark
	for i in 0 1 2; do
		path_fields "$map" "${P[i]}"
		f0=$PATH_FAILS
		t=$(now)
		check "cut p$i (${ways[i]})" "$ctl" cut "p$i" "${ways[i]}"
		check "p$i (${N[i]}, cut by ${ways[i]}) failed in the map within 90 s" \
			wait_until 90 path_is "$map" "${P[i]}" F
		diag "p$i cut by ${ways[i]}: path failed $(secs_since "$t") s after the cut"
		path_fields "$map" "${P[i]}"
		check_eq "p$i: fail_count +1" $((f0 + 1)) "$PATH_FAILS"
		check "fio still running" fio_running
	done
	check_match "INFO status: three paths failed, the last active" \
		" ${P[0]} F 1 ${P[1]} F 1 ${P[2]} F 1 ${P[3]} A 0 $" "$(dmsetup status "$map")"
	b=$(io_of "${N[3]}")
	check "the last path carries the I/O" wait_until 10 io_above "${N[3]}" $((b + 50))
	log=$(kmsg_since)
	for i in 0 1 2; do
		check_match "kernel log: our target failed ${N[i]}" "Failing path ${P[i]}\\." "$log"
	done
	cut_log_check "$log"

	for i in 2 1 0; do
		t=$(now)
		check "restore p$i (${ways[i]})" "$ctl" restore "p$i"
		check "p$i reinstated by the checker within 90 s" wait_until 90 path_is "$map" "${P[i]}" A
		diag "p$i (${ways[i]}): reinstated $(secs_since "$t") s after the restore"
		b=$(io_of "${N[i]}")
		check "p$i carries I/O again" wait_until 10 io_above "${N[i]}" "$b"
	done
	check_match "INFO status: all active, one failure each on the cut paths" \
		" ${P[0]} A 1 ${P[1]} A 1 ${P[2]} A 1 ${P[3]} A 0 $" "$(dmsetup status "$map")"
	diag "checker: $(tr '\n' ';' <"$CHECKER_LOG")"
	fio_stop_check "$FIO_JSON"
	check_eq "no I/O error reached the map's user (kernel log)" "" \
		"$(kmsg_since | grep -E 'multipath.*(giving up|error)|Buffer I/O error on dev dm-')"
	checker_stop
	dm_remove "$map"
	check "modules unload" mp_mods_unload
}

# all_down_held MAP CTL: the body 602 (iSCSI) and 622 (NVMe/TCP) share. On a
# map MAP with queue_if_no_path over 2 links, checker and fio running: both
# links cut (link down, silent drop), both paths fail, the map holds fio's
# I/O (queue size > 0, unchanged 5 s later, nothing completed on either
# path, fio still running), the caller's outage_check runs; then both links
# restored, the checker reinstates the paths, the held I/O is released and
# flows again, fio ends verified with no error, none in the kernel log.
all_down_held() {
	local map=$1 ctl=$2 t q1 q2 io0 io1 b

	kmsg_mark
	t=$(now)
	check "cut p0 (link down)" "$ctl" cut p0 down
	check "cut p1 (iptables DROP)" "$ctl" cut p1 drop
	check "both paths failed within 90 s" wait_until 90 eval \
		'path_is "$map" "${P[0]}" F && path_is "$map" "${P[1]}" F'
	diag "both paths failed $(secs_since "$t") s after the cuts"
	check "the map holds fio's I/O (queue size > 0)" wait_until 10 eval '[ "$(queue_size "$map")" -gt 0 ]'
	q1=$(queue_size "$map")
	io0=$(($(io_of "${N[0]}") + $(io_of "${N[1]}")))
	sleep 5
	io1=$(($(io_of "${N[0]}") + $(io_of "${N[1]}")))
	q2=$(queue_size "$map")
	diag "held bios: $q1, 5 s later $q2"
	check "still held 5 s later" test "$q2" -gt 0
	check_eq "no I/O completed on either path meanwhile" "$io0" "$io1"
	check "fio waits (still running, no error)" fio_running
	outage_check

	t=$(now)
	check "restore p0" "$ctl" restore p0
	check "restore p1" "$ctl" restore p1
	check "a path reinstated within 90 s" wait_until 90 eval \
		'path_is "$map" "${P[0]}" A || path_is "$map" "${P[1]}" A'
	diag "first path back $(secs_since "$t") s after the restore"
	check "the held I/O is released (queue size 0)" wait_until 20 queue_size_is "$map" 0
	check "both paths reinstated within 90 s" wait_until 90 eval \
		'path_is "$map" "${P[0]}" A && path_is "$map" "${P[1]}" A'
	diag "both paths back $(secs_since "$t") s after the restore"
	b=$(io_of "${N[0]}")
	check "I/O flows again" wait_until 10 io_above "${N[0]}" $((b + 20))
	fio_stop_check "$FIO_JSON"
	check_eq "no I/O error reached the map's user (kernel log)" "" \
		"$(kmsg_since | grep -E 'multipath.*giving up|Buffer I/O error on dev dm-')"
}

# ---- the path checker ---------------------------------------------------
# What multipathd's checker does for a failed path, and nothing more: every
# INTERVAL seconds, each path MAP shows failed whose device is in
# CHECKER_READY_STATE again and answers a 4 KiB direct read is reinstated
# with a message.  Log lines "<epoch> reinstated MAJ:MIN" in CHECKER_LOG.
CHECKER_LOG=/tmp/iscsi-checker.log
# The device state of a path that may be tried again: a SCSI disk's
# "running"; other transports' libs set theirs (NVMe: the controller "live").
CHECKER_READY_STATE=running
checker_start() { # checker_start MAP [INTERVAL]
	: >"$CHECKER_LOG"
	_checker "$1" "${2:-0.5}" >>"$CHECKER_LOG" 2>&1 &
	CHECKER_PID=$!
	on_exit "checker_stop"
}
checker_stop() {
	[ -n "${CHECKER_PID:-}" ] || return 0
	kill "$CHECKER_PID" 2>/dev/null
	wait "$CHECKER_PID" 2>/dev/null
	CHECKER_PID=
}
_checker() {
	local map=$1 interval=$2 dev
	while :; do
		for dev in $(failed_paths "$map"); do
			path_ready "$dev" || continue
			dmsetup message "$map" 0 reinstate_path "$dev" &&
				echo "${EPOCHREALTIME} reinstated $dev"
		done
		sleep "$interval"
	done
}
# failed_paths MAP: the MAJ:MIN of every path MAP's status shows failed
# ("MAJ:MIN F"), one a line.
failed_paths() {
	local f i
	read -ra f <<<"$(dmsetup status "$1" 2>/dev/null)"
	for ((i = 0; i < ${#f[@]} - 1; i++)); do
		[[ ${f[i]} =~ ^[0-9]+:[0-9]+$ ]] && [ "${f[i + 1]}" = F ] && echo "${f[i]}"
	done
	return 0
}
# path_ready MAJ:MIN: the path may be tried again: its device is in
# CHECKER_READY_STATE and answers a 4 KiB direct read.
path_ready() {
	local sd st=""
	sd=$(readlink "/sys/dev/block/$1") || return 1
	sd=${sd##*/}
	{ read -r st <"/sys/block/$sd/device/state"; } 2>/dev/null
	[ "$st" = "$CHECKER_READY_STATE" ] || return 1
	timeout 10 dd if="/dev/$sd" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null
}

# ---- fio --------------------------------------------------------------------
# fio_start DEV JSON [fio options...]: crc32c-verified random writes on DEV,
# running until fio_stop (SIGINT: fio ends its jobs and writes its report).
fio_start() {
	local dev=$1 json=$2
	shift 2
	fio --name=iscsi --filename="$dev" --direct=1 --ioengine=libaio \
		--iodepth=8 --bs=4k --rw=randwrite --size=32M --verify=crc32c \
		--verify_backlog=256 --verify_fatal=1 --time_based --runtime=3600 \
		--output-format=json --output="$json" "$@" >/tmp/fio-iscsi.stderr 2>&1 &
	FIO_PID=$!
	on_exit "kill \$FIO_PID 2>/dev/null; wait \$FIO_PID"
}
fio_running() { kill -0 "$FIO_PID" 2>/dev/null; }
# fio_stop_check JSON: stop fio and check its report: no error, no verify
# failure, something written and verified.  fio stops on SIGINT, exits 128
# ("terminating on signal 2") and writes that line into its output file
# ahead of the JSON report.
fio_stop_check() {
	local j=$1 rc w r
	kill -INT "$FIO_PID" 2>/dev/null
	wait "$FIO_PID"
	rc=$?
	FIO_PID=
	check_match "fio exit status 0, or 128 for our SIGINT" '^(0|128)$' "$rc" ||
		diag "fio stderr: $(head -c 600 /tmp/fio-iscsi.stderr)"
	sed -n '/^{/,$p' "$j" >"$j.report"
	j=$j.report
	check_eq "fio job error" 0 "$(jq '.jobs[0].error' "$j")"
	check_eq "fio total_err" 0 "$(jq '.jobs[0].total_err // 0' "$j")"
	w=$(jq '.jobs[0].write.io_bytes' "$j") r=$(jq '.jobs[0].read.io_bytes' "$j")
	diag "fio wrote $w bytes, read back and verified $r bytes"
	check "fio wrote data" test "${w:-0}" -gt 0
	# Whatever was written more than a verify backlog ago has been verified.
	check "fio verified what it wrote (all but the last backlog)" \
		test "${r:-0}" -ge $((${w:-0} - 512 * 4096))
}

# io_of sdX: reads + writes completed by that disk
io_of() { echo $(($(path_reads "$1") + $(path_writes "$1"))); }
# Conditions for wait_until (evaluated at each poll, unlike a "$(...)"
# argument, which the caller's shell evaluates once):
io_above() { [ "$(io_of "$1")" -gt "$2" ]; }	# io_above sdX N
path_is() { [ "$(path_state "$1" "$2")" = "$3" ]; }	# path_is MAP MAJ:MIN A|F
disk_state_is() { local s=""; { read -r s <"/sys/block/$1/device/state"; } 2>/dev/null; [ "$s" = "$2" ]; }
