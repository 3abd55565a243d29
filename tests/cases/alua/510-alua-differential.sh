#!/bin/bash
# Differential: ours (with and without scsi_dh_alua) vs the distro's stack.
# The same steps on a fresh LIO array, three times: dm-alua without
# scsi_dh_alua, dm-alua with it attached, and the distro's dm-multipath
# with scsi_dh_alua (its "1 alua" attaches the kernel handler), loaded by
# path with insmod after ours is unloaded.  Steps: first read (group 1
# active); switch_group 2 and read (group 2 was standby); the array makes
# group 2 unavailable and a read fails over to group 1, which the array had
# put in standby.  After each step LIO's configfs states (state, access
# status) must be the same for all three.
# tier: full (the default run keeps 501-504, 507, 508 and 557 (with scsi_dh_alua))
# Not on the debug kernel: it builds no dm-multipath of its own to compare.
# requires: distro-kernel
# timeout: 400
source "${0%/*}/rc"

MP=/dev/mapper/mpdiff
on_exit "dm_remove mpdiff"
on_exit "scsi_dh_block scsi_dh_alua"
on_exit "rmmod dm_round_robin dm_multipath 2>/dev/null"

# steps IMPL: the three steps; prints LIO's groups after each, one line each.
steps() {
	local out=() rd="dd if=$MP of=/dev/null bs=64k count=4 iflag=direct status=none"
	check "$1: create map" dm_create mpdiff "$(lio_table)" || return 1
	check "$1: first read" $rd
	out+=("$(lio_ctl groups | tr '\n' ';')")
	check "$1: switch_group 2" dmsetup message mpdiff 0 switch_group 2
	check "$1: read after the switch" $rd
	out+=("$(lio_ctl groups | tr '\n' ';')")
	check "$1: array: group 1 standby" lio_ctl state 1 s
	check "$1: array: group 2 unavailable" lio_ctl state 2 u
	check "$1: read fails over to group 1" $rd
	out+=("$(lio_ctl groups | tr '\n' ';')")
	check "$1: remove map" dm_remove mpdiff
	RESULT=$(printf '%s\n' "${out[@]}")
}
array_up() {
	LIO_PORTS=()
	lio_start --groups 2 --ports-per-group 2 "$@" || exit 1
}

array_up
check "ours: modules load" eval "mp_mods_load && modprobe dm-alua" || exit 1
steps "ours, no scsi_dh_alua"
OURS=$RESULT
lio_stop

check "scsi_dh_alua allowed and loaded" scsi_dh_allow scsi_dh_alua || exit 1
array_up --allow-dh
check_eq "scsi_dh_alua attached" alua "$(cat "/sys/block/${LIO_DEVS[g1p0]#/dev/}/device/dh_state")"
steps "ours, scsi_dh_alua"
OURS_DH=$RESULT
lio_stop
check "ours: modules unload" mp_mods_unload

check "distro dm-multipath loads (insmod)" distro_insmod dm-multipath dm-round-robin || exit 1
check_eq "the distro's target answers ($MPATH_TARGET_VERSION)" "$MPATH_TARGET_VERSION" "$(dmsetup targets | awk '$1 == "multipath" {print $2}')"
array_up --allow-dh
steps "distro, scsi_dh_alua"
DISTRO=$RESULT
lio_stop
check "distro modules unload" rmmod dm_round_robin dm_multipath

diag "distro: ${DISTRO//$'\n'/ | }"
check_eq "ours without scsi_dh_alua: same LIO states as the distro's" "$DISTRO" "$OURS"
check_eq "ours with scsi_dh_alua: same LIO states as the distro's" "$DISTRO" "$OURS_DH"
