#!/bin/bash
# multipathd with no multipath.conf on the LIO ALUA array: 1 alua, group_by_prio, failover, failback, a port's failure.
# The stock way for multipathd (udevd, no /etc/multipath.conf at all, the
# LUN's WWID made known with multipath -a) and the test way for device
# handlers (scsi_dh_alua blocked).  The array (tests/lio): one LUN, group 1
# (g1p0 g1p1) active/optimized, group 2 (g2p0 g2p1) standby.  multipath-tools
# 0.9.4's built-in entry for vendor LIO-ORG gives "1 alua", group_by_prio,
# prio alua, no_path_retry 12 (queue_if_no_path) and failback immediate
# (the defaults' failback is manual: the vendor entry overrides it, so no
# configuration is needed to see a failback); the defaults give
# service-time 0 and the tur checker.  Checked: the table multipathd
# loaded, our modules serving it, the prio alua values (50 active/optimized,
# 10 active/non-optimized, 1 standby), the checker's view (ghost for a
# standby port) and the handler's per-path words.  Then, under one fio
# --verify=crc32c run (time-based, ended once the events are over):
#  failover: the array makes group 2 active/optimized and group 1 standby
#   (implicitly): the kernel moves the I/O to group 2 (no STPG), multipathd
#   reloads with group 2's PG first, group 2's ports serve;
#  failback: the array makes group 1 active/optimized and group 2
#   active/non-optimized: group 2 still works, so only multipathd (prio
#   change, failback immediate) brings the I/O back to group 1;
#  a port's link down (g1p0): the kernel fails it, the checker marks it
#   faulty, g1p1 carries the I/O; link back: the checker reinstates it and
#   the handler shows the port's state again.
# fio ends with no error.  About 210 s of guest time (measured on a loaded
# host): multipathd's checker runs every 5 to 20 s with the defaults, and
# the array's set-up and removal take a while.
# Not on the debug kernel: there multipathd's checker lagged an implicit
# swap by 382 s, the stale failback woke standby group 1 by STPG (what an
# ALUA handler should do), and the sequence asserted here, multipathd
# regrouping before I/O meets a standby port, did not hold.  The kernel
# side runs there in 501-559.
# requires: distro-kernel
# timeout: 600
# tier: full (651 runs multipathd's defaults with 1 alua, on scsi_debug, in the default run; 503 and 507 the same array changes under dm-alua without multipathd)
source "${0%/*}/rc"
source "$REPO/tests/lio/lib.sh"

