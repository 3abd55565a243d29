# shellcheck shell=bash
# The soak's third map, soak-alua: the LIO ALUA array of tests/lio (one LUN,
# 2 target port groups of 2 tcm_loop ports each), "1 alua" (dm-alua) and
# always queue_if_no_path, PG1 = group 1's ports, PG2 = group 2's. Sourced
# by soak-lib.sh, whose PRNG (rnd), event log (ev, note), do_cmd and
# policy it shares.
#
# Its chaos: the array changes the groups' ALUA states (configfs
# alua_access_state, through lio-ctl), and our map switches to a group
# that is not active, which makes dm-alua send STPG. The model: LS[G], the
# state each group was last given. It is exact for what the array does;
# an STPG only makes a group active/optimized, so a group the model has
# standby or unavailable may really be active (dm-alua's own pg_init after
# a failover may have sent one): the model errs only towards fewer usable
# groups. No action ever leaves the array without an active/optimized
# group (outside the 2-4 s of a transition), and the map always queues, so
# no I/O error may reach fio. The checker reinstates the map's failed
# paths every step (multipathd's job).

ALUA=soak-alua
LIO=$REPO/tests/lio
ALUA_ON=""		# set once the map is up
ALUA_PORTS=()		# g1p0 g1p1 g2p0 g2p1
declare -A ALUA_DEV	# ALUA_DEV[g1p0]=/dev/sdX
declare -A ALUA_NUM	# ALUA_NUM[g1p0]=MAJ:MIN
ALUA_NUMS=()		# the map's paths, table order
declare -a LS=("" ao s)	# the model: group 1, group 2
ALUA_STPG_OK=0		# STPGs of ours that LIO shows took effect
ALUA_LAST=""		# the last action on the array, for the final check
# The target modules stay loaded on the debug kernel (as tests/lio/lib.sh).
export LIO_KEEP_MODULES=${LIO_KEEP_MODULES:-$(per_kernel 0 1)}

lio_ctl() { "$LIO/lio-ctl" "$@"; }
alua_other() { echo $((3 - $1)); }

# alua_setup: the array (after the CLARiiON: its target modules are then
# already loaded, and lio-down, which runs first, leaves them to
# clariion-down) and the map. Cleanup at exit is registered by soak_setup.
alua_setup() {
	local out p g d t n
	t=${EPOCHREALTIME/./}
	if ! out=$("$LIO/lio-up" --groups 2 --ports-per-group 2 2>&1); then
		tap_fail "lio-up: the ALUA array" "$out"
		return 1
	fi
	diag "soak: lio-up took $(((${EPOCHREALTIME/./} - t) / 1000)) ms"
	while read -r p g d; do
		[[ $p =~ ^g[12]p[01]$ ]] || continue
		ALUA_PORTS+=("$p")
		ALUA_DEV[$p]=$d
		ALUA_NUM[$p]=$(devnum "$d")
		ALUA_NUMS+=("${ALUA_NUM[$p]}")
	done <<<"$out"
	check_eq "lio-up: 2 groups of 2 ports" "g1p0 g1p1 g2p0 g2p1" "${ALUA_PORTS[*]}" || return 1
	check "modprobe dm-alua" modprobe dm-alua || return 1
	n=$(blockdev --getsz "${ALUA_DEV[g1p0]}")
	t="0 $n multipath 1 queue_if_no_path 1 alua 2 1"
	t+=" round-robin 0 2 1 ${ALUA_NUM[g1p0]} $RC ${ALUA_NUM[g1p1]} $RC"
	t+=" round-robin 0 2 1 ${ALUA_NUM[g2p0]} $RC ${ALUA_NUM[g2p1]} $RC"
	check "create $ALUA on the LIO ALUA array (PG1 = group 1, PG2 = group 2)" dm_create "$ALUA" "$t" || return 1
	check "first I/O on $ALUA" dd if=/dev/mapper/$ALUA of=/dev/null bs=64k count=4 iflag=direct status=none || return 1
	check_eq "LIO: group 1 active/optimized, group 2 standby" "ao s" "$(lio_ctl state 1) $(lio_ctl state 2)" || return 1
	LS=("" ao s)
	ALUA_ON=1
}

# alua_set G STATE: the array puts group G in STATE (implicit ALUA).
alua_set() {
	do_cmd lio_ctl state "$1" "$2" || return 1
	LS[$1]=$2
}

