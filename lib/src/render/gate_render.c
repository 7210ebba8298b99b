/*
 * gate_render.c — the gate report as text, JSON ("mcpp.gate/2") and
 * markdown: every candidate with its lane, pooled baselines and their files,
 * differences and fired rules, the metric change in the words of
 * metric_change.h, and the inputs that were not gated. Keys: docs/gate.md.
 * Each candidate's metric result goes through one writer per format
 * (put_metric_*), so several metrics per candidate are a loop in one place.
 */
#include <math.h>
#include <string.h>

#include "analysis/gate_internal.h"
#include "mcpp_receipts/frontier.h"
#include "render/gate_words.h"
#include "render/pooled_words.h"
#include "render/render.h"
#include "util/error_internal.h"
#include "util/escape.h"

/* GitHub refuses comments over 65,536 characters; the markdown keeps a margin
 * for what a CI script adds around it (a marker, a heading). */
#define GATE_MARKDOWN_BUDGET 60000
/* Pooled baselines named one by one in text and markdown (JSON has all). */
#define GATE_BASELINES_SHOWN 5

/* Which runs the candidate's headline pools (the baselines, then the candidate
 * runs of its side) and which baselines it set aside, in the words of every
 * output (pooled_words.h); the baselines of other lanes close the list as a count. */
static const char *pooled_id(const void *ctx, size_t i)
{
    const gate_explain *w = ctx;
    return i < w->n_pooled ? w->pooled[i].id : w->candidate_runs[i - w->n_pooled];
}
static const char *aside_id(const void *ctx, size_t i) { return ((const gate_explain *)ctx)->set_aside[i].id; }
static const char *aside_reason(const void *ctx, size_t i) { return ((const gate_explain *)ctx)->set_aside[i].reason; }

static const char *aside_path(const void *ctx, size_t i) { return ((const gate_explain *)ctx)->set_aside[i].path; }

static void entry_words(mcpp_pooled_words *words, const gate_entry *e)
{
    const gate_explain *w = &e->why;
    *words = (mcpp_pooled_words){e->baselines + w->n_candidate_runs,
                                 w->n_set_aside + w->set_aside_omitted + w->set_aside_other_lanes,
                                 w->n_pooled + w->n_candidate_runs,
                                 w->n_set_aside,
                                 w,
                                 pooled_id,
                                 aside_id,
                                 aside_reason,
                                 aside_path};
}

void mcpp_gate_entry_pooled_words(mcpp_strbuf *b, const mcpp_gate_report *r, size_t entry,
                                  void (*escape)(mcpp_strbuf *, const char *), size_t shown)
{
    const gate_explain *w = &r->entries[entry].why;
    mcpp_pooled_words words;
    entry_words(&words, &r->entries[entry]);
    mcpp_sb_pooled_words(b, &words, escape, shown);
    if (w->set_aside_other_lanes)
        mcpp_sb_printf(b, " (%zu of other lanes, not comparable)", w->set_aside_other_lanes);
}

static size_t qualification_count(const gate_entry *e)
{
    size_t n = 0;
    for (size_t k = 0; k < e->why.n_diffs; k++) n += e->why.diffs[k].pooled;
    return n;
}

/* ---- JSON ------------------------------------------------------------------------------ */

/* One metric's decision as JSON: {name, outcome, skipped, reason, result}. */
static void gate_metric_json(mcpp_strbuf *b, const gate_metric_entry *g)
{
    mcpp_sb_json_key_string(b, "{\"name\": ", g->name);
    mcpp_sb_printf(b, ", \"outcome\": \"%s\", \"skipped\": %s, \"reason\": ", mcpp_gate_outcome_name(g->outcome),
                   g->skipped ? "true" : "false");
    mcpp_sb_json_string(b, g->reason);
    mcpp_sb_puts(b, ", \"result\": ");
    if (g->has_result) mcpp_metric_render_json(b, &g->result);
    else mcpp_sb_puts(b, "null");
    mcpp_sb_putc(b, '}');
}

/* "metric": the first gate metric's result (or null); "metrics": each gate
 * metric's decision. */
