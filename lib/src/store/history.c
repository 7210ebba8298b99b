/*
 * history.c — the history of a lane: its runs over time (created_at, then
 * id) with the metric's value and git commit, and the change points of that
 * series (changepoint.c). Every run is read from its verified receipt,
 * never from the row's cached columns (issue 48: a row copied under a new id
 * showed as one more run where `store ls` refused the store), in SQLite and
 * in PostgreSQL alike: both backends hand take_run the receipts their query
 * path loads and checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/policy.h"
#include "policy/policy_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "analysis/compare_internal.h"
#include "analysis/lane_internal.h"
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
    r->id = mcpp_strdup(id, NULL);
    r->created_at = mcpp_strdup((const char *)created, NULL);
    r->git_commit = mcpp_strdup((const char *)commit, NULL);
    r->value = value;
    lane->n_runs++;
    return r->id ? MCPP_OK : mcpp_error_nomem();
}

/* Records a run the series leaves out: `why`, else "does not state METRIC". */
static int set_aside(history_lane *lane, const char *id, const char *metric, const char *why)
{
    MCPP_CHECK_ARRAY(lane->aside, lane->cap_aside, lane->n_aside + 1, MCPP_ARRAY_MAX_ITEMS);
    history_aside *a = &lane->aside[lane->n_aside];
    mcpp_strbuf t;
    mcpp_sb_init_heap(&t, 64);
    if (why)
        mcpp_sb_puts(&t, why);
    else
        mcpp_sb_printf(&t, "does not state %s with a positive value", metric);
    int failed = 0;
    a->id = mcpp_strdup(id ? id : "", &failed);
    if (failed || mcpp_sb_finish(&t, &a->reason) != 0) {
        free(a->id);
        mcpp_sb_free(&t);
        return mcpp_error_nomem();
    }
    mcpp_sb_free(&t);
    lane->n_aside++;
    return MCPP_OK;
}

/* The run's value counts in the series unless the frontier keeps it out of
 * its lane's headline (a request not met, evidence the policy needs): then
 * it is set aside with the frontier's words. 1: counted, 0: set aside. */
static int run_counts(history_lane *lane, const mcpp_policy *p, const mcpp_receipt *r, const char *metric)
{
    char *why = NULL;
    int rc = mcpp_lane_run_set_aside(&why, p, r, metric);
    if (!rc && why)
        rc = set_aside(lane, mcpp_receipt_id(r), metric, why);
    free(why);
    return rc ? rc : !why;
}

/* The lane's runs as its receipts say them: each row the lane's columns
 * select is loaded verified (image or body, with its id checked:
 * store_load.c), must belong to the lane by its own key, and gives its
 * created_at, commit, value and label; the runs are ordered by what the
 * receipts say. The columns only find the rows (a row whose columns claim
 * another lane is `store check`'s to name). */
typedef struct run_reader {
    history_lane *lane;
    const char *metric;
    const mcpp_policy *policy;
    char *first_created, *first_id; /* the earliest run so far, whose primary metric names the lane's */
} run_reader;

/* 1 when run a comes before run b: created_at (none first), then id. */
static int run_before(const char *created_a, const char *id_a, const char *created_b, const char *id_b)
{
    int by_time = !created_a ? (created_b ? -1 : 0) : !created_b ? 1 : strcmp(created_a, created_b);
    return by_time < 0 || (by_time == 0 && strcmp(id_a, id_b) < 0);
}

