/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the parts of dm-fuzz share (dm-fuzz.c defines it): the run's seed,
 * verbosity and failure count, the path devices the cases may name, and
 * the failure report.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <sys/types.h>

#define LEN 2048ULL		/* sectors: every path device is larger */
#define SIG "dm-fuzz path "	/* how each path's signature block starts */
#define BLK 4096

extern uint64_t seed;
extern int verbose;
extern long fails;

/* The path devices given on the command line. */
struct pdev {
	char path[64];		/* /dev/nullb3 */
	char name[32];		/* nullb3 */
	dev_t dev;
	int fd;			/* O_DIRECT, for signatures */
};

extern struct pdev *devs;
extern int ndevs;

/* Index in devs of the device d, -1 if it is none of them. */
int dev_index(dev_t d);

/* vasprintf() that cannot fail (aborts instead). */
char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* Printable form of a case for the report. */
void show(const char *label, const char *s);
/* Report case k as failed (counted in fails). */
void fail(long k, const char *what, ...) __attribute__((format(printf, 2, 3)));

#endif
