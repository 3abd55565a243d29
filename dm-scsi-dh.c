// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: hardware handlers served by the kernel's SCSI
 * device handlers (scsi_dh_rdac, scsi_dh_hp_sw, ... any scsi_dh_<name>).
 *
 * A table that names a handler with no module of ours ("1 rdac", "1 hp_sw")
 * gets this bridge, which does what Linux 6.1's multipath target does with
 * every handler name:
 *   - table load: each path's scsi_device gets the scsi_dh of that name
 *     attached (scsi_dh_attach()), and the table's handler arguments are
 *     handed to it (scsi_dh_set_params(), "<#args>\0<arg>\0...").
 *     A path that already has another scsi_dh attached keeps it, and the
 *     map then uses that one, without the arguments (6.1 does so whether
 *     or not the table says retain_attached_hw_handler: attaching a second
 *     handler fails with -EBUSY and 6.1 "retains"). With
 *     retain_attached_hw_handler the attached one is taken up before
 *     trying to attach. TABLE shows the handler in use.
 *   - pg_init: every usable path of the PG is activated (scsi_dh_activate()),
 *     the path the core chose first (only that path, when the pg_init is
 *     for a path reinstated into the PG in use); its answer, mapped as 6.1
 *     maps it (pg_init_done()), completes the pg_init. The other paths' answers are
 *     only logged: the core takes one answer per pg_init, and a path the
 *     scsi_dh did not activate fails its first I/O and is failed then.
 *   - a failed bio: 6.1's decision, blk_path_error(): fail the path and
 *     retry elsewhere, or return the error.
 * A name that no scsi_dh module provides is refused at table load.
 *
 * The admin can have "emc" and "alua", which have handlers of ours, served
 * here instead: dm_multipath's scsi_dh_handlers parameter (dm-hw-handler.c).
 */

#include <linux/completion.h>
#include <linux/ctype.h>
#include <linux/kmod.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_dh.h>

#include "dm-mpath.h"
#include "dm-hw-handler.h"

#define DM_MSG_PREFIX "multipath scsi_dh"

/* scsi_dh names are short words ("alua", "hp_sw"): room to spare. */
#define SDH_NAME_MAX	31

/* pg_init runs here: it waits for each activation in turn. */
static struct workqueue_struct *sdh_wq;

struct sdh_handler {
	/* The scsi_dh in use: the table's, or the one found attached. */
	char name[SDH_NAME_MAX + 1];
	/* For scsi_dh_set_params(), NULL without arguments or once dropped. */
	char *params;
	unsigned int params_words;	/* for TABLE: the argument count */

	/*
	 * Every path of the map (struct sdh_path). add_path/del_path change
	 * it; the core runs neither while a pg_init of the map is out.
	 */
	struct mutex paths_lock;
	struct list_head paths;
};

struct sdh_path {
	struct list_head list;
	struct dm_path *path;
};

struct sdh_pg_init {
	struct work_struct work;
	struct sdh_handler *h;		/* valid until dm_pg_init_complete() */
	struct dm_path *path;
};

/* ---- table load ---- */

static bool sdh_valid_name(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len > SDH_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!islower(name[i]) && !isdigit(name[i]) && name[i] != '_')
			return false;

	return true;
}

/*
 * The format 6.1 hands to scsi_dh_set_params(): the argument count, then
 * each argument, each NUL-terminated.
 */
static int sdh_build_params(struct sdh_handler *h, unsigned int argc,
			    char **argv)
{
	size_t len;
	unsigned int i;
	char *p;

	len = snprintf(NULL, 0, "%u", argc) + 1;
	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;

	h->params = kzalloc(len, GFP_KERNEL);
	if (!h->params)
		return -ENOMEM;

	p = h->params + sprintf(h->params, "%u", argc) + 1;
	for (i = 0; i < argc; i++)
		p += sprintf(p, "%s", argv[i]) + 1;
	h->params_words = argc;

	return 0;
}

static int sdh_ctr(struct hw_handler *hwh, unsigned int argc, char **argv,
		   char **error)
{
	const char *name = hwh->table_name;
	struct sdh_handler *h;
	int r;

	if (!name || !sdh_valid_name(name)) {
		DMERR("unknown hardware handler type '%s': not a scsi_dh name",
		      name ? name : "");
		*error = "unknown hardware handler type";
		return -EINVAL;
	}

	/*
	 * modprobe answers 0 if the module is loaded, built in or loadable
	 * (it is then loaded). Asked here, not only by scsi_dh_attach(), so
	 * that a name nothing provides is refused by name, paths or not.
	 */
	r = request_module("scsi_dh_%s", name);
	if (r) {
		DMERR("unknown hardware handler type '%s': not ours, no scsi_dh_%s (modprobe: %d)",
		      name, name, r);
		*error = "unknown hardware handler type";
		return -EINVAL;
	}

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		*error = "scsi_dh: cannot allocate handler context";
		return -ENOMEM;
	}
	strscpy(h->name, name, sizeof(h->name));
	mutex_init(&h->paths_lock);
	INIT_LIST_HEAD(&h->paths);

	if (argc && sdh_build_params(h, argc, argv)) {
		kfree(h);
		*error = "scsi_dh: cannot allocate handler parameters";
		return -ENOMEM;
	}

	hwh->context = h;
	hwh->name = h->name;

	return 0;
}

