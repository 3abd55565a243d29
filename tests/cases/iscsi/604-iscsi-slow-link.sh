#!/bin/bash
# One iSCSI link 10x slower (netem delay): each path's share of the I/O.
# Two links; each path's 4 KiB read latency is measured on its own, then
# netem delays the initiator end of link p0 so that its latency is about
# ten times the other's.  fio reads through a map over both paths, once per
# path selector built here (round-robin; service-time and queue-length if
# present), and each path's share of the completed I/O is reported from
# /sys/block/sdX/stat.  Round-robin alternates regardless of latency (about
# half each); service-time and queue-length must favour the fast path.
# Runs without multipathd, with our target.
# tier: full (the default run keeps 601 (cuts one by one, three ways) and 602)
# timeout: 480
source "${0%/*}/rc"

san_start --links 2 || { tap_fail "san-up: 2 links"; exit 1; }
tap_ok "san-up: 2 links"
check "modules load" mp_mods_load
on_exit "dm_remove mps; mp_mods_unload"
P=("${SAN_NUMS[@]}") N=("${SAN_NAMES[@]}")
S=$(blockdev --getsz "${SAN_DEVS[0]}")
on_exit "san_ctl restore all"
check "fill the LUN's first 16 MiB" dd if=/dev/urandom of="${SAN_DEVS[0]}" bs=1M count=16 oflag=direct status=none

# clat_us DEV SECS [IODEPTH]: mean completion latency of 4 KiB random reads
clat_us() {
	fio --name=lat --filename="$1" --direct=1 --ioengine=libaio --iodepth="${3:-1}" \
		--bs=4k --rw=randread --size=16M --time_based --runtime="$2" \
		--output-format=json 2>/dev/null | jq '.jobs[0].read.clat_ns.mean / 1000 | floor'
}
l0=$(clat_us "${SAN_DEVS[0]}" 3) l1=$(clat_us "${SAN_DEVS[1]}" 3)
diag "4 KiB read latency, QD1: p0 ${l0} us, p1 ${l1} us"
check "latencies measured" test "${l0:-0}" -gt 0 -a "${l1:-0}" -gt 0
base=$(((l0 + l1) / 2))
d=$((9 * base / 1000))
[ "$d" -ge 1 ] || d=1
check "delay p0 by $d ms (9x the mean latency)" san_ctl delay p0 "$d"
l0s=$(clat_us "${SAN_DEVS[0]}" 3)
diag "p0 with the delay: ${l0s} us ($((l0s / (base > 0 ? base : 1)))x)"
check "p0 is at least 5x slower than before" test "${l0s:-0}" -ge $((5 * base))

share() { # share SELECTOR: run fio through a map using it, report shares
	local sel=$1 b0 b1 d0 d1 lat
	dm_create mps "0 $S multipath 0 0 1 1 $sel 0 2 1 ${P[0]} 1 ${P[1]} 1" ||
		{ tap_fail "create a $sel map"; return 1; }
	b0=$(io_of "${N[0]}") b1=$(io_of "${N[1]}")
	lat=$(clat_us /dev/mapper/mps 5 8)
	d0=$(($(io_of "${N[0]}") - b0)) d1=$(($(io_of "${N[1]}") - b1))
	SHARE0=$((100 * d0 / (d0 + d1 > 0 ? d0 + d1 : 1)))
	diag "$sel: p0 (slow) $d0 I/Os, p1 (fast) $d1 I/Os: slow path's share $SHARE0%; mean latency through the map ${lat} us (QD8)"
	check "$sel: both paths completed I/O" test "$d0" -gt 0 -a "$d1" -gt 0
	dm_remove mps
}
share round-robin
check "round-robin: the slow path gets about half (40-60%): $SHARE0%" test "$SHARE0" -ge 40 -a "$SHARE0" -le 60
for sel in service-time queue-length; do
	if [ -e "$KO_DIR/dm-$sel.ko" ]; then
		check "modprobe dm-$sel" modprobe "dm-$sel"
		on_exit "modprobe -r dm-$sel"
		share "$sel"
		check "$sel: the fast path gets most of the I/O (slow path's share < 40%): $SHARE0%" test "$SHARE0" -lt 40
		modprobe -r "dm-$sel"
	else
		diag "$sel: not built in this tree (dm-$sel.ko absent), not measured"
	fi
done
check "modules unload" mp_mods_unload
