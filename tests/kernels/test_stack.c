/*
 * test_stack.c — the hybrid stack: every GEMM path and every MoE lane gives
 * the logits of the all-reference forward; per-family time is recorded for
 * the families present; memory is tracked and fully given back; bad
 * configurations are refused with the field named.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../test_util.h"
#include "kernels_test_util.h"
#include "mcpp_kernels/stack.h"
#include "mcpp_receipts.h"

static mcpp_kernel_stack_config small_config(const char *pattern)
{
    mcpp_kernel_stack_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.pattern, sizeof c.pattern, "%s", pattern);
    c.depth = strlen(pattern);
    c.d_model = 32;
    c.heads = 4;
    c.state = 8;
    c.vocab = 64;
    c.seq_len = 24;
    c.batch = 2;
    c.seed = 5;
    c.moe.experts = 4;
    c.moe.top_k = 2;
    c.moe.d_ff = 48;
    c.moe.capacity_factor = 1.0;
    c.moe.overflow = MCPP_KERNEL_OVERFLOW_DROP;
    c.moe.score = MCPP_KERNEL_SCORE_SOFTMAX;
    c.moe.align_rows = 1;
    c.moe.block_rows = 8;
    return c;
}

static void fill_tokens(int32_t *t, size_t n, size_t vocab)
{
    ktest_rng r = {99};
    for (size_t i = 0; i < n; i++) t[i] = (int32_t)(ktest_uniform(&r) * (double)vocab);
}

TEST(every_gemm_path_and_lane_matches_the_reference_forward)
{
    mcpp_kernel_stack_config c = small_config("AMER");
    mcpp_kernel_kmem mem = {0};
    mcpp_kernel_stack *s = NULL;
    CHECK_INT_EQ(mcpp_kernel_stack_new(&s, &c, &mem), 0);
    if (!s) return;
    size_t N = c.batch * c.seq_len, L = N * c.vocab;
    int32_t tokens[48];
    fill_tokens(tokens, N, c.vocab);
    float *ref = malloc(L * sizeof(float));
    mcpp_kernel_stack_exec rexec = {MCPP_KERNEL_GEMM_REFERENCE, MCPP_KERNEL_MOE_PADDED, 1};
    CHECK_INT_EQ(mcpp_kernel_stack_forward(s, tokens, &rexec, NULL), 0);
    memcpy(ref, mcpp_kernel_stack_logits(s), L * sizeof(float));
    int nonfinite = 0;
    for (size_t i = 0; i < L; i++) nonfinite += !isfinite(ref[i]);
    CHECK_INT_EQ(nonfinite, 0);
    for (int g = 0; g < 3; g++)
        for (int lane = 0; lane < 3; lane++) {
            mcpp_kernel_stack_exec exec = {(mcpp_kernel_gemm_impl)g, (mcpp_kernel_moe_lane)lane, 0};
            mcpp_kernel_stack_stats st;
            memset(&st, 0, sizeof st);
            CHECK_INT_EQ(mcpp_kernel_stack_forward(s, tokens, &exec, &st), 0);
            double err = ktest_rel_err_f(mcpp_kernel_stack_logits(s), ref, L);
            if (!(err < 1e-4)) fprintf(stderr, "gemm %d lane %d: rel err %g\n", g, lane, err);
            CHECK(err < 1e-4);
            CHECK(st.family_s[0] > 0 && st.family_s[1] > 0 && st.family_s[2] > 0 && st.family_s[3] > 0);
            CHECK(st.moe.computed_rows >= st.moe.useful_rows);
            CHECK_INT_EQ(st.imbalance_count, 1);
        }
    CHECK(mem.current_bytes > 0);
    mcpp_kernel_stack_free(s);
    CHECK_INT_EQ(mem.current_bytes, 0);
    CHECK(mem.peak_bytes > 0);
    free(ref);
}

TEST(families_absent_from_the_pattern_get_no_time)
{
    mcpp_kernel_stack_config c = small_config("A");
    c.depth = 3;
    mcpp_kernel_kmem mem = {0};
    mcpp_kernel_stack *s = NULL;
    CHECK_INT_EQ(mcpp_kernel_stack_new(&s, &c, &mem), 0);
    if (!s) return;
    int32_t tokens[48];
    fill_tokens(tokens, 48, c.vocab);
    mcpp_kernel_stack_exec exec = {MCPP_KERNEL_GEMM_BLAS, MCPP_KERNEL_MOE_JAGGED, 0};
    mcpp_kernel_stack_stats st;
    memset(&st, 0, sizeof st);
    CHECK_INT_EQ(mcpp_kernel_stack_forward(s, tokens, &exec, &st), 0);
    CHECK(st.family_s[0] > 0);
    CHECK(st.family_s[1] == 0 && st.family_s[2] == 0 && st.family_s[3] == 0);
    CHECK(mcpp_kernel_stack_first_plan(s) == NULL);
    CHECK_INT_EQ(mcpp_kernel_stack_params_active(s), mcpp_kernel_stack_params_total(s));
    mcpp_kernel_stack_free(s);
}

TEST(moe_params_active_counts_only_top_k_experts)
{
    mcpp_kernel_stack_config c = small_config("E");
    mcpp_kernel_kmem mem = {0};
    mcpp_kernel_stack *s = NULL;
    CHECK_INT_EQ(mcpp_kernel_stack_new(&s, &c, &mem), 0);
    if (!s) return;
    size_t expert = 2 * c.d_model * c.moe.d_ff;
    CHECK_INT_EQ(mcpp_kernel_stack_params_total(s) - mcpp_kernel_stack_params_active(s),
                 (c.moe.experts - c.moe.top_k) * expert);
    mcpp_kernel_stack_free(s);
}

TEST(bad_configurations_are_refused_with_the_field_named)
{
    mcpp_kernel_stack_config c = small_config("AXM");
    CHECK_INT_EQ(mcpp_kernel_stack_config_check(&c), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->field, "pattern");
    c = small_config("A");
    c.heads = 5;
    CHECK_INT_EQ(mcpp_kernel_stack_config_check(&c), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->field, "heads");
    c = small_config("E");
    c.moe.top_k = 9;
    CHECK_INT_EQ(mcpp_kernel_stack_config_check(&c), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->field, "top-k");
}

TEST(tokens_outside_the_vocab_are_refused)
{
    mcpp_kernel_stack_config c = small_config("A");
    mcpp_kernel_kmem mem = {0};
    mcpp_kernel_stack *s = NULL;
    CHECK_INT_EQ(mcpp_kernel_stack_new(&s, &c, &mem), 0);
    if (!s) return;
    int32_t tokens[48];
    fill_tokens(tokens, 48, c.vocab);
    tokens[7] = (int32_t)c.vocab;
    mcpp_kernel_stack_exec exec = {MCPP_KERNEL_GEMM_BLAS, MCPP_KERNEL_MOE_JAGGED, 0};
    CHECK_INT_EQ(mcpp_kernel_stack_forward(s, tokens, &exec, NULL), MCPP_EINVALID);
    mcpp_kernel_stack_free(s);
}

int main(void)
{
    RUN(every_gemm_path_and_lane_matches_the_reference_forward);
    RUN(families_absent_from_the_pattern_get_no_time);
    RUN(moe_params_active_counts_only_top_k_experts);
    RUN(bad_configurations_are_refused_with_the_field_named);
    RUN(tokens_outside_the_vocab_are_refused);
    TEST_MAIN_END();
}
