#!/bin/bash
# Handler names with no module of ours: the same tables get the same answers from ours and from the distro's dm-multipath.
# On scsi_debug paths that identify as an HP HSV100, each of these tables
# is loaded by our target and then, ours unloaded, by the distro's (insmod
# by path), each time on freshly scanned paths (no scsi_dh attached):
#   no_such_handler                  refused (no scsi_dh of that name)
#   rdac, scsi_dh_rdac blocked       refused (no scsi_dh_rdac to load)
#   hp_sw                            accepted, scsi_dh_hp_sw attached
#   hp_sw with 2 arguments           refused (hp_sw takes no parameters)
#   rdac, scsi_dh_rdac loadable      accepted as hp_sw: the attached
#                                    handler is kept (6.1: -EBUSY, retain)
#   retain_attached_hw_handler rdac  the same
#   rdac on fresh paths              refused (scsi_dh_rdac does not
#                                    attach to a non-RDAC LUN)
# The answer (refused, or the TABLE's handler words and each path's
# dh_state) must match line by line; ours names the refused handler in
# its log line.
# requires: distro-kernel
# timeout: 300
source "${0%/*}/rc"

on_exit "dm_remove mpt; sdebug_down; distro_mods_unload; mp_mods_unload"
on_exit "scsi_dh_block scsi_dh_hp_sw; scsi_dh_block scsi_dh_rdac"
check "scsi_dh_hp_sw allowed and loaded" scsi_dh_allow scsi_dh_hp_sw || exit 1

# paths_up WHAT: fresh paths (SD_*, A, B, S); in this shell, not under
# check (its subshell would keep the variables)
paths_up() {
	if sdebug_up 2 inq_vendor=HP inq_product=HSV100; then
		A=$(devnum "${SD_DEVS[0]}") B=$(devnum "${SD_DEVS[1]}")
		S=$(blockdev --getsz "${SD_DEVS[0]}")
		tap_ok "$1: paths up"
	else
		tap_fail "$1: paths up"
		return 1
	fi
}
# answer HW-AND-FEATURES: load a map with that (features + handler) head,
# print "refused" or "<handler words> | <dh_state of each path>"
answer() {
	if dmsetup create mpt --table "0 $S multipath $1 1 1 round-robin 0 2 1 $A 1 $B 1" >/dev/null 2>&1; then
		echo "$(hw_words mpt) | $(dh_state "${SD_NAMES[0]}") $(dh_state "${SD_NAMES[1]}")"
		dm_remove mpt
	else
		echo refused
	fi
}
# answers IMPL: every table above, one answer per line (RESULT)
answers() {
	local out=()
	paths_up "$1" || return 1
	kmsg_mark
	out+=("no_such_handler: $(answer "0 1 no_such_handler")")
	out+=("rdac blocked: $(answer "0 1 rdac")")
	out+=("hp_sw: $(answer "0 1 hp_sw")")
	out+=("hp_sw 2 args: $(answer "0 3 hp_sw 1 2")")
	check "$1: scsi_dh_rdac allowed" scsi_dh_allow scsi_dh_rdac
	out+=("rdac, hp_sw attached: $(answer "0 1 rdac")")
	out+=("retain, rdac, hp_sw attached: $(answer "1 retain_attached_hw_handler 1 rdac")")
	K=$(kmsg_since)
	check "$1: paths down" sdebug_down
	paths_up "$1: fresh" || return 1
	out+=("rdac, fresh paths: $(answer "0 1 rdac")")
	check "$1: paths down" sdebug_down
	check "$1: scsi_dh_rdac blocked again" scsi_dh_block scsi_dh_rdac
	RESULT=$(printf '%s\n' "${out[@]}")
}

check "ours: modules load" mp_mods_load || exit 1
answers ours
OURS=$RESULT
check_match "ours: the unknown handler is named" \
	"unknown hardware handler type 'no_such_handler': not ours, no scsi_dh_no_such_handler" "$K"
check_match "ours: blocked rdac is named" "unknown hardware handler type 'rdac'" "$K"
check_match "ours: hp_sw's refusal of the arguments is named" \
	"scsi_dh_hp_sw refuses the table's arguments" "$K"
check_match "ours: rdac gives way to the attached hp_sw" \
	"scsi_dh_hp_sw is attached: the map uses it instead of rdac" "$K"
check "ours: modules unload" mp_mods_unload

check "distro dm-multipath loads (insmod)" distro_mods_load || exit 1
check_eq "the distro's target answers ($MPATH_TARGET_VERSION)" "$MPATH_TARGET_VERSION" "$(dmsetup targets | awk '$1 == "multipath" {print $2}')"
answers distro
DISTRO=$RESULT
check "distro modules unload" distro_mods_unload

while IFS= read -r l; do diag "distro: $l"; done <<<"$DISTRO"
while IFS= read -r l; do diag "ours:   $l"; done <<<"$OURS"
check_eq "every answer is the distro's" "$DISTRO" "$OURS"
NL=$'\n'
check_match "hp_sw accepted, attached to both paths" "(^|$NL)hp_sw: 1 hp_sw \\| hp_sw hp_sw($NL|\$)" "$OURS"
