/*
 * site_pages.c — the history site's index and lane pages (site.h). The index
 * groups the lanes by label and names, per lane, what tells it apart from its
 * neighbours (mcpp_frontier_lane_differences); a filter box hides the rows
 * that do not hold every word typed (the site's one script, inline; also
 * driven by ?q=WORDS in the address). A lane page is the lane's plot
 * (history_html.c, each dot linked to its run's row) and a table of its runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/history_html.h"
#include "render/html.h"
#include "render/report_format.h"
#include "render/site.h"

static const char FILTER_SCRIPT[] =
    "<script>\n"
    "(function () {\n"
    "  var box = document.getElementById('filter');\n"
    "  var rows = Array.prototype.slice.call(document.querySelectorAll('tr.lane'));\n"
    "  var groups = Array.prototype.slice.call(document.querySelectorAll('section.group'));\n"
    "  var shown = document.getElementById('shown');\n"
    "  function apply() {\n"
    "    var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean), n = 0;\n"
    "    rows.forEach(function (r) {\n"
    "      var text = (r.textContent + ' ' + r.getAttribute('data-search')).toLowerCase();\n"
    "      var hit = words.every(function (w) { return text.indexOf(w) >= 0; });\n"
    "      r.hidden = !hit;\n"
    "      if (hit) n++;\n"
    "    });\n"
    "    groups.forEach(function (g) { g.hidden = !g.querySelector('tr.lane:not([hidden])'); });\n"
    "    shown.textContent = n + ' of ' + rows.length + ' lanes shown';\n"
    "  }\n"
    "  var asked = /[?&]q=([^&]*)/.exec(window.location.search);\n"
    "  if (asked) box.value = decodeURIComponent(asked[1].replace(/\\+/g, ' '));\n"
    "  box.addEventListener('input', apply);\n"
    "  apply();\n"
    "})();\n"
    "</script>\n";

static const char *label_of(const site_lane *l) { return l->history->label ? l->history->label : "(no label)"; }

/* Lane indexes ordered by label, then key: the groups of the index. */
static int by_label(const void *a, const void *b, void *ctx)
{
    const site_lane *lanes = ctx;
    const site_lane *x = &lanes[*(const size_t *)a], *y = &lanes[*(const size_t *)b];
    int c = strcmp(label_of(x), label_of(y));
    return c ? c : strcmp(x->history->key, y->history->key);
}

