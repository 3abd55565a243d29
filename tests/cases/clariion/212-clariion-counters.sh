#!/bin/bash
# Emulated CLARiiON per-port counters: exact counts, reset, format.
# Emulated CLARiiON per-port counters: exact counts for a known sequence of
# commands, "reset-counters" zeroes them, format is one line per port.
# tier: full (the emulator's own behaviour, checked whenever it changes; the emc family drives it in the default run)
# timeout: 150
source "${0%/*}/rc"

clariion_start || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}

check "reset-counters" cl_ctl reset-counters
check_eq "all zero" \
	"A0 trespass=0 cmds=0 media=0 passive_rejects=0 trespass_ok=0 conflicts=0 ua=0 moved=0
B0 trespass=0 cmds=0 media=0 passive_rejects=0 trespass_ok=0 conflicts=0 ua=0 moved=0" "$(cl_ctl counters)"
for _ in 1 2 3; do scsi_result "$A0" 00 00 00 00 00 00 >/dev/null; done	# 3 media
for _ in 1 2; do scsi_result -r 512 "$A0" 28 00 00 00 00 00 00 00 01 00 >/dev/null; done # 2 media
scsi_result -r 36 "$A0" 12 00 00 00 24 00 >/dev/null	# not media
for _ in 1 2 3 4; do scsi_result "$B0" 00 00 00 00 00 00 >/dev/null; done	# 4 passive
scsi_result -r 255 "$B0" 1a 00 3f 00 ff 00 >/dev/null	# not media
trespass_result "$B0" ms6-long 81 >/dev/null		# trespass, moves the LUN
scsi_result -r 512 "$B0" 28 00 00 00 00 00 00 00 01 00 >/dev/null # media, now owner
scsi_result "$A0" 00 00 00 00 00 00 >/dev/null		# passive now
check_eq "A0 counters" "A0 trespass=0 cmds=7 media=6 passive_rejects=1 trespass_ok=0 conflicts=0 ua=0 moved=0" \
	"$(cl_ctl counters | grep '^A0 ')"
check_eq "B0 counters" "B0 trespass=1 cmds=7 media=5 passive_rejects=4 trespass_ok=1 conflicts=0 ua=0 moved=1" \
	"$(cl_ctl counters | grep '^B0 ')"
check_eq "cl_counter helper" 4 "$(cl_counter B0 passive_rejects)"
check "reset-counters again" cl_ctl reset-counters
check_eq "zero again" 0 "$(cl_counter B0 cmds)"
check_fail "unknown control command fails" cl_ctl frobnicate
check_match "with an error message" '^error:' "$(cl_ctl frobnicate 2>&1)"

clariion_stop
