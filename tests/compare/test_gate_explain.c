/*
 * test_gate_explain.c — the gate report explains every candidate (issue 13):
 * lane, pooled baselines and their inputs, qualifications and blockers with
 * both values, reason codes; unread inputs make the outcome `error` in every
 * format; the sign convention ("better by" / "worse by", JSON improvement);
 * markdown stays under GitHub's comment limit; JUnit counts.
 */
#include <cjson/cJSON.h>
#include <math.h>

#include "../test_util.h"
#include "fixtures.h"

#define BASE_ID "\"id\":\"base-1\""

static mcpp_receipt *scaled(const char *id, double factor, const char *from, const char *to)
{
    static const char base_samples[] = "\"samples\":[1.00,1.01,0.99,1.00,1.02,0.98,1.00,1.01]";
    char buf[256], tps[64], idb[64];
    samples_scaled(buf, sizeof buf, factor);
    snprintf(tps, sizeof tps, "\"tokens_per_s\":%.3f", 262144.0 / factor);
    snprintf(idb, sizeof idb, "\"id\":\"%s\"", id);
    return FIX(base_samples, buf, "\"tokens_per_s\":262144", tps, BASE_ID, idb, from, to);
}

/* The difference of entry i on `dim`, or SIZE_MAX. */
static size_t difference_of(const mcpp_gate_report *r, size_t i, const char *dim)
{
    for (size_t k = 0; k < mcpp_gate_report_entry_difference_count(r, i); k++)
        if (strcmp(mcpp_gate_report_difference_dimension(r, i, k), dim) == 0) return k;
    return (size_t)-1;
}

static cJSON *render_json(const mcpp_gate_report *r)
{
    char *text = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render(&text, r, MCPP_OUTPUT_JSON), MCPP_OK);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    CHECK(doc != NULL);
    mcpp_free(text);
    return doc;
}

TEST(passed_candidate_shows_its_lane_baselines_and_qualifications)
{
    mcpp_receipt *b1 = scaled("base-1", 1.0, "\"seq_len\":4096", "\"seq_len\":4096");
    mcpp_receipt *b2 = scaled("base-2", 1.005, "\"seq_len\":4096", "\"seq_len\":4096");
    mcpp_receipt *cand = scaled("cand", 1.002, "\"graph_breaks\":0", "\"graph_breaks\":3");
    const mcpp_receipt *bases[] = {b1, b2}, *cands[] = {cand};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 2, cands, 1), MCPP_OK);
    CHECK_INT_EQ(not_failed_as_passed(mcpp_gate_report_entry_outcome(r, 0)), MCPP_GATE_PASSED);
    CHECK_STR_EQ(mcpp_gate_report_entry_reason_code(r, 0), "inconclusive"); /* 2+1 runs cannot rule out +6% */
    CHECK_STR_EQ(mcpp_gate_report_entry_lane_label(r, 0), "NAM56R hybrid MoE lane");
    CHECK_CONTAINS(mcpp_gate_report_entry_lane_key(r, 0), "pattern=AEMEAEMEAEMR");
    CHECK_STR_EQ(mcpp_gate_report_entry_path(r, 0), "fixture");
    CHECK_INT_EQ(mcpp_gate_report_entry_baseline_count(r, 0), 2);
    CHECK_STR_EQ(mcpp_gate_report_entry_baseline_id(r, 0, 1), "base-2");
    CHECK_STR_EQ(mcpp_gate_report_entry_baseline_path(r, 0, 1), "fixture");
    CHECK_INT_EQ(mcpp_gate_report_entry_baseline_verdict(r, 0, 0), MCPP_VERDICT_QUALIFIED);
    CHECK_INT_EQ(mcpp_gate_report_entry_verdict_count(r, 0, MCPP_VERDICT_QUALIFIED), 2);
    size_t k = difference_of(r, 0, "compile_detail");
    CHECK(k != (size_t)-1);
    if (k != (size_t)-1) {
        CHECK_INT_EQ(mcpp_gate_report_difference_status(r, 0, k), MCPP_DIM_QUALIFY);
        CHECK_INT_EQ(mcpp_gate_report_difference_pooled(r, 0, k), 1);
        CHECK_INT_EQ(mcpp_gate_report_difference_is_rule(r, 0, k), 0);
        CHECK_INT_EQ(mcpp_gate_report_difference_baselines(r, 0, k), 2);
        CHECK_CONTAINS(mcpp_gate_report_difference_base(r, 0, k), "graph_breaks=0");
        CHECK_CONTAINS(mcpp_gate_report_difference_cand(r, 0, k), "graph_breaks=3");
    }
    CHECK(mcpp_gate_report_entry_baseline_id(r, 0, 2) == NULL);
    CHECK(mcpp_gate_report_difference_dimension(r, 0, 99) == NULL);
    CHECK(mcpp_gate_report_entry_lane_key(r, 1) == NULL);
    cJSON *doc = render_json(r);
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "candidates"), 0);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "schema")), "mcpp.gate/2");
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "lane"), "label")),
                 "NAM56R hybrid MoE lane");
    CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "pooled")), 2);
    CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "metrics")), 1);
    cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(c0, "differences"), 0);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(d, "pooled")));
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(d, "kind")), "dimension");
    CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "skipped")), 0);
    cJSON_Delete(doc);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(b2);
    mcpp_receipt_free(cand);
}

