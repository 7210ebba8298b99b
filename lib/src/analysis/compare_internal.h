/*
 * compare_internal.h — shared pieces of the comparison, gate, frontier and
 * claim code: a growable text buffer, canonical value text, and the headline
 * metric values of a receipt.
 */
#ifndef MCPP_COMPARE_INTERNAL_H
#define MCPP_COMPARE_INTERNAL_H

#include <stdarg.h>

#include "mcpp_receipts/compare.h"
#include "policy/policy_internal.h"
#include "receipt/fields.h"
#include "util/hash.h"
#include "util/strbuf.h"

/* ---- Text (the buffer is util/strbuf.h, the escapers util/escape.h) ----------- */

/* Appends (when t is not NULL) one receipt's fired fallbacks (from the string
 * lists `list_ids`) and every requested != observed pair, separated by `sep`;
 * returns how many there are. (compare.c) */
size_t mcpp_fallback_items(const int *list_ids, size_t n_lists, const mcpp_receipt *r, mcpp_strbuf *t, const char *sep);

/* The same count without text, read straight from the receipt's slots. */
size_t mcpp_fallback_count(const int *list_ids, size_t n_lists, const mcpp_receipt *r);

/* Whether r's request was not met under policy p (its fallbacks list fired,
 * or a requested != observed pair): the count, and when `t` is not NULL
 * "request not met: ITEMS" appended to it (nothing when 0). The words the
 * frontier excludes a run from a headline with, which the lane history and
 * the gate set it aside with. (compare.c) */
size_t mcpp_request_not_met(const mcpp_policy *p, const mcpp_receipt *r, mcpp_strbuf *t);

/* What one receipt says its metric is (strings borrowed from the receipt or static). */
typedef struct mcpp_metric_ident {
    const char *name; /* "tokens_per_s"; a FIELD reference's path */
    const char *unit; /* NULL when the receipt does not state one */
    int higher_is_better;
} mcpp_metric_ident;

/* The side(s) a value is absent on, as the reasons write it: "both sides",
 * "base" or "cand" (one of has_base, has_cand is 0). */
static inline const char *mcpp_absent_sides(int has_base, int has_cand)
{
    return !has_base && !has_cand ? "both sides" : !has_base ? "base" : "cand";
}

/* The `quality` dimension of a pair (quality_check.c): qualify when the two
 * name different quality metrics or targets, or reached unequal quality
 * (throughput at unequal quality); why into `why` (NULL: no text). */
mcpp_dim_status mcpp_quality_status(const mcpp_receipt *b, const mcpp_receipt *c, mcpp_strbuf *why);

/* What quality.achieved (or .target) of r is as a metric: named by its
 * quality.metric, in that metric's direction (data/quality_metrics.tsv). 0
 * when r names no metric or one the registry does not know: then it is not
 * compared (quality_check.c). */
int mcpp_quality_metric_ident(mcpp_metric_ident *ident, const mcpp_receipt *r);

/* Renders a comparison's rows if they are not yet (they are made when first
 * read, from the receipts and policy view the comparison holds). MCPP_OK, or
 * MCPP_ENOMEM with the last error set; safe from several threads at once.
 * Renderers call it first so a failure is reported, not drawn as no rows. */
int mcpp_comparison_explain(const mcpp_comparison *comparison);

/* ---- Headline values (compare_metric.c) ----------------------------------------------- */

/* Values of the headline metric pooled over receipts of one side. */
typedef struct mcpp_metric_side {
    double *steps; /* per-sample values of all receipts that had samples of one kind (lanes) */
    size_t n_steps, cap_steps;
    double *runs; /* log of each run's value: one per receipt, or each "run" sample */
    size_t n_runs, cap_runs;
    size_t split_runs; /* runs whose samples lie in two modes */
    double within_var; /* sum over the runs of the variance of their log value from within-run samples */
    int unloggable;    /* a run value <= 0 or not finite: no log scale, so no interval */
    double *stated; /* the stated (or derived) metric, one per receipt */
    size_t n_stated, cap_stated;
    size_t receipts;      /* receipts added */
    size_t with_samples;  /* of those, how many gave sample values */
    mcpp_metric_ident ident;  /* of the first receipt added */
    const char *sample_kind;  /* of the first receipt with samples ("step", "round", ...) */
    const char *suite;        /* benchmark.suite of the first receipt that states one: the
                                 policy may declare that suite's own run-to-run noise */
    /* Set when a later receipt names another metric, unit or direction than
     * the first: what differs ("metric", "unit", "direction") and its ident. */
    const char *conflict;
    mcpp_metric_ident other;
} mcpp_metric_side;

void mcpp_metric_side_free(mcpp_metric_side *s);
/* Adds one receipt's values. Returns 1 when it had the metric, 0 when not,
 * MCPP_ENOMEM on allocation failure. */
