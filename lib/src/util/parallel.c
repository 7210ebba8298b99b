/*
 * parallel.c — see parallel.h.
 */
#include <pthread.h>
#include <unistd.h>

#include "util/parallel.h"

size_t mcpp_parallel_threads(size_t n, size_t max, size_t min_per_thread)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = cpus > 1 ? (size_t)cpus : 1;
    if (max > MCPP_PARALLEL_MAX_THREADS) max = MCPP_PARALLEL_MAX_THREADS;
    if (t > max) t = max;
    size_t by_work = min_per_thread ? n / min_per_thread : n;
    if (t > by_work) t = by_work;
    return t ? t : 1;
}

typedef struct range_job {
    void (*fn)(void *ctx, size_t from, size_t to);
    void *ctx;
    size_t from, to;
} range_job;

static void *run_job(void *arg)
{
    range_job *j = arg;
    j->fn(j->ctx, j->from, j->to);
    return NULL;
}

void mcpp_parallel_ranges(size_t n, size_t threads, void (*fn)(void *ctx, size_t from, size_t to), void *ctx)
{
    if (threads > MCPP_PARALLEL_MAX_THREADS) threads = MCPP_PARALLEL_MAX_THREADS;
    if (threads < 1) threads = 1;
    range_job jobs[MCPP_PARALLEL_MAX_THREADS];
    pthread_t ids[MCPP_PARALLEL_MAX_THREADS];
    int started[MCPP_PARALLEL_MAX_THREADS] = {0};
    for (size_t t = 0; t < threads; t++) {
        jobs[t] = (range_job){fn, ctx, n * t / threads, n * (t + 1) / threads};
        if (t > 0) started[t] = pthread_create(&ids[t], NULL, run_job, &jobs[t]) == 0;
    }
    run_job(&jobs[0]);
    for (size_t t = 1; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        else run_job(&jobs[t]);
    }
}
