/*
 * cuda_common.cuh — shared pieces of the CUDA kernels: error mapping to the
 * library's last error, bf16 conversions, and the device-side declarations
 * that the block, MoE and stack files share.
 */
#ifndef MCPP_CUDA_COMMON_CUH
#define MCPP_CUDA_COMMON_CUH

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "kernel_error.h"
#include "mcpp_kernels/moe.h"
}

typedef __nv_bfloat16 bf16;

#define MCPP_CUDA_TRY(expr)                                                                      \
    do {                                                                                         \
        cudaError_t _e = (expr);                                                                 \
        if (_e != cudaSuccess)                                                                   \
            return mcpp_kernel_error(MCPP_EINTERNAL, MCPP_ERROR_KIND_INTERNAL, __FILE__, NULL, __LINE__, \
                                     "%s: %s", #expr, cudaGetErrorString(_e));                   \
    } while (0)

#define MCPP_CUBLAS_TRY(expr)                                                                    \
    do {                                                                                         \
        cublasStatus_t _s = (expr);                                                              \
        if (_s != CUBLAS_STATUS_SUCCESS)                                                         \
            return mcpp_kernel_error(MCPP_EINTERNAL, MCPP_ERROR_KIND_INTERNAL, __FILE__, NULL, __LINE__, \
                                     "%s: cuBLAS status %d", #expr, (int)_s);                    \
    } while (0)

/* Returns MCPP_EUNSUPPORTED (with the runtime's reason) when no device is usable. */
int mcpp_cuda_require_device(void);

/* fp32 host <-> bf16 device copies (allocate with cudaMalloc; caller frees). */
int mcpp_cuda_upload_bf16(bf16 **out, const float *host, size_t count);
int mcpp_cuda_download_bf16(float *host, const bf16 *dev, size_t count);

/* Row-major C[m,n] = A[m,k] * op(B) with bf16 A/B, fp32 accumulation; C is bf16
 * (c_fp32 == 0) or fp32. op(B) = B[k,n], or B[n,k]^T when trans_b. */
int mcpp_cuda_gemm(cublasHandle_t h, size_t m, size_t n, size_t k, const bf16 *a, size_t lda,
                   const bf16 *b, size_t ldb, int trans_b, void *c, size_t ldc, int c_fp32,
                   cudaStream_t stream);

/* ---- block kernels (cuda_blocks.cu) ---- */
void mcpp_cuda_embedding(float *x, const int32_t *tokens, const bf16 *table, size_t n, size_t d,
                         cudaStream_t s);
void mcpp_cuda_rmsnorm(bf16 *out, const float *x, const bf16 *weight, size_t rows, size_t d,
                       cudaStream_t s);
void mcpp_cuda_residual_add(float *x, const bf16 *delta, size_t n, cudaStream_t s);
void mcpp_cuda_attention(bf16 *out, const bf16 *qkv, size_t batch, size_t seq, size_t heads,
                         size_t head_dim, cudaStream_t s);
void mcpp_cuda_selective_scan(bf16 *y, const bf16 *proj, const float *a_log, const float *dt_bias,
                              const float *d_skip, size_t batch, size_t seq, size_t d,
                              size_t state, cudaStream_t s);
void mcpp_cuda_gated_recurrence(bf16 *y, const bf16 *proj, size_t batch, size_t seq, size_t d,
                                cudaStream_t s);
void mcpp_cuda_f32_to_bf16(bf16 *out, const float *in, size_t n, cudaStream_t s);

/* ---- MoE (cuda_moe.cu) ---- */
typedef struct mcpp_cuda_moe mcpp_cuda_moe;

int mcpp_cuda_moe_new(mcpp_cuda_moe **out, const mcpp_kernel_moe_config *cfg, size_t tokens);
void mcpp_cuda_moe_free(mcpp_cuda_moe *m);

/*
 * out[t,:] = sum_k w * W2_e silu(W1_e x[t,:]) over the kept assignments.
 * logits are fp32 [tokens, experts] on the device; x is bf16 [tokens, D];
 * w1 [E, D, F] and w2 [E, F, D] bf16; out bf16 [tokens, D]. stats, when not
 * NULL, are accumulated (the segment sizes come back to the host: one sync).
 * imbalance_out (may be NULL) gets max/mean expert demand.
 */
int mcpp_cuda_moe_forward(mcpp_cuda_moe *m, bf16 *out, const bf16 *x, const float *logits,
                          const bf16 *w1, const bf16 *w2, mcpp_kernel_moe_lane lane, cublasHandle_t h,
                          cudaStream_t s, mcpp_kernel_moe_stats *stats, double *imbalance_out);

#endif /* MCPP_CUDA_COMMON_CUH */
