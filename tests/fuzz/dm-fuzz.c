// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fuzz: feed the multipath target random and mutated tables and messages
 * through the device-mapper ioctls (thousands of cases a minute, where
 * dmsetup costs a second a call in the emulated guest), and judge every
 * answer against the oracle (oracle.c) and the kernel log:
 *
 *  tables:   a table the oracle calls valid must load, print back exactly
 *            the canonical table, and that output must load again and print
 *            itself (round trip); one it calls invalid must fail with
 *            EINVAL, log "device-mapper: table: M:m: multipath: <why>
 *            (-EINVAL)" (a wrong feature count: exactly the kernel's
 *            reason) and leave no table behind. Some valid tables are
 *            made live and read through: the data must come from one of
 *            their paths (each path device carries its own signature);
 *            then a "queue_if_no_path" message must add that feature to
 *            the TABLE, which must load again (17 feature words become 18).
 *  messages: a live map over the devices gets random and mutated messages;
 *            each must return what the model of the documented messages
 *            says (0 or EINVAL), the status must then agree with the model
 *            (path A/F, fail counts, disabled groups, queue_if_no_path), and
 *            reads probe that I/O goes to an active path, fails with EIO
 *            when no path is left and nothing queues, waits while queueing
 *            and resumes when a path comes back: never a wedged map. The
 *            live TABLE must load again (the map's feature section changes
 *            every 200 cases: none, 17 words, all 18). Now and then the map
 *            is suspended (flush or noflush): every message must then be
 *            refused with EBUSY and change neither status, and after
 *            resume the model must still hold.
 *
 * Every case is generated from (seed, case number) alone: --only N replays
 * one. Output: "FAIL ..." lines with the case, then a summary line.
 *
 *   dm-fuzz tables   [--seed S] [--cases N] [--only K] [-v] DEV...
 *   dm-fuzz messages [--seed S] [--cases N] [--only K] [-v] DEV...
 *   dm-fuzz emit     [--seed S] [--cases N] DEV...   (verdict<TAB>table lines)
 *   dm-fuzz sign DEV...                     (write each device's signature)
 *
 * DEVs are the path devices the cases may use (at least 4; null_blk with
 * memory_backed=1, so that each has its own data, or scsi_debug).
 *
 * This file runs the cases and judges the answers; the cases come from
 * gen.c, the expected answers from oracle.c (tables) and msgmodel.c
 * (messages), the reads through a map from probe.c.
 */
#define _GNU_SOURCE
#include "dmio.h"
#include "fuzz.h"
#include "gen.h"
#include "kparse.h"
#include "msgmodel.h"
#include "oracle.h"
#include "probe.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

uint64_t seed = 1;
int verbose;
long fails;

/* ---- strings ---- */
char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

/* Collapse whitespace runs to one space, trim both ends. */
static char *norm(const char *s)
{
	char *o = malloc(strlen(s) + 1), *p = o;

	if (!o)
		abort();
	while (*s) {
		if (k_isspace(*s)) {
			while (k_isspace(*s))
				s++;
			if (p != o && *s)
				*p++ = ' ';
			continue;
		}
		*p++ = *s++;
	}
	*p = 0;
	return o;
}

void show(const char *label, const char *s)
{
	size_t n = strlen(s);

	printf("#   %s (%zu chars): ", label, n);
	for (size_t i = 0; i < n && i < 600; i++) {
		unsigned char c = s[i];

		if (c == '\\')
			printf("\\\\");
		else if (c < 32 || c >= 127)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	printf("%s\n", n > 600 ? " ..." : "");
}

void fail(long k, const char *what, ...)
{
	va_list ap;

	fails++;
	printf("FAIL case %ld (seed %llu): ", k, (unsigned long long)seed);
	va_start(ap, what);
	vprintf(what, ap);
	va_end(ap);
	printf("\n");
}

/* ---- the kernel log ---- */
static char *klog;
static size_t klog_len;

static void klog_take(void)
{
	if (klog)
		klog[0] = 0;
	klog_len = 0;
	kmsg_read(&klog, &klog_len);
}

/* Lines that mean the kernel itself went wrong. */
static const char *const bad_log[] = {
	"WARNING:", "BUG:", "BUG kmalloc", "Oops", "general protection",
	"Call Trace", "refcount_t:", "list_add corruption",
	"list_del corruption", "UBSAN:", "KASAN:", "kmemleak",
	"sleeping function called", "blocked for more than",
	"possible recursive locking", "circular locking", "stack-protector",
	"kmem_cache_destroy", NULL,
};

static int klog_check(long k)
{
	const char *const *p;

	if (!klog)
		return 0;
	for (p = bad_log; *p; p++) {
		char *hit = strstr(klog, *p);

		if (hit) {
			char *eol = strchr(hit, '\n');

			fail(k, "kernel log: %.*s", eol ? (int)(eol - hit) : 200, hit);
			return -1;
		}
	}
	return 0;
}

/* A "device-mapper: table: M:m: multipath: <why> (-EINVAL)" line? */
static int klog_has_reject(void)
{
	const char *p = klog;

	while (p && (p = strstr(p, "device-mapper: table: "))) {
		const char *eol = strchr(p, '\n');
		const char *mp = strstr(p, ": multipath: ");
		size_t n = eol ? (size_t)(eol - p) : strlen(p);

		if (mp && mp < p + n && n > 10 &&
		    !strncmp(p + n - 10, " (-EINVAL)", 10))
			return 1;
		p = eol;
	}
	return 0;
}

/* ---- the devices ---- */
struct pdev *devs;
int ndevs;

static void add_dev(const char *path)
{
	struct stat st;
	const char *b = strrchr(path, '/');

	if (stat(path, &st) || !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "dm-fuzz: %s is not a block device\n", path);
		exit(2);
	}
	devs = realloc(devs, (ndevs + 1) * sizeof(*devs));
	if (!devs)
		abort();
	snprintf(devs[ndevs].path, sizeof(devs[ndevs].path), "%s", path);
	snprintf(devs[ndevs].name, sizeof(devs[ndevs].name), "%s", b ? b + 1 : path);
	devs[ndevs].dev = st.st_rdev;
	devs[ndevs].fd = -1;
	ndevs++;
}

int dev_index(dev_t d)
{
	for (int i = 0; i < ndevs; i++)
		if (devs[i].dev == d)
			return i;
	return -1;
}

/* After a run (its last case k): no fuzz device may be left. */
static void check_none_left(long k)
{
	char *names = NULL;

	dmio_list(&names);
	if (strstr(names, "dmfuzz-"))
		fail(k, "fuzz devices left behind: %s", names);
	free(names);
}

/* ---- tables mode ---- */
static const char *TNAME = "dmfuzz-t", *RNAME = "dmfuzz-r";

struct tstats {
	long cases, valid, invalid, skipped, accepted, rejected, live, huge;
	/*
	 * The feature count's edge: valid tables of 17 or 18 feature words,
	 * tables that say 19 or 20 (gen.c's edge_features); "queue_if_no_path" sent
	 * to live maps whose TABLE then loaded again, and of those how many
	 * printed the most feature words (widest_table()).
	 */
	long feat_wide, feat_over, queued, queued_ten;
	double t_acc, t_rej, t_rest, t_live, t_clear, slowest;
	long slowest_case;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int status_of(const char *name, int table, int inactive, char **s,
		     int *present)
{
	int r = dmio_status(name, table, inactive, s, present);

	if (r) {
		*s = strdup("");
		*present = 0;
	}
	return r;
}


static uint64_t tdev;		/* dev of TNAME, as DM_DEV_CREATE gave it */

static int create_t(void)
{
	return dmio_create(TNAME, &tdev);
}

/* Make the accepted table live and read sector 0 through it. */
static void live_check(long k, const char *tbl, struct table_expect *e)
{
	struct probe *p;
	char node[64];
	int src, r;

	r = dmio_resume(TNAME);
	if (r) {
		fail(k, "resume of an accepted table failed: %s", strerror(-r));
		show("table", tbl);
		return;
	}
	dm_node(tdev, node, sizeof(node));
	p = probe_start(node);
	if (!probe_wait(p, 10000)) {
		fail(k, "read of a live map did not finish in 10 s (map wedged)");
		show("table", tbl);
		exit(1);
	}
	src = probe_source(p);
	if (!e->npg) {
		if (p->r >= 0 || p->err != EIO)
			fail(k, "read of a map without paths: r=%zd (%s), expected EIO",
			     p->r, strerror(p->err));
	} else if (p->r != BLK) {
		fail(k, "read through a live map: r=%zd (%s)", p->r, strerror(p->err));
	} else if (src < 0) {
		fail(k, "read through a live map returned no path signature");
	} else {
		int in = 0;

		for (int i = 0; i < e->npaths; i++)
			if (e->path[i] == devs[src].dev)
				in = 1;
		if (!in)
			fail(k, "read through a live map came from %s, not one of its paths",
			     devs[src].name);
	}
	probe_free(p);
}

/* A "device-mapper: table: M:m: multipath: <error> (-EINVAL)" line? */
static int klog_has_error(const char *error)
{
	char *want = fmt(": multipath: %s (-EINVAL)", error);
	int has = klog && strstr(klog, want);

	free(want);
	return has;
}

/*
 * The most feature words a TABLE prints: every feature (OR_MAX_FEATURE_WORDS
 * with queue_if_no_path), one fewer where the target no longer shows
 * retain_attached_hw_handler (1.15.0).
 */
static int widest_table(void)
{
	return OR_MAX_FEATURE_WORDS - !target_shows_retain();
}

/*
 * A "queue_if_no_path" message to the live map TNAME: its TABLE must then
 * carry that feature (a map loaded with all feature words but that one, 9,
 * prints 10) and load again, printing itself. 1 if it did, 0 if not.
 */
static int queued_check(long k, const struct table_expect *e)
{
	char *s = NULL, *s2 = NULL, *ns, *nq, *ns2;
	int present, r, ok = 0;

	r = dmio_message(TNAME, 0, "queue_if_no_path", NULL);
	if (r) {
		fail(k, "queue_if_no_path message to a live map: %s", strerror(-r));
		return 0;
	}
	status_of(TNAME, 1, 0, &s, &present);
	ns = norm(s);
	nq = norm(e->canon_queued);
	if (strcmp(ns, nq)) {
		fail(k, "TABLE after queue_if_no_path differs from the oracle's");
		show("expected", nq);
		show("printed ", ns);
	}
	r = dmio_load(RNAME, LEN, "multipath", s);
	if (r) {
		fail(k, "TABLE after queue_if_no_path (%d feature words) does not load again: %s",
		     atoi(ns), strerror(-r));
		show("printed", ns);
	} else {
		status_of(RNAME, 1, 1, &s2, &present);
		ns2 = norm(s2);
		if (strcmp(ns, ns2)) {
			fail(k, "TABLE after queue_if_no_path: round trip differs");
			show("first ", ns);
			show("second", ns2);
		} else {
			ok = 1;
		}
		free(ns2);
		free(s2);
		dmio_clear(RNAME);
	}
	free(nq);
	free(ns);
	free(s);
	return ok;
}

static void run_tables(long first, long n)
{
	struct sb tbl = { 0 };
	struct tstats st = { 0 };
	long k;
	int r;

	if (create_t() || dmio_create(RNAME, NULL)) {
		fprintf(stderr, "dm-fuzz: cannot create %s/%s: %s\n", TNAME, RNAME,
			strerror(errno));
		exit(2);
	}
	for (k = first; k < first + n; k++) {
		struct table_expect e;
		enum verdict v;
		long f0 = fails;
		char *s = NULL;
		int present;
		double t0, t1;

		gen_table(k, &tbl);
		v = oracle_table(tbl.s, LEN, &e);
		st.cases++;
		if (v == V_SKIP) {	/* names a dm device, or some such */
			st.skipped++;
			continue;
		}
		if (v == V_VALID)
			st.valid++;
		else
			st.invalid++;
		if (e.npaths >= 512 || e.npg >= 512)
			st.huge++;
		if (v == V_VALID && e.nfeat > OR_MAX_FEATURE_WORDS - 2)
			st.feat_wide++;
		if (v == V_INVALID && e.nfeat > OR_MAX_FEATURE_WORDS &&
		    e.nfeat <= OR_MAX_FEATURE_WORDS + 2)
			st.feat_over++;

		klog_take();
		t0 = now_ms();
		r = dmio_load(TNAME, LEN, "multipath", tbl.s);
		t1 = now_ms();
		if (r)
			st.t_rej += t1 - t0;
		else
			st.t_acc += t1 - t0;
		klog_take();
		klog_check(k);
		if (r && r != -EINVAL)
			fail(k, "table load returned %s, expected success or EINVAL",
			     strerror(-r));

		if (r) {
			st.rejected++;
			if (v == V_VALID)
				fail(k, "valid table rejected");
			if (!klog_has_reject())
				fail(k, "rejected without a \"device-mapper: table: ...: multipath: ... (-EINVAL)\" log line");
			else if (e.error && !klog_has_error(e.error))
				fail(k, "rejected, but not for \"%s\" (oracle: %s)",
				     e.error, e.why);
			status_of(TNAME, 1, 1, &s, &present);
			if (present)
				fail(k, "rejected table left an inactive table: %s", s);
			free(s);
		} else {
			char *ns, *s2 = NULL, *ns2;

			st.accepted++;
			if (v == V_INVALID)
				fail(k, "invalid table accepted (oracle: %s)", e.why);
			status_of(TNAME, 1, 1, &s, &present);
			if (!present)
				fail(k, "accepted table not present as the inactive table");
			ns = norm(s);
			if (v == V_VALID) {
				char *nc = norm(e.canon);

				if (strcmp(ns, nc)) {
					fail(k, "table printed back differs from the canonical table");
					show("expected", nc);
					show("printed ", ns);
				}
				free(nc);
			}
			/* Round trip: what it printed must load and print itself. */
			r = dmio_load(RNAME, LEN, "multipath", s);
			if (r) {
				fail(k, "printed table does not load again: %s", strerror(-r));
				show("printed", s);
			} else {
				status_of(RNAME, 1, 1, &s2, &present);
				ns2 = norm(s2);
				if (strcmp(ns, ns2)) {
					fail(k, "round trip differs");
					show("first ", ns);
					show("second", ns2);
				}
				free(ns2);
				free(s2);
				dmio_clear(RNAME);
			}
			free(ns);
			free(s);
			/* The info status must be there and start with the queue. */
			status_of(TNAME, 0, 1, &s, &present);
			if (strncmp(s, "1 0 ", 4))
				fail(k, "info status of a fresh table: \"%.80s\"", s);
			free(s);

			/* Wide feature sections go live often: see queued_check. */
			if (v == V_VALID && !e.hw && (e.npg || !e.queue) &&
			    (pct(5) || (e.nfeat >= 8 && pct(50)))) {
				double tl = now_ms();

				st.live++;
				live_check(k, tbl.s, &e);
				if (queued_check(k, &e)) {
					st.queued++;
					st.queued_ten += atoi(e.canon_queued) ==
							 widest_table();
				}
				r = dmio_remove(TNAME);
				if (r || create_t()) {
					fail(k, "remove/recreate of the live map failed: %s",
					     strerror(r ? -r : errno));
					exit(1);
				}
				st.t_live += now_ms() - tl;
			} else {
				double tc = now_ms();

				r = dmio_clear(TNAME);
				st.t_clear += now_ms() - tc;
				if (r)
					fail(k, "table clear failed: %s", strerror(-r));
			}
		}
		klog_take();
		klog_check(k);
		if (fails > f0) {
			show("table", tbl.s);
			if (klog && *klog)
				show("kernel log", klog);
		}
		st.t_rest += now_ms() - t1;
		if (now_ms() - t0 > st.slowest) {
			st.slowest = now_ms() - t0;
			st.slowest_case = k;
		}
		if (verbose)
			printf("case %ld: %s %s: %s\n", k,
			       v == V_VALID ? "valid" : "invalid",
			       r ? "rejected" : "accepted", tbl.s);
		table_expect_free(&e);
		if (fails > 50) {
			printf("dm-fuzz: too many failures, stopping\n");
			break;
		}
	}
	if (dmio_remove(TNAME) || dmio_remove(RNAME))
		fail(k, "cannot remove the fuzz devices: %s", strerror(errno));
	check_none_left(k);
	free(tbl.s);
	printf("dm-fuzz tables: %ld cases (seed %llu, from %ld): %ld valid, %ld invalid, "
	       "%ld skipped; %ld accepted, %ld rejected; %ld made live, %ld huge; "
	       "%ld failures\n", st.cases, (unsigned long long)seed, first,
	       st.valid, st.invalid, st.skipped, st.accepted, st.rejected,
	       st.live, st.huge, fails);
	printf("dm-fuzz tables: feature edge: %ld valid with 17-18 feature words, "
	       "%ld with 19-20; %ld live maps sent queue_if_no_path "
	       "reloaded, %ld printing the most feature words (%d)\n",
	       st.feat_wide, st.feat_over, st.queued, st.queued_ten,
	       widest_table());
	printf("dm-fuzz tables: time: loads accepted %.0f ms, rejected %.0f ms, "
	       "the rest %.0f ms (live %.0f, clear %.0f); slowest case %ld (%.0f ms)\n",
	       st.t_acc, st.t_rej, st.t_rest, st.t_live, st.t_clear,
	       st.slowest_case, st.slowest);
}

/* Tables a shell can pass to dmsetup unchanged, with the oracle's verdict. */
static void run_emit(long first, long n)
{
	struct sb tbl = { 0 };
	long k, out = 0;

	for (k = first; out < n && k < first + 100 * n; k++) {
		struct table_expect e;
		enum verdict v;
		int plain = 1;

		gen_table(k, &tbl);
		for (const char *c = tbl.s; *c; c++)
			if (*c < 32 || *c > 126 || *c == '\\' || *c == '\'' ||
			    *c == '"' || *c == '$' || *c == '`')
				plain = 0;
		if (!plain || tbl.len > 2000 || !tbl.len || tbl.s[0] == ' ' ||
		    tbl.s[tbl.len - 1] == ' ')
			continue;
		v = oracle_table(tbl.s, LEN, &e);
		if (v == V_SKIP)
			continue;
		printf("%ld\t%s\t%s\t%s\n", k, v == V_VALID ? "valid" : "invalid",
		       v == V_VALID ? e.canon : "-", tbl.s);
		table_expect_free(&e);
		out++;
	}
	free(tbl.s);
}

/* ---- messages mode ---- */
static const char *MNAME = "dmfuzz-m";

static uint64_t mdev;

struct mstats {
	long cases, ok, einval, probes, probe_io, probe_eio, probe_queued;
	/*
	 * Suspended episodes (of them with noflush), messages refused with
	 * EBUSY in them; loads of the live TABLE (of them with the most feature
	 * words: widest_table()).
	 */
	long suspends, noflush, busy, reloads, reloads_ten;
};

/* Compare the map's status with the model; 0 if they agree. */
static int status_check(long k, long *qsize)
{
	char *info = NULL, *tbl = NULL;
	int present, bad;

	status_of(MNAME, 1, 0, &tbl, &present);
	status_of(MNAME, 0, 0, &info, &present);
	bad = model_check_status(k, tbl, info, qsize);
	free(info);
	free(tbl);
	return bad;
}

static int send_msg(const char *msg)
{
	return dmio_message(MNAME, 0, msg, NULL);
}

/* "fail_path D" or "reinstate_path D" for every path, in the model too. */
static void all_paths(const char *verb, int active)
{
	char m[128];

	for (int p = 0; p < mm.np; p++) {
		snprintf(m, sizeof(m), "%s %s", verb, devs[p].path);
		send_msg(m);
		if (!active && mm.active[p])
			mm.fc[p]++;	/* as the kernel counts it */
		if (active)
			model_reinstate(p);
		else
			mm.active[p] = 0;
	}
}

/* Read through the map and judge the answer by the model. */
static void probe_map(long k, struct mstats *st)
{
	int nact = 0, src, want_pg;
	char node[64];
	struct probe *p;

	for (int i = 0; i < mm.np; i++)
		nact += mm.active[i];
	st->probes++;
	dm_node(mdev, node, sizeof(node));
	p = probe_start(node);

	if (!nact && mm.queue) {
		long qs = 0;
		int i = rn(mm.np);

		/* Must wait, visibly queued, and go on when a path returns. */
		if (probe_wait(p, 500)) {
			fail(k, "read finished (r=%zd %s) with no path while queueing",
			     p->r, strerror(p->err));
			probe_free(p);
			return;
		}
		/*
		 * The reader thread may not have reached the map yet: give
		 * it 10 s (a loaded TCG guest can stall a thread for more
		 * than a second); a read that is queued shows at once.
		 */
		for (int t = 0; t < 500 && !qs; t++) {
			status_check(k, &qs);
			if (!qs)
				usleep(20000);
		}
		if (!qs)
			fail(k, "a read is waiting but the status shows queue size 0");
		st->probe_queued++;
		if (pct(50)) {
			char msg[64];

			snprintf(msg, sizeof(msg), "reinstate_path %u:%u",
				 major(devs[i].dev), minor(devs[i].dev));
			if (send_msg(msg))
				fail(k, "reinstate_path to release a queued read failed");
			model_reinstate(i);
			nact = 1;
		} else {
			if (send_msg("fail_if_no_path"))
				fail(k, "fail_if_no_path to release a queued read failed");
			mm.queue = 0;
		}
	}
	want_pg = expected_pg();
	if (!probe_wait(p, 10000)) {
		fail(k, "read did not finish in 10 s: the map is wedged");
		status_check(k, NULL);
		exit(1);
	}
	src = probe_source(p);
	if (!nact) {
		if (p->r >= 0 || p->err != EIO)
			fail(k, "read without a path: r=%zd (%s), expected EIO", p->r,
			     strerror(p->err));
		else
			st->probe_eio++;
	} else if (p->r != BLK || src < 0) {
		fail(k, "read with %d active path(s): r=%zd (%s)%s", nact, p->r,
		     strerror(p->err), p->r == BLK ? ", no path signature" : "");
	} else if (src >= mm.np || !mm.active[src]) {
		fail(k, "read went to %s, which is not an active path of the map",
		     devs[src].name);
	} else if (mm.pg_of[src] != want_pg) {
		fail(k, "read went to %s in PG %d, expected PG %d (switch_group: %d, "
		     "current: %d)", devs[src].name, mm.pg_of[src], want_pg,
		     mm.next_pg, mm.cur_pg);
	} else {
		st->probe_io++;
	}
	if (nact) {		/* a path was chosen: that is the state now */
		mm.next_pg = 0;
		mm.cur_pg = src >= 0 && src < mm.np ? mm.pg_of[src] : 0;
	}
	probe_free(p);
}

/*
 * The message map's feature sections, in turn every 200 cases: none; every
 * feature but queue_if_no_path (17 words: a queue_if_no_path message makes
 * the TABLE print 18, which must load again); every feature (18). Loaded
 * in an odd order and case, printed in the TABLE's. No bound on queueing
 * that a run could reach; no handler, so pg_init_* change nothing here.
 */
static const struct map_features {
	const char *load;	/* the feature section of the table loaded */
	const char *rest;	/* TABLE's feature words after queue_if_no_path */
	int nrest, queue;
	unsigned int prob_fails;	/* see struct mmodel */
	int prob_exact;
} map_features[] = {
	/* Probation at its defaults: 3 failures in 60 s, 1000 clean I/Os. */
	{ "0", "", 0, 0, 3, 0 },
	/* Probation after 2 failures, for good within a run. */
	{ "17 queue_mode bio probation_clean_ios 1000000 retain_attached_hw_handler "
	  "queue_if_no_path_timeout_secs 86400 pg_init_delay_msecs 100 "
	  "PROBATION_WINDOW_SECS 86400 probation_stall_msecs 600000 "
	  "pg_init_retries 3 probation_fails 2",
	  "pg_init_retries 3 pg_init_delay_msecs 100 retain_attached_hw_handler "
	  "queue_mode bio queue_if_no_path_timeout_secs 86400 probation_fails 2 "
	  "probation_window_secs 86400 probation_clean_ios 1000000 "
	  "probation_stall_msecs 600000 ", 17, 0, 2, 1 },
	/* Probation off. */
	{ "18 pg_init_retries 50 probation_stall_msecs 1 Queue_If_No_Path "
	  "queue_if_no_path_timeout_secs 0 probation_fails 0 "
	  "RETAIN_attached_hw_handler pg_init_delay_msecs 0 queue_mode BIO "
	  "probation_window_secs 1 probation_clean_ios 1",
	  "pg_init_retries 50 pg_init_delay_msecs 0 retain_attached_hw_handler "
	  "queue_mode bio queue_if_no_path_timeout_secs 0 probation_fails 0 "
	  "probation_window_secs 1 probation_clean_ios 1 "
	  "probation_stall_msecs 1 ", 17, 1, 0, 1 },
};

#define NR_MAP_FEATURES (sizeof(map_features) / sizeof(map_features[0]))

/*
 * Map feature section i's TABLE words as a 1.15.0 target prints them:
 * without retain_attached_hw_handler (target_shows_retain()).
 */
static const char *rest_without_retain(unsigned int i, int *nrest)
{
	static const char word[] = "retain_attached_hw_handler ";
	static char *rest[NR_MAP_FEATURES];
	const struct map_features *mf = &map_features[i];
	char *at;

	*nrest = mf->nrest;
	at = strstr(mf->rest, word);
	if (!at)
		return mf->rest;
	(*nrest)--;
	if (!rest[i]) {
		rest[i] = strdup(mf->rest);
		if (!rest[i])
			return mf->rest;
		at = rest[i] + (at - mf->rest);
		memmove(at, at + strlen(word), strlen(at + strlen(word)) + 1);
	}
	return rest[i];
}

/*
 * Load MNAME's table (3 PGs of 2 paths, or 2 PGs) with feature section f
 * and make it live: a new map, so the model starts over (all paths
 * active, no fail counts, every PG enabled, the initial PG 1 next).
 */
static int map_load(unsigned int f)
{
	const struct map_features *mf = &map_features[f % NR_MAP_FEATURES];
	struct sb tbl = { 0 };
	int r, g;

	sb_add(&tbl, "%s 0 %d 1", mf->load, mm.npg);
	for (g = 1; g <= mm.npg; g++) {
		int cnt = 0;

		for (int p = 0; p < mm.np; p++)
			cnt += mm.pg_of[p] == g;
		sb_add(&tbl, " round-robin 0 %d 1", cnt);
		for (int p = 0; p < mm.np; p++)
			if (mm.pg_of[p] == g)
				sb_add(&tbl, " %s 1", devs[p].path);
	}
	r = dmio_load(MNAME, LEN, "multipath", tbl.s);
	if (!r)
		r = dmio_resume(MNAME);
	if (r) {
		fprintf(stderr, "dm-fuzz: cannot load %s (%s): %s\n", MNAME, tbl.s,
			strerror(-r));
		free(tbl.s);
		return r;
	}
	free(tbl.s);
	for (int p = 0; p < mm.np; p++) {
		mm.active[p] = 1;
		mm.fc[p] = 0;
		mm.prob[p] = 0;
	}
	mm.prob_fails = mf->prob_fails;
	mm.prob_exact = mf->prob_exact;
	for (g = 1; g <= mm.npg; g++)
		mm.disabled[g] = 0;
	mm.queue = mf->queue;
	mm.feat_rest = mf->rest;
	mm.nfeat_rest = mf->nrest;
	if (!target_shows_retain())
		mm.feat_rest = rest_without_retain(f % NR_MAP_FEATURES,
						   &mm.nfeat_rest);
	mm.next_pg = 1;		/* the table's initial PG */
	mm.cur_pg = 0;
	return 0;
}

/*
 * What the live map's TABLE prints must load again, as dmsetup reload and
 * multipathd do it: into MNAME's inactive slot, where it must print the
 * same; then cleared, so the live map (and the model) go on untouched.
 */
static void reload_check(long k, struct mstats *st)
{
	char *s = NULL, *s2 = NULL, *ns, *ns2;
	int present, r;

	status_of(MNAME, 1, 0, &s, &present);
	ns = norm(s);
	r = dmio_load(MNAME, LEN, "multipath", s);
	if (r) {
		fail(k, "the live map's TABLE (%d feature words) does not load again: %s",
		     atoi(ns), strerror(-r));
		show("TABLE", ns);
	} else {
		status_of(MNAME, 1, 1, &s2, &present);
		ns2 = norm(s2);
		if (strcmp(ns, ns2)) {
			fail(k, "the live map's TABLE loaded prints otherwise");
			show("live    ", ns);
			show("inactive", ns2);
		}
		free(ns2);
		free(s2);
		r = dmio_clear(MNAME);
		if (r)
			fail(k, "clearing the inactive table: %s", strerror(-r));
		st->reloads++;
		st->reloads_ten += atoi(ns) == widest_table();
	}
	free(ns);
	free(s);
}

/*
 * The INFO status without the no-path clock (the seconds spent queueing
 * with no path, "no_path <secs>"): it runs on in the status while the map
 * is suspended (resume then takes the suspended time off), so it is the
 * one word a message cannot have changed that may differ.
 */
static char *info_sans_clock(const char *info)
{
	struct wl l = { 0 };
	struct sb b = { 0 };

	k_split(info, &l);
	sb_add(&b, "%s", "");
	for (int i = 0; i < l.n; i++)
		sb_add(&b, "%s%s", i ? " " : "",
		       i == 3 && !strcmp(l.w[2], "no_path") ? "<secs>" : l.w[i]);
	wl_free(&l);
	return b.s;
}

/* MNAME's TABLE and INFO status, one string, without the no-path clock. */
static char *both_status(void)
{
	char *tbl = NULL, *info = NULL, *ni, *nt, *both;
	int present;

	status_of(MNAME, 1, 0, &tbl, &present);
	status_of(MNAME, 0, 0, &info, &present);
	nt = norm(tbl);
	ni = info_sans_clock(info);
	both = fmt("TABLE: %s | INFO: %s", nt, ni);
	free(nt);
	free(ni);
	free(info);
	free(tbl);
	return both;
}

/*
 * A suspended map refuses every message with EBUSY, valid or not (as
 * Linux 6.1's target does; dm core's own refusals, an empty message or a
 * sector outside the map, stay EINVAL), with a log line, and changes
 * nothing: suspend (flush or noflush), send the case's message and up to
 * three more, compare both statuses, resume. The caller then checks the
 * map against the model, which no message touched.
 */
static void suspended_case(long k, const char *msg, uint64_t sector,
			   struct mstats *st)
{
	int noflush = pct(50), n = 1 + rn(4), r;
	char *before, *after;

	r = dmio_suspend(MNAME, noflush);
	if (r) {
		fail(k, "%s suspend failed: %s", noflush ? "noflush" : "flush",
		     strerror(-r));
		return;
	}
	st->suspends++;
	st->noflush += noflush;
	before = both_status();
	for (int j = 0; j < n; j++) {
		uint64_t sec = sector;
		char *m = j ? gen_message(&sec, mm.np, mm.npg) : strdup(msg);
		struct mexpect x = msg_oracle(m, sec);
		int want = x.core ? x.r : -EBUSY;

		klog_take();
		r = dmio_message(MNAME, sec, m, NULL);
		klog_take();
		klog_check(k);
		if (r != want) {
			fail(k, "message to a %s-suspended map returned %s, expected %s",
			     noflush ? "noflush" : "flush", r ? strerror(-r) : "0",
			     strerror(-want));
			show("message", m);
		} else if (want == -EBUSY) {
			st->busy++;
			if (!klog || !strstr(klog, "device-mapper: multipath: ") ||
			    !strstr(klog, "suspended"))
				fail(k, "message refused while suspended without a "
				     "\"device-mapper: multipath: ... suspended\" log line");
		}
		free(m);
	}
	after = both_status();
	if (strcmp(before, after)) {
		fail(k, "messages to the suspended map changed its status");
		show("before", before);
		show("after ", after);
	}
	free(before);
	free(after);
	r = dmio_resume(MNAME);
	if (r) {
		fail(k, "resume after the suspended messages failed: %s", strerror(-r));
		exit(1);
	}
}

static void run_messages(long first, long n)
{
	struct mstats st = { 0 };
	long k;
	int r, g;

	mm.np = ndevs < MP_MAX ? ndevs : MP_MAX;
	mm.npg = mm.np >= 6 ? 3 : 2;
	for (int p = 0; p < mm.np; p++)
		mm.pg_of[p] = 1 + p * mm.npg / mm.np;
	r = dmio_create(MNAME, &mdev);
	if (r) {
		fprintf(stderr, "dm-fuzz: cannot create %s: %s\n", MNAME, strerror(-r));
		exit(2);
	}
	if (map_load(first / 200))
		exit(2);
	klog_take();
	if (status_check(-1, NULL)) {
		fprintf(stderr, "dm-fuzz: the fresh map's status does not parse\n");
		exit(1);
	}

	for (k = first; k < first + n; k++) {
		struct mexpect x;
		uint64_t sector;
		long f0 = fails;
		char *msg;

		case_seed(2, k);
		msg = gen_message(&sector, mm.np, mm.npg);
		x = msg_oracle(msg, sector);
		st.cases++;
		if (pct(2)) {
			suspended_case(k, msg, sector, &st);
			st.einval++;
			r = -EBUSY;
			status_check(k, NULL);
			if (pct(50))
				probe_map(k, &st);
			goto periodic;
		}
		klog_take();
		r = dmio_message(MNAME, sector, msg, NULL);
		klog_take();
		klog_check(k);
		if (r != x.r) {
			fail(k, "message returned %s, expected %s", r ? strerror(-r) : "0",
			     x.r ? strerror(-x.r) : "0");
		} else if (r) {
			const char *want = x.core ? "device-mapper: ioctl: " :
						    "device-mapper: multipath: ";

			if (!klog || !strstr(klog, want))
				fail(k, "message rejected without a \"%s...\" log line", want);
		}
		if (r)
			st.einval++;
		else
			st.ok++;
		if (!r && !x.r)
			model_apply(&x);
		else if (!r && x.r)
			goto next;	/* the model no longer knows the state */
		status_check(k, NULL);
		/* A queue_if_no_path on 17 feature words prints 18: load them. */
		if ((x.act == MA_QUEUE && pct(50)) || pct(3))
			reload_check(k, &st);
		if (pct(12) || (x.act == MA_SWITCH && pct(50)))
			probe_map(k, &st);
periodic:
		if (k % 1000 == 599) {
			/*
			 * Random messages rarely fail every path: make sure
			 * each run reads with no path under both policies
			 * (EIO; queued, then released).
			 */
			all_paths("fail_path", 0);
			send_msg("fail_if_no_path");
			mm.queue = 0;
			status_check(k, NULL);
			probe_map(k, &st);
			send_msg("queue_if_no_path");
			mm.queue = 1;
			status_check(k, NULL);
			probe_map(k, &st);
		}
		if (k % 200 == 199) {	/* back to all paths, all groups */
			char m[128];

			all_paths("reinstate_path", 1);
			for (g = 1; g <= mm.npg; g++) {
				snprintf(m, sizeof(m), "enable_group %d", g);
				send_msg(m);
				mm.disabled[g] = 0;
			}
			mm.cur_pg = 0;
			status_check(k, NULL);
			probe_map(k, &st);
			/* The next feature section: a new table, a new model. */
			if (map_load((k + 1) / 200))
				exit(1);
			status_check(k, NULL);
		}
next:
		klog_take();
		klog_check(k);
		if (fails > f0) {
			show("message", msg);
			printf("#   sector %llu\n", (unsigned long long)sector);
			if (klog && *klog)
				show("kernel log", klog);
		}
		if (verbose)
			printf("case %ld: %s -> %d\n", k, msg, r);
		free(msg);
		if (fails > 50) {
			printf("dm-fuzz: too many failures, stopping\n");
			break;
		}
	}
	if (dmio_remove(MNAME))
		fail(k, "cannot remove %s: %s", MNAME, strerror(errno));
	check_none_left(k);
	printf("dm-fuzz messages: %ld cases (seed %llu, from %ld): %ld accepted, "
	       "%ld rejected; %ld read probes (%ld read a path, %ld EIO without a "
	       "path, %ld queued then released); %ld suspends, %ld of them "
	       "noflush, %ld refused busy; %ld reloads of the live TABLE, %ld "
	       "with the most feature words (%d); %ld statuses with a path on probation; "
	       "%ld failures\n", st.cases,
	       (unsigned long long)seed, first, st.ok, st.einval, st.probes,
	       st.probe_io, st.probe_eio, st.probe_queued, st.suspends,
	       st.noflush, st.busy, st.reloads, st.reloads_ten,
	       widest_table(), mm.probation_seen, fails);
}

static void usage(void)
{
	fprintf(stderr, "usage: dm-fuzz tables|messages|emit|sign [--seed S] "
		"[--cases N] [--first K] [--only K] [-v] DEV...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "cases", required_argument, NULL, 'n' },
		{ "first", required_argument, NULL, 'f' },
		{ "only", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	long cases = 1000, first = 0;
	const char *mode;
	int c;

	/* Line by line: a run that dies still leaves its FAIL lines behind. */
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "s:n:f:o:v", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			cases = atol(optarg);
			break;
		case 'f':
			first = atol(optarg);
			break;
		case 'o':
			first = atol(optarg);
			cases = 1;
			verbose = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; optind < argc; optind++)
		add_dev(argv[optind]);
	if (ndevs < 4) {
		fprintf(stderr, "dm-fuzz: give at least 4 path devices\n");
		exit(2);
	}
	/* "dev/sdX" in a table is relative to our working directory. */
	if (chdir("/"))
		exit(2);

	if (!strcmp(mode, "emit")) {
		run_emit(first, cases);
		return 0;
	}
	if (!strcmp(mode, "print")) {	/* the cases and verdicts, nothing run */
		struct sb tbl = { 0 };

		for (long k = first; k < first + cases; k++) {
			struct table_expect e;
			enum verdict v;

			gen_table(k, &tbl);
			v = oracle_table(tbl.s, LEN, &e);
			printf("%ld %s%s%s\n", k, v == V_VALID ? "valid" :
			       v == V_SKIP ? "skip" : "invalid: ",
			       v == V_INVALID ? e.why : "", v == V_VALID ? ":" : "");
			show("table", tbl.s);
			if (v == V_VALID)
				show("canon", e.canon);
			table_expect_free(&e);
		}
		free(tbl.s);
		return 0;
	}
	if (!strcmp(mode, "sign"))
		return sign_devs() ? 1 : 0;
	if (dmio_open() || kmsg_open()) {
		fprintf(stderr, "dm-fuzz: cannot open /dev/mapper/control or /dev/kmsg\n");
		exit(2);
	}
	if (!strcmp(mode, "tables"))
		run_tables(first, cases);
	else if (!strcmp(mode, "messages"))
		run_messages(first, cases);
	else
		usage();
	return fails ? 1 : 0;
}

