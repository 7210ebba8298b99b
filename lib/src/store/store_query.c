/*
 * store_query.c — selecting stored receipts: lane selectors (through the
 * public claim API, so they mean exactly what they mean for `claim`), column
 * filters, time ranges and limits, turned into one SQL statement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/frontier.h"
#include "util/alloc.h"
#include "util/edit_distance.h"
#include "util/error_internal.h"
#include "util/rfc3339.h"
#include "util/strbuf.h"
#include "store/store_internal.h"
#include "store/store_pg.h"

#define MAX_BINDS 1024

void mcpp_store_keys_free(char **keys)
{
    for (size_t i = 0; keys && keys[i]; i++) free(keys[i]);
    free(keys);
}

/* Loads the receipts `sql` (binding ?1 = arg when given) selects. */
static int add_to_set(void *set, mcpp_receipt *receipt);

static int load_sql(mcpp_receipt_set **out, mcpp_store *s, const char *sql, const char *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = mcpp_receipt_set_new(out);
    if (s->pg) /* one receipt per lane: any receipt of the lane does, as in SQLite's min(rowid) */
        return rc ? rc
                  : mcpp_store_pg_load(s, "SELECT DISTINCT ON (lane_key) id, body FROM receipts ORDER BY lane_key, id",
                                       0, NULL, add_to_set, *out);
    if (!rc) rc = mcpp_store_prepare(&st, s, sql, "selecting lanes");
    if (!rc && arg) sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
    if (!rc) rc = mcpp_store_load_rows(*out, s, st);
    sqlite3_finalize(st);
    return rc;
}

/* Keys of the lanes among `set` that `selector` matches (claim.h semantics). */
static int matched_keys(char ***out, const mcpp_receipt_set *set, const char *selector)
{
    mcpp_claim_result *claim = NULL;
    int rc = mcpp_claim_check(&claim, NULL, mcpp_receipt_set_items(set), mcpp_receipt_set_count(set), selector,
                              NULL, 1.0);
    if (rc) return rc;
    size_t n = mcpp_claim_result_matched_count(claim);
    char **keys = calloc(n + 1, sizeof *keys);
    for (size_t i = 0; keys && i < n; i++)
        if (!(keys[i] = mcpp_strdup(mcpp_claim_result_matched_key(claim, i), NULL))) {
            mcpp_store_keys_free(keys);
            keys = NULL;
        }
    mcpp_claim_result_free(claim);
    *out = keys;
    return keys ? MCPP_OK : mcpp_error_nomem();
}

/*
 * Terms are checked first on one receipt per lane (a lane whose receipt fails
 * a term is out, since terms must hold for every receipt), then on all the
 * receipts of the lanes left, which settles terms on fields outside the key.
 */
int mcpp_store_select_lanes(char ***out, mcpp_store *s, const char *selector)
{
    return mcpp_store_select_lanes_from(out, s, selector, 0);
}

