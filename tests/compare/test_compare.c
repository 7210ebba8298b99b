/*
 * test_compare.c — comparability verdicts, per-dimension rows, metric
 * statistics and the gate, built from the seed scenarios of issue 3.
 */
#include <cjson/cJSON.h>
#include <math.h>

#include "../test_util.h"
#include "fixtures.h"

#define BASE_ID "\"id\":\"base-1\""

/* The row of `dim`, or SIZE_MAX. */
static size_t row_of(const mcpp_comparison *c, const char *dim)
{
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++)
        if (strcmp(mcpp_comparison_row_dimension(c, i), dim) == 0) return i;
    return (size_t)-1;
}

static mcpp_comparison *compare_with(const mcpp_policy *p, mcpp_receipt *base, mcpp_receipt *cand)
{
    mcpp_comparison *c = NULL;
    int rc = mcpp_compare(&c, p, base, cand);
    if (rc != MCPP_OK) fprintf(stderr, "mcpp_compare: %s\n", mcpp_error_last()->message);
    /* The allocation-free verdict must always agree with the explained one. */
    mcpp_verdict v;
    if (c && (mcpp_compare_verdict(&v, p, base, cand) != MCPP_OK || v != mcpp_comparison_verdict(c))) {
        fprintf(stderr, "mcpp_compare_verdict disagrees with mcpp_compare\n");
        mcpp_comparison_free(c);
        return NULL;
    }
    return c;
}

/* Compares the base fixture against a variant; checks verdict and one row. */
static void expect(mcpp_receipt *cand, mcpp_verdict verdict, const char *dim, mcpp_dim_status status,
                   const char *reason_part)
{
    mcpp_receipt *base = FIX(BASE_ID, BASE_ID);
    mcpp_comparison *c = compare_with(NULL, base, cand);
    CHECK(c != NULL);
    if (c) {
        CHECK_STR_EQ(mcpp_verdict_name(mcpp_comparison_verdict(c)), mcpp_verdict_name(verdict));
        size_t r = row_of(c, dim);
        CHECK(r != (size_t)-1);
        if (r != (size_t)-1) {
            CHECK_STR_EQ(mcpp_dim_status_name(mcpp_comparison_row_status(c, r)), mcpp_dim_status_name(status));
            if (reason_part) CHECK_CONTAINS(mcpp_comparison_row_reason(c, r), reason_part);
        }
    }
    mcpp_comparison_free(c);
    mcpp_receipt_free(base);
    mcpp_receipt_free(cand);
}

TEST(same_lane_rerun_is_comparable_with_every_row_matching)
{
    mcpp_receipt *base = FIX(BASE_ID, BASE_ID);
    mcpp_receipt *cand = FIX(BASE_ID, "\"id\":\"rerun\"", "1.00,1.01,0.99", "1.01,1.00,0.99");
    mcpp_comparison *c = compare_with(NULL, base, cand);
    CHECK(c != NULL);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_COMPARABLE);
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++)
        CHECK_INT_EQ(mcpp_comparison_row_status(c, i), MCPP_DIM_MATCH);
    CHECK(mcpp_comparison_row_count(c) >= 12);
    CHECK_STR_EQ(mcpp_comparison_cand_id(c), "rerun");
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_PASSED);
    mcpp_comparison_free(c);
    mcpp_receipt_free(base);
    mcpp_receipt_free(cand);
}

TEST(padded_vs_jagged_moe_is_not_comparable_on_backend)
{
    expect(FIX("\"moe\":{\"requested\":\"jagged\",\"observed\":\"jagged\"}",
               "\"moe\":{\"requested\":\"padded\",\"observed\":\"padded\"}"),
           MCPP_VERDICT_NOT_COMPARABLE, "backend", MCPP_DIM_MISMATCH, "backend.moe.observed differs: jagged vs padded");
}

TEST(jagged_with_graph_breaks_is_qualified_and_says_so)
{
    expect(FIX("\"graph_breaks\":0", "\"graph_breaks\":3"), MCPP_VERDICT_QUALIFIED, "compile_detail",
           MCPP_DIM_QUALIFY, "compile.graph_breaks differs: 0 vs 3");
}

