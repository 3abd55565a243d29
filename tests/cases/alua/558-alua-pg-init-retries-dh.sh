#!/bin/bash
# 508 with scsi_dh_alua attached (stock-system way): pg_init_retries.
# The same scenario as 508-alua-pg-init-retries.sh, but scsi_dh_alua is loaded before the
# array's disks are scanned and attaches to every port; dm-alua delegates
# pg_init to it (scsi_dh_activate()).
# tier: full (the same steps run without scsi_dh_alua in 50x; 557 keeps scsi_dh_alua in the default run)
# timeout: 300
ALUA_DH=1
source "${0%/*}/508-alua-pg-init-retries.sh"
