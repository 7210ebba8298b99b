/*
 * stats_internal.h — the deterministic statistics behind comparisons and lane
 * headlines: sorting, quantiles, the Hodges–Lehmann shift with its
 * Mann–Whitney interval, and the order-statistic interval for a median.
 * No randomness anywhere, so the same receipts always give the same numbers.
 */
#ifndef MCPP_STATS_INTERNAL_H
#define MCPP_STATS_INTERNAL_H

#include <stddef.h>

/* Sorting and quantiles live in util/quantile.h. */
#include "util/quantile.h"

/* (p90 - p10) / median of sorted values; 0 for fewer than two values or a
 * non-positive median. */
double mcpp_stats_rel_spread_sorted(const double *sorted, size_t n);

/* The standard normal quantile (inverse CDF), p in (0,1). */
double mcpp_stats_normal_quantile(double p);

/*
 * Hodges–Lehmann on log scale: the interval of log(cand) - log(base) from the
 * distribution-free Mann–Whitney construction at two-sided `confidence`
 * (normal approximation of U), written as ratio-minus-one into *low and *high.
 * All values must be > 0. Large inputs are thinned to evenly spaced order
 * statistics so at most ~4M pairwise differences are formed. Returns 0, or
 * -1 when out of memory.
 */
int mcpp_stats_hl_ratio_interval(const double *base_sorted, size_t nb, const double *cand_sorted,
                                 size_t nc, double confidence, double *low, double *high);

/*
 * The distribution-free interval for the median of sorted values: the widest
 * symmetric pair of order statistics whose binomial coverage is at least
 * `confidence` (normal approximation above 1000 values). When even [min, max]
 * covers less, that is returned with its real coverage in *achieved.
 */
void mcpp_stats_median_interval(const double *sorted, size_t n, double confidence, double *low,
                                double *high, double *achieved);

#endif /* MCPP_STATS_INTERNAL_H */
