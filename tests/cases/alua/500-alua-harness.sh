#!/bin/bash
# The LIO ALUA array itself: groups, ports and states as the host sees them.
# lio-up builds 2 target port groups of 2 tcm_loop ports on one ramdisk LUN;
# every port is a disk with the same wwid, in the port group LIO has it in;
# RTPG (sg_rtpg) through any port reports the states lio-ctl set, a
# standby port refuses media access (NOT READY), STPG (sg_stpg) changes
# LIO's configfs state, a timed transition ends in its state, a failed
# port fails commands and comes back, and lio-down leaves nothing behind.
# Runs without any device handler (guest-init blocks scsi_dh_alua).
# tier: full (the default run keeps 501-504, 507, 508 and 557 (with scsi_dh_alua))
# timeout: 240
source "${0%/*}/rc"

lio_start --groups 2 --ports-per-group 2 || exit 1
check_eq "four ports" 4 "${#LIO_PORTS[@]}"
for p in "${LIO_PORTS[@]}"; do
	sd=${LIO_DEVS[$p]#/dev/}
	check_eq "$p: LIO has it in group ${LIO_GROUP[$p]}" "${LIO_GROUP[$p]}" "$(lio_ctl port-group "$p")"
	check_eq "$p: no device handler attached" detached "$(cat "/sys/block/$sd/device/dh_state")"
	w=$(cat "/sys/block/$sd/device/wwid")
	[ "$p" = g1p0 ] && W0=$w
	check_eq "$p: same wwid as g1p0" "$W0" "$w"
done
check_match "wwid is an NAA id" "^naa\." "$W0"
check_eq "group 1 starts active/optimized" ao "$(lio_ctl state 1)"
check_eq "group 2 starts standby" s "$(lio_ctl state 2)"
check_eq "group 2 supports both access types" both "$(lio_ctl type 2)"

check_eq "RTPG through g2p1: group 1 active/optimized, group 2 standby" "1:ao 2:s" "$(lio_rtpg "${LIO_DEVS[g2p1]}")"

check "read through g1p0 (active/optimized)" dd if="${LIO_DEVS[g1p0]}" of=/dev/null bs=4k count=1 iflag=direct status=none
check_fail "read through g2p0 (standby) fails" dd if="${LIO_DEVS[g2p0]}" of=/dev/null bs=4k count=1 iflag=direct status=none
# The sense of a READ(10) of our own, as sg_raw decodes it: the kernel's
# sense line can be lost to its printk ratelimit (udev probing the standby
# ports fails the same way: seen once).
check_match "... with NOT READY, port in standby" "Not Ready.*target port in standby state" \
	"$(sg_raw -r 4k "${LIO_DEVS[g2p0]}" 28 00 00 00 00 00 00 00 08 00 2>&1 | paste -sd' ')"

check "lio-ctl state 2 u" lio_ctl state 2 u
check_eq "RTPG through g1p0: group 2 unavailable" "1:ao 2:u" "$(lio_rtpg "${LIO_DEVS[g1p0]}")"
check "lio-ctl state 2 s" lio_ctl state 2 s

# The state changes above left a unit attention for each port: take it.
# (--low: sg_turs 1.48 of Debian 13 sends no command without it)
sg_turs --low "${LIO_DEVS[g2p0]}" >/dev/null 2>&1
check "STPG through g2p0: group 2 to active/optimized" sg_stpg -v --tp=2 --state=ao "${LIO_DEVS[g2p0]}"
check_eq "configfs: group 2 active/optimized" ao "$(lio_ctl state 2)"
check_match "configfs: altered by explicit STPG" "Explicit" "$(lio_ctl status 2)"
check "read through g2p1 now" dd if="${LIO_DEVS[g2p1]}" of=/dev/null bs=4k count=1 iflag=direct status=none

check "implicit-only group 2" lio_ctl type 2 implicit
sg_stpg --tp=2 --state=s "${LIO_DEVS[g2p0]}" >/dev/null 2>&1
check_eq "an implicit-only group ignores STPG: group 2 still active/optimized" ao "$(lio_ctl state 2)"
check "lio-ctl type 2 both" lio_ctl type 2 both

check "transition group 1 for 2 s, then standby" lio_ctl transition 1 2 s
check_eq "group 1 transitioning" t "$(lio_ctl state 1)"
check_eq "RTPG: group 1 transitioning" "1:t 2:ao" "$(lio_rtpg "${LIO_DEVS[g2p0]}")"
check "transition ends" wait_until 10 lio_state_is 1 s
check_eq "lio-ctl groups" $'1 s both Altered by Implicit ALUA\n2 ao both Altered by Explicit STPG' "$(lio_ctl groups)"

check "fail g2p1" lio_ctl fail g2p1
check_fail "g2p1: reads fail while the port is down" dd if="${LIO_DEVS[g2p1]}" of=/dev/null bs=4k count=1 iflag=direct status=none
check "restore g2p1" lio_ctl restore g2p1
check "g2p1: reads work again" dd if="${LIO_DEVS[g2p1]}" of=/dev/null bs=4k count=1 iflag=direct status=none

check_fail "bad state refused" lio_ctl state 1 bogus
check_fail "bad group refused" lio_ctl state 9 ao

lio_stop
check "no LIO objects left" test ! -e "$LIO_DEV"
for p in "${LIO_PORTS[@]}"; do
	check "$p's disk is gone" test ! -e "/sys/block/${LIO_DEVS[$p]#/dev/}"
done
