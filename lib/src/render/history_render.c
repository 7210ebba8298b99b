/*
 * history_render.c — a lane history as JSON, text and markdown: the runs in
 * time order and, for each change point, the commits on either side and the
 * medians of the segments it separates. The history itself is built and
 * read in store/ (history.c, history_access.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/c_locale.h"
#include "util/error_internal.h"
#include "util/escape.h"
#include "store/store_internal.h"
#include "store/history_internal.h"
#include "render/pooled_words.h"

static const char METHOD[] =
    "binary segmentation on ln(value): a split is kept when its squared-error gain over sigma^2 exceeds "
    "penalty * ln(n) moved to a Student t quantile (sigma^2: the larger of the MAD of successive "
    "differences and the segment's residual variance) and the medians on either side differ by at least "
    "min_rel_change";

static size_t segment_of(const history_lane *l, size_t run)
{
    size_t s = 0;
    while (s < l->n_changes && l->changes[s] <= run) s++;
    return s;
}

static void json_number(mcpp_strbuf *b, double d)
{
    char num[40];
    mcpp_format_double(num, sizeof num, d, 0);
    mcpp_sb_puts(b, num);
}

static const char *run_id(const void *ctx, size_t i) { return ((const history_lane *)ctx)->runs[i].id; }
static const char *aside_id(const void *ctx, size_t i) { return ((const history_lane *)ctx)->aside[i].id; }
static const char *aside_reason(const void *ctx, size_t i) { return ((const history_lane *)ctx)->aside[i].reason; }

/* The runs are listed beside it, so only the runs set aside are named. */
static void lane_words(mcpp_pooled_words *w, const history_lane *l)
{
    *w = (mcpp_pooled_words){l->n_runs, l->n_aside, 0, l->n_aside, l, run_id, aside_id, aside_reason, NULL};
}

void mcpp_history_pooled_words(mcpp_strbuf *b, const history_lane *l, void (*escape)(mcpp_strbuf *, const char *))
{
    mcpp_pooled_words w;
    lane_words(&w, l);
    mcpp_sb_pooled_words(b, &w, escape, HISTORY_ASIDE_SHOWN);
}

static void render_json_lane(mcpp_strbuf *b, const history_lane *l)
{
    mcpp_sb_json_key_string(b, "{\"key\": ", l->key);
    mcpp_sb_printf(b, ", \"short_key\": \"%s\", \"label\": ", l->short_key);
    mcpp_sb_json_string(b, l->label);
    mcpp_sb_json_key_string(b, ", \"metric\": ", l->metric_name);
    mcpp_sb_puts(b, ", \"runs\": [");
    for (size_t i = 0; i < l->n_runs; i++) {
        const history_run *r = &l->runs[i];
        mcpp_sb_puts(b, i ? ", {\"id\": " : "{\"id\": ");
        mcpp_sb_json_string(b, r->id);
        mcpp_sb_json_key_string(b, ", \"created_at\": ", r->created_at);
        mcpp_sb_json_key_string(b, ", \"git_commit\": ", r->git_commit);
        mcpp_sb_puts(b, ", \"value\": ");
        json_number(b, r->value);
        mcpp_sb_printf(b, ", \"segment\": %zu}", segment_of(l, i));
    }
    mcpp_sb_puts(b, "], \"set_aside\": ");
    mcpp_pooled_words words;
    lane_words(&words, l);
    mcpp_sb_pooled_aside_json(b, &words);
    mcpp_sb_puts(b, ", \"changes\": [");
    for (size_t c = 0; c < l->n_changes; c++) {
        mcpp_history_change_view v = mcpp_history_change_at(l, c);
        mcpp_sb_printf(b, "%s{\"run\": %zu, \"id\": ", c ? ", " : "", v.run);
        mcpp_sb_json_string(b, v.after->id);
        mcpp_sb_json_key_string(b, ", \"created_at\": ", v.after->created_at);
        mcpp_sb_json_key_string(b, ", \"before_commit\": ", v.before->git_commit);
        mcpp_sb_json_key_string(b, ", \"after_commit\": ", v.after->git_commit);
        mcpp_sb_puts(b, ", \"before_median\": ");
        json_number(b, v.before_median);
        mcpp_sb_puts(b, ", \"after_median\": ");
        json_number(b, v.after_median);
        mcpp_sb_puts(b, ", \"rel_change\": ");
        json_number(b, v.rel_change);
        mcpp_sb_puts(b, "}");
    }
    mcpp_sb_puts(b, "]}");
}

static void render_json(mcpp_strbuf *b, const mcpp_history *h)
{
    mcpp_sb_json_key_string(b, "{\"schema\": \"mcpp.history/1\", \"metric\": ", h->metric);
    mcpp_sb_json_key_string(b, ", \"method\": ", METHOD);
    mcpp_sb_puts(b, ", \"settings\": {\"penalty_per_log_n\": ");
    json_number(b, h->settings.penalty_per_log_n);
    mcpp_sb_puts(b, ", \"min_rel_change\": ");
    json_number(b, h->settings.min_rel_change);
    mcpp_sb_printf(b, ", \"min_segment\": %zu}, \"lanes\": [", h->settings.min_segment);
    for (size_t i = 0; i < h->n_lanes; i++) {
        if (i) mcpp_sb_puts(b, ", ");
        render_json_lane(b, &h->lanes[i]);
    }
    mcpp_sb_puts(b, "]}\n");
}

