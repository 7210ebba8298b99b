/*
 * test_public_calls.c — every public function the other suites do not reach
 * gets a caller here that checks what its header promises; and the text of a
 * double in a lane key is the text the receipt writer gives it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures.h"
#include "test_util.h"

/* The text after `marker` in `text` (spaces skipped), up to a char of `stop`. */
static void text_after(char *buf, size_t cap, const char *text, const char *marker, const char *stop)
{
    const char *at = strstr(text, marker);
    buf[0] = '\0';
    if (!at) return;
    at += strlen(marker);
    while (*at == ' ') at++;
    size_t n = strcspn(at, stop);
    if (n >= cap) n = cap - 1;
    memcpy(buf, at, n);
    buf[n] = '\0';
}

TEST(lane_key_text_of_a_double_is_the_writers_text)
{
    /* The writer marks a DOUBLE field with ".0" when its text would read as
     * an integer; apart from that mark both use the one canonical formatter. */
    static const struct {
        const char *json;   /* as it appears in the receipt */
        const char *expect; /* the canonical text */
    } table[] = {
        {"1.25", "1.25"},
        {"0.1", "0.1"},
        {"3", "3"},
        {"1e-7", "1e-07"},
        {"123456.789", "123456.789"},
        {"0.30000000000000004", "0.30000000000000004"},
        {"1e15", "1000000000000000"},
        {"9007199254740991", "9007199254740991"},
        {"2.5e20", "2.5e+20"},
    };
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_new(&p, "capacity"), MCPP_OK);
    const char *paths[] = {"routing.capacity_factor"};
    CHECK_INT_EQ(mcpp_policy_set_dimension(p, "cf", paths, 1, MCPP_ROLE_MUST_MATCH), MCPP_OK);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        char field[64];
        snprintf(field, sizeof field, "\"capacity_factor\":%s", table[i].json);
        mcpp_receipt *r = FIX("\"capacity_factor\":1.25", field);
        char *key = NULL, *written = NULL, segment[64], value[64];
        CHECK_INT_EQ(mcpp_lane_key(&key, p, r), MCPP_OK);
        CHECK_INT_EQ(mcpp_receipt_write(&written, NULL, r, MCPP_FORMAT_JSON), MCPP_OK);
        text_after(segment, sizeof segment, key ? key : "", "cf=", ";");
        text_after(value, sizeof value, written ? written : "", "\"capacity_factor\":", ",}\n ");
        size_t n = strlen(value);
        if (n > 2 && strcmp(value + n - 2, ".0") == 0 && !strpbrk(segment, ".eE")) value[n - 2] = '\0';
        CHECK_STR_EQ(segment, table[i].expect);
        CHECK_STR_EQ(value, segment);
        mcpp_free(key);
        mcpp_free(written);
        mcpp_receipt_free(r);
    }
    mcpp_policy_free(p);
}

TEST(error_kinds_have_stable_names_and_round_trip_through_the_last_error)
{
    CHECK_STR_EQ(mcpp_error_kind_name(MCPP_ERROR_KIND_SYNTAX), "syntax");
    CHECK_STR_EQ(mcpp_error_kind_name(MCPP_ERROR_KIND_UNKNOWN_FIELD), "unknown_field");
    CHECK_STR_EQ(mcpp_error_kind_name(MCPP_ERROR_KIND_NONE), "");
    CHECK_STR_EQ(mcpp_error_kind_name((mcpp_error_kind)999), "");
    CHECK_INT_EQ(mcpp_error_kind_of(NULL), MCPP_ERROR_KIND_NONE);
    mcpp_error_clear();
    CHECK_INT_EQ(mcpp_error_kind_of(mcpp_error_last()), MCPP_ERROR_KIND_NONE);

    mcpp_role role;
    CHECK_INT_EQ(mcpp_role_parse(&role, "no_such_role"), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_error_kind_of(mcpp_error_last()), MCPP_ERROR_KIND_ENUM);
    CHECK_STR_EQ(mcpp_error_last()->kind, mcpp_error_kind_name(MCPP_ERROR_KIND_ENUM));
    CHECK_INT_EQ(mcpp_lane_key(NULL, NULL, NULL), MCPP_EARG);
    CHECK_INT_EQ(mcpp_error_kind_of(mcpp_error_last()), MCPP_ERROR_KIND_ARGUMENT);
    CHECK_STR_EQ(mcpp_error_last()->kind, "argument");

    const char bad[] = "{\"schema\": ";
    mcpp_receipt *r = NULL;
    CHECK(mcpp_receipt_load_buffer(&r, NULL, bad, strlen(bad), MCPP_FORMAT_JSON, "bad.json", NULL) != MCPP_OK);
    CHECK_INT_EQ(mcpp_error_kind_of(mcpp_error_last()), MCPP_ERROR_KIND_SYNTAX);
}

TEST(status_names_are_the_short_names_common_h_promises)
{
    CHECK_STR_EQ(mcpp_status_name(MCPP_OK), "ok");
    CHECK_STR_EQ(mcpp_status_name(MCPP_EINVALID), "invalid");
    CHECK_STR_EQ(mcpp_status_name(MCPP_ENOMEM), "nomem");
    CHECK_STR_EQ(mcpp_status_name(MCPP_EARG), "arg");
    CHECK_STR_EQ(mcpp_status_name(MCPP_ENOTFOUND), "notfound");
    CHECK_STR_EQ(mcpp_status_name(-1000), "unknown");
    for (int code = MCPP_EINTERNAL; code <= MCPP_OK; code++) {
        const char *name = mcpp_status_name(code);
        CHECK(strcspn(name, " ") == strlen(name)); /* one word each */
    }
}

TEST(version_function_matches_the_header)
{
    CHECK_INT_EQ(mcpp_version_number(), MCPP_VERSION_NUMBER);
    CHECK_STR_EQ(mcpp_version_string(), MCPP_VERSION_STRING);
}

