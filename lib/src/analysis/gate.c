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
#include "util/struct_version.h"

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

/* A candidate and the other candidates of its lane (same lane key,
 * comparable or qualified with it): the runs of the new code in that lane,
 * pooled on the candidate's side of every comparison. runs[0] is the
 * candidate itself. */
typedef struct cand_group {
    const mcpp_receipt **runs;
    size_t n;
} cand_group;

/* Whether `id` is one of the group's runs (such a receipt is never a baseline). */
static int in_group(const cand_group *cg, const char *id)
{
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
    mcpp_sb_init_heap(&reason, 256);
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
            if ((rc = mcpp_metric_compare(&g->result, p, spec->confidence, &sb, &sc, use_history ? &sh : NULL)) != 0)
                goto done;
            g->has_result = 1;
            double declared_sd;
            mcpp_policy_declared_noise(p, sb.suite ? sb.suite : sc.suite, &declared_sd, &g->declared_df);
            double ss_b, df_b, ss_c, df_c;
            mcpp_metric_side_spread(&sb, &ss_b, &df_b);
            mcpp_metric_side_spread(&sc, &ss_c, &df_c);
            g->runs_ss = ss_b + ss_c;
            g->runs_df = df_b + df_c;
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
    g->reason = reason.data;
    reason.data = NULL;
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
    mcpp_sb_init_heap(&reason, 256);
    g->outcome = mcpp_metric_gate(&g->result, p, g->allowance, &reason);
    g->code = g->outcome == MCPP_GATE_PASSED   ? "passed"
              : g->outcome == MCPP_GATE_FAILED ? "regression"
              : g->result.point_comparison && !p->allow_point_comparisons ? "point_comparison_not_allowed"
                                                                           : "base_median_zero";
    if (reason.failed) {
        mcpp_sb_free(&reason);
        return mcpp_error_nomem();
    }
    free(g->reason);
    g->reason = reason.data;
    return MCPP_OK;
}

/* The candidate's outcome from its metrics': a breach of any fails it; else
 * any undetermined metric leaves it undetermined; a candidate whose every
 * metric was skipped is undetermined (nothing was gated). Reasons join. */
