// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath hardware handler for EMC CLARiiON AX/CX-series
 * arrays.
 *
 * A CLARiiON LUN is owned by one of two storage processors (SPs); media
 * access through the ports of the other SP fails with NOT READY 04/03.
 * Bringing a priority group (the ports of one SP) into use means moving
 * ownership there: a "trespass", MODE SELECT(6) with the vendor page 0x22,
 * sent down one path of that group.
 *
 * dm-emc asks before it trespasses, as scsi_dh_emc's activate does: the
 * pg_init first reads the unit report (VPD 0xC0) through the path, and a
 * port whose SP already owns the LUN gets no trespass (on a shared array
 * every trespass moves the LUN for every host, and a table reload's first
 * pg_init would otherwise trespass to the owner).
 *
 * Table arguments:  0                       long trespass, ignore reservations
 *                   2 <short> <honor_rsv>   each 0 or 1
 *
 * The kernel's own SCSI device handler for these arrays, scsi_dh_emc, may
 * be attached to the paths' scsi_devices (an initramfs that loads it before
 * the disks are scanned does that). It keeps its own idea of which SP owns
 * the LUN, per scsi_device, and refuses every normal I/O on a device it
 * believes passive before that I/O reaches the array (its prep_fn). It
 * learns of a new owner only through its activate (scsi_dh_activate()),
 * which reads VPD page 0xC0 and trespasses if that port's SP does not own
 * the LUN. So after each trespass of ours, every path whose scsi_dh_emc
 * still calls it passive although its SP now owns the LUN (the array says
 * so in VPD 0xC0) is activated; scsi_dh_emc then re-reads the page, finds
 * the LUN owned and only updates its view (no second trespass). That covers
 * the other ports of the new owner too, not only the one the core chose:
 * the core runs one pg_init per group.
 *
 * Why we still send the trespass ourselves rather than leave it to
 * scsi_dh_emc's activate: the behaviour stays the same with and without it
 * attached. scsi_dh_emc always sends the long form as MODE SELECT(10) and
 * once any trespass of its ignored reservations, all later ones do too (its
 * page templates are shared and never reset), so the table's
 * <short> <honor_rsv> could not be honoured; its command timeout is not
 * bounded by our trespass_timeout; and setting its parameters
 * (scsi_dh_set_params) trespasses at once if the path's SP owns the LUN.
 * Its activate is therefore only used where it will not trespass. A
 * scsi_dh other than "emc" is left alone.
 */

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/device-mapper.h>
#include <scsi/scsi.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_dh.h>
#include <scsi/scsi_proto.h>

#include "dm-mpath.h"
#include "dm-mpath-compat.h"
#include "dm-hw-handler.h"

#define DM_MSG_PREFIX "multipath emc"

#define EMC_TRESPASS_PAGE	0x22
#define EMC_TRESPASS_CODE	0x01	/* move ownership to the receiving SP */
#define EMC_IGNORE_RSV		0x80	/* ... even if another host reserved */
#define EMC_TRESPASS_TARGET	0xff	/* the LUN this command came in on */
#define EMC_MODE6_HDR_LEN	4
#define EMC_LONG_PAGE_LEN	11
#define EMC_SHORT_PAGE_LEN	4
#define EMC_PARAM_MAX		(EMC_MODE6_HDR_LEN + EMC_LONG_PAGE_LEN)
#define EMC_MODE_SELECT_PF	0x10	/* byte 1: page format */

/* VPD page 0xC0, "unit report": byte 4 is the LUN as seen through a port. */
#define EMC_VPD_UNIT_REPORT	0xc0
#define EMC_VPD_LEN		252
#define EMC_VPD_LUN_STATE	4
#define EMC_LUN_OWNED		2	/* ... owned by this port's SP */
#define EMC_VPD_NDU		48	/* non-zero: microcode upgrade under way */

/* Both writable at run time: a trespass picks up the values it starts with. */
static unsigned int trespass_timeout = 30;
static unsigned int trespass_retries = 3;

static int emc_set_timeout(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 600);
}

static int emc_set_retries(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 10);
}

static const struct kernel_param_ops emc_timeout_ops = {
	.set = emc_set_timeout,
	.get = param_get_uint,
};

static const struct kernel_param_ops emc_retries_ops = {
	.set = emc_set_retries,
	.get = param_get_uint,
};

