/*
 * test_moe.c — the MoE router and the three execution lanes: routing against a
 * double-precision computation, exact capacity/drop accounting, and the
 * padded, jagged and block-sparse lanes agreeing with each other and with a
 * double-precision expert computation.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../test_util.h"
#include "kernels_test_util.h"
#include "mcpp_kernels/moe.h"

static mcpp_kernel_moe_config moe_cfg(size_t E, size_t K, size_t D, size_t F, double cf,
                               mcpp_kernel_moe_overflow ov, mcpp_kernel_moe_score score)
{
    mcpp_kernel_moe_config c = {E, K, D, F, cf, score, ov, 1, 4};
    return c;
}

TEST(softmax_router_picks_the_top_k_with_double_precision_weights)
{
    ktest_rng r = {11};
    size_t T = 40, E = 8, K = 2;
    mcpp_kernel_kmem mem = {0};
    mcpp_kernel_moe_config cfg = moe_cfg(E, K, 4, 4, 100.0, MCPP_KERNEL_OVERFLOW_DROP, MCPP_KERNEL_SCORE_SOFTMAX);
    float *logits = ktest_random(&r, T * E, 3.0f);
    mcpp_kernel_moe_plan plan;
    CHECK_INT_EQ(mcpp_kernel_moe_plan_init(&plan, &cfg, T, &mem), 0);
    mcpp_kernel_moe_route(&plan, logits, &cfg);
    int wrong = 0;
    double maxerr = 0;
    for (size_t t = 0; t < T; t++) {
        const float *l = logits + t * E;
        double sum = 0;
        for (size_t e = 0; e < E; e++) sum += exp((double)l[e]);
        for (size_t k = 0; k < K; k++) {
            int32_t e = plan.expert[t * K + k];
            size_t better = 0; /* experts with a larger logit */
            for (size_t j = 0; j < E; j++) better += l[j] > l[e];
            wrong += better != k;
            double w = exp((double)l[e]) / sum;
            maxerr = fmax(maxerr, fabs(w - plan.weight[t * K + k]) / w);
        }
    }
    CHECK_INT_EQ(wrong, 0);
    CHECK(maxerr < 1e-5);
    CHECK_INT_EQ(plan.dropped, 0);
    mcpp_kernel_moe_plan_release(&plan, &mem);
    CHECK_INT_EQ(mem.current_bytes, 0);
    free(logits);
}

TEST(sigmoid_router_weights_are_normalised_over_the_chosen_k)
{
    ktest_rng r = {12};
    size_t T = 16, E = 6, K = 3;
    mcpp_kernel_kmem mem = {0};
    mcpp_kernel_moe_config cfg = moe_cfg(E, K, 4, 4, 100.0, MCPP_KERNEL_OVERFLOW_DROP, MCPP_KERNEL_SCORE_SIGMOID);
    float *logits = ktest_random(&r, T * E, 2.0f);
    mcpp_kernel_moe_plan plan;
    CHECK_INT_EQ(mcpp_kernel_moe_plan_init(&plan, &cfg, T, &mem), 0);
    mcpp_kernel_moe_route(&plan, logits, &cfg);
    double maxerr = 0;
    for (size_t t = 0; t < T; t++) {
        double s[3], sum = 0;
        for (size_t k = 0; k < K; k++) {
            s[k] = ktest_sigmoid(logits[t * E + plan.expert[t * K + k]]);
            sum += s[k];
        }
        for (size_t k = 0; k < K; k++) maxerr = fmax(maxerr, fabs(s[k] / sum - plan.weight[t * K + k]));
    }
    CHECK(maxerr < 1e-6);
    mcpp_kernel_moe_plan_release(&plan, &mem);
    free(logits);
}

/* 10 tokens, 2 experts, top-1: tokens 0..7 prefer expert 0, tokens 8, 9 expert 1. */
static void skewed_logits(float *logits)
{
    for (int t = 0; t < 10; t++) {
        logits[t * 2 + 0] = t < 8 ? 1.0f + 0.1f * (float)t : -1.0f;
        logits[t * 2 + 1] = t < 8 ? -1.0f : 2.0f;
    }
}

