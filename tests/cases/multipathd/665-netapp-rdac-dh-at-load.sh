#!/bin/bash
# 663 with scsi_dh_rdac loadable but not attached at scan: the table load attaches it (dm-scsi-dh), the same table and moves.
# Runs 663-netapp-rdac.sh with DH_WAY=load: scsi_dh_rdac is allowed after
# the disks appeared, so no port has a handler when multipathd starts; it
# writes "1 rdac" from its built-in entry (not from the attached handler)
# and dm-scsi-dh attaches scsi_dh_rdac to every path at table load, as
# Linux 6.1's target does.
# Only with multipath-tools 0.9.4 (bookworm's guest): 0.11's hardware table
# names no handler, so with no scsi_dh attached at scan it writes none and
# nothing would move the LUN; 663 runs 0.11.1 the stock way (attached
# at scan), where it writes "1 rdac" from the attached handler.
# skip-kernel: *+deb13-amd64 the trixie guest's multipath-tools 0.11.1 writes no handler without an attached scsi_dh (its hardware table names none); 663 runs it with scsi_dh_rdac attached
# tier: full
# timeout: 720
DH_WAY=load
CL_SCSI_DH=
source "${BASH_SOURCE[0]%/*}/663-netapp-rdac.sh"
