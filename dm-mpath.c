// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath target ("multipath"), bio-based.
 *
 * The paths to one LUN are grouped into an ordered list of priority groups
 * (PGs). Each PG has a path selector that picks the path for each bio. A
 * bio that fails with a path error takes its path out of use and is sent
 * again, by a worker, down another path: the submitter never sees the
 * error. When the current PG has no usable path left the next PG is used,
 * bypassed PGs only as a last resort. With no usable path at all, bios are
 * queued (queue_if_no_path) until a path comes back, or failed.
 *
 * An optional hardware handler may have to initialise a PG before it can
 * take I/O (pg_init, e.g. a trespass): from the moment such a PG is chosen
 * until the handler reports completion, all I/O is held.
 */

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/device-mapper.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/part_stat.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "dm-mpath.h"
#include "dm-path-selector.h"
#include "dm-hw-handler.h"
#include "dm-mpath-uevent.h"
#include "dm-mpath-compat.h"
#include "dm-mpath-health.h"
#include "dm-mpath-stream.h"

#define DM_MSG_PREFIX "multipath"

/*
 * Locking: m->lock protects the map's state (see struct multipath). A
 * function whose name starts with "__" must be called with it held, and
 * asserts so. Selectors keep their own locks, always taken inside m->lock,
 * never around it.
 */

/* pg_init retries and their delay, as table features (Linux 6.1 limits). */
#define MPATH_PG_INIT_RETRIES_MAX	50
#define MPATH_PG_INIT_DELAY_MAX		60000
#define MPATH_PG_INIT_DELAY_DEFAULT	2000	/* ms, when the table sets none */
#define MPATH_PG_INIT_DELAY_UNSET	UINT_MAX
/* Upper bound of the per-map no-path queueing bound (a day). */
#define MPATH_NO_PATH_TIMEOUT_MAX	86400

/*
 * How long a map with queue_if_no_path holds I/O when no path is left,
 * unless its table sets its own bound: 0 means for ever (Linux 6.1's name
 * and meaning).
 */
static unsigned long queue_if_no_path_timeout_secs;

/* The same range as the table feature: a value past it is refused, not cut. */
static int no_path_timeout_param_set(const char *val,
				     const struct kernel_param *kp)
{
	unsigned long secs;
	int r = kstrtoul(val, 0, &secs);

	if (r || secs > MPATH_NO_PATH_TIMEOUT_MAX) {
		pr_warn("dm-multipath: queue_if_no_path_timeout_secs '%s' refused: must be 0 to %u\n",
			strim((char *)val), MPATH_NO_PATH_TIMEOUT_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned long *)kp->arg, secs);

	return 0;
}

static const struct kernel_param_ops no_path_timeout_param_ops = {
	.set = no_path_timeout_param_set,
	.get = param_get_ulong,
};
module_param_cb(queue_if_no_path_timeout_secs, &no_path_timeout_param_ops,
		&queue_if_no_path_timeout_secs, 0644);
MODULE_PARM_DESC(queue_if_no_path_timeout_secs,
		 "Seconds a map with queue_if_no_path holds I/O with no path before failing it (0 to 86400; 0: no bound; a table's queue_if_no_path_timeout_secs feature overrides)");

/* All feature words at once (see parse_features). */
#define MPATH_MAX_FEATURE_WORDS	18

/* Upper bound of every count in the table. */
#define MPATH_MAX_COUNT		1024

/*
 * Per-path I/O counts for monitoring (debugfs), per CPU so that the hot
 * path pays no shared cacheline and no atomic.
 */
struct path_counters {
	u64 sent;			/* bios sent down the path */
	u64 completed;			/* ... and completed, with or without error */
	u64 errors;			/* ... of them completed with an error */
};

/* A path and its place in the map. */
struct pgpath {
	struct list_head list;		/* in priority_group->pgpaths */
	struct priority_group *pg;
	struct path_counters __percpu *counters;
	unsigned int fail_count;	/* times this path was failed */
	bool hwh_added;			/* the handler's add_path took it */
	/*
	 * On probation, usable, and failed in the selector's eyes so that it
	 * chooses the PG's other paths: I/O reaches it only as the trial
	 * share (map_bio_trial). Written under m->lock; map() reads it
	 * without (a sequential stint does not continue onto it).
	 */
	bool ps_hidden;
	struct dm_path path;
	/* After path: its first words, read per completion, share path's cacheline. */
	struct path_health health;
	/* health.fault_at: its ring, as long as the map's probation_fails needs. */
	unsigned long fault_ring[];
};

#define path_to_pgpath(p) container_of((p), struct pgpath, path)

struct priority_group {
	struct list_head list;		/* in multipath->priority_groups */
	struct multipath *m;
	struct path_selector ps;
	unsigned int pg_num;		/* 1-based position in the table */
	bool bypassed;			/* use only when no other PG can */
	unsigned int nr_pgpaths;
	/* Usable ones; written under m->lock, read by end_io() without. */
	unsigned int nr_valid_pgpaths;
	struct list_head pgpaths;
	/* Paths hidden from the selector (on probation); under m->lock. */
	unsigned int nr_hidden;
	struct pgpath *trial_last;	/* the last to get a trial bio */
};

struct multipath {
	struct dm_target *ti;

	/*
	 * Read by map() without the lock. fast_pgpath: the path to send bios
	 * down while repeat_left lasts (a selector that gave a repeat_count
	 * other than 1). fast_pg: the PG whose selector map() asks itself for
	 * every bio (one that gave 1). At most one is set, and either only
	 * while I/O may go straight to the current PG (no pg_init pending),
	 * so the fast path can never reach an uninitialised PG. NULL makes
	 * map() take the lock. fast_sole_pgpath replaces fast_pg while that
	 * PG has one usable path: the selector's choice is forced, map()
	 * need not ask. The core's in-flight counts and start_io still see
	 * every bio; end_io too, except for a selector that set
	 * end_io_only_with_choice (see dm-path-selector.h).
	 */
	struct pgpath *fast_pgpath;
	struct priority_group *fast_pg;
	struct pgpath *fast_sole_pgpath;
	atomic_t repeat_left;
	/*
	 * The current PG while it has paths on probation: map() sends them
	 * their trial share (counted per CPU in trial_tick). Read without
	 * the lock, like the above.
	 */
	struct priority_group *fast_trial_pg;
	unsigned int __percpu *trial_tick;
	/* Where each CPU's last bio for fast_pg went (dm-mpath-stream.h). */
	struct mpath_stream __percpu *streams;

	/* Protects all that follows. Taken in bio completion context too. */
	spinlock_t lock;

	unsigned int nr_valid_paths;
	struct pgpath *current_pgpath;
	struct priority_group *current_pg;
	struct priority_group *next_pg;	/* initial PG, or switch_group */
	struct priority_group *last_pg;	/* last PG used, for PG events */

	bool per_io_select;		/* the current choice is for one bio */
	bool queue_io;			/* hold all I/O: PG not ready */
	bool pg_init_required;		/* the worker must start pg_init */
	/* Every path was lost: the next choice initialises even the same PG. */
	bool pg_reinit_required;
	bool pg_init_in_progress;	/* until dm_pg_init_complete() */
	bool pg_init_delayed;		/* a retry waits for pg_init_retry */
	bool pg_init_disabled;		/* suspended or dying: no new pg_init */
	/* The pg_init under way is a reinstated path's own, in the PG in use. */
	bool pg_init_reinstated;
	unsigned int pg_init_count;	/* failed attempts on the current PG */
	bool queue_if_no_path;
	bool suspending;		/* presuspend .. resume */
	/*
	 * postsuspend .. resume: the no-path bound's clock stands still
	 * (nothing arms its timer) from suspended_at on.
	 */
	bool suspended;
	unsigned long suspended_at;	/* jiffies */
	unsigned long no_path_since;	/* jiffies: when queueing began */

	struct bio_list queued_bios;
	unsigned int queue_size;
	/*
	 * Request-based: requests were put back to dm core's queue, to be
	 * mapped again after its requeue delay; the worker kicks them at once
	 * when the map can take them.
	 */
	bool requests_held;

	/* Fixed after the constructor. */
	unsigned int nr_priority_groups;
	struct list_head priority_groups;
	struct hw_handler hw_handler;
	unsigned int pg_init_retries;
	unsigned int pg_init_delay_msecs;	/* or MPATH_PG_INIT_DELAY_UNSET */
	bool retain_attached_hw_handler;	/* for the handler: hw_handler.retain_attached */
	bool queue_mode_bio;			/* "queue_mode bio" given */
	bool request_based;			/* "queue_mode rq" (or mq) */
	bool no_path_timeout_set;		/* the table's own bound... */
	unsigned int no_path_timeout_secs;	/* ...in seconds, 0: none */
	struct probation_params probation;	/* flaky paths (dm-mpath-health.h) */

	struct work_struct process_queued;	/* on kmpathd */
	struct work_struct trigger_event;	/* on system_wq */
	struct delayed_work pg_init_retry;	/* on kmpathd */
	struct timer_list no_path_timer;	/* bounds queue_if_no_path */
	wait_queue_head_t pg_init_wait;
	struct dentry *debugfs_paths;		/* while the table is live */
};

/*
 * Per-I/O context (ti->per_io_data_size): the path the bio (or, in a
 * request-based map, the request) went down and, for a bio, what the lower
 * layers may change in it, so that it can be sent again.
 * dm core's own record of this kind is private to it (linux-headers do
 * not carry it), hence ours. Not recorded: bi_end_io (a layer that takes
 * it over puts it back before calling it, so end_io finds dm core's own)
 * and __bi_remaining (1 on every clone dm core gives map(): bio_init()).
 */
struct mpath_io {
	struct pgpath *pgpath;		/* NULL while not sent down a path */
	struct mpath_start_stamp start;	/* if the kernel's bio has none */
	size_t nr_bytes;		/* as sent: in-flight bytes, selectors' end_io */
	unsigned long issued;		/* jiffies when sent: the stall bound */
	struct block_device *bi_bdev;
	struct bvec_iter bi_iter;
	unsigned short bi_flags;
	/*
	 * The bio's protection information, kept for a retry (the block
	 * layer frees the clone's own at completion): NULL for a bio without
	 * it, until the bio is first sent down a path.
	 */
	struct bio *integrity_keeper;
	bool had_integrity;
	/*
	 * select_path's repeat_count answer in map(): here rather than on
	 * map()'s stack, which would cost map() a stack-protector canary.
	 */
	unsigned int repeat;
	/*
	 * Request-based: when the clone was sent, for a selector that
	 * measures (a request has no stamp of the kind mpath_start_time()
	 * reads).
	 */
	u64 rq_start_ns;
};

/* What to do with a bio when no path is usable. */
enum no_path_action {
	NP_FAIL,
	NP_QUEUE,
	NP_PUSHBACK,
};

/*
 * Resubmission and pg_init; WQ_MEM_RECLAIM as it carries I/O. WQ_HIGHPRI:
 * a bio failed on a dead path waits in this queue for its reissue, and the
 * high-priority pool's worker runs ahead of the submitting task. Measured
 * (make bench, icount, 12 failovers): failed completion -> reissue median
 * 44 -> 27 us, the application's longest gap 236 -> 219 us (the distro's
 * request-based dm-multipath: 213 us).
 */
static struct workqueue_struct *kmpathd;

/* debugfs: dm-multipath/<major:minor> per live map (see path_stats_show). */
static struct dentry *debugfs_dir;

/* ---- Per-bio record ---- */

static void mpio_record(struct mpath_io *mpio, struct bio *bio)
{
	mpio->pgpath = NULL;
	mpio->bi_bdev = bio->bi_bdev;
	mpio->bi_iter = bio->bi_iter;
	mpio->bi_flags = bio->bi_flags;
	mpio->integrity_keeper = NULL;
	/* bio_integrity() is non-NULL exactly with this flag. */
	mpio->had_integrity = !!(bio->bi_opf & REQ_INTEGRITY);
}

static void mpio_restore(struct mpath_io *mpio, struct bio *bio)
{
	bio->bi_bdev = mpio->bi_bdev;
	bio->bi_iter = mpio->bi_iter;
	/* A lower layer that chained to it counted it down to 0. */
	atomic_set(&bio->__bi_remaining, 1);
	bio->bi_flags = mpio->bi_flags;
	/* Success does not clear bi_status: drop the old error ourselves. */
	bio->bi_status = BLK_STS_OK;
	mpio->pgpath = NULL;
}

/*
 * Protection information (DIF/DIX) and retries: the block layer frees a
 * clone's integrity payload when the clone completes, before our end_io
 * runs, so a bio sent again would go without it (Linux 6.1's bio-based
 * target does so, silently). When such a bio is first sent down a path a
 * copy of its payload (which refers to the caller's pages, not copied) is
 * kept on a bio of our own, and each retry takes a fresh copy of that. If
 * the copy cannot be made, a path error is returned to the caller rather
 * than retried without protection. Process context (map, the worker).
 */

/* to gets a payload of its own for from's protection information. */
static int copy_integrity(struct bio *to, struct bio *from)
{
	struct bio_integrity_payload *src = bio_integrity(from);
	struct bio_integrity_payload *bip;

	bip = bio_integrity_alloc(to, GFP_NOIO, src->bip_vcnt);
	if (IS_ERR(bip))
		return PTR_ERR(bip);

	memcpy(bip->bip_vec, src->bip_vec,
	       src->bip_vcnt * sizeof(*src->bip_vec));
	bip->bip_vcnt = src->bip_vcnt;
	bip->bip_iter = src->bip_iter;
	/* The pages are the submitter's: whoever allocated them frees them. */
	bip->bip_flags = src->bip_flags & ~BIP_BLOCK_INTEGRITY;

	return 0;
}

static noinline void mpio_keep_integrity(struct mpath_io *mpio,
					 struct bio *bio)
{
	struct bio *keeper = bio_kmalloc(0, GFP_NOIO);

	if (!keeper)
		return;
	bio_init(keeper, NULL, NULL, 0, 0);
	if (copy_integrity(keeper, bio)) {
		bio_uninit(keeper);
		kfree(keeper);
		return;
	}
	mpio->integrity_keeper = keeper;
}

