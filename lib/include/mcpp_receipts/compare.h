/*
 * mcpp_receipts/compare.h — is this pair of receipts comparable, why, and what
 * do their numbers say; plus the pre-merge gate over many pairs.
 *
 * mcpp_compare() walks the policy's dimensions (policy.h) and gives one row per
 * dimension (and per custom rule): match / qualify / mismatch / missing, both
 * values as text, and a one-line reason. The verdict follows from the rows with
 * this precedence (the first that applies wins):
 *
 *   insufficient    some row is `missing` (a must-match field or a required
 *                   field is absent on either side: missing is never a match)
 *   not_comparable  some row is `mismatch`
 *   qualified       some row is `qualify` (each qualification is listed)
 *   comparable      every row matches
 *
 * Only comparable and qualified pairs get a metric comparison (the policy's
 * gate metric; see mcpp_metric_result) and a gate outcome.
 *
 * Ownership: objects returned through `out` belong to the caller and are freed
 * with their NULL-safe _free. Strings returned by accessors are borrowed from
 * the object and live as long as it. Rendered text (char **out) is freed with
 * mcpp_free(). The caller may free or change the policy and free the receipts
 * passed in as soon as the call returns: results copy what they keep (a
 * comparison keeps its two receipts alive itself, see mcpp_compare).
 *
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_COMPARE_H
#define MCPP_RECEIPTS_COMPARE_H

#include "policy.h"
#include "receipt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Names ------------------------------------------------------------------ */

typedef enum mcpp_verdict {
    MCPP_VERDICT_COMPARABLE = 0,     /* every dimension matches                    */
    MCPP_VERDICT_QUALIFIED = 1,      /* comparable, with qualifications listed     */
    MCPP_VERDICT_NOT_COMPARABLE = 2, /* some must-match dimension differs          */
    MCPP_VERDICT_INSUFFICIENT = 3    /* something needed is missing on either side */
} mcpp_verdict;

/* "comparable", "qualified", "not_comparable", "insufficient"; "unknown" for
 * other values. Static. */
MCPP_EXPERIMENTAL const char *mcpp_verdict_name(mcpp_verdict verdict);

typedef enum mcpp_dim_status {
    MCPP_DIM_MATCH = 0,    /* same on both sides (or not applicable to either)     */
    MCPP_DIM_QUALIFY = 1,  /* differs in a qualifying dimension, or a fallback    */
    MCPP_DIM_MISMATCH = 2, /* differs in a must-match dimension                   */
    MCPP_DIM_MISSING = 3,  /* a needed field is absent on one or both sides       */
    MCPP_DIM_NOT_RECORDED = 4 /* both sources say they do not record it
                                 (source.not_recorded): shown, not compared, and
                                 it does not change the verdict                 */
} mcpp_dim_status;

/* "match", "qualify", "mismatch", "missing", "not_recorded"; "unknown" otherwise. Static. */
MCPP_EXPERIMENTAL const char *mcpp_dim_status_name(mcpp_dim_status status);

/* Outcome of the gate for one comparison or a whole gate run. The numeric
 * values 0-3 are the exit codes of `mcpp-receipts gate` (0, 1, 2, 3); an
 * inconclusive gate exits 0, or 1 under gate.on_inconclusive = "fail"
 * (mcpp_gate_report_exit_code). */
typedef enum mcpp_gate_outcome {
    MCPP_GATE_PASSED = 0,       /* comparable, no established regression, and its interval
                                   rules out any regression beyond gate.min_detectable */
    MCPP_GATE_FAILED = 1,       /* a regression beyond max_regression is established */
    MCPP_GATE_UNDETERMINED = 2, /* comparability or the metric could not be established */
    MCPP_GATE_ERROR = 3,        /* a whole gate run only: some input could not be
                                   read (mcpp_gate_report_add_input_error)       */
    MCPP_GATE_INCONCLUSIVE = 4  /* compared, no regression established, but the interval
                                   at the level decided reaches past gate.min_detectable:
                                   a regression that large is not ruled out
                                   (docs/statistics.md, "Inconclusive")            */
} mcpp_gate_outcome;

/* "passed", "failed", "undetermined", "error", "inconclusive"; "unknown"
 * otherwise. Static. */
MCPP_EXPERIMENTAL const char *mcpp_gate_outcome_name(mcpp_gate_outcome outcome);

/* ---- The metric comparison --------------------------------------------------- */

