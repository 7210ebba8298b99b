/*
 * cuda_check.cu — host-to-host wrappers around single CUDA kernels (for the
 * correctness tests against the C reference) and the GPU benchmark timings.
 */
#include <math.h>
#include <vector>

#include "cuda_common.cuh"

extern "C" {
#include "mcpp_kernels/cuda_check.h"
}

/* Frees every device buffer registered with it when the call returns. */
struct device_scope {
    std::vector<void *> bufs;
    ~device_scope()
    {
        for (void *p : bufs) cudaFree(p);
    }
    template <typename T> int alloc(T **out, size_t count)
    {
        *out = NULL;
        MCPP_CUDA_TRY(cudaMalloc((void **)out, (count ? count : 1) * sizeof(T)));
        bufs.push_back(*out);
        return MCPP_OK;
    }
    int up(bf16 **out, const float *host, size_t count)
    {
        int rc = mcpp_cuda_upload_bf16(out, host, count);
        if (rc == MCPP_OK) bufs.push_back(*out);
        return rc;
    }
    int up_f32(float **out, const float *host, size_t count)
    {
        int rc = alloc(out, count);
        if (rc != MCPP_OK) return rc;
        MCPP_CUDA_TRY(cudaMemcpy(*out, host, count * sizeof(float), cudaMemcpyHostToDevice));
        return MCPP_OK;
    }
};

#define CHECK_RC(expr)                                                                           \
    do {                                                                                         \
        int _rc = (expr);                                                                        \
        if (_rc != MCPP_OK) return _rc;                                                          \
    } while (0)

extern "C" int mcpp_kernel_cuda_check_rmsnorm(float *out, const float *x, const float *weight, size_t rows, size_t d)
{
    CHECK_RC(mcpp_cuda_require_device());
    device_scope sc;
    float *dx;
    bf16 *dw, *dout;
    CHECK_RC(sc.up_f32(&dx, x, rows * d));
    CHECK_RC(sc.up(&dw, weight, d));
    CHECK_RC(sc.alloc(&dout, rows * d));
    mcpp_cuda_rmsnorm(dout, dx, dw, rows, d, 0);
    MCPP_CUDA_TRY(cudaDeviceSynchronize());
    return mcpp_cuda_download_bf16(out, dout, rows * d);
}

extern "C" int mcpp_kernel_cuda_check_attention(float *out, const float *qkv, size_t batch, size_t seq,
                                         size_t heads, size_t head_dim)
{
    CHECK_RC(mcpp_cuda_require_device());
    if (head_dim > 128)
        return mcpp_kernel_error(MCPP_EUNSUPPORTED, MCPP_ERROR_KIND_UNSUPPORTED, NULL, "head_dim", 0,
                              "CUDA attention supports head_dim <= 128");
    device_scope sc;
    size_t W = heads * head_dim, N = batch * seq;
    bf16 *dq, *dout;
    CHECK_RC(sc.up(&dq, qkv, N * 3 * W));
    CHECK_RC(sc.alloc(&dout, N * W));
    mcpp_cuda_attention(dout, dq, batch, seq, heads, head_dim, 0);
    MCPP_CUDA_TRY(cudaDeviceSynchronize());
    return mcpp_cuda_download_bf16(out, dout, N * W);
}

extern "C" int mcpp_kernel_cuda_check_scan(float *y, const float *proj, const float *a_log, const float *dt_bias,
                                    const float *d_skip, size_t batch, size_t seq, size_t d, size_t state)
{
    CHECK_RC(mcpp_cuda_require_device());
    device_scope sc;
    size_t N = batch * seq;
    bf16 *dp, *dy;
    float *da, *db, *ds;
    CHECK_RC(sc.up(&dp, proj, N * (2 * d + 2 * state)));
    CHECK_RC(sc.up_f32(&da, a_log, d * state));
    CHECK_RC(sc.up_f32(&db, dt_bias, d));
    CHECK_RC(sc.up_f32(&ds, d_skip, d));
    CHECK_RC(sc.alloc(&dy, N * d));
    mcpp_cuda_selective_scan(dy, dp, da, db, ds, batch, seq, d, state, 0);
    MCPP_CUDA_TRY(cudaDeviceSynchronize());
    return mcpp_cuda_download_bf16(y, dy, N * d);
}

extern "C" int mcpp_kernel_cuda_check_recurrence(float *y, const float *proj, size_t batch, size_t seq, size_t d)
{
    CHECK_RC(mcpp_cuda_require_device());
    device_scope sc;
    size_t N = batch * seq;
    bf16 *dp, *dy;
    CHECK_RC(sc.up(&dp, proj, N * 3 * d));
    CHECK_RC(sc.alloc(&dy, N * d));
    mcpp_cuda_gated_recurrence(dy, dp, batch, seq, d, 0);
    MCPP_CUDA_TRY(cudaDeviceSynchronize());
    return mcpp_cuda_download_bf16(y, dy, N * d);
}

