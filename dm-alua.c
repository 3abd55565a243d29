// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath hardware handler for SCSI ALUA (Asymmetric
 * Logical Unit Access, SPC-4 5.15): arrays whose target ports are arranged
 * in target port groups (TPGs), each in an access state of its own
 * (active/optimized, active/non-optimized, standby, unavailable,
 * transitioning, offline).
 *
 * A priority group of the map is meant to hold the paths of one TPG.
 * Bringing it into use (pg_init) asks the array, through the path being
 * initialised, which TPG that port is in (INQUIRY VPD 0x83) and what state
 * each TPG is in (REPORT TARGET PORT GROUPS); an active group is used as it
 * is, a standby or unavailable one is made active/optimized with SET TARGET
 * PORT GROUPS when the port supports explicit ALUA, and a transitioning one
 * is waited out.
 *
 * When the kernel's own ALUA device handler (scsi_dh_alua) is attached to
 * the path's disk, it filters I/O by the state it believes the port is in,
 * so it has to be the one that learns of every change: pg_init is then
 * delegated to it (scsi_dh_activate()), as the stock kernel's multipath
 * target does.
 *
 * Table arguments (after "alua"), each at most once:
 *   implicit_only  never send SET TARGET PORT GROUPS; a standby group is
 *                  bypassed (the array alone moves the LUN)
 *   optimize       also move an active/non-optimized group to
 *                  active/optimized (as scsi_dh_alua does)
 * See Documentation/device-mapper/dm-alua.rst.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
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

#define DM_MSG_PREFIX "multipath alua"

/* Asymmetric access states (RTPG descriptor byte 0, low nibble). */
#define ALUA_AO		0x0
#define ALUA_AN		0x1
#define ALUA_S		0x2
#define ALUA_U		0x3
#define ALUA_LBD	0x4
#define ALUA_O		0xe
#define ALUA_T		0xf
/* What the handler shows before it has asked, or when asking failed. */
#define ALUA_UNKNOWN	0x10

#define ALUA_TPGS_IMPLICIT	0x1	/* standard INQUIRY byte 5, bits 5:4 */
#define ALUA_TPGS_EXPLICIT	0x2

#define ALUA_RTPG_EXT_HDR	0x20	/* CDB byte 1: extended header format */
#define ALUA_RTPG_FMT_MASK	0x70
#define ALUA_RTPG_FMT_EXT	0x10	/* response byte 4: extended header */

#define ALUA_BUF_LEN		1024	/* RTPG: 8 + 128 groups of 8 ports */
#define ALUA_INQ_LEN		36
#define ALUA_STPG_LEN		8
#define ALUA_DEFAULT_TRANS_SECS	60	/* when RTPG does not say */
#define ALUA_TRANS_POLL_MS	1000	/* RTPG again while transitioning */
#define ALUA_MAX_UA		5	/* unit attentions taken per command */
#define ALUA_MAX_STPG		2	/* per pg_init */
/*
 * A port that did not answer is asked again after 1 s, then at doubling
 * intervals up to 16 s: one failing command per 16 s costs nothing, and a
 * port that answers again shows so within 16 s.
 */
#define ALUA_PROBE_MIN_SECS	1
#define ALUA_PROBE_MAX_SECS	16

static unsigned int cmd_timeout = 30;

static int alua_set_timeout(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 600);
}

static const struct kernel_param_ops alua_timeout_ops = {
	.set = alua_set_timeout,
	.get = param_get_uint,
};

module_param_cb(cmd_timeout, &alua_timeout_ops, &cmd_timeout, 0644);
MODULE_PARM_DESC(cmd_timeout,
		 "Seconds before an INQUIRY, RTPG or STPG is abandoned, 1-600 (default 30)");

/* Completions and timed re-checks run here; module exit drains it. */
static struct workqueue_struct *alua_wq;

struct alua_handler {
	bool implicit_only;
	bool optimize;

	spinlock_t lock;		/* paths and their last-seen fields */
	struct list_head paths;		/* struct alua_path, in table order */
};

/* Per path: path->hwhcontext. */
struct alua_path {
	struct list_head list;
	struct dm_path *path;
	struct alua_handler *h;

	/* Last seen, under h->lock: what status reports. */
	int tpg;			/* -1 until known */
	u8 state;			/* ALUA_*: its group's, from any path */
	bool noresp;			/* our last command on it failed */

	/* A re-check after a path error; del_path waits for it. */
	bool recheck_busy;		/* under h->lock */
	wait_queue_head_t recheck_wait;

	/*
	 * While noresp: a re-check now and then (the probe). The handler is
	 * not told when the core reinstates the path, and a pg_init goes
	 * through one port of a group only, so without it nothing would ask
	 * this port again and noresp would stay after the port came back.
	 */
	struct delayed_work probe;
	unsigned int probe_secs;	/* the next probe's delay; h->lock */
	bool stopping;			/* del_path: no new re-check, probe */
};

