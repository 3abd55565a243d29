/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: dm-mod exports dm_path_uevent() (GPL) but
 * declares it only in its private dm-uevent.h, which linux-headers does not
 * ship. These must stay identical to that header of Linux 6.1. For the
 * core target's use only.
 */

#ifndef DM_MPATH_UEVENT_H
#define DM_MPATH_UEVENT_H

#include <linux/device-mapper.h>

enum dm_uevent_type {
	DM_UEVENT_PATH_FAILED,
	DM_UEVENT_PATH_REINSTATED,
};

void dm_path_uevent(enum dm_uevent_type event_type, struct dm_target *ti,
		    const char *path, unsigned int nr_valid_paths);

#endif
