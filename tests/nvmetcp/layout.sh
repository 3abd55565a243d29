# shellcheck shell=bash disable=SC2034  # (sourced: the users are elsewhere)
# What the NVMe/TCP fabric is made of, named once for nvme-up (which builds
# it), nvme-ctl and nvme-down (which find it) and the scenarios.  Its own
# names throughout (namespace, interfaces, subnets, state directory), so
# that it and the iSCSI SAN (tests/iscsi) never take each other's parts.
NVT_STATE=${NVMETCP_DIR:-/tmp/nvmetcp}	# links, premods, ourmods, changed.N
NVT_NETNS=nvtgt				# the target's network namespace
NVT_NSFILE=/run/netns/$NVT_NETNS
NVT_CONFIGFS=/sys/kernel/config/nvmet
NVT_NQN=nqn.2014-08.org.mptest:nvmetcp		# the subsystem
NVT_HOSTNQN=nqn.2014-08.org.mptest:host		# the host (allow_any_host)
# Its host ID, given with the NQN: 6.12's nvme_fabrics refuses a connect
# whose host NQN differs from that of a known host with the same ID ("found
# same hostid ... but different hostnqn"), and without one it takes the
# default host's ID.
NVT_HOSTID=6d707465-7374-4e56-8d65-0000000000f0
# The namespace's UUID: its wwid ("uuid.<this>") is the same every run.
NVT_NS_UUID=6d707465-7374-4e56-8d65-000000000001
NVT_RAMDISK=/dev/ram0			# brd rd_nr=1: the namespace's backing
NVT_PORT=4420
# Link i (0-based): host end ni<i> 10.62.<i+1>.1 in the root namespace,
# target end nt<i> 10.62.<i+1>.2 in $NVT_NETNS; nvmet port <i+1> listens on
# the target end only.
nvt_ini_if() { echo "ni$1"; }
nvt_tgt_if() { echo "nt$1"; }
nvt_ini_ip() { echo "10.62.$(($1 + 1)).1"; }
nvt_tgt_ip() { echo "10.62.$(($1 + 1)).2"; }
# Modules, for nvme-down without a record of what nvme-up loaded.
NVT_MODS="nvme_tcp nvme_fabrics nvme_core nvmet_tcp nvmet brd sch_netem veth"
