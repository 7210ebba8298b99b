/*
 * gemm.c — the CPU GEMM paths: naive reference, cache-blocked C, OpenBLAS.
 *
 * The blocked path keeps a (BM x BK) panel of A and a (BK x BN) panel of B hot
 * in cache and runs the innermost loop over contiguous columns of C so the
 * compiler can vectorise it; it exists to show what a plain C loop reaches
 * next to a tuned BLAS (benchmarks/kernels).
 */
#include <cblas.h>
#include <string.h>

#include "mcpp_kernels/gemm.h"

#define MCPP_GEMM_BM 64
#define MCPP_GEMM_BN 256
#define MCPP_GEMM_BK 128

const char *mcpp_kernel_gemm_impl_name(mcpp_kernel_gemm_impl impl)
{
    switch (impl) {
    case MCPP_KERNEL_GEMM_REFERENCE: return "reference";
    case MCPP_KERNEL_GEMM_BLOCKED: return "blocked";
    case MCPP_KERNEL_GEMM_BLAS: return "cpu_blas";
    }
    return "unknown";
}

void mcpp_kernel_gemm_set_threads(int threads)
{
    openblas_set_num_threads(threads > 0 ? threads : 1);
}

int mcpp_kernel_gemm_threads(mcpp_kernel_gemm_impl impl)
{
    if (impl != MCPP_KERNEL_GEMM_BLAS)
        return 1;
    int n = openblas_get_num_threads();
    return n > 0 ? n : 1;
}

static float gemm_b_at(const float *b, size_t ldb, int trans_b, size_t kk, size_t j)
{
    return trans_b ? b[j * ldb + kk] : b[kk * ldb + j];
}

static void gemm_reference(size_t m, size_t n, size_t k, const float *a, size_t lda,
                           const float *b, size_t ldb, int trans_b, float *c, size_t ldc,
                           int accumulate)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (size_t kk = 0; kk < k; kk++) acc += a[i * lda + kk] * gemm_b_at(b, ldb, trans_b, kk, j);
            c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc : acc;
        }
}

static size_t gemm_min(size_t x, size_t y) { return x < y ? x : y; }

static void gemm_rows4(float *restrict c, size_t ldc, const float *restrict a, size_t lda,
                       const float *restrict bpack, size_t kb, size_t nb)
{
    float *restrict c0 = c, *restrict c1 = c + ldc, *restrict c2 = c + 2 * ldc, *restrict c3 = c + 3 * ldc;
    for (size_t kk = 0; kk < kb; kk++) {
        float a0 = a[kk], a1 = a[lda + kk], a2 = a[2 * lda + kk], a3 = a[3 * lda + kk];
        const float *restrict b = bpack + kk * nb;
        for (size_t j = 0; j < nb; j++) {
            float bv = b[j];
            c0[j] += a0 * bv;
            c1[j] += a1 * bv;
            c2[j] += a2 * bv;
            c3[j] += a3 * bv;
        }
    }
}

static void gemm_blocked(size_t m, size_t n, size_t k, const float *a, size_t lda,
                         const float *b, size_t ldb, int trans_b, float *c, size_t ldc,
                         int accumulate)
{
    /* A transposed B is packed block by block into row-major order first so the
     * inner loop is always unit-stride. */
    float bpack[MCPP_GEMM_BK * MCPP_GEMM_BN];
    if (!accumulate)
        for (size_t i = 0; i < m; i++) memset(c + i * ldc, 0, n * sizeof(float));
    for (size_t j0 = 0; j0 < n; j0 += MCPP_GEMM_BN) {
        size_t nb = gemm_min(MCPP_GEMM_BN, n - j0);
        for (size_t k0 = 0; k0 < k; k0 += MCPP_GEMM_BK) {
            size_t kb = gemm_min(MCPP_GEMM_BK, k - k0);
            for (size_t kk = 0; kk < kb; kk++)
                for (size_t j = 0; j < nb; j++)
                    bpack[kk * nb + j] = gemm_b_at(b, ldb, trans_b, k0 + kk, j0 + j);
            for (size_t i0 = 0; i0 < m; i0 += MCPP_GEMM_BM) {
                size_t mb = gemm_min(MCPP_GEMM_BM, m - i0), i = 0;
                /* Four rows of C at a time: each packed B row loaded once feeds four FMAs. */
                for (; i + 4 <= mb; i += 4)
                    gemm_rows4(c + (i0 + i) * ldc + j0, ldc, a + (i0 + i) * lda + k0, lda, bpack, kb, nb);
                for (; i < mb; i++) {
                    float *restrict crow = c + (i0 + i) * ldc + j0;
                    const float *arow = a + (i0 + i) * lda + k0;
                    for (size_t kk = 0; kk < kb; kk++) {
                        float av = arow[kk];
                        const float *restrict brow = bpack + kk * nb;
                        for (size_t j = 0; j < nb; j++) crow[j] += av * brow[j];
                    }
                }
            }
        }
    }
}

void mcpp_kernel_gemm(mcpp_kernel_gemm_impl impl, size_t m, size_t n, size_t k, const float *a, size_t lda,
               const float *b, size_t ldb, int trans_b, float *c, size_t ldc, int accumulate)
{
    if (m == 0 || n == 0) return;
    switch (impl) {
    case MCPP_KERNEL_GEMM_BLAS:
        cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (int)m,
                    (int)n, (int)k, 1.0f, a, (int)lda, b, (int)ldb, accumulate ? 1.0f : 0.0f, c,
                    (int)ldc);
        return;
    case MCPP_KERNEL_GEMM_BLOCKED:
        gemm_blocked(m, n, k, a, lda, b, ldb, trans_b, c, ldc, accumulate);
        return;
    case MCPP_KERNEL_GEMM_REFERENCE:
    default:
        gemm_reference(m, n, k, a, lda, b, ldb, trans_b, c, ldc, accumulate);
        return;
    }
}
