/*
 * fuzz_store.c — libFuzzer target over a store's caches (issue 28): the
 * input tampers with a real store's rows, images and lane summaries, and the
 * store must never crash, never trip a sanitizer and never diverge silently
 * (tests/store/store_oracle.h: the answers are the bodies', or `store check`
 * reports a problem).
 *
 * At start-up a store of example receipts in several lanes is built once; each
 * input restores it (a file copy) and is read as a list of edits:
 *
 *   byte 0      what: 0 image, 1 lane summary, 2 lane_key, 3 metric_value,
 *               4 a whole image replaced by the rest of the input,
 *               5 a whole summary replaced by the rest of the input,
 *               6 an image replaced by a frame of 2^(10 + byte 2 % 19)
 *               bytes (up to 256 MiB, a few KB compressed), zeros after the
 *               row's own header or (byte 3 odd) after that header with its
 *               arena claimed as long as the frame (issue 48 item 1: the
 *               loader must not inflate what no image may hold; libFuzzer's
 *               -timeout and -rss_limit_mb catch it when it does),
 *               7 a byte of an image as stored: its LZ4 block, the length
 *               and dictionary id before it (nothing recomputed)
 *   byte 1      which row (modulo the rows)
 *   bytes 2-3   where in the value (modulo its length), little endian
 *   byte 4      the byte written there (images: with the checksum recomputed,
 *               as a forger would, so the edit reaches the value checks)
 *
 * repeated; kinds 4 and 5 take the rest of the input. The image checksum is
 * recomputed with the library's private hash (util/hash.h). Images are stored
 * compressed (LZ4 since schema 8): an edit unpacks the image, changes it and
 * packs it again (store_images.h); a whole replacement stores the input as it
 * is. Kind 6's frames are zstd, as schemas 6 and 7 wrote them, which every
 * later library still reads.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "mcpp_receipts.h"
#include "util/hash.h"

#include "../store/store_images.h"
#include "../store/store_oracle.h"

#define IMAGE_HEADER 40
#define IMAGE_CHECKSUM_AT 16

static char template_db[256], work_db[256];

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (!in || !out) abort();
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) abort();
    fclose(in);
    fclose(out);
}

static void build_template(void)
{
    static const char *const EXAMPLES[] = {"nam56r_padded.json", "nam56r_padded_run2.json", "nam56r_padded_run3.json",
                                           "nam52_dense.json", "nam56r_jagged_graph_breaks.json",
                                           "h200_requested_h100_observed.json"};
    enum { N = sizeof EXAMPLES / sizeof EXAMPLES[0] };
    char dir[] = "/tmp/mcpp-fuzz-store-XXXXXX";
    if (!mkdtemp(dir)) abort();
    snprintf(template_db, sizeof template_db, "%s/template.db", dir);
    snprintf(work_db, sizeof work_db, "%s/work.db", dir);
    mcpp_receipt *rs[N];
    for (size_t i = 0; i < N; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", MCPP_FUZZ_EXAMPLES, EXAMPLES[i]);
        if (mcpp_receipt_load_file(&rs[i], NULL, path, NULL) != MCPP_OK) abort();
    }
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, template_db, MCPP_STORE_CREATE) != MCPP_OK ||
        mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, N) != MCPP_OK)
        abort();
    mcpp_store_close(s);
    for (size_t i = 0; i < N; i++) mcpp_receipt_free(rs[i]);
    /* one file, no WAL beside it: a copy is the whole store */
    sqlite3 *h = NULL;
    if (sqlite3_open(template_db, &h) != SQLITE_OK ||
        sqlite3_exec(h, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) != SQLITE_OK)
        abort();
    sqlite3_close(h);
}

typedef struct cell {
    const char *table, *column;
    int blob;
    int as_stored; /* an image edited in its packed bytes, not unpacked */
} cell;

static const cell CELLS[] = {
    {"receipts", "image", 1, 0},        {"lane_summaries", "summary", 0, 0}, {"receipts", "lane_key", 0, 0},
    {"receipts", "metric_value", 0, 0}, {"receipts", "image", 1, 0},         {"lane_summaries", "summary", 0, 0},
    {"receipts", "image", 1, 0},        {"receipts", "image", 1, 1},
};
enum { N_CELLS = sizeof CELLS / sizeof CELLS[0] };

