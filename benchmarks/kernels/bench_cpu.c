/*
 * bench_cpu.c — CPU kernel benchmarks, as tables with ratios measured in the
 * same run:
 *   1. GEMM: the naive reference and the blocked C GEMM against OpenBLAS sgemm.
 *   2. MoE: padded vs jagged vs block-sparse lanes across expert counts, top-k
 *      and capacity factors: rows computed, waste, drops, useful GFLOP/s.
 *
 *   mcpp-bench-kernels-cpu [--tiny] [--threads N] [--tokens N]
 *
 * --tiny shrinks every size so the run takes well under a second (the ctest
 * smoke run). Times are the best of several repetitions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcpp_kernels/gemm.h"
#include "mcpp_kernels/hostinfo.h"
#include "mcpp_kernels/moe.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *random_floats(size_t n, float scale, uint64_t seed)
{
    float *p = malloc((n ? n : 1) * sizeof(float));
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        p[i] = scale * (float)((double)(s >> 11) / 4503599627370496.0 - 1.0);
    }
    return p;
}

/* Best time of repetitions until min_reps ran and min_total_s elapsed. */
static double best_gemm_s(mcpp_kernel_gemm_impl impl, size_t m, size_t n, size_t k, const float *a,
                          const float *b, float *c, double min_total_s)
{
    double best = 1e30, total = 0;
    for (int r = 0; r < 3 || total < min_total_s; r++) {
        double t0 = now_s();
        mcpp_kernel_gemm(impl, m, n, k, a, k, b, n, 0, c, n, 0);
        double dt = now_s() - t0;
        total += dt;
        if (dt < best) best = dt;
        if (r > 1000) break;
    }
    return best;
}

static void gemm_table(int tiny)
{
    static const size_t full[][3] = {{128, 128, 128}, {256, 256, 256}, {512, 512, 512}, {256, 1024, 256}, {1024, 256, 512}};
    static const size_t small[][3] = {{16, 16, 16}, {33, 47, 29}};
    const size_t (*shapes)[3] = tiny ? small : full;
    size_t count = tiny ? 2 : 5;
    double min_total = tiny ? 0.0 : 0.2;
    printf("\n## CPU GEMM: C[m,n] = A[m,k] B[k,n], fp32, GFLOP/s (higher is better)\n\n");
    printf("| m x n x k | reference | blocked C | OpenBLAS sgemm | blocked / OpenBLAS | reference / OpenBLAS |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < count; i++) {
        size_t m = shapes[i][0], n = shapes[i][1], k = shapes[i][2];
        float *a = random_floats(m * k, 1.0f, 1), *b = random_floats(k * n, 1.0f, 2);
        float *c = malloc(m * n * sizeof(float));
        double flop = 2.0 * (double)m * (double)n * (double)k;
        double blas = flop / best_gemm_s(MCPP_KERNEL_GEMM_BLAS, m, n, k, a, b, c, min_total) * 1e-9;
        double blocked = flop / best_gemm_s(MCPP_KERNEL_GEMM_BLOCKED, m, n, k, a, b, c, min_total) * 1e-9;
        /* The naive loop is only run where it finishes quickly. */
        double ref = m * n * k <= 256u * 256u * 256u
                         ? flop / best_gemm_s(MCPP_KERNEL_GEMM_REFERENCE, m, n, k, a, b, c, 0.0) * 1e-9
                         : NAN;
        char refs[32] = "-", refr[32] = "-";
        if (!isnan(ref)) {
            snprintf(refs, sizeof refs, "%.2f", ref);
            snprintf(refr, sizeof refr, "%.3f", ref / blas);
        }
        printf("| %zu x %zu x %zu | %s | %.2f | %.2f | %.3f | %s |\n", m, n, k, refs, blocked, blas,
               blocked / blas, refr);
        free(a);
        free(b);
        free(c);
    }
}

