// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: path health and probation (see
 * dm-mpath-health.h for what it is, Documentation/admin-guide.rst for the
 * features).
 *
 * Why in the target: multipathd's checker (a TEST UNIT READY) reinstates a
 * path that drops one I/O in a hundred a few seconds after the target
 * failed it, and the next error fails it again. The target sees every
 * error as it happens and can park such a path in milliseconds, without
 * the minutes of samples multipathd's marginal-path settings need.
 */

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/device-mapper.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "dm-mpath-health.h"

#define DM_MSG_PREFIX "multipath"

void probation_params_init(struct probation_params *p)
{
	p->fails = PROBATION_FAILS_DEFAULT;
	p->window_secs = PROBATION_WINDOW_SECS_DEFAULT;
	p->clean_ios = PROBATION_CLEAN_IOS_DEFAULT;
	p->stall_msecs = PROBATION_STALL_MSECS_DEFAULT;
}

/* TABLE status names the values that differ from the defaults. */
unsigned int probation_table_words(const struct probation_params *p)
{
	return (p->fails != PROBATION_FAILS_DEFAULT ? 2 : 0) +
	       (p->window_secs != PROBATION_WINDOW_SECS_DEFAULT ? 2 : 0) +
	       (p->clean_ios != PROBATION_CLEAN_IOS_DEFAULT ? 2 : 0) +
	       (p->stall_msecs != PROBATION_STALL_MSECS_DEFAULT ? 2 : 0);
}

unsigned int probation_emit_table(const struct probation_params *p,
				  char *result, unsigned int maxlen)
{
	unsigned int sz = 0;

	if (p->fails != PROBATION_FAILS_DEFAULT)
		DMEMIT("probation_fails %u ", p->fails);
	if (p->window_secs != PROBATION_WINDOW_SECS_DEFAULT)
		DMEMIT("probation_window_secs %u ", p->window_secs);
	if (p->clean_ios != PROBATION_CLEAN_IOS_DEFAULT)
		DMEMIT("probation_clean_ios %u ", p->clean_ios);
	if (p->stall_msecs != PROBATION_STALL_MSECS_DEFAULT)
		DMEMIT("probation_stall_msecs %u ", p->stall_msecs);

	return sz;
}

/* Jiffies a bucket spans: PATH_HEALTH_BUCKETS - 1 of them make a window. */
static unsigned long bucket_jiffies(const struct probation_params *p)
{
	return DIV_ROUND_UP(p->window_secs * HZ, PATH_HEALTH_BUCKETS - 1);
}

/* The bucket (epoch) that now falls in. */
static u32 bucket_now(const struct probation_params *p)
{
	return (u32)(jiffies / bucket_jiffies(p));
}

void path_health_init(struct path_health *h, const struct probation_params *p,
		      unsigned long *ring)
{
	BUILD_BUG_ON(sizeof(h->fault_stalls) * BITS_PER_BYTE < PROBATION_FAILS_MAX);
	BUILD_BUG_ON(PROBATION_FAILS_MAX > U8_MAX);

	memset(h, 0, sizeof(*h));
	atomic_set(&h->clean_ios, 0);
	h->ring_size = path_health_ring_size(p);
	h->fault_at = ring;
	h->bucket_epoch = bucket_now(p);
	/* Stalls count only where probation can follow from them. */
	if (p->fails && p->stall_msecs)
		h->stall_jiffies = max(msecs_to_jiffies(p->stall_msecs), 1UL);
}

/* The ring slot of the i-th newest fault. */
static unsigned int ring_slot(const struct path_health *h, unsigned int i)
{
	return (h->fault_next + h->ring_size - 1 - i) % h->ring_size;
}

/*
 * Buckets newer than bucket_epoch (up to now) have had no fault: empty
 * them, all of them if the newest is a whole round of buckets old.
 */
