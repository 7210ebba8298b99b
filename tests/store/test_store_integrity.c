/*
 * test_store_integrity.c — the body is the truth, everything else a verified
 * cache (issue 28). Images forged with a valid checksum — an enum index out
 * of range either way, a string that is not UTF-8, an integer beyond 2^53, a
 * value changed within its range — never crash a query and never change an
 * export; the refused ones are counted and read from their bodies; `store
 * check` names each one (and tampered row columns and lane summaries), and
 * `store check --repair` rewrites them from the bodies, after which check is
 * ok and the frontier is the one the bodies make.
 */
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test_util.h"
#include "mcpp_receipts.h"
#include "store_images.h"
#include "receipt/image.h"
#include "receipt/schema.h"
#include "store_fixture.h"
#include "util/hash.h"
#include "analysis/lane_internal.h"
#include "policy/policy_internal.h"
#include "receipt/fields.h"
#include "store/store_internal.h"
#include "util/strbuf.h"

/* Formats 2-4 pinned the whole key text of nam52_dense, nam56r_padded and
 * h200_requested_h100_observed (2: 0x7022bbd2524cb6c9, 3: 0x896e589cf2aecb41,
 * 4: 0xc57996242d6e5367); since the key's layout is part of the recorded
 * format by itself, the test pins how values are written: */
#define VALUES_OF_FORMAT_4 0x7208d46c2e0fa9e2ULL /* the values of VALUE_PATHS in the same three */

#define RUNS 12
#define HEADER 40      /* bytes of an image's header */
#define CHECKSUM_AT 16 /* where its checksum sits   */
#define FIELDS_AT (HEADER + offsetof(mcpp_receipt, f))
#define ARENA_AT (HEADER + sizeof(mcpp_receipt))
#define VICTIM "integrity-000005"

static char tmpdir[128];

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

static void make_store(const char *name)
{
    unlink(db_path(name));
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, db_path(name), MCPP_STORE_CREATE) != MCPP_OK) abort();
    mcpp_receipt *rs[RUNS];
    for (size_t i = 0; i < RUNS; i++) rs[i] = fixture_numbered("integrity", i, 400000.0 + 37.0 * (double)i);
    if (mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, RUNS) != MCPP_OK) abort();
    for (size_t i = 0; i < RUNS; i++) mcpp_receipt_free(rs[i]);
    mcpp_store_close(s);
}

static unsigned char *stored_image(const char *path, const char *id, size_t *len)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    unsigned char *copy = NULL;
    sqlite3_open(path, &db);
    sqlite3_prepare_v2(db, "SELECT image FROM receipts WHERE id = ?1", -1, &st, NULL);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) /* unpacked: store_images.h */
        copy = test_image_unpack(path, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), len);
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (!copy) abort();
    return copy;
}

/* Stores `img` as id's image with a checksum that matches (what a forger does). */
static void put_image(const char *path, const char *id, unsigned char *img, size_t len)
{
    uint64_t sum = mcpp_checksum_blob(img + HEADER, len - HEADER, MCPP_FNV_OFFSET);
    memcpy(img + CHECKSUM_AT, &sum, sizeof sum);
    size_t packed_len = 0;
    unsigned char *packed = test_image_pack(path, img, len, &packed_len); /* as the store keeps it */
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3_open(path, &db);
    sqlite3_prepare_v2(db, "UPDATE receipts SET image = ?2 WHERE id = ?1", -1, &st, NULL);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, packed, (int)packed_len, SQLITE_TRANSIENT);
    free(packed);
    if (sqlite3_step(st) != SQLITE_DONE) abort();
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* The first field of `storage` present in the stored fixture (and, for
 * enums, with names), read from a receipt of the image. */
