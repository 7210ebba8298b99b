/*
 * test_library_calls.c — the library calls behind the CLI's `show` and
 * `policy test` (mcpp_receipt_render, mcpp_policy_test_file), and the version
 * field of caller-allocated structs. Each case is its own ctest entry:
 *
 *   test_library_calls CASE EXAMPLES_DIR GOLDEN_DIR POLICY_DIR WORK_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcpp_receipts.h"
#include "test_util.h"

static const char *examples, *golden, *policies, *work;

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(receipt_render_text_is_the_show_golden_output)
{
    /* the golden files name the receipt as loaded from inside the examples directory */
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(examples) == 0);
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, "nam56r_jagged_graph_breaks.json", NULL), MCPP_OK);
    char *text = NULL;
    CHECK_INT_EQ(mcpp_receipt_render(&text, r, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK(chdir(cwd) == 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/show_nam56r_jagged_graph_breaks.txt", golden);
    char *want = read_file(path);
    CHECK(want != NULL);
    if (text && want)
        CHECK_STR_EQ(text, want);
    free(want);
    mcpp_free(text);
    mcpp_receipt_free(r);
}

TEST(receipt_render_json_is_the_canonical_writer_and_markdown_is_fenced)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nam52_dense.yaml", examples);
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, path, NULL), MCPP_OK);
    char *json = NULL, *written = NULL, *md = NULL, *text = NULL;
    CHECK_INT_EQ(mcpp_receipt_render(&json, r, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_write(&written, NULL, r, MCPP_FORMAT_JSON), MCPP_OK);
    if (json && written)
        CHECK_STR_EQ(json, written);
    CHECK_INT_EQ(mcpp_receipt_render(&md, r, MCPP_OUTPUT_MARKDOWN), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_render(&text, r, MCPP_OUTPUT_TEXT), MCPP_OK);
    if (md && text) {
        CHECK(strncmp(md, "```text\n", 8) == 0);
        CHECK(strstr(md, text) == md + 8);
    }
    mcpp_free(json);
    mcpp_free(written);
    mcpp_free(md);
    mcpp_free(text);
    mcpp_receipt_free(r);
}

TEST(receipt_render_refuses_null_and_an_unknown_format)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nam52_dense.json", examples);
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, path, NULL), MCPP_OK);
    char *text = (char *)"untouched";
    CHECK_INT_EQ(mcpp_receipt_render(&text, r, 7), MCPP_EARG);
    CHECK(text == NULL);
    CHECK_CONTAINS(mcpp_error_last()->message, "unknown output format 7");
    CHECK_INT_EQ(mcpp_receipt_render(&text, NULL, MCPP_OUTPUT_TEXT), MCPP_EARG);
    CHECK_INT_EQ(mcpp_receipt_render(NULL, r, MCPP_OUTPUT_TEXT), MCPP_EARG);
    mcpp_receipt_free(r);
}

