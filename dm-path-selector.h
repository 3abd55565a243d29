/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: path-selector interface and registry.
 *
 * A path selector chooses which path of a priority group an I/O is sent
 * down. Context rules, which the core keeps:
 *
 *  - ctr, dtr, add_path: process context, table load/unload, may sleep.
 *  - fail_path, reinstate_path, status: called with the map's spinlock
 *    held and interrupts disabled: must not sleep.
 *  - select_path: in bio submission context (any task, interrupts
 *    enabled) with no multipath lock held, or from the core's worker, or
 *    with the map's spinlock held; concurrently with itself, with start_io
 *    and end_io, and with fail_path/reinstate_path. Must not sleep.
 *  - start_io, end_io (optional): without any multipath lock; end_io in
 *    bio completion context (may be hard or soft interrupt). Must not
 *    sleep.
 *
 * So a selector protects its own state: a spinlock of its own taken with
 * interrupts disabled (the core may hold its own spinlock outside it, never
 * inside), or atomics. The core never calls select_path and fail_path for
 * paths of a destroyed selector, and a path object lives as long as the
 * table.
 */

#ifndef DM_PATH_SELECTOR_H
#define DM_PATH_SELECTOR_H

#include <linux/device-mapper.h>

#include "dm-mpath.h"
#include "dm-mpath-compat.h"

/* path_selector_type.counts_in_flight */
#define PS_COUNT_IOS	BIT(0)
#define PS_COUNT_BYTES	BIT(1)

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

	/*
	 * Whether end_io uses its start_time. The block layer stamps every
	 * bio it is given with the time (bi_issue, with CONFIG_BLK_CGROUP,
	 * which Debian's kernels have), and the core passes that on; without
	 * it the core reads the clock per I/O, only for a selector that
	 * says so.
	 */
	bool wants_start_time;

	/*
	 * Whether end_io serves only to choose among several paths (it
	 * measures them): the core then calls it only while the path's PG
	 * has more than one usable path, and with one saves an indirect
	 * call per I/O. start_io, if any, is still called for every I/O.
	 */
	bool end_io_only_with_choice;

	/*
	 * What the core counts in flight on each path for this selector
	 * (dm_path.in_flight, .in_flight_bytes): PS_COUNT_IOS and/or
	 * PS_COUNT_BYTES. A selector that needs only these needs no
	 * start_io/end_io, two indirect calls per I/O fewer; one that asks
	 * for neither costs no atomic per I/O. The counts include an I/O
	 * before start_io sees it and drop it before its end_io.
	 */
	unsigned int counts_in_flight;

	/*
	 * Construct/destroy a selector instance; ctr takes the selector
	 * args. On failure ctr and add_path set *error to a static message
	 * naming what was wrong (it becomes ti->error) and return -errno.
	 */
	int (*ctr)(struct path_selector *ps, unsigned int argc, char **argv,
		   char **error);
	void (*dtr)(struct path_selector *ps);

	/* Add a path with its selector-specific per-path args. */
	int (*add_path)(struct path_selector *ps, struct dm_path *path,
			int argc, char **argv, char **error);

	/*
	 * Choose a path for an I/O of nr_bytes; NULL if none is usable.
	 * *repeat_count is set to the number of I/Os the core may send down
	 * the chosen path before asking again: 1 (ask for every I/O) is what
	 * a load-aware selector returns; 0 means until the path fails.
	 * While the PG has one usable path the core does not ask (the
	 * choice is forced; start_io/end_io are still called), so
	 * select_path must have no side effect a selector relies on then.
	 */
	struct dm_path *(*select_path)(struct path_selector *ps,
				       size_t nr_bytes,
				       unsigned int *repeat_count);

	void (*fail_path)(struct path_selector *ps, struct dm_path *path);
	int (*reinstate_path)(struct path_selector *ps, struct dm_path *path);

	/*
	 * With path == NULL emit the selector's own words ("<#args> [args]");
	 * otherwise the per-path words (table_args or info_args of them).
	 * Returns the number of chars written.
	 */
	int (*status)(struct path_selector *ps, struct dm_path *path,
		      status_type_t type, char *result, unsigned int maxlen);

	/*
	 * Optional: an I/O of nr_bytes is being sent down path (after
	 * select_path chose it, or after the core reused the choice within
	 * its repeat_count).
	 */
	int (*start_io)(struct path_selector *ps, struct dm_path *path,
			size_t nr_bytes);

	/*
	 * Optional: an I/O of nr_bytes sent down path has completed (with or
	 * without error). If the selector sets wants_start_time, start_time
	 * is the ktime_get_ns() of when it was sent, in its low bits only
	 * (DM_MPATH_TIME_MASK: ps_time_since() tells the time since);
	 * otherwise 0. Each start_io is matched by exactly one end_io,
	 * unless the selector sets end_io_only_with_choice: then the core
	 * skips end_io for I/O that completes while the path's PG has one
	 * usable path (an I/O started with a choice may so end without one).
	 */
	int (*end_io)(struct path_selector *ps, struct dm_path *path,
		      size_t nr_bytes, u64 start_time);
};

/*
 * For a selector's ctr/add_path: refuse an argument. msg (static, naming
 * what was wrong) becomes ti->error; the log line adds the word refused.
 * A macro, so that the line carries the selector's own DM_MSG_PREFIX.
 */
#define ps_refuse(error, msg, word) ({				\
	char *__ps_msg = (msg);					\
								\
	*(error) = __ps_msg;					\
	DMWARN("%s: '%s'", __ps_msg, (word));			\
	-EINVAL;						\
})

/*
 * Nanoseconds from end_io's start_time to now (a ktime_get_ns()), across
 * a wrap of start_time's bits (every 26 days).
 */
static inline u64 ps_time_since(u64 start_time, u64 now)
{
	return (now - start_time) & DM_MPATH_TIME_MASK;
}

/* Not the kernel's names: see dm-path-selector.c. */
int dm_mpath_register_path_selector(struct path_selector_type *type);
int dm_mpath_unregister_path_selector(struct path_selector_type *type);

/*
 * A selector module's init and exit, for a module that has nothing else to
 * set up: register __pst (a struct path_selector_type) on load and log its
 * version, unregister it on unload. The core holds a module reference for
 * every table using the selector, so unload finds it unused.
 */
#define module_path_selector(__pst, __version)				\
static struct path_selector_type *const ps_module_type = &(__pst);	\
static int __init ps_init_##__pst(void)					\
{									\
	int r = dm_mpath_register_path_selector(ps_module_type);	\
									\
	if (r) {							\
		DMERR("%s: register failed %d", ps_module_type->name, r); \
		return r;						\
	}								\
	DMINFO("%s: version %s loaded", ps_module_type->name, __version); \
	return 0;							\
}									\
module_init(ps_init_##__pst);						\
static void __exit ps_exit_##__pst(void)					\
{									\
	int r = dm_mpath_unregister_path_selector(ps_module_type);	\
									\
	if (r)								\
		DMERR("%s: unregister failed %d", ps_module_type->name, r); \
}									\
module_exit(ps_exit_##__pst)

/* Look up (autoloading "dm-<name>") and take a reference; NULL if none. */
struct path_selector_type *dm_get_path_selector(const char *name);
void dm_put_path_selector(struct path_selector_type *pst);

#endif
