#!/bin/bash
# Emulated CLARiiON control fail transport: a port taken offline by LIO.
# Emulated CLARiiON control "fail PORT transport": LIO's tcm_loop takes the
# port offline, so commands on it fail in the kernel with a transport error
# (DID_TRANSPORT_DISRUPTED) and never reach the array; the other ports are
# unaffected.  "restore" brings it back (LIO then reports I_T nexus loss
# 06/29/07 once).
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 180
source "${0%/*}/rc"

clariion_start || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}

check "fail A0 transport" cl_ctl fail A0 transport
check_match "status shows it" 'port A0 .*fail=transport' "$(cl_ctl status)"
before=$(cl_counter A0 cmds)
check_eq "TUR on A0: transport error" "transport DID_TRANSPORT_DISRUPTED" "$(scsi_result "$A0" 00 00 00 00 00 00)"
check_eq "INQUIRY on A0: transport error" "transport DID_TRANSPORT_DISRUPTED" "$(scsi_result -r 36 "$A0" 12 00 00 00 24 00)"
t0=$(ms_now)
check_fail "dd through A0 fails" dd if="$A0" of=/dev/null bs=4k count=1 iflag=direct
diag "dd on the failed port failed after $(($(ms_now) - t0)) ms"
check_eq "nothing reached the emulator on A0" "$before" "$(cl_counter A0 cmds)"
check_eq "B0 still answers (passive)" "check 02/04/03" "$(scsi_result "$B0" 00 00 00 00 00 00)"
check_eq "trespass to B via B0 still works" good "$(trespass_result "$B0" ms6-long 81)"
check "dd through B0 works" dd if="$B0" of=/dev/null bs=4k count=1 iflag=direct

check "restore A0" cl_ctl restore A0
check_match "status shows it" 'port A0 .*fail=none' "$(cl_ctl status)"
check_eq "first command on A0: LIO's I_T nexus loss UA" "check 06/29/07" "$(scsi_result "$A0" 00 00 00 00 00 00)"
check_eq "then A0 answers again (passive now)" "check 02/04/03" "$(scsi_result "$A0" 00 00 00 00 00 00)"
check_eq "trespass back via A0" good "$(trespass_result "$A0" ms10 81)"
check "dd through A0 works again" dd if="$A0" of=/dev/null bs=4k count=1 iflag=direct
check_fail "fail on an unknown port refused" cl_ctl fail C7 transport

clariion_stop
