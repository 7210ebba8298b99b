/*
 * test_verdicts.c — verdicts never overstate the evidence (issue 11): weak
 * receipts make insufficient lanes, broad claim selectors are ambiguous, a
 * failed verification is never comparable, a run whose request was not met is
 * excluded from its lane's headline, id conflicts are refused, policy rules
 * reach the frontier (with a property test over random receipt sets and every
 * shipped policy), absent on both sides is "not recorded", receipts must agree
 * with themselves, and single-run points decide no gate.
 *
 * usage: test_verdicts POLICY_DIR WORK_DIR
 */
#include <math.h>
#include <sys/stat.h>

#include "../test_util.h"
#include "fixtures.h"
#include "mcpp_receipts/receipt_set.h"

static const char *policy_dir, *work_dir;

#define BASE_ID "\"id\":\"base-1\""
#define SAME "\"schema\":\"mcpp.receipt/1\"", "\"schema\":\"mcpp.receipt/1\""
#define NO_SAMPLES "\"step_time_s\":{\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]},", ""
#define H200 "\"requested\":{\"accelerator\":\"NVIDIA H100 80GB HBM3\"", "\"requested\":{\"accelerator\":\"NVIDIA H200\""
#define VERIFY_FAILED "\"status\":\"passed\"", "\"status\":\"failed\""

static const char *const SHIPPED[] = {"default.lua", "strict.lua", "shared_cpu.lua", "cross_hardware.lua"};
enum { N_SHIPPED = sizeof SHIPPED / sizeof SHIPPED[0] };

/* The policies here live as long as a long-lived host's: many rule calls,
 * no bound on their total time (a sanitizer build on a busy machine would
 * reach the CLI's 1.5 s); the per-call bounds stay. */
static const mcpp_lua_limits *long_lived(void)
{
    static mcpp_lua_limits lim;
    mcpp_lua_limits_default(&lim);
    lim.max_total_ms = -1;
    return &lim;
}

static mcpp_policy *shipped(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", policy_dir, name);
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_file(&p, path, long_lived()) != MCPP_OK)
        fprintf(stderr, "%s: %s\n", path, mcpp_error_last()->message);
    return p;
}

/* A run of the fixture lane with its own id and tokens/s (no samples: the
 * headline is across runs), and up to two more substitutions. */
static mcpp_receipt *run(const char *id, double tps, const char *f1, const char *t1, const char *f2, const char *t2)
{
    char idb[64], tpsb[64];
    snprintf(idb, sizeof idb, "\"id\":\"%s\"", id);
    snprintf(tpsb, sizeof tpsb, "\"tokens_per_s\":%.1f", tps);
    return FIX(BASE_ID, idb, NO_SAMPLES, "\"tokens_per_s\":262144", tpsb, f1, t1, f2, t2);
}

static mcpp_receipt *load_text(const char *text, const char *name)
{
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_buffer(&r, NULL, text, strlen(text), MCPP_FORMAT_JSON, name, NULL) != MCPP_OK)
        fprintf(stderr, "%s: %s\n", name, mcpp_error_last()->message);
    return r;
}

static void free_all(mcpp_receipt **r, size_t n)
{
    for (size_t i = 0; i < n; i++) mcpp_receipt_free(r[i]);
}

static mcpp_verdict verdict_of(const mcpp_policy *p, const mcpp_receipt *a, const mcpp_receipt *b)
{
    mcpp_verdict v = MCPP_VERDICT_INSUFFICIENT;
    if (mcpp_compare_verdict(&v, p, a, b) != MCPP_OK) fprintf(stderr, "compare: %s\n", mcpp_error_last()->message);
    return v;
}

static int row_status(const mcpp_comparison *c, const char *dim)
{
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++)
        if (strcmp(mcpp_comparison_row_dimension(c, i), dim) == 0) return mcpp_comparison_row_status(c, i);
    return -1;
}

static const char *row_reason(const mcpp_comparison *c, const char *dim)
{
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++)
        if (strcmp(mcpp_comparison_row_dimension(c, i), dim) == 0) return mcpp_comparison_row_reason(c, i);
    return NULL;
}

/* ---- 1. weak receipts ------------------------------------------------------------------------ */

TEST(receipts_holding_only_tokens_per_s_make_an_insufficient_lane_and_an_unsupported_claim)
{
    mcpp_receipt *weak[3];
    for (int i = 0; i < 3; i++) {
        char text[256], name[32];
        snprintf(text, sizeof text,
                 "{\"schema\":\"mcpp.receipt/1\",\"id\":\"weak-%d\",\"metrics\":{\"tokens_per_s\":%d},"
                 "\"status\":{\"outcome\":\"ok\"}}", i, 1000 + i);
        snprintf(name, sizeof name, "weak-%d", i);
        weak[i] = load_text(text, name);
    }
    CHECK(weak[0] && weak[1] && weak[2]);
    CHECK_INT_EQ(verdict_of(NULL, weak[0], weak[1]), MCPP_VERDICT_INSUFFICIENT);
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)weak, 3), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 1);
    CHECK_INT_EQ(mcpp_frontier_stable_count(f), 0);
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, 0), MCPP_LANE_INSUFFICIENT);
    CHECK_STR_EQ(mcpp_lane_status_name(MCPP_LANE_INSUFFICIENT), "insufficient");
    CHECK_CONTAINS(mcpp_frontier_lane_reason(f, 0, 0), "not stated (policy 'default' requires it to match)");
    char *text = NULL;
    CHECK_INT_EQ(mcpp_frontier_render(&text, f, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK_CONTAINS(text, "INSUFFICIENT");
    CHECK_CONTAINS(text, "1 insufficient");
    mcpp_free(text);
    mcpp_claim_result *c = NULL;
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, (const mcpp_receipt *const *)weak, 3,
                                  mcpp_frontier_lane_short_key(f, 0), NULL, 1001), MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_result_verdict(c), MCPP_CLAIM_UNSUPPORTED);
    CHECK_CONTAINS(mcpp_claim_result_reason(c), "is insufficient");
    mcpp_claim_result_free(c);
    mcpp_frontier_free(f);
    free_all(weak, 3);
}

