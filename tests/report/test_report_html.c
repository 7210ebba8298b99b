/*
 * test_report_html.c — the C API behind `mcpp-receipts report` and policy
 * search: mcpp_frontier_render_html (arguments, options version, escaping of
 * policy names, the gate section, an empty frontier), mcpp_text_write_file,
 * and mcpp_policy_find's order and refusals.
 *
 * usage: test_report_html EXAMPLES_DIR WORK_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcpp_receipts.h"
#include "test_util.h"

static const char *examples_dir, *work_dir;

static mcpp_receipt *example(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", examples_dir, name);
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_file(&r, NULL, path, NULL) != MCPP_OK)
        fprintf(stderr, "cannot load %s: %s\n", path, mcpp_error_last()->message);
    return r;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(render_html_refuses_null_arguments_and_an_options_struct_of_another_version)
{
    mcpp_frontier *f = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, NULL, 0), MCPP_OK);
    char *html = (char *)"untouched";
    CHECK_INT_EQ(mcpp_frontier_render_html(NULL, f, NULL), MCPP_EARG);
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, NULL, NULL), MCPP_EARG);
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.version = 99;
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, &o), MCPP_EARG);
    CHECK_CONTAINS(mcpp_error_last()->message, "mcpp_html_report_options");
    CHECK(html == NULL);
    o.version = MCPP_HTML_REPORT_OPTIONS_VERSION;
    o.n_receipts = 3; /* with receipts NULL */
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, &o), MCPP_EARG);
    mcpp_frontier_free(f);
}

TEST(an_empty_frontier_is_a_whole_page_that_says_there_is_no_headline)
{
    mcpp_frontier *f = NULL;
    char *html = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, NULL, 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, NULL), MCPP_OK);
    if (html) {
        CHECK(strncmp(html, "<!DOCTYPE html>", 15) == 0);
        CHECK_CONTAINS(html, "0 lanes (0 stable, 0 unstable)");
        CHECK_CONTAINS(html, "No lane has a value of the headline metric.");
        CHECK(strstr(html, "</html>\n") != NULL);
    }
    mcpp_free(html);
    mcpp_frontier_free(f);
}

TEST(policy_name_title_and_skipped_inputs_are_escaped)
{
    const char *text = "return { name = \"<b>team</b> & 'co'\" }";
    mcpp_policy *p = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&p, text, strlen(text), "t.lua", NULL), MCPP_OK);
    mcpp_receipt *r = example("nam56r_padded.json");
    const mcpp_receipt *rs[] = {r};
    mcpp_frontier *f = NULL;
    char *html = NULL;
    CHECK_INT_EQ(mcpp_frontier_build(&f, p, rs, 1), MCPP_OK);
    const char *skipped[] = {"bad\"file<1>.json: syntax"};
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.title = "Q3 <report> & \"more\"";
    o.receipts = rs;
    o.n_receipts = 1;
    o.skipped = skipped;
    o.n_skipped = 1;
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, &o), MCPP_OK);
    if (html) {
        CHECK_CONTAINS(html, "&lt;b&gt;team&lt;/b&gt; &amp; &#39;co&#39;");
        CHECK_CONTAINS(html, "<title>Q3 &lt;report&gt; &amp; &quot;more&quot;</title>");
        CHECK_CONTAINS(html, "bad&quot;file&lt;1&gt;.json: syntax");
        CHECK_CONTAINS(html, "1 input could not be read");
        CHECK(strstr(html, "<b>") == NULL && strstr(html, "<report>") == NULL);
        CHECK_CONTAINS(html, "nam56r_padded.json"); /* the receipt's file in its lane */
    }
    mcpp_free(html);
    mcpp_frontier_free(f);
    mcpp_receipt_free(r);
    mcpp_policy_free(p);
}

TEST(a_gate_report_adds_a_gate_section_with_each_candidate)
{
    mcpp_receipt *b1 = example("nam56r_padded.json"), *b2 = example("nam56r_padded_run2.json");
    mcpp_receipt *c = example("nam56r_padded_run3.json");
    const mcpp_receipt *base[] = {b1, b2}, *cand[] = {c}, *all[] = {b1, b2, c};
    mcpp_gate_report *g = NULL;
    mcpp_frontier *f = NULL;
    char *html = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&g, NULL, base, 2, cand, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, all, 3), MCPP_OK);
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.gate = g;
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, &o), MCPP_OK);
    if (html && g) {
        CHECK_CONTAINS(html, "<section id=\"gate\"><h2>Merge gate: ");
        CHECK_CONTAINS(html, mcpp_gate_outcome_name(mcpp_gate_report_outcome(g)));
        CHECK_CONTAINS(html, mcpp_receipt_id(c));
        CHECK_CONTAINS(html, "receipt not given to the report"); /* no receipts in the options */
    }
    mcpp_free(html);
    mcpp_frontier_free(f);
    mcpp_gate_report_free(g);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(b2);
    mcpp_receipt_free(c);
}

