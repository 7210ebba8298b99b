/*
 * test_changepoint.c — change points (mcpp_changepoints_find) on synthetic
 * series: known steps are found at their index, pure noise gives none.
 * Noise comes from a fixed-seed generator, so every run sees the same series.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "../test_util.h"
#include "mcpp_receipts.h"

static uint64_t rng_state;

static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller). */
static double gaussian(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* level * (1 + rel_noise * N(0,1)) for each run, with steps applied. */
static void series(double *out, size_t n, double rel_noise, const size_t *step_at, const double *step_factor,
                   size_t n_steps)
{
    double level = 1000.0;
    for (size_t i = 0, s = 0; i < n; i++) {
        while (s < n_steps && step_at[s] == i) level *= step_factor[s++];
        out[i] = level * (1.0 + rel_noise * gaussian());
    }
}

TEST(a_single_step_is_found_at_its_run)
{
    static const double factors[] = {0.90, 1.10, 0.95, 1.05, 0.97};
    size_t failures = 0, trials = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        for (size_t f = 0; f < sizeof factors / sizeof factors[0]; f++) {
            rng_state = seed * 1000 + f;
            size_t n = 30 + (size_t)(seed % 4) * 20, at = n / 3 + (size_t)(seed % 7);
            double v[200];
            series(v, n, 0.005, &at, &factors[f], 1);
            size_t idx[8], count = 0;
            CHECK_INT_EQ(mcpp_changepoints_find(idx, 8, &count, v, n, NULL), MCPP_OK);
            trials++;
            if (count != 1 || idx[0] != at) {
                failures++;
                printf("# seed %llu factor %.2f n %zu: %zu changes, first at %zu (want %zu)\n",
                       (unsigned long long)seed, factors[f], n, count, count ? idx[0] : 0, at);
            }
        }
    }
    CHECK_INT_EQ((int)failures, 0);
    CHECK_INT_EQ((int)trials, 200);
}

TEST(two_steps_are_both_found_in_order)
{
    rng_state = 77;
    size_t at[2] = {20, 45};
    double factor[2] = {0.9, 1.2};
    double v[70];
    series(v, 70, 0.01, at, factor, 2);
    size_t idx[8], count = 0;
    CHECK_INT_EQ(mcpp_changepoints_find(idx, 8, &count, v, 70, NULL), MCPP_OK);
    CHECK_INT_EQ((int)count, 2);
    if (count == 2) {
        CHECK_INT_EQ((int)idx[0], 20);
        CHECK_INT_EQ((int)idx[1], 45);
    }
}

TEST(pure_noise_has_no_change_point)
{
    static const size_t lengths[] = {6, 12, 20, 50, 120, 400};
    static const double noise[] = {0.002, 0.02, 0.1};
    size_t false_steps = 0, series_count = 0;
    for (uint64_t seed = 1; seed <= 200; seed++)
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
            for (size_t k = 0; k < sizeof noise / sizeof noise[0]; k++) {
                rng_state = seed * 7919 + l * 31 + k;
                double v[400];
                series(v, lengths[l], noise[k], NULL, NULL, 0);
                size_t idx[8], count = 0;
                CHECK_INT_EQ(mcpp_changepoints_find(idx, 8, &count, v, lengths[l], NULL), MCPP_OK);
                series_count++;
                if (count) {
                    false_steps++;
                    printf("# false step: seed %llu n %zu noise %.3f at %zu\n", (unsigned long long)seed,
                           lengths[l], noise[k], idx[0]);
                }
            }
    CHECK_INT_EQ((int)series_count, 3600);
    CHECK_INT_EQ((int)false_steps, 0);
}

TEST(a_step_smaller_than_min_rel_change_is_not_reported)
{
    rng_state = 5;
    size_t at = 25;
    double factor = 0.995; /* 0.5%: clear against 0.05% noise but below the 1% floor */
    double v[50];
    series(v, 50, 0.0005, &at, &factor, 1);
    size_t idx[4], count = 9;
    CHECK_INT_EQ(mcpp_changepoints_find(idx, 4, &count, v, 50, NULL), MCPP_OK);
    CHECK_INT_EQ((int)count, 0);
    mcpp_changepoint_settings cfg;
    mcpp_changepoint_settings_default(&cfg);
    cfg.min_rel_change = 0.001;
    CHECK_INT_EQ(mcpp_changepoints_find(idx, 4, &count, v, 50, &cfg), MCPP_OK);
    CHECK_INT_EQ((int)count, 1);
}

TEST(constant_short_and_invalid_series)
{
    double flat[10] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
    size_t idx[4], count = 9;
    CHECK_INT_EQ(mcpp_changepoints_find(idx, 4, &count, flat, 10, NULL), MCPP_OK);
    CHECK_INT_EQ((int)count, 0);
    double jump[10] = {5, 5, 5, 5, 5, 6, 6, 6, 6, 6};
    CHECK_INT_EQ(mcpp_changepoints_find(idx, 4, &count, jump, 10, NULL), MCPP_OK);
    CHECK_INT_EQ((int)count, 1);
    CHECK_INT_EQ((int)idx[0], 5);
    CHECK_INT_EQ(mcpp_changepoints_find(idx, 4, &count, jump, 4, NULL), MCPP_OK);
    CHECK_INT_EQ((int)count, 0);
    double bad[6] = {1, 2, -3, 4, 5, 6};
    CHECK_INT_EQ(mcpp_changepoints_find(idx, 4, &count, bad, 6, NULL), MCPP_EARG);
    CHECK_INT_EQ(mcpp_changepoints_find(idx, 4, NULL, bad, 6, NULL), MCPP_EARG);
}

/* issue 27: a drop and a recovery that nearly cancel (-20% then +16%, six
 * runs each) leave no single split worth keeping on the whole series; the
 * search for a middle segment finds both. Over many noise draws. */
TEST(a_drop_then_a_recovery_over_6_6_6_runs_are_both_found)
{
    size_t failures = 0;
    for (uint64_t seed = 1; seed <= 30; seed++) {
        rng_state = seed * 31 + 5;
        size_t at[2] = {6, 12};
        double factor[2] = {0.80, 1.16};
        double v[18];
        series(v, 18, 0.01, at, factor, 2);
        size_t idx[8], count = 0;
        CHECK_INT_EQ(mcpp_changepoints_find(idx, 8, &count, v, 18, NULL), MCPP_OK);
        if (count != 2 || idx[0] != 6 || idx[1] != 12) {
            failures++;
            printf("# seed %llu: %zu changes, first at %zu\n", (unsigned long long)seed, count, count ? idx[0] : 0);
        }
    }
    CHECK_INT_EQ((int)failures, 0);
}

int main(void)
{
    RUN(a_single_step_is_found_at_its_run);
    RUN(two_steps_are_both_found_in_order);
    RUN(pure_noise_has_no_change_point);
    RUN(a_step_smaller_than_min_rel_change_is_not_reported);
    RUN(constant_short_and_invalid_series);
    RUN(a_drop_then_a_recovery_over_6_6_6_runs_are_both_found);
    TEST_MAIN_END();
}