static void sdh_dtr(struct hw_handler *hwh)
{
	struct sdh_handler *h = hwh->context;

	WARN_ON_ONCE(!list_empty(&h->paths));
	mutex_destroy(&h->paths_lock);
	kfree(h->params);
	kfree(h);
	hwh->context = NULL;
}

/*
 * Take up the scsi_dh attached to the path (6.1: the map's handler becomes
 * that one; the table's arguments were for another, so they are dropped).
 */
static void sdh_retain(struct sdh_handler *h, struct dm_path *path,
		       const char *attached)
{
	if (!strcmp(attached, h->name))
		return;

	DMINFO("%s (%pg): scsi_dh_%s is attached: the map uses it instead of %s%s",
	       path->dev->name, path->dev->bdev, attached, h->name,
	       h->params ? ", without the table's arguments" : "");
	strscpy(h->name, attached, sizeof(h->name));
	kfree(h->params);
	h->params = NULL;
	h->params_words = 0;
}

static int sdh_add_path(struct hw_handler *hwh, struct dm_path *path,
			char **error)
{
	struct sdh_handler *h = hwh->context;
	struct request_queue *q = bdev_get_queue(path->dev->bdev);
	struct device *parent = disk_to_dev(path->dev->bdev->bd_disk)->parent;
	const char *attached;
	struct sdh_path *sp;
	int r;

	if (!parent || !scsi_is_sdev_device(parent)) {
		DMERR("%s (%pg): not a SCSI device: scsi_dh_%s cannot attach",
		      path->dev->name, path->dev->bdev, h->name);
		*error = "error attaching hardware handler: not a SCSI device";
		return -ENODEV;
	}

	attached = scsi_dh_attached_handler_name(q, GFP_KERNEL);
	if (attached && hwh->retain_attached)
		sdh_retain(h, path, attached);

	r = scsi_dh_attach(q, h->name);
	if (r == -EBUSY && attached) {
		DMINFO("%s (%pg): retaining the attached handler",
		       path->dev->name, path->dev->bdev);
		sdh_retain(h, path, attached);
		r = scsi_dh_attach(q, h->name);
	}
	kfree(attached);
	if (r) {
		DMERR("%s (%pg): scsi_dh_%s does not attach (%d)%s",
		      path->dev->name, path->dev->bdev, h->name, r,
		      r == -ENODEV ? ": not a device it handles" : "");
		*error = "error attaching hardware handler";
		return r;
	}

	if (h->params) {
		r = scsi_dh_set_params(q, h->params);
		if (r) {
			DMERR("%s (%pg): scsi_dh_%s refuses the table's arguments (%d)",
			      path->dev->name, path->dev->bdev, h->name, r);
			*error = "unable to set hardware handler parameters";
			/* (its answer may be a negated SCSI_DH_*, no errno) */
			return -EINVAL;
		}
	}

	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp) {
		*error = "scsi_dh: cannot allocate path context";
		return -ENOMEM;
	}
	sp->path = path;
	path->hwhcontext = sp;

	mutex_lock(&h->paths_lock);
	list_add_tail(&sp->list, &h->paths);
	mutex_unlock(&h->paths_lock);

	/* The name may have changed: TABLE shows the one in use. */
	hwh->name = h->name;

	return 0;
}

static void sdh_del_path(struct hw_handler *hwh, struct dm_path *path)
{
	struct sdh_handler *h = hwh->context;
	struct sdh_path *sp = path->hwhcontext;

	if (!sp)
		return;

	mutex_lock(&h->paths_lock);
	list_del(&sp->list);
	mutex_unlock(&h->paths_lock);

	path->hwhcontext = NULL;
	kfree(sp);
}

/* ---- pg_init ---- */

/* 6.1's pg_init_done(): what an activation's SCSI_DH_* result means. */
static unsigned int sdh_flags(int result)
{
	switch (result) {
	case SCSI_DH_OK:
		return 0;
	case SCSI_DH_DEV_TEMP_BUSY:
		/* e.g. a controller firmware upgrade: try the other PG */
		return MP_BYPASS_PG;
	case SCSI_DH_RETRY:
	case SCSI_DH_IMM_RETRY:
	case SCSI_DH_RES_TEMP_UNAVAIL:
		/* again, up to pg_init_retries, then the path is failed */
		return MP_RETRY;
	case SCSI_DH_NOSYS:
	case SCSI_DH_DEV_OFFLINED:
	default:
		return MP_FAIL_PATH;
	}
}

struct sdh_wait {
	struct completion done;
	int result;
};

