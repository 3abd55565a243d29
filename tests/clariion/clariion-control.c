// SPDX-License-Identifier: GPL-2.0
/*
 * Control protocol of the emulated CLARiiON: the one-line commands that
 * clariion-ctl (through clariion-emu --ctl and the daemon's socket) and the
 * host unit test send to change the array's state ("owner B", "ndu on",
 * "fail A0 noresp", ...) or read it ("counters", "status").  The SCSI
 * behaviour those settings steer is in clariion-core.c.
 *
 * Every line is untrusted: it is copied to a bounded buffer, split into at
 * most MAX_TOKENS words, and every number is range-checked.
 */
#define _DEFAULT_SOURCE
#include "clariion-control.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* reject-trespass on, without a sense: ILLEGAL REQUEST 24/00 */
#define REJECT_DEFAULT_KEY	0x05
#define REJECT_DEFAULT_ASC	0x24

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

#define MAX_TOKENS 8

static int split(char *s, char **tok)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(s, " \t\r\n", &save); t && n < MAX_TOKENS;
	     t = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = t;
	return t ? -1 : n;	/* -1: too many words */
}

static int parse_sp(const char *s)
{
	if (!strcmp(s, "A") || !strcmp(s, "a"))
		return EMU_SP_A;
	if (!strcmp(s, "B") || !strcmp(s, "b"))
		return EMU_SP_B;
	return -1;
}

static int parse_onoff(const char *s, bool *v)
{
	if (!strcmp(s, "on") || !strcmp(s, "1")) {
		*v = true;
		return 0;
	}
	if (!strcmp(s, "off") || !strcmp(s, "0")) {
		*v = false;
		return 0;
	}
	return -1;
}

static int parse_byte(const char *s, uint8_t *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 16);
	if (errno || !*s || *end || x > 0xff)
		return -1;
	*v = (uint8_t)x;
	return 0;
}

/* Append to the reply buffer; output is cut (never overrun) if too long. */
struct out {
	char *buf;
	size_t len, used;
};

__attribute__((format(printf, 2, 3)))
static void outf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->used >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used = min_sz(o->used + (size_t)n, o->len - 1);
}

static const char *fail_name(enum emu_fail f)
{
	switch (f) {
	case EMU_FAIL_TRANSPORT:
		return "transport";
	case EMU_FAIL_NORESP:
		return "noresp";
	default:
		return "none";
	}
}

static void show_counters(const struct emu *e, struct out *o)
{
	char name[8];
	int i;

	for (i = 0; i < e->nports; i++) {
		const struct emu_counters *c = &e->port[i].c;

		emu_port_name(e, i, name, sizeof(name));
		outf(o, "%s trespass=%" PRIu64 " cmds=%" PRIu64
		     " media=%" PRIu64 " passive_rejects=%" PRIu64
		     " trespass_ok=%" PRIu64 " conflicts=%" PRIu64
		     " ua=%" PRIu64 " moved=%" PRIu64 "\n", name, c->trespass,
		     c->cmds, c->media, c->passive_rejects, c->trespass_ok,
		     c->conflicts, c->ua, c->moved);
	}
}

static void show_status(const struct emu *e, struct out *o)
{
	char name[8];
	int i;

	outf(o, "personality=%s\n", emu_personality_name(e));
	outf(o, "owner=%c\n", e->owner ? 'B' : 'A');
	outf(o, "default_owner=%c\n", e->default_owner ? 'B' : 'A');
	emu_port_name(e, e->reserved_by, name, sizeof(name));
	outf(o, "reservation=%s\n", e->reserved_by >= 0 ? name : "none");
	outf(o, "ndu=%d\n", e->ndu);
	outf(o, "ua=%d\n", e->ua_after_trespass);
	outf(o, "reject_trespass=%d sense=%02x/%02x/%02x\n", e->reject_trespass,
	     e->reject_key, e->reject_asc, e->reject_ascq);
	outf(o, "delay_trespass_ms=%u\n", e->trespass_delay_ms);
	outf(o, "size_blocks=%" PRIu64 "\n", e->nblocks);
	for (i = 0; i < e->nports; i++) {
		emu_port_name(e, i, name, sizeof(name));
		outf(o, "port %s rtpi=%u fail=%s ua_pending=%d\n", name,
		     e->port[i].rtpi, fail_name(e->port[i].fail),
		     e->port[i].ua_pending);
	}
}

