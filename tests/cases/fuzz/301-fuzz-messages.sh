#!/bin/bash
# Message fuzz: random messages on a live map checked against a model.
# Message fuzz: a live map (3 PGs of 2 paths) gets thousands of random and
# mutated messages (wrong counts, boundary numbers, absent and foreign
# devices, case changes, huge argument lists, empty messages, sectors
# outside the map). Each must return what the model of the documented
# messages says, the status must then agree with the model (A/F, fail
# counts, disabled groups, queue_if_no_path, paths on probation after their
# count of failures), and reads check the PG choice,
# EIO without paths, queueing and release: never a crash or a wedged map.
# The map's features change every 200 messages (none: probation at its
# defaults; 17 words: probation after 2 failures for the whole run; all 18:
# probation off): its TABLE must load again, 18 words after a
# queue_if_no_path on 17. Now and
# then the map is suspended (flush or noflush) and gets messages: each is
# refused (EBUSY) and changes neither status; after resume the model holds.
# Then the same through dmsetup: a 9-word map, queue_if_no_path, dmsetup
# table shows 10 words, dmsetup reload takes them; dmsetup message to the
# map after dmsetup suspend (and --noflush) exits non-zero, valid message
# or not, and table and status stay as they were.
# timeout: 300
source "${0%/*}/rc"

N=$(fuzz_count messages "$(per_kernel 8000 2000)")
fuzz_begin messages 8 dmfuzz-m || exit 1
mp_mods_load || { tap_fail "modules load"; exit 1; }
fuzz_modules_mark
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
suspends=$(fuzz_field "$sum" "suspends")
noflush=$(fuzz_field "$sum" "of them noflush")
check "the map was suspended with flush and with noflush ($suspends, $noflush noflush)" \
	test "${noflush:-0}" -ge 1 -a "${suspends:-0}" -gt "${noflush:-0}"
check "messages were refused busy while suspended ($(fuzz_field "$sum" "refused busy"))" \
	test "$(fuzz_field "$sum" "refused busy")" -ge "${suspends:-1}"
check "the status showed paths on probation, as the model says ($(fuzz_field "$sum" "statuses with a path"))" \
	test "$(fuzz_field "$sum" "statuses with a path")" -ge 1
check "the live TABLE reloaded with the most feature words ($(fuzz_field "$sum" "with the most feature"))" \
	test "$(fuzz_field "$sum" "with the most feature")" -ge 1

# The same through dmsetup (a second a call here), on a map of its own
# (whatever dm-fuzz left behind). All features but queue_if_no_path: 9
# words, in an order the TABLE does not use.
on_exit "dmsetup remove dmfuzz-d"
T9="9 queue_if_no_path_timeout_secs 600 pg_init_retries 2 queue_mode bio"
T9+=" retain_attached_hw_handler pg_init_delay_msecs 50"
PGS="0 1 1 round-robin 0 2 1 ${NB_DEVS[0]} 1 ${NB_DEVS[1]} 1"
# The TABLE shows 9 (8: target 1.15.0 no longer shows
# retain_attached_hw_handler, it always keeps an attached handler).
if [ "$MPATH_TARGET_VERSION" = v1.14.0 ]; then R=" retain_attached_hw_handler" n=9; else R="" n=8; fi
F9="pg_init_retries 2 pg_init_delay_msecs 50$R queue_mode bio queue_if_no_path_timeout_secs 600"
if check "dmsetup create: 9 feature words" dm_create dmfuzz-d "0 2048 multipath $T9 $PGS"; then
	check_match "dmsetup table: the $n words" "^0 2048 multipath $n $F9 0 " "$(dmsetup table dmfuzz-d)"
	check "dmsetup message queue_if_no_path" dmsetup message dmfuzz-d 0 queue_if_no_path
	t10=$(dmsetup table dmfuzz-d)
	check_match "dmsetup table: $((n + 1)) feature words" \
		"^0 2048 multipath $((n + 1)) queue_if_no_path $F9 0 " "$t10"
	check "dmsetup reload of that table" dm_reload dmfuzz-d "$t10"
	check "dmsetup resume: the reloaded table goes live" dmsetup resume dmfuzz-d
	check_eq "the new map prints the same table" "$t10" "$(dmsetup table dmfuzz-d)"
	dm_remove dmfuzz-d
fi

# Messages to a suspended map, valid ones (each would change the table or
# the status) and not: every one refused, nothing changed.
dm_status() { dmsetup table dmfuzz-d; dmsetup status dmfuzz-d; }
if check "dmsetup create: a queue_if_no_path map" dm_create dmfuzz-d "0 2048 multipath 1 queue_if_no_path $PGS"; then
	n0=$(devnum "${NB_DEVS[0]}") fc=0
	for how in "" --noflush; do
		check "dmsetup suspend $how" dmsetup suspend $how dmfuzz-d
		before=$(dm_status)
		for msg in "fail_if_no_path" "fail_path ${NB_DEVS[0]}" "switch_group 1" \
			"disable_group 1" "queue_if_no_path" "no_such_message" "fail_path"; do
			# shellcheck disable=SC2086 # the message's words
			check_fail "suspended${how:+ ($how)}: dmsetup message $msg exits non-zero" \
				dmsetup message dmfuzz-d 0 $msg
		done
		check_eq "suspended${how:+ ($how)}: table and status unchanged" "$before" "$(dm_status)"
		check "dmsetup resume" dmsetup resume dmfuzz-d
		check_eq "resumed: the table as before" "$(head -n1 <<<"$before")" "$(dmsetup table dmfuzz-d)"
		check "resumed: dmsetup message fail_path is taken" \
			dmsetup message dmfuzz-d 0 fail_path "${NB_DEVS[0]}"
		fc=$((fc + 1))
		check_match "resumed: the path is failed (its count $fc)" " $n0 F $fc " "$(dmsetup status dmfuzz-d)"
		dmsetup message dmfuzz-d 0 reinstate_path "${NB_DEVS[0]}"
	done
	dm_remove dmfuzz-d
fi

fuzz_no_module_loaded
check_eq "no device-mapper device left" "No devices found" "$(dmsetup ls 2>&1)"
check "the path devices are free (null_blk unloads)" fuzz_nullb_down
check "dm-multipath and dm-round-robin unload" mp_mods_unload