static void put_metric_json(mcpp_strbuf *b, const gate_entry *e)
{
    mcpp_sb_puts(b, ", \"metric\": ");
    if (gate_first_result(e)) mcpp_metric_render_json(b, gate_first_result(e));
    else mcpp_sb_puts(b, "null");
    mcpp_sb_puts(b, ", \"metrics\": [");
    for (size_t k = 0; k < e->n_metrics; k++) {
        if (k) mcpp_sb_puts(b, ", ");
        gate_metric_json(b, &e->metrics[k]);
    }
    mcpp_sb_putc(b, ']');
}

static void put_differences_json(mcpp_strbuf *b, const gate_explain *w)
{
    mcpp_sb_puts(b, ", \"differences\": [");
    for (size_t k = 0; k < w->n_diffs; k++) {
        const gate_difference *d = &w->diffs[k];
        mcpp_sb_printf(b, "%s{\"kind\": \"%s\", \"dimension\": ", k ? ", " : "", d->is_rule ? "rule" : "dimension");
        mcpp_sb_json_string(b, d->dimension);
        mcpp_sb_printf(b, ", \"status\": \"%s\", \"base\": ", mcpp_dim_status_name(d->status));
        mcpp_sb_json_string(b, d->base);
        mcpp_sb_json_key_string(b, ", \"cand\": ", d->cand);
        mcpp_sb_json_key_string(b, ", \"reason\": ", d->reason);
        mcpp_sb_printf(b, ", \"pooled\": %s, \"baselines\": %zu}", d->pooled ? "true" : "false", d->count);
    }
    mcpp_sb_printf(b, "], \"differences_omitted\": %zu, \"baselines_unexamined\": %zu", w->differences_more,
                   w->unexamined);
}

static void put_candidate_json(mcpp_strbuf *b, const gate_entry *e)
{
    const gate_explain *w = &e->why;
    mcpp_sb_json_key_string(b, "{\"id\": ", e->id);
    mcpp_sb_json_key_string(b, ", \"path\": ", w->path);
    mcpp_sb_json_key_string(b, ", \"lane\": {\"key\": ", w->lane_key);
    char short_key[32] = "";
    if (w->lane_key) mcpp_lane_key_short(short_key, sizeof short_key, w->lane_key);
    mcpp_sb_json_key_string(b, ", \"short_key\": ", short_key);
    mcpp_sb_json_key_string(b, ", \"label\": ", w->lane_label);
    mcpp_sb_json_key_string(b, ", \"display_label\": ", w->lane_display);
    mcpp_sb_printf(b, "}, \"outcome\": \"%s\", \"reason_code\": ", mcpp_gate_outcome_name(e->outcome));
    mcpp_sb_json_string(b, w->reason_code);
    mcpp_sb_json_key_string(b, ", \"reason\": ", e->reason);
    mcpp_sb_printf(b, ", \"baselines\": %zu, \"verdicts\": {\"comparable\": %zu, \"qualified\": %zu, "
                      "\"not_comparable\": %zu, \"insufficient\": %zu}, \"pooled\": [",
                   e->baselines, w->by_verdict[0], w->by_verdict[1], w->by_verdict[2], w->by_verdict[3]);
    for (size_t k = 0; k < w->n_pooled; k++) {
        mcpp_sb_puts(b, k ? ", {\"id\": " : "{\"id\": ");
        mcpp_sb_json_string(b, w->pooled[k].id);
        mcpp_sb_json_key_string(b, ", \"path\": ", w->pooled[k].path);
        mcpp_sb_printf(b, ", \"verdict\": \"%s\"}", mcpp_verdict_name(w->pooled[k].verdict));
    }
    mcpp_sb_printf(b, "], \"pooled_omitted\": %zu, \"candidate_runs\": ", w->pooled_omitted);
    mcpp_sb_json_id_list(b, w->candidate_runs, w->n_candidate_runs);
    mcpp_sb_puts(b, ", \"set_aside\": ");
    mcpp_pooled_words words;
    entry_words(&words, e);
    mcpp_sb_pooled_aside_json(b, &words);
    mcpp_sb_printf(b, ", \"set_aside_omitted\": %zu, \"set_aside_other_lanes\": %zu", w->set_aside_omitted,
                   w->set_aside_other_lanes);
    put_differences_json(b, w);
    put_metric_json(b, e);
    mcpp_sb_putc(b, '}');
}

