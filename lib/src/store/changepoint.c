/*
 * changepoint.c — change points of a benchmark series: where its level
 * shifted beyond noise.
 *
 * Method (binary segmentation with a BIC-like penalty on log values): work on
 * y = ln(value), so a step is a relative change and both faster and slower
 * runs count alike. The noise sigma is estimated once from the median
 * absolute deviation of successive differences divided by sqrt(2): a few
 * steps barely move it, unlike the plain standard deviation. For a segment,
 * splitting at t lowers the squared error by n1*n2/n * (mean1 - mean2)^2; the
 * best split is kept when that, over sigma^2, exceeds penalty * ln(N) (BIC
 * charges ln N per parameter; a larger factor keeps pure noise free of false
 * steps), each side has at least min_segment runs, and the medians of the two
 * sides differ by at least min_rel_change. Both halves are searched again.
 * When no single split is kept, the segment is searched for a middle part
 * that differs from both ends (a drop and a recovery, -20% then +16%: one
 * split explains little of it, issue 27): the best pair of splits is kept
 * when its gain exceeds twice the threshold (two parameters) and each of its
 * steps passes min_rel_change; the three parts are searched again.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"
#include "util/quantile.h"
#include "store/store_internal.h"

void mcpp_changepoint_settings_default(mcpp_changepoint_settings *out)
{
    if (!out) return;
    out->penalty_per_log_n = 6.0;
    out->min_rel_change = 0.01;
    out->min_segment = 4;
}

/* Median of v[0..n), sorting the scratch copy (the library's one quantile). */
static double median_of(const double *v, size_t n, double *scratch)
{
    memcpy(scratch, v, n * sizeof *v);
    return mcpp_median_sorting(scratch, n);
}

static double noise_sigma(const double *y, size_t n, double *scratch, double *diffs)
{
    for (size_t i = 0; i + 1 < n; i++) diffs[i] = y[i + 1] - y[i];
    double mid = median_of(diffs, n - 1, scratch);
    for (size_t i = 0; i + 1 < n; i++) diffs[i] = fabs(diffs[i] - mid);
    double mad = median_of(diffs, n - 1, scratch);
    double sigma = 1.4826 * mad / sqrt(2.0);
    return sigma > 1e-12 ? sigma : 1e-12;
}

typedef struct search {
    const double *y, *prefix; /* prefix[i] = sum of y[0..i) */
    double *scratch;
    double threshold, min_rel, sigma2;
    size_t min_segment;
    size_t *out;
    size_t cap, count;
} search;

/* The threshold for a statistic whose variance is estimated with `dof`
 * degrees of freedom: z^2 = penalty * ln(N) read as a normal quantile and
 * moved to the Student t quantile by the Cornish-Fisher expansion (two terms). */
static double t_threshold(double z2, double dof)
{
    double z = sqrt(z2), z3 = z2 * z, z5 = z3 * z2;
    double t = z + (z3 + z) / (4.0 * dof) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * dof * dof);
    return t * t;
}

static void segment(search *s, size_t lo, size_t hi);

static double mean_of(const search *s, size_t a, size_t b) { return (s->prefix[b] - s->prefix[a]) / (double)(b - a); }

/* The best middle part [t1, t2) of [lo, hi) with min_segment runs in each of
 * the three parts; 1 when kept (and the parts searched again), else 0. */
