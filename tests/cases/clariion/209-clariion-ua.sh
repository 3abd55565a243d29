#!/bin/bash
# Emulated CLARiiON control ua: UNIT ATTENTION after an ownership change.
# Emulated CLARiiON control "ua": after an ownership change the first
# command on each port of the new owner gets UNIT ATTENTION 06/29/00
# (INQUIRY excepted); the old owner's ports just turn passive.
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 180
source "${0%/*}/rc"

clariion_start --ports-per-sp 2 || exit 1
A0=${CL_DEV[A0]} A1=${CL_DEV[A1]} B0=${CL_DEV[B0]} B1=${CL_DEV[B1]}
tur() { scsi_result "$1" 00 00 00 00 00 00; }

check "ua on" cl_ctl ua on
cl_ctl reset-counters >/dev/null
check_eq "trespass on B0" good "$(trespass_result "$B0" ms6-long 81)"
check_eq "first TUR on B0: UA" "check 06/29/00" "$(tur "$B0")"
check_eq "second TUR on B0: good" good "$(tur "$B0")"
check_eq "INQUIRY on B1 does not consume the UA" good "$(scsi_result -r 36 "$B1" 12 00 00 00 24 00)"
check_eq "first READ on B1: UA" "check 06/29/00" "$(scsi_result -r 512 "$B1" 28 00 00 00 00 00 00 00 01 00)"
check_eq "second READ on B1: good" good "$(scsi_result -r 512 "$B1" 28 00 00 00 00 00 00 00 01 00)"
check_eq "old owner A0: passive, no UA" "check 02/04/03" "$(tur "$A0")"
check_eq "old owner A1: passive, no UA" "check 02/04/03" "$(tur "$A1")"
check_eq "UAs counted on B0 B1 A0 A1" "1 1 0 0" \
	"$(cl_counter B0 ua) $(cl_counter B1 ua) $(cl_counter A0 ua) $(cl_counter A1 ua)"

# Array-side ownership change (control "owner"): same unit attentions.
check "owner A (control)" cl_ctl owner A
check_eq "A1 first command: UA" "check 06/29/00" "$(tur "$A1")"
check_eq "A1 then good" good "$(tur "$A1")"
# The block layer retries a UA: a bio on A0 still succeeds, and the UA is used up.
check "dd on A0 succeeds through the UA" dd if="$A0" of=/dev/null bs=4k count=1 iflag=direct
check_eq "A0 UA was delivered (to the bio)" 1 "$(cl_counter A0 ua)"
check_eq "A0 good after" good "$(tur "$A0")"
check_eq "trespass to the owner SP: no new UA" good "$(trespass_result "$A0" ms6-long 81)"
check_eq "A0 still good" good "$(tur "$A0")"

check "ua off" cl_ctl ua off
check_eq "trespass on B1" good "$(trespass_result "$B1" ms10 81)"
check_eq "no UA on B1" good "$(tur "$B1")"
check_eq "no UA on B0" good "$(tur "$B0")"

clariion_stop
