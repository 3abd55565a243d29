# shellcheck shell=bash
# multipathd (multipath-tools 0.9.4) in the test guest, the way a stock
# Debian system runs it: systemd-udevd processing the uevents (multipathd
# learns about paths from the udev database), /etc/multipath.conf, the daemon
# in the foreground as its systemd unit starts it (multipathd -d -s), after
# "modprobe dm-multipath" as the unit's ExecStartPre does.
#
# Source after common.sh.  mpd_setup registers the cleanup: on exit no
# daemon, no map, no configuration and none of our modules are left
# (guest-init's check_clean would fail the scenario otherwise).
#
# The guest's /etc and /run are tmpfs-backed: what is written here is gone
# at poweroff, and mpd_cleanup removes it for the scenarios that follow.

MPD_CONF=/etc/multipath.conf
MPD_LOG=/tmp/multipathd.log
MPD_PID="" UDEVD_PID=""

# ---- udevd ----------------------------------------------------------------
# udevd_start: systemd-udevd in the background, then the block devices that
# already exist replayed through the rules ("add") so that the udev database
# knows them.  Only block devices: a trigger of every subsystem would load
# drivers for the guest's emulated hardware.
# Call it (and mpd_start) in the scenario's own shell, not in a command
# substitution such as check's: the daemon's PID must reach the clean-up.
# A second try after the first did not answer (seen once right after the
# previous scenario's udevd had exited), with its log as TAP comments.
udevd_start() {
	local try
	for try in 1 2; do
		wait_until 20 eval '! pidof systemd-udevd'
		/lib/systemd/systemd-udevd >/tmp/udevd.log 2>&1 &
		UDEVD_PID=$!
		wait_until 20 udevd_running && break
		diag "systemd-udevd (try $try) did not answer; its log:"
		tail -n 5 /tmp/udevd.log | sed 's/^/# udevd: /'
		kill "$UDEVD_PID" 2>/dev/null
		wait "$UDEVD_PID" 2>/dev/null
		UDEVD_PID=""
	done
	[ -n "$UDEVD_PID" ] || return 1
	udevadm trigger --action=add --subsystem-match=block || return 1
	udevadm settle --timeout=60
}
udevd_running() { udevadm control --ping --timeout=2 >/dev/null 2>&1; }
# udevd_stop: also a udevd whose PID this shell does not know
udevd_stop() {
	udevd_running || return 0
	udevadm settle --timeout=30
	udevadm control --exit 2>/dev/null
	wait_until 20 eval '! udevd_running'
	[ -z "$UDEVD_PID" ] || { kill "$UDEVD_PID" 2>/dev/null; wait "$UDEVD_PID" 2>/dev/null; }
	UDEVD_PID=""
	# On a loaded host it can still be finishing its workers (802 at host
	# load 10: still answering after 20 s): end it by name.
	if udevd_running; then
		pkill -x systemd-udevd
		wait_until 20 eval '! udevd_running'
	fi
	! udevd_running
}
# udev_prop DEV NAME: a property of DEV from the udev database
udev_prop() { udevadm info --query=property --name="$1" | sed -n "s/^$2=//p"; }

# ---- /etc/multipath.conf --------------------------------------------------
# mpd_conf_write WWID ALIAS [EXTRA_DEFAULTS [EXTRA_DEVICE]]: a configuration
# that multipaths only the LUN WWID (everything else is blacklisted by wwid)
# as map ALIAS, over scsi_debug paths.  The device section pins
# hardware_handler "0" (scsi_debug with vpd_use_hostno=0 claims implicit
# ALUA, for which multipathd 0.9.4 would write "1 alua") and path_selector
# "round-robin 0" (its default is "service-time 0"), so that these
# scenarios test multipathd's own behaviour with a fixed table; 651 runs
# with no configuration at all (mpd_setup ALIAS "-").
# multipath-tools 0.9.6 and later (trixie's 0.11.1) replace that grouping
# by group_by_prio when every path has the alua prioritizer
# (detect_pgpolicy, default yes): the device section turns it off there
# (0.9.4 does not know the word).
# EXTRA_DEFAULTS and EXTRA_DEVICE are more lines for those sections.
mpd_conf_write() {
	local detect=""
	dpkg --compare-versions "$(dpkg-query -W -f='${Version}' multipath-tools)" ge 0.9.6 &&
		detect="detect_pgpolicy no"
	mkdir -p /etc/multipath
	cat >"$MPD_CONF" <<-EOF
		defaults {
			user_friendly_names no
			find_multipaths no
			polling_interval 1
			max_polling_interval 4
			${3:-}
		}
		blacklist {
			wwid ".*"
		}
		blacklist_exceptions {
			wwid "^$1\$"
		}
		devices {
			device {
				vendor "Linux"
				product "scsi_debug"
				path_grouping_policy "multibus"
				path_selector "round-robin 0"
				hardware_handler "0"
				$detect
				${4:-}
			}
		}
		multipaths {
			multipath {
				wwid "$1"
				alias "$2"
			}
		}
	EOF
}
mpd_conf_remove() { rm -rf "$MPD_CONF" /etc/multipath; }