/* ---- 2. broad selectors ---------------------------------------------------------------------- */

TEST(a_selector_matching_several_lanes_is_ambiguous_and_lists_them_all)
{
    mcpp_receipt *r[6];
    r[0] = run("a1", 262144, SAME, SAME);
    r[1] = run("a2", 262500, SAME, SAME);
    r[2] = run("a3", 261800, SAME, SAME);
    r[3] = run("p1", 300000, "\"moe\":{\"requested\":\"jagged\",\"observed\":\"jagged\"}",
               "\"moe\":{\"requested\":\"padded\",\"observed\":\"padded\"}", "\"outcome\":\"ok\"", "\"outcome\":\"partial\"");
    r[4] = run("s1", 131072, "\"seq_len\":4096", "\"seq_len\":8192", SAME);
    r[5] = run("s2", 131000, "\"seq_len\":4096", "\"seq_len\":8192", SAME);
    mcpp_claim_result *c = NULL;
    /* 262144 is inside the stable jagged lane: before, one matching lane was enough. */
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, (const mcpp_receipt *const *)r, 6, "family=NAM56R", NULL, 262144), MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_result_verdict(c), MCPP_CLAIM_AMBIGUOUS);
    CHECK_STR_EQ(mcpp_claim_verdict_name(MCPP_CLAIM_AMBIGUOUS), "ambiguous");
    CHECK_INT_EQ(mcpp_claim_result_matched_count(c), 3);
    for (size_t i = 0; i < mcpp_claim_result_matched_count(c); i++) {
        char shortk[24];
        mcpp_lane_key_short(shortk, sizeof shortk, mcpp_claim_result_matched_key(c, i));
        CHECK_CONTAINS(mcpp_claim_result_reason(c), shortk);
    }
    CHECK_CONTAINS(mcpp_claim_result_reason(c), "stable, median 262144");
    CHECK_CONTAINS(mcpp_claim_result_reason(c), "unstable");
    CHECK_CONTAINS(mcpp_claim_result_reason(c), "narrow the selector by sequence, backend");
    char *json = NULL;
    CHECK_INT_EQ(mcpp_claim_result_render(&json, c, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_CONTAINS(json, "\"verdict\": \"ambiguous\"");
    mcpp_free(json);
    mcpp_claim_result_free(c);
    /* Narrowed to one lane, the same number is supported. */
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, (const mcpp_receipt *const *)r, 6, "family=NAM56R,seq_len=4096,moe=jagged",
                                  NULL, 262144), MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_result_verdict(c), MCPP_CLAIM_SUPPORTED);
    mcpp_claim_result_free(c);
    free_all(r, 6);
}

/* ---- 3. failed verification ------------------------------------------------------------------ */

/* Twelve step samples around `scale` seconds (strict wants ten or more). */
static const char *twelve_samples(char *buf, size_t cap, double scale)
{
    static const double s[12] = {1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00, 1.01, 0.99};
    size_t off = (size_t)snprintf(buf, cap, "\"samples\":[");
    for (int i = 0; i < 12; i++) off += (size_t)snprintf(buf + off, cap - off, "%s%.6f", i ? "," : "", s[i] * scale);
    snprintf(buf + off, cap - off, "]");
    return buf;
}

#define SAMPLES8 "\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]"

TEST(failed_verification_is_not_comparable_and_makes_the_lane_unstable_under_every_shipped_policy)
{
    char twelve[512], faster[512];
    mcpp_receipt *clean = FIX(SAMPLES8, twelve_samples(twelve, sizeof twelve, 1.0));
    /* 24% faster, but its kernels gave wrong answers. */
    mcpp_receipt *failed = FIX(BASE_ID, "\"id\":\"failed-1\"", VERIFY_FAILED, SAMPLES8,
                               twelve_samples(faster, sizeof faster, 1 / 1.24), "\"tokens_per_s\":262144",
                               "\"tokens_per_s\":325058.56");
    mcpp_receipt *lane[4] = {run("v1", 262144, SAME, SAME), run("v2", 262500, SAME, SAME), run("v3", 261800, SAME, SAME),
                             run("v4", 262000, VERIFY_FAILED, SAME)};
    for (size_t k = 0; k < N_SHIPPED; k++) {
        mcpp_policy *p = shipped(SHIPPED[k]);
        CHECK(p != NULL);
        if (!p) continue;
        mcpp_comparison *c = NULL;
        CHECK_INT_EQ(mcpp_compare(&c, p, clean, failed), MCPP_OK);
        CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_NOT_COMPARABLE);
        CHECK_INT_EQ(row_status(c, "verification"), MCPP_DIM_MISMATCH);
        CHECK_CONTAINS(row_reason(c, "verification"), "cand failed kernel verification");
        CHECK(mcpp_comparison_gate(c) != MCPP_GATE_PASSED);
        mcpp_comparison_free(c);
        mcpp_frontier *f = NULL;
        CHECK_INT_EQ(mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)lane, 4), MCPP_OK);
        CHECK_INT_EQ(mcpp_frontier_stable_count(f), 0);
        mcpp_frontier_free(f);
        mcpp_policy_free(p);
    }
    /* Under strict, a receipt with no verification at all is not comparable either. */
    mcpp_receipt *unverified = FIX(",\"verification\":{\"status\":\"passed\",\"max_rel_err\":0.001}", "", SAMPLES8,
                                   twelve, BASE_ID, "\"id\":\"unverified\"");
    mcpp_policy *strict = shipped("strict.lua");
    CHECK_INT_EQ(verdict_of(strict, clean, unverified), MCPP_VERDICT_NOT_COMPARABLE);
    CHECK(verdict_of(NULL, clean, unverified) != MCPP_VERDICT_NOT_COMPARABLE);
    mcpp_policy_free(strict);
    mcpp_receipt_free(unverified);
    free_all(lane, 4);
    mcpp_receipt_free(clean);
    mcpp_receipt_free(failed);
}

