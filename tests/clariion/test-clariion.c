// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the emulator's SCSI dispatcher and TCMU ring walker:
 * known answers first, then random CDBs, random data segments and random
 * ring contents.  Built with ASan/UBSan (make check), so any read or write
 * outside what the caller handed in aborts the run.
 */
#define _DEFAULT_SOURCE
#include "clariion-control.h"
#include "clariion-core.h"
#include "clariion-ring.h"

#include <linux/target_core_user.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		checks++;                                                 \
		if (!(cond)) {                                            \
			failures++;                                       \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__,     \
				__LINE__, #cond);                         \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
		}                                                         \
	} while (0)

/* ---- helpers ---- */

static uint8_t buf[1 << 20];
static struct emu_seg one_seg;
static struct emu_data one_data;

/* Data buffer of n bytes (one segment). */
static const struct emu_data *data(size_t n)
{
	one_seg.base = buf;
	one_seg.len = n;
	one_data.seg = &one_seg;
	one_data.nseg = 1;
	one_data.total = n;
	return &one_data;
}

static struct emu_result run(struct emu *e, int port, const uint8_t *cdb,
			     size_t len, const struct emu_data *d)
{
	struct emu_result r;

	emu_command(e, port, cdb, len, d, &r);
	return r;
}

static int is_sense(const struct emu_result *r, int key, int asc, int ascq)
{
	return r->status == ST_CHECK_CONDITION && r->sense_len >= 14 &&
	       r->sense[0] == 0x70 && (r->sense[2] & 0x0f) == key &&
	       r->sense[12] == asc && r->sense[13] == ascq;
}

#define SENSE_FMT "status %02x sense %02x/%02x/%02x"
#define SENSE_ARGS(r) (r).status, (r).sense[2], (r).sense[12], (r).sense[13]

static const uint8_t tur[6] = { 0x00 };

static struct emu_result trespass6(struct emu *e, int port, uint8_t code,
				   bool shortpage)
{
	uint8_t cdb[6] = { 0x15, 0x10, 0, 0, 0, 0 };
	uint8_t pl[16] = { 0 };
	size_t n;

	if (shortpage) {
		uint8_t p[] = { 0x22, 0x02, code, 0xff };

		memcpy(pl + 4, p, sizeof(p));
		n = 8;
	} else {
		uint8_t p[] = { 0x22, 0x09, code, 0xff, 0xff, 0, 0, 0, 0, 0, 0 };

		memcpy(pl + 4, p, sizeof(p));
		n = 15;
	}
	cdb[4] = (uint8_t)n;
	memcpy(buf, pl, n);
	return run(e, port, cdb, 6, data(n));
}

static struct emu_result trespass10(struct emu *e, int port, uint8_t code)
{
	uint8_t cdb[10] = { 0x55, 0x10, 0, 0, 0, 0, 0, 0, 19, 0 };
	uint8_t pl[19] = { 0, 0, 0, 0, 0, 0, 0, 0,
			   0x22, 0x09, code, 0xff, 0xff, 0, 0, 0, 0, 0, 0 };

	memcpy(buf, pl, sizeof(pl));
	return run(e, port, cdb, 10, data(sizeof(pl)));
}

static uint8_t ctl_out[8192];

static int ctl(struct emu *e, const char *line)
{
	return emu_control(e, line, (char *)ctl_out, sizeof(ctl_out));
}

/* ---- known answers ---- */

static void test_inquiry(void)
{
	struct emu e;
	uint8_t cdb[6] = { 0x12, 0, 0, 0, 255, 0 };
	struct emu_result r;
	int p;

	emu_init(&e, 64 << 20, 2);
	memset(buf, 0xaa, 256);
	r = run(&e, 0, cdb, 6, data(255));
	CHECK(r.status == ST_GOOD, SENSE_FMT, SENSE_ARGS(r));
	CHECK(!memcmp(buf + 8, "DGC     ", 8), "vendor");
	CHECK(!memcmp(buf + 16, "RAID 5          ", 16), "product");
	CHECK(buf[4] + 5 >= 160 && r.data_in == (size_t)buf[4] + 5,
	      "long inquiry len %d data_in %zu", buf[4] + 5, r.data_in);
	CHECK((buf[5] & 0x30) == 0, "TPGS bits must be 0");
	CHECK(buf[160] == 14 && !memcmp(buf + 161, "APM00123456789", 14),
	      "serial");
	CHECK(buf[99] == 7 && !memcmp(buf + 161 + 14, "CX4-480", 7), "model");
	CHECK(buf[4] + 5 > 161 + 14 + 7,
	      "model must not end the data (scsi_dh_emc writes a NUL after it)");

	/* allocation length cuts the answer */
	cdb[4] = 36;
	r = run(&e, 0, cdb, 6, data(255));
	CHECK(r.data_in == 36, "alloc 36 -> %zu", r.data_in);
	/* short buffer: never more than the buffer */
	cdb[4] = 255;
	r = run(&e, 0, cdb, 6, data(10));
	CHECK(r.status == ST_GOOD && r.data_in == 10, "buffer 10");
	/* page code without EVPD */
	cdb[2] = 0x80;
	r = run(&e, 0, cdb, 6, data(255));
	CHECK(is_sense(&r, 5, 0x24, 0), SENSE_FMT, SENSE_ARGS(r));
	/* unknown VPD page */
	cdb[1] = 1;
	cdb[2] = 0x99;
	r = run(&e, 0, cdb, 6, data(255));
	CHECK(is_sense(&r, 5, 0x24, 0), SENSE_FMT, SENSE_ARGS(r));

	/* VPD 0x00 */
	cdb[2] = 0;
	r = run(&e, 0, cdb, 6, data(255));
	CHECK(r.status == 0 && buf[1] == 0 && buf[3] == 4 && buf[4] == 0 &&
	      buf[5] == 0x80 && buf[6] == 0x83 && buf[7] == 0xc0, "vpd 00");

	for (p = 0; p < e.nports; p++) {
		uint8_t naa[16];

		cdb[2] = 0x83;
		r = run(&e, p, cdb, 6, data(255));
		CHECK(r.status == 0 && buf[1] == 0x83 && buf[7] == 16 &&
		      buf[8] == 0x60, "vpd 83 port %d", p);
		memcpy(naa, buf + 8, 16);
		CHECK(!memcmp(naa, e.wwn, 16), "same NAA on port %d", p);
		CHECK((buf[25] & 0x0f) == 4 && buf[30] * 256 + buf[31] == p + 1,
		      "rtpi port %d", p);

		cdb[2] = 0x80;
		r = run(&e, p, cdb, 6, data(255));
		CHECK(r.status == 0 && buf[3] == strlen(e.lun_serial) &&
		      !memcmp(buf + 4, e.lun_serial, buf[3]), "vpd 80");

		cdb[2] = 0xc0;
		r = run(&e, p, cdb, 6, data(255));
		CHECK(r.status == 0 && buf[1] == 0xc0, "vpd c0");
		CHECK(buf[4] == (p < 2 ? 2 : 1), "c0 state port %d: %d", p,
		      buf[4]);
		CHECK(buf[5] == 0 && buf[7] == p % 2 && buf[8] == p / 2 &&
		      buf[9] == 0 && buf[27] == 3 && buf[28] == 4 &&
		      buf[30] == 0x04 &&
		      buf[48] == 0, "c0 fields port %d", p);
		CHECK(!memcmp(buf + 10, e.wwn, 16), "c0 wwn");
	}
	emu_free(&e);
}

