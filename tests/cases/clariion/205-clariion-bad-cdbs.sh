#!/bin/bash
# Emulated CLARiiON: malformed trespasses and CDBs get the right sense.
# Emulated CLARiiON: malformed trespass parameter lists (05/26/00, or
# 05/1A/00 for a list cut short), bad CDB fields (05/24/00), unknown
# opcodes (05/20/00), LBA out of range (05/21/00).  None changes ownership.
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 180
source "${0%/*}/rc"

clariion_start || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}
cl_ctl reset-counters >/dev/null

ms6() { modeselect_result "$B0" 6 "$@"; }
check_eq "page 0x22 length 3" "check 05/26/00" "$(ms6 00 00 00 00 22 03 81 ff ff)"
check_eq "page 0x22 length 8" "check 05/26/00" "$(ms6 00 00 00 00 22 08 81 ff ff 00 00 00 00 00)"
check_eq "page 0x22 length 0" "check 05/26/00" "$(ms6 00 00 00 00 22 00)"
check_eq "trespass code 0x42" "check 05/26/00" "$(ms6 00 00 00 00 22 09 42 ff ff 00 00 00 00 00 00)"
check_eq "trespass code 0x80 (no trespass bit)" "check 05/26/00" "$(ms6 00 00 00 00 22 09 80 ff ff 00 00 00 00 00 00)"
check_eq "LUN field 0x0005" "check 05/26/00" "$(ms6 00 00 00 00 22 09 81 00 05 00 00 00 00 00 00)"
check_eq "page 0x22 twice" "check 05/26/00" "$(ms6 00 00 00 00 22 02 81 ff 22 02 81 ff)"
check_eq "subpage format bit" "check 05/26/00" "$(ms6 00 00 00 00 62 09 81 ff ff 00 00 00 00 00 00)"
check_eq "unknown page 0x19" "check 05/26/00" "$(ms6 00 00 00 00 19 02 00 00)"
check_eq "block descriptor length 5" "check 05/26/00" "$(ms6 00 00 00 05 22 02 81 ff)"
check_eq "page cut off by the list end" "check 05/1a/00" "$(ms6 00 00 00 00 22 09 81 ff ff)"
check_eq "list shorter than the header" "check 05/1a/00" "$(ms6 00 00 00)"
hexfile "$CL_TMP/short" 00 00 00 00 22 09 81 ff ff 00 00 00 00 00 00
check_eq "CDB list length above the data sent" "check 05/1a/00" \
	"$(scsi_result -s 15 -i "$CL_TMP/short" "$B0" 15 10 00 00 20 00)"
check_eq "MODE SELECT(6) reserved CDB bits" "check 05/24/00" \
	"$(scsi_result -s 15 -i "$CL_TMP/short" "$B0" 15 1e 00 00 0f 00)"
check_eq "MODE SELECT(10) header with page in the wrong place" "check 05/26/00" \
	"$(modeselect_result "$B0" 10 00 00 00 00 22 09 81 ff ff 00 00 00 00 00 00)"
check_eq "owner unchanged after all that" A "$(cl_ctl owner)"
check_eq "malformed lists are not counted as trespasses" 0 "$(cl_counter B0 trespass)"
check_eq "... and none was done" 0 "$(cl_counter B0 trespass_ok)"
check_eq "a zero-length MODE SELECT is a GOOD no-op" good "$(scsi_result "$B0" 15 10 00 00 00 00)"
check_eq "caching page accepted, nothing changes" good \
	"$(ms6 00 00 00 00 08 12 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00)"

check_eq "unknown opcode 0xc1" "check 05/20/00" "$(scsi_result "$A0" c1 00 00 00 00 00)"
check_eq "WRITE SAME(10) not supported" "check 05/20/00" "$(scsi_result "$A0" 41 00 00 00 00 00 00 00 01 00)"
check_eq "PERSISTENT RESERVE IN not supported" "check 05/20/00" \
	"$(scsi_result -r 8 "$A0" 5e 00 00 00 00 00 00 00 08 00)"
check_eq "INQUIRY page code without EVPD" "check 05/24/00" "$(scsi_result -r 36 "$A0" 12 00 80 00 24 00)"
check_eq "INQUIRY unknown VPD page" "check 05/24/00" "$(scsi_result -r 36 "$A0" 12 01 b9 00 24 00)"
check_eq "MODE SENSE unknown page" "check 05/24/00" "$(scsi_result -r 255 "$A0" 1a 00 22 00 ff 00)"
check_eq "MODE SENSE saved values" "check 05/39/00" "$(scsi_result -r 255 "$A0" 1a 00 c8 00 ff 00)"
check_eq "READ CAPACITY(10) LBA without PMI" "check 05/24/00" "$(scsi_result -r 8 "$A0" 25 00 00 00 00 01 00 00 00 00)"
check_eq "SERVICE ACTION IN(16) unknown action" "check 05/24/00" \
	"$(scsi_result -r 32 "$A0" 9e 11 00 00 00 00 00 00 00 00 00 00 00 20 00 00)"
check_eq "READ(10) past the end" "check 05/21/00" "$(scsi_result -r 512 "$A0" 28 00 00 02 00 00 00 00 01 00)"
head -c 512 /dev/zero >"$CL_TMP/zero"
check_eq "WRITE(10) with less data than the CDB asks" "check 05/24/00" \
	"$(scsi_result -s 512 -i "$CL_TMP/zero" "$A0" 2a 00 00 00 00 00 00 00 02 00)"
check_eq "VERIFY(10) BYTCHK=3 not supported" "check 05/24/00" "$(scsi_result "$A0" 2f 06 00 00 00 00 00 00 01 00)"
check_eq "still serving: TUR on A0" good "$(scsi_result "$A0" 00 00 00 00 00 00)"
check_eq "still serving: emulator answers" pong "$(cl_ctl ping)"

clariion_stop