/* The document up to and including the candidates array's "[". */
static void put_json_head(mcpp_strbuf *b, const mcpp_gate_report *r)
{
    const size_t *count = r->groups; /* by test: a lane's pooled candidate runs are one */
    mcpp_sb_printf(b, "{\"schema\": \"mcpp.gate/2\", \"outcome\": \"%s\", \"exit_code\": %d, \"reason\": ",
                   mcpp_gate_outcome_name(r->outcome), mcpp_gate_report_exit_code(r));
    mcpp_sb_json_string(b, r->reason);
    mcpp_sb_json_key_string(b, ", \"policy\": ", r->policy_name);
    mcpp_sb_printf(b, ", \"policy_digest\": \"%s\"", r->policy_digest);
    mcpp_sb_json_key_string(b, ", \"metric\": ", r->metric_name);
    mcpp_sb_printf(b,
                   ", \"counts\": {\"passed\": %zu, \"failed\": %zu, \"undetermined\": %zu, \"inconclusive\": %zu, "
                   "\"candidate_runs\": %zu}, \"on_inconclusive\": \"%s\", \"left_out\": [",
                   count[MCPP_GATE_PASSED], count[MCPP_GATE_FAILED], count[MCPP_GATE_UNDETERMINED],
                   count[MCPP_GATE_INCONCLUSIVE], r->n, r->inconclusive_fails ? "fail" : "pass");
    for (size_t i = 0; i < r->n_left_out; i++) {
        mcpp_sb_puts(b, i ? ", {\"id\": " : "{\"id\": ");
        mcpp_sb_json_string(b, r->left_out[i].id);
        mcpp_sb_printf(b, ", \"side\": \"%s\", \"status\": ", r->left_out[i].side);
        mcpp_sb_json_string(b, r->left_out[i].status);
        mcpp_sb_putc(b, '}');
    }
    mcpp_sb_putc(b, ']');
    mcpp_sb_printf(b, ", \"statistics\": {\"unit\": \"run\", \"tests\": %zu, \"multiplicity\": \"benjamini-hochberg\", "
                   "\"false_discovery_rate\": ", r->tests);
    mcpp_sb_json_number(b, r->fdr_q);
    mcpp_sb_json_key_number(b, ", \"suite_run_sd\": ", r->suite_run_sd);
    mcpp_sb_json_key_number(b, ", \"suite_df\": ", isinf(r->suite_df) ? -1 : r->suite_df);
    mcpp_sb_json_key_number(b, ", \"common_shift\": ", r->suite_shift);
    mcpp_sb_printf(b, ", \"common_shift_regressed\": %s", r->suite_regressed ? "true" : "false");
    mcpp_sb_printf(b, ", \"baseline_spikes\": %zu", r->baseline_spikes);
    if (r->history_scores) {
        mcpp_sb_printf(b, ", \"history_tails\": {\"runs\": %zu, \"df\": ", r->history_scores);
        mcpp_sb_json_number(b, isinf(r->history_tail_df) ? -1 : r->history_tail_df);
        mcpp_sb_json_key_number(b, ", \"scale\": ", r->history_tail_scale);
        mcpp_sb_printf(b, ", \"median_tests\": %zu, \"tests_keeping_them\": %zu, \"tests_with_split_rounds\": %zu}",
                       r->history_medians, r->history_tails_kept, r->split_rounds);
    } else {
        mcpp_sb_puts(b, ", \"history_tails\": null");
    }
    if (r->history_lane_df > 0) {
        mcpp_sb_json_key_number(b, ", \"history_pooled\": {\"lane_df\": ", r->history_lane_df);
        mcpp_sb_json_key_number(b, ", \"spread_today\": ", r->history_spread);
        mcpp_sb_printf(b, ", \"widened\": %s, \"shaped_tests\": %zu", r->history_widened ? "true" : "false",
                       r->history_shaped);
        mcpp_sb_printf(b, ", \"baseline_level_tests\": %zu", r->history_anchored);
        mcpp_sb_json_key_number(b, ", \"lane_drift\": ", r->history_drift);
        mcpp_sb_putc(b, '}');
    } else {
        mcpp_sb_puts(b, ", \"history_pooled\": null");
    }
    mcpp_sb_puts(b, "}, \"candidates\": [");
}

