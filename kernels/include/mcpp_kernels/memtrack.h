/*
 * mcpp_kernels/memtrack.h — tracked host allocations, so the step runner can
 * report peak memory on the CPU path from what it actually allocated.
 *
 * A tracker is a plain struct owned by the caller (no global state); every
 * buffer of a run is taken from it and given back to it, and the tracker keeps
 * the current and the high-water byte counts.
 */
#ifndef MCPP_KERNELS_MEMTRACK_H
#define MCPP_KERNELS_MEMTRACK_H

#include <stddef.h>

typedef struct mcpp_kernel_kmem {
    size_t current_bytes; /* bytes handed out and not yet given back */
    size_t peak_bytes;    /* high-water mark of current_bytes        */
    size_t allocations;   /* number of successful allocations        */
} mcpp_kernel_kmem;

/* A zeroed array of count*size bytes counted against `mem`; NULL when the size
 * overflows or memory runs out (the last error is set). */
void *mcpp_kernel_kmem_alloc(mcpp_kernel_kmem *mem, size_t count, size_t size);

/* Gives a buffer back; NULL is a no-op. */
void mcpp_kernel_kmem_free(mcpp_kernel_kmem *mem, void *ptr);

#endif /* MCPP_KERNELS_MEMTRACK_H */
