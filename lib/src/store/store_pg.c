/*
 * store_pg.c — the receipt store in PostgreSQL (store_pg.h): the same tables
 * as the SQLite store (the bodies as canonical JSON text: PostgreSQL
 * compresses large values itself, and rows are read from their bodies), the
 * same identity rule, tombstones and lane summaries, through the adapter in
 * store_pg_conn.c.
 *
 * Many writers on many machines: every write (add, remove, migration, saving
 * rebuilt summaries) runs in one transaction that first takes a
 * transaction-level advisory lock of the database, so writers take turns as
 * SQLite's do: an add is all or nothing, sees every add committed before it
 * (a duplicate id is refused or a no-op as in SQLite), and merges its
 * receipts into the lane summaries that the one before it left. Readers
 * never wait (MVCC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/policy.h"
#include "mcpp_receipts/receipt_set.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/strbuf.h"
#include "policy/policy_internal.h"
#include "store/store_internal.h"
#include "store/store_pg.h"

/* The advisory lock every writer of a store takes (per database: stores in
 * different databases never wait for each other). 'mcppstor' as a number. */
#define WRITE_LOCK "SELECT pg_advisory_xact_lock(7881706691766939506)"
#define NOW_TEXT "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

/* MIGRATIONS[k] takes a store from version k to k+1 (append only). Text
 * columns compare bytewise (COLLATE "C"), as SQLite's do, so queries return
 * rows in the same order from both backends. */
static const char *const MIGRATIONS[] = {
    "CREATE TABLE store_schema(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);"
    "CREATE TABLE receipts(id TEXT COLLATE \"C\" PRIMARY KEY, created_at TEXT COLLATE \"C\","
    " git_commit TEXT COLLATE \"C\", tool TEXT COLLATE \"C\", name TEXT COLLATE \"C\","
    " lane_key TEXT COLLATE \"C\" NOT NULL, lane_short TEXT COLLATE \"C\" NOT NULL, lane_label TEXT COLLATE \"C\","
    " metric TEXT COLLATE \"C\", metric_value DOUBLE PRECISION, body TEXT NOT NULL, added_at TEXT NOT NULL);"
    "CREATE INDEX receipts_by_lane ON receipts(lane_short, created_at);"
    "CREATE INDEX receipts_by_time ON receipts(created_at, id);"
    "CREATE INDEX receipts_by_commit ON receipts(git_commit);"
    "CREATE TABLE tombstones(id TEXT COLLATE \"C\" PRIMARY KEY, reason TEXT NOT NULL,"
    " removed_at TEXT COLLATE \"C\" NOT NULL, body TEXT NOT NULL);"
    "CREATE TABLE lane_summaries(lane_key TEXT COLLATE \"C\" PRIMARY KEY, summary TEXT NOT NULL);"
    "CREATE TABLE store_meta(name TEXT COLLATE \"C\" PRIMARY KEY, value TEXT);",
    /* 2: store_meta 'lane_key_format' records the lane columns' format
     * (store_pg_lane_keys.c). A library before it refuses the store instead
     * of adding rows keyed in another text under a format they are not in;
     * a store it left records none, and its columns are derived again. */
    "DELETE FROM store_meta WHERE name = 'lane_key_format';",
};
enum { N_MIGRATIONS = sizeof MIGRATIONS / sizeof MIGRATIONS[0] };
_Static_assert(N_MIGRATIONS == MCPP_STORE_PG_SCHEMA_VERSION, "one migration per PostgreSQL schema version");

/* ---- transactions ------------------------------------------------------------------ */

int mcpp_store_pg_begin_write(mcpp_store *s)
{
    if (s->read_only)
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, s->path, NULL, 0, 0,
                             "the store was opened read-only; open it read-write to change it");
    int rc = mcpp_pg_run(NULL, s->pg, "BEGIN", 0, NULL, "starting a write");
    if (!rc)
        rc = mcpp_pg_run(NULL, s->pg, WRITE_LOCK, 0, NULL, "waiting for the other writers");
    if (rc)
        mcpp_pg_rollback(s->pg);
    return rc;
}

/* Ends the transaction: COMMIT when rc is MCPP_OK, else ROLLBACK keeping rc's error. */
int mcpp_store_pg_end(mcpp_store *s, int rc)
{
    if (rc == MCPP_OK)
        return mcpp_pg_run(NULL, s->pg, "COMMIT", 0, NULL, "committing");
    mcpp_pg_rollback(s->pg);
    return rc;
}

