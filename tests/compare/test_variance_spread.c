/*
 * test_variance_spread.c — how the gate reads whether its tests' variances
 * and changes spread more than chance (lib/src/analysis/stats.c): the F
 * tail against its density integrated here, and Smyth's prior df counting
 * only the scatter of the variances beyond one standard error of chance.
 * Every reference figure is computed here.
 */
#include <math.h>
#include <stdio.h>

#include "analysis/stats_internal.h"
#include "../test_util.h"

/* The F density of d1 and d2 degrees of freedom at x > 0. */
static double f_density(double x, double d1, double d2)
{
    return exp(lgamma((d1 + d2) / 2) - lgamma(d1 / 2) - lgamma(d2 / 2) + d1 / 2 * log(d1 / d2) +
               (d1 / 2 - 1) * log(x) - (d1 + d2) / 2 * log1p(d1 * x / d2));
}

/* 1 - the integral of the density from 0 to f (Simpson's rule, d1 >= 2). */
static double f_tail_integrated(double f, double d1, double d2)
{
    enum { STEPS = 20000 };
    double h = f / STEPS, sum = d1 == 2 ? 1 : 0; /* the density at 0: 1 for d1 = 2, 0 above */
    for (int i = 1; i <= STEPS; i++) sum += f_density(i * h, d1, d2) * (i == STEPS ? 1 : i % 2 ? 4 : 2);
    return 1 - sum * h / 3;
}

TEST(the_f_tail_matches_its_density_integrated)
{
    static const double CASES[][3] = {{1.3, 25, 200}, {0.8, 25, 30}, {2.0, 10, 1e5}, {4.0, 2, 12}, {1.0, 60, 60}};
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        double want = f_tail_integrated(CASES[i][0], CASES[i][1], CASES[i][2]);
        double got = mcpp_stats_f_sf(CASES[i][0], CASES[i][1], CASES[i][2]);
        printf("  F(%g, %g) > %g: %.10f (integrated %.10f)\n", CASES[i][1], CASES[i][2], CASES[i][0], got, want);
        CHECK(fabs(got - want) < 1e-7);
    }
    CHECK(mcpp_stats_f_sf(0, 3, 3) == 1);
    CHECK(isnan(mcpp_stats_f_sf(1, 0, 3)));
    CHECK(mcpp_stats_f_sf(2, 10, 1e9) > 0 && fabs(mcpp_stats_f_sf(2, 10, 1e9) - mcpp_stats_f_sf(2, 10, 1e6)) < 1e-12);
}

/* The chi-square of 4 df over 4 at probability p: its CDF is
 * 1 - exp(-x/2) (1 + x/2), inverted by bisection. */
static double chi2_4_quantile_over_4(double p)
{
    double lo = 0, hi = 100;
    for (int i = 0; i < 200; i++) {
        double x = (lo + hi) / 2;
        if (1 - exp(-x / 2) * (1 + x / 2) < p) lo = x;
        else hi = x;
    }
    return (lo + hi) / 8;
}

/* 50 variance estimates of 4 df each at evenly spaced chi-square
 * probabilities, their log scatter widened by 1 + widen: 0 scatters exactly
 * as chance does, larger widens it as tests of truly different variances do. */
static double prior_df_of(double widen, double *prior_var)
{
    double var[50], df[50];
    for (int i = 0; i < 50; i++) var[i] = pow(chi2_4_quantile_over_4((i + 0.5) / 50), 1 + widen), df[i] = 4;
    return mcpp_stats_prior_df(var, df, 50, prior_var);
}

TEST(variances_that_scatter_within_chance_share_one_prior)
{
    /* Widened by 10%, the scatter of the log variances exceeds chance's by
     * 0.12 (computed with SciPy when this test was written), less than its
     * standard error of 0.16 at 50 tests of 4 df: taken whole, that excess
     * made a prior of ~18 df; counted beyond one standard error, none. */
    double prior_var;
    CHECK(isinf(prior_df_of(0, &prior_var)));
    CHECK(fabs(prior_var - 1) < 0.05);
    CHECK(isinf(prior_df_of(0.10, &prior_var)));
}

TEST(variances_that_truly_differ_keep_their_own)
{
    /* Widened by 30% the excess is 0.42, 0.26 beyond one standard error: a
     * prior of ~9 df; widened 2x, a prior of a few. */
    double prior_var, d30 = prior_df_of(0.30, &prior_var), d100 = prior_df_of(1.0, &prior_var);
    printf("  prior df: %.1f widened by 30%%, %.1f widened 2x\n", d30, d100);
    CHECK(d30 > 5 && d30 < 15);
    CHECK(d100 > 0 && d100 < 3);
}

TEST(a_busy_block_in_a_lane_history_is_set_aside_and_normal_runs_are_not)
{
    /* Twelve runs at the normal scores (sd 1), then nine of them with a block
     * of three consecutive runs 10 sd off: Rosner's test removes exactly the
     * three, however they mask each other, and none of the plain twelve; the
     * same three values scattered are a machine's rarer state, and stay. */
    double plain[12] = {-0.32, 1.15, -1.73, 0.55, 0.10, -0.81, 1.73, -0.10, 0.32, -0.55, 0.81, -1.15};
    double busy[12] = {-0.32, 1.15, 0.55, 0.10, 10.2, 9.7, 10.0, 1.73, -0.10, -0.55, 0.81, -1.15}, scratch[12];
    double scattered[12] = {-0.32, 1.15, 10.2, 0.55, 0.10, 9.7, 1.73, -0.10, 10.0, -0.55, 0.81, -1.15};
    size_t n = 12;
    CHECK_INT_EQ(mcpp_stats_set_aside_far(plain, &n, scratch), 0);
    CHECK_INT_EQ(n, 12);
    CHECK_INT_EQ(mcpp_stats_set_aside_far(scattered, &n, scratch), 0);
    CHECK_INT_EQ(n, 12);
    CHECK_INT_EQ(mcpp_stats_set_aside_far(busy, &n, scratch), 3);
    CHECK_INT_EQ(n, 9);
    for (size_t i = 0; i < n; i++)
        CHECK(busy[i] < 2); /* the kept ones, in order */
    CHECK(busy[0] == -0.32 && busy[4] == 1.73 && busy[8] == -1.15);
    n = 5; /* too few to tell a busy run from a noisy lane */
    CHECK_INT_EQ(mcpp_stats_set_aside_far(busy, &n, scratch), 0);
}

int main(void)
{
    RUN(a_busy_block_in_a_lane_history_is_set_aside_and_normal_runs_are_not);
    RUN(the_f_tail_matches_its_density_integrated);
    RUN(variances_that_scatter_within_chance_share_one_prior);
    RUN(variances_that_truly_differ_keep_their_own);
    TEST_MAIN_END();
}
