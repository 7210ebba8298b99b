/*
 * store_add.c — adding receipts: the stored columns of a receipt (all read
 * through the public API, so they follow the schema), identity by id, and
 * one transaction per call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/frontier.h"
#include "mcpp_receipts/policy.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "policy/policy_internal.h"
#include "receipt/canonical_json.h"
#include "receipt/image.h"
#include "analysis/compare_internal.h"
#include "analysis/lane_internal.h"
#include "store/store_internal.h"
#include "store/store_pg.h"

/* A string field, or NULL when absent or not a string. */
const char *mcpp_store_string_field(const mcpp_receipt *r, const char *path)
{
    mcpp_value v;
    if (mcpp_value_at_path(r, path, &v) != MCPP_OK) return NULL;
    return v.type == MCPP_TYPE_STRING || v.type == MCPP_TYPE_ENUM ? v.string : NULL;
}

/* The frontier's label: lane.name, else family/pattern. */
char *mcpp_store_lane_label(const mcpp_receipt *r)
{
    const char *name = mcpp_store_string_field(r, "lane.name");
    if (name)
        return mcpp_strdup(name, NULL);
    const char *family = mcpp_store_string_field(r, "lane.family"),
               *pattern = mcpp_store_string_field(r, "lane.pattern");
    size_t n = (family ? strlen(family) : 1) + (pattern ? strlen(pattern) : 1) + 2;
    char *label = malloc(n);
    if (label) {
        strcpy(label, family ? family : "-");
        strcat(label, "/");
        strcat(label, pattern ? pattern : "-");
    }
    return label;
}

/* The image packed (store_codec.c); the plain image is dropped. */
static int pack_image(mcpp_store_row *row, const mcpp_store_codec *codec, mcpp_store_zctx *z)
{
    if (!row->image)
        return MCPP_OK;
    unsigned char *packed = NULL;
    size_t len = 0;
    int rc = mcpp_store_pack_image(codec, z, row->image, row->image_len, &packed, &len);
    if (rc)
        return rc;
    free(row->image);
    row->image = packed;
    row->image_len = len;
    return MCPP_OK;
}

/* The one-line canonical JSON, written as such (writing the indented text
 * and folding it cost a quarter of the add's CPU). */
static int write_body(mcpp_strbuf *sb, const mcpp_receipt *r)
{
    if (mcpp_write_json_compact(sb, r) || sb->failed)
        return mcpp_error_nomem();
    return MCPP_OK;
}

/* The body as a text of its own (mcpp_free); a receipt's body is ~2.5 KB,
 * so the buffer starts big enough for one. */
static int body_text(char **out, size_t *len, const mcpp_receipt *r)
{
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, 4096);
    int rc = write_body(&sb, r);
    if (rc) {
        mcpp_sb_free(&sb);
        return rc;
    }
    if (len)
        *len = sb.len;
    return mcpp_sb_finish(&sb, out);
}

/* The body: packed from the zctx's buffer when there is a zctx (the text is
 * not kept), else the text itself. */
static int fill_body(mcpp_store_row *row, const mcpp_receipt *r, const mcpp_store_codec *codec, mcpp_store_zctx *z)
{
    if (!z)
        return body_text(&row->body, &row->body_len, r);
    mcpp_strbuf *sb = mcpp_store_zctx_text(z);
    int rc = write_body(sb, r);
    return rc ? rc : mcpp_store_pack_body(codec, z, sb->data, sb->len, &row->packed_body, &row->packed_body_len);
}

/* The row's body as text (*owned: a copy to mcpp_free, NULL when it is
 * row->body): a packed row keeps none, and only a conflict needs it. */
static int row_body(const char **text, char **owned, const mcpp_store_row *row)
{
    *owned = NULL;
    *text = row->body;
    if (row->body)
        return MCPP_OK;
    int rc = body_text(owned, NULL, row->receipt);
    *text = *owned;
    return rc;
}

/* The row's lane key and short key: from the memo when a receipt of the
 * same lane made them, else written and remembered. */
