#!/bin/bash
# 504 with scsi_dh_alua attached (stock-system way): switch_group to a standby group.
# The same scenario as 504-alua-explicit-switch.sh, but scsi_dh_alua is loaded before the
# array's disks are scanned and attaches to every port; dm-alua delegates
# pg_init to it (scsi_dh_activate()).
# tier: full (the default run keeps 501-504, 507, 508 and 557 (with scsi_dh_alua))
# timeout: 300
ALUA_DH=1
source "${0%/*}/504-alua-explicit-switch.sh"
