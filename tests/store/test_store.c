/*
 * test_store.c — the receipt store (store.h): identity by id, one
 * transaction per add, tombstones, queries, export, schema migrations, and
 * clear errors on damaged files, read-only directories and full disks.
 */
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../test_util.h"
#include "store_fixture.h"

static char tmpdir[256];

static const char *db_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static mcpp_store *fresh_store(const char *name)
{
    const char *path = db_path(name);
    unlink(path);
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, path, MCPP_STORE_CREATE) != MCPP_OK) {
        fprintf(stderr, "open %s: %s\n", path, mcpp_error_last()->message);
        abort();
    }
    return s;
}

static int add_one(mcpp_store *s, mcpp_receipt *r, mcpp_store_add_result *res)
{
    const mcpp_receipt *items[1] = {r};
    return mcpp_store_add(res, s, items, 1);
}

static size_t live_count(mcpp_store *s)
{
    size_t live = 0;
    mcpp_store_count(&live, NULL, s);
    return live;
}

TEST(added_receipts_come_back_with_the_same_canonical_json)
{
    mcpp_store *s = fresh_store("roundtrip.db");
    mcpp_receipt *r = fixture_receipt("rt-1", "2026-04-01T00:00:00Z", "abcdef0123", 1000.5);
    mcpp_store_add_result res;
    CHECK_INT_EQ(add_one(s, r, &res), MCPP_OK);
    CHECK_INT_EQ((int)res.added, 1);
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, NULL), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_receipt_set_count(set), 1);
    char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    mcpp_receipt_write(&a, &la, r, MCPP_FORMAT_JSON);
    mcpp_receipt_write(&b, &lb, mcpp_receipt_set_at(set, 0), MCPP_FORMAT_JSON);
    CHECK_STR_EQ(a, b);
    CHECK_STR_EQ(mcpp_receipt_id(mcpp_receipt_set_at(set, 0)), "rt-1");
    mcpp_free(a);
    mcpp_free(b);
    mcpp_receipt_set_free(set);
    mcpp_receipt_free(r);
    mcpp_store_close(s);
}

TEST(same_id_and_same_content_is_a_no_op)
{
    mcpp_store *s = fresh_store("noop.db");
    mcpp_receipt *r = fixture_receipt("same-1", "2026-04-01T00:00:00Z", "abcdef0123", 1000.0);
    mcpp_store_add_result res;
    CHECK_INT_EQ(add_one(s, r, &res), MCPP_OK);
    CHECK_INT_EQ(add_one(s, r, &res), MCPP_OK);
    CHECK_INT_EQ((int)res.added, 0);
    CHECK_INT_EQ((int)res.unchanged, 1);
    const mcpp_receipt *twice[2] = {r, r};
    CHECK_INT_EQ(mcpp_store_add(&res, s, twice, 2), MCPP_OK);
    CHECK_INT_EQ((int)res.unchanged, 2);
    CHECK_INT_EQ((int)live_count(s), 1);
    mcpp_receipt_free(r);
    mcpp_store_close(s);
}

TEST(same_id_with_other_content_is_a_conflict_and_the_call_keeps_nothing)
{
    mcpp_store *s = fresh_store("conflict.db");
    mcpp_receipt *a = fixture_receipt("dup-1", "2026-04-01T00:00:00Z", "abcdef0123", 1000.0);
    mcpp_receipt *fresh = fixture_receipt("new-1", "2026-04-01T00:01:00Z", "abcdef0123", 1001.0);
    mcpp_receipt *b = fixture_receipt("dup-1", "2026-04-01T00:00:00Z", "abcdef0123", 2000.0);
    CHECK_INT_EQ(add_one(s, a, NULL), MCPP_OK);
    const mcpp_receipt *batch[2] = {fresh, b};
    mcpp_store_add_result res = {9, 9, 9};
    CHECK_INT_EQ(mcpp_store_add(&res, s, batch, 2), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "conflict: receipt 'dup-1' is already stored");
    CHECK_INT_EQ((int)res.added, 0);
    CHECK_INT_EQ((int)live_count(s), 1); /* new-1 went with the failed call */
    /* the conflict inside one call is caught too */
    mcpp_receipt *c = fixture_receipt("dup-2", "2026-04-01T00:00:00Z", "abcdef0123", 1.0);
    mcpp_receipt *d = fixture_receipt("dup-2", "2026-04-01T00:00:00Z", "abcdef0123", 2.0);
    const mcpp_receipt *inner[2] = {c, d};
    CHECK_INT_EQ(mcpp_store_add(NULL, s, inner, 2), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "conflict: receipt 'dup-2' is given twice in this add");
    CHECK_INT_EQ((int)live_count(s), 1);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_receipt_free(c);
    mcpp_receipt_free(d);
    mcpp_receipt_free(fresh);
    mcpp_store_close(s);
}

