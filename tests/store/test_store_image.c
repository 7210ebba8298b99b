/*
 * test_store_image.c — the stored receipt images (schema version 4 on): an add
 * stores none, the first read makes every row's (and never fails for want of
 * the write lock); a query loads from it the same receipts as from the
 * canonical JSON (the JSON of each compared byte for byte); an image that is
 * damaged, truncated, garbage, of another build, or forged with a valid
 * checksum over bad offsets falls back to the body, never crashes; and the
 * body stays the source of truth (`check` still reports a damaged body).
 * A read rewrites missing and foreign images.
 * Loading runs in batches, read and decoded in a pipeline: thousands of rows,
 * some with refused images, come back complete, equal and in order.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "../test_util.h"
#include "mcpp_receipts.h"
#include "receipt/canonical_json.h"
#include "receipt/image.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "store_images.h"
#include "util/hash.h"

#define RUNS 40
#define HEADER 40          /* bytes of an image's header            */
#define CHECKSUM_AT 16     /* where its checksum sits                */

static char tmpdir[128];
static char *want_json[RUNS];

static const char *db_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static void run_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_open(path, &db);
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "sql: %s\n", err);
        abort();
    }
    sqlite3_close(db);
}

static void check_loads_the_same(const char *name);

/* A store of RUNS fixture receipts, as an add leaves it (no image);
 * want_json[i] gets each one's canonical JSON. */
static void add_receipts(const char *name)
{
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, db_path(name), MCPP_STORE_CREATE) != MCPP_OK) abort();
    mcpp_receipt *rs[RUNS];
    for (size_t i = 0; i < RUNS; i++) {
        rs[i] = fixture_numbered("image", i, 400000.0 + 37.0 * (double)i);
        size_t len = 0;
        free(want_json[i]);
        char *json = NULL;
        if (mcpp_receipt_write(&json, &len, rs[i], MCPP_FORMAT_JSON) != MCPP_OK) abort();
        want_json[i] = strdup(json);
        mcpp_free(json);
    }
    if (mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, RUNS) != MCPP_OK) abort();
    for (size_t i = 0; i < RUNS; i++) mcpp_receipt_free(rs[i]);
    mcpp_store_close(s);
}

/* The same, read once: the read made the images. */
static void make_store(const char *name)
{
    add_receipts(name);
    check_loads_the_same(name);
}

/* Loads the store and checks every receipt against want_json, in id order. */
static void check_loads_the_same(const char *name)
{
    mcpp_store *s = NULL;
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, db_path(name), MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, NULL), MCPP_OK);
    CHECK_INT_EQ((long long)mcpp_receipt_set_count(set), RUNS);
    for (size_t i = 0; set && i < mcpp_receipt_set_count(set) && i < RUNS; i++) {
        const mcpp_receipt *r = mcpp_receipt_set_items(set)[i];
        char *json = NULL;
        size_t len = 0;
        CHECK_INT_EQ(mcpp_receipt_write(&json, &len, r, MCPP_FORMAT_JSON), MCPP_OK);
        if (json) CHECK_STR_EQ(json, want_json[i]);
        CHECK_STR_EQ(mcpp_receipt_source_name(r), db_path(name));
        mcpp_free(json);
    }
    mcpp_receipt_set_free(set);
    mcpp_store_close(s);
}

/* store check of `path` (read-only) returns `rc` with a report holding `text`. */
static void check_reports(const char *path, int rc, const char *text)
{
    mcpp_store *s = NULL;
    char *report = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_check(&report, s), rc);
    if (report)
        CHECK_CONTAINS(report, text);
    mcpp_free(report);
    mcpp_store_close(s);
}

TEST(an_add_stores_no_image_and_the_first_read_makes_every_one)
{
    add_receipts("images.db");
    const char *path = db_path("images.db");
    static const char *const WITH_IMAGE = "SELECT count(*) FROM receipts WHERE image IS NOT NULL";
    CHECK_INT_EQ(test_sql_count(path, WITH_IMAGE), 0);
    char *all = NULL;
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_export(&all, s, NULL, "jsonl"), MCPP_OK); /* reads bodies only: makes nothing */
    mcpp_free(all);
    mcpp_store_close(s);
    check_reports(path, MCPP_OK, "ok\n"); /* a missing image is nothing wrong (nor written) */
    CHECK_INT_EQ(test_sql_count(path, WITH_IMAGE), 0);
    check_loads_the_same("images.db"); /* from the bodies, through a read-only handle */
    CHECK_INT_EQ(test_sql_count(path, WITH_IMAGE), RUNS);
    check_loads_the_same("images.db");    /* from the images */
    check_reports(path, MCPP_OK, "ok\n"); /* each image equals its body */
}

/* A reader never waits for the write lock nor fails for want of it: while
 * another connection holds it, the read comes from the bodies and makes no
 * image; the next read makes them. */
