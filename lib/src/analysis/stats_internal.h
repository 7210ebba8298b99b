/*
 * stats_internal.h — the deterministic statistics behind comparisons, the
 * gate and lane headlines: sorting, quantiles, Student's t, the
 * Benjamini–Hochberg cutoff, and the order-statistic interval for a median.
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
 * The distribution-free interval for the median of sorted values: the widest
 * symmetric pair of order statistics whose binomial coverage is at least
 * `confidence` (normal approximation above 1000 values). When even [min, max]
 * covers less, that is returned with its real coverage in *achieved.
 */
void mcpp_stats_median_interval(const double *sorted, size_t n, double confidence, double *low,
                                double *high, double *achieved);

/* Student's t distribution with `df` degrees of freedom (df > 1e7 or
 * infinite: the standard normal). The CDF comes from the regularized
 * incomplete beta function, the quantile from bisection on it; both are
 * deterministic and accurate to ~1e-12, far beyond what a gate needs. */
double mcpp_stats_t_cdf(double t, double df);
/* The chance that an F of df1 and df2 degrees of freedom exceeds f. */
double mcpp_stats_f_sf(double f, double df1, double df2);
double mcpp_stats_t_quantile(double p, double df);

/*
 * Benjamini–Hochberg over m p-values at false discovery rate q: the largest
 * p_(k) with p_(k) <= q k / m' (m' the non-NaN p-values; NaN ones are not
 * tests), or -1 when none qualifies. A test is a discovery exactly when its
 * p <= the cutoff. `scratch` holds m doubles.
 */
double mcpp_stats_bh_cutoff(const double *p, size_t m, double q, double *scratch);

/*
 * How heavy the tails of centred values could be: of the Student t
 * distributions with 2, 3, 4, 6, 10, 20, 50 or infinitely many (the normal)
 * degrees of freedom, each at its maximum-likelihood scale, the heaviest whose
 * log likelihood is within one unit of the best: the tails x[0..n) cannot rule
 * out. Fifty values of a t with 3 df often look normal by a hair; taking the
 * best fit alone would then treat their far-off values as evidence. Returns
 * the degrees of freedom and the scale in *scale (0 when n is 0).
 * Deterministic.
 */
double mcpp_stats_t_tail_fit(const double *x, size_t n, double *scale);

/* The density of Student's t with `df` degrees of freedom (INFINITY: the
 * standard normal). */
double mcpp_stats_t_density(double x, double df);

/* The maximum-likelihood location (in *location) and scale of n values as a
 * Student t with known `df` (EM, Lange, Little & Taylor 1989): the far-off
 * values of a heavy-tailed sample weigh little, so a lane's scale does not
 * jump with its one wild run. Returns 0 for n == 0 or values all alike. */
double mcpp_stats_t_location_scale(const double *x, size_t n, double df, double *location);

/*
 * Each of n runs of unchanged code against the other n - 1, as a normal
 * score: its distance from their mean in units of their standard deviation
 * follows a Student t with n - 2 degrees of freedom when the runs are normal,
 * and out[j] is the standard normal value at the same probability. So the
 * scores of many lanes, each with its own noise level and run count, pool
 * into one sample that is exactly standard normal for a normal machine, and
 * as heavy-tailed as the machine is otherwise. Returns n, or 0 (out unset)
 * with fewer than 4 runs or runs that (nearly) repeat one value.
 */
size_t mcpp_stats_loo_normal_scores(const double *x, size_t n, double *out);

/* The level of the test that sets a lane's earlier run aside as a busy
 * machine's (mcpp_stats_set_aside_far). */
#define MCPP_HISTORY_FAR_LEVEL 0.01

/* Keeps, in order, the values of x[0..n) (a lane's earlier runs in the
 * order they ran) that Rosner's generalized ESD test (Technometrics 25, 1983)
 * at MCPP_HISTORY_FAR_LEVEL does not call outliers, testing up to a third of
 * them (at most 32), when the outliers are one block of consecutive runs; and
 * returns how many it set aside (none with fewer than 6 values, or when the
 * outliers are scattered: a machine's rarer state, not a busy hour). A block of runs made while the
 * machine was loaded lands far off a quiet benchmark's other runs; left in, it
 * made a 12-run history read as heavy-tailed for every lane (docs/statistics.md,
 * "A history that survives a busy hour"). The generalized test, not a cut at
 * k median absolute deviations: the MAD of 12 runs is so unsteady that a cut
 * at 4 set a run aside in 7% of lanes of normal runs (ESD: 1.5%), and
 * removing the runs one at a time sees through a block that masks itself.
 * Uses n doubles of `scratch`. */
size_t mcpp_stats_set_aside_far(double *x, size_t *n, double *scratch);

/*
 * How much n variance estimates (var[i] with df[i] degrees of freedom each)
 * agree, read as the prior they share (Smyth 2004, the method of moments of
 * limma's eBayes): returns its degrees of freedom d0 (INFINITY when the
 * estimates scatter no more than sampling alone explains, give or take one
 * standard error of their scatter: one variance for all) and its variance in
 * *prior_var. Estimates of 0 or with no df are left
 * out; fewer than two left: returns 0 and NAN.
 */
double mcpp_stats_prior_df(const double *var, const double *df, size_t n, double *prior_var);

/* A variance estimate (sum of squares `ss` over `df` degrees of freedom)
 * shrunk toward a prior variance weighed as `prior_df` degrees of freedom:
 * (prior_df * prior_var + ss) / (prior_df + df), Smyth's moderated variance;
 * 0 when both weigh nothing. */
double mcpp_stats_moderated_var(double prior_var, double prior_df, double ss, double df);

#endif /* MCPP_STATS_INTERNAL_H */
