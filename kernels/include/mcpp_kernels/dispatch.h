/*
 * mcpp_kernels/dispatch.h — the one backend dispatcher.
 *
 * For each block family it decides which implementation runs — CUDA kernels,
 * cuBLAS, the CPU BLAS (OpenBLAS), the blocked C GEMM or the C reference — and
 * records what was requested, what was observed and every fallback with its
 * reason. A fallback is never silent: asking for CUDA without a usable device
 * is an error unless fallback was explicitly allowed, and then each family's
 * fallback is listed.
 */
#ifndef MCPP_KERNELS_DISPATCH_H
#define MCPP_KERNELS_DISPATCH_H

#include <stddef.h>

#include "device.h"
#include "gemm.h"
#include "moe.h"

typedef enum mcpp_kernel_family {
    MCPP_KERNEL_FAMILY_ATTENTION = 0, /* A */
    MCPP_KERNEL_FAMILY_MAMBA = 1,     /* M */
    MCPP_KERNEL_FAMILY_MOE = 2,       /* E */
    MCPP_KERNEL_FAMILY_RECURRENT = 3, /* R */
    MCPP_KERNEL_FAMILY_GEMM = 4,      /* projections, LM head */
    MCPP_KERNEL_FAMILY_COUNT = 5
} mcpp_kernel_family;

typedef enum mcpp_kernel_impl {
    MCPP_KERNEL_IMPL_CUDA = 0,
    MCPP_KERNEL_IMPL_CUBLAS = 1,
    MCPP_KERNEL_IMPL_CPU_BLAS = 2,
    MCPP_KERNEL_IMPL_CPU_BLOCKED = 3,
    MCPP_KERNEL_IMPL_REFERENCE = 4
} mcpp_kernel_impl;

typedef enum mcpp_kernel_backend { MCPP_KERNEL_BACKEND_CPU = 0, MCPP_KERNEL_BACKEND_CUDA = 1 } mcpp_kernel_backend;

/* The receipt's family key ("attention", "mamba", "moe", "recurrent", "gemm"). */
const char *mcpp_kernel_family_name(mcpp_kernel_family family);
/* "cuda", "cublas", "cpu_blas", "blocked", "reference". */
const char *mcpp_kernel_impl_name(mcpp_kernel_impl impl);

typedef struct mcpp_kernel_dispatch_request {
    mcpp_kernel_backend backend;
    mcpp_kernel_gemm_impl cpu_gemm; /* CPU GEMM wanted when running on the CPU          */
    mcpp_kernel_moe_lane moe_lane;
    int allow_fallback;
    int cuda_stack_available; /* 1 when the build can run the whole stack on CUDA */
} mcpp_kernel_dispatch_request;

#define MCPP_KERNEL_DISPATCH_MAX_FALLBACKS 8

typedef struct mcpp_kernel_dispatch {
    mcpp_kernel_backend requested_backend, observed_backend;
    mcpp_kernel_impl requested[MCPP_KERNEL_FAMILY_COUNT];
    mcpp_kernel_impl observed[MCPP_KERNEL_FAMILY_COUNT];
    mcpp_kernel_moe_lane moe_lane;
    mcpp_kernel_gemm_impl cpu_gemm; /* the GEMM the CPU path uses          */
    size_t fallback_count;
    char fallbacks[MCPP_KERNEL_DISPATCH_MAX_FALLBACKS][64];   /* "attention:cuda->reference" */
    char fallback_reason[256];                         /* why they fired, in words    */
} mcpp_kernel_dispatch;

/*
 * Resolves a request against the device. Returns MCPP_OK, or MCPP_EUNSUPPORTED
 * (with the reason as the last error) when CUDA was requested, cannot be used
 * and allow_fallback is 0.
 */
int mcpp_kernel_dispatch_resolve(mcpp_kernel_dispatch *out, const mcpp_kernel_dispatch_request *request,
                          const mcpp_kernel_device_info *device);

/* The string the receipt carries for backend.<family>.requested / .observed: the
 * MoE family reports its lane; the others their implementation. */
const char *mcpp_kernel_dispatch_requested_name(const mcpp_kernel_dispatch *d, mcpp_kernel_family family);
const char *mcpp_kernel_dispatch_observed_name(const mcpp_kernel_dispatch *d, mcpp_kernel_family family);

#endif /* MCPP_KERNELS_DISPATCH_H */
