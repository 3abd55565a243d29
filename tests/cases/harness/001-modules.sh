#!/bin/bash
# Our three modules load from this tree, register the target and unload.
# Our modules load, register the multipath target and unload; modprobe
# resolves every one of them to this project's files, never the distro's.
# timeout: 120
# cross-kernel: yes
source "${0%/*}/rc"

for m in dm-multipath dm-round-robin dm-emc; do
	f=$(modinfo -n "$m" 2>&1)
	check_match "modinfo -n $m resolves to our updates/ copy" "/updates/dm-mpath/$m\.ko$" "$f"
	check_eq "$m.ko in updates/ is the one built from this tree" \
		"$(md5sum <"$KO_DIR/$m.ko")" "$(md5sum <"$f")"
done

check "modprobe dm-multipath" modprobe dm-multipath
check "dmsetup targets lists multipath" sh -c 'dmsetup targets | grep -q "^multipath "'
check_eq "multipath target version is the kernel's own ($MPATH_TARGET_VERSION)" "$MPATH_TARGET_VERSION" \
	"$(dmsetup targets | awk '$1 == "multipath" {print $2}')"
# The distro's module reports the same target version; only ours carries a
# MODULE_VERSION (the kernel shows it in sysfs).
check_eq "the loaded dm_multipath is ours (MODULE_VERSION $MPATH_RELEASE)" "$MPATH_RELEASE" \
	"$(cat /sys/module/dm_multipath/version 2>&1)"
check "modprobe dm-round-robin" modprobe dm-round-robin
check "modprobe dm-emc" modprobe dm-emc
for m in dm_multipath dm_round_robin dm_emc; do
	check "$m is loaded from updates/" sh -c "grep -q '^$m ' /proc/modules"
done
check "all three unload" mp_mods_unload
check_fail "multipath target is gone after unload" sh -c 'dmsetup targets | grep -q "^multipath "'