extern "C" int mcpp_kernel_cuda_check_moe(float *out, mcpp_kernel_moe_stats *stats, const float *x, const float *logits,
                                   const float *w1, const float *w2, const mcpp_kernel_moe_config *cfg,
                                   mcpp_kernel_moe_lane lane, size_t tokens)
{
    CHECK_RC(mcpp_cuda_require_device());
    device_scope sc;
    size_t D = cfg->d_model, F = cfg->d_ff, E = cfg->experts;
    bf16 *dx, *dw1, *dw2, *dout;
    float *dl;
    CHECK_RC(sc.up(&dx, x, tokens * D));
    CHECK_RC(sc.up(&dw1, w1, E * D * F));
    CHECK_RC(sc.up(&dw2, w2, E * F * D));
    CHECK_RC(sc.up_f32(&dl, logits, tokens * E));
    CHECK_RC(sc.alloc(&dout, tokens * D));
    cublasHandle_t h;
    MCPP_CUBLAS_TRY(cublasCreate(&h));
    mcpp_cuda_moe *m = NULL;
    int rc = mcpp_cuda_moe_new(&m, cfg, tokens);
    if (rc == MCPP_OK) rc = mcpp_cuda_moe_forward(m, dout, dx, dl, dw1, dw2, lane, h, 0, stats, NULL);
    mcpp_cuda_moe_free(m);
    cublasDestroy(h);
    if (rc != MCPP_OK) return rc;
    MCPP_CUDA_TRY(cudaDeviceSynchronize());
    return mcpp_cuda_download_bf16(out, dout, tokens * D);
}

static std::vector<float> bench_random(size_t n, float scale, unsigned seed)
{
    std::vector<float> v(n);
    unsigned s = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = scale * ((float)(s >> 8) / 8388608.0f - 1.0f);
    }
    return v;
}

extern "C" int mcpp_kernel_cuda_bench_moe(double *ms_out, double *useful_gflop_out, const mcpp_kernel_moe_config *cfg,
                                   mcpp_kernel_moe_lane lane, size_t tokens, int reps)
{
    CHECK_RC(mcpp_cuda_require_device());
    device_scope sc;
    size_t D = cfg->d_model, F = cfg->d_ff, E = cfg->experts;
    std::vector<float> hx = bench_random(tokens * D, 1.0f, 1), hl = bench_random(tokens * E, 2.0f, 2);
    std::vector<float> hw1 = bench_random(E * D * F, 0.05f, 3), hw2 = bench_random(E * F * D, 0.05f, 4);
    bf16 *dx, *dw1, *dw2, *dout;
    float *dl;
    CHECK_RC(sc.up(&dx, hx.data(), hx.size()));
    CHECK_RC(sc.up(&dw1, hw1.data(), hw1.size()));
    CHECK_RC(sc.up(&dw2, hw2.data(), hw2.size()));
    CHECK_RC(sc.up_f32(&dl, hl.data(), hl.size()));
    CHECK_RC(sc.alloc(&dout, tokens * D));
    cublasHandle_t h;
    MCPP_CUBLAS_TRY(cublasCreate(&h));
    mcpp_cuda_moe *m = NULL;
    mcpp_kernel_moe_stats st = {0, 0, 0, 0, 0.0, 0.0};
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    int rc = mcpp_cuda_moe_new(&m, cfg, tokens);
    if (rc == MCPP_OK) rc = mcpp_cuda_moe_forward(m, dout, dx, dl, dw1, dw2, lane, h, 0, &st, NULL); /* warm */
    float ms = 0.0f;
    if (rc == MCPP_OK) {
        cudaEventRecord(e0, 0);
        for (int r = 0; r < reps && rc == MCPP_OK; r++)
            rc = mcpp_cuda_moe_forward(m, dout, dx, dl, dw1, dw2, lane, h, 0, NULL, NULL);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    mcpp_cuda_moe_free(m);
    cublasDestroy(h);
    if (rc != MCPP_OK) return rc;
    *ms_out = (double)ms / (reps > 0 ? reps : 1);
    *useful_gflop_out = st.flops_useful * 1e-9;
    return MCPP_OK;
}

extern "C" int mcpp_kernel_cuda_bench_gemm(double *ms_out, size_t m, size_t n, size_t k, int reps)
{
    CHECK_RC(mcpp_cuda_require_device());
    device_scope sc;
    bf16 *a, *b, *c;
    CHECK_RC(sc.alloc(&a, m * k));
    CHECK_RC(sc.alloc(&b, k * n));
    CHECK_RC(sc.alloc(&c, m * n));
    MCPP_CUDA_TRY(cudaMemset(a, 0x3c, m * k * sizeof(bf16)));
    MCPP_CUDA_TRY(cudaMemset(b, 0x3c, k * n * sizeof(bf16)));
    cublasHandle_t h;
    MCPP_CUBLAS_TRY(cublasCreate(&h));
    int rc = mcpp_cuda_gemm(h, m, n, k, a, k, b, n, 0, c, n, 0, 0);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0, 0);
    for (int r = 0; r < reps && rc == MCPP_OK; r++) rc = mcpp_cuda_gemm(h, m, n, k, a, k, b, n, 0, c, n, 0, 0);
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cublasDestroy(h);
    if (rc != MCPP_OK) return rc;
    *ms_out = (double)ms / (reps > 0 ? reps : 1);
    return MCPP_OK;
}
