// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: WARNs once when loaded. The kernel-log judge self-test
 * loads it and expects the judge to flag the warning, which proves the judge
 * still sees what it must fail on.
 */

#include <linux/module.h>
#include <linux/bug.h>

static int __init mptest_warn_init(void)
{
	WARN(1, "mptest_warn: planted warning for the judge self-test\n");
	return 0;
}

static void __exit mptest_warn_exit(void)
{
}

module_init(mptest_warn_init);
module_exit(mptest_warn_exit);

MODULE_DESCRIPTION("Test-only: planted WARN for the kernel-log judge self-test");
MODULE_LICENSE("GPL");
