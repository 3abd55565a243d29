#!/bin/bash
# Emulated CLARiiON control delay-trespass: a trespass answered late.
# Emulated CLARiiON control "delay-trespass MS": the trespass is answered MS
# ms late and ownership moves only then; other ports keep being served.
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 150
source "${0%/*}/rc"

clariion_start || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}

t0=$(ms_now)
check_eq "undelayed trespass on B0" good "$(trespass_result "$B0" ms6-long 81)"
fast=$(($(ms_now) - t0))
diag "undelayed trespass took $fast ms"
check_eq "trespass back on A0" good "$(trespass_result "$A0" ms6-long 81)"

check "delay-trespass 4000" cl_ctl delay-trespass 4000
t0=$(ms_now)
trespass_result "$B0" ms10 81 >"$CL_TMP/res" &
pid=$!
sleep 1
check "after 1 s the trespass is still unanswered" kill -0 $pid
check_eq "  owner still A meanwhile" A "$(cl_ctl owner)"
check_eq "  A0 still serves I/O meanwhile" good "$(scsi_result "$A0" 00 00 00 00 00 00)"
wait $pid
slow=$(($(ms_now) - t0))
diag "delayed trespass took $slow ms"
check_eq "delayed trespass answered GOOD" good "$(cat "$CL_TMP/res")"
check "  no sooner than 4000 ms ($slow)" test "$slow" -ge 4000
check "  later than the undelayed one ($fast)" test "$slow" -gt "$fast"
check_eq "  owner B afterwards" B "$(cl_ctl owner)"
check "delay-trespass 0" cl_ctl delay-trespass 0
check_eq "trespass on A0 answered at once again" good "$(trespass_result "$A0" ms6-long 81)"
check_fail "bad delay refused" cl_ctl delay-trespass soon

clariion_stop