static int lane_keys(mcpp_store_row *row, const mcpp_receipt *r, mcpp_store_lane_memo *memo)
{
    const mcpp_policy *p = memo ? mcpp_policy_or_default(NULL) : NULL;
    uint64_t h = p ? mcpp_lane_key_hash(p, r) : 0;
    mcpp_store_lane_entry *e = p ? &memo->at[h % MCPP_STORE_LANE_MEMO] : NULL;
    if (e && e->exemplar && e->hash == h && mcpp_lane_same(p, e->exemplar, r)) {
        if (!(row->lane_key = malloc(e->key_len + 1))) return mcpp_error_nomem();
        memcpy(row->lane_key, e->key, e->key_len + 1);
        row->lane_key_len = e->key_len;
        memcpy(row->lane_short, e->lane_short, sizeof row->lane_short);
        return MCPP_OK;
    }
    int rc = mcpp_lane_key(&row->lane_key, NULL, r);
    if (!rc) row->lane_key_len = strlen(row->lane_key);
    if (!rc) rc = mcpp_lane_key_short(row->lane_short, sizeof row->lane_short, row->lane_key);
    if (rc || !e) return rc;
    char *copy = malloc(row->lane_key_len + 1);
    if (!copy) return MCPP_OK; /* not remembered: the row is whole */
    memcpy(copy, row->lane_key, row->lane_key_len + 1);
    free(e->key);
    e->exemplar = r;
    e->hash = h;
    e->key = copy;
    e->key_len = row->lane_key_len;
    memcpy(e->lane_short, row->lane_short, sizeof e->lane_short);
    return MCPP_OK;
}

void mcpp_store_lane_memo_clear(mcpp_store_lane_memo *memo)
{
    for (size_t i = 0; i < MCPP_STORE_LANE_MEMO; i++) free(memo->at[i].key);
    memset(memo, 0, sizeof *memo);
}

/* The row's text columns copied next to each other on the filling thread,
 * with their lengths: the caller's thread, which inserts, read each from its
 * receipt's memory (a cache miss a column, SQLite's strlen of the bound
 * texts: 3% of an add's CPU, on the thread the add waits for). */
enum { T_ID, T_CREATED, T_COMMIT, T_TOOL, T_NAME, T_LABEL, T_METRIC, T_SHORT, N_TEXTS };
static int copy_texts(mcpp_store_row *row)
{
    const char **at[5] = {&row->id, &row->created_at, &row->git_commit, &row->tool, &row->name};
    size_t total = 0;
    for (int i = 0; i < 5; i++) {
        row->text_len[i] = *at[i] ? (int)strlen(*at[i]) : -1;
        total += *at[i] ? (size_t)row->text_len[i] + 1 : 0;
    }
    row->text_len[T_LABEL] = row->lane_label ? (int)strlen(row->lane_label) : -1;
    row->text_len[T_METRIC] = row->metric ? (int)strlen(row->metric) : -1;
    row->text_len[T_SHORT] = (int)strlen(row->lane_short);
    if (!(row->texts = malloc(total ? total : 1)))
        return mcpp_error_nomem();
    char *p = row->texts;
    for (int i = 0; i < 5; i++) {
        if (!*at[i])
            continue;
        memcpy(p, *at[i], (size_t)row->text_len[i] + 1);
        *at[i] = p;
        p += row->text_len[i] + 1;
    }
    return MCPP_OK;
}

int mcpp_store_row_fill(mcpp_store_row *row, const mcpp_receipt *r, const char *metric, const mcpp_store_codec *codec,
                        mcpp_store_zctx *z, mcpp_store_lane_memo *memo, int with_image)
{
    memset(row, 0, sizeof *row);
    row->receipt = r;
    row->id = mcpp_receipt_id(r);
    row->created_at = mcpp_store_string_field(r, "created_at");
    row->git_commit = mcpp_store_string_field(r, "source.git_commit");
    row->tool = mcpp_store_string_field(r, "source.tool");
    row->name = mcpp_store_string_field(r, "lane.name");
    row->metric = metric;
    int rc = fill_body(row, r, codec, z);
    if (!rc) rc = lane_keys(row, r, memo);
    if (!rc && !(row->lane_label = mcpp_store_lane_label(r)))
        rc = mcpp_error_nomem();
    /* no image (a pointer outside the arena): the row loads from its body */
    if (!rc && with_image && mcpp_receipt_image_write(&row->image, &row->image_len, r) == MCPP_ENOMEM)
        rc = mcpp_error_nomem();
    if (!rc && metric) row->has_value = mcpp_metric_value(&row->value, metric, r) == 1;
    if (!rc && z)
        rc = pack_image(row, codec, z);
    if (!rc)
        rc = copy_texts(row);
    if (rc) mcpp_store_row_clear(row);
    return rc;
}