TEST(a_read_while_another_writer_holds_the_lock_reads_the_bodies_and_writes_nothing)
{
    add_receipts("locked.db");
    const char *path = db_path("locked.db");
    sqlite3 *writer = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &writer), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    check_loads_the_same("locked.db");
    CHECK_INT_EQ(sqlite3_exec(writer, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(writer);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE image IS NOT NULL"), 0);
    check_loads_the_same("locked.db");
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE image IS NOT NULL"), RUNS);
}

TEST(a_query_loads_from_the_image_and_check_still_reads_the_body)
{
    make_store("bodies.db");
    /* a damaged body: the image still loads the receipt, proving it is used */
    run_sql(db_path("bodies.db"), "UPDATE receipts SET body = '{' WHERE id = 'image-000003'");
    check_loads_the_same("bodies.db");
    check_reports(db_path("bodies.db"), MCPP_EINVALID, "image-000003");
}

TEST(damaged_truncated_garbage_and_foreign_images_fall_back_to_the_body)
{
    make_store("damaged.db");
    const char *path = db_path("damaged.db");
    /* one flipped byte in the arena, a truncated blob, garbage, another build's fingerprint, empty */
    run_sql(path, "UPDATE receipts SET image = substr(image, 1, 199) || X'5A' || substr(image, 201)"
                  " WHERE id = 'image-000001'");
    run_sql(path, "UPDATE receipts SET image = substr(image, 1, 100) WHERE id = 'image-000002'");
    run_sql(path, "UPDATE receipts SET image = X'00112233445566778899' WHERE id = 'image-000004'");
    run_sql(path, "UPDATE receipts SET image = substr(image, 1, 8) || X'0000000000000000' || substr(image, 17)"
                  " WHERE id = 'image-000005'");
    run_sql(path, "UPDATE receipts SET image = X'' WHERE id = 'image-000006'");
    run_sql(path, "UPDATE receipts SET image = NULL WHERE id = 'image-000007'");
    check_loads_the_same("damaged.db");
}

/* The stored image of `id` (unpacked: store_images.h), malloc'ed, its bytes in *len. */
static unsigned char *stored_image(sqlite3 *db, const char *id, size_t *len)
{
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(db, "SELECT image FROM receipts WHERE id = ?1", -1, &st, NULL);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW) abort();
    unsigned char *img = test_image_unpack(sqlite3_db_filename(db, "main"), sqlite3_column_blob(st, 0),
                                           (size_t)sqlite3_column_bytes(st, 0), len);
    if (!img) abort();
    sqlite3_finalize(st);
    return img;
}

static void put_image(sqlite3 *db, const char *id, const unsigned char *raw, size_t len);

/* What an upgrade leaves: rows without an image and rows whose image has
 * another build's fingerprint. Adding the same receipts again changes no
 * row; the next read rewrites those images; an image with this build's
 * fingerprint stays as it is (here one with a flipped byte, which keeps
 * loading from its body: store check names it, --repair rewrites it). */
TEST(a_read_rewrites_images_of_another_build_and_missing_ones)
{
    make_store("refresh.db");
    const char *path = db_path("refresh.db");
    run_sql(path, "UPDATE receipts SET image = NULL WHERE id = 'image-000001'");
    /* another build's image: its fingerprint (bytes 8..16 of the image, and of the packed blob's head) zeroed */
    sqlite3 *db = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    size_t len = 0;
    unsigned char *img = stored_image(db, "image-000002", &len);
    memset(img + 8, 0, 8);
    put_image(db, "image-000002", img, len);
    free(img);
    sqlite3_close(db);
    /* byte 30: inside the compressed block (after the 24-byte head of store_codec.c) */
    run_sql(path, "UPDATE receipts SET image = CAST(substr(image, 1, 29) || X'5A' || substr(image, 31) AS BLOB)"
                  " WHERE id = 'image-000003'");
    static const char *const CURRENT = "SELECT count(*) FROM receipts WHERE substr(image, 1, 16) ="
                                       " (SELECT substr(image, 1, 16) FROM receipts WHERE id = 'image-000000')";
    static const char *const FLIPPED = "SELECT count(*) FROM receipts WHERE id = 'image-000003'"
                                       " AND substr(image, 30, 1) = X'5A'";
    CHECK_INT_EQ(test_sql_count(path, CURRENT), RUNS - 2);
    CHECK_INT_EQ(test_sql_count(path, FLIPPED), 1);
    add_receipts("refresh.db"); /* the same receipts again: all unchanged, no image written */
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts"), RUNS);
    CHECK_INT_EQ(test_sql_count(path, CURRENT), RUNS - 2);
    check_loads_the_same("refresh.db"); /* rows 1 and 2 from their bodies; their images made */
    CHECK_INT_EQ(test_sql_count(path, CURRENT), RUNS);
    CHECK_INT_EQ(test_sql_count(path, FLIPPED), 1);
    check_loads_the_same("refresh.db");
}

/* Stores `raw` packed as row `id`'s image. */
static void put_image(sqlite3 *db, const char *id, const unsigned char *raw, size_t len)
{
    size_t packed_len = 0;
    unsigned char *packed = test_image_pack(sqlite3_db_filename(db, "main"), raw, len, &packed_len);
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(db, "UPDATE receipts SET image = ?2 WHERE id = ?1", -1, &st, NULL);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, packed, (int)packed_len, SQLITE_TRANSIENT);
    CHECK_INT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    free(packed);
}

/* Rewrites an image with `fill` over [at, at + n) and a valid checksum. */
static void forge(sqlite3 *db, const char *id, size_t at, size_t n, unsigned char fill)
{
    size_t len = 0;
    unsigned char *img = stored_image(db, id, &len);
    for (size_t k = at; k < at + n && k < len; k++) img[k] = fill;
    uint64_t sum = mcpp_checksum_blob(img + HEADER, len - HEADER, MCPP_FNV_OFFSET);
    memcpy(img + CHECKSUM_AT, &sum, sizeof sum);
    put_image(db, id, img, len);
    free(img);
}

TEST(forged_images_with_a_valid_checksum_never_crash_the_loader)
{
    make_store("forged.db");
    sqlite3 *db = NULL;
    sqlite3_open(db_path("forged.db"), &db);
    char id[64];
    /* every presence bit set, offsets all 0xFF.., zeroed arena starts, a pointer pattern */
    static const struct { size_t at, n; unsigned char fill; } CUTS[] = {
        {HEADER, 16, 0xFF}, {HEADER + 16, 984, 0xFF}, {HEADER + 16, 984, 0x01}, {HEADER + 1000, 4000, 0x00},
        {HEADER + 1000, 4000, 0x07}, {HEADER + 100, 400, 0x41},
    };
    for (size_t k = 0; k < sizeof CUTS / sizeof CUTS[0]; k++) {
        snprintf(id, sizeof id, "image-%06zu", 10 + k);
        forge(db, id, CUTS[k].at, CUTS[k].n, CUTS[k].fill);
    }
    /* the forger's checksum is the loader's: an image forged without a change still loads */
    forge(db, "image-000009", 0, 0, 0);
    size_t len = 0;
    unsigned char *img = stored_image(db, "image-000009", &len);
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_image_read(&r, img, len, "forged.db", NULL, 0), MCPP_OK);
    mcpp_receipt_free(r);
    free(img);
    sqlite3_close(db);
    mcpp_store *s = NULL;
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("forged.db"), MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, NULL), MCPP_OK); /* loaded, from images or bodies */
    CHECK_INT_EQ((long long)mcpp_receipt_set_count(set), RUNS);
    mcpp_receipt_set_free(set);
    mcpp_store_close(s);
}