TEST(undetermined_candidate_names_the_blocking_dimension_and_values)
{
    mcpp_receipt *b1 = scaled("base-1", 1.0, "\"top_k\":2", "\"top_k\":2");
    mcpp_receipt *b2 = scaled("base-2", 1.0, "\"top_k\":2", "\"top_k\":2");
    mcpp_receipt *cand = scaled("cand", 1.0, "\"top_k\":2", "\"top_k\":4");
    const mcpp_receipt *bases[] = {b1, b2}, *cands[] = {cand};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 2, cands, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_entry_outcome(r, 0), MCPP_GATE_UNDETERMINED);
    CHECK_STR_EQ(mcpp_gate_report_entry_reason_code(r, 0), "no_comparable_baseline");
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 0), "dimension routing mismatch on 2 baselines");
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 0), "top_k");
    size_t k = difference_of(r, 0, "routing");
    CHECK(k != (size_t)-1);
    if (k != (size_t)-1) {
        CHECK_INT_EQ(mcpp_gate_report_difference_pooled(r, 0, k), 0);
        CHECK_INT_EQ(mcpp_gate_report_difference_status(r, 0, k), MCPP_DIM_MISMATCH);
        CHECK_CONTAINS(mcpp_gate_report_difference_base(r, 0, k), "top_k=2");
        CHECK_CONTAINS(mcpp_gate_report_difference_cand(r, 0, k), "top_k=4");
    }
    CHECK_INT_EQ(mcpp_gate_report_entry_verdict_count(r, 0, MCPP_VERDICT_NOT_COMPARABLE), 2);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(b2);
    mcpp_receipt_free(cand);
}

/* Candidates of two lanes with one name are told apart as the frontier of
 * the candidates tells them apart, in every format (issue 13/19). */