TEST(cold_boot_vs_warm_cache_is_qualified_on_startup)
{
    expect(FIX("\"state\":\"warm_cache\"", "\"state\":\"cold_boot\""), MCPP_VERDICT_QUALIFIED, "startup",
           MCPP_DIM_QUALIFY, "warm_cache vs cold_boot");
}

TEST(h200_requested_h100_observed_is_named_as_a_fallback)
{
    expect(FIX("\"requested\":{\"accelerator\":\"NVIDIA H100 80GB HBM3\"", "\"requested\":{\"accelerator\":\"NVIDIA H200\""),
           MCPP_VERDICT_QUALIFIED, "fallbacks", MCPP_DIM_QUALIFY,
           "hardware: requested NVIDIA H200 x8, observed NVIDIA H100 80GB HBM3 x8");
}

TEST(attention_fallback_is_named_with_both_backends)
{
    expect(FIX("\"attention\":{\"requested\":\"flash\",\"observed\":\"flash\"}",
               "\"attention\":{\"requested\":\"flash\",\"observed\":\"sdpa\"},\"fallbacks\":[\"attention:flash->sdpa\"]"),
           MCPP_VERDICT_NOT_COMPARABLE, "fallbacks", MCPP_DIM_QUALIFY, "attention: requested flash, observed sdpa");
}

TEST(observed_h200_vs_h100_is_a_hardware_mismatch)
{
    expect(FIX("\"observed\":{\"accelerator\":\"NVIDIA H100 80GB HBM3\"", "\"observed\":{\"accelerator\":\"NVIDIA H200\""),
           MCPP_VERDICT_NOT_COMPARABLE, "hardware", MCPP_DIM_MISMATCH, "hardware.observed.accelerator differs");
}

TEST(synthetic_vs_real_data_is_not_comparable)
{
    expect(FIX("\"data\":{\"path\":\"real\",\"dataset\":\"fineweb-edu\"}", "\"data\":{\"path\":\"synthetic\"}"),
           MCPP_VERDICT_NOT_COMPARABLE, "data", MCPP_DIM_MISMATCH, "workload.data.path differs: real vs synthetic");
}

TEST(nam52_dense_vs_nam56r_moe_is_not_comparable_not_insufficient)
{
    /* NAM52 is dense: no E blocks, so no routing and no MoE backend. Their
     * absence is explained by the pattern, so this is a mismatch. */
    mcpp_receipt *cand = FIX("\"family\":\"NAM56R\",\"pattern\":\"AEMEAEMEAEMR\"",
                             "\"family\":\"NAM52\",\"pattern\":\"AMAMAMAMAMAR\"",
                             "\"routing\":{\"mode\":\"token_choice\",\"score\":\"sigmoid\",\"num_experts\":64,\"top_k\":2,"
                             "\"shared_experts\":1,\"capacity_factor\":1.25,\"overflow\":\"drop\"},",
                             "", "\"moe\":{\"requested\":\"jagged\",\"observed\":\"jagged\"},", "");
    mcpp_receipt *base = FIX(BASE_ID, BASE_ID);
    mcpp_comparison *c = compare_with(NULL, base, cand);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_NOT_COMPARABLE);
    CHECK_INT_EQ(mcpp_comparison_row_status(c, row_of(c, "pattern")), MCPP_DIM_MISMATCH);
    CHECK_CONTAINS(mcpp_comparison_row_reason(c, row_of(c, "pattern")), "lane.pattern differs: AEMEAEMEAEMR vs AMAMAMAMAMAR");
    CHECK_INT_EQ(mcpp_comparison_row_status(c, row_of(c, "routing")), MCPP_DIM_MISMATCH);
    CHECK_CONTAINS(mcpp_comparison_row_reason(c, row_of(c, "routing")), "routing.top_k applies to base only (E blocks");
    CHECK_CONTAINS(mcpp_comparison_row_reason(c, row_of(c, "backend")), "backend.moe.observed applies to base only");
    mcpp_comparison_free(c);
    mcpp_receipt_free(base);
    mcpp_receipt_free(cand);
}

TEST(sequence_length_change_is_not_comparable)
{
    expect(FIX("\"seq_len\":4096", "\"seq_len\":8192"), MCPP_VERDICT_NOT_COMPARABLE, "sequence", MCPP_DIM_MISMATCH,
           "workload.seq_len differs: 4096 vs 8192");
}

