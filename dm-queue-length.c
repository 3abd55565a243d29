// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: the queue-length path selector.
 *
 * Sends each I/O down the usable path with the fewest I/Os in flight, so a
 * path that completes faster gets more of them. Among paths with equally
 * short queues the one used longest ago wins.
 *
 * Table: "queue-length 0", per path [<repeat_count>] (default 1). A
 * repeat_count above 1 is accepted for old tables but treated as 1: the
 * choice is made for every I/O.
 */

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "dm-path-selector.h"
#include "dm-ps-path-list.h"

#define DM_MSG_PREFIX "multipath"

#define QL_VERSION	DM_MPATH_RELEASE
#define QL_REPEAT_COUNT	1	/* the only repeat_count that has an effect */

struct ql_path {
	struct list_head list;	/* in ql_selector.paths */
	struct dm_path *path;
	unsigned int repeat_count;	/* as the table gave it, for TABLE status */
};

struct ql_selector {
	/*
	 * valid: least recently chosen first. The in-flight counts are the
	 * core's (dm_path.in_flight, PS_COUNT_IOS): atomics it keeps without
	 * the lists' lock, and without a call into this module per I/O.
	 */
	struct ps_path_list paths;
};

static int ql_ctr(struct path_selector *ps, unsigned int argc, char **argv,
		  char **error)
{
	struct ql_selector *s;

	if (argc)
		return ps_refuse(error, "queue-length: takes no selector arguments",
				 argv[0]);

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		*error = "queue-length: cannot allocate selector";
		return -ENOMEM;
	}

	ps_path_list_init(&s->paths);
	ps->context = s;

	return 0;
}

static void ql_free_path(struct list_head *entry)
{
	kfree(list_entry(entry, struct ql_path, list));
}

static void ql_dtr(struct path_selector *ps)
{
	struct ql_selector *s = ps->context;

	ps_path_list_free(&s->paths, ql_free_path);
	kfree(s);
	ps->context = NULL;
}

/* Per-path args: [<repeat_count>] */
static int ql_add_path(struct path_selector *ps, struct dm_path *path,
		       int argc, char **argv, char **error)
{
	struct ql_selector *s = ps->context;
	unsigned int repeat_count = QL_REPEAT_COUNT;
	struct ql_path *pi;
	int r;

	if (argc > 1)
		return ps_refuse(error,
				 "queue-length: too many path arguments (only <repeat_count>)",
				 argv[1]);

	if (argc == 1 && kstrtouint(argv[0], 10, &repeat_count))
		return ps_refuse(error, "queue-length: invalid repeat_count",
				 argv[0]);

	if (repeat_count > QL_REPEAT_COUNT) {
		DMWARN("queue-length: repeat_count %u is deprecated, using %u",
		       repeat_count, QL_REPEAT_COUNT);
		repeat_count = QL_REPEAT_COUNT;
	}

	pi = kmalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi) {
		*error = "queue-length: cannot allocate path context";
		return -ENOMEM;
	}

	pi->path = path;
	pi->repeat_count = repeat_count;
	path->pscontext = pi;
	r = ps_path_list_add(&s->paths, &pi->list);
	if (r) {
		path->pscontext = NULL;
		kfree(pi);
		*error = "queue-length: cannot allocate path context";
	}

	return r;
}

static void ql_fail_path(struct path_selector *ps, struct dm_path *path)
{
	struct ql_selector *s = ps->context;
	struct ql_path *pi = path->pscontext;

	ps_path_list_fail(&s->paths, &pi->list);
}

static int ql_reinstate_path(struct path_selector *ps, struct dm_path *path)
{
	struct ql_selector *s = ps->context;
	struct ql_path *pi = path->pscontext;

	ps_path_list_reinstate(&s->paths, &pi->list);

	return 0;
}

/* The valid path with the fewest I/Os in flight, the earliest in the list. */
static struct ql_path *ql_shortest(struct ql_selector *s)
{
	struct ql_path *pi, *best = NULL;
	int best_len = INT_MAX;

	lockdep_assert_held(&s->paths.lock);

	list_for_each_entry(pi, &s->paths.valid, list) {
		int len = atomic_read(&pi->path->in_flight);

		if (len < best_len) {
			best = pi;
			best_len = len;
			if (!len)
				break;	/* an idle path: none can be shorter */
		}
	}

	return best;
}

/*
 * The choice among the usable paths, under the lists' lock. The core does
 * not ask while the PG has one usable path (the choice is forced), so this
 * runs only when there is a choice, or on the core's locked slow path.
 */
static struct dm_path *ql_choose(struct ql_selector *s)
{
	struct dm_path *path = NULL;
	struct ql_path *pi;
	unsigned long flags;

	spin_lock_irqsave(&s->paths.lock, flags);
	pi = ql_shortest(s);
	if (pi) {
		ps_path_list_rotate(&s->paths, &pi->list);
		path = pi->path;
	}
	spin_unlock_irqrestore(&s->paths.lock, flags);

	return path;
}

static struct dm_path *ql_select_path(struct path_selector *ps,
				      size_t nr_bytes,
				      unsigned int *repeat_count)
{
	struct ql_selector *s = ps->context;

	/* Queue lengths change with every I/O: choose again for the next. */
	*repeat_count = 1;

	return ql_choose(s);
}

static int ql_status(struct path_selector *ps, struct dm_path *path,
		     status_type_t type, char *result, unsigned int maxlen)
{
	struct ql_path *pi;
	unsigned int sz = 0;

	if (!path) {
		/* No selector arguments, in either status type. */
		DMEMIT("0 ");
		return sz;
	}

	pi = path->pscontext;
	switch (type) {
	case STATUSTYPE_INFO:
		/* info_args = 1: the I/Os in flight on the path */
		DMEMIT("%d ", atomic_read(&path->in_flight));
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

static struct path_selector_type ql_ps = {
	.name		= "queue-length",
	.module		= THIS_MODULE,
	.table_args	= 1,
	.info_args	= 1,
	.counts_in_flight = PS_COUNT_IOS,
	.ctr		= ql_ctr,
	.dtr		= ql_dtr,
	.add_path	= ql_add_path,
	.select_path	= ql_select_path,
	.fail_path	= ql_fail_path,
	.reinstate_path	= ql_reinstate_path,
	.status		= ql_status,
};

module_path_selector(ql_ps, QL_VERSION);

MODULE_DESCRIPTION(DM_NAME " multipath path selector: fewest I/Os in flight");
MODULE_LICENSE("GPL");
MODULE_VERSION(QL_VERSION);
