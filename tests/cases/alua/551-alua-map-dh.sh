#!/bin/bash
# 501 with scsi_dh_alua attached (the stock-system way): pg_init delegated.
# The same scenario as 501-alua-map.sh, but scsi_dh_alua is loaded before
# the array's disks are scanned and attaches to every port; dm-alua's
# pg_init goes through scsi_dh_activate() and its status follows the
# states scsi_dh_alua keeps.
# tier: full (the default run keeps 501-504, 507, 508 and 557 (with scsi_dh_alua))
# timeout: 300
ALUA_DH=1
source "${0%/*}/501-alua-map.sh"
