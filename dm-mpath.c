// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder: replaced by the core implementation. */
#include <linux/module.h>
#include <linux/device-mapper.h>

static struct target_type multipath_target = {
	.name = "multipath",
	.version = {1, 0, 4},
	.module = THIS_MODULE,
};

static int __init dm_multipath_init(void)
{
	return dm_register_target(&multipath_target);
}

static void __exit dm_multipath_exit(void)
{
	dm_unregister_target(&multipath_target);
}

module_init(dm_multipath_init);
module_exit(dm_multipath_exit);
MODULE_LICENSE("GPL");
