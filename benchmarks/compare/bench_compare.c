/*
 * bench_compare.c — speed of the comparison engine: pair comparisons per
 * second with the default policy on one core, and frontier and gate time and
 * peak memory (RSS delta) for growing numbers of receipts made with the builder.
 * Optionally writes the receipts as JSON lines for pure_python_frontier.py,
 * which run.sh times on the same receipts to print one table with ratios.
 *
 * Output: one "key=value ..." line per measurement (run.sh parses them).
 * usage: bench_compare [--sizes N,N,...] [--jsonl-dir DIR] [--jsonl-max N]
 *                      [--seconds S] [--smoke]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcpp_receipts.h"

/* CPU time of this thread: the machine may be shared, and the question is
 * what one core does, so time spent descheduled is not counted. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* VmRSS or VmHWM of this process in KiB, from /proc (0 when unavailable). */
static long proc_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    long v = 0;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':') v = strtol(line + n + 1, NULL, 10);
    fclose(f);
    return v;
}

/* Resets VmHWM to the current RSS so the next peak is the frontier's own. */
static void reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static unsigned long long rng = 88172645463325252ULL;
static double unit(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

#define OK(call)                                                                           \
    do {                                                                                   \
        if ((call) != MCPP_OK) {                                                           \
            fprintf(stderr, "bench: %s failed: %s\n", #call, mcpp_error_last()->message); \
            exit(4);                                                                       \
        }                                                                                  \
    } while (0)

/* Receipt i of a set of n: lanes vary sequence length, top_k, MoE lane and dp;
 * every lane gets several runs, a few fail, some carry a fallback. */
static mcpp_receipt *make_receipt(mcpp_builder *b, size_t i, size_t lanes, int with_samples)
{
    static const char *moe[] = {"padded", "jagged", "block_sparse"};
    size_t l = i % lanes;
    char id[32], name[48];
    snprintf(id, sizeof id, "r%08zu", i);
    snprintf(name, sizeof name, "bench lane %zu", l);
    OK(mcpp_builder_set_string(b, "id", id));
    OK(mcpp_builder_set_string(b, "lane.name", name));
    OK(mcpp_builder_set_int(b, "workload.seq_len", (int64_t)(512 * (1 + l % 8))));
    OK(mcpp_builder_set_int(b, "routing.top_k", (int64_t)(1 + (l / 8) % 8)));
    OK(mcpp_builder_set_string(b, "backend.moe.requested", moe[(l / 64) % 3]));
    OK(mcpp_builder_set_string(b, "backend.moe.observed", moe[(l / 64) % 3]));
    OK(mcpp_builder_set_int(b, "topology.dp", (int64_t)(1 + l / 192)));
    OK(mcpp_builder_unset(b, "backend.fallbacks"));
    if (l % 13 == 0) OK(mcpp_builder_append_string(b, "backend.fallbacks", "gemm:cutlass->cublas"));
    /* Lanes 5, 16, 27, ... lose their first run. */
    OK(mcpp_builder_set_string(b, "status.outcome", l % 11 == 5 && i < lanes ? "failed" : "ok"));
    double speed = 1.0 + 0.004 * (unit() - 0.5);
    OK(mcpp_builder_unset(b, "metrics.step_time_s.samples"));
    OK(mcpp_builder_unset(b, "metrics.step_time_s.median"));
    if (with_samples)
        for (int s = 0; s < 8; s++) OK(mcpp_builder_add_step_sample(b, speed * (1.0 + 0.01 * (unit() - 0.5))));
    OK(mcpp_builder_set_double(b, "metrics.tokens_per_s", 262144.0 / speed));
    mcpp_receipt *r = NULL;
    OK(mcpp_builder_finish(&r, NULL, b));
    return r;
}

static mcpp_builder *make_builder(void)
{
    mcpp_builder *b = NULL;
    OK(mcpp_builder_new(&b));
    OK(mcpp_builder_set_string(b, "lane.family", "NAM56R"));
    OK(mcpp_builder_set_string(b, "lane.pattern", "AEMEAEMEAEMR"));
    OK(mcpp_builder_set_int(b, "lane.depth", 52));
    OK(mcpp_builder_set_int(b, "workload.micro_batch", 1));
    OK(mcpp_builder_set_int(b, "workload.global_batch", 64));
    OK(mcpp_builder_set_int(b, "workload.tokens_per_step", 262144));
    OK(mcpp_builder_set_int(b, "workload.useful_tokens_per_step", 262144));
    OK(mcpp_builder_set_string(b, "workload.data.path", "real"));
    OK(mcpp_builder_set_string(b, "workload.data.dataset", "fineweb-edu"));
    OK(mcpp_builder_set_string(b, "routing.mode", "token_choice"));
    OK(mcpp_builder_set_string(b, "routing.score", "softmax"));
    OK(mcpp_builder_set_int(b, "routing.num_experts", 64));
    OK(mcpp_builder_set_int(b, "routing.shared_experts", 1));
    OK(mcpp_builder_set_double(b, "routing.capacity_factor", 1.25));
    OK(mcpp_builder_set_string(b, "routing.overflow", "drop"));
    OK(mcpp_builder_set_string(b, "compile.posture", "regional"));
    OK(mcpp_builder_set_string(b, "compile.warmup", "explicit"));
    OK(mcpp_builder_set_string(b, "backend.precision", "bf16"));
    OK(mcpp_builder_set_string(b, "backend.attention.requested", "flash"));
    OK(mcpp_builder_set_string(b, "backend.attention.observed", "flash"));
    OK(mcpp_builder_set_string(b, "backend.mamba.requested", "triton"));
    OK(mcpp_builder_set_string(b, "backend.mamba.observed", "triton"));
    OK(mcpp_builder_set_string(b, "backend.recurrent.requested", "cuda"));
    OK(mcpp_builder_set_string(b, "backend.recurrent.observed", "cuda"));
    OK(mcpp_builder_set_string(b, "backend.verification.status", "passed"));
    OK(mcpp_builder_set_string(b, "hardware.requested.accelerator", "NVIDIA H100 80GB HBM3"));
    OK(mcpp_builder_set_int(b, "hardware.requested.count", 8));
    OK(mcpp_builder_set_string(b, "hardware.observed.accelerator", "NVIDIA H100 80GB HBM3"));
    OK(mcpp_builder_set_int(b, "hardware.observed.count", 8));
    OK(mcpp_builder_set_string(b, "topology.substrate", "cuda"));
    OK(mcpp_builder_set_int(b, "topology.nodes", 1));
    OK(mcpp_builder_set_int(b, "topology.tp", 1));
    OK(mcpp_builder_set_int(b, "topology.pp", 1));
    OK(mcpp_builder_set_int(b, "topology.ep", 8));
    OK(mcpp_builder_set_int(b, "topology.cp", 1));
    OK(mcpp_builder_set_string(b, "startup.state", "warm_cache"));
    OK(mcpp_builder_set_string(b, "status.stability", "stable"));
    return b;
}

static size_t lanes_for(size_t n)
{
    size_t l = n / 10;
    return l < 1 ? 1 : (l > 1000 ? 1000 : l);
}

static void write_jsonl(const char *dir, size_t n, mcpp_receipt **rs)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/receipts_%zu.jsonl", dir, n);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(4);
    }
    for (size_t i = 0; i < n; i++) {
        char *json = NULL;
        OK(mcpp_receipt_write(&json, NULL, rs[i], MCPP_FORMAT_JSON));
        for (char *p = json; *p; p++)
            if (*p == '\n') *p = ' '; /* JSON lines: whitespace outside strings only */
        fputs(json, f);
        fputc('\n', f);
        mcpp_free(json);
    }
    fclose(f);
}

