/*
 * store_summaries.c — the default policy's lane summaries kept next to the
 * receipts, so that `frontier --store` reads one summary per lane instead of
 * parsing every stored receipt (the parse is what made a 10^6-receipt
 * frontier take a minute).
 *
 * The summaries are a cache with one rule: they are used only while
 * store_meta says they are valid for this library's layouts and for the rows
 * they summarize (a digest of each row's id and stored body). An add does not
 * build them (that was a fifth of its CPU): inside its transaction it records
 * the rowid of its first row ('lane_summaries_from'), unless an earlier add's
 * rows are already waiting. The first frontier after it reads the rows from
 * that rowid on and merges their summaries in: saved when it can take the
 * write lock at once, in memory otherwise (a check compares the stored ones
 * with the rows before that rowid). The summaries are used only while the
 * rows before that rowid still give the mark's digest, so any other change
 * (a row removed, copied or changed behind the library's back, an add by a
 * build that merged its rows itself) makes the frontier rebuild them from
 * every receipt. A remove marks them stale in its transaction; a store made by
 * an older library, or one whose summaries are stale, gets them rebuilt by the
 * next frontier (and saved, when the store is writable). A frontier from the
 * summaries equals mcpp_frontier_build over the stored receipts: the
 * summaries are the distributed frontier's (mcpp_frontier_from_summaries).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/escape.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "policy/policy_internal.h"
#include "store/store_internal.h"
#include "store/store_pg.h"
#include "analysis/lane_internal.h"

#define STATE_NAME "lane_summaries"
#define PENDING_NAME "lane_summaries_from" /* rows from this rowid on are not summarized yet */
#define NONE_PENDING INT64_MAX

/* The validity mark: this library's version, the summaries' text format and
 * the lane keys' (so a store whose summaries another layout or key text wrote
 * rebuilds them even when the version string did not change), then a digest
 * of the rows the summaries summarize (mark_prefix). Both backends write and
 * compare it. */
const char *mcpp_store_summaries_state(void)
{
    static _Thread_local char value[128];
    snprintf(value, sizeof value, "%s summaries/%d %s", mcpp_version_string(), MCPP_LANE_SUMMARY_FORMAT,
             mcpp_store_lane_key_format());
    return value;
}

/* The store's mark: the state, then the digest of the rows (the count, and
 * the sum of a hash of every row: in SQLite mcpp_store_row_digest, each id
 * with its stored body's bytes; in PostgreSQL the server's hash of the same,
 * store_pg.c). The summaries are used only while the rows still give
 * that digest: a row added, removed, copied or changed behind the library's
 * back makes the frontier rebuild them from the receipts, as does a store an
 * older build wrote (no digest). */
static const char *mark_prefix(void)
{
    static _Thread_local char value[160];
    snprintf(value, sizeof value, "%s rows/", mcpp_store_summaries_state());
    return value;
}

uint64_t mcpp_store_row_digest(const char *id, const void *body, size_t len)
{
    return mcpp_fnv1a(body, len, mcpp_fnv1a(id, strlen(id) + 1, MCPP_FNV_OFFSET));
}

/* The digest of the rows as stored now: those before rowid `from` in *before,
 * the others in *after (NULL: every row in *before); with `after_only`, only
 * the rows from `from` on are read (*before stays empty). */
static int scan_rows_range(mcpp_store_rows_digest *before, mcpp_store_rows_digest *after, mcpp_store *s,
                           sqlite3_int64 from, int after_only)
{
    memset(before, 0, sizeof *before);
    if (after)
        memset(after, 0, sizeof *after);
    sqlite3_stmt *st = NULL;
    char sql[96] = "SELECT id, body, rowid FROM main.receipts";
    if (after_only)
        snprintf(sql, sizeof sql, "SELECT id, body, rowid FROM main.receipts WHERE rowid >= %lld", (long long)from);
    int rc = mcpp_store_prepare(&st, s, sql, "reading the rows' digest");
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(st, 0);
        const void *body = sqlite3_column_blob(st, 1);
        mcpp_store_rows_digest *d = after && sqlite3_column_int64(st, 2) >= from ? after : before;
        d->count++;
        d->sum += mcpp_store_row_digest(id ? id : "", body ? body : "", (size_t)sqlite3_column_bytes(st, 1));
    }
    if (!rc && step != SQLITE_DONE)
        rc = mcpp_store_sqlite_error(s, step, "reading the rows' digest");
    sqlite3_finalize(st);
    return rc;
}

