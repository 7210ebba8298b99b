/*
 * median_shape.h — how far the change between the medians of two sides'
 * runs strays by chance on a machine whose single runs have heavy tails
 * (docs/statistics.md, "Heavy tails: the medians of the runs").
 *
 * One far-off run moves the mean of five runs by a fifth of its distance;
 * it barely moves their median, whose tails fall as the runs' tails to the
 * power (n + 1) / 2. When the lanes' history reads the machine's runs as
 * level + s T, T a unit Student t with df degrees of freedom, the change
 * between the sides' medians is s (M_c - M_b), M the median of n_cand or
 * n_base unit t draws, and its distribution follows exactly from order
 * statistics (David & Nagaraja, "Order Statistics", 2003, ch. 2). The scale
 * s is itself estimated: the shape mixes over log s ~ N(log ŝ, v) by
 * Gauss–Hermite quadrature. Deterministic.
 */
#ifndef MCPP_MEDIAN_SHAPE_H
#define MCPP_MEDIAN_SHAPE_H

#include <stddef.h>

#include "analysis/null_shape.h"

typedef struct mcpp_median_shape {
    size_t n_base, n_cand; /* the runs a side it is for */
    double tail_df;        /* their Student t */
    double scale_log_var;  /* v: the variance of log ŝ */
    double sd;             /* the standard deviation of s (M_c - M_b) for ŝ = 1 */
    mcpp_null_shape shape; /* the distribution of that change over sd */
} mcpp_median_shape;

/* Builds *out; n_base and n_cand at least 1, tail_df at least 1. 0 or
 * MCPP_ENOMEM (*out then empty). */
int mcpp_median_shape_build(mcpp_median_shape *out, size_t n_base, size_t n_cand, double tail_df, double scale_log_var);
void mcpp_median_shape_free(mcpp_median_shape *s);

/* What two independent runs differ by on that machine: the median of
 * |T1 - T2| for two unit t draws with `df` degrees of freedom, and the
 * density of |T1 - T2| there in *density (NAN when out of memory). */
double mcpp_median_shape_pair_spread(double df, double *density);

#endif
