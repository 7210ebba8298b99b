/*
 * gate_explain.c — what a gate report says about each candidate besides its
 * outcome: its lane, the baselines it was pooled with and their files, and
 * every distinct difference or fired rule (qualifications of the pooled
 * baselines; when none could be pooled, what kept the others out), so an
 * undetermined candidate names the dimension, rule or missing field.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/gate_internal.h"
#include "mcpp_receipts/frontier.h"
#include "util/alloc.h"
#include "util/error_internal.h"

int mcpp_gate_explain_candidate(gate_explain *w, const mcpp_policy *p, const mcpp_receipt *cand)
{
    int rc = mcpp_lane_key(&w->lane_key, p, cand);
    if (rc != MCPP_OK) return rc;
    mcpp_value v = MCPP_VALUE_INIT;
    const char *label = NULL;
    char short_key[32];
    if (p->id_lane_name >= 0 && mcpp_value_at_field(cand, p->id_lane_name, &v) == MCPP_OK &&
        v.type == MCPP_TYPE_STRING && v.string && *v.string)
        label = v.string;
    else if (mcpp_lane_key_short(short_key, sizeof short_key, w->lane_key) == MCPP_OK)
        label = short_key;
    int failed = 0;
    w->lane_label = mcpp_strdup(label, &failed);
    w->path = mcpp_strdup(mcpp_receipt_source_name(cand), &failed);
    return failed ? mcpp_error_nomem() : MCPP_OK;
}

int mcpp_gate_explain_labels(char ***out, const mcpp_policy *p, const mcpp_receipt *const *candidates, size_t n)
{
    /* The frontier also decides stability, more than a label needs, but one
     * labelling rule beats two. It is made before the candidates are gated,
     * and freed, so its peak does not stack on the gate's entries. */
    *out = calloc(2 * n + 1, sizeof **out);
    MCPP_CHECK_ALLOC(*out);
    mcpp_frontier *f = NULL;
    int rc = mcpp_frontier_build(&f, p, candidates, n);
    for (size_t i = 0; i < n && rc == MCPP_OK; i++) {
        char *key = NULL;
        size_t lane = 0;
        if ((rc = mcpp_lane_key(&key, p, candidates[i])) != MCPP_OK)
            break;
        if (mcpp_frontier_find_lane(&lane, f, key) != MCPP_OK)
            rc = mcpp_error_raise(MCPP_EINTERNAL, MCPP_ERROR_KIND_INTERNAL, "candidate %zu has no frontier lane", i);
        free(key);
        if (rc != MCPP_OK)
            break;
        int failed = 0;
        (*out)[2 * i] = mcpp_strdup(mcpp_frontier_lane_label(f, lane), &failed);
        (*out)[2 * i + 1] = mcpp_strdup(mcpp_frontier_lane_display_label(f, lane), &failed);
        if (failed) rc = mcpp_error_nomem();
    }
    mcpp_frontier_free(f);
    if (rc != MCPP_OK) {
        mcpp_gate_explain_labels_free(*out, n);
        *out = NULL;
    }
    return rc;
}

void mcpp_gate_explain_labels_free(char **labels, size_t n)
{
    for (size_t i = 0; labels && i < 2 * n; i++)
        free(labels[i]);
    free(labels);
}

