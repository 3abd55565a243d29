// SPDX-License-Identifier: GPL-2.0
/*
 * SCSI behaviour of an emulated LUN behind two controllers: what every
 * personality shares (data, ownership, reservations, media commands, mode
 * pages 0x08/0x0A) and the EMC CLARiiON in "PNR" (Linux failover) mode.
 * See /work/shared/notes/clariion-and-tcmu.md for the array facts this
 * follows; the RDAC and HP MSA personalities add theirs in clariion-rdac.c
 * and clariion-hpsw.c.
 *
 * Every input (CDB bytes, data segments) is untrusted: all
 * lengths are clamped to what the caller really provided.  The text
 * commands that change this state are in clariion-control.c.
 */
#define _DEFAULT_SOURCE
#include "clariion-personality.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Opcodes the array knows. */
enum {
	OP_TEST_UNIT_READY = 0x00,
	OP_REQUEST_SENSE = 0x03,
	OP_READ_6 = 0x08,
	OP_WRITE_6 = 0x0a,
	OP_INQUIRY = 0x12,
	OP_MODE_SELECT_6 = 0x15,
	OP_RESERVE_6 = 0x16,
	OP_RELEASE_6 = 0x17,
	OP_MODE_SENSE_6 = 0x1a,
	OP_READ_CAPACITY_10 = 0x25,
	OP_READ_10 = 0x28,
	OP_WRITE_10 = 0x2a,
	OP_WRITE_VERIFY_10 = 0x2e,
	OP_VERIFY_10 = 0x2f,
	OP_SYNC_CACHE_10 = 0x35,
	OP_MODE_SELECT_10 = 0x55,
	OP_RESERVE_10 = 0x56,
	OP_RELEASE_10 = 0x57,
	OP_MODE_SENSE_10 = 0x5a,
	OP_READ_16 = 0x88,
	OP_WRITE_16 = 0x8a,
	OP_VERIFY_16 = 0x8f,
	OP_SYNC_CACHE_16 = 0x91,
	OP_SERVICE_ACTION_IN_16 = 0x9e,
	OP_REPORT_LUNS = 0xa0,
	OP_READ_12 = 0xa8,
	OP_WRITE_12 = 0xaa,
};

#define SAI_READ_CAPACITY_16	0x10
#define TRESPASS_PAGE		0x22

/* LUN state byte (VPD 0xC0 byte 4) values. */
#define LUN_BOUND		1
#define LUN_OWNED		2

/* Failover mode "4" = PNR / Linux failover (VPD 0xC0 byte 28). */
#define FAILOVER_MODE_PNR	4
/*
 * VPD 0xC0 byte 30 bit 2: "arraycommpath" on, as a host set up for failover
 * needs it (multipath-tools' emc_clariion checker calls a path without it
 * "not correctly configured for failover" and fails it; its emc prioritizer
 * logs the same).
 */
#define C0_ARRAYCOMMPATH	0x04

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* ---- data buffer helpers: never touch more than the segments hold ---- */

static size_t data_total(const struct emu_data *d)
{
	return d ? d->total : 0;
}

/* Copy len bytes between buf and the data buffer at byte offset off. */
static size_t data_xfer(const struct emu_data *d, size_t off, uint8_t *buf,
			size_t len, bool to_data)
{
	size_t done = 0, i;

	if (!d)
		return 0;
	for (i = 0; i < d->nseg && done < len; i++) {
		const struct emu_seg *s = &d->seg[i];
		size_t n;

		if (off >= s->len) {
			off -= s->len;
			continue;
		}
		n = min_sz(s->len - off, len - done);
		if (to_data)
			memcpy(s->base + off, buf + done, n);
		else
			memcpy(buf + done, s->base + off, n);
		done += n;
		off = 0;
	}
	return done;
}

static size_t data_put(const struct emu_data *d, size_t off, const void *src,
		       size_t len)
{
	return data_xfer(d, off, (uint8_t *)src, len, true);
}

static size_t data_get(const struct emu_data *d, size_t off, void *dst,
		       size_t len)
{
	return data_xfer(d, off, dst, len, false);
}

/* Answer with a built response, cut to the allocation length and buffer. */
static void reply(const struct emu_data *d, struct emu_result *r,
		  const uint8_t *buf, size_t len, size_t alloc)
{
	r->data_in = data_put(d, 0, buf, min_sz(len, alloc));
}

void emu_sense(struct emu_result *r, uint8_t key, uint8_t asc, uint8_t ascq)
{
	r->status = ST_CHECK_CONDITION;
	memset(r->sense, 0, sizeof(r->sense));
	r->sense[0] = 0x70;	/* current error, fixed format */
	r->sense[2] = key & 0x0f;
	r->sense[7] = 10;	/* additional sense length */
	r->sense[12] = asc;
	r->sense[13] = ascq;
	r->sense_len = 18;
	r->data_in = 0;
}