static int scan_rows_split(mcpp_store_rows_digest *before, mcpp_store_rows_digest *after, mcpp_store *s,
                           sqlite3_int64 from)
{
    return scan_rows_range(before, after, s, from, 0);
}

/* The digest of every row as stored now. */
static int scan_rows(mcpp_store_rows_digest *d, mcpp_store *s) { return scan_rows_split(d, NULL, s, NONE_PENDING); }

void mcpp_store_summaries_mark(char *buf, size_t cap, const mcpp_store_rows_digest *d)
{
    snprintf(buf, cap, "%s%llu/%016llx", mark_prefix(), (unsigned long long)d->count, (unsigned long long)d->sum);
}

int mcpp_store_summaries_mark_parse(mcpp_store_rows_digest *d, const char *value)
{
    const char *prefix = mark_prefix();
    unsigned long long count = 0, sum = 0;
    char end = 0;
    size_t n = strlen(prefix);
    memset(d, 0, sizeof *d);
    if (!value || strncmp(value, prefix, n) != 0 || sscanf(value + n, "%llu/%16llx%c", &count, &sum, &end) != 2)
        return 0;
    d->count = count;
    d->sum = sum;
    return 1;
}

/* The mark as stored: *ours is 1 when this build's layouts wrote it, with the
 * rows' digest it names in *d. */
static int read_mark(int *ours, mcpp_store_rows_digest *d, mcpp_store *s)
{
    memset(d, 0, sizeof *d);
    char *value;
    int rc = mcpp_store_meta_text(&value, s, STATE_NAME, "reading the lane summaries' state");
    *ours = !rc && value && mcpp_store_summaries_mark_parse(d, value);
    free(value);
    return rc;
}

/* The rowid from which rows are not summarized yet (NONE_PENDING: none are
 * waiting). Any value is safe: the digest of the rows before it must still
 * be the mark's for the summaries to be used. */
static int read_pending(sqlite3_int64 *from, mcpp_store *s)
{
    char *value;
    int rc = mcpp_store_meta_text(&value, s, PENDING_NAME, "reading the lane summaries' state");
    *from = value ? strtoll(value, NULL, 10) : NONE_PENDING;
    free(value);
    return rc;
}

/* The summaries against the rows as they are now. */
typedef struct summaries_status {
    int usable;                           /* this build's mark, naming exactly the rows before `from` */
    sqlite3_int64 from;                   /* rows from this rowid on were added since (NONE_PENDING: none) */
    mcpp_store_rows_digest before, after; /* the rows before `from`, and the others */
} summaries_status;

static int read_status(summaries_status *st, mcpp_store *s)
{
    memset(st, 0, sizeof *st);
    int ours = 0;
    mcpp_store_rows_digest marked;
    int rc = read_mark(&ours, &marked, s);
    if (!rc)
        rc = read_pending(&st->from, s);
    if (!rc && ours)
        rc = scan_rows_split(&st->before, &st->after, s, st->from);
    st->usable = !rc && ours && marked.count == st->before.count && marked.sum == st->before.sum;
    return rc;
}

/* 1 when the summaries are valid for every row as it is now. */
static int summaries_valid(int *out, mcpp_store *s)
{
    summaries_status st;
    int rc = read_status(&st, s);
    *out = !rc && st.usable && st.after.count == 0;
    return rc;
}

/* Marks the summaries valid for rows of digest `d` (inside a write transaction). */
static int mark_valid(mcpp_store *s, const mcpp_store_rows_digest *d)
{
    char value[192];
    mcpp_store_summaries_mark(value, sizeof value, d);
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, "INSERT OR REPLACE INTO store_meta VALUES ('" STATE_NAME "', ?1)",
                                "saving the lane summaries");
    if (rc) return rc;
    sqlite3_bind_text(st, 1, value, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? MCPP_OK : mcpp_store_sqlite_error(s, step, "saving the lane summaries");
}