static void buckets_advance(struct path_health *h, u32 now)
{
	u32 age = now - h->bucket_epoch;
	unsigned int i, n = min_t(u32, age, PATH_HEALTH_BUCKETS);

	for (i = 1; i <= n; i++) {
		unsigned int slot = (h->bucket_epoch + i) % PATH_HEALTH_BUCKETS;

		h->bucket_fails[slot] = 0;
		h->bucket_stalls[slot] = 0;
	}
	h->bucket_epoch = now;
}

static void bucket_add(u8 *count)
{
	if (*count < U8_MAX)
		(*count)++;
}

/*
 * The faults of the last window_secs, failures and stalls apart. Exact
 * while the ring holds every fault of the window: it has room for
 * probation_fails, so the decision (whether that many fell within the
 * window) is always exact. When the window had more, the buckets count
 * them all, and may also take in faults up to one bucket (1/7 of the
 * window) older: a count a little high rather than one that stops at the
 * ring's size.
 */
static void count_recent(const struct path_health *h,
			 const struct probation_params *p,
			 unsigned int *fails, unsigned int *stalls)
{
	unsigned long since = jiffies - p->window_secs * HZ;
	unsigned int i, n = min_t(unsigned int, h->nr_faults, h->ring_size);
	u32 age;

	*fails = 0;
	*stalls = 0;
	for (i = 0; i < n; i++) {
		unsigned int slot = ring_slot(h, i);

		if (time_before(h->fault_at[slot], since))
			return;	/* in time order: older ones follow, all counted */
		if (h->fault_stalls & BIT(slot))
			(*stalls)++;
		else
			(*fails)++;
	}
	if (h->nr_faults <= h->ring_size)
		return;		/* the ring has every fault there was */

	/* The ring is full of the window's faults: older ones may be too. */
	age = bucket_now(p) - h->bucket_epoch;
	if (age >= PATH_HEALTH_BUCKETS)
		return;
	*fails = 0;
	*stalls = 0;
	for (i = 0; i < PATH_HEALTH_BUCKETS - age; i++) {
		unsigned int slot = (h->bucket_epoch - i) % PATH_HEALTH_BUCKETS;

		*fails += h->bucket_fails[slot];
		*stalls += h->bucket_stalls[slot];
	}
}

static bool over_threshold(struct path_health *h,
			   const struct probation_params *p)
{
	unsigned int fails, stalls;

	if (!p->fails)
		return false;
	count_recent(h, p, &fails, &stalls);
	if (fails + stalls < p->fails)
		return false;
	h->why_fails = min_t(unsigned int, fails, U16_MAX);
	h->why_stalls = min_t(unsigned int, stalls, U16_MAX);
	return true;
}

bool __path_health_fault(struct path_health *h,
			 const struct probation_params *p, enum path_fault kind)
{
	h->fault_at[h->fault_next] = jiffies;
	if (kind == PATH_FAULT_STALL)
		h->fault_stalls |= BIT(h->fault_next);
	else
		h->fault_stalls &= ~BIT(h->fault_next);
	h->fault_next = (h->fault_next + 1) % h->ring_size;
	buckets_advance(h, bucket_now(p));
	bucket_add(kind == PATH_FAULT_STALL ?
		   &h->bucket_stalls[h->bucket_epoch % PATH_HEALTH_BUCKETS] :
		   &h->bucket_fails[h->bucket_epoch % PATH_HEALTH_BUCKETS]);
	h->nr_faults++;
	if (kind == PATH_FAULT_STALL)
		h->nr_stalls++;

	/* A fault during probation: the clean run starts from nothing. */
	if (h->probation)
		atomic_set(&h->clean_ios, 0);

	return over_threshold(h, p);
}

bool __path_health_due(struct path_health *h, const struct probation_params *p)
{
	if (!p->fails)
		return false;
	/* Still on probation (it failed during it): start it again. */
	if (h->probation) {
		over_threshold(h, p);
		return true;
	}
	return over_threshold(h, p);
}

static const char *plural(unsigned int n)
{
	return n == 1 ? "" : "s";
}