void mcpp_store_row_clear(mcpp_store_row *row)
{
    mcpp_free(row->body);
    mcpp_free(row->lane_key);
    free(row->lane_label);
    free(row->image);
    free(row->packed_body);
    free(row->texts);
    memset(row, 0, sizeof *row);
}

typedef struct add_statements {
    sqlite3_stmt *insert, *existing, *tombstone;
    int any_tombstones; /* read once per add, inside its transaction */
    char added_at[32];  /* the add's time, every row's added_at */
    sqlite3_int64 first_rowid; /* rows from this one on were inserted by this add */
} add_statements;

static void bind_text_or_null(sqlite3_stmt *st, int index, const char *text, int len)
{
    if (text)
        sqlite3_bind_text(st, index, text, len, SQLITE_STATIC);
    else sqlite3_bind_null(st, index);
}

/* Whether a statement keyed by ?1 = id yields a row; *body (malloc'ed text)
 * gets column 0 and *rowid column 1. */
static int lookup(int *found, char **body, sqlite3_int64 *rowid, mcpp_store *s, sqlite3_stmt *st, const char *id)
{
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE) return mcpp_store_sqlite_error(s, step, "adding");
    *found = step == SQLITE_ROW;
    size_t len = 0;
    if (rowid && *found)
        *rowid = sqlite3_column_int64(st, 1);
    if (body && *found) return mcpp_store_column_body(s, st, 0, body, &len);
    return MCPP_OK;
}

static int insert_row(mcpp_store *s, add_statements *a, const mcpp_store_row *row, mcpp_store_add_result *res)
{
    int found = 0, rc;
    if (a->any_tombstones) { /* a removed id is not added again */
        if ((rc = lookup(&found, NULL, NULL, s, a->tombstone, row->id)))
            return rc;
        if (found) {
            res->skipped_removed++;
            return MCPP_OK;
        }
    }
    sqlite3_stmt *st = a->insert;
    sqlite3_reset(st);
    const int *len = row->text_len;
    sqlite3_bind_text(st, 1, row->id, len[T_ID], SQLITE_STATIC);
    bind_text_or_null(st, 2, row->created_at, len[T_CREATED]);
    bind_text_or_null(st, 3, row->git_commit, len[T_COMMIT]);
    bind_text_or_null(st, 4, row->tool, len[T_TOOL]);
    bind_text_or_null(st, 5, row->name, len[T_NAME]);
    sqlite3_bind_text(st, 6, row->lane_key, (int)row->lane_key_len, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, row->lane_short, len[T_SHORT], SQLITE_STATIC);
    bind_text_or_null(st, 8, row->lane_label, len[T_LABEL]);
    bind_text_or_null(st, 9, row->metric, len[T_METRIC]);
    if (row->has_value) sqlite3_bind_double(st, 10, row->value);
    else sqlite3_bind_null(st, 10);
    if (row->packed_body) sqlite3_bind_blob(st, 11, row->packed_body, (int)row->packed_body_len, SQLITE_STATIC);
    else sqlite3_bind_text(st, 11, row->body, (int)row->body_len, SQLITE_STATIC);
    sqlite3_bind_text(st, 13, a->added_at, -1, SQLITE_STATIC);
    if (row->image) sqlite3_bind_blob(st, 12, row->image, (int)row->image_len, SQLITE_STATIC);
    else sqlite3_bind_null(st, 12);
    int step = sqlite3_step(st);
    if (step != SQLITE_DONE) return mcpp_store_sqlite_error(s, step, "adding");
    if (sqlite3_changes(s->db) == 1) {
        res->added++;
        return MCPP_OK;
    }
    /* Nothing inserted: the id is taken. */
    char *stored = NULL, *owned = NULL;
    const char *body = NULL;
    sqlite3_int64 rowid = 0;
    if ((rc = lookup(&found, &stored, &rowid, s, a->existing, row->id)))
        return rc;
    if (found) {
        rc = row_body(&body, &owned, row);
        int same = !rc && strcmp(stored, body) == 0;
        free(stored);
        mcpp_free(owned);
        if (rc)
            return rc;
        if (same) {
            res->unchanged++;
            return MCPP_OK;
        }
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, s->path, "id", 0, 0,
                             "conflict: receipt '%s' %s with different content "
                             "(a receipt's id is its identity; give the new run its own id)",
                             row->id, rowid >= a->first_rowid ? "is given twice in this add" : "is already stored");
    }
    return mcpp_error_at(MCPP_EINTERNAL, MCPP_ERROR_KIND_INTERNAL, s->path, NULL, 0, 0, "insert of '%s' did nothing", row->id);
}