int mcpp_store_summaries_invalidate(mcpp_store *s)
{
    return mcpp_store_exec(s, "DELETE FROM store_meta WHERE name IN ('" STATE_NAME "', '" PENDING_NAME "')",
                           "marking the lane summaries stale");
}

/* Forgets the rows waiting (inside a write transaction, with the mark written for them). */
static int clear_pending(mcpp_store *s)
{
    return mcpp_store_exec(s, "DELETE FROM store_meta WHERE name = '" PENDING_NAME "'", "saving the lane summaries");
}

int mcpp_store_summaries_init_if_empty(mcpp_store *s)
{
    int valid = 0, empty = 0, rc;
    sqlite3_stmt *st = NULL;
    if ((rc = mcpp_store_prepare(&st, s, "SELECT NOT EXISTS (SELECT 1 FROM receipts)", "counting receipts")))
        return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) empty = sqlite3_column_int(st, 0);
    else rc = mcpp_store_sqlite_error(s, step, "counting receipts");
    sqlite3_finalize(st);
    if (rc || !empty)
        return rc; /* the next frontier rebuilds them when stale */
    if ((rc = summaries_valid(&valid, s)) || valid)
        return rc;
    /* a store without receipts has, trivially, every summary it needs */
    if ((rc = mcpp_store_begin_write(s))) return rc;
    static const mcpp_store_rows_digest none = {0, 0};
    rc = mcpp_store_exec(s, "DELETE FROM lane_summaries", "preparing the lane summaries");
    if (!rc)
        rc = mark_valid(s, &none);
    if (rc) {
        mcpp_store_rollback(s);
        return rc;
    }
    return mcpp_store_commit(s);
}

/* ---- reading and writing summaries ------------------------------------------------ */

/* The stored summary of `key`, or NULL in *out when there is none. */
static int read_summary(mcpp_lane_summary **out, mcpp_store *s, sqlite3_stmt *select, const mcpp_policy *p,
                        const char *key)
{
    *out = NULL;
    sqlite3_reset(select);
    sqlite3_bind_text(select, 1, key, -1, SQLITE_STATIC);
    int step = sqlite3_step(select);
    if (step == SQLITE_DONE) return MCPP_OK;
    if (step != SQLITE_ROW) return mcpp_store_sqlite_error(s, step, "reading a lane summary");
    const char *text = (const char *)sqlite3_column_text(select, 0);
    return mcpp_lane_summary_deserialize(out, p, text ? text : "", (size_t)sqlite3_column_bytes(select, 0));
}

static int write_summary(mcpp_store *s, sqlite3_stmt *upsert, const mcpp_lane_summary *summary)
{
    char *text = NULL;
    int rc = mcpp_lane_summary_serialize(&text, summary);
    if (rc) return rc;
    sqlite3_reset(upsert);
    sqlite3_bind_text(upsert, 1, mcpp_lane_summary_key(summary), -1, SQLITE_STATIC);
    sqlite3_bind_text(upsert, 2, text, -1, SQLITE_STATIC);
    int step = sqlite3_step(upsert);
    mcpp_free(text);
    return step == SQLITE_DONE ? MCPP_OK : mcpp_store_sqlite_error(s, step, "saving a lane summary");
}

/* Merges each new summary into its stored one and writes the result back. */
static int merge_and_write(mcpp_store *s, const mcpp_policy *p, mcpp_lane_summary *const *fresh, size_t n)
{
    sqlite3_stmt *select = NULL, *upsert = NULL;
    int rc = mcpp_store_prepare(&select, s, "SELECT summary FROM lane_summaries WHERE lane_key = ?1",
                                "reading a lane summary");
    if (!rc)
        rc = mcpp_store_prepare(&upsert, s, "INSERT OR REPLACE INTO lane_summaries(lane_key, summary) VALUES (?1, ?2)",
                                "saving a lane summary");
    for (size_t i = 0; !rc && i < n; i++) {
        mcpp_lane_summary *stored = NULL;
        rc = read_summary(&stored, s, select, p, mcpp_lane_summary_key(fresh[i]));
        if (!rc && stored) rc = mcpp_lane_summary_merge(stored, fresh[i]);
        if (!rc) rc = write_summary(s, upsert, stored ? stored : fresh[i]);
        mcpp_lane_summary_free(stored);
    }
    sqlite3_finalize(select);
    sqlite3_finalize(upsert);
    return rc;
}