/* The bio is done with (completed, or pushed back to dm core). */
static noinline void mpio_drop_integrity(struct mpath_io *mpio)
{
	bio_uninit(mpio->integrity_keeper);
	kfree(mpio->integrity_keeper);
	mpio->integrity_keeper = NULL;
}

/* Before a retry is sent: a fresh copy of the kept payload. */
static int mpio_restore_integrity(struct mpath_io *mpio, struct bio *bio)
{
	if (!mpio->integrity_keeper || bio_integrity(bio))
		return 0;

	return copy_integrity(bio, mpio->integrity_keeper);
}

/* ---- Allocation ---- */

static struct pgpath *alloc_pgpath(const struct probation_params *probation)
{
	unsigned int ring = path_health_ring_size(probation);
	struct pgpath *pgpath;

	/*
	 * A path of a map at the default probation_fails takes a
	 * kmalloc-192 object, as a path of Linux's own target does: a SAN
	 * host has thousands of them.
	 */
	BUILD_BUG_ON(struct_size_t(struct pgpath, fault_ring,
				   PATH_HEALTH_HISTORY_MIN) > 192);
	BUILD_BUG_ON(PROBATION_FAILS_DEFAULT > PATH_HEALTH_HISTORY_MIN);

	pgpath = kzalloc(struct_size(pgpath, fault_ring, ring), GFP_KERNEL);
	if (!pgpath)
		return NULL;

	pgpath->counters = alloc_percpu(struct path_counters);
	if (!pgpath->counters) {
		kfree(pgpath);
		return NULL;
	}
	pgpath->path.is_active = 1;

	return pgpath;
}

/* Undoes alloc_pgpath() and whatever parse_path() set up after it. */
static void free_pgpath(struct multipath *m, struct pgpath *pgpath)
{
	struct hw_handler *hwh = &m->hw_handler;

	if (pgpath->hwh_added)
		hwh->type->del_path(hwh, &pgpath->path);
	if (pgpath->path.dev)
		dm_put_device(m->ti, pgpath->path.dev);
	free_percpu(pgpath->counters);
	kfree(pgpath);
}

static struct priority_group *alloc_priority_group(struct multipath *m)
{
	struct priority_group *pg = kzalloc(sizeof(*pg), GFP_KERNEL);

	if (pg) {
		pg->m = m;
		INIT_LIST_HEAD(&pg->pgpaths);
	}

	return pg;
}

static void free_priority_group(struct priority_group *pg)
{
	struct pgpath *pgpath, *tmp;

	/* The selector refers to the paths: tear it down first. */
	if (pg->ps.type) {
		pg->ps.type->dtr(&pg->ps);
		dm_put_path_selector(pg->ps.type);
	}

	list_for_each_entry_safe(pgpath, tmp, &pg->pgpaths, list) {
		list_del(&pgpath->list);
		free_pgpath(pg->m, pgpath);
	}

	kfree(pg);
}

static void process_queued_bios(struct work_struct *work);
static void kick_held_requests(struct multipath *m);
static void trigger_event(struct work_struct *work);
static void pg_init_retry_work(struct work_struct *work);
static void no_path_timeout(struct timer_list *t);

static struct multipath *alloc_multipath(struct dm_target *ti)
{
	struct multipath *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return NULL;

	m->trial_tick = alloc_percpu(unsigned int);
	if (!m->trial_tick) {
		kfree(m);
		return NULL;
	}
	m->streams = mpath_streams_alloc();
	if (!m->streams) {
		free_percpu(m->trial_tick);
		kfree(m);
		return NULL;
	}

	m->ti = ti;
	probation_params_init(&m->probation);
	spin_lock_init(&m->lock);
	atomic_set(&m->repeat_left, 0);
	bio_list_init(&m->queued_bios);
	INIT_LIST_HEAD(&m->priority_groups);
	m->pg_init_delay_msecs = MPATH_PG_INIT_DELAY_UNSET;
	INIT_WORK(&m->process_queued, process_queued_bios);
	INIT_WORK(&m->trigger_event, trigger_event);
	INIT_DELAYED_WORK(&m->pg_init_retry, pg_init_retry_work);
	timer_setup(&m->no_path_timer, no_path_timeout, 0);
	init_waitqueue_head(&m->pg_init_wait);

	return m;
}

static void free_multipath(struct multipath *m)
{
	struct priority_group *pg, *tmp;
	struct hw_handler *hwh = &m->hw_handler;

	/* The paths go first: the handler's del_path still needs it. */
	list_for_each_entry_safe(pg, tmp, &m->priority_groups, list) {
		list_del(&pg->list);
		free_priority_group(pg);
	}

	if (hwh->type) {
		hwh->type->dtr(hwh);
		dm_put_hw_handler(hwh->type);
	}

	free_percpu(m->trial_tick);
	mpath_streams_free(m->streams);
	kfree(m);
}

/* ---- Path selection; all with m->lock held ---- */

static void __kick(struct multipath *m)
{
	lockdep_assert_held(&m->lock);
	queue_work(kmpathd, &m->process_queued);
}

/* dm_table_event() takes a mutex: always from a work item. */
static void __queue_event(struct multipath *m)
{
	lockdep_assert_held(&m->lock);
	schedule_work(&m->trigger_event);
}

/*
 * Called whenever the current choice, queue_io or a PG's usable paths
 * change (all under m->lock).
 */
static void __update_fast_path(struct multipath *m)
{
	bool direct = !m->queue_io && m->current_pgpath;
	struct priority_group *pg = direct ? m->current_pgpath->pg : NULL;
	bool per_io = direct && m->per_io_select;
	/* Paths on probation are not the selector's to choose. */
	bool sole = per_io && pg->nr_valid_pgpaths - pg->nr_hidden == 1;

	lockdep_assert_held(&m->lock);
	WRITE_ONCE(m->fast_pgpath,
		   direct && !m->per_io_select ? m->current_pgpath : NULL);
	WRITE_ONCE(m->fast_pg, per_io && !sole ? m->current_pg : NULL);
	WRITE_ONCE(m->fast_sole_pgpath, sole ? m->current_pgpath : NULL);
	WRITE_ONCE(m->fast_trial_pg, pg && pg->nr_hidden ? pg : NULL);
}

/* Make pg the PG in use: the PG change event, and its pg_init if any. */
static void __switch_pg(struct multipath *m, struct priority_group *pg)
{
	struct hw_handler_type *hwht = m->hw_handler.type;

	lockdep_assert_held(&m->lock);
	m->current_pg = pg;
	m->pg_reinit_required = false;
	if (m->last_pg && m->last_pg != pg)
		__queue_event(m);
	m->last_pg = pg;

	/* A PG that needs initialising gets no I/O until that is done. */
	m->pg_init_required = hwht && hwht->pg_init;
	m->pg_init_reinstated = false;
	m->pg_init_count = 0;
	m->queue_io = m->pg_init_required;
}

/* The selector chose pgpath for repeat bios: make it the current choice. */
static void __set_current_pgpath(struct multipath *m, struct pgpath *pgpath,
				 unsigned int repeat)
{
	lockdep_assert_held(&m->lock);
	m->current_pgpath = pgpath;
	m->per_io_select = repeat == 1;

	/*
	 * The bio that made this choice is the first of the budget;
	 * 0 means use the path until it fails.
	 */
	atomic_set(&m->repeat_left,
		   repeat ? min_t(unsigned int, repeat - 1, INT_MAX) : INT_MAX);

	if (m->current_pg != pgpath->pg || m->pg_reinit_required)
		__switch_pg(m, pgpath->pg);
}

static bool __choose_path_in_pg(struct multipath *m, struct priority_group *pg,
				size_t nr_bytes)
{
	unsigned int repeat = 0;
	struct dm_path *path;

	lockdep_assert_held(&m->lock);
	path = pg->ps.type->select_path(&pg->ps, nr_bytes, &repeat);
	if (!path)
		return false;

	__set_current_pgpath(m, path_to_pgpath(path), repeat);

	return true;
}

static struct pgpath *__choose_pgpath(struct multipath *m, size_t nr_bytes)
{
	struct priority_group *pg;
	bool bypassed;

	lockdep_assert_held(&m->lock);
	if (!m->nr_valid_paths)
		goto failed;

	/* An explicit switch_group (or the table's initial PG) comes first. */
	if (m->next_pg) {
		pg = m->next_pg;
		m->next_pg = NULL;
		if (__choose_path_in_pg(m, pg, nr_bytes))
			goto out;
	}

	/* Otherwise stay in the current PG while it has a usable path. */
	if (m->current_pg && __choose_path_in_pg(m, m->current_pg, nr_bytes))
		goto out;

	/*
	 * Walk the PGs in table order: first those not bypassed, then, as a
	 * last resort, only the bypassed ones.
	 */
	bypassed = false;
	do {
		list_for_each_entry(pg, &m->priority_groups, list) {
			if (pg->bypassed != bypassed)
				continue;
			if (__choose_path_in_pg(m, pg, nr_bytes))
				goto out;
		}
		bypassed = !bypassed;
	} while (bypassed);

failed:
	m->current_pgpath = NULL;
	m->current_pg = NULL;
out:
	__update_fast_path(m);
	return m->current_pgpath;
}

static enum no_path_action __no_path_action(struct multipath *m)
{
	lockdep_assert_held(&m->lock);

	/* A noflush suspend keeps I/O: dm core holds it for the next table. */
	if (dm_noflush_suspending(m->ti))
		return NP_PUSHBACK;

	/* A flush suspend must be able to complete: it ends queueing. */
	if (m->queue_if_no_path && !m->suspending)
		return NP_QUEUE;

	return NP_FAIL;
}

/* Is I/O waiting that the worker could move on (queued, or held back)? */
static bool __io_waiting(struct multipath *m)
{
	lockdep_assert_held(&m->lock);
	return m->queue_size || m->requests_held;
}

static void __queue_bio(struct multipath *m, struct bio *bio)
{
	lockdep_assert_held(&m->lock);
	bio_list_add(&m->queued_bios, bio);
	m->queue_size++;
}

/* Can the worker make progress with the queued bios now? */
static bool __can_dispatch(struct multipath *m)
{
	lockdep_assert_held(&m->lock);
	if (dm_noflush_suspending(m->ti))
		return true;	/* push them back */

	if (m->nr_valid_paths)
		return !m->queue_io;

	return __no_path_action(m) != NP_QUEUE;
}

/* ---- Bounded queueing with no path ---- */

/* The bound in force for this map, in seconds; 0: none. */
static unsigned long no_path_timeout_secs(struct multipath *m)
{
	if (m->no_path_timeout_set)
		return m->no_path_timeout_secs;

	return READ_ONCE(queue_if_no_path_timeout_secs);
}

static bool __queueing_with_no_path(struct multipath *m)
{
	lockdep_assert_held(&m->lock);
	return m->queue_if_no_path && !m->nr_valid_paths;
}

/*
 * The map has just started (or may have started) to queue for want of a
 * path: note when, and arm the bound. A timer already running keeps its
 * deadline.
 */
static void __start_no_path_timer(struct multipath *m)
{
	/* Both sources are within 0..MPATH_NO_PATH_TIMEOUT_MAX (ctr, param set). */
	unsigned long secs = no_path_timeout_secs(m);

	lockdep_assert_held(&m->lock);
	if (!__queueing_with_no_path(m) || timer_pending(&m->no_path_timer) ||
	    m->suspended)
		return;

	if (!m->no_path_since)
		m->no_path_since = jiffies ? jiffies : 1;
	if (secs)
		mod_timer(&m->no_path_timer, m->no_path_since + secs * HZ);
}

/* Queueing ended (a path is back, or queue_if_no_path is off). */
static void __stop_no_path_timer(struct multipath *m)
{
	lockdep_assert_held(&m->lock);
	m->no_path_since = 0;
	/* Not _sync: the timer takes m->lock, and sees the state changed. */
	timer_delete(&m->no_path_timer);
}

static void __set_queue_if_no_path(struct multipath *m, bool queue)
{
	lockdep_assert_held(&m->lock);
	m->queue_if_no_path = queue;
	if (queue) {
		__start_no_path_timer(m);
	} else {
		__stop_no_path_timer(m);
		/* Without queueing, I/O waiting for a path fails now. */
		if (__io_waiting(m))
			__kick(m);
	}
}

static void no_path_timeout(struct timer_list *t)
{
	struct multipath *m = timer_container_of(m, t, no_path_timer);
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (__queueing_with_no_path(m)) {
		DMWARN("queue_if_no_path timeout on %s, failing queued IO (no path %lu s, %u I/O)",
		       dm_table_device_name(m->ti->table),
		       (jiffies - m->no_path_since) / HZ, m->queue_size);
		__set_queue_if_no_path(m, false);
		__queue_event(m);
	}
	spin_unlock_irqrestore(&m->lock, flags);
}

/* ---- Path probation (the record and the decisions: dm-mpath-health.c) ---- */

/*
 * The usable paths of pg on probation are hidden from its selector while
 * it has a usable path that is not on probation, and shown to it
 * otherwise: the last usable path is always used. After every change of a
 * path's state or probation; the caller updates the fast path.
 */
static void __probation_balance(struct multipath *m, struct priority_group *pg)
{
	struct path_selector *ps = &pg->ps;
	bool healthy = false;
	struct pgpath *p;

	lockdep_assert_held(&m->lock);
	list_for_each_entry(p, &pg->pgpaths, list) {
		if (p->path.is_active && !p->health.probation) {
			healthy = true;
			break;
		}
	}

	list_for_each_entry(p, &pg->pgpaths, list) {
		bool hide = healthy && p->health.probation;

		if (!p->path.is_active || hide == p->ps_hidden)
			continue;
		if (hide) {
			ps->type->fail_path(ps, &p->path);
			/* A choice for repeat bios must not stay on it. */
			if (m->current_pgpath == p && !m->queue_io)
				m->current_pgpath = NULL;
		} else if (ps->type->reinstate_path(ps, &p->path)) {
			DMERR("%s: path selector refused path %s back from probation",
			      dm_table_device_name(m->ti->table),
			      p->path.dev->name);
			continue;
		}
		WRITE_ONCE(p->ps_hidden, hide);
		pg->nr_hidden += hide ? 1 : -1;
	}
}

