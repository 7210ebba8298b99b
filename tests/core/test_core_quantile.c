/*
 * test_core_quantile.c — the stated quantiles of a window are checked without
 * sorting its samples (util/quantile.h, mcpp_quantiles_near): whenever that
 * answers, its answer is bit for bit the sorted samples' quantile, and it
 * declines (so the caller sorts) whenever a stated figure does not single out
 * the two ranks it interpolates (below the lower, at or above the upper: a
 * tie), or a sample is negative. Random windows of the sizes receipts have, with ties.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test_util.h"
#include "util/quantile.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const double Q[3] = {0.5, 0.1, 0.9};

/* n samples; with `ties`, drawn from a few values so that ranks repeat. */
static void window(double *v, size_t n, int ties)
{
    for (size_t i = 0; i < n; i++)
        v[i] = ties ? (double)(1 + rnd64() % 4) * 0.25 : 0.05 + (double)(rnd64() % 1000000) * 1e-7;
}

TEST(the_sorted_quantiles_stated_are_found_exactly_without_sorting)
{
    double v[64], sorted[64], stated[3], found[3];
    size_t answered = 0, declined = 0;
    for (int round = 0; round < 20000; round++) {
        size_t n = 2 + rnd64() % 40;
        window(v, n, round % 4 == 0);
        memcpy(sorted, v, n * sizeof *v);
        mcpp_sort_doubles(sorted, n);
        for (int j = 0; j < 3; j++)
            stated[j] = mcpp_quantile_sorted(sorted, n, Q[j]);
        double before[64];
        memcpy(before, v, n * sizeof *v);
        if (mcpp_quantiles_near(found, v, n, Q, stated, 3)) {
            answered++;
            for (int j = 0; j < 3; j++)
                CHECK(memcmp(&found[j], &stated[j], sizeof found[j]) == 0);
        } else {
            declined++;
            /* it declines only where a stated figure ties with the rank above it */
            int tie = 0;
            for (int j = 0; j < 3; j++) {
                size_t lo = (size_t)floor(Q[j] * (double)(n - 1));
                tie |= sorted[lo + 1] == stated[j];
            }
            CHECK(tie);
        }
        CHECK(memcmp(before, v, n * sizeof *v) == 0); /* the samples are left as they are */
    }
    CHECK(answered > 10000); /* windows without ties: the common case */
    CHECK(declined > 0);     /* the tied windows exercise the other way */
}

TEST(a_figure_outside_its_ranks_or_a_negative_sample_sends_the_caller_to_sort)
{
    double v[] = {0.4, 0.1, 0.3, 0.2, 0.5}, found[1];
    double median = 0.3, q = 0.5;
    CHECK_INT_EQ(mcpp_quantiles_near(found, v, 5, &q, &median, 1), 1);
    CHECK(found[0] == 0.3);
    double off = 0.31; /* not the median, but at or above its rank and below the next: it is found */
    CHECK_INT_EQ(mcpp_quantiles_near(found, v, 5, &q, &off, 1), 1);
    CHECK(found[0] == 0.3);
    off = 0.2999; /* below the median's rank */
    CHECK_INT_EQ(mcpp_quantiles_near(found, v, 5, &q, &off, 1), 0);
    off = 0.4; /* on the rank above */
    CHECK_INT_EQ(mcpp_quantiles_near(found, v, 5, &q, &off, 1), 0);
    double even[] = {0.4, 0.1, 0.3, 0.2}, between = 0.26;
    CHECK_INT_EQ(mcpp_quantiles_near(found, even, 4, &q, &between, 1), 1);
    CHECK(found[0] == 0.2 + 0.5 * (0.3 - 0.2)); /* interpolated: mcpp_quantile_sorted's arithmetic */
    double negative[] = {0.4, -0.1, 0.3, 0.2, 0.5};
    CHECK_INT_EQ(mcpp_quantiles_near(found, negative, 5, &q, &median, 1), 0);
    CHECK_INT_EQ(mcpp_quantiles_near(found, v, 1, &q, &median, 1), 0);
}

int main(void)
{
    RUN(the_sorted_quantiles_stated_are_found_exactly_without_sorting);
    RUN(a_figure_outside_its_ranks_or_a_negative_sample_sends_the_caller_to_sort);
    TEST_MAIN_END();
}
