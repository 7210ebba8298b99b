/*
 * frontier_render.c — the frontier report in text, JSON and markdown. JSON
 * keys are documented in frontier.h.
 */
#include <string.h>

#include "render/render.h"
#include "util/error_internal.h"
#include "util/escape.h"
#include "analysis/frontier_internal.h"

static void headline_text(mcpp_strbuf *b, const mcpp_lane_headline *h)
{
    mcpp_sb_terminal(b, h->metric);
    if (h->unit) {
        mcpp_sb_puts(b, " (");
        mcpp_sb_terminal(b, h->unit);
        mcpp_sb_putc(b, ')');
    }
    mcpp_sb_printf(b, " median %.6g [%.6g .. %.6g] (%.0f%% interval, n=%zu %s)", h->median,
                        h->interval_low, h->interval_high, h->confidence * 100, h->n,
                        h->from_steps ? "steps of one run" : (h->n == 1 ? "run" : "runs"));
}

static const char NO_KEY_WARNING[] =
    "the policy has no must-match dimension: every receipt pools into one lane, whatever it measured";

static size_t insufficient_count(const mcpp_frontier *f)
{
    size_t n = 0;
    for (size_t i = 0; i < mcpp_frontier_lane_count(f); i++)
        n += mcpp_frontier_lane_status(f, i) == MCPP_LANE_INSUFFICIENT;
    return n;
}

static const char *status_label(int st)
{
    return st == MCPP_LANE_STABLE ? "STABLE" : st == MCPP_LANE_INSUFFICIENT ? "INSUFFICIENT" : "UNSTABLE";
}

static void excluded_text(mcpp_strbuf *b, const mcpp_frontier *f, size_t lane)
{
    for (size_t r = 0; r < mcpp_frontier_lane_excluded_count(f, lane); r++) {
        mcpp_sb_printf(b, "  %s  ", r ? "        " : "excluded");
        mcpp_sb_terminal(b, mcpp_frontier_lane_excluded_id(f, lane, r));
        mcpp_sb_puts(b, ": ");
        mcpp_sb_terminal(b, mcpp_frontier_lane_excluded_reason(f, lane, r));
        mcpp_sb_putc(b, '\n');
    }
}

static void render_text(mcpp_strbuf *b, const void *object)
{
    const mcpp_frontier *f = object;
    size_t L = mcpp_frontier_lane_count(f), ins = insufficient_count(f);
    mcpp_sb_printf(b, "frontier: %zu lane%s (%zu stable, %zu unstable", L, L == 1 ? "" : "s",
                   mcpp_frontier_stable_count(f), L - mcpp_frontier_stable_count(f) - ins);
    if (ins) mcpp_sb_printf(b, ", %zu insufficient", ins);
    mcpp_sb_printf(b, ") from %zu receipt%s, policy ", mcpp_frontier_receipt_total(f),
                   mcpp_frontier_receipt_total(f) == 1 ? "" : "s");
    mcpp_sb_terminal(b, mcpp_frontier_policy_name(f));
    mcpp_sb_printf(b, " (digest %s)\n", mcpp_frontier_policy_digest(f));
    if (!mcpp_frontier_key_dim_count(f))
        mcpp_sb_printf(b, "WARNING: %s\n", NO_KEY_WARNING);
    if (mcpp_frontier_duplicate_count(f))
        mcpp_sb_printf(b, "%zu receipt%s skipped: same id already in the lane (the same run loaded twice)\n",
                            mcpp_frontier_duplicate_count(f), mcpp_frontier_duplicate_count(f) == 1 ? "" : "s");
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < L; i++) {
            int st = mcpp_frontier_lane_status(f, i);
            if ((pass == 0) != (st == MCPP_LANE_STABLE)) continue;
            mcpp_sb_printf(b, "\n%-8s  %s  ", status_label(st), mcpp_frontier_lane_short_key(f, i));
            mcpp_sb_terminal(b, mcpp_frontier_lane_display_label(f, i));
            mcpp_sb_putc(b, '\n');
            mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
            if (mcpp_frontier_lane_headline(&h, f, i) == MCPP_OK) {
                mcpp_sb_puts(b, "  headline  ");
                headline_text(b, &h);
                mcpp_sb_putc(b, '\n');
            }
            if (st == MCPP_LANE_STABLE) mcpp_sb_puts(b, "            this number belongs to this lane only\n");
            for (size_t r = 0; r < mcpp_frontier_lane_reason_count(f, i); r++) {
                mcpp_sb_printf(b, "  %s  ", r ? "        " : "reasons ");
                mcpp_sb_terminal(b, mcpp_frontier_lane_reason(f, i, r));
                mcpp_sb_putc(b, '\n');
            }
            if (mcpp_frontier_lane_blocker(f, i)) {
                mcpp_sb_puts(b, "  blocker   ");
                mcpp_sb_terminal(b, mcpp_frontier_lane_blocker(f, i));
                mcpp_sb_putc(b, '\n');
            }
            mcpp_sb_printf(b, "  receipts  %zu:", mcpp_frontier_lane_receipt_count(f, i));
            for (size_t r = 0; r < mcpp_frontier_lane_receipt_count(f, i); r++) {
                if (r == 8) {
                    mcpp_sb_printf(b, " ... (+%zu)", mcpp_frontier_lane_receipt_count(f, i) - 8);
                    break;
                }
                mcpp_sb_putc(b, ' ');
                mcpp_sb_terminal(b, mcpp_frontier_lane_receipt_id(f, i, r));
            }
            mcpp_sb_putc(b, '\n');
            excluded_text(b, f, i);
            for (size_t a = 0; a < mcpp_frontier_lane_adjacent_count(f, i); a++) {
                size_t o = mcpp_frontier_lane_adjacent_index(f, i, a);
                int ost = mcpp_frontier_lane_status(f, o);
                mcpp_sb_printf(b, "  %s  %s (%s, differs in ", a ? "        " : "adjacent",
                                    mcpp_frontier_lane_short_key(f, o), mcpp_lane_status_name((mcpp_lane_status)ost));
                mcpp_sb_terminal(b, mcpp_frontier_lane_adjacent_dimensions(f, i, a));
                mcpp_sb_putc(b, ')');
                if (ost != MCPP_LANE_STABLE) {
                    mcpp_sb_puts(b, ": blocker: ");
                    mcpp_sb_terminal(b, mcpp_frontier_lane_blocker(f, o));
                }
                mcpp_sb_putc(b, '\n');
            }
            size_t listed = mcpp_frontier_lane_adjacent_count(f, i), total = mcpp_frontier_lane_adjacent_total(f, i);
            if (total > listed)
                mcpp_sb_printf(b, "  %s  ... and %zu more adjacent lane%s\n", listed ? "        " : "adjacent",
                               total - listed, total - listed == 1 ? "" : "s");
            mcpp_sb_puts(b, "  key       ");
            mcpp_sb_terminal(b, mcpp_frontier_lane_key(f, i));
            mcpp_sb_putc(b, '\n');
        }
    }
}

