/*
 * test_comparability_audit.c — the concepts of the engineering notes that an
 * outside audit (issue 27) found judged wrong, one test per concept, each
 * named after it. Every case is a pair (or a set) of receipts that differ in
 * exactly that concept: shipped examples with text substitutions.
 */
#include <unistd.h>

#include "example_variants.h"

#define PADDED "nam56r_padded.json"
#define RUN2 "nam56r_padded_run2.json"
#define RUN3 "nam56r_padded_run3.json"
#define PYTEST "schema2/pytest_benchmark_sorted.json"

/* Lanes of a frontier over rs[0..n-1] under the default policy. */
static size_t lanes_of(mcpp_receipt **rs, size_t n)
{
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, n), MCPP_OK);
    size_t lanes = mcpp_frontier_lane_count(f);
    mcpp_frontier_free(f);
    return lanes;
}

static void free_all(mcpp_receipt **rs, size_t n)
{
    for (size_t i = 0; i < n; i++) mcpp_receipt_free(rs[i]);
}

/* The gate outcome of one pair under the default policy. */
static mcpp_gate_outcome gate_of(mcpp_receipt *a, mcpp_receipt *b)
{
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, NULL, a, b), MCPP_OK);
    mcpp_gate_outcome g = mcpp_comparison_gate(c);
    mcpp_comparison_free(c);
    return g;
}

#define PARAMS "\"params_total\": 56210000000"

TEST(model_size_is_part_of_the_lane)
{
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL),
           variant(RUN2, "b", PARAMS, "\"params_total\": 112420000000", NULL, NULL), MCPP_VERDICT_NOT_COMPARABLE,
           "model_size", MCPP_DIM_MISMATCH, "lane.params_total differs: 56210000000 vs 112420000000");
    expect(variant(PADDED, "a", PARAMS, PARAMS ", \"d_model\": 64", NULL, NULL),
           variant(RUN2, "b", PARAMS, PARAMS ", \"d_model\": 128", NULL, NULL), MCPP_VERDICT_NOT_COMPARABLE,
           "model_size", MCPP_DIM_MISMATCH, "lane.d_model differs: 64 vs 128");
    /* stated on one side only: no evidence the model is the same */
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL),
           variant(RUN2, "b", PARAMS, PARAMS ", \"d_model\": 128", NULL, NULL), MCPP_VERDICT_INSUFFICIENT,
           "model_size", MCPP_DIM_MISSING, "lane.d_model is absent on base");
    /* the same size: the row matches */
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL), variant(RUN2, "b", NULL, NULL, NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "model_size", MCPP_DIM_MATCH, "same on both sides");
    /* attention heads are part of the size: 64 heads of 128 is not 32 of 256 */
    expect(variant(PADDED, "a", PARAMS, PARAMS ", \"heads\": 64", NULL, NULL),
           variant(RUN2, "b", PARAMS, PARAMS ", \"heads\": 32", NULL, NULL), MCPP_VERDICT_NOT_COMPARABLE,
           "model_size", MCPP_DIM_MISMATCH, "lane.heads differs: 64 vs 32");
    /* the gate does not compare two models' speeds */
    mcpp_receipt *a = variant(PADDED, "a", NULL, NULL, NULL, NULL);
    mcpp_receipt *b = variant(RUN2, "b", PARAMS, "\"params_total\": 112420000000", NULL, NULL);
    CHECK_INT_EQ((int)gate_of(a, b), (int)MCPP_GATE_UNDETERMINED);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    /* runs of two sizes are two frontier lanes */
    mcpp_receipt *rs[3] = {variant(PADDED, "a", NULL, NULL, NULL, NULL), variant(RUN2, "b", NULL, NULL, NULL, NULL),
                           variant(RUN3, "c", PARAMS, "\"params_total\": 112420000000", NULL, NULL)};
    CHECK_INT_EQ((int)lanes_of(rs, 3), 2);
    free_all(rs, 3);
}

#define PRECISION "\"precision\": {\n      \"observed\": \"bf16\""

TEST(precision_requested_other_than_observed_is_a_fallback)
{
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL),
           variant(RUN2, "b", PRECISION, "\"precision\": {\"requested\": \"bf16+fp8\", \"observed\": \"bf16\"", NULL,
                   NULL),
           MCPP_VERDICT_QUALIFIED, "fallbacks", MCPP_DIM_QUALIFY, "precision: requested bf16+fp8, observed bf16");
    /* the run whose request was not met leaves the headline */
    mcpp_receipt *rs[3] = {
        variant(PADDED, "a", NULL, NULL, NULL, NULL), variant(RUN2, "b", NULL, NULL, NULL, NULL),
        variant(RUN3, "c", PRECISION, "\"precision\": {\"requested\": \"bf16+fp8\", \"observed\": \"bf16\"", NULL,
                NULL)};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_frontier_lane_count(f), 1);
    CHECK_INT_EQ((int)mcpp_frontier_lane_excluded_count(f, 0), 1);
    CHECK_CONTAINS(mcpp_frontier_lane_excluded_reason(f, 0, 0), "precision: requested bf16+fp8");
    mcpp_frontier_free(f);
    free_all(rs, 3);
    /* asked and got: no fallback */
    expect(variant(PADDED, "a", PRECISION, "\"precision\": {\"requested\": \"bf16\", \"observed\": \"bf16\"", NULL,
                   NULL),
           variant(RUN2, "b", NULL, NULL, NULL, NULL), MCPP_VERDICT_COMPARABLE, "fallbacks", MCPP_DIM_MATCH, NULL);
}