enum alua_step { STEP_INQ, STEP_VPD, STEP_RTPG, STEP_STPG };

/*
 * One pg_init or re-check: a chain of commands on one path. It does not
 * outlive its purpose: a pg_init op is freed before dm_pg_init_complete(),
 * after which the core may destroy the handler.
 */
struct alua_op {
	struct delayed_work dwork;
	struct alua_path *ap;
	struct dm_path *path;
	bool pg_init;			/* else a re-check */
	bool implicit_only, optimize;	/* the handler's, copied */

	enum alua_step step;
	bool send_next;			/* dwork sends next (no answer to read) */
	enum alua_step next;
	bool rtpg_ext;			/* ask for the extended header */
	unsigned int ua_left;
	unsigned int stpg_sent;
	unsigned long trans_deadline;	/* 0 until a transition is seen */

	u8 tpgs;			/* ALUA_TPGS_* of this port */
	int tpg;			/* this port's group */
	u8 state;			/* that group's state */
	u8 trans_secs;			/* RTPG's implicit transition time */

	/* The command in flight and, after end_io, its outcome. */
	u8 cdb[16];
	unsigned int cdb_len;
	bool data_out;
	unsigned int data_len;
	int result;
	blk_status_t status;
	unsigned int resid;
	unsigned int sense_len;
	u8 sense[SCSI_SENSE_BUFFERSIZE];
	u8 buf[ALUA_BUF_LEN];
};

static const char *alua_state_word(u8 state)
{
	switch (state) {
	case ALUA_AO: return "ao";
	case ALUA_AN: return "an";
	case ALUA_S: return "s";
	case ALUA_U: return "u";
	case ALUA_LBD: return "lbd";
	case ALUA_O: return "o";
	case ALUA_T: return "t";
	default: return "unknown";
	}
}

static const char *alua_state_name(u8 state)
{
	switch (state) {
	case ALUA_AO: return "active/optimized";
	case ALUA_AN: return "active/non-optimized";
	case ALUA_S: return "standby";
	case ALUA_U: return "unavailable";
	case ALUA_LBD: return "lba-dependent";
	case ALUA_O: return "offline";
	case ALUA_T: return "transitioning";
	default: return "unknown";
	}
}

/* The scsi_device behind a path, or NULL if it is not a SCSI disk. */
static struct scsi_device *alua_sdev(struct dm_path *path)
{
	struct device *parent = disk_to_dev(path->dev->bdev->bd_disk)->parent;

	if (!parent || !scsi_is_sdev_device(parent))
		return NULL;

	/* The open bdev pins the disk, and the disk its scsi_device. */
	return to_scsi_device(parent);
}

static void alua_seen(struct alua_path *ap, int tpg, u8 state)
{
	unsigned long flags;

	spin_lock_irqsave(&ap->h->lock, flags);
	if (tpg >= 0)
		ap->tpg = tpg;
	ap->state = state;
	spin_unlock_irqrestore(&ap->h->lock, flags);
}

/* Schedule the next probe of a port that does not answer. */
static void alua_probe_arm(struct alua_path *ap)
{
	lockdep_assert_held(&ap->h->lock);
	if (!ap->noresp || ap->stopping)
		return;
	if (queue_delayed_work(alua_wq, &ap->probe, ap->probe_secs * HZ))
		ap->probe_secs = min_t(unsigned int, ap->probe_secs * 2,
				       ALUA_PROBE_MAX_SECS);
}

static void alua_probe_again(struct alua_path *ap)
{
	unsigned long flags;

	spin_lock_irqsave(&ap->h->lock, flags);
	alua_probe_arm(ap);
	spin_unlock_irqrestore(&ap->h->lock, flags);
}

/*
 * Whether the port answered our last command; returns whether it was
 * noresp before. Kept apart from the state: an RTPG through another port
 * reports the group's state, which says nothing about this port's link.
 */
static bool alua_answered(struct alua_path *ap, bool answered)
{
	unsigned long flags;
	bool was_noresp;

	spin_lock_irqsave(&ap->h->lock, flags);
	was_noresp = ap->noresp;
	ap->noresp = !answered;
	if (answered)
		ap->probe_secs = ALUA_PROBE_MIN_SECS;
	else
		alua_probe_arm(ap);
	spin_unlock_irqrestore(&ap->h->lock, flags);

	return was_noresp;
}

/* ---- Commands ---- */

static DM_MPATH_RQ_END_IO(alua_end_io)
{
	struct alua_op *op = rq->end_io_data;
	struct scsi_cmnd *scmd = blk_mq_rq_to_pdu(rq);

	/* The sense buffer belongs to the request, freed on return. */
	op->result = scmd->result;
	op->status = status;
	op->resid = min_t(unsigned int, scmd->resid_len, op->data_len);
	op->sense_len = min_t(unsigned int, scmd->sense_len,
			      SCSI_SENSE_BUFFERSIZE);
	memcpy(op->sense, scmd->sense_buffer, op->sense_len);

	/* Last touch of op here: the work may free it at once. */
	queue_delayed_work(alua_wq, &op->dwork, 0);

	return RQ_END_IO_FREE;
}