/* Why the store's unpacker refuses row `id`'s image ("" when it does not). */
static void unpack_refusal(sqlite3 *db, const char *id, char *why, size_t why_len)
{
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(db, "SELECT image FROM receipts WHERE id = ?1", -1, &st, NULL);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW) abort();
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, sqlite3_db_filename(db, "main"), MCPP_STORE_READ_ONLY) != MCPP_OK ||
        mcpp_store_codec_refresh(s) != MCPP_OK)
        abort();
    mcpp_store_zctx *z = mcpp_store_zctx_new();
    unsigned char *raw = NULL;
    size_t len = 0;
    why[0] = '\0';
    int rc = mcpp_store_unpack_image(s->codec, z, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), &raw,
                                     &len, why, why_len);
    if (rc == MCPP_OK) why[0] = '\0';
    free(raw);
    mcpp_store_zctx_free(z);
    mcpp_store_close(s);
    sqlite3_finalize(st);
}

/* Issue 48 item 1: a few KB of zstd frame can claim hundreds of MiB. The
 * store refuses a frame that claims more than an image may have, inflates
 * only the header of one that claims less, and the rest only when the
 * header declares the frame's length; every such row loads from its body. */
TEST(an_image_frame_claiming_more_than_its_header_allows_is_refused_before_inflating)
{
    make_store("bomb.db");
    sqlite3 *db = NULL;
    sqlite3_open(db_path("bomb.db"), &db);
    size_t max = mcpp_receipt_image_max_bytes(), len = 0;
    CHECK(max >= ((size_t)1 << 20));
    unsigned char *real = stored_image(db, "image-000003", &len);
    size_t big = 4 * max; /* zeros: the frame is a few KB */
    unsigned char *zeros = calloc(1, big);
    if (!zeros) abort();
    put_image(db, "image-000001", zeros, big);
    /* the real header, its arena claimed as large as allowed, then zeros */
    uint32_t struct_size = 0; /* image_header: magic, fingerprint, checksum, arena, head, struct sizes */
    memcpy(&struct_size, real + 32, sizeof struct_size);
    uint32_t arena = (uint32_t)(max - HEADER - struct_size);
    memcpy(zeros, real, HEADER);
    memcpy(zeros + 24, &arena, sizeof arena); /* image_header.arena_size */
    put_image(db, "image-000002", zeros, 2 * ((size_t)1 << 20));
    put_image(db, "image-000004", zeros, max);
    memset(zeros, 0, HEADER);
    put_image(db, "image-000005", zeros, max / 2);
    char why[160];
    unpack_refusal(db, "image-000001", why, sizeof why);
    CHECK_CONTAINS(why, "a stored image may have");
    unpack_refusal(db, "image-000002", why, sizeof why);
    CHECK_CONTAINS(why, "its header says");
    unpack_refusal(db, "image-000005", why, sizeof why);
    CHECK_CONTAINS(why, "not an image");
    /* at the bound: inflated (the header allows it), then the image reader refuses its checksum */
    unpack_refusal(db, "image-000004", why, sizeof why);
    CHECK_STR_EQ(why, "");
    unpack_refusal(db, "image-000003", why, sizeof why);
    CHECK_STR_EQ(why, "");
    free(zeros);
    free(real);
    sqlite3_close(db);
    check_loads_the_same("bomb.db");
    mcpp_store *s = NULL;
    char *report = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("bomb.db"), MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_check(&report, s), MCPP_EINVALID);
    if (report) {
        CHECK_CONTAINS(report, "image-000001");
        CHECK_CONTAINS(report, "claims");
        CHECK_CONTAINS(report, "image-000002");
        CHECK_CONTAINS(report, "image-000004");
        CHECK_CONTAINS(report, "image-000005");
    }
    mcpp_free(report);
    mcpp_store_close(s);
}

/* More rows than two loading batches (4,096 each), with images refused in
 * the first, second and last: every receipt comes back, equal to the one
 * added, in created_at order, and the refused ones from their bodies. */
TEST(many_rows_across_batches_come_back_complete_equal_and_in_order)
{
    enum { MANY = 9000 };
    const char *path = db_path("many.db");
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_CREATE), MCPP_OK);
    mcpp_receipt **rs = malloc(MANY * sizeof *rs);
    char **want = calloc(MANY, sizeof *want);
    CHECK(rs && want);
    if (!rs || !want || !s) return;
    for (size_t i = 0; i < MANY; i++) {
        rs[i] = fixture_numbered("many", i, 400000.0 + (double)(i % 97));
        size_t len = 0;
        if (mcpp_receipt_write(&want[i], &len, rs[i], MCPP_FORMAT_JSON) != MCPP_OK) abort();
    }
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, MANY), MCPP_OK);
    for (size_t i = 0; i < MANY; i++) mcpp_receipt_free(rs[i]);
    free(rs);
    mcpp_store_close(s);
    run_sql(path, "UPDATE receipts SET image = X'00' WHERE id IN ('many-000017', 'many-005000', 'many-008999')");
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, NULL), MCPP_OK);
    CHECK_INT_EQ((long long)mcpp_receipt_set_count(set), MANY);
    size_t same = 0;
    for (size_t i = 0; set && i < mcpp_receipt_set_count(set) && i < MANY; i++) {
        char *json = NULL;
        size_t len = 0;
        if (mcpp_receipt_write(&json, &len, mcpp_receipt_set_items(set)[i], MCPP_FORMAT_JSON) == MCPP_OK &&
            strcmp(json, want[i]) == 0)
            same++;
        mcpp_free(json);
    }
    CHECK_INT_EQ((long long)same, MANY);
    mcpp_receipt_set_free(set);
    mcpp_store_close(s);
    for (size_t i = 0; i < MANY; i++) mcpp_free(want[i]);
    free(want);
}

