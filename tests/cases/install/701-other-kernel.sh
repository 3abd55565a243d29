#!/bin/bash
# A kernel the tree does not support, installed beside the package: its postinst succeeds, ours stay on 6.1.
# Our Debian package (make deb) is installed with dpkg -i; its postinst
# loads the modules DKMS built on the host (rc: stage_prebuilt_tarball) and
# installs them for the running 6.1 kernel.  Then Debian 12's
# linux-image-6.12-amd64 and linux-headers-6.12-amd64 (bookworm-security,
# fetched on the host by tests/vm/fetch-kernel-debs) are installed with
# dpkg -i, as an admin's apt would: each package's postinst runs the
# /etc/kernel hooks in turn (DKMS's autoinstall, ours, then the initramfs
# hook), and must exit 0.  dkms.conf's BUILD_EXCLUSIVE_KERNEL (^6\.1\.)
# fences the build: our hook says the kernel is passed over, dkms status
# lists nothing of ours for it, "dkms build" for it exits 77, the
# initramfs hook after ours ran, and our modules are still the ones
# installed and loaded on 6.1, carrying a map.  Before the fence, DKMS
# compiled this tree for 6.12, failed, and the kernel's postinst failed
# with it (dkms exit 11, the kernel left unconfigured).
# Under emulation, unpacking the kernel's 22,000 files and indexing its
# 5,000 modules takes more than 25 minutes, so: where the kernel is not
# installed yet, dpkg -i leaves out the payload no hook reads
# (--path-exclude: the modules under kernel/, the header files but
# include/generated/utsrelease.h); where the host has it installed already
# (dpkg's database is the host's: a reinstall would replace and index all
# of it), the kernel packages' own postinst scripts are run as dpkg
# --configure runs them, over a module directory without the modules (as
# rc's small_module_tree does for 6.1).  Either way the packages'
# maintainer scripts, the hooks, vmlinuz, System.map, config and the
# headers' build link and include/ (what the hooks test) are the real
# ones; the initramfs is made with MODULES=list (initramfs-tools' own
# setting).
# Not on the debug kernel: it has no distro module tree or headers package.
# skip-kernel: 6.12.*|7.* DKMS builds this package for 6.1 only (dkms.conf BUILD_EXCLUSIVE_KERNEL ^6\.1\., widened per kernel once its set passes; the prebuilt DKMS tree is the host's, and +deb13 kernels build in the trixie root)
# requires: distro-kernel
# timeout: 1500
source "${0%/*}/rc"

K2=$(cat "$KERNEL_DEBS/kernel-release" 2>/dev/null)
check "the other kernel's .debs are in $KERNEL_DEBS (make deps)" test -n "$K2" || exit 1
diag "package $NAME-dkms $VER; running kernel $KVER; other kernel $K2"
check_fail "$K2 is outside dkms.conf's BUILD_EXCLUSIVE_KERNEL" \
	bash -c ". '$REPO/dkms.conf' && [[ '$K2' =~ \$BUILD_EXCLUSIVE_KERNEL ]]"

small_module_tree || exit 1
stage_prebuilt_tarball || exit 1
mkdir -p /etc/initramfs-tools/conf.d
echo MODULES=list >/etc/initramfs-tools/conf.d/zz-mptest-701
on_exit "rm -f /etc/initramfs-tools/conf.d/zz-mptest-701"

# ---- our package, on 6.1 -----------------------------------------------------
on_exit "dm_remove mp701; sdebug_down; unload_mods; dpkg --purge $NAME-dkms"
t0=$SECONDS
out=$(dpkg -i "$DEB" 2>&1)
rc=$?
diag "dpkg -i $NAME-dkms: $((SECONDS - t0)) s"
printf '%s\n' "$out" | grep -E '^(Building|Skipped|Loading|Done|dkms)' | sed 's/^/#   /'
check_eq "dpkg -i $NAME-dkms_${VER}_all.deb: exit 0" 0 "$rc" || {
	printf '%s\n' "$out" | tail -n 20 | sed 's/^/# /'
	exit 1
}
check_match "dkms status: installed for $KVER" "^$NAME/$VER, $KVER, x86_64: installed" \
	"$(dkms status "$NAME/$VER" 2>&1)"
modules_are_dkms_copies

