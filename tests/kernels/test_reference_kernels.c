/*
 * test_reference_kernels.c — every fp32 reference kernel (and every CPU GEMM
 * path) against a straightforward double-precision computation on fresh
 * random inputs.
 */
#include <math.h>
#include <stdio.h>

#include "../test_util.h"
#include "kernels_test_util.h"
#include "mcpp_kernels/gemm.h"
#include "mcpp_kernels/reference.h"

#define TOL 2e-5

static ktest_rng rng_for(uint64_t seed)
{
    ktest_rng r = {seed * 2654435761u + 1};
    return r;
}

TEST(embedding_copies_the_row_of_each_token)
{
    ktest_rng r = rng_for(1);
    size_t V = 37, D = 12, n = 50;
    float *table = ktest_random(&r, V * D, 1.0f);
    int32_t tokens[50];
    for (size_t i = 0; i < n; i++) tokens[i] = (int32_t)(ktest_uniform(&r) * V);
    float *out = ktest_random(&r, n * D, 1.0f);
    mcpp_kernel_ref_embedding(out, tokens, n, table, V, D);
    int mismatches = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < D; j++) mismatches += out[i * D + j] != table[tokens[i] * D + j];
    CHECK_INT_EQ(mismatches, 0);
    free(table);
    free(out);
}

TEST(rmsnorm_matches_double_precision)
{
    ktest_rng r = rng_for(2);
    size_t rows = 9, D = 67;
    float *x = ktest_random(&r, rows * D, 3.0f), *w = ktest_random(&r, D, 1.0f);
    float *out = ktest_random(&r, rows * D, 1.0f);
    double *want = malloc(rows * D * sizeof(double));
    for (size_t i = 0; i < rows; i++) {
        double ss = 0;
        for (size_t j = 0; j < D; j++) ss += (double)x[i * D + j] * x[i * D + j];
        double inv = 1.0 / sqrt(ss / D + 1e-5);
        for (size_t j = 0; j < D; j++) want[i * D + j] = x[i * D + j] * inv * w[j];
    }
    mcpp_kernel_ref_rmsnorm(out, x, w, rows, D, 1e-5f);
    CHECK(ktest_rel_err(out, want, rows * D) < TOL);
    free(x); free(w); free(out); free(want);
}

TEST(residual_add_adds_elementwise)
{
    ktest_rng r = rng_for(3);
    size_t n = 101;
    float *a = ktest_random(&r, n, 1.0f), *b = ktest_random(&r, n, 1.0f);
    double *want = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) want[i] = (double)a[i] + b[i];
    mcpp_kernel_ref_residual_add(a, b, n);
    CHECK(ktest_rel_err(a, want, n) < 1e-7);
    free(a); free(b); free(want);
}

TEST(causal_attention_matches_double_precision_and_ignores_the_future)
{
    ktest_rng r = rng_for(4);
    size_t B = 2, T = 11, H = 3, hd = 8, W = H * hd;
    float *qkv = ktest_random(&r, B * T * 3 * W, 1.0f);
    float *out = ktest_random(&r, B * T * W, 1.0f);
    double *want = calloc(B * T * W, sizeof(double));
    double scores[16];
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < H; h++)
            for (size_t i = 0; i < T; i++) {
                const float *q = qkv + (b * T + i) * 3 * W + h * hd;
                double max = -1e300, sum = 0;
                for (size_t j = 0; j <= i; j++) {
                    const float *k = qkv + (b * T + j) * 3 * W + W + h * hd;
                    double s = 0;
                    for (size_t e = 0; e < hd; e++) s += (double)q[e] * k[e];
                    scores[j] = s / sqrt((double)hd);
                    if (scores[j] > max) max = scores[j];
                }
                for (size_t j = 0; j <= i; j++) sum += exp(scores[j] - max);
                for (size_t j = 0; j <= i; j++) {
                    const float *v = qkv + (b * T + j) * 3 * W + 2 * W + h * hd;
                    for (size_t e = 0; e < hd; e++)
                        want[(b * T + i) * W + h * hd + e] += exp(scores[j] - max) / sum * v[e];
                }
            }
    mcpp_kernel_ref_attention(out, qkv, B, T, H, hd);
    CHECK(ktest_rel_err(out, want, B * T * W) < TOL);

    /* Changing the last position's keys and values must not change earlier rows. */
    float before = out[(T - 2) * W + 1];
    for (size_t e = W; e < 3 * W; e++) qkv[(T - 1) * 3 * W + e] += 5.0f;
    mcpp_kernel_ref_attention(out, qkv, B, T, H, hd);
    CHECK(out[(T - 2) * W + 1] == before);
    free(qkv); free(out); free(want);
}

