/*
 * test_null_shape.c — the null distribution a gate reads from the shape of
 * the lanes' earlier runs (lib/src/analysis/null_shape.h): for normal runs it
 * is the normal's, for a machine in one of two states it has the states'
 * gaps and no normal tail, its variance is 1 whatever the runs a side, and
 * its quantiles invert its tail. Every reference figure is computed here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/null_shape.h"
#include "analysis/stats_internal.h"
#include "../test_util.h"

enum { RUNS = 600, PAIRS = RUNS * (RUNS - 1) };

/* Every ordered pair of RUNS runs, (x_i - x_j) / sqrt 2. */
static double *pairs_of(const double *x)
{
    double *out = malloc(PAIRS * sizeof *out);
    if (!out) abort();
    size_t n = 0;
    for (int i = 0; i < RUNS; i++)
        for (int j = 0; j < RUNS; j++)
            if (i != j) out[n++] = (x[i] - x[j]) / sqrt(2.0);
    return out;
}

/* RUNS normal runs at evenly spaced probabilities: a sample without noise. */
static double *normal_pairs(void)
{
    double x[RUNS];
    for (int i = 0; i < RUNS; i++) x[i] = mcpp_stats_normal_quantile((i + 0.5) / RUNS);
    return pairs_of(x);
}

/* A machine in one of two states, +-1, each run 0.1 off its state. */
static double *two_state_pairs(void)
{
    double x[RUNS];
    for (int i = 0; i < RUNS; i++)
        x[i] = (i % 2 ? 1 : -1) + 0.1 * mcpp_stats_normal_quantile((i / 2 + 0.5) / (RUNS / 2));
    return pairs_of(x);
}

static double normal_upper(double z) { return 0.5 * erfc(z / sqrt(2.0)); }

/* The mean and variance of W from its tail (P(W = z_i) = upper[i] - upper[i+1]). */
static void moments(const mcpp_null_shape *s, double *mean, double *var)
{
    double m1 = 0, m2 = 0;
    for (size_t i = 0; i < s->n; i++) {
        double p = s->upper[i] - (i + 1 < s->n ? s->upper[i + 1] : 0), z = s->z0 + s->step * (double)i;
        m1 += p * z, m2 += p * z * z;
    }
    *mean = m1;
    *var = m2 - m1 * m1;
}

TEST(normal_runs_give_the_normal_tail)
{
    double *pairs = normal_pairs();
    for (size_t per_side = 1; per_side <= 5; per_side += 2) {
        mcpp_null_shape s;
        CHECK(mcpp_null_shape_build(&s, pairs, PAIRS, RUNS, per_side) == 0 && s.n > 0);
        for (double z = 0; z <= 3.5; z += 0.5) {
            double got = mcpp_null_shape_upper(&s, z), want = normal_upper(z);
            if (!(fabs(got / want - 1) < 0.12))
                printf("  %zu runs a side: P(W >= %.1f) = %.3g, normal %.3g\n", per_side, z, got, want);
            CHECK(fabs(got / want - 1) < 0.12);
        }
        CHECK(fabs(mcpp_null_shape_quantile(&s, 0.975) - 1.96) < 0.03);
        CHECK(fabs(mcpp_null_shape_quantile(&s, 0.025) + 1.96) < 0.03);
        mcpp_null_shape_free(&s);
    }
    free(pairs);
}

TEST(a_machine_in_two_states_has_their_gaps_and_no_normal_tail)
{
    double *pairs = two_state_pairs();
    mcpp_null_shape s;
    CHECK(mcpp_null_shape_build(&s, pairs, PAIRS, RUNS, 1) == 0 && s.n > 0);
    /* Two runs differ by 0 (same state, half the pairs) or by the states'
     * distance, in W's units sqrt 2 (a quarter each way), each spread 0.1. */
    CHECK(fabs(mcpp_null_shape_upper(&s, 0.7) - 0.25) < 0.01);
    CHECK(fabs(mcpp_null_shape_upper(&s, -0.7) - 0.75) < 0.01);
    /* Beyond the far states (their spread 0.1, the kernel's 0.1) a normal
     * still has 2.9%; this machine next to nothing. */
    CHECK(mcpp_null_shape_upper(&s, 1.9) < 1e-3);
    CHECK(normal_upper(1.9) > 0.025);
    mcpp_null_shape_free(&s);
    /* Three runs a side: every pair apart the same way, (1/4)^3, at
     * 3 sqrt 2 / sqrt 3 = 2.45 */
    CHECK(mcpp_null_shape_build(&s, pairs, PAIRS, RUNS, 3) == 0 && s.n > 0);
    CHECK(fabs(mcpp_null_shape_upper(&s, 2.2) - 1.0 / 64) < 0.003);
    CHECK(mcpp_null_shape_upper(&s, 2.9) < 1e-4);
    mcpp_null_shape_free(&s);
    free(pairs);
}

TEST(the_shape_has_unit_variance_and_its_quantiles_invert_its_tail)
{
    double x[RUNS];
    for (int i = 0; i < RUNS; i++) x[i] = -log(1 - (i + 0.5) / RUNS); /* a skewed machine */
    double *pairs = pairs_of(x);
    for (size_t per_side = 1; per_side <= 5; per_side++) {
        mcpp_null_shape s;
        CHECK(mcpp_null_shape_build(&s, pairs, PAIRS, RUNS, per_side) == 0 && s.n > 0);
        double mean, var;
        moments(&s, &mean, &var);
        CHECK(fabs(mean) < 1e-3);
        CHECK(fabs(var - 1) < 0.01);
        /* symmetric, up to the one grid point's mass that P(W >= z) counts */
        CHECK(fabs(mcpp_null_shape_upper(&s, 1.5) - (1 - mcpp_null_shape_upper(&s, -1.5))) < 0.01);
        for (double p = 0.01; p < 1; p += 0.07) {
            double z = mcpp_null_shape_quantile(&s, p);
            CHECK(fabs(mcpp_null_shape_upper(&s, z) - (1 - p)) < 1e-6);
        }
        mcpp_null_shape_free(&s);
    }
    free(pairs);
}

TEST(too_few_pairs_give_an_empty_shape)
{
    double one = 0.5;
    mcpp_null_shape s;
    CHECK(mcpp_null_shape_build(&s, &one, 1, 2, 1) == 0);
    CHECK(s.n == 0 && s.upper == NULL);
    mcpp_null_shape_free(&s);
}

int main(void)
{
    RUN(normal_runs_give_the_normal_tail);
    RUN(a_machine_in_two_states_has_their_gaps_and_no_normal_tail);
    RUN(the_shape_has_unit_variance_and_its_quantiles_invert_its_tail);
    RUN(too_few_pairs_give_an_empty_shape);
    TEST_MAIN_END();
}
