#!/bin/bash
# Protection information (DIF/DIX) passes through the map, retries included.
# Over two scsi_debug paths with T10 DIF type 1 and DIX (dif=1 dix=1) the
# map takes the paths' integrity profile, as Linux 6.1's target does
# (DM_TARGET_PASSES_INTEGRITY). A bio-based map gets protection information
# only from a submitter that attaches it (LIO's iblock, a stacked driver):
# tests/modules/mptest_pi does, and checks what it reads, data and tuples.
# Its writes and reads go through with the PI intact, and keep doing so
# while a path goes offline under them: the bios failed on it are retried
# on the other path with their PI (a read retried without it would return
# no tuples; an error returned would fail the load). A control read of
# another pattern fails. fio (the block layer generates PI at the paths)
# verifies across a failover too.
# timeout: 300
source "${0%/*}/rc"

mp_fixture 2 mpi -- dif=1 dix=1
on_exit "kill \$FIO_PID 2>/dev/null; wait"
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
check "create map (round-robin over both paths)" dm_create mpi \
	"0 $SECTORS multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1" || exit 1
DM=$(dmsetup info -c --noheadings -o blkdevname mpi)
# errs_of PATH: bios our target saw fail on PATH (its debugfs record)
errs_of() { sed -n "s/.*dev=$1 .*errors=\([0-9]*\).*/\1/p" "/sys/kernel/debug/dm-multipath/$DEV"; }
DEV=$(dmsetup info -c --noheadings -o major,minor --separator : mpi)

path_format=$(cat "/sys/block/${SD_NAMES[0]}/integrity/format")
diag "paths' integrity format: $path_format"
check_eq "the paths have a DIF profile" T10-DIF-TYPE1-CRC "$path_format"
check_eq "the map has the paths' integrity profile" "$path_format" \
	"$(cat "/sys/block/$DM/integrity/format")"

# pi_load ARGS...: tests/modules/mptest_pi.ko does its I/O, with protection
# information it attaches itself, as it loads: the load is its verdict.
PI_KO=$KO_DIR/tests/modules/mptest_pi.ko
pi_load() {
	local r
	insmod "$PI_KO" path=/dev/mapper/mpi "$@"
	r=$?
	rmmod mptest_pi 2>/dev/null
	return $r
}
# 4 MiB: about 7 s a pass in an emulated guest.
NBLK=1024
# A forced removal (the harness's last resort) swaps in a table without an
# integrity profile, and dm core cannot clone a protected bio then: never
# leave with the module's I/O still running.
on_exit "wait"
kmsg_mark
check "write the whole map with submitter PI ($NBLK x 4 KiB)" pi_load op=write count=$NBLK seed=1
check "read it back: data and PI as written" pi_load op=read count=$NBLK seed=1
check_fail "control: a read expecting another pattern fails" pi_load op=read count=8 seed=2
check_match "the module's verdicts are logged" \
	"mptest_pi: read $NBLK x 4 KiB with protection information on /dev/mapper/mpi: 0 failed, 0 data mismatches, 0 PI mismatches" \
	"$(kmsg_since)"

diag "failover under I/O with submitter PI"
# pi_failover OP SEED I DEV: the module's OP pass (seed SEED) while path I
# (DEVNUMS[I], DEV) goes offline under it: the whole pass succeeds, bios
# failed on that path (so were retried on the other), then the path is back.
pi_failover() {
	local op=$1 seed=$2 i=$3 dev=$4 e0 pid rc
	e0=$(errs_of "$dev")
	pi_load op="$op" count=$NBLK seed="$seed" &
	pid=$!
	sleep 0.5
	check "offline path $dev under ${op}s with PI" path_offline "${SD_NAMES[i]}"
	wait $pid
	rc=$?
	check_eq "every $op with PI succeeded, data and PI (retried ones too)" 0 $rc
	e0=$(($(errs_of "$dev") - e0))
	diag "bios failed on path $dev and retried on the other: $e0"
	check "${op}s failed on path $dev (so were retried)" test "$e0" -gt 0
	check "path $dev back" path_running "${SD_NAMES[i]}"
	check "reinstate path $dev" dmsetup message mpi 0 reinstate_path "$dev"
}
pi_failover read 1 0 "$A"
pi_failover write 3 1 "$B"
check "all read back with their PI" pi_load op=read count=$NBLK seed=3

diag "fio (PI generated at the paths) across a failover"
e0=$(errs_of "$A")
fio_start_verified /dev/mapper/mpi 8 $(per_kernel 2 1) 32 /tmp/fio-113.json
sleep 3
check "offline path A under I/O" path_offline "${SD_NAMES[0]}"
check "the map fails path A" wait_until 30 eval '[ "$(path_state mpi "$A")" = F ]'
fio_wait_verified
errs=$(($(errs_of "$A") - e0))
diag "bios failed on path A and retried on B: $errs"
check "bios failed on path A under I/O (retried)" test "$errs" -gt 0
check "path A back" path_running "${SD_NAMES[0]}"
check "reinstate path A" dmsetup message mpi 0 reinstate_path "$A"
check "after reinstatement: writes with PI over both paths" pi_load op=write count=$NBLK seed=4
check "... and reads with PI" pi_load op=read count=$NBLK seed=4
