// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fuzz's message model and oracle: an independent reading of the
 * documented multipath messages (fail_path, reinstate_path, switch_group,
 * disable_group, enable_group, queue_if_no_path, fail_if_no_path) and of
 * the status they must leave behind.
 */
#define _GNU_SOURCE
#include "fuzz.h"
#include "kparse.h"
#include "msgmodel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sysmacros.h>

struct mmodel mm;

const char *const msg_cmds[MSG_NCMDS] = {
	"fail_path", "reinstate_path", "switch_group", "disable_group",
	"enable_group", "queue_if_no_path", "fail_if_no_path",
};

static int pg_has_active(int g)
{
	for (int i = 0; i < mm.np; i++)
		if (mm.pg_of[i] == g && mm.active[i])
			return 1;
	return 0;
}

/*
 * The PG the next I/O must use (documented choice): the PG named by
 * switch_group (or the table's initial PG) if it has a usable path; else
 * the current PG while it has one; else the first PG in table order that
 * is enabled and has a usable path; else the first disabled one. 0: none.
 */
int expected_pg(void)
{
	if (mm.next_pg && pg_has_active(mm.next_pg))
		return mm.next_pg;
	if (mm.cur_pg && pg_has_active(mm.cur_pg))
		return mm.cur_pg;
	for (int pass = 0; pass < 2; pass++)
		for (int g = 1; g <= mm.npg; g++)
			if (mm.disabled[g] == pass && pg_has_active(g))
				return g;
	return 0;
}

/* The documented messages, judged on the words the kernel will see. */
struct mexpect msg_oracle(const char *msg, uint64_t sector)
{
	struct mexpect x = { -EINVAL, 0, MA_NONE, 0 };
	struct wl l = { 0 };
	unsigned int g;
	int c = -1, want;
	dev_t d;

	k_split(msg, &l);
	if (!l.n || sector >= LEN) {
		x.core = 1;	/* "Empty message" / "sector outside device" */
		goto out;
	}
	for (int i = 0; i < MSG_NCMDS; i++)
		if (!strcasecmp(l.w[0], msg_cmds[i]))
			c = i;
	if (c < 0)
		goto out;
	want = c >= 5 ? 1 : 2;
	if (l.n != want)
		goto out;
	switch (c) {
	case 0:
	case 1:
		if (k_resolve(l.w[1], 0, &d) != KR_DEV)
			goto out;
		for (int i = 0; i < mm.np; i++)
			if (devs[i].dev == d) {
				x.r = 0;
				x.act = c == 0 ? MA_FAIL : MA_REINSTATE;
				x.arg = i;
			}
		break;
	case 2:
	case 3:
	case 4:
		if (k_strtouint(l.w[1], &g) || !g || g > (unsigned int)mm.npg)
			goto out;
		x.r = 0;
		x.act = c == 2 ? MA_SWITCH : c == 3 ? MA_DISABLE : MA_ENABLE;
		x.arg = g;
		break;
	default:
		x.r = 0;
		x.act = c == 5 ? MA_QUEUE : MA_NOQUEUE;
	}
out:
	wl_free(&l);
	return x;
}

void model_reinstate(int p)
{
	if (!mm.active[p] && mm.prob_fails && mm.fc[p] >= mm.prob_fails)
		mm.prob[p] = 1;
	mm.active[p] = 1;
}

void model_apply(struct mexpect *x)
{
	switch (x->act) {
	case MA_FAIL:
		if (mm.active[x->arg]) {
			mm.active[x->arg] = 0;
			mm.fc[x->arg]++;
		}
		break;
	case MA_REINSTATE:
		model_reinstate(x->arg);
		break;
	case MA_SWITCH:
		for (int g = 1; g <= mm.npg; g++)
			mm.disabled[g] = 0;
		mm.next_pg = x->arg;
		mm.cur_pg = 0;
		break;
	case MA_DISABLE:
	case MA_ENABLE:
		mm.disabled[x->arg] = x->act == MA_DISABLE;
		mm.cur_pg = 0;
		break;
	case MA_QUEUE:
	case MA_NOQUEUE:
		mm.queue = x->act == MA_QUEUE;
		break;
	case MA_NONE:
		break;
	}
}