TEST(top_k_change_is_not_comparable_on_routing)
{
    expect(FIX("\"top_k\":2", "\"top_k\":4"), MCPP_VERDICT_NOT_COMPARABLE, "routing", MCPP_DIM_MISMATCH,
           "routing.top_k differs: 2 vs 4");
}

TEST(missing_compile_section_is_insufficient_never_a_match)
{
    expect(FIX("\"compile\":{\"posture\":\"regional\",\"warmup\":\"explicit\",\"graph_breaks\":0},", ""),
           MCPP_VERDICT_INSUFFICIENT, "compile", MCPP_DIM_MISSING, "missing is never a match");
}

TEST(insufficient_outranks_not_comparable)
{
    expect(FIX("\"compile\":{\"posture\":\"regional\",\"warmup\":\"explicit\",\"graph_breaks\":0},", "",
               "\"seq_len\":4096", "\"seq_len\":8192"),
           MCPP_VERDICT_INSUFFICIENT, "sequence", MCPP_DIM_MISMATCH, NULL);
}

TEST(dense_patterns_without_routing_are_not_missing_routing)
{
    const char *dense[] = {"\"pattern\":\"AEMEAEMEAEMR\"", "\"pattern\":\"AMAMAMAMAMAR\"",
                           "\"routing\":{\"mode\":\"token_choice\",\"score\":\"sigmoid\",\"num_experts\":64,\"top_k\":2,"
                           "\"shared_experts\":1,\"capacity_factor\":1.25,\"overflow\":\"drop\"},",
                           "", "\"moe\":{\"requested\":\"jagged\",\"observed\":\"jagged\"},", "",
                           "\"family\":\"NAM56R\"", "\"family\":\"NAM52\""};
    mcpp_receipt *a = fixture(dense, 4);
    mcpp_receipt *b = fixture(dense, 4);
    mcpp_comparison *c = compare_with(NULL, a, b);
    CHECK(c != NULL);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_COMPARABLE);
    size_t r = row_of(c, "routing");
    CHECK_INT_EQ(mcpp_comparison_row_status(c, r), MCPP_DIM_MATCH);
    CHECK_CONTAINS(mcpp_comparison_row_reason(c, r), "not applicable");
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

TEST(policy_required_field_missing_makes_insufficient)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_add_required_field(p, "source.git_commit"), MCPP_OK);
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *b = FIX(BASE_ID, "\"id\":\"other\"");
    mcpp_comparison *c = compare_with(p, a, b);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_INSUFFICIENT);
    size_t r = row_of(c, "source.git_commit");
    CHECK(r != (size_t)-1);
    CHECK_CONTAINS(mcpp_comparison_row_reason(c, r), "absent on both sides");
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_UNDETERMINED);
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

static int graph_break_rule(void *ud, const mcpp_receipt *base, const mcpp_receipt *cand, mcpp_rule_outcome *outcome,
                            char *reason, size_t cap)
{
    (void)base;
    (*(int *)ud)++;
    mcpp_value v = MCPP_VALUE_INIT;
    *outcome = MCPP_RULE_PASS;
    if (mcpp_receipt_get(cand, "compile.graph_breaks", &v) == MCPP_OK && v.type == MCPP_TYPE_INT && v.integer > 0) {
        *outcome = MCPP_RULE_MISMATCH;
        snprintf(reason, cap, "candidate has %lld graph breaks", (long long)v.integer);
    }
    return MCPP_OK;
}

TEST(custom_rule_runs_after_dimensions_and_adds_a_row)
{
    mcpp_policy *p = NULL;
    int calls = 0;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_add_rule(p, "no_graph_breaks", graph_break_rule, &calls, NULL), MCPP_OK);
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *b = FIX("\"graph_breaks\":0", "\"graph_breaks\":2");
    mcpp_comparison *c = compare_with(p, a, b);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_NOT_COMPARABLE);
    CHECK_INT_EQ(row_of(c, "no_graph_breaks"), mcpp_comparison_row_count(c) - 1);
    CHECK_CONTAINS(mcpp_comparison_row_reason(c, mcpp_comparison_row_count(c) - 1), "2 graph breaks");
    CHECK_INT_EQ(calls, 2); /* once for mcpp_compare, once for mcpp_compare_verdict */
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

