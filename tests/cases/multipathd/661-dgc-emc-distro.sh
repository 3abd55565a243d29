#!/bin/bash
# 660 on the stock stack: the distro's dm-multipath with scsi_dh_emc attached, the same trespass counts.
# Runs 660-dgc-emc.sh with MPD_STACK=distro and CL_SCSI_DH=emc: the
# distro's dm-multipath, dm-round-robin and dm-service-time (insmod by
# path; ours stay unloaded), scsi_dh_emc attached to every port at scan as
# an initramfs would load it.  The oracle for 660 and 662: the same table,
# and the same trespasses at map creation, failover and failback.
# requires: distro-kernel
# timeout: 720
MPD_STACK=distro
CL_SCSI_DH=emc
source "${BASH_SOURCE[0]%/*}/660-dgc-emc.sh"
