/*
 * store_load.c — turning stored rows back into receipts, two batches at a
 * time: while the caller's thread steps the query and copies each row's image
 * (or, for a row without one, its canonical JSON body) into one batch, a
 * worker turns the previous batch into receipts (receipt/image.h: a checksum,
 * a memcpy and a pointer fix-up; or a parse). Reading and decoding took about
 * the same time, one after the other; now they overlap. Decoding claims rows
 * in chunks, so the caller's thread, done reading the next batch, decodes
 * the rest of the previous one beside the worker instead of waiting for it.
 * A row whose image this build does not accept has its body read by id and
 * parsed on the caller's thread. Receipts reach the sink in row order.
 *
 * A row without an image (an add stores none) or with another build's has
 * its image made from the receipt its body gave, on the decoding thread, and
 * written after the batch on a connection of the reader's own
 * (store_image_cache.c), so the next read of that row is an image's.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/image.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/parallel.h"
#include "store/store_internal.h"

#define BATCH_ROWS 4096
#define ROWS_PER_THREAD_MIN 256
#define CLAIM_ROWS 32 /* rows a decoding thread takes at a time */

typedef struct batch {
    char *ids[BATCH_ROWS];
    char *bodies[BATCH_ROWS];
    size_t lengths[BATCH_ROWS];
    unsigned char *images[BATCH_ROWS]; /* copied when the row has one; then no body */
    size_t image_lengths[BATCH_ROWS];
    unsigned char packed[BATCH_ROWS]; /* the body is a packed blob (store_codec.c), not text */
    mcpp_receipt *receipts[BATCH_ROWS];
    char *errors[BATCH_ROWS]; /* message of a body that failed to load */
    unsigned char foreign[BATCH_ROWS];  /* its image is another build's */
    unsigned char no_image[BATCH_ROWS]; /* the row has none (not: the query did not select it) */
    unsigned char *made[BATCH_ROWS];    /* an image made from the body's receipt, packed; to be written */
    size_t made_lengths[BATCH_ROWS];
    size_t without_image; /* rows copied without an image */
    int make_images;      /* make images of rows that have none (the writer can write) */
    size_t n;
    atomic_size_t next_unclaimed; /* the first row no thread has taken to decode */
    const char *name;
    mcpp_store *store;
    pthread_t worker;
    int decoding; /* 1 while a worker decodes it */
} batch;

/* A receipt from its image, NULL when this build does not accept the image
 * or it names another id (the row's body is then parsed). An image of this
 * build that is refused is damaged or forged: it is counted on the store, so
 * the caller can warn (store check names it, store check --repair rewrites it). */
static mcpp_receipt *from_image(batch *b, size_t i, mcpp_store_zctx *z)
{
    mcpp_receipt *r = NULL;
    const unsigned char *image = b->images[i];
    size_t len = b->image_lengths[i];
    unsigned char *unpacked = NULL;
    char why[96];
    int rc = MCPP_OK;
    if (mcpp_store_image_is_packed(image, len)) {
        rc = z ? mcpp_store_unpack_image(b->store->codec, z, image, len, &unpacked, &len, why, sizeof why)
               : mcpp_error_nomem();
        image = unpacked;
    }
    if (!rc) rc = mcpp_receipt_image_read(&r, image, len, b->name, NULL, 0);
    free(unpacked);
    if (rc == MCPP_OK && strcmp(mcpp_receipt_id(r), b->ids[i]) == 0) return r;
    mcpp_receipt_free(r);
    b->foreign[i] = rc == MCPP_EUNSUPPORTED;
    if (rc != MCPP_EUNSUPPORTED && rc != MCPP_ENOMEM) atomic_fetch_add(&b->store->images_refused, 1);
    return NULL;
}

static void decode_rows(batch *b, size_t from, size_t to, mcpp_store_zctx *z)
{
    for (size_t i = from; i < to; i++) {
        if (b->images[i]) {
            b->receipts[i] = from_image(b, i, z); /* NULL: its body is read on the caller's thread */
            continue;
        }
        const char *text = b->bodies[i];
        size_t len = b->lengths[i];
        char *unpacked = NULL, why[96];
        if (b->packed[i]) {
            int rc = z ? mcpp_store_unpack_body(b->store->codec, z, text, len, &unpacked, &len, why, sizeof why)
                       : mcpp_error_nomem();
            if (rc == MCPP_EUNSUPPORTED || rc == MCPP_ENOMEM) continue; /* read again on the caller's thread */
            if (rc) {
                char message[160];
                snprintf(message, sizeof message, "the stored body %s", why);
                b->errors[i] = mcpp_strdup(message, NULL);
                continue;
            }
            text = unpacked;
        }
        int rc = mcpp_receipt_load_buffer(&b->receipts[i], NULL, text, len, MCPP_FORMAT_JSON, b->name, NULL);
        free(unpacked);
        if (rc)
            b->errors[i] = mcpp_strdup(mcpp_error_last()->message, NULL);
        else if (strcmp(mcpp_receipt_id(b->receipts[i]), b->ids[i]) != 0)
            b->errors[i] = mcpp_strdup("its id does not match the stored id", NULL);
        else if (b->make_images && b->no_image[i] && z) /* none made (too large): the row loads from its body */
            mcpp_store_image_make(&b->made[i], &b->made_lengths[i], b->store->codec, z, b->receipts[i]);
    }
}