/* The document after the candidates, from the array's "]". */
static void put_json_tail(mcpp_strbuf *b, const mcpp_gate_report *r)
{
    mcpp_sb_puts(b, "],\n\"skipped\": [");
    for (size_t k = 0; k < r->n_inputs; k++) {
        mcpp_sb_puts(b, k ? ", {\"path\": " : "{\"path\": ");
        mcpp_sb_json_string(b, r->inputs[k].path);
        mcpp_sb_json_key_string(b, ", \"error\": ", r->inputs[k].message);
        mcpp_sb_printf(b, ", \"skipped_on_request\": %s}", r->inputs[k].skipped_on_request ? "true" : "false");
    }
    mcpp_sb_puts(b, "]}\n");
}

static void gate_render_json(mcpp_strbuf *b, const void *object)
{
    const mcpp_gate_report *r = object;
    put_json_head(b, r);
    for (size_t i = 0; i < r->n; i++) {
        mcpp_sb_puts(b, i ? ",\n  " : "\n  ");
        put_candidate_json(b, &r->entries[i]);
    }
    put_json_tail(b, r);
}

static void put_candidate_item(mcpp_strbuf *b, const void *object, size_t i)
{
    put_candidate_json(b, &((const mcpp_gate_report *)object)->entries[i]);
}

/* The JSON document with an empty candidates array (mcpp_gate_report_render_json_outline). */
static void gate_render_json_outline(mcpp_strbuf *b, const void *object)
{
    put_json_head(b, object);
    put_json_tail(b, object);
}

/* ---- text ------------------------------------------------------------------------------ */

/* The change column: "worse by 3.1%", or "-" without a metric. */
static void put_metric_cell(mcpp_strbuf *b, const gate_entry *e)
{
    const mcpp_metric_result *m = gate_first_result(e);
    if (m) mcpp_sb_change_words(b, mcpp_metric_improvement(m->rel_delta, m->higher_is_better));
    else mcpp_sb_puts(b, "-");
}

static void put_metric_text(mcpp_strbuf *b, const gate_entry *e)
{
    for (size_t k = 0; k < e->n_metrics; k++)
        if (e->metrics[k].has_result) mcpp_metric_render_text(b, &e->metrics[k].result, "  ");
}

void mcpp_sb_gate_difference(mcpp_strbuf *b, const gate_difference *d, void (*escape)(mcpp_strbuf *, const char *))
{
    mcpp_sb_puts(b, d->is_rule ? "rule " : "dimension ");
    escape(b, d->dimension);
    mcpp_sb_printf(b, " %s: baseline ", mcpp_dim_status_name(d->status));
    escape(b, d->base ? d->base : "-");
    mcpp_sb_puts(b, ", candidate ");
    escape(b, d->cand ? d->cand : "-");
}

static void put_differences_text(mcpp_strbuf *b, const gate_explain *w)
{
    for (size_t k = 0; k < w->n_diffs; k++) {
        const gate_difference *d = &w->diffs[k];
        mcpp_sb_printf(b, "  %-11s ", d->pooled ? "qualifies" : "blocks");
        mcpp_sb_gate_difference(b, d, mcpp_sb_terminal);
        mcpp_sb_printf(b, " (%zu baseline%s): ", d->count, d->count == 1 ? "" : "s");
        mcpp_sb_terminal(b, d->reason);
        mcpp_sb_putc(b, '\n');
    }
    if (w->differences_more)
        mcpp_sb_printf(b, "  ... and %zu more distinct differences (not kept)\n", w->differences_more);
    if (w->unexamined)
        mcpp_sb_printf(b, "  (rows itemised for the first %zu baselines; %zu more not itemised)\n", w->examined,
                       w->unexamined);
}

