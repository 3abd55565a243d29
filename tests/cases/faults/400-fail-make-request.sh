#!/bin/bash
# Random per-path I/O errors (fail_make_request) under verified fio.
# Probabilistic per-path I/O errors (fail_make_request) under fio
# --verify=crc32c on a two-path multipath map with queue_if_no_path, and a
# userspace "path checker" loop that reinstates failed paths, as multipathd
# would.  Every injected error must be absorbed by failover (or queueing
# while no path is usable): 0 verify errors, 0 application errors.
#
# Phase 1 injects on one path only: its fail count must rise and the other
# path's must stay 0 (errors are charged to the path that produced them).
# Phase 2 injects on both, so that both paths are sometimes down at once.
# requires: debug-kernel
# timeout: 600
source "${0%/*}/rc"

FMR=/sys/kernel/debug/fail_make_request
MAP=mpfmr
# Per phase: 512 verified writes, ~50 injected errors in phase 2.  The
# cost is not the I/O but each failover and checker round trip, slow on
# the debug kernel (8M took 530 s).
FIO_SIZE=2M

dbg_require "$FMR/probability" "fail_make_request in debugfs"

mp_fixture 2 "$MAP"
diag "two scsi_debug paths to one LUN: ${SD_NAMES[*]}"
p0=${SD_NAMES[0]} p1=${SD_NAMES[1]}
dbg_require "/sys/block/$p0/make-it-fail" "per-disk make-it-fail knob"
d0=${DEVNUMS[0]} d1=${DEVNUMS[1]}

table="0 $SECTORS multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 $d0 16 $d1 16"
check "create $MAP: $table" dm_create "$MAP" "$table" || exit 1

# Injector off again whatever happens (it is global to the guest).
fmr_off() {
	echo 0 >"/sys/block/$p0/make-it-fail"
	echo 0 >"/sys/block/$p1/make-it-fail"
	echo 0 >"$FMR/probability"
	echo 0 >"$FMR/times"
}
on_exit "fmr_off"
echo 0 >"$FMR/verbose"	# no stack dump per injected error
echo 1 >"$FMR/interval"
echo 0 >"$FMR/space"
echo 0 >"$FMR/probability"

# "<A|F> <fail count>" of one path, from the status line.
path_info() { path_fields "$MAP" "$1" && echo "$PATH_STATE $PATH_FAILS"; }

# The path checker: reinstate every failed path a fifth of a second later.
REINST=/tmp/reinstated.$$
: >"$REINST"
(
	while :; do
		for dev in $(dmsetup status "$MAP" 2>/dev/null | awk \
			'{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+:[0-9]+$/ && $(i + 1) == "F") print $i }'); do
			dmsetup message "$MAP" 0 reinstate_path "$dev" >/dev/null 2>&1 &&
				echo "$dev" >>"$REINST"
		done
		sleep 0.2
	done
) &
checker=$!
on_exit "kill $checker; wait $checker"

# run_phase NAME PROBABILITY PATHS...: inject on PATHS, write FIO_SIZE with
# crc32c checksums and read it all back, then check what happened.
run_phase() {
	local name=$1 prob=$2 p out rc injected times0=1000000
	shift 2
	local w0_0 w0_1 r0_0 r0_1 nre0
	w0_0=$(path_writes "$p0") w0_1=$(path_writes "$p1")
	r0_0=$(path_reads "$p0") r0_1=$(path_reads "$p1")
	nre0=$(wc -l <"$REINST")

	echo "$times0" >"$FMR/times"
	echo "$prob" >"$FMR/probability"
	for p in "$@"; do echo 1 >"/sys/block/$p/make-it-fail"; done

	out=$(fio --name="$name" --filename="/dev/mapper/$MAP" --ioengine=libaio \
		--direct=1 --rw=randwrite --bs=4k --size="$FIO_SIZE" --iodepth=8 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 2>&1)
	rc=$?

	for p in "$@"; do echo 0 >"/sys/block/$p/make-it-fail"; done
	echo 0 >"$FMR/probability"
	injected=$((times0 - $(cat "$FMR/times")))

	check_eq "$name: fio exit status (no I/O or verify error reached it)" 0 "$rc" ||
		diag "$(tail -n 25 <<<"$out")"
	check_match "$name: fio reports err= 0" 'err= 0:' "$out"
	if grep -qiE 'verify: |bad magic|crc32c.*(fail|mismatch)' <<<"$out"; then
		tap_fail "$name: no verify failure in fio output" "$(grep -iE 'verify|crc32c' <<<"$out" | head -n 5)"
	else
		tap_ok "$name: no verify failure in fio output"
	fi
	if [ "$injected" -gt 0 ]; then
		tap_ok "$name: fail_make_request injected $injected error(s) on $*"
	else
		tap_fail "$name: fail_make_request injected errors on $*" \
			"injected=$injected: the map's I/O never went through submit_bio on the paths?"
	fi
	diag "$name: paths reinstated by the checker: $(($(wc -l <"$REINST") - nre0))"
	diag "$name: $p0 writes +$(($(path_writes "$p0") - w0_0)) reads +$(($(path_reads "$p0") - r0_0));" \
		"$p1 writes +$(($(path_writes "$p1") - w0_1)) reads +$(($(path_reads "$p1") - r0_1))"
	diag "$name: status $(dmsetup status "$MAP")"
}

# Phase 1: only path 0 misbehaves.
run_phase one-path 10 "$p0"
s0=$(path_info "$d0") s1=$(path_info "$d1")
check_match "one-path: $p0 ($d0) has a non-zero fail count" '^[AF] [1-9][0-9]*$' "$s0"
check_match "one-path: $p1 ($d1) was never failed" '^[AF] 0$' "$s1"
if [ "$(wc -l <"$REINST")" -gt 0 ]; then
	tap_ok "one-path: the checker reinstated failed paths"
else
	tap_fail "one-path: the checker reinstated failed paths" "no path was ever seen failed"
fi
# Both paths carried writes: path 1 took over while path 0 was failed, and
# round-robin used path 0 whenever it was reinstated.
check "one-path: writes reached both paths" \
	test "$(path_writes "$p0")" -gt 0 -a "$(path_writes "$p1")" -gt 0

# Phase 2: both paths misbehave; all-paths-down is absorbed by queueing.
f1_before=
path_fields "$MAP" "$d1" && f1_before=$PATH_FAILS
run_phase both-paths 5 "$p0" "$p1"
f1_after=
path_fields "$MAP" "$d1" && f1_after=$PATH_FAILS
check "both-paths: $p1's fail count rose too ($f1_before -> $f1_after)" \
	test "${f1_after:-0}" -gt "${f1_before:-0}"

# Everything reinstated and the map back to normal I/O.
wait_until 10 sh -c "! dmsetup status $MAP | grep -qw F"
check "all paths active again after injection stopped" \
	sh -c "! dmsetup status $MAP | grep -qw F"
check "plain read of the whole map after injection" \
	dd if="/dev/mapper/$MAP" of=/dev/null bs=1M iflag=direct status=none
