/*
 * test_named_metrics.c — analyses on named metrics (docs/metrics.md): compare,
 * gate, frontier and claim read a metric by name with the receipts' unit and
 * direction; sides that disagree on unit, direction or primary metric are not
 * compared; the default gate metric "primary" gates a benchmark-suite result on
 * its own headline; a multi-metric gate fails on any metric and names it.
 * Receipts are pytest-benchmark-like suite results written inline.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test_util.h"
#include "mcpp_receipts.h"

/* How one suite run differs from the plain one. */
typedef struct run_spec {
    const char *id;
    double scale;          /* round times are scale * (1 + 0.01 k), median scale */
    const char *unit;      /* of round_time_s; NULL: "s" */
    const char *direction; /* of round_time_s; NULL: "lower" */
    const char *primary;   /* NULL: "round_time_s" */
    double peak_rss;       /* > 0: a second metric peak_rss_mib (MiB, lower) */
    const char *extra;     /* the extra object's JSON, or NULL */
    const char *suite;     /* benchmark.suite; NULL: "pytest-benchmark" */
} run_spec;

static mcpp_receipt *suite_run(run_spec s)
{
    static const int K[8] = {0, 1, -1, 0, 2, -2, 0, 1};
    char samples[256] = "", extra[160] = "", free_form[256] = "", text[2400];
    if (s.extra) snprintf(free_form, sizeof free_form, "\"extra\":%s,", s.extra);
    for (int i = 0; i < 8; i++)
        snprintf(samples + strlen(samples), sizeof samples - strlen(samples), "%s%.17g", i ? "," : "",
                 s.scale * (1 + 0.01 * K[i]));
    if (s.peak_rss > 0)
        snprintf(extra, sizeof extra,
                 ",{\"name\":\"peak_rss_mib\",\"unit\":\"MiB\",\"direction\":\"lower\",\"value\":%.17g,"
                 "\"aggregate\":\"single\"}", s.peak_rss);
    snprintf(text, sizeof text,
             "{\"schema\":\"mcpp.receipt/2\",\"id\":\"%s\",%s\"created_at\":\"2026-11-20T14:02:11Z\","
             "\"source\":{\"tool\":\"test\",\"not_recorded\":[\"lane\",\"routing\",\"compile\",\"startup\"]},"
             "\"benchmark\":{\"suite\":\"%s\",\"name\":\"test_sorted\",\"params\":{\"n\":1000}},"
             "\"hardware\":{\"observed\":{\"accelerator\":\"cpu: AMD EPYC 7B13\",\"count\":1}},"
             "\"topology\":{\"substrate\":\"cpu\",\"nodes\":1},"
             "\"metrics\":{\"primary\":\"%s\",\"named\":[{\"name\":\"round_time_s\",\"unit\":\"%s\","
             "\"direction\":\"%s\",\"sample_kind\":\"round\",\"aggregate\":\"median\",\"samples\":[%s],"
             "\"value\":%.17g}%s]},"
             "\"status\":{\"outcome\":\"ok\",\"stability\":\"stable\"}}",
             s.id, free_form, s.suite ? s.suite : "pytest-benchmark", s.primary ? s.primary : "round_time_s", s.unit ? s.unit : "s",
             s.direction ? s.direction : "lower", samples, s.scale, extra);
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_buffer(&r, NULL, text, strlen(text), MCPP_FORMAT_JSON, s.id, NULL) != MCPP_OK) {
        fprintf(stderr, "suite run %s does not load: %s\n", s.id, mcpp_error_last()->message);
        abort();
    }
    return r;
}

static mcpp_policy *policy_text(const char *lua)
{
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_buffer(&p, lua, strlen(lua), "inline.lua", NULL) != MCPP_OK) {
        fprintf(stderr, "policy does not load: %s\n", mcpp_error_last()->message);
        abort();
    }
    return p;
}

/* The comparison of base and cand under the default policy. */
static mcpp_comparison *compared(run_spec b, run_spec c)
{
    mcpp_receipt *base = suite_run(b), *cand = suite_run(c);
    mcpp_comparison *cmp = NULL;
    if (mcpp_compare(&cmp, NULL, base, cand) != MCPP_OK) abort();
    mcpp_receipt_free(base);
    mcpp_receipt_free(cand);
    return cmp;
}