static void combine_metrics(gate_entry *e, mcpp_strbuf *reason)
{
    size_t failed = 0, undetermined = 0, skipped = 0;
    for (size_t k = 0; k < e->n_metrics; k++) {
        const gate_metric_entry *g = &e->metrics[k];
        skipped += g->skipped;
        if (g->skipped) continue;
        failed += g->outcome == MCPP_GATE_FAILED;
        undetermined += g->outcome == MCPP_GATE_UNDETERMINED;
    }
    e->outcome = failed ? MCPP_GATE_FAILED
                 : undetermined || skipped == e->n_metrics ? MCPP_GATE_UNDETERMINED
                                                           : MCPP_GATE_PASSED;
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

/* The earlier runs of the candidate's lane among `history`: comparable (or
 * qualified) with it, and neither a candidate run nor a pooled baseline. */
static int pick_history(const mcpp_receipt ***out, size_t *n_out, const mcpp_policy *p,
                        const mcpp_receipt *const *history, size_t nh, const cand_group *cg, const id_set *pooled)
{
    const mcpp_receipt *cand = cg->runs[0];
    *out = NULL;
    *n_out = 0;
    if (!nh) return MCPP_OK;
    const mcpp_receipt **picked = malloc(nh * sizeof *picked);
    if (!picked) return mcpp_error_nomem();
    id_set seen = {NULL, 0, 0};
    int rc = MCPP_OK;
    for (size_t i = 0; i < nh; i++) {
        const char *id = mcpp_receipt_id(history[i]);
        if (id && (in_group(cg, id) || id_set_contains(pooled, id) || id_set_contains(&seen, id))) continue;
        mcpp_verdict v;
        if ((rc = mcpp_compare_verdict(&v, p, history[i], cand)) != 0) break;
        if (v != MCPP_VERDICT_COMPARABLE && v != MCPP_VERDICT_QUALIFIED) continue;
        if (id && id_set_add(&seen, id) != 0) {
            rc = mcpp_error_nomem();
            break;
        }
        picked[(*n_out)++] = history[i];
    }
    free(seen.slots);
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
    mcpp_sb_init_heap(&reason, 256);
    combine_metrics(e, &reason);
    e->why.reason_code = entry_reason_code(e);
    if (reason.failed) {
        mcpp_sb_free(&reason);
        return mcpp_error_nomem();
    }
    e->reason = reason.data;
    return MCPP_OK;
}

/* Pools one candidate's baselines and compares its metrics (decided later,
 * in decide_all). A candidate with no comparable baseline gets its outcome
 * and reason here. `dropped` (NULL: none) adds baselines left out upstream
 * to the verdict tally. */
/* The baselines by lane key hash, chained in input order: the gate looks at
 * a candidate's own lane first, so it is linear in candidates + baselines
 * when lanes are distinct. */
typedef struct baseline_index {
    size_t cap;
    size_t *head, *tail, *next;
    uint64_t *hash;
} baseline_index;

static void baseline_index_free(baseline_index *x)
{
    free(x->head);
    free(x->tail);
    free(x->next);
    free(x->hash);
}

static int baseline_index_build(baseline_index *x, const mcpp_policy *p, const mcpp_receipt *const *baselines,
                                size_t nb)
{
    x->cap = 16;
    while (x->cap < 2 * nb) x->cap *= 2;
    x->head = malloc(x->cap * sizeof *x->head);
    x->tail = malloc(x->cap * sizeof *x->tail);
    x->next = malloc((nb ? nb : 1) * sizeof *x->next);
    x->hash = malloc((nb ? nb : 1) * sizeof *x->hash);
    if (!x->head || !x->tail || !x->next || !x->hash) return mcpp_error_nomem();
    for (size_t i = 0; i < x->cap; i++) x->head[i] = x->tail[i] = SIZE_MAX;
    for (size_t i = 0; i < nb; i++) {
        size_t slot = (size_t)(x->hash[i] = mcpp_lane_key_hash(p, baselines[i])) & (x->cap - 1);
        x->next[i] = SIZE_MAX;
        if (x->tail[slot] == SIZE_MAX) x->head[slot] = i;
        else x->next[x->tail[slot]] = i;
        x->tail[slot] = i;
    }
    return MCPP_OK;
}

/* Compares one baseline with the candidate: tallies its verdict, and pools
 * it when comparable or qualified (once per id; never a candidate run). */
static int pool_baseline(gate_entry *e, const mcpp_policy *p, const mcpp_receipt *base, const cand_group *cg,
                         id_set *pooled, const mcpp_receipt **pool, size_t *by_verdict)
{
    const char *bid = mcpp_receipt_id(base);
    if (in_group(cg, bid) || (bid && id_set_contains(pooled, bid))) return MCPP_OK;
    mcpp_verdict v;
    int rc = mcpp_compare_verdict(&v, p, base, cg->runs[0]);
    if (rc != 0) return rc;
    by_verdict[v]++;
    if (v != MCPP_VERDICT_COMPARABLE && v != MCPP_VERDICT_QUALIFIED) return MCPP_OK;
    if (bid && id_set_add(pooled, bid) != 0) return mcpp_error_nomem();
    pool[e->baselines++] = base;
    return mcpp_gate_explain_pooled(&e->why, p, base, cg->runs[0], v);
}

static int gate_one(gate_entry *e, const mcpp_policy *p, const mcpp_receipt *const *baselines, size_t nb,
                    const baseline_index *bix, const cand_group *cg, const size_t *dropped,
                    const mcpp_receipt *const *history, size_t nh)
{
    const mcpp_receipt *cand = cg->runs[0];
    size_t by_verdict[4] = {0, 0, 0, 0};
    int rc = MCPP_OK;
    mcpp_strbuf reason;
    mcpp_sb_init_heap(&reason, 256);
    const mcpp_receipt **pool = malloc((nb ? nb : 1) * sizeof *pool);
    const mcpp_receipt **lane_history = NULL;
    size_t n_history = 0;
    /* Ids already pooled: one run loaded twice (JSON and YAML copies) counts
     * once, and a receipt is never its own baseline. */
    id_set pooled = {NULL, 0, 0};
    if (!pool) {
        rc = mcpp_error_nomem();
        goto done;
    }
    /* First the baselines of the candidate's lane (key hash), in input order:
     * any other differs in a must-match dimension, so it is not comparable
     * and is only counted. When none of the lane's can be pooled, every
     * baseline is compared, exactly, to say what kept each one out. */
    uint64_t h = mcpp_lane_key_hash(p, cand);
    size_t in_lane = 0;
    for (size_t i = bix->head[h & (bix->cap - 1)]; i != SIZE_MAX; i = bix->next[i]) {
        if (bix->hash[i] != h) continue;
        in_lane++;
        if ((rc = pool_baseline(e, p, baselines[i], cg, &pooled, pool, by_verdict)) != 0) goto done;
    }
    if (e->baselines) {
        by_verdict[MCPP_VERDICT_NOT_COMPARABLE] += nb - in_lane;
    } else {
        memset(by_verdict, 0, sizeof by_verdict);
        for (size_t i = 0; i < nb; i++)
            if ((rc = pool_baseline(e, p, baselines[i], cg, &pooled, pool, by_verdict)) != 0) goto done;
    }
    if (dropped) {
        by_verdict[MCPP_VERDICT_NOT_COMPARABLE] += dropped[0];
        by_verdict[MCPP_VERDICT_INSUFFICIENT] += dropped[1];
    }
    memcpy(e->why.by_verdict, by_verdict, sizeof by_verdict);
    if (e->baselines == 0 && (rc = explain_rejected(e, p, baselines, nb, cand)) != 0) goto done;
    if (e->baselines == 0) {
        e->outcome = MCPP_GATE_UNDETERMINED;
        mcpp_sb_printf(&reason, "no comparable baseline among %zu (%zu not_comparable, %zu insufficient)",
                            by_verdict[0] + by_verdict[1] + by_verdict[2] + by_verdict[3],
                            by_verdict[MCPP_VERDICT_NOT_COMPARABLE], by_verdict[MCPP_VERDICT_INSUFFICIENT]);
        mcpp_gate_explain_blockers(&e->why, &reason);
        e->why.reason_code = "no_comparable_baseline";
        if (reason.failed) {
            rc = mcpp_error_nomem();
            goto done;
        }
        e->reason = reason.data;
        reason.data = NULL;
    } else {
        e->first_baseline = pool[0];
        if ((rc = pick_history(&lane_history, &n_history, p, history, nh, cg, &pooled)) != 0) goto done;
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
done:
    free(pool);
    free(lane_history);
    free(pooled.slots);
    mcpp_sb_free(&reason);
    return rc;
}

/* The gate's tests into out (NULL: only counted): each lane's compared
 * metrics that are not point comparisons, once per lane, since the candidate
 * runs of a lane share their comparison. With `shared` (NULL: every test),
 * only the entries whose mark in it is `marked`. */
static size_t lane_tests(gate_metric_entry **out, mcpp_gate_report *r, const unsigned char *shared, int marked)
{
    size_t m = 0;
    for (size_t i = 0; i < r->n; i++)
        for (size_t k = 0; r->entries[i].group == i && (!shared || shared[i] == marked) && k < r->entries[i].n_metrics;
             k++) {
            gate_metric_entry *g = &r->entries[i].metrics[k];
            if (!g->has_result || g->result.point_comparison) continue;
            if (out) out[m] = g;
            m++;
        }
    return m;
}

typedef struct baseline_side {
    const mcpp_receipt *first;
    size_t n, entry;
} baseline_side;

static int baseline_side_order(const void *a, const void *b)
{
    const baseline_side *x = a, *y = b;
    if (x->first != y->first) return (uintptr_t)x->first < (uintptr_t)y->first ? -1 : 1;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Marks in shared[i] each candidate whose baseline side an earlier one
 * already has: runs of one lane with no commit in common are candidates of
 * their own, each tested against the same baseline runs. Each is decided and
 * counted among the gate's tests, but what the suite measures of the machine
 * (its pooled noise, the spread of its changes, its tails, its shift) takes
 * one test per baseline side: counted once per candidate, three candidate
 * runs of three benchmarks were nine tests, enough for the suite's figure to
 * replace the policy's with the same baseline runs counted thrice (real
 * Google Benchmark runs on this project's CI machine, three against each of
 * three: 12 of 65 unchanged merges failing). shared holds r->n bytes. */
static int mark_shared_baselines(const mcpp_gate_report *r, unsigned char *shared)
{
    baseline_side *sides = malloc((r->n ? r->n : 1) * sizeof *sides);
    if (!sides) return mcpp_error_nomem();
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        shared[i] = 0;
        if (r->entries[i].group == i && r->entries[i].baselines)
            sides[n++] = (baseline_side){r->entries[i].first_baseline, r->entries[i].baselines, i};
    }
    qsort(sides, n, sizeof *sides, baseline_side_order);
    for (size_t j = 1; j < n; j++)
        if (sides[j].first == sides[j - 1].first && sides[j].n == sides[j - 1].n) shared[sides[j].entry] = 1;
    free(sides);
    return MCPP_OK;
}

/* Below this many tests the spread of their changes says too little about
 * the machine's run-to-run noise to be a floor. */
#define SUITE_MIN_TESTS 8

/* The scale of n changes in scratch[0..n), signed so that worse is positive
 * (each test's log change scaled to one run: suite_run_noise; in standard
 * errors: history_spread_check). Two readings of their spread about the
 * median:
 * - the standard deviation of those within 3 robust deviations (1.4826
 *   median absolute deviations) of the median, with that many runs' degrees
 *   of freedom: leaving out the few benchmarks that really changed keeps them
 *   from inflating it, and the standard deviation of the rest, not the MAD
 *   itself, keeps it steady (the MAD of 50 values wanders by a quarter);
 * - how heavy their tails could be (mcpp_stats_t_tail_fit), from the
 *   deviations with the worse ones capped at the largest betterment:
 *   regressions sit on the worse side, and capped they cannot make the
 *   machine look wilder than its betterments show. When the tails are heavy
 *   (a machine whose runs now and then land far off), the test takes that
 *   t's scale and degrees of freedom: one far-off run a side is then no
 *   evidence of a regression. With `tails_known` the lanes' history has
 *   read them (history_tails), far better than 50 changes can: no fit.
 * Without `fit_tails` (several runs a side, where the spread of the changes
 * is what the two sides' jobs add) it is the root mean square of the
 * betterments alone, within 6 robust deviations: regressions cannot enter
 * them, so the cut only keeps out a real improvement far below the rest, and
 * at 3 it trimmed genuine spread whenever the MAD came out small (jobs shape,
 * 5 runs a side: 6% of 100 unchanged merges failing, 5% at 6 deviations;
 * 3.5% of 200 at 6, 5.0% at 3).
 * A shift common to all benchmarks stays a change, not noise.
 * Returns the scale (0: fewer than SUITE_MIN_TESTS changes, or too few
 * kept), its df in *df and in *heavy whether they are the heavy tails' (read
 * only with `fit_tails`); both 0 unless set. `scratch` holds 2n doubles. */
static double spread_of_changes(double *scratch, size_t n, int fit_tails, int tails_known, int about_zero, double *df,
                                int *heavy)
{
    *df = 0;
    *heavy = 0;
    if (n < SUITE_MIN_TESTS) return 0;
    double med = mcpp_median_sorting(scratch, n); /* scratch stays sorted: the betterments come first */
    for (size_t i = 0; i < n; i++) scratch[n + i] = fabs(scratch[i] - med);
    double cut = 3 * 1.4826 * mcpp_median_sorting(scratch + n, n), mean = 0, ss = 0;
    size_t kept = 0;
    if (!fit_tails) { /* the betterments alone: regressions, real ones too, sit on the worse side */
        double c = about_zero ? 0 : med;
        for (size_t i = 0; i < n && scratch[i] < c; i++)
            if (c - scratch[i] <= 2 * cut) ss += (c - scratch[i]) * (c - scratch[i]), kept++;
        *df = (double)kept;
        return kept >= 2 ? sqrt(ss / (double)kept) : 0;
    }
    for (size_t i = 0; i < n; i++)
        if (fabs(scratch[i] - med) <= cut) mean += scratch[i], kept++;
    if (kept < 2) return 0;
    mean /= (double)kept;
    for (size_t i = 0; i < n; i++)
        if (fabs(scratch[i] - med) <= cut) ss += (scratch[i] - mean) * (scratch[i] - mean);
    size_t better = 0;
    for (size_t i = 0; i < n && scratch[i] < med; i++) scratch[n + better++] = med - scratch[i];
    size_t fitted = better;
    for (size_t i = better; better && i < n; i++) /* the worse half, capped at the largest betterment */
        scratch[n + fitted++] = scratch[i] - med < scratch[n] ? scratch[i] - med : scratch[n];
    double scale, tail_df = !tails_known && better >= SUITE_MIN_TESTS / 2
                                ? mcpp_stats_t_tail_fit(scratch + n, fitted, &scale)
                                : INFINITY;
    if (tail_df < 20) {
        *df = tail_df;
        *heavy = 1;
        return scale;
    }
    *df = (double)(kept - 1);
    /* a normal cut at 3 sd keeps 99.73% of it and 98.66% of its spread */
    return sqrt(ss / (double)(kept - 1)) / 0.9866;
}

/* The run-to-run noise the gate's own tests show (spread_of_changes). */
static double suite_run_noise(gate_metric_entry *const *tests, size_t n, double *scratch, int fit_tails,
                              int tails_known, double *df, int *heavy)
{
    for (size_t i = 0; i < n; i++) {
        const mcpp_metric_result *res = &tests[i]->result;
        double worse = res->higher_is_better ? -1 : 1;
        scratch[i] = worse * log1p(res->rel_delta) / sqrt(1 / (double)res->n_base + 1 / (double)res->n_cand);
    }
    return spread_of_changes(scratch, n, fit_tails, tails_known, 0, df, heavy);
}

/* Below this many earlier runs the pooled history says too little about how
 * far off the machine's runs can land. */
#define HISTORY_MIN_SCORES 100

/* The machine's tails, read from the earlier runs of the gate's lanes
 * (docs/statistics.md, "Heavy tails"): each lane's runs as normal scores
 * against its own others (mcpp_stats_loo_normal_scores), pooled over every
 * test, and the Student t they cannot rule out (mcpp_stats_t_tail_fit). Twenty
 * runs of 50 lanes show tails that the 50 changes of one merge cannot: with
 * tails known, a normal machine's suite is not read as heavy-tailed by chance
 * and a heavy-tailed one's far-off runs are expected. When they are heavy,
 * every test with a history takes them (mcpp_metric_heavy_tails). Sets
 * r->history_scores (0: too few runs to read, the suite's own fit stands). */
static int history_tails(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m)
{
    size_t n = 0;
    for (size_t i = 0; i < m; i++) n += tests[i]->n_history_scores;
    if (n < HISTORY_MIN_SCORES) return MCPP_OK;
    double *z = malloc(n * sizeof *z);
    if (!z) return mcpp_error_nomem();
    n = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < tests[i]->n_history_scores; j++) z[n++] = tests[i]->history_scores[j];
    double scale, df = mcpp_stats_t_tail_fit(z, n, &scale);
    free(z);
    r->history_scores = n;
    r->history_tail_df = df < 20 ? df : INFINITY;
    r->history_tail_scale = df < 20 ? scale : 1;
    /* every candidate of a pooled group carries the group's result */
    for (size_t e = 0; e < r->n && df < 20; e++)
        for (size_t k = 0; k < r->entries[e].n_metrics; k++)
            if (r->entries[e].metrics[k].n_history_scores)
                mcpp_metric_heavy_tails(&r->entries[e].metrics[k].result, scale, df);
    return MCPP_OK;
}

