/*
 * test_core_double_text.c — the canonical text of doubles is the text of its
 * definition: integral values below 2^53 as integers, others as the shortest
 * of %.15g, %.16g, %.17g that strtod reads back to the same double. The
 * writer finds most short decimals without printf; here every kind of value
 * (random bit patterns, short decimals at every scale, the edges of the
 * printf-free range, halfway cases, negatives) is checked against that
 * definition computed with printf and strtod, with and without force_fraction.
 * The printf-free exact path for 16- and 17-digit values (util/double_text.c)
 * is checked on its own over its whole range, at its halfway cases and at
 * powers of two (whose lower neighbour is closer); so is its reverse, the
 * double of a decimal of up to 19 digits, against strtod.
 */
#include <math.h>
#include <stdint.h>

#include "test_util.h"
#include "util/double_text.h"
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

/* The first of %.15g, %.16g, %.17g that reads back, as printf writes it. */
static void first_that_reads_back(char *out, size_t cap, double v)
{
    static const char *const formats[] = {"%.15g", "%.16g", "%.17g"};
    for (int i = 0; i < 3; i++) {
        snprintf(out, cap, formats[i], v);
        if (strtod(out, NULL) == v)
            return;
    }
}

static void check_exact(double v, size_t *covered)
{
    char got[64], want[64];
    size_t n = mcpp_double_text_exact(got, v);
    double a = fabs(v);
    if (n == 0) {
        if (a >= 1e-11 && a < 1e15 && mismatches++ < 10)
            fprintf(stderr, "%a: the exact path declined\n", v);
        return;
    }
    (*covered)++;
    first_that_reads_back(want, sizeof want, v);
    if ((strcmp(got, want) != 0 || n != strlen(want)) && mismatches++ < 10)
        fprintf(stderr, "%a: exact path %s, printf %s\n", v, got, want);
}

TEST(the_exact_path_matches_printf_over_its_range)
{
    mismatches = 0;
    size_t covered = 0;
    for (int i = 0; i < 300000; i++) {
        /* a uniformly random mantissa at every binary exponent of the range */
        double v = ldexp(1.0 + (double)(rnd64() >> 12) / 4503599627370496.0, (int)(rnd64() % 87) - 37);
        check_exact((rnd64() & 1) ? v : -v, &covered);
    }
    for (int i = 0; i < 100000; i++) {
        /* decimals of 16 to 18 digits ending in 5: halfway at the 15th to 17th digit */
        char dec[64];
        snprintf(dec, sizeof dec, "%llu.%015llu5e%d", (unsigned long long)(1 + rnd64() % 9),
                 (unsigned long long)(rnd64() % 1000000000000000ULL) / (1 + rnd64() % 100) * 1,
                 (int)(rnd64() % 25) - 11);
        double v = strtod(dec, NULL);
        check_exact(v, &covered);
        check_exact(nextafter(v, INFINITY), &covered);
        check_exact(nextafter(v, 0.0), &covered);
    }
    for (int e = -36; e < 50; e++) { /* powers of two and their neighbours */
        double v = ldexp(1.0, e);
        check_exact(v, &covered);
        check_exact(nextafter(v, 0.0), &covered);
        check_exact(nextafter(v, INFINITY), &covered);
    }
    for (int e = -11; e < 15; e++) { /* powers of ten and their neighbours: the 17-digit window moves */
        double v = pow(10.0, e);
        for (int step = 0; step < 50; step++) {
            check_exact(v, &covered);
            v = nextafter(v, 0.0);
        }
    }
    CHECK_INT_EQ(mismatches, 0);
    CHECK(covered > 400000); /* nearly every value was in its range */
}

static void check_decimal(uint64_t m, int e10)
{
    char text[48];
    snprintf(text, sizeof text, "%llue%d", (unsigned long long)m, e10);
    double want = strtod(text, NULL), got = -1.0;
    if (!mcpp_decimal_to_double_exact(&got, m, e10)) {
        if (e10 >= -27 && e10 <= 27 && mismatches++ < 10)
            fprintf(stderr, "%s: the exact reader declined\n", text);
        return;
    }
    if (memcmp(&got, &want, sizeof got) != 0 && mismatches++ < 10)
        fprintf(stderr, "%s: exact reader %a, strtod %a\n", text, got, want);
}