/* Receipt i of a large add: one of 100 lanes (seq_len), in lane order
 * 0, 1, ..., 99, 0, 1, ... so neighbouring rows never share a lane. */
static mcpp_receipt *laned_receipt(size_t i, double tokens_per_s)
{
    char id[64], seq[64];
    snprintf(id, sizeof id, "big-%06zu", i);
    snprintf(seq, sizeof seq, "\"seq_len\": %zu,", 512 + i % 100);
    char *t = fixture_text(id, "2026-04-01T00:00:00Z", "abcdef0123", tokens_per_s);
    replace_once(&t, "\"seq_len\": 4096,", seq);
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_buffer(&r, NULL, t, strlen(t), MCPP_FORMAT_JSON, id, NULL) != MCPP_OK) abort();
    free(t);
    return r;
}

TEST(a_large_add_stores_each_receipts_own_lane_key_and_a_late_conflict_keeps_nothing)
{
    /* 6,000 receipts: filled on worker threads in a window of 4,096 rows, and
     * each filling thread reuses lane keys it made for a lane (64 kept by lane
     * hash: 100 lanes replace each other). Every stored lane_key must still
     * be the receipt's own; a conflict at row 5,500 (past the first window)
     * fails the call and keeps none of the 5,499 before it. */
    enum { N = 6000 };
    mcpp_store *s = fresh_store("large.db");
    mcpp_receipt **rs = calloc(N, sizeof *rs);
    for (size_t i = 0; i < N; i++) rs[i] = laned_receipt(i, 1000.0 + (double)i);
    mcpp_store_add_result res = {0, 0, 0};
    CHECK_INT_EQ(mcpp_store_add(&res, s, (const mcpp_receipt *const *)rs, N), MCPP_OK);
    CHECK_INT_EQ((int)res.added, N);
    mcpp_store_close(s);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    CHECK_INT_EQ(sqlite3_open_v2(db_path("large.db"), &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_prepare_v2(db, "SELECT id, lane_key FROM receipts ORDER BY id", -1, &st, NULL), SQLITE_OK);
    size_t rows = 0, wrong = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        char *want = NULL;
        size_t i = rows++;
        if (i >= N || strcmp((const char *)sqlite3_column_text(st, 0), mcpp_receipt_id(rs[i])) != 0 ||
            mcpp_lane_key(&want, NULL, rs[i]) != MCPP_OK || strcmp(want, (const char *)sqlite3_column_text(st, 1)) != 0)
            wrong++;
        mcpp_free(want);
    }
    CHECK_INT_EQ((int)rows, N);
    CHECK_INT_EQ((int)wrong, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);

    s = fresh_store("large-conflict.db");
    mcpp_receipt *first = laned_receipt(5500, 1.0); /* big-005500 with other content */
    CHECK_INT_EQ(add_one(s, first, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_add(&res, s, (const mcpp_receipt *const *)rs, N), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "conflict: receipt 'big-005500'");
    CHECK_INT_EQ((int)live_count(s), 1);
    mcpp_store_close(s);
    mcpp_receipt_free(first);
    for (size_t i = 0; i < N; i++) mcpp_receipt_free(rs[i]);
    free(rs);
}

TEST(remove_keeps_a_tombstone_and_a_removed_id_is_not_added_again)
{
    mcpp_store *s = fresh_store("rm.db");
    mcpp_receipt *r = fixture_receipt("gone-1", "2026-04-01T00:00:00Z", "abcdef0123", 1000.0);
    CHECK_INT_EQ(add_one(s, r, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_remove(s, "gone-1", ""), MCPP_EARG);
    CHECK_INT_EQ(mcpp_store_remove(s, "gone-1", "measured on a throttled node"), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_remove(s, "gone-1", "again"), MCPP_ENOTFOUND);
    size_t live = 9, removed = 9;
    CHECK_INT_EQ(mcpp_store_count(&live, &removed, s), MCPP_OK);
    CHECK_INT_EQ((int)live, 0);
    CHECK_INT_EQ((int)removed, 1);
    mcpp_store_add_result res;
    CHECK_INT_EQ(add_one(s, r, &res), MCPP_OK);
    CHECK_INT_EQ((int)res.skipped_removed, 1);
    CHECK_INT_EQ((int)live_count(s), 0);
    char *text = NULL;
    CHECK_INT_EQ(mcpp_store_removed_render(&text, s), MCPP_OK);
    CHECK_CONTAINS(text, "\"reason\": \"measured on a throttled node\"");
    mcpp_free(text);
    mcpp_receipt_free(r);
    mcpp_store_close(s);
}

static size_t query_count(mcpp_store *s, const mcpp_store_query *q)
{
    mcpp_receipt_set *set = NULL;
    if (mcpp_store_query_set(&set, s, q) != MCPP_OK) return (size_t)-1;
    size_t n = mcpp_receipt_set_count(set);
    mcpp_receipt_set_free(set);
    return n;
}

TEST(queries_filter_by_lane_columns_time_and_limit)
{
    mcpp_store *s = fresh_store("query.db");
    mcpp_receipt *rs[30];
    for (size_t i = 0; i < 30; i++) rs[i] = fixture_numbered("q", i, 1000.0 + (double)i);
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, 30), MCPP_OK);
    char *key = NULL;
    char short_key[24];
    mcpp_lane_key(&key, NULL, rs[0]);
    mcpp_lane_key_short(short_key, sizeof short_key, key);
    mcpp_store_query q = {0};
    q.lane = short_key;
    CHECK_INT_EQ((int)query_count(s, &q), 30);
    q.lane = key;
    CHECK_INT_EQ((int)query_count(s, &q), 30);
    q.lane = "family=NAM52";
    CHECK_INT_EQ((int)query_count(s, &q), 30);
    q.lane = "family=NOPE";
    CHECK_INT_EQ((int)query_count(s, &q), 0);
    q.lane = "nonsense-without-equals";
    CHECK_INT_EQ((int)query_count(s, &q), (int)(size_t)-1);
    memset(&q, 0, sizeof q);
    q.where = "git_commit=c0000002"; /* prefix: runs 20..29 */
    CHECK_INT_EQ((int)query_count(s, &q), 10);
    q.where = "id=q-000007";
    CHECK_INT_EQ((int)query_count(s, &q), 1);
    q.where = "colour=red";
    CHECK_INT_EQ((int)query_count(s, &q), (int)(size_t)-1);
    CHECK_CONTAINS(mcpp_error_last()->message, "unknown column 'colour'");
    /* a value no row has, when a stored one is what it likely meant (its
     * case, its first words), is refused naming it; one far from them all, or
     * one some row has that other filters leave out, is an empty answer */
    q.where = "name=nam52 dense hybrid lane";
    CHECK_INT_EQ((int)query_count(s, &q), (int)(size_t)-1);
    CHECK_CONTAINS(mcpp_error_last()->message,
                   "no stored receipt has name = 'nam52 dense hybrid lane'; did you mean 'NAM52 dense hybrid lane'?");
    q.where = "id=q-000001,name=NAM52";
    CHECK_INT_EQ((int)query_count(s, &q), (int)(size_t)-1);
    CHECK_CONTAINS(mcpp_error_last()->message, "did you mean 'NAM52 dense hybrid lane'?");
    q.where = "name=a lane of another suite";
    CHECK_INT_EQ((int)query_count(s, &q), 0);
    q.where = "name=NAM52 dense hybrid lan"; /* a spelling away is another lane's name, not a slip */
    CHECK_INT_EQ((int)query_count(s, &q), 0);
    q.where = "name=NAM52 dense hybrid lane,id=q-999999";
    CHECK_INT_EQ((int)query_count(s, &q), 0);
    q.where = NULL;
    q.lane = "name=nam52 DENSE hybrid lane";
    CHECK_INT_EQ((int)query_count(s, &q), (int)(size_t)-1);
    CHECK_CONTAINS(mcpp_error_last()->message, "did you mean 'NAM52 dense hybrid lane'?");
    memset(&q, 0, sizeof q);
    q.since = "2026-04-01T00:05:00Z";
    q.until = "2026-04-01T00:09:00Z";
    CHECK_INT_EQ((int)query_count(s, &q), 5);
    /* a date, a month or a year stands for all of itself: until 2026-04-01 keeps that day */
    memset(&q, 0, sizeof q);
    q.until = "2026-04-01";
    CHECK_INT_EQ((int)query_count(s, &q), 30);
    q.until = "2026-04";
    CHECK_INT_EQ((int)query_count(s, &q), 30);
    q.until = "2026-03-31";
    CHECK_INT_EQ((int)query_count(s, &q), 0);
    q.until = NULL;
    q.since = "2026-04-02";
    CHECK_INT_EQ((int)query_count(s, &q), 0);
    q.since = "2026";
    CHECK_INT_EQ((int)query_count(s, &q), 30);
    /* text that is no time selected nothing, silently: it is refused, naming the bound */
    const char *not_times[] = {"yesterday", "2026/04/01", "2026-13-01", "2026-04-1", "2026-04-01T00:05", ""};
    for (size_t i = 0; i < sizeof not_times / sizeof not_times[0]; i++) {
        q.since = i % 2 ? NULL : not_times[i];
        q.until = i % 2 ? not_times[i] : NULL;
        CHECK_INT_EQ((int)query_count(s, &q), (int)(size_t)-1);
        CHECK_INT_EQ(mcpp_error_last()->code, MCPP_EARG);
        CHECK_CONTAINS(mcpp_error_last()->message, i % 2 ? "until" : "since");
        CHECK_CONTAINS(mcpp_error_last()->message, "is not a time: expected RFC 3339 text");
    }
    memset(&q, 0, sizeof q);
    q.limit = 3;
    q.newest = 1;
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, &q), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_receipt_set_count(set), 3);
    if (mcpp_receipt_set_count(set) == 3) {
        CHECK_STR_EQ(mcpp_receipt_id(mcpp_receipt_set_at(set, 0)), "q-000027"); /* oldest first */
        CHECK_STR_EQ(mcpp_receipt_id(mcpp_receipt_set_at(set, 2)), "q-000029");
    }
    mcpp_receipt_set_free(set);
    mcpp_free(key);
    for (size_t i = 0; i < 30; i++) mcpp_receipt_free(rs[i]);
    mcpp_store_close(s);
}

