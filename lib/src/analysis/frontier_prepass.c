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
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/compare_internal.h"
#include "analysis/frontier_internal.h"

enum {
    PREPASS_MIN_RECEIPTS = 4096, /* below this, threads cost more than they save */
    PREPASS_MIN_PER_THREAD = 2048,
    PREPASS_MAX_THREADS = 8,
};

_Thread_local int mcpp_frontier_prepass_disabled;

typedef struct prepass_range {
    const mcpp_policy *p;
    const mcpp_receipt *const *receipts;
    mcpp_frontier_pre *pre;
    size_t from, to;
} prepass_range;

/* Phase 1: the lane-key hashes. */
static void *hash_range(void *arg)
{
    const prepass_range *g = arg;
    for (size_t i = g->from; i < g->to; i++)
        if (g->receipts[i]) g->pre[i].hash = mcpp_lane_key_hash(g->p, g->receipts[i]);
    return NULL;
}

/* Phase 2: the check against the first receipt of the same hash, and the
 * self-verdict. A failure (out of memory) leaves ok 0: the caller's thread
 * redoes the work, where its error belongs. */
static void *check_range(void *arg)
{
    const prepass_range *g = arg;
    for (size_t i = g->from; i < g->to; i++) {
        mcpp_frontier_pre *x = &g->pre[i];
        const mcpp_receipt *r = g->receipts[i];
        x->ok = 0;
        if (!r) continue; /* the caller reports it */
        x->same_as_first = x->first == i || mcpp_lane_same(g->p, g->receipts[x->first], r) == 1;
        x->ok = mcpp_compare_self_verdict(&x->self, g->p, r) == MCPP_OK;
    }
    return NULL;
}

static size_t prepass_threads(size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = cpus > 1 ? (size_t)cpus : 1;
    if (t > PREPASS_MAX_THREADS) t = PREPASS_MAX_THREADS;
    size_t by_work = n / PREPASS_MIN_PER_THREAD;
    return t < by_work ? t : (by_work ? by_work : 1);
}

/* Runs fn over [0, n) in `threads` ranges: range 0 on the caller's thread,
 * the others on workers (or here, when a thread cannot be started). */
static void run_ranges(void *(*fn)(void *), size_t threads, const mcpp_policy *p,
                       const mcpp_receipt *const *receipts, mcpp_frontier_pre *pre, size_t n)
{
    prepass_range ranges[PREPASS_MAX_THREADS];
    pthread_t ids[PREPASS_MAX_THREADS];
    int started[PREPASS_MAX_THREADS] = {0};
    for (size_t t = 0; t < threads; t++) {
        ranges[t] = (prepass_range){p, receipts, pre, n * t / threads, n * (t + 1) / threads};
        if (t > 0) started[t] = pthread_create(&ids[t], NULL, fn, &ranges[t]) == 0;
    }
    fn(&ranges[0]);
    for (size_t t = 1; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        else fn(&ranges[t]);
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
    size_t threads = prepass_threads(n);
    if (mcpp_frontier_prepass_disabled || n < PREPASS_MIN_RECEIPTS || p->n_rules || threads < 2) return NULL;
    mcpp_frontier_pre *pre = malloc(n * sizeof *pre);
    if (!pre) return NULL;
    run_ranges(hash_range, threads, p, receipts, pre, n);
    if (!find_firsts(pre, receipts, n)) {
        free(pre);
        return NULL;
    }
    run_ranges(check_range, threads, p, receipts, pre, n);
    return pre;
}
