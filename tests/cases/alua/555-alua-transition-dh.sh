#!/bin/bash
# 505 with scsi_dh_alua attached (stock-system way): Transitioning groups.
# The same scenario as 505-alua-transition.sh, but scsi_dh_alua is loaded before the
# array's disks are scanned and attaches to every port; dm-alua delegates
# pg_init to it (scsi_dh_activate()).
# tier: full (the same steps run without scsi_dh_alua in 50x; 557 keeps scsi_dh_alua in the default run)
# timeout: 300
ALUA_DH=1
source "${0%/*}/505-alua-transition.sh"