static void put_candidate_text(mcpp_strbuf *b, const mcpp_gate_report *r, const gate_entry *e)
{
    const gate_explain *w = &e->why;
    mcpp_sb_puts(b, "\ncandidate   ");
    mcpp_sb_terminal(b, e->id);
    mcpp_sb_puts(b, w->path ? " (" : "\n");
    if (w->path) {
        mcpp_sb_terminal(b, w->path);
        mcpp_sb_puts(b, ")\n");
    }
    char short_key[32] = "-";
    if (w->lane_key) mcpp_lane_key_short(short_key, sizeof short_key, w->lane_key);
    mcpp_sb_puts(b, "  lane      ");
    mcpp_sb_terminal(b, w->lane_display);
    mcpp_sb_printf(b, " (%s)\n  outcome   %s (%s): ", short_key, mcpp_gate_outcome_name(e->outcome), w->reason_code);
    mcpp_sb_terminal(b, e->reason);
    mcpp_sb_printf(b, "\n  baselines %zu pooled of %zu examined", e->baselines,
                   w->by_verdict[0] + w->by_verdict[1] + w->by_verdict[2] + w->by_verdict[3]);
    for (size_t k = 0; k < w->n_pooled && k < GATE_BASELINES_SHOWN; k++) {
        mcpp_sb_puts(b, k ? ", " : ": ");
        mcpp_sb_terminal(b, w->pooled[k].id);
        if (w->pooled[k].path) {
            mcpp_sb_puts(b, " (");
            mcpp_sb_terminal(b, w->pooled[k].path);
            mcpp_sb_putc(b, ')');
        }
    }
    if (e->baselines > GATE_BASELINES_SHOWN) mcpp_sb_printf(b, ", and %zu more", e->baselines - GATE_BASELINES_SHOWN);
    mcpp_sb_puts(b, "\n  headline  ");
    mcpp_gate_entry_pooled_words(b, r, (size_t)(e - r->entries), mcpp_sb_terminal, GATE_BASELINES_SHOWN);
    mcpp_sb_putc(b, '\n');
    put_differences_text(b, w);
    put_metric_text(b, e);
}

static void put_inputs_text(mcpp_strbuf *b, const mcpp_gate_report *r)
{
    if (!r->n_inputs) return;
    mcpp_sb_printf(b, "\ninputs not gated (%zu):\n", r->n_inputs);
    for (size_t k = 0; k < r->n_inputs; k++) {
        mcpp_sb_printf(b, "  %s ", r->inputs[k].skipped_on_request ? "skipped" : "error  ");
        mcpp_sb_terminal(b, r->inputs[k].path ? r->inputs[k].path : "-");
        mcpp_sb_puts(b, ": ");
        mcpp_sb_terminal(b, r->inputs[k].message);
        mcpp_sb_putc(b, '\n');
    }
}

static void gate_render_text(mcpp_strbuf *b, const void *object)
{
    const mcpp_gate_report *r = object;
    size_t wid = strlen("candidate");
    mcpp_strbuf t, cell;
    mcpp_sb_init(&t, NULL, 0);
    mcpp_sb_init(&cell, NULL, 0);
    for (size_t i = 0; i < r->n; i++) {
        size_t w = strlen(mcpp_terminal_scratch(&t, r->entries[i].id, b));
        if (w > wid) wid = w;
    }
    mcpp_sb_printf(b, "gate %s: ", mcpp_gate_outcome_name(r->outcome));
    mcpp_sb_terminal(b, r->reason);
    mcpp_sb_puts(b, "\npolicy ");
    mcpp_sb_terminal(b, r->policy_name);
    mcpp_sb_printf(b, " (digest %s)\n", r->policy_digest);
    put_inputs_text(b, r);
    mcpp_sb_printf(b, "\n%-*s  %-12s  %9s  %-16s  lane\n", (int)wid, "candidate", "outcome", "baselines", "change");
    for (size_t i = 0; i < r->n; i++) {
        const gate_entry *e = &r->entries[i];
        cell.len = 0;
        if (cell.data) cell.data[0] = '\0';
        put_metric_cell(&cell, e);
        mcpp_sb_printf(b, "%-*s  %-12s  %9zu  %-16s  ", (int)wid, mcpp_terminal_scratch(&t, e->id, b),
                       gate_entry_outcome_text(e), e->baselines, cell.data ? cell.data : "-");
        mcpp_sb_terminal(b, e->why.lane_display);
        mcpp_sb_putc(b, '\n');
    }
    for (size_t i = 0; i < r->n; i++)
        put_candidate_text(b, r, &r->entries[i]);
    mcpp_sb_free(&t);
    mcpp_sb_free(&cell);
}

/* ---- markdown --------------------------------------------------------------------------- */

static void put_metric_markdown(mcpp_strbuf *b, const gate_entry *e)
{
    put_metric_cell(b, e);
    const mcpp_metric_result *m = gate_first_result(e);
    if (m && !m->point_comparison) {
        mcpp_sb_printf(b, " (%.0f%%: ", m->confidence * 100);
        mcpp_sb_interval_words(b, m);
        mcpp_sb_putc(b, ')');
    }
}

