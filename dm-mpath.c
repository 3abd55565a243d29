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
#include <linux/device-mapper.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "dm-mpath.h"
#include "dm-path-selector.h"
#include "dm-hw-handler.h"

#define DM_MSG_PREFIX "multipath"

/* Upper bound of every count in the table. */
#define MPATH_MAX_COUNT		1024

/*
 * Retries that fail no path (a handler's "just retry", or a bypassed PG)
 * could go round forever: after this many the bio's error is returned.
 */
#define MPATH_MAX_SOFT_RETRIES	16

/* A path and its place in the map. */
struct pgpath {
	struct list_head list;		/* in priority_group->pgpaths */
	struct priority_group *pg;
	unsigned int fail_count;	/* times this path was failed */
	struct dm_path path;
};

#define path_to_pgpath(p) container_of((p), struct pgpath, path)

struct priority_group {
	struct list_head list;		/* in multipath->priority_groups */
	struct multipath *m;
	struct path_selector ps;
	unsigned int pg_num;		/* 1-based position in the table */
	bool bypassed;			/* use only when no other PG can */
	unsigned int nr_pgpaths;
	struct list_head pgpaths;
};

struct multipath {
	struct dm_target *ti;

	/*
	 * Read by map() without the lock: the path to send bios down while
	 * repeat_left lasts, or NULL to make map() take the lock. Non-NULL
	 * only while I/O may go straight to the current path (no pg_init
	 * pending), so the fast path can never reach an uninitialised PG.
	 */
	struct pgpath *fast_pgpath;
	atomic_t repeat_left;

	/* Protects all that follows. Taken in bio completion context too. */
	spinlock_t lock;

	unsigned int nr_valid_paths;
	struct pgpath *current_pgpath;
	struct priority_group *current_pg;
	struct priority_group *next_pg;	/* initial PG, or switch_group */
	struct priority_group *last_pg;	/* last PG used, for PG events */

	bool queue_io;			/* hold all I/O: PG not ready */
	bool pg_init_required;		/* the worker must start pg_init */
	bool pg_init_in_progress;	/* until dm_pg_init_complete() */
	bool pg_init_disabled;		/* suspended or dying: no new pg_init */
	bool queue_if_no_path;
	bool suspending;		/* presuspend .. resume */

	struct bio_list queued_bios;
	unsigned int queue_size;

	/* Fixed after the constructor. */
	unsigned int nr_priority_groups;
	struct list_head priority_groups;
	struct hw_handler hw_handler;
	bool ps_end_io;			/* some selector has an end_io hook */

	struct work_struct process_queued;	/* on kmpathd */
	struct work_struct trigger_event;	/* on system_wq */
	wait_queue_head_t pg_init_wait;
};

/*
 * Per-bio context (ti->per_io_data_size): the path the bio went down and
 * what the lower layers may change in it, so that it can be sent again.
 * The private dm-bio-record.h is not shipped in linux-headers, hence our
 * own record.
 */
struct mpath_io {
	struct pgpath *pgpath;		/* NULL while not sent down a path */
	struct block_device *bi_bdev;
	struct bvec_iter bi_iter;
	bio_end_io_t *bi_end_io;
	int bi_remaining;
	unsigned short bi_flags;
	u8 nr_soft_retries;
	bool had_integrity;
};

/* What to do with a bio when no path is usable. */
enum no_path_action {
	NP_FAIL,
	NP_QUEUE,
	NP_PUSHBACK,
};

/* Resubmission and pg_init; WQ_MEM_RECLAIM as it carries I/O. */
static struct workqueue_struct *kmpathd;

/* ---- Per-bio record ---- */

static void mpio_record(struct mpath_io *mpio, struct bio *bio)
{
	mpio->pgpath = NULL;
	mpio->bi_bdev = bio->bi_bdev;
	mpio->bi_iter = bio->bi_iter;
	mpio->bi_end_io = bio->bi_end_io;
	mpio->bi_remaining = atomic_read(&bio->__bi_remaining);
	mpio->bi_flags = bio->bi_flags;
	mpio->nr_soft_retries = 0;
	mpio->had_integrity = bio_integrity(bio);
}