/* ---- 4. one bad receipt ------------------------------------------------------------------------ */

TEST(a_run_whose_request_was_not_met_is_excluded_and_the_clean_runs_decide_the_lane)
{
    mcpp_receipt *r[4] = {run("h1", 262144, SAME, SAME), run("h2", 262500, SAME, SAME), run("h3", 261800, SAME, SAME),
                          run("asked-h200", 180000, H200, SAME)};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)r, 4), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 1);
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, 0), MCPP_LANE_STABLE);
    CHECK_INT_EQ(mcpp_frontier_lane_receipt_count(f, 0), 3);
    CHECK_INT_EQ(mcpp_frontier_lane_excluded_count(f, 0), 1);
    CHECK_STR_EQ(mcpp_frontier_lane_excluded_id(f, 0, 0), "asked-h200");
    CHECK_CONTAINS(mcpp_frontier_lane_excluded_reason(f, 0, 0),
                   "request not met: hardware: requested NVIDIA H200 x8, observed NVIDIA H100 80GB HBM3 x8");
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    CHECK_INT_EQ(mcpp_frontier_lane_headline(&h, f, 0), MCPP_OK);
    CHECK(fabs(h.median - 262144) < 1e-6 && h.n == 3); /* 180000 is not in the headline */
    char *json = NULL;
    CHECK_INT_EQ(mcpp_frontier_render(&json, f, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_CONTAINS(json, "\"excluded\": [{\"id\": \"asked-h200\", \"reason\": \"request not met: hardware");
    mcpp_free(json);
    mcpp_frontier_free(f);
    /* The excluded run is still where a quoted 180000 is found. */
    mcpp_claim_result *c = NULL;
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, (const mcpp_receipt *const *)r, 4, "family=NAM56R", NULL, 180000), MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_result_verdict(c), MCPP_CLAIM_CONTRADICTED);
    CHECK_INT_EQ(mcpp_claim_result_source_count(c), 1);
    mcpp_claim_result_free(c);
    free_all(r, 4);
}

/* ---- 5. id conflicts ---------------------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp) return;
    fputs(text, fp);
    fclose(fp);
}

TEST(two_files_with_one_id_and_different_content_are_a_conflict_naming_both)
{
    char dir[1024], a[1100], b[1100], c[1100];
    snprintf(dir, sizeof dir, "%s/idconflict", work_dir);
    mkdir(dir, 0755);
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(c, sizeof c, "%s/c.json", dir);
    char *same = fixture_text((const char *const[]){SAME}, 1);
    char *other = fixture_text((const char *const[]){"\"seq_len\":4096", "\"seq_len\":8192"}, 1);
    write_file(a, same);
    write_file(b, same); /* the same run loaded twice: no conflict */
    write_file(c, other);
    free(same);
    free(other);
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_receipt_set_new(&set), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_set_add_path(set, dir, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_set_count(set), 2);
    CHECK_INT_EQ(mcpp_receipt_set_failure_count(set), 1);
    CHECK_STR_EQ(mcpp_receipt_set_failure_path(set, 0), c);
    CHECK_CONTAINS(mcpp_receipt_set_failure_message(set, 0), "conflict: receipt 'base-1'");
    CHECK_CONTAINS(mcpp_receipt_set_failure_message(set, 0), c);
    CHECK_CONTAINS(mcpp_receipt_set_failure_message(set, 0), a);
    const mcpp_receipt *pair[2] = {mcpp_receipt_set_at(set, 0), NULL};
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, c, NULL), MCPP_OK);
    pair[1] = r;
    CHECK_INT_EQ(mcpp_receipts_check_ids(pair, 2), MCPP_EINVALID);
    pair[1] = mcpp_receipt_set_at(set, 1);
    CHECK_INT_EQ(mcpp_receipts_check_ids(pair, 2), MCPP_OK);
    mcpp_receipt_free(r);
    mcpp_receipt_set_free(set);
}

/* ---- 7. rules reach the frontier; the property test --------------------------------------------- */

/* default.lua with sequence only qualifying, and a rule: more than 2x apart
 * in sequence length is not comparable. */
static const char SEQ_RULE[] =
    "return { include = { \"default.lua\" }, name = \"seq_rule\",\n"
    "  dimensions = { qualify = { \"sequence\" } },\n"
    "  rules = { { name = \"seq_2x\", fn = function(b, c)\n"
    "    local x, y = b.workload.seq_len, c.workload.seq_len\n"
    "    if x and y and (x > 2 * y or y > 2 * x) then return \"mismatch\", \"sequence lengths more than 2x apart\" end\n"
    "  end } } }\n";

static mcpp_policy *seq_rule_policy(void)
{
    char name[1024];
    snprintf(name, sizeof name, "%s/seq_rule.lua", policy_dir);
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_buffer(&p, SEQ_RULE, strlen(SEQ_RULE), name, long_lived()) != MCPP_OK)
        fprintf(stderr, "seq_rule: %s\n", mcpp_error_last()->message);
    return p;
}