/* The variance a suite's tests agree on (mcpp_stats_prior_df of var[i] with
 * df[i] degrees of freedom, n of them) in *agreed, and its weight in degrees
 * of freedom: at most all of theirs, 0 with fewer than SUITE_MIN_TESTS. */
static double agreed_variance(const double *var, const double *df, size_t n, double *agreed)
{
    double total = 0;
    for (size_t i = 0; i < n; i++) total += df[i];
    if (n < SUITE_MIN_TESTS) return 0;
    double d0 = mcpp_stats_prior_df(var, df, n, agreed);
    return d0 < total ? d0 : total;
}

/* Every pair of one lane's earlier runs, (x_i - x_j) / sqrt(2 b), both
 * signs, for each test whose history the gate pooled (b: its between-jobs
 * variance, in b_var[i]): how two runs of unchanged code differ, in one
 * run's standard deviations. The lane's own level cancels in each pair, so
 * no lane's mean, estimated from its 20 runs, blurs the shape (centred on
 * their means, the runs of a machine in two states smeared its two states
 * by a fifth of their distance). A malloc'd array, its length in *n; NULL
 * when out of memory. */
static double *history_pairs(gate_metric_entry *const *tests, size_t m, const double *b_var, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < m; i++)
        if (b_var[i] > 0) total += tests[i]->n_history_scores * (tests[i]->n_history_scores - 1);
    double *pairs = malloc((total ? total : 1) * sizeof *pairs);
    if (!pairs) return NULL;
    *n = 0;
    for (size_t i = 0; i < m; i++) {
        const double *x = tests[i]->history_values;
        double unit = b_var[i] > 0 ? 1 / sqrt(2 * b_var[i]) : 0;
        for (size_t a = 0; unit > 0 && a < tests[i]->n_history_scores; a++)
            for (size_t c = 0; c < a; c++) {
                pairs[(*n)++] = (x[a] - x[c]) * unit;
                pairs[(*n)++] = (x[c] - x[a]) * unit;
            }
    }
    return pairs;
}

