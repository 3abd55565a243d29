#!/bin/bash
# multipath -F flushes the map, refuses it while open; data survives.
# Runs the stock way for multipathd (udevd, /etc/multipath.conf, multipathd
# -d -s), the test way for device handlers (scsi_dh_* blocked).
# fio writes and verifies (crc32c) 8 MiB through the map multipathd made;
# with the map held open, "multipath -F" refuses (map in use) and the map
# stays; closed, the flush removes it (the paths have no holder left);
# "multipath" then recreates it from the configuration and fio verifies the
# data through the new map.
# The configuration pins path_selector "round-robin 0" and hardware_handler
# "0" so that this scenario is about multipathd's own behaviour; 651 runs
# multipathd's defaults (service-time 0, 1 alua): see tests/lib/multipathd.sh.
# timeout: 360
source "${0%/*}/rc"

mpd_setup 2 mptd "no_path_retry 2" || exit 1
on_exit "kill \$HOLDER 2>/dev/null"
A=${PATH_NUMS[0]} B=${PATH_NUMS[1]} NA=${SD_NAMES[0]} NB=${SD_NAMES[1]}

mpd_check_rr_table mptd "1 queue_if_no_path" "queue_if_no_path (no_path_retry 2), no handler, round-robin over both paths"

fio_region() { # MODE: write (write and verify) or verify (verify only)
	local extra=()
	[ "$1" = verify ] && extra=(--verify_only)
	fio --name=flush --filename=/dev/mapper/mptd --direct=1 --ioengine=libaio \
		--iodepth=8 --bs=4k --rw=randwrite --size=8M --verify=crc32c \
		--verify_fatal=1 --randseed=653 "${extra[@]}" \
		--output-format=json --output="/tmp/fio-653-$1.json" >/dev/null 2>&1
}
check "fio writes and verifies 8 MiB through the map" fio_region write

holders() { ls "/sys/block/$1/holders" | paste -sd' '; }
dmn=$(basename "$(readlink -f /dev/mapper/mptd)")
check_eq "$NA is held by the map" "$dmn" "$(holders "$NA")"

# Held open by a reader that sleeps.
sleep 600 3<"$MAP_DEV" &
HOLDER=$!
sleep 0.5
out=$(multipath -F 2>&1)
rc=$?
diag "multipath -F while open: rc=$rc"
printf '%s\n' "$out" | sed 's/^/# | /'
check "multipath -F refuses a map in use (non-zero exit)" test "$rc" -ne 0
# 0.9.4: "mptd: map in use"; 0.11.1: "map or partition in use"
check_match "it says the map is in use" "in use" "$out"
check "the map is still there" mpd_has_map mptd
check_eq "multipathd still lists it" mptd \
	"$(multipathd show maps raw format '%n' | grep -x mptd)"
kill "$HOLDER"
wait "$HOLDER" 2>/dev/null

out=$(multipath -F 2>&1)
rc=$?
diag "multipath -F when closed: rc=$rc"
printf '%s\n' "$out" | sed 's/^/# | /'
check_eq "multipath -F succeeds on the closed map" 0 "$rc"
check_fail "the map is gone" mpd_has_map mptd
check_eq "no multipath map left" "" \
	"$(dmsetup ls --target multipath | grep -v 'No devices found')"
check_eq "$NA has no holder" "" "$(holders "$NA")"
check_eq "$NB has no holder" "" "$(holders "$NB")"

out=$(multipath 2>&1)
printf '%s\n' "$out" | sed 's/^/# multipath: /'
check "multipath recreates the map from the configuration" mpd_wait_map mptd 2
wait_until 20 test -b /dev/mapper/mptd || dmsetup mknodes mptd
check "fio verifies the 8 MiB through the recreated map" fio_region verify
check_eq "fio verify-only pass: no error" 0 "$(jq '.jobs[0].error' /tmp/fio-653-verify.json)"
mpd_finish
