/*
 * compare_render.c — the one renderer of a comparison (text, JSON, markdown)
 * that the CLI and the bindings share. JSON keys are documented in compare.h.
 */
#include <string.h>

#include "analysis/compare_internal.h"
#include "analysis/metric_change.h"
#include "render/render.h"
#include "util/error_internal.h"
#include "util/escape.h"

static size_t width_of(const char *s, size_t cap)
{
    size_t n = s ? strlen(s) : 0;
    return n > cap ? cap : n;
}

static void pad(mcpp_strbuf *b, const char *s, size_t width)
{
    size_t n = s ? strlen(s) : 0;
    if (s) mcpp_sb_puts(b, s);
    for (; n < width; n++) mcpp_sb_putc(b, ' ');
    mcpp_sb_puts(b, "  ");
}

/* A value cell. Matching rows say the same thing on both sides, so a long
 * value is shortened there to keep the table aligned; rows that differ are
 * printed in full, since the difference is the point (JSON always has all). */
static void cell(mcpp_strbuf *b, const char *s, size_t width, int shorten)
{
    size_t n = s ? strlen(s) : 0;
    if (shorten && n > width && width > 3) {
        mcpp_sb_put(b, s, width - 3);
        mcpp_sb_puts(b, "...  ");
        return;
    }
    pad(b, s, width);
}

/* The row strings as they will be shown (terminal-escaped), so widths are
 * measured on what is printed. */
static const char *row_text(mcpp_strbuf *scratch, mcpp_strbuf *b, const mcpp_comparison *c, size_t i, int column)
{
    const char *s = column == 0 ? mcpp_comparison_row_dimension(c, i)
                  : column == 1 ? mcpp_comparison_row_base(c, i)
                  : column == 2 ? mcpp_comparison_row_cand(c, i)
                                : mcpp_comparison_row_reason(c, i);
    return mcpp_terminal_scratch(scratch, s, b);
}

/* Which two receipts were compared under which policy, in one output's words:
 * the words before the base id, the candidate id and the policy name (each
 * escaped by the output's `escape`), then the digest as `digest_format` puts it. */
static void pair_and_policy(mcpp_strbuf *b, const mcpp_comparison *c, const char *const words[3],
                            void (*escape)(mcpp_strbuf *, const char *), const char *digest_format)
{
    const char *values[3] = {mcpp_comparison_base_id(c), mcpp_comparison_cand_id(c), mcpp_comparison_policy_name(c)};
    for (int k = 0; k < 3; k++) {
        mcpp_sb_puts(b, words[k]);
        escape(b, values[k]);
    }
    mcpp_sb_printf(b, digest_format, mcpp_comparison_policy_digest(c));
}

