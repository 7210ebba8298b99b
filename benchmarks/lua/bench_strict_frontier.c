/*
 * bench_strict_frontier.c — the frontier of one lane under strict.lua, against
 * the default policy on the same runs (issue 29, item 8).
 *
 * strict.lua's rules used to see both sides of a pair, so the frontier
 * compared every pair of a lane's runs: 0.24 s at 250 runs, 3.8 s at 1,000.
 * They are per-run rules now (`each = function(run, side)`). For lanes of
 * 250, 500, 1,000 and 4,000 clean runs this prints the frontier's CPU time
 * under the built-in default policy (no Lua), the shipped strict.lua and the
 * old pairwise strict.lua (its text before the change; only up to
 * --pairwise-max runs, it is quadratic), each the best of --repeat builds,
 * and the log-log slope of each curve between neighbouring sizes and over
 * the whole range (1 is linear, 2 quadratic).
 *
 * usage: bench_strict_frontier POLICY_DIR [--sizes 250,500,1000,4000]
 *                              [--pairwise-max 1000] [--repeat 3]
 * Numbers are printed, never asserted (tests must not time things).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/policy_lua.h"

/* policy/strict.lua before its rules became per-run (same settings). */
static const char OLD_STRICT[] =
    "return {\n"
    "  include = { 'default.lua' }, name = 'strict', version = 1,\n"
    "  dimensions = { must_match = { 'startup', 'cache' } },\n"
    "  noise = { max_rel_spread = 0.03, min_runs = 5, noise_floor = 0.005, run_to_run = 0.02 },\n"
    "  gate = { max_regression = 0.02, confidence = 0.99 },\n"
    "  rules = {\n"
    "    { name = 'enough_samples', fn = function(base, cand)\n"
    "        for _, side in ipairs({ { 'base', base }, { 'candidate', cand } }) do\n"
    "          local samples = side[2].metrics.step_time_s.samples\n"
    "          local n = samples and #samples or 0\n"
    "          if n < 10 then return 'insufficient', ('%s has %d step samples; strict needs 10'):format(side[1], n) end\n"
    "        end\n"
    "      end },\n"
    "    { name = 'verification_recorded', fn = function(base, cand)\n"
    "        for _, side in ipairs({ { 'base', base }, { 'candidate', cand } }) do\n"
    "          if side[2].backend.verification.status == nil then\n"
    "            return 'mismatch', side[1] .. ' records no kernel verification; strict needs one'\n"
    "          end\n"
    "        end\n"
    "      end },\n"
    "  },\n"
    "}\n";

/* One run of the lane: every field strict asks for, 12 step samples. */
static const char RUN_FORMAT[] =
    "{\"schema\":\"mcpp.receipt/1\",\"id\":\"strict-run-%zu\","
    "\"lane\":{\"name\":\"NAM56R hybrid MoE lane\",\"family\":\"NAM56R\",\"pattern\":\"AEMEAEMEAEMR\",\"depth\":52},"
    "\"workload\":{\"seq_len\":4096,\"micro_batch\":1,\"global_batch\":64,\"tokens_per_step\":262144,"
    "\"useful_tokens_per_step\":262144,\"data\":{\"path\":\"real\",\"dataset\":\"fineweb-edu\"}},"
    "\"routing\":{\"mode\":\"token_choice\",\"score\":\"sigmoid\",\"num_experts\":64,\"top_k\":2,\"shared_experts\":1,"
    "\"capacity_factor\":1.25,\"overflow\":\"drop\"},"
    "\"compile\":{\"posture\":\"regional\",\"warmup\":\"explicit\",\"graph_breaks\":0},"
    "\"backend\":{\"precision\":\"bf16\",\"attention\":{\"requested\":\"flash\",\"observed\":\"flash\"},"
    "\"moe\":{\"requested\":\"jagged\",\"observed\":\"jagged\"},\"verification\":{\"status\":\"passed\",\"max_rel_err\":0.001}},"
    "\"hardware\":{\"requested\":{\"accelerator\":\"NVIDIA H100 80GB HBM3\",\"count\":8},"
    "\"observed\":{\"accelerator\":\"NVIDIA H100 80GB HBM3\",\"count\":8,\"driver\":\"550.54\",\"runtime\":\"12.4\"}},"
    "\"topology\":{\"substrate\":\"cuda\",\"nodes\":1,\"tp\":1,\"pp\":1,\"ep\":8,\"cp\":1,\"dp\":8,\"sp\":false,\"fsdp\":false},"
    "\"startup\":{\"state\":\"warm_cache\"},"
    "\"metrics\":{\"step_time_s\":{\"samples\":[%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f]},"
    "\"tokens_per_s\":%.3f},"
    "\"status\":{\"outcome\":\"ok\",\"stability\":\"stable\"}}";

static mcpp_receipt *make_run(size_t i)
{
    double scale = 1 + 0.002 * (double)((i * 7) % 9) - 0.008, s[12];
    for (int k = 0; k < 12; k++) s[k] = scale * (1 + 0.001 * (double)((k * 5) % 7));
    char text[4096];
    snprintf(text, sizeof text, RUN_FORMAT, i, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10],
             s[11], 262144 / scale);
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_buffer(&r, NULL, text, strlen(text), MCPP_FORMAT_JSON, "generated", NULL) != MCPP_OK) {
        fprintf(stderr, "generated run: %s\n", mcpp_error_last()->message);
        exit(1);
    }
    return r;
}

/* CPU time of the process (all threads): on a shared machine wall time
 * measures the neighbours as much as the code. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best of `repeat` frontier builds; *stable says the one lane came out stable. */
