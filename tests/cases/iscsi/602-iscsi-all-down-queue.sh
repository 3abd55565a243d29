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

outage_check() { :; }	# (nothing iSCSI-specific to check while held)
all_down_held mpq san_ctl
is_state() { [ "$(path_state mpq "$1")" = "$2" ]; }
both_failed() { is_state "${P[0]}" F && is_state "${P[1]}" F; }
queued() { [ "$(queue_size mpq)" -gt 0 ]; }

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
	"multipath: queue_if_no_path timeout on [0-9:]+, failing queued IO \(no path [0-9]+ s, [0-9]+ I/O\)" "$k"
secs=$(sed -n 's/.*queue_if_no_path timeout on .*(no path \([0-9]*\) s, .*/\1/p' <<<"$k" | head -n1)
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