TEST(a_rule_that_makes_a_pair_not_comparable_keeps_their_lane_from_being_stable)
{
    mcpp_policy *p = seq_rule_policy();
    CHECK(p != NULL);
    mcpp_receipt *r[4] = {run("q1", 262144, SAME, SAME), run("q2", 262500, SAME, SAME), run("q3", 261800, SAME, SAME),
                          run("q4", 262000, "\"seq_len\":4096", "\"seq_len\":16384", SAME)};
    CHECK_INT_EQ(verdict_of(p, r[0], r[3]), MCPP_VERDICT_NOT_COMPARABLE);
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)r, 4), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 1); /* sequence is not in the key */
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, 0), MCPP_LANE_UNSTABLE);
    CHECK_CONTAINS(mcpp_frontier_lane_reason(f, 0, 0), "are not comparable under policy 'seq_rule'");
    CHECK_CONTAINS(mcpp_frontier_lane_reason(f, 0, 0), "seq_2x: sequence lengths more than 2x apart");
    mcpp_frontier_free(f);
    /* Without the odd run the three are stable. */
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)r, 3), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, 0), MCPP_LANE_STABLE);
    mcpp_frontier_free(f);
    free_all(r, 4);
    mcpp_policy_free(p);
}

static unsigned long long rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

/* A random run: a few lanes, sometimes a defect (failed verification, a
 * request not met, a cold start, no samples, a different denominator). */
static mcpp_receipt *random_run(int i)
{
    static const char *const seqs[] = {"\"seq_len\":4096", "\"seq_len\":2048", "\"seq_len\":16384"};
    static const char *const moes[] = {"\"moe\":{\"requested\":\"jagged\",\"observed\":\"jagged\"}",
                                       "\"moe\":{\"requested\":\"padded\",\"observed\":\"padded\"}"};
    char id[32], tps[64], samples[512];
    double scale = 1 + (rnd(9) - 4) * (rnd(5) == 0 ? 0.03 : 0.002);
    snprintf(id, sizeof id, "\"id\":\"rand-%d\"", i);
    snprintf(tps, sizeof tps, "\"tokens_per_s\":%.6f", 262144 / scale);
    samples_scaled(samples, sizeof samples, scale);
    const char *pairs[16];
    size_t k = 0;
    pairs[k++] = BASE_ID, pairs[k++] = id;
    pairs[k++] = "\"tokens_per_s\":262144", pairs[k++] = tps;
    pairs[k++] = "\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]", pairs[k++] = samples;
    pairs[k++] = "\"seq_len\":4096", pairs[k++] = seqs[rnd(3)];
    pairs[k++] = moes[0], pairs[k++] = moes[rnd(2)];
    unsigned defect = rnd(10);
    if (defect == 0) pairs[k++] = "\"status\":\"passed\"", pairs[k++] = "\"status\":\"failed\"";
    if (defect == 1) pairs[k++] = H200;
    if (defect == 2) pairs[k++] = "\"warm_cache\"", pairs[k++] = "\"cold_boot\"";
    if (defect == 3) pairs[k++] = "\"outcome\":\"ok\"", pairs[k++] = "\"outcome\":\"partial\"";
    return fixture(pairs, k / 2);
}

/* In every stable lane, every two counted receipts compare comparable or qualified. */
static int stable_lanes_hold_comparable_pairs(const mcpp_policy *p, const mcpp_frontier *f, mcpp_receipt **r, size_t n)
{
    int bad = 0;
    for (size_t l = 0; l < mcpp_frontier_lane_count(f); l++) {
        if (mcpp_frontier_lane_status(f, l) != MCPP_LANE_STABLE) continue;
        for (size_t a = 0; a < n; a++) {
            for (size_t b = 0; b < n; b++) {
                int ina = 0, inb = 0;
                for (size_t x = 0; x < mcpp_frontier_lane_receipt_count(f, l); x++) {
                    ina |= strcmp(mcpp_frontier_lane_receipt_id(f, l, x), mcpp_receipt_id(r[a])) == 0;
                    inb |= strcmp(mcpp_frontier_lane_receipt_id(f, l, x), mcpp_receipt_id(r[b])) == 0;
                }
                if (!ina || !inb) continue;
                mcpp_verdict v = verdict_of(p, r[a], r[b]);
                if (v != MCPP_VERDICT_COMPARABLE && v != MCPP_VERDICT_QUALIFIED) {
                    fprintf(stderr, "policy %s: %s and %s in stable lane %zu are %s\n", mcpp_policy_name(p),
                            mcpp_receipt_id(r[a]), mcpp_receipt_id(r[b]), l, mcpp_verdict_name(v));
                    bad++;
                }
            }
        }
    }
    return bad;
}

