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
 *
 * The usable paths are also kept as an array (usable[], nr_valid entries),
 * rewritten under the lock in valid's order whenever a path moves between
 * the lists (add, fail, reinstate), so that select_path can read them
 * without the lock. ps_path_list_rotate() reorders valid only: after a
 * rotation usable[] keeps the order of the last move, and a lockless
 * reader must not take its order for the list's (the selectors choose by
 * an index or a measure of their own, not by position): the lock and the list
 * checks of a debug-list kernel cost more than the choice itself. A
 * lockless reader may see the array halfway through a move: every slot
 * below the capacity always holds one of this selector's paths (a failed
 * one at worst, which the core handles as it does a path that fails right
 * after being chosen), never a freed or NULL one.
 */

#ifndef DM_PS_PATH_LIST_H
#define DM_PS_PATH_LIST_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct ps_path_list {
	spinlock_t lock;	/* protects the lists and nr_valid's writes */
	struct list_head valid;
	struct list_head failed;
	/*
	 * Entries on valid; written under lock (after usable[], release),
	 * read without it (acquire, or READ_ONCE where usable[] is not read).
	 */
	unsigned int nr_valid;
	/* valid as an array, for lockless readers; capacity: paths added */
	struct list_head **usable;
	unsigned int capacity;
};

static inline void ps_path_list_init(struct ps_path_list *pl)
{
	spin_lock_init(&pl->lock);
	INIT_LIST_HEAD(&pl->valid);
	INIT_LIST_HEAD(&pl->failed);
	pl->nr_valid = 0;
	pl->usable = NULL;
	pl->capacity = 0;
}

/*
 * The usable paths without the lock: returns how many, *usable the array
 * (valid only up to that count; see above for what a racing move leaves).
 */
static inline unsigned int ps_path_list_usable(struct ps_path_list *pl,
					       struct list_head *const **usable)
{
	/* Pairs with the release in __ps_path_list_publish(): slots first. */
	unsigned int n = smp_load_acquire(&pl->nr_valid);

	*usable = pl->usable;
	return n;
}

/* Rewrite usable[] from valid, then publish the count. */
static inline void __ps_path_list_publish(struct ps_path_list *pl,
					  unsigned int nr_valid)
{
	struct list_head *entry;
	unsigned int i = 0;

	lockdep_assert_held(&pl->lock);
	list_for_each(entry, &pl->valid)
		WRITE_ONCE(pl->usable[i++], entry);
	/* The slots before the count (acquire in ps_path_list_usable()). */
	smp_store_release(&pl->nr_valid, nr_valid);
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
		__ps_path_list_publish(pl, pl->nr_valid + 1);
	} else {
		list_move(entry, &pl->failed);
		__ps_path_list_publish(pl, pl->nr_valid - 1);
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

/*
 * A new path is usable, and last in turn: table order is the first order.
 * From add_path (may sleep; no reader yet: the table is not live). Returns
 * -ENOMEM, with nothing changed, when usable[] cannot grow.
 */
static inline int ps_path_list_add(struct ps_path_list *pl,
				   struct list_head *entry)
{
	struct list_head **usable;

	usable = krealloc_array(pl->usable, pl->capacity + 1, sizeof(*usable),
				GFP_KERNEL);
	if (!usable)
		return -ENOMEM;
	/* Never an empty slot below the capacity. */
	usable[pl->capacity] = entry;
	pl->usable = usable;
	pl->capacity++;

	INIT_LIST_HEAD(entry);
	ps_path_list_reinstate(pl, entry);

	return 0;
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
	kfree(pl->usable);
	pl->usable = NULL;
	pl->capacity = 0;
}

#endif
