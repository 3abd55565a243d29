// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace models of the kernel's word, number and device-name parsing
 * (kstrtouint, vsscanf, isspace, dm_get_device with its name_to_dev_t
 * fallback up to 6.8): kparse.h says what each one accepts.  Each rule was
 * checked against the answers of the 6.1 guest kernel, the device names
 * also against 6.12's and 7.3's.
 */
#define _GNU_SOURCE
#include "kparse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

void wl_pushn(struct wl *l, const char *s, size_t len)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->w = realloc(l->w, l->cap * sizeof(*l->w));
		if (!l->w)
			abort();
	}
	l->w[l->n] = strndup(s, len);
	if (!l->w[l->n])
		abort();
	l->n++;
}

void wl_push(struct wl *l, const char *s)
{
	wl_pushn(l, s, strlen(s));
}

void wl_free(struct wl *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->w[i]);
	free(l->w);
	l->w = NULL;
	l->n = l->cap = 0;
}

int k_isspace(unsigned char c)
{
	return c == ' ' || (c >= 9 && c <= 13) || c == 0xa0;
}

void k_split(const char *s, struct wl *out)
{
	size_t cap = strlen(s) + 1, n;
	char *tok = malloc(cap);

	if (!tok)
		abort();
	for (;;) {
		while (*s && k_isspace(*s))
			s++;
		if (!*s)
			break;
		n = 0;
		while (*s) {
			if (*s == '\\' && s[1]) {
				tok[n++] = s[1];
				s += 2;
				continue;
			}
			if (k_isspace(*s))
				break;
			tok[n++] = *s++;
		}
		wl_pushn(out, tok, n);
	}
	free(tok);
}

int k_strtouint(const char *s, unsigned int *v)
{
	unsigned long long res = 0;
	int overflow = 0, digits = 0;

	if (*s == '+')
		s++;
	while (*s >= '0' && *s <= '9') {
		if (res > (~0ULL - (*s - '0')) / 10)
			overflow = 1;
		res = res * 10 + (*s - '0');
		s++;
		digits++;
	}
	if (overflow || !digits)
		return -1;
	if (*s == '\n')
		s++;
	if (*s || res > 0xffffffffULL)
		return -1;
	*v = res;
	return 0;
}

int k_count(const char *w, unsigned int *v)
{
	unsigned long long val = 0;
	int big = 0;

	while (k_isspace(*w))
		w++;
	if (!isdigit((unsigned char)*w))
		return -1;
	while (isdigit((unsigned char)*w)) {
		if (val > (0xffffffffULL - (*w - '0')) / 10)
			big = 1;
		val = val * 10 + (*w++ - '0');
	}
	if (*w)
		return -1;
	*v = (unsigned int)val;
	return big ? -2 : 0;
}

int k_sscanf_u(const char *str, const char *fmt, unsigned int *u)
{
	unsigned long long val;
	int num = 0;

	while (*fmt) {
		if (*fmt != '%') {
			if (*fmt++ != *str++)
				break;
			continue;
		}
		fmt++;
		if (!*str)
			break;
		if (*fmt++ == 'c') {
			str++;
			num++;
			continue;
		}
		while (k_isspace(*str))
			str++;
		if (!isdigit((unsigned char)*str))
			break;
		val = 0;	/* wraps like simple_strntoull() */
		while (isdigit((unsigned char)*str))
			val = val * 10 + (*str++ - '0');
		*u++ = (unsigned int)val;
		num++;
	}
	return num;
}

/* MKDEV() of the kernel (12-bit major, 20-bit minor), 0 if it overflows. */
static int k_mkdev(unsigned int maj, unsigned int min, dev_t *dev)
{
	if (maj >= 4096 || min >= (1U << 20))
		return -1;
	*dev = makedev(maj, min);
	return 0;
}

unsigned int dm_major(void)
{
	static unsigned int major;
	char line[128], name[64];
	unsigned int m;
	FILE *f;

	if (major)
		return major;
	f = fopen("/proc/devices", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %63s", &m, name) == 2 &&
		    !strcmp(name, "device-mapper"))
			major = m;
	fclose(f);
	return major;
}