/* Verdicts over m receipts in rotation: 256 stay in cache, 2048 (about 6 MB)
 * do not, which is what a large gate run looks like. */
static void bench_verdicts(size_t m, double seconds)
{
    mcpp_builder *b = make_builder();
    mcpp_receipt **rs = malloc(m * sizeof *rs);
    for (size_t i = 0; i < m; i++) rs[i] = make_receipt(b, i, 64, 1);
    mcpp_policy *p = NULL;
    OK(mcpp_policy_default(&p));
    size_t count = 0, comparable = 0;
    double t0 = now(), t1;
    do {
        for (size_t k = 0; k < 100000; k++, count++) {
            size_t i = count % m, j = (count & 1) ? (i + 64) % m : (i * 31 + 7) % m;
            mcpp_verdict v;
            mcpp_compare_verdict(&v, p, rs[i], rs[j]);
            comparable += v <= MCPP_VERDICT_QUALIFIED;
        }
        t1 = now();
    } while (t1 - t0 < seconds);
    printf("pairs kind=verdict_%zu_receipts n=%zu seconds=%.3f per_s=%.0f comparable=%zu\n", m, count, t1 - t0,
           (double)count / (t1 - t0), comparable);
    for (size_t i = 0; i < m; i++) mcpp_receipt_free(rs[i]);
    free(rs);
    mcpp_policy_free(p);
    mcpp_builder_free(b);
}

/* What an explained comparison is asked for after mcpp_compare. */
enum explain_use { USE_NOTHING, USE_ROWS, USE_JSON };

/* One explained comparison of pair `count`, used as asked; adds to *bytes
 * (text read) and *passed (gate outcomes) so nothing is optimised away. */
