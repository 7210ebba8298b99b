/*
 * report_html.c — the frontier as one self-contained HTML page
 * (html_report.h): summary, unreadable inputs, optional gate section, forest
 * plot (forest_plot.c), lane table, optional lane history
 * (store/history_html.c) and per-lane details with receipts and
 * their caveats. Lanes appear stable first, then unstable, each group in key
 * order. Every string that comes from a receipt or policy goes through
 * mcpp_sb_html.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/frontier_internal.h"
#include "analysis/metric_change.h"
#include "mcpp_receipts/html_report.h"
#include "render/forest_plot.h"
#include "render/html.h"
#include "render/pooled_words.h"
#include "render/report_format.h"
#include "render/history_html.h"
#include "util/error_internal.h"
#include "util/struct_version.h"

/* Beyond these the page stays readable at many lanes: details start closed,
 * the table lists a few neighbours, a lane lists its first receipts. */
enum { OPEN_DETAILS_UP_TO = 12, ADJACENT_IN_TABLE = 3, RECEIPTS_SHOWN = 100 };

typedef struct page {
    mcpp_strbuf *sb;
    const mcpp_frontier *f;
    const mcpp_html_report_options *o;
    const mcpp_receipt **by_id; /* o->receipts sorted by id, for the lane lists */
    size_t *order;              /* lane indices: stable first, then unstable     */
    size_t n_lanes;
} page;

static int compare_ids(const void *a, const void *b)
{
    return strcmp(mcpp_receipt_id(*(const mcpp_receipt *const *)a), mcpp_receipt_id(*(const mcpp_receipt *const *)b));
}