#define ATTN "\"requested\": \"flash_attn_3\""

TEST(an_auto_request_is_met_by_whatever_ran)
{
    expect(variant(PADDED, "a", ATTN, "\"requested\": \"auto\"", "\"requested\": \"padded\"", "\"requested\": \"auto\""),
           variant(RUN2, "b", ATTN, "\"requested\": \"AUTO\"", NULL, NULL), MCPP_VERDICT_COMPARABLE, "fallbacks",
           MCPP_DIM_MATCH, "no fallback fired");
    /* every run of an auto lane counts for the headline */
    mcpp_receipt *rs[3] = {variant(PADDED, "a", ATTN, "\"requested\": \"auto\"", NULL, NULL),
                           variant(RUN2, "b", ATTN, "\"requested\": \"auto\"", NULL, NULL),
                           variant(RUN3, "c", ATTN, "\"requested\": \"auto\"", NULL, NULL)};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_frontier_lane_excluded_count(f, 0), 0);
    CHECK_INT_EQ((int)mcpp_frontier_lane_receipt_count(f, 0), 3);
    CHECK_INT_EQ(mcpp_frontier_lane_status(f, 0), (int)MCPP_LANE_STABLE);
    mcpp_frontier_free(f);
    free_all(rs, 3);
    /* a reason names only what was not met: the met hardware request is not listed */
    mcpp_comparison *c = NULL;
    mcpp_receipt *a = variant(PADDED, "a", NULL, NULL, NULL, NULL);
    mcpp_receipt *b = variant(RUN2, "b", "\"observed\": \"flash_attn_3\"", "\"observed\": \"sdpa\"", NULL, NULL);
    CHECK_INT_EQ(mcpp_compare(&c, NULL, a, b), MCPP_OK);
    size_t r = row_of(c, "fallbacks");
    CHECK(r != (size_t)-1);
    if (r != (size_t)-1) {
        CHECK_CONTAINS(mcpp_comparison_row_reason(c, r), "attention: requested flash_attn_3, observed sdpa");
        CHECK(strstr(mcpp_comparison_row_reason(c, r), "hardware") == NULL);
    }
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

#define PYHW "\"hardware\": {\n    \"observed\""
#define GEMM(impl) "\"backend\": {\"gemm\": {\"observed\": \"" impl "\"}},\n  " PYHW

TEST(benchmark_suite_implementation_is_a_lane)
{
    /* naive ijk against ikj GEMM: another implementation, another lane, in
     * compare, gate and frontier alike */
    expect(variant(PYTEST, "p1", PYHW, GEMM("naive_ijk"), NULL, NULL),
           variant(PYTEST, "p2", PYHW, GEMM("ikj"), NULL, NULL), MCPP_VERDICT_NOT_COMPARABLE, "backend",
           MCPP_DIM_MISMATCH, "backend.gemm.observed differs: naive_ijk vs ikj");
    mcpp_receipt *a = variant(PYTEST, "p1", PYHW, GEMM("naive_ijk"), NULL, NULL);
    mcpp_receipt *b = variant(PYTEST, "p2", PYHW, GEMM("ikj"), NULL, NULL);
    CHECK_INT_EQ((int)gate_of(a, b), (int)MCPP_GATE_UNDETERMINED);
    mcpp_receipt *rs[2] = {a, b};
    CHECK_INT_EQ((int)lanes_of(rs, 2), 2);
    free_all(rs, 2);
    /* the same implementation: one lane */
    expect(variant(PYTEST, "p1", PYHW, GEMM("ikj"), NULL, NULL), variant(PYTEST, "p2", PYHW, GEMM("ikj"), NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "backend", MCPP_DIM_MATCH, "same on both sides");
    /* suite results that state no implementation: nothing to compare */
    expect(variant(PYTEST, "p1", NULL, NULL, NULL, NULL), variant(PYTEST, "p2", NULL, NULL, NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "backend", MCPP_DIM_MATCH, "neither side states it");
}

#define LAUNCH "\"launch\": {"
#define STACK(v) "\"software\": {\"framework\": \"pytorch\", \"version\": \"" v "\"}, \"launch\": {"

TEST(software_stack_qualifies_model_runs)
{
    expect(variant(PADDED, "a", LAUNCH, STACK("2.12"), NULL, NULL), variant(RUN2, "b", LAUNCH, STACK("2.13"), NULL, NULL),
           MCPP_VERDICT_QUALIFIED, "software", MCPP_DIM_QUALIFY, "software.version differs: 2.12 vs 2.13");
    expect(variant(PADDED, "a", LAUNCH, STACK("2.12"), NULL, NULL), variant(RUN2, "b", NULL, NULL, NULL, NULL),
           MCPP_VERDICT_QUALIFIED, "software", MCPP_DIM_QUALIFY, "absent on cand");
    /* neither records its stack: not a difference */
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL), variant(RUN2, "b", NULL, NULL, NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "software", MCPP_DIM_MATCH, "neither side states it");
}

#define MLPERF "schema2/mlperf_llama2_70b_lora.json"

TEST(mlperf_lane_key_is_submitter_system_and_software)
{
    expect(variant(MLPERF, "m1", NULL, NULL, NULL, NULL),
           variant(MLPERF, "m2", "\"submitter\": \"ExampleCorp\"", "\"submitter\": \"OtherCorp\"", NULL, NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "benchmark", MCPP_DIM_MISMATCH, "benchmark.submitter differs");
    expect(variant(MLPERF, "m1", NULL, NULL, NULL, NULL),
           variant(MLPERF, "m2", "\"system\": \"examplecorp_8xh100_sxm\"", "\"system\": \"other_8xh100\"", NULL,
                   NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "benchmark", MCPP_DIM_MISMATCH, "benchmark.system differs");
    /* under mlperf.lua the software stack is part of the key too */
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, MCPP_POLICY_DIR "/mlperf.lua", NULL), MCPP_OK);
    mcpp_receipt *rs[2] = {variant(MLPERF, "m1", NULL, NULL, NULL, NULL),
                           variant(MLPERF, "m2", "pytorch:24.09-py3", "pytorch:24.10-py3", NULL, NULL)};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, (const mcpp_receipt *const *)rs, 2), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_frontier_lane_count(f), 2);
    mcpp_frontier_free(f);
    mcpp_verdict v;
    CHECK_INT_EQ(mcpp_compare_verdict(&v, p, rs[0], rs[1]), MCPP_OK);
    CHECK_INT_EQ((int)v, (int)MCPP_VERDICT_NOT_COMPARABLE);
    free_all(rs, 2);
    mcpp_policy_free(p);
}

