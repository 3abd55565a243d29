/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Thin wrappers around the device-mapper ioctls (linux/dm-ioctl.h) and the
 * kernel log (/dev/kmsg): what dmsetup does, without a process per call.
 */
#ifndef DMIO_H
#define DMIO_H

#include <stddef.h>
#include <stdint.h>

int dmio_open(void);
/* Each returns 0 or -errno. */
int dmio_create(const char *name, uint64_t *dev);
int dmio_remove(const char *name);
int dmio_load(const char *name, uint64_t len, const char *type,
	      const char *params);
int dmio_clear(const char *name);
int dmio_resume(const char *name);
int dmio_suspend(const char *name, int noflush);
/*
 * Status of the single target: table (STATUSTYPE_TABLE) or info; of the
 * inactive table if inactive. *out is malloc()ed; *present is 1 if that
 * table exists. Returns 0 or -errno.
 */
int dmio_status(const char *name, int table, int inactive, char **out,
		int *present);
/* A target message; *result (malloc()ed, maybe empty) gets its output. */
int dmio_message(const char *name, uint64_t sector, const char *msg,
		 char **result);
/* Names of all devices, space separated, malloc()ed. */
int dmio_list(char **out);

/* Kernel log since the last call (since kmsg_open() the first time). */
int kmsg_open(void);
/* Appends the messages of new records, one per line, to a malloc()ed *buf. */
void kmsg_read(char **buf, size_t *len);

#endif