static void render_text(mcpp_strbuf *b, const void *object)
{
    const mcpp_comparison *c = object;
    size_t n = mcpp_comparison_row_count(c);
    size_t wd = strlen("dimension"), ws = strlen("status"), wb = strlen("base"), wc = strlen("cand");
    mcpp_strbuf t;
    mcpp_sb_init(&t, NULL, 0);
    for (size_t i = 0; i < n; i++) {
        size_t w;
        if ((w = width_of(row_text(&t, b, c, i, 0), 24)) > wd) wd = w;
        if ((w = width_of(mcpp_dim_status_name(mcpp_comparison_row_status(c, i)), 12)) > ws) ws = w;
        if ((w = width_of(row_text(&t, b, c, i, 1), 36)) > wb) wb = w;
        if ((w = width_of(row_text(&t, b, c, i, 2), 36)) > wc) wc = w;
    }
    static const char *const WORDS[3] = {"base       ", "\ncandidate  ", "\npolicy     "};
    pair_and_policy(b, c, WORDS, mcpp_sb_terminal, " (digest %s)");
    mcpp_sb_printf(b, "\nverdict    %s\n\n", mcpp_verdict_name(mcpp_comparison_verdict(c)));
    pad(b, "dimension", wd);
    pad(b, "status", ws);
    pad(b, "base", wb);
    pad(b, "cand", wc);
    mcpp_sb_puts(b, "reason\n");
    for (size_t i = 0; i < n; i++) {
        pad(b, row_text(&t, b, c, i, 0), wd);
        pad(b, mcpp_dim_status_name(mcpp_comparison_row_status(c, i)), ws);
        int shorten = mcpp_comparison_row_status(c, i) == MCPP_DIM_MATCH;
        cell(b, row_text(&t, b, c, i, 1), wb, shorten);
        cell(b, row_text(&t, b, c, i, 2), wc, shorten);
        mcpp_sb_puts(b, row_text(&t, b, c, i, 3));
        mcpp_sb_putc(b, '\n');
    }
    mcpp_sb_free(&t);
    mcpp_sb_putc(b, '\n');
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    if (m) {
        mcpp_metric_render_text(b, m, "");
        mcpp_sb_putc(b, '\n');
    }
    size_t nm = mcpp_comparison_gate_metric_count(c);
    if (nm > 1) { /* a multi-metric gate: each metric, then the pair's outcome */
        for (size_t k = 0; k < nm; k++) {
            mcpp_sb_puts(b, "gate metric ");
            mcpp_sb_terminal(b, mcpp_comparison_gate_metric_name(c, k));
            mcpp_sb_printf(b, ": %s: ", mcpp_comparison_gate_metric_skipped(c, k)
                                            ? "skipped"
                                            : mcpp_gate_outcome_name(mcpp_comparison_gate_metric_outcome(c, k)));
            mcpp_sb_terminal(b, mcpp_comparison_gate_metric_reason(c, k));
            mcpp_sb_putc(b, '\n');
        }
        mcpp_sb_printf(b, "gate       %s (%zu metrics)\n", mcpp_gate_outcome_name(mcpp_comparison_gate(c)), nm);
        return;
    }
    mcpp_sb_printf(b, "gate       %s: ", mcpp_gate_outcome_name(mcpp_comparison_gate(c)));
    mcpp_sb_terminal(b, mcpp_comparison_gate_reason(c));
    mcpp_sb_putc(b, '\n');
}

static void render_json(mcpp_strbuf *b, const void *object)
{
    const mcpp_comparison *c = object;
    mcpp_sb_json_key_string(b, "{\"schema\": \"mcpp.compare/1\", \"base\": ", mcpp_comparison_base_id(c));
    mcpp_sb_json_key_string(b, ", \"cand\": ", mcpp_comparison_cand_id(c));
    mcpp_sb_json_key_string(b, ", \"policy\": ", mcpp_comparison_policy_name(c));
    mcpp_sb_printf(b, ", \"policy_digest\": \"%s\"", mcpp_comparison_policy_digest(c));
    mcpp_sb_printf(b, ", \"verdict\": \"%s\", \"dimensions\": [", mcpp_verdict_name(mcpp_comparison_verdict(c)));
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++) {
        mcpp_sb_puts(b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
        mcpp_sb_json_string(b, mcpp_comparison_row_dimension(c, i));
        mcpp_sb_printf(b, ", \"role\": \"%s\", \"status\": \"%s\", \"base\": ",
                           mcpp_role_name((mcpp_role)mcpp_comparison_row_role(c, i)),
                           mcpp_dim_status_name(mcpp_comparison_row_status(c, i)));
        mcpp_sb_json_string(b, mcpp_comparison_row_base(c, i));
        mcpp_sb_json_key_string(b, ", \"cand\": ", mcpp_comparison_row_cand(c, i));
        mcpp_sb_json_key_string(b, ", \"reason\": ", mcpp_comparison_row_reason(c, i));
        mcpp_sb_putc(b, '}');
    }
    mcpp_sb_puts(b, "],\n\"metric\": ");
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    if (m) mcpp_metric_render_json(b, m);
    else mcpp_sb_puts(b, "null");
    mcpp_sb_printf(b, ",\n\"gate\": {\"outcome\": \"%s\", \"reason\": ",
                       mcpp_gate_outcome_name(mcpp_comparison_gate(c)));
    mcpp_sb_json_string(b, mcpp_comparison_gate_reason(c));
    /* every gate metric, one object each (a single-metric gate lists one) */
    mcpp_sb_puts(b, ", \"metrics\": [");
    for (size_t k = 0; k < mcpp_comparison_gate_metric_count(c); k++) {
        mcpp_sb_puts(b, k ? ", {\"name\": " : "{\"name\": ");
        mcpp_sb_json_string(b, mcpp_comparison_gate_metric_name(c, k));
        mcpp_sb_printf(b, ", \"outcome\": \"%s\", \"skipped\": %s, \"reason\": ",
                       mcpp_gate_outcome_name(mcpp_comparison_gate_metric_outcome(c, k)),
                       mcpp_comparison_gate_metric_skipped(c, k) ? "true" : "false");
        mcpp_sb_json_string(b, mcpp_comparison_gate_metric_reason(c, k));
        mcpp_sb_puts(b, ", \"result\": ");
        const mcpp_metric_result *r = mcpp_comparison_gate_metric_result(c, k);
        if (r) mcpp_metric_render_json(b, r);
        else mcpp_sb_puts(b, "null");
        mcpp_sb_putc(b, '}');
    }
    mcpp_sb_puts(b, "]}}\n");
}