static int present_field(const char *path, int storage)
{
    size_t len = 0;
    unsigned char *img = stored_image(path, VICTIM, &len);
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_image_read(&r, img, len, NULL, NULL, 0) != MCPP_OK) abort();
    int found = -1;
    for (int id = 0; id < MCPP_FIELD_COUNT && found < 0; id++)
        if (mcpp_present(r, id) && mcpp_schema_entries[id].storage == storage &&
            (storage != MCPP_ST_STRING || !mcpp_schema_entries[id].info.enum_names) && id != MCPP_F_id)
            found = id;
    mcpp_receipt_free(r);
    free(img);
    if (found < 0) abort();
    return found;
}

/* The JSON lines an export of the store writes. */
static char *export_text(const char *path)
{
    mcpp_store *s = NULL;
    char *text = NULL;
    if (mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY) != MCPP_OK) abort();
    CHECK_INT_EQ(mcpp_store_export(&text, s, NULL, "jsonl"), MCPP_OK);
    mcpp_store_close(s);
    return text;
}

/* Every receipt of a query, written as JSON lines, and the images refused on the way. */
static char *query_text(const char *path, size_t *refused)
{
    mcpp_store *s = NULL;
    mcpp_receipt_set *set = NULL;
    if (mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY) != MCPP_OK) abort();
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, NULL), MCPP_OK);
    size_t cap = 1 << 16, used = 0;
    char *all = calloc(1, cap);
    for (size_t i = 0; set && i < mcpp_receipt_set_count(set); i++) {
        char *json = NULL;
        size_t len = 0;
        CHECK_INT_EQ(mcpp_receipt_write(&json, &len, mcpp_receipt_set_items(set)[i], MCPP_FORMAT_JSON), MCPP_OK);
        while (used + len + 1 >= cap) all = realloc(all, cap *= 2);
        memcpy(all + used, json, len);
        used += len;
        all[used] = '\0';
        mcpp_free(json);
    }
    *refused = mcpp_store_images_refused(s);
    mcpp_receipt_set_free(set);
    mcpp_store_close(s);
    return all;
}

/* `store check` (or --repair) on the store: its status and report. */
static int check_report(const char *path, char **report, int repair)
{
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, path, repair ? 0 : MCPP_STORE_READ_ONLY) != MCPP_OK) abort();
    int rc = repair ? mcpp_store_repair(report, s) : mcpp_store_check(report, s);
    mcpp_store_close(s);
    return rc;
}

static char *frontier_text(const char *path)
{
    mcpp_store *s = NULL;
    mcpp_frontier *f = NULL;
    char *text = NULL;
    if (mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY) != MCPP_OK) abort();
    CHECK_INT_EQ(mcpp_store_frontier(&f, s, NULL), MCPP_OK);
    if (f) CHECK_INT_EQ(mcpp_frontier_render(&text, f, MCPP_OUTPUT_JSON), MCPP_OK);
    mcpp_frontier_free(f);
    mcpp_store_close(s);
    return text;
}

/* Forges VICTIM's image with `edit`, then: queries and exports are what the
 * bodies say, `refused_want` images were refused, check names the victim
 * with `words` and fails, a repair makes check ok and loads from images. */
static void forged_case(const char *name, void (*edit)(unsigned char *img, size_t len, const char *path),
                        size_t refused_want, const char *words)
{
    make_store(name);
    const char *path = db_path(name);
    size_t refused = 0;
    char *want_query = query_text(path, &refused);
    char *want_export = export_text(path);
    CHECK_INT_EQ((long long)refused, 0);
    size_t len = 0;
    unsigned char *img = stored_image(path, VICTIM, &len);
    edit(img, len, path);
    put_image(path, VICTIM, img, len);
    free(img);

    char *got_export = export_text(path);
    if (got_export && want_export) CHECK_STR_EQ(got_export, want_export); /* export reads the bodies */
    char *got_query = query_text(path, &refused);
    CHECK_INT_EQ((long long)refused, (long long)refused_want);
    if (refused_want && got_query && want_query) CHECK_STR_EQ(got_query, want_query);
    free(got_query);
    free(got_export);

    char *report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 0), MCPP_EINVALID);
    if (report) {
        CHECK_CONTAINS(report, "image " VICTIM ": ");
        CHECK_CONTAINS(report, words);
    }
    mcpp_free(report);
    report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 1), MCPP_OK);
    if (report) {
        CHECK_CONTAINS(report, "repaired: 1 row rewritten");
        CHECK_CONTAINS(report, "after the repair:\nok\n");
    }
    mcpp_free(report);
    got_query = query_text(path, &refused);
    CHECK_INT_EQ((long long)refused, 0);
    if (got_query && want_query) CHECK_STR_EQ(got_query, want_query);
    free(got_query);
    free(want_query);
    mcpp_free(want_export);
}

