#!/bin/bash
# Each selector under verified I/O while paths fail and come back.
# For queue-length, service-time and historical-service-time in turn: a map
# over three scsi_debug paths to one LUN, fio writing and verifying
# (crc32c, 2 jobs, queue depth 16) while paths are failed by message and by
# I/O errors (device offline) and reinstated. fio must verify every block;
# every path ends active; the selector's in-flight counters (INFO) all end
# at 0, so every start_io was matched by an end_io, retries included.
# timeout: 420
source "${0%/*}/rc"

mp_fixture 3 mpfo -- delay=0
D=("${DEVNUMS[@]}") N=("${SD_NAMES[@]}") S=$SECTORS

# churn: fail and reinstate each path in turn until the file $1 is gone.
churn() {
	local i=0 p n
	while [ -e "$1" ]; do
		p=${D[i % 3]} n=${N[(i + 1) % 3]}
		dmsetup message mpfo 0 fail_path "$p"
		path_offline "$n"
		sleep 0.4
		dmsetup message mpfo 0 reinstate_path "$p"
		path_running "$n"
		sleep 0.2
		# a path failed by its I/O errors comes back by message
		dmsetup message mpfo 0 reinstate_path "${DEVNUMS[(i + 1) % 3]}" 2>/dev/null
		i=$((i + 1))
	done
}
for sel in queue-length service-time historical-service-time; do
	# INFO words of a path with nothing in flight
	case $sel in
	queue-length) nw=1 idle="^0$" ;;
	service-time) nw=2 idle="^0 1$" ;;
	*) nw=3 idle="^[0-9]+ 0 [0-9]+$" ;;
	esac
	check "$sel map over 3 paths" dm_create mpfo \
		"0 $S multipath 0 0 1 1 $sel 0 3 0 ${D[0]} ${D[1]} ${D[2]}"
	flag=/tmp/churn.$$
	touch "$flag"
	churn "$flag" >/dev/null 2>&1 &
	cpid=$!
	out=$(fio --name=verify --filename=/dev/mapper/mpfo --rw=randwrite --bs=4k \
		--direct=1 --ioengine=libaio --iodepth=16 --numjobs=2 --size=8m \
		--offset_increment=8m --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --group_reporting 2>&1)
	rc=$?
	rm -f "$flag"
	wait "$cpid"
	check_eq "$sel: fio wrote and verified every block through the churn" 0 "$rc" ||
		diag "${out:0:1500}"
	check_match "$sel: fio reports no error" "err= *0" "$out"
	for i in 0 1 2; do
		path_running "${N[i]}"
		dmsetup message mpfo 0 reinstate_path "${D[i]}" 2>/dev/null
	done
	fails=0
	for i in 0 1 2; do
		path_fields mpfo "${D[i]}"
		check_eq "$sel: path $((i + 1)) active again" A "$PATH_STATE"
		fails=$((fails + PATH_FAILS))
		check_match "$sel: path $((i + 1)): nothing in flight" "$idle" \
			"$(ps_words mpfo "${D[i]}" "$nw")"
	done
	diag "$sel: $fails path failures during the run"
	check "$sel: paths failed during the run (fail counts add up to 2 or more)" test "$fails" -ge 2
	dm_remove mpfo
done
check "modules unload" mp_mods_unload