void mcpp_gate_explain_take_labels(gate_entry *entries, size_t n, char **labels)
{
    for (size_t i = 0; i < n; i++) {
        gate_explain *w = &entries[i].why;
        free(w->lane_label);
        free(w->lane_display);
        w->lane_label = labels[2 * i];
        w->lane_display = labels[2 * i + 1];
    }
    free(labels);
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Counts one more baseline showing row i of c, or records it. */
static int add_difference(gate_explain *w, const mcpp_comparison *c, size_t i, int is_rule, int pooled)
{
    const char *dim = mcpp_comparison_row_dimension(c, i), *base = mcpp_comparison_row_base(c, i);
    const char *cand = mcpp_comparison_row_cand(c, i);
    mcpp_dim_status st = (mcpp_dim_status)mcpp_comparison_row_status(c, i);
    for (size_t k = 0; k < w->n_diffs; k++) {
        gate_difference *d = &w->diffs[k];
        if (d->status == st && d->pooled == pooled && same(d->dimension, dim) && same(d->base, base) &&
            same(d->cand, cand)) {
            d->count++;
            return 0;
        }
    }
    if (w->n_diffs == GATE_MAX_DIFFERENCES) {
        w->differences_more++;
        return 0;
    }
    MCPP_CHECK_ARRAY(w->diffs, w->cap_diffs, w->n_diffs + 1, MCPP_ARRAY_MAX_ITEMS);
    gate_difference *d = &w->diffs[w->n_diffs];
    memset(d, 0, sizeof *d);
    w->n_diffs++; /* freed with the rest even when a copy below fails */
    d->status = st;
    d->is_rule = is_rule;
    d->pooled = pooled;
    d->count = 1;
    int failed = 0;
    d->dimension = mcpp_strdup(dim, &failed);
    d->base = mcpp_strdup(base, &failed);
    d->cand = mcpp_strdup(cand, &failed);
    d->reason = mcpp_strdup(mcpp_comparison_row_reason(c, i), &failed);
    return failed ? mcpp_error_nomem() : MCPP_OK;
}

/* Records the rows of base against cand that are not a match (qualify only
 * for pooled baselines; mismatch and missing only for rejected ones). */
static int add_rows(gate_explain *w, const mcpp_policy *p, const mcpp_receipt *base, const mcpp_receipt *cand,
                    int pooled)
{
    if (w->examined == GATE_MAX_ROWS_EXAMINED) {
        w->unexamined++;
        return 0;
    }
    w->examined++;
    mcpp_comparison *c = NULL;
    int rc = mcpp_compare(&c, p, base, cand);
    if (rc != MCPP_OK) return rc;
    size_t n = mcpp_comparison_row_count(c);
    /* The custom rules come last, one row each (compare.h). */
    size_t first_rule = n >= p->n_rules ? n - p->n_rules : 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int st = mcpp_comparison_row_status(c, i);
        int wanted = pooled ? st == MCPP_DIM_QUALIFY : st == MCPP_DIM_MISMATCH || st == MCPP_DIM_MISSING;
        if (wanted) rc = add_difference(w, c, i, i >= first_rule, pooled);
    }
    mcpp_comparison_free(c);
    return rc;
}

int mcpp_gate_explain_pooled(gate_explain *w, const mcpp_policy *p, const mcpp_receipt *base,
                             const mcpp_receipt *cand, mcpp_verdict verdict)
{
    int rc = verdict == MCPP_VERDICT_QUALIFIED ? add_rows(w, p, base, cand, 1) : 0;
    if (rc != 0) return rc;
    if (w->n_pooled == GATE_MAX_POOLED_LISTED) {
        w->pooled_omitted++;
        return 0;
    }
    MCPP_CHECK_ARRAY(w->pooled, w->cap_pooled, w->n_pooled + 1, MCPP_ARRAY_MAX_ITEMS);
    gate_baseline *b = &w->pooled[w->n_pooled++];
    memset(b, 0, sizeof *b);
    b->verdict = verdict;
    int failed = 0;
    b->id = mcpp_strdup(mcpp_receipt_id(base), &failed);
    b->path = mcpp_strdup(mcpp_receipt_source_name(base), &failed);
    return failed ? mcpp_error_nomem() : MCPP_OK;
}

/* "not_comparable: startup: startup.state differs: ...; ..." from base against cand's rows. */
static int set_aside_reason(mcpp_strbuf *t, const mcpp_policy *p, const mcpp_receipt *base, const mcpp_receipt *cand,
                            mcpp_verdict verdict)
{
    mcpp_sb_puts(t, mcpp_verdict_name(verdict));
    mcpp_comparison *c = NULL;
    int rc = mcpp_compare(&c, p, base, cand);
    size_t shown = 0;
    for (size_t i = 0; rc == MCPP_OK && i < mcpp_comparison_row_count(c) && shown < 3; i++) {
        int st = mcpp_comparison_row_status(c, i);
        if (st != MCPP_DIM_MISMATCH && st != MCPP_DIM_MISSING)
            continue;
        mcpp_sb_printf(t, "%s%s: %s", shown++ ? "; " : ": ", mcpp_comparison_row_dimension(c, i),
                       mcpp_comparison_row_reason(c, i));
    }
    mcpp_comparison_free(c);
    return rc;
}