/* Send op->cdb down op's path; process context. */
static int alua_submit(struct alua_op *op)
{
	struct request_queue *q = bdev_get_queue(op->path->dev->bdev);
	struct scsi_cmnd *scmd;
	struct request *rq;
	int r;

	/* Fail fast: a broken path is reported, not retried by SCSI. */
	rq = scsi_alloc_request(q, (op->data_out ? REQ_OP_DRV_OUT : REQ_OP_DRV_IN) |
				REQ_FAILFAST_DEV | REQ_FAILFAST_TRANSPORT |
				REQ_FAILFAST_DRIVER, 0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);

	r = mpath_rq_map_kern(rq, op->buf, op->data_len, GFP_NOIO);
	if (r) {
		blk_mq_free_request(rq);
		return r;
	}

	scmd = blk_mq_rq_to_pdu(rq);
	memset(scmd->cmnd, 0, sizeof(scmd->cmnd));
	memcpy(scmd->cmnd, op->cdb, op->cdb_len);
	scmd->cmd_len = op->cdb_len;
	/* Allocation leaves the reused pdu's last result: decode only ours. */
	scmd->result = 0;
	/* Unit attentions are taken (and counted) by us. */
	scmd->allowed = 0;

	rq->rq_flags |= RQF_QUIET;
	rq->timeout = READ_ONCE(cmd_timeout) * HZ;
	rq->end_io = alua_end_io;
	rq->end_io_data = op;

	blk_execute_rq_nowait(rq, true);

	return 0;
}

static const char *alua_step_name(enum alua_step step)
{
	switch (step) {
	case STEP_INQ: return "INQUIRY";
	case STEP_VPD: return "INQUIRY VPD 0x83";
	case STEP_RTPG: return "REPORT TARGET PORT GROUPS";
	default: return "SET TARGET PORT GROUPS";
	}
}

/* Build the CDB (and STPG's parameter list) of step into op. */
static void alua_build(struct alua_op *op, enum alua_step step)
{
	op->step = step;
	op->ua_left = ALUA_MAX_UA;
	memset(op->cdb, 0, sizeof(op->cdb));
	memset(op->buf, 0, sizeof(op->buf));
	op->data_out = false;

	switch (step) {
	case STEP_INQ:
		op->data_len = ALUA_INQ_LEN;
		op->cdb[0] = INQUIRY;
		op->cdb[4] = ALUA_INQ_LEN;
		op->cdb_len = 6;
		break;
	case STEP_VPD:
		op->data_len = 255;
		op->cdb[0] = INQUIRY;
		op->cdb[1] = 0x01;	/* EVPD */
		op->cdb[2] = 0x83;
		op->cdb[4] = 255;
		op->cdb_len = 6;
		break;
	case STEP_RTPG:
		op->data_len = ALUA_BUF_LEN;
		op->cdb[0] = MAINTENANCE_IN;
		op->cdb[1] = MI_REPORT_TARGET_PGS |
			     (op->rtpg_ext ? ALUA_RTPG_EXT_HDR : 0);
		put_unaligned_be32(ALUA_BUF_LEN, &op->cdb[6]);
		op->cdb_len = 12;
		break;
	case STEP_STPG:
		/* 4 reserved bytes, then one descriptor: our group to A/O. */
		op->data_out = true;
		op->data_len = ALUA_STPG_LEN;
		op->buf[4] = ALUA_AO;
		put_unaligned_be16(op->tpg, &op->buf[6]);
		op->cdb[0] = MAINTENANCE_OUT;
		op->cdb[1] = MO_SET_TARGET_PGS;
		put_unaligned_be32(ALUA_STPG_LEN, &op->cdb[6]);
		op->cdb_len = 12;
		break;
	}
}

static void alua_finish(struct alua_op *op, unsigned int flags);

static void alua_send(struct alua_op *op, enum alua_step step)
{
	int r;

	alua_build(op, step);
	r = alua_submit(op);
	if (r) {
		DMWARN_LIMIT("%s (%pg): could not send %s (%d)",
			     op->path->dev->name, op->path->dev->bdev,
			     alua_step_name(step), r);
		alua_finish(op, MP_RETRY);
	}
}

/* ---- Decoding the answers ---- */