/* A supported claim names exactly one lane, and it is stable. */
static int supported_claims_name_a_stable_lane(const mcpp_policy *p, const mcpp_frontier *f, mcpp_receipt **r,
                                               size_t n)
{
    static const char *const selectors[] = {"family=NAM56R", "moe=jagged", "seq_len=4096,moe=padded",
                                            "seq_len=2048", "moe=jagged,seq_len=16384"};
    int bad = 0;
    for (size_t s = 0; s < sizeof selectors / sizeof selectors[0]; s++) {
        for (size_t l = 0; l < mcpp_frontier_lane_count(f) + 1; l++) {
            mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
            double value = l < mcpp_frontier_lane_count(f) && mcpp_frontier_lane_headline(&h, f, l) == MCPP_OK
                               ? h.median : 262144;
            mcpp_claim_result *c = NULL;
            if (mcpp_claim_check(&c, p, (const mcpp_receipt *const *)r, n, selectors[s], NULL, value) != MCPP_OK) {
                fprintf(stderr, "policy %s: claim failed: %s\n", mcpp_policy_name(p), mcpp_error_last()->message);
                bad++;
                continue;
            }
            if (mcpp_claim_result_verdict(c) == MCPP_CLAIM_SUPPORTED &&
                (mcpp_claim_result_matched_count(c) != 1 || mcpp_claim_result_matched_status(c, 0) != MCPP_LANE_STABLE)) {
                fprintf(stderr, "policy %s: claim %s = %g supported without one stable lane\n", mcpp_policy_name(p),
                        selectors[s], value);
                bad++;
            }
            mcpp_claim_result_free(c);
        }
    }
    return bad;
}

/* The gate passes a candidate only with a comparable (or qualified) baseline. */
/* Whether two receipts are in one lane (their mcpp_lane_key texts are equal). */
static int lane_key_equal(const mcpp_policy *p, const mcpp_receipt *a, const mcpp_receipt *b)
{
    char *ka = NULL, *kb = NULL;
    int same = mcpp_lane_key(&ka, p, a) == MCPP_OK && mcpp_lane_key(&kb, p, b) == MCPP_OK && strcmp(ka, kb) == 0;
    mcpp_free(ka);
    mcpp_free(kb);
    return same;
}

static int gate_passes_only_comparable(const mcpp_policy *p, mcpp_receipt **r, size_t n)
{
    size_t nb = n / 2;
    mcpp_gate_report *g = NULL;
    if (mcpp_gate_run(&g, p, (const mcpp_receipt *const *)r, nb, (const mcpp_receipt *const *)r + nb, n - nb) != MCPP_OK) {
        fprintf(stderr, "policy %s: gate failed: %s\n", mcpp_policy_name(p), mcpp_error_last()->message);
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < mcpp_gate_report_count(g); i++) {
        if (mcpp_gate_report_entry_outcome(g, i) != MCPP_GATE_PASSED) continue;
        int any = 0, same_lane = 0;
        for (size_t b = 0; b < nb; b++) {
            same_lane |= lane_key_equal(p, r[b], r[nb + i]);
            if (strcmp(mcpp_receipt_id(r[b]), mcpp_receipt_id(r[nb + i])) == 0) continue;
            mcpp_verdict v = verdict_of(p, r[b], r[nb + i]);
            any |= v == MCPP_VERDICT_COMPARABLE || v == MCPP_VERDICT_QUALIFIED;
        }
        /* a new lane passes without one: no baseline may be in its lane */
        if (!any && strcmp(mcpp_gate_report_entry_reason_code(g, i), "new_lane") == 0) {
            if (same_lane) {
                fprintf(stderr, "policy %s: %s passed as a new lane with a baseline in its lane\n", mcpp_policy_name(p),
                        mcpp_receipt_id(r[nb + i]));
                bad++;
            }
            continue;
        }
        if (!any) {
            fprintf(stderr, "policy %s: gate passed %s without a comparable baseline\n", mcpp_policy_name(p),
                    mcpp_receipt_id(r[nb + i]));
            bad++;
        }
    }
    for (size_t a = 0; a < nb; a++) {
        mcpp_comparison *c = NULL;
        if (mcpp_compare(&c, p, r[a], r[nb + a]) != MCPP_OK) {
            fprintf(stderr, "policy %s: compare failed: %s\n", mcpp_policy_name(p), mcpp_error_last()->message);
            bad++;
            continue;
        }
        mcpp_verdict v = mcpp_comparison_verdict(c);
        if (mcpp_comparison_gate(c) == MCPP_GATE_PASSED && v != MCPP_VERDICT_COMPARABLE && v != MCPP_VERDICT_QUALIFIED)
            bad++;
        mcpp_comparison_free(c);
    }
    mcpp_gate_report_free(g);
    return bad;
}

TEST(property_stable_lanes_supported_claims_and_passed_gates_rest_on_comparable_pairs)
{
    static const unsigned long long seeds[] = {1, 7, 42, 2026, 90210};
    enum { N = 24 };
    mcpp_policy *policies[N_SHIPPED + 1];
    for (size_t k = 0; k < N_SHIPPED; k++) policies[k] = shipped(SHIPPED[k]);
    policies[N_SHIPPED] = seq_rule_policy();
    int failures = 0, stable_seen = 0;
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0] && !failures; s++) {
        rng_state = seeds[s];
        mcpp_receipt *r[N];
        for (int i = 0; i < N; i++) r[i] = random_run(i);
        for (size_t k = 0; k <= N_SHIPPED && !failures; k++) {
            const mcpp_policy *p = policies[k];
            if (!p) {
                failures++;
                continue;
            }
            mcpp_frontier *f = NULL;
            if (mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)r, N) != MCPP_OK) {
                fprintf(stderr, "policy %s: frontier failed: %s\n", mcpp_policy_name(p), mcpp_error_last()->message);
                failures++;
                continue;
            }
            stable_seen += (int)mcpp_frontier_stable_count(f);
            failures += stable_lanes_hold_comparable_pairs(p, f, r, N);
            failures += supported_claims_name_a_stable_lane(p, f, r, N);
            failures += gate_passes_only_comparable(p, r, N);
            mcpp_frontier_free(f);
        }
        free_all(r, N);
    }
    CHECK_INT_EQ(failures, 0);
    CHECK(stable_seen > 0); /* the property was exercised on stable lanes, not vacuously */
    for (size_t k = 0; k <= N_SHIPPED; k++) mcpp_policy_free(policies[k]);
}

