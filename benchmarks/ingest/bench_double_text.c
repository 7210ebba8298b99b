/*
 * bench_double_text.c — how fast a receipt's doubles become text: every
 * canonical JSON (store bodies, ids, reports) writes them with
 * mcpp_format_double, and a store add of 10^5 varied receipts writes 3.7
 * million of them (a fifth of its fill's CPU, perf, 2026-11-30).
 *
 * Four kinds of values, a quarter of N each, as the varied store corpus has
 * them: times near 1e-7 s and rates near 8e6 items/s (17 significant
 * digits), fractions near 0.01 (17 digits), and short decimals (x/4). Each
 * kind is timed, best of 5 in thread CPU time, next to the definition the
 * text follows, computed with printf and strtod in the same run (the first
 * of %.15g, %.16g, %.17g that reads back); the texts are checked equal.
 *
 *   bench_double_text [--count N]   (default 1048576)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/strbuf.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The definition: integral values as integers, else the first of %.15g,
 * %.16g, %.17g that strtod reads back. */
static size_t by_printf(char *out, size_t cap, double v)
{
    if (v == (double)(int64_t)v)
        return (size_t)snprintf(out, cap, "%.0f", v);
    static const char *const formats[] = {"%.15g", "%.16g", "%.17g"};
    int n = 0;
    for (int i = 0; i < 3; i++) {
        n = snprintf(out, cap, formats[i], v);
        if (strtod(out, NULL) == v)
            break;
    }
    return (size_t)n;
}

static size_t by_library(char *out, size_t cap, double v) { return mcpp_format_double(out, cap, v, 0); }

/* ns a value, best of 5, over the values of one kind. */
static double time_kind(size_t (*write)(char *, size_t, double), const double *v, size_t n, size_t *sink)
{
    double best = 1e30;
    char text[64];
    for (int round = 0; round < 5; round++) {
        double t0 = cpu_s();
        for (size_t i = 0; i < n; i++)
            *sink += write(text, sizeof text, v[i]);
        double ns = (cpu_s() - t0) * 1e9 / (double)n;
        if (ns < best)
            best = ns;
    }
    return best;
}

int main(int argc, char **argv)
{
    size_t count = 1u << 20;
    if (argc == 3 && strcmp(argv[1], "--count") == 0)
        count = strtoul(argv[2], NULL, 10);
    else if (argc != 1) {
        fprintf(stderr, "usage: bench_double_text [--count N]\n");
        return 2;
    }
    static const char *const kinds[] = {"times near 1e-7 (17 digits)", "rates near 8e6 (17 digits)",
                                        "fractions near 0.01 (17 digits)", "short decimals (x/4)"};
    size_t per_kind = count / 4 ? count / 4 : 1;
    double *v = malloc(per_kind * sizeof *v);
    if (!v)
        return 1;
    size_t sink = 0;
    printf("| values (%zu each) | mcpp_format_double ns | printf + strtod ns | ratio |\n", per_kind);
    printf("|---|---:|---:|---:|\n");
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < per_kind; i++) {
            double u = (double)(rnd() >> 11) / 9007199254740992.0;
            v[i] = k == 0   ? 1.2e-7 * (1 + u)
                   : k == 1 ? 8e6 * (1 + u)
                   : k == 2 ? 0.0123 * (1 + u)
                            : (double)(rnd() % 10000) / 4;
        }
        for (size_t i = 0; i < per_kind; i++) { /* the same text, or the figures mean nothing */
            char a[64], b[64];
            by_library(a, sizeof a, v[i]);
            by_printf(b, sizeof b, v[i]);
            if (strcmp(a, b) != 0) {
                fprintf(stderr, "bench_double_text: %a: %s, printf %s\n", v[i], a, b);
                free(v);
                return 1;
            }
        }
        double ours = time_kind(by_library, v, per_kind, &sink), theirs = time_kind(by_printf, v, per_kind, &sink);
        printf("| %s | %.1f | %.1f | %.1fx |\n", kinds[k], ours, theirs, theirs / ours);
    }
    free(v);
    return sink == 0; /* keeps the writes */
}