/* Decodes chunks of the batch until none is left to take. */
static void decode_unclaimed(batch *b)
{
    mcpp_store_zctx *z = mcpp_store_zctx_new(); /* NULL: packed rows are left to the caller's thread */
    for (;;) {
        size_t from = atomic_fetch_add(&b->next_unclaimed, CLAIM_ROWS);
        if (from >= b->n) break;
        decode_rows(b, from, from + CLAIM_ROWS < b->n ? from + CLAIM_ROWS : b->n, z);
    }
    mcpp_store_zctx_free(z);
}

/* One decoding thread: the range only counts the threads, rows are claimed. */
static void decode_thread(void *ctx, size_t from, size_t to)
{
    (void)from;
    (void)to;
    decode_unclaimed(ctx);
}

/* Decodes a batch on the cores the caller's thread (stepping the query)
 * leaves free: one on a 2-core machine. */
static void *decode_batch(void *arg)
{
    batch *b = arg;
    size_t threads = mcpp_parallel_threads(b->n, MCPP_PARALLEL_MAX_THREADS, ROWS_PER_THREAD_MIN);
    mcpp_parallel_ranges(b->n, threads > 1 ? threads - 1 : 1, decode_thread, b);
    return NULL;
}

/* Starts decoding the batch on a worker (here, when none can be started),
 * making the images of rows that have none when they can be written. */
static void batch_start(batch *b, mcpp_store_image_writer *w)
{
    b->make_images = b->without_image && mcpp_store_image_writer_ready(w, b->store);
    atomic_store(&b->next_unclaimed, 0);
    b->decoding = pthread_create(&b->worker, NULL, decode_batch, b) == 0;
    if (!b->decoding) decode_batch(b);
}

/* Copies a column's bytes (with a terminating NUL) into *out. */
static int copy_column(void **out, size_t *len, sqlite3_stmt *stmt, int col, int text)
{
    const void *data = text ? (const void *)sqlite3_column_text(stmt, col) : sqlite3_column_blob(stmt, col);
    *len = (size_t)sqlite3_column_bytes(stmt, col);
    unsigned char *copy = malloc(*len + 1);
    if (!copy) return mcpp_error_nomem();
    if (*len) memcpy(copy, data, *len);
    copy[*len] = '\0';
    *out = copy;
    return MCPP_OK;
}

static int copy_row(batch *b, sqlite3_stmt *stmt)
{
    const char *id = (const char *)sqlite3_column_text(stmt, 0);
    size_t i = b->n;
    b->errors[i] = NULL;
    b->made[i] = NULL;
    b->made_lengths[i] = 0;
    b->foreign[i] = 0;
    b->no_image[i] = 0;
    b->bodies[i] = NULL;
    b->images[i] = NULL;
    b->receipts[i] = NULL;
    b->lengths[i] = b->image_lengths[i] = 0;
    b->packed[i] = 0;
    if (!(b->ids[i] = mcpp_strdup(id ? id : "", NULL)))
        return mcpp_error_nomem();
    /* the image column itself, not the NULL that export's and check's
     * bodies-only queries select in its place (it has no declared type) */
    const char *decl = sqlite3_column_count(stmt) > 2 ? sqlite3_column_decltype(stmt, 2) : NULL;
    int image_selected = decl && strcmp(decl, "BLOB") == 0;
    int has_image = image_selected && sqlite3_column_type(stmt, 2) == SQLITE_BLOB;
    b->packed[i] = !has_image && sqlite3_column_type(stmt, 1) == SQLITE_BLOB;
    int rc = has_image ? copy_column((void **)&b->images[i], &b->image_lengths[i], stmt, 2, 0)
                       : copy_column((void **)&b->bodies[i], &b->lengths[i], stmt, 1, !b->packed[i]);
    if (rc) {
        free(b->ids[i]);
        return rc;
    }
    b->no_image[i] = image_selected && sqlite3_column_type(stmt, 2) == SQLITE_NULL;
    b->without_image += b->no_image[i];
    b->n++;
    return MCPP_OK;
}

/* The rows whose image was not accepted, or whose packed body the workers
 * could not read (a dictionary newer than the codec): their bodies, read by
 * id and parsed here (rare: a store written by another build, a damaged
 * image). */