TEST(policy_test_file_passes_the_shipped_default_cases_under_the_default_policy)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/default.cases.json", policies);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_policy_test_report *rep = NULL;
    CHECK_INT_EQ(mcpp_policy_test_file(&rep, p, path), MCPP_OK);
    CHECK(mcpp_policy_test_report_count(rep) >= 5);
    CHECK_INT_EQ(mcpp_policy_test_report_failed_count(rep), 0);
    for (size_t i = 0; i < mcpp_policy_test_report_count(rep); i++) {
        CHECK_INT_EQ(mcpp_policy_test_case_passed(rep, i), 1);
        CHECK(mcpp_policy_test_case_failures(rep, i) == NULL);
        CHECK(mcpp_policy_test_case_name(rep, i) != NULL);
    }
    CHECK_STR_EQ(mcpp_policy_test_case_verdict(rep, 0), "comparable");
    CHECK(mcpp_policy_test_case_passed(rep, 999) == -1);
    char *text = NULL, *json = NULL;
    CHECK_INT_EQ(mcpp_policy_test_report_render(&text, rep, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK(text && strncmp(text, "ok   1 run 2 of the padded lane", 31) == 0);
    CHECK_INT_EQ(mcpp_policy_test_report_render(&json, rep, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_CONTAINS(json, "\"schema\":\"mcpp.policy-test/1\"");
    CHECK_CONTAINS(json, "\"failed\":0,");
    mcpp_free(text);
    mcpp_free(json);
    mcpp_policy_test_report_free(rep);
    mcpp_policy_free(p);
}

TEST(policy_test_file_reports_a_wrong_expectation_as_a_failed_case_with_its_rows)
{
    char cases[4096], text_buf[8192];
    snprintf(cases, sizeof cases, "%s/wrong.cases.json", work);
    snprintf(text_buf, sizeof text_buf,
             "{\"cases\": [{\"name\": \"jagged is said to match\", \"base\": \"%s/nam56r_padded.json\","
             " \"cand\": \"%s/nam56r_jagged_graph_breaks.json\", \"expect\": \"comparable\","
             " \"rows\": {\"backend\": \"match\"}}]}",
             examples, examples);
    write_file(cases, text_buf);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_policy_test_report *rep = NULL;
    CHECK_INT_EQ(mcpp_policy_test_file(&rep, p, cases), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_test_report_count(rep), 1);
    CHECK_INT_EQ(mcpp_policy_test_report_failed_count(rep), 1);
    CHECK_INT_EQ(mcpp_policy_test_case_passed(rep, 0), 0);
    CHECK_STR_EQ(mcpp_policy_test_case_verdict(rep, 0), "not_comparable");
    CHECK_CONTAINS(mcpp_policy_test_case_failures(rep, 0), "expected comparable, got not_comparable");
    CHECK_CONTAINS(mcpp_policy_test_case_failures(rep, 0), "row backend expected match, got mismatch");
    char *text = NULL;
    CHECK_INT_EQ(mcpp_policy_test_report_render(&text, rep, MCPP_OUTPUT_TEXT), MCPP_OK);
    CHECK(text && strncmp(text, "FAIL 1 jagged is said to match; expected", 40) == 0);
    CHECK_CONTAINS(text, "\n       backend    mismatch ");
    mcpp_free(text);
    mcpp_policy_test_report_free(rep);
    mcpp_policy_free(p);
}

TEST(policy_test_file_refuses_a_typo_before_running_any_case)
{
    char cases[4096];
    snprintf(cases, sizeof cases, "%s/typo.cases.json", work);
    /* the first case would fail to load its receipts: the typo in the second is reported first */
    write_file(cases, "{\"cases\": [{\"base\": \"none.json\", \"cand\": \"none.json\", \"expect\": \"comparable\"},"
                      " {\"base\": \"a.json\", \"cand\": \"b.json\", \"expect\": \"comparble\"}]}");
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_policy_test_report *rep = (mcpp_policy_test_report *)p; /* must be reset to NULL */
    CHECK_INT_EQ(mcpp_policy_test_file(&rep, p, cases), MCPP_EINVALID);
    CHECK(rep == NULL);
    CHECK_CONTAINS(mcpp_error_last()->message, "case 2");
    CHECK_CONTAINS(mcpp_error_last()->message, "\"comparble\" is not a verdict");
    snprintf(cases, sizeof cases, "%s/no_such.cases.json", work);
    CHECK_INT_EQ(mcpp_policy_test_file(&rep, p, cases), MCPP_EIO);
    mcpp_policy_free(p);
}

TEST(init_initialisers_equal_the_defaults_and_outputs_carry_their_version)
{
    mcpp_limits a = MCPP_LIMITS_INIT, b;
    memset(&b, 0xAB, sizeof b);
    mcpp_limits_default(&b);
    CHECK(a.version == MCPP_LIMITS_VERSION && b.version == MCPP_LIMITS_VERSION);
    CHECK(a.max_input_bytes == b.max_input_bytes && a.max_depth == b.max_depth &&
          a.max_string_bytes == b.max_string_bytes && a.max_array_items == b.max_array_items);
    mcpp_lua_limits la = MCPP_LUA_LIMITS_INIT, lb;
    mcpp_lua_limits_default(&lb);
    CHECK(la.version == lb.version && la.max_instructions == lb.max_instructions &&
          la.max_memory_bytes == lb.max_memory_bytes);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    mcpp_noise_settings n = MCPP_NOISE_SETTINGS_INIT;
    mcpp_gate_settings g = MCPP_GATE_SETTINGS_INIT;
    const mcpp_noise_settings *pn = mcpp_policy_noise(p);
    const mcpp_gate_settings *pg = mcpp_policy_gate(p);
    CHECK(pn->version == n.version && pn->max_rel_spread == n.max_rel_spread &&
          pn->min_runs == n.min_runs && pn->noise_floor == n.noise_floor);
    CHECK(pg->version == g.version && strcmp(pg->metric, g.metric) == 0 &&
          pg->higher_is_better == g.higher_is_better && pg->max_regression == g.max_regression &&
          pg->confidence == g.confidence);
    mcpp_policy_free(p);

    /* output structs are written in the layout the caller declares (its _INIT):
     * an undeclared (0) version is refused, the _INIT gets the whole layout */
    char path[4096];
    snprintf(path, sizeof path, "%s/nam52_dense.json", examples);
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, path, NULL), MCPP_OK);
    mcpp_value v = MCPP_VALUE_INIT, absent = MCPP_VALUE_INIT;
    CHECK(absent.type == MCPP_TYPE_ABSENT && absent.enum_index == -1);
    v.version = 0;
    CHECK_INT_EQ(mcpp_receipt_get(r, "workload.seq_len", &v), MCPP_EARG);
    CHECK_INT_EQ(mcpp_receipt_get_field(r, mcpp_schema_field_id("lane.pattern"), &v), MCPP_EARG);
    CHECK(v.version == 0 && v.type == MCPP_TYPE_ABSENT);
    v.version = MCPP_VALUE_VERSION;
    CHECK_INT_EQ(mcpp_receipt_get(r, "workload.seq_len", &v), MCPP_OK);
    CHECK(v.version == MCPP_VALUE_VERSION && v.type == MCPP_TYPE_INT);
    CHECK_INT_EQ(mcpp_receipt_get_field(r, mcpp_schema_field_id("lane.pattern"), &v), MCPP_OK);
    CHECK(v.version == MCPP_VALUE_VERSION && v.type == MCPP_TYPE_STRING);
    const mcpp_receipt *one[1] = {r};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, one, 1), MCPP_OK);
    /* a headline is written in the layout the caller declares: an undeclared
     * (0) version is refused, MCPP_LANE_HEADLINE_INIT gets the whole layout */
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    h.version = 0;
    CHECK_INT_EQ(mcpp_frontier_lane_headline(&h, f, 0), MCPP_EARG);
    h.version = MCPP_LANE_HEADLINE_VERSION;
    CHECK_INT_EQ(mcpp_frontier_lane_headline(&h, f, 0), MCPP_OK);
    CHECK(h.version == MCPP_LANE_HEADLINE_VERSION && h.median > 0);
    mcpp_frontier_free(f);
    mcpp_receipt_free(r);
}

