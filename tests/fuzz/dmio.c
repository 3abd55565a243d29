// SPDX-License-Identifier: GPL-2.0-only
/* Device-mapper ioctls and /dev/kmsg for the fuzzer: see dmio.h. */
#define _GNU_SOURCE
#include "dmio.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int ctl = -1;

int dmio_open(void)
{
	ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	return ctl < 0 ? -errno : 0;
}

static struct dm_ioctl *dmi_new(size_t data, const char *name)
{
	size_t size = sizeof(struct dm_ioctl) + data;
	struct dm_ioctl *io = calloc(1, size);

	if (!io)
		abort();
	io->version[0] = DM_VERSION_MAJOR;
	io->data_size = size;
	io->data_start = sizeof(*io);
	if (name)
		snprintf(io->name, sizeof(io->name), "%s", name);
	return io;
}

static int dmi_call(unsigned long cmd, struct dm_ioctl *io)
{
	return ioctl(ctl, cmd, io) ? -errno : 0;
}

static int simple(unsigned long cmd, const char *name, uint32_t flags)
{
	struct dm_ioctl *io = dmi_new(0, name);
	int r;

	io->flags = flags;
	r = dmi_call(cmd, io);
	free(io);
	return r;
}

int dmio_create(const char *name, uint64_t *dev)
{
	struct dm_ioctl *io = dmi_new(0, name);
	int r = dmi_call(DM_DEV_CREATE, io);

	if (!r && dev)
		*dev = io->dev;
	free(io);
	return r;
}

int dmio_remove(const char *name)
{
	return simple(DM_DEV_REMOVE, name, 0);
}

int dmio_clear(const char *name)
{
	return simple(DM_TABLE_CLEAR, name, 0);
}

int dmio_resume(const char *name)
{
	return simple(DM_DEV_SUSPEND, name, 0);
}

int dmio_suspend(const char *name, int noflush)
{
	return simple(DM_DEV_SUSPEND, name,
		      DM_SUSPEND_FLAG | (noflush ? DM_NOFLUSH_FLAG : 0));
}

int dmio_load(const char *name, uint64_t len, const char *type,
	      const char *params)
{
	size_t plen = strlen(params) + 1;
	struct dm_ioctl *io = dmi_new(sizeof(struct dm_target_spec) + plen + 8,
				      name);
	struct dm_target_spec *spec = (void *)(io + 1);
	int r;

	io->target_count = 1;
	spec->sector_start = 0;
	spec->length = len;
	snprintf(spec->target_type, sizeof(spec->target_type), "%s", type);
	memcpy(spec + 1, params, plen);
	spec->next = 0;
	r = dmi_call(DM_TABLE_LOAD, io);
	free(io);
	return r;
}

int dmio_status(const char *name, int table, int inactive, char **out,
		int *present)
{
	size_t data = 16384;
	struct dm_ioctl *io;
	int r;

	*out = NULL;
	*present = 0;
	for (;;) {
		io = dmi_new(data, name);
		io->flags = (table ? DM_STATUS_TABLE_FLAG : 0) |
			    (inactive ? DM_QUERY_INACTIVE_TABLE_FLAG : 0);
		r = dmi_call(DM_TABLE_STATUS, io);
		if (r || !(io->flags & DM_BUFFER_FULL_FLAG))
			break;
		free(io);
		data *= 4;
	}
	if (!r) {
		*present = !!(io->flags & (inactive ? DM_INACTIVE_PRESENT_FLAG :
						       DM_ACTIVE_PRESENT_FLAG));
		if (io->target_count >= 1) {
			struct dm_target_spec *spec =
				(void *)((char *)io + io->data_start);

			*out = strdup((char *)(spec + 1));
		} else {
			*out = strdup("");
		}
	}
	free(io);
	return r;
}

int dmio_message(const char *name, uint64_t sector, const char *msg,
		 char **result)
{
	size_t mlen = strlen(msg) + 1;
	struct dm_ioctl *io = dmi_new(sizeof(struct dm_target_msg) + mlen + 4096,
				      name);
	struct dm_target_msg *tm = (void *)(io + 1);
	int r;

	tm->sector = sector;
	memcpy(tm->message, msg, mlen);
	r = dmi_call(DM_TARGET_MSG, io);
	if (result) {
		if (!r && (io->flags & DM_DATA_OUT_FLAG))
			*result = strdup((char *)io + io->data_start);
		else
			*result = strdup("");
	}
	free(io);
	return r;
}

int dmio_list(char **out)
{
	struct dm_ioctl *io = dmi_new(65536, NULL);
	struct dm_name_list *nl;
	size_t len = 0, cap = 256;
	char *s = calloc(1, cap);
	int r;

	if (!s)
		abort();
	r = dmi_call(DM_LIST_DEVICES, io);
	nl = (void *)((char *)io + io->data_start);
	if (!r && io->data_size > io->data_start && nl->dev) {
		for (;;) {
			size_t n = strlen(nl->name);

			if (len + n + 2 > cap) {
				cap = 2 * (len + n + 2);
				s = realloc(s, cap);
				if (!s)
					abort();
			}
			memcpy(s + len, nl->name, n);
			len += n;
			s[len++] = ' ';
			s[len] = 0;
			if (!nl->next)
				break;
			nl = (void *)((char *)nl + nl->next);
		}
	}
	free(io);
	*out = s;
	return r;
}

static int kfd = -1;

int kmsg_open(void)
{
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd < 0)
		return -errno;
	lseek(kfd, 0, SEEK_END);
	return 0;
}

void kmsg_read(char **buf, size_t *len)
{
	char rec[8192];
	ssize_t n;

	for (;;) {
		char *msg, *end;
		size_t m;

		n = read(kfd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		m = end ? (size_t)(end - msg) : strlen(msg);
		*buf = realloc(*buf, *len + m + 2);
		if (!*buf)
			abort();
		memcpy(*buf + *len, msg, m);
		*len += m;
		(*buf)[(*len)++] = '\n';
		(*buf)[*len] = 0;
	}
}
