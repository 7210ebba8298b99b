/*
 * double_text.c — the first of %.15g, %.16g, %.17g that reads back to a
 * double, found with integer arithmetic instead of printf and strtod.
 *
 * Writing a receipt's numbers was a quarter of a store add's CPU on measured
 * values (times, rates: 16 or 17 significant digits): each took up to two
 * printf calls and two strtod calls in glibc's multi-precision code. Here a
 * double a = M * 2^e (M < 2^53) in [1e-11, 1e15) is scaled by 10^p, p <= 28,
 * exactly: a * 10^p = M * 5^p * 2^(p+e), and M * 5^p < 2^119 fits in 128
 * bits. So the k-digit decimal printf would print (rounded half to even, as
 * glibc rounds) and whether strtod reads it back (it lies between a's
 * midpoints with its neighbours; on a midpoint, strtod rounds to the even
 * mantissa) are both decided exactly, with no approximation to check. The
 * text is then written as %g writes it. Outside that range the caller asks
 * printf (tests/core/test_core_double_text.c compares both with printf).
 *
 * The other way, the direct JSON reader's numbers of 16 to 19 digits (a
 * writer's %.17g) went to strtod, also multi-precision: m * 10^e for
 * |e| <= 27 is m * 5^e * 2^e, or a 128-bit quotient by 5^-e, rounded once to
 * a double by the integer's conversion, as strtod rounds the decimal.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util/double_text.h"

#if defined(__SIZEOF_INT128__)

typedef unsigned __int128 u128;

#define MAX_P 28 /* 5^28 * 2^55 < 2^121: every product below fits in 128 bits */
#define MAX_DECIMAL_E10 27 /* 5^27 < 2^63: m * 5^27 fits, and m * 2^s / 5^27 keeps 64 bits */

static const uint64_t POW5[28] = {1ULL,
                                  5ULL,
                                  25ULL,
                                  125ULL,
                                  625ULL,
                                  3125ULL,
                                  15625ULL,
                                  78125ULL,
                                  390625ULL,
                                  1953125ULL,
                                  9765625ULL,
                                  48828125ULL,
                                  244140625ULL,
                                  1220703125ULL,
                                  6103515625ULL,
                                  30517578125ULL,
                                  152587890625ULL,
                                  762939453125ULL,
                                  3814697265625ULL,
                                  19073486328125ULL,
                                  95367431640625ULL,
                                  476837158203125ULL,
                                  2384185791015625ULL,
                                  11920928955078125ULL,
                                  59604644775390625ULL,
                                  298023223876953125ULL,
                                  1490116119384765625ULL,
                                  7450580596923828125ULL};

static u128 pow5(int p) { return p < 28 ? (u128)POW5[p] : (u128)POW5[27] * 5; } /* p <= MAX_P */

/* x * 2^s for a possibly negative s, truncated. */
static u128 shift(u128 x, int s) { return s >= 0 ? x << s : x >> -s; }

/* round(x * 2^s), halves to even; the caller keeps it below 2^64. */
static uint64_t rounded_product(u128 x, int s)
{
    if (s >= 0)
        return (uint64_t)(x << s);
    u128 n = x >> -s, rest = x - (n << -s), half = (u128)1 << (-s - 1);
    return (uint64_t)(n + (rest > half || (rest == half && (n & 1))));
}

/* round(M * 5^p * 2^s), halves to even. */
static uint64_t rounded(uint64_t m, u128 p5, int s) { return rounded_product((u128)m * p5, s); }

/* Whether strtod reads n * 10^-p back as a = m * 2^e: 4 * n * 10^-p lies in
 * [4a - gap_below, 4a + 2 * 2^e], whose ends are included when m is even
 * (ties go to the even mantissa; in this range no decimal of 17 digits or
 * fewer falls on a midpoint, but the rule costs nothing). gap_below is
 * 2 * 2^e, or 2^e when a is a power of two (the double below is closer).
 * Both sides are multiplied by 5^p * 2^-e to stay integers. */
static int reads_back(uint64_t n, int p, uint64_t m, int e, u128 p5)
{
    int below_half = m == ((uint64_t)1 << 52);
    u128 lo = ((u128)4 * m - (below_half ? 1 : 2)) * p5, hi = ((u128)4 * m + 2) * p5;
    int s = 2 - e - p;
    u128 t;
    if (s >= 0) {
        t = (u128)n << s;
    } else { /* scale lo and hi up instead */
        lo <<= -s;
        hi <<= -s;
        t = n;
    }
    return (m & 1) == 0 ? t >= lo && t <= hi : t > lo && t < hi;
}

/* "00" to "99": two digits a division (the digits of 16 and 17 digit
 * numbers were a tenth of writing a receipt's JSON). */
