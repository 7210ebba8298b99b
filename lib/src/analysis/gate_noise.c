/*
 * gate_noise.c — what a gate's tests together say of the machine
 * (docs/statistics.md): the suite's pooled run-to-run noise and the spread
 * of its changes, the tails, the lanes' pooled history and its shape, the
 * shift all benchmarks share, the check of today against the history, each
 * measured once per baseline side; then one Benjamini–Hochberg cutoff over
 * every test. gate.c pairs and compares; this file reads the suite.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gate_internal.h"
#include "analysis/stats_internal.h"
#include "util/error_internal.h"
#include "util/quantile.h"

/* The gate's tests into out (NULL: only counted): each lane's compared
 * metrics that are not point comparisons, once per lane, since the candidate
 * runs of a lane share their comparison. With `shared` (NULL: every test),
 * only the entries whose mark in it is `marked`. */
static size_t lane_tests(gate_metric_entry **out, mcpp_gate_report *r, const unsigned char *shared, int marked)
{
    size_t m = 0;
    for (size_t i = 0; i < r->n; i++)
        for (size_t k = 0; r->entries[i].group == i && (!shared || shared[i] == marked) && k < r->entries[i].n_metrics;
             k++) {
            gate_metric_entry *g = &r->entries[i].metrics[k];
            if (!g->has_result || g->result.point_comparison) continue;
            if (out) out[m] = g;
            m++;
        }
    return m;
}

typedef struct baseline_side {
    const mcpp_receipt *first;
    size_t n, entry;
} baseline_side;

static int baseline_side_order(const void *a, const void *b)
{
    const baseline_side *x = a, *y = b;
    if (x->first != y->first) return (uintptr_t)x->first < (uintptr_t)y->first ? -1 : 1;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Marks in shared[i] each candidate whose baseline side an earlier one
 * already has: runs of one lane with no commit in common are candidates of
 * their own, each tested against the same baseline runs. Each is decided and
 * counted among the gate's tests, but what the suite measures of the machine
 * (its pooled noise, the spread of its changes, its tails, its shift) takes
 * one test per baseline side: counted once per candidate, three candidate
 * runs of three benchmarks were nine tests, enough for the suite's figure to
 * replace the policy's with the same baseline runs counted thrice (real
 * Google Benchmark runs on this project's CI machine, three against each of
 * three: 12 of 65 unchanged merges failing). shared holds r->n bytes. */
static int mark_shared_baselines(const mcpp_gate_report *r, unsigned char *shared)
{
    baseline_side *sides = malloc((r->n ? r->n : 1) * sizeof *sides);
    if (!sides) return mcpp_error_nomem();
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        shared[i] = 0;
        if (r->entries[i].group == i && r->entries[i].baselines)
            sides[n++] = (baseline_side){r->entries[i].first_baseline, r->entries[i].baselines, i};
    }
    qsort(sides, n, sizeof *sides, baseline_side_order);
    for (size_t j = 1; j < n; j++)
        if (sides[j].first == sides[j - 1].first && sides[j].n == sides[j - 1].n) shared[sides[j].entry] = 1;
    free(sides);
    return MCPP_OK;
}

/* Below this many tests the spread of their changes says too little about
 * the machine's run-to-run noise to be a floor. */
#define SUITE_MIN_TESTS 8
/* The betterments a suite's fit of its tails needs before it can tell them
 * from the normal: with 5, half of a 10-test suite, the heaviest t within one
 * log-likelihood unit reads 4 df or fewer for 90% of normal suites and 94%
 * of t with 3 df; with 25, 32% and 82% (simulated, 300 suites each). */
#define SUITE_TELLS_TAILS 10

/* The standard deviation of the changes x[0..n) within `cut` of c, their
 * number in *kept and their mean in *mean: what a cut at 3 sds keeps of a
 * normal (99.73% of it, 98.66% of its spread) scaled back to the whole. */
static double sd_within(const double *x, size_t n, double c, double cut, size_t *kept, double *mean)
{
    double sum = 0, ss = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i] - c) <= cut)
            sum += x[i], k++;
    *kept = k;
    *mean = k ? sum / (double)k : c;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i] - c) <= cut)
            ss += (x[i] - *mean) * (x[i] - *mean);
    return k >= 2 ? sqrt(ss / (double)(k - 1)) / 0.9866 : 0;
}

/* One robust deviation of x[0..n) about their median `med`: 1.4826 median
 * absolute deviations. `scratch` holds n doubles. */
static double robust_deviation(const double *x, size_t n, double med, double *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = fabs(x[i] - med);
    return 1.4826 * mcpp_median_sorting(scratch, n);
}

/* The spread of the changes x[0..n) within 3 robust deviations of their
 * median `med`: leaving out the few benchmarks that really changed keeps them
 * from inflating it, and the standard deviation of the rest, not the MAD
 * itself, keeps it steady (the MAD of 50 values wanders by a quarter).
 * `scratch` holds n doubles. */
static double median_spread(const double *x, size_t n, double med, double *scratch, size_t *kept)
{
    double mean;
    return sd_within(x, n, med, 3 * robust_deviation(x, n, med, scratch), kept, &mean);
}

/* Where the unchanged tests of one run a side sit, and how far they
 * spread: sigma clipping (keep what lies within 3 sds of the kept ones' mean,
 * re-measure, until the kept set stands still) seeded by the densest half of
 * the sorted changes in x[0..n) (its median, and its width as 1.349 sds).
 * The median of all the changes is the wrong seed when a merge slowed more
 * than half of its benchmarks, each by its own amount: it then sits among the
 * slowed ones, every unchanged test reads as a betterment of several sds and
 * every slowdown as spread (real mixed-noise suite, 6 of 10 slowed by 5-30%,
 * one run a side: the suite's fit read t with 6 df and widened every test
 * 2.9x, 12 of 24 quiet 30% slowdowns caught). Unchanged tests cluster and
 * slowdowns of different sizes spread out, so the densest half is the
 * unchanged ones' whenever they are more than a few. Its width is short of
 * 1.349 sds for small n (0.52 of it at n = 10): the clipping then starts
 * narrow and grows to the cluster's own spread, stopping before values a
 * gap away. With `cap_worse`, the changes on the worse side lie no farther
 * from the seed than its farthest betterment (capped in x): regressions sit
 * on the worse side, and when most of a small suite was slowed the clipping
 * grew into them (real runs, idle-late Google Benchmark, 3 runs a side with
 * the history, six of ten slowed: changes of -1.5 to 12.6 standard errors
 * read as a floor of 4.9, every test widened to it and both 30% slowdowns
 * inconclusive). Returns the sd, the centre in *centre and the number kept
 * in *kept. */