TEST(capacity_and_drop_accounting_is_exact_in_token_order)
{
    mcpp_kernel_kmem mem = {0};
    float logits[20];
    skewed_logits(logits);
    mcpp_kernel_moe_config cfg = moe_cfg(2, 1, 4, 4, 1.0, MCPP_KERNEL_OVERFLOW_DROP, MCPP_KERNEL_SCORE_SOFTMAX);
    mcpp_kernel_moe_plan plan;
    CHECK_INT_EQ(mcpp_kernel_moe_plan_init(&plan, &cfg, 10, &mem), 0);
    mcpp_kernel_moe_route(&plan, logits, &cfg);
    CHECK_INT_EQ(plan.capacity, 5); /* ceil(1.0 * 10 * 1 / 2) */
    CHECK_INT_EQ(plan.demand[0], 8);
    CHECK_INT_EQ(plan.demand[1], 2);
    CHECK_INT_EQ(plan.kept[0], 5);
    CHECK_INT_EQ(plan.kept[1], 2);
    CHECK_INT_EQ(plan.dropped, 3);
    CHECK_INT_EQ(plan.dropped_tokens, 3);
    for (int t = 0; t < 10; t++) {
        int expect = t < 5 ? t : t < 8 ? -1 : t - 8;
        CHECK_INT_EQ(plan.rank[t], expect);
    }
    /* Rows per lane: padded pads both experts to C; jagged keeps the ragged
     * counts; block-sparse rounds each to its 4-row blocks. */
    size_t padded = 0, jagged = 0, blocks = 0;
    for (size_t e = 0; e < 2; e++) {
        padded += mcpp_kernel_moe_lane_rows(&plan, &cfg, MCPP_KERNEL_MOE_PADDED, e);
        jagged += mcpp_kernel_moe_lane_rows(&plan, &cfg, MCPP_KERNEL_MOE_JAGGED, e);
        blocks += mcpp_kernel_moe_lane_rows(&plan, &cfg, MCPP_KERNEL_MOE_BLOCK_SPARSE, e);
    }
    CHECK_INT_EQ(padded, 10);
    CHECK_INT_EQ(jagged, 7);
    CHECK_INT_EQ(blocks, 12);
    CHECK(mcpp_kernel_moe_imbalance(&plan) > 1.59 && mcpp_kernel_moe_imbalance(&plan) < 1.61);
    mcpp_kernel_moe_plan_release(&plan, &mem);
}

TEST(pad_and_no_drop_overflow_change_rows_exactly)
{
    mcpp_kernel_kmem mem = {0};
    float logits[20];
    skewed_logits(logits);
    mcpp_kernel_moe_config pad = moe_cfg(2, 1, 4, 4, 1.0, MCPP_KERNEL_OVERFLOW_PAD, MCPP_KERNEL_SCORE_SOFTMAX);
    mcpp_kernel_moe_config nodrop = moe_cfg(2, 1, 4, 4, 1.0, MCPP_KERNEL_OVERFLOW_NO_DROP, MCPP_KERNEL_SCORE_SOFTMAX);
    mcpp_kernel_moe_plan plan;
    CHECK_INT_EQ(mcpp_kernel_moe_plan_init(&plan, &pad, 10, &mem), 0);
    mcpp_kernel_moe_route(&plan, logits, &pad);
    CHECK_INT_EQ(plan.dropped, 3);
    for (int lane = 0; lane < 3; lane++)
        CHECK_INT_EQ(mcpp_kernel_moe_lane_rows(&plan, &pad, (mcpp_kernel_moe_lane)lane, 0) +
                         mcpp_kernel_moe_lane_rows(&plan, &pad, (mcpp_kernel_moe_lane)lane, 1),
                     10);
    mcpp_kernel_moe_route(&plan, logits, &nodrop);
    CHECK_INT_EQ(plan.dropped, 0);
    CHECK_INT_EQ(plan.kept[0], 8);
    CHECK_INT_EQ(mcpp_kernel_moe_lane_rows(&plan, &nodrop, MCPP_KERNEL_MOE_PADDED, 1), 8); /* pads to the max load */
    CHECK_INT_EQ(mcpp_kernel_moe_lane_rows(&plan, &nodrop, MCPP_KERNEL_MOE_JAGGED, 1), 2);
    mcpp_kernel_moe_plan_release(&plan, &mem);
}

