#!/bin/bash
# The iSCSI SAN harness: each way of cutting a link, restore, teardown.
# The iSCSI SAN harness itself: three links to one LUN, each cut one of the
# three ways (link down, netem loss 100%, iptables DROP) while a reader
# runs on it: the cut is silence, found by the NOP-Out ping, the session
# recovers until replacement_timeout, then I/O fails and the disk goes
# transport-offline; restored, the same disk is running and readable again;
# san-down leaves nothing (namespace, configfs, sessions, modules).
# No multipath map here: it checks what the other 60x scenarios rely on.
# tier: full (the default run keeps 601 (cuts one by one, three ways) and 602)
# timeout: 420
source "${0%/*}/rc"

san_start --links 3 --noop-interval 2 --noop-timeout 2 --replacement-timeout 5 || { tap_fail "san-up: 3 links, 1 LUN (noop 2/2 s, replacement_timeout 5 s)"; exit 1; }
tap_ok "san-up: 3 links, 1 LUN (noop 2/2 s, replacement_timeout 5 s)"
diag "links: $(san_ctl links | tr '\n' ';')"
check_eq "one disk per link" 3 "${#SAN_DEVS[@]}"
w0=$(cat "/sys/block/${SAN_NAMES[0]}/device/wwid" 2>/dev/null)
check_match "the disk has a wwid (LIO's NAA from vpd_unit_serial)" '^naa\.' "$w0"
for n in "${SAN_NAMES[@]:1}"; do
	check_eq "$n has the same wwid" "$w0" "$(cat "/sys/block/$n/device/wwid" 2>/dev/null)"
done
tp=()
for n in "${SAN_NAMES[@]}"; do
	tp+=("$(sg_vpd -p di "/dev/$n" 2>/dev/null | sed -n 's/.*Relative target port: *0x\([0-9a-f]*\).*/\1/p' | head -n1)")
done
diag "relative target ports: ${tp[*]}"
check_eq "three distinct target ports (no duplicates)" 3 "$(printf '%s\n' "${tp[@]}" | sort -u | grep -c .)"
# Data written on one link is read back on the others (one LUN).
head -c 1M /dev/urandom >/tmp/iscsi-pat
check "write 1 MiB on ${SAN_NAMES[0]}" dd if=/tmp/iscsi-pat of="${SAN_DEVS[0]}" bs=64k oflag=direct status=none
for d in "${SAN_DEVS[@]:1}"; do
	check "read back through $d" cmp -n 1048576 /tmp/iscsi-pat "$d"
done
check "each link's session LOGGED_IN and disk running" \
	test "$(san_ctl state p0)$(san_ctl state p1)$(san_ctl state p2)" = "LOGGED_IN runningLOGGED_IN runningLOGGED_IN running"

# A reader per link: reports the time of its first I/O error.
reader() { # reader sdX OUT
	while timeout 60 dd if="/dev/$1" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null; do
		sleep 0.2
	done
	echo "${EPOCHREALTIME/./}" >"$2"
}
ways=(down loss drop)
kmsg_mark
RP=()
for i in 0 1 2; do
	rm -f "/tmp/iscsi-err.$i"
	reader "${SAN_NAMES[i]}" "/tmp/iscsi-err.$i" &
	RP+=($!)
done
on_exit "kill ${RP[*]} 2>/dev/null"
sleep 1
for i in 0 1 2; do
	T[i]=$(now)
	check "cut p$i (${ways[i]})" san_ctl cut "p$i" "${ways[i]}"
done
for i in 0 1 2; do
	check "p$i (${ways[i]}): reads fail within 60 s" wait_until 60 test -s "/tmp/iscsi-err.$i"
	e=$(cat "/tmp/iscsi-err.$i" 2>/dev/null) || e=$(now)
	d=$((e - T[i]))
	diag "p$i cut by ${ways[i]}: I/O error $((d / 1000000)).$((d / 100000 % 10)) s after the cut"
	check_eq "p$i: the disk is transport-offline" transport-offline "$(cat "/sys/block/${SAN_NAMES[i]}/device/state")"
done
log=$(kmsg_since)
check_match "kernel log: ping timeout" "ping timeout of [0-9]+ secs expired" "$log"
check_match "kernel log: session recovery timed out" "session recovery timed out after 5 secs" "$log"
diag "status: $(san_ctl status | tr '\n' ';')"
for i in 0 1 2; do
	T[i]=$(now)
	check "restore p$i" san_ctl restore "p$i"
done
for i in 0 1 2; do
	check "p$i (${ways[i]}): disk running again within 60 s" \
		wait_until 60 disk_state_is "${SAN_NAMES[i]}" running
	diag "p$i running again $(secs_since "${T[i]}") s after the restore"
	check "p$i: the same disk reads the pattern again" cmp -n 1048576 /tmp/iscsi-pat "${SAN_DEVS[i]}"
done
check "each link's session LOGGED_IN again" \
	test "$(san_ctl state p0)$(san_ctl state p1)$(san_ctl state p2)" = "LOGGED_IN runningLOGGED_IN runningLOGGED_IN running"
diag "iscsid: $(grep -c 'operational after recovery' "$SAN_STATE/iscsid.log" 2>/dev/null) sessions 'operational after recovery'"

check "san-down" "$SAN/san-down"
check_fail "no namespace tgt left" test -e /run/netns/tgt
check_fail "no LIO iSCSI target left in configfs" test -e /sys/kernel/config/target/iscsi
check_eq "no iSCSI session left" "" "$(ls /sys/class/iscsi_session 2>/dev/null)"
check_fail "iscsid stopped" pgrep -x iscsid
for m in iscsi_tcp iscsi_target_mod sch_netem veth; do
	check_fail "module $m unloaded" test -d "/sys/module/$m"
done