static double clipped_spread(double *x, size_t n, int cap_worse, double *centre, size_t *kept)
{
    size_t h = (n + 1) / 2, lo = 0;
    for (size_t i = 1; i + h <= n; i++)
        if (x[i + h - 1] - x[i] < x[lo + h - 1] - x[lo])
            lo = i;
    double c = mcpp_quantile_sorted(x + lo, h, 0.5), sd = (x[lo + h - 1] - x[lo]) / 1.349;
    for (size_t i = n; cap_worse && i-- > 0 && x[i] > 2 * c - x[0];) /* x stays sorted */
        x[i] = 2 * c - x[0];
    size_t was = 0;
    *kept = 0;
    for (int round = 0; round < 100; round++) {
        double mean, next = sd_within(x, n, c, 3 * sd, kept, &mean);
        if (*kept < 2 || *kept == was)
            break;
        c = mean, sd = next, was = *kept;
    }
    *centre = c;
    return sd;
}

/* How spread_of_changes reads one merge's changes. */
enum spread_reading {
    BETTERMENTS,       /* several runs a side: the betterments alone */
    FIT_ABOUT_MEDIAN,  /* one run a side, the tests' noise one declared figure */
    FIT_ABOUT_CLUSTER, /* one run a side, each test's noise its own (a history) */
};

/* The scale of n changes in scratch[0..n), signed so that worse is positive
 * (each test's log change scaled to one run: suite_run_noise; in standard
 * errors: history_spread_check).
 * With one run a side (FIT_*), two readings of their spread about where the
 * unchanged ones sit:
 * - the standard deviation of the changes kept about it, with that many
 *   runs' degrees of freedom. About the median (median_spread) when every
 *   test's noise is one declared figure: benchmarks that differ in noise
 *   then spread as heavy tails, not as a cluster and outliers, and the
 *   cluster would read the quiet ones' spread alone (noise lab, mixed noise,
 *   10 benchmarks, one run, no history: 10.5% of 200 unchanged merges
 *   failing about the cluster, 5.5% about the median). About the unchanged
 *   tests' cluster (clipped_spread) when each test's noise is its own;
 * - how heavy their tails could be (mcpp_stats_t_tail_fit), from the
 *   deviations with the worse ones capped at the largest betterment:
 *   regressions sit on the worse side, and capped they cannot make the
 *   machine look wilder than its betterments show. When the tails are heavy
 *   (a machine whose runs now and then land far off), the test takes that
 *   t's scale and degrees of freedom: one far-off run a side is then no
 *   evidence of a regression. With `tails_known` the lanes' history has
 *   read them (history_tails), far better than 50 changes can: no fit.
 * With several runs a side (BETTERMENTS), where the spread of the changes is
 * what the two sides' jobs add, it is the root mean square of the
 * betterments alone about the median (about none with `about_zero`), within
 * 6 robust deviations: regressions cannot enter them, so the cut only keeps
 * out a real improvement far below the rest, and at 3 it trimmed genuine
 * spread whenever the MAD came out small (jobs shape, 5 runs a side: 6% of
 * 100 unchanged merges failing, 5% at 6 deviations; 3.5% of 200 at 6, 5.0%
 * at 3).
 * A shift common to all benchmarks stays a change, not noise.
 * Returns the scale (0: fewer than SUITE_MIN_TESTS changes, or too few
 * kept), its df in *df and, when they are the heavy tails' (read only with
 * one run a side), in *heavy how many betterments that reading rests on;
 * both 0 unless set. `scratch` holds 2n doubles. */
static double spread_of_changes(double *scratch, size_t n, enum spread_reading reading, int tails_known, int about_zero,
                                double *df, int *heavy)
{
    *df = 0;
    *heavy = 0;
    if (n < SUITE_MIN_TESTS) return 0;
    double med = mcpp_median_sorting(scratch, n); /* scratch stays sorted: the betterments come first */
    if (reading == BETTERMENTS) {                 /* regressions, real ones too, sit on the worse side */
        double cut = 3 * robust_deviation(scratch, n, med, scratch + n), c = about_zero ? 0 : med, ss = 0;
        size_t kept = 0;
        for (size_t i = 0; i < n && scratch[i] < c; i++)
            if (c - scratch[i] <= 2 * cut) ss += (c - scratch[i]) * (c - scratch[i]), kept++;
        *df = (double)kept;
        return kept >= 2 ? sqrt(ss / (double)kept) : 0;
    }
    size_t kept;
    /* The worse side capped only in a small suite, and only where no fit of
     * the tails follows (the history has read them). With 20 tests or more
     * the unchanged ones stop the clipping, and capped, a heavy-tailed
     * machine's far-off runs on the worse side were under-read (noise lab,
     * heavy-tailed, 50 benchmarks, 3 runs a side with the history: 5.0% ->
     * 6.5% of unchanged merges failing; 10 benchmarks: 0.5% -> 1.0%). Before
     * a fit, the capped cluster's centre moved it (real runs, idle-late, one
     * run a side with the history: 56 -> 53 of 60 real 30% slowdowns
     * caught); the fit caps the worse side itself. */
    int cap = tails_known && n < 2 * SUITE_TELLS_TAILS;
    double centre = med, sd = reading == FIT_ABOUT_CLUSTER ? clipped_spread(scratch, n, cap, &centre, &kept)
                                                           : median_spread(scratch, n, med, scratch + n, &kept);
    if (kept < 2)
        return 0;
    size_t better = 0;
    for (size_t i = 0; i < n && scratch[i] < centre; i++)
        scratch[n + better++] = centre - scratch[i];
    size_t fitted = better;
    for (size_t i = better; better && i < n; i++) /* the worse half, capped at the largest betterment */
        scratch[n + fitted++] = scratch[i] - centre < scratch[n] ? scratch[i] - centre : scratch[n];
    double scale, tail_df = !tails_known && better >= SUITE_MIN_TESTS / 2
                                ? mcpp_stats_t_tail_fit(scratch + n, fitted, &scale)
                                : INFINITY;
    if (tail_df < 20) {
        *df = tail_df;
        *heavy = (int)better;
        return scale;
    }
    *df = (double)(kept - 1);
    return sd;
}