static void __probation_enter(struct multipath *m, struct pgpath *pgpath)
{
	lockdep_assert_held(&m->lock);
	__path_health_enter(&pgpath->health, &m->probation,
			    dm_table_device_name(m->ti->table),
			    pgpath->path.dev->name);
	__queue_event(m);
}

static void __probation_leave(struct multipath *m, struct pgpath *pgpath)
{
	lockdep_assert_held(&m->lock);
	__path_health_leave(&pgpath->health, dm_table_device_name(m->ti->table),
			    pgpath->path.dev->name);
	__probation_balance(m, pgpath->pg);
	__update_fast_path(m);
	__queue_event(m);
}

/*
 * A completion told something (path_health_io_done): a stall, or the
 * clean I/O that completes a probation. Rare: takes the lock.
 */
static noinline void probation_io_news(struct multipath *m,
				       struct pgpath *pgpath,
				       enum path_health_news news)
{
	struct path_health *h = &pgpath->health;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (news == PATH_HEALTH_STALL) {
		/* A path in use whose stalls reach the count: at once. */
		if (__path_health_fault(h, &m->probation, PATH_FAULT_STALL) &&
		    pgpath->path.is_active && !h->probation) {
			__probation_enter(m, pgpath);
			__probation_balance(m, pgpath->pg);
			__update_fast_path(m);
		}
	} else if (__path_health_proven(h, &m->probation) &&
		   pgpath->path.is_active) {
		__probation_leave(m, pgpath);
	}
	spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * The next path of pg hidden on probation, in turn, that takes the trial
 * bio at its back-off (__path_health_trial_take); NULL if none does (the
 * bio then goes the selector's way).
 */
static struct pgpath *__next_trial_pgpath(struct multipath *m,
					  struct priority_group *pg)
{
	struct pgpath *p = pg->trial_last;
	unsigned int i;

	lockdep_assert_held(&m->lock);
	if (!p)
		p = list_last_entry(&pg->pgpaths, struct pgpath, list);
	for (i = 0; i < pg->nr_pgpaths; i++) {
		p = list_is_last(&p->list, &pg->pgpaths) ?
		    list_first_entry(&pg->pgpaths, struct pgpath, list) :
		    list_next_entry(p, list);
		if (p->ps_hidden) {
			pg->trial_last = p;
			if (__path_health_trial_take(&p->health, &m->probation))
				return p;
		}
	}

	return NULL;
}

/* ---- Path state ---- */

static void __fail_path(struct multipath *m, struct pgpath *pgpath)
{
	struct priority_group *pg = pgpath->pg;

	lockdep_assert_held(&m->lock);
	if (!pgpath->path.is_active)
		return;

	DMWARN("%s: Failing path %s.",
	       dm_table_device_name(m->ti->table), pgpath->path.dev->name);

	/* A path on probation is failed in the selector already. */
	if (pgpath->ps_hidden) {
		WRITE_ONCE(pgpath->ps_hidden, false);
		pg->nr_hidden--;
	} else {
		pg->ps.type->fail_path(&pg->ps, &pgpath->path);
	}
	pgpath->path.is_active = 0;
	pgpath->fail_count++;
	WRITE_ONCE(pg->nr_valid_pgpaths, pg->nr_valid_pgpaths - 1);
	m->nr_valid_paths--;
	/* Counted now, judged when the path is reinstated. */
	__path_health_fault(&pgpath->health, &m->probation, PATH_FAULT_FAIL);
	/* Its PG may have lost the last path not on probation. */
	__probation_balance(m, pg);

	if (pgpath == m->current_pgpath)
		m->current_pgpath = NULL;
	/*
	 * After losing every path, initialise the PG again before its next
	 * use (the array may have moved the LUN meanwhile), but keep it as
	 * the current PG: as in Linux 6.1, only an I/O that finds no path
	 * makes the map choose from the first PG again.
	 */
	if (!m->nr_valid_paths) {
		m->pg_reinit_required = true;
		__start_no_path_timer(m);
	}
	__update_fast_path(m);

	dm_path_uevent(DM_UEVENT_PATH_FAILED, m->ti, pgpath->path.dev->name,
		       m->nr_valid_paths);
	__queue_event(m);
}

/*
 * A path back in the PG in use gets a pg_init of its own, through it, before
 * it carries I/O, as Linux 6.1's reinstate_path activates it: e.g. a port of
 * the owning SP that was down while the LUN moved there, which an attached
 * scsi_dh still calls passive (it would reject every I/O, and the path
 * would be failed and reinstated in a loop). I/O is held meanwhile, as for
 * any pg_init. Not needed for the first path back after a total loss (the
 * PG is initialised again anyway), nor while the PG's own pg_init is still
 * to come or under way (queue_io).
 */
static void __pg_init_reinstated(struct multipath *m, struct pgpath *pgpath)
{
	struct hw_handler_type *hwht = m->hw_handler.type;

	lockdep_assert_held(&m->lock);
	if (!hwht || !hwht->pg_init || m->queue_io || m->pg_reinit_required ||
	    pgpath->pg != m->current_pg)
		return;

	m->current_pgpath = pgpath;
	m->pg_init_required = true;
	m->pg_init_reinstated = true;
	m->pg_init_count = 0;
	m->queue_io = true;
	__update_fast_path(m);
	__kick(m);
}

static int __reinstate_path(struct multipath *m, struct pgpath *pgpath)
{
	struct path_selector *ps = &pgpath->pg->ps;
	int r;

	lockdep_assert_held(&m->lock);
	if (pgpath->path.is_active)
		return 0;

	r = ps->type->reinstate_path(ps, &pgpath->path);
	if (r)
		return r;

	DMWARN("%s: Reinstating path %s.",
	       dm_table_device_name(m->ti->table), pgpath->path.dev->name);

	pgpath->path.is_active = 1;
	WRITE_ONCE(pgpath->pg->nr_valid_pgpaths,
		   pgpath->pg->nr_valid_pgpaths + 1);
	m->nr_valid_paths++;
	__stop_no_path_timer(m);

	if (__path_health_due(&pgpath->health, &m->probation))
		__probation_enter(m, pgpath);
	__probation_balance(m, pgpath->pg);

	/* Let the selector consider the path at the next choice. */
	if (!m->queue_io) {
		m->current_pgpath = NULL;
		__update_fast_path(m);
	}
	__pg_init_reinstated(m, pgpath);

	if (__io_waiting(m))
		__kick(m);

	dm_path_uevent(DM_UEVENT_PATH_REINSTATED, m->ti,
		       pgpath->path.dev->name, m->nr_valid_paths);
	__queue_event(m);

	return 0;
}

/*
 * The PG states changed (bypass, switch_group): forget the current choice so
 * the next bio chooses again from the top, and let queued bios try it.
 */
static void __choose_again(struct multipath *m)
{
	lockdep_assert_held(&m->lock);
	m->current_pgpath = NULL;
	m->current_pg = NULL;
	__update_fast_path(m);

	if (__io_waiting(m))
		__kick(m);
	__queue_event(m);
}

static void __set_pg_bypassed(struct multipath *m, struct priority_group *pg,
			      bool bypassed)
{
	lockdep_assert_held(&m->lock);
	pg->bypassed = bypassed;
	__choose_again(m);
}

/*
 * What a hardware handler's MP_FAIL_PATH and MP_BYPASS_PG mean, for a failed
 * bio and a failed pg_init alike: the one place they are applied.
 * MP_ERROR_IO is the caller's (the bio, or the bios held for the PG).
 */
static void __apply_err_flags(struct multipath *m, struct pgpath *pgpath,
			      unsigned int err_flags)
{
	lockdep_assert_held(&m->lock);
	if (err_flags & MP_FAIL_PATH)
		__fail_path(m, pgpath);

	if ((err_flags & MP_BYPASS_PG) && !pgpath->pg->bypassed)
		__set_pg_bypassed(m, pgpath->pg, true);
}

/* ---- Mapping and the worker ---- */

static int __no_path(struct multipath *m, struct bio *bio)
{
	lockdep_assert_held(&m->lock);
	switch (__no_path_action(m)) {
	case NP_QUEUE:
		__queue_bio(m, bio);
		return DM_MAPIO_SUBMITTED;
	case NP_PUSHBACK:
		return DM_MAPIO_REQUEUE;
	default:
		return DM_MAPIO_KILL;
	}
}

/*
 * An I/O of nr_bytes goes down pgpath: its in-flight counts, and the
 * selector's start_io, for a bio and a request alike.
 */
static __always_inline void path_start_io(struct pgpath *pgpath,
					  size_t nr_bytes)
{
	struct path_selector *ps = &pgpath->pg->ps;
	const struct path_selector_type *pst = ps->type;
	unsigned int counts = pst->counts_in_flight;

	if (counts & PS_COUNT_IOS)
		atomic_inc(&pgpath->path.in_flight);
	if (counts & PS_COUNT_BYTES)
		atomic64_add(nr_bytes, &pgpath->path.in_flight_bytes);
	if (pst->start_io)
		pst->start_io(ps, &pgpath->path, nr_bytes);
}

/*
 * The bio goes down pgpath: tell the selector, if it wants to know. Inline:
 * it is on every bio's way, and map()'s fast path is most of them.
 */
static __always_inline void start_io(struct pgpath *pgpath,
				     struct mpath_io *mpio, struct bio *bio)
{
	size_t nr_bytes = bio->bi_iter.bi_size;

	mpio->pgpath = pgpath;
	mpio->nr_bytes = nr_bytes;
	mpio->issued = jiffies;
	if (unlikely(mpio->had_integrity) && !mpio->integrity_keeper)
		mpio_keep_integrity(mpio, bio);
	bio_set_dev(bio, pgpath->path.dev->bdev);
	this_cpu_inc(pgpath->counters->sent);

	/* The clock only for a selector that measures (else unused). */
	if (pgpath->pg->ps.type->wants_start_time)
		mpath_stamp_start(&mpio->start);
	path_start_io(pgpath, nr_bytes);
}

/*
 * When the bio was sent, for a selector's end_io (DM_MPATH_TIME_MASK
 * bits). Where the block layer stamps each bio it is given (6.1:
 * submit_bio_noacct) it reads the clock for that anyway, and the core need
 * not read it again; elsewhere start_io() stamped it (dm-mpath-compat.h).
 * A bio failed before the stamp has 0 or an older one: selectors bound
 * the time by their own (historical-service-time: its last completion).
 * A request (bio NULL) has the stamp start_request_io() took.
 */
static __always_inline u64 io_start_time(struct mpath_io *mpio,
					 struct bio *bio)
{
	if (!bio)
		return mpio->rq_start_ns & DM_MPATH_TIME_MASK;

	return mpath_start_time(&mpio->start, bio);
}

/*
 * The I/O sent down pgpath by start_io() (bio) or start_request_io()
 * (request, bio NULL) has completed, or was never sent after all: undo
 * its counts. The caller counts it as completed (or as not sent).
 */
static __always_inline void end_io(struct pgpath *pgpath,
				   struct mpath_io *mpio, struct bio *bio)
{
	struct path_selector *ps = &pgpath->pg->ps;
	const struct path_selector_type *pst = ps->type;
	unsigned int counts = pst->counts_in_flight;

	if (counts & PS_COUNT_IOS)
		atomic_dec(&pgpath->path.in_flight);
	if (counts & PS_COUNT_BYTES)
		atomic64_sub(mpio->nr_bytes, &pgpath->path.in_flight_bytes);
	/* The selector keeps its own state safe: no lock of ours. */
	if (pst->end_io &&
	    (!pst->end_io_only_with_choice ||
	     READ_ONCE(pgpath->pg->nr_valid_pgpaths) > 1))
		pst->end_io(ps, &pgpath->path, mpio->nr_bytes,
			    pst->wants_start_time ? io_start_time(mpio, bio) : 0);
}

/*
 * The path for the next I/O of nr_bytes under the lock: the current choice
 * while its repeat_count lasts, else the selector's. NULL when no path is
 * usable, or when I/O must wait for the PG's pg_init (queue_io, which a
 * choice of a new PG may have just set: the caller tells the two apart).
 */
static struct pgpath *__map_choose(struct multipath *m, size_t nr_bytes)
{
	struct pgpath *pgpath;

	lockdep_assert_held(&m->lock);
	if (m->queue_io || !m->nr_valid_paths)
		return NULL;

	pgpath = m->current_pgpath;
	if (!pgpath || atomic_dec_return(&m->repeat_left) < 0)
		pgpath = __choose_pgpath(m, nr_bytes);

	return m->queue_io ? NULL : pgpath;
}

/*
 * The path on probation in the PG in use that takes the next trial I/O, if
 * the map is still as map() saw it; NULL otherwise (the I/O is then mapped
 * as any other).
 */
static struct pgpath *__map_trial_pgpath(struct multipath *m)
{
	lockdep_assert_held(&m->lock);
	if (m->queue_io || m->pg_reinit_required || !m->current_pgpath ||
	    !m->current_pg || !m->current_pg->nr_hidden)
		return NULL;

	return __next_trial_pgpath(m, m->current_pg);
}

/*
 * Mapping when map()'s lockless fast path cannot be used, and for the
 * worker: takes m->lock. Returns a DM_MAPIO_* value. Out of line, as is
 * map_bio_chosen(): map() then keeps fewer registers on every bio.
 */
static noinline int map_bio_slow_path(struct multipath *m, struct bio *bio,
				      struct mpath_io *mpio)
{
	struct pgpath *pgpath;
	unsigned long flags;
	int r;

	spin_lock_irqsave(&m->lock, flags);

	pgpath = __map_choose(m, bio->bi_iter.bi_size);
	if (m->queue_io && m->nr_valid_paths) {
		/* Held until the PG is initialised. */
		if (dm_noflush_suspending(m->ti)) {
			r = DM_MAPIO_REQUEUE;
		} else {
			__queue_bio(m, bio);
			if (!m->pg_init_in_progress)
				__kick(m);
			r = DM_MAPIO_SUBMITTED;
		}
	} else if (!pgpath) {
		r = __no_path(m, bio);
	} else {
		r = DM_MAPIO_REMAPPED;
	}

	spin_unlock_irqrestore(&m->lock, flags);

	if (r == DM_MAPIO_REMAPPED)
		start_io(pgpath, mpio, bio);

	return r;
}

/*
 * map() asked the selector without the lock and got a path to use for
 * repeat bios: install that choice under the lock, unless the map changed
 * meanwhile (then choose again).
 */
static noinline int map_bio_chosen(struct multipath *m, struct bio *bio,
				   struct mpath_io *mpio, struct pgpath *pgpath,
				   unsigned int repeat)
{
	unsigned long flags;
	bool usable;

	spin_lock_irqsave(&m->lock, flags);
	/*
	 * pg_reinit_required: every path was lost meanwhile, and the PG must
	 * be initialised again before it takes I/O (the slow path switches
	 * to it, which holds I/O for its pg_init).
	 */
	usable = !m->queue_io && !m->pg_reinit_required &&
		 pgpath->path.is_active && !pgpath->ps_hidden &&
		 m->current_pg == pgpath->pg;
	if (usable) {
		__set_current_pgpath(m, pgpath, repeat);
		__update_fast_path(m);
	}
	spin_unlock_irqrestore(&m->lock, flags);

	if (!usable)
		return map_bio_slow_path(m, bio, mpio);

	start_io(pgpath, mpio, bio);
	return DM_MAPIO_REMAPPED;
}

/*
 * A bio of the trial share: to the next path on probation of the PG in use,
 * if that is still what map() saw; otherwise mapped as any other.
 */
static noinline int map_bio_trial(struct multipath *m, struct bio *bio,
				  struct mpath_io *mpio)
{
	struct pgpath *pgpath;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	pgpath = __map_trial_pgpath(m);
	spin_unlock_irqrestore(&m->lock, flags);

	if (!pgpath)
		return map_bio_slow_path(m, bio, mpio);

	start_io(pgpath, mpio, bio);
	return DM_MAPIO_REMAPPED;
}

static int multipath_map(struct dm_target *ti, struct bio *bio)
{
	struct multipath *m = ti->private;
	struct mpath_io *mpio = dm_per_bio_data(bio, sizeof(*mpio));
	struct priority_group *pg;
	struct pgpath *pgpath;

	mpio_record(mpio, bio);
	/*
	 * For multipath_end_io(): dm_per_bio_data() is a call into dm core
	 * on every I/O. The clone's bi_private is ours to use (dm core sets
	 * none on clones, and lower layers put back what they change before
	 * calling bi_end_io).
	 */
	bio->bi_private = mpio;

	/* Do not let lower layers retry a dead transport: we have others. */
	bio->bi_opf |= REQ_FAILFAST_TRANSPORT;

	/* A path on probation in the PG in use: its trial share. */
	if (unlikely(READ_ONCE(m->fast_trial_pg)) &&
	    probation_trial_due(m->trial_tick))
		return map_bio_trial(m, bio, mpio);

	/*
	 * A per-bio selector's PG with one usable path: nothing to ask. First:
	 * multipath-tools' selectors are all per-bio (repeat_count 1).
	 */
	pgpath = READ_ONCE(m->fast_sole_pgpath);
	if (likely(pgpath))
		goto remap;

	/* Within the repeat_count of the last choice. */
	pgpath = READ_ONCE(m->fast_pgpath);
	if (likely(pgpath && atomic_dec_return(&m->repeat_left) >= 0))
		goto remap;

	/*
	 * A selector that chooses for every bio is asked without m->lock
	 * (it has its own); only a PG change needs the lock.
	 */
	pg = READ_ONCE(m->fast_pg);
	if (pg) {
		struct dm_path *path;

		/*
		 * A sequential stream's next bio: the path of its stint while
		 * that path is still in use in this PG and not put on
		 * probation meanwhile (else choose again).
		 */
		path = mpath_stream_continued(m->streams, bio);
		if (path) {
			pgpath = path_to_pgpath(path);
			if (likely(pgpath->pg == pg && READ_ONCE(path->is_active) &&
				   !READ_ONCE(pgpath->ps_hidden)))
				goto remap;
		}

		mpio->repeat = 1;
		path = pg->ps.type->select_path(&pg->ps, bio->bi_iter.bi_size,
						&mpio->repeat);
		if (likely(path)) {
			pgpath = path_to_pgpath(path);
			if (likely(mpio->repeat == 1)) {
				mpath_stream_start(m->streams, bio, path);
				goto remap;
			}
			/* A path with a budget of its own (round-robin). */
			return map_bio_chosen(m, bio, mpio, pgpath,
					      mpio->repeat);
		}
	}

	return map_bio_slow_path(m, bio, mpio);

remap:
	start_io(pgpath, mpio, bio);
	return DM_MAPIO_REMAPPED;
}

static void dispatch_bios(struct multipath *m, struct bio_list *bios)
{
	struct blk_plug plug;
	struct bio *bio;

	blk_start_plug(&plug);
	while ((bio = bio_list_pop(bios))) {
		struct mpath_io *mpio = dm_per_bio_data(bio, sizeof(*mpio));

		if (unlikely(mpio_restore_integrity(mpio, bio))) {
			/* Not sent: end_io returns the error as it is. */
			bio->bi_status = BLK_STS_RESOURCE;
			bio_endio(bio);
			continue;
		}

		switch (map_bio_slow_path(m, bio, mpio)) {
		case DM_MAPIO_REMAPPED:
			submit_bio_noacct(bio);
			break;
		case DM_MAPIO_REQUEUE:
			/* end_io passes this to dm core, which requeues. */
			bio->bi_status = BLK_STS_DM_REQUEUE;
			bio_endio(bio);
			break;
		case DM_MAPIO_KILL:
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
			break;
		default:
			break;	/* queued again */
		}
	}
	blk_finish_plug(&plug);
}

static void process_queued_bios(struct work_struct *work)
{
	struct multipath *m = container_of(work, struct multipath,
					   process_queued);
	struct hw_handler *hwh = &m->hw_handler;
	struct pgpath *init_pgpath = NULL;
	bool init_bypassed = false;
	bool kick_requests = false;
	struct bio_list bios;
	unsigned long flags;

	bio_list_init(&bios);

	spin_lock_irqsave(&m->lock, flags);

	/* dm_pg_init_complete() queues this work again. */
	if (m->pg_init_in_progress)
		goto out;

	if (m->nr_valid_paths && !m->current_pgpath)
		__choose_pgpath(m, 0);

	/* A retry after a transient pg_init failure waits its delay. */
	if (m->pg_init_required && m->current_pgpath &&
	    !m->pg_init_disabled && !m->pg_init_delayed) {
		m->pg_init_required = false;
		m->pg_init_in_progress = true;
		init_pgpath = m->current_pgpath;
		init_bypassed = init_pgpath->pg->bypassed;
		goto out;
	}

	if (!__can_dispatch(m))
		goto out;

	bio_list_merge(&bios, &m->queued_bios);
	bio_list_init(&m->queued_bios);
	m->queue_size = 0;
	kick_requests = m->requests_held;
	m->requests_held = false;
out:
	spin_unlock_irqrestore(&m->lock, flags);

	/* Never under the spinlock: the handler may allocate. */
	if (init_pgpath)
		hwh->type->pg_init(hwh, init_bypassed, &init_pgpath->path);
	else
		dispatch_bios(m, &bios);
	if (kick_requests)
		kick_held_requests(m);
}

static void pg_init_retry_work(struct work_struct *work)
{
	struct multipath *m = container_of(to_delayed_work(work),
					   struct multipath, pg_init_retry);
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	m->pg_init_delayed = false;
	__kick(m);
	spin_unlock_irqrestore(&m->lock, flags);
}

static void trigger_event(struct work_struct *work)
{
	struct multipath *m = container_of(work, struct multipath,
					   trigger_event);

	dm_table_event(m->ti->table);
}

unsigned int dm_path_pg_num(struct dm_path *path)
{
	return path_to_pgpath(path)->pg->pg_num;
}
EXPORT_SYMBOL_GPL(dm_path_pg_num);

bool dm_pg_init_path_only(struct dm_path *path)
{
	struct multipath *m = path_to_pgpath(path)->pg->m;
	unsigned long flags;
	bool path_only;

	spin_lock_irqsave(&m->lock, flags);
	path_only = m->pg_init_in_progress && m->pg_init_reinstated;
	spin_unlock_irqrestore(&m->lock, flags);

	return path_only;
}
EXPORT_SYMBOL_GPL(dm_pg_init_path_only);

/*
 * Called by the hardware handler, once per pg_init, from any context
 * (often a request's end_io): must not sleep.
 */
void dm_pg_init_complete(struct dm_path *path, unsigned int err_flags)
{
	struct pgpath *pgpath = path_to_pgpath(path);
	struct priority_group *pg = pgpath->pg;
	struct multipath *m = pg->m;
	unsigned long flags;
	bool retry = false;

	spin_lock_irqsave(&m->lock, flags);

	if (!m->pg_init_in_progress) {
		spin_unlock_irqrestore(&m->lock, flags);
		DMERR("%s: pg_init completion for %s without pg_init",
		      dm_table_device_name(m->ti->table), path->dev->name);
		return;
	}

	/* Transient: try this path again after a delay, a bounded number of times. */
	if (err_flags & MP_RETRY) {
		err_flags &= ~MP_RETRY;
		if (++m->pg_init_count <= m->pg_init_retries) {
			retry = true;
		} else {
			DMWARN("%s: pg_init on %s failed, %u retries used: failing path",
			       dm_table_device_name(m->ti->table),
			       path->dev->name, m->pg_init_retries);
			err_flags |= MP_FAIL_PATH;
		}
	}

	/* A bypassed PG was already the last resort: blame the path. */
	if (err_flags && pg->bypassed)
		err_flags |= MP_FAIL_PATH;

	__apply_err_flags(m, pgpath, err_flags);

	if (retry && !err_flags && pgpath == m->current_pgpath) {
		/* I/O stays held; the worker starts pg_init again later. */
		unsigned int delay = m->pg_init_delay_msecs;

		if (delay == MPATH_PG_INIT_DELAY_UNSET)
			delay = MPATH_PG_INIT_DELAY_DEFAULT;
		DMINFO_LIMIT("%s: pg_init on %s will be retried in %u ms (%u of %u)",
			     dm_table_device_name(m->ti->table),
			     path->dev->name, delay, m->pg_init_count,
			     m->pg_init_retries);
		m->pg_init_required = true;
		m->pg_init_delayed = true;
		queue_delayed_work(kmpathd, &m->pg_init_retry,
				   msecs_to_jiffies(delay));
	} else if (!err_flags && !retry && pgpath == m->current_pgpath) {
		m->queue_io = false;
		m->pg_init_count = 0;
		/* Initialised: as in Linux 6.1, no longer a last resort. */
		pg->bypassed = false;
		/* A reinstated path's: the selector chooses afresh. */
		if (m->pg_init_reinstated)
			m->current_pgpath = NULL;
		__update_fast_path(m);
	} else if (m->pg_init_reinstated && !(err_flags & MP_BYPASS_PG) &&
		   m->current_pg == pg) {
		/*
		 * Only the reinstated path failed (and is failed now): the
		 * PG, initialised before, stays in use, as in Linux 6.1.
		 */
		m->queue_io = false;
		m->pg_init_count = 0;
		m->current_pgpath = NULL;
		__update_fast_path(m);
	} else {
		/*
		 * Failed, or the choice changed meanwhile (path failed, group
		 * switched): choose again. The next path of this PG or the
		 * next PG gets a pg_init of its own.
		 */
		m->current_pgpath = NULL;
		m->current_pg = NULL;
		__update_fast_path(m);
	}

	if (!m->pg_init_required)
		m->pg_init_reinstated = false;
	m->pg_init_in_progress = false;
	__kick(m);
	/* Under the lock: a waiter takes it before freeing m. */
	wake_up(&m->pg_init_wait);

	spin_unlock_irqrestore(&m->lock, flags);
}
EXPORT_SYMBOL_GPL(dm_pg_init_complete);

/*
 * Wait for pg_init and our work items, and start no new pg_init until
 * resume. For postsuspend and dtr.
 */
static void quiesce_multipath(struct multipath *m)
{
	spin_lock_irq(&m->lock);
	m->pg_init_disabled = true;
	spin_unlock_irq(&m->lock);

	/* The handler bounds pg_init by its own command timeout. */
	wait_event(m->pg_init_wait, !READ_ONCE(m->pg_init_in_progress));

	/* Let dm_pg_init_complete() leave its critical section. */
	spin_lock_irq(&m->lock);
	spin_unlock_irq(&m->lock);

	/* A delayed retry is started again by resume (pg_init_required). */
	cancel_delayed_work_sync(&m->pg_init_retry);
	spin_lock_irq(&m->lock);
	m->pg_init_delayed = false;
	spin_unlock_irq(&m->lock);

	flush_work(&m->process_queued);
	flush_work(&m->trigger_event);
}

/* ---- Per-path statistics (debugfs) ---- */

static u64 path_counter(struct pgpath *p, size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(u64 *)((char *)per_cpu_ptr(p->counters, cpu) + offset);

	return sum;
}

/*
 * One line per path, "key=value" words, for monitoring tools:
 * pg, dev, state (active|failed), fail_count, sent, in_flight, errors (our
 * counts, since the table was loaded), and the path device's own mean
 * completion time in us since it appeared (the block layer's counters);
 * then the path's health record (__path_health_show).
 */
static int path_stats_show(struct seq_file *sf, void *unused)
{
	struct multipath *m = sf->private;
	struct priority_group *pg;
	struct pgpath *p;

	list_for_each_entry(pg, &m->priority_groups, list) {
		list_for_each_entry(p, &pg->pgpaths, list) {
			struct block_device *bdev = p->path.dev->bdev;
			u64 sent = path_counter(p, offsetof(struct path_counters, sent));
			u64 done = path_counter(p, offsetof(struct path_counters, completed));
			u64 ios, nsecs;

			ios = part_stat_read(bdev, ios[STAT_READ]) +
			      part_stat_read(bdev, ios[STAT_WRITE]);
			nsecs = part_stat_read(bdev, nsecs[STAT_READ]) +
				part_stat_read(bdev, nsecs[STAT_WRITE]);
			seq_printf(sf, "pg=%u dev=%s state=%s fail_count=%u sent=%llu in_flight=%lld errors=%llu mean_latency_us=%llu",
				   pg->pg_num, p->path.dev->name,
				   READ_ONCE(p->path.is_active) ? "active" : "failed",
				   READ_ONCE(p->fail_count), sent,
				   (long long)(sent - done),
				   path_counter(p, offsetof(struct path_counters, errors)),
				   ios ? div64_u64(nsecs, ios) / NSEC_PER_USEC : 0);
			/* The error history: the health record, whole. */
			spin_lock_irq(&m->lock);
			__path_health_show(sf, &p->health, &m->probation);
			spin_unlock_irq(&m->lock);
			seq_putc(sf, '\n');
		}
	}

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(path_stats);

/* The live table of a map has the file; a reload's resume takes it over. */
static void path_stats_publish(struct multipath *m)
{
	if (!m->debugfs_paths && !IS_ERR_OR_NULL(debugfs_dir))
		m->debugfs_paths = debugfs_create_file(dm_table_device_name(m->ti->table),
						       0444, debugfs_dir, m,
						       &path_stats_fops);
}

static void path_stats_withdraw(struct multipath *m)
{
	/* Waits for readers still in path_stats_show(). */
	debugfs_remove(m->debugfs_paths);
	m->debugfs_paths = NULL;
}

/*
 * Constructor:
 * <#features> [<feature> [<value>]]*
 * <#hw args> [<hw handler> [<hw arg>]*]
 * <#PGs> <initial PG>
 * { <selector> <#selector args> [<selector arg>]*
 * <#paths> <#path args> { <device> [<path arg>]* }+ }*
 */

struct mp_count {
	struct dm_arg arg;	/* range, and the error if out of it */
	char *missing;		/* the error if the word is absent */
};

/*
 * dm_read_arg() reads with sscanf("%u"), which skips leading white space
 * (a table word can have it escaped: "\ 4294967297") and wraps a number
 * past UINT_MAX into range (4294967297 would read as 1): is word such a
 * number? (The kernel's sscanf refuses a '+' for %u: no need to look past
 * one, but it costs nothing.)
 */
static bool count_wraps(const char *word)
{
	unsigned int v;

	word = skip_spaces(word);
	if (*word == '+')
		word++;

	return isdigit(*word) && kstrtouint(word, 10, &v) == -ERANGE;
}

static int read_count(struct dm_arg_set *as, const struct mp_count *c,
		      unsigned int *value, char **error)
{
	if (!as->argc) {
		*error = c->missing;
		return -EINVAL;
	}

	if (count_wraps(as->argv[0])) {
		*error = c->arg.error;
		return -EINVAL;
	}

	return dm_read_arg(&c->arg, as, value, error);
}

/* A feature word that takes a number: its range and messages. */
struct mp_feature_value {
	const char *name;
	struct mp_count count;
};

static const struct mp_feature_value pg_init_retries_value = {
	"pg_init_retries",
	{{1, MPATH_PG_INIT_RETRIES_MAX, "pg_init_retries must be between 1 and 50"},
	 "pg_init_retries needs a value"},
};

static const struct mp_feature_value pg_init_delay_value = {
	"pg_init_delay_msecs",
	{{0, MPATH_PG_INIT_DELAY_MAX, "pg_init_delay_msecs must be between 0 and 60000"},
	 "pg_init_delay_msecs needs a value"},
};

static const struct mp_feature_value no_path_timeout_value = {
	"queue_if_no_path_timeout_secs",
	{{0, MPATH_NO_PATH_TIMEOUT_MAX,
	  "queue_if_no_path_timeout_secs must be between 0 and 86400"},
	 "queue_if_no_path_timeout_secs needs a value"},
};

/* The probation features (dm-mpath-health.h): where each value goes. */
static const struct mp_probation_feature {
	struct mp_feature_value value;
	size_t offset;		/* in struct probation_params */
} probation_features[] = {
	{{"probation_fails",
	  {{0, PROBATION_FAILS_MAX, "probation_fails must be between 0 and 32"},
	   "probation_fails needs a value"}},
	 offsetof(struct probation_params, fails)},
	{{"probation_window_secs",
	  {{1, PROBATION_WINDOW_SECS_MAX,
	    "probation_window_secs must be between 1 and 86400"},
	   "probation_window_secs needs a value"}},
	 offsetof(struct probation_params, window_secs)},
	{{"probation_clean_ios",
	  {{1, PROBATION_CLEAN_IOS_MAX,
	    "probation_clean_ios must be between 1 and 1000000"},
	   "probation_clean_ios needs a value"}},
	 offsetof(struct probation_params, clean_ios)},
	{{"probation_stall_msecs",
	  {{0, PROBATION_STALL_MSECS_MAX,
	    "probation_stall_msecs must be between 0 and 600000"},
	   "probation_stall_msecs needs a value"}},
	 offsetof(struct probation_params, stall_msecs)},
};

static const struct mp_probation_feature *probation_feature(const char *word)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probation_features); i++)
		if (!strcasecmp(word, probation_features[i].value.name))
			return &probation_features[i];

