/*
 * store_add_rows.c — the rows of an add, prepared ahead: the stored columns of
 * a receipt (canonical JSON, lane key, label, image, metric) cost CPU of the
 * order of SQLite's insert of them, so worker threads fill the next chunk of rows while
 * the caller's thread inserts the current one. Rows reach the caller in input
 * order, so the add's outcome (which id conflicts first, the counts) is the
 * same as a sequential add.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error_internal.h"
#include "store/store_internal.h"

#define CHUNK_ROWS 1024
#define MAX_WORKERS 8
#define ROWS_PER_WORKER_MIN 128

typedef struct fill_range {
    const mcpp_receipt *const *receipts; /* of the whole add      */
    mcpp_store_row *rows;                /* rows[i - first]       */
    size_t first, from, to;              /* receipts [from, to)   */
    const char *metric;
    const mcpp_store_codec *codec;
    int rc; /* non-zero: receipt failed_at did not fill (rows before it did) */
    size_t failed_at;
} fill_range;

typedef struct chunk {
    mcpp_store_row rows[CHUNK_ROWS];
    size_t first, n;
    fill_range ranges[MAX_WORKERS];
    pthread_t threads[MAX_WORKERS];
    int started[MAX_WORKERS];
    size_t n_ranges;
} chunk;

static void *fill(void *arg)
{
    fill_range *f = arg;
    f->rc = MCPP_OK;
    mcpp_store_zctx *z = mcpp_store_zctx_new();
    if (!z) {
        f->rc = MCPP_ENOMEM;
        f->failed_at = f->from;
        return NULL;
    }
    for (size_t i = f->from; i < f->to; i++) {
        if ((f->rc = mcpp_store_row_fill(&f->rows[i - f->first], f->receipts[i], f->metric, f->codec, z))) {
            f->failed_at = i;
            for (size_t k = f->from; k < i; k++) mcpp_store_row_clear(&f->rows[k - f->first]);
            break;
        }
    }
    mcpp_store_zctx_free(z);
    return NULL;
}

static size_t worker_count(size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* one core fewer than there are: the caller's thread inserting the rows
     * is the add's critical path (since JSON numbers are written without
     * printf, filling a row costs less than inserting it), so it keeps a core;
     * on 2 cores, two workers beside it made the insert 10-40% slower */
    size_t w = cpus > 2 ? (size_t)cpus - 1 : 1;
    if (w > MAX_WORKERS) w = MAX_WORKERS;
    size_t by_work = n / ROWS_PER_WORKER_MIN;
    return by_work < 1 ? 1 : (w < by_work ? w : by_work);
}

/* Starts filling receipts [first, first + n) into c (on the caller's thread
 * when a thread cannot be started). */
static void chunk_start(chunk *c, const mcpp_receipt *const *receipts, size_t first, size_t n, const char *metric,
                        const mcpp_store_codec *codec)
{
    c->first = first;
    c->n = n;
    c->n_ranges = worker_count(n);
    for (size_t w = 0; w < c->n_ranges; w++) {
        fill_range *f = &c->ranges[w];
        *f = (fill_range){receipts, c->rows, first, first + n * w / c->n_ranges, first + n * (w + 1) / c->n_ranges,
                          metric, codec, MCPP_OK, 0};
        /* a few rows are filled here: a thread would cost more than they do */
        c->started[w] = n >= ROWS_PER_WORKER_MIN && pthread_create(&c->threads[w], NULL, fill, f) == 0;
        if (!c->started[w]) fill(f);
    }
}

/* Joins the chunk's workers; the index of the first range that failed, or -1. */
static int chunk_join(chunk *c)
{
    int failed = -1;
    for (size_t w = 0; w < c->n_ranges; w++) {
        if (c->started[w]) pthread_join(c->threads[w], NULL);
        c->started[w] = 0;
        if (failed < 0 && c->ranges[w].rc) failed = (int)w;
    }
    return failed;
}

/* Drops the rows of the ranges that filled (a failed range kept none). */
static void chunk_drop(chunk *c)
{
    for (size_t w = 0; w < c->n_ranges; w++)
        if (!c->ranges[w].rc)
            for (size_t i = c->ranges[w].from; i < c->ranges[w].to; i++) mcpp_store_row_clear(&c->rows[i - c->first]);
    c->n = 0;
}

/* Waits for the chunk: MCPP_OK with every row filled, or the first failure's
 * status with its error raised again on this thread (errors are
 * thread-local; filling is deterministic) and no row left filled. */
static int chunk_wait(chunk *c)
{
    int failed = chunk_join(c);
    if (failed < 0) return MCPP_OK;
    chunk_drop(c);
    const fill_range *f = &c->ranges[failed];
    mcpp_store_row again;
    mcpp_store_zctx *z = mcpp_store_zctx_new();
    int rc = z ? mcpp_store_row_fill(&again, f->receipts[f->failed_at], f->metric, f->codec, z) : mcpp_error_nomem();
    mcpp_store_zctx_free(z);
    if (!rc) mcpp_store_row_clear(&again);
    return rc ? rc : f->rc;
}

int mcpp_store_rows_each(const mcpp_receipt *const *receipts, size_t n, const char *metric,
                         const mcpp_store_codec *codec, int (*each)(void *ctx, const mcpp_store_row *row, size_t index), void *ctx)
{
    chunk *c[2] = {calloc(1, sizeof(chunk)), calloc(1, sizeof(chunk))};
    if (!c[0] || !c[1]) {
        free(c[0]);
        free(c[1]);
        return mcpp_error_nomem();
    }
    int rc = MCPP_OK, k = 0;
    if (n) chunk_start(c[0], receipts, 0, n < CHUNK_ROWS ? n : CHUNK_ROWS, metric, codec);
    for (size_t first = 0; first < n && !rc; k ^= 1) {
        if ((rc = chunk_wait(c[k]))) break;
        size_t next = first + c[k]->n;
        if (next < n) chunk_start(c[k ^ 1], receipts, next, n - next < CHUNK_ROWS ? n - next : CHUNK_ROWS, metric, codec);
        for (size_t i = 0; !rc && i < c[k]->n; i++) rc = each(ctx, &c[k]->rows[i], first + i);
        chunk_drop(c[k]);
        if (rc && next < n) {
            chunk_join(c[k ^ 1]); /* keep this failure's error, not one of the next chunk */
            chunk_drop(c[k ^ 1]);
        }
        first = next;
    }
    free(c[0]);
    free(c[1]);
    return rc;
}