/* How much more the gate's own tests spread today than each one's own noise
 * says (spread_of_changes over their changes in units of their own standard
 * errors): a factor, 1 when every test's noise is as it says. Standardized
 * first, since the benchmarks of one suite differ in noise from 1% to 40%: in
 * absolute terms the noisiest set everyone's floor, and a 30% slowdown of a
 * benchmark with 1% noise was judged against a sibling's 15% (docs/statistics.md,
 * "Each benchmark's own noise"). Tests whose noise is the same figure (a
 * policy's, one run a side) spread as before. */
static double suite_noise_factor(gate_metric_entry *const *tests, size_t n, double *scratch,
                                 enum spread_reading reading, int tails_known, const unsigned char *left_out,
                                 double *df, int *heavy)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        const mcpp_metric_result *res = &tests[i]->result;
        double worse = res->higher_is_better ? -1 : 1;
        if (!left_out || !left_out[i])
            scratch[kept++] = res->se > 0 ? worse * log1p(res->rel_delta) / res->se : 0;
    }
    return spread_of_changes(scratch, kept, reading, tails_known, 0, df, heavy);
}

/* A baseline run is a spike when it lies more than this many of its lane's
 * robust deviations on the slow side of its history, beyond the shift all
 * the baselines share today. */
#define BASELINE_SPIKE_SDS 6
/* Fewer earlier runs read no robust deviation to judge a run by. */
#define BASELINE_SPIKE_MIN_RUNS 8

/* Where a test's one baseline run lies from its lane's history, in the
 * history's robust deviations, worse positive (NAN: no history to say). */
static double baseline_from_history(const gate_metric_entry *t, double *scratch)
{
    size_t n = t->n_history_scores;
    if (t->n_base_values != 1 || n < BASELINE_SPIKE_MIN_RUNS)
        return NAN;
    memcpy(scratch, t->history_values, n * sizeof *scratch);
    double med = mcpp_median_sorting(scratch, n), sd = robust_deviation(t->history_values, n, med, scratch);
    double worse = t->result.higher_is_better ? -1 : 1;
    return sd > 0 ? worse * (t->base_values[0] - med) / sd : NAN;
}

/* The tests whose one baseline run is a spike: far slower than its own
 * lane's history, beyond the shift every baseline shares today (their
 * median). A spike in the baseline reads as a large betterment, and one such
 * betterment made the suite's fit of the tails read t with 2 df and raise
 * every test several times (real mixed-noise runs, idle pytest-benchmark:
 * test_sorted's baseline 7-31 of its robust deviations off in 4 of 27
 * unchanged runs, never in its 12 history runs; with it in the fit the suite
 * caught 15 of 30 real 30% slowdowns, 21 without). It says nothing of how
 * far off today's candidates can land, which the other tests' changes still
 * say. Sets *left_out to a malloc'd mark per test when any is one (NULL
 * otherwise) and r->baseline_spikes to their number; MCPP_ENOMEM or 0. */
static int mark_baseline_spikes(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m,
                                unsigned char **left_out)
{
    size_t longest = m, n = 0;
    for (size_t i = 0; i < m; i++)
        if (tests[i]->n_history_scores > longest)
            longest = tests[i]->n_history_scores;
    double *off = malloc((m + longest + 1) * sizeof *off), *scratch = off + m;
    unsigned char *mark = calloc(m + 1, 1);
    if (!off || !mark) {
        free(off);
        free(mark);
        return mcpp_error_nomem();
    }
    for (size_t i = 0; i < m; i++)
        off[i] = baseline_from_history(tests[i], scratch);
    /* the offsets of those that have one, after every history used the scratch */
    for (size_t i = 0; i < m; i++)
        if (!isnan(off[i]))
            scratch[n++] = off[i];
    double shared = n >= SUITE_MIN_TESTS ? mcpp_median_sorting(scratch, n) : NAN;
    for (size_t i = 0; i < m && !isnan(shared); i++)
        r->baseline_spikes += mark[i] = !isnan(off[i]) && off[i] - shared > BASELINE_SPIKE_SDS;
    free(off);
    if (r->baseline_spikes)
        *left_out = mark;
    else
        free(mark);
    return MCPP_OK;
}

/* Raises a result's standard error to `factor` times itself (its runs' part:
 * the run-to-run sd that gives it), with `df` (mcpp_metric_raise_noise). */
static void raise_by_factor(mcpp_metric_result *res, double factor, double df)
{
    double per_run = 1 / (double)res->n_base + 1 / (double)res->n_cand;
    double extra = factor > 1 ? (factor * factor - 1) * res->se * res->se / per_run : 0;
    mcpp_metric_raise_noise(res, sqrt(res->run_sd * res->run_sd + extra), df);
}

/* The root mean square of the tests' run-to-run sds: what "the suite's
 * run-to-run noise" reports once scaled by its factor. */
static double rms_run_sd(gate_metric_entry *const *tests, size_t n)
{
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += tests[i]->result.run_sd * tests[i]->result.run_sd;
    return n ? sqrt(ss / (double)n) : 0;
}

/* Below this many earlier runs the pooled history says too little about how
 * far off the machine's runs can land. */
#define HISTORY_MIN_SCORES 100

