#!/bin/bash
# dm-emc when the trespass is rejected, unanswered or meets a reservation.
# dm-emc when the trespass fails. PG1 = A0, PG2 = B0 B1; A0 fails, so the
# core turns to PG2:
#  - trespass rejected (ILLEGAL REQUEST 24/00): that path is failed, the next
#    one tried; with none left I/O fails, or with queue_if_no_path waits and
#    completes once a path is reinstated and the trespass succeeds;
#  - trespass unanswered (B0 holds its commands): it times out after
#    trespass_timeout, B0 is failed, B1's trespass succeeds, I/O completes;
#  - honoring reservations ("3 emc 0 1") against a RESERVE held through A1:
#    RESERVATION CONFLICT, path failed; ignoring them ("1 emc") the trespass
#    goes through, and the conflict on the I/O itself fails the I/O but not
#    the path.
# timeout: 600
source "${0%/*}/rc"

declare -A N
is_running() { kill -0 "$1" 2>/dev/null; }
nothing() { ! is_running "$1"; }
MP=/dev/mapper/mpemc
rd() { dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none; }

on_exit mp_mods_unload
clariion_start --ports-per-sp 2 --cmd-timeout 5 || exit 1
on_exit "dm_remove mpemc"
for p in "${CL_PORTS[@]}"; do N[$p]=$(devnum "${CL_DEV[$p]}"); done
S=$(blockdev --getsz "${CL_DEV[A0]}")
check "modules load" mp_mods_load || exit 1
check "modprobe dm-emc" modprobe dm-emc
table() { # table FEATURES HWH
	echo "0 $S multipath $1 $2 2 1 round-robin 0 1 0 ${N[A0]} round-robin 0 2 0 ${N[B0]} ${N[B1]}"
}
name() { echo "${CL_DEV[$1]##*/}"; }
# b_paths_failed WHAT WHY: the kernel log since the mark ($k) says of B0 and
# B1 "trespass WHY", and both are failed.
b_paths_failed() {
	local p
	for p in B0 B1; do
		check_match "$p: kernel log $1" \
			"multipath emc: ${N[$p]} \($(name $p)\): trespass $2" "$k"
		check_eq "$p failed" F "$(path_state mpemc "${N[$p]}")"
	done
}

# read_fails_over_to_b WHAT: A0 fails (transport), the counters restart,
# and a read must fail because of WHAT; k: the kernel log of that read.
read_fails_over_to_b() {
	cl_ctl fail A0 transport >/dev/null
	cl_ctl reset-counters >/dev/null
	kmsg_mark
	check_fail "read fails: $1" rd
	k=$(kmsg_since)
}

# ---- 1. rejected, no queueing -------------------------------------------
check "create map" dm_create mpemc "$(table 0 "1 emc")" || exit 1
check "first read (trespass to A)" rd
cl_ctl reject-trespass on >/dev/null
read_fails_over_to_b "both B trespasses are rejected"
check_eq "B0 and B1 each got one trespass" "1 1" "$(cl_counter B0 trespass) $(cl_counter B1 trespass)"
check_eq "no trespass succeeded" 0 "$(cl_counter B trespass_ok)"
check_eq "no media command reached B" 0 "$(cl_counter B media)"
b_paths_failed "gives the sense and the decision" "failed, sense 05/24/00: failing path"

# ---- 2. rejected, queue_if_no_path ----------------------------------------
check "remove map" dm_remove mpemc
check "create map with queue_if_no_path" dm_create mpemc "$(table "1 queue_if_no_path" "1 emc")" || exit 1
cl_ctl reset-counters >/dev/null
rd &
rpid=$!
check "both B trespasses are rejected" wait_until 60 cl_counter_ge B trespass 2
sleep 2
check "the read is held (queue_if_no_path), not failed" is_running $rpid
check_eq "B0 failed" F "$(path_state mpemc "${N[B0]}")"
check_eq "B1 failed" F "$(path_state mpemc "${N[B1]}")"
cl_ctl reject-trespass off >/dev/null
check "reinstate B1" dmsetup message mpemc 0 reinstate_path "${N[B1]}"
check "the held read completes" wait_until 60 nothing $rpid
wait $rpid
check_eq "... successfully" 0 $?
check_eq "B1's trespass succeeded" 1 "$(cl_counter B1 trespass_ok)"
check_eq "LUN owned by B" B "$(cl_ctl owner)"
check "remove map" dm_remove mpemc

# ---- 3. unanswered trespass: timeout --------------------------------------
cl_ctl restore A0 >/dev/null
cl_ctl owner A >/dev/null
echo 3 >/sys/module/dm_emc/parameters/trespass_timeout
check "create map" dm_create mpemc "$(table 0 "1 emc")" || exit 1
check "first read (trespass to A)" rd
check "A0 fails" cl_ctl fail A0 transport
check "B0 stops answering" cl_ctl fail B0 noresp
cl_ctl reset-counters >/dev/null
kmsg_mark
t0=$SECONDS
check "read completes after B0's trespass timed out" rd
dt=$((SECONDS - t0))
k=$(kmsg_since)
# (dm-emc asks first: the unit report INQUIRY is the command that times out)
check_match "B0: kernel log says the unit report timed out" \
	"multipath emc: ${N[B0]} \($(name B0)\): unit report timed out .*: failing path" "$k"
check_eq "B0 failed" F "$(path_state mpemc "${N[B0]}")"
check_eq "B1 active" A "$(path_state mpemc "${N[B1]}")"
check_eq "B1's trespass succeeded" 1 "$(cl_counter B1 trespass_ok)"
check "took at least the 3 s timeout" test $dt -ge 3
check "and was bounded (< 40 s)" test $dt -lt 40
diag "read through a timed-out trespass took $dt s (trespass_timeout 3 s, emulator cmd_time_out 5 s)"
check "B0 answers again" cl_ctl restore B0
check "remove map" dm_remove mpemc
echo 30 >/sys/module/dm_emc/parameters/trespass_timeout

# ---- 4. reservation conflict -----------------------------------------------
cl_ctl owner A >/dev/null
cl_ctl restore A0 >/dev/null
check "RESERVE(6) through A1 (another host)" sg_raw "${CL_DEV[A1]}" 16 00 00 00 00 00
check_eq "the array holds A1's reservation" A1 "$(cl_ctl reservation)"
check "create map honoring reservations ('3 emc 0 1')" dm_create mpemc "$(table 0 "3 emc 0 1")" || exit 1
read_fails_over_to_b "every trespass meets the reservation"
check_eq "B0 and B1 each answered RESERVATION CONFLICT" "1 1" "$(cl_counter B0 conflicts) $(cl_counter B1 conflicts)"
check_eq "ownership did not move" A "$(cl_ctl owner)"
b_paths_failed "names the conflict" "refused: reservation conflict, failing path"
check "remove map" dm_remove mpemc

check "create map ignoring reservations ('1 emc')" dm_create mpemc "$(table 0 "1 emc")" || exit 1
cl_ctl reset-counters >/dev/null
check_fail "read fails: the I/O itself meets the reservation" rd
check_eq "but the trespass went through" 1 "$(cl_counter B trespass_ok)"
check_eq "LUN owned by B" B "$(cl_ctl owner)"
check_eq "B0 not failed by a conflict on I/O" A "$(path_state mpemc "${N[B0]}")"
check_eq "B1 not failed either" A "$(path_state mpemc "${N[B1]}")"
check "the array drops the reservation" cl_ctl clear-reservation
check "read succeeds on B now" rd
check "remove map" dm_remove mpemc
check "modules unload" mp_mods_unload