static void bad_cdb(struct emu_result *r)
{
	emu_sense(r, SK_ILLEGAL_REQUEST, 0x24, 0x00);
}

static void bad_param(struct emu_result *r)
{
	emu_sense(r, SK_ILLEGAL_REQUEST, 0x26, 0x00);
}

static void conflict(struct emu *e, int port, struct emu_result *r)
{
	r->status = ST_RESERVATION_CONFLICT;
	r->sense_len = 0;
	r->data_in = 0;
	e->port[port].c.conflicts++;
}

/* ---- setup ---- */

static void set_padded(char *dst, size_t width, const char *src)
{
	size_t n = strlen(src);

	if (n > width)
		n = width;
	memset(dst, ' ', width);
	memcpy(dst, src, n);
	dst[width] = '\0';
}

int emu_init(struct emu *e, uint64_t size_bytes, int ports_per_sp)
{
	static const uint8_t wwn[16] = {
		0x60, 0x06, 0x01, 0x60, 0x5a, 0x1b, 0x20, 0x00,
		0xc4, 0x2e, 0x7b, 0x9d, 0x01, 0x4f, 0xde, 0x11,
	};
	int i;

	memset(e, 0, sizeof(*e));
	if (ports_per_sp < 1 || ports_per_sp > EMU_MAX_PORTS_PER_SP ||
	    size_bytes < EMU_BLOCK_SIZE || size_bytes > (UINT64_C(1) << 40)) {
		errno = EINVAL;
		return -1;
	}
	e->nblocks = size_bytes / EMU_BLOCK_SIZE;
	if (e->nblocks > SIZE_MAX / EMU_BLOCK_SIZE) {
		errno = EINVAL;
		return -1;
	}
	e->data = calloc((size_t)e->nblocks, EMU_BLOCK_SIZE);
	if (!e->data)
		return -1;
	e->ports_per_sp = ports_per_sp;
	e->nports = 2 * ports_per_sp;
	for (i = 0; i < e->nports; i++) {
		e->port[i].sp = i / ports_per_sp;
		e->port[i].idx = i % ports_per_sp;
		e->port[i].rtpi = (uint16_t)(i + 1);
	}
	e->owner = EMU_SP_A;
	e->default_owner = EMU_SP_A;
	e->reserved_by = -1;
	e->reject_key = SK_ILLEGAL_REQUEST;
	e->reject_asc = 0x24;
	e->personality = EMU_CLARIION;
	set_padded(e->vendor, 8, "DGC");
	set_padded(e->product, 16, "RAID 5");
	set_padded(e->revision, 4, "0428");
	snprintf(e->array_serial, sizeof(e->array_serial), "APM00123456789");
	snprintf(e->sp_model, sizeof(e->sp_model), "CX4-480");
	snprintf(e->lun_serial, sizeof(e->lun_serial), "CKM0012345678901");
	memcpy(e->wwn, wwn, sizeof(wwn));
	return 0;
}

/*
 * The identities multipath-tools 0.9.4's built-in hardware table and the
 * kernel's scsi_dh table (drivers/scsi/scsi_dh.c) both map to the
 * personality's handler: "DGC RAID" -> emc, "NETAPP INF-01-00" -> rdac,
 * "COMPAQ MSA1000 VOLUME" -> hp_sw (scsi_devinfo also gives the last one
 * BLIST_NOSTARTONADD: sd does not spin up its passive port at scan).
 */
static const struct {
	const char *name, *vendor, *product, *revision;
	enum emu_personality personality;
} personalities[] = {
	{ "clariion", "DGC", "RAID 5", "0428", EMU_CLARIION },
	{ "rdac", "NETAPP", "INF-01-00", "0820", EMU_RDAC },
	{ "hpsw", "COMPAQ", "MSA1000 VOLUME", "4.48", EMU_HPSW },
};

int emu_set_personality(struct emu *e, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(personalities) / sizeof(personalities[0]); i++) {
		if (strcmp(name, personalities[i].name))
			continue;
		e->personality = personalities[i].personality;
		set_padded(e->vendor, 8, personalities[i].vendor);
		set_padded(e->product, 16, personalities[i].product);
		set_padded(e->revision, 4, personalities[i].revision);
		return 0;
	}
	return -1;
}

const char *emu_personality_name(const struct emu *e)
{
	size_t i;

	for (i = 0; i < sizeof(personalities) / sizeof(personalities[0]); i++)
		if (personalities[i].personality == e->personality)
			return personalities[i].name;
	return "?";
}

void emu_free(struct emu *e)
{
	free(e->data);
	e->data = NULL;
}

void emu_port_name(const struct emu *e, int port, char *buf, size_t len)
{
	if (port < 0 || port >= e->nports)
		snprintf(buf, len, "??");
	else
		snprintf(buf, len, "%c%d", e->port[port].sp ? 'B' : 'A',
			 e->port[port].idx);
}

