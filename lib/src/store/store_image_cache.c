/*
 * store_image_cache.c — the receipt images are made by the first read, not by
 * the add. An image (receipt/image.h) is a cache of its row's body: building
 * and compressing one was a third of an add's CPU (a Google Benchmark
 * receipt's image is 10.9 KB before compression, 13.7 µs at zstd level 1), and
 * the add is what a run waits for. So an add stores none; a read that finds a
 * row without an image (or with one another build wrote) parses the body, as
 * it always could, and the decoding thread that parsed it makes the image
 * beside it; the reader then writes those images on a connection of its own.
 *
 * The write is opportunistic and never fails the read: the reader's handle
 * may be read-only (store ls, Store.query), so the images go through a
 * second, read-write connection to the same file, which takes the write lock
 * without waiting (busy timeout 0) and gives up for the rest of the read when
 * another writer holds it, the file is not writable, or anything fails. Only a
 * store at this build's schema version is written (a read never migrates). The
 * update guards on the row still lacking this build's image, so two readers
 * racing write the same thing once. Images are a cache: the connection syncs
 * with synchronous=NORMAL (WAL stays consistent; a crash may lose images,
 * never rows).
 */
#include <stdlib.h>
#include <string.h>

#include "receipt/image.h"
#include "store/store_internal.h"

enum { WRITER_UNTRIED = 0, WRITER_READY = 1, WRITER_OFF = -1 };

int mcpp_store_image_make(unsigned char **out, size_t *out_len, const mcpp_store_codec *c, mcpp_store_zctx *z,
                          const mcpp_receipt *r)
{
    *out = NULL;
    *out_len = 0;
    unsigned char *image = NULL;
    size_t len = 0;
    int rc = mcpp_receipt_image_write(&image, &len, r); /* EUNSUPPORTED: this receipt gets none */
    if (!rc)
        rc = mcpp_store_pack_image(c, z, image, len, out, out_len);
    free(image);
    return rc;
}

static void writer_off(mcpp_store_image_writer *w)
{
    sqlite3_finalize(w->put);
    sqlite3_close(w->db);
    w->put = NULL;
    w->db = NULL;
    w->state = WRITER_OFF;
}

int mcpp_store_image_writer_ready(mcpp_store_image_writer *w, const mcpp_store *s)
{
    if (w->state != WRITER_UNTRIED)
        return w->state == WRITER_READY;
    w->state = WRITER_OFF;
    if (s->pg || s->version != MCPP_STORE_SCHEMA_VERSION)
        return 0;
    if (sqlite3_open_v2(s->path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
        sqlite3_db_readonly(w->db, "main") != 0 ||
        sqlite3_exec(w->db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(w->db,
                           "UPDATE main.receipts SET image = ?2 WHERE id = ?1"
                           " AND (image IS NULL OR substr(image, 1, 16) IS NOT substr(?2, 1, 16))",
                           -1, &w->put, NULL) != SQLITE_OK) {
        writer_off(w);
        return 0;
    }
    sqlite3_busy_timeout(w->db, 0); /* never wait for another writer: the images can wait */
    w->state = WRITER_READY;
    return 1;
}

void mcpp_store_image_writer_put(mcpp_store_image_writer *w, char *const *ids, unsigned char *const *images,
                                 const size_t *lengths, size_t n)
{
    size_t any = 0;
    for (size_t i = 0; i < n; i++)
        any += images[i] != NULL;
    if (!any || w->state != WRITER_READY)
        return;
    if (sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        writer_off(w);
        return;
    }
    int ok = 1;
    for (size_t i = 0; ok && i < n; i++) {
        if (!images[i])
            continue;
        sqlite3_reset(w->put);
        sqlite3_bind_text(w->put, 1, ids[i], -1, SQLITE_STATIC);
        sqlite3_bind_blob(w->put, 2, images[i], (int)lengths[i], SQLITE_STATIC);
        ok = sqlite3_step(w->put) == SQLITE_DONE;
    }
    sqlite3_reset(w->put);
    if (!ok || sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
        writer_off(w);
    }
}

void mcpp_store_image_writer_close(mcpp_store_image_writer *w)
{
    sqlite3_finalize(w->put);
    sqlite3_close(w->db);
    memset(w, 0, sizeof *w);
}