static void enum_to_100(unsigned char *img, size_t len, const char *path)
{
    (void)len;
    img[FIELDS_AT + mcpp_schema_entries[present_field(path, MCPP_ST_ENUM)].offset] = 100;
}

static void enum_to_minus_7(unsigned char *img, size_t len, const char *path)
{
    (void)len;
    img[FIELDS_AT + mcpp_schema_entries[present_field(path, MCPP_ST_ENUM)].offset] = (unsigned char)-7;
}

static void int_beyond_2_53(unsigned char *img, size_t len, const char *path)
{
    (void)len;
    int64_t v = (int64_t)1 << 60;
    memcpy(img + FIELDS_AT + mcpp_schema_entries[present_field(path, MCPP_ST_INT)].offset, &v, sizeof v);
}

static void int_doubled(unsigned char *img, size_t len, const char *path)
{
    (void)len;
    size_t at = FIELDS_AT + mcpp_schema_entries[present_field(path, MCPP_ST_INT)].offset;
    int64_t v;
    memcpy(&v, img + at, sizeof v);
    v = v * 2 + 2;
    memcpy(img + at, &v, sizeof v);
}

/* The first byte of a present string field becomes 0xFF (never valid UTF-8). */
static void string_not_utf8(unsigned char *img, size_t len, const char *path)
{
    uintptr_t stored;
    memcpy(&stored, img + FIELDS_AT + mcpp_schema_entries[present_field(path, MCPP_ST_STRING)].offset, sizeof stored);
    size_t at = ARENA_AT + (size_t)(stored - 1);
    if (stored == 0 || at >= len) abort();
    img[at] = 0xFF;
}

TEST(an_enum_index_of_100_is_refused_and_the_body_answers)
{
    forged_case("enum100.db", enum_to_100, 1, "enum index 100 is out of range");
}

TEST(an_enum_index_of_minus_7_is_refused_and_the_body_answers)
{
    forged_case("enum-7.db", enum_to_minus_7, 1, "enum index -7 is out of range");
}

TEST(an_integer_beyond_2_53_is_refused)
{
    forged_case("int53.db", int_beyond_2_53, 1, "outside +-2^53");
}

TEST(a_string_that_is_not_utf8_is_refused)
{
    forged_case("utf8.db", string_not_utf8, 1, "not valid UTF-8");
}

/* A value changed within its range passes validation (only the body could
 * say otherwise); check names the field with both values, export and repair
 * go by the body. */
TEST(a_value_changed_within_range_is_named_by_check_and_repaired)
{
    forged_case("seq.db", int_doubled, 0, ", its body says ");
}

TEST(tampered_row_columns_are_named_and_repaired)
{
    make_store("columns.db");
    const char *path = db_path("columns.db");
    run_sql(path, "UPDATE receipts SET lane_key = 'forged', metric_value = 1 WHERE id = '" VICTIM "'");
    char *report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 0), MCPP_EINVALID);
    if (report) {
        CHECK_CONTAINS(report, "row " VICTIM ": column lane_key is 'forged', its body gives '");
        CHECK_CONTAINS(report, "column metric_value differs from its body");
    }
    mcpp_free(report);
    report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 1), MCPP_OK);
    if (report) CHECK_CONTAINS(report, "after the repair:\nok\n");
    mcpp_free(report);
}

