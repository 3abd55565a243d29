#!/bin/bash
# The application's longest I/O stall at a cut iSCSI link: ours vs the distro's dm-multipath.
# The same SAN (2 links, NOP-Out ping 2/2 s, replacement_timeout 5 s), the
# same round-robin map (repeat_count 1) over both paths, built in turn by
# our modules, by the distro's dm-multipath in queue_mode bio and by the
# distro's request-based default (its modules loaded by path after ours are
# unloaded).  fio reads 4 KiB at random, iodepth 4, while link p0 is cut
# silently (iptables DROP); the path checker of tests/iscsi/lib.sh
# reinstates it after the restore.  Reported per implementation, as TAP
# comments: detection (cut -> the map shows p0 failed) and the longest
# single read (fio's max completion latency: a read caught on the dying path
# waits for the transport to give up, then goes to p1).  Checked: every
# implementation fails p0, carries on over p1 and ends with no I/O error
# (transport detection dominates the stall: compare the two figures).
# Runs without multipathd.
# tier: full (reports figures; 601 and 602 cover the same failures)
# Not on the debug kernel: it builds no dm-multipath of its own to compare.
# requires: distro-kernel
# timeout: 600
source "${0%/*}/rc"

san_start --links 2 --noop-interval 2 --noop-timeout 2 --replacement-timeout 5 ||
	{ tap_fail "san-up: 2 links"; exit 1; }
tap_ok "san-up: 2 links"
P=("${SAN_NUMS[@]}") N=("${SAN_NAMES[@]}")
S=$(blockdev --getsz "${SAN_DEVS[0]}")
on_exit "dmsetup remove mps; rmmod dm_round_robin dm_multipath"
on_exit "san_ctl restore all"

# Ours and the distro's both say v1.14.0: the out-of-tree taint tells them apart.
ours_loaded() { [[ $(</sys/module/dm_multipath/taint) == *O* ]]; }
load() { # load ours|distro
	if [ "$1" = ours ]; then
		mp_mods_load && ours_loaded
	else
		distro_insmod dm-multipath dm-round-robin &&
			! ours_loaded
	fi
}
is_state() { [ "$(path_state mps "$1")" = "$2" ]; }

# run IMPL FEATURES: one cut under fio through a map of IMPL (ours/distro).
run() {
	local impl=$1 feat=$2 json=/tmp/fio-606-$1.json t tcut det maxms io1 rc
	check "$impl: modules load" load "${impl%%-*}" || return 1
	check "$impl: map over both paths ($feat)" dm_create mps \
		"0 $S multipath $feat 0 1 1 round-robin 0 2 1 ${P[0]} 1 ${P[1]} 1" || return 1
	checker_start mps
	fio --name=stall --filename=/dev/mapper/mps --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=4 --time_based --runtime=600 \
		--output-format=json --output="$json" >/dev/null 2>&1 &
	FIO_PID=$!
	sleep 3
	check "$impl: fio reading through both paths" wait_until 10 io_above "${N[0]}" 10
	tcut=$(now)
	check "$impl: cut p0 (iptables DROP)" san_ctl cut p0 drop
	check "$impl: p0 failed in the map within 90 s" wait_until 90 is_state "${P[0]}" F
	det=$(secs_since "$tcut")
	io1=$(io_of "${N[1]}")
	check "$impl: reads go on over p1" wait_until 10 io_above "${N[1]}" $((io1 + 50))
	kill -INT "$FIO_PID"
	wait "$FIO_PID"
	rc=$?
	FIO_PID=
	check_match "$impl: fio exit status 0, or 128 for our SIGINT" '^(0|128)$' "$rc"
	sed -n '/^{/,$p' "$json" >"$json.report"
	check_eq "$impl: no I/O error reached fio" 0 "$(jq '.jobs[0].total_err // 0' "$json.report")"
	maxms=$(jq '.jobs[0].read.clat_ns.max / 1000000 | floor' "$json.report")
	diag "$impl: detection $det s (cut -> p0 failed); longest read $maxms ms;" \
		"$(jq '.jobs[0].read.total_ios' "$json.report") reads"
	STALL[$impl]="detection $det s, longest read $maxms ms"
	t=$(now)
	check "$impl: restore p0" san_ctl restore p0
	check "$impl: p0 reinstated by the checker within 90 s" wait_until 90 is_state "${P[0]}" A
	diag "$impl: p0 back $(secs_since "$t") s after the restore"
	checker_stop
	check "$impl: map removed" dm_remove mps
	check "$impl: modules unload" rmmod dm_round_robin dm_multipath
}

declare -A STALL
run ours "0"
run distro-bio "2 queue_mode bio"
run distro-rq "0"
for impl in ours distro-bio distro-rq; do
	diag "$(printf '%-11s %s' "$impl" "${STALL[$impl]:-no figure}")"
done