/* One text value of a one-row query ("" rows: *out NULL). */
static int single_value(char **out, mcpp_store *s, const char *sql, int n, const char *const *params, const char *what)
{
    *out = NULL;
    mcpp_pg_rows *rows = NULL;
    int rc = mcpp_pg_run(&rows, s->pg, sql, n, params, what);
    if (!rc && mcpp_pg_rows_count(rows) && mcpp_pg_value(rows, 0, 0) &&
        !(*out = mcpp_strdup(mcpp_pg_value(rows, 0, 0), NULL)))
        rc = mcpp_error_nomem();
    mcpp_pg_rows_free(rows);
    return rc;
}

/* ---- open: the URL, the schema ---------------------------------------------------------- */

int mcpp_store_location_shown(char **out, const char *location)
{
    MCPP_CHECK_ARG(out && location, "out and location are required");
    size_t n = strlen(location);
    char *name = *out = malloc(n + 4); /* room for "***" in place of a shorter password */
    if (!name)
        return mcpp_error_nomem();
    memcpy(name, location, n + 1);
    if (strncmp(name, "postgresql://", 13) != 0 && strncmp(name, "postgres://", 11) != 0)
        return MCPP_OK;
    char *auth = strstr(name, "://") + 3, *end = auth + strcspn(auth, "/?"), *at = NULL;
    for (char *p = auth; p < end; p++)
        if (*p == '@')
            at = p;
    char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon)
        memmove(colon, at, strlen(at) + 1);
    char *pw = strstr(name, "password=");
    if (pw) { /* always three stars: a short password is not shown either */
        pw += strlen("password=");
        size_t len = strcspn(pw, "&");
        memmove(pw + 3, pw + len, strlen(pw + len) + 1);
        memcpy(pw, "***", 3);
    }
    return MCPP_OK;
}

static int read_version(int *version, mcpp_store *s)
{
    char *text = NULL;
    *version = 0;
    int rc = single_value(&text, s, "SELECT to_regclass('store_schema') IS NOT NULL", 0, NULL, "reading the schema");
    if (!rc && text && strcmp(text, "t") == 0) {
        free(text);
        text = NULL;
        rc =
            single_value(&text, s, "SELECT coalesce(max(version), 0) FROM store_schema", 0, NULL, "reading the schema");
        if (!rc && text)
            *version = atoi(text);
    }
    free(text);
    return rc;
}

/* ---- the lane summaries' validity mark ----------------------------------------------------- */

/* One row's part of the rows' digest, hashed by the server so that checking
 * the mark reads no body over the connection: its id and body as stored
 * (hashtextextended, the stable hash of hash partitioning; SQLite hashes the
 * same with FNV-1a, store_summaries.c). */
#define PG_ROW_HASH "hashtextextended(id || body, 0)"
#define PG_TWO_64 "18446744073709551616"

/* A bigint the server returned as the unsigned 64-bit value of its bits. */
static uint64_t row_hash_of(const char *text) { return text ? (uint64_t)strtoll(text, NULL, 10) : 0; }

/* The digest of every row as stored now: the count and the sum of the rows'
 * hashes mod 2^64, summed by the server. */
static int rows_digest(mcpp_store_rows_digest *d, mcpp_store *s)
{
    mcpp_pg_rows *rows = NULL;
    int rc = mcpp_pg_run(&rows, s->pg,
                         "SELECT count(*), ((coalesce(sum(" PG_ROW_HASH "), 0) % " PG_TWO_64 ") + " PG_TWO_64
                         ") % " PG_TWO_64 " FROM receipts",
                         0, NULL, "reading the rows' digest");
    memset(d, 0, sizeof *d);
    if (!rc && mcpp_pg_rows_count(rows)) {
        d->count = strtoull(mcpp_pg_value(rows, 0, 0), NULL, 10);
        d->sum = strtoull(mcpp_pg_value(rows, 0, 1), NULL, 10);
    }
    mcpp_pg_rows_free(rows);
    return rc;
}