TEST(the_default_gate_compares_a_suite_result_on_its_primary_metric_with_its_unit_and_direction)
{
    mcpp_comparison *slow = compared((run_spec){.id = "b", .scale = 1.0}, (run_spec){.id = "c", .scale = 1.30});
    CHECK(mcpp_comparison_verdict(slow) == MCPP_VERDICT_COMPARABLE ||
          mcpp_comparison_verdict(slow) == MCPP_VERDICT_QUALIFIED); /* software: not recorded here */
    CHECK_INT_EQ(mcpp_comparison_gate(slow), MCPP_GATE_FAILED);
    const mcpp_metric_result *m = mcpp_comparison_metric(slow);
    CHECK(m != NULL);
    if (m) {
        CHECK_STR_EQ(m->metric, "round_time_s");
        CHECK_STR_EQ(m->unit, "s");
        CHECK_INT_EQ(m->higher_is_better, 0);
        CHECK_INT_EQ(m->point_comparison, 0); /* the policy declares run-to-run noise */
        CHECK_INT_EQ(m->n_base, 1);          /* one run; its 8 rounds describe only it */
        CHECK(fabs(m->run_sd - 0.05) < 1e-12); /* the figure default.lua declares for pytest-benchmark */
        CHECK(m->rel_delta > 0.29 && m->rel_delta < 0.31);
    }
    CHECK_CONTAINS(mcpp_comparison_gate_reason(slow), "round_time_s (lower is better)");
    mcpp_comparison_free(slow);
    mcpp_comparison *fast = compared((run_spec){.id = "b", .scale = 1.0}, (run_spec){.id = "c", .scale = 0.90});
    CHECK_INT_EQ(mcpp_comparison_gate(fast), MCPP_GATE_PASSED); /* lower is better: an improvement */
    CHECK_CONTAINS(mcpp_comparison_gate_reason(fast), "better by 10.0% on round_time_s");
    mcpp_comparison_free(fast);
}

/* 10% slower, one run a side, under `p`: the gate's outcome. */
static mcpp_gate_outcome ten_percent_slower(const mcpp_policy *p, const char *suite)
{
    mcpp_receipt *b = suite_run((run_spec){.id = "b", .scale = 1.0, .suite = suite}),
                 *c = suite_run((run_spec){.id = "c", .scale = 1.10, .suite = suite});
    mcpp_comparison *cmp = NULL;
    if (mcpp_compare(&cmp, p, b, c) != MCPP_OK) abort();
    mcpp_gate_outcome out = mcpp_comparison_gate(cmp);
    mcpp_comparison_free(cmp);
    mcpp_receipt_free(b);
    mcpp_receipt_free(c);
    return out;
}

