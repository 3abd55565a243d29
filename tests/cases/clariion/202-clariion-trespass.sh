#!/bin/bash
# Emulated CLARiiON: each trespass form moves ownership to the sender's SP.
# Emulated CLARiiON: trespass (MODE SELECT page 0x22) in all three forms the
# handler may send -- MODE SELECT(6) long page, (6) short page, (10) long
# page -- moves ownership to the receiving port's SP: owner, VPD 0xC0 byte
# 4 and media access on both SPs flip each time.
# timeout: 180
source "${0%/*}/rc"

clariion_start || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}
cl_ctl reset-counters >/dev/null

# expect_owner SP: every observable agrees that SP owns the LUN.
expect_owner() {
	local own=$1 oth
	oth=$([ "$own" = A ] && echo B || echo A)
	check_eq "  owner is $own" "$own" "$(cl_ctl owner)"
	check_eq "  C0 byte 4 on ${own}0 = 2 (owned)" 2 "$(vpd_byte "${CL_DEV[${own}0]}" c0 4)"
	check_eq "  C0 byte 4 on ${oth}0 = 1 (bound)" 1 "$(vpd_byte "${CL_DEV[${oth}0]}" c0 4)"
	check_eq "  TUR on ${own}0 works" good "$(scsi_result "${CL_DEV[${own}0]}" 00 00 00 00 00 00)"
	check_eq "  READ on ${own}0 works" good "$(scsi_result -r 512 "${CL_DEV[${own}0]}" 28 00 00 00 00 00 00 00 01 00)"
	check_eq "  TUR on ${oth}0 is passive" "check 02/04/03" "$(scsi_result "${CL_DEV[${oth}0]}" 00 00 00 00 00 00)"
	check_eq "  READ on ${oth}0 is passive" "check 02/04/03" "$(scsi_result -r 512 "${CL_DEV[${oth}0]}" 28 00 00 00 00 00 00 00 01 00)"
}

diag "start"
expect_owner A
check_eq "MODE SELECT(6) long page, ignore reservations, on B0" good "$(trespass_result "$B0" ms6-long 81)"
expect_owner B
check_eq "MODE SELECT(6) short page on A0" good "$(trespass_result "$A0" ms6-short 81)"
expect_owner A
check_eq "MODE SELECT(10) long page on B0" good "$(trespass_result "$B0" ms10 81)"
expect_owner B
check_eq "trespass on the owning SP is a no-op GOOD" good "$(trespass_result "$B0" ms10 81)"
expect_owner B
check_eq "honor-reservations code (01) with no reservation on A0" good "$(trespass_result "$A0" ms6-long 01)"
expect_owner A
check_eq "MODE SELECT(10) short page on B0" good "$(modeselect_result "$B0" 10 00 00 00 00 00 00 00 00 22 02 81 ff)"
expect_owner B

check_eq "A0 trespasses received" 2 "$(cl_counter A0 trespass)"
check_eq "B0 trespasses received" 4 "$(cl_counter B0 trespass)"
check_eq "B0 trespasses done" 4 "$(cl_counter B0 trespass_ok)"

clariion_stop
