/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: path-selector interface and registry.
 *
 * A path selector chooses which path of a priority group an I/O is sent
 * down. All hooks except ctr/dtr/add_path are called with the multipath
 * spinlock held and interrupts disabled: they must not sleep.
 */

#ifndef DM_PATH_SELECTOR_H
#define DM_PATH_SELECTOR_H

#include <linux/device-mapper.h>

#include "dm-mpath.h"

struct path_selector_type;
struct path_selector {
	struct path_selector_type *type;
	void *context;
};

struct path_selector_type {
	const char *name;
	struct module *module;

	/* Per-path words this selector emits in TABLE and INFO status. */
	unsigned int table_args;
	unsigned int info_args;

	/* Construct/destroy a selector instance; ctr takes selector args. */
	int (*ctr)(struct path_selector *ps, unsigned int argc, char **argv);
	void (*dtr)(struct path_selector *ps);

	/*
	 * Add a path with its selector-specific per-path args. On failure set
	 * *error to a message for ti->error and return -errno.
	 */
	int (*add_path)(struct path_selector *ps, struct dm_path *path,
			int argc, char **argv, char **error);

	/*
	 * Choose a path; NULL if none is usable. *repeat_count is set to the
	 * number of I/Os to send down it before asking again (0: until it
	 * fails).
	 */
	struct dm_path *(*select_path)(struct path_selector *ps,
				       unsigned int *repeat_count);

	void (*fail_path)(struct path_selector *ps, struct dm_path *path);
	int (*reinstate_path)(struct path_selector *ps, struct dm_path *path);

	/*
	 * With path == NULL emit the selector's own words ("<#args> [args]");
	 * otherwise the per-path words. Returns the number of chars written.
	 */
	int (*status)(struct path_selector *ps, struct dm_path *path,
		      status_type_t type, char *result, unsigned int maxlen);

	/* Optional: an I/O sent down path has completed. */
	int (*end_io)(struct path_selector *ps, struct dm_path *path);
};

int dm_register_path_selector(struct path_selector_type *type);
int dm_unregister_path_selector(struct path_selector_type *type);

/* Look up (autoloading "dm-<name>") and take a reference; NULL if none. */
struct path_selector_type *dm_get_path_selector(const char *name);
void dm_put_path_selector(struct path_selector_type *pst);

#endif
