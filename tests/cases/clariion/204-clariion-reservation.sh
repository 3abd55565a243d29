#!/bin/bash
# Emulated CLARiiON: RESERVE/RELEASE shared by all ports, vs trespass.
# Emulated CLARiiON: SCSI-2 RESERVE/RELEASE reach the emulator (the
# backstores run with pgr_support=0) and form one reservation shared by all
# ports.  A trespass that honors reservations (code 0x01) on a port other
# than the holder gets RESERVATION CONFLICT; one that ignores them (0x81)
# moves ownership anyway.
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 180
source "${0%/*}/rc"

clariion_start || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}
cl_ctl reset-counters >/dev/null

check_eq "RESERVE(6) on A0" good "$(scsi_result "$A0" 16 00 00 00 00 00)"
check_eq "emulator saw it: held by A0" A0 "$(cl_ctl reservation)"
check_eq "RESERVE(6) on B0 conflicts" conflict "$(scsi_result "$B0" 16 00 00 00 00 00)"
check_eq "A0 may reserve again" good "$(scsi_result "$A0" 16 00 00 00 00 00)"
check_eq "TUR on A0 (holder, owner)" good "$(scsi_result "$A0" 00 00 00 00 00 00)"
check_eq "TUR on B0 conflicts" conflict "$(scsi_result "$B0" 00 00 00 00 00 00)"
check_eq "INQUIRY on B0 is not stopped" good "$(scsi_result -r 36 "$B0" 12 00 00 00 24 00)"

check_eq "honor-reservation trespass on B0 -> RESERVATION CONFLICT" conflict \
	"$(trespass_result "$B0" ms6-long 01)"
check_eq "  (short page too)" conflict "$(trespass_result "$B0" ms6-short 01)"
check_eq "  (MODE SELECT(10) too)" conflict "$(trespass_result "$B0" ms10 01)"
check_eq "  owner unchanged" A "$(cl_ctl owner)"
check_eq "  trespasses received on B0" 3 "$(cl_counter B0 trespass)"
check_eq "  none done" 0 "$(cl_counter B0 trespass_ok)"

check_eq "honor-reservation trespass by the holder's SP works" good "$(trespass_result "$A0" ms6-long 01)"
check_eq "ignore-reservation trespass on B0 succeeds" good "$(trespass_result "$B0" ms6-long 81)"
check_eq "  owner is B" B "$(cl_ctl owner)"
check_eq "  reservation kept by A0" A0 "$(cl_ctl reservation)"
check_eq "B0 media still conflicts (reserved by A0)" conflict "$(scsi_result -r 512 "$B0" 28 00 00 00 00 00 00 00 01 00)"
check_eq "A0 (holder) is now passive" "check 02/04/03" "$(scsi_result "$A0" 00 00 00 00 00 00)"

kmsg_ratelimit_settle
kmsg_mark
out=$(dd if="$B0" of=/dev/null bs=4k count=1 iflag=direct 2>&1)
rc=$?
check "dd through B0 fails while A0 holds the reservation" test $rc -ne 0
check_match "  with EBADE (BLK_STS_NEXUS)" 'Invalid exchange' "$out"
check_match "  kernel logged the conflict" 'reservation conflict' "$(kmsg_since)"

check_eq "RELEASE(6) on B0 (not the holder) is GOOD" good "$(scsi_result "$B0" 17 00 00 00 00 00)"
check_eq "  and releases nothing" A0 "$(cl_ctl reservation)"
check_eq "RELEASE(6) on A0" good "$(scsi_result "$A0" 17 00 00 00 00 00)"
check_eq "  released" none "$(cl_ctl reservation)"
check "dd through B0 works now" dd if="$B0" of=/dev/null bs=4k count=1 iflag=direct

check_eq "RESERVE(10) on B0" good "$(scsi_result "$B0" 56 00 00 00 00 00 00 00 00 00)"
check_eq "third-party RESERVE(10) by the holder refused 05/24/00" "check 05/24/00" \
	"$(scsi_result "$B0" 56 10 00 00 00 00 00 00 00 00)"
check_eq "  and by another port: the conflict comes first" conflict \
	"$(scsi_result "$A0" 56 10 00 00 00 00 00 00 00 00)"
check_eq "honor trespass on A0 conflicts with B0's reservation" conflict "$(trespass_result "$A0" ms10 01)"
check "clear-reservation control" cl_ctl clear-reservation
check_eq "  then the honor trespass on A0 works" good "$(trespass_result "$A0" ms10 01)"
check_eq "A0 conflicts counted" 2 "$(cl_counter A0 conflicts)"
check_eq "B0 conflicts counted" 7 "$(cl_counter B0 conflicts)"

clariion_stop