TEST(roles_and_default_dimensions_have_names)
{
    mcpp_role role = MCPP_ROLE_IGNORE;
    CHECK_INT_EQ(mcpp_role_parse(&role, "qualify"), MCPP_OK);
    CHECK_INT_EQ(role, MCPP_ROLE_QUALIFY);
    CHECK_STR_EQ(mcpp_role_name(MCPP_ROLE_MUST_MATCH), "must_match");
    /* each name parses back to its role (one table, util/enum_names.h); a value off the table is "unknown" */
    for (int r = MCPP_ROLE_MUST_MATCH; r <= MCPP_ROLE_IGNORE; r++) {
        CHECK_INT_EQ(mcpp_role_parse(&role, mcpp_role_name((mcpp_role)r)), MCPP_OK);
        CHECK_INT_EQ(role, r);
    }
    CHECK_STR_EQ(mcpp_role_name((mcpp_role)3), "unknown");
    CHECK_STR_EQ(mcpp_role_name((mcpp_role)-1), "unknown");
    CHECK_STR_EQ(mcpp_verdict_name(MCPP_VERDICT_NOT_COMPARABLE), "not_comparable");
    CHECK_STR_EQ(mcpp_verdict_name((mcpp_verdict)4), "unknown");
    CHECK_STR_EQ(mcpp_dim_status_name(MCPP_DIM_NOT_RECORDED), "not_recorded");
    CHECK_STR_EQ(mcpp_dim_status_name((mcpp_dim_status)5), "unknown");
    CHECK_STR_EQ(mcpp_gate_outcome_name(MCPP_GATE_INCONCLUSIVE), "inconclusive");
    CHECK_STR_EQ(mcpp_gate_outcome_name((mcpp_gate_outcome)5), "unknown");
    CHECK_STR_EQ(mcpp_lane_status_name((mcpp_lane_status)3), "unknown");
    CHECK_STR_EQ(mcpp_claim_verdict_name((mcpp_claim_verdict)4), "unknown");
    size_t n = mcpp_default_dimension_count();
    CHECK(n > 0);
    for (size_t i = 0; i < n; i++) CHECK(mcpp_default_dimension_name(i) && *mcpp_default_dimension_name(i));
    CHECK(mcpp_default_dimension_name(n) == NULL);
}

static int always_pass(void *userdata, const mcpp_receipt *base, const mcpp_receipt *cand,
                       mcpp_rule_outcome *outcome, char *reason, size_t reason_cap)
{
    (void)userdata, (void)base, (void)cand, (void)reason, (void)reason_cap;
    *outcome = MCPP_RULE_PASS;
    return MCPP_OK;
}

TEST(policy_name_and_rule_names_read_back)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_new(&p, "first"), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_set_name(p, "renamed", 7), MCPP_OK);
    CHECK_STR_EQ(mcpp_policy_name(p), "renamed");
    CHECK_INT_EQ(mcpp_policy_add_rule(p, "always_pass", always_pass, NULL, NULL), MCPP_OK);
    CHECK_STR_EQ(mcpp_policy_rule_name(p, mcpp_policy_rule_count(p) - 1), "always_pass");
    CHECK(mcpp_policy_rule_name(p, 99) == NULL);
    mcpp_policy_free(p);
}

TEST(comparison_rows_give_role_and_both_sides_values)
{
    mcpp_receipt *b = FIX("\"id\":\"base-1\"", "\"id\":\"b\"");
    mcpp_receipt *c = FIX("\"id\":\"base-1\"", "\"id\":\"c\"", "\"seq_len\":4096", "\"seq_len\":8192");
    mcpp_comparison *cmp = NULL;
    CHECK_INT_EQ(mcpp_compare(&cmp, NULL, b, c), MCPP_OK);
    CHECK_STR_EQ(mcpp_comparison_base_id(cmp), "b");
    int found = 0;
    for (size_t i = 0; i < mcpp_comparison_row_count(cmp); i++) {
        if (mcpp_comparison_row_status(cmp, i) != MCPP_DIM_MISMATCH) continue;
        found = 1;
        CHECK_INT_EQ(mcpp_comparison_row_role(cmp, i), MCPP_ROLE_MUST_MATCH);
        CHECK_CONTAINS(mcpp_comparison_row_base(cmp, i), "4096");
        CHECK_CONTAINS(mcpp_comparison_row_cand(cmp, i), "8192");
    }
    CHECK(found);
    CHECK(mcpp_comparison_row_base(cmp, 9999) == NULL);
    CHECK_STR_EQ(mcpp_gate_outcome_name(mcpp_comparison_gate(cmp)), "undetermined");
    mcpp_comparison_free(cmp);
    mcpp_receipt_free(b);
    mcpp_receipt_free(c);
}

TEST(gate_report_names_each_candidate)
{
    mcpp_receipt *b = FIX("\"id\":\"base-1\"", "\"id\":\"b\"");
    mcpp_receipt *c = FIX("\"id\":\"base-1\"", "\"id\":\"cand-7\"");
    mcpp_gate_report *g = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&g, NULL, (const mcpp_receipt *const[]){b}, 1, (const mcpp_receipt *const[]){c}, 1),
                 MCPP_OK);
    CHECK_STR_EQ(mcpp_gate_report_candidate_id(g, 0), "cand-7");
    CHECK(mcpp_gate_report_candidate_id(g, 1) == NULL);
    mcpp_gate_report_free(g);
    mcpp_receipt_free(b);
    mcpp_receipt_free(c);
}

/* What a harness holds is `mcpp_receipt *r[N]`: this file is built with
 * -Wall -Wextra -Werror, so the call below would fail to compile if it needed a cast. */