TEST(candidates_show_the_frontiers_display_label_in_every_format)
{
    mcpp_receipt *b1 = scaled("base-1", 1.0, "\"top_k\":2", "\"top_k\":2");
    mcpp_receipt *c2 = scaled("cand-k2", 1.0, "\"top_k\":2", "\"top_k\":2");
    mcpp_receipt *c4 = scaled("cand-k4", 1.0, "\"top_k\":2", "\"top_k\":4");
    const mcpp_receipt *bases[] = {b1}, *cands[] = {c2, c4};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 1, cands, 2), MCPP_OK);
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, cands, 2), MCPP_OK);
    for (size_t i = 0; i < 2; i++) {
        size_t lane = 0;
        CHECK_INT_EQ(mcpp_frontier_find_lane(&lane, f, mcpp_gate_report_entry_lane_key(r, i)), MCPP_OK);
        CHECK_STR_EQ(mcpp_gate_report_entry_lane_display_label(r, i), mcpp_frontier_lane_display_label(f, lane));
        CHECK_STR_EQ(mcpp_gate_report_entry_lane_label(r, i), "NAM56R hybrid MoE lane");
    }
    mcpp_frontier_free(f);
    CHECK_STR_EQ(mcpp_gate_report_entry_lane_display_label(r, 0), "NAM56R hybrid MoE lane (top_k=2)");
    CHECK_STR_EQ(mcpp_gate_report_entry_lane_display_label(r, 1), "NAM56R hybrid MoE lane (top_k=4)");
    CHECK(mcpp_gate_report_entry_lane_display_label(r, 2) == NULL);
    char *text = NULL, *md = NULL, *junit = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render(&text, r, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_render(&md, r, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_render_junit(&junit, r), MCPP_OK);
    CHECK_CONTAINS(text, "lane      NAM56R hybrid MoE lane (top_k=4)");
    CHECK_CONTAINS(md, "| NAM56R hybrid MoE lane (top_k=4) |");
    CHECK_CONTAINS(junit, "classname=\"NAM56R hybrid MoE lane (top_k=4)\"");
    mcpp_free(text);
    mcpp_free(md);
    mcpp_free(junit);
    cJSON *doc = render_json(r);
    cJSON *lane = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "candidates"), 1), "lane");
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(lane, "label")), "NAM56R hybrid MoE lane");
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(lane, "display_label")), "NAM56R hybrid MoE lane (top_k=4)");
    cJSON_Delete(doc);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(c2);
    mcpp_receipt_free(c4);
}

/* Qualifies a pair whose candidate has graph breaks; blocks one with more than 4. */
static int graph_break_rule(void *ud, const mcpp_receipt *base, const mcpp_receipt *cand, mcpp_rule_outcome *outcome,
                            char *reason, size_t cap)
{
    (void)ud, (void)base;
    mcpp_value v = MCPP_VALUE_INIT;
    if (mcpp_receipt_get(cand, "compile.graph_breaks", &v) != MCPP_OK) return MCPP_EINTERNAL;
    *outcome = v.integer > 4 ? MCPP_RULE_MISMATCH : v.integer > 0 ? MCPP_RULE_QUALIFY : MCPP_RULE_PASS;
    snprintf(reason, cap, "%lld graph breaks", (long long)v.integer);
    return MCPP_OK;
}

TEST(fired_rules_are_listed_as_rules_for_passed_and_undetermined_candidates)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_add_rule(p, "graph_break_budget", graph_break_rule, NULL, NULL), MCPP_OK);
    mcpp_receipt *b1 = scaled("base-1", 1.0, "\"top_k\":2", "\"top_k\":2");
    mcpp_receipt *some = scaled("some", 1.0, "\"graph_breaks\":0", "\"graph_breaks\":2");
    mcpp_receipt *many = scaled("many", 1.0, "\"graph_breaks\":0", "\"graph_breaks\":9");
    const mcpp_receipt *bases[] = {b1}, *cands[] = {some, many};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, p, bases, 1, cands, 2), MCPP_OK);
    size_t k = difference_of(r, 0, "graph_break_budget");
    CHECK(k != (size_t)-1);
    if (k != (size_t)-1) {
        CHECK_INT_EQ(mcpp_gate_report_difference_is_rule(r, 0, k), 1);
        CHECK_INT_EQ(mcpp_gate_report_difference_pooled(r, 0, k), 1);
        CHECK_CONTAINS(mcpp_gate_report_difference_reason(r, 0, k), "2 graph breaks");
    }
    CHECK_STR_EQ(mcpp_gate_report_entry_reason_code(r, 1), "no_comparable_baseline");
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 1), "rule graph_break_budget mismatch on 1 baseline");
    k = difference_of(r, 1, "graph_break_budget");
    CHECK(k != (size_t)-1 && mcpp_gate_report_difference_is_rule(r, 1, k) == 1);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(some);
    mcpp_receipt_free(many);
    mcpp_policy_free(p);
}

