/*
 * dispatch.c — resolving requested backends into observed ones, per family,
 * and recording every fallback (see mcpp_kernels/dispatch.h).
 */
#include <stdio.h>
#include <string.h>

#include "kernel_error.h"
#include "mcpp_kernels/dispatch.h"

static const char *const family_names[MCPP_KERNEL_FAMILY_COUNT] = {"attention", "mamba", "moe",
                                                            "recurrent", "gemm"};
static const char *const impl_names[] = {"cuda", "cublas", "cpu_blas", "blocked", "reference"};

const char *mcpp_kernel_family_name(mcpp_kernel_family family) { return family_names[family]; }
const char *mcpp_kernel_impl_name(mcpp_kernel_impl impl) { return impl_names[impl]; }

static mcpp_kernel_impl dispatch_cpu_gemm_impl(mcpp_kernel_gemm_impl g)
{
    switch (g) {
    case MCPP_KERNEL_GEMM_BLAS: return MCPP_KERNEL_IMPL_CPU_BLAS;
    case MCPP_KERNEL_GEMM_BLOCKED: return MCPP_KERNEL_IMPL_CPU_BLOCKED;
    default: return MCPP_KERNEL_IMPL_REFERENCE;
    }
}

static void dispatch_set_cpu(mcpp_kernel_impl *impl, mcpp_kernel_gemm_impl gemm)
{
    /* On the CPU the block kernels (attention, scan, recurrence) are the C
     * reference; the projections and the expert GEMMs use the chosen GEMM. */
    impl[MCPP_KERNEL_FAMILY_ATTENTION] = MCPP_KERNEL_IMPL_REFERENCE;
    impl[MCPP_KERNEL_FAMILY_MAMBA] = MCPP_KERNEL_IMPL_REFERENCE;
    impl[MCPP_KERNEL_FAMILY_RECURRENT] = MCPP_KERNEL_IMPL_REFERENCE;
    impl[MCPP_KERNEL_FAMILY_MOE] = dispatch_cpu_gemm_impl(gemm);
    impl[MCPP_KERNEL_FAMILY_GEMM] = dispatch_cpu_gemm_impl(gemm);
}

static void dispatch_set_cuda(mcpp_kernel_impl *impl, mcpp_kernel_moe_lane lane)
{
    impl[MCPP_KERNEL_FAMILY_ATTENTION] = MCPP_KERNEL_IMPL_CUDA;
    impl[MCPP_KERNEL_FAMILY_MAMBA] = MCPP_KERNEL_IMPL_CUDA;
    impl[MCPP_KERNEL_FAMILY_RECURRENT] = MCPP_KERNEL_IMPL_CUDA;
    /* Padded MoE is cuBLAS strided-batched GEMM; jagged/block-sparse are our kernels. */
    impl[MCPP_KERNEL_FAMILY_MOE] = lane == MCPP_KERNEL_MOE_PADDED ? MCPP_KERNEL_IMPL_CUBLAS : MCPP_KERNEL_IMPL_CUDA;
    impl[MCPP_KERNEL_FAMILY_GEMM] = MCPP_KERNEL_IMPL_CUBLAS;
}

int mcpp_kernel_dispatch_resolve(mcpp_kernel_dispatch *out, const mcpp_kernel_dispatch_request *request,
                          const mcpp_kernel_device_info *device)
{
    memset(out, 0, sizeof *out);
    out->requested_backend = request->backend;
    out->moe_lane = request->moe_lane;
    out->cpu_gemm = request->cpu_gemm;

    if (request->backend == MCPP_KERNEL_BACKEND_CPU) {
        out->observed_backend = MCPP_KERNEL_BACKEND_CPU;
        dispatch_set_cpu(out->requested, request->cpu_gemm);
        dispatch_set_cpu(out->observed, request->cpu_gemm);
        return MCPP_OK;
    }

    dispatch_set_cuda(out->requested, request->moe_lane);
    const char *why = NULL;
    char buf[256];
    if (!device->compiled_with_cuda || device->device_count <= 0) {
        snprintf(buf, sizeof buf, "no usable CUDA device: %.200s",
                 device->reason[0] ? device->reason : "device count is 0");
        why = buf;
    } else if (!request->cuda_stack_available) {
        why = "the CUDA stack path is not available in this build";
    }
    if (!why) {
        out->observed_backend = MCPP_KERNEL_BACKEND_CUDA;
        dispatch_set_cuda(out->observed, request->moe_lane);
        return MCPP_OK;
    }
    if (!request->allow_fallback)
        return mcpp_kernel_error(MCPP_EUNSUPPORTED, MCPP_ERROR_KIND_UNSUPPORTED, NULL, "backend", 0,
                              "--backend cuda requested but %s (pass --allow-fallback to run "
                              "on the CPU and record the fallback)",
                              why);

    out->observed_backend = MCPP_KERNEL_BACKEND_CPU;
    dispatch_set_cpu(out->observed, request->cpu_gemm);
    snprintf(out->fallback_reason, sizeof out->fallback_reason, "%s", why);
    for (int f = 0; f < MCPP_KERNEL_FAMILY_COUNT; f++) {
        if (out->fallback_count >= MCPP_KERNEL_DISPATCH_MAX_FALLBACKS) break;
        snprintf(out->fallbacks[out->fallback_count++], sizeof out->fallbacks[0], "%s:%s->%s",
                 family_names[f], impl_names[out->requested[f]], impl_names[out->observed[f]]);
    }
    return MCPP_OK;
}

const char *mcpp_kernel_dispatch_requested_name(const mcpp_kernel_dispatch *d, mcpp_kernel_family family)
{
    if (family == MCPP_KERNEL_FAMILY_MOE) return mcpp_kernel_moe_lane_name(d->moe_lane);
    return impl_names[d->requested[family]];
}

const char *mcpp_kernel_dispatch_observed_name(const mcpp_kernel_dispatch *d, mcpp_kernel_family family)
{
    if (family == MCPP_KERNEL_FAMILY_MOE) return mcpp_kernel_moe_lane_name(d->moe_lane);
    return impl_names[d->observed[family]];
}