module_param_cb(trespass_timeout, &emc_timeout_ops, &trespass_timeout, 0644);
MODULE_PARM_DESC(trespass_timeout,
		 "Seconds before a trespass command is abandoned, 1-600 (default 30)");
module_param_cb(trespass_retries, &emc_retries_ops, &trespass_retries, 0644);
MODULE_PARM_DESC(trespass_retries,
		 "Times a trespass is resent after UNIT ATTENTION, 0-10 (default 3)");

/*
 * Completions are finished here rather than in end_io: resending needs
 * process context, and module exit can drain this queue, so no work of ours
 * is left running once the last map using "emc" has gone.
 */
static struct workqueue_struct *emc_wq;

struct emc_handler {
	bool short_trespass;	/* FC-series arrays know only the short page */
	bool honor_rsv;		/* fail the trespass if another host reserved */
	bool explicit_args;	/* the table gave both words: status repeats them */

	/*
	 * Every path of the map (struct emc_path), for bringing their
	 * scsi_dh_emc views in step after a trespass. Changed only by
	 * add_path/del_path, which the core never runs while a pg_init of
	 * this map is outstanding; the mutex makes that not matter.
	 */
	struct mutex paths_lock;
	struct list_head paths;
};

struct emc_path {
	struct list_head list;
	struct dm_path *path;
};

/*
 * One trespass in flight. It owns a copy of everything it needs, so it never
 * looks at the handler, which the core may destroy as soon as
 * dm_pg_init_complete() is called.
 */
struct emc_trespass {
	struct work_struct work;
	struct emc_handler *h;		/* valid until dm_pg_init_complete() */
	struct dm_path *path;
	unsigned int attempts;
	unsigned int max_attempts;
	unsigned int timeout;		/* jiffies */
	bool short_trespass;
	bool honor_rsv;			/* (for the log line) */
	bool bypassed;			/* (for the log line) */
	bool asking;			/* the unit report (VPD 0xC0) is out */

	/* filled in by end_io */
	int result;
	blk_status_t status;
	unsigned int sense_len;
	u8 sense[SCSI_SENSE_BUFFERSIZE];

	unsigned int param_len;
	u8 param[EMC_PARAM_MAX];	/* MODE SELECT(6) parameter list */
	u8 vpd[EMC_VPD_LEN];		/* the unit report read back */
};

/* 4-byte mode parameter header (all zero for MODE SELECT) + page 0x22. */
static unsigned int emc_build_param(u8 *buf, bool short_trespass, bool honor_rsv)
{
	unsigned int page_len = short_trespass ? EMC_SHORT_PAGE_LEN :
						 EMC_LONG_PAGE_LEN;
	u8 *page = buf + EMC_MODE6_HDR_LEN;

	memset(buf, 0, EMC_MODE6_HDR_LEN + page_len);
	page[0] = EMC_TRESPASS_PAGE;
	page[1] = page_len - 2;
	page[2] = EMC_TRESPASS_CODE | (honor_rsv ? 0 : EMC_IGNORE_RSV);
	page[3] = EMC_TRESPASS_TARGET;
	if (!short_trespass)
		page[4] = EMC_TRESPASS_TARGET;	/* the long form's target is 2 bytes */

	return EMC_MODE6_HDR_LEN + page_len;
}

/* The path's own queue is only fit for a SCSI CDB if a scsi_device is behind it. */
static bool emc_path_is_scsi(struct dm_path *path)
{
	struct device *parent = disk_to_dev(path->dev->bdev->bd_disk)->parent;

	return parent && scsi_is_sdev_device(parent);
}

static DM_MPATH_RQ_END_IO(emc_end_io)
{
	struct emc_trespass *t = rq->end_io_data;
	struct scsi_cmnd *scmd = blk_mq_rq_to_pdu(rq);

	/* The sense buffer belongs to the request, which is freed on return. */
	t->result = scmd->result;
	t->status = status;
	t->sense_len = min_t(unsigned int, scmd->sense_len,
			     SCSI_SENSE_BUFFERSIZE);
	memcpy(t->sense, scmd->sense_buffer, t->sense_len);

	/* Last thing touching the trespass here: the work may free it at once. */
	queue_work(emc_wq, &t->work);

	return RQ_END_IO_FREE;
}

