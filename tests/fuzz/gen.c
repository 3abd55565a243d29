// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fuzz's case generator: valid tables, one to three mutations of them
 * at the grammar's boundaries, word soup, and messages, from every kind of
 * word a user could type (device spellings, boundary numbers, keywords in
 * odd case, junk).  Deterministic per (seed, case).
 */
#define _GNU_SOURCE
#include "fuzz.h"
#include "gen.h"
#include "kparse.h"
#include "msgmodel.h"
#include "oracle.h"

#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

/* ---- PRNG: splitmix64, reseeded per case ---- */
static uint64_t rs;

uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

int pct(unsigned int p)
{
	return rn(100) < p;
}

void case_seed(uint64_t kind, long k)
{
	rs = seed * 0x100000001b3ULL ^ (kind << 56) ^ (uint64_t)k;
	rnd();
}

/* ---- strings: struct sb and sb_add() are in oracle.c ---- */
/*
 * Empty it, and make it a string even when nothing is ever added (the very
 * first case of a run may be the empty table, and every caller reads .s).
 */
static void sb_reset(struct sb *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
	else
		sb_add(b, "%s", "");
}

/* ---- words ---- */
/* Spellings of device i that only name_to_dev_t() resolves. */
static char *n2d_form(int i)
{
	unsigned int ma = major(devs[i].dev), mi = minor(devs[i].dev);

	if (rn(2))
		return fmt("%u:%u:0", ma, mi);
	/* new_encode_dev(), hex */
	return fmt("%x", (mi & 0xff) | (ma << 8) | ((mi & ~0xffU) << 12));
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
	case 9:
		if (!k_name_to_dev_t())	/* 6.9 on: nodev_word() has them */
			return fmt("%u:%u", ma, mi);
		return n2d_form(i);
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
	if (!k_name_to_dev_t() && pct(15))	/* 6.1's spellings, refused */
		return n2d_form(rn(ndevs));
	return strdup(nodev[rn(n)]);
}