int emu_port_lookup(const struct emu *e, const char *name)
{
	int sp, idx;
	char *end;
	long v;

	if (!name || !name[0])
		return -1;
	if (name[0] == 'A' || name[0] == 'a')
		sp = EMU_SP_A;
	else if (name[0] == 'B' || name[0] == 'b')
		sp = EMU_SP_B;
	else
		return -1;
	if (!isdigit((unsigned char)name[1]))
		return -1;
	errno = 0;
	v = strtol(name + 1, &end, 10);
	if (errno || *end || v < 0 || v >= e->ports_per_sp)
		return -1;
	idx = (int)v;
	return sp * e->ports_per_sp + idx;
}

void emu_set_owner(struct emu *e, int sp)
{
	int i;

	if (sp == e->owner)
		return;
	e->owner = sp;
	if (!e->ua_after_trespass)
		return;
	/* The first command on each port of the new owner sees 06/29/00. */
	for (i = 0; i < e->nports; i++)
		if (e->port[i].sp == sp)
			e->port[i].ua_pending = true;
}

/* ---- INQUIRY ---- */

/* Reserved bytes after the SP model string in the long INQUIRY form. */
#define INQ_TAIL 16

static size_t std_inquiry(const struct emu *e, uint8_t *b)
{
	size_t sl = strlen(e->array_serial), ml = strlen(e->sp_model);
	size_t len;

	b[0] = 0x00;		/* connected direct-access device */
	b[2] = 0x04;		/* SPC-2 */
	b[3] = 0x02;		/* response data format 2, TPGS (byte 5) = 0 */
	b[7] = 0x02;		/* CmdQue */
	memcpy(b + 8, e->vendor, 8);
	memcpy(b + 16, e->product, 16);
	memcpy(b + 32, e->revision, 4);
	if (e->short_inquiry || e->personality != EMU_CLARIION) {
		/*
		 * The RDAC and HP arrays: a standard 36-byte answer, TPGS 0
		 * (RDAC mode with AVT off; the MSA1000's active/passive
		 * firmware): their handlers read VPD pages or send TUR.
		 */
		len = 36;
	} else {
		/*
		 * Long form as the host parses it: byte 99 = SP model length,
		 * byte 160 = array serial length, serial at 161, model after,
		 * then INQ_TAIL reserved bytes. The tail is not decoration:
		 * scsi_dh_emc terminates the model string in place, one byte
		 * past it, and its bound check lets the model end the data,
		 * so with no tail a 6.1 KASAN kernel reports a 1-byte write
		 * past the kernel's copy of our INQUIRY data.
		 */
		b[99] = (uint8_t)ml;
		b[160] = (uint8_t)sl;
		memcpy(b + 161, e->array_serial, sl);
		memcpy(b + 161 + sl, e->sp_model, ml);
		len = 161 + sl + ml + INQ_TAIL;
	}
	b[4] = (uint8_t)(len - 5);
	return len;
}

static size_t vpd_c0(const struct emu *e, int port, uint8_t *b)
{
	const struct emu_port *p = &e->port[port];
	const size_t len = 252;

	b[1] = 0xc0;
	put_be16(b + 2, (uint16_t)(len - 4));
	b[4] = p->sp == e->owner ? LUN_OWNED : LUN_BOUND;
	b[5] = (uint8_t)e->default_owner;
	b[7] = (uint8_t)p->idx;
	b[8] = (uint8_t)p->sp;
	b[9] = 0x00;		/* page format revision */
	memcpy(b + 10, e->wwn, 16);
	b[27] = 0x03;		/* effective initiator type */
	b[28] = FAILOVER_MODE_PNR;
	b[30] = C0_ARRAYCOMMPATH;
	b[48] = e->ndu ? 1 : 0;
	return len;
}

