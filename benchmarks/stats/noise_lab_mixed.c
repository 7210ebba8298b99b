/*
 * noise_lab_mixed.c — the noise lab on suites whose benchmarks differ in
 * noise, as real suites do (issue #46: 1% for a hash over 16 KiB, 38% for a
 * numpy sort, in one suite): how often the default gate fails unchanged
 * merges, and how many 10% and 30% slowdowns it catches, overall and on the
 * quiet benchmarks (own noise at most 5%), beside two rules that read each
 * benchmark's own history.
 *
 * A merge is one team's suite of K benchmarks (5, 10 or 50). Each benchmark's
 * run-to-run sd is drawn log-uniform from 1% to 40% for that merge, with a lane
 * history of 12 earlier runs of unchanged code; in one block of 2-4
 * consecutive history runs the machine was busy, and every benchmark ran
 * slower by one random 10-40% per run. The suite, its noise and its history
 * are drawn afresh for every merge: a cell then averages over many suites,
 * where one fixed draw of 5 sds would make a 5-benchmark cell's figure hang
 * on five numbers (a suite of quiet benchmarks, or of noisy ones). Each
 * side then has n runs (1 or 3; the 3 pool, one commit a side), each run 30
 * rounds around its whole-run shift (round sd half the run-to-run sd).
 * Regressed merges slow max(1, K/10) benchmarks by 10% or 30%.
 *
 * Rules, on the same merges:
 *   - the library's gate, default policy, without history and with the 12
 *     history runs (mcpp_gate_run_with_history);
 *   - conbench's rule: z = (candidate - mean of the lane's history) / sd of
 *     the history > 5 (the candidate: the mean of its runs' log medians);
 *   - per-benchmark thresholds at equal false positives: the same z against
 *     one multiplier c, each benchmark's threshold then its own history's
 *     mean + c sd, c tuned on 5x as many separate unchanged merges so that
 *     the share failing equals the gate's (with history) on the scored ones.
 * "Inconclusive" counts the tests the gate called so (an outcome named
 * "inconclusive" by mcpp_gate_outcome_name; 0 where the library has none).
 *
 *   noise_lab_mixed [--quick] [--merges M] [--suite K] [--runs N] [--seed S]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab_common.h"
#include "mcpp_receipts.h"

enum { ROUNDS = 30, HISTORY = 12, MAX_RUNS = 3, N_EFFECTS = 3, CALIBRATION = 5 };
static const double EFFECTS[N_EFFECTS] = {0, 0.10, 0.30};
static const double SD_LOW = 0.01, SD_HIGH = 0.40, QUIET = 0.05, Z_CONBENCH = 5;

/* ---- one merge ----------------------------------------------------------------------------- */

typedef struct run {
    double rounds[ROUNDS];
    double log_median; /* the run's headline, as log */
} run;

typedef struct merge {
    int k, runs, n_slowed;
    double *sd;                 /* [k] each benchmark's run-to-run sd of log time */
    int *slowed;                /* [k] */
    run *history, *base, *cand; /* [k * HISTORY], [k * runs], [k * runs] */
} merge;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A run of a benchmark whose true time is 1 ms: every round shares the run's shift. */
static void simulate_run(run *r, double sd, double shift)
{
    double whole = sd * lab_normal() + shift, sorted[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) r->rounds[i] = 1e-3 * exp(whole + 0.5 * sd * lab_normal());
    memcpy(sorted, r->rounds, sizeof sorted);
    qsort(sorted, ROUNDS, sizeof *sorted, cmp_double);
    r->log_median = log(0.5 * (sorted[ROUNDS / 2 - 1] + sorted[ROUNDS / 2]));
}

static void simulate(merge *m, double effect)
{
    for (int i = 0; i < m->k; i++) {
        m->sd[i] = SD_LOW * exp(log(SD_HIGH / SD_LOW) * lab_uniform());
        m->slowed[i] = 0;
    }
    for (int s = 0; effect > 0 && s < m->n_slowed; s++) {
        int i;
        do i = (int)(lab_uniform() * m->k);
        while (m->slowed[i]);
        m->slowed[i] = 1;
    }
    /* the busy block: 2-4 consecutive history runs, each slower by its own 10-40% */
    int block_len = 2 + (int)(lab_uniform() * 3), block_at = (int)(lab_uniform() * (HISTORY - block_len + 1));
    double load[HISTORY] = {0};
    for (int j = block_at; j < block_at + block_len; j++) load[j] = log(1.10 + 0.30 * lab_uniform());
    for (int i = 0; i < m->k; i++) {
        for (int j = 0; j < HISTORY; j++) simulate_run(&m->history[i * HISTORY + j], m->sd[i], load[j]);
        for (int j = 0; j < m->runs; j++) {
            simulate_run(&m->base[i * m->runs + j], m->sd[i], 0);
            simulate_run(&m->cand[i * m->runs + j], m->sd[i], m->slowed[i] ? log(1 + effect) : 0);
        }
    }
}

