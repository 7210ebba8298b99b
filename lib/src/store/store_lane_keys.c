/*
 * store_lane_keys.c — the lane columns (lane_key, lane_short, lane_label)
 * kept in the format this build writes.
 *
 * The columns are what `--lane` selectors, `history`, `gate --history` and
 * the lane summaries find rows by. A build whose lane key text differs
 * (analysis/lane_internal.h, MCPP_LANE_KEY_FORMAT: how values are written,
 * and the key's layout, a dimension added) would look for keys no row
 * has, and say the selector matches no lane. So the store records the format
 * its columns were written in (store_meta 'lane_key_format'), and on open,
 * when it is not this build's (or not recorded, as in a store an older build
 * wrote), re-derives the columns from each row's verified receipt (image or
 * body, with its id checked: store_load.c):
 *
 *   - opened read-write, in place, in one write transaction, marking the lane
 *     summaries stale when a key changed, and recording the format;
 *   - opened read-only, into a temporary table, with a temporary view
 *     `receipts` over the file's table that takes its lane columns from it
 *     (SQLite resolves an unqualified name in the temp schema first), so every
 *     reader's SQL reads the derived columns and the file is not written. A
 *     row added later (by a writer of this build, whose open rewrote the
 *     columns) keeps its own: the view is a left join, not an inner one that
 *     hid such rows from the handle for as long as it stayed open.
 *
 * A store whose receipts do not all load keeps its columns as they are (the
 * loss is reported by `store check`; a half-derived set would be worse).
 *
 * A receipt's three columns (mcpp_store_lane_columns_of) and the format's
 * text are shared with the PostgreSQL backend, which keeps its columns by the
 * same rule (store_pg_lane_keys.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/frontier.h"
#include "util/error_internal.h"
#include "analysis/lane_internal.h"
#include "policy/policy_internal.h"
#include "store/store_internal.h"

#define FORMAT_NAME MCPP_STORE_LANE_KEY_FORMAT_NAME

const char *mcpp_store_lane_key_format(void)
{
    /* how values are written, then the layout of the built-in policy's keys */
    static _Thread_local char value[48];
    const mcpp_policy *p = mcpp_policy_builtin();
    snprintf(value, sizeof value, "lanes/%d/%016llx", MCPP_LANE_KEY_FORMAT,
             p ? (unsigned long long)mcpp_lane_key_layout_hash(p) : 0ULL);
    return value;
}

int mcpp_store_lane_columns_of(mcpp_store_lane_columns *out, const mcpp_receipt *r)
{
    memset(out, 0, sizeof *out);
    int rc = mcpp_lane_key(&out->key, NULL, r);
    if (!rc)
        rc = mcpp_lane_key_short(out->short_key, sizeof out->short_key, out->key);
    if (!rc && !(out->label = mcpp_store_lane_label(r)))
        rc = mcpp_error_nomem();
    if (rc)
        mcpp_store_lane_columns_clear(out);
    return rc;
}

void mcpp_store_lane_columns_clear(mcpp_store_lane_columns *c)
{
    mcpp_free(c->key);
    free(c->label);
    memset(c, 0, sizeof *c);
}

/* 1 in *same when the store records this build's format. */
static int recorded_format(int *same, mcpp_store *s)
{
    char *value;
    int rc = mcpp_store_meta_text(&value, s, FORMAT_NAME, "reading the lane key format");
    *same = value && strcmp(value, mcpp_store_lane_key_format()) == 0;
    free(value);
    return rc;
}

static int record_format(mcpp_store *s)
{
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, "INSERT OR REPLACE INTO main.store_meta VALUES ('" FORMAT_NAME "', ?1)",
                                "recording the lane key format");
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, mcpp_store_lane_key_format(), -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? MCPP_OK : mcpp_store_sqlite_error(s, step, "recording the lane key format");
}

typedef struct deriving {
    mcpp_store *s;
    sqlite3_stmt *put; /* ?1 id, ?2 key, ?3 short key, ?4 label */
    size_t changed;
} deriving;

/* One receipt's lane columns through `put`. */
static int derive_one(void *ctx, mcpp_receipt *r)
{
    deriving *d = ctx;
    mcpp_store_lane_columns c;
    int rc = mcpp_store_lane_columns_of(&c, r);
    if (!rc) {
        sqlite3_reset(d->put);
        sqlite3_bind_text(d->put, 1, mcpp_receipt_id(r), -1, SQLITE_STATIC);
        sqlite3_bind_text(d->put, 2, c.key, -1, SQLITE_STATIC);
        sqlite3_bind_text(d->put, 3, c.short_key, -1, SQLITE_STATIC);
        sqlite3_bind_text(d->put, 4, c.label, -1, SQLITE_STATIC);
        int step = sqlite3_step(d->put);
        if (step != SQLITE_DONE)
            rc = mcpp_store_sqlite_error(d->s, step, "deriving the lane keys");
        else
            d->changed += (size_t)sqlite3_changes(d->s->db);
    }
    mcpp_store_lane_columns_clear(&c);
    mcpp_receipt_free(r);
    return rc;
}