/* A git_commit prefix is read as a range of the commit index (the prefix to
 * the prefix with its last byte one higher) checked by substr(): the commits
 * just below and just above the range are not matched, those inside are, and
 * a prefix the range cannot express (ending in '~') still matches exactly. */
TEST(a_commit_prefix_matches_its_commits_and_no_neighbour)
{
    mcpp_store *s = fresh_store("commits.db");
    const char *commits[] = {"abcc99990000", "abcd00000000", "abcdffff0000", "abce00000000", "abc~12340000", "abc~"};
    mcpp_receipt *rs[6];
    for (size_t i = 0; i < 6; i++) {
        char id[32], created[32];
        snprintf(id, sizeof id, "c-%zu", i);
        snprintf(created, sizeof created, "2026-04-01T00:0%zu:00Z", i);
        rs[i] = fixture_receipt(id, created, commits[i], 1000.0);
    }
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, 6), MCPP_OK);
    mcpp_store_query q = {0};
    static const struct {
        const char *where;
        int count;
    } cases[] = {{"git_commit=abcd", 2},
                 {"git_commit=abcdf", 1},
                 {"git_commit=abcc", 1},
                 {"git_commit=abce0000", 1},
                 {"git_commit=abc~", 2},
                 {"git_commit=abc~1", 1},
                 {"git_commit=abcd,git_commit=abcdff", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        q.where = cases[i].where;
        CHECK_INT_EQ((int)query_count(s, &q), cases[i].count);
    }
    for (size_t i = 0; i < 6; i++)
        mcpp_receipt_free(rs[i]);
    mcpp_store_close(s);
}

