/*
 * null_shape.c — the null distribution of a test's standardized change,
 * read from the shape of the lanes' earlier runs (null_shape.h).
 *
 * On a grid: the pairs' density (binned, then a Gaussian kernel), the sum
 * of n of them by repeated convolution, and its upper tail summed from the
 * far end so that tiny probabilities keep their precision. About 2 ms for
 * a gate over 50 lanes of 20 runs, most of it sorting their 19,000 pairs
 * (benchmarks/stats/bench_null_shape).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/null_shape.h"
#include "analysis/stats_internal.h"
#include "util/error_internal.h"

/* The grid step in units of one run's standard deviation: far finer than
 * the kernel, and a few hundred points for one draw. */
#define STEP 0.05
/* The kernel reaches this many of its standard deviations. */
#define KERNEL_REACH 6

void mcpp_null_shape_free(mcpp_null_shape *s)
{
    free(s->upper);
    memset(s, 0, sizeof *s);
}

/* a * b (lengths na, nb) into a fresh array of na + nb - 1, or NULL. */
static double *convolve(const double *a, size_t na, const double *b, size_t nb)
{
    double *out = calloc(na + nb - 1, sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < na; i++)
        if (a[i] != 0)
            for (size_t j = 0; j < nb; j++) out[i + j] += a[i] * b[j];
    return out;
}

/* Adds `mass` at fractional grid position x, split between its two points. */
static void deposit(double *grid, size_t n, double x, double mass)
{
    size_t i = (size_t)x;
    double f = x - (double)i;
    if (i < n) grid[i] += mass * (1 - f);
    if (i + 1 < n) grid[i + 1] += mass * f;
}

/* One pair's density on the grid z = -reach + i * STEP: the differences
 * scaled to unit variance (their mean is 0: both signs), each a Gaussian
 * kernel whose width is Silverman's robust spread times runs^(-1/3) (the
 * rate for a distribution function, not a density: the tails'
 * probabilities are what the test reads; the runs, not their pairs, are
 * the independent draws), the points drawn in so that the kernel keeps the
 * variance 1. */
static double *one_pair_density(const double *pairs, size_t n, size_t runs, size_t *len)
{
    double ss = 0, reach = 0;
    for (size_t i = 0; i < n; i++) ss += pairs[i] * pairs[i];
    double sd = ss > 0 ? sqrt(ss / (double)n) : 1; /* all zero: a point at 0 */
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted) return NULL;
    for (size_t i = 0; i < n; i++) sorted[i] = pairs[i] / sd;
    mcpp_sort_doubles(sorted, n);
    double iqr = mcpp_quantile_sorted(sorted, n, 0.75) - mcpp_quantile_sorted(sorted, n, 0.25);
    double spread = iqr / 1.349 < 1 ? iqr / 1.349 : 1;
    double h = 0.9 * spread * pow((double)(runs > 1 ? runs : 2), -1.0 / 3);
    double shrink = 1 / sqrt(1 + h * h), kernel_sd = h * shrink;
    for (size_t i = 0; i < n; i++) {
        sorted[i] *= shrink;
        if (fabs(sorted[i]) > reach) reach = fabs(sorted[i]);
    }
    reach = STEP * ceil((reach + KERNEL_REACH * kernel_sd) / STEP + 1);
    *len = (size_t)lround(2 * reach / STEP) + 1;
    size_t half = (size_t)ceil(KERNEL_REACH * kernel_sd / STEP);
    double *binned = calloc(*len, sizeof *binned), *kernel = malloc((2 * half + 1) * sizeof *kernel);
    double *density = NULL, total = 0;
    if (binned && kernel) {
        for (size_t i = 0; i < n; i++) deposit(binned, *len, (sorted[i] + reach) / STEP, 1.0 / (double)n);
        for (size_t j = 0; j <= 2 * half; j++) {
            double x = ((double)j - (double)half) * STEP / (kernel_sd > 0 ? kernel_sd : 1);
            kernel[j] = kernel_sd > 0 ? exp(-0.5 * x * x) : j == half;
            total += kernel[j];
        }
        for (size_t j = 0; j <= 2 * half; j++) kernel[j] /= total;
        double *wide = convolve(binned, *len, kernel, 2 * half + 1);
        if (wide) { /* back to the grid's own span: the kernel's reach is inside it */
            density = malloc(*len * sizeof *density);
            if (density) memcpy(density, wide + half, *len * sizeof *density);
            free(wide);
        }
    }
    free(sorted);
    free(binned);
    free(kernel);
    return density;
}

int mcpp_null_shape_build(mcpp_null_shape *out, const double *pairs, size_t n_pairs, size_t runs, size_t per_side)
{
    memset(out, 0, sizeof *out);
    if (n_pairs < 2 || !per_side) return 0;
    size_t len = 0, len_sum;
    double *one = one_pair_density(pairs, n_pairs, runs, &len);
    double *sum = one ? malloc(len * sizeof *sum) : NULL;
    if (sum) memcpy(sum, one, len * sizeof *sum);
    len_sum = len;
    for (size_t r = 1; r < per_side && sum; r++) { /* the sum of per_side pairs */
        double *next = convolve(sum, len_sum, one, len);
        free(sum);
        sum = next;
        len_sum += len - 1;
    }
    /* index k of the sum: per_side * (-reach) + k * STEP; W is it over sqrt(per_side) */
    double root = sqrt((double)per_side);
    int rc = sum ? mcpp_null_shape_from_density(out, sum, len_sum, -(double)(len_sum - 1) / 2 * STEP / root,
                                                STEP / root)
                 : mcpp_error_nomem();
    if (rc == 0) out->per_side = per_side;
    free(one);
    free(sum);
    return rc;
}

int mcpp_null_shape_from_density(mcpp_null_shape *out, const double *mass, size_t n, double z0, double step)
{
    memset(out, 0, sizeof *out);
    out->upper = malloc((n ? n : 1) * sizeof *out->upper);
    if (!out->upper) return mcpp_error_nomem();
    double tail = 0;
    for (size_t k = n; k-- > 0;) out->upper[k] = (tail += mass[k]);
    for (size_t k = 0; k < n; k++) out->upper[k] /= tail; /* the total mass: 1 up to rounding */
    out->n = n;
    out->z0 = z0;
    out->step = step;
    return 0;
}

double mcpp_null_shape_upper(const mcpp_null_shape *s, double z)
{
    double x = (z - s->z0) / s->step;
    if (!(x > 0)) return 1;
    if (x >= (double)(s->n - 1)) return 0;
    size_t i = (size_t)x;
    double f = x - (double)i, a = s->upper[i], b = s->upper[i + 1];
    return b > 0 ? exp((1 - f) * log(a) + f * log(b)) : (1 - f) * a;
}

double mcpp_null_shape_quantile(const mcpp_null_shape *s, double p)
{
    double lo = s->z0, hi = s->z0 + s->step * (double)(s->n - 1);
    for (int it = 0; it < 100; it++) { /* P(W >= z) falls with z: bisection */
        double mid = 0.5 * (lo + hi);
        if (mcpp_null_shape_upper(s, mid) > 1 - p) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}