static int middle_segment(search *s, size_t lo, size_t hi)
{
    size_t m = s->min_segment, n = hi - lo;
    if (n < 3 * m || n < 4) return 0;
    double mean = mean_of(s, lo, hi), best_gain = -1.0;
    size_t b1 = 0, b2 = 0;
    for (size_t t1 = lo + m; t1 + 2 * m <= hi; t1++) {
        for (size_t t2 = t1 + m; t2 + m <= hi; t2++) {
            double d0 = mean_of(s, lo, t1) - mean, d1 = mean_of(s, t1, t2) - mean, d2 = mean_of(s, t2, hi) - mean;
            double gain = (double)(t1 - lo) * d0 * d0 + (double)(t2 - t1) * d1 * d1 + (double)(hi - t2) * d2 * d2;
            if (gain > best_gain) best_gain = gain, b1 = t1, b2 = t2;
        }
    }
    double rss0 = 0.0;
    for (size_t i = lo; i < hi; i++) rss0 += (s->y[i] - mean) * (s->y[i] - mean);
    double within = (rss0 - best_gain) / (double)(n - 3);
    double sigma2 = within > s->sigma2 ? within : s->sigma2;
    if (best_gain / sigma2 <= 2.0 * t_threshold(s->threshold, (double)(n - 3))) return 0;
    double first = median_of(s->y + lo, b1 - lo, s->scratch);
    double middle = median_of(s->y + b1, b2 - b1, s->scratch);
    double last = median_of(s->y + b2, hi - b2, s->scratch);
    if (fabs(exp(middle - first) - 1.0) < s->min_rel || fabs(exp(last - middle) - 1.0) < s->min_rel) return 0;
    segment(s, lo, b1);
    if (s->count < s->cap) s->out[s->count] = b1;
    s->count++;
    segment(s, b1, b2);
    if (s->count < s->cap) s->out[s->count] = b2;
    s->count++;
    segment(s, b2, hi);
    return 1;
}

static void segment(search *s, size_t lo, size_t hi)
{
    size_t m = s->min_segment, n = hi - lo;
    if (n < 2 * m || n < 3) return;
    size_t best = 0;
    double best_gain = -1.0, total = s->prefix[hi] - s->prefix[lo];
    for (size_t t = lo + m; t + m <= hi; t++) {
        double n1 = (double)(t - lo), n2 = (double)(hi - t);
        double left = s->prefix[t] - s->prefix[lo];
        double diff = left / n1 - (total - left) / n2;
        double gain = n1 * n2 / (n1 + n2) * diff * diff;
        if (gain > best_gain) best_gain = gain, best = t;
    }
    /* The variance is the larger of the series-wide MAD estimate and the
     * segment's own residual variance around the two means. */
    double mean = total / (double)n, rss0 = 0.0;
    for (size_t i = lo; i < hi; i++) rss0 += (s->y[i] - mean) * (s->y[i] - mean);
    double within = (rss0 - best_gain) / (double)(n - 2);
    double sigma2 = within > s->sigma2 ? within : s->sigma2;
    if (best_gain / sigma2 <= t_threshold(s->threshold, (double)(n - 2))) {
        middle_segment(s, lo, hi);
        return;
    }
    double before = median_of(s->y + lo, best - lo, s->scratch);
    double after = median_of(s->y + best, hi - best, s->scratch);
    if (fabs(exp(after - before) - 1.0) < s->min_rel) return;
    segment(s, lo, best);
    if (s->count < s->cap) s->out[s->count] = best;
    s->count++;
    segment(s, best, hi);
}

int mcpp_changepoints_find(size_t *out_index, size_t cap, size_t *out_count, const double *values, size_t n,
                           const mcpp_changepoint_settings *settings)
{
    if (!out_count || (n && !values) || (cap && !out_index))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_changepoints_find: NULL argument");
    *out_count = 0;
    mcpp_changepoint_settings cfg;
    mcpp_changepoint_settings_default(&cfg);
    if (settings) cfg = *settings;
    if (cfg.min_segment < 1) cfg.min_segment = 1;
    for (size_t i = 0; i < n; i++)
        if (!(values[i] > 0) || !isfinite(values[i]))
            return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, "values", 0, 0,
                                  "value %zu is %g; change points need positive finite values", i, values[i]);
    if (n < 2 * cfg.min_segment || n < 3) return MCPP_OK;
    double *mem = malloc(4 * n * sizeof *mem + sizeof *mem);
    if (!mem) return mcpp_error_nomem();
    double *y = mem, *prefix = mem + n, *scratch = mem + 2 * n + 1, *diffs = mem + 3 * n + 1;
    prefix[0] = 0.0;
    for (size_t i = 0; i < n; i++) {
        y[i] = log(values[i]);
        prefix[i + 1] = prefix[i] + y[i];
    }
    double sigma = noise_sigma(y, n, scratch, diffs);
    search s = {y, prefix, scratch, cfg.penalty_per_log_n * log((double)n), cfg.min_rel_change, sigma * sigma,
                cfg.min_segment, out_index, cap, 0};
    segment(&s, 0, n);
    *out_count = s.count;
    free(mem);
    return MCPP_OK;
}
