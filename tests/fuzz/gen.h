/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The case generator: every table and message dm-fuzz sends is made from
 * (seed, case number) alone by a PRNG reseeded per case, so that one case
 * replays on its own (--only K).
 */
#ifndef GEN_H
#define GEN_H

#include "oracle.h"

#include <stdint.h>

/* The PRNG (splitmix64), reseeded for case k of a kind (1 tables, 2 messages). */
void case_seed(uint64_t kind, long k);
uint64_t rnd(void);
/* 0 .. n-1 (0 for n 0). */
unsigned int rn(unsigned int n);
/* True p times in 100. */
int pct(unsigned int p);

/* Table k: valid, a valid one mutated, or word soup. */
void gen_table(long k, struct sb *out);
/*
 * A message for a map of np paths (devs[0..np-1]) in npg groups: mostly one
 * of the documented ones, often slightly wrong; the sector to send it to in
 * *sector.  Call case_seed first.  The caller frees it.
 */
char *gen_message(uint64_t *sector, int np, int npg);

#endif
