/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One TCMU command ring (one array port).  Works on any memory laid out
 * like the uio map, so the host unit test can feed it a fake one.
 */
#ifndef CLARIION_RING_H
#define CLARIION_RING_H

#include "clariion-core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RING_MAX_IOV 4096

struct ring {
	uint8_t *map;
	size_t map_size;
	uint32_t cmdr_off, cmdr_size;
	uint32_t data_off;	/* first byte after the command ring */
	uint32_t tail;		/* our copy of cmd_tail */
	bool read_len_cap;	/* kernel understands TCMU_UFLAG_READ_LEN */
	bool broken;		/* ring content made no sense: stop serving */
	int port;		/* which array port this ring is */
	bool verbose;		/* log every command */
	bool quiet;		/* no log of ring errors (unit test) */

	/* A command whose answer is being held (delayed trespass). */
	bool held;
	uint64_t held_until_ms;
	struct emu_result held_res;

	struct emu_seg seg[RING_MAX_IOV];
};

/*
 * Check the mailbox of a mapped ring.  Returns 0, or -1 with a reason in
 * why (the ring is then unusable).
 */
int ring_attach(struct ring *rg, uint8_t *map, size_t map_size, int port,
		const char **why);

/*
 * Answer what the kernel queued.  Stops early while the port is failed
 * "noresp" or an answer is held.  Returns how many commands were completed
 * (the caller then kicks the kernel if > 0).  *next_ms is lowered to the
 * time a held answer is due, if any.
 */
int ring_process(struct ring *rg, struct emu *e, uint64_t now_ms,
		 uint64_t *next_ms);

#endif
