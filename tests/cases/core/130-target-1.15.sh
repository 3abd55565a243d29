#!/bin/bash
# Target 1.15.0's grammar, where the kernel's own dm-multipath has it (7.x):
# ours announces 1.15.0; answers DM_MPATH_PROBE_PATHS (the ioctl QEMU sends
# after an SG_IO error) by reading through every active path of the PG in
# use and failing the paths that fail, -ENOTCONN once no path is left;
# passes atomic writes (RWF_ATOMIC) to paths that take them; accepts
# retain_attached_hw_handler without showing it in the table (1.15.0
# always keeps an attached scsi_dh).  Documentation/kernels.md has the
# grammar per target version.
# skip-kernel: 6.* target 1.14.0 there (the kernel's own dm-multipath has no probe ioctl, no atomic writes): nothing of 1.15.0 to match
# timeout: 180
# cross-kernel: yes
source "${0%/*}/rc"

# probe MAP: DM_MPATH_PROBE_PATHS on the map (_IO(DM_IOCTL 0xfd, 18), as
# include/uapi/linux/dm-ioctl.h defines it); prints 0 or the errno.
probe() {
	python3 - "/dev/mapper/$1" <<-'EOF'
	import fcntl, os, sys
	fd = os.open(sys.argv[1], os.O_RDONLY)
	try:
	    fcntl.ioctl(fd, 0xfd12)
	    print(0)
	except OSError as e:
	    print(e.errno)
	EOF
}

# scsi_debug's atomic-write support (atomic_wr=1): the paths take RWF_ATOMIC
# writes of up to 16 KiB.
mp_fixture 2 mp115 -- atomic_wr=1 atomic_wr_max_length=32 atomic_wr_gran=1
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
SA=${SD_NAMES[0]} SB=${SD_NAMES[1]}

check_match "dmsetup targets: multipath v1.15.0 (ours: release $MPATH_RELEASE)" \
	'^multipath +v1\.15\.0$' "$(dmsetup targets | grep '^multipath ')"
check_eq "the loaded dm_multipath is ours" "$MPATH_RELEASE" "$(cat /sys/module/dm_multipath/version 2>&1)"

# retain_attached_hw_handler: accepted, no longer shown.
check "a table with retain_attached_hw_handler is accepted" \
	dm_create mp115 "0 $SECTORS multipath 1 retain_attached_hw_handler 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check_eq "the table does not show it (1.15.0)" \
	"0 $SECTORS multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1 " "$(dmsetup table mp115)"

# Before any I/O no PG is in use: nothing to probe, both paths usable.
ra=$(path_reads "$SA") rb=$(path_reads "$SB")
check_eq "probe before any I/O answers 0" 0 "$(probe mp115)"
check_eq "...and read nothing" "$ra $rb" "$(path_reads "$SA") $(path_reads "$SB")"

check "a read through the map (a PG in use)" \
	dd if=/dev/mapper/mp115 of=/dev/null bs=4k count=1 iflag=direct status=none
ra=$(path_reads "$SA") rb=$(path_reads "$SB")
check_eq "probe with both paths working answers 0" 0 "$(probe mp115)"
check "...it read through path A" test "$(path_reads "$SA")" -gt "$ra"
check "...and through path B" test "$(path_reads "$SB")" -gt "$rb"
check_eq "...and failed none" "0 $SECTORS multipath 1 0 0 1 1 A 0 2 0 $A A 0 $B A 0 " \
	"$(dmsetup status mp115)"

path_offline "$SA"
check_eq "path A offline: probe answers 0 (B works)" 0 "$(probe mp115)"
check_eq "...and failed A only" "0 $SECTORS multipath 1 0 0 1 1 A 0 2 0 $A F 1 $B A 0 " \
	"$(dmsetup status mp115)"
rb=$(path_reads "$SB")
check "I/O goes on through B" \
	dd if=/dev/mapper/mp115 of=/dev/null bs=4k count=8 iflag=direct status=none
check "...B carried it" test "$(path_reads "$SB")" -gt "$rb"

path_offline "$SB"
check_eq "both offline: probe answers ENOTCONN (107)" 107 "$(probe mp115)"
check_eq "...having failed B" "0 $SECTORS multipath 1 0 0 1 1 A 0 2 0 $A F 1 $B F 1 " \
	"$(dmsetup status mp115)"
path_running "$SA"
path_running "$SB"
check "reinstate A" dmsetup message mp115 0 reinstate_path "$A"
check "reinstate B" dmsetup message mp115 0 reinstate_path "$B"
check "remove the map" dm_remove mp115

# Atomic writes: the map offers what its paths offer, and carries one.
check "a map for atomic writes" \
	dm_create mp115 "0 $SECTORS multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1"
dm=$(dmsetup info -c --noheadings -o blkdevname mp115)
pmax=$(cat "/sys/block/$SA/queue/atomic_write_unit_max_bytes")
check "the paths take atomic writes (unit max $pmax bytes)" test "${pmax:-0}" -ge 4096
check_eq "the map's atomic write unit max is the paths'" "$pmax" \
	"$(cat "/sys/block/$dm/queue/atomic_write_unit_max_bytes")"
pattern=/tmp/atomic.$$
head -c 4096 /dev/urandom >"$pattern"
on_exit "rm -f $pattern"
check_eq "an RWF_ATOMIC 4 KiB write through the map" 4096 "$(python3 - /dev/mapper/mp115 "$pattern" <<-'EOF'
	import mmap, os, sys
	buf = mmap.mmap(-1, 4096)
	buf.write(open(sys.argv[2], 'rb').read())
	fd = os.open(sys.argv[1], os.O_WRONLY | os.O_DIRECT)
	try:
	    print(os.pwritev(fd, [buf], 65536, 0x40))  # RWF_ATOMIC
	except OSError as e:
	    print('errno', e.errno)
	EOF
)"
check "...read back through a path" \
	sh -c "dd if=${SD_DEVS[1]} bs=4k skip=16 count=1 iflag=direct status=none | cmp - $pattern"
check "remove the map" dm_remove mp115
