# shellcheck shell=bash disable=SC2034  # (sourced: the users are elsewhere)
# What the iSCSI SAN is made of, named once for san-up (which builds it),
# san-ctl and san-down (which find it) and the scenarios.
SAN_STATE=${ISCSI_SAN_DIR:-/tmp/iscsi-san}	# links, premods, iscsid.pid, flap.N.pid, log
SAN_NETNS=tgt				# the target's network namespace
SAN_NSFILE=/run/netns/$SAN_NETNS
SAN_CONFIGFS=/sys/kernel/config/target
SAN_HBA=rd_mcp_60			# ramdisk HBA: core/rd_mcp_60/lun<L>
SAN_IQN=iqn.2003-01.org.linux-iscsi.mptest:san
SAN_SERIAL_PREFIX=mptestiscsi		# + LUN number: wwn/vpd_unit_serial
SAN_PORT=3260
# Link i (0-based): initiator end vi<i> 10.60.<i+1>.1 in the root
# namespace, target end vt<i> 10.60.<i+1>.2 in $SAN_NETNS, target portal
# group tpgt_<i+1> listening on the target end only.
san_ini_if() { echo "vi$1"; }
san_tgt_if() { echo "vt$1"; }
san_ini_ip() { echo "10.60.$(($1 + 1)).1"; }
san_tgt_ip() { echo "10.60.$(($1 + 1)).2"; }
SAN_INI_MODS="iscsi_tcp libiscsi_tcp libiscsi scsi_transport_iscsi"	# (san-down without a record)