/*
 * Send the unit report INQUIRY (t->asking) or the trespass down its path;
 * process context.
 */
static int emc_submit(struct emc_trespass *t)
{
	struct request_queue *q = bdev_get_queue(t->path->dev->bdev);
	struct scsi_cmnd *scmd;
	struct request *rq;
	int r;

	/* Fail fast: a broken path should be failed, not retried by SCSI. */
	rq = scsi_alloc_request(q, (t->asking ? REQ_OP_DRV_IN : REQ_OP_DRV_OUT) |
				REQ_FAILFAST_DEV | REQ_FAILFAST_TRANSPORT |
				REQ_FAILFAST_DRIVER, 0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);

	if (t->asking)
		r = mpath_rq_map_kern(rq, t->vpd, EMC_VPD_LEN, GFP_NOIO);
	else
		r = mpath_rq_map_kern(rq, t->param, t->param_len, GFP_NOIO);
	if (r) {
		blk_mq_free_request(rq);
		return r;
	}

	scmd = blk_mq_rq_to_pdu(rq);
	memset(scmd->cmnd, 0, sizeof(scmd->cmnd));
	if (t->asking) {
		scmd->cmnd[0] = INQUIRY;
		scmd->cmnd[1] = 0x01;	/* EVPD */
		scmd->cmnd[2] = EMC_VPD_UNIT_REPORT;
		scmd->cmnd[4] = EMC_VPD_LEN;
		scmd->cmd_len = COMMAND_SIZE(INQUIRY);
		scmd->allowed = 0;
	} else {
		scmd->cmnd[0] = MODE_SELECT;
		scmd->cmnd[1] = EMC_MODE_SELECT_PF;
		scmd->cmnd[4] = t->param_len;
		scmd->cmd_len = COMMAND_SIZE(MODE_SELECT);
		/* Bounded; the midlayer never retries a passthrough CHECK CONDITION. */
		scmd->allowed = t->max_attempts - 1;
		t->attempts++;
	}
	/* Allocation leaves the reused pdu's last result: decode only ours. */
	scmd->result = 0;

	/* We log each outcome ourselves. */
	rq->rq_flags |= RQF_QUIET;
	rq->timeout = t->timeout;
	rq->end_io = emc_end_io;
	rq->end_io_data = t;

	blk_execute_rq_nowait(rq, true);

	return 0;
}

#define EMC_RESEND	(~0U)

/* Turn the array's answer into MP_* flags, or EMC_RESEND. */
static unsigned int emc_decode(struct emc_trespass *t)
{
	struct dm_path *path = t->path;
	struct scsi_sense_hdr sshdr;
	bool have_sense;
	u8 host = host_byte(t->result);
	u8 status = t->result & 0xff;

	if (!t->result && !t->status) {
		DMINFO_LIMIT("%s (%pg): %s trespass done",
			     path->dev->name, path->dev->bdev,
			     t->short_trespass ? "short" : "long");
		return 0;
	}

	have_sense = scsi_normalize_sense(t->sense, t->sense_len, &sshdr);

	if (status == SAM_STAT_RESERVATION_CONFLICT) {
		DMWARN_LIMIT("%s (%pg): trespass refused: reservation conflict, failing path",
			     path->dev->name, path->dev->bdev);
		return MP_FAIL_PATH;
	}

	if (host != DID_OK || !have_sense) {
		DMWARN_LIMIT("%s (%pg): trespass %s (result 0x%x, errno %d): failing path",
			     path->dev->name, path->dev->bdev,
			     host == DID_TIME_OUT ? "timed out" : "failed",
			     t->result, blk_status_to_errno(t->status));
		return MP_FAIL_PATH;
	}

	/* Ownership changes report UNIT ATTENTION to the next command. */
	if (sshdr.sense_key == UNIT_ATTENTION && t->attempts < t->max_attempts) {
		DMINFO_LIMIT("%s (%pg): unit attention %02x/%02x/%02x on trespass, resend %u/%u",
			     path->dev->name, path->dev->bdev, sshdr.sense_key,
			     sshdr.asc, sshdr.ascq, t->attempts,
			     t->max_attempts - 1);
		return EMC_RESEND;
	}

	/*
	 * The array is busy, not broken: a non-disruptive microcode upgrade
	 * (NOT READY 04/03 on the trespass itself) or an array-based copy
	 * (ILLEGAL REQUEST 04/00, a trespass would abort it). Leave this
	 * group's paths alone and let the core try the other group.
	 */
	if ((sshdr.sense_key == NOT_READY && sshdr.asc == 0x04 &&
	     sshdr.ascq == 0x03) ||
	    (sshdr.sense_key == ILLEGAL_REQUEST && sshdr.asc == 0x04 &&
	     sshdr.ascq == 0x00)) {
		DMWARN_LIMIT("%s (%pg): array busy (%s, %02x/%02x/%02x): bypassing group",
			     path->dev->name, path->dev->bdev,
			     sshdr.sense_key == NOT_READY ?
			     "microcode upgrade" : "array copy",
			     sshdr.sense_key, sshdr.asc, sshdr.ascq);
		return MP_BYPASS_PG;
	}

	DMWARN_LIMIT("%s (%pg): trespass failed, sense %02x/%02x/%02x: failing path",
		     path->dev->name, path->dev->bdev,
		     sshdr.sense_key, sshdr.asc, sshdr.ascq);
	return MP_FAIL_PATH;
}

