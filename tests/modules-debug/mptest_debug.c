// SPDX-License-Identifier: GPL-2.0-only
/*
 * Planted bugs for the debug kernel's self-tests.
 *
 * Each load commits exactly one bug, chosen by the "bug" parameter, so that
 * its scenario can show the kernel-log judge flags that class of report.
 * The module never does anything else: it exists to prove that lockdep,
 * KASAN, UBSAN, DEBUG_OBJECTS and kmemleak are live in the guest and that
 * their reports fail a scenario.
 *
 * The bugs live in non-__init functions: kmemleak and KASAN print the
 * allocation and access stacks with symbols, and symbols in .init.text are
 * gone once init has returned.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/string.h>

static char *bug;
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "planted bug: uaf, lockdep, ubsan, odebug or leak");

struct mptest_obj {
	int value;
	char pad[60];
};

/* KASAN: read a field of a freed object. */
static noinline void mptest_uaf(void)
{
	struct mptest_obj *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

	if (!obj)
		return;
	obj->value = 42;
	kfree(obj);
	/* Hide the free from the compiler, which would warn or fold it. */
	OPTIMIZER_HIDE_VAR(obj);
	pr_info("planted use-after-free read %d\n", READ_ONCE(obj->value));
}

/*
 * lockdep: take two locks in both orders.  One thread cannot deadlock on
 * this, but lockdep reports the possible circular dependency at once.
 */
static DEFINE_MUTEX(mptest_lock_a);
static DEFINE_MUTEX(mptest_lock_b);

static noinline void mptest_lock_inversion(void)
{
	mutex_lock(&mptest_lock_a);
	mutex_lock(&mptest_lock_b);
	mutex_unlock(&mptest_lock_b);
	mutex_unlock(&mptest_lock_a);

	mutex_lock(&mptest_lock_b);
	mutex_lock(&mptest_lock_a);
	mutex_unlock(&mptest_lock_a);
	mutex_unlock(&mptest_lock_b);
	pr_info("planted lock-order inversion done\n");
}

/* UBSAN: index past the end of an array (read only, inside the struct). */
static noinline void mptest_ubsan(void)
{
	struct {
		int arr[4];
		int after;
	} s = { .after = 7 };
	int idx = ARRAY_SIZE(s.arr);

	OPTIMIZER_HIDE_VAR(idx);
	pr_info("planted out-of-bounds index read %d\n", s.arr[idx]);
}

/*
 * DEBUG_OBJECTS: free memory holding an armed timer.  The debugobjects
 * fixup deletes the timer before the memory goes, so nothing fires later.
 */
static void mptest_timer_fn(struct timer_list *t)
{
}

static noinline void mptest_odebug(void)
{
	struct timer_list *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return;
	timer_setup(t, mptest_timer_fn, 0);
	mod_timer(t, jiffies + 3600 * HZ);
	kfree(t);
	pr_info("planted free of an active timer done\n");
}

/* kmemleak: lose the only reference to an allocation. */
static noinline void mptest_leak(void)
{
	char *p = kmalloc(128, GFP_KERNEL);

	if (!p)
		return;
	strscpy(p, "mptest_debug planted leak", 128);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("planted leak of 128 bytes\n");
}

static const struct {
	const char *name;
	void (*fn)(void);
} mptest_bugs[] = {
	{ "uaf", mptest_uaf },
	{ "lockdep", mptest_lock_inversion },
	{ "ubsan", mptest_ubsan },
	{ "odebug", mptest_odebug },
	{ "leak", mptest_leak },
};

static int __init mptest_debug_init(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mptest_bugs); i++) {
		if (bug && !strcmp(bug, mptest_bugs[i].name)) {
			mptest_bugs[i].fn();
			return 0;
		}
	}
	pr_err("bug=%s: expected uaf, lockdep, ubsan, odebug or leak\n",
	       bug ? bug : "(unset)");
	return -EINVAL;
}

static void __exit mptest_debug_exit(void)
{
}

module_init(mptest_debug_init);
module_exit(mptest_debug_exit);

MODULE_DESCRIPTION("Planted bugs for the debug kernel's checker self-tests");
MODULE_LICENSE("GPL");