TEST(export_writes_json_jsonl_and_yaml_that_load_back)
{
    mcpp_store *s = fresh_store("export.db");
    mcpp_receipt *rs[3];
    for (size_t i = 0; i < 3; i++) rs[i] = fixture_numbered("x", i, 500.0 + (double)i);
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    char *jsonl = NULL, *yaml = NULL, *json = NULL;
    CHECK_INT_EQ(mcpp_store_export(&jsonl, s, NULL, "jsonl"), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_export(&yaml, s, NULL, "yaml"), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_export(&json, s, NULL, "json"), MCPP_OK);
    char *none = NULL;
    CHECK_INT_EQ(mcpp_store_export(&none, s, NULL, "xml"), MCPP_EARG);
    CHECK(none == NULL);
    size_t lines = 0;
    for (char *line = jsonl, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
        mcpp_receipt *r = NULL;
        CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, NULL, line, (size_t)(nl - line), MCPP_FORMAT_JSON, "line", NULL), MCPP_OK);
        if (r) CHECK_STR_EQ(mcpp_receipt_id(r), mcpp_receipt_id(rs[lines]));
        mcpp_receipt_free(r);
        lines++;
    }
    CHECK_INT_EQ((int)lines, 3);
    CHECK_CONTAINS(yaml, "---\n");
    CHECK(json && json[0] == '[');
    mcpp_free(jsonl);
    mcpp_free(yaml);
    mcpp_free(json);
    for (size_t i = 0; i < 3; i++) mcpp_receipt_free(rs[i]);
    mcpp_store_close(s);
}

/* A store at schema version 1 built with SQLite directly, as an old library left it. */
static void write_version_1_store(const char *path)
{
    unlink(path);
    sqlite3 *db = NULL;
    sqlite3_open(path, &db);
    sqlite3_exec(db,
                 "CREATE TABLE store_schema(version INTEGER NOT NULL, applied_at TEXT NOT NULL);"
                 "CREATE TABLE receipts(id TEXT PRIMARY KEY NOT NULL, created_at TEXT, git_commit TEXT, tool TEXT,"
                 " name TEXT, lane_key TEXT NOT NULL, lane_short TEXT NOT NULL, lane_label TEXT, metric TEXT,"
                 " metric_value REAL, body TEXT NOT NULL, added_at TEXT NOT NULL);"
                 "CREATE TABLE tombstones(id TEXT PRIMARY KEY NOT NULL, reason TEXT NOT NULL, removed_at TEXT NOT NULL,"
                 " body TEXT NOT NULL);"
                 "INSERT INTO store_schema VALUES (1, '2026-01-01T00:00:00Z');",
                 NULL, NULL, NULL);
    sqlite3_close(db);
}

