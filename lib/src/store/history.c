/*
 * history.c — the history of a lane: its runs over time (created_at, then
 * id) with the metric's value and git commit, and the change points of that
 * series (changepoint.c). The stored metric column answers the default
 * metric without parsing; another metric is read from each stored receipt.
 */
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/policy.h"
#include "policy/policy_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "analysis/compare_internal.h"
#include "store/store_internal.h"
#include "store/store_pg.h"
#include "store/history_internal.h"

static int push_run(history_lane *lane, const char *id, const unsigned char *created, const unsigned char *commit,
                    double value)
{
    MCPP_CHECK_ARRAY(lane->runs, lane->cap_runs, lane->n_runs + 1, MCPP_ARRAY_MAX_ITEMS);
    if (!id) /* a NULL id: the row was written by hand, not by an add */
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, NULL, "id", 0, 0,
                             "a stored receipt has no id: the store is damaged (run 'mcpp-receipts store check')");
    history_run *r = &lane->runs[lane->n_runs];
    r->id = strdup(id);
    r->created_at = mcpp_strdup((const char *)created, NULL);
    r->git_commit = mcpp_strdup((const char *)commit, NULL);
    r->value = value;
    lane->n_runs++;
    return r->id ? MCPP_OK : mcpp_error_nomem();
}

/* The value of `metric` in a stored body; *has is 0 when the receipt lacks it. */
static int value_from_body(double *out, int *has, const mcpp_store *s, const char *body, size_t len, const char *metric)
{
    mcpp_receipt *r = NULL;
    int rc = mcpp_receipt_load_buffer(&r, NULL, body, len, MCPP_FORMAT_JSON, s->path, NULL);
    if (rc) return rc;
    rc = mcpp_metric_value(out, metric, r);
    *has = rc == 1;
    mcpp_receipt_free(r);
    return rc < 0 ? rc : MCPP_OK;
}

/* lane->metric_name = the primary metric a stored body names (one parse per
 * lane: the runs of a lane state one metric, or the gate says they differ). */
static int name_primary(history_lane *lane, const mcpp_store *s, const char *body, size_t len)
{
    mcpp_receipt *r = NULL;
    int rc = mcpp_receipt_load_buffer(&r, NULL, body, len, MCPP_FORMAT_JSON, s->path, NULL);
    if (rc) return rc;
    const char *name = mcpp_receipt_metric_primary(r);
    if (name && !(lane->metric_name = strdup(name))) rc = mcpp_error_nomem();
    mcpp_receipt_free(r);
    return rc;
}

/* Reads one lane's rows from either backend (store_pg.h's row). */
typedef struct lane_reader {
    history_lane *lane;
    mcpp_store *s;
    const char *metric;
    sqlite3_stmt *st; /* SQLite: the statement the row came from; PostgreSQL: NULL */
} lane_reader;

/* The row's body, read only when the columns do not say what is asked. */
static int row_body(const lane_reader *r, const mcpp_store_history_row *row, char **body, size_t *len)
{
    if (r->st)
        return mcpp_store_column_body(r->s, r->st, 5, body, len);
    if (!row->body)
        return mcpp_store_pg_body(body, len, r->s, row->id);
    if (!(*body = malloc(row->body_len + 1)))
        return mcpp_error_nomem();
    memcpy(*body, row->body, row->body_len + 1);
    *len = row->body_len;
    return MCPP_OK;
}

static int take_row(void *ctx, const mcpp_store_history_row *row)
{
    const lane_reader *r = ctx;
    history_lane *lane = r->lane;
    const char *metric = r->metric;
    int stated = row->metric && strcmp(row->metric, metric) == 0;
    double value = stated ? row->value : 0;
    int has = stated && row->has_value, rc = MCPP_OK;
    char *body = NULL; /* read only when the columns do not say what is asked */
    size_t body_len = 0;
    if (!stated || (!lane->metric_name && strcmp(metric, "primary") == 0))
        rc = row_body(r, row, &body, &body_len);
    if (!rc && !stated)
        rc = value_from_body(&value, &has, r->s, body, body_len, metric);
    if (!rc && has && value > 0) {
        rc = push_run(lane, row->id, (const unsigned char *)row->created_at, (const unsigned char *)row->git_commit,
                      value);
        if (!rc && !lane->metric_name && strcmp(metric, "primary") == 0)
            rc = name_primary(lane, r->s, body, body_len);
    }
    free(body);
    if (!rc && !lane->label)
        lane->label = mcpp_strdup(row->label, NULL);
    return rc;
}

static int load_runs(history_lane *lane, mcpp_store *s, sqlite3_stmt *st, const char *metric)
{
    lane_reader r = {lane, s, metric, s->pg ? NULL : st};
    if (s->pg) { /* every body along when the stored metric column does not answer */
        const char *stored = mcpp_policy_gate(mcpp_policy_or_default(NULL))->metric;
        return mcpp_store_pg_lane_rows(s, lane->key, lane->short_key, strcmp(stored, metric) != 0, take_row, &r);
    }
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, lane->key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, lane->short_key, -1, SQLITE_STATIC);
    int step, rc = MCPP_OK;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        mcpp_store_history_row row = {(const char *)sqlite3_column_text(st, 0),
                                      (const char *)sqlite3_column_text(st, 1),
                                      (const char *)sqlite3_column_text(st, 2),
                                      (const char *)sqlite3_column_text(st, 3),
                                      (const char *)sqlite3_column_text(st, 6),
                                      sqlite3_column_type(st, 4) != SQLITE_NULL,
                                      sqlite3_column_double(st, 4),
                                      NULL,
                                      0};
        rc = take_row(&r, &row);
    }
    if (!rc && step != SQLITE_DONE) rc = mcpp_store_sqlite_error(s, step, "reading the lane's runs");
    return rc;
}