static void cmd_inquiry(struct emu *e, int port, const uint8_t *cdb,
			const struct emu_data *d, struct emu_result *r)
{
	uint8_t b[256];
	size_t alloc = get_be16(cdb + 3), len;
	bool evpd = cdb[1] & 0x01;

	memset(b, 0, sizeof(b));
	if ((cdb[1] & 0xfe) || (!evpd && cdb[2])) {
		bad_cdb(r);
		return;
	}
	if (!evpd) {
		len = std_inquiry(e, b);
		reply(d, r, b, len, alloc);
		return;
	}
	b[1] = cdb[2];
	switch (cdb[2]) {
	case 0x00:
		b[4] = 0x00;
		b[5] = 0x80;
		b[6] = 0x83;
		len = 7;
		if (e->personality == EMU_CLARIION) {
			b[len++] = 0xc0;
		} else if (e->personality == EMU_RDAC) {
			memcpy(b + len, rdac_vpd_pages, sizeof(rdac_vpd_pages));
			len += sizeof(rdac_vpd_pages);
		}
		b[3] = (uint8_t)(len - 4);
		break;
	case 0x80:
		len = strlen(e->lun_serial);
		b[3] = (uint8_t)len;
		memcpy(b + 4, e->lun_serial, len);
		len += 4;
		break;
	case 0x83: {
		uint8_t *q = b + 4;

		/* NAA 6 LUN name: identical on every port. */
		q[0] = 0x01;		/* binary */
		q[1] = 0x03;		/* LU association, NAA */
		q[3] = 16;
		memcpy(q + 4, e->wwn, 16);
		q += 20;
		/* Relative target port: tells the ports apart. */
		q[0] = 0x01;
		q[1] = 0x14;		/* target port association, RTPI */
		q[3] = 4;
		put_be16(q + 6, e->port[port].rtpi);
		q += 8;
		len = (size_t)(q - b);
		put_be16(b + 2, (uint16_t)(len - 4));
		break;
	}
	case 0xc0:
		if (e->personality != EMU_CLARIION) {
			bad_cdb(r);
			return;
		}
		len = vpd_c0(e, port, b);
		break;
	default:
		len = e->personality == EMU_RDAC ? rdac_vpd(e, port, cdb[2], b) : 0;
		if (!len) {
			bad_cdb(r);
			return;
		}
	}
	reply(d, r, b, len, alloc);
}

/* ---- MODE SENSE / MODE SELECT ---- */

#define PAGE_CACHING		0x08
#define PAGE_CONTROL		0x0a
#define PAGE_ALL		0x3f

static size_t page_caching(uint8_t *p, bool changeable)
{
	memset(p, 0, 20);
	p[0] = PAGE_CACHING;
	p[1] = 0x12;
	/* Write-through RAM: WCE = 0, RCD = 0; nothing changeable. */
	(void)changeable;
	return 20;
}

/*
 * TAS (byte 5 bit 6) is set on the RDAC array: multipath-tools' rdac
 * checker wants it (it sets it where changeable) so that commands aborted
 * for another initiator end with TASK ABORTED.
 */
#define CONTROL_TAS		0x40

static size_t page_control(const struct emu *e, uint8_t *p, bool changeable)
{
	memset(p, 0, 12);
	p[0] = PAGE_CONTROL;
	p[1] = 0x0a;
	if (!changeable && e->personality == EMU_RDAC)
		p[5] = CONTROL_TAS;
	return 12;
}

static void cmd_mode_sense(struct emu *e, const uint8_t *cdb, bool ten,
			   const struct emu_data *d, struct emu_result *r)
{
	uint8_t b[256];
	int pc = cdb[2] >> 6, page = cdb[2] & 0x3f, sub = cdb[3];
	bool dbd = cdb[1] & 0x08, llbaa = ten && (cdb[1] & 0x10);
	size_t hdr = ten ? 8 : 4, bdl = dbd ? 0 : (llbaa ? 16 : 8);
	size_t alloc = ten ? get_be16(cdb + 7) : cdb[4];
	size_t len;
	uint8_t *p;

	memset(b, 0, sizeof(b));
	if (pc == 3) {		/* saved values: none */
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x39, 0x00);
		return;
	}
	if (sub != 0 && !(page == PAGE_ALL && sub == 0xff)) {
		bad_cdb(r);
		return;
	}
	p = b + hdr + bdl;
	switch (page) {
	case PAGE_CACHING:
		p += page_caching(p, pc == 1);
		break;
	case PAGE_CONTROL:
		p += page_control(e, p, pc == 1);
		break;
	case PAGE_ALL:
		p += page_caching(p, pc == 1);
		p += page_control(e, p, pc == 1);
		break;
	default:
		bad_cdb(r);
		return;
	}
	len = (size_t)(p - b);
	if (bdl == 8) {
		uint8_t *q = b + hdr;

		put_be32(q, e->nblocks > 0xffffffu ? 0xffffffu :
			 (uint32_t)e->nblocks);
		q[0] = 0;	/* density code */
		put_be32(q + 4, EMU_BLOCK_SIZE);
	} else if (bdl == 16) {
		put_be64(b + hdr, e->nblocks);
		put_be32(b + hdr + 12, EMU_BLOCK_SIZE);
	}
	if (ten) {
		put_be16(b, (uint16_t)(len - 2));
		b[4] = llbaa && bdl ? 0x01 : 0x00;
		put_be16(b + 6, (uint16_t)bdl);
	} else {
		b[0] = (uint8_t)(len - 1);
		b[3] = (uint8_t)bdl;
	}
	reply(d, r, b, len, alloc);
}

/*
 * Trespass request found in a MODE SELECT parameter list.  ignore_resv is
 * the top bit of the code byte (0x81 = ignore reservations, 0x01 = honor).
 */
