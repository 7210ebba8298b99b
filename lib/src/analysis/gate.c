/*
 * gate.c — the pre-merge gate over many pairs: each candidate against the
 * pooled values of every baseline it is comparable with, one summary.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gate_internal.h"
#include "analysis/lane_internal.h"
#include "analysis/stats_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/hash.h"
#include "util/id_set.h"
#include "util/struct_version.h"

/* A candidate and the other candidates of its lane (same lane key,
 * comparable or qualified with it): the runs of the new code in that lane,
 * pooled on the candidate's side of every comparison. runs[0] is the
 * candidate itself. */
typedef struct cand_group {
    const mcpp_receipt **runs;
    size_t n;
    mcpp_id_set ids; /* their ids, when there are many (GROUP_SCAN_MAX) */
} cand_group;

/* Up to this many runs a group's ids are scanned: a set pays off beyond. */
#define GROUP_SCAN_MAX 16

/* Whether `id` is one of the group's runs (such a receipt is never a baseline). */
static int in_group(const cand_group *cg, const char *id)
{
    if (cg->n > GROUP_SCAN_MAX)
        return id && mcpp_id_set_contains(&cg->ids, id);
    for (size_t i = 0; id && i < cg->n; i++) {
        const char *gid = mcpp_receipt_id(cg->runs[i]);
        if (gid && strcmp(gid, id) == 0) return 1;
    }
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

/* Adds each receipt's values to a side: how many had the metric, or an error. */
static int add_runs(mcpp_metric_side *side, const mcpp_policy *p, const mcpp_metric_ref *ref,
                    const mcpp_receipt *const *runs, size_t n)
{
    int had = 0;
    for (size_t i = 0; i < n; i++) {
        int added = mcpp_metric_side_add(side, p, ref, runs[i]);
        if (added < 0) return added;
        had += added;
    }
    return had;
}

/* Compares one metric over the pooled baselines (the decision waits for the
 * gate's multiplicity control: decide_metric): a result, or undetermined
 * when absent on one side or when the sides disagree on unit or direction
 * (or with the policy's stated direction), skipped when absent on both.
 * `cg` holds the candidate and the other candidate runs of its lane (pooled
 * on the candidate's side); `history` (n_history receipts, may be 0) are
 * earlier runs of the lane. */
static int gate_metric(gate_metric_entry *g, const mcpp_policy *p, const mcpp_gate_metric_spec *spec,
                       const mcpp_receipt *const *pool, size_t n_pool, const cand_group *cg,
                       const mcpp_receipt *const *history, size_t n_history)
{
    mcpp_metric_side sb, sc, sh;
    memset(&sb, 0, sizeof sb);
    memset(&sc, 0, sizeof sc);
    memset(&sh, 0, sizeof sh);
    mcpp_strbuf reason;
    char reason_text[1024]; /* kept texts leave no block behind (mcpp_sb_finish copies them out) */
    mcpp_sb_init(&reason, reason_text, sizeof reason_text);
    int failed = 0, rc, hc = 0;
    /* The candidate's side: its own run (hc: whether it has the metric), then
     * every other candidate run of its lane. */
    if ((rc = add_runs(&sb, p, &spec->ref, pool, n_pool)) < 0 ||
        (rc = add_runs(&sh, p, &spec->ref, history, n_history)) < 0 ||
        (rc = hc = mcpp_metric_side_add(&sc, p, &spec->ref, cg->runs[0])) < 0 ||
        (hc && (rc = add_runs(&sc, p, &spec->ref, cg->runs + 1, cg->n - 1)) < 0))
        goto done;
    rc = MCPP_OK;
    g->outcome = MCPP_GATE_UNDETERMINED;
    g->code = !hc ? "metric_absent_on_candidate" : sb.receipts == 0 ? "metric_absent_on_baselines" : "metric_mismatch";
    g->allowance = spec->max_regression;
    const char *what;
    if (!hc && sb.receipts == 0) {
        g->skipped = 1;
        mcpp_sb_printf(&reason, "%s is absent on the candidate and on all %zu comparable baselines: skipped",
                       spec->text, n_pool);
    } else if (!hc) {
        mcpp_sb_printf(&reason, "%s is absent on the candidate", spec->text);
    } else if (sb.receipts == 0) {
        mcpp_sb_printf(&reason, "%s is absent on all %zu comparable baselines", spec->text, n_pool);
    } else if (mcpp_metric_sides_agree(&sb, &sc, &reason)) {
        if (spec->direction >= 0 && spec->direction != sb.ident.higher_is_better) {
            mcpp_sb_printf(&reason, "%s: the policy says %s is better, the receipts say %s: not compared",
                           sb.ident.name, spec->direction ? "higher" : "lower",
                           sb.ident.higher_is_better ? "higher" : "lower");
        } else {
            /* History of another metric, unit or direction says nothing of this one. */
            int use_history = sh.receipts && !sh.conflict && mcpp_metric_ident_same(&sh.ident, &sb.ident, &what);
            /* Runs made while the machine was busy, far off the lane's own median, say
             * nothing of its noise on an ordinary day: set aside, and counted. */
            size_t set_aside = 0;
            if (use_history && sh.n_runs >= 5) {
                double *scratch = malloc(sh.n_runs * sizeof *scratch);
                if (!scratch) {
                    rc = mcpp_error_nomem();
                    goto done;
                }
                set_aside = mcpp_stats_set_aside_far(sh.runs, &sh.n_runs, scratch);
                free(scratch);
            }
            if ((rc = mcpp_metric_compare(&g->result, p, spec->confidence, &sb, &sc, use_history ? &sh : NULL)) != 0)
                goto done;
            g->has_result = 1;
            g->result.history_set_aside = set_aside;
            mcpp_metric_declared_noise(p, &sb, &sc, NULL, &g->declared_df);
            double ss_b, df_b, ss_c, df_c;
            mcpp_metric_side_spread(&sb, &ss_b, &df_b);
            mcpp_metric_side_spread(&sc, &ss_c, &df_c);
            g->runs_ss = ss_b + ss_c;
            g->runs_df = df_b + df_c;
            g->split_runs = sb.split_runs + sc.split_runs;
            if (g->result.history_runs) mcpp_metric_side_spread(&sh, &g->history_ss, &g->history_df);
            if (use_history && sh.n_runs >= 4) {
                g->history_scores = malloc(sh.n_runs * sizeof *g->history_scores);
                g->history_values = malloc(sh.n_runs * sizeof *g->history_values);
                g->base_values = malloc(sb.n_runs * sizeof *g->base_values);
                g->cand_values = malloc(sc.n_runs * sizeof *g->cand_values);
                if (!g->history_scores || !g->history_values || !g->base_values || !g->cand_values) {
                    failed = 1;
                } else {
                    g->n_history_scores = mcpp_stats_loo_normal_scores(sh.runs, sh.n_runs, g->history_scores);
                    memcpy(g->history_values, sh.runs, sh.n_runs * sizeof *g->history_values);
                    memcpy(g->base_values, sb.runs, (g->n_base_values = sb.n_runs) * sizeof *g->base_values);
                    memcpy(g->cand_values, sc.runs, (g->n_cand_values = sc.n_runs) * sizeof *g->cand_values);
                }
            }
            g->result_name = mcpp_strdup(g->result.metric, &failed);
            g->result_unit = mcpp_strdup(g->result.unit, &failed);
            g->result.metric = g->result_name;
            g->result.unit = g->result_unit;
        }
    }
    g->name = mcpp_strdup(spec->text, &failed);
    if (failed || reason.failed) {
        rc = mcpp_error_nomem();
        goto done;
    }
    rc = mcpp_sb_finish(&reason, &g->reason); /* a compared metric's is "" until decided */
done:
    mcpp_sb_free(&reason);
    mcpp_metric_side_free(&sb);
    mcpp_metric_side_free(&sc);
    mcpp_metric_side_free(&sh);
    return rc;
}

/* The decision on a compared metric, once its threshold is known. */
static int decide_metric(gate_metric_entry *g, const mcpp_policy *p)
{
    mcpp_strbuf reason;
    char reason_text[1024]; /* kept texts leave no block behind (mcpp_sb_finish copies them out) */
    mcpp_sb_init(&reason, reason_text, sizeof reason_text);
    mcpp_metric_settle(&g->result, p, g->allowance, 1);
    g->outcome = mcpp_metric_gate(&g->result, p, g->allowance, &reason);
    g->code = g->outcome == MCPP_GATE_PASSED                              ? "passed"
              : g->outcome == MCPP_GATE_FAILED                            ? "regression"
              : g->outcome == MCPP_GATE_INCONCLUSIVE                      ? "inconclusive"
              : g->result.point_comparison && !p->allow_point_comparisons ? "point_comparison_not_allowed"
                                                                          : "base_median_zero";
    if (reason.failed) {
        mcpp_sb_free(&reason);
        return mcpp_error_nomem();
    }
    if (!g->reason_in_entry)
        free(g->reason);
    g->reason_in_entry = 0;
    return mcpp_sb_finish(&reason, &g->reason); /* kept with the report: a block of its length */
}

/* The candidate's outcome from its metrics' (mcpp_gate_outcome_of; a
 * candidate whose every metric was skipped is undetermined: nothing was
 * gated). Reasons join. */
static void combine_metrics(gate_entry *e, mcpp_strbuf *reason)
{
    size_t counts[MCPP_GATE_OUTCOMES] = {0}, skipped = 0;
    for (size_t k = 0; k < e->n_metrics; k++) {
        const gate_metric_entry *g = &e->metrics[k];
        skipped += g->skipped;
        if (!g->skipped)
            counts[g->outcome]++;
    }
    e->outcome = mcpp_gate_outcome_of(counts, skipped == e->n_metrics);
    const int compared = e->n_metrics == 1 && e->metrics[0].has_result;
    if (compared || e->n_metrics > 1)
        mcpp_sb_printf(reason, "against %zu comparable baseline%s: ", e->baselines, e->baselines == 1 ? "" : "s");
    for (size_t k = 0; k < e->n_metrics; k++) {
        if (k) mcpp_sb_puts(reason, "; ");
        mcpp_sb_puts(reason, e->metrics[k].reason);
    }
}

/* The reason code of a candidate that had comparable baselines (see
 * mcpp_gate_report_entry_reason_code): the first failed metric's, else the
 * first undetermined one's. */
static const char *entry_reason_code(const gate_entry *e)
{
    if (e->outcome == MCPP_GATE_PASSED) return "passed";
    for (size_t k = 0; k < e->n_metrics; k++)
        if (!e->metrics[k].skipped && e->metrics[k].outcome == e->outcome) return e->metrics[k].code;
    return "metric_absent_on_both";
}

/* Receipts (the baselines, the history) by lane key hash, chained in input
 * order: the gate looks at a candidate's own lane first, so it is linear in
 * candidates + baselines + history when lanes are distinct. */
typedef struct lane_index {
    size_t cap;
    size_t *head, *tail, *next;
    uint64_t *hash;
} lane_index;

static void lane_index_free(lane_index *x)
{
    free(x->head);
    free(x->tail);
    free(x->next);
    free(x->hash);
}

static int lane_index_build(lane_index *x, const mcpp_policy *p, const mcpp_receipt *const *receipts, size_t nb)
{
    x->cap = 16;
    while (x->cap < 2 * nb)
        x->cap *= 2;
    x->head = malloc(x->cap * sizeof *x->head);
    x->tail = malloc(x->cap * sizeof *x->tail);
    x->next = malloc((nb ? nb : 1) * sizeof *x->next);
    x->hash = malloc((nb ? nb : 1) * sizeof *x->hash);
    if (!x->head || !x->tail || !x->next || !x->hash)
        return mcpp_error_nomem();
    for (size_t i = 0; i < x->cap; i++)
        x->head[i] = x->tail[i] = SIZE_MAX;
    for (size_t i = 0; i < nb; i++) {
        size_t slot = (size_t)(x->hash[i] = mcpp_lane_key_hash(p, receipts[i])) & (x->cap - 1);
        x->next[i] = SIZE_MAX;
        if (x->tail[slot] == SIZE_MAX)
            x->head[slot] = i;
        else
            x->next[x->tail[slot]] = i;
        x->tail[slot] = i;
    }
    return MCPP_OK;
}

/* The earlier runs of the candidate's lane among `history`: comparable (or
 * qualified) with it, and neither a candidate run nor a pooled baseline.
 * Only the runs of its lane key hash (`hix`), in input order: any other
 * differs in a must-match dimension, so it is not comparable (as for the
 * baselines, gate_one); comparing every history run with every candidate
 * made a site's gate page of 10^5 receipts cost lanes^2 x 20 verdicts. */
static int pick_history(const mcpp_receipt ***out, size_t *n_out, const mcpp_policy *p,
                        const mcpp_receipt *const *history, size_t nh, const lane_index *hix, const cand_group *cg,
                        const mcpp_id_set *pooled)
{
    const mcpp_receipt *cand = cg->runs[0];
    *out = NULL;
    *n_out = 0;
    if (!nh) return MCPP_OK;
    const mcpp_receipt **picked = malloc(nh * sizeof *picked);
    if (!picked) return mcpp_error_nomem();
    mcpp_id_set seen = MCPP_ID_SET_INIT;
    int rc = MCPP_OK;
    uint64_t h = mcpp_lane_key_hash(p, cand);
    for (size_t i = hix->head[h & (hix->cap - 1)]; i != SIZE_MAX; i = hix->next[i]) {
        if (hix->hash[i] != h)
            continue;
        const char *id = mcpp_receipt_id(history[i]);
        if (id && (in_group(cg, id) || mcpp_id_set_contains(pooled, id) || mcpp_id_set_contains(&seen, id)))
            continue;
        mcpp_verdict v;
        if ((rc = mcpp_compare_verdict(&v, p, history[i], cand)) != 0) break;
        /* a run whose request was not met counts in no headline (mcpp_request_not_met) */
        if ((v != MCPP_VERDICT_COMPARABLE && v != MCPP_VERDICT_QUALIFIED) || mcpp_request_not_met(p, history[i], NULL))
            continue;
        if (id && mcpp_id_set_add(&seen, id) != 0) {
            rc = mcpp_error_nomem();
            break;
        }
        picked[(*n_out)++] = history[i];
    }
    mcpp_id_set_free(&seen);
    if (rc) {
        free(picked);
        *n_out = 0;
        return rc;
    }
    *out = picked;
    return MCPP_OK;
}

/* The candidate's outcome, reason line and reason code from its decided metrics. */
static int finish_one(gate_entry *e)
{
    mcpp_strbuf reason;
    char reason_text[1024]; /* kept texts leave no block behind (mcpp_sb_finish copies them out) */
    mcpp_sb_init(&reason, reason_text, sizeof reason_text);
    combine_metrics(e, &reason);
    e->why.reason_code = entry_reason_code(e);
    if (reason.failed) {
        mcpp_sb_free(&reason);
        return mcpp_error_nomem();
    }
    int rc = mcpp_sb_finish(&reason, &e->reason); /* kept with the report: a block of its length */
    /* A candidate of one compared metric: its reason is "against N comparable
     * baselines: " and the metric's, which then points into it (~480 bytes a
     * candidate kept once; issue 50 item 5). */
    gate_metric_entry *g = e->n_metrics == 1 && e->metrics[0].has_result ? &e->metrics[0] : NULL;
    size_t whole = rc || !g ? 0 : strlen(e->reason), tail = g && !g->reason_in_entry ? strlen(g->reason) : 0;
    if (g && !g->reason_in_entry && whole >= tail && strcmp(e->reason + whole - tail, g->reason) == 0) {
        free(g->reason);
        g->reason = e->reason + whole - tail;
        g->reason_in_entry = 1;
    }
    return rc;
}

/* Compares one baseline with the candidate: tallies its verdict, and pools
 * it when comparable or qualified (once per id; never a candidate run, which
 * *own_runs counts when not NULL). */
static int pool_baseline(gate_entry *e, mcpp_gate_report *r, const mcpp_policy *p, const mcpp_receipt *base,
                         const cand_group *cg, mcpp_id_set *pooled, const mcpp_receipt **pool, size_t *by_verdict,
                         int other_lane, size_t *own_runs)
{
    const char *bid = mcpp_receipt_id(base);
    if (in_group(cg, bid)) {
        if (own_runs)
            ++*own_runs;
        return MCPP_OK;
    }
    if (bid && mcpp_id_set_contains(pooled, bid))
        return MCPP_OK;
    mcpp_verdict v;
    int rc = mcpp_compare_verdict(&v, p, base, cg->runs[0]);
    if (rc != 0) return rc;
    by_verdict[v]++;
    if (v != MCPP_VERDICT_COMPARABLE && v != MCPP_VERDICT_QUALIFIED) {
        /* Baselines of other lanes beyond the first few are counted, not
         * listed with their rows: listed, each candidate of a new lane carried
         * up to 1,000 of them (a gate of 1,000 new lanes wrote 210 MB and held
         * 526 MB); explain_rejected says what most often kept them out. */
        if (other_lane && e->why.n_set_aside >= GATE_MAX_OTHER_LANES_LISTED) {
            e->why.set_aside_other_lanes++;
            return MCPP_OK;
        }
        return mcpp_gate_explain_set_aside(&e->why, p, base, cg->runs[0], v, NULL);
    }
    if (!mcpp_gate_run_ok(p, base)) {
        char why[96]; /* status.outcome is an enum: a short word */
        snprintf(why, sizeof why, "status.outcome %s, not ok", mcpp_gate_run_status(p, base));
        rc = mcpp_gate_explain_set_aside(&e->why, p, base, cg->runs[0], v, why);
        return rc ? rc : mcpp_gate_left_out_add(r, p, base, "baseline");
    }
    /* A run whose request was not met (another backend, precision or device
     * than asked for) counts in no headline: the frontier excludes it and the
     * lane history sets it aside, in these words; so does the gate. */
    if (mcpp_request_not_met(p, base, NULL)) { /* counted first: no buffer for the runs pooled */
        mcpp_strbuf why;
        mcpp_sb_init_heap(&why, 128);
        mcpp_request_not_met(p, base, &why);
        rc = why.failed ? mcpp_error_nomem() : mcpp_gate_explain_set_aside(&e->why, p, base, cg->runs[0], v, why.data);
        mcpp_sb_free(&why);
        return rc;
    }
    if (bid && mcpp_id_set_add(pooled, bid) != 0)
        return mcpp_error_nomem();
    pool[e->baselines++] = base;
    return mcpp_gate_explain_pooled(&e->why, p, base, cg->runs[0], v);
}

/* Pools one candidate's baselines and compares its metrics (decided later,
 * in decide_all). A candidate with no comparable baseline gets its outcome
 * and reason here. `dropped` (NULL: none) adds baselines left out upstream
 * to the verdict tally. */
static int gate_one(gate_entry *e, mcpp_gate_report *r, const mcpp_policy *p, const mcpp_receipt *const *baselines,
                    size_t nb, const lane_index *bix, const cand_group *cg, const size_t *dropped,
                    const mcpp_receipt *const *history, size_t nh, const lane_index *hix)
{
    const mcpp_receipt *cand = cg->runs[0];
    size_t by_verdict[4] = {0, 0, 0, 0};
    int rc = MCPP_OK;
    mcpp_strbuf reason;
    char reason_text[1024]; /* kept texts leave no block behind (mcpp_sb_finish copies them out) */
    mcpp_sb_init(&reason, reason_text, sizeof reason_text);
    const mcpp_receipt **pool = malloc((nb ? nb : 1) * sizeof *pool);
    const mcpp_receipt **lane_history = NULL;
    size_t n_history = 0;
    /* Ids already pooled: one run loaded twice (JSON and YAML copies) counts
     * once, and a receipt is never its own baseline. */
    mcpp_id_set pooled = MCPP_ID_SET_INIT;
    if (!pool) {
        rc = mcpp_error_nomem();
        goto done;
    }
    /* First the baselines of the candidate's lane (key hash), in input order:
     * any other differs in a must-match dimension, so it is not comparable
     * and is only counted. When none of the lane's can be pooled, every
     * baseline's verdict is taken exactly (the counts), those of the lane
     * listed with what kept each out and those of other lanes counted;
     * explain_rejected gives the rows that most often kept them out. */
    uint64_t h = mcpp_lane_key_hash(p, cand);
    size_t in_lane = 0, own_runs = 0;
    for (size_t i = bix->head[h & (bix->cap - 1)]; i != SIZE_MAX; i = bix->next[i]) {
        if (bix->hash[i] != h) continue;
        in_lane++;
        if ((rc = pool_baseline(e, r, p, baselines[i], cg, &pooled, pool, by_verdict, 0, NULL)) != 0)
            goto done;
    }
    if (e->baselines) {
        by_verdict[MCPP_VERDICT_NOT_COMPARABLE] += nb - in_lane;
        e->why.set_aside_other_lanes = nb - in_lane;
    } else {
        memset(by_verdict, 0, sizeof by_verdict);
        mcpp_gate_explain_set_aside_clear(&e->why);
        for (size_t i = 0; i < nb; i++)
            if ((rc = pool_baseline(e, r, p, baselines[i], cg, &pooled, pool, by_verdict, bix->hash[i] != h,
                                    &own_runs)) != 0)
                goto done;
    }
    if (dropped) {
        by_verdict[MCPP_VERDICT_NOT_COMPARABLE] += dropped[0];
        by_verdict[MCPP_VERDICT_INSUFFICIENT] += dropped[1];
        e->why.set_aside_other_lanes += dropped[0] + dropped[1];
    }
    if ((rc = mcpp_gate_explain_candidate_runs(&e->why, cg->runs, cg->n)) != 0)
        goto done;
    memcpy(e->why.by_verdict, by_verdict, sizeof by_verdict);
    if (e->baselines == 0 && (rc = explain_rejected(e, p, baselines, nb, cand)) != 0) goto done;
    if (e->baselines == 0) {
        e->outcome = MCPP_GATE_UNDETERMINED;
        mcpp_sb_printf(&reason, "no comparable baseline among %zu (%zu not_comparable, %zu insufficient)",
                            by_verdict[0] + by_verdict[1] + by_verdict[2] + by_verdict[3],
                            by_verdict[MCPP_VERDICT_NOT_COMPARABLE], by_verdict[MCPP_VERDICT_INSUFFICIENT]);
        if (own_runs) /* "among 0" alone read as if no baseline had been given */
            mcpp_sb_printf(&reason,
                           "; %zu baseline%s %s this candidate's own run%s, never its baseline (the same "
                           "receipts given on both sides?)",
                           own_runs, own_runs == 1 ? "" : "s", own_runs == 1 ? "is" : "are", own_runs == 1 ? "" : "s");
        mcpp_gate_explain_blockers(&e->why, &reason);
        e->why.reason_code = "no_comparable_baseline";
        if (reason.failed) {
            rc = mcpp_error_nomem();
            goto done;
        }
        if ((rc = mcpp_sb_finish(&reason, &e->reason)) != 0)
            goto done;
    } else {
        e->first_baseline = pool[0];
        if ((rc = pick_history(&lane_history, &n_history, p, history, nh, hix, cg, &pooled)) != 0)
            goto done;
        mcpp_gate_metric_spec single;
        const mcpp_gate_metric_spec *specs;
        size_t n_specs = mcpp_policy_gate_metrics(p, &specs, &single);
        if (!(e->metrics = calloc(n_specs, sizeof *e->metrics))) {
            rc = mcpp_error_nomem();
            goto done;
        }
        for (size_t k = 0; k < n_specs; k++) {
            e->n_metrics = k + 1; /* freed with the report, whatever happens below */
            if ((rc = gate_metric(&e->metrics[k], p, &specs[k], pool, e->baselines, cg, lane_history, n_history)) != 0)
                goto done;
        }
    }
    mcpp_gate_explain_fit(&e->why);
done:
    free(pool);
    free(lane_history);
    mcpp_id_set_free(&pooled);
    mcpp_sb_free(&reason);
    return rc;
}

/* A candidate whose own tool marked it not ok: undetermined, never passed
 * (nothing of the code under test was measured), and named. */
static int candidate_not_ok(gate_entry *e, mcpp_gate_report *r, const mcpp_policy *p, const mcpp_receipt *cand)
{
    e->outcome = MCPP_GATE_UNDETERMINED;
    e->why.reason_code = "candidate_not_ok";
    int rc = mcpp_gate_left_out_add(r, p, cand, "candidate");
    if (rc != MCPP_OK)
        return rc;
    mcpp_strbuf reason;
    mcpp_sb_init_heap(&reason, 128);
    mcpp_sb_printf(&reason,
                   "the candidate run's status.outcome is '%s': a run its own tool marked not ok is never gated",
                   mcpp_gate_run_status(p, cand));
    return mcpp_sb_finish(&reason, &e->reason);
}

/* Decides each compared metric against the suite's cutoff
 * (mcpp_gate_suite_noise), and each candidate from its metrics. */
static int decide_all(mcpp_gate_report *r, const mcpp_policy *p)
{
    double threshold;
    int rc = mcpp_gate_suite_noise(r, (1 - p->gate.confidence) / 2, &threshold);
    size_t m = r->tests;
    for (size_t i = 0; i < r->n && rc == MCPP_OK; i++) {
        gate_entry *e = &r->entries[i];
        for (size_t k = 0; k < e->n_metrics && rc == MCPP_OK; k++) {
            gate_metric_entry *g = &e->metrics[k];
            if (!g->has_result) continue;
            if (!g->result.point_comparison && m > 1) {
                g->result.p_threshold = threshold;
                g->result.tests = m;
            }
            rc = decide_metric(g, p);
        }
        if (rc == MCPP_OK && e->n_metrics) rc = finish_one(e);
    }
    return rc;
}

static int gate_run(mcpp_gate_report **out, const mcpp_policy *policy, const mcpp_receipt *const *baselines,
                    size_t nb, const mcpp_receipt *const *candidates, size_t nc, const size_t *dropped,
                    const mcpp_receipt *const *history, size_t nh);

/* Whether two candidates are runs of the same code: both name one
 * source.git_commit. Runs without a commit stay separate candidates, each
 * judged on its own (they may be different experiments). */
static int same_commit(const mcpp_receipt *a, const mcpp_receipt *b, int commit_id)
{
    return commit_id >= 0 && mcpp_field_present(a, commit_id) && mcpp_field_same(a, b, commit_id);
}

/* Whether candidates a and b, both naming no commit, are two distinct runs
 * of one lane: judged apart, though they may be runs of one code. */
static int apart_in_one_lane(const mcpp_policy *p, const mcpp_receipt *a, const mcpp_receipt *b, int commit_id)
{
    const char *x = mcpp_receipt_id(a), *y = mcpp_receipt_id(b);
    return commit_id >= 0 && !mcpp_field_present(a, commit_id) && !mcpp_field_present(b, commit_id) &&
           !(x && y && strcmp(x, y) == 0) && mcpp_lane_same(p, a, b);
}

/* Groups the candidates into lanes: group_of[i] is the first candidate of
 * candidate i's group, whose members share its lane key and git commit and
 * compare as comparable or qualified with it (the runs of the new code in
 * that lane). Leaders of equal key hash are chained, so this is linear in
 * the candidates for distinct lanes. *unpooled counts the candidates that
 * name no commit and share their lane with another such candidate: each is
 * judged alone, and the report says how to pool them. Returns 0 or an error. */
static int group_candidates(size_t *group_of, size_t *unpooled, const mcpp_policy *p,
                            const mcpp_receipt *const *cands, size_t nc)
{
    size_t cap = 16;
    int commit_id = mcpp_schema_field_id("source.git_commit");
    while (cap < 2 * nc) cap *= 2;
    size_t *head = malloc(cap * sizeof *head), *chain = malloc((nc ? nc : 1) * sizeof *chain);
    uint64_t *hash = malloc((nc ? nc : 1) * sizeof *hash);
    unsigned char *apart = calloc(nc ? nc : 1, 1);
    int rc = head && chain && hash && apart ? MCPP_OK : mcpp_error_nomem();
    for (size_t i = 0; rc == MCPP_OK && i < cap; i++) head[i] = SIZE_MAX;
    for (size_t i = 0; rc == MCPP_OK && i < nc; i++) {
        if (!mcpp_gate_run_ok(p, cands[i])) { /* never pooled with the lane's runs (gate_status.c) */
            group_of[i] = i;
            continue;
        }
        hash[i] = mcpp_lane_key_hash(p, cands[i]);
        size_t slot = (size_t)hash[i] & (cap - 1), leader = SIZE_MAX;
        for (size_t l = head[slot]; l != SIZE_MAX && leader == SIZE_MAX; l = chain[l]) {
            mcpp_verdict v;
            if (hash[l] != hash[i]) continue;
            if (!same_commit(cands[l], cands[i], commit_id)) {
                if (!apart[i] && apart_in_one_lane(p, cands[l], cands[i], commit_id)) apart[i] = apart[l] = 1;
                continue;
            }
            if (!mcpp_lane_same(p, cands[l], cands[i])) continue;
            const char *a = mcpp_receipt_id(cands[l]), *b = mcpp_receipt_id(cands[i]);
            if (a && b && strcmp(a, b) == 0) { /* the same run twice is one run */
                leader = l;
                break;
            }
            if ((rc = mcpp_compare_verdict(&v, p, cands[l], cands[i])) != MCPP_OK) break;
            if (v == MCPP_VERDICT_COMPARABLE || v == MCPP_VERDICT_QUALIFIED) leader = l;
        }
        if (leader == SIZE_MAX) { /* a new lane: i leads it */
            leader = i;
            chain[i] = head[slot];
            head[slot] = i;
        }
        group_of[i] = leader;
    }
    *unpooled = 0;
    for (size_t i = 0; rc == MCPP_OK && i < nc; i++) *unpooled += apart[i];
    free(head);
    free(chain);
    free(hash);
    free(apart);
    return rc;
}

/* Links each group's members in input order: group_next[i] is the next
 * candidate of i's group (SIZE_MAX at the end), so a group is walked from its
 * leader without scanning every candidate. `tail` holds nc sizes. */
static void link_groups(size_t *group_next, size_t *tail, const size_t *group_of, size_t nc)
{
    for (size_t i = 0; i < nc; i++) {
        group_next[i] = SIZE_MAX;
        if (group_of[i] != i) group_next[tail[group_of[i]]] = i;
        tail[group_of[i]] = i;
    }
}

/* The runs of candidate i's group into cg (runs holds nc), itself first (a
 * copy of it under its id left out), and their ids as a set when they are
 * many: each baseline and history run is looked up in them (in_group), once
 * per candidate of the group, and a scan made a lane of 1,000 candidate runs
 * against 1,000 baselines cost 10^9 comparisons. 0 or MCPP_ENOMEM. */
static int group_runs(cand_group *cg, const size_t *group_of, const size_t *group_next,
                      const mcpp_receipt *const *cands, size_t i)
{
    cg->n = 0;
    cg->runs[cg->n++] = cands[i];
    const char *id = mcpp_receipt_id(cands[i]);
    for (size_t j = group_of[i]; j != SIZE_MAX; j = group_next[j]) {
        const char *other = mcpp_receipt_id(cands[j]);
        if (j == i || (id && other && strcmp(id, other) == 0)) continue;
        cg->runs[cg->n++] = cands[j];
    }
    mcpp_id_set_clear(&cg->ids);
    for (size_t k = 0; cg->n > GROUP_SCAN_MAX && k < cg->n; k++) {
        const char *rid = mcpp_receipt_id(cg->runs[k]);
        if (rid && !mcpp_id_set_contains(&cg->ids, rid) && mcpp_id_set_add(&cg->ids, rid) != 0)
            return mcpp_error_nomem();
    }
    return MCPP_OK;
}

/* The gate metrics as the policy names them, joined by ", " (for headings). */
static int gate_metric_names(char **out, const mcpp_policy *p)
{
    mcpp_gate_metric_spec single;
    const mcpp_gate_metric_spec *specs;
    size_t n = mcpp_policy_gate_metrics(p, &specs, &single);
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 64);
    for (size_t k = 0; k < n; k++) {
        if (k) mcpp_sb_puts(&b, ", ");
        mcpp_sb_puts(&b, specs[k].text);
    }
    return mcpp_sb_finish(&b, out);
}

