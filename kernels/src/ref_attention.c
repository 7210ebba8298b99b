/*
 * ref_attention.c — reference causal multi-head attention (block family A).
 *
 * Two passes over the keys (max, then exp-sum and weighted values) so that no
 * scratch buffer is needed and the softmax is computed in the stable form.
 */
#include <math.h>

#include "mcpp_kernels/reference.h"

void mcpp_kernel_ref_attention(float *out, const float *qkv, size_t batch, size_t seq, size_t heads,
                        size_t head_dim)
{
    size_t width = heads * head_dim, row = 3 * width;
    float scale = 1.0f / sqrtf((float)head_dim);
    for (size_t b = 0; b < batch; b++)
        for (size_t h = 0; h < heads; h++)
            for (size_t i = 0; i < seq; i++) {
                const float *q = qkv + (b * seq + i) * row + h * head_dim;
                float *o = out + (b * seq + i) * width + h * head_dim;
                float max = -INFINITY;
                for (size_t j = 0; j <= i; j++) {
                    const float *k = qkv + (b * seq + j) * row + width + h * head_dim;
                    float s = 0.0f;
                    for (size_t e = 0; e < head_dim; e++) s += q[e] * k[e];
                    s *= scale;
                    if (s > max) max = s;
                }
                for (size_t e = 0; e < head_dim; e++) o[e] = 0.0f;
                float sum = 0.0f;
                for (size_t j = 0; j <= i; j++) {
                    const float *k = qkv + (b * seq + j) * row + width + h * head_dim;
                    const float *v = qkv + (b * seq + j) * row + 2 * width + h * head_dim;
                    float s = 0.0f;
                    for (size_t e = 0; e < head_dim; e++) s += q[e] * k[e];
                    float p = expf(s * scale - max);
                    sum += p;
                    for (size_t e = 0; e < head_dim; e++) o[e] += p * v[e];
                }
                for (size_t e = 0; e < head_dim; e++) o[e] /= sum;
            }
}
