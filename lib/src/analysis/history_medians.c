/*
 * history_medians.c — the gate's medians source (docs/statistics.md, "Heavy
 * tails: the medians of the runs").
 *
 * When the lanes' history reads the machine's single runs as a Student t
 * with few degrees of freedom (history_tails in gate_noise.c), a side's mean is at
 * the mercy of its one far-off run, and a test on means needs a large change
 * before a far-off run cannot explain it (noise lab, heavy-tailed, 5 runs a
 * side with a history: 30% of 10% slowdowns found on 200 merges, where a
 * median threshold tuned on the same history found 43%). The median of four
 * or more runs shrugs such a run off. So each such test compares the sides'
 * medians of log run values, reading its p-value and interval from their
 * exact null distribution (median_shape.h) at its lane's scale:
 * - each lane's scale is the maximum-likelihood scale of its earlier runs as
 *   a t of the history's degrees of freedom (mcpp_stats_t_location_scale:
 *   their far-off runs weigh little), whose log has the sampling variance
 *   (df + 3) / (2 df (n - 1)) (the inverse of Fisher's information);
 * - the lanes' log scales are pooled the way the suite pools its variances:
 *   each shrinks toward their mean as far as they scatter no more than that
 *   sampling variance explains (the method of moments for the spread of
 *   true scales, DerSimonian & Laird 1986), and the shape mixes over what
 *   uncertainty is left.
 */
#include <math.h>
#include <stdlib.h>

#include "analysis/gate_internal.h"
#include "analysis/stats_internal.h"
#include "util/error_internal.h"

/* Fewer runs a side have no median steadier than their mean: the median of
 * three is one run, and the noise lab's heavy-tailed machine (a t with 3
 * df, read as 4) with 3 runs a side found 5.5% of 10% slowdowns by medians
 * on 200 merges, 10.9% by means. */
#define MEDIANS_MIN_RUNS 4
/* Below this many lanes their scales are not pooled (gate_noise.c's SUITE_MIN_TESTS). */
#define MEDIANS_MIN_LANES 8

/* A lane's log scale from its earlier runs as a t with `df` degrees of
 * freedom, and its sampling variance in *var; 0 when it has too few. The
 * maximum-likelihood scale divides by n: the location's degree of freedom
 * is given back, and its log, which sits about var / 2 below the true one
 * (simulated for 2-6 df and 10-40 runs), is raised by that. */
static int lane_log_scale(const gate_metric_entry *g, double df, double *log_scale, double *var)
{
    size_t n = g->n_history_scores;
    double location, s = n >= 4 ? mcpp_stats_t_location_scale(g->history_values, n, df, &location) : 0;
    if (!(s > 0)) return 0;
    *var = (df + 3) / (2 * df * (double)(n - 1));
    *log_scale = log(s) + 0.5 * log((double)n / (double)(n - 1)) + *var / 2;
    return 1;
}

/* What the lanes' log scales agree on: their mean, its variance, and the
 * variance of the true scales about it (INFINITY with fewer than
 * MEDIANS_MIN_LANES lanes: each keeps its own). */
typedef struct scale_pool {
    double mean, mean_var, between;
} scale_pool;

/* `scratch` holds 2m doubles. */
static scale_pool pooled_scales(gate_metric_entry *const *tests, size_t m, double df, double *scratch)
{
    scale_pool pool = {0, 0, INFINITY};
    size_t n = 0;
    for (size_t i = 0; i < m; i++)
        if (lane_log_scale(tests[i], df, &scratch[n], &scratch[m + n])) n++;
    if (n < MEDIANS_MIN_LANES) return pool;
    double plain = 0, spread = 0, sampling = 0;
    for (size_t i = 0; i < n; i++) plain += scratch[i], sampling += scratch[m + i];
    plain /= (double)n;
    for (size_t i = 0; i < n; i++) spread += (scratch[i] - plain) * (scratch[i] - plain);
    pool.between = spread / (double)(n - 1) - sampling / (double)n;
    if (pool.between < 0) pool.between = 0;
    double weights = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        double w = 1 / (pool.between + scratch[m + i]);
        weights += w, sum += w * scratch[i];
    }
    pool.mean = sum / weights;
    pool.mean_var = 1 / weights;
    return pool;
}

/* A lane's scale, shrunk toward the lanes' as far as they agree, and the
 * variance of its log in *log_var; 0 when its history has too few runs. */
static double lane_scale(const gate_metric_entry *g, double df, const scale_pool *pool, double *log_var)
{
    double own, own_var;
    if (!lane_log_scale(g, df, &own, &own_var)) return 0;
    if (isinf(pool->between)) {
        *log_var = own_var;
        return exp(own);
    }
    double keep = pool->between / (pool->between + own_var);
    *log_var = keep * own_var + (1 - keep) * (1 - keep) * pool->mean_var;
    return exp(pool->mean + keep * (own - pool->mean));
}

static int has_medians(const gate_metric_entry *g)
{
    return g->has_result && g->n_base_values >= MEDIANS_MIN_RUNS && g->n_cand_values >= MEDIANS_MIN_RUNS;
}

/* The one-sided level at which the runs at hand must agree more closely
 * than the history's before they are taken for runs of one job. */
#define SAME_JOB_LEVEL 0.05