TEST(gate_run_receipts_takes_plain_receipt_arrays_and_equals_gate_run)
{
    mcpp_receipt *baselines[2] = {FIX("\"id\":\"base-1\"", "\"id\":\"b1\""),
                                  FIX("\"id\":\"base-1\"", "\"id\":\"b2\"")};
    mcpp_receipt *candidates[1] = {FIX("\"id\":\"base-1\"", "\"id\":\"cand-7\"")};
    mcpp_gate_report *plain = NULL, *constant = NULL;
    CHECK_INT_EQ(mcpp_gate_run_receipts(&plain, NULL, baselines, 2, candidates, 1), MCPP_OK);
    const mcpp_receipt *cb[2] = {baselines[0], baselines[1]}, *cc[1] = {candidates[0]};
    CHECK_INT_EQ(mcpp_gate_run(&constant, NULL, cb, 2, cc, 1), MCPP_OK);
    char *a = NULL, *b = NULL;
    CHECK_INT_EQ(mcpp_gate_report_render(&a, plain, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_report_render(&b, constant, MCPP_OUTPUT_JSON), MCPP_OK);
    CHECK(a && b && strcmp(a, b) == 0);
    CHECK_STR_EQ(mcpp_gate_report_candidate_id(plain, 0), "cand-7");
    CHECK_INT_EQ(mcpp_gate_report_entry_baseline_count(plain, 0), 2);
    mcpp_gate_report *none = NULL;
    CHECK_INT_EQ(mcpp_gate_run_receipts(&none, NULL, NULL, 1, candidates, 1), MCPP_EARG);
    CHECK(none == NULL);
    mcpp_free(a);
    mcpp_free(b);
    mcpp_gate_report_free(plain);
    mcpp_gate_report_free(constant);
    for (int i = 0; i < 2; i++) mcpp_receipt_free(baselines[i]);
    mcpp_receipt_free(candidates[0]);
}

/* The outline with its empty array ("lanes": [] or "candidates": []) holding
 * the parts after "\n  ", separated by ","; NULL when the array is not there. */
static char *spliced(const char *outline, const char *array, char **parts, size_t n)
{
    const char *at = strstr(outline, array);
    if (!at)
        return NULL;
    size_t head = (size_t)(at - outline) + strlen(array) - 1, total = strlen(outline) + 1;
    for (size_t i = 0; i < n; i++)
        total += strlen(parts[i]) + 4;
    char *text = malloc(total), *end = text;
    if (!text)
        return NULL;
    memcpy(end, outline, head);
    end += head;
    for (size_t i = 0; i < n; i++)
        end += sprintf(end, "%s\n  %s", i ? "," : "", parts[i]);
    strcpy(end, outline + head);
    return text;
}

TEST(frontier_and_gate_json_in_parts_splice_into_the_whole_document)
{
    mcpp_receipt *a = FIX("\"id\":\"base-1\"", "\"id\":\"a\"");
    mcpp_receipt *u = FIX("\"id\":\"base-1\"", "\"id\":\"u\"", "\"seq_len\":4096", "\"seq_len\":2048");
    mcpp_receipt *c = FIX("\"id\":\"base-1\"", "\"id\":\"c\"");
    const mcpp_receipt *rs[] = {a, u}, *cands[] = {c, u};
    for (size_t n = 0; n <= 2; n += 2) { /* none, then two lanes and two candidates */
        mcpp_frontier *f = NULL;
        mcpp_gate_report *g = NULL;
        CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, rs, n), MCPP_OK);
        CHECK_INT_EQ(mcpp_gate_run(&g, NULL, rs, 2, cands, n), MCPP_OK);
        CHECK_INT_EQ(mcpp_frontier_lane_count(f), n);
        CHECK_INT_EQ(mcpp_gate_report_count(g), n);
        char *whole[2] = {NULL, NULL}, *outline[2] = {NULL, NULL}, *parts[2][2] = {{NULL, NULL}, {NULL, NULL}};
        CHECK_INT_EQ(mcpp_frontier_render(&whole[0], f, MCPP_OUTPUT_JSON), MCPP_OK);
        CHECK_INT_EQ(mcpp_gate_report_render(&whole[1], g, MCPP_OUTPUT_JSON), MCPP_OK);
        CHECK_INT_EQ(mcpp_frontier_render_json_outline(&outline[0], f), MCPP_OK);
        CHECK_INT_EQ(mcpp_gate_report_render_json_outline(&outline[1], g), MCPP_OK);
        for (size_t i = 0; i < n; i++) {
            CHECK_INT_EQ(mcpp_frontier_render_lane_json(&parts[0][i], f, i), MCPP_OK);
            CHECK_INT_EQ(mcpp_gate_report_render_candidate_json(&parts[1][i], g, i), MCPP_OK);
        }
        char *lanes = spliced(outline[0], "\"lanes\": []", parts[0], n);
        char *candidates = spliced(outline[1], "\"candidates\": []", parts[1], n);
        CHECK(lanes && whole[0] && strcmp(lanes, whole[0]) == 0);
        CHECK(candidates && whole[1] && strcmp(candidates, whole[1]) == 0);
        char *beyond = (char *)"untouched";
        CHECK_INT_EQ(mcpp_frontier_render_lane_json(&beyond, f, n), MCPP_EARG);
        CHECK(beyond == NULL);
        beyond = (char *)"untouched";
        CHECK_INT_EQ(mcpp_gate_report_render_candidate_json(&beyond, g, n), MCPP_EARG);
        CHECK(beyond == NULL);
        free(lanes);
        free(candidates);
        for (size_t k = 0; k < 2; k++) {
            mcpp_free(whole[k]);
            mcpp_free(outline[k]);
            mcpp_free(parts[k][0]);
            mcpp_free(parts[k][1]);
        }
        mcpp_frontier_free(f);
        mcpp_gate_report_free(g);
    }
    mcpp_receipt_free(a);
    mcpp_receipt_free(u);
    mcpp_receipt_free(c);
}

/* A growing copy of what a streaming render hands over; refuses past `limit` (0: never). */
typedef struct collected {
    char *text;
    size_t len, pieces, limit;
} collected;

static int collect(void *ctx, const char *data, size_t len)
{
    collected *c = ctx;
    if (c->limit && c->len + len > c->limit)
        return 1;
    char *grown = realloc(c->text, c->len + len + 1);
    if (!grown)
        return 1;
    memcpy(grown + c->len, data, len);
    c->text = grown;
    c->len += len;
    c->text[c->len] = '\0';
    c->pieces++;
    return 0;
}

/* The streamed reports are the rendered ones byte for byte, in every format,
 * for a frontier and a gate of 400 lanes (~1 MB of JSON: many 64 KiB pieces,
 * so the text crosses piece boundaries anywhere); a writer that refuses
 * stops the render with MCPP_EIO. */
