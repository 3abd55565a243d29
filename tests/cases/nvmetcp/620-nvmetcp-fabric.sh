#!/bin/bash
# The NVMe/TCP harness: two controllers to one namespace, cut, restore, teardown.
# The fabric itself (tests/nvmetcp): two links to one namespace give two
# controllers and two block devices (native NVMe multipath off) with the
# same wwid and the same data; each link cut (link down, iptables DROP)
# under a reader: the silence is found by the keep-alive, the controller
# starts error recovery and reconnects, and reads fail with a transport
# error (ENOLINK, "Link has been severed": BLK_STS_TRANSPORT) once
# fast_io_fail_tmo has passed; restored, the controller reconnects, is
# live, and the same block device reads the same data; nvme-down leaves
# nothing.  No multipath map here: it checks what 621 and 622 rely on.
# tier: full (the default run keeps 622 over NVMe/TCP, and 600 covers the same over iSCSI)
# timeout: 360
source "${0%/*}/rc"

nvt_start --links 2 --kato 5 --fast-io-fail 2 --reconnect-delay 1 ||
	{ tap_fail "nvme-up: 2 links (keep-alive 5 s, fast_io_fail 2 s)"; exit 1; }
tap_ok "nvme-up: 2 links (keep-alive 5 s, fast_io_fail 2 s)"
diag "links: $(nvt_ctl links | tr '\n' ';')"
check_eq "one block device per link" 2 "${#NVT_DEVS[@]}"
check "two distinct controllers" test "${NVT_CTRLS[0]}" != "${NVT_CTRLS[1]}"
check_eq "native NVMe multipath is off" N "$(cat /sys/module/nvme_core/parameters/multipath)"
w0=$(cat "/sys/block/${NVT_NAMES[0]}/wwid" 2>/dev/null)
check_eq "the wwid comes from the namespace's fixed UUID" "uuid.$NVT_NS_UUID" "$w0"
check_eq "${NVT_NAMES[1]} has the same wwid" "$w0" "$(cat "/sys/block/${NVT_NAMES[1]}/wwid" 2>/dev/null)"
check "both controllers live" test "$(nvt_ctl state p0) $(nvt_ctl state p1)" = "live live"
head -c 1M /dev/urandom >/tmp/nvmetcp-pat
check "write 1 MiB on ${NVT_NAMES[0]}" dd if=/tmp/nvmetcp-pat of="${NVT_DEVS[0]}" bs=64k oflag=direct status=none
check "read back through ${NVT_NAMES[1]}" cmp -n 1048576 /tmp/nvmetcp-pat "${NVT_DEVS[1]}"

# A reader per link: records the time of its first failed read and dd's
# message (the errno the block layer gave).
reader() { # reader DEV OUT
	local e
	while e=$(timeout 90 dd if="$1" of=/dev/null bs=4k count=1 iflag=direct status=none 2>&1); do
		sleep 0.2
	done
	echo "${EPOCHREALTIME/./} $e" >"$2"
}
ways=(down drop)
kmsg_mark
RP=()
for i in 0 1; do
	rm -f "/tmp/nvmetcp-err.$i"
	reader "${NVT_DEVS[i]}" "/tmp/nvmetcp-err.$i" &
	RP+=($!)
done
on_exit "kill ${RP[*]} 2>/dev/null"
sleep 1
for i in 0 1; do
	T[i]=$(now)
	check "cut p$i (${ways[i]})" nvt_ctl cut "p$i" "${ways[i]}"
done
for i in 0 1; do
	check "p$i (${ways[i]}): reads fail within 90 s" wait_until 90 test -s "/tmp/nvmetcp-err.$i"
	read -r e msg <"/tmp/nvmetcp-err.$i" || e=$(now)
	d=$((e - T[i]))
	diag "p$i cut by ${ways[i]}: read error $((d / 1000000)).$((d / 100000 % 10)) s after the cut: $msg"
	check_match "p$i: a transport error (ENOLINK), not a medium or generic one" "Link has been severed" "$msg"
	check_match "p$i: the controller is reconnecting" '^(connecting|resetting)$' "$(nvt_ctl state "p$i")"
done
log=$(kmsg_since)
check_match "kernel log: error recovery started" "${NVT_CTRLS[0]}: starting error recovery" "$log"
check_match "kernel log: failfast expired" "failfast expired" "$log"
check_match "kernel log: reconnect attempts" "Failed reconnect attempt" "$log"
diag "status: $(nvt_ctl status | tr '\n' ';')"
kmsg_mark
for i in 0 1; do
	T[i]=$(now)
	check "restore p$i" nvt_ctl restore "p$i"
done
for i in 0 1; do
	check "p$i (${ways[i]}): controller live again within 60 s" wait_until 60 ctrl_state_is "p$i" live
	diag "p$i live again $(secs_since "${T[i]}") s after the restore"
	check "p$i: the same block device reads the pattern again" cmp -n 1048576 /tmp/nvmetcp-pat "${NVT_DEVS[i]}"
done
check_match "kernel log: reconnected" "Successfully reconnected" "$(kmsg_since)"

check "nvme-down" "$NVT/nvme-down"
check_fail "no namespace $NVT_NETNS left" test -e "$NVT_NSFILE"
check_fail "no subsystem left in configfs" test -e "$NVT_CONFIGFS/subsystems/$NVT_NQN"
check_eq "no NVMe controller left" "" "$(ls /sys/class/nvme 2>/dev/null)"
for m in nvme_tcp nvme_core nvmet_tcp nvmet brd sch_netem veth; do
	check_fail "module $m unloaded" test -d "/sys/module/$m"
done
