// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table oracle. The grammar, from the documentation:
 *
 *   <#features> [<feature> [<value>]]*        #features: 0 to 18 words
 *   <#hw args> [<hw handler> [<hw arg>]*]     count includes the name
 *   <#PGs> <initial PG>                       0 PGs needs initial 0
 *   { <selector> <#selector args> [<selector arg>]*
 *     <#paths> <#path args> { <device> [<path arg>]* }+ }*
 *
 * Every count is a decimal number without sign (dm_read_arg(): sscanf
 * "%u"), at most 1024, and never a number past 2^32-1;
 * #paths is at least 1; a device may appear once in a table. Known
 * handlers: "emc" with 0 or 2 arguments, each 0 or 1. Known selectors
 * (Documentation/device-mapper/dm-path-selectors.rst; every number an
 * unsigned int as kstrtouint() reads it: "+7" and "0010" are 7 and 10):
 *
 *   round-robin 0              per path [<repeat_count>], default 1000
 *   queue-length 0             per path [<repeat_count>], default 1
 *   service-time 0             per path [<repeat_count>
 *                                        [<relative_throughput 0-100>]],
 *                              defaults 1 and 1
 *   historical-service-time <#args 0-2> [<base_weight 0-1023>
 *                              [<threshold_multiplier>]], defaults 972, 0;
 *                              per path [<repeat_count>], default 1
 *
 * A selector's TABLE is its name, its selector arguments ("0 " for the
 * first three, "2 <base_weight> <threshold_multiplier> " for
 * historical-service-time, defaults filled in), "<#paths> <table_args> "
 * and per path the device and table_args words, defaults filled in:
 * table_args is 2 for service-time (repeat_count, relative_throughput), 1
 * for the others. queue-length and service-time store (and print) a
 * repeat_count above 1 as 1; round-robin and historical-service-time print
 * it as given. Feature words are case-insensitive; handler and selector
 * names are not. Nothing may follow the last priority group. Features: queue_if_no_path,
 * retain_attached_hw_handler, pg_init_retries <1..50>, pg_init_delay_msecs
 * <0..60000>, queue_if_no_path_timeout_secs <0..86400>, queue_mode bio|rq|mq,
 * probation_fails <0..32> (default 3), probation_window_secs <1..86400>
 * (60), probation_clean_ios <1..1000000> (1000), probation_stall_msecs
 * <0..600000> (0); a feature given twice takes its last value; the TABLE
 * lists them in that fixed order: queue_if_no_path, pg_init_retries,
 * pg_init_delay_msecs, retain_attached_hw_handler, queue_mode bio (or rq),
 * queue_if_no_path_timeout_secs, then the probation features whose value
 * is not the default (a default one is not printed). Every feature once is
 * 18 words, the most the count may say (the TABLE of a map loaded with 17
 * and then sent "queue_if_no_path" must load again); 19 or more: "invalid
 * number of feature arguments".
 */
#define _GNU_SOURCE
#include "oracle.h"
#include "kparse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sysmacros.h>

/* Append printf-style to a growing string. */
void sb_add(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
		va_end(ap);
		if (b->s && (size_t)n < room)
			break;
		b->cap = 2 * (b->cap + n + 64);
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	b->len += n;
}

struct cursor {
	struct wl *l;
	int i;
};

static const char *next(struct cursor *c)
{
	return c->i < c->l->n ? c->l->w[c->i++] : NULL;
}

static int left(struct cursor *c)
{
	return c->l->n - c->i;
}

static const char *count_why;

/*
 * A count word: present, a decimal number as dm_read_arg() reads it, in
 * [min, OR_MAX_COUNT]. A number past 2^32 - 1 must be refused too: the
 * kernel helper would wrap it into range (4294967297 reads as 1).
 */
static int count(struct cursor *c, unsigned int min, unsigned int *v)
{
	const char *w = next(c);
	int r;

	count_why = NULL;
	if (!w)
		return 0;
	r = k_count(w, v);
	if (r == -2)
		count_why = "count past 2^32-1 (would wrap)";
	return !r && *v >= min && *v <= OR_MAX_COUNT;
}

static const char *feature_why;
/*
 * The queue_mode the features named last: none (bio-based, the default),
 * bio, or rq (mq: the same). A valid request-based table is not judged
 * (V_SKIP): the first table a map loads fixes its type, and dm-fuzz's maps
 * are bio-based, so the kernel refuses it there for a reason of dm core's.
 */
