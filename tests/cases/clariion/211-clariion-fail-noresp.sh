#!/bin/bash
# Emulated CLARiiON control fail noresp: a port that stops answering.
# Emulated CLARiiON control "fail PORT noresp": the emulator stops answering
# the port (commands are held, not even counted) until "restore".  The
# kernel gives up on a held command after the TCMU cmd_time_out (4 s here)
# with NOT READY 02/08/00; after restore the port answers at once.
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 200
source "${0%/*}/rc"

clariion_start --cmd-timeout 4 || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}

check "fail A0 noresp" cl_ctl fail A0 noresp
before=$(cl_counter A0 cmds)
t0=$(ms_now)
scsi_result -t 30 "$A0" 00 00 00 00 00 00 >"$CL_TMP/res" &
pid=$!
sleep 1.5
check "TUR on A0 still unanswered after 1.5 s" kill -0 $pid
check_eq "  held, not counted" "$before" "$(cl_counter A0 cmds)"
check_eq "  B0 still served" "check 02/04/03" "$(scsi_result "$B0" 00 00 00 00 00 00)"
check_eq "  control still served" A "$(cl_ctl owner)"
wait $pid
el=$(($(ms_now) - t0))
diag "held TUR came back after $el ms: $(cat "$CL_TMP/res")"
check_eq "held TUR ends with the kernel's timeout sense" "check 02/08/00" "$(cat "$CL_TMP/res")"
check "  not before cmd_time_out (4000 ms): $el" test "$el" -ge 4000

t0=$(ms_now)
check_fail "dd through A0 fails while it does not answer" dd if="$A0" of=/dev/null bs=4k count=1 iflag=direct
diag "dd on the silent port failed after $(($(ms_now) - t0)) ms"

check "restore A0" cl_ctl restore A0
check_eq "A0 answers at once" good "$(scsi_result "$A0" 00 00 00 00 00 00)"
held=$(( $(cl_counter A0 cmds) - before ))
check "the held commands were answered late and counted ($held)" test "$held" -ge 3
check "dd through A0 works" dd if="$A0" of=/dev/null bs=4k count=1 iflag=direct
check_match "kernel logged the timeout" 'Logical unit communication failure' "$(dmesg | tail -n 200)"

clariion_stop
