#!/bin/bash
# dm-emc module: loading, autoload, table arguments and module parameters.
# dm-emc: modprobe finds our module, a table naming "emc" autoloads it, the
# status TABLE line reproduces the handler arguments, bad arguments are
# refused with a kernel log line naming what was wrong, and the module
# parameters refuse values out of range.
# timeout: 300
source "${0%/*}/rc"

P=/sys/module/dm_emc/parameters

f=$(modinfo -n dm-emc 2>&1)
check_match "modinfo -n dm-emc is our copy under updates/" "/updates/.*/dm-emc\.ko$" "$f"
check "modprobe dm-emc" modprobe dm-emc
check "dm-emc pulled in dm-multipath (it uses its registry)" test -d /sys/module/dm_multipath
check_eq "trespass_timeout defaults to 30 s" 30 "$(cat $P/trespass_timeout 2>&1)"
check_eq "trespass_retries defaults to 3" 3 "$(cat $P/trespass_retries 2>&1)"
check_fail "trespass_timeout=0 refused" sh -c "echo 0 > $P/trespass_timeout"
check_fail "trespass_timeout=601 refused" sh -c "echo 601 > $P/trespass_timeout"
check_fail "trespass_timeout=5x refused" sh -c "echo 5x > $P/trespass_timeout"
check_fail "trespass_retries=11 refused" sh -c "echo 11 > $P/trespass_retries"
check_eq "trespass_timeout unchanged by refused writes" 30 "$(cat $P/trespass_timeout 2>&1)"
check "trespass_timeout=5 accepted" sh -c "echo 5 > $P/trespass_timeout"
check_eq "trespass_timeout now 5" 5 "$(cat $P/trespass_timeout 2>&1)"
check "modprobe -r dm-emc" modprobe -r dm-emc
check_fail "dm_emc gone" test -d /sys/module/dm_emc

mp_fixture 1 mpemc
dev=${DEVNUMS[0]}
table() { echo "0 $SECTORS multipath 0 $1 1 1 round-robin 0 1 0 $dev"; }

# --- autoload -------------------------------------------------------------
check_fail "dm_emc not loaded before a table names it" test -d /sys/module/dm_emc
check "create with '1 emc' succeeds" dm_create mpemc "$(table "1 emc")"
check "the table autoloaded dm_emc" test -d /sys/module/dm_emc
check_match "status TABLE reproduces '1 emc'" "^0 $SECTORS multipath 0 1 emc 1 1 round-robin " \
	"$(dmsetup table mpemc)"
check_match "status INFO has the handler section '0'" "^0 $SECTORS multipath 1 0 0 1 1 [AE] " \
	"$(dmsetup status mpemc)"
check_fail "dm_emc refuses to unload while a map uses it" modprobe -r dm_emc
check "remove the map" dm_remove mpemc
check "dm_emc unloads once no map uses it" modprobe -r dm_emc

# --- good arguments round-trip ---------------------------------------------
for a in "3 emc 0 0" "3 emc 1 0" "3 emc 0 1" "3 emc 1 1"; do
	if check "create with '$a'" dm_create mpemc "$(table "$a")"; then
		check_match "status TABLE reproduces '$a'" \
			"^0 $SECTORS multipath 0 $a 1 1 round-robin " "$(dmsetup table mpemc)"
		check "remove the '$a' map" dm_remove mpemc
	fi
done

# --- bad arguments: refused, each with its own kernel log line -------------
bad=(
	"2 emc 1|expected 0 or 2 arguments .*got 1"
	"4 emc 1 0 1|expected 0 or 2 arguments .*got 3"
	"3 emc 2 0|invalid short_trespass '2': expected 0 or 1"
	"3 emc 0 2|invalid honor_reservation '2': expected 0 or 1"
	"3 emc 1 x|invalid honor_reservation 'x'"
	"3 emc 1x 0|invalid short_trespass '1x'"
	"3 emc -1 0|invalid short_trespass '-1'"
	"3 emc 0 4294967297|invalid honor_reservation '4294967297'"
)
for b in "${bad[@]}"; do
	a=${b%%|*}
	want=${b#*|}
	kmsg_mark
	check_fail "'$a' refused" dm_create mpemc "$(table "$a")"
	log=$(kmsg_since)
	check_match "'$a': kernel log says why" "multipath emc: $want" "$log"
	check_match "'$a': the core reports the constructor failure" \
		"hardware handler constructor failed" "$log"
	check_fail "'$a': no map left behind" dmsetup info mpemc
	dm_remove mpemc
done
check_eq "no emc map exists after the refusals" "" "$(dmsetup ls --target multipath 2>/dev/null | grep -v 'No devices')"
