/*
 * history_internal.h — the lane history object, shared by its builder
 * (history.c) and its accessors and renderers (history_render.c).
 */
#ifndef MCPP_HISTORY_INTERNAL_H
#define MCPP_HISTORY_INTERNAL_H

#include "mcpp_receipts/frontier.h"
#include "mcpp_receipts/store.h"

typedef struct history_run {
    char *id, *created_at, *git_commit; /* created_at and git_commit may be NULL */
    double value;
} history_run;

/* A run of the lane its series leaves out, and why (issue 47 item 3). */
typedef struct history_aside {
    char *id, *reason;
} history_aside;

typedef struct history_lane {
    char *key;
    char short_key[24];
    char *label;
    char *metric_name; /* for "primary": the name the lane's first run gives it; else NULL */
    history_run *runs;
    size_t n_runs, cap_runs;
    /* runs set aside: the metric not stated, or kept out of the lane's
     * headline by the frontier's rule (mcpp_lane_run_set_aside) */
    history_aside *aside;
    size_t n_aside, cap_aside;
    size_t *changes; /* run index of the first run after each change */
    size_t n_changes;
} history_lane;

struct mcpp_history {
    char *metric;
    mcpp_changepoint_settings settings;
    history_lane *lanes;
    size_t n_lanes;
};

/* A change point seen from both sides: the runs around it and the medians
 * of the segments it separates (rel_change = after / before - 1). */
typedef struct mcpp_history_change_view {
    size_t run;
    const history_run *before, *after;
    double before_median, after_median, rel_change;
} mcpp_history_change_view;

mcpp_history_change_view mcpp_history_change_at(const history_lane *lane, size_t change);

/* What the lane's values are, for people: "tokens_per_s (primary)" when the
 * history asked for "primary", else the metric as asked; into buf. */
const char *mcpp_history_lane_metric(char *buf, size_t cap, const history_lane *lane, const char *metric);

#endif /* MCPP_HISTORY_INTERNAL_H */
