#!/bin/bash
# dm-emc when another host moves the LUN: passive errors, UA, no fio error.
# dm-emc when someone else moves the LUN. While fio writes and verifies
# through SP A, another host trespasses the LUN to B: A's media commands
# now get NOT READY 04/03, which reaches multipath as BLK_STS_IOERR, so
# emc's err hook fails A's paths; PG2's pg_init trespasses on B, whose
# first command is a UNIT ATTENTION 29/00 (ownership change): the trespass
# is resent and succeeds; fio sees no error. With trespass_retries=0 each
# unit attention fails its path instead.
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
check "first read (trespass to A)" rd
cl_ctl ua on >/dev/null
cl_ctl reset-counters >/dev/null

log=$CL_TMP/fio.log
fio --name=emc --filename=$MP --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bs=16k --size=16M --verify=crc32c --verify_fatal=1 \
	--output="$log" &
fpid=$!
check "fio is writing through A" wait_until 60 cl_counter_ge A media 50
kmsg_mark
check "another host trespasses the LUN to B" cl_ctl owner B
check "PG2's trespass succeeds" wait_until 60 cl_counter_ge B trespass_ok 1
wait $fpid
check_eq "fio exit status 0 (no I/O error, no verify error)" 0 $?
check_match "fio reports err=0" "err= 0" "$(cat "$log")"
k=$(kmsg_since)
check "A's media commands were refused as passive" test "$(cl_counter A passive_rejects)" -gt 0
check_eq "A0 failed" F "$(path_state mpemc "${N[A0]}")"
check_eq "A1 failed" F "$(path_state mpemc "${N[A1]}")"
check_eq "one trespass succeeded, on B" "1 0" "$(cl_counter B trespass_ok) $(cl_counter A trespass)"
check "B answered a unit attention" test "$(cl_counter B ua)" -ge 1
check_match "kernel log: unit attention 06/29/00, resent" \
	"multipath emc: .*: unit attention 06/29/00 on trespass, resend 1/3" "$k"
check_eq "LUN owned by B" B "$(cl_ctl owner)"

# trespass_retries=0: the unit attention (each new-owner port has one) fails
# the path at once, so both A paths are failed and the read fails.
echo 0 >/sys/module/dm_emc/parameters/trespass_retries
check "reinstate A0" dmsetup message mpemc 0 reinstate_path "${N[A0]}"
check "reinstate A1" dmsetup message mpemc 0 reinstate_path "${N[A1]}"
cl_ctl reset-counters >/dev/null
kmsg_mark
check "another host trespasses the LUN back to A" cl_ctl owner A
check_fail "read fails: B is passive, A's trespasses meet unit attentions" rd
k=$(kmsg_since)
for p in A0 A1; do
	check_match "$p: trespass failed on the unit attention, not resent" \
		"multipath emc: ${N[$p]} \(.*\): trespass failed, sense 06/29/00: failing path" "$k"
	check_eq "$p failed" F "$(path_state mpemc "${N[$p]}")"
done
check_eq "each A port answered one unit attention" "1 1" "$(cl_counter A0 ua) $(cl_counter A1 ua)"
check_eq "... and no trespass got past it" "0 0" "$(cl_counter A0 trespass) $(cl_counter A1 trespass)"
check_fail "kernel log: no resend" grep -q "resend" <<<"$k"
echo 3 >/sys/module/dm_emc/parameters/trespass_retries
check "remove map" dm_remove mpemc
check "modules unload" mp_mods_unload
