// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: the path-selector registry.
 *
 * Selector modules register a path_selector_type under a unique name. A
 * table names its selectors; dm_get_path_selector() finds one, loading the
 * module "dm-<name>" on demand. Every reference a map holds also holds the
 * selector's module, so a selector in use cannot be unloaded.
 *
 * dm-hw-handler.c keeps the hardware-handler registry the same way.
 */

#include <linux/kmod.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dm-path-selector.h"

#define DM_MSG_PREFIX "multipath"

struct ps_entry {
	struct list_head list;
	struct path_selector_type *pst;
	unsigned int use;	/* references held by maps */
};

/* Table loads are rare: one mutex for lookups and (un)registration. */
static LIST_HEAD(ps_entries);
static DEFINE_MUTEX(ps_mutex);

static struct ps_entry *__find_by_name(const char *name)
{
	struct ps_entry *e;

	list_for_each_entry(e, &ps_entries, list)
		if (!strcmp(e->pst->name, name))
			return e;

	return NULL;
}

static struct ps_entry *__find_by_type(struct path_selector_type *pst)
{
	struct ps_entry *e;

	list_for_each_entry(e, &ps_entries, list)
		if (e->pst == pst)
			return e;

	return NULL;
}

static struct path_selector_type *get_registered(const char *name)
{
	struct path_selector_type *pst = NULL;
	struct ps_entry *e;

	mutex_lock(&ps_mutex);
	e = __find_by_name(name);
	/* A module on its way out refuses the reference: treat as absent. */
	if (e && try_module_get(e->pst->module)) {
		e->use++;
		pst = e->pst;
	}
	mutex_unlock(&ps_mutex);

	return pst;
}

struct path_selector_type *dm_get_path_selector(const char *name)
{
	struct path_selector_type *pst;

	if (!name || !*name)
		return NULL;

	pst = get_registered(name);
	if (!pst) {
		request_module("dm-%s", name);
		pst = get_registered(name);
	}

	return pst;
}
EXPORT_SYMBOL_GPL(dm_get_path_selector);

void dm_put_path_selector(struct path_selector_type *pst)
{
	struct ps_entry *e;

	if (!pst)
		return;

	mutex_lock(&ps_mutex);
	e = __find_by_type(pst);
	if (e && e->use) {
		e->use--;
		module_put(pst->module);
	} else {
		DMERR("unbalanced put of path selector %s", pst->name);
	}
	mutex_unlock(&ps_mutex);
}
EXPORT_SYMBOL_GPL(dm_put_path_selector);

int dm_register_path_selector(struct path_selector_type *pst)
{
	struct ps_entry *e;
	int r = 0;

	/* Every hook the core calls unconditionally must be there. */
	if (!pst->name || !*pst->name || !pst->ctr || !pst->dtr ||
	    !pst->add_path || !pst->select_path || !pst->fail_path ||
	    !pst->reinstate_path)
		return -EINVAL;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->pst = pst;

	mutex_lock(&ps_mutex);
	if (__find_by_name(pst->name)) {
		DMERR("path selector %s is already registered", pst->name);
		r = -EEXIST;
	} else {
		list_add_tail(&e->list, &ps_entries);
	}
	mutex_unlock(&ps_mutex);

	if (r)
		kfree(e);

	return r;
}
EXPORT_SYMBOL_GPL(dm_register_path_selector);

int dm_unregister_path_selector(struct path_selector_type *pst)
{
	struct ps_entry *e;

	mutex_lock(&ps_mutex);
	e = __find_by_type(pst);
	if (!e || e->use) {
		mutex_unlock(&ps_mutex);
		return e ? -EBUSY : -EINVAL;
	}
	list_del(&e->list);
	mutex_unlock(&ps_mutex);

	kfree(e);

	return 0;
}
EXPORT_SYMBOL_GPL(dm_unregister_path_selector);
