/*
 * mcpp_kernels/cuda_stack.h — the hybrid stack on a CUDA device (bf16 storage,
 * fp32 accumulation), mirroring mcpp_kernels/stack.h.
 *
 * Parameters are copied from a host stack built with the same configuration,
 * so the CPU reference can verify the device's output on the same weights.
 * Only available in builds with MCPP_HAVE_CUDA; every call needs a device.
 */
#ifndef MCPP_KERNELS_CUDA_STACK_H
#define MCPP_KERNELS_CUDA_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "moe.h"
#include "stack.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcpp_kernel_cuda_stack mcpp_kernel_cuda_stack;

/* Uploads the host stack's parameters (as bf16) and allocates activations. */
int mcpp_kernel_cuda_stack_new(mcpp_kernel_cuda_stack **out, const mcpp_kernel_stack *host, mcpp_kernel_moe_lane lane);
void mcpp_kernel_cuda_stack_free(mcpp_kernel_cuda_stack *stack); /* NULL-safe */

/* One forward pass; synchronous. Per-family time comes from CUDA events around
 * NVTX ranges named after the family; MoE row counts as on the CPU. */
int mcpp_kernel_cuda_stack_forward(mcpp_kernel_cuda_stack *stack, const int32_t *tokens, mcpp_kernel_stack_stats *stats);

/* Copies the last logits to the host as fp32, [batch*seq_len, vocab]. */
int mcpp_kernel_cuda_stack_logits(const mcpp_kernel_cuda_stack *stack, float *out);

/* High-water mark of device memory this stack allocated, in bytes. */
size_t mcpp_kernel_cuda_stack_peak_bytes(const mcpp_kernel_cuda_stack *stack);

/* cudaProfilerStart / cudaProfilerStop, for a bounded capture window. */
void mcpp_kernel_cuda_profiler_start(void);
void mcpp_kernel_cuda_profiler_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_KERNELS_CUDA_STACK_H */