# ---- the daemon -----------------------------------------------------------
# mpd_start: multipathd in the foreground (-d), log without timestamps (-s)
# in $MPD_LOG, verbosity 3 (every table it loads is logged); waits until it
# answers on its socket.  The udev-synchronised device-mapper calls of a
# stock system: DM_DISABLE_UDEV (set for the scenarios' own dmsetup calls)
# is not passed on.
mpd_start() {
	modprobe dm-multipath || return 1
	env -u DM_DISABLE_UDEV multipathd -d -s -v3 >"$MPD_LOG" 2>&1 &
	MPD_PID=$!
	wait_until 30 mpd_running
}
# "pid N idle" between checker ticks, "pid N running" during one
mpd_running() { multipathd show daemon 2>/dev/null | grep -qE 'pid [0-9]+ (idle|running)'; }
# mpd_stop: through its socket, so also a daemon whose PID is not known
mpd_stop() {
	if mpd_running; then
		multipathd shutdown >/dev/null 2>&1
		wait_until 20 eval '! mpd_running'
	fi
	if [ -n "$MPD_PID" ]; then
		wait_until 10 eval "! kill -0 $MPD_PID" || kill -9 "$MPD_PID" 2>/dev/null
		wait "$MPD_PID" 2>/dev/null
	fi
	MPD_PID=""
	! mpd_running
}
# mpd_cmd ARGS...: a multipathd client command (its answer on stdout)
mpd_cmd() { multipathd "$@"; }
mpd_has_map() { dmsetup table "$1" 2>/dev/null | grep -q ' multipath '; }
# mpd_wait_map ALIAS N: until multipathd has made map ALIAS with N paths
mpd_wait_map() {
	local alias=$1 n=$2
	_mpd_nr_paths() { dmsetup table "$1" 2>/dev/null | grep -o ' [0-9]*:[0-9]* ' | wc -l; }
	# (eval: counted at every poll; alias and n, not $1 and $2, inside it)
	wait_until 60 eval '[ "$(_mpd_nr_paths "$alias")" -eq "$n" ]'
}
# mpd_path_states ALIAS: "dev dm_state chk_state" per path, from multipathd
mpd_path_states() {
	multipathd show paths raw format "%d %m %t %T" | awk -v m="$1" '$2 == m { print $1, $3, $4 }'
}
# mpd_chk_state ALIAS DEV: multipathd's checker state of path DEV (sdX)
mpd_chk_state() { mpd_path_states "$1" | awk -v d="$2" '$1 == d { print $3 }'; }
mpd_dm_state() { mpd_path_states "$1" | awk -v d="$2" '$1 == d { print $2 }'; }
# mpd_diag_topology ALIAS: multipathd's view and the kernel's, as TAP comments
mpd_diag_topology() {
	multipathd show maps topology 2>&1 | sed 's/^/# /'
	diag "table:  $(dmsetup table "$1" 2>&1)"
	diag "status: $(dmsetup status "$1" 2>&1)"
}
# mpd_check_rr_table ALIAS FEATURES WHAT: the table multipathd loaded (shown
# as a TAP comment) has FEATURES (e.g. "0", "1 queue_if_no_path"), no
# handler and one PG: round-robin over the two paths, in either order (the
# scenarios that pin "round-robin 0" and hardware_handler "0").
mpd_check_rr_table() {
	local t a=${PATH_NUMS[0]} b=${PATH_NUMS[1]}
	t=$(dmsetup table "$1")
	diag "table multipathd loaded: $t"
	check_match "table: $3" \
		"^0 [0-9]+ multipath $2 0 1 1 round-robin 0 2 1 ($a [0-9]+ $b|$b [0-9]+ $a) [0-9]+ \$" "$t"
}
# mpd_log_tail [N]: the daemon's last N log lines as TAP comments
mpd_log_tail() { tail -n "${1:-20}" "$MPD_LOG" 2>/dev/null | sed 's/^/# mpd: /'; }
# mpd_diag_stuck: what udev and device-mapper are busy with (a map that
# does not appear: udev events not processed, a device-mapper call waiting
# for udev's confirmation), as TAP comments
mpd_diag_stuck() {
	diag "udev queue: $(udevadm settle --timeout=0 >/dev/null 2>&1 && echo empty || echo busy)"
	ps -eo pid,etimes,args | grep -E '[u]dev|[m]ultipath|[s]g_|[s]csi_id|[k]partx|[d]msetup|[b]lkid' |
		sed 's/^/# ps: /'
	dmsetup info -c 2>&1 | sed 's/^/# dm: /'
	dmsetup udevcookies 2>&1 | sed 's/^/# cookies: /'
	grep -iE 'error|fail|timeout|cookie' "$MPD_LOG" | tail -n 15 | sed 's/^/# mpd: /'
}