TEST(a_suite_declared_by_the_policy_is_gated_against_its_own_run_to_run_noise)
{
    /* default: 5% for pytest-benchmark results, where one run against one
     * cannot establish 10%; 3% for a suite the policy names no figure for */
    CHECK_INT_EQ(ten_percent_slower(NULL, "pytest-benchmark"), MCPP_GATE_PASSED);
    CHECK_INT_EQ(ten_percent_slower(NULL, "in-house-suite"), MCPP_GATE_FAILED);
    mcpp_policy *p = policy_text("return { include = { 'default.lua' }, name = 'quiet_ci',\n"
                                 "  noise = { suites = { ['pytest-benchmark'] = { run_to_run = 0.02 } } } }");
    CHECK_INT_EQ(ten_percent_slower(p, "pytest-benchmark"), MCPP_GATE_FAILED); /* the including file wins */
    double sd = 0, df = 0;
    CHECK_INT_EQ(mcpp_policy_suite_noise_count(p), 2);
    CHECK_STR_EQ(mcpp_policy_suite_noise_at(p, 0, &sd, &df), "google-benchmark"); /* name order */
    CHECK_STR_EQ(mcpp_policy_suite_noise_at(p, 1, &sd, &df), "pytest-benchmark");
    CHECK(sd == 0.02 && df == 20); /* df: the policy's */
    CHECK(mcpp_policy_suite_noise_at(p, 2, &sd, &df) == NULL);
    /* the figure is part of what the digest covers */
    char before[MCPP_POLICY_DIGEST_LEN + 1], after[MCPP_POLICY_DIGEST_LEN + 1];
    CHECK_INT_EQ(mcpp_policy_digest(before, sizeof before, p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_suite_noise(p, "pytest-benchmark", 0.021, -1), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_digest(after, sizeof after, p), MCPP_OK);
    CHECK(strcmp(before, after) != 0);
    /* nonsense is refused and changes nothing */
    CHECK_INT_EQ(mcpp_policy_set_suite_noise(p, "pytest-benchmark", -0.1, -1), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_policy_set_suite_noise(p, "", 0.05, -1), MCPP_EINVALID);
    mcpp_policy_suite_noise_at(p, 1, &sd, &df);
    CHECK(sd == 0.021);
    mcpp_policy_free(p);
    /* a bad entry in a file names where it is */
    static const char *const BAD[][2] = {
        {"noise = { suites = { ['pytest-benchmark'] = { run_to_run = 6 } } }", "noise.suites[\"pytest-benchmark\"]"},
        {"noise = { suites = { ['pytest-benchmark'] = { sd = 0.05 } } }", "unknown key 'sd' in noise.suites[\"pytest-benchmark\"]"},
        {"noise = { suites = { ['pytest-benchmark'] = {} } }", "needs run_to_run"},
        {"noise = { suites = { 0.05 } }", "keys must be suite names"},
        {"noise = { suites = 0.05 }", "noise.suites must be a table"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        char text[256];
        snprintf(text, sizeof text, "return { name = 'bad',\n  %s }", BAD[i][0]);
        mcpp_policy *bad = NULL;
        CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&bad, text, strlen(text), "bad.lua", NULL), MCPP_EPOLICY);
        CHECK(bad == NULL);
        CHECK_CONTAINS(mcpp_error_last()->message, BAD[i][1]);
        CHECK_INT_EQ(mcpp_error_last()->line, 2);
    }
}

TEST(sides_that_state_another_unit_or_direction_are_refused_not_compared)
{
    mcpp_comparison *c = compared((run_spec){.id = "b", .scale = 1.0}, (run_spec){.id = "c", .scale = 1000.0, .unit = "ms"});
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_UNDETERMINED);
    CHECK(mcpp_comparison_metric(c) == NULL);
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "unit 's' on the base, 'ms' on the candidate: not compared");
    mcpp_comparison_free(c);
    c = compared((run_spec){.id = "b", .scale = 1.0}, (run_spec){.id = "c", .scale = 1.0, .direction = "higher"});
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_UNDETERMINED);
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "direction lower is better on the base");
    mcpp_comparison_free(c);
}

TEST(primary_must_name_the_same_metric_on_both_sides)
{
    mcpp_comparison *c = compared((run_spec){.id = "b", .scale = 1.0, .peak_rss = 100},
                                  (run_spec){.id = "c", .scale = 1.0, .primary = "peak_rss_mib", .peak_rss = 100});
    CHECK_INT_EQ(mcpp_comparison_gate(c), MCPP_GATE_UNDETERMINED);
    CHECK_CONTAINS(mcpp_comparison_gate_reason(c), "primary metric 'round_time_s' on the base, 'peak_rss_mib'");
    mcpp_comparison_free(c);
}

