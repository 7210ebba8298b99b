/*
 * bench_gpu.c — CUDA kernel benchmark: every CUDA kernel against the C
 * reference for correctness, then the MoE lanes against the dense bf16 cuBLAS
 * GEMM rate measured in the same run (the ceiling), at growing tokens per
 * expert. Without a device it says why and measures nothing.
 *
 *   mcpp-bench-kernels-gpu [--quick]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_kernels/cuda_check.h"
#include "mcpp_kernels/device.h"
#include "mcpp_kernels/moe.h"
#include "mcpp_kernels/reference.h"
#include "mcpp_receipts.h"

static float *rnd(size_t n, float scale, unsigned seed)
{
    float *p = malloc((n ? n : 1) * sizeof(float));
    unsigned s = seed * 2654435761u + 7u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        float v = (float)(s >> 8) / 8388608.0f - 1.0f;
        p[i] = scale * (v >= 0 ? v + 0.05f : v - 0.05f);
    }
    return p;
}

static double rel_err(const float *got, const float *want, size_t n)
{
    double md = 0, mr = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (!(d <= md)) md = isnan(d) ? INFINITY : d;
        if (fabs(want[i]) > mr) mr = fabs(want[i]);
    }
    return md / mr;
}

static void row(const char *name, int rc, double err)
{
    if (rc != 0) printf("| %s | error: %s | |\n", name, mcpp_error_last()->message);
    else printf("| %s | %.3g | %s |\n", name, err, err < 3e-2 ? "pass" : "FAIL");
}

static void correctness(void)
{
    printf("\n## CUDA kernels vs the C reference (bf16 storage, fp32 accumulate; tolerance 3e-2)\n\n");
    printf("| kernel | max rel err | verdict |\n|---|---:|---|\n");
    size_t B = 2, T = 256, H = 8, hd = 64, W = H * hd, N = B * T;
    float *qkv = rnd(N * 3 * W, 1.0f, 1), *got = malloc(N * W * 4), *want = malloc(N * W * 4);
    mcpp_kernel_ref_attention(want, qkv, B, T, H, hd);
    int rc = mcpp_kernel_cuda_check_attention(got, qkv, B, T, H, hd);
    row("attention (causal, 8 heads x 64)", rc, rel_err(got, want, N * W));
    size_t D = 256, S = 16;
    float *proj = rnd(N * (2 * D + 2 * S), 1.0f, 2), *al = rnd(D * S, 0.5f, 3), *db = rnd(D, 0.5f, 4), *ds = rnd(D, 1.0f, 5);
    float *y = malloc(N * D * 4), *yr = malloc(N * D * 4);
    mcpp_kernel_ref_selective_scan(yr, proj, al, db, ds, B, T, D, S);
    rc = mcpp_kernel_cuda_check_scan(y, proj, al, db, ds, B, T, D, S);
    row("selective scan (state 16)", rc, rel_err(y, yr, N * D));
    float *pr = rnd(N * 3 * D, 2.0f, 6);
    mcpp_kernel_ref_gated_recurrence(yr, pr, B, T, D);
    rc = mcpp_kernel_cuda_check_recurrence(y, pr, B, T, D);
    row("gated recurrence", rc, rel_err(y, yr, N * D));
    float *x = rnd(N * D, 2.0f, 7), *w = rnd(D, 1.0f, 8);
    mcpp_kernel_ref_rmsnorm(yr, x, w, N, D, 1e-5f);
    rc = mcpp_kernel_cuda_check_rmsnorm(y, x, w, N, D);
    row("rmsnorm", rc, rel_err(y, yr, N * D));
    for (int lane = 0; lane < 3; lane++) {
        size_t E = 8, K = 2, F = 512;
        mcpp_kernel_moe_config cfg = {E, K, D, F, 1.25, MCPP_KERNEL_SCORE_SOFTMAX, MCPP_KERNEL_OVERFLOW_DROP, 1, 32};
        float *lg = rnd(N * E, 3.0f, 9), *w1 = rnd(E * D * F, 0.06f, 10), *w2 = rnd(E * F * D, 0.05f, 11);
        float *hid = malloc(F * 4);
        mcpp_kernel_kmem mem = {0};
        mcpp_kernel_moe_plan plan;
        mcpp_kernel_moe_plan_init(&plan, &cfg, N, &mem);
        mcpp_kernel_moe_route(&plan, lg, &cfg);
        mcpp_kernel_ref_moe(yr, x, w1, w2, &plan, &cfg, hid);
        rc = mcpp_kernel_cuda_check_moe(y, NULL, x, lg, w1, w2, &cfg, (mcpp_kernel_moe_lane)lane, N);
        char name[64];
        snprintf(name, sizeof name, "moe %s (8 experts, top-2)", mcpp_kernel_moe_lane_name((mcpp_kernel_moe_lane)lane));
        row(name, rc, rel_err(y, yr, N * D));
        mcpp_kernel_moe_plan_release(&plan, &mem);
        free(lg); free(w1); free(w2); free(hid);
    }
    free(qkv); free(got); free(want); free(proj); free(al); free(db); free(ds); free(y); free(yr);
    free(pr); free(x); free(w);
}

static void speed(int quick)
{
    size_t D = 2048, F = 1024, E = 8, K = 2;
    static const size_t per_expert[] = {256, 512, 1024, 2048, 4096};
    size_t count = quick ? 2 : 5;
    printf("\n## MoE lanes vs the dense bf16 cuBLAS GEMM ceiling (same run)\n");
    printf("## d_model %zu, d_ff %zu, %zu experts, top-%zu, capacity 1.25, drop; TFLOP/s on useful rows\n\n", D, F, E, K);
    printf("| tokens/expert | dense GEMM TFLOP/s | padded | jagged | block_sparse | jagged / dense |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < count; i++) {
        size_t tokens = per_expert[i] * E / K;
        double dense_ms = 0;
        size_t m = tokens * K;
        if (mcpp_kernel_cuda_bench_gemm(&dense_ms, m, F, D, 20) != 0) {
            printf("| %zu | error: %s |\n", per_expert[i], mcpp_error_last()->message);
            continue;
        }
        double dense_tf = 2.0 * (double)m * (double)F * (double)D / (dense_ms * 1e-3) * 1e-12;
        double tf[3];
        for (int lane = 0; lane < 3; lane++) {
            mcpp_kernel_moe_config cfg = {E, K, D, F, 1.25, MCPP_KERNEL_SCORE_SOFTMAX, MCPP_KERNEL_OVERFLOW_DROP, 1, 32};
            double ms = 0, gflop = 0;
            tf[lane] = mcpp_kernel_cuda_bench_moe(&ms, &gflop, &cfg, (mcpp_kernel_moe_lane)lane, tokens, 10) == 0
                           ? gflop / (ms * 1e-3) * 1e-3
                           : NAN;
        }
        printf("| %zu | %.1f | %.1f | %.1f | %.1f | %.0f%% |\n", per_expert[i], dense_tf, tf[0], tf[1], tf[2],
               100.0 * tf[1] / dense_tf);
    }
    printf("\n(dense GEMM shape: [tokens*top_k, d_model] x [d_model, d_ff], one projection; the MoE\n"
           " figures include routing, sorting and both projections.)\n");
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    mcpp_kernel_device_info dev;
    mcpp_kernel_device_query(&dev);
    if (dev.device_count <= 0) {
        printf("# mcpp kernels GPU benchmark: no CUDA device (%s); nothing measured\n", dev.reason);
        return 0;
    }
    printf("# mcpp kernels GPU benchmark: %s (driver %s, runtime %s)\n", dev.name, dev.driver, dev.runtime);
    correctness();
    speed(quick);
    return 0;
}