#define COUNT8 "\"count\": 8,\n      \"memory_gib\""

TEST(accelerators_per_node_is_part_of_the_hardware)
{
    expect(variant(PADDED, "a", COUNT8, "\"count\": 8, \"per_node\": 8,\n      \"memory_gib\"", NULL, NULL),
           variant(RUN2, "b", COUNT8, "\"count\": 8, \"per_node\": 4,\n      \"memory_gib\"", NULL, NULL),
           MCPP_VERDICT_NOT_COMPARABLE, "hardware", MCPP_DIM_MISMATCH, "hardware.observed.per_node differs: 8 vs 4");
    mcpp_receipt *rs[2] = {
        variant(PADDED, "a", COUNT8, "\"count\": 8, \"per_node\": 8,\n      \"memory_gib\"", NULL, NULL),
        variant(RUN2, "b", COUNT8, "\"count\": 8, \"per_node\": 4,\n      \"memory_gib\"", NULL, NULL)};
    CHECK_INT_EQ((int)lanes_of(rs, 2), 2);
    free_all(rs, 2);
}

#define LANE "\"lane\": {"
#define AT_STEP(step, tokens) "\"run\": {\"position\": {\"step\": " #step ", \"tokens_seen\": " #tokens "}},\n  " LANE

TEST(training_position_qualifies_a_warmup_window_against_steady_state)
{
    /* step 20 (warm-up) against step 6000 (steady state): compared, and qualified */
    expect(variant(PADDED, "a", LANE, AT_STEP(20, 20971520), NULL, NULL),
           variant(RUN2, "b", LANE, AT_STEP(6000, 6291456000), NULL, NULL), MCPP_VERDICT_QUALIFIED, "position",
           MCPP_DIM_QUALIFY, "run.position.step differs: 20 vs 6000");
    /* the tokens seen alone say it as well */
    expect(variant(PADDED, "a", LANE, "\"run\": {\"position\": {\"tokens_seen\": 20971520}},\n  " LANE, NULL, NULL),
           variant(RUN2, "b", LANE, "\"run\": {\"position\": {\"tokens_seen\": 6291456000}},\n  " LANE, NULL, NULL),
           MCPP_VERDICT_QUALIFIED, "position", MCPP_DIM_QUALIFY, "run.position.tokens_seen differs");
    /* one power-of-two range (4096-8191 steps): the same position */
    expect(variant(PADDED, "a", LANE, AT_STEP(5000, 5242880000), NULL, NULL),
           variant(RUN2, "b", LANE, AT_STEP(6000, 6291456000), NULL, NULL), MCPP_VERDICT_COMPARABLE, "position",
           MCPP_DIM_MATCH, "same on both sides");
    /* known on one side only: not silently the same */
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL), variant(RUN2, "b", LANE, AT_STEP(6000, 6291456000), NULL, NULL),
           MCPP_VERDICT_QUALIFIED, "position", MCPP_DIM_QUALIFY, "run.position.step is absent on base");
    /* stated by neither: not applicable, as before the field existed */
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL), variant(RUN2, "b", NULL, NULL, NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "position", MCPP_DIM_MATCH, "neither side states it");
    /* a qualifying dimension: one lane whatever the position */
    mcpp_receipt *rs[2] = {variant(PADDED, "a", LANE, AT_STEP(20, 20971520), NULL, NULL),
                           variant(RUN2, "b", LANE, AT_STEP(6000, 6291456000), NULL, NULL)};
    CHECK_INT_EQ((int)lanes_of(rs, 2), 1);
    free_all(rs, 2);
}