static void mpio_restore(struct mpath_io *mpio, struct bio *bio)
{
	bio->bi_bdev = mpio->bi_bdev;
	bio->bi_iter = mpio->bi_iter;
	bio->bi_end_io = mpio->bi_end_io;
	atomic_set(&bio->__bi_remaining, mpio->bi_remaining);
	bio->bi_flags = mpio->bi_flags;
	/* Success does not clear bi_status: drop the old error ourselves. */
	bio->bi_status = BLK_STS_OK;
	mpio->pgpath = NULL;
}

/* ---- Allocation ---- */

static struct pgpath *alloc_pgpath(void)
{
	struct pgpath *pgpath = kzalloc(sizeof(*pgpath), GFP_KERNEL);

	if (pgpath)
		pgpath->path.is_active = 1;

	return pgpath;
}

static void free_priority_group(struct priority_group *pg,
				struct dm_target *ti)
{
	struct pgpath *pgpath, *tmp;

	/* The selector refers to the paths: tear it down first. */
	if (pg->ps.type) {
		pg->ps.type->dtr(&pg->ps);
		dm_put_path_selector(pg->ps.type);
	}

	list_for_each_entry_safe(pgpath, tmp, &pg->pgpaths, list) {
		list_del(&pgpath->list);
		dm_put_device(ti, pgpath->path.dev);
		kfree(pgpath);
	}

	kfree(pg);
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

static void process_queued_bios(struct work_struct *work);
static void trigger_event(struct work_struct *work);

static struct multipath *alloc_multipath(struct dm_target *ti)
{
	struct multipath *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return NULL;

	m->ti = ti;
	spin_lock_init(&m->lock);
	atomic_set(&m->repeat_left, 0);
	bio_list_init(&m->queued_bios);
	INIT_LIST_HEAD(&m->priority_groups);
	INIT_WORK(&m->process_queued, process_queued_bios);
	INIT_WORK(&m->trigger_event, trigger_event);
	init_waitqueue_head(&m->pg_init_wait);

	return m;
}

static void free_multipath(struct multipath *m)
{
	struct priority_group *pg, *tmp;
	struct hw_handler *hwh = &m->hw_handler;

	list_for_each_entry_safe(pg, tmp, &m->priority_groups, list) {
		list_del(&pg->list);
		free_priority_group(pg, m->ti);
	}

	if (hwh->type) {
		hwh->type->dtr(hwh);
		dm_put_hw_handler(hwh->type);
	}

	kfree(m);
}

/* ---- Path selection; all with m->lock held ---- */

static void __kick(struct multipath *m)
{
	queue_work(kmpathd, &m->process_queued);
}

/* dm_table_event() takes a mutex: always from a work item. */
static void __queue_event(struct multipath *m)
{
	schedule_work(&m->trigger_event);
}

static void __update_fast_path(struct multipath *m)
{
	WRITE_ONCE(m->fast_pgpath, m->queue_io ? NULL : m->current_pgpath);
}

static void __switch_pg(struct multipath *m, struct priority_group *pg)
{
	struct hw_handler_type *hwht = m->hw_handler.type;

	m->current_pg = pg;
	if (m->last_pg && m->last_pg != pg)
		__queue_event(m);
	m->last_pg = pg;

	/* A PG that needs initialising gets no I/O until that is done. */
	m->pg_init_required = hwht && hwht->pg_init;
	m->queue_io = m->pg_init_required;
}

static bool __choose_path_in_pg(struct multipath *m, struct priority_group *pg)
{
	unsigned int repeat = 0;
	struct dm_path *path;

	path = pg->ps.type->select_path(&pg->ps, &repeat);
	if (!path)
		return false;

	m->current_pgpath = path_to_pgpath(path);

	/*
	 * The bio that made this choice is the first of the budget;
	 * 0 means use the path until it fails.
	 */
	atomic_set(&m->repeat_left,
		   repeat ? min_t(unsigned int, repeat - 1, INT_MAX) : INT_MAX);

	if (m->current_pg != pg)
		__switch_pg(m, pg);

	return true;
}

static struct pgpath *__choose_pgpath(struct multipath *m)
{
	struct priority_group *pg;
	bool bypassed;

	if (!m->nr_valid_paths)
		goto failed;

	/* An explicit switch_group (or the table's initial PG) comes first. */
	if (m->next_pg) {
		pg = m->next_pg;
		m->next_pg = NULL;
		if (__choose_path_in_pg(m, pg))
			goto out;
	}