struct trespass_req {
	bool present;
	bool ignore_resv;
};

/*
 * Walk the pages of a MODE SELECT parameter list.  Returns 0 if the list is
 * valid, else fills r with the sense to report.
 */
static int parse_mode_pages(const struct emu *e, const uint8_t *pl,
			    size_t n, size_t hdr, bool ten,
			    struct trespass_req *t, struct emu_result *r)
{
	size_t bdl, off;

	if (n < hdr) {
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x1a, 0x00); /* list length error */
		return -1;
	}
	bdl = ten ? get_be16(pl + 6) : pl[3];
	if (bdl % 8 || bdl > n - hdr) {
		bad_param(r);
		return -1;
	}
	for (off = hdr + bdl; off < n;) {
		uint8_t code = pl[off] & 0x3f;
		size_t plen;

		if (e->personality == EMU_RDAC && code == RDAC_PAGE_REDUNDANT) {
			bool move = false;

			plen = rdac_mode_page(pl + off, n - off, &move, r);
			if (!plen)
				return -1;
			if (move && t->present) {
				bad_param(r);
				return -1;
			}
			if (move) {
				/* no reservation check: RDAC has none */
				t->present = true;
				t->ignore_resv = true;
			}
			off += plen;
			continue;
		}
		if (pl[off] & 0x40 || n - off < 2) {	/* no subpages here */
			bad_param(r);
			return -1;
		}
		plen = pl[off + 1];
		/* A page length the page cannot have is a bad field... */
		if ((code == TRESPASS_PAGE && plen != 0x09 && plen != 0x02) ||
		    (code == PAGE_CACHING && plen != 0x12) ||
		    (code == PAGE_CONTROL && plen != 0x0a)) {
			bad_param(r);
			return -1;
		}
		/* ...a page cut off by the list length is a length error. */
		if (plen > n - off - 2) {
			emu_sense(r, SK_ILLEGAL_REQUEST, 0x1a, 0x00);
			return -1;
		}
		switch (code) {
		case TRESPASS_PAGE: {
			const uint8_t *q = pl + off;
			uint16_t lun;

			if (e->personality != EMU_CLARIION) {
				bad_param(r);
				return -1;
			}
			/* long (AX/CX) page: 22 09 code ff ff ... */
			/* short (FC) page:   22 02 code ff        */
			if (plen == 0x09)
				lun = get_be16(q + 3);
			else
				lun = q[3] == 0xff ? 0xffff : q[3];
			if ((q[2] & 0x7f) != 0x01 ||
			    (lun != 0xffff && lun != 0) || t->present) {
				bad_param(r);
				return -1;
			}
			t->present = true;
			t->ignore_resv = q[2] & 0x80;
			break;
		}
		case PAGE_CACHING:
		case PAGE_CONTROL:
			break;		/* accepted, nothing changeable */
		default:
			bad_param(r);
			return -1;
		}
		off += 2 + plen;
	}
	return 0;
}

static void cmd_mode_select(struct emu *e, int port, const uint8_t *cdb,
			    bool ten, const struct emu_data *d,
			    struct emu_result *r)
{
	uint8_t pl[512];
	size_t plen = ten ? get_be16(cdb + 7) : cdb[4];
	size_t hdr = ten ? 8 : 4, n;
	struct trespass_req t = { false, false };

	if (cdb[1] & ~0x11) {	/* only PF and SP may be set */
		bad_cdb(r);
		return;
	}
	if (plen == 0)
		return;		/* nothing to select: GOOD */
	if (plen > sizeof(pl) || plen > data_total(d)) {
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x1a, 0x00);
		return;
	}
	n = data_get(d, 0, pl, plen);
	if (parse_mode_pages(e, pl, n, hdr, ten, &t, r))
		return;
	if (!t.present) {
		if (e->reserved_by >= 0 && e->reserved_by != port)
			conflict(e, port, r);
		return;		/* caching/control: accepted, no change */
	}
	emu_ownership_request(e, port, !t.ignore_resv, r);
}

void emu_ownership_request(struct emu *e, int port, bool honor_resv,
			   struct emu_result *r)
{
	struct emu_port *p = &e->port[port];

	p->c.trespass++;
	if (e->ndu) {
		emu_sense(r, SK_NOT_READY, 0x04, 0x03);
		return;
	}
	if (e->reject_trespass) {
		emu_sense(r, e->reject_key, e->reject_asc, e->reject_ascq);
		return;
	}
	if (honor_resv && e->reserved_by >= 0 && e->reserved_by != port) {
		conflict(e, port, r);
		return;
	}
	if (e->trespass_delay_ms) {
		r->defer_ms = e->trespass_delay_ms;
		return;
	}
	emu_finish_deferred(e, port, r);
}