TEST(a_metric_named_by_the_gate_settings_is_compared_by_name)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_gate_settings g = *mcpp_policy_gate(p);
    g.metric = "peak_rss_mib";
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    mcpp_receipt *b = suite_run((run_spec){.id = "b", .scale = 1.0, .peak_rss = 100}), *c = suite_run((run_spec){.id = "c", .scale = 1.0, .peak_rss = 120});
    mcpp_comparison *cmp = NULL;
    CHECK_INT_EQ(mcpp_compare(&cmp, p, b, c), MCPP_OK);
    const mcpp_metric_result *m = mcpp_comparison_metric(cmp);
    CHECK(m && strcmp(m->metric, "peak_rss_mib") == 0 && strcmp(m->unit, "MiB") == 0 && !m->point_comparison);
    CHECK_INT_EQ(mcpp_comparison_gate(cmp), MCPP_GATE_FAILED); /* 20% more, against 3% run-to-run */
    mcpp_comparison_free(cmp);
    mcpp_noise_settings n = *mcpp_policy_noise(p);
    n.run_to_run = 0; /* nothing declared: one value a side is a point */
    CHECK_INT_EQ(mcpp_policy_set_noise(p, &n), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_suite_noise(p, "pytest-benchmark", 0, -1), MCPP_OK);
    CHECK_INT_EQ(mcpp_compare(&cmp, p, b, c), MCPP_OK);
    CHECK(mcpp_comparison_metric(cmp) && mcpp_comparison_metric(cmp)->point_comparison);
    CHECK_INT_EQ(mcpp_comparison_gate(cmp), MCPP_GATE_UNDETERMINED); /* a point: not allowed by default */
    mcpp_comparison_free(cmp);
    /* names and schema paths are accepted; typos of schema paths and non-numbers are not */
    g.metric = "metrics.tokens_per_s";
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    g.metric = "metrics.tokens_per_sec";
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "tokens_per_sec");
    g.metric = "lane.pattern";
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "not a number field");
    g.metric = "";
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_EINVALID);
    mcpp_receipt_free(b);
    mcpp_receipt_free(c);
    mcpp_policy_free(p);
}

static const char MULTI[] =
    "return { name = 'multi', noise = { run_to_run = 0 }, gate = { allow_point_comparisons = true, metrics = {\n"
    "  { name = 'round_time_s', max_regression = 0.02 },\n"
    "  { name = 'peak_rss_mib', max_regression = 0.05 },\n"
    "  { name = 'time_to_train_s', max_regression = 0.03 } } } }\n";

static mcpp_gate_report *gated(const mcpp_policy *p, run_spec b, run_spec c)
{
    mcpp_receipt *base = suite_run(b), *cand = suite_run(c);
    mcpp_gate_report *r = NULL;
    const mcpp_receipt *bs[1] = {base}, *cs[1] = {cand};
    if (mcpp_gate_run(&r, p, bs, 1, cs, 1) != MCPP_OK) abort();
    mcpp_receipt_free(base);
    mcpp_receipt_free(cand);
    return r;
}