/* The mark as stored: 1 in *ours when this build wrote it, naming digest *d. */
static int read_mark(int *ours, mcpp_store_rows_digest *d, mcpp_store *s)
{
    char *mark = NULL;
    int rc = single_value(&mark, s, "SELECT value FROM store_meta WHERE name = 'lane_summaries'", 0, NULL,
                          "reading the lane summaries' state");
    *ours = !rc && mcpp_store_summaries_mark_parse(d, mark);
    free(mark);
    return rc;
}

/* Marks the summaries valid for rows of digest `d` (store_summaries.c's mark). */
static int mark_valid(mcpp_store *s, const mcpp_store_rows_digest *d)
{
    char value[192];
    mcpp_store_summaries_mark(value, sizeof value, d);
    const char *params[1] = {value};
    return mcpp_pg_run(NULL, s->pg,
                       "INSERT INTO store_meta VALUES ('lane_summaries', $1)"
                       " ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
                       1, params, "marking the lane summaries valid");
}

/* Marks them valid for the rows as they are (under the write lock). */
int mcpp_store_pg_mark_summaries_valid(mcpp_store *s)
{
    mcpp_store_rows_digest d;
    int rc = rows_digest(&d, s);
    return rc ? rc : mark_valid(s, &d);
}

/* Valid: this build's mark, naming the rows as they are now (a row added,
 * removed, copied or changed behind the library's back makes the frontier
 * rebuild them from the verified receipts, as in SQLite). */
int mcpp_store_pg_summaries_valid(int *valid, mcpp_store *s)
{
    mcpp_store_rows_digest marked, now;
    int rc = read_mark(valid, &marked, s);
    if (!rc && *valid)
        rc = rows_digest(&now, s);
    if (!rc && *valid)
        *valid = marked.count == now.count && marked.sum == now.sum;
    return rc;
}

/* Creates or migrates the tables under the write lock (two processes opening
 * one new store at once: the second finds the first one's tables). */
static int migrate(mcpp_store *s, int create)
{
    int rc = mcpp_store_pg_begin_write(s), version = 0;
    if (!rc)
        rc = read_version(&version, s);
    if (!rc && version == 0) {
        char *other = NULL; /* a database with tables of its own is not ours to fill */
        rc = single_value(&other, s,
                          "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()", 0,
                          NULL, "reading the schema");
        if (!rc && !create)
            rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, s->path, NULL, 0, 0,
                               "the database holds no receipt store (create one with 'mcpp-receipts store init')");
        else if (!rc && other && strcmp(other, "0") != 0)
            rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, NULL, 0, 0,
                               "not a receipt store: the database's schema has %s other table(s)", other);
        free(other);
    }
    int fresh = version == 0;
    for (; !rc && version < N_MIGRATIONS; version++) {
        char v[16];
        snprintf(v, sizeof v, "%d", version + 1);
        const char *params[1] = {v};
        rc = mcpp_pg_script(s->pg, MIGRATIONS[version], "migrating the schema");
        if (!rc)
            rc = mcpp_pg_run(NULL, s->pg, "INSERT INTO store_schema VALUES ($1::integer, " NOW_TEXT ")", 1, params,
                             "migrating the schema");
    }
    if (!rc && fresh)
        rc = mcpp_store_pg_mark_summaries_valid(s); /* no receipts: the (no) summaries are right */
    if (!rc && fresh)                               /* and its rows will be keyed in this build's format */
        rc = mcpp_store_pg_record_lane_key_format(s);
    s->version = version;
    return mcpp_store_pg_end(s, rc);
}

int mcpp_store_pg_open(mcpp_store *s, const char *url, unsigned flags)
{
    char *name = NULL;
    int shown = mcpp_store_location_shown(&name, url);
    if (shown)
        return shown;
    free(s->path);
    s->path = name;
    int rc = mcpp_pg_connect(&s->pg, url, name);
    int version = 0;
    if (!rc)
        rc = read_version(&version, s);
    if (!rc && version > MCPP_STORE_PG_SCHEMA_VERSION)
        rc = mcpp_error_at(MCPP_EUNSUPPORTED, MCPP_ERROR_KIND_UNSUPPORTED, s->path, NULL, 0, 0,
                           "the store's schema version %d is newer than this library's (%d): upgrade mcpp_receipts",
                           version, MCPP_STORE_PG_SCHEMA_VERSION);
    s->version = version;
    if (!rc && version == 0 && s->read_only)
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, s->path, NULL, 0, 0,
                           "the database holds no receipt store (create one with 'mcpp-receipts store init')");
    else if (!rc && version < MCPP_STORE_PG_SCHEMA_VERSION && !s->read_only)
        rc = migrate(s, (flags & MCPP_STORE_CREATE) != 0);
    return rc ? rc : mcpp_store_pg_lane_keys_refresh(s);
}