TEST(tampered_and_missing_lane_summaries_are_named_and_rebuilt)
{
    make_store("summaries.db");
    const char *path = db_path("summaries.db");
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, path, 0) != MCPP_OK)
        abort();
    fixture_save_summaries(s); /* what follows damages the saved summaries */
    mcpp_store_close(s);
    char *want = frontier_text(path);
    /* one summary loses a run from its values, an invented lane appears */
    run_sql(path, "UPDATE lane_summaries SET summary = replace(summary, '\"values\": [', '\"values\": [1, ')");
    run_sql(path, "INSERT INTO lane_summaries SELECT 'invented', summary FROM lane_summaries LIMIT 1");
    char *got = frontier_text(path);
    if (got && want) CHECK(strcmp(got, want) != 0); /* the cache is read as it is... */
    free(got);
    char *report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 0), MCPP_EINVALID); /* ...and check says so */
    if (report) {
        CHECK_CONTAINS(report, "differs from the summary its receipts make");
        CHECK_CONTAINS(report, ": no stored receipt belongs to this lane");
    }
    mcpp_free(report);
    report = NULL;
    run_sql(path, "DELETE FROM lane_summaries WHERE lane_key = 'invented'");
    run_sql(path, "DELETE FROM lane_summaries WHERE rowid = (SELECT min(rowid) FROM lane_summaries)");
    CHECK_INT_EQ(check_report(path, &report, 0), MCPP_EINVALID);
    if (report) CHECK_CONTAINS(report, ": missing");
    mcpp_free(report);
    report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 1), MCPP_OK);
    if (report) CHECK_CONTAINS(report, "lane summaries rebuilt");
    mcpp_free(report);
    got = frontier_text(path);
    if (got && want) CHECK_STR_EQ(got, want);
    free(got);
    free(want);
}

TEST(a_body_that_does_not_load_stays_a_problem_after_a_repair)
{
    make_store("body.db");
    const char *path = db_path("body.db");
    run_sql(path, "UPDATE receipts SET body = '{' WHERE id = '" VICTIM "'");
    char *report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 1), MCPP_EINVALID);
    if (report) {
        CHECK_CONTAINS(report, "after the repair:\nbody " VICTIM ": no longer loads: ");
    }
    mcpp_free(report);
}

/* Issue 48 item 5: what no add or remove writes is named by check: a
 * tombstone for a receipt that is still live, a tombstone whose body holds
 * another receipt, an empty image and an image that is not a blob. A repair
 * rewrites the images; the tombstones stay problems (which side is the truth
 * is the owner's call). */
TEST(a_forged_tombstone_and_an_empty_image_are_named_by_check)
{
    make_store("tombstone.db");
    const char *path = db_path("tombstone.db");
    run_sql(path, "INSERT INTO tombstones SELECT id, 'forged', '2026-01-01T00:00:00Z', body FROM receipts"
                  " WHERE id = '" VICTIM "'");
    run_sql(path, "INSERT INTO tombstones SELECT 'integrity-gone', 'forged', '2026-01-01T00:00:00Z', body"
                  " FROM receipts WHERE id = 'integrity-000001'");
    run_sql(path, "UPDATE receipts SET image = X'' WHERE id = 'integrity-000002'");
    run_sql(path, "UPDATE receipts SET image = 'text' WHERE id = 'integrity-000003'");
    char *report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 0), MCPP_EINVALID);
    if (report) {
        CHECK_CONTAINS(report, "tombstone " VICTIM ": the receipt is removed and live at once");
        CHECK_CONTAINS(report, "tombstone integrity-gone: its body holds another receipt");
        CHECK_CONTAINS(report, "image integrity-000002: empty; loads from its body");
        CHECK_CONTAINS(report, "image integrity-000003: not a blob; loads from its body");
    }
    mcpp_free(report);
    report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 1), MCPP_EINVALID);
    if (report) {
        const char *after = strstr(report, "after the repair:");
        CHECK(after != NULL);
        if (after) {
            CHECK(strstr(after, "integrity-000002") == NULL);
            CHECK(strstr(after, "integrity-000003") == NULL);
            CHECK_CONTAINS(after, "tombstone " VICTIM ": the receipt is removed and live at once");
        }
    }
    mcpp_free(report);
}

