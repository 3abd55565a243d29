#!/bin/bash
# Emulated CLARiiON: INQUIRY and VPD pages as a host sees them per port.
# Emulated CLARiiON, 2 ports per SP: standard INQUIRY and VPD pages 0x00,
# 0x80, 0x83, 0xC0 as a host sees them on every port (same LUN identity,
# per-port relative port id, per-port SP/port/ownership in the unit report).
# timeout: 180
source "${0%/*}/rc"

clariion_start --ports-per-sp 2 --size-mb 32 || exit 1
check_eq "four ports" "A0 A1 B0 B1" "${CL_PORTS[*]}"
check_eq "owner is SP A at start" A "$(cl_ctl owner)"

declare -A naa rtpi serial
for p in "${CL_PORTS[@]}"; do
	d=${CL_DEV[$p]}
	sp=$([ "${p:0:1}" = A ] && echo 0 || echo 1)
	mapfile -t b <<<"$(inq_bytes "$d")"
	ascii() { local i s=""; for ((i = $1; i < $1 + $2; i++)); do s+=$(printf "\\x${b[i]}"); done; echo "$s"; }
	len=$((16#${b[4]:-0} + 5))
	check_eq "$p: vendor" "DGC     " "$(ascii 8 8)"
	check_eq "$p: product" "RAID 5          " "$(ascii 16 16)"
	check "$p: long INQUIRY (length $len >= 160)" test "$len" -ge 160
	check_eq "$p: TPGS bits 0" 0 $((16#${b[5]} & 0x30))
	sl=$((16#${b[160]})) ml=$((16#${b[99]}))
	check "$p: serial and model fit (serial $sl, model $ml, length $len)" \
		test $((161 + sl + ml)) -le "$len" -a "$sl" -gt 0 -a "$ml" -gt 0
	check_eq "$p: array serial at 161" APM00123456789 "$(ascii 161 "$sl")"
	model=$(ascii $((161 + sl)) "$ml")
	check_match "$p: SP model is CX-like, not FC ('$model')" '^CX' "$model"

	check_eq "$p: VPD 0x00 lists 00 80 83 c0" "00 00 00 04 00 80 83 c0" \
		"$(inq_bytes "$d" 00 | head -n 8 | tr '\n' ' ' | sed 's/ $//')"
	# from the page's bytes: sg_inq 1.48 (Debian 13) no longer decodes 0x80
	mapfile -t b <<<"$(inq_bytes "$d" 80)"
	serial[$p]=$(ascii 4 $((16#${b[3]:-0})))
	check "$p: VPD 0x80 serial '${serial[$p]}'" test -n "${serial[$p]}"

	mapfile -t v <<<"$(inq_bytes "$d" 83)"
	check_eq "$p: VPD 0x83 first designator is NAA, 16 bytes" "01 03 16 6" \
		"${v[4]} ${v[5]} $((16#${v[7]})) ${v[8]:0:1}"
	naa[$p]=$(printf '%s' "${v[@]:8:16}")
	check_eq "$p: VPD 0x83 second designator is a relative target port" "14 4" \
		"${v[25]} $((16#${v[27]}))"
	rtpi[$p]=$((16#${v[30]}${v[31]}))

	mapfile -t c <<<"$(inq_bytes "$d" c0)"
	check_eq "$p: VPD 0xC0 page code" c0 "${c[1]}"
	check_eq "$p: C0 byte 4 (state: 2 owned here, 1 bound)" \
		"$([ "$sp" = 0 ] && echo 2 || echo 1)" $((16#${c[4]}))
	check_eq "$p: C0 byte 5 default owner A" 0 $((16#${c[5]}))
	check_eq "$p: C0 byte 7 port" "${p:1}" $((16#${c[7]}))
	check_eq "$p: C0 byte 8 SP" "$sp" $((16#${c[8]}))
	check_eq "$p: C0 bytes 9/27/28/48 (rev 0, initiator 3, PNR 4, no NDU)" "0 3 4 0" \
		"$((16#${c[9]})) $((16#${c[27]})) $((16#${c[28]} & 0x0f)) $((16#${c[48]}))"
	check_eq "$p: C0 byte 30 has arraycommpath (0x04), as multipath-tools' emc_clariion checker requires" \
		4 $((16#${c[30]} & 0x04))
	check_eq "$p: C0 bytes 10..25 = the NAA LUN id" "${naa[$p]}" "$(printf '%s' "${c[@]:10:16}")"
	check_eq "$p: capacity (512-byte sectors)" 65536 "$(cat "/sys/block/${d#/dev/}/size")"
	check_match "$p: sg_inq decodes it" 'Vendor identification: DGC' "$(sg_inq "$d" 2>&1)"
done

check_eq "same NAA id on every port" 1 "$(printf '%s\n' "${naa[@]}" | sort -u | wc -l)"
check_eq "same VPD 0x80 serial on every port" 1 "$(printf '%s\n' "${serial[@]}" | sort -u | wc -l)"
check_eq "relative target port ids differ per port" 4 "$(printf '%s\n' "${rtpi[@]}" | sort -u | wc -l)"
check_match "NAA is an EMC (OUI 006016) NAA 6 id" '^6006016' "${naa[A0]}"

clariion_stop