/* The reader's side: m * 10^e10 for mantissas of up to 19 digits (a
 * writer's %.17g), against strtod of the same decimal, bit for bit; and
 * decimals that are exactly halfway between two doubles, where strtod
 * rounds to the even mantissa. */
TEST(decimals_of_up_to_19_digits_read_as_strtod_reads_them)
{
    mismatches = 0;
    for (int i = 0; i < 300000; i++) {
        int digits = 1 + (int)(rnd64() % 19);
        uint64_t m = rnd64(), scale = 1;
        for (int d = 0; d < digits; d++)
            scale *= 10;
        m = digits == 19 ? m % 10000000000000000000ULL : m % scale;
        check_decimal(m, (int)(rnd64() % 55) - 27);
    }
    for (int i = 0; i < 50000; i++) { /* halfway: (2M + 1) * 2^(j-1), and (2M + 1) * 5^j * 10^-j */
        uint64_t odd = 2 * (((uint64_t)1 << 52) | (rnd64() >> 12)) + 1;
        int j = 1 + (int)(rnd64() % 10);
        check_decimal(odd << (j - 1), 0);
        int k = 1 + (int)(rnd64() % 4);
        uint64_t p5 = 1;
        for (int d = 0; d < k; d++)
            p5 *= 5;
        check_decimal(odd * p5, -k);
        check_decimal(odd * p5 + 1, -k); /* just above halfway */
        check_decimal(odd * p5 - 1, -k); /* just below */
    }
    for (int i = 0; i < 50000; i++) {
        /* the nearest 19-digit decimals * 10^-27 to halfway points near 1e-8:
         * a hair above or below halfway, closer than the reader's quotient
         * resolves (its remainder decides) */
        uint64_t odd = 2 * (((uint64_t)1 << 52) | (rnd64() >> 12)) + 1;
        int shift = 80 + (int)(rnd64() % 3); /* halfway = odd * 2^-shift: 1.9e-8 .. 7.5e-9 */
        unsigned __int128 scaled = (unsigned __int128)odd * 7450580596923828125ULL; /* 5^27 */
        scaled >>= shift - 27;                                                      /* * 2^27 */
        uint64_t m = (uint64_t)scaled;
        check_decimal(m, -27);
        check_decimal(m + 1, -27);
    }
    check_decimal(0, -5);
    check_decimal(18446744073709551615ULL, 27);
    check_decimal(18446744073709551615ULL, -27);
    check_decimal(1, -27);
    CHECK_INT_EQ(mismatches, 0);
    double unused;
    CHECK(!mcpp_decimal_to_double_exact(&unused, 1, 28)); /* outside its range: strtod decides */
    CHECK(!mcpp_decimal_to_double_exact(&unused, 1, -28));
}

/* The fast path finds the exponent of the leading digit by comparing with
 * powers of ten (util/strbuf.c): the doubles on either side of each power,
 * and 15-digit decimals that round up to it (9.99999999999999e-3), match. */
TEST(doubles_next_to_each_power_of_ten_match_printf)
{
    mismatches = 0;
    for (int x = -5; x <= 15; x++) {
        double p = pow(10.0, x), below = p, above = p;
        for (int step = 0; step < 300; step++) {
            below = nextafter(below, 0.0);
            above = nextafter(above, INFINITY);
            check_value(below);
            check_value(above);
            check_value(-below);
        }
        for (int digits = 1; digits <= 17; digits++) {
            double nines = (1.0 - pow(10.0, -digits)) * p; /* 0.99..9 * 10^x */
            check_value(nines);
            check_value(nextafter(nines, 0.0));
            check_value(nextafter(nines, INFINITY));
            check_value(p + p * pow(10.0, -digits)); /* 1.00..01 * 10^x */
        }
    }
    CHECK_INT_EQ(mismatches, 0);
}

int main(void)
{
    RUN(random_bit_patterns_match_printf);
    RUN(short_decimals_at_every_scale_match_printf);
    RUN(edges_of_the_fast_range_and_halfway_cases_match_printf);
    RUN(doubles_next_to_each_power_of_ten_match_printf);
    RUN(doubles_a_few_ulps_from_15_digit_decimals_match_printf);
    RUN(the_exact_path_matches_printf_over_its_range);
    RUN(decimals_of_up_to_19_digits_read_as_strtod_reads_them);
    TEST_MAIN_END();
}