TEST(frontier_and_gate_reports_stream_as_they_render)
{
    enum { N = 400 };
    mcpp_receipt *rs[N];
    fixture_seq_sweep(rs, N, "s-");
    mcpp_frontier *f = NULL;
    mcpp_gate_report *g = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, N), MCPP_OK);
    CHECK_INT_EQ(mcpp_gate_run(&g, NULL, (const mcpp_receipt *const *)rs, N, (const mcpp_receipt *const *)rs, N),
                 MCPP_OK);
    for (int format = MCPP_OUTPUT_TEXT; format <= MCPP_OUTPUT_MARKDOWN; format++) {
        char *whole[2] = {NULL, NULL};
        collected streamed[2] = {{NULL, 0, 0, 0}, {NULL, 0, 0, 0}};
        CHECK_INT_EQ(mcpp_frontier_render(&whole[0], f, (mcpp_output_format)format), MCPP_OK);
        CHECK_INT_EQ(mcpp_gate_report_render(&whole[1], g, (mcpp_output_format)format), MCPP_OK);
        CHECK_INT_EQ(mcpp_frontier_render_stream(f, (mcpp_output_format)format, collect, &streamed[0]), MCPP_OK);
        CHECK_INT_EQ(mcpp_gate_report_render_stream(g, (mcpp_output_format)format, collect, &streamed[1]), MCPP_OK);
        for (int k = 0; k < 2; k++) {
            CHECK(streamed[k].text && whole[k] && strcmp(streamed[k].text, whole[k]) == 0);
            if (format == MCPP_OUTPUT_JSON)
                CHECK(streamed[k].len > 300 * 1024 && streamed[k].pieces >= 5);
            free(streamed[k].text);
            mcpp_free(whole[k]);
        }
    }
    collected refusing = {NULL, 0, 0, 100 * 1024};
    CHECK_INT_EQ(mcpp_frontier_render_stream(f, MCPP_OUTPUT_JSON, collect, &refusing), MCPP_EIO);
    CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_frontier_render_stream: the writer refused");
    CHECK(refusing.len <= 100 * 1024);
    free(refusing.text);
    CHECK_INT_EQ(mcpp_frontier_render_stream(NULL, MCPP_OUTPUT_JSON, collect, NULL), MCPP_EARG);
    CHECK_INT_EQ(mcpp_gate_report_render_stream(g, MCPP_OUTPUT_JSON, NULL, NULL), MCPP_EARG);
    mcpp_frontier_free(f);
    mcpp_gate_report_free(g);
    for (int i = 0; i < N; i++)
        mcpp_receipt_free(rs[i]);
}

TEST(frontier_lanes_have_keys_labels_and_are_found_by_short_key)
{
    mcpp_receipt *a = FIX("\"id\":\"base-1\"", "\"id\":\"a\"");
    mcpp_receipt *u = FIX("\"id\":\"base-1\"", "\"id\":\"u\"", "\"seq_len\":4096", "\"seq_len\":2048",
                          "\"stability\":\"stable\"", "\"stability\":\"unstable\",\"blocker\":\"nan loss\"");
    const mcpp_receipt *rs[] = {a, u};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, rs, 2), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_lane_count(f), 2);
    for (size_t l = 0; l < mcpp_frontier_lane_count(f); l++) {
        const char *short_key = mcpp_frontier_lane_short_key(f, l);
        CHECK(strncmp(short_key, "lane-", 5) == 0);
        CHECK(mcpp_frontier_lane_label(f, l) && *mcpp_frontier_lane_label(f, l));
        size_t found = 99;
        CHECK_INT_EQ(mcpp_frontier_find_lane(&found, f, short_key), MCPP_OK);
        CHECK_INT_EQ(found, l);
        CHECK(strcmp(mcpp_lane_status_name((mcpp_lane_status)mcpp_frontier_lane_status(f, l)), "unknown") != 0);
    }
    size_t none;
    CHECK_INT_EQ(mcpp_frontier_find_lane(&none, f, "lane-000000000000"), MCPP_ENOTFOUND);
    mcpp_frontier_free(f);
    mcpp_receipt_free(a);
    mcpp_receipt_free(u);
}

TEST(lane_summary_reports_key_reasons_and_headline)
{
    mcpp_receipt *u = FIX("\"stability\":\"stable\"", "\"stability\":\"unstable\",\"blocker\":\"nan loss\"");
    mcpp_lane_summary *s = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_new(&s, NULL, NULL), MCPP_OK);
    CHECK_STR_EQ(mcpp_lane_summary_key(s), "");
    CHECK_INT_EQ(mcpp_lane_summary_add(s, u), MCPP_OK);
    char *key = NULL;
    CHECK_INT_EQ(mcpp_lane_key(&key, NULL, u), MCPP_OK);
    CHECK_STR_EQ(mcpp_lane_summary_key(s), key);
    mcpp_free(key);
    CHECK_INT_EQ(mcpp_lane_summary_status(s), MCPP_LANE_UNSTABLE);
    CHECK(mcpp_lane_summary_reason_count(s) >= 1);
    CHECK(mcpp_lane_summary_reason(s, 0) && *mcpp_lane_summary_reason(s, 0));
    CHECK(mcpp_lane_summary_reason(s, mcpp_lane_summary_reason_count(s)) == NULL);
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    CHECK_INT_EQ(mcpp_lane_summary_headline(&h, s), MCPP_OK);
    CHECK(h.n >= 1 && isfinite(h.median) && h.interval_low <= h.median && h.median <= h.interval_high);
    mcpp_lane_summary_free(s);
    mcpp_receipt_free(u);
}

/* mcpp_lane_headline as a harness compiled against version 1 declared it
 * (before `unit`), followed by bytes the library must not touch. */
typedef struct headline_v1 {
    unsigned int version;
    const char *metric;
    int higher_is_better;
    double median, interval_low, interval_high, confidence;
    size_t n, n_runs;
    double rel_spread;
    int from_steps;
} headline_v1;