/* GitHub refuses comments over 65,536 characters; like the gate's markdown,
 * a comparison keeps a margin for what a CI script adds around it. */
#define COMPARE_MARKDOWN_BUDGET 60000
/* Over the budget, values are cut to this many characters (JSON has them whole). */
#define COMPARE_MARKDOWN_CELL_CHARS 200

/* A markdown cell: `s` escaped, cut to max_chars characters (0: whole) with "…". */
static void markdown_cell(mcpp_strbuf *b, const char *s, size_t max_chars)
{
    size_t chars = 0, end = 0;
    for (; max_chars && s && s[end]; end++) {
        if (((unsigned char)s[end] & 0xC0) == 0x80) continue; /* inside a UTF-8 character */
        if (chars++ == max_chars) break;
    }
    if (!max_chars || !s || !s[end]) {
        mcpp_sb_markdown(b, s);
        return;
    }
    mcpp_strbuf head;
    mcpp_sb_init_heap(&head, end + 1);
    mcpp_sb_put(&head, s, end);
    if (head.failed) b->failed = 1;
    else mcpp_sb_markdown(b, head.data);
    mcpp_sb_free(&head);
    mcpp_sb_puts(b, "\xE2\x80\xA6");
}

static void markdown_row(mcpp_strbuf *b, const mcpp_comparison *c, size_t i, size_t max_chars)
{
    int st = mcpp_comparison_row_status(c, i);
    mcpp_sb_puts(b, "| ");
    markdown_cell(b, mcpp_comparison_row_dimension(c, i), max_chars);
    mcpp_sb_printf(b, " | %s%s%s | ", st == MCPP_DIM_MATCH ? "" : "**", mcpp_dim_status_name(st),
                   st == MCPP_DIM_MATCH ? "" : "**");
    markdown_cell(b, mcpp_comparison_row_base(c, i), max_chars);
    mcpp_sb_puts(b, " | ");
    markdown_cell(b, mcpp_comparison_row_cand(c, i), max_chars);
    mcpp_sb_puts(b, " | ");
    markdown_cell(b, mcpp_comparison_row_reason(c, i), max_chars);
    mcpp_sb_puts(b, " |\n");
}

/* Markdown rows of the comparison: all of them, or only those that differ
 * (status other than match), values cut to max_chars (0: whole), while the
 * text stays under `limit` characters (each row is written aside first).
 * Returns how many were written; *left_out counts the rows that did not fit. */
static size_t markdown_rows(mcpp_strbuf *b, const mcpp_comparison *c, int differences_only, size_t max_chars,
                            size_t limit, size_t *left_out)
{
    size_t written = 0;
    mcpp_strbuf row;
    mcpp_sb_init_heap(&row, 256);
    *left_out = 0;
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++) {
        if (differences_only && mcpp_comparison_row_status(c, i) == MCPP_DIM_MATCH) continue;
        if (!written && !*left_out) mcpp_sb_puts(b, "| dimension | status | base | cand | reason |\n|---|---|---|---|---|\n");
        row.len = 0;
        markdown_row(&row, c, i, max_chars);
        if (row.failed || b->len + row.len >= limit) {
            (*left_out)++;
            continue;
        }
        mcpp_sb_put(b, row.data, row.len);
        written++;
    }
    mcpp_sb_free(&row);
    if (*left_out)
        mcpp_sb_printf(b, "\n… and %zu more row%s not shown (the JSON output has every one).\n", *left_out,
                       *left_out == 1 ? "" : "s");
    return written;
}

