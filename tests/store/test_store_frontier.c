/*
 * test_store_frontier.c — mcpp_store_frontier: the frontier of a store built
 * from the lane summaries it keeps must be the frontier of its receipts, in
 * every state those summaries can be in (kept up to date by adds, stale after
 * a remove, made by another library version, damaged, on a read-only store).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test_util.h"
#include "store_fixture.h"
#include "store/store_internal.h"
#include "store_images.h"

static char tmpdir[256];

static const char *db_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static char *frontier_json(const mcpp_frontier *f)
{
    char *text = NULL;
    if (!f || mcpp_frontier_render(&text, f, MCPP_OUTPUT_JSON) != MCPP_OK) return NULL;
    return text;
}

/* The frontier of every stored receipt the slow way: load them, build. */
static char *expected_json(mcpp_store *s, const mcpp_policy *policy)
{
    mcpp_receipt_set *set = NULL;
    mcpp_frontier *f = NULL;
    char *text = NULL;
    if (mcpp_store_query_set(&set, s, NULL) == MCPP_OK &&
        mcpp_frontier_build(&f, policy, mcpp_receipt_set_items(set), mcpp_receipt_set_count(set)) == MCPP_OK)
        text = frontier_json(f);
    mcpp_frontier_free(f);
    mcpp_receipt_set_free(set);
    return text;
}

/* Checks that mcpp_store_frontier gives the slow way's frontier. */
static void check_frontier_matches(mcpp_store *s, const mcpp_policy *policy, size_t min_lanes)
{
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_store_frontier(&f, s, policy), MCPP_OK);
    CHECK(mcpp_frontier_lane_count(f) >= min_lanes);
    char *got = frontier_json(f), *want = expected_json(s, policy);
    CHECK(got && want);
    if (got && want) CHECK_STR_EQ(got, want);
    mcpp_free(got);
    mcpp_free(want);
    mcpp_frontier_free(f);
}

/* The value of the summaries' validity mark ("" when absent). */
static void summaries_state(const char *path, char *out, size_t cap)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    out[0] = '\0';
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (sqlite3_prepare_v2(db, "SELECT value FROM store_meta WHERE name = 'lane_summaries'", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
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

/* A store holding the example receipts (several lanes, some stable) added in
 * two calls, plus five runs of the fixture lane in a third. */
/* The start of the mark of valid summaries: the library version, the summary
 * text and lane key formats; the digest of the rows follows. */
static const char *valid_mark(void)
{
    static char mark[128];
    snprintf(mark, sizeof mark, "%s summaries/2 %s rows/", mcpp_version_string(), mcpp_store_lane_key_format());
    return mark;
}

#define CHECK_VALID_MARK(state) CHECK_INT_EQ(strncmp(state, valid_mark(), strlen(valid_mark())), 0)

static mcpp_store *filled_store(const char *name)
{
    const char *path = db_path(name);
    unlink(path);
    mcpp_store *s = NULL;
    mcpp_receipt_set *examples = NULL;
    if (mcpp_store_open(&s, path, MCPP_STORE_CREATE) != MCPP_OK || mcpp_receipt_set_new(&examples) != MCPP_OK ||
        mcpp_receipt_set_add_path(examples, MCPP_STORE_EXAMPLES_DIR, NULL) != MCPP_OK) {
        fprintf(stderr, "setup: %s\n", mcpp_error_last()->message);
        abort();
    }
    size_t n = mcpp_receipt_set_count(examples);
    const mcpp_receipt *const *items = mcpp_receipt_set_items(examples);
    mcpp_store_add(NULL, s, items, n / 2);
    mcpp_store_add(NULL, s, items + n / 2, n - n / 2);
    mcpp_receipt_set_free(examples);
    mcpp_receipt *runs[5];
    for (size_t i = 0; i < 5; i++) runs[i] = fixture_numbered("fixture-run", i, 1000.0 + (double)i);
    mcpp_store_add(NULL, s, (const mcpp_receipt *const *)runs, 5);
    for (int i = 0; i < 5; i++) mcpp_receipt_free(runs[i]);
    return s;
}

TEST(summaries_kept_by_adds_give_the_frontier_of_the_receipts)
{
    mcpp_store *s = filled_store("adds.db");
    char state[96];
    summaries_state(db_path("adds.db"), state, sizeof state);
    CHECK_VALID_MARK(state); /* valid from the empty store on */
    check_frontier_matches(s, NULL, 3);
    mcpp_store_close(s);
}

TEST(a_remove_makes_them_stale_and_the_next_frontier_rebuilds_and_saves_them)
{
    mcpp_store *s = filled_store("remove.db");
    char state[96];
    CHECK_INT_EQ(mcpp_store_remove(s, "fixture-run-000002", "bad node"), MCPP_OK);
    summaries_state(db_path("remove.db"), state, sizeof state);
    CHECK_STR_EQ(state, "");
    check_frontier_matches(s, NULL, 3);
    summaries_state(db_path("remove.db"), state, sizeof state);
    CHECK_VALID_MARK(state);
    check_frontier_matches(s, NULL, 3); /* now from the saved summaries */
    mcpp_store_close(s);
}

TEST(a_read_only_store_with_stale_summaries_still_gives_the_right_frontier)
{
    mcpp_store *s = filled_store("readonly.db");
    CHECK_INT_EQ(mcpp_store_remove(s, "fixture-run-000000", "bad node"), MCPP_OK);
    mcpp_store_close(s);
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("readonly.db"), MCPP_STORE_READ_ONLY), MCPP_OK);
    check_frontier_matches(s, NULL, 3);
    char state[96];
    summaries_state(db_path("readonly.db"), state, sizeof state);
    CHECK_STR_EQ(state, ""); /* nothing written */
    mcpp_store_close(s);
}

