// SPDX-License-Identifier: GPL-2.0
/*
 * TCMU ring walking (Documentation/target/tcmu-design.rst,
 * <linux/target_core_user.h>).  The kernel is trusted to be sane, but a
 * bug in either side must not make us read or write outside the map, so
 * every offset and length taken from the ring is checked against it.
 */
#define _DEFAULT_SOURCE
#include "clariion-ring.h"

#include <linux/target_core_user.h>
#include <stdio.h>
#include <string.h>

#define MAX_CDB 260	/* SCSI_MAX_VARLEN_CDB_SIZE */

static uint32_t load_acquire_u32(const uint8_t *p)
{
	return __atomic_load_n((const uint32_t *)(const void *)p,
			       __ATOMIC_ACQUIRE);
}

static void store_release_u32(uint8_t *p, uint32_t v)
{
	__atomic_store_n((uint32_t *)(void *)p, v, __ATOMIC_RELEASE);
}

static void ring_log(const struct ring *rg, const char *msg, uint64_t a,
		     uint64_t b)
{
	if (rg->quiet)
		return;
	fprintf(stderr, "clariion-emu: port %d: %s (%llu, %llu)\n", rg->port,
		msg, (unsigned long long)a, (unsigned long long)b);
}

int ring_attach(struct ring *rg, uint8_t *map, size_t map_size, int port,
		const char **why)
{
	struct tcmu_mailbox mb;

	memset(rg, 0, sizeof(*rg));
	rg->map = map;
	rg->map_size = map_size;
	rg->port = port;
	if (!map || map_size < sizeof(mb)) {
		*why = "map smaller than the mailbox";
		return -1;
	}
	memcpy(&mb, map, sizeof(mb));
	if (mb.version < 1 || mb.version > TCMU_MAILBOX_VERSION) {
		*why = "unknown mailbox version";
		return -1;
	}
	if (mb.cmdr_off < sizeof(mb) || mb.cmdr_size < 2 * sizeof(struct tcmu_cmd_entry) ||
	    (uint64_t)mb.cmdr_off + mb.cmdr_size > map_size ||
	    mb.cmdr_off % TCMU_OP_ALIGN_SIZE) {
		*why = "command ring outside the map";
		return -1;
	}
	if (mb.cmd_tail >= mb.cmdr_size || mb.cmd_tail % TCMU_OP_ALIGN_SIZE) {
		*why = "bad cmd_tail";
		return -1;
	}
	rg->cmdr_off = mb.cmdr_off;
	rg->cmdr_size = mb.cmdr_size;
	rg->data_off = mb.cmdr_off + mb.cmdr_size;
	rg->tail = mb.cmd_tail;
	rg->read_len_cap = mb.flags & TCMU_MAILBOX_FLAG_CAP_READ_LEN;
	return 0;
}

/* Length of a CDB as the kernel copies it (scsi_command_size()). */
static size_t cdb_size(const uint8_t *cdb, size_t avail)
{
	static const uint8_t group_len[8] = { 6, 10, 10, 12, 16, 12, 10, 10 };

	if (avail < 1)
		return 0;
	if (cdb[0] == 0x7f)	/* VARIABLE_LENGTH_CMD */
		return avail < 8 ? 0 : (size_t)cdb[7] + 8;
	return group_len[cdb[0] >> 5];
}

static void write_response(struct ring *rg, uint8_t *ent,
			   const struct emu_result *r)
{
	struct tcmu_cmd_entry_hdr hdr;
	uint32_t read_len = (uint32_t)r->data_in;
	size_t sl = r->sense_len < TCMU_SENSE_BUFFERSIZE ? r->sense_len :
		    TCMU_SENSE_BUFFERSIZE;

	memcpy(&hdr, ent, sizeof(hdr));
	hdr.uflags = 0;
	if (rg->read_len_cap && r->status == ST_GOOD && read_len) {
		/* Lets the kernel report a residual for short answers. */
		hdr.uflags |= TCMU_UFLAG_READ_LEN;
	}
	memcpy(ent, &hdr, sizeof(hdr));
	ent[offsetof(struct tcmu_cmd_entry, rsp.scsi_status)] = r->status;
	memcpy(ent + offsetof(struct tcmu_cmd_entry, rsp.read_len), &read_len,
	       sizeof(read_len));
	memset(ent + offsetof(struct tcmu_cmd_entry, rsp.sense_buffer), 0,
	       TCMU_SENSE_BUFFERSIZE);
	memcpy(ent + offsetof(struct tcmu_cmd_entry, rsp.sense_buffer),
	       r->sense, sl);
}