enum { QM_NONE, QM_BIO, QM_RQ };
static int features_qm;

/* A feature's value, from the nf words left of the feature section. */
static int feature_value(struct cursor *c, unsigned int *nf, unsigned int min,
			 unsigned int max, long *out)
{
	unsigned int v;

	if (!*nf) {
		feature_why = "feature value missing";
		return 0;
	}
	(*nf)--;
	if (k_count(next(c), &v) || v < min || v > max) {
		feature_why = "feature value out of range";
		return 0;
	}
	*out = v;
	return 1;
}

/* The probation features: name, range, default (printed if not it). */
static const struct {
	const char *name;
	unsigned int min, max, def;
} prob_feature[] = {
	{ "probation_fails", 0, 32, 3 },
	{ "probation_window_secs", 1, 86400, 60 },
	{ "probation_clean_ios", 1, 1000000, 1000 },
	{ "probation_stall_msecs", 0, 600000, 0 },
};

#define NR_PROB 4

int target_shows_retain(void)
{
	static int shows = -1;
	unsigned int minor;
	char line[128];
	FILE *f;

	if (shows >= 0)
		return shows;
	/*
	 * The version the target registered (DM_LIST_VERSIONS).  No guess
	 * when it is not registered: the scenario loads the modules first
	 * (kernel autoloading is off during a fuzz run).
	 */
	f = popen("dmsetup targets 2>/dev/null", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "multipath v1.%u", &minor) == 1)
				shows = minor < 15;
		pclose(f);
	}
	if (shows < 0) {
		fprintf(stderr, "dm-fuzz: no multipath target registered "
			"(dmsetup targets): load dm-multipath first\n");
		exit(2);
	}
	return shows;
}

/* The TABLE form of a feature section (queue: queue_if_no_path). */
static void features_canon(struct sb *canon, int queue, long retries,
			   long delay, int retain, int qm, long bound,
			   const long *prob)
{
	int np = 0;

	for (int i = 0; i < NR_PROB; i++)
		np += 2 * (prob[i] != prob_feature[i].def);
	sb_add(canon, "%d ", queue + retain + 2 * (retries >= 0) +
	       2 * (delay >= 0) + 2 * qm + 2 * (bound >= 0) + np);
	if (queue)
		sb_add(canon, "queue_if_no_path ");
	if (retries >= 0)
		sb_add(canon, "pg_init_retries %ld ", retries);
	if (delay >= 0)
		sb_add(canon, "pg_init_delay_msecs %ld ", delay);
	if (retain)
		sb_add(canon, "retain_attached_hw_handler ");
	if (qm)
		sb_add(canon, "queue_mode %s ", qm == QM_RQ ? "rq" : "bio");
	if (bound >= 0)
		sb_add(canon, "queue_if_no_path_timeout_secs %ld ", bound);
	for (int i = 0; i < NR_PROB; i++)
		if (prob[i] != prob_feature[i].def)
			sb_add(canon, "%s %ld ", prob_feature[i].name, prob[i]);
}

/*
 * The nf feature words: 1 if valid, with their canonical TABLE form in
 * canon, and in queued the form after a "queue_if_no_path" message.
 */
static int features(struct cursor *c, unsigned int nf, struct sb *canon,
		    struct sb *queued, struct table_expect *e)
{
	long retries = -1, delay = -1, bound = -1, prob[NR_PROB];
	int queue = 0, retain = 0, qm = QM_NONE, pi;
	const char *w;

	for (pi = 0; pi < NR_PROB; pi++)
		prob[pi] = prob_feature[pi].def;
	while (nf) {
		w = next(c);
		nf--;
		for (pi = 0; pi < NR_PROB; pi++)
			if (!strcasecmp(w, prob_feature[pi].name))
				break;
		if (pi < NR_PROB) {
			if (!feature_value(c, &nf, prob_feature[pi].min,
					   prob_feature[pi].max, &prob[pi]))
				return 0;
		} else if (!strcasecmp(w, "queue_if_no_path")) {
			queue = 1;
		} else if (!strcasecmp(w, "retain_attached_hw_handler")) {
			retain = 1;
		} else if (!strcasecmp(w, "pg_init_retries")) {
			if (!feature_value(c, &nf, 1, 50, &retries))
				return 0;
		} else if (!strcasecmp(w, "pg_init_delay_msecs")) {
			if (!feature_value(c, &nf, 0, 60000, &delay))
				return 0;
		} else if (!strcasecmp(w, "queue_if_no_path_timeout_secs")) {
			if (!feature_value(c, &nf, 0, 86400, &bound))
				return 0;
		} else if (!strcasecmp(w, "queue_mode")) {
			if (!nf) {
				feature_why = "queue_mode without a value";
				return 0;
			}
			nf--;
			w = next(c);
			if (!strcasecmp(w, "bio")) {
				qm = QM_BIO;
			} else if (!strcasecmp(w, "rq") || !strcasecmp(w, "mq")) {
				qm = QM_RQ;
			} else {
				feature_why = "queue_mode not bio, rq or mq";
				return 0;
			}
		} else {
			feature_why = "feature word";
			return 0;
		}
	}