/* The "why" cell: the reason, then each difference in one line. */
static void put_why_markdown(mcpp_strbuf *b, const gate_entry *e)
{
    mcpp_sb_markdown(b, e->reason);
    for (size_t k = 0; k < e->why.n_diffs; k++) {
        const gate_difference *d = &e->why.diffs[k];
        mcpp_sb_printf(b, "<br>%s%s `", d->pooled ? "qualifies: " : "blocks: ", d->is_rule ? "rule " : "");
        mcpp_sb_markdown(b, d->dimension);
        mcpp_sb_printf(b, "` %s, baseline ", mcpp_dim_status_name(d->status));
        mcpp_sb_markdown(b, d->base ? d->base : "-");
        mcpp_sb_puts(b, " → candidate ");
        mcpp_sb_markdown(b, d->cand ? d->cand : "-");
        mcpp_sb_printf(b, " (%zu)", d->count);
    }
}

static void put_row_markdown(mcpp_strbuf *b, const mcpp_gate_report *r, const gate_entry *e, int with_why)
{
    mcpp_sb_puts(b, "| ");
    mcpp_sb_markdown(b, e->id);
    mcpp_sb_puts(b, " | ");
    mcpp_sb_markdown(b, e->why.lane_display);
    mcpp_sb_printf(b, " | %s%s%s | ", e->outcome == MCPP_GATE_PASSED ? "" : "**", gate_entry_outcome_text(e),
                   e->outcome == MCPP_GATE_PASSED ? "" : "**");
    put_metric_markdown(b, e);
    mcpp_sb_printf(b, " | %zu", e->baselines);
    for (size_t k = 0; k < e->why.n_pooled && k < GATE_BASELINES_SHOWN && with_why; k++) {
        mcpp_sb_puts(b, k ? ", `" : ": `");
        mcpp_sb_markdown(b, e->why.pooled[k].path ? e->why.pooled[k].path : e->why.pooled[k].id);
        mcpp_sb_putc(b, '`');
    }
    if (with_why && e->baselines > GATE_BASELINES_SHOWN)
        mcpp_sb_printf(b, ", +%zu", e->baselines - GATE_BASELINES_SHOWN);
    mcpp_sb_puts(b, " | ");
    if (with_why) {
        put_why_markdown(b, e);
        mcpp_sb_puts(b, "<br>headline ");
        mcpp_gate_entry_pooled_words(b, r, (size_t)(e - r->entries), mcpp_sb_markdown, GATE_BASELINES_SHOWN);
    } else
        mcpp_sb_markdown(b, e->reason);
    mcpp_sb_puts(b, " |\n");
}

/* Rows of the candidates (all, or those needing attention) while they fit
 * under `limit` characters in all; returns how many were left out. Each row
 * is written aside first, so one long row cannot overshoot the limit. */
static size_t put_rows_markdown(mcpp_strbuf *b, const mcpp_gate_report *r, int attention_only, size_t limit)
{
    size_t left_out = 0;
    mcpp_strbuf row;
    mcpp_sb_init_heap(&row, 512);
    for (size_t i = 0; i < r->n; i++) {
        const gate_entry *e = &r->entries[i];
        if (attention_only && e->outcome == MCPP_GATE_PASSED && !qualification_count(e) && !gate_entry_is_new_lane(e))
            continue;
        row.len = 0;
        put_row_markdown(&row, r, e, attention_only);
        if (row.failed || b->len + row.len >= limit) {
            left_out++;
            continue;
        }
        mcpp_sb_put(b, row.data, row.len);
    }
    mcpp_sb_free(&row);
    return left_out;
}

static void put_inputs_markdown(mcpp_strbuf *b, const mcpp_gate_report *r, size_t limit)
{
    if (!r->n_inputs) return;
    mcpp_sb_printf(b, "\n**%zu input%s not gated:**\n\n", r->n_inputs, r->n_inputs == 1 ? "" : "s");
    for (size_t k = 0; k < r->n_inputs; k++) {
        if (b->len >= limit) {
            mcpp_sb_printf(b, "- … and %zu more (the JSON output lists all)\n", r->n_inputs - k);
            break;
        }
        mcpp_sb_printf(b, "- %s `", r->inputs[k].skipped_on_request ? "skipped" : "**error**");
        mcpp_sb_markdown(b, r->inputs[k].path ? r->inputs[k].path : "-");
        mcpp_sb_puts(b, "`: ");
        mcpp_sb_markdown(b, r->inputs[k].message);
        mcpp_sb_putc(b, '\n');
    }
}