/* ---- an add: its rows wait for the first reader -------------------------------------- */

int mcpp_store_summaries_next_rowid(sqlite3_int64 *out, mcpp_store *s)
{
    *out = 1;
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, "SELECT ifnull(max(rowid), 0) + 1 FROM main.receipts", "adding");
    if (rc)
        return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else
        rc = mcpp_store_sqlite_error(s, step, "adding");
    sqlite3_finalize(st);
    return rc;
}

int mcpp_store_summaries_defer(mcpp_store *s, sqlite3_int64 from)
{
    int ours = 0;
    mcpp_store_rows_digest marked;
    int rc = read_mark(&ours, &marked, s);
    if (rc || !ours)
        return rc; /* stale: the next frontier rebuilds them from every receipt */
    sqlite3_stmt *st = NULL;
    /* OR IGNORE: an earlier add's rows wait already, from a smaller rowid */
    if ((rc = mcpp_store_prepare(&st, s, "INSERT OR IGNORE INTO store_meta VALUES ('" PENDING_NAME "', ?1)", "adding")))
        return rc;
    sqlite3_bind_int64(st, 1, from);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? MCPP_OK : mcpp_store_sqlite_error(s, step, "adding");
}

/* ---- the frontier ----------------------------------------------------------------- */

/* Every stored summary, in lane-key order. */
static int read_all(mcpp_lane_summary ***out, size_t *n_out, mcpp_store *s, const mcpp_policy *p)
{
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, "SELECT summary FROM lane_summaries ORDER BY lane_key",
                                "reading the lane summaries");
    size_t cap = 0;
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if ((rc = MCPP_ARRAY_RESERVE(*out, cap, *n_out + 1, MCPP_ARRAY_MAX_ITEMS)) != MCPP_OK)
            break;
        const char *text = (const char *)sqlite3_column_text(st, 0);
        rc = mcpp_lane_summary_deserialize(&(*out)[*n_out], p, text ? text : "",
                                           (size_t)sqlite3_column_bytes(st, 0));
        if (!rc) (*n_out)++;
    }
    if (!rc && step != SQLITE_DONE) rc = mcpp_store_sqlite_error(s, step, "reading the lane summaries");
    sqlite3_finalize(st);
    if (rc) {
        mcpp_lane_summaries_free(*out, *n_out);
        *out = NULL;
        *n_out = 0;
    }
    return rc;
}

/* Lane summaries built while stored receipts stream by, one receipt at a
 * time (never all receipts in memory): a small hash of lane key -> summary. */
typedef struct summary_builder {
    const mcpp_policy *p;
    mcpp_lane_summary **lanes;
    uint64_t *hashes;
    size_t n, cap;
    size_t *table; /* index + 1; 0 is empty */
    size_t table_cap;
} summary_builder;

static int builder_grow(summary_builder *b)
{
    size_t cap = b->cap ? 2 * b->cap : 64;
    mcpp_lane_summary **lanes = realloc(b->lanes, cap * sizeof *lanes);
    if (lanes) b->lanes = lanes;
    uint64_t *hashes = realloc(b->hashes, cap * sizeof *hashes);
    if (hashes) b->hashes = hashes;
    size_t *table = calloc(2 * cap, sizeof *table);
    if (!lanes || !hashes || !table) {
        free(table);
        return mcpp_error_nomem();
    }
    for (size_t i = 0; i < b->n; i++) {
        size_t pos = (size_t)b->hashes[i] & (2 * cap - 1);
        while (table[pos]) pos = (pos + 1) & (2 * cap - 1);
        table[pos] = i + 1;
    }
    free(b->table);
    b->table = table;
    b->table_cap = 2 * cap;
    b->cap = cap;
    return MCPP_OK;
}