TEST(a_struct_of_an_unknown_version_is_a_clear_argument_error)
{
    mcpp_limits lim = MCPP_LIMITS_INIT;
    lim.version = 0; /* as a caller that zero-fills the struct by hand */
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, NULL, "{}", 2, MCPP_FORMAT_JSON, "x.json", &lim), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_limits has version 0");
    CHECK_CONTAINS(mcpp_error_last()->message, "MCPP_LIMITS_INIT");
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, "x.json", &lim), MCPP_EARG);
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_receipt_set_new(&set), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_set_add_path(set, examples, &lim), MCPP_EARG);
    CHECK_INT_EQ(mcpp_receipt_set_count(set), 0);
    mcpp_receipt_set_free(set);

    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_new(&p, "t"), MCPP_OK);
    mcpp_noise_settings n = MCPP_NOISE_SETTINGS_INIT;
    n.version = MCPP_NOISE_SETTINGS_VERSION + 1;
    CHECK_INT_EQ(mcpp_policy_set_noise(p, &n), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "MCPP_NOISE_SETTINGS_INIT");
    mcpp_gate_settings g = MCPP_GATE_SETTINGS_INIT;
    g.version = 2;
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_EARG);
    g.version = MCPP_GATE_SETTINGS_VERSION;
    g.max_regression = 0.07;
    CHECK_INT_EQ(mcpp_policy_set_gate(p, &g), MCPP_OK);
    CHECK(mcpp_policy_gate(p)->max_regression == 0.07);
    mcpp_policy_free(p);

    /* the history site's options; an empty store still gets its index, frontier and gate pages */
    char db[4096], site[4096];
    snprintf(db, sizeof db, "%s/site-options.db", work);
    snprintf(site, sizeof site, "%s/site-options", work);
    remove(db);
    mcpp_store *store = NULL;
    CHECK_INT_EQ(mcpp_store_open(&store, db, MCPP_STORE_CREATE), MCPP_OK);
    mcpp_site_options so = MCPP_SITE_OPTIONS_INIT;
    so.version = 0;
    CHECK_INT_EQ(mcpp_site_write(NULL, store, site, &so), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "MCPP_SITE_OPTIONS_INIT");
    CHECK_INT_EQ(mcpp_site_write(NULL, store, NULL, NULL), MCPP_EARG);
    mcpp_site_result res;
    CHECK_INT_EQ(mcpp_site_write(&res, store, site, NULL), MCPP_OK);
    CHECK(res.pages == 3 && res.written + res.unchanged == 3);
    mcpp_store_close(store);

