/*
 * test_frontier_rules.c — per-run rules (`each = function(run, side)`) keep
 * the frontier linear and its verdicts what they were (issue 29, item 8).
 *
 * strict.lua's two rules used to be pair rules (`fn = function(base, cand)`
 * looping over both sides), so the frontier compared every pair of a lane's
 * clean runs: 3.8 s for one lane of 1,000 runs. They are per-run rules now,
 * and the frontier skips its pair check for them. The proof that nothing else
 * changed: the old strict.lua (its text before the change, kept below) and
 * the shipped one give the same frontier, lane by lane (status, reasons,
 * excluded runs and why, headline), on generated lanes of every size with
 * runs that fail each rule, and the same comparison, row by row, on every
 * pair of a sample. A policy whose rules see both sides still compares pairs.
 */
#include "../test_util.h"
#include "fixtures.h"

static const char *policy_dir;

/* policy/strict.lua before per-run rules (its settings are the same). */
static const char OLD_STRICT[] =
    "return {\n"
    "  include = { \"default.lua\" },\n"
    "  name = \"strict\",\n"
    "  version = 1,\n"
    "  dimensions = { must_match = { \"startup\", \"cache\" } },\n"
    "  noise = { max_rel_spread = 0.03, min_runs = 5, noise_floor = 0.005, run_to_run = 0.02 },\n"
    "  gate = { max_regression = 0.02, confidence = 0.99 },\n"
    "  rules = {\n"
    "    { name = \"enough_samples\", fn = function(base, cand)\n"
    "        for _, side in ipairs({ { \"base\", base }, { \"candidate\", cand } }) do\n"
    "          local samples = side[2].metrics.step_time_s.samples\n"
    "          local n = samples and #samples or 0\n"
    "          if n < 10 then\n"
    "            return \"insufficient\", (\"%s has %d step samples; strict needs 10\"):format(side[1], n)\n"
    "          end\n"
    "        end\n"
    "        return nil\n"
    "      end },\n"
    "    { name = \"verification_recorded\", fn = function(base, cand)\n"
    "        for _, side in ipairs({ { \"base\", base }, { \"candidate\", cand } }) do\n"
    "          if side[2].backend.verification.status == nil then\n"
    "            return \"mismatch\", side[1] .. \" records no kernel verification; strict needs one\"\n"
    "          end\n"
    "        end\n"
    "        return nil\n"
    "      end },\n"
    "  },\n"
    "}\n";

/* Many rule calls, no bound on their total time (a sanitizer build on a busy
 * machine); the per-call bounds stay. */
static const mcpp_lua_limits *long_lived(void)
{
    static mcpp_lua_limits lim;
    mcpp_lua_limits_default(&lim);
    lim.max_total_ms = -1;
    return &lim;
}

static mcpp_policy *load_buffer(const char *file_name, const char *text)
{
    char name[1024];
    snprintf(name, sizeof name, "%s/%s", policy_dir, file_name);
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_buffer(&p, text, strlen(text), name, long_lived()) != MCPP_OK)
        fprintf(stderr, "%s: %s\n", file_name, mcpp_error_last()->message);
    return p;
}

static mcpp_policy *shipped_strict(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/strict.lua", policy_dir);
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_file(&p, path, long_lived()) != MCPP_OK)
        fprintf(stderr, "strict.lua: %s\n", mcpp_error_last()->message);
    return p;
}

static unsigned long long rng_state = 29;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

/* Run `i` of lane `lane`: `n_samples` step samples around 1 s; sometimes no
 * verification recorded, a failed verification, a cold start or a partial
 * outcome, so that each rule and each lane outcome occurs. */
static mcpp_receipt *generated_run(unsigned lane, size_t i, unsigned defect_odds)
{
    static const char *const seqs[] = {"\"seq_len\":4096", "\"seq_len\":2048", "\"seq_len\":8192"};
    static const char *const moes[] = {"\"moe\":{\"requested\":\"jagged\",\"observed\":\"jagged\"}",
                                       "\"moe\":{\"requested\":\"padded\",\"observed\":\"padded\"}"};
    char id[48], tps[64], samples[1024];
    double scale = 1 + ((double)rnd(9) - 4) * (rnd(6) == 0 ? 0.02 : 0.002);
    snprintf(id, sizeof id, "\"id\":\"lane%u-run%zu\"", lane, i);
    snprintf(tps, sizeof tps, "\"tokens_per_s\":%.6f", 262144 / scale);
    unsigned defect = rnd(defect_odds);
    int n_samples = defect == 0 ? 6 : 12;
    size_t off = (size_t)snprintf(samples, sizeof samples, "\"samples\":[");
    for (int k = 0; k < n_samples; k++)
        off += (size_t)snprintf(samples + off, sizeof samples - off, "%s%.6f", k ? "," : "",
                                scale * (1 + 0.001 * (double)((k * 7) % 5)));
    snprintf(samples + off, sizeof samples - off, "]");
    const char *pairs[16];
    size_t k = 0;
    pairs[k++] = "\"id\":\"base-1\"", pairs[k++] = id;
    pairs[k++] = "\"tokens_per_s\":262144", pairs[k++] = tps;
    pairs[k++] = "\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]", pairs[k++] = samples;
    pairs[k++] = "\"seq_len\":4096", pairs[k++] = seqs[lane % 3];
    pairs[k++] = moes[0], pairs[k++] = moes[(lane / 3) % 2];
    if (defect == 1) pairs[k++] = ",\"verification\":{\"status\":\"passed\",\"max_rel_err\":0.001}", pairs[k++] = "";
    if (defect == 2) pairs[k++] = "\"status\":\"passed\"", pairs[k++] = "\"status\":\"failed\"";
    if (defect == 3) pairs[k++] = "\"warm_cache\"", pairs[k++] = "\"cold_boot\"";
    if (defect == 4) pairs[k++] = "\"outcome\":\"ok\"", pairs[k++] = "\"outcome\":\"partial\"";
    return fixture(pairs, k / 2);
}

