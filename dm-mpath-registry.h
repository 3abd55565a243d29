/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: one registry of named, module-owned types, used
 * by both the path-selector and the hardware-handler registries.
 */

#ifndef DM_MPATH_REGISTRY_H
#define DM_MPATH_REGISTRY_H

#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct dm_mpath_registry {
	struct list_head entries;
	struct mutex lock;	/* table loads are rare: one lock for all */
	const char *kind;	/* "path selector", for log lines */
};

/*
 * A type is registered under @name, owned by @owner; @type is the caller's
 * ops table, handed back by dm_mpath_registry_get().
 */
int dm_mpath_registry_add(struct dm_mpath_registry *reg, void *type,
			  const char *name, struct module *owner);
int dm_mpath_registry_remove(struct dm_mpath_registry *reg, void *type);

/* A reference (which also holds the owner module), loading "dm-<name>". */
void *dm_mpath_registry_get(struct dm_mpath_registry *reg, const char *name);
void dm_mpath_registry_put(struct dm_mpath_registry *reg, void *type);

#endif