# ---- set-up and cleanup ---------------------------------------------------
# MPD_PATHS_DOWN: the command mpd_cleanup takes the paths away with, once
# the maps are gone and while udevd still runs: scsi_debug's paths by
# default; a scenario on other paths (the LIO array: lio-down) sets it.
MPD_PATHS_DOWN=mpd_sdebug_down
mpd_sdebug_down() {
	local m
	for m in "${SD_NAMES[@]}"; do
		[ -e "/sys/block/$m/device/state" ] && path_running "$m"
	done
	sdebug_down
}
# mpd_cleanup: daemon, maps, configuration, paths, udevd and modules, in
# that order (the daemon would recreate maps, a map holds its paths, and
# udevd sees the paths go, as on a real system, so that its database does
# not keep them for the next scenario's devices of the same names).
mpd_cleanup() {
	local m t=$SECONDS
	mpd_stop
	echo "# clean-up: multipathd stopped after $((SECONDS - t)) s"
	multipath -F >/dev/null 2>&1
	for m in $(dmsetup ls --target multipath 2>/dev/null | awk '$1 != "No" { print $1 }'); do
		dm_remove "$m"
	done
	echo "# clean-up: maps removed after $((SECONDS - t)) s"
	mpd_conf_remove
	$MPD_PATHS_DOWN
	echo "# clean-up: paths removed ($MPD_PATHS_DOWN) after $((SECONDS - t)) s"
	udevd_stop
	echo "# clean-up: udevd stopped after $((SECONDS - t)) s"
	mp_mods_unload
}
# mpd_finish: the clean-up at a scenario's end, checked (TAP): no daemon and
# no map left (the exit trap runs it again, silently, after a failure).
mpd_finish() {
	mpd_cleanup 2>/dev/null
	check_fail "clean-up: multipathd stopped" mpd_running
	check_fail "clean-up: systemd-udevd stopped" udevd_running
	check_eq "clean-up: no multipath map left" "" \
		"$(dmsetup ls --target multipath 2>&1 | grep -v 'No devices found')"
}
# mpd_setup NPATHS ALIAS [EXTRA_DEFAULTS [EXTRA_DEVICE]]: udevd, NPATHS
# scsi_debug paths to one LUN, the configuration for it, multipathd, and
# the map; sets WWID, MAP_DEV (/dev/mapper/ALIAS) and PATH_NUMS (MAJ:MIN of
# SD_DEVS).  ALIAS "-": no /etc/multipath.conf at all (Debian's defaults),
# the map is named after the WWID (MAP_NAME).  TAP lines for each step;
# false if one failed.
mpd_setup() {
	local n=$1
	mpd_begin || return 1
	sdebug_up "$n" || { tap_fail "scsi_debug with $n paths"; return 1; }
	mpd_map "$2" "${3:-}" "${4:-}" "${SD_DEVS[@]}"
}
# mpd_begin: mpd_setup's first half, for paths of another kind: the
# clean-up registered, no daemon or udevd of an earlier scenario, udevd
# started.  The caller then brings up its paths (and sets MPD_PATHS_DOWN)
# and calls mpd_map.
mpd_begin() {
	on_exit mpd_cleanup
	check_fail "no multipathd left running by an earlier scenario" mpd_running || mpd_stop
	check_fail "no systemd-udevd left running by an earlier scenario" udevd_running || udevd_stop
	udevd_start
	check "systemd-udevd started" udevd_running
}
# mpd_map ALIAS EXTRA_DEFAULTS EXTRA_DEVICE DEV...: mpd_setup's second
# half over the paths DEV... (/dev/sdX, all to one LUN), as mpd_setup
# describes (ALIAS "-": no configuration).
mpd_map() {
	local alias=$1 extra_defaults=$2 extra_device=$3 d n
	shift 3
	n=$#
	udevadm settle --timeout=60 || mpd_diag_stuck
	WWID=$(udev_prop "$1" ID_SERIAL)
	check "udev knows the LUN's WWID ($WWID)" test -n "$WWID" || return 1
	PATH_NUMS=()
	for d in "$@"; do PATH_NUMS+=("$(devnum "$d")"); done
	if [ "$alias" = - ]; then
		# Debian's defaults: no configuration at all.  The map is
		# named after the WWID (user_friendly_names no), and
		# find_multipaths (strict) takes only WWIDs it was told of.
		mpd_conf_remove
		alias=$WWID
		check "multipath -a: the LUN's WWID made known" multipath -a "$1" || return 1
	else
		mpd_conf_write "$WWID" "$alias" "$extra_defaults" "$extra_device"
	fi
	mpd_start
	check "multipathd started" mpd_running || { mpd_log_tail; return 1; }
	if ! check "multipathd made map $alias over $n paths" mpd_wait_map "$alias" "$n"; then
		mpd_diag_stuck
		mpd_log_tail 15
		return 1
	fi
	MAP_NAME=$alias
	MAP_DEV=/dev/mapper/$alias
	wait_until 20 test -b "$MAP_DEV" || dmsetup mknodes "$alias"
	check "$MAP_DEV exists" test -b "$MAP_DEV"
}
