/*
 * gate_internal.h — what a gate report holds, shared by the gate (gate.c, its suite statistics in gate_noise.c),
 * its explanations (gate_explain.c) and its renderers (render/gate_render.c,
 * render/gate_junit.c).
 */
#ifndef MCPP_GATE_INTERNAL_H
#define MCPP_GATE_INTERNAL_H

#include "analysis/compare_internal.h"
#include "analysis/metric_change.h"
#include "analysis/median_shape.h"
#include "analysis/null_shape.h"
#include "util/id_set.h"

/* One baseline pooled with a candidate, or set aside. */
typedef struct gate_baseline {
    char *id;
    char *path; /* the file it was loaded from; NULL for receipts built in memory */
    mcpp_verdict verdict;
    char *reason; /* set aside: why (NULL for a pooled one) */
} gate_baseline;

/* One distinct difference (or fired rule) seen between the candidate and
 * `count` baselines: qualifications of the pooled baselines, or, when none
 * could be pooled, what kept the others out. */
typedef struct gate_difference {
    char *dimension, *base, *cand, *reason;
    mcpp_dim_status status;
    int is_rule;  /* a custom rule of the policy, not a dimension */
    int pooled;   /* 1: seen on pooled baselines (a qualification) */
    size_t count; /* baselines that showed exactly this difference */
} gate_difference;

/* Bounds that keep the explanation cheap next to the decision on long
 * histories (10^5 baselines of one lane): at most this many distinct
 * differences per candidate (the rest counted in differences_more), pooled
 * baselines listed (the rest in pooled_omitted), and baselines whose rows are
 * itemised (the rest in unexamined; the decision still uses them all). */
#define GATE_MAX_DIFFERENCES 64
#define GATE_MAX_POOLED_LISTED 1000
#define GATE_MAX_ROWS_EXAMINED 256
/* A candidate with no comparable baseline lists this many set aside with
 * their rows; further baselines of other lanes are counted. */
#define GATE_MAX_OTHER_LANES_LISTED 20

/* Why a candidate was decided as it was, beyond its reason line. */
typedef struct gate_explain {
    char *lane_key, *lane_label, *path;
    char *lane_display; /* the label with what tells the lane from its neighbours (frontier.h) */
    gate_baseline *pooled;
    size_t n_pooled, cap_pooled, pooled_omitted;
    /* Baselines of the candidate's lane it was not pooled with, each with why
     * (the first GATE_MAX_POOLED_LISTED; the rest counted), and those of other
     * lanes (not comparable by their key: counted, never named). */
    gate_baseline *set_aside;
    size_t n_set_aside, cap_set_aside, set_aside_omitted, set_aside_other_lanes;
    char **candidate_runs; /* the ids of the candidate runs pooled as its side (its lane's group) */
    size_t n_candidate_runs;
    gate_difference *diffs;
    size_t n_diffs, cap_diffs, differences_more;
    size_t examined, unexamined; /* baselines whose rows were itemised, or not */
    size_t by_verdict[4]; /* baselines examined, by verdict (dropped ones included) */
    const char *reason_code;   /* static: see mcpp_gate_report_entry_reason_code */
} gate_explain;

/* One metric's decision for one candidate. */
typedef struct gate_metric_entry {
    char *name; /* as the policy names it */
    mcpp_gate_outcome outcome;
    int skipped; /* absent on the candidate and every pooled baseline: not gated */
    char *reason;
    int reason_in_entry; /* reason is the tail of its entry's (finish_one), not a block of its own */
    int has_result;
    mcpp_metric_result result; /* result.metric / .unit point at result_name / result_unit */
    char *result_name, *result_unit;
    const char *code; /* static: the reason code when undetermined (see gate.c) */
    double allowance; /* the metric's max_regression */
    double declared_df; /* the df of the run-to-run figure the policy declares for its suite */
    double runs_ss, runs_df; /* the spread of the pooled runs about each side's mean (mcpp_metric_side_spread) */
    double history_ss, history_df; /* the same of the lane's earlier runs (0: no history compared) */
    size_t split_runs;             /* runs of either side whose samples lie in two modes */
    int history_noise; /* 1: its noise comes from the suite's pooled history (apply_history_noise) */
    double *history_scores; /* the lane's earlier runs as normal scores (mcpp_stats_loo_normal_scores) */
    size_t n_history_scores;
    double *history_values; /* their log values, n_history_scores of them (the shape's pairs) */
    double *base_values, *cand_values; /* with a history: the runs at hand's log values (history_medians.c) */
    size_t n_base_values, n_cand_values;
} gate_metric_entry;