TEST(summaries_of_another_version_or_damaged_ones_are_rebuilt)
{
    mcpp_store *s = filled_store("other.db");
    mcpp_store_close(s);
    run_sql(db_path("other.db"), "UPDATE store_meta SET value = '0.0.0-other' WHERE name = 'lane_summaries'");
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("other.db"), 0), MCPP_OK);
    check_frontier_matches(s, NULL, 3);
    char state[96];
    summaries_state(db_path("other.db"), state, sizeof state);
    CHECK_VALID_MARK(state);
    mcpp_store_close(s);
    /* valid by its mark, but a summary no longer reads back */
    run_sql(db_path("other.db"), "UPDATE lane_summaries SET summary = '{\"key\": 1}'");
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("other.db"), 0), MCPP_OK);
    check_frontier_matches(s, NULL, 3);
    mcpp_store_close(s);
}

TEST(a_store_from_before_the_summaries_is_migrated_and_rebuilt)
{
    mcpp_store *s = filled_store("v2.db");
    mcpp_store_close(s);
    run_sql(db_path("v2.db"), "DROP TABLE lane_summaries; DROP TABLE store_meta;"
                              "ALTER TABLE receipts DROP COLUMN image;"
                              "DELETE FROM store_schema WHERE version >= 3;");
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("v2.db"), MCPP_STORE_READ_ONLY), MCPP_OK);
    check_frontier_matches(s, NULL, 3); /* version 2, read as it is */
    mcpp_store_close(s);
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("v2.db"), 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_schema_version(s), MCPP_STORE_SCHEMA_VERSION);
    check_frontier_matches(s, NULL, 3);
    char state[96];
    summaries_state(db_path("v2.db"), state, sizeof state);
    CHECK_VALID_MARK(state);
    mcpp_store_close(s);
}

/* Issue 48 item 5: the summaries are valid for a digest of the rows, so rows
 * removed, copied or changed behind the library's back (here: a row deleted
 * by hand, a body swapped for another row's) make the frontier rebuild them
 * from the receipts instead of reading what they no longer summarize. */
TEST(summaries_of_rows_changed_behind_the_library_are_not_used)
{
    mcpp_store *s = filled_store("behind.db");
    mcpp_store_close(s);
    run_sql(db_path("behind.db"), "DELETE FROM receipts WHERE id = 'fixture-run-000002'");
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("behind.db"), MCPP_STORE_READ_ONLY), MCPP_OK);
    check_frontier_matches(s, NULL, 3);
    mcpp_store_close(s);
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("behind.db"), 0), MCPP_OK);
    check_frontier_matches(s, NULL, 3); /* rebuilt and saved for the rows as they are */
    mcpp_store_close(s);
    char state[96];
    summaries_state(db_path("behind.db"), state, sizeof state);
    CHECK_VALID_MARK(state);
    run_sql(db_path("behind.db"), "UPDATE receipts SET metric_value = 1 WHERE id = 'fixture-run-000003'");
    CHECK_INT_EQ(mcpp_store_open(&s, db_path("behind.db"), MCPP_STORE_READ_ONLY), MCPP_OK);
    check_frontier_matches(s, NULL, 3); /* a column is no row content: the summaries still hold */
    mcpp_store_close(s);
}

TEST(another_policy_reads_the_receipts)
{
    mcpp_store *s = filled_store("policy.db");
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_noise_settings noise = *mcpp_policy_noise(p);
    noise.noise_floor = 0.5; /* a different verdict on the same lanes */
    noise.max_rel_spread = 0.5;
    CHECK_INT_EQ(mcpp_policy_set_noise(p, &noise), MCPP_OK);
    check_frontier_matches(s, p, 3);
    mcpp_policy_free(p);
    mcpp_store_close(s);
}