TEST(lane_headline_is_written_in_the_callers_version_and_unknown_versions_are_refused)
{
    mcpp_receipt *r = FIX("\"stability\":\"stable\"", "\"stability\":\"stable\"");
    const mcpp_receipt *rs[] = {r};
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, rs, 1), MCPP_OK);
    mcpp_lane_summary *s = NULL;
    CHECK_INT_EQ(mcpp_lane_summary_new(&s, NULL, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_lane_summary_add(s, r), MCPP_OK);
    mcpp_lane_headline now = MCPP_LANE_HEADLINE_INIT;
    CHECK_INT_EQ(mcpp_frontier_lane_headline(&now, f, 0), MCPP_OK);
    CHECK_INT_EQ((int)now.version, (int)MCPP_LANE_HEADLINE_VERSION);
    for (int which = 0; which < 2; which++) { /* the frontier's lane, then the summary */
        struct {
            headline_v1 h;
            unsigned char guard[32];
        } old;
        memset(&old, 0xAB, sizeof old);
        old.h.version = 1;
        mcpp_lane_headline *out = (mcpp_lane_headline *)(void *)&old.h;
        CHECK_INT_EQ(which ? mcpp_lane_summary_headline(out, s) : mcpp_frontier_lane_headline(out, f, 0), MCPP_OK);
        CHECK_INT_EQ((int)old.h.version, 1);
        CHECK(old.h.median == now.median && old.h.n == now.n && old.h.from_steps == now.from_steps);
        CHECK_STR_EQ(old.h.metric, now.metric);
        int intact = 1;
        for (size_t i = sizeof old.h; i < sizeof old; i++)
            intact &= ((unsigned char *)&old)[i] == 0xAB;
        CHECK(intact); /* nothing written past a version 1 struct */
        for (unsigned int v = 0; v < 3; v++) {
            unsigned int bad = v == 0 ? 0u : v == 1 ? MCPP_LANE_HEADLINE_VERSION + 1 : 99u;
            mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
            h.version = bad;
            h.median = -1.0;
            CHECK_INT_EQ(which ? mcpp_lane_summary_headline(&h, s) : mcpp_frontier_lane_headline(&h, f, 0), MCPP_EARG);
            CHECK(h.median == -1.0 && h.version == bad);
            CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_lane_headline has version");
            CHECK_CONTAINS(mcpp_error_last()->message, "MCPP_LANE_HEADLINE_INIT");
            CHECK(strstr(mcpp_error_last()->message, "_default") == NULL); /* it has no _default function */
        }
    }
    mcpp_lane_summary_free(s);
    mcpp_frontier_free(f);
    mcpp_receipt_free(r);
}

/* Every struct the library fills for a caller (issue 29, item 12): it is
 * given `size` bytes (the caller's layout for `version`), followed by guard
 * bytes; `fill` must succeed and leave the guard alone, and every version the
 * library does not know must be refused with the struct untouched. */
typedef int (*fill_fn)(void *out, const void *ctx);

static int guarded_fill(fill_fn fill, const void *ctx, size_t size, unsigned int version, unsigned char *copy)
{
    unsigned char buf[512];
    memset(buf, 0xAB, sizeof buf);
    memcpy(buf, &version, sizeof version);
    int rc = fill(buf, ctx);
    int intact = 1;
    for (size_t i = size; i < sizeof buf; i++) intact &= buf[i] == 0xAB;
    unsigned int back;
    memcpy(&back, buf, sizeof back);
    if (copy) memcpy(copy, buf, size);
    return rc != MCPP_OK ? rc : !intact ? -1000 : back != version ? -1001 : MCPP_OK;
}

static void check_out_struct(const char *type, const char *init, fill_fn fill, const void *ctx, size_t size,
                             unsigned int newest)
{
    for (unsigned int v = 1; v <= newest; v++) CHECK_INT_EQ(guarded_fill(fill, ctx, size, v, NULL), MCPP_OK);
    const unsigned int bad[] = {0, newest + 1, 99};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        unsigned char before[512], after[512];
        memset(before, 0xAB, sizeof before);
        memcpy(before, &bad[k], sizeof bad[k]);
        CHECK_INT_EQ(guarded_fill(fill, ctx, size, bad[k], after), MCPP_EARG);
        CHECK(memcmp(before, after, size) == 0); /* a refused struct is not written at all */
        char want[64];
        snprintf(want, sizeof want, "%s has version %u", type, bad[k]);
        CHECK_CONTAINS(mcpp_error_last()->message, want);
        CHECK_CONTAINS(mcpp_error_last()->message, init);
    }
}

static int fill_value_by_path(void *out, const void *r) { return mcpp_receipt_get(r, "workload.seq_len", out); }
static int fill_value_by_id(void *out, const void *r)
{
    return mcpp_receipt_get_field(r, mcpp_schema_field_id("metrics.step_time_s.samples"), out);
}
static int fill_value_free_path(void *out, const void *r) { return mcpp_receipt_get(r, "extra.nothing.here", out); }
static int fill_gate_metric(void *out, const void *report) { return mcpp_gate_report_entry_metric_at(out, report, 0, 0); }
static int fill_gate_settings(void *out, const void *policy) { return mcpp_policy_gate_metric_at(out, policy, 0); }

TEST(every_struct_the_library_fills_is_written_in_the_callers_version_only)
{
    mcpp_receipt *base = FIX("\"id\":\"base-1\"", "\"id\":\"guard-base\"");
    mcpp_receipt *cand = FIX("\"id\":\"base-1\"", "\"id\":\"guard-cand\"");
    /* mcpp_value, by path, by id and into a free-form value */
    check_out_struct("mcpp_value", "MCPP_VALUE_INIT", fill_value_by_path, base, sizeof(mcpp_value), MCPP_VALUE_VERSION);
    check_out_struct("mcpp_value", "MCPP_VALUE_INIT", fill_value_by_id, base, sizeof(mcpp_value), MCPP_VALUE_VERSION);
    check_out_struct("mcpp_value", "MCPP_VALUE_INIT", fill_value_free_path, base, sizeof(mcpp_value), MCPP_VALUE_VERSION);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(base, "workload.seq_len", &v), MCPP_OK);
    CHECK(v.type == MCPP_TYPE_INT && v.integer == 4096 && v.version == MCPP_VALUE_VERSION);
    v.version = 99; /* refused before the path is looked at */
    CHECK_INT_EQ(mcpp_receipt_get(base, "workload.seq_len", &v), MCPP_EARG);
    CHECK(v.integer == 4096 && v.version == 99);
    /* mcpp_gate_metric of a gate report */
    mcpp_gate_report *report = NULL;
    const mcpp_receipt *bs[] = {base}, *cs[] = {cand};
    CHECK_INT_EQ(mcpp_gate_run(&report, NULL, bs, 1, cs, 1), MCPP_OK);
    CHECK(mcpp_gate_report_entry_metric_count(report, 0) >= 1);
    check_out_struct("mcpp_gate_metric", "MCPP_GATE_METRIC_INIT", fill_gate_metric, report, sizeof(mcpp_gate_metric),
                     MCPP_GATE_METRIC_VERSION);
    /* mcpp_gate_settings as mcpp_policy_gate_metric_at fills it */
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    check_out_struct("mcpp_gate_settings", "MCPP_GATE_SETTINGS_INIT", fill_gate_settings, p,
                     sizeof(mcpp_gate_settings), MCPP_GATE_SETTINGS_VERSION);
    mcpp_policy_free(p);
    mcpp_gate_report_free(report);
    mcpp_receipt_free(base);
    mcpp_receipt_free(cand);
}