static int failing_rule(void *ud, const mcpp_receipt *base, const mcpp_receipt *cand, mcpp_rule_outcome *outcome,
                        char *reason, size_t cap)
{
    (void)ud, (void)base, (void)cand, (void)reason, (void)cap;
    *outcome = MCPP_RULE_PASS;
    return MCPP_EINTERNAL;
}

TEST(failing_custom_rule_fails_the_comparison_with_policy_error)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_add_rule(p, "broken", failing_rule, NULL, NULL), MCPP_OK);
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID);
    mcpp_comparison *c = (mcpp_comparison *)1;
    mcpp_error_clear();
    CHECK_INT_EQ(mcpp_compare(&c, p, a, a), MCPP_EPOLICY);
    CHECK(c == NULL);
    CHECK_CONTAINS(mcpp_error_last()->message, "rule 'broken' failed");
    mcpp_verdict v;
    CHECK_INT_EQ(mcpp_compare_verdict(&v, p, a, a), MCPP_EPOLICY);
    mcpp_receipt_free(a);
    mcpp_policy_free(p);
}

TEST(ignored_dimension_has_no_row_and_no_effect)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_role(p, "sequence", MCPP_ROLE_IGNORE), MCPP_OK);
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *b = FIX("\"seq_len\":4096", "\"seq_len\":8192");
    mcpp_comparison *c = compare_with(p, a, b);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_COMPARABLE);
    CHECK(row_of(c, "sequence") == (size_t)-1);
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

TEST(policy_refuses_unknown_field_paths_and_bad_settings)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_new(&p, "t"), MCPP_OK);
    const char *bad[] = {"routing.topk"};
    CHECK_INT_EQ(mcpp_policy_set_dimension(p, "x", bad, 1, MCPP_ROLE_MUST_MATCH), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->field, "routing.topk");
    const char *star[] = {"routing.*"};
    CHECK_INT_EQ(mcpp_policy_set_dimension(p, "r", star, 1, MCPP_ROLE_MUST_MATCH), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_dimension_field_count(p, 0), 10); /* with groups, group_top_k, expert_precision */
    mcpp_gate_settings g = {MCPP_GATE_SETTINGS_VERSION, "metrics.tokens_per_s", 1, 0.03, 1.5};
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_EINVALID);
    g.confidence = 0.9;
    g.metric = "lane.pattern";
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_EINVALID);
    mcpp_noise_settings n = MCPP_NOISE_SETTINGS_INIT;
    n.max_rel_spread = -1;
    CHECK_INT_EQ(mcpp_policy_set_noise(p, &n), MCPP_EINVALID);
    n.max_rel_spread = 0.05;
    n.run_to_run = -0.1;
    CHECK_INT_EQ(mcpp_policy_set_noise(p, &n), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->field, "noise.run_to_run");
    CHECK_INT_EQ(mcpp_policy_set_adjacency_width(p, 0), MCPP_EINVALID);
    mcpp_policy_free(p);
}

TEST(default_policy_has_the_design_dimensions_with_resolved_fields)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    const char *must[] = {"pattern", "routing", "sequence", "batch", "compile", "topology", "hardware", "data", "backend"};
    const char *qual[] = {"startup", "cache", "fallbacks"};
    for (size_t k = 0; k < 9; k++) {
        int found = 0;
        for (size_t i = 0; i < mcpp_policy_dimension_count(p); i++)
            if (strcmp(mcpp_policy_dimension_name(p, i), must[k]) == 0) {
                found = 1;
                CHECK_INT_EQ(mcpp_policy_dimension_role(p, i), MCPP_ROLE_MUST_MATCH);
                CHECK(mcpp_policy_dimension_field_count(p, i) > 0);
            }
        CHECK(found);
    }
    for (size_t k = 0; k < 3; k++) {
        int found = 0;
        for (size_t i = 0; i < mcpp_policy_dimension_count(p); i++)
            if (strcmp(mcpp_policy_dimension_name(p, i), qual[k]) == 0) {
                found = 1;
                CHECK_INT_EQ(mcpp_policy_dimension_role(p, i), MCPP_ROLE_QUALIFY);
            }
        CHECK(found);
    }
    CHECK_STR_EQ(mcpp_policy_gate(p)->metric, "primary"); /* each receipt's metrics.primary: docs/metrics.md */
    CHECK_INT_EQ(mcpp_policy_adjacency_width(p), 1);
    mcpp_policy_free(p);
}