static int prepare_all(add_statements *a, mcpp_store *s)
{
    /* One row of VALUES, not INSERT ... SELECT: SQLite gives a statement
     * that may write several rows a statement journal, and wrote the
     * original of every page the insert touched to a temporary file (~170 KB
     * per receipt: 0.87 GB for 5,000). The tombstone test is its own
     * lookup, made only when the store has tombstones. */
    int rc = mcpp_store_prepare(
        &a->insert, s,
        "INSERT INTO receipts(id, created_at, git_commit, tool, name, lane_key, lane_short, lane_label,"
        " metric, metric_value, body, image, added_at)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
        " ON CONFLICT(id) DO NOTHING",
        "adding");
    if (!rc)
        rc = mcpp_store_prepare(&a->existing, s, "SELECT body, rowid FROM receipts WHERE id = ?1", "adding");
    if (!rc) rc = mcpp_store_prepare(&a->tombstone, s, "SELECT 1 FROM tombstones WHERE id = ?1", "adding");
    if (!rc) {
        /* one time for the whole add (its transaction), not one per row:
         * SQLite formatted 'now' on every insert */
        sqlite3_stmt *any = NULL;
        if (!(rc = mcpp_store_prepare(&any, s,
                                      "SELECT EXISTS (SELECT 1 FROM tombstones), strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
                                      "adding"))) {
            int step = sqlite3_step(any);
            if (step == SQLITE_ROW) {
                a->any_tombstones = sqlite3_column_int(any, 0);
                snprintf(a->added_at, sizeof a->added_at, "%s", (const char *)sqlite3_column_text(any, 1));
            } else {
                rc = mcpp_store_sqlite_error(s, step, "adding");
            }
        }
        sqlite3_finalize(any);
    }
    return rc;
}

typedef struct add_state {
    mcpp_store *s;
    add_statements statements;
    mcpp_store_add_result *res;
} add_state;

static int insert_each(void *ctx, const mcpp_store_row *row, size_t index)
{
    (void)index;
    add_state *a = ctx;
    return insert_row(a->s, &a->statements, row, a->res);
}

/* The rows are filled ahead on worker threads while this thread inserts
 * (store_add_rows.c); their lane summaries are left to the first reader
 * that needs them (store_summaries.c). */
static int add_all(mcpp_store *s, const mcpp_receipt *const *receipts, size_t n, mcpp_store_add_result *res)
{
    for (size_t i = 0; i < n; i++)
        if (!receipts[i])
            return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_add: receipt %zu is NULL", i);
    mcpp_policy *policy = NULL;
    add_state a = {s, {NULL, NULL, NULL, 0, "", 0}, res};
    int rc = mcpp_policy_default(&policy);
    if (!rc) rc = mcpp_store_codec_prepare_add(s, receipts, n);
    if (!rc) rc = prepare_all(&a.statements, s);
    if (!rc)
        rc = mcpp_store_summaries_next_rowid(&a.statements.first_rowid, s);
    if (!rc) rc = mcpp_store_rows_each(receipts, n, mcpp_policy_gate(policy)->metric, s->codec, insert_each, &a);
    sqlite3_finalize(a.statements.insert);
    sqlite3_finalize(a.statements.existing);
    sqlite3_finalize(a.statements.tombstone);
    if (!rc && res->added)
        rc = mcpp_store_summaries_defer(s, a.statements.first_rowid);
    mcpp_policy_free(policy);
    return rc;
}

int mcpp_store_add(mcpp_store_add_result *out, mcpp_store *store, const mcpp_receipt *const *receipts, size_t n)
{
    mcpp_store_add_result res = {0, 0, 0};
    if (out) *out = res;
    if (!store || (n && !receipts))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_add: NULL store or receipts");
    if (store->pg) {
        int rc = mcpp_store_pg_add(&res, store, receipts, n);
        if (!rc && out)
            *out = res;
        return rc;
    }
    int rc = mcpp_store_begin_write(store);
    if (rc) return rc;
    if ((rc = add_all(store, receipts, n, &res))) {
        mcpp_store_rollback(store);
        mcpp_store_codec_forget(store); /* a dictionary this add made is gone */
        return rc;
    }
    if ((rc = mcpp_store_commit(store))) {
        mcpp_store_codec_forget(store);
        return rc;
    }
    if (out) *out = res;
    return MCPP_OK;
}