/*
 * How the headline metric compares. A borrowed view (strings live as long as
 * the object that returned it).
 *
 * Runs are the unit (docs/statistics.md). Each receipt is one run (one
 * invocation of the tool) and contributes one value: its stated metric (or
 * the value derived from its step samples: tokens_per_s from step times, the
 * median step time). Samples inside it, of any kind (steps, rounds,
 * repetitions, and the runs a tool makes within one invocation, as hyperfine
 * and pyperf do), share that invocation's machine state: they give its
 * within-run precision, never the run-to-run spread.
 * Unit and direction come from the receipts; two sides that state the
 * metric with different units or directions are not compared
 * (docs/metrics.md).
 *
 * One estimator gives the headline and its interval: with x the log run
 * values, rel_delta = exp(center(x_cand) - center(x_base)) - 1, where center
 * is the mean (the geometric mean of the values; the policy may choose
 * MLPerf's olympic mean), and the interval is that difference plus/minus a
 * Student t quantile times its standard error, so rel_delta always lies
 * inside [interval_low, interval_high] and interval_low <= interval_high.
 * The run-to-run standard deviation pools every source at hand (the noise
 * source): the spread of the runs on each side, the lane's earlier runs
 * (history, from a store), and the policy's declared run_to_run counted as
 * run_to_run_df degrees of freedom. A gate over many benchmarks adds the
 * suite source: its benchmarks' pooled runs replace the declared figure, or,
 * with one run a side, it never assumes less run-to-run noise (nor lighter
 * tails) than its own benchmarks' changes show, and it tests each against the
 * change they all share when that is within the allowance (suite_shift;
 * docs/statistics.md). With none of them the
 * comparison is a point comparison (point_comparison = 1, interval = the point).
 * Runs of one side are made together (one CI job) and share its state: the
 * part of the between-jobs figure (between_sd) that their own spread does not
 * show is added for each side, so more runs in one job narrow the interval
 * only down to what separate jobs differ by.
 * noise_floor = max(policy noise_floor, run_sd): changes smaller than it
 * are reported as noise.
 */
typedef struct mcpp_metric_result {
    const char *metric;     /* the metric's name, e.g. "tokens_per_s" (a plain
                               number field: its schema path)                     */
    int higher_is_better;   /* the receipts' direction for the metric             */
    double base_median;     /* the base side's center: exp(center of log run values),
                               for one run its value                              */
    double cand_median;     /* the candidate side's center                        */
    double rel_delta;       /* cand_median / base_median - 1                      */
    double interval_low;    /* lower end of the interval of rel_delta             */
    double interval_high;   /* upper end                                          */
    double confidence;      /* two-sided level of the interval                    */
    size_t n_base;          /* runs on the base side                              */
    size_t n_cand;          /* runs on the candidate side                         */
    double noise_floor;     /* relative; see above                                */
    const char *method;     /* "student-t on log run values" or "point"           */
    int point_comparison;   /* 1 when no noise source could be had (see above)    */
    const char *unit;       /* the receipts' unit for the metric; NULL if unstated */
    /* The run-to-run model (docs/statistics.md). */
    const char *noise_source; /* "runs", "history", "policy", "suite" joined by "+"
                                 (each source that was pooled), or "none"        */
    size_t history_runs;    /* earlier runs of the lane that informed run_sd      */
    double run_sd;          /* run-to-run standard deviation of log values used   */
    double df;              /* degrees of freedom of run_sd (INFINITY: known)     */
    double p_value;         /* one-sided: how likely a regression this large is
                               from noise alone (NAN for a point comparison)      */
    double p_threshold;     /* the level p_value had to reach to establish a
                               regression: (1 - confidence) / 2 for one test, the
                               Benjamini–Hochberg cutoff over a gate's tests     */
    size_t tests;           /* the tests that multiplicity control covered (1 for
                               a single comparison)                               */
    double se;              /* standard error of log(cand center / base center)   */
    double suite_shift;     /* a gate over many benchmarks: the change they all
                               share (their median), which p_value was taken
                               against when it is within the allowance (machine
                               drift, not this test's regression); 0 otherwise */
    double between_sd;      /* run-to-run sd between separate jobs, from the
                               policy's declared figure and the history (0: not
                               known). The runs of one side share their job, so
                               the part of it beyond run_sd is added to se for
                               each side however many runs it has             */
    double between_df;      /* degrees of freedom of between_sd                  */
    double tail_df;         /* a gate with the lanes' history: the Student t df of
                               the machine's single runs when their tails are
                               heavy (0: normal); p_value is then at least the
                               chance that one far-off run alone made the change */
    double tail_scale;      /* that t's scale, in units of one run's sd: run_sd,
                               or between_sd when larger                       */
    const struct mcpp_null_shape *null_shape; /* a gate whose lanes' histories
                               were pooled: the shape of their earlier runs
                               that p_value and the interval were read from
                               instead of a Student t (docs/statistics.md, "The
                               shape of the noise"); owned by the gate report.
                               NULL: Student t                                 */
    /* The interval at the level the decision used (two-sided 1 - 2 p_threshold:
       for a gate over many tests the Benjamini-Hochberg cutoff), beside the
       interval at `confidence` above.                                          */
    double decided_low, decided_high;
    double min_detectable;    /* the policy's gate.min_detectable for this metric: a
                                 passed result's decided interval rules out a
                                 regression this large, else it is inconclusive */
    double runs_to_settle;    /* inconclusive: about how many runs a side would rule
                                 it out at today's noise (0: more runs alone would
                                 not, the change itself is that large)           */
    size_t history_set_aside; /* earlier runs of the lane left out of run_sd: far
                               off the lane's median (a busy machine)          */
    double history_level_weight; /* a gate with one run a side and the lanes' history:
                               the weight of the lane's earlier runs in the
                               baseline's level (base_median), the rest its one
                               run's; 0: the baseline run alone                 */
} mcpp_metric_result;

