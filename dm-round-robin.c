// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: the round-robin path selector.
 *
 * Uses each usable path of a priority group in turn, for repeat_count I/Os
 * at a time (a per-path table argument, default 1000), which gives a
 * primitive way to balance unequal paths.
 */

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "dm-path-selector.h"
#include "dm-ps-path-list.h"

#define DM_MSG_PREFIX "multipath"

#define RR_VERSION	DM_MPATH_RELEASE
#define RR_REPEAT_COUNT	1000	/* default I/Os per path before moving on */

struct rr_path {
	struct list_head list;	/* in rr_selector.paths */
	struct dm_path *path;
	unsigned int repeat_count;
};

struct rr_selector {
	/*
	 * valid: the order of the turns. select_path runs without the map's
	 * lock when repeat_count is 1 (the core asks for every bio), so it
	 * takes no lock either: it reads the usable paths as an array
	 * (dm-ps-path-list.h) and takes the next turn from an atomic
	 * counter. Turn t goes to usable[t % nr_valid]; a path that fails or
	 * comes back reorders the array, and the turns go on from where the
	 * counter is. (At 2^32 turns the counter wraps: with a path count
	 * that is not a power of 2, that one turn repeats a path.)
	 */
	struct ps_path_list paths;
	atomic_t turns;
};

static void rr_free_path(struct list_head *entry)
{
	kfree(list_entry(entry, struct rr_path, list));
}

static int rr_ctr(struct path_selector *ps, unsigned int argc, char **argv,
		  char **error)
{
	struct rr_selector *s;

	if (argc)
		return ps_refuse(error, "round-robin: takes no selector arguments",
				 argv[0]);

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		*error = "round-robin: cannot allocate selector";
		return -ENOMEM;
	}

	ps_path_list_init(&s->paths);
	atomic_set(&s->turns, 0);
	ps->context = s;

	return 0;
}

static void rr_dtr(struct path_selector *ps)
{
	struct rr_selector *s = ps->context;

	ps_path_list_free(&s->paths, rr_free_path);
	kfree(s);
	ps->context = NULL;
}

/* Per-path args: [repeat_count]; 0 means stay on the path until it fails. */
static int rr_add_path(struct path_selector *ps, struct dm_path *path,
		       int argc, char **argv, char **error)
{
	struct rr_selector *s = ps->context;
	unsigned int repeat_count = RR_REPEAT_COUNT;
	struct rr_path *pi;
	int r;

	if (argc > 1)
		return ps_refuse(error, "round-robin: too many path arguments",
				 argv[1]);

	if (argc == 1 && kstrtouint(argv[0], 10, &repeat_count))
		return ps_refuse(error, "round-robin: invalid repeat_count",
				 argv[0]);

	pi = kmalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi) {
		*error = "round-robin: cannot allocate path context";
		return -ENOMEM;
	}

	pi->path = path;
	pi->repeat_count = repeat_count;
	path->pscontext = pi;
	/* Table order is the order of first use. */
	r = ps_path_list_add(&s->paths, &pi->list);
	if (r) {
		path->pscontext = NULL;
		kfree(pi);
		*error = "round-robin: cannot allocate path context";
	}

	return r;
}

static void rr_fail_path(struct path_selector *ps, struct dm_path *path)
{
	struct rr_selector *s = ps->context;
	struct rr_path *pi = path->pscontext;

	ps_path_list_fail(&s->paths, &pi->list);
}

static int rr_reinstate_path(struct path_selector *ps, struct dm_path *path)
{
	struct rr_selector *s = ps->context;
	struct rr_path *pi = path->pscontext;

	/* Back at the end of the rotation, with its repeat_count unchanged. */
	ps_path_list_reinstate(&s->paths, &pi->list);

	return 0;
}

static struct dm_path *rr_select_path(struct path_selector *ps,
				      size_t nr_bytes,
				      unsigned int *repeat_count)
{
	struct rr_selector *s = ps->context;
	struct list_head *const *usable;
	unsigned int n, turn = 0;
	struct rr_path *pi;

	n = ps_path_list_usable(&s->paths, &usable);
	if (!n)
		return NULL;
	/* One path: no turn to take (and no shared counter to bounce). */
	if (n > 1)
		turn = (unsigned int)atomic_fetch_inc(&s->turns) % n;
	pi = list_entry(READ_ONCE(usable[turn]), struct rr_path, list);
	*repeat_count = pi->repeat_count;

	return pi->path;
}

static int rr_status(struct path_selector *ps, struct dm_path *path,
		     status_type_t type, char *result, unsigned int maxlen)
{
	struct rr_path *pi;
	unsigned int sz = 0;

	if (!path) {
		/* No selector arguments, in either status type. */
		if (type == STATUSTYPE_INFO || type == STATUSTYPE_TABLE)
			DMEMIT("0 ");
		return sz;
	}

	/* table_args = 1: the repeat_count; info_args = 0. */
	if (type == STATUSTYPE_TABLE) {
		pi = path->pscontext;
		DMEMIT("%u ", pi->repeat_count);
	}

	return sz;
}

static struct path_selector_type rr_ps = {
	.name		= "round-robin",
	.module		= THIS_MODULE,
	.table_args	= 1,
	.info_args	= 0,
	.ctr		= rr_ctr,
	.dtr		= rr_dtr,
	.add_path	= rr_add_path,
	.select_path	= rr_select_path,
	.fail_path	= rr_fail_path,
	.reinstate_path	= rr_reinstate_path,
	.status		= rr_status,
};

module_path_selector(rr_ps, RR_VERSION);

MODULE_DESCRIPTION(DM_NAME " round-robin multipath path selector");
MODULE_LICENSE("GPL");
MODULE_VERSION(RR_VERSION);