/* VPD 0x83: this port's target port group (designator type 5). */
static int alua_parse_vpd(struct alua_op *op)
{
	unsigned int len = op->data_len - op->resid, off;
	const u8 *d;

	if (len < 4 || op->buf[1] != 0x83)
		return -EINVAL;
	len = min(len, 4 + (unsigned int)get_unaligned_be16(&op->buf[2]));

	for (off = 4; off + 4 <= len; off += 4 + d[3]) {
		d = &op->buf[off];
		if (off + 4 + d[3] > len)
			break;
		/* association 1 = target port, type 5 = target port group */
		if (((d[1] >> 4) & 0x3) == 1 && (d[1] & 0xf) == 5 && d[3] >= 4)
			return get_unaligned_be16(&d[6]);
	}

	return -ENOENT;
}

/*
 * RTPG: op's group's state (and the implicit transition time); every path
 * of the handler whose group is known gets its group's state too, so that
 * one answer refreshes the whole status.
 */
static int alua_parse_rtpg(struct alua_op *op)
{
	unsigned int len = op->data_len - op->resid, off, end, n;
	struct alua_handler *h = op->ap->h;
	struct alua_path *ap;
	unsigned long flags;
	bool found = false;
	const u8 *d;

	if (len < 4)
		return -EINVAL;
	end = min(len, 4 + get_unaligned_be32(&op->buf[0]));
	off = 4;
	op->trans_secs = 0;
	if (op->rtpg_ext && len >= 8 &&
	    (op->buf[4] & ALUA_RTPG_FMT_MASK) == ALUA_RTPG_FMT_EXT) {
		op->trans_secs = op->buf[5];
		off = 8;
	}

	spin_lock_irqsave(&h->lock, flags);
	for (; off + 8 <= end; off += 8 + n * 4) {
		d = &op->buf[off];
		n = d[7];
		if (get_unaligned_be16(&d[2]) == op->tpg) {
			op->state = d[0] & 0xf;
			found = true;
		}
		list_for_each_entry(ap, &h->paths, list)
			if (ap->tpg == get_unaligned_be16(&d[2]))
				ap->state = d[0] & 0xf;
	}
	spin_unlock_irqrestore(&h->lock, flags);

	return found ? 0 : -ENOENT;
}

enum alua_outcome {
	OUT_OK,		/* data (if any) is valid */
	OUT_RESEND,	/* unit attention: send the same command again */
	OUT_TRANSITION,	/* NOT READY 04/0A: the group is transitioning */
	OUT_REFUSED,	/* ILLEGAL REQUEST: the array does not do this */
	OUT_BUSY,	/* BUSY, TASK SET FULL, or no memory: try later */
	OUT_FAILED,	/* transport error, timeout, anything else */
};

static enum alua_outcome alua_outcome(struct alua_op *op,
				      struct scsi_sense_hdr *sshdr)
{
	u8 status = op->result & 0xff;

	memset(sshdr, 0, sizeof(*sshdr));
	if (!op->result && !op->status)
		return OUT_OK;
	if (host_byte(op->result) != DID_OK)
		return OUT_FAILED;
	if (status == SAM_STAT_BUSY || status == SAM_STAT_TASK_SET_FULL)
		return OUT_BUSY;
	if (!scsi_normalize_sense(op->sense, op->sense_len, sshdr))
		return op->status == BLK_STS_RESOURCE ? OUT_BUSY : OUT_FAILED;

	switch (sshdr->sense_key) {
	case UNIT_ATTENTION:
		return op->ua_left ? OUT_RESEND : OUT_BUSY;
	case NOT_READY:
		if (sshdr->asc == 0x04 && sshdr->ascq == 0x0a)
			return OUT_TRANSITION;
		return OUT_FAILED;
	case ILLEGAL_REQUEST:
		return OUT_REFUSED;
	default:
		return OUT_FAILED;
	}
}

/* ---- The chain ---- */

static void alua_finish(struct alua_op *op, unsigned int flags)
{
	struct alua_path *ap = op->ap;
	struct dm_path *path = op->path;
	unsigned long irqflags;

	if (op->pg_init) {
		kfree(op);
		dm_pg_init_complete(path, flags);
		return;
	}

	kfree(op);
	spin_lock_irqsave(&ap->h->lock, irqflags);
	ap->recheck_busy = false;
	wake_up(&ap->recheck_wait);
	spin_unlock_irqrestore(&ap->h->lock, irqflags);
}

/* Poll RTPG again after a while: the group is transitioning. */
static void alua_wait_transition(struct alua_op *op)
{
	unsigned int secs = op->trans_secs ?: ALUA_DEFAULT_TRANS_SECS;

	if (!op->trans_deadline) {
		op->trans_deadline = jiffies + secs * HZ;
		DMINFO_LIMIT("%s (%pg): group %d transitioning, waiting up to %u s",
			     op->path->dev->name, op->path->dev->bdev,
			     op->tpg, secs);
	} else if (time_after(jiffies, op->trans_deadline)) {
		DMWARN_LIMIT("%s (%pg): group %d still transitioning after %u s: failing path",
			     op->path->dev->name, op->path->dev->bdev,
			     op->tpg, secs);
		alua_finish(op, MP_FAIL_PATH);
		return;
	}

	op->send_next = true;
	op->next = STEP_RTPG;
	queue_delayed_work(alua_wq, &op->dwork,
			   msecs_to_jiffies(ALUA_TRANS_POLL_MS));
}

