#!/bin/bash
# A kernel the tree does not support, installed beside the package: its postinst succeeds, ours stay on the running kernel.
# Our Debian package (make deb) is installed with dpkg -i; its postinst
# loads the modules DKMS built outside the guest (rc:
# stage_prebuilt_tarball) and installs them for the running kernel.  Then
# the .debs of a kernel outside dkms.conf's BUILD_EXCLUSIVE_KERNEL
# (^(6\.1|6\.12|7\.3)\.) are installed with dpkg -i, as an admin's apt
# would: trixie-backports' newest such kernel, 7.2.12+deb13 (image,
# binary, modules, headers, kbuild; fetched on the host by
# tests/vm/fetch-kernel-debs).  The image's and headers' postinst run the
# /etc/kernel hooks in turn (DKMS's autoinstall, ours, then the initramfs
# hook), and must exit 0: our hook says the kernel is passed over, dkms
# status lists nothing of ours for it, "dkms build" for it exits 77, the
# initramfs hook after ours ran, and our modules are still the ones
# installed and loaded on the running kernel, carrying a map.  Before the
# fence, DKMS compiled this tree for any new kernel, failed, and the
# kernel's postinst failed with it (dkms exit 11, the kernel left
# unconfigured).
# Under emulation, unpacking a kernel's 22,000 files and indexing its 5,000
# modules takes more than 25 minutes, so dpkg -i leaves out the payload no
# hook reads (--path-exclude: the modules under kernel/, the header files
# but include/generated/utsrelease.h, whose directories are included too:
# dpkg does not create an excluded directory for an included file, and
# fails the unpack); the packages' maintainer scripts,
# the hooks, vmlinuz, System.map, config and the headers' build link and
# include/ (what the hooks test) are the real ones; the initramfs is made
# with MODULES=list (initramfs-tools' own setting).  (Where the guest's
# dpkg database has that kernel installed already, a reinstall would
# replace and index all of it: the packages' own postinst scripts are run
# as dpkg --configure runs them, over a module directory without the
# modules.)
# Only in the trixie guest: every kernel Debian 12's suites carry (6.1;
# 6.12 in bookworm-security and bookworm-backports) is in the range now,
# so bookworm has no unsupported kernel to install beside ours (installing
# trixie-backports' kernel there fails on its kbuild's libc, not on us).
# Not on the debug kernel: it has no distro module tree or headers package.
# skip-kernel: 6.1.*|*+deb12-amd64 every kernel Debian 12's suites carry (6.1, 6.12) is in dkms.conf's range (^(6\.1|6\.12|7\.3)\.): no unsupported kernel to install beside ours on bookworm; runs in the trixie guest (+deb13) with trixie-backports' 7.2
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

# ---- our package, on the running kernel -----------------------------------
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
check_match "dkms status: installed for $KVER" "^$NAME/$VER, $KVER_RE, x86_64: installed" \
	"$(dkms_status "$NAME/$VER")"
modules_are_dkms_copies

# ---- the other kernel beside it --------------------------------------------
read -ra pkgs <<<"$(for f in "$KERNEL_DEBS"/*.deb; do dpkg-deb -f "$f" Package; done | tr '\n' ' ')"
diag "the other kernel's packages: ${pkgs[*]}"
before=$(dpkg-query -W -f='${Status}' "linux-image-$K2" 2>/dev/null)
diag "linux-image-$K2 before: ${before:-not installed}"
rm -f "/boot/initrd.img-$K2"
t1=$SECONDS
if [ "$before" != "install ok installed" ]; then
	on_exit "dpkg --purge ${pkgs[*]}"
	out=$(dpkg --path-exclude="/lib/modules/$K2/kernel/*" \
		--path-exclude="/usr/lib/modules/$K2/kernel/*" \
		--path-exclude="/usr/src/linux-headers-${K2%-amd64}*/*" \
		--path-include="/usr/src/linux-headers-$K2/include" \
		--path-include="/usr/src/linux-headers-$K2/include/generated" \
		--path-include="/usr/src/linux-headers-$K2/include/generated/utsrelease.h" \
		-i "$KERNEL_DEBS"/*.deb 2>&1)
	rc=$?
	what="dpkg -i ${pkgs[*]}"
else
	k2lib=/lib/modules/$K2 k2small=/tmp/701-lib.$$
	on_exit "mountpoint -q $k2lib && umount $k2lib; rm -rf $k2small"
	mkdir -p "$k2small"
	cp "$k2lib"/modules.order "$k2lib"/modules.builtin* "$k2small/"
	ln -s "/usr/src/linux-headers-$K2" "$k2small/build"
	mount --bind "$k2small" "$k2lib"
	out="" rc=0
	pkgs=("linux-image-$K2" "linux-headers-$K2")
	for p in "${pkgs[@]}"; do
		out+=$(DPKG_MAINTSCRIPT_PACKAGE=$p DPKG_MAINTSCRIPT_NAME=postinst \
			"/var/lib/dpkg/info/$p.postinst" configure 2>&1)$'\n'
		rc=$((rc + $?))
	done
	what="the postinst (configure) of ${pkgs[*]}"
fi
diag "$what: $((SECONDS - t1)) s"
printf '%s\n' "$out" | grep -A1 -E 'dkms|dm-mpath|update-initramfs|run-parts|rror' | sed 's/^/#   /'
check_eq "$what: exit 0" 0 "$rc" ||
	printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /'
for p in "${pkgs[@]}"; do
	check_eq "$p is configured" "install ok installed" \
		"$(dpkg-query -W -f='${Status}' "$p" 2>&1)"
done
K2_RE=$(sed 's/[.+]/\\&/g' <<<"$K2")	# 6.12.118+deb12-amd64 as a regex
check_match "our kernel hook passed over $K2" "dm-mpath-dkms: not built for kernel $K2_RE" "$out"
check "the initramfs hook, after ours, made /boot/initrd.img-$K2" test -s "/boot/initrd.img-$K2"
check_eq "dkms status: no line of ours for $K2" "" "$(dkms_status "$NAME" | grep -F "$K2")"
check_eq "no module of ours under /lib/modules/$K2" "" \
	"$(find "/lib/modules/$K2/" -name 'dm-multipath.ko*' 2>&1)"
dkms build "$NAME/$VER" -k "$K2" >/dev/null 2>&1
check_eq "dkms build $NAME/$VER -k $K2: refused by BUILD_EXCLUSIVE_KERNEL (exit 77)" 77 "$?"

# ---- ours still in place on the running kernel ---------------------------
check_match "dkms status: ours installed for $KVER only" "^$NAME/$VER, $KVER_RE, x86_64: installed$ORIG_RE\$" \
	"$(dkms_status "$NAME")"
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