/* Issue 47 item 3: the report says which runs each lane's headline and each
 * gated candidate pool, and which they set aside with why (the frontier's
 * words); a lane history's series says the same, in every format. */
TEST(the_report_and_the_history_name_the_runs_a_headline_pools_and_sets_aside)
{
    static const char *const names[] = {"nam56r_padded.json", "nam56r_padded_run2.json", "nam56r_padded_run3.json",
                                        "h200_requested_h100_observed.json", "nam56r_cold_boot.json"};
    mcpp_receipt *rs[5];
    for (int i = 0; i < 5; i++)
        rs[i] = example(names[i]);
    const mcpp_receipt *base[] = {rs[0], rs[1], rs[3], rs[4]}, *cand[] = {rs[2]};
    mcpp_gate_report *g = NULL;
    mcpp_frontier *f = NULL;
    char *html = NULL;
    CHECK_INT_EQ(mcpp_gate_run(&g, NULL, base, 4, cand, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 5), MCPP_OK);
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.gate = g;
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, &o), MCPP_OK);
    if (html) {
        CHECK_CONTAINS(html, "<p class=\"pooled\">Its headline pools 3 runs: nam56r-padded-2026-03-14-run1, "
                             "nam56r-padded-2026-03-14-run2, nam56r-padded-2026-03-15-run3; sets aside 1: "
                             "nam56r-padded-h200-requested-2026-03-18 (request not met: hardware: requested NVIDIA "
                             "H200 x8, observed NVIDIA H100 80GB HBM3 x8).</p>");
        CHECK_CONTAINS(html, "<p class=\"pooled\">Its headline pools 1 run: nam56r-padded-cold-boot-2026-03-17; "
                             "sets aside 0.</p>");
        /* the gate pools what the frontier's headline pools: the H200 request not met is set aside */
        CHECK_CONTAINS(html, "<span class=\"muted\">headline:</span> pools 3 runs: nam56r-padded-2026-03-14-run1, "
                             "nam56r-padded-2026-03-14-run2, nam56r-padded-2026-03-15-run3; sets aside 2: "
                             "nam56r-padded-h200-requested-2026-03-18 (request not met: hardware: requested NVIDIA "
                             "H200 x8, observed NVIDIA H100 80GB HBM3 x8); and 1 more (1 of other lanes, not "
                             "comparable)");
    }
    mcpp_free(html);
    mcpp_frontier_free(f);
    mcpp_gate_report_free(g);
    /* the same runs in a store: the lane's series sets the H200 request aside as the frontier does */
    char path[1024];
    snprintf(path, sizeof path, "%s/pooled-history.db", work_dir);
    remove(path);
    mcpp_store *s = NULL;
    mcpp_history *h = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_CREATE), MCPP_OK);
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, 5), MCPP_OK);
    CHECK_INT_EQ(mcpp_history_build(&h, s, NULL, NULL, NULL), MCPP_OK);
    static const char aside[] = "sets aside 1: nam56r-padded-h200-requested-2026-03-18 (request not met: hardware: "
                                "requested NVIDIA H200 x8, observed NVIDIA H100 80GB HBM3 x8)";
    char *text = NULL;
    for (int fmt = 0; h && fmt < 3; fmt++) {
        static const mcpp_output_format formats[] = {MCPP_OUTPUT_TEXT, MCPP_OUTPUT_MARKDOWN, MCPP_OUTPUT_JSON};
        CHECK_INT_EQ(mcpp_history_render(&text, h, formats[fmt]), MCPP_OK);
        if (text && fmt < 2)
            CHECK_CONTAINS(text, "series pools 3 runs; ");
        if (text && fmt < 2)
            CHECK_CONTAINS(text, aside);
        if (text && fmt == 2)
            CHECK_CONTAINS(text, "\"set_aside\": [{\"id\": \"nam56r-padded-h200-requested-2026-03-18\", \"reason\": "
                                 "\"request not met: hardware: requested NVIDIA H200 x8, observed NVIDIA H100 80GB "
                                 "HBM3 x8\"}]");
        mcpp_free(text);
        text = NULL;
    }
    /* three runs in the series, not four */
    for (size_t l = 0; h && l < mcpp_history_lane_count(h); l++)
        if (mcpp_history_run_count(h, l) > 1)
            CHECK_INT_EQ((int)mcpp_history_run_count(h, l), 3);
    o = (mcpp_html_report_options)MCPP_HTML_REPORT_OPTIONS_INIT;
    o.history = h;
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, (const mcpp_receipt *const *)rs, 5), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, &o), MCPP_OK);
    if (html) {
        CHECK_CONTAINS(html, "<p class=\"pooled\">Its series pools 3 runs; ");
        CHECK_CONTAINS(html, aside);
    }
    mcpp_free(html);
    mcpp_frontier_free(f);
    mcpp_history_free(h);
    mcpp_store_close(s);
    for (int i = 0; i < 5; i++)
        mcpp_receipt_free(rs[i]);
}

