#!/bin/bash
# A bypassed PG that a pg_init brought into use is no longer bypassed.
# dm-emc over the emulated CLARiiON, PG1 = SP A's ports, PG2 = SP B's: with
# PG2 disabled (disable_group: D) and both of SP A's ports failed, the next
# I/O uses PG2 as the last resort; its pg_init trespasses the LUN to B and
# succeeds, and from then on PG2 is the PG in use (A), not bypassed any
# more, as in Linux 6.1 (pg_init_done clears bypassed on success).
source "${0%/*}/rc"

declare -A N
emc_sp_map || exit 1
MP=/dev/mapper/mpemc

check "first read (PG1, SP A)" dd if=$MP of=/dev/null bs=64k count=4 iflag=direct status=none
check_eq "PG1 in use, PG2 enabled" "A E" "$(pg_states mpemc)"
check "disable_group 2" dmsetup message mpemc 0 disable_group 2
check_eq "PG2 bypassed (and the choice made afresh: none in use)" "E D" "$(pg_states mpemc)"
check "fail SP A's ports" sh -c "dmsetup message mpemc 0 fail_path ${N[A0]} && dmsetup message mpemc 0 fail_path ${N[A1]}"
cl_ctl reset-counters >/dev/null
check "read through the bypassed PG2 (last resort)" dd if=$MP of=/dev/null bs=64k count=4 iflag=direct status=none
check_eq "its pg_init trespassed to SP B" 1 "$(cl_counter B trespass_ok)"
check_eq "LUN owned by B" B "$(cl_ctl owner)"
check_eq "PG2 in use and no longer bypassed" "E A" "$(pg_states mpemc)"
check "reinstate SP A's ports" sh -c "dmsetup message mpemc 0 reinstate_path ${N[A0]} && dmsetup message mpemc 0 reinstate_path ${N[A1]}"
check "read again" dd if=$MP of=/dev/null bs=64k count=4 iflag=direct status=none
check_eq "PG2 stays in use (nothing bypassed)" "E A" "$(pg_states mpemc)"
