/*
 * memtrack.c — tracked host allocations (see mcpp_kernels/memtrack.h).
 *
 * Each buffer carries a small header with its size so that freeing it can
 * lower the current count; the header is 64 bytes so data stays aligned for
 * vector loads.
 */
#include <stdint.h>
#include <stdlib.h>

#include "kernel_error.h"
#include "mcpp_kernels/memtrack.h"

#define MCPP_KMEM_HEADER 64

void *mcpp_kernel_kmem_alloc(mcpp_kernel_kmem *mem, size_t count, size_t size)
{
    if (size != 0 && count > (SIZE_MAX - MCPP_KMEM_HEADER) / size) {
        mcpp_kernel_error(MCPP_ELIMIT, MCPP_ERROR_KIND_LIMIT, NULL, NULL, 0,
                       "allocation of %zu x %zu bytes overflows", count, size);
        return NULL;
    }
    size_t bytes = count * size;
    unsigned char *base = calloc(1, bytes + MCPP_KMEM_HEADER);
    if (!base) {
        mcpp_kernel_error_nomem();
        return NULL;
    }
    *(size_t *)base = bytes;
    mem->current_bytes += bytes;
    mem->allocations++;
    if (mem->current_bytes > mem->peak_bytes) mem->peak_bytes = mem->current_bytes;
    return base + MCPP_KMEM_HEADER;
}

void mcpp_kernel_kmem_free(mcpp_kernel_kmem *mem, void *ptr)
{
    if (!ptr) return;
    unsigned char *base = (unsigned char *)ptr - MCPP_KMEM_HEADER;
    size_t bytes = *(size_t *)base;
    mem->current_bytes -= bytes;
    free(base);
}