/* ---- the library's gate -------------------------------------------------------------------- */

/* A pytest-benchmark-like receipt: one run of benchmark `i`, its rounds as
 * samples; one commit a side: the runs of one side are runs of the same code, and pool. */
static mcpp_receipt *receipt_of(const run *r, int i, const char *side, int j)
{
    char name[32], id[64];
    snprintf(name, sizeof name, "bench_%03d", i);
    snprintf(id, sizeof id, "%s-%03d-run%02d", side, i, j);
    return lab_receipt("noise_lab_mixed", name, id,
                       side[0] == 'b'   ? "ba5e0001"
                       : side[0] == 'c' ? "ca4d0001"
                                        : "11570001",
                       exp(r->log_median), r->rounds, ROUNDS);
}

/* The gate's verdict on each benchmark: 2 failed, 1 inconclusive, 0 otherwise
 * (a benchmark is one test, however many runs its side has). */
static void gate_verdicts(const mcpp_policy *p, const merge *m, mcpp_receipt **base, mcpp_receipt **cand,
                          mcpp_receipt **history, size_t nh, int *verdict)
{
    size_t n = (size_t)m->k * (size_t)m->runs;
    mcpp_gate_report *r = NULL;
    if (mcpp_gate_run_with_history(&r, p, (const mcpp_receipt *const *)base, n, (const mcpp_receipt *const *)cand, n,
                                   (const mcpp_receipt *const *)history, nh) != MCPP_OK) {
        fprintf(stderr, "noise_lab_mixed: gate failed: %s\n", mcpp_error_last()->message);
        exit(4);
    }
    for (int i = 0; i < m->k; i++) verdict[i] = 0;
    /* the benchmark from the candidate's id ("cand-007-run02"): right however the report groups its runs */
    for (size_t c = 0; c < mcpp_gate_report_count(r); c++) {
        const char *id = mcpp_gate_report_candidate_id(r, c);
        int i = -1, outcome = mcpp_gate_report_entry_outcome(r, c);
        if (!id || sscanf(id, "cand-%d-run", &i) != 1 || i < 0 || i >= m->k)
            continue;
        if (outcome == MCPP_GATE_FAILED)
            verdict[i] = 2;
        else if (verdict[i] == 0 && strcmp(mcpp_gate_outcome_name((mcpp_gate_outcome)outcome), "inconclusive") == 0)
            verdict[i] = 1;
    }
    mcpp_gate_report_free(r);
}

/* ---- the history rules --------------------------------------------------------------------- */

/* Benchmark i's z: the candidate's mean log headline against its history's mean and sd. */
static double history_z(const merge *m, int i)
{
    double sum = 0, sq = 0, cand = 0;
    for (int j = 0; j < HISTORY; j++) sum += m->history[i * HISTORY + j].log_median;
    double mean = sum / HISTORY;
    for (int j = 0; j < HISTORY; j++) {
        double d = m->history[i * HISTORY + j].log_median - mean;
        sq += d * d;
    }
    for (int j = 0; j < m->runs; j++) cand += m->cand[i * m->runs + j].log_median;
    return (cand / m->runs - mean) / sqrt(sq / (HISTORY - 1));
}

/* ---- tallies ------------------------------------------------------------------------------- */

typedef struct tally {
    int merges_failing[N_EFFECTS]; /* merges with an unchanged benchmark flagged */
    int hit[N_EFFECTS], slowed[N_EFFECTS];
    int quiet_hit[N_EFFECTS], quiet_slowed[N_EFFECTS];
    int inconclusive; /* tests, all effects */
} tally;

static void count(tally *t, int e, const merge *m, const int *flagged, const int *inconclusive)
{
    int any = 0;
    for (int i = 0; i < m->k; i++) {
        if (!m->slowed[i]) any |= flagged[i];
        else {
            t->hit[e] += flagged[i], t->slowed[e]++;
            if (m->sd[i] <= QUIET) t->quiet_hit[e] += flagged[i], t->quiet_slowed[e]++;
        }
        if (inconclusive) t->inconclusive += inconclusive[i];
    }
    t->merges_failing[e] += any;
}

static double pct(int a, int b) { return b ? 100.0 * a / b : NAN; }

static void print_row(const char *rule, int k, int runs, const tally *t, int merges)
{
    char inconclusive[32] = "-";
    if (t->inconclusive >= 0) snprintf(inconclusive, sizeof inconclusive, "%d", t->inconclusive);
    printf("| %d | %d | %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% (%d) | %s |\n", k, runs, rule,
           pct(t->merges_failing[0], merges), pct(t->hit[1], t->slowed[1]), pct(t->hit[2], t->slowed[2]),
           pct(t->quiet_hit[2], t->quiet_slowed[2]), t->quiet_slowed[2], inconclusive);
    fflush(stdout);
}

