# shellcheck shell=bash
# The soak: verified fio I/O through three multipath maps while a seeded
# chaos driver breaks and repairs everything under them. Source after
# tests/lib/common.sh and tests/clariion/lib.sh; soak_main DURATION_S SEED
# runs it all and emits TAP (see tests/soak/README.md).
#
# Maps and paths:
#   soak      5 paths, 2 PGs: PG1 = scsi_debug sd (slot 0), sd (1) and the
#             dm stack soak-px over a third sd (2: linear, flakey or delay
#             underneath); PG2 = sd (3), sd (4). All share one store.
#   soak-emc  the emulated CLARiiON (tests/clariion): "1 emc", PG1 = SP A's
#             2 ports, PG2 = SP B's 2 ports; always queue_if_no_path.
#   soak-alua the LIO ALUA array (tests/lio): "1 alua", PG1 = target port
#             group 1's 2 ports, PG2 = group 2's; always queue_if_no_path
#             (soak-alua.sh; only with mptest.soakalua=1, as run-soak
#             sets it).
#   soak-iscsi the iSCSI SAN of tests/iscsi (LIO iSCSI target over N veth
#             links): service-time over the N paths, queue_if_no_path
#             bounded by queue_if_no_path_timeout_secs (soak-iscsi.sh;
#             only with mptest.soakiscsi=N, as run-soak sets it).
#
# The policy the chaos keeps: an I/O error may surface only if no path is
# usable and nothing queues. So: queue_if_no_path is switched off only while
# two paths are usable, and then nothing takes the last usable path away;
# all-paths-down happens only with queueing on; a flush suspend (which
# fails the bios that have no path) only while a path is usable. Under that
# policy fio must see no I/O error and no verify error at all.
#
# The chaos is a model-driven sequence: every decision comes from the seeded
# PRNG and the driver's own model of the paths (never from timing or kernel
# state; "time" in the model is the chaos step number), so a seed replays
# the same sequence of actions (as far as the shorter run gets).

MAIN=soak
EMC=soak-emc
STACK=soak-px
RC=16			# round-robin repeat_count of the soak map
BACKLOG=128		# fio verify_backlog
IODEPTH=8
# shellcheck source=tests/soak/soak-alua.sh
source "$REPO/tests/soak/soak-alua.sh"
# shellcheck source=tests/soak/soak-iscsi.sh
source "$REPO/tests/soak/soak-iscsi.sh"

# ---- PRNG (a global: $(...) would lose its state) ----------------------
_RS=1
R=0
srand() { _RS=$(($1 % 2147483647)); [ "$_RS" -gt 0 ] || _RS=1; }
rnd() { # rnd N: R = uniform in [0, N)
	_RS=$(((_RS * 48271) % 2147483647))
	R=$((_RS % $1))
}

# ---- event log and counts -------------------------------------------------
declare -A EV
SOAK_T0=$SECONDS
STEP=0			# events logged
CSTEP=0			# chaos steps: the model's clock
CHAOS_LOG=/tmp/soak-chaos.log
ev() { # ev KIND DETAIL...: count and log one fault event
	EV[$1]=$((${EV[$1]:-0} + 1))
	STEP=$((STEP + 1))
	printf '%5d s%-5d t=%4ds %-16s %s\n' "$STEP" "$CSTEP" $((SECONDS - SOAK_T0)) "$1" "${*:2}" >>"$CHAOS_LOG"
}
ev_sum() { # ev_sum PREFIX: R = events of the kinds starting with PREFIX
	local k
	R=0
	for k in "${!EV[@]}"; do
		[[ $k == "$1"* ]] && R=$((R + EV[$k]))
	done
}
note() { printf '      s%-5d t=%4ds %s\n' "$CSTEP" $((SECONDS - SOAK_T0)) "$*" >>"$CHAOS_LOG"; }
# A chaos command that must work: a failure is counted (a failed test point
# at the end) and logged.
CHAOS_ERRORS=0
do_cmd() {
	local out
	if ! out=$("$@" 2>&1); then
		CHAOS_ERRORS=$((CHAOS_ERRORS + 1))
		note "COMMAND FAILED: $* : ${out:0:300}"
		diag "chaos step $CSTEP: command failed: $* : ${out:0:300}"
		return 1
	fi
}
stack_load() { # stack_load MODE: swap the stack's table
	do_cmd dmsetup suspend "$STACK" &&
		do_cmd dmsetup load "$STACK" --table "$(stack_table "$1")" &&
		do_cmd dmsetup resume "$STACK"
}

# ---- the model of the soak map's paths -------------------------------------
# Slot i: SL_PG 1|2, SL_SD its sd (base sd for the stack), SL_HOST scsi host,
# SL_DEV the maj:min the table names, SL_STATE up|offline|deleted|stale (sd)
# or linear|delay|flakey|flapping (stack), SL_INTAB in the live table,
# SL_ACTIVE active in the kernel (as far as the model knows: failed by a
# message or an error, reinstated by the checker), SL_SINCE the chaos step
# it last became healthy.
NSLOT=5
declare -a SL_PG SL_SD SL_HOST SL_DEV SL_STATE SL_INTAB SL_ACTIVE SL_SINCE
declare -a PG_DIS=(0 0 0)
QUEUE=1 QOFF_UNTIL=0
EMC_ON="" EMC_PG=1
EMC_DEVS=()

