/*
 * history_html.c — the lane-history section of the HTML report
 * (history_html.h). One plot per lane: runs in created_at order, equally
 * spaced left to right (the order is what a change point refers to; dates
 * are printed under the ends), the metric on a linear axis, each segment's
 * median as a dashed line and each change point as a vertical line labelled
 * with its relative change. A table under the plot names the commits on either
 * side. Very long lanes plot every k-th run (said under the plot); change
 * points are always placed at their exact run.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/forest_plot.h"
#include "render/html.h"
#include "render/report_format.h"
#include "render/history_html.h"
#include "render/pooled_words.h"
#include "store/history_internal.h"

enum { WIDTH = 1080, LEFT = 86, RIGHT = 1060, TOP = 26, HEIGHT = 150, BOTTOM_AXIS = 40 };
enum { HISTORY_LANES_SHOWN = 64, POINTS_SHOWN = 1500 };

typedef struct frame {
    size_t n;            /* runs */
    double lo, hi, step; /* value axis */
} frame;

static double x_of(const frame *f, double run)
{
    return f->n < 2 ? (LEFT + RIGHT) / 2.0 : LEFT + 10 + run * (RIGHT - LEFT - 20) / (double)(f->n - 1);
}

static double y_of(const frame *f, double v)
{
    return TOP + HEIGHT - (v - f->lo) / (f->hi - f->lo) * HEIGHT;
}

static frame frame_for(const history_lane *l)
{
    frame f = {l->n_runs, INFINITY, -INFINITY, 1.0};
    for (size_t i = 0; i < l->n_runs; i++) {
        f.lo = fmin(f.lo, l->runs[i].value);
        f.hi = fmax(f.hi, l->runs[i].value);
    }
    double pad = f.hi > f.lo ? (f.hi - f.lo) * 0.08 : (f.lo != 0.0 ? fabs(f.lo) * 0.02 : 1.0);
    f.step = mcpp_plot_nice_step(f.hi - f.lo + 2 * pad);
    f.lo = floor((f.lo - pad) / f.step) * f.step;
    f.hi = ceil((f.hi + pad) / f.step) * f.step;
    return f;
}

