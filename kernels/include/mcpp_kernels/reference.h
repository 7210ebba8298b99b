/*
 * mcpp_kernels/reference.h — the fp32 C reference kernels: the ground truth
 * every other backend is checked against. Simple and obviously right first,
 * fast second. Matrices are row-major; a batch of sequences is laid out as
 * [batch * seq, width] rows. No function here allocates or fails.
 */
#ifndef MCPP_KERNELS_REFERENCE_H
#define MCPP_KERNELS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* Largest state size per channel the selective scan supports (kept on the stack). */
#define MCPP_KERNEL_SCAN_MAX_STATE 64

/* out[i, :] = table[tokens[i], :]; every token must be < vocab. */
void mcpp_kernel_ref_embedding(float *out, const int32_t *tokens, size_t count, const float *table,
                        size_t vocab, size_t d);

/* out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight. out may alias x. */
void mcpp_kernel_ref_rmsnorm(float *out, const float *x, const float *weight, size_t rows, size_t d,
                      float eps);

/* inout[i] += delta[i] for i < n. */
void mcpp_kernel_ref_residual_add(float *inout, const float *delta, size_t n);

/*
 * Causal multi-head attention. qkv holds rows [q | k | v], each heads*head_dim
 * wide; out receives [batch*seq, heads*head_dim]. Scores are scaled by
 * 1/sqrt(head_dim) and softmaxed over keys j <= i of the same sequence.
 */
void mcpp_kernel_ref_attention(float *out, const float *qkv, size_t batch, size_t seq, size_t heads,
                        size_t head_dim);

/*
 * Selective scan (Mamba-style) with a per-channel state of `state` values.
 * proj holds rows [u (d) | dt (d) | B (state) | C (state)]. For channel c:
 *   delta = softplus(dt + dt_bias[c]),  A = -exp(a_log[c, :])
 *   h[n]  = exp(delta * A[n]) * h[n] + delta * B[n] * u[c]
 *   y[c]  = sum_n C[n] * h[n] + d_skip[c] * u[c]
 * The state starts at zero for each sequence. state <= MCPP_KERNEL_SCAN_MAX_STATE.
 */
void mcpp_kernel_ref_selective_scan(float *y, const float *proj, const float *a_log, const float *dt_bias,
                             const float *d_skip, size_t batch, size_t seq, size_t d, size_t state);

/*
 * Gated recurrent tail. proj holds rows [a (d) | z (d) | g (d)]:
 *   r = sigmoid(a);  h = r * h_prev + (1 - r) * z;  y = h * silu(g)
 * with h starting at zero for each sequence.
 */
void mcpp_kernel_ref_gated_recurrence(float *y, const float *proj, size_t batch, size_t seq, size_t d);

/* LM-head logits with the embedding table tied: logits[r, v] = x[r, :] . table[v, :]. */
void mcpp_kernel_ref_lm_head(float *logits, const float *x, const float *table, size_t rows, size_t d,
                      size_t vocab);

/* Elementwise helpers shared by the blocks. */
float mcpp_kernel_silu(float x);
float mcpp_kernel_sigmoid(float x);
float mcpp_kernel_softplus(float x);

#endif /* MCPP_KERNELS_REFERENCE_H */
