#!/bin/bash
# Emulated CLARiiON control reject-trespass: trespasses fail as set.
# Emulated CLARiiON control "reject-trespass": trespasses fail with the
# configured sense (default 05/24/00; e.g. 05/04/00 "array copy busy").
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 150
source "${0%/*}/rc"

clariion_start || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}
cl_ctl reset-counters >/dev/null

check "reject-trespass on" cl_ctl reject-trespass on
check_eq "trespass on B0 rejected 05/24/00" "check 05/24/00" "$(trespass_result "$B0" ms6-long 81)"
check_eq "owner unchanged" A "$(cl_ctl owner)"
check "reject with 05/04/00" cl_ctl reject-trespass on 05 04 00
check_eq "trespass on B0 rejected 05/04/00" "check 05/04/00" "$(trespass_result "$B0" ms10 81)"
check "reject with 02/04/01" cl_ctl reject-trespass on 2 4 1
check_eq "trespass on B0 rejected 02/04/01" "check 02/04/01" "$(trespass_result "$B0" ms6-short 81)"
check_eq "owner still A" A "$(cl_ctl owner)"
check_eq "B0 received 3, did 0" "3 0" "$(cl_counter B0 trespass) $(cl_counter B0 trespass_ok)"
check_fail "sense key above 0x0f refused" cl_ctl reject-trespass on 1f 04 00
check_fail "incomplete sense refused" cl_ctl reject-trespass on 05 04
check "reject-trespass off" cl_ctl reject-trespass off
check_eq "trespass on B0 works" good "$(trespass_result "$B0" ms6-long 81)"
check_eq "owner B" B "$(cl_ctl owner)"
check_eq "A0 media passive now" "check 02/04/03" "$(scsi_result "$A0" 00 00 00 00 00 00)"

clariion_stop
