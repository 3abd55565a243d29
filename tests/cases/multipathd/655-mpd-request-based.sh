#!/bin/bash
# multipathd with features "2 queue_mode rq": a request-based map, through a path failure.
# Runs the stock way for multipathd (udevd, /etc/multipath.conf, multipathd
# -d -s), the test way for device handlers (scsi_dh_* blocked).  The
# configuration asks for request-based maps (features "2 queue_mode rq"):
# multipathd's table carries it, the map has a request queue of its own,
# and multipathd's own later reloads keep it (a reload in the other mode
# would be refused by dm core).  fio writes and verifies through the map
# while one path is offline: the kernel fails it on its I/O error,
# multipathd marks it failed, and reinstates it when the device runs
# again; a "multipathd reconfigure" leaves the map
# request-based and carrying I/O.
# timeout: 480
# cross-kernel: yes
source "${0%/*}/rc"

mpd_setup 2 mprq "" 'features "2 queue_mode rq"' || exit 1
on_exit "kill \$FIO_PID 2>/dev/null; wait \$FIO_PID"
A=${PATH_NUMS[0]} B=${PATH_NUMS[1]} NA=${SD_NAMES[0]} NB=${SD_NAMES[1]}

mpd_check_rr_table mprq "2 queue_mode rq" "queue_mode rq, no handler, 1 PG (multibus), round-robin over both paths"
DM=$(dmsetup info -c --noheadings -o blkdevname mprq)
check_match "the map is a dm device" "^dm-[0-9]+$" "$DM"
check "the map is request-based (blk-mq contexts in sysfs)" test -d "/sys/block/$DM/mq"
check_eq "multipathd: both paths active and ready" "$NA active ready|$NB active ready" \
	"$(mpd_path_states mprq | sort | paste -sd'|')"

running() { kill -0 "$FIO_PID" 2>/dev/null; }
io_of() { echo $(($(path_reads "$1") + $(path_writes "$1"))); }
fio_start_until_stopped "$MAP_DEV" 4k 16 /tmp/fio-655.json
a0=$(io_of "$NA")
check "fio's I/O flows through $NA" wait_until 120 eval '[ $(($(io_of "$NA") - a0)) -ge 64 ]'

kmsg_mark
path_offline "$NA"
is_failed() { [ "$(path_state mprq "$A")" = F ]; }
check "the kernel fails $NA on its I/O error" wait_until 30 is_failed
chk_is() { [ "$(mpd_chk_state mprq "$NA")" = "$1" ]; }
dm_chk_is() { [ "$(mpd_dm_state mprq "$NA") $(mpd_chk_state mprq "$NA")" = "$1" ]; }
check "multipathd marks $NA failed (checker: faulty)" wait_until 30 chk_is faulty
b0=$(io_of "$NB")
check "$NB carries the I/O alone" wait_until 20 eval '[ $(($(io_of "$NB") - b0)) -ge 32 ]'

path_running "$NA"
is_active() { [ "$(path_state mprq "$A")" = A ]; }
check "multipathd reinstates $NA (kernel: active)" wait_until 30 is_active
check "multipathd: $NA active and ready" wait_until 30 dm_chk_is "active ready"
log=$(kmsg_since)
check_match "kernel log: $A failed" "Failing path $A\\." "$log"
check_match "kernel log: $A reinstated" "Reinstating path $A\\." "$log"
a0=$(io_of "$NA")
check "reinstated $NA carries I/O again" wait_until 20 eval '[ $(($(io_of "$NA") - a0)) -ge 32 ]'

kmsg_mark
check "multipathd reconfigure" mpd_cmd reconfigure
sleep 3
check_match "after reconfigure the table still says queue_mode rq" " multipath 2 queue_mode rq " "$(dmsetup table mprq)"
check_eq "no reload was refused for its mode" "" "$(kmsg_since | grep "can't change device type")"
a0=$(io_of "$NA") b0=$(io_of "$NB")
check "both paths carry I/O after reconfigure" wait_until 20 eval \
	'[ $(($(io_of "$NA") - a0)) -ge 16 ] && [ $(($(io_of "$NB") - b0)) -ge 16 ]'
fio_stop_verified
rm -f /tmp/fio-655.json
mpd_finish