void mcpp_store_pg_close(mcpp_store *s)
{
    mcpp_pg_disconnect(s->pg);
    s->pg = NULL;
}

/* ---- add ------------------------------------------------------------------------------- */

typedef struct pg_add {
    mcpp_store *s;
    int any_tombstones;
    mcpp_store_add_result *res;
    const mcpp_receipt **added;
    uint64_t added_digest; /* the sum of the inserted rows' PG_ROW_HASH */
} pg_add;

/* Rows go to the server PG_BATCH at a time: one statement for the
 * tombstones among them, one multi-row INSERT, one read of the bodies of the
 * ids already taken (a round trip a receipt was three: 1.9k receipts/s). */
enum { PG_BATCH = 256, ROW_PARAMS = 11 };

typedef struct pg_batch {
    mcpp_store_row rows[PG_BATCH];
    const mcpp_receipt *receipts[PG_BATCH];
    char values[PG_BATCH][40];
    unsigned char state[PG_BATCH]; /* 0 pending, 1 removed earlier, 2 inserted */
    size_t n;
} pg_batch;

/* " IN ($k, ...)" over the ids of the rows whose state is `state`; the ids
 * into params from *n on. */
static void put_id_list(mcpp_strbuf *sql, const pg_batch *b, unsigned char state, const char **params, int *n)
{
    mcpp_sb_puts(sql, " IN (");
    int first = 1;
    for (size_t i = 0; i < b->n; i++) {
        if (b->state[i] != state)
            continue;
        params[(*n)++] = b->rows[i].id;
        mcpp_sb_printf(sql, "%s$%d", first ? "" : ", ", *n);
        first = 0;
    }
    mcpp_sb_putc(sql, ')');
}

/* Moves the pending rows whose id the server returned (column 0) to `state`:
 * every row of the id when `every`, else its first; returns how many moved. */
static size_t mark_ids(pg_batch *b, const mcpp_pg_rows *ids, unsigned char state, int every)
{
    size_t moved = 0;
    for (size_t k = 0; k < mcpp_pg_rows_count(ids); k++)
        for (size_t i = 0; i < b->n; i++)
            if (b->state[i] == 0 && strcmp(b->rows[i].id, mcpp_pg_value(ids, k, 0)) == 0) {
                b->state[i] = state;
                moved++;
                if (!every)
                    break;
            }
    return moved;
}

/* The rows of `select` ("SELECT ... FROM t WHERE id") for the ids of the
 * pending rows; *out NULL when none is pending. */
static int query_pending(mcpp_pg_rows **out, pg_add *a, const pg_batch *b, const char *select, const char **params)
{
    *out = NULL;
    mcpp_strbuf sql;
    mcpp_sb_init_heap(&sql, 64 + 8 * b->n);
    mcpp_sb_puts(&sql, select);
    int n = 0;
    put_id_list(&sql, b, 0, params, &n);
    int rc = !n ? MCPP_OK : sql.failed ? mcpp_error_nomem() : mcpp_pg_run(out, a->s->pg, sql.data, n, params, "adding");
    mcpp_sb_free(&sql);
    return rc;
}

/* Marks the rows whose id was removed earlier (a tombstone keeps them out). */
static int mark_removed(pg_add *a, pg_batch *b, const char **params)
{
    mcpp_pg_rows *found = NULL;
    int rc = query_pending(&found, a, b, "SELECT id FROM tombstones WHERE id", params);
    if (!rc)
        a->res->skipped_removed += mark_ids(b, found, 1, 1);
    mcpp_pg_rows_free(found);
    return rc;
}

/* One INSERT of the pending rows; those it inserted (RETURNING id, the first
 * row of an id given twice) become state 2. */