int mcpp_gate_run(mcpp_gate_report **out, const mcpp_policy *policy, const mcpp_receipt *const *baselines,
                  size_t nb, const mcpp_receipt *const *candidates, size_t nc)
{
    return gate_run(out, policy, baselines, nb, candidates, nc, NULL, NULL, 0);
}

int mcpp_gate_run_receipts(mcpp_gate_report **out, const mcpp_policy *policy, mcpp_receipt *const *baselines,
                           size_t nb, mcpp_receipt *const *candidates, size_t nc)
{
    /* adding const below the first level is safe; C only refuses to do it implicitly */
    return gate_run(out, policy, (const mcpp_receipt *const *)baselines, nb, (const mcpp_receipt *const *)candidates,
                    nc, NULL, NULL, 0);
}

int mcpp_gate_run_filtered(mcpp_gate_report **out, const mcpp_policy *policy, const mcpp_receipt *const *baselines,
                           size_t nb, const mcpp_receipt *const *candidates, size_t nc, const size_t *dropped)
{
    return gate_run(out, policy, baselines, nb, candidates, nc, dropped, NULL, 0);
}

int mcpp_gate_run_with_history(mcpp_gate_report **out, const mcpp_policy *policy,
                               const mcpp_receipt *const *baselines, size_t nb,
                               const mcpp_receipt *const *candidates, size_t nc,
                               const mcpp_receipt *const *history, size_t nh)
{
    return gate_run(out, policy, baselines, nb, candidates, nc, NULL, history, nh);
}

