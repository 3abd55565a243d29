// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: the historical-service-time path selector.
 *
 * Each path keeps a moving average of the time its I/Os took, weighted by
 * time: a long service time counts for more at once than a short one, so a
 * path that slows down is noticed quickly. Each I/O goes down the path
 * whose average times (1 + its I/Os in flight) is the smallest. Each path
 * also keeps its latency, the average time of one I/O from its start.
 *
 * A path is "fresh" for (number of usable paths x the shorter of its
 * average and its latency) after its last completion. A path gone stale
 * while idle gets one I/O as a probe, in case it has become faster since
 * it was last measured. A stale path that would win gets no more than its
 * share (as many I/Os in flight as the other) when it may be degraded:
 * overdue, with no completion for twice as long as its queue should take,
 * 2 x (1 + in flight) x its average. It also gets no more than its share
 * when the other path's I/Os take no longer each than its own (latency,
 * within 1/8): the average is per I/O as if served one after the other,
 * and a path that was given one I/O at a time (probes) measured its whole
 * latency that way, however many it could serve at once. Sharing lets it
 * show that.
 *
 * While the PG has one usable path there is no choice to make, and nothing
 * is measured (end_io_only_with_choice: the core does not call end_io):
 * the path's figures stay as they were, and go stale.
 *
 * Table: "historical-service-time <#args> [<base_weight>
 * [<threshold_multiplier>]]", per path [<repeat_count>].
 *  base_weight: 0-1023, the weight (in 1/1024) the old average keeps
 *	against a new sample of one time bucket (~16.8 ms); default 972
 *	(~0.95). 0 keeps no history.
 *  threshold_multiplier: paths whose averages differ by no more than this
 *	factor count as equally fast, and the one with fewer I/Os in flight
 *	is chosen; default 0 (0 and 1: any difference counts).
 *  repeat_count: accepted for old tables, shown in TABLE status; the
 *	choice is made for every I/O.
 */

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "dm-path-selector.h"
#include "dm-ps-path-list.h"

#define DM_MSG_PREFIX "multipath"

#define HST_VERSION		DM_MPATH_RELEASE
#define HST_REPEAT_COUNT	1

/* Averages are fixed point, nanoseconds << HST_SHIFT. */
#define HST_SHIFT		10
#define HST_ONE			BIT(HST_SHIFT)
#define HST_HALF		BIT(HST_SHIFT - 1)
/* Samples are capped so that a weighted sum cannot overflow 64 bits. */
#define HST_MAX_AVG		(U64_MAX >> (HST_SHIFT + 1))
#define HST_BASE_WEIGHT		972	/* ~0.95 in 1/1024 */

/*
 * A sample's weight depends on how long it took, in buckets of 2^24 ns
 * (~16.8 ms): bucket i keeps base_weight^(i + 1) of the old average. The
 * last bucket keeps none: a sample that long replaces the history.
 */
#define HST_BUCKET_SHIFT	24
#define HST_BUCKETS		64

/* (1 + in flight) * average overflows past this many in flight. */
#define HST_MAX_IN_FLIGHT	HST_ONE

struct hst_path {
	struct list_head list;	/* in hst_selector.paths */
	struct dm_path *path;
	unsigned int repeat_count;	/* as the table gave it, for TABLE status */

	/*
	 * The I/Os in flight are the core's (dm_path.in_flight,
	 * PS_COUNT_IOS), kept without a call into this module when an I/O
	 * starts.
	 */

	/*
	 * Protects what follows: updated by end_io (completion context)
	 * without the selector's lock, read by select_path under it.
	 */
	spinlock_t lock;
	u64 avg;		/* average service time, fixed point */
	u64 latency;		/* average time of one I/O, ns; 0: unmeasured */
	u64 last_finish;	/* ktime_get_ns() of the last completion */
	u64 fresh_until;	/* stale once ktime_get_ns() passes this */
};

/*
 * What select_path compares of a path, read at once under its lock: end_io
 * changes them together (in_flight is the core's and moves on its own).
 */
struct hst_snapshot {
	u64 avg;
	u64 latency;
	u64 in_flight;
	u64 last_finish;
	u64 fresh_until;
};

struct hst_selector {
	/* valid: least recently chosen first; nr_valid read by end_io. */
	struct ps_path_list paths;

	/* Fixed after the constructor. */
	unsigned int base_weight;
	unsigned int threshold_multiplier;
	unsigned int weights[HST_BUCKETS];	/* fixed point, 1/1024 */
};

