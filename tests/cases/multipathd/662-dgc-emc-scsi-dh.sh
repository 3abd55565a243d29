#!/bin/bash
# 660 with the kernel's scsi_dh_emc attached to every port: ours (dm-emc) keeps it in step, the same trespass counts.
# Runs 660-dgc-emc.sh with CL_SCSI_DH=emc: scsi_dh_emc attached at scan
# (as an initramfs would load it), so multipathd writes "1 emc" from the
# attached handler too; dm-emc serves it and keeps scsi_dh_emc's view of
# each port in step.  The trespass counts must be the stock stack's (661).
# timeout: 720
CL_SCSI_DH=emc
source "${BASH_SOURCE[0]%/*}/660-dgc-emc.sh"
