// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fuzz: feed the multipath target random and mutated tables and messages
 * through the device-mapper ioctls (thousands of cases a minute, where
 * dmsetup costs a second a call in the emulated guest), and judge every
 * answer against the oracle (oracle.c) and the kernel log:
 *
 *  tables:   a table the oracle calls valid must load, print back exactly
 *            the canonical table, and that output must load again and print
 *            itself (round trip); one it calls invalid must fail with
 *            EINVAL, log "device-mapper: table: M:m: multipath: <why>
 *            (-EINVAL)" and leave no table behind. Some valid tables are
 *            made live and read through: the data must come from one of
 *            their paths (each path device carries its own signature).
 *  messages: a live map over the devices gets random and mutated messages;
 *            each must return what the model of the documented messages
 *            says (0 or EINVAL), the status must then agree with the model
 *            (path A/F, fail counts, disabled groups, queue_if_no_path), and
 *            reads probe that I/O goes to an active path, fails with EIO
 *            when no path is left and nothing queues, waits while queueing
 *            and resumes when a path comes back: never a wedged map.
 *
 * Every case is generated from (seed, case number) alone: --only N replays
 * one. Output: "FAIL ..." lines with the case, then a summary line.
 *
 *   dm-fuzz tables   [--seed S] [--cases N] [--only K] [-v] DEV...
 *   dm-fuzz messages [--seed S] [--cases N] [--only K] [-v] DEV...
 *   dm-fuzz emit     [--seed S] [--cases N] DEV...   (verdict<TAB>table lines)
 *   dm-fuzz sign DEV...                     (write each device's signature)
 *
 * DEVs are the path devices the cases may use (at least 4; null_blk with
 * memory_backed=1, so that each has its own data, or scsi_debug).
 */
#define _GNU_SOURCE
#include "dmio.h"
#include "kparse.h"
#include "oracle.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define LEN 2048ULL		/* sectors: every path device is larger */
#define SIG "dm-fuzz path "
#define BLK 4096

static uint64_t seed = 1;
static int verbose;
static long fails;

/* ---- PRNG: splitmix64, reseeded per case ---- */
static uint64_t rs;

static uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static int pct(unsigned int p)
{
	return rn(100) < p;
}

static void case_seed(uint64_t kind, long k)
{
	rs = seed * 0x100000001b3ULL ^ (kind << 56) ^ (uint64_t)k;
	rnd();
}

/* ---- strings: struct sb and sb_add() are in oracle.c ---- */

static void sb_reset(struct sb *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

/* Collapse whitespace runs to one space, trim both ends. */
static char *norm(const char *s)
{
	char *o = malloc(strlen(s) + 1), *p = o;

	if (!o)
		abort();
	while (*s) {
		if (k_isspace(*s)) {
			while (k_isspace(*s))
				s++;
			if (p != o && *s)
				*p++ = ' ';
			continue;
		}
		*p++ = *s++;
	}
	*p = 0;
	return o;
}

/* Printable form of a case for the report. */
static void show(const char *label, const char *s)
{
	size_t n = strlen(s);

	printf("#   %s (%zu chars): ", label, n);
	for (size_t i = 0; i < n && i < 600; i++) {
		unsigned char c = s[i];

		if (c == '\\')
			printf("\\\\");
		else if (c < 32 || c >= 127)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	printf("%s\n", n > 600 ? " ..." : "");
}

static void fail(long k, const char *what, ...)
{
	va_list ap;

	fails++;
	printf("FAIL case %ld (seed %llu): ", k, (unsigned long long)seed);
	va_start(ap, what);
	vprintf(what, ap);
	va_end(ap);
	printf("\n");
}

/* ---- the kernel log ---- */
static char *klog;
static size_t klog_len;

static void klog_take(void)
{
	if (klog)
		klog[0] = 0;
	klog_len = 0;
	kmsg_read(&klog, &klog_len);
}

/* Lines that mean the kernel itself went wrong. */
static const char *const bad_log[] = {
	"WARNING:", "BUG:", "BUG kmalloc", "Oops", "general protection",
	"Call Trace", "refcount_t:", "list_add corruption",
	"list_del corruption", "UBSAN:", "KASAN:", "kmemleak",
	"sleeping function called", "blocked for more than",
	"possible recursive locking", "circular locking", "stack-protector",
	"kmem_cache_destroy", NULL,
};

static int klog_check(long k)
{
	const char *const *p;

	if (!klog)
		return 0;
	for (p = bad_log; *p; p++) {
		char *hit = strstr(klog, *p);

		if (hit) {
			char *eol = strchr(hit, '\n');

			fail(k, "kernel log: %.*s", eol ? (int)(eol - hit) : 200, hit);
			return -1;
		}
	}
	return 0;
}

/* A "device-mapper: table: M:m: multipath: <why> (-EINVAL)" line? */
static int klog_has_reject(void)
{
	const char *p = klog;

	while (p && (p = strstr(p, "device-mapper: table: "))) {
		const char *eol = strchr(p, '\n');
		const char *mp = strstr(p, ": multipath: ");
		size_t n = eol ? (size_t)(eol - p) : strlen(p);

		if (mp && mp < p + n && n > 10 &&
		    !strncmp(p + n - 10, " (-EINVAL)", 10))
			return 1;
		p = eol;
	}
	return 0;
}

/* ---- the devices ---- */
struct pdev {
	char path[64];		/* /dev/nullb3 */
	char name[32];		/* nullb3 */
	dev_t dev;
	int fd;			/* O_DIRECT, for signatures */
};

static struct pdev *devs;
static int ndevs;

static void add_dev(const char *path)
{
	struct stat st;
	const char *b = strrchr(path, '/');

	if (stat(path, &st) || !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "dm-fuzz: %s is not a block device\n", path);
		exit(2);
	}
	devs = realloc(devs, (ndevs + 1) * sizeof(*devs));
	if (!devs)
		abort();
	snprintf(devs[ndevs].path, sizeof(devs[ndevs].path), "%s", path);
	snprintf(devs[ndevs].name, sizeof(devs[ndevs].name), "%s", b ? b + 1 : path);
	devs[ndevs].dev = st.st_rdev;
	devs[ndevs].fd = -1;
	ndevs++;
}

static int dev_index(dev_t d)
{
	for (int i = 0; i < ndevs; i++)
		if (devs[i].dev == d)
			return i;
	return -1;
}

/* Every spelling of device i the kernel resolves to it. */
static char *dev_form(int i)
{
	unsigned int ma = major(devs[i].dev), mi = minor(devs[i].dev);

	switch (rn(12)) {
	case 0: case 1: case 2: case 3:
		return strdup(devs[i].path);
	case 4: case 5: case 6:
		return fmt("%u:%u", ma, mi);
	case 7:
		return fmt("0%u:00%u", ma, mi);		/* leading zeros */
	case 8:
		return fmt("%u:%u:0", ma, mi);		/* name_to_dev_t form */
	case 9:					/* new_encode_dev(), hex */
		return fmt("%x", (mi & 0xff) | (ma << 8) | ((mi & ~0xffU) << 12));
	case 10:
		return fmt("dev/%s", devs[i].name);	/* relative to cwd "/" */
	default:
		return fmt("%llu:%u", 4294967296ULL + ma, mi);	/* wraps */
	}
}

/* Words that name no usable device. */
static const char *const nodev[] = {
	"/dev/nonexistent", "/dev/null", "/dev/", "/", "/dev/mapper/control",
	"0:0", "4096:0", "8:1048576", "-8:16", "+8:16", "8:", ":16", "8::16",
	"8:16junk", "nosuchdisk", "0", "0x0", "zz", "/dev/sd", ".", "..",
	"4095:1048575", NULL,
};

static char *nodev_word(void)
{
	unsigned int n = 0;

	while (nodev[n])
		n++;
	if (pct(15))
		return strdup(devs[rn(ndevs)].name);	/* bare name: not a path */
	return strdup(nodev[rn(n)]);
}

/* ---- numbers at the boundaries ---- */
static const char *const edge_num[] = {
	"0", "1", "2", "3", "1023", "1024", "1025", "4294967295", "4294967296",
	"18446744073709551615", "18446744073709551616", "-1", "-0", "+1", "+0",
	"0x1", "0x10", "1e3", "1.0", "01", "007", "000000000000000000001",
	"1junk", "junk1", "2147483648", "65536", "99999999999999999999999",
	"+", "-", "0\\ 1", NULL,
};

static char *num_word(void)
{
	unsigned int n = 0;

	while (edge_num[n])
		n++;
	if (pct(30))
		return fmt("%u", rn(6));
	return strdup(edge_num[rn(n)]);
}

static const char *const keywords[] = {
	"queue_if_no_path", "QUEUE_IF_NO_PATH", "Queue_If_No_Path",
	"queue_if_no_pat", "fail_if_no_path", "emc", "EMC", "round-robin",
	"Round-Robin", "round_robin", "roundrobin", "multipath", "no-such-thing",
	"pg_init_retries", "retain_attached_hw_handler", NULL,
};

static char *junk_word(void)
{
	static const char cs[] = "abcxyz019:/-_.+%@#~";
	unsigned int n = 1 + rn(12);
	char *w = malloc(n + 1);

	if (!w)
		abort();
	/* Not all hex digits: a hex word could name any device. */
	w[0] = 'q';
	for (unsigned int i = 1; i < n; i++)
		w[i] = cs[rn(sizeof(cs) - 1)];
	w[n] = 0;
	return w;
}

static char *any_word(void)
{
	unsigned int n = 0;

	while (keywords[n])
		n++;
	switch (rn(5)) {
	case 0:
		return num_word();
	case 1:
		return strdup(keywords[rn(n)]);
	case 2:
		return dev_form(rn(ndevs));
	case 3:
		return nodev_word();
	default:
		return junk_word();
	}
}

/* ---- table generation ---- */
static void push_own(struct wl *l, char *s)
{
	wl_push(l, s);
	free(s);
}

/* A count: mostly plain, sometimes "+N" or with leading zeros. */
static char *count_word(unsigned int v)
{
	if (pct(4))
		return fmt("00%u", v);
	if (pct(1))
		return fmt("\\ %u", v);	/* an escaped leading space */
	return fmt("%u", v);
}

static void gen_valid(struct wl *l)
{
	unsigned int npg, initial, i, j, used = 0;
	int *perm = malloc(ndevs * sizeof(int));

	if (!perm)
		abort();
	for (i = 0; i < (unsigned int)ndevs; i++)
		perm[i] = i;
	for (i = ndevs - 1; i > 0; i--) {
		unsigned int r = rn(i + 1);
		int t = perm[i];

		perm[i] = perm[r];
		perm[r] = t;
	}

	if (pct(50)) {
		wl_push(l, "1");
		wl_push(l, pct(80) ? "queue_if_no_path" :
			   pct(50) ? "QUEUE_IF_NO_PATH" : "Queue_if_No_Path");
	} else {
		push_own(l, count_word(0));
	}

	switch (rn(8)) {
	case 0: case 1:
		wl_push(l, "1");
		wl_push(l, "emc");
		break;
	case 2:
		wl_push(l, "3");
		wl_push(l, "emc");
		push_own(l, count_word(rn(2)));
		push_own(l, count_word(rn(2)));
		break;
	default:
		push_own(l, count_word(0));
	}

	/* Group layout: usually a few, sometimes a huge table. */
	if (pct(4)) {
		npg = 0;
	} else if (pct(2) && ndevs >= 64) {
		npg = pct(50) ? 1 : (ndevs < OR_MAX_COUNT ? ndevs : OR_MAX_COUNT);
	} else {
		npg = 1 + rn(ndevs < 4 ? ndevs : 4);
	}
	initial = npg ? 1 + rn(npg) : 0;
	push_own(l, count_word(npg));
	push_own(l, count_word(initial));

	for (i = 0; i < npg; i++) {
		unsigned int remaining = ndevs - used, np, na = rn(2);

		/* Leave a device for each group still to come. */
		if (npg == 1 && pct(3) && ndevs >= 64)
			np = remaining < OR_MAX_COUNT ? remaining : OR_MAX_COUNT;
		else
			np = 1 + rn(remaining - (npg - 1 - i) < 3 ?
				    remaining - (npg - 1 - i) : 3);
		wl_push(l, "round-robin");
		push_own(l, count_word(0));
		push_own(l, count_word(np));
		push_own(l, count_word(na));
		for (j = 0; j < np; j++) {
			push_own(l, dev_form(perm[used++]));
			if (na) {
				static const char *const rc[] = {
					"0", "1", "1000", "4294967295", "+7",
					"0010",
				};

				if (pct(50))
					push_own(l, fmt("%u", rn(100000)));
				else
					wl_push(l, rc[rn(6)]);
			}
		}
	}
	free(perm);
}

static int is_num(const char *w, unsigned int *v)
{
	return !k_strtouint(w, v);
}

static void wl_insert(struct wl *l, int at, char *s)
{
	wl_push(l, s);
	free(s);
	char *t = l->w[l->n - 1];

	memmove(&l->w[at + 1], &l->w[at], (l->n - 1 - at) * sizeof(char *));
	l->w[at] = t;
}

static void wl_delete(struct wl *l, int at)
{
	free(l->w[at]);
	memmove(&l->w[at], &l->w[at + 1], (l->n - 1 - at) * sizeof(char *));
	l->n--;
}

static void wl_replace(struct wl *l, int at, char *s)
{
	free(l->w[at]);
	l->w[at] = s;
}

/* One mutation of a table's words. */
static void mutate(struct wl *l)
{
	int at = l->n ? (int)rn(l->n) : 0;
	unsigned int v;

	switch (rn(15)) {
	case 14:		/* the same count, spelt otherwise */
		for (int t = 0; t < 8 && l->n; t++, at = rn(l->n))
			if (!k_count(l->w[at], &v)) {
				static const char *const f[] = {
					"%llu", "%llu", "+%.0llu%u", "0%.0llu%u",
					"\\ %.0llu%u", "%.0llu%u\\ ",
				};
				unsigned int i = rn(6);

				if (i < 2)
					wl_replace(l, at, fmt(f[i], (1ULL << 32) * (1 + rn(3)) + v));
				else
					wl_replace(l, at, fmt(f[i], 0ULL, v));
				break;
			}
		break;
	case 0:			/* a boundary number anywhere */
		if (l->n)
			wl_replace(l, at, num_word());
		break;
	case 1:			/* a count that disagrees with what follows */
		for (int t = 0; t < 8 && l->n; t++, at = rn(l->n))
			if (is_num(l->w[at], &v)) {
				int d = pct(70) ? (pct(50) ? 1 : -1) : (int)rn(2000) - 1000;

				wl_replace(l, at, fmt("%lld", (long long)v + d));
				break;
			}
		break;
	case 2:
		if (l->n)
			wl_delete(l, at);
		break;
	case 3:
		if (l->n)
			wl_insert(l, at, strdup(l->w[at]));
		break;
	case 4:
		if (l->n > 1) {
			int b = rn(l->n);
			char *t = l->w[at];

			l->w[at] = l->w[b];
			l->w[b] = t;
		}
		break;
	case 5:			/* truncate, maybe to nothing */
		while (l->n > at)
			wl_delete(l, l->n - 1);
		break;
	case 6:
		wl_insert(l, l->n ? at : 0, any_word());
		break;
	case 7:			/* trailing junk */
		for (unsigned int n = 1 + rn(4); n; n--)
			push_own(l, any_word());
		break;
	case 8:			/* a device word: nonexistent, or a duplicate */
		for (int t = 0; t < 8 && l->n; t++, at = rn(l->n)) {
			dev_t d;

			if (strchr(l->w[at], '/') || strchr(l->w[at], ':')) {
				if (pct(50)) {
					wl_replace(l, at, nodev_word());
				} else if (k_resolve(l->w[at], LEN, &d) == KR_DEV &&
					   dev_index(d) >= 0) {
					/* the same device, spelt otherwise, again */
					wl_insert(l, at, dev_form(dev_index(d)));
				} else {
					wl_replace(l, at, dev_form(rn(ndevs)));
				}
				break;
			}
		}
		break;
	case 9:			/* case or spelling of a keyword */
		for (int t = 0; t < 8 && l->n; t++, at = rn(l->n))
			if (!is_num(l->w[at], &v) && !strchr(l->w[at], '/')) {
				char *w = l->w[at];
				size_t n = strlen(w), i = rn(n);

				if (pct(50)) {
					w[i] ^= 0x20;
				} else if (pct(50)) {
					w[i] = "xyz_-"[rn(5)];
				} else {
					w[n - 1] = 0;
					if (!w[0])
						wl_replace(l, at, strdup("x"));
				}
				break;
			}
		break;
	case 10: {		/* a huge count, and as many words */
		unsigned int n = pct(50) ? 1024 + rn(2) : 1020 + rn(10);

		if (!l->n)
			break;
		wl_replace(l, at, fmt("%u", n));
		if (pct(50))
			for (unsigned int i = 0; i < n; i++)
				wl_insert(l, at + 1, pct(50) ? num_word() : any_word());
		break;
	}
	case 11:		/* a huge argument list at the end */
		for (unsigned int n = 500 + rn(3000); n; n--)
			push_own(l, pct(50) ? fmt("%u", rn(3)) : dev_form(rn(ndevs)));
		break;
	case 12:		/* an escaped character inside a word */
		if (l->n) {
			char *w = l->w[at];
			size_t i = rn(strlen(w) + 1);

			wl_replace(l, at, fmt("%.*s\\%s", (int)i, w, w + i));
		}
		break;
	default:		/* a word replaced by any word */
		if (l->n)
			wl_replace(l, at, any_word());
	}
}

/* Join words the way a user might: separators of every kind. */
static void join(struct wl *l, struct sb *out)
{
	static const char *const sep[] = { " ", "  ", "\t", "\n", " \t ", "\xa0" };
	int odd = pct(10);

	sb_reset(out);
	if (odd && pct(50))
		sb_add(out, "%s", sep[rn(6)]);
	for (int i = 0; i < l->n; i++) {
		if (i)
			sb_add(out, "%s", odd ? sep[rn(6)] : " ");
		sb_add(out, "%s", l->w[i]);
	}
	if (odd && pct(50))
		sb_add(out, "%s", sep[rn(6)]);
}

static void gen_table(long k, struct sb *out)
{
	struct wl l = { 0 };
	unsigned int n;

	case_seed(1, k);
	switch (rn(100)) {
	case 0:			/* nothing at all */
		break;
	case 1: case 2: case 3:	/* word soup */
		for (n = rn(30); n; n--)
			push_own(&l, any_word());
		break;
	default:
		gen_valid(&l);
		if (pct(75))
			for (n = 1 + (pct(30) ? rn(3) : 0); n; n--)
				mutate(&l);
	}
	join(&l, out);
	wl_free(&l);
}

/* ---- I/O through a map ---- */
struct probe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	ssize_t r;
	int err;
	int fd;
	char *buf;
};

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

/* Start a 4 KiB O_DIRECT read of sector 0 of dev in a thread. */
static struct probe *probe_start(const char *dev)
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

/* Wait up to ms; 1 if the read finished. */
static int probe_wait(struct probe *p, int ms)
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

/* Only for a finished probe (a stuck one is leaked on purpose). */
static void probe_free(struct probe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	free(p);
}

/* Which path device's signature the probe read, -1 if none. */
static int probe_source(struct probe *p)
{
	int i;

	if (p->r != BLK || strncmp(p->buf, SIG, strlen(SIG)))
		return -1;
	i = atoi(p->buf + strlen(SIG));
	return i >= 0 && i < ndevs ? i : -1;
}

static int sign_devs(void)
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

/* ---- tables mode ---- */
static const char *TNAME = "dmfuzz-t", *RNAME = "dmfuzz-r";

struct tstats {
	long cases, valid, invalid, skipped, accepted, rejected, live, huge;
	double t_acc, t_rej, t_rest, t_live, t_clear, slowest;
	long slowest_case;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int status_of(const char *name, int table, int inactive, char **s,
		     int *present)
{
	int r = dmio_status(name, table, inactive, s, present);

	if (r) {
		*s = strdup("");
		*present = 0;
	}
	return r;
}


static uint64_t tdev;		/* dev of TNAME, as DM_DEV_CREATE gave it */

static int create_t(void)
{
	return dmio_create(TNAME, &tdev);
}

static void dm_node(uint64_t d, char *buf, size_t n)
{
	/* huge_encode_dev() */
	unsigned int mi = (d & 0xff) | ((d >> 12) & 0xfff00);

	snprintf(buf, n, "/dev/dm-%u", mi);
}

/* Make the accepted table live and read sector 0 through it. */
static void live_check(long k, const char *tbl, struct table_expect *e)
{
	struct probe *p;
	char node[64];
	int src, r;

	r = dmio_resume(TNAME);
	if (r) {
		fail(k, "resume of an accepted table failed: %s", strerror(-r));
		show("table", tbl);
		return;
	}
	dm_node(tdev, node, sizeof(node));
	p = probe_start(node);
	if (!probe_wait(p, 10000)) {
		fail(k, "read of a live map did not finish in 10 s (map wedged)");
		show("table", tbl);
		exit(1);
	}
	src = probe_source(p);
	if (!e->npg) {
		if (p->r >= 0 || p->err != EIO)
			fail(k, "read of a map without paths: r=%zd (%s), expected EIO",
			     p->r, strerror(p->err));
	} else if (p->r != BLK) {
		fail(k, "read through a live map: r=%zd (%s)", p->r, strerror(p->err));
	} else if (src < 0) {
		fail(k, "read through a live map returned no path signature");
	} else {
		int in = 0;

		for (int i = 0; i < e->npaths; i++)
			if (e->path[i] == devs[src].dev)
				in = 1;
		if (!in)
			fail(k, "read through a live map came from %s, not one of its paths",
			     devs[src].name);
	}
	probe_free(p);
}

static void run_tables(long first, long n)
{
	struct sb tbl = { 0 };
	struct tstats st = { 0 };
	char *names = NULL;
	long k;
	int r;

	if (create_t() || dmio_create(RNAME, NULL)) {
		fprintf(stderr, "dm-fuzz: cannot create %s/%s: %s\n", TNAME, RNAME,
			strerror(errno));
		exit(2);
	}
	for (k = first; k < first + n; k++) {
		struct table_expect e;
		enum verdict v;
		long f0 = fails;
		char *s = NULL;
		int present;
		double t0, t1;

		gen_table(k, &tbl);
		v = oracle_table(tbl.s, LEN, &e);
		st.cases++;
		if (v == V_SKIP) {	/* names a dm device, or some such */
			st.skipped++;
			continue;
		}
		if (v == V_VALID)
			st.valid++;
		else
			st.invalid++;
		if (e.npaths >= 512 || e.npg >= 512)
			st.huge++;

		klog_take();
		t0 = now_ms();
		r = dmio_load(TNAME, LEN, "multipath", tbl.s);
		t1 = now_ms();
		if (r)
			st.t_rej += t1 - t0;
		else
			st.t_acc += t1 - t0;
		klog_take();
		klog_check(k);
		if (r && r != -EINVAL)
			fail(k, "table load returned %s, expected success or EINVAL",
			     strerror(-r));

		if (r) {
			st.rejected++;
			if (v == V_VALID)
				fail(k, "valid table rejected");
			if (!klog_has_reject())
				fail(k, "rejected without a \"device-mapper: table: ...: multipath: ... (-EINVAL)\" log line");
			status_of(TNAME, 1, 1, &s, &present);
			if (present)
				fail(k, "rejected table left an inactive table: %s", s);
			free(s);
		} else {
			char *ns, *s2 = NULL, *ns2;

			st.accepted++;
			if (v == V_INVALID)
				fail(k, "invalid table accepted (oracle: %s)", e.why);
			status_of(TNAME, 1, 1, &s, &present);
			if (!present)
				fail(k, "accepted table not present as the inactive table");
			ns = norm(s);
			if (v == V_VALID) {
				char *nc = norm(e.canon);

				if (strcmp(ns, nc)) {
					fail(k, "table printed back differs from the canonical table");
					show("expected", nc);
					show("printed ", ns);
				}
				free(nc);
			}
			/* Round trip: what it printed must load and print itself. */
			r = dmio_load(RNAME, LEN, "multipath", s);
			if (r) {
				fail(k, "printed table does not load again: %s", strerror(-r));
				show("printed", s);
			} else {
				status_of(RNAME, 1, 1, &s2, &present);
				ns2 = norm(s2);
				if (strcmp(ns, ns2)) {
					fail(k, "round trip differs");
					show("first ", ns);
					show("second", ns2);
				}
				free(ns2);
				free(s2);
				dmio_clear(RNAME);
			}
			free(ns);
			free(s);
			/* The info status must be there and start with the queue. */
			status_of(TNAME, 0, 1, &s, &present);
			if (strncmp(s, "1 0 ", 4))
				fail(k, "info status of a fresh table: \"%.80s\"", s);
			free(s);

			if (v == V_VALID && !e.hw && (e.npg || !e.queue) && pct(5)) {
				double tl = now_ms();

				st.live++;
				live_check(k, tbl.s, &e);
				r = dmio_remove(TNAME);
				if (r || create_t()) {
					fail(k, "remove/recreate of the live map failed: %s",
					     strerror(r ? -r : errno));
					exit(1);
				}
				st.t_live += now_ms() - tl;
			} else {
				double tc = now_ms();

				r = dmio_clear(TNAME);
				st.t_clear += now_ms() - tc;
				if (r)
					fail(k, "table clear failed: %s", strerror(-r));
			}
		}
		klog_take();
		klog_check(k);
		if (fails > f0) {
			show("table", tbl.s);
			if (klog && *klog)
				show("kernel log", klog);
		}
		st.t_rest += now_ms() - t1;
		if (now_ms() - t0 > st.slowest) {
			st.slowest = now_ms() - t0;
			st.slowest_case = k;
		}
		if (verbose)
			printf("case %ld: %s %s: %s\n", k,
			       v == V_VALID ? "valid" : "invalid",
			       r ? "rejected" : "accepted", tbl.s);
		table_expect_free(&e);
		if (fails > 50) {
			printf("dm-fuzz: too many failures, stopping\n");
			break;
		}
	}
	if (dmio_remove(TNAME) || dmio_remove(RNAME))
		fail(k, "cannot remove the fuzz devices: %s", strerror(errno));
	dmio_list(&names);
	if (strstr(names, "dmfuzz-"))
		fail(k, "fuzz devices left behind: %s", names);
	free(names);
	free(tbl.s);
	printf("dm-fuzz tables: %ld cases (seed %llu, from %ld): %ld valid, %ld invalid, "
	       "%ld skipped; %ld accepted, %ld rejected; %ld made live, %ld huge; "
	       "%ld failures\n", st.cases, (unsigned long long)seed, first,
	       st.valid, st.invalid, st.skipped, st.accepted, st.rejected,
	       st.live, st.huge, fails);
	printf("dm-fuzz tables: time: loads accepted %.0f ms, rejected %.0f ms, "
	       "the rest %.0f ms (live %.0f, clear %.0f); slowest case %ld (%.0f ms)\n",
	       st.t_acc, st.t_rej, st.t_rest, st.t_live, st.t_clear,
	       st.slowest_case, st.slowest);
}

/* Tables a shell can pass to dmsetup unchanged, with the oracle's verdict. */
static void run_emit(long first, long n)
{
	struct sb tbl = { 0 };
	long k, out = 0;

	for (k = first; out < n && k < first + 100 * n; k++) {
		struct table_expect e;
		enum verdict v;
		int plain = 1;

		gen_table(k, &tbl);
		for (const char *c = tbl.s; *c; c++)
			if (*c < 32 || *c > 126 || *c == '\\' || *c == '\'' ||
			    *c == '"' || *c == '$' || *c == '`')
				plain = 0;
		if (!plain || tbl.len > 2000 || !tbl.len || tbl.s[0] == ' ' ||
		    tbl.s[tbl.len - 1] == ' ')
			continue;
		v = oracle_table(tbl.s, LEN, &e);
		if (v == V_SKIP)
			continue;
		printf("%ld\t%s\t%s\t%s\n", k, v == V_VALID ? "valid" : "invalid",
		       v == V_VALID ? e.canon : "-", tbl.s);
		table_expect_free(&e);
		out++;
	}
	free(tbl.s);
}

/* ---- messages mode ---- */
static const char *MNAME = "dmfuzz-m";

#define MP_MAX 6
#define PG_MAX 3

static struct mmodel {
	int np, npg;
	int pg_of[MP_MAX];	/* 1-based */
	int active[MP_MAX];
	unsigned int fc[MP_MAX];
	int disabled[PG_MAX + 1];
	int queue;
	int next_pg;		/* switch_group (or the initial PG), no I/O since */
	int cur_pg;		/* the PG the last I/O used, 0 after a reset */
} mm;

static int pg_has_active(int g)
{
	for (int i = 0; i < mm.np; i++)
		if (mm.pg_of[i] == g && mm.active[i])
			return 1;
	return 0;
}

/*
 * The PG the next I/O must use (documented choice): the PG named by
 * switch_group (or the table's initial PG) if it has a usable path; else
 * the current PG while it has one; else the first PG in table order that
 * is enabled and has a usable path; else the first disabled one. 0: none.
 */
static int expected_pg(void)
{
	if (mm.next_pg && pg_has_active(mm.next_pg))
		return mm.next_pg;
	if (mm.cur_pg && pg_has_active(mm.cur_pg))
		return mm.cur_pg;
	for (int pass = 0; pass < 2; pass++)
		for (int g = 1; g <= mm.npg; g++)
			if (mm.disabled[g] == pass && pg_has_active(g))
				return g;
	return 0;
}

static uint64_t mdev;

struct mstats {
	long cases, ok, einval, probes, probe_io, probe_eio, probe_queued;
};

static const char *const mcmds[] = {
	"fail_path", "reinstate_path", "switch_group", "disable_group",
	"enable_group", "queue_if_no_path", "fail_if_no_path",
};

enum mact { MA_NONE, MA_FAIL, MA_REINSTATE, MA_SWITCH, MA_DISABLE, MA_ENABLE,
	    MA_QUEUE, MA_NOQUEUE };

struct mexpect {
	int r;			/* 0 or -EINVAL */
	int core;		/* rejected by dm core, not by the target */
	enum mact act;
	int arg;		/* path index or PG number */
};

/* The documented messages, judged on the words the kernel will see. */
static struct mexpect msg_oracle(const char *msg, uint64_t sector)
{
	struct mexpect x = { -EINVAL, 0, MA_NONE, 0 };
	struct wl l = { 0 };
	unsigned int g;
	int c = -1, want;
	dev_t d;

	k_split(msg, &l);
	if (!l.n || sector >= LEN) {
		x.core = 1;	/* "Empty message" / "sector outside device" */
		goto out;
	}
	for (int i = 0; i < 7; i++)
		if (!strcasecmp(l.w[0], mcmds[i]))
			c = i;
	if (c < 0)
		goto out;
	want = c >= 5 ? 1 : 2;
	if (l.n != want)
		goto out;
	switch (c) {
	case 0:
	case 1:
		if (k_resolve(l.w[1], 0, &d) != KR_DEV)
			goto out;
		for (int i = 0; i < mm.np; i++)
			if (devs[i].dev == d) {
				x.r = 0;
				x.act = c == 0 ? MA_FAIL : MA_REINSTATE;
				x.arg = i;
			}
		break;
	case 2:
	case 3:
	case 4:
		if (k_strtouint(l.w[1], &g) || !g || g > (unsigned int)mm.npg)
			goto out;
		x.r = 0;
		x.act = c == 2 ? MA_SWITCH : c == 3 ? MA_DISABLE : MA_ENABLE;
		x.arg = g;
		break;
	default:
		x.r = 0;
		x.act = c == 5 ? MA_QUEUE : MA_NOQUEUE;
	}
out:
	wl_free(&l);
	return x;
}

static void model_apply(struct mexpect *x)
{
	switch (x->act) {
	case MA_FAIL:
		if (mm.active[x->arg]) {
			mm.active[x->arg] = 0;
			mm.fc[x->arg]++;
		}
		break;
	case MA_REINSTATE:
		mm.active[x->arg] = 1;
		break;
	case MA_SWITCH:
		for (int g = 1; g <= mm.npg; g++)
			mm.disabled[g] = 0;
		mm.next_pg = x->arg;
		mm.cur_pg = 0;
		break;
	case MA_DISABLE:
	case MA_ENABLE:
		mm.disabled[x->arg] = x->act == MA_DISABLE;
		mm.cur_pg = 0;
		break;
	case MA_QUEUE:
	case MA_NOQUEUE:
		mm.queue = x->act == MA_QUEUE;
		break;
	case MA_NONE:
		break;
	}
}

static char *gen_message(uint64_t *sector)
{
	struct sb b = { 0 };
	int c = rn(8), p;
	char *cmd;

	*sector = 0;
	if (pct(2))
		*sector = pct(50) ? LEN + rn(3) : (1ULL << 63) + rn(9);
	else if (pct(5))
		*sector = rn(LEN);
	if (pct(1))
		return strdup(pct(50) ? "" : " \t ");
	if (c == 7) {		/* junk */
		for (unsigned int n = rn(4); n; n--) {
			char *w = any_word();

			sb_add(&b, "%s%s", b.len ? " " : "", w);
			free(w);
		}
		if (!b.len)
			sb_add(&b, "x");
		return b.s;
	}
	cmd = strdup(mcmds[c]);
	if (pct(8))
		cmd[rn(strlen(cmd))] ^= 0x20;		/* case: still valid */
	if (pct(4))
		cmd[rn(strlen(cmd))] = 'x';		/* typo */
	sb_add(&b, "%s", cmd);
	free(cmd);
	switch (c) {
	case 0:
	case 1:
		/* Mostly a path of the map; sometimes another device or none. */
		p = pct(85) ? (int)rn(mm.np) : (int)rn(ndevs);
		if (pct(8)) {
			char *w = nodev_word();

			sb_add(&b, " %s", w);
			free(w);
		} else {
			char *w = dev_form(p);

			sb_add(&b, " %s", w);
			free(w);
		}
		break;
	case 2:
	case 3:
	case 4:
		if (pct(80)) {
			sb_add(&b, " %s%u", pct(5) ? "+" : pct(5) ? "0" : "", 1 + rn(mm.npg));
		} else {
			char *w = num_word();

			sb_add(&b, " %s", w);
			free(w);
		}
		break;
	}
	/* Argument counts that are off, up to huge lists. */
	if (pct(6)) {
		unsigned int n = pct(80) ? 1 : 2000 + rn(2000);

		for (; n; n--) {
			char *w = pct(50) ? num_word() : dev_form(rn(ndevs));

			sb_add(&b, " %s", w);
			free(w);
		}
	} else if (pct(4) && strchr(b.s, ' ')) {
		*strchr(b.s, ' ') = 0;		/* argument missing */
	}
	return b.s;
}

/* Compare the map's status with the model; 0 if they agree. */
static int status_check(long k, long *qsize)
{
	char *info = NULL, *tbl = NULL;
	struct wl l = { 0 };
	int present, i = 0, bad = 0;
	unsigned int v;

	status_of(MNAME, 1, 0, &tbl, &present);
	if (strncmp(tbl, mm.queue ? "1 queue_if_no_path " : "0 ",
		    mm.queue ? 19 : 2)) {
		fail(k, "table status features disagree with queue_if_no_path=%d: %.60s",
		     mm.queue, tbl);
		bad = 1;
	}
	status_of(MNAME, 0, 0, &info, &present);
	k_split(info, &l);
#define W(j) ((j) < l.n ? l.w[j] : "")
	/* 1 <queue size> 0 <#PGs> <PG> */
	if (strcmp(W(0), "1") || k_strtouint(W(1), &v) || strcmp(W(2), "0") ||
	    k_strtouint(W(3), &v) || (int)v != mm.npg) {
		bad = 1;
		goto out;
	}
	if (qsize)
		*qsize = atol(W(1));
	i = 5;
	for (int g = 1; g <= mm.npg; g++) {
		const char *state = W(i);
		int np = 0;

		if ((state[0] == 'D') != mm.disabled[g] || strlen(state) != 1 ||
		    !strchr("ADE", state[0])) {
			fail(k, "PG %d state %s, model: %s", g, state,
			     mm.disabled[g] ? "disabled" : "enabled");
			bad = 1;
		}
		/* <state> 0 <#paths> 0 */
		for (int p = 0; p < mm.np; p++)
			np += mm.pg_of[p] == g;
		if (strcmp(W(i + 1), "0") || atoi(W(i + 2)) != np || strcmp(W(i + 3), "0")) {
			bad = 1;
			goto out;
		}
		i += 4;
		for (int p = 0; p < mm.np; p++) {
			char want[32];

			if (mm.pg_of[p] != g)
				continue;
			snprintf(want, sizeof(want), "%u:%u", major(devs[p].dev),
				 minor(devs[p].dev));
			if (strcmp(W(i), want) ||
			    strcmp(W(i + 1), mm.active[p] ? "A" : "F") ||
			    k_strtouint(W(i + 2), &v) || v != mm.fc[p]) {
				fail(k, "path %s: status \"%s %s %s\", model \"%s %s %u\"",
				     devs[p].name, W(i), W(i + 1), W(i + 2), want,
				     mm.active[p] ? "A" : "F", mm.fc[p]);
				bad = 1;
			}
			i += 3;
		}
	}
	if (i != l.n)
		bad = 1;
out:
	if (bad) {
		fail(k, "status does not match the model");
		show("info", info);
		show("table", tbl);
	}
#undef W
	wl_free(&l);
	free(info);
	free(tbl);
	return bad;
}

static int send_msg(const char *msg)
{
	return dmio_message(MNAME, 0, msg, NULL);
}

/* "fail_path D" or "reinstate_path D" for every path, in the model too. */
static void all_paths(const char *verb, int active)
{
	char m[128];

	for (int p = 0; p < mm.np; p++) {
		snprintf(m, sizeof(m), "%s %s", verb, devs[p].path);
		send_msg(m);
		if (!active && mm.active[p])
			mm.fc[p]++;	/* as the kernel counts it */
		mm.active[p] = active;
	}
}

/* Read through the map and judge the answer by the model. */
static void probe_map(long k, struct mstats *st)
{
	int nact = 0, src, want_pg;
	char node[64];
	struct probe *p;

	for (int i = 0; i < mm.np; i++)
		nact += mm.active[i];
	st->probes++;
	dm_node(mdev, node, sizeof(node));
	p = probe_start(node);

	if (!nact && mm.queue) {
		long qs = 0;
		int i = rn(mm.np);

		/* Must wait, visibly queued, and go on when a path returns. */
		if (probe_wait(p, 500)) {
			fail(k, "read finished (r=%zd %s) with no path while queueing",
			     p->r, strerror(p->err));
			probe_free(p);
			return;
		}
		/*
		 * The reader thread may not have reached the map yet: give
		 * it 10 s (a loaded TCG guest can stall a thread for more
		 * than a second); a read that is queued shows at once.
		 */
		for (int t = 0; t < 500 && !qs; t++) {
			status_check(k, &qs);
			if (!qs)
				usleep(20000);
		}
		if (!qs)
			fail(k, "a read is waiting but the status shows queue size 0");
		st->probe_queued++;
		if (pct(50)) {
			char msg[64];

			snprintf(msg, sizeof(msg), "reinstate_path %u:%u",
				 major(devs[i].dev), minor(devs[i].dev));
			if (send_msg(msg))
				fail(k, "reinstate_path to release a queued read failed");
			mm.active[i] = 1;
			nact = 1;
		} else {
			if (send_msg("fail_if_no_path"))
				fail(k, "fail_if_no_path to release a queued read failed");
			mm.queue = 0;
		}
	}
	want_pg = expected_pg();
	if (!probe_wait(p, 10000)) {
		fail(k, "read did not finish in 10 s: the map is wedged");
		status_check(k, NULL);
		exit(1);
	}
	src = probe_source(p);
	if (!nact) {
		if (p->r >= 0 || p->err != EIO)
			fail(k, "read without a path: r=%zd (%s), expected EIO", p->r,
			     strerror(p->err));
		else
			st->probe_eio++;
	} else if (p->r != BLK || src < 0) {
		fail(k, "read with %d active path(s): r=%zd (%s)%s", nact, p->r,
		     strerror(p->err), p->r == BLK ? ", no path signature" : "");
	} else if (src >= mm.np || !mm.active[src]) {
		fail(k, "read went to %s, which is not an active path of the map",
		     devs[src].name);
	} else if (mm.pg_of[src] != want_pg) {
		fail(k, "read went to %s in PG %d, expected PG %d (switch_group: %d, "
		     "current: %d)", devs[src].name, mm.pg_of[src], want_pg,
		     mm.next_pg, mm.cur_pg);
	} else {
		st->probe_io++;
	}
	if (nact) {		/* a path was chosen: that is the state now */
		mm.next_pg = 0;
		mm.cur_pg = src >= 0 && src < mm.np ? mm.pg_of[src] : 0;
	}
	probe_free(p);
}

static void run_messages(long first, long n)
{
	struct mstats st = { 0 };
	struct sb tbl = { 0 };
	char *names = NULL;
	long k;
	int r, g;

	mm.np = ndevs < MP_MAX ? ndevs : MP_MAX;
	mm.npg = mm.np >= 6 ? 3 : 2;
	sb_add(&tbl, "0 0 %d 1", mm.npg);
	for (g = 1; g <= mm.npg; g++) {
		int cnt = 0;

		for (int p = 0; p < mm.np; p++) {
			mm.pg_of[p] = 1 + p * mm.npg / mm.np;
			cnt += mm.pg_of[p] == g;
		}
		sb_add(&tbl, " round-robin 0 %d 1", cnt);
		for (int p = 0; p < mm.np; p++)
			if (mm.pg_of[p] == g)
				sb_add(&tbl, " %s 1", devs[p].path);
	}
	for (int p = 0; p < mm.np; p++)
		mm.active[p] = 1;
	mm.next_pg = 1;		/* the table's initial PG */
	r = dmio_create(MNAME, &mdev);
	if (!r)
		r = dmio_load(MNAME, LEN, "multipath", tbl.s);
	if (!r)
		r = dmio_resume(MNAME);
	if (r) {
		fprintf(stderr, "dm-fuzz: cannot set up %s (%s): %s\n", MNAME, tbl.s,
			strerror(-r));
		exit(2);
	}
	klog_take();
	if (status_check(-1, NULL)) {
		fprintf(stderr, "dm-fuzz: the fresh map's status does not parse\n");
		exit(1);
	}

	for (k = first; k < first + n; k++) {
		struct mexpect x;
		uint64_t sector;
		long f0 = fails;
		char *msg;

		case_seed(2, k);
		msg = gen_message(&sector);
		x = msg_oracle(msg, sector);
		st.cases++;
		klog_take();
		r = dmio_message(MNAME, sector, msg, NULL);
		klog_take();
		klog_check(k);
		if (r != x.r) {
			fail(k, "message returned %s, expected %s", r ? strerror(-r) : "0",
			     x.r ? strerror(-x.r) : "0");
		} else if (r) {
			const char *want = x.core ? "device-mapper: ioctl: " :
						    "device-mapper: multipath: ";

			if (!klog || !strstr(klog, want))
				fail(k, "message rejected without a \"%s...\" log line", want);
		}
		if (r)
			st.einval++;
		else
			st.ok++;
		if (!r && !x.r)
			model_apply(&x);
		else if (!r && x.r)
			goto next;	/* the model no longer knows the state */
		status_check(k, NULL);
		if (pct(12) || (x.act == MA_SWITCH && pct(50)))
			probe_map(k, &st);
		if (k % 1000 == 599) {
			/*
			 * Random messages rarely fail every path: make sure
			 * each run reads with no path under both policies
			 * (EIO; queued, then released).
			 */
			all_paths("fail_path", 0);
			send_msg("fail_if_no_path");
			mm.queue = 0;
			status_check(k, NULL);
			probe_map(k, &st);
			send_msg("queue_if_no_path");
			mm.queue = 1;
			status_check(k, NULL);
			probe_map(k, &st);
		}
		if (k % 200 == 199) {	/* back to all paths, all groups */
			char m[128];

			all_paths("reinstate_path", 1);
			for (g = 1; g <= mm.npg; g++) {
				snprintf(m, sizeof(m), "enable_group %d", g);
				send_msg(m);
				mm.disabled[g] = 0;
			}
			mm.cur_pg = 0;
			status_check(k, NULL);
			probe_map(k, &st);
		}
next:
		klog_take();
		klog_check(k);
		if (fails > f0) {
			show("message", msg);
			printf("#   sector %llu\n", (unsigned long long)sector);
			if (klog && *klog)
				show("kernel log", klog);
		}
		if (verbose)
			printf("case %ld: %s -> %d\n", k, msg, r);
		free(msg);
		if (fails > 50) {
			printf("dm-fuzz: too many failures, stopping\n");
			break;
		}
	}
	if (dmio_remove(MNAME))
		fail(k, "cannot remove %s: %s", MNAME, strerror(errno));
	dmio_list(&names);
	if (strstr(names, "dmfuzz-"))
		fail(k, "fuzz devices left behind: %s", names);
	free(names);
	free(tbl.s);
	printf("dm-fuzz messages: %ld cases (seed %llu, from %ld): %ld accepted, "
	       "%ld rejected; %ld read probes (%ld read a path, %ld EIO without a "
	       "path, %ld queued then released); %ld failures\n", st.cases,
	       (unsigned long long)seed, first, st.ok, st.einval, st.probes,
	       st.probe_io, st.probe_eio, st.probe_queued, fails);
}

static void usage(void)
{
	fprintf(stderr, "usage: dm-fuzz tables|messages|emit|sign [--seed S] "
		"[--cases N] [--first K] [--only K] [-v] DEV...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "cases", required_argument, NULL, 'n' },
		{ "first", required_argument, NULL, 'f' },
		{ "only", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	long cases = 1000, first = 0;
	const char *mode;
	int c;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "s:n:f:o:v", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			cases = atol(optarg);
			break;
		case 'f':
			first = atol(optarg);
			break;
		case 'o':
			first = atol(optarg);
			cases = 1;
			verbose = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; optind < argc; optind++)
		add_dev(argv[optind]);
	if (ndevs < 4) {
		fprintf(stderr, "dm-fuzz: give at least 4 path devices\n");
		exit(2);
	}
	/* "dev/sdX" in a table is relative to our working directory. */
	if (chdir("/"))
		exit(2);

	if (!strcmp(mode, "emit")) {
		run_emit(first, cases);
		return 0;
	}
	if (!strcmp(mode, "print")) {	/* the cases and verdicts, nothing run */
		struct sb tbl = { 0 };

		for (long k = first; k < first + cases; k++) {
			struct table_expect e;
			enum verdict v;

			gen_table(k, &tbl);
			v = oracle_table(tbl.s, LEN, &e);
			printf("%ld %s%s%s\n", k, v == V_VALID ? "valid" :
			       v == V_SKIP ? "skip" : "invalid: ",
			       v == V_INVALID ? e.why : "", v == V_VALID ? ":" : "");
			show("table", tbl.s);
			if (v == V_VALID)
				show("canon", e.canon);
			table_expect_free(&e);
		}
		free(tbl.s);
		return 0;
	}
	if (!strcmp(mode, "sign"))
		return sign_devs() ? 1 : 0;
	if (dmio_open() || kmsg_open()) {
		fprintf(stderr, "dm-fuzz: cannot open /dev/mapper/control or /dev/kmsg\n");
		exit(2);
	}
	if (!strcmp(mode, "tables"))
		run_tables(first, cases);
	else if (!strcmp(mode, "messages"))
		run_messages(first, cases);
	else
		usage();
	return fails ? 1 : 0;
}