TEST(selective_scan_matches_double_precision)
{
    ktest_rng r = rng_for(5);
    size_t B = 2, T = 13, D = 6, S = 5, row = 2 * D + 2 * S;
    float *proj = ktest_random(&r, B * T * row, 1.0f);
    float *a_log = ktest_random(&r, D * S, 0.5f), *dtb = ktest_random(&r, D, 0.5f);
    float *dskip = ktest_random(&r, D, 1.0f), *y = ktest_random(&r, B * T * D, 1.0f);
    double *want = malloc(B * T * D * sizeof(double));
    for (size_t b = 0; b < B; b++)
        for (size_t c = 0; c < D; c++) {
            double h[5] = {0};
            for (size_t t = 0; t < T; t++) {
                const float *p = proj + (b * T + t) * row;
                double u = p[c], dt = (double)p[D + c] + dtb[c];
                double delta = log1p(exp(dt)), acc = 0;
                for (size_t n = 0; n < S; n++) {
                    double a = -exp((double)a_log[c * S + n]);
                    h[n] = exp(delta * a) * h[n] + delta * p[2 * D + n] * u;
                    acc += p[2 * D + S + n] * h[n];
                }
                want[(b * T + t) * D + c] = acc + dskip[c] * u;
            }
        }
    mcpp_kernel_ref_selective_scan(y, proj, a_log, dtb, dskip, B, T, D, S);
    CHECK(ktest_rel_err(y, want, B * T * D) < TOL);
    free(proj); free(a_log); free(dtb); free(dskip); free(y); free(want);
}

TEST(gated_recurrence_matches_double_precision)
{
    ktest_rng r = rng_for(6);
    size_t B = 3, T = 17, D = 5;
    float *proj = ktest_random(&r, B * T * 3 * D, 2.0f), *y = ktest_random(&r, B * T * D, 1.0f);
    double *want = malloc(B * T * D * sizeof(double));
    for (size_t b = 0; b < B; b++)
        for (size_t c = 0; c < D; c++) {
            double h = 0;
            for (size_t t = 0; t < T; t++) {
                const float *p = proj + (b * T + t) * 3 * D;
                double rr = ktest_sigmoid(p[c]);
                h = rr * h + (1 - rr) * p[D + c];
                want[(b * T + t) * D + c] = h * ktest_silu(p[2 * D + c]);
            }
        }
    mcpp_kernel_ref_gated_recurrence(y, proj, B, T, D);
    CHECK(ktest_rel_err(y, want, B * T * D) < TOL);
    free(proj); free(y); free(want);
}

TEST(lm_head_matches_double_precision)
{
    ktest_rng r = rng_for(7);
    size_t rows = 7, D = 19, V = 23;
    float *x = ktest_random(&r, rows * D, 1.0f), *table = ktest_random(&r, V * D, 1.0f);
    float *logits = ktest_random(&r, rows * V, 1.0f);
    double *want = malloc(rows * V * sizeof(double));
    for (size_t i = 0; i < rows; i++)
        for (size_t v = 0; v < V; v++) {
            double acc = 0;
            for (size_t j = 0; j < D; j++) acc += (double)x[i * D + j] * table[v * D + j];
            want[i * V + v] = acc;
        }
    mcpp_kernel_ref_lm_head(logits, x, table, rows, D, V);
    CHECK(ktest_rel_err(logits, want, rows * V) < TOL);
    free(x); free(table); free(logits); free(want);
}

static double gemm_case(mcpp_kernel_gemm_impl impl, int trans_b, int accumulate)
{
    ktest_rng r = rng_for(8 + (uint64_t)impl * 4 + (uint64_t)trans_b * 2 + (uint64_t)accumulate);
    /* Odd sizes straddle the blocked path's block edges. */
    size_t m = 70, n = 261, k = 131;
    float *a = ktest_random(&r, m * k, 1.0f), *b = ktest_random(&r, k * n, 1.0f);
    float *c = ktest_random(&r, m * n, 1.0f);
    double *want = malloc(m * n * sizeof(double));
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double acc = accumulate ? c[i * n + j] : 0.0;
            for (size_t kk = 0; kk < k; kk++)
                acc += (double)a[i * k + kk] * (trans_b ? b[j * k + kk] : b[kk * n + j]);
            want[i * n + j] = acc;
        }
    mcpp_kernel_gemm(impl, m, n, k, a, k, b, trans_b ? k : n, trans_b, c, n, accumulate);
    double err = ktest_rel_err(c, want, m * n);
    free(a); free(b); free(c); free(want);
    return err;
}

TEST(every_gemm_path_matches_double_precision_plain_transposed_and_accumulating)
{
    mcpp_kernel_gemm_set_threads(1);
    for (int impl = 0; impl < 3; impl++)
        for (int tb = 0; tb < 2; tb++)
            for (int acc = 0; acc < 2; acc++) {
                double err = gemm_case((mcpp_kernel_gemm_impl)impl, tb, acc);
                if (!(err < 1e-5))
                    fprintf(stderr, "gemm %s trans_b=%d accumulate=%d rel err %g\n",
                            mcpp_kernel_gemm_impl_name((mcpp_kernel_gemm_impl)impl), tb, acc, err);
                CHECK(err < 1e-5);
            }
}

int main(void)
{
    RUN(embedding_copies_the_row_of_each_token);
    RUN(rmsnorm_matches_double_precision);
    RUN(residual_add_adds_elementwise);
    RUN(causal_attention_matches_double_precision_and_ignores_the_future);
    RUN(selective_scan_matches_double_precision);
    RUN(gated_recurrence_matches_double_precision);
    RUN(lm_head_matches_double_precision);
    RUN(every_gemm_path_matches_double_precision_plain_transposed_and_accumulating);
    TEST_MAIN_END();
}
