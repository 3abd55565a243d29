/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fuzz oracle: an independent reading of the documented multipath table
 * and message grammar (Documentation/device-mapper/dm-multipath.rst), used
 * to judge what the kernel answered.
 */
#ifndef ORACLE_H
#define ORACLE_H

#include <sys/types.h>

enum verdict { V_VALID, V_INVALID, V_SKIP };

#define OR_MAX_PATHS 2048

struct table_expect {
	char *canon;		/* the table the kernel must print back */
	/*
	 * For V_VALID: the TABLE the live map must print after a
	 * "queue_if_no_path" message (canon with that feature added, which
	 * must load again).
	 */
	char *canon_queued;
	const char *why;	/* for V_INVALID: the first rule broken */
	/*
	 * The ti->error the kernel must log, where the oracle knows it
	 * exactly (a wrong feature count); NULL elsewhere.
	 */
	const char *error;
	/* The feature count word's value, -1 if it is not a count. */
	long nfeat;
	int queue;		/* queue_if_no_path */
	int hw;			/* a hardware handler was named */
	int npg, initial;
	int npaths;
	dev_t path[OR_MAX_PATHS];
	int path_pg[OR_MAX_PATHS];	/* 1-based */
};

/*
 * Whether the multipath target of the running kernel shows
 * retain_attached_hw_handler in its TABLE: up to target 1.14.0 (6.1,
 * 6.12); 1.15.0 (7.2, 7.3) always keeps an attached handler and no longer
 * shows the word (dm-mpath-compat.h, DM_MPATH_RETAIN_IMPLIED).
 */
int target_shows_retain(void);

/* Judge a table (the target's parameter string). */
enum verdict oracle_table(const char *params, unsigned long long len,
			  struct table_expect *e);
void table_expect_free(struct table_expect *e);

/*
 * Most feature words at once: every feature once is 18 (Linux 6.1's 8, our
 * queue_if_no_path_timeout_secs <secs> and the four probation_* <value>). The distro's 6.1 target takes
 * 8 and has no queue_if_no_path_timeout_secs: this oracle judges our
 * target only (dm-fuzz has no differential mode against the distro's).
 */
#define OR_MAX_FEATURE_WORDS 18
/* Largest count any table field accepts. */
#define OR_MAX_COUNT 1024
/* round-robin's default repeat_count. */
#define OR_RR_REPEAT 1000
/* service-time's relative_throughput: default and largest. */
#define OR_ST_THROUGHPUT 1
#define OR_ST_MAX_THROUGHPUT 100
/* historical-service-time's base_weight: default and largest. */
#define OR_HST_BASE_WEIGHT 972
#define OR_HST_MAX_BASE_WEIGHT 1023

/* A growing string (the canonical tables are built in one). */
struct sb {
	char *s;
	size_t len, cap;
};

void sb_add(struct sb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