/* 1 when `selector` is a short key ("lane-" and 12 lowercase hex digits). */
static int is_short_key(const char *selector)
{
    if (strncmp(selector, "lane-", 5) != 0 || strlen(selector) != 17)
        return 0;
    for (const char *p = selector + 5; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

/* Appends a copy of `text` to the NULL-terminated *texts, keeping it terminated. */
static int push_text(char ***texts, size_t *n, size_t *cap, const char *text)
{
    int rc = MCPP_ARRAY_RESERVE(*texts, *cap, *n + 2, MCPP_ARRAY_MAX_ITEMS); /* + the NULL */
    if (rc)
        return rc;
    if (!((*texts)[*n] = mcpp_strdup(text, NULL)))
        return mcpp_error_nomem();
    (*texts)[++*n] = NULL;
    return MCPP_OK;
}

int mcpp_store_texts(char ***out, mcpp_store *s, const char *sql, const char *arg, size_t max, const char *what)
{
    *out = NULL;
    size_t n = 0, cap = 1;
    char **texts = calloc(cap, sizeof *texts);
    if (!texts)
        return mcpp_error_nomem();
    int rc = MCPP_OK;
    if (s->pg) {
        char pg_sql[256]; /* its one parameter written $1 */
        if (snprintf(pg_sql, sizeof pg_sql, "%s", sql) >= (int)sizeof pg_sql)
            rc = mcpp_error_at(MCPP_EINTERNAL, MCPP_ERROR_KIND_INTERNAL, NULL, NULL, 0, 0, "%s: SQL too long", what);
        for (char *p = pg_sql; !rc && (p = strchr(p, '?')) != NULL; p++)
            *p = '$';
        mcpp_pg_rows *rows = NULL;
        if (!rc)
            rc = mcpp_pg_run(&rows, s->pg, pg_sql, arg ? 1 : 0, &arg, what);
        size_t count = rc ? 0 : mcpp_pg_rows_count(rows);
        for (size_t i = 0; !rc && i < count; i++)
            rc = push_text(&texts, &n, &cap, mcpp_pg_value(rows, i, 0));
        mcpp_pg_rows_free(rows);
    } else {
        sqlite3_stmt *st = NULL;
        int step = SQLITE_DONE;
        rc = mcpp_store_prepare(&st, s, sql, what);
        if (!rc && arg)
            sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
        while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
            rc = push_text(&texts, &n, &cap, (const char *)sqlite3_column_text(st, 0));
        if (!rc && step != SQLITE_DONE)
            rc = mcpp_store_sqlite_error(s, step, what);
        sqlite3_finalize(st);
    }
    if (rc || (max && n > max)) {
        mcpp_store_keys_free(texts);
        return rc;
    }
    *out = texts;
    return MCPP_OK;
}

/* One receipt of each lane, its images read unless `bodies_only`. */
static int exemplars(mcpp_receipt_set **out, mcpp_store *s, int bodies_only)
{
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT id, body, %s FROM receipts WHERE rowid IN (SELECT min(rowid) FROM receipts GROUP BY lane_key)",
             bodies_only ? "NULL" : mcpp_store_image_column(s));
    return load_sql(out, s, sql, NULL);
}

int mcpp_store_lane_exemplars(mcpp_receipt_set **out, mcpp_store *s) { return exemplars(out, s, 0); }

int mcpp_store_select_lanes_from(char ***out, mcpp_store *s, const char *selector, int bodies_only)
{
    const char *image = bodies_only ? "NULL" : mcpp_store_image_column(s);
    *out = NULL;
    /* the lanes whose stored short key it is: the column is the default
     * policy's short key, which is what the claim selector compares, so this
     * is its answer without loading a receipt (the history site asks once
     * per lane) */
    if (!bodies_only && is_short_key(selector))
        return mcpp_store_texts(out, s,
                                "SELECT DISTINCT lane_key FROM receipts WHERE lane_short = ?1 ORDER BY lane_key",
                                selector, 0, "selecting lanes");
    mcpp_receipt_set *set = NULL;
    char **candidates = NULL;
    char sql[200];
    int rc = exemplars(&set, s, bodies_only);
    if (!rc) rc = matched_keys(&candidates, set, selector);
    mcpp_receipt_set_free(set);
    set = NULL;
    if (rc || !candidates[0]) {
        *out = candidates;
        return rc;
    }
    if ((rc = mcpp_receipt_set_new(&set))) goto done;
    for (size_t i = 0; s->pg && !rc && candidates[i]; i++) {
        char short_key[24];
        mcpp_lane_key_short(short_key, sizeof short_key, candidates[i]);
        const char *params[2] = {candidates[i], short_key};
        rc = mcpp_store_pg_load(s, "SELECT id, body FROM receipts WHERE lane_short = $2 AND lane_key = $1", 2, params,
                                add_to_set, set);
    }
    if (s->pg) {
        if (!rc)
            rc = matched_keys(out, set, selector);
        goto done;
    }
    sqlite3_stmt *st = NULL;
    snprintf(sql, sizeof sql, "SELECT id, body, %s FROM receipts WHERE lane_short = ?2 AND lane_key = ?1", image);
    if ((rc = mcpp_store_prepare(&st, s, sql, "selecting lanes")))
        goto done;
    for (size_t i = 0; !rc && candidates[i]; i++) {
        sqlite3_reset(st);
        char short_key[24];
        mcpp_lane_key_short(short_key, sizeof short_key, candidates[i]);
        sqlite3_bind_text(st, 1, candidates[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, short_key, -1, SQLITE_TRANSIENT);
        rc = mcpp_store_load_rows(set, s, st);
    }
    sqlite3_finalize(st);
    if (!rc) rc = matched_keys(out, set, selector);
done:
    mcpp_store_keys_free(candidates);
    mcpp_receipt_set_free(set);
    return rc;
}

typedef struct sql_builder {
    const mcpp_store *store;
    int bodies_only;
    mcpp_strbuf sql;
    const char *binds[MAX_BINDS];
    size_t n_binds;
    char shorts[MAX_BINDS][24]; /* short keys of the selected lanes */
    char commit_ends[4][72];    /* the ends of git_commit prefix ranges (add_commit_range) */
    char until_end[72];         /* the end of an until bound's range (add_until) */
    size_t n_commit_ends;
} sql_builder;

static int bind_value(sql_builder *q, const char *value)
{
    if (q->n_binds == MAX_BINDS)
        return mcpp_error_at(MCPP_ELIMIT, MCPP_ERROR_KIND_LIMIT, NULL, NULL, 0, 0, "a store query may hold at most %d values", MAX_BINDS);
    q->binds[q->n_binds++] = value;
    mcpp_sb_printf(&q->sql, "?%zu", q->n_binds);
    return MCPP_OK;
}

static const char *const WHERE_COLUMNS[] = {"id", "tool", "git_commit", "name", "lane_label", "metric", NULL};

/* The end of the range of every text that starts with `prefix`, in SQLite's
 * byte order: the prefix with its last byte one higher, into end (cap
 * bytes). 0 when it does not fit or that byte is past '}'. */
static int prefix_end(char *end, size_t cap, const char *prefix)
{
    size_t n = strlen(prefix);
    if (!n || n >= cap || (unsigned char)prefix[n - 1] >= 0x7e)
        return 0;
    memcpy(end, prefix, n + 1);
    end[n - 1]++;
    return 1;
}

/* A git_commit prefix as a range the commit index reads (SQLite compares
 * text byte by byte): git_commit >= prefix AND git_commit < prefix_end.
 * substr() alone read every row (10^5 rows: 0.10 s for one receipt). Not
 * for PostgreSQL, whose collation may order otherwise, nor for a prefix
 * prefix_end cannot end or longer than a SHA-256. */
static int add_commit_range(sql_builder *q, const char *prefix)
{
    char *end = q->commit_ends[q->n_commit_ends];
    if (q->store->pg || q->n_commit_ends == 4 || !prefix_end(end, sizeof q->commit_ends[0], prefix))
        return MCPP_OK;
    q->n_commit_ends++;
    int rc;
    mcpp_sb_puts(&q->sql, " AND git_commit >= ");
    if ((rc = bind_value(q, prefix)))
        return rc;
    mcpp_sb_puts(&q->sql, " AND git_commit < ");
    return bind_value(q, end);
}

/* COLUMN=VALUE terms; values point into `copy` (a writable copy of where). */
static int add_where_terms(sql_builder *q, char *copy)
{
    char *save = NULL;
    for (char *term = strtok_r(copy, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(term, '=');
        if (!eq)
            return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, "where", 0, 0, "'%s' is not COLUMN=VALUE", term);
        *eq = '\0';
        size_t k = 0;
        while (WHERE_COLUMNS[k] && strcmp(WHERE_COLUMNS[k], term) != 0) k++;
        if (!WHERE_COLUMNS[k])
            return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, "where", 0, 0,
                                  "unknown column '%s' (use id, tool, git_commit, name, lane_label, metric)", term);
        int rc;
        if (strcmp(term, "git_commit") == 0 && strlen(eq + 1) >= 4) {
            if ((rc = add_commit_range(q, eq + 1)))
                return rc;
            mcpp_sb_puts(&q->sql, " AND substr(git_commit, 1, length(");
            if ((rc = bind_value(q, eq + 1))) return rc;
            mcpp_sb_puts(&q->sql, ")) = ");
        } else {
            mcpp_sb_printf(&q->sql, " AND %s = ", WHERE_COLUMNS[k]);
        }
        if ((rc = bind_value(q, eq + 1))) return rc;
    }
    return MCPP_OK;
}

/* A since/until bound: an RFC 3339 time as created_at holds it, or a date
 * (2026-11-30), a month (2026-11) or a year, each standing for all of itself.
 * Anything else ("yesterday", "2026/11/30") was compared as text and selected
 * nothing, or the wrong receipts, without a word. */
static int check_time_bound(const char *name, const char *t)
{
    if (mcpp_is_rfc3339(t) || mcpp_is_rfc3339_date_prefix(t))
        return MCPP_OK;
    return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, name, 0, 0,
                         "'%s' is not a time: expected RFC 3339 text as created_at holds it "
                         "(2026-11-30T12:00:00Z), or a date (2026-11-30), a month (2026-11) or a year (2026)",
                         t);
}