/* A lane name as wide as the label column allows is fitted into the room
 * left of the axis (textLength), so the page never clips its start at the
 * left edge; a short one is drawn as it is (issue 49). */
TEST(a_long_lane_label_is_fitted_left_of_the_axis_and_a_short_one_is_not)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/nam56r_padded.json", examples_dir);
    FILE *in = fopen(path, "rb");
    static char text[1 << 16], edited[1 << 16];
    size_t len = in ? fread(text, 1, sizeof text - 1, in) : 0;
    if (in)
        fclose(in);
    text[len] = '\0';
    const char *from = strstr(text, "\"NAM56R hybrid MoE lane\"");
    CHECK(from != NULL);
    const char *names[] = {"\"MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM wide lane\"", "\"tiny\""};
    for (int i = 0; i < 2 && from; i++) {
        snprintf(edited, sizeof edited, "%.*s%s%s", (int)(from - text), text, names[i],
                 from + strlen("\"NAM56R hybrid MoE lane\""));
        mcpp_receipt *r = NULL;
        CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, NULL, edited, strlen(edited), MCPP_FORMAT_JSON, "edited.json", NULL),
                     MCPP_OK);
        const mcpp_receipt *one[] = {r};
        mcpp_frontier *f = NULL;
        char *html = NULL;
        CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, one, 1), MCPP_OK);
        CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, NULL), MCPP_OK);
        const char *plot = html ? strstr(html, "id=\"forest-plot\"") : NULL;
        CHECK(plot != NULL);
        if (plot && i == 0)
            CHECK_CONTAINS(plot, "text-anchor=\"end\" textLength=\"446\" lengthAdjust=");
        if (plot && i == 1)
            CHECK(strstr(plot, "textLength") == NULL);
        mcpp_free(html);
        mcpp_frontier_free(f);
        mcpp_receipt_free(r);
    }
}

/* As compare, gate, claim and frontier do in text, JSON, markdown and JUnit:
 * the page names the policy of its lanes and of its gate with their content
 * digests, so two policies of one name are told apart. */
TEST(the_page_names_each_policy_and_its_content_digest)
{
    const char *text = "return { include = { \"default.lua\" }, name = \"default\", dimensions = { ignore = { \"data\" } } }";
    mcpp_policy *weak = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_buffer(&weak, text, strlen(text), MCPP_POLICY_DIR "/weak.lua", NULL), MCPP_OK);
    mcpp_receipt *b1 = example("nam56r_padded.json"), *c = example("nam56r_padded_run3.json");
    const mcpp_receipt *base[] = {b1}, *cand[] = {c}, *all[] = {b1, c};
    mcpp_gate_report *g = NULL;
    mcpp_frontier *f = NULL;
    char *html = NULL, builtin[32], weakened[32], want[96];
    CHECK_INT_EQ(mcpp_policy_digest(builtin, sizeof builtin, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_policy_digest(weakened, sizeof weakened, weak), MCPP_OK);
    CHECK(strcmp(builtin, weakened) != 0);
    CHECK_INT_EQ(mcpp_gate_run(&g, weak, base, 1, cand, 1), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, all, 2), MCPP_OK);
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.gate = g;
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, &o), MCPP_OK);
    if (html) {
        snprintf(want, sizeof want, "policy default (digest <code>%s</code>)", builtin);
        CHECK_CONTAINS(html, want);
        snprintf(want, sizeof want, "Gated under policy default (digest <code>%s</code>)", weakened);
        CHECK_CONTAINS(html, want);
    }
    mcpp_free(html);
    mcpp_frontier_free(f);
    mcpp_gate_report_free(g);
    mcpp_receipt_free(b1);
    mcpp_receipt_free(c);
    mcpp_policy_free(weak);
}

TEST(text_write_file_replaces_the_file_and_refuses_a_directory)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/page.html", work_dir);
    write_text(path, "old");
    CHECK_INT_EQ(mcpp_text_write_file(path, "<p>new</p>\n", 11), MCPP_OK);
    char buf[64] = {0};
    FILE *fp = fopen(path, "r");
    if (fp) {
        CHECK_INT_EQ((int)fread(buf, 1, sizeof buf - 1, fp), 11);
        fclose(fp);
    }
    CHECK_STR_EQ(buf, "<p>new</p>\n");
    CHECK_INT_EQ(mcpp_text_write_file(work_dir, "x", 1), MCPP_EIO);
    CHECK_INT_EQ(mcpp_text_write_file(NULL, "x", 1), MCPP_EARG);
}