TEST(a_long_history_is_decided_on_all_baselines_and_itemised_on_the_first_256)
{
    enum { N = 1100 };
    mcpp_receipt *runs[N];
    char id[32];
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof id, "hist-%04d", i);
        runs[i] = scaled(id, 1.0, "\"top_k\":2", "\"top_k\":2");
    }
    mcpp_receipt *cand = scaled("cand", 1.0, "\"graph_breaks\":0", "\"graph_breaks\":1");
    const mcpp_receipt *cands[] = {cand};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, (const mcpp_receipt *const *)runs, N, cands, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_entry_baseline_count(r, 0), N);
    CHECK_INT_EQ(mcpp_gate_report_entry_pooled_listed(r, 0), 1000);
    CHECK_INT_EQ(mcpp_gate_report_entry_metric(r, 0)->n_base, N); /* one run each */
    CHECK_INT_EQ(mcpp_gate_report_entry_baselines_unexamined(r, 0), N - 256);
    size_t k = difference_of(r, 0, "compile_detail");
    CHECK(k != (size_t)-1 && mcpp_gate_report_difference_baselines(r, 0, k) == 256);
    cJSON *doc = render_json(r);
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "candidates"), 0);
    CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "pooled")), 1000);
    CHECK_INT_EQ((int)cJSON_GetNumberValue(cJSON_GetObjectItem(c0, "pooled_omitted")), N - 1000);
    CHECK_INT_EQ((int)cJSON_GetNumberValue(cJSON_GetObjectItem(c0, "baselines_unexamined")), N - 256);
    cJSON_Delete(doc);
    mcpp_gate_report_free(r);
    for (int i = 0; i < N; i++) mcpp_receipt_free(runs[i]);
    mcpp_receipt_free(cand);
}

TEST(a_receipt_built_in_memory_has_no_path)
{
    mcpp_receipt *b1 = scaled("base-1", 1.0, "\"top_k\":2", "\"top_k\":2");
    char *text = fixture_text((const char *const[]){BASE_ID, "\"id\":\"mem\""}, 1);
    mcpp_receipt *cand = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&cand, NULL, text, strlen(text), MCPP_FORMAT_JSON, NULL, NULL), MCPP_OK);
    free(text);
    const mcpp_receipt *bases[] = {b1}, *cands[] = {cand};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 1, cands, 1), MCPP_OK);
    CHECK(mcpp_gate_report_entry_path(r, 0) == NULL);
    cJSON *doc = render_json(r);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "candidates"), 0), "path")));
    cJSON_Delete(doc);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(cand);
}