static int index_count(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int n = -1;
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type='index' AND name LIKE 'receipts_by_%'",
                           -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* The columns of index `name`, comma-separated, into buf. */
static const char *index_columns(char *buf, size_t cap, const char *path, const char *name)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_index_info('%s') ORDER BY seqno", name);
    buf[0] = '\0';
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW)
            snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", buf[0] ? "," : "",
                     (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

TEST(an_older_store_is_migrated_forward_and_a_newer_one_refused)
{
    const char *path = db_path("v1.db");
    write_version_1_store(path);
    CHECK_INT_EQ(index_count(path), 0);
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_schema_version(s), 1); /* read-only never migrates */
    mcpp_store_close(s);
    CHECK_INT_EQ(mcpp_store_open(&s, path, 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_schema_version(s), MCPP_STORE_SCHEMA_VERSION);
    mcpp_store_close(s);
    CHECK_INT_EQ(index_count(path), 3);
    /* version 5: a query's order (created_at, id) is read off the time index */
    char cols[200];
    CHECK_STR_EQ(index_columns(cols, sizeof cols, path, "receipts_by_time"), "created_at,id");
    CHECK_STR_EQ(index_columns(cols, sizeof cols, path, "receipts_by_lane"), "lane_short,created_at");
    sqlite3 *db = NULL;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "INSERT INTO store_schema VALUES (99, '2030-01-01T00:00:00Z')", NULL, NULL, NULL);
    sqlite3_close(db);
    s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, 0), MCPP_EUNSUPPORTED);
    CHECK_CONTAINS(mcpp_error_last()->message, "newer than this library");
    CHECK(s == NULL);
}

static void write_bytes(const char *path, const char *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(bytes, 1, n, f);
    fclose(f);
}

TEST(files_that_are_not_stores_are_refused_clearly)
{
    mcpp_store *s = NULL;
    const char *path = db_path("garbage.db");
    write_bytes(path, "this is not a database, just text that is long enough to have a header ......", 78);
    CHECK_INT_EQ(mcpp_store_open(&s, path, 0), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "garbage.db");
    CHECK_CONTAINS(mcpp_error_last()->message, "not a receipt store");
    path = db_path("other.db");
    unlink(path);
    sqlite3 *db = NULL;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "CREATE TABLE people(name TEXT)", NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK_INT_EQ(mcpp_store_open(&s, path, 0), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "not a receipt store");
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("missing.db"), 0), MCPP_EIO);
    CHECK_CONTAINS(mcpp_error_last()->message, "missing.db");
}

/* A store of n receipts, closed (so the WAL is checkpointed into the file). */
static void build_closed_store(const char *path, size_t n)
{
    unlink(path);
    mcpp_store *s = NULL;
    mcpp_store_open(&s, path, MCPP_STORE_CREATE);
    for (size_t i = 0; i < n; i++) {
        mcpp_receipt *r = fixture_numbered("d", i, 1000.0 + (double)i);
        add_one(s, r, NULL);
        mcpp_receipt_free(r);
    }
    mcpp_store_close(s);
}

/* Opens, queries and checks a damaged file: each step may fail, but with a
 * message naming the file, never a crash. Returns how many steps failed. */
static int probe_damaged(const char *path)
{
    int failures = 0;
    mcpp_store *s = NULL;
    int rc = mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY);
    if (rc) {
        CHECK(rc == MCPP_EINVALID || rc == MCPP_EIO);
        CHECK_CONTAINS(mcpp_error_last()->message, path);
        return 1;
    }
    mcpp_receipt_set *set = NULL;
    rc = mcpp_store_query_set(&set, s, NULL);
    if (rc) {
        failures++;
        CHECK(rc == MCPP_EINVALID || rc == MCPP_EIO);
        CHECK_CONTAINS(mcpp_error_last()->message, path);
    }
    mcpp_receipt_set_free(set);
    char *report = NULL;
    rc = mcpp_store_check(&report, s);
    if (rc) {
        failures++;
        CHECK(rc == MCPP_EINVALID || rc == MCPP_EIO);
    }
    mcpp_free(report);
    mcpp_store_close(s);
    return failures;
}

TEST(truncated_and_corrupted_files_are_reported_not_crashed_on)
{
    const char *path = db_path("damaged.db");
    build_closed_store(path, 120);
    char *whole = read_file_text(path);
    struct stat st;
    stat(path, &st);
    size_t size = (size_t)st.st_size;
    /* the page size, big-endian at offset 16 of the header (1 means 65536) */
    size_t page = ((size_t)(unsigned char)whole[16] << 8) | (unsigned char)whole[17];
    if (page == 1) page = 65536;
    CHECK(size > 4 * page);
    CHECK_INT_EQ(probe_damaged(path), 0);
    write_bytes(path, whole, size / 2); /* truncated at half */
    CHECK(probe_damaged(path) > 0);
    /* garbage over pages 2 and 3 (table roots), the header page intact */
    char *bad = malloc(size);
    memcpy(bad, whole, size);
    for (size_t i = page; i < 3 * page; i++) bad[i] = (char)(i * 131 + 7);
    write_bytes(path, bad, size);
    CHECK(probe_damaged(path) > 0);
    free(bad);
    free(whole);
}

