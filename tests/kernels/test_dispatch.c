/*
 * test_dispatch.c — the backend dispatcher: requested vs observed per family,
 * CUDA without a device is an error unless fallback is allowed, and then every
 * family's fallback is recorded with its reason.
 */
#include <string.h>

#include "../test_util.h"
#include "mcpp_kernels/dispatch.h"
#include "mcpp_receipts.h"

static mcpp_kernel_device_info no_device(void)
{
    mcpp_kernel_device_info d;
    memset(&d, 0, sizeof d);
    d.compiled_with_cuda = 1;
    strcpy(d.reason, "cudaGetDeviceCount returned 0 devices");
    return d;
}

static mcpp_kernel_device_info one_device(void)
{
    mcpp_kernel_device_info d;
    memset(&d, 0, sizeof d);
    d.compiled_with_cuda = 1;
    d.device_count = 1;
    strcpy(d.name, "Test GPU");
    return d;
}

TEST(cpu_request_is_observed_as_requested_with_no_fallback)
{
    mcpp_kernel_device_info dev = no_device();
    mcpp_kernel_dispatch_request req = {MCPP_KERNEL_BACKEND_CPU, MCPP_KERNEL_GEMM_BLAS, MCPP_KERNEL_MOE_JAGGED, 0, 1};
    mcpp_kernel_dispatch d;
    CHECK_INT_EQ(mcpp_kernel_dispatch_resolve(&d, &req, &dev), MCPP_OK);
    CHECK_INT_EQ(d.fallback_count, 0);
    for (int f = 0; f < MCPP_KERNEL_FAMILY_COUNT; f++) CHECK_INT_EQ(d.requested[f], d.observed[f]);
    CHECK_STR_EQ(mcpp_kernel_dispatch_observed_name(&d, MCPP_KERNEL_FAMILY_GEMM), "cpu_blas");
    CHECK_STR_EQ(mcpp_kernel_dispatch_observed_name(&d, MCPP_KERNEL_FAMILY_ATTENTION), "reference");
    CHECK_STR_EQ(mcpp_kernel_dispatch_observed_name(&d, MCPP_KERNEL_FAMILY_MOE), "jagged");
}

TEST(cuda_without_a_device_is_an_error_naming_allow_fallback)
{
    mcpp_kernel_device_info dev = no_device();
    mcpp_kernel_dispatch_request req = {MCPP_KERNEL_BACKEND_CUDA, MCPP_KERNEL_GEMM_BLAS, MCPP_KERNEL_MOE_PADDED, 0, 1};
    mcpp_kernel_dispatch d;
    CHECK_INT_EQ(mcpp_kernel_dispatch_resolve(&d, &req, &dev), MCPP_EUNSUPPORTED);
    CHECK_CONTAINS(mcpp_error_last()->message, "--allow-fallback");
    CHECK_CONTAINS(mcpp_error_last()->message, "0 devices");
}

TEST(cuda_fallback_when_allowed_records_every_family_and_the_reason)
{
    mcpp_kernel_device_info dev = no_device();
    mcpp_kernel_dispatch_request req = {MCPP_KERNEL_BACKEND_CUDA, MCPP_KERNEL_GEMM_BLAS, MCPP_KERNEL_MOE_PADDED, 1, 1};
    mcpp_kernel_dispatch d;
    CHECK_INT_EQ(mcpp_kernel_dispatch_resolve(&d, &req, &dev), MCPP_OK);
    CHECK_INT_EQ(d.observed_backend, MCPP_KERNEL_BACKEND_CPU);
    CHECK_INT_EQ(d.fallback_count, 5);
    CHECK_STR_EQ(d.fallbacks[0], "attention:cuda->reference");
    CHECK_STR_EQ(d.fallbacks[2], "moe:cublas->cpu_blas");
    CHECK_STR_EQ(d.fallbacks[4], "gemm:cublas->cpu_blas");
    CHECK_CONTAINS(d.fallback_reason, "0 devices");
    CHECK_STR_EQ(mcpp_kernel_dispatch_requested_name(&d, MCPP_KERNEL_FAMILY_GEMM), "cublas");
    CHECK_STR_EQ(mcpp_kernel_dispatch_observed_name(&d, MCPP_KERNEL_FAMILY_GEMM), "cpu_blas");
}

TEST(cuda_with_a_device_is_observed_as_cuda_and_padded_moe_as_cublas)
{
    mcpp_kernel_device_info dev = one_device();
    mcpp_kernel_dispatch_request req = {MCPP_KERNEL_BACKEND_CUDA, MCPP_KERNEL_GEMM_BLAS, MCPP_KERNEL_MOE_PADDED, 0, 1};
    mcpp_kernel_dispatch d;
    CHECK_INT_EQ(mcpp_kernel_dispatch_resolve(&d, &req, &dev), MCPP_OK);
    CHECK_INT_EQ(d.observed_backend, MCPP_KERNEL_BACKEND_CUDA);
    CHECK_INT_EQ(d.fallback_count, 0);
    CHECK_INT_EQ(d.observed[MCPP_KERNEL_FAMILY_MOE], MCPP_KERNEL_IMPL_CUBLAS);
    req.moe_lane = MCPP_KERNEL_MOE_JAGGED;
    CHECK_INT_EQ(mcpp_kernel_dispatch_resolve(&d, &req, &dev), MCPP_OK);
    CHECK_INT_EQ(d.observed[MCPP_KERNEL_FAMILY_MOE], MCPP_KERNEL_IMPL_CUDA);
}

TEST(a_device_without_the_cuda_stack_in_the_build_still_falls_back_visibly)
{
    mcpp_kernel_device_info dev = one_device();
    mcpp_kernel_dispatch_request req = {MCPP_KERNEL_BACKEND_CUDA, MCPP_KERNEL_GEMM_BLOCKED, MCPP_KERNEL_MOE_JAGGED, 1, 0};
    mcpp_kernel_dispatch d;
    CHECK_INT_EQ(mcpp_kernel_dispatch_resolve(&d, &req, &dev), MCPP_OK);
    CHECK_INT_EQ(d.observed_backend, MCPP_KERNEL_BACKEND_CPU);
    CHECK_STR_EQ(d.fallbacks[4], "gemm:cublas->blocked");
    CHECK_CONTAINS(d.fallback_reason, "not available in this build");
}

TEST(device_query_of_this_build_gives_a_reason_when_there_is_no_device)
{
    mcpp_kernel_device_info dev;
    mcpp_kernel_device_query(&dev);
    if (dev.device_count == 0) CHECK(strlen(dev.reason) > 0);
    else CHECK(strlen(dev.name) > 0);
}

int main(void)
{
    RUN(cpu_request_is_observed_as_requested_with_no_fallback);
    RUN(cuda_without_a_device_is_an_error_naming_allow_fallback);
    RUN(cuda_fallback_when_allowed_records_every_family_and_the_reason);
    RUN(cuda_with_a_device_is_observed_as_cuda_and_padded_moe_as_cublas);
    RUN(a_device_without_the_cuda_stack_in_the_build_still_falls_back_visibly);
    RUN(device_query_of_this_build_gives_a_reason_when_there_is_no_device);
    TEST_MAIN_END();
}
