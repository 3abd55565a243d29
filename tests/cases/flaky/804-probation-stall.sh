#!/bin/bash
# Stalls (probation_stall_msecs): a path whose I/O is slow past the bound goes on probation while in use.
# Path B is dm-delay over a scsi_debug path (every I/O held 1 s); the
# map has probation_stall_msecs 500 and probation_clean_ios 10. Direct
# reads alternate between A and B (round-robin, repeat_count 1): B's third
# read past the bound puts it on probation at once, without a failure
# ("Path X on probation: 0 failures and 3 stalls in 60 s.", the status's
# words "0 3 60 ..."), and from then on it gets its trial share; nothing
# failed. dm-delay set to 0 ms: its clean trial reads take it off
# probation. Without the bound (the default) the slow path stays in use.
# timeout: 180
source "${0%/*}/rc"

mp_fixture 2 mps slowb
# The paths' shares are counted with sequential reads: per-bio choices
# (a sequential stint would keep them on one path; 156 tests stints).
check "per-bio choices: sequential_stream_kb=0" mp_stream_off || exit 1
A=${DEVNUMS[0]}
check "dm-delay loads" modprobe dm-delay || exit 1
on_exit "modprobe -r dm-delay"
check "dm-delay over path 2: 1000 ms" dm_create slowb "0 $SECTORS delay ${SD_DEVS[1]} 0 1000"
B=$(devnum /dev/mapper/slowb)

kmsg_mark
# A bound far from both the delay and an emulated guest's slowest read.
check "map with probation_stall_msecs 500, probation_clean_ios 10" \
	dm_create mps "0 $SECTORS multipath 4 probation_stall_msecs 500 probation_clean_ios 10 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check "6 direct reads (3 on B, each 1 s)" direct_reads mps 6
check_eq "B on probation: 0 failures, 3 stalls in 60 s" "0 3 60 0 10" "$(probation_of mps "$B")"
check_eq "... and active, never failed" "A 0" "$(path_state mps "$B") $(path_stat mps "$B" fail_count)"
b0=$(path_stat mps "$B" sent)
check "256 reads" direct_reads mps 256
db=$(($(path_stat mps "$B" sent) - b0))
check "B got its trial share: 1 to 10 of 256 ($db)" test "$db" -ge 1 -a "$db" -le 10
check_match "debugfs: stalls in the history" "stalls=[3-9] history=stall:" \
	"$(grep "dev=$B " "/sys/kernel/debug/dm-multipath/$(map_devnum mps)")"
check "dm-delay to 0 ms" dm_reload slowb "0 $SECTORS delay ${SD_DEVS[1]} 0 0"
check "... live" dmsetup resume slowb
# 10 clean trial reads: 640 reads; up to 5000, in case a trial read of a
# loaded guest stalls past the bound and starts the run again.
reads_until_off_probation mps "$B" 5
check_fail "B left probation ($READS_DONE reads or fewer)" on_probation mps "$B"
kmsg_expect "the kernel said why" "Path $B on probation: 0 failures and 3 stalls in 60 s\."
kmsg_expect "and that it left" "Path $B left probation\."
dm_remove mps

check "dm-delay back to 1000 ms" dm_reload slowb "0 $SECTORS delay ${SD_DEVS[1]} 0 1000"
check "... live" dmsetup resume slowb
check "a map without the stall bound" \
	dm_create mps "0 $SECTORS multipath 0 0 1 1 round-robin 0 2 1 $A 1 $B 1"
check "6 direct reads" direct_reads mps 6
check_eq "nothing on probation: slowness is the selector's business" 0 "$(nr_on_probation mps)"
b0=$(path_stat mps "$B" sent)
check "10 reads" direct_reads mps 10
check_eq "B takes its half" 5 $(($(path_stat mps "$B" sent) - b0))
kmsg_check_expected
dm_remove mps
dm_remove slowb
check "modules unload" mp_mods_unload
