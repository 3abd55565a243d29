# shellcheck shell=bash
# One scenario body for the emulated RDAC (NETAPP INF-01-00) and HP MSA1000
# arrays under multipathd 0.9.4 with no multipath.conf beyond a short
# checker interval: its built-in device entry writes the table ("1 rdac" /
# "1 hp_sw", group_by_prio, the rdac / hp_sw checker and prioritizer), the
# kernel's scsi_dh_rdac / scsi_dh_hp_sw moves the LUN (MODE SELECT page
# 0x2C / START STOP UNIT), and the emulator counts every ownership-move
# request ("trespass") and every real move ("moved") per port.
# tests/cases/multipathd/66[3-8]-*.sh set, before sourcing this and calling
# mpd_array_run:
#   ARRAY      rdac | hpsw            (the emulator's personality)
#   MPD_STACK  ours | distro          (distro: the kernel's dm-multipath,
#                                      insmod by path, as the oracle)
#   DH_WAY     scan | load            (scan: the scsi_dh is loaded before the
#                                      disks appear and attaches to every
#                                      port, as on a stock system; load: it
#                                      is loadable but attaches only when
#                                      the table names it)
# Source after the family's rc and tests/clariion/lib.sh (with CL_SCSI_DH
# set to the handler for DH_WAY=scan).

MPD_STACK=${MPD_STACK:-ours}
DH_WAY=${DH_WAY:-scan}

# What each array's built-in entry (multipath -t) and the real consumers
# make of it:
#   rdac: features "2 pg_init_retries 50" + no_path_retry 30 (queueing),
#         prio rdac: owner 2 + preferred controller 4 / secondary 1, so
#         A (owner, preferred) 6 and B 1; the rdac checker calls the
#         non-owner's paths "ghost"; failback immediate.
#   hpsw: no_path_retry 12 (queueing), prio hp_sw: TUR good 4, NOT READY
#         04/02 (passive) 2; the hp_sw checker calls the passive paths
#         "ghost"; failback manual (multipathd's default).
case $ARRAY in
rdac)
	HANDLER=rdac PRIO_OWNER=6 PRIO_OTHER=1 FAILBACK=immediate
	FEATURES_RE='3 queue_if_no_path pg_init_retries 50'
	;;
hpsw)
	HANDLER=hp_sw PRIO_OWNER=4 PRIO_OTHER=2 FAILBACK=manual
	FEATURES_RE='1 queue_if_no_path'
	;;
*)
	echo "mpd-array.sh: ARRAY must be rdac or hpsw" >&2
	exit 2
	;;
esac

stack_load() {
	if [ "$MPD_STACK" = distro ]; then
		distro_insmod dm-multipath dm-round-robin dm-service-time
	else
		mp_mods_load
	fi
}

# mpd_paths: "dev checker-state dm-state prio" per path of every map
mpd_paths() { multipathd show paths raw format "%d %T %t %p"; }
# mpd_path_is DEV CHECKER DMSTATE: multipathd shows DEV so
mpd_path_is() { [[ $(mpd_paths) =~ (^|$'\n')$1\ $2\ $3\  ]]; }
# both_are PORT PORT CHECKER DMSTATE
both_are() { mpd_path_is "${NAME[$1]}" "$3" "$4" && mpd_path_is "${NAME[$2]}" "$3" "$4"; }
# setup_states: the owner's ports up, the other controller's "ghost"
# (the checkers' word for a path that answers but is passive)
setup_states() { both_are A0 A1 ready active && both_are B0 B1 ghost active; }
# pg_of DEVNUM: which PG (1-based) of the map's table holds that path
pg_of() { table_pgs "$MAP" | awk -v d="$1" '{ for (i = 2; i <= NF; i++) if ($i == d) print $1 }'; }
# read_moved_back: one read through the map (a switched-to PG is
# initialised by the first I/O), then whether the LUN moved back to A
read_moved_back() {
	dd if="$MP" of=/dev/null bs=4k count=1 iflag=direct status=none
	cl_counter_ge A moved 1
}
map_up() { MAP=$(multipathd show maps raw format "%n" 2>/dev/null) && [ -n "$MAP" ] && dmsetup info "$MAP"; }
# moves: "<requests A>/<moved A> <requests B>/<moved B>" (TAP comment text)
moves() {
	echo "A: $(cl_counter A trespass) requests, $(cl_counter A moved) moved;" \
		"B: $(cl_counter B trespass) requests, $(cl_counter B moved) moved"
}
# served_by SP: media commands SP's ports served (media - passive_rejects),
# from one snapshot of the counters (two reads would race the checker)
served_by() {
	local port line sum=0 m r
	while read -r port line; do
		[ "${port:0:1}" = "$1" ] || continue
		[[ " $line " =~ \ media=([0-9]+)\  ]] && m=${BASH_REMATCH[1]} || return 1
		[[ " $line " =~ \ passive_rejects=([0-9]+)\  ]] && r=${BASH_REMATCH[1]} || return 1
		sum=$((sum + m - r))
	done <<<"$(cl_ctl counters)"
	echo "$sum"
}
# prio_check PORT PRIO WHY
prio_check() {
	check_match "${NAME[$1]} ($1): $3 prio $2" "(^|$NL)${NAME[$1]} [a-z]+ [a-z]+ $2( |$NL|\$)" "$(mpd_paths)"
}