/* out[t] = sum_k w * W2 silu(W1 x) in double, over kept assignments. */
static void moe_double(double *want, const float *x, const float *w1, const float *w2,
                       const mcpp_kernel_moe_plan *plan, size_t D, size_t F)
{
    double *h = malloc(F * sizeof(double));
    size_t K = plan->top_k;
    memset(want, 0, plan->tokens * D * sizeof(double));
    for (size_t t = 0; t < plan->tokens; t++)
        for (size_t k = 0; k < K; k++) {
            if (plan->rank[t * K + k] < 0) continue;
            size_t e = (size_t)plan->expert[t * K + k];
            for (size_t f = 0; f < F; f++) {
                double acc = 0;
                for (size_t j = 0; j < D; j++) acc += (double)x[t * D + j] * w1[e * D * F + j * F + f];
                h[f] = ktest_silu(acc);
            }
            for (size_t j = 0; j < D; j++) {
                double acc = 0;
                for (size_t f = 0; f < F; f++) acc += h[f] * w2[e * F * D + f * D + j];
                want[t * D + j] += plan->weight[t * K + k] * acc;
            }
        }
    free(h);
}

static void lanes_case(mcpp_kernel_moe_overflow overflow, double cf, int expect_drops)
{
    ktest_rng r = {21 + (uint64_t)overflow};
    size_t T = 48, E = 4, K = 2, D = 16, F = 24;
    mcpp_kernel_kmem mem = {0};
    mcpp_kernel_moe_config cfg = moe_cfg(E, K, D, F, cf, overflow, MCPP_KERNEL_SCORE_SOFTMAX);
    float *logits = ktest_random(&r, T * E, 2.0f), *x = ktest_random(&r, T * D, 1.0f);
    float *w1 = ktest_random(&r, E * D * F, 0.3f), *w2 = ktest_random(&r, E * F * D, 0.3f);
    float *out[3], *ref = ktest_random(&r, T * D, 1.0f), *hidden = malloc(F * sizeof(float));
    double *want = malloc(T * D * sizeof(double));
    mcpp_kernel_moe_plan plan;
    CHECK_INT_EQ(mcpp_kernel_moe_plan_init(&plan, &cfg, T, &mem), 0);
    mcpp_kernel_moe_route(&plan, logits, &cfg);
    CHECK(expect_drops ? plan.dropped > 0 : plan.dropped == 0);
    moe_double(want, x, w1, w2, &plan, D, F);
    mcpp_kernel_ref_moe(ref, x, w1, w2, &plan, &cfg, hidden);
    CHECK(ktest_rel_err(ref, want, T * D) < 2e-5);
    for (int gemm = 0; gemm < 3; gemm++)
        for (int lane = 0; lane < 3; lane++) {
            mcpp_kernel_moe_stats st = {0};
            out[lane] = ktest_random(&r, T * D, 1.0f); /* garbage the lane must overwrite */
            CHECK_INT_EQ(mcpp_kernel_moe_forward(out[lane], x, w1, w2, &plan, &cfg, (mcpp_kernel_moe_lane)lane,
                                          (mcpp_kernel_gemm_impl)gemm, &mem, &st),
                         0);
            double err = ktest_rel_err(out[lane], want, T * D);
            if (!(err < 2e-5))
                fprintf(stderr, "lane %s gemm %s: rel err %g\n", mcpp_kernel_moe_lane_name((mcpp_kernel_moe_lane)lane),
                        mcpp_kernel_gemm_impl_name((mcpp_kernel_gemm_impl)gemm), err);
            CHECK(err < 2e-5);
            size_t rows = 0;
            for (size_t e = 0; e < E; e++) rows += mcpp_kernel_moe_lane_rows(&plan, &cfg, (mcpp_kernel_moe_lane)lane, e);
            CHECK_INT_EQ(st.computed_rows, rows);
            CHECK_INT_EQ(st.useful_rows, T * K - plan.dropped);
            CHECK(st.computed_rows >= st.useful_rows);
            if (lane > 0) CHECK(ktest_rel_err_f(out[lane], out[0], T * D) < 1e-5);
            if (lane > 0) free(out[lane]);
            if (lane == 2) free(out[0]);
        }
    mcpp_kernel_moe_plan_release(&plan, &mem);
    CHECK_INT_EQ(mem.current_bytes, 0);
    CHECK(mem.peak_bytes > 0);
    free(logits); free(x); free(w1); free(w2); free(ref); free(hidden); free(want);
}

