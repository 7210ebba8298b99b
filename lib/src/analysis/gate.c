/*
 * gate.c — the pre-merge gate over many pairs: each candidate against the
 * pooled values of every baseline it is comparable with, one summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gate_internal.h"
#include "util/error_internal.h"
#include "util/hash.h"

/* The ids pooled for one candidate, as an open-addressing set that grows:
 * a history of 10^5 runs of one lane pools 10^5 ids, and checking each new
 * baseline against a list of those before it would make the gate quadratic. */
typedef struct id_set {
    const char **slots;
    size_t cap, n;
} id_set;

static size_t id_slot(const id_set *s, const char *id)
{
    size_t i = (size_t)mcpp_fnv1a(id, strlen(id), MCPP_FNV_OFFSET) & (s->cap - 1);
    while (s->slots[i] && strcmp(s->slots[i], id) != 0) i = (i + 1) & (s->cap - 1);
    return i;
}

static int id_set_contains(const id_set *s, const char *id)
{
    return s->n && s->slots[id_slot(s, id)] != NULL;
}

/* Adds id (borrowed; not already in the set). Returns 0 or -1 when out of memory. */
static int id_set_add(id_set *s, const char *id)
{
    if ((s->n + 1) * 2 > s->cap) {
        id_set bigger = {calloc(s->cap ? s->cap * 2 : 64, sizeof(const char *)), s->cap ? s->cap * 2 : 64, 0};
        if (!bigger.slots) return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slots[i]) bigger.slots[id_slot(&bigger, s->slots[i])] = s->slots[i];
        bigger.n = s->n;
        free(s->slots);
        *s = bigger;
    }
    s->slots[id_slot(s, id)] = id;
    s->n++;
    return 0;
}

/* What kept every baseline out of the pool of a candidate that has none:
 * the rows of each full comparison (the gate's loop only took verdicts). */
static int explain_rejected(gate_entry *e, const mcpp_policy *p, const mcpp_receipt *const *baselines, size_t nb,
                            const mcpp_receipt *cand)
{
    const char *cand_id = mcpp_receipt_id(cand);
    for (size_t i = 0; i < nb; i++) {
        const char *bid = mcpp_receipt_id(baselines[i]);
        if (bid && cand_id && strcmp(bid, cand_id) == 0) continue;
        int rc = mcpp_gate_explain_rejected(&e->why, p, baselines[i], cand);
        if (rc != 0) return rc;
    }
    return 0;
}

/* The reason code of a candidate whose metric was compared (see
 * mcpp_gate_report_entry_reason_code). */
static const char *metric_reason_code(const gate_entry *e, const mcpp_policy *p)
{
    if (e->outcome == MCPP_GATE_PASSED) return "passed";
    if (e->outcome == MCPP_GATE_FAILED) return "regression";
    if (e->metric.point_comparison && !p->allow_point_comparisons) return "point_comparison_not_allowed";
    return "base_median_zero";
}

/* Decides one candidate; writes its outcome, reason and metric. `dropped`
 * (NULL: none) adds baselines left out upstream to the verdict tally. */