/* ---- One comparison ------------------------------------------------------------ */

/* Thread safety: read-only once returned; threads may read and render one at
 * once (the rows, made on first read, are made once under a lock). */
typedef struct mcpp_comparison mcpp_comparison;

/*
 * Compares `cand` against `base` under `policy` (NULL: the built-in default
 * policy). On success *out holds the comparison (caller frees with
 * mcpp_comparison_free); the verdict itself is never an error. Fails with
 * MCPP_EARG for NULL receipts or out, MCPP_ENOMEM, or MCPP_EPOLICY when a
 * custom rule failed (then *out is NULL).
 *
 * Fast path: the verdict, the metric comparison and the gate outcome are
 * decided in the call; the rows, their text and the gate's reason are made
 * when first read (a row accessor, mcpp_comparison_gate_reason,
 * mcpp_comparison_render), from the two receipts, which the
 * comparison keeps alive until it is freed (mcpp_receipt_free on them only
 * ends the caller's hold), and from a copy of the policy's dimensions, so
 * what they say never depends on when they are read. Custom rules run once,
 * in the call; their rows show that run.
 */
/* Refuses a metric name that none of the receipts states (a misspelling such
 * as "tokens_per_sec"): MCPP_EARG, with a message naming the closest stated
 * metric ("did you mean 'tokens_per_s'?") and the ones stated. NULL,
 * "primary", a schema path, or no receipts: MCPP_OK. The CLI, Python and Lua
 * call it on the metric a user names before an analysis. */
MCPP_EXPERIMENTAL int mcpp_metric_check_stated(const char *metric, const mcpp_receipt *const *receipts, size_t n);
/* The same for every metric the policy gates on (a policy file's
 * gate.metric or gate.metrics), the message naming the policy: "policy
 * 'team' gates on the metric 'tokens_per_sec', which no receipt states; did
 * you mean 'tokens_per_s'? ...". Of several gate metrics, one that no stated
 * name is close to is a metric of another suite, which the gate skips, and
 * is accepted. MCPP_EARG, or MCPP_OK. */
MCPP_EXPERIMENTAL int mcpp_policy_check_metrics_stated(const mcpp_policy *policy, const mcpp_receipt *const *receipts,
                                                       size_t n);

MCPP_API int mcpp_compare(mcpp_comparison **out, const mcpp_policy *policy,
                          const mcpp_receipt *base, const mcpp_receipt *cand);

/* Only the verdict, with no allocation at all (for pairing many receipts).
 * Custom rules run too. Returns MCPP_OK and writes *out, or an error code. */
/*
 * What a receipt lacks to be compared at all under `policy` (NULL: the
 * default): the must-match dimensions it does not state and the required
 * fields it lacks, as "pattern (lane.pattern, lane.depth); sequence
 * (workload.seq_len); ...". *out is NULL when there is nothing missing; else
 * a malloc'd string the caller frees. Such a receipt is valid, but every
 * comparison with it is insufficient. `validate` warns with this text; the
 * builder form checks what has been set so far (it finishes a copy, so a
 * builder whose setters failed returns that error).
 */
MCPP_EXPERIMENTAL int mcpp_receipt_comparability_gaps(char **out, const mcpp_policy *policy,
                                                      const mcpp_receipt *receipt);
MCPP_EXPERIMENTAL int mcpp_builder_comparability_gaps(char **out, const mcpp_policy *policy, const mcpp_builder *b);

MCPP_API int mcpp_compare_verdict(mcpp_verdict *out, const mcpp_policy *policy,
                                  const mcpp_receipt *base, const mcpp_receipt *cand);

/* NULL-safe. */
MCPP_API void mcpp_comparison_free(mcpp_comparison *comparison);

/* The verdict; MCPP_VERDICT_INSUFFICIENT for NULL. */
MCPP_API mcpp_verdict mcpp_comparison_verdict(const mcpp_comparison *comparison);

/* Ids of the two receipts (copied). Borrowed; NULL for NULL. */
MCPP_EXPERIMENTAL const char *mcpp_comparison_base_id(const mcpp_comparison *comparison);
MCPP_EXPERIMENTAL const char *mcpp_comparison_cand_id(const mcpp_comparison *comparison);
/* The policy the comparison was made under: its name and content digest
 * (mcpp_policy_digest), which every rendering names. */