/* scsi_dh_activate()'s callback, in whatever context the scsi_dh ends. */
static void sdh_activated(void *data, int result)
{
	struct sdh_wait *w = data;

	w->result = result;
	complete(&w->done);
}

/* Activate one path and wait for the answer; process context. */
static int sdh_activate(struct dm_path *path)
{
	struct request_queue *q = bdev_get_queue(path->dev->bdev);
	struct sdh_wait w;

	/* 6.1 does not ask the device through a failed or dying path. */
	if (!READ_ONCE(path->is_active) || blk_queue_dying(q))
		return SCSI_DH_DEV_OFFLINED;

	init_completion(&w.done);
	w.result = SCSI_DH_OK;
	/* The callback is called in every case, also for an early failure. */
	scsi_dh_activate(q, sdh_activated, &w);
	wait_for_completion(&w.done);

	return w.result;
}

static void sdh_log(struct sdh_handler *h, struct dm_path *path, int result)
{
	if (result == SCSI_DH_OK)
		DMINFO_LIMIT("%s (%pg): activated through scsi_dh_%s",
			     path->dev->name, path->dev->bdev, h->name);
	else
		DMWARN_LIMIT("%s (%pg): scsi_dh_%s activation failed (SCSI_DH error %d)",
			     path->dev->name, path->dev->bdev, h->name, result);
}

static void sdh_pg_init_work(struct work_struct *work)
{
	struct sdh_pg_init *pi = container_of(work, struct sdh_pg_init, work);
	struct sdh_handler *h = pi->h;
	struct dm_path *path = pi->path;
	unsigned int pg = dm_path_pg_num(path);
	unsigned int flags;
	struct sdh_path *sp;
	int result;

	result = sdh_activate(path);
	sdh_log(h, path, result);
	flags = sdh_flags(result);

	/*
	 * 6.1 activates every usable path of a PG it brings into use, not
	 * one; only the path itself when it is reinstated into the PG in use.
	 */
	if (!flags && !dm_pg_init_path_only(path)) {
		mutex_lock(&h->paths_lock);
		list_for_each_entry(sp, &h->paths, list) {
			if (sp->path == path || dm_path_pg_num(sp->path) != pg ||
			    !READ_ONCE(sp->path->is_active))
				continue;
			sdh_log(h, sp->path, sdh_activate(sp->path));
		}
		mutex_unlock(&h->paths_lock);
	}

	kfree(pi);
	/* The handler may be gone as soon as this is called. */
	dm_pg_init_complete(path, flags);
}

static void sdh_pg_init(struct hw_handler *hwh, unsigned int bypassed,
			struct dm_path *path)
{
	struct sdh_pg_init *pi;

	pi = kzalloc(sizeof(*pi), GFP_NOIO);
	if (!pi) {
		DMERR_LIMIT("%s (%pg): no memory for pg_init: retry later",
			    path->dev->name, path->dev->bdev);
		dm_pg_init_complete(path, MP_RETRY);
		return;
	}

	INIT_WORK(&pi->work, sdh_pg_init_work);
	pi->h = hwh->context;
	pi->path = path;
	queue_work(sdh_wq, &pi->work);
}

/*
 * What 6.1 does with a failed bio whatever the handler: a path error
 * (blk_path_error()) fails the path and the bio goes down another; an
 * error of the I/O itself (target, medium, space, reservation ...) is
 * returned.
 */
static unsigned int sdh_err(struct hw_handler *hwh, struct dm_path *path,
			    struct bio *bio, blk_status_t error)
{
	if (!error)
		return 0;

	return blk_path_error(error) ? MP_FAIL_PATH : MP_ERROR_IO;
}

/*
 * TABLE: the arguments that rebuild us (6.1 shows only the name, and a
 * reload of its TABLE text loses them; the scsi_dh keeps its own state).
 */
static int sdh_status(struct hw_handler *hwh, status_type_t type,
		      char *result, unsigned int maxlen)
{
	struct sdh_handler *h = hwh->context;
	unsigned int sz = 0, i;
	const char *p;

	if (type != STATUSTYPE_TABLE || !h->params)
		return 0;

	p = h->params + strlen(h->params) + 1;
	for (i = 0; i < h->params_words; i++) {
		DMEMIT("%s ", p);
		p += strlen(p) + 1;
	}

	return sz;
}

static struct hw_handler_type sdh_hwh = {
	.name = DM_SCSI_DH_HANDLER,
	.module = THIS_MODULE,
	.ctr = sdh_ctr,
	.dtr = sdh_dtr,
	.add_path = sdh_add_path,
	.del_path = sdh_del_path,
	.pg_init = sdh_pg_init,
	.err = sdh_err,
	.status = sdh_status,
};

module_hw_handler_with_wq(sdh_hwh, sdh_wq, "kmpath_scsi_dhd");

MODULE_DESCRIPTION(DM_NAME " multipath: the kernel's SCSI device handlers as hardware handlers");
MODULE_LICENSE("GPL");
MODULE_VERSION("1.0.0");
