#!/bin/bash
# suspend and remove while an STPG is outstanding: no hang, module unloads.
# LIO answers STPGs to group 2 6 s late (trans_delay_msecs).  A read after
# "switch_group 2" starts a pg_init whose STPG is then outstanding:
# "dmsetup suspend" returns (once the STPG is answered), the STPG took
# effect in LIO, and after resume the read completes.  Again with group 2
# back in standby: "dmsetup remove --force" while the STPG is outstanding
# returns once the STPG is answered, the map goes, and dm-alua unloads.
# tier: full (the default run keeps 501-504, 507, 508 and 557 (with scsi_dh_alua))
# timeout: 300
source "${0%/*}/rc"

alua_begin --groups 2 --ports-per-group 2
alua_map mpalua || exit 1
check "first read (group 1)" dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=4 iflag=direct status=none
check "LIO: STPGs to group 2 answered 6 s late" lio_ctl delay 2 6000
stpg_started() {
	if [ "$ALUA_DH" = 1 ]; then
		kmsg_since | grep -q "activating through scsi_dh_alua"
	else
		kmsg_since | grep -q "sending STPG"
	fi
}

kmsg_mark
check "switch_group 2" dmsetup message mpalua 0 switch_group 2
dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=4 iflag=direct status=none &
ddpid=$!
check "pg_init sent its STPG" wait_until 30 stpg_started
check "the STPG is outstanding: LIO has group 2 transitioning" wait_until 10 lio_state_is 2 t
check "dmsetup suspend returns" timeout 60 dmsetup suspend mpalua
check_eq "the STPG took effect: group 2 active/optimized" ao "$(lio_ctl state 2)"
check "resume" dmsetup resume mpalua
wait "$ddpid"
check_eq "the read completed without error" 0 "$?"

check "array: group 2 standby again" lio_ctl state 2 s
check "switch_group 1" dmsetup message mpalua 0 switch_group 1
check "read (group 1)" dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=4 iflag=direct status=none
kmsg_mark
check "switch_group 2" dmsetup message mpalua 0 switch_group 2
dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=4 iflag=direct status=none 2>/dev/null &
ddpid=$!
check "pg_init sent its STPG" wait_until 30 stpg_started
check "the STPG is outstanding: LIO has group 2 transitioning" wait_until 10 lio_state_is 2 t
# --force first swaps in a table that fails all I/O: that suspends the
# map, which waits for the pg_init; the remove itself may then find the
# map still open by the read (EBUSY) until the read has failed.
timeout 60 dmsetup remove --force mpalua >/dev/null 2>&1
check "dmsetup remove --force returned (no hang)" test $? != 124
check_eq "the STPG had completed: group 2 active/optimized" ao "$(lio_ctl state 2)"
wait "$ddpid"
diag "the read's exit status: $? (the forced remove may fail it)"
check "map removed" dm_remove mpalua
check_fail "map gone" dmsetup info mpalua
check "dm-alua unloads" mod_unload_retry dm_alua
check "modules unload" mp_mods_unload
