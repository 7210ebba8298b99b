/*
 * store_add_rows.c — the rows of an add, prepared ahead: the stored columns of
 * a receipt (canonical JSON, lane key, label, image, metric, both compressed)
 * cost more CPU than SQLite's insert of them, so worker threads fill rows
 * ahead of the caller's thread, which inserts them in input order and fills
 * rows itself whenever the next one to insert is not ready. Rows reach the
 * caller in input order, so the add's outcome (which id conflicts first, the
 * counts) is the same as a sequential add.
 *
 * The rows live in a sliding window of WINDOW_UNITS units of UNIT_ROWS rows:
 * a unit is claimed by whichever thread is free (workers and the caller's
 * thread alike) and its slot is reused once the caller has inserted it. The
 * workers live for the whole add. (Before, the rows were filled in chunks of
 * 1,024 with new threads per chunk; at each chunk's end one thread waited for
 * the other, and on 2 cores each was busy only ~80% of the time: perf, 10^5
 * receipts.)
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error_internal.h"
#include "store/store_internal.h"

#define UNIT_ROWS 32 /* rows a thread claims at a time */
#define WINDOW_UNITS 128 /* units filled ahead at most: 4,096 rows, ~20 MB */
#define MAX_WORKERS 8
#define ROWS_PER_WORKER_MIN 128

typedef struct unit_slot {
    int ready; /* 1 from its unit's fill to its release; under the pipeline's mutex */
    int rc; /* non-zero: receipt failed_at did not fill (the rows before it did) */
    size_t failed_at;
} unit_slot;

typedef struct pipeline {
    const mcpp_receipt *const *receipts;
    size_t n, units;
    const char *metric;
    const mcpp_store_codec *codec;
    mcpp_store_row rows[WINDOW_UNITS * UNIT_ROWS]; /* row i in slot i % (WINDOW_UNITS * UNIT_ROWS) */
    unit_slot slots[WINDOW_UNITS]; /* unit u in slot u % WINDOW_UNITS */
    size_t next_unit; /* the next unit to claim */
    size_t inserted_units; /* units before this one are inserted and their rows cleared */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t filled, freed;
    pthread_t threads[MAX_WORKERS];
    size_t n_workers;
} pipeline;

static size_t unit_end(const pipeline *p, size_t u) { return (u + 1) * UNIT_ROWS < p->n ? (u + 1) * UNIT_ROWS : p->n; }

static mcpp_store_row *row_at(pipeline *p, size_t i) { return &p->rows[i % (WINDOW_UNITS * UNIT_ROWS)]; }

/* What one filling thread keeps: its compression context (NULL when it
 * could not be made) and its recent lane keys. */
typedef struct filler {
    mcpp_store_zctx *z;
    mcpp_store_lane_memo memo;
} filler;

static filler *filler_new(void)
{
    filler *f = calloc(1, sizeof *f);
    if (f) f->z = mcpp_store_zctx_new();
    return f;
}

static void filler_free(filler *f)
{
    if (!f) return;
    mcpp_store_zctx_free(f->z);
    mcpp_store_lane_memo_clear(&f->memo);
    free(f);
}

/* Fills the rows of unit u; a failure keeps the rows before it. */
static void fill_unit(pipeline *p, size_t u, filler *f)
{
    unit_slot *slot = &p->slots[u % WINDOW_UNITS];
    for (size_t i = u * UNIT_ROWS; i < unit_end(p, u); i++) {
        int rc = f && f->z ? mcpp_store_row_fill(row_at(p, i), p->receipts[i], p->metric, p->codec, f->z, &f->memo, 0)
                           : mcpp_error_nomem();
        if (rc) {
            slot->rc = rc;
            slot->failed_at = i;
            return;
        }
    }
}

/* With the mutex held: claims the next unit when the window has room and
 * fills it with the mutex released; 0 when there was none to claim. */
static int claim_and_fill(pipeline *p, filler *f)
{
    if (p->stop || p->next_unit >= p->units || p->next_unit >= p->inserted_units + WINDOW_UNITS) return 0;
    size_t u = p->next_unit++;
    unit_slot *slot = &p->slots[u % WINDOW_UNITS];
    slot->rc = MCPP_OK;
    pthread_mutex_unlock(&p->mu);
    fill_unit(p, u, f);
    pthread_mutex_lock(&p->mu);
    slot->ready = 1;
    pthread_cond_signal(&p->filled);
    return 1;
}

