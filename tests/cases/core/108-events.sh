#!/bin/bash
# Path and PG changes move the event number and send PATH_* uevents.
# Events: every path failure, reinstatement, PG switch and bypass moves the
# map's event number and wakes `dmsetup wait`; path failures and
# reinstatements send PATH_FAILED / PATH_REINSTATED uevents with the path
# and the number of valid paths left.
# timeout: 240
source "${0%/*}/rc"

mp_fixture 3 mpe
on_exit "kill \$(jobs -p) 2>/dev/null"
A=${DEVNUMS[0]} B=${DEVNUMS[1]} C=${DEVNUMS[2]}

ev() { dmsetup info -c --noheadings -o events mpe; }
ev_above() { [ "$(ev)" -gt "$1" ]; }
# moves DESC CMD...: CMD makes the event number move
moves() {
	local d=$1 e
	shift
	e=$(ev)
	"$@" >/dev/null 2>&1
	check "event number moves: $d" wait_until 10 ev_above "$e"
}

uev=/tmp/uevents.$$
udevadm monitor --kernel --property --subsystem-match=block >"$uev" 2>/dev/null &
MON=$!
# It listens once a uevent of our own shows in its output (on a loaded
# guest one second was not enough: the first two events were missed).
uev_seen() { grep -qE "change +/.*/${SD_NAMES[2]} \(block\)" "$uev"; }
uev_poke() { echo change >"/sys/block/${SD_NAMES[2]}/uevent"; sleep 0.2; uev_seen; }
check "udevadm monitor is listening" wait_until 20 uev_poke

check "create 2-PG map" dm_create mpe \
	"0 $SECTORS multipath 0 0 2 1 round-robin 0 2 1 $A 1 $B 1 round-robin 0 1 0 $C"
check "some I/O" dd if=/dev/mapper/mpe of=/dev/null bs=4k count=8 iflag=direct status=none

moves "fail_path" dmsetup message mpe 0 fail_path "$A"
moves "reinstate_path" dmsetup message mpe 0 reinstate_path "$A"
moves "switch_group" dmsetup message mpe 0 switch_group 2
moves "disable_group" dmsetup message mpe 0 disable_group 1
moves "enable_group" dmsetup message mpe 0 enable_group 1
e=$(ev)
dmsetup message mpe 0 fail_path "$C" && dmsetup message mpe 0 fail_path "$C"
check "fail_path $C moves the event number" wait_until 10 ev_above "$e"
sleep 1
check_eq "a second fail_path of the failed path adds no event" $((e + 1)) "$(ev)"
dmsetup message mpe 0 reinstate_path "$C"
sleep 1

# dmsetup wait blocks until the next event.
e=$(ev)
timeout 60 dmsetup wait mpe "$e" &
W=$!
sleep 2
check "dmsetup wait blocks while nothing happens" kill -0 $W
dmsetup message mpe 0 fail_path "$B"
check "dmsetup wait returns on fail_path" wait_until 10 sh -c "! kill -0 $W"
wait $W
check_eq "dmsetup wait exit status" 0 "$?"
dmsetup message mpe 0 reinstate_path "$B"

# A failover caused by I/O errors moves it too.
check "switch_group 1" dmsetup message mpe 0 switch_group 1
dd if=/dev/mapper/mpe of=/dev/null bs=4k count=8 iflag=direct status=none
e=$(ev)
path_offline "${SD_NAMES[0]}"
path_offline "${SD_NAMES[1]}"
check "I/O survives the failover" dd if=/dev/mapper/mpe of=/dev/null bs=4k count=8 iflag=direct status=none
check "event number moves on I/O-driven path failure and PG failover" wait_until 10 ev_above "$e"
path_running "${SD_NAMES[0]}"
path_running "${SD_NAMES[1]}"
dmsetup message mpe 0 reinstate_path "$A"
dmsetup message mpe 0 reinstate_path "$B"
sleep 2
kill $MON
wait $MON 2>/dev/null

# Uevents: split the monitor output into events, one line each.
events=$(awk 'BEGIN { RS = ""; FS = "\n" } /DM_ACTION=/ { a = p = n = ""
	for (i = 1; i <= NF; i++) { if ($i ~ /^DM_ACTION=/) a = $i; if ($i ~ /^DM_PATH=/) p = $i; if ($i ~ /^DM_NR_VALID_PATHS=/) n = $i; if ($i ~ /^DM_NAME=/) m = $i; if ($i ~ /^DM_TARGET=/) t = $i }
	print a, p, n, m, t }' "$uev")
diag "uevents seen:"
while read -r l; do diag "  $l"; done <<<"$events"
# nth_event ACTION DEV N: the Nth (1-based; -1: the last) ACTION uevent of
# path DEV.
nth_event() {
	grep "DM_ACTION=$1 DM_PATH=$2 " <<<"$events" |
		if [ "$3" = -1 ]; then tail -n 1; else sed -n "$3p"; fi
}
check_eq "PATH_FAILED uevents for $A: fail_path's and the offline's" 2 "$(grep -c "PATH_FAILED DM_PATH=$A " <<<"$events")"
check_eq "PATH_FAILED uevent for fail_path $A, 2 valid left" \
	"DM_ACTION=PATH_FAILED DM_PATH=$A DM_NR_VALID_PATHS=2 DM_NAME=mpe DM_TARGET=multipath" "$(nth_event PATH_FAILED "$A" 1)"
check_eq "PATH_REINSTATED uevent for $A, 3 valid" \
	"DM_ACTION=PATH_REINSTATED DM_PATH=$A DM_NR_VALID_PATHS=3 DM_NAME=mpe DM_TARGET=multipath" "$(nth_event PATH_REINSTATED "$A" 1)"
check_eq "PATH_FAILED uevent for $B (dmsetup wait step)" \
	"DM_ACTION=PATH_FAILED DM_PATH=$B DM_NR_VALID_PATHS=2 DM_NAME=mpe DM_TARGET=multipath" "$(nth_event PATH_FAILED "$B" 1)"
# The offlined paths fail close together: dm core sends the uevents it
# collected meanwhile newest first, so either may come first; the valid
# counts they carry are 2 and 1 between them.
check_eq "PATH_FAILED uevents for the offlined paths: 2 and 1 valid left" "1 2" \
	"$(for d in "$A" "$B"; do nth_event PATH_FAILED "$d" -1; done | sed -n 's/.*DM_NR_VALID_PATHS=\([0-9]*\).*/\1/p' | sort -n | tr '\n' ' ' | sed 's/ $//')"
check_eq "one PATH_FAILED for the path failed twice" 1 "$(grep -c "PATH_FAILED DM_PATH=$C " <<<"$events")"
dm_remove mpe
rm -f "$uev"
check "modules unload" mp_mods_unload
