/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The message model: what the documented messages do to a map of up to
 * MP_MAX paths in up to PG_MAX groups (path states and fail counts,
 * disabled groups, queue_if_no_path, the PG the next I/O must use), the
 * oracle of what the kernel must answer to a message, and the judge of the
 * map's status against the model.
 */
#ifndef MSGMODEL_H
#define MSGMODEL_H

#include <stdint.h>

#define MP_MAX 6
#define PG_MAX 3

/* The map as the model knows it; path p is devs[p]. */
struct mmodel {
	int np, npg;
	int pg_of[MP_MAX];	/* 1-based */
	int active[MP_MAX];
	unsigned int fc[MP_MAX];
	int disabled[PG_MAX + 1];
	int queue;
	/*
	 * The map's other feature words as its TABLE prints them (after
	 * queue_if_no_path; "" or ending in a space), and how many.
	 */
	const char *feat_rest;
	int nfeat_rest;
	/*
	 * Path probation (dm-mpath-health.h): a path reinstated after
	 * prob_fails failures (the map's probation_fails; 0: off) goes on
	 * probation. prob_exact: the map's window and clean run are too long
	 * for a run to leave (probation_window_secs 86400,
	 * probation_clean_ios 1000000), so prob[] is exactly the kernel's;
	 * otherwise (the defaults: 60 s, 1000 I/Os) a path the status lists
	 * must have failed prob_fails times at least.
	 */
	unsigned int prob_fails;
	int prob_exact;
	int prob[MP_MAX];
	long probation_seen;	/* statuses judged with a path on probation */
	int next_pg;		/* switch_group (or the initial PG), no I/O since */
	int cur_pg;		/* the PG the last I/O used, 0 after a reset */
};

extern struct mmodel mm;

/* The documented messages' verbs, in the order msg_oracle numbers them. */
#define MSG_NCMDS 7
extern const char *const msg_cmds[MSG_NCMDS];

enum mact { MA_NONE, MA_FAIL, MA_REINSTATE, MA_SWITCH, MA_DISABLE, MA_ENABLE,
	    MA_QUEUE, MA_NOQUEUE };

struct mexpect {
	int r;			/* 0 or -EINVAL */
	int core;		/* rejected by dm core, not by the target */
	enum mact act;
	int arg;		/* path index or PG number */
};

struct mexpect msg_oracle(const char *msg, uint64_t sector);
/* Path p is reinstated (by any message): active, perhaps on probation. */
void model_reinstate(int p);
/* What an accepted message does to the model. */
void model_apply(struct mexpect *x);
/* The PG the next I/O must use, 0 if none. */
int expected_pg(void);
/*
 * Judge the map's TABLE and INFO status against the model (failures are
 * reported for case k); the INFO status's queue size in *qsize unless
 * NULL.  0 if they agree.
 */
int model_check_status(long k, const char *tbl, const char *info, long *qsize);

#endif
