/*
 * store_add_rows.c — the rows of an add, prepared ahead: the stored columns of
 * a receipt (canonical JSON, lane key, label, image, metric, both compressed)
 * cost more CPU than SQLite's insert of them, so worker threads fill the next
 * chunk of rows while the caller's thread inserts the current one, and the
 * caller's thread then fills what they have not reached. Rows reach the
 * caller in input order, so the add's outcome (which id conflicts first, the
 * counts) is the same as a sequential add.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error_internal.h"
#include "store/store_internal.h"

#define CHUNK_ROWS 1024
#define UNIT_ROWS 32 /* rows a thread claims at a time */
#define UNITS (CHUNK_ROWS / UNIT_ROWS)
#define MAX_WORKERS 8
#define ROWS_PER_WORKER_MIN 128

/* One chunk of rows: its units are claimed by the workers and, once the
 * caller's thread has inserted the chunk before, by the caller's thread
 * too (since rows are compressed, filling one costs more than inserting it:
 * the caller waiting for one worker left a core idle). */
typedef struct chunk {
    mcpp_store_row rows[CHUNK_ROWS];
    const mcpp_receipt *const *receipts; /* of the whole add */
    const char *metric;
    const mcpp_store_codec *codec;
    size_t first, n;
    atomic_size_t next_unit;
    int unit_rc[UNITS]; /* non-zero: receipt unit_failed_at did not fill (rows before it in the unit did) */
    size_t unit_failed_at[UNITS];
    pthread_t threads[MAX_WORKERS];
    int started[MAX_WORKERS];
    size_t n_workers;
} chunk;

/* Fills unit u of the chunk; on failure clears the rows it filled. */
static void fill_unit(chunk *c, size_t u, mcpp_store_zctx *z)
{
    size_t from = u * UNIT_ROWS, to = from + UNIT_ROWS < c->n ? from + UNIT_ROWS : c->n;
    c->unit_rc[u] = MCPP_OK;
    for (size_t i = from; i < to; i++) {
        int rc = z ? mcpp_store_row_fill(&c->rows[i], c->receipts[c->first + i], c->metric, c->codec, z) : MCPP_ENOMEM;
        if (rc) {
            c->unit_rc[u] = rc;
            c->unit_failed_at[u] = c->first + i;
            for (size_t k = from; k < i; k++) mcpp_store_row_clear(&c->rows[k]);
            return;
        }
    }
}

/* Claims and fills units until none is left. */
static void fill_claimed(chunk *c, mcpp_store_zctx *z)
{
    size_t units = (c->n + UNIT_ROWS - 1) / UNIT_ROWS;
    for (size_t u; (u = atomic_fetch_add(&c->next_unit, 1)) < units;) fill_unit(c, u, z);
}

static void *fill_thread(void *arg)
{
    mcpp_store_zctx *z = mcpp_store_zctx_new(); /* NULL: each unit fails with ENOMEM, raised again below */
    fill_claimed(arg, z);
    mcpp_store_zctx_free(z);
    return NULL;
}

static size_t worker_count(size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* one core fewer than there are: the caller's thread inserts, then
     * helps fill what the workers have not reached */
    size_t w = cpus > 2 ? (size_t)cpus - 1 : 1;
    if (w > MAX_WORKERS) w = MAX_WORKERS;
    size_t by_work = n / ROWS_PER_WORKER_MIN;
    return w < by_work ? w : by_work;
}

/* Starts filling receipts [first, first + n) into c on workers (none for a
 * few rows: a thread would cost more than they do; the caller fills them). */
static void chunk_start(chunk *c, const mcpp_receipt *const *receipts, size_t first, size_t n, const char *metric,
                        const mcpp_store_codec *codec)
{
    c->receipts = receipts;
    c->metric = metric;
    c->codec = codec;
    c->first = first;
    c->n = n;
    atomic_store(&c->next_unit, 0);
    c->n_workers = worker_count(n);
    for (size_t w = 0; w < c->n_workers; w++)
        c->started[w] = pthread_create(&c->threads[w], NULL, fill_thread, c) == 0;
}

/* Fills what is left on this thread and joins the workers; the index of
 * the first unit that failed, or -1. */
static int chunk_join(chunk *c, mcpp_store_zctx *z)
{
    fill_claimed(c, z);
    for (size_t w = 0; w < c->n_workers; w++) {
        if (c->started[w]) pthread_join(c->threads[w], NULL);
        c->started[w] = 0;
    }
    size_t units = (c->n + UNIT_ROWS - 1) / UNIT_ROWS;
    for (size_t u = 0; u < units; u++)
        if (c->unit_rc[u]) return (int)u;
    return -1;
}

/* Drops the rows of the units that filled (a failed unit kept none). */
static void chunk_drop(chunk *c)
{
    size_t units = (c->n + UNIT_ROWS - 1) / UNIT_ROWS;
    for (size_t u = 0; u < units; u++) {
        if (c->unit_rc[u]) continue;
        size_t from = u * UNIT_ROWS, to = from + UNIT_ROWS < c->n ? from + UNIT_ROWS : c->n;
        for (size_t i = from; i < to; i++) mcpp_store_row_clear(&c->rows[i]);
    }
    c->n = 0;
}

/* Waits for the chunk: MCPP_OK with every row filled, or the first failure's
 * status with its error raised again on this thread (errors are
 * thread-local; filling is deterministic) and no row left filled. */
static int chunk_wait(chunk *c, mcpp_store_zctx *z)
{
    int failed = chunk_join(c, z);
    if (failed < 0) return MCPP_OK;
    int first_rc = c->unit_rc[failed];
    size_t at = c->unit_failed_at[failed];
    chunk_drop(c);
    mcpp_store_row again;
    int rc = z ? mcpp_store_row_fill(&again, c->receipts[at], c->metric, c->codec, z) : mcpp_error_nomem();
    if (!rc) mcpp_store_row_clear(&again);
    return rc ? rc : first_rc;
}

int mcpp_store_rows_each(const mcpp_receipt *const *receipts, size_t n, const char *metric,
                         const mcpp_store_codec *codec, int (*each)(void *ctx, const mcpp_store_row *row, size_t index), void *ctx)
{
    chunk *c[2] = {calloc(1, sizeof(chunk)), calloc(1, sizeof(chunk))};
    mcpp_store_zctx *z = mcpp_store_zctx_new(); /* the caller's thread's */
    if (!c[0] || !c[1] || !z) {
        free(c[0]);
        free(c[1]);
        mcpp_store_zctx_free(z);
        return mcpp_error_nomem();
    }
    int rc = MCPP_OK, k = 0;
    if (n) chunk_start(c[0], receipts, 0, n < CHUNK_ROWS ? n : CHUNK_ROWS, metric, codec);
    for (size_t first = 0; first < n && !rc; k ^= 1) {
        if ((rc = chunk_wait(c[k], z))) break;
        size_t next = first + c[k]->n;
        if (next < n) chunk_start(c[k ^ 1], receipts, next, n - next < CHUNK_ROWS ? n - next : CHUNK_ROWS, metric, codec);
        for (size_t i = 0; !rc && i < c[k]->n; i++) rc = each(ctx, &c[k]->rows[i], first + i);
        chunk_drop(c[k]);
        if (rc && next < n) {
            chunk_join(c[k ^ 1], z); /* keep this failure's error, not one of the next chunk */
            chunk_drop(c[k ^ 1]);
        }
        first = next;
    }
    free(c[0]);
    free(c[1]);
    mcpp_store_zctx_free(z);
    return rc;
}
