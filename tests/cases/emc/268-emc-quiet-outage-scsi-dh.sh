#!/bin/bash
# 258 run the stock-system way: the kernel's scsi_dh_emc attached to every port.
# Runs 258-emc-quiet-outage.sh with CL_SCSI_DH=emc (see 262): after the
# quiet outage, PG2's pg_init again must leave scsi_dh_emc letting the read
# through SP B's port. Blocked again on exit.
# timeout: 300
CL_SCSI_DH=emc
source "${BASH_SOURCE[0]%/*}/258-emc-quiet-outage.sh"
