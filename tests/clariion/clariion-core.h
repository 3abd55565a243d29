/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCSI side of the emulated dual-controller array: one LUN, its data and
 * ownership state, and the per-port command dispatcher.  The array answers
 * as one of three personalities: an EMC CLARiiON (the default; trespass by
 * MODE SELECT page 0x22), an LSI/NetApp E-Series RDAC array
 * (clariion-rdac.c: VPD 0xC2/C4/C8/C9, MODE SELECT page 0x2C) or an HP
 * MSA1000 (clariion-hpsw.c: the passive port NOT READY until START STOP
 * UNIT).  "SP" below is either array's controller.  Nothing here knows
 * about TCMU, so the host unit test can drive it directly.
 */
#ifndef CLARIION_CORE_H
#define CLARIION_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EMU_MAX_PORTS_PER_SP	8
#define EMU_MAX_PORTS		(2 * EMU_MAX_PORTS_PER_SP)
#define EMU_SENSE_MAX		96
#define EMU_BLOCK_SIZE		512u

#define EMU_SP_A		0
#define EMU_SP_B		1

/* SCSI status bytes the emulator returns. */
#define ST_GOOD			0x00
#define ST_CHECK_CONDITION	0x02
#define ST_BUSY			0x08
#define ST_RESERVATION_CONFLICT	0x18

/* Which array the emulator answers as (emu_set_personality()). */
enum emu_personality {
	EMU_CLARIION = 0,	/* DGC RAID 5, PNR mode: scsi_dh_emc, "1 emc" */
	EMU_RDAC,		/* NETAPP INF-01-00, AVT off: scsi_dh_rdac */
	EMU_HPSW,		/* COMPAQ MSA1000 VOLUME: scsi_dh_hp_sw */
};

/* How a port is failed (set by the control interface). */
enum emu_fail {
	EMU_FAIL_NONE = 0,
	EMU_FAIL_TRANSPORT,	/* LIO tpg offline: commands never reach us */
	EMU_FAIL_NORESP,	/* we hold commands unanswered until restored */
};

/*
 * "trespass" counts the commands that ask to move the LUN to the port's
 * controller, whatever the personality calls them: MODE SELECT page 0x22
 * (CLARiiON), MODE SELECT page 0x2C naming the LUN (RDAC), START STOP UNIT
 * with START = 1 (HP MSA).
 */
struct emu_counters {
	uint64_t cmds;		/* every command that reached the port */
	uint64_t media;		/* media access commands (READ/WRITE/TUR...) */
	uint64_t passive_rejects; /* media commands refused: not the owner */
	uint64_t trespass;	/* ownership-move requests (see above) */
	uint64_t trespass_ok;	/* ... of which completed with GOOD */
	uint64_t moved;		/* ... of which moved the LUN to this SP */
	uint64_t conflicts;	/* RESERVATION CONFLICT answers */
	uint64_t ua;		/* unit attentions delivered */
};

struct emu_port {
	int sp;			/* EMU_SP_A or EMU_SP_B */
	int idx;		/* port number on its SP */
	uint16_t rtpi;		/* relative target port identifier */
	bool ua_pending;	/* 06/29/00 owed on the next command */
	enum emu_fail fail;
	struct emu_counters c;
};

struct emu {
	enum emu_personality personality;
	uint8_t *data;		/* the LUN's blocks, shared by all ports */
	uint64_t nblocks;
	int ports_per_sp;
	int nports;
	struct emu_port port[EMU_MAX_PORTS];

	int owner;		/* SP that currently owns the LUN */
	int default_owner;
	int reserved_by;	/* port holding a SCSI-2 reservation, or -1 */

	bool ndu;		/* NDU in progress: trespass fails 02/04/03 */
	bool ua_after_trespass;
	bool reject_trespass;
	uint8_t reject_key, reject_asc, reject_ascq;
	unsigned int trespass_delay_ms;

	bool short_inquiry;	/* 36-byte INQUIRY, like an old FC box */
	char vendor[9];		/* 8 chars, space padded */
	char product[17];	/* 16 chars, space padded */
	char revision[5];	/* 4 chars */
	char array_serial[32];	/* in the long INQUIRY */
	char sp_model[32];	/* in the long INQUIRY */
	char lun_serial[32];	/* VPD 0x80 */
	uint8_t wwn[16];	/* NAA 6 LUN id, VPD 0x83 and 0xC0 */
};

/* One piece of the command's data buffer. */
struct emu_seg {
	uint8_t *base;
	size_t len;
};

struct emu_data {
	const struct emu_seg *seg;
	size_t nseg;
	size_t total;		/* sum of seg[].len */
};

struct emu_result {
	uint8_t status;
	uint8_t sense[EMU_SENSE_MAX];
	size_t sense_len;
	size_t data_in;		/* bytes of data-in produced */
	/* > 0: hold the answer this long, then call emu_finish_deferred() */
	unsigned int defer_ms;
};

/*
 * Set up the LUN.  size_bytes is rounded down to whole blocks.  Returns 0,
 * or -1 with errno set (bad arguments, no memory).
 */
int emu_init(struct emu *e, uint64_t size_bytes, int ports_per_sp);
void emu_free(struct emu *e);

/*
 * Answer as "clariion", "rdac" or "hpsw" (vendor, product and revision
 * set to that array's).  Returns 0, or -1 for an unknown name.
 */
int emu_set_personality(struct emu *e, const char *name);
const char *emu_personality_name(const struct emu *e);

/* "A0", "B1": fills buf (>= 4 bytes). */
void emu_port_name(const struct emu *e, int port, char *buf, size_t len);
/* Parse "A0"/"b1" into a port index, -1 if not a port of this array. */
int emu_port_lookup(const struct emu *e, const char *name);

/*
 * Execute one command that arrived on port.  cdb_len is how many CDB bytes
 * are valid.  Never reads or writes outside cdb[0..cdb_len) or the data
 * segments.
 */
void emu_command(struct emu *e, int port, const uint8_t *cdb, size_t cdb_len,
		 const struct emu_data *d, struct emu_result *r);

/* Complete a trespass emu_command() deferred (res->defer_ms > 0). */
void emu_finish_deferred(struct emu *e, int port, struct emu_result *r);

/* Move ownership (trespass or control), raising unit attentions if enabled. */
void emu_set_owner(struct emu *e, int sp);

#endif
