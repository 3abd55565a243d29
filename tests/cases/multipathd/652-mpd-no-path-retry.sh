#!/bin/bash
# no_path_retry: I/O queues N checker ticks, then fails; earlier data intact.
# Runs the stock way for multipathd (udevd, /etc/multipath.conf, multipathd
# -d -s), the test way for device handlers (scsi_dh_* blocked).
# no_path_retry 5 with polling_interval 1: multipathd loads the map with
# queue_if_no_path; when the last path fails it enters recovery mode, the
# writers' bios queue in the map, and after 5 checker ticks multipathd
# disables queueing (fail_if_no_path): the queued bios fail with EIO.  When a
# path runs again multipathd reinstates it and turns queueing back on.  fio
# wrote and verified (crc32c) a region before the outage and verifies it
# again after it: nothing written is lost.
# The configuration pins path_selector "round-robin 0" and hardware_handler
# "0" so that this scenario is about multipathd's own behaviour; 651 runs
# multipathd's defaults (service-time 0, 1 alua): see tests/lib/multipathd.sh.
# timeout: 480
source "${0%/*}/rc"

RETRY=5
mpd_setup 2 mptc "no_path_retry $RETRY" || exit 1
on_exit "kill \${WPIDS[*]} 2>/dev/null"
A=${PATH_NUMS[0]} B=${PATH_NUMS[1]} NA=${SD_NAMES[0]} NB=${SD_NAMES[1]}

mpd_check_rr_table mptc "1 queue_if_no_path" "queue_if_no_path (no_path_retry), no handler, round-robin over both paths"
mpd_diag_topology mptc

# fio_region MODE: write and verify (MODE=write) or verify only (MODE=verify)
# 8 MiB at the start of the map, crc32c, one pattern seed for both.
fio_region() {
	local extra=()
	[ "$1" = verify ] && extra=(--verify_only)
	fio --name=before --filename="$MAP_DEV" --direct=1 --ioengine=libaio \
		--iodepth=8 --bs=4k --rw=randwrite --size=8M --verify=crc32c \
		--verify_fatal=1 --randseed=652 "${extra[@]}" \
		--output-format=json --output="/tmp/fio-652-$1.json" >/dev/null 2>&1
}
check "fio writes and verifies 8 MiB before the outage" fio_region write

# The outage: both paths offline, four 256 KiB writers beyond the fio
# region (common.sh writers: offsets 0-1 MiB of their own pattern file;
# the map is written through a second name for that offset).
pat=/tmp/pattern.$$
head -c 1M /dev/urandom >"$pat"
dmsetup create mptc-tail --table "0 $((32 * 2048)) linear $MAP_DEV $((16 * 2048))" &&
	dmsetup mknodes mptc-tail
on_exit "dm_remove mptc-tail"
kmsg_mark
diag "offline $NA and $NB"
path_offline "$NA"
path_offline "$NB"
t0=$SECONDS
writers mptc-tail "$pat"
all_failed() { [ "$(path_state mptc "$A") $(path_state mptc "$B")" = "F F" ]; }
check "the kernel fails both paths" wait_until 30 all_failed
# (wait_until evaluates at every poll: the queue and the daemon's log,
# which gets its line at the checker's next tick)
check "the writers' bios queue in the map" wait_until 30 eval '[ "$(queue_size mptc)" -gt 0 ]'
check "multipathd enters recovery mode" wait_until 15 \
	grep -q "mptc: Entering recovery mode: max_retries=$RETRY" "$MPD_LOG"
diag "queued bios: $(queue_size mptc); table: $(dmsetup table mptc)"
check "multipathd disables queueing and the writers return" wait_until 60 writers_all_done
waited=$((SECONDS - t0))
diag "writers returned $waited s after the outage began (no_path_retry $RETRY x polling_interval 1 s)"
check "that was no sooner than $((RETRY - 1)) checker ticks (1 s each)" test "$waited" -ge $((RETRY - 1))
ex=$(writers_exits)
check_match "every queued writer failed (EIO), none succeeded" "^([1-9][0-9]* ){4}\$" "$ex"
check "multipathd logged disabling queueing" wait_until 10 grep -q "mptc: Disable queueing" "$MPD_LOG"
check_match "table now without queue_if_no_path (fail_if_no_path)" \
	"^0 [0-9]+ multipath 0 0 1 1 round-robin " "$(dmsetup table mptc)"
check_eq "nothing left queued" 0 "$(queue_size mptc)"
check_fail "new I/O fails at once" dd if="$MAP_DEV" of=/dev/null bs=4k count=1 iflag=direct status=none

diag "$NA and $NB running again"
path_running "$NA"
path_running "$NB"
both_active() { [ "$(path_state mptc "$A") $(path_state mptc "$B")" = "A A" ]; }
check "multipathd reinstates both paths" wait_until 30 both_active
queueing() { [[ $(dmsetup table mptc) == *" multipath 1 queue_if_no_path "* ]]; }
check "multipathd turns queueing back on" wait_until 30 queueing
mpd_diag_topology mptc
check "fio verifies the 8 MiB written before the outage: nothing lost" fio_region verify
check_eq "fio verify-only pass: no error" 0 "$(jq '.jobs[0].error' /tmp/fio-652-verify.json)"
dm_remove mptc-tail
mpd_finish
