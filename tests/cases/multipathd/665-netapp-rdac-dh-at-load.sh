#!/bin/bash
# 663 with scsi_dh_rdac loadable but not attached at scan: the table load attaches it (dm-scsi-dh), the same table and moves.
# Runs 663-netapp-rdac.sh with DH_WAY=load: scsi_dh_rdac is allowed after
# the disks appeared, so no port has a handler when multipathd starts; it
# writes "1 rdac" from its built-in entry (not from the attached handler)
# and dm-scsi-dh attaches scsi_dh_rdac to every path at table load, as
# Linux 6.1's target does.
# tier: full
# timeout: 720
DH_WAY=load
CL_SCSI_DH=
source "${BASH_SOURCE[0]%/*}/663-netapp-rdac.sh"