/* RTPG told us op's group's state: what pg_init does about it. */
static void alua_decide(struct alua_op *op)
{
	struct dm_path *path = op->path;
	bool can_stpg = !op->implicit_only && (op->tpgs & ALUA_TPGS_EXPLICIT);
	bool want_stpg;

	switch (op->state) {
	case ALUA_AO:
	case ALUA_LBD:
		want_stpg = false;
		break;
	case ALUA_AN:
		want_stpg = op->optimize;
		break;
	case ALUA_S:
	case ALUA_U:
		want_stpg = true;
		break;
	case ALUA_T:
		alua_wait_transition(op);
		return;
	default:
		DMWARN_LIMIT("%s (%pg): group %d is %s (0x%x): failing path",
			     path->dev->name, path->dev->bdev, op->tpg,
			     alua_state_name(op->state), op->state);
		alua_finish(op, MP_FAIL_PATH);
		return;
	}

	if (!want_stpg || (op->state == ALUA_AN && !can_stpg)) {
		DMINFO_LIMIT("%s (%pg): group %d is %s: path ready",
			     path->dev->name, path->dev->bdev, op->tpg,
			     alua_state_name(op->state));
		alua_finish(op, 0);
		return;
	}

	if (!can_stpg) {
		/*
		 * Only the array can change this group's state. A standby
		 * group may come back: leave it to the end (bypass). An
		 * unavailable port cannot carry I/O: fail it.
		 */
		DMWARN_LIMIT("%s (%pg): group %d is %s and %s: %s",
			     path->dev->name, path->dev->bdev, op->tpg,
			     alua_state_name(op->state),
			     op->implicit_only ? "the table says implicit_only" :
			     "the port supports only implicit ALUA",
			     op->state == ALUA_S ? "bypassing the group" :
			     "failing path");
		alua_finish(op, op->state == ALUA_S ? MP_BYPASS_PG :
			    MP_FAIL_PATH);
		return;
	}

	if (op->stpg_sent >= ALUA_MAX_STPG) {
		DMWARN_LIMIT("%s (%pg): group %d still %s after %u STPGs: retry later",
			     path->dev->name, path->dev->bdev, op->tpg,
			     alua_state_name(op->state), op->stpg_sent);
		alua_finish(op, MP_RETRY);
		return;
	}

	DMINFO_LIMIT("%s (%pg): group %d is %s: sending STPG to active/optimized",
		     path->dev->name, path->dev->bdev, op->tpg,
		     alua_state_name(op->state));
	op->stpg_sent++;
	alua_send(op, STEP_STPG);
}

static void alua_op_work(struct work_struct *work)
{
	struct alua_op *op = container_of(to_delayed_work(work),
					  struct alua_op, dwork);
	struct dm_path *path = op->path;
	struct scsi_sense_hdr sshdr;
	enum alua_outcome out;
	int r;

	if (op->send_next) {
		op->send_next = false;
		alua_send(op, op->next);
		return;
	}

	out = alua_outcome(op, &sshdr);
	if (out == OUT_RESEND) {
		op->ua_left--;
		r = alua_submit(op);
		if (!r)
			return;
		out = OUT_BUSY;
	}

	/* An array without the extended RTPG header may refuse it. */
	if (out == OUT_REFUSED && op->step == STEP_RTPG && op->rtpg_ext) {
		op->rtpg_ext = false;
		alua_send(op, STEP_RTPG);
		return;
	}

	if (out == OUT_TRANSITION && op->pg_init &&
	    (op->step == STEP_RTPG || op->step == STEP_STPG)) {
		alua_wait_transition(op);
		return;
	}

	if (out != OUT_OK) {
		bool transient = out == OUT_BUSY || out == OUT_TRANSITION ||
				 out == OUT_FAILED;
		bool quiet = false;

		/*
		 * A re-check of a port known not to answer fails quietly. Any
		 * other outcome is an answer that refreshed nothing: a port
		 * still shown noresp is asked again later.
		 */
		if (out == OUT_FAILED)
			quiet = alua_answered(op->ap, false) && !op->pg_init;
		else
			alua_probe_again(op->ap);
		if (!quiet)
			DMWARN_LIMIT("%s (%pg): %s failed (result 0x%x, sense %02x/%02x/%02x)%s",
				     path->dev->name, path->dev->bdev,
				     alua_step_name(op->step), op->result,
				     sshdr.sense_key, sshdr.asc, sshdr.ascq,
				     !op->pg_init ? "" : transient ?
				     ": retry pg_init later" : ": failing path");
		alua_finish(op, transient ? MP_RETRY : MP_FAIL_PATH);
		return;
	}

	if (alua_answered(op->ap, true))
		DMINFO_LIMIT("%s (%pg): port answers again",
			     path->dev->name, path->dev->bdev);

	switch (op->step) {
	case STEP_INQ:
		op->tpgs = (op->buf[5] >> 4) & 0x3;
		if (!op->tpgs) {
			DMWARN_LIMIT("%s (%pg): LUN reports no ALUA (TPGS 0): failing path",
				     path->dev->name, path->dev->bdev);
			alua_finish(op, MP_FAIL_PATH);
			return;
		}
		alua_send(op, STEP_VPD);
		return;

	case STEP_VPD:
		r = alua_parse_vpd(op);
		if (r < 0) {
			DMWARN_LIMIT("%s (%pg): no port group in VPD 0x83 (%d): failing path",
				     path->dev->name, path->dev->bdev, r);
			alua_finish(op, MP_FAIL_PATH);
			return;
		}
		op->tpg = r;
		alua_seen(op->ap, r, ALUA_UNKNOWN);
		alua_send(op, STEP_RTPG);
		return;

	case STEP_RTPG:
		if (alua_parse_rtpg(op)) {
			DMWARN_LIMIT("%s (%pg): RTPG does not list group %d: failing path",
				     path->dev->name, path->dev->bdev, op->tpg);
			alua_finish(op, MP_FAIL_PATH);
			return;
		}
		if (op->pg_init)
			alua_decide(op);
		else
			alua_finish(op, 0);
		return;

	case STEP_STPG:
		/* Confirm: the array may accept an STPG and still transition. */
		alua_send(op, STEP_RTPG);
		return;
	}
}