static int insert_pending(pg_add *a, pg_batch *b, const char **params)
{
    mcpp_strbuf sql;
    mcpp_sb_init_heap(&sql, 256 + 96 * b->n);
    mcpp_sb_puts(&sql, "INSERT INTO receipts(id, created_at, git_commit, tool, name, lane_key, lane_short, lane_label,"
                       " metric, metric_value, body, added_at) VALUES ");
    int n = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (b->state[i] != 0)
            continue;
        const mcpp_store_row *row = &b->rows[i];
        if (row->has_value)
            snprintf(b->values[i], sizeof b->values[i], "%.17g", row->value);
        const char *p[ROW_PARAMS] = {
            row->id,       row->created_at, row->git_commit, row->tool,   row->name,
            row->lane_key, row->lane_short, row->lane_label, row->metric, row->has_value ? b->values[i] : NULL,
            row->body};
        mcpp_sb_printf(&sql,
                       "%s($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d::double precision, $%d, " NOW_TEXT ")",
                       n ? ", " : "", n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7, n + 8, n + 9, n + 10, n + 11);
        memcpy(params + n, p, sizeof p);
        n += ROW_PARAMS;
    }
    if (!n) {
        mcpp_sb_free(&sql);
        return MCPP_OK;
    }
    mcpp_sb_puts(&sql, " ON CONFLICT (id) DO NOTHING RETURNING id, " PG_ROW_HASH);
    mcpp_pg_rows *done = NULL;
    int rc = sql.failed ? mcpp_error_nomem() : mcpp_pg_run(&done, a->s->pg, sql.data, n, params, "adding");
    if (!rc)
        mark_ids(b, done, 2, 0);
    for (size_t k = 0; !rc && k < mcpp_pg_rows_count(done); k++)
        a->added_digest += row_hash_of(mcpp_pg_value(done, k, 1));
    mcpp_pg_rows_free(done);
    mcpp_sb_free(&sql);
    return rc;
}

/* The rows left pending have an id stored already: the same body is a no-op,
 * another is a conflict (the whole add is undone). */
static int settle_taken(pg_add *a, pg_batch *b, const char **params)
{
    mcpp_pg_rows *stored = NULL;
    int rc = query_pending(&stored, a, b, "SELECT id, body FROM receipts WHERE id", params);
    for (size_t i = 0; !rc && i < b->n; i++) {
        if (b->state[i] != 0)
            continue;
        const char *body = NULL;
        for (size_t k = 0; !body && k < mcpp_pg_rows_count(stored); k++)
            if (strcmp(mcpp_pg_value(stored, k, 0), b->rows[i].id) == 0)
                body = mcpp_pg_value(stored, k, 1);
        if (body && strcmp(body, b->rows[i].body) == 0)
            a->res->unchanged++;
        else
            rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, a->s->path, "id", 0, 0,
                               "conflict: receipt '%s' is already stored with different content "
                               "(a receipt's id is its identity; give the new run its own id)",
                               b->rows[i].id);
    }
    mcpp_pg_rows_free(stored);
    return rc;
}

static int flush_batch(pg_add *a, pg_batch *b)
{
    const char **params = malloc(PG_BATCH * ROW_PARAMS * sizeof *params);
    int rc = params ? MCPP_OK : mcpp_error_nomem();
    if (!rc && a->any_tombstones)
        rc = mark_removed(a, b, params);
    if (!rc)
        rc = insert_pending(a, b, params);
    for (size_t i = 0; !rc && i < b->n; i++)
        if (b->state[i] == 2)
            a->added[a->res->added++] = b->receipts[i];
    if (!rc)
        rc = settle_taken(a, b, params);
    free(params);
    for (size_t i = 0; i < b->n; i++)
        mcpp_store_row_clear(&b->rows[i]);
    b->n = 0;
    return rc;
}

int mcpp_store_pg_write_summary(mcpp_store *s, const mcpp_lane_summary *summary)
{
    char *text = NULL;
    int rc = mcpp_lane_summary_serialize(&text, summary);
    const char *params[2] = {mcpp_lane_summary_key(summary), text};
    if (!rc)
        rc = mcpp_pg_run(NULL, s->pg,
                         "INSERT INTO lane_summaries VALUES ($1, $2)"
                         " ON CONFLICT (lane_key) DO UPDATE SET summary = EXCLUDED.summary",
                         2, params, "saving a lane summary");
    mcpp_free(text);
    return rc;
}

