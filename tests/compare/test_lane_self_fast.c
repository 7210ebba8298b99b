/*
 * test_lane_self_fast.c — the lanes' fast self-check gives what rendering the
 * rows of every self-comparison gives. A lane sorts each receipt by comparing
 * it with itself; the fast path renders those rows only when the self-verdict
 * is insufficient or not comparable. On every example receipt and on variants
 * that make a row fire (key fields absent, not applicable or not recorded
 * dimensions, failed verification, fallbacks, unmet requests, required fields,
 * rules that reject a run), under the shipped policies and a few built here:
 * the self-verdict is bad exactly when mcpp_compare_verdict(r, r) is, and a
 * summary built the fast way serializes to the same text, with the same
 * clean flags, as one built by always rendering the rows. A large frontier
 * whose hashes and self-verdicts are computed ahead on threads is the same
 * frontier as one computed inline.
 */
#define _DEFAULT_SOURCE /* DT_DIR */
#include <dirent.h>

#include "../test_util.h"
#include "analysis/compare_internal.h"
#include "analysis/frontier_internal.h"
#include "analysis/lane_internal.h"
#include "fixtures.h"

#ifndef MCPP_EXAMPLES_DIR
#error "MCPP_EXAMPLES_DIR must name examples/receipts"
#endif
#ifndef MCPP_POLICY_DIR
#error "MCPP_POLICY_DIR must name policy/"
#endif

#define CHECK_OK(x) CHECK((x) == MCPP_OK)
/* CHECK with a line saying which case failed; cond is evaluated once. */
#define CHECK_MSG(cond, ...)                     \
    do {                                         \
        int ok_ = (cond);                        \
        if (!ok_) {                              \
            fprintf(stderr, __VA_ARGS__);        \
            fputc('\n', stderr);                 \
        }                                        \
        CHECK(ok_);                              \
    } while (0)

enum { MAX_RECEIPTS = 256 };
static mcpp_receipt *receipts[MAX_RECEIPTS];
static size_t n_receipts;

static void keep(mcpp_receipt *r)
{
    if (n_receipts < MAX_RECEIPTS) receipts[n_receipts++] = r;
    else mcpp_receipt_free(r);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* Every receipt file under dir (the examples also hold logs and a README). */
static void load_examples(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR) {
            load_examples(path);
        } else if (has_suffix(path, ".json") || has_suffix(path, ".yaml")) {
            mcpp_receipt *r = NULL;
            if (mcpp_receipt_load_file(&r, NULL, path, NULL) == MCPP_OK) keep(r);
            else fprintf(stderr, "skipped %s (not a receipt: %s)\n", path, mcpp_error_last()->message);
        }
    }
    closedir(d);
}

/* Variants of the fixture receipt, each making some self-comparison row speak. */
static void add_variants(void)
{
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"plain\""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"no-seq\"", "\"seq_len\":4096,", ""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"no-data\"", ",\"data\":{\"path\":\"real\",\"dataset\":\"fineweb-edu\"}", ""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"no-startup\"", "\"startup\":{\"state\":\"warm_cache\"},", ""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"cold\"", "warm_cache", "cold_boot"));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"verif-failed\"", "\"status\":\"passed\"", "\"status\":\"failed\""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"moe-unmet\"", "\"observed\":\"jagged\"", "\"observed\":\"padded\""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"hw-unmet\"", "\"count\":8,\"driver\"", "\"count\":4,\"driver\""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"fallback\"", "\"verification\":{",
             "\"fallbacks\":[\"moe: jagged -> padded\"],\"verification\":{"));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"dense\"", "\"family\":\"NAM56R\",", "", "AEMEAEMEAEMR", "AMAMAMAMAMAM",
             "\"routing\":{\"mode\":\"token_choice\",\"score\":\"sigmoid\",\"num_experts\":64,\"top_k\":2,"
             "\"shared_experts\":1,\"capacity_factor\":1.25,\"overflow\":\"drop\"},",
             ""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"no-routing-score\"", "\"score\":\"sigmoid\",", ""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"no-topology\"",
             "\"topology\":{\"substrate\":\"cuda\",\"nodes\":1,\"tp\":1,\"pp\":1,\"ep\":8,\"cp\":1,\"dp\":8,\"sp\":false,"
             "\"fsdp\":false},",
             ""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"short-seq\"", "\"seq_len\":4096", "\"seq_len\":1024"));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"failed-run\"", "\"outcome\":\"ok\"", "\"outcome\":\"failed\""));
    keep(FIX("\"id\":\"base-1\"", "\"id\":\"few-samples\"", "[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]", "[1.0]"));
}

/* A rule that rejects short sequences even against themselves, one that only
 * qualifies, and required fields some receipts lack. */
