/*
 * mcpp_kernels/gemm.h — the CPU GEMM paths behind every projection:
 * a naive reference loop (ground truth), a cache-blocked C loop, and
 * OpenBLAS sgemm (the "cpu_blas" backend).
 */
#ifndef MCPP_KERNELS_GEMM_H
#define MCPP_KERNELS_GEMM_H

#include <stddef.h>

typedef enum mcpp_kernel_gemm_impl {
    MCPP_KERNEL_GEMM_REFERENCE = 0, /* three loops, fp32 accumulate          */
    MCPP_KERNEL_GEMM_BLOCKED = 1,   /* cache-blocked, vectorisable C          */
    MCPP_KERNEL_GEMM_BLAS = 2       /* OpenBLAS cblas_sgemm                    */
} mcpp_kernel_gemm_impl;

/* "reference", "blocked", "cpu_blas". */
const char *mcpp_kernel_gemm_impl_name(mcpp_kernel_gemm_impl impl);

/*
 * C[m, n] (+)= A[m, k] * op(B), row-major with leading dimensions lda/ldb/ldc.
 * op(B) is B[k, n] when trans_b is 0 and B[n, k]^T when it is 1.
 * With accumulate == 0, C is overwritten; otherwise the product is added.
 */
void mcpp_kernel_gemm(mcpp_kernel_gemm_impl impl, size_t m, size_t n, size_t k, const float *a, size_t lda,
               const float *b, size_t ldb, int trans_b, float *c, size_t ldc, int accumulate);

/* Sets the OpenBLAS thread count (1 keeps a shared machine quiet). */
void mcpp_kernel_gemm_set_threads(int threads);

/* The threads GEMM path `impl` runs on: what OpenBLAS reports for the BLAS
 * path, 1 for the single-threaded C paths (a receipt's
 * hardware.observed.threads). */
int mcpp_kernel_gemm_threads(mcpp_kernel_gemm_impl impl);

#endif /* MCPP_KERNELS_GEMM_H */