/* The report's entries: each candidate grouped with its lane's other runs
 * (*unpooled: those of no commit in common, candidates of their own) and
 * gated against its baselines and its lane's history. Runs their own tool
 * marked not ok never count (gate_status.c): history here, baselines as they
 * are pooled (pool_baseline), so that they are counted by verdict like any
 * other. The lane labels are made first: made after, the frontier they come
 * from stacked on the filled entries. */
static int fill_entries(mcpp_gate_report *r, const mcpp_policy *p, const mcpp_receipt *const *baselines, size_t nb,
                        const mcpp_receipt *const *candidates, size_t nc, const mcpp_receipt *const *history, size_t nh,
                        const size_t *dropped, size_t *unpooled)
{
    const mcpp_receipt **ok_history = NULL;
    char **labels = NULL;
    size_t cap = nc ? nc : 1, *group_of = NULL;
    cand_group cg = {NULL, 0, MCPP_ID_SET_INIT};
    lane_index bix = {0, NULL, NULL, NULL, NULL}, hix = {0, NULL, NULL, NULL, NULL};
    int rc = mcpp_gate_keep_ok(&ok_history, &nh, r, p, history, nh, "history");
    if (rc || (rc = mcpp_gate_explain_labels(&labels, p, candidates, nc)) != 0)
        goto done;
    history = ok_history;
    group_of = malloc(3 * cap * sizeof *group_of);
    cg.runs = malloc(cap * sizeof *cg.runs);
    if (!group_of || !cg.runs) {
        rc = mcpp_error_nomem();
        goto done;
    }
    size_t *group_next = group_of + cap, *tail = group_next + cap;
    if ((rc = group_candidates(group_of, unpooled, p, candidates, nc)) != 0 ||
        (rc = lane_index_build(&bix, p, baselines, nb)) != 0 || (rc = lane_index_build(&hix, p, history, nh)) != 0)
        goto done;
    link_groups(group_next, tail, group_of, nc);
    for (size_t i = 0; i < nc && rc == MCPP_OK; i++) {
        gate_entry *e = &r->entries[i];
        r->n = i + 1;
        e->group = group_of[i];
        const char *id = mcpp_receipt_id(candidates[i]);
        if ((rc = group_runs(&cg, group_of, group_next, candidates, i)) != 0)
            break;
        if (!(e->id = mcpp_strdup(id ? id : "", NULL)))
            rc = mcpp_error_nomem();
        else if ((rc = mcpp_gate_explain_candidate(&e->why, p, candidates[i])) == 0)
            rc = mcpp_gate_run_ok(p, candidates[i])
                     ? gate_one(e, r, p, baselines, nb, &bix, &cg, dropped ? dropped + 2 * i : NULL, history, nh, &hix)
                     : candidate_not_ok(e, r, p, candidates[i]);
    }
    if (rc == MCPP_OK) {
        mcpp_gate_explain_take_labels(r->entries, nc, labels);
        labels = NULL;
    }
done:
    free(group_of);
    free(cg.runs);
    mcpp_id_set_free(&cg.ids);
    lane_index_free(&bix);
    lane_index_free(&hix);
    free(ok_history);
    mcpp_gate_explain_labels_free(labels, nc);
    return rc;
}