/* ---- 8. absent on both sides ---------------------------------------------------------------------- */

TEST(startup_absent_on_both_sides_is_not_recorded_qualified_by_default_insufficient_under_strict)
{
    mcpp_receipt *a = FIX("\"startup\":{\"state\":\"warm_cache\"},", "");
    mcpp_receipt *b = FIX("\"startup\":{\"state\":\"warm_cache\"},", "", BASE_ID, "\"id\":\"base-2\"");
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, NULL, a, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_QUALIFIED);
    CHECK_INT_EQ(row_status(c, "startup"), MCPP_DIM_QUALIFY);
    CHECK_CONTAINS(row_reason(c, "startup"), "not recorded on either side");
    mcpp_comparison_free(c);
    mcpp_policy *strict = shipped("strict.lua");
    CHECK_INT_EQ(mcpp_compare(&c, strict, a, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_INSUFFICIENT);
    CHECK_INT_EQ(row_status(c, "startup"), MCPP_DIM_MISSING);
    mcpp_comparison_free(c);
    mcpp_policy_free(strict);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

/* ---- 9. internal consistency ----------------------------------------------------------------------- */

static const char *load_error(const char *const *pairs, size_t n)
{
    static char message[1024];
    char *text = fixture_text(pairs, n);
    mcpp_receipt *r = NULL;
    int rc = mcpp_receipt_load_buffer(&r, NULL, text, strlen(text), MCPP_FORMAT_JSON, "inconsistent", NULL);
    free(text);
    mcpp_receipt_free(r);
    snprintf(message, sizeof message, "%s", rc == MCPP_OK ? "(loaded)" : mcpp_error_last()->message);
    return message;
}

#define LOAD_ERROR(...) \
    load_error((const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *) / 2)

TEST(a_receipt_that_disagrees_with_itself_is_invalid_with_both_numbers)
{
    /* 262144 useful tokens over a 1 s median step is 262144 tokens/s, not 275000. */
    const char *m = LOAD_ERROR("\"tokens_per_s\":262144", "\"tokens_per_s\":275000");
    CHECK_CONTAINS(m, "metrics.tokens_per_s");
    CHECK_CONTAINS(m, "262144");
    CHECK_CONTAINS(m, "275000");
    CHECK_STR_EQ(LOAD_ERROR("\"tokens_per_s\":262144", "\"tokens_per_s\":263000"), "(loaded)"); /* within 1% */
    m = LOAD_ERROR("\"tokens_per_s\":262144", "\"tokens_per_s\":262144,\"goodput\":{\"allocated_s\":100,\"kernel_busy_s\":90,\"useful_s\":95}");
    CHECK_CONTAINS(m, "metrics.goodput.useful_s");
    CHECK_CONTAINS(m, "expected at most metrics.goodput.kernel_busy_s (90), got 95");
    m = LOAD_ERROR("\"tokens_per_s\":262144", "\"tokens_per_s\":262144,\"goodput\":{\"allocated_s\":100,\"kernel_busy_s\":120}");
    CHECK_CONTAINS(m, "expected at most metrics.goodput.allocated_s (100), got 120");
    m = LOAD_ERROR("\"tokens_per_s\":262144", "\"tokens_per_s\":262144,\"goodput\":{\"allocated_s\":100,\"badput_s\":{\"compile\":70,\"idle\":40}}");
    CHECK_CONTAINS(m, "badput_s sum (110)");
    CHECK_CONTAINS(m, "allocated_s 100");
    m = LOAD_ERROR("\"params_total\":56210000000", "\"params_total\":1000,\"params_active\":2000");
    CHECK_CONTAINS(m, "expected at most lane.params_total (1000), got 2000");
}

TEST(a_changed_denominator_is_a_named_qualification_with_both_values)
{
    mcpp_receipt *a = FIX(SAME);
    mcpp_receipt *b = FIX(BASE_ID, "\"id\":\"denominator-2\"", "\"tokens_per_step\":262144", "\"tokens_per_step\":262144",
                          "\"useful_tokens_per_step\":262144", "\"useful_tokens_per_step\":250000",
                          "\"tokens_per_s\":262144", "\"tokens_per_s\":250000");
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, NULL, a, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_QUALIFIED);
    CHECK_INT_EQ(row_status(c, "denominator"), MCPP_DIM_QUALIFY);
    CHECK_CONTAINS(row_reason(c, "denominator"), "workload.useful_tokens_per_step differs: 262144 vs 250000");
    CHECK_CONTAINS(row_reason(c, "denominator"), "preserve it before accepting the win");
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

/* ---- 10. single-run points ------------------------------------------------------------------------- */

TEST(one_run_against_one_run_without_a_noise_source_is_undetermined_unless_the_policy_allows_points)
{
    mcpp_receipt *base = run("pt-base", 262144, SAME, SAME);
    mcpp_receipt *slow = run("pt-slow", 200000, SAME, SAME); /* 24% slower, one number each */
    mcpp_policy *quiet = NULL; /* the default policy without its declared run-to-run noise */
    CHECK_INT_EQ(mcpp_policy_default(&quiet), MCPP_OK);
    mcpp_noise_settings n = *mcpp_policy_noise(quiet);
    n.run_to_run = 0;
    CHECK_INT_EQ(mcpp_policy_set_noise(quiet, &n), MCPP_OK);
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, quiet, base, slow), MCPP_OK);
    CHECK(mcpp_comparison_metric(c) && mcpp_comparison_metric(c)->point_comparison);
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_UNDETERMINED);
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "point comparison");
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "does not allow point comparisons");
    mcpp_comparison_free(c);
    const mcpp_receipt *b1[1] = {base}, *c1[1] = {slow};
    mcpp_gate_report *g = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&g, quiet, b1, 1, c1, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_outcome(g), MCPP_GATE_UNDETERMINED);
    mcpp_gate_report_free(g);
    /* The default policy declares 3% run-to-run noise: 24% is established against it. */
    CHECK_INT_EQ(mcpp_compare(&c, NULL, base, slow), MCPP_OK);
    CHECK(mcpp_comparison_metric(c) && strcmp(mcpp_comparison_metric(c)->noise_source, "policy") == 0);
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_FAILED);
    mcpp_comparison_free(c);
    mcpp_policy *p = quiet;
    CHECK_INT_EQ(mcpp_policy_set_allow_point_comparisons(p, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_allow_point_comparisons(p), 1);
    CHECK_INT_EQ(mcpp_compare(&c, p, base, slow), MCPP_OK);
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_FAILED);
    mcpp_comparison_free(c);
    mcpp_policy_free(p);
    const char lua[] = "return { include = { \"default.lua\" }, gate = { allow_point_comparisons = true } }";
    char name[1024];
    snprintf(name, sizeof name, "%s/points.lua", policy_dir);
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, lua, strlen(lua), name, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_allow_point_comparisons(p), 1);
    mcpp_policy_free(p);
    mcpp_receipt_free(base);
    mcpp_receipt_free(slow);
}

