#!/bin/bash
# multipathd with Debian's defaults (no multipath.conf): service-time and alua.
# The stock way for multipathd (udevd, no /etc/multipath.conf at all, the
# LUN's WWID made known with multipath -a as find_multipaths wants) and the
# test way for device handlers (scsi_dh_* blocked).  scsi_debug
# (vpd_use_hostno=0) claims implicit ALUA, so multipathd 0.9.4 writes
# "1 alua", its default selector "service-time 0", one PG per path
# (failover) and ALUA priorities: the map must load with our selector and
# handler modules, carry fio --verify=crc32c through a path failure, and
# take the path back when it runs again (fio runs 40 s, so that it is
# writing through the whole failure whatever the machine's speed).
# timeout: 480
# cross-kernel: yes
source "${0%/*}/rc"

# The first path active/optimized, the second active/non-optimized
# (scsi_debug's ALUA state is host_no % 3: tests/lib/common.sh).
SDEBUG_HOST_MOD3=1
mpd_setup 2 - || exit 1
on_exit "kill \$FIO_PID 2>/dev/null; wait \$FIO_PID"
A=${PATH_NUMS[0]} B=${PATH_NUMS[1]} NA=${SD_NAMES[0]} NB=${SD_NAMES[1]}
M=$MAP_NAME

T=$(dmsetup table "$M")
diag "table multipathd loaded with no configuration: $T"
check_match "table: '1 alua' chosen for the TPGS LUN" "^0 [0-9]+ multipath [0-9]+ .*1 alua " "$T"
check_match "table: two PGs (failover), service-time 0 in each" \
	"1 alua 2 1 service-time 0 1 2 ($A|$B) [0-9]+ [0-9]+ service-time 0 1 2 ($A|$B) [0-9]+ [0-9]+ \$" "$T"
check_eq "our service-time (MODULE_VERSION) and alua (no distro module of that name) are loaded" "$MPATH_RELEASE yes" \
	"$(cat /sys/module/dm_service_time/version 2>&1) $(test -d /sys/module/dm_alua/holders && echo yes)"
mpd_diag_topology "$M"
check_eq "multipathd: both paths active and ready" \
	"$(printf '%s active ready\n' "$NA" "$NB" | sort | paste -sd'|')" \
	"$(mpd_path_states "$M" | sort | paste -sd'|')"

# Which path the first PG holds: that one carries the I/O.
first=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "service-time") { print $(i + 4); exit } }' <<<"$T")
if [ "$first" = "$A" ]; then NF1=$NA NF2=$NB F2=$B; else NF1=$NB NF2=$NA F2=$A; fi
F1=$first

running() { kill -0 "$FIO_PID" 2>/dev/null; }
io_of() { echo $(($(path_reads "$1") + $(path_writes "$1"))); }
MIB=$(per_kernel 12 6)
fio --name=mpd --filename="$MAP_DEV" --direct=1 --ioengine=libaio \
	--iodepth=8 --bs=4k --rw=randwrite --size="${MIB}M" --verify=crc32c \
	--verify_backlog=256 --verify_fatal=1 --time_based --runtime=40 \
	--output-format=json --output=/tmp/fio-mpd651.json &
FIO_PID=$!
sleep 3

diag "offline $NF1 (the path of the PG in use)"
path_offline "$NF1"
is_failed() { [ "$(path_state "$M" "$F1")" = F ]; }
check "the kernel fails $NF1 on its I/O error" wait_until 30 is_failed
# (functions: wait_until must read multipathd's answer at every poll)
chk_is() { [ "$(mpd_chk_state "$M" "$NF1")" = "$1" ]; }
dm_chk_is() { [ "$(mpd_dm_state "$M" "$NF1") $(mpd_chk_state "$M" "$NF1")" = "$1" ]; }
check "multipathd marks $NF1 faulty" wait_until 30 chk_is faulty
check "fio still running" running
before=$(io_of "$NF2")
check "$NF2 (the other PG) carries the I/O" wait_until 20 eval "[ \$(io_of $NF2) -gt $before ]"

diag "$NF1 running again"
path_running "$NF1"
is_active() { [ "$(path_state "$M" "$F1")" = A ]; }
check "multipathd reinstates $NF1" wait_until 30 is_active
check "multipathd: $NF1 active and ready" wait_until 30 dm_chk_is "active ready"
mpd_diag_topology "$M"

check "fio finishes" wait_until 300 eval '! running'
wait "$FIO_PID"
check_eq "fio exit status" 0 "$?"
check_eq "fio: no verify or I/O errors" 0 "$(jq '.jobs[0].error' /tmp/fio-mpd651.json 2>&1)"
check_match "fio wrote and verified data" "^[1-9][0-9]*$" \
	"$(jq '.jobs[0].write.io_kbytes' /tmp/fio-mpd651.json 2>&1)"
mpd_finish