static struct alua_op *alua_op_alloc(struct alua_path *ap, bool pg_init,
				     gfp_t gfp)
{
	struct alua_op *op = kzalloc(sizeof(*op), gfp);

	if (!op)
		return NULL;

	INIT_DELAYED_WORK(&op->dwork, alua_op_work);
	op->ap = ap;
	op->path = ap->path;
	op->pg_init = pg_init;
	op->implicit_only = ap->h->implicit_only;
	op->optimize = ap->h->optimize;
	op->rtpg_ext = true;
	op->tpg = -1;

	return op;
}

/* ---- Delegation to scsi_dh_alua ---- */

static bool alua_dh_attached(struct dm_path *path)
{
	struct request_queue *q = bdev_get_queue(path->dev->bdev);
	const char *name = scsi_dh_attached_handler_name(q, GFP_NOIO);
	bool alua = name && !strcmp(name, "alua");

	kfree(name);
	return alua;
}

static unsigned int alua_dh_flags(int err)
{
	switch (err) {
	case SCSI_DH_OK:
		return 0;
	/* As for our own commands: transient, or a failed command. */
	case SCSI_DH_RETRY:
	case SCSI_DH_IMM_RETRY:
	case SCSI_DH_RES_TEMP_UNAVAIL:
	case SCSI_DH_NOMEM:
	case SCSI_DH_IO:
	case SCSI_DH_TIMED_OUT:
	case SCSI_DH_CONN_FAILURE:
		return MP_RETRY;
	case SCSI_DH_DEV_TEMP_BUSY:
		return MP_BYPASS_PG;
	default:
		return MP_FAIL_PATH;
	}
}

/*
 * scsi_dh_alua keeps each disk's state in access_state, for all the
 * disks of a group at once: show what it now believes for every path.
 */
static void alua_dh_refresh(struct alua_handler *h)
{
	struct scsi_device *sdev;
	struct alua_path *ap;
	unsigned long flags;

	spin_lock_irqsave(&h->lock, flags);
	list_for_each_entry(ap, &h->paths, list) {
		sdev = alua_sdev(ap->path);
		if (sdev && sdev->handler)
			ap->state = sdev->access_state & SCSI_ACCESS_STATE_MASK;
	}
	spin_unlock_irqrestore(&h->lock, flags);
}

/* scsi_dh_alua's answer; process context, possibly inside pg_init. */
static void alua_dh_done(void *data, int err)
{
	struct alua_path *ap = data;
	struct dm_path *path = ap->path;
	struct scsi_device *sdev = alua_sdev(path);
	unsigned int flags = alua_dh_flags(err);
	u8 state = sdev->access_state & SCSI_ACCESS_STATE_MASK;

	alua_dh_refresh(ap->h);
	/* It got answers through this port. */
	if (!err)
		alua_answered(ap, true);
	if (err)
		DMWARN_LIMIT("%s (%pg): scsi_dh_alua activation failed (%d), port %s: %s",
			     path->dev->name, path->dev->bdev, err,
			     alua_state_name(state),
			     flags & MP_RETRY ? "retry pg_init later" :
			     flags & MP_BYPASS_PG ? "bypassing the group" :
			     "failing path");
	else
		DMINFO_LIMIT("%s (%pg): scsi_dh_alua activated the port (%s)",
			     path->dev->name, path->dev->bdev,
			     alua_state_name(state));

	dm_pg_init_complete(path, flags);
}