/* created_at up to `until` and every time it is the start of (until
 * 2026-11-30 keeps that day). In SQLite that is created_at < prefix_end, a
 * range the time index reads (a checked bound ends in a digit or a zone
 * letter); an OR with substr() read the index from the lower bound to its
 * end. PostgreSQL's collation may order otherwise: there the words as they
 * are. */
static int add_until(sql_builder *q, const char *until)
{
    if (!q->store->pg && prefix_end(q->until_end, sizeof q->until_end, until)) {
        mcpp_sb_puts(&q->sql, " AND created_at < ");
        return bind_value(q, q->until_end);
    }
    mcpp_sb_puts(&q->sql, " AND (created_at <= ");
    int rc = bind_value(q, until);
    mcpp_sb_puts(&q->sql, " OR substr(created_at, 1, length(");
    if (!rc)
        rc = bind_value(q, until);
    mcpp_sb_puts(&q->sql, ")) = ");
    if (!rc)
        rc = bind_value(q, until);
    mcpp_sb_puts(&q->sql, ")");
    return rc;
}

static int build_sql(sql_builder *q, char *where_copy, char **lanes, const mcpp_store_query *query)
{
    /* SQL both backends read: boolean terms (1 = 1, 1 = 0), the subquery named,
     * ?N turned into $N for PostgreSQL by the caller */
    mcpp_sb_printf(&q->sql,
                   "SELECT id, body, image FROM (SELECT id, body, %s AS image, created_at FROM receipts WHERE 1 = 1",
                   q->bodies_only || q->store->pg ? "NULL" : mcpp_store_image_column(q->store));
    int rc = MCPP_OK;
    if (lanes) {
        /* the short key finds the rows through the index, the key confirms them */
        mcpp_sb_puts(&q->sql, " AND (1 = 0");
        for (size_t i = 0; !rc && lanes[i]; i++) {
            if (i >= MAX_BINDS / 2 - 4) {
                rc = mcpp_error_at(MCPP_ELIMIT, MCPP_ERROR_KIND_LIMIT, NULL, "lane", 0, 0,
                                    "the lane selector matches more than %d lanes; narrow it", MAX_BINDS / 2 - 4);
                break;
            }
            mcpp_lane_key_short(q->shorts[i], sizeof q->shorts[i], lanes[i]);
            mcpp_sb_puts(&q->sql, " OR (lane_short = ");
            if (!(rc = bind_value(q, q->shorts[i]))) {
                mcpp_sb_puts(&q->sql, " AND lane_key = ");
                rc = bind_value(q, lanes[i]);
            }
            mcpp_sb_puts(&q->sql, ")");
        }
        mcpp_sb_puts(&q->sql, ")");
    }
    if (!rc && where_copy) rc = add_where_terms(q, where_copy);
    if (!rc && query->since) {
        mcpp_sb_puts(&q->sql, " AND created_at >= ");
        rc = bind_value(q, query->since);
    }
    if (!rc && query->until)
        rc = add_until(q, query->until);
    const char *order = query->newest ? "DESC" : "ASC";
    mcpp_sb_printf(&q->sql, " ORDER BY created_at %s, id %s", order, order);
    if (query->limit) mcpp_sb_printf(&q->sql, " LIMIT %zu", query->limit);
    mcpp_sb_puts(&q->sql, ") AS selected ORDER BY created_at, id");
    if (!rc && q->sql.failed) rc = mcpp_error_nomem();
    return rc;
}

