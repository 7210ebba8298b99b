/*
 * site_gate.c — the history site's gate page (site.h): what a merge gate says
 * of each lane's newest commit. Per lane, the candidates are its newest runs
 * that share one commit, the baselines the runs of the commit just before
 * them, and up to SITE_GATE_HISTORY runs before those the history that
 * informs the spread (mcpp_gate_run_with_history). All lanes go through one
 * gate, so they share its false-discovery rate as a CI gate's tests do. The
 * page is the HTML report's gate page over the baselines' frontier.
 *
 * The gate reads every lane's candidates against every history receipt, so it
 * is most of a site's cost; mcpp_site_gate_inputs names what it reads (the
 * runs' ids in their roles) so that site.c skips it when that is unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/policy.h"
#include "mcpp_receipts/receipt_set.h"
#include "render/html.h"
#include "render/site.h"
#include "store/store_internal.h"
#include "util/error_internal.h"
#include "util/hash.h"

enum { SITE_GATE_HISTORY = 20 };

typedef struct gate_sets {
    mcpp_receipt_set *side[3]; /* baselines, candidates, history */
} gate_sets;

/* The runs of one lane the gate reads: [from, base) history, [base, cand)
 * baselines, [cand, end) candidates. */
typedef struct lane_split {
    const history_lane *lane;
    size_t from, base, cand, end;
    gate_sets *sets;
} lane_split;

static int same_commit(const history_run *a, const history_run *b)
{
    return a->git_commit && b->git_commit && strcmp(a->git_commit, b->git_commit) == 0;
}

/* 1 when the lane has a newest commit and one before it. */
static int split_lane(lane_split *s, const history_lane *l)
{
    memset(s, 0, sizeof *s);
    s->lane = l;
    if (l->n_runs < 2 || !l->runs[l->n_runs - 1].git_commit)
        return 0;
    s->end = l->n_runs;
    s->cand = s->end - 1;
    while (s->cand > 0 && same_commit(&l->runs[s->cand - 1], &l->runs[s->end - 1]))
        s->cand--;
    if (s->cand == 0 || !l->runs[s->cand - 1].git_commit)
        return 0;
    s->base = s->cand - 1;
    while (s->base > 0 && same_commit(&l->runs[s->base - 1], &l->runs[s->cand - 1]))
        s->base--;
    s->from = s->base > SITE_GATE_HISTORY ? s->base - SITE_GATE_HISTORY : 0;
    return 1;
}

/* Puts each loaded receipt in the set of its role, or lets it go. */
static int take_receipt(void *ctx, mcpp_receipt *r)
{
    const lane_split *s = ctx;
    const char *id = mcpp_receipt_id(r);
    for (size_t i = s->from; id && i < s->end; i++) {
        if (strcmp(s->lane->runs[i].id, id) != 0)
            continue;
        int side = i >= s->cand ? 1 : i >= s->base ? 0 : 2;
        return mcpp_receipt_set_add(s->sets->side[side], r);
    }
    mcpp_receipt_free(r);
    return MCPP_OK;
}

/* Reads the lane's runs from the first one the gate needs (by created_at). */
static int load_lane(mcpp_store *store, lane_split *s)
{
    const char *since = s->lane->runs[s->from].created_at;
    mcpp_store_query q = {s->lane->short_key, NULL, since, NULL, 0, 0};
    return mcpp_store_query_each(store, &q, take_receipt, s);
}

static int render_gate(char **out, const gate_sets *g, const mcpp_gate_report *report, const mcpp_policy *policy)
{
    mcpp_frontier *f = NULL;
    int rc = mcpp_frontier_build(&f, policy, mcpp_receipt_set_items(g->side[0]), mcpp_receipt_set_count(g->side[0]));
    if (rc == MCPP_OK) {
        mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
        o.title = "Latest gate: each lane's newest commit against the one before";
        o.receipts = mcpp_receipt_set_items(g->side[0]);
        o.n_receipts = mcpp_receipt_set_count(g->side[0]);
        o.gate = report;
        rc = mcpp_frontier_render_html(out, f, &o);
    }
    mcpp_frontier_free(f);
    return rc;
}

static int empty_page(char **out, const site_model *m)
{
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, 4096);
    mcpp_site_page_begin(&sb, m, "Latest gate", "", 0);
    mcpp_sb_puts(&sb, "<p class=\"muted\">No lane has runs of two commits yet: there is nothing to gate.</p>\n");
    mcpp_html_page_end(&sb);
    return mcpp_sb_finish(&sb, out) == 0 ? MCPP_OK : mcpp_error_nomem();
}

static uint64_t hash_text(const char *text, uint64_t h)
{
    return mcpp_fnv1a(text, strlen(text) + 1, h); /* with its NUL: "ab","c" is not "a","bc" */
}

/* A receipt's id names its content (the store refuses other content under
 * it, and a removed id never comes back), so the ids and their roles are the
 * gate's whole input, with the library version that gates them and the
 * store's name (the page names each run's source). */
uint64_t mcpp_site_gate_inputs(const site_model *m, const mcpp_store *store)
{
    uint64_t h = hash_text(mcpp_version_string(), MCPP_FNV_OFFSET);
    h = hash_text(store->path, h);
    for (size_t i = 0; i < m->n_lanes; i++) {
        lane_split s;
        if (!split_lane(&s, m->lanes[i].history))
            continue;
        h = hash_text(s.lane->key, h);
        for (size_t k = s.from; k < s.end; k++) {
            const char role = k >= s.cand ? 'c' : k >= s.base ? 'b' : 'h';
            h = hash_text(s.lane->runs[k].id, mcpp_fnv1a(&role, 1, h));
        }
    }
    return h;
}

int mcpp_site_gate_page(char **out, site_model *m, mcpp_store *store)
{
    *out = NULL;
    gate_sets g = {{NULL, NULL, NULL}};
    mcpp_policy *policy = NULL;
    mcpp_gate_report *report = NULL;
    int rc = mcpp_policy_default(&policy);
    for (int k = 0; k < 3 && rc == MCPP_OK; k++)
        rc = mcpp_receipt_set_new(&g.side[k]);
    m->gated_lanes = 0;
    for (size_t i = 0; i < m->n_lanes && rc == MCPP_OK; i++) {
        lane_split s;
        if (!split_lane(&s, m->lanes[i].history))
            continue;
        s.sets = &g;
        rc = load_lane(store, &s);
        m->gated_lanes++;
    }
    if (rc == MCPP_OK && !mcpp_receipt_set_count(g.side[1]))
        rc = empty_page(out, m);
    else if (rc == MCPP_OK)
        rc = mcpp_gate_run_with_history(&report, policy, mcpp_receipt_set_items(g.side[0]),
                                        mcpp_receipt_set_count(g.side[0]), mcpp_receipt_set_items(g.side[1]),
                                        mcpp_receipt_set_count(g.side[1]), mcpp_receipt_set_items(g.side[2]),
                                        mcpp_receipt_set_count(g.side[2]));
    if (rc == MCPP_OK && report)
        rc = render_gate(out, &g, report, policy);
    mcpp_gate_report_free(report);
    for (int k = 0; k < 3; k++)
        mcpp_receipt_set_free(g.side[k]);
    mcpp_policy_free(policy);
    return rc;
}
