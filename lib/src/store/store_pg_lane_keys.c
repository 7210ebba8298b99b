/*
 * store_pg_lane_keys.c — the lane columns (lane_key, lane_short, lane_label)
 * of a PostgreSQL store kept in this build's lane key format, by the rule of
 * store_lane_keys.c for SQLite (why: there), with its derivation of a
 * receipt's columns (mcpp_store_lane_columns_of) and its format text.
 *
 * The store records the format in store_meta 'lane_key_format' when it is
 * created, and on open, when the recorded format is not this build's (or is
 * absent and the store has rows: one an older build wrote), the columns are
 * derived again from each row's verified receipt (its body loads, carrying
 * the row's id: store_pg.c's loader):
 *
 *   - opened read-write, in place, in one transaction under the write lock
 *     every writer takes (an add waits, and sees the new columns): the format
 *     is read again (another process may have done it while this one waited),
 *     the rows whose columns differ are updated PUT_BATCH to a statement, the
 *     lane summaries are marked stale when a column changed, and the format
 *     is recorded;
 *   - opened read-only, without writing the store: into a temporary table of
 *     the session, with a temporary view `receipts` that takes its lane
 *     columns from it. PostgreSQL looks an unqualified table name up in the
 *     session's temporary schema first, so every reader's SQL reads the
 *     derived columns. A server that refuses temporary tables (a hot standby,
 *     a role without TEMP) leaves the stored columns in use, as before.
 *
 * A store whose receipts do not all load keeps its columns as they are
 * (`store check` names the body; a half-derived set would be worse).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/strbuf.h"
#include "store/store_internal.h"
#include "store/store_pg.h"

/* Rows a statement writes: 4 parameters each, well under libpq's 65,535. */
enum { PUT_BATCH = 256 };

/* The statement that writes a batch: head, "($1, $2, $3, $4), ...", tail;
 * the values are id, key, short key, label. */
typedef struct pg_put {
    const char *head, *tail;
} pg_put;

static const pg_put UPDATE_IN_PLACE = {
    "UPDATE receipts r SET lane_key = v.k, lane_short = v.s, lane_label = v.l FROM (VALUES ",
    ") AS v(id, k, s, l) WHERE r.id = v.id AND (r.lane_key IS DISTINCT FROM v.k"
    " OR r.lane_short IS DISTINCT FROM v.s OR r.lane_label IS DISTINCT FROM v.l)"};
static const pg_put INTO_TEMP = {"INSERT INTO pg_temp.mcpp_lane_columns VALUES ", ""};

typedef struct pg_deriving {
    mcpp_store *s;
    const pg_put *put;
    mcpp_receipt *receipts[PUT_BATCH]; /* held until written: their ids are parameters */
    mcpp_store_lane_columns cols[PUT_BATCH];
    size_t n, changed;
} pg_deriving;

static void drop_batch(pg_deriving *d)
{
    for (size_t i = 0; i < d->n; i++) {
        mcpp_store_lane_columns_clear(&d->cols[i]);
        mcpp_receipt_free(d->receipts[i]);
    }
    d->n = 0;
}

static int write_batch(pg_deriving *d)
{
    if (!d->n)
        return MCPP_OK;
    const char **params = malloc(4 * d->n * sizeof *params);
    mcpp_strbuf sql;
    mcpp_sb_init_heap(&sql, 128 + 24 * d->n);
    mcpp_sb_puts(&sql, d->put->head);
    for (size_t i = 0; params && i < d->n; i++) {
        int k = (int)(4 * i);
        params[k] = mcpp_receipt_id(d->receipts[i]);
        params[k + 1] = d->cols[i].key;
        params[k + 2] = d->cols[i].short_key;
        params[k + 3] = d->cols[i].label;
        mcpp_sb_printf(&sql, "%s($%d, $%d, $%d, $%d)", i ? ", " : "", k + 1, k + 2, k + 3, k + 4);
    }
    mcpp_sb_puts(&sql, d->put->tail);
    mcpp_pg_rows *done = NULL;
    int rc = !params || sql.failed
                 ? mcpp_error_nomem()
                 : mcpp_pg_run(&done, d->s->pg, sql.data, (int)(4 * d->n), params, "deriving the lane keys");
    if (!rc)
        d->changed += mcpp_pg_rows_affected(done);
    mcpp_pg_rows_free(done);
    mcpp_sb_free(&sql);
    free(params);
    drop_batch(d);
    return rc;
}

/* One verified receipt (owned): its columns join the batch. */
static int derive_one(void *ctx, mcpp_receipt *r)
{
    pg_deriving *d = ctx;
    int rc = mcpp_store_lane_columns_of(&d->cols[d->n], r);
    if (rc) {
        mcpp_receipt_free(r);
        return rc;
    }
    d->receipts[d->n++] = r;
    return d->n == PUT_BATCH ? write_batch(d) : MCPP_OK;
}

/* Every row's columns through `put`, inside the caller's transaction. */
static int derive_all(size_t *changed, mcpp_store *s, const pg_put *put)
{
    pg_deriving *d = calloc(1, sizeof *d);
    if (!d)
        return mcpp_error_nomem();
    d->s = s;
    d->put = put;
    int rc = mcpp_store_pg_load_in_transaction(s, "SELECT id, body FROM receipts ORDER BY id", 0, NULL, derive_one, d);
    if (!rc)
        rc = write_batch(d);
    drop_batch(d);
    *changed = d->changed;
    free(d);
    return rc;
}

