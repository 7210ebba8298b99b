/*
 * mcpp_kernels/cuda_check.h — host-to-host wrappers around the CUDA kernels,
 * for correctness tests against the C reference and for the GPU benchmark.
 *
 * Each check function uploads fp32 host inputs (converted to bf16 where the
 * kernel stores bf16), runs one kernel and downloads the result as fp32.
 * Only in builds with MCPP_HAVE_CUDA; they return MCPP_EUNSUPPORTED when the
 * runtime has no device.
 */
#ifndef MCPP_KERNELS_CUDA_CHECK_H
#define MCPP_KERNELS_CUDA_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "moe.h"

#ifdef __cplusplus
extern "C" {
#endif

int mcpp_kernel_cuda_check_rmsnorm(float *out, const float *x, const float *weight, size_t rows, size_t d);
int mcpp_kernel_cuda_check_attention(float *out, const float *qkv, size_t batch, size_t seq, size_t heads,
                              size_t head_dim);
int mcpp_kernel_cuda_check_scan(float *y, const float *proj, const float *a_log, const float *dt_bias,
                         const float *d_skip, size_t batch, size_t seq, size_t d, size_t state);
int mcpp_kernel_cuda_check_recurrence(float *y, const float *proj, size_t batch, size_t seq, size_t d);

/* Routes on the device from fp32 router logits [tokens, experts] and runs the
 * experts in `lane`; out is [tokens, d_model]. stats (may be NULL) gets the
 * device's row accounting. */
int mcpp_kernel_cuda_check_moe(float *out, mcpp_kernel_moe_stats *stats, const float *x, const float *logits,
                        const float *w1, const float *w2, const mcpp_kernel_moe_config *cfg,
                        mcpp_kernel_moe_lane lane, size_t tokens);

/* Mean milliseconds of one MoE forward (route + experts) over `reps` runs on
 * random device data, and the useful GFLOP of one run. */
int mcpp_kernel_cuda_bench_moe(double *ms_out, double *useful_gflop_out, const mcpp_kernel_moe_config *cfg,
                        mcpp_kernel_moe_lane lane, size_t tokens, int reps);

/* Mean milliseconds of a dense bf16 cuBLAS GEMM [m,k] x [k,n] (fp32 accumulate). */
int mcpp_kernel_cuda_bench_gemm(double *ms_out, size_t m, size_t n, size_t k, int reps);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_KERNELS_CUDA_CHECK_H */