static int gate_run(mcpp_gate_report **out, const mcpp_policy *policy, const mcpp_receipt *const *baselines,
                    size_t nb, const mcpp_receipt *const *candidates, size_t nc, const size_t *dropped,
                    const mcpp_receipt *const *history, size_t nh)
{
    MCPP_CHECK_ARG(out, "mcpp_gate_run: NULL out");
    *out = NULL;
    MCPP_CHECK_ARG((!nb || baselines) && (!nc || candidates) && (!nh || history), "mcpp_gate_run: NULL receipt array");
    for (size_t i = 0; i < nb; i++)
        MCPP_CHECK_ARG(baselines[i], "baseline %zu is NULL", i);
    for (size_t i = 0; i < nc; i++)
        MCPP_CHECK_ARG(candidates[i], "candidate %zu is NULL", i);
    for (size_t i = 0; i < nh; i++)
        MCPP_CHECK_ARG(history[i], "history receipt %zu is NULL", i);
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    mcpp_gate_report *r = calloc(1, sizeof *r);
    MCPP_CHECK_ALLOC(r);
    int rc = MCPP_OK;
    r->inconclusive_fails = p->inconclusive_fails;
    r->entries = calloc(nc ? nc : 1, sizeof *r->entries);
    r->policy_name = mcpp_strdup(p->name ? p->name : "", NULL);
    mcpp_policy_digest_fill(r->policy_digest, p);
    if (!r->entries || !r->policy_name || (rc = gate_metric_names(&r->metric_name, p)) != 0) {
        rc = mcpp_error_nomem();
        goto fail;
    }
    size_t unpooled = 0;
    if ((rc = fill_entries(r, p, baselines, nb, candidates, nc, history, nh, dropped, &unpooled)) != 0)
        goto fail;
    if ((rc = decide_all(r, p)) != 0) goto fail;
    size_t new_lanes = 0;
    int left_out = 0;
    for (size_t i = 0; dropped && i < 2 * nc; i++) left_out |= dropped[i] > 0;
    if ((rc = mcpp_gate_settle_new_lanes(r, p, baselines, nb, candidates, left_out, &new_lanes)) != 0) goto fail;
    /* Counted by test: a lane's pooled candidate runs are one test ("9 of 9
     * candidates regressed" was three benchmarks run three times). */
    size_t *g = r->groups, tests = 0, new_tests = 0, not_ok = 0;
    for (size_t i = 0; i < nc; i++)
        if (r->entries[i].why.reason_code && strcmp(r->entries[i].why.reason_code, "candidate_not_ok") == 0) {
            not_ok++; /* left out, and named (gate_status.c): no test */
        } else if (r->entries[i].group == i) {
            g[r->entries[i].outcome]++, tests++;
            new_tests += gate_entry_is_new_lane(&r->entries[i]);
        }
    size_t failed = g[MCPP_GATE_FAILED], undetermined = g[MCPP_GATE_UNDETERMINED];
    size_t inconclusive = g[MCPP_GATE_INCONCLUSIVE];
    const char *tests_s = tests == 1 ? "" : "s";
    mcpp_strbuf reason;
    mcpp_sb_init_heap(&reason, 256);
    /* A definite regression outranks an undetermined pair: both fail the gate,
     * and the regression is the more specific news. */
    if (failed) {
        r->outcome = MCPP_GATE_FAILED;
        if (p->n_gate_metrics > 1)
            mcpp_sb_printf(&reason, "%zu of %zu candidate%s regressed beyond a metric's allowance", failed, tests,
                           tests_s);
        else
            mcpp_sb_printf(&reason, "%zu of %zu candidate%s regressed beyond the %.1f%% allowance", failed, tests,
                           tests_s, p->gate.max_regression * 100);
        if (undetermined) mcpp_sb_printf(&reason, "; %zu could not be compared", undetermined);
    } else if (nc == 0) {
        r->outcome = MCPP_GATE_UNDETERMINED;
        mcpp_sb_puts(&reason, "no candidate receipts: nothing was established");
    } else if (tests == 0) {
        r->outcome = MCPP_GATE_UNDETERMINED;
        mcpp_sb_printf(&reason, "every candidate run (%zu) was marked not ok by its own tool: nothing was gated",
                       not_ok);
    } else if (undetermined) {
        r->outcome = MCPP_GATE_UNDETERMINED;
        mcpp_sb_printf(&reason, "%zu of %zu candidate%s could not be compared with a baseline", undetermined, tests,
                       tests_s);
    } else if (new_tests == tests) {
        r->outcome = MCPP_GATE_PASSED;
        mcpp_sb_printf(&reason, "%zu new lane%s, no baseline to compare with yet: nothing to gate", tests, tests_s);
    } else if (inconclusive) {
        r->outcome = MCPP_GATE_INCONCLUSIVE;
        mcpp_sb_printf(&reason,
                       "%zu of %zu candidate%s inconclusive: no regression established, but one beyond "
                       "min_detectable not ruled out (gate.on_inconclusive = \"%s\")",
                       inconclusive, tests, tests_s, p->inconclusive_fails ? "fail" : "pass");
    } else {
        r->outcome = MCPP_GATE_PASSED;
        size_t gated = tests - (p->new_lanes_fail ? 0 : new_tests);
        if (p->n_gate_metrics > 1)
            mcpp_sb_printf(&reason,
                           "all %zu candidate%s comparable, no regression beyond any metric's allowance "
                           "established",
                           gated, gated == 1 ? "" : "s");
        else
            mcpp_sb_printf(&reason, "all %zu candidate%s comparable, no regression beyond %.1f%% established", gated,
                           gated == 1 ? "" : "s", p->gate.max_regression * 100);
    }
    if (new_lanes && new_lanes < nc) /* new lanes settled in gate_new_lanes.c */
        mcpp_sb_printf(&reason, "; %zu new lane%s %s", new_lanes, new_lanes == 1 ? "" : "s",
                       p->new_lanes_fail ? "(gate.new_lanes = fail)" : "recorded, not gated");
    mcpp_sb_printf(&reason, "; %zu passed, %zu failed, %zu inconclusive, %zu undetermined", g[MCPP_GATE_PASSED], failed,
                   inconclusive, undetermined);
    if (tests != nc)
        mcpp_sb_printf(&reason, " (%zu candidate runs, pooled by lane and commit)", nc);
    if (r->tests > 1) {
        mcpp_sb_printf(&reason, " (%zu tests, Benjamini-Hochberg false discovery rate %.1f%%", r->tests,
                       r->fdr_q * 100);
        if (r->suite_run_sd > 0) mcpp_sb_printf(&reason, ", run-to-run %.1f%% as the suite shows", r->suite_run_sd * 100);
        if (r->suite_heavy_tails) mcpp_sb_printf(&reason, " with heavy tails (t, %.0f df)", r->suite_df);
        if (r->history_tails_kept)
            mcpp_sb_printf(&reason, " that %d betterments cannot tell: %zu test%s kept the history's tails",
                           r->suite_heavy_tails, r->history_tails_kept, r->history_tails_kept == 1 ? "" : "s");
        if (r->split_rounds)
            mcpp_sb_printf(&reason, "%s%zu whose rounds lie in two modes took the suite's",
                           r->history_tails_kept ? ", " : " that the betterments cannot tell: ", r->split_rounds);
        if (r->baseline_spikes)
            mcpp_sb_printf(&reason, ", %zu baseline run%s far slower than %s history left out of that reading",
                           r->baseline_spikes, r->baseline_spikes == 1 ? "" : "s",
                           r->baseline_spikes == 1 ? "its" : "their");
        if (r->history_scores && isinf(r->history_tail_df))
            mcpp_sb_printf(&reason, ", tails read from %zu earlier runs: normal", r->history_scores);
        else if (r->history_scores)
            mcpp_sb_printf(&reason,
                           ", tails read from %zu earlier runs: heavy (t, %.0f df; one far-off run is no regression)",
                           r->history_scores, r->history_tail_df);
        if (r->history_lane_df > 0)
            mcpp_sb_printf(&reason, ", the lanes' histories pooled (%.0f df)", r->history_lane_df);
        if (r->history_medians)
            mcpp_sb_printf(&reason, ", %zu test%s compare the medians of their runs", r->history_medians,
                           r->history_medians == 1 ? "" : "s");
        if (r->history_shaped)
            mcpp_sb_printf(&reason, ", %zu test%s read against the shape of their runs", r->history_shaped,
                           r->history_shaped == 1 ? "" : "s");
        if (r->history_anchored)
            mcpp_sb_printf(&reason, ", %zu one-run baseline%s steadied by %s history", r->history_anchored,
                           r->history_anchored == 1 ? "" : "s", r->history_anchored == 1 ? "its" : "their");
        if (r->history_widened)
            mcpp_sb_printf(&reason, ", widened %.2fx: the tests spread more today than their history says",
                           r->history_spread);
        if (r->suite_shift != 0) {
            mcpp_sb_puts(&reason, r->suite_regressed ? ", the whole suite regressed by " : ", common shift ");
            mcpp_sb_signed_change(&reason, r->suite_shift);
            if (!r->suite_regressed) mcpp_sb_puts(&reason, " taken as the machine's");
        }
        mcpp_sb_putc(&reason, ')');
    }
    mcpp_gate_left_out_reason(r, &reason);
    if (unpooled)
        mcpp_sb_printf(&reason, "; %zu candidate runs name no commit and share a lane: each was judged alone "
                       "(runs of one code pool as one side when they name its commit: mcpp-receipts import "
                       "--commit)", unpooled);
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
        gate_entry *e = &report->entries[i];
        for (size_t k = 0; k < e->n_metrics; k++) {
            free(e->metrics[k].name);
            if (!e->metrics[k].reason_in_entry)
                free(e->metrics[k].reason);
            free(e->metrics[k].result_name);
            free(e->metrics[k].result_unit);
            free(e->metrics[k].history_scores);
            free(e->metrics[k].history_values);
            free(e->metrics[k].base_values);
            free(e->metrics[k].cand_values);
        }
        free(e->metrics);
        free(e->id);
        free(e->reason);
        mcpp_gate_explain_free(&e->why);
    }
    free(report->entries);
    for (size_t i = 0; i < report->n_null_shapes; i++) {
        mcpp_null_shape_free(report->null_shapes[i]);
        free(report->null_shapes[i]);
    }
    free(report->null_shapes);
    for (size_t i = 0; i < report->n_median_shapes; i++) {
        mcpp_median_shape_free(report->median_shapes[i]);
        free(report->median_shapes[i]);
    }
    free(report->median_shapes);
    for (size_t i = 0; i < report->n_inputs; i++) {
        free(report->inputs[i].path);
        free(report->inputs[i].message);
    }
    free(report->inputs);
    mcpp_gate_left_out_free(report);
    free(report->reason);
    free(report->gated_reason);
    free(report->metric_name);
    free(report->policy_name);
    free(report);
}

