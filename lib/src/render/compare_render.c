/*
 * compare_render.c — the one renderer of a comparison (text, JSON, markdown)
 * that the CLI and the bindings share. JSON keys are documented in compare.h.
 */
#include <string.h>

#include "analysis/compare_internal.h"
#include "util/error_internal.h"

static size_t width_of(const char *s, size_t cap)
{
    size_t n = s ? strlen(s) : 0;
    return n > cap ? cap : n;
}

static void pad(mcpp_textbuf *b, const char *s, size_t width)
{
    size_t n = s ? strlen(s) : 0;
    if (s) mcpp_textbuf_puts(b, s);
    for (; n < width; n++) mcpp_textbuf_putc(b, ' ');
    mcpp_textbuf_puts(b, "  ");
}

/* A value cell. Matching rows say the same thing on both sides, so a long
 * value is shortened there to keep the table aligned; rows that differ are
 * printed in full, since the difference is the point (JSON always has all). */
static void cell(mcpp_textbuf *b, const char *s, size_t width, int shorten)
{
    size_t n = s ? strlen(s) : 0;
    if (shorten && n > width && width > 3) {
        mcpp_textbuf_append(b, s, width - 3);
        mcpp_textbuf_puts(b, "...  ");
        return;
    }
    pad(b, s, width);
}

static void render_text(mcpp_textbuf *b, const mcpp_comparison *c)
{
    size_t n = mcpp_comparison_row_count(c);
    size_t wd = strlen("dimension"), ws = strlen("status"), wb = strlen("base"), wc = strlen("cand");
    for (size_t i = 0; i < n; i++) {
        size_t w;
        if ((w = width_of(mcpp_comparison_row_dimension(c, i), 24)) > wd) wd = w;
        if ((w = width_of(mcpp_dim_status_name(mcpp_comparison_row_status(c, i)), 12)) > ws) ws = w;
        if ((w = width_of(mcpp_comparison_row_base(c, i), 36)) > wb) wb = w;
        if ((w = width_of(mcpp_comparison_row_cand(c, i), 36)) > wc) wc = w;
    }
    mcpp_textbuf_printf(b, "base       %s\ncandidate  %s\nverdict    %s\n\n", mcpp_comparison_base_id(c),
                       mcpp_comparison_cand_id(c), mcpp_verdict_name(mcpp_comparison_verdict(c)));
    pad(b, "dimension", wd);
    pad(b, "status", ws);
    pad(b, "base", wb);
    pad(b, "cand", wc);
    mcpp_textbuf_puts(b, "reason\n");
    for (size_t i = 0; i < n; i++) {
        pad(b, mcpp_comparison_row_dimension(c, i), wd);
        pad(b, mcpp_dim_status_name(mcpp_comparison_row_status(c, i)), ws);
        int shorten = mcpp_comparison_row_status(c, i) == MCPP_DIM_MATCH;
        cell(b, mcpp_comparison_row_base(c, i), wb, shorten);
        cell(b, mcpp_comparison_row_cand(c, i), wc, shorten);
        mcpp_textbuf_puts(b, mcpp_comparison_row_reason(c, i));
        mcpp_textbuf_putc(b, '\n');
    }
    mcpp_textbuf_putc(b, '\n');
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    if (m) {
        mcpp_metric_render_text(b, m, "");
        mcpp_textbuf_putc(b, '\n');
    }
    mcpp_textbuf_printf(b, "gate       %s: %s\n", mcpp_gate_outcome_name(mcpp_comparison_gate(c)),
                       mcpp_comparison_gate_reason(c));
}