int mcpp_metric_side_add(mcpp_metric_side *s, const mcpp_policy *p, const mcpp_metric_ref *m,
                         const mcpp_receipt *r);

/* The stated (or derived) value of the metric in one receipt, without
 * allocating: 1 when it has one, else 0. `ident` (may be NULL) gets the
 * metric's name, unit and direction. */
int mcpp_metric_stated(double *out, mcpp_metric_ident *ident, const mcpp_policy *p, const mcpp_metric_ref *m,
                       const mcpp_receipt *r);

/* The stated value of `metric` (a name mcpp_metric_ref_init takes) in r, as
 * the analyses read it: 1 when r has it, 0 when not, MCPP_EARG for a
 * malformed name (the store's metric column and history use it). */
int mcpp_metric_value(double *out, const char *metric, const mcpp_receipt *r);
/* 1 when a receipt must state `metric` for it to mean anything: a name
 * that is not "primary" nor a schema path; for a policy, one of its gate
 * metrics is such a name. */
int mcpp_metric_named(const char *metric);
int mcpp_policy_metrics_named(const mcpp_policy *policy);
/* mcpp_metric_check_stated for a metric the policy named `policy_name` gates
 * on (NULL: the caller named it), the message naming the policy; with
 * `misspelt_only`, only a name close to a stated one is refused
 * (input_names.c). */
int mcpp_metric_check_stated_in(const char *metric, const mcpp_receipt *const *receipts, size_t n,
                                const char *policy_name, int misspelt_only);

/* 1 when two idents name the same metric with the same unit and direction;
 * else 0 with `what` set to the first difference ("metric", "unit", "direction"). */
int mcpp_metric_ident_same(const mcpp_metric_ident *a, const mcpp_metric_ident *b, const char **what);

/* 1 when both sides hold one metric with one unit and direction (so their
 * values may be compared); else 0 with the reason appended to `why`. */
int mcpp_metric_sides_agree(const mcpp_metric_side *base, const mcpp_metric_side *cand, mcpp_strbuf *why);

/* mcpp_compare_verdict(p, r, r) without the rows that cannot fire when a
 * receipt meets itself (qualifying dimensions, fallbacks, the denominator):
 * insufficient or not comparable exactly when that verdict is (the lanes
 * render a receipt's self-comparison rows only then). `p` must not be NULL. */
int mcpp_compare_self_verdict(mcpp_verdict *out, const mcpp_policy *p, const mcpp_receipt *r);

/* Compares two sides (that agree: mcpp_metric_sides_agree) into *out at
 * `confidence` by the run-to-run model of compare.h; `history` (NULL: none)
 * holds earlier runs of the lane, which inform only the run-to-run spread.
 * method, metric, unit and noise_source point to static text or the sides'
 * receipts: callers copy what they keep. p_threshold is set for a single
 * test; a gate over many replaces it (mcpp_metric_threshold_for). Returns 0,
 * or MCPP_ENOMEM. */
int mcpp_metric_compare(mcpp_metric_result *out, const mcpp_policy *p, double confidence,
                        const mcpp_metric_side *base, const mcpp_metric_side *cand,
                        const mcpp_metric_side *history);

/* Raises a compared result's run-to-run noise to a gate's suite-wide
 * estimate: its scale to `run_sd` when that is larger (taking the suite's
 * `df` with it), its degrees of freedom down to `df` when those are fewer
 * (heavier tails; 0: keep them). Widens the interval and p-value to match and
 * adds "suite" to the noise source; no effect when neither is the case. */
void mcpp_metric_raise_noise(mcpp_metric_result *m, double run_sd, double df);

/* Gives a compared result the heavy tails its lanes' history shows: a single
 * run lands off as a Student t with `df` degrees of freedom at `scale` times
 * run_sd would (mcpp_stats_t_tail_fit of the history's normal scores). The
 * p-value becomes at least the chance that one such run alone made the
 * change (tail_df, tail_scale; docs/statistics.md). No effect on point
 * comparisons. */
void mcpp_metric_heavy_tails(mcpp_metric_result *m, double scale, double df);

/* The between-jobs part of a compared result's standard error: dropped
 * (a gate whose suite measures it itself), or raised so that the standard
 * error is at least `se` (with `df`): what a gate's tests with several runs a
 * side show when their changes spread more than their runs explain. Raising
 * adds "suite" to the noise source. */
void mcpp_metric_drop_between(mcpp_metric_result *m);
void mcpp_metric_raise_between(mcpp_metric_result *m, double se, double df);

/* The noise of a compared result whose lane has a history, once the gate has
 * pooled every lane's (gate_noise.c apply_history_noise): what separate jobs differ
 * by (`between_var`, the history's runs each came from a job of their own)
 * and what the runs of one job differ by (`within_var`, from the runs at
 * hand; the between figure itself with one run a side), each with its degrees
 * of freedom. Replaces the result's own blend of history, runs and policy;
 * adds "suite" to the noise source. */