/* The frontier's JSON with the policy digest taken out (the two policies'
 * sources differ, so their digests do; everything else must not). */
static char *frontier_json(const mcpp_policy *p, const mcpp_receipt *const *r, size_t n)
{
    mcpp_frontier *f = NULL;
    char *out = NULL;
    if (mcpp_frontier_build(&f, p, r, n) != MCPP_OK || mcpp_frontier_render(&out, f, MCPP_OUTPUT_JSON) != MCPP_OK) {
        fprintf(stderr, "frontier: %s\n", mcpp_error_last()->message);
        mcpp_frontier_free(f);
        return NULL;
    }
    const char *digest = mcpp_frontier_policy_digest(f);
    for (char *at = digest && *digest ? strstr(out, digest) : NULL; at; at = strstr(at, digest))
        memset(at, '-', strlen(digest));
    mcpp_frontier_free(f);
    return out;
}

static char *comparison_json(const mcpp_policy *p, const mcpp_receipt *a, const mcpp_receipt *b)
{
    mcpp_comparison *c = NULL;
    char *out = NULL;
    if (mcpp_compare(&c, p, a, b) != MCPP_OK || mcpp_comparison_render(&out, c, MCPP_OUTPUT_JSON) != MCPP_OK) {
        mcpp_comparison_free(c);
        return NULL;
    }
    const char *digest = mcpp_comparison_policy_digest(c);
    for (char *at = digest && *digest ? strstr(out, digest) : NULL; at; at = strstr(at, digest))
        memset(at, '-', strlen(digest));
    mcpp_comparison_free(c);
    return out;
}

static size_t count_status(const char *json, const char *status)
{
    char needle[64];
    snprintf(needle, sizeof needle, "\"status\": \"%s\"", status);
    size_t n = 0;
    for (const char *at = strstr(json, needle); at; at = strstr(at + 1, needle)) n++;
    return n;
}

TEST(per_run_strict_gives_the_frontier_of_the_pairwise_strict_on_generated_lanes)
{
    mcpp_policy *old_strict = load_buffer("old_strict.lua", OLD_STRICT), *strict = shipped_strict();
    CHECK(old_strict && strict);
    if (!old_strict || !strict) return;
    CHECK_INT_EQ(mcpp_policy_rule_count(strict), 2);
    /* Lanes of 1 to 40 runs (and one of 120), with few or many runs failing a
     * rule: 1 in 4 has a defect, or 1 in 40. */
    static const size_t sizes[] = {1, 2, 3, 5, 6, 8, 13, 21, 40, 120, 7, 30};
    enum { N_LANES = sizeof sizes / sizeof sizes[0], MAX_RUNS = 400 };
    mcpp_receipt *runs[MAX_RUNS];
    size_t n = 0;
    for (unsigned lane = 0; lane < N_LANES; lane++)
        for (size_t i = 0; i < sizes[lane] && n < MAX_RUNS; i++) runs[n++] = generated_run(lane % 6, lane * 1000 + i, lane % 2 ? 4 : 40);
    /* shuffled: a lane's runs are not next to one another in the input */
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd((unsigned)i);
        mcpp_receipt *t = runs[i - 1];
        runs[i - 1] = runs[j];
        runs[j] = t;
    }
    char *a = frontier_json(old_strict, (const mcpp_receipt *const *)runs, n);
    char *b = frontier_json(strict, (const mcpp_receipt *const *)runs, n);
    CHECK(a && b && strcmp(a, b) == 0);
    if (a && b && strcmp(a, b) != 0) fprintf(stderr, "pairwise strict:\n%s\nper-run strict:\n%s\n", a, b);
    /* The lanes say something: some stable, some not, runs excluded by each rule. */
    CHECK(b && count_status(b, "stable") > 0 && count_status(b, "unstable") > 0);
    CHECK(b && strstr(b, "step samples; strict needs 10") && strstr(b, "records no kernel verification"));
    free(a);
    free(b);
    /* Every comparison of a sample of pairs (both orders, a run with itself
     * too) is the same, row by row and reason by reason. */
    size_t differing = 0, not_comparable = 0;
    for (size_t i = 0; i < n; i += 7) {
        for (size_t j = 0; j < n; j += 11) {
            char *x = comparison_json(old_strict, runs[i], runs[j]);
            char *y = comparison_json(strict, runs[i], runs[j]);
            if (!x || !y || strcmp(x, y) != 0) {
                if (differing++ == 0) fprintf(stderr, "pairwise:\n%s\nper-run:\n%s\n", x ? x : "?", y ? y : "?");
            }
            if (y && strstr(y, "\"not_comparable\"")) not_comparable++;
            free(x);
            free(y);
        }
    }
    CHECK_INT_EQ(differing, 0);
    CHECK(not_comparable > 0);
    for (size_t i = 0; i < n; i++) mcpp_receipt_free(runs[i]);
    mcpp_policy_free(old_strict);
    mcpp_policy_free(strict);
}