/* The machine's tails, read from the earlier runs of the gate's lanes
 * (docs/statistics.md, "Heavy tails"): each lane's runs as normal scores
 * against its own others (mcpp_stats_loo_normal_scores), pooled over every
 * test, and the Student t they cannot rule out (mcpp_stats_t_tail_fit). Twenty
 * runs of 50 lanes show tails that the 50 changes of one merge cannot: with
 * tails known, a normal machine's suite is not read as heavy-tailed by chance
 * and a heavy-tailed one's far-off runs are expected. When they are heavy,
 * every test with a history takes them (mcpp_metric_heavy_tails). Sets
 * r->history_scores (0: too few runs to read, the suite's own fit stands). */
static int history_tails(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m)
{
    size_t n = 0;
    for (size_t i = 0; i < m; i++) n += tests[i]->n_history_scores;
    if (n < HISTORY_MIN_SCORES) return MCPP_OK;
    double *z = malloc(n * sizeof *z);
    if (!z) return mcpp_error_nomem();
    n = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < tests[i]->n_history_scores; j++) z[n++] = tests[i]->history_scores[j];
    double scale, df = mcpp_stats_t_tail_fit(z, n, &scale);
    free(z);
    r->history_scores = n;
    r->history_tail_df = df < 20 ? df : INFINITY;
    r->history_tail_scale = df < 20 ? scale : 1;
    /* every candidate of a pooled group carries the group's result */
    for (size_t e = 0; e < r->n && df < 20; e++)
        for (size_t k = 0; k < r->entries[e].n_metrics; k++)
            if (r->entries[e].metrics[k].n_history_scores)
                mcpp_metric_heavy_tails(&r->entries[e].metrics[k].result, scale, df);
    return MCPP_OK;
}

/* The variance a suite's tests agree on and its weight in degrees of
 * freedom (mcpp_stats_prior_df of var[i] with df[i] degrees of freedom, n of
 * them): at most all of theirs, 0 with fewer than SUITE_MIN_TESTS. The
 * centre in *centre: when the variances scatter within chance (the weight is
 * all their df), their pooled variance, which stays unbiased whatever the
 * runs' tails (the log-scale centre overshot by 7% for the bimodal machine's
 * light tails); when they disagree, Smyth's centre on the log scale, since the
 * pooled variance of lanes of 1% and 40% is the noisy lanes' and, even at 1
 * df, pulled a 1% lane's variance to 6% (docs/statistics.md, "Each
 * benchmark's own noise"). */
static double agreed_variance(const double *var, const double *df, size_t n, double *centre)
{
    double total = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        total += df[i], ss += var[i] * df[i];
    *centre = total > 0 ? ss / total : 0;
    if (n < SUITE_MIN_TESTS) return 0;
    double agreed, d0 = mcpp_stats_prior_df(var, df, n, &agreed);
    if (d0 >= total)
        return total;
    *centre = agreed;
    return d0;
}

/* Every pair of one lane's earlier runs, (x_i - x_j) / sqrt(2 b), both
 * signs, for each test whose history the gate pooled (b: its between-jobs
 * variance, in b_var[i]): how two runs of unchanged code differ, in one
 * run's standard deviations. The lane's own level cancels in each pair, so
 * no lane's mean, estimated from its 20 runs, blurs the shape (centred on
 * their means, the runs of a machine in two states smeared its two states
 * by a fifth of their distance). A malloc'd array, its length in *n; NULL
 * when out of memory. */
static double *history_pairs(gate_metric_entry *const *tests, size_t m, const double *b_var, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < m; i++)
        if (b_var[i] > 0) total += tests[i]->n_history_scores * (tests[i]->n_history_scores - 1);
    double *pairs = malloc((total ? total : 1) * sizeof *pairs);
    if (!pairs) return NULL;
    *n = 0;
    for (size_t i = 0; i < m; i++) {
        const double *x = tests[i]->history_values;
        double unit = b_var[i] > 0 ? 1 / sqrt(2 * b_var[i]) : 0;
        for (size_t a = 0; unit > 0 && a < tests[i]->n_history_scores; a++)
            for (size_t c = 0; c < a; c++) {
                pairs[(*n)++] = (x[a] - x[c]) * unit;
                pairs[(*n)++] = (x[c] - x[a]) * unit;
            }
    }
    return pairs;
}

/* The pooled history's shape for `per_side` runs a side from n_pairs >= 2
 * pairs, built once per count; NULL when out of memory. */
static const mcpp_null_shape *null_shape_for(mcpp_gate_report *r, const double *pairs, size_t n_pairs,
                                             size_t per_side)
{
    for (size_t i = 0; i < r->n_null_shapes; i++)
        if (r->null_shapes[i]->per_side == per_side) return r->null_shapes[i];
    /* each shape has its own block: results keep pointers to the earlier ones */
    mcpp_null_shape **grown = realloc(r->null_shapes, (r->n_null_shapes + 1) * sizeof *grown);
    if (!grown) return NULL;
    r->null_shapes = grown;
    mcpp_null_shape *s = calloc(1, sizeof *s);
    if (!s || mcpp_null_shape_build(s, pairs, n_pairs, r->history_scores, per_side) || !s->n) {
        if (s) mcpp_null_shape_free(s);
        free(s);
        return NULL;
    }
    return grown[r->n_null_shapes++] = s;
}

/* The history source (docs/statistics.md, "The lanes' history"). Each
 * lane's earlier runs, each from a job of its own, say what separate jobs
 * differ by; but twenty runs a lane are 19 degrees of freedom, too few for
 * the one-in-a-thousand p-values a gate over 50 tests needs (a t quantile
 * 18% above the normal one). Pooled the way the suite pools its runs
 * (Smyth's moderated variances: each lane's variance shrinks toward the one
 * the lanes agree on, as far as they agree), they give each test hundreds.
 * The runs at hand, shrunk with the same weight, say what runs of one job
 * differ by; with one run a side the between-jobs figure is all there is
 * (mcpp_metric_job_noise puts the two together). This replaces
 * each test's own blend of its history, its runs and the policy's declared
 * figure. Only when the history has read the tails as normal
 * (history_tails): heavy tails make the lanes' variances disagree by chance
 * far more than a chi-square says, and the pooling would take that for
 * lanes of their own (noise lab, heavy-tailed, 3 runs a side: 71% of 30%
 * slowdowns found instead of 99%). Tests whose runs are draws like the
 * history's read their p-value from the shape of its pairs instead of a t
 * (null_shape.h: a machine in two states never moves a benchmark by more
 * than their distance). 0 or MCPP_ENOMEM; `scratch` holds 2m doubles. */