TEST(policy_find_looks_in_the_own_directory_then_installed_then_mcpp_policy_path)
{
    char own[1024], extra[1024], file[1200];
    snprintf(own, sizeof own, "%s/own", work_dir);
    snprintf(extra, sizeof extra, "%s/extra", work_dir);
    mkdir(own, 0777);
    mkdir(extra, 0777);
    snprintf(file, sizeof file, "%s/both.lua", own);
    write_text(file, "return {}");
    snprintf(file, sizeof file, "%s/both.lua", extra);
    write_text(file, "return {}");
    snprintf(file, sizeof file, "%s/only_extra.lua", extra);
    write_text(file, "return {}");
    char env[2200];
    snprintf(env, sizeof env, "/nonexistent::%s", extra);
    setenv("MCPP_POLICY_PATH", env, 1);
    char *path = NULL;
    CHECK_INT_EQ(mcpp_policy_find(&path, "both.lua", own), MCPP_OK);
    snprintf(file, sizeof file, "%s/both.lua", own);
    CHECK_STR_EQ(path, file);
    mcpp_free(path);
    CHECK_INT_EQ(mcpp_policy_find(&path, "only_extra.lua", own), MCPP_OK);
    snprintf(file, sizeof file, "%s/only_extra.lua", extra);
    CHECK_STR_EQ(path, file);
    mcpp_free(path);
    /* a policy argument (--policy, mr.policy): a bare name is a shipped
     * policy; a path, or a name with no policy, is itself (the load names it) */
    CHECK_INT_EQ(mcpp_policy_locate(&path, "only_extra"), MCPP_OK);
    CHECK_STR_EQ(path, file);
    mcpp_free(path);
    const char *themselves[] = {"only_extra.lua", "./only_extra", "no_such_policy", "a b"};
    for (size_t i = 0; i < sizeof themselves / sizeof themselves[0]; i++) {
        CHECK_INT_EQ(mcpp_policy_locate(&path, themselves[i]), MCPP_OK);
        CHECK_STR_EQ(path, themselves[i]);
        mcpp_free(path);
    }
    CHECK_INT_EQ(mcpp_policy_find(&path, "nowhere.lua", own), MCPP_ENOTFOUND);
    CHECK(path == NULL);
    CHECK_CONTAINS(mcpp_error_last()->message, extra);
    CHECK_CONTAINS(mcpp_error_last()->message, "/nonexistent");
    char *dirs = NULL;
    CHECK_INT_EQ(mcpp_policy_search_path(&dirs, own), MCPP_OK);
    if (dirs) {
        CHECK(strncmp(dirs, own, strlen(own)) == 0);
        /* This test runs from the build tree, whose code uses the source tree's policy/ */
        CHECK_CONTAINS(dirs, "/policy\n/nonexistent\n");
        CHECK(strstr(dirs, "share/mcpp_receipts/policy") == NULL);
        CHECK(strstr(dirs, "\n\n") == NULL); /* the empty entry is ignored */
    }
    mcpp_free(dirs);
    const char *refused[] = {"../both.lua", "sub/both.lua", "/etc/passwd", "", ".", "a b.lua"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        CHECK_INT_EQ(mcpp_policy_find(&path, refused[i], own), MCPP_EARG);
    unsetenv("MCPP_POLICY_PATH");
    CHECK_INT_EQ(mcpp_policy_find(&path, "only_extra.lua", own), MCPP_ENOTFOUND);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s EXAMPLES_DIR WORK_DIR\n", argv[0]);
        return 2;
    }
    examples_dir = argv[1];
    work_dir = argv[2];
    mkdir(work_dir, 0777);
    RUN(render_html_refuses_null_arguments_and_an_options_struct_of_another_version);
    RUN(an_empty_frontier_is_a_whole_page_that_says_there_is_no_headline);
    RUN(policy_name_title_and_skipped_inputs_are_escaped);
    RUN(a_gate_report_adds_a_gate_section_with_each_candidate);
    RUN(the_report_and_the_history_name_the_runs_a_headline_pools_and_sets_aside);
    RUN(a_long_lane_label_is_fitted_left_of_the_axis_and_a_short_one_is_not);
    RUN(the_page_names_each_policy_and_its_content_digest);
    RUN(text_write_file_replaces_the_file_and_refuses_a_directory);
    RUN(policy_find_looks_in_the_own_directory_then_installed_then_mcpp_policy_path);
    TEST_MAIN_END();
}