/* ---- Metric and gate ------------------------------------------------------------------ */

static mcpp_receipt *scaled(const char *id, double factor)
{
    static const char base_samples[] = "\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]";
    char buf[256], tps[64], idb[64];
    samples_scaled(buf, sizeof buf, factor);
    snprintf(tps, sizeof tps, "\"tokens_per_s\":%.3f", 262144.0 / factor);
    snprintf(idb, sizeof idb, "\"id\":\"%s\"", id);
    return FIX(base_samples, buf, "\"tokens_per_s\":262144", tps, BASE_ID, idb);
}

TEST(clear_ten_percent_regression_fails_the_gate)
{
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *b = scaled("slow", 1.0 / 0.9);
    mcpp_comparison *c = compare_with(NULL, a, b);
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    CHECK(m != NULL);
    if (m) {
        CHECK(fabs(m->rel_delta + 0.10) < 0.005);
        /* One run a side: the noise is the policy's declared run-to-run 3%
         * (df 20), not the eight steps inside each run. */
        CHECK(m->interval_high < 0 && m->interval_high > -0.05);
        CHECK(m->interval_low <= m->rel_delta && m->rel_delta <= m->interval_high);
        CHECK_INT_EQ(m->n_base, 1);
        CHECK_INT_EQ(m->n_cand, 1);
        CHECK_INT_EQ(m->point_comparison, 0);
        CHECK_STR_EQ(m->noise_source, "policy");
        CHECK(m->p_value < m->p_threshold && fabs(m->p_threshold - 0.025) < 1e-12);
        CHECK_CONTAINS(m->method, "student-t");
    }
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_FAILED);
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "worse by 10.0%");
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

TEST(one_percent_difference_inside_the_noise_passes_the_gate)
{
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *b = scaled("slightly-slow", 1.01);
    mcpp_comparison *c = compare_with(NULL, a, b);
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    CHECK(m != NULL);
    if (m) {
        CHECK(m->rel_delta < 0 && m->rel_delta > -0.02);
        CHECK(m->interval_high > -0.03);
        CHECK(m->noise_floor >= 0.01);
    }
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_PASSED);
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "within noise");
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

TEST(improvement_passes_and_is_called_better)
{
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *b = scaled("fast", 0.8);
    mcpp_comparison *c = compare_with(NULL, a, b);
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_PASSED);
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "better by 25.0%");
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

TEST(lower_is_better_metric_fails_when_step_time_grows)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_gate_settings g = {MCPP_GATE_SETTINGS_VERSION, "metrics.step_time_s.median", 0, 0.03, 0.95};
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *slow = scaled("slow", 1.10), *fast = scaled("fast", 0.90);
    mcpp_comparison *c = compare_with(p, a, slow);
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    CHECK(m && m->higher_is_better == 0 && m->rel_delta > 0.09);
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_FAILED);
    mcpp_comparison_free(c);
    c = compare_with(p, a, fast);
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_PASSED);
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "better by 10.0%");
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(slow);
    mcpp_receipt_free(fast);
    mcpp_policy_free(p);
}

TEST(without_a_noise_source_the_comparison_is_a_flagged_point_comparison)
{
    const char *no_samples[] = {"\"step_time_s\":{\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]},", ""};
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *b = fixture(no_samples, 1);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_noise_settings n = *mcpp_policy_noise(p);
    n.run_to_run = 0; /* one run a side and nothing declared: no noise source */
    CHECK_INT_EQ(mcpp_policy_set_noise(p, &n), MCPP_OK);
    mcpp_comparison *c = compare_with(p, a, b);
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    CHECK(m != NULL);
    if (m) {
        CHECK_INT_EQ(m->point_comparison, 1);
        CHECK_STR_EQ(m->method, "point");
        CHECK_STR_EQ(m->noise_source, "none");
        CHECK_INT_EQ(m->n_cand, 1);
    }
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "point comparison");
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(p);
}