/* ---- numbers at the boundaries ---- */
static const char *const edge_num[] = {
	"0", "1", "2", "3", "1023", "1024", "1025", "4294967295", "4294967296",
	"18446744073709551615", "18446744073709551616", "-1", "-0", "+1", "+0",
	"0x1", "0x10", "1e3", "1.0", "01", "007", "000000000000000000001",
	"1junk", "junk1", "2147483648", "65536", "99999999999999999999999",
	"+", "-", "0\\ 1", "100", "101", "972", NULL,
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
	"pg_init_retries", "retain_attached_hw_handler", "pg_init_delay_msecs",
	"queue_mode", "bio", "rq", "queue_if_no_path_timeout_secs",
	"probation_fails", "probation_window_secs", "probation_clean_ios",
	"probation_stall_msecs", "Probation_Fails", "probation",
	"queue-length", "service-time", "historical-service-time",
	"Service-Time", "service_time", "queue_length", NULL,
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

/*
 * The features a table may name; those from 2 on take a value (lo..hi),
 * Queue_Mode its word.
 */
static const char *const feature_name[] = {
	"queue_if_no_path", "retain_attached_hw_handler",
	"pg_init_retries", "pg_init_delay_msecs",
	"queue_if_no_path_timeout_secs", "Queue_Mode",
	"probation_fails", "PROBATION_window_secs", "probation_clean_ios",
	"probation_stall_msecs",
};

static const unsigned int feature_lo[] = { 0, 0, 1, 0, 0, 0, 0, 1, 1, 0 };
static const unsigned int feature_hi[] = {
	0, 0, 50, 60000, 86400, 0, 32, 86400, 1000000, 600000,
};

#define NR_FEATURES 10

/*
 * Feature i and its value, if it takes one; sometimes (spoil) a value just
 * out of range or a queue_mode that is none (sq). How many words it added.
 */
static unsigned int push_feature(struct wl *words, unsigned int i, int spoil)
{
	unsigned int v;

	wl_push(words, feature_name[i]);
	if (i == 5) {
		wl_push(words, pct(80) ? "bio" : pct(50) || !spoil ? "BIO" : "sq");
		return 2;
	}
	if (i < 2)
		return 1;
	v = pct(50) ? feature_lo[i] + rn(feature_hi[i] - feature_lo[i] + 1) :
		pct(50) ? feature_lo[i] : feature_hi[i];
	if (spoil && pct(5))
		v = pct(50) && feature_lo[i] ? feature_lo[i] - 1 : feature_hi[i] + 1;
	push_own(words, fmt("%u", v));
	return 2;
}

/*
 * Exactly n feature words, valid ones (the kernel takes at most 18: every
 * feature once; from 19 on the count itself is refused): all ten features
 * in some order (18 words), all but queue_if_no_path (17, the map that a
 * "queue_if_no_path" message makes print 18 when the probation values
 * differ from their defaults), those plus one more (19), or features drawn
 * at random up to n, some given twice.
 */
static unsigned int edge_features(struct wl *words, unsigned int n)
{
	unsigned int order[NR_FEATURES], i, t, got = 0;

	for (i = 0; i < NR_FEATURES; i++)
		order[i] = i;
	for (i = NR_FEATURES - 1; i > 0; i--) {
		unsigned int r = rn(i + 1);

		t = order[i];
		order[i] = order[r];
		order[r] = t;
	}
	switch (n == OR_MAX_FEATURE_WORDS + 2 ? 3 : rn(4)) {
	case 0:			/* all ten: 18 */
		for (i = 0; i < NR_FEATURES; i++)
			got += push_feature(words, order[i], 0);
		return got;
	case 1:			/* all but queue_if_no_path: 17 */
		for (i = 0; i < NR_FEATURES; i++)
			if (order[i])
				got += push_feature(words, order[i], 0);
		return got;
	case 2:			/* all ten, a valueless one again: 19 */
		for (i = 0; i < NR_FEATURES; i++)
			got += push_feature(words, order[i], 0);
		return got + push_feature(words, rn(2), 0);
	}
	while (got < n)		/* one word left: a feature without a value */
		got += push_feature(words, n - got == 1 ? rn(2) : rn(NR_FEATURES), 0);
	return got;
}

/*
 * A valid feature section of Linux 6.1's words, the queueing bound and the
 * probation features, in a random order, some given twice: usually 1 to 4
 * features in at most 8 words, sometimes one value just out of range; two
 * times in five exactly 16 to 20 words, at and past the kernel's limit of
 * 18.
 */
static void gen_features(struct wl *l)
{
	struct wl words = { 0 };
	unsigned int n = 0, k, i;

	if (pct(40)) {
		n = edge_features(&words, pct(10) ? OR_MAX_FEATURE_WORDS + 2 :
				  OR_MAX_FEATURE_WORDS - 2 + rn(4));
	} else {
		for (k = 1 + rn(4); k; k--) {
			i = rn(NR_FEATURES);
			if (n + (i >= 2) + 1 > 8)
				break;
			n += push_feature(&words, i, 1);
		}
	}
	push_own(l, count_word(n));
	for (i = 0; i < (unsigned int)words.n; i++)
		wl_push(l, words.w[i]);
	wl_free(&words);
}

/* ---- the path selectors ---- */
struct gen_selector {
	const char *name;
	unsigned int sel_args;		/* most selector arguments */
	unsigned int path_args;		/* most path arguments */
};

static const struct gen_selector gen_selectors[] = {
	{ "round-robin", 0, 1 },
	{ "queue-length", 0, 1 },
	{ "service-time", 0, 2 },
	{ "historical-service-time", 2, 1 },
};

#define NR_SELECTORS (sizeof(gen_selectors) / sizeof(gen_selectors[0]))

/*
 * Where gen_valid() put the words a selector reads, so that spoil() can
 * put exactly one of them just past its limit.
 */
enum field_kind {
	F_SEL_COUNT,		/* #selector args; n: the count */
	F_BASE_WEIGHT,
	F_THRESHOLD,
	F_PATH_COUNT,		/* #path args; n: the count */
	F_REPEAT,
	F_THROUGHPUT,
	F_PATH_END,		/* the word after a path's arguments */
};

struct field {
	enum field_kind kind;
	int at;			/* word index */
	const struct gen_selector *ps;
	unsigned int n;
	unsigned int pg;	/* 0-based */
};

struct fields {
	struct field *f;
	int n, cap;
};

static void field_add(struct fields *f, enum field_kind kind, int at,
		      const struct gen_selector *ps, unsigned int n,
		      unsigned int pg)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 32;
		f->f = realloc(f->f, f->cap * sizeof(*f->f));
		if (!f->f)
			abort();
	}
	f->f[f->n++] = (struct field){ kind, at, ps, n, pg };
}

