/*
 * compare_metric.c — the headline metric of a comparison: which values each
 * side contributes (per-step values when there are step samples, the stated
 * number otherwise), the relative delta with its interval and noise floor,
 * and the gate decision on that result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_internal.h"
#include "analysis/metric_change.h"
#include "analysis/null_shape.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/escape.h"
#include "analysis/stats_internal.h"
#include "receipt/field_ids.h"
#include "receipt/fields.h"
#include "receipt/metric_ref.h"

static const char METHOD_T[] = "student-t on log run values";
static const char METHOD_T_OLYMPIC[] = "student-t on log run values, olympic mean";
static const char METHOD_POINT[] = "point";
static const char METHOD_SHAPE[] = "log run values against the history's shape";
static const char METHOD_MEDIANS[] = "median of log run values against the history's t";

void mcpp_metric_side_free(mcpp_metric_side *s)
{
    free(s->steps);
    free(s->runs);
    free(s->stated);
    memset(s, 0, sizeof *s);
}

static int push(double **arr, size_t *n, size_t *cap, double v)
{
    MCPP_CHECK_ARRAY(*arr, *cap, *n + 1, MCPP_ARRAY_MAX_ITEMS);
    (*arr)[(*n)++] = v;
    return MCPP_OK;
}

static int number_of(const mcpp_receipt *r, int id, double *out)
{
    mcpp_value v;
    if (id < 0 || mcpp_value_at_field(r, id, &v) != MCPP_OK) return 0;
    if (v.type == MCPP_TYPE_DOUBLE) *out = v.number;
    else if (v.type == MCPP_TYPE_INT) *out = (double)v.integer;
    else return 0;
    return 1;
}

static double median_of_samples(const double *samples, size_t n)
{
    double small[64];
    double *tmp = n <= 64 ? small : malloc(n * sizeof *tmp);
    if (!tmp) return NAN;
    memcpy(tmp, samples, n * sizeof *tmp);
    double m = mcpp_median_sorting(tmp, n);
    if (tmp != small) free(tmp);
    return m;
}

/* What one receipt contributes: its stated (or derived) value, and how to
 * turn its samples into values (scale / t for tokens_per_s from step times,
 * the sample itself for any other metric with samples). */
typedef struct receipt_metric {
    int has_stated;
    double stated;
    int use_steps;
    double scale; /* tokens_per_s from step times: useful tokens per step */
    const double *samples;
    size_t n_samples;
    mcpp_metric view; /* a named metric's samples (read with mcpp_metric_sample) */
    int from_view;
    const char *sample_kind;
    mcpp_metric_ident ident;
} receipt_metric;

/* tokens_per_s and step_time_s keep the step-sample derivation of schema 1:
 * rates from the step times, the stated figure when there is one. */
static void resolve_step_metric(receipt_metric *m, const mcpp_policy *p, int metric_id, const mcpp_receipt *r)
{
    m->has_stated = number_of(r, metric_id, &m->stated);
    mcpp_value sv;
    if (p->id_samples >= 0 && mcpp_value_at_field(r, p->id_samples, &sv) == MCPP_OK &&
        sv.type == MCPP_TYPE_DOUBLE_LIST && sv.count > 0) {
        m->samples = sv.doubles;
        m->n_samples = sv.count;
        m->sample_kind = "step";
    }
    if (m->samples && metric_id == p->id_tokens_per_s) {
        double useful, med = NAN;
        if (number_of(r, p->id_useful_tokens, &useful) && useful > 0) {
            m->scale = useful;
        } else if (m->has_stated) {
            if (!number_of(r, p->id_step_median, &med)) med = median_of_samples(m->samples, m->n_samples);
            m->scale = m->stated * med;
        } else {
            m->scale = NAN;
        }
        m->use_steps = isfinite(m->scale) && m->scale > 0;
        if (m->use_steps && !m->has_stated) {
            if (!number_of(r, p->id_step_median, &med)) med = median_of_samples(m->samples, m->n_samples);
            if (med > 0) {
                m->stated = mcpp_tokens_per_s_from_steps(m->scale, med);
                m->has_stated = 1;
            }
        }
    } else if (m->samples && metric_id == p->id_step_median) {
        m->use_steps = 1;
        if (!m->has_stated) {
            m->stated = median_of_samples(m->samples, m->n_samples);
            m->has_stated = 1;
        }
    }
}

/* Any other metric: the receipt's stated value, and its samples as values. */
static void resolve_named_metric(receipt_metric *m, const mcpp_receipt *r, const char *name)
{
    if (mcpp_receipt_metric_find(&m->view, r, name) != MCPP_OK) return;
    m->has_stated = 1;
    m->stated = m->view.value;
    m->ident.unit = m->view.unit;
    m->ident.higher_is_better = m->view.direction == MCPP_DIRECTION_HIGHER;
    if (m->view.sample_count > 0) {
        m->from_view = m->use_steps = 1;
        m->n_samples = m->view.sample_count;
        m->sample_kind = m->view.sample_kind ? m->view.sample_kind : "";
    }
}

/* A receipt's primary metric as the analyses read it: mcpp_receipt_metric_primary,
 * except that a step-runner receipt that does not state tokens_per_s but can
 * derive it (useful tokens per step and step samples) heads with tokens_per_s,
 * as the receipts that state it do: one lane, one headline metric. */
static const char *primary_of(const mcpp_policy *p, const mcpp_receipt *r)
{
    const char *name = mcpp_receipt_metric_primary(r);
    double useful;
    mcpp_value sv;
    if (name && strcmp(name, "step_time_s") == 0 && !mcpp_field_present(r, MCPP_F_metrics_primary) &&
        number_of(r, p->id_useful_tokens, &useful) && useful > 0 && p->id_samples >= 0 &&
        mcpp_value_at_field(r, p->id_samples, &sv) == MCPP_OK && sv.type == MCPP_TYPE_DOUBLE_LIST &&
        sv.count > 0)
        return "tokens_per_s";
    return name;
}