static double frontier_s(const mcpp_policy *p, mcpp_receipt **r, size_t n, int repeat, int *stable)
{
    double best = -1;
    for (int k = 0; k < repeat; k++) {
        mcpp_frontier *f = NULL;
        double t0 = cpu_s();
        if (mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)r, n) != MCPP_OK) {
            fprintf(stderr, "frontier: %s\n", mcpp_error_last()->message);
            exit(1);
        }
        double dt = cpu_s() - t0;
        *stable = mcpp_frontier_lane_count(f) == 1 && mcpp_frontier_stable_count(f) == 1;
        mcpp_frontier_free(f);
        if (best < 0 || dt < best) best = dt;
    }
    return best;
}

static mcpp_policy *load(const char *dir, const char *file, const char *text)
{
    static mcpp_lua_limits lim;
    mcpp_lua_limits_default(&lim);
    lim.max_total_ms = -1; /* a long run of rule calls is what is measured */
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    mcpp_policy *p = NULL;
    int rc = text ? mcpp_policy_load_lua_buffer(&p, text, strlen(text), path, &lim)
                  : mcpp_policy_load_lua_file(&p, path, &lim);
    if (rc != MCPP_OK) {
        fprintf(stderr, "%s: %s\n", file, mcpp_error_last()->message);
        exit(1);
    }
    return p;
}

static double slope(double n0, double t0, double n1, double t1)
{
    return t0 > 0 && t1 > 0 ? log(t1 / t0) / log(n1 / n0) : NAN;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s POLICY_DIR [--sizes 250,500,1000,4000] [--pairwise-max 1000] [--repeat 3]\n",
                argv[0]);
        return 2;
    }
    const char *dir = argv[1], *sizes_arg = "250,500,1000,4000";
    size_t pairwise_max = 1000;
    int repeat = 3;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--sizes") == 0) sizes_arg = argv[i + 1];
        else if (strcmp(argv[i], "--pairwise-max") == 0) pairwise_max = (size_t)atol(argv[i + 1]);
        else if (strcmp(argv[i], "--repeat") == 0) repeat = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : 1;
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    size_t sizes[16], n_sizes = 0, most = 0;
    for (const char *s = sizes_arg; *s && n_sizes < 16;) {
        sizes[n_sizes] = (size_t)strtoul(s, (char **)&s, 10);
        if (sizes[n_sizes] > most) most = sizes[n_sizes];
        n_sizes += sizes[n_sizes] > 0;
        if (*s == ',') s++;
        else break;
    }
    mcpp_policy *def = NULL;
    if (mcpp_policy_default(&def) != MCPP_OK) return 1;
    mcpp_policy *strict = load(dir, "strict.lua", NULL), *pairwise = load(dir, "old_strict.lua", OLD_STRICT);
    mcpp_receipt **runs = malloc(most * sizeof *runs);
    if (!runs) return 1;
    for (size_t i = 0; i < most; i++) runs[i] = make_run(i);

    double t_def[16], t_strict[16], t_pair[16];
    printf("frontier of one lane, CPU seconds (best of %d)\n", repeat);
    printf("%8s  %12s  %12s  %12s  %10s\n", "runs", "default", "strict.lua", "old strict", "strict/def");
    for (size_t k = 0; k < n_sizes; k++) {
        size_t n = sizes[k];
        int s_def = 0, s_strict = 0, s_pair = 0;
        t_def[k] = frontier_s(def, runs, n, repeat, &s_def);
        t_strict[k] = frontier_s(strict, runs, n, repeat, &s_strict);
        t_pair[k] = n <= pairwise_max ? frontier_s(pairwise, runs, n, 1, &s_pair) : -1;
        char pair_text[32] = "(skipped)";
        if (t_pair[k] >= 0) snprintf(pair_text, sizeof pair_text, "%.4f", t_pair[k]);
        printf("%8zu  %12.4f  %12.4f  %12s  %9.1fx%s\n", n, t_def[k], t_strict[k], pair_text,
               t_def[k] > 0 ? t_strict[k] / t_def[k] : 0.0,
               s_def && s_strict && (t_pair[k] < 0 || s_pair) ? "" : "  (a lane not stable: check the runs)");
    }
    printf("\nlog-log slope of seconds over runs (1 linear, 2 quadratic)\n");
    printf("%-20s  %12s  %12s  %12s\n", "sizes", "default", "strict.lua", "old strict");
    /* neighbouring sizes, then the whole range (the last size the old strict ran at) */
    for (size_t k = 0; k < n_sizes; k++) {
        size_t a = k + 1 < n_sizes ? k : 0, b = k + 1 < n_sizes ? k + 1 : n_sizes - 1, pb = b;
        if (a == b || (k + 1 == n_sizes && n_sizes < 3)) break; /* two sizes: one slope */
        while (pb > a && t_pair[pb] < 0) pb--;
        char label[40], pair_text[32] = "-";
        snprintf(label, sizeof label, "%zu -> %zu%s", sizes[a], sizes[b], k + 1 < n_sizes ? "" : " (all)");
        if (pb > a && t_pair[a] >= 0)
            snprintf(pair_text, sizeof pair_text, "%.2f", slope((double)sizes[a], t_pair[a], (double)sizes[pb], t_pair[pb]));
        printf("%-20s  %12.2f  %12.2f  %12s\n", label, slope((double)sizes[a], t_def[a], (double)sizes[b], t_def[b]),
               slope((double)sizes[a], t_strict[a], (double)sizes[b], t_strict[b]), pair_text);
    }
    for (size_t i = 0; i < most; i++) mcpp_receipt_free(runs[i]);
    free(runs);
    mcpp_policy_free(def);
    mcpp_policy_free(strict);
    mcpp_policy_free(pairwise);
    return 0;
}
