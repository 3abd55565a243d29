#!/bin/bash
# Emulated CLARiiON robustness: random CDBs never crash or wedge it.
# Emulated CLARiiON robustness: a few hundred (debug kernel: 80) random CDBs
# (random opcodes and bytes, random data-in/data-out sizes) on random ports
# never crash or wedge the emulator: it still answers every port and the
# control socket.
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 420
source "${0%/*}/rc"

clariion_start --ports-per-sp 2 || exit 1
pid=$(cat "$CL_STATE/pid")
ops=(00 03 08 0a 12 15 16 17 1a 25 28 2a 2e 2f 35 55 56 57 5a 88 8a 8f 91 9e a0 a8 aa)
N=$(per_kernel 300 80)
head -c 65536 /dev/urandom >"$CL_TMP/junk"
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
diag "RANDOM seed $seed"
RANDOM=$seed
sent=0 answered=0
deadline=$((SECONDS + 300))	# the guest may be slow: bound the loop in time
for ((i = 0; i < N && SECONDS < deadline; i++)); do
	case $((RANDOM % 4)) in
	0) len=6 ;; 1) len=10 ;; 2) len=12 ;; *) len=16 ;;
	esac
	cdb=()
	if ((RANDOM % 3)); then cdb+=("${ops[RANDOM % ${#ops[@]}]}"); else cdb+=("$(printf %02x $((RANDOM % 256)))"); fi
	for ((j = 1; j < len; j++)); do
		if ((RANDOM % 2)); then cdb+=("$(printf %02x $((RANDOM % 256)))"); else cdb+=(00); fi
	done
	port=${CL_PORTS[RANDOM % ${#CL_PORTS[@]}]}
	opt=()
	case $((RANDOM % 3)) in
	0) opt=(-r $((RANDOM % 8192)) -o "$CL_TMP/in") ;;
	1) opt=(-s $((RANDOM % 4096 + 1)) -i "$CL_TMP/junk") ;;
	esac
	r=$(scsi_result -t 10 "${opt[@]}" "${CL_DEV[$port]}" "${cdb[@]}")
	sent=$((sent + 1))
	case $r in good | conflict | busy | check*) answered=$((answered + 1)) ;;
	*) diag "cdb ${cdb[*]} on $port (${opt[*]}): $r" ;;
	esac
	kill -0 "$pid" 2>/dev/null || break
done
check "at least 2/3 of $N random commands sent ($sent)" test "$sent" -ge $((N * 2 / 3))
check "emulator still running after $sent random commands" kill -0 "$pid"
diag "$answered of $sent got a SCSI status"
check "most random commands got a SCSI status ($answered/$sent)" test "$answered" -ge $((sent * 9 / 10))
check_eq "control socket answers" pong "$(cl_ctl ping)"
check "back to a known state" cl_reset
for p in "${CL_PORTS[@]}"; do
	check_eq "$p answers INQUIRY" good "$(scsi_result -r 36 "${CL_DEV[$p]}" 12 00 00 00 24 00)"
done
check_eq "A0 owner TUR good" good "$(scsi_result "${CL_DEV[A0]}" 00 00 00 00 00 00)"
check_eq "B0 passive again" "check 02/04/03" "$(scsi_result "${CL_DEV[B0]}" 00 00 00 00 00 00)"
check_fail "no ring was stopped" grep -q 'ring stopped' "$CL_STATE/emu.log"
check_eq "trespass still works" good "$(trespass_result "${CL_DEV[B1]}" ms10 81)"

clariion_stop