/* Compare the map's status with the model; 0 if they agree. */
int model_check_status(long k, const char *tbl, const char *info, long *qsize)
{
	struct wl l = { 0 };
	int i = 0, bad = 0, nact = 0, f = 0, j, listed[MP_MAX] = { 0 };
	unsigned int v, n;
	char *feat = fmt("%d %s%s", mm.nfeat_rest + mm.queue,
			 mm.queue ? "queue_if_no_path " : "",
			 mm.feat_rest ? mm.feat_rest : "");

	if (strncmp(tbl, feat, strlen(feat))) {
		fail(k, "table status features disagree with queue_if_no_path=%d: %.200s",
		     mm.queue, tbl);
		show("expected features", feat);
		bad = 1;
	}
	free(feat);
	k_split(info, &l);
#define W(j) ((j) < l.n ? l.w[j] : "")
	/*
	 * <#features> <queue size> [no_path <secs> <bound>] [probation <#paths>
	 * { <device> <failures> <stalls> <window> <clean> <needed> }+] 0 <#PGs>
	 * <PG>: no_path while queueing for want of a path (queue_if_no_path,
	 * no active path), probation while a path is on it.
	 */
	for (int p = 0; p < mm.np; p++)
		nact += mm.active[p];
	j = 2;
	if (mm.queue && !nact) {
		if (strcmp(W(2), "no_path") ||
		    k_strtouint(W(3), &v) || k_strtouint(W(4), &v)) {
			fail(k, "no path and queueing, but no 'no_path' features: %.40s",
			     info);
			bad = 1;
			goto out;
		}
		j = 5;
	}
	if (!strcmp(W(j), "probation")) {
		if (k_strtouint(W(j + 1), &n) || !n || n > (unsigned int)mm.np) {
			fail(k, "probation count '%s'", W(j + 1));
			bad = 1;
			goto out;
		}
		for (unsigned int q = 0; q < n; q++) {
			int at = j + 2 + q * 6, p;

			for (p = 0; p < mm.np; p++) {
				char want[32];

				snprintf(want, sizeof(want), "%u:%u",
					 major(devs[p].dev), minor(devs[p].dev));
				if (!strcmp(W(at), want))
					break;
			}
			for (int w = 1; w < 6; w++)
				if (k_strtouint(W(at + w), &v))
					p = mm.np;
			if (p == mm.np || listed[p]) {
				fail(k, "probation entry %u: '%s'", q, W(at));
				bad = 1;
				goto out;
			}
			listed[p] = 1;
		}
		j += 2 + n * 6;
		mm.probation_seen++;
	}
	for (int p = 0; p < mm.np; p++) {
		/* On probation only after the count of failures. */
		if (listed[p] && (!mm.prob_fails || mm.fc[p] < mm.prob_fails)) {
			fail(k, "path %s on probation after %u failure(s), probation_fails %u",
			     devs[p].name, mm.fc[p], mm.prob_fails);
			bad = 1;
		}
		if (mm.prob_exact && listed[p] != mm.prob[p]) {
			fail(k, "path %s: status %s probation, model %s", devs[p].name,
			     listed[p] ? "on" : "off", mm.prob[p] ? "on" : "off");
			bad = 1;
		}
	}
	if (k_strtouint(W(0), &v) || v != (unsigned int)j - 1) {
		fail(k, "feature count %s, words %d", W(0), j - 1);
		bad = 1;
		goto out;
	}
	f = j - 2;
	if (k_strtouint(W(1), &v) || strcmp(W(f + 2), "0") ||
	    k_strtouint(W(f + 3), &v) || (int)v != mm.npg) {
		bad = 1;
		goto out;
	}
	if (qsize)
		*qsize = atol(W(1));
	i = f + 5;
	for (int g = 1; g <= mm.npg; g++) {
		const char *state = W(i);
		int np = 0;

		if ((state[0] == 'D') != mm.disabled[g] || strlen(state) != 1 ||
		    !strchr("ADE", state[0])) {
			fail(k, "PG %d state %s, model: %s", g, state,
			     mm.disabled[g] ? "disabled" : "enabled");
			bad = 1;
		}
		/* <state> 0 <#paths> 0 */
		for (int p = 0; p < mm.np; p++)
			np += mm.pg_of[p] == g;
		if (strcmp(W(i + 1), "0") || atoi(W(i + 2)) != np || strcmp(W(i + 3), "0")) {
			bad = 1;
			goto out;
		}
		i += 4;
		for (int p = 0; p < mm.np; p++) {
			char want[32];

			if (mm.pg_of[p] != g)
				continue;
			snprintf(want, sizeof(want), "%u:%u", major(devs[p].dev),
				 minor(devs[p].dev));
			if (strcmp(W(i), want) ||
			    strcmp(W(i + 1), mm.active[p] ? "A" : "F") ||
			    k_strtouint(W(i + 2), &v) || v != mm.fc[p]) {
				fail(k, "path %s: status \"%s %s %s\", model \"%s %s %u\"",
				     devs[p].name, W(i), W(i + 1), W(i + 2), want,
				     mm.active[p] ? "A" : "F", mm.fc[p]);
				bad = 1;
			}
			i += 3;
		}
	}
	if (i != l.n)
		bad = 1;
out:
	if (bad) {
		fail(k, "status does not match the model");
		show("info", info);
		show("table", tbl);
	}
#undef W
	wl_free(&l);
	return bad;
}