void emu_finish_deferred(struct emu *e, int port, struct emu_result *r)
{
	/* A trespass to the SP that owns the LUN already is a no-op. */
	if (e->owner != e->port[port].sp)
		e->port[port].c.moved++;
	emu_set_owner(e, e->port[port].sp);
	e->port[port].c.trespass_ok++;
	r->status = ST_GOOD;
	r->sense_len = 0;
	r->defer_ms = 0;
}

/* ---- media access ---- */

struct rw {
	uint64_t lba;
	uint32_t nblk;
};

static void decode_rw(const uint8_t *cdb, struct rw *rw)
{
	switch (cdb[0]) {
	case OP_READ_6:
	case OP_WRITE_6:
		rw->lba = ((uint32_t)(cdb[1] & 0x1f) << 16) | get_be16(cdb + 2);
		rw->nblk = cdb[4] ? cdb[4] : 256;
		break;
	case OP_READ_10:
	case OP_WRITE_10:
	case OP_WRITE_VERIFY_10:
	case OP_VERIFY_10:
	case OP_SYNC_CACHE_10:
		rw->lba = get_be32(cdb + 2);
		rw->nblk = get_be16(cdb + 7);
		break;
	case OP_READ_12:
	case OP_WRITE_12:
		rw->lba = get_be32(cdb + 2);
		rw->nblk = get_be32(cdb + 6);
		break;
	default: /* 16-byte forms */
		rw->lba = get_be64(cdb + 2);
		rw->nblk = get_be32(cdb + 10);
		break;
	}
}

static bool range_ok(const struct emu *e, const struct rw *rw)
{
	return rw->lba <= e->nblocks && rw->nblk <= e->nblocks - rw->lba;
}

static void cmd_rw(struct emu *e, const uint8_t *cdb, bool write,
		   const struct emu_data *d, struct emu_result *r)
{
	struct rw rw;
	size_t bytes, off;

	decode_rw(cdb, &rw);
	if (!range_ok(e, &rw)) {
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x21, 0x00);
		return;
	}
	bytes = (size_t)rw.nblk * EMU_BLOCK_SIZE;
	off = (size_t)rw.lba * EMU_BLOCK_SIZE;
	if (write) {
		/* Less data-out than the CDB asks for: refuse, write nothing. */
		if (data_total(d) < bytes) {
			bad_cdb(r);
			return;
		}
		data_get(d, 0, e->data + off, bytes);
	} else {
		r->data_in = data_put(d, 0, e->data + off, bytes);
	}
}

static void cmd_verify(struct emu *e, const uint8_t *cdb,
		       const struct emu_data *d, struct emu_result *r)
{
	int bytchk = (cdb[1] >> 1) & 0x03;
	struct rw rw;
	size_t bytes, off, i;

	decode_rw(cdb, &rw);
	if (bytchk > 1) {
		bad_cdb(r);
		return;
	}
	if (!range_ok(e, &rw)) {
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x21, 0x00);
		return;
	}
	if (!bytchk)
		return;		/* medium check of RAM always passes */
	bytes = (size_t)rw.nblk * EMU_BLOCK_SIZE;
	off = (size_t)rw.lba * EMU_BLOCK_SIZE;
	if (data_total(d) < bytes) {
		bad_cdb(r);
		return;
	}
	for (i = 0; i < bytes;) {
		uint8_t chunk[4096];
		size_t n = min_sz(sizeof(chunk), bytes - i);

		data_get(d, i, chunk, n);
		if (memcmp(chunk, e->data + off + i, n)) {
			emu_sense(r, SK_MISCOMPARE, 0x1d, 0x00);
			return;
		}
		i += n;
	}
}

static void cmd_write_verify(struct emu *e, const uint8_t *cdb,
			     const struct emu_data *d, struct emu_result *r)
{
	if ((cdb[1] >> 1) & 0x03) {	/* BYTCHK with write-verify: no */
		bad_cdb(r);
		return;
	}
	cmd_rw(e, cdb, true, d, r);
}

static void cmd_sync(struct emu *e, const uint8_t *cdb, struct emu_result *r)
{
	struct rw rw;

	decode_rw(cdb, &rw);
	if (!range_ok(e, &rw))
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x21, 0x00);
}

/* ---- the rest ---- */

static void cmd_read_capacity(struct emu *e, const uint8_t *cdb, bool sixteen,
			      const struct emu_data *d, struct emu_result *r)
{
	uint8_t b[32];

	memset(b, 0, sizeof(b));
	if (!sixteen) {
		/* PMI = 0 needs LBA = 0 */
		if (!(cdb[8] & 0x01) && get_be32(cdb + 2)) {
			bad_cdb(r);
			return;
		}
		put_be32(b, e->nblocks - 1 > 0xffffffffu ? 0xffffffffu :
			 (uint32_t)(e->nblocks - 1));
		put_be32(b + 4, EMU_BLOCK_SIZE);
		reply(d, r, b, 8, 8);
		return;
	}
	if (!(cdb[14] & 0x01) && get_be64(cdb + 2)) {
		bad_cdb(r);
		return;
	}
	put_be64(b, e->nblocks - 1);
	put_be32(b + 8, EMU_BLOCK_SIZE);
	reply(d, r, b, 32, get_be32(cdb + 10));
}