static int gate_one(gate_entry *e, const mcpp_policy *p, const mcpp_receipt *const *baselines, size_t nb,
                    const mcpp_receipt *cand, const char *metric_name, const size_t *dropped)
{
    mcpp_metric_side sb, sc;
    memset(&sb, 0, sizeof sb);
    memset(&sc, 0, sizeof sc);
    size_t by_verdict[4] = {0, 0, 0, 0};
    int rc = MCPP_OK;
    mcpp_strbuf reason;
    mcpp_sb_init_heap(&reason, 256);
    /* Ids already pooled: one run loaded twice (JSON and YAML copies) counts
     * once, and a receipt is never its own baseline. */
    id_set pooled = {NULL, 0, 0};
    const char *cand_id = mcpp_receipt_id(cand);
    for (size_t i = 0; i < nb; i++) {
        const char *bid = mcpp_receipt_id(baselines[i]);
        int skip = bid && cand_id && strcmp(bid, cand_id) == 0;
        if (skip || (bid && id_set_contains(&pooled, bid))) continue;
        mcpp_verdict v;
        if ((rc = mcpp_compare_verdict(&v, p, baselines[i], cand)) != 0) goto done;
        by_verdict[v]++;
        if (v != MCPP_VERDICT_COMPARABLE && v != MCPP_VERDICT_QUALIFIED) continue;
        if (bid && id_set_add(&pooled, bid) != 0) {
            rc = mcpp_error_nomem();
            goto done;
        }
        e->baselines++;
        if ((rc = mcpp_gate_explain_pooled(&e->why, p, baselines[i], cand, v)) != 0) goto done;
        int added = mcpp_metric_side_add(&sb, p, p->gate_metric_id, baselines[i]);
        if (added < 0) {
            rc = added;
            goto done;
        }
    }
    if (dropped) {
        by_verdict[MCPP_VERDICT_NOT_COMPARABLE] += dropped[0];
        by_verdict[MCPP_VERDICT_INSUFFICIENT] += dropped[1];
    }
    memcpy(e->why.by_verdict, by_verdict, sizeof by_verdict);
    if (e->baselines == 0 && (rc = explain_rejected(e, p, baselines, nb, cand)) != 0) goto done;
    int hc = mcpp_metric_side_add(&sc, p, p->gate_metric_id, cand);
    if (hc < 0) {
        rc = hc;
        goto done;
    }
    if (e->baselines == 0) {
        e->outcome = MCPP_GATE_UNDETERMINED;
        mcpp_sb_printf(&reason, "no comparable baseline among %zu (%zu not_comparable, %zu insufficient)",
                            by_verdict[0] + by_verdict[1] + by_verdict[2] + by_verdict[3],
                            by_verdict[MCPP_VERDICT_NOT_COMPARABLE], by_verdict[MCPP_VERDICT_INSUFFICIENT]);
        mcpp_gate_explain_blockers(&e->why, &reason);
        e->why.reason_code = "no_comparable_baseline";
    } else if (!hc) {
        e->outcome = MCPP_GATE_UNDETERMINED;
        e->why.reason_code = "metric_absent_on_candidate";
        mcpp_sb_printf(&reason, "%s is absent on the candidate", p->gate.metric);
    } else if (sb.receipts == 0) {
        e->outcome = MCPP_GATE_UNDETERMINED;
        e->why.reason_code = "metric_absent_on_baselines";
        mcpp_sb_printf(&reason, "%s is absent on all %zu comparable baselines", p->gate.metric, e->baselines);
    } else {
        if ((rc = mcpp_metric_compare(&e->metric, p, &sb, &sc)) != 0) goto done;
        e->has_metric = 1;
        e->metric.metric = metric_name;
        mcpp_sb_printf(&reason, "against %zu comparable baseline%s: ", e->baselines, e->baselines == 1 ? "" : "s");
        e->outcome = mcpp_metric_gate(&e->metric, p, &reason);
        e->why.reason_code = metric_reason_code(e, p);
    }
    if (reason.failed) {
        rc = mcpp_error_nomem();
        goto done;
    }
    e->reason = reason.data;
    reason.data = NULL;
done:
    free(pooled.slots);
    mcpp_sb_free(&reason);
    mcpp_metric_side_free(&sb);
    mcpp_metric_side_free(&sc);
    return rc;
}

int mcpp_gate_run(mcpp_gate_report **out, const mcpp_policy *policy, const mcpp_receipt *const *baselines,
                  size_t nb, const mcpp_receipt *const *candidates, size_t nc)
{
    return mcpp_gate_run_filtered(out, policy, baselines, nb, candidates, nc, NULL);
}

int mcpp_gate_run_receipts(mcpp_gate_report **out, const mcpp_policy *policy, mcpp_receipt *const *baselines,
                           size_t nb, mcpp_receipt *const *candidates, size_t nc)
{
    /* adding const below the first level is safe; C only refuses to do it implicitly */
    return mcpp_gate_run_filtered(out, policy, (const mcpp_receipt *const *)baselines, nb,
                                  (const mcpp_receipt *const *)candidates, nc, NULL);
}