# phase WHAT: where the scenario's time goes, as a TAP comment
phase() { diag "phase at ${SECONDS} s: $*"; }

mpd_array_run() {
	NL=$'\n'
	MPD_LOG=/tmp/multipathd-$ARRAY.log
	declare -gA N NAME
	if [ "$DH_WAY" = load ]; then
		# Blocked again after the disks are gone (on_exit: last first).
		on_exit "scsi_dh_block scsi_dh_$HANDLER"
	fi
	clariion_start --personality "$ARRAY" --ports-per-sp 2 || exit 1
	on_exit mpd_cleanup
	for p in A0 A1 B0 B1; do
		N[$p]=$(devnum "${CL_DEV[$p]}")
		NAME[$p]=${CL_DEV[$p]##*/}
	done
	phase "array up"
	read -r vendor <"/sys/block/${NAME[A0]}/device/vendor"
	read -r model <"/sys/block/${NAME[A0]}/device/model"
	diag "array: $vendor $model, ports A0 A1 B0 B1 = ${NAME[A0]} ${NAME[A1]} ${NAME[B0]} ${NAME[B1]}"
	if [ "$DH_WAY" = load ]; then
		check "scsi_dh_$HANDLER allowed and loaded after the scan" scsi_dh_allow "scsi_dh_$HANDLER" || exit 1
		check_eq "no scsi_dh attached before the table" "detached detached detached detached" \
			"$(cl_dh_state A0) $(cl_dh_state A1) $(cl_dh_state B0) $(cl_dh_state B1)"
	fi

	# ---- configuration: only what this project needs ----------------------
	mkdir -p /etc/multipath
	cat >"$MPD_CONF" <<-'EOF'
		defaults {
			# a short test: notice a returned path within seconds
			polling_interval 2
			max_polling_interval 4
		}
	EOF
	udevd_start
	check "udevd started, block devices triggered and settled" udevd_running || exit 1
	cl_ctl reset-counters >/dev/null
	check "modules load ($MPD_STACK)" stack_load || exit 1
	check "multipath -a A0 (add the LUN's WWID)" multipath -a "${CL_DEV[A0]}"
	mpd_start
	check "multipathd is running and answers" mpd_running
	MAP=
	if ! check "multipathd creates the map" wait_until 90 map_up; then
		diag "$(tail -n 30 "$MPD_LOG")"
		exit 1
	fi
	map_up >/dev/null	# (wait_until ran it in a subshell)
	phase "map made"
	T=$(dmsetup table "$MAP")
	diag "table multipathd wrote ($MPD_STACK, scsi_dh at $DH_WAY): $T"
	check_match "table: features and handler '1 $HANDLER' (the built-in entry)" \
		" multipath $FEATURES_RE 1 $HANDLER 2 1 " "$T"
	check_match "table: service-time, multipathd's default" "service-time 0 2 2 .* service-time 0 2 2 " "$T"
	check_eq "PG1 (higher prio) = controller A's ports" "1 1" "$(pg_of "${N[A0]}") $(pg_of "${N[A1]}")"
	check_eq "PG2 = controller B's ports" "2 2" "$(pg_of "${N[B0]}") $(pg_of "${N[B1]}")"
	check "checkers: A's paths ready, B's ghost (passive), all active in the map" wait_until 30 setup_states
	P=$(mpd_paths)
	diag "multipathd show paths (dev checker dm prio): ${P//$'\n'/; }"
	prio_check A0 "$PRIO_OWNER" "owner:"
	prio_check A1 "$PRIO_OWNER" "owner:"
	prio_check B0 "$PRIO_OTHER" "other controller:"
	prio_check B1 "$PRIO_OTHER" "other controller:"
	check_eq "scsi_dh_$HANDLER attached to every port" "$HANDLER $HANDLER $HANDLER $HANDLER" \
		"$(cl_dh_state A0) $(cl_dh_state A1) $(cl_dh_state B0) $(cl_dh_state B1)"
	if [ "$MPD_STACK" = ours ]; then
		check "dm-scsi-dh (ours) serves it" test -d /sys/module/dm_scsi_dh
	else
		check_eq "the distro's target ($MPATH_TARGET_VERSION)" "$MPATH_TARGET_VERSION" "$(dmsetup targets | awk '$1 == "multipath" {print $2}')"
	fi
	diag "ownership at setup: $(moves)"
	check_eq "map creation: no ownership move requested (A owns the LUN)" "0 0" \
		"$(cl_counter A trespass) $(cl_counter B trespass)"

	# ---- failover under fio ------------------------------------------------
	phase "failover"
	MP=/dev/mapper/$MAP
	cl_ctl reset-counters >/dev/null
	fio_start_until_stopped "$MP" 16k 24 "$CL_TMP/fio.json"
	check "fio is writing through A" wait_until 60 cl_counter_ge A media 50
	check "fail A0 (transport)" cl_ctl fail A0 transport
	check "fail A1 (transport)" cl_ctl fail A1 transport
	check "the move to B completes" wait_until 60 cl_counter_ge B trespass_ok 1
	check "I/O goes on through B" wait_until 60 cl_counter_ge B media 20
	fio_stop_verified
	diag "ownership at failover: $(moves)"
	check_eq "exactly one move, to B; none to A" "1 0" "$(cl_counter B moved) $(cl_counter A moved)"
	check_eq "no move requested on A's ports" 0 "$(cl_counter A trespass)"
	check_eq "LUN owned by B" B "$(cl_ctl owner)"
	check "multipathd's checker: A0 and A1 faulty" wait_until 30 both_are A0 A1 faulty failed
	check "B0 and B1 up" wait_until 30 both_are B0 B1 ready active

	# ---- failback: the ports return ------------------------------------------
	# What fio left, as B serves it: A must serve the same after failback
	# (read after the counts above: a pg_init of a table multipathd
	# reloaded may send one more move request, to the owner).
	sumB=$(region_md5 "$MP" 24)
	check_eq "B serves the 24 MiB fio wrote (read status)" 0 $?
	phase "failback"
	cl_ctl reset-counters >/dev/null
	check "restore A0" cl_ctl restore A0
	check "restore A1" cl_ctl restore A1
	if [ "$FAILBACK" = immediate ]; then
		# A's paths come back passive but preferred (rdac prio 4 against
		# B's 3): their PG is the better one and multipathd switches to
		# it; scsi_dh_rdac's MODE SELECT moves the LUN back.
		check "failback: the LUN moves back to A" wait_until 90 read_moved_back
	else
		# Passive A (prio 2) against active B (4), and failback manual:
		# multipathd reinstates A's paths as ghosts and leaves the LUN
		# on B until the admin switches the group.
		check "multipathd reinstates A0 and A1 (ghost: passive)" wait_until 90 both_are A0 A1 ghost active
		check_eq "... and moves nothing (failback manual)" "0 0" "$(cl_counter A trespass) $(cl_counter B trespass)"
		check_eq "LUN still on B" B "$(cl_ctl owner)"
		pga=$(pg_of "${N[A0]}")
		diag "table now: $(dmsetup table "$MAP")"
		check "the admin's failback: multipathd switchgroup to A's PG ($pga)" \
			multipathd switchgroup map "$MAP" group "$pga"
		check "failback: the LUN moves back to A" wait_until 60 read_moved_back
	fi
	check "A0 and A1 up and in use" wait_until 90 both_are A0 A1 ready active
	check "B0 and B1 ghost (passive)" wait_until 30 both_are B0 B1 ghost active
	diag "ownership at failback: $(moves)"
	check_eq "LUN owned by A" A "$(cl_ctl owner)"
	check_eq "exactly one move back to A, none to B" "1 0" "$(cl_counter A moved) $(cl_counter B moved)"
	check_eq "no move requested on B's ports" 0 "$(cl_counter B trespass)"
	check_eq "PG1 = A's ports again" "1 1" "$(pg_of "${N[A0]}") $(pg_of "${N[A1]}")"
	P=$(mpd_paths)
	diag "multipathd show paths (dev checker dm prio): ${P//$'\n'/; }"
	prio_check A0 "$PRIO_OWNER" "owner again:"
	prio_check B0 "$PRIO_OTHER" "other controller again:"
	phase "verify"
	cl_ctl reset-counters >/dev/null
	sumA=$(region_md5 "$MP" 24)
	check_eq "A serves the 24 MiB (read status)" 0 $?
	check_eq "A serves the data fio left through B" "$sumB" "$sumA"
	check "the reads went through A" test "$(cl_counter A media)" -gt 0
	# (the hp_sw checker's TEST UNIT READY reaches B and is refused:
	# media commands B served = media - passive_rejects)
	check_eq "none served by B" 0 "$(served_by B)"

	diag "multipathd's path events:"
	grep -E 'reinstated|switch|mark as failed|path down|remaining active' "$MPD_LOG" | tail -n 8 |
		while IFS= read -r l; do diag "$l"; done
	phase "clean-up"
	mpd_finish
}
