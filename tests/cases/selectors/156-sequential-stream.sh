#!/bin/bash
# A sequential stream stays on one path per stint and merges there; random I/O spreads.
# Two null_blk paths that take 400 us per request with 2 tags (I/O queues
# in their mq-deadline scheduler, as on a busy array; with 200 us and 4
# tags a slow host's guest once drained the queue between bios: CI saw
# one selector's read-back at under 5 KiB per request, while unloaded
# runs read 18-34 KiB per request), a map over both with
# each per-bio selector (round-robin 1, queue-length, service-time,
# historical-service-time). From the paths' own /sys/block/X/stat:
# - a 4 KiB sequential write at queue depth 32, then its read-back, reach
#   the paths merged (5 KiB or more per request; the target
#   before dm-mpath-stream.c, checked here with sequential_stream_kb=0,
#   alternated paths per bio: under 6 KiB, 4.0-4.3 measured, a
#   load-aware selector now and then choosing one path twice, which
#   historical-service-time, preferring the faster path, does most: 4.9
#   on 7.3.4 at host load 6) and, with
#   stints of 256 KiB (the default), on both paths (9.6-11.7 KiB per
#   write, 29-36 per read measured with these paths);
# - with a stint as large as the stream (sequential_stream_kb=1048576),
#   the share of one path is reported (a diag: on an SMP guest the stream
#   moves between CPUs, each with its own record);
# - 4 KiB random reads at queue depth 32 spread over both paths;
# - a stint is cut to whole requests of its path (stints of 32 KiB, the
#   paths' max_sectors_kb lowered, writes at queue depth 1 from one CPU so
#   that each bio is one request and round-robin 1 alternates the paths
#   between stints): 4 KiB bios into 12 KiB requests make stints of 24
#   KiB (6 bios, then the other path), 12 KiB bios into 20 KiB requests
#   (one bio each) stints of 24 KiB (2 bios), and 4 KiB bios into the
#   paths' own 127 KiB keep the whole 32 KiB (8 bios).
# timeout: 600
source "${0%/*}/rc"

STREAM=/sys/module/dm_multipath/parameters/sequential_stream_kb
NB=/sys/kernel/config/nullb
on_exit "seq_paths_down"
seq_paths_down() {
	local p
	dm_remove mpseq
	for p in sq0 sq1; do
		[ -d "$NB/$p" ] || continue
		echo 0 >"$NB/$p/power"
		rmdir "$NB/$p"
	done
	modprobe -r null_blk
	mp_mods_unload
}
# seq_path NAME: a null_blk path that queues I/O. Not memory-backed: the
# two null_blk devices are not one LUN (each would keep its own copy of
# what went down it), so data is not verified here; 154 and core verify
# data through maps with stints.
seq_path() {
	local a d=$NB/$1
	mkdir "$d" || return 1
	for a in size=64 queue_mode=2 irqmode=2 \
		completion_nsec=400000 submit_queues=1 hw_queue_depth=2; do
		echo "${a#*=}" >"$d/${a%%=*}" || return 1
	done
	echo 1 >"$d/power" && wait_until 10 test -b "/dev/$1" &&
		echo mq-deadline >"/sys/block/$1/queue/scheduler"
}

check "null_blk loads" modprobe null_blk nr_devices=0 || exit 1
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
check "two queued null_blk paths" eval "seq_path sq0 && seq_path sq1" || exit 1
check "our modules load" mp_mods_load || exit 1
check_eq "sequential_stream_kb defaults to 256" 256 "$(cat $STREAM)"
check_fail "sequential_stream_kb past 1048576 is refused" sh -c "echo 1048577 >$STREAM"
check_eq "... and the value is unchanged" 256 "$(cat $STREAM)"
P0=$(devnum /dev/sq0) P1=$(devnum /dev/sq1)
S=$(blockdev --getsz /dev/sq0)

# STAT0/STAT1 after snap: "reads rmerges rsectors writes wmerges wsectors"
# of each path; delta I F: field F's growth on path I since the last snap.
snap() {
	local f
	read -ra f </sys/block/sq0/stat && SNAP0=("${f[0]}" "${f[1]}" "${f[2]}" "${f[4]}" "${f[5]}" "${f[6]}")
	read -ra f </sys/block/sq1/stat && SNAP1=("${f[0]}" "${f[1]}" "${f[2]}" "${f[4]}" "${f[5]}" "${f[6]}")
}
FIELD_IDX=(reads rmerges rsectors writes wmerges wsectors)
delta() {
	local i f now
	for i in "${!FIELD_IDX[@]}"; do [ "${FIELD_IDX[i]}" = "$2" ] && f=$i; done
	read -ra now <"/sys/block/sq$1/stat"
	local cur=("${now[0]}" "${now[1]}" "${now[2]}" "${now[4]}" "${now[5]}" "${now[6]}")
	if [ "$1" = 0 ]; then echo $((cur[f] - SNAP0[f])); else echo $((cur[f] - SNAP1[f])); fi
}
# kib_per_req DIR (r|w): KiB per request over both paths since snap, x10.
kib_per_req() {
	local reqs=writes sectors nreqs
	[ "$1" = r ] && reqs=reads
	sectors=$(($(delta 0 "${1}sectors") + $(delta 1 "${1}sectors")))
	nreqs=$(($(delta 0 $reqs) + $(delta 1 $reqs)))
	[ "$nreqs" -gt 0 ] && echo $((sectors * 10 / 2 / nreqs)) || echo 0
}
# seq_verified: 8 MiB written sequentially in 4 KiB blocks at queue depth
# 32, then read back the same way; checks fio's verdict. fio runs on CPU 0:
# the stint record is per CPU, and a job the scheduler moves between the
# two CPUs starts a stint afresh on each (CI measured 4.7-8.8 KiB per
# request unpinned, 4.0 without stints).
seq_verified() {
	local rc
	fio --name=seqw --filename=/dev/mapper/mpseq --direct=1 --ioengine=libaio \
		--cpus_allowed=0 --iodepth=32 --bs=4k --rw=write --size=8M --output=/dev/null &&
		fio --name=seqr --filename=/dev/mapper/mpseq --direct=1 --ioengine=libaio \
			--cpus_allowed=0 --iodepth=32 --bs=4k --rw=read --size=8M --output=/dev/null
	rc=$?
	check_eq "$1: fio wrote and read 8 MiB without error" 0 "$rc"
}
# share_pct I DIR: path I's share of the sectors in DIR since snap, in %.
share_pct() {
	local k=${2}sectors t
	t=$(($(delta 0 "$k") + $(delta 1 "$k")))
	[ "$t" -gt 0 ] && echo $(($(delta "$1" "$k") * 100 / t)) || echo 0
}