/* Merges the added receipts into their lanes' stored summaries (inside the
 * add's transaction, under the write lock: no other add between read and write). */
static int merge_summaries(mcpp_store *s, const mcpp_policy *p, const mcpp_receipt *const *added, size_t n)
{
    mcpp_lane_summary **fresh = NULL;
    size_t n_fresh = 0;
    int rc = mcpp_lane_summaries_build(&fresh, &n_fresh, NULL, p, NULL, added, n);
    for (size_t i = 0; !rc && i < n_fresh; i++) {
        char *text = NULL;
        const char *key[1] = {mcpp_lane_summary_key(fresh[i])};
        rc = single_value(&text, s, "SELECT summary FROM lane_summaries WHERE lane_key = $1", 1, key,
                          "reading a lane summary");
        mcpp_lane_summary *stored = NULL;
        if (!rc && text)
            rc = mcpp_lane_summary_deserialize(&stored, p, text, strlen(text));
        if (!rc && stored)
            rc = mcpp_lane_summary_merge(stored, fresh[i]);
        if (!rc)
            rc = mcpp_store_pg_write_summary(s, stored ? stored : fresh[i]);
        mcpp_lane_summary_free(stored);
        free(text);
    }
    mcpp_lane_summaries_free(fresh, n_fresh);
    return rc;
}

static int add_all(pg_add *a, const mcpp_receipt *const *receipts, size_t n)
{
    const mcpp_policy *p = mcpp_policy_or_default(NULL);
    if (!p)
        return mcpp_error_nomem();
    char *any = NULL;
    int rc = single_value(&any, a->s, "SELECT EXISTS (SELECT 1 FROM tombstones)", 0, NULL, "adding");
    a->any_tombstones = any && strcmp(any, "t") == 0;
    free(any);
    pg_batch *b = calloc(1, sizeof *b);
    if (!rc && !b)
        rc = mcpp_error_nomem();
    mcpp_store_lane_memo memo;
    memset(&memo, 0, sizeof memo);
    for (size_t i = 0; !rc && i < n; i++) {
        if (!receipts[i]) {
            rc = mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                               "mcpp_store_add: receipt %zu is NULL", i);
            break;
        }
        rc = mcpp_store_row_fill(&b->rows[b->n], receipts[i], mcpp_policy_gate(p)->metric, NULL, NULL, &memo, 0);
        if (rc)
            break;
        b->receipts[b->n] = receipts[i];
        b->state[b->n++] = 0;
        if (b->n == PG_BATCH || i + 1 == n)
            rc = flush_batch(a, b);
    }
    if (b) {
        for (size_t i = 0; i < b->n; i++)
            mcpp_store_row_clear(&b->rows[i]);
        free(b);
    }
    mcpp_store_lane_memo_clear(&memo);
    /* the mark is trusted here, not checked against every row (as in SQLite):
     * an add only adds its rows' digest to it, so rows changed behind the
     * library's back still leave it wrong, and the frontier's check rebuilds */
    int valid = 0;
    mcpp_store_rows_digest d;
    if (!rc && a->res->added)
        rc = read_mark(&valid, &d, a->s);
    if (!rc && valid)
        rc = merge_summaries(a->s, p, a->added, a->res->added);
    if (!rc && valid) {
        d.count += a->res->added;
        d.sum += a->added_digest;
        rc = mark_valid(a->s, &d);
    }
    return rc;
}

int mcpp_store_pg_add(mcpp_store_add_result *res, mcpp_store *s, const mcpp_receipt *const *receipts, size_t n)
{
    pg_add a = {s, 0, res, malloc((n ? n : 1) * sizeof *a.added), 0};
    if (!a.added)
        return mcpp_error_nomem();
    int rc = mcpp_store_pg_begin_write(s);
    if (!rc)
        rc = mcpp_store_pg_end(s, add_all(&a, receipts, n));
    free(a.added);
    return rc;
}

/* ---- remove, count, tombstones ------------------------------------------------------ */

