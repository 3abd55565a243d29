/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace models of the kernel's own word splitting, number parsing and
 * device-name resolution, as the multipath table parser sees them (dm core's
 * dm_split_args(), kstrtouint(), the "%u:%u" sscanf of dm_get_device() and,
 * on kernels before 6.9, the name_to_dev_t() fallback). The fuzz oracle judges tables with
 * these, so that a table is "valid" by the kernel's own rules for words and
 * numbers, not by glibc's (which differ: glibc isspace() has no 0xA0,
 * glibc strtoul() takes '-').
 */
#ifndef KPARSE_H
#define KPARSE_H

#include <stdint.h>
#include <sys/types.h>

struct wl {			/* a word list */
	char **w;
	int n, cap;
};

void wl_push(struct wl *l, const char *s);
void wl_pushn(struct wl *l, const char *s, size_t len);
void wl_free(struct wl *l);

/* The kernel's isspace(): space, \t \n \v \f \r, and 0xA0 (Latin-1 NBSP). */
int k_isspace(unsigned char c);

/* dm_split_args(): whitespace separated, backslash quotes any character. */
void k_split(const char *s, struct wl *out);

/* kstrtouint(s, 10): 0 on success. */
int k_strtouint(const char *s, unsigned int *v);

/*
 * dm_read_arg() (dm core's count reader): sscanf(w, "%u%c") == 1, i.e.
 * optional leading spaces, digits, nothing after; no sign. 0 if it reads
 * a value <= UINT_MAX; -1 if it rejects the word; -2 if dm_read_arg would
 * take it but the number is larger than UINT_MAX (it wraps modulo 2^64 and
 * is then truncated to 32 bits).
 */
int k_count(const char *w, unsigned int *v);

/* Kernel vsscanf() restricted to literal characters, %u and %c. */
int k_sscanf_u(const char *str, const char *fmt, unsigned int *u);

/*
 * Whether the running kernel's dm core falls back to name_to_dev_t() (6.5:
 * early_lookup_bdev()) after lookup_bdev(): up to 6.8's dm_get_dev_t().
 * 6.9's dm_devt_from_path() does so only in a built-in dm-mod during boot,
 * and Debian builds dm-mod as a module: "253:16:0", "fd10" and "/dev/NAME"
 * without a node are refused there.
 */
int k_name_to_dev_t(void);

enum kres { KR_NONE, KR_DEV, KR_SKIP };

/*
 * How dm_get_device() (and the core's parse_dev()) resolve a word: KR_DEV
 * and *dev for an existing block device; KR_NONE when the lookup or the open
 * fails; KR_SKIP for what the fuzzer must not touch (device-mapper devices:
 * a table naming itself would loop I/O; devices smaller than len).
 */
enum kres k_resolve(const char *w, unsigned long long len_sectors, dev_t *dev);

/* The major of "device-mapper" in /proc/devices (0 if none). */
unsigned int dm_major(void);

#endif
