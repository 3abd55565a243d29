#!/bin/bash
# Emulated CLARiiON control ndu: trespass fails NOT READY during upgrade.
# Emulated CLARiiON control "ndu": during a non-disruptive upgrade a
# trespass fails NOT READY 02/04/03 and VPD 0xC0 byte 48 is set on every
# port; I/O on the owner is unaffected.
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 150
source "${0%/*}/rc"

clariion_start || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}

check_eq "C0 byte 48 clear" "0 0" "$(vpd_byte "$A0" c0 48) $(vpd_byte "$B0" c0 48)"
check "ndu on" cl_ctl ndu on
check_eq "C0 byte 48 set on A0 and B0" "1 1" "$(vpd_byte "$A0" c0 48) $(vpd_byte "$B0" c0 48)"
check_eq "trespass on B0 fails 02/04/03" "check 02/04/03" "$(trespass_result "$B0" ms6-long 81)"
check_eq "MODE SELECT(10) trespass too" "check 02/04/03" "$(trespass_result "$B0" ms10 81)"
check_eq "owner unchanged" A "$(cl_ctl owner)"
check_eq "C0 byte 4 on B0 still 1" 1 "$(vpd_byte "$B0" c0 4)"
check "I/O on the owner still works" dd if="$A0" of=/dev/null bs=4k count=4 iflag=direct
check "ndu off" cl_ctl ndu off
check_eq "C0 byte 48 clear again" "0 0" "$(vpd_byte "$A0" c0 48) $(vpd_byte "$B0" c0 48)"
check_eq "trespass on B0 works" good "$(trespass_result "$B0" ms6-long 81)"
check_eq "owner B" B "$(cl_ctl owner)"
check_fail "bad argument refused" cl_ctl ndu maybe

clariion_stop
