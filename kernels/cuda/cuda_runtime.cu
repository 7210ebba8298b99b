/*
 * cuda_runtime.cu — the CUDA runtime side: what the device is
 * (mcpp_kernel_device_query), bf16 transfers, the row-major cuBLAS GEMM helper and
 * the profiler window.
 */
#include <cuda_profiler_api.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "cuda_common.cuh"

extern "C" {
#include "mcpp_kernels/cuda_stack.h"
#include "mcpp_kernels/device.h"
}

extern "C" void mcpp_kernel_device_query(mcpp_kernel_device_info *out)
{
    memset(out, 0, sizeof *out);
    out->compiled_with_cuda = 1;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(out->reason, sizeof out->reason, "cudaGetDeviceCount failed: %s",
                 cudaGetErrorString(e));
        (void)cudaGetLastError(); /* clear the sticky error for later calls */
        return;
    }
    if (count <= 0) {
        snprintf(out->reason, sizeof out->reason, "cudaGetDeviceCount returned 0 devices");
        return;
    }
    out->device_count = count;
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
        snprintf(out->name, sizeof out->name, "%s", prop.name);
        out->memory_gib = (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    }
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess)
        snprintf(out->driver, sizeof out->driver, "%d.%d", driver / 1000, (driver % 1000) / 10);
    if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
        snprintf(out->runtime, sizeof out->runtime, "%d.%d", runtime / 1000, (runtime % 1000) / 10);
}

int mcpp_cuda_require_device(void)
{
    mcpp_kernel_device_info info;
    mcpp_kernel_device_query(&info);
    if (info.device_count <= 0)
        return mcpp_kernel_error(MCPP_EUNSUPPORTED, MCPP_ERROR_KIND_UNSUPPORTED, NULL, NULL, 0, "%s", info.reason);
    return MCPP_OK;
}

int mcpp_cuda_upload_bf16(bf16 **out, const float *host, size_t count)
{
    *out = NULL;
    std::vector<bf16> tmp(count ? count : 1);
    for (size_t i = 0; i < count; i++) tmp[i] = __float2bfloat16(host[i]);
    MCPP_CUDA_TRY(cudaMalloc((void **)out, tmp.size() * sizeof(bf16)));
    MCPP_CUDA_TRY(cudaMemcpy(*out, tmp.data(), count * sizeof(bf16), cudaMemcpyHostToDevice));
    return MCPP_OK;
}

int mcpp_cuda_download_bf16(float *host, const bf16 *dev, size_t count)
{
    std::vector<bf16> tmp(count ? count : 1);
    MCPP_CUDA_TRY(cudaMemcpy(tmp.data(), dev, count * sizeof(bf16), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < count; i++) host[i] = __bfloat162float(tmp[i]);
    return MCPP_OK;
}

/* Row-major C = A * op(B) is column-major C^T = op(B)^T * A^T: swap the operands. */
int mcpp_cuda_gemm(cublasHandle_t h, size_t m, size_t n, size_t k, const bf16 *a, size_t lda,
                   const bf16 *b, size_t ldb, int trans_b, void *c, size_t ldc, int c_fp32,
                   cudaStream_t stream)
{
    const float alpha = 1.0f, beta = 0.0f;
    MCPP_CUBLAS_TRY(cublasSetStream(h, stream));
    MCPP_CUBLAS_TRY(cublasGemmEx(h, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m,
                                 (int)k, &alpha, b, CUDA_R_16BF, (int)ldb, a, CUDA_R_16BF, (int)lda,
                                 &beta, c, c_fp32 ? CUDA_R_32F : CUDA_R_16BF, (int)ldc,
                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return MCPP_OK;
}

extern "C" void mcpp_kernel_cuda_profiler_start(void) { (void)cudaProfilerStart(); }
extern "C" void mcpp_kernel_cuda_profiler_stop(void) { (void)cudaProfilerStop(); }
