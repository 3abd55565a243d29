#!/bin/bash
# multipathd: map made, verified I/O through a path failure and reinstatement.
# Runs the stock way for multipathd (udevd, /etc/multipath.conf, multipathd
# -d -s), the test way for device handlers (scsi_dh_* blocked).  multipathd
# builds the map over 2 scsi_debug paths from the configuration alone; fio
# writes and verifies (crc32c) through it while one path is taken offline:
# the kernel fails the path on its I/O error and multipathd marks it failed
# (tur checker: faulty); when the device runs again the checker finds it up
# and multipathd reinstates it in the map, which carries I/O again.
# The configuration pins path_selector "round-robin 0" and hardware_handler
# "0" so that this scenario is about multipathd's own behaviour; 651 runs
# multipathd's defaults (service-time 0, 1 alua): see tests/lib/multipathd.sh.
# tier: full (the default run keeps 651 (Debian defaults, failover), 652, 653 and 660)
# timeout: 480
source "${0%/*}/rc"

mpd_setup 2 mpta || exit 1
on_exit "kill \$FIO_PID 2>/dev/null; wait \$FIO_PID"
A=${PATH_NUMS[0]} B=${PATH_NUMS[1]} NA=${SD_NAMES[0]} NB=${SD_NAMES[1]}

mpd_check_rr_table mpta "0" "no features, no handler, 1 PG (multibus), round-robin over both paths"
mpd_diag_topology mpta
check_eq "multipathd: both paths active and ready" "$NA active ready|$NB active ready" \
	"$(mpd_path_states mpta | sort | paste -sd'|')"

running() { kill -0 "$FIO_PID" 2>/dev/null; }
io_of() { echo $(($(path_reads "$1") + $(path_writes "$1"))); }
MIB=$(per_kernel 12 6)
fio_start_verified "$MAP_DEV" "$MIB" 3 256 /tmp/fio-mpd.json
sleep 3

kmsg_mark
diag "offline $NA"
path_offline "$NA"
is_failed() { [ "$(path_state mpta "$A")" = F ]; }
check "the kernel fails $NA on its I/O error" wait_until 30 is_failed
# (functions: wait_until must read multipathd's answer at every poll)
chk_is() { [ "$(mpd_chk_state mpta "$NA")" = "$1" ]; }
dm_chk_is() { [ "$(mpd_dm_state mpta "$NA") $(mpd_chk_state mpta "$NA")" = "$1" ]; }
check "multipathd marks $NA failed (checker: faulty)" wait_until 30 chk_is faulty
check_eq "multipathd: $NA failed in the map" failed "$(mpd_dm_state mpta "$NA")"
mpd_diag_topology mpta
check "fio still running on $NB" running
# A window, not a sleep: multipathd may hold I/O for a moment (a table
# reload after the failure), and a loaded machine stretches that.
before=$(io_of "$NB")
check "$NB carries the I/O alone" wait_until 20 eval "[ \$(io_of $NB) -gt $before ]"

diag "$NA running again"
path_running "$NA"
is_active() { [ "$(path_state mpta "$A")" = A ]; }
check "multipathd reinstates $NA (kernel: active)" wait_until 30 is_active
check "multipathd: $NA active and ready" wait_until 30 dm_chk_is "active ready"
log=$(kmsg_since)
check_match "kernel log: $A failed" "Failing path $A\\." "$log"
check_match "kernel log: $A reinstated" "Reinstating path $A\\." "$log"
check_match "multipathd log: $NA ($A) reinstated" "($NA|$A): reinstated" "$(grep reinstated "$MPD_LOG")"
check "fio still running after the reinstatement" running
before=$(io_of "$NA")
check "reinstated $NA carries I/O again" wait_until 20 eval "[ \$(io_of $NA) -gt $before ]"

fio_wait_verified
mpd_finish
