/*
 * test_core_validation.c — every validation rule, with its exact message:
 * "FILE:LINE:COL: FIELD.PATH: what was expected, got what", for JSON and for
 * YAML, plus the collection of several problems into one report.
 */
#include <stdio.h>
#include <string.h>

#include "core_test_helpers.h"
#include "test_util.h"

/* Each JSON case starts its problem on line 2 so the location is checkable. */
#define HEAD "{\"schema\": \"mcpp.receipt/2\",\n"

static void expect(load_result r, int status, const char *kind, const char *message)
{
    CHECK_INT_EQ(r.status, status);
    CHECK_STR_EQ(r.kind, kind);
    CHECK_STR_EQ(r.message, message);
    CHECK_STR_EQ(r.last_error, message); /* the first error is also the last error */
}

TEST(unknown_top_level_field_suggests_the_nearest_name)
{
    expect(load_json(HEAD " \"lanes\": {}}"), MCPP_EINVALID, "unknown_field",
           "t.json:2:2: lanes: unknown top-level field, did you mean 'lane'? (free-form data "
           "goes in 'extra')");
    expect(load_yaml("schema: mcpp.receipt/2\nlanes: {}\n"), MCPP_EINVALID, "unknown_field",
           "t.yaml:2:1: lanes: unknown top-level field, did you mean 'lane'? (free-form data "
           "goes in 'extra')");
}

TEST(unknown_field_in_a_section_suggests_top_k)
{
    expect(load_json(HEAD " \"routing\": {\"mode\": \"token_choice\", \"topk\": 8}}"),
           MCPP_EINVALID, "unknown_field",
           "t.json:2:38: routing.topk: unknown field, did you mean 'top_k'? (free-form data "
           "goes in 'extra')");
    expect(load_json(HEAD " \"routing\": {\"zzzzzz\": 8}}"), MCPP_EINVALID, "unknown_field",
           "t.json:2:14: routing.zzzzzz: unknown field (free-form data goes in 'extra')");
}

TEST(wrong_type_names_expected_and_given)
{
    expect(load_json(HEAD " \"routing\": {\"top_k\": \"8\"}}"), MCPP_EINVALID, "type",
           "t.json:2:23: routing.top_k: expected integer, got string \"8\"");
    expect(load_json(HEAD " \"topology\": {\"sp\": 1}}"), MCPP_EINVALID, "type",
           "t.json:2:21: topology.sp: expected boolean, got number 1");
    expect(load_json(HEAD " \"routing\": {\"top_k\": 8.5}}"), MCPP_EINVALID, "type",
           "t.json:2:23: routing.top_k: expected integer, got number 8.5");
    expect(load_json(HEAD " \"lane\": 3}"), MCPP_EINVALID, "type",
           "t.json:2:10: lane: expected object, got number 3");
    expect(load_json(HEAD " \"status\": {\"caveats\": [\"a\", 2]}}"), MCPP_EINVALID, "type",
           "t.json:2:30: status.caveats[1]: expected string, got number 2");
    expect(load_json(HEAD " \"metrics\": {\"tokens_per_s\": null}}"), MCPP_EINVALID, "type",
           "t.json:2:30: metrics.tokens_per_s: expected number, got null");
}

TEST(bad_enum_lists_the_allowed_values)
{
    expect(load_json(HEAD " \"compile\": {\"posture\": \"fast\"}}"), MCPP_EINVALID, "enum",
           "t.json:2:25: compile.posture: expected one of \"eager\", \"partial\", \"regional\", "
           "\"whole_model\", \"graph_replay\", got \"fast\"");
    expect(load_json(HEAD " \"backend\": {\"moe\": {\"requested\": \"dense\", \"observed\": "
                          "\"dense\"}}}"),
           MCPP_EINVALID, "enum",
           "t.json:2:35: backend.moe.requested: expected one of \"padded\", \"jagged\", "
           "\"block_sparse\", \"auto\", got \"dense\"");
}