for spec in "round-robin:1" "queue-length:1" "service-time:2:1 1" "historical-service-time:1"; do
	IFS=: read -r sel nargs pargs <<<"$spec"
	pargs=${pargs:-1}
	table="0 $S multipath 0 0 1 1 $sel 0 2 $nargs $P0 $pargs $P1 $pargs"
	check "$sel: map over both paths" dm_create mpseq "$table" || continue

	snap
	seq_verified "$sel: sequential"
	w=$(kib_per_req w) r=$(kib_per_req r)
	diag "$sel, stints of 256 KiB: KiB/request x10 write $w read $r;" \
		"writes (merges) $(delta 0 writes) ($(delta 0 wmerges)) / $(delta 1 writes) ($(delta 1 wmerges));" \
		"reads (merges) $(delta 0 reads) ($(delta 0 rmerges)) / $(delta 1 reads) ($(delta 1 rmerges))"
	check "$sel: sequential writes merged at the paths (>= 5 KiB per request)" test "$w" -ge 50
	check "$sel: sequential reads merged at the paths (>= 5 KiB per request)" test "$r" -ge 50
	check "$sel: both paths got write merges" \
		test "$(delta 0 wmerges)" -gt 0 -a "$(delta 1 wmerges)" -gt 0
	p0=$(share_pct 0 w)
	check "$sel: 256 KiB stints spread the stream (each path 20-80% of it; $p0%)" \
		test "$p0" -ge 20 -a "$p0" -le 80

	echo 1048576 >$STREAM
	snap
	seq_verified "$sel: one stint"
	p0=$(share_pct 0 w)
	diag "$sel, one stint: first path's share of the writes $p0%"

	echo 0 >$STREAM
	snap
	seq_verified "$sel: no stints"
	w=$(kib_per_req w)
	diag "$sel, sequential_stream_kb=0: KiB/request x10 write $w"
	check "$sel: without stints the paths get about 4 KiB requests (< 6 KiB)" test "$w" -lt 60
	echo 256 >$STREAM

	snap
	check "$sel: random reads" fio --name=rnd --filename=/dev/mapper/mpseq --direct=1 \
		--ioengine=libaio --iodepth=32 --bs=4k --rw=randread --size=8M \
		--number_ios=2048 --output=/dev/null
	p0=$(share_pct 0 r)
	diag "$sel, random: reads $(delta 0 reads) / $(delta 1 reads)"
	check "$sel: random reads spread over both paths (each 30-70%; $p0%)" \
		test "$p0" -ge 30 -a "$p0" -le 70
	dm_remove mpseq
done

# stint_split MAX_KB BS_KB COUNT: COUNT writes of BS_KB at queue depth 1
# (dd, direct, pinned to CPU 0: the stint record is per CPU) through a new
# round-robin 1 map (new records) over the paths with max_sectors_kb
# MAX_KB (restored after); prints the two paths' write counts, larger first.
stint_split() {
	local max=$1 bs=$2 count=$3 p old a b
	old=$(cat /sys/block/sq0/queue/max_sectors_kb)
	for p in sq0 sq1; do echo "$max" >"/sys/block/$p/queue/max_sectors_kb" || return 1; done
	dm_create mpseq "0 $S multipath 0 0 1 1 round-robin 0 2 1 $P0 1 $P1 1" || return 1
	udevadm settle --timeout=30 2>/dev/null
	# A map's first bio is routed before its PG is chosen, by the locked
	# slow path, which starts no stint: one read first, elsewhere.
	taskset -c 0 dd if=/dev/mapper/mpseq of=/dev/null bs=4k count=1 iflag=direct status=none
	snap
	taskset -c 0 dd if=/dev/zero of=/dev/mapper/mpseq bs="${bs}k" count="$count" \
		seek=100 oflag=direct status=none || return 1
	a=$(delta 0 writes) b=$(delta 1 writes)
	dm_remove mpseq
	for p in sq0 sq1; do echo "$old" >"/sys/block/$p/queue/max_sectors_kb"; done
	((a >= b)) && echo "$a $b" || echo "$b $a"
}
echo 32 >$STREAM
check_eq "4 KiB bios, 12 KiB requests: 32 KiB stints cut to 24 (6 writes, then the other path)" \
	"6 2" "$(stint_split 12 4 8)"
check_eq "12 KiB bios, 20 KiB requests (one bio each): stints of 2 bios" \
	"2 0" "$(stint_split 20 12 2)"
check_eq "4 KiB bios, 127 KiB requests: the whole 32 KiB stint (8 writes)" \
	"8 0" "$(stint_split 127 4 8)"
echo 256 >$STREAM
