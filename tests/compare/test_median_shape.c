/*
 * test_median_shape.c — the null distribution of the change between two
 * sides' medians of heavy-tailed runs (lib/src/analysis/median_shape.h): its
 * tail and spread match a simulation of the medians for odd and even run
 * counts, the uncertainty of the scale fattens its far tail, and the
 * spread of two runs (what tells runs of one job apart) is the normal's
 * closed form when the tails are normal. Every reference figure is computed
 * here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/median_shape.h"
#include "analysis/stats_internal.h"
#include "../test_util.h"

/* xorshift64* and Box-Muller: deterministic draws for the simulation */
static unsigned long long state = 88172645463325252ull;
static double uniform(void)
{
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return (double)((state * 2685821657736338717ull) >> 11) / 9007199254740992.0 + 1e-17;
}
static double normal(void) { return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform()); }
static double t_draw(int df)
{
    double chi = 0;
    for (int i = 0; i < df; i++) {
        double z = normal();
        chi += z * z;
    }
    return normal() / sqrt(chi / df);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_draw(int n, int df)
{
    double x[16];
    for (int i = 0; i < n; i++) x[i] = t_draw(df);
    qsort(x, (size_t)n, sizeof *x, by_value);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

enum { DRAWS = 200000 };

/* The shape for n runs a side of a t with df degrees of freedom against
 * DRAWS simulated changes between two such medians: the same standard
 * deviation (2%), and the same tail at 2 and 3 of them (binomial error
 * allowed four times over). */
static void check_against_simulation(int n, int df)
{
    mcpp_median_shape s;
    CHECK_INT_EQ(mcpp_median_shape_build(&s, (size_t)n, (size_t)n, df, 0), 0);
    double *d = malloc(DRAWS * sizeof *d), ss = 0;
    if (!d) abort();
    for (int i = 0; i < DRAWS; i++) d[i] = median_draw(n, df) - median_draw(n, df), ss += d[i] * d[i];
    double sd = sqrt(ss / DRAWS);
    CHECK(fabs(s.sd / sd - 1) < 0.02);
    for (double z = 2; z <= 3; z += 1) {
        size_t beyond = 0;
        for (int i = 0; i < DRAWS; i++) beyond += d[i] >= z * s.sd;
        double p = (double)beyond / DRAWS, tol = 4 * sqrt(p * (1 - p) / DRAWS) + 1e-4;
        double got = mcpp_null_shape_upper(&s.shape, z);
        if (!(fabs(got - p) < tol)) printf("# n %d df %d z %.0f: shape %.5f, simulated %.5f\n", n, df, z, got, p);
        CHECK(fabs(got - p) < tol);
    }
    free(d);
    mcpp_median_shape_free(&s);
}

TEST(the_medians_of_five_runs_match_a_simulation)
{
    check_against_simulation(5, 3);
}

TEST(the_medians_of_four_runs_are_the_mean_of_the_middle_two)
{
    check_against_simulation(4, 4);
}

TEST(an_uncertain_scale_fattens_the_far_tail)
{
    mcpp_median_shape sure, unsure;
    CHECK_INT_EQ(mcpp_median_shape_build(&sure, 5, 5, 3, 0), 0);
    CHECK_INT_EQ(mcpp_median_shape_build(&unsure, 5, 5, 3, 0.05), 0);
    /* a change of 4 standard deviations of the sure shape's, in each one's units */
    double x = 4 * sure.sd;
    CHECK(unsure.sd > sure.sd);
    CHECK(mcpp_null_shape_upper(&unsure.shape, x / unsure.sd) > 1.2 * mcpp_null_shape_upper(&sure.shape, x / sure.sd));
    /* symmetric: the median of the change is 0, and its quantiles mirror */
    CHECK(fabs(mcpp_null_shape_quantile(&unsure.shape, 0.5)) < 0.01);
    CHECK(fabs(mcpp_null_shape_quantile(&unsure.shape, 0.999) + mcpp_null_shape_quantile(&unsure.shape, 0.001)) <
          0.02);
    mcpp_median_shape_free(&sure);
    mcpp_median_shape_free(&unsure);
}

TEST(the_far_tail_of_few_runs_with_very_heavy_tails_is_kept)
{
    /* Three runs of a t with 2 df: their median lies beyond 60 scales with
     * probability 3 p^2 - 2 p^3 (p = P(T > 60), two of three beyond), and
     * the change beyond 60 at least half as often (the base's median below
     * 0): a grid that stops at 50 scales says 0 there. */
    mcpp_median_shape s;
    CHECK_INT_EQ(mcpp_median_shape_build(&s, 3, 3, 2, 0), 0);
    double p = mcpp_stats_t_cdf(-60, 2), beyond = 3 * p * p - 2 * p * p * p;
    CHECK(mcpp_null_shape_upper(&s.shape, 60 / s.sd) >= 0.5 * beyond);
    mcpp_median_shape_free(&s);
}

TEST(two_normal_runs_differ_by_the_normal_closed_form)
{
    /* |N1 - N2| = sqrt 2 |N|: its median sqrt 2 z_0.75, its density there 2 phi(z_0.75) / sqrt 2 */
    double density, m = mcpp_median_shape_pair_spread(INFINITY, &density);
    double z = mcpp_stats_normal_quantile(0.75);
    CHECK(fabs(m - sqrt(2.0) * z) < 0.01);
    CHECK(fabs(density - 2 * exp(-z * z / 2) / sqrt(2 * 3.141592653589793) / sqrt(2.0)) < 0.01);
    /* heavier tails, wider centre: a t with 2 df spreads its pairs more in scale units */
    double d2, m2 = mcpp_median_shape_pair_spread(2, &d2);
    CHECK(m2 > m && d2 > 0);
}

TEST(a_t_location_and_scale_are_recovered_from_its_quantiles)
{
    /* 400 values at evenly spaced probabilities of 5 + 2 T_3, one of them far off */
    double x[400], location;
    for (int i = 0; i < 400; i++) x[i] = 5 + 2 * mcpp_stats_t_quantile((i + 0.5) / 400, 3);
    x[0] = -1000;
    double scale = mcpp_stats_t_location_scale(x, 400, 3, &location);
    CHECK(fabs(location - 5) < 0.05);
    CHECK(fabs(scale / 2 - 1) < 0.05);
    CHECK(mcpp_stats_t_location_scale(x, 0, 3, &location) == 0);
}

int main(void)
{
    RUN(the_medians_of_five_runs_match_a_simulation);
    RUN(the_medians_of_four_runs_are_the_mean_of_the_middle_two);
    RUN(an_uncertain_scale_fattens_the_far_tail);
    RUN(the_far_tail_of_few_runs_with_very_heavy_tails_is_kept);
    RUN(two_normal_runs_differ_by_the_normal_closed_form);
    RUN(a_t_location_and_scale_are_recovered_from_its_quantiles);
    TEST_MAIN_END();
}