static const char GATE_MD_HEAD[] = "| candidate | lane | outcome | change | baselines | why |\n|---|---|---|---|---|---|\n";

static void gate_render_markdown(mcpp_strbuf *b, const void *object)
{
    const mcpp_gate_report *r = object;
    const size_t *count = r->groups; /* by test: a lane's pooled candidate runs are one */
    size_t attention = 0, tests = 0, new_lanes = 0;
    for (size_t i = 0; i < MCPP_GATE_OUTCOMES; i++)
        tests += count[i];
    for (size_t i = 0; i < r->n; i++) {
        new_lanes += gate_entry_is_new_lane(&r->entries[i]);
        attention += r->entries[i].outcome != MCPP_GATE_PASSED || qualification_count(&r->entries[i]) ||
                     gate_entry_is_new_lane(&r->entries[i]);
    }
    mcpp_sb_printf(b, "### Merge gate: **%s**\n\n", mcpp_gate_outcome_name(r->outcome));
    mcpp_sb_markdown(b, r->reason);
    mcpp_sb_printf(b, "\n\n%zu test%s: %zu passed, %zu failed, %zu inconclusive, %zu undetermined", tests,
                   tests == 1 ? "" : "s", count[MCPP_GATE_PASSED], count[MCPP_GATE_FAILED],
                   count[MCPP_GATE_INCONCLUSIVE], count[MCPP_GATE_UNDETERMINED]);
    if (tests != r->n)
        mcpp_sb_printf(b, " (%zu candidate runs)", r->n);
    if (new_lanes) mcpp_sb_printf(b, " (%zu of them new lane%s)", new_lanes, new_lanes == 1 ? "" : "s");
    mcpp_sb_puts(b, "; metric `");
    mcpp_sb_markdown(b, r->metric_name);
    mcpp_sb_puts(b, "`; policy ");
    mcpp_sb_markdown(b, r->policy_name);
    mcpp_sb_printf(b, " (digest `%s`).\n", r->policy_digest);
    put_inputs_markdown(b, r, b->len + 8000);
    if (attention) {
        mcpp_sb_printf(b, "\n#### Not passed, new, or passed with qualifications (%zu)\n\n%s", attention, GATE_MD_HEAD);
        size_t cut = put_rows_markdown(b, r, 1, GATE_MARKDOWN_BUDGET / 2);
        if (cut) mcpp_sb_printf(b, "\n… and %zu more not shown here (the JSON output has every one).\n", cut);
    } else {
        mcpp_sb_puts(b, "\nNo candidate failed, none was undetermined, none has a qualification.\n");
    }
    mcpp_sb_printf(b, "\n<details><summary>All %zu candidate%s</summary>\n\n%s", r->n, r->n == 1 ? "" : "s",
                   GATE_MD_HEAD);
    size_t cut = put_rows_markdown(b, r, 0, GATE_MARKDOWN_BUDGET - 400);
    if (cut) mcpp_sb_printf(b, "\n… and %zu more not shown (the JSON output has every one).\n", cut);
    mcpp_sb_puts(b, "\n</details>\n");
}

static const mcpp_renderer GATE_RENDERER = {gate_render_text, gate_render_json, gate_render_markdown, 4096,
                                            "mcpp_gate_report_render"};

int mcpp_gate_report_render(char **out, const mcpp_gate_report *r, mcpp_output_format format)
{
    return mcpp_render(out, r, format, &GATE_RENDERER);
}

int mcpp_gate_report_render_stream(const mcpp_gate_report *r, mcpp_output_format format, mcpp_write_fn write, void *ctx)
{
    return mcpp_render_stream(r, format, &GATE_RENDERER, write, ctx);
}

int mcpp_gate_report_render_json_outline(char **out, const mcpp_gate_report *r)
{
    static const mcpp_renderer renderer = {NULL, gate_render_json_outline, NULL, 1024,
                                           "mcpp_gate_report_render_json_outline"};
    return mcpp_render(out, r, MCPP_OUTPUT_JSON, &renderer);
}

int mcpp_gate_report_render_candidate_json(char **out, const mcpp_gate_report *r, size_t index)
{
    return mcpp_render_item(out, r, index, r ? r->n : 0, put_candidate_item, "mcpp_gate_report_render_candidate_json");
}