MCPP_EXPERIMENTAL const char *mcpp_comparison_policy_name(const mcpp_comparison *comparison);
MCPP_EXPERIMENTAL const char *mcpp_comparison_policy_digest(const mcpp_comparison *comparison);

/* Rows: one per policy dimension (in policy order, ignored ones left out), then
 * one per required field that is missing, then one per custom rule. 0 for NULL. */
MCPP_EXPERIMENTAL size_t mcpp_comparison_row_count(const mcpp_comparison *comparison);
/* Row accessors: NULL (strings) or -1 (ints) when `index` is out of range,
 * and (like a row count of 0) when memory ran out making the rows on first
 * read: then mcpp_error_last() says so in the reading thread.
 * dimension: the dimension, required-field path or rule name.
 * base/cand: the side's values as canonical text ("a, b" for several fields,
 *            "-" for an absent field, "(absent)" when all are absent).
 * reason:    one line for a reviewer. */
MCPP_EXPERIMENTAL const char *mcpp_comparison_row_dimension(const mcpp_comparison *comparison, size_t index);
MCPP_EXPERIMENTAL int mcpp_comparison_row_status(const mcpp_comparison *comparison, size_t index);
MCPP_EXPERIMENTAL int mcpp_comparison_row_role(const mcpp_comparison *comparison, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_comparison_row_base(const mcpp_comparison *comparison, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_comparison_row_cand(const mcpp_comparison *comparison, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_comparison_row_reason(const mcpp_comparison *comparison, size_t index);

/* The metric comparison; NULL when the verdict did not allow one or the metric
 * is absent on either side (the gate reason then says which). Borrowed. */
MCPP_EXPERIMENTAL const mcpp_metric_result *mcpp_comparison_metric(const mcpp_comparison *comparison);

/*
 * The gate for this pair (settings from the policy's gate). With u the change
 * in the favourable direction (u = rel for higher-is-better metrics and
 * u = -rel for lower-is-better ones: "worse by 12%" is 12% more time):
 *   failed        verdict comparable/qualified, a regression is established
 *                 (p_value <= p_threshold: the favourable end of the interval
 *                 at that level is still worse than unchanged) and the
 *                 estimated regression u is beyond -max_regression; for a
 *                 point comparison (allowed only by the policy's
 *                 allow_point_comparisons), u below -max_regression
 *   undetermined  verdict not_comparable/insufficient, metric missing, or a
 *                 point comparison the policy does not allow
 *   passed        otherwise
 */
MCPP_API mcpp_gate_outcome mcpp_comparison_gate(const mcpp_comparison *comparison);
/*
 * Every metric of the policy's gate (gate.metrics: the pair fails on any
 * metric's breach, is undetermined when one is undetermined or every one is
 * absent on both sides — the rule of mcpp_gate, so compare and gate agree).
 * A single-metric gate is one metric, the comparison's own. k out of range:
 * NULL / MCPP_GATE_UNDETERMINED / 0. The result is NULL when the metric was
 * not compared; the reason is borrowed and never NULL in range.
 */
MCPP_EXPERIMENTAL size_t mcpp_comparison_gate_metric_count(const mcpp_comparison *comparison);
MCPP_EXPERIMENTAL const char *mcpp_comparison_gate_metric_name(const mcpp_comparison *comparison, size_t k);
MCPP_EXPERIMENTAL mcpp_gate_outcome mcpp_comparison_gate_metric_outcome(const mcpp_comparison *comparison, size_t k);
MCPP_EXPERIMENTAL int mcpp_comparison_gate_metric_skipped(const mcpp_comparison *comparison, size_t k);
MCPP_EXPERIMENTAL const mcpp_metric_result *mcpp_comparison_gate_metric_result(const mcpp_comparison *comparison,
                                                                               size_t k);
MCPP_EXPERIMENTAL const char *mcpp_comparison_gate_metric_reason(const mcpp_comparison *comparison, size_t k);
/* One line saying why. Borrowed; never NULL for a non-NULL comparison (made
 * with the rows on first read; when memory runs out then, it says so). */
MCPP_API const char *mcpp_comparison_gate_reason(const mcpp_comparison *comparison);

/*
 * Renders the comparison (the one renderer the CLI and the bindings share).
 * JSON keys: schema ("mcpp.compare/1"), base, cand, verdict, dimensions
 * [{name, role, status, base, cand, reason}], metric (null or {name,
 * higher_is_better, base_median, cand_median, rel_delta, interval [low, high],
 * confidence, n_base, n_cand, noise_floor, method, point_comparison}), gate
 * {outcome, reason}. *out is NUL-terminated; free with mcpp_free().
 */
MCPP_API int mcpp_comparison_render(char **out, const mcpp_comparison *comparison,
                                    mcpp_output_format format);

/* ---- The gate over many pairs --------------------------------------------------- */

/* Thread safety: read-only once returned; threads may read and render one at once. */
typedef struct mcpp_gate_report mcpp_gate_report;

/*
 * Pairs every candidate with each baseline it is comparable with (verdict
 * comparable or qualified), pools those baselines' runs and compares the
 * candidate's headline metric against the pool as mcpp_comparison_gate() does,
 * with one difference: the gate's tests (every candidate's every gate
 * metric) share one Benjamini–Hochberg false discovery rate of
 * (1 - confidence) / 2, so an unchanged merge of many benchmarks fails with
 * at most that probability (docs/statistics.md).
 * A baseline with the candidate's own id is skipped, and a baseline id seen
 * before (the same run loaded twice) is pooled once.
 * One entry per candidate. The overall outcome: failed when any candidate
 * failed; else undetermined when any candidate has no comparable baseline (or
 * there are no candidates); else passed (MCPP_GATE_ERROR only once an unread
 * input is recorded with mcpp_gate_report_add_input_error). Each entry also
 * explains itself (lane, pooled baselines and their files, differences,
 * reason code: see below and docs/gate.md). `policy` NULL: the default policy.
 * Arrays are borrowed; nb or nc may be 0 (then the arrays may be NULL).
 */
MCPP_API int mcpp_gate_run(mcpp_gate_report **out, const mcpp_policy *policy,
                           const mcpp_receipt *const *baselines, size_t nb,
                           const mcpp_receipt *const *candidates, size_t nc);
/* mcpp_gate_run with earlier runs of the lanes (`history`, nh receipts; a
 * store's newest runs of each lane, say): for each candidate, those
 * comparable with it that are neither it nor a pooled baseline inform only
 * the run-to-run spread (docs/statistics.md), never the baseline's center. */
MCPP_API int mcpp_gate_run_with_history(mcpp_gate_report **out, const mcpp_policy *policy,
                                        const mcpp_receipt *const *baselines, size_t nb,
                                        const mcpp_receipt *const *candidates, size_t nc,
                                        const mcpp_receipt *const *history, size_t nh);
/* mcpp_gate_run for the arrays a harness holds: `mcpp_receipt *r[3]`, or the
 * `mcpp_receipt **` it filled with mcpp_receipt_load_file(). C converts neither to
 * `const mcpp_receipt *const *` without a cast; this call needs none and gives
 * the same report. The receipts are only read. */
MCPP_API int mcpp_gate_run_receipts(mcpp_gate_report **out, const mcpp_policy *policy,
                                    mcpp_receipt *const *baselines, size_t nb,
                                    mcpp_receipt *const *candidates, size_t nc);
/* mcpp_gate_run when baselines comparable (or qualified) with no candidate
 * were left out where they were read (a distributed engine filters them on
 * its workers): dropped[2*i] and dropped[2*i+1] count, for candidate i, those
 * left out as not_comparable and as insufficient (ids equal to its own not
 * counted). They enter only the tally of "no comparable baseline among N";
 * the decisions then equal mcpp_gate_run over all baselines in the same
 * order (the blockers an undetermined candidate names come only from the
 * baselines passed in).
 * dropped NULL: none were left out. */
MCPP_API int mcpp_gate_run_filtered(mcpp_gate_report **out, const mcpp_policy *policy,
                                    const mcpp_receipt *const *baselines, size_t nb,
                                    const mcpp_receipt *const *candidates, size_t nc,
                                    const size_t *dropped);
MCPP_API void mcpp_gate_report_free(mcpp_gate_report *report); /* NULL-safe */

/* Overall outcome and its reason line (borrowed). UNDETERMINED for NULL. */
MCPP_EXPERIMENTAL mcpp_gate_outcome mcpp_gate_report_outcome(const mcpp_gate_report *report);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_reason(const mcpp_gate_report *report);
/* The policy the gate ran under: its name and content digest (mcpp_policy_digest),
 * which every rendering names (text, JSON, markdown, JUnit). Borrowed; NULL for NULL. */
MCPP_EXPERIMENTAL const char *mcpp_gate_report_policy_name(const mcpp_gate_report *report);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_policy_digest(const mcpp_gate_report *report);
/* The process exit code for the outcome (0, 1, 2, or 3 for MCPP_GATE_ERROR);
 * inconclusive: 0, or 1 under the policy's gate.on_inconclusive = "fail". */
MCPP_API int mcpp_gate_report_exit_code(const mcpp_gate_report *report);

/* Entries, one per candidate in input order. Out of range: NULL / -1 / 0. */
MCPP_EXPERIMENTAL size_t mcpp_gate_report_count(const mcpp_gate_report *report);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_candidate_id(const mcpp_gate_report *report, size_t index);
MCPP_EXPERIMENTAL int mcpp_gate_report_entry_outcome(const mcpp_gate_report *report, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_entry_reason(const mcpp_gate_report *report, size_t index);
/* How many baselines were comparable with this candidate (and pooled). */
MCPP_EXPERIMENTAL size_t mcpp_gate_report_entry_baseline_count(const mcpp_gate_report *report, size_t index);
/* The pooled comparison of the (first) gate metric, NULL when there was none. Borrowed. */
MCPP_EXPERIMENTAL const mcpp_metric_result *mcpp_gate_report_entry_metric(const mcpp_gate_report *report, size_t index);

/*
 * Each gate metric's decision for one candidate (a policy may gate on several:
 * gate = { metrics = { {name = "tokens_per_s", max_regression = 0.02}, ... } };
 * docs/metrics.md). The candidate failed when any metric failed; a metric absent
 * on the candidate and every pooled baseline is skipped (skipped = 1); absent on
 * one side, or stated with another unit or direction, it is undetermined.
 * Without a comparable baseline a candidate has no metric entries.
 */
#define MCPP_GATE_METRIC_VERSION 1u
typedef struct mcpp_gate_metric {
    unsigned int version;              /* MCPP_GATE_METRIC_VERSION (set by the caller) */
    const char *name;                  /* as the policy names it                      */
    mcpp_gate_outcome outcome;         /* this metric's outcome                        */
    int skipped;                       /* 1: absent on both sides, not gated           */
    const char *reason;                /* names the metric                             */
    const mcpp_metric_result *result;  /* NULL when the metric was not compared        */
} mcpp_gate_metric;

#define MCPP_GATE_METRIC_INIT {MCPP_GATE_METRIC_VERSION, NULL, MCPP_GATE_UNDETERMINED, 0, NULL, NULL}

/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/* How many metrics candidate `index` was gated on (0 out of range). */
MCPP_EXPERIMENTAL size_t mcpp_gate_report_entry_metric_count(const mcpp_gate_report *report, size_t index);
/* Metric `k` of candidate `index` into *out (borrowed strings). MCPP_EARG out
 * of range or for an unknown out->version. */
MCPP_EXPERIMENTAL int mcpp_gate_report_entry_metric_at(mcpp_gate_metric *out, const mcpp_gate_report *report,
                                                       size_t index, size_t k);

/* ---- Why: each candidate's explanation ------------------------------------------ */

/*
 * Reason code of the entry (static; NULL out of range):
 *   passed / regression            the metric was compared (outcome passed / failed)
 *   no_comparable_baseline         every baseline was not_comparable or insufficient;
 *                                  the differences (pooled = 0) say which dimension,
 *                                  rule or missing field, and on how many baselines
 *   new_lane                       no baseline is in the candidate's lane, and every
 *                                  baseline lane has a candidate (or there are no
 *                                  baselines): passed, or undetermined under
 *                                  mcpp_policy_set_new_lanes_fail
 *   metric_absent_on_candidate     the gate metric is absent on the candidate
 *   metric_absent_on_baselines     ... on every pooled baseline
 *   point_comparison_not_allowed   a side has one value and the policy forbids
 *                                  point comparisons
 *   base_median_zero               no relative change can be formed
 */
MCPP_EXPERIMENTAL const char *mcpp_gate_report_entry_reason_code(const mcpp_gate_report *report, size_t index);
/* The candidate's lane: its key (mcpp_lane_key), its label for people (as
 * the frontier labels lanes: the least lane.name of its receipts, else the
 * short key) and its display label, the label followed by what tells the
 * lane from its neighbours among the candidates' lanes ("... (moe=jagged)"),
 * exactly as `frontier` over the candidates prints it. Borrowed; NULL out of
 * range. The reports show the display label. */
MCPP_EXPERIMENTAL const char *mcpp_gate_report_entry_lane_key(const mcpp_gate_report *report, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_entry_lane_label(const mcpp_gate_report *report, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_entry_lane_display_label(const mcpp_gate_report *report, size_t index);
/* The input the candidate was loaded from (its file path when read from a
 * file; mcpp_receipt_source_name), NULL for receipts built in memory. */
MCPP_EXPERIMENTAL const char *mcpp_gate_report_entry_path(const mcpp_gate_report *report, size_t index);
/* Baselines examined for this candidate with this verdict (including those
 * counted in mcpp_gate_run_filtered's `dropped`). */
MCPP_EXPERIMENTAL size_t mcpp_gate_report_entry_verdict_count(const mcpp_gate_report *report, size_t index,
                                                              mcpp_verdict verdict);
/* The pooled baselines listed, k < mcpp_gate_report_entry_pooled_listed():
 * id, the input it was loaded from (NULL when built in memory), and its
 * verdict (comparable or qualified). NULL / -1 out of range. The first 1000
 * are listed; mcpp_gate_report_entry_baseline_count() counts all of them. */
MCPP_EXPERIMENTAL size_t mcpp_gate_report_entry_pooled_listed(const mcpp_gate_report *report, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_entry_baseline_id(const mcpp_gate_report *report, size_t index,
                                                                 size_t k);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_entry_baseline_path(const mcpp_gate_report *report, size_t index,
                                                                   size_t k);
MCPP_EXPERIMENTAL int mcpp_gate_report_entry_baseline_verdict(const mcpp_gate_report *report, size_t index, size_t k);
/*
 * Differences: each distinct row (dimension or rule, status, both values)
 * that was not a match between the candidate and some baselines, with how
 * many baselines showed it. pooled = 1: a qualification (or a fired rule) on
 * pooled baselines; pooled = 0: what kept a baseline out (mismatch or
 * missing), recorded only when no baseline could be pooled. At most 64
 * distinct ones are kept; _differences_omitted counts the others. Rows are
 * itemised for the first 256 baselines that have any (qualified pooled ones,
 * or rejected ones); _baselines_unexamined counts the baselines beyond them
 * (the decision uses every baseline either way).
 */
MCPP_EXPERIMENTAL size_t mcpp_gate_report_entry_baselines_unexamined(const mcpp_gate_report *report, size_t index);
MCPP_EXPERIMENTAL size_t mcpp_gate_report_entry_difference_count(const mcpp_gate_report *report, size_t index);
MCPP_EXPERIMENTAL size_t mcpp_gate_report_entry_differences_omitted(const mcpp_gate_report *report, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_difference_dimension(const mcpp_gate_report *report, size_t index,
                                                                    size_t k);
MCPP_EXPERIMENTAL int mcpp_gate_report_difference_status(const mcpp_gate_report *report, size_t index, size_t k);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_difference_base(const mcpp_gate_report *report, size_t index, size_t k);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_difference_cand(const mcpp_gate_report *report, size_t index, size_t k);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_difference_reason(const mcpp_gate_report *report, size_t index,
                                                                 size_t k);
MCPP_EXPERIMENTAL int mcpp_gate_report_difference_is_rule(const mcpp_gate_report *report, size_t index, size_t k);
MCPP_EXPERIMENTAL int mcpp_gate_report_difference_pooled(const mcpp_gate_report *report, size_t index, size_t k);
MCPP_EXPERIMENTAL size_t mcpp_gate_report_difference_baselines(const mcpp_gate_report *report, size_t index, size_t k);
/* ==== end of EXPERIMENTAL API ==== */

/* ---- Inputs that were not gated --------------------------------------------------- */

/*
 * Records an input that did not load (path may be NULL; message is the
 * loader's error). It is listed in every format; unless skipped_on_request
 * (the caller chose to gate on the rest, as `--skip-invalid` does) the
 * overall outcome becomes MCPP_GATE_ERROR (exit code 3), and the reason
 * says so before the candidates' own. Not thread-safe against readers of
 * the same report. MCPP_EARG, MCPP_ENOMEM.
 */
MCPP_EXPERIMENTAL int mcpp_gate_report_add_input_error(mcpp_gate_report *report, const char *path, const char *message,
                                                       int skipped_on_request);
/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
MCPP_EXPERIMENTAL size_t mcpp_gate_report_input_error_count(const mcpp_gate_report *report);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_input_error_path(const mcpp_gate_report *report, size_t k);
MCPP_EXPERIMENTAL const char *mcpp_gate_report_input_error_message(const mcpp_gate_report *report, size_t k);
MCPP_EXPERIMENTAL int mcpp_gate_report_input_error_skipped(const mcpp_gate_report *report, size_t k);
/* ==== end of EXPERIMENTAL API ==== */

/* ---- Rendering --------------------------------------------------------------------- */

/*
 * TEXT, JSON, MARKDOWN. JSON ("mcpp.gate/2"; docs/gate.md lists every key):
 * schema, outcome, exit_code, reason, metric, counts {passed, failed,
 * undetermined}, candidates [{id, path, lane {key, label}, outcome,
 * reason_code, reason, baselines (count), verdicts {comparable, qualified,
 * not_comparable, insufficient}, pooled [{id, path, verdict}], pooled_omitted, differences
 * [{kind, dimension, status, base, cand, reason, pooled, baselines}],
 * differences_omitted, baselines_unexamined, metric (the first gate metric's result
 * or null), metrics [{name, outcome, skipped, reason, result}] (one per gate metric)}], skipped [{path, error,
 * skipped_on_request}] (inputs not gated). A metric object is mcpp.compare/1's plus
 * improvement, improvement_interval and change (the sign convention:
 * improvement > 0 is better). MARKDOWN lists the candidates that did not pass
 * and those with qualifications first, the full table in a <details> block,
 * and stays under 60,000 characters (GitHub's comment limit is 65,536) by
 * summarising the rest with counts. Free *out with mcpp_free().
 */
MCPP_API int mcpp_gate_report_render(char **out, const mcpp_gate_report *report,
                                     mcpp_output_format format);
/* The same text handed to `write` piece by piece, as for the frontier
 * (mcpp_frontier_render_stream). */
MCPP_EXPERIMENTAL int mcpp_gate_report_render_stream(const mcpp_gate_report *report, mcpp_output_format format,
                                                     mcpp_write_fn write, void *ctx);
/* The JSON of mcpp_gate_report_render in parts, as for the frontier
 * (mcpp_frontier_render_json_outline): the document with an empty
 * "candidates" array, and candidate `index`'s object exactly as that array
 * holds it ("\n  " before each, "," between them). MCPP_EARG for an index out
 * of range. Free *out with mcpp_free(). */
MCPP_EXPERIMENTAL int mcpp_gate_report_render_json_outline(char **out, const mcpp_gate_report *report);
MCPP_EXPERIMENTAL int mcpp_gate_report_render_candidate_json(char **out, const mcpp_gate_report *report, size_t index);
/* JUnit XML for CI test views: one testsuite, one testcase per candidate and
 * metric (classname the lane label, name "ID METRIC"), <failure> for failed,
 * <skipped> for undetermined, and one <error> testcase per input that could
 * not be read. Free *out with mcpp_free(). */
MCPP_API int mcpp_gate_report_render_junit(char **out, const mcpp_gate_report *report);

/* ---- Testing a policy against example pairs ------------------------------------ */

/*
 * A policy's tests: a case file (JSON) of receipt pairs with the verdict each
 * must get, and optionally row statuses and the gate outcome:
 *
 *   { "schema": "mcpp.policy-cases/1",
 *     "policy": "default.lua",                       for readers
 *     "cases": [
 *       { "name": "run 2 of the padded lane is comparable with run 1",
 *         "base": "receipts/padded.json",            relative to the case file
 *         "cand": "receipts/padded_run2.json",
 *         "expect": "comparable",                    verdict (required)
 *         "rows": { "hardware": "match" },           dimension -> status (optional)
 *         "gate": "passed",                          gate outcome (optional)
 *         "gate_metrics": { "peak_memory_gib": "failed" } } ] }
 *                                                    per gate metric: passed, failed,
 *                                                    undetermined or skipped (optional)
 *
 * mcpp_policy_test_file() checks the whole file first (an unknown member or a
 * misspelt name is MCPP_EINVALID naming the case, before any case runs), then
 * compares every pair under `policy`. A failing case is not an error: the
 * report says which cases failed and why. Errors: MCPP_EIO (case file),
 * MCPP_EINVALID (case file, or a receipt that does not load), MCPP_EPOLICY
 * (a custom rule failed), MCPP_EARG, MCPP_ENOMEM; then *out is NULL.
 * Thread safety: read-only once returned; threads may read one at once.
 */
typedef struct mcpp_policy_test_report mcpp_policy_test_report;

MCPP_API int mcpp_policy_test_file(mcpp_policy_test_report **out, const mcpp_policy *policy,
                                   const char *path);
MCPP_API void mcpp_policy_test_report_free(mcpp_policy_test_report *report); /* NULL-safe */

/* Cases in file order and how many failed; 0 for NULL. */
MCPP_EXPERIMENTAL size_t mcpp_policy_test_report_count(const mcpp_policy_test_report *report);
MCPP_API size_t mcpp_policy_test_report_failed_count(const mcpp_policy_test_report *report);
/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/* Per case (NULL / -1 when out of range): its name (NULL when it has none),
 * 1 when it passed, the verdict the policy gave, and what differed from the
 * expectation ("expected comparable, got qualified; row hardware expected
 * match, got mismatch"; NULL for a passed case). Borrowed. */
MCPP_EXPERIMENTAL const char *mcpp_policy_test_case_name(const mcpp_policy_test_report *report, size_t index);
MCPP_EXPERIMENTAL int mcpp_policy_test_case_passed(const mcpp_policy_test_report *report, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_policy_test_case_verdict(const mcpp_policy_test_report *report, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_policy_test_case_failures(const mcpp_policy_test_report *report, size_t index);
/* ==== end of EXPERIMENTAL API ==== */

/* TEXT: "ok   N NAME (verdict)" or "FAIL N NAME; what differed" per case, a
 * failed case followed by the rows that did not match. JSON keys: schema
 * ("mcpp.policy-test/1"), file, policy, total, passed, failed, cases [{name,
 * number, passed, verdict, failures, rows [{name, status, reason}]}].
 * `format` is an mcpp_output_format. Free *out with mcpp_free(). */
MCPP_API int mcpp_policy_test_report_render(char **out, const mcpp_policy_test_report *report,
                                            int format);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_COMPARE_H */
