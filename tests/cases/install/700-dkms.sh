#!/bin/bash
# DKMS in the guest: install, modprobe takes ours, a map works, remove.
# The guest is a stock Debian 12 with the dkms package (6.1, 6.12.*+deb12),
# or for a +deb13 kernel the trixie root (Debian 13, DKMS 3.2, trixie's
# gcc).  DKMS added and built this tree (its dkms.conf, signed with the MOK
# key DKMS made) outside the guest, natively (make check:
# packaging/dkms-prebuild, .build/dkms-KVER): on the host with bookworm's
# DKMS, or for +deb13 inside the trixie root with its own DKMS and
# compiler, as a trixie admin's DKMS builds; compiling in the emulated
# guest took over 10 minutes.  Here the source goes to /usr/src and the
# built tree to /var/lib/dkms, as DKMS left them; "dkms install" for the
# running kernel installs to updates/dkms (compressed like the kernel's
# own modules: .ko.xz on 6.12 and 7.x) and runs depmod; then every module
# resolves (modinfo -n) to the DKMS copy, modprobe loads that copy (same
# srcversion) and a 2-path round-robin map carries fio-verified (crc32c)
# I/O.  "dkms remove" takes them out again and modinfo -n points to the
# kernel's own modules (kernel/drivers/md/).
# The module tree is a small one of the kernel's own modules (rc:
# small_module_tree), bound over the harness's, as on a stock system.
# Not on the debug kernel: it has no distro module tree or headers package.
# requires: distro-kernel
# CI cross-kernel set: 309 s on 7.3.4, 421 s on 6.12.117 (a load average of 12 on
# the 2 cores), after make dkms-prebuild in the trixie root (2-3 min).
# cross-kernel: yes
# timeout: 720
source "${0%/*}/rc"

diag "package $NAME/$VER, modules: ${MODS[*]}"
check "the Makefile names a version and modules" test -n "$VER" -a ${#MODS[@]} -gt 0 || exit 1
small_module_tree || exit 1
check_eq "before DKMS, modinfo -n dm-multipath is the kernel's" \
	"$LIB/kernel/drivers/md/dm-multipath$KO" "$(modinfo -n dm-multipath 2>&1)"
check "kernel headers at $LIB/build" test -e "$LIB/build/include"

on_exit "dm_remove mpk; sdebug_down; unload_mods; dkms remove $NAME/$VER --all; rm -rf /usr/src/$NAME-$VER /var/lib/dkms/$NAME"

check_eq "DKMS built $NAME/$VER for $KVER on the host (make check)" "$VER $KVER" \
	"$(cat "$PRE/stamp" 2>&1)" || exit 1
mkdir -p /usr/src /var/lib/dkms
cp -a "$PRE/src/$NAME-$VER" /usr/src/ && cp -a "$PRE/tree/$NAME" /var/lib/dkms/ &&
	ln -sfn "/usr/src/$NAME-$VER" "/var/lib/dkms/$NAME/$VER/source"
check_match "dkms status: built" "^$NAME/$VER, $KVER_RE, x86_64: built" \
	"$(dkms_status "$NAME/$VER")"
t1=$SECONDS
out=$(dkms install "$NAME/$VER" -k "$KVER" 2>&1)
rc=$?
diag "dkms install (copy, depmod): $((SECONDS - t1)) s"
check_eq "dkms install $NAME/$VER -k $KVER" 0 "$rc" ||
	printf '%s\n' "$out" | tail -n 20 | sed 's/^/# /'

check_match "dkms status: installed" "^$NAME/$VER, $KVER_RE, x86_64: installed" \
	"$(dkms_status "$NAME/$VER")"

modules_are_dkms_copies
check_match "signed with DKMS's MOK key (/var/lib/dkms/mok.key)" "DKMS module signing key" \
	"$(modinfo -F signer dm-multipath)"
modules_load_dkms_copies
sdebug_up 2 || { tap_fail "scsi_debug with 2 paths"; exit 1; }
A=$(devnum "${SD_DEVS[0]}") B=$(devnum "${SD_DEVS[1]}")
S=$(blockdev --getsz "${SD_DEVS[0]}")
check "a round-robin map over 2 paths" dm_create mpk \
	"0 $S multipath 0 0 1 1 round-robin 0 2 1 $A 16 $B 16"
check "fio writes and verifies 8 MiB through it (crc32c)" \
	fio --name=dkms --filename=/dev/mapper/mpk --direct=1 --ioengine=libaio \
	--iodepth=8 --bs=4k --rw=randwrite --size=8M --verify=crc32c --verify_fatal=1 \
	--output=/dev/null
check "both paths carried I/O" test "$(path_writes "${SD_NAMES[0]}")" -gt 0 -a \
	"$(path_writes "${SD_NAMES[1]}")" -gt 0
dm_remove mpk
sdebug_down
check "modules unload" unload_mods

t3=$SECONDS
out=$(dkms remove "$NAME/$VER" --all 2>&1)
rc=$?
diag "dkms remove: $((SECONDS - t3)) s"
check_eq "dkms remove $NAME/$VER --all" 0 "$rc" || diag "$out"
check_eq "dkms status: nothing" "" "$(dkms_status $NAME)"
for m in "${MODS[@]}"; do
	if [ -e "$LIB/kernel/drivers/md/$m$KO" ]; then
		check_eq "modinfo -n $m: the kernel's own again" "$LIB/kernel/drivers/md/$m$KO" \
			"$(modinfo -n "$m" 2>&1)"
	else # ours only (dm-emc): none left
		check_fail "modinfo -n $m: none (the kernel has no $m)" modinfo -n "$m"
	fi
done
check_fail "no DKMS copy left in updates/dkms" ls "$LIB"/updates/dkms/dm-multipath$KO
rm -rf "/usr/src/$NAME-$VER"
