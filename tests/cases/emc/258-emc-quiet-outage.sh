#!/bin/bash
# dm-emc: after every path failed with no I/O coming, the PG in use stays so.
# dm-emc over the emulated CLARiiON: PG1 = SP A's ports, PG2 = SP B's. With
# PG2 in use (the LUN on SP B), all four paths are failed by message while
# no I/O comes, then one port of each SP is reinstated, SP A's first. The
# next read goes to PG2, as in Linux 6.1 (only an I/O that finds no path
# makes the map choose from the first PG again), and PG2 is initialised
# again first: dm-emc asks SP B, which owns the LUN, so no trespass at all
# (as scsi_dh_emc on the stock stack), no media command to A.
# timeout: 300
source "${0%/*}/rc"

declare -A N
emc_sp_map || exit 1
MP=/dev/mapper/mpemc
rd() { dd if=$MP of=/dev/null bs=64k count=16 iflag=direct status=none; }

check "switch_group 2" dmsetup message mpemc 0 switch_group 2
check "read through PG2" rd
check_eq "LUN owned by B" B "$(cl_ctl owner)"
check_eq "PG2 is in use" 2 "$(table_pg_in_use mpemc)"

# The outage: every path fails, and no I/O comes meanwhile.
for p in A0 A1 B0 B1; do
	check "fail_path $p" dmsetup message mpemc 0 fail_path "${N[$p]}"
done
check_eq "no path active" "F F F F" \
	"$(for p in A0 A1 B0 B1; do path_state mpemc "${N[$p]}"; done | paste -sd' ')"
# One port of each SP comes back, SP A's first.
check "reinstate A0" dmsetup message mpemc 0 reinstate_path "${N[A0]}"
check "reinstate B0" dmsetup message mpemc 0 reinstate_path "${N[B0]}"
check_eq "PG2 still in use" 2 "$(table_pg_in_use mpemc)"

cl_ctl reset-counters >/dev/null
kmsg_mark
check "read after the outage" rd
check_match "PG2 initialised again: asked SP B" "multipath emc: .*: this port's SP owns the LUN already: no trespass" "$(kmsg_since)"
check_eq "no trespass (B owns the LUN), none on SP A" "0 0" "$(cl_counter B trespass) $(cl_counter A trespass)"
check "the read went through SP B" test "$(cl_counter B media)" -gt 0
check_eq "no media command to SP A" 0 "$(cl_counter A media)"
check_eq "LUN still owned by B" B "$(cl_ctl owner)"

check "remove map" dm_remove mpemc
check "modules unload" mp_mods_unload