static int apply_history_noise(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, double *scratch)
{
    /* Heavy tails read from the history keep each test's own blend (above);
     * too few earlier runs to read the tails (10 lanes of 12 runs, some set
     * aside) still pool the lanes' variances as far as they agree. */
    if (r->history_scores && !isinf(r->history_tail_df))
        return MCPP_OK;
    size_t n = 0;
    for (size_t i = 0; i < m; i++)
        if (tests[i]->history_df > 0 && tests[i]->history_ss > 0)
            scratch[n] = tests[i]->history_ss / tests[i]->history_df, scratch[m + n++] = tests[i]->history_df;
    double between_var, between_w = agreed_variance(scratch, scratch + m, n, &between_var), lane_df = 0;
    for (size_t i = 0; i < n; i++)
        lane_df += scratch[m + i];
    /* The shape of the pooled pairs only when the lanes share one variance:
     * lanes of their own scale their pairs by their own sample variances, and
     * pairs scaled by the spread of the very runs they come from are bounded
     * (a 12-run lane's never pass about 3.3), so the shape read a change of
     * 3.6 of a lane's standard errors as p = 2e-11 (noise lab, mixed noise,
     * 50 benchmarks, one run a side: 8% of unchanged merges failing). */
    int agree = between_w >= lane_df;
    if (!(between_w > 0))
        return MCPP_OK; /* fewer than SUITE_MIN_TESTS lanes: each keeps its own blend */
    /* The centres are the pooled variances when the lanes agree (see
     * agreed_variance: the log-scale centre overshot by 7% for the bimodal
     * machine, which read as a job effect between the history and the runs at
     * hand and cost half the power at 10% with 5 runs a side), Smyth's
     * log-scale centres when they do not. */
    /* Within a job: the runs at hand, pooled over the lanes, and weighed as
     * far as the lanes' histories agree (their 19 df a lane read that far
     * more steadily than 2-4 df of runs: agreed_variance over the runs alone
     * came out under 20 df in half of the noise lab's Gaussian merges, and
     * their few df then ruled each test's). */
    double between_df = 0, within_ss = 0, within_df = 0;
    size_t n_within = 0;
    for (size_t i = 0; i < m; i++)
        if (tests[i]->history_df > 0) {
            between_df += tests[i]->history_df;
            within_ss += tests[i]->runs_ss, within_df += tests[i]->runs_df;
            if (tests[i]->runs_df > 0 && tests[i]->runs_ss > 0)
                scratch[n_within] = tests[i]->runs_ss / tests[i]->runs_df, scratch[m + n_within++] = tests[i]->runs_df;
        }
    double within_w = within_df < between_w ? within_df : between_w;
    double within_var = within_df > 0 ? within_ss / within_df : 0;
    if (between_w < between_df && n_within >= SUITE_MIN_TESTS) /* lanes of their own: the log-scale centre */
        agreed_variance(scratch, scratch + m, n_within, &within_var);
    r->history_lane_df = between_w;
    for (size_t i = 0; i < m; i++) { /* each lane's between-jobs variance, as below */
        const gate_metric_entry *t = tests[i];
        scratch[i] =
            t->history_df > 0 ? mcpp_stats_moderated_var(between_var, between_w, t->history_ss, t->history_df) : 0;
    }
    size_t n_pairs;
    double *pairs = history_pairs(tests, m, scratch, &n_pairs);
    if (!pairs) return mcpp_error_nomem();
    int rc = MCPP_OK;
    /* every candidate of a pooled group carries the group's result */
    for (size_t e = 0; e < r->n && rc == MCPP_OK; e++)
        for (size_t k = 0; k < r->entries[e].n_metrics && rc == MCPP_OK; k++) {
            gate_metric_entry *g = &r->entries[e].metrics[k];
            if (!g->has_result || !(g->history_df > 0)) continue;
            double b_df = between_w + g->history_df;
            double b_var = mcpp_stats_moderated_var(between_var, between_w, g->history_ss, g->history_df);
            double w_df = within_w + g->runs_df;
            double w_var = mcpp_stats_moderated_var(within_var, within_w, g->runs_ss, g->runs_df);
            /* No job effect beyond chance (Bancroft's preliminary test at 25%,
             * log F about normal at these df): one variance of both, with
             * both df. Otherwise se² = w (f - 2) + 2 b, a difference of two
             * estimates whose df are far fewer than either's. */
            int independent = 1;
            if (!(w_var > 0)) {
                w_var = b_var, w_df = b_df;
            } else if (log(b_var / w_var) < 0.6745 * sqrt(2 / b_df + 2 / w_df)) {
                b_var = w_var = (b_df * b_var + w_df * w_var) / (b_df + w_df);
                b_df = w_df = b_df + w_df;
            } else {
                independent = 0;
            }
            mcpp_metric_job_noise(&g->result, w_var, w_df, b_var, b_df);
            g->history_noise = 1;
            /* Runs as independent as the history's own (one a side, or no
             * job effect), as many a side: the change is a sum of
             * differences of two such runs, and the history's pairs, not a
             * t, say how far off it strays. */
            mcpp_metric_result *res = &g->result;
            if (!independent || res->n_base != res->n_cand || n_pairs < 2 || !r->history_scores || !agree)
                continue;
            const mcpp_null_shape *shape = null_shape_for(r, pairs, n_pairs, res->n_base);
            if (!shape) rc = mcpp_error_nomem();
            mcpp_metric_null_shape(res, shape);
            r->history_shaped += res->null_shape && r->entries[e].group == e;
        }
    free(pairs);
    return rc;
}

/* Below this many pooled degrees of freedom the suite's runs are too few to
 * stand in for the policy's declared run-to-run noise. */
#define SUITE_MIN_DF 10

/* The level of the F test that decides whether the suite's changes spread
 * more than their runs explain (apply_suite_noise): Bancroft's
 * "sometimes pool" procedure, at the 25% Paull found keeps its bias small. */
