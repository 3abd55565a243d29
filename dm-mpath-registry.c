// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: the registry behind dm-path-selector.c and
 * dm-hw-handler.c.
 *
 * Modules register a type under a unique name. A table names the types it
 * uses; dm_mpath_registry_get() finds one, loading the module "dm-<name>"
 * on demand. Every reference a map holds also holds the type's module, so
 * a type in use cannot be unloaded.
 */

#include <linux/device-mapper.h>
#include <linux/kmod.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dm-mpath-registry.h"

#define DM_MSG_PREFIX "multipath"

struct dm_mpath_entry {
	struct list_head list;
	void *type;
	const char *name;
	struct module *owner;
	unsigned int use;	/* references held by maps */
};

static struct dm_mpath_entry *find_by_name(struct dm_mpath_registry *reg,
					   const char *name)
{
	struct dm_mpath_entry *e;

	list_for_each_entry(e, &reg->entries, list)
		if (!strcmp(e->name, name))
			return e;

	return NULL;
}

static struct dm_mpath_entry *find_by_type(struct dm_mpath_registry *reg,
					   void *type)
{
	struct dm_mpath_entry *e;

	list_for_each_entry(e, &reg->entries, list)
		if (e->type == type)
			return e;

	return NULL;
}

static void *get_registered(struct dm_mpath_registry *reg, const char *name)
{
	struct dm_mpath_entry *e;
	void *type = NULL;

	mutex_lock(&reg->lock);
	e = find_by_name(reg, name);
	/* A module on its way out refuses the reference: treat as absent. */
	if (e && try_module_get(e->owner)) {
		e->use++;
		type = e->type;
	}
	mutex_unlock(&reg->lock);

	return type;
}

void *dm_mpath_registry_get(struct dm_mpath_registry *reg, const char *name)
{
	void *type;

	if (!name || !*name)
		return NULL;

	type = get_registered(reg, name);
	if (!type) {
		request_module("dm-%s", name);
		type = get_registered(reg, name);
	}

	return type;
}

void dm_mpath_registry_put(struct dm_mpath_registry *reg, void *type)
{
	struct dm_mpath_entry *e;

	if (!type)
		return;

	mutex_lock(&reg->lock);
	e = find_by_type(reg, type);
	if (e && e->use) {
		e->use--;
		module_put(e->owner);
	} else {
		DMERR("unbalanced put of a %s", reg->kind);
	}
	mutex_unlock(&reg->lock);
}

int dm_mpath_registry_add(struct dm_mpath_registry *reg, void *type,
			  const char *name, struct module *owner)
{
	struct dm_mpath_entry *e;
	int r = 0;

	if (!name || !*name)
		return -EINVAL;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->type = type;
	e->name = name;
	e->owner = owner;

	mutex_lock(&reg->lock);
	if (find_by_name(reg, name)) {
		DMERR("%s %s is already registered", reg->kind, name);
		r = -EEXIST;
	} else {
		list_add_tail(&e->list, &reg->entries);
	}
	mutex_unlock(&reg->lock);

	if (r)
		kfree(e);

	return r;
}

int dm_mpath_registry_remove(struct dm_mpath_registry *reg, void *type)
{
	struct dm_mpath_entry *e;

	mutex_lock(&reg->lock);
	e = find_by_type(reg, type);
	if (!e || e->use) {
		mutex_unlock(&reg->lock);
		return e ? -EBUSY : -EINVAL;
	}
	list_del(&e->list);
	mutex_unlock(&reg->lock);

	kfree(e);

	return 0;
}
