/*
 * claim_render.c — a claim check (analysis/claim.c) as text, JSON and
 * markdown through the one render dispatcher.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/claim_internal.h"
#include "analysis/frontier_internal.h"
#include "render/pooled_words.h"
#include "render/render.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/escape.h"
#include "util/strbuf.h"

static const char *pooled_id(const void *ctx, size_t i) { return ((const claim_lane *)ctx)->pooled[i]; }
static const char *aside_id(const void *ctx, size_t i) { return ((const claim_lane *)ctx)->set_aside[2 * i]; }
static const char *aside_reason(const void *ctx, size_t i) { return ((const claim_lane *)ctx)->set_aside[2 * i + 1]; }

static void lane_words(mcpp_pooled_words *w, const claim_lane *c)
{
    *w = (mcpp_pooled_words){c->n_pooled, c->n_set_aside, c->n_pooled, c->n_set_aside, c, pooled_id,
                             aside_id,    aside_reason,   NULL};
}

static void lane_json(mcpp_strbuf *b, const claim_lane *c, int with_headline)
{
    mcpp_sb_json_key_string(b, "{\"key\": ", c->key);
    mcpp_sb_json_key_string(b, ", \"short_key\": ", c->short_key);
    mcpp_sb_json_key_string(b, ", \"label\": ", c->label);
    mcpp_sb_printf(b, ", \"status\": \"%s\"", mcpp_lane_status_name((mcpp_lane_status)c->status));
    if (with_headline) {
        mcpp_sb_puts(b, ", \"headline\": ");
        mcpp_lane_headline_json(b, c->has_headline ? &c->headline : NULL);
    }
    mcpp_sb_json_key_string(b, ", \"reasons\": ", c->reasons);
    mcpp_sb_puts(b, ", \"pooled\": ");
    mcpp_sb_json_id_list(b, c->pooled, c->n_pooled);
    mcpp_sb_puts(b, ", \"set_aside\": ");
    mcpp_pooled_words w;
    lane_words(&w, c);
    mcpp_sb_pooled_aside_json(b, &w);
    mcpp_sb_putc(b, '}');
}

/* "pools N runs: a, b; sets aside M: c (reason)" for one lane, in text or markdown. */
static void pooled_lines(mcpp_strbuf *b, const claim_lane *c, int md)
{
    mcpp_pooled_words w;
    lane_words(&w, c);
    mcpp_sb_puts(b, md ? "  - its headline " : "          ");
    mcpp_sb_pooled_words(b, &w, md ? mcpp_sb_markdown : mcpp_sb_terminal, (size_t)-1);
    mcpp_sb_putc(b, '\n');
}

static void claim_render_json(mcpp_strbuf *b, const void *object)
{
    const mcpp_claim_result *r = object;
    mcpp_sb_json_key_string(b, "{\"schema\": \"mcpp.claim/1\", \"policy\": ", r->policy_name);
    mcpp_sb_printf(b, ", \"policy_digest\": \"%s\", \"selector\": ", r->policy_digest);
    mcpp_sb_json_string(b, r->selector);
    mcpp_sb_json_key_string(b, ", \"metric\": ", r->metric);
    mcpp_sb_json_key_string(b, ", \"unit\": ", r->unit);
    mcpp_sb_json_key_number(b, ", \"value\": ", r->value);
    mcpp_sb_printf(b, ", \"verdict\": \"%s\", \"reason\": ", mcpp_claim_verdict_name(r->verdict));
    mcpp_sb_json_string(b, r->reason);
    mcpp_sb_puts(b, ", \"matched\": [");
    for (size_t i = 0; i < r->n_matched; i++) {
        if (i) mcpp_sb_puts(b, ", ");
        lane_json(b, &r->matched[i], 1);
    }
    mcpp_sb_puts(b, "], \"sources\": [");
    for (size_t i = 0; i < r->n_sources; i++) {
        if (i) mcpp_sb_puts(b, ", ");
        lane_json(b, &r->sources[i], 1);
    }
    mcpp_sb_puts(b, "]}\n");
}

/* A string from a receipt, the policy or the caller, escaped for the markup. */
static void claim_put(mcpp_strbuf *b, const char *s, int md)
{
    if (md) mcpp_sb_markdown(b, s);
    else mcpp_sb_terminal(b, s);
}

/* Text and markdown share their layout; `md` picks the markup. */
static void claim_render_lines(mcpp_strbuf *b, const mcpp_claim_result *r, int md)
{
    mcpp_sb_printf(b, md ? "### Claim check: **%s**\n\n" : "claim     %s\n", mcpp_claim_verdict_name(r->verdict));
    mcpp_sb_puts(b, md ? "" : "value     ");
    claim_put(b, r->metric, md);
    mcpp_sb_printf(b, md ? " = %.6g for lanes " : " = %.6g\nselector  ", r->value);
    claim_put(b, r->selector, md);
    mcpp_sb_puts(b, md ? "\n\n" : "\nreason    ");
    claim_put(b, r->reason, md);
    mcpp_sb_puts(b, md ? "\n\npolicy " : "\npolicy    ");
    claim_put(b, r->policy_name, md);
    mcpp_sb_printf(b, md ? " (digest `%s`)\n" : " (digest %s)\n", r->policy_digest);
    for (size_t i = 0; i < r->n_matched; i++) {
        const claim_lane *c = &r->matched[i];
        mcpp_sb_printf(b, md ? "%s- matches `%s` " : "%smatches   %s ", i || md ? "" : "\n", c->short_key);
        claim_put(b, c->label, md);
        mcpp_sb_printf(b, " (%s)", mcpp_lane_status_name((mcpp_lane_status)c->status));
        if (c->has_headline)
            mcpp_sb_printf(b, ": median %.6g [%.6g, %.6g] n=%zu", c->headline.median, c->headline.interval_low,
                                c->headline.interval_high, c->headline.n);
        mcpp_sb_putc(b, '\n');
        pooled_lines(b, c, md);
    }
    for (size_t i = 0; i < r->n_sources; i++) {
        const claim_lane *c = &r->sources[i];
        mcpp_sb_printf(b, md ? "- value found in `%s` " : "found in  %s ", c->short_key);
        claim_put(b, c->label, md);
        mcpp_sb_printf(b, " (%s)\n", mcpp_lane_status_name((mcpp_lane_status)c->status));
    }
}

static void claim_render_text(mcpp_strbuf *b, const void *object) { claim_render_lines(b, object, 0); }
static void claim_render_markdown(mcpp_strbuf *b, const void *object) { claim_render_lines(b, object, 1); }

int mcpp_claim_result_render(char **out, const mcpp_claim_result *r, mcpp_output_format format)
{
    static const mcpp_renderer renderer = {claim_render_text, claim_render_json, claim_render_markdown, 2048,
                                           "mcpp_claim_result_render"};
    return mcpp_render(out, r, format, &renderer);
}