/* The one value of a one-row query (NULL: no row or SQL NULL) as *out. */
static int first_value(char **out, mcpp_store *s, const char *sql, const char *what)
{
    *out = NULL;
    mcpp_pg_rows *rows = NULL;
    int rc = mcpp_pg_run(&rows, s->pg, sql, 0, NULL, what);
    if (!rc && mcpp_pg_rows_count(rows) && mcpp_pg_value(rows, 0, 0) &&
        !(*out = mcpp_strdup(mcpp_pg_value(rows, 0, 0), NULL)))
        rc = mcpp_error_nomem();
    mcpp_pg_rows_free(rows);
    return rc;
}

/* 1 in *same when the store records this build's format; 1 in *any (when
 * asked) when it holds a receipt. */
static int recorded_format(int *same, int *any, mcpp_store *s)
{
    char *value = NULL;
    int rc = first_value(&value, s, "SELECT value FROM store_meta WHERE name = '" MCPP_STORE_LANE_KEY_FORMAT_NAME "'",
                         "reading the lane key format");
    *same = value && strcmp(value, mcpp_store_lane_key_format()) == 0;
    free(value);
    if (!rc && any && !*same) {
        rc = first_value(&value, s, "SELECT EXISTS (SELECT 1 FROM receipts)", "counting receipts");
        *any = value && strcmp(value, "t") == 0;
        free(value);
    }
    return rc;
}

int mcpp_store_pg_record_lane_key_format(mcpp_store *s)
{
    const char *params[1] = {mcpp_store_lane_key_format()};
    return mcpp_pg_run(NULL, s->pg,
                       "INSERT INTO store_meta VALUES ('" MCPP_STORE_LANE_KEY_FORMAT_NAME "', $1)"
                       " ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
                       1, params, "recording the lane key format");
}

static int rewrite_in_place(mcpp_store *s)
{
    int rc = mcpp_store_pg_begin_write(s);
    if (rc)
        return rc;
    int same = 0, any = 0;
    size_t changed = 0;
    rc = recorded_format(&same, &any, s); /* another process may have done it while we waited */
    if (!rc && !same && any)
        rc = derive_all(&changed, s, &UPDATE_IN_PLACE);
    if (!rc && changed) /* summaries are filed by lane key: rebuilt by the next frontier */
        rc = mcpp_pg_run(NULL, s->pg, "DELETE FROM store_meta WHERE name = 'lane_summaries'", 0, NULL,
                         "marking the lane summaries stale");
    if (!rc && !same)
        rc = mcpp_store_pg_record_lane_key_format(s);
    return mcpp_store_pg_end(s, rc);
}

/* The view reads the store's own table by its schema's name (created before
 * the view exists, `receipts` would find it too; the name says so). A row
 * added after this open (by a writer of this build, whose open rewrote the
 * columns) has no derived columns and keeps its own: an inner join hid it
 * from this handle for as long as it stayed open. */
static int derive_into_temp(mcpp_store *s)
{
    char *schema = NULL;
    size_t changed = 0;
    int rc = first_value(&schema, s, "SELECT quote_ident(current_schema())", "deriving the lane keys");
    if (!rc && !schema)
        rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, NULL, 0, 0,
                           "deriving the lane keys: no current schema");
    if (!rc)
        rc = mcpp_pg_run(NULL, s->pg, "BEGIN", 0, NULL, "deriving the lane keys");
    if (rc) {
        free(schema);
        return rc;
    }
    rc = mcpp_pg_run(NULL, s->pg,
                     "CREATE TEMP TABLE mcpp_lane_columns(id TEXT COLLATE \"C\" PRIMARY KEY,"
                     " lane_key TEXT COLLATE \"C\" NOT NULL, lane_short TEXT COLLATE \"C\" NOT NULL,"
                     " lane_label TEXT COLLATE \"C\")",
                     0, NULL, "deriving the lane keys");
    if (!rc)
        rc = derive_all(&changed, s, &INTO_TEMP);
    mcpp_strbuf view;
    mcpp_sb_init_heap(&view, 512);
    mcpp_sb_printf(&view,
                   "CREATE TEMP VIEW receipts AS SELECT r.id, r.created_at, r.git_commit, r.tool, r.name,"
                   " coalesce(l.lane_key, r.lane_key) AS lane_key, coalesce(l.lane_short, r.lane_short) AS lane_short,"
                   " CASE WHEN l.id IS NULL THEN r.lane_label ELSE l.lane_label END AS lane_label,"
                   " r.metric, r.metric_value, r.body, r.added_at"
                   " FROM %s.receipts r LEFT JOIN pg_temp.mcpp_lane_columns l ON l.id = r.id",
                   schema);
    free(schema);
    if (!rc)
        rc = view.failed ? mcpp_error_nomem() : mcpp_pg_run(NULL, s->pg, view.data, 0, NULL, "deriving the lane keys");
    mcpp_sb_free(&view);
    if (!rc) /* temporary tables are never analyzed by autovacuum: the planner needs their size */
        rc = mcpp_pg_run(NULL, s->pg, "ANALYZE pg_temp.mcpp_lane_columns", 0, NULL, "deriving the lane keys");
    return mcpp_store_pg_end(s, rc); /* a rollback drops both: readers see the stored columns */
}

int mcpp_store_pg_lane_keys_refresh(mcpp_store *s)
{
    int same = 0, any = 0;
    int rc = recorded_format(&same, s->read_only ? &any : NULL, s);
    if (rc || same || (s->read_only && !any))
        return rc;
    rc = s->read_only ? derive_into_temp(s) : rewrite_in_place(s);
    /* A receipt that does not load (store check names it), or, read-only, a
     * server that refuses temporary tables (a hot standby: SQLSTATE 25006;
     * no TEMP privilege: 42501, an EINVALID): the stored columns stay in use. */
    if (rc == MCPP_EINVALID || (rc && s->read_only && mcpp_pg_failed_with(s->pg, "25006"))) {
        mcpp_error_clear();
        rc = MCPP_OK;
    }
    return rc;
}