int emu_control(struct emu *e, const char *line, char *outbuf, size_t outlen)
{
	char copy[256], *tok[MAX_TOKENS];
	struct out o = { outbuf, outlen, 0 };
	bool v;
	int n, sp, port, i;

	if (outlen)
		outbuf[0] = '\0';
	if (strlen(line) >= sizeof(copy))
		goto bad;
	strcpy(copy, line);
	n = split(copy, tok);
	if (n <= 0)
		goto bad;

	if (!strcmp(tok[0], "ping") && n == 1) {
		outf(&o, "pong\n");
	} else if (!strcmp(tok[0], "owner") && n == 1) {
		outf(&o, "%c\n", e->owner ? 'B' : 'A');
	} else if (!strcmp(tok[0], "default-owner") && n == 1) {
		outf(&o, "%c\n", e->default_owner ? 'B' : 'A');
	} else if ((!strcmp(tok[0], "owner") ||
		    !strcmp(tok[0], "default-owner")) && n == 2) {
		sp = parse_sp(tok[1]);
		if (sp < 0)
			goto bad;
		if (tok[0][0] == 'o')
			emu_set_owner(e, sp);	/* moves the LUN now */
		else
			e->default_owner = sp;	/* reported in VPD 0xC0 only */
		outf(&o, "ok\n");
	} else if (!strcmp(tok[0], "ndu") && n == 2) {
		if (parse_onoff(tok[1], &e->ndu))
			goto bad;
		outf(&o, "ok\n");
	} else if (!strcmp(tok[0], "ua") && n == 2) {
		if (parse_onoff(tok[1], &v))
			goto bad;
		e->ua_after_trespass = v;
		if (!v)
			for (i = 0; i < e->nports; i++)
				e->port[i].ua_pending = false;
		outf(&o, "ok\n");
	} else if (!strcmp(tok[0], "reject-trespass") && (n == 2 || n == 5)) {
		uint8_t k = REJECT_DEFAULT_KEY, a = REJECT_DEFAULT_ASC, q = 0;

		if (parse_onoff(tok[1], &v))
			goto bad;
		if (n == 5 && (!v || parse_byte(tok[2], &k) ||
			       parse_byte(tok[3], &a) || parse_byte(tok[4], &q) ||
			       k > 0x0f))
			goto bad;
		e->reject_trespass = v;
		if (v) {
			e->reject_key = k;
			e->reject_asc = a;
			e->reject_ascq = q;
		}
		outf(&o, "ok\n");
	} else if (!strcmp(tok[0], "delay-trespass") && n == 2) {
		char *end;
		unsigned long ms;

		errno = 0;
		ms = strtoul(tok[1], &end, 10);
		if (errno || *end || !isdigit((unsigned char)tok[1][0]) ||
		    ms > 600000)
			goto bad;
		e->trespass_delay_ms = (unsigned int)ms;
		outf(&o, "ok\n");
	} else if (!strcmp(tok[0], "fail") && n == 3) {
		port = emu_port_lookup(e, tok[1]);
		if (port < 0)
			goto bad;
		if (!strcmp(tok[2], "transport"))
			e->port[port].fail = EMU_FAIL_TRANSPORT;
		else if (!strcmp(tok[2], "noresp"))
			e->port[port].fail = EMU_FAIL_NORESP;
		else
			goto bad;
		outf(&o, "ok\n");
	} else if (!strcmp(tok[0], "restore") && n == 2) {
		if (!strcmp(tok[1], "all")) {
			for (i = 0; i < e->nports; i++)
				e->port[i].fail = EMU_FAIL_NONE;
		} else {
			port = emu_port_lookup(e, tok[1]);
			if (port < 0)
				goto bad;
			e->port[port].fail = EMU_FAIL_NONE;
		}
		outf(&o, "ok\n");
	} else if (!strcmp(tok[0], "counters") && n == 1) {
		show_counters(e, &o);
	} else if (!strcmp(tok[0], "reset-counters") && n == 1) {
		for (i = 0; i < e->nports; i++)
			memset(&e->port[i].c, 0, sizeof(e->port[i].c));
		outf(&o, "ok\n");
	} else if (!strcmp(tok[0], "reservation") && n == 1) {
		char name[8];

		emu_port_name(e, e->reserved_by, name, sizeof(name));
		outf(&o, "%s\n", e->reserved_by >= 0 ? name : "none");
	} else if (!strcmp(tok[0], "clear-reservation") && n == 1) {
		e->reserved_by = -1;
		outf(&o, "ok\n");
	} else if (!strcmp(tok[0], "status") && n == 1) {
		show_status(e, &o);
	} else {
		goto bad;
	}
	return 0;
bad:
	o.used = 0;
	if (outlen)
		outbuf[0] = '\0';
	outf(&o, "error: bad control command (try: owner [A|B], ndu on|off, "
	     "ua on|off, reject-trespass on [KEY ASC ASCQ]|off, "
	     "delay-trespass MS, fail PORT transport|noresp, restore PORT|all, "
	     "counters, reset-counters, reservation, clear-reservation, "
	     "default-owner [A|B], status, ping)\n");
	return -1;
}