static void hst_init_weights(struct hst_selector *s)
{
	u64 w = HST_ONE;
	int i;

	for (i = 0; i < HST_BUCKETS - 1; i++) {
		w = (w * s->base_weight + HST_HALF) >> HST_SHIFT;
		s->weights[i] = w;
	}
	s->weights[HST_BUCKETS - 1] = 0;
}

/* Selector args: [<base_weight> [<threshold_multiplier>]] */
static int hst_ctr(struct path_selector *ps, unsigned int argc, char **argv,
		   char **error)
{
	unsigned int base_weight = HST_BASE_WEIGHT;
	unsigned int threshold_multiplier = 0;
	struct hst_selector *s;

	if (argc > 2)
		return ps_refuse(error,
				  "historical-service-time: too many selector arguments (only <base_weight> <threshold_multiplier>)",
				  argv[2]);

	if (argc >= 1 && (kstrtouint(argv[0], 10, &base_weight) ||
			  base_weight >= HST_ONE))
		return ps_refuse(error,
				  "historical-service-time: invalid base_weight (0-1023)",
				  argv[0]);

	if (argc == 2 && kstrtouint(argv[1], 10, &threshold_multiplier))
		return ps_refuse(error,
				  "historical-service-time: invalid threshold_multiplier",
				  argv[1]);

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		*error = "historical-service-time: cannot allocate selector";
		return -ENOMEM;
	}

	ps_path_list_init(&s->paths);
	s->base_weight = base_weight;
	s->threshold_multiplier = threshold_multiplier;
	hst_init_weights(s);
	ps->context = s;

	return 0;
}

static void hst_free_path(struct list_head *entry)
{
	kfree(list_entry(entry, struct hst_path, list));
}

static void hst_dtr(struct path_selector *ps)
{
	struct hst_selector *s = ps->context;

	ps_path_list_free(&s->paths, hst_free_path);
	kfree(s);
	ps->context = NULL;
}

/* Per-path args: [<repeat_count>] */
static int hst_add_path(struct path_selector *ps, struct dm_path *path,
			int argc, char **argv, char **error)
{
	struct hst_selector *s = ps->context;
	unsigned int repeat_count = HST_REPEAT_COUNT;
	struct hst_path *pi;
	int r;

	if (argc > 1)
		return ps_refuse(error,
				  "historical-service-time: too many path arguments (only <repeat_count>)",
				  argv[1]);

	if (argc == 1 && kstrtouint(argv[0], 10, &repeat_count))
		return ps_refuse(error,
				  "historical-service-time: invalid repeat_count",
				  argv[0]);

	pi = kzalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi) {
		*error = "historical-service-time: cannot allocate path context";
		return -ENOMEM;
	}

	pi->path = path;
	pi->repeat_count = repeat_count;
	spin_lock_init(&pi->lock);
	/* 1 ns until measured: a new path is tried early. */
	pi->avg = HST_ONE;
	path->pscontext = pi;
	r = ps_path_list_add(&s->paths, &pi->list);
	if (r) {
		path->pscontext = NULL;
		kfree(pi);
		*error = "historical-service-time: cannot allocate path context";
	}

	return r;
}

static void hst_fail_path(struct path_selector *ps, struct dm_path *path)
{
	struct hst_selector *s = ps->context;
	struct hst_path *pi = path->pscontext;

	ps_path_list_fail(&s->paths, &pi->list);
}

static int hst_reinstate_path(struct path_selector *ps, struct dm_path *path)
{
	struct hst_selector *s = ps->context;
	struct hst_path *pi = path->pscontext;

	ps_path_list_reinstate(&s->paths, &pi->list);

	return 0;
}

static void hst_snapshot(struct hst_path *pi, struct hst_snapshot *snap)
{
	unsigned long flags;

	spin_lock_irqsave(&pi->lock, flags);
	snap->avg = pi->avg;
	snap->latency = pi->latency;
	snap->in_flight = atomic_read(&pi->path->in_flight);
	snap->last_finish = pi->last_finish;
	snap->fresh_until = pi->fresh_until;
	spin_unlock_irqrestore(&pi->lock, flags);
}

/* (1 + in flight) * average, the time a new I/O is expected to take. */
static void hst_estimates(const struct hst_snapshot *a,
			  const struct hst_snapshot *b, u64 *a_est, u64 *b_est)
{
	u64 a_avg = a->avg, b_avg = b->avg;

	/* Past ~1000 in flight the product could overflow: scale both. */
	if (unlikely(a->in_flight >= HST_MAX_IN_FLIGHT ||
		     b->in_flight >= HST_MAX_IN_FLIGHT)) {
		a_avg >>= HST_SHIFT;
		b_avg >>= HST_SHIFT;
	}
	*a_est = (1 + a->in_flight) * a_avg;
	*b_est = (1 + b->in_flight) * b_avg;
}