	e->queue = queue;
	retain = retain && target_shows_retain();
	features_qm = qm;
	features_canon(canon, queue, retries, delay, retain, qm, bound, prob);
	features_canon(queued, 1, retries, delay, retain, qm, bound, prob);
	return 1;
}

/* ---- the path selectors ---- */
struct selector {
	const char *name;
	unsigned int sel_args;		/* most selector arguments */
	unsigned int path_args;		/* most path arguments, = table_args */
	unsigned int repeat_default;
	int repeat_capped;		/* a repeat_count above 1 is stored as 1 */
};

static const struct selector selectors[] = {
	{ "round-robin", 0, 1, OR_RR_REPEAT, 0 },
	{ "queue-length", 0, 1, 1, 1 },
	{ "service-time", 0, 2, 1, 1 },
	{ "historical-service-time", 2, 1, 1, 0 },
};

static const struct selector *selector_named(const char *w)
{
	for (size_t i = 0; i < sizeof(selectors) / sizeof(selectors[0]); i++)
		if (!strcmp(w, selectors[i].name))
			return &selectors[i];
	return NULL;
}

/*
 * The nsel selector arguments (all present): 1 if the selector's
 * constructor takes them, with its TABLE words; else *why.
 */
static int selector_args(const struct selector *ps, struct cursor *c,
			 unsigned int nsel, struct sb *canon, const char **why)
{
	unsigned int base_weight = OR_HST_BASE_WEIGHT, threshold = 0;

	if (nsel > ps->sel_args) {
		*why = ps->sel_args ? "too many selector args" :
			"selector takes no selector args";
		return 0;
	}
	sb_add(canon, "%s ", ps->name);
	if (!ps->sel_args) {
		sb_add(canon, "0 ");
		return 1;
	}
	/* historical-service-time */
	if (nsel >= 1 && (k_strtouint(next(c), &base_weight) ||
			  base_weight > OR_HST_MAX_BASE_WEIGHT)) {
		*why = "historical-service-time: base_weight";
		return 0;
	}
	if (nsel == 2 && k_strtouint(next(c), &threshold)) {
		*why = "historical-service-time: threshold_multiplier";
		return 0;
	}
	sb_add(canon, "2 %u %u ", base_weight, threshold);
	return 1;
}

/*
 * A path's na arguments (all present): 1 if the selector's add_path takes
 * them, with its TABLE words; else *why.
 */
static int path_args(const struct selector *ps, struct cursor *c,
		     unsigned int na, struct sb *canon, const char **why)
{
	unsigned int repeat = ps->repeat_default, tput = OR_ST_THROUGHPUT;

	if (na > ps->path_args) {
		*why = "too many path args";
		return 0;
	}
	if (na >= 1 && k_strtouint(next(c), &repeat)) {
		*why = "repeat_count";
		return 0;
	}
	if (na == 2 && (k_strtouint(next(c), &tput) ||
			tput > OR_ST_MAX_THROUGHPUT)) {
		*why = "service-time: relative_throughput";
		return 0;
	}
	if (ps->repeat_capped && repeat > 1)
		repeat = 1;
	sb_add(canon, "%u ", repeat);
	if (ps->path_args == 2)
		sb_add(canon, "%u ", tput);
	return 1;
}

#define BAD(reason) do { e->why = count_why ? count_why : (reason); \
			     v = V_INVALID; goto out; } while (0)

enum verdict oracle_table(const char *params, unsigned long long len,
			  struct table_expect *e)
{
	struct wl words = { 0 };
	struct cursor c = { &words, 0 };
	struct sb canon = { 0 }, queued = { 0 };
	unsigned int nf, nh, npg, initial, pg, i, j;
	enum verdict v = V_VALID;
	size_t feat_len;
	const char *w;

