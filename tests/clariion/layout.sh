# shellcheck shell=bash disable=SC2034  # (sourced: the users are elsewhere)
# What the emulated array is made of, named once for clariion-up (which
# creates it), clariion-down and clariion-ctl (which find it) and the
# scenarios that check it is gone.
CL_STATE=${CLARIION_DIR:-/tmp/clariion-emu}	# pid, ctl.sock, emu.log, premods
CL_CONFIGFS=/sys/kernel/config/target
CL_HBA=user_200			# our TCMU HBA: core/user_200/clariion_<port>
CL_WWN_PREFIX=naa.50060160c0de	# + 2 hex SP + 2 hex port: tcm_loop target
CL_INI_PREFIX=naa.50014050c0de	# initiator side of each nexus
# The modules a run may load, in unload order: each before the ones it
# holds (tcm_loop and target_core_user hold target_core_mod, and
# target_core_user holds uio).
CL_TARGET_MODS="tcm_loop target_core_user target_core_pscsi target_core_file target_core_iblock target_core_mod uio"
