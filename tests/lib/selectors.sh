# shellcheck shell=bash
# Helpers for the path-selector scenarios (tests/cases/selectors/), sourced
# after common.sh. Their paths are dm devices stacked on scsi_debug paths to
# one LUN (shared data), so that one path can be slowed down (dm-delay) or
# made to hold its I/O (a suspended device keeps every bio sent to it until
# it is resumed): a selector's choice then shows in each path's own counters.

# ps_stack SPEC...: a dm device ps<i> over SD_DEVS[i] per SPEC, "linear" or
# "delay:MS" (every I/O held MS ms). Sets PS_NUMS (their MAJ:MIN).
ps_stack() {
	local i=0 spec dev sz t
	PS_NUMS=()
	for spec in "$@"; do
		dev=${SD_DEVS[i]}
		sz=$(blockdev --getsz "$dev") || return 1
		case $spec in
		linear) t="0 $sz linear $dev 0" ;;
		delay:*) t="0 $sz delay $dev 0 ${spec#delay:}" ;;
		*) return 1 ;;
		esac
		dm_create "ps$i" "$t" || return 1
		PS_NUMS+=("$(dmsetup info -c --noheadings -o major,minor --separator : "ps$i")")
		i=$((i + 1))
	done
}
# check_stack DESC SPEC...: ps_stack as a test point, in this shell (it sets
# PS_NUMS); the scenario ends if the paths cannot be set up.
check_stack() {
	local d=$1
	shift
	if ps_stack "$@"; then
		tap_ok "$d"
	else
		tap_fail "$d" "$(dmesg | tail -n 3)"
		exit 1
	fi
}
# ps_unstack: resume (a suspended one would hang its openers) and remove.
ps_unstack() {
	local i
	for i in 0 1 2 3; do
		dmsetup info "ps$i" >/dev/null 2>&1 || continue
		dmsetup resume "ps$i" >/dev/null 2>&1
		dm_remove "ps$i"
	done
}

# Completed reads / writes of a block device given as MAJ:MIN.
dev_reads() { local f; read -ra f <"/sys/dev/block/$1/stat" && echo "${f[0]}"; }
dev_writes() { local f; read -ra f <"/sys/dev/block/$1/stat" && echo "${f[4]}"; }

# ps_words MAP DEV N: the N selector words of path DEV in MAP's INFO status.
ps_words() {
	local f i
	read -ra f <<<"$(dmsetup status "$1")" || return 1
	for ((i = 0; i < ${#f[@]} - 2; i++)); do
		if [ "${f[i]}" = "$2" ]; then
			echo "${f[*]:i+3:$3}"
			return 0
		fi
	done
	return 1
}
ps_words_are() { [ "$(ps_words "$1" "$2" "$3")" = "$4" ]; }

# held_ios MAP N BYTES: N direct reads of BYTES through MAP, all submitted
# by one process in the background (fio, queue depth N): each is mapped,
# and counted in flight by the selector, before the next one is, so with
# paths that hold their I/O the choices follow in a known order. Its PID
# joins RPIDS.
RPIDS=()
held_ios() {
	fio --name=held --filename="/dev/mapper/$1" --rw=read --bs="$3" \
		--size=$(($2 * $3)) --offset=$(((RANDOM % 128) * 131072)) \
		--direct=1 --ioengine=libaio --iodepth="$2" --invalidate=0 \
		--output=/dev/null &
	RPIDS+=($!)
}
# readers_wait: wait for the held readers; READERS_RC is their exit
# statuses ("0 0 ... "). In this shell, not in $(...): they are its children.
readers_wait() {
	local p
	READERS_RC=""
	for p in "${RPIDS[@]}"; do wait "$p"; READERS_RC+="$? "; done
	RPIDS=()
}
# fio_load MAP SECONDS IODEPTH [RW]: random 4 KiB direct I/O through MAP.
fio_load() {
	fio --name=load --filename="/dev/mapper/$1" --rw="${4:-randread}" --bs=4k \
		--direct=1 --ioengine=libaio --iodepth="$3" --runtime="$2" \
		--time_based --size=32m --output=/dev/null
}
