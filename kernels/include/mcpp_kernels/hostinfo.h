/*
 * mcpp_kernels/hostinfo.h — what the host is, as the OS reports it
 * (for hardware.host.* and, on the CPU path, hardware.observed.*).
 */
#ifndef MCPP_KERNELS_HOSTINFO_H
#define MCPP_KERNELS_HOSTINFO_H

#include <stddef.h>

typedef struct mcpp_kernel_host_info {
    char cpu[256];   /* "model name" from /proc/cpuinfo, or "unknown" */
    int cores;       /* online logical CPUs                           */
    char host[256];  /* host name                                     */
    double memory_gib;
} mcpp_kernel_host_info;

void mcpp_kernel_host_query(mcpp_kernel_host_info *out);

#endif /* MCPP_KERNELS_HOSTINFO_H */
