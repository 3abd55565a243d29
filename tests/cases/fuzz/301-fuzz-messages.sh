#!/bin/bash
# Message fuzz: random messages on a live map checked against a model.
# Message fuzz: a live map (3 PGs of 2 paths) gets thousands of random and
# mutated messages (wrong counts, boundary numbers, absent and foreign
# devices, case changes, huge argument lists, empty messages, sectors
# outside the map). Each must return what the model of the documented
# messages says, the status must then agree with the model (A/F, fail
# counts, disabled groups, queue_if_no_path), and reads check the PG choice,
# EIO without paths, queueing and release: never a crash or a wedged map.
# timeout: 300
source "${0%/*}/rc"

N=$(fuzz_count messages "$(per_kernel 8000 2000)")
fuzz_begin messages 8 dmfuzz-m || exit 1
mp_mods_load || { tap_fail "modules load"; exit 1; }
check "path devices signed" "$FUZZ" sign "${NB_DEVS[@]}" || exit 1

t0=$SECONDS
"$FUZZ" messages --seed "$SEED" --cases "$N" "${NB_DEVS[@]}" >/tmp/fuzz.out 2>&1
rc=$?
diag "dm-fuzz ran $((SECONDS - t0)) s"
grep -A 4 '^FAIL' /tmp/fuzz.out | head -n 80 | sed 's/^/# /'
sum=$(grep '^dm-fuzz messages: [0-9]' /tmp/fuzz.out)
diag "$sum"

cases=$(fuzz_field "$sum" cases)
# The first failed case in the check's own line: a summary that shows only
# the not-ok lines (CI) must still say what failed, and with which seed.
first=$(grep -m1 '^FAIL' /tmp/fuzz.out | cut -c1-300)
# No summary: dm-fuzz died (a signal) or stopped early; say how it ended.
[ -n "$sum" ] || first="${first:+$first; }no summary, exit $rc, last line: $(tail -n1 /tmp/fuzz.out | cut -c1-200)"
check_eq "dm-fuzz messages: exit status 0 (no failed case)${first:+ [$first]}" 0 "$rc"
check_eq "dm-fuzz messages: no failures" 0 "$(fuzz_field "$sum" failures)"
check "at least 5/8 of $N messages sent ($cases)" test "${cases:-0}" -ge $((N * 5 / 8))
check "at least 30% accepted" test "$(fuzz_field "$sum" accepted)" -ge $((cases * 30 / 100))
check "at least 20% rejected" test "$(fuzz_field "$sum" rejected)" -ge $((cases * 20 / 100))
check "reads probed the map often ($(fuzz_field "$sum" "read probes"))" \
	test "$(fuzz_field "$sum" "read probes")" -ge $((cases / 20))
check "some probes ran without a path: EIO" test "$(fuzz_field "$sum" "EIO without")" -ge 1
check "some probes queued and were released" test "$(fuzz_field "$sum" "queued then")" -ge 1

check_eq "no device-mapper device left" "No devices found" "$(dmsetup ls 2>&1)"
check "the path devices are free (null_blk unloads)" fuzz_nullb_down
check "dm-multipath and dm-round-robin unload" mp_mods_unload