TEST(claim_result_names_matched_and_source_lanes)
{
    mcpp_receipt *u = FIX("\"stability\":\"stable\"", "\"stability\":\"unstable\",\"blocker\":\"nan loss\"");
    const mcpp_receipt *rs[] = {u};
    mcpp_claim_result *r = NULL;
    CHECK_INT_EQ(mcpp_claim_check(&r, NULL, rs, 1, "family=NAM56R", "metrics.tokens_per_s", 262144), MCPP_OK);
    CHECK_STR_EQ(mcpp_claim_verdict_name(mcpp_claim_result_verdict(r)), "unsupported");
    CHECK_INT_EQ(mcpp_claim_result_matched_count(r), 1);
    CHECK(mcpp_claim_result_matched_key(r, 0) && *mcpp_claim_result_matched_key(r, 0));
    CHECK_INT_EQ(mcpp_claim_result_matched_status(r, 0), MCPP_LANE_UNSTABLE);
    CHECK_INT_EQ(mcpp_claim_result_source_count(r), 1);
    CHECK(mcpp_claim_result_source_reason(r, 0) && *mcpp_claim_result_source_reason(r, 0));
    CHECK(mcpp_claim_result_matched_key(r, 5) == NULL);
    mcpp_claim_result_free(r);
    mcpp_receipt_free(u);
}

TEST(receipt_set_takes_added_receipts_and_lists_them)
{
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_receipt_set_new(&set), MCPP_OK);
    CHECK(mcpp_receipt_set_items(set) == NULL);
    mcpp_receipt *r = FIX("\"id\":\"base-1\"", "\"id\":\"owned\"");
    CHECK_INT_EQ(mcpp_receipt_set_add(set, r), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_set_count(set), 1);
    CHECK_STR_EQ(mcpp_receipt_id(mcpp_receipt_set_items(set)[0]), "owned");
    CHECK_INT_EQ(mcpp_receipt_set_add_path(set, "/nonexistent/for/sure.json", NULL), MCPP_EIO);

    char dir[] = "/tmp/mcpp_set_XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/bad.json", dir);
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (fp) {
        fputs("{\"schema\": ", fp);
        fclose(fp);
    }
    CHECK_INT_EQ(mcpp_receipt_set_add_path(set, dir, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_set_failure_count(set), 1);
    CHECK_CONTAINS(mcpp_receipt_set_failure_message(set, 0), "bad.json");
    CHECK(mcpp_receipt_set_failure_message(set, 99) == NULL);
    remove(path);
    remove(dir);
    mcpp_receipt_set_free(set);
}

/* The walk a set reads a directory by, for tools that report on each file:
 * receipt files in byte order of names, hidden entries and other files
 * skipped, a tree too deep named and walked past, a non-zero return from
 * the callback the walk's result. */
typedef struct walked {
    char text[4096];
    int stop_at; /* the file at which the callback returns 7; 0: never */
    int files;
} walked;

static int note_file(void *ctx, const char *path, int code, const char *message)
{
    walked *w = ctx;
    const char *name = strstr(path, "/walk/") ? strstr(path, "/walk/") + 6 : path;
    size_t n = strlen(w->text);
    if (code)
        snprintf(w->text + n, sizeof w->text - n, "%s: %d %s\n", strlen(name) > 40 ? "deep/d/..." : name, code,
                 message);
    else
        snprintf(w->text + n, sizeof w->text - n, "%s\n", name);
    return code == 0 && ++w->files == w->stop_at ? 7 : 0;
}

static void touch(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    if (fp)
        fclose(fp);
}

TEST(the_receipt_files_of_a_tree_are_walked_in_name_order)
{
    char root[] = "/tmp/mcpp_walk_XXXXXX", dir[64], deep[512];
    CHECK(mkdtemp(root) != NULL);
    snprintf(dir, sizeof dir, "%s/walk", root);
    CHECK_INT_EQ(mkdir(dir, 0700), 0);
    touch(dir, "b.json");
    touch(dir, "a.yaml");
    touch(dir, "notes.txt");
    touch(dir, ".hidden.json");
    snprintf(deep, sizeof deep, "%s/sub", dir);
    CHECK_INT_EQ(mkdir(deep, 0700), 0);
    touch(deep, "z.yml");
    snprintf(deep, sizeof deep, "%s/deep", dir);
    CHECK_INT_EQ(mkdir(deep, 0700), 0);
    for (int k = 0; k < 32; k++) { /* deep is 1 below the walk's root, its 32nd d 33 */
        strcat(deep, "/d");
        CHECK_INT_EQ(mkdir(deep, 0700), 0);
    }
    touch(deep, "never.json");
    walked w = {"", 0, 0};
    CHECK_INT_EQ(mcpp_receipt_files_walk(dir, note_file, &w), MCPP_OK);
    char want[512];
    snprintf(want, sizeof want, "a.yaml\nb.json\ndeep/d/...: %d directories nested deeper than 32\nsub/z.yml\n",
             MCPP_ELIMIT);
    CHECK_STR_EQ(w.text, want);
    walked stop = {"", 2, 0};
    CHECK_INT_EQ(mcpp_receipt_files_walk(dir, note_file, &stop), 7);
    CHECK_STR_EQ(stop.text, "a.yaml\nb.json\n");
    snprintf(deep, sizeof deep, "%s/a.yaml", dir);
    CHECK_INT_EQ(mcpp_receipt_files_walk(deep, note_file, &w), MCPP_EIO);
    CHECK_CONTAINS(mcpp_error_last()->message, "not a directory");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT_EQ(system(cmd), 0);
}

/* The receipts a set loads from files share what repeats between them (one
 * pool for the set); each reads as the file loaded alone does, content and
 * source name, and outlives the set. */
