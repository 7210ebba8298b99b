/*
 * lab_common.h — what the noise labs (noise_lab.c, noise_lab_mixed.c) share:
 * a deterministic random stream and the receipt of one simulated run.
 */
#ifndef MCPP_BENCH_LAB_COMMON_H
#define MCPP_BENCH_LAB_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "mcpp_receipts.h"

/* xorshift64* state: set it to seed a stream; the same seed gives the same numbers */
extern uint64_t lab_rng_state;
double lab_uniform(void); /* in [0, 1) */
double lab_normal(void);  /* standard normal (Box-Muller) */

/*
 * A pytest-benchmark-like receipt of one run of `name` (suite "noise-lab"):
 * its median `headline` over `n` round samples, id `id`, source.git_commit
 * `commit` (the runs of one side name one commit and pool). Exits with 4,
 * the error printed as `program: ...`, when the builder refuses it.
 */
mcpp_receipt *lab_receipt(const char *program, const char *name, const char *id, const char *commit, double headline,
                          const double *rounds, size_t n);

#endif