/* Sets row `id` to what a library before schema 6 wrote: its body as text
 * (the canonical JSON export gives) and its image plain (`plain_image`) or
 * absent. */
static void make_row_legacy(const char *path, const char *id, int plain_image)
{
    mcpp_store *s = NULL;
    char *lines = NULL, where[64];
    snprintf(where, sizeof where, "id=%s", id);
    mcpp_store_query q = {NULL, where, NULL, NULL, 0, 0};
    if (mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY) != MCPP_OK || mcpp_store_export(&lines, s, &q, "jsonl") != MCPP_OK)
        abort();
    mcpp_store_close(s);
    size_t body_len = strcspn(lines, "\n");
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3_open(path, &db);
    size_t raw_len = 0;
    unsigned char *raw = plain_image ? stored_image(db, id, &raw_len) : NULL;
    sqlite3_prepare_v2(db, "UPDATE receipts SET body = ?2, image = ?3 WHERE id = ?1", -1, &st, NULL);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, lines, (int)body_len, SQLITE_STATIC);
    if (raw) sqlite3_bind_blob(st, 3, raw, (int)raw_len, SQLITE_STATIC);
    else sqlite3_bind_null(st, 3);
    if (sqlite3_step(st) != SQLITE_DONE) abort();
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(raw);
    mcpp_free(lines);
}

/* Schema 6 compresses bodies and images; rows written before keep a text
 * body and a plain image (or none), and a store holding both kinds reads,
 * checks, exports and takes the same receipts again as one. */
TEST(rows_from_before_compression_read_check_and_add_as_before)
{
    make_store("legacy.db");
    const char *path = db_path("legacy.db");
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE typeof(body) = 'blob'"), RUNS);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM store_dicts"), 2); /* one for bodies, one for images */
    make_row_legacy(path, "image-000004", 1);
    make_row_legacy(path, "image-000005", 0);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE typeof(body) = 'text'"), 2);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE substr(image, 1, 8) = CAST('MCPPIMG1' AS BLOB)"),
                 1);
    check_loads_the_same("legacy.db");
    mcpp_store *s = NULL;
    char *report = NULL, *all = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_check(&report, s), MCPP_OK);
    if (report) CHECK_STR_EQ(report, "ok\n");
    mcpp_free(report);
    CHECK_INT_EQ(mcpp_store_export(&all, s, NULL, "json"), MCPP_OK);
    if (all) CHECK_CONTAINS(all, "\"image-000005\"");
    mcpp_free(all);
    CHECK_INT_EQ((long long)mcpp_store_images_refused(s), 0);
    mcpp_store_close(s);
    make_store("legacy.db"); /* the same receipts again: unchanged; the read wrote the missing image packed */
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts"), RUNS);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE image IS NULL"), 0);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE typeof(body) = 'text'"), 2);
    check_loads_the_same("legacy.db");
}

/* `sql_format` (its %s: `column`) prepared on the store file with ?1 bound
 * to `id`; *db is closed by the caller after the statement is finalized. */
static sqlite3_stmt *row_statement(sqlite3 **db, const char *path, const char *sql_format, const char *column,
                                   const char *id)
{
    sqlite3_stmt *st = NULL;
    char sql[128];
    snprintf(sql, sizeof sql, sql_format, column);
    sqlite3_open(path, db);
    if (sqlite3_prepare_v2(*db, sql, -1, &st, NULL) != SQLITE_OK)
        abort();
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    return st;
}

/* The blob in column `column` of row `id` (malloc'ed), its length in *len. */
static unsigned char *stored_blob(const char *path, const char *column, const char *id, size_t *len)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = row_statement(&db, path, "SELECT %s FROM receipts WHERE id = ?1", column, id);
    unsigned char *blob = NULL;
    *len = 0;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB) {
        *len = (size_t)sqlite3_column_bytes(st, 0);
        if (!(blob = malloc(*len)))
            abort();
        memcpy(blob, sqlite3_column_blob(st, 0), *len);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return blob;
}

/* Sets column `column` of row `id` to the blob, as it is (stored_blob's other way). */
static void put_blob(const char *path, const char *column, const char *id, const void *blob, size_t len)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = row_statement(&db, path, "UPDATE receipts SET %s = ?2 WHERE id = ?1", column, id);
    sqlite3_bind_blob(st, 2, blob, (int)len, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        abort();
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* `data` packed as versions 6 and 7 packed it: `head` (head_len bytes), the
 * id of the newest dictionary of `kind`, and a zstd frame (its content size
 * and checksum in it) against that dictionary's bytes; malloc'ed. */
static unsigned char *zstd_blob(size_t *out_len, const char *path, const char *kind, const char *head, size_t head_len,
                                const void *data, size_t len)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3_open(path, &db);
    if (sqlite3_prepare_v2(db, "SELECT id, dict FROM store_dicts WHERE kind = ?1 ORDER BY id DESC LIMIT 1", -1, &st,
                           NULL) != SQLITE_OK)
        abort();
    sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW)
        abort();
    uint32_t dict_id = (uint32_t)sqlite3_column_int64(st, 0);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    size_t cap = head_len + 4 + ZSTD_compressBound(len);
    unsigned char *blob = malloc(cap);
    if (!c || !blob)
        abort();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, -3);
    ZSTD_CCtx_loadDictionary(c, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1));
    memcpy(blob, head, head_len);
    for (int i = 0; i < 4; i++)
        blob[head_len + (size_t)i] = (unsigned char)(dict_id >> (8 * i));
    size_t got = ZSTD_compress2(c, blob + head_len + 4, cap - head_len - 4, data, len);
    if (ZSTD_isError(got))
        abort();
    sqlite3_finalize(st);
    sqlite3_close(db);
    ZSTD_freeCCtx(c);
    *out_len = head_len + 4 + got;
    return blob;
}

