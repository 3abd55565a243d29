/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: path health and probation.
 *
 * Each path keeps a record of its recent faults (failures, and I/Os slower
 * than a bound: stalls). A path with probation_fails faults within
 * probation_window_secs is put on probation when it is reinstated (or at
 * once, if stalls bring it there while it is in use): the core then gives
 * it only a trial share of the I/O (one bio in PROBATION_TRIAL_SHARE) while
 * its priority group has a usable path that is not on probation, and takes
 * it off probation once probation_clean_ios of its I/Os have completed
 * cleanly. A fault during probation starts it again, and a trial that
 * fails (a trial bio that errors) also halves the path's trial share, down
 * to a floor, until its clean I/Os earn the share back (the back-off).
 *
 * This file keeps the record and decides; the core (dm-mpath.c) applies
 * the decisions to the path selector and the I/O, under the map's lock,
 * and calls the helpers below: those named "__" with that lock held, the
 * others without any lock (completion context included).
 */

#ifndef DM_MPATH_HEALTH_H
#define DM_MPATH_HEALTH_H

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/types.h>

/*
 * Faults each path remembers: probation_fails of them (all the decision
 * needs), and at least PATH_HEALTH_HISTORY_MIN for debugfs's history when
 * probation_fails is smaller or 0. Sized per map rather than at the most
 * probation_fails may be (32): a ring of 32 would put every path in
 * kmalloc-512, where the default one fits kmalloc-192 as Linux's own does.
 */
#define PATH_HEALTH_HISTORY_MIN		4

/* A path on probation gets one bio in this many (while it has company). */
#define PROBATION_TRIAL_SHARE		64

/*
 * The back-off of a path that keeps failing its trials. Each trial bio
 * that errors fails the path and costs a retried I/O; at a fixed share a
 * part that stays sick would pay that at every burst of errors for as long
 * as it is sick (multipathd's checker keeps reinstating it). So each
 * failed trial halves the path's trial share (1 in 64, 128, ... down to
 * 1 in PROBATION_TRIAL_SHARE << PROBATION_BACKOFF_MAX = 4096), and every
 * clean_ios / PROBATION_BACKOFF_EARN clean completions in a row earn one
 * halving back: a healed path regains its whole share within the first
 * 6/16 of the clean run it must complete anyway, while one that fails a
 * trial more often than once per 1/16 of that run keeps backing off. A
 * floor rather than none: the path must still be tried, or it could never
 * prove itself and leave probation. Reset when it leaves probation. Only
 * errors count: a stalled trial costs that bio's latency, not a retry.
 * A fixed policy, not a feature: it only acts on paths already judged
 * flaky, and scales with probation_clean_ios.
 */
#define PROBATION_BACKOFF_MAX		6
#define PROBATION_BACKOFF_EARN		16

/* The table features, their defaults and bounds (see the admin guide). */
#define PROBATION_FAILS_DEFAULT		3
#define PROBATION_FAILS_MAX		32
#define PROBATION_WINDOW_SECS_DEFAULT	60
#define PROBATION_WINDOW_SECS_MAX	86400
#define PROBATION_CLEAN_IOS_DEFAULT	1000
#define PROBATION_CLEAN_IOS_MAX		1000000
#define PROBATION_STALL_MSECS_DEFAULT	0
#define PROBATION_STALL_MSECS_MAX	600000

/* The map's probation features: fixed after the constructor. */
struct probation_params {
	unsigned int fails;		/* faults in the window; 0: feature off */
	unsigned int window_secs;
	unsigned int clean_ios;		/* to leave probation */
	unsigned int stall_msecs;	/* an I/O slower is a fault; 0: none */
};

enum path_fault {
	PATH_FAULT_FAIL,
	PATH_FAULT_STALL,
};

/*
 * The faults of the window, counted in PATH_HEALTH_BUCKETS buckets of
 * window / (PATH_HEALTH_BUCKETS - 1) each (rounded up), so that the newest
 * PATH_HEALTH_BUCKETS of them always cover the whole window: the count the
 * status and the log give stays whole however many faults the window had,
 * where the ring holds only the newest few (it may take in faults up to
 * one bucket older than the window; see count_recent()).
 */
#define PATH_HEALTH_BUCKETS		8

/* The record of one path. */
struct path_health {
	/*
	 * Read on every completion without a lock: whether the completion
	 * needs a closer look (path on probation; the stall bound in
	 * jiffies, 0 without one).
	 */
	bool probation;

	/* The fault ring's shape, fixed at the table load. */
	u8 ring_size;			/* slots in fault_at[] */

	/* Under the map's lock. */
	u8 fault_next;			/* ring slot the next fault takes */
	/* The back-off: level at the last failed trial (<= PROBATION_BACKOFF_MAX). */
	u8 backoff;
	u32 fault_stalls;		/* bit n: slot n holds a stall */

	unsigned long stall_jiffies;	/* read without a lock (above) */
	atomic_t clean_ios;		/* clean completions since probation (re)started */

