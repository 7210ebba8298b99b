/*
 * median_shape.c — the null distribution of the change between two sides'
 * medians of heavy-tailed runs (median_shape.h).
 *
 * On one grid in units of the runs' t scale: each side's median density
 * from the order statistics of its n draws, their difference by
 * convolution, then the mixture over the scale's uncertainty; the result
 * goes to a null shape (null_shape.h) in units of its own standard
 * deviation. A few milliseconds per run count (benchmarks/stats/
 * bench_null_shape), built once per gate.
 */
/* lgamma_r (glibc and the BSDs declare it under _DEFAULT_SOURCE): lgamma
 * writes the global signgam, a data race between threads that each run a
 * gate, which docs/thread-safety.md allows (ThreadSanitizer reported it). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/median_shape.h"
#include "analysis/stats_internal.h"
#include "util/error_internal.h"

/* One median's grid: HALF_POINTS points on either side of 0 out to where
 * its tail mass is below TAIL_MASS, a step of at most MAX_STEP t scales
 * (the median's core); more points where that reach needs them (few runs
 * of a t with 2 df: 90-200 scales). */
#define HALF_POINTS 1000
#define MAX_STEP 0.05
#define TAIL_MASS 1e-9
/* Gauss–Hermite nodes of the mixture over the scale's uncertainty */
#define NODES 7

/* ln |Gamma(x)|, without touching signgam. */
static double log_gamma(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}

static double log_choose(double n, double k) { return log_gamma(n + 1) - log_gamma(k + 1) - log_gamma(n - k + 1); }

/* log P(T > x) for a unit t: from the symmetric lower tail, so that it
 * keeps its digits far out. */
static double log_upper(double x, double df) { return log(mcpp_stats_t_cdf(-x, df)); }

/* Where the median of n draws has less than TAIL_MASS beyond: at least
 * ceil(n / 2) of them must lie beyond it, so C(n, e) P(T > x)^e bounds it. */
static double reach_of(size_t n, double df)
{
    double e = (double)((n + 1) / 2), lo = 1, hi = 1e4;
    for (int it = 0; it < 100; it++) {
        double mid = sqrt(lo * hi);
        if (log_choose((double)n, e) + e * log_upper(mid, df) > log(TAIL_MASS)) lo = mid;
        else hi = mid;
    }
    return hi;
}

/* The mass of the median of n unit t draws at each of the 2 half + 1
 * points x_i = (i - half) h. Odd n = 2k + 1: the density
 * n C(2k, k) F^k (1 - F)^k f. Even n = 2k: the mean of the k-th and
 * (k+1)-th draws, whose joint density for u < v is
 * n! / ((k - 1)!)^2 F(u)^(k-1) f(u) f(v) (1 - F(v))^(k-1), deposited at
 * their midpoint. NULL when out of memory. */
static double *median_mass(size_t n, double df, double h, size_t half)
{
    size_t len = 2 * half + 1, pair_len = n % 2 ? 0 : len;
    double *mass = calloc(len, sizeof *mass), *below = malloc((pair_len ? pair_len : 1) * sizeof *below),
           *above = malloc((pair_len ? pair_len : 1) * sizeof *above);
    if (!mass || !below || !above) {
        free(mass), free(below), free(above);
        return NULL;
    }
    double k = n % 2 ? (double)(n - 1) / 2 : (double)n / 2 - 1;
    double c = n % 2 ? (double)n * exp(log_choose(2 * k, k)) * h               /* n C(2k, k) */
                     : exp(log_gamma((double)n + 1) - 2 * log_gamma(k + 1)) * h * h; /* n! / ((n/2 - 1)!)^2 */
    for (size_t i = 0; i < len; i++) {
        double x = ((double)i - (double)half) * h, f = mcpp_stats_t_density(x, df);
        double lower = pow(mcpp_stats_t_cdf(x, df), k), upper = pow(mcpp_stats_t_cdf(-x, df), k);
        if (n % 2) mass[i] = c * lower * upper * f;
        else below[i] = lower * f, above[i] = upper * f; /* F^k f and (1 - F)^k f */
    }
    for (size_t i = 0; i < pair_len; i++)
        for (size_t j = i + 1; j < pair_len; j++) {
            double w = c * below[i] * above[j];
            if ((i + j) % 2 == 0) mass[(i + j) / 2] += w;
            else mass[(i + j) / 2] += w / 2, mass[(i + j) / 2 + 1] += w / 2;
        }
    free(below);
    free(above);
    return mass;
}

