#!/bin/bash
# The Debian package: apt installs it, an admin verifies it, apt-get remove --purge, the distro's modules work again.
# What README.Debian (the package's admin README) tells an admin, step by
# step.  Install: apt-get install ./dm-mpath-dkms_<version>_all.deb; its
# postinst loads the modules DKMS built outside the guest (rc:
# stage_prebuilt_tarball: no compiling in the emulated guest) and installs
# them for the running kernel.  Verify: dkms status, modinfo -F version
# (ours: the release; the kernel's: none), modinfo -n, the loaded copy's
# /sys/module/dm_multipath/version; the documents the guide refers to are
# where it says.  Troubleshooting's mixed copies: the kernel's
# dm-multipath loaded (as a stale initramfs does) and our selector
# refused, with the kernel-log lines README.Debian quotes.  Go back:
# apt-get remove --purge leaves nothing of ours (DKMS state, /usr/src,
# updates/dkms, the kernel hooks); modinfo -n and modprobe find the
# kernel's modules; the kernel's target refuses the three settings the
# guide says it does; and with scsi_dh_alua no longer blocked (the guide's
# step 2), the kernel's dm-multipath carries I/O on a "1 alua" map over the
# LIO ALUA array (tests/lio), with scsi_dh_alua attached to each port.
# Not on the debug kernel: it has no distro module tree or headers package.
# requires: distro-kernel
# timeout: 1500
# tier: full (CI time: about 9 min of guest time; 700 covers the DKMS install, use and removal by default)
source "${0%/*}/rc"
source "$REPO/tests/lio/lib.sh"

PKG=$NAME-dkms
DOC=/usr/share/doc/$PKG
diag "package $PKG $VER; kernel $KVER"
small_module_tree target_core_mod tcm_loop scsi_dh_alua || exit 1
stage_prebuilt_tarball || exit 1
on_exit "dm_remove mp702; unload_mods; dpkg --purge $PKG"

# ---- install ------------------------------------------------------------------
t0=$SECONDS
out=$(apt-get install -y --no-install-recommends "$DEB" 2>&1)
rc=$?
diag "apt-get install $DEB: $((SECONDS - t0)) s"
printf '%s\n' "$out" | grep -E '^(Setting up|Building|Skipped|Loading|Done|dkms)' | sed 's/^/#   /'
check_eq "apt-get install ./${DEB##*/}: exit 0" 0 "$rc" || {
	printf '%s\n' "$out" | tail -n 20 | sed 's/^/# /'
	exit 1
}
check_eq "dpkg: $PKG $VER installed" "install ok installed $VER" \
	"$(dpkg-query -W -f='${Status} ${Version}' "$PKG" 2>&1)"

# ---- verify (README.Debian) ----------------------------------------------
check_match "dkms status dm-mpath: installed" "^$NAME/$VER, $KVER_RE, x86_64: installed$ORIG_RE\$" \
	"$(dkms_status "$NAME")"
modules_are_dkms_copies
modules_load_dkms_copies
check_eq "the loaded copy: /sys/module/dm_multipath/version" "$VER" \
	"$(cat /sys/module/dm_multipath/version 2>&1)"
check_eq "dmsetup targets: the grammar multipathd checks for" "$MPATH_TARGET_VERSION" \
	"$(dmsetup targets | awk '$1 == "multipath" {print $2}')"
for f in README.Debian copyright changelog.gz CHANGELOG.md Documentation/admin-guide.rst \
	Documentation/device-mapper/dm-multipath.rst; do
	check "$DOC/$f is there" test -s "$DOC/$f"