typedef struct gate_entry {
    char *id;
    size_t group; /* the first entry of its lane: candidate runs of one lane are pooled */
    char *reason;
    mcpp_gate_outcome outcome;
    size_t baselines;
    const mcpp_receipt *first_baseline; /* the first of them: entries that share it share their baseline side */
    gate_metric_entry *metrics; /* one per gate metric; none without a comparable baseline */
    size_t n_metrics;
    gate_explain why;
} gate_entry;

/* A candidate in a lane no baseline has (gate_new_lanes.c): its reports say
 * "new lane", and JUnit lists it as skipped (recorded, not gated). */
static inline int gate_entry_is_new_lane(const gate_entry *e)
{
    return e->why.reason_code && strcmp(e->why.reason_code, "new_lane") == 0;
}

/* The outcome as the reports' tables show it: "new lane" for a passed new lane. */
static inline const char *gate_entry_outcome_text(const gate_entry *e)
{
    return e->outcome == MCPP_GATE_PASSED && gate_entry_is_new_lane(e) ? "new lane"
                                                                       : mcpp_gate_outcome_name(e->outcome);
}

/* The first gate metric's result (the single-metric gate's), NULL when it
 * was not compared. */
static inline const mcpp_metric_result *gate_first_result(const gate_entry *e)
{
    return e->n_metrics && e->metrics[0].has_result ? &e->metrics[0].result : NULL;
}

/* A receipt the gate left out because its own tool marked it not ok
 * (gate_status.c). `side` is static: "baseline", "history" or "candidate". */
typedef struct gate_left_out {
    char *id, *status;
    const char *side;
} gate_left_out;

typedef struct gate_input_error {
    char *path, *message;
    int skipped_on_request;
} gate_input_error;