static const char DIGIT_PAIRS[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

/* Writes `digits` (k significant digits, exponent x: d.ddd * 10^x) as %.kg. */
static size_t write_g(char *out, int negative, uint64_t digits, int k, int x)
{
    char d[24];
    int left = k;
    for (; left >= 2; left -= 2, digits /= 100)
        memcpy(d + left - 2, DIGIT_PAIRS + 2 * (digits % 100), 2);
    if (left == 1)
        d[0] = (char)('0' + digits);
    int used = k;
    while (used > 1 && d[used - 1] == '0')
        used--; /* %g drops trailing zeros */
    size_t n = 0;
    if (negative)
        out[n++] = '-';
    if (x < -4 || x >= k) {
        out[n++] = d[0];
        if (used > 1) {
            out[n++] = '.';
            memcpy(out + n, d + 1, (size_t)used - 1);
            n += (size_t)used - 1;
        }
        out[n++] = 'e';
        out[n++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            out[n++] = (char)('0' + ax / 100);
        out[n++] = (char)('0' + ax / 10 % 10);
        out[n++] = (char)('0' + ax % 10);
    } else if (x < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -x - 1; i++)
            out[n++] = '0';
        memcpy(out + n, d, (size_t)used);
        n += (size_t)used;
    } else {
        memcpy(out + n, d, (size_t)x + 1 <= (size_t)used ? (size_t)x + 1 : (size_t)used);
        for (int i = used; i < x + 1; i++)
            out[n + (size_t)i] = '0';
        n += (size_t)x + 1;
        if (used > x + 1) {
            out[n++] = '.';
            memcpy(out + n, d + x + 1, (size_t)(used - x - 1));
            n += (size_t)(used - x - 1);
        }
    }
    out[n] = '\0';
    return n;
}

/* Writes n * 10^-p, n of k digits (or 10^k, rounded up to the next power of ten). */
static size_t write_digits(char *out, int negative, uint64_t n, int k, int p)
{
    static const uint64_t POW10[18] = {1ULL,
                                       10ULL,
                                       100ULL,
                                       1000ULL,
                                       10000ULL,
                                       100000ULL,
                                       1000000ULL,
                                       10000000ULL,
                                       100000000ULL,
                                       1000000000ULL,
                                       10000000000ULL,
                                       100000000000ULL,
                                       1000000000000ULL,
                                       10000000000000ULL,
                                       100000000000000ULL,
                                       1000000000000000ULL,
                                       10000000000000000ULL,
                                       100000000000000000ULL};
    int x = k - 1 - p; /* the exponent of the leading digit */
    if (n == POW10[k]) {
        n /= 10;
        x++;
    }
    return write_g(out, negative, n, k, x);
}

size_t mcpp_double_text_exact(char *out, double v)
{
    double a = fabs(v);
    if (!(a >= 1e-11 && a < 1e15))
        return 0; /* also NaN */
    /* a = m * 2^e with m in [2^52, 2^53), read off its bits (every double of
     * this range is normal): frexp and ldexp were library calls */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    uint64_t m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    int e = (int)(bits >> 52) - 1075;
    /* p such that a * 10^p is in [1e16, 1e17): 17 digits before the point.
     * a >= 2^(e+52), whose leading digit's exponent is floor((e+52) log10 2),
     * here (x * 78913) >> 18 rounded down (exact for |x| < 1000), or one less */
    int x2 = e + 52;
    int p = 16 - (x2 >= 0 ? (x2 * 78913) >> 18 : -((-x2 * 78913 + (1 << 18) - 1) >> 18));
    u128 x = 0;
    for (int tries = 0; tries < 3; tries++) {
        if (p < 2 || p > MAX_P)
            return 0;
        x = (u128)m * pow5(p);
        u128 whole = shift(x, p + e);
        if (whole < (u128)10000000000000000ULL)
            p++;
        else if (whole >= (u128)100000000000000000ULL)
            p--;
        else
            break;
        if (tries == 2)
            return 0;
    }
    /* When %.15g reads back, a lies within half an ulp (< 12 units of the
     * 17th digit) of it, so the 17-digit decimal ends near 00; otherwise the
     * 15-digit attempt is skipped (most measured values) */
    uint64_t n17 = rounded_product(x, p + e);
    for (int k = n17 % 100 <= 24 || n17 % 100 >= 76 ? 15 : 16; k <= 16; k++) {
        int pk = p - (17 - k);
        u128 p5 = pow5(pk);
        uint64_t n = rounded(m, p5, pk + e);
        if (reads_back(n, pk, m, e, p5))
            return write_digits(out, v < 0, n, k, pk);
    }
    return write_digits(out, v < 0, n17, 17, p); /* 17 correctly rounded digits always read back */
}

/* Bits in x (0 for 0). */
static int bit_length(u128 x)
{
    uint64_t high = (uint64_t)(x >> 64);
    return high ? 128 - __builtin_clzll(high) : (uint64_t)x ? 64 - __builtin_clzll((uint64_t)x) : 0;
}

int mcpp_decimal_to_double_exact(double *out, uint64_t m, int e10)
{
    if (e10 < -MAX_DECIMAL_E10 || e10 > MAX_DECIMAL_E10)
        return 0;
    if (m == 0) {
        *out = 0.0;
        return 1;
    }
    if (e10 >= 0) { /* m * 5^e10 * 2^e10: the conversion to double is the one rounding */
        *out = ldexp((double)((u128)m * pow5(e10)), e10);
        return 1;
    }
    /* m / 10^k = (m * 2^s / 5^k) * 2^(-s-k): a quotient of 64 bits or more, its
     * last bit set when the division left a remainder, rounds to 53 bits as the
     * exact quotient would (that bit lies below the rounding bit) */
    int k = -e10, s = 127 - bit_length(m);
    u128 scaled = (u128)m << s, p5 = pow5(k), q = scaled / p5;
    if (scaled - q * p5)
        q |= 1;
    *out = ldexp((double)q, -s - k);
    return 1;
}

#else

size_t mcpp_double_text_exact(char *out, double v)
{
    (void)out;
    (void)v;
    return 0;
}

int mcpp_decimal_to_double_exact(double *out, uint64_t m, int e10)
{
    (void)out;
    (void)m;
    (void)e10;
    return 0;
}

#endif