TEST(out_of_range_counts_and_measurements_are_refused)
{
    expect(load_json(HEAD " \"workload\": {\"seq_len\": -1}}"), MCPP_EINVALID, "range",
           "t.json:2:26: workload.seq_len: expected a value >= 1, got -1");
    expect(load_json(HEAD " \"compile\": {\"graph_breaks\": -2}}"), MCPP_EINVALID, "range",
           "t.json:2:30: compile.graph_breaks: expected a value >= 0, got -2");
    expect(load_json(HEAD " \"metrics\": {\"step_time_s\": {\"samples\": [0.5, -0.1]}}}"),
           MCPP_EINVALID, "range",
           "t.json:2:47: metrics.step_time_s.samples[1]: expected a value > 0, got -0.1");
}

TEST(pattern_letters_other_than_amer_are_refused)
{
    expect(load_json(HEAD " \"lane\": {\"pattern\": \"AMXA\"}}"), MCPP_EINVALID, "enum",
           "t.json:2:22: lane.pattern: expected only the letters A, M, E, R, got 'X' at "
           "position 3 of \"AMXA\"");
}

TEST(e_in_pattern_requires_routing_mode)
{
    expect(load_json(HEAD " \"lane\": {\"pattern\": \"AEMR\"}}"), MCPP_EINVALID, "missing",
           "t.json:1:1: routing.mode: required because lane.pattern \"AEMR\" has E (MoE) "
           "blocks, expected one of \"token_choice\", \"expert_choice\"");
    /* with a routing section but no mode, the message points at the section */
    expect(load_json(HEAD " \"lane\": {\"pattern\": \"AEMR\"},\n \"routing\": {\"top_k\": 2}}"),
           MCPP_EINVALID, "missing",
           "t.json:3:2: routing.mode: required because lane.pattern \"AEMR\" has E (MoE) "
           "blocks, expected one of \"token_choice\", \"expert_choice\"");
}

TEST(family_contradicting_the_pattern_is_refused)
{
    expect(load_json(HEAD " \"lane\": {\"family\": \"NAM52\", \"pattern\": \"AEAE\"}, "
                          "\"routing\": {\"mode\": \"token_choice\"}}"),
           MCPP_EINVALID, "consistency",
           "t.json:2:21: lane.family: registered family NAM52 uses only the blocks AMR, got 'E' "
           "in lane.pattern \"AEAE\" (a dense family has no E blocks)");
    expect(load_json(HEAD " \"lane\": {\"family\": \"NAM56R\", \"pattern\": \"AEMA\"}, "
                          "\"routing\": {\"mode\": \"token_choice\"}}"),
           MCPP_EINVALID, "consistency",
           "t.json:2:21: lane.family: registered family NAM56R has pattern \"AEMEAEMEAEMR\", got "
           "lane.pattern \"AEMA\"");
    /* unknown families pass */
    CHECK_INT_EQ(load_json(HEAD " \"lane\": {\"family\": \"X9\", \"pattern\": \"AMAM\"}}").status,
                 MCPP_OK);
}

TEST(stated_median_must_agree_with_samples)
{
    expect(load_json(HEAD " \"metrics\": {\"step_time_s\": {\"samples\": [1.0, 2.0, 3.0], "
                          "\"median\": 2.5}}}"),
           MCPP_EINVALID, "consistency",
           "t.json:2:68: metrics.step_time_s.median: expected the median of the 3 samples (2, "
           "within 0.5%), got 2.5");
    /* rounding within 0.5% is fine */
    CHECK_INT_EQ(load_json(HEAD " \"metrics\": {\"step_time_s\": {\"samples\": [1.0, 2.0, 3.0], "
                                "\"median\": 2.005, \"p10\": 1.2, \"p90\": 2.8}}}")
                     .status,
                 MCPP_OK);
    expect(load_json(HEAD " \"metrics\": {\"step_time_s\": {\"median\": 2.0, \"p10\": 2.5}}}"),
           MCPP_EINVALID, "range",
           "t.json:2:52: metrics.step_time_s.p10: expected p10 <= median (2), got 2.5");
}

