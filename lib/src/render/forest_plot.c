/*
 * forest_plot.c — the inline-SVG forest plot of lane headlines (forest_plot.h).
 *
 * Fixed geometry in a viewBox that scales with the page: display labels (cut
 * to 44 characters, then the short key, which stays whole) on the left,
 * the shared axis in the middle, the numbers on the right, one 24-unit row per
 * lane, so 20 or 200 lanes stay readable (the page scrolls, rows never
 * shrink). Stable lanes draw a filled dot, unstable ones a hollow one, so the
 * status does not rest on colour alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "render/forest_plot.h"
#include "render/html.h"
#include "render/report_format.h"

enum { WIDTH = 1080, LABEL_RIGHT = 452, PLOT_LEFT = 466, PLOT_RIGHT = 860, VALUE_LEFT = 874 };
enum { ROW = 24, TOP = 8, AXIS = 40, LABEL_CHARS = 44 };
/* The widest a 12px character draws (capitals, 'm', '='), in viewBox units: a
 * label that could be wider than the room left of the axis is fitted into it
 * (textLength), so its start is never clipped at the left edge. */
enum { CHAR_WIDTH_MAX = 8, LABEL_ROOM = LABEL_RIGHT - 6 };

/* UTF-8 characters of `s`, at most `cap`. */
static size_t chars_of(const char *s, size_t cap)
{
    size_t n = 0;
    for (; *s && n < cap; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

typedef struct axis {
    double lo, hi, step;
} axis;

static int plottable(const mcpp_lane_headline *h)
{
    return isfinite(h->median) && isfinite(h->interval_low) && isfinite(h->interval_high);
}

double mcpp_plot_nice_step(double range)
{
    double mag = pow(10.0, floor(log10(range / 6.0)));
    static const double MULTIPLES[] = {1.0, 2.0, 5.0, 10.0, 20.0};
    for (size_t i = 0; i < sizeof MULTIPLES / sizeof MULTIPLES[0]; i++)
        if (range / (mag * MULTIPLES[i]) <= 5.0)
            return mag * MULTIPLES[i];
    return mag * 50.0;
}

static axis axis_for(const mcpp_lane_headline *heads, size_t n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        lo = fmin(lo, fmin(heads[i].interval_low, heads[i].median));
        hi = fmax(hi, fmax(heads[i].interval_high, heads[i].median));
    }
    double pad = hi > lo ? (hi - lo) * 0.04 : (lo != 0.0 ? fabs(lo) * 0.05 : 1.0);
    axis a = {lo - pad, hi + pad, 0.0};
    a.step = mcpp_plot_nice_step(a.hi - a.lo);
    a.lo = floor(a.lo / a.step) * a.step;
    a.hi = ceil(a.hi / a.step) * a.step;
    return a;
}

static double x_of(const axis *a, double v)
{
    return PLOT_LEFT + (v - a->lo) / (a->hi - a->lo) * (PLOT_RIGHT - PLOT_LEFT);
}

static void put_axis(mcpp_strbuf *sb, const axis *a, int plot_bottom)
{
    char num[48];
    for (double v = a->lo; v <= a->hi + a->step * 0.5; v += a->step) {
        double x = x_of(a, v);
        mcpp_sb_printf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, TOP, x,
                       plot_bottom);
        mcpp_report_format_number(num, sizeof num, fabs(v) < a->step * 1e-9 ? 0.0 : v);
        mcpp_sb_printf(sb, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x,
                       plot_bottom + 16, num);
    }
}