static void put_value_axis(mcpp_strbuf *sb, const frame *f)
{
    char num[48];
    for (double v = f->lo; v <= f->hi + f->step * 0.5; v += f->step) {
        double y = y_of(f, v);
        mcpp_sb_printf(sb, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", LEFT, y, RIGHT, y);
        mcpp_report_format_number(num, sizeof num, fabs(v) < f->step * 1e-9 ? 0.0 : v);
        mcpp_sb_printf(sb, "<text class=\"axis\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT - 6, y + 4,
                       num);
    }
}

/* The dates of the first and last run under the plot. */
static void put_time_axis(mcpp_strbuf *sb, const history_lane *l, const frame *f)
{
    int y = TOP + HEIGHT + 18;
    const char *first = l->runs[0].created_at, *last = l->runs[l->n_runs - 1].created_at;
    mcpp_sb_printf(sb, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"start\">", x_of(f, 0), y);
    mcpp_sb_html(sb, first ? first : "no date");
    mcpp_sb_puts(sb, "</text>");
    if (l->n_runs > 1) {
        mcpp_sb_printf(sb, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"end\">", x_of(f, (double)(l->n_runs - 1)), y);
        mcpp_sb_html(sb, last ? last : "no date");
        mcpp_sb_puts(sb, "</text>");
    }
    mcpp_sb_printf(sb, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%zu run%s in created_at order</text>\n",
                   (LEFT + RIGHT) / 2, y + 16, l->n_runs, l->n_runs == 1 ? "" : "s");
}

/* The runs as a line and dots, each dot titled with its run; with
 * `link_runs` each dot is a link to the run's row (id "run-N") on its page. */
static void put_runs(mcpp_strbuf *sb, const history_lane *l, const frame *f, size_t stride, int link_runs)
{
    char num[48];
    mcpp_sb_puts(sb, "<polyline class=\"hline\" points=\"");
    for (size_t i = 0; i < l->n_runs; i++)
        if (i % stride == 0 || i + 1 == l->n_runs)
            mcpp_sb_printf(sb, "%.1f,%.1f ", x_of(f, (double)i), y_of(f, l->runs[i].value));
    mcpp_sb_puts(sb, "\"/>\n");
    for (size_t i = 0; i < l->n_runs; i++) {
        if (i % stride && i + 1 != l->n_runs) continue;
        const history_run *r = &l->runs[i];
        mcpp_report_format_number(num, sizeof num, r->value);
        if (link_runs)
            mcpp_sb_printf(sb, "<a href=\"#run-%zu\">", i);
        mcpp_sb_printf(sb, "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>", x_of(f, (double)i),
                       y_of(f, r->value));
        mcpp_sb_html(sb, r->id);
        mcpp_sb_puts(sb, " ");
        mcpp_sb_html(sb, r->created_at ? r->created_at : "(no date)");
        mcpp_sb_puts(sb, " commit ");
        mcpp_sb_html(sb, r->git_commit ? r->git_commit : "(none)");
        mcpp_sb_printf(sb, ": %s</title></circle>%s\n", num, link_runs ? "</a>" : "");
    }
}

/* Segment medians (dashed) and the change points (vertical, labelled). */
static void put_changes(mcpp_strbuf *sb, const history_lane *l, const frame *f)
{
    for (size_t c = 0; c < l->n_changes; c++) {
        mcpp_history_change_view v = mcpp_history_change_at(l, c);
        size_t start = c ? l->changes[c - 1] : 0, end = c + 1 < l->n_changes ? l->changes[c + 1] : l->n_runs;
        mcpp_sb_printf(sb, "<line class=\"seg\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x_of(f, (double)start),
                       y_of(f, v.before_median), x_of(f, (double)(v.run - 1)), y_of(f, v.before_median));
        if (c + 1 == l->n_changes)
            mcpp_sb_printf(sb, "<line class=\"seg\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x_of(f, (double)v.run),
                           y_of(f, v.after_median), x_of(f, (double)(end - 1)), y_of(f, v.after_median));
        double x = x_of(f, (double)v.run - 0.5);
        mcpp_sb_printf(sb, "<g class=\"change\"><title>change point at run %zu: ", v.run);
        mcpp_sb_html(sb, v.before->git_commit ? v.before->git_commit : "(no commit)");
        mcpp_sb_puts(sb, " \xE2\x86\x92 ");
        mcpp_sb_html(sb, v.after->git_commit ? v.after->git_commit : "(no commit)");
        mcpp_sb_printf(sb, "</title><line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, TOP - 4, x,
                       TOP + HEIGHT);
        mcpp_sb_printf(sb, "<text class=\"change\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%+.1f%%</text></g>\n", x,
                       TOP - 8, v.rel_change * 100.0);
    }
}

static void put_commit_cell(mcpp_strbuf *sb, const char *commit)
{
    mcpp_sb_puts(sb, "<td><code>");
    if (commit) mcpp_sb_html(sb, commit);
    else mcpp_sb_puts(sb, "none");
    mcpp_sb_puts(sb, "</code></td>");
}

static void put_change_table(mcpp_strbuf *sb, const history_lane *l)
{
    if (!l->n_changes) {
        mcpp_sb_puts(sb, "<p class=\"muted\">No change point beyond noise.</p>\n");
        return;
    }
    mcpp_sb_puts(sb, "<div class=\"scroll\"><table class=\"changes\"><thead><tr><th>first run after</th>"
                     "<th>created_at</th><th>commit before</th><th>commit after</th><th>median before</th>"
                     "<th>median after</th><th>change</th></tr></thead><tbody>\n");
    char before[48], after[48];
    for (size_t c = 0; c < l->n_changes; c++) {
        mcpp_history_change_view v = mcpp_history_change_at(l, c);
        mcpp_report_format_number(before, sizeof before, v.before_median);
        mcpp_report_format_number(after, sizeof after, v.after_median);
        mcpp_sb_puts(sb, "<tr><td><code>");
        mcpp_sb_html(sb, v.after->id);
        mcpp_sb_puts(sb, "</code></td><td>");
        mcpp_sb_html(sb, v.after->created_at ? v.after->created_at : "–");
        mcpp_sb_puts(sb, "</td>");
        put_commit_cell(sb, v.before->git_commit);
        put_commit_cell(sb, v.after->git_commit);
        mcpp_sb_printf(sb, "<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%+.2f%%</td></tr>\n",
                       before, after, v.rel_change * 100.0);
    }
    mcpp_sb_puts(sb, "</tbody></table></div>\n");
}

static void put_lane(mcpp_strbuf *sb, const history_lane *l, const char *metric, int link_runs)
{
    mcpp_sb_printf(sb, "<div class=\"history-lane\" id=\"history-%s\"><h3>", l->short_key);
    mcpp_sb_html(sb, l->label ? l->label : "(no label)");
    mcpp_sb_printf(sb, " <code>%s</code></h3>\n", l->short_key);
    mcpp_sb_puts(sb, "<p class=\"pooled\">Its series ");
    mcpp_history_pooled_words(sb, l, mcpp_sb_html);
    mcpp_sb_puts(sb, ".</p>\n");
    if (!l->n_runs) {
        mcpp_sb_puts(sb, "<p class=\"muted\">No run of this lane states <code>");
        mcpp_sb_html(sb, metric);
        mcpp_sb_puts(sb, "</code>.</p></div>\n");
        return;
    }
    frame f = frame_for(l);
    size_t stride = (l->n_runs + POINTS_SHOWN - 1) / POINTS_SHOWN;
    mcpp_sb_printf(sb, "<div class=\"scroll\"><svg class=\"plot history-plot\" role=\"img\" viewBox=\"0 0 %d %d\" "
                       "aria-label=\"",
                   WIDTH, TOP + HEIGHT + BOTTOM_AXIS);
    char what[256];
    mcpp_sb_html(sb, mcpp_history_lane_metric(what, sizeof what, l, metric));
    mcpp_sb_printf(sb, " over %zu runs, %zu change point%s\">\n", l->n_runs, l->n_changes, l->n_changes == 1 ? "" : "s");
    put_value_axis(sb, &f);
    put_time_axis(sb, l, &f);
    put_changes(sb, l, &f);
    put_runs(sb, l, &f, stride, link_runs);
    mcpp_sb_puts(sb, "</svg></div>\n");
    if (stride > 1)
        mcpp_sb_printf(sb, "<p class=\"muted\">Every %zu%s run plotted (%zu runs); change points at their exact run.</p>\n",
                       stride, stride == 2 ? "nd" : stride == 3 ? "rd" : "th", l->n_runs);
    put_change_table(sb, l);
    mcpp_sb_puts(sb, "</div>\n");
}

void mcpp_history_html_section(mcpp_strbuf *sb, const mcpp_history *h)
{
    mcpp_sb_puts(sb, "<section id=\"history\"><h2>History: <code>");
    mcpp_sb_html(sb, h->metric);
    mcpp_sb_puts(sb, "</code></h2>\n<p class=\"muted\">Each lane's runs in created_at order (dots, line), the "
                     "median of each segment (dashed) and the change points (vertical lines, with the change of "
                     "the median): the first run after which the metric shifted beyond noise (binary "
                     "segmentation on ln(value) with a BIC-like penalty).</p>\n");
    if (!h->n_lanes) mcpp_sb_puts(sb, "<p class=\"muted\">No lane selected.</p>\n");
    for (size_t i = 0; i < h->n_lanes && i < HISTORY_LANES_SHOWN; i++)
        put_lane(sb, &h->lanes[i], h->metric, 0);
    if (h->n_lanes > HISTORY_LANES_SHOWN)
        mcpp_sb_printf(sb, "<p class=\"muted\">… and %zu more lanes (select one with --lane).</p>\n",
                       h->n_lanes - HISTORY_LANES_SHOWN);
    mcpp_sb_puts(sb, "</section>\n");
}

void mcpp_history_html_lane(mcpp_strbuf *sb, const mcpp_history *h, size_t lane, int link_runs)
{
    if (lane < h->n_lanes)
        put_lane(sb, &h->lanes[lane], h->metric, link_runs);
}