/* ---- keeping an attached scsi_dh_emc in step ---- */

static struct scsi_device *emc_path_sdev(struct dm_path *path)
{
	return to_scsi_device(disk_to_dev(path->dev->bdev->bd_disk)->parent);
}

/* Is the kernel's scsi_dh_emc attached to this path's scsi_device? */
static bool emc_dh_attached(struct dm_path *path)
{
	const char *name;
	bool emc;

	name = scsi_dh_attached_handler_name(bdev_get_queue(path->dev->bdev),
					     GFP_NOIO);
	if (!name)
		return false;
	emc = !strcmp(name, "emc");
	kfree(name);

	return emc;
}

/* scsi_dh_emc lets I/O through only while it believes this. */
static bool emc_dh_sees_owner(struct scsi_device *sdev)
{
	return (READ_ONCE(sdev->access_state) & SCSI_ACCESS_STATE_MASK) ==
	       SCSI_ACCESS_STATE_OPTIMAL;
}

/* Does the array say this port's SP owns the LUN? Sleeps (INQUIRY). */
static bool emc_port_owns_lun(struct dm_path *path, struct scsi_device *sdev)
{
	u8 *buf;
	bool owned;

	buf = kmalloc(EMC_VPD_LEN, GFP_NOIO);
	if (!buf)
		return false;

	if (scsi_get_vpd_page(sdev, EMC_VPD_UNIT_REPORT, buf, EMC_VPD_LEN)) {
		DMWARN_LIMIT("%s (%pg): cannot read VPD 0xc0: scsi_dh_emc view left",
			     path->dev->name, path->dev->bdev);
		owned = false;
	} else {
		owned = buf[EMC_VPD_LUN_STATE] == EMC_LUN_OWNED;
	}
	kfree(buf);

	return owned;
}

struct emc_dh_wait {
	struct completion done;
	int result;
};

/* scsi_dh_activate()'s callback: in whatever context the scsi_dh ends in. */
static void emc_dh_activated(void *data, int result)
{
	struct emc_dh_wait *w = data;

	w->result = result;
	complete(&w->done);
}

/* What a failed activate of the trespass path means for the group. */
static unsigned int emc_dh_flags(int result)
{
	switch (result) {
	case SCSI_DH_OK:
		return 0;
	case SCSI_DH_RETRY:
	case SCSI_DH_IMM_RETRY:
	case SCSI_DH_NOMEM:
	case SCSI_DH_RES_TEMP_UNAVAIL:
		return MP_RETRY;
	case SCSI_DH_DEV_TEMP_BUSY:
		return MP_BYPASS_PG;	/* NDU or array copy: try the other SP */
	default:
		return MP_FAIL_PATH;
	}
}

/*
 * Have scsi_dh_emc re-read VPD 0xC0 on this path, whose SP owns the LUN,
 * so that it lets I/O through again. Process context; returns MP_* flags.
 */
