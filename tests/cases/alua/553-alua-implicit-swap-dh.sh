#!/bin/bash
# 503 with scsi_dh_alua attached (stock-system way): The array swaps the active group under fio.
# The same scenario as 503-alua-implicit-swap.sh, but scsi_dh_alua is loaded before the
# array's disks are scanned and attaches to every port; dm-alua delegates
# pg_init to it (scsi_dh_activate()).
# tier: full (the same steps run without scsi_dh_alua in 50x; 557 keeps scsi_dh_alua in the default run)
# timeout: 300
ALUA_DH=1
source "${0%/*}/503-alua-implicit-swap.sh"
