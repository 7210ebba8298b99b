/*
 * mcpp_kernels/device.h — what the CUDA runtime reports about the machine.
 *
 * Implemented by the CUDA target when the build has CUDA (kernels/cuda/), and
 * by a stub that reports "built without CUDA" otherwise, so the dispatcher and
 * the step runner have one code path.
 */
#ifndef MCPP_KERNELS_DEVICE_H
#define MCPP_KERNELS_DEVICE_H

#include <stddef.h>

typedef struct mcpp_kernel_device_info {
    int compiled_with_cuda; /* 1 when this build has the CUDA kernels              */
    int device_count;       /* from cudaGetDeviceCount; 0 on failure                */
    char name[256];         /* device 0, as the runtime names it                    */
    double memory_gib;      /* device 0 global memory                               */
    char driver[32];        /* driver API version, e.g. "13.0"                      */
    char runtime[32];       /* runtime version                                      */
    char reason[256];       /* why no device is usable, when device_count == 0      */
} mcpp_kernel_device_info;

/* Fills *out; never fails (a failing runtime is reported through reason). */
void mcpp_kernel_device_query(mcpp_kernel_device_info *out);

#endif /* MCPP_KERNELS_DEVICE_H */
