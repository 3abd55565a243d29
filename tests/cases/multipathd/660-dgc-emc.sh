#!/bin/bash
# multipathd 0.9.4 on the emulated CLARiiON with its built-in DGC entry: 1 emc, PGs by prio, failover and failback.
# udevd and multipathd run in the guest (tests/lib/multipathd.sh);
# multipath.conf only sets a short checker interval. multipathd's defaults
# and its DGC entry do the rest: service-time 0 (our dm-service-time), "1 emc", group_by_prio with the
# emc prioritizer (SP A, the default owner, first), the emc_clariion
# checker, failback immediate. With fio writing and verifying, SP A's ports
# fail: exactly one trespass goes to SP B and I/O goes on there with no
# error; when the ports return, multipathd's checker reinstates them and
# fails back to SP A (one trespass back), where the data verifies. Runs
# with scsi_dh_emc blocked (as guest-init leaves it).  The trespasses are
# counted as the stock stack makes them: none at map creation (SP A owns
# the LUN), exactly one to B, exactly one back to A, none in the wrong
# direction (661 runs the same on the distro's dm-multipath with
# scsi_dh_emc, 662 on ours with scsi_dh_emc attached).
# Only with multipath-tools 0.9.4 (bookworm's guest): 0.11's hardware table
# names no handler (it writes the attached scsi_dh, none here), so the map
# it makes has no way to move the LUN; 662 runs 0.11.1 the stock way, with
# scsi_dh_emc attached, where it writes "1 emc".
# skip-kernel: *+deb13-amd64 the trixie guest's multipath-tools 0.11.1 writes no handler without an attached scsi_dh (its hardware table names none); 662 runs it with scsi_dh_emc attached
# timeout: 720
source "${0%/*}/rc"
source "$REPO/tests/clariion/lib.sh"
# MPD_STACK=distro (661): the distro's dm-multipath and selectors, insmod
# by path, serve the table ("1 emc" then means its scsi_dh_emc).
MPD_STACK=${MPD_STACK:-ours}
stack_load() {
	if [ "$MPD_STACK" = distro ]; then
		distro_insmod dm-multipath dm-round-robin dm-service-time
	else
		mp_mods_load
	fi
}

MPD_LOG=/tmp/multipathd-660.log

# mpd_paths: "dev checker-state dm-state prio" per path of every map
mpd_paths() { multipathd show paths raw format "%d %T %t %p"; }
# mpd_path_is DEV CHECKER DMSTATE: multipathd shows DEV so
mpd_path_is() { [[ $(mpd_paths) =~ (^|$'\n')$1\ $2\ $3\  ]]; }
# both_are PORT PORT CHECKER DMSTATE
both_are() { mpd_path_is "${NAME[$1]}" "$3" "$4" && mpd_path_is "${NAME[$2]}" "$3" "$4"; }
all_ready() { [ "$(mpd_paths | grep -c " ready active ")" = 4 ]; }

# pg_of DEVNUM: which PG (1-based) of the map's table holds that path
pg_of() { table_pgs "$MAP" | awk -v d="$1" '{ for (i = 2; i <= NF; i++) if ($i == d) print $1 }'; }