	return NULL;
}

/*
 * Read the value of a feature, from the words of the feature section only
 * (*left of them remain).
 */
static int read_feature_value(struct dm_arg_set *as, unsigned int *left,
			      const struct mp_feature_value *f,
			      unsigned int *value, char **error)
{
	struct dm_arg_set words = { .argc = *left, .argv = as->argv };
	int r;

	r = read_count(&words, &f->count, value, error);
	if (r)
		return r;

	dm_consume_args(as, 1);
	(*left)--;

	return 0;
}

static int parse_queue_mode(struct dm_arg_set *as, unsigned int *left,
			    struct multipath *m, struct dm_target *ti)
{
	const char *mode;

	if (!*left) {
		ti->error = "queue_mode needs a value";
		return -EINVAL;
	}
	mode = dm_shift_arg(as);
	(*left)--;

	/* The last one given counts, as for the other features. */
	if (!strcasecmp(mode, "bio")) {
		m->queue_mode_bio = true;
		m->request_based = false;
		return 0;
	}

	/* mq: the name of the same mode before Linux 5.0 made rq blk-mq. */
	if (!strcasecmp(mode, "rq") || !strcasecmp(mode, "mq")) {
		m->queue_mode_bio = false;
		m->request_based = true;
		return 0;
	}

	DMERR("unknown queue_mode '%s' (bio, rq or mq)", mode);
	ti->error = "unknown queue_mode";

