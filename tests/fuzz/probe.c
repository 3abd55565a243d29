// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fuzz's reads through a map: a thread per read, waited for with a
 * bound, and the path signatures that tell which path served a read.
 */
#define _GNU_SOURCE
#include "fuzz.h"
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *probe_run(void *arg)
{
	struct probe *p = arg;
	ssize_t r = pread(p->fd, p->buf, BLK, 0);
	int e = errno;

	pthread_mutex_lock(&p->mu);
	p->r = r;
	p->err = r < 0 ? e : 0;
	p->done = 1;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct probe *probe_start(const char *dev)
{
	struct probe *p = calloc(1, sizeof(*p));
	pthread_t t;

	if (!p)
		abort();
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (posix_memalign((void **)&p->buf, BLK, BLK))
		abort();
	memset(p->buf, 0, BLK);
	p->fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (p->fd < 0) {
		p->done = 1;
		p->r = -1;
		p->err = errno;
		return p;
	}
	if (pthread_create(&t, NULL, probe_run, p))
		abort();
	pthread_detach(t);
	return p;
}

int probe_wait(struct probe *p, int ms)
{
	struct timespec ts;
	int done;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&p->mu);
	while (!p->done)
		if (pthread_cond_timedwait(&p->cv, &p->mu, &ts))
			break;
	done = p->done;
	pthread_mutex_unlock(&p->mu);
	return done;
}

void probe_free(struct probe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	free(p);
}

int probe_source(struct probe *p)
{
	int i;

	if (p->r != BLK || strncmp(p->buf, SIG, strlen(SIG)))
		return -1;
	i = atoi(p->buf + strlen(SIG));
	return i >= 0 && i < ndevs ? i : -1;
}

int sign_devs(void)
{
	char *buf;

	if (posix_memalign((void **)&buf, BLK, BLK))
		abort();
	for (int i = 0; i < ndevs; i++) {
		int fd = open(devs[i].path, O_WRONLY | O_DIRECT | O_CLOEXEC);

		memset(buf, 0, BLK);
		snprintf(buf, BLK, SIG "%d %s\n", i, devs[i].name);
		if (fd < 0 || pwrite(fd, buf, BLK, 0) != BLK || fsync(fd)) {
			fprintf(stderr, "dm-fuzz: cannot sign %s: %s\n",
				devs[i].path, strerror(errno));
			return -1;
		}
		close(fd);
	}
	free(buf);
	return 0;
}

void dm_node(uint64_t d, char *buf, size_t n)
{
	/* huge_encode_dev() */
	unsigned int mi = (d & 0xff) | ((d >> 12) & 0xfff00);

	snprintf(buf, n, "/dev/dm-%u", mi);
}
