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
