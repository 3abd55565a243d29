#!/bin/bash
# Emulated CLARiiON: data written via one SP reads back via the other.
# Emulated CLARiiON: one LUN behind both SPs -- data written through SP A
# reads back through SP B after a trespass, and the other way round.
# timeout: 180
source "${0%/*}/rc"

clariion_start --ports-per-sp 2 || exit 1
A0=${CL_DEV[A0]} A1=${CL_DEV[A1]} B0=${CL_DEV[B0]} B1=${CL_DEV[B1]}

# reads_back FILE DEV: the MiB at 8 MiB on DEV equals FILE (read with
# O_DIRECT, so it really comes from the array).
reads_back() {
	rm -f "$CL_TMP/rb"
	dd if="$2" of="$CL_TMP/rb" bs=64k skip=128 count=16 iflag=direct 2>/dev/null &&
		cmp "$1" "$CL_TMP/rb"
}

head -c $((1024 * 1024)) /dev/urandom >"$CL_TMP/one"
head -c $((1024 * 1024)) /dev/urandom >"$CL_TMP/two"

check "write 1 MiB at 8 MiB through A0" dd if="$CL_TMP/one" of="$A0" bs=64k seek=128 oflag=direct conv=fsync
check "read it back through A1 (same SP)" reads_back "$CL_TMP/one" "$A1"
check_fail "B1 cannot read it before the trespass" dd if="$B1" of=/dev/null bs=64k skip=128 count=1 iflag=direct
check_eq "trespass to B via B1" good "$(trespass_result "$B1" ms10 81)"
check "read back through B0" reads_back "$CL_TMP/one" "$B0"
check "read back through B1" reads_back "$CL_TMP/one" "$B1"
check "overwrite through B0" dd if="$CL_TMP/two" of="$B0" bs=64k seek=128 oflag=direct conv=fsync
check_fail "A0 cannot read now" dd if="$A0" of=/dev/null bs=64k skip=128 count=1 iflag=direct
check_eq "trespass back to A via A0 (short page)" good "$(trespass_result "$A0" ms6-short 81)"
check "new data reads back through A0" reads_back "$CL_TMP/two" "$A0"
check "sg_dd through A1 reads the same" sh -c "sg_dd if='$A1' of='$CL_TMP/sgdd' bs=512 skip=16384 count=2048 >/dev/null 2>&1 && cmp '$CL_TMP/two' '$CL_TMP/sgdd'"
check_fail "old data is gone" reads_back "$CL_TMP/one" "$A0"
# Rest of the LUN untouched: first 8 MiB still zero.
head -c $((8 * 1024 * 1024)) /dev/zero >"$CL_TMP/z8"
dd if="$A0" of="$CL_TMP/first8" bs=1M count=8 iflag=direct 2>/dev/null
check "rest of the LUN still zero" cmp "$CL_TMP/z8" "$CL_TMP/first8"

clariion_stop