TEST(the_compile_cache_location_is_recorded_not_compared)
{
    /* where the cache lives differs between machines without changing what
     * ran; its state (compile.cache_state) is what qualifies */
    mcpp_receipt *a = variant(PADDED, "a", "\"compile\": {", "\"compile\": {\"cache\": \"/tmp/inductor-a\", ", NULL, NULL);
    mcpp_receipt *b = variant(RUN2, "b", "\"compile\": {", "\"compile\": {\"cache\": \"/scratch/inductor-b\", ", NULL, NULL);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(a, "compile.cache", &v), MCPP_OK);
    CHECK_STR_EQ(v.string, "/tmp/inductor-a");
    expect(a, b, MCPP_VERDICT_COMPARABLE, "cache", MCPP_DIM_MATCH, "same on both sides");
}

/* Renders `object` through `render` in each format and checks that every
 * output names the policy and its digest. */
#define CHECK_NAMES_POLICY(render, object, digest)                                   \
    do {                                                                         \
        for (int fmt = 0; fmt < 3; fmt++) {                                      \
            char *out = NULL;                                                    \
            CHECK_INT_EQ(render(&out, object, (mcpp_output_format)fmt), MCPP_OK); \
            if (out) {                                                           \
                CHECK_CONTAINS(out, digest);                                     \
                CHECK_CONTAINS(out, "default");                                  \
            }                                                                    \
            free(out);                                                           \
        }                                                                        \
    } while (0)

TEST(every_output_names_the_policy_and_its_content_digest)
{
    char builtin[32], lua[32], weakened[32];
    CHECK_INT_EQ(mcpp_policy_digest(builtin, sizeof builtin, NULL), MCPP_OK);
    CHECK_INT_EQ((int)strlen(builtin), MCPP_POLICY_DIGEST_LEN);
    /* default.lua is the built-in policy written out: the same digest */
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, MCPP_POLICY_DIR "/default.lua", NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_digest(lua, sizeof lua, p), MCPP_OK);
    CHECK_STR_EQ(lua, builtin);
    /* the same name with a weakened dimension: another digest */
    mcpp_policy *w = NULL;
    CHECK_INT_EQ(mcpp_policy_clone(&w, p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_role(w, "data", MCPP_ROLE_IGNORE), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_digest(weakened, sizeof weakened, w), MCPP_OK);
    CHECK_STR_EQ(mcpp_policy_name(w), "default");
    CHECK(strcmp(weakened, builtin) != 0);

    mcpp_receipt *rs[3] = {variant(PADDED, "a", NULL, NULL, NULL, NULL), variant(RUN2, "b", NULL, NULL, NULL, NULL),
                           variant(RUN3, "c", NULL, NULL, NULL, NULL)};
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, w, rs[0], rs[1]), MCPP_OK);
    CHECK_STR_EQ(mcpp_comparison_policy_digest(c), weakened);
    CHECK_NAMES_POLICY(mcpp_comparison_render, c, weakened);
    mcpp_comparison_free(c);
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    CHECK_STR_EQ(mcpp_frontier_policy_digest(f), builtin);
    CHECK_NAMES_POLICY(mcpp_frontier_render, f, builtin);
    mcpp_frontier_free(f);
    mcpp_claim_result *cl = NULL;
    CHECK_INT_EQ(mcpp_claim_check(&cl, w, (const mcpp_receipt *const *)rs, 3, "family=NAM56R", NULL, 395000), MCPP_OK);
    CHECK_STR_EQ(mcpp_claim_result_policy_digest(cl), weakened);
    CHECK_NAMES_POLICY(mcpp_claim_result_render, cl, weakened);
    mcpp_claim_result_free(cl);
    free_all(rs, 3);
    mcpp_policy_free(w);
    mcpp_policy_free(p);
}

static const char MULTI_POLICY[] =
    "return { include = { \"default.lua\" }, name = \"multi\", gate = { allow_point_comparisons = true,\n"
    "  metrics = { { name = \"tokens_per_s\", max_regression = 0.03 },\n"
    "              { name = \"peak_memory_gib\", max_regression = 0.02 } } } }\n";

/* Writes `text` to `path`; aborts when it cannot. */
static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) abort();
}

