#!/bin/bash
# pg_init_retries: a group whose pg_init keeps failing is left for the next.
# Map with "pg_init_retries 2 pg_init_delay_msecs 200"; both ports of group
# 1 have lost their link before the first I/O.  Each group 1 path's
# pg_init fails (its commands get transport errors: transient, MP_RETRY),
# the core retries it twice, then fails the path; then group 2 is brought
# in with an STPG and the read succeeds.  LIO shows group 2 active.
# timeout: 300
source "${0%/*}/rc"

alua_begin --groups 2 --ports-per-group 2
alua_map mpalua "4 pg_init_retries 2 pg_init_delay_msecs 200" || exit 1
check_match "table keeps the features" "4 pg_init_retries 2 pg_init_delay_msecs 200 1 alua" "$(dmsetup table mpalua)"
check "fail g1p0" lio_ctl fail g1p0
check "fail g1p1" lio_ctl fail g1p1
kmsg_mark
check "read succeeds (through group 2)" dd if=/dev/mapper/mpalua of=/dev/null bs=64k count=4 iflag=direct status=none
k=$(kmsg_since)
for p in g1p0 g1p1; do
	n=${LIO_NUM[$p]}
	check_eq "$p: pg_init retried twice" 2 "$(grep -cE "pg_init on $n will be retried in 200 ms" <<<"$k")"
	check_match "$p: then failed, retries used" "pg_init on $n failed, 2 retries used: failing path" "$k"
	check_match "$p: the handler called each failure transient" \
		"multipath alua: $n .*(failed \(result .*retry pg_init later|scsi_dh_alua activation failed .*retry pg_init later)" "$k"
	check_eq "$p failed" F "$(port_state mpalua "$p")"
done
check_eq "LIO: group 2 active/optimized" ao "$(lio_ctl state 2)"
check_eq "LIO: group 2 altered by explicit STPG" "Altered by Explicit STPG" "$(lio_ctl status 2)"
check_eq "g2p0 active" A "$(port_state mpalua g2p0)"
check_eq "g2p1 active" A "$(port_state mpalua g2p1)"
check "remove map" dm_remove mpalua
check "modules unload" mp_mods_unload