/* A store of the fixture's RUNS receipts and one of another lane (nam56r_padded). */
static void make_store_of_two_lanes(const char *name)
{
    make_store(name);
    mcpp_store *s = NULL;
    mcpp_receipt *other = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&other, NULL, MCPP_STORE_EXAMPLES_DIR "/nam56r_padded.json", NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_open(&s, db_path(name), 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)&other, 1), MCPP_OK);
    mcpp_store_close(s);
    mcpp_receipt_free(other);
}

/* Issue 48 item 5: a row copied under a new id showed in `history` as one
 * more run (exit 0) while `store ls` refused the store; a row whose columns
 * file it under another lane was read there as its run. History reads each
 * run from its verified receipt, so both fail as a query does. */
TEST(history_reads_runs_from_verified_receipts_not_columns)
{
    make_store("dup.db");
    const char *path = db_path("dup.db");
    mcpp_store *s = NULL;
    mcpp_history *h = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_history_build(&h, s, "family=NAM52", NULL, NULL), MCPP_OK);
    CHECK_INT_EQ(h ? (long long)mcpp_history_run_count(h, 0) : -1, RUNS);
    mcpp_history_free(h);
    h = NULL;
    mcpp_store_close(s);
    run_sql(path, "INSERT INTO receipts(id, created_at, git_commit, tool, name, lane_key, lane_short, lane_label,"
                  " metric, metric_value, body, image, added_at) SELECT 'integrity-copy', created_at, git_commit,"
                  " tool, name, lane_key, lane_short, lane_label, metric, metric_value, body, image, added_at"
                  " FROM receipts WHERE id = '" VICTIM "'");
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, NULL), MCPP_EINVALID); /* what store ls says */
    CHECK_INT_EQ(mcpp_history_build(&h, s, "family=NAM52", NULL, NULL), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_history_build(&h, s, NULL, "tokens_per_s", NULL), MCPP_EINVALID);
    CHECK(h == NULL);
    mcpp_store_close(s);
    /* a row filed under another lane by its columns */
    make_store_of_two_lanes("misfiled.db");
    path = db_path("misfiled.db");
    run_sql(path, "UPDATE receipts SET (lane_key, lane_short) = (SELECT lane_key, lane_short FROM receipts"
                  " WHERE id = '" VICTIM "') WHERE id NOT LIKE 'integrity-%'");
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_history_build(&h, s, "family=NAM52", NULL, NULL), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "is filed under another lane than its own");
    CHECK(h == NULL);
    mcpp_store_close(s);
}

/* Rows as a build of another lane key text wrote them: every key changed,
 * and the format unrecorded (a store an older build wrote). */
static void age_lane_keys(const char *path)
{
    run_sql(path, "UPDATE receipts SET lane_key = 'old-format ' || lane_key, lane_short = 'lane-0ld'");
    run_sql(path, "DELETE FROM store_meta WHERE name = 'lane_key_format'");
}

/* Issue 48 item 5: the lane key text changed once without a version, and a
 * selector on such a store said it matched no lane. The store records the
 * format of its lane columns; a store with another (or none) is read with
 * columns derived from its receipts: read-only without writing the file,
 * read-write by rewriting them once. */