/* The distinct values of a where column, in byte order (PostgreSQL's
 * columns are COLLATE "C"); at most 256: NULL *out past that. */
static int column_values(char ***out, mcpp_store *s, const char *column)
{
    enum { MAX_VALUES = 256 };
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT DISTINCT %s FROM receipts WHERE %s IS NOT NULL ORDER BY 1 LIMIT %d", column,
             column, MAX_VALUES + 1);
    return mcpp_store_texts(out, s, sql, NULL, MAX_VALUES, "querying");
}

/* After a query that selected nothing: a where term whose value no row has,
 * when a stored value is surely what it meant (its case, its first words:
 * "name=nam56r" for "NAM56R hybrid MoE lane", mcpp_meant_value), is refused
 * naming it, as a lane selector's term is (claim.c); the empty answer said
 * nothing. A spelling away is not enough here: "NAM56R MoE s2048 top1" is
 * another lane's name than "... top2", looked for before it has runs. Ids
 * and commits, one a receipt or a run, are not searched. */
static int check_where_values(mcpp_store *s, char *copy)
{
    static const char *const SEARCHED[] = {"tool", "name", "lane_label", "metric"};
    char *save = NULL;
    int rc = MCPP_OK;
    for (char *term = strtok_r(copy, ",", &save); term && !rc; term = strtok_r(NULL, ",", &save)) {
        char *value = strchr(term, '=');
        if (!value)
            continue;
        *value++ = '\0';
        size_t k = 0; /* only these go into the SQL below as a column name */
        while (k < sizeof SEARCHED / sizeof *SEARCHED && strcmp(SEARCHED[k], term) != 0)
            k++;
        if (k == sizeof SEARCHED / sizeof *SEARCHED)
            continue;
        char **values = NULL;
        if ((rc = column_values(&values, s, term)) || !values)
            continue;
        size_t n = 0, held = 0, others = 0;
        for (; values[n]; n++)
            held |= strcmp(values[n], value) == 0;
        const char *near = held ? NULL : mcpp_meant_value(value, (const char *const *)values, n, &others);
        if (near && others)
            rc = mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, "where", 0, 0,
                               "no stored receipt has %s = '%s'; did you mean '%s' (or one of %zu more %ss that "
                               "begin with it)?",
                               term, value, near, others, term);
        else if (near)
            rc = mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, "where", 0, 0,
                               "no stored receipt has %s = '%s'; did you mean '%s'?", term, value, near);
        mcpp_store_keys_free(values);
    }
    return rc;
}