static void explain_one(const mcpp_policy *p, mcpp_receipt *const *set, size_t m, size_t count,
                        enum explain_use use, size_t *bytes, size_t *passed)
{
    size_t i = count % m, j = (count & 1) ? (i + 64) % m : (i * 31 + 7) % m;
    mcpp_comparison *c = NULL;
    OK(mcpp_compare(&c, p, set[i], set[j]));
    const mcpp_metric_result *metric = mcpp_comparison_metric(c);
    *passed += mcpp_comparison_gate(c) == MCPP_GATE_PASSED && metric && metric->interval_low < 1;
    if (use == USE_ROWS) {
        *bytes += strlen(mcpp_comparison_gate_reason(c));
        for (size_t r = 0; r < mcpp_comparison_row_count(c); r++)
            *bytes += strlen(mcpp_comparison_row_base(c, r)) + strlen(mcpp_comparison_row_reason(c, r));
    }
    if (use == USE_JSON) {
        char *json = NULL;
        OK(mcpp_comparison_render(&json, c, MCPP_OUTPUT_JSON));
        *bytes += strlen(json);
        mcpp_free(json);
    }
    mcpp_comparison_free(c);
}

/* Explained comparisons over M receipts, half the pairs in one lane
 * (comparable, the common case in a gate), half not. The baseline, the
 * verdict alone on the same pairs, runs in batches interleaved with them, so
 * both see the same load on a shared machine. */
static void bench_explained(const char *name, const mcpp_policy *p, mcpp_receipt **set, size_t m,
                            enum explain_use use, double seconds)
{
    enum { BATCH = 2000 };
    size_t count = 0, bytes = 0, passed = 0, comparable = 0;
    double explained_s = 0, verdict_s = 0;
    do {
        double t0 = now();
        for (size_t k = 0; k < BATCH; k++) {
            size_t c = count + k, i = c % m, j = (c & 1) ? (i + 64) % m : (i * 31 + 7) % m;
            mcpp_verdict v;
            OK(mcpp_compare_verdict(&v, p, set[i], set[j]));
            comparable += v <= MCPP_VERDICT_QUALIFIED;
        }
        double t1 = now();
        for (size_t k = 0; k < BATCH; k++) explain_one(p, set, m, count + k, use, &bytes, &passed);
        double t2 = now();
        verdict_s += t1 - t0;
        explained_s += t2 - t1;
        count += BATCH;
    } while (explained_s < seconds);
    printf("pairs kind=%s n=%zu seconds=%.3f per_s=%.0f verdict_per_s=%.0f comparable=%zu passed=%zu "
           "text_bytes=%zu\n",
           name, count, explained_s, (double)count / explained_s, (double)count / verdict_s, comparable, passed,
           bytes);
}

static void bench_pairs(double seconds)
{
    enum { M = 256 };
    bench_verdicts(256, seconds);
    bench_verdicts(2048, seconds);
    mcpp_builder *b = make_builder();
    mcpp_receipt **rs = malloc(M * sizeof *rs);
    mcpp_receipt **point = malloc(M * sizeof *point);
    for (size_t i = 0; i < M; i++) {
        rs[i] = make_receipt(b, i, 64, 1);
        point[i] = make_receipt(b, i, 64, 0);
    }
    mcpp_policy *p = NULL;
    OK(mcpp_policy_default(&p));
    /* mcpp_compare gives verdict, metric, interval and gate outcome; the rows
     * and the gate's reason are made when first read: the last two read them. */
    bench_explained("explained_point", p, point, M, USE_NOTHING, seconds);
    bench_explained("explained_samples", p, rs, M, USE_NOTHING, seconds);
    bench_explained("explained_samples_rows_read", p, rs, M, USE_ROWS, seconds);
    bench_explained("explained_samples_json_rendered", p, rs, M, USE_JSON, seconds);
    for (size_t i = 0; i < M; i++) {
        mcpp_receipt_free(rs[i]);
        mcpp_receipt_free(point[i]);
    }
    free(rs);
    free(point);
    mcpp_policy_free(p);
    mcpp_builder_free(b);
}

/* The gate as a merge check runs it: the last GATE_CANDIDATES receipts are
 * the pull request's runs, all the others its baselines. Each candidate is
 * compared with every baseline, so with a fixed number of candidates the gate
 * should grow linearly with the history. */