static void test_passive_and_trespass(void)
{
	struct emu e;
	struct emu_result r;
	uint8_t rd[10] = { 0x28, 0, 0, 0, 0, 8, 0, 0, 1, 0 };
	uint8_t wr[10] = { 0x2a, 0, 0, 0, 0, 8, 0, 0, 1, 0 };

	emu_init(&e, 1 << 20, 1);
	r = run(&e, 0, tur, 6, NULL);
	CHECK(r.status == ST_GOOD, "TUR on owner");
	r = run(&e, 1, tur, 6, NULL);
	CHECK(is_sense(&r, 2, 4, 3), "TUR passive: " SENSE_FMT, SENSE_ARGS(r));
	r = run(&e, 1, rd, 10, data(512));
	CHECK(is_sense(&r, 2, 4, 3), "READ passive");

	/* write on A, trespass to B with MODE SELECT(6) long page */
	memset(buf, 0x5a, 512);
	r = run(&e, 0, wr, 10, data(512));
	CHECK(r.status == 0, "write A");
	r = trespass6(&e, 1, 0x81, false);
	CHECK(r.status == 0 && e.owner == EMU_SP_B, "trespass6 long " SENSE_FMT,
	      SENSE_ARGS(r));
	memset(buf, 0, 512);
	r = run(&e, 1, rd, 10, data(512));
	CHECK(r.status == 0 && r.data_in == 512 && buf[0] == 0x5a &&
	      buf[511] == 0x5a, "read back via B");
	r = run(&e, 0, rd, 10, data(512));
	CHECK(is_sense(&r, 2, 4, 3), "A now passive");

	/* short page back to A, then MODE SELECT(10) to B */
	r = trespass6(&e, 0, 0x81, true);
	CHECK(r.status == 0 && e.owner == EMU_SP_A, "trespass6 short");
	r = trespass10(&e, 1, 0x81);
	CHECK(r.status == 0 && e.owner == EMU_SP_B, "trespass10");
	CHECK(e.port[1].c.trespass == 2 && e.port[0].c.trespass == 1,
	      "trespass counters");
	/* a trespass to the owner already: GOOD, counted, no move */
	r = trespass10(&e, 1, 0x81);
	CHECK(r.status == 0 && e.owner == EMU_SP_B &&
	      e.port[1].c.trespass_ok == 3 && e.port[1].c.moved == 2 &&
	      e.port[0].c.moved == 1, "moved counts ownership changes only");
	CHECK(e.port[0].c.passive_rejects == 1 && e.port[1].c.passive_rejects == 2,
	      "passive counters %llu %llu",
	      (unsigned long long)e.port[0].c.passive_rejects,
	      (unsigned long long)e.port[1].c.passive_rejects);

	/* bad page length / code / truncated list */
	{
		uint8_t cdb[6] = { 0x15, 0x10, 0, 0, 8, 0 };
		uint8_t pl[8] = { 0, 0, 0, 0, 0x22, 0x03, 0x81, 0xff };

		memcpy(buf, pl, 8);
		r = run(&e, 0, cdb, 6, data(8));
		CHECK(is_sense(&r, 5, 0x26, 0), "bad page len " SENSE_FMT,
		      SENSE_ARGS(r));
		pl[5] = 0x02;
		pl[6] = 0x42;
		memcpy(buf, pl, 8);
		r = run(&e, 0, cdb, 6, data(8));
		CHECK(is_sense(&r, 5, 0x26, 0), "bad code");
		cdb[4] = 20;
		r = run(&e, 0, cdb, 6, data(8));
		CHECK(is_sense(&r, 5, 0x1a, 0), "list longer than data");
		CHECK(e.owner == EMU_SP_B, "failed trespasses change nothing");
	}
	emu_free(&e);
}

/* VPD page of port into buf; its length, 0 on error. */
static size_t vpd(struct emu *e, int port, uint8_t page)
{
	uint8_t cdb[6] = { 0x12, 0x01, page, 0x01, 0x00, 0 };
	struct emu_result r;

	memset(buf, 0, 256);
	r = run(e, port, cdb, 6, data(256));
	return r.status == ST_GOOD ? r.data_in : 0;
}