/* The summary of `key`, made when new. */
static int builder_lane(mcpp_lane_summary **out, summary_builder *b, const char *key)
{
    if (b->n == b->cap) {
        int rc = builder_grow(b);
        if (rc) return rc;
    }
    uint64_t h = mcpp_fnv1a(key, strlen(key), MCPP_FNV_OFFSET);
    size_t pos = (size_t)h & (b->table_cap - 1);
    for (; b->table[pos]; pos = (pos + 1) & (b->table_cap - 1)) {
        size_t i = b->table[pos] - 1;
        if (b->hashes[i] == h && strcmp(mcpp_lane_summary_key(b->lanes[i]), key) == 0) {
            *out = b->lanes[i];
            return MCPP_OK;
        }
    }
    int rc = mcpp_lane_summary_new(out, b->p, NULL);
    if (rc) return rc;
    b->lanes[b->n] = *out;
    b->hashes[b->n] = h;
    b->table[pos] = ++b->n;
    return MCPP_OK;
}

static void builder_free(summary_builder *b)
{
    mcpp_lane_summaries_free(b->lanes, b->n);
    free(b->hashes);
    free(b->table);
    memset(b, 0, sizeof *b);
}

static int builder_take(void *ctx, mcpp_receipt *receipt)
{
    summary_builder *b = ctx;
    char *key = NULL;
    mcpp_lane_summary *lane = NULL;
    int rc = mcpp_lane_key(&key, b->p, receipt);
    if (!rc) rc = builder_lane(&lane, b, key);
    if (!rc) rc = mcpp_lane_summary_add(lane, receipt);
    mcpp_free(key);
    mcpp_receipt_free(receipt); /* the summary keeps what it needs */
    return rc;
}

/* Summaries of the stored receipts of rowids in [from, until) (until
 * NONE_PENDING: no end) under `p` (NULL: the default policy) into a new
 * builder `b` (the caller frees it, also on failure), from the receipts
 * themselves (`bodies_only`: parsing every body, not reading images: what a
 * check compares with). */
static int rebuild_range(summary_builder *b, mcpp_store *s, const mcpp_policy *p, int bodies_only, sqlite3_int64 from,
                         sqlite3_int64 until)
{
    memset(b, 0, sizeof *b);
    if (!(b->p = mcpp_policy_or_default(p)))
        return mcpp_error_nomem();
    sqlite3_stmt *st = NULL;
    char sql[160], end[48] = "";
    if (until != NONE_PENDING)
        snprintf(end, sizeof end, " AND rowid < %lld", (long long)until);
    snprintf(sql, sizeof sql, "SELECT id, body, %s FROM receipts WHERE rowid >= %lld%s ORDER BY rowid",
             bodies_only ? "NULL" : mcpp_store_image_column(s), (long long)from, end);
    int rc = mcpp_store_prepare(&st, s, sql, "reading receipts");
    if (!rc) rc = mcpp_store_load_rows_each(s, st, builder_take, b);
    sqlite3_finalize(st);
    return rc;
}

/* The same over every stored receipt. */
static int rebuild(summary_builder *b, mcpp_store *s, const mcpp_policy *p, int bodies_only)
{
    return rebuild_range(b, s, p, bodies_only, INT64_MIN, NONE_PENDING);
}

static int by_key(const void *a, const void *b)
{
    return strcmp(mcpp_lane_summary_key(*(mcpp_lane_summary *const *)a),
                  mcpp_lane_summary_key(*(mcpp_lane_summary *const *)b));
}

/* Merges the builder's summaries into `*lanes` (n_stored of them, in
 * lane-key order), handing over those of new lanes; leaves them in lane-key
 * order. */
