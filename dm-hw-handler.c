// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: the hardware-handler registry, and the default
 * decode of a failed bio for SCSI paths.
 *
 * Same design as the path-selector registry (dm-path-selector.c): handler
 * modules register a hw_handler_type under a unique name, a table names the
 * handler, dm_get_hw_handler() finds it, loading "dm-<name>" on demand, and
 * each reference held by a map also holds the handler's module.
 */

#include <linux/bio.h>
#include <linux/kmod.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dm-hw-handler.h"

#define DM_MSG_PREFIX "multipath"

struct hwh_entry {
	struct list_head list;
	struct hw_handler_type *hwht;
	unsigned int use;	/* references held by maps */
};

static LIST_HEAD(hwh_entries);
static DEFINE_MUTEX(hwh_mutex);

static struct hwh_entry *__find_by_name(const char *name)
{
	struct hwh_entry *e;

	list_for_each_entry(e, &hwh_entries, list)
		if (!strcmp(e->hwht->name, name))
			return e;

	return NULL;
}

static struct hwh_entry *__find_by_type(struct hw_handler_type *hwht)
{
	struct hwh_entry *e;

	list_for_each_entry(e, &hwh_entries, list)
		if (e->hwht == hwht)
			return e;

	return NULL;
}

static struct hw_handler_type *get_registered(const char *name)
{
	struct hw_handler_type *hwht = NULL;
	struct hwh_entry *e;

	mutex_lock(&hwh_mutex);
	e = __find_by_name(name);
	/* A module on its way out refuses the reference: treat as absent. */
	if (e && try_module_get(e->hwht->module)) {
		e->use++;
		hwht = e->hwht;
	}
	mutex_unlock(&hwh_mutex);

	return hwht;
}

struct hw_handler_type *dm_get_hw_handler(const char *name)
{
	struct hw_handler_type *hwht;

	if (!name || !*name)
		return NULL;

	hwht = get_registered(name);
	if (!hwht) {
		request_module("dm-%s", name);
		hwht = get_registered(name);
	}

	return hwht;
}
EXPORT_SYMBOL_GPL(dm_get_hw_handler);

void dm_put_hw_handler(struct hw_handler_type *hwht)
{
	struct hwh_entry *e;

	if (!hwht)
		return;

	mutex_lock(&hwh_mutex);
	e = __find_by_type(hwht);
	if (e && e->use) {
		e->use--;
		module_put(hwht->module);
	} else {
		DMERR("unbalanced put of hardware handler %s", hwht->name);
	}
	mutex_unlock(&hwh_mutex);
}
EXPORT_SYMBOL_GPL(dm_put_hw_handler);

int dm_register_hw_handler(struct hw_handler_type *hwht)
{
	struct hwh_entry *e;
	int r = 0;

	/* ctr and dtr are called unconditionally; the other hooks are optional. */
	if (!hwht->name || !*hwht->name || !hwht->ctr || !hwht->dtr)
		return -EINVAL;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->hwht = hwht;

	mutex_lock(&hwh_mutex);
	if (__find_by_name(hwht->name)) {
		DMERR("hardware handler %s is already registered", hwht->name);
		r = -EEXIST;
	} else {
		list_add_tail(&e->list, &hwh_entries);
	}
	mutex_unlock(&hwh_mutex);

	if (r)
		kfree(e);

	return r;
}
EXPORT_SYMBOL_GPL(dm_register_hw_handler);

int dm_unregister_hw_handler(struct hw_handler_type *hwht)
{
	struct hwh_entry *e;

	mutex_lock(&hwh_mutex);
	e = __find_by_type(hwht);
	if (!e || e->use) {
		mutex_unlock(&hwh_mutex);
		return e ? -EBUSY : -EINVAL;
	}
	list_del(&e->list);
	mutex_unlock(&hwh_mutex);

	kfree(e);

	return 0;
}
EXPORT_SYMBOL_GPL(dm_unregister_hw_handler);

/*
 * In 6.1 a target sees neither the SCSI sense data nor the host byte of a
 * failed command: the SCSI midlayer has already folded them into a
 * blk_status_t (scsi_result_to_blk_status() and the sense handling in
 * scsi_io_completion()). So the decision is made per status: is it the
 * I/O or the LUN itself that failed (the same answer would come back on
 * any path: return the error), or may the path be at fault (take it out
 * of use and retry the bio elsewhere)?
 */
unsigned int dm_scsi_err_handler(struct hw_handler *hwh, struct bio *bio,
				 blk_status_t error)
{
	switch (error) {
	case BLK_STS_OK:
		return 0;

	/* MEDIUM ERROR sense (e.g. unrecovered read error): the block is bad. */
	case BLK_STS_MEDIUM:
	/* Protection information check failed: data and PI disagree. */
	case BLK_STS_PROTECTION:
	/* ILLEGAL REQUEST-class sense, DID_TARGET_FAILURE: the LUN refuses it. */
	case BLK_STS_TARGET:
	/* RESERVATION CONFLICT, DID_NEXUS_FAILURE: another initiator owns it. */
	case BLK_STS_NEXUS:
	/* Out of space (thin provisioning, DID_ALLOC_FAILURE). */
	case BLK_STS_NOSPC:
	/* The LUN does not support the operation (e.g. discard). */
	case BLK_STS_NOTSUPP:
	/* A REQ_NOWAIT bio that would have blocked: the caller retries. */
	case BLK_STS_AGAIN:
		return MP_ERROR_IO;

	/*
	 * DID_TRANSPORT_* (TRANSPORT), command timeout (TIMEOUT), device
	 * offline or deleted (OFFLINE, and IOERR for "rejecting I/O to
	 * offline device"), DID_NO_CONNECT/DID_BAD_TARGET and anything the
	 * midlayer could not classify (IOERR), queue resources (RESOURCE):
	 * all can be the path's fault, and another path may well work.
	 */
	default:
		return MP_FAIL_PATH;
	}
}
EXPORT_SYMBOL_GPL(dm_scsi_err_handler);
