/*
 * device_stub.c — mcpp_kernel_device_query for builds without CUDA: reports no
 * device and says why, so the dispatcher can fail or fall back clearly.
 */
#include <stdio.h>
#include <string.h>

#include "mcpp_kernels/device.h"

void mcpp_kernel_device_query(mcpp_kernel_device_info *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->reason, sizeof out->reason, "this build has no CUDA (configured with MCPP_CUDA=OFF)");
}
