#!/bin/bash
# Soak: verified fio on three maps through seeded chaos; no error, all events.
# Soak (issues 5, 21): crc32c-verified fio through a 5-path, 2-PG map, a map
# on the emulated CLARiiON ("1 emc") and a map on the LIO ALUA array
# ("1 alua") while a seeded chaos driver offlines, deletes and rescans
# paths, flips a flakey/delay stack under one path, sends
# fail/reinstate/switch/disable/enable and queue_if_no_path toggles, takes
# all paths down (queueing) and back, suspends (flush and noflush), reloads
# tables that add and remove paths, trespasses the LUN both ways, and has
# the ALUA array swap, transition, standby and unavailable its groups while
# our switch_group makes dm-alua send STPG. No verify error, no I/O error,
# every event counted, LIO's states as the last action left them,
# everything unloads afterwards. With mptest.soakiscsi=L on the guest
# command line (run-soak sets it), a map over the iSCSI SAN of tests/iscsi
# too, whose L links are cut (down, netem loss, iptables DROP), flap, slow
# down and all go silent at once while its I/O queues with a bound that
# must never fire. See tests/soak/README.md;
# tests/soak/run-soak runs it for longer (it rewrites the timeout below from
# the duration).
# tier: full (about 4 min; CI runs the cross-kernel set after the 6.1 suite and keeps its hour: 300/301 fuzz and every family exercise the same code in the default run; make soak runs this for longer)
# timeout: 480
source "${0%/*}/rc"

# mptest.soakduration=S mptest.soakseed=N on the guest command line
# (GUEST_CMDLINE) override the defaults: 200 s, a fresh seed.
dur=$(soak_param duration 200)
seed=$(soak_param seed "$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')")
soak_main "$dur" "$seed"
