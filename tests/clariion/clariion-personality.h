/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the emulator's SCSI side: what clariion-core.c shares with the
 * personality files (clariion-rdac.c, clariion-hpsw.c), which add the
 * pages and commands only their array has.  Not for the daemon or the
 * control protocol: they use clariion-core.h.
 */
#ifndef CLARIION_PERSONALITY_H
#define CLARIION_PERSONALITY_H

#include "clariion-core.h"

/* Sense keys. */
#define SK_NOT_READY		0x02
#define SK_ILLEGAL_REQUEST	0x05
#define SK_UNIT_ATTENTION	0x06
#define SK_MISCOMPARE		0x0e

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return ((uint64_t)get_be32(p) << 32) | get_be32(p + 4);
}

static inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

/* CHECK CONDITION with fixed-format sense KEY/ASC/ASCQ. */
void emu_sense(struct emu_result *r, uint8_t key, uint8_t asc, uint8_t ascq);

/*
 * A request to move the LUN to the port's controller, parsed and valid:
 * counted, then refused (NDU, reject-trespass, another port's reservation
 * when honor_resv), deferred (delay-trespass) or done, as for a trespass.
 */
void emu_ownership_request(struct emu *e, int port, bool honor_resv,
			   struct emu_result *r);

/* ---- RDAC (clariion-rdac.c) ---- */

/* The VPD pages only the RDAC array has (0xC2, 0xC4, 0xC8, 0xC9). */
extern const uint8_t rdac_vpd_pages[4];

/*
 * Build VPD page (one of rdac_vpd_pages) as seen through port into b
 * (>= 256 bytes, zeroed).  Returns its length, 0 if not an RDAC page.
 */
size_t rdac_vpd(const struct emu *e, int port, uint8_t page, uint8_t *b);

/* Mode page 0x2C (redundant controller), legacy or subpage 1 form. */
#define RDAC_PAGE_REDUNDANT	0x2c

/*
 * Check one redundant-controller page at pg (n bytes left in the list,
 * the page's own length included).  Returns its total length with *move
 * set if it asks for this LUN, or 0 with r filled with the sense for a
 * malformed page.
 */
size_t rdac_mode_page(const uint8_t *pg, size_t n, bool *move,
		      struct emu_result *r);

/* ---- HP MSA (clariion-hpsw.c) ---- */

#define OP_START_STOP_UNIT	0x1b

/* START STOP UNIT: START = 1 makes the port's controller the active one. */
void hpsw_start_stop(struct emu *e, int port, const uint8_t *cdb,
		     struct emu_result *r);

#endif
