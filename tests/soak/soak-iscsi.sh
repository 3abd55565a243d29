# shellcheck shell=bash
# The soak's iSCSI map, soak-iscsi: a second transport, where a path fails
# by silence (tests/iscsi: LIO iSCSI target in a network namespace, one
# veth link and one target port per path, open-iscsi logged in over each;
# NOP-Out every 2 s with a 2 s timeout, replacement_timeout 5 s). The map:
# service-time over the links' paths to one LUN, queue_if_no_path with the
# bound queue_if_no_path_timeout_secs ISCSI_BOUND. Sourced by soak-lib.sh,
# whose PRNG (rnd), event log (ev, note), do_cmd and checker it shares;
# only with mptest.soakiscsi=N (N links; run-soak sets it).
#
# Its chaos, through san-ctl: a link is cut (link down, netem loss 100 %,
# iptables DROP in the target's namespace) or flaps (down 12 s of every
# 18) for 6-15 chaos steps, then restored; a link gets 50-250 ms of netem
# delay for 5-15 steps; all links are cut at once until every path has
# failed and the map queues, 2-4 s more, then restored. The model: LK[i],
# what link i was last given (up, slow, down, loss, drop, flap), and
# LK_UNTIL[i], the chaos step that restores it. Outside the all-down
# outage, a link is cut only while every other link is up (or slow), so
# one stays up; the checker reinstates a path once its link is up in the
# model and the disk is "running" and answers a direct read (as
# tests/iscsi's checker and multipathd's would). A map with no path (the
# outage, or a cut right after a restore, before the other path is back)
# queues; the bound is far longer than any such window (detection 10-29 s,
# re-login 4-17 s measured on this harness, the outage's wait included),
# so it never fails an I/O: if it did, fio would see the error. On a
# machine so loaded that the guest stalls (load average 15 on 2 cores, a
# 22 s soft lockup), the pings of a healthy link time out too and its
# re-login fails for a minute or more: a cut then left the map without a
# path for about 150 s (a 60 s bound fired). So the bound is 180 s, and
# the checker repairs the cut links at once when the map has no path left
# (iscsi-rescue; repairs may follow the kernel's state, breaks never).

ISCSI=soak-iscsi
# shellcheck source=tests/iscsi/lib.sh
source "$REPO/tests/iscsi/lib.sh"	# (its fio_start is replaced by soak-lib.sh's)
ISCSI_ON=""		# set once the map is up
ISCSI_SAN=""		# set once san-up has been tried (san-down at exit)
ISCSI_BOUND=180		# the map's queue_if_no_path_timeout_secs
ISCSI_STUCK_S=60	# a path failed this long with its link up: stuck
ISCSI_OUTAGE_MAX=120	# the outage waits at most this for every path to fail
ISCSI_NUMS=()		# MAJ:MIN of link i's disk
declare -A ISCSI_LINK	# ISCSI_LINK[MAJ:MIN]=i
declare -a LK LK_UNTIL LK_SINCE	# the model (see above); LK_SINCE: step cut
declare -a IS_FSINCE	# SECONDS a failed path was first seen with its link up
ISCSI_STUCK=0 ISCSI_OUTAGES=0 ISCSI_OUTAGE_QUEUED=0
ISCSI_CUT_WAYS=(down loss drop)

