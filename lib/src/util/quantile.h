/*
 * quantile.h — sorting samples and reading quantiles from them: the one
 * definition shared by the receipt's stated p10/median/p90 and the
 * statistics of comparisons and lane headlines.
 */
#ifndef MCPP_UTIL_QUANTILE_H
#define MCPP_UTIL_QUANTILE_H

#include <stddef.h>

/* Sorts ascending in place (insertion sort for short windows, qsort beyond). */
void mcpp_sort_doubles(double *values, size_t n);

/* Quantile q in [0,1] of sorted values by linear interpolation between
 * closest ranks (type 7, numpy's default): position q*(n-1). NaN for n == 0. */
double mcpp_quantile_sorted(const double *sorted, size_t n, double q);

/* The median of n values, sorting them in place (NaN for n == 0). */
double mcpp_median_sorting(double *values, size_t n);

#endif /* MCPP_UTIL_QUANTILE_H */