/* ---- 11. new lanes --------------------------------------------------------------------------------- */

/* A candidate in a lane no baseline has passes as a new lane while every
 * baseline lane keeps a candidate (a benchmark the change adds); it is
 * undetermined under new_lanes = fail, and never new when a baseline lane lost
 * its candidates (the lane may have changed into the new one). No baselines at
 * all: a first run, every candidate new. */
TEST(a_new_lane_passes_unless_the_policy_fails_it_and_a_lane_that_lost_its_candidates_is_no_new_lane)
{
    mcpp_receipt *b1 = run("nl-base-1", 262144, SAME, SAME), *b2 = run("nl-base-2", 262000, SAME, SAME);
    mcpp_receipt *same = run("nl-cand", 262100, SAME, SAME);
    mcpp_receipt *added = run("nl-added", 131072, "\"seq_len\":4096", "\"seq_len\":8192", SAME);
    const mcpp_receipt *bases[] = {b1, b2}, *both[] = {same, added}, *only_added[] = {added};
    mcpp_gate_report *g = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&g, NULL, bases, 2, both, 2), MCPP_OK);
    CHECK_INT_EQ(not_failed_as_passed(mcpp_gate_report_outcome(g)), MCPP_GATE_PASSED); /* nl-cand: 2+1 runs */
    CHECK_STR_EQ(mcpp_gate_report_entry_reason_code(g, 1), "new_lane");
    CHECK_INT_EQ(mcpp_gate_report_entry_outcome(g, 1), MCPP_GATE_PASSED);
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(g, 1), "new lane: none of the 2 baselines is in this lane");
    CHECK_CONTAINS(mcpp_gate_report_reason(g), "1 new lane recorded, not gated");
    char *md = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render(&md, g, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_CONTAINS(md, "| new lane |");
    mcpp_free(md);
    mcpp_gate_report_free(g);

    mcpp_policy *fail = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&fail), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_new_lanes_fail(fail, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_run(&g, fail, bases, 2, both, 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_outcome(g), MCPP_GATE_UNDETERMINED);
    CHECK_INT_EQ(mcpp_gate_report_exit_code(g), 2);
    CHECK_STR_EQ(mcpp_gate_report_entry_reason_code(g, 1), "new_lane");
    mcpp_gate_report_free(g);
    mcpp_policy_free(fail);

    CHECK_INT_EQ(mcpp_gate_run(&g, NULL, bases, 2, only_added, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_outcome(g), MCPP_GATE_UNDETERMINED);
    CHECK_STR_EQ(mcpp_gate_report_entry_reason_code(g, 0), "no_comparable_baseline");
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(g, 0), "not a new lane");
    mcpp_gate_report_free(g);

    CHECK_INT_EQ(mcpp_gate_run(&g, NULL, NULL, 0, both, 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_outcome(g), MCPP_GATE_PASSED);
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(g, 0), "there are no baselines yet (a first run)");
    CHECK_CONTAINS(mcpp_gate_report_reason(g), "2 new lanes, no baseline to compare with yet");
    mcpp_gate_report_free(g);

    const char lua[] = "return { include = { \"default.lua\" }, gate = { new_lanes = \"fail\" } }";
    const char bad[] = "return { include = { \"default.lua\" }, gate = { new_lanes = \"maybe\" } }";
    char name[1024];
    snprintf(name, sizeof name, "%s/new_lanes.lua", policy_dir);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, lua, strlen(lua), name, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_new_lanes_fail(p), 1);
    mcpp_policy_free(p);
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, bad, strlen(bad), name, NULL), MCPP_EPOLICY);
    CHECK_CONTAINS(mcpp_error_last()->message, "gate.new_lanes must be \"pass\" or \"fail\"");
    mcpp_receipt_free(b1);
    mcpp_receipt_free(b2);
    mcpp_receipt_free(same);
    mcpp_receipt_free(added);
}

/* ---- 12. names no receipt states ---------------------------------------------------------------------- */

/* A misspelt metric or selector value is an argument error naming the closest
 * stated one, in the library itself (every front end calls it), not an empty
 * report or an "unsupported" claim. */
