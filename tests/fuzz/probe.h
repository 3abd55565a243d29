/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reads through a map, each in a thread of its own, so that a read the map
 * holds (queue_if_no_path) or never finishes cannot stop dm-fuzz: it waits
 * with a bound, and a read that never finishes is reported and left
 * behind.  Each path device carries a signature block, so that a read
 * shows which path served it.
 */
#ifndef PROBE_H
#define PROBE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct probe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	ssize_t r;
	int err;
	int fd;
	char *buf;
};

/* Start a 4 KiB O_DIRECT read of sector 0 of dev in a thread. */
struct probe *probe_start(const char *dev);
/* Wait up to ms; 1 if the read finished. */
int probe_wait(struct probe *p, int ms);
/* Only for a finished probe (a stuck one is leaked on purpose). */
void probe_free(struct probe *p);
/* Which path device's signature the probe read, -1 if none. */
int probe_source(struct probe *p);
/* Write each path device's signature block (its first 4 KiB); -1 on error. */
int sign_devs(void);
/* The /dev/dm-N node of the DM device numbered d by DM_DEV_CREATE. */
void dm_node(uint64_t d, char *buf, size_t n);

#endif
