#!/bin/bash
# Selector modules: autoload by name, refused unload while in use, clean unload.
# A table naming queue-length, service-time or historical-service-time loads
# our dm-<name> module (the updates/ copy, not the distro's) through the
# registry's request_module; its version shows in sysfs; each PG using it
# holds a reference, so rmmod fails until the last map is gone. An unknown
# selector name is refused with that name in the kernel log and loads
# nothing. Every module unloads at the end.
# timeout: 300
# cross-kernel: yes
source "${0%/*}/rc"

mp_fixture 2 mpm1 mpm2
A=${DEVNUMS[0]} B=${DEVNUMS[1]} S=$SECTORS
loaded() { grep -q "^$1 " /proc/modules; }
refcnt() { cat "/sys/module/$1/refcnt"; }

for sel in queue-length service-time historical-service-time; do
	mod=dm_${sel//-/_}
	check_fail "$sel: not loaded before use" loaded "$mod"
	check_match "$sel: modinfo -n dm-$sel is our updates/ copy" \
		"^/lib/modules/.*/updates/.*dm-$sel\.ko$" "$(modinfo -n "dm-$sel")"
	check "$sel: a table naming it loads" dm_create mpm1 \
		"0 $S multipath 0 0 2 1 $sel 0 1 0 $A $sel 0 1 0 $B"
	check "$sel: $mod was autoloaded" loaded "$mod"
	check_eq "$sel: the loaded module is the file modinfo points at (srcversion)" \
		"$(modinfo -F srcversion "$(modinfo -n "dm-$sel")")" "$(cat "/sys/module/$mod/srcversion")"
	check_eq "$sel: MODULE_VERSION in sysfs (the release)" "$MPATH_RELEASE" "$(cat "/sys/module/$mod/version")"
	check_eq "$sel: one reference per PG using it" 2 "$(refcnt "$mod")"
	check "$sel: a second map" dm_create mpm2 "0 $S multipath 0 0 1 1 $sel 0 1 0 $A"
	check_eq "$sel: three references" 3 "$(refcnt "$mod")"
	check "$sel: I/O through both maps" sh -c \
		"dd if=/dev/mapper/mpm1 of=/dev/null bs=4k count=16 iflag=direct status=none &&
		 dd if=/dev/mapper/mpm2 of=/dev/null bs=4k count=16 iflag=direct status=none"
	check_fail "$sel: rmmod refused while maps use it" rmmod "$mod"
	dm_remove mpm1
	check_eq "$sel: one reference left" 1 "$(refcnt "$mod")"
	check_fail "$sel: rmmod still refused (one map left)" rmmod "$mod"
	dm_remove mpm2
	check_eq "$sel: no reference left" 0 "$(refcnt "$mod")"
	check "$sel: rmmod works now" rmmod "$mod"
	check_fail "$sel: gone" loaded "$mod"
done

kmsg_mark
check_fail "an unknown selector name is refused" \
	dmsetup create mpm1 --table "0 $S multipath 0 0 1 1 foo 0 1 0 $A"
kmsg_expect "the kernel log names it" "unknown path selector type 'foo'"
kmsg_expect "the table error says so" "multipath: unknown path selector type \(-EINVAL\)"
kmsg_check_expected
check_fail "... no map left" dmsetup info mpm1
check_eq "... and no selector module loaded for it" "" \
	"$(grep -E '^dm_(queue_length|service_time|historical_service_time) ' /proc/modules)"
check "all modules unload" mp_mods_unload