TEST(observed_missing_where_requested_is_stated)
{
    expect(load_json(HEAD " \"hardware\": {\"requested\": {\"accelerator\": \"H200\"}}}"),
           MCPP_EINVALID, "missing",
           "t.json:2:2: hardware.observed.accelerator: required because "
           "hardware.requested.accelerator is stated: a receipt must say what actually ran, not "
           "only what was asked for");
    expect(load_json(HEAD " \"backend\": {\"attention\": {\"requested\": \"flash\"}}}"),
           MCPP_EINVALID, "missing",
           "t.json:2:14: backend.attention.observed: required because "
           "backend.attention.requested is stated: a receipt must say what actually ran, not only "
           "what was asked for");
}

TEST(schema_must_be_present_and_exact)
{
    expect(load_json("{\"schema\": \"mcpp.receipt/3\"}"), MCPP_EINVALID, "enum",
           "t.json:1:12: schema: expected \"mcpp.receipt/2\" (or \"mcpp.receipt/1\", read and "
           "upgraded), got \"mcpp.receipt/3\"");
    expect(load_json("{\"lane\": {}}"), MCPP_EINVALID, "missing",
           "t.json:1:1: schema: required field is missing, expected \"mcpp.receipt/2\"");
}

TEST(created_at_must_be_rfc3339)
{
    expect(load_json(HEAD " \"created_at\": \"2026-11-22 noon\"}"), MCPP_EINVALID, "type",
           "t.json:2:16: created_at: expected an RFC 3339 time such as "
           "\"2026-11-22T01:02:03Z\", got \"2026-11-22 noon\"");
    CHECK_INT_EQ(load_json(HEAD " \"created_at\": \"2026-11-22T01:02:03.25-05:30\"}").status,
                 MCPP_OK);
    CHECK_INT_EQ(load_json(HEAD " \"created_at\": \"2026-13-22T01:02:03Z\"}").status,
                 MCPP_EINVALID);
}

TEST(numbers_beyond_exact_range_or_infinite_are_refused)
{
    expect(load_json(HEAD " \"lane\": {\"params_total\": 1180591620717411303424}}"),
           MCPP_EINVALID, "range",
           "t.json:2:27: lane.params_total: expected integer, got 1.1805916207174113e+21 which "
           "overflows the exact integer range (+-2^53)");
    expect(load_json(HEAD " \"metrics\": {\"tokens_per_s\": 1e400}}"), MCPP_EINVALID, "range",
           "t.json:2:30: metrics.tokens_per_s: expected a finite number, got a number too large "
           "for a double (infinity)");
}

TEST(all_problems_are_collected_in_one_report)
{
    load_result r = load_json(HEAD " \"lane\": {\"pattern\": \"AXE\", \"depth\": -1},\n"
                                   " \"routing\": {\"top_k\": \"x\"},\n \"bogus\": 1}");
    CHECK_INT_EQ(r.status, MCPP_EINVALID);
    CHECK(r.errors >= 4);
}

TEST(warnings_do_not_fail_the_load)
{
    load_result r = load_json(HEAD " \"metrics\": {\"window\": {\"measured_steps\": 5}, "
                                   "\"step_time_s\": {\"samples\": [1.0, 1.1]}}}");
    CHECK_INT_EQ(r.status, MCPP_OK);
    CHECK_INT_EQ(r.errors, 0);
    CHECK_INT_EQ(r.total, 1);
    CHECK_CONTAINS(r.message, "metrics.window.measured_steps: 5 measured steps but 2 step samples");
}

/* ---- YAML: same rules, YAML locations, YAML 1.1 pitfalls typed strictly ---------------- */

