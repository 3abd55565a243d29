# shellcheck shell=bash
# Helpers for the scenarios on the LIO ALUA array (tests/cases/alua/).
# Source after tests/lib/common.sh.

LIO=$REPO/tests/lio
# shellcheck source=tests/lio/layout.sh
source "$LIO/layout.sh"
declare -A LIO_DEVS	# LIO_DEVS[g1p0]=/dev/sdX
declare -A LIO_NUM	# LIO_NUM[g1p0]=MAJ:MIN
declare -A LIO_GROUP	# LIO_GROUP[g1p0]=1
LIO_PORTS=()		# g1p0 g1p1 g2p0 ...
export LIO_KEEP_MODULES=${LIO_KEEP_MODULES:-$(per_kernel 0 1)}

# lio_start [lio-up args]: bring the array up, fill LIO_DEVS, LIO_NUM,
# LIO_GROUP and LIO_PORTS, and make sure it is taken down at exit.
lio_start() {
	local out p g d t0
	on_exit "'$LIO/lio-down'"
	t0=${EPOCHREALTIME/./}
	if ! out=$("$LIO/lio-up" "$@" 2>&1); then
		tap_fail "lio-up $*" "$out"
		return 1
	fi
	diag "lio-up took $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
	while read -r p g d; do
		[[ $p =~ ^g[0-9]+p[0-9]+$ ]] || continue
		LIO_DEVS[$p]=$d
		LIO_GROUP[$p]=$g
		LIO_NUM[$p]=$(devnum "$d")
		LIO_PORTS+=("$p")
	done <<<"$out"
	tap_ok "lio-up $*: $(for p in "${LIO_PORTS[@]}"; do printf '%s=%s ' "$p" "${LIO_DEVS[$p]#/dev/}"; done)"
}

lio_stop() {
	local out
	if out=$("$LIO/lio-down" 2>&1); then tap_ok "lio-down"; else tap_fail "lio-down" "$out"; fi
}

lio_ctl() { "$LIO/lio-ctl" "$@"; }
# lio_state_is G STATE: LIO's configfs has group G in STATE (ao, s, ...)
lio_state_is() { [ "$(lio_ctl state "$1")" = "$2" ]; }

# lio_table [FEATURES] [HWH]: a multipath table with one PG per port group,
# in group order, round-robin over the group's ports. FEATURES defaults to
# "0", HWH to "1 alua".
lio_table() {
	local feat=${1:-0} hwh=${2:-1 alua} g p n t pgs
	local -a groups=()
	for p in "${LIO_PORTS[@]}"; do
		[[ " ${groups[*]} " == *" ${LIO_GROUP[$p]} "* ]] || groups+=("${LIO_GROUP[$p]}")
	done
	pgs=""
	for g in "${groups[@]}"; do
		n=0 t=""
		for p in "${LIO_PORTS[@]}"; do
			[ "${LIO_GROUP[$p]}" = "$g" ] || continue
			t+=" ${LIO_NUM[$p]} 1"
			n=$((n + 1))
		done
		pgs+=" round-robin 0 $n 1$t"
	done
	echo "0 $(blockdev --getsz "${LIO_DEVS[${LIO_PORTS[0]}]}") multipath $feat $hwh ${#groups[@]} 1$pgs"
}

# alua_path_state MAP DEV: the ALUA state the handler last saw for DEV
# (MAJ:MIN), from its status words "<maj:min> <tpg> <state>".
alua_path_state() {
	local f i
	read -ra f <<<"$(dmsetup status "$1")" || return 1
	# <#features> words, then <#hwh words> <words>: the handler's are
	# the first MAJ:MIN matches before "<#PGs>".
	for ((i = 0; i < ${#f[@]} - 2; i++)); do
		if [ "${f[i]}" = "$2" ] && [[ ${f[i + 1]} =~ ^([0-9]+|-)$ ]] &&
			[[ ${f[i + 2]} =~ ^[a-z]+$ ]] && [ "${f[i + 2]}" != A ]; then
			echo "${f[i + 2]}"
			return 0
		fi
	done
	return 1
}

# lio_rtpg DEV: the groups and states RTPG reports through DEV (sg_rtpg),
# as "G:STATE G:STATE ..." in the array's order, e.g. "1:ao 2:s".
lio_rtpg() {
	local line out="" g="" st
	while IFS= read -r line; do
		if [[ $line =~ target\ port\ group\ id\ :\ 0x([0-9a-f]+) ]]; then
			g=$((16#${BASH_REMATCH[1]}))
		elif [[ $line =~ asymmetric\ access\ state\ :\ 0x([0-9a-f]+) ]] && [ -n "$g" ]; then
			st=${LIO_STATE_NAME[$((16#${BASH_REMATCH[1]}))]:-?}
			out+="$g:$st "
			g=""
		fi
	done <<<"$(sg_rtpg -d "$1" 2>&1)"
	echo "${out% }"
}

# ---- dm-alua scenarios ------------------------------------------------------
# ALUA_DH=1 (the 55N scenarios): scsi_dh_alua is let load before the array
# comes up, so that it attaches to every port at scan, as on a stock system.
ALUA_DH=${ALUA_DH:-0}

# alua_begin [lio-up args]: the array up (with scsi_dh_alua attached when
# ALUA_DH=1) and our modules plus dm-alua loaded; undone at exit in the
# right order (maps, modules, array, scsi_dh_alua).
alua_begin() {
	local p
	if [ "$ALUA_DH" = 1 ]; then
		diag "stock-system way: scsi_dh_alua attached to every port"
		on_exit "scsi_dh_block scsi_dh_alua"
		check "scsi_dh_alua allowed and loaded" scsi_dh_allow scsi_dh_alua || exit 1
		lio_start --allow-dh "$@" || exit 1
		for p in "${LIO_PORTS[@]}"; do
			check_eq "$p: scsi_dh_alua attached" alua \
				"$(cat "/sys/block/${LIO_DEVS[$p]#/dev/}/device/dh_state")"
		done
	else
		diag "without scsi_dh_alua (blocked)"
		lio_start "$@" || exit 1
	fi
	on_exit mp_mods_unload
	check "modules load (dm-multipath, dm-round-robin, dm-alua)" \
		eval "mp_mods_load && modprobe dm-alua" || exit 1
}

# alua_map NAME [FEATURES] [HWH]: create NAME from lio_table; removed at exit.
alua_map() {
	on_exit "dm_remove $1"
	check "create map $1 (1 PG per port group)" dm_create "$1" "$(lio_table "${2:-0}" "${3:-1 alua}")"
}

# alua_begin_fio: the start the scenarios under I/O share: the array with
# two groups of two ports, map mpalua over it (`1 alua`), a first read (it
# runs pg_init: group 1 is active/optimized), io1/io2 = each group's I/O
# count then, a kernel-log mark, and fio writing through the map, seen on
# group 1's ports.
alua_begin_fio() {
	alua_begin --groups 2 --ports-per-group 2
	alua_map mpalua || return 1
	check "first read (group 1)" dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=4 iflag=direct status=none
	io1=$(group_io 1) io2=$(group_io 2)
	kmsg_mark
	fio_start mpalua 32M
	check "fio is writing through group 1" wait_until 60 group_io_gt 1 $((io1 + 50))
}

# group_io G: reads + writes completed by group G's ports so far.
group_io() {
	local p n=0
	for p in "${LIO_PORTS[@]}"; do
		[ "${LIO_GROUP[$p]}" = "$1" ] || continue
		n=$((n + $(path_reads "${LIO_DEVS[$p]#/dev/}") + $(path_writes "${LIO_DEVS[$p]#/dev/}")))
	done
	echo "$n"
}
group_io_gt() { [ "$(group_io "$1")" -gt "$2" ]; }

# fio_start MAP SIZE: verified random writes through MAP in the background
# (FIO_PID, output in FIO_LOG); fio_check: it ended with status 0, err=0.
fio_start() {
	FIO_LOG=$(mktemp /tmp/alua-fio.XXXXXX)
	# (evaluated at exit: the FIO_PID and FIO_LOG of then)
	# shellcheck disable=SC2016
	on_exit 'kill "$FIO_PID" 2>/dev/null; wait "$FIO_PID" 2>/dev/null; rm -f "$FIO_LOG"'
	fio --name=alua --filename="/dev/mapper/$1" --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=16k --size="$2" --verify=crc32c \
		--verify_fatal=1 --randrepeat=1 --output="$FIO_LOG" >/dev/null 2>&1 &
	FIO_PID=$!
}
fio_check() {
	local rc
	wait "$FIO_PID"
	rc=$?
	check_eq "fio exit status 0 (no I/O error, no verify error)" 0 "$rc"
	check_match "fio reports err=0" "err= 0" "$(cat "$FIO_LOG")"
}
fio_running() { kill -0 "$FIO_PID" 2>/dev/null; }

# port_state MAP PORT: A or F, its fail count in PATH_FAILS.  (common.sh's
# path_state takes the first MAJ:MIN of the status, which with dm-alua is
# in the handler's words: here the one followed by A or F.)
port_state() { mp_path_state "$1" "${LIO_NUM[$2]}"; }
# mp_path_state MAP MAJ:MIN: the same for any path.
mp_path_state() {
	local f i
	read -ra f <<<"$(dmsetup status "$1")" || return 1
	for ((i = 0; i < ${#f[@]} - 2; i++)); do
		if [ "${f[i]}" = "$2" ] && [[ ${f[i + 1]} == [AF] ]]; then
			PATH_FAILS=${f[i + 2]}
			echo "${f[i + 1]}"
			return 0
		fi
	done
	return 1
}
# seen MAP PORT: the ALUA state dm-alua last saw for PORT
seen() { alua_path_state "$1" "${LIO_NUM[$2]}"; }
# port_fails MAP PORT: how often MAP has failed PORT
port_fails() { mp_path_state "$1" "${LIO_NUM[$2]}" >/dev/null && echo "$PATH_FAILS"; }
# check_read_logged DESC BLOCKS: BLOCKS direct 64 KiB reads through mpalua
# succeed; io1 and io2 are the groups' I/O counts from before them, k the
# kernel log since the caller's kmsg_mark.
check_read_logged() {
	io1=$(group_io 1) io2=$(group_io 2)
	check "$1" dd if=/dev/mapper/mpalua of=/dev/null bs=64k count="$2" iflag=direct status=none
	k=$(kmsg_since)
}
# check_group1_out MAP STATE WHAT: group 1 has stopped serving: both its
# ports are failed in MAP, and the handler's status says STATE (WHAT in
# words) of each; it may learn that a moment after the failure.
check_group1_out() {
	local p
	for p in g1p0 g1p1; do
		check_eq "$p failed" F "$(port_state "$1" "$p")"
		check "status: handler saw $p $3" wait_until 20 eval "[ \"\$(seen $1 $p)\" = $2 ]"
	done
}