static void render_json(mcpp_textbuf *b, const mcpp_comparison *c)
{
    mcpp_textbuf_puts(b, "{\"schema\": \"mcpp.compare/1\", \"base\": ");
    mcpp_textbuf_json_string(b, mcpp_comparison_base_id(c));
    mcpp_textbuf_puts(b, ", \"cand\": ");
    mcpp_textbuf_json_string(b, mcpp_comparison_cand_id(c));
    mcpp_textbuf_printf(b, ", \"verdict\": \"%s\", \"dimensions\": [", mcpp_verdict_name(mcpp_comparison_verdict(c)));
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++) {
        mcpp_textbuf_puts(b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
        mcpp_textbuf_json_string(b, mcpp_comparison_row_dimension(c, i));
        mcpp_textbuf_printf(b, ", \"role\": \"%s\", \"status\": \"%s\", \"base\": ",
                           mcpp_role_name((mcpp_role)mcpp_comparison_row_role(c, i)),
                           mcpp_dim_status_name(mcpp_comparison_row_status(c, i)));
        mcpp_textbuf_json_string(b, mcpp_comparison_row_base(c, i));
        mcpp_textbuf_puts(b, ", \"cand\": ");
        mcpp_textbuf_json_string(b, mcpp_comparison_row_cand(c, i));
        mcpp_textbuf_puts(b, ", \"reason\": ");
        mcpp_textbuf_json_string(b, mcpp_comparison_row_reason(c, i));
        mcpp_textbuf_putc(b, '}');
    }
    mcpp_textbuf_puts(b, "],\n\"metric\": ");
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    if (m) mcpp_metric_render_json(b, m);
    else mcpp_textbuf_puts(b, "null");
    mcpp_textbuf_printf(b, ",\n\"gate\": {\"outcome\": \"%s\", \"reason\": ",
                       mcpp_gate_outcome_name(mcpp_comparison_gate(c)));
    mcpp_textbuf_json_string(b, mcpp_comparison_gate_reason(c));
    mcpp_textbuf_puts(b, "}}\n");
}

static void render_markdown(mcpp_textbuf *b, const mcpp_comparison *c)
{
    mcpp_textbuf_printf(b, "### Receipt comparison: **%s**\n\n", mcpp_verdict_name(mcpp_comparison_verdict(c)));
    mcpp_textbuf_puts(b, "base `");
    mcpp_textbuf_md_cell(b, mcpp_comparison_base_id(c));
    mcpp_textbuf_puts(b, "` → candidate `");
    mcpp_textbuf_md_cell(b, mcpp_comparison_cand_id(c));
    mcpp_textbuf_puts(b, "`\n\n| dimension | status | base | cand | reason |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++) {
        int st = mcpp_comparison_row_status(c, i);
        mcpp_textbuf_puts(b, "| ");
        mcpp_textbuf_md_cell(b, mcpp_comparison_row_dimension(c, i));
        mcpp_textbuf_printf(b, " | %s%s%s | ", st == MCPP_DIM_MATCH ? "" : "**",
                           mcpp_dim_status_name(st), st == MCPP_DIM_MATCH ? "" : "**");
        mcpp_textbuf_md_cell(b, mcpp_comparison_row_base(c, i));
        mcpp_textbuf_puts(b, " | ");
        mcpp_textbuf_md_cell(b, mcpp_comparison_row_cand(c, i));
        mcpp_textbuf_puts(b, " | ");
        mcpp_textbuf_md_cell(b, mcpp_comparison_row_reason(c, i));
        mcpp_textbuf_puts(b, " |\n");
    }
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    if (m) {
        mcpp_textbuf_printf(b, "\n**%s** (%s): base %.6g (n=%zu), candidate %.6g (n=%zu), delta **%+.2f%%**", m->metric,
                           m->higher_is_better ? "higher is better" : "lower is better", m->base_median, m->n_base,
                           m->cand_median, m->n_cand, m->rel_delta * 100);
        if (m->point_comparison) mcpp_textbuf_puts(b, " (point comparison, no interval)");
        else
            mcpp_textbuf_printf(b, ", %.0f%% interval [%+.2f%%, %+.2f%%]", m->confidence * 100, m->interval_low * 100,
                               m->interval_high * 100);
        mcpp_textbuf_printf(b, ", noise floor %.2f%%\n", m->noise_floor * 100);
    }
    mcpp_textbuf_printf(b, "\n**Gate: %s** — ", mcpp_gate_outcome_name(mcpp_comparison_gate(c)));
    mcpp_textbuf_md_cell(b, mcpp_comparison_gate_reason(c));
    mcpp_textbuf_putc(b, '\n');
}

int mcpp_comparison_render(char **out, const mcpp_comparison *comparison, mcpp_output_format format)
{
    if (!out || !comparison)
        return mcpp_error_set(MCPP_EARG, "argument", NULL, NULL, 0, 0, "mcpp_comparison_render: NULL argument");
    *out = NULL;
    mcpp_textbuf b;
    mcpp_textbuf_init(&b, 4096);
    switch (format) {
    case MCPP_OUTPUT_TEXT: render_text(&b, comparison); break;
    case MCPP_OUTPUT_JSON: render_json(&b, comparison); break;
    case MCPP_OUTPUT_MARKDOWN: render_markdown(&b, comparison); break;
    default:
        mcpp_textbuf_free(&b);
        return mcpp_error_set(MCPP_EARG, "argument", NULL, NULL, 0, 0, "unknown output format %d", (int)format);
    }
    return mcpp_textbuf_finish(&b, out);
}
