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

/* Quantiles q[0..k) of n unsorted values (left as they are) when each
 * near[j] is at or above the lower of the two closest ranks its quantile
 * interpolates and below the upper, and no value is negative (step times):
 * out[j] is then exactly what
 * mcpp_quantile_sorted of the sorted values gives, found in a pass each (the
 * lowest ranks are the values at or below near[j]), and 1 is returned.
 * Returns 0 otherwise (a near[j] outside them, or on the upper when they
 * tie; a negative value): then sort. For checking stated quantiles against their
 * samples without sorting them. */
int mcpp_quantiles_near(double *out, const double *values, size_t n, const double *q, const double *near, size_t k);

/* The median of n values, sorting them in place (NaN for n == 0). */
double mcpp_median_sorting(double *values, size_t n);

/* The weighted median of n (value, weight) pairs in pairs[0..2n), sorted
 * here by value: the value where half the total weight lies on either side
 * (0 for n == 0). */
double mcpp_weighted_median_sorting(double *pairs, size_t n);

#endif /* MCPP_UTIL_QUANTILE_H */