TEST(not_comparable_pair_gets_no_metric_and_an_undetermined_gate)
{
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *b = FIX("\"seq_len\":4096", "\"seq_len\":8192");
    mcpp_comparison *c = compare_with(NULL, a, b);
    CHECK(mcpp_comparison_metric(c) == NULL);
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_UNDETERMINED);
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "not_comparable");
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

TEST(json_rendering_parses_and_has_the_documented_keys)
{
    mcpp_receipt *a = FIX(BASE_ID, BASE_ID), *b = FIX("\"state\":\"warm_cache\"", "\"state\":\"cold_boot\"");
    mcpp_comparison *c = compare_with(NULL, a, b);
    char *json = NULL;
    CHECK_INT_EQ(mcpp_comparison_render(&json, c, MCPP_OUTPUT_JSON), MCPP_OK);
    cJSON *doc = cJSON_Parse(json);
    CHECK(doc != NULL);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "verdict")), "qualified");
    cJSON *dims = cJSON_GetObjectItem(doc, "dimensions");
    CHECK(cJSON_IsArray(dims) && (size_t)cJSON_GetArraySize(dims) == mcpp_comparison_row_count(c));
    cJSON *first = cJSON_GetArrayItem(dims, 0);
    const char *keys[] = {"name", "status", "base", "cand", "reason"};
    for (int k = 0; k < 5; k++) CHECK(cJSON_GetObjectItem(first, keys[k]) != NULL);
    cJSON *metric = cJSON_GetObjectItem(doc, "metric");
    CHECK(cJSON_IsObject(metric) && cJSON_GetObjectItem(metric, "interval") != NULL);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "gate"), "outcome")), "passed");
    cJSON_Delete(doc);
    mcpp_free(json);
    char *md = NULL, *text = NULL;
    CHECK_INT_EQ(mcpp_comparison_render(&md, c, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_CONTAINS(md, "| startup | **qualify** | warm_cache | cold_boot |");
    char head[256]; /* the pair and the policy, in each output's words */
    snprintf(head, sizeof head, "base %s → candidate %s · policy default (digest `%s`)\n\n", mcpp_comparison_base_id(c),
             mcpp_comparison_cand_id(c), mcpp_comparison_policy_digest(c));
    CHECK_CONTAINS(md, head);
    CHECK_INT_EQ(mcpp_comparison_render(&text, c, MCPP_OUTPUT_TEXT), MCPP_OK);
    snprintf(head, sizeof head, "base       %s\ncandidate  %s\npolicy     default (digest %s)\nverdict    qualified\n",
             mcpp_comparison_base_id(c), mcpp_comparison_cand_id(c), mcpp_comparison_policy_digest(c));
    CHECK_CONTAINS(text, head);
    mcpp_free(md);
    mcpp_free(text);
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

/* A comparison whose values are too long for a GitHub comment: the markdown
 * stays under the 60,000-character budget with long values cut (and says so),
 * the differing row still shown; JSON keeps them whole (issue 13). */
TEST(markdown_of_huge_values_stays_under_the_comment_budget)
{
    size_t n = 40000;
    char *from = malloc(n + 32), *to = malloc(n + 32);
    CHECK(from && to);
    if (!from || !to) return;
    memcpy(from, "\"dataset\":\"", 11);
    memcpy(to, "\"dataset\":\"", 11);
    memset(from + 11, 'a', n);
    memset(to + 11, 'b', n);
    strcpy(from + 11 + n, "\"");
    strcpy(to + 11 + n, "\"");
    mcpp_receipt *a = FIX("\"dataset\":\"fineweb-edu\"", from);
    mcpp_receipt *b = FIX("\"dataset\":\"fineweb-edu\"", to, BASE_ID, "\"id\":\"cand-1\"");
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, NULL, a, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_comparison_verdict(c), MCPP_VERDICT_NOT_COMPARABLE);
    char *md = NULL, *json = NULL;
    CHECK_INT_EQ(mcpp_comparison_render(&md, c, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK(md && strlen(md) <= 60000);
    CHECK_CONTAINS(md, "Values longer than 200 characters are cut here");
    CHECK_CONTAINS(md, "| data | **mismatch** | path=real dataset=aaaa");
    CHECK_CONTAINS(md, "**Gate: undetermined**");
    char run[201];
    memset(run, 'b', 200);
    run[200] = '\0';
    CHECK(md && !strstr(md, run) && strstr(md, run + 100)); /* cells cut at 200 characters */
    CHECK_INT_EQ(mcpp_comparison_render(&json, c, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK(json && strlen(json) > 2 * n);
    mcpp_free(md);
    mcpp_free(json);
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    free(from);
    free(to);
}

TEST(null_arguments_are_refused_and_accessors_are_null_safe)
{
    mcpp_comparison *c = (mcpp_comparison *)1;
    CHECK_INT_EQ(mcpp_compare(&c, NULL, NULL, NULL), MCPP_EARG);
    CHECK(c == NULL);
    CHECK_INT_EQ(mcpp_comparison_row_count(NULL), 0);
    CHECK(mcpp_comparison_row_reason(NULL, 0) == NULL);
    CHECK(mcpp_comparison_metric(NULL) == NULL);
    mcpp_comparison_free(NULL);
    mcpp_output_format f;
    CHECK_INT_EQ(mcpp_output_format_parse(&f, "yaml"), MCPP_EARG);
    CHECK_INT_EQ(mcpp_output_format_parse(&f, "md"), MCPP_OK);
    CHECK_INT_EQ(f, MCPP_OUTPUT_MARKDOWN);
}

/* ---- Gate over many pairs --------------------------------------------------------------- */

TEST(gate_run_pools_comparable_baselines_and_fails_on_regression)
{
    mcpp_receipt *b1 = FIX(BASE_ID, BASE_ID), *b2 = scaled("base-2", 1.005);
    mcpp_receipt *other = FIX("\"seq_len\":4096", "\"seq_len\":8192");
    mcpp_receipt *good = scaled("good", 1.002), *bad = scaled("bad", 1.0 / 0.9);
    const mcpp_receipt *bases[] = {b1, b2, other};
    const mcpp_receipt *cands[] = {good, bad};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 3, cands, 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_outcome(r), MCPP_GATE_FAILED);
    CHECK_INT_EQ(mcpp_gate_report_exit_code(r), 1);
    CHECK_INT_EQ(mcpp_gate_report_count(r), 2);
    CHECK_INT_EQ(not_failed_as_passed(mcpp_gate_report_entry_outcome(r, 0)), MCPP_GATE_PASSED);
    CHECK_INT_EQ(mcpp_gate_report_entry_outcome(r, 1), MCPP_GATE_FAILED);
    CHECK_INT_EQ(mcpp_gate_report_entry_baseline_count(r, 0), 2);
    CHECK_INT_EQ(mcpp_gate_report_entry_metric(r, 0)->n_base, 2); /* runs, not their steps */
    CHECK_CONTAINS(mcpp_gate_report_reason(r), "1 of 2 candidates regressed");
    mcpp_gate_report_free(r);
    /* The same baseline twice, and the candidate itself among the baselines, pool once / not at all. */
    const mcpp_receipt *dup_bases[] = {b1, b1, b2, good};
    const mcpp_receipt *only_good[] = {good};
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, dup_bases, 4, only_good, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_entry_baseline_count(r, 0), 2);
    CHECK_INT_EQ(mcpp_gate_report_entry_metric(r, 0)->n_base, 2); /* runs, not their steps */
    mcpp_gate_report_free(r);
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 3, only_good, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_exit_code(r), 0);
    char *md = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render(&md, r, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_CONTAINS(md, "### Merge gate: **inconclusive**"); /* 1 run, 3% noise: +6% not ruled out; exits 0 */
    mcpp_free(md);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(b2);
    mcpp_receipt_free(other);
    mcpp_receipt_free(good);
    mcpp_receipt_free(bad);
}

TEST(gate_run_pools_each_of_many_baseline_ids_once)
{
    /* Enough distinct ids to grow the pooled-id set several times; each baseline
     * appears twice (a run loaded as JSON and as YAML) and counts once. */
    enum { N = 300 };
    mcpp_receipt *runs[N];
    const mcpp_receipt *bases[2 * N];
    char id[32];
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof id, "hist-%03d", i);
        runs[i] = scaled(id, 1.0);
        bases[i] = bases[2 * N - 1 - i] = runs[i];
    }
    mcpp_receipt *cand = scaled("cand", 1.0);
    const mcpp_receipt *cands[] = {cand};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 2 * N, cands, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_entry_baseline_count(r, 0), N);
    CHECK_INT_EQ(mcpp_gate_report_entry_metric(r, 0)->n_base, N); /* one run each */
    CHECK_INT_EQ(not_failed_as_passed(mcpp_gate_report_outcome(r)), MCPP_GATE_PASSED);
    mcpp_gate_report_free(r);
    for (int i = 0; i < N; i++) mcpp_receipt_free(runs[i]);
    mcpp_receipt_free(cand);
}