static const char REJECT_SHORT[] =
    "return { include = { \"default.lua\" }, name = \"reject_short\",\n"
    "  rules = {\n"
    "    { name = \"short\", fn = function(b, c)\n"
    "        local x = b.workload and b.workload.seq_len\n"
    "        if x and x < 2048 then return \"mismatch\", \"sequence shorter than 2048\" end end },\n"
    "    { name = \"cold\", fn = function(b, c)\n"
    "        if b.startup and b.startup.state == \"cold_boot\" then return \"qualify\", \"cold start\" end end },\n"
    "    { name = \"needs_samples\", fn = function(b, c)\n"
    "        if not (b.metrics and b.metrics.step_time_s) then return \"insufficient\", \"no step times\" end end } } }\n";

static const mcpp_lua_limits *long_lived(void)
{
    static mcpp_lua_limits lim;
    mcpp_lua_limits_default(&lim);
    lim.max_total_ms = -1;
    return &lim;
}

static mcpp_policy *lua_file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MCPP_POLICY_DIR, name);
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_file(&p, path, long_lived()) != MCPP_OK)
        fprintf(stderr, "%s: %s\n", path, mcpp_error_last()->message);
    CHECK(p != NULL);
    return p;
}

static int bad(mcpp_verdict v) { return v == MCPP_VERDICT_INSUFFICIENT || v == MCPP_VERDICT_NOT_COMPARABLE; }

/* Adds `rs` one by one to a fast and a rows summary; 1 when they agree at
 * every step (clean flags, return codes, serialized text). *n_bad counts the
 * receipts the fast path sent on to their rows. */
static int same_summaries(const mcpp_policy *p, mcpp_receipt *const *rs, size_t n, size_t *n_bad)
{
    mcpp_lane_summary *fast = NULL, *rows = NULL;
    CHECK_OK(mcpp_lane_summary_create(&fast, p, "primary", "test-lane"));
    CHECK_OK(mcpp_lane_summary_create(&rows, p, "primary", "test-lane"));
    int same = fast && rows;
    for (size_t i = 0; same && i < n; i++) {
        int clean_fast = -1, clean_rows = -1;
        int rc_fast = mcpp_lane_summary_add_mode(fast, rs[i], &clean_fast, MCPP_LANE_SELF_FAST);
        int rc_rows = mcpp_lane_summary_add_mode(rows, rs[i], &clean_rows, MCPP_LANE_SELF_ROWS);
        mcpp_verdict self = MCPP_VERDICT_COMPARABLE, full = MCPP_VERDICT_COMPARABLE;
        CHECK_OK(mcpp_compare_self_verdict(&self, p, rs[i]));
        CHECK_OK(mcpp_compare_verdict(&full, p, rs[i], rs[i]));
        if (bad(self)) ++*n_bad;
        char *tf = NULL, *tr = NULL;
        CHECK_OK(mcpp_lane_summary_serialize(&tf, fast));
        CHECK_OK(mcpp_lane_summary_serialize(&tr, rows));
        int agree = rc_fast == rc_rows && clean_fast == clean_rows && bad(self) == bad(full) &&
                    (!bad(self) || self == full) && tf && tr && strcmp(tf, tr) == 0;
        if (!agree)
            fprintf(stderr, "policy %s, receipt %s: rc %d/%d clean %d/%d self %s full %s\nfast %s\nrows %s\n",
                    mcpp_policy_name(p), mcpp_receipt_id(rs[i]), rc_fast, rc_rows, clean_fast, clean_rows,
                    mcpp_verdict_name(self), mcpp_verdict_name(full), tf ? tf : "(null)", tr ? tr : "(null)");
        same = agree;
        free(tf);
        free(tr);
    }
    mcpp_lane_summary_free(fast);
    mcpp_lane_summary_free(rows);
    return same;
}

