/*
 * store_images.h — a stored image as the image reader sees it, for tests that
 * forge or inspect images: since schema version 6 the store keeps each image
 * compressed against the store's dictionary (lib/src/store/store_codec.c),
 * so a forger unpacks it, edits the image and packs it again. Uses the
 * store's private codec (the including target has lib/src on its path).
 */
#ifndef MCPP_TEST_STORE_IMAGES_H
#define MCPP_TEST_STORE_IMAGES_H

#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"
#include "store/store_internal.h"

/* The first column of the first row `sql` gives on the store at `path` (a
 * count), -1 when it gives none. */
static inline long long test_sql_count(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    sqlite3_open(path, &db);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* The image in a stored blob (malloc'ed; a plain image is copied), its
 * length in *out_len; NULL when it does not unpack. */
static inline unsigned char *test_image_unpack(const char *db, const void *blob, size_t len, size_t *out_len)
{
    if (!mcpp_store_image_is_packed(blob, len)) {
        unsigned char *copy = malloc(len ? len : 1);
        if (!copy) abort();
        if (len) memcpy(copy, blob, len);
        *out_len = len;
        return copy;
    }
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, db, MCPP_STORE_READ_ONLY) != MCPP_OK || mcpp_store_codec_refresh(s) != MCPP_OK) abort();
    mcpp_store_zctx *z = mcpp_store_zctx_new();
    unsigned char *raw = NULL;
    char why[128];
    if (mcpp_store_unpack_image(s->codec, z, blob, len, &raw, out_len, why, sizeof why) != MCPP_OK) raw = NULL;
    mcpp_store_zctx_free(z);
    mcpp_store_close(s);
    return raw;
}

/* The blob an add would store for image `raw` (malloc'ed), in *out_len. */
static inline unsigned char *test_image_pack(const char *db, const unsigned char *raw, size_t len, size_t *out_len)
{
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, db, MCPP_STORE_READ_ONLY) != MCPP_OK || mcpp_store_codec_refresh(s) != MCPP_OK) abort();
    mcpp_store_zctx *z = mcpp_store_zctx_new();
    unsigned char *packed = NULL;
    if (mcpp_store_pack_image(s->codec, z, raw, len, &packed, out_len) != MCPP_OK) abort();
    mcpp_store_zctx_free(z);
    mcpp_store_close(s);
    return packed;
}

#endif /* MCPP_TEST_STORE_IMAGES_H */
