/*
 * kernels_test_util.h — shared helpers for the kernel tests: seeded random
 * inputs (never zeros: every value is pushed away from 0) and error measures
 * against double-precision ground truth.
 */
#ifndef MCPP_KERNELS_TEST_UTIL_H
#define MCPP_KERNELS_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct ktest_rng {
    uint64_t state;
} ktest_rng;

static inline double ktest_uniform(ktest_rng *r)
{
    r->state ^= r->state << 13;
    r->state ^= r->state >> 7;
    r->state ^= r->state << 17;
    return (double)(r->state >> 11) * (1.0 / 9007199254740992.0);
}

/* Values in [-scale, -0.05*scale] U [0.05*scale, scale]: random and never zero. */
static inline float *ktest_random(ktest_rng *r, size_t n, float scale)
{
    float *p = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        double u = ktest_uniform(r);
        double mag = 0.05 + 0.95 * ktest_uniform(r);
        p[i] = (float)((u < 0.5 ? -1.0 : 1.0) * mag * scale);
    }
    return p;
}

/* max |got - want| / max(max |want|, tiny): a norm-wise relative error. */
static inline double ktest_rel_err(const float *got, const double *want, size_t n)
{
    double maxdiff = 0.0, maxref = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (!(d <= maxdiff)) maxdiff = d; /* also catches NaN */
        if (fabs(want[i]) > maxref) maxref = fabs(want[i]);
    }
    return maxdiff / maxref;
}

static inline double ktest_rel_err_f(const float *got, const float *want, size_t n)
{
    double maxdiff = 0.0, maxref = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        if (!(d <= maxdiff)) maxdiff = d;
        if (fabs((double)want[i]) > maxref) maxref = fabs((double)want[i]);
    }
    return maxdiff / maxref;
}

static inline double ktest_silu(double x) { return x / (1.0 + exp(-x)); }
static inline double ktest_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

#endif /* MCPP_KERNELS_TEST_UTIL_H */
