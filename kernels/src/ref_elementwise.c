/*
 * ref_elementwise.c — reference embedding, RMSNorm, residual add, LM head and
 * the scalar activations shared by every block.
 */
#include <math.h>

#include "mcpp_kernels/reference.h"

float mcpp_kernel_silu(float x) { return x / (1.0f + expf(-x)); }

float mcpp_kernel_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

float mcpp_kernel_softplus(float x)
{
    /* log1p(exp(x)) overflows for large x, where softplus(x) == x in float. */
    return x > 20.0f ? x : log1pf(expf(x));
}

void mcpp_kernel_ref_embedding(float *out, const int32_t *tokens, size_t count, const float *table,
                        size_t vocab, size_t d)
{
    for (size_t i = 0; i < count; i++) {
        size_t t = (size_t)tokens[i];
        const float *row = table + (t < vocab ? t : 0) * d;
        for (size_t j = 0; j < d; j++) out[i * d + j] = row[j];
    }
}

void mcpp_kernel_ref_rmsnorm(float *out, const float *x, const float *weight, size_t rows, size_t d,
                      float eps)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float ss = 0.0f;
        for (size_t j = 0; j < d; j++) ss += xr[j] * xr[j];
        float inv = 1.0f / sqrtf(ss / (float)d + eps);
        for (size_t j = 0; j < d; j++) out[r * d + j] = xr[j] * inv * weight[j];
    }
}

void mcpp_kernel_ref_residual_add(float *inout, const float *delta, size_t n)
{
    for (size_t i = 0; i < n; i++) inout[i] += delta[i];
}

void mcpp_kernel_ref_lm_head(float *logits, const float *x, const float *table, size_t rows, size_t d,
                      size_t vocab)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t v = 0; v < vocab; v++) {
            float acc = 0.0f;
            for (size_t j = 0; j < d; j++) acc += x[r * d + j] * table[v * d + j];
            logits[r * vocab + v] = acc;
        }
}