TEST(an_unread_input_makes_the_outcome_error_in_every_format)
{
    mcpp_receipt *b1 = scaled("base-1", 1.0, "\"top_k\":2", "\"top_k\":2");
    mcpp_receipt *cand = scaled("cand", 1.0, "\"top_k\":2", "\"top_k\":2");
    const mcpp_receipt *bases[] = {b1}, *cands[] = {cand};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 1, cands, 1), MCPP_OK);
    CHECK_INT_EQ(not_failed_as_passed(mcpp_gate_report_outcome(r)), MCPP_GATE_PASSED);
    CHECK_INT_EQ(mcpp_gate_report_add_input_error(r, "runs/skipped.json", "runs/skipped.json:3:1: bad", 1), MCPP_OK);
    CHECK_INT_EQ(not_failed_as_passed(mcpp_gate_report_outcome(r)),
                 MCPP_GATE_PASSED); /* skipped on request: listed only */
    CHECK_INT_EQ(mcpp_gate_report_add_input_error(r, "runs/broken.json", "runs/broken.json:2:1: invalid JSON", 0),
                 MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_outcome(r), MCPP_GATE_ERROR);
    CHECK_INT_EQ(mcpp_gate_report_exit_code(r), 3);
    CHECK_STR_EQ(mcpp_gate_outcome_name(MCPP_GATE_ERROR), "error");
    CHECK_CONTAINS(mcpp_gate_report_reason(r), "1 input could not be read");
    CHECK_INT_EQ(mcpp_gate_report_input_error_count(r), 2);
    CHECK_INT_EQ(mcpp_gate_report_input_error_skipped(r, 0), 1);
    CHECK_STR_EQ(mcpp_gate_report_input_error_path(r, 1), "runs/broken.json");
    for (int f = MCPP_OUTPUT_TEXT; f <= MCPP_OUTPUT_MARKDOWN; f++) {
        char *text = NULL;
        CHECK_INT_EQ(mcpp_gate_report_render(&text, r, (mcpp_output_format)f), MCPP_OK);
        CHECK_CONTAINS(text, "runs/broken.json");
        CHECK_CONTAINS(text, "runs/skipped.json");
        if (f == MCPP_OUTPUT_TEXT) CHECK_CONTAINS(text, "gate error: 1 input could not be read");
        if (f == MCPP_OUTPUT_MARKDOWN) CHECK_CONTAINS(text, "### Merge gate: **error**");
        if (f == MCPP_OUTPUT_JSON) CHECK_CONTAINS(text, "\"exit_code\": 3");
        mcpp_free(text);
    }
    char *xml = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render_junit(&xml, r), MCPP_OK);
    CHECK_CONTAINS(xml, "errors=\"1\"");
    CHECK_CONTAINS(xml, "runs/broken.json");
    mcpp_free(xml);
    CHECK_INT_EQ(mcpp_gate_report_add_input_error(NULL, "x", "y", 0), MCPP_EARG);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(cand);
}

TEST(changes_read_better_or_worse_with_one_sign_in_json)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_gate_settings g = {MCPP_GATE_SETTINGS_VERSION, "metrics.step_time_s.median", 0, 0.03, 0.95};
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    mcpp_receipt *b1 = scaled("base-1", 1.0, "\"top_k\":2", "\"top_k\":2");
    mcpp_receipt *fast = scaled("fast", 0.63, "\"top_k\":2", "\"top_k\":2");
    mcpp_receipt *slow = scaled("slow", 1.25, "\"top_k\":2", "\"top_k\":2");
    const mcpp_receipt *bases[] = {b1}, *cands[] = {fast, slow};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, p, bases, 1, cands, 2), MCPP_OK);
    /* Step time 37% lower: better by 37.0% (never "delta -37%" next to "improvement of 58.7%"). */
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 0), "better by 37.0%");
    CHECK(strstr(mcpp_gate_report_entry_reason(r, 0), "58.7") == NULL);
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 1), "worse by 25.0%");
    CHECK_INT_EQ(mcpp_gate_report_entry_outcome(r, 1), MCPP_GATE_FAILED);
    cJSON *doc = render_json(r);
    cJSON *cands_j = cJSON_GetObjectItem(doc, "candidates");
    cJSON *m0 = cJSON_GetObjectItem(cJSON_GetArrayItem(cands_j, 0), "metric");
    cJSON *m1 = cJSON_GetObjectItem(cJSON_GetArrayItem(cands_j, 1), "metric");
    CHECK(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(m0, "improvement")) - 0.37) < 0.001);
    CHECK(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(m0, "rel_delta")) + 0.37) < 0.001);
    CHECK(fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(m1, "improvement")) + 0.25) < 0.001);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(m1, "change")), "worse by 25.0%");
    cJSON *iv = cJSON_GetObjectItem(m1, "improvement_interval");
    CHECK(cJSON_GetNumberValue(cJSON_GetArrayItem(iv, 0)) <= cJSON_GetNumberValue(cJSON_GetArrayItem(iv, 1)));
    cJSON_Delete(doc);
    char *md = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render(&md, r, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_CONTAINS(md, "better by 37.0%");
    CHECK(strstr(md, "-37") == NULL);
    mcpp_free(md);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(fast);
    mcpp_receipt_free(slow);
    mcpp_policy_free(p);
}

