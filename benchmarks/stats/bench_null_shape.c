/*
 * bench_null_shape.c — what reading a gate's p-values from the shape of
 * the lanes' history costs (lib/src/analysis/null_shape.c): the shape of
 * every pair of earlier runs of L lanes of 20 runs, for 1, 3 and 5 runs a
 * side, against sorting the same pairs in the same run (the least any
 * estimate of their distribution does). Then the medians' shape a gate
 * over a heavy-tailed machine builds (lib/src/analysis/median_shape.c), for
 * 3, 4 and 5 runs a side of a t with 2 and 4 df, against the pairs' shape
 * of 50 lanes at 5 runs a side. Prints tables of milliseconds a shape and
 * the ratios.
 *
 *   build/release/benchmarks/stats/bench_null_shape [--reps N]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/median_shape.h"
#include "analysis/null_shape.h"
#include "analysis/stats_internal.h"

enum { HISTORY = 20 };

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Every ordered pair of each lane's runs, (x_i - x_j) / sqrt 2: normal runs
 * at evenly spaced probabilities, each lane's in its own order. */
static double *lane_pairs(int lanes, size_t *n)
{
    double *pairs = malloc((size_t)lanes * HISTORY * (HISTORY - 1) * sizeof *pairs);
    if (!pairs) exit(4);
    *n = 0;
    for (int l = 0; l < lanes; l++) {
        double x[HISTORY];
        for (int j = 0; j < HISTORY; j++)
            x[j] = mcpp_stats_normal_quantile(((j * 7 + l) % HISTORY + 0.5) / HISTORY);
        for (int a = 0; a < HISTORY; a++)
            for (int c = 0; c < a; c++) {
                pairs[(*n)++] = (x[a] - x[c]) / sqrt(2.0);
                pairs[(*n)++] = (x[c] - x[a]) / sqrt(2.0);
            }
    }
    return pairs;
}

int main(int argc, char **argv)
{
    int reps = 200;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0) {
            reps = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_null_shape [--reps N]  (N > 0, default 200)\n");
            return 2;
        }
    }
    static const int LANES[] = {20, 50, 200};
    printf("%-6s %-8s %-10s %14s %14s %7s\n", "lanes", "pairs", "runs/side", "shape (ms)", "sort (ms)", "ratio");
    for (size_t k = 0; k < sizeof LANES / sizeof *LANES; k++) {
        size_t n;
        double *pairs = lane_pairs(LANES[k], &n), *copy = malloc(n * sizeof *copy);
        if (!copy) return 4;
        double t0 = now_ms();
        for (int r = 0; r < reps; r++) {
            memcpy(copy, pairs, n * sizeof *copy);
            mcpp_sort_doubles(copy, n);
        }
        double sort_ms = (now_ms() - t0) / reps;
        for (size_t per_side = 1; per_side <= 5; per_side += 2) {
            t0 = now_ms();
            for (int r = 0; r < reps; r++) {
                mcpp_null_shape s;
                if (mcpp_null_shape_build(&s, pairs, n, (size_t)LANES[k] * HISTORY, per_side) != 0) return 4;
                mcpp_null_shape_free(&s);
            }
            double shape_ms = (now_ms() - t0) / reps;
            printf("%-6d %-8zu %-10zu %14.3f %14.3f %6.2fx\n", LANES[k], n, per_side, shape_ms, sort_ms,
                   shape_ms / sort_ms);
        }
        free(pairs);
        free(copy);
    }
    size_t n;
    double *pairs = lane_pairs(50, &n), t0 = now_ms();
    for (int r = 0; r < reps; r++) {
        mcpp_null_shape s;
        if (mcpp_null_shape_build(&s, pairs, n, 50 * HISTORY, 5) != 0) return 4;
        mcpp_null_shape_free(&s);
    }
    double pairs_ms = (now_ms() - t0) / reps;
    free(pairs);
    int median_reps = reps / 10 > 0 ? reps / 10 : 1;
    printf("\n%-4s %-10s %14s %18s %7s\n", "df", "runs/side", "medians (ms)", "pairs, 50x5 (ms)", "ratio");
    for (double df = 2; df <= 4; df += 2)
        for (size_t per_side = 3; per_side <= 5; per_side++) {
            t0 = now_ms();
            for (int r = 0; r < median_reps; r++) {
                mcpp_median_shape s;
                if (mcpp_median_shape_build(&s, per_side, per_side, df, 0.002) != 0) return 4;
                mcpp_median_shape_free(&s);
            }
            double ms = (now_ms() - t0) / median_reps;
            printf("%-4.0f %-10zu %14.3f %18.3f %6.2fx\n", df, per_side, ms, pairs_ms, ms / pairs_ms);
        }
    return 0;
}
