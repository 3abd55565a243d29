#!/bin/bash
# dm-emc sends the trespass page form and reservation bit the table asks.
# dm-emc sends the trespass form the table asks for: "1 emc" the long page
# (MODE SELECT(6), 15-byte list: 4-byte header + 22 09 ...), "3 emc 1 x" the
# short one (8 bytes: header + 22 02 ...), as the emulator's command log
# shows; the honor-reservation bit is what the table says in both forms
# (an honoring trespass meets another port's RESERVE with a conflict, an
# ignoring one moves the LUN).
# timeout: 400
source "${0%/*}/rc"

declare -A N PORTNO
EMULOG=$CL_STATE/emu.log
MP=/dev/mapper/mpemc
rd() { dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none; }
log_mark() { LOGPOS=$(wc -l <"$EMULOG"); }
# MODE SELECT(6) lines of the emulator log since log_mark
ms6_since() { tail -n +$((LOGPOS + 1)) "$EMULOG" | grep -E "clariion-emu: port [0-9]+ op 15 " || true; }

clariion_start --ports-per-sp 2 --verbose || exit 1
on_exit mp_mods_unload
on_exit "dm_remove mpemc"
i=0
for p in A0 A1 B0 B1; do N[$p]=$(devnum "${CL_DEV[$p]}"); PORTNO[$p]=$i; i=$((i + 1)); done
S=$(blockdev --getsz "${CL_DEV[A0]}")
check "modules load" mp_mods_load || exit 1
table() { echo "0 $S multipath 0 $1 1 1 round-robin 0 1 0 ${N[$2]}"; } # HWH PORT

# form_case HWH PORT LEN FORM RSV: one read through a one-path map
form_case() {
	local hwh=$1 port=$2 len=$3 form=$4 rsv=$5 ms
	check "'$hwh': create map on $port" dm_create mpemc "$(table "$hwh" "$port")" || return 1
	log_mark
	kmsg_mark
	check "'$hwh': read" rd
	ms=$(ms6_since)
	check_match "'$hwh': $port got MODE SELECT(6) with a $len-byte list, answered GOOD" \
		"port ${PORTNO[$port]} op 15 len $len -> 00 " "$ms"
	check_eq "'$hwh': exactly one MODE SELECT(6)" 1 "$(grep -c . <<<"$ms")"
	check_match "'$hwh': kernel log names the form" \
		"multipath emc: ${N[$port]} \(.*\): sending $form trespass \($rsv reservations\)" "$(kmsg_since)"
	check "'$hwh': remove map" dm_remove mpemc
}

cl_reset
form_case "1 emc" B0 15 long ignoring
check_eq "the long trespass moved the LUN to B" B "$(cl_ctl owner)"
form_case "3 emc 1 0" A0 8 short ignoring
check_eq "the short trespass moved the LUN to A" A "$(cl_ctl owner)"
form_case "3 emc 0 1" B1 15 long honoring
form_case "3 emc 1 1" A1 8 short honoring

# The reservation bit, in the short form: A1 (another host) reserves.
cl_reset
check "RESERVE(6) through A1" sg_raw "${CL_DEV[A1]}" 16 00 00 00 00 00
check_eq "A1 holds the reservation" A1 "$(cl_ctl reservation)"
cl_ctl reset-counters >/dev/null
check "'3 emc 1 1': create map on B0" dm_create mpemc "$(table "3 emc 1 1" B0)"
log_mark
check_fail "'3 emc 1 1': read fails" rd
check_match "'3 emc 1 1': the short honoring trespass met RESERVATION CONFLICT" \
	"port ${PORTNO[B0]} op 15 len 8 -> 18 " "$(ms6_since)"
check_eq "'3 emc 1 1': ownership stayed on A" A "$(cl_ctl owner)"
check "remove map" dm_remove mpemc
check "'3 emc 1 0': create map on B0" dm_create mpemc "$(table "3 emc 1 0" B0)"
log_mark
check_fail "'3 emc 1 0': read fails on the reservation (the I/O's own conflict)" rd
check_match "'3 emc 1 0': the short ignoring trespass went through" \
	"port ${PORTNO[B0]} op 15 len 8 -> 00 " "$(ms6_since)"
check_eq "'3 emc 1 0': ownership moved to B" B "$(cl_ctl owner)"
check "remove map" dm_remove mpemc
cl_ctl clear-reservation >/dev/null
check "modules unload" mp_mods_unload
