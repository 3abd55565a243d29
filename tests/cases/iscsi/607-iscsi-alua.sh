#!/bin/bash
# ALUA over iSCSI: dm-alua on the SAN's LUN, two port groups of two links each, implicit swap and a cut link.
# The iSCSI SAN with 4 links; the LUN's target ports (one per link) are put
# in two LIO ALUA port groups: links p0,p1 in group 1 (active/optimized),
# p2,p3 in group 2 (standby), implicit and explicit ALUA.  Our map: `1 alua`,
# one PG per port group, queue_if_no_path.  Under fio --verify=crc32c:
#  - the first I/O goes through group 1, and pg_init sent no STPG;
#  - the array swaps the groups (implicit: group 1 standby, group 2
#    active/optimized): group 1's paths fail on their first NOT READY, the
#    map moves to group 2 and finds it active, LIO shows group 2 "Altered
#    by Implicit ALUA", and I/O goes on over p2/p3;
#  - link p2 is cut silently (iptables DROP): p2 fails after the transport
#    gives up, p3 carries the I/O alone; p2 restored and reinstated by the
#    checker (it reads again), group 1's paths are not (standby: reads fail).
# fio ends with no I/O and no verify error.  Runs without multipathd and
# without scsi_dh_alua (guest-init blocks it), with our target.
# tier: full (the ALUA behaviour is covered over tcm_loop by 501-510)
# timeout: 600
source "${0%/*}/rc"

san_start --links 4 --noop-interval 2 --noop-timeout 2 --replacement-timeout 5 ||
	{ tap_fail "san-up: 4 links"; exit 1; }
tap_ok "san-up: 4 links"
P=("${SAN_NUMS[@]}") N=("${SAN_NAMES[@]}")
S=$(blockdev --getsz "${SAN_DEVS[0]}")
LUN=$SAN_CONFIGFS/core/$SAN_HBA/lun0
TPG=$SAN_CONFIGFS/iscsi/$SAN_IQN

# ---- two ALUA port groups on the SAN's LUN (LIO configfs) -----------------
group_dir() { echo "$LUN/alua/mp_g$1"; }
join_group() { echo "$2" >"$TPG/tpgt_$(($1 + 1))/lun/lun_0/alua_tg_pt_gp"; } # LINK GROUPDIR-NAME
set_state() { echo "$2" >"$(group_dir "$1")/alua_access_state"; }          # GROUP 0|1|2...
state_of() { read -r s <"$(group_dir "$1")/alua_access_state" && echo "$s"; }
status_of() { cat "$(group_dir "$1")/alua_access_status"; }
alua_down() {
	local i g
	for i in 0 1 2 3; do join_group "$i" default_tg_pt_gp; done
	for g in 1 2; do [ -d "$(group_dir $g)" ] && rmdir "$(group_dir $g)"; done
	return 0
}
alua_up() {
	local g
	for g in 1 2; do
		mkdir "$(group_dir $g)" && echo "$g" >"$(group_dir $g)/tg_pt_gp_id" &&
			echo 3 >"$(group_dir $g)/alua_access_type" || return 1
	done
	set_state 1 0 && set_state 2 2 &&
		join_group 0 mp_g1 && join_group 1 mp_g1 && join_group 2 mp_g2 && join_group 3 mp_g2
}
on_exit alua_down
check "LIO: ports of p0,p1 in group 1 (active/optimized), p2,p3 in group 2 (standby)" alua_up || exit 1
check_eq "LIO: group states 0 (A/O) and 2 (standby)" "0 2" "$(state_of 1) $(state_of 2)"

# ---- our map and I/O --------------------------------------------------------
check "modules load" mp_mods_load
on_exit "dmsetup message mpa 0 fail_if_no_path; dm_remove mpa; mp_mods_unload"
check "create map mpa: 1 alua, PG1 = p0 p1, PG2 = p2 p3" dm_create mpa \
	"0 $S multipath 1 queue_if_no_path 1 alua 2 1 round-robin 0 2 1 ${P[0]} 1 ${P[1]} 1 round-robin 0 2 1 ${P[2]} 1 ${P[3]} 1"
group_io() { echo $(($(io_of "${N[$1]}") + $(io_of "${N[$2]}"))); }
g_above() { [ "$(group_io "$1" "$2")" -gt "$3" ]; }
is_state() { [ "$(path_state mpa "$1")" = "$2" ]; }
checker_start mpa
kmsg_mark
io2=$(group_io 2 3)
fio_start /dev/mapper/mpa /tmp/fio-607.json
on_exit "san_ctl restore all"
check "fio writes through group 1 (p0, p1)" wait_until 60 g_above 0 1 50
check_eq "group 2's paths idle meanwhile" "$io2" "$(group_io 2 3)"
check_fail "pg_init sent no STPG (group 1 was active)" grep -q "sending STPG" <<<"$(kmsg_since)"

# ---- implicit swap by the array ---------------------------------------------
io2=$(group_io 2 3)
check "array: group 2 active/optimized" set_state 2 0
check "array: group 1 standby" set_state 1 2
check "I/O follows to group 2 (p2, p3)" wait_until 90 g_above 2 3 $((io2 + 50))
check "p0 and p1 failed in the map" wait_until 60 eval 'is_state "${P[0]}" F && is_state "${P[1]}" F'
check_eq "LIO: group 2 altered implicitly, not by STPG" "Altered by Implicit ALUA" "$(status_of 2)"
check "fio still running" fio_running

# ---- a silent cut inside the active group -----------------------------------
t=$(now)
check "cut p2 (iptables DROP)" san_ctl cut p2 drop
check "p2 failed within 90 s" wait_until 90 is_state "${P[2]}" F
diag "p2 failed $(secs_since "$t") s after the cut"
b=$(io_of "${N[3]}")
check "p3 carries the I/O alone" wait_until 20 io_above "${N[3]}" $((b + 50))
t=$(now)
check "restore p2" san_ctl restore p2
check "p2 reinstated by the checker within 90 s" wait_until 90 is_state "${P[2]}" A
diag "p2 back $(secs_since "$t") s after the restore"
check "p0 and p1 stay failed (standby: the checker's reads fail)" \
	eval 'is_state "${P[0]}" F && is_state "${P[1]}" F'
fio_stop_check /tmp/fio-607.json
check_eq "LIO: group 1 standby, group 2 active/optimized at the end" "2 0" "$(state_of 1) $(state_of 2)"
checker_stop
check "remove map" dm_remove mpa
check "modules unload" mp_mods_unload