TEST(three_lanes_agree_with_double_precision_when_nothing_is_dropped)
{
    lanes_case(MCPP_KERNEL_OVERFLOW_NO_DROP, 1.0, 0);
}

TEST(three_lanes_agree_with_double_precision_on_the_kept_tokens_when_dropping)
{
    lanes_case(MCPP_KERNEL_OVERFLOW_DROP, 0.5, 1);
}

TEST(a_token_with_every_assignment_dropped_gets_zero_output_in_every_lane)
{
    ktest_rng r = {31};
    mcpp_kernel_kmem mem = {0};
    float logits[20];
    skewed_logits(logits);
    size_t D = 4, F = 6;
    mcpp_kernel_moe_config cfg = moe_cfg(2, 1, D, F, 1.0, MCPP_KERNEL_OVERFLOW_DROP, MCPP_KERNEL_SCORE_SOFTMAX);
    float *x = ktest_random(&r, 10 * D, 1.0f), *w1 = ktest_random(&r, 2 * D * F, 1.0f);
    float *w2 = ktest_random(&r, 2 * F * D, 1.0f), *out = ktest_random(&r, 10 * D, 1.0f);
    mcpp_kernel_moe_plan plan;
    CHECK_INT_EQ(mcpp_kernel_moe_plan_init(&plan, &cfg, 10, &mem), 0);
    mcpp_kernel_moe_route(&plan, logits, &cfg);
    for (int lane = 0; lane < 3; lane++) {
        CHECK_INT_EQ(mcpp_kernel_moe_forward(out, x, w1, w2, &plan, &cfg, (mcpp_kernel_moe_lane)lane,
                                      MCPP_KERNEL_GEMM_BLAS, &mem, NULL),
                     0);
        int nonzero = 0;
        for (size_t t = 5; t < 8; t++)
            for (size_t j = 0; j < D; j++) nonzero += out[t * D + j] != 0.0f;
        CHECK_INT_EQ(nonzero, 0);
        CHECK(out[0] != 0.0f);
    }
    mcpp_kernel_moe_plan_release(&plan, &mem);
    free(x); free(w1); free(w2); free(out);
}

TEST(names_parse_back_and_unknown_names_are_refused)
{
    mcpp_kernel_moe_lane lane;
    mcpp_kernel_moe_overflow ov;
    mcpp_kernel_moe_score sc;
    CHECK_INT_EQ(mcpp_kernel_moe_lane_parse(&lane, "block_sparse"), 0);
    CHECK_INT_EQ(lane, MCPP_KERNEL_MOE_BLOCK_SPARSE);
    CHECK_INT_EQ(mcpp_kernel_moe_overflow_parse(&ov, "no_drop"), 0);
    CHECK_INT_EQ(ov, MCPP_KERNEL_OVERFLOW_NO_DROP);
    CHECK_INT_EQ(mcpp_kernel_moe_score_parse(&sc, "sigmoid"), 0);
    CHECK(mcpp_kernel_moe_lane_parse(&lane, "ragged") < 0);
    CHECK(mcpp_kernel_moe_overflow_parse(&ov, "Drop") < 0);
}

int main(void)
{
    RUN(softmax_router_picks_the_top_k_with_double_precision_weights);
    RUN(sigmoid_router_weights_are_normalised_over_the_chosen_k);
    RUN(capacity_and_drop_accounting_is_exact_in_token_order);
    RUN(pad_and_no_drop_overflow_change_rows_exactly);
    RUN(three_lanes_agree_with_double_precision_when_nothing_is_dropped);
    RUN(three_lanes_agree_with_double_precision_on_the_kept_tokens_when_dropping);
    RUN(a_token_with_every_assignment_dropped_gets_zero_output_in_every_lane);
    RUN(names_parse_back_and_unknown_names_are_refused);
    TEST_MAIN_END();
}
