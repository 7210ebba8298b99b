/*
 * history_anchor.c — one baseline run read beside its lane's history
 * (docs/statistics.md, "The baseline's level from the history").
 *
 * With one run a side a test's change is the difference of two single runs,
 * each with a job's whole noise: its standard error is sqrt(2) times one
 * run's, where conbench's z-score, against the mean of the lane's earlier
 * runs, pays about one run's. A lane's history says where its baseline lies
 * far more steadily than one run does, once two things are allowed for:
 * - today's machine has a level of its own: the precision-weighted median,
 *   over the suite, of how far each baseline run lies from its history;
 * - each lane's level may have moved since its history on its own (a
 *   loaded machine slowed one memory-bound benchmark by 20% and none of the
 *   others: real mixed-noise runs, loaded Google Benchmark, BM_CopyLarge).
 *   That drift gets a prior of one run's variance, raised by as far as the
 *   suite's offsets spread beyond what their noise explains.
 * The baseline's level is then the precision-weighted mean of its run and
 * of its history's median moved by today's shift; a run further than
 * ANCHOR_MAX_Z from that (a lane changed since, or a spike) keeps its own.
 * A test read against the shape of its history's pairs keeps its own too:
 * that shape is of the difference of two runs (a machine in two states
 * moves one by 0 or twice its step), not of one run against a level.
 * Without the drift prior the history pulled BM_CopyLarge's baselines 13%
 * down and 3 of 28 unchanged merges failed on it; with it, 100 of 120 real
 * 30% slowdowns were found against 96 (docs/statistics.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gate_internal.h"
#include "analysis/stats_internal.h"
#include "util/error_internal.h"
#include "util/quantile.h"

/* Fewer earlier runs say too little about a lane's level. */
#define ANCHOR_MIN_RUNS 8
/* Fewer lanes read no level of today's machine. */
#define ANCHOR_MIN_LANES 5
/* A baseline run further than this many standard deviations from its
 * history's level keeps its own. */
#define ANCHOR_MAX_Z 3.0
/* The drift of a lane's level since its history, in runs' variances, that
 * is assumed before the suite shows any. */
#define DRIFT_PRIOR 1.0
/* The variance of the median of n normal runs is pi/2 that of their mean. */
#define MEDIAN_VAR 1.5708
/* The median of a chi-square with 1 df. */
#define CHI2_1_MEDIAN 0.4549

typedef struct anchor_lane {
    double offset;     /* the baseline run less its history's median (log) */
    double run_var;    /* one run's variance: se² / 2 with one run a side */
    double median_var; /* the history median's */
} anchor_lane;

static int anchorable(const gate_metric_entry *g)
{
    const mcpp_metric_result *res = &g->result;
    return g->has_result && g->history_noise && g->n_base_values == 1 && res->n_base == 1 && res->n_cand == 1 &&
           g->n_history_scores >= ANCHOR_MIN_RUNS && res->se > 0 && !res->null_shape;
}

/* `scratch` holds the lane's n_history_scores doubles. */
static anchor_lane lane_of(const gate_metric_entry *g, double *scratch)
{
    size_t n = g->n_history_scores;
    memcpy(scratch, g->history_values, n * sizeof *scratch);
    anchor_lane a;
    a.offset = g->base_values[0] - mcpp_median_sorting(scratch, n);
    a.run_var = g->result.se * g->result.se / 2;
    a.median_var = MEDIAN_VAR * a.run_var / (double)n;
    return a;
}

int mcpp_gate_history_anchor(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m)
{
    size_t longest = 0, n = 0;
    for (size_t i = 0; i < m; i++)
        if (tests[i]->n_history_scores > longest)
            longest = tests[i]->n_history_scores;
    /* each test's lane read once: its history sorted for its median */
    anchor_lane *lanes = malloc((m + 1) * sizeof *lanes);
    double *cw = malloc((2 * m + longest + 1) * sizeof *cw), *scratch = cw + 2 * m, weight = 0;
    if (!lanes || !cw) {
        free(lanes);
        free(cw);
        return mcpp_error_nomem();
    }
    for (size_t i = 0; i < m; i++) {
        if (!anchorable(tests[i]))
            continue;
        lanes[n] = lane_of(tests[i], scratch);
        cw[2 * n] = lanes[n].offset;
        weight += cw[2 * n + 1] = 1 / (lanes[n].run_var + lanes[n].median_var);
        n++;
    }
    if (n < ANCHOR_MIN_LANES) {
        free(lanes);
        free(cw);
        return MCPP_OK;
    }
    double shift = mcpp_weighted_median_sorting(cw, n), shift_var = MEDIAN_VAR / weight;
    /* The lanes' drift beyond the prior: how far their offsets spread beyond
     * their noise, read from the median of the squared standardized offsets
     * so that one spiked baseline cannot set it. */
    for (size_t j = 0; j < n; j++) {
        double z = (lanes[j].offset - shift) / sqrt(lanes[j].run_var + lanes[j].median_var + shift_var);
        cw[j] = z * z;
    }
    double beyond = mcpp_median_sorting(cw, n) / CHI2_1_MEDIAN - 1;
    r->history_drift = DRIFT_PRIOR + (beyond > 0 ? beyond : 0);
    /* every candidate of a pooled group carries the group's result */
    for (size_t e = 0; e < r->n; e++)
        for (size_t k = 0; k < r->entries[e].n_metrics; k++) {
            gate_metric_entry *g = &r->entries[e].metrics[k];
            if (!anchorable(g))
                continue;
            anchor_lane a = lane_of(g, scratch);
            double level_var = a.median_var + shift_var + r->history_drift * a.run_var, off = a.offset - shift;
            if (fabs(off) > ANCHOR_MAX_Z * sqrt(a.run_var + level_var))
                continue;
            double w = a.run_var / (a.run_var + level_var); /* the history's weight */
            mcpp_metric_anchor(&g->result, -w * off, w, sqrt(a.run_var + (1 - w) * a.run_var));
            r->history_anchored += r->entries[e].group == e;
        }
    free(lanes);
    free(cw);
    return MCPP_OK;
}
