/*
 * store_load.c — turning stored rows back into receipts: rows are read in
 * batches; a row with an image this build accepts (receipt/image.h: a memcpy
 * and a pointer fix-up) is read from it as it is fetched, the others have their
 * canonical JSON body parsed on several threads; then all are appended in row
 * order.
 */
#include <stdlib.h>
#include <string.h>

#include "receipt/image.h"
#include "util/error_internal.h"
#include "util/parallel.h"
#include "store/store_internal.h"

#define BATCH_ROWS 4096
#define MAX_THREADS 8
#define ROWS_PER_THREAD_MIN 256

typedef struct batch {
    char *ids[BATCH_ROWS];
    char *bodies[BATCH_ROWS];
    size_t lengths[BATCH_ROWS];
    mcpp_receipt *receipts[BATCH_ROWS];
    char *errors[BATCH_ROWS]; /* message of a body that failed to load */
    size_t n;
    const char *name;
} batch;

static void parse_range(void *ctx, size_t from, size_t to)
{
    batch *b = ctx;
    for (size_t i = from; i < to; i++) {
        if (b->receipts[i]) continue; /* read from its image */
        int rc = mcpp_receipt_load_buffer(&b->receipts[i], NULL, b->bodies[i], b->lengths[i], MCPP_FORMAT_JSON,
                                          b->name, NULL);
        if (rc) b->errors[i] = strdup(mcpp_error_last()->message);
        else if (strcmp(mcpp_receipt_id(b->receipts[i]), b->ids[i]) != 0)
            b->errors[i] = strdup("its id does not match the stored id");
    }
}

static void parse_batch(batch *b)
{
    mcpp_parallel_ranges(b->n, mcpp_parallel_threads(b->n, MAX_THREADS, ROWS_PER_THREAD_MIN), parse_range, b);
}

/* Hands the batch's receipts to the sink; the first failure becomes the error. */
static int drain_batch(batch *b, mcpp_store_receipt_fn sink, void *ctx, const mcpp_store *s)
{
    int rc = MCPP_OK;
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
        free(b->errors[i]);
        b->receipts[i] = NULL;
        b->ids[i] = b->bodies[i] = b->errors[i] = NULL;
    }
    b->n = 0;
    return rc;
}

/* A row's receipt from its image, read right here (a memcpy and a pointer
 * fix-up cost less than copying the body to parse it on a thread); NULL when
 * the row has none, or none this build accepts, or it names another id. */
static mcpp_receipt *from_image(sqlite3_stmt *stmt, const char *id, const char *name)
{
    const void *image = sqlite3_column_count(stmt) > 2 ? sqlite3_column_blob(stmt, 2) : NULL;
    mcpp_receipt *r = NULL;
    if (!image || mcpp_receipt_image_read(&r, image, (size_t)sqlite3_column_bytes(stmt, 2), name) != MCPP_OK)
        return NULL;
    if (strcmp(mcpp_receipt_id(r), id) == 0) return r;
    mcpp_receipt_free(r);
    return NULL;
}

static int copy_row(batch *b, sqlite3_stmt *stmt)
{
    const char *id = (const char *)sqlite3_column_text(stmt, 0);
    size_t i = b->n;
    b->errors[i] = NULL;
    b->bodies[i] = NULL;
    b->lengths[i] = 0;
    if (!(b->ids[i] = strdup(id ? id : ""))) return mcpp_error_nomem();
    if ((b->receipts[i] = from_image(stmt, b->ids[i], b->name))) {
        b->n++;
        return MCPP_OK;
    }
    const char *body = (const char *)sqlite3_column_text(stmt, 1);
    size_t len = (size_t)sqlite3_column_bytes(stmt, 1);
    if (!(b->bodies[i] = malloc(len + 1))) {
        free(b->ids[i]);
        return mcpp_error_nomem();
    }
    if (len) memcpy(b->bodies[i], body, len);
    b->bodies[i][len] = '\0';
    b->lengths[i] = len;
    b->n++;
    return MCPP_OK;
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
    batch *b = calloc(1, sizeof *b);
    if (!b) return mcpp_error_nomem();
    b->name = s->path;
    int rc = MCPP_OK, step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = copy_row(b, stmt);
        if (!rc && b->n == BATCH_ROWS) {
            parse_batch(b);
            rc = drain_batch(b, sink, ctx, s);
        }
    }
    if (!rc && step != SQLITE_DONE) rc = mcpp_store_sqlite_error(s, step, "reading receipts");
    if (!rc) parse_batch(b);
    int drained = drain_batch(b, sink, ctx, s);
    free(b);
    return rc ? rc : drained;
}