/*
 * Whether a stale path with I/O in flight is overdue: it completed nothing
 * for twice as long as its queue should take, 2 x (1 + in flight) x its
 * average. A path that serves its I/Os in parallel completes them in
 * bursts, with gaps of up to one whole service time between them (which
 * is about what its queue should take, and jitters): stale by the
 * freshness window in each gap, it is not slow for that.
 */
static bool hst_overdue(const struct hst_snapshot *p, u64 now)
{
	u64 queue_time;

	if (check_mul_overflow(2 * (1 + p->in_flight), p->avg >> HST_SHIFT,
			       &queue_time))
		return false;	/* no wait that long has happened */
	/* A completion since now was read: not overdue. */
	if (time_before64(now, p->last_finish))
		return false;
	return now - p->last_finish > queue_time;
}

/*
 * Whether a stale winner gets no more than its share against the loser:
 * it completed nothing for a while though it has I/O in flight (overdue),
 * and may have become slow; or the loser's I/Os are as quick as its own
 * (an unmeasured loser's too), and the loser may serve more at once than
 * its average says.
 */
static bool hst_share(const struct hst_snapshot *winner,
		      const struct hst_snapshot *loser, u64 now)
{
	return hst_overdue(winner, now) ||
	       loser->latency <= winner->latency + winner->latency / 8;
}

/*
 * Whether path a should get the next I/O rather than path b. Strictly
 * better only: on a tie the path chosen less recently keeps its turn.
 */
static bool hst_better(const struct hst_selector *s,
		       const struct hst_snapshot *a,
		       const struct hst_snapshot *b, u64 now)
{
	bool a_idle = !a->in_flight, b_idle = !b->in_flight;
	bool a_stale = a->fresh_until < now, b_stale = b->fresh_until < now;
	u64 fast = min(a->avg, b->avg), slow = max(a->avg, b->avg);
	u64 a_est, b_est, bound;
	bool a_wins;

	/*
	 * Averages within the threshold factor: the shorter queue wins. A
	 * product past 64 bits is a bound no average reaches: within too
	 * (with a huge multiplier and slow I/O, e.g. a loaded host).
	 */
	if (check_mul_overflow(fast, (u64)s->threshold_multiplier, &bound) ||
	    slow <= bound)
		return a->in_flight < b->in_flight;

	/*
	 * An idle stale path gets a probe; of two idle paths, the one stale
	 * the longest goes first.
	 */
	if ((a_idle && a_stale) || (b_idle && b_stale) || (a_idle && b_idle)) {
		if (a_idle != b_idle)
			return a_idle;
		return a->fresh_until < b->fresh_until;
	}

	hst_estimates(a, b, &a_est, &b_est);
	if (a_est == b_est)
		return false;
	a_wins = a_est < b_est;

	if (a_wins ? a_stale && hst_share(a, b, now) :
		     b_stale && hst_share(b, a, now))
		return a->in_flight < b->in_flight;

	return a_wins;
}

static struct hst_path *hst_soonest(struct hst_selector *s, u64 now)
{
	struct hst_snapshot snap, best_snap = {};
	struct hst_path *pi, *best = NULL;

	lockdep_assert_held(&s->paths.lock);

	list_for_each_entry(pi, &s->paths.valid, list) {
		hst_snapshot(pi, &snap);
		if (!best || hst_better(s, &snap, &best_snap, now)) {
			best = pi;
			best_snap = snap;
		}
	}

	return best;
}

/*
 * The choice among the usable paths, under the lists' lock. The core does
 * not ask while the PG has one usable path (the choice is forced), so this
 * runs only when there is a choice, or on the core's locked slow path.
 */
static struct dm_path *hst_choose(struct hst_selector *s)
{
	u64 now = ktime_get_ns();
	struct dm_path *path = NULL;
	struct hst_path *pi;
	unsigned long flags;

	spin_lock_irqsave(&s->paths.lock, flags);
	pi = hst_soonest(s, now);
	if (pi) {
		ps_path_list_rotate(&s->paths, &pi->list);
		path = pi->path;
	}
	spin_unlock_irqrestore(&s->paths.lock, flags);

	return path;
}

static struct dm_path *hst_select_path(struct path_selector *ps,
				       size_t nr_bytes,
				       unsigned int *repeat_count)
{
	struct hst_selector *s = ps->context;

	/* The estimate changes with every I/O: choose again for the next. */
	*repeat_count = 1;

	return hst_choose(s);
}

