/*
 * parallel.h — splitting [0, n) over threads: how many threads are worth
 * starting, and running one function over the ranges with the caller's
 * thread taking the first. Used where each item's work is independent and
 * read-only (parsing stored rows, a frontier's per-receipt prepass).
 */
#ifndef MCPP_UTIL_PARALLEL_H
#define MCPP_UTIL_PARALLEL_H

#include <stddef.h>

enum { MCPP_PARALLEL_MAX_THREADS = 8 };

/* Threads for n items: the online cores, at most `max` (and at most
 * MCPP_PARALLEL_MAX_THREADS), with at least `min_per_thread` items each;
 * always >= 1. */
size_t mcpp_parallel_threads(size_t n, size_t max, size_t min_per_thread);

/* Calls fn(ctx, from, to) for `threads` consecutive ranges of [0, n): the
 * first on the caller's thread, the others on new threads (on the caller's
 * thread when one cannot be started); returns when all are done. */
void mcpp_parallel_ranges(size_t n, size_t threads, void (*fn)(void *ctx, size_t from, size_t to), void *ctx);

#endif /* MCPP_UTIL_PARALLEL_H */
