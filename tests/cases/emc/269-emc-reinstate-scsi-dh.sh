#!/bin/bash
# A port reinstated into the PG in use gets its pg_init: with scsi_dh_emc attached, no fail/reinstate loop.
# The kernel's scsi_dh_emc attached to every port (CL_SCSI_DH=emc): it
# refuses I/O on a port whose SP it believes passive, and learns of a new
# owner only when that port is activated.  B0 goes down and is failed;
# then SP A's ports fail and the LUN moves to B through B1, while B0 is
# down, so scsi_dh_emc still calls B0 passive.  B0 comes back and is
# reinstated (as multipathd's checker would), three times, each followed
# by reads: the reinstatement into the PG in use must activate B0 (6.1's
# reinstate_path), so that B0 carries reads and is never failed again.
# Without it every I/O on B0 is refused, B0 is failed at once (the loop),
# and when B1 then dies the map has no usable path although B0 is fine.
# timeout: 300
CL_SCSI_DH=emc
source "${0%/*}/rc"

declare -A N
emc_sp_map || exit 1
MP=/dev/mapper/mpemc
# 256 bios: more than round-robin's repeat_count (100) per path
rd() { dd if=$MP of=/dev/null bs=4k count=256 iflag=direct status=none; }
fails() { path_fields mpemc "${N[$1]}" && echo "$PATH_FAILS"; }

check "first read (PG1, SP A)" rd
check "B0 goes down" cl_ctl fail B0 transport
check "the map fails B0 (multipathd's checker would)" dmsetup message mpemc 0 fail_path "${N[B0]}"
check "A0 goes down" cl_ctl fail A0 transport
check "A1 goes down" cl_ctl fail A1 transport
check "fail_path A0" dmsetup message mpemc 0 fail_path "${N[A0]}"
check "fail_path A1" dmsetup message mpemc 0 fail_path "${N[A1]}"
check "read: PG2's pg_init trespasses the LUN to B through B1" rd
check_eq "LUN owned by B" B "$(cl_ctl owner)"
check_eq "scsi_dh_emc: B1 owns the LUN" active/optimized "$(cl_dh_view B1)"
check_eq "scsi_dh_emc: B0, down during the trespass, still passive" standby "$(cl_dh_view B0)"

check "B0 comes back" cl_ctl restore B0
f0=$(fails B0)
cl_ctl reset-counters >/dev/null
for i in 1 2 3; do
	check "round $i: reinstate B0" dmsetup message mpemc 0 reinstate_path "${N[B0]}"
	check "round $i: reads" rd
	diag "round $i: B0 is $(path_state mpemc "${N[B0]}"), failed $(($(fails B0) - f0)) time(s) since it came back"
done
check_eq "B0 never failed again" 0 "$(($(fails B0) - f0))"
check_eq "B0 active" A "$(path_state mpemc "${N[B0]}")"
check_eq "scsi_dh_emc: B0 owns the LUN now" active/optimized "$(cl_dh_view B0)"
check "B0 carried reads" test "$(cl_counter B0 media)" -gt 0
check_eq "no trespass moved the LUN" "0 0" "$(cl_counter A moved) $(cl_counter B moved)"

check "B1 goes down" cl_ctl fail B1 transport
check "read carries on through B0" rd
check_eq "LUN still owned by B" B "$(cl_ctl owner)"
check "remove map" dm_remove mpemc
check "modules unload" mp_mods_unload