void mcpp_metric_job_noise(mcpp_metric_result *m, double within_var, double within_df, double between_var,
                           double between_df);

/* Reads a compared result's p-value and interval from `shape` (null_shape.h,
 * built for its runs a side) instead of a Student t:
 * a gate whose lanes' pooled history shows the machine's runs are not
 * normal. Only for the plain mean of runs (not MLPerf's olympic mean); the
 * method names it. */
struct mcpp_null_shape;
void mcpp_metric_null_shape(mcpp_metric_result *m, const struct mcpp_null_shape *shape);
/* The smallest worsening (in log scale, > 0) whose p-value is p under the
 * result's current model: what it needs before a change is established. */
double mcpp_metric_detectable(const mcpp_metric_result *m, double p);
/* Rewrites a compared result as the change between the sides' medians of
 * log run values (base_center, cand_center), with standard error se, its
 * p-value and interval from `shape` (median_shape.h); run_sd is one run's
 * standard deviation, tail_df the runs' Student t. Only for the plain mean
 * of runs (a policy's olympic mean stays). */
void mcpp_metric_medians(mcpp_metric_result *m, double base_center, double cand_center, double run_sd, double se,
                         double tail_df, const struct mcpp_null_shape *shape);

/* Widens a compared result's noise by `factor` (> 1) with `df` degrees of
 * freedom: the gate's tests spread more today than their history predicts. */
void mcpp_metric_widen(mcpp_metric_result *m, double factor, double df);

/* Moves a compared result's baseline level by base_move (a log change of
 * the metric's value), the history weighing `weight` in it, and gives its
 * change standard error se: the gate's one baseline run read beside its
 * lane's history (history_anchor.c). */
void mcpp_metric_anchor(mcpp_metric_result *m, double base_move, double weight, double se);

/* Tests the result against a gate's common shift instead of no change: the
 * p-value becomes that of (change - shift), with the standard error widened
 * by `se_factor` for the shift's own uncertainty. The headline and its
 * interval stay the result's own change. `shift` is a log change in the
 * metric's own direction (as log1p(rel_delta)). */
void mcpp_metric_center(mcpp_metric_result *m, double shift, double se_factor);

/* Replaces a compared result's declared run-to-run prior with a gate's
 * suite-wide pooled variance `suite_var` (weighed as `weight` degrees of
 * freedom) moderated by the result's own runs (their sum of squares and
 * degrees of freedom): the empirical-Bayes estimate of docs/statistics.md.
 * No effect on point comparisons or results that used a history. */
void mcpp_metric_moderate(mcpp_metric_result *m, double runs_ss, double runs_df, double suite_var, double weight);

/* The sum of squares of a side's log run values about their mean, and its
 * degrees of freedom (runs - 1). */
void mcpp_metric_side_spread(const mcpp_metric_side *s, double *ss, double *df);

/* The run-to-run figure the policy declares for a comparison of these sides:
 * their benchmark suite's (the baselines', else the candidates'), else
 * noise.run_to_run; either out may be NULL (mcpp_policy_declared_noise). */
void mcpp_metric_declared_noise(const mcpp_policy *p, const mcpp_metric_side *base, const mcpp_metric_side *cand,
                                double *run_to_run, double *run_to_run_df);

#define MCPP_GATE_OUTCOMES 5 /* mcpp_gate_outcome's values, 0 to 4 */

/* Sets what a decision on a compared result needs beyond its p-value, once
 * p_threshold is final: the interval at the level decided (decided_low,
 * decided_high) and, with `inconclusive` (a gate run: a single comparison
 * reports its interval and stays passed or failed), the policy's
 * min_detectable for `allowance` and about how many runs a side would rule
 * it out (runs_to_settle). */
void mcpp_metric_settle(mcpp_metric_result *m, const mcpp_policy *p, double allowance, int inconclusive);

/* The outcome of several decided metrics, from how many had each outcome
 * (counts[outcome], indexed by mcpp_gate_outcome): a breach of any fails;
 * else any undetermined metric (or `nothing_gated`: every metric skipped)
 * leaves it undetermined; else any inconclusive one makes it inconclusive. */
mcpp_gate_outcome mcpp_gate_outcome_of(const size_t counts[MCPP_GATE_OUTCOMES], int nothing_gated);

/* The gate decision for a metric result under `allowance` (max_regression),
 * with its reason line; mcpp_metric_settle must have run. */
mcpp_gate_outcome mcpp_metric_gate(const mcpp_metric_result *m, const mcpp_policy *p, double allowance,
                                   mcpp_strbuf *reason);

/* Renders a metric result as a JSON object, and as text lines. */
void mcpp_metric_render_json(mcpp_strbuf *b, const mcpp_metric_result *m);
void mcpp_metric_render_text(mcpp_strbuf *b, const mcpp_metric_result *m, const char *indent);

#endif /* MCPP_COMPARE_INTERNAL_H */
