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

typedef enum mcpp_family {
    MCPP_FAMILY_ATTENTION = 0, /* A */
    MCPP_FAMILY_MAMBA = 1,     /* M */
    MCPP_FAMILY_MOE = 2,       /* E */
    MCPP_FAMILY_RECURRENT = 3, /* R */
    MCPP_FAMILY_GEMM = 4,      /* projections, LM head */
    MCPP_FAMILY_COUNT = 5
} mcpp_family;

typedef enum mcpp_impl {
    MCPP_IMPL_CUDA = 0,
    MCPP_IMPL_CUBLAS = 1,
    MCPP_IMPL_CPU_BLAS = 2,
    MCPP_IMPL_CPU_BLOCKED = 3,
    MCPP_IMPL_REFERENCE = 4
} mcpp_impl;

typedef enum mcpp_backend { MCPP_BACKEND_CPU = 0, MCPP_BACKEND_CUDA = 1 } mcpp_backend;

/* The receipt's family key ("attention", "mamba", "moe", "recurrent", "gemm"). */
const char *mcpp_family_name(mcpp_family family);
/* "cuda", "cublas", "cpu_blas", "blocked", "reference". */
const char *mcpp_impl_name(mcpp_impl impl);

typedef struct mcpp_dispatch_request {
    mcpp_backend backend;
    mcpp_gemm_impl cpu_gemm; /* CPU GEMM wanted when running on the CPU          */
    mcpp_moe_lane moe_lane;
    int allow_fallback;
    int cuda_stack_available; /* 1 when the build can run the whole stack on CUDA */
} mcpp_dispatch_request;

#define MCPP_DISPATCH_MAX_FALLBACKS 8

typedef struct mcpp_dispatch {
    mcpp_backend requested_backend, observed_backend;
    mcpp_impl requested[MCPP_FAMILY_COUNT];
    mcpp_impl observed[MCPP_FAMILY_COUNT];
    mcpp_moe_lane moe_lane;
    mcpp_gemm_impl cpu_gemm; /* the GEMM the CPU path uses          */
    size_t fallback_count;
    char fallbacks[MCPP_DISPATCH_MAX_FALLBACKS][64];   /* "attention:cuda->reference" */
    char fallback_reason[256];                         /* why they fired, in words    */
} mcpp_dispatch;

/*
 * Resolves a request against the device. Returns MCPP_OK, or MCPP_EUNSUPPORTED
 * (with the reason as the last error) when CUDA was requested, cannot be used
 * and allow_fallback is 0.
 */
int mcpp_dispatch_resolve(mcpp_dispatch *out, const mcpp_dispatch_request *request,
                          const mcpp_device_info *device);

/* The string the receipt carries for backend.<family>.requested / .observed: the
 * MoE family reports its lane; the others their implementation. */
const char *mcpp_dispatch_requested_name(const mcpp_dispatch *d, mcpp_family family);
const char *mcpp_dispatch_observed_name(const mcpp_dispatch *d, mcpp_family family);

#endif /* MCPP_KERNELS_DISPATCH_H */