/* Turn the entry's request into segments and a CDB; 0 if all is in bounds. */
static int decode_entry(struct ring *rg, const uint8_t *ent, uint32_t len,
			uint8_t *cdb, size_t *cdb_len, struct emu_data *d)
{
	uint32_t iov_cnt, bidi_cnt, dif_cnt;
	uint64_t cdb_off, total = 0, niov, i;
	const size_t iov0 = offsetof(struct tcmu_cmd_entry, req.iov);

	memcpy(&iov_cnt, ent + offsetof(struct tcmu_cmd_entry, req.iov_cnt), 4);
	memcpy(&bidi_cnt, ent + offsetof(struct tcmu_cmd_entry, req.iov_bidi_cnt), 4);
	memcpy(&dif_cnt, ent + offsetof(struct tcmu_cmd_entry, req.iov_dif_cnt), 4);
	memcpy(&cdb_off, ent + offsetof(struct tcmu_cmd_entry, req.cdb_off), 8);

	/* Data-in/out segments only; bidi and DIF segments are not used. */
	niov = (uint64_t)iov_cnt + bidi_cnt + dif_cnt;
	if (iov_cnt > RING_MAX_IOV || niov > (len - iov0) / sizeof(struct iovec)) {
		ring_log(rg, "iov array does not fit the entry", iov_cnt, len);
		return -1;
	}
	for (i = 0; i < iov_cnt; i++) {
		struct iovec v;
		uint64_t base, vlen;

		memcpy(&v, ent + iov0 + i * sizeof(v), sizeof(v));
		base = (uint64_t)(uintptr_t)v.iov_base;
		vlen = v.iov_len;
		if (base < rg->data_off || base > rg->map_size ||
		    vlen > rg->map_size - base) {
			ring_log(rg, "iov outside the data area", base, vlen);
			return -1;
		}
		rg->seg[i].base = rg->map + base;
		rg->seg[i].len = (size_t)vlen;
		total += vlen;
	}
	d->seg = rg->seg;
	d->nseg = iov_cnt;
	d->total = (size_t)total;

	if (cdb_off >= rg->map_size) {
		ring_log(rg, "cdb outside the map", cdb_off, 0);
		return -1;
	}
	*cdb_len = cdb_size(rg->map + cdb_off, rg->map_size - cdb_off);
	if (*cdb_len == 0 || *cdb_len > MAX_CDB ||
	    *cdb_len > rg->map_size - cdb_off) {
		ring_log(rg, "cdb length outside the map", cdb_off, *cdb_len);
		return -1;
	}
	memcpy(cdb, rg->map + cdb_off, *cdb_len);
	return 0;
}

static void advance(struct ring *rg, uint32_t len)
{
	rg->tail = (rg->tail + len) % rg->cmdr_size;
	store_release_u32(rg->map + offsetof(struct tcmu_mailbox, cmd_tail),
			  rg->tail);
}

int ring_process(struct ring *rg, struct emu *e, uint64_t now_ms,
		 uint64_t *next_ms)
{
	int done = 0;

	while (!rg->broken) {
		uint32_t head, len_op, len;
		uint8_t *ent;

		if (e->port[rg->port].fail == EMU_FAIL_NORESP)
			break;
		head = load_acquire_u32(rg->map +
					offsetof(struct tcmu_mailbox, cmd_head));
		if (head >= rg->cmdr_size || head % TCMU_OP_ALIGN_SIZE) {
			ring_log(rg, "bad cmd_head, ring stopped", head,
				 rg->cmdr_size);
			rg->broken = true;
			break;
		}
		if (rg->tail == head && !rg->held)
			break;
		if (rg->cmdr_size - rg->tail < sizeof(struct tcmu_cmd_entry_hdr)) {
			ring_log(rg, "entry header past ring end", rg->tail, 0);
			rg->broken = true;
			break;
		}
		ent = rg->map + rg->cmdr_off + rg->tail;
		memcpy(&len_op, ent, sizeof(len_op));
		len = tcmu_hdr_get_len(len_op);

		if (rg->held) {
			if (now_ms < rg->held_until_ms) {
				if (rg->held_until_ms < *next_ms)
					*next_ms = rg->held_until_ms;
				break;
			}
			emu_finish_deferred(e, rg->port, &rg->held_res);
			write_response(rg, ent, &rg->held_res);
			rg->held = false;
			advance(rg, len);
			done++;
			continue;
		}

		if (len < sizeof(struct tcmu_cmd_entry_hdr) ||
		    len > rg->cmdr_size - rg->tail || len % TCMU_OP_ALIGN_SIZE) {
			ring_log(rg, "bad entry length, ring stopped", rg->tail,
				 len);
			rg->broken = true;
			break;
		}
		switch (tcmu_hdr_get_op(len_op)) {
		case TCMU_OP_PAD:
		case TCMU_OP_TMR:	/* notification only: nothing to answer */
			advance(rg, len);
			continue;
		case TCMU_OP_CMD:
			break;
		default:
			ring_log(rg, "unknown entry op, ring stopped", len_op, 0);
			rg->broken = true;
			continue;
		}
		if (len < sizeof(struct tcmu_cmd_entry)) {
			/* The response would not fit in it. */
			ring_log(rg, "command entry too short, ring stopped",
				 len, 0);
			rg->broken = true;
			break;
		}
		{
			uint8_t cdb[MAX_CDB];
			size_t cdb_len = 0;
			struct emu_data d = { NULL, 0, 0 };
			struct emu_result r;

			if (decode_entry(rg, ent, len, cdb, &cdb_len, &d)) {
				memset(&r, 0, sizeof(r));
				r.status = ST_CHECK_CONDITION;
				r.sense[0] = 0x70;
				r.sense[2] = 0x04;	/* hardware error */
				r.sense[7] = 10;
				r.sense[12] = 0x44;	/* internal target failure */
				r.sense_len = 18;
			} else {
				emu_command(e, rg->port, cdb, cdb_len, &d, &r);
				if (rg->verbose)
					fprintf(stderr,
						"clariion-emu: port %d op %02x len %zu -> %02x %02x/%02x/%02x in=%zu\n",
						rg->port, cdb[0], d.total,
						r.status, r.sense[2], r.sense[12],
						r.sense[13], r.data_in);
			}
			if (r.defer_ms) {
				rg->held = true;
				rg->held_res = r;
				rg->held_until_ms = now_ms + r.defer_ms;
				continue;	/* re-checked at the top */
			}
			write_response(rg, ent, &r);
			advance(rg, len);
			done++;
		}
	}
	return done;
}
