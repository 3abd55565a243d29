/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: the path object, as the core target hands it to
 * the path selectors and the hardware handlers. What a selector may call is
 * in dm-path-selector.h, what a handler may call in dm-hw-handler.h.
 */

#ifndef DM_MPATH_H
#define DM_MPATH_H

#include <linux/device-mapper.h>

#include "dm-mpath-release.h"

/*
 * Called "struct path" in the original design; renamed because the VFS
 * already owns that name (<linux/path.h>).
 */
struct dm_path {
	struct dm_dev *dev;	/* Read-only */
	unsigned int is_active;	/* Read-only: 0 once failed */

	void *pscontext;	/* For path-selector use */
	void *hwhcontext;	/* For hw-handler use */

	/*
	 * Read-only for plugins: I/Os and bytes sent down the path and not
	 * yet completed, counted by the core only for a selector that asks
	 * (path_selector_type.counts_in_flight), otherwise 0.
	 */
	atomic_t in_flight;
	atomic64_t in_flight_bytes;
};

#endif