# The array first: mpd_cleanup takes it down (MPD_PATHS_DOWN) after the
# maps and before udevd, and lio_start's own lio-down then finds nothing.
lio_start --groups 2 --ports-per-group 2 || exit 1
# shellcheck disable=SC2034  # (read by mpd_cleanup)
MPD_PATHS_DOWN="$LIO/lio-down"
mpd_begin || exit 1
declare -A NAME	# NAME[g1p0]=sdX
DEVS=()
for p in "${LIO_PORTS[@]}"; do
	NAME[$p]=${LIO_DEVS[$p]#/dev/}
	DEVS+=("${LIO_DEVS[$p]}")
done
mpd_map - "" "" "${DEVS[@]}" || exit 1
M=$MAP_NAME
# (the guest's uptime: the kernel log's clock)
up() { local u; read -r u _ </proc/uptime; diag "uptime $u: $*"; }
# wait_slow SECS CMD...: wait_until, polling once a second (for commands
# that ask multipathd: asking ten times a second would slow it down).
wait_slow() { WAIT_POLL=1 wait_until "$@"; }
FIO_PID=
on_exit "kill \$FIO_PID 2>/dev/null; wait \$FIO_PID"
kmsg_mark

# ---- what multipathd made of it ----------------------------------------------
for m in dm-multipath dm-alua dm-service-time; do
	mod=${m//-/_}
	check_match "$m: modinfo points at our updates/ copy" "^/lib/modules/.*/updates/.*$m\.ko$" \
		"$(modinfo -n "$m" 2>&1)"
	check_eq "$m: the loaded module is that file (srcversion)" \
		"$(modinfo -F srcversion "$m" 2>&1)" "$(cat "/sys/module/$mod/srcversion" 2>&1)"
done
# The first read brings the first PG into use (its pg_init).
check "first read through the map" dd if="$MAP_DEV" of=/dev/null bs=64k count=4 iflag=direct status=none

# pgs: the table's PGs as "PG:port,port ..." in table order, e.g.
# "1:g1p0,g1p1 2:g2p0,g2p1" (ports sorted within a PG).
pgs() {
	local pg devs d p ports out=""
	while read -r pg devs; do
		ports=()
		for d in $devs; do
			for p in "${LIO_PORTS[@]}"; do
				[ "${LIO_NUM[$p]}" = "$d" ] && ports+=("$p")
			done
		done
		out+="$pg:$(printf '%s\n' "${ports[@]}" | sort | paste -sd,) "
	done < <(table_pgs "$M")
	echo "${out% }"
}
pgs_are() { [ "$(pgs)" = "$1" ]; }
# mpd_view: "PORT PRIO DM-STATE CHECKER-STATE|..." in port order, from
# one answer of multipathd; paths_are "PORT PRIO DM CHK" ...: it is so.
mpd_view() {
	local -A row
	local d r p out=""
	while read -r d r; do
		row[$d]=$r
	done < <(multipathd show paths raw format "%d %p %t %T")
	for p in "${LIO_PORTS[@]}"; do
		out+="$p ${row[${NAME[$p]}]:-missing}|"
	done
	echo "${out%|}"
}
paths_are() { local want; want=$(IFS='|'; echo "$*"); [ "$(mpd_view)" = "$want" ]; }
# words: "PORT=STATE ..." from the handler's INFO words in one status
# ("<#words> <maj:min> <group> <state> ..." after the features).
words() {
	local -a f
	local -A st
	local i n p out=""
	read -ra f <<<"$(dmsetup status "$M")"
	i=$((4 + f[3]))
	n=${f[i]}
	for ((i = i + 1; n >= 3; i += 3, n -= 3)); do
		st[${f[i]}]=${f[i + 2]}
	done
	for p in "${LIO_PORTS[@]}"; do
		out+="$p=${st[${LIO_NUM[$p]}]:-missing} "
	done
	echo "$out"
}
words_are() { [ "$(words)" = "$* " ]; }
topology() {
	diag "PGs: $(pgs); multipathd: $(mpd_view)"
	diag "handler: $(words); LIO: $(lio_ctl groups | paste -sd';')"
}

T=$(dmsetup table "$M")
diag "table multipathd loaded with no configuration: $T"
# no_path_retry 12 (the LIO-ORG entry) is queue_if_no_path in the table.
check_match "table: queue_if_no_path, 1 alua, 2 PGs, the first PG first" \
	"^0 [0-9]+ multipath 1 queue_if_no_path 1 alua 2 1 " "$T"
check_match "table: service-time 0 in each PG, two paths each" \
	" 1 alua 2 1 service-time 0 2 2 [0-9:]+ 1 1 [0-9:]+ 1 1 service-time 0 2 2 [0-9:]+ 1 1 [0-9:]+ 1 1 ?\$" "$T"
check_eq "table: PG 1 = group 1 (active/optimized), PG 2 = group 2 (group_by_prio)" \
	"1:g1p0,g1p1 2:g2p0,g2p1" "$(pgs)"
check_eq "multipathd: failback immediate, hardware handler 1 alua" "immediate|1 alua" \
	"$(multipathd show maps raw format "%n|%F|%h" | awk -F'|' -v m="$M" '$1 == m { print $2 "|" $3 }')"
# prio alua: 50 active/optimized, 10 active/non-optimized, 1 standby; the
# tur checker: ready, ghost for a standby port (NOT READY 04/0B).
check "multipathd: group 1 prio 50 ready, group 2 prio 1 ghost" wait_slow 30 paths_are \
	"g1p0 50 active ready" "g1p1 50 active ready" "g2p0 1 active ghost" "g2p1 1 active ghost"
check "handler status: group 1 ao, group 2 s" wait_until 10 words_are \
	"g1p0=ao" "g1p1=ao" "g2p0=s" "g2p1=s"
topology

# ---- one fio run for all the events ---------------------------------------------
TRIG=/tmp/fio-654.stop
rm -f "$TRIG"
# It runs until the trigger; the runtime only bounds a scenario gone wrong.
fio --name=mpd654 --filename="$MAP_DEV" --direct=1 --ioengine=libaio \
	--iodepth=8 --bs=4k --rw=randwrite --size=16M --verify=crc32c --rate_iops=300,300 \
	--verify_backlog=256 --verify_fatal=1 --time_based --runtime=300 \
	--trigger-file="$TRIG" --output-format=json --output=/tmp/fio-654.json &
FIO_PID=$!
running() { kill -0 "$FIO_PID" 2>/dev/null; }
# group_writes G: writes completed by group G's ports (only fio writes:
# udev's probes of the paths read, and a standby port fails reads too).
group_writes() {
	local p n=0
	for p in "${LIO_PORTS[@]}"; do
		[ "${LIO_GROUP[$p]}" = "$1" ] && n=$((n + $(path_writes "${NAME[$p]}")))
	done
	echo "$n"
}
# serving G: over 3 s, group G's ports completed >= 100 writes, the other
# group's none (the counts of the last try in $SERVED_LOG: check and
# wait_until run it in subshells).
SERVED_LOG=/tmp/654.served
served() { cat "$SERVED_LOG" 2>/dev/null; }
serving() {
	local o=$((3 - $1)) a0 b0 a1 b1
	a0=$(group_writes "$1") b0=$(group_writes $o)
	sleep 3
	a1=$(group_writes "$1") b1=$(group_writes $o)
	echo "over 3 s group $1 completed $((a1 - a0)) writes, group $o $((b1 - b0))" >"$SERVED_LOG"
	[ $((a1 - a0)) -ge 100 ] && [ $((b1 - b0)) = 0 ]
}
check "fio writes through group 1" wait_until 30 serving 1
diag "$(served)"

# ---- failover: the array swaps the groups ------------------------------------------
t0=$SECONDS; up phase
check "array: group 2 active/optimized" lio_ctl state 2 ao
check "array: group 1 standby" lio_ctl state 1 s
check "the kernel moves the I/O to group 2" wait_until 30 serving 2
diag "$(served), $((SECONDS - t0)) s after the swap"
check "multipathd reloads: PG 1 = group 2" wait_slow 60 pgs_are "1:g2p0,g2p1 2:g1p0,g1p1" || topology
check "multipathd: group 2 prio 50 ready, group 1 prio 1 ghost (reinstated)" wait_slow 30 paths_are \
	"g1p0 1 active ghost" "g1p1 1 active ghost" "g2p0 50 active ready" "g2p1 50 active ready"
diag "failover seen through by multipathd $((SECONDS - t0)) s after the swap"
check "handler status: group 1 s, group 2 ao" wait_until 10 words_are \
	"g1p0=s" "g1p1=s" "g2p0=ao" "g2p1=ao"
check "group 2 serves" serving 2
diag "$(served)"
check_eq "LIO: group 1 standby, group 2 active/optimized, both altered implicitly" \
	"1 s both Altered by Implicit ALUA|2 ao both Altered by Implicit ALUA" "$(lio_ctl groups | paste -sd'|')"
check "fio still running" running
topology

# ---- failback: group 1 active/optimized again, group 2 still usable --------------
t0=$SECONDS; up phase
check "array: group 1 active/optimized" lio_ctl state 1 ao
check "array: group 2 active/non-optimized" lio_ctl state 2 an
check "multipathd fails back: PG 1 = group 1" wait_slow 60 pgs_are "1:g1p0,g1p1 2:g2p0,g2p1" || topology
check "multipathd: group 1 prio 50, group 2 prio 10 (active/non-optimized), all ready" wait_slow 30 paths_are \
	"g1p0 50 active ready" "g1p1 50 active ready" "g2p0 10 active ready" "g2p1 10 active ready"
check "group 1 serves again" wait_until 30 serving 1
diag "$(served); failback $((SECONDS - t0)) s after the change"
check "handler status: group 1 ao, group 2 an" wait_until 10 words_are \
	"g1p0=ao" "g1p1=ao" "g2p0=an" "g2p1=an"
check "multipathd's log: priorities changed, map reloaded" wait_until 10 \
	grep -q "path priorities changed. reloading" "$MPD_LOG"
check_eq "LIO: group 1 active/optimized, group 2 active/non-optimized" \
	"1 ao both Altered by Implicit ALUA|2 an both Altered by Implicit ALUA" "$(lio_ctl groups | paste -sd'|')"
check "fio still running" running
topology

# ---- a port of the active group loses its link --------------------------------------
t0=$SECONDS; up phase
check "g1p0's link down" lio_ctl fail g1p0
check "the kernel fails g1p0" wait_until 30 eval "[ \"\$(port_state $M g1p0)\" = F ]"
check "multipathd's checker: g1p0 faulty" wait_slow 30 eval "[ \"\$(mpd_chk_state $M ${NAME[g1p0]})\" = faulty ]"
diag "g1p0 failed in the kernel and faulty in multipathd $((SECONDS - t0)) s after the cut"
io_of() { path_writes "$1"; }
b=$(io_of "${NAME[g1p1]}")
check "g1p1 carries the writes" wait_until 20 eval "[ \$(io_of ${NAME[g1p1]}) -ge $((b + 100)) ]"
check "handler status: g1p0 does not answer" wait_until 20 eval "[ \"\$(seen $M g1p0)\" = noresp ]" || {
	# Seen once on a quiet host (passing under load): say what the
	# handler showed and whether multipathd replaced the table meanwhile
	# (a new table starts a new handler, which has not asked g1p0).
	diag "handler: $(words)"
	diag "multipathd: $(grep -E "reload|${NAME[g1p0]}" "$MPD_LOG" | tail -n 8 | paste -sd'|')"
}
check "fio still running" running
t0=$SECONDS; up phase
check "g1p0's link up" lio_ctl restore g1p0
check "multipathd's checker reinstates g1p0" wait_until 30 eval "[ \"\$(port_state $M g1p0)\" = A ]"
check "multipathd: g1p0 prio 50 active ready" wait_slow 30 eval \
	"[ \"\$(mpd_view | tr '|' '\n' | grep '^g1p0 ')\" = 'g1p0 50 active ready' ]"
diag "g1p0 back $((SECONDS - t0)) s after its link"
b=$(io_of "${NAME[g1p0]}")
check "g1p0 carries writes again" wait_until 20 eval "[ \$(io_of ${NAME[g1p0]}) -ge $((b + 100)) ]"
check "handler status: g1p0 active/optimized again" wait_until 20 words_are \
	"g1p0=ao" "g1p1=ao" "g2p0=an" "g2p1=an"
topology

# ---- fio's verdict ---------------------------------------------------------------------
check "fio was running to the end" running
touch "$TRIG"
check "fio stops at the trigger" wait_until 60 eval '! running'
wait "$FIO_PID"
check_eq "fio exit status" 0 "$?"
FIO_PID=
check_eq "fio: no verify or I/O errors" 0 "$(jq '.jobs[0].error' /tmp/fio-654.json 2>&1)"
check_match "fio wrote and verified data" "^[1-9][0-9]* [1-9][0-9]*$" \
	"$(jq -r '"\(.jobs[0].write.io_kbytes) \(.jobs[0].read.io_kbytes)"' /tmp/fio-654.json 2>&1)"
diag "fio: $(jq -r '"\(.jobs[0].write.io_kbytes) KiB written, \(.jobs[0].read.io_kbytes) KiB verified"' /tmp/fio-654.json 2>&1)"
k=$(kmsg_since)
check_fail "dm-alua sent no STPG (every change was the array's own)" grep -q "sending STPG" <<<"$k"
diag "multipathd's path events: $(grep -cE 'reinstated|mark as failed|priorities changed|switch' "$MPD_LOG")"
grep -E 'reinstated|mark as failed|priorities changed|switch|tur checker reports' "$MPD_LOG" | tail -n 12 |
	while IFS= read -r l; do diag "mpd: $l"; done
rm -f "$TRIG" /tmp/fio-654.json "$SERVED_LOG"
mpd_finish
