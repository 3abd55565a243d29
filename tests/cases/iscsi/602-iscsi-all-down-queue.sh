#!/bin/bash
# All iSCSI links silent with queue_if_no_path: I/O held, then completed.
# fio writes and verifies (crc32c) through a round-robin map with
# queue_if_no_path over two iSCSI paths; both links are cut (link down and
# iptables DROP), both paths fail (transport errors after
# replacement_timeout) and the map holds fio's I/O for the whole outage; the
# links come back, the checker reinstates the paths, the held I/O completes
# and everything fio wrote reads back verified.  No I/O error reaches fio.
# Then the same outage with queue_if_no_path_timeout_secs 4: a held read
# fails once the map has had no path for 4 s (the kernel log says so), and
# reads work again after the restore.
# Runs without multipathd, with our target.
# timeout: 480
source "${0%/*}/rc"

san_rr_fio mpq 2 5 "1 queue_if_no_path" || exit 1

is_state() { [ "$(path_state mpq "$1")" = "$2" ]; }
both_failed() { is_state "${P[0]}" F && is_state "${P[1]}" F; }
queued() { [ "$(queue_size mpq)" -gt 0 ]; }
kmsg_mark
t=$(now)
check "cut p0 (link down)" san_ctl cut p0 down
check "cut p1 (iptables DROP)" san_ctl cut p1 drop
check "both paths failed within 90 s" wait_until 90 both_failed
diag "both paths failed $(secs_since "$t") s after the cuts"
check "the map holds fio's I/O (queue size > 0)" wait_until 10 queued
q1=$(queue_size mpq)
io0=$(($(io_of "${N[0]}") + $(io_of "${N[1]}")))
sleep 5
io1=$(($(io_of "${N[0]}") + $(io_of "${N[1]}")))
q2=$(queue_size mpq)
diag "held bios: $q1, 5 s later $q2"
check "still held 5 s later" test "$q2" -gt 0
check_eq "no I/O completed on either path meanwhile" "$io0" "$io1"
check "fio waits (still running, no error)" fio_running

t=$(now)
check "restore p0" san_ctl restore p0
check "restore p1" san_ctl restore p1
check "a path reinstated within 90 s" wait_until 90 eval 'is_state "${P[0]}" A || is_state "${P[1]}" A'
diag "first path back $(secs_since "$t") s after the restore"
check "the held I/O is released (queue size 0)" wait_until 20 queue_size_is mpq 0
check "both paths reinstated within 90 s" wait_until 90 eval 'is_state "${P[0]}" A && is_state "${P[1]}" A'
diag "both paths back $(secs_since "$t") s after the restore"
b=$(io_of "${N[0]}")
check "I/O flows again" wait_until 10 io_above "${N[0]}" $((b + 20))
fio_stop_check "$FIO_JSON"
check_eq "no I/O error reached the map's user (kernel log)" "" \
	"$(kmsg_since | grep -E 'multipath.*giving up|Buffer I/O error on dev dm-')"

# The same outage with the bounded-queueing feature: held I/O fails once
# the map has had no path for the bound, instead of waiting for the links.
BOUND=4
reload_resume() { dm_reload "$1" "$2" && dmsetup resume "$1"; }
check "reload with queue_if_no_path_timeout_secs $BOUND, resume" reload_resume mpq \
	"0 $S multipath 3 queue_if_no_path queue_if_no_path_timeout_secs $BOUND 0 1 1 round-robin 0 2 1 ${P[0]} 8 ${P[1]} 8"
kmsg_mark
check "cut p0 (link down)" san_ctl cut p0 down
check "cut p1 (iptables DROP)" san_ctl cut p1 drop
dd if=/dev/mapper/mpq of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null &
DD_PID=$!
check "both paths failed within 90 s" wait_until 90 both_failed
t=$(now)
check "the read is held (queue size > 0)" wait_until 10 eval 'queued || ! kill -0 $DD_PID'
wait "$DD_PID"
rc=$?
diag "the held read ended $(secs_since "$t") s after both paths failed (bound $BOUND s), dd exit $rc"
check "... with an error (dd exit status not 0)" test "$rc" -ne 0
k=$(kmsg_since)
check_match "kernel log: our target failed it at the bound" \
	"multipath: [0-9:]+: no path for [0-9]+ s: queueing bound reached, failing [0-9]+ queued I/O" "$k"
secs=$(sed -n 's/.*no path for \([0-9]*\) s: queueing bound reached.*/\1/p' <<<"$k" | head -n1)
check "... after at least the bound ($secs s >= $BOUND s)" test "${secs:-0}" -ge "$BOUND"
check_eq "nothing left queued" 0 "$(queue_size mpq)"
check "restore p0" san_ctl restore p0
check "restore p1" san_ctl restore p1
check "both paths reinstated within 90 s" wait_until 90 eval 'is_state "${P[0]}" A && is_state "${P[1]}" A'
check "a read through the map succeeds again" \
	dd if=/dev/mapper/mpq of=/dev/null bs=4k count=1 iflag=direct status=none
checker_stop
dm_remove mpq
check "modules unload" mp_mods_unload