static void resolve_metric(receipt_metric *m, const mcpp_policy *p, const mcpp_metric_ref *ref, const mcpp_receipt *r)
{
    memset(m, 0, sizeof *m);
    const char *name = ref->kind == MCPP_METRIC_REF_PRIMARY ? primary_of(p, r) : ref->name;
    m->ident.name = name;
    if (!name) return;
    if (ref->kind == MCPP_METRIC_REF_FIELD) {
        m->has_stated = number_of(r, ref->field_id, &m->stated);
        m->ident.higher_is_better = ref->higher_is_better;
        /* quality: named by its metric, in that metric's direction (issue 47) */
        if (ref->field_id == MCPP_F_quality_achieved || ref->field_id == MCPP_F_quality_target)
            m->has_stated = m->has_stated && mcpp_quality_metric_ident(&m->ident, r);
    } else if (strcmp(name, "tokens_per_s") == 0 || strcmp(name, "step_time_s") == 0) {
        int tokens = name[0] == 't';
        resolve_step_metric(m, p, tokens ? p->id_tokens_per_s : p->id_step_median, r);
        mcpp_metric_well_known(name, &m->ident.unit, NULL);
        m->ident.higher_is_better = tokens;
    } else {
        resolve_named_metric(m, r, name);
    }
    if (!isfinite(m->stated)) m->has_stated = 0;
}

int mcpp_metric_stated(double *out, mcpp_metric_ident *ident, const mcpp_policy *p, const mcpp_metric_ref *ref,
                       const mcpp_receipt *r)
{
    receipt_metric m;
    resolve_metric(&m, p, ref, r);
    if (m.has_stated) *out = m.stated;
    if (ident) *ident = m.ident;
    return m.has_stated;
}

