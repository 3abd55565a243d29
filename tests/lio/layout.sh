# shellcheck shell=bash disable=SC2034  # (sourced: the users are elsewhere)
# The LIO ALUA array's names, and how a port is made: sourced by lio-up
# (which creates it), lio-ctl and lio-down (which find it).
#
# One LUN on a ramdisk backstore, N target port groups of M ports each.
# A port is whatever gives the host one SCSI device (one I_T nexus) to the
# LUN through one LIO target port.  Today that is a tcm_loop target per
# port; lio_port_create / lio_port_remove are the only two functions that
# know that, so an iSCSI portal (one iscsi tpgt per port, logged in with
# iscsiadm) can replace them without touching the rest.
LIO_STATE=${LIO_DIR:-/tmp/lio-alua}	# ports, groups, transition pids
LIO_CONFIGFS=/sys/kernel/config/target
LIO_HBA=rd_mcp_210			# core/rd_mcp_210/alua_lun
LIO_LUN=alua_lun
LIO_DEV=$LIO_CONFIGFS/core/$LIO_HBA/$LIO_LUN
LIO_SERIAL=a1a0c0de0001			# wwn/vpd_unit_serial: the LUN's wwid
LIO_WWN_PREFIX=naa.50014050a1a0	# + 2 hex group + 2 hex port: tcm_loop target
LIO_INI_PREFIX=naa.50014051a1a0	# initiator side of each nexus
# Unload order: each before the modules it holds.
LIO_TARGET_MODS="tcm_loop target_core_user target_core_pscsi target_core_file target_core_iblock target_core_mod uio"

# ALUA access states as configfs writes and reads them (alua_access_state).
declare -A LIO_STATE_NUM=([ao]=0 [an]=1 [s]=2 [u]=3 [lbd]=4 [o]=14 [t]=15)
declare -A LIO_STATE_NAME=([0]=ao [1]=an [2]=s [3]=u [4]=lbd [14]=o [15]=t)
# alua_access_type: 1 implicit, 2 explicit, 3 both.
declare -A LIO_TYPE_NUM=([implicit]=1 [explicit]=2 [both]=3)

lio_group_dir() { echo "$LIO_DEV/alua/tpg_$1"; }	# lio_group_dir GROUP

# lio_port_create NAME GROUP: one target port exporting the LUN, joined to
# target port group GROUP (1..99, port NAME is "g<G>p<P>"). Sets PORT_TPG
# (the port's configfs portal group, where transport_status lives) and
# PORT_HCTL (the host's SCSI address of the LUN through it). Returns
# non-zero with a message on stderr on failure.
lio_port_create() {
	local name=$1 group=$2 g p hex tpg addr host tgt
	g=${name#g}; g=${g%%p*}; p=${name##*p}
	printf -v hex '%02x%02x' "$g" "$p"
	tpg=$LIO_CONFIGFS/loopback/$LIO_WWN_PREFIX$hex/tpgt_1
	mkdir -p "$LIO_CONFIGFS/loopback" "$tpg" || { echo "mkdir $tpg failed" >&2; return 1; }
	echo "$LIO_INI_PREFIX$hex" >"$tpg/nexus" || { echo "creating the nexus of $tpg failed" >&2; return 1; }
	mkdir -p "$tpg/lun/lun_0" || { echo "mkdir $tpg/lun/lun_0 failed" >&2; return 1; }
	# Linking scans the LUN (scsi_add_device) at once, still in the
	# default port group: the caller rescans once the groups are set.
	ln -s "$LIO_DEV" "$tpg/lun/lun_0/$LIO_LUN" || { echo "linking the LUN of $name failed" >&2; return 1; }
	echo "tpg_$group" >"$tpg/lun/lun_0/alua_tg_pt_gp" ||
		{ echo "joining $name to port group tpg_$group failed" >&2; return 1; }
	addr=""
	{ read -r addr <"$tpg/address"; } 2>/dev/null
	[ -n "$addr" ] || { echo "no SCSI host for port $name" >&2; return 1; }
	IFS=: read -r host _ tgt <<<"$addr"
	PORT_TPG=$tpg
	PORT_HCTL=$host:0:$tgt:0
}

# lio_port_remove TPG: undo lio_port_create (removes the SCSI device).
lio_port_remove() {
	local tpg=$1 lun l nexus rc=0
	[ -d "$tpg" ] || return 0
	echo online >"$tpg/transport_status" 2>/dev/null
	for lun in "$tpg"/lun/lun_*; do
		[ -d "$lun" ] || continue
		for l in "$lun"/*; do
			[ -L "$l" ] && rm -f "$l"
		done
		rmdir "$lun" || rc=1
	done
	nexus=""
	{ read -r nexus <"$tpg/nexus"; } 2>/dev/null
	[ -z "$nexus" ] || echo NULL >"$tpg/nexus" 2>/dev/null
	rmdir "$tpg" || rc=1
	rmdir "${tpg%/tpgt_1}" || rc=1
	return $rc
}

# lio_port_online TPG online|offline: the port's link (tcm_loop answers
# every command with DID_TRANSPORT_DISRUPTED while offline).
lio_port_online() { echo "$2" >"$1/transport_status"; }