static void put_row(mcpp_strbuf *sb, const mcpp_frontier *f, size_t lane, const mcpp_lane_headline *h,
                    const axis *a, size_t row)
{
    int stable = mcpp_frontier_lane_status(f, lane) == MCPP_LANE_STABLE;
    int y = TOP + (int)row * ROW, mid = y + ROW / 2;
    char interval[160];
    mcpp_report_format_interval(interval, sizeof interval, h);
    mcpp_sb_printf(sb, "<g class=\"row %s\"><title>", stable ? "stable" : "unstable");
    mcpp_sb_html(sb, mcpp_frontier_lane_display_label(f, lane));
    mcpp_sb_printf(sb, " (%s, %s): %s</title>", mcpp_frontier_lane_short_key(f, lane),
                   stable ? "stable" : "unstable", interval);
    if (row % 2)
        mcpp_sb_printf(sb, "<rect class=\"band\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>", y, WIDTH, ROW);
    const char *label = mcpp_frontier_lane_display_label(f, lane), *short_key = mcpp_frontier_lane_short_key(f, lane);
    size_t chars = chars_of(label, LABEL_CHARS + 1) + 1 + chars_of(short_key, 64);
    mcpp_sb_printf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"", LABEL_RIGHT, mid + 4);
    if (chars * CHAR_WIDTH_MAX > LABEL_ROOM)
        mcpp_sb_printf(sb, " textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\"", LABEL_ROOM);
    mcpp_sb_putc(sb, '>');
    mcpp_sb_html_cut(sb, mcpp_frontier_lane_display_label(f, lane), LABEL_CHARS);
    mcpp_sb_printf(sb, " <tspan class=\"axis\">%s</tspan></text>", mcpp_frontier_lane_short_key(f, lane));
    mcpp_sb_printf(sb, "<line class=\"ci\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
                   x_of(a, h->interval_low), mid, x_of(a, h->interval_high), mid);
    mcpp_sb_printf(sb, "<circle cx=\"%.1f\" cy=\"%d\" r=\"5\"/>", x_of(a, h->median), mid);
    mcpp_sb_printf(sb, "<text x=\"%d\" y=\"%d\">%s</text></g>\n", VALUE_LEFT, mid + 4, interval);
}

/* Lanes without a plottable headline, named under the plot. */
static void put_missing(mcpp_strbuf *sb, const mcpp_frontier *f, const size_t *order, size_t n)
{
    size_t missing = 0;
    for (size_t i = 0; i < n; i++) {
        mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
        if (mcpp_frontier_lane_headline(&h, f, order[i]) == MCPP_OK && plottable(&h))
            continue;
        mcpp_sb_puts(sb, missing++ ? ", " : "<p class=\"muted\">No headline value (not plotted): ");
        mcpp_sb_html(sb, mcpp_frontier_lane_display_label(f, order[i]));
        mcpp_sb_printf(sb, " (<a href=\"#%s\">%s</a>)", mcpp_frontier_lane_short_key(f, order[i]),
                       mcpp_frontier_lane_short_key(f, order[i]));
    }
    if (missing)
        mcpp_sb_puts(sb, "</p>\n");
}

void mcpp_html_forest_plot(mcpp_strbuf *sb, const mcpp_frontier *f, const size_t *order, size_t n)
{
    mcpp_lane_headline *heads = calloc(n ? n : 1, sizeof *heads);
    size_t *lanes = calloc(n ? n : 1, sizeof *lanes);
    size_t rows = 0;
    for (size_t i = 0; heads && lanes && i < n; i++) {
        mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
        if (mcpp_frontier_lane_headline(&h, f, order[i]) == MCPP_OK && plottable(&h)) {
            lanes[rows] = order[i];
            heads[rows++] = h;
        }
    }
    if (!heads || !lanes) {
        sb->failed = 1;
    } else if (rows == 0) {
        mcpp_sb_puts(sb, "<p class=\"muted\" id=\"forest-plot\">No lane has a value of the headline metric.</p>\n");
    } else {
        axis a = axis_for(heads, rows);
        int plot_bottom = TOP + (int)rows * ROW;
        mcpp_sb_printf(sb, "<div class=\"scroll\"><svg class=\"plot\" id=\"forest-plot\" role=\"img\" "
                           "viewBox=\"0 0 %d %d\" aria-label=\"",
                       WIDTH, plot_bottom + AXIS);
        mcpp_sb_html(sb, heads[0].metric);
        mcpp_sb_puts(sb, ": median and interval per lane\">\n");
        put_axis(sb, &a, plot_bottom);
        for (size_t r = 0; r < rows; r++)
            put_row(sb, f, lanes[r], &heads[r], &a, r);
        mcpp_sb_puts(sb, "</svg></div>\n");
    }
    put_missing(sb, f, order, n);
    free(heads);
    free(lanes);
}