TEST(a_multi_metric_gate_fails_on_any_breach_and_names_the_metric)
{
    mcpp_policy *p = policy_text(MULTI);
    CHECK_INT_EQ(mcpp_policy_gate_metric_count(p), 3);
    mcpp_gate_settings spec = MCPP_GATE_SETTINGS_INIT;
    CHECK_INT_EQ(mcpp_policy_gate_metric_at(&spec, p, 1), MCPP_OK);
    CHECK_STR_EQ(spec.metric, "peak_rss_mib");
    CHECK_INT_EQ(spec.higher_is_better, -1); /* the receipts' */
    CHECK(spec.max_regression == 0.05 && spec.confidence == 0.95);
    CHECK_STR_EQ(mcpp_policy_gate(p)->metric, "round_time_s"); /* the settings mirror the first */
    CHECK_INT_EQ(mcpp_policy_gate_metric_at(&spec, p, 3), MCPP_EARG);
    mcpp_gate_report *r = gated(p, (run_spec){.id = "b", .scale = 1.0, .peak_rss = 100}, (run_spec){.id = "c", .scale = 1.0, .peak_rss = 110});
    CHECK_INT_EQ(mcpp_gate_report_outcome(r), MCPP_GATE_FAILED);
    CHECK_INT_EQ(mcpp_gate_report_exit_code(r), 1);
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 0), "worse by 10.0% on peak_rss_mib (lower is better): beyond the 5.0% allowance");
    CHECK_INT_EQ(mcpp_gate_report_entry_metric_count(r, 0), 3);
    mcpp_gate_metric m = MCPP_GATE_METRIC_INIT;
    CHECK_INT_EQ(mcpp_gate_report_entry_metric_at(&m, r, 0, 0), MCPP_OK);
    CHECK_STR_EQ(m.name, "round_time_s");
    CHECK_INT_EQ(m.outcome, MCPP_GATE_PASSED);
    CHECK(m.result && m.result == mcpp_gate_report_entry_metric(r, 0)); /* the first is the compatible one */
    CHECK_INT_EQ(mcpp_gate_report_entry_metric_at(&m, r, 0, 1), MCPP_OK);
    CHECK_INT_EQ(m.outcome, MCPP_GATE_FAILED);
    CHECK_INT_EQ(mcpp_gate_report_entry_metric_at(&m, r, 0, 2), MCPP_OK);
    CHECK_INT_EQ(m.skipped, 1); /* absent on both sides */
    CHECK(m.result == NULL);
    CHECK_CONTAINS(m.reason, "time_to_train_s is absent on the candidate and on all 1 comparable baselines: skipped");
    CHECK_INT_EQ(mcpp_gate_report_entry_metric_at(&m, r, 0, 3), MCPP_EARG);
    m.version = 99;
    CHECK_INT_EQ(mcpp_gate_report_entry_metric_at(&m, r, 0, 0), MCPP_EARG);
    char *json = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render(&json, r, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_CONTAINS(json, "\"metrics\": [{\"name\": \"round_time_s\", \"outcome\": \"passed\"");
    CHECK_CONTAINS(json, "\"skipped\": true");
    mcpp_free(json);
    mcpp_gate_report_free(r);
    /* within every allowance: passed; a metric on one side only: undetermined */
    r = gated(p, (run_spec){.id = "b", .scale = 1.0, .peak_rss = 100}, (run_spec){.id = "c", .scale = 1.0, .peak_rss = 102});
    CHECK_INT_EQ(mcpp_gate_report_outcome(r), MCPP_GATE_PASSED);
    mcpp_gate_report_free(r);
    r = gated(p, (run_spec){.id = "b", .scale = 1.0, .peak_rss = 100}, (run_spec){.id = "c", .scale = 1.0});
    CHECK_INT_EQ(mcpp_gate_report_outcome(r), MCPP_GATE_UNDETERMINED);
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 0), "peak_rss_mib is absent on the candidate");
    mcpp_gate_report_free(r);
    mcpp_policy_free(p);
}