struct mcpp_gate_report {
    gate_entry *entries;
    size_t n;
    mcpp_gate_outcome outcome;
    char *reason;      /* the overall reason (names unread inputs when there are some) */
    char *gated_reason; /* the reason from the candidates alone */
    char *metric_name; /* the gate metric(s) as the policy names them, joined by ", " */
    gate_input_error *inputs;
    size_t n_inputs, cap_inputs;
    char *policy_name; /* the policy the gate ran under, and its content digest */
    char policy_digest[MCPP_POLICY_DIGEST_LEN + 1];
    size_t tests;  /* metric tests under the multiplicity control */
    double fdr_q;  /* its false discovery rate (one-sided, (1 - confidence) / 2) */
    double suite_run_sd; /* the run-to-run noise its tests showed (docs/statistics.md); 0: too few tests */
    double suite_df;     /* its degrees of freedom */
    int suite_heavy_tails;     /* one run a side, suite_df are the tails' of a Student t: the betterments
                                  read (0: not heavy) */
    size_t history_tails_kept; /* tests that kept the history's tails: the suite's few changes tell none */
    size_t split_rounds;       /* of the others, tests whose runs' samples lie in two modes */
    size_t baseline_spikes; /* one run a side: baselines far slower than their history, left out of the suite's fit */
    size_t history_scores; /* earlier runs whose pooled normal scores read the machine's tails (0: too few) */
    double history_tail_df, history_tail_scale; /* their Student t (INFINITY: normal) */
    double history_lane_df; /* the weight of the variance the lanes' histories agree on (0: not pooled) */
    mcpp_null_shape **null_shapes; /* the shapes of the pooled history, one per runs a side read (apply_history_noise) */
    size_t n_null_shapes;
    size_t history_shaped; /* tests whose p-value one of them gives */
    double history_drift;  /* the lanes' drift from their history, a share of a run's variance */
    size_t history_anchored;           /* tests whose baseline level their history steadied (history_anchor.c) */
    mcpp_median_shape **median_shapes; /* heavy tails: the medians' shapes, one per run counts read (history_medians.c) */
    size_t n_median_shapes;
    size_t history_medians; /* tests that compare the medians of their runs against one of them */
    double history_spread; /* today's betterments in the history's standard errors (0: not checked) */
    int history_widened;   /* 1: beyond chance, so the history's tests widened by it */
    gate_left_out *left_out; /* receipts whose status.outcome is not ok (gate_status.c) */
    size_t n_left_out, cap_left_out;
    mcpp_id_set left_out_ids[3];       /* their ids (borrowed from left_out) by side: each is named once */
    int inconclusive_fails;            /* the policy's gate.on_inconclusive = "fail": an inconclusive gate exits 1 */
    size_t groups[MCPP_GATE_OUTCOMES]; /* tests (a lane's pooled candidate runs are one) by outcome */
    double suite_shift;  /* the change its tests share, tested against (0: none; see common_shifts) */
    int suite_regressed; /* 1: that shared change is itself a regression beyond the allowance */
};

/* ---- gate_explain.c ---------------------------------------------------------------- */

/* Records the candidate's lane (key and label) and file. 0 or MCPP_ENOMEM. */
int mcpp_gate_explain_candidate(gate_explain *w, const mcpp_policy *p, const mcpp_receipt *cand);
/* The label and display label the frontier of the candidates prints for
 * each one's lane (label plus the differences from the lanes beside it,
 * `mcpp-receipts frontier CANDIDATES`): (*out)[2i] and (*out)[2i + 1]. Made
 * before the candidates are gated, so the frontier's peak does not add to the
 * gate's entries (a 10^5-pair gate: 6.3 -> 3.6 KiB a pair). 0 or an error
 * code; free with mcpp_gate_explain_labels_free, or hand them to the entries
 * with mcpp_gate_explain_take_labels (which frees the array). */
int mcpp_gate_explain_labels(char ***out, const mcpp_policy *p, const mcpp_receipt *const *candidates, size_t n);
void mcpp_gate_explain_labels_free(char **labels, size_t n);
void mcpp_gate_explain_take_labels(gate_entry *entries, size_t n, char **labels);
/* Records a pooled baseline; with verdict QUALIFIED its qualifications and
 * fired rules too. 0 or an error code. */
int mcpp_gate_explain_pooled(gate_explain *w, const mcpp_policy *p, const mcpp_receipt *base,
                             const mcpp_receipt *cand, mcpp_verdict verdict);
/* Records a baseline of the candidate's lane that was not pooled, with
 * `why`, or (NULL) the verdict and its blocking rows. 0 or an error code. */
int mcpp_gate_explain_set_aside(gate_explain *w, const mcpp_policy *p, const mcpp_receipt *base,
                                const mcpp_receipt *cand, mcpp_verdict verdict, const char *why);
/* Forgets the baselines set aside so far (the gate compares them all again). */
void mcpp_gate_explain_set_aside_clear(gate_explain *w);
/* Records the ids of the candidate runs pooled as one side. 0 or MCPP_ENOMEM. */
int mcpp_gate_explain_candidate_runs(gate_explain *w, const mcpp_receipt *const *runs, size_t n);
/* Cuts the explanation's lists (pooled, set aside, differences) to their
 * items once the candidate is explained: a report keeps one per candidate. */
