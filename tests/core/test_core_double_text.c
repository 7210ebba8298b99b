/*
 * test_core_double_text.c — the canonical text of doubles is the text of its
 * definition: integral values below 2^53 as integers, others as the shortest
 * of %.15g, %.16g, %.17g that strtod reads back to the same double. The
 * writer finds most short decimals without printf; here every kind of value
 * (random bit patterns, short decimals at every scale, the edges of the
 * printf-free range, halfway cases, negatives) is checked against that
 * definition computed with printf and strtod, with and without force_fraction.
 */
#include <math.h>
#include <stdint.h>

#include "test_util.h"
#include "util/strbuf.h"

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The definition (docs/store.md, util/strbuf.h), with printf and strtod. */
static void reference(char *out, size_t cap, double v, int force_fraction)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(out, cap, "%.0f%s", fabs(v) == 0 ? 0.0 : v, force_fraction ? ".0" : "");
        return;
    }
    static const char *const formats[] = {"%.15g", "%.16g", "%.17g"};
    for (int i = 0; i < 3; i++) {
        snprintf(out, cap, formats[i], v);
        if (strtod(out, NULL) == v) break;
    }
    if (force_fraction && isfinite(v) && !strpbrk(out, ".eE")) strcat(out, ".0");
}

static size_t mismatches;

static void check_value(double v)
{
    for (int ff = 0; ff < 2; ff++) {
        char got[64], want[64];
        mcpp_format_double(got, sizeof got, v, ff);
        reference(want, sizeof want, v, ff);
        if (strcmp(got, want) != 0 && mismatches++ < 10)
            fprintf(stderr, "%a (force_fraction %d): got %s, want %s\n", v, ff, got, want);
    }
}

TEST(random_bit_patterns_match_printf)
{
    mismatches = 0;
    for (int i = 0; i < 150000; i++) {
        uint64_t bits = rnd64();
        double v;
        memcpy(&v, &bits, sizeof v);
        check_value(v);
    }
    CHECK_INT_EQ(mismatches, 0);
}

TEST(short_decimals_at_every_scale_match_printf)
{
    mismatches = 0;
    static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                                   1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    size_t short_ones = 0;
    for (int i = 0; i < 200000; i++) {
        int digits = 1 + (int)(rnd64() % 17), scale = (int)(rnd64() % 19);
        uint64_t m = rnd64() % (uint64_t)pow10[digits];
        double v = (double)m / pow10[scale] * ((rnd64() & 1) ? -1.0 : 1.0);
        if (rnd64() % 4 == 0) v = strtod("0.1", NULL) * (double)m; /* products that miss their decimal */
        char text[64];
        mcpp_format_double(text, sizeof text, v, 0);
        if (strlen(text) <= 17) short_ones++;
        check_value(v);
    }
    CHECK_INT_EQ(mismatches, 0);
    CHECK(short_ones > 50000); /* the printf-free path was exercised */
}

TEST(edges_of_the_fast_range_and_halfway_cases_match_printf)
{
    mismatches = 0;
    static const double edges[] = {1e-4, 1e14, 1e15, 9007199254740992.0, 0.5, 0.25, 0.125};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
        double v = edges[e];
        for (int step = 0; step < 200; step++) {
            check_value(v);
            check_value(-v);
            v = nextafter(v, INFINITY);
        }
        v = edges[e];
        for (int step = 0; step < 200; step++) {
            check_value(v);
            v = nextafter(v, 0.0);
        }
    }
    static const double specials[] = {0.1 + 0.2, 1.0 / 3.0, 2.0 / 3.0, 0.0001234, 0.00009999999999999999,
                                      99999999999999.95, 12345678901234.5, 1.05, 2.675, 1.005, 0.015,
                                      559304.3, 84.6, 0.0031, 71.3, 1.25, 5e-324, 1.7976931348623157e308,
                                      -0.0, 123456789012345.6, 0.30000000000000004};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) check_value(specials[i]);
    /* m + 0.5 at every scale: the rounding of |v| * 10^k may pick either side */
    for (int k = 1; k <= 16; k++)
        for (int i = 0; i < 2000; i++) check_value(((double)(rnd64() % 100000) + 0.5) / pow(10.0, k));
    CHECK_INT_EQ(mismatches, 0);
}

/* The writer skips the %.15g attempt when the 16th and 17th digits of %.17g
 * are far from 00 (a 15-digit decimal that reads back lies within half an
 * ulp): doubles a few ulps either side of 15-digit decimals, at every scale,
 * sit right at that bound. Each is formatted twice (the second time from the
 * per-thread memo). */
TEST(doubles_a_few_ulps_from_15_digit_decimals_match_printf)
{
    mismatches = 0;
    for (int i = 0; i < 20000; i++) {
        char dec[64];
        snprintf(dec, sizeof dec, "%llu.%014llue%d", (unsigned long long)(1 + rnd64() % 9),
                 (unsigned long long)(rnd64() % 100000000000000ULL), (int)(rnd64() % 60) - 30);
        double up = strtod(dec, NULL), down = up;
        for (int step = 0; step < 40; step++) {
            check_value(up);
            check_value(down);
            up = nextafter(up, INFINITY);
            down = nextafter(down, 0.0);
        }
    }
    CHECK_INT_EQ(mismatches, 0);
}

int main(void)
{
    RUN(random_bit_patterns_match_printf);
    RUN(short_decimals_at_every_scale_match_printf);
    RUN(edges_of_the_fast_range_and_halfway_cases_match_printf);
    RUN(doubles_a_few_ulps_from_15_digit_decimals_match_printf);
    TEST_MAIN_END();
}
