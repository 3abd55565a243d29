// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module: I/O with T10 protection information attached by the
 * submitter, the way a DIX-aware kernel user (LIO's iblock backend, a
 * stacked driver) sends it. Bio-based devices such as a multipath map get
 * no protection information from the block layer (it generates it only at
 * the bottom, blk-mq, device), so this is what exercises a map's handling
 * of bios that carry it, retries included.
 *
 * Loading it does the whole job and returns its verdict as the load's:
 *   insmod mptest_pi.ko path=/dev/mapper/X op=write|read count=N seed=S
 * writes (or reads and checks) N 4 KiB blocks from sector 0, each block's
 * data a pattern of (seed, sector) and each 512-byte sector's tuple a
 * T10 DIF type 1 one (CRC guard of the data, reference tag the sector).
 * A read checks both the data and the tuples the device returned. The
 * load fails with -EIO if any I/O failed or anything read differed, and
 * logs one line with the counts either way. The module stays loaded
 * (rmmod it) so that a scenario can load it again.
 */

#include <linux/bio.h>
#include <linux/blk-integrity.h>
#include <linux/blkdev.h>
#include <linux/crc-t10dif.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/t10-pi.h>
#include <linux/version.h>

#include "dm-mpath-compat.h"

#define PI_SECTORS_PER_BLOCK	8	/* 4 KiB of 512-byte sectors */

static char *path;
module_param(path, charp, 0);
MODULE_PARM_DESC(path, "block device to do the I/O on");
static char *op = "read";
module_param(op, charp, 0);
MODULE_PARM_DESC(op, "write or read (and check)");
static unsigned int count = 256;
module_param(count, uint, 0);
MODULE_PARM_DESC(count, "4 KiB blocks, from sector 0");
static unsigned int seed;
module_param(seed, uint, 0);
MODULE_PARM_DESC(seed, "selects the data pattern");

static void fill_block(u8 *data, struct t10_pi_tuple *pi, sector_t sector)
{
	u32 *w = (u32 *)data;
	unsigned int i;

	for (i = 0; i < PAGE_SIZE / sizeof(*w); i++)
		w[i] = seed * 2654435761U ^ (u32)sector * 40503U ^ i;
	for (i = 0; i < PI_SECTORS_PER_BLOCK; i++) {
		pi[i].guard_tag = cpu_to_be16(crc_t10dif(data + i * 512, 512));
		pi[i].app_tag = 0;
		pi[i].ref_tag = cpu_to_be32(lower_32_bits(sector + i));
	}
}

/* One 4 KiB bio with its protection information; the bio's status. */
static blk_status_t pi_io(struct block_device *bdev, enum req_op rw,
			  sector_t sector, struct page *data, struct page *pi)
{
	struct bio_integrity_payload *bip;
	blk_status_t st = BLK_STS_RESOURCE;
	struct bio *bio;

	bio = bio_alloc(bdev, 1, rw, GFP_KERNEL);
	bio->bi_iter.bi_sector = sector;
	if (bio_add_page(bio, data, PAGE_SIZE, 0) != PAGE_SIZE)
		goto out;
	bip = bio_integrity_alloc(bio, GFP_KERNEL, 1);
	if (IS_ERR(bip))
		goto out;
	if (bio_integrity_add_page(bio, pi, PI_SECTORS_PER_BLOCK *
				   sizeof(struct t10_pi_tuple), 0) !=
	    PI_SECTORS_PER_BLOCK * sizeof(struct t10_pi_tuple))
		goto out;
	bip_set_seed(bip, sector);
	submit_bio_wait(bio);
	st = bio->bi_status;
out:
	bio_put(bio);
	return st;
}

static int __init mptest_pi_init(void)
{
	unsigned int blk, failed = 0, data_bad = 0, pi_bad = 0;
	bool write = !strcmp(op, "write");
	struct page *data = NULL, *pi = NULL, *want = NULL, *want_pi = NULL;
	struct mpath_bdev_handle dev;
	struct block_device *bdev;
	int r = -ENOMEM;

	if (!path || (!write && strcmp(op, "read")))
		return -EINVAL;

	r = mpath_bdev_open(&dev, path);
	if (r)
		return r;
	bdev = dev.bdev;
	r = -ENOMEM;

	/* dm core cannot clone a protected bio for a disk without a profile. */
	if (!blk_get_integrity(bdev->bd_disk)) {
		pr_info("mptest_pi: %s has no integrity profile\n", path);
		r = -EOPNOTSUPP;
		goto out;
	}

	data = alloc_page(GFP_KERNEL);
	pi = alloc_page(GFP_KERNEL);
	want = alloc_page(GFP_KERNEL);
	want_pi = alloc_page(GFP_KERNEL);
	if (!data || !pi || !want || !want_pi)
		goto out;

	for (blk = 0; blk < count; blk++) {
		sector_t sector = (sector_t)blk * PI_SECTORS_PER_BLOCK;
		void *d = page_address(data), *p = page_address(pi);
		blk_status_t st;

		fill_block(page_address(want), page_address(want_pi), sector);
		if (write) {
			memcpy(d, page_address(want), PAGE_SIZE);
			memcpy(p, page_address(want_pi), PAGE_SIZE);
		} else {
			memset(d, 0, PAGE_SIZE);
			memset(p, 0, PAGE_SIZE);
		}
		st = pi_io(bdev, write ? REQ_OP_WRITE : REQ_OP_READ, sector,
			   data, pi);
		if (st) {
			failed++;
			continue;
		}
		if (write)
			continue;
		if (memcmp(d, page_address(want), PAGE_SIZE))
			data_bad++;
		if (memcmp(p, page_address(want_pi), PI_SECTORS_PER_BLOCK *
			   sizeof(struct t10_pi_tuple)))
			pi_bad++;
	}

	pr_info("mptest_pi: %s %u x 4 KiB with protection information on %s: %u failed, %u data mismatches, %u PI mismatches\n",
		op, count, path, failed, data_bad, pi_bad);
	r = failed || data_bad || pi_bad ? -EIO : 0;
out:
	if (data)
		__free_page(data);
	if (pi)
		__free_page(pi);
	if (want)
		__free_page(want);
	if (want_pi)
		__free_page(want_pi);
	mpath_bdev_close(&dev);
	return r;
}

static void __exit mptest_pi_exit(void)
{
}

module_init(mptest_pi_init);
module_exit(mptest_pi_exit);

MODULE_DESCRIPTION("Test-only: I/O with submitter-attached T10 protection information");
MODULE_LICENSE("GPL");