static unsigned int emc_dh_activate(struct dm_path *path)
{
	struct emc_dh_wait w;
	unsigned int flags;

	init_completion(&w.done);
	w.result = SCSI_DH_OK;
	/* The callback is always called, also when activate fails at once. */
	scsi_dh_activate(bdev_get_queue(path->dev->bdev), emc_dh_activated, &w);
	wait_for_completion(&w.done);

	flags = emc_dh_flags(w.result);
	if (flags)
		DMWARN_LIMIT("%s (%pg): scsi_dh_emc view not updated (SCSI_DH error %d)",
			     path->dev->name, path->dev->bdev, w.result);
	else
		DMINFO_LIMIT("%s (%pg): scsi_dh_emc view updated: this port's SP owns the LUN",
			     path->dev->name, path->dev->bdev);

	return flags;
}

/*
 * After a trespass through t->path: bring scsi_dh_emc's view in step on
 * every path that has it attached and calls its port passive although the
 * port's SP now owns the LUN. The trespass path's outcome decides the
 * pg_init; the others only log (their I/O would fail their path, as it
 * would on any broken path). Paths already failed are skipped: one that
 * comes back into the PG in use gets a pg_init of its own (the core's
 * reinstate), which activates it.
 */
static unsigned int emc_dh_sync(struct emc_trespass *t)
{
	struct emc_handler *h = t->h;
	struct scsi_device *sdev;
	struct emc_path *ep;
	unsigned int flags = 0;

	if (emc_dh_attached(t->path) &&
	    !emc_dh_sees_owner(emc_path_sdev(t->path)))
		flags = emc_dh_activate(t->path);
	if (flags)
		return flags;

	mutex_lock(&h->paths_lock);
	list_for_each_entry(ep, &h->paths, list) {
		if (ep->path == t->path || !READ_ONCE(ep->path->is_active) ||
		    !emc_path_is_scsi(ep->path) || !emc_dh_attached(ep->path))
			continue;
		sdev = emc_path_sdev(ep->path);
		if (emc_dh_sees_owner(sdev) ||
		    !emc_port_owns_lun(ep->path, sdev))
			continue;
		emc_dh_activate(ep->path);
	}
	mutex_unlock(&h->paths_lock);

	return 0;
}

#define EMC_TRESPASS	(~1U)

/*
 * The unit report's answer: 0 (this port's SP owns the LUN: no trespass),
 * EMC_TRESPASS, MP_BYPASS_PG during a microcode upgrade, or MP_FAIL_PATH
 * when the port did not answer (a trespass
 * would not get through either). Any other failure, e.g. an array that
 * does not know the page, leaves the decision to the trespass itself.
 */
static unsigned int emc_decode_ask(struct emc_trespass *t)
{
	struct dm_path *path = t->path;
	u8 host = host_byte(t->result);

	/* As scsi_dh_emc: busy, not broken; let the other SP try. */
	if (!t->result && !t->status && t->vpd[1] == EMC_VPD_UNIT_REPORT &&
	    t->vpd[EMC_VPD_NDU]) {
		DMWARN_LIMIT("%s (%pg): array busy (microcode upgrade, VPD 0xc0): bypassing group",
			     path->dev->name, path->dev->bdev);
		return MP_BYPASS_PG;
	}

	if (!t->result && !t->status) {
		if (t->vpd[1] == EMC_VPD_UNIT_REPORT &&
		    t->vpd[EMC_VPD_LUN_STATE] == EMC_LUN_OWNED) {
			DMINFO_LIMIT("%s (%pg): this port's SP owns the LUN already: no trespass",
				     path->dev->name, path->dev->bdev);
			return 0;
		}
		return EMC_TRESPASS;
	}

	if (host != DID_OK) {
		DMWARN_LIMIT("%s (%pg): unit report %s (result 0x%x, errno %d): failing path",
			     path->dev->name, path->dev->bdev,
			     host == DID_TIME_OUT ? "timed out" : "failed",
			     t->result, blk_status_to_errno(t->status));
		return MP_FAIL_PATH;
	}

	DMINFO_LIMIT("%s (%pg): no unit report (result 0x%x): trespassing",
		     path->dev->name, path->dev->bdev, t->result);
	return EMC_TRESPASS;
}

