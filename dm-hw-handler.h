/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: hardware-handler interface and registry.
 *
 * A hardware handler knows how to bring a priority group of a particular
 * array into use (pg_init, e.g. an EMC CLARiiON trespass or an ALUA SET
 * TARGET PORT GROUPS) and how to read the array's errors (err).
 */

#ifndef DM_HW_HANDLER_H
#define DM_HW_HANDLER_H

#include <linux/device-mapper.h>
#include <linux/blk_types.h>
#include <linux/workqueue.h>

#include "dm-mpath.h"
#include "dm-mpath-compat.h"

/*
 * What a failed bio or a finished pg_init means: returned by err, passed to
 * dm_pg_init_complete(). 0 is "fine" for a pg_init. For err, a bio is
 * either failed back (MP_ERROR_IO) or retried on another path, and the one
 * it failed on is failed (the core adds MP_FAIL_PATH to an answer without
 * MP_ERROR_IO: a retry that blamed no path could go round for ever).
 */
#define MP_FAIL_PATH	1	/* take the path out of use */
#define MP_BYPASS_PG	2	/* try the other priority groups first */
#define MP_ERROR_IO	4	/* err only: do not retry this I/O, fail it */
/*
 * pg_init only: a transient failure (array busy, command could not be
 * sent). The core starts pg_init on this path again after the map's
 * pg_init_delay_msecs, up to pg_init_retries times; after that the path is
 * failed.
 */
#define MP_RETRY	8

struct hw_handler_type;
struct hw_handler {
	struct hw_handler_type *type;
	void *context;

	/*
	 * Set by the core before ctr. table_name: the name the table gave
	 * (type->name, unless the bridge to the kernel's scsi_dh serves it;
	 * valid during ctr only). retain_attached: the map's
	 * retain_attached_hw_handler feature.
	 */
	const char *table_name;
	bool retain_attached;
	/*
	 * The name TABLE shows: type->name, unless ctr or add_path (table
	 * load only) point it at a name of the handler's own.
	 */
	const char *name;
};

struct hw_handler_type {
	const char *name;
	struct module *module;

	/*
	 * Construct/destroy; ctr gets the words after the handler name. On
	 * failure ctr sets *error to a static message naming what was wrong
	 * (it becomes ti->error) and returns -errno. Process context.
	 */
	int (*ctr)(struct hw_handler *hwh, unsigned int argc, char **argv,
		   char **error);
	void (*dtr)(struct hw_handler *hwh);

	/*
	 * Optional: a path joins / leaves the map (table load / unload,
	 * process context, may sleep). add_path may refuse the path (set
	 * *error, return -errno) and may set path->hwhcontext, which
	 * del_path then frees. del_path is called after the last pg_init
	 * and the last err of the map have returned.
	 */
	int (*add_path)(struct hw_handler *hwh, struct dm_path *path,
			char **error);
	void (*del_path)(struct hw_handler *hwh, struct dm_path *path);

	/*
	 * Start initialising path's priority group and return at once.
	 * Called from process context (a workqueue) without multipath locks
	 * held; it may allocate with GFP_NOIO but must not wait for the
	 * device. It must call dm_pg_init_complete(path, flags) exactly once,
	 * within a bounded time (its own command timeouts). The core holds all
	 * I/O for the map until then, and waits for that call before it
	 * suspends or destroys the map.
	 */
	void (*pg_init)(struct hw_handler *hwh, unsigned int bypassed,
			struct dm_path *path);

	/*
	 * Decide what a failed bio means: MP_ERROR_IO, or MP_FAIL_PATH,
	 * either with MP_BYPASS_PG (see above for an answer with neither).
	 * Called in bio completion context: must not sleep.
	 */
	unsigned int (*err)(struct hw_handler *hwh, struct dm_path *path,
			    struct bio *bio, blk_status_t error);

	/*
	 * Optional: emit the handler's own words for INFO or TABLE, each
	 * followed by a space, and return the number of chars written. The
	 * core writes the "<#words>" (INFO) or "<#words + 1> <name>" (TABLE)
	 * in front of them. TABLE words must be the ctr arguments that
	 * rebuild this handler. Called under the multipath spinlock: must
	 * not sleep.
	 */
	int (*status)(struct hw_handler *hwh, status_type_t type,
		      char *result, unsigned int maxlen);
};

int dm_register_hw_handler(struct hw_handler_type *type);
int dm_unregister_hw_handler(struct hw_handler_type *type);

/*
 * module_hw_handler_with_wq(type, wq, "wqname"): module init and exit for a
 * handler that sends its array commands from a workqueue of its own. The
 * workqueue exists before the handler can be found, and is WQ_MEM_RECLAIM
 * because pg_init sits on the I/O path, under memory pressure too. Unload
 * unregisters first (no map holds the module then, the core keeps a
 * reference per table), then destroys the workqueue, which waits for the
 * last work item to return.
 */
#define module_hw_handler_with_wq(__hwh, __wq, __wqname)		\
static struct hw_handler_type *const hwh_module_type = &(__hwh);	\
static struct workqueue_struct **const hwh_module_wq = &(__wq);	\
static int __init hwh_init_##__hwh(void)					\
{									\
	int r = -ENOMEM;						\
									\
	*hwh_module_wq = alloc_workqueue(__wqname, WQ_MEM_RECLAIM |	\
					 DM_MPATH_WQ_PERCPU, 0);	\
	if (*hwh_module_wq) {						\
		r = dm_register_hw_handler(hwh_module_type);		\
		if (r) {						\
			DMERR("%s: register failed %d",			\
			      hwh_module_type->name, r);		\
			destroy_workqueue(*hwh_module_wq);		\
		}							\
	}								\
	return r;							\
}									\
module_init(hwh_init_##__hwh);						\
static void __exit hwh_exit_##__hwh(void)				\
{									\
	dm_unregister_hw_handler(hwh_module_type);			\
	destroy_workqueue(*hwh_module_wq);				\
}									\
module_exit(hwh_exit_##__hwh)

/*
 * Look up (autoloading "dm-<name>") and take a reference. A name with no
 * handler module of ours, or one the admin listed in dm_multipath's
 * scsi_dh_handlers parameter, gets the bridge to the kernel's SCSI device
 * handlers instead (dm-scsi-dh, registered as DM_SCSI_DH_HANDLER), whose
 * ctr refuses a name that no scsi_dh module provides. NULL if none.
 */
#define DM_SCSI_DH_HANDLER	"scsi_dh"
struct hw_handler_type *dm_get_hw_handler(const char *name);
void dm_put_hw_handler(struct hw_handler_type *hwht);

/*
 * The PG (1-based, in table order) that holds path: fixed once the table
 * is loaded, so a pg_init may ask without locks (not from add_path).
 */
unsigned int dm_path_pg_num(struct dm_path *path);

/*
 * From a pg_init, before it completes: is it the path's own (the path was
 * reinstated into the PG in use: only it needs activating), rather than
 * the PG's (every path of the PG does)?
 */
bool dm_pg_init_path_only(struct dm_path *path);

/* Default err decode for SCSI paths, for handlers to fall back on. */
unsigned int dm_scsi_err_handler(struct hw_handler *hwh, struct dm_path *path,
				 struct bio *bio, blk_status_t error);

/*
 * A hardware handler's pg_init must call this exactly once, from any
 * context (including a request's end_io), when the initialisation it started
 * has finished, with 0 or any of MP_FAIL_PATH, MP_BYPASS_PG and MP_RETRY.
 */
void dm_pg_init_complete(struct dm_path *path, unsigned int err_flags);

#endif