/* An `each` rule sees one run and the side's name: base first, then the
 * candidate, and the first side that fails answers for the pair. */
TEST(each_rule_is_called_per_side_and_names_the_side)
{
    static const char POLICY[] =
        "return { include = { \"default.lua\" }, name = \"each_side\",\n"
        "  rules = { { name = \"no_cold\", each = function(run, side)\n"
        "    if run.startup.state == \"cold_boot\" then return \"insufficient\", side .. \" started cold\" end\n"
        "  end } } }\n";
    mcpp_policy *p = load_buffer("each_side.lua", POLICY);
    CHECK(p != NULL);
    if (!p) return;
    mcpp_receipt *warm = FIX("\"id\":\"base-1\"", "\"id\":\"warm\"");
    mcpp_receipt *cold = FIX("\"id\":\"base-1\"", "\"id\":\"cold\"", "\"warm_cache\"", "\"cold_boot\"");
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, p, warm, cold), MCPP_OK);
    char *text = NULL;
    CHECK_INT_EQ(mcpp_comparison_render(&text, c, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK(text && strstr(text, "candidate started cold"));
    mcpp_free(text);
    mcpp_comparison_free(c);
    c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, p, cold, cold), MCPP_OK);
    text = NULL;
    CHECK_INT_EQ(mcpp_comparison_render(&text, c, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK(text && strstr(text, "base started cold") && !strstr(text, "candidate started cold"));
    mcpp_free(text);
    mcpp_comparison_free(c);
    mcpp_receipt_free(warm);
    mcpp_receipt_free(cold);
    mcpp_policy_free(p);
}

/* A rule entry names one function: fn or each, a function either way. */
TEST(a_rule_with_both_or_neither_function_is_refused_with_its_line)
{
    static const char *const BAD[] = {
        "return { rules = {\n { name = \"x\", fn = function() end, each = function() end } } }\n",
        "return { rules = {\n { name = \"x\" } } }\n",
        "return { rules = {\n { name = \"x\", each = 3 } } }\n",
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        mcpp_policy *p = load_buffer("bad_rule.lua", BAD[i]);
        CHECK(p == NULL);
        mcpp_policy_free(p);
        CHECK_CONTAINS(mcpp_error_last()->message, "fn = function(base, cand) or each = function(run, side)");
        /* the line where the entry stands, not the line of `rules =` */
        CHECK_CONTAINS(mcpp_error_last()->message, "bad_rule.lua:2: rules[1]");
    }
}

/* A rule that sees both sides still makes the frontier compare the pairs: two
 * runs that each pass against themselves but not together make their lane
 * unstable, and the reason names the pair. */
TEST(a_pair_rule_still_makes_the_frontier_compare_pairs)
{
    static const char POLICY[] =
        "return { include = { \"default.lua\" }, name = \"same_driver\",\n"
        "  rules = { { name = \"same_driver\", fn = function(b, c)\n"
        "    if b.hardware.observed.driver ~= c.hardware.observed.driver then return \"mismatch\", \"drivers differ\" end\n"
        "  end } } }\n";
    mcpp_policy *p = load_buffer("same_driver.lua", POLICY);
    CHECK(p != NULL);
    if (!p) return;
    mcpp_receipt *r[3] = {FIX("\"id\":\"base-1\"", "\"id\":\"d1\""), FIX("\"id\":\"base-1\"", "\"id\":\"d2\""),
                          FIX("\"id\":\"base-1\"", "\"id\":\"d3\"", "\"550.54\"", "\"535.10\"")};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)r, 3), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 1);
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, 0), MCPP_LANE_UNSTABLE);
    CHECK_CONTAINS(mcpp_frontier_lane_reason(f, 0, 0), "runs d1 and d3 are not comparable");
    mcpp_frontier_free(f);
    for (int i = 0; i < 3; i++) mcpp_receipt_free(r[i]);
    mcpp_policy_free(p);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s POLICY_DIR\n", argv[0]);
        return 2;
    }
    policy_dir = argv[1];
    RUN(per_run_strict_gives_the_frontier_of_the_pairwise_strict_on_generated_lanes);
    RUN(each_rule_is_called_per_side_and_names_the_side);
    RUN(a_rule_with_both_or_neither_function_is_refused_with_its_line);
    RUN(a_pair_rule_still_makes_the_frontier_compare_pairs);
    TEST_MAIN_END();
}