static int merge_into(mcpp_lane_summary ***lanes, size_t *n, summary_builder *b)
{
    size_t stored = *n, cap = *n;
    int rc = MCPP_ARRAY_RESERVE(*lanes, cap, stored + b->n, MCPP_ARRAY_MAX_ITEMS);
    for (size_t i = 0; !rc && i < b->n; i++) {
        mcpp_lane_summary **found = stored ? bsearch(&b->lanes[i], *lanes, stored, sizeof **lanes, by_key) : NULL;
        if (found) {
            rc = mcpp_lane_summary_merge(*found, b->lanes[i]);
        } else { /* a new lane */
            (*lanes)[(*n)++] = b->lanes[i];
            b->lanes[i] = NULL;
        }
    }
    if (!rc && *n > 1)
        qsort(*lanes, *n, sizeof **lanes, by_key);
    return rc;
}

/* Saves the summaries of the rows waiting, `fresh` (built from a snapshot
 * whose status was `seen`), when the store is still as it was then: under
 * the write lock, merged into the stored ones, the mark set for every row,
 * nothing waiting any more. A store that changed meanwhile (another add, a
 * reader that saved them first) is left as it is, and so is one whose lock
 * another writer holds: a reader does not wait for an add (the next reader
 * saves them). */
static int save_caught_up(mcpp_store *s, const mcpp_policy *p, const summaries_status *seen,
                          mcpp_lane_summary *const *fresh, size_t n)
{
    summaries_status now = {0, NONE_PENDING, {0, 0}, {0, 0}};
    sqlite3_busy_timeout(s->db, 0);
    int begun = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    sqlite3_busy_timeout(s->db, MCPP_STORE_BUSY_TIMEOUT_MS);
    if ((begun & 0xFF) == SQLITE_BUSY || (begun & 0xFF) == SQLITE_LOCKED)
        return MCPP_OK;
    if (begun != SQLITE_OK)
        return mcpp_store_sqlite_error(s, begun, "saving the lane summaries");
    /* Only the rows from that rowid on are read again: the library changes
     * rows before it only through the mark (a remove deletes it), and the
     * mark saved is the digest the snapshot read, so a row changed behind its
     * back meanwhile fails the next frontier's check, which rebuilds. */
    int ours = 0;
    mcpp_store_rows_digest marked, unused;
    int rc = read_mark(&ours, &marked, s);
    if (!rc)
        rc = read_pending(&now.from, s);
    if (!rc && ours)
        rc = scan_rows_range(&unused, &now.after, s, seen->from, 1);
    int same = !rc && ours && marked.count == seen->before.count && marked.sum == seen->before.sum &&
               now.from == seen->from && now.after.count == seen->after.count && now.after.sum == seen->after.sum;
    if (same)
        rc = merge_and_write(s, p, fresh, n);
    mcpp_store_rows_digest d = {seen->before.count + seen->after.count, seen->before.sum + seen->after.sum};
    if (same && !rc)
        rc = mark_valid(s, &d);
    if (same && !rc)
        rc = clear_pending(s);
    if (rc)
        mcpp_store_rollback(s);
    else
        rc = mcpp_store_commit(s);
    return rc;
}

/* Saves rebuilt summaries and marks them valid, replacing what was there
 * (inside the caller's write transaction). */
static int save_all(mcpp_store *s, mcpp_lane_summary *const *lanes, size_t n)
{
    sqlite3_stmt *upsert = NULL;
    int rc = mcpp_store_exec(s, "DELETE FROM lane_summaries", "saving the lane summaries");
    if (!rc)
        rc = mcpp_store_prepare(&upsert, s, "INSERT INTO lane_summaries(lane_key, summary) VALUES (?1, ?2)",
                                "saving a lane summary");
    for (size_t i = 0; !rc && i < n; i++) rc = write_summary(s, upsert, lanes[i]);
    sqlite3_finalize(upsert);
    mcpp_store_rows_digest d;
    if (!rc)
        rc = scan_rows(&d, s); /* the rows the summaries were built from: the write lock is held */
    if (!rc)
        rc = mark_valid(s, &d);
    if (!rc)
        rc = clear_pending(s); /* every row is summarized */
    return rc;
}

/* The frontier from receipts, for a policy other than the default or while
 * the summaries are stale; `save` keeps the default policy's summaries,
 * holding the write lock from reading to saving so that no add slips between. */
