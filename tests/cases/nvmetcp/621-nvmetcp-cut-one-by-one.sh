#!/bin/bash
# NVMe/TCP links cut one by one to the last and back under verified fio.
# A round-robin map over four NVMe/TCP paths (one controller per link,
# native NVMe multipath off) while fio writes and verifies (crc32c): the
# links are cut one by one down to the last (link down, netem loss 100%,
# iptables DROP: silence each time), found by the keep-alive, the
# controller's error recovery cancels the path's I/O and our target fails
# the path and resends the I/O on the others; then the links are restored
# one by one while a checker reinstates each path once its controller is
# live and its device readable again (as multipathd would).  0 verify
# errors, 0 I/O errors; each cut is one path failure in our target's status
# (fail_count +1); detection (cut -> path failed) and recovery (restore ->
# reinstated) times are reported.  Runs without multipathd, with our target.
# tier: full (the default run keeps 622; 601 runs the same cuts over iSCSI)
# timeout: 600
source "${0%/*}/rc"

nvt_map_fio mpn 4 round-robin || exit 1
# What the NVMe/TCP host logs: each cut controller starts error recovery.
cut_log_check() {
	local i
	for i in 0 1 2; do
		check_match "kernel log: ${NVT_CTRLS[i]} started error recovery" \
			"${NVT_CTRLS[i]}: starting error recovery" "$1"
	done
	diag "status: $(nvt_ctl status | tr '\n' ';')"
}
cut_one_by_one mpn nvt_ctl