/* The document up to and including the lanes array's "[". */
static void put_json_head(mcpp_strbuf *b, const mcpp_frontier *f)
{
    mcpp_sb_json_key_string(b, "{\"schema\": \"mcpp.frontier/1\", \"policy\": ", mcpp_frontier_policy_name(f));
    mcpp_sb_printf(b, ", \"policy_digest\": \"%s\"", mcpp_frontier_policy_digest(f));
    if (!mcpp_frontier_key_dim_count(f)) {
        mcpp_sb_json_key_string(b, ", \"warning\": ", NO_KEY_WARNING);
    }
    mcpp_sb_printf(b, ", \"receipts\": %zu, \"duplicates\": %zu, \"stable\": %zu, \"lanes\": [",
                        mcpp_frontier_receipt_total(f), mcpp_frontier_duplicate_count(f), mcpp_frontier_stable_count(f));
}

/* Lane i's object, as the lanes array holds it. */
static void put_lane_json(mcpp_strbuf *b, const void *object, size_t i)
{
    const mcpp_frontier *f = object;
    mcpp_sb_puts(b, "{\"key\": ");
    mcpp_sb_json_string(b, mcpp_frontier_lane_key(f, i));
    mcpp_sb_json_key_string(b, ", \"short_key\": ", mcpp_frontier_lane_short_key(f, i));
    mcpp_sb_json_key_string(b, ", \"label\": ", mcpp_frontier_lane_label(f, i));
    mcpp_sb_json_key_string(b, ", \"differences\": ", mcpp_frontier_lane_differences(f, i));
    mcpp_sb_json_key_string(b, ", \"display_label\": ", mcpp_frontier_lane_display_label(f, i));
    mcpp_sb_printf(b, ", \"status\": \"%s\", \"receipts\": [",
                   mcpp_lane_status_name((mcpp_lane_status)mcpp_frontier_lane_status(f, i)));
    for (size_t r = 0; r < mcpp_frontier_lane_receipt_count(f, i); r++) {
        if (r)
            mcpp_sb_puts(b, ", ");
        mcpp_sb_json_string(b, mcpp_frontier_lane_receipt_id(f, i, r));
    }
    mcpp_sb_puts(b, "], \"excluded\": [");
    for (size_t r = 0; r < mcpp_frontier_lane_excluded_count(f, i); r++) {
        mcpp_sb_puts(b, r ? ", {\"id\": " : "{\"id\": ");
        mcpp_sb_json_string(b, mcpp_frontier_lane_excluded_id(f, i, r));
        mcpp_sb_json_key_string(b, ", \"reason\": ", mcpp_frontier_lane_excluded_reason(f, i, r));
        mcpp_sb_putc(b, '}');
    }
    mcpp_sb_puts(b, "], \"headline\": ");
    mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
    if (mcpp_frontier_lane_headline(&h, f, i) == MCPP_OK) {
        mcpp_sb_json_key_string(b, "{\"metric\": ", h.metric);
        mcpp_sb_json_key_string(b, ", \"unit\": ", h.unit);
        mcpp_sb_printf(b, ", \"higher_is_better\": %s, \"median\": ", h.higher_is_better ? "true" : "false");
        mcpp_sb_json_number(b, h.median);
        mcpp_sb_puts(b, ", \"interval\": [");
        mcpp_sb_json_number(b, h.interval_low);
        mcpp_sb_puts(b, ", ");
        mcpp_sb_json_number(b, h.interval_high);
        mcpp_sb_json_key_number(b, "], \"confidence\": ", h.confidence);
        mcpp_sb_printf(b, ", \"n\": %zu, \"n_runs\": %zu, \"rel_spread\": ", h.n, h.n_runs);
        mcpp_sb_json_number(b, h.rel_spread);
        mcpp_sb_printf(b, ", \"from_steps\": %s}", h.from_steps ? "true" : "false");
    } else {
        mcpp_sb_puts(b, "null");
    }
    if (mcpp_frontier_lane_status(f, i) == MCPP_LANE_STABLE)
        mcpp_sb_puts(b, ", \"note\": \"this number belongs to this lane only\"");
    mcpp_sb_puts(b, ", \"reasons\": [");
    for (size_t r = 0; r < mcpp_frontier_lane_reason_count(f, i); r++) {
        if (r)
            mcpp_sb_puts(b, ", ");
        mcpp_sb_json_string(b, mcpp_frontier_lane_reason(f, i, r));
    }
    mcpp_sb_json_key_string(b, "], \"blocker\": ", mcpp_frontier_lane_blocker(f, i));
    mcpp_sb_puts(b, ", \"adjacent\": [");
    for (size_t a = 0; a < mcpp_frontier_lane_adjacent_count(f, i); a++) {
        size_t o = mcpp_frontier_lane_adjacent_index(f, i, a);
        mcpp_sb_puts(b, a ? ", {\"key\": " : "{\"key\": ");
        mcpp_sb_json_string(b, mcpp_frontier_lane_key(f, o));
        mcpp_sb_json_key_string(b, ", \"short_key\": ", mcpp_frontier_lane_short_key(f, o));
        mcpp_sb_printf(b, ", \"status\": \"%s\", \"differs_in\": ",
                       mcpp_lane_status_name((mcpp_lane_status)mcpp_frontier_lane_status(f, o)));
        mcpp_sb_json_string(b, mcpp_frontier_lane_adjacent_dimensions(f, i, a));
        mcpp_sb_json_key_string(b, ", \"blocker\": ", mcpp_frontier_lane_blocker(f, o));
        mcpp_sb_putc(b, '}');
    }
    mcpp_sb_printf(b, "], \"adjacent_total\": %zu}", mcpp_frontier_lane_adjacent_total(f, i));
}