done
# Links ([text](target.md), `text <target.rst>`_) resolve beside the
# document that has them; a bare name of a document the source tree ships
# (anything under Documentation/, CHANGELOG.md) is in the package under that
# name.  Other NAME.md words (a benchmark's report.md, the source tree's
# bench/README.md named as such) are not documents of the package.
missing=""
while read -r f; do
	for r in $(grep -oE '\]\([^)#[:space:]]+\.(rst|md)' "$f" | sed 's/^](//'
		grep -oE '<[^>[:space:]]+\.(rst|md)>`_' "$f" | sed 's/^<//; s/>`_$//'); do
		[ -e "$(dirname "$f")/$r" ] || missing+=" ${f#"$DOC"/}:$r"
	done
	for r in $(grep -oE '[A-Za-z0-9_./-]+\.(rst|md)\b' "$f" | sort -u); do
		base=${r##*/}
		[ "$base" = CHANGELOG.md ] ||
			[ -n "$(find "$REPO/Documentation" -name "$base" -print -quit)" ] || continue
		[ -n "$(find "$DOC" -name "$base" -print -quit)" ] || missing+=" ${f#"$DOC"/}:$r"
	done
done < <(find "$DOC" -type f \( -name '*.rst' -o -name '*.md' -o -name README.Debian \))
check_eq "every document the documents refer to is shipped" "" "$missing"
check_fail "the developers' README is not shipped" test -e "$DOC/README.md"
check "unload" unload_mods

# ---- troubleshooting: mixed copies ----------------------------------------
# The kernel's own copy while ours is installed: in its place (Debian 12's
# DKMS 3.0), or moved aside by the install (Debian 13's DKMS 3.2 archives
# the one module of that name it finds, in original_module/, and puts it
# back at removal); an initramfs made before still carries it.
own=$LIB/kernel/drivers/md/dm-multipath$KO
[ -e "$own" ] || own=/var/lib/dkms/$NAME/original_module/$KVER/$(uname -m)/dm-multipath$KO
diag "the kernel's own dm-multipath while ours is installed: $own"
kmsg_mark
check "the kernel's dm-multipath loads (insmod $own, as a stale initramfs would)" \
	insmod "$own"
check_fail "then our dm-service-time is refused" modprobe dm-service-time
k=$(kmsg_since)
# (ours registers under names of its own: the kernel's dm-multipath has
# none of them, on every kernel; 7.3's module versioning let the shared
# name through)
check_match "kernel log: Unknown symbol dm_mpath_register_path_selector" \
	"dm_service_time: Unknown symbol dm_mpath_register_path_selector \(err -[0-9]+\)" "$k"
check_fail "dm_service_time is not loaded" test -d /sys/module/dm_service_time
check "unload the kernel's dm-multipath" rmmod dm_multipath

# ---- go back: apt-get remove --purge ---------------------------------------
t1=$SECONDS
out=$(apt-get remove --purge -y "$PKG" 2>&1)
rc=$?
diag "apt-get remove --purge $PKG: $((SECONDS - t1)) s"
printf '%s\n' "$out" | grep -E '^(Removing|Purging|Deleting|Module)' | sed 's/^/#   /'
check_eq "apt-get remove --purge $PKG: exit 0" 0 "$rc" || printf '%s\n' "$out" | tail -n 20 | sed 's/^/# /'
check_fail "dpkg knows no $PKG" dpkg-query -W -f='${Status}\n' "$PKG"
check_eq "dkms status: nothing" "" "$(dkms_status "$NAME")"
check_fail "no /var/lib/dkms/$NAME" test -e "/var/lib/dkms/$NAME"
check_fail "no /usr/src/$NAME-$VER" test -e "/usr/src/$NAME-$VER"
check_fail "no kernel hook left" ls /etc/kernel/postinst.d/$PKG /etc/kernel/header_postinst.d/$PKG
check_eq "nothing of ours in $LIB/updates" "" "$(find "$LIB/updates" -name 'dm-*' 2>/dev/null)"
for m in "${KERNEL_MPATH_MODS[@]}"; do
	check "the kernel's $m is in its place again" test -s "$LIB/kernel/drivers/md/$m$KO"
done
for m in "${MODS[@]}"; do
	if [ -e "$LIB/kernel/drivers/md/$m$KO" ]; then
		check_eq "modinfo -n $m: the kernel's own" "$LIB/kernel/drivers/md/$m$KO" \
			"$(modinfo -n "$m" 2>&1)"
	else # ours only (dm-emc, dm-alua, dm-historical-service-time): none left
		check_fail "modinfo -n $m: none (the kernel has no $m)" modinfo -n "$m"
	fi
done
check_eq "modinfo -F version dm-multipath: none (the kernel's)" "" \
	"$(modinfo -F version dm-multipath 2>&1)"

# ---- the kernel's own modules at work --------------------------------------
check "modprobe dm-multipath dm-round-robin" eval "modprobe dm-multipath && modprobe dm-round-robin"
check_fail "the loaded dm-multipath has no version file (the kernel's)" \
	test -e /sys/module/dm_multipath/version
on_exit "scsi_dh_block scsi_dh_alua"
check "scsi_dh_alua no longer blocked, loaded (the guide's step 2)" scsi_dh_allow scsi_dh_alua || exit 1
lio_start --allow-dh --groups 2 --ports-per-group 2 || exit 1
for p in "${LIO_PORTS[@]}"; do
	check_eq "$p: scsi_dh_alua attached" alua "$(cat "/sys/block/${LIO_DEVS[$p]#/dev/}/device/dh_state")"
done
# what the guide says the kernel's target refuses
refused() { # refused DESC TABLE: the kernel's target refuses TABLE
	check_fail "the kernel's target refuses $1" dmsetup create mp702x --table "$2"
	dmsetup remove mp702x >/dev/null 2>&1
}
T=$(lio_table)
refused "queue_if_no_path_timeout_secs" "${T/multipath 0 1 alua/multipath 2 queue_if_no_path_timeout_secs 30 1 alua}"
refused "historical-service-time" "${T//round-robin 0/historical-service-time 0}"
refused "2 alua implicit_only" "${T/multipath 0 1 alua/multipath 0 2 alua implicit_only}"
check "a '1 alua' map, 1 PG per port group" dm_create mp702 "$T"
check_match "its table says '1 alua'" " multipath 0 1 alua " " $(dmsetup table mp702) "
io1=$(group_io 1)
check "1 MiB written and read back through it" eval \
	"dd if=/dev/urandom of=/tmp/702.dat bs=64k count=16 status=none &&
	 dd if=/tmp/702.dat of=/dev/mapper/mp702 bs=64k oflag=direct status=none &&
	 cmp <(dd if=/dev/mapper/mp702 bs=64k count=16 iflag=direct status=none) /tmp/702.dat"
check "group 1 (active/optimized) carried it" group_io_gt 1 "$io1"
check_eq "the kernel's target ran it ($MPATH_TARGET_VERSION, no version file)" "$MPATH_TARGET_VERSION none" \
	"$(dmsetup targets | awk '$1 == "multipath" {print $2}') $(cat /sys/module/dm_multipath/version 2>/dev/null || echo none)"
dm_remove mp702
rm -f /tmp/702.dat