/* scsi_dh_rdac's MODE SELECT: page 0x2C moving LUN 0 here. */
static struct emu_result rdac_ms(struct emu *e, int port, bool ten,
				 uint8_t mode, uint8_t entry)
{
	uint8_t cdb10[10] = { 0x55, 0x10, 0, 0, 0, 0, 0, 0x01, 0x34, 0 };
	uint8_t cdb6[6] = { 0x15, 0x10, 0, 0, 110, 0 };

	memset(buf, 0, 308);
	if (ten) {
		buf[8] = 0x6c;		/* 0x2C with the SPF bit */
		buf[9] = 0x01;
		buf[10] = 0x01;
		buf[11] = 0x28;
		buf[12 + 33] = mode;
		buf[12 + 38] = entry;
		return run(e, port, cdb10, 10, data(308));
	}
	buf[4] = 0x2c;
	buf[5] = 0x68;
	buf[6 + 33] = mode;
	buf[6 + 38] = entry;
	return run(e, port, cdb6, 6, data(110));
}

static void test_rdac(void)
{
	uint8_t rd[10] = { 0x28, 0, 0, 0, 0, 8, 0, 0, 1, 0 };
	uint8_t inq[6] = { 0x12, 0, 0, 0, 96, 0 };
	struct emu_result r;
	struct emu e;
	size_t n;

	emu_init(&e, 1 << 20, 2);
	CHECK(emu_set_personality(&e, "nosuch") == -1, "unknown personality");
	CHECK(!emu_set_personality(&e, "rdac"), "rdac");
	r = run(&e, 0, inq, 6, data(96));
	CHECK(r.data_in == 36 && !memcmp(buf + 8, "NETAPP  INF-01-00       ", 24) &&
	      !(buf[5] & 0x30), "identity, no TPGS");
	n = vpd(&e, 0, 0x00);
	CHECK(n == 11 && buf[7] == 0xc2 && buf[10] == 0xc9, "VPD 0 lists C2..C9");
	CHECK(vpd(&e, 0, 0xc0) == 0, "no CLARiiON page");
	n = vpd(&e, 0, 0xc9);
	CHECK(n == 48 && buf[3] == 0x2c && !memcmp(buf + 4, "vace", 4) &&
	      buf[8] == 0x01 && buf[9] == 0x01, "C9 on A: owner, preferred");
	n = vpd(&e, 2, 0xc9);
	CHECK(n == 48 && buf[8] == 0x00 && buf[9] == 0x02,
	      "C9 on B: not owner, secondary");
	n = vpd(&e, 0, 0xc4);
	CHECK(n == 32 && buf[29] == '1', "C4 on A: slot 1");
	n = vpd(&e, 3, 0xc4);
	CHECK(n == 32 && buf[29] == '2', "C4 on B: slot 2");
	n = vpd(&e, 1, 0xc8);
	CHECK(n == 175 && !memcmp(buf + 4, "edid", 4) && buf[89] == 16 &&
	      buf[174] == 0, "C8: edid, array id, LUN 0");
	n = vpd(&e, 1, 0xc2);
	CHECK(n == 255 && !memcmp(buf + 4, "swr4", 4) && buf[15] >= 32,
	      "C2: MODE SELECT(10) form");

	r = run(&e, 2, tur, 6, NULL);
	CHECK(r.status == ST_GOOD, "TUR on the other controller: GOOD");
	r = run(&e, 2, rd, 10, data(512));
	CHECK(is_sense(&r, 5, 0x94, 0x01), "READ on non-owner: " SENSE_FMT,
	      SENSE_ARGS(r));
	r = rdac_ms(&e, 2, true, 0x02, 0x81);
	CHECK(r.status == ST_GOOD && e.owner == EMU_SP_B &&
	      e.port[2].c.moved == 1 && e.port[2].c.trespass == 1,
	      "MS10 page 2C/1 moves the LUN to B " SENSE_FMT, SENSE_ARGS(r));
	n = vpd(&e, 3, 0xc9);
	CHECK(buf[8] == 0x01 && buf[9] == 0x02, "C9 on B1: owner, secondary");
	r = run(&e, 0, rd, 10, data(512));
	CHECK(is_sense(&r, 5, 0x94, 0x01), "A now refuses I/O");
	r = rdac_ms(&e, 3, true, 0x02, 0x81);
	CHECK(r.status == ST_GOOD && e.port[3].c.moved == 0 &&
	      e.port[3].c.trespass_ok == 1, "to the owner: no move");
	r = rdac_ms(&e, 0, false, 0x02, 0x00);
	CHECK(r.status == ST_GOOD && e.owner == EMU_SP_B &&
	      e.port[0].c.trespass == 0, "LUN not in the table: nothing");
	r = rdac_ms(&e, 0, false, 0x02, 0x81);
	CHECK(r.status == ST_GOOD && e.owner == EMU_SP_A, "MS6 legacy page");
	buf[5] = 0x67;
	{
		uint8_t cdb6[6] = { 0x15, 0x10, 0, 0, 110, 0 };

		r = run(&e, 2, cdb6, 6, data(110));
		CHECK(is_sense(&r, 5, 0x26, 0) && e.owner == EMU_SP_A,
		      "bad page length refused");
	}
	r = rdac_ms(&e, 2, true, 0x02, 0x81);
	CHECK(r.status == ST_GOOD && e.owner == EMU_SP_B, "back to B");
	{
		uint8_t cdb[10] = { 0x55, 0x10, 0, 0, 0, 0, 0, 0x01, 0x00, 0 };

		/* the list cut before the page ends */
		r = run(&e, 0, cdb, 10, data(256));
		CHECK(is_sense(&r, 5, 0x1a, 0) && e.owner == EMU_SP_B,
		      "cut page: " SENSE_FMT, SENSE_ARGS(r));
	}
	{
		uint8_t pl[15] = { 0, 0, 0, 0, 0x22, 0x09, 0x81, 0xff, 0xff };
		uint8_t cdb[6] = { 0x15, 0x10, 0, 0, 15, 0 };

		memcpy(buf, pl, sizeof(pl));
		r = run(&e, 0, cdb, 6, data(15));
		CHECK(is_sense(&r, 5, 0x26, 0), "no trespass page on RDAC");
	}
	{
		uint8_t ms[10] = { 0x5a, 0x08, 0x0a, 0, 0, 0, 0, 0, 20, 0 };

		r = run(&e, 0, ms, 10, data(20));
		CHECK(r.status == ST_GOOD && (buf[13] & 0x40), "control page: TAS");
	}
	emu_free(&e);
}