TEST(yaml_type_error_names_field_line_and_column)
{
    expect(load_yaml("schema: mcpp.receipt/2\nrouting:\n  mode: token_choice\n  top_k: \"8\"\n"),
           MCPP_EINVALID, "type", "t.yaml:4:10: routing.top_k: expected integer, got string \"8\"");
}

TEST(yaml_yes_is_a_string_not_a_boolean)
{
    expect(load_yaml("schema: mcpp.receipt/2\ntopology:\n  sp: yes\n"), MCPP_EINVALID, "type",
           "t.yaml:3:7: topology.sp: expected boolean, got string \"yes\"");
    /* and `true` where an enum is wanted names the boolean it got */
    expect(load_yaml("schema: mcpp.receipt/2\nstartup:\n  state: true\n"), MCPP_EINVALID, "type",
           "t.yaml:3:10: startup.state: expected one of \"cold_boot\", \"warm_cache\", "
           "\"snapshot_restore\", got boolean true");
}

TEST(yaml_yes_where_an_enum_is_required_fails_as_enum)
{
    /* "yes" in a YAML 1.2 core reader is the string yes (not boolean true) */
    load_result r = load_yaml("schema: mcpp.receipt/2\ncompile:\n  warmup: yes\n");
    CHECK_INT_EQ(r.status, MCPP_EINVALID);
    CHECK_STR_EQ(r.kind, "enum");
    CHECK_STR_EQ(r.message, "t.yaml:3:11: compile.warmup: expected one of \"explicit\", \"lazy\", "
                            "\"skipped\", got \"yes\"");
}

TEST(yaml_octal_0o17_is_a_string_where_an_int_is_required)
{
    expect(load_yaml("schema: mcpp.receipt/2\nworkload:\n  seq_len: 0o17\n"), MCPP_EINVALID,
           "type", "t.yaml:3:12: workload.seq_len: expected integer, got string \"0o17\"");
    expect(load_yaml("schema: mcpp.receipt/2\nworkload:\n  seq_len: 0x1F\n"), MCPP_EINVALID,
           "type", "t.yaml:3:12: workload.seq_len: expected integer, got string \"0x1F\"");
}

TEST(yaml_missing_observed_points_at_the_section)
{
    expect(load_yaml("schema: mcpp.receipt/2\nhardware:\n  requested:\n    count: 8\n"),
           MCPP_EINVALID, "missing",
           "t.yaml:2:1: hardware.observed.count: required because hardware.requested.count is "
           "stated: a receipt must say what actually ran, not only what was asked for");
}

int main(void)
{
    RUN(unknown_top_level_field_suggests_the_nearest_name);
    RUN(unknown_field_in_a_section_suggests_top_k);
    RUN(wrong_type_names_expected_and_given);
    RUN(bad_enum_lists_the_allowed_values);
    RUN(out_of_range_counts_and_measurements_are_refused);
    RUN(pattern_letters_other_than_amer_are_refused);
    RUN(e_in_pattern_requires_routing_mode);
    RUN(family_contradicting_the_pattern_is_refused);
    RUN(stated_median_must_agree_with_samples);
    RUN(observed_missing_where_requested_is_stated);
    RUN(schema_must_be_present_and_exact);
    RUN(created_at_must_be_rfc3339);
    RUN(numbers_beyond_exact_range_or_infinite_are_refused);
    RUN(all_problems_are_collected_in_one_report);
    RUN(warnings_do_not_fail_the_load);
    RUN(yaml_type_error_names_field_line_and_column);
    RUN(yaml_yes_is_a_string_not_a_boolean);
    RUN(yaml_yes_where_an_enum_is_required_fails_as_enum);
    RUN(yaml_octal_0o17_is_a_string_where_an_int_is_required);
    RUN(yaml_missing_observed_points_at_the_section);
    TEST_MAIN_END();
}
