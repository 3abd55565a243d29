# shellcheck shell=bash
# Helpers for the emulated-CLARiiON scenarios (tests/cases/2[0-4]N-*.sh).
# Source after tests/lib/common.sh.

CL=$REPO/tests/clariion
# shellcheck source=tests/clariion/layout.sh
source "$CL/layout.sh"
declare -A CL_DEV	# CL_DEV[A0]=/dev/sdX
CL_PORTS=()		# A0 A1 ... B0 B1 ...
CL_TMP=$(mktemp -d /tmp/clariion-case.XXXXXX)
on_exit "rm -rf '$CL_TMP'"

# cl_trace_lines TOOL OUTPUT: TOOL's time-stamped trace lines as diagnostics
# (in the shell: grep and sed would be two more slow execs on the debug kernel).
cl_trace_lines() {
	local line
	while IFS= read -r line; do
		[[ $line == "$1: "[0-9]* ]] && echo "# $line"
	done <<<"$2"
	return 0
}

# CL_SCSI_DH=emc (set by a "-scsi-dh" scenario before it sources the
# scenario it repeats): the array runs "the stock-system way", with the
# kernel's scsi_dh_emc loaded before the disks appear, so that it attaches
# to every port at scan (as when an initramfs loads it) and filters their
# I/O by its own view of the LUN's owner.  Empty: blocked, as guest-init
# leaves it.
CL_SCSI_DH=${CL_SCSI_DH:-}

# clariion_start [clariion-up args]: bring the array up, fill CL_DEV and
# CL_PORTS, and make sure it is taken down at exit.  With CL_SCSI_DH set,
# also assert that scsi_dh_$CL_SCSI_DH is attached to every port.
clariion_start() {
	local out p d t0 dh
	local up_args=("$@")
	if [ -n "$CL_SCSI_DH" ]; then
		# Blocked again once the disks are gone (on_exit runs last first).
		on_exit "scsi_dh_block scsi_dh_$CL_SCSI_DH"
		if ! scsi_dh_allow "scsi_dh_$CL_SCSI_DH"; then
			tap_fail "load scsi_dh_$CL_SCSI_DH" "modprobe failed"
			return 1
		fi
		up_args+=(--allow-dh)
	fi
	on_exit "'$CL/clariion-down'"
	t0=$(ms_now)
	if ! out=$(CLARIION_TRACE=1 "$CL/clariion-up" "${up_args[@]}" 2>&1); then
		tap_fail "clariion-up $*" "$out"
		return 1
	fi
	diag "clariion-up took $(($(ms_now) - t0)) ms"
	cl_trace_lines clariion-up "$out"
	while read -r p d; do
		[[ $p =~ ^[AB][0-9]$ ]] || continue
		# shellcheck disable=SC2034 # read by the scenarios
		CL_DEV[$p]=$d
		CL_PORTS+=("$p")
	done <<<"$out"
	tap_ok "clariion-up ${up_args[*]}: ${CL_PORTS[*]}"
	[ -n "$CL_SCSI_DH" ] || return 0
	for p in "${CL_PORTS[@]}"; do
		dh=$(cl_dh_state "$p")
		if [ "$dh" != "$CL_SCSI_DH" ]; then
			tap_fail "$p: scsi_dh_$CL_SCSI_DH attached at scan" "dh_state reads '$dh'"
			return 1
		fi
	done
	tap_ok "scsi_dh_$CL_SCSI_DH attached to every port (dh_state)"
}

# cl_dh_state PORT: the port's SCSI device handler ("detached", "emc").
cl_dh_state() {
	local v=""
	{ read -r v <"/sys/block/${CL_DEV[$1]##*/}/device/dh_state"; } 2>/dev/null
	echo "$v"
}

# cl_dh_view PORT: what the attached handler believes of the port:
# "active/optimized" (its SP owns the LUN: I/O passes) or "standby" (I/O is
# refused before it reaches the array).
cl_dh_view() {
	local v=""
	{ read -r v <"/sys/block/${CL_DEV[$1]##*/}/device/access_state"; } 2>/dev/null
	echo "$v"
}

# clariion_stop: take it down now, as a checked step.
clariion_stop() {
	local t0 out
	t0=$(ms_now)
	if out=$(CLARIION_TRACE=1 "$CL/clariion-down" 2>&1); then
		tap_ok "clariion-down"
	else
		tap_fail "clariion-down" "$out"
	fi
	diag "clariion-down took $(($(ms_now) - t0)) ms"
	cl_trace_lines clariion-down "$out"
}

# cl_ctl COMMAND...: clariion-ctl.  Commands that only talk to the emulator
# go to it directly (one process less per call: the guest is slow).
cl_ctl() {
	case $1 in
	fail | restore | ports | dev) "$CL/clariion-ctl" "$@" ;;
	*) "$CL/clariion-emu" --socket "$CL_STATE/ctl.sock" --ctl "$*" ;;
	esac
}