int mcpp_gate_explain_set_aside(gate_explain *w, const mcpp_policy *p, const mcpp_receipt *base,
                                const mcpp_receipt *cand, mcpp_verdict verdict, const char *why)
{
    if (w->n_set_aside == GATE_MAX_POOLED_LISTED) {
        w->set_aside_omitted++;
        return MCPP_OK;
    }
    MCPP_CHECK_ARRAY(w->set_aside, w->cap_set_aside, w->n_set_aside + 1, MCPP_ARRAY_MAX_ITEMS);
    mcpp_strbuf t;
    mcpp_sb_init_heap(&t, 128);
    int rc = why ? (mcpp_sb_puts(&t, why), MCPP_OK) : set_aside_reason(&t, p, base, cand, verdict);
    gate_baseline *b = &w->set_aside[w->n_set_aside];
    memset(b, 0, sizeof *b);
    b->verdict = verdict;
    int failed = 0;
    b->id = mcpp_strdup(mcpp_receipt_id(base), &failed);
    b->path = mcpp_strdup(mcpp_receipt_source_name(base), &failed);
    if (!rc && (failed || mcpp_sb_finish(&t, &b->reason) != 0))
        rc = mcpp_error_nomem();
    mcpp_sb_free(&t);
    w->n_set_aside++; /* freed with the rest whatever happened */
    return rc;
}

static void free_baselines(gate_baseline *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(list[i].id);
        free(list[i].path);
        free(list[i].reason);
    }
    free(list);
}

void mcpp_gate_explain_set_aside_clear(gate_explain *w)
{
    free_baselines(w->set_aside, w->n_set_aside);
    w->set_aside = NULL;
    w->n_set_aside = w->cap_set_aside = w->set_aside_omitted = 0;
}

void mcpp_gate_explain_fit(gate_explain *w)
{
    MCPP_ARRAY_FIT(w->pooled, w->cap_pooled, w->n_pooled);
    MCPP_ARRAY_FIT(w->set_aside, w->cap_set_aside, w->n_set_aside);
    MCPP_ARRAY_FIT(w->diffs, w->cap_diffs, w->n_diffs);
}

int mcpp_gate_explain_candidate_runs(gate_explain *w, const mcpp_receipt *const *runs, size_t n)
{
    if (!(w->candidate_runs = calloc(n ? n : 1, sizeof *w->candidate_runs)))
        return mcpp_error_nomem();
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        const char *id = mcpp_receipt_id(runs[i]);
        w->candidate_runs[w->n_candidate_runs++] = mcpp_strdup(id ? id : "", &failed);
    }
    return failed ? mcpp_error_nomem() : MCPP_OK;
}

int mcpp_gate_explain_rejected(gate_explain *w, const mcpp_policy *p, const mcpp_receipt *base,
                               const mcpp_receipt *cand)
{
    return add_rows(w, p, base, cand, 0);
}

void mcpp_gate_explain_blockers(const gate_explain *w, mcpp_strbuf *reason)
{
    /* The three blockers shared by most baselines, most common first. */
    size_t shown[3];
    size_t n_shown = 0;
    for (; n_shown < 3; n_shown++) {
        size_t best = (size_t)-1;
        for (size_t k = 0; k < w->n_diffs; k++) {
            int taken = 0;
            for (size_t j = 0; j < n_shown; j++) taken |= shown[j] == k;
            if (!taken && !w->diffs[k].pooled && (best == (size_t)-1 || w->diffs[k].count > w->diffs[best].count))
                best = k;
        }
        if (best == (size_t)-1) break;
        shown[n_shown] = best;
        const gate_difference *d = &w->diffs[best];
        mcpp_sb_printf(reason, "%s%s %s %s on %zu baseline%s (", n_shown ? "; " : ": ",
                       d->is_rule ? "rule" : "dimension", d->dimension, mcpp_dim_status_name(d->status), d->count,
                       d->count == 1 ? "" : "s");
        mcpp_sb_puts(reason, d->reason ? d->reason : "");
        mcpp_sb_putc(reason, ')');
    }
}

void mcpp_gate_explain_free(gate_explain *w)
{
    free(w->lane_key);
    free(w->lane_label);
    free(w->lane_display);
    free(w->path);
    free_baselines(w->pooled, w->n_pooled);
    free_baselines(w->set_aside, w->n_set_aside);
    for (size_t i = 0; i < w->n_candidate_runs; i++)
        free(w->candidate_runs[i]);
    free(w->candidate_runs);
    for (size_t i = 0; i < w->n_diffs; i++) {
        free(w->diffs[i].dimension);
        free(w->diffs[i].base);
        free(w->diffs[i].cand);
        free(w->diffs[i].reason);
    }
    free(w->diffs);
}