/* A word of list (NULL-terminated), or half the time one below "below". */
static char *pick(const char *const *list, unsigned int below)
{
	unsigned int n = 0;

	while (list[n])
		n++;
	if (below && pct(50))
		return fmt("%u", rn(below));
	return strdup(list[rn(n)]);
}

/* Valid values of each selector word, boundaries included. */
static char *repeat_word(void)
{
	static const char *const v[] = {
		"0", "1", "2", "1000", "4294967295", "+7", "0010", NULL,
	};

	return pick(v, 100000);
}

static char *throughput_word(void)
{
	static const char *const v[] = {
		"0", "1", "99", "100", "+100", "0100", "050", NULL,
	};

	return pick(v, 101);
}

static char *base_weight_word(void)
{
	static const char *const v[] = {
		"0", "1", "972", "1022", "1023", "+1023", "01023", NULL,
	};

	return pick(v, 1024);
}

static char *threshold_word(void)
{
	static const char *const v[] = {
		"0", "1", "2", "4294967295", "+3", "007", "1000000", NULL,
	};

	return pick(v, 100);
}

/* The selector arguments of PG pg: none but for historical-service-time. */
static void gen_selector_args(struct wl *l, const struct gen_selector *ps,
			      struct fields *f, unsigned int pg)
{
	unsigned int n = rn(ps->sel_args + 1);

	field_add(f, F_SEL_COUNT, l->n, ps, n, pg);
	push_own(l, count_word(n));
	if (n >= 1) {
		field_add(f, F_BASE_WEIGHT, l->n, ps, 0, pg);
		push_own(l, base_weight_word());
	}
	if (n >= 2) {
		field_add(f, F_THRESHOLD, l->n, ps, 0, pg);
		push_own(l, threshold_word());
	}
}