	return -EINVAL;
}

/*
 * Linux 6.1's feature words, and ours: queue_if_no_path_timeout_secs and
 * the probation features.
 */
static int parse_features(struct dm_arg_set *as, struct multipath *m,
			  struct dm_target *ti)
{
	static const struct mp_count count = {
		/*
		 * Every feature at once is 18 words: the 8 of Linux 6.1, our
		 * queue_if_no_path_timeout_secs <secs> and the four
		 * probation_* <value>. Whatever TABLE status shows must load
		 * again.
		 */
		{0, MPATH_MAX_FEATURE_WORDS, "invalid number of feature arguments"},
		"missing number of feature arguments",
	};
	const struct mp_probation_feature *pf;
	unsigned int left;
	const char *word;
	int r;

	r = read_count(as, &count, &left, &ti->error);
	if (r)
		return r;

	if (as->argc < left) {
		ti->error = "not enough feature arguments";
		return -EINVAL;
	}

	while (left) {
		word = dm_shift_arg(as);
		left--;
		pf = probation_feature(word);

		if (!strcasecmp(word, "queue_if_no_path")) {
			m->queue_if_no_path = true;
		} else if (!strcasecmp(word, "retain_attached_hw_handler")) {
			m->retain_attached_hw_handler = true;
		} else if (!strcasecmp(word, pg_init_retries_value.name)) {
			r = read_feature_value(as, &left, &pg_init_retries_value,
					       &m->pg_init_retries, &ti->error);
		} else if (!strcasecmp(word, pg_init_delay_value.name)) {
			r = read_feature_value(as, &left, &pg_init_delay_value,
					       &m->pg_init_delay_msecs,
					       &ti->error);
		} else if (!strcasecmp(word, no_path_timeout_value.name)) {
			r = read_feature_value(as, &left, &no_path_timeout_value,
					       &m->no_path_timeout_secs,
					       &ti->error);
			m->no_path_timeout_set = true;
		} else if (!strcasecmp(word, "queue_mode")) {
			r = parse_queue_mode(as, &left, m, ti);
		} else if (pf) {
			r = read_feature_value(as, &left, &pf->value,
					       (unsigned int *)((char *)&m->probation +
								pf->offset),
					       &ti->error);
		} else {
			DMERR("unrecognised feature '%s'", word);
			ti->error = "unrecognised feature";
			r = -EINVAL;
		}
		if (r)
			return r;
	}

	return 0;
}

static int parse_hw_handler(struct dm_arg_set *as, struct multipath *m,
			    struct dm_target *ti)
{
	static const struct mp_count count = {
		{0, MPATH_MAX_COUNT, "invalid number of hardware handler arguments"},
		"missing number of hardware handler arguments",
	};
	struct hw_handler_type *hwht;
	unsigned int argc;
	const char *name;
	int r;

	r = read_count(as, &count, &argc, &ti->error);
	if (r || !argc)
		return r;

	if (as->argc < argc) {
		ti->error = "not enough hardware handler arguments";
		return -EINVAL;
	}

	/* The count includes the handler's name. */
	name = dm_shift_arg(as);
	hwht = dm_get_hw_handler(name);
	if (!hwht) {
		DMERR("unknown hardware handler type '%s'", name);
		ti->error = "unknown hardware handler type";
		return -EINVAL;
	}

	ti->error = "hardware handler constructor failed";
	m->hw_handler.table_name = name;
	m->hw_handler.retain_attached = m->retain_attached_hw_handler ||
					DM_MPATH_RETAIN_IMPLIED;
	m->hw_handler.name = hwht->name;
	r = hwht->ctr(&m->hw_handler, argc - 1, as->argv, &ti->error);
	m->hw_handler.table_name = NULL;
	if (r) {
		dm_put_hw_handler(hwht);
		return r;
	}

	m->hw_handler.type = hwht;
	dm_consume_args(as, argc - 1);

	return 0;
}

static int parse_path_selector(struct dm_arg_set *as, struct multipath *m,
			       struct priority_group *pg, struct dm_target *ti)
{
	static const struct mp_count count = {
		{0, MPATH_MAX_COUNT, "invalid number of path selector arguments"},
		"missing number of path selector arguments",
	};
	struct path_selector_type *pst;
	unsigned int argc;
	const char *name;
	int r;

	if (!as->argc) {
		ti->error = "missing path selector name";
		return -EINVAL;
	}

	name = dm_shift_arg(as);
	pst = dm_get_path_selector(name);
	if (!pst) {
		DMERR("unknown path selector type '%s'", name);
		ti->error = "unknown path selector type";
		return -EINVAL;
	}

	r = read_count(as, &count, &argc, &ti->error);
	if (r)
		goto bad;

	if (as->argc < argc) {
		ti->error = "not enough path selector arguments";
		r = -EINVAL;
		goto bad;
	}

	ti->error = "path selector constructor failed";
	r = pst->ctr(&pg->ps, argc, as->argv, &ti->error);
	if (r)
		goto bad;

	pg->ps.type = pst;
	dm_consume_args(as, argc);

	return 0;

bad:
	dm_put_path_selector(pst);
	return r;
}

static bool is_duplicate(struct multipath *m, struct priority_group *pg,
			 struct dm_dev *dev)
{
	struct priority_group *other;
	struct pgpath *p;

	list_for_each_entry(p, &pg->pgpaths, list)
		if (p->path.dev == dev)
			return true;

	list_for_each_entry(other, &m->priority_groups, list)
		list_for_each_entry(p, &other->pgpaths, list)
			if (p->path.dev == dev)
				return true;

	return false;
}

/* as holds exactly the device and its path arguments. */
static struct pgpath *parse_path(struct dm_arg_set *as, struct multipath *m,
				 struct priority_group *pg,
				 struct dm_target *ti)
{
	struct hw_handler *hwh = &m->hw_handler;
	struct pgpath *p;
	int r;

	p = alloc_pgpath(&m->probation);
	if (!p) {
		ti->error = "cannot allocate path";
		return ERR_PTR(-ENOMEM);
	}
	path_health_init(&p->health, &m->probation, p->fault_ring);

	r = dm_get_device(ti, dm_shift_arg(as), dm_table_get_mode(ti->table),
			  &p->path.dev);
	if (r) {
		ti->error = "error getting device";
		r = -EINVAL;
		goto bad;
	}

	/*
	 * One device twice would make fail_path/reinstate_path, the status
	 * and the uevents ambiguous: refuse it.
	 */
	if (is_duplicate(m, pg, p->path.dev)) {
		ti->error = "duplicate path device";
		r = -EINVAL;
		goto bad;
	}

	if (hwh->type && hwh->type->add_path) {
		r = hwh->type->add_path(hwh, &p->path, &ti->error);
		if (r)
			goto bad;
		p->hwh_added = true;
	}

	r = pg->ps.type->add_path(&pg->ps, &p->path, as->argc, as->argv,
				  &ti->error);
	if (r)
		goto bad;

	p->pg = pg;

	return p;

bad:
	free_pgpath(m, p);
	return ERR_PTR(r);
}

static struct priority_group *parse_priority_group(struct dm_arg_set *as,
						   struct multipath *m,
						   struct dm_target *ti)
{
	static const struct mp_count paths_count = {
		{1, MPATH_MAX_COUNT, "invalid number of paths"},
		"missing number of paths",
	};
	static const struct mp_count args_count = {
		{0, MPATH_MAX_COUNT, "invalid number of path arguments"},
		"missing number of path arguments",
	};
	struct priority_group *pg;
	unsigned int nr_paths, nr_args, i;
	int r;

	pg = alloc_priority_group(m);
	if (!pg) {
		ti->error = "cannot allocate priority group";
		return ERR_PTR(-ENOMEM);
	}

	r = parse_path_selector(as, m, pg, ti);
	if (r)
		goto bad;