void mcpp_gate_explain_fit(gate_explain *w);
/* Records what kept a baseline out (its mismatching and missing rows and
 * fired rules). 0 or an error code. */
int mcpp_gate_explain_rejected(gate_explain *w, const mcpp_policy *p, const mcpp_receipt *base,
                               const mcpp_receipt *cand);
/* Appends the most common blockers ("hardware: a vs b on 3 baselines; ...")
 * to a reason line. */
void mcpp_gate_explain_blockers(const gate_explain *w, mcpp_strbuf *reason);
void mcpp_gate_explain_free(gate_explain *w);

/* ---- gate_status.c ----------------------------------------------------------------- */

/* status.outcome's text (an enum), or NULL when not stated. */
const char *mcpp_gate_run_status(const mcpp_policy *p, const mcpp_receipt *r);
/* 1 when the receipt's own tool marked it ok (status.outcome "ok", or none stated). */
int mcpp_gate_run_ok(const mcpp_policy *p, const mcpp_receipt *r);
/* The receipts of `in` that are ok into a malloc'd *out (free it; set even
 * on error), the others recorded in r->left_out on `side` (static text). 0
 * or MCPP_ENOMEM. */
int mcpp_gate_keep_ok(const mcpp_receipt ***out, size_t *n_out, mcpp_gate_report *r, const mcpp_policy *p,
                      const mcpp_receipt *const *in, size_t n, const char *side);
/* Records one receipt left out on `side` (static text; once per id and side). 0 or MCPP_ENOMEM. */
int mcpp_gate_left_out_add(mcpp_gate_report *r, const mcpp_policy *p, const mcpp_receipt *x, const char *side);
/* Appends "; 2 baseline runs left out, their status.outcome not ok (id: failed, ...)" per side. */
void mcpp_gate_left_out_reason(const mcpp_gate_report *r, mcpp_strbuf *reason);
void mcpp_gate_left_out_free(mcpp_gate_report *r);

/* ---- gate_noise.c ------------------------------------------------------------------ */

/* What the gate's tests together say of the machine, set on every compared
 * metric (the suite's noise, tails, pooled history, common shift; each
 * measured once per baseline side), then the Benjamini–Hochberg cutoff at
 * one-sided level q over every test into *threshold; r->tests and r->fdr_q
 * set. 0 or MCPP_ENOMEM. */
int mcpp_gate_suite_noise(mcpp_gate_report *r, double q, double *threshold);

/* ---- gate_new_lanes.c ------------------------------------------------------------- */

/* Settles the candidates no baseline shares a lane with (after the
 * decisions): new lanes (reason_code "new_lane"; passed, or undetermined
 * under gate.new_lanes = "fail"), counted into *n_new, while every baseline
 * lane has a candidate; otherwise they stay undetermined, with that said.
 * `candidates` are the report's entries' receipts, in order; `left_out`: 1
 * when baselines were left out upstream (the filtered gate). 0 or
 * MCPP_ENOMEM. */
int mcpp_gate_settle_new_lanes(mcpp_gate_report *r, const mcpp_policy *p, const mcpp_receipt *const *baselines,
                               size_t nb, const mcpp_receipt *const *candidates, int left_out, size_t *n_new);

/* ---- history_medians.c ------------------------------------------------------------- */

/* The medians source (docs/statistics.md, "Heavy tails: the medians of the
 * runs"): when the lanes' history reads the machine's runs as heavy-tailed,
 * each test with four or more runs a side compares their medians against
 * the order statistics of that t, at a scale read from its lane's history
 * and pooled over the lanes. Over the m lane tests (the groups' first
 * entries; every entry of a group is set alike). 0 or MCPP_ENOMEM. */
/* Steadies each one-run baseline that agrees with its lane's history with
 * that history's level (history_anchor.c); MCPP_ENOMEM or 0. */
int mcpp_gate_history_anchor(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m);
int mcpp_gate_history_medians(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, double q);

#endif /* MCPP_GATE_INTERNAL_H */
