#!/bin/bash
# multipathd 0.9.4 on the emulated HP MSA1000 with scsi_dh_hp_sw attached at scan: 1 hp_sw through dm-scsi-dh, one move per failover and per (manual) failback.
# The stock-system way: scsi_dh_hp_sw is loaded before the disks appear and
# attaches to every port (the kernel's scsi_dh table names "COMPAQ MSA1000
# VOLUME"); multipathd's built-in "(COMPAQ|HP) (MSA|HSV)1[01]0" entry writes
# "1 queue_if_no_path 1 hp_sw", group_by_prio with the hp_sw prioritizer
# (active controller A: 4, passive B: 2), the hp_sw checker (B's paths
# "ghost"), failback manual (the default); our target serves "hp_sw"
# through dm-scsi-dh. With fio writing and verifying, A's ports fail:
# scsi_dh_hp_sw's START STOP UNIT moves the LUN to B once and I/O goes on;
# when they return they come back passive and nothing moves until the
# admin switches to their PG (multipathd switchgroup): the LUN moves to A
# once; the data verifies (tests/lib/mpd-array.sh). 667 runs the same on
# the distro's dm-multipath (the oracle), 668 with scsi_dh_hp_sw attached
# only at table load.
# Full tier for its time (5-6 min of guest time on a loaded host); the
# default run covers dm-scsi-dh in 270 (hp_sw over scsi_debug) and
# multipathd on the emulated array in 660 (the CLARiiON).
# tier: full
# timeout: 720
source "${0%/*}/rc"
CL_SCSI_DH=${CL_SCSI_DH-hp_sw}
source "$REPO/tests/clariion/lib.sh"
ARRAY=hpsw
source "$REPO/tests/lib/mpd-array.sh"
mpd_array_run
