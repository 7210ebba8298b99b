/*
 * gate_new_lanes.c — the gate's new lanes. A candidate that no baseline
 * could be pooled with, and whose lane no baseline shares, is a benchmark the
 * change adds (or, against an empty baseline, a first run): it is reported as
 * new, with reason_code "new_lane", and passes unless the policy says
 * gate.new_lanes = "fail" (then it is undetermined, exit 2).
 *
 * Only while every baseline lane still has a candidate: a baseline lane left
 * without one means a lane may have changed into the candidate's (a pull
 * request that changes top_k, a runner on another machine, a suite run with
 * other settings) rather than a lane added, and those candidates stay
 * undetermined ("no_comparable_baseline"), saying so. The gate over filtered
 * baselines (mcpp_gate_run_filtered) only counts those it was not given: any
 * of them is taken for such a lane (a baseline left out for being comparable
 * with no candidate is in a lane no candidate has, but for an insufficient
 * one), so that it decides as the gate over all of them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gate_internal.h"
#include "analysis/lane_internal.h"
#include "policy/policy_internal.h"
#include "util/error_internal.h"
#include "util/strbuf.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The lane key hashes of `n` receipts, sorted, duplicates kept. */
static uint64_t *sorted_lanes(const mcpp_policy *p, const mcpp_receipt *const *rs, size_t n)
{
    uint64_t *lanes = malloc((n ? n : 1) * sizeof *lanes);
    if (!lanes) return NULL;
    for (size_t i = 0; i < n; i++) lanes[i] = mcpp_lane_key_hash(p, rs[i]);
    qsort(lanes, n, sizeof *lanes, cmp_u64);
    return lanes;
}

static int replace_reason(gate_entry *e, mcpp_strbuf *reason)
{
    if (reason->failed) return mcpp_error_nomem();
    free(e->reason);
    e->reason = reason->data;
    reason->data = NULL;
    return MCPP_OK;
}

int mcpp_gate_settle_new_lanes(mcpp_gate_report *r, const mcpp_policy *p, const mcpp_receipt *const *baselines,
                               size_t nb, const mcpp_receipt *const *candidates, int left_out, size_t *n_new)
{
    *n_new = 0;
    uint64_t *base = sorted_lanes(p, baselines, nb), *cand = sorted_lanes(p, candidates, r->n);
    int rc = base && cand ? MCPP_OK : mcpp_error_nomem();
    int orphaned = left_out; /* a baseline lane no candidate is in */
    for (size_t i = 0; rc == MCPP_OK && i < nb && !orphaned; i++)
        orphaned = !bsearch(&base[i], cand, r->n, sizeof *cand, cmp_u64);
    for (size_t i = 0; i < r->n && rc == MCPP_OK; i++) {
        gate_entry *e = &r->entries[i];
        if (e->baselines || !e->why.reason_code || strcmp(e->why.reason_code, "no_comparable_baseline") != 0) continue;
        uint64_t h = mcpp_lane_key_hash(p, candidates[i]);
        if (nb && bsearch(&h, base, nb, sizeof *base, cmp_u64)) continue; /* its lane has baselines */
        mcpp_strbuf reason;
        mcpp_sb_init_heap(&reason, 256);
        if (orphaned) {
            mcpp_sb_printf(&reason,
                           "%s; not a new lane: some baselines are in lanes no candidate has, and one "
                           "of those may have changed into this one",
                           e->reason ? e->reason : "");
            rc = replace_reason(e, &reason);
            continue;
        }
        if (nb) mcpp_sb_printf(&reason, "new lane: none of the %zu baselines is in this lane", nb);
        else mcpp_sb_puts(&reason, "new lane: there are no baselines yet (a first run)");
        mcpp_sb_puts(&reason, p->new_lanes_fail ? "; undetermined (gate.new_lanes = fail)"
                                                : "; recorded, not gated (gate.new_lanes = pass)");
        e->why.reason_code = "new_lane";
        e->outcome = p->new_lanes_fail ? MCPP_GATE_UNDETERMINED : MCPP_GATE_PASSED;
        rc = replace_reason(e, &reason);
        ++*n_new;
    }
    free(base);
    free(cand);
    return rc;
}