/* Send the trespass; false (and the path to be failed) if it cannot go. */
static bool emc_start_trespass(struct emc_trespass *t)
{
	struct dm_path *path = t->path;
	int r;

	t->asking = false;
	DMINFO_LIMIT("%s (%pg): sending %s trespass (%s reservations)%s",
		     path->dev->name, path->dev->bdev,
		     t->short_trespass ? "short" : "long",
		     t->honor_rsv ? "honoring" : "ignoring",
		     t->bypassed ? " to a bypassed group" : "");
	r = emc_submit(t);
	if (r)
		DMWARN_LIMIT("%s (%pg): could not send trespass (%d), failing path",
			     path->dev->name, path->dev->bdev, r);

	return !r;
}

static void emc_trespass_work(struct work_struct *work)
{
	struct emc_trespass *t = container_of(work, struct emc_trespass, work);
	struct dm_path *path = t->path;
	unsigned int flags;
	int r;

	if (t->asking) {
		flags = emc_decode_ask(t);
		if (flags == EMC_TRESPASS) {
			if (emc_start_trespass(t))
				return;
			flags = MP_FAIL_PATH;
		}
		goto done;
	}

	flags = emc_decode(t);
	if (flags == EMC_RESEND) {
		r = emc_submit(t);
		if (!r)
			return;
		DMWARN_LIMIT("%s (%pg): could not resend trespass (%d), failing path",
			     path->dev->name, path->dev->bdev, r);
		flags = MP_FAIL_PATH;
	}

done:
	if (!flags)
		flags = emc_dh_sync(t);

	kfree(t);
	/* The handler may be gone as soon as this is called. */
	dm_pg_init_complete(path, flags);
}

static void emc_pg_init(struct hw_handler *hwh, unsigned int bypassed,
			struct dm_path *path)
{
	struct emc_handler *h = hwh->context;
	struct emc_trespass *t;
	int r;

	if (!emc_path_is_scsi(path)) {
		DMWARN_LIMIT("%s (%pg): not a SCSI device, cannot trespass: failing path",
			     path->dev->name, path->dev->bdev);
		dm_pg_init_complete(path, MP_FAIL_PATH);
		return;
	}

	t = kzalloc(sizeof(*t), GFP_NOIO);
	if (!t) {
		DMERR_LIMIT("%s (%pg): no memory for a trespass: failing path",
			    path->dev->name, path->dev->bdev);
		dm_pg_init_complete(path, MP_FAIL_PATH);
		return;
	}

	INIT_WORK(&t->work, emc_trespass_work);
	t->h = h;
	t->path = path;
	t->short_trespass = h->short_trespass;
	t->max_attempts = READ_ONCE(trespass_retries) + 1;
	t->timeout = READ_ONCE(trespass_timeout) * HZ;
	t->honor_rsv = h->honor_rsv;
	t->bypassed = bypassed;
	t->param_len = emc_build_param(t->param, h->short_trespass,
				       h->honor_rsv);

	/* Ask first: the trespass goes only to an SP that does not own it. */
	DMINFO_LIMIT("%s (%pg): reading the unit report (VPD 0xc0)%s",
		     path->dev->name, path->dev->bdev,
		     bypassed ? " of a bypassed group" : "");
	t->asking = true;
	r = emc_submit(t);
	if (r) {
		DMWARN_LIMIT("%s (%pg): could not ask for the unit report (%d), failing path",
			     path->dev->name, path->dev->bdev, r);
		kfree(t);
		dm_pg_init_complete(path, MP_FAIL_PATH);
	}
}

/*
 * In 6.1 a failed bio carries only a blk_status_t: the sense data stays
 * with the SCSI command, which is gone by now. Media access on a passive
 * path (the other SP owns the LUN: NOT READY 04/03), an array-based copy
 * (ILLEGAL REQUEST 25/01) and a dead port all reach us as BLK_STS_IOERR
 * (scsi_result_to_blk_status(): DID_OK with a CHECK CONDITION, or most host
 * errors), transport trouble as BLK_STS_TRANSPORT. Failing the path is the
 * one reading safe for all of them: the core tries the group's next path,
 * and when the SP's ports are all gone, the other group, whose pg_init
 * trespasses the LUN there. Bypassing the group instead would move the LUN
 * on every single port failure. What is left (reservation conflict, target,
 * medium, space, protection errors) are errors of the I/O itself on this
 * array as on any SCSI device.
 */