/* ---- Handler hooks ---- */

static void alua_pg_init(struct hw_handler *hwh, unsigned int bypassed,
			 struct dm_path *path)
{
	struct alua_path *ap = path->hwhcontext;
	struct alua_op *op;

	if (!alua_sdev(path)) {
		DMWARN_LIMIT("%s (%pg): not a SCSI device: failing path",
			     path->dev->name, path->dev->bdev);
		dm_pg_init_complete(path, MP_FAIL_PATH);
		return;
	}

	/*
	 * An attached scsi_dh_alua rejects I/O to any port it believes
	 * not active, and only its own commands change its belief: let it
	 * do the work, so that it is never behind the array.
	 */
	if (alua_dh_attached(path)) {
		DMINFO_LIMIT("%s (%pg): activating through scsi_dh_alua%s",
			     path->dev->name, path->dev->bdev,
			     bypassed ? " (bypassed group)" : "");
		scsi_dh_activate(bdev_get_queue(path->dev->bdev),
				 alua_dh_done, ap);
		return;
	}

	op = alua_op_alloc(ap, true, GFP_NOIO);
	if (!op) {
		DMERR_LIMIT("%s (%pg): no memory for pg_init: retry later",
			    path->dev->name, path->dev->bdev);
		dm_pg_init_complete(path, MP_RETRY);
		return;
	}

	alua_send(op, STEP_INQ);
}

/*
 * After a path error, or as a probe of a port that did not answer: ask the
 * array why, so that status can show it. A re-check already under way
 * covers this one: if it fails, it arms the probe again.
 */
static void alua_recheck(struct alua_path *ap, gfp_t gfp)
{
	struct alua_op *op;
	unsigned long flags;

	spin_lock_irqsave(&ap->h->lock, flags);
	if (ap->recheck_busy || ap->stopping) {
		spin_unlock_irqrestore(&ap->h->lock, flags);
		return;
	}
	ap->recheck_busy = true;
	spin_unlock_irqrestore(&ap->h->lock, flags);

	op = alua_op_alloc(ap, false, gfp);
	if (!op) {
		spin_lock_irqsave(&ap->h->lock, flags);
		ap->recheck_busy = false;
		alua_probe_arm(ap);
		wake_up(&ap->recheck_wait);
		spin_unlock_irqrestore(&ap->h->lock, flags);
		return;
	}
	/*
	 * Commands go out from process context. A re-check only reads
	 * states (it decides nothing): it starts at VPD 0x83.
	 */
	op->send_next = true;
	op->next = STEP_VPD;
	queue_delayed_work(alua_wq, &op->dwork, 0);
}

static void alua_probe_work(struct work_struct *work)
{
	struct alua_path *ap = container_of(to_delayed_work(work),
					    struct alua_path, probe);
	unsigned long flags;
	bool noresp;

	spin_lock_irqsave(&ap->h->lock, flags);
	noresp = ap->noresp;
	spin_unlock_irqrestore(&ap->h->lock, flags);

	/* (A pg_init through the port may have answered meanwhile.) */
	if (noresp)
		alua_recheck(ap, GFP_NOIO);
}

/*
 * In 6.1 a failed bio carries only a blk_status_t. A port the array put in
 * standby or unavailable answers media access with NOT READY 04/0B or
 * 04/0C, which reaches us as BLK_STS_IOERR, like a dead port; a
 * transitioning group (NOT READY 04/0A) is retried by the SCSI midlayer
 * itself (once a second, within the command's retry time) and reaches us
 * only if that runs out. So the default decode stands (fail the path, the
 * core moves on within the group, then to the next group, whose pg_init
 * makes it active); what the handler adds is a look at the array after
 * each path error, so that status shows why the path went.
 */
static unsigned int alua_err(struct hw_handler *hwh, struct dm_path *path,
			     struct bio *bio, blk_status_t error)
{
	unsigned int flags = dm_scsi_err_handler(hwh, path, bio, error);

	if ((flags & MP_FAIL_PATH) && path->hwhcontext)
		alua_recheck(path->hwhcontext, GFP_ATOMIC);

	return flags;
}