#define JOBS_PRETEST_LEVEL 0.25

/* The suite source (docs/statistics.md). When the gate's tests have runs a
 * side, their spreads about each side's own mean pool into one run-to-run
 * variance of this machine today (real changes do not enter it), which
 * replaces the policy's declared figure as every test's prior
 * (mcpp_metric_moderate). Otherwise, with one run a side, the spread of the
 * tests' changes is a floor under each test's noise (suite_run_noise). */
static int apply_suite_noise(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, double *scratch)
{
    double ss = 0, df = 0;
    for (size_t i = 0; i < m; i++)
        if (!tests[i]->result.history_runs) ss += tests[i]->runs_ss, df += tests[i]->runs_df;
    /* the declared figure's df (its suite's: the first test's when they differ) */
    double weight = m && tests[0]->declared_df > 0 ? tests[0]->declared_df : 20;
    if (df >= SUITE_MIN_DF) {
        size_t n = 0;
        for (size_t i = 0; i < m; i++)
            if (!tests[i]->result.history_runs && tests[i]->runs_df > 0)
                scratch[n] = tests[i]->runs_ss / tests[i]->runs_df, scratch[m + n++] = tests[i]->runs_df;
        /* With enough tests, how far their variances agree says how much the
         * suite's figure weighs against each test's own; with few, the
         * policy's run_to_run_df says it. The figure is their pooled
         * variance when they agree (the log-scale centre overshot for runs
         * with light tails: noise lab, bimodal, 3 runs: run_sd 5.7% where the
         * runs' sd is 5.2%), Smyth's log-scale centre when they do not
         * (agreed_variance). */
        double centre, d0 = agreed_variance(scratch, scratch + m, n, &centre), prior_var = ss / df;
        if (d0 > 0)
            weight = d0, prior_var = centre;
        r->suite_run_sd = sqrt(prior_var);
        r->suite_df = weight;
        /* The runs of one side share their job. With enough tests the suite
         * measures what the two jobs differ by instead of the policy: when
         * the tests' changes spread more than their runs explain, each test's
         * standard error rises to that spread; when they do not, the jobs add
         * nothing. "More" is an F test at JOBS_PRETEST_LEVEL: taking the
         * larger of two estimates of one variance overstated it in half of
         * the noise lab's Gaussian merges, which have no job effect at all,
         * and cut each test's df to the ~25 betterments the spread rests on.
         * A real job effect (the jobs shape: half the variance) makes the
         * changes spread 4x what 3 runs of one job show, far beyond it. */
        double jobs_df,
            jobs = suite_noise_factor(tests, m, scratch, BETTERMENTS, 0, NULL, &jobs_df, &r->suite_heavy_tails);
        int measured = jobs > 0; /* enough betterments to read the jobs from */
        for (size_t i = 0; i < r->n; i++)
            for (size_t k = 0; k < r->entries[i].n_metrics; k++) {
                gate_metric_entry *g = &r->entries[i].metrics[k];
                if (!g->has_result || g->history_noise) continue;
                if (measured)
                    mcpp_metric_drop_between(&g->result);
                mcpp_metric_moderate(&g->result, g->runs_ss, g->runs_df, prior_var, weight);
            }
        /* The jobs, in each test's own standard errors once moderated: a
         * factor whose square is an F of (jobs_df, weight) df when the jobs
         * add nothing. */
        if (measured)
            jobs = suite_noise_factor(tests, m, scratch, BETTERMENTS, 0, NULL, &jobs_df, &r->suite_heavy_tails);
        if (!(jobs > 0) || !(mcpp_stats_f_sf(jobs * jobs, jobs_df, weight) < JOBS_PRETEST_LEVEL))
            return MCPP_OK;
        for (size_t i = 0; i < r->n; i++)
            for (size_t k = 0; k < r->entries[i].n_metrics; k++) {
                gate_metric_entry *g = &r->entries[i].metrics[k];
                if (g->has_result && !g->history_noise)
                    mcpp_metric_raise_between(&g->result, jobs * g->result.se, jobs_df);
            }
        return MCPP_OK;
    }
    /* Heavy tails the history read stand for the suite's own fit, but for a
     * single run a side: there one far-off run is the whole side, and the
     * history's per-lane spread of 20 heavy-tailed runs is too unsteady to
     * be the only guard (noise lab, heavy-tailed, 1 run: 5.5% of unchanged
     * merges failing without the suite's fit, 1.5% with it). */
    int one_run = 0;
    for (size_t i = 0; i < m; i++) one_run |= tests[i]->result.n_base == 1 || tests[i]->result.n_cand == 1;
    int tails_known = r->history_scores && (isinf(r->history_tail_df) || !one_run);
    /* With a history for most tests, each one's noise is its own and the
     * unchanged ones cluster (spread_of_changes) */
    size_t own = 0;
    for (size_t i = 0; i < m; i++)
        own += tests[i]->result.history_runs > 0;
    enum spread_reading reading = 2 * own >= m ? FIT_ABOUT_CLUSTER : FIT_ABOUT_MEDIAN;
    unsigned char *left_out = NULL;
    int rc = reading == FIT_ABOUT_CLUSTER ? mark_baseline_spikes(r, tests, m, &left_out) : MCPP_OK;
    if (rc)
        return rc;
    double floor_df,
        floor = suite_noise_factor(tests, m, scratch, reading, tails_known, left_out, &floor_df, &r->suite_heavy_tails);
    free(left_out);
    r->suite_run_sd = floor * rms_run_sd(tests, m);
    r->suite_df = floor_df;
    /* Heavy tails read from fewer betterments than SUITE_TELLS_TAILS say
     * nothing: the history has read the tails (they would not be fitted
     * otherwise), and each test with a history keeps them, unless its own
     * rounds lie in two modes (split_runs) */
    int history_tells = r->suite_heavy_tails > 0 && r->suite_heavy_tails < SUITE_TELLS_TAILS && r->history_scores;
    /* Tests whose noise the pooled history gives take the floor only for
     * heavy tails the suite found itself; history_spread_check guards them.
     * Each test's floor is the factor times its own noise, never a noisier
     * sibling's. */
    for (size_t i = 0; i < r->n && floor > 0; i++)
        for (size_t k = 0; k < r->entries[i].n_metrics; k++) {
            gate_metric_entry *g = &r->entries[i].metrics[k];
            if (!g->has_result || (g->history_noise && !r->suite_heavy_tails))
                continue;
            if (history_tells && g->result.history_runs && !g->split_runs) {
                r->history_tails_kept++;
                continue;
            }
            r->split_rounds += history_tells && g->split_runs;
            raise_by_factor(&g->result, floor, floor_df);
        }
    return MCPP_OK;
}