mcpp_gate_outcome mcpp_gate_report_outcome(const mcpp_gate_report *r) { return r ? r->outcome : MCPP_GATE_UNDETERMINED; }
const char *mcpp_gate_report_reason(const mcpp_gate_report *r) { return r ? r->reason : NULL; }
const char *mcpp_gate_report_policy_name(const mcpp_gate_report *r) { return r ? r->policy_name : NULL; }
const char *mcpp_gate_report_policy_digest(const mcpp_gate_report *r) { return r ? r->policy_digest : NULL; }
int mcpp_gate_report_exit_code(const mcpp_gate_report *r)
{
    mcpp_gate_outcome o = mcpp_gate_report_outcome(r);
    if (o == MCPP_GATE_INCONCLUSIVE)
        return r->inconclusive_fails ? MCPP_GATE_FAILED : MCPP_GATE_PASSED;
    return (int)o;
}
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
    return r && i < r->n ? gate_first_result(&r->entries[i]) : NULL;
}

size_t mcpp_gate_report_entry_metric_count(const mcpp_gate_report *r, size_t i)
{
    return r && i < r->n ? r->entries[i].n_metrics : 0;
}

int mcpp_gate_report_entry_metric_at(mcpp_gate_metric *out, const mcpp_gate_report *r, size_t i, size_t k)
{
    MCPP_CHECK_ARG(out && r, "mcpp_gate_report_entry_metric_at: NULL argument");
    if (mcpp_struct_out_version_check(out->version, MCPP_GATE_METRIC_VERSION, "mcpp_gate_metric") != MCPP_OK)
        return MCPP_EARG;
    MCPP_CHECK_ARG(i < r->n && k < r->entries[i].n_metrics, "candidate %zu, metric %zu out of range", i, k);
    const gate_metric_entry *g = &r->entries[i].metrics[k];
    out->name = g->name;
    out->outcome = g->outcome;
    out->skipped = g->skipped;
    out->reason = g->reason;
    out->result = g->has_result ? &g->result : NULL;
    return MCPP_OK;
}
