#!/bin/bash
# fio verifies through a 4-path map while paths fail and come back.
# fio writes and verifies (crc32c) through a 4-path map while the paths fail
# one by one down to the last (offline, fail_path) and come back: the
# application sees no I/O error and no verify error; each path's counters
# show where the I/O went.
# timeout: 360
source "${0%/*}/rc"

mp_fixture 4 mpf
on_exit "kill \$FIO_PID 2>/dev/null; wait"
P=("${DEVNUMS[@]}") N=("${SD_NAMES[@]}")
check "create 1-PG map over 4 paths, repeat_count 8" dm_create mpf \
	"0 $SECTORS multipath 0 0 1 1 round-robin 0 4 1 ${P[0]} 8 ${P[1]} 8 ${P[2]} 8 ${P[3]} 8"

is_failed() { [ "$(path_state mpf "$1")" = F ]; }
io_of() { echo $(($(path_reads "$1") + $(path_writes "$1"))); }
running() { kill -0 "$FIO_PID" 2>/dev/null; }
# io_window WHEN: I/O completed per path in 3 s (into IO[]), fio still running
io_window() {
	local i before=()
	for i in "${!N[@]}"; do before+=("$(io_of "${N[$i]}")"); done
	sleep 3
	check "fio still running $1" running
	IO=()
	for i in "${!N[@]}"; do IO+=($(($(io_of "${N[$i]}") - before[i]))); done
}

# io_total: I/O completed on all four paths so far
io_total() {
	local n t=0
	for n in "${N[@]}"; do t=$((t + $(io_of "$n"))); done
	echo "$t"
}

# 2 loops of $MIB MiB each: long enough to outlast the steps below on either kernel.
MIB=$(per_kernel 48 16)
io0=$(io_total)
fio_start_verified /dev/mapper/mpf "$MIB" 2 512 /tmp/fio-failover.json
# fio's start (its libraries over 9p) can take many seconds on a loaded
# host: the failures below must meet its I/O, so wait for it to flow.
io_flowing() { [ $(($(io_total) - io0)) -ge 64 ]; }
check "fio's I/O flows through the map" wait_until 120 io_flowing

kmsg_mark
diag "step 1: offline ${N[0]}"
path_offline "${N[0]}"
check "I/O error on offlined ${N[0]} fails it" wait_until 30 is_failed "${P[0]}"
diag "step 2: fail_path ${N[1]}"
check "fail_path ${N[1]}" dmsetup message mpf 0 fail_path "${P[1]}"
diag "step 3: offline ${N[2]}"
path_offline "${N[2]}"
check "I/O error on offlined ${N[2]} fails it" wait_until 30 is_failed "${P[2]}"
check_match "INFO status: three paths failed, the last active" \
	" ${P[0]} F 1 ${P[1]} F 1 ${P[2]} F 1 ${P[3]} A 0 $" "$(dmsetup status mpf)"
check "fio still running on the last path" running
io_window "after 3 s on the last path"
diag "I/O in 3 s on one path: ${N[0]}=${IO[0]} ${N[1]}=${IO[1]} ${N[2]}=${IO[2]} ${N[3]}=${IO[3]}"
check_eq "no I/O completes on the failed paths" "0 0 0" "${IO[0]} ${IO[1]} ${IO[2]}"
check "the last path carries the I/O" test "${IO[3]}" -gt 10
log=$(kmsg_since)
for i in 0 1 2; do
	check_match "kernel log names failed path ${N[$i]}" "Failing path ${P[$i]}\\." "$log"
done

diag "step 4: bring them back"
path_running "${N[0]}"
path_running "${N[2]}"
for i in 0 1 2; do
	check "reinstate_path ${N[$i]}" dmsetup message mpf 0 reinstate_path "${P[$i]}"
done
check_match "INFO status: all paths active again" \
	" ${P[0]} A 1 ${P[1]} A 1 ${P[2]} A 1 ${P[3]} A 0 $" "$(dmsetup status mpf)"
io_window "after reinstatement"
diag "I/O in 3 s after reinstatement: ${N[0]}=${IO[0]} ${N[1]}=${IO[1]} ${N[2]}=${IO[2]} ${N[3]}=${IO[3]}"
for i in 0 1 2; do
	check "reinstated ${N[$i]} carries I/O again" test "${IO[$i]}" -gt 0
done

diag "step 5: fail_path of each path in turn while fio runs"
for i in 3 2 1; do
	check "fail_path ${N[$i]}" dmsetup message mpf 0 fail_path "${P[$i]}"
	sleep 1
done
sleep 1
for i in 3 2 1; do
	check "reinstate_path ${N[$i]}" dmsetup message mpf 0 reinstate_path "${P[$i]}"
done

fio_wait_verified
check_match "no I/O error reached the kernel log as a dm error" "^$" "$(kmsg_since | grep -i 'multipath.*giving up')"
dm_remove mpf
check "modules unload" mp_mods_unload