void mcpp_median_shape_free(mcpp_median_shape *s)
{
    mcpp_null_shape_free(&s->shape);
    memset(s, 0, sizeof *s);
}

int mcpp_median_shape_build(mcpp_median_shape *out, size_t n_base, size_t n_cand, double tail_df, double scale_log_var)
{
    /* Gauss–Hermite nodes and weights for 7 points (weights over sqrt(pi)) */
    static const double NODE[NODES] = {-2.651961356835233, -1.673551628767471, -0.816287882858965, 0,
                                       0.816287882858965,  1.673551628767471,  2.651961356835233};
    static const double WEIGHT[NODES] = {0.000548268855972, 0.030757123967586, 0.240123178605013, 0.457142857142857,
                                         0.240123178605013, 0.030757123967586, 0.000548268855972};
    memset(out, 0, sizeof *out);
    double reach = fmax(reach_of(n_base, tail_df), reach_of(n_cand, tail_df));
    double h = fmin(MAX_STEP, reach / HALF_POINTS);
    size_t points = reach > MAX_STEP * HALF_POINTS ? (size_t)ceil(reach / MAX_STEP) : HALF_POINTS;
    double *base = median_mass(n_base, tail_df, h, points), *cand = median_mass(n_cand, tail_df, h, points);
    size_t len = 2 * points + 1, wlen = 2 * len - 1;
    double *diff = calloc(wlen, sizeof *diff), *mixed = NULL;
    int rc = base && cand && diff ? 0 : mcpp_error_nomem();
    if (rc == 0) { /* M_c - M_b at (i - j) h: index i - j + len - 1 */
        for (size_t i = 0; i < len; i++)
            for (size_t j = 0; cand[i] > 0 && j < len; j++) diff[i + len - 1 - j] += cand[i] * base[j];
        /* the mixture over the scale: log s ~ N(0, v), on a grid wide enough for its widest node */
        double widest = exp(sqrt(2 * scale_log_var) * NODE[NODES - 1]);
        size_t half = (size_t)ceil((double)(len - 1) * widest) + 1, mlen = 2 * half + 1;
        mixed = calloc(mlen, sizeof *mixed);
        if (!mixed) rc = mcpp_error_nomem();
        for (int g = 0; rc == 0 && g < NODES; g++) {
            double f = exp(sqrt(2 * scale_log_var) * NODE[g]);
            for (size_t i = 0; i < wlen; i++) {
                double x = ((double)i - (double)(len - 1)) * f + (double)half; /* grid position */
                size_t at = (size_t)x;
                double frac = x - (double)at, w = WEIGHT[g] * diff[i];
                mixed[at] += w * (1 - frac);
                if (at + 1 < mlen) mixed[at + 1] += w * frac;
            }
        }
        double total = 0, ss = 0;
        for (size_t i = 0; rc == 0 && i < mlen; i++) {
            double x = ((double)i - (double)half) * h;
            total += mixed[i], ss += mixed[i] * x * x;
        }
        if (rc == 0) {
            out->sd = sqrt(ss / total);
            rc = mcpp_null_shape_from_density(&out->shape, mixed, mlen, -(double)half * h / out->sd, h / out->sd);
        }
    }
    if (rc == 0) {
        out->n_base = n_base, out->n_cand = n_cand;
        out->tail_df = tail_df, out->scale_log_var = scale_log_var;
    }
    free(base), free(cand), free(diff), free(mixed);
    return rc;
}

double mcpp_median_shape_pair_spread(double df, double *density)
{
    /* out to 50 scales: |T1 - T2| has its median between 1 and 2 */
    double h = MAX_STEP;
    size_t len = 2 * HALF_POINTS + 1;
    double *one = median_mass(1, df, h, HALF_POINTS), m = NAN;
    *density = NAN;
    if (!one) return m;
    /* P(|T1 - T2| <= x) = 2 P(T1 - T2 <= x) - 1; the difference's mass at k h,
     * k = 0, 1, ..., summed until half of it lies within. */
    double inside = 0, total = 0;
    for (size_t i = 0; i < len; i++) total += one[i];
    for (size_t k = 0; k < len && isnan(m); k++) {
        double at = 0;
        for (size_t i = k; i < len; i++) at += one[i] * one[i - k];
        at /= total * total;
        double next = inside + (k ? 2 * at : at); /* +-k h, once at 0 */
        if (next >= 0.5) {
            m = ((double)k - (next - 0.5) / (k ? 2 * at : at) + 0.5) * h;
            *density = 2 * at / h;
        }
        inside = next;
    }
    free(one);
    return m;
}
