/*
 * history_access.c — reading a lane history: the public accessors
 * (mcpp_history_*) and the change-point view (segment medians either side)
 * that the text, JSON, markdown and HTML renderers in render/ share.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/history_internal.h"
#include "util/quantile.h"

size_t mcpp_history_lane_count(const mcpp_history *h) { return h ? h->n_lanes : 0; }

static const history_lane *lane_at(const mcpp_history *h, size_t lane)
{
    return h && lane < h->n_lanes ? &h->lanes[lane] : NULL;
}

static const history_run *run_at(const mcpp_history *h, size_t lane, size_t run)
{
    const history_lane *l = lane_at(h, lane);
    return l && run < l->n_runs ? &l->runs[run] : NULL;
}

const char *mcpp_history_lane_key(const mcpp_history *h, size_t lane)
{
    const history_lane *l = lane_at(h, lane);
    return l ? l->key : NULL;
}

size_t mcpp_history_run_count(const mcpp_history *h, size_t lane)
{
    const history_lane *l = lane_at(h, lane);
    return l ? l->n_runs : 0;
}

const char *mcpp_history_run_id(const mcpp_history *h, size_t lane, size_t run)
{
    const history_run *r = run_at(h, lane, run);
    return r ? r->id : NULL;
}

const char *mcpp_history_run_created_at(const mcpp_history *h, size_t lane, size_t run)
{
    const history_run *r = run_at(h, lane, run);
    return r ? r->created_at : NULL;
}

const char *mcpp_history_run_commit(const mcpp_history *h, size_t lane, size_t run)
{
    const history_run *r = run_at(h, lane, run);
    return r ? r->git_commit : NULL;
}

double mcpp_history_run_value(const mcpp_history *h, size_t lane, size_t run)
{
    const history_run *r = run_at(h, lane, run);
    return r ? r->value : NAN;
}

size_t mcpp_history_change_count(const mcpp_history *h, size_t lane)
{
    const history_lane *l = lane_at(h, lane);
    return l ? l->n_changes : 0;
}

size_t mcpp_history_change_run(const mcpp_history *h, size_t lane, size_t change)
{
    const history_lane *l = lane_at(h, lane);
    return l && change < l->n_changes ? l->changes[change] : (size_t)-1;
}

/* Median of runs[from..to); NaN when out of memory (it is only displayed). */
static double segment_median(const history_lane *l, size_t from, size_t to)
{
    size_t n = to - from;
    double *v = malloc(n * sizeof *v);
    if (!v) return NAN;
    for (size_t i = 0; i < n; i++) v[i] = l->runs[from + i].value;
    double m = mcpp_median_sorting(v, n);
    free(v);
    return m;
}

mcpp_history_change_view mcpp_history_change_at(const history_lane *l, size_t c)
{
    size_t start = c ? l->changes[c - 1] : 0, at = l->changes[c];
    size_t end = c + 1 < l->n_changes ? l->changes[c + 1] : l->n_runs;
    mcpp_history_change_view v = {at, &l->runs[at - 1], &l->runs[at], segment_median(l, start, at), segment_median(l, at, end), 0};
    v.rel_change = v.after_median / v.before_median - 1.0;
    return v;
}

const char *mcpp_history_lane_metric(char *buf, size_t cap, const history_lane *l, const char *metric)
{
    if (l->metric_name) snprintf(buf, cap, "%s (%s)", l->metric_name, metric);
    else snprintf(buf, cap, "%s", metric);
    return buf;
}