int mcpp_gate_run_filtered(mcpp_gate_report **out, const mcpp_policy *policy, const mcpp_receipt *const *baselines,
                           size_t nb, const mcpp_receipt *const *candidates, size_t nc, const size_t *dropped)
{
    MCPP_CHECK_ARG(out, "mcpp_gate_run: NULL out");
    *out = NULL;
    MCPP_CHECK_ARG((!nb || baselines) && (!nc || candidates), "mcpp_gate_run: NULL receipt array");
    for (size_t i = 0; i < nb; i++)
        MCPP_CHECK_ARG(baselines[i], "baseline %zu is NULL", i);
    for (size_t i = 0; i < nc; i++)
        MCPP_CHECK_ARG(candidates[i], "candidate %zu is NULL", i);
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p) return MCPP_ENOMEM;
    mcpp_gate_report *r = calloc(1, sizeof *r);
    MCPP_CHECK_ALLOC(r);
    int rc = MCPP_OK;
    r->metric_name = strdup(p->gate.metric);
    r->entries = calloc(nc ? nc : 1, sizeof *r->entries);
    if (!r->metric_name || !r->entries) {
        rc = mcpp_error_nomem();
        goto fail;
    }
    size_t failed = 0, undetermined = 0;
    for (size_t i = 0; i < nc; i++) {
        gate_entry *e = &r->entries[i];
        r->n = i + 1;
        const char *id = mcpp_receipt_id(candidates[i]);
        if (!(e->id = strdup(id ? id : ""))) {
            rc = mcpp_error_nomem();
            goto fail;
        }
        if ((rc = mcpp_gate_explain_candidate(&e->why, p, candidates[i])) != 0) goto fail;
        if ((rc = gate_one(e, p, baselines, nb, candidates[i], r->metric_name, dropped ? dropped + 2 * i : NULL)) != 0)
            goto fail;
        if (e->outcome == MCPP_GATE_FAILED) failed++;
        else if (e->outcome == MCPP_GATE_UNDETERMINED) undetermined++;
    }
    mcpp_strbuf reason;
    mcpp_sb_init_heap(&reason, 256);
    /* A definite regression outranks an undetermined pair: both fail the gate,
     * and the regression is the more specific news. */
    if (failed) {
        r->outcome = MCPP_GATE_FAILED;
        mcpp_sb_printf(&reason, "%zu of %zu candidate%s regressed beyond the %.1f%% allowance", failed, nc,
                            nc == 1 ? "" : "s", p->gate.max_regression * 100);
        if (undetermined) mcpp_sb_printf(&reason, "; %zu could not be compared", undetermined);
    } else if (nc == 0) {
        r->outcome = MCPP_GATE_UNDETERMINED;
        mcpp_sb_puts(&reason, "no candidate receipts: nothing was established");
    } else if (undetermined) {
        r->outcome = MCPP_GATE_UNDETERMINED;
        mcpp_sb_printf(&reason, "%zu of %zu candidate%s could not be compared with a baseline", undetermined, nc,
                            nc == 1 ? "" : "s");
    } else {
        r->outcome = MCPP_GATE_PASSED;
        mcpp_sb_printf(&reason, "all %zu candidate%s comparable, no regression beyond %.1f%% established", nc,
                            nc == 1 ? "" : "s", p->gate.max_regression * 100);
    }
    if ((rc = mcpp_sb_finish(&reason, &r->reason)) != 0) goto fail;
    *out = r;
    return MCPP_OK;
fail:
    mcpp_gate_report_free(r);
    return rc;
}

void mcpp_gate_report_free(mcpp_gate_report *report)
{
    if (!report) return;
    for (size_t i = 0; i < report->n; i++) {
        free(report->entries[i].id);
        free(report->entries[i].reason);
        mcpp_gate_explain_free(&report->entries[i].why);
    }
    free(report->entries);
    for (size_t i = 0; i < report->n_inputs; i++) {
        free(report->inputs[i].path);
        free(report->inputs[i].message);
    }
    free(report->inputs);
    free(report->reason);
    free(report->gated_reason);
    free(report->metric_name);
    free(report);
}

mcpp_gate_outcome mcpp_gate_report_outcome(const mcpp_gate_report *r) { return r ? r->outcome : MCPP_GATE_UNDETERMINED; }
const char *mcpp_gate_report_reason(const mcpp_gate_report *r) { return r ? r->reason : NULL; }
int mcpp_gate_report_exit_code(const mcpp_gate_report *r) { return (int)mcpp_gate_report_outcome(r); }
size_t mcpp_gate_report_count(const mcpp_gate_report *r) { return r ? r->n : 0; }

const char *mcpp_gate_report_candidate_id(const mcpp_gate_report *r, size_t i)
{
    return r && i < r->n ? r->entries[i].id : NULL;
}

int mcpp_gate_report_entry_outcome(const mcpp_gate_report *r, size_t i)
{
    return r && i < r->n ? (int)r->entries[i].outcome : -1;
}

const char *mcpp_gate_report_entry_reason(const mcpp_gate_report *r, size_t i)
{
    return r && i < r->n ? r->entries[i].reason : NULL;
}

size_t mcpp_gate_report_entry_baseline_count(const mcpp_gate_report *r, size_t i)
{
    return r && i < r->n ? r->entries[i].baselines : 0;
}

const mcpp_metric_result *mcpp_gate_report_entry_metric(const mcpp_gate_report *r, size_t i)
{
    return r && i < r->n && r->entries[i].has_metric ? &r->entries[i].metric : NULL;
}

