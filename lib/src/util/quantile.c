/*
 * quantile.c — sorting samples and the type-7 quantile read from them.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/receipt.h"
#include "util/error_internal.h"

#include "util/quantile.h"

static int double_order(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

void mcpp_sort_doubles(double *values, size_t n)
{
    if (n > 64) {
        qsort(values, n, sizeof *values, double_order);
        return;
    }
    for (size_t i = 1; i < n; i++) { /* step windows are short: no qsort call */
        double x = values[i];
        size_t j = i;
        while (j > 0 && values[j - 1] > x) {
            values[j] = values[j - 1];
            j--;
        }
        values[j] = x;
    }
}

/* sorted[lo] and sorted[lo + 1] of n values that are not negative, when
 * exactly lo + 1 of them are at or below `near`; else 0. Such doubles order
 * as their bit patterns do, so the largest at or below and the smallest
 * above are kept as integers with no branch on the data (which side of a
 * figure a sample falls is a coin toss: branching on it cost as much as
 * sorting the samples). */
static int ranks_around(double *low, double *high, const double *values, size_t n, size_t lo, double near)
{
    uint64_t below = 0, above = UINT64_MAX, signs = 0;
    size_t at_or_below = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t bits, le = values[i] <= near;
        memcpy(&bits, &values[i], sizeof bits);
        uint64_t mask = 0 - le; /* all ones at or below near */
        uint64_t b = bits & mask, a = bits | mask;
        below = b > below ? b : below;
        above = a < above ? a : above;
        at_or_below += le;
        signs |= bits;
    }
    if (signs >> 63 || at_or_below != lo + 1)
        return 0;
    memcpy(low, &below, sizeof below);
    memcpy(high, &above, sizeof above);
    return 1;
}

int mcpp_quantiles_near(double *out, const double *values, size_t n, const double *q, const double *near, size_t k)
{
    for (size_t j = 0; j < k; j++) {
        if (n < 2)
            return 0;
        double pos = q[j] * (double)(n - 1), low, high;
        size_t lo = (size_t)floor(pos);
        if (lo >= n - 1 || !ranks_around(&low, &high, values, n, lo, near[j]))
            return 0;
        out[j] = low + (pos - (double)lo) * (high - low); /* mcpp_quantile_sorted's arithmetic */
    }
    return 1;
}

double mcpp_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    if (n == 1)
        return sorted[0];
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo >= n - 1)
        return sorted[n - 1];
    double frac = pos - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double mcpp_median_sorting(double *values, size_t n)
{
    mcpp_sort_doubles(values, n);
    return mcpp_quantile_sorted(values, n, 0.5);
}

double mcpp_weighted_median_sorting(double *pairs, size_t n)
{
    double total = 0, below = 0;
    qsort(pairs, n, 2 * sizeof *pairs, double_order); /* a pair orders by its first double, the value */
    for (size_t j = 0; j < n; j++)
        total += pairs[2 * j + 1];
    for (size_t j = 0; j < n; j++)
        if ((below += pairs[2 * j + 1]) >= total / 2)
            return pairs[2 * j];
    return n ? pairs[2 * (n - 1)] : 0;
}

int mcpp_quantile(double *out, const double *values, size_t n, double q)
{
    MCPP_CHECK_ARG(out && values && n > 0 && q >= 0.0 && q <= 1.0,
                   "mcpp_quantile: needs out, n > 0 values and q in [0, 1]");
    double *sorted = malloc(n * sizeof *sorted);
    MCPP_CHECK_ALLOC(sorted);
    memcpy(sorted, values, n * sizeof *sorted);
    mcpp_sort_doubles(sorted, n);
    *out = mcpp_quantile_sorted(sorted, n, q);
    free(sorted);
    return MCPP_OK;
}
