// SPDX-License-Identifier: GPL-2.0
/*
 * The HP MSA personality: an HP/COMPAQ MSA1000 ("COMPAQ MSA1000 VOLUME")
 * with its active/passive firmware, as Linux 6.1's scsi_dh_hp_sw and
 * multipath-tools 0.9.4's hp_sw checker and prioritizer see it: the
 * passive controller's ports answer media commands, TEST UNIT READY
 * included, with NOT READY 04/02 (clariion-core.c); START STOP UNIT with
 * START = 1 on a port makes its controller the active one.  INQUIRY and
 * VPD 0x80 (the checker's first question) work on both.
 */
#include "clariion-personality.h"

/* START STOP UNIT byte 1: IMMED; byte 4: START, LOEJ, power condition. */
#define SSU_IMMED		0x01
#define SSU_START		0x01
#define SSU_LOEJ		0x02
#define SSU_POWER_CONDITION	0xf0

void hpsw_start_stop(struct emu *e, int port, const uint8_t *cdb,
		     struct emu_result *r)
{
	/* No medium to eject, no power conditions: those are bad fields. */
	if ((cdb[1] & ~SSU_IMMED) || (cdb[4] & (SSU_LOEJ | SSU_POWER_CONDITION))) {
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x24, 0x00);
		return;
	}
	/* STOP: the array keeps serving the LUN where it is. */
	if (!(cdb[4] & SSU_START))
		return;
	/* another port's reservation was checked before (not exempt) */
	emu_ownership_request(e, port, false, r);
}
