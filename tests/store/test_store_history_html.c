/*
 * test_store_history_html.c — the history section of the HTML report
 * (mcpp_html_report_options.history): one plot per lane with a dot per run,
 * the change point of a stepped lane marked with the commits on either side,
 * commits and labels escaped, long lanes thinned, no section without a history.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test_util.h"
#include "mcpp_receipts.h"
#include "store_fixture.h"

static char tmpdir[128];

static size_t count_of(const char *haystack, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* A store with `runs` runs of one lane, whose metric drops 6% from run
 * `step_at` on (step_at >= runs: flat); commit of run i: "<b>k" + i. */
static mcpp_store *stepped_store(const char *name, size_t runs, size_t step_at)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    mcpp_store *s = NULL;
    if (mcpp_store_open(&s, path, MCPP_STORE_CREATE) != MCPP_OK) abort();
    mcpp_receipt **rs = calloc(runs, sizeof *rs);
    for (size_t i = 0; i < runs; i++) {
        char id[64], created[64], commit[64];
        snprintf(id, sizeof id, "%s-%05zu", name, i);
        snprintf(created, sizeof created, "2026-04-%02zuT%02zu:%02zu:00Z", 1 + i / 1440, i / 60 % 24, i % 60);
        snprintf(commit, sizeof commit, "<b>k%05zu", i);
        double noise = 1.0 + 0.002 * ((double)((i * 7919) % 11) - 5.0) / 5.0;
        rs[i] = fixture_receipt(id, created, commit, 500000.0 * noise * (i >= step_at ? 0.94 : 1.0));
    }
    if (mcpp_store_add(NULL, s, (const mcpp_receipt *const *)rs, runs) != MCPP_OK) abort();
    for (size_t i = 0; i < runs; i++) mcpp_receipt_free(rs[i]);
    free(rs);
    return s;
}

/* The page of the store's receipts, with its history when `with_history`. */
static char *page_of(mcpp_store *s, int with_history)
{
    mcpp_receipt_set *set = NULL;
    mcpp_frontier *f = NULL;
    mcpp_history *h = NULL;
    char *html = NULL;
    CHECK_INT_EQ(mcpp_store_query_set(&set, s, NULL), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_build(&f, NULL, mcpp_receipt_set_items(set), mcpp_receipt_set_count(set)), MCPP_OK);
    if (with_history) CHECK_INT_EQ(mcpp_history_build(&h, s, NULL, NULL, NULL), MCPP_OK);
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.history = h;
    CHECK_INT_EQ(mcpp_frontier_render_html(&html, f, &o), MCPP_OK);
    mcpp_history_free(h);
    mcpp_frontier_free(f);
    mcpp_receipt_set_free(set);
    return html;
}

TEST(a_stepped_lane_plots_every_run_and_marks_its_change_with_the_commits_on_either_side)
{
    mcpp_store *s = stepped_store("step.db", 30, 15);
    char *html = page_of(s, 1);
    CHECK(html != NULL);
    if (html) {
        CHECK_CONTAINS(html, "<section id=\"history\"><h2>History: <code>primary</code>");
        CHECK_INT_EQ((long long)count_of(html, "class=\"history-lane\""), 1);
        CHECK_INT_EQ((long long)count_of(html, "<circle class=\"run\""), 30);
        CHECK_INT_EQ((long long)count_of(html, "<g class=\"change\">"), 1);
        /* the commits on either side, escaped, in the marker and the table */
        CHECK_CONTAINS(html, "change point at run 15: &lt;b&gt;k00014 \xE2\x86\x92 &lt;b&gt;k00015</title>");
        CHECK_CONTAINS(html, "<td><code>&lt;b&gt;k00014</code></td><td><code>&lt;b&gt;k00015</code></td>");
        CHECK_CONTAINS(html, "<td class=\"num\">-6.");
        CHECK(strstr(html, "<b>k") == NULL);
        CHECK(strstr(html, "<script") == NULL);
    }
    mcpp_free(html);
    mcpp_store_close(s);
}

TEST(a_flat_lane_says_there_is_no_change_point)
{
    mcpp_store *s = stepped_store("flat.db", 20, 20);
    char *html = page_of(s, 1);
    CHECK(html != NULL);
    if (html) {
        CHECK_INT_EQ((long long)count_of(html, "<circle class=\"run\""), 20);
        CHECK_INT_EQ((long long)count_of(html, "<g class=\"change\">"), 0);
        CHECK_CONTAINS(html, "No change point beyond noise.");
    }
    mcpp_free(html);
    mcpp_store_close(s);
}

TEST(a_long_lane_is_thinned_but_keeps_its_change_point)
{
    mcpp_store *s = stepped_store("long.db", 3200, 2000);
    char *html = page_of(s, 1);
    CHECK(html != NULL);
    if (html) {
        /* every 3rd of 3200 runs, and the last: 1067 + 1 dots */
        CHECK_INT_EQ((long long)count_of(html, "<circle class=\"run\""), 1068);
        CHECK_CONTAINS(html, "Every 3rd run plotted (3200 runs)");
        CHECK_CONTAINS(html, "change point at run 2000: ");
    }
    mcpp_free(html);
    mcpp_store_close(s);
}

TEST(without_a_history_the_page_has_no_history_section)
{
    char path[256];
    snprintf(path, sizeof path, "%s/none.db", tmpdir);
    mcpp_store *s = NULL;
    CHECK_INT_EQ(mcpp_store_open(&s, path, MCPP_STORE_CREATE), MCPP_OK);
    mcpp_receipt *r = fixture_numbered("none", 1, 500000.0);
    CHECK_INT_EQ(mcpp_store_add(NULL, s, (const mcpp_receipt *const *)&r, 1), MCPP_OK);
    mcpp_receipt_free(r);
    char *html = page_of(s, 0);
    CHECK(html != NULL);
    if (html) CHECK(strstr(html, "id=\"history\"") == NULL);
    mcpp_free(html);
    mcpp_store_close(s);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpp-history-html-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    RUN(a_stepped_lane_plots_every_run_and_marks_its_change_with_the_commits_on_either_side);
    RUN(a_flat_lane_says_there_is_no_change_point);
    RUN(a_long_lane_is_thinned_but_keeps_its_change_point);
    RUN(without_a_history_the_page_has_no_history_section);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    free(fixture_base);
    TEST_MAIN_END();
}
