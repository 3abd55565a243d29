// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: the hardware-handler registry, and the default
 * decode of a failed bio for SCSI paths.
 *
 * Handler modules register a hw_handler_type under a unique name; a table
 * names its handler and dm_get_hw_handler() finds it, loading "dm-<name>"
 * on demand (see dm-mpath-registry.c). A name with no module of ours goes
 * to the bridge to the kernel's SCSI device handlers (dm-scsi-dh.c), as
 * does a name the admin lists in scsi_dh_handlers: that is how the kernel's
 * scsi_dh_emc or scsi_dh_alua is chosen over our dm-emc or dm-alua.
 */

#include <linux/bio.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dm-hw-handler.h"
#include "dm-mpath-compat.h"
#include "dm-mpath-registry.h"

static struct dm_mpath_registry handlers = {
	.entries = LIST_HEAD_INIT(handlers.entries),
	.lock = __MUTEX_INITIALIZER(handlers.lock),
	.kind = "hardware handler",
};

static char scsi_dh_handlers[64];
module_param_string(scsi_dh_handlers, scsi_dh_handlers,
		    sizeof(scsi_dh_handlers), 0644);
MODULE_PARM_DESC(scsi_dh_handlers,
		 "Handler names served by the kernel's scsi_dh even where a module of ours has the name, comma-separated (e.g. \"emc,alua\"; default none)");

/* Did the admin ask for the kernel's scsi_dh under this name? */
static bool admin_wants_scsi_dh(const char *name)
{
	char *list, *word, *rest;
	bool found = false;

	/* A copy: sysfs may rewrite the parameter meanwhile. */
	kernel_param_lock(THIS_MODULE);
	list = kstrdup(scsi_dh_handlers, GFP_KERNEL);
	kernel_param_unlock(THIS_MODULE);
	if (!list)
		return false;

	rest = strim(list);
	while (!found && (word = strsep(&rest, ",\n ")))
		found = *word && !strcmp(word, name);
	kfree(list);

	return found;
}

struct hw_handler_type *dm_get_hw_handler(const char *name)
{
	struct hw_handler_type *hwht = NULL;

	if (!name || !*name)
		return NULL;

	if (!admin_wants_scsi_dh(name))
		hwht = dm_mpath_registry_get(&handlers, name);
	if (!hwht)
		hwht = dm_mpath_registry_get(&handlers, DM_SCSI_DH_HANDLER);

	return hwht;
}
EXPORT_SYMBOL_GPL(dm_get_hw_handler);

void dm_put_hw_handler(struct hw_handler_type *hwht)
{
	dm_mpath_registry_put(&handlers, hwht);
}
EXPORT_SYMBOL_GPL(dm_put_hw_handler);

int dm_register_hw_handler(struct hw_handler_type *hwht)
{
	/* ctr and dtr are called unconditionally; the other hooks are optional. */
	if (!hwht->ctr || !hwht->dtr)
		return -EINVAL;

	return dm_mpath_registry_add(&handlers, hwht, hwht->name, hwht->module);
}
EXPORT_SYMBOL_GPL(dm_register_hw_handler);

int dm_unregister_hw_handler(struct hw_handler_type *hwht)
{
	return dm_mpath_registry_remove(&handlers, hwht);
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
unsigned int dm_scsi_err_handler(struct hw_handler *hwh, struct dm_path *path,
				 struct bio *bio, blk_status_t error)
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
	case BLK_STS_RESV_CONFLICT:
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