	memset(e, 0, sizeof(*e));
	e->nfeat = -1;
	k_split(params, &words);

	/*
	 * Features. The count is read by the kernel's range check first:
	 * whatever is wrong with it (absent aside), past 10 included, that
	 * is the error, before any feature word is looked at.
	 */
	if (!count(&c, 0, &nf) || nf > OR_MAX_FEATURE_WORDS) {
		if (!words.n)
			e->error = "missing number of feature arguments";
		else
			e->error = "invalid number of feature arguments";
		if (words.n && !k_count(words.w[0], &nf))
			e->nfeat = nf;
		BAD("feature count");
	}
	e->nfeat = nf;
	if ((unsigned int)left(&c) < nf)
		BAD("feature words missing");
	if (!features(&c, nf, &canon, &queued, e))
		BAD(feature_why);
	feat_len = canon.len;

	/* Hardware handler. */
	if (!count(&c, 0, &nh))
		BAD("hw handler count");
	if (nh) {
		unsigned int a[2];

		if ((unsigned int)left(&c) < nh)
			BAD("hw handler words missing");
		if (strcmp(next(&c), "emc"))
			BAD("unknown hw handler");
		if (nh != 1 && nh != 3)
			BAD("emc argument count");
		if (nh == 3) {
			for (i = 0; i < 2; i++)
				if (k_strtouint(next(&c), &a[i]) || a[i] > 1)
					BAD("emc argument");
			sb_add(&canon, "3 emc %u %u ", a[0], a[1]);
		} else {
			sb_add(&canon, "1 emc ");
		}
		e->hw = 1;
	} else {
		sb_add(&canon, "0 ");
	}

	/* Priority groups. */
	if (!count(&c, 0, &npg))
		BAD("PG count");
	if (!count(&c, 0, &initial))
		BAD("initial PG");
	if ((!npg && initial) || (npg && (!initial || initial > npg)))
		BAD("initial PG out of range");
	e->npg = npg;
	e->initial = initial;
	sb_add(&canon, "%u %u ", npg, initial);

	for (pg = 1; pg <= npg; pg++) {
		const struct selector *ps;
		unsigned int nsel, np, na;

		w = next(&c);
		if (!w)
			BAD("PG missing");
		ps = selector_named(w);
		if (!ps)
			BAD("unknown selector");
		if (!count(&c, 0, &nsel))
			BAD("selector arg count");
		if ((unsigned int)left(&c) < nsel)
			BAD("selector args missing");
		if (!selector_args(ps, &c, nsel, &canon, &e->why)) {
			v = V_INVALID;
			goto out;
		}
		if (!count(&c, 1, &np))
			BAD("path count");
		if (!count(&c, 0, &na))
			BAD("path arg count");
		sb_add(&canon, "%u %u ", np, ps->path_args);
		for (i = 0; i < np; i++) {
			dev_t d;

			if ((unsigned int)left(&c) < 1 + na)
				BAD("path words missing");
			switch (k_resolve(next(&c), len, &d)) {
			case KR_NONE:
				BAD("no such device");
			case KR_SKIP:
				v = V_SKIP;
				goto out;
			case KR_DEV:
				break;
			}
			for (j = 0; j < (unsigned int)e->npaths; j++)
				if (e->path[j] == d)
					BAD("duplicate device");
			sb_add(&canon, "%u:%u ", major(d), minor(d));
			if (!path_args(ps, &c, na, &canon, &e->why)) {
				v = V_INVALID;
				goto out;
			}
			if (e->npaths == OR_MAX_PATHS) {
				v = V_SKIP;
				goto out;
			}
			e->path_pg[e->npaths] = pg;
			e->path[e->npaths++] = d;
		}
	}
	if (left(&c))
		BAD("words after the last PG");
out:
	wl_free(&words);
	if (v == V_VALID && features_qm == QM_RQ)
		v = V_SKIP;
	if (v == V_VALID) {
		/* The same groups after the features of a queueing map. */
		sb_add(&queued, "%s", canon.s + feat_len);
		e->canon_queued = queued.s;
		e->canon = canon.s;
	} else {
		free(canon.s);
		free(queued.s);
	}
	return v;
}

void table_expect_free(struct table_expect *e)
{
	free(e->canon);
	free(e->canon_queued);
	e->canon = NULL;
	e->canon_queued = NULL;
}
