/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: the path lists a path selector keeps.
 *
 * Each selector of this tree keeps its paths on two lists: the usable ones
 * (valid), in the order it rotates or breaks ties in, and the failed ones.
 * select_path runs without the map's lock, concurrently with itself and
 * with fail_path/reinstate_path (dm-path-selector.h), so the lists have a
 * spinlock of their own, always taken with interrupts disabled: end_io may
 * run in interrupt context, and the core calls fail/reinstate_path with its
 * own spinlock held and interrupts off (never the other way round).
 *
 * A selector embeds a struct ps_path_list in its context and a list_head in
 * its per-path context; what else a path carries is the selector's own.
 * The choice of a path (which entry of valid, and where it goes next) stays
 * in each selector, under pl->lock.
 */

#ifndef DM_PS_PATH_LIST_H
#define DM_PS_PATH_LIST_H

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct ps_path_list {
	spinlock_t lock;	/* protects the lists and nr_valid's writes */
	struct list_head valid;
	struct list_head failed;
	/* Entries on valid; written under lock, read without it (READ_ONCE). */
	unsigned int nr_valid;
};

static inline void ps_path_list_init(struct ps_path_list *pl)
{
	spin_lock_init(&pl->lock);
	INIT_LIST_HEAD(&pl->valid);
	INIT_LIST_HEAD(&pl->failed);
	pl->nr_valid = 0;
}

/*
 * Move a path between the lists: to the end of valid (usable, last in
 * turn, its table args as given) or to failed. The core calls fail_path
 * once per usable path and reinstate_path once per failed one (it tracks
 * the state), so nr_valid follows.
 */
static inline void ps_path_list_move(struct ps_path_list *pl,
				     struct list_head *entry, bool usable)
{
	unsigned long flags;

	spin_lock_irqsave(&pl->lock, flags);
	if (usable) {
		list_move_tail(entry, &pl->valid);
		WRITE_ONCE(pl->nr_valid, pl->nr_valid + 1);
	} else {
		list_move(entry, &pl->failed);
		WRITE_ONCE(pl->nr_valid, pl->nr_valid - 1);
	}
	spin_unlock_irqrestore(&pl->lock, flags);
}

static inline void ps_path_list_fail(struct ps_path_list *pl,
				     struct list_head *entry)
{
	ps_path_list_move(pl, entry, false);
}

static inline void ps_path_list_reinstate(struct ps_path_list *pl,
					  struct list_head *entry)
{
	ps_path_list_move(pl, entry, true);
}

/* A new path is usable, and last in turn: table order is the first order. */
static inline void ps_path_list_add(struct ps_path_list *pl,
				    struct list_head *entry)
{
	INIT_LIST_HEAD(entry);
	ps_path_list_reinstate(pl, entry);
}

/* The path chosen goes last in turn, so that turns (and ties) rotate. */
static inline void ps_path_list_rotate(struct ps_path_list *pl,
				       struct list_head *entry)
{
	lockdep_assert_held(&pl->lock);
	list_move_tail(entry, &pl->valid);
}

/*
 * The selector's dtr: free every path context, usable or failed. No other
 * user is left (dm-path-selector.h), so the lock is not taken.
 */
static inline void ps_path_list_free(struct ps_path_list *pl,
				     void (*free_entry)(struct list_head *entry))
{
	struct list_head *entry, *next;

	list_splice_init(&pl->failed, &pl->valid);
	list_for_each_safe(entry, next, &pl->valid) {
		list_del(entry);
		free_entry(entry);
	}
	pl->nr_valid = 0;
}

#endif