static void test_hpsw(void)
{
	uint8_t ssu[6] = { 0x1b, 0, 0, 0, 0x01, 0 };
	uint8_t inq[6] = { 0x12, 0, 0, 0, 96, 0 };
	struct emu_result r;
	struct emu e;

	emu_init(&e, 1 << 20, 1);
	CHECK(!emu_set_personality(&e, "hpsw"), "hpsw");
	r = run(&e, 1, inq, 6, data(96));
	CHECK(r.data_in == 36 && !memcmp(buf + 8, "COMPAQ  MSA1000 VOLUME  ", 24),
	      "identity");
	CHECK(vpd(&e, 1, 0x80) > 4, "VPD 0x80 on the passive port");
	r = run(&e, 0, tur, 6, NULL);
	CHECK(r.status == ST_GOOD, "TUR active");
	r = run(&e, 1, tur, 6, NULL);
	CHECK(is_sense(&r, 2, 4, 2), "TUR passive: " SENSE_FMT, SENSE_ARGS(r));
	ssu[4] = 0;
	r = run(&e, 1, ssu, 6, NULL);
	CHECK(r.status == ST_GOOD && e.owner == EMU_SP_A &&
	      e.port[1].c.trespass == 0, "STOP: nothing moves");
	ssu[4] = 0x03;
	r = run(&e, 1, ssu, 6, NULL);
	CHECK(is_sense(&r, 5, 0x24, 0), "LOEJ refused");
	ssu[4] = 0x01;
	ssu[1] = 0x01;			/* IMMED, as sd sends it */
	r = run(&e, 1, ssu, 6, NULL);
	CHECK(r.status == ST_GOOD && e.owner == EMU_SP_B &&
	      e.port[1].c.moved == 1 && e.port[1].c.trespass_ok == 1,
	      "START on B makes it active");
	r = run(&e, 0, tur, 6, NULL);
	CHECK(is_sense(&r, 2, 4, 2), "A passive now");
	r = run(&e, 1, ssu, 6, NULL);
	CHECK(r.status == ST_GOOD && e.port[1].c.moved == 1 &&
	      e.port[1].c.trespass == 2, "START on the active one: no move");
	CHECK(!ctl(&e, "ndu on"), "ndu on");
	r = run(&e, 0, ssu, 6, NULL);
	CHECK(is_sense(&r, 2, 4, 3) && e.owner == EMU_SP_B,
	      "busy array: switch-over refused (04/03: hp_sw retries)");
	emu_free(&e);

	emu_init(&e, 1 << 20, 1);
	r = run(&e, 1, ssu, 6, NULL);
	CHECK(is_sense(&r, 5, 0x20, 0), "no START STOP UNIT on the CLARiiON");
	emu_free(&e);
}

static void test_reservations(void)
{
	struct emu e;
	struct emu_result r;
	uint8_t reserve[6] = { 0x16 }, release[6] = { 0x17 };

	emu_init(&e, 1 << 20, 1);
	r = run(&e, 0, reserve, 6, NULL);
	CHECK(r.status == 0 && e.reserved_by == 0, "reserve A0");
	r = run(&e, 1, reserve, 6, NULL);
	CHECK(r.status == ST_RESERVATION_CONFLICT, "reserve B0 conflicts");
	r = trespass6(&e, 1, 0x01, false);
	CHECK(r.status == ST_RESERVATION_CONFLICT && e.owner == EMU_SP_A,
	      "honor trespass conflicts");
	r = trespass6(&e, 1, 0x81, false);
	CHECK(r.status == 0 && e.owner == EMU_SP_B, "ignore trespass works");
	r = run(&e, 1, tur, 6, NULL);
	CHECK(r.status == ST_RESERVATION_CONFLICT, "B0 TUR conflicts");
	r = run(&e, 1, release, 6, NULL);
	CHECK(r.status == 0 && e.reserved_by == 0, "foreign release: no-op");
	r = run(&e, 0, release, 6, NULL);
	CHECK(r.status == 0 && e.reserved_by == -1, "release");
	r = run(&e, 1, tur, 6, NULL);
	CHECK(r.status == 0, "B0 TUR after release");
	r = run(&e, 0, reserve, 6, NULL);
	r = trespass6(&e, 0, 0x01, false);
	CHECK(r.status == 0 && e.owner == EMU_SP_A, "own reservation honored");
	CHECK(e.port[1].c.conflicts == 3, "conflicts %llu",
	      (unsigned long long)e.port[1].c.conflicts);
	emu_free(&e);
}