/* Every row's receipt through derive_one, `put_sql` writing its columns. */
static int derive_all(size_t *changed, mcpp_store *s, const char *put_sql)
{
    deriving d = {s, NULL, 0};
    sqlite3_stmt *rows = NULL;
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT id, body, %s FROM main.receipts ORDER BY rowid", mcpp_store_image_column(s));
    int rc = mcpp_store_prepare(&d.put, s, put_sql, "deriving the lane keys");
    if (!rc)
        rc = mcpp_store_prepare(&rows, s, sql, "deriving the lane keys");
    if (!rc)
        rc = mcpp_store_load_rows_each(s, rows, derive_one, &d);
    sqlite3_finalize(rows);
    sqlite3_finalize(d.put);
    *changed = d.changed;
    return rc;
}

static int rewrite_in_place(mcpp_store *s)
{
    int rc = mcpp_store_begin_write(s);
    if (rc)
        return rc;
    int same = 0;
    size_t changed = 0;
    rc = recorded_format(&same, s); /* another process may have done it while we waited */
    if (!rc && !same)
        rc = derive_all(&changed, s,
                        "UPDATE main.receipts SET lane_key = ?2, lane_short = ?3, lane_label = ?4 WHERE id = ?1"
                        " AND (lane_key IS NOT ?2 OR lane_short IS NOT ?3 OR lane_label IS NOT ?4)");
    if (!rc && !same && changed)
        rc = mcpp_store_summaries_invalidate(s);
    if (!rc && !same)
        rc = record_format(s);
    if (rc) {
        mcpp_store_rollback(s);
        return rc;
    }
    return mcpp_store_commit(s);
}

static int derive_into_temp(mcpp_store *s)
{
    size_t changed = 0;
    int rc = mcpp_store_exec(s,
                             "CREATE TEMP TABLE mcpp_lane_columns(id TEXT PRIMARY KEY NOT NULL, lane_key TEXT NOT NULL,"
                             " lane_short TEXT NOT NULL, lane_label TEXT)",
                             "deriving the lane keys");
    if (!rc)
        rc = derive_all(&changed, s, "INSERT INTO temp.mcpp_lane_columns VALUES (?1, ?2, ?3, ?4)");
    char view[512];
    snprintf(view, sizeof view,
             "CREATE TEMP VIEW receipts AS SELECT r.rowid AS rowid, r.id AS id, r.created_at AS created_at,"
             " r.git_commit AS git_commit, r.tool AS tool, r.name AS name,"
             " coalesce(l.lane_key, r.lane_key) AS lane_key, coalesce(l.lane_short, r.lane_short) AS lane_short,"
             " CASE WHEN l.id IS NULL THEN r.lane_label ELSE l.lane_label END AS lane_label, r.metric AS metric,"
             " r.metric_value AS metric_value, r.body AS body, %s AS image, r.added_at AS added_at"
             " FROM main.receipts r LEFT JOIN temp.mcpp_lane_columns l ON l.id = r.id",
             s->version >= 4 ? "r.image" : "NULL");
    if (!rc)
        rc = mcpp_store_exec(s, view, "deriving the lane keys");
    if (rc) /* readers see the file's own columns, as before */
        mcpp_store_exec(s, "DROP VIEW IF EXISTS temp.receipts; DROP TABLE IF EXISTS temp.mcpp_lane_columns", "");
    return rc;
}

int mcpp_store_lane_keys_refresh(mcpp_store *s)
{
    int same = 0, any = 0;
    int rc = recorded_format(&same, s);
    if (rc || same)
        return rc;
    sqlite3_stmt *st = NULL;
    if ((rc = mcpp_store_prepare(&st, s, "SELECT EXISTS (SELECT 1 FROM main.receipts)", "counting receipts")))
        return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        any = sqlite3_column_int(st, 0);
    else
        rc = mcpp_store_sqlite_error(s, step, "counting receipts");
    sqlite3_finalize(st);
    if (rc)
        return rc;
    if (!any && s->read_only)
        return MCPP_OK;
    if (!any)
        return record_format(s);                      /* a new store: its rows will be this build's */
    size_t refused = atomic_load(&s->images_refused); /* a query counts them, not this */
    rc = s->read_only ? derive_into_temp(s) : rewrite_in_place(s);
    atomic_store(&s->images_refused, refused);
    if (rc == MCPP_EINVALID) { /* a receipt that does not load: store check names it */
        mcpp_error_clear();
        rc = MCPP_OK;
    }
    return rc;
}