	/* Otherwise stay in the current PG while it has a usable path. */
	if (m->current_pg && __choose_path_in_pg(m, m->current_pg))
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
			if (__choose_path_in_pg(m, pg))
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
	/* A noflush suspend keeps I/O: dm core holds it for the next table. */
	if (dm_noflush_suspending(m->ti))
		return NP_PUSHBACK;

	/* A flush suspend must be able to complete: it ends queueing. */
	if (m->queue_if_no_path && !m->suspending)
		return NP_QUEUE;

	return NP_FAIL;
}

static void __queue_bio(struct multipath *m, struct bio *bio)
{
	bio_list_add(&m->queued_bios, bio);
	m->queue_size++;
}

/* Can the worker make progress with the queued bios now? */
static bool __can_dispatch(struct multipath *m)
{
	if (dm_noflush_suspending(m->ti))
		return true;	/* push them back */

	if (m->nr_valid_paths)
		return !m->queue_io;

	return __no_path_action(m) != NP_QUEUE;
}

static void __fail_path(struct multipath *m, struct pgpath *pgpath)
{
	if (!pgpath->path.is_active)
		return;

	DMWARN("%s: failing path %s",
	       dm_table_device_name(m->ti->table), pgpath->path.dev->name);

	pgpath->pg->ps.type->fail_path(&pgpath->pg->ps, &pgpath->path);
	pgpath->path.is_active = 0;
	pgpath->fail_count++;
	m->nr_valid_paths--;

	if (pgpath == m->current_pgpath)
		m->current_pgpath = NULL;
	/* After losing every path, initialise the PG again before use. */
	if (!m->nr_valid_paths)
		m->current_pg = NULL;
	__update_fast_path(m);

	dm_path_uevent(DM_UEVENT_PATH_FAILED, m->ti, pgpath->path.dev->name,
		       m->nr_valid_paths);
	__queue_event(m);
}

static int __reinstate_path(struct multipath *m, struct pgpath *pgpath)
{
	struct path_selector *ps = &pgpath->pg->ps;
	int r;

	if (pgpath->path.is_active)
		return 0;

	r = ps->type->reinstate_path(ps, &pgpath->path);
	if (r)
		return r;

	DMINFO("%s: reinstating path %s",
	       dm_table_device_name(m->ti->table), pgpath->path.dev->name);

	pgpath->path.is_active = 1;
	m->nr_valid_paths++;

	/* Let the selector consider the path at the next choice. */
	if (!m->queue_io) {
		m->current_pgpath = NULL;
		__update_fast_path(m);
	}

	if (m->queue_size)
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
	m->current_pgpath = NULL;
	m->current_pg = NULL;
	__update_fast_path(m);

	if (m->queue_size)
		__kick(m);
	__queue_event(m);
}

static void __bypass_pg(struct multipath *m, struct priority_group *pg,
			bool bypassed)
{
	pg->bypassed = bypassed;
	__choose_again(m);
}

/* ---- Mapping and the worker ---- */

static int __no_path(struct multipath *m, struct bio *bio)
{
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
 * The locked part of mapping, for map() when the fast path cannot be used
 * and for the worker. Returns a DM_MAPIO_* value.
 */
static int map_bio_locked(struct multipath *m, struct bio *bio,
			  struct mpath_io *mpio)
{
	struct pgpath *pgpath = NULL;
	unsigned long flags;
	int r;

	spin_lock_irqsave(&m->lock, flags);

	if (!m->queue_io && m->nr_valid_paths) {
		pgpath = m->current_pgpath;
		if (!pgpath || atomic_dec_return(&m->repeat_left) < 0)
			pgpath = __choose_pgpath(m);
	}

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
		mpio->pgpath = pgpath;
		r = DM_MAPIO_REMAPPED;
	}

	spin_unlock_irqrestore(&m->lock, flags);

	if (r == DM_MAPIO_REMAPPED)
		bio_set_dev(bio, pgpath->path.dev->bdev);

	return r;
}

static int multipath_map(struct dm_target *ti, struct bio *bio)
{
	struct multipath *m = ti->private;
	struct mpath_io *mpio = dm_per_bio_data(bio, sizeof(*mpio));
	struct pgpath *pgpath;

	mpio_record(mpio, bio);

	/* Do not let lower layers retry a dead transport: we have others. */
	bio->bi_opf |= REQ_FAILFAST_TRANSPORT;

	pgpath = READ_ONCE(m->fast_pgpath);
	if (likely(pgpath && atomic_dec_return(&m->repeat_left) >= 0)) {
		mpio->pgpath = pgpath;
		bio_set_dev(bio, pgpath->path.dev->bdev);
		return DM_MAPIO_REMAPPED;
	}

	return map_bio_locked(m, bio, mpio);
}

static void dispatch_bios(struct multipath *m, struct bio_list *bios)
{
	struct blk_plug plug;
	struct bio *bio;

	blk_start_plug(&plug);
	while ((bio = bio_list_pop(bios))) {
		struct mpath_io *mpio = dm_per_bio_data(bio, sizeof(*mpio));

		switch (map_bio_locked(m, bio, mpio)) {
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
	struct bio_list bios;
	unsigned long flags;

	bio_list_init(&bios);

	spin_lock_irqsave(&m->lock, flags);

	/* dm_pg_init_complete() queues this work again. */
	if (m->pg_init_in_progress)
		goto out;

	if (m->nr_valid_paths && !m->current_pgpath)
		__choose_pgpath(m);

	if (m->pg_init_required && m->current_pgpath &&
	    !m->pg_init_disabled) {
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
out:
	spin_unlock_irqrestore(&m->lock, flags);

	/* Never under the spinlock: the handler may allocate. */
	if (init_pgpath)
		hwh->type->pg_init(hwh, init_bypassed, &init_pgpath->path);
	else
		dispatch_bios(m, &bios);
}

static void trigger_event(struct work_struct *work)
{
	struct multipath *m = container_of(work, struct multipath,
					   trigger_event);

	dm_table_event(m->ti->table);
}

/*
 * Called by the hardware handler, once per pg_init, from any context
 * (often a request's end_io): must not sleep.
 */
void dm_pg_init_complete(struct dm_path *path, unsigned int err_flags)
{
	struct pgpath *pgpath = path_to_pgpath(path);
	struct priority_group *pg = pgpath->pg;
	struct multipath *m = pg->m;
	struct bio_list failed;
	unsigned long flags;
	struct bio *bio;

	bio_list_init(&failed);

	spin_lock_irqsave(&m->lock, flags);

	if (!m->pg_init_in_progress) {
		spin_unlock_irqrestore(&m->lock, flags);
		DMERR("%s: pg_init completion for %s without pg_init",
		      dm_table_device_name(m->ti->table), path->dev->name);
		return;
	}

	/* A bypassed PG was already the last resort: blame the path. */
	if (err_flags && pg->bypassed)
		err_flags |= MP_FAIL_PATH;

	if (err_flags & MP_FAIL_PATH)
		__fail_path(m, pgpath);

	if ((err_flags & MP_BYPASS_PG) && !pg->bypassed)
		__bypass_pg(m, pg, true);

	if (!err_flags && pgpath == m->current_pgpath) {
		m->queue_io = false;
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

	if (err_flags & MP_ERROR_IO) {
		bio_list_merge(&failed, &m->queued_bios);
		bio_list_init(&m->queued_bios);
		m->queue_size = 0;
	}

	m->pg_init_in_progress = false;
	__kick(m);
	/* Under the lock: a waiter takes it before freeing m. */
	wake_up(&m->pg_init_wait);

	spin_unlock_irqrestore(&m->lock, flags);

	while ((bio = bio_list_pop(&failed))) {
		bio->bi_status = BLK_STS_IOERR;
		bio_endio(bio);
	}
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

	flush_work(&m->process_queued);
	flush_work(&m->trigger_event);
}

/*
 * Constructor:
 * <#features> [queue_if_no_path]
 * <#hw args> [<hw handler> [<hw arg>]*]
 * <#PGs> <initial PG>
 * { <selector> <#selector args> [<selector arg>]*
 * <#paths> <#path args> { <device> [<path arg>]* }+ }*
 */

struct mp_count {
	struct dm_arg arg;	/* range, and the error if out of it */
	char *missing;		/* the error if the word is absent */
};

static int read_count(struct dm_arg_set *as, const struct mp_count *c,
		      unsigned int *value, char **error)
{
	if (!as->argc) {
		*error = c->missing;
		return -EINVAL;
	}

	/*
	 * dm_read_arg() reads with sscanf("%u"), which wraps a number past
	 * UINT_MAX into range (4294967297 would read as 1): refuse it here.
	 */
	if (isdigit(*as->argv[0]) &&
	    kstrtouint(as->argv[0], 10, value) == -ERANGE) {
		*error = c->arg.error;
		return -EINVAL;
	}

	return dm_read_arg(&c->arg, as, value, error);
}

static int parse_features(struct dm_arg_set *as, struct multipath *m,
			  struct dm_target *ti)
{
	static const struct mp_count count = {
		{0, 1, "invalid number of feature arguments"},
		"missing number of feature arguments",
	};
	unsigned int argc;
	const char *word;
	int r;

	r = read_count(as, &count, &argc, &ti->error);
	if (r || !argc)
		return r;

	word = dm_shift_arg(as);
	if (!word) {
		ti->error = "not enough feature arguments";
		return -EINVAL;
	}

	if (strcasecmp(word, "queue_if_no_path")) {
		ti->error = "unrecognised feature";
		return -EINVAL;
	}

	m->queue_if_no_path = true;

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
	int r;

	r = read_count(as, &count, &argc, &ti->error);
	if (r || !argc)
		return r;

	if (as->argc < argc) {
		ti->error = "not enough hardware handler arguments";
		return -EINVAL;
	}

	/* The count includes the handler's name. */
	hwht = dm_get_hw_handler(dm_shift_arg(as));
	if (!hwht) {
		ti->error = "unknown hardware handler type";
		return -EINVAL;
	}

	r = hwht->ctr(&m->hw_handler, argc - 1, as->argv);
	if (r) {
		dm_put_hw_handler(hwht);
		ti->error = "hardware handler constructor failed";
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
	int r;

	if (!as->argc) {
		ti->error = "missing path selector name";
		return -EINVAL;
	}

	pst = dm_get_path_selector(dm_shift_arg(as));
	if (!pst) {
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

	r = pst->ctr(&pg->ps, argc, as->argv);
	if (r) {
		ti->error = "path selector constructor failed";
		goto bad;
	}

	pg->ps.type = pst;
	if (pst->end_io)
		m->ps_end_io = true;
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
	struct pgpath *p;
	int r;

	p = alloc_pgpath();
	if (!p) {
		ti->error = "cannot allocate path";
		return ERR_PTR(-ENOMEM);
	}

	r = dm_get_device(ti, dm_shift_arg(as), dm_table_get_mode(ti->table),
			  &p->path.dev);
	if (r) {
		ti->error = "error getting device";
		kfree(p);
		return ERR_PTR(-EINVAL);
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

	r = pg->ps.type->add_path(&pg->ps, &p->path, as->argc, as->argv,
				  &ti->error);
	if (r)
		goto bad;

	p->pg = pg;

	return p;

bad:
	dm_put_device(ti, p->path.dev);
	kfree(p);
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
	free_priority_group(pg, ti);
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

	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
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

	quiesce_multipath(m);
	free_multipath(m);
}

/* ---- Completion ---- */

static void ps_end_io(struct multipath *m, struct pgpath *pgpath)
{
	struct path_selector *ps = &pgpath->pg->ps;
	unsigned long flags;

	if (!ps->type->end_io)
		return;

	spin_lock_irqsave(&m->lock, flags);
	ps->type->end_io(ps, &pgpath->path);
	spin_unlock_irqrestore(&m->lock, flags);
}

static int end_io_error(struct multipath *m, struct bio *bio,
			struct mpath_io *mpio, blk_status_t *error)
{
	struct hw_handler *hwh = &m->hw_handler;
	struct pgpath *pgpath = mpio->pgpath;
	unsigned int err_flags;
	unsigned long flags;
	int r = DM_ENDIO_DONE;

	if (hwh->type && hwh->type->err)
		err_flags = hwh->type->err(hwh, bio, *error);
	else
		err_flags = dm_scsi_err_handler(hwh, bio, *error);

	spin_lock_irqsave(&m->lock, flags);

	if (err_flags & MP_FAIL_PATH)
		__fail_path(m, pgpath);

	if ((err_flags & MP_BYPASS_PG) && !pgpath->pg->bypassed)
		__bypass_pg(m, pgpath->pg, true);

	/* An error of the I/O itself goes back to the caller unchanged. */
	if (err_flags & MP_ERROR_IO)
		goto out;

	/*
	 * The block layer frees an integrity payload at completion, so a
	 * bio that came with one cannot be sent again. (We do not advertise
	 * DM_TARGET_PASSES_INTEGRITY: such bios should not reach us.)
	 */
	if (unlikely(mpio->had_integrity))
		goto out;

	if (!(err_flags & MP_FAIL_PATH) &&
	    ++mpio->nr_soft_retries > MPATH_MAX_SOFT_RETRIES) {
		DMERR_LIMIT("%s: giving up on a bio after %u retries",
			    dm_table_device_name(m->ti->table),
			    MPATH_MAX_SOFT_RETRIES);
		goto out;
	}

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
	struct multipath *m = ti->private;
	struct mpath_io *mpio = dm_per_bio_data(bio, sizeof(*mpio));
	struct pgpath *pgpath = mpio->pgpath;

	if (unlikely(m->ps_end_io) && pgpath)
		ps_end_io(m, pgpath);

	if (likely(!*error))
		return DM_ENDIO_DONE;

	/* Completed by us rather than by a path: nothing to retry. */
	if (!pgpath)
		return *error == BLK_STS_DM_REQUEUE ? DM_ENDIO_REQUEUE :
						       DM_ENDIO_DONE;

	return end_io_error(m, bio, mpio, error);
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
	if (m->queue_size)
		__kick(m);
	spin_unlock_irqrestore(&m->lock, flags);
}

static void multipath_resume_io(struct multipath *m)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	m->suspending = false;
	m->pg_init_disabled = false;
	if (m->queue_size || m->pg_init_required)
		__kick(m);
	spin_unlock_irqrestore(&m->lock, flags);
}

static void multipath_presuspend_undo(struct dm_target *ti)
{
	multipath_resume_io(ti->private);
}

static void multipath_postsuspend(struct dm_target *ti)
{
	quiesce_multipath(ti->private);
}

static void multipath_resume(struct dm_target *ti)
{
	multipath_resume_io(ti->private);
}

/*
 * Status
 * INFO:  1 <queue size>
 * <#hw status words> [words]*
 * <#PGs> <current or next PG>
 * { A|D|E <#selector words> [words]* <#paths> <#selector path words>
 * { <device> A|F <fail count> [selector path words]* }+ }*
 * TABLE: the constructor string reproducing the map (see the ctr).
 */

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
	struct hw_handler *hwh = &m->hw_handler;
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

	/* Features */
	if (type == STATUSTYPE_INFO)
		DMEMIT("1 %u ", m->queue_size);
	else if (m->queue_if_no_path)
		DMEMIT("1 queue_if_no_path ");
	else
		DMEMIT("0 ");

	/* Hardware handler: with a status hook it emits the whole section. */
	if (hwh->type && hwh->type->status)
		sz += hwh->type->status(hwh, type, result + sz, maxlen - sz);
	else if (!hwh->type || type == STATUSTYPE_INFO)
		DMEMIT("0 ");
	else
		DMEMIT("1 %s ", hwh->type->name);

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

static void set_queue_if_no_path(struct multipath *m, bool queue)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	m->queue_if_no_path = queue;
	/* Without queueing, bios waiting for a path fail now. */
	if (!queue && m->queue_size)
		__kick(m);
	spin_unlock_irqrestore(&m->lock, flags);
}

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

static int switch_pg(struct multipath *m, struct priority_group *pg)
{
	struct priority_group *each;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	/* An explicit choice: the group states start afresh. */
	list_for_each_entry(each, &m->priority_groups, list)
		each->bypassed = false;
	m->next_pg = pg;
	__choose_again(m);
	spin_unlock_irqrestore(&m->lock, flags);

	return 0;
}

static int bypass_pg(struct multipath *m, struct priority_group *pg,
		     bool bypassed)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	__bypass_pg(m, pg, bypassed);
	spin_unlock_irqrestore(&m->lock, flags);

	return 0;
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
		*devt = dm_get_dev_t(arg);
		if (*devt)
			return 0;
	}

	DMWARN("%s: cannot find device %s", cmd, arg);
	return -EINVAL;
}

static int path_action(struct multipath *m, const char *cmd, const char *arg,
		       bool fail)
{
	struct priority_group *pg;
	struct pgpath *p;
	unsigned long flags;
	dev_t devt;
	int r;

	r = parse_dev(cmd, arg, &devt);
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
		DMWARN("%s: %s is not a path of this map", cmd, arg);
		return -EINVAL;
	}
	if (r)
		DMWARN("%s: %s refused by the path selector (%d)", cmd, arg, r);

	return r;
}

static int multipath_message(struct dm_target *ti, unsigned int argc,
			     char **argv, char *result, unsigned int maxlen)
{
	struct multipath *m = ti->private;
	struct priority_group *pg;
	const char *cmd;
	unsigned int want;

	if (!argc) {
		DMWARN("empty message");
		return -EINVAL;
	}
	cmd = argv[0];

	if (!strcasecmp(cmd, "queue_if_no_path") ||
	    !strcasecmp(cmd, "fail_if_no_path"))
		want = 1;
	else if (!strcasecmp(cmd, "switch_group") ||
		 !strcasecmp(cmd, "disable_group") ||
		 !strcasecmp(cmd, "enable_group") ||
		 !strcasecmp(cmd, "fail_path") ||
		 !strcasecmp(cmd, "reinstate_path"))
		want = 2;
	else
		want = 0;

	if (!want) {
		DMWARN("unrecognised message %s", cmd);
		return -EINVAL;
	}

	if (argc != want) {
		DMWARN("message %s takes %u argument%s, got %u", cmd,
		       want - 1, want == 2 ? "" : "s", argc - 1);
		return -EINVAL;
	}

	if (!strcasecmp(cmd, "queue_if_no_path")) {
		set_queue_if_no_path(m, true);
		return 0;
	}
	if (!strcasecmp(cmd, "fail_if_no_path")) {
		set_queue_if_no_path(m, false);
		return 0;
	}

	if (!strcasecmp(cmd, "fail_path"))
		return path_action(m, cmd, argv[1], true);
	if (!strcasecmp(cmd, "reinstate_path"))
		return path_action(m, cmd, argv[1], false);

	pg = find_pg(m, cmd, argv[1]);
	if (!pg)
		return -EINVAL;

	if (!strcasecmp(cmd, "switch_group"))
		return switch_pg(m, pg);

	return bypass_pg(m, pg, !strcasecmp(cmd, "disable_group"));
}

/* ---- ioctls and device iteration ---- */

/*
 * ioctls (SG_IO, BLKGETSIZE64...) go to the current path, chosen here if
 * there is none. -ENOTCONN makes dm core retry shortly: used while a PG is
 * being initialised, and while queue_if_no_path holds I/O for a path.
 */
static int multipath_prepare_ioctl(struct dm_target *ti,
				   struct block_device **bdev)
{
	struct multipath *m = ti->private;
	struct pgpath *pgpath = NULL;
	unsigned long flags;
	int r = 0;

	spin_lock_irqsave(&m->lock, flags);

	if (!m->queue_io && m->nr_valid_paths) {
		pgpath = m->current_pgpath;
		if (!pgpath)
			pgpath = __choose_pgpath(m);
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
	.version	  = {1, 0, 4},
	/* One LUN per map: also what ioctl passthrough needs. */
	.features	  = DM_TARGET_SINGLETON,
	.module		  = THIS_MODULE,
	.ctr		  = multipath_ctr,
	.dtr		  = multipath_dtr,
	.map		  = multipath_map,
	.end_io		  = multipath_end_io,
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

	kmpathd = alloc_workqueue("kmpathd", WQ_MEM_RECLAIM, 0);
	if (!kmpathd) {
		DMERR("cannot create workqueue");
		return -ENOMEM;
	}

	r = dm_register_target(&multipath_target);
	if (r < 0) {
		DMERR("register failed %d", r);
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
	destroy_workqueue(kmpathd);
}

module_init(dm_multipath_init);
module_exit(dm_multipath_exit);

MODULE_DESCRIPTION(DM_NAME " multipath target");
MODULE_LICENSE("GPL");