/* Sets row `id`'s body and image to what versions 6 and 7 wrote: zstd
 * frames ("MCZB" and "MCPPIMGZ" with the image's fingerprint). */
static void make_row_zstd(const char *path, const char *id)
{
    mcpp_store *s = NULL;
    char *lines = NULL, where[64];
    snprintf(where, sizeof where, "id=%s", id);
    mcpp_store_query q = {NULL, where, NULL, NULL, 0, 0};
    if (mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY) != MCPP_OK ||
        mcpp_store_export(&lines, s, &q, "jsonl") != MCPP_OK)
        abort();
    mcpp_store_close(s);
    size_t body_len = 0, packed_len = 0, raw_len = 0;
    unsigned char *body = zstd_blob(&body_len, path, "body", "MCZB", 4, lines, strcspn(lines, "\n"));
    put_blob(path, "body", id, body, body_len);
    unsigned char *packed = stored_blob(path, "image", id, &packed_len);
    unsigned char *raw = packed ? test_image_unpack(path, packed, packed_len, &raw_len) : NULL;
    if (!raw || raw_len < 16)
        abort();
    char head[16];
    memcpy(head, "MCPPIMGZ", 8);
    memcpy(head + 8, raw + 8, 8);
    size_t image_len = 0;
    unsigned char *image = zstd_blob(&image_len, path, "image", head, 16, raw, raw_len);
    put_blob(path, "image", id, image, image_len);
    free(image);
    free(raw);
    free(packed);
    free(body);
    mcpp_free(lines);
}

/* Version 8 packs bodies and images as LZ4 blocks; a store of version 7
 * holds zstd frames. Such a store reads (its images, then its bodies) and
 * checks as it is, read-only keeps it at 7, and a writable open takes it to
 * 8 with its rows untouched: the same receipts added again are "unchanged"
 * (compared with the old bodies), and new rows beside them are LZ4 blocks. */
TEST(rows_packed_by_zstd_before_version_8_read_check_and_add_as_before)
{
    make_store("zstd.db");
    const char *path = db_path("zstd.db");
    static const char *const ZSTD_ROWS =
        "SELECT count(*) FROM receipts WHERE substr(body, 1, 4) = CAST('MCZB' AS BLOB)";
    static const char *const LZ4_ROWS = "SELECT count(*) FROM receipts WHERE substr(body, 1, 4) = CAST('MCLB' AS BLOB)";
    CHECK_INT_EQ(test_sql_count(path, LZ4_ROWS), RUNS);
    make_row_zstd(path, "image-000003");
    make_row_zstd(path, "image-000007");
    run_sql(path, "DELETE FROM store_schema WHERE version = 8");
    CHECK_INT_EQ(test_sql_count(path, ZSTD_ROWS), 2);
    CHECK_INT_EQ(
        test_sql_count(path, "SELECT count(*) FROM receipts WHERE substr(image, 1, 8) = CAST('MCPPIMGZ' AS BLOB)"), 2);
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_schema_version(s), 7);
    mcpp_store_close(s);
    check_loads_the_same("zstd.db");      /* from the images */
    check_reports(path, MCPP_OK, "ok\n"); /* each image against its body */
    run_sql(path, "UPDATE receipts SET image = NULL");
    check_loads_the_same("zstd.db"); /* from the bodies */
    add_receipts("zstd.db");
    CHECK_INT_EQ(test_sql_count(path, "SELECT max(version) FROM store_schema"), MCPP_STORE_SCHEMA_VERSION);
    CHECK_INT_EQ(test_sql_count(path, ZSTD_ROWS), 2);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts"), RUNS);
    check_loads_the_same("zstd.db");
    mcpp_receipt *more = fixture_numbered("more", 1, 123.0);
    CHECK_INT_EQ(mcpp_store_open(&s, path, 0), MCPP_OK);
    mcpp_store_add_result res = {0, 0, 0};
    CHECK_INT_EQ(mcpp_store_add(&res, s, (const mcpp_receipt *const *)&more, 1), MCPP_OK);
    CHECK_INT_EQ((long long)res.added, 1);
    mcpp_store_close(s);
    mcpp_receipt_free(more);
    CHECK_INT_EQ(test_sql_count(path, LZ4_ROWS), RUNS - 2 + 1);
    check_reports(path, MCPP_OK, "ok\n"); /* reads every body of both kinds */
}

/* What unpacking a changed body gives: 0 refused, 1 the same text, 2 another text. */
static int unpacks_to(const mcpp_store_codec *codec, mcpp_store_zctx *z, const unsigned char *blob, size_t len,
                      const char *text, size_t text_len, char *why, size_t why_len)
{
    char *out = NULL;
    size_t out_len = 0;
    why[0] = '\0';
    int rc = mcpp_store_unpack_body(codec, z, blob, len, &out, &out_len, why, why_len);
    int same = rc == MCPP_OK && out_len == text_len && memcmp(out, text, text_len) == 0;
    free(out);
    if (rc == MCPP_OK)
        return same ? 1 : 2;
    CHECK(rc == MCPP_EINVALID || rc == MCPP_EUNSUPPORTED); /* EUNSUPPORTED: a dictionary id past the newest */
    CHECK(why[0] != '\0');
    return 0;
}

/* The bytes each byte of a stored blob is xor'ed with, one at a time. */
static const unsigned char FLIPS[] = {0x01, 0x10, 0x80, 0xff};

/* What the damage tests start from: a store of their own, the blob `column`
 * of row `id` as stored, and the store open read-only with its codec and a
 * zctx to unpack with. */
typedef struct damage_case {
    const char *path;
    unsigned char *blob;
    size_t len;
    mcpp_store *s;
    mcpp_store_zctx *z;
} damage_case;

/* 0 when the blob is not there, or does not start with `magic` and run past
 * its `head` bytes (checked: a failure). */
