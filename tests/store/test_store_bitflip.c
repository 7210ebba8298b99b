/*
 * test_store_bitflip.c — single-bit flips in a real store's caches (issue 28:
 * 2 of 150 flips in the lane summaries changed `frontier --store` while
 * `store check` said ok). A store of example and fixture receipts in several
 * lanes; each trial flips one random bit of one row's image, one lane
 * summary or one row's lane columns (written back with SQLite, as bit rot on
 * a page would read), judges the store (store_oracle.h: the answers are the
 * bodies', or check reports a problem) and puts the bytes back. No trial may
 * crash, and none may diverge silently. The counts are printed; the number
 * of trials is MCPP_BITFLIP_TRIALS (default 300), the seed MCPP_BITFLIP_SEED.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test_util.h"
#include "mcpp_receipts.h"
#include "store_fixture.h"
#include "store_oracle.h"

#define FIXTURES 12

static char tmpdir[128];
static char db[256];

static uint64_t rng_state;
static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void make_store(void)
{
    static const char *const EXAMPLES[] = {"nam56r_padded.json", "nam56r_padded_run2.json", "nam56r_padded_run3.json",
                                           "nam52_dense.json", "nam56r_jagged_graph_breaks.json",
                                           "nam56r_cold_boot.json", "h200_requested_h100_observed.json"};
    enum { N_EX = sizeof EXAMPLES / sizeof EXAMPLES[0] };
    mcpp_receipt *rs[FIXTURES + N_EX];
    size_t n = 0;
    for (size_t i = 0; i < FIXTURES; i++) rs[n++] = fixture_numbered("flip", i, 400000.0 + 91.0 * (double)i);
    for (size_t i = 0; i < N_EX; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", MCPP_STORE_EXAMPLES_DIR, EXAMPLES[i]);
        if (mcpp_receipt_load_file(&rs[n], NULL, path, NULL) != MCPP_OK) abort();
        n++;
    }
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, db, MCPP_STORE_CREATE) != MCPP_OK) abort();
    if (mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, n) != MCPP_OK) abort();
    for (size_t i = 0; i < n; i++) mcpp_receipt_free(rs[i]);
    fixture_save_summaries(s); /* the flips damage saved summaries */
    mcpp_store_close(s);
}

/* What a trial damages: a column of one row of a table. */
typedef struct target {
    const char *table, *column, *key_column;
    const char *what; /* for the counts */
} target;

static const target TARGETS[] = {
    {"receipts", "image", "rowid", "images"},
    {"lane_summaries", "summary", "rowid", "lane summaries"},
    {"receipts", "lane_key", "rowid", "lane keys"},
    {"receipts", "lane_label", "rowid", "lane labels"},
};
enum { N_TARGETS = sizeof TARGETS / sizeof TARGETS[0] };

static long long scalar(sqlite3 *h, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Reads the bytes of t's column in row `rowid` (malloc'ed; type kept). */
static unsigned char *read_cell(sqlite3 *h, const target *t, long long rowid, size_t *len, int *type)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE %s = ?1", t->column, t->table, t->key_column);
    sqlite3_stmt *st = NULL;
    unsigned char *bytes = NULL;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) abort();
    sqlite3_bind_int64(st, 1, rowid);
    if (sqlite3_step(st) == SQLITE_ROW) {
        *type = sqlite3_column_type(st, 0);
        const void *data = *type == SQLITE_BLOB ? sqlite3_column_blob(st, 0) : (const void *)sqlite3_column_text(st, 0);
        *len = (size_t)sqlite3_column_bytes(st, 0);
        bytes = malloc(*len + 1);
        if (*len) memcpy(bytes, data, *len);
    }
    sqlite3_finalize(st);
    return bytes;
}

static void write_cell(sqlite3 *h, const target *t, long long rowid, const unsigned char *bytes, size_t len, int type)
{
    char sql[200];
    snprintf(sql, sizeof sql, "UPDATE %s SET %s = ?2 WHERE %s = ?1", t->table, t->column, t->key_column);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) abort();
    sqlite3_bind_int64(st, 1, rowid);
    if (type == SQLITE_BLOB) sqlite3_bind_blob(st, 2, bytes, (int)len, SQLITE_TRANSIENT);
    else sqlite3_bind_text(st, 2, (const char *)bytes, (int)len, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) abort();
    sqlite3_finalize(st);
}

TEST(single_bit_flips_in_images_summaries_and_columns_never_diverge_silently)
{
    make_store();
    CHECK_INT_EQ(oracle_judge(db), ORACLE_SAME);
    const char *trials_text = getenv("MCPP_BITFLIP_TRIALS"), *seed_text = getenv("MCPP_BITFLIP_SEED");
    long trials = trials_text ? atol(trials_text) : 300;
    rng_state = seed_text ? strtoull(seed_text, NULL, 10) : 0x9E3779B97F4A7C15ull;
    if (!rng_state) rng_state = 1;
    long counts[N_TARGETS][3] = {{0}};
    sqlite3 *h = NULL;
    for (long k = 0; k < trials; k++) {
        const target *t = &TARGETS[next_random() % N_TARGETS];
        char sql[200];
        if (sqlite3_open(db, &h) != SQLITE_OK) abort();
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", t->table);
        long long rows = scalar(h, sql);
        if (rows <= 0) abort();
        snprintf(sql, sizeof sql, "SELECT %s FROM %s ORDER BY %s LIMIT 1 OFFSET %llu", t->key_column, t->table,
                 t->key_column, (unsigned long long)(next_random() % (uint64_t)rows));
        long long rowid = scalar(h, sql);
        size_t len = 0;
        int type = 0;
        unsigned char *bytes = read_cell(h, t, rowid, &len, &type);
        if (!bytes || len == 0) abort();
        size_t at = (size_t)(next_random() % len);
        unsigned char bit = (unsigned char)(1u << (next_random() % 8));
        bytes[at] ^= bit;
        write_cell(h, t, rowid, bytes, len, type);
        sqlite3_close(h);
        oracle_result r = oracle_judge(db);
        counts[t - TARGETS][r]++;
        if (r == ORACLE_SILENT)
            fprintf(stderr, "trial %ld: %s row %lld, byte %zu, bit 0x%02x\n", k, t->what, rowid, at, bit);
        CHECK(r != ORACLE_SILENT);
        bytes[at] ^= bit; /* put it back */
        if (sqlite3_open(db, &h) != SQLITE_OK) abort();
        write_cell(h, t, rowid, bytes, len, type);
        sqlite3_close(h);
        free(bytes);
    }
    CHECK_INT_EQ(oracle_judge(db), ORACLE_SAME);
    long silent = 0;
    for (int i = 0; i < N_TARGETS; i++) {
        printf("%-15s %4ld flips: %4ld caught by check, %4ld answers unchanged, %ld silent\n", TARGETS[i].what,
               counts[i][0] + counts[i][1] + counts[i][2], counts[i][ORACLE_CAUGHT], counts[i][ORACLE_SAME],
               counts[i][ORACLE_SILENT]);
        silent += counts[i][ORACLE_SILENT];
    }
    printf("%ld single-bit flips, %ld silent divergences\n", trials, silent);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpp-store-bitflip-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    snprintf(db, sizeof db, "%s/flip.db", tmpdir);
    RUN(single_bit_flips_in_images_summaries_and_columns_never_diverge_silently);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    free(fixture_base);
    TEST_MAIN_END();
}
