#!/bin/bash
# dm-emc failover under fio: one trespass to SP B, then back to SP A.
# dm-emc over the emulated CLARiiON: PG1 = SP A's ports, PG2 = SP B's. With
# fio writing and verifying, SP A's ports fail: exactly one trespass goes to
# SP B, no media command reaches B before that trespass completed (it is
# held 2 s), I/O resumes on B, no I/O or verify error. switch_group 1 then
# trespasses the LUN back to A, and A serves the same data.
# timeout: 600
# cross-kernel: yes
source "${0%/*}/rc"

declare -A N
emc_sp_map || exit 1
MP=/dev/mapper/mpemc

# First I/O: pg_init of PG1 asks, and A owns the LUN already: no trespass
# (as scsi_dh_emc's activate on the stock stack).
cl_ctl reset-counters >/dev/null
kmsg_mark
check "first read" dd if=$MP of=/dev/null bs=64k count=16 iflag=direct status=none
check_match "first I/O: pg_init asked SP A" "multipath emc: .*: this port's SP owns the LUN already: no trespass" "$(kmsg_since)"
check_eq "first I/O: no trespass on SP A (it owns the LUN)" 0 "$(cl_counter A trespass)"
check_eq "... none on SP B" 0 "$(cl_counter B trespass)"
check_eq "LUN owned by A" A "$(cl_ctl owner)"

# fio with verification; fail SP A's ports while it runs.
cl_ctl delay-trespass 2000 >/dev/null
cl_ctl reset-counters >/dev/null
fio_start_until_stopped $MP 16k 24 /tmp/fio-252.json
check "fio is writing through A" wait_until 60 cl_counter_ge A media 50
kmsg_mark
t0=$(date +%s.%N)
check "fail A0 (transport)" cl_ctl fail A0 transport
check "fail A1 (transport)" cl_ctl fail A1 transport
check "trespass reaches SP B" wait_until 60 cl_counter_ge B trespass 1
check "trespass completes on SP B" wait_until 60 cl_counter_ge B trespass_ok 1
t1=$(date +%s.%N)
check "I/O resumes on SP B" wait_until 60 cl_counter_ge B media 20
fio_stop_verified
rm -f /tmp/fio-252.json
check_eq "exactly one trespass on SP B" 1 "$(cl_counter B trespass)"
check_eq "... and it succeeded" 1 "$(cl_counter B trespass_ok)"
check_eq "no media command reached B before it owned the LUN (passive_rejects)" 0 \
	"$(cl_counter B passive_rejects)"
check_eq "LUN now owned by B" B "$(cl_ctl owner)"
check_eq "A0 failed" F "$(path_state mpemc "${N[A0]}")"
check_eq "A1 failed" F "$(path_state mpemc "${N[A1]}")"
check_eq "B0 active" A "$(path_state mpemc "${N[B0]}")"
check_eq "B1 active" A "$(path_state mpemc "${N[B1]}")"
if [ -n "$CL_SCSI_DH" ]; then
	# scsi_dh_emc's own view, which decides whether it lets I/O through
	check_eq "scsi_dh_emc: B0 owns the LUN" active/optimized "$(cl_dh_view B0)"
	check_eq "scsi_dh_emc: B1 owns the LUN (not the trespass path)" active/optimized "$(cl_dh_view B1)"
fi
k=$(kmsg_since)
check_match "kernel log: trespass sent on a B path" "multipath emc: .*sending long trespass \(ignoring reservations\)" "$k"
check_match "kernel log: trespass done" "multipath emc: .*long trespass done" "$k"
diag "failover: ports failed -> trespass done in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s (trespass held 2 s)"

# Back to A: restore, reinstate, switch_group 1.
cl_ctl delay-trespass 0 >/dev/null
sumB=$(region_md5 $MP 24)
check_eq "B serves the 24 MiB fio wrote (read status)" 0 $?
check "restore A0" cl_ctl restore A0
check "restore A1" cl_ctl restore A1
check "reinstate A0" dmsetup message mpemc 0 reinstate_path "${N[A0]}"
check "reinstate A1" dmsetup message mpemc 0 reinstate_path "${N[A1]}"
cl_ctl reset-counters >/dev/null
check "switch_group 1" dmsetup message mpemc 0 switch_group 1
sumA=$(region_md5 $MP 24)
check_eq "A serves the 24 MiB (read status)" 0 $?
check_eq "one trespass back to SP A" 1 "$(cl_counter A trespass_ok)"
check_eq "none to SP B" 0 "$(cl_counter B trespass)"
check_eq "LUN owned by A again" A "$(cl_ctl owner)"
check "reads went through A" test "$(cl_counter A media)" -gt 0
check_eq "no media command to B after the switch" 0 "$(cl_counter B media)"
check_eq "A serves the data written through B" "$sumB" "$sumA"
if [ -n "$CL_SCSI_DH" ]; then
	check_eq "scsi_dh_emc: A0 owns the LUN again" active/optimized "$(cl_dh_view A0)"
	check_eq "scsi_dh_emc: A1 owns the LUN again" active/optimized "$(cl_dh_view A1)"
fi

check "remove map" dm_remove mpemc
check "modules unload" mp_mods_unload
