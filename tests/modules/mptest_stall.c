// SPDX-License-Identifier: GPL-2.0-only
/*
 * Widen a race window in another module, for a scenario that must hit it.
 *
 * A kprobe on a function's entry (default: dm-multipath's map_bio_chosen,
 * entered after map() asked the selector without m->lock and before it
 * takes the lock to install that choice) holds the thread that got there,
 * once it is armed, until the scenario releases it (or hold_ms passed):
 * the scenario changes the map from another CPU meanwhile (fails every
 * path, reinstates one), then the thread goes on with the choice it made
 * before the change. Armed by writing 1 to "armed"; one hit disarms it, so
 * that exactly one bio is held. "holding" is 1 while one is held (the
 * scenario waits for it before changing the map), "release" lets it go,
 * "hits" counts the holds done and "expired" those that ran out of time
 * (a scenario too slow to use its window must not pass by luck).
 *
 * The probe sits on the function's first instruction, which ftrace patches
 * (KPROBES_ON_FTRACE, Debian's configuration): the handler runs with
 * preemption off but interrupts on, so holding there delays only this
 * thread. Test-only: never installed, loaded by path by its scenario.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/atomic.h>

static char *symbol = "map_bio_chosen";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "function whose entry is delayed (default map_bio_chosen)");

static unsigned int hold_ms = 10000;
module_param(hold_ms, uint, 0644);
MODULE_PARM_DESC(hold_ms, "longest hold of one call, ms (at most 15000)");

static int armed;
module_param(armed, int, 0644);
MODULE_PARM_DESC(armed, "1: hold the next call (one only), then 0 again");

static int release;
module_param(release, int, 0644);
MODULE_PARM_DESC(release, "1: let the held call go on");

static int holding;
module_param(holding, int, 0444);
MODULE_PARM_DESC(holding, "1 while a call is held");

static int hits;
module_param(hits, int, 0444);
MODULE_PARM_DESC(hits, "calls held so far");

static int expired;
module_param(expired, int, 0444);
MODULE_PARM_DESC(expired, "holds that ended at hold_ms, not released");

/* Below the soft-lockup report (20 s without scheduling on this CPU). */
#define MPTEST_HOLD_MAX_MS	15000

static int mptest_stall_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long deadline;

	/* One caller wins the arming; every other call goes through. */
	if (cmpxchg(&armed, 1, 0) != 1)
		return 0;

	deadline = jiffies + msecs_to_jiffies(min_t(unsigned int, READ_ONCE(hold_ms),
						    MPTEST_HOLD_MAX_MS));
	WRITE_ONCE(release, 0);
	WRITE_ONCE(holding, 1);
	/*
	 * A calibrated delay between looks, and jiffies (a memory read) for
	 * the clock: an emulated guest's clocksource may be a device register
	 * whose reads, in a tight loop, starve the other CPUs.
	 */
	while (!READ_ONCE(release)) {
		if (time_after(jiffies, deadline)) {
			WRITE_ONCE(expired, READ_ONCE(expired) + 1);
			break;
		}
		mdelay(1);
	}
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);
	WRITE_ONCE(holding, 0);
	return 0;
}

static struct kprobe mptest_stall_probe = {
	.pre_handler = mptest_stall_pre,
};

static int __init mptest_stall_init(void)
{
	int r;

	mptest_stall_probe.symbol_name = symbol;
	r = register_kprobe(&mptest_stall_probe);
	if (r) {
		pr_err("cannot probe %s: %d\n", symbol, r);
		return r;
	}
	pr_info("probing %pS\n", mptest_stall_probe.addr);
	return 0;
}

static void __exit mptest_stall_exit(void)
{
	unregister_kprobe(&mptest_stall_probe);
}

module_init(mptest_stall_init);
module_exit(mptest_stall_exit);
MODULE_DESCRIPTION("Test only: hold one call of a function, to widen a race window");
MODULE_LICENSE("GPL");