TEST(receipts_a_set_loads_from_files_read_as_each_file_alone)
{
    char dir[] = "/tmp/mcpp_share_XXXXXX", path[3][64];
    CHECK(mkdtemp(dir) != NULL);
    mcpp_receipt_set *set = NULL;
    CHECK_INT_EQ(mcpp_receipt_set_new(&set), MCPP_OK);
    for (int i = 0; i < 3; i++) {
        char id[32], seq[32];
        snprintf(id, sizeof id, "\"id\":\"shared-%d\"", i);
        snprintf(seq, sizeof seq, "\"seq_len\":%d", 1024 * (i + 1));
        mcpp_receipt *r = FIX("\"id\":\"base-1\"", id, "\"seq_len\":4096", seq);
        snprintf(path[i], sizeof path[i], "%s/r%d.json", dir, i);
        CHECK_INT_EQ(mcpp_receipt_write_file(r, path[i], MCPP_FORMAT_JSON), MCPP_OK);
        mcpp_receipt_free(r);
    }
    CHECK_INT_EQ(mcpp_receipt_set_add_path(set, dir, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_set_count(set), 3);
    mcpp_receipt *kept[3];
    for (int i = 0; i < 3; i++)
        CHECK_INT_EQ(mcpp_receipt_clone(&kept[i], mcpp_receipt_set_at(set, (size_t)i)), MCPP_OK);
    mcpp_receipt_set_free(set); /* its pool stays with the receipts that point into it */
    for (int i = 0; i < 3; i++) {
        mcpp_receipt *alone = NULL;
        char *a = NULL, *b = NULL;
        CHECK_INT_EQ(mcpp_receipt_load_file(&alone, NULL, path[i], NULL), MCPP_OK);
        CHECK_INT_EQ(mcpp_receipt_write(&a, NULL, kept[i], MCPP_FORMAT_JSON), MCPP_OK);
        CHECK_INT_EQ(mcpp_receipt_write(&b, NULL, alone, MCPP_FORMAT_JSON), MCPP_OK);
        CHECK(a && b && strcmp(a, b) == 0);
        CHECK_STR_EQ(mcpp_receipt_source_name(kept[i]), path[i]);
        mcpp_free(a);
        mcpp_free(b);
        mcpp_receipt_free(alone);
        mcpp_receipt_free(kept[i]);
        remove(path[i]);
    }
    remove(dir);
}

/* The kernels and the step runner report failures this way (kernels/common). */
TEST(error_report_sets_the_last_error_as_the_library_does)
{
    CHECK_INT_EQ(mcpp_error_report(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, "data.tok", "tokens", 3, 0, "too big"),
                 MCPP_EINVALID);
    const mcpp_error *e = mcpp_error_last();
    CHECK_INT_EQ(e->code, MCPP_EINVALID);
    CHECK_STR_EQ(e->message, "data.tok:3: tokens: too big");
    CHECK_STR_EQ(e->kind, "range");
    CHECK_INT_EQ(mcpp_error_kind_of(e), MCPP_ERROR_KIND_RANGE);
    CHECK_INT_EQ(mcpp_error_report(MCPP_OK, MCPP_ERROR_KIND_RANGE, NULL, NULL, 0, 0, "x"), MCPP_EARG);
    CHECK_INT_EQ(mcpp_error_report(MCPP_EIO, MCPP_ERROR_KIND_COUNT, NULL, NULL, 0, 0, "x"), MCPP_EARG);
    CHECK_INT_EQ(mcpp_error_last()->code, MCPP_EARG);
}

/* The quantile a receipt's p10 / median / p90 are stated with (type 7). */
TEST(quantile_is_type_7_and_leaves_the_values_alone)
{
    double values[4] = {4.0, 1.0, 3.0, 2.0}, q = 0.0;
    CHECK_INT_EQ(mcpp_quantile(&q, values, 4, 0.5), MCPP_OK);
    CHECK(q == 2.5);
    CHECK_INT_EQ(mcpp_quantile(&q, values, 4, 0.1), MCPP_OK);
    CHECK(fabs(q - 1.3) < 1e-12);
    CHECK_INT_EQ(mcpp_quantile(&q, values, 4, 1.0), MCPP_OK);
    CHECK(q == 4.0);
    CHECK(values[0] == 4.0 && values[1] == 1.0); /* not sorted in place */
    CHECK_INT_EQ(mcpp_quantile(&q, values, 0, 0.5), MCPP_EARG);
    CHECK_INT_EQ(mcpp_quantile(&q, values, 4, 1.5), MCPP_EARG);
}

TEST(fnv1a64_is_the_published_fnv_1a)
{
    /* the FNV-1a test vectors: the offset basis for no bytes, and "a" */
    CHECK(mcpp_fnv1a64("", 0) == 0xcbf29ce484222325ull);
    CHECK(mcpp_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
    CHECK(mcpp_fnv1a64("foobar", 6) == 0x85944171f73967e8ull);
}

/* The calls no other suite reached (issue 51 item 1: every exported call has a test). */
TEST(names_of_the_policy_a_result_was_made_under)
{
    mcpp_receipt *r = FIX("\"stability\":\"stable\"", "\"stability\":\"stable\"");
    mcpp_comparison *cmp = NULL;
    CHECK_INT_EQ(mcpp_compare(&cmp, NULL, r, r), MCPP_OK);
    CHECK_STR_EQ(mcpp_comparison_policy_name(cmp), "default");
    mcpp_comparison_free(cmp);
    const mcpp_receipt *rs[] = {r};
    mcpp_claim_result *cl = NULL;
    CHECK_INT_EQ(mcpp_claim_check(&cl, NULL, rs, 1, "family=NAM56R", "metrics.tokens_per_s", 1), MCPP_OK);
    CHECK_STR_EQ(mcpp_claim_result_policy_name(cl), "default");
    mcpp_claim_result_free(cl);
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_run_aggregate(p), MCPP_AGGREGATE_GEOMETRIC_MEAN);
    CHECK_INT_EQ(mcpp_policy_set_run_aggregate(p, MCPP_AGGREGATE_OLYMPIC_MEAN), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_run_aggregate(p), MCPP_AGGREGATE_OLYMPIC_MEAN);
    mcpp_policy_free(p);
    mcpp_receipt_free(r);
}

TEST(policy_inconclusive_settings_round_trip_and_refuse_a_negative_bound)
{
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&p), MCPP_OK);
    double bound = -1;
    int fails = -1;
    CHECK_INT_EQ(mcpp_policy_set_inconclusive(p, 0.1, 1), MCPP_OK);
    mcpp_policy_inconclusive(p, &bound, &fails);
    CHECK(bound == 0.1);
    CHECK_INT_EQ(fails, 1);
    CHECK_INT_EQ(mcpp_policy_set_inconclusive(p, -0.5, 0), MCPP_EINVALID);
    mcpp_policy_inconclusive(NULL, &bound, &fails);
    CHECK(bound == 0);
    CHECK_INT_EQ(fails, 0);
    mcpp_policy_free(p);
}

