/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: every difference between the kernels these
 * modules build for (Debian's 6.1, 6.12 and 7.x), in one place. The logic
 * files call the newest kernel's API, or a helper below where an older
 * kernel has no way to provide it; nothing else tests a kernel version.
 *
 * Where the kernel's headers answer the question (a macro that exists or
 * not) that is the test. Otherwise the version boundary is upstream's;
 * each was checked against the headers of 6.1.0-57 (bookworm), 6.12.118
 * (bookworm-security) and 7.3.4 (trixie-backports), and the 7.x ones also
 * against 7.2.12. Kernels between those are not built for, and the exact
 * boundaries between 6.13 and 7.1 are not checked.
 */

#ifndef DM_MPATH_COMPAT_H
#define DM_MPATH_COMPAT_H

#include <linux/bio.h>
#include <linux/bits.h>
#include <linux/blk_types.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/dm-ioctl.h>
#include <linux/file.h>
#include <linux/ktime.h>
#include <linux/timer.h>
#include <linux/version.h>

/* The one version test: the running kernel is at least a.b. */
#define DM_MPATH_KERNEL_AT_LEAST(a, b) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(a, b, 0))

/*
 * When a bio was sent down a path, for the selectors that measure
 * (historical-service-time). Where the block layer stamps each bio for
 * blk-cgroup anyway (6.1: bio->bi_issue, with BIO_ISSUE_TIME_MASK and
 * bio_issue_time() public) the core reads that stamp and reads no clock of
 * its own. Later kernels made the stamp private (6.12: block/blk.h) and
 * then dropped it (7.x: bio->issue_time_ns, only for queues with
 * blk-iolatency); dm_start_time_ns_from_clone() is dm core's accounting
 * start in jiffies (4 ms at HZ=250: useless for an I/O of microseconds).
 * There the core stamps the bio's per-I/O data itself with ktime_get_ns(),
 * as upstream's dm-mpath does on those kernels, only for a selector that
 * wants the time.
 *
 * The times passed to selectors keep DM_MPATH_TIME_MASK's bits on every
 * kernel (ps_time_since() subtracts across their wrap).
 */
#ifdef BIO_ISSUE_TIME_MASK
#define DM_MPATH_TIME_MASK	BIO_ISSUE_TIME_MASK
#else
#define DM_MPATH_TIME_MASK	GENMASK_ULL(50, 0)	/* 6.1's value */
#endif

#if IS_ENABLED(CONFIG_BLK_CGROUP) && defined(BIO_ISSUE_TIME_MASK)
/* The block layer's stamp is used: nothing to keep per I/O. */
struct mpath_start_stamp {
};

static __always_inline void mpath_stamp_start(struct mpath_start_stamp *s)
{
}

static __always_inline u64 mpath_start_time(const struct mpath_start_stamp *s,
					    struct bio *bio)
{
	return bio_issue_time(&bio->bi_issue);
}
#else
struct mpath_start_stamp {
	u64 ns;		/* ktime_get_ns() when sent, if the selector asked */
};

static __always_inline void mpath_stamp_start(struct mpath_start_stamp *s)
{
	s->ns = ktime_get_ns();
}

static __always_inline u64 mpath_start_time(const struct mpath_start_stamp *s,
					    struct bio *bio)
{
	return s->ns & DM_MPATH_TIME_MASK;
}
#endif

/* 6.12 moved the unaligned accessors out of asm/. */
#if DM_MPATH_KERNEL_AT_LEAST(6, 12)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * bio_integrity() and its payload: in a header of their own, which
 * linux/bio.h stopped including after 6.12. (No __has_include: sparse
 * does not know it.)
 */
#if DM_MPATH_KERNEL_AT_LEAST(6, 12)
#include <linux/bio-integrity.h>
#endif

/* 6.5 renamed the reservation-conflict status (the value is unchanged). */
#ifndef BLK_STS_RESV_CONFLICT
#define BLK_STS_RESV_CONFLICT	BLK_STS_NEXUS
#endif

/*
 * 7.x warns (a WARNING with a backtrace) when a workqueue asks for neither
 * WQ_PERCPU nor WQ_UNBOUND, and will make such queues unbound; ours want
 * the per-CPU pools every kernel gave them so far. WQ_PERCPU is in 6.12's
 * stable releases (6.12.117, 6.12.118), not in 6.1, where per-CPU is all
 * a queue without WQ_UNBOUND can be.
 */
#if DM_MPATH_KERNEL_AT_LEAST(6, 12)
#define DM_MPATH_WQ_PERCPU	WQ_PERCPU
#else
#define DM_MPATH_WQ_PERCPU	0
#endif

/* 6.16 renamed from_timer(); timer_delete*() exist on all three kernels. */
#ifndef timer_container_of
#define timer_container_of(var, callback_timer, timer_fieldname) \
	from_timer(var, callback_timer, timer_fieldname)
#endif

/*
 * A device path (/dev/sdb) to its dev_t, for messages naming a path:
 * 6.1's dm_get_dev_t() returns 0 for none; its successor returns an error.
 */
#if !DM_MPATH_KERNEL_AT_LEAST(6, 9)
static inline int dm_devt_from_path(const char *path, dev_t *devt)
{
	*devt = dm_get_dev_t(path);
	return *devt ? 0 : -ENODEV;
}
#endif

