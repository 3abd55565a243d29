/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: the path object shared by the core target,
 * the path selectors and the hardware handlers.
 */

#ifndef DM_MPATH_H
#define DM_MPATH_H

#include <linux/device-mapper.h>

/*
 * Called "struct path" in the original design; renamed because the VFS
 * already owns that name (<linux/path.h>).
 */
struct dm_path {
	struct dm_dev *dev;	/* Read-only */
	unsigned int is_active;	/* Read-only: 0 once failed */

	void *pscontext;	/* For path-selector use */
	void *hwhcontext;	/* For hw-handler use */
};

/*
 * A hardware handler's pg_init must call this exactly once, from any
 * context (including a request's end_io), when the initialisation it started
 * has finished. err_flags are the MP_* flags of dm-hw-handler.h.
 */
void dm_pg_init_complete(struct dm_path *path, unsigned int err_flags);

/*
 * dm-mod exports dm_path_uevent() (GPL) but declares it only in its
 * private dm-uevent.h, which linux-headers does not ship. This must stay
 * identical to drivers/md/dm-uevent.h of 6.1. For the core's use only.
 */
enum dm_uevent_type {
	DM_UEVENT_PATH_FAILED,
	DM_UEVENT_PATH_REINSTATED,
};

void dm_path_uevent(enum dm_uevent_type event_type, struct dm_target *ti,
		    const char *path, unsigned int nr_valid_paths);

#endif
