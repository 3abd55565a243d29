#!/bin/bash
# "1 rdac" and "1 hp_sw" on the emulated RDAC and HP MSA arrays: attached at table load, one ownership move per failover and failback, data intact.
# For each personality of the emulator (tests/clariion: rdac = NETAPP
# INF-01-00, hpsw = COMPAQ MSA1000 VOLUME; two ports per controller), the
# scsi_dh loadable but not attached at scan: a table naming it (2 PGs,
# controller A's ports first, queue_if_no_path as multipathd writes it)
# loads, dm-scsi-dh attaches the kernel's scsi_dh to every path, and
#   - map creation moves nothing (A owns the LUN);
#   - A's ports cut: the write goes on through B, after exactly one move
#     request and one move to B (MODE SELECT page 0x2C / START STOP UNIT);
#   - A's ports back, reinstated, switch_group 1: exactly one move to A;
#   - what was written reads back through A.
# A path that scsi_dh_hp_sw still believes passive after its own START STOP
# UNIT fails its first I/O; it is reinstated here as multipathd's checker
# would (663-668 run the same arrays under multipathd, ours and the
# distro's).  Full tier for its time: two array set-ups and teardowns,
# ~5 min of guest time on a loaded host (the default run covers dm-scsi-dh
# in 270 and the emulator in 200-203).
# tier: full
# timeout: 480
source "${0%/*}/rc"
source "$REPO/tests/clariion/lib.sh"

on_exit "dm_remove mparr; mp_mods_unload"
on_exit "scsi_dh_block scsi_dh_rdac; scsi_dh_block scsi_dh_hp_sw"
check "modules load" mp_mods_load || exit 1
PAT1=$CL_TMP/pat1 PAT2=$CL_TMP/pat2
head -c 1048576 /dev/urandom >"$PAT1"
head -c 1048576 /dev/urandom >"$PAT2"

# reinstate_refused: reinstate every failed path whose port is not cut
# (what multipathd's checker does once the path answers again)
reinstate_refused() {
	local p
	for p in A0 A1 B0 B1; do
		[ "$(path_state mparr "${N[$p]}")" = F ] || continue
		[ "${CUT:-}" = "${p:0:1}" ] && continue
		dmsetup message mparr 0 reinstate_path "${N[$p]}"
		diag "reinstated $p (${N[$p]}) after it failed"
	done
}
# fails: "A0 A1 B0 B1" fail counts from the map's status
fails() {
	local p out=""
	for p in A0 A1 B0 B1; do
		path_fields mparr "${N[$p]}" && out+="${out:+ }$PATH_FAILS"
	done
	echo "$out"
}

# write_done: the background write has ended (failed paths reinstated
# meanwhile); reads_back: PAT2 reads back through the map
write_done() { reinstate_refused; ! kill -0 "$DDPID" 2>/dev/null; }
reads_back() {
	reinstate_refused
	cmp -s "$PAT2" <(dd if=/dev/mapper/mparr bs=64k count=16 iflag=direct status=none)
}

declare -A N
# run_array PERSONALITY HANDLER
run_array() {
	local pers=$1 h=$2 p t
	CUT=
	CL_PORTS=()
	check "$pers: scsi_dh_$h blocked at scan" scsi_dh_block "scsi_dh_$h"
	clariion_start --personality "$pers" --ports-per-sp 2 || return 1
	for p in A0 A1 B0 B1; do N[$p]=$(devnum "${CL_DEV[$p]}"); done
	check "$pers: scsi_dh_$h loadable after the scan" scsi_dh_allow "scsi_dh_$h" || return 1
	check_eq "$pers: no scsi_dh attached" "detached detached detached detached" \
		"$(cl_dh_state A0) $(cl_dh_state A1) $(cl_dh_state B0) $(cl_dh_state B1)"
	S=$(blockdev --getsz "${CL_DEV[A0]}")
	t="0 $S multipath 1 queue_if_no_path 1 $h 2 1"
	t+=" round-robin 0 2 1 ${N[A0]} 1 ${N[A1]} 1 round-robin 0 2 1 ${N[B0]} 1 ${N[B1]} 1"
	check "$pers: map with '1 $h' loads" dm_create mparr "$t" || return 1
	check_eq "$pers: TABLE's handler" "1 $h" "$(hw_words mparr)"
	check_eq "$pers: table load attached scsi_dh_$h to every port" "$h $h $h $h" \
		"$(cl_dh_state A0) $(cl_dh_state A1) $(cl_dh_state B0) $(cl_dh_state B1)"
	check "$pers: dm-scsi-dh serves it" test -d /sys/module/dm_scsi_dh
	check "$pers: write through A" dd if="$PAT1" of=/dev/mapper/mparr bs=64k oflag=direct status=none
	check_eq "$pers: setup: no move requested" "0 0" "$(cl_counter A trespass) $(cl_counter B trespass)"
	check_eq "$pers: LUN on A" A "$(cl_ctl owner)"

	cl_ctl reset-counters >/dev/null
	check "$pers: cut A0" cl_ctl fail A0 transport
	check "$pers: cut A1" cl_ctl fail A1 transport
	CUT=A
	dd if="$PAT2" of=/dev/mapper/mparr bs=64k oflag=direct status=none &
	DDPID=$!
	check "$pers: the write finishes through B" wait_until 120 write_done
	wait $DDPID
	check_eq "$pers: ... with no error" 0 $?
	diag "$pers failover: A $(cl_counter A trespass) requests/$(cl_counter A moved) moved," \
		"B $(cl_counter B trespass)/$(cl_counter B moved); path fail counts A0 A1 B0 B1: $(fails)"
	check_eq "$pers: one request and one move, to B" "1 1 0" \
		"$(cl_counter B trespass) $(cl_counter B moved) $(cl_counter A trespass)"
	check_eq "$pers: LUN on B" B "$(cl_ctl owner)"

	cl_ctl reset-counters >/dev/null
	check "$pers: A's ports back" cl_ctl restore all
	CUT=
	reinstate_refused
	check "$pers: switch_group 1" dmsetup message mparr 0 switch_group 1
	check "$pers: read back through A" wait_until 60 reads_back
	diag "$pers failback: A $(cl_counter A trespass) requests/$(cl_counter A moved) moved," \
		"B $(cl_counter B trespass)/$(cl_counter B moved); path fail counts A0 A1 B0 B1: $(fails)"
	check_eq "$pers: one request and one move, to A" "1 1 0" \
		"$(cl_counter A trespass) $(cl_counter A moved) $(cl_counter B trespass)"
	check_eq "$pers: LUN on A" A "$(cl_ctl owner)"
	check "$pers: the reads went through A" test "$(cl_counter A media)" -gt 0
	check "$pers: remove map" dm_remove mparr
	clariion_stop
	check "$pers: scsi_dh_$h blocked again" scsi_dh_block "scsi_dh_$h"
}

run_array rdac rdac
run_array hpsw hp_sw
check "modules unload" mp_mods_unload