static int frontier_from_receipts(mcpp_frontier **out, mcpp_store *s, const mcpp_policy *p, int save)
{
    summary_builder b;
    int rc = save ? mcpp_store_begin_write(s) : MCPP_OK;
    if (rc) return rc;
    rc = rebuild(&b, s, p, 0);
    if (!rc) rc = mcpp_frontier_from_summaries(out, p, (const mcpp_lane_summary *const *)b.lanes, b.n, 0);
    if (!rc && save) rc = save_all(s, b.lanes, b.n);
    if (save) {
        if (rc) mcpp_store_rollback(s);
        else rc = mcpp_store_commit(s);
    }
    if (rc) {
        mcpp_frontier_free(*out);
        *out = NULL;
    }
    mcpp_lane_summaries_free(b.lanes, b.n);
    free(b.hashes);
    free(b.table);
    return rc;
}

/* ---- store check ------------------------------------------------------------------ */

/* A problem line naming the lane by its short key (full keys run to hundreds of bytes). */
static void summary_problem(mcpp_strbuf *report, size_t *problems, const char *key, const char *what)
{
    char short_key[24] = "(null)";
    if (key && mcpp_lane_key_short(short_key, sizeof short_key, key) != MCPP_OK) snprintf(short_key, sizeof short_key, "?");
    (*problems)++;
    mcpp_sb_printf(report, "lane summary %s: ", short_key);
    mcpp_sb_terminal(report, what);
    mcpp_sb_putc(report, '\n');
}

/* One stored summary against the one the bodies make (NULL: none). */
static int compare_summary(mcpp_strbuf *report, size_t *problems, const mcpp_policy *p, const char *key,
                           const char *stored, size_t stored_len, const mcpp_lane_summary *made)
{
    if (!made) {
        summary_problem(report, problems, key, "no stored receipt belongs to this lane");
        return MCPP_OK;
    }
    char *text = NULL;
    int rc = mcpp_lane_summary_serialize(&text, made);
    if (rc) return rc;
    if (strlen(text) != stored_len || memcmp(text, stored, stored_len) != 0) {
        mcpp_lane_summary *back = NULL;
        int reads = mcpp_lane_summary_deserialize(&back, p, stored, stored_len);
        mcpp_lane_summary_free(back);
        if (reads == MCPP_ENOMEM) {
            rc = reads;
        } else if (reads) {
            mcpp_strbuf why;
            mcpp_sb_init_heap(&why, 128);
            mcpp_sb_printf(&why, "does not read back (%s)", mcpp_error_last()->message);
            mcpp_sb_putc(&why, '\0');
            summary_problem(report, problems, key, why.failed ? "does not read back" : why.data);
            mcpp_sb_free(&why);
        } else {
            summary_problem(report, problems, key, "differs from the summary its receipts make");
        }
        mcpp_error_clear();
    }
    mcpp_free(text);
    return rc;
}

int mcpp_store_summaries_check(mcpp_strbuf *report, size_t *problems, mcpp_store *s)
{
    summaries_status status;
    int rc = read_status(&status, s);
    if (rc || !status.usable)
        return rc; /* stale ones are rebuilt from the receipts before any use */
    /* with rows waiting, the stored ones summarize the rows before them */
    summary_builder b;
    if ((rc = rebuild_range(&b, s, NULL, 1, INT64_MIN, status.from)) == MCPP_EINVALID) {
        mcpp_error_clear(); /* a body that does not load: reported with the rows */
        mcpp_sb_puts(report, "lane summaries: not compared (a body does not load)\n");
        builder_free(&b);
        return MCPP_OK;
    }
    if (!rc && b.n > 1) qsort(b.lanes, b.n, sizeof *b.lanes, by_key);
    sqlite3_stmt *st = NULL;
    if (!rc) rc = mcpp_store_prepare(&st, s, "SELECT lane_key, summary FROM lane_summaries ORDER BY lane_key",
                                     "checking the lane summaries");
    size_t next = 0;
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *key = (const char *)sqlite3_column_text(st, 0);
        const char *text = (const char *)sqlite3_column_text(st, 1);
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        for (; next < b.n && (!key || strcmp(mcpp_lane_summary_key(b.lanes[next]), key) < 0); next++)
            summary_problem(report, problems, mcpp_lane_summary_key(b.lanes[next]), "missing");
        int here = key && next < b.n && strcmp(mcpp_lane_summary_key(b.lanes[next]), key) == 0;
        rc = compare_summary(report, problems, b.p, key, text ? text : "", text ? len : 0, here ? b.lanes[next] : NULL);
        if (here) next++;
    }
    if (!rc && step != SQLITE_DONE) rc = mcpp_store_sqlite_error(s, step, "checking the lane summaries");
    for (; !rc && next < b.n; next++) summary_problem(report, problems, mcpp_lane_summary_key(b.lanes[next]), "missing");
    sqlite3_finalize(st);
    builder_free(&b);
    return rc;
}

