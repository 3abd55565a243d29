#!/bin/bash
# DKMS in the guest: install, modprobe takes ours, a map works, remove.
# The guest is a stock Debian 12 with the dkms package.  DKMS added and
# built this tree (its dkms.conf, signed with the MOK key DKMS made) on the
# host, natively (make check: packaging/dkms-prebuild, .build/dkms):
# compiling in the emulated guest took over 10 minutes.  Here the source
# goes to /usr/src and the built tree to /var/lib/dkms, as DKMS left them;
# "dkms install" for the running kernel installs to updates/dkms and runs
# depmod; then every module resolves (modinfo -n) to the DKMS copy, modprobe
# loads that copy (same srcversion) and a 2-path round-robin map carries
# fio-verified (crc32c) I/O.  "dkms remove" takes them out again and
# modinfo -n points to the kernel's own modules (kernel/drivers/md/).
# Harness specifics, undone on exit: the harness binds a staged copy of
# the kernel's whole module tree over /lib/modules/$KVER; "dkms install"
# searches that tree once per module and runs depmod over it, which under
# emulation over 9p took more than 6 minutes.  So this scenario binds a
# small module tree of its own there instead, laid out as on a stock system
# (kernel/ with the modules this test loads, among them the kernel's own
# dm-multipath and selectors, the index files, a build link to the
# headers), and depmod builds its index: DKMS then does on it exactly what
# it does on a full tree.
# Not on the debug kernel: it has no distro module tree or headers package.
# requires: distro-kernel
# timeout: 720
source "${0%/*}/rc"

KVER=$(uname -r)
LIB=/lib/modules/$KVER
NAME=dm-mpath
VER=$(make -s --no-print-directory -C "$REPO" KERNELRELEASE= print-version)
read -ra MODS <<<"$(make -s --no-print-directory -C "$REPO" KERNELRELEASE= print-modules)"
diag "package $NAME/$VER, modules: ${MODS[*]}"
check "the Makefile names a version and modules" test -n "$VER" -a ${#MODS[@]} -gt 0 || exit 1
# unload_mods: every module of the list, users (listed after dm-multipath) first
unload_mods() {
	local i
	for ((i = ${#MODS[@]} - 1; i >= 0; i--)); do
		[ ! -d "/sys/module/${MODS[i]//-/_}" ] || modprobe -r "${MODS[i]}" || return 1
	done
}

# ---- a small module tree in the place of the harness's -----------------------
SMALL=/tmp/dkms-lib.$$
# rel_of MODULE: where the kernel's own copy is (the harness's index points
# at ours in updates/ for the multipath modules)
rel_of() {
	local p
	case $1 in
	dm-*) p=$LIB/kernel/drivers/md/$1.ko ;;
	*) p=$(modinfo -n "$1") || return 1 ;;
	esac
	[ -e "$p" ] && echo "${p#"$LIB"/}"
}
undo_stage() {
	mountpoint -q "$LIB" && umount "$LIB"
	rm -rf "$SMALL"
}
on_exit undo_stage
mkdir -p "$SMALL"
for m in dm-mod dm-multipath dm-round-robin dm-service-time dm-queue-length \
	scsi_debug scsi_mod scsi_common crc-t10dif sd_mod; do
	r=$(rel_of "$m") || continue
	mkdir -p "$SMALL/${r%/*}" && cp "$LIB/$r" "$SMALL/$r"
done
cp "$LIB"/modules.order "$LIB"/modules.builtin* "$SMALL/"
ln -s "/usr/src/linux-headers-$KVER" "$SMALL/build"
mount --bind "$SMALL" "$LIB"
check "a small module tree of the kernel's own modules in place" \
	test -e "$LIB/kernel/drivers/md/dm-multipath.ko" -a ! -e "$LIB/updates"
t0=$SECONDS
check "depmod indexes it" depmod "$KVER"
diag "depmod: $((SECONDS - t0)) s"
check_eq "before DKMS, modinfo -n dm-multipath is the kernel's" \
	"$LIB/kernel/drivers/md/dm-multipath.ko" "$(modinfo -n dm-multipath 2>&1)"
check "kernel headers at $LIB/build" test -e "$LIB/build/include"

on_exit "dm_remove mpk; sdebug_down; unload_mods; dkms remove $NAME/$VER --all; rm -rf /usr/src/$NAME-$VER /var/lib/dkms/$NAME"

PRE=$REPO/.build/dkms
check_eq "DKMS built $NAME/$VER for $KVER on the host (make check)" "$VER $KVER" \
	"$(cat "$PRE/stamp" 2>&1)" || exit 1
mkdir -p /usr/src /var/lib/dkms
cp -a "$PRE/src/$NAME-$VER" /usr/src/ && cp -a "$PRE/tree/$NAME" /var/lib/dkms/ &&
	ln -sfn "/usr/src/$NAME-$VER" "/var/lib/dkms/$NAME/$VER/source"
check_match "dkms status: built" "^$NAME/$VER, $KVER, x86_64: built" \
	"$(dkms status "$NAME/$VER" 2>&1)"
t1=$SECONDS
out=$(dkms install "$NAME/$VER" -k "$KVER" 2>&1)
rc=$?
diag "dkms install (copy, depmod): $((SECONDS - t1)) s"
check_eq "dkms install $NAME/$VER -k $KVER" 0 "$rc" ||
	printf '%s\n' "$out" | tail -n 20 | sed 's/^/# /'

check_match "dkms status: installed" "^$NAME/$VER, $KVER, x86_64: installed" \
	"$(dkms status "$NAME/$VER" 2>&1)"

for m in "${MODS[@]}"; do
	check_eq "modinfo -n $m: the DKMS copy" "$LIB/updates/dkms/$m.ko" "$(modinfo -n "$m" 2>&1)"
done
check_match "signed with DKMS's MOK key (/var/lib/dkms/mok.key)" "DKMS module signing key" \
	"$(modinfo -F signer dm-multipath)"

for m in "${MODS[@]}"; do
	check "modprobe $m" modprobe "$m"
done
for m in "${MODS[@]}"; do
	mod=${m//-/_}
	check_eq "loaded $m is the DKMS build (srcversion)" \
		"$(modinfo -F srcversion "$LIB/updates/dkms/$m.ko")" "$(cat "/sys/module/$mod/srcversion" 2>&1)"
done
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
check_eq "dkms status: nothing" "" "$(dkms status $NAME 2>&1)"
for m in "${MODS[@]}"; do
	if [ -e "$LIB/kernel/drivers/md/$m.ko" ]; then
		check_eq "modinfo -n $m: the kernel's own again" "$LIB/kernel/drivers/md/$m.ko" \
			"$(modinfo -n "$m" 2>&1)"
	else # ours only (dm-emc): none left
		check_fail "modinfo -n $m: none (the kernel has no $m)" modinfo -n "$m"
	fi
done
check_fail "no DKMS copy left in updates/dkms" ls "$LIB"/updates/dkms/dm-multipath.ko
rm -rf "/usr/src/$NAME-$VER"