/* Whether the runs at hand are draws like the history's, each from a job
 * of its own: the median of |x_i - x_j| over every pair of one side's runs,
 * in their lane's scales, against the median of |T1 - T2| for two such
 * runs, one-sided at SAME_JOB_LEVEL (the median's standard error from its
 * density there, Cramér 1946, with each side's n runs as n - 1 independent
 * pairs). Runs of one job agree more closely: their medians move together
 * with the job, which only a t on the between-jobs variance counts (gate_noise.c).
 * A machine whose runs at hand spread more than its history is caught by
 * history_spread_check instead. 1, 0, or -1 when out of memory. */
static int runs_independent(gate_metric_entry *const *tests, size_t m, double df, const scale_pool *pool)
{
    size_t pairs = 0, independent_pairs = 0;
    for (size_t i = 0; i < m; i++)
        if (has_medians(tests[i])) {
            size_t nb = tests[i]->n_base_values, nc = tests[i]->n_cand_values;
            pairs += nb * (nb - 1) / 2 + nc * (nc - 1) / 2;
            independent_pairs += nb + nc - 2;
        }
    double density, expected = mcpp_median_shape_pair_spread(df, &density);
    double *d = malloc((pairs ? pairs : 1) * sizeof *d);
    if (!d || isnan(expected)) {
        free(d);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < m; i++) {
        double log_var, s = has_medians(tests[i]) ? lane_scale(tests[i], df, pool, &log_var) : 0;
        const double *sides[2] = {tests[i]->base_values, tests[i]->cand_values};
        size_t counts[2] = {tests[i]->n_base_values, tests[i]->n_cand_values};
        for (int side = 0; s > 0 && side < 2; side++)
            for (size_t a = 0; a < counts[side]; a++)
                for (size_t b = 0; b < a; b++) d[n++] = fabs(sides[side][a] - sides[side][b]) / s;
    }
    int independent = 1;
    if (n) {
        double se = 1 / (2 * density * sqrt((double)independent_pairs));
        independent = mcpp_median_sorting(d, n) >= expected - mcpp_stats_normal_quantile(1 - SAME_JOB_LEVEL) * se;
    }
    free(d);
    return independent;
}

/* The medians' shape for these run counts and scale uncertainty, built once
 * per gate (each in its own block: results point at them); NULL when out of
 * memory. */
static const mcpp_median_shape *median_shape_for(mcpp_gate_report *r, size_t n_base, size_t n_cand, double df,
                                                 double scale_log_var)
{
    for (size_t i = 0; i < r->n_median_shapes; i++) {
        const mcpp_median_shape *s = r->median_shapes[i];
        if (s->n_base == n_base && s->n_cand == n_cand && s->tail_df == df && s->scale_log_var == scale_log_var)
            return s;
    }
    mcpp_median_shape **grown = realloc(r->median_shapes, (r->n_median_shapes + 1) * sizeof *grown);
    if (!grown) return NULL;
    r->median_shapes = grown;
    mcpp_median_shape *s = calloc(1, sizeof *s);
    if (!s || mcpp_median_shape_build(s, n_base, n_cand, df, scale_log_var)) {
        free(s);
        return NULL;
    }
    return grown[r->n_median_shapes++] = s;
}

int mcpp_gate_history_medians(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, double q)
{
    if (!r->history_scores || isinf(r->history_tail_df)) return MCPP_OK;
    double df = r->history_tail_df, *scratch = malloc((2 * m + 1) * sizeof *scratch);
    if (!scratch) return mcpp_error_nomem();
    scale_pool pool = pooled_scales(tests, m, df, scratch);
    free(scratch);
    int independent = runs_independent(tests, m, df, &pool);
    if (independent < 0) return mcpp_error_nomem();
    if (!independent) return MCPP_OK;
    /* one run's standard deviation as a normal's of the same quartiles: a t's
     * own is infinite at 2 df */
    double sd_per_scale = mcpp_stats_t_quantile(0.75, df) / mcpp_stats_normal_quantile(0.75);
    /* every candidate of a pooled group carries the group's result */
    for (size_t e = 0; e < r->n; e++)
        for (size_t k = 0; k < r->entries[e].n_metrics; k++) {
            gate_metric_entry *g = &r->entries[e].metrics[k];
            double log_var, scale = has_medians(g) ? lane_scale(g, df, &pool, &log_var) : 0;
            if (!(scale > 0)) continue;
            const mcpp_median_shape *shape = median_shape_for(r, g->n_base_values, g->n_cand_values, df, log_var);
            if (!shape) return mcpp_error_nomem();
            mcpp_metric_result *res = &g->result;
            /* Before any change is read: the estimate that needs the smaller
             * change to be established at the gate's strictest level wins
             * (with light enough tails, the mean). */
            double level = q / (double)(m ? m : 1);
            if (mcpp_null_shape_quantile(&shape->shape, 1 - level) * scale * shape->sd >=
                mcpp_metric_detectable(res, level))
                continue;
            mcpp_metric_medians(res, mcpp_median_sorting(g->base_values, g->n_base_values),
                                mcpp_median_sorting(g->cand_values, g->n_cand_values), scale * sd_per_scale,
                                scale * shape->sd, df, &shape->shape);
            if (res->null_shape != &shape->shape) continue;
            g->history_noise = 1;
            r->history_medians += r->entries[e].group == e;
        }
    return MCPP_OK;
}
