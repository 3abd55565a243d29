#!/bin/bash
# 255 run the stock-system way: the kernel's scsi_dh_emc attached to every port.
# Runs 255-emc-trespass-forms.sh with CL_SCSI_DH=emc: scsi_dh_emc
# is let load before the array's disks are scanned, so that it attaches to
# each port (asserted: dh_state reads "emc") and refuses I/O on a port whose
# SP it believes does not own the LUN. dm-emc must keep its view in step
# with every trespass, or I/O on the new owner's ports fails. Blocked again
# on exit.
# tier: full (scsi_dh_emc attached; 262 keeps that way in the default run)
# timeout: 400
CL_SCSI_DH=emc
source "${BASH_SOURCE[0]%/*}/255-emc-trespass-forms.sh"