TEST(fast_path_classifies_like_the_rows)
{
    mcpp_policy *policies[8];
    size_t np = 0;
    CHECK_OK(mcpp_policy_default(&policies[np++]));
    policies[np++] = lua_file("default.lua");
    policies[np++] = lua_file("strict.lua");
    policies[np++] = lua_file("cross_hardware.lua");
    policies[np++] = lua_file("shared_cpu.lua");
    mcpp_policy *rules = NULL;
    char name[1024];
    snprintf(name, sizeof name, "%s/reject_short.lua", MCPP_POLICY_DIR);
    if (mcpp_policy_load_lua_buffer(&rules, REJECT_SHORT, strlen(REJECT_SHORT), name, long_lived()) != MCPP_OK)
        fprintf(stderr, "reject_short: %s\n", mcpp_error_last()->message);
    CHECK(rules != NULL);
    policies[np++] = rules;
    mcpp_policy *required = NULL;
    CHECK_OK(mcpp_policy_default(&required));
    CHECK_OK(mcpp_policy_add_required_field(required, "workload.data.dataset"));
    CHECK_OK(mcpp_policy_add_required_field(required, "metrics.step_time_s.samples"));
    policies[np++] = required;

    size_t n_examples = n_receipts;
    CHECK(n_examples >= 10); /* the examples folder was found and read */
    for (size_t k = 0; k < np; k++) {
        if (!policies[k]) continue;
        size_t n_bad = 0, n_bad_all = 0;
        /* each receipt alone (its own summary), then all of them in one lane */
        for (size_t i = 0; i < n_receipts; i++)
            CHECK_MSG(same_summaries(policies[k], &receipts[i], 1, &n_bad), "policy %s, receipt %s",
                      mcpp_policy_name(policies[k]), mcpp_receipt_id(receipts[i]));
        CHECK_MSG(same_summaries(policies[k], receipts, n_receipts, &n_bad_all), "policy %s, every receipt",
                  mcpp_policy_name(policies[k]));
        /* both paths are exercised: some receipts go on to their rows, most do not */
        CHECK_MSG(n_bad > 0 && n_bad < n_receipts, "policy %s: %zu of %zu receipts need rows",
                  mcpp_policy_name(policies[k]), n_bad, n_receipts);
        CHECK(n_bad == n_bad_all);
    }
    for (size_t k = 0; k < np; k++) mcpp_policy_free(policies[k]);
}

/* The benchmark corpus's receipt shape (suite-only and free dimensions
 * absent): clean, so the fast path never renders its rows. */
TEST(clean_receipt_skips_its_rows)
{
    mcpp_policy *p = NULL;
    CHECK_OK(mcpp_policy_default(&p));
    mcpp_receipt *r = FIX("\"id\":\"base-1\"", "\"id\":\"clean\"");
    mcpp_verdict self = MCPP_VERDICT_INSUFFICIENT;
    CHECK_OK(mcpp_compare_self_verdict(&self, p, r));
    CHECK_MSG(!bad(self), "self-verdict of a clean receipt: %s", mcpp_verdict_name(self));
    mcpp_receipt_free(r);
    mcpp_policy_free(p);
}

/* A frontier large enough to compute hashes and self-verdicts on worker
 * threads (frontier_prepass.c) is the frontier computed inline: the same
 * JSON and the same lane for every receipt, on every receipt kind above
 * (repeated: repeats are skipped as duplicates after the prepass saw them). */
TEST(threaded_prepass_builds_the_same_frontier)
{
    enum { N = 6000 }; /* above the prepass threshold */
    const mcpp_receipt **many = malloc(N * sizeof *many);
    size_t *lanes_threaded = malloc(N * sizeof(size_t)), *lanes_inline = malloc(N * sizeof(size_t));
    CHECK(many && lanes_threaded && lanes_inline && n_receipts > 0);
    if (!many || !lanes_threaded || !lanes_inline || !n_receipts) return;
    for (size_t i = 0; i < N; i++) many[i] = receipts[(i * 7) % n_receipts];
    const char *names[] = {"default.lua", "cross_hardware.lua", "shared_cpu.lua"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        mcpp_policy *p = lua_file(names[k]);
        if (!p) continue;
        mcpp_frontier *threaded = NULL, *plain = NULL;
        char *a = NULL, *b = NULL;
        CHECK_OK(mcpp_frontier_build_metric(&threaded, p, many, N, "primary", lanes_threaded));
        mcpp_frontier_prepass_disabled = 1;
        CHECK_OK(mcpp_frontier_build_metric(&plain, p, many, N, "primary", lanes_inline));
        mcpp_frontier_prepass_disabled = 0;
        CHECK_OK(mcpp_frontier_render(&a, threaded, MCPP_OUTPUT_JSON));
        CHECK_OK(mcpp_frontier_render(&b, plain, MCPP_OUTPUT_JSON));
        CHECK_MSG(a && b && strcmp(a, b) == 0, "policy %s: the frontiers differ", names[k]);
        CHECK_MSG(memcmp(lanes_threaded, lanes_inline, N * sizeof(size_t)) == 0, "policy %s: lanes differ", names[k]);
        CHECK(mcpp_frontier_lane_count(threaded) > 1);
        mcpp_free(a);
        mcpp_free(b);
        mcpp_frontier_free(threaded);
        mcpp_frontier_free(plain);
        mcpp_policy_free(p);
    }
    free(many);
    free(lanes_threaded);
    free(lanes_inline);
}

int main(void)
{
    load_examples(MCPP_EXAMPLES_DIR);
    add_variants();
    RUN(clean_receipt_skips_its_rows);
    RUN(fast_path_classifies_like_the_rows);
    RUN(threaded_prepass_builds_the_same_frontier);
    for (size_t i = 0; i < n_receipts; i++) mcpp_receipt_free(receipts[i]);
    TEST_MAIN_END();
}
