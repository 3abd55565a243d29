#!/bin/bash
# 507 with scsi_dh_alua attached (stock-system way): Every port of the active group fails.
# The same scenario as 507-alua-failover.sh, but scsi_dh_alua is loaded before the
# array's disks are scanned and attaches to every port; dm-alua delegates
# pg_init to it (scsi_dh_activate()).
# timeout: 300
ALUA_DH=1
source "${0%/*}/507-alua-failover.sh"