TEST(multi_metric_gate_is_one_rule_in_compare_gate_and_policy_test)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, MULTI_POLICY, strlen(MULTI_POLICY), MCPP_POLICY_DIR "/multi.lua",
                                             NULL),
                 MCPP_OK);
    /* tokens/s within noise, peak memory 12.6% worse: the second metric fails */
    mcpp_receipt *a = variant(PADDED, "a", NULL, NULL, NULL, NULL);
    mcpp_receipt *b = variant(RUN2, "b", "\"peak_memory_gib\": 71.3", "\"peak_memory_gib\": 80.3", NULL, NULL);
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, p, a, b), MCPP_OK);
    CHECK_STR_EQ(mcpp_gate_outcome_name(mcpp_comparison_gate(c)), "failed");
    CHECK_INT_EQ((int)mcpp_comparison_gate_metric_count(c), 2);
    CHECK_STR_EQ(mcpp_comparison_gate_metric_name(c, 0), "tokens_per_s");
    CHECK_STR_EQ(mcpp_gate_outcome_name(mcpp_comparison_gate_metric_outcome(c, 0)), "passed");
    CHECK_STR_EQ(mcpp_comparison_gate_metric_name(c, 1), "peak_memory_gib");
    CHECK_STR_EQ(mcpp_gate_outcome_name(mcpp_comparison_gate_metric_outcome(c, 1)), "failed");
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "peak_memory_gib");
    char *json = NULL;
    CHECK_INT_EQ(mcpp_comparison_render(&json, c, MCPP_OUTPUT_JSON), MCPP_OK);
    if (json) {
        CHECK_CONTAINS(json, "\"metrics\": [{\"name\": \"tokens_per_s\", \"outcome\": \"passed\"");
        CHECK_CONTAINS(json, "{\"name\": \"peak_memory_gib\", \"outcome\": \"failed\"");
    }
    free(json);
    mcpp_comparison_free(c);
    /* the merge gate over the same pair agrees */
    mcpp_gate_report *g = NULL;
    CHECK_INT_EQ(mcpp_gate_run_receipts(&g, p, &a, 1, &b, 1), MCPP_OK);
    CHECK_STR_EQ(mcpp_gate_outcome_name(mcpp_gate_report_outcome(g)), "failed");
    mcpp_gate_report_free(g);
    /* and a policy case can say which metric fails */
    char dir[] = "/tmp/mcpp_audit_XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/a.json", dir);
    CHECK_INT_EQ(mcpp_receipt_write_file(a, path, MCPP_FORMAT_JSON), MCPP_OK);
    snprintf(path, sizeof path, "%s/b.json", dir);
    CHECK_INT_EQ(mcpp_receipt_write_file(b, path, MCPP_FORMAT_JSON), MCPP_OK);
    snprintf(path, sizeof path, "%s/cases.json", dir);
    write_text(path, "{\"schema\": \"mcpp.policy-cases/1\", \"cases\": [{\"name\": \"memory regression\", "
                     "\"base\": \"a.json\", \"cand\": \"b.json\", \"expect\": \"comparable\", \"gate\": \"failed\", "
                     "\"gate_metrics\": {\"tokens_per_s\": \"passed\", \"peak_memory_gib\": \"failed\"}},"
                     "{\"name\": \"wrong expectation\", \"base\": \"a.json\", \"cand\": \"b.json\", "
                     "\"expect\": \"comparable\", \"gate_metrics\": {\"peak_memory_gib\": \"passed\"}}]}");
    mcpp_policy_test_report *t = NULL;
    CHECK_INT_EQ(mcpp_policy_test_file(&t, p, path), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_policy_test_report_count(t), 2);
    CHECK_INT_EQ(mcpp_policy_test_case_passed(t, 0), 1);
    CHECK_INT_EQ(mcpp_policy_test_case_passed(t, 1), 0);
    CHECK_CONTAINS(mcpp_policy_test_case_failures(t, 1), "gate metric peak_memory_gib expected passed, got failed");
    mcpp_policy_test_report_free(t);
    remove(path);
    snprintf(path, sizeof path, "%s/a.json", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/b.json", dir);
    remove(path);
    rmdir(dir);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

TEST(an_empty_receipt_warns_that_it_can_never_be_compared)
{
    static const char EMPTY[] = "{\"schema\":\"mcpp.receipt/2\"}";
    mcpp_receipt *e = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&e, NULL, EMPTY, strlen(EMPTY), MCPP_FORMAT_JSON, "empty.json", NULL),
                 MCPP_OK);
    char *gaps = NULL;
    CHECK_INT_EQ(mcpp_receipt_comparability_gaps(&gaps, NULL, e), MCPP_OK);
    CHECK(gaps != NULL);
    if (gaps) {
        CHECK_CONTAINS(gaps, "pattern (lane.pattern, lane.depth)");
        CHECK_CONTAINS(gaps, "hardware (hardware.observed.accelerator");
    }
    /* the builder offers the same check before finish, with the same text */
    mcpp_builder *b = NULL;
    CHECK_INT_EQ(mcpp_builder_new(&b), MCPP_OK);
    char *from_builder = NULL;
    CHECK_INT_EQ(mcpp_builder_comparability_gaps(&from_builder, NULL, b), MCPP_OK);
    if (gaps && from_builder) CHECK_STR_EQ(from_builder, gaps);
    free(from_builder);
    CHECK_INT_EQ(mcpp_builder_set_string(b, "lane.pattern", "A"), MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_comparability_gaps(&from_builder, NULL, b), MCPP_OK);
    if (from_builder) CHECK(strstr(from_builder, "pattern (") == NULL);
    free(from_builder);
    mcpp_builder_free(b);
    free(gaps);
    mcpp_receipt_free(e);
    /* a complete receipt has nothing missing */
    mcpp_receipt *r = variant(PADDED, "a", NULL, NULL, NULL, NULL);
    CHECK_INT_EQ(mcpp_receipt_comparability_gaps(&gaps, NULL, r), MCPP_OK);
    CHECK(gaps == NULL);
    free(gaps);
    mcpp_receipt_free(r);
}

