#!/bin/bash
# dm-emc with a trespass outstanding: suspend, remove and unload are safe.
# dm-emc with a trespass outstanding: suspend waits for it (bounded by the
# array's delay or the trespass timeout) and then completes, the held I/O
# finishes after resume; a map removed the moment its last trespass
# completes, and dm-emc unloaded right after, leave nothing behind (repeated
# to hit the window between end_io and module unload); no hang, no warning.
# timeout: 600
source "${0%/*}/rc"

declare -A N
MP=/dev/mapper/mpemc
rd() { dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none; }
nothing() { ! kill -0 "$1" 2>/dev/null; }
logged() { kmsg_since | grep -qE "$1"; }
gone() { ! dmsetup info "$1" >/dev/null 2>&1; }

clariion_start --ports-per-sp 1 --cmd-timeout 6 || exit 1
on_exit mp_mods_unload
on_exit "dm_remove mpemc"
for p in A0 B0; do N[$p]=$(devnum "${CL_DEV[$p]}"); done
S=$(blockdev --getsz "${CL_DEV[A0]}")
T="0 $S multipath 0 1 emc 2 1 round-robin 0 1 0 ${N[B0]} round-robin 0 1 0 ${N[A0]}"
check "modules load" mp_mods_load || exit 1
check "modprobe dm-emc" modprobe dm-emc

# ---- suspend while the trespass is held 3 s by the array --------------------
cl_reset
check "create map (PG1 = B0)" dm_create mpemc "$T" || exit 1
cl_ctl delay-trespass 3000 >/dev/null
cl_ctl reset-counters >/dev/null
rd &
rpid=$!
check "trespass outstanding on B0" wait_until 30 cl_counter_ge B0 trespass 1
t0=$(ms_now)
check "dmsetup suspend returns" timeout 60 dmsetup suspend mpemc
dt=$(($(ms_now) - t0))
check_eq "the trespass had completed by then" 1 "$(cl_counter B0 trespass_ok)"
check_match "map is suspended" "SUSPENDED" "$(dmsetup info mpemc)"
check "dmsetup resume" dmsetup resume mpemc
check "the read completes" wait_until 30 nothing $rpid
wait $rpid
check_eq "... successfully" 0 $?
diag "suspend with a trespass held 3 s by the array took $dt ms"

# the same with a noflush suspend (what a table reload by multipathd does)
cl_reset
cl_ctl owner B >/dev/null	# (A0's SP must not own it: no trespass then)
cl_ctl delay-trespass 3000 >/dev/null
cl_ctl reset-counters >/dev/null
check "switch_group 2 (A0)" dmsetup message mpemc 0 switch_group 2
rd &
rpid=$!
check "trespass outstanding on A0" wait_until 30 cl_counter_ge A0 trespass 1
t0=$(ms_now)
check "dmsetup suspend --noflush returns" timeout 60 dmsetup suspend --noflush mpemc
dt=$(($(ms_now) - t0))
check_eq "the trespass had completed by then" 1 "$(cl_counter A0 trespass_ok)"
check "dmsetup resume" dmsetup resume mpemc
check "the read completes" wait_until 30 nothing $rpid
wait $rpid
check_eq "... successfully" 0 $?
diag "noflush suspend with a trespass held 3 s took $dt ms"
check "remove map" dm_remove mpemc

# ---- suspend while the trespass goes unanswered: bounded by the timeout ---
cl_reset
echo 3 >/sys/module/dm_emc/parameters/trespass_timeout
check "create map (PG1 = B0, PG2 = A0)" dm_create mpemc "$T" || exit 1
check "B0 holds its commands" cl_ctl fail B0 noresp
kmsg_mark
rd &
rpid=$!
check "pg_init on B0 asks for the unit report" wait_until 30 logged "${N[B0]} .*reading the unit report"
t0=$(ms_now)
check "dmsetup suspend returns" timeout 90 dmsetup suspend mpemc
dt=$(($(ms_now) - t0))
check_match "B0's unit report timed out" "${N[B0]} \(.*\): unit report timed out" "$(kmsg_since)"
check "dmsetup resume" dmsetup resume mpemc
check "the read completes (through A0)" wait_until 60 nothing $rpid
wait $rpid
check_eq "... successfully" 0 $?
diag "suspend with an unanswered trespass took $dt ms (trespass_timeout 3 s, cmd_time_out 6 s)"
check "B0 answers again" cl_ctl restore B0
echo 30 >/sys/module/dm_emc/parameters/trespass_timeout
check "remove map" dm_remove mpemc

# ---- removed right after the last completion, module unloaded at once -----
fails=0
for i in 1 2 3 4 5 6; do
	cl_reset
	cl_ctl reset-counters >/dev/null
	cl_ctl delay-trespass $((100 * i)) >/dev/null
	dm_create mpemc "$T" || { fails=$((fails + 1)); continue; }
	rd &
	rpid=$!
	wait_until 30 cl_counter_ge B0 trespass 1
	# Deferred: the map goes as soon as the reader closes it, i.e. right
	# after the held read completed behind the trespass.
	dmsetup remove --deferred mpemc >/dev/null 2>&1 || fails=$((fails + 1))
	wait $rpid || fails=$((fails + 1))
	wait_until 30 gone mpemc || fails=$((fails + 1))
	modprobe -r dm_emc || fails=$((fails + 1))
	modprobe dm-emc || fails=$((fails + 1))
done
check_eq "6 x (trespass, deferred remove, unload dm-emc): no failure" 0 $fails
check "modules unload" mp_mods_unload