static int damage_case_open(damage_case *c, const char *db, const char *column, const char *id, const char *magic,
                            size_t head)
{
    memset(c, 0, sizeof *c);
    make_store(db);
    c->path = db_path(db);
    c->blob = stored_blob(c->path, column, id, &c->len);
    CHECK(c->blob != NULL && c->len > head && memcmp(c->blob, magic, strlen(magic)) == 0);
    if (!c->blob || c->len <= head)
        return 0;
    CHECK_INT_EQ(mcpp_store_open(&c->s, c->path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_codec_refresh(c->s), MCPP_OK);
    c->z = mcpp_store_zctx_new();
    return 1;
}

/* Closes the store and frees the zctx; the blob stays until the test frees it. */
static void damage_case_close(damage_case *c)
{
    mcpp_store_zctx_free(c->z);
    mcpp_store_close(c->s);
    c->z = NULL;
    c->s = NULL;
}

/* A stored LZ4 body with any byte changed (four ways), or cut short at any
 * length, is refused and never read as another text: LZ4 refuses a block
 * that does not inflate to the length the body states, and the checksum
 * what does. (A change may also leave the text as it was, a match moved to
 * an equal run: that reads as the same text.) Lengths and dictionaries that
 * lie are refused before anything is inflated, and a damaged body reaches
 * `store check` and a query as the row's problem. */
TEST(a_damaged_lz4_body_is_refused_never_read_as_another_text)
{
    damage_case c;
    if (!damage_case_open(&c, "lz4.db", "body", "image-000005", "MCLB", 20))
        return;
    const char *path = c.path;
    unsigned char *blob = c.blob;
    size_t len = c.len;
    mcpp_store *s = c.s;
    mcpp_store_zctx *z = c.z;
    char *text = NULL, why[160];
    size_t text_len = 0;
    CHECK_INT_EQ(mcpp_store_unpack_body(s->codec, z, blob, len, &text, &text_len, why, sizeof why), MCPP_OK);
    unsigned char *copy = malloc(len);
    int counts[3] = {0, 0, 0};
    for (size_t at = 0; text && at < len; at++) {
        for (size_t f = 0; f < sizeof FLIPS; f++) {
            memcpy(copy, blob, len);
            copy[at] ^= FLIPS[f];
            int got = unpacks_to(s->codec, z, copy, len, text, text_len, why, sizeof why);
            counts[got]++;
            if (at >= 8 && at < 20)
                CHECK_INT_EQ(got, 0); /* its length or its checksum */
        }
    }
    CHECK_INT_EQ(counts[2], 0);
    CHECK(counts[0] > (int)(3 * len)); /* nearly every change is refused */
    for (size_t cut = 0; text && cut < len; cut++)
        CHECK_INT_EQ(unpacks_to(s->codec, z, blob, cut, text, text_len, why, sizeof why), 0);
    struct {
        size_t at;
        uint32_t value;
        const char *why;
    } lies[] = {
        {8, 16u << 20 | 1, "claims 16777217 bytes, more than the 16777216 a stored body may have"},
        {8, (uint32_t)text_len + 1, "does not decompress (short)"},
        {8, (uint32_t)text_len - 1, "does not decompress (not an LZ4 block of its length)"},
        {4, (uint32_t)test_sql_count(path, "SELECT id FROM store_dicts WHERE kind = 'image'"),
         "which is an image dictionary"},
    };
    for (size_t i = 0; text && i < sizeof lies / sizeof lies[0]; i++) {
        memcpy(copy, blob, len);
        for (int b = 0; b < 4; b++)
            copy[lies[i].at + (size_t)b] = (unsigned char)(lies[i].value >> (8 * b));
        CHECK_INT_EQ(unpacks_to(s->codec, z, copy, len, text, text_len, why, sizeof why), 0);
        CHECK_CONTAINS(why, lies[i].why);
    }
    damage_case_close(&c);
    memcpy(copy, blob, len);
    copy[len - 1] ^= 0x80; /* the block's last literal: LZ4 inflates it, the checksum refuses it */
    put_blob(path, "body", "image-000005", copy, len);
    run_sql(path, "UPDATE receipts SET image = NULL WHERE id = 'image-000005'");
    check_reports(path, MCPP_EINVALID, "body image-000005: no longer loads: ");
    check_reports(path, MCPP_EINVALID, "the stored body does not decompress (checksum)");
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, NULL), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "does not decompress (checksum)");
    mcpp_receipt_set_free(set);
    mcpp_store_close(s);
    free(text);
    free(copy);
    free(blob);
}

/* A stored LZ4 image with any byte changed (four ways) never reads as
 * another receipt: the unpacking refuses it (its length, its block, its
 * header's size), or the image reader refuses what it inflates to (the
 * image's checksum), or it is the same image. */
TEST(a_damaged_lz4_image_never_reads_as_another_receipt)
{
    damage_case c;
    if (!damage_case_open(&c, "lz4img.db", "image", "image-000006", "MCPPIMGL", 24))
        return;
    unsigned char *blob = c.blob;
    size_t len = c.len;
    mcpp_store *s = c.s;
    mcpp_store_zctx *z = c.z;
    unsigned char *copy = malloc(len), *raw = NULL;
    char why[160];
    size_t raw_len = 0;
    CHECK_INT_EQ(mcpp_store_unpack_image(s->codec, z, blob, len, &raw, &raw_len, why, sizeof why), MCPP_OK);
    int refused = 0, same = 0, another = 0;
    for (size_t at = 0; raw && at < len; at++) {
        for (size_t f = 0; f < sizeof FLIPS; f++) {
            memcpy(copy, blob, len);
            copy[at] ^= FLIPS[f];
            unsigned char *got = NULL;
            size_t got_len = 0;
            mcpp_receipt *r = NULL;
            if (mcpp_store_unpack_image(s->codec, z, copy, len, &got, &got_len, why, sizeof why) != MCPP_OK ||
                mcpp_receipt_image_read(&r, got, got_len, "lz4img", why, sizeof why) != MCPP_OK)
                refused++;
            else if (got_len == raw_len && memcmp(got, raw, raw_len) == 0)
                same++;
            else
                another++;
            mcpp_receipt_free(r);
            free(got);
        }
    }
    CHECK_INT_EQ(another, 0);
    CHECK(refused > (int)(3 * len));
    damage_case_close(&c);
    free(raw);
    free(copy);
    free(blob);
}