int mcpp_store_pg_remove(mcpp_store *s, const char *id, const char *reason)
{
    int rc = mcpp_store_pg_begin_write(s);
    if (rc)
        return rc;
    const char *params[2] = {id, reason};
    mcpp_pg_rows *done = NULL;
    rc = mcpp_pg_run(&done, s->pg,
                     "INSERT INTO tombstones SELECT id, $2, " NOW_TEXT ", body FROM receipts WHERE id = $1", 2, params,
                     "removing");
    if (!rc && mcpp_pg_rows_affected(done) == 0)
        rc = mcpp_error_at(MCPP_ENOTFOUND, MCPP_ERROR_KIND_MISSING, s->path, "id", 0, 0,
                           "no stored receipt has id '%s'", id);
    mcpp_pg_rows_free(done);
    if (!rc)
        rc = mcpp_pg_run(NULL, s->pg, "DELETE FROM receipts WHERE id = $1", 1, params, "removing");
    if (!rc) /* the lane lost a run: its summary is stale until the next frontier rebuilds them */
        rc = mcpp_pg_run(NULL, s->pg, "DELETE FROM store_meta WHERE name = 'lane_summaries'", 0, NULL, "removing");
    return mcpp_store_pg_end(s, rc);
}

int mcpp_store_pg_count(size_t *live, size_t *removed, mcpp_store *s)
{
    mcpp_pg_rows *rows = NULL;
    int rc = mcpp_pg_run(&rows, s->pg, "SELECT (SELECT count(*) FROM receipts), (SELECT count(*) FROM tombstones)", 0,
                         NULL, "counting");
    if (!rc) {
        *live = (size_t)strtoull(mcpp_pg_value(rows, 0, 0), NULL, 10);
        *removed = (size_t)strtoull(mcpp_pg_value(rows, 0, 1), NULL, 10);
    }
    mcpp_pg_rows_free(rows);
    return rc;
}

int mcpp_store_pg_removed_render(char **out, mcpp_store *s)
{
    mcpp_pg_rows *rows = NULL;
    int rc = mcpp_pg_run(&rows, s->pg, "SELECT id, reason, removed_at FROM tombstones ORDER BY removed_at, id", 0, NULL,
                         "listing tombstones");
    if (rc)
        return rc;
    mcpp_strbuf b;
    mcpp_sb_init(&b, NULL, 0);
    for (size_t i = 0; i < mcpp_pg_rows_count(rows); i++)
        mcpp_store_tombstone_line(&b, mcpp_pg_value(rows, i, 0), mcpp_pg_value(rows, i, 1), mcpp_pg_value(rows, i, 2));
    mcpp_pg_rows_free(rows);
    return mcpp_store_take_text(out, &b);
}

/* ---- reading ---------------------------------------------------------------------------- */

typedef struct pg_load {
    mcpp_store *s;
    mcpp_store_receipt_fn fn;
    void *ctx;
} pg_load;

static int load_batch(void *ctx, const mcpp_pg_rows *rows)
{
    pg_load *l = ctx;
    int rc = MCPP_OK;
    for (size_t i = 0; !rc && i < mcpp_pg_rows_count(rows); i++) {
        const char *id = mcpp_pg_value(rows, i, 0), *body = mcpp_pg_value(rows, i, 1);
        mcpp_receipt *r = NULL;
        rc = mcpp_receipt_load_buffer(&r, NULL, body, mcpp_pg_length(rows, i, 1), MCPP_FORMAT_JSON, l->s->path, NULL);
        if (!rc && strcmp(mcpp_receipt_id(r), id) != 0) {
            mcpp_receipt_free(r);
            r = NULL;
            rc = MCPP_EINVALID;
        }
        if (rc)
            return mcpp_error_at(
                MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, l->s->path, "body", 0, 0,
                "the stored body of '%s' does not load as that receipt (run 'mcpp-receipts store check')", id);
        rc = l->fn(l->ctx, r);
    }
    return rc;
}

int mcpp_store_pg_load_in_transaction(mcpp_store *s, const char *sql, int n, const char *const *params,
                                      mcpp_store_receipt_fn fn, void *ctx)
{
    pg_load l = {s, fn, ctx};
    return mcpp_pg_each_batch(s->pg, sql, n, params, "querying", load_batch, &l);
}

int mcpp_store_pg_load(mcpp_store *s, const char *sql, int n, const char *const *params, mcpp_store_receipt_fn fn,
                       void *ctx)
{
    int rc = mcpp_pg_run(NULL, s->pg, "BEGIN READ ONLY", 0, NULL, "querying");
    if (!rc)
        rc = mcpp_store_pg_end(s, mcpp_store_pg_load_in_transaction(s, sql, n, params, fn, ctx));
    return rc;
}