/* A string from a receipt, escaped for the markup; NULL shows as "-". */
static void put_field(mcpp_strbuf *b, const char *s, int md)
{
    if (!s) mcpp_sb_putc(b, '-');
    else if (md) mcpp_sb_markdown(b, s);
    else mcpp_sb_terminal(b, s);
}

/* put_field padded (text) to `width` columns or cut (text) at `cut` bytes. */
static void put_column(mcpp_strbuf *b, mcpp_strbuf *t, const char *s, int width, int cut, int md)
{
    if (md) {
        put_field(b, s, 1);
        return;
    }
    const char *shown = s ? mcpp_terminal_scratch(t, s, b) : "-";
    mcpp_sb_printf(b, "%-*.*s", width, cut ? cut : (int)strlen(shown), shown);
}

static void render_run_row(mcpp_strbuf *b, mcpp_strbuf *t, const history_run *r, int starts, int md)
{
    char num[40]; /* six significant digits, as the frontier prints medians; JSON keeps every digit */
    mcpp_snprintf_c(num, sizeof num, "%.6g", r->value);
    mcpp_sb_printf(b, md ? "| %s | " : "  %s ", starts ? "▲" : " ");
    put_column(b, t, r->created_at, 22, 0, md);
    mcpp_sb_puts(b, md ? " | " : " ");
    put_column(b, t, r->git_commit, 12, 12, md);
    mcpp_sb_printf(b, md ? " | %s | " : " %14s  ", num);
    put_field(b, r->id, md);
    mcpp_sb_puts(b, md ? " |\n" : "\n");
}

static void render_lane_readable(mcpp_strbuf *b, const history_lane *l, const char *metric, int md)
{
    mcpp_strbuf t;
    mcpp_sb_init(&t, NULL, 0);
    mcpp_sb_printf(b, md ? "### %s " : "lane %s  ", l->short_key);
    put_field(b, l->label, md);
    mcpp_sb_printf(b, md ? "\n\n%zu run%s of " : "\n  %zu run%s of ", l->n_runs, l->n_runs == 1 ? "" : "s");
    char what[256];
    put_field(b, mcpp_history_lane_metric(what, sizeof what, l, metric), md);
    mcpp_sb_printf(b, ", %zu change point%s\n%s", l->n_changes, l->n_changes == 1 ? "" : "s", md ? "\n" : "");
    mcpp_sb_puts(b, md ? "Its series " : "  its series ");
    mcpp_history_pooled_words(b, l, md ? mcpp_sb_markdown : mcpp_sb_terminal);
    mcpp_sb_puts(b, md ? "\n\n" : "\n");
    if (md) mcpp_sb_puts(b, "| | created_at | git_commit | value | id |\n|---|---|---|---:|---|\n");
    for (size_t i = 0; i < l->n_runs; i++)
        render_run_row(b, &t, &l->runs[i], segment_of(l, i) != (i ? segment_of(l, i - 1) : 0), md);
    if (md) mcpp_sb_puts(b, "\n");
    for (size_t c = 0; c < l->n_changes; c++) {
        mcpp_history_change_view v = mcpp_history_change_at(l, c);
        mcpp_sb_printf(b, md ? "- change at run %zu (" : "  change at run %zu (", v.run);
        put_field(b, v.after->id, md);
        mcpp_sb_puts(b, md ? "): " : "): commit ");
        put_field(b, v.before->git_commit, md);
        mcpp_sb_puts(b, md ? " → " : " -> ");
        put_field(b, v.after->git_commit, md);
        mcpp_sb_printf(b, md ? ", median %.6g → %.6g (%+.1f%%)\n" : ", median %.6g -> %.6g (%+.1f%%)\n",
                       v.before_median, v.after_median, 100.0 * v.rel_change);
    }
    if (!l->n_changes) mcpp_sb_puts(b, md ? "- no change point beyond noise\n" : "  no change point beyond noise\n");
    mcpp_sb_puts(b, "\n");
    mcpp_sb_free(&t);
}

int mcpp_history_render(char **out, const mcpp_history *h, mcpp_output_format format)
{
    if (!out || !h) return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_history_render: NULL argument");
    *out = NULL;
    mcpp_strbuf b;
    mcpp_sb_init(&b, NULL, 0);
    if (format == MCPP_OUTPUT_JSON) {
        render_json(&b, h);
    } else {
        int md = format == MCPP_OUTPUT_MARKDOWN;
        if (md) {
            mcpp_sb_puts(&b, "## Lane history of ");
            mcpp_sb_markdown(&b, h->metric);
            mcpp_sb_puts(&b, "\n\n");
        }
        if (!h->n_lanes) mcpp_sb_puts(&b, "no stored lane matches\n");
        for (size_t i = 0; i < h->n_lanes; i++) render_lane_readable(&b, &h->lanes[i], h->metric, md);
        if (md) mcpp_sb_printf(&b, "Method: %s.\n", METHOD);
    }
    return mcpp_store_take_text(out, &b);
}
