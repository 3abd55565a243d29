#!/bin/bash
# multipathd 0.9.4 on the emulated RDAC array (NETAPP INF-01-00) with scsi_dh_rdac attached at scan: 1 rdac through dm-scsi-dh, one move per failover and failback.
# The stock-system way: scsi_dh_rdac is loaded before the disks appear and
# attaches to every port; multipathd's built-in E-Series entry writes
# "3 queue_if_no_path pg_init_retries 50 1 rdac", group_by_prio with the
# rdac prioritizer (controller A, owner and preferred: prio 6, B: 1), the
# rdac checker (B's paths "ghost"), failback immediate; our target serves
# "rdac" through dm-scsi-dh. With fio writing and verifying, A's ports
# fail: scsi_dh_rdac's MODE SELECT (page 0x2C) moves the LUN to B once and
# I/O goes on; when they return, multipathd fails back and the LUN moves
# to A once; the data verifies. The emulator counts every move request
# and every move (tests/lib/mpd-array.sh); 664 runs the same on the
# distro's dm-multipath (the oracle), 665 with scsi_dh_rdac attached only
# at table load.
# Full tier for its time (5-6 min of guest time on a loaded host); the
# default run covers dm-scsi-dh in 270 (hp_sw over scsi_debug) and
# multipathd on the emulated array in 660 (the CLARiiON).
# tier: full
# timeout: 720
source "${0%/*}/rc"
CL_SCSI_DH=${CL_SCSI_DH-rdac}
source "$REPO/tests/clariion/lib.sh"
ARRAY=rdac
source "$REPO/tests/lib/mpd-array.sh"
mpd_array_run