enum { GATE_CANDIDATES = 16 };
static void bench_gate(const mcpp_policy *p, mcpp_receipt **rs, size_t n, const char *kind)
{
    if (n <= GATE_CANDIDATES) return;
    size_t nb = n - GATE_CANDIDATES;
    reset_peak();
    long rss0 = proc_kib("VmRSS");
    double t0 = now();
    mcpp_gate_report *g = NULL;
    OK(mcpp_gate_run(&g, p, (const mcpp_receipt *const *)rs, nb, (const mcpp_receipt *const *)rs + nb,
                     GATE_CANDIDATES));
    double gate_s = now() - t0;
    long peak = proc_kib("VmHWM");
    printf("gate kind=%s n=%zu baselines=%zu candidates=%d gate_s=%.4f ns_per_pair=%.1f outcome=%s extra_kib=%ld\n",
           kind, n, nb, GATE_CANDIDATES, gate_s, gate_s * 1e9 / ((double)nb * GATE_CANDIDATES),
           mcpp_gate_outcome_name(mcpp_gate_report_outcome(g)), peak - rss0);
    fflush(stdout);
    mcpp_gate_report_free(g);
}

/* The gate over the history of ONE lane: every baseline is comparable with
 * every candidate, so each candidate pools all n ids (the worst case for the
 * pooling, which must stay linear). */
static void bench_gate_one_lane(size_t n)
{
    mcpp_builder *b = make_builder();
    mcpp_receipt **rs = malloc(n * sizeof *rs);
    if (!rs) exit(4);
    for (size_t i = 0; i < n; i++) rs[i] = make_receipt(b, i, 1, 1);
    mcpp_policy *p = NULL;
    OK(mcpp_policy_default(&p));
    bench_gate(p, rs, n, "one_lane");
    for (size_t i = 0; i < n; i++) mcpp_receipt_free(rs[i]);
    free(rs);
    mcpp_policy_free(p);
    mcpp_builder_free(b);
}

static void bench_frontier(size_t n, const char *jsonl_dir, size_t jsonl_max)
{
    size_t lanes = lanes_for(n);
    mcpp_builder *b = make_builder();
    long rss_start = proc_kib("VmRSS");
    double t0 = now();
    mcpp_receipt **rs = malloc(n * sizeof *rs);
    if (!rs) exit(4);
    for (size_t i = 0; i < n; i++) rs[i] = make_receipt(b, i, lanes, 1);
    double gen_s = now() - t0;
    long rss_loaded = proc_kib("VmRSS");
    if (jsonl_dir && n <= jsonl_max) write_jsonl(jsonl_dir, n, rs);
    mcpp_policy *p = NULL;
    OK(mcpp_policy_default(&p));
    mcpp_frontier *warm = NULL; /* builds the default policy's caches once */
    OK(mcpp_frontier_build(&warm, p, (const mcpp_receipt *const *)rs, n < 100 ? n : 100));
    mcpp_frontier_free(warm);
    reset_peak();
    long rss0 = proc_kib("VmRSS");
    t0 = now();
    mcpp_frontier *f = NULL;
    OK(mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)rs, n));
    double build_s = now() - t0;
    long peak = proc_kib("VmHWM");
    printf("frontier n=%zu lanes=%zu stable=%zu build_s=%.4f gen_s=%.3f receipts_kib=%ld "
           "extra_kib=%ld extra_bytes_per_receipt=%.0f\n",
           n, mcpp_frontier_lane_count(f), mcpp_frontier_stable_count(f), build_s, gen_s, rss_loaded - rss_start,
           peak - rss0, (double)(peak - rss0) * 1024.0 / (double)n);
    fflush(stdout);
    mcpp_frontier_free(f);
    bench_gate(p, rs, n, "many_lanes");
    for (size_t i = 0; i < n; i++) mcpp_receipt_free(rs[i]);
    free(rs);
    mcpp_policy_free(p);
    mcpp_builder_free(b);
}

int main(int argc, char **argv)
{
    const char *sizes = "1000,10000,100000,1000000";
    const char *jsonl_dir = NULL;
    size_t jsonl_max = 100000;
    double seconds = 1.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) sizes = argv[++i];
        else if (strcmp(argv[i], "--jsonl-dir") == 0 && i + 1 < argc) jsonl_dir = argv[++i];
        else if (strcmp(argv[i], "--jsonl-max") == 0 && i + 1 < argc) jsonl_max = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--smoke") == 0) {
            sizes = "200";
            seconds = 0.05;
        } else {
            fprintf(stderr, "usage: bench_compare [--sizes N,N,...] [--jsonl-dir DIR] [--jsonl-max N] "
                            "[--seconds S] [--smoke]\n");
            return 3;
        }
    }
    bench_pairs(seconds);
    for (const char *s = sizes; *s;) {
        char *end;
        size_t n = strtoul(s, &end, 10);
        if (n) bench_frontier(n, jsonl_dir, jsonl_max);
        if (n && n <= 100000) bench_gate_one_lane(n);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s) break;
    }
    return 0;
}