/* The pooled history's shape for `per_side` runs a side from n_pairs >= 2
 * pairs, built once per count; NULL when out of memory. */
static const mcpp_null_shape *null_shape_for(mcpp_gate_report *r, const double *pairs, size_t n_pairs,
                                             size_t per_side)
{
    for (size_t i = 0; i < r->n_null_shapes; i++)
        if (r->null_shapes[i]->per_side == per_side) return r->null_shapes[i];
    /* each shape has its own block: results keep pointers to the earlier ones */
    mcpp_null_shape **grown = realloc(r->null_shapes, (r->n_null_shapes + 1) * sizeof *grown);
    if (!grown) return NULL;
    r->null_shapes = grown;
    mcpp_null_shape *s = calloc(1, sizeof *s);
    if (!s || mcpp_null_shape_build(s, pairs, n_pairs, r->history_scores, per_side) || !s->n) {
        if (s) mcpp_null_shape_free(s);
        free(s);
        return NULL;
    }
    return grown[r->n_null_shapes++] = s;
}

/* The history source (docs/statistics.md, "The lanes' history"). Each
 * lane's earlier runs, each from a job of its own, say what separate jobs
 * differ by; but twenty runs a lane are 19 degrees of freedom, too few for
 * the one-in-a-thousand p-values a gate over 50 tests needs (a t quantile
 * 18% above the normal one). Pooled the way the suite pools its runs
 * (Smyth's moderated variances: each lane's variance shrinks toward the one
 * the lanes agree on, as far as they agree), they give each test hundreds.
 * The runs at hand, shrunk with the same weight, say what runs of one job
 * differ by; with one run a side the between-jobs figure is all there is
 * (mcpp_metric_job_noise puts the two together). This replaces
 * each test's own blend of its history, its runs and the policy's declared
 * figure. Only when the history has read the tails as normal
 * (history_tails): heavy tails make the lanes' variances disagree by chance
 * far more than a chi-square says, and the pooling would take that for
 * lanes of their own (noise lab, heavy-tailed, 3 runs a side: 71% of 30%
 * slowdowns found instead of 99%). Tests whose runs are draws like the
 * history's read their p-value from the shape of its pairs instead of a t
 * (null_shape.h: a machine in two states never moves a benchmark by more
 * than their distance). 0 or MCPP_ENOMEM; `scratch` holds 2m doubles. */
