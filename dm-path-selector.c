// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: the path-selector registry.
 *
 * Selector modules register a path_selector_type under a unique name; a
 * table names its selectors and dm_get_path_selector() finds one, loading
 * "dm-<name>" on demand (see dm-mpath-registry.c).
 */

#include <linux/module.h>

#include "dm-mpath-registry.h"
#include "dm-path-selector.h"

static struct dm_mpath_registry selectors = {
	.entries = LIST_HEAD_INIT(selectors.entries),
	.lock = __MUTEX_INITIALIZER(selectors.lock),
	.kind = "path selector",
};

struct path_selector_type *dm_get_path_selector(const char *name)
{
	return dm_mpath_registry_get(&selectors, name);
}
EXPORT_SYMBOL_GPL(dm_get_path_selector);

void dm_put_path_selector(struct path_selector_type *pst)
{
	dm_mpath_registry_put(&selectors, pst);
}
EXPORT_SYMBOL_GPL(dm_put_path_selector);

int dm_register_path_selector(struct path_selector_type *pst)
{
	/* Every hook the core calls unconditionally must be there. */
	if (!pst->ctr || !pst->dtr || !pst->add_path || !pst->select_path ||
	    !pst->fail_path || !pst->reinstate_path)
		return -EINVAL;

	return dm_mpath_registry_add(&selectors, pst, pst->name, pst->module);
}
EXPORT_SYMBOL_GPL(dm_register_path_selector);

int dm_unregister_path_selector(struct path_selector_type *pst)
{
	return dm_mpath_registry_remove(&selectors, pst);
}
EXPORT_SYMBOL_GPL(dm_unregister_path_selector);