	/* Under the map's lock. */
	u32 bucket_epoch;		/* jiffies / bucket width of the newest bucket */
	unsigned int nr_faults;		/* recorded since the table load */
	unsigned int nr_stalls;
	unsigned int nr_probations;	/* times put on probation */
	unsigned int trial_offers;	/* trial bios offered at the back-off */
	/* Why: the faults within the window when probation last (re)started. */
	u16 why_fails;
	u16 why_stalls;
	/* Faults per bucket, saturating; slot: epoch % PATH_HEALTH_BUCKETS. */
	u8 bucket_fails[PATH_HEALTH_BUCKETS];
	u8 bucket_stalls[PATH_HEALTH_BUCKETS];
	/* jiffies, a ring of ring_size slots: storage of the record's owner. */
	unsigned long *fault_at;
};

/* Slots the fault ring of a path of a map with these features needs. */
static inline unsigned int path_health_ring_size(const struct probation_params *p)
{
	return max_t(unsigned int, p->fails, PATH_HEALTH_HISTORY_MIN);
}

void probation_params_init(struct probation_params *p);
unsigned int probation_table_words(const struct probation_params *p);
unsigned int probation_emit_table(const struct probation_params *p,
				  char *result, unsigned int maxlen);

/* ring: path_health_ring_size(p) slots, zeroed, that outlive the record. */
void path_health_init(struct path_health *h, const struct probation_params *p,
		      unsigned long *ring);

/*
 * Record a fault; returns whether the path has reached probation_fails
 * faults within the window (it belongs on probation). A path already on
 * probation starts it again.
 */
bool __path_health_fault(struct path_health *h,
			 const struct probation_params *p, enum path_fault kind);

/* The path is being reinstated: does it go on probation? */
bool __path_health_due(struct path_health *h, const struct probation_params *p);

/* Put on (or start again) probation; map and dev name the log line. */
void __path_health_enter(struct path_health *h,
			 const struct probation_params *p, const char *map,
			 const char *dev);
void __path_health_leave(struct path_health *h, const char *map,
			 const char *dev);

/* Enough clean I/O to leave probation (under the lock: the final word). */
static inline bool __path_health_proven(struct path_health *h,
					const struct probation_params *p)
{
	return h->probation && atomic_read(&h->clean_ios) >= p->clean_ios;
}

/*
 * The back-off level now: the one the last failed trial left, less one
 * per clean_ios / PROBATION_BACKOFF_EARN clean completions since (the
 * clean run restarts at every fault, so it counts only those).
 */
static inline unsigned int __path_health_backoff(const struct path_health *h,
						 const struct probation_params *p)
{
	unsigned int earned = atomic_read(&h->clean_ios) /
			      max(p->clean_ios / PROBATION_BACKOFF_EARN, 1U);

	return h->backoff > earned ? h->backoff - earned : 0;
}

/*
 * A trial bio of the path (on probation, hidden from the selector) failed
 * it: one more halving of its trial share. Before the fault is recorded
 * (that restarts the clean run the level is reckoned from).
 */
void __path_health_trial_failed(struct path_health *h,
				const struct probation_params *p);

/* Does the path take this trial bio offered to it, at its back-off? */
bool __path_health_trial_take(struct path_health *h,
			      const struct probation_params *p);

/*
 * A bio sent down the path at issued (jiffies) completed, ok without
 * error. Returns what the core must look at under its lock: a stall
 * (PATH_HEALTH_STALL), or the completion that made the probation count
 * (PATH_HEALTH_PROVEN, once per probation). Inline, on every completion:
 * a healthy path without a stall bound pays two reads.
 */
enum path_health_news {
	PATH_HEALTH_NONE,
	PATH_HEALTH_STALL,
	PATH_HEALTH_PROVEN,
};

static __always_inline enum path_health_news
path_health_io_done(struct path_health *h, const struct probation_params *p,
		    unsigned long issued, bool ok)
{
	unsigned long stall = READ_ONCE(h->stall_jiffies);

	/* An error is the path's failure, not also a stall. */
	if (!ok)
		return PATH_HEALTH_NONE;
	if (unlikely(stall) && time_after(jiffies, issued + stall))
		return PATH_HEALTH_STALL;
	if (likely(!READ_ONCE(h->probation)))
		return PATH_HEALTH_NONE;
	if (atomic_inc_return(&h->clean_ios) == p->clean_ios)
		return PATH_HEALTH_PROVEN;
	return PATH_HEALTH_NONE;
}

/* Is this bio (of a map with a path on trial) one of the trial share? */
static __always_inline bool probation_trial_due(unsigned int __percpu *tick)
{
	return !(this_cpu_inc_return(*tick) % PROBATION_TRIAL_SHARE);
}

/* INFO status: the words of a path on probation (PATH_HEALTH_STATUS_WORDS). */
#define PATH_HEALTH_STATUS_WORDS	6
unsigned int __path_health_status(const struct path_health *h,
				  const struct probation_params *p,
				  const char *dev, char *result,
				  unsigned int maxlen);

/* debugfs: the record's key=value words, after the path's own. */
void __path_health_show(struct seq_file *sf, const struct path_health *h,
			const struct probation_params *p);

#endif