static int alua_add_path(struct hw_handler *hwh, struct dm_path *path,
			 char **error)
{
	struct alua_handler *h = hwh->context;
	struct alua_path *ap;
	unsigned long flags;

	if (!alua_sdev(path)) {
		*error = "alua: path is not a SCSI device";
		return -EINVAL;
	}

	ap = kzalloc(sizeof(*ap), GFP_KERNEL);
	if (!ap) {
		*error = "alua: no memory for path context";
		return -ENOMEM;
	}

	ap->path = path;
	ap->h = h;
	/*
	 * The group the SCSI midlayer read at scan (cached VPD 0x83), so that
	 * the first RTPG can show every path's state; pg_init asks afresh.
	 */
	ap->tpg = scsi_vpd_tpg_id(alua_sdev(path), NULL);
	if (ap->tpg < 0)
		ap->tpg = -1;
	ap->state = ALUA_UNKNOWN;
	init_waitqueue_head(&ap->recheck_wait);
	INIT_DELAYED_WORK(&ap->probe, alua_probe_work);
	ap->probe_secs = ALUA_PROBE_MIN_SECS;

	spin_lock_irqsave(&h->lock, flags);
	list_add_tail(&ap->list, &h->paths);
	spin_unlock_irqrestore(&h->lock, flags);

	path->hwhcontext = ap;

	return 0;
}

static bool alua_recheck_idle(struct alua_path *ap)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&ap->h->lock, flags);
	idle = !ap->recheck_busy;
	spin_unlock_irqrestore(&ap->h->lock, flags);

	return idle;
}

static void alua_del_path(struct hw_handler *hwh, struct dm_path *path)
{
	struct alua_handler *h = hwh->context;
	struct alua_path *ap = path->hwhcontext;
	unsigned long flags;

	if (!ap)
		return;

	/*
	 * No err can start another re-check, and after stopping no probe is
	 * armed or starts one; the one under way ends within its timeouts.
	 */
	spin_lock_irqsave(&h->lock, flags);
	ap->stopping = true;
	spin_unlock_irqrestore(&h->lock, flags);
	cancel_delayed_work_sync(&ap->probe);
	wait_event(ap->recheck_wait, alua_recheck_idle(ap));

	spin_lock_irqsave(&h->lock, flags);
	list_del(&ap->list);
	spin_unlock_irqrestore(&h->lock, flags);

	path->hwhcontext = NULL;
	kfree(ap);
}

static int alua_ctr(struct hw_handler *hwh, unsigned int argc, char **argv,
		    char **error)
{
	struct alua_handler *h;
	bool implicit_only = false, optimize = false;
	unsigned int i;

	for (i = 0; i < argc; i++) {
		if (!strcasecmp(argv[i], "implicit_only")) {
			if (implicit_only) {
				*error = "alua: implicit_only given twice";
				return -EINVAL;
			}
			implicit_only = true;
		} else if (!strcasecmp(argv[i], "optimize")) {
			if (optimize) {
				*error = "alua: optimize given twice";
				return -EINVAL;
			}
			optimize = true;
		} else {
			*error = "alua: unknown argument (expected implicit_only or optimize)";
			return -EINVAL;
		}
	}

	if (implicit_only && optimize) {
		*error = "alua: implicit_only and optimize contradict (optimize needs STPG)";
		return -EINVAL;
	}

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		*error = "alua: no memory";
		return -ENOMEM;
	}

	h->implicit_only = implicit_only;
	h->optimize = optimize;
	spin_lock_init(&h->lock);
	INIT_LIST_HEAD(&h->paths);
	hwh->context = h;

	return 0;
}

static void alua_dtr(struct hw_handler *hwh)
{
	kfree(hwh->context);
	hwh->context = NULL;
}

static int alua_status(struct hw_handler *hwh, status_type_t type,
		       char *result, unsigned int maxlen)
{
	struct alua_handler *h = hwh->context;
	struct alua_path *ap;
	unsigned long flags;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_INFO:
		/* Per path: <maj:min> <group or -> <state>. */
		spin_lock_irqsave(&h->lock, flags);
		list_for_each_entry(ap, &h->paths, list) {
			const char *word = ap->noresp ? "noresp" :
					   alua_state_word(ap->state);

			if (ap->tpg >= 0)
				DMEMIT("%s %d %s ", ap->path->dev->name,
				       ap->tpg, word);
			else
				DMEMIT("%s - %s ", ap->path->dev->name, word);
		}
		spin_unlock_irqrestore(&h->lock, flags);
		break;
	case STATUSTYPE_TABLE:
		if (h->implicit_only)
			DMEMIT("implicit_only ");
		if (h->optimize)
			DMEMIT("optimize ");
		break;
	case STATUSTYPE_IMA:
		break;
	}

	return sz;
}

static struct hw_handler_type alua_hwh = {
	.name = "alua",
	.module = THIS_MODULE,
	.ctr = alua_ctr,
	.dtr = alua_dtr,
	.add_path = alua_add_path,
	.del_path = alua_del_path,
	.pg_init = alua_pg_init,
	.err = alua_err,
	.status = alua_status,
};

module_hw_handler_with_wq(alua_hwh, alua_wq, "kmpath_aluad");

MODULE_DESCRIPTION(DM_NAME " multipath hardware handler for SCSI ALUA");
MODULE_LICENSE("GPL");
MODULE_VERSION(DM_MPATH_RELEASE);