static int apply_history_noise(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, double *scratch)
{
    if (!r->history_scores || !isinf(r->history_tail_df)) return MCPP_OK;
    size_t n = 0;
    for (size_t i = 0; i < m; i++)
        if (tests[i]->history_df > 0 && tests[i]->history_ss > 0)
            scratch[n] = tests[i]->history_ss / tests[i]->history_df, scratch[m + n++] = tests[i]->history_df;
    double agreed, between_w = agreed_variance(scratch, scratch + m, n, &agreed);
    if (!(between_w > 0)) return MCPP_OK;
    /* The centers are the pooled variances, not agreed_variance's: its
     * chi-square correction of the mean log variance overshoots for runs
     * with light tails (noise lab, bimodal: 7% too high, which read as a
     * job effect between the history and the runs at hand and cost half the
     * power at 10% with 5 runs a side). */
    /* Within a job: the runs at hand, pooled over the lanes, and weighed as
     * far as the lanes' histories agree (their 19 df a lane read that far
     * more steadily than 2-4 df of runs: agreed_variance over the runs alone
     * came out under 20 df in half of the noise lab's Gaussian merges, and
     * their few df then ruled each test's). */
    double between_ss = 0, between_df = 0, within_ss = 0, within_df = 0;
    for (size_t i = 0; i < m; i++)
        if (tests[i]->history_df > 0) {
            between_ss += tests[i]->history_ss, between_df += tests[i]->history_df;
            within_ss += tests[i]->runs_ss, within_df += tests[i]->runs_df;
        }
    double between_var = between_ss / between_df;
    double within_w = within_df < between_w ? within_df : between_w;
    double within_var = within_df > 0 ? within_ss / within_df : 0;
    r->history_lane_df = between_w;
    for (size_t i = 0; i < m; i++) { /* each lane's between-jobs variance, as below */
        const gate_metric_entry *t = tests[i];
        scratch[i] =
            t->history_df > 0 ? mcpp_stats_moderated_var(between_var, between_w, t->history_ss, t->history_df) : 0;
    }
    size_t n_pairs;
    double *pairs = history_pairs(tests, m, scratch, &n_pairs);
    if (!pairs) return mcpp_error_nomem();
    int rc = MCPP_OK;
    /* every candidate of a pooled group carries the group's result */
    for (size_t e = 0; e < r->n && rc == MCPP_OK; e++)
        for (size_t k = 0; k < r->entries[e].n_metrics && rc == MCPP_OK; k++) {
            gate_metric_entry *g = &r->entries[e].metrics[k];
            if (!g->has_result || !(g->history_df > 0)) continue;
            double b_df = between_w + g->history_df;
            double b_var = mcpp_stats_moderated_var(between_var, between_w, g->history_ss, g->history_df);
            double w_df = within_w + g->runs_df;
            double w_var = mcpp_stats_moderated_var(within_var, within_w, g->runs_ss, g->runs_df);
            /* No job effect beyond chance (Bancroft's preliminary test at 25%,
             * log F about normal at these df): one variance of both, with
             * both df. Otherwise se² = w (f - 2) + 2 b, a difference of two
             * estimates whose df are far fewer than either's. */
            int independent = 1;
            if (!(w_var > 0)) {
                w_var = b_var, w_df = b_df;
            } else if (log(b_var / w_var) < 0.6745 * sqrt(2 / b_df + 2 / w_df)) {
                b_var = w_var = (b_df * b_var + w_df * w_var) / (b_df + w_df);
                b_df = w_df = b_df + w_df;
            } else {
                independent = 0;
            }
            mcpp_metric_job_noise(&g->result, w_var, w_df, b_var, b_df);
            g->history_noise = 1;
            /* Runs as independent as the history's own (one a side, or no
             * job effect), as many a side: the change is a sum of
             * differences of two such runs, and the history's pairs, not a
             * t, say how far off it strays. */
            mcpp_metric_result *res = &g->result;
            if (!independent || res->n_base != res->n_cand || n_pairs < 2) continue;
            const mcpp_null_shape *shape = null_shape_for(r, pairs, n_pairs, res->n_base);
            if (!shape) rc = mcpp_error_nomem();
            mcpp_metric_null_shape(res, shape);
            r->history_shaped += res->null_shape && r->entries[e].group == e;
        }
    free(pairs);
    return rc;
}

/* Below this many pooled degrees of freedom the suite's runs are too few to
 * stand in for the policy's declared run-to-run noise. */
#define SUITE_MIN_DF 10

/* The suite source (docs/statistics.md). When the gate's tests have runs a
 * side, their spreads about each side's own mean pool into one run-to-run
 * variance of this machine today (real changes do not enter it), which
 * replaces the policy's declared figure as every test's prior
 * (mcpp_metric_moderate). Otherwise, with one run a side, the spread of the
 * tests' changes is a floor under each test's noise (suite_run_noise). */
