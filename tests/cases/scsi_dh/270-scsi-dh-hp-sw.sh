#!/bin/bash
# "1 hp_sw": the kernel's scsi_dh_hp_sw attached at table load and activated for each pg_init.
# Two scsi_debug paths that identify as an HP HSV100 (an hp_sw entry of
# the kernel's scsi_dh table; scsi_debug also claims implicit TPGS, so at
# scan nothing attaches: scsi_dh_alua stays blocked).  A table naming
# hp_sw, which has no module of ours, goes to dm-scsi-dh: loading it
# attaches scsi_dh_hp_sw to both paths (dh_state), as Linux 6.1 does.
# With fio writing and verifying, PG1's path goes offline: the bio's path
# error fails it, PG2's pg_init activates its path through scsi_dh_hp_sw
# and I/O goes on there with no error.  Each pg_init is counted from the
# handler's log line per activated path.  A path reinstated into the PG in
# use is activated before it carries I/O (6.1's reinstate_path).
# timeout: 300
source "${0%/*}/rc"

mp_fixture 2 mphp -- inq_vendor=HP inq_product=HSV100
on_exit "scsi_dh_block scsi_dh_hp_sw"
check "scsi_dh_hp_sw allowed and loaded" scsi_dh_allow scsi_dh_hp_sw || exit 1
A=${DEVNUMS[0]} B=${DEVNUMS[1]}
a=${SD_NAMES[0]} b=${SD_NAMES[1]}
MP=/dev/mapper/mphp
read -r vendor <"/sys/block/$a/device/vendor"
read -r model <"/sys/block/$a/device/model"
check_eq "paths identify as HP HSV100" "HP|HSV100" "$vendor|$model"
check_eq "before the table: no scsi_dh attached" "detached detached" "$(dh_state "$a") $(dh_state "$b")"

# activations DEV: how many activations through scsi_dh_hp_sw the handler
# logged for DEV (MAJ:MIN) since the last kmsg_mark
activations() { kmsg_since | grep -c "multipath scsi_dh: $1 (.*): activated through scsi_dh_hp_sw"; }

kmsg_mark
check "create map: 1 hp_sw, PG1 = path A, PG2 = path B" dm_create mphp \
	"0 $SECTORS multipath 0 1 hp_sw 2 1 round-robin 0 1 1 $A 100 round-robin 0 1 1 $B 100" || exit 1
check_eq "TABLE: the handler is hp_sw" "1 hp_sw" "$(hw_words mphp)"
check_eq "table load attached scsi_dh_hp_sw to both paths" "hp_sw hp_sw" "$(dh_state "$a") $(dh_state "$b")"
check "served by dm-scsi-dh (no module of ours named hp_sw)" test -d /sys/module/dm_scsi_dh
check "first read" dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none
check_eq "PG1's pg_init activated A once" 1 "$(activations "$A")"
check_eq "... and not B (PG2 not in use)" 0 "$(activations "$B")"

# ---- failover under fio ------------------------------------------------------
writes_b0=$(path_writes "$b")
fio_start_verified $MP 16 2 64 /tmp/fio-270.json
on_exit "kill $FIO_PID 2>/dev/null"
check "fio writes through A" wait_until 60 eval '[ "$(path_writes "$a")" -gt 100 ]'
kmsg_mark
check "path A goes offline" path_offline "$a"
check "the map fails A" wait_until 60 eval '[ "$(path_state mphp "$A")" = F ]'
check "I/O goes on through B" wait_until 60 eval '[ "$(path_writes "$b")" -gt $((writes_b0 + 100)) ]'
fio_wait_verified
check_eq "PG2's pg_init activated B once" 1 "$(activations "$B")"
k=$(kmsg_since)
check_match "kernel log: the map failed A" "multipath: .*Failing path $A\\." "$k"

# ---- A back: reinstated into a PG not in use, then switched to -------------------
kmsg_mark
check "path A running again" path_running "$a"
check "reinstate A" dmsetup message mphp 0 reinstate_path "$A"
check "read (PG2 still in use)" dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none
check_eq "A not activated: its PG is not in use" 0 "$(activations "$A")"
check "switch_group 1" dmsetup message mphp 0 switch_group 1
check "read through PG1" dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none
check_eq "PG1's pg_init activated A" 1 "$(activations "$A")"
check_eq "both paths active" "A A" "$(path_state mphp "$A") $(path_state mphp "$B")"
check "remove map" dm_remove mphp

# ---- a path reinstated into the PG in use is activated -----------------------------
check "create map: one PG, both paths" dm_create mphp \
	"0 $SECTORS multipath 0 1 hp_sw 1 1 round-robin 0 2 1 $A 1 $B 1" || exit 1
check "first read" dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none
check "fail_path B" dmsetup message mphp 0 fail_path "$B"
check "read through A" dd if=$MP of=/dev/null bs=4k count=1 iflag=direct status=none
kmsg_mark
check "reinstate B" dmsetup message mphp 0 reinstate_path "$B"
reads_b=$(path_reads "$b")
check "reads" dd if=$MP of=/dev/null bs=4k count=16 iflag=direct status=none
check_eq "B activated once, on its reinstatement" 1 "$(activations "$B")"
check_eq "... and not A" 0 "$(activations "$A")"
check "B carries reads again" test "$(path_reads "$b")" -gt "$reads_b"
check_eq "both paths active" "A A" "$(path_state mphp "$A") $(path_state mphp "$B")"
check "remove map" dm_remove mphp
check "modules unload" mp_mods_unload