static enum kres check_dev(dev_t dev, unsigned long long len, dev_t *out)
{
	char p[96];
	unsigned long long size;
	FILE *f;
	int ok;

	if (!dev)
		return KR_NONE;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/size", major(dev),
		 minor(dev));
	f = fopen(p, "r");
	if (!f)
		return KR_NONE;	/* no such device: the open fails */
	ok = fscanf(f, "%llu", &size) == 1;
	fclose(f);
	if (!ok || major(dev) == dm_major() || size < len)
		return KR_SKIP;
	*out = dev;
	return KR_DEV;
}

int k_name_to_dev_t(void)
{
	static int known, has;
	unsigned int maj = 0, min = 0;
	struct utsname u;

	if (!known) {
		if (!uname(&u))
			sscanf(u.release, "%u.%u", &maj, &min);
		has = maj < 6 || (maj == 6 && min < 9);
		known = 1;
	}
	return has;
}

/* blk_lookup_devt(name, 0): a disk (or partition) of that name. */
static dev_t by_block_name(const char *name)
{
	unsigned int maj, min;
	char s[32], p[128], *c;
	FILE *f;
	int n;

	if (strlen(name) > 31)
		return 0;
	strcpy(s, name);
	for (c = s; *c; c++)	/* "cciss/c0d0" is the disk "cciss!c0d0" */
		if (*c == '/')
			*c = '!';
	snprintf(p, sizeof(p), "/sys/class/block/%s/dev", s);
	f = fopen(p, "r");
	if (!f)
		return 0;
	n = fscanf(f, "%u:%u", &maj, &min);
	fclose(f);
	return n == 2 ? makedev(maj, min) : 0;
}

enum kres k_resolve(const char *w, unsigned long long len, dev_t *dev)
{
	unsigned int u[4];
	unsigned long long hex = 0;
	unsigned int d32;
	struct stat st;
	const char *p;
	dev_t d;

	/* dm_get_device(): "major:minor" first. */
	if (k_sscanf_u(w, "%u:%u%c", u) == 2)
		return k_mkdev(u[0], u[1], &d) ? KR_NONE : check_dev(d, len, dev);

	/* dm_get_dev_t(): lookup_bdev() of a path (relative to our cwd). */
	if (!stat(w, &st) && S_ISBLK(st.st_mode))
		return check_dev(st.st_rdev, len, dev);

	/* ... then name_to_dev_t(), where the kernel has it. */
	if (!k_name_to_dev_t())
		return KR_NONE;
	if (!strcmp(w, "/dev/nfs") || !strcmp(w, "/dev/cifs") ||
	    !strcmp(w, "/dev/ram") || !strncmp(w, "PARTUUID=", 9) ||
	    !strncmp(w, "PARTLABEL=", 10))
		return KR_SKIP;
	if (!strncmp(w, "/dev/", 5)) {
		d = by_block_name(w + 5);
		/* A partition that does not exist yet would also resolve. */
		if (!d && isdigit((unsigned char)w[strlen(w) - 1]))
			return KR_SKIP;
		return check_dev(d, len, dev);
	}
	if (k_sscanf_u(w, "%u:%u:%u:%c", u) == 3)
		return k_mkdev(u[0], u[1], &d) ? KR_NONE : check_dev(d, len, dev);

	/* simple_strtoul(w, &p, 16): "0x" is skipped, no sign. */
	p = w;
	if (p[0] == '0' && (p[1] | 0x20) == 'x')
		p += 2;
	for (; *p; p++) {
		unsigned int c = (unsigned char)*p, lc = c | 0x20, v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			v = lc - 'a' + 10;
		else
			break;
		hex = hex * 16 + v;
	}
	if (*p)
		return KR_NONE;
	/* new_decode_dev() of the low 32 bits. */
	d32 = (unsigned int)hex;
	d = makedev((d32 & 0xfff00) >> 8, (d32 & 0xff) | ((d32 >> 12) & 0xfff00));
	return check_dev(d, len, dev);
}