static void render_json(mcpp_strbuf *b, const void *object)
{
    const mcpp_frontier *f = object;
    put_json_head(b, f);
    for (size_t i = 0; i < mcpp_frontier_lane_count(f); i++) {
        mcpp_sb_puts(b, i ? ",\n  " : "\n  ");
        put_lane_json(b, f, i);
    }
    mcpp_sb_puts(b, "]}\n");
}

/* The JSON document with an empty lanes array (mcpp_frontier_render_json_outline). */
static void render_json_outline(mcpp_strbuf *b, const void *object)
{
    put_json_head(b, object);
    mcpp_sb_puts(b, "]}\n");
}

static void render_markdown(mcpp_strbuf *b, const void *object)
{
    const mcpp_frontier *f = object;
    size_t L = mcpp_frontier_lane_count(f);
    mcpp_sb_printf(b, "### Frontier: %zu stable of %zu lanes (%zu receipts)\n\npolicy ", mcpp_frontier_stable_count(f), L,
                        mcpp_frontier_receipt_total(f));
    mcpp_sb_markdown(b, mcpp_frontier_policy_name(f));
    mcpp_sb_printf(b, " (digest `%s`)\n\n", mcpp_frontier_policy_digest(f));
    if (!mcpp_frontier_key_dim_count(f)) mcpp_sb_printf(b, "**Warning:** %s\n\n", NO_KEY_WARNING);
    mcpp_sb_puts(b, "| lane | status | headline | runs | reasons / blocker | adjacent |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < L; i++) {
        int st = mcpp_frontier_lane_status(f, i);
        mcpp_sb_puts(b, "| `");
        mcpp_sb_puts(b, mcpp_frontier_lane_short_key(f, i));
        mcpp_sb_puts(b, "` ");
        mcpp_sb_markdown(b, mcpp_frontier_lane_display_label(f, i));
        mcpp_sb_printf(b, " | %s | ", st == MCPP_LANE_STABLE ? "**stable**" : mcpp_lane_status_name((mcpp_lane_status)st));
        mcpp_lane_headline h = MCPP_LANE_HEADLINE_INIT;
        if (mcpp_frontier_lane_headline(&h, f, i) == MCPP_OK)
            mcpp_sb_printf(b, "%.6g [%.6g, %.6g] (n=%zu)", h.median, h.interval_low, h.interval_high, h.n);
        else
            mcpp_sb_puts(b, "–");
        mcpp_sb_printf(b, " | %zu | ", mcpp_frontier_lane_receipt_count(f, i));
        if (st == MCPP_LANE_STABLE) mcpp_sb_puts(b, "this number belongs to this lane only");
        for (size_t r = 0; r < mcpp_frontier_lane_reason_count(f, i); r++) {
            if (r) mcpp_sb_puts(b, "; ");
            mcpp_sb_markdown(b, mcpp_frontier_lane_reason(f, i, r));
        }
        for (size_t r = 0; r < mcpp_frontier_lane_excluded_count(f, i); r++) {
            mcpp_sb_puts(b, "<br>excluded ");
            mcpp_sb_markdown(b, mcpp_frontier_lane_excluded_id(f, i, r));
            mcpp_sb_puts(b, ": ");
            mcpp_sb_markdown(b, mcpp_frontier_lane_excluded_reason(f, i, r));
        }
        mcpp_sb_puts(b, " | ");
        for (size_t a = 0; a < mcpp_frontier_lane_adjacent_count(f, i); a++) {
            size_t o = mcpp_frontier_lane_adjacent_index(f, i, a);
            if (a) mcpp_sb_puts(b, "<br>");
            mcpp_sb_printf(b, "`%s` (%s, ", mcpp_frontier_lane_short_key(f, o),
                                mcpp_lane_status_name((mcpp_lane_status)mcpp_frontier_lane_status(f, o)));
            mcpp_sb_markdown(b, mcpp_frontier_lane_adjacent_dimensions(f, i, a));
            mcpp_sb_putc(b, ')');
            if (mcpp_frontier_lane_blocker(f, o)) {
                mcpp_sb_puts(b, ": ");
                mcpp_sb_markdown(b, mcpp_frontier_lane_blocker(f, o));
            }
        }
        size_t listed = mcpp_frontier_lane_adjacent_count(f, i), total = mcpp_frontier_lane_adjacent_total(f, i);
        if (total > listed) mcpp_sb_printf(b, "%s+%zu more", listed ? "<br>" : "", total - listed);
        mcpp_sb_puts(b, " |\n");
    }
}

static const mcpp_renderer FRONTIER_RENDERER = {render_text, render_json, render_markdown, 8192,
                                                "mcpp_frontier_render"};

int mcpp_frontier_render(char **out, const mcpp_frontier *frontier, mcpp_output_format format)
{
    return mcpp_render(out, frontier, format, &FRONTIER_RENDERER);
}

int mcpp_frontier_render_stream(const mcpp_frontier *frontier, mcpp_output_format format, mcpp_write_fn write,
                                void *ctx)
{
    return mcpp_render_stream(frontier, format, &FRONTIER_RENDERER, write, ctx);
}

int mcpp_frontier_render_json_outline(char **out, const mcpp_frontier *frontier)
{
    static const mcpp_renderer renderer = {NULL, render_json_outline, NULL, 512, "mcpp_frontier_render_json_outline"};
    return mcpp_render(out, frontier, MCPP_OUTPUT_JSON, &renderer);
}

int mcpp_frontier_render_lane_json(char **out, const mcpp_frontier *frontier, size_t lane)
{
    return mcpp_render_item(out, frontier, lane, frontier ? mcpp_frontier_lane_count(frontier) : 0, put_lane_json,
                            "mcpp_frontier_render_lane_json");
}
