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

/*
 * Named as ours, not as the kernel's dm_register_path_selector(): our
 * struct path_selector_type is laid out differently, so a selector of ours
 * must never bind to the kernel's dm-multipath (a stale initramfs loads
 * that one) nor one of the kernel's to ours.  6.x's module versioning
 * caught the mix under the shared name; 7.3's did not.  Under this name the
 * loader refuses it on every kernel ("Unknown symbol").
 */
int dm_mpath_register_path_selector(struct path_selector_type *pst)
{
	/* Every hook the core calls unconditionally must be there. */
	if (!pst->ctr || !pst->dtr || !pst->add_path || !pst->select_path ||
	    !pst->fail_path || !pst->reinstate_path)
		return -EINVAL;

	return dm_mpath_registry_add(&selectors, pst, pst->name, pst->module);
}
EXPORT_SYMBOL_GPL(dm_mpath_register_path_selector);

int dm_mpath_unregister_path_selector(struct path_selector_type *pst)
{
	return dm_mpath_registry_remove(&selectors, pst);
}
EXPORT_SYMBOL_GPL(dm_mpath_unregister_path_selector);