# cl_counter PORT FIELD: one counter of one port (A0); cl_counter SP FIELD:
# that counter summed over the SP's ports (A).
cl_counter() {
	local line port sum=0 found=
	while read -r port line; do
		if [ ${#1} = 1 ]; then
			[ "${port:0:1}" = "$1" ] || continue
		else
			[ "$port" = "$1" ] || continue
		fi
		if [[ " $line " =~ \ $2=([0-9]+)\  ]]; then
			sum=$((sum + BASH_REMATCH[1]))
			found=1
		fi
	done <<<"$(cl_ctl counters)"
	[ -n "$found" ] && echo "$sum"
}
# cl_counter_ge PORT|SP FIELD N: that counter is at least N (for wait_until)
cl_counter_ge() { local v; v=$(cl_counter "$1" "$2") && [ "$v" -ge "$3" ]; }

# scsi_result [sg_raw options] DEV CDB...: run one command with sg_raw and
# print what came back: "good", "conflict", "check KK/AA/QQ" (sense key,
# ASC, ASCQ in hex), "busy", "transport DID_..." (host byte set: the
# command did not complete at the target), or "other: ...".
scsi_result() {
	local out st hex=() line in_raw=0
	out=$(sg_raw -C 1 -vv "$@" 2>&1)
	if [[ $out =~ (DID_[A-Z_]+) ]]; then
		echo "transport ${BASH_REMATCH[1]}"
		return
	fi
	if [[ $out =~ SCSI\ Status:\ ([A-Za-z ]*[a-z]) ]]; then
		st=${BASH_REMATCH[1]}
	else
		st=""
	fi
	case $st in
	Good) echo good ;;
	"Reservation Conflict") echo conflict ;;
	Busy) echo busy ;;
	"Check Condition")
		while IFS= read -r line; do
			if [[ $line == *"Raw sense data"* ]]; then
				in_raw=1
			elif [ $in_raw = 1 ]; then
				[[ $line =~ ^[[:space:]]+[0-9a-f]{2}( |$) ]] || break
				# shellcheck disable=SC2206 # split the hex bytes
				hex+=($line)
			fi
		done <<<"$out"
		case ${hex[0]:-} in
		70 | 71) printf 'check %02x/%s/%s\n' $((16#${hex[2]} & 0x0f)) "${hex[12]}" "${hex[13]}" ;;
		72 | 73) printf 'check %02x/%s/%s\n' $((16#${hex[1]} & 0x0f)) "${hex[2]}" "${hex[3]}" ;;
		*) echo "check ??: ${hex[*]}" ;;
		esac
		;;
	*)
		out=${out//$'\n'/ | }
		echo "other: ${out:0:300}"
		;;
	esac
}

# hexfile FILE BYTE...: write the bytes (hex, e.g. 22 09 81) to FILE.
hexfile() {
	local f=$1 b s=""
	shift
	for b in "$@"; do s+="\\x$b"; done
	printf '%b' "$s" >"$f"
}

# modeselect_result DEV 6|10 BYTE...: MODE SELECT (PF=1) with that
# parameter list (header included), print the result.
modeselect_result() {
	local dev=$1 ten=$2 f=$CL_TMP/ms.$$ n
	shift 2
	hexfile "$f" "$@"
	n=$#
	if [ "$ten" = 10 ]; then
		scsi_result -s "$n" -i "$f" "$dev" 55 10 00 00 00 00 00 00 "$(printf %02x "$n")" 00
	else
		scsi_result -s "$n" -i "$f" "$dev" 15 10 00 00 "$(printf %02x "$n")" 00
	fi
}

# trespass_result DEV FORM CODE: send a trespass and print its result.
# FORM: ms6-long | ms6-short | ms10; CODE: 81 (ignore reservations) or 01.
trespass_result() {
	local dev=$1 form=$2 code=$3
	case $form in
	ms6-long) modeselect_result "$dev" 6 00 00 00 00 22 09 "$code" ff ff 00 00 00 00 00 00 ;;
	ms6-short) modeselect_result "$dev" 6 00 00 00 00 22 02 "$code" ff ;;
	ms10) modeselect_result "$dev" 10 00 00 00 00 00 00 00 00 22 09 "$code" ff ff 00 00 00 00 00 00 ;;
	*) echo "trespass_result: bad form $form" >&2; return 2 ;;
	esac
}

# inq_bytes DEV [PAGE]: standard INQUIRY (or VPD PAGE, hex) as hex bytes,
# one per line.
inq_bytes() {
	local dev=$1 page=${2:-} f=$CL_TMP/inq.$$ x
	rm -f "$f"
	if [ -z "$page" ]; then
		sg_raw -C 1 -n -r 255 -o "$f" "$dev" 12 00 00 00 ff 00 >/dev/null 2>&1
	else
		sg_raw -C 1 -n -r 255 -o "$f" "$dev" 12 01 "$page" 00 ff 00 >/dev/null 2>&1
	fi
	[ -s "$f" ] || return 1
	x=$(od -An -v -tx1 "$f")
	# shellcheck disable=SC2086 # one byte per line
	printf '%s\n' ${x}
}

# vpd_byte DEV PAGE OFFSET: one byte of a VPD page, as decimal.
vpd_byte() {
	local -a b
	mapfile -t b <<<"$(inq_bytes "$1" "$2")"
	[ -n "${b[$3]:-}" ] || return 1
	echo $((16#${b[$3]}))
}

# cl_reset: owner A, no reservation, every control off.
cl_reset() {
	cl_ctl owner A >/dev/null && cl_ctl ndu off >/dev/null &&
		cl_ctl ua off >/dev/null && cl_ctl reject-trespass off >/dev/null &&
		cl_ctl delay-trespass 0 >/dev/null && cl_ctl clear-reservation >/dev/null
}

# ms_now: wall clock in milliseconds (EPOCHREALTIME: no date process).
ms_now() { local us=${EPOCHREALTIME//[!0-9]/}; echo $((us / 1000)); }
