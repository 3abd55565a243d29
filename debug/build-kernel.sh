#!/bin/bash
# Build (once) and cache the debug guest kernel: lockdep, KASAN, UBSAN,
# kmemleak, debug objects, fail_make_request.
#
# Source: the distro's linux-source-6.1 package (the exact source of the
# kernel the normal test mode boots).  Config: the base defconfig named in
# debug/kernel.config plus that fragment.  The result lives outside the
# clone, keyed by source package version + sha256 of the fragment, so a
# fresh clone (or a second engineer) reuses it:
#
#   $CACHE/<key>/build/                 O= build tree: KDIR for our modules
#   $CACHE/<key>/bzImage                KERNEL_IMAGE
#   $CACHE/<key>/modroot/lib/modules/<release>   KERNEL_MODDIR
#   $CACHE/<key>/env                    the three lines above as VAR=value
#   $CACHE/<key>/build.log, .complete
#
# Usage: debug/build-kernel.sh            build if needed, print env lines
#        debug/build-kernel.sh --env      print env lines; exit 1 if not built
#        debug/build-kernel.sh --kdir     print KDIR only; exit 1 if not built
#        debug/build-kernel.sh --key      print the cache key
# Env:   DEBUG_KERNEL_CACHE (default /var/cache/dm-mpath-debug-kernel)
#        DEBUG_KERNEL_JOBS (default 2), nice -n 19 always: the 2 cores are
#        shared with guests that other people are running.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
frag=$here/kernel.config
tarball=/usr/src/linux-source-6.1.tar.xz
srcpkg=linux-source-6.1
cache=${DEBUG_KERNEL_CACHE:-/var/cache/dm-mpath-debug-kernel}
jobs=${DEBUG_KERNEL_JOBS:-2}

die() { echo "build-kernel: $*" >&2; exit 1; }

pkgver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null) ||
	die "package $srcpkg is not installed (apt-get install $srcpkg)"
[ -r "$tarball" ] || die "$tarball missing (apt-get install --reinstall $srcpkg)"
base=$(sed -n 's/^# base: *\([A-Za-z0-9_]*\).*/\1/p' "$frag" | head -n1)
[ -n "$base" ] || die "$frag has no '# base: <defconfig>' line"

# Only what reaches the kernel config counts towards the key: the base
# line and the option lines (set or "is not set"), so editing a comment in
# the fragment does not cost a rebuild.
frag_sha=$(grep -E '^(# base:|CONFIG_|# CONFIG_[A-Za-z0-9_]+ is not set)' "$frag" |
	sed 's/[[:space:]]*$//' | sha256sum | cut -c1-16)
key=$pkgver-$frag_sha
out=$cache/$key
src=$cache/src/$pkgver/linux-source-6.1
bld=$out/build

print_env() {
	cat "$out/env"
}

case "${1:-}" in
--key) echo "$key"; exit 0 ;;
--env) [ -e "$out/.complete" ] || die "not built yet: run $0"; print_env; exit 0 ;;
--kdir) [ -e "$out/.complete" ] || die "not built yet: run $0"; echo "$bld"; exit 0 ;;
"") ;;
*) die "unknown argument $1" ;;
esac

if [ -e "$out/.complete" ]; then
	print_env
	exit 0
fi

for tool in gcc make flex bison bc perl cpio depmod; do
	command -v "$tool" >/dev/null ||
		die "$tool not found (apt-get install build-essential flex bison bc libelf-dev libssl-dev cpio kmod)"
done
[ -e /usr/include/libelf.h ] || die "libelf.h missing (apt-get install libelf-dev)"

mkdir -p "$cache"
# One builder at a time; a second caller waits, then finds .complete.
exec 9>"$cache/.lock"
flock 9
if [ -e "$out/.complete" ]; then
	print_env
	exit 0
fi

if [ ! -e "$src/.extracted" ]; then
	echo "build-kernel: extracting $tarball to $src" >&2
	rm -rf "$src"
	mkdir -p "$(dirname "$src")"
	nice -n 19 tar -C "$(dirname "$src")" -xf "$tarball"
	[ -e "$src/Makefile" ] || die "unexpected tarball layout: no $src/Makefile"
	touch "$src/.extracted"
fi

mkdir -p "$bld"
log=$out/build.log
: >"$log"
echo "build-kernel: building $key (log: $log)" >&2
start=$(date +%s)

kmake() {
	nice -n 19 make -C "$src" O="$bld" "$@" >>"$log" 2>&1 ||
		die "make $* failed; last lines of $log:$(echo; tail -n 30 "$log")"
}

kmake "$base"
"$src/scripts/kconfig/merge_config.sh" -m -O "$bld" "$bld/.config" "$frag" >>"$log" 2>&1 ||
	die "merge_config.sh failed (see $log)"
kmake olddefconfig

# Every option in the fragment must be in the final config exactly as
# written: olddefconfig drops what an unmet dependency forbids, silently.
bad=0
while IFS= read -r line; do
	case "$line" in
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -q "^$opt=" "$bld/.config"; then
			echo "build-kernel: wanted '$line', got '$(grep "^$opt=" "$bld/.config")'" >&2
			bad=1
		fi
		;;
	CONFIG_*=*)
		if ! grep -qxF "$line" "$bld/.config"; then
			opt=${line%%=*}
			got=$(grep -E "^(# )?$opt[= ]" "$bld/.config" || echo "absent")
			echo "build-kernel: wanted '$line', got '$got'" >&2
			bad=1
		fi
		;;
	esac
done <"$frag"
[ "$bad" = 0 ] || die "config fragment not honoured (fix $frag)"

kmake -j"$jobs" bzImage modules
release=$(cat "$bld/include/config/kernel.release")
rm -rf "$out/modroot"
kmake INSTALL_MOD_PATH="$out/modroot" DEPMOD=/sbin/depmod modules_install
moddir=$out/modroot/lib/modules/$release
[ -e "$moddir/modules.dep" ] || die "modules_install produced no $moddir/modules.dep"
# The O= tree is the module build dir; a relative symlink would dangle
# inside the guest, so point build/ at the absolute path explicitly.
ln -sfn "$bld" "$moddir/build"
cp "$bld/arch/x86/boot/bzImage" "$out/bzImage"

cat >"$out/env" <<EOF
KERNEL_IMAGE=$out/bzImage
KERNEL_MODDIR=$moddir
KDIR=$bld
EOF
end=$(date +%s)
echo "build-kernel: built $release in $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s" | tee -a "$log" >&2
touch "$out/.complete"
print_env