	r = read_count(as, &paths_count, &nr_paths, &ti->error);
	if (r)
		goto bad;

	r = read_count(as, &args_count, &nr_args, &ti->error);
	if (r)
		goto bad;

	for (i = 0; i < nr_paths; i++) {
		struct dm_arg_set path_args;
		struct pgpath *pgpath;

		if (as->argc < 1 + nr_args) {
			ti->error = as->argc ? "not enough path arguments" :
					       "missing path device";
			r = -EINVAL;
			goto bad;
		}

		path_args.argc = 1 + nr_args;
		path_args.argv = as->argv;

		pgpath = parse_path(&path_args, m, pg, ti);
		if (IS_ERR(pgpath)) {
			r = PTR_ERR(pgpath);
			goto bad;
		}

		list_add_tail(&pgpath->list, &pg->pgpaths);
		pg->nr_pgpaths++;
		dm_consume_args(as, 1 + nr_args);
	}

	return pg;

bad:
	free_priority_group(pg);
	return ERR_PTR(r);
}

static int multipath_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	static const struct mp_count pgs_count = {
		{0, MPATH_MAX_COUNT, "invalid number of priority groups"},
		"missing number of priority groups",
	};
	static const struct mp_count initial_count = {
		{0, MPATH_MAX_COUNT, "invalid initial priority group number"},
		"missing initial priority group number",
	};
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	unsigned int nr_pgs, initial, i;
	struct multipath *m;
	int r;

	m = alloc_multipath(ti);
	if (!m) {
		ti->error = "cannot allocate multipath";
		return -ENOMEM;
	}

	r = parse_features(&as, m, ti);
	if (r)
		goto bad;

	r = parse_hw_handler(&as, m, ti);
	if (r)
		goto bad;

	r = read_count(&as, &pgs_count, &nr_pgs, &ti->error);
	if (r)
		goto bad;

	r = read_count(&as, &initial_count, &initial, &ti->error);
	if (r)
		goto bad;

	/* 0 PGs (all paths gone) is a valid map, with initial PG 0. */
	if (!nr_pgs && initial) {
		ti->error = "initial priority group must be 0 without priority groups";
		r = -EINVAL;
		goto bad;
	}
	if (nr_pgs && (!initial || initial > nr_pgs)) {
		ti->error = "initial priority group out of range";
		r = -EINVAL;
		goto bad;
	}

	for (i = 1; i <= nr_pgs; i++) {
		struct priority_group *pg;

		if (!as.argc) {
			ti->error = "missing priority group";
			r = -EINVAL;
			goto bad;
		}

		pg = parse_priority_group(&as, m, ti);
		if (IS_ERR(pg)) {
			r = PTR_ERR(pg);
			goto bad;
		}

		pg->pg_num = i;
		list_add_tail(&pg->list, &m->priority_groups);
		pg->nr_valid_pgpaths = pg->nr_pgpaths;
		m->nr_valid_paths += pg->nr_pgpaths;
		if (i == initial)
			m->next_pg = pg;
	}
	m->nr_priority_groups = nr_pgs;

	if (as.argc) {
		ti->error = "too many arguments";
		r = -EINVAL;
		goto bad;
	}

	/*
	 * Bio-based unless the table asks for requests (Linux's own target
	 * defaults to requests; multipath-tools writes queue_mode only where
	 * configured). dm core refuses a reload that changes the mode.
	 */
	dm_table_set_type(ti->table, m->request_based ? DM_TYPE_REQUEST_BASED :
							DM_TYPE_BIO_BASED);
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	/* Per bio, or per request (dm core reserves it: an immutable target). */
	ti->per_io_data_size = sizeof(struct mpath_io);
	ti->private = m;

	return 0;

bad:
	free_multipath(m);
	return r;
}

static void multipath_dtr(struct dm_target *ti)
{
	struct multipath *m = ti->private;

	path_stats_withdraw(m);
	/* The timer kicks the worker: stop it before waiting for that. */
	timer_delete_sync(&m->no_path_timer);
	quiesce_multipath(m);
	free_multipath(m);
}

/* ---- Completion ---- */

/*
 * What an I/O that failed on pgpath means (MP_* flags): the handler's
 * reading, else the SCSI default. bio is NULL for a request.
 */
static unsigned int io_error_flags(struct multipath *m, struct pgpath *pgpath,
				   struct bio *bio, blk_status_t error)
{
	struct hw_handler *hwh = &m->hw_handler;
	unsigned int err_flags;

	if (hwh->type && hwh->type->err)
		err_flags = hwh->type->err(hwh, &pgpath->path, bio, error);
	else
		err_flags = dm_scsi_err_handler(hwh, &pgpath->path, bio, error);
	/*
	 * A failed I/O is an error of its own or its path's fault: a retry
	 * that blamed no path could go round for ever.
	 */
	if (!(err_flags & MP_ERROR_IO))
		err_flags |= MP_FAIL_PATH;

	return err_flags;
}

/* A failed I/O's flags, applied to its path. */
static void __io_error(struct multipath *m, struct pgpath *pgpath,
		       unsigned int err_flags)
{
	lockdep_assert_held(&m->lock);
	/*
	 * A trial I/O (the path is on probation, hidden from the selector)
	 * that fails the path: its trial share backs off. Only the error that
	 * fails it counts (those of other I/O in flight then find it failed).
	 */
	if ((err_flags & MP_FAIL_PATH) && pgpath->ps_hidden &&
	    pgpath->path.is_active)
		__path_health_trial_failed(&pgpath->health, &m->probation);
	__apply_err_flags(m, pgpath, err_flags);
}

/*
 * A bio completed with an error. Not inlined: multipath_end_io() is on every
 * bio's way, and stays small without this.
 */
static noinline int end_io_error(struct multipath *m, struct bio *bio,
				 struct mpath_io *mpio, blk_status_t *error)
{
	struct pgpath *pgpath = mpio->pgpath;
	unsigned int err_flags;
	unsigned long flags;
	int r = DM_ENDIO_DONE;

	/* Completed by us rather than by a path: nothing to retry. */
	if (!pgpath)
		return *error == BLK_STS_DM_REQUEUE ? DM_ENDIO_REQUEUE :
						       DM_ENDIO_DONE;

	if (*error != BLK_STS_DM_REQUEUE)
		this_cpu_inc(pgpath->counters->errors);

	err_flags = io_error_flags(m, pgpath, bio, *error);

	spin_lock_irqsave(&m->lock, flags);
	__io_error(m, pgpath, err_flags);

	/* An error of the I/O itself goes back to the caller unchanged. */
	if (err_flags & MP_ERROR_IO)
		goto out;

	/* Protection information that could not be kept: no retry without. */
	if (unlikely(mpio->had_integrity && !mpio->integrity_keeper))
		goto out;

	if (!m->nr_valid_paths) {
		switch (__no_path_action(m)) {
		case NP_PUSHBACK:
			r = DM_ENDIO_REQUEUE;
			goto out;
		case NP_FAIL:
			*error = BLK_STS_IOERR;
			goto out;
		case NP_QUEUE:
			break;
		}
	}

	/* The worker sends it again (submit_bio is for process context). */
	mpio_restore(mpio, bio);
	__queue_bio(m, bio);
	if (m->nr_valid_paths)
		__kick(m);
	r = DM_ENDIO_INCOMPLETE;
out:
	spin_unlock_irqrestore(&m->lock, flags);
	return r;
}

static int multipath_end_io(struct dm_target *ti, struct bio *bio,
			    blk_status_t *error)
{
	struct mpath_io *mpio = bio->bi_private;	/* set by multipath_map() */
	struct pgpath *pgpath = mpio->pgpath;
	struct multipath *m = ti->private;
	enum path_health_news news;
	int r = DM_ENDIO_DONE;

	if (likely(pgpath)) {
		this_cpu_inc(pgpath->counters->completed);
		end_io(pgpath, mpio, bio);
		news = path_health_io_done(&pgpath->health, &m->probation,
					   mpio->issued, !*error);
		if (unlikely(news))
			probation_io_news(m, pgpath, news);
	}

	if (unlikely(*error))
		r = end_io_error(m, bio, mpio, error);

	if (unlikely(mpio->integrity_keeper) && r != DM_ENDIO_INCOMPLETE)
		mpio_drop_integrity(mpio);

	return r;
}

/* ---- Request-based mode (queue_mode rq) ---- */

/*
 * A request-based map has a request queue of its own in front of the
 * paths: blk-mq merges adjacent I/O there, and holds it there while the
 * paths are busy, before a path is chosen per request. dm core (dm-rq)
 * owns that queue: it calls us to map a request onto a clone allocated on
 * the chosen path's queue, and to judge the clone's completion. We never
 * hold a request ourselves: one that must wait (pg_init, no path under
 * queue_if_no_path, a noflush suspend) goes back to dm core's requeue
 * list, which retries it after its delay or when the worker kicks it.
 */

/* Under m->lock: a request is put back to wait in dm core's requeue list. */
static void __hold_request(struct multipath *m)
{
	lockdep_assert_held(&m->lock);
	m->requests_held = true;
}

/*
 * The path for a request when map's lockless choices do not apply: under
 * the lock, as map_bio_slow_path() for a bio. NULL with *r set when the
 * request is not sent now.
 */
static noinline struct pgpath *map_request_slow_path(struct multipath *m,
						     size_t nr_bytes,
						     bool trial, int *r)
{
	struct pgpath *pgpath = NULL;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (trial)
		pgpath = __map_trial_pgpath(m);
	if (!pgpath)
		pgpath = __map_choose(m, nr_bytes);

	if (pgpath) {
		*r = DM_MAPIO_REMAPPED;
	} else if (m->queue_io && m->nr_valid_paths) {
		/* Held until the PG is initialised: the worker starts it. */
		if (!m->pg_init_in_progress)
			__kick(m);
		__hold_request(m);
		*r = DM_MAPIO_DELAY_REQUEUE;
	} else if (__no_path_action(m) == NP_FAIL) {
		*r = DM_MAPIO_KILL;
	} else {
		__hold_request(m);
		*r = DM_MAPIO_DELAY_REQUEUE;
	}
	spin_unlock_irqrestore(&m->lock, flags);

	return pgpath;
}

/*
 * The path for a request: map()'s lockless choices (a sole usable path, a
 * repeat_count budget, a per-I/O selector), else the slow path. There is
 * no sequential stream to keep on a path: dm core's queue has merged it.
 */
static struct pgpath *map_request_choose(struct multipath *m, size_t nr_bytes,
					 int *r)
{
	struct priority_group *pg;
	struct pgpath *pgpath;
	struct dm_path *path;
	unsigned int repeat = 1;

	*r = DM_MAPIO_REMAPPED;
	if (unlikely(READ_ONCE(m->fast_trial_pg)) &&
	    probation_trial_due(m->trial_tick))
		return map_request_slow_path(m, nr_bytes, true, r);

	pgpath = READ_ONCE(m->fast_sole_pgpath);
	if (pgpath)
		return pgpath;

	pgpath = READ_ONCE(m->fast_pgpath);
	if (pgpath && atomic_dec_return(&m->repeat_left) >= 0)
		return pgpath;

	pg = READ_ONCE(m->fast_pg);
	if (pg) {
		path = pg->ps.type->select_path(&pg->ps, nr_bytes, &repeat);
		/* A budget of its own (round-robin): installed under the lock. */
		if (path && repeat == 1)
			return path_to_pgpath(path);
	}

	return map_request_slow_path(m, nr_bytes, false, r);
}

/* The clone goes down pgpath: as start_io() for a bio. */
static void start_request_io(struct pgpath *pgpath, struct mpath_io *mpio,
			     size_t nr_bytes)
{
	mpio->pgpath = pgpath;
	mpio->nr_bytes = nr_bytes;
	mpio->issued = jiffies;
	if (pgpath->pg->ps.type->wants_start_time)
		mpio->rq_start_ns = ktime_get_ns();
	this_cpu_inc(pgpath->counters->sent);
	path_start_io(pgpath, nr_bytes);
}

/* A path whose queue is being torn down (device deleted) takes no more. */
static void fail_dying_path(struct multipath *m, struct pgpath *pgpath)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (pgpath->path.is_active)
		DMWARN("%s: path %s is being removed",
		       dm_table_device_name(m->ti->table),
		       pgpath->path.dev->name);
	__fail_path(m, pgpath);
	spin_unlock_irqrestore(&m->lock, flags);
}

static int multipath_clone_and_map(struct dm_target *ti, struct request *rq,
				   union map_info *map_context,
				   struct request **clone)
{
	struct multipath *m = ti->private;
	struct mpath_io *mpio = map_context->ptr;
	size_t nr_bytes = blk_rq_bytes(rq);
	struct request_queue *q;
	struct pgpath *pgpath;
	struct request *c;
	int r;

	mpio->pgpath = NULL;
	pgpath = map_request_choose(m, nr_bytes, &r);
	if (!pgpath)
		return r;

	/* No merging on the path: dm core's queue merged what could be. */
	q = bdev_get_queue(pgpath->path.dev->bdev);
	c = blk_mq_alloc_request(q, rq->cmd_flags | REQ_NOMERGE,
				 BLK_MQ_REQ_NOWAIT);
	if (IS_ERR(c)) {
		if (blk_queue_dying(q))
			fail_dying_path(m, pgpath);
		/*
		 * Out of tags: the path is busy. DM_MAPIO_REQUEUE tells blk-mq
		 * (BLK_STS_RESOURCE), which keeps the request in the map's own
		 * queue, where the next ones merge with it, until a request
		 * completes.
		 */
		return DM_MAPIO_REQUEUE;
	}

	/* Do not let lower layers retry a dead transport: we have others. */
	c->cmd_flags |= REQ_FAILFAST_TRANSPORT;
	start_request_io(pgpath, mpio, nr_bytes);
	*clone = c;

	return DM_MAPIO_REMAPPED;
}

/*
 * dm core is done with a clone. With map_context, the clone was mapped but
 * never sent (dm core could not set it up or the path's queue refused it):
 * undo its start, for the request is mapped again. Without it, the clone
 * completed and multipath_rq_end_io() has seen it.
 */