static const mcpp_receipt *receipt_with_id(const page *p, const char *id)
{
    size_t lo = 0, hi = p->o->n_receipts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(mcpp_receipt_id(p->by_id[mid]), id);
        if (c == 0)
            return p->by_id[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const char *status_word(const page *p, size_t lane)
{
    return mcpp_frontier_lane_status(p->f, lane) == MCPP_LANE_STABLE ? "stable" : "unstable";
}

static void put_badge(const page *p, size_t lane)
{
    mcpp_sb_printf(p->sb, "<span class=\"badge %s\">%s</span>", status_word(p, lane), status_word(p, lane));
}

/* The lane's label linking to its details; the short key follows as text
 * (`with_key`) or only as the link's tooltip. */
static void put_lane_link(const page *p, size_t lane, int with_key)
{
    const char *short_key = mcpp_frontier_lane_short_key(p->f, lane);
    mcpp_sb_printf(p->sb, "<a href=\"#%s\" title=\"%s\">", short_key, short_key);
    mcpp_sb_html(p->sb, mcpp_frontier_lane_display_label(p->f, lane));
    mcpp_sb_puts(p->sb, "</a>");
    if (with_key)
        mcpp_sb_printf(p->sb, " <code>%s</code>", short_key);
}

/* A policy's name and content digest, as every other rendering names them:
 * two policies of one name with other contents have other digests. */
static void put_policy(mcpp_strbuf *sb, const char *name, const char *digest)
{
    mcpp_sb_html(sb, name);
    mcpp_sb_puts(sb, " (digest <code>");
    mcpp_sb_html(sb, digest);
    mcpp_sb_puts(sb, "</code>)");
}

static void put_summary(const page *p)
{
    size_t stable = mcpp_frontier_stable_count(p->f), dup = mcpp_frontier_duplicate_count(p->f);
    mcpp_sb_puts(p->sb, "<header><h1>");
    mcpp_sb_html(p->sb, p->o->title ? p->o->title : "Receipts report");
    mcpp_sb_printf(p->sb, "</h1>\n<p class=\"muted\" id=\"summary\">%zu lane%s (%zu stable, %zu unstable) from %zu receipt%s; policy ",
                   p->n_lanes, p->n_lanes == 1 ? "" : "s", stable, p->n_lanes - stable,
                   mcpp_frontier_receipt_total(p->f), mcpp_frontier_receipt_total(p->f) == 1 ? "" : "s");
    put_policy(p->sb, mcpp_frontier_policy_name(p->f), mcpp_frontier_policy_digest(p->f));
    if (dup)
        mcpp_sb_printf(p->sb, "; %zu receipt%s skipped: same id already in the lane", dup, dup == 1 ? "" : "s");
    if (p->o->n_skipped)
        mcpp_sb_printf(p->sb, "; <span class=\"error\">%zu input%s could not be read</span>", p->o->n_skipped,
                       p->o->n_skipped == 1 ? "" : "s");
    mcpp_sb_puts(p->sb, ".</p>\n<p class=\"muted\">A stable lane's number belongs to that lane only; an unstable "
                        "lane lists every reason and its next blocker.</p></header>\n");
}

static void put_skipped(const page *p)
{
    if (!p->o->n_skipped)
        return;
    mcpp_sb_puts(p->sb, "<section id=\"skipped\"><h2 class=\"error\">Inputs not read</h2><ul>\n");
    for (size_t i = 0; i < p->o->n_skipped; i++) {
        mcpp_sb_puts(p->sb, "<li><code>");
        mcpp_sb_html(p->sb, p->o->skipped[i]);
        mcpp_sb_puts(p->sb, "</code></li>\n");
    }
    mcpp_sb_puts(p->sb, "</ul></section>\n");
}

/* One candidate's explanation: pooled baseline files and the differences. */
static void put_gate_why(const page *p, const mcpp_gate_report *g, size_t i)
{
    mcpp_sb_html(p->sb, mcpp_gate_report_entry_reason(g, i));
    size_t nb = mcpp_gate_report_entry_baseline_count(g, i);
    for (size_t k = 0; k < nb && k < 5; k++) {
        const char *path = mcpp_gate_report_entry_baseline_path(g, i, k);
        mcpp_sb_puts(p->sb, k ? ", <code>" : "<br><span class=\"muted\">pooled:</span> <code>");
        mcpp_sb_html(p->sb, path ? path : mcpp_gate_report_entry_baseline_id(g, i, k));
        mcpp_sb_puts(p->sb, "</code>");
    }
    if (nb > 5) mcpp_sb_printf(p->sb, ", and %zu more", nb - 5);
    mcpp_sb_puts(p->sb, "<br><span class=\"muted\">headline:</span> ");
    mcpp_gate_entry_pooled_words(p->sb, g, i, mcpp_sb_html, 5);
    for (size_t k = 0; k < mcpp_gate_report_entry_difference_count(g, i); k++) {
        mcpp_sb_printf(p->sb, "<br><span class=\"muted\">%s</span> %s<code>",
                       mcpp_gate_report_difference_pooled(g, i, k) ? "qualifies:" : "blocks:",
                       mcpp_gate_report_difference_is_rule(g, i, k) ? "rule " : "");
        mcpp_sb_html(p->sb, mcpp_gate_report_difference_dimension(g, i, k));
        mcpp_sb_printf(p->sb, "</code> %s: ",
                       mcpp_dim_status_name((mcpp_dim_status)mcpp_gate_report_difference_status(g, i, k)));
        mcpp_sb_html_cut(p->sb, mcpp_gate_report_difference_base(g, i, k), 60);
        mcpp_sb_puts(p->sb, " → ");
        mcpp_sb_html_cut(p->sb, mcpp_gate_report_difference_cand(g, i, k), 60);
        mcpp_sb_printf(p->sb, " (%zu)", mcpp_gate_report_difference_baselines(g, i, k));
    }
}

/* The change column in the words of the sign convention (docs/gate.md). */
static void put_gate_change(const page *p, const mcpp_metric_result *m)
{
    if (!m) {
        mcpp_sb_puts(p->sb, "–");
        return;
    }
    mcpp_sb_change_words(p->sb, mcpp_metric_improvement(m->rel_delta, m->higher_is_better));
}

static void put_gate(const page *p)
{
    const mcpp_gate_report *g = p->o->gate;
    if (!g)
        return;
    mcpp_gate_outcome outcome = mcpp_gate_report_outcome(g);
    mcpp_sb_printf(p->sb, "<section id=\"gate\"><h2>Merge gate: <span class=\"badge %s\">%s</span></h2>\n<p>",
                   outcome == MCPP_GATE_PASSED ? "stable" : "unstable", mcpp_gate_outcome_name(outcome));
    mcpp_sb_html(p->sb, mcpp_gate_report_reason(g));
    mcpp_sb_puts(p->sb, "</p>\n<p class=\"muted\" id=\"gate-policy\">Gated under policy ");
    put_policy(p->sb, mcpp_gate_report_policy_name(g), mcpp_gate_report_policy_digest(g));
    mcpp_sb_puts(p->sb, ".</p>\n");
    size_t n_inputs = mcpp_gate_report_input_error_count(g);
    if (n_inputs) mcpp_sb_printf(p->sb, "<p>%zu input%s not gated:</p><ul>\n", n_inputs, n_inputs == 1 ? "" : "s");
    for (size_t k = 0; k < n_inputs; k++) {
        mcpp_sb_printf(p->sb, "<li>%s <code>", mcpp_gate_report_input_error_skipped(g, k) ? "skipped" : "error");
        mcpp_sb_html(p->sb, mcpp_gate_report_input_error_path(g, k));
        mcpp_sb_puts(p->sb, "</code>: ");
        mcpp_sb_html(p->sb, mcpp_gate_report_input_error_message(g, k));
        mcpp_sb_puts(p->sb, "</li>\n");
    }
    if (n_inputs) mcpp_sb_puts(p->sb, "</ul>\n");
    mcpp_sb_puts(p->sb, "<div class=\"scroll\"><table><thead><tr><th>candidate</th><th>lane</th><th>outcome</th>"
                        "<th>change</th><th>baselines</th><th>why</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < mcpp_gate_report_count(g); i++) {
        mcpp_sb_puts(p->sb, "<tr><td><code>");
        mcpp_sb_html(p->sb, mcpp_gate_report_candidate_id(g, i));
        mcpp_sb_puts(p->sb, "</code></td><td>");
        mcpp_sb_html(p->sb, mcpp_gate_report_entry_lane_display_label(g, i));
        mcpp_sb_printf(p->sb, "</td><td>%s</td><td>",
                       mcpp_gate_outcome_name((mcpp_gate_outcome)mcpp_gate_report_entry_outcome(g, i)));
        put_gate_change(p, mcpp_gate_report_entry_metric(g, i));
        mcpp_sb_printf(p->sb, "</td><td class=\"num\">%zu</td><td>", mcpp_gate_report_entry_baseline_count(g, i));
        put_gate_why(p, g, i);
        mcpp_sb_puts(p->sb, "</td></tr>\n");
    }
    mcpp_sb_puts(p->sb, "</tbody></table></div></section>\n");
}

static void put_headline_cell(const page *p, size_t lane)
{
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    if (mcpp_frontier_lane_headline(&h, p->f, lane) != MCPP_OK) {
        mcpp_sb_puts(p->sb, "<td class=\"muted\">no value</td>");
        return;
    }
    char interval[160];
    mcpp_report_format_interval(interval, sizeof interval, &h);
    mcpp_sb_printf(p->sb, "<td class=\"num\">%s<br><span class=\"muted\">%.0f%%, n=%zu %s</span></td>", interval,
                   h.confidence * 100, h.n, h.from_steps ? "steps" : (h.n == 1 ? "run" : "runs"));
}

static void put_reasons(const page *p, size_t lane, const char *sep)
{
    for (size_t r = 0; r < mcpp_frontier_lane_reason_count(p->f, lane); r++) {
        if (r)
            mcpp_sb_puts(p->sb, sep);
        mcpp_sb_html(p->sb, mcpp_frontier_lane_reason(p->f, lane, r));
    }
}

/* The first `limit` adjacent lanes listed, then "+N more": a link to the
 * lane's details when the limit cut the list, plain text for the lanes the
 * frontier counts but does not list. */
static void put_adjacent(const page *p, size_t lane, const char *sep, size_t limit)
{
    size_t n = mcpp_frontier_lane_adjacent_count(p->f, lane), total = mcpp_frontier_lane_adjacent_total(p->f, lane);
    for (size_t a = 0; a < n; a++) {
        size_t o = mcpp_frontier_lane_adjacent_index(p->f, lane, a);
        if (a)
            mcpp_sb_puts(p->sb, sep);
        if (a == limit) {
            mcpp_sb_printf(p->sb, "<a href=\"#%s\">+%zu more</a>", mcpp_frontier_lane_short_key(p->f, lane),
                           total - a);
            return;
        }
        put_lane_link(p, o, 0);
        mcpp_sb_printf(p->sb, " <span class=\"%s\">%s</span>, differs in ", status_word(p, o), status_word(p, o));
        mcpp_sb_html(p->sb, mcpp_frontier_lane_adjacent_dimensions(p->f, lane, a));
    }
    if (total > n)
        mcpp_sb_printf(p->sb, "%s+%zu more adjacent lanes", n ? sep : "", total - n);
}

static void put_lane_table(const page *p)
{
    mcpp_sb_puts(p->sb, "<section id=\"frontier\"><h2>Frontier</h2>\n<div class=\"scroll\"><table id=\"lane-table\">"
                        "<thead><tr><th>lane</th><th>status</th><th>headline [interval]</th><th>receipts</th>"
                        "<th>reasons / blocker</th><th>adjacent</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < p->n_lanes; i++) {
        size_t lane = p->order[i];
        mcpp_sb_puts(p->sb, "<tr><td>");
        put_lane_link(p, lane, 1);
        mcpp_sb_puts(p->sb, "</td><td>");
        put_badge(p, lane);
        mcpp_sb_puts(p->sb, "</td>");
        put_headline_cell(p, lane);
        mcpp_sb_printf(p->sb, "<td class=\"num\">%zu</td><td>", mcpp_frontier_lane_receipt_count(p->f, lane));
        if (mcpp_frontier_lane_status(p->f, lane) == MCPP_LANE_STABLE)
            mcpp_sb_puts(p->sb, "<span class=\"muted\">this number belongs to this lane only</span>");
        put_reasons(p, lane, "; ");
        if (mcpp_frontier_lane_blocker(p->f, lane)) {
            mcpp_sb_puts(p->sb, "<br><strong>blocker:</strong> ");
            mcpp_sb_html(p->sb, mcpp_frontier_lane_blocker(p->f, lane));
        }
        mcpp_sb_puts(p->sb, "</td><td>");
        put_adjacent(p, lane, "<br>", ADJACENT_IN_TABLE);
        mcpp_sb_puts(p->sb, "</td></tr>\n");
    }
    mcpp_sb_puts(p->sb, "</tbody></table></div></section>\n");
}

static void put_plot(const page *p)
{
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    int have = 0;
    for (size_t i = 0; i < p->n_lanes && !have; i++)
        have = mcpp_frontier_lane_headline(&h, p->f, p->order[i]) == MCPP_OK;
    mcpp_sb_puts(p->sb, "<section id=\"plot\"><h2>Headline");
    if (have) {
        mcpp_sb_puts(p->sb, ": <code>");
        mcpp_sb_html(p->sb, h.metric);
        mcpp_sb_printf(p->sb, "</code> (%s is better)", h.higher_is_better ? "higher" : "lower");
    }
    mcpp_sb_puts(p->sb, "</h2>\n<p class=\"muted\">Median per lane (dot: filled stable, hollow unstable) and the "
                        "distribution-free interval for the median (bar).</p>\n");
    mcpp_html_forest_plot(p->sb, p->f, p->order, p->n_lanes);
    mcpp_sb_puts(p->sb, "</section>\n");
}

static void put_string_list(mcpp_strbuf *sb, const mcpp_receipt *r, const char *path)
{
    mcpp_value v = MCPP_VALUE_INIT;
    if (mcpp_value_at_path(r, path, &v) != MCPP_OK || v.type != MCPP_TYPE_STRING_LIST || v.count == 0) {
        mcpp_sb_puts(sb, "<span class=\"muted\">none</span>");
        return;
    }
    mcpp_sb_puts(sb, "<ul>");
    for (size_t i = 0; i < v.count; i++) {
        mcpp_sb_puts(sb, "<li>");
        mcpp_sb_html(sb, v.strings[i]);
        mcpp_sb_puts(sb, "</li>");
    }
    mcpp_sb_puts(sb, "</ul>");
}

/* The text of a scalar field ("–" when absent). */
static void put_field(mcpp_strbuf *sb, const mcpp_receipt *r, const char *path)
{
    mcpp_value v = MCPP_VALUE_INIT;
    char num[48];
    if (!path || mcpp_value_at_path(r, path, &v) != MCPP_OK || v.type == MCPP_TYPE_ABSENT) {
        mcpp_sb_puts(sb, "–");
    } else if (v.type == MCPP_TYPE_STRING || v.type == MCPP_TYPE_ENUM) {
        mcpp_sb_html(sb, v.string);
    } else if (v.type == MCPP_TYPE_INT || v.type == MCPP_TYPE_DOUBLE) {
        mcpp_report_format_number(num, sizeof num, v.type == MCPP_TYPE_INT ? (double)v.integer : v.number);
        mcpp_sb_puts(sb, num);
    } else {
        mcpp_sb_puts(sb, "–");
    }
}

/* The value of the lane's headline metric in one receipt: the metric's name
 * ("tokens_per_s", "time_to_train_s") is looked up among the receipt's metrics,
 * not read as a schema path; "–" when the receipt does not state it. */
static void put_metric_value(mcpp_strbuf *sb, const mcpp_receipt *r, const char *metric)
{
    mcpp_metric m;
    char num[48];
    if (!metric || mcpp_receipt_metric_find(&m, r, metric) != MCPP_OK) {
        mcpp_error_clear();
        mcpp_sb_puts(sb, "–");
        return;
    }
    mcpp_report_format_number(num, sizeof num, m.value);
    mcpp_sb_puts(sb, num);
    if (m.unit && *m.unit) {
        mcpp_sb_putc(sb, ' ');
        mcpp_sb_html(sb, m.unit);
    }
}

/* A receipt's id in <code> after `before`, and the receipt when the report was given it. */
static const mcpp_receipt *put_receipt_id(const page *p, const char *before, const char *id)
{
    mcpp_sb_puts(p->sb, before);
    mcpp_sb_html(p->sb, id);
    mcpp_sb_puts(p->sb, "</code>");
    return p->by_id ? receipt_with_id(p, id) : NULL;
}

/* The runs excluded from the lane's headline and status, each with why. */
static void put_excluded(const page *p, size_t lane)
{
    size_t n = mcpp_frontier_lane_excluded_count(p->f, lane);
    if (!n)
        return;
    mcpp_sb_printf(p->sb, "<p>Excluded from this lane's headline and status (%zu run%s):</p><ul class=\"excluded\">\n",
                   n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && i < RECEIPTS_SHOWN; i++) {
        const mcpp_receipt *r = put_receipt_id(p, "<li><code>", mcpp_frontier_lane_excluded_id(p->f, lane, i));
        if (r && mcpp_receipt_source_name(r)) {
            mcpp_sb_puts(p->sb, " (");
            mcpp_sb_html(p->sb, mcpp_receipt_source_name(r));
            mcpp_sb_puts(p->sb, ")");
        }
        mcpp_sb_puts(p->sb, ": ");
        mcpp_sb_html(p->sb, mcpp_frontier_lane_excluded_reason(p->f, lane, i));
        mcpp_sb_puts(p->sb, "</li>\n");
    }
    if (n > RECEIPTS_SHOWN)
        mcpp_sb_printf(p->sb, "<li class=\"muted\">… and %zu more</li>\n", n - RECEIPTS_SHOWN);
    mcpp_sb_puts(p->sb, "</ul>\n");
}

static void put_receipts(const page *p, size_t lane, const char *metric)
{
    size_t n = mcpp_frontier_lane_receipt_count(p->f, lane);
    mcpp_sb_puts(p->sb, "<div class=\"scroll\"><table class=\"receipts\"><thead><tr><th>receipt</th><th>file</th>"
                        "<th>outcome</th><th>stability claimed</th><th>headline value</th><th>caveats</th></tr>"
                        "</thead><tbody>\n");
    for (size_t i = 0; i < n && i < RECEIPTS_SHOWN; i++) {
        const mcpp_receipt *r = put_receipt_id(p, "<tr><td><code>", mcpp_frontier_lane_receipt_id(p->f, lane, i));
        mcpp_sb_puts(p->sb, "</td>");
        if (!r) {
            mcpp_sb_puts(p->sb, "<td colspan=\"5\" class=\"muted\">receipt not given to the report</td></tr>\n");
            continue;
        }
        mcpp_sb_puts(p->sb, "<td>");
        mcpp_sb_html(p->sb, mcpp_receipt_source_name(r) ? mcpp_receipt_source_name(r) : "(built in memory)");
        mcpp_sb_puts(p->sb, "</td><td>");
        put_field(p->sb, r, "status.outcome");
        mcpp_sb_puts(p->sb, "</td><td>");
        put_field(p->sb, r, "status.stability");
        mcpp_sb_puts(p->sb, "</td><td class=\"num\">");
        put_metric_value(p->sb, r, metric);
        mcpp_sb_puts(p->sb, "</td><td>");
        put_string_list(p->sb, r, "status.caveats");
        mcpp_sb_puts(p->sb, "</td></tr>\n");
    }
    if (n > RECEIPTS_SHOWN)
        mcpp_sb_printf(p->sb, "<tr><td colspan=\"6\" class=\"muted\">… and %zu more</td></tr>\n", n - RECEIPTS_SHOWN);
    mcpp_sb_puts(p->sb, "</tbody></table></div>\n");
}

/* A lane of the frontier, for the accessors of pooled_words.h. */
typedef struct lane_at {
    const mcpp_frontier *f;
    size_t lane;
} lane_at;
static const char *lane_receipt_id(const void *ctx, size_t i)
{
    const lane_at *l = ctx;
    return mcpp_frontier_lane_receipt_id(l->f, l->lane, i);
}
static const char *lane_excluded_id(const void *ctx, size_t i)
{
    const lane_at *l = ctx;
    return mcpp_frontier_lane_excluded_id(l->f, l->lane, i);
}
static const char *lane_excluded_reason(const void *ctx, size_t i)
{
    const lane_at *l = ctx;
    return mcpp_frontier_lane_excluded_reason(l->f, l->lane, i);
}

static void put_lane(const page *p, size_t lane)
{
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    int have = mcpp_frontier_lane_headline(&h, p->f, lane) == MCPP_OK;
    mcpp_sb_printf(p->sb, "<details class=\"lane\" id=\"%s\"%s><summary><h3 style=\"display:inline\">",
                   mcpp_frontier_lane_short_key(p->f, lane), p->n_lanes <= OPEN_DETAILS_UP_TO ? " open" : "");
    mcpp_sb_html(p->sb, mcpp_frontier_lane_display_label(p->f, lane));
    mcpp_sb_puts(p->sb, "</h3> ");
    put_badge(p, lane);
    mcpp_sb_printf(p->sb, " <code>%s</code></summary>\n<p>key <code>", mcpp_frontier_lane_short_key(p->f, lane));
    mcpp_sb_html(p->sb, mcpp_frontier_lane_key(p->f, lane));
    mcpp_sb_puts(p->sb, "</code></p>\n");
    if (mcpp_frontier_lane_status(p->f, lane) == MCPP_LANE_STABLE)
        mcpp_sb_puts(p->sb, "<p class=\"stable\">This number belongs to this lane only.</p>\n");
    mcpp_pooled_words words = {mcpp_frontier_lane_receipt_count(p->f, lane),
                               mcpp_frontier_lane_excluded_count(p->f, lane),
                               mcpp_frontier_lane_receipt_count(p->f, lane),
                               mcpp_frontier_lane_excluded_count(p->f, lane),
                               &(lane_at){p->f, lane},
                               lane_receipt_id,
                               lane_excluded_id,
                               lane_excluded_reason,
                               NULL};
    mcpp_sb_puts(p->sb, "<p class=\"pooled\">Its headline ");
    mcpp_sb_pooled_words(p->sb, &words, mcpp_sb_html, RECEIPTS_SHOWN);
    mcpp_sb_puts(p->sb, ".</p>\n");
    if (mcpp_frontier_lane_reason_count(p->f, lane)) {
        mcpp_sb_puts(p->sb, "<p>Reasons:</p><ul><li>");
        put_reasons(p, lane, "</li><li>");
        mcpp_sb_puts(p->sb, "</li></ul>\n");
    }
    if (mcpp_frontier_lane_blocker(p->f, lane)) {
        mcpp_sb_puts(p->sb, "<p><strong>Next blocker:</strong> ");
        mcpp_sb_html(p->sb, mcpp_frontier_lane_blocker(p->f, lane));
        mcpp_sb_puts(p->sb, "</p>\n");
    }
    if (mcpp_frontier_lane_adjacent_count(p->f, lane)) {
        mcpp_sb_puts(p->sb, "<p>Adjacent lanes:</p><ul><li>");
        put_adjacent(p, lane, "</li><li>", (size_t)-1);
        mcpp_sb_puts(p->sb, "</li></ul>\n");
    }
    put_receipts(p, lane, have ? h.metric : NULL);
    put_excluded(p, lane);
    mcpp_sb_puts(p->sb, "</details>\n");
}

static void put_page(const page *p)
{
    mcpp_html_page_begin(p->sb, p->o->title ? p->o->title : "Receipts report");
    put_summary(p);
    put_skipped(p);
    put_gate(p);
    put_plot(p);
    put_lane_table(p);
    if (p->o->history)
        mcpp_history_html_section(p->sb, p->o->history);
    mcpp_sb_puts(p->sb, "<section id=\"lanes\"><h2>Lanes and their receipts</h2>\n");
    for (size_t i = 0; i < p->n_lanes; i++)
        put_lane(p, p->order[i]);
    mcpp_sb_puts(p->sb, "</section>\n");
    mcpp_html_page_end(p->sb);
}

int mcpp_frontier_render_html(char **out, const mcpp_frontier *frontier, const mcpp_html_report_options *options)
{
    MCPP_CHECK_ARG(out && frontier, "mcpp_frontier_render_html: NULL argument");
    *out = NULL;
    static const mcpp_html_report_options defaults = MCPP_HTML_REPORT_OPTIONS_INIT;
    const mcpp_html_report_options *o = options ? options : &defaults;
    if (mcpp_struct_version_check(o->version, MCPP_HTML_REPORT_OPTIONS_VERSION, "mcpp_html_report_options") != MCPP_OK)
        return MCPP_EARG;
    MCPP_CHECK_ARG(o->receipts || !o->n_receipts, "mcpp_frontier_render_html: receipts is NULL, n_receipts %zu",
                   o->n_receipts);
    MCPP_CHECK_ARG(o->skipped || !o->n_skipped, "mcpp_frontier_render_html: skipped is NULL, n_skipped %zu",
                   o->n_skipped);
    page p = {NULL, frontier, o, NULL, NULL, mcpp_frontier_lane_count(frontier)};
    p.order = malloc((p.n_lanes ? p.n_lanes : 1) * sizeof *p.order);
    if (o->n_receipts)
        p.by_id = malloc(o->n_receipts * sizeof *p.by_id);
    if (!p.order || (o->n_receipts && !p.by_id)) {
        free(p.order);
        free(p.by_id);
        return mcpp_error_nomem();
    }
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < p.n_lanes; i++)
            if ((mcpp_frontier_lane_status(frontier, i) == MCPP_LANE_STABLE) == (pass == 0))
                p.order[k++] = i;
    if (o->n_receipts) {
        memcpy(p.by_id, o->receipts, o->n_receipts * sizeof *p.by_id);
        qsort(p.by_id, o->n_receipts, sizeof *p.by_id, compare_ids);
    }
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, 16384 + p.n_lanes * 4096);
    p.sb = &sb;
    put_page(&p);
    free(p.order);
    free(p.by_id);
    return mcpp_sb_finish(&sb, out);
}