/* The dictionaries are part of every compressed body's truth: one damaged is
 * reported by check (and by any read of a body that needs it), never read
 * silently. */
TEST(a_damaged_dictionary_is_reported_by_check)
{
    make_store("dict.db");
    const char *path = db_path("dict.db");
    run_sql(path, "UPDATE store_dicts SET dict = CAST(substr(dict, 1, 99) || X'5A' || substr(dict, 101) AS BLOB)"
                  " WHERE kind = 'body'");
    mcpp_store *s = NULL;
    char *report = NULL, *all = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_check(&report, s), MCPP_EINVALID);
    if (report) CHECK_CONTAINS(report, "dictionary 1 (body): damaged");
    if (report) CHECK_CONTAINS(report, "body image-000000: no longer loads");
    mcpp_free(report);
    CHECK_INT_EQ(mcpp_store_export(&all, s, NULL, "jsonl"), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "dictionary 1 is damaged");
    mcpp_free(all);
    mcpp_store_close(s);
}

/* The store's body is written compact directly; it must be byte for byte the
 * indented canonical JSON folded (ids and digests hash the canonical text). */
static void check_compact_equals_folded(const mcpp_receipt *r, const char *what)
{
    char *pretty = NULL;
    size_t len = 0;
    CHECK_INT_EQ(mcpp_receipt_write(&pretty, &len, r, MCPP_FORMAT_JSON), MCPP_OK);
    if (!pretty) return;
    len = mcpp_store_fold_json(pretty, len);
    mcpp_strbuf sb;
    mcpp_sb_init(&sb, NULL, 0);
    CHECK_INT_EQ(mcpp_write_json_compact(&sb, r), 0);
    CHECK(sb.data != NULL && sb.len == len && memcmp(sb.data, pretty, len) == 0);
    if (!sb.data || sb.len != len || memcmp(sb.data, pretty, len) != 0)
        fprintf(stderr, "%s: compact\n%s\nfolded\n%s\n", what, sb.data ? sb.data : "(null)", pretty);
    mcpp_sb_free(&sb);
    mcpp_free(pretty);
}

TEST(the_compact_body_is_the_canonical_json_folded)
{
    static const char *const examples[] = {
        "nam52_dense.json", "nam56r_cold_boot.json", "nam56r_jagged_graph_breaks.json", "nam56r_padded.json",
        "h200_requested_h100_observed.json", "nam56r_synthetic_data.json", "nam56r_warm_cache.json",
        "schema2/mlperf_llama2_70b_lora.json", "schema2/pytest_benchmark_sorted.json"};
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", MCPP_STORE_EXAMPLES_DIR, examples[i]);
        mcpp_receipt *r = NULL;
        CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, path, NULL), MCPP_OK);
        if (r) check_compact_equals_folded(r, examples[i]);
        mcpp_receipt_free(r);
    }
    /* Free-form values of every shape: nested objects and arrays of objects,
     * empty ones, strings with escapes and spaces after a line break's place. */
    static const char text[] =
        "{\"schema\": \"mcpp.receipt/2\", \"id\": \"compact-1\", \"created_at\": \"2026-01-01T00:00:00Z\","
        " \"lane\": {\"name\": \"a\\n  b\"}, \"metrics\": {\"tokens_per_s\": 1.5},"
        " \"artifacts\": [{\"kind\": \"log\", \"uri\": \"file:///x y\"}, {\"kind\": \"trace\", \"uri\": \"z\"}],"
        " \"extra\": {\"e\": {}, \"l\": [], \"m\": [{\"k\": [1, {\"q\": null}]}, 2, \"s\"],"
        " \"n\": {\"deep\": {\"er\": [true, false, -0.5e-9]}}}}";
    mcpp_receipt *r = NULL;
    int rc = mcpp_receipt_load_buffer(&r, NULL, text, strlen(text), MCPP_FORMAT_JSON, "compact", NULL);
    CHECK_INT_EQ(rc, MCPP_OK);
    if (rc) fprintf(stderr, "%s\n", mcpp_error_last() ? mcpp_error_last()->message : "?");
    if (r) check_compact_equals_folded(r, "free-form");
    mcpp_receipt_free(r);
}

/* A row an add fills keeps its packed body and no text (the text is written
 * in the filling thread's buffer, reused row after row, and written again
 * only for a conflict): the blob is exactly the frame, unpacks to the
 * canonical JSON, and stays so when the next row is filled on that thread.
 * A re-add is still "unchanged" and another body under the id a conflict. */