/*
 * The time the path spent on this I/O alone, as if it served its I/Os one
 * after the other: from the later of its last completion and the I/O's
 * start (io_time before now).
 */
static u64 hst_service_time(struct hst_path *pi, u64 io_time, u64 now)
{
	u64 st = io_time;

	lockdep_assert_held(&pi->lock);

	if (time_after64(pi->last_finish, now))
		st = 0;		/* a later completion was measured first */
	else
		st = min(st, now - pi->last_finish);
	pi->last_finish = now;

	return st;
}

/*
 * The I/O's own latency (lat) into the path's average, a quarter for the
 * new sample: a path given only probes gets one sample per probe, and must
 * show a recovery within tens of them.
 */
static void hst_update_latency(struct hst_path *pi, u64 lat)
{
	lockdep_assert_held(&pi->lock);

	if (!pi->latency)
		pi->latency = lat;
	else
		pi->latency = pi->latency - (pi->latency >> 2) + (lat >> 2);
}

/* The core has dropped this I/O from path->in_flight already. */
static int hst_end_io(struct path_selector *ps, struct dm_path *path,
		      size_t nr_bytes, u64 start_time)
{
	struct hst_selector *s = ps->context;
	struct hst_path *pi = path->pscontext;
	unsigned int nr_valid = READ_ONCE(s->paths.nr_valid);
	u64 st, sample, keep, answer, now = ktime_get_ns();
	u64 io_time = ps_time_since(start_time, now);
	unsigned long flags;

	spin_lock_irqsave(&pi->lock, flags);

	/* A bio never stamped (0: failed before it was sent) has no latency. */
	if (start_time)
		hst_update_latency(pi, io_time);
	st = hst_service_time(pi, io_time, now);
	sample = st < (HST_MAX_AVG >> HST_SHIFT) ? st << HST_SHIFT : HST_MAX_AVG;
	keep = s->weights[min_t(u64, st >> HST_BUCKET_SHIFT, HST_BUCKETS - 1)];
	pi->avg = (pi->avg * keep + sample * (HST_ONE - keep) + HST_HALF) >>
		  HST_SHIFT;
	/*
	 * Fresh for about as long as the path takes to answer: its average
	 * when busy, its latency when probed (which moves the faster).
	 */
	answer = pi->avg >> HST_SHIFT;
	if (pi->latency && pi->latency < answer)
		answer = pi->latency;
	pi->fresh_until = pi->last_finish + nr_valid * answer;

	spin_unlock_irqrestore(&pi->lock, flags);

	return 0;
}

static int hst_status(struct path_selector *ps, struct dm_path *path,
		      status_type_t type, char *result, unsigned int maxlen)
{
	struct hst_selector *s = ps->context;
	struct hst_snapshot snap;
	struct hst_path *pi;
	unsigned int sz = 0;

	if (!path) {
		/* Both status types show the selector's two arguments. */
		DMEMIT("2 %u %u ", s->base_weight, s->threshold_multiplier);
		return sz;
	}

	pi = path->pscontext;
	switch (type) {
	case STATUSTYPE_INFO:
		/* info_args = 3: average (ns << 10), in flight, fresh until */
		hst_snapshot(pi, &snap);
		DMEMIT("%llu %llu %llu ", snap.avg, snap.in_flight,
		       snap.fresh_until);
		break;
	case STATUSTYPE_TABLE:
		/* table_args = 1: the repeat_count */
		DMEMIT("%u ", pi->repeat_count);
		break;
	default:
		break;
	}

	return sz;
}

static struct path_selector_type hst_ps = {
	.name		= "historical-service-time",
	.module		= THIS_MODULE,
	.table_args	= 1,
	.info_args	= 3,
	.wants_start_time = true,
	/* With one usable path there is nothing to choose: no measuring. */
	.end_io_only_with_choice = true,
	.counts_in_flight = PS_COUNT_IOS,
	.ctr		= hst_ctr,
	.dtr		= hst_dtr,
	.add_path	= hst_add_path,
	.select_path	= hst_select_path,
	.fail_path	= hst_fail_path,
	.reinstate_path	= hst_reinstate_path,
	.status		= hst_status,
	.end_io		= hst_end_io,
};

module_path_selector(hst_ps, HST_VERSION);

MODULE_DESCRIPTION(DM_NAME " multipath path selector: shortest measured service time");
MODULE_LICENSE("GPL");
MODULE_VERSION(HST_VERSION);