/* The multiplier c at which the share of calibration merges whose largest
 * unchanged z exceeds c is at most `fp`: the (1 - fp) quantile of those maxima. */
static double tuned_multiplier(double *max_z, int n, double fp)
{
    qsort(max_z, (size_t)n, sizeof *max_z, cmp_double);
    int allowed = (int)floor(fp * n + 1e-9);
    return allowed >= n ? -INFINITY : max_z[n - 1 - allowed];
}

/* ---- one cell ------------------------------------------------------------------------------ */

static void run_cell(const mcpp_policy *policy, int k, int runs, int merges, uint64_t seed)
{
    merge m = {k,
               runs,
               k / 10 > 1 ? k / 10 : 1,
               calloc((size_t)k, sizeof(double)),
               calloc((size_t)k, sizeof(int)),
               calloc((size_t)k * HISTORY, sizeof(run)),
               calloc((size_t)k * runs, sizeof(run)),
               calloc((size_t)k * runs, sizeof(run))};
    size_t n = (size_t)k * (size_t)runs;
    mcpp_receipt **rb = calloc(n, sizeof *rb), **rc = calloc(n, sizeof *rc);
    mcpp_receipt **rh = calloc((size_t)k * HISTORY, sizeof *rh);
    int *verdict = calloc((size_t)k, sizeof(int)), *flagged = calloc((size_t)k, sizeof(int));
    int *inconclusive = calloc((size_t)k, sizeof(int));
    /* z of every benchmark of every scored merge, kept to score the tuned rule once c is known */
    double *z = calloc((size_t)N_EFFECTS * merges * k, sizeof(double)),
           *max_z = calloc((size_t)CALIBRATION * merges, sizeof(double));
    int *slowed = calloc((size_t)N_EFFECTS * merges * k, sizeof(int));
    double *sd = calloc((size_t)N_EFFECTS * merges * k, sizeof(double));
    if (!m.sd || !m.slowed || !m.history || !m.base || !m.cand || !rb || !rc || !rh || !verdict || !flagged ||
        !inconclusive || !z || !max_z || !slowed || !sd)
        exit(4);
    tally gate = {0}, gate_history = {0}, conbench = {0}, tuned = {0};
    conbench.inconclusive = tuned.inconclusive = -1;
    lab_rng_state = seed * 1000003u + (uint64_t)k * 101u + (uint64_t)runs;
    time_t started = time(NULL);
    for (int e = 0; e < N_EFFECTS; e++)
        for (int mi = 0; mi < merges; mi++) {
            simulate(&m, EFFECTS[e]);
            for (size_t x = 0; x < n; x++) {
                rb[x] = receipt_of(&m.base[x], (int)(x / (size_t)runs), "base", (int)(x % (size_t)runs));
                rc[x] = receipt_of(&m.cand[x], (int)(x / (size_t)runs), "cand", (int)(x % (size_t)runs));
            }
            for (int x = 0; x < k * HISTORY; x++) rh[x] = receipt_of(&m.history[x], x / HISTORY, "hist", x % HISTORY);
            for (int pass = 0; pass < 2; pass++) {
                gate_verdicts(policy, &m, rb, rc, rh, pass ? (size_t)k * HISTORY : 0, verdict);
                for (int i = 0; i < k; i++) flagged[i] = verdict[i] == 2, inconclusive[i] = verdict[i] == 1;
                count(pass ? &gate_history : &gate, e, &m, flagged, inconclusive);
            }
            for (int i = 0; i < k; i++) {
                size_t at = ((size_t)e * merges + mi) * k + i;
                z[at] = history_z(&m, i), slowed[at] = m.slowed[i], sd[at] = m.sd[i];
                flagged[i] = z[at] > Z_CONBENCH;
            }
            count(&conbench, e, &m, flagged, NULL);
            for (size_t x = 0; x < n; x++) mcpp_receipt_free(rb[x]), mcpp_receipt_free(rc[x]);
            for (int x = 0; x < k * HISTORY; x++) mcpp_receipt_free(rh[x]);
            int done = e * merges + mi + 1;
            if (done % 50 == 0 || done == N_EFFECTS * merges)
                fprintf(stderr, "  suite %d, %d run%s a side: %d/%d merges (%.0f s)\n", k, runs, runs > 1 ? "s" : "",
                        done, N_EFFECTS * merges, difftime(time(NULL), started));
        }
    /* the tuned rule: c from separate unchanged merges, at the gate's (with history) false positives */
    for (int mi = 0; mi < CALIBRATION * merges; mi++) {
        simulate(&m, 0);
        double worst = -INFINITY;
        for (int i = 0; i < k; i++) {
            double zi = history_z(&m, i);
            worst = zi > worst ? zi : worst;
        }
        max_z[mi] = worst;
    }
    double *own_sd = m.sd;
    int *own_slowed = m.slowed;
    double c = tuned_multiplier(max_z, CALIBRATION * merges, pct(gate_history.merges_failing[0], merges) / 100);
    for (int e = 0; e < N_EFFECTS; e++)
        for (int mi = 0; mi < merges; mi++) {
            size_t at = ((size_t)e * merges + mi) * k;
            m.slowed = &slowed[at], m.sd = &sd[at];
            for (int i = 0; i < k; i++) flagged[i] = z[at + i] > c;
            count(&tuned, e, &m, flagged, NULL);
        }
    char label[80];
    print_row("gate, default policy", k, runs, &gate, merges);
    print_row("gate + 12 runs history", k, runs, &gate_history, merges);
    print_row("conbench z > 5 (history)", k, runs, &conbench, merges);
    snprintf(label, sizeof label, "own threshold, mean + %.2f sd (tuned)", c);
    print_row(label, k, runs, &tuned, merges);
    free(verdict), free(flagged), free(inconclusive), free(z), free(max_z), free(slowed), free(sd);
    free(rb), free(rc), free(rh), free(m.history), free(m.base), free(m.cand), free(own_sd), free(own_slowed);
}