static void cmd_request_sense(const uint8_t *cdb, const struct emu_data *d,
			      struct emu_result *r)
{
	uint8_t b[18];

	memset(b, 0, sizeof(b));
	b[0] = 0x70;
	b[7] = 10;
	reply(d, r, b, sizeof(b), cdb[4]);
}

static void cmd_report_luns(const uint8_t *cdb, const struct emu_data *d,
			    struct emu_result *r)
{
	uint8_t b[16];
	size_t alloc = get_be32(cdb + 6);

	if (alloc < 16) {
		bad_cdb(r);
		return;
	}
	memset(b, 0, sizeof(b));
	put_be32(b, 8);		/* one LUN: 0 */
	reply(d, r, b, sizeof(b), alloc);
}

static void cmd_reserve(struct emu *e, int port, const uint8_t *cdb,
			bool reserve, struct emu_result *r)
{
	/* No third-party or extent reservations. */
	if (cdb[1] & (cdb[0] == OP_RESERVE_10 || cdb[0] == OP_RELEASE_10 ?
		      0x13 : 0x1f)) {
		bad_cdb(r);
		return;
	}
	if (reserve) {
		if (e->reserved_by >= 0 && e->reserved_by != port)
			conflict(e, port, r);
		else
			e->reserved_by = port;
	} else if (e->reserved_by == port) {
		/* A RELEASE from anyone else succeeds and changes nothing. */
		e->reserved_by = -1;
	}
}

/* Minimum CDB length per opcode, 0 = opcode unknown to this array. */
static size_t cdb_min_len(const struct emu *e, uint8_t op)
{
	switch (op) {
	case OP_START_STOP_UNIT:	/* the HP MSA's way to switch over */
		return e->personality == EMU_HPSW ? 6 : 0;
	case OP_TEST_UNIT_READY:
	case OP_REQUEST_SENSE:
	case OP_READ_6:
	case OP_WRITE_6:
	case OP_INQUIRY:
	case OP_MODE_SELECT_6:
	case OP_RESERVE_6:
	case OP_RELEASE_6:
	case OP_MODE_SENSE_6:
		return 6;
	case OP_READ_CAPACITY_10:
	case OP_READ_10:
	case OP_WRITE_10:
	case OP_WRITE_VERIFY_10:
	case OP_VERIFY_10:
	case OP_SYNC_CACHE_10:
	case OP_MODE_SELECT_10:
	case OP_RESERVE_10:
	case OP_RELEASE_10:
	case OP_MODE_SENSE_10:
		return 10;
	case OP_REPORT_LUNS:
	case OP_READ_12:
	case OP_WRITE_12:
		return 12;
	case OP_READ_16:
	case OP_WRITE_16:
	case OP_VERIFY_16:
	case OP_SYNC_CACHE_16:
	case OP_SERVICE_ACTION_IN_16:
		return 16;
	default:
		return 0;
	}
}

static bool is_media(uint8_t op)
{
	switch (op) {
	case OP_TEST_UNIT_READY:
	case OP_READ_6:
	case OP_WRITE_6:
	case OP_READ_10:
	case OP_WRITE_10:
	case OP_WRITE_VERIFY_10:
	case OP_VERIFY_10:
	case OP_SYNC_CACHE_10:
	case OP_READ_12:
	case OP_WRITE_12:
	case OP_READ_16:
	case OP_WRITE_16:
	case OP_VERIFY_16:
	case OP_SYNC_CACHE_16:
		return true;
	default:
		return false;
	}
}

/* Commands a unit attention does not stop (SPC). */
static bool ua_exempt(uint8_t op)
{
	return op == OP_INQUIRY || op == OP_REQUEST_SENSE ||
	       op == OP_REPORT_LUNS;
}

/*
 * Commands another port's SCSI-2 reservation does not stop.  MODE SELECT
 * is judged after its parameter list is read: an "ignore reservations"
 * trespass must get through.
 */
static bool resv_exempt(uint8_t op)
{
	return op == OP_INQUIRY || op == OP_REQUEST_SENSE ||
	       op == OP_REPORT_LUNS || op == OP_RELEASE_6 ||
	       op == OP_RELEASE_10 || op == OP_MODE_SELECT_6 ||
	       op == OP_MODE_SELECT_10;
}

/*
 * A media command through a port of the controller that does not own the
 * LUN, as each array answers it: the sense its handler reads as "passive".
 * Returns false if the command goes through anyway.
 */
