/*
 * null_shape.h — how far a test's change strays by chance when the
 * machine's runs are not normal, read from the shape of the lanes' earlier
 * runs instead of assumed (docs/statistics.md, "The shape of the noise").
 *
 * A history of 1,000 earlier runs shows a machine that sits in one of two
 * states, or never lands more than a few percent off, far better than a
 * Student t can say: the t's tails are the normal's, which such a machine
 * never reaches. Two runs of unchanged code differ by D = (x - y) / sqrt 2
 * (in one run's standard deviations); the change between two sides of n
 * runs each, in its own standard errors, is
 *   W = (D_1 + ... + D_n) / sqrt n,
 * pairing the sides' runs. The shape is W's distribution with the D drawn
 * from the history's pairs, smoothed by a narrow Gaussian kernel, scaled to
 * unit variance. Deterministic.
 */
#ifndef MCPP_NULL_SHAPE_H
#define MCPP_NULL_SHAPE_H

#include <stddef.h>

typedef struct mcpp_null_shape {
    size_t per_side; /* the runs a side it is for */
    double z0, step; /* the grid: z_i = z0 + i * step */
    size_t n;        /* its points */
    double *upper;   /* upper[i] = P(W >= z_i) */
} mcpp_null_shape;

/* Builds *out from n_pairs differences of two runs, (x - y) / sqrt 2 with
 * both signs, drawn from `runs` independent runs (their count sets the
 * kernel's width). 0 or MCPP_ENOMEM; *out is empty (n = 0) then, or with
 * fewer than 2 differences or per_side 0. */
int mcpp_null_shape_build(mcpp_null_shape *out, const double *pairs, size_t n_pairs, size_t runs, size_t per_side);
void mcpp_null_shape_free(mcpp_null_shape *s);

/* *out from a distribution's mass at the n grid points z0 + i * step
 * (normalised to 1; per_side left 0 for the caller). 0 or MCPP_ENOMEM. */
int mcpp_null_shape_from_density(mcpp_null_shape *out, const double *mass, size_t n, double z0, double step);

/* P(W >= z): 1 below the grid, 0 above it, log-linear between its points. */
double mcpp_null_shape_upper(const mcpp_null_shape *s, double z);

/* The z with P(W <= z) = p, p in (0, 1). */
double mcpp_null_shape_quantile(const mcpp_null_shape *s, double p);

#endif