static void multipath_release_clone(struct request *clone,
				    union map_info *map_context)
{
	if (unlikely(map_context)) {
		struct mpath_io *mpio = map_context->ptr;
		struct pgpath *pgpath = mpio->pgpath;

		if (pgpath) {
			/* Not a service time: a selector that measures ignores 0. */
			mpio->rq_start_ns = 0;
			end_io(pgpath, mpio, NULL);
			this_cpu_dec(pgpath->counters->sent);
			mpio->pgpath = NULL;
		}
	}

	blk_mq_free_request(clone);
}

/* A clone failed: its path's fate, and whether the request goes again. */
static noinline int request_error(struct multipath *m, struct pgpath *pgpath,
				  blk_status_t error)
{
	unsigned int err_flags = io_error_flags(m, pgpath, NULL, error);
	unsigned long flags;
	int r;

	this_cpu_inc(pgpath->counters->errors);

	spin_lock_irqsave(&m->lock, flags);
	__io_error(m, pgpath, err_flags);

	/* An error of the I/O itself goes back to the caller unchanged. */
	if (err_flags & MP_ERROR_IO) {
		r = DM_ENDIO_DONE;
	} else if (m->nr_valid_paths) {
		r = DM_ENDIO_REQUEUE;	/* mapped again at once: another path */
	} else if (__no_path_action(m) == NP_FAIL) {
		r = DM_ENDIO_DONE;
	} else {
		__hold_request(m);
		r = DM_ENDIO_DELAY_REQUEUE;
	}
	spin_unlock_irqrestore(&m->lock, flags);

	return r;
}

static int multipath_rq_end_io(struct dm_target *ti, struct request *clone,
			       blk_status_t error, union map_info *map_context)
{
	struct mpath_io *mpio = map_context->ptr;
	struct pgpath *pgpath = mpio->pgpath;
	struct multipath *m = ti->private;
	enum path_health_news news;

	/* Only a mapped clone comes here, and mapping set its path. */
	if (WARN_ON_ONCE(!pgpath))
		return DM_ENDIO_DONE;

	this_cpu_inc(pgpath->counters->completed);
	end_io(pgpath, mpio, NULL);
	news = path_health_io_done(&pgpath->health, &m->probation,
				   mpio->issued, !error);
	if (unlikely(news))
		probation_io_news(m, pgpath, news);

	if (unlikely(error))
		return request_error(m, pgpath, error);

	return DM_ENDIO_DONE;
}

/*
 * dm core asks before it takes a request off the map's queue: busy keeps it
 * there, where later I/O merges with it. Busy when I/O waits for pg_init,
 * or when every path the PG in use would choose says its device is busy
 * (blk_lld_busy: e.g. a SCSI device at its queue depth). Lockless: a wrong
 * guess costs a requeue, or a merge.
 */
static int multipath_busy(struct dm_target *ti)
{
	struct multipath *m = ti->private;
	struct priority_group *pg;
	struct pgpath *pgpath;
	bool usable = false;

	if (READ_ONCE(m->pg_init_in_progress))
		return true;

	pg = READ_ONCE(m->current_pg);
	if (!pg)
		return false;	/* the choice is still to be made: map */

	list_for_each_entry(pgpath, &pg->pgpaths, list) {
		if (!READ_ONCE(pgpath->path.is_active) ||
		    READ_ONCE(pgpath->ps_hidden))
			continue;
		usable = true;
		if (!blk_lld_busy(bdev_get_queue(pgpath->path.dev->bdev)))
			return false;
	}

	/* No usable path in the PG: mapping chooses another, or holds. */
	return usable;
}

/* Held requests go to be mapped again now (dm core's requeue list). */
static void kick_held_requests(struct multipath *m)
{
	struct mapped_device *md = dm_table_get_md(m->ti->table);

	blk_mq_kick_requeue_list(dm_disk(md)->queue);
}

/* ---- Suspend and resume ---- */

/*
 * dm core waits for all our bios before postsuspend: queued ones must go.
 * A noflush suspend pushes them back to dm core (they are sent again on
 * resume, possibly to a new table); a flush suspend fails the ones that
 * have no path (queue_if_no_path itself is kept, and applies again from
 * resume on).
 */
static void multipath_presuspend(struct dm_target *ti)
{
	struct multipath *m = ti->private;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	m->suspending = true;
	if (__io_waiting(m))
		__kick(m);
	spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * Resume, and an aborted suspend: I/O and pg_init go on, and the no-path
 * bound runs again (after an aborted suspend its timer is still pending,
 * and this changes nothing).
 */
static void multipath_resume_io(struct multipath *m)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	m->suspending = false;
	m->pg_init_disabled = false;
	if (m->suspended) {
		/* The time suspended does not count against the bound. */
		if (m->no_path_since)
			m->no_path_since += jiffies - m->suspended_at;
		m->suspended = false;
	}
	__start_no_path_timer(m);
	if (__io_waiting(m) || m->pg_init_required)
		__kick(m);
	spin_unlock_irqrestore(&m->lock, flags);
}

static void multipath_presuspend_undo(struct dm_target *ti)
{
	multipath_resume_io(ti->private);
}

static void multipath_postsuspend(struct dm_target *ti)
{
	struct multipath *m = ti->private;

	path_stats_withdraw(m);
	/*
	 * The bound pauses while suspended; resume re-arms what is left.
	 * From here on nothing arms it (a pg_init that completes during the
	 * quiesce below fails a path, which would).
	 */
	spin_lock_irq(&m->lock);
	m->suspended = true;
	m->suspended_at = jiffies;
	spin_unlock_irq(&m->lock);
	timer_delete_sync(&m->no_path_timer);
	quiesce_multipath(m);
}

static void multipath_resume(struct dm_target *ti)
{
	struct multipath *m = ti->private;

	path_stats_publish(m);
	multipath_resume_io(m);
}

/*
 * Status
 * INFO:  <#features> <queue size> [no_path <seconds queueing> <bound>]
 * [probation <#paths> { <device> <failures> <stalls> <window secs>
 * <clean I/Os> <clean I/Os needed> }+]
 * <#hw status words> [words]*
 * <#PGs> <current or next PG>
 * { A|D|E <#selector words> [words]* <#paths> <#selector path words>
 * { <device> A|F <fail count> [selector path words]* }+ }*
 * TABLE: the constructor string reproducing the map (see the ctr).
 */

static unsigned int __nr_on_probation(struct multipath *m)
{
	struct priority_group *pg;
	unsigned int nr = 0;
	struct pgpath *p;

	lockdep_assert_held(&m->lock);
	list_for_each_entry(pg, &m->priority_groups, list)
		list_for_each_entry(p, &pg->pgpaths, list)
			nr += p->health.probation;

	return nr;
}

/* probation <#paths> { <device> <path health words> }+ */
static unsigned int emit_probation(struct multipath *m, unsigned int nr,
				   char *result, unsigned int maxlen)
{
	struct priority_group *pg;
	unsigned int sz = 0;
	struct pgpath *p;

	lockdep_assert_held(&m->lock);
	DMEMIT("probation %u ", nr);
	list_for_each_entry(pg, &m->priority_groups, list)
		list_for_each_entry(p, &pg->pgpaths, list)
			if (p->health.probation && sz < maxlen)
				sz += __path_health_status(&p->health,
							   &m->probation,
							   p->path.dev->name,
							   result + sz,
							   maxlen - sz);

	return sz;
}

static unsigned int emit_features(struct multipath *m, status_type_t type,
				  char *result, unsigned int maxlen)
{
	unsigned int sz = 0, nr;
	bool retain;

	lockdep_assert_held(&m->lock);
	if (type == STATUSTYPE_INFO) {
		bool no_path = __queueing_with_no_path(m) && m->no_path_since;
		unsigned int nr_probation = __nr_on_probation(m);

		nr = 1 + (no_path ? 3 : 0) +
		     (nr_probation ?
		      2 + nr_probation * PATH_HEALTH_STATUS_WORDS : 0);
		DMEMIT("%u %u ", nr, m->queue_size);
		/* While queueing for want of a path: for how long, and the bound. */
		/* The clock stands still while suspended (see resume). */
		if (no_path)
			DMEMIT("no_path %lu %lu ",
			       ((m->suspended ? m->suspended_at : jiffies) -
				m->no_path_since) / HZ,
			       no_path_timeout_secs(m));
		if (nr_probation)
			sz += emit_probation(m, nr_probation, result + sz,
					     maxlen - sz);
		return sz;
	}

	/* 1.15.0 keeps an attached handler always: no word for it. */
	retain = m->retain_attached_hw_handler && !DM_MPATH_RETAIN_IMPLIED;
	nr = m->queue_if_no_path + retain +
	     (m->pg_init_retries ? 2 : 0) +
	     (m->pg_init_delay_msecs != MPATH_PG_INIT_DELAY_UNSET ? 2 : 0) +
	     (m->queue_mode_bio || m->request_based ? 2 : 0) +
	     (m->no_path_timeout_set ? 2 : 0) +
	     probation_table_words(&m->probation);
	DMEMIT("%u ", nr);
	if (m->queue_if_no_path)
		DMEMIT("queue_if_no_path ");
	if (m->pg_init_retries)
		DMEMIT("pg_init_retries %u ", m->pg_init_retries);
	if (m->pg_init_delay_msecs != MPATH_PG_INIT_DELAY_UNSET)
		DMEMIT("pg_init_delay_msecs %u ", m->pg_init_delay_msecs);
	if (retain)
		DMEMIT("retain_attached_hw_handler ");
	if (m->queue_mode_bio)
		DMEMIT("queue_mode bio ");
	if (m->request_based)
		DMEMIT("queue_mode rq ");
	if (m->no_path_timeout_set)
		DMEMIT("queue_if_no_path_timeout_secs %u ",
		       m->no_path_timeout_secs);
	sz += probation_emit_table(&m->probation, result + sz, maxlen - sz);

	return sz;
}

/*
 * The handler section: the handler emits its own words, the core puts the
 * count (and, for TABLE, the name) in front, as it does for selectors.
 */
static unsigned int emit_hw_handler(struct multipath *m, status_type_t type,
				    char *result, unsigned int maxlen)
{
	struct hw_handler *hwh = &m->hw_handler;
	unsigned int sz = 0, len = 0, words = 0, i;
	char prefix[48];
	int plen;

	if (!hwh->type) {
		DMEMIT("0 ");
		return sz;
	}

	if (hwh->type->status)
		len = hwh->type->status(hwh, type, result, maxlen);
	if (len >= maxlen)
		len = maxlen - 1;	/* full: cut below, like the rest */
	for (i = 0; i < len; i++)
		words += result[i] == ' ';

	if (type == STATUSTYPE_TABLE)
		plen = snprintf(prefix, sizeof(prefix), "%u %s ", words + 1,
				hwh->name);
	else
		plen = snprintf(prefix, sizeof(prefix), "%u ", words);
	if (plen >= sizeof(prefix))
		return maxlen;	/* cannot happen: a name is a table word */

	/*
	 * What does not fit is cut, as DMEMIT cuts: dm-ioctl tells a full
	 * buffer (DM_BUFFER_FULL_FLAG, libdevmapper retries with a larger
	 * one) only by a string of exactly maxlen - 1 chars.
	 */
	if (len + plen >= maxlen) {
		len = plen < maxlen ? maxlen - 1 - plen : 0;
		plen = min_t(unsigned int, plen, maxlen - 1);
	}
	memmove(result + plen, result, len);
	memcpy(result, prefix, plen);
	result[len + plen] = '\0';

	return len + plen;
}

static unsigned int emit_pg_table(struct priority_group *pg, char *result,
				  unsigned int maxlen)
{
	struct path_selector *ps = &pg->ps;
	unsigned int sz = 0;
	struct pgpath *p;

	DMEMIT("%s ", ps->type->name);
	if (ps->type->status)
		sz += ps->type->status(ps, NULL, STATUSTYPE_TABLE,
				       result + sz, maxlen - sz);
	else
		DMEMIT("0 ");

	DMEMIT("%u %u ", pg->nr_pgpaths, ps->type->table_args);
	list_for_each_entry(p, &pg->pgpaths, list) {
		DMEMIT("%s ", p->path.dev->name);
		if (ps->type->status)
			sz += ps->type->status(ps, &p->path, STATUSTYPE_TABLE,
					       result + sz, maxlen - sz);
	}

	return sz;
}

static unsigned int emit_pg_info(struct multipath *m,
				 struct priority_group *pg, char *result,
				 unsigned int maxlen)
{
	struct path_selector *ps = &pg->ps;
	unsigned int sz = 0;
	struct pgpath *p;
	char state;

	if (pg->bypassed)
		state = 'D';	/* disabled */
	else if (pg == m->current_pg)
		state = 'A';	/* active */
	else
		state = 'E';	/* enabled */

	DMEMIT("%c ", state);
	if (ps->type->status)
		sz += ps->type->status(ps, NULL, STATUSTYPE_INFO,
				       result + sz, maxlen - sz);
	else
		DMEMIT("0 ");

	DMEMIT("%u %u ", pg->nr_pgpaths, ps->type->info_args);
	list_for_each_entry(p, &pg->pgpaths, list) {
		DMEMIT("%s %s %u ", p->path.dev->name,
		       p->path.is_active ? "A" : "F", p->fail_count);
		if (ps->type->status)
			sz += ps->type->status(ps, &p->path, STATUSTYPE_INFO,
					       result + sz, maxlen - sz);
	}

	return sz;
}

static void multipath_status(struct dm_target *ti, status_type_t type,
			     unsigned int status_flags, char *result,
			     unsigned int maxlen)
{
	struct multipath *m = ti->private;
	struct priority_group *pg;
	unsigned int sz = 0, pg_num;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);

	if (type == STATUSTYPE_IMA) {
		/* dm core's record ends with "target_len=N,": name us first. */
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",queue_if_no_path=%c,nr_priority_groups=%u,nr_valid_paths=%u;",
		       m->queue_if_no_path ? 'y' : 'n', m->nr_priority_groups,
		       m->nr_valid_paths);
		goto out;
	}

	sz += emit_features(m, type, result + sz, maxlen - sz);
	if (sz < maxlen)
		sz += emit_hw_handler(m, type, result + sz, maxlen - sz);

	if (m->next_pg)
		pg_num = m->next_pg->pg_num;
	else if (m->current_pg)
		pg_num = m->current_pg->pg_num;
	else
		pg_num = m->nr_priority_groups ? 1 : 0;

	DMEMIT("%u %u ", m->nr_priority_groups, pg_num);

	list_for_each_entry(pg, &m->priority_groups, list) {
		if (type == STATUSTYPE_INFO)
			sz += emit_pg_info(m, pg, result + sz, maxlen - sz);
		else
			sz += emit_pg_table(pg, result + sz, maxlen - sz);
	}
