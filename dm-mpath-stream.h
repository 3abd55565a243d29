/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device-mapper multipath: sequential streams stay on one path.
 *
 * A bio-based map whose selector chooses a path for every bio hands a
 * sequential stream of small bios to alternating paths, where no bio finds
 * its neighbour to merge with (issue 33: half of one path's IOPS on paths
 * that queue). The request-based target merges in its own queue first. Here
 * each CPU remembers where the last bio it mapped for a map ended and which
 * path it went down: a bio that starts there goes down the same path, into
 * the same plug and elevator as its predecessor, until the stint has carried
 * sequential_stream_kb (a module parameter); then the selector chooses
 * again, so that one long stream still spreads over the paths. A stint is
 * cut to whole requests of its path (mpath_stream_whole_requests()).
 *
 * Per CPU, without a lock: a sequential stream is one submitter's, which
 * runs on one CPU at a time, and random I/O (a new stint for every bio) then
 * writes no shared cacheline. A stale or racy record costs only a choice the
 * selector would not have made; the caller checks that the path is still in
 * use before it trusts one.
 */

#ifndef DM_MPATH_STREAM_H
#define DM_MPATH_STREAM_H

#include <linux/bio.h>
#include <linux/percpu.h>

#include "dm-mpath.h"

struct mpath_stream {
	struct dm_path *path;		/* NULL: no stint under way */
	sector_t next_sector;		/* where the stint's last bio ended */
	unsigned int sectors_left;	/* of the stint's budget */
	bool sized;			/* budget cut to the path's requests */
};

/* The stint budget in 512-byte sectors (0: off), from the module parameter. */
extern unsigned int mpath_stream_max_sectors;

struct mpath_stream __percpu *mpath_streams_alloc(void);
void mpath_streams_free(struct mpath_stream __percpu *streams);
unsigned int mpath_stream_whole_requests(struct dm_path *path,
					 unsigned int bio_sectors,
					 unsigned int left);

/*
 * The path of the stint that @bio continues (it starts where the last bio
 * mapped on this CPU ended, and fits in the stint's budget), the bio then
 * counted in the stint; NULL if it starts none. The caller checks the path.
 */
static inline struct dm_path *
mpath_stream_continued(struct mpath_stream __percpu *streams, struct bio *bio)
{
	struct mpath_stream *s = raw_cpu_ptr(streams);
	struct dm_path *path = READ_ONCE(s->path);
	unsigned int sectors = bio_sectors(bio);
	unsigned int left;

	if (!path || bio->bi_iter.bi_sector != READ_ONCE(s->next_sector))
		return NULL;
	/* Empty bios (flushes) have no place in a stream. */
	if (!sectors)
		return NULL;
	left = READ_ONCE(s->sectors_left);
	/*
	 * The stint's second bio: the first to show that this is a stream,
	 * so only streams pay for sizing the stint (random I/O never gets
	 * here).
	 */
	if (unlikely(!READ_ONCE(s->sized))) {
		left = mpath_stream_whole_requests(path, sectors, left);
		WRITE_ONCE(s->sized, true);
	}
	if (sectors > left)
		return NULL;
	WRITE_ONCE(s->next_sector, bio->bi_iter.bi_sector + sectors);
	WRITE_ONCE(s->sectors_left, left - sectors);
	return path;
}

/* The selector chose @path for @bio: a new stint starts there. */
static inline void mpath_stream_start(struct mpath_stream __percpu *streams,
				      struct bio *bio, struct dm_path *path)
{
	struct mpath_stream *s = raw_cpu_ptr(streams);
	unsigned int budget = READ_ONCE(mpath_stream_max_sectors);
	unsigned int sectors = bio_sectors(bio);

	if (unlikely(!budget || !sectors)) {
		if (READ_ONCE(s->path))
			WRITE_ONCE(s->path, NULL);
		return;
	}
	WRITE_ONCE(s->path, path);
	WRITE_ONCE(s->next_sector, bio->bi_iter.bi_sector + sectors);
	WRITE_ONCE(s->sectors_left, budget > sectors ? budget - sectors : 0);
	WRITE_ONCE(s->sized, false);
}

#endif