static int usage(FILE *to)
{
    fprintf(to, "usage: noise_lab_mixed [--quick] [--merges M] [--suite K] [--runs N] [--seed S]\n"
                "Simulated suites of 5, 10 and 50 benchmarks whose run-to-run noise is drawn log-uniform\n"
                "from 1%% to 40%%, with a 12-run lane history holding one busy block; prints, per suite size\n"
                "and runs a side (1, 3), the gate's and the history rules' unchanged merges failing and\n"
                "slowdowns caught (--suite K: 5, 10 or 50; --runs N: 1 or 3; default all, 200 merges).\n");
    return to == stdout ? 0 : 3;
}

int main(int argc, char **argv)
{
    int merges = 200, quick = 0, only_suite = 0, only_runs = 0;
    uint64_t seed = 2026;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--merges") == 0 && i + 1 < argc) merges = atoi(argv[++i]);
        else if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc) only_suite = atoi(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) only_runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return usage(stdout);
        else {
            fprintf(stderr, "noise_lab_mixed: unknown argument '%s'\n", argv[i]);
            return usage(stderr);
        }
    }
    if (only_suite && only_suite != 5 && only_suite != 10 && only_suite != 50) {
        fprintf(stderr, "noise_lab_mixed: --suite %d: expected 5, 10 or 50\n", only_suite);
        return 3;
    }
    if (only_runs && only_runs != 1 && only_runs != 3) {
        fprintf(stderr, "noise_lab_mixed: --runs %d: expected 1 or 3\n", only_runs);
        return 3;
    }
    if (merges < 1) {
        fprintf(stderr, "noise_lab_mixed: --merges %d: expected at least 1\n", merges);
        return 3;
    }
    if (quick) merges = merges > 4 ? 4 : merges;
    mcpp_policy *policy = NULL;
    if (mcpp_policy_default(&policy) != MCPP_OK) {
        fprintf(stderr, "noise_lab_mixed: the default policy: %s\n", mcpp_error_last()->message);
        return 3;
    }
    printf("noise lab, mixed noise: run-to-run sd log-uniform %.0f%%-%.0f%% per benchmark (drawn per merge), "
           "12 history runs with one busy block (2-4 runs, +10-40%%), %d rounds a run, max(1, K/10) benchmarks "
           "slowed, %d merges per cell and effect, seed %llu; quiet: own sd <= %.0f%%\n\n",
           100 * SD_LOW, 100 * SD_HIGH, ROUNDS, merges, (unsigned long long)seed, 100 * QUIET);
    printf("| suite | runs a side | rule | unchanged merges failing | 10%% caught | 30%% caught | 30%% caught, quiet "
           "(tests) | inconclusive |\n|---|---|---|---|---|---|---|---|\n");
    static const int SUITES[] = {5, 10, 50}, RUNS[] = {1, 3};
    for (int s = 0; s < 3; s++)
        for (int r = 0; r < 2; r++)
            if ((!only_suite || only_suite == SUITES[s]) && (!only_runs || only_runs == RUNS[r]) &&
                !(quick && SUITES[s] == 50))
                run_cell(policy, SUITES[s], RUNS[r], merges, seed);
    mcpp_policy_free(policy);
    return 0;
}
