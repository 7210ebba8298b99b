/*
 * quantile.c — sorting samples and the type-7 quantile read from them.
 */
#include <math.h>
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