static int find_changes(history_lane *lane, const mcpp_changepoint_settings *settings)
{
    if (!lane->n_runs) return MCPP_OK;
    double *values = malloc(lane->n_runs * sizeof *values);
    lane->changes = malloc(lane->n_runs * sizeof *lane->changes);
    if (!values || !lane->changes) {
        free(values);
        return mcpp_error_nomem();
    }
    for (size_t i = 0; i < lane->n_runs; i++) values[i] = lane->runs[i].value;
    int rc = mcpp_changepoints_find(lane->changes, lane->n_runs, &lane->n_changes, values, lane->n_runs, settings);
    free(values);
    return rc;
}

static int build_lanes(mcpp_history *h, mcpp_store *s, char **keys)
{
    sqlite3_stmt *st = NULL;
    int rc = s->pg
                 ? MCPP_OK
                 : mcpp_store_prepare(&st, s,
                                      "SELECT id, created_at, git_commit, metric, metric_value, body, lane_label"
                                      " FROM receipts WHERE lane_short = ?2 AND lane_key = ?1 ORDER BY created_at, id",
                                      "reading the lane's runs");
    size_t n = 0;
    while (keys[n]) n++;
    if (!rc && n && !(h->lanes = calloc(n, sizeof *h->lanes))) rc = mcpp_error_nomem();
    for (size_t i = 0; !rc && i < n; i++) {
        history_lane *lane = &h->lanes[h->n_lanes++];
        lane->key = keys[i];
        keys[i] = NULL; /* the lane owns it now */
        mcpp_lane_key_short(lane->short_key, sizeof lane->short_key, lane->key);
        rc = load_runs(lane, s, st, h->metric);
        if (!rc) rc = find_changes(lane, &h->settings);
    }
    /* the keys no lane took (a failure part way): keys[0] is NULL by now, so
     * mcpp_store_keys_free would stop before them */
    for (size_t i = h->n_lanes; i < n; i++) {
        free(keys[i]);
        keys[i] = NULL;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Every lane key of the store, as select_lanes returns them. */
static int all_lanes(char ***out, mcpp_store *s)
{
    if (s->pg)
        return mcpp_store_pg_lane_keys(out, s, NULL);
    sqlite3_stmt *st = NULL;
    int rc = mcpp_store_prepare(&st, s, "SELECT DISTINCT lane_key FROM receipts ORDER BY lane_key", "listing lanes");
    size_t n = 0, cap = 16;
    char **keys = rc ? NULL : calloc(cap + 1, sizeof *keys);
    if (!rc && !keys) rc = mcpp_error_nomem();
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if ((rc = MCPP_ARRAY_RESERVE(keys, cap, n + 2, MCPP_ARRAY_MAX_ITEMS)) != MCPP_OK) /* + the NULL */
            break;
        if (!(keys[n++] = mcpp_strdup((const char *)sqlite3_column_text(st, 0), NULL))) rc = mcpp_error_nomem();
        keys[n] = NULL;
    }
    if (!rc && step != SQLITE_DONE) rc = mcpp_store_sqlite_error(s, step, "listing lanes");
    sqlite3_finalize(st);
    if (rc) {
        mcpp_store_keys_free(keys);
        keys = NULL;
    }
    *out = keys;
    return rc;
}

int mcpp_history_build(mcpp_history **out, mcpp_store *store, const char *lane_selector, const char *metric,
                       const mcpp_changepoint_settings *settings)
{
    if (!out || !store) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_history_build: NULL argument");
    *out = NULL;
    mcpp_history *h = calloc(1, sizeof *h);
    mcpp_policy *policy = NULL;
    char **keys = NULL;
    int rc = h ? mcpp_policy_default(&policy) : mcpp_error_nomem();
    if (!rc && !(h->metric = strdup(metric ? metric : mcpp_policy_gate(policy)->metric))) rc = mcpp_error_nomem();
    mcpp_metric_ref ref; /* a malformed name is refused before any lane is read */
    if (!rc) rc = mcpp_metric_ref_init(&ref, h->metric, 1);
    mcpp_changepoint_settings_default(&h->settings);
    if (h && settings) h->settings = *settings;
    if (!rc) rc = lane_selector ? mcpp_store_select_lanes(&keys, store, lane_selector) : all_lanes(&keys, store);
    if (!rc) rc = build_lanes(h, store, keys);
    mcpp_store_keys_free(keys);
    mcpp_policy_free(policy);
    if (rc) {
        mcpp_history_free(h);
        return rc;
    }
    *out = h;
    return MCPP_OK;
}

void mcpp_history_free(mcpp_history *history)
{
    if (!history) return;
    for (size_t i = 0; i < history->n_lanes; i++) {
        history_lane *lane = &history->lanes[i];
        for (size_t k = 0; k < lane->n_runs; k++) {
            free(lane->runs[k].id);
            free(lane->runs[k].created_at);
            free(lane->runs[k].git_commit);
        }
        free(lane->runs);
        free(lane->changes);
        free(lane->key);
        free(lane->label);
        free(lane->metric_name);
    }
    free(history->lanes);
    free(history->metric);
    free(history);
}
