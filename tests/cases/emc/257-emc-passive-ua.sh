#!/bin/bash
# dm-emc when another host moves the LUN: passive errors, no needless trespass, UA on trespass.
# dm-emc when someone else moves the LUN. While fio writes and verifies
# through SP A, another host trespasses the LUN to B: A's media commands
# now get NOT READY 04/03, which reaches multipath as BLK_STS_IOERR, so
# emc's err hook fails A's paths; PG2's pg_init asks SP B, which owns the
# LUN already: no trespass (as scsi_dh_emc on the stock stack); fio sees
# no error.  Then the other host moves the LUN to A and back, so that A's
# ports keep a UNIT ATTENTION 29/00 (ownership change): switch_group 1
# trespasses to A, the trespass meets the unit attention, is resent and
# succeeds.  With trespass_retries=0 each unit attention fails its path
# instead (B0's, the same way round).
# timeout: 600
source "${0%/*}/rc"

declare -A N
MP=/dev/mapper/mpemc
rd() { dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none; }

clariion_start --ports-per-sp 2 || exit 1
on_exit mp_mods_unload
on_exit "dm_remove mpemc"
for p in "${CL_PORTS[@]}"; do N[$p]=$(devnum "${CL_DEV[$p]}"); done
S=$(blockdev --getsz "${CL_DEV[A0]}")
T="0 $S multipath 0 1 emc 2 1 round-robin 0 2 0 ${N[A0]} ${N[A1]} round-robin 0 2 0 ${N[B0]} ${N[B1]}"
check "modules load" mp_mods_load || exit 1
cl_reset
check "create map (PG1 = SP A, PG2 = SP B)" dm_create mpemc "$T" || exit 1
check "first read (A owns the LUN: no trespass)" rd
cl_ctl ua on >/dev/null
cl_ctl reset-counters >/dev/null

fio_start_until_stopped $MP 16k 16 "$CL_TMP/fio.json"
check "fio is writing through A" wait_until 60 cl_counter_ge A media 50
kmsg_mark
check "another host trespasses the LUN to B" cl_ctl owner B
check "A0 and A1 failed" wait_until 60 eval '[ "$(path_state mpemc "${N[A0]}")$(path_state mpemc "${N[A1]}")" = FF ]'
check "I/O goes on through B" wait_until 60 cl_counter_ge B media 20
fio_stop_verified
k=$(kmsg_since)
check "A's media commands were refused as passive" test "$(cl_counter A passive_rejects)" -gt 0
check_match "PG2's pg_init asked B" "multipath emc: .*: this port's SP owns the LUN already: no trespass" "$k"
check_eq "no trespass at all (B owned the LUN)" "0 0" "$(cl_counter B trespass) $(cl_counter A trespass)"
check_eq "LUN owned by B" B "$(cl_ctl owner)"

# Unit attention on a trespass: resent.
check "reinstate A0" dmsetup message mpemc 0 reinstate_path "${N[A0]}"
check "reinstate A1" dmsetup message mpemc 0 reinstate_path "${N[A1]}"
check "another host trespasses the LUN to A" cl_ctl owner A
check "... and back to B: A's ports keep a unit attention" cl_ctl owner B
cl_ctl reset-counters >/dev/null
kmsg_mark
check "switch_group 1" dmsetup message mpemc 0 switch_group 1
check "read through A" rd
k=$(kmsg_since)
check_eq "one trespass succeeded, on A" "1 0" "$(cl_counter A trespass_ok) $(cl_counter B trespass)"
check "A answered a unit attention" test "$(cl_counter A ua)" -ge 1
check_match "kernel log: unit attention 06/29/00, resent" \
	"multipath emc: .*: unit attention 06/29/00 on trespass, resend 1/3" "$k"
check_eq "LUN owned by A" A "$(cl_ctl owner)"

# trespass_retries=0: the unit attention fails the path at once.  B's ports
# keep one (the other host moves the LUN to B and back); switch_group 2
# asks the B port PG2's selector picks (round-robin's turn, which the I/O
# through B under fio moved), finds A owning the LUN and trespasses: the
# trespass meets that port's unit attention and its path is failed; the
# failed pg_init makes the map choose from the first PG again (as 6.1
# does), so the other B port is not tried, and PG1 serves the read (A
# still owns the LUN).
echo 0 >/sys/module/dm_emc/parameters/trespass_retries
check "another host trespasses the LUN to B" cl_ctl owner B
check "... and back to A: B's ports keep a unit attention" cl_ctl owner A
cl_ctl reset-counters >/dev/null
kmsg_mark
check "switch_group 2" dmsetup message mpemc 0 switch_group 2
check "read: the B port's trespass meets the unit attention, PG1 serves it" rd
k=$(kmsg_since)
tried="" untried=""
for p in B0 B1; do
	if grep -qE "multipath emc: ${N[$p]} \(.*\): trespass failed, sense 06/29/00: failing path" <<<"$k"; then
		tried+=$p
	else
		untried+=$p
	fi
done
check_match "one B port's trespass failed on the unit attention, not resent" "^B[01]$" "$tried"
diag "the B port PG2's selector picked: ${tried:-none}"
if [ ${#tried} = 2 ]; then
	check_eq "$tried failed" F "$(path_state mpemc "${N[$tried]}")"
	check_eq "$tried answered one unit attention" 1 "$(cl_counter "$tried" ua)"
	check_eq "$untried was not tried: still active" A "$(path_state mpemc "${N[$untried]}")"
	check_eq "... and answered no unit attention" 0 "$(cl_counter "$untried" ua)"
fi
check_eq "... and no trespass got past it" "0 0" "$(cl_counter B0 trespass) $(cl_counter B1 trespass)"
check "the read went through A" test "$(cl_counter A media)" -gt 0
check_eq "LUN still owned by A" A "$(cl_ctl owner)"
check_fail "kernel log: no resend" grep -q "resend" <<<"$k"
echo 3 >/sys/module/dm_emc/parameters/trespass_retries
check "remove map" dm_remove mpemc
check "modules unload" mp_mods_unload