#define FEATURES(map) "\"features\": " map ", \"launch\": {"

TEST(a_feature_known_off_equals_no_feature)
{
    /* {"stp": false}, {} and no features map: no feature in force */
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL), variant(RUN2, "b", LAUNCH, FEATURES("{\"stp\": false}"), NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "features", MCPP_DIM_MATCH, NULL);
    expect(variant(PADDED, "a", LAUNCH, FEATURES("{}"), NULL, NULL),
           variant(RUN2, "b", LAUNCH, FEATURES("{\"stp\": false, \"mtp\": false}"), NULL, NULL), MCPP_VERDICT_COMPARABLE,
           "features", MCPP_DIM_MATCH, NULL);
    expect(variant(PADDED, "a", LAUNCH, FEATURES("{\"stp\": false}"), NULL, NULL),
           variant(RUN2, "b", LAUNCH, FEATURES("{\"stp\": true}"), NULL, NULL), MCPP_VERDICT_NOT_COMPARABLE, "features",
           MCPP_DIM_MISMATCH, NULL);
    /* one lane for the three ways of saying "off" */
    mcpp_receipt *rs[3] = {variant(PADDED, "a", NULL, NULL, NULL, NULL),
                           variant(RUN2, "b", LAUNCH, FEATURES("{\"stp\": false}"), NULL, NULL),
                           variant(RUN3, "c", LAUNCH, FEATURES("{}"), NULL, NULL)};
    CHECK_INT_EQ((int)lanes_of(rs, 3), 1);
    free_all(rs, 3);
}

TEST(ablation_policy_measures_one_feature_as_a_qualified_comparison)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&p, MCPP_POLICY_DIR "/ablation.lua", NULL), MCPP_OK);
    mcpp_receipt *off = variant(PADDED, "a", NULL, NULL, NULL, NULL);
    mcpp_receipt *one = variant(RUN2, "b", LAUNCH, FEATURES("{\"stp\": true}"), NULL, NULL);
    mcpp_receipt *two = variant(RUN3, "c", LAUNCH, FEATURES("{\"stp\": true, \"mtp\": \"2\"}"), NULL, NULL);
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, p, off, one), MCPP_OK);
    CHECK_STR_EQ(mcpp_verdict_name(mcpp_comparison_verdict(c)), "qualified");
    CHECK(mcpp_comparison_metric(c) != NULL); /* the tax, as a number */
    mcpp_comparison_free(c);
    mcpp_verdict v;
    CHECK_INT_EQ(mcpp_compare_verdict(&v, p, off, two), MCPP_OK);
    CHECK_STR_EQ(mcpp_verdict_name(v), "not_comparable");
    mcpp_receipt_free(off);
    mcpp_receipt_free(one);
    mcpp_receipt_free(two);
    mcpp_policy_free(p);
}

#define SHORT_PATTERN "\"pattern\": \"AEMEAEMEAEMR\""
#define EXPANDED_PATTERN "\"pattern\": \"AEMEAEMEAEMRAEMEAEMEAEMRAEMEAEMEAEMRAEMEAEMEAEMRAEME\""

TEST(expanded_and_tiled_patterns_are_one_lane)
{
    /* the 52-letter Megatron-style pattern is valid as NAM56R ... */
    mcpp_receipt *e = variant(RUN2, "b", SHORT_PATTERN, EXPANDED_PATTERN, NULL, NULL);
    CHECK(e != NULL);
    mcpp_receipt_free(e);
    /* ... with or without its depth, and compares as the tiled short one */
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL), variant(RUN2, "b", SHORT_PATTERN, EXPANDED_PATTERN, NULL, NULL),
           MCPP_VERDICT_COMPARABLE, "pattern", MCPP_DIM_MATCH, NULL);
    expect(variant(PADDED, "a", NULL, NULL, NULL, NULL),
           variant(RUN2, "b", SHORT_PATTERN ",\n    \"depth\": 52", EXPANDED_PATTERN, NULL, NULL), MCPP_VERDICT_COMPARABLE,
           "pattern", MCPP_DIM_MATCH, NULL);
    mcpp_receipt *rs[3] = {variant(PADDED, "a", NULL, NULL, NULL, NULL),
                           variant(RUN2, "b", SHORT_PATTERN, EXPANDED_PATTERN, NULL, NULL),
                           variant(RUN3, "c", SHORT_PATTERN ",\n    \"depth\": 52", EXPANDED_PATTERN, NULL, NULL)};
    CHECK_INT_EQ((int)lanes_of(rs, 3), 1);
    free_all(rs, 3);
    /* canonical form: the shortest prefix tiling the stack, and its depth */
    char canon[64];
    int64_t depth = 0;
    CHECK_INT_EQ((int)mcpp_pattern_canonical(canon, sizeof canon, &depth,
                                             "AEMEAEMEAEMRAEMEAEMEAEMRAEMEAEMEAEMRAEMEAEMEAEMRAEME", 0),
                 12);
    CHECK_STR_EQ(canon, "AEMEAEMEAEMR");
    CHECK_INT_EQ((int)depth, 52);
    CHECK_INT_EQ((int)mcpp_pattern_canonical(canon, sizeof canon, &depth, "AMAMAM", 0), 2);
    CHECK_STR_EQ(canon, "AM");
}

