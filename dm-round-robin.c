// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder: replaced by the real module. */
#include <linux/module.h>
MODULE_LICENSE("GPL");