static void moe_table(int tiny, size_t tokens)
{
    size_t D = tiny ? 16 : 128, F = tiny ? 32 : 256, T = tiny ? 64 : tokens;
    static const size_t experts_list[] = {8, 32};
    static const size_t topk_list[] = {1, 2};
    static const double cf_list[] = {1.0, 1.25, 2.0};
    printf("\n## MoE lanes on the CPU (OpenBLAS GEMMs): %zu tokens, d_model %zu, d_ff %zu, overflow drop,\n", T, D, F);
    printf("## random router logits; useful GFLOP/s counts only kept assignments (higher is better)\n\n");
    printf("| experts | top-k | capacity | lane | rows computed | useful rows | waste | dropped | ms | useful GFLOP/s | vs jagged |\n");
    printf("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t ei = 0; ei < 2; ei++)
        for (size_t ki = 0; ki < 2; ki++)
            for (size_t ci = 0; ci < 3; ci++) {
                size_t E = experts_list[ei], K = topk_list[ki];
                mcpp_kernel_moe_config cfg = {E, K, D, F, cf_list[ci], MCPP_KERNEL_SCORE_SOFTMAX, MCPP_KERNEL_OVERFLOW_DROP, 1, 32};
                mcpp_kernel_kmem mem = {0};
                mcpp_kernel_moe_plan plan;
                float *logits = random_floats(T * E, 2.0f, 10 + E + K);
                float *x = random_floats(T * D, 1.0f, 3), *out = malloc(T * D * sizeof(float));
                float *w1 = random_floats(E * D * F, 0.1f, 4), *w2 = random_floats(E * F * D, 0.1f, 5);
                if (mcpp_kernel_moe_plan_init(&plan, &cfg, T, &mem) != 0) exit(4);
                mcpp_kernel_moe_route(&plan, logits, &cfg);
                double lane_gflops[3], lane_ms[3];
                mcpp_kernel_moe_stats lane_stats[3];
                for (int lane = 0; lane < 3; lane++) {
                    double best = 1e30, total = 0;
                    for (int r = 0; r < 3 || (!tiny && total < 0.1); r++) {
                        mcpp_kernel_moe_stats st = {0, 0, 0, 0, 0.0, 0.0};
                        double t0 = now_s();
                        mcpp_kernel_moe_forward(out, x, w1, w2, &plan, &cfg, (mcpp_kernel_moe_lane)lane, MCPP_KERNEL_GEMM_BLAS, &mem, &st);
                        double dt = now_s() - t0;
                        total += dt;
                        if (dt < best) best = dt;
                        lane_stats[lane] = st;
                        if (r > 200) break;
                    }
                    lane_ms[lane] = 1e3 * best;
                    lane_gflops[lane] = lane_stats[lane].flops_useful / best * 1e-9;
                }
                for (int lane = 0; lane < 3; lane++) {
                    const mcpp_kernel_moe_stats *st = &lane_stats[lane];
                    double waste = 1.0 - (double)st->useful_rows / (double)st->computed_rows;
                    printf("| %zu | %zu | %.2f | %s | %zu | %zu | %.1f%% | %.1f%% | %.3f | %.2f | %.2fx |\n", E, K,
                           cf_list[ci], mcpp_kernel_moe_lane_name((mcpp_kernel_moe_lane)lane), st->computed_rows,
                           st->useful_rows, 100.0 * waste, 100.0 * (double)st->dropped / (double)(T * K),
                           lane_ms[lane], lane_gflops[lane], lane_gflops[lane] / lane_gflops[1]);
                }
                mcpp_kernel_moe_plan_release(&plan, &mem);
                free(logits); free(x); free(out); free(w1); free(w2);
            }
}

int main(int argc, char **argv)
{
    int tiny = 0, threads = 1;
    size_t tokens = 1024;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tiny") == 0) tiny = 1;
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--tokens") == 0 && i + 1 < argc) tokens = (size_t)strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: mcpp-bench-kernels-cpu [--tiny] [--threads N] [--tokens N]\n");
            return 3;
        }
    }
    if (threads < 1 || tokens < 16) {
        fprintf(stderr, "mcpp-bench-kernels-cpu: --threads >= 1 and --tokens >= 16\n");
        return 3;
    }
    mcpp_kernel_gemm_set_threads(threads);
    mcpp_kernel_host_info host;
    mcpp_kernel_host_query(&host);
    printf("# mcpp kernels CPU benchmark: %s, %d cores, OpenBLAS threads %d%s\n", host.cpu, host.cores,
           threads, tiny ? " (tiny smoke sizes)" : "");
    gemm_table(tiny);
    moe_table(tiny, tokens);
    return 0;
}