declare -A N NAME
clariion_start --ports-per-sp 2 || exit 1
# multipathd stopped, maps flushed, configuration removed, udevd stopped,
# modules unloaded; then the CLARiiON (registered first, undone last).
on_exit mpd_cleanup
for p in A0 A1 B0 B1; do
	N[$p]=$(devnum "${CL_DEV[$p]}")
	NAME[$p]=${CL_DEV[$p]##*/}
done

# ---- configuration: only what this project needs --------------------------
mkdir -p /etc/multipath
cat >"$MPD_CONF" <<'EOF'
defaults {
	# a short test: notice a returned path within seconds
	polling_interval 2
	max_polling_interval 4
}
EOF
udevd_start
check "udevd started, block devices triggered and settled" udevd_running || exit 1
cl_ctl reset-counters >/dev/null
check "modules load ($MPD_STACK, as multipathd's modprobe would find them)" stack_load || exit 1
# find_multipaths "strict" (the default): the admin names the LUN once.
check "multipath -a A0 (add the LUN's WWID)" multipath -a "${CL_DEV[A0]}"
mpd_start
check "multipathd is running and answers" mpd_running
MAP=
map_up() { MAP=$(multipathd show maps raw format "%n" 2>/dev/null) && [ -n "$MAP" ] && dmsetup info "$MAP"; }
if ! check "multipathd creates the map" wait_until 90 map_up; then
	diag "$(tail -n 30 "$MPD_LOG")"
	exit 1
fi
map_up >/dev/null	# (wait_until ran it in a subshell)
T=$(dmsetup table "$MAP")
diag "map $MAP: $T"
check_match "table: hardware handler '1 emc' (the DGC entry)" " multipath [0-9]+ (.* )?1 emc 2 1 " "$T"
check_match "table: service-time, multipathd's default" "service-time 0 2 2 .* service-time 0 2 2 " "$T"
check_eq "PG1 (higher prio) = SP A's ports" "1 1" "$(pg_of "${N[A0]}") $(pg_of "${N[A1]}")"
check_eq "PG2 = SP B's ports" "2 2" "$(pg_of "${N[B0]}") $(pg_of "${N[B1]}")"
check "every path's checker up" wait_until 30 all_ready
P=$(mpd_paths)
diag "multipathd show paths (dev checker dm prio): ${P//$'\n'/; }"
# multipath-tools 0.9.4's emc prioritizer: the LUN state VPD 0xC0 byte 4
# reports through the port (2 owned by its SP, 1 bound), plus 2 if the
# port's SP is the LUN's default owner (byte 5 == byte 8); -1 if the page
# says the array is not set up for failover (byte 27, 28, 30) or in NDU.
NL=$'\n'
for p in A0 A1; do
	check_match "$p: emc prio 4 (owned 2 + default owner 2)" "(^|$NL)${NAME[$p]} ready active 4( |$NL|$)" "$P"
done
for p in B0 B1; do
	check_match "$p: emc prio 1 (bound 1)" "(^|$NL)${NAME[$p]} ready active 1( |$NL|$)" "$P"
done
if [ "$MPD_STACK" = ours ]; then
	check "dm-emc (ours) was loaded for it" test -d /sys/module/dm_emc
else
	check_eq "the distro's target ($MPATH_TARGET_VERSION)" "$MPATH_TARGET_VERSION" "$(dmsetup targets | awk '$1 == "multipath" {print $2}')"
fi
check_eq "map creation: no trespass (SP A owns the LUN)" "0 0" "$(cl_counter A trespass) $(cl_counter B trespass)"

# ---- failover under fio ------------------------------------------------------
MP=/dev/mapper/$MAP
cl_ctl reset-counters >/dev/null
fio_start_until_stopped "$MP" 16k 24 "$CL_TMP/fio.json"
check "fio is writing through SP A" wait_until 60 cl_counter_ge A media 50
check_eq "no trespass to B yet" 0 "$(cl_counter B trespass)"
kmsg_mark
check "fail A0 (transport)" cl_ctl fail A0 transport
check "fail A1 (transport)" cl_ctl fail A1 transport
check "the trespass to SP B completes" wait_until 60 cl_counter_ge B trespass_ok 1
check "I/O goes on through SP B" wait_until 60 cl_counter_ge B media 20
fio_stop_verified
# multipathd reloads the table as the paths' states and priorities change;
# each new table's first pg_init trespasses again, to the owner already (a
# no-op for the array): "moved" counts the trespasses that moved the LUN.
check_eq "exactly one trespass moved the LUN to SP B" 1 "$(cl_counter B moved)"
check_eq "... and it is the only one SP B received, none to A" "1 0" "$(cl_counter B trespass) $(cl_counter A trespass)"
check_eq "LUN owned by B" B "$(cl_ctl owner)"
check "multipathd's checker: A0 and A1 faulty" wait_until 30 both_are A0 A1 faulty failed
check "B0 and B1 still up" both_are B0 B1 ready active
if [ "$MPD_STACK" = ours ]; then
	check_match "kernel log: dm-emc trespassed to a B port" \
		"multipath emc: (${N[B0]}|${N[B1]}) .*long trespass done" "$(kmsg_since)"
fi

# ---- failback: the ports return ------------------------------------------
# What fio left, as SP B serves it: SP A must serve the same after failback
# (read after the counts above: a pg_init of a table multipathd reloaded
# trespasses again, to the owner).
sumB=$(region_md5 "$MP" 24)
check_eq "SP B serves the 24 MiB fio wrote (read status)" 0 $?
cl_ctl reset-counters >/dev/null
t0=$(ms_now)
check "restore A0" cl_ctl restore A0
check "restore A1" cl_ctl restore A1
check "multipathd reinstates A0 and A1" wait_until 90 both_are A0 A1 ready active
# failback immediate: multipathd switches to PG1; its pg_init trespasses
# with the first I/O (or at once, if I/O is queued)
dd if="$MP" of=/dev/null bs=4k count=1 iflag=direct status=none
check "failback: the LUN is trespassed back to SP A" wait_until 60 cl_counter_ge A trespass_ok 1
diag "ports back -> trespass to A in $(($(ms_now) - t0)) ms"
check_eq "LUN owned by A" A "$(cl_ctl owner)"
check_eq "one trespass moved the LUN back, none moved it to B" "1 0" "$(cl_counter A moved) $(cl_counter B moved)"
# A pg_init of a table multipathd reloaded for the failure, to B (the
# owner at the time), may land in this window: it asks and finds B
# owning the LUN (or, after the failback, must not trespass to B at all).
check_eq "exactly one trespass received, by SP A; none by SP B" "1 0" "$(cl_counter A trespass) $(cl_counter B trespass)"
cl_ctl reset-counters >/dev/null
sumA=$(region_md5 "$MP" 24)
check_eq "SP A serves the 24 MiB (read status)" 0 $?
check_eq "SP A serves the data fio left through SP B" "$sumB" "$sumA"
check "the reads went through A" test "$(cl_counter A media)" -gt 0
check_eq "none through B" 0 "$(cl_counter B media)"

diag "multipathd's log: $(grep -cE 'prio|checker' "$MPD_LOG") prio/checker lines; its path events:"
grep -E 'reinstated|switch|mark as failed|path down|remaining active' "$MPD_LOG" | tail -n 8 |
	while IFS= read -r l; do diag "$l"; done

# ---- teardown, checked --------------------------------------------------------
mpd_finish