static void apply_suite_noise(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, double *scratch)
{
    double ss = 0, df = 0;
    for (size_t i = 0; i < m; i++)
        if (!tests[i]->result.history_runs) ss += tests[i]->runs_ss, df += tests[i]->runs_df;
    /* the declared figure's df (its suite's: the first test's when they differ) */
    double weight = m && tests[0]->declared_df > 0 ? tests[0]->declared_df : 20;
    if (df >= SUITE_MIN_DF) {
        size_t n = 0;
        for (size_t i = 0; i < m; i++)
            if (!tests[i]->result.history_runs && tests[i]->runs_df > 0)
                scratch[n] = tests[i]->runs_ss / tests[i]->runs_df, scratch[m + n++] = tests[i]->runs_df;
        /* With enough tests, how far their variances agree says how much the
         * suite's figure weighs against each test's own; with few, the
         * policy's run_to_run_df says it. */
        double agreed_var, d0 = agreed_variance(scratch, scratch + m, n, &agreed_var);
        double prior_var = d0 > 0 ? agreed_var : ss / df;
        if (d0 > 0) weight = d0;
        r->suite_run_sd = sqrt(prior_var);
        r->suite_df = weight;
        /* The runs of one side share their job. With enough tests the suite
         * measures what the two jobs differ by instead of the policy: when
         * the tests' changes spread more than their runs explain, each test's
         * standard error rises to that spread. */
        double jobs_df, jobs_sd = suite_run_noise(tests, m, scratch, 0, 0, &jobs_df, &r->suite_heavy_tails);
        for (size_t i = 0; i < r->n; i++)
            for (size_t k = 0; k < r->entries[i].n_metrics; k++) {
                gate_metric_entry *g = &r->entries[i].metrics[k];
                mcpp_metric_result *res = &g->result;
                if (!g->has_result || g->history_noise) continue;
                if (jobs_sd > 0) mcpp_metric_drop_between(res);
                mcpp_metric_moderate(res, g->runs_ss, g->runs_df, prior_var, weight);
                if (jobs_sd > 0)
                    mcpp_metric_raise_between(res, jobs_sd * sqrt(1 / (double)res->n_base + 1 / (double)res->n_cand),
                                              jobs_df);
            }
        return;
    }
    /* Heavy tails the history read stand for the suite's own fit, but for a
     * single run a side: there one far-off run is the whole side, and the
     * history's per-lane spread of 20 heavy-tailed runs is too unsteady to
     * be the only guard (noise lab, heavy-tailed, 1 run: 5.5% of unchanged
     * merges failing without the suite's fit, 1.5% with it). */
    int one_run = 0;
    for (size_t i = 0; i < m; i++) one_run |= tests[i]->result.n_base == 1 || tests[i]->result.n_cand == 1;
    int tails_known = r->history_scores && (isinf(r->history_tail_df) || !one_run);
    double floor_df, floor_sd = r->suite_run_sd =
        suite_run_noise(tests, m, scratch, 1, tails_known, &floor_df, &r->suite_heavy_tails);
    r->suite_df = floor_df;
    /* Tests whose noise the pooled history gives take the floor only for
     * heavy tails the suite found itself; history_spread_check guards them. */
    for (size_t i = 0; i < r->n && floor_sd > 0; i++)
        for (size_t k = 0; k < r->entries[i].n_metrics; k++) {
            gate_metric_entry *g = &r->entries[i].metrics[k];
            if (g->has_result && (!g->history_noise || r->suite_heavy_tails))
                mcpp_metric_raise_noise(&g->result, floor_sd, floor_df);
        }
}

/* The one-sided level at which today's tests must contradict the history
 * before the gate stops trusting it. */
#define HISTORY_CHECK_LEVEL 0.05

/* The first of tests[0..i] with test i's metric. */
static size_t first_of_metric(gate_metric_entry *const *tests, size_t i)
{
    size_t j = 0;
    while (j < i && strcmp(tests[j]->result.metric, tests[i]->result.metric) != 0) j++;
    return j;
}

/* The common shift (docs/statistics.md). On a busy machine all benchmarks of
 * a run can move together: the machine slowed between the baselines' runs
 * and the candidates'. The median of the tests' log changes measures that
 * shift: taken whole beyond two of its standard errors, below that shrunk
 * toward none as far as its own noise could have made it (the positive part
 * of James and Stein's estimate, the shift's variance read as median² -
 * se²), and none within one. Where the benchmarks of a run move on their
 * own, the median of their changes is noise of its own, and the slowed ones
 * pull it their way (noise lab, 3 runs a side with a history, 200 merges,
 * power at 10%: bimodal 21.0% -> 22.9%, Gaussian 12.8% -> 15.6%); shrunk all
 * the way up, a real drift is under-taken by se²/median (slow drift, one
 * run a side with a history: 6.5% of 200 unchanged merges failing, 5.0%
 * taken whole). Within the allowance it is read as the machine's, and each
 * test asks whether its benchmark moved beyond it (the standard error
 * widened by the shift's own uncertainty, about pi/2 over the test count for
 * the median). A shift that the suite establishes beyond the allowance (by
 * z_q of the median's standard error: a machine that drifts by exactly the
 * allowance is not enough, slow drift, one run a side with a history: 19.5%
 * of 200 unchanged merges failing when a shift a hair beyond it counted) is
 * a regression of the whole suite: the tests then stay against no change, so
 * every benchmark beyond the allowance fails. Per metric name (a shift of
 * seconds says nothing of tokens/s), with SUITE_MIN_TESTS tests or more.
 * For each test, shift[i] is the log change (worse is positive) it is
 * measured from (the median when the whole suite regressed) and widen[i] the
 * factor on its standard error when it is tested against that shift, 0 when
 * it stays against no change. `scratch` holds 2m doubles. */