static void test_controls(void)
{
	struct emu e;
	struct emu_result r;
	char *s;

	emu_init(&e, 1 << 20, 2);
	CHECK(ctl(&e, "owner") == 0 && !strcmp((char *)ctl_out, "A\n"), "owner");
	CHECK(ctl(&e, "owner B") == 0 && e.owner == EMU_SP_B, "owner B");
	CHECK(ctl(&e, "owner C") < 0 && e.owner == EMU_SP_B, "owner C");
	CHECK(ctl(&e, "bogus") < 0 && !strncmp((char *)ctl_out, "error:", 6),
	      "bogus");
	CHECK(ctl(&e, "") < 0, "empty");
	CHECK(ctl(&e, "a b c d e f g h i j k") < 0, "too many words");

	/* NDU */
	CHECK(ctl(&e, "ndu on") == 0, "ndu");
	r = trespass6(&e, 0, 0x81, false);
	CHECK(is_sense(&r, 2, 4, 3) && e.owner == EMU_SP_B, "ndu trespass");
	{
		uint8_t inq[6] = { 0x12, 1, 0xc0, 0, 255, 0 };

		r = run(&e, 0, inq, 6, data(255));
		CHECK(buf[48] == 1, "ndu flag in c0");
	}
	ctl(&e, "ndu off");

	/* reject with default and custom sense */
	CHECK(ctl(&e, "reject-trespass on") == 0, "reject");
	r = trespass6(&e, 0, 0x81, false);
	CHECK(is_sense(&r, 5, 0x24, 0), "reject default");
	CHECK(ctl(&e, "reject-trespass on 5 4 0") == 0, "reject custom");
	r = trespass6(&e, 0, 0x81, false);
	CHECK(is_sense(&r, 5, 4, 0), "reject 05/04/00 " SENSE_FMT, SENSE_ARGS(r));
	CHECK(ctl(&e, "reject-trespass on 55 4 0") < 0, "bad key");
	CHECK(ctl(&e, "reject-trespass off") == 0, "reject off");

	/* delay */
	CHECK(ctl(&e, "delay-trespass 250") == 0, "delay");
	r = trespass6(&e, 0, 0x81, false);
	CHECK(r.defer_ms == 250 && e.owner == EMU_SP_B, "deferred");
	emu_finish_deferred(&e, 0, &r);
	CHECK(r.status == 0 && e.owner == EMU_SP_A, "finished");
	CHECK(ctl(&e, "delay-trespass x") < 0, "bad delay");
	ctl(&e, "delay-trespass 0");

	/* unit attention on every new-owner port, once */
	CHECK(ctl(&e, "ua on") == 0, "ua");
	r = trespass6(&e, 2, 0x81, false);
	CHECK(r.status == 0 && e.owner == EMU_SP_B, "trespass to B");
	r = run(&e, 2, tur, 6, NULL);
	CHECK(is_sense(&r, 6, 0x29, 0), "UA on B0");
	r = run(&e, 2, tur, 6, NULL);
	CHECK(r.status == 0, "B0 after UA");
	{
		uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };

		r = run(&e, 3, inq, 6, data(36));
		CHECK(r.status == 0, "INQUIRY not stopped by UA");
	}
	r = run(&e, 3, tur, 6, NULL);
	CHECK(is_sense(&r, 6, 0x29, 0), "UA on B1");
	r = run(&e, 0, tur, 6, NULL);
	CHECK(is_sense(&r, 2, 4, 3), "no UA on old owner");
	ctl(&e, "ua off");

	/* counters format */
	CHECK(ctl(&e, "counters") == 0, "counters");
	s = strstr((char *)ctl_out, "B0 trespass=1 cmds=3 media=2 passive_rejects=0");
	CHECK(s != NULL, "counters line: %s", ctl_out);
	CHECK(ctl(&e, "reset-counters") == 0 && e.port[2].c.cmds == 0, "reset");
	CHECK(ctl(&e, "fail B1 noresp") == 0 && e.port[3].fail == EMU_FAIL_NORESP,
	      "fail");
	CHECK(ctl(&e, "fail B9 noresp") < 0, "fail bad port");
	CHECK(ctl(&e, "restore B1") == 0 && e.port[3].fail == EMU_FAIL_NONE,
	      "restore");
	ctl(&e, "fail A0 transport");
	ctl(&e, "fail B0 noresp");
	CHECK(ctl(&e, "restore all") == 0 && e.port[0].fail == EMU_FAIL_NONE &&
	      e.port[2].fail == EMU_FAIL_NONE, "restore all");
	CHECK(ctl(&e, "status") == 0 && strstr((char *)ctl_out, "owner=B"),
	      "status");
	emu_free(&e);
}

static void test_misc_cdbs(void)
{
	struct emu e;
	struct emu_result r;

	emu_init(&e, 1 << 20, 1);
	{
		uint8_t cdb[10] = { 0x25 };

		r = run(&e, 1, cdb, 10, data(8));
		CHECK(r.status == 0 && buf[2] == 0x07 && buf[3] == 0xff &&
		      buf[6] == 2 && buf[7] == 0, "read capacity 10 on passive");
	}
	{
		uint8_t cdb[16] = { 0x9e, 0x10 };

		cdb[13] = 32;
		r = run(&e, 0, cdb, 16, data(32));
		CHECK(r.status == 0 && r.data_in == 32 && buf[7] == 0xff &&
		      buf[6] == 0x07, "read capacity 16");
		cdb[1] = 0x11;
		r = run(&e, 0, cdb, 16, data(32));
		CHECK(is_sense(&r, 5, 0x24, 0), "bad service action");
	}
	{
		uint8_t cdb[6] = { 0x1a, 0, 0x3f, 0, 255, 0 };

		r = run(&e, 1, cdb, 6, data(255));
		CHECK(r.status == 0 && buf[0] + 1 == 4 + 8 + 20 + 12 &&
		      buf[3] == 8 && buf[12] == 0x08 && buf[32] == 0x0a,
		      "mode sense 6 all pages (len %d)", buf[0] + 1);
		cdb[2] = 0x22;
		r = run(&e, 0, cdb, 6, data(255));
		CHECK(is_sense(&r, 5, 0x24, 0), "mode sense unknown page");
		cdb[2] = 0xc8;
		r = run(&e, 0, cdb, 6, data(255));
		CHECK(is_sense(&r, 5, 0x39, 0), "saved values");
	}
	{
		uint8_t cdb[10] = { 0x5a, 0x08, 0x08, 0, 0, 0, 0, 0, 255, 0 };

		r = run(&e, 0, cdb, 10, data(255));
		CHECK(r.status == 0 && buf[1] + 2 == 8 + 20 && buf[8] == 0x08,
		      "mode sense 10 caching, dbd");
	}
	{
		uint8_t cdb[6] = { 0xc1 };

		r = run(&e, 0, cdb, 6, NULL);
		CHECK(is_sense(&r, 5, 0x20, 0), "unknown opcode");
	}
	{
		uint8_t cdb[10] = { 0x28, 0, 0, 0, 0x08, 0, 0, 0, 1, 0 };

		r = run(&e, 0, cdb, 10, data(512));
		CHECK(is_sense(&r, 5, 0x21, 0), "lba out of range");
		cdb[4] = 0;
		cdb[5] = 0x07;
		cdb[7] = 0;
		cdb[8] = 0xff;
		r = run(&e, 0, cdb, 10, data(512));
		CHECK(r.status == 0 && r.data_in == 512, "read fits the buffer");
	}
	{
		uint8_t cdb[10] = { 0x2a, 0, 0, 0, 0, 0, 0, 0, 2, 0 };

		r = run(&e, 0, cdb, 10, data(512));
		CHECK(is_sense(&r, 5, 0x24, 0), "write with too little data");
	}
	{
		uint8_t cdb[10] = { 0x2f, 0x02, 0, 0, 0, 0, 0, 0, 1, 0 };

		memset(e.data, 0x11, 512);
		memset(buf, 0x11, 512);
		r = run(&e, 0, cdb, 10, data(512));
		CHECK(r.status == 0, "verify equal");
		buf[100] = 0;
		r = run(&e, 0, cdb, 10, data(512));
		CHECK(is_sense(&r, 0x0e, 0x1d, 0), "verify miscompare");
	}
	{
		uint8_t cdb[6] = { 0x12, 0, 0, 0, 36, 0 };

		r = run(&e, 0, cdb, 3, data(36));
		CHECK(is_sense(&r, 5, 0x24, 0), "short cdb");
		r = run(&e, 0, cdb, 0, data(36));
		CHECK(is_sense(&r, 5, 0x24, 0), "empty cdb");
		r = run(&e, 7, cdb, 6, data(36));
		CHECK(r.status == ST_CHECK_CONDITION, "bad port");
	}
	emu_free(&e);
}