static bool passive_reject(const struct emu *e, uint8_t op,
			   struct emu_result *r)
{
	switch (e->personality) {
	case EMU_RDAC:
		/*
		 * RDAC mode, AVT off: TEST UNIT READY is answered by either
		 * controller; I/O gets ILLEGAL REQUEST 94/01 "current LU
		 * ownership", on which scsi_dh_rdac marks the path passive
		 * and fails it over.
		 */
		if (op == OP_TEST_UNIT_READY)
			return false;
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x94, 0x01);
		return true;
	case EMU_HPSW:
		/*
		 * 04/02 "initializing command required": the passive
		 * controller until START STOP UNIT (scsi_dh_hp_sw's TUR at
		 * attach and activation, the hp_sw checker and prioritizer
		 * all read it so).
		 */
		emu_sense(r, SK_NOT_READY, 0x04, 0x02);
		return true;
	default:
		/* 04/03 "manual intervention required": PNR's passive SP */
		emu_sense(r, SK_NOT_READY, 0x04, 0x03);
		return true;
	}
}

void emu_command(struct emu *e, int port, const uint8_t *cdb, size_t cdb_len,
		 const struct emu_data *d, struct emu_result *r)
{
	struct emu_port *p;
	size_t need;
	uint8_t op;

	memset(r, 0, sizeof(*r));
	if (port < 0 || port >= e->nports) {
		emu_sense(r, 0x04, 0x44, 0x00);	/* internal target failure */
		return;
	}
	p = &e->port[port];
	p->c.cmds++;
	if (!cdb || cdb_len == 0) {
		bad_cdb(r);
		return;
	}
	op = cdb[0];
	need = cdb_min_len(e, op);
	if (!need) {
		emu_sense(r, SK_ILLEGAL_REQUEST, 0x20, 0x00);
		return;
	}
	if (is_media(op))
		p->c.media++;
	if (cdb_len < need) {
		bad_cdb(r);
		return;
	}
	if (p->ua_pending && !ua_exempt(op)) {
		p->ua_pending = false;
		p->c.ua++;
		emu_sense(r, SK_UNIT_ATTENTION, 0x29, 0x00);
		return;
	}
	if (e->reserved_by >= 0 && e->reserved_by != port && !resv_exempt(op)) {
		conflict(e, port, r);
		return;
	}
	if (is_media(op) && p->sp != e->owner && passive_reject(e, op, r)) {
		p->c.passive_rejects++;
		return;
	}

	switch (op) {
	case OP_TEST_UNIT_READY:
		break;
	case OP_REQUEST_SENSE:
		cmd_request_sense(cdb, d, r);
		break;
	case OP_INQUIRY:
		cmd_inquiry(e, port, cdb, d, r);
		break;
	case OP_MODE_SENSE_6:
	case OP_MODE_SENSE_10:
		cmd_mode_sense(e, cdb, op == OP_MODE_SENSE_10, d, r);
		break;
	case OP_MODE_SELECT_6:
	case OP_MODE_SELECT_10:
		cmd_mode_select(e, port, cdb, op == OP_MODE_SELECT_10, d, r);
		break;
	case OP_RESERVE_6:
	case OP_RESERVE_10:
		cmd_reserve(e, port, cdb, true, r);
		break;
	case OP_RELEASE_6:
	case OP_RELEASE_10:
		cmd_reserve(e, port, cdb, false, r);
		break;
	case OP_READ_CAPACITY_10:
		cmd_read_capacity(e, cdb, false, d, r);
		break;
	case OP_SERVICE_ACTION_IN_16:
		if ((cdb[1] & 0x1f) != SAI_READ_CAPACITY_16)
			bad_cdb(r);
		else
			cmd_read_capacity(e, cdb, true, d, r);
		break;
	case OP_READ_6:
	case OP_READ_10:
	case OP_READ_12:
	case OP_READ_16:
	case OP_WRITE_6:
	case OP_WRITE_10:
	case OP_WRITE_12:
	case OP_WRITE_16:
		cmd_rw(e, cdb, op == OP_WRITE_6 || op == OP_WRITE_10 ||
			       op == OP_WRITE_12 || op == OP_WRITE_16, d, r);
		break;
	case OP_WRITE_VERIFY_10:
		cmd_write_verify(e, cdb, d, r);
		break;
	case OP_VERIFY_10:
	case OP_VERIFY_16:
		cmd_verify(e, cdb, d, r);
		break;
	case OP_SYNC_CACHE_10:
	case OP_SYNC_CACHE_16:
		cmd_sync(e, cdb, r);
		break;
	case OP_REPORT_LUNS:
		cmd_report_luns(cdb, d, r);
		break;
	case OP_START_STOP_UNIT:
		hpsw_start_stop(e, port, cdb, r);
		break;
	}
}
