/*
 * frontier_prepass.c — the per-receipt work of a large frontier that depends
 * only on the policy and the receipts, done ahead on worker threads.
 *
 * Grouping 10^5 receipts spends most of its CPU in three pure functions of
 * (policy, receipts): the lane-key hash, the check that a receipt whose hash
 * matches a lane's is really of that lane (field by field, so a hash
 * collision never merges two lanes), and the self-verdict that decides
 * whether a receipt needs its self-comparison rows. They only read, so
 * workers compute them for disjoint ranges in two phases: the hashes; then,
 * once the first receipt of each hash is known (one cheap pass here), each
 * receipt's check against that first receipt and its self-verdict. The
 * grouping itself (lanes, summaries) stays on the caller's thread in input
 * order: the frontier is the same, only sooner.
 *
 * Not used for policies with custom rules (their calls serialise on the
 * policy's lock, so threads would only wait) or for small inputs, where
 * starting threads costs more than it saves.
 */
#include <stdlib.h>

#include "analysis/compare_internal.h"
#include "analysis/frontier_internal.h"
#include "util/parallel.h"

enum {
    PREPASS_MIN_RECEIPTS = 4096, /* below this, threads cost more than they save */
    PREPASS_MIN_PER_THREAD = 2048,
};

#ifdef MCPP_TEST_HOOKS /* frontier_internal.h */
_Thread_local int mcpp_frontier_prepass_disabled;
#define PREPASS_DISABLED() (mcpp_frontier_prepass_disabled != 0)
#else
#define PREPASS_DISABLED() 0
#endif

typedef struct prepass {
    const mcpp_policy *p;
    const mcpp_receipt *const *receipts;
    mcpp_frontier_pre *pre;
} prepass;

/* Phase 1: the lane-key hashes. */
static void hash_range(void *ctx, size_t from, size_t to)
{
    const prepass *g = ctx;
    for (size_t i = from; i < to; i++)
        if (g->receipts[i]) g->pre[i].hash = mcpp_lane_key_hash(g->p, g->receipts[i]);
}

/* Phase 2: the check against the first receipt of the same hash, and the
 * self-verdict. A failure (out of memory) leaves ok 0: the caller's thread
 * redoes the work, where its error belongs. */
static void check_range(void *ctx, size_t from, size_t to)
{
    const prepass *g = ctx;
    for (size_t i = from; i < to; i++) {
        mcpp_frontier_pre *x = &g->pre[i];
        const mcpp_receipt *r = g->receipts[i];
        x->ok = 0;
        if (!r) continue; /* the caller reports it */
        x->same_as_first = x->first == i || mcpp_lane_same(g->p, g->receipts[x->first], r) == 1;
        x->ok = mcpp_compare_self_verdict(&x->self, g->p, r) == MCPP_OK;
    }
}

/* pre[i].first = the first receipt with receipt i's hash (open addressing
 * over the hashes alone: no field is read). 0 when out of memory. */
static int find_firsts(mcpp_frontier_pre *pre, const mcpp_receipt *const *receipts, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    size_t *slots = malloc(cap * sizeof *slots);
    if (!slots) return 0;
    for (size_t k = 0; k < cap; k++) slots[k] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        pre[i].first = i;
        if (!receipts[i]) continue;
        size_t pos = (size_t)pre[i].hash & (cap - 1);
        while (slots[pos] != SIZE_MAX && pre[slots[pos]].hash != pre[i].hash) pos = (pos + 1) & (cap - 1);
        if (slots[pos] == SIZE_MAX) slots[pos] = i;
        else pre[i].first = slots[pos];
    }
    free(slots);
    return 1;
}

mcpp_frontier_pre *mcpp_frontier_prepass(const mcpp_policy *p, const mcpp_receipt *const *receipts, size_t n)
{
    size_t threads = mcpp_parallel_threads(n, MCPP_PARALLEL_MAX_THREADS, PREPASS_MIN_PER_THREAD);
    if (PREPASS_DISABLED() || n < PREPASS_MIN_RECEIPTS || p->n_rules || threads < 2) return NULL;
    prepass g = {p, receipts, malloc(n * sizeof *g.pre)};
    if (!g.pre) return NULL;
    mcpp_parallel_ranges(n, threads, hash_range, &g);
    if (!find_firsts(g.pre, receipts, n)) {
        free(g.pre);
        return NULL;
    }
    mcpp_parallel_ranges(n, threads, check_range, &g);
    return g.pre;
}
