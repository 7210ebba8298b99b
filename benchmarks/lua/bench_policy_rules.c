/*
 * bench_policy_rules.c — what a custom Lua rule costs per comparison.
 *
 * Compares the same receipt pairs under default.lua, and under default.lua
 * plus one custom Lua rule (reading a nested field of both receipts), in the
 * same run, and prints comparisons per second and the ratio to the baseline.
 * Full comparisons (mcpp_compare: rows, reasons, metric, gate) and
 * verdict-only comparisons (mcpp_compare_verdict) are both measured.
 *
 * usage: bench_policy_rules POLICY_DIR EXAMPLES_RECEIPTS_DIR [ITERATIONS]
 * The numbers are printed, never asserted (tests must not time things).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/policy_lua.h"

static const char RULE_POLICY[] =
    "-- default.lua plus one custom rule, as a reviewer would add it\n"
    "return {\n"
    "  include = { 'default.lua' },\n"
    "  name = 'default_with_rule',\n"
    "  rules = {\n"
    "    { name = 'graph_breaks', fn = function(base, cand)\n"
    "        if cand.compile.graph_breaks ~= base.compile.graph_breaks then\n"
    "          return 'qualify', 'graph breaks differ'\n"
    "        end\n"
    "      end },\n"
    "  },\n"
    "}\n";

/* CPU time of this (single-threaded) process: on a shared machine wall time
 * measures the neighbours as much as the code. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Comparisons per second over `iterations` passes of the pairs. */
static double measure(const mcpp_policy *p, mcpp_receipt **r, size_t n, long iterations, int full,
                      long *count)
{
    long done = 0;
    double t0 = now_s();
    for (long it = 0; it < iterations; it++) {
        const mcpp_receipt *a = r[it % n], *b = r[(it / n) % n];
        if (full) {
            mcpp_comparison *c = NULL;
            if (mcpp_compare(&c, p, a, b) != MCPP_OK) {
                fprintf(stderr, "compare: %s\n", mcpp_error_last()->message);
                exit(1);
            }
            mcpp_comparison_free(c);
        } else {
            mcpp_verdict v;
            if (mcpp_compare_verdict(&v, p, a, b) != MCPP_OK) {
                fprintf(stderr, "compare: %s\n", mcpp_error_last()->message);
                exit(1);
            }
        }
        done++;
    }
    double dt = now_s() - t0;
    *count = done;
    return dt > 0 ? (double)done / dt : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s POLICY_DIR EXAMPLES_RECEIPTS_DIR [ITERATIONS]\n", argv[0]);
        return 2;
    }
    long iterations = argc > 3 ? atol(argv[3]) : 200000;
    static const char *const NAMES[] = {"nam56r_padded", "nam56r_padded_run2", "nam56r_padded_run3",
                                        "nam56r_cold_boot", "nam56r_warm_cache", "nam56r_jagged_graph_breaks"};
    enum { N = sizeof NAMES / sizeof NAMES[0] };
    mcpp_receipt *r[N];
    char path[1024];
    for (size_t i = 0; i < N; i++) {
        snprintf(path, sizeof path, "%s/%s.json", argv[2], NAMES[i]);
        if (mcpp_receipt_load_file(&r[i], NULL, path, NULL) != MCPP_OK) {
            fprintf(stderr, "%s\n", mcpp_error_last()->message);
            return 1;
        }
    }
    mcpp_policy *plain = NULL, *ruled = NULL;
    /* A benchmark makes millions of rule calls: no total time bound (the
     * per-call bounds stay). */
    mcpp_lua_limits limits;
    mcpp_lua_limits_default(&limits);
    limits.max_total_ms = -1;
    snprintf(path, sizeof path, "%s/default.lua", argv[1]);
    if (mcpp_policy_load_lua_file(&plain, path, &limits) != MCPP_OK) {
        fprintf(stderr, "%s\n", mcpp_error_last()->message);
        return 1;
    }
    snprintf(path, sizeof path, "%s/bench_rule.lua", argv[1]); /* a name for the include */
    if (mcpp_policy_load_lua_buffer(&ruled, RULE_POLICY, sizeof RULE_POLICY - 1, path, &limits) != MCPP_OK) {
        fprintf(stderr, "%s\n", mcpp_error_last()->message);
        return 1;
    }
    long n1, n2, n3, n4;
    /* Warm up caches and the Lua state once before measuring. */
    measure(plain, r, N, iterations / 10 + 1, 1, &n1);
    measure(ruled, r, N, iterations / 10 + 1, 1, &n1);
    double full_plain = measure(plain, r, N, iterations, 1, &n1);
    double full_rule = measure(ruled, r, N, iterations, 1, &n2);
    double verdict_plain = measure(plain, r, N, iterations, 0, &n3);
    double verdict_rule = measure(ruled, r, N, iterations, 0, &n4);

    printf("comparisons per CPU-second, %ld comparisons each, %d receipt pairs cycled\n\n", iterations,
           N * N);
    printf("| policy                       | call                 | comparisons/s | vs no rule |\n");
    printf("|------------------------------|----------------------|--------------:|-----------:|\n");
    printf("| default.lua                  | mcpp_compare         | %13.0f | %10.2f |\n", full_plain, 1.0);
    printf("| default.lua + 1 Lua rule     | mcpp_compare         | %13.0f | %10.2f |\n", full_rule,
           full_plain > 0 ? full_rule / full_plain : 0);
    printf("| default.lua                  | mcpp_compare_verdict | %13.0f | %10.2f |\n", verdict_plain, 1.0);
    printf("| default.lua + 1 Lua rule     | mcpp_compare_verdict | %13.0f | %10.2f |\n", verdict_rule,
           verdict_plain > 0 ? verdict_rule / verdict_plain : 0);
    printf("\nper comparison, the Lua rule adds %.2f us (full) / %.2f us (verdict only)\n",
           full_rule > 0 && full_plain > 0 ? 1e6 / full_rule - 1e6 / full_plain : 0,
           verdict_rule > 0 && verdict_plain > 0 ? 1e6 / verdict_rule - 1e6 / verdict_plain : 0);
    mcpp_policy_free(plain);
    mcpp_policy_free(ruled);
    for (size_t i = 0; i < N; i++)
        mcpp_receipt_free(r[i]);
    return 0;
}
