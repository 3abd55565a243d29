/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: hardware-handler interface and registry.
 *
 * A hardware handler knows how to bring a priority group of a particular
 * array into use (pg_init, e.g. an EMC CLARiiON trespass) and how to read
 * the array's errors (err).
 */

#ifndef DM_HW_HANDLER_H
#define DM_HW_HANDLER_H

#include <linux/device-mapper.h>
#include <linux/blk_types.h>

#include "dm-mpath.h"

struct hw_handler_type;
struct hw_handler {
	struct hw_handler_type *type;
	void *context;
};

struct hw_handler_type {
	const char *name;
	struct module *module;

	/* Construct/destroy; ctr gets the words after the handler name. */
	int (*ctr)(struct hw_handler *hwh, unsigned int argc, char **argv);
	void (*dtr)(struct hw_handler *hwh);

	/*
	 * Start initialising path's priority group and return at once.
	 * Called from process context (a workqueue) without multipath locks
	 * held; it may allocate with GFP_NOIO but must not wait for the
	 * device. It must call dm_pg_init_complete(path, flags) exactly once,
	 * within a bounded time (its own command timeout). The core holds all
	 * I/O for the map until then, and waits for that call before it
	 * suspends or destroys the map.
	 */
	void (*pg_init)(struct hw_handler *hwh, unsigned int bypassed,
			struct dm_path *path);

	/*
	 * Decide what a failed bio means: any of MP_FAIL_PATH, MP_BYPASS_PG,
	 * MP_ERROR_IO. Called in bio completion context: must not sleep.
	 */
	unsigned int (*err)(struct hw_handler *hwh, struct bio *bio,
			    blk_status_t error);

	/*
	 * Emit "<#args> [words]" for INFO or TABLE; returns chars written.
	 * For TABLE this is the whole handler section of the constructor
	 * line, so the count includes the name: e.g. "3 emc 0 1 ". Without
	 * this hook the core emits "0 " (INFO) and "1 <name> " (TABLE).
	 * Called under the multipath spinlock: must not sleep.
	 */
	int (*status)(struct hw_handler *hwh, status_type_t type,
		      char *result, unsigned int maxlen);
};

int dm_register_hw_handler(struct hw_handler_type *type);
int dm_unregister_hw_handler(struct hw_handler_type *type);

/* Look up (autoloading "dm-<name>") and take a reference; NULL if none. */
struct hw_handler_type *dm_get_hw_handler(const char *name);
void dm_put_hw_handler(struct hw_handler_type *hwht);

/* Default err decode for SCSI paths, for handlers to fall back on. */
unsigned int dm_scsi_err_handler(struct hw_handler *hwh, struct bio *bio,
				 blk_status_t error);

/* Error flags returned by err and passed to dm_pg_init_complete() */
#define MP_FAIL_PATH	1	/* take the path out of use */
#define MP_BYPASS_PG	2	/* try the other priority groups first */
#define MP_ERROR_IO	4	/* do not retry this I/O: fail it */

#endif