healthy() { # healthy I
	case ${SL_STATE[$1]} in up | linear | delay) return 0 ;; esac
	return 1
}
usable() { # usable [EXCEPT]: R = usable paths, not counting slot EXCEPT
	local i n=0
	for ((i = 0; i < NSLOT; i++)); do
		[ "$i" = "${1:--1}" ] && continue
		[ "${SL_INTAB[$i]}" = 1 ] && [ "${SL_ACTIVE[$i]}" = 1 ] && healthy "$i" && n=$((n + 1))
	done
	R=$n
}
# may_break I: can slot I go down now without breaking the policy?
may_break() {
	[ "$QUEUE" = 1 ] && return 0
	usable "$1"
	[ "$R" -ge 1 ]
}

sd_host() { basename "$(readlink -f "/sys/block/$1/device")" | cut -d: -f1; }
sd_of_host() { # the sd disk on scsi host H, if any
	local b
	for b in /sys/class/scsi_host/host"$1"/device/target*/*/block/*; do
		[ -e "$b" ] && basename "$b"
	done
}

host_has_disk() { [ -n "$(sd_of_host "$1")" ]; }

main_table() { # the soak map's table for the slots with SL_INTAB=1
	local g i t n f
	if [ "$QUEUE" = 1 ]; then f="1 queue_if_no_path"; else f=0; fi
	t="0 $SIZE multipath $f 0 2 1"
	for g in 1 2; do
		n=0
		for ((i = 0; i < NSLOT; i++)); do
			[ "${SL_PG[$i]}" = "$g" ] && [ "${SL_INTAB[$i]}" = 1 ] && n=$((n + 1))
		done
		t+=" round-robin 0 $n 1"
		for ((i = 0; i < NSLOT; i++)); do
			[ "${SL_PG[$i]}" = "$g" ] && [ "${SL_INTAB[$i]}" = 1 ] && t+=" ${SL_DEV[$i]} $RC"
		done
	done
	echo "$t"
}

STACK_DELAY=100
stack_table() { # stack_table MODE
	local d=/dev/${SL_SD[2]}
	case $1 in
	linear) echo "0 $SIZE linear $d 0" ;;
	delay) echo "0 $SIZE delay $d 0 $STACK_DELAY" ;;
	flakey) echo "0 $SIZE flakey $d 0 0 1" ;;	# never up: every I/O fails
	flapping) echo "0 $SIZE flakey $d 0 2 2" ;;	# 2 s up, 2 s down
	esac
}

# ---- actions ------------------------------------------------------------
# Each returns 1 (doing nothing) if the policy or the model forbids it now.

# pick_sd: R = a random sd slot (0 1 3 4) that is up and may go down now;
# returns 1 if there is none.
pick_sd() {
	local i c=()
	for i in 0 1 3 4; do
		[ "${SL_STATE[$i]}" = up ] && may_break "$i" && c+=("$i")
	done
	[ ${#c[@]} -gt 0 ] || return 1
	rnd ${#c[@]}
	R=${c[$R]}
}
# break_sd STATE COMMAND EVENT: take a random breakable sd path down with
# COMMAND (path_offline, path_delete) and record it.
break_sd() {
	local i
	pick_sd || return 1
	i=$R
	do_cmd "$2" "${SL_SD[$i]}"
	SL_STATE[$i]=$1 SL_ACTIVE[$i]=0
	ev "$3" "slot $i ${SL_SD[$i]} (host ${SL_HOST[$i]})"
}
act_offline() { break_sd offline path_offline offline; }
act_running() {
	local i
	for ((i = 0; i < NSLOT; i++)); do
		[ "${SL_STATE[$i]}" = offline ] || continue
		do_cmd path_running "${SL_SD[$i]}"
		SL_STATE[$i]=up SL_SINCE[$i]=$CSTEP
		ev running "slot $i ${SL_SD[$i]}"
		return 0
	done
	return 1
}
act_delete() { break_sd deleted path_delete delete; }
# Rescan a deleted path's host; the disk comes back under a new name, and
# a reload puts it in the table in place of the dead one.
act_rescan() {
	local i sd
	for ((i = 0; i < NSLOT; i++)); do
		[ "${SL_STATE[$i]}" = deleted ] || continue
		do_cmd sh -c "echo '- - -' >/sys/class/scsi_host/host${SL_HOST[$i]}/scan"
		if ! wait_until 30 host_has_disk "${SL_HOST[$i]}"; then
			CHAOS_ERRORS=$((CHAOS_ERRORS + 1))
			note "COMMAND FAILED: rescan of host ${SL_HOST[$i]} brought no disk back"
			diag "rescan of host ${SL_HOST[$i]} brought no disk back"
			return 1
		fi
		sd=$(sd_of_host "${SL_HOST[$i]}")
		wait_until 10 test -b "/dev/$sd"
		ev rescan "slot $i host ${SL_HOST[$i]}: ${SL_SD[$i]} -> $sd"
		SL_SD[$i]=$sd SL_DEV[$i]=$(devnum "/dev/$sd") SL_STATE[$i]=stale
		reload_main 1
		return 0
	done
	return 1
}
act_stack() {
	local modes=() m was_healthy=0
	if [ -n "${1:-}" ]; then	# act_stack MODE: that one (the first round)
		m=$1
		[ "$m" != "${SL_STATE[2]}" ] || return 1
	else
		for m in linear delay flakey flapping; do
			[ "$m" != "${SL_STATE[2]}" ] && modes+=("$m")
		done
		rnd 3; m=${modes[$R]}
	fi
	if [ "$m" = flakey ] || [ "$m" = flapping ]; then
		may_break 2 || return 1
	fi
	healthy 2 && was_healthy=1
	rnd 200; STACK_DELAY=$((50 + R))
	stack_load "$m"
	SL_STATE[2]=$m
	if healthy 2; then
		[ $was_healthy = 1 ] || SL_SINCE[2]=$CSTEP
	else
		SL_ACTIVE[2]=0
	fi
	ev "stack-$m" "slot 2 $STACK over ${SL_SD[2]}$([ "$m" = delay ] && echo " ($STACK_DELAY ms)")"
}
act_fail_msg() {
	local i c=()
	for ((i = 0; i < NSLOT; i++)); do
		[ "${SL_INTAB[$i]}" = 1 ] && [ "${SL_ACTIVE[$i]}" = 1 ] && may_break "$i" && c+=("$i")
	done
	[ ${#c[@]} -gt 0 ] || return 1
	rnd ${#c[@]}; i=${c[$R]}
	do_cmd dmsetup message "$MAIN" 0 fail_path "${SL_DEV[$i]}"
	SL_ACTIVE[$i]=0 SL_SINCE[$i]=$CSTEP
	ev fail_path "slot $i ${SL_DEV[$i]}"
}
act_switch() {
	rnd 2
	do_cmd dmsetup message "$MAIN" 0 switch_group $((R + 1))
	PG_DIS=(0 0 0)
	ev switch_group "PG $((R + 1))"
}
# A disabled (bypassed) PG is still used when no other PG can: it takes no
# path out of use.
act_disable() {
	rnd 2
	do_cmd dmsetup message "$MAIN" 0 disable_group $((R + 1))
	PG_DIS[$((R + 1))]=1
	ev disable_group "PG $((R + 1))"
}
act_enable() {
	local g
	for g in 1 2; do
		[ "${PG_DIS[$g]}" = 1 ] || continue
		do_cmd dmsetup message "$MAIN" 0 enable_group "$g"
		PG_DIS[$g]=0
		ev enable_group "PG $g"
		return 0
	done
	return 1
}
act_queue_off() {
	[ "$QUEUE" = 1 ] || return 1
	usable
	[ "$R" -ge 2 ] || return 1
	local n=$R
	do_cmd dmsetup message "$MAIN" 0 fail_if_no_path
	QUEUE=0
	rnd 15; QOFF_UNTIL=$((CSTEP + 5 + R))
	ev fail_if_no_path "queueing off for $((QOFF_UNTIL - CSTEP)) steps ($n usable)"
}
queue_on() {
	[ "$QUEUE" = 0 ] || return 1
	do_cmd dmsetup message "$MAIN" 0 queue_if_no_path
	QUEUE=1
	ev queue_if_no_path "queueing back on"
}
act_suspend() {
	local nf
	rnd 2; nf=$R
	usable
	[ "$R" -ge 1 ] || nf=1	# no path: only noflush keeps the queued I/O
	rnd 1000
	if [ "$nf" = 1 ]; then
		do_cmd dmsetup suspend --noflush "$MAIN"
		ev suspend-noflush "for $R ms"
	else
		do_cmd dmsetup suspend "$MAIN"
		ev suspend-flush "for $R ms"
	fi
	sleep "$(printf '%d.%03d' $((R / 1000)) $((R % 1000)))"
	do_cmd dmsetup resume "$MAIN"
}
# reload_main ALL: load a table (all present paths if ALL=1, else a random
# subset keeping each PG non-empty) and swap it in; noflush unless a flush
# is safe and the dice say flush.
# A table can only name a path the kernel can open: not a deleted disk, and
# not an offline one either (sd_open refuses it, and the whole reload fails).
openable() { [ "${SL_STATE[$1]}" != deleted ] && [ "${SL_STATE[$1]}" != offline ]; }
reload_main() {
	local all=$1 i g n nf added="" removed="" usable_after usable_now
	local -a was=("${SL_INTAB[@]}") was_active=("${SL_ACTIVE[@]}") was_state=("${SL_STATE[@]}")
	for g in 1 2; do
		n=0
		for ((i = 0; i < NSLOT; i++)); do
			[ "${SL_PG[$i]}" = "$g" ] || continue
			SL_INTAB[$i]=0
			openable "$i" || continue
			if [ "$all" = 1 ]; then SL_INTAB[$i]=1; else rnd 3; [ "$R" -gt 0 ] && SL_INTAB[$i]=1; fi
			n=$((n + SL_INTAB[i]))
		done
		if [ "$n" = 0 ]; then	# keep the PG: its first present slot
			for ((i = 0; i < NSLOT; i++)); do
				[ "${SL_PG[$i]}" = "$g" ] && openable "$i" &&
					{ SL_INTAB[$i]=1; n=1; break; }
			done
		fi
		if [ "$n" = 0 ]; then
			SL_INTAB=("${was[@]}")
			return 1
		fi
	done
	usable_after=0
	for ((i = 0; i < NSLOT; i++)); do
		[ "${SL_INTAB[$i]}" = 1 ] || continue
		[ "${SL_STATE[$i]}" = stale ] && usable_after=$((usable_after + 1))
		healthy "$i" && usable_after=$((usable_after + 1))
	done
	if [ "$QUEUE" = 0 ] && [ "$usable_after" = 0 ]; then
		SL_INTAB=("${was[@]}")
		return 1
	fi
	# A new table starts with every path active; stale ones are fresh now.
	for ((i = 0; i < NSLOT; i++)); do
		[ "${SL_STATE[$i]}" = stale ] && [ "${SL_INTAB[$i]}" = 1 ] && SL_STATE[$i]=up
	done
	# The swap suspends the old table: a flush needs a path to drain to.
	SL_INTAB_NEW=("${SL_INTAB[@]}")
	SL_INTAB=("${was[@]}")
	usable
	usable_now=$R
	SL_INTAB=("${SL_INTAB_NEW[@]}")
	rnd 2; nf=$R
	[ "$usable_now" -ge 1 ] || nf=1
	for ((i = 0; i < NSLOT; i++)); do
		[ "${was[$i]}" = 0 ] && [ "${SL_INTAB[$i]}" = 1 ] && added+=" $i"
		[ "${was[$i]}" = 1 ] && [ "${SL_INTAB[$i]}" = 0 ] && removed+=" $i"
		if [ "${SL_INTAB[$i]}" = 1 ] && healthy "$i"; then SL_ACTIVE[$i]=1; else SL_ACTIVE[$i]=0; fi
	done
	if ! do_cmd dmsetup reload "$MAIN" --table "$(main_table)"; then
		# Refused: the old table stays, and so does the model of it.
		SL_INTAB=("${was[@]}") SL_ACTIVE=("${was_active[@]}") SL_STATE=("${was_state[@]}")
		return 1
	fi
	if [ "$nf" = 1 ]; then
		do_cmd dmsetup resume --noflush "$MAIN"
	else
		do_cmd dmsetup resume "$MAIN"
	fi
	PG_DIS=(0 0 0)
	ev "reload-$([ "$nf" = 1 ] && echo noflush || echo flush)" \
		"added:${added:- none} removed:${removed:- none} (slots in table: $(for ((i = 0; i < NSLOT; i++)); do printf %s "${SL_INTAB[$i]}"; done))"
}
act_reload() {
	rnd 2
	reload_main "$R"
}
# queue_watch MAP SECONDS: R = the largest queue MAP shows in that time.
queue_watch() {
	local t=$((SECONDS + $2)) qs
	R=0
	while [ $SECONDS -lt $t ]; do
		qs=$(queue_size "$1")
		[ "${qs:-0}" -gt "$R" ] && R=$qs
		sleep 0.3
	done
}
# All paths down for a few seconds, with queueing on: I/O must wait, then
# carry on with no error when the paths come back.
OUTAGES=0 OUTAGE_QUEUED=0
act_outage() {
	local i hold seen
	# The policy allows the outage only with queueing on: end a queue-off
	# period early rather than refuse (a short run has few steps, and the
	# outage must happen in it).
	[ "$QUEUE" = 1 ] || queue_on
	rnd 3; hold=$((2 + R))
	for ((i = 0; i < NSLOT; i++)); do
		[ "${SL_STATE[$i]}" = up ] && do_cmd path_offline "${SL_SD[$i]}" && SL_STATE[$i]=offline
		SL_ACTIVE[$i]=0
	done
	if healthy 2 || [ "${SL_STATE[2]}" = flapping ]; then
		stack_load flakey
		SL_STATE[2]=flakey
	fi
	ev all-paths-down "for ${hold} s, queueing on"
	OUTAGES=$((OUTAGES + 1))
	queue_watch "$MAIN" "$hold"
	seen=$R
	note "outage: largest queue seen $seen"
	[ "$seen" -gt 0 ] && OUTAGE_QUEUED=$((OUTAGE_QUEUED + 1))
	for ((i = 0; i < NSLOT; i++)); do
		if [ "${SL_STATE[$i]}" = offline ]; then
			do_cmd path_running "${SL_SD[$i]}"
			SL_STATE[$i]=up
		fi
		SL_SINCE[$i]=$((CSTEP - 2))	# the checker reinstates them now
	done
	stack_load linear
	SL_STATE[2]=linear
	ev paths-back "after the outage"
}
# The CLARiiON: another host trespasses the LUN (either way), or our map
# switches PG (alternately), which makes dm-emc trespass.
act_emc_owner() {
	local o
	[ -n "$EMC_ON" ] || return 1
	rnd 2
	if [ "$R" = 0 ]; then o=A; else o=B; fi
	do_cmd cl_ctl owner "$o"
	ev "emc-owner-$o" "another host trespasses the LUN to SP $o"
}
act_emc_switch() {
	[ -n "$EMC_ON" ] || return 1
	EMC_PG=$((3 - EMC_PG))
	do_cmd dmsetup message "$EMC" 0 switch_group "$EMC_PG"
	ev "emc-switch-$EMC_PG" "switch_group $EMC_PG: dm-emc trespasses to SP $([ "$EMC_PG" = 1 ] && echo A || echo B)"
}

# reinstate_failed MAP EVENT [READY]: reinstate every path MAP shows
# failed (for which READY MAJ:MIN succeeds, if given), each an EVENT.
# Kernel state, but it only decides what to repair, never what to break.
reinstate_failed() {
	local p
	for p in $(failed_paths "$1"); do
		[ -z "${3:-}" ] || "$3" "$p" || continue
		do_cmd dmsetup message "$1" 0 reinstate_path "$p"
		ev "$2" "$p"
	done
}

# The path checker (multipathd's job): reinstate what is healthy again,
# two steps after it became so, every failed path of the emc and alua
# maps, and the iSCSI map's paths that are ready again.
checker() {
	local i
	for ((i = 0; i < NSLOT; i++)); do
		[ "${SL_INTAB[$i]}" = 1 ] && [ "${SL_ACTIVE[$i]}" = 0 ] && healthy "$i" || continue
		[ $((CSTEP - ${SL_SINCE[$i]:-0})) -ge 2 ] || continue
		do_cmd dmsetup message "$MAIN" 0 reinstate_path "${SL_DEV[$i]}"
		SL_ACTIVE[$i]=1
		ev reinstate "slot $i ${SL_DEV[$i]}"
	done
	alua_reinstate
	iscsi_checker
	[ -z "$EMC_ON" ] || reinstate_failed "$EMC" emc-reinstate
}

ACTIONS=(offline running delete rescan stack fail_msg switch disable enable
	queue_off suspend reload outage emc_owner emc_switch)
WEIGHTS=(8 6 3 3 8 6 3 2 3 4 4 4 1 4 3)

# chaos_step: one action: each kind once first (in a seeded order), then
# by weight; an action the policy refuses is skipped for another.
declare -a ORDER=()
chaos_step() {
	local i a total=0 tries w
	CSTEP=$((CSTEP + 1))
	if [ "$QUEUE" = 0 ] && [ "$CSTEP" -ge "$QOFF_UNTIL" ]; then
		queue_on
		return
	fi
	iscsi_due && return
	if [ ${#ORDER[@]} -gt 0 ]; then
		a=${ORDER[0]}
		ORDER=("${ORDER[@]:1}")
		if [[ $a == *:* ]]; then "act_${a%%:*}" "${a#*:}" && return; else "act_$a" && return; fi
		# Refused now (the policy): try it again after the others, until
		# it runs; the weighted pick below keeps the chaos going meanwhile.
		ORDER+=("$a")
	fi
	for w in "${WEIGHTS[@]}"; do total=$((total + w)); done
	for tries in 1 2 3 4 5 6 7 8; do
		rnd "$total"
		for ((i = 0; i < ${#ACTIONS[@]}; i++)); do
			R=$((R - WEIGHTS[i]))
			[ "$R" -lt 0 ] && break
		done
		"act_${ACTIONS[$i]}" && return
	done
	: "$tries"
}
# The first round: every kind once, in a seeded order; each failing mode of
# the stack; emc_switch twice (both directions); enable right after disable;
# on the ALUA array both ends of a transition, standby and unavailable, and
# a switch that needs STPG.
chaos_shuffle() {
	local i j t a
	local -a o=()
	ORDER=()
	for a in "${ACTIONS[@]}" emc_switch; do
		case $a in
		stack) ORDER+=(stack:delay stack:flakey stack:flapping) ;;
		enable) ;;
		alua_trans) ORDER+=(alua_trans:back alua_trans:swap) ;;
		alua_down) ORDER+=(alua_down:s alua_down:u) ;;
		alua_switch) ORDER+=(alua_switch:stpg) ;;
		iscsi_cut) ORDER+=(iscsi_cut:down iscsi_cut:loss iscsi_cut:drop iscsi_cut:flap) ;;
		*) ORDER+=("$a") ;;
		esac
	done
	for ((i = ${#ORDER[@]} - 1; i > 0; i--)); do
		rnd $((i + 1)); j=$R
		t=${ORDER[$i]} ORDER[$i]=${ORDER[$j]} ORDER[$j]=$t
	done
	for a in "${ORDER[@]}"; do
		o+=("$a")
		[ "$a" = disable ] && o+=(enable)
	done
	ORDER=("${o[@]}")
}

# Back to everything healthy, in the table and active, queueing on.
restore_all() {
	local i
	note "restore: everything back"
	queue_on
	for ((i = 0; i < NSLOT; i++)); do
		if [ "${SL_STATE[$i]}" = offline ]; then
			do_cmd path_running "${SL_SD[$i]}"
			SL_STATE[$i]=up
		fi
	done
	while act_rescan; do :; done
	if [ "${SL_STATE[2]}" != linear ]; then
		stack_load linear
		SL_STATE[2]=linear
	fi
	reload_main 1
	for ((i = 0; i < NSLOT; i++)); do SL_ACTIVE[$i]=0 SL_SINCE[$i]=-10; done
	alua_restore
	iscsi_restore
	checker
}

# ---- setup, fio, verdict, teardown ------------------------------------------

# soak_param NAME DEFAULT: mptest.soakNAME=VALUE from the kernel command line
# (run-soak passes them through GUEST_CMDLINE), else DEFAULT.
soak_param() {
	local v
	v=$(cmdline_num "soak$1")
	echo "${v:-$2}"
}

HUNG_WAS=""
soak_setup() {
	local i out t
	HUNG_WAS=$(sysctl -n kernel.hung_task_timeout_secs)
	on_exit "sysctl -q kernel.hung_task_timeout_secs=$HUNG_WAS"
	check "hung task timeout 30 s for the soak" sysctl -q kernel.hung_task_timeout_secs=30 || return 1
	# Cleanup on an early exit (the normal path tears down as checked steps).
	on_exit "mod_unload_retry scsi_debug"
	on_exit "mod_unload_retry dm_delay; mod_unload_retry dm_flakey"
	on_exit "mp_mods_unload"
	on_exit "'$CL/clariion-down'"
	# Before clariion-down: the target modules are the CLARiiON's.
	on_exit "'$LIO/lio-down'"
	# After the map over its disks is removed, before the target modules
	# go: it unloads only the modules san-up added.
	on_exit "[ -z \"\$ISCSI_SAN\" ] || '$SAN/san-down'"
	on_exit "dm_remove $STACK"
	on_exit "dm_remove $MAIN; dm_remove $EMC; dm_remove $ALUA; dm_remove $ISCSI"
	on_exit "for s in \${SL_SD[@]}; do path_running \$s; done"
	on_exit "for m in $MAIN $EMC $ALUA $ISCSI; do dmsetup message \$m 0 fail_if_no_path; done; kill \${FIO_PIDS[*]} 2>/dev/null; wait"
	# (silent links would hold the I/O in flight, and the removals, for
	# the iSCSI timeouts)
	on_exit "[ -z \"\$ISCSI_SAN\" ] || '$SAN/san-ctl' restore all"
	# First of all at an early exit (a timeout too): keep the chaos log.
	on_exit "cp $CHAOS_LOG /results/350-soak.chaos.log"

	check "modprobe dm-flakey dm-delay" sh -c "modprobe dm-flakey && modprobe dm-delay" || return 1
	sdebug_up 5 || { tap_fail "scsi_debug with 5 paths"; return 1; }
	tap_ok "scsi_debug with 5 paths: ${SD_NAMES[*]}"
	check "modules load" mp_mods_load || return 1
	check "modprobe dm-emc" modprobe dm-emc || return 1
	SIZE=$(blockdev --getsz "${SD_DEVS[0]}")
	SL_PG=(1 1 1 2 2)
	for ((i = 0; i < NSLOT; i++)); do
		SL_SD[$i]=${SD_NAMES[$i]}
		SL_HOST[$i]=$(sd_host "${SD_NAMES[$i]}")
		SL_DEV[$i]=$(devnum "${SD_DEVS[$i]}")
		SL_STATE[$i]=up SL_INTAB[$i]=1 SL_ACTIVE[$i]=1 SL_SINCE[$i]=0
	done
	SL_STATE[2]=linear
	check "create the stack $STACK (linear over ${SL_SD[2]})" dm_create "$STACK" "$(stack_table linear)" || return 1
	SL_DEV[2]=$(devnum /dev/mapper/$STACK)
	check "create $MAIN: PG1 = ${SL_SD[0]} ${SL_SD[1]} $STACK, PG2 = ${SL_SD[3]} ${SL_SD[4]}" \
		dm_create "$MAIN" "$(main_table)" || return 1
	diag "table of $MAIN: $(main_table)"

	clariion_start --ports-per-sp 2 || return 1
	for p in A0 A1 B0 B1; do EMC_DEVS+=("$(devnum "${CL_DEV[$p]}")"); done
	t=$(blockdev --getsz "${CL_DEV[A0]}")
	t="0 $t multipath 1 queue_if_no_path 1 emc 2 1 round-robin 0 2 1 ${EMC_DEVS[0]} 100 ${EMC_DEVS[1]} 100 round-robin 0 2 1 ${EMC_DEVS[2]} 100 ${EMC_DEVS[3]} 100"
	check "create $EMC on the emulated CLARiiON (PG1 = SP A, PG2 = SP B)" dm_create "$EMC" "$t" || return 1
	check "first I/O on $EMC" dd if=/dev/mapper/$EMC of=/dev/null bs=64k count=4 iflag=direct status=none || return 1
	cl_ctl reset-counters >/dev/null
	EMC_ON=1
	if [ "$SOAK_ALUA" = 1 ]; then alua_setup || return 1; else diag "soak: without the ALUA map (mptest.soakalua=1 adds it; run-soak does)"; fi
	if [ "$SOAK_ISCSI" -gt 0 ]; then
		iscsi_setup "$SOAK_ISCSI" || return 1
	else
		diag "soak: without the iSCSI map (mptest.soakiscsi=N adds it over N links; run-soak does)"
	fi
	out=$(dmsetup status "$MAIN")
	check_match "$MAIN: 5 paths active" "( [0-9]+:[0-9]+ A [0-9]+.*){5}" "$out"
}

# fio_job MAP SECTORS WRITERS [OPTION]: a job file: WRITERS random writers with
# crc32c verification (verify_backlog: verified while the run goes on), each
# in its own region, and one random reader over the whole device. fio runs
# at nice 19: in the emulated guest it would leave the chaos driver no CPU.
# OPTION: one more global line (a rate bound).
fio_job() {
	local map=$1 bytes=$(($2 * 512)) n=$3 region
	region=$((bytes / n / 1048576 * 1048576))
	cat <<-EOF
	[global]
	filename=/dev/mapper/$map
	ioengine=libaio
	direct=1
	time_based
	runtime=$SOAK_DUR
	randseed=$SOAK_SEED
	iodepth=$IODEPTH
	bsrange=4k-64k
	blockalign=4k
	nice=19
	${4:-}

	[$map-w]
	rw=randwrite
	numjobs=$n
	size=$region
	offset_increment=$region
	verify=crc32c
	verify_backlog=$BACKLOG
	verify_fatal=1

	[$map-r]
	rw=randread
	numjobs=1
	bs=4k
	EOF
}

FIO_PIDS=() FIO_MAPS=()
fio_start() { # fio_start MAP SECTORS WRITERS [OPTION]
	fio_job "$1" "$2" "$3" "${4:-}" >"/tmp/fio-$1.job"
	fio --output-format=json --output="/tmp/fio-$1.json" "/tmp/fio-$1.job" \
		>"/tmp/fio-$1.log" 2>&1 &
	FIO_PIDS+=($!) FIO_MAPS+=("$1")
}

VERIFIED_TOTAL=0
fio_verdict() { # fio_verdict MAP RC
	local map=$1 rc=$2 j=/tmp/fio-$1.json json ioerr verr w v r n
	json=$(sed -n '/^{/,$p' "$j")
	if ! jq -e . >/dev/null 2>&1 <<<"$json"; then
		tap_fail "fio on $map: json output" "$(head -c 500 "$j")" "$(tail -n 5 "/tmp/fio-$map.log")"
		return 1
	fi
	check_eq "fio on $map: exit status" 0 "$rc"
	# fio's error code for a verify failure is EILSEQ (84).
	verr=$(jq '[.jobs[] | select(.error == 84)] | length' <<<"$json")
	ioerr=$(jq '[.jobs[] | select(.error != 0 and .error != 84)] | length' <<<"$json")
	check_eq "fio on $map: 0 verify errors" 0 "$verr"
	check_eq "fio on $map: 0 I/O errors" 0 "$ioerr"
	check_match "fio on $map: no verify complaint in its log" "^$" \
		"$(grep -i 'verify\|bad magic\|crc32c' "/tmp/fio-$map.log" | grep -v '^fio: multiple writers' | head -n 5)"
	n=$(jq "[.jobs[] | select(.jobname == \"$map-w\")] | length" <<<"$json")
	w=$(jq "[.jobs[] | select(.jobname == \"$map-w\") | .write.total_ios] | add" <<<"$json")
	v=$(jq "[.jobs[] | select(.jobname == \"$map-w\") | .read.total_ios] | add" <<<"$json")
	r=$(jq "[.jobs[] | select(.jobname == \"$map-r\") | .read.total_ios] | add" <<<"$json")
	diag "soak: fio on $map: $n writers wrote $w I/Os, verified $v of them during the run; reader read $r I/Os"
	VERIFIED_TOTAL=$((VERIFIED_TOTAL + v))
	check "fio on $map: I/O was verified during the run (verified > 0)" test "$v" -gt 0
	# Every write is read back and checked once the backlog fills: at the
	# end at most the last backlog or two (and what was in flight) per writer
	# is left unverified.
	check "fio on $map: all but the last backlog verified ($w written, $v verified)" \
		test $((w - v)) -le $((n * 2 * (BACKLOG + IODEPTH)))
}

# Trespasses counted by the emulator, per SP.
emc_trespasses() { # emc_trespasses SP FIELD
	local p s=0 c
	for p in "${CL_PORTS[@]}"; do
		[ "${p:0:1}" = "$1" ] || continue
		c=$(cl_counter "$p" "$2") || c=0
		s=$((s + c))
	done
	echo "$s"
}

soak_main() { # soak_main DURATION_S SEED
	SOAK_DUR=$1 SOAK_SEED=$2
	# The ALUA map: on in run-soak (make soak), off in make check's 350
	# unless mptest.soakalua=1: on a loaded machine its blocking
	# transitions and STPG waits left the 185 s of chaos 30-40 % fewer
	# steps for 6 more first-round kinds, and some runs missed kinds.
	SOAK_ALUA=${SOAK_ALUA:-$(soak_param alua 0)}
	# The iSCSI map over N links (0: none): on in run-soak, off in make
	# check's 350 unless mptest.soakiscsi=N (see tests/soak/README.md).
	SOAK_ISCSI=${SOAK_ISCSI:-$(soak_param iscsi 0)}
	case $SOAK_ISCSI in 0 | [2-8]) ;; *) SOAK_ISCSI=2 ;; esac
	local end i k t0 line st ta tb missing t_setup
	local -a rc=()
	: >"$CHAOS_LOG"
	diag "soak: seed $SOAK_SEED, duration ${SOAK_DUR} s (replay: tests/soak/run-soak --duration ${SOAK_DUR}s --seed $SOAK_SEED)"
	srand "$SOAK_SEED"
	t_setup=$SECONDS
	soak_setup || { diag "soak: setup failed"; return 1; }

	t0=$SECONDS
	diag "soak: setup took $((SECONDS - t_setup)) s"
	fio_start "$MAIN" "$SIZE" 3
	fio_start "$EMC" "$(blockdev --getsz /dev/mapper/$EMC)" 2
	# LIO's ramdisk answers at once, and its work in the guest's kernel is
	# not niced with fio: unbounded, this fio alone would slow the chaos.
	[ -z "$ALUA_ON" ] || fio_start "$ALUA" "$(blockdev --getsz /dev/mapper/$ALUA)" 1 rate_iops=100
	# (the same for the iSCSI target's work, and iscsi_tcp's)
	[ -z "$ISCSI_ON" ] || fio_start "$ISCSI" "$(blockdev --getsz /dev/mapper/$ISCSI)" 1 rate_iops=100
	sleep 3
	for i in "${!FIO_PIDS[@]}"; do
		check "fio $i is running" kill -0 "${FIO_PIDS[$i]}"
	done
	SOAK_T0=$SECONDS
	if [ -n "$ALUA_ON" ]; then
		ACTIONS+=(alua_swap alua_trans alua_down alua_switch)
		WEIGHTS+=(3 2 3 3)
	fi
	if [ -n "$ISCSI_ON" ]; then
		ACTIONS+=(iscsi_cut iscsi_slow iscsi_outage)
		WEIGHTS+=(5 3 1)
	fi
	chaos_shuffle
	note "chaos: seed $SOAK_SEED, order: ${ORDER[*]}"
	# Stop the chaos early enough to repair everything before fio ends.
	end=$((t0 + SOAK_DUR - 15))
	while [ $SECONDS -lt "$end" ]; do
		chaos_step
		checker
		rnd 500
		sleep "0.$(printf '%03d' $((200 + R)))"
	done
	restore_all
	note "chaos over after $CSTEP steps, repaired; waiting for fio"
	diag "soak: chaos ran $((end - SOAK_T0)) s, the repair after it $((SECONDS - end)) s"
	k=$SECONDS
	for i in "${!FIO_PIDS[@]}"; do
		wait "${FIO_PIDS[$i]}"
		rc+=($?)
	done
	FIO_PIDS=()
	diag "soak: fio ended $((SECONDS - k)) s after the repair"
	diag "soak: $CSTEP chaos steps, $STEP events in $((SECONDS - SOAK_T0)) s"
	line=""
	for k in $(printf '%s\n' "${!EV[@]}" | sort); do line+=" $k=${EV[$k]}"; done
	diag "soak: events by kind:$line"
	for i in "${!FIO_MAPS[@]}"; do
		fio_verdict "${FIO_MAPS[i]}" "${rc[i]}"
	done
	diag "soak: I/Os verified: $VERIFIED_TOTAL"
	check_eq "every chaos command succeeded" 0 "$CHAOS_ERRORS"
	check_eq "every all-paths-down outage queued I/O ($OUTAGES outages)" "$OUTAGES" "$OUTAGE_QUEUED"
	missing=""
	for k in offline running delete rescan fail_path reinstate switch_group \
		disable_group enable_group fail_if_no_path queue_if_no_path \
		all-paths-down paths-back suspend- reload- stack-delay stack-fl \
		emc-owner- emc-switch-1 emc-switch-2; do
		ev_sum "$k"
		[ "$R" -gt 0 ] || missing+=" $k"
	done
	if [ -n "$ALUA_ON" ]; then
		for k in alua-swap- alua-trans-back alua-trans-swap alua-standby \
			alua-unavail alua-stpg- alua-reinstate; do
			ev_sum "$k"
			[ "$R" -gt 0 ] || missing+=" $k"
		done
	fi
	if [ -n "$ISCSI_ON" ]; then
		for k in iscsi-down iscsi-loss iscsi-drop iscsi-flap iscsi-slow \
			iscsi-restore iscsi-all-down iscsi-links-back iscsi-reinstate; do
			ev_sum "$k"
			[ "$R" -gt 0 ] || missing+=" $k"
		done
	fi
	check_eq "the chaos ran every kind of fault (missing:${missing:- none})" "" "$missing"
	ta=$(emc_trespasses A trespass_ok) tb=$(emc_trespasses B trespass_ok)
	diag "soak: dm-emc trespasses completed: to SP A $ta, to SP B $tb; rejected on passive ports: $(($(emc_trespasses A passive_rejects) + $(emc_trespasses B passive_rejects)))"
	check "dm-emc trespassed to SP A" test "$ta" -gt 0
	check "dm-emc trespassed to SP B" test "$tb" -gt 0
	st=$(dmsetup status "$MAIN")
	check_match "$MAIN after the repair: no bio queued, all 5 paths active" \
		"^0 [0-9]+ multipath 1 0 .*( [0-9]+:[0-9]+ A [0-9]+.*){5}" "$st"
	check_eq "$EMC after the run: no bio queued" 0 "$(queue_size "$EMC")"
	alua_verdict
	iscsi_verdict
	cp "$CHAOS_LOG" /results/350-soak.chaos.log 2>/dev/null
	diag "soak: chaos log (last 15 lines; all in 350-soak.chaos.log):"
	tail -n 15 "$CHAOS_LOG" | sed 's/^/#   /'

	t0=$SECONDS
	soak_teardown
	diag "soak: teardown took $((SECONDS - t0)) s"
}

soak_teardown() {
	local m
	if [ -n "$ISCSI_ON" ]; then
		check "remove $ISCSI" dm_remove "$ISCSI"
		# Before lio-down and clariion-down: the target modules are theirs.
		check "san-down" "$SAN/san-down"
	fi
	check "remove $MAIN" dm_remove "$MAIN"
	check "remove $EMC" dm_remove "$EMC"
	check "remove $STACK" dm_remove "$STACK"
	if [ -n "$ALUA_ON" ]; then
		check "remove $ALUA" dm_remove "$ALUA"
		# Before clariion-down: the target modules are the CLARiiON's.
		check "lio-down" "$LIO/lio-down"
	fi
	clariion_stop
	for m in dm_emc dm_alua dm_round_robin dm_service_time dm_multipath dm_flakey dm_delay scsi_debug; do
		check "unload $m" mod_unload_retry "$m"
	done
}
