#!/bin/bash
# An iSCSI link silenced while a noflush suspend and table reload runs.
# fio writes and verifies (crc32c) through a round-robin map over two
# iSCSI paths.  A new table is loaded, link p0 is silenced (iptables DROP in
# the target namespace) and a noflush suspend starts at once: it waits for
# the bios in flight on p0, which fail only after the NOP-Out ping and
# replacement_timeout, and must keep them (noflush) for the new table.
# After the resume the new table finds p0 dead and fails it, fio carries on
# over p1 with no error; p0 is restored and the checker reinstates it in
# the new table; everything verifies.  Runs without multipathd, with our
# target.
# tier: full (the default run keeps 601 (cuts one by one, three ways) and 602)
# timeout: 480
source "${0%/*}/rc"

san_rr_fio mpd 2 5 || exit 1

kmsg_mark
check "load a new table (repeat_count 16)" dm_reload mpd \
	"0 $S multipath 0 0 1 1 round-robin 0 2 1 ${P[0]} 16 ${P[1]} 16"
t=$(now)
check "silence p0 (iptables DROP)" san_ctl cut p0 drop
dmsetup suspend --noflush mpd &
SP=$!
sleep 1
kill -0 $SP 2>/dev/null && w=yes || w=no
diag "the suspend still waiting for p0's bios 1 s after the drop: $w"
check "the suspend completes within 90 s" wait_until 90 eval '! kill -0 $SP'
wait $SP
check_eq "dmsetup suspend --noflush exit status" 0 "$?"
diag "suspend took $(secs_since "$t") s from the drop"
check_match "suspended" "State: *SUSPENDED" "$(dmsetup info mpd)"
check "resume into the new table" dmsetup resume mpd
check_match "the new table is live (repeat_count 16)" " ${P[0]} 16 ${P[1]} 16" "$(dmsetup table mpd)"
check "the new table fails p0 within 60 s" wait_until 60 path_is mpd "${P[0]}" F
diag "p0 failed in the new table $(secs_since "$t") s after the drop"
b=$(io_of "${N[1]}")
check "fio carries on over p1" wait_until 10 io_above "${N[1]}" $((b + 20))
check "fio running" fio_running
t=$(now)
check "restore p0" san_ctl restore p0
check "p0 reinstated within 90 s" wait_until 90 path_is mpd "${P[0]}" A
diag "p0 reinstated $(secs_since "$t") s after the restore"
path_fields mpd "${P[1]}"
check_eq "p1 never failed" 0 "$PATH_FAILS"
fio_stop_check "$FIO_JSON"
check_eq "no I/O error reached the map's user (kernel log)" "" \
	"$(kmsg_since | grep -E 'multipath.*giving up|Buffer I/O error on dev dm-')"
checker_stop
dm_remove mpd
check "modules unload" mp_mods_unload
