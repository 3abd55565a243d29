#!/bin/bash
# Table parser fuzz: thousands of generated tables judged by the oracle.
# Table parser fuzz: thousands of generated tables (valid ones, mutations of
# valid ones at every boundary, word soup) loaded through the DM ioctls and
# judged by the oracle of tests/fuzz/oracle.c, for the four path selectors
# (round-robin, queue-length, service-time, historical-service-time) with
# their arguments at and past every limit: valid ones load and print back
# the canonical table, which loads again and prints itself; invalid ones get
# EINVAL, a "device-mapper: table: ...: multipath: <why>" line and leave no
# table; some valid ones are made live and read through. The feature count
# at its edge: 16, 17 and 18 words load (every feature once is 18, with the
# four probation_* ones), 19 and 20 are refused for "invalid number of
# feature arguments"; a live map sent "queue_if_no_path" prints that
# feature too (17 words become 18) and its
# TABLE loads again. A sample goes through dmsetup too. Afterwards nothing may hold a path device, a module
# or slab memory.
# timeout: 600
source "${0%/*}/rc"

N=$(fuzz_count tables "$(per_kernel 6000 1500)")
fuzz_begin tables 64 fzx || exit 1
# Every selector the generator names is loaded before modprobe is pointed
# at nothing below: a valid table must not depend on request_module().
for m in dm-emc dm-queue-length dm-service-time dm-historical-service-time; do
	mp_mods_load && modprobe "$m" || { tap_fail "modules load ($m)"; exit 1; }
done
fuzz_modules_mark
check "path devices signed" "$FUZZ" sign "${NB_DEVS[@]}" || exit 1

# Objects in use in the slab caches a table load allocates from (kmalloc,
# device-mapper's and the bio caches): the rest (maple_node, vm_area_struct,
# ...) follow the guest's processes, not the tables. Every cache is shrunk
# first: that frees what only waits to be freed, including, on the debug
# kernel, the objects KASAN holds in its quarantine (counted as in use until
# it lets them go).
slab() {
	local f
	for f in /sys/kernel/slab/*/shrink; do echo 1 >"$f" 2>/dev/null; done
	awk 'NR > 2 && $1 ~ /^(kmalloc-|dm_|bio)/ { print $1, $2 }' /proc/slabinfo | sort
}
slab >/tmp/slab.before

# The kernel's modprobe points at nothing (fuzz_begin: fuzz_no_autoload)
# for the bulk run and the dmsetup sample alike.
t0=$SECONDS
"$FUZZ" tables --seed "$SEED" --cases "$N" "${NB_DEVS[@]}" >/tmp/fuzz.out 2>&1
rc=$?
diag "dm-fuzz ran $((SECONDS - t0)) s"
grep -A 4 '^FAIL' /tmp/fuzz.out | head -n 80 | sed 's/^/# /'
sum=$(grep '^dm-fuzz tables: [0-9]' /tmp/fuzz.out)
diag "$sum"
grep '^dm-fuzz tables: time' /tmp/fuzz.out | sed 's/^/# /'
edge=$(grep '^dm-fuzz tables: feature edge' /tmp/fuzz.out)
diag "$edge"

cases=$(fuzz_field "$sum" cases)
valid=$(fuzz_field "$sum" valid)
invalid=$(fuzz_field "$sum" invalid)
accepted=$(fuzz_field "$sum" accepted)
live=$(fuzz_field "$sum" "made live")
# The first failed case in the check's own line: a summary that shows only
# the not-ok lines (CI) must still say what failed, and with which seed.
first=$(grep -m1 '^FAIL' /tmp/fuzz.out | cut -c1-300)
# No summary: dm-fuzz died (a signal) or stopped early; say how it ended.
[ -n "$sum" ] || first="${first:+$first; }no summary, exit $rc, last line: $(tail -n1 /tmp/fuzz.out | cut -c1-200)"
check_eq "dm-fuzz tables: exit status 0 (no failed case)${first:+ [$first]}" 0 "$rc"
check_eq "dm-fuzz tables: no failures" 0 "$(fuzz_field "$sum" failures)"
check "at least 5/6 of $N cases ran ($cases)" test "${cases:-0}" -ge $((N * 5 / 6))
# A fuzz that only ever hits one branch proves little: both kinds, in bulk.
check "at least 15% of the cases valid ($valid)" test "${valid:-0}" -ge $((cases * 15 / 100))
check "at least 40% of the cases invalid ($invalid)" test "${invalid:-0}" -ge $((cases * 40 / 100))
check_eq "accepted = valid" "$valid" "$accepted"
check "some valid tables were made live and read through ($live)" test "${live:-0}" -ge $((N / 300))
# The feature count's edge was reached from both sides (each such table was
# judged above: a valid one that did not load, an 11-word one that did, or
# a TABLE after queue_if_no_path that did not load again is a failure).
check "valid tables with 17 or 18 feature words ($(fuzz_field "$edge" "valid with"))" \
	test "$(fuzz_field "$edge" "valid with")" -ge 1
check "tables with 19 or 20 feature words ($(fuzz_field "$edge" "with 19-20"))" \
	test "$(fuzz_field "$edge" "with 19-20")" -ge 1
check "live maps printing the most feature words after queue_if_no_path reloaded ($(fuzz_field "$edge" "printing the most"))" \
	test "$(fuzz_field "$edge" "printing the most")" -ge 1

# The same judgement through dmsetup, for a sample (a second a call here).
# From "/": the generated tables name some paths relative to it ("dev/nullbN").
cd / || exit 1
"$FUZZ" emit --seed "$SEED" --first 100000 --cases 24 "${NB_DEVS[@]}" >/tmp/fuzz.emit
ok=0 bad=0
while IFS=$'\t' read -r k verdict canon table; do
	if dmsetup create fzx --table "0 2048 multipath $table" </dev/null >/dev/null 2>&1; then
		got=$(dmsetup table fzx | sed 's/^0 2048 multipath //')
		if [ "$verdict" = valid ] && [ "$(echo $got)" = "$(echo $canon)" ]; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
			diag "dmsetup case $k ($verdict) accepted: '$table' -> '$got'"
		fi
		dm_remove fzx
	elif [ "$verdict" = invalid ] && ! dmsetup info fzx >/dev/null 2>&1; then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		diag "dmsetup case $k ($verdict) rejected: '$table'"
		dm_remove fzx
	fi
done </tmp/fuzz.emit
check_eq "dmsetup agrees with the oracle on $ok of 24 sample tables" 24 "$ok"

fuzz_no_module_loaded
check_eq "no device-mapper device left" "No devices found" "$(dmsetup ls 2>&1)"
check "the path devices are free (null_blk unloads)" fuzz_nullb_down
check "dm-multipath, its selectors and dm-emc unload" mp_mods_unload

# A leak in a constructor error path grows some slab by (a share of) the
# case count: compare against a tenth of it. Objects that RCU callbacks or
# work items free a little later are not leaked: read again, up to three
# times 2 s apart, while the growth is over the bound (a leak stays).
for try in 1 2 3; do
	slab >/tmp/slab.after
	grow=$(join /tmp/slab.before /tmp/slab.after | awk '{ print $3 - $2, $1 }' | sort -rn | head -n 3)
	diag "largest slab growth (objects, cache), read $try: $(echo $grow)"
	top=$(awk 'NR == 1 { print $1 }' <<<"$grow")
	[ "${top:-0}" -lt $((cases / 10)) ] && break
	sleep 2
done
check "no slab cache grew by $((cases / 10)) objects or more" test "${top:-0}" -lt $((cases / 10))