TEST(a_misspelt_metric_or_selector_value_is_an_argument_error_with_a_suggestion)
{
    mcpp_receipt *a = run("dym-1", 262144, SAME, SAME), *b = run("dym-2", 262000, SAME, SAME);
    const mcpp_receipt *rs[] = {a, b};
    CHECK_INT_EQ(mcpp_metric_check_stated("tokens_per_s", rs, 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_metric_check_stated("primary", rs, 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_metric_check_stated("metrics.tokens_per_s", rs, 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_metric_check_stated(NULL, rs, 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_metric_check_stated("tokens_per_sec", rs, 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_metric_check_stated("tokens_per_sec", rs, 2), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message,
                   "no receipt states the metric 'tokens_per_sec'; did you mean 'tokens_per_s'?");
    CHECK_INT_EQ(mcpp_metric_check_stated("zzzzzzzzzzzz", rs, 2), MCPP_EARG);
    CHECK(strstr(mcpp_error_last()->message, "did you mean") == NULL);
    mcpp_claim_result *c = NULL;
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, rs, 2, "seq_len=4069", NULL, 262144), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "no receipt has workload.seq_len = '4069'; did you mean '4096'?");
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, rs, 2, "seq_len=4096", "tokens_per_sec", 262144), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "did you mean 'tokens_per_s'?");
    /* names and labels: the case ("name=nam56r hybrid moe lane") or a
     * name's first words ("name=NAM56R") are slips too; a pattern's start is
     * not ("AEME" of AEMEAEMEAEMR: a pattern of its own, nobody measured) */
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, rs, 2, "name=nam56r hybrid moe lane", NULL, 262144), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message,
                   "no receipt has lane.name = 'nam56r hybrid moe lane'; did you mean 'NAM56R hybrid MoE lane'?");
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, rs, 2, "name=NAM56R", NULL, 262144), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message,
                   "no receipt has lane.name = 'NAM56R'; did you mean 'NAM56R hybrid MoE lane'?");
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, rs, 2, "pattern=AEME", NULL, 262144), MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_result_verdict(c), MCPP_CLAIM_UNSUPPORTED);
    mcpp_claim_result_free(c);
    /* a value far from every stated one is a lane nobody measured: a verdict */
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, rs, 2, "seq_len=16384", NULL, 262144), MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_result_verdict(c), MCPP_CLAIM_UNSUPPORTED);
    mcpp_claim_result_free(c);
    /* a value some receipt has, in a lane that is not stable, stays a verdict */
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, rs, 2, "seq_len=4096", NULL, 262144), MCPP_OK);
    mcpp_claim_result_free(c);
    /* a policy file that gates on a misspelt metric (issue 49 item 8): the same
     * suggestion, naming the policy; each of several gate metrics is checked */
    static const char *const lua[] = {
        "return { include = { \"default.lua\" }, name = \"team\", gate = { metric = \"tokens_per_sec\" } }",
        "return { include = { \"default.lua\" }, name = \"team\", gate = { metrics = { "
        "{ name = \"tokens_per_s\" }, { name = \"tokens_per_sec\" } } } }",
        "return { include = { \"default.lua\" }, name = \"team\", gate = { metric = \"tokens_per_s\" } }",
        /* of several, a metric of another suite (nothing near it) is skipped by the gate, not refused */
        "return { include = { \"default.lua\" }, name = \"team\", gate = { metrics = { "
        "{ name = \"tokens_per_s\" }, { name = \"time_to_train_s\" } } } }"};
    char name[1024];
    snprintf(name, sizeof name, "%s/team.lua", policy_dir);
    for (int i = 0; i < 4; i++) {
        mcpp_policy *p = NULL;
        CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, lua[i], strlen(lua[i]), name, NULL), MCPP_OK);
        CHECK_INT_EQ(mcpp_policy_check_metrics_stated(p, rs, 2), i < 2 ? MCPP_EARG : MCPP_OK);
        if (i < 2)
            CHECK_CONTAINS(mcpp_error_last()->message, "policy 'team' gates on the metric 'tokens_per_sec', which no "
                                                       "receipt states; did you mean 'tokens_per_s'?");
        mcpp_policy_free(p);
    }
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s POLICY_DIR WORK_DIR\n", argv[0]);
        return 2;
    }
    policy_dir = argv[1];
    work_dir = argv[2];
    mkdir(work_dir, 0755);
    RUN(receipts_holding_only_tokens_per_s_make_an_insufficient_lane_and_an_unsupported_claim);
    RUN(a_selector_matching_several_lanes_is_ambiguous_and_lists_them_all);
    RUN(failed_verification_is_not_comparable_and_makes_the_lane_unstable_under_every_shipped_policy);
    RUN(a_run_whose_request_was_not_met_is_excluded_and_the_clean_runs_decide_the_lane);
    RUN(two_files_with_one_id_and_different_content_are_a_conflict_naming_both);
    RUN(a_rule_that_makes_a_pair_not_comparable_keeps_their_lane_from_being_stable);
    RUN(property_stable_lanes_supported_claims_and_passed_gates_rest_on_comparable_pairs);
    RUN(startup_absent_on_both_sides_is_not_recorded_qualified_by_default_insufficient_under_strict);
    RUN(a_receipt_that_disagrees_with_itself_is_invalid_with_both_numbers);
    RUN(a_changed_denominator_is_a_named_qualification_with_both_values);
    RUN(one_run_against_one_run_without_a_noise_source_is_undetermined_unless_the_policy_allows_points);
    RUN(a_new_lane_passes_unless_the_policy_fails_it_and_a_lane_that_lost_its_candidates_is_no_new_lane);
    RUN(a_misspelt_metric_or_selector_value_is_an_argument_error_with_a_suggestion);
    TEST_MAIN_END();
}