/* The canonical pattern against its definition, for every pattern of up to 7
 * letters over "AMR" and every depth up to 30 (and none stated): the smallest
 * p < len with letter i of the stack (pattern[i % len]) equal to letter i % p
 * for every i < depth, else len; the prefix of that length. */
static size_t reference_period(const char *pattern, int64_t depth)
{
    size_t len = strlen(pattern);
    if (depth <= 0)
        depth = (int64_t)len;
    for (size_t p = 1; p < len; p++) {
        int64_t i = 0;
        while (i < depth && pattern[i % (int64_t)len] == pattern[i % (int64_t)p])
            i++;
        if (i == depth)
            return p;
    }
    return len;
}

TEST(the_canonical_pattern_is_the_smallest_period_of_the_stack)
{
    char pattern[8], canon[16];
    size_t checked = 0, bad = 0;
    for (size_t len = 1; len <= 7; len++) {
        size_t count = 1;
        for (size_t k = 0; k < len; k++)
            count *= 3;
        for (size_t code = 0; code < count; code++) {
            size_t c = code;
            for (size_t k = 0; k < len; k++, c /= 3)
                pattern[k] = "AMR"[c % 3];
            pattern[len] = '\0';
            for (int64_t depth = 0; depth <= 30; depth++) {
                int64_t got_depth = -1;
                size_t want = reference_period(pattern, depth);
                size_t got = mcpp_pattern_canonical(canon, sizeof canon, &got_depth, pattern, depth);
                checked++;
                bad += got != want || strncmp(canon, pattern, want) != 0 || canon[want] != '\0' ||
                       got_depth != (depth > 0 ? depth : (int64_t)len);
            }
        }
    }
    printf("# %zu patterns and depths checked, %zu wrong\n", checked, bad);
    CHECK(checked > 100000);
    CHECK(bad == 0);
}

/* The selector keys come from the dimension table: every one is accepted and
 * reads a schema path, and the benchmark dimension's keys are among them. */
TEST(every_selector_key_of_the_dimension_table_is_accepted)
{
    mcpp_receipt *r = variant(PYTEST, "a", NULL, NULL, NULL, NULL);
    const mcpp_receipt *rs[] = {r};
    const char *key, *path = NULL;
    size_t n = 0;
    int benchmark_keys = 0;
    for (; (key = mcpp_claim_selector_key(n, &path)) != NULL; n++) {
        CHECK(path && mcpp_schema_field_id(path) >= 0);
        char sel[64];
        snprintf(sel, sizeof sel, "%s=x", key);
        unsigned char holds = 9;
        CHECK_INT_EQ(mcpp_claim_selector_holds(&holds, sel, rs, 1), MCPP_OK);
        CHECK_INT_EQ(holds, 0);
        benchmark_keys += !strcmp(key, "suite") || !strcmp(key, "benchmark") || !strcmp(key, "system") ||
                          !strcmp(key, "submitter");
    }
    CHECK(n >= 33);
    CHECK_INT_EQ(benchmark_keys, 4);
    CHECK(mcpp_claim_selector_key(n, &path) == NULL && path == NULL);
    mcpp_receipt_free(r);
}

TEST(claim_selectors_accept_canonical_ids_aliases_and_frontier_labels)
{
    mcpp_receipt *r = variant(PADDED, "a", NULL, NULL, NULL, NULL); /* NVIDIA H100 80GB HBM3 */
    const mcpp_receipt *rs[1] = {r};
    static const char *const holds[] = {"accelerator=NVIDIA H100 80GB HBM3", "accelerator=H100",
                                        "accelerator=nvidia-h100-sxm5-80gb", "accelerator=NVIDIA H100-SXM5-80GB",
                                        "family=NAM56R,accelerator=nvidia-h100-sxm5-80gb"};
    static const char *const fails[] = {"accelerator=H200", "accelerator=NVIDIA H100 PCIe",
                                        "accelerator=nvidia-h100-pcie-80gb"};
    unsigned char out = 0;
    for (size_t i = 0; i < sizeof holds / sizeof holds[0]; i++) {
        CHECK_INT_EQ(mcpp_claim_selector_holds(&out, holds[i], rs, 1), MCPP_OK);
        if (!out) fprintf(stderr, "selector does not hold: %s\n", holds[i]);
        CHECK_INT_EQ(out, 1);
    }
    for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++) {
        CHECK_INT_EQ(mcpp_claim_selector_holds(&out, fails[i], rs, 1), MCPP_OK);
        if (out) fprintf(stderr, "selector holds: %s\n", fails[i]);
        CHECK_INT_EQ(out, 0);
    }
    mcpp_receipt_free(r);
}

