#!/bin/bash
# iSCSI links cut one by one to the last and back under verified fio.
# A round-robin map over four iSCSI paths while fio writes and verifies
# (crc32c): the links are cut one by one down to the last (link down, netem
# loss 100%, iptables DROP: silence each time, no error comes back), then
# restored one by one while a checker reinstates each path once its disk is
# running and readable again (as multipathd would).  0 verify errors, 0 I/O
# errors; each cut is one path failure in our target's status (fail_count
# +1); detection (cut -> path failed) and recovery (restore -> reinstated)
# times are reported.  Runs without multipathd, with our target.
# timeout: 600
source "${0%/*}/rc"

san_rr_fio mpi 4 5 || exit 1
# What the iSCSI initiator logs: the silence is found by its NOP-Out ping.
cut_log_check() {
	check_match "kernel log: the silence was found by the NOP-Out ping" "ping timeout of 2 secs expired" "$1"
}
cut_one_by_one mpi san_ctl