int mcpp_store_summaries_rebuild(mcpp_store *s)
{
    summary_builder b;
    int rc = rebuild(&b, s, NULL, 1);
    if (!rc) rc = save_all(s, b.lanes, b.n);
    else if (rc == MCPP_EINVALID) { /* a body that does not load: the next frontier reports it */
        mcpp_error_clear();
        rc = mcpp_store_summaries_invalidate(s);
    }
    builder_free(&b);
    return rc;
}

/* The frontier from the stored summaries and, when rows wait, theirs merged
 * in (saved when `save`). Everything is read in one snapshot and without the
 * write lock, so that the images the read of the waiting rows makes are
 * written (store_image_cache.c never waits for the lock). *stale is set when
 * the summaries cannot be used: not this build's, not for the rows as they
 * are, or one does not read back (the caller rebuilds them from every
 * receipt, which also names a body that does not load). */
static int frontier_from_cache(mcpp_frontier **out, int *stale, mcpp_store *s, const mcpp_policy *p, int save)
{
    summaries_status st;
    summary_builder b;
    mcpp_lane_summary **lanes = NULL;
    size_t n = 0;
    memset(&b, 0, sizeof b);
    *stale = 0;
    int rc = mcpp_store_exec(s, "BEGIN", "reading the lane summaries");
    if (rc)
        return rc;
    if (!(rc = read_status(&st, s)) && !(*stale = !st.usable) && st.after.count)
        rc = rebuild_range(&b, s, p, 0, st.from, NONE_PENDING);
    if (!rc && !*stale)
        rc = read_all(&lanes, &n, s, p);
    int ended = mcpp_store_exec(s, "COMMIT", "reading the lane summaries"); /* the snapshot ends */
    if (!rc)
        rc = ended;
    else
        mcpp_store_rollback(s);
    if (rc == MCPP_EINVALID) {
        mcpp_error_clear();
        *stale = 1;
        rc = MCPP_OK;
    }
    if (!rc && !*stale && b.n && save)
        rc = save_caught_up(s, p, &st, b.lanes, b.n);
    if (!rc && !*stale && b.n)
        rc = merge_into(&lanes, &n, &b);
    if (!rc && !*stale)
        rc = mcpp_frontier_from_summaries(out, p, (const mcpp_lane_summary *const *)lanes, n, 0);
    mcpp_lane_summaries_free(lanes, n);
    builder_free(&b);
    return rc;
}

int mcpp_store_frontier(mcpp_frontier **out, mcpp_store *store, const mcpp_policy *policy)
{
    MCPP_CHECK_ARG(out && store, "mcpp_store_frontier: NULL argument");
    *out = NULL;
    int checked = policy ? mcpp_store_check_metric_stated(store, NULL, policy) : MCPP_OK;
    if (checked)
        return checked;
    if (store->pg)
        return mcpp_store_pg_frontier(out, store, policy);
    /* the library's own default object: summaries and the frontier borrow it */
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    int cached = policy == NULL, stale = 1, rc = MCPP_OK;
    if (cached && (rc = frontier_from_cache(out, &stale, store, p, !store->read_only)))
        return rc;
    if (!stale)
        return MCPP_OK;
    mcpp_frontier_free(*out);
    *out = NULL;
    return frontier_from_receipts(out, store, p, cached && !store->read_only);
}
