#!/bin/bash
# Emulated CLARiiON life cycle: clariion-up refusals, clean clariion-down.
# Emulated CLARiiON life cycle: clariion-up refuses bad arguments and a
# second instance, clariion-down removes every configfs object, the
# emulator, the disks and the target modules it loaded, and is idempotent.
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 200
source "${0%/*}/rc"
# The unload is checked here on both kernels: start from no target module,
# even where earlier scenarios kept them loaded (common.sh, debug kernel).
export CLARIION_KEEP_MODULES=0
for m in $CL_TARGET_MODS; do
	[ -e "/sys/module/$m/initstate" ] && rmmod "$m"
done
on_exit "'$CL/clariion-down'"

check_fail "--ports-per-sp 0 refused" "$CL/clariion-up" --ports-per-sp 0
check_fail "--ports-per-sp 9 refused" "$CL/clariion-up" --ports-per-sp 9
check_fail "--size-mb x refused" "$CL/clariion-up" --size-mb x
check_fail "unknown option refused" "$CL/clariion-up" --frobnicate
check_fail "  and nothing was loaded" test -d /sys/module/tcm_loop
check_fail "clariion-ctl with nothing up fails" "$CL/clariion-ctl" owner
check "clariion-down with nothing up succeeds" "$CL/clariion-down"

mods_before=$(for m in target_core_mod target_core_user tcm_loop uio; do [ -d /sys/module/$m ] && echo $m; done)
clariion_start --ports-per-sp 2 --size-mb 16 || exit 1
pid=$(cat "$CL_STATE/pid")
devs=()
for p in "${CL_PORTS[@]}"; do devs+=("${CL_DEV[$p]}"); done
check "disks exist" test -b "${devs[0]}" -a -b "${devs[3]}"
check_fail "a second clariion-up is refused" "$CL/clariion-up"
check "the first one still serves" test "$(cl_ctl ping)" = pong
check_eq "4 backstores" 4 "$(find "$CL_CONFIGFS/core/$CL_HBA" -mindepth 1 -maxdepth 1 -type d | wc -l)"

check "clariion-down" "$CL/clariion-down"
check_fail "emulator gone" kill -0 "$pid"
check_fail "no backstore HBA left" test -d "$CL_CONFIGFS/core/$CL_HBA"
check_eq "no tcm_loop target left" "" "$(ls -d "$CL_CONFIGFS"/loopback/"$CL_WWN_PREFIX"* 2>/dev/null)"
for d in "${devs[@]}"; do
	check_fail "${d#/dev/} gone" test -e "/sys/block/${d#/dev/}"
done
for m in tcm_loop target_core_user target_core_mod uio; do
	if grep -qx "$m" <<<"$mods_before"; then
		diag "$m was loaded before: left alone"
	else
		check_fail "module $m unloaded" test -d "/sys/module/$m"
	fi
done
check_fail "no uio device left" compgen -G "/sys/class/uio/uio*"
check_fail "state directory gone" test -e "$CL_STATE"
check "clariion-down again is fine" "$CL/clariion-down"
check_fail "clariion-ctl now fails" "$CL/clariion-ctl" owner

# Up again right away: nothing stale in the way.
clariion_start || exit 1
check_eq "second life: A0 answers" good "$(scsi_result "${CL_DEV[A0]}" 00 00 00 00 00 00)"
clariion_stop
check_fail "tcm_loop unloaded again" test -d /sys/module/tcm_loop