/* ---- fuzz ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static const uint8_t known_ops[] = {
	0x00, 0x03, 0x08, 0x0a, 0x12, 0x15, 0x16, 0x17, 0x1a, 0x1b, 0x25, 0x28,
	0x2a, 0x2e, 0x2f, 0x35, 0x55, 0x56, 0x57, 0x5a, 0x88, 0x8a, 0x8f,
	0x91, 0x9e, 0xa0, 0xa8, 0xaa,
};

static void fuzz_dispatcher(int iterations, const char *personality)
{
	static const char *const ctls[] = {
		"owner A", "owner B", "ndu on", "ndu off", "ua on", "ua off",
		"reject-trespass on", "reject-trespass off", "delay-trespass 5",
		"delay-trespass 0", "clear-reservation", "counters", "status",
	};
	struct emu e;
	int it;

	emu_init(&e, 1 << 20, 2);
	CHECK(!emu_set_personality(&e, personality), "personality %s",
	      personality);
	for (it = 0; it < iterations; it++) {
		uint8_t cdb[32];
		struct emu_seg segs[6];
		struct emu_data d;
		struct emu_result r;
		size_t cdb_len = rnd() % 33, i, off = 0;
		uint8_t *pool;
		size_t pool_len = 0;

		for (i = 0; i < sizeof(cdb); i++)
			cdb[i] = (uint8_t)rnd();
		if (rnd() % 4)
			cdb[0] = known_ops[rnd() % sizeof(known_ops)];
		if (rnd() % 2) {	/* small LBAs and lengths: hit the data */
			for (i = 2; i < 10 && i < cdb_len; i++)
				cdb[i] = (uint8_t)(rnd() % 3 ? 0 : rnd() % 8);
		}
		d.nseg = rnd() % 7;
		d.total = 0;
		for (i = 0; i < d.nseg; i++) {
			segs[i].len = rnd() % 4 ? rnd() % 1500 : rnd() % 9;
			pool_len += segs[i].len;
		}
		/* Exactly-sized heap block: ASan sees any overrun. */
		pool = malloc(pool_len ? pool_len : 1);
		for (i = 0; i < pool_len; i++)
			pool[i] = (uint8_t)rnd();
		if (pool_len >= 12 && rnd() % 3 == 0) {
			/* plausible trespass parameter list */
			uint8_t pl[] = { 0, 0, 0, 0, 0x22, 0x09, 0x81, 0xff,
					 0xff, 0, 0, 0 };

			memcpy(pool, pl, sizeof(pl));
			pool[6] = (uint8_t)(rnd() % 2 ? 0x01 : rnd());
		}
		if (pool_len >= 320 && rnd() % 3 == 0) {
			/* plausible RDAC page 0x2C, subpage form */
			uint8_t pl[] = { 0, 0, 0, 0, 0, 0, 0, 0,
					 0x6c, 0x01, 0x01, 0x28 };

			memcpy(pool, pl, sizeof(pl));
			pool[8 + 4 + 33] = (uint8_t)(rnd() % 2 ? 0x02 : rnd());
			pool[8 + 4 + 38] = (uint8_t)(rnd() % 2 ? 0x81 : rnd());
		}
		for (i = 0; i < d.nseg; i++) {
			segs[i].base = pool + off;
			off += segs[i].len;
			d.total += segs[i].len;
		}
		d.seg = segs;
		emu_command(&e, (int)(rnd() % (unsigned int)e.nports), cdb,
			    cdb_len, &d, &r);
		if (r.defer_ms)
			emu_finish_deferred(&e, 0, &r);
		CHECK(r.data_in <= d.total, "data_in %zu > total %zu", r.data_in,
		      d.total);
		CHECK(r.status == ST_GOOD || r.status == ST_CHECK_CONDITION ||
		      r.status == ST_RESERVATION_CONFLICT, "status %02x",
		      r.status);
		CHECK(r.status != ST_CHECK_CONDITION || r.sense_len == 18,
		      "sense len");
		free(pool);
		if (rnd() % 64 == 0)
			ctl(&e, ctls[rnd() % (sizeof(ctls) / sizeof(ctls[0]))]);
		if (failures > 20)
			break;
	}
	emu_free(&e);
}

static void fuzz_control(int iterations)
{
	static const char *const words[] = {
		"owner", "A", "B", "ndu", "on", "off", "ua", "reject-trespass",
		"5", "4", "ff", "100", "delay-trespass", "fail", "A0", "B1",
		"B7", "transport", "noresp", "restore", "counters", "status",
		"reservation", "-1", "99999999999999999999", "x",
	};
	struct emu e;
	int it;

	emu_init(&e, 1 << 20, 2);
	for (it = 0; it < iterations; it++) {
		char line[300] = "";
		int n = (int)(rnd() % 6), i;

		for (i = 0; i < n; i++) {
			strcat(line, words[rnd() % (sizeof(words) / sizeof(words[0]))]);
			strcat(line, " ");
		}
		if (rnd() % 50 == 0)
			memset(line, 'x', 299);
		ctl(&e, line);
		CHECK(strlen((char *)ctl_out) < sizeof(ctl_out), "reply bounded");
	}
	emu_free(&e);
}