TEST(import_registry_names_summaries_and_file_names)
{
    mcpp_import_format f = 0;
    CHECK_INT_EQ(mcpp_import_format_from_name(&f, "pytest-benchmark"), MCPP_OK);
    CHECK_STR_EQ(mcpp_import_format_name(f), "pytest-benchmark");
    CHECK(mcpp_import_format_summary(f) && strstr(mcpp_import_format_summary(f), "--benchmark-json"));
    CHECK(mcpp_import_format_summary((mcpp_import_format)0) == NULL);
    /* '_' never names a format (import.h) */
    CHECK_INT_EQ(mcpp_import_format_from_name(&f, "no_such_format"), MCPP_EARG);
    CHECK(strstr(mcpp_error_last()->message, "no_such_format") != NULL);
    mcpp_receipt *r = FIX("\"id\":\"base-1\"", "\"id\":\"a/b c\"");
    char *name = NULL;
    CHECK_INT_EQ(mcpp_import_file_name(&name, r), MCPP_OK);
    CHECK_STR_EQ(name, "a_b_c.json");
    mcpp_free(name);
    mcpp_receipt_free(r);
}

TEST(well_known_metrics_accelerators_and_the_policy_directory)
{
    const char *unit = NULL;
    mcpp_direction d = MCPP_DIRECTION_LOWER;
    CHECK_INT_EQ(mcpp_metric_well_known("tokens_per_s", &unit, &d), 1);
    CHECK_STR_EQ(unit, "tokens/s");
    CHECK_INT_EQ(d, MCPP_DIRECTION_HIGHER);
    CHECK_INT_EQ(mcpp_metric_well_known("my_own_metric", NULL, NULL), 0);
    const mcpp_accel_table *t = mcpp_accel_table_default();
    CHECK(t != NULL);
    mcpp_accelerator a;
    CHECK_INT_EQ(mcpp_accelerator_canonicalize(&a, t, "NVIDIA H100 80GB HBM3"), MCPP_OK);
    CHECK_STR_EQ(a.vendor, "NVIDIA");
    char *dir = NULL;
    CHECK_INT_EQ(mcpp_policy_install_dir(&dir), MCPP_OK);
    /* run from the build tree, the library finds the source tree's policies */
    char path[4096];
    snprintf(path, sizeof path, "%s/default.lua", dir ? dir : "");
    CHECK(dir && access(path, R_OK) == 0);
    mcpp_free(dir);
}

/* Every render call refuses a NULL object naming itself (render/render.c checks
 * for all of them), and leaves *out NULL. */
TEST(render_calls_refuse_a_null_object_naming_the_call)
{
    char *out = (char *)"untouched";
    CHECK_INT_EQ(mcpp_comparison_render(&out, NULL, MCPP_OUTPUT_TEXT), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_comparison_render: NULL argument");
    CHECK(out == NULL);
    out = (char *)"untouched";
    CHECK_INT_EQ(mcpp_frontier_render(&out, NULL, MCPP_OUTPUT_TEXT), MCPP_EARG);
    CHECK(out == NULL);
    CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_frontier_render: NULL argument");
    CHECK_INT_EQ(mcpp_frontier_render_json_outline(&out, NULL), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_frontier_render_json_outline: NULL argument");
    CHECK_INT_EQ(mcpp_gate_report_render(&out, NULL, MCPP_OUTPUT_JSON), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_gate_report_render: NULL argument");
    CHECK_INT_EQ(mcpp_gate_report_render_json_outline(&out, NULL), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_gate_report_render_json_outline: NULL argument");
    CHECK_INT_EQ(mcpp_claim_result_render(&out, NULL, MCPP_OUTPUT_MARKDOWN), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_claim_result_render: NULL argument");
    CHECK_INT_EQ(mcpp_frontier_render(NULL, NULL, MCPP_OUTPUT_TEXT), MCPP_EARG);
}

int main(void)
{
    RUN(lane_key_text_of_a_double_is_the_writers_text);
    RUN(error_kinds_have_stable_names_and_round_trip_through_the_last_error);
    RUN(status_names_are_the_short_names_common_h_promises);
    RUN(version_function_matches_the_header);
    RUN(roles_and_default_dimensions_have_names);
    RUN(policy_name_and_rule_names_read_back);
    RUN(comparison_rows_give_role_and_both_sides_values);
    RUN(gate_report_names_each_candidate);
    RUN(gate_run_receipts_takes_plain_receipt_arrays_and_equals_gate_run);
    RUN(frontier_lanes_have_keys_labels_and_are_found_by_short_key);
    RUN(frontier_and_gate_json_in_parts_splice_into_the_whole_document);
    RUN(frontier_and_gate_reports_stream_as_they_render);
    RUN(lane_summary_reports_key_reasons_and_headline);
    RUN(lane_headline_is_written_in_the_callers_version_and_unknown_versions_are_refused);
    RUN(every_struct_the_library_fills_is_written_in_the_callers_version_only);
    RUN(claim_result_names_matched_and_source_lanes);
    RUN(receipt_set_takes_added_receipts_and_lists_them);
    RUN(receipts_a_set_loads_from_files_read_as_each_file_alone);
    RUN(the_receipt_files_of_a_tree_are_walked_in_name_order);
    RUN(error_report_sets_the_last_error_as_the_library_does);
    RUN(quantile_is_type_7_and_leaves_the_values_alone);
    RUN(fnv1a64_is_the_published_fnv_1a);
    RUN(names_of_the_policy_a_result_was_made_under);
    RUN(policy_inconclusive_settings_round_trip_and_refuse_a_negative_bound);
    RUN(import_registry_names_summaries_and_file_names);
    RUN(well_known_metrics_accelerators_and_the_policy_directory);
    RUN(render_calls_refuse_a_null_object_naming_the_call);
    TEST_MAIN_END();
}
