#!/bin/bash
# 663 on the stock stack: the distro's dm-multipath with scsi_dh_rdac attached at scan, the oracle for the table, the moves and the path states.
# Runs 663-netapp-rdac.sh with MPD_STACK=distro: the distro's dm-multipath,
# dm-round-robin and dm-service-time (insmod by path; ours stay unloaded)
# serve multipathd's table; the same assertions hold.
# requires: distro-kernel
# tier: full
# timeout: 720
MPD_STACK=distro
source "${BASH_SOURCE[0]%/*}/663-netapp-rdac.sh"