static void gen_valid(struct wl *l, struct fields *f)
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

	if (pct(25)) {
		gen_features(l);
	} else if (pct(50)) {
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
		unsigned int remaining = ndevs - used, np, na;
		const struct gen_selector *ps = &gen_selectors[rn(NR_SELECTORS)];

		/* Leave a device for each group still to come. */
		if (npg == 1 && pct(3) && ndevs >= 64)
			np = remaining < OR_MAX_COUNT ? remaining : OR_MAX_COUNT;
		else
			np = 1 + rn(remaining - (npg - 1 - i) < 3 ?
				    remaining - (npg - 1 - i) : 3);
		wl_push(l, ps->name);
		gen_selector_args(l, ps, f, i);
		push_own(l, count_word(np));
		na = rn(ps->path_args + 1);
		field_add(f, F_PATH_COUNT, l->n, ps, na, i);
		push_own(l, count_word(na));
		for (j = 0; j < np; j++) {
			push_own(l, dev_form(perm[used++]));
			if (na >= 1) {
				field_add(f, F_REPEAT, l->n, ps, 0, i);
				push_own(l, repeat_word());
			}
			if (na >= 2) {
				field_add(f, F_THROUGHPUT, l->n, ps, 0, i);
				push_own(l, throughput_word());
			}
			field_add(f, F_PATH_END, l->n, ps, 0, i);
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

/*
 * Put one selector word of a valid table just past its limit: one argument
 * too many (each extra word a value that would be valid), or a value out
 * of range, past 2^32 - 1, signed or not a number. Nothing else changes,
 * so the kernel must refuse the table for exactly that word.
 */
static void spoil(struct wl *l, struct fields *f)
{
	static const char *const bad_u32[] = {
		"4294967296", "18446744073709551616", "-1", "-0", "1x", "x",
		"0x1", "1.0", "1e3", "+", "99999999999999999999", NULL,
	};
	static const char *const bad_tput[] = {
		"101", "102", "255", "1000", "4294967295", NULL,
	};
	static const char *const bad_weight[] = {
		"1024", "1025", "2048", "65536", "4294967295", NULL,
	};
	struct field *t;
	unsigned int extra, i, n = 0;
	int k;

	for (k = 0; k < f->n; k++)
		n += f->f[k].kind != F_PATH_END;
	if (!n)
		return;
	n = rn(n);
	for (k = 0; k < f->n; k++)
		if (f->f[k].kind != F_PATH_END && !n--)
			break;
	t = &f->f[k];

	switch (t->kind) {
	case F_SEL_COUNT:
		extra = t->ps->sel_args + 1 - t->n;
		wl_replace(l, t->at, fmt("%u", t->ps->sel_args + 1));
		for (i = 0; i < extra; i++)
			wl_insert(l, t->at + 1 + t->n, pct(50) ? base_weight_word() :
				  strdup("0"));
		break;
	case F_PATH_COUNT:
		/* Every path of the group gets the extra words: last first. */
		extra = t->ps->path_args + 1 - t->n;
		for (k = f->n - 1; k >= 0; k--)
			if (f->f[k].kind == F_PATH_END && f->f[k].pg == t->pg)
				for (i = 0; i < extra; i++)
					wl_insert(l, f->f[k].at, repeat_word());
		wl_replace(l, t->at, fmt("%u", t->ps->path_args + 1));
		break;
	case F_THROUGHPUT:
		wl_replace(l, t->at, pct(50) ? pick(bad_tput, 0) : pick(bad_u32, 0));
		break;
	case F_BASE_WEIGHT:
		wl_replace(l, t->at, pct(50) ? pick(bad_weight, 0) : pick(bad_u32, 0));
		break;
	default:		/* repeat_count, threshold_multiplier: any u32 */
		wl_replace(l, t->at, pick(bad_u32, 0));
	}
}

/* One mutation of a table's words. */
static void mutate(struct wl *l)
{
	int at = l->n ? (int)rn(l->n) : 0;
	unsigned int v;

	switch (rn(16)) {
	case 15:		/* another selector's name, or a misspelt one */
		for (int t = 0; t < 8 && l->n; t++, at = rn(l->n))
			if (strchr(l->w[at], '-') && !is_num(l->w[at], &v) &&
			    !strchr(l->w[at], '/')) {
				static const char *const alt[] = {
					"round-robin", "queue-length",
					"service-time", "historical-service-time",
					"Queue-Length", "service_time",
					"historical-service-tim", "Historical-Service-Time",
				};

				wl_replace(l, at, strdup(alt[rn(8)]));
				break;
			}
		break;
	case 14:		/* the same count, spelt otherwise */
		for (int t = 0; t < 8 && l->n; t++, at = rn(l->n))
			if (!k_count(l->w[at], &v)) {
				/*
				 * Past 2^32 - 1 (the kernel's reader would
				 * wrap it into range), also after a '+'
				 * (which that reader refuses anyway) or a
				 * leading space (which it skips: the wrap
				 * guard did not, before 5002128).
				 */
				static const char *const f[] = {
					"%llu", "+%llu", "\\ %llu",
					"+%.0llu%u", "0%.0llu%u",
					"\\ %.0llu%u", "%.0llu%u\\ ",
				};
				unsigned int i = rn(7);

				if (i < 3)
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

void gen_table(long k, struct sb *out)
{
	struct wl l = { 0 };
	struct fields f = { 0 };
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
		gen_valid(&l, &f);
		if (pct(12))
			spoil(&l, &f);
		else if (pct(75))
			for (n = 1 + (pct(30) ? rn(3) : 0); n; n--)
				mutate(&l);
		free(f.f);
	}
	join(&l, out);
	wl_free(&l);
}

/* ---- message generation ---- */
char *gen_message(uint64_t *sector, int np, int npg)
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
	cmd = strdup(msg_cmds[c]);
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
		p = pct(85) ? (int)rn(np) : (int)rn(ndevs);
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
			sb_add(&b, " %s%u", pct(5) ? "+" : pct(5) ? "0" : "", 1 + rn(npg));
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