/* The frontier of the example receipts and five fixture runs as loaded from
 * their files (not from any store), each id once as the store keeps it,
 * under `policy`. */
static char *frontier_of_the_files(const mcpp_policy *policy)
{
    mcpp_receipt_set *set = NULL;
    mcpp_frontier *f = NULL;
    char *text = NULL;
    if (mcpp_receipt_set_new(&set) != MCPP_OK ||
        mcpp_receipt_set_add_path(set, MCPP_STORE_EXAMPLES_DIR, NULL) != MCPP_OK)
        abort();
    for (size_t i = 0; i < 5; i++)
        mcpp_receipt_set_add(set, fixture_numbered("fixture-run", i, 1000.0 + (double)i));
    size_t n = mcpp_receipt_set_count(set), kept = 0;
    const mcpp_receipt **once = calloc(n ? n : 1, sizeof *once);
    if (!once)
        abort();
    for (size_t i = 0; i < n; i++) {
        const mcpp_receipt *r = mcpp_receipt_set_items(set)[i];
        size_t k = 0;
        while (k < kept && strcmp(mcpp_receipt_id(once[k]), mcpp_receipt_id(r)) != 0)
            k++;
        if (k == kept)
            once[kept++] = r;
    }
    if (mcpp_frontier_build(&f, policy, once, kept) == MCPP_OK)
        text = frontier_json(f);
    free(once);
    mcpp_frontier_free(f);
    mcpp_receipt_set_free(set);
    return text;
}

/* An add stores no receipt image (store_image_cache.c): a frontier that
 * reads the receipts (another policy), through a read-only handle, gives the
 * frontier of the files from the bodies, makes every image, and gives the
 * same frontier from them. */
TEST(a_store_whose_images_are_not_made_yet_answers_the_same_and_makes_them)
{
    mcpp_store *s = filled_store("noimages.db");
    mcpp_store_close(s);
    const char *path = db_path("noimages.db");
    long long rows = test_sql_count(path, "SELECT count(*) FROM receipts");
    CHECK(rows > 5);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE image IS NOT NULL"), 0);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_noise_settings noise = *mcpp_policy_noise(p);
    noise.noise_floor = 0.5; /* not the default policy: the receipts are read, not the summaries */
    CHECK_INT_EQ(mcpp_policy_set_noise(p, &noise), MCPP_OK);
    char *want = frontier_of_the_files(p);
    CHECK(want != NULL);
    for (int pass = 0; pass < 2; pass++) { /* from the bodies, then from the images the first made */
        mcpp_frontier *f = NULL;
        CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
        CHECK_INT_EQ(mcpp_store_frontier(&f, s, p), MCPP_OK);
        char *got = frontier_json(f);
        CHECK(got != NULL);
        if (got && want)
            CHECK_STR_EQ(got, want);
        CHECK_INT_EQ((long long)mcpp_store_images_refused(s), 0);
        CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE image IS NOT NULL"), rows);
        mcpp_free(got);
        mcpp_frontier_free(f);
        mcpp_store_close(s);
    }
    mcpp_free(want);
    mcpp_policy_free(p);
}

/* Issue 50 item 2: an add builds no lane summary (a fifth of its CPU); its
 * rows wait, from the first one, for the first frontier. A read-only reader
 * merges them in memory and writes nothing; a writable one saves them (and,
 * reading those rows without the write lock, the images of their rows); a
 * later add waits from its own first row and keeps what was saved. */
TEST(an_add_leaves_its_summaries_to_the_first_frontier_which_saves_them)
{
    mcpp_store *s = filled_store("deferred.db");
    mcpp_store_close(s);
    const char *path = db_path("deferred.db");
    long long rows = test_sql_count(path, "SELECT count(*) FROM receipts");
    CHECK(rows > 5);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM lane_summaries"), 0);
    CHECK_INT_EQ(
        test_sql_count(path, "SELECT count(*) FROM store_meta WHERE name = 'lane_summaries_from' AND value = 1"), 1);
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_READ_ONLY), MCPP_OK);
    check_frontier_matches(s, NULL, 3);
    mcpp_store_close(s);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM lane_summaries"), 0); /* nothing written */
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM store_meta WHERE name = 'lane_summaries_from'"), 1);
    CHECK_INT_EQ(mcpp_store_open(&s, path, 0), MCPP_OK);
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_store_frontier(&f, s, NULL), MCPP_OK); /* saves them */
    mcpp_frontier_free(f);
    CHECK(test_sql_count(path, "SELECT count(*) FROM lane_summaries") >= 3);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM store_meta WHERE name = 'lane_summaries_from'"), 0);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM receipts WHERE image IS NOT NULL"), rows);
    char state[96];
    summaries_state(path, state, sizeof state);
    CHECK_VALID_MARK(state);
    check_frontier_matches(s, NULL, 3); /* from the saved summaries */
    mcpp_receipt *late[3];
    for (size_t i = 0; i < 3; i++)
        late[i] = fixture_numbered("fixture-late", i, 2000.0 + (double)i);
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)late, 3), MCPP_OK);
    for (size_t i = 0; i < 3; i++)
        mcpp_receipt_free(late[i]);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM store_meta WHERE name = 'lane_summaries_from' AND value = %lld",
             rows + 1);
    CHECK_INT_EQ(test_sql_count(path, sql), 1);
    CHECK(test_sql_count(path, "SELECT count(*) FROM lane_summaries") >= 3); /* kept */
    char *report = NULL;
    CHECK_INT_EQ(mcpp_store_check(&report, s), MCPP_OK); /* the saved ones with the waiting rows merged in */
    if (report)
        CHECK_STR_EQ(report, "ok\n");
    mcpp_free(report);
    check_frontier_matches(s, NULL, 3);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM store_meta WHERE name = 'lane_summaries_from'"), 0);
    mcpp_store_close(s);
}

