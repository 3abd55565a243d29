#!/bin/bash
# dm-emc when the array is busy (NDU, array copy): bypass, not fail.
# dm-emc when the array is busy rather than broken. A trespass answered
# NOT READY 04/03 (non-disruptive microcode upgrade) or ILLEGAL REQUEST
# 04/00 (array-based copy) bypasses the group (status D) without failing its
# path, and the core goes on to the other group. (The emulated NDU covers the
# whole array, so the other group's port is held unanswered until the NDU is
# over: then its trespass is judged.) With every group busy the I/O ends
# with the paths failed instead of looping.
# timeout: 400
source "${0%/*}/rc"

declare -A N
# pg_states MAP: the A|D|E letter of each priority group, in order
pg_states() {
	dmsetup status "$1" | awk '{
		i = 4; i += 1 + $i; i += 1 + $i; npg = $i; i += 2; s = ""
		for (g = 0; g < npg; g++) {
			s = s (g ? " " : "") $i; i++; i += 1 + $i
			np = $i; na = $(i + 1); i += 2 + np * (3 + na)
		}
		print s }'
}
logged() { kmsg_since | grep -qE "$1"; }
nothing() { ! kill -0 "$1" 2>/dev/null; }
MP=/dev/mapper/mpemc
rd() { dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none; }

clariion_start --ports-per-sp 1 || exit 1
on_exit mp_mods_unload
on_exit "dm_remove mpemc"
for p in A0 B0; do N[$p]=$(devnum "${CL_DEV[$p]}"); done
S=$(blockdev --getsz "${CL_DEV[A0]}")
check "modules load" mp_mods_load || exit 1
table() { # table FIRST SECOND: PG1 = port FIRST, PG2 = port SECOND
	echo "0 $S multipath 0 1 emc 2 1 round-robin 0 1 0 ${N[$1]} round-robin 0 1 0 ${N[$2]}"
}
name() { basename "${CL_DEV[$1]}"; }

# busy_case TITLE FIRST SECOND ON-CMD OFF-CMD LOGWHAT SENSE
busy_case() {
	local title=$1 first=$2 second=$3 on=$4 off=$5 what=$6 sense=$7 rpid k
	check "$title: create map (PG1 = $first, PG2 = $second)" dm_create mpemc "$(table "$first" "$second")" || return 1
	cl_reset
	cl_ctl reset-counters >/dev/null
	# shellcheck disable=SC2086 # the control words
	cl_ctl $on >/dev/null
	check "$title: $second holds its commands" cl_ctl fail "$second" noresp
	kmsg_mark
	rd &
	rpid=$!
	check "$title: $first's pg_init finds the array busy" wait_until 60 logged "${N[$first]} \($(name "$first")\): array busy"
	check "$title: pg_init turns to $second" wait_until 60 logged "${N[$second]} \($(name "$second")\): reading the unit report"
	k=$(kmsg_since)
	check_match "$title: kernel log gives the reason and the decision" \
		"multipath emc: ${N[$first]} \($(name "$first")\): array busy \($what, $sense\): bypassing group" "$k"
	check_eq "$title: PG1 bypassed (D), PG2 in use (A)" "D A" "$(pg_states mpemc)"
	check_eq "$title: $first not failed" A "$(path_state mpemc "${N[$first]}")"
	# shellcheck disable=SC2086
	cl_ctl $off >/dev/null
	check "$title: $second answers again" cl_ctl restore "$second"
	check "$title: the read completes" wait_until 60 nothing $rpid
	wait $rpid
	check_eq "$title: ... successfully" 0 $?
	# (cl_reset left the LUN on A: A0 asks and needs no trespass)
	if [ "${second:0:1}" = A ]; then
		check_eq "$title: $second asked, sent no trespass (A owns the LUN)" 0 "$(cl_counter "$second" trespass)"
	else
		check_eq "$title: $second's trespass succeeded" 1 "$(cl_counter "$second" trespass_ok)"
	fi
	check_eq "$title: the LUN is on ${second:0:1}" "${second:0:1}" "$(cl_ctl owner)"
	check_eq "$title: $first still not failed" A "$(path_state mpemc "${N[$first]}")"
	check "$title: remove map" dm_remove mpemc
}

# dm-emc reads the unit report first, as scsi_dh_emc does: its NDU byte
# says busy before any trespass is sent.
busy_case "NDU" A0 B0 "ndu on" "ndu off" "microcode upgrade" "VPD 0xc0"
busy_case "array copy" B0 A0 "reject-trespass on 05 04 00" "reject-trespass off" "array copy" "05/04/00"

# Every group busy: the core retries the bypassed groups, blaming the paths.
check "create map (PG1 = A0, PG2 = B0)" dm_create mpemc "$(table A0 B0)" || exit 1
cl_reset
cl_ctl ndu on >/dev/null
kmsg_mark
t0=$SECONDS
check_fail "all busy: the read fails (no queue_if_no_path)" rd
k=$(kmsg_since)
check "... within a bounded time" test $((SECONDS - t0)) -lt 60
check_match "A0 was bypassed first" "${N[A0]} \($(name A0)\): array busy \(microcode upgrade" "$k"
check_match "B0 was bypassed too" "${N[B0]} \($(name B0)\): array busy \(microcode upgrade" "$k"
check_match "then a bypassed group was tried as the last resort" "reading the unit report \(VPD 0xc0\) of a bypassed group" "$k"
check_eq "A0 failed" F "$(path_state mpemc "${N[A0]}")"
check_eq "B0 failed" F "$(path_state mpemc "${N[B0]}")"
cl_ctl ndu off >/dev/null
check "reinstate A0" dmsetup message mpemc 0 reinstate_path "${N[A0]}"
check "switch_group 1 (clears the bypass)" dmsetup message mpemc 0 switch_group 1
check "read succeeds once the NDU is over" rd
check_eq "LUN owned by A" A "$(cl_ctl owner)"
check "remove map" dm_remove mpemc
check "modules unload" mp_mods_unload
