#!/bin/bash
# Priority groups: failover, switch/disable/enable_group, bypass, initial PG.
# Priority groups: failover to the next PG when a PG has no path left, the
# PG stays until it fails, switch_group / disable_group / enable_group, a
# bypassed PG used only as a last resort, the initial PG of the table; all
# visible in the INFO status PG states (A/E/D) and in per-path counters.
# timeout: 300
source "${0%/*}/rc"

mp_fixture 4 mpg
check "per-bio choices: sequential_stream_kb=0" mp_stream_off || exit 1
A=${DEVNUMS[0]} B=${DEVNUMS[1]} C=${DEVNUMS[2]} D=${DEVNUMS[3]}
N=("${SD_NAMES[@]}")
TABLE="round-robin 0 2 1 $A 1 $B 1 round-robin 0 2 1 $C 1 $D 1"

# pgs: the PG state letters and the "current/next PG" field of INFO
pgs() {
	dmsetup status mpg | awk '{
		n = $7; printf "%s:", $8; i = 9
		for (g = 0; g < n; g++) {
			printf " %s", $i; i += 2 + $(i + 1); np = $i; na = $(i + 1); i += 2 + np * (3 + na)
		}
	}'
}
# io N: N direct reads; sets IO to "a b c d", the reads per path
io() {
	local r0=() r1=() i
	for i in 0 1 2 3; do r0+=("$(path_reads "${N[$i]}")"); done
	dd if=/dev/mapper/mpg of=/dev/null bs=4k count="$1" iflag=direct status=none
	for i in 0 1 2 3; do r1+=("$(path_reads "${N[$i]}")"); done
	IO="$((r1[0] - r0[0])) $((r1[1] - r0[1])) $((r1[2] - r0[2])) $((r1[3] - r0[3]))"
	diag "$1 reads per path: $IO; PGs $(pgs)"
}

check "create 2-PG map" dm_create mpg "0 $SECTORS multipath 0 0 2 1 $TABLE"
check_eq "before I/O: initial PG 1, both groups enabled" "1: E E" "$(pgs)"
io 100
check_eq "I/O goes to PG 1 only" "50 50 0 0" "$IO"
check_eq "PG 1 active" "1: A E" "$(pgs)"

check "fail_path both paths of PG 1" sh -c \
	"dmsetup message mpg 0 fail_path $A && dmsetup message mpg 0 fail_path $B"
io 100
check_eq "failover: I/O goes to PG 2" "0 0 50 50" "$IO"
check_eq "PG 2 active" "2: E A" "$(pgs)"
check "reinstate PG 1's paths" sh -c \
	"dmsetup message mpg 0 reinstate_path $A && dmsetup message mpg 0 reinstate_path $B"
io 100
check_eq "no failback: I/O stays on PG 2 while it has paths" "0 0 50 50" "$IO"

check "switch_group 1" dmsetup message mpg 0 switch_group 1
check_eq "after switch_group 1: next PG is 1" "1: E E" "$(pgs)"
io 100
check_eq "switch_group: I/O back on PG 1" "50 50 0 0" "$IO"
check_eq "PG 1 active" "1: A E" "$(pgs)"

check "disable_group 1" dmsetup message mpg 0 disable_group 1
check_match "PG 1 disabled" "^[0-9]: D E$" "$(pgs)"
io 100
check_eq "disabled PG 1 is skipped" "0 0 50 50" "$IO"
check_eq "PG 2 active, PG 1 disabled" "2: D A" "$(pgs)"
check "enable_group 1" dmsetup message mpg 0 enable_group 1
io 100
check_eq "enabled again: the first PG is chosen again" "50 50 0 0" "$IO"
check_eq "PG 1 active after enable_group" "1: A E" "$(pgs)"

check "disable_group 1, then fail both paths of PG 2" sh -c \
	"dmsetup message mpg 0 disable_group 1 && dmsetup message mpg 0 fail_path $C && dmsetup message mpg 0 fail_path $D"
io 100
check_eq "last resort: the disabled PG carries the I/O" "50 50 0 0" "$IO"
check_eq "PG 1 still shown disabled" "1: D E" "$(pgs)"
check "reinstate PG 2's paths, enable PG 1" sh -c \
	"dmsetup message mpg 0 reinstate_path $C && dmsetup message mpg 0 reinstate_path $D && dmsetup message mpg 0 enable_group 1"

# Failover on real path errors, not messages.
check "switch_group 1" dmsetup message mpg 0 switch_group 1
path_offline "${N[0]}"
path_offline "${N[1]}"
io 100
# Each offlined path completes (with an error) exactly the one bio that
# fails it; that bio and all the others complete on PG 2.
check_eq "offlined PG 1: its I/O is retried on PG 2" "1 1 50 50" "$IO"
check_match "offlined paths failed, PG 2 active" " $A F 2 $B F 2 .* $C A 1 $D A 1 $" "$(dmsetup status mpg)"
check_eq "PG 2 active after real failover" "2: E A" "$(pgs)"
path_running "${N[0]}"
path_running "${N[1]}"
dm_remove mpg

check "create with initial PG 2" dm_create mpg "0 $SECTORS multipath 0 0 2 2 $TABLE"
check_eq "initial PG 2 shown" "2: E E" "$(pgs)"
io 100
check_eq "I/O starts on the initial PG 2" "0 0 50 50" "$IO"
check_eq "PG 2 active" "2: E A" "$(pgs)"
dm_remove mpg
check "modules unload" mp_mods_unload