TEST(a_healthy_store_checks_ok)
{
    const char *path = db_path("healthy.db");
    build_closed_store(path, 20);
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    char *report = NULL;
    CHECK_INT_EQ(mcpp_store_check(&report, s), MCPP_OK);
    CHECK_STR_EQ(report, "ok\n");
    mcpp_free(report);
    mcpp_store_close(s);
}

/* A tmpfs mounted at dir (root only). 0 when mounted. */
static int mount_tmpfs(const char *dir, const char *options)
{
    mkdir(dir, 0755);
    return geteuid() == 0 ? mount("tmpfs", dir, "tmpfs", 0, options) : -1;
}

TEST(a_read_only_directory_gives_a_clear_error_and_stays_readable)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/ro", tmpdir);
    int mounted = mount_tmpfs(dir, "size=4m") == 0;
    if (!mounted && geteuid() == 0) {
        printf("# skipped: root cannot mount a tmpfs here (%s) and chmod does not bind root\n", strerror(errno));
        return;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/ro.db", dir);
    build_closed_store(path, 10);
    if (mounted) CHECK_INT_EQ(mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
    else {
        chmod(path, 0444);
        chmod(dir, 0555);
    }
    mcpp_store *s = NULL;
    int rc = mcpp_store_open(&s, path, 0);
    CHECK_INT_EQ(rc, MCPP_EIO);
    CHECK_CONTAINS(mcpp_error_last()->message, "ro.db");
    CHECK_CONTAINS(mcpp_error_last()->message, "read-only");
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ((int)query_count(s, NULL), 10);
    char *report = NULL;
    CHECK_INT_EQ(mcpp_store_check(&report, s), MCPP_OK);
    mcpp_free(report);
    mcpp_receipt *r = fixture_numbered("late", 1, 5.0);
    CHECK_INT_EQ(add_one(s, r, NULL), MCPP_EARG); /* opened read-only: refused before touching the file */
    mcpp_receipt_free(r);
    mcpp_store_close(s);
    if (mounted) umount(dir);
    else chmod(dir, 0755);
}

/* Adds batches of 10 until one fails; returns receipts added, *rc_out the failure. */
static size_t fill_until_failure(const char *path, int *rc_out, char *message, size_t cap)
{
    mcpp_store *s = NULL;
    *rc_out = mcpp_store_open(&s, path, MCPP_STORE_CREATE);
    size_t added = 0;
    for (size_t batch = 0; !*rc_out && batch < 100000; batch++) {
        mcpp_receipt *rs[10];
        for (size_t k = 0; k < 10; k++) rs[k] = fixture_numbered("full", batch * 10 + k, 1000.0);
        *rc_out = mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, 10);
        if (!*rc_out) added += 10;
        for (size_t k = 0; k < 10; k++) mcpp_receipt_free(rs[k]);
    }
    snprintf(message, cap, "%s", mcpp_error_last()->message);
    mcpp_store_close(s);
    return added;
}

static void check_full_store_readable(const char *path, size_t added)
{
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    CHECK_INT_EQ((int)query_count(s, NULL), (int)added);
    char *report = NULL;
    CHECK_INT_EQ(mcpp_store_check(&report, s), MCPP_OK);
    mcpp_free(report);
    mcpp_store_close(s);
}

TEST(a_full_filesystem_gives_a_clear_error_and_keeps_what_was_committed)
{
    char dir[512], path[600], message[512];
    snprintf(dir, sizeof dir, "%s/full", tmpdir);
    snprintf(path, sizeof path, "%s/full.db", dir);
    int rc = 0;
    if (mount_tmpfs(dir, "size=4m") == 0) { /* 32 KiB pages: room for the schema and some receipts */
        size_t added = fill_until_failure(path, &rc, message, sizeof message);
        CHECK_INT_EQ(rc, MCPP_EIO);
        CHECK_CONTAINS(message, "full");
        CHECK(added > 0);
        check_full_store_readable(path, added);
        umount(dir);
        return;
    }
    /* Not root: a file size limit stands in for the full disk (writes fail with EFBIG). */
    printf("# no tmpfs (not root): using RLIMIT_FSIZE instead\n");
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {4 * 1024 * 1024, 4 * 1024 * 1024}; /* as the tmpfs above */
        setrlimit(RLIMIT_FSIZE, &lim);
        size_t added = fill_until_failure(path, &rc, message, sizeof message);
        dprintf(fds[1], "%zu %d %s\n", added, rc, message);
        _exit(0);
    }
    close(fds[1]);
    char line[700] = "";
    FILE *f = fdopen(fds[0], "r");
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    fclose(f);
    waitpid(pid, NULL, 0);
    size_t added = 0;
    CHECK(sscanf(line, "%zu %d", &added, &rc) == 2);
    CHECK_INT_EQ(rc, MCPP_EIO);
    CHECK_CONTAINS(line, "full.db");
    check_full_store_readable(path, added);
}