static int take_run(void *ctx, mcpp_receipt *r)
{
    run_reader *x = ctx;
    history_lane *lane = x->lane;
    char *key = NULL;
    int rc = mcpp_lane_key(&key, x->policy, r);
    if (!rc && strcmp(key, lane->key) != 0)
        rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, NULL, "lane_key", 0, 0,
                           "stored receipt '%s' is filed under another lane than its own: the store is damaged "
                           "(run 'mcpp-receipts store check')",
                           mcpp_receipt_id(r));
    mcpp_free(key);
    double value = 0;
    int has = rc ? 0 : mcpp_metric_value(&value, x->metric, r);
    if (has < 0)
        rc = has;
    const char *created = mcpp_store_string_field(r, "created_at"), *id = mcpp_receipt_id(r);
    if (!rc && !(has == 1 && value > 0)) {
        rc = set_aside(lane, id, x->metric, NULL);
        has = 0;
    } else if (!rc) {
        int counts = run_counts(lane, x->policy, r, x->metric);
        rc = counts < 0 ? counts : MCPP_OK;
        has = counts == 1;
    }
    if (!rc && has == 1 && value > 0) {
        rc = push_run(lane, id, (const unsigned char *)created,
                      (const unsigned char *)mcpp_store_string_field(r, "source.git_commit"), value);
        if (!rc && strcmp(x->metric, "primary") == 0 &&
            (!x->first_id || run_before(created, id, x->first_created, x->first_id))) {
            const char *name = mcpp_receipt_metric_primary(r);
            free(lane->metric_name);
            free(x->first_created);
            free(x->first_id);
            lane->metric_name = name ? mcpp_strdup(name, NULL) : NULL;
            x->first_created = created ? mcpp_strdup(created, NULL) : NULL;
            x->first_id = mcpp_strdup(id, NULL);
            if ((name && !lane->metric_name) || (created && !x->first_created) || !x->first_id)
                rc = mcpp_error_nomem();
        }
    }
    if (!rc && !lane->label && !(lane->label = mcpp_store_lane_label(r)))
        rc = mcpp_error_nomem();
    mcpp_receipt_free(r);
    return rc;
}

static int by_run_order(const void *a, const void *b)
{
    const history_run *x = a, *y = b;
    return run_before(x->created_at, x->id, y->created_at, y->id)   ? -1
           : run_before(y->created_at, y->id, x->created_at, x->id) ? 1
                                                                    : 0;
}

static int load_runs(history_lane *lane, mcpp_store *s, sqlite3_stmt *st, const char *metric, const mcpp_policy *p)
{
    run_reader x = {lane, metric, p, NULL, NULL};
    int rc;
    if (s->pg) {
        const char *params[2] = {lane->key, lane->short_key};
        rc = mcpp_store_pg_load(s, "SELECT id, body FROM receipts WHERE lane_short = $2 AND lane_key = $1", 2, params,
                                take_run, &x);
    } else {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, lane->key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, lane->short_key, -1, SQLITE_STATIC);
        rc = mcpp_store_load_rows_each(s, st, take_run, &x);
    }
    free(x.first_created);
    free(x.first_id);
    if (!rc && lane->n_runs > 1)
        qsort(lane->runs, lane->n_runs, sizeof *lane->runs, by_run_order);
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

static int build_lanes(mcpp_history *h, mcpp_store *s, char **keys, const mcpp_policy *p)
{
    sqlite3_stmt *st = NULL;
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT id, body, %s FROM receipts WHERE lane_short = ?2 AND lane_key = ?1",
             mcpp_store_image_column(s));
    int rc = s->pg ? MCPP_OK : mcpp_store_prepare(&st, s, sql, "reading the lane's runs");
    size_t n = 0;
    while (keys[n]) n++;
    if (!rc && n && !(h->lanes = calloc(n, sizeof *h->lanes))) rc = mcpp_error_nomem();
    for (size_t i = 0; !rc && i < n; i++) {
        history_lane *lane = &h->lanes[h->n_lanes++];
        lane->key = keys[i];
        keys[i] = NULL; /* the lane owns it now */
        mcpp_lane_key_short(lane->short_key, sizeof lane->short_key, lane->key);
        rc = load_runs(lane, s, st, h->metric, p);
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
    return mcpp_store_texts(out, s, "SELECT DISTINCT lane_key FROM receipts ORDER BY lane_key", NULL, 0,
                            "listing lanes");
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
    if (!rc && !(h->metric = mcpp_strdup(metric ? metric : mcpp_policy_gate(policy)->metric, NULL)))
        rc = mcpp_error_nomem();
    mcpp_metric_ref ref; /* a malformed name is refused before any lane is read */
    if (!rc) rc = mcpp_metric_ref_init(&ref, h->metric, 1);
    if (!rc)
        rc = mcpp_store_check_metric_stated(store, h->metric, NULL);
    mcpp_changepoint_settings_default(&h->settings);
    if (h && settings) h->settings = *settings;
    if (!rc) rc = lane_selector ? mcpp_store_select_lanes(&keys, store, lane_selector) : all_lanes(&keys, store);
    if (!rc) rc = build_lanes(h, store, keys, mcpp_policy_or_default(NULL));
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
        for (size_t k = 0; k < lane->n_aside; k++) {
            free(lane->aside[k].id);
            free(lane->aside[k].reason);
        }
        free(lane->aside);
        free(lane->changes);
        free(lane->key);
        free(lane->label);
        free(lane->metric_name);
    }
    free(history->lanes);
    free(history->metric);
    free(history);
}