TEST(gate_run_without_comparable_baseline_is_undetermined_exit_2)
{
    mcpp_receipt *b1 = FIX(BASE_ID, BASE_ID), *c1 = FIX("\"top_k\":2", "\"top_k\":4", BASE_ID, "\"id\":\"c1\"");
    const mcpp_receipt *bases[] = {b1};
    const mcpp_receipt *cands[] = {c1};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 1, cands, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_exit_code(r), 2);
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 0), "no comparable baseline among 1 (1 not_comparable");
    mcpp_gate_report_free(r);
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 1, NULL, 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_exit_code(r), 2);
    mcpp_gate_report_free(r);
    /* The same receipts on both sides: a run is never its own baseline, and
     * the reason says that is why there is none ("among 0" alone read as if no
     * baseline had been given) */
    const mcpp_receipt *same[] = {c1, b1};
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, same, 2, cands, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_exit_code(r), 2);
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 0), "no comparable baseline among 1 (1 not_comparable");
    CHECK_CONTAINS(
        mcpp_gate_report_entry_reason(r, 0),
        "; 1 baseline is this candidate's own run, never its baseline (the same receipts given on both sides?)");
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(c1);
}

int main(void)
{
    RUN(same_lane_rerun_is_comparable_with_every_row_matching);
    RUN(padded_vs_jagged_moe_is_not_comparable_on_backend);
    RUN(jagged_with_graph_breaks_is_qualified_and_says_so);
    RUN(cold_boot_vs_warm_cache_is_qualified_on_startup);
    RUN(h200_requested_h100_observed_is_named_as_a_fallback);
    RUN(attention_fallback_is_named_with_both_backends);
    RUN(observed_h200_vs_h100_is_a_hardware_mismatch);
    RUN(synthetic_vs_real_data_is_not_comparable);
    RUN(nam52_dense_vs_nam56r_moe_is_not_comparable_not_insufficient);
    RUN(sequence_length_change_is_not_comparable);
    RUN(top_k_change_is_not_comparable_on_routing);
    RUN(missing_compile_section_is_insufficient_never_a_match);
    RUN(insufficient_outranks_not_comparable);
    RUN(dense_patterns_without_routing_are_not_missing_routing);
    RUN(policy_required_field_missing_makes_insufficient);
    RUN(custom_rule_runs_after_dimensions_and_adds_a_row);
    RUN(failing_custom_rule_fails_the_comparison_with_policy_error);
    RUN(ignored_dimension_has_no_row_and_no_effect);
    RUN(policy_refuses_unknown_field_paths_and_bad_settings);
    RUN(default_policy_has_the_design_dimensions_with_resolved_fields);
    RUN(clear_ten_percent_regression_fails_the_gate);
    RUN(one_percent_difference_inside_the_noise_passes_the_gate);
    RUN(improvement_passes_and_is_called_better);
    RUN(lower_is_better_metric_fails_when_step_time_grows);
    RUN(without_a_noise_source_the_comparison_is_a_flagged_point_comparison);
    RUN(not_comparable_pair_gets_no_metric_and_an_undetermined_gate);
    RUN(json_rendering_parses_and_has_the_documented_keys);
    RUN(markdown_of_huge_values_stays_under_the_comment_budget);
    RUN(null_arguments_are_refused_and_accessors_are_null_safe);
    RUN(gate_run_pools_comparable_baselines_and_fails_on_regression);
    RUN(gate_run_pools_each_of_many_baseline_ids_once);
    RUN(gate_run_without_comparable_baseline_is_undetermined_exit_2);
    TEST_MAIN_END();
}