# iscsi_setup LINKS: the SAN (after the CLARiiON and the ALUA array: the
# target modules are then already loaded, and san-down, which runs before
# their teardown, unloads only what san-up added) and the map. Cleanup at
# exit is registered by soak_setup.
iscsi_setup() {
	local n i paths="" t
	t=$SECONDS
	# shellcheck disable=SC2034  # (read by the exit hooks soak_setup registers)
	ISCSI_SAN=1
	san_up --links "$1" --noop-interval 2 --noop-timeout 2 --replacement-timeout 5 ||
		{ tap_fail "san-up: the iSCSI SAN with $1 links"; return 1; }
	diag "soak: san-up took $((SECONDS - t)) s"
	check "modprobe dm-service-time" modprobe dm-service-time || return 1
	for ((i = 0; i < ${#SAN_NUMS[@]}; i++)); do
		ISCSI_NUMS[i]=${SAN_NUMS[i]}
		ISCSI_LINK[${SAN_NUMS[i]}]=$i
		LK[i]=up LK_UNTIL[i]=0 LK_SINCE[i]=0 IS_FSINCE[i]=""
		paths+=" ${SAN_NUMS[i]} 1 1"
	done
	check_eq "san-up: $1 links" "$1" "${#ISCSI_NUMS[@]}" || return 1
	n=$(blockdev --getsz "${SAN_DEVS[0]}")
	t="0 $n multipath 3 queue_if_no_path queue_if_no_path_timeout_secs $ISCSI_BOUND 0 1 1"
	t+=" service-time 0 $1 2$paths"
	check "create $ISCSI: service-time over the $1 iSCSI paths, queueing bounded at $ISCSI_BOUND s" \
		dm_create "$ISCSI" "$t" || return 1
	check "first I/O on $ISCSI" dd if=/dev/mapper/$ISCSI of=/dev/null bs=64k count=4 iflag=direct status=none || return 1
	kmsg_mark	# (iscsi_verdict reads the kernel log from here)
	ISCSI_ON=1
}

link_up() { [ "${LK[$1]}" = up ] || [ "${LK[$1]}" = slow ]; } # link_up I (the model)

# iscsi_restore_link I EVENT: undo whatever link I was given.
iscsi_restore_link() {
	do_cmd san_ctl restore "p$1"
	ev "$2" "p$1 (${LK[$1]} for $((CSTEP - LK_SINCE[$1])) steps)"
	LK[$1]=up
}

# iscsi_due: restore the first link whose time is up; the chaos step's
# action if there was one (like queueing back on after a queue-off period).
iscsi_due() {
	local i
	[ -n "$ISCSI_ON" ] || return 1
	for i in "${!ISCSI_NUMS[@]}"; do
		[ "${LK[i]}" != up ] && [ "$CSTEP" -ge "${LK_UNTIL[i]}" ] || continue
		iscsi_restore_link "$i" iscsi-restore
		return 0
	done
	return 1
}

# act_iscsi_cut [WAY]: cut a link (WAY: down, loss, drop or flap; else
# rnd) while every other link is up, for 6-15 steps (with 2 links the
# first round's 4 cuts take turns: longer holds would leave a short run
# without some; at about 1.3 s a step, a cut of 8 steps or more outlasts
# the 10-14 s the map takes to fail the path, and under load every one).
act_iscsi_cut() {
	local i w c=()
	[ -n "$ISCSI_ON" ] || return 1
	for i in "${!ISCSI_NUMS[@]}"; do link_up "$i" || return 1; done
	if [ -n "${1:-}" ]; then w=$1; else rnd 4; w=${ISCSI_CUT_WAYS[R]:-flap}; fi
	c=("${!ISCSI_NUMS[@]}")
	rnd ${#c[@]}; i=${c[R]}
	if [ "$w" = flap ]; then
		do_cmd san_ctl flap "p$i" 18 12 down
	else
		do_cmd san_ctl cut "p$i" "$w"
	fi
	rnd 10
	LK[i]=$w LK_SINCE[i]=$CSTEP LK_UNTIL[i]=$((CSTEP + 6 + R)) IS_FSINCE[i]=""
	ev "iscsi-$w" "p$i ${SAN_NAMES[i]} ($([ "$w" = flap ] && echo "down 12 s of every 18, ")for $((6 + R)) steps)"
}

# act_iscsi_slow: netem delay (50-250 ms a round trip) on an up link.
act_iscsi_slow() {
	local i ms c=()
	[ -n "$ISCSI_ON" ] || return 1
	for i in "${!ISCSI_NUMS[@]}"; do [ "${LK[i]}" = up ] && c+=("$i"); done
	[ ${#c[@]} -gt 0 ] || return 1
	rnd ${#c[@]}; i=${c[R]}
	rnd 200; ms=$((50 + R))
	do_cmd san_ctl delay "p$i" "$ms"
	rnd 11
	LK[i]=slow LK_SINCE[i]=$CSTEP LK_UNTIL[i]=$((CSTEP + 5 + R))
	ev iscsi-slow "p$i ${SAN_NAMES[i]}: $ms ms more a round trip for $((5 + R)) steps"
}

iscsi_all_failed() { # every path failed in the map, and I/O queued
	local n
	n=$(failed_paths "$ISCSI" | wc -l)
	[ "$n" = "${#ISCSI_NUMS[@]}" ] && [ "$(queue_size "$ISCSI")" -gt 0 ]
}

# act_iscsi_outage: every link cut (each a way of its own) until every
# path has failed and the map queues I/O, 2-4 s more, then all restored.
# It waits (the kernel's word decides only when to repair).
act_iscsi_outage() {
	local i w hold t0 cuts=""
	[ -n "$ISCSI_ON" ] || return 1
	rnd 3; hold=$((2 + R))
	for i in "${!ISCSI_NUMS[@]}"; do
		[ "${LK[i]}" = up ] || do_cmd san_ctl restore "p$i"
		rnd 3; w=${ISCSI_CUT_WAYS[R]}
		do_cmd san_ctl cut "p$i" "$w"
		LK[i]=$w LK_SINCE[i]=$CSTEP LK_UNTIL[i]=$CSTEP IS_FSINCE[i]=""
		cuts+=" p$i $w"
	done
	ev iscsi-all-down "${cuts# }: until every path failed and I/O queued, then $hold s"
	ISCSI_OUTAGES=$((ISCSI_OUTAGES + 1))
	t0=$SECONDS
	if wait_until "$ISCSI_OUTAGE_MAX" iscsi_all_failed; then
		ISCSI_OUTAGE_QUEUED=$((ISCSI_OUTAGE_QUEUED + 1))
		note "iscsi outage: every path failed, I/O queued, $((SECONDS - t0)) s after the cuts"
		queue_watch "$ISCSI" "$hold"
		note "iscsi outage: largest queue seen $R"
	else
		note "iscsi outage: the paths had not all failed with I/O queued after $ISCSI_OUTAGE_MAX s: $(dmsetup status "$ISCSI")"
		diag "chaos step $CSTEP: iSCSI outage: not every path failed with I/O queued in $ISCSI_OUTAGE_MAX s"
	fi
	do_cmd san_ctl restore all
	for i in "${!ISCSI_NUMS[@]}"; do LK[i]=up; done
	ev iscsi-links-back "after the outage ($((SECONDS - t0)) s)"
}

# iscsi_ready MAJ:MIN: the path's link is up in the model (a dd on a
# silent link would hang until the session gives up), and the disk is
# running and answers a read.
iscsi_ready() { link_up "${ISCSI_LINK[$1]}" && path_ready "$1"; }

# iscsi_checker: reinstate the paths that are ready again; count a path
# that stays failed (not ready) longer than ISCSI_STUCK_S with its link up.
iscsi_checker() {
	local i p f
	[ -n "$ISCSI_ON" ] || return 0
	reinstate_failed "$ISCSI" iscsi-reinstate iscsi_ready
	f=" $(failed_paths "$ISCSI" | tr '\n' ' ')"
	if [ "$(wc -w <<<"$f")" = "${#ISCSI_NUMS[@]}" ]; then
		for i in "${!ISCSI_NUMS[@]}"; do
			link_up "$i" || iscsi_restore_link "$i" iscsi-rescue
		done
	fi
	for i in "${!ISCSI_NUMS[@]}"; do
		p=${ISCSI_NUMS[i]}
		if [[ $f != *" $p "* ]] || ! link_up "$i"; then
			IS_FSINCE[i]=""
		elif [ -z "${IS_FSINCE[i]}" ]; then
			IS_FSINCE[i]=$SECONDS
		elif [ "${IS_FSINCE[i]}" != stuck ] && [ $((SECONDS - IS_FSINCE[i])) -gt "$ISCSI_STUCK_S" ]; then
			IS_FSINCE[i]=stuck
			ISCSI_STUCK=$((ISCSI_STUCK + 1))
			note "STUCK: iscsi p$i $p failed for more than $ISCSI_STUCK_S s with its link up: $(san_ctl state "p$i")"
			diag "chaos step $CSTEP: iSCSI path p$i ($p) failed for more than $ISCSI_STUCK_S s with its link up ($(san_ctl state "p$i"))"
		fi
	done
}

# iscsi_restore: every link back, and the paths reinstated (waits up to
# ISCSI_STUCK_S for the sessions to log in again).
ISCSI_BACK_S=""
iscsi_restore() {
	local i t
	[ -n "$ISCSI_ON" ] || return 0
	for i in "${!ISCSI_NUMS[@]}"; do
		[ "${LK[i]}" = up ] || iscsi_restore_link "$i" iscsi-restore
	done
	t=$SECONDS
	while [ $((SECONDS - t)) -le "$ISCSI_STUCK_S" ]; do
		reinstate_failed "$ISCSI" iscsi-reinstate iscsi_ready
		[ -z "$(failed_paths "$ISCSI")" ] && { ISCSI_BACK_S=$((SECONDS - t)); break; }
		sleep 1
	done
	note "iscsi: every path active ${ISCSI_BACK_S:-NOT within $ISCSI_STUCK_S} s after the restore"
}

# The verdict on the iSCSI map, once fio has ended.
iscsi_verdict() {
	local k line="" st n=0 p i fails="" total=0
	[ -n "$ISCSI_ON" ] || return 0
	for k in down loss drop flap slow restore all-down links-back reinstate rescue; do
		ev_sum "iscsi-$k"
		line+=" $k=$R"
	done
	st=$(dmsetup status "$ISCSI")
	for i in "${!ISCSI_NUMS[@]}"; do
		path_fields "$ISCSI" "${ISCSI_NUMS[i]}"
		fails+=" p$i=$PATH_FAILS"
		total=$((total + PATH_FAILS))
	done
	diag "soak: iscsi events:$line; path failures (fail_count):$fails, total $total; outages with every path failed and I/O queued: $ISCSI_OUTAGE_QUEUED of $ISCSI_OUTAGES; all paths back ${ISCSI_BACK_S:-(not)} s after the final restore"
	check_eq "every iSCSI all-down outage failed every path and queued I/O ($ISCSI_OUTAGES outages)" \
		"$ISCSI_OUTAGES" "$ISCSI_OUTAGE_QUEUED"
	check "the iSCSI link faults failed paths in $ISCSI (fail_count total $total > 0)" test "$total" -gt 0
	check_eq "no iSCSI path stayed failed more than $ISCSI_STUCK_S s with its link up" 0 "$ISCSI_STUCK"
	for p in "${ISCSI_NUMS[@]}"; do [[ " $st " == *" $p A "* ]] && n=$((n + 1)); done
	check_eq "$ISCSI after the run: all ${#ISCSI_NUMS[@]} paths active ($st)" "${#ISCSI_NUMS[@]}" "$n"
	check_eq "$ISCSI after the run: no bio queued" 0 "$(queue_size "$ISCSI")"
	check_eq "the queueing bound ($ISCSI_BOUND s) never failed I/O (kernel log)" "" \
		"$(kmsg_since | grep 'queue_if_no_path timeout on')"
}