static unsigned int emc_err(struct hw_handler *hwh, struct dm_path *path,
			    struct bio *bio, blk_status_t error)
{
	if (error == BLK_STS_IOERR || error == BLK_STS_TRANSPORT)
		return MP_FAIL_PATH;

	return dm_scsi_err_handler(hwh, path, bio, error);
}

/* The log line names the bad word; *error (static) goes to the table load. */
static int emc_parse_bool(const char *word, const char *what, bool *val)
{
	unsigned int v;

	if (kstrtouint(word, 10, &v) || v > 1) {
		DMWARN("invalid %s '%s': expected 0 or 1", what, word);
		return -EINVAL;
	}
	*val = v;

	return 0;
}

static int emc_ctr(struct hw_handler *hwh, unsigned int argc, char **argv,
		   char **error)
{
	struct emc_handler *h;
	bool short_trespass = false, honor_rsv = false;

	if (argc != 0 && argc != 2) {
		DMWARN("expected 0 or 2 arguments (<short_trespass> <honor_reservation>), got %u",
		       argc);
		*error = "emc: expected 0 or 2 arguments (<short_trespass> <honor_reservation>)";
		return -EINVAL;
	}

	if (argc == 2 &&
	    emc_parse_bool(argv[0], "short_trespass", &short_trespass)) {
		*error = "emc: invalid short_trespass: expected 0 or 1";
		return -EINVAL;
	}
	if (argc == 2 &&
	    emc_parse_bool(argv[1], "honor_reservation", &honor_rsv)) {
		*error = "emc: invalid honor_reservation: expected 0 or 1";
		return -EINVAL;
	}

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		*error = "emc: cannot allocate handler context";
		return -ENOMEM;
	}

	h->short_trespass = short_trespass;
	h->honor_rsv = honor_rsv;
	h->explicit_args = argc == 2;
	mutex_init(&h->paths_lock);
	INIT_LIST_HEAD(&h->paths);
	hwh->context = h;

	return 0;
}

static void emc_dtr(struct hw_handler *hwh)
{
	struct emc_handler *h = hwh->context;

	/* del_path has run for every path by now. */
	WARN_ON_ONCE(!list_empty(&h->paths));
	mutex_destroy(&h->paths_lock);
	kfree(h);
	hwh->context = NULL;
}

static int emc_add_path(struct hw_handler *hwh, struct dm_path *path,
			char **error)
{
	struct emc_handler *h = hwh->context;
	struct emc_path *ep;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep) {
		*error = "emc: cannot allocate path context";
		return -ENOMEM;
	}
	ep->path = path;
	path->hwhcontext = ep;

	mutex_lock(&h->paths_lock);
	list_add_tail(&ep->list, &h->paths);
	mutex_unlock(&h->paths_lock);

	return 0;
}

static void emc_del_path(struct hw_handler *hwh, struct dm_path *path)
{
	struct emc_handler *h = hwh->context;
	struct emc_path *ep = path->hwhcontext;

	if (!ep)
		return;

	mutex_lock(&h->paths_lock);
	list_del(&ep->list);
	mutex_unlock(&h->paths_lock);

	path->hwhcontext = NULL;
	kfree(ep);
}

static int emc_status(struct hw_handler *hwh, status_type_t type,
		      char *result, unsigned int maxlen)
{
	struct emc_handler *h = hwh->context;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_INFO:
		/* Nothing of ours to report: the trespass state is the array's. */
		break;
	case STATUSTYPE_TABLE:
		/* The words that rebuild us: the table's, if it gave them. */
		if (h->explicit_args)
			DMEMIT("%u %u ", h->short_trespass, h->honor_rsv);
		break;
	case STATUSTYPE_IMA:
		break;
	}

	return sz;
}

static struct hw_handler_type emc_hwh = {
	.name = "emc",
	.module = THIS_MODULE,
	.ctr = emc_ctr,
	.dtr = emc_dtr,
	.add_path = emc_add_path,
	.del_path = emc_del_path,
	.pg_init = emc_pg_init,
	.err = emc_err,
	.status = emc_status,
};

module_hw_handler_with_wq(emc_hwh, emc_wq, "kmpath_emcd");

MODULE_DESCRIPTION(DM_NAME " multipath hardware handler for EMC CLARiiON AX/CX");
MODULE_LICENSE("GPL");
MODULE_VERSION(DM_MPATH_RELEASE);