out:
	spin_unlock_irqrestore(&m->lock, flags);
}

/* ---- Messages ---- */

static struct priority_group *find_pg(struct multipath *m, const char *cmd,
				      const char *arg)
{
	struct priority_group *pg;
	unsigned int pg_num;

	if (kstrtouint(arg, 10, &pg_num) || !pg_num ||
	    pg_num > m->nr_priority_groups) {
		DMWARN("%s: invalid priority group number %s (map has %u)",
		       cmd, arg, m->nr_priority_groups);
		return NULL;
	}

	list_for_each_entry(pg, &m->priority_groups, list)
		if (pg->pg_num == pg_num)
			return pg;

	return NULL;
}

/* A device path or "major:minor". */
static int parse_dev(const char *cmd, const char *arg, dev_t *devt)
{
	unsigned int major, minor;
	char dummy;

	if (sscanf(arg, "%u:%u%c", &major, &minor, &dummy) == 2) {
		*devt = MKDEV(major, minor);
		if (MAJOR(*devt) == major && MINOR(*devt) == minor)
			return 0;
	} else {
		if (!dm_devt_from_path(arg, devt))
			return 0;
	}

	DMWARN("%s: cannot find device %s", cmd, arg);
	return -EINVAL;
}

static int msg_queue_if_no_path(struct multipath *m, const char *cmd,
				char **args)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	__set_queue_if_no_path(m, !strcasecmp(cmd, "queue_if_no_path"));
	spin_unlock_irqrestore(&m->lock, flags);

	return 0;
}

static int msg_switch_group(struct multipath *m, const char *cmd,
			    char **args)
{
	struct priority_group *pg = find_pg(m, cmd, args[0]);
	struct priority_group *each;
	unsigned long flags;

	if (!pg)
		return -EINVAL;

	spin_lock_irqsave(&m->lock, flags);
	/* An explicit choice: the group states start afresh. */
	list_for_each_entry(each, &m->priority_groups, list)
		each->bypassed = false;
	m->next_pg = pg;
	__choose_again(m);
	spin_unlock_irqrestore(&m->lock, flags);

	return 0;
}

/* disable_group and enable_group. */
static int msg_set_group_bypassed(struct multipath *m, const char *cmd,
				  char **args)
{
	struct priority_group *pg = find_pg(m, cmd, args[0]);
	unsigned long flags;

	if (!pg)
		return -EINVAL;

	spin_lock_irqsave(&m->lock, flags);
	__set_pg_bypassed(m, pg, !strcasecmp(cmd, "disable_group"));
	spin_unlock_irqrestore(&m->lock, flags);

	return 0;
}

/* fail_path and reinstate_path. */
static int msg_set_path_state(struct multipath *m, const char *cmd,
			      char **args)
{
	bool fail = !strcasecmp(cmd, "fail_path");
	struct priority_group *pg;
	struct pgpath *p;
	unsigned long flags;
	dev_t devt;
	int r;

	r = parse_dev(cmd, args[0], &devt);
	if (r)
		return r;

	spin_lock_irqsave(&m->lock, flags);
	list_for_each_entry(pg, &m->priority_groups, list) {
		list_for_each_entry(p, &pg->pgpaths, list) {
			if (p->path.dev->bdev->bd_dev != devt)
				continue;
			if (fail)
				__fail_path(m, p);
			else
				r = __reinstate_path(m, p);
			goto out;
		}
	}
	r = -ENXIO;
out:
	spin_unlock_irqrestore(&m->lock, flags);

	if (r == -ENXIO) {
		DMWARN("%s: %s is not a path of this map", cmd, args[0]);
		return -EINVAL;
	}
	if (r)
		DMWARN("%s: %s refused by the path selector (%d)", cmd, args[0],
		       r);

	return r;
}

/* The messages, with the number of arguments each takes. */
static const struct mp_message {
	const char *name;
	unsigned int nr_args;
	int (*handler)(struct multipath *m, const char *cmd, char **args);
} mp_messages[] = {
	{ "queue_if_no_path",	0, msg_queue_if_no_path },
	{ "fail_if_no_path",	0, msg_queue_if_no_path },
	{ "switch_group",	1, msg_switch_group },
	{ "disable_group",	1, msg_set_group_bypassed },
	{ "enable_group",	1, msg_set_group_bypassed },
	{ "fail_path",		1, msg_set_path_state },
	{ "reinstate_path",	1, msg_set_path_state },
};

static int multipath_message(struct dm_target *ti, unsigned int argc,
			     char **argv, char *result, unsigned int maxlen)
{
	const struct mp_message *msg;
	unsigned int i;

	/*
	 * As in Linux 6.1: a suspended map's state is not changed (a reload
	 * may be about to replace it, and no I/O would follow the change).
	 */
	if (dm_suspended(ti)) {
		DMWARN("%s: message %s refused: the map is suspended",
		       dm_table_device_name(ti->table), argc ? argv[0] : "");
		return -EBUSY;
	}

	if (!argc) {
		DMWARN("empty message");
		return -EINVAL;
	}

	for (i = 0; i < ARRAY_SIZE(mp_messages); i++) {
		msg = &mp_messages[i];
		if (strcasecmp(argv[0], msg->name))
			continue;

		if (argc - 1 != msg->nr_args) {
			DMWARN("message %s takes %u argument%s, got %u",
			       msg->name, msg->nr_args,
			       msg->nr_args == 1 ? "" : "s", argc - 1);
			return -EINVAL;
		}

		return msg->handler(ti->private, msg->name, argv + 1);
	}

	DMWARN("unrecognised message %s", argv[0]);
	return -EINVAL;
}

/* ---- ioctls and device iteration ---- */

/*
 * DM_MPATH_PROBE_PATHS (target 1.15.0): one block read through a path of
 * the PG in use, which is failed if the read fails with a path error, as
 * an I/O's error would have failed it. The read goes to the path itself:
 * no selector, no hardware handler, not counted in the path's statistics.
 */
static int probe_path(struct multipath *m, struct pgpath *pgpath)
{
	struct block_device *bdev = pgpath->path.dev->bdev;
	unsigned int size = bdev_logical_block_size(bdev);
	unsigned int order = get_order(size);
	blk_status_t status;
	unsigned long flags;
	struct page *page;
	struct bio *bio;

	page = alloc_pages(GFP_KERNEL, order);
	if (!page)
		return -ENOMEM;
	bio = bio_alloc(bdev, 1, REQ_OP_READ, GFP_KERNEL);
	bio->bi_iter.bi_sector = 0;
	__bio_add_page(bio, page, size, 0);
	submit_bio_wait(bio);
	status = bio->bi_status;
	bio_put(bio);
	__free_pages(page, order);

	if (status && blk_path_error(status)) {
		spin_lock_irqsave(&m->lock, flags);
		__fail_path(m, pgpath);
		spin_unlock_irqrestore(&m->lock, flags);
	}
	return 0;
}

/*
 * Probe every active path of the PG in use, so that an SG_IO user (QEMU)
 * that saw an error can tell a dead path from a failed command: after it,
 * the map's next SG_IO goes down a path that answered. -ENOTCONN: no
 * usable path is left in the whole map. Nothing is probed while the map is
 * suspended or holds I/O for a pg_init (the PG is not in use yet), nor in
 * the other PGs (reading there would mean switching to them). Concurrent
 * probes each read; upstream makes the second wait for the first and holds
 * back PG switches meanwhile, which changes what is probed, not what a
 * caller sees.
 */
static int probe_active_paths(struct multipath *m)
{
	struct priority_group *pg;
	struct pgpath *pgpath;
	unsigned long flags;
	int r = 0;

	spin_lock_irqsave(&m->lock, flags);
	pg = m->queue_io || m->suspending ? NULL : m->current_pg;
	spin_unlock_irqrestore(&m->lock, flags);

	/* The PG's path list is fixed while the table lives. */
	if (pg) {
		list_for_each_entry(pgpath, &pg->pgpaths, list) {
			if (READ_ONCE(m->current_pg) != pg)
				break;
			if (!READ_ONCE(pgpath->path.is_active))
				continue;
			r = probe_path(m, pgpath);
			if (r)
				return r;
		}
	}

	spin_lock_irqsave(&m->lock, flags);
	if (!m->nr_valid_paths)
		r = -ENOTCONN;
	spin_unlock_irqrestore(&m->lock, flags);
	return r;
}

/*
 * ioctls (SG_IO, BLKGETSIZE64...) go to the current path, chosen here if
 * there is none. -ENOTCONN makes dm core retry shortly: used while a PG is
 * being initialised, and while queue_if_no_path holds I/O for a path.
 * device-mapper's own ioctls are answered here (only on kernels whose dm
 * core passes them: mpath_ioctl_is_dm(); forward is NULL on the others).
 */
static int mpath_prepare_ioctl(struct dm_target *ti, struct block_device **bdev,
			       unsigned int cmd, bool *forward)
{
	struct multipath *m = ti->private;
	struct pgpath *pgpath = NULL;
	unsigned long flags;
	int r = 0;

	if (mpath_ioctl_is_dm(cmd)) {
		*forward = false;
		return mpath_ioctl_is_probe_paths(cmd) ?
			probe_active_paths(m) : -ENOTTY;
	}

	spin_lock_irqsave(&m->lock, flags);

	if (!m->queue_io && m->nr_valid_paths) {
		pgpath = m->current_pgpath;
		if (!pgpath)
			pgpath = __choose_pgpath(m, 0);
	}

	if (pgpath && !m->queue_io) {
		*bdev = pgpath->path.dev->bdev;
	} else if (m->nr_valid_paths) {
		if (!m->pg_init_in_progress)
			__kick(m);
		r = -ENOTCONN;
	} else if (__no_path_action(m) == NP_FAIL) {
		r = -EIO;
	} else {
		r = -ENOTCONN;
	}

	spin_unlock_irqrestore(&m->lock, flags);

	/* A path that is not exactly our size needs CAP_SYS_RAWIO. */
	if (!r && ti->len != bdev_nr_sectors(*bdev))
		return 1;

	return r;
}

static DM_MPATH_PREPARE_IOCTL(multipath_prepare_ioctl)
{
	return mpath_prepare_ioctl(ti, bdev, DM_MPATH_IOCTL_CMD,
				   DM_MPATH_IOCTL_FORWARD);
}

static int multipath_iterate_devices(struct dm_target *ti,
				     iterate_devices_callout_fn fn, void *data)
{
	struct multipath *m = ti->private;
	struct priority_group *pg;
	struct pgpath *p;
	int r;

	/* Sectors go down unchanged: the same range on every path. */
	list_for_each_entry(pg, &m->priority_groups, list) {
		list_for_each_entry(p, &pg->pgpaths, list) {
			r = fn(ti, p->path.dev, ti->begin, ti->len, data);
			if (r)
				return r;
		}
	}

	return 0;
}

/* ---- Module ---- */

static struct target_type multipath_target = {
	.name		  = "multipath",
	/* What multipath-tools reads to pick its grammar: see the docs. */
	.version	  = {1, DM_MPATH_TARGET_MINOR, 0},
	/*
	 * Singleton: one LUN per map, also what ioctl passthrough needs.
	 * Immutable: a live map keeps its target type across reloads
	 * (multipathd relies on it). Integrity: the paths' protection
	 * information profile is the map's, and protected bios keep it on a
	 * retry (see mpio_keep_integrity). Atomic writes: where the kernel's
	 * own target passes them (1.15.0); a bio is sent again whole.
	 */
	.features	  = DM_TARGET_SINGLETON | DM_TARGET_IMMUTABLE |
			    DM_TARGET_PASSES_INTEGRITY | DM_MPATH_ATOMIC_WRITES,
	.module		  = THIS_MODULE,
	.ctr		  = multipath_ctr,
	.dtr		  = multipath_dtr,
	.map		  = multipath_map,
	.end_io		  = multipath_end_io,
	.clone_and_map_rq = multipath_clone_and_map,
	.release_clone_rq = multipath_release_clone,
	.rq_end_io	  = multipath_rq_end_io,
	.busy		  = multipath_busy,
	.presuspend	  = multipath_presuspend,
	.presuspend_undo  = multipath_presuspend_undo,
	.postsuspend	  = multipath_postsuspend,
	.resume		  = multipath_resume,
	.status		  = multipath_status,
	.message	  = multipath_message,
	.prepare_ioctl	  = multipath_prepare_ioctl,
	.iterate_devices  = multipath_iterate_devices,
};

static int __init dm_multipath_init(void)
{
	int r;

	kmpathd = alloc_workqueue("kmpathd", WQ_MEM_RECLAIM | WQ_HIGHPRI |
				  DM_MPATH_WQ_PERCPU, 0);
	if (!kmpathd) {
		DMERR("cannot create workqueue");
		return -ENOMEM;
	}

	/* Statistics are optional: without debugfs the maps work the same. */
	debugfs_dir = debugfs_create_dir("dm-multipath", NULL);

	r = dm_register_target(&multipath_target);
	if (r < 0) {
		DMERR("register failed %d", r);
		debugfs_remove(debugfs_dir);
		destroy_workqueue(kmpathd);
		return r;
	}

	DMINFO("version %u.%u.%u loaded", multipath_target.version[0],
	       multipath_target.version[1], multipath_target.version[2]);

	return 0;
}

static void __exit dm_multipath_exit(void)
{
	dm_unregister_target(&multipath_target);
	debugfs_remove(debugfs_dir);
	destroy_workqueue(kmpathd);
}

module_init(dm_multipath_init);
module_exit(dm_multipath_exit);

MODULE_DESCRIPTION(DM_NAME " multipath target");
MODULE_LICENSE("GPL");
MODULE_VERSION(DM_MPATH_RELEASE);