/* The rowid of the `pick`-th row of a table (modulo its rows), or -1. */
static long long pick_row(sqlite3 *h, const char *table, unsigned pick)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT rowid FROM %s ORDER BY rowid LIMIT 1 OFFSET (%u %% max(1, (SELECT count(*) FROM %s)))",
             table, pick, table);
    sqlite3_stmt *st = NULL;
    long long rowid = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        rowid = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rowid;
}

static void put(sqlite3 *h, const cell *c, long long rowid, const unsigned char *bytes, size_t len, double number,
                int is_number)
{
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE %s SET %s = ?2 WHERE rowid = ?1", c->table, c->column);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) abort();
    sqlite3_bind_int64(st, 1, rowid);
    if (is_number) sqlite3_bind_double(st, 2, number);
    else if (c->blob) sqlite3_bind_blob(st, 2, bytes, (int)len, SQLITE_TRANSIENT);
    else sqlite3_bind_text(st, 2, (const char *)bytes, (int)len, SQLITE_TRANSIENT);
    sqlite3_step(st); /* a constraint may refuse the edit: then nothing changed */
    sqlite3_finalize(st);
}

/* A zstd frame of `size` bytes: `head` (HEADER bytes, may be NULL), then
 * zeros; made in 1 MiB steps, so a 256 MiB frame needs no 256 MiB buffer. */
static unsigned char *zero_frame(size_t size, const unsigned char *head, size_t *out_len)
{
    static unsigned char chunk[1 << 20];
    ZSTD_CCtx *c = ZSTD_createCCtx();
    size_t cap = ZSTD_compressBound(size) / 64 + 65536, at = 0; /* zeros compress ~8000:1 */
    unsigned char *out = malloc(cap);
    if (!c || !out) abort();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setPledgedSrcSize(c, size);
    for (size_t done = 0; done < size;) {
        size_t n = size - done < sizeof chunk ? size - done : sizeof chunk;
        memset(chunk, 0, sizeof chunk);
        if (done == 0 && head) memcpy(chunk, head, n < IMAGE_HEADER ? n : IMAGE_HEADER);
        ZSTD_inBuffer in = {chunk, n, 0};
        done += n;
        ZSTD_EndDirective end = done == size ? ZSTD_e_end : ZSTD_e_continue;
        size_t left;
        do {
            ZSTD_outBuffer o = {out + at, cap - at, 0};
            left = ZSTD_compressStream2(c, &o, &in, end);
            at += o.pos;
            if (ZSTD_isError(left) || at == cap) abort();
        } while (end == ZSTD_e_end ? left != 0 : in.pos < in.size);
    }
    ZSTD_freeCCtx(c);
    *out_len = at;
    return out;
}

/* Row `rowid`'s image replaced by a frame claiming 2^(10 + data[2] % 19)
 * bytes, packed as the store packs one without a dictionary. */
static void put_bomb(sqlite3 *h, long long rowid, const uint8_t *data)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, "SELECT image FROM receipts WHERE rowid = ?1", -1, &st, NULL) != SQLITE_OK) abort();
    sqlite3_bind_int64(st, 1, rowid);
    unsigned char blob_head[20] = "MCPPIMGZ", head[IMAGE_HEADER];
    unsigned char *raw = NULL;
    size_t raw_len = 0;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) >= 16) {
        memcpy(blob_head + 8, (const unsigned char *)sqlite3_column_blob(st, 0) + 8, 8);
        raw = test_image_unpack(work_db, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), &raw_len);
    }
    sqlite3_finalize(st);
    memset(head, 0, sizeof head);
    if (raw && raw_len >= IMAGE_HEADER) memcpy(head, raw, IMAGE_HEADER);
    free(raw);
    size_t size = (size_t)1 << (10 + data[2] % 19);
    if (data[3] & 1) { /* image_header: arena_size at 24, struct_size at 32 */
        uint32_t struct_size, arena;
        memcpy(&struct_size, head + 32, sizeof struct_size);
        arena = (uint32_t)(size - IMAGE_HEADER - struct_size);
        memcpy(head + 24, &arena, sizeof arena);
    }
    size_t frame_len = 0;
    unsigned char *frame = zero_frame(size, head, &frame_len);
    unsigned char *blob = malloc(sizeof blob_head + frame_len);
    if (!blob) abort();
    memset(blob_head + 16, 0, 4); /* no dictionary */
    memcpy(blob, blob_head, sizeof blob_head);
    memcpy(blob + sizeof blob_head, frame, frame_len);
    put(h, &CELLS[6], rowid, blob, sizeof blob_head + frame_len, 0, 0);
    free(blob);
    free(frame);
}

