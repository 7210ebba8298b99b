/*
 * test_cuda.c — the CUDA kernels against the C reference (bf16 storage, so a
 * bf16-sized tolerance). Without CUDA in the build, or without a device, it
 * prints why and exits 77, which ctest reports as skipped.
 */
#include <stdio.h>
#include <string.h>

#include "../test_util.h"
#include "kernels_test_util.h"
#include "mcpp_kernels/device.h"
#include "mcpp_kernels/reference.h"
#ifdef MCPP_HAVE_CUDA
#include "mcpp_kernels/cuda_check.h"
#include "mcpp_kernels/moe.h"

#define BF16_TOL 3e-2

TEST(cuda_rmsnorm_matches_the_reference)
{
    ktest_rng r = {41};
    size_t rows = 33, d = 200;
    float *x = ktest_random(&r, rows * d, 2.0f), *w = ktest_random(&r, d, 1.0f);
    float *got = malloc(rows * d * sizeof(float)), *want = malloc(rows * d * sizeof(float));
    mcpp_kernel_ref_rmsnorm(want, x, w, rows, d, 1e-5f);
    CHECK_INT_EQ(mcpp_kernel_cuda_check_rmsnorm(got, x, w, rows, d), 0);
    CHECK(ktest_rel_err_f(got, want, rows * d) < BF16_TOL);
    free(x); free(w); free(got); free(want);
}

TEST(cuda_attention_matches_the_reference)
{
    ktest_rng r = {42};
    size_t B = 2, T = 77, H = 3, hd = 64, W = H * hd;
    float *qkv = ktest_random(&r, B * T * 3 * W, 1.0f);
    float *got = malloc(B * T * W * sizeof(float)), *want = malloc(B * T * W * sizeof(float));
    mcpp_kernel_ref_attention(want, qkv, B, T, H, hd);
    CHECK_INT_EQ(mcpp_kernel_cuda_check_attention(got, qkv, B, T, H, hd), 0);
    CHECK(ktest_rel_err_f(got, want, B * T * W) < BF16_TOL);
    free(qkv); free(got); free(want);
}

TEST(cuda_selective_scan_matches_the_reference)
{
    ktest_rng r = {43};
    size_t B = 2, T = 50, D = 130, S = 16, row = 2 * D + 2 * S;
    float *proj = ktest_random(&r, B * T * row, 1.0f), *a = ktest_random(&r, D * S, 0.5f);
    float *dtb = ktest_random(&r, D, 0.5f), *ds = ktest_random(&r, D, 1.0f);
    float *got = malloc(B * T * D * sizeof(float)), *want = malloc(B * T * D * sizeof(float));
    mcpp_kernel_ref_selective_scan(want, proj, a, dtb, ds, B, T, D, S);
    CHECK_INT_EQ(mcpp_kernel_cuda_check_scan(got, proj, a, dtb, ds, B, T, D, S), 0);
    CHECK(ktest_rel_err_f(got, want, B * T * D) < BF16_TOL);
    free(proj); free(a); free(dtb); free(ds); free(got); free(want);
}

TEST(cuda_recurrence_matches_the_reference)
{
    ktest_rng r = {44};
    size_t B = 3, T = 40, D = 100;
    float *proj = ktest_random(&r, B * T * 3 * D, 2.0f);
    float *got = malloc(B * T * D * sizeof(float)), *want = malloc(B * T * D * sizeof(float));
    mcpp_kernel_ref_gated_recurrence(want, proj, B, T, D);
    CHECK_INT_EQ(mcpp_kernel_cuda_check_recurrence(got, proj, B, T, D), 0);
    CHECK(ktest_rel_err_f(got, want, B * T * D) < BF16_TOL);
    free(proj); free(got); free(want);
}

static void moe_lane_case(mcpp_kernel_moe_lane lane, mcpp_kernel_moe_overflow overflow)
{
    ktest_rng r = {45 + (uint64_t)lane};
    size_t T = 300, E = 8, K = 2, D = 96, F = 160;
    mcpp_kernel_moe_config cfg = {E, K, D, F, 1.0, MCPP_KERNEL_SCORE_SOFTMAX, overflow, 1, 32};
    float *x = ktest_random(&r, T * D, 1.0f), *logits = ktest_random(&r, T * E, 3.0f);
    float *w1 = ktest_random(&r, E * D * F, 0.1f), *w2 = ktest_random(&r, E * F * D, 0.1f);
    float *got = malloc(T * D * sizeof(float)), *want = malloc(T * D * sizeof(float));
    float *hidden = malloc(F * sizeof(float));
    mcpp_kernel_kmem mem = {0};
    mcpp_kernel_moe_plan plan;
    CHECK_INT_EQ(mcpp_kernel_moe_plan_init(&plan, &cfg, T, &mem), 0);
    mcpp_kernel_moe_route(&plan, logits, &cfg);
    mcpp_kernel_ref_moe(want, x, w1, w2, &plan, &cfg, hidden);
    mcpp_kernel_moe_stats st = {0, 0, 0, 0, 0.0, 0.0};
    CHECK_INT_EQ(mcpp_kernel_cuda_check_moe(got, &st, x, logits, w1, w2, &cfg, lane, T), 0);
    double err = ktest_rel_err_f(got, want, T * D);
    if (!(err < BF16_TOL)) fprintf(stderr, "cuda moe %s: rel err %g\n", mcpp_kernel_moe_lane_name(lane), err);
    CHECK(err < BF16_TOL);
    CHECK_INT_EQ(st.dropped, plan.dropped);
    CHECK_INT_EQ(st.useful_rows, T * K - plan.dropped);
    CHECK(st.computed_rows >= st.useful_rows);
    mcpp_kernel_moe_plan_release(&plan, &mem);
    free(x); free(logits); free(w1); free(w2); free(got); free(want); free(hidden);
}

TEST(cuda_moe_lanes_match_the_reference_with_drops_and_without)
{
    for (int lane = 0; lane < 3; lane++) {
        moe_lane_case((mcpp_kernel_moe_lane)lane, MCPP_KERNEL_OVERFLOW_DROP);
        moe_lane_case((mcpp_kernel_moe_lane)lane, MCPP_KERNEL_OVERFLOW_NO_DROP);
    }
}
#endif

int main(void)
{
    (void)test_failures_current; /* unused in builds without CUDA */
    mcpp_kernel_device_info dev;
    mcpp_kernel_device_query(&dev);
    if (!dev.compiled_with_cuda || dev.device_count <= 0) {
        printf("SKIP: CUDA kernel tests need a GPU: %s\n", dev.reason);
        return 77;
    }
#ifdef MCPP_HAVE_CUDA
    printf("device: %s\n", dev.name);
    RUN(cuda_rmsnorm_matches_the_reference);
    RUN(cuda_attention_matches_the_reference);
    RUN(cuda_selective_scan_matches_the_reference);
    RUN(cuda_recurrence_matches_the_reference);
    RUN(cuda_moe_lanes_match_the_reference_with_drops_and_without);
#endif
    TEST_MAIN_END();
}