void __path_health_enter(struct path_health *h,
			 const struct probation_params *p, const char *map,
			 const char *dev)
{
	atomic_set(&h->clean_ios, 0);
	/* Starting it again keeps the back-off; a new probation has none. */
	if (!h->probation) {
		h->backoff = 0;
		h->trial_offers = 0;
	}
	WRITE_ONCE(h->probation, true);
	h->nr_probations++;

	if (h->why_stalls)
		DMWARN("%s: Path %s on probation: %u failure%s and %u stall%s in %u s.",
		       map, dev, h->why_fails, plural(h->why_fails),
		       h->why_stalls, plural(h->why_stalls), p->window_secs);
	else
		DMWARN("%s: Path %s on probation: %u failure%s in %u s.",
		       map, dev, h->why_fails, plural(h->why_fails),
		       p->window_secs);
}

void __path_health_leave(struct path_health *h, const char *map,
			 const char *dev)
{
	WRITE_ONCE(h->probation, false);
	h->backoff = 0;
	h->trial_offers = 0;
	DMINFO("%s: Path %s left probation.", map, dev);
}

void __path_health_trial_failed(struct path_health *h,
				const struct probation_params *p)
{
	BUILD_BUG_ON(PROBATION_BACKOFF_MAX > U8_MAX);
	h->backoff = min(__path_health_backoff(h, p) + 1,
			 (unsigned int)PROBATION_BACKOFF_MAX);
}

/*
 * Offers are counted per path under the map's lock (map_bio_trial holds
 * it for every trial bio anyway): at level n the path takes one offer in
 * 2^n, exactly, whichever CPU's tick made the offer.
 */
bool __path_health_trial_take(struct path_health *h,
			      const struct probation_params *p)
{
	unsigned int level = __path_health_backoff(h, p);

	h->trial_offers++;
	return !(h->trial_offers & ((1U << level) - 1));
}

/*
 * <device> <failures> <stalls> <window secs> <clean I/Os> <clean I/Os
 * needed>: the faults that (last) started the probation, and how far the
 * clean run has come.
 */
unsigned int __path_health_status(const struct path_health *h,
				  const struct probation_params *p,
				  const char *dev, char *result,
				  unsigned int maxlen)
{
	unsigned int sz = 0;

	DMEMIT("%s %u %u %u %u %u ", dev, h->why_fails, h->why_stalls,
	       p->window_secs,
	       min_t(unsigned int, atomic_read(&h->clean_ios), p->clean_ios),
	       p->clean_ios);

	return sz;
}

/*
 * trial_share=1/<n>|- (the share the back-off leaves a path on probation)
 * probation=yes|no clean=<done>/<needed> probations=<times> faults=<since
 * load> stalls=<since load> history=<kind>:<age ms>,... (newest first,
 * the last max(probation_fails, PATH_HEALTH_HISTORY_MIN) faults; "-" for
 * none).
 */
void __path_health_show(struct seq_file *sf, const struct path_health *h,
			const struct probation_params *p)
{
	unsigned int i, n = min_t(unsigned int, h->nr_faults, h->ring_size);
	unsigned long now = jiffies;

	if (h->probation)
		seq_printf(sf, " trial_share=1/%u",
			   PROBATION_TRIAL_SHARE << __path_health_backoff(h, p));
	else
		seq_puts(sf, " trial_share=-");
	seq_printf(sf, " probation=%s clean=%u/%u probations=%u faults=%u stalls=%u history=",
		   h->probation ? "yes" : "no",
		   h->probation ? atomic_read(&h->clean_ios) : 0, p->clean_ios,
		   h->nr_probations, h->nr_faults, h->nr_stalls);
	if (!n)
		seq_putc(sf, '-');
	for (i = 0; i < n; i++) {
		unsigned int slot = ring_slot(h, i);

		seq_printf(sf, "%s%s:%u", i ? "," : "",
			   h->fault_stalls & BIT(slot) ? "stall" : "fail",
			   jiffies_to_msecs(now - h->fault_at[slot]));
	}
}