/* One edit at data[0..]; returns the bytes it used. */
static size_t apply_edit(sqlite3 *h, const uint8_t *data, size_t size)
{
    const cell *c = &CELLS[data[0] % N_CELLS];
    int whole = data[0] % N_CELLS == 4 || data[0] % N_CELLS == 5;
    long long rowid = pick_row(h, c->table, size > 1 ? data[1] : 0);
    if (rowid < 0) return size;
    if (data[0] % N_CELLS == 6) {
        if (size < 4) return size;
        put_bomb(h, rowid, data);
        return 4;
    }
    if (whole) {
        size_t from = size > 2 ? 2 : size;
        put(h, c, rowid, data + from, size - from, 0, 0);
        return size;
    }
    if (size < 5) return size;
    if (data[0] % N_CELLS == 3) { /* a number column: an arbitrary double */
        double v;
        uint8_t raw[8] = {data[2], data[3], data[4], data[1], data[2] ^ 0x5A, data[3], data[4], data[1]};
        memcpy(&v, raw, sizeof v);
        put(h, c, rowid, NULL, 0, v, 1);
        return 5;
    }
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE rowid = ?1", c->column, c->table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) abort();
    sqlite3_bind_int64(st, 1, rowid);
    unsigned char *bytes = NULL;
    size_t len = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const void *v = c->blob ? sqlite3_column_blob(st, 0) : (const void *)sqlite3_column_text(st, 0);
        len = (size_t)sqlite3_column_bytes(st, 0);
        if (v && len && (bytes = malloc(len))) memcpy(bytes, v, len);
    }
    sqlite3_finalize(st);
    if (bytes && c->blob && !c->as_stored) { /* the image itself, as the reader sees it (stored compressed) */
        size_t raw_len = 0;
        unsigned char *raw = test_image_unpack(work_db, bytes, len, &raw_len);
        free(bytes);
        bytes = raw;
        len = raw_len;
    }
    if (bytes && len) {
        size_t at = ((size_t)data[2] | (size_t)data[3] << 8) % len;
        bytes[at] = data[4];
        if (c->blob && !c->as_stored && len > IMAGE_HEADER && at >= IMAGE_HEADER) { /* a forger's valid checksum */
            uint64_t sum = mcpp_checksum_blob(bytes + IMAGE_HEADER, len - IMAGE_HEADER, MCPP_FNV_OFFSET);
            memcpy(bytes + IMAGE_CHECKSUM_AT, &sum, sizeof sum);
        }
        if (c->blob && !c->as_stored) {
            size_t packed_len = 0;
            unsigned char *packed = test_image_pack(work_db, bytes, len, &packed_len);
            put(h, c, rowid, packed, packed_len, 0, 0);
            free(packed);
        } else {
            put(h, c, rowid, bytes, len, 0, 0);
        }
    }
    free(bytes);
    return 5;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        build_template();
        ready = 1;
    }
    if (size == 0) return 0;
    copy_file(template_db, work_db);
    sqlite3 *h = NULL;
    if (sqlite3_open(work_db, &h) != SQLITE_OK) abort();
    for (size_t used = 0; used < size;) used += apply_edit(h, data + used, size - used);
    sqlite3_close(h);
    if (oracle_judge(work_db) == ORACLE_SILENT) {
        fprintf(stderr, "a silent divergence: the store's answers changed and store check says ok\n");
        abort();
    }
    return 0;
}