# The array moves the LUN to group G (rnd): G active/optimized first, then
# the other standby, so that a group is active all along.
act_alua_swap() {
	local g o
	[ -n "$ALUA_ON" ] || return 1
	if [ "${LS[1]}" = ao ] && [ "${LS[2]}" = ao ]; then
		rnd 2; g=$((R + 1))
	elif [ "${LS[1]}" = ao ]; then
		g=2
	else
		g=1
	fi
	o=$(alua_other "$g")
	alua_set "$g" ao
	alua_set "$o" s
	ALUA_LAST="array: group $g active/optimized, group $o standby"
	ev "alua-swap-$g" "the array moves the LUN to group $g (group $o standby)"
}

# An active group goes transitioning for 2-4 s, then back to
# active/optimized ("back"), or to standby while the other becomes
# active/optimized ("swap"; the other transitions with it if it was not
# active). The chaos waits the transition out.
act_alua_trans() {
	local g o how hold c=()
	[ -n "$ALUA_ON" ] || return 1
	for g in 1 2; do [ "${LS[$g]}" = ao ] && c+=("$g"); done
	[ ${#c[@]} -gt 0 ] || return 1
	rnd ${#c[@]}; g=${c[$R]}
	o=$(alua_other "$g")
	if [ -n "${1:-}" ]; then how=$1; else rnd 2; how=$([ "$R" = 0 ] && echo back || echo swap); fi
	rnd 3; hold=$((2 + R))
	if [ "$how" = back ]; then
		do_cmd lio_ctl transition "$g" "$hold" ao
		ALUA_LAST="array: group $g transitioning $hold s, then active/optimized"
	else
		if [ "${LS[$o]}" != ao ]; then
			do_cmd lio_ctl transition "$o" "$hold" ao
		fi
		do_cmd lio_ctl transition "$g" "$hold" s
		ALUA_LAST="array: group $g transitioning $hold s, then standby; group $o active/optimized"
	fi
	ev "alua-trans-$how" "group $g transitioning for $hold s, then $([ "$how" = back ] && echo "active/optimized again" || echo "standby, group $o active/optimized")"
	do_cmd lio_ctl wait-transitions
	if [ "$how" = back ]; then
		LS[$g]=ao
	else
		LS[$o]=ao LS[$g]=s
	fi
	note "transition over: LIO $(lio_ctl state 1) $(lio_ctl state 2), model ${LS[1]} ${LS[2]}"
}

# A group goes standby or unavailable (ACT: s or u, else rnd) while the
# other is active/optimized.
act_alua_down() {
	local g o st c=()
	[ -n "$ALUA_ON" ] || return 1
	if [ -n "${1:-}" ]; then st=$1; else rnd 2; st=$([ "$R" = 0 ] && echo s || echo u); fi
	for g in 1 2; do
		o=$(alua_other "$g")
		[ "${LS[$o]}" = ao ] && [ "${LS[$g]}" != "$st" ] && c+=("$g")
	done
	[ ${#c[@]} -gt 0 ] || return 1
	rnd ${#c[@]}; g=${c[$R]}
	alua_set "$g" "$st"
	ALUA_LAST="array: group $g $([ "$st" = s ] && echo standby || echo unavailable)"
	ev "alua-$([ "$st" = s ] && echo standby || echo unavail)" "group $g (group $(alua_other "$g") active/optimized)"
}

# alua_reinstate: reinstate every failed path of the map (the checker;
# kernel state, but it only decides what to repair).
alua_reinstate() {
	[ -z "$ALUA_ON" ] || reinstate_failed "$ALUA" alua-reinstate
}

# alua_stpg G: switch_group G, where the model has group G standby or
# unavailable: dm-alua's pg_init sends STPG before the next I/O goes out
# (a read of ours: fio may be over), and LIO must show group G
# active/optimized, altered by explicit STPG. The group's paths may have
# failed just before (the array made it standby under the map): they are
# reinstated first, and the switch repeated if the map could not take it
# (a path failed by I/O still in flight). The other group is active (the
# model's invariant), so the read cannot wait for a path.
alua_stpg() {
	local g=$1 try
	for try in 1 2 3; do
		alua_reinstate
		do_cmd dmsetup message "$ALUA" 0 switch_group "$g" || return 1
		do_cmd timeout 60 dd if=/dev/mapper/$ALUA of=/dev/null bs=4k count=1 iflag=direct status=none
		wait_until 5 eval "[ \"\$(lio_ctl state $g)\" = ao ]" && break
		note "switch_group $g: group $g still $(lio_ctl state "$g") (try $try)"
	done
	if [ "$(lio_ctl state "$g")" != ao ] || [ "$(lio_ctl status "$g")" != "Altered by Explicit STPG" ]; then
		CHAOS_ERRORS=$((CHAOS_ERRORS + 1))
		note "COMMAND FAILED: switch_group $g: LIO shows group $g $(lio_ctl state "$g"), $(lio_ctl status "$g")"
		diag "chaos step $CSTEP: switch_group $g of $ALUA: no STPG took effect (LIO: $(lio_ctl state "$g"), $(lio_ctl status "$g"))"
		return 1
	fi
	ALUA_STPG_OK=$((ALUA_STPG_OK + 1))
	LS[$g]=ao
	ALUA_LAST="switch_group $g: STPG makes group $g active/optimized"
}

# Our map switches PG: to a group the model has not active (STPG; "stpg"
# in the first round asks for that), else to either (no STPG needed).
act_alua_switch() {
	local g c=()
	[ -n "$ALUA_ON" ] || return 1
	for g in 1 2; do [ "${LS[$g]}" != ao ] && c+=("$g"); done
	if [ ${#c[@]} -gt 0 ]; then
		rnd ${#c[@]}; g=${c[$R]}
		ev "alua-stpg-$g" "switch_group $g: group $g is ${LS[$g]}, dm-alua sends STPG"
		alua_stpg "$g"
		return 0
	fi
	[ "${1:-}" != stpg ] || return 1
	rnd 2; g=$((R + 1))
	do_cmd dmsetup message "$ALUA" 0 switch_group "$g"
	ALUA_LAST="switch_group $g (group $g active/optimized already)"
	ev "alua-switch-$g" "switch_group $g: both groups active/optimized, no STPG"
}

# The end: the array makes group X (rnd) active/optimized and Y standby,
# then our switch_group Y brings Y back by STPG; every path reinstated.
ALUA_END_X=0 ALUA_END_Y=0
alua_restore() {
	[ -n "$ALUA_ON" ] || return 0
	rnd 2; ALUA_END_X=$((R + 1)); ALUA_END_Y=$((3 - ALUA_END_X))
	alua_set "$ALUA_END_X" ao
	alua_set "$ALUA_END_Y" s
	ev "alua-swap-$ALUA_END_X" "restore: the array moves the LUN to group $ALUA_END_X"
	sleep 1		# the map's failover, if it was on group Y
	ev "alua-stpg-$ALUA_END_Y" "restore: switch_group $ALUA_END_Y, STPG"
	alua_stpg "$ALUA_END_Y"
	alua_reinstate
}

# The verdict on the array and the map, once fio has ended.
alua_verdict() {
	local k line="" st n=0 p
	[ -n "$ALUA_ON" ] || return 0
	for k in swap- trans-back trans-swap standby unavail stpg- switch- reinstate; do
		ev_sum "alua-$k"
		line+=" ${k%-}=$R"
	done
	diag "soak: alua events:$line; STPGs LIO confirmed: $ALUA_STPG_OK"
	check_eq "LIO after the run, as the last action left it ($ALUA_LAST; other group $ALUA_END_X active/optimized)" \
		"ao ao Altered by Explicit STPG" \
		"$(lio_ctl state "$ALUA_END_X") $(lio_ctl state "$ALUA_END_Y") $(lio_ctl status "$ALUA_END_Y")"
	check_eq "LIO agrees with the model (group 1, group 2)" "${LS[1]} ${LS[2]}" "$(lio_ctl state 1) $(lio_ctl state 2)"
	st=$(dmsetup status "$ALUA")
	for p in "${ALUA_NUMS[@]}"; do [[ " $st " == *" $p A "* ]] && n=$((n + 1)); done
	check_eq "$ALUA after the run: all 4 paths active ($st)" 4 "$n"
	check_eq "$ALUA after the run: no bio queued" 0 "$(queue_size "$ALUA")"
}