TEST(lane_columns_of_another_key_format_are_derived_again)
{
    make_store("lanes.db");
    const char *path = db_path("lanes.db");
    age_lane_keys(path);
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    mcpp_receipt_set *set = NULL;
    mcpp_store_query q = {0};
    q.lane = "family=NAM52";
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, &q), MCPP_OK);
    CHECK_INT_EQ(set ? (long long)mcpp_receipt_set_count(set) : -1, RUNS);
    mcpp_receipt_set_free(set);
    mcpp_history *h = NULL;
    CHECK_INT_EQ(mcpp_history_build(&h, s, "family=NAM52", NULL, NULL), MCPP_OK);
    CHECK_INT_EQ(h ? (long long)mcpp_history_lane_count(h) : -1, 1);
    if (h)
        CHECK_INT_EQ((long long)mcpp_history_run_count(h, 0), RUNS);
    mcpp_history_free(h);
    CHECK_INT_EQ((long long)mcpp_store_images_refused(s), 0);
    mcpp_store_close(s);
    /* read-only: the file is as it was, and check names its stale columns */
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE lane_short = 'lane-0ld'"), RUNS);
    char *report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 0), MCPP_EINVALID);
    if (report)
        CHECK_CONTAINS(report, "column lane_key is 'old-format ");
    mcpp_free(report);
    /* read-write: rewritten once, the format recorded */
    CHECK_INT_EQ(mcpp_store_open(&s, path, 0), MCPP_OK);
    mcpp_store_close(s);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE lane_short = 'lane-0ld'"), 0);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM store_meta WHERE name = 'lane_key_format'"), 1);
    report = NULL;
    CHECK_INT_EQ(check_report(path, &report, 0), MCPP_OK);
    mcpp_free(report);
}

/* How a lane key writes its values, pinned under each MCPP_LANE_KEY_FORMAT:
 * the text of key fields covering every kind of value (a string, an integer,
 * a number, a boolean, a list and an object with escaped separators, an
 * absent field) in example receipts. A value written otherwise fails here
 * until the number is bumped (and the new digest added), so stores
 * re-derive their lane columns. A dimension or field added, renamed or
 * reordered needs no bump: the key's layout is part of the recorded format
 * by itself (mcpp_lane_key_layout_hash; checked below). */
TEST(the_lane_key_format_is_bumped_with_the_key_text)
{
    static const struct {
        int format;
        uint64_t digest;
    } KNOWN[] = {{4, VALUES_OF_FORMAT_4}};
    static const char *const EXAMPLES[] = {"nam52_dense.json", "nam56r_padded.json",
                                           "h200_requested_h100_observed.json"};
    static const char *const VALUE_PATHS[] = {"lane.pattern",
                                              "lane.params_total",
                                              "routing.capacity_factor",
                                              "topology.sp",
                                              "benchmark.name",
                                              "workload.data.dataset",
                                              "launch.generated_args",
                                              "launch.fixed_policy",
                                              "workload.seq_len",
                                              "hardware.observed.accelerator"};
    const mcpp_policy *p = mcpp_policy_builtin();
    CHECK(p != NULL);
    uint64_t digest = MCPP_FNV_OFFSET;
    size_t seen = 0;
    for (size_t i = 0; p && i < sizeof EXAMPLES / sizeof EXAMPLES[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", MCPP_STORE_EXAMPLES_DIR, EXAMPLES[i]);
        mcpp_receipt *r = NULL;
        CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, path, NULL), MCPP_OK);
        for (size_t v = 0; r && v < sizeof VALUE_PATHS / sizeof VALUE_PATHS[0]; v++)
            for (size_t k = 0; k < mcpp_lane_key_dim_count(p); k++) {
                const mcpp_policy_dim *d = mcpp_lane_key_dim(p, k);
                for (size_t f = 0; f < d->n_fields; f++) {
                    if (strcmp(d->paths[f], VALUE_PATHS[v]) != 0)
                        continue;
                    mcpp_strbuf b;
                    mcpp_sb_init_heap(&b, 64);
                    mcpp_sb_puts(&b, VALUE_PATHS[v]);
                    mcpp_sb_putc(&b, '=');
                    mcpp_field_text(&b, r, d->ids[f], 1);
                    if (!b.failed)
                        digest = mcpp_fnv1a(b.data, b.len + 1, digest), seen++;
                    mcpp_sb_free(&b);
                }
            }
        mcpp_receipt_free(r);
    }
    CHECK_INT_EQ((int)seen, (int)(3 * (sizeof VALUE_PATHS / sizeof VALUE_PATHS[0])));
    int found = 0;
    for (size_t k = 0; k < sizeof KNOWN / sizeof KNOWN[0]; k++) {
        if (KNOWN[k].format != MCPP_LANE_KEY_FORMAT)
            continue;
        found = 1;
        if (KNOWN[k].digest != digest)
            fprintf(stderr,
                    "a lane key value is written otherwise (digest %#llx): bump MCPP_LANE_KEY_FORMAT in "
                    "lib/src/analysis/lane_internal.h and add its digest here\n",
                    (unsigned long long)digest);
        CHECK(KNOWN[k].digest == digest);
    }
    CHECK(found);
}