TEST(markdown_of_500_candidates_fits_a_github_comment_and_folds_the_table)
{
    enum { N = 500 };
    mcpp_receipt *b1 = scaled("base-1", 1.0, "\"top_k\":2", "\"top_k\":2");
    mcpp_receipt *cands[N];
    char id[64];
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof id, "candidate-with-a-long-identifier-%04d", i);
        /* Every third one blocked by routing, the others qualified by graph breaks. */
        cands[i] = i % 3 == 0 ? scaled(id, 1.0, "\"top_k\":2", "\"top_k\":4")
                              : scaled(id, 1.0, "\"graph_breaks\":0", "\"graph_breaks\":5");
    }
    const mcpp_receipt *bases[] = {b1};
    mcpp_gate_report *r = NULL;
    /* top_k=4 is a lane no baseline has: a new lane, undetermined under new_lanes = fail */
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_new_lanes_fail(p, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_new_lanes_fail(p), 1);
    CHECK_INT_EQ(mcpp_gate_run(&r, p, bases, 1, (const mcpp_receipt *const *)cands, N), MCPP_OK);
    mcpp_policy_free(p);
    char *md = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render(&md, r, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK(md && strlen(md) < 65536);
    CHECK_CONTAINS(md, "<details><summary>All 500 candidates</summary>");
    CHECK_CONTAINS(md, "167 undetermined");
    CHECK_CONTAINS(md, "more not shown");
    CHECK_CONTAINS(md, "</details>");
    mcpp_free(md);
    char *xml = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render_junit(&xml, r), MCPP_OK);
    CHECK_CONTAINS(xml, "tests=\"500\"");
    CHECK_CONTAINS(xml, "skipped=\"500\""); /* 167 undetermined, the rest inconclusive (one run a side) */
    mcpp_free(xml);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    for (int i = 0; i < N; i++) mcpp_receipt_free(cands[i]);
}

/* Issue 47 item 3: every output says which runs the candidate's headline pools
 * (baselines and its own runs) and which baselines it set aside, with why. */
TEST(every_format_names_the_runs_a_headline_pools_and_those_it_set_aside)
{
    mcpp_receipt *b1 = scaled("base-1", 1.0, "\"seq_len\":4096", "\"seq_len\":4096");
    mcpp_receipt *b2 = scaled("base-2", 1.005, "\"seq_len\":4096", "\"seq_len\":4096");
    mcpp_receipt *bad = scaled("base-failed", 1.3, "\"outcome\":\"ok\"", "\"outcome\":\"failed\"");
    mcpp_receipt *other = scaled("base-8k", 1.0, "\"seq_len\":4096", "\"seq_len\":8192");
    mcpp_receipt *cand = scaled("cand", 1.002, "\"seq_len\":4096", "\"seq_len\":4096");
    const mcpp_receipt *bases[] = {b1, b2, bad, other}, *cands[] = {cand};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, bases, 4, cands, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_entry_baseline_count(r, 0), 2);
    cJSON *doc = render_json(r);
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "candidates"), 0);
    cJSON *runs = cJSON_GetObjectItem(c0, "candidate_runs"), *aside = cJSON_GetObjectItem(c0, "set_aside");
    CHECK_INT_EQ(cJSON_GetArraySize(runs), 1);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetArrayItem(runs, 0)), "cand");
    CHECK_INT_EQ(cJSON_GetArraySize(aside), 1);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(aside, 0), "id")), "base-failed");
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(aside, 0), "reason")),
                 "status.outcome failed, not ok");
    CHECK_INT_EQ((int)cJSON_GetNumberValue(cJSON_GetObjectItem(c0, "set_aside_other_lanes")), 1);
    cJSON_Delete(doc);
    static const char want[] = "pools 3 runs: base-1, base-2, cand; sets aside 2: base-failed (status.outcome "
                               "failed, not ok); and 1 more (1 of other lanes, not comparable)";
    for (int f = 0; f < 2; f++) {
        char *text = NULL;
        CHECK_INT_EQ(mcpp_gate_report_render(&text, r, f ? MCPP_OUTPUT_MARKDOWN : MCPP_OUTPUT_TEXT), MCPP_OK);
        if (text)
            CHECK_CONTAINS(text, want);
        mcpp_free(text);
    }
    mcpp_gate_report_free(r);
    /* a candidate with no comparable baseline lists the baselines set aside with the rows that kept them out */
    const mcpp_receipt *far[] = {other};
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, far, 1, cands, 1), MCPP_OK);
    doc = render_json(r);
    c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "candidates"), 0);
    aside = cJSON_GetObjectItem(c0, "set_aside");
    CHECK_INT_EQ(cJSON_GetArraySize(aside), 1);
    CHECK_CONTAINS(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(aside, 0), "reason")),
                   "not_comparable: sequence: ");
    cJSON_Delete(doc);
    mcpp_gate_report_free(r);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(b2);
    mcpp_receipt_free(bad);
    mcpp_receipt_free(other);
    mcpp_receipt_free(cand);
}