/* The one-sided level at which today's tests must contradict the history
 * before the gate stops trusting it. */
#define HISTORY_CHECK_LEVEL 0.05

/* The first of tests[0..i] with test i's metric. */
static size_t first_of_metric(gate_metric_entry *const *tests, size_t i)
{
    size_t j = 0;
    while (j < i && strcmp(tests[j]->result.metric, tests[i]->result.metric) != 0) j++;
    return j;
}

/* The common shift (docs/statistics.md). On a busy machine all benchmarks of
 * a run can move together: the machine slowed between the baselines' runs
 * and the candidates'. The median of the tests' log changes measures that
 * shift: taken whole beyond two of its standard errors, below that shrunk
 * toward none as far as its own noise could have made it (the positive part
 * of James and Stein's estimate, the shift's variance read as median² -
 * se²), and none within one. Each change is weighed by its precision (a
 * weighted median): the tests' noise differs from 1% to 40%. Where the benchmarks of a run move on their
 * own, the median of their changes is noise of its own, and the slowed ones
 * pull it their way (noise lab, 3 runs a side with a history, 200 merges,
 * power at 10%: bimodal 21.0% -> 22.9%, Gaussian 12.8% -> 15.6%); shrunk all
 * the way up, a real drift is under-taken by se²/median (slow drift, one
 * run a side with a history: 6.5% of 200 unchanged merges failing, 5.0%
 * taken whole). Within the allowance it is read as the machine's, and each
 * test asks whether its benchmark moved beyond it (the standard error
 * widened by the shift's own uncertainty, about pi/2 over the test count for
 * the median). A shift that the suite establishes beyond the allowance (by
 * z_q of the median's standard error: a machine that drifts by exactly the
 * allowance is not enough, slow drift, one run a side with a history: 19.5%
 * of 200 unchanged merges failing when a shift a hair beyond it counted) is
 * a regression of the whole suite: the tests then stay against no change, so
 * every benchmark beyond the allowance fails. Per metric name (a shift of
 * seconds says nothing of tokens/s), with SUITE_MIN_TESTS tests or more.
 * For each test, shift[i] is the log change (worse is positive) it is
 * measured from (the median when the whole suite regressed) and widen[i] the
 * variance that shift adds to a test measured from it, 0 when the tests stay
 * against no change. `scratch` holds 2m doubles. */
static void common_shifts(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, double q, double *shift,
                          double *widen, double *scratch)
{
    for (size_t i = 0; i < m; i++) shift[i] = widen[i] = 0;
    for (size_t i = 0; i < m; i++) {
        const char *metric = tests[i]->result.metric;
        size_t j, n = 0;
        double weight = 0;
        if (first_of_metric(tests, i) < i) continue;
        /* each change weighed by its precision, 1 / se²: a machine-wide shift
         * moves every benchmark by one factor, and a 1% benchmark says where
         * far better than a 40% one (unweighed, the noisy ones set the shift
         * and its uncertainty, and quiet tests centred on it failed) */
        for (j = i; j < m; j++) {
            const mcpp_metric_result *res = &tests[j]->result;
            if (strcmp(res->metric, metric) != 0 || !(res->se > 0))
                continue;
            scratch[2 * n] = (res->higher_is_better ? -1 : 1) * log1p(res->rel_delta);
            weight += scratch[2 * n + 1] = 1 / (res->se * res->se);
            n++;
        }
        if (n < SUITE_MIN_TESTS) continue;
        double median = mcpp_weighted_median_sorting(scratch, n); /* worse is positive */
        /* a median's standard error, sqrt(pi/2) that of the precision-weighed mean */
        double se = 1.2533 / sqrt(weight);
        double beyond = median - log1p(tests[i]->allowance);
        int regressed = beyond > 0 && beyond >= mcpp_stats_normal_quantile(1 - q) * se;
        double z2 = median * median / (se * se); /* the median in its standard errors, squared */
        double kept = z2 > 4 ? 1 : z2 > 1 ? 1 - 1 / z2 : 0;
        double at = regressed ? median : kept * median;
        if (regressed) r->suite_regressed = 1;
        if (regressed || i == 0) r->suite_shift = expm1(at);
        for (j = i; j < m; j++)
            if (strcmp(tests[j]->result.metric, metric) == 0)
                shift[j] = at, widen[j] = !regressed && kept > 0 ? kept * kept * se * se : 0;
    }
}

/* Tests each benchmark against the shift its suite shares (common_shifts);
 * every candidate of a pooled group carries the group's result. */
static void center_on_common_shifts(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m,
                                    const double *shift, const double *widen)
{
    for (size_t i = 0; i < m; i++) {
        if (!(widen[i] > 0) || first_of_metric(tests, i) < i) continue;
        for (size_t e = 0; e < r->n; e++)
            for (size_t k = 0; k < r->entries[e].n_metrics; k++) {
                mcpp_metric_result *res = &r->entries[e].metrics[k].result;
                /* each test's own error widened by the shift's variance, in its own units */
                if (r->entries[e].metrics[k].has_result && strcmp(res->metric, tests[i]->result.metric) == 0 &&
                    res->se > 0)
                    mcpp_metric_center(res, (res->higher_is_better ? -1 : 1) * shift[i],
                                       sqrt(1 + widen[i] / (res->se * res->se)));
            }
    }
}

/* The root mean square of the betterments of the tests with the history's
 * noise, in standard errors, about the shift each is measured from (or,
 * without `about_shift`, about none), and its df in *df. */
