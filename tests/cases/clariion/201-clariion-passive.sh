#!/bin/bash
# Emulated CLARiiON: media access via the non-owning SP fails 02/04/03.
# Emulated CLARiiON: media access through a port of the SP that does not own
# the LUN fails CHECK CONDITION 02/04/03 (and changes nothing); INQUIRY,
# MODE SENSE and READ CAPACITY still work there.  Counted per port.
# timeout: 180
source "${0%/*}/rc"

clariion_start || exit 1
A0=${CL_DEV[A0]} B0=${CL_DEV[B0]}
check "reset counters" cl_ctl reset-counters

check_eq "TUR on A0 (owner)" good "$(scsi_result "$A0" 00 00 00 00 00 00)"
check_eq "TUR on B0 (passive)" "check 02/04/03" "$(scsi_result "$B0" 00 00 00 00 00 00)"
check_eq "READ(10) on B0" "check 02/04/03" "$(scsi_result -r 512 "$B0" 28 00 00 00 00 00 00 00 01 00)"
check_eq "READ(16) on B0" "check 02/04/03" "$(scsi_result -r 512 "$B0" 88 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00)"
# Pattern through A0, then a WRITE of zeros through B0 must not land.
head -c 512 /dev/urandom >"$CL_TMP/pat"
check_eq "WRITE(10) on A0" good "$(scsi_result -s 512 -i "$CL_TMP/pat" "$A0" 2a 00 00 00 00 10 00 00 01 00)"
head -c 512 /dev/zero >"$CL_TMP/zero"
check_eq "WRITE(10) on B0" "check 02/04/03" "$(scsi_result -s 512 -i "$CL_TMP/zero" "$B0" 2a 00 00 00 00 10 00 00 01 00)"
check_eq "WRITE(16) on B0" "check 02/04/03" "$(scsi_result -s 512 -i "$CL_TMP/zero" "$B0" 8a 00 00 00 00 00 00 00 00 10 00 00 00 01 00 00)"
check_eq "VERIFY(10) on B0" "check 02/04/03" "$(scsi_result "$B0" 2f 00 00 00 00 10 00 00 01 00)"
check_eq "SYNCHRONIZE CACHE(10) on B0" "check 02/04/03" "$(scsi_result "$B0" 35 00 00 00 00 00 00 00 00 00)"
rm -f "$CL_TMP/back"
sg_raw -n -r 512 -o "$CL_TMP/back" "$A0" 28 00 00 00 00 10 00 00 01 00 >/dev/null 2>&1
check "the rejected write changed nothing (read back via A0)" cmp "$CL_TMP/pat" "$CL_TMP/back"

check_eq "INQUIRY on B0" good "$(scsi_result -r 96 "$B0" 12 00 00 00 60 00)"
check_eq "MODE SENSE(6) all pages on B0" good "$(scsi_result -r 255 "$B0" 1a 00 3f 00 ff 00)"
check_eq "MODE SENSE(10) caching page on B0" good "$(scsi_result -r 255 "$B0" 5a 00 08 00 00 00 00 00 ff 00)"
check_match "sg_modes reads the caching page on B0" 'Caching' "$(sg_modes -p 8 "$B0" 2>&1)"
check_eq "READ CAPACITY(10) on B0" good "$(scsi_result -r 8 "$B0" 25 00 00 00 00 00 00 00 00 00)"
check_match "sg_readcap on B0: 64 MiB" 'Last LBA=131071' "$(sg_readcap "$B0" 2>&1)"
check_eq "B0 passive_rejects counted (7 media commands)" 7 "$(cl_counter B0 passive_rejects)"
check_eq "B0 media commands counted" 7 "$(cl_counter B0 media)"
check_eq "A0 passive_rejects" 0 "$(cl_counter A0 passive_rejects)"
# --low: sg_turs 1.48 (Debian 13) sends no command without it ("bad
# pass-through setup", sg3_utils issue 81, fixed in 1.49)
check_match "sg_turs on B0 reports manual intervention required" 'manual intervention required' \
	"$(sg_turs --low -v "$B0" 2>&1)"

# Through the block layer: the bio fails with EIO, the kernel logs the sense.
kmsg_ratelimit_settle
kmsg_mark
check_fail "dd read through B0 fails" dd if="$B0" of=/dev/null bs=4k count=1 iflag=direct
check_match "kernel logged 04/03 for B0" 'manual intervention required' "$(kmsg_since)"
check "dd read through A0 works" dd if="$A0" of=/dev/null bs=4k count=1 iflag=direct
check "owner still A" test "$(cl_ctl owner)" = A

clariion_stop