TEST(history_finds_a_step_between_the_right_commits)
{
    mcpp_store *s = fresh_store("history.db");
    mcpp_receipt *rs[40];
    for (size_t i = 0; i < 40; i++) {
        double noise = 1.0 + 0.004 * ((double)((i * 7919) % 11) - 5.0) / 5.0;
        rs[i] = fixture_numbered("h", i, (i < 25 ? 1000.0 : 900.0) * noise);
    }
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, 40), MCPP_OK);
    mcpp_history *h = NULL;
    CHECK_INT_EQ(mcpp_history_build(&h, s, "family=NAM52", NULL, NULL), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_history_lane_count(h), 1);
    CHECK_INT_EQ((int)mcpp_history_run_count(h, 0), 40);
    CHECK_INT_EQ((int)mcpp_history_change_count(h, 0), 1);
    CHECK_INT_EQ((int)mcpp_history_change_run(h, 0, 0), 25);
    CHECK_STR_EQ(mcpp_history_run_commit(h, 0, 24), "c00000020000000000000000000000000000000");
    char *text = NULL;
    CHECK_INT_EQ(mcpp_history_render(&text, h, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_CONTAINS(text, "\"changes\": [{\"run\": 25, \"id\": \"h-000025\"");
    CHECK_CONTAINS(text, "\"before_commit\": \"c00000020000000000000000000000000000000\"");
    mcpp_free(text);
    CHECK_INT_EQ(mcpp_history_render(&text, h, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_CONTAINS(text, "change at run 25");
    mcpp_free(text);
    mcpp_history_free(h);
    /* another metric is read from the stored receipts */
    CHECK_INT_EQ(mcpp_history_build(&h, s, NULL, "metrics.peak_memory_gib", NULL), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_history_run_count(h, 0), 40);
    CHECK_INT_EQ((int)mcpp_history_change_count(h, 0), 0);
    mcpp_history_free(h);
    CHECK_INT_EQ(mcpp_history_build(&h, s, NULL, "metrics.no_such_metric", NULL), MCPP_EARG);
    /* a metric name no stored receipt states is a misspelling, named as in
     * memory (it gave every lane without a run); so is a policy's for the
     * store's frontier */
    CHECK_INT_EQ(mcpp_history_build(&h, s, NULL, "tokens_per_sec", NULL), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message,
                   "no receipt states the metric 'tokens_per_sec'; did you mean 'tokens_per_s'?");
    CHECK_INT_EQ(mcpp_history_build(&h, s, NULL, "tokens_per_s", NULL), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_history_run_count(h, 0), 40);
    mcpp_history_free(h);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_gate_settings g = *mcpp_policy_gate(p);
    g.metric = "tokens_per_sec";
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_store_frontier(&f, s, p), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "did you mean 'tokens_per_s'?");
    g.metric = "tokens_per_s";
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_frontier(&f, s, p), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_frontier_lane_count(f), 1);
    mcpp_frontier_free(f);
    mcpp_policy_free(p);
    for (size_t i = 0; i < 40; i++) mcpp_receipt_free(rs[i]);
    mcpp_store_close(s);
}

/* A location as messages show it: a PostgreSQL URL loses its password (in
 * the user part and in password=, however short); a SQLite path that happens
 * to hold ':' and '@' is not a URL. */
TEST(a_location_is_shown_without_its_password)
{
    static const char *const CASES[][2] = {
        {"postgresql://alice:s3cret@db.example:5432/receipts?password=hunter2&sslmode=require",
         "postgresql://alice@db.example:5432/receipts?password=***&sslmode=require"},
        {"postgres://bob:x@/db?host=/tmp", "postgres://bob@/db?host=/tmp"},
        {"postgresql:///db?password=a", "postgresql:///db?password=***"},
        {"postgresql://carol@h/db", "postgresql://carol@h/db"},
        {"/tmp/a:b@c.db", "/tmp/a:b@c.db"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        char *shown = NULL;
        CHECK_INT_EQ(mcpp_store_location_shown(&shown, CASES[i][0]), MCPP_OK);
        CHECK_STR_EQ(shown, CASES[i][1]);
        mcpp_free(shown);
    }
    char *shown = NULL;
    CHECK_INT_EQ(mcpp_store_location_shown(&shown, NULL), MCPP_EARG);
}

/* A clock that moves a second each time SQLite reads it: the default VFS
 * with xCurrentTimeInt64 replaced, made the default while a test runs. */
static sqlite3_vfs ticking_vfs;
static sqlite3_int64 ticks;

static int ticking_time(sqlite3_vfs *vfs, sqlite3_int64 *now)
{
    (void)vfs;
    *now = (sqlite3_int64)(2461000.5 * 86400000.0) + 1000 * ticks++; /* Julian day, in ms */
    return SQLITE_OK;
}

/* added_at is the add's time: every row of one add gets the same (SQLite
 * formatted 'now' anew for each inserted row, and with a clock that moves
 * between two rows, rows of one add had different times); the next add
 * gets its own. The add's rows are filled on worker threads: each row's
 * columns are checked against its receipt too. */
TEST(the_rows_of_one_add_share_its_added_at)
{
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    ticking_vfs = *real;
    ticking_vfs.zName = "mcpp-test-ticking";
    ticking_vfs.iVersion = real->iVersion < 2 ? real->iVersion : 2; /* xCurrentTimeInt64 is version 2 */
    ticking_vfs.xCurrentTimeInt64 = ticking_time;
    CHECK_INT_EQ(sqlite3_vfs_register(&ticking_vfs, 1), SQLITE_OK);
    enum { N = 300 };
    mcpp_store *s = fresh_store("added-at.db");
    mcpp_receipt **rs = calloc(N + 1, sizeof *rs);
    for (size_t i = 0; i <= N; i++)
        rs[i] = laned_receipt(i, 1000.0 + (double)i);
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, N), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)&rs[N], 1), MCPP_OK);
    mcpp_store_close(s);
    sqlite3_vfs_unregister(&ticking_vfs);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    CHECK_INT_EQ(sqlite3_open_v2(db_path("added-at.db"), &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    CHECK_INT_EQ(
        sqlite3_prepare_v2(db,
                           "SELECT count(DISTINCT added_at), count(*), min(added_at) < (SELECT added_at FROM receipts"
                           " WHERE id = 'big-000300') FROM receipts WHERE id <> 'big-000300'",
                           -1, &st, NULL),
        SQLITE_OK);
    CHECK_INT_EQ(sqlite3_step(st), SQLITE_ROW);
    CHECK_INT_EQ(sqlite3_column_int(st, 0), 1);
    CHECK_INT_EQ(sqlite3_column_int(st, 1), N);
    CHECK_INT_EQ(sqlite3_column_int(st, 2), 1);
    sqlite3_finalize(st);
    CHECK_INT_EQ(sqlite3_prepare_v2(db, "SELECT id, created_at, git_commit, tool, name FROM receipts ORDER BY id", -1,
                                    &st, NULL),
                 SQLITE_OK);
    size_t rows = 0, wrong = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const mcpp_receipt *r = rs[rows++];
        const char *paths[4] = {"created_at", "source.git_commit", "source.tool", "lane.name"};
        for (int k = 0; k < 4; k++) {
            mcpp_value v = MCPP_VALUE_INIT;
            if (mcpp_receipt_get(r, paths[k], &v) != MCPP_OK)
                wrong++;
            const char *col = (const char *)sqlite3_column_text(st, 1 + k);
            int text = v.type == MCPP_TYPE_STRING || v.type == MCPP_TYPE_ENUM;
            if (text ? !col || strcmp(col, v.string) != 0 : col != NULL)
                wrong++;
        }
        if (strcmp((const char *)sqlite3_column_text(st, 0), mcpp_receipt_id(r)) != 0)
            wrong++;
    }
    CHECK_INT_EQ((int)rows, N + 1);
    CHECK_INT_EQ((int)wrong, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    for (size_t i = 0; i <= N; i++)
        mcpp_receipt_free(rs[i]);
    free(rs);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpp-store-test-XXXXXX");
    if (!mkdtemp(tmpdir)) return 2;
    RUN(added_receipts_come_back_with_the_same_canonical_json);
    RUN(same_id_and_same_content_is_a_no_op);
    RUN(same_id_with_other_content_is_a_conflict_and_the_call_keeps_nothing);
    RUN(a_large_add_stores_each_receipts_own_lane_key_and_a_late_conflict_keeps_nothing);
    RUN(the_rows_of_one_add_share_its_added_at);
    RUN(remove_keeps_a_tombstone_and_a_removed_id_is_not_added_again);
    RUN(queries_filter_by_lane_columns_time_and_limit);
    RUN(a_commit_prefix_matches_its_commits_and_no_neighbour);
    RUN(export_writes_json_jsonl_and_yaml_that_load_back);
    RUN(an_older_store_is_migrated_forward_and_a_newer_one_refused);
    RUN(files_that_are_not_stores_are_refused_clearly);
    RUN(truncated_and_corrupted_files_are_reported_not_crashed_on);
    RUN(a_healthy_store_checks_ok);
    RUN(a_read_only_directory_gives_a_clear_error_and_stays_readable);
    RUN(a_full_filesystem_gives_a_clear_error_and_keeps_what_was_committed);
    RUN(history_finds_a_step_between_the_right_commits);
    RUN(a_location_is_shown_without_its_password);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    TEST_MAIN_END();
}
