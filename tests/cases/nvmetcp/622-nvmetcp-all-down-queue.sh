#!/bin/bash
# All NVMe/TCP links silent with queue_if_no_path: I/O held, then completed.
# fio writes and verifies (crc32c) through a service-time map with
# queue_if_no_path over two NVMe/TCP paths (native NVMe multipath off); both
# links are cut (link down and iptables DROP), both paths fail (the
# keep-alive finds the silence, error recovery cancels the I/O, and while
# the controllers reconnect new I/O fails fast with a transport error) and
# the map holds fio's I/O for the whole outage; the links come back, the
# controllers reconnect, the checker reinstates the paths, the held I/O
# completes and everything fio wrote reads back verified.  No I/O error
# reaches fio.  Runs without multipathd, with our target.
# timeout: 480
source "${0%/*}/rc"

nvt_map_fio mpnq 2 service-time "1 queue_if_no_path" || exit 1

is_state() { [ "$(path_state mpnq "$1")" = "$2" ]; }
both_failed() { is_state "${P[0]}" F && is_state "${P[1]}" F; }
queued() { [ "$(queue_size mpnq)" -gt 0 ]; }
kmsg_mark
t=$(now)
check "cut p0 (link down)" nvt_ctl cut p0 down
check "cut p1 (iptables DROP)" nvt_ctl cut p1 drop
check "both paths failed within 90 s" wait_until 90 both_failed
diag "both paths failed $(secs_since "$t") s after the cuts"
check "the map holds fio's I/O (queue size > 0)" wait_until 10 queued
q1=$(queue_size mpnq)
io0=$(($(io_of "${N[0]}") + $(io_of "${N[1]}")))
sleep 5
io1=$(($(io_of "${N[0]}") + $(io_of "${N[1]}")))
q2=$(queue_size mpnq)
diag "held bios: $q1, 5 s later $q2"
check "still held 5 s later" test "$q2" -gt 0
check_eq "no I/O completed on either path meanwhile" "$io0" "$io1"
check "fio waits (still running, no error)" fio_running
check_match "both controllers reconnecting" '^(connecting|resetting) (connecting|resetting)$' \
	"$(nvt_ctl state p0) $(nvt_ctl state p1)"

t=$(now)
check "restore p0" nvt_ctl restore p0
check "restore p1" nvt_ctl restore p1
check "a path reinstated within 90 s" wait_until 90 eval 'is_state "${P[0]}" A || is_state "${P[1]}" A'
diag "first path back $(secs_since "$t") s after the restore"
check "the held I/O is released (queue size 0)" wait_until 20 queue_size_is mpnq 0
check "both paths reinstated within 90 s" wait_until 90 eval 'is_state "${P[0]}" A && is_state "${P[1]}" A'
diag "both paths back $(secs_since "$t") s after the restore"
b=$(io_of "${N[0]}")
check "I/O flows again" wait_until 10 io_above "${N[0]}" $((b + 20))
fio_stop_check "$FIO_JSON"
check_eq "no I/O error reached the map's user (kernel log)" "" \
	"$(kmsg_since | grep -E 'multipath.*giving up|Buffer I/O error on dev dm-')"
checker_stop
dm_remove mpnq
check "modules unload" mp_mods_unload