/* A reader does not wait for a writer to save the summaries: with another
 * connection holding the write lock (an add in progress), a frontier on a
 * writable handle answers from the summaries with the waiting rows merged in
 * memory and leaves them waiting (it used to wait for the lock, up to about
 * a minute, and fail); the next frontier saves them. */
TEST(a_reader_does_not_wait_for_an_add_to_save_the_summaries)
{
    mcpp_store *s = filled_store("busy.db");
    mcpp_store_close(s);
    const char *path = db_path("busy.db");
    sqlite3 *writer = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &writer), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    CHECK_INT_EQ(mcpp_store_open(&s, path, 0), MCPP_OK);
    check_frontier_matches(s, NULL, 3);
    CHECK_INT_EQ(sqlite3_exec(writer, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(writer);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM lane_summaries"), 0);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM store_meta WHERE name = 'lane_summaries_from'"), 1);
    check_frontier_matches(s, NULL, 3);
    CHECK(test_sql_count(path, "SELECT count(*) FROM lane_summaries") >= 3);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM store_meta WHERE name = 'lane_summaries_from'"), 0);
    mcpp_store_close(s);
}

/* `store check` with rows waiting compares the saved summaries with those of
 * the rows before them: a damaged saved summary is still named (here every
 * one, its values edited so that it no longer reads back). */
TEST(check_names_a_damaged_summary_while_rows_wait)
{
    mcpp_store *s = filled_store("checkwait.db");
    const char *path = db_path("checkwait.db");
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_store_frontier(&f, s, NULL), MCPP_OK); /* saves them */
    mcpp_frontier_free(f);
    mcpp_store_close(s);
    run_sql(path, "UPDATE lane_summaries SET summary = replace(summary, '\"values\": [', '\"values\": [1, ')");
    CHECK_INT_EQ(mcpp_store_open(&s, path, 0), MCPP_OK);
    mcpp_receipt *late[2];
    for (size_t i = 0; i < 2; i++)
        late[i] = fixture_numbered("fixture-late", i, 2000.0 + (double)i);
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)late, 2), MCPP_OK);
    for (size_t i = 0; i < 2; i++)
        mcpp_receipt_free(late[i]);
    CHECK_INT_EQ(test_sql_count(path, "SELECT count(*) FROM store_meta WHERE name = 'lane_summaries_from'"), 1);
    char *report = NULL;
    CHECK_INT_EQ(mcpp_store_check(&report, s), MCPP_EINVALID);
    if (report)
        CHECK(strstr(report, "lane summary lane-") && strstr(report, "does not read back"));
    mcpp_free(report);
    mcpp_store_close(s);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpp-store-frontier-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    RUN(summaries_kept_by_adds_give_the_frontier_of_the_receipts);
    RUN(a_remove_makes_them_stale_and_the_next_frontier_rebuilds_and_saves_them);
    RUN(a_read_only_store_with_stale_summaries_still_gives_the_right_frontier);
    RUN(summaries_of_another_version_or_damaged_ones_are_rebuilt);
    RUN(a_store_from_before_the_summaries_is_migrated_and_rebuilt);
    RUN(summaries_of_rows_changed_behind_the_library_are_not_used);
    RUN(another_policy_reads_the_receipts);
    RUN(a_store_whose_images_are_not_made_yet_answers_the_same_and_makes_them);
    RUN(an_add_leaves_its_summaries_to_the_first_frontier_which_saves_them);
    RUN(a_reader_does_not_wait_for_an_add_to_save_the_summaries);
    RUN(check_names_a_damaged_summary_while_rows_wait);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    TEST_MAIN_END();
}