static int parse_bodies_of_refused_images(batch *b, mcpp_store *s)
{
    sqlite3_stmt *st = NULL;
    int rc = MCPP_OK;
    for (size_t i = 0; !rc && i < b->n; i++) {
        if (b->receipts[i] || b->errors[i]) continue;
        if (!st && (rc = mcpp_store_prepare(&st, s, "SELECT id, body FROM receipts WHERE id = ?1", "reading a body")))
            break;
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, b->ids[i], -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step != SQLITE_ROW) {
            rc = step == SQLITE_DONE ? mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, "id", 0, 0,
                                                     "stored receipt '%s' vanished while it was read", b->ids[i])
                                     : mcpp_store_sqlite_error(s, step, "reading a body");
            break;
        }
        free(b->images[i]);
        free(b->bodies[i]);
        b->images[i] = NULL;
        b->bodies[i] = NULL;
        b->packed[i] = 0;
        if (!(rc = mcpp_store_column_body(s, st, 1, &b->bodies[i], &b->lengths[i]))) decode_rows(b, i, i + 1, NULL);
        else if (rc == MCPP_EINVALID) { /* a damaged body: reported with the others, in row order */
            b->errors[i] = mcpp_strdup(mcpp_error_last()->message, NULL);
            rc = b->errors[i] ? MCPP_OK : mcpp_error_nomem();
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* The images of the rows whose image was another build's (their bodies
 * were parsed here), made on the caller's thread; then the batch's new
 * images written. */
static void write_images(batch *b, mcpp_store *s, mcpp_store_image_writer *w)
{
    size_t foreign = 0;
    for (size_t i = 0; i < b->n; i++)
        foreign += b->foreign[i] && b->receipts[i];
    if (foreign && mcpp_store_image_writer_ready(w, s) && (s->zctx || (s->zctx = mcpp_store_zctx_new())))
        for (size_t i = 0; i < b->n; i++)
            if (b->foreign[i] && b->receipts[i] && !b->made[i])
                mcpp_store_image_make(&b->made[i], &b->made_lengths[i], s->codec, s->zctx, b->receipts[i]);
    mcpp_store_image_writer_put(w, b->ids, b->made, b->made_lengths, b->n);
}

/* Waits for the batch's decoding, then (while rc is MCPP_OK) hands its
 * receipts to the sink in order; the first failure becomes the result.
 * Every row is freed either way. */
static int finish_batch(batch *b, int rc, mcpp_store *s, mcpp_store_image_writer *w, mcpp_store_receipt_fn sink,
                        void *ctx)
{
    if (b->decoding) {
        decode_unclaimed(b); /* the caller's thread takes what the worker has not reached */
        pthread_join(b->worker, NULL);
    }
    b->decoding = 0;
    if (!rc) rc = parse_bodies_of_refused_images(b, s);
    if (!rc)
        write_images(b, s, w);
    for (size_t i = 0; i < b->n; i++) {
        if (!rc && b->errors[i])
            rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, "body", 0, 0,
                                "stored receipt '%s' no longer loads: %s", b->ids[i], b->errors[i]);
        else if (!rc && b->receipts[i]) {
            mcpp_receipt *r = b->receipts[i];
            b->receipts[i] = NULL;
            rc = sink(ctx, r);
        }
        mcpp_receipt_free(b->receipts[i]);
        free(b->ids[i]);
        free(b->bodies[i]);
        free(b->images[i]);
        free(b->errors[i]);
        free(b->made[i]);
    }
    b->n = 0;
    b->without_image = 0;
    return rc;
}

static int add_to_set(void *set, mcpp_receipt *receipt)
{
    return mcpp_receipt_set_add(set, receipt);
}

int mcpp_store_load_rows(mcpp_receipt_set *set, mcpp_store *s, sqlite3_stmt *stmt)
{
    return mcpp_store_load_rows_each(s, stmt, add_to_set, set);
}

int mcpp_store_load_rows_each(mcpp_store *s, sqlite3_stmt *stmt, mcpp_store_receipt_fn sink, void *ctx)
{
    batch *b[2] = {calloc(1, sizeof(batch)), calloc(1, sizeof(batch))};
    if (!b[0] || !b[1]) {
        free(b[0]);
        free(b[1]);
        return mcpp_error_nomem();
    }
    b[0]->name = b[1]->name = s->path;
    b[0]->store = b[1]->store = s;
    mcpp_store_image_writer w = {NULL, NULL, 0};
    int rc = mcpp_store_codec_refresh(s), step = SQLITE_DONE, k = 0; /* read-only while workers decode */
    while (!rc && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = copy_row(b[k], stmt);
        if (!rc && b[k]->n == BATCH_ROWS) {
            batch_start(b[k], &w); /* decoded while the next batch is read */
            k ^= 1;
            rc = finish_batch(b[k], rc, s, &w, sink, ctx); /* the one before it */
        }
    }
    if (!rc && step != SQLITE_DONE) rc = mcpp_store_sqlite_error(s, step, "reading receipts");
    if (!rc && b[k]->n)
        batch_start(b[k], &w);
    rc = finish_batch(b[k ^ 1], rc, s, &w, sink, ctx); /* the older batch first */
    rc = finish_batch(b[k], rc, s, &w, sink, ctx);
    mcpp_store_image_writer_close(&w);
    free(b[0]);
    free(b[1]);
    return rc;
}