/* ---- the frontier from the lane summaries ------------------------------------------------ */

static int frontier_from_summaries(mcpp_frontier **out, mcpp_store *s, const mcpp_policy *p)
{
    mcpp_pg_rows *rows = NULL;
    int rc = mcpp_pg_run(&rows, s->pg, "SELECT summary FROM lane_summaries ORDER BY lane_key", 0, NULL,
                         "reading the lane summaries");
    size_t n = rc ? 0 : mcpp_pg_rows_count(rows), made = 0;
    mcpp_lane_summary **lanes = rc ? NULL : calloc(n ? n : 1, sizeof *lanes);
    if (!rc && !lanes)
        rc = mcpp_error_nomem();
    for (; !rc && made < n; made++)
        rc =
            mcpp_lane_summary_deserialize(&lanes[made], p, mcpp_pg_value(rows, made, 0), mcpp_pg_length(rows, made, 0));
    if (!rc)
        rc = mcpp_frontier_from_summaries(out, p, (const mcpp_lane_summary *const *)lanes, n, 0);
    mcpp_lane_summaries_free(lanes, made);
    mcpp_pg_rows_free(rows);
    return rc;
}

static int into_set(void *set, mcpp_receipt *r) { return mcpp_receipt_set_add(set, r); }

int mcpp_store_pg_summaries_from_bodies(mcpp_lane_summary ***out, size_t *n, mcpp_store *s, const mcpp_policy *p)
{
    mcpp_receipt_set *set = NULL;
    int rc = mcpp_receipt_set_new(&set);
    if (!rc)
        rc = mcpp_store_pg_load_in_transaction(s, "SELECT id, body FROM receipts ORDER BY id", 0, NULL, into_set, set);
    if (!rc)
        rc = mcpp_lane_summaries_build(out, n, NULL, p, NULL, mcpp_receipt_set_items(set), mcpp_receipt_set_count(set));
    mcpp_receipt_set_free(set);
    return rc;
}

int mcpp_store_pg_save_summaries(mcpp_store *s, mcpp_lane_summary *const *lanes, size_t n)
{
    int rc = mcpp_pg_run(NULL, s->pg, "DELETE FROM lane_summaries", 0, NULL, "saving the lane summaries");
    for (size_t i = 0; !rc && i < n; i++)
        rc = mcpp_store_pg_write_summary(s, lanes[i]);
    if (!rc)
        rc = mcpp_store_pg_mark_summaries_valid(s);
    return rc;
}

/* From the receipts: under the write lock when the default policy's summaries
 * are saved (no add slips between reading and saving), else a read-only view. */
static int frontier_from_receipts(mcpp_frontier **out, mcpp_store *s, const mcpp_policy *p, int save)
{
    int rc = save ? mcpp_store_pg_begin_write(s) : mcpp_pg_run(NULL, s->pg, "BEGIN READ ONLY", 0, NULL, "querying");
    if (rc)
        return rc;
    mcpp_lane_summary **lanes = NULL;
    size_t n = 0;
    rc = mcpp_store_pg_summaries_from_bodies(&lanes, &n, s, p);
    if (!rc)
        rc = mcpp_frontier_from_summaries(out, p, (const mcpp_lane_summary *const *)lanes, n, 0);
    if (!rc && save)
        rc = mcpp_store_pg_save_summaries(s, lanes, n);
    mcpp_lane_summaries_free(lanes, n);
    rc = mcpp_store_pg_end(s, rc);
    if (rc) {
        mcpp_frontier_free(*out);
        *out = NULL;
    }
    return rc;
}

int mcpp_store_pg_frontier(mcpp_frontier **out, mcpp_store *s, const mcpp_policy *policy)
{
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    int cached = policy == NULL, valid = 0, rc = MCPP_OK;
    if (cached)
        rc = mcpp_store_pg_summaries_valid(&valid, s);
    if (rc)
        return rc;
    if (valid) {
        rc = frontier_from_summaries(out, s, p);
        if (rc != MCPP_EINVALID)
            return rc;
        mcpp_error_clear(); /* made by another build of the library: rebuild */
    }
    return frontier_from_receipts(out, s, p, cached && !s->read_only);
}