static void sort_by_label(size_t *order, size_t n, const site_lane *lanes)
{
    for (size_t i = 1; i < n; i++) /* insertion sort: lanes are hundreds, and qsort_r is not portable */
        for (size_t j = i; j > 0 && by_label(&order[j - 1], &order[j], (void *)lanes) > 0; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

static void put_status(mcpp_strbuf *sb, const site_model *m, const site_lane *l)
{
    if (l->frontier_index == SIZE_MAX) {
        mcpp_sb_puts(sb, "<span class=\"muted\">–</span>");
        return;
    }
    int status = mcpp_frontier_lane_status(m->frontier, l->frontier_index);
    const char *name = mcpp_lane_status_name((mcpp_lane_status)status);
    mcpp_sb_printf(sb, "<span class=\"badge %s\">%s</span>", status == MCPP_LANE_STABLE ? "stable" : "unstable",
                   name ? name : "?");
}

static void put_index_row(mcpp_strbuf *sb, const site_model *m, const site_lane *l)
{
    const history_lane *h = l->history;
    const char *differs =
        l->frontier_index == SIZE_MAX ? NULL : mcpp_frontier_lane_differences(m->frontier, l->frontier_index);
    mcpp_sb_puts(sb, "<tr class=\"lane\" data-search=\""); /* what the filter matches besides the row's text */
    mcpp_sb_html(sb, label_of(l));
    mcpp_sb_puts(sb, " ");
    mcpp_sb_html(sb, h->key);
    mcpp_sb_printf(sb, "\"><td><a href=\"%s\">", l->page);
    if (differs && *differs)
        mcpp_sb_html(sb, differs);
    else
        mcpp_sb_html(sb, label_of(l));
    mcpp_sb_printf(sb, "</a> <code>%s</code></td><td>", h->short_key);
    put_status(sb, m, l);
    mcpp_sb_printf(sb, "</td><td class=\"num\">%zu</td><td class=\"num\">", h->n_runs);
    char num[48];
    if (h->n_runs) {
        mcpp_report_format_number(num, sizeof num, h->runs[h->n_runs - 1].value);
        mcpp_sb_puts(sb, num);
    } else {
        mcpp_sb_puts(sb, "–");
    }
    mcpp_sb_printf(sb, "</td><td class=\"num\">%zu</td><td>", h->n_changes);
    if (h->n_changes) {
        mcpp_history_change_view v = mcpp_history_change_at(h, h->n_changes - 1);
        mcpp_sb_printf(sb, "%+.1f%% at ", v.rel_change * 100.0);
        mcpp_sb_html(sb, v.after->created_at ? v.after->created_at : "(no date)");
    }
    mcpp_sb_puts(sb, "</td><td>");
    if (h->n_runs)
        mcpp_site_commit(sb, m, h->runs[h->n_runs - 1].git_commit);
    mcpp_sb_puts(sb, "</td></tr>\n");
}

static void put_group_begin(mcpp_strbuf *sb, const char *label)
{
    mcpp_sb_puts(sb, "<section class=\"group\"><h2>");
    mcpp_sb_html(sb, label);
    mcpp_sb_puts(sb, "</h2>\n<div class=\"scroll\"><table class=\"lanes\"><thead><tr><th>lane (what differs)</th>"
                     "<th>status</th><th>runs</th><th>latest value</th><th>change points</th><th>last change</th>"
                     "<th>latest commit</th></tr></thead><tbody>\n");
}

void mcpp_site_index_page(mcpp_strbuf *sb, const site_model *m)
{
    const char *title = m->options->title ? m->options->title : "Benchmark history";
    mcpp_site_page_begin(sb, m, title, "", 1);
    size_t runs = 0, changes = 0;
    for (size_t i = 0; i < m->n_lanes; i++) {
        runs += m->lanes[i].history->n_runs;
        changes += m->lanes[i].history->n_changes;
    }
    mcpp_sb_printf(sb, "<p>%zu lane%s, %zu run%s of <code>", m->n_lanes, m->n_lanes == 1 ? "" : "s", runs,
                   runs == 1 ? "" : "s");
    mcpp_sb_html(sb, m->history->metric);
    mcpp_sb_printf(sb,
                   "</code>, %zu change point%s. Lanes are grouped by label; each row names what tells the lane "
                   "apart from its neighbours.</p>\n",
                   changes, changes == 1 ? "" : "s");
    mcpp_sb_puts(sb, "<p><input id=\"filter\" class=\"search\" type=\"search\" placeholder=\"filter lanes: words of "
                     "the label, key, commit\" aria-label=\"filter lanes\"> <span id=\"shown\" class=\"muted\"></span>"
                     "</p>\n");
    size_t *order = m->n_lanes ? malloc(m->n_lanes * sizeof *order) : NULL;
    if (m->n_lanes && !order) {
        sb->failed = 1;
        return;
    }
    for (size_t i = 0; i < m->n_lanes; i++)
        order[i] = i;
    sort_by_label(order, m->n_lanes, m->lanes);
    for (size_t k = 0; k < m->n_lanes; k++) {
        const site_lane *l = &m->lanes[order[k]];
        if (k == 0 || strcmp(label_of(&m->lanes[order[k - 1]]), label_of(l)) != 0) {
            if (k)
                mcpp_sb_puts(sb, "</tbody></table></div></section>\n");
            put_group_begin(sb, label_of(l));
        }
        put_index_row(sb, m, l);
    }
    if (m->n_lanes)
        mcpp_sb_puts(sb, "</tbody></table></div></section>\n");
    else
        mcpp_sb_puts(sb, "<p class=\"muted\">The store holds no run that states the metric.</p>\n");
    free(order);
    mcpp_sb_puts(sb, FILTER_SCRIPT);
    mcpp_html_page_end(sb);
}

/* The runs, newest last, each row the target of its dot ("run-N"). */
static void put_runs_table(mcpp_strbuf *sb, const site_model *m, const history_lane *h)
{
    mcpp_sb_puts(sb, "<h2 id=\"runs\">Runs</h2>\n<div class=\"scroll\"><table class=\"runs\"><thead><tr><th>run</th>"
                     "<th>receipt id</th><th>created_at</th><th>commit</th><th>value</th><th>segment</th></tr>"
                     "</thead><tbody>\n");
    char num[48];
    size_t segment = 0;
    for (size_t i = 0; i < h->n_runs; i++) {
        const history_run *r = &h->runs[i];
        int starts = segment < h->n_changes && h->changes[segment] == i;
        if (starts)
            segment++;
        mcpp_sb_printf(sb, "<tr id=\"run-%zu\"%s><td class=\"num\">%zu</td><td><code>", i,
                       starts ? " class=\"change-start\"" : "", i);
        mcpp_sb_html(sb, r->id);
        mcpp_sb_puts(sb, "</code></td><td>");
        mcpp_sb_html(sb, r->created_at ? r->created_at : "–");
        mcpp_sb_puts(sb, "</td><td>");
        mcpp_site_commit(sb, m, r->git_commit);
        mcpp_report_format_number(num, sizeof num, r->value);
        mcpp_sb_printf(sb, "</td><td class=\"num\">%s</td><td class=\"num\">%zu</td></tr>\n", num, segment);
    }
    mcpp_sb_puts(sb, "</tbody></table></div>\n");
}

void mcpp_site_lane_page(mcpp_strbuf *sb, const site_model *m, size_t lane)
{
    const site_lane *l = &m->lanes[lane];
    const history_lane *h = l->history;
    const char *display =
        l->frontier_index == SIZE_MAX ? NULL : mcpp_frontier_lane_display_label(m->frontier, l->frontier_index);
    mcpp_site_page_begin(sb, m, display ? display : label_of(l), "../", 0);
    mcpp_sb_puts(sb, "<p>");
    put_status(sb, m, l);
    mcpp_sb_puts(sb, " lane key <code>");
    mcpp_sb_html(sb, h->key);
    mcpp_sb_puts(sb, "</code></p>\n");
    mcpp_history_html_lane(sb, m->history, lane, 1);
    put_runs_table(sb, m, h);
    mcpp_html_page_end(sb);
}
