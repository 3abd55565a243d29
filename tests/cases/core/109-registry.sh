#!/bin/bash
# Selector and handler registries: autoload, module refs, duplicate names.
# Registries: a table naming round-robin (or the emc handler) loads our
# module by itself; a selector or handler in use cannot be unloaded, and can
# once the last map using it is gone; a second registration of the same name
# is refused with -EEXIST (a renamed copy of the module, inserted while the
# original is loaded, fails in its init).
# timeout: 240
source "${0%/*}/rc"

on_exit "dm_remove mpr1; dm_remove mpr2; rmmod dm_round_robiX; rmmod dm_eXc; sdebug_down; mp_mods_unload"
sdebug_up 2 || { tap_fail "scsi_debug with 2 paths"; exit 1; }
A=$(devnum "${SD_DEVS[0]}") B=$(devnum "${SD_DEVS[1]}")
S=$(blockdev --getsz "${SD_DEVS[0]}")
loaded() { grep -q "^$1 " /proc/modules; }
refcnt() { cat "/sys/module/$1/refcnt"; }

check "our modules are not loaded" mp_mods_unload
check "modprobe dm-multipath alone" modprobe dm-multipath
check_fail "round-robin not loaded yet" loaded dm_round_robin
check_match "modinfo -n dm-round-robin is our updates/ copy" "^/lib/modules/.*/updates/.*dm-round-robin\.ko$" \
	"$(modinfo -n dm-round-robin)"
check_match "modinfo -n dm-emc is our updates/ copy" "^/lib/modules/.*/updates/.*dm-emc\.ko$" "$(modinfo -n dm-emc)"

check "a table naming round-robin loads" dm_create mpr1 \
	"0 $S multipath 0 0 2 1 round-robin 0 1 0 $A round-robin 0 1 0 $B"
check "dm_round_robin was autoloaded" loaded dm_round_robin
check_match "the autoloaded module is ours" "^dm_round_robin .*" "$(grep '^dm_round_robin ' /proc/modules)"
check_eq "the loaded round-robin is the file modinfo points at (srcversion)" \
	"$(modinfo -F srcversion "$(modinfo -n dm-round-robin)")" "$(cat /sys/module/dm_round_robin/srcversion)"
check_eq "one module reference per PG using it" 2 "$(refcnt dm_round_robin)"
check_fail "rmmod dm_round_robin refused while a map uses it" rmmod dm_round_robin
check "still loaded" loaded dm_round_robin
check_fail "rmmod dm_multipath refused while a map exists" rmmod dm_multipath

check "a table naming the emc handler loads" dm_create mpr2 \
	"0 $S multipath 0 1 emc 1 1 round-robin 0 2 0 $A $B"
check "dm_emc was autoloaded" loaded dm_emc
check_eq "emc: one reference (one map)" 1 "$(refcnt dm_emc)"
check_eq "round-robin: three references now" 3 "$(refcnt dm_round_robin)"
check_fail "rmmod dm_emc refused while a map uses it" rmmod dm_emc
dm_remove mpr2
check_eq "emc: no reference after the map is gone" 0 "$(refcnt dm_emc)"
check "rmmod dm_emc works now" rmmod dm_emc
check_fail "rmmod dm_round_robin still refused (mpr1)" rmmod dm_round_robin
dm_remove mpr1
check_eq "round-robin: no reference left" 0 "$(refcnt dm_round_robin)"

# Duplicate registration: same selector name from a module of another name.
for m in dm-round-robin:dm_round_robin:dm_round_robiX dm-emc:dm_emc:dm_eXc; do
	IFS=: read -r file mod fake <<<"$m"
	modprobe "$file"
	copy=/tmp/$fake.ko
	perl -0777 -pe "s/$mod\\0/$fake\\0/g" <"$KO_DIR/$file.ko" >"$copy"
	check "$file: the renamed copy differs only in its name" \
		sh -c "test \$(cmp -l $KO_DIR/$file.ko $copy | wc -l) -gt 0 && test \$(stat -c %s $copy) = \$(stat -c %s $KO_DIR/$file.ko)"
	kmsg_mark
	out=$(insmod "$copy" 2>&1)
	rc=$?
	check "insmod of a second $file refused" test $rc -ne 0
	# 7.x's module loader turns an init's -EEXIST into -EBUSY.
	case $(uname -r) in
	6.*) check_match "... with EEXIST" "File exists" "$out" ;;
	*) check_match "... with EBUSY (the init's EEXIST, as 7.x reports it)" \
		"Device or resource busy" "$out" ;;
	esac
	check_fail "the copy is not loaded" loaded "$fake"
	case $file in
	dm-round-robin) what="path selector round-robin" ;;
	*) what="hardware handler emc" ;;
	esac
	check_match "kernel says '$what is already registered'" "multipath: $what is already registered" "$(kmsg_since)"
	rm -f "$copy"
done
check "the original round-robin still works" dm_create mpr1 \
	"0 $S multipath 0 0 1 1 round-robin 0 2 0 $A $B"
check "I/O through it" dd if=/dev/mapper/mpr1 of=/dev/null bs=4k count=16 iflag=direct status=none
dm_remove mpr1
check "an unknown selector does not leave modules behind" \
	sh -c "! dmsetup create mpr1 --table '0 $S multipath 0 0 1 1 no-such-ps 0 1 0 $A'"
check "all modules unload" mp_mods_unload