TEST(a_multi_metric_gate_checks_a_stated_direction_and_refuses_bad_lists)
{
    mcpp_policy *p = policy_text("return { gate = { metrics = { { name = 'round_time_s', direction = 'higher' } } } }");
    mcpp_gate_report *r = gated(p, (run_spec){.id = "b", .scale = 1.0}, (run_spec){.id = "c", .scale = 1.0});
    CHECK_INT_EQ(mcpp_gate_report_outcome(r), MCPP_GATE_UNDETERMINED);
    CHECK_CONTAINS(mcpp_gate_report_entry_reason(r, 0), "the policy says higher is better, the receipts say lower");
    mcpp_gate_report_free(r);
    mcpp_policy_free(p);
    static const char *const BAD[][2] = {
        {"return { gate = { metric = 'x', metrics = { { name = 'y' } } } }", "both metric and metrics"},
        {"return { gate = { metrics = { { name = 'y', direction = 'up' } } } }", "direction"},
        {"return { gate = { metrics = { { name = 'y', max_regression = -1 } } } }", "max_regression"},
        {"return { gate = { metrics = { { name = 'y' }, { name = 'y' } } } }", "listed twice"},
        {"return { gate = { metrics = { { nam = 'y' } } } }", "nam"},
        {"return { gate = { metrics = {} } }", "list of 1 to 64"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        mcpp_policy *bad = NULL;
        CHECK(mcpp_policy_load_lua_buffer(&bad, BAD[i][0], strlen(BAD[i][0]), "bad.lua", NULL) != MCPP_OK);
        CHECK_CONTAINS(mcpp_error_last()->message, BAD[i][1]);
        mcpp_policy_free(bad);
    }
}

TEST(a_lane_headline_carries_the_metric_name_unit_and_direction_through_summaries)
{
    mcpp_receipt *rs[3] = {suite_run((run_spec){.id = "r1", .scale = 1.0}), suite_run((run_spec){.id = "r2", .scale = 1.01}),
                           suite_run((run_spec){.id = "r3", .scale = 0.99})};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 1);
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    CHECK_INT_EQ(mcpp_frontier_lane_headline(&h, f, 0), MCPP_OK);
    CHECK_STR_EQ(h.metric, "round_time_s");
    CHECK_STR_EQ(h.unit, "s");
    CHECK_INT_EQ(h.higher_is_better, 0);
    CHECK_INT_EQ(h.version, MCPP_LANE_HEADLINE_VERSION);
    mcpp_frontier_free(f);
    mcpp_lane_summary *s = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_new(&s, NULL, NULL), MCPP_OK);
    for (int i = 0; i < 3; i++) CHECK_INT_EQ(mcpp_lane_summary_add(s, rs[i]), MCPP_OK);
    char *text = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_serialize(&text, s), MCPP_OK);
    CHECK_CONTAINS(text, "\"metric_name\": \"round_time_s\", \"unit\": \"s\", \"higher_is_better\": false");
    mcpp_lane_summary *back = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_deserialize(&back, NULL, text, strlen(text)), MCPP_OK);
    CHECK(mcpp_lane_summary_equal(s, back));
    CHECK_INT_EQ(mcpp_lane_summary_headline(&h, back), MCPP_OK);
    CHECK_STR_EQ(h.unit, "s");
    /* a text of the old format (no "format" key) is refused: rebuild it */
    char *old = strstr(text, "\"format\": 2, ");
    CHECK(old != NULL);
    if (old) memmove(old, old + 13, strlen(old + 13) + 1);
    mcpp_lane_summary *stale = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_deserialize(&stale, NULL, text, strlen(text)), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "rebuild");
    mcpp_free(text);
    mcpp_lane_summary_free(back);
    mcpp_lane_summary_free(s);
    for (int i = 0; i < 3; i++) mcpp_receipt_free(rs[i]);
}

TEST(runs_of_one_lane_in_different_units_have_no_headline)
{
    mcpp_receipt *rs[3] = {suite_run((run_spec){.id = "r1", .scale = 1.0}), suite_run((run_spec){.id = "r2", .scale = 1.0}),
                           suite_run((run_spec){.id = "r3", .scale = 1000.0, .unit = "ms"})};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 3), MCPP_OK);
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    CHECK_INT_EQ(mcpp_frontier_lane_headline(&h, f, 0), MCPP_ENOTFOUND);
    int found = 0;
    for (size_t i = 0; i < mcpp_frontier_lane_reason_count(f, 0); i++)
        found |= strstr(mcpp_frontier_lane_reason(f, 0, i), "round_time_s in different units: 's' and 'ms'") != NULL;
    CHECK(found);
    mcpp_frontier_free(f);
    for (int i = 0; i < 3; i++) mcpp_receipt_free(rs[i]);
}

TEST(a_claim_reads_a_named_metric_and_refuses_another_unit)
{
    mcpp_receipt *rs[3] = {suite_run((run_spec){.id = "r1", .scale = 1.0}), suite_run((run_spec){.id = "r2", .scale = 1.01}),
                           suite_run((run_spec){.id = "r3", .scale = 0.99})};
    mcpp_claim_result *c = NULL;
    CHECK_INT_EQ(mcpp_claim_check(&c, NULL, (const mcpp_receipt *const *)rs, 3, "benchmark.name=test_sorted",
                                  "round_time_s", 1.0),
                 MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_result_verdict(c), MCPP_CLAIM_SUPPORTED);
    CHECK_STR_EQ(mcpp_claim_result_unit(c), "s");
    CHECK_INT_EQ(mcpp_claim_result_check_unit(c, "s"), MCPP_OK);
    CHECK_INT_EQ(mcpp_claim_result_check_unit(c, "min"), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "the claim states round_time_s in 'min' but lane");
    mcpp_claim_result_free(c);
    for (int i = 0; i < 3; i++) mcpp_receipt_free(rs[i]);
}