static void *fill_thread(void *arg)
{
    pipeline *p = arg;
    filler *f = filler_new(); /* NULL: each unit fails with ENOMEM, raised again by the caller */
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->next_unit < p->units)
        if (!claim_and_fill(p, f)) pthread_cond_wait(&p->freed, &p->mu);
    pthread_mutex_unlock(&p->mu);
    filler_free(f);
    return NULL;
}

static size_t worker_count(size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* one core fewer than there are: the caller's thread inserts, then
     * fills what the workers have not reached */
    size_t w = cpus > 2 ? (size_t)cpus - 1 : 1;
    if (w > MAX_WORKERS) w = MAX_WORKERS;
    size_t by_work = n / ROWS_PER_WORKER_MIN;
    return w < by_work ? w : by_work;
}

/* Waits until unit u is filled, filling units itself meanwhile. */
static void wait_filled(pipeline *p, size_t u, filler *f)
{
    pthread_mutex_lock(&p->mu);
    while (!p->slots[u % WINDOW_UNITS].ready)
        if (!claim_and_fill(p, f)) pthread_cond_wait(&p->filled, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

/* Clears the filled rows of unit u and frees its slot for unit u + WINDOW_UNITS. */
static void release_unit(pipeline *p, size_t u)
{
    unit_slot *slot = &p->slots[u % WINDOW_UNITS];
    size_t end = slot->rc ? slot->failed_at : unit_end(p, u);
    for (size_t i = u * UNIT_ROWS; i < end; i++) mcpp_store_row_clear(row_at(p, i));
    pthread_mutex_lock(&p->mu);
    slot->ready = 0;
    p->inserted_units = u + 1;
    pthread_cond_broadcast(&p->freed);
    pthread_mutex_unlock(&p->mu);
}

/* Stops the workers and clears every row still filled, from unit `from` on. */
static void stop_all(pipeline *p, size_t from)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->freed);
    pthread_mutex_unlock(&p->mu);
    for (size_t w = 0; w < p->n_workers; w++) pthread_join(p->threads[w], NULL);
    for (size_t u = from; u < p->next_unit; u++) release_unit(p, u);
}

/* Inserts the rows of unit u; a fill failure is raised again on this thread
 * (errors are thread-local; filling is deterministic) after the rows before
 * it, as a sequential add would. */
static int insert_unit(pipeline *p, size_t u, filler *f,
                       int (*each)(void *ctx, const mcpp_store_row *row, size_t index), void *ctx)
{
    const unit_slot *slot = &p->slots[u % WINDOW_UNITS];
    size_t end = slot->rc ? slot->failed_at : unit_end(p, u);
    for (size_t i = u * UNIT_ROWS; i < end; i++) {
        int rc = each(ctx, row_at(p, i), i);
        if (rc) return rc;
    }
    if (!slot->rc) return MCPP_OK;
    mcpp_store_row again;
    int rc = f->z ? mcpp_store_row_fill(&again, p->receipts[slot->failed_at], p->metric, p->codec, f->z, NULL, 0)
                  : mcpp_error_nomem();
    if (!rc) mcpp_store_row_clear(&again);
    return rc ? rc : slot->rc;
}

int mcpp_store_rows_each(const mcpp_receipt *const *receipts, size_t n, const char *metric,
                         const mcpp_store_codec *codec, int (*each)(void *ctx, const mcpp_store_row *row, size_t index), void *ctx)
{
    pipeline *p = calloc(1, sizeof *p);
    filler *f = filler_new(); /* the caller's thread's */
    if (!p || !f || !f->z) {
        free(p);
        filler_free(f);
        return mcpp_error_nomem();
    }
    p->receipts = receipts;
    p->n = n;
    p->units = (n + UNIT_ROWS - 1) / UNIT_ROWS;
    p->metric = metric;
    p->codec = codec;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->filled, NULL);
    pthread_cond_init(&p->freed, NULL);
    for (size_t w = worker_count(n); p->n_workers < w; p->n_workers++)
        if (pthread_create(&p->threads[p->n_workers], NULL, fill_thread, p) != 0) break; /* fewer workers */
    int rc = MCPP_OK;
    size_t u = 0;
    for (; u < p->units && !rc; u++) {
        wait_filled(p, u, f);
        rc = insert_unit(p, u, f, each, ctx);
        if (!rc) release_unit(p, u);
    }
    stop_all(p, rc ? u - 1 : u);
    pthread_cond_destroy(&p->freed);
    pthread_cond_destroy(&p->filled);
    pthread_mutex_destroy(&p->mu);
    free(p);
    filler_free(f);
    return rc;
}