TEST(an_added_row_keeps_only_its_own_packed_body)
{
    make_store("rowbody.db");
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("rowbody.db"), 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_codec_refresh(s), MCPP_OK);
    mcpp_store_zctx *z = mcpp_store_zctx_new();
    const char *names[2] = {"nam52_dense.json", "nam56r_padded.json"};
    mcpp_receipt *rs[2] = {NULL, NULL};
    mcpp_store_row rows[2];
    for (int i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", MCPP_STORE_EXAMPLES_DIR, names[i]);
        CHECK_INT_EQ(mcpp_receipt_load_file(&rs[i], NULL, path, NULL), MCPP_OK);
        CHECK_INT_EQ(mcpp_store_row_fill(&rows[i], rs[i], "metrics.tokens_per_s", s->codec, z, NULL, 0), MCPP_OK);
    }
    for (int i = 0; i < 2; i++) {
        CHECK(rows[i].body == NULL);
        CHECK(rows[i].packed_body != NULL && mcpp_store_body_is_packed(rows[i].packed_body, rows[i].packed_body_len));
        char *text = NULL, why[128];
        size_t len = 0;
        CHECK_INT_EQ(mcpp_store_unpack_body(s->codec, z, rows[i].packed_body, rows[i].packed_body_len, &text, &len, why,
                                            sizeof why),
                     MCPP_OK);
        mcpp_strbuf want;
        mcpp_sb_init_heap(&want, 4096);
        CHECK_INT_EQ(mcpp_write_json_compact(&want, rs[i]), MCPP_OK);
        CHECK(text != NULL && len == want.len && memcmp(text, want.data, len) == 0);
        mcpp_sb_free(&want);
        free(text);
        mcpp_store_row_clear(&rows[i]);
    }
    mcpp_store_zctx_free(z);
    mcpp_store_add_result res = {0, 0, 0};
    const mcpp_receipt *again[2] = {rs[0], rs[1]};
    CHECK_INT_EQ(mcpp_store_add(&res, s, again, 2), MCPP_OK);
    CHECK_INT_EQ((int)res.added, 2);
    CHECK_INT_EQ(mcpp_store_add(&res, s, again, 2), MCPP_OK);
    CHECK_INT_EQ((int)res.unchanged, 2);
    char *other = NULL;
    size_t other_len = 0;
    CHECK_INT_EQ(mcpp_receipt_write(&other, &other_len, rs[0], MCPP_FORMAT_JSON), MCPP_OK);
    replace_once(&other, "\"seq_len\": 4096", "\"seq_len\": 8192");
    mcpp_receipt *changed = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&changed, NULL, other, strlen(other), MCPP_FORMAT_JSON, "changed", NULL),
                 MCPP_OK);
    const mcpp_receipt *conflict[1] = {changed};
    CHECK_INT_EQ(mcpp_store_add(&res, s, conflict, 1), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "conflict: receipt");
    mcpp_receipt_free(changed);
    mcpp_free(other);
    for (int i = 0; i < 2; i++)
        mcpp_receipt_free(rs[i]);
    mcpp_store_close(s);
}

/* Issue 50 item 2: bodies and images are packed as LZ4 blocks (version 8),
 * receipts unlike the dictionary's samples too, and read back as added. */
TEST(bodies_and_images_are_packed_as_lz4_blocks)
{
    /* each carries 2,000 letters of its own, which the dictionary lacks */
    enum { N = 24, LETTERS = 2000 };
    const char *path = db_path("literals.db");
    unlink(path);
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_CREATE), MCPP_OK);
    mcpp_receipt *rs[N];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        char note[LETTERS + 1], text[LETTERS + 512];
        for (int k = 0; k < LETTERS; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            note[k] = (char)('a' + x % 26);
        }
        note[LETTERS] = '\0';
        snprintf(
            text, sizeof text,
            "{\"schema\": \"mcpp.receipt/2\", \"id\": \"letters-%02d\", \"created_at\": \"2026-01-01T00:00:%02dZ\","
            " \"lane\": {\"name\": \"letters\"}, \"metrics\": {\"tokens_per_s\": %d.5}, \"extra\": {\"note\": \"%s\"}}",
            i, i, 100 + i, note);
        rs[i] = NULL;
        CHECK_INT_EQ(mcpp_receipt_load_buffer(&rs[i], NULL, text, strlen(text), MCPP_FORMAT_JSON, "letters", NULL),
                     MCPP_OK);
    }
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, N), MCPP_OK);
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, NULL), MCPP_OK); /* makes the images */
    CHECK_INT_EQ((int)mcpp_receipt_set_count(set), N);
    for (int i = 0; set && i < N; i++) { /* and every receipt reads back as added */
        char *want = NULL, *got = NULL;
        size_t len = 0;
        CHECK_INT_EQ(mcpp_receipt_write(&want, &len, rs[i], MCPP_FORMAT_JSON), MCPP_OK);
        CHECK_INT_EQ(mcpp_receipt_write(&got, &len, mcpp_receipt_set_items(set)[i], MCPP_FORMAT_JSON), MCPP_OK);
        CHECK(want && got && strcmp(want, got) == 0);
        mcpp_free(want);
        mcpp_free(got);
    }
    mcpp_receipt_set_free(set);
    mcpp_store_close(s);
    for (int i = 0; i < N; i++)
        mcpp_receipt_free(rs[i]);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    CHECK_INT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_prepare_v2(db, "SELECT body, image FROM receipts", -1, &st, NULL), SQLITE_OK);
    int bodies = 0, images = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *body = sqlite3_column_blob(st, 0), *image = sqlite3_column_blob(st, 1);
        size_t body_len = (size_t)sqlite3_column_bytes(st, 0), image_len = (size_t)sqlite3_column_bytes(st, 1);
        bodies += mcpp_store_body_is_packed(body, body_len) && memcmp(body, "MCLB", 4) == 0;
        images += mcpp_store_image_is_packed(image, image_len) && memcmp(image, "MCPPIMGL", 8) == 0;
    }
    CHECK_INT_EQ(bodies, N);
    CHECK_INT_EQ(images, N);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpp-store-image-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    RUN(an_add_stores_no_image_and_the_first_read_makes_every_one);
    RUN(a_read_while_another_writer_holds_the_lock_reads_the_bodies_and_writes_nothing);
    RUN(a_query_loads_from_the_image_and_check_still_reads_the_body);
    RUN(damaged_truncated_garbage_and_foreign_images_fall_back_to_the_body);
    RUN(a_read_rewrites_images_of_another_build_and_missing_ones);
    RUN(forged_images_with_a_valid_checksum_never_crash_the_loader);
    RUN(an_image_frame_claiming_more_than_its_header_allows_is_refused_before_inflating);
    RUN(many_rows_across_batches_come_back_complete_equal_and_in_order);
    RUN(rows_from_before_compression_read_check_and_add_as_before);
    RUN(rows_packed_by_zstd_before_version_8_read_check_and_add_as_before);
    RUN(a_damaged_lz4_body_is_refused_never_read_as_another_text);
    RUN(a_damaged_lz4_image_never_reads_as_another_receipt);
    RUN(a_damaged_dictionary_is_reported_by_check);
    RUN(the_compact_body_is_the_canonical_json_folded);
    RUN(an_added_row_keeps_only_its_own_packed_body);
    RUN(bodies_and_images_are_packed_as_lz4_blocks);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    for (size_t i = 0; i < RUNS; i++) free(want_json[i]);
    free(fixture_base);
    TEST_MAIN_END();
}