/* ---- ring ---- */

#define CMDR_OFF 128u
#define CMDR_SIZE 4096u
#define DATA_OFF (CMDR_OFF + CMDR_SIZE)
#define MAP_SIZE (DATA_OFF + 65536u)

struct fake {
	uint8_t *map;
	uint32_t head;
	uint32_t data_next;
};

static void fake_init(struct fake *f)
{
	struct tcmu_mailbox mb;

	f->map = calloc(1, MAP_SIZE);
	memset(&mb, 0, sizeof(mb));
	mb.version = 2;
	mb.flags = TCMU_MAILBOX_FLAG_CAP_OOOC | TCMU_MAILBOX_FLAG_CAP_READ_LEN;
	mb.cmdr_off = CMDR_OFF;
	mb.cmdr_size = CMDR_SIZE;
	memcpy(f->map, &mb, sizeof(mb));
	f->head = 0;
	f->data_next = DATA_OFF;
}

static void set_head(struct fake *f)
{
	memcpy(f->map + offsetof(struct tcmu_mailbox, cmd_head), &f->head, 4);
}

static uint32_t get_tail(struct fake *f)
{
	uint32_t t;

	memcpy(&t, f->map + offsetof(struct tcmu_mailbox, cmd_tail), 4);
	return t;
}

/* Queue a command like the kernel does; returns the entry offset. */
static uint32_t fake_cmd(struct fake *f, const uint8_t *cdb, size_t cdb_len,
			 const uint32_t *iov_len, int niov)
{
	size_t base = offsetof(struct tcmu_cmd_entry, req.iov) +
		      (size_t)niov * sizeof(struct iovec);
	size_t size;
	uint32_t off, len_op = 0;
	uint8_t *ent;
	uint64_t cdb_off;
	int i;

	if (base < sizeof(struct tcmu_cmd_entry))
		base = sizeof(struct tcmu_cmd_entry);
	size = (base + cdb_len + 7) & ~(size_t)7;
	if (CMDR_SIZE - f->head < size) {	/* pad to the end */
		uint32_t pad = CMDR_SIZE - f->head;

		ent = f->map + CMDR_OFF + f->head;
		memset(ent, 0, 8);
		tcmu_hdr_set_op(&len_op, TCMU_OP_PAD);
		tcmu_hdr_set_len(&len_op, pad);
		memcpy(ent, &len_op, 4);
		f->head = 0;
		len_op = 0;
	}
	off = f->head;
	ent = f->map + CMDR_OFF + off;
	memset(ent, 0, size);
	tcmu_hdr_set_op(&len_op, TCMU_OP_CMD);
	tcmu_hdr_set_len(&len_op, (uint32_t)size);
	memcpy(ent, &len_op, 4);
	memcpy(ent + offsetof(struct tcmu_cmd_entry, req.iov_cnt), &niov, 4);
	for (i = 0; i < niov; i++) {
		struct iovec v;

		if (f->data_next + iov_len[i] > MAP_SIZE)
			f->data_next = DATA_OFF;
		v.iov_base = (void *)(uintptr_t)f->data_next;
		v.iov_len = iov_len[i];
		f->data_next += iov_len[i];
		memcpy(ent + offsetof(struct tcmu_cmd_entry, req.iov) +
		       (size_t)i * sizeof(v), &v, sizeof(v));
	}
	cdb_off = CMDR_OFF + off + base;
	memcpy(ent + offsetof(struct tcmu_cmd_entry, req.cdb_off), &cdb_off, 8);
	memcpy(f->map + cdb_off, cdb, cdb_len);
	f->head = (f->head + (uint32_t)size) % CMDR_SIZE;
	set_head(f);
	return off;
}

static uint8_t rsp_status(struct fake *f, uint32_t off)
{
	return f->map[CMDR_OFF + off + offsetof(struct tcmu_cmd_entry,
						rsp.scsi_status)];
}