TEST(a_candidate_of_a_new_lane_lists_20_baselines_of_other_lanes_and_counts_the_rest)
{
    /* 50 baselines, each of a lane of its own (seq_len 8192 + k), none the
     * candidate's: every verdict is still taken (50 not comparable), the
     * first 20 are listed with the rows that kept them out and the other 30
     * counted. Listed in full, a gate of 1,000 new lanes wrote 210 MB. */
    enum { N = 50 };
    mcpp_receipt *bases[N];
    for (int k = 0; k < N; k++) {
        char id[32], seq[32];
        snprintf(id, sizeof id, "base-%d", k);
        snprintf(seq, sizeof seq, "\"seq_len\":%d", 8192 + k);
        bases[k] = scaled(id, 1.0, "\"seq_len\":4096", seq);
    }
    mcpp_receipt *cand = scaled("cand", 1.0, "\"seq_len\":4096", "\"seq_len\":4096");
    const mcpp_receipt *cands[] = {cand};
    mcpp_gate_report *r = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&r, NULL, (const mcpp_receipt *const *)bases, N, cands, 1), MCPP_OK);
    cJSON *doc = render_json(r);
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "candidates"), 0);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(c0, "outcome")), "undetermined");
    CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "set_aside")), 20);
    CHECK_INT_EQ((int)cJSON_GetNumberValue(cJSON_GetObjectItem(c0, "set_aside_other_lanes")), N - 20);
    CHECK_INT_EQ((int)cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(c0, "verdicts"), "not_comparable")),
                 N);
    CHECK_CONTAINS(cJSON_GetStringValue(
                       cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(c0, "set_aside"), 19), "reason")),
                   "not_comparable: sequence: ");
    cJSON_Delete(doc);
    mcpp_gate_report_free(r);
    for (int k = 0; k < N; k++)
        mcpp_receipt_free(bases[k]);
    mcpp_receipt_free(cand);
}

int main(void)
{
    RUN(passed_candidate_shows_its_lane_baselines_and_qualifications);
    RUN(undetermined_candidate_names_the_blocking_dimension_and_values);
    RUN(candidates_show_the_frontiers_display_label_in_every_format);
    RUN(fired_rules_are_listed_as_rules_for_passed_and_undetermined_candidates);
    RUN(a_long_history_is_decided_on_all_baselines_and_itemised_on_the_first_256);
    RUN(a_receipt_built_in_memory_has_no_path);
    RUN(an_unread_input_makes_the_outcome_error_in_every_format);
    RUN(changes_read_better_or_worse_with_one_sign_in_json);
    RUN(markdown_of_500_candidates_fits_a_github_comment_and_folds_the_table);
    RUN(every_format_names_the_runs_a_headline_pools_and_those_it_set_aside);
    RUN(a_candidate_of_a_new_lane_lists_20_baselines_of_other_lanes_and_counts_the_rest);
    TEST_MAIN_END();
}