/* 6.16: blk_rq_map_kern() takes the queue from the request. */
static inline int mpath_rq_map_kern(struct request *rq, void *buf,
				    unsigned int len, gfp_t gfp)
{
#if DM_MPATH_KERNEL_AT_LEAST(6, 16)
	return blk_rq_map_kern(rq, buf, len, gfp);
#else
	return blk_rq_map_kern(rq->q, rq, buf, len, gfp);
#endif
}

/*
 * A passthrough request's end_io, declared as DM_MPATH_RQ_END_IO(name)
 * with the parameters rq and status: 7.x adds a completion batch, unused
 * by a request that completes alone.
 */
#if DM_MPATH_KERNEL_AT_LEAST(6, 19)
#define DM_MPATH_RQ_END_IO(fn)						\
	enum rq_end_io_ret fn(struct request *rq, blk_status_t status,	\
			      const struct io_comp_batch *iob)
#else
#define DM_MPATH_RQ_END_IO(fn)						\
	enum rq_end_io_ret fn(struct request *rq, blk_status_t status)
#endif

/*
 * The target's prepare_ioctl, declared as DM_MPATH_PREPARE_IOCTL(name)
 * with the parameters ti and bdev: 6.16 adds the ioctl itself (cmd, arg)
 * and *forward, which dm core sets and a target clears to answer the ioctl
 * without a path. In its body DM_MPATH_IOCTL_CMD and DM_MPATH_IOCTL_FORWARD
 * are those two; before 6.16 every ioctl went to a path, and they are 0
 * (no device-mapper ioctl: mpath_ioctl_is_dm()) and NULL.
 */
#if DM_MPATH_KERNEL_AT_LEAST(6, 16)
#define DM_MPATH_PREPARE_IOCTL(fn)					\
	int fn(struct dm_target *ti, struct block_device **bdev,	\
	       unsigned int cmd, unsigned long arg, bool *forward)
#define DM_MPATH_IOCTL_CMD	cmd
#define DM_MPATH_IOCTL_FORWARD	forward
#else
#define DM_MPATH_PREPARE_IOCTL(fn)					\
	int fn(struct dm_target *ti, struct block_device **bdev)
#define DM_MPATH_IOCTL_CMD	0U
#define DM_MPATH_IOCTL_FORWARD	NULL
#endif

/* An ioctl of device-mapper's own (type DM_IOCTL), sent to a map. */
static inline bool mpath_ioctl_is_dm(unsigned int cmd)
{
	return _IOC_TYPE(cmd) == DM_IOCTL;
}

/*
 * The target's grammar: what the kernel's own dm-multipath of that
 * release announces and accepts, for multipath-tools and for SG_IO users.
 * The test is the ioctl that came with target 1.15.0: where the uapi
 * header defines DM_MPATH_PROBE_PATHS (7.2, 7.3), the kernel's own target
 * is 1.15.0; before (6.1, 6.12) it is 1.14.0. 1.15.0 adds:
 * - DM_MPATH_PROBE_PATHS: read one block through every active path of the
 *   PG in use, fail those that fail with a path error; -ENOTCONN when no
 *   usable path is left (QEMU asks it after an SG_IO error);
 * - atomic writes (DM_TARGET_ATOMIC_WRITES) pass through to the paths;
 * - retain_attached_hw_handler is accepted but no longer a feature of its
 *   own: an attached scsi_dh is always kept, and the table no longer
 *   shows the word.
 * DM_MPATH_TARGET_MINOR: the target version is 1.DM_MPATH_TARGET_MINOR.0.
 */
#ifdef DM_MPATH_PROBE_PATHS
#define DM_MPATH_TARGET_MINOR		15
#define DM_MPATH_ATOMIC_WRITES		DM_TARGET_ATOMIC_WRITES
#define DM_MPATH_RETAIN_IMPLIED		true

static inline bool mpath_ioctl_is_probe_paths(unsigned int cmd)
{
	return cmd == DM_MPATH_PROBE_PATHS;
}
#else
#define DM_MPATH_TARGET_MINOR		14
#define DM_MPATH_ATOMIC_WRITES		0
#define DM_MPATH_RETAIN_IMPLIED		false

static inline bool mpath_ioctl_is_probe_paths(unsigned int cmd)
{
	return false;
}
#endif

/*
 * A block device opened by its path, for reading and writing (the test
 * modules' I/O): 6.1 hands out the block_device (blkdev_get_by_path() with
 * fmode_t, blkdev_put()); since 6.9 an open block device is a file
 * (bdev_file_open_by_path() with blk_mode_t, fput()).
 */
#if DM_MPATH_KERNEL_AT_LEAST(6, 9)
struct mpath_bdev_handle {
	struct file *file;
	struct block_device *bdev;
};

static inline int mpath_bdev_open(struct mpath_bdev_handle *h, const char *path)
{
	h->file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE,
					 NULL, NULL);
	if (IS_ERR(h->file))
		return PTR_ERR(h->file);
	h->bdev = file_bdev(h->file);
	return 0;
}

static inline void mpath_bdev_close(struct mpath_bdev_handle *h)
{
	fput(h->file);
}
#else
struct mpath_bdev_handle {
	struct block_device *bdev;
};

static inline int mpath_bdev_open(struct mpath_bdev_handle *h, const char *path)
{
	h->bdev = blkdev_get_by_path(path, FMODE_READ | FMODE_WRITE, NULL);
	return PTR_ERR_OR_ZERO(h->bdev);
}

static inline void mpath_bdev_close(struct mpath_bdev_handle *h)
{
	blkdev_put(h->bdev, FMODE_READ | FMODE_WRITE);
}
#endif

#endif
