/*
 * frontier_internal.h — building a frontier for any metric, and finding each
 * receipt's lane (the claim checker needs both).
 */
#ifndef MCPP_FRONTIER_INTERNAL_H
#define MCPP_FRONTIER_INTERNAL_H

#include "analysis/lane_internal.h"

/* As mcpp_frontier_build for `metric` (a name mcpp_metric_ref_init takes). When lane_of is
 * not NULL it receives, for each receipt, the index of its lane. */
int mcpp_frontier_build_metric(mcpp_frontier **out, const mcpp_policy *p, const mcpp_receipt *const *receipts,
                               size_t n, const char *metric, size_t *lane_of);
/* The same; with `summaries_only` the lanes are grouped, ordered and
 * evaluated but neither described nor their neighbours found (what the
 * lane summaries need: mcpp_lane_summaries_build, half the build's time on
 * many lanes). Such a frontier is only for its lane summaries. */
int mcpp_frontier_build_lanes(mcpp_frontier **out, const mcpp_policy *p, const mcpp_receipt *const *receipts, size_t n,
                              const char *metric, size_t *lane_of, int summaries_only);

/* The evaluation of lane i (borrowed), NULL when out of range. */
const mcpp_lane_eval *mcpp_frontier_lane_eval(const mcpp_frontier *f, size_t lane);

/* The policy name and receipt count a frontier was built from (for rendering). */
const char *mcpp_frontier_policy_name(const mcpp_frontier *f);
size_t mcpp_frontier_receipt_total(const mcpp_frontier *f);
/* How many must-match dimensions make up the lane keys (0: one lane for all). */
size_t mcpp_frontier_key_dim_count(const mcpp_frontier *f);
/* Receipts skipped because their id was already in the lane. */
size_t mcpp_frontier_duplicate_count(const mcpp_frontier *f);

/* What a frontier needs of each receipt that depends only on the policy and
 * the receipt (frontier_prepass.c); `ok` 0: compute it on the caller's thread. */
typedef struct mcpp_frontier_pre {
    uint64_t hash;      /* mcpp_lane_key_hash */
    size_t first;       /* the first receipt with this hash */
    int same_as_first;  /* 1: mcpp_lane_same(receipts[first], this one) */
    mcpp_verdict self;  /* mcpp_compare_self_verdict */
    int ok;
} mcpp_frontier_pre;

/* One entry per receipt, computed on worker threads; NULL (compute inline)
 * for small inputs, policies with rules, one core, or no memory. Free with free(). */
mcpp_frontier_pre *mcpp_frontier_prepass(const mcpp_policy *p, const mcpp_receipt *const *receipts, size_t n);
#ifdef MCPP_TEST_HOOKS
/* Test hook, compiled only into mcpp_receipts_testing (lib/CMakeLists.txt):
 * non-zero makes frontiers built on this thread compute everything inline
 * (the tests compare both ways). */
extern _Thread_local int mcpp_frontier_prepass_disabled;
#endif

#endif /* MCPP_FRONTIER_INTERNAL_H */