static double spread_of_betterments(gate_metric_entry *const *tests, size_t m, const double *shift, const double *widen,
                                    int about_shift, double *scratch, double *df)
{
    size_t n = 0;
    for (size_t i = 0; i < m; i++) {
        const mcpp_metric_result *res = &tests[i]->result;
        double from = about_shift && widen[i] > 0 ? shift[i] : 0; /* what the test is measured from */
        if (tests[i]->history_noise && res->se > 0)
            scratch[n++] = ((res->higher_is_better ? -1 : 1) * log1p(res->rel_delta) - from) / res->se;
    }
    int heavy;
    return spread_of_changes(scratch, n, BETTERMENTS, 0, 1, df, &heavy);
}

/* Whether the machine is as noisy today as the lanes' history says. Each
 * test with the history's noise (apply_history_noise) turns its change
 * beyond the common shift (shift[i], common_shifts) into standard errors,
 * and the root mean square of those below none, its betterments
 * (regressions cannot enter it; spread_of_changes), is 1 on a machine like
 * its history. About the shift, not their median: the slowed benchmarks pull
 * the median their way, and so the betterments' spread about it (noise lab,
 * bimodal, 3 runs a side, 40 merges: 12.5% of the merges with 10%
 * slowdowns widened, 7.5% of the unchanged ones). The shift only where the
 * tests are measured from it (widen[i] > 0): when the whole suite regressed
 * they stay against no change, and about the median of a suite whose
 * benchmarks were mostly slowed every unchanged one read as a betterment of
 * its own standard errors (real mixed-noise suite, 6 of 10 benchmarks slowed,
 * 3 runs a side: every test widened 3.7x and 6 of 10 real 30% slowdowns
 * caught; 9 of 10 about no change).
 * When it is larger beyond chance (its square beyond the chi-square
 * quantile of its degrees of freedom at HISTORY_CHECK_LEVEL, by Wilson and
 * Hilferty's approximation), every such test widens by it, with its degrees
 * of freedom. `scratch` holds 2m doubles. */
static void history_spread_check(mcpp_gate_report *r, gate_metric_entry *const *tests, size_t m, const double *shift,
                                 const double *widen, double *scratch)
{
    /* About no shift as well, when that spreads less: a shift the slowed
     * benchmarks pulled their way (the weighted median of a merge that
     * slowed six of ten by 5-30%) leaves the unchanged ones below it, and
     * they read as betterments of several standard errors (real mixed-noise
     * runs, Google Benchmark, one run a side with a history: a shift of
     * 2.4-4.4% taken, every test widened 2.8x with 3 df, 30% slowdowns
     * passed). A machine that moved moves every test, and about none they
     * spread far more than about its shift. */
    double df, df_none, ratio = spread_of_betterments(tests, m, shift, widen, 1, scratch, &df);
    double about_none = spread_of_betterments(tests, m, shift, widen, 0, scratch, &df_none);
    if (df_none >= 2 && about_none < ratio)
        ratio = about_none, df = df_none;
    if (!(df >= 2)) return;
    double a = 2 / (9 * df), chi = 1 - a + mcpp_stats_normal_quantile(1 - HISTORY_CHECK_LEVEL) * sqrt(a);
    r->history_spread = ratio;
    if (!(ratio * ratio > chi * chi * chi)) return;
    r->history_widened = 1;
    for (size_t e = 0; e < r->n; e++)
        for (size_t k = 0; k < r->entries[e].n_metrics; k++)
            if (r->entries[e].metrics[k].has_result && r->entries[e].metrics[k].history_noise)
                mcpp_metric_widen(&r->entries[e].metrics[k].result, ratio, df);
}

/* Multiplicity control over every metric test of the gate: first what the
 * suite says of each test's noise (above), then one Benjamini–Hochberg
 * cutoff at q = (1 - confidence) / 2 (one-sided, as each single test), so
 * that on an unchanged merge the gate fails with at most that probability
 * however many benchmarks it covers. */
int mcpp_gate_suite_noise(mcpp_gate_report *r, double q, double *threshold)
{
    size_t m = lane_tests(NULL, r, NULL, 0);
    gate_metric_entry **tests = malloc((m + 1) * sizeof *tests);
    double *pv = malloc((4 * m + 1) * sizeof *pv), *shift = pv + 2 * m, *widen = pv + 3 * m;
    unsigned char *shared = malloc(r->n + 1);
    int rc = tests && pv && shared ? mark_shared_baselines(r, shared) : mcpp_error_nomem();
    if (rc)
        goto done;
    /* What the suite measures comes from one test per baseline side (the
     * first ms of tests); every test is decided and counted (all m). */
    size_t ms = lane_tests(tests, r, shared, 0);
    lane_tests(tests + ms, r, shared, 1);
    if ((rc = history_tails(r, tests, ms)) || (rc = apply_history_noise(r, tests, ms, pv)))
        goto done;
    if ((rc = apply_suite_noise(r, tests, ms, pv)) || (rc = mcpp_gate_history_medians(r, tests, ms, q)) ||
        (rc = mcpp_gate_history_anchor(r, tests, ms)))
        goto done;
    common_shifts(r, tests, ms, q, shift, widen, pv);
    history_spread_check(r, tests, ms, shift, widen, pv);
    center_on_common_shifts(r, tests, ms, shift, widen);
    for (size_t j = 0; j < m; j++)
        pv[j] = tests[j]->result.p_value;
    double cutoff = m > 1 ? mcpp_stats_bh_cutoff(pv, m, q, pv + m) : q;
    /* The level decided: with k discoveries, Benjamini-Hochberg's line q k / m
     * (the same decisions as p <= the k-th smallest p, which lies under it,
     * and no p lies between); before any, the least p that would be one, q / m. */
    size_t k = 0, tested = 0;
    for (size_t j = 0; j < m; j++)
        tested += !isnan(pv[j]), k += cutoff >= 0 && pv[j] <= cutoff;
    *threshold = m <= 1 ? q : q * (double)(k ? k : 1) / (double)(tested ? tested : m);
    r->tests = m;
    r->fdr_q = q;
done:
    free(tests);
    free(pv);
    free(shared);
    return rc;
}
