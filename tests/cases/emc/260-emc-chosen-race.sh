#!/bin/bash
# A lockless choice that loses a race with a total loss is not sent into a
# PG that must be initialised again (review finding 2, issue 29).
# map() asks a per-bio selector without m->lock; a choice with a repeat
# budget of its own (round-robin, repeat_count > 1) is then installed under
# the lock by map_bio_chosen(). If every path is lost and one reinstated in
# between, the PG must get a pg_init again before it carries I/O (the
# array may have moved the LUN meanwhile). The window is a few
# instructions wide: tests/modules/mptest_stall.ko (a kprobe) holds one bio
# at map_bio_chosen()'s entry while this scenario, on the other CPU, fails
# SP A's ports (SP B's were failed before: the loss is total), moves the LUN
# to SP B (another host's trespass) and reinstates the port the held bio
# chose; then it releases the bio. The bio must then wait for the
# pg_init (dm-emc trespasses the LUN back to SP A) and read the right data:
# before the fix it went to the port at once, SP A was no longer the owner,
# the port was failed for it (fail count 2) and the read got EIO.
# Stock Debian 6.1 kernel (kprobes on ftrace); no scsi_dh attached, no udev.
# The guest has two CPUs: the held bio spins on one, this script runs on the
# other.
# timeout: 240
source "${0%/*}/rc"

declare -A N
STALL_KO=$KO_DIR/tests/modules/mptest_stall.ko
STALL=/sys/module/mptest_stall/parameters
MP=/dev/mapper/mprace

on_exit mp_mods_unload
clariion_start --ports-per-sp 2 || exit 1
on_exit "dm_remove mprace"
check "modules load" mp_mods_load || exit 1
check "modprobe dm-emc" modprobe dm-emc || exit 1
for p in A0 A1 B0 B1; do N[$p]=$(devnum "${CL_DEV[$p]}"); done
S=$(blockdev --getsz "${CL_DEV[A0]}")
# PG1: A0 for one bio, A1 for two: the choice of A1 goes through
# map_bio_chosen(), the choice of A0 keeps map() on the lockless path.
t="0 $S multipath 0 1 emc 2 1 round-robin 0 2 1 ${N[A0]} 1 ${N[A1]} 2"
t+=" round-robin 0 2 1 ${N[B0]} 1 ${N[B1]} 1"
check "create map (PG1 = SP A: repeat_count 1 and 2; PG2 = SP B)" dm_create mprace "$t" || exit 1

check "insmod mptest_stall (a kprobe on map_bio_chosen)" insmod "$STALL_KO" hold_ms=15000 || exit 1
on_exit "rmmod mptest_stall"

# The data to expect, and the PG in use after its pg_init.
want=$(dd if=$MP bs=4k count=8 skip=64 iflag=direct status=none | md5sum)
check_eq "PG1 in use" "A E" "$(pg_states mprace)"
check_eq "the LUN on SP A" A "$(cl_ctl owner)"
cl_ctl reset-counters >/dev/null

# SP B's ports first (the window is short in a loaded emulated guest):
# the loss is total once SP A's go too.
for p in B0 B1; do dmsetup message mprace 0 fail_path "${N[$p]}"; done
echo 1 >"$STALL/armed"
dd if=$MP bs=4k count=8 skip=64 iflag=direct status=none 2>/tmp/race.err | md5sum >/tmp/race.sum &
reader=$!
check "a bio is held at map_bio_chosen" wait_until 30 grep -qx 1 "$STALL/holding"
# Every path lost, the LUN moved by somebody else, the chosen port back;
# all while the bio is still held (checked before it is let go).
t0=$(date +%s%N)
for p in A0 A1; do dmsetup message mprace 0 fail_path "${N[$p]}"; done
cl_ctl owner B >/dev/null
dmsetup message mprace 0 reinstate_path "${N[A1]}"
held=$(cat "$STALL/holding")
st=$(dmsetup status mprace)
echo 1 >"$STALL/release"
diag "the map changed in $((($(date +%s%N) - t0) / 1000000)) ms while the bio was held"
check_eq "the map changed while the bio was held" 1 "$held"
check_eq "all ports failed, then A1 reinstated" "A0:F A1:A B0:F B1:F" \
	"$(for p in A0 A1 B0 B1; do
		printf '%s:%s ' $p "$(grep -o " ${N[$p]} [AF]" <<<"$st" | cut -d' ' -f3)"
	done | sed 's/ $//')"

check "the reader ends" wait_until 60 sh -c "! kill -0 $reader 2>/dev/null"
wait "$reader"
check_eq "the held read got no error" "" "$(cat /tmp/race.err)"
check_eq "it read the data (md5 as before)" "$want" "$(cat /tmp/race.sum)"
check_eq "the probe held exactly one bio, released (not expired)" "1 0" \
	"$(cat "$STALL/hits") $(cat "$STALL/expired")"
check_match "A1 failed once (the message), not again for the held bio" \
	" ${N[A1]} A 1 " "$(dmsetup status mprace)"
check_eq "the pg_init moved the LUN back to SP A" A "$(cl_ctl owner)"
check_eq "with one trespass, to A" "1 0" "$(cl_counter A trespass_ok) $(cl_counter B trespass_ok)"