typedef struct counted {
    mcpp_store_receipt_fn fn;
    void *ctx;
    size_t n;
} counted;

static int count_each(void *ctx, mcpp_receipt *receipt)
{
    counted *c = ctx;
    c->n++;
    return c->fn(c->ctx, receipt);
}

int mcpp_store_query_each(mcpp_store *store, const mcpp_store_query *query, mcpp_store_receipt_fn fn, void *ctx)
{
    if (!store || !fn) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_query_each: NULL argument");
    return mcpp_store_query_from(store, query, 0, fn, ctx);
}

int mcpp_store_query_from(mcpp_store *store, const mcpp_store_query *query, int bodies_only, mcpp_store_receipt_fn fn,
                          void *ctx)
{
    static const mcpp_store_query all = {NULL, NULL, NULL, NULL, 0, 0};
    if (!query) query = &all;
    sql_builder q;
    memset(&q, 0, sizeof q);
    q.store = store;
    q.bodies_only = bodies_only;
    mcpp_sb_init(&q.sql, NULL, 0);
    char **lanes = NULL, *where_copy = NULL;
    sqlite3_stmt *st = NULL;
    int rc = MCPP_OK;
    if ((query->since && (rc = check_time_bound("since", query->since))) ||
        (query->until && (rc = check_time_bound("until", query->until))))
        goto done;
    if (query->lane && (rc = mcpp_store_select_lanes_from(&lanes, store, query->lane, bodies_only))) goto done;
    if (query->where && !(where_copy = mcpp_strdup(query->where, NULL)))
        rc = mcpp_error_nomem();
    if (!rc) rc = build_sql(&q, where_copy, lanes, query);
    counted c = {fn, ctx, 0};
    if (!rc && store->pg) {
        for (char *p = q.sql.data; (p = strchr(p, '?')) != NULL; p++)
            *p = '$'; /* the query's only '?' are parameters */
        rc = mcpp_store_pg_load(store, q.sql.data, (int)q.n_binds, q.binds, count_each, &c);
    } else {
        if (!rc)
            rc = mcpp_store_prepare(&st, store, q.sql.data, "querying");
        for (size_t i = 0; !rc && i < q.n_binds; i++)
            sqlite3_bind_text(st, (int)i + 1, q.binds[i], -1, SQLITE_STATIC);
        if (!rc)
            rc = mcpp_store_load_rows_each(store, st, count_each, &c);
    }
    if (!rc && c.n == 0 && query->where) {
        free(where_copy); /* add_where_terms cut it up */
        rc =
            (where_copy = mcpp_strdup(query->where, NULL)) ? check_where_values(store, where_copy) : mcpp_error_nomem();
    }
done:
    sqlite3_finalize(st);
    mcpp_sb_free(&q.sql);
    mcpp_store_keys_free(lanes);
    free(where_copy);
    return rc;
}

static int add_to_set(void *set, mcpp_receipt *receipt)
{
    return mcpp_receipt_set_add(set, receipt);
}

int mcpp_store_query_set(mcpp_receipt_set **out, mcpp_store *store, const mcpp_store_query *query)
{
    if (!out || !store) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_query_set: NULL argument");
    int rc = mcpp_receipt_set_new(out);
    if (!rc) rc = mcpp_store_query_each(store, query, add_to_set, *out);
    if (rc) {
        mcpp_receipt_set_free(*out);
        *out = NULL;
    }
    return rc;
}