static const char TEAM_POLICY[] =
    "return { include = {'default.lua'}, name = 'team',\n"
    "  dimensions = { define = { team = { 'extra.team' }, budget = { 'extra.budget' } }, qualify = { 'budget' } } }\n";

TEST(a_dimension_may_name_paths_inside_extra_compared_by_value)
{
    char name[512];
    snprintf(name, sizeof name, "%s/team.lua", MCPP_POLICY_DIR);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, TEAM_POLICY, strlen(TEAM_POLICY), name, NULL), MCPP_OK);
    if (!p) return;
    mcpp_receipt *a = suite_run((run_spec){.id = "a", .scale = 1.0, .extra = "{\"team\":\"infra\",\"budget\":{\"gpu_h\":3}}"});
    mcpp_receipt *b = suite_run((run_spec){.id = "b", .scale = 1.0, .extra = "{\"budget\":{\"gpu_h\":3},\"team\":\"infra\"}"});
    mcpp_receipt *c = suite_run((run_spec){.id = "c", .scale = 1.0, .extra = "{\"team\":\"ml\",\"budget\":{\"gpu_h\":4}}"});
    mcpp_receipt *none = suite_run((run_spec){.id = "n", .scale = 1.0});
    mcpp_verdict v;
    CHECK_INT_EQ(mcpp_compare_verdict(&v, p, a, b), MCPP_OK);
    CHECK(v == MCPP_VERDICT_COMPARABLE || v == MCPP_VERDICT_QUALIFIED);
    mcpp_comparison *cmp = NULL;
    CHECK_INT_EQ(mcpp_compare(&cmp, p, a, c), MCPP_OK);
    CHECK_INT_EQ(mcpp_comparison_verdict(cmp), MCPP_VERDICT_NOT_COMPARABLE);
    char *text = NULL;
    CHECK_INT_EQ(mcpp_comparison_render(&text, cmp, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_CONTAINS(text, "extra.team differs: infra vs ml");
    CHECK_CONTAINS(text, "extra.budget differs: {\\\"gpu_h\\\":3} vs {\\\"gpu_h\\\":4}");
    mcpp_free(text);
    mcpp_comparison_free(cmp);
    CHECK_INT_EQ(mcpp_compare_verdict(&v, p, a, none), MCPP_OK);
    CHECK_INT_EQ(v, MCPP_VERDICT_INSUFFICIENT); /* stated on one side only: missing is never a match */
    /* one lane per team: the lane key reads the free path too */
    const mcpp_receipt *all[3] = {a, b, c};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, all, 3), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 2);
    mcpp_frontier_free(f);
    /* a path in no free-form value (schema 2 has no labels section) is refused */
    static const char BAD[] = "return { dimensions = { define = { l = { 'labels.owner' } } } }";
    mcpp_policy *bad = NULL;
    CHECK(mcpp_policy_load_lua_buffer(&bad, BAD, strlen(BAD), "bad.lua", NULL) != MCPP_OK);
    CHECK_CONTAINS(mcpp_error_last()->message, "labels.owner");
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_receipt_free(c);
    mcpp_receipt_free(none);
    mcpp_policy_free(p);
}

int main(void)
{
    RUN(the_default_gate_compares_a_suite_result_on_its_primary_metric_with_its_unit_and_direction);
    RUN(a_suite_declared_by_the_policy_is_gated_against_its_own_run_to_run_noise);
    RUN(sides_that_state_another_unit_or_direction_are_refused_not_compared);
    RUN(primary_must_name_the_same_metric_on_both_sides);
    RUN(a_metric_named_by_the_gate_settings_is_compared_by_name);
    RUN(a_multi_metric_gate_fails_on_any_breach_and_names_the_metric);
    RUN(a_multi_metric_gate_checks_a_stated_direction_and_refuses_bad_lists);
    RUN(a_lane_headline_carries_the_metric_name_unit_and_direction_through_summaries);
    RUN(runs_of_one_lane_in_different_units_have_no_headline);
    RUN(a_claim_reads_a_named_metric_and_refuses_another_unit);
    RUN(a_dimension_may_name_paths_inside_extra_compared_by_value);
    TEST_MAIN_END();
}