# ---- the other kernel beside it --------------------------------------------
before=$(dpkg-query -W -f='${Status}' "linux-image-$K2" 2>/dev/null)
diag "linux-image-$K2 before: ${before:-not installed}"
rm -f "/boot/initrd.img-$K2"
t1=$SECONDS
if [ "$before" != "install ok installed" ]; then
	on_exit "dpkg --purge linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-image-$K2 linux-headers-$K2 linux-headers-${K2%-amd64}-common linux-kbuild-${K2%-amd64}"
	out=$(dpkg --path-exclude="/lib/modules/$K2/kernel/*" \
		--path-exclude="/usr/src/linux-headers-${K2%-amd64}*/*" \
		--path-include="/usr/src/linux-headers-$K2/include/generated/utsrelease.h" \
		-i "$KERNEL_DEBS"/*.deb 2>&1)
	rc=$?
	what="dpkg -i linux-image-6.12-amd64 linux-headers-6.12-amd64 (and deps)"
else
	k2lib=/lib/modules/$K2 k2small=/tmp/701-lib.$$
	on_exit "mountpoint -q $k2lib && umount $k2lib; rm -rf $k2small"
	mkdir -p "$k2small"
	cp "$k2lib"/modules.order "$k2lib"/modules.builtin* "$k2small/"
	ln -s "/usr/src/linux-headers-$K2" "$k2small/build"
	mount --bind "$k2small" "$k2lib"
	out="" rc=0
	for p in "linux-image-$K2" "linux-headers-$K2"; do
		out+=$(DPKG_MAINTSCRIPT_PACKAGE=$p DPKG_MAINTSCRIPT_NAME=postinst \
			"/var/lib/dpkg/info/$p.postinst" configure 2>&1)$'\n'
		rc=$((rc + $?))
	done
	what="the postinst (configure) of linux-image-$K2 and linux-headers-$K2"
fi
diag "$what: $((SECONDS - t1)) s"
printf '%s\n' "$out" | grep -E 'dkms|dm-mpath|update-initramfs|run-parts|rror' | sed 's/^/#   /'
check_eq "$what: exit 0" 0 "$rc" ||
	printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /'
pkgs=("linux-image-$K2" "linux-headers-$K2")
[ "$before" = "install ok installed" ] || pkgs+=(linux-image-6.12-amd64 linux-headers-6.12-amd64)
for p in "${pkgs[@]}"; do
	check_eq "$p is configured" "install ok installed" \
		"$(dpkg-query -W -f='${Status}' "$p" 2>&1)"
done
K2_RE=$(sed 's/[.+]/\\&/g' <<<"$K2")	# 6.12.118+deb12-amd64 as a regex
check_match "our kernel hook passed over $K2" "dm-mpath-dkms: not built for kernel $K2_RE" "$out"
check "the initramfs hook, after ours, made /boot/initrd.img-$K2" test -s "/boot/initrd.img-$K2"
check_eq "dkms status: no line of ours for $K2" "" "$(dkms status "$NAME" 2>&1 | grep -F "$K2")"
check_fail "no module of ours under /lib/modules/$K2" \
	ls "/lib/modules/$K2/updates/dkms/dm-multipath.ko" "/lib/modules/$K2/updates/dkms/dm-multipath.ko.xz"
dkms build "$NAME/$VER" -k "$K2" >/dev/null 2>&1
check_eq "dkms build $NAME/$VER -k $K2: refused by BUILD_EXCLUSIVE_KERNEL (exit 77)" 77 "$?"

# ---- ours still in place on 6.1 -------------------------------------------
check_eq "dkms status: ours installed for $KVER only" "$NAME/$VER, $KVER, x86_64: installed" \
	"$(dkms status "$NAME" 2>&1)"
modules_are_dkms_copies
modules_load_dkms_copies
sdebug_up 2 || { tap_fail "scsi_debug with 2 paths"; exit 1; }
A=$(devnum "${SD_DEVS[0]}") B=$(devnum "${SD_DEVS[1]}")
S=$(blockdev --getsz "${SD_DEVS[0]}")
check "a round-robin map over 2 paths" dm_create mp701 \
	"0 $S multipath 0 0 1 1 round-robin 0 2 1 $A 16 $B 16"
r0=$(path_reads "${SD_NAMES[0]}") r1=$(path_reads "${SD_NAMES[1]}")
check "4 MiB read through it" dd if=/dev/mapper/mp701 of=/dev/null bs=64k count=64 \
	iflag=direct status=none
check "both paths carried its reads" test "$(($(path_reads "${SD_NAMES[0]}") - r0))" -gt 0 -a \
	"$(($(path_reads "${SD_NAMES[1]}") - r1))" -gt 0
dm_remove mp701
sdebug_down
check "modules unload" unload_mods
