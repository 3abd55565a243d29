// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper multipath: sequential streams stay on one path (see
 * dm-mpath-stream.h): the budget of a stint and the per-CPU records.
 */

#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "dm-mpath-stream.h"

/*
 * 256 KiB: a 4 KiB stream at queue depth 32 has two stints in flight, so
 * both of two paths work while each merges its own run; a 128 KiB stream
 * changes path every other bio, as without stints (such bios are as large
 * as a path takes anyway). Bounded so that the budget in sectors fits.
 */
#define MPATH_STREAM_KB_DEFAULT	256
#define MPATH_STREAM_KB_MAX	(1024 * 1024)

static unsigned int sequential_stream_kb = MPATH_STREAM_KB_DEFAULT;
unsigned int mpath_stream_max_sectors = MPATH_STREAM_KB_DEFAULT * 2;

static int stream_kb_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int kb;
	int r = kstrtouint(val, 0, &kb);

	if (r || kb > MPATH_STREAM_KB_MAX) {
		pr_warn("dm-multipath: sequential_stream_kb '%s' refused: must be 0 to %u\n",
			strim((char *)val), MPATH_STREAM_KB_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, kb);
	WRITE_ONCE(mpath_stream_max_sectors, kb * 2);

	return 0;
}

static const struct kernel_param_ops stream_kb_param_ops = {
	.set = stream_kb_param_set,
	.get = param_get_uint,
};
module_param_cb(sequential_stream_kb, &stream_kb_param_ops,
		&sequential_stream_kb, 0644);
MODULE_PARM_DESC(sequential_stream_kb,
		 "KiB a sequential stream sends down one path before the selector chooses again, for selectors that choose per bio (0 to 1048576; 0: choose for every bio)");

struct mpath_stream __percpu *mpath_streams_alloc(void)
{
	return alloc_percpu(struct mpath_stream);
}

void mpath_streams_free(struct mpath_stream __percpu *streams)
{
	free_percpu(streams);
}

/*
 * The sectors left in a stint whose second bio, of @bio_sectors, is going
 * down @path, @left of the budget not yet spent: the budget cut to a whole
 * number of the path's requests. The path merges a stint's bios into
 * requests of at most its max_sectors, whole bios each; a budget that is
 * no multiple of that ends every stint in a short request (4 KiB bios into
 * null_blk's 127 KiB: 124 + 124 + 8 KiB for 256 KiB, 85 KiB a request on
 * average, where Linux's request-based target, which merges before it
 * picks a path, sent 112). The stream's bios are taken to be the size of
 * this one. Unchanged where one request holds the whole budget, or where
 * the path splits each bio anyway (a bio larger than a request).
 */
unsigned int mpath_stream_whole_requests(struct dm_path *path,
					 unsigned int bio_sectors,
					 unsigned int left)
{
	unsigned int max = queue_max_sectors(bdev_get_queue(path->dev->bdev));
	unsigned int budget = READ_ONCE(mpath_stream_max_sectors);
	unsigned int per_request, cut;

	if (!bio_sectors || bio_sectors > max)
		return left;
	per_request = max - max % bio_sectors;
	if (budget <= per_request)
		return left;
	cut = budget % per_request;

	return left > cut ? left - cut : 0;
}