/* The metric line in the words of metric_change.h. */
static void markdown_metric(mcpp_strbuf *b, const mcpp_metric_result *m)
{
    mcpp_sb_puts(b, "\n**");
    mcpp_sb_markdown(b, m->metric);
    mcpp_sb_printf(b, "** (%s): base %.6g (n=%zu), candidate %.6g (n=%zu), **",
                       m->higher_is_better ? "higher is better" : "lower is better", m->base_median, m->n_base,
                       m->cand_median, m->n_cand);
    mcpp_sb_change_words(b, mcpp_metric_improvement(m->rel_delta, m->higher_is_better));
    mcpp_sb_puts(b, "**");
    if (m->point_comparison) {
        mcpp_sb_puts(b, " (point comparison, no interval)");
    } else {
        mcpp_sb_printf(b, ", %.0f%% interval ", m->confidence * 100);
        mcpp_sb_interval_words(b, m);
    }
    mcpp_sb_printf(b, ", noise floor %.2f%%\n", m->noise_floor * 100);
}

/* Differences first (a reviewer's question), the whole table folded below.
 * max_chars 0: values whole; else cut, and the reader is told so. Returns
 * how many rows did not fit. */
static size_t put_markdown(mcpp_strbuf *b, const mcpp_comparison *c, size_t max_chars)
{
    size_t start = b->len, left_out = 0, more = 0;
    mcpp_sb_printf(b, "### Receipt comparison: **%s**\n\n", mcpp_verdict_name(mcpp_comparison_verdict(c)));
    static const char *const WORDS[3] = {"base ", " → candidate ", " · policy "};
    pair_and_policy(b, c, WORDS, mcpp_sb_markdown, " (digest `%s`)\n\n");
    if (max_chars)
        mcpp_sb_printf(b, "Values longer than %zu characters are cut here (the JSON output has them whole).\n\n",
                       max_chars);
    if (!markdown_rows(b, c, 1, max_chars, start + COMPARE_MARKDOWN_BUDGET / 2, &left_out) && !left_out)
        mcpp_sb_puts(b, "Every dimension matches.\n");
    mcpp_sb_printf(b, "\n<details><summary>All %zu dimensions</summary>\n\n", mcpp_comparison_row_count(c));
    markdown_rows(b, c, 0, max_chars, start + COMPARE_MARKDOWN_BUDGET - 4000, &more);
    mcpp_sb_puts(b, "\n</details>\n");
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    if (m) markdown_metric(b, m);
    mcpp_sb_printf(b, "\n**Gate: %s** — ", mcpp_gate_outcome_name(mcpp_comparison_gate(c)));
    markdown_cell(b, mcpp_comparison_gate_reason(c), max_chars ? 4 * max_chars : 0);
    mcpp_sb_putc(b, '\n');
    size_t nm = mcpp_comparison_gate_metric_count(c);
    for (size_t k = 0; nm > 1 && k < nm; k++) {
        mcpp_sb_puts(b, k ? "- " : "\n- ");
        markdown_cell(b, mcpp_comparison_gate_metric_name(c, k), 0);
        mcpp_sb_printf(b, ": **%s** — ", mcpp_comparison_gate_metric_skipped(c, k)
                                             ? "skipped"
                                             : mcpp_gate_outcome_name(mcpp_comparison_gate_metric_outcome(c, k)));
        markdown_cell(b, mcpp_comparison_gate_metric_reason(c, k), max_chars ? 4 * max_chars : 0);
        mcpp_sb_putc(b, '\n');
    }
    return left_out + more;
}

/* Whole when it fits a GitHub comment; else again with long values cut and
 * the rows that still do not fit counted. */
static void render_markdown(mcpp_strbuf *b, const void *object)
{
    size_t start = b->len;
    size_t left_out = put_markdown(b, object, 0);
    if (b->failed || (!left_out && b->len - start <= COMPARE_MARKDOWN_BUDGET)) return;
    b->len = start;
    b->data[start] = '\0';
    put_markdown(b, object, COMPARE_MARKDOWN_CELL_CHARS);
}

int mcpp_comparison_render(char **out, const mcpp_comparison *comparison, mcpp_output_format format)
{
    MCPP_CHECK_ARG(out, "mcpp_comparison_render: NULL argument");
    *out = NULL;
    MCPP_CHECK_ARG(comparison, "mcpp_comparison_render: NULL argument");
    int rc = mcpp_comparison_explain(comparison); /* the rows are made when first read */
    if (rc != MCPP_OK) return rc;
    static const mcpp_renderer renderer = {render_text, render_json, render_markdown, 4096, "mcpp_comparison_render"};
    return mcpp_render(out, comparison, format, &renderer);
}