int mcpp_metric_value(double *out, const char *metric, const mcpp_receipt *r)
{
    const mcpp_policy *p = mcpp_policy_builtin();
    if (!p)
        return mcpp_error_nomem();
    mcpp_metric_ref ref;
    int rc = mcpp_metric_ref_init(&ref, metric, 1);
    return rc ? rc : mcpp_metric_stated(out, NULL, p, &ref, r);
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int mcpp_metric_ident_same(const mcpp_metric_ident *a, const mcpp_metric_ident *b, const char **what)
{
    *what = !same_text(a->name, b->name)                 ? "metric"
            : !same_text(a->unit, b->unit)               ? "unit"
            : a->higher_is_better != b->higher_is_better ? "direction"
                                                         : NULL;
    return *what == NULL;
}

/* Records the receipt's identity on the side: the first sets it, a later one
 * that differs marks the side as mixing metrics, units or directions. */
static void note_ident(mcpp_metric_side *s, const mcpp_metric_ident *id)
{
    const char *what;
    if (s->receipts == 0) s->ident = *id;
    else if (!s->conflict && !mcpp_metric_ident_same(&s->ident, id, &what)) {
        s->conflict = what;
        s->other = *id;
    }
}

/* A run's samples lie in two modes when at least SPLIT_SHARE of them sit
 * farther than SPLIT_DISTANCE (in log: 1.5x or 1 / 1.5x) from their median.
 * Timing noise inside one run is a few percent (the real mixed-noise
 * campaigns' pytest-benchmark rounds: the upper quartile 0.4-3.7% above the
 * median, but for two numpy benchmarks whose runs differ by 70-100%); rounds
 * half again as slow are another state of the machine or the code (a
 * collection, a cold cache, another job's time slice). With a tenth of the
 * rounds there, a busier moment can tip the median into that mode, and the
 * run's value jumps by the modes' distance: test_sorted, 42% of its rounds
 * 1.5x off in its median run, landed more than 4 robust deviations off its
 * history in 7 of 30 baseline runs (up to 75); no test without such rounds
 * beyond 9.
 * Fewer than SPLIT_MIN_SAMPLES samples tell no modes apart. */
#define SPLIT_DISTANCE 0.4054651081081644 /* log(1.5) */
#define SPLIT_SHARE 0.1
#define SPLIT_MIN_SAMPLES 5

/* The variance of a run's log value from its own samples: the median of n
 * samples has about pi/2 times the variance of their mean, with the spread
 * of the log samples taken robustly (1.4826 median absolute deviations), so
 * a few rounds disturbed by another job do not swamp the run's precision.
 * *split: whether they lie in two modes (above). */
static double within_run_var(const receipt_metric *m, int *split)
{
    double small[64];
    double *x = m->n_samples <= 64 ? small : malloc(m->n_samples * sizeof *x);
    if (!x) return 0;
    size_t n = 0, far = 0;
    for (size_t i = 0; i < m->n_samples; i++) {
        double t = m->from_view ? mcpp_metric_sample(&m->view, i) : m->samples[i];
        if (t > 0 && isfinite(t)) x[n++] = log(t);
    }
    double var = 0;
    if (n >= 2) {
        double med = mcpp_median_sorting(x, n);
        for (size_t i = 0; i < n; i++)
            far += (x[i] = fabs(x[i] - med)) > SPLIT_DISTANCE;
        double sd = 1.4826 * mcpp_median_sorting(x, n);
        var = 1.5707963267948966 * sd * sd / (double)n;
    }
    *split = n >= SPLIT_MIN_SAMPLES && (double)far >= SPLIT_SHARE * (double)n;
    if (x != small) free(x);
    return var;
}

/* The run value one receipt contributes: its stated (or derived) value, with
 * the precision its samples give. A receipt is one run of the tool; samples
 * of any kind inside it (steps, rounds, repetitions, and the runs a tool
 * makes within one invocation, as hyperfine and pyperf do) share that
 * invocation's machine state, so they describe it and never stand in for
 * the spread between invocations. */
static int add_run(mcpp_metric_side *s, const receipt_metric *m)
{
    if (!(m->stated > 0) || !isfinite(m->stated)) {
        s->unloggable = 1;
        return 0;
    }
    int rc = push(&s->runs, &s->n_runs, &s->cap_runs, log(m->stated));
    int split = 0;
    if (rc == 0 && m->use_steps)
        s->within_var += within_run_var(m, &split);
    s->split_runs += (size_t)split;
    return rc;
}

int mcpp_metric_side_add(mcpp_metric_side *s, const mcpp_policy *p, const mcpp_metric_ref *ref,
                         const mcpp_receipt *r)
{
    receipt_metric m;
    resolve_metric(&m, p, ref, r);
    if (!m.has_stated) return 0;
    int rc = push(&s->stated, &s->n_stated, &s->cap_stated, m.stated);
    if (rc || (rc = add_run(s, &m)) != 0) return rc;
    note_ident(s, &m.ident);
    if (!s->suite && p->id_suite >= 0) s->suite = mcpp_field_string(r, p->id_suite);
    s->receipts++;
    /* Samples of another kind than the side's first (rounds against
     * repetitions) are not one population: that receipt counts as a point. */
    if (m.use_steps && s->sample_kind && strcmp(s->sample_kind, m.sample_kind) != 0) m.use_steps = 0;
    if (m.use_steps) {
        if (!s->sample_kind) s->sample_kind = m.sample_kind;
        for (size_t i = 0; i < m.n_samples; i++) {
            double t = m.from_view ? mcpp_metric_sample(&m.view, i) : m.samples[i];
            if (!m.from_view && !(t > 0)) continue; /* a zero-length step carries no rate */
            double v = m.from_view || m.scale == 0 ? t : mcpp_tokens_per_s_from_steps(m.scale, t);
            if ((rc = push(&s->steps, &s->n_steps, &s->cap_steps, v)) != 0) return rc;
        }
        s->with_samples++;
    }
    return 1;
}

static void put_ident(mcpp_strbuf *why, const mcpp_metric_ident *id, const char *what)
{
    if (strcmp(what, "metric") == 0) mcpp_sb_printf(why, "'%s'", id->name ? id->name : "(none)");
    else if (strcmp(what, "unit") == 0) mcpp_sb_printf(why, "'%s'", id->unit ? id->unit : "(no unit)");
    else mcpp_sb_puts(why, id->higher_is_better ? "higher is better" : "lower is better");
}

static void conflict_reason(mcpp_strbuf *why, const char *name, const char *what, const mcpp_metric_ident *a,
                            const char *a_side, const mcpp_metric_ident *b, const char *b_side)
{
    mcpp_sb_printf(why, "%s: %s ", name ? name : "metric", strcmp(what, "metric") == 0 ? "primary metric" : what);
    put_ident(why, a, what);
    mcpp_sb_printf(why, " on %s, ", a_side);
    put_ident(why, b, what);
    mcpp_sb_printf(why, " on %s: not compared", b_side);
}

int mcpp_metric_sides_agree(const mcpp_metric_side *base, const mcpp_metric_side *cand, mcpp_strbuf *why)
{
    const char *what;
    if (base->conflict) {
        conflict_reason(why, base->ident.name, base->conflict, &base->ident, "one baseline", &base->other, "another");
        return 0;
    }
    if (cand->conflict) {
        conflict_reason(why, cand->ident.name, cand->conflict, &cand->ident, "one candidate", &cand->other, "another");
        return 0;
    }
    if (!mcpp_metric_ident_same(&base->ident, &cand->ident, &what)) {
        conflict_reason(why, base->ident.name, what, &base->ident, "the base", &cand->ident, "the candidate");
        return 0;
    }
    return 1;
}

/* A side's runs summed up: the center of its log values (mean, or the
 * olympic mean), the sum of squares about their mean with its degrees of
 * freedom, and the effective count behind the center. */
typedef struct run_summary {
    double center, ss, df, n_eff;
} run_summary;

static void summarise_runs(run_summary *out, const double *x, size_t n, mcpp_run_aggregate aggregate)
{
    double mean = 0, ss = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        mean += x[i];
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    mean /= (double)n;
    for (size_t i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    out->ss = ss;
    out->df = (double)n - 1;
    out->center = mean;
    out->n_eff = (double)n;
    if (aggregate == MCPP_AGGREGATE_OLYMPIC_MEAN && n >= 3) {
        /* MLPerf's score drops the fastest and the slowest run; the mean of
         * the n-2 left has (cautiously) the variance of n-2 runs. */
        out->center = (mean * (double)n - lo - hi) / (double)(n - 2);
        out->n_eff = (double)(n - 2);
    }
}

/* The noise sources by bit: 1 runs, 2 history, 4 policy, 8 suite, and 16
 * when the policy's figure is the library's default, not one it declared
 * (named "default"); their names joined by "+" ("none" for 0). */
#define SOURCE_DEFAULT 16
/* clang-format off */
static const char *const SOURCE_NAMES[32] = {
    "none",  "runs",       "history",       "runs+history",       "policy",       "runs+policy",
    "history+policy",      "runs+history+policy",                 "suite",        "runs+suite",
    "history+suite",       "runs+history+suite",                  "policy+suite", "runs+policy+suite",
    "history+policy+suite", "runs+history+policy+suite",
    "none",  "runs",       "history",       "runs+history",       "default",      "runs+default",
    "history+default",     "runs+history+default",                "suite",        "runs+suite",
    "history+suite",       "runs+history+suite",                  "default+suite", "runs+default+suite",
    "history+default+suite", "runs+history+default+suite"};
/* clang-format on */

static const char *source_name(int runs, int history, int policy, int declared)
{
    return SOURCE_NAMES[(runs ? 1 : 0) | (history ? 2 : 0) | (policy ? 4 : 0) |
                        (policy && !declared ? SOURCE_DEFAULT : 0)];
}

/* The variance each side's center carries beyond its runs' own spread: the
 * runs of one side share their job, so the between-jobs variance that
 * run_sd does not cover is counted once per side (docs/statistics.md). */
static double between_sides_var(const mcpp_metric_result *m)
{
    double v = m->between_sd * m->between_sd - m->run_sd * m->run_sd;
    return v > 0 ? 2 * v : 0;
}

/* The degrees of freedom of run_sd, or the fewer of between_sd's when it
 * adds to the standard error. */
static void set_df(mcpp_metric_result *m, double run_df)
{
    m->df = between_sides_var(m) > 0 && m->between_df < run_df ? m->between_df : run_df;
}

/* The one-sided p-value of a log change du (< 0: the candidate is worse) at
 * standard error se: Student t. When the machine's single runs have heavy
 * tails (tail_df), at least the chance that one far-off run alone moved its
 * side's center by du: a side's n runs move it by du when one lands n·du off,
 * and a sum of heavy-tailed runs is about as far off as its farthest run
 * (P(S > x) ~ n P(X > x); Embrechts, Klüppelberg & Mikosch 1997, ch. 1.3). */
static double p_worse(const mcpp_metric_result *m, double du, double se)
{
    if (!(se > 0)) return du < 0 ? 0 : du > 0 ? 1 : 0.5;
    if (m->null_shape) return mcpp_null_shape_upper(m->null_shape, -du / se);
    double p = mcpp_stats_t_cdf(du / se, m->df);
    /* one run's scale: what separate jobs differ by when the runs at hand share theirs */
    double run_scale = m->between_sd > m->run_sd ? m->between_sd : m->run_sd;
    if (m->tail_df > 0 && du < 0 && run_scale > 0) {
        double s = m->tail_scale * run_scale, nb = (double)m->n_base, nc = (double)m->n_cand;
        double one_run = nb * mcpp_stats_t_cdf(nb * du / s, m->tail_df) + nc * mcpp_stats_t_cdf(nc * du / s, m->tail_df);
        if (one_run > p) p = one_run < 0.5 ? one_run : 0.5;
    }
    return p;
}

/* The interval and p-value of a result from its log change, standard
 * error and degrees of freedom. */
static void set_interval(mcpp_metric_result *out, double d, double se)
{
    double level = 1 - (1 - out->confidence) / 2; /* the shape, like the t, is symmetric */
    double q = out->null_shape ? mcpp_null_shape_quantile(out->null_shape, level)
                               : mcpp_stats_t_quantile(level, out->df);
    double du = out->higher_is_better ? d : -d; /* < 0: the candidate is worse */
    out->se = se;
    out->p_value = p_worse(out, du, se);
    out->interval_low = exp(d - q * se) - 1;
    out->interval_high = exp(d + q * se) - 1;
    if (out->run_sd > out->noise_floor) out->noise_floor = out->run_sd;
}

static void add_suite_source(mcpp_metric_result *m)
{
    size_t bits = 0;
    while (bits < 32 && strcmp(SOURCE_NAMES[bits], m->noise_source) != 0)
        bits++;
    m->noise_source = SOURCE_NAMES[(bits & (7 | SOURCE_DEFAULT)) | 8];
}

void mcpp_metric_raise_noise(mcpp_metric_result *m, double run_sd, double df)
{
    int wider = run_sd > m->run_sd, heavier = df > 0 && df < m->df;
    if (m->point_comparison || !(wider || heavier)) return;
    double factor = 1 / (double)m->n_base + 1 / (double)m->n_cand;
    double se2 = m->se * m->se - between_sides_var(m);
    if (wider) {
        se2 += (run_sd * run_sd - m->run_sd * m->run_sd) * factor;
        m->run_sd = run_sd;
        if (df > 0) set_df(m, df);
    } else {
        set_df(m, df);
    }
    double se = sqrt(se2 + between_sides_var(m));
    add_suite_source(m);
    set_interval(m, log1p(m->rel_delta), se);
}

void mcpp_metric_heavy_tails(mcpp_metric_result *m, double scale, double df)
{
    if (m->point_comparison || !(scale > 0) || !(df > 0)) return;
    m->tail_df = df;
    m->tail_scale = scale;
    set_interval(m, log1p(m->rel_delta), m->se);
}

void mcpp_metric_drop_between(mcpp_metric_result *m)
{
    if (m->point_comparison) return;
    m->se = sqrt(m->se * m->se - between_sides_var(m));
    m->between_sd = m->between_df = 0;
}

void mcpp_metric_raise_between(mcpp_metric_result *m, double se, double df)
{
    if (m->point_comparison || !(se > m->se)) return;
    double term = between_sides_var(m) + se * se - m->se * m->se;
    m->between_sd = sqrt(m->run_sd * m->run_sd + term / 2);
    m->between_df = df;
    if (df > 0 && df < m->df) m->df = df;
    add_suite_source(m);
    set_interval(m, log1p(m->rel_delta), se);
}

void mcpp_metric_job_noise(mcpp_metric_result *m, double within_var, double within_df, double between_var,
                           double between_df)
{
    if (m->point_comparison || !(m->run_sd > 0) || !(within_var > 0) || !(between_var > 0)) return;
    /* 1/nb + 1/nc, or the olympic mean's n - 2 in their place */
    double factor = (m->se * m->se - between_sides_var(m)) / (m->run_sd * m->run_sd);
    m->run_sd = sqrt(within_var);
    m->between_sd = sqrt(between_var);
    m->between_df = between_df;
    m->noise_source = SOURCE_NAMES[(m->n_base > 1 || m->n_cand > 1 ? 1 : 0) | 2 | 8];
    double jobs = between_sides_var(m), se2 = within_var * factor + jobs;
    /* se2 = w (factor - 2) + 2 b when b > w: Satterthwaite's degrees of
     * freedom of that sum (with one run a side, factor = 2: the history's) */
    double c = jobs > 0 ? factor - 2 : factor, b_term = jobs > 0 ? 4 * between_var * between_var / between_df : 0;
    m->df = se2 * se2 / (c * c * within_var * within_var / within_df + b_term);
    set_interval(m, log1p(m->rel_delta), sqrt(se2));
}

void mcpp_metric_null_shape(mcpp_metric_result *m, const mcpp_null_shape *shape)
{
    if (m->point_comparison || m->method != METHOD_T || !shape || !(m->se > 0)) return;
    m->null_shape = shape;
    m->method = METHOD_SHAPE;
    set_interval(m, log1p(m->rel_delta), m->se);
}

void mcpp_metric_medians(mcpp_metric_result *m, double base_center, double cand_center, double run_sd, double se,
                         double tail_df, const mcpp_null_shape *shape)
{
    if (m->point_comparison || m->method != METHOD_T || !shape || !(se > 0)) return;
    m->base_median = exp(base_center);
    m->cand_median = exp(cand_center);
    m->rel_delta = expm1(cand_center - base_center);
    m->run_sd = run_sd;
    m->df = INFINITY; /* the shape, not a t, gives the p-value */
    m->between_sd = m->between_df = 0;
    m->tail_df = tail_df;
    m->tail_scale = 1;
    m->noise_source = SOURCE_NAMES[2 | 8];
    m->null_shape = shape;
    m->method = METHOD_MEDIANS;
    set_interval(m, cand_center - base_center, se);
}

double mcpp_metric_detectable(const mcpp_metric_result *m, double p)
{
    if (m->point_comparison || !(m->se > 0)) return INFINITY;
    double lo = 0, hi = m->se; /* p_worse falls as the worsening grows: bisection */
    while (p_worse(m, -hi, m->se) > p && hi < 1e3) hi *= 2;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (p_worse(m, -mid, m->se) > p) lo = mid;
        else hi = mid;
    }
    return hi;
}

void mcpp_metric_widen(mcpp_metric_result *m, double factor, double df)
{
    if (m->point_comparison || !(factor > 1)) return;
    m->run_sd *= factor;
    m->between_sd *= factor;
    if (df > 0 && df < m->df) m->df = df;
    if (df > 0 && m->between_df > df) m->between_df = df;
    add_suite_source(m);
    set_interval(m, log1p(m->rel_delta), m->se * factor);
}

void mcpp_metric_anchor(mcpp_metric_result *m, double base_move, double weight, double se)
{
    if (m->point_comparison || !(se > 0))
        return;
    m->history_level_weight = weight;
    double d = log1p(m->rel_delta) - base_move;
    m->base_median *= exp(base_move);
    m->rel_delta = expm1(d);
    set_interval(m, d, se);
}

void mcpp_metric_center(mcpp_metric_result *m, double shift, double se_factor)
{
    if (m->point_comparison || !(m->se > 0)) return;
    double du = (m->higher_is_better ? 1 : -1) * (log1p(m->rel_delta) - shift);
    m->suite_shift = expm1(shift);
    m->p_value = p_worse(m, du, m->se * se_factor);
}

void mcpp_metric_moderate(mcpp_metric_result *m, double runs_ss, double runs_df, double suite_var, double weight)
{
    if (m->point_comparison || m->history_runs || !(suite_var > 0) || !(m->run_sd > 0)) return;
    double var = mcpp_stats_moderated_var(suite_var, weight, runs_ss, runs_df);
    /* The factor behind se: exact from the result when its variance came
     * from runs (the olympic mean's n - 2 included); else 1/nb + 1/nc and the
     * within-run part a declared figure carried. */
    double se2 = m->se * m->se - between_sides_var(m);
    double factor = runs_df > 0 ? se2 / (m->run_sd * m->run_sd) : 1 / (double)m->n_base + 1 / (double)m->n_cand;
    double within = runs_df > 0 ? 0 : se2 - m->run_sd * m->run_sd * factor;
    m->noise_source = SOURCE_NAMES[(runs_df > 0 ? 1 : 0) | 8];
    m->run_sd = sqrt(var);
    set_df(m, weight + runs_df);
    set_interval(m, log1p(m->rel_delta), sqrt(var * factor + (within > 0 ? within : 0) + between_sides_var(m)));
}

void mcpp_metric_side_spread(const mcpp_metric_side *s, double *ss, double *df)
{
    double mean = 0;
    for (size_t i = 0; i < s->n_runs; i++) mean += s->runs[i];
    mean /= s->n_runs ? (double)s->n_runs : 1;
    *ss = 0;
    for (size_t i = 0; i < s->n_runs; i++) *ss += (s->runs[i] - mean) * (s->runs[i] - mean);
    *df = s->n_runs ? (double)s->n_runs - 1 : 0;
}

/* Writes a point comparison: no noise source, or values with no log scale. */
static void point_result(mcpp_metric_result *out)
{
    out->interval_low = out->interval_high = out->rel_delta;
    out->method = METHOD_POINT;
    out->point_comparison = 1;
    out->p_value = NAN;
    out->noise_source = "none";
}

void mcpp_metric_declared_noise(const mcpp_policy *p, const mcpp_metric_side *base, const mcpp_metric_side *cand,
                                double *run_to_run, double *run_to_run_df)
{
    mcpp_policy_declared_noise(p, base->suite ? base->suite : cand->suite, run_to_run, run_to_run_df);
}

int mcpp_metric_compare(mcpp_metric_result *out, const mcpp_policy *p, double confidence,
                        const mcpp_metric_side *base, const mcpp_metric_side *cand,
                        const mcpp_metric_side *history)
{
    memset(out, 0, sizeof *out);
    out->metric = base->ident.name;
    out->unit = base->ident.unit;
    out->higher_is_better = base->ident.higher_is_better;
    out->confidence = confidence;
    out->p_threshold = (1 - confidence) / 2;
    out->tests = 1;
    out->noise_floor = p->noise.noise_floor;
    if (base->unloggable || cand->unloggable || !base->n_runs || !cand->n_runs) {
        /* Values with no log scale: the plain ratio of the stated medians. */
        double b = median_of_samples(base->stated, base->n_stated), c = median_of_samples(cand->stated, cand->n_stated);
        out->base_median = b;
        out->cand_median = c;
        out->n_base = base->n_stated;
        out->n_cand = cand->n_stated;
        out->rel_delta = b != 0 ? c / b - 1 : NAN;
        point_result(out);
        return MCPP_OK;
    }
    run_summary rb, rc, rh = {0, 0, 0, 0};
    summarise_runs(&rb, base->runs, base->n_runs, p->run_aggregate);
    summarise_runs(&rc, cand->runs, cand->n_runs, p->run_aggregate);
    if (history && history->n_runs >= 2) summarise_runs(&rh, history->runs, history->n_runs, MCPP_AGGREGATE_GEOMETRIC_MEAN);
    out->n_base = base->n_runs;
    out->n_cand = cand->n_runs;
    out->history_runs = rh.df > 0 ? history->n_runs : 0;
    double d = rc.center - rb.center;
    out->base_median = exp(rb.center);
    out->cand_median = exp(rc.center);
    out->rel_delta = exp(d) - 1;
    /* The run-to-run variance pools every source at hand; the policy's
     * declared figure (its suite's, for benchmark-suite results) weighs as
     * run_to_run_df degrees of freedom. */
    double declared, declared_df;
    mcpp_metric_declared_noise(p, base, cand, &declared, &declared_df);
    /* A lane's own history says what its runs differ by; the declared figure
     * is the suite's guess for lanes that have none. Blended, 20 df of a
     * declared 5% outweighed the 11 of a 1%-noise benchmark's own history and
     * hid its 30% slowdowns (docs/statistics.md, "Each benchmark's own noise"). */
    double prior_df = declared > 0 && !(rh.df > 0) ? declared_df : 0;
    double runs_df = rb.df + rc.df, df = prior_df + runs_df + rh.df;
    out->noise_source = source_name(runs_df > 0, rh.df > 0, prior_df > 0,
                                    mcpp_policy_noise_is_declared(p, base->suite ? base->suite : cand->suite));
    if (!(df > 0)) {
        point_result(out);
        return MCPP_OK;
    }
    double var = (prior_df * declared * declared + rb.ss + rc.ss + rh.ss) / df;
    double se2 = var * (1 / rb.n_eff + 1 / rc.n_eff);
    /* Only a declared figure lacks the within-run noise that observed runs carry. */
    if (runs_df + rh.df == 0)
        se2 += base->within_var / ((double)base->n_runs * (double)base->n_runs) +
               cand->within_var / ((double)cand->n_runs * (double)cand->n_runs);
    out->run_sd = sqrt(var);
    /* What separate jobs differ by: the declared figure and the history,
     * whose runs each came from a job of their own. */
    double between_df = prior_df + rh.df;
    if (between_df > 0) {
        out->between_sd = sqrt((prior_df * declared * declared + rh.ss) / between_df);
        out->between_df = between_df;
    }
    se2 += between_sides_var(out);
    set_df(out, df);
    out->method = p->run_aggregate == MCPP_AGGREGATE_OLYMPIC_MEAN ? METHOD_T_OLYMPIC : METHOD_T;
    set_interval(out, d, sqrt(se2));
    return MCPP_OK;
}

/* "3+3 runs, run-to-run 4.1% (df 24: runs+policy)" and, for a gate over
 * several tests, how the threshold was adjusted: what the verdict rests on. */
static void put_noise(mcpp_strbuf *b, const mcpp_metric_result *m)
{
    mcpp_sb_printf(b, "%zu+%zu runs", m->n_base, m->n_cand);
    if (m->history_runs) mcpp_sb_printf(b, ", %zu earlier runs of the lane", m->history_runs);
    if (m->history_set_aside)
        mcpp_sb_printf(b, " (%zu set aside: far off the lane's median, a busy machine)", m->history_set_aside);
    if (m->history_level_weight > 0)
        mcpp_sb_printf(b, ", the baseline's level %.0f%% from them", m->history_level_weight * 100);
    mcpp_sb_printf(b, "; run-to-run %.1f%% (%s, df %.0f)", m->run_sd * 100, m->noise_source, m->df);
    if (between_sides_var(m) > 0)
        mcpp_sb_printf(b, "; between jobs %.1f%%, which runs of one job do not average out", m->between_sd * 100);
}

static void put_test(mcpp_strbuf *b, const mcpp_metric_result *m)
{
    mcpp_sb_printf(b, "p = %.2g %s %.2g", m->p_value, m->p_value <= m->p_threshold ? "<=" : ">", m->p_threshold);
    if (m->suite_shift != 0) {
        mcpp_sb_puts(b, " against the suite's common shift ");
        mcpp_sb_signed_change(b, m->suite_shift);
    }
    if (m->tests > 1) mcpp_sb_printf(b, ", Benjamini-Hochberg over %zu tests", m->tests);
}

mcpp_gate_outcome mcpp_gate_outcome_of(const size_t counts[MCPP_GATE_OUTCOMES], int nothing_gated)
{
    if (counts[MCPP_GATE_FAILED])
        return MCPP_GATE_FAILED;
    if (counts[MCPP_GATE_UNDETERMINED] || nothing_gated)
        return MCPP_GATE_UNDETERMINED;
    return counts[MCPP_GATE_INCONCLUSIVE] ? MCPP_GATE_INCONCLUSIVE : MCPP_GATE_PASSED;
}

/* Runs a side beyond which the estimate of what would settle a test is no
 * advice (the between-jobs noise, not the runs, then rules the error). */
#define SETTLE_RUNS_MAX 1000

void mcpp_metric_settle(mcpp_metric_result *m, const mcpp_policy *p, double allowance, int inconclusive)
{
    m->min_detectable = inconclusive ? mcpp_policy_min_detectable_for(p, allowance) : 0;
    m->decided_low = m->interval_low;
    m->decided_high = m->interval_high;
    m->runs_to_settle = 0;
    if (m->point_comparison || !(m->se > 0) || !isfinite(m->rel_delta))
        return;
    /* The model's p-value is symmetric about the change (t, or the shape of
     * pairs): the changes not rejected at the level decided lie within c of it. */
    double c = mcpp_metric_detectable(m, m->p_threshold), d = log1p(m->rel_delta);
    m->decided_low = expm1(d - c);
    m->decided_high = expm1(d + c);
    /* What would rule out min_detectable: c shrinks as the square root of
     * 1/n_b + 1/n_c with n runs a side (the runs' part of the error), while
     * the change seen (in the worse direction) stays. */
    if (!inconclusive)
        return;
    double worse = m->higher_is_better ? -d : d, room = log1p(m->min_detectable) - (worse > 0 ? worse : 0);
    if (!(room > 0))
        return;
    double per_run = c / sqrt(1 / (double)m->n_base + 1 / (double)m->n_cand);
    double n = ceil(2 * (per_run / room) * (per_run / room));
    m->runs_to_settle = n < SETTLE_RUNS_MAX ? n : SETTLE_RUNS_MAX;
}

/* The worse end of the interval at the level decided, as a worsening (> 0: worse). */
static double decided_worst(const mcpp_metric_result *m)
{
    double a = -mcpp_metric_improvement(m->decided_low, m->higher_is_better);
    double b = -mcpp_metric_improvement(m->decided_high, m->higher_is_better);
    return a > b ? a : b;
}

/* "interval at the level decided (99.9%, Benjamini-Hochberg) −12.1% .. +23.5%" */
static void put_decided(mcpp_strbuf *b, const mcpp_metric_result *m)
{
    mcpp_sb_printf(b, "interval at the level decided (%.4g%%%s) ", 100 * (1 - 2 * m->p_threshold),
                   m->tests > 1 ? ", Benjamini-Hochberg" : "");
    mcpp_sb_signed_change(b, m->decided_low < m->decided_high ? m->decided_low : m->decided_high);
    mcpp_sb_puts(b, " .. ");
    mcpp_sb_signed_change(b, m->decided_low < m->decided_high ? m->decided_high : m->decided_low);
}

mcpp_gate_outcome mcpp_metric_gate(const mcpp_metric_result *m, const mcpp_policy *p, double allowance,
                                   mcpp_strbuf *reason)
{
    if (!isfinite(m->rel_delta)) {
        mcpp_sb_printf(reason, "%s: base median is 0, no relative change can be formed", m->metric);
        return MCPP_GATE_UNDETERMINED;
    }
    /* The sign convention of metric_change.h: u > 0 is better. */
    double u = mcpp_metric_improvement(m->rel_delta, m->higher_is_better);
    const char *dir = m->higher_is_better ? "higher is better" : "lower is better";
    if (m->point_comparison && !p->allow_point_comparisons) {
        mcpp_sb_puts(reason, "point comparison (");
        mcpp_sb_change_words(reason, u);
        mcpp_sb_printf(reason,
                       " on %s): one run a side and no run-to-run noise source (several runs, a store "
                       "history or the policy's noise.run_to_run), so no change can be established; "
                       "policy '%s' does not allow point comparisons",
                       m->metric, p->name);
        return MCPP_GATE_UNDETERMINED;
    }
    int beyond = u < -allowance;
    int established = m->point_comparison ? beyond : m->p_value <= m->p_threshold;
    mcpp_gate_outcome outcome = established && beyond ? MCPP_GATE_FAILED : MCPP_GATE_PASSED;
    /* Passed only when the interval the decision used rules out a
     * regression beyond min_detectable; a point comparison has no interval. */
    double worst = decided_worst(m);
    if (outcome == MCPP_GATE_PASSED && !m->point_comparison && m->min_detectable > 0 && worst > m->min_detectable)
        outcome = MCPP_GATE_INCONCLUSIVE;
    if (outcome == MCPP_GATE_INCONCLUSIVE)
        mcpp_sb_puts(reason, "inconclusive: ");
    else if (outcome == MCPP_GATE_PASSED && fabs(u) < m->noise_floor)
        mcpp_sb_puts(reason, "within noise: ");
    mcpp_sb_change_words(reason, u);
    mcpp_sb_printf(reason, " on %s (%s)", m->metric, dir);
    if (m->point_comparison) {
        mcpp_sb_printf(reason, beyond ? ": beyond the %.1f%% allowance" : ": within the %.1f%% allowance",
                       allowance * 100);
        mcpp_sb_puts(reason, " [point comparison: one run a side, no noise source]");
        return outcome;
    }
    if (outcome == MCPP_GATE_FAILED)
        mcpp_sb_printf(reason, ": a regression established and beyond the %.1f%% allowance", allowance * 100);
    else if (u < 0 && !established)
        mcpp_sb_puts(reason, ": no regression established");
    else if (u < 0)
        mcpp_sb_printf(reason, ": established but within the %.1f%% allowance", allowance * 100);
    if (outcome == MCPP_GATE_INCONCLUSIVE) {
        mcpp_sb_puts(reason, u < 0 ? "; a regression up to " : ": no regression established; a regression up to ");
        mcpp_sb_signed_change(reason, m->higher_is_better ? -worst : worst);
        mcpp_sb_printf(reason, " is not ruled out (min_detectable %.1f%%)", m->min_detectable * 100);
        if (m->runs_to_settle >= SETTLE_RUNS_MAX)
            mcpp_sb_printf(reason, "; more than %d runs a side would be needed", SETTLE_RUNS_MAX);
        else if (m->runs_to_settle > 0)
            mcpp_sb_printf(reason, "; about %.0f runs a side would settle it", m->runs_to_settle);
        else
            mcpp_sb_puts(reason, "; the change itself is that large: more runs would tell");
        if (!m->history_runs)
            mcpp_sb_puts(reason, ", a lane history (gate --history) narrows it");
    }
    mcpp_sb_printf(reason, " (%.0f%% interval ", m->confidence * 100);
    mcpp_sb_interval_words(reason, m);
    if (m->tests > 1 || m->decided_low != m->interval_low) {
        mcpp_sb_puts(reason, "; ");
        put_decided(reason, m);
    }
    mcpp_sb_puts(reason, "; ");
    put_test(reason, m);
    mcpp_sb_puts(reason, "; ");
    put_noise(reason, m);
    mcpp_sb_putc(reason, ')');
    return outcome;
}

/* One member whose value is the pair [lo, hi] (an interval). */
static void json_key_pair(mcpp_strbuf *b, const char *key, double lo, double hi)
{
    mcpp_sb_json_key_number(b, key, lo);
    mcpp_sb_json_key_number(b, ", ", hi);
    mcpp_sb_putc(b, ']');
}

void mcpp_metric_render_json(mcpp_strbuf *b, const mcpp_metric_result *m)
{
    mcpp_sb_json_key_string(b, "{\"name\": ", m->metric);
    mcpp_sb_puts(b, ", \"unit\": ");
    if (m->unit) mcpp_sb_json_string(b, m->unit);
    else mcpp_sb_puts(b, "null");
    mcpp_sb_printf(b, ", \"higher_is_better\": %s", m->higher_is_better ? "true" : "false");
    mcpp_sb_json_key_number(b, ", \"base_median\": ", m->base_median);
    mcpp_sb_json_key_number(b, ", \"cand_median\": ", m->cand_median);
    mcpp_sb_json_key_number(b, ", \"rel_delta\": ", m->rel_delta);
    json_key_pair(b, ", \"interval\": [", m->interval_low, m->interval_high);
    double lo, hi, improvement = mcpp_metric_improvement(m->rel_delta, m->higher_is_better);
    mcpp_metric_improvement_interval(m, &lo, &hi);
    mcpp_sb_json_key_number(b, ", \"improvement\": ", improvement);
    json_key_pair(b, ", \"improvement_interval\": [", lo, hi);
    mcpp_sb_puts(b, ", \"change\": \"");
    mcpp_sb_change_words(b, improvement);
    mcpp_sb_json_key_number(b, "\", \"confidence\": ", m->confidence);
    mcpp_sb_printf(b, ", \"n_base\": %zu, \"n_cand\": %zu", m->n_base, m->n_cand);
    mcpp_sb_json_key_number(b, ", \"noise_floor\": ", m->noise_floor);
    mcpp_sb_json_key_string(b, ", \"method\": ", m->method);
    mcpp_sb_printf(b, ", \"point_comparison\": %s", m->point_comparison ? "true" : "false");
    mcpp_sb_json_key_string(b, ", \"noise\": {\"source\": ", m->noise_source ? m->noise_source : "none");
    mcpp_sb_printf(b, ", \"runs_base\": %zu, \"runs_cand\": %zu, \"history_runs\": %zu, \"history_set_aside\": %zu",
                   m->n_base, m->n_cand, m->history_runs, m->history_set_aside);
    mcpp_sb_json_key_number(b, ", \"history_level_weight\": ", m->history_level_weight);
    mcpp_sb_json_key_number(b, ", \"run_sd\": ", m->run_sd);
    mcpp_sb_json_key_number(b, ", \"between_sd\": ", m->between_sd);
    mcpp_sb_json_key_number(b, ", \"df\": ", isinf(m->df) ? -1 : m->df);
    mcpp_sb_json_key_number(b, ", \"tail_df\": ", m->tail_df);
    mcpp_sb_json_key_number(b, "}, \"p_value\": ", m->p_value);
    mcpp_sb_json_key_number(b, ", \"p_threshold\": ", m->p_threshold);
    json_key_pair(b, ", \"decided_interval\": [", m->decided_low, m->decided_high);
    mcpp_sb_json_key_number(b, ", \"min_detectable\": ", m->min_detectable);
    mcpp_sb_json_key_number(b, ", \"runs_to_settle\": ", m->runs_to_settle);
    mcpp_sb_json_key_number(b, ", \"common_shift\": ", m->suite_shift);
    mcpp_sb_printf(b, ", \"tests\": %zu}", m->tests);
}

static const char *center_name(const mcpp_metric_result *m, size_t n)
{
    return n == 1 ? "value" : m->method && strstr(m->method, "olympic") && n >= 3 ? "olympic mean" : "geometric mean";
}

void mcpp_metric_render_text(mcpp_strbuf *b, const mcpp_metric_result *m, const char *indent)
{
    mcpp_sb_printf(b, "%smetric      ", indent);
    mcpp_sb_terminal(b, m->metric);
    mcpp_sb_puts(b, " (");
    if (m->unit) {
        mcpp_sb_terminal(b, m->unit);
        mcpp_sb_puts(b, ", ");
    }
    mcpp_sb_printf(b, "%s)\n", m->higher_is_better ? "higher is better" : "lower is better");
    mcpp_sb_printf(b, "%sbase        %.6g (%s of %zu run%s)\n", indent, m->base_median, center_name(m, m->n_base),
                   m->n_base, m->n_base == 1 ? "" : "s");
    mcpp_sb_printf(b, "%scandidate   %.6g (%s of %zu run%s)\n", indent, m->cand_median, center_name(m, m->n_cand),
                   m->n_cand, m->n_cand == 1 ? "" : "s");
    mcpp_sb_printf(b, "%schange      ", indent);
    mcpp_sb_change_words(b, mcpp_metric_improvement(m->rel_delta, m->higher_is_better));
    mcpp_sb_puts(b, " (");
    mcpp_sb_signed_change(b, m->rel_delta);
    mcpp_sb_putc(b, ')');
    if (m->point_comparison) {
        mcpp_sb_puts(b, " (point comparison: no interval)\n");
    } else {
        mcpp_sb_printf(b, "  [%.0f%% interval ", m->confidence * 100);
        mcpp_sb_interval_words(b, m);
        mcpp_sb_puts(b, "]\n");
        if (m->tests > 1 || m->decided_low != m->interval_low) {
            mcpp_sb_printf(b, "%sdecided     ", indent);
            put_decided(b, m);
            mcpp_sb_putc(b, '\n');
        }
        mcpp_sb_printf(b, "%stest        ", indent);
        put_test(b, m);
        mcpp_sb_printf(b, "\n%snoise       ", indent);
        put_noise(b, m);
        mcpp_sb_putc(b, '\n');
    }
    mcpp_sb_printf(b, "%snoise floor %.2f%%   method: %s\n", indent, m->noise_floor * 100, m->method);
}
