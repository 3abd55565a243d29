# shellcheck shell=bash
# Two SCSI paths to one LUN whose halves can fail independently, for the
# flaky-path benchmark (bench/cases/900-flaky.sh). Sourced after
# tests/lib/common.sh, inside the guest.
#
# multipathd takes only SCSI (or NVMe, DASD) disks as paths, and the
# kernel's fault injection that fails one path only (dm-flakey) works on a
# block device. So each path is its own LIO iblock backstore over its own
# device-mapper layer, both layers over one null_blk disk, and both
# backstores carry the same unit serial: the host sees two disks (one
# tcm_loop target each) with one WWID, i.e. two paths to one LUN, and a
# dm-flakey table loaded into path A's layer fails path A only. A TEST
# UNIT READY is answered by LIO itself, so multipathd's checker finds the
# sick path healthy, as it does a real one whose cable drops I/O.
#
#   lio_pair_up BACKING_DEV   sets PAIR_DEVS=(sdA sdB), PAIR_LAYERS=(A B)
#   lio_pair_down           (the caller registers it: after its maps go,
#                            before udevd stops)

PAIR_CONFIGFS=/sys/kernel/config/target
PAIR_HBA=iblock_900
PAIR_SERIAL=f1a7e0900001	# vpd_unit_serial of both: the LUN's WWID
PAIR_WWN=naa.50014050f1a790	# + port number: the tcm_loop targets
PAIR_INI=naa.50014051f1a790	# their initiator sides
PAIR_LAYER_PREFIX=flaky-layer-
PAIR_DEVS=() PAIR_LAYERS=()

# pair_layer_table NAME TABLE: load TABLE into layer NAME (suspend waits
# for the layer's I/O in flight; resume runs the new table's constructor,
# which is where dm-flakey takes its start time).
pair_layer_table() {
	dmsetup load "$PAIR_LAYER_PREFIX$1" --table "$2" &&
		dmsetup suspend "$PAIR_LAYER_PREFIX$1" &&
		dmsetup resume "$PAIR_LAYER_PREFIX$1"
}

_pair_port_up() { # _pair_port_up N BACKSTORE: prints sdX
	local n=$1 bs=$2 tpg addr host tgt sd="" t b
	tpg=$PAIR_CONFIGFS/loopback/$PAIR_WWN$n/tpgt_1
	mkdir -p "$tpg" || return 1
	echo "$PAIR_INI$n" >"$tpg/nexus" || return 1
	mkdir -p "$tpg/lun/lun_0" || return 1
	ln -s "$PAIR_CONFIGFS/core/$PAIR_HBA/$bs" "$tpg/lun/lun_0/$bs" || return 1
	read -r addr <"$tpg/address" || return 1
	IFS=: read -r host _ tgt <<<"$addr"
	for ((t = 0; t < 300; t++)); do
		for b in /sys/bus/scsi/devices/"$host:0:$tgt:0"/block/*; do
			[ -e "$b" ] && sd=${b##*/}
		done
		[ -n "$sd" ] && [ -b "/dev/$sd" ] && break
		sd=""
		sleep 0.1
	done
	[ -n "$sd" ] && echo "$sd"
}

lio_pair_up() {
	local backing=$1 size p d sd
	size=$(blockdev --getsz "$backing") || return 1
	[ -d /sys/module/target_core_mod ] || modprobe target_core_mod || return 1
	[ -d /sys/module/target_core_iblock ] || modprobe target_core_iblock || return 1
	[ -d /sys/module/tcm_loop ] || modprobe tcm_loop || return 1
	for p in A B; do
		dmsetup create "$PAIR_LAYER_PREFIX$p" --table "0 $size linear $backing 0" || return 1
		dmsetup mknodes "$PAIR_LAYER_PREFIX$p" >/dev/null 2>&1
		PAIR_LAYERS+=("$p")
		d=$PAIR_CONFIGFS/core/$PAIR_HBA/path$p
		mkdir -p "$d" || return 1
		echo "udev_path=/dev/mapper/$PAIR_LAYER_PREFIX$p" >"$d/control" || return 1
		# Before export: the serial is the NAA designator, the WWID.
		echo "$PAIR_SERIAL" >"$d/wwn/vpd_unit_serial" || return 1
		echo 1 >"$d/enable" || return 1
	done
	for p in A B; do
		sd=$(_pair_port_up "$([ $p = A ] && echo 1 || echo 2)" "path$p") || return 1
		PAIR_DEVS+=("$sd")
	done
}

lio_pair_down() {
	local w tpg lun l p rc=0
	for w in "$PAIR_CONFIGFS"/loopback/"$PAIR_WWN"*; do
		[ -d "$w" ] || continue
		tpg=$w/tpgt_1
		for lun in "$tpg"/lun/lun_*; do
			[ -d "$lun" ] || continue
			for l in "$lun"/*; do [ -L "$l" ] && rm -f "$l"; done
			rmdir "$lun" || { echo "lio_pair_down: rmdir $lun failed" >&2; rc=1; }
		done
		echo NULL >"$tpg/nexus" 2>/dev/null
		rmdir "$tpg" "$w" || { echo "lio_pair_down: rmdir $tpg failed" >&2; rc=1; }
	done
	[ -d "$PAIR_CONFIGFS/loopback" ] && rmdir "$PAIR_CONFIGFS/loopback" 2>/dev/null
	for p in A B; do
		[ -d "$PAIR_CONFIGFS/core/$PAIR_HBA/path$p" ] &&
			{ rmdir "$PAIR_CONFIGFS/core/$PAIR_HBA/path$p" ||
				{ echo "lio_pair_down: backstore path$p stays" >&2; rc=1; }; }
	done
	[ -d "$PAIR_CONFIGFS/core/$PAIR_HBA" ] &&
		{ rmdir "$PAIR_CONFIGFS/core/$PAIR_HBA" || { echo "lio_pair_down: $PAIR_HBA stays" >&2; rc=1; }; }
	for p in A B; do
		dmsetup info "$PAIR_LAYER_PREFIX$p" >/dev/null 2>&1 &&
			{ dm_remove "$PAIR_LAYER_PREFIX$p" || { echo "lio_pair_down: layer $p stays" >&2; rc=1; }; }
	done
	# (target_core_mod loads its file, pscsi and user backstores itself)
	for m in tcm_loop target_core_user target_core_pscsi target_core_file \
		target_core_iblock target_core_mod uio; do
		[ -d "/sys/module/$m" ] && { mod_unload_retry "$m" ||
			{ echo "lio_pair_down: module $m stays (refcnt $(cat /sys/module/$m/refcnt))" >&2; rc=1; }; }
	done
	PAIR_DEVS=() PAIR_LAYERS=()
	return $rc
}