#if defined(MCPP_HAVE_LUA)
    mcpp_lua_limits ll = MCPP_LUA_LIMITS_INIT;
    ll.version = 0;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, "return {}", 9, "p.lua", &ll), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "MCPP_LUA_LIMITS_INIT");
#else
    printf("# skip mcpp_lua_limits: this build has no Lua (MCPP_LUA=OFF)\n");
#endif
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s CASE EXAMPLES_DIR GOLDEN_DIR POLICY_DIR WORK_DIR\n", argv[0]);
        return 2;
    }
    const char *only = argv[1];
    examples = argv[2], golden = argv[3], policies = argv[4], work = argv[5];
    int ran = test_count;
#define RUN_IF(name)                                       \
    if (strcmp(only, "all") == 0 || strcmp(only, #name) == 0) \
    RUN(name)
    RUN_IF(receipt_render_text_is_the_show_golden_output);
    RUN_IF(receipt_render_json_is_the_canonical_writer_and_markdown_is_fenced);
    RUN_IF(receipt_render_refuses_null_and_an_unknown_format);
    RUN_IF(policy_test_file_passes_the_shipped_default_cases_under_the_default_policy);
    RUN_IF(policy_test_file_reports_a_wrong_expectation_as_a_failed_case_with_its_rows);
    RUN_IF(policy_test_file_refuses_a_typo_before_running_any_case);
    RUN_IF(init_initialisers_equal_the_defaults_and_outputs_carry_their_version);
    RUN_IF(a_struct_of_an_unknown_version_is_a_clear_argument_error);
    if (test_count == ran) {
        fprintf(stderr, "no test case named '%s'\n", only);
        return 2;
    }
    TEST_MAIN_END();
}