/* The recorded format follows the key's layout with no hand edit: one more
 * keying dimension, or one field more in a dimension, is another layout. */
TEST(the_lane_key_format_follows_the_keys_layout)
{
    const mcpp_policy *builtin = mcpp_policy_builtin();
    mcpp_policy *more = NULL, *wider = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&more), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_default(&wider), MCPP_OK);
    uint64_t base = mcpp_lane_key_layout_hash(builtin);
    CHECK(mcpp_lane_key_layout_hash(more) == base); /* the same layout, the same hash */
    const char *optimizer[] = {"source.git_commit"};
    CHECK_INT_EQ(mcpp_policy_set_dimension(more, "optimizer", optimizer, 1, MCPP_ROLE_MUST_MATCH), MCPP_OK);
    CHECK(mcpp_lane_key_layout_hash(more) != base);
    const char *sequence[] = {"workload.seq_len", "workload.micro_batch"};
    CHECK_INT_EQ(mcpp_policy_set_dimension(wider, "sequence", sequence, 2, MCPP_ROLE_MUST_MATCH), MCPP_OK);
    CHECK(mcpp_lane_key_layout_hash(wider) != base);
    CHECK_CONTAINS(mcpp_store_lane_key_format(), "lanes/");
    mcpp_policy_free(more);
    mcpp_policy_free(wider);
}

/* A history over damaged rows fails with a consistency error and frees what
 * it built (LSan in the sanitizer suite: the lane keys after the failing lane
 * leaked, issue 28). */
TEST(history_over_damaged_rows_fails_cleanly)
{
    make_store_of_two_lanes("history.db");
    const char *path = db_path("history.db");
    mcpp_store *s = NULL;
    run_sql(path, "UPDATE receipts SET body = '{', image = NULL"); /* history reads each run's receipt */
    mcpp_history *h = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_history_build(&h, s, NULL, "tokens_per_s", NULL), MCPP_EINVALID);
    CHECK(h == NULL);
    mcpp_store_close(s);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpp-store-integrity-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    RUN(an_enum_index_of_100_is_refused_and_the_body_answers);
    RUN(an_enum_index_of_minus_7_is_refused_and_the_body_answers);
    RUN(an_integer_beyond_2_53_is_refused);
    RUN(a_string_that_is_not_utf8_is_refused);
    RUN(a_value_changed_within_range_is_named_by_check_and_repaired);
    RUN(tampered_row_columns_are_named_and_repaired);
    RUN(tampered_and_missing_lane_summaries_are_named_and_rebuilt);
    RUN(a_body_that_does_not_load_stays_a_problem_after_a_repair);
    RUN(history_over_damaged_rows_fails_cleanly);
    RUN(a_forged_tombstone_and_an_empty_image_are_named_by_check);
    RUN(lane_columns_of_another_key_format_are_derived_again);
    RUN(history_reads_runs_from_verified_receipts_not_columns);
    RUN(the_lane_key_format_is_bumped_with_the_key_text);
    RUN(the_lane_key_format_follows_the_keys_layout);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    free(fixture_base);
    TEST_MAIN_END();
}