static void common_shifts(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, double q, double *shift,
                          double *widen, double *scratch)
{
    for (size_t i = 0; i < m; i++) shift[i] = widen[i] = 0;
    for (size_t i = 0; i < m; i++) {
        const char *metric = tests[i]->result.metric;
        size_t j, n = 0;
        if (first_of_metric(tests, i) < i) continue;
        for (j = i; j < m; j++)
            if (strcmp(tests[j]->result.metric, metric) == 0)
                scratch[n++] = (tests[j]->result.higher_is_better ? -1 : 1) * log1p(tests[j]->result.rel_delta);
        if (n < SUITE_MIN_TESTS) continue;
        double median = mcpp_median_sorting(scratch, n); /* worse is positive */
        for (j = 0; j < n; j++) scratch[n + j] = fabs(scratch[j] - median);
        double se = 1.2533 * 1.4826 * mcpp_median_sorting(scratch + n, n) / sqrt((double)n);
        double beyond = median - log1p(tests[i]->allowance);
        int regressed = beyond > 0 && beyond >= mcpp_stats_normal_quantile(1 - q) * se;
        double z2 = median * median / (se * se); /* the median in its standard errors, squared */
        double kept = z2 > 4 ? 1 : z2 > 1 ? 1 - 1 / z2 : 0;
        double at = regressed ? median : kept * median;
        double factor = !regressed && kept > 0 ? sqrt(1 + kept * kept * 1.5708 / (double)n) : 0;
        if (regressed) r->suite_regressed = 1;
        if (regressed || i == 0) r->suite_shift = expm1(at);
        for (j = i; j < m; j++)
            if (strcmp(tests[j]->result.metric, metric) == 0)
                shift[j] = at, widen[j] = factor;
    }
}

/* Tests each benchmark against the shift its suite shares (common_shifts);
 * every candidate of a pooled group carries the group's result. */
static void center_on_common_shifts(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m,
                                    const double *shift, const double *widen)
{
    for (size_t i = 0; i < m; i++) {
        if (!(widen[i] > 0) || first_of_metric(tests, i) < i) continue;
        for (size_t e = 0; e < r->n; e++)
            for (size_t k = 0; k < r->entries[e].n_metrics; k++) {
                mcpp_metric_result *res = &r->entries[e].metrics[k].result;
                if (r->entries[e].metrics[k].has_result && strcmp(res->metric, tests[i]->result.metric) == 0)
                    mcpp_metric_center(res, (res->higher_is_better ? -1 : 1) * shift[i], widen[i]);
            }
    }
}

/* Whether the machine is as noisy today as the lanes' history says. Each
 * test with the history's noise (apply_history_noise) turns its change
 * beyond the common shift (shift[i], common_shifts) into standard errors,
 * and the root mean square of those below none, its betterments
 * (regressions cannot enter it; spread_of_changes), is 1 on a machine like
 * its history. About the shift, not their median: the slowed benchmarks pull
 * the median their way, and so the betterments' spread about it (noise lab,
 * bimodal, 3 runs a side, 40 merges: 12.5% of the merges with 10%
 * slowdowns widened, 7.5% of the unchanged ones).
 * When it is larger beyond chance (its square beyond the chi-square
 * quantile of its degrees of freedom at HISTORY_CHECK_LEVEL, by Wilson and
 * Hilferty's approximation), every such test widens by it, with its degrees
 * of freedom. `scratch` holds 2m doubles. */
static void history_spread_check(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, const double *shift,
                                 double *scratch)
{
    size_t n = 0;
    for (size_t i = 0; i < m; i++) {
        const mcpp_metric_result *res = &tests[i]->result;
        if (tests[i]->history_noise && res->se > 0)
            scratch[n++] = ((res->higher_is_better ? -1 : 1) * log1p(res->rel_delta) - shift[i]) / res->se;
    }
    double df;
    int heavy;
    double ratio = spread_of_changes(scratch, n, 0, 0, 1, &df, &heavy);
    if (!(df >= 2)) return;
    double a = 2 / (9 * df), chi = 1 - a + mcpp_stats_normal_quantile(1 - HISTORY_CHECK_LEVEL) * sqrt(a);
    r->history_spread = ratio;
    if (!(ratio * ratio > chi * chi * chi)) return;
    r->history_widened = 1;
    for (size_t e = 0; e < r->n; e++)
        for (size_t k = 0; k < r->entries[e].n_metrics; k++)
            if (r->entries[e].metrics[k].has_result && r->entries[e].metrics[k].history_noise)
                mcpp_metric_widen(&r->entries[e].metrics[k].result, ratio, df);
}

/* Multiplicity control over every metric test of the gate: first the suite
 * floor on each test's run-to-run noise (suite_run_sd), then one
 * Benjamini–Hochberg cutoff at q = (1 - confidence) / 2 (one-sided, as each
 * single test), so that on an unchanged merge the gate fails with at most
 * that probability however many benchmarks it covers. Then each compared
 * metric is decided against the cutoff, and each candidate from its metrics. */