static void test_ring(void)
{
	struct fake f;
	struct ring *rg = calloc(1, sizeof(*rg));
	const char *why = "";
	struct emu e;
	uint64_t next = UINT64_MAX;
	uint32_t off, len = 36;
	int i, done;

	emu_init(&e, 1 << 20, 1);
	fake_init(&f);
	CHECK(ring_attach(rg, f.map, MAP_SIZE, 1, &why) == 0, "attach: %s", why);
	rg->quiet = true;

	/* INQUIRY: response lands in the data area, read_len reported */
	{
		uint8_t cdb[6] = { 0x12, 0, 0, 0, 36, 0 };
		uint32_t rl;
		uint8_t *ent;

		off = fake_cmd(&f, cdb, 6, &len, 1);
		done = ring_process(rg, &e, 0, &next);
		ent = f.map + CMDR_OFF + off;
		memcpy(&rl, ent + offsetof(struct tcmu_cmd_entry, rsp.read_len), 4);
		CHECK(done == 1 && get_tail(&f) == f.head, "one done, tail moved");
		CHECK(rsp_status(&f, off) == 0 && rl == 36 &&
		      (ent[7] & TCMU_UFLAG_READ_LEN), "inquiry response");
		CHECK(!memcmp(f.map + DATA_OFF + 8, "DGC", 3), "inquiry data");
	}
	/* many TURs on the passive port: wraps with PAD entries */
	for (i = 0; i < 200; i++) {
		off = fake_cmd(&f, tur, 6, NULL, 0);
		done = ring_process(rg, &e, 0, &next);
		CHECK(done == 1 && rsp_status(&f, off) == ST_CHECK_CONDITION &&
		      f.map[CMDR_OFF + off + 16 + 2] == 2 &&
		      f.map[CMDR_OFF + off + 16 + 12] == 4 &&
		      f.map[CMDR_OFF + off + 16 + 13] == 3, "passive TUR %d", i);
	}
	CHECK(e.port[1].c.passive_rejects == 200, "200 passive rejects");

	/* noresp holds commands until restored */
	e.port[1].fail = EMU_FAIL_NORESP;
	off = fake_cmd(&f, tur, 6, NULL, 0);
	CHECK(ring_process(rg, &e, 0, &next) == 0 && get_tail(&f) != f.head,
	      "held while noresp");
	e.port[1].fail = EMU_FAIL_NONE;
	CHECK(ring_process(rg, &e, 0, &next) == 1 && get_tail(&f) == f.head,
	      "answered after restore");

	/* delayed trespass: held until its deadline */
	{
		uint8_t cdb[6] = { 0x15, 0x10, 0, 0, 15, 0 };
		uint8_t pl[15] = { 0, 0, 0, 0, 0x22, 0x09, 0x81, 0xff, 0xff };
		uint32_t plen = 15;

		e.trespass_delay_ms = 100;
		off = fake_cmd(&f, cdb, 6, &plen, 1);
		/* the data follows the kernel's data_next: find it */
		{
			struct iovec v;

			memcpy(&v, f.map + CMDR_OFF + off +
			       offsetof(struct tcmu_cmd_entry, req.iov), sizeof(v));
			memcpy(f.map + (uintptr_t)v.iov_base, pl, sizeof(pl));
		}
		next = UINT64_MAX;
		CHECK(ring_process(rg, &e, 1000, &next) == 0 && next == 1100 &&
		      e.owner == EMU_SP_A, "trespass held");
		CHECK(ring_process(rg, &e, 1050, &next) == 0, "still held");
		CHECK(ring_process(rg, &e, 1100, &next) == 1 &&
		      e.owner == EMU_SP_B && rsp_status(&f, off) == 0,
		      "trespass done at deadline");
	}

	/* bad iov offset: answered with an error, ring keeps going */
	{
		uint8_t cdb[6] = { 0x12, 0, 0, 0, 36, 0 };
		struct iovec v = { (void *)(uintptr_t)(MAP_SIZE - 4), 36 };

		off = fake_cmd(&f, cdb, 6, &len, 1);
		memcpy(f.map + CMDR_OFF + off +
		       offsetof(struct tcmu_cmd_entry, req.iov), &v, sizeof(v));
		CHECK(ring_process(rg, &e, 0, &next) == 1 &&
		      rsp_status(&f, off) == ST_CHECK_CONDITION && !rg->broken,
		      "bad iov rejected");
	}
	/* garbage header: ring stops, no crash */
	{
		uint32_t bad = 3;	/* length 0 */

		off = fake_cmd(&f, tur, 6, NULL, 0);
		memcpy(f.map + CMDR_OFF + off, &bad, 4);
		CHECK(ring_process(rg, &e, 0, &next) == 0 && rg->broken,
		      "broken ring");
	}
	/* bad mailboxes are refused */
	{
		struct tcmu_mailbox mb;

		memcpy(&mb, f.map, sizeof(mb));
		mb.cmdr_size = MAP_SIZE;
		memcpy(f.map, &mb, sizeof(mb));
		CHECK(ring_attach(rg, f.map, MAP_SIZE, 1, &why) < 0, "bad mailbox");
		CHECK(ring_attach(rg, f.map, 16, 1, &why) < 0, "tiny map");
	}
	free(f.map);
	free(rg);
	emu_free(&e);
}

/* Random bytes in the command ring: the walker must stay in bounds. */
static void fuzz_ring(int iterations)
{
	struct ring *rg = calloc(1, sizeof(*rg));
	struct emu e;
	int it;

	emu_init(&e, 1 << 20, 1);
	for (it = 0; it < iterations; it++) {
		struct fake f;
		const char *why;
		uint64_t next = UINT64_MAX;
		uint32_t i, n;

		fake_init(&f);
		if (ring_attach(rg, f.map, MAP_SIZE, (int)(rnd() % 2), &why)) {
			CHECK(0, "attach: %s", why);
			free(f.map);
			break;
		}
		rg->quiet = true;
		/* some valid commands, then scribble over the ring */
		n = rnd() % 8;
		for (i = 0; i < n; i++) {
			uint8_t cdb[16];
			uint32_t lens[3] = { rnd() % 4096, rnd() % 600, rnd() % 7 };
			uint32_t j;

			for (j = 0; j < sizeof(cdb); j++)
				cdb[j] = (uint8_t)rnd();
			cdb[0] = known_ops[rnd() % sizeof(known_ops)];
			fake_cmd(&f, cdb, 16, lens, (int)(rnd() % 4));
		}
		n = rnd() % 40;
		for (i = 0; i < n; i++) {
			uint32_t pos = CMDR_OFF + rnd() % CMDR_SIZE;

			if (rnd() % 2)
				f.map[pos] = (uint8_t)rnd();
			else if (pos + 8 <= DATA_OFF) {
				/* plausible-looking big offsets/lengths */
				uint64_t v = rnd() % 3 ? rnd() % (MAP_SIZE * 2) :
					     ((uint64_t)rnd() << 32) | rnd();

				memcpy(f.map + pos, &v, 8);
			}
		}
		if (rnd() % 8 == 0) {
			f.head = (rnd() % CMDR_SIZE) & ~7u;
			set_head(&f);
		}
		/* bounded work: a sane walker finishes each ring quickly */
		ring_process(rg, &e, 0, &next);
		free(f.map);
	}
	free(rg);
	emu_free(&e);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200000;

	test_inquiry();
	test_passive_and_trespass();
	test_reservations();
	test_controls();
	test_misc_cdbs();
	test_rdac();
	test_hpsw();
	test_ring();
	fuzz_dispatcher(n, "clariion");
	fuzz_dispatcher(n / 2, "rdac");
	fuzz_dispatcher(n / 2, "hpsw");
	fuzz_control(n / 10);
	fuzz_ring(n / 20);
	printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS",
	       checks, failures);
	return failures ? 1 : 0;
}