TEST(goodput_fractions_are_named_metrics_with_their_direction)
{
    /* useful/allocated falls from 26% to 13% while useful seconds... the fraction says worse */
    mcpp_receipt *a = variant(PADDED, "a", NULL, NULL, NULL, NULL);
    mcpp_receipt *b = variant(RUN2, "b", "\"useful_s\": 41.953", "\"useful_s\": 21.0", NULL, NULL);
    mcpp_metric m;
    CHECK_INT_EQ(mcpp_receipt_metric_find(&m, a, "goodput.useful_fraction"), MCPP_OK);
    CHECK(m.value > 0.25 && m.value < 0.27);
    CHECK_INT_EQ((int)m.direction, (int)MCPP_DIRECTION_HIGHER);
    CHECK_STR_EQ(m.unit, "fraction");
    CHECK_INT_EQ(mcpp_receipt_metric_find(&m, a, "goodput.kernel_busy_fraction"), MCPP_OK);
    CHECK_INT_EQ((int)m.direction, (int)MCPP_DIRECTION_HIGHER);
    CHECK_INT_EQ(mcpp_receipt_metric_find(&m, a, "goodput.badput_fraction"), MCPP_OK);
    CHECK_INT_EQ((int)m.direction, (int)MCPP_DIRECTION_LOWER);
    CHECK(m.value > 0 && m.value <= 1);
    /* listed with the receipt's metrics (pandas, the store's metric rows) */
    int listed = 0;
    for (size_t i = 0; i < mcpp_receipt_metric_count(a); i++)
        if (mcpp_receipt_metric_at(&m, a, i) == MCPP_OK && strcmp(m.name, "goodput.useful_fraction") == 0) listed = 1;
    CHECK_INT_EQ(listed, 1);
    /* gated as a fraction: worse, and the gate fails */
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_clone(&p, NULL), MCPP_OK);
    mcpp_gate_settings g = *mcpp_policy_gate(p);
    g.metric = "goodput.useful_fraction";
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_allow_point_comparisons(p, 1), MCPP_OK);
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, p, a, b), MCPP_OK);
    CHECK_STR_EQ(mcpp_gate_outcome_name(mcpp_comparison_gate(c)), "failed");
    CHECK(mcpp_comparison_metric(c) != NULL && mcpp_comparison_metric(c)->higher_is_better);
    mcpp_comparison_free(c);
    mcpp_policy_free(p);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

#define MOE_PADDED "\"moe\": {\n      \"requested\": \"padded\",\n      \"observed\": \"padded\""
#define MOE_JAGGED "\"moe\": {\n      \"requested\": \"jagged\",\n      \"observed\": \"jagged\""

TEST(the_notes_adjacent_pair_is_adjacent)
{
    /* padded whole-model vs jagged partial-compile: backend and compile
     * differ, one related step, so the lanes are adjacent at width 1 */
    mcpp_receipt *rs[2] = {
        variant(PADDED, "a", "\"posture\": \"regional\"", "\"posture\": \"whole_model\"", NULL, NULL),
        variant(RUN2, "b", "\"posture\": \"regional\"", "\"posture\": \"partial\"", MOE_PADDED, MOE_JAGGED)};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 2), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_frontier_lane_count(f), 2);
    CHECK_INT_EQ((int)mcpp_frontier_lane_adjacent_count(f, 0), 1);
    if (mcpp_frontier_lane_adjacent_count(f, 0) == 1)
        CHECK_STR_EQ(mcpp_frontier_lane_adjacent_dimensions(f, 0, 0), "compile, backend");
    mcpp_frontier_free(f);
    /* two unrelated dimensions are still two steps */
    mcpp_receipt *other = variant(RUN3, "c", "\"seq_len\": 4096", "\"seq_len\": 8192", MOE_PADDED, MOE_JAGGED);
    mcpp_receipt *qs[2] = {rs[0], other};
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)qs, 2), MCPP_OK);
    CHECK_INT_EQ((int)mcpp_frontier_lane_adjacent_count(f, 0), 0);
    mcpp_frontier_free(f);
    mcpp_receipt_free(other);
    free_all(rs, 2);
}

int main(void)
{
    RUN(model_size_is_part_of_the_lane);
    RUN(precision_requested_other_than_observed_is_a_fallback);
    RUN(an_auto_request_is_met_by_whatever_ran);
    RUN(benchmark_suite_implementation_is_a_lane);
    RUN(software_stack_qualifies_model_runs);
    RUN(mlperf_lane_key_is_submitter_system_and_software);
    RUN(accelerators_per_node_is_part_of_the_hardware);
    RUN(training_position_qualifies_a_warmup_window_against_steady_state);
    RUN(the_compile_cache_location_is_recorded_not_compared);
    RUN(every_output_names_the_policy_and_its_content_digest);
    RUN(multi_metric_gate_is_one_rule_in_compare_gate_and_policy_test);
    RUN(an_empty_receipt_warns_that_it_can_never_be_compared);
    RUN(a_feature_known_off_equals_no_feature);
    RUN(ablation_policy_measures_one_feature_as_a_qualified_comparison);
    RUN(expanded_and_tiled_patterns_are_one_lane);
    RUN(claim_selectors_accept_canonical_ids_aliases_and_frontier_labels);
    RUN(the_canonical_pattern_is_the_smallest_period_of_the_stack);
    RUN(every_selector_key_of_the_dimension_table_is_accepted);
    RUN(goodput_fractions_are_named_metrics_with_their_direction);
    RUN(the_notes_adjacent_pair_is_adjacent);
    TEST_MAIN_END();
}