static int decide_all(mcpp_gate_report *r, const mcpp_policy *p)
{
    size_t m = lane_tests(NULL, r, NULL, 0);
    gate_metric_entry **tests = malloc((m + 1) * sizeof *tests);
    double *pv = malloc((4 * m + 1) * sizeof *pv), *shift = pv + 2 * m, *widen = pv + 3 * m;
    unsigned char *shared = malloc(r->n + 1);
    int rc = tests && pv && shared ? mark_shared_baselines(r, shared) : mcpp_error_nomem();
    if (rc) {
        free(tests);
        free(pv);
        free(shared);
        return rc;
    }
    /* What the suite measures comes from one test per baseline side (the
     * first ms of tests); every test is decided and counted (all m). */
    size_t ms = lane_tests(tests, r, shared, 0);
    lane_tests(tests + ms, r, shared, 1);
    free(shared);
    double q = (1 - p->gate.confidence) / 2;
    rc = history_tails(r, tests, ms);
    if (rc == MCPP_OK) rc = apply_history_noise(r, tests, ms, pv);
    if (rc) {
        free(tests);
        free(pv);
        return rc;
    }
    apply_suite_noise(r, tests, ms, pv);
    if ((rc = mcpp_gate_history_medians(r, tests, ms, q)) != MCPP_OK) {
        free(tests);
        free(pv);
        return rc;
    }
    common_shifts(r, tests, ms, q, shift, widen, pv);
    history_spread_check(r, tests, ms, shift, pv);
    center_on_common_shifts(r, tests, ms, shift, widen);
    for (size_t j = 0; j < m; j++) pv[j] = tests[j]->result.p_value;
    free(tests);
    double cutoff = m > 1 ? mcpp_stats_bh_cutoff(pv, m, q, pv + m) : q;
    /* Before any discovery the least p that would be one is q/m: the level to report. */
    double threshold = cutoff >= 0 ? cutoff : m ? q / (double)m : q;
    free(pv);
    r->tests = m;
    r->fdr_q = q;
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

/* Groups the candidates into lanes: group_of[i] is the first candidate of
 * candidate i's group, whose members share its lane key and git commit and
 * compare as comparable or qualified with it (the runs of the new code in
 * that lane). Leaders of equal key hash are chained, so this is linear in
 * the candidates for distinct lanes. Returns 0 or an error. */
static int group_candidates(size_t *group_of, const mcpp_policy *p, const mcpp_receipt *const *cands, size_t nc)
{
    size_t cap = 16;
    int commit_id = mcpp_schema_field_id("source.git_commit");
    while (cap < 2 * nc) cap *= 2;
    size_t *head = malloc(cap * sizeof *head), *chain = malloc((nc ? nc : 1) * sizeof *chain);
    uint64_t *hash = malloc((nc ? nc : 1) * sizeof *hash);
    int rc = head && chain && hash ? MCPP_OK : mcpp_error_nomem();
    for (size_t i = 0; rc == MCPP_OK && i < cap; i++) head[i] = SIZE_MAX;
    for (size_t i = 0; rc == MCPP_OK && i < nc; i++) {
        hash[i] = mcpp_lane_key_hash(p, cands[i]);
        size_t slot = (size_t)hash[i] & (cap - 1), leader = SIZE_MAX;
        for (size_t l = head[slot]; l != SIZE_MAX && leader == SIZE_MAX; l = chain[l]) {
            mcpp_verdict v;
            if (hash[l] != hash[i] || !same_commit(cands[l], cands[i], commit_id) ||
                !mcpp_lane_same(p, cands[l], cands[i]))
                continue;
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
    free(head);
    free(chain);
    free(hash);
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

/* The runs of candidate i's group, candidate i first, into cg (runs holds nc). */
static void group_runs(cand_group *cg, const size_t *group_of, const size_t *group_next,
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
    if (!p) return MCPP_ENOMEM;
    mcpp_gate_report *r = calloc(1, sizeof *r);
    MCPP_CHECK_ALLOC(r);
    int rc = MCPP_OK;
    r->entries = calloc(nc ? nc : 1, sizeof *r->entries);
    r->policy_name = strdup(p->name ? p->name : "");
    mcpp_policy_digest_fill(r->policy_digest, p);
    if (!r->entries || !r->policy_name || (rc = gate_metric_names(&r->metric_name, p)) != 0) {
        rc = mcpp_error_nomem();
        goto fail;
    }
    size_t *group_of = malloc(3 * (nc ? nc : 1) * sizeof *group_of);
    size_t *group_next = group_of ? group_of + (nc ? nc : 1) : NULL, *tail = group_next ? group_next + (nc ? nc : 1) : NULL;
    cand_group cg = {malloc((nc ? nc : 1) * sizeof *cg.runs), 0};
    baseline_index bix = {0, NULL, NULL, NULL, NULL};
    if (!group_of || !cg.runs || (rc = group_candidates(group_of, p, candidates, nc)) != 0 ||
        (rc = baseline_index_build(&bix, p, baselines, nb)) != 0) {
        rc = rc ? rc : mcpp_error_nomem();
        free(group_of);
        free(cg.runs);
        baseline_index_free(&bix);
        goto fail;
    }
    link_groups(group_next, tail, group_of, nc);
    for (size_t i = 0; i < nc && rc == MCPP_OK; i++) {
        gate_entry *e = &r->entries[i];
        r->n = i + 1;
        e->group = group_of[i];
        const char *id = mcpp_receipt_id(candidates[i]);
        group_runs(&cg, group_of, group_next, candidates, i);
        if (!(e->id = strdup(id ? id : ""))) rc = mcpp_error_nomem();
        else if ((rc = mcpp_gate_explain_candidate(&e->why, p, candidates[i])) == 0)
            rc = gate_one(e, p, baselines, nb, &bix, &cg, dropped ? dropped + 2 * i : NULL, history, nh);
    }
    free(group_of);
    free(cg.runs);
    baseline_index_free(&bix);
    if (rc) goto fail;
    if ((rc = decide_all(r, p)) != 0) goto fail;
    size_t failed = 0, undetermined = 0;
    for (size_t i = 0; i < nc; i++) {
        failed += r->entries[i].outcome == MCPP_GATE_FAILED;
        undetermined += r->entries[i].outcome == MCPP_GATE_UNDETERMINED;
    }
    if ((rc = mcpp_gate_explain_display_labels(r->entries, nc, p, candidates)) != 0) goto fail;
    mcpp_strbuf reason;
    mcpp_sb_init_heap(&reason, 256);
    /* A definite regression outranks an undetermined pair: both fail the gate,
     * and the regression is the more specific news. */
    if (failed) {
        r->outcome = MCPP_GATE_FAILED;
        if (p->n_gate_metrics > 1)
            mcpp_sb_printf(&reason, "%zu of %zu candidate%s regressed beyond a metric's allowance", failed, nc,
                           nc == 1 ? "" : "s");
        else
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
        if (p->n_gate_metrics > 1)
            mcpp_sb_printf(&reason, "all %zu candidate%s comparable, no regression beyond any metric's allowance "
                           "established", nc, nc == 1 ? "" : "s");
        else
            mcpp_sb_printf(&reason, "all %zu candidate%s comparable, no regression beyond %.1f%% established", nc,
                           nc == 1 ? "" : "s", p->gate.max_regression * 100);
    }
    if (r->tests > 1) {
        mcpp_sb_printf(&reason, " (%zu tests, Benjamini-Hochberg false discovery rate %.1f%%", r->tests,
                       r->fdr_q * 100);
        if (r->suite_run_sd > 0) mcpp_sb_printf(&reason, ", run-to-run %.1f%% as the suite shows", r->suite_run_sd * 100);
        if (r->suite_heavy_tails) mcpp_sb_printf(&reason, " with heavy tails (t, %.0f df)", r->suite_df);
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
