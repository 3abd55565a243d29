// SPDX-License-Identifier: GPL-2.0
/*
 * The RDAC personality: an LSI/Engenio/NetApp E-Series LUN ("NETAPP
 * INF-01-00") behind two controllers in RDAC mode with AVT off, as
 * Linux 6.1's scsi_dh_rdac and multipath-tools 0.9.4's rdac checker and
 * prioritizer read it:
 *   VPD 0xC8 "edid"  volume and array identity, the LUN number (scsi_dh_rdac
 *                    attaches only if the page is there with its id)
 *   VPD 0xC4 "subs"  which controller answers (slot id byte 1: '1' = A)
 *   VPD 0xC9 "vace"  byte 8 bit 0: this controller owns the LUN (bit 7 AVT
 *                    and bit 5 IOSHIP stay 0: plain RDAC mode); byte 9:
 *                    1 = this is the LUN's preferred controller, 2 = the
 *                    secondary one (prioritizer: owned 2 + preferred 4 or
 *                    secondary 1)
 *   VPD 0xC2 "swr4"  max_lun_supported 255: the handler sends MODE SELECT(10)
 *                    with the subpage form of page 0x2C
 *   MODE SELECT page 0x2C (redundant controller), legacy (MODE SELECT(6),
 *   0x68 bytes, 32 LUNs) or subpage 1 (0x128 bytes, 256 LUNs): mode
 *   "transfer specified LUNs" (byte 1 of rdac_mode = 2) with the LUN's
 *   table entry 0x81 moves the LUN to the receiving controller.
 * I/O to the other controller is refused in clariion-core.c (05/94/01).
 */
#include "clariion-personality.h"

#include <string.h>

const uint8_t rdac_vpd_pages[4] = { 0xc2, 0xc4, 0xc8, 0xc9 };

/* VPD 0xC9 byte 8 and byte 9 values. */
#define C9_CVP			0x01	/* current volume path: owner */
#define C9_PREFERRED		0x01
#define C9_SECONDARY		0x02

/* Page 0x2C's rdac_mode byte 1 and LUN table entry that move a LUN. */
#define RDAC_TRANSFER_SPECIFIED	0x02
#define RDAC_LUN_MOVE		0x81

/* The array's identity in VPD 0xC8 (16 bytes, as the handler compares it). */
static const uint8_t array_id[16] = {
	0x60, 0x0a, 0x09, 0x80, 0x00, 0x5e, 0xd1, 0x7a,
	0x00, 0x00, 0x00, 0x00, 0x52, 0x44, 0x41, 0x43,
};

/* An ASCII label as the UTF-16BE the page holds (60 bytes). */
static void put_label(uint8_t *dst, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i < 30; i++)
		dst[2 * i + 1] = (uint8_t)s[i];
}

static size_t vpd_c2(uint8_t *b)
{
	b[3] = 0xfb;			/* 255 bytes in all */
	memcpy(b + 4, "swr4", 4);
	b[8] = 0x08;			/* firmware 08.20.00 */
	b[9] = 0x20;
	b[14] = 0x00;			/* features enabled: none we emulate */
	b[15] = 0xff;			/* max LUN: MODE SELECT(10) form */
	return 255;
}

static size_t vpd_c4(const struct emu_port *p, uint8_t *b)
{
	b[3] = 0x1c;
	memcpy(b + 4, "subs", 4);
	memcpy(b + 8, "emulated-rdac   ", 16);
	memcpy(b + 24, "0820", 4);
	b[28] = '0';
	b[29] = p->sp == EMU_SP_A ? '1' : '2';
	return 32;
}

static size_t vpd_c8(const struct emu *e, uint8_t *b)
{
	b[3] = 0xab;			/* 175 bytes in all */
	memcpy(b + 4, "edid", 4);
	b[11] = 16;
	memcpy(b + 12, e->wwn, 16);
	b[28] = 8;
	put_label(b + 29, "emu-lun0");
	b[89] = 16;
	memcpy(b + 90, array_id, 16);
	b[106] = 8;
	put_label(b + 107, "emu-rdac");
	/* bytes 167..174: the LUN number (0) */
	return 175;
}

static size_t vpd_c9(const struct emu *e, const struct emu_port *p,
		     uint8_t *b)
{
	b[3] = 0x2c;			/* the prioritizer checks this length */
	memcpy(b + 4, "vace", 4);
	b[8] = p->sp == e->owner ? C9_CVP : 0;
	b[9] = p->sp == e->default_owner ? C9_PREFERRED : C9_SECONDARY;
	return 48;
}

size_t rdac_vpd(const struct emu *e, int port, uint8_t page, uint8_t *b)
{
	const struct emu_port *p = &e->port[port];

	b[1] = page;
	switch (page) {
	case 0xc2:
		return vpd_c2(b);
	case 0xc4:
		return vpd_c4(p, b);
	case 0xc8:
		return vpd_c8(e, b);
	case 0xc9:
		return vpd_c9(e, p, b);
	default:
		return 0;
	}
}

/* The lengths scsi_dh_rdac sends (and the only ones accepted). */
#define LEGACY_LEN		0x68
#define EXPANDED_LEN		0x128
/* From the page start: rdac_mode after two controller serials (32 bytes). */
#define COMMON_MODE		32
#define COMMON_LUN_TABLE	38

size_t rdac_mode_page(const uint8_t *pg, size_t n, bool *move,
		      struct emu_result *r)
{
	const uint8_t *common;
	size_t hdr, len;

	*move = false;
	if (pg[0] & 0x40) {		/* subpage form */
		if (n < 4) {
			emu_sense(r, SK_ILLEGAL_REQUEST, 0x1a, 0x00);
			return 0;
		}
		hdr = 4;
		len = get_be16(pg + 2);
		if (pg[1] != 0x01 || len != EXPANDED_LEN) {
			emu_sense(r, SK_ILLEGAL_REQUEST, 0x26, 0x00);
			return 0;
		}
	} else {
		if (n < 2) {
			emu_sense(r, SK_ILLEGAL_REQUEST, 0x1a, 0x00);
			return 0;
		}
		hdr = 2;
		len = pg[1];
		if (len != LEGACY_LEN) {
			emu_sense(r, SK_ILLEGAL_REQUEST, 0x26, 0x00);
			return 0;
		}
	}
	if (len > n - hdr) {
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x1a, 0x00);
		return 0;
	}
	common = pg + hdr;
	/* Only LUN 0 exists: its entry in the table is the first. */
	*move = common[COMMON_MODE + 1] == RDAC_TRANSFER_SPECIFIED &&
		common[COMMON_LUN_TABLE] == RDAC_LUN_MOVE;
	return hdr + len;
}
