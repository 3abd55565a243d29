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

# While the I/O is held: both controllers are trying to reconnect.
outage_check() {
	check_match "both controllers reconnecting" '^(connecting|resetting) (connecting|resetting)$' \
		"$(nvt_ctl state p0) $(nvt_ctl state p1)"
}
all_down_held mpnq nvt_ctl
checker_stop
dm_remove mpnq
check "modules unload" mp_mods_unload
