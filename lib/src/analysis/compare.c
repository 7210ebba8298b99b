/*
 * compare.c — mcpp_compare(): the per-dimension comparability table, the
 * verdict, and (when the verdict allows) the metric comparison and gate.
 *
 * The same evaluation runs with and without explanations: mcpp_compare_verdict()
 * passes no text buffer and allocates nothing; mcpp_compare() writes every
 * row's values and reason into one arena owned by the comparison.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_internal.h"
#include "receipt/fields.h"
#include "receipt/request_pairs.h"
#include "util/alloc.h"
#include "util/enum_names.h"
#include "util/error_internal.h"

typedef struct cmp_row {
    size_t off_dim, off_base, off_cand, off_reason; /* arena offsets while building */
    const char *dim, *base, *cand, *reason;
    int status;
    int role;
} cmp_row;

/* What a custom rule said when the comparison was made: rules run once, and
 * the rows rendered later replay their outcomes. */
typedef struct rule_outcome {
    int status;
    size_t reason_off; /* into rule_log.text */
} rule_outcome;

typedef struct rule_log {
    rule_outcome *items;  /* one per rule of the policy */
    mcpp_strbuf *record;  /* recording: where the reasons go; NULL when replaying */
    const char *text;     /* replaying: the recorded reasons */
} rule_log;

enum { ROWS_PENDING = 0, ROWS_READY = 1 };

/* One metric of a multi-metric gate (a policy with gate.metrics): decided
 * and explained when the comparison is made, every text owned. */
typedef struct cmp_gate_metric {
    char *name; /* as the policy names it */
    mcpp_gate_outcome outcome;
    int skipped;    /* absent on both sides */
    int has_result; /* compared: result holds the interval */
    mcpp_metric_result result; /* metric, unit, method: owned copies */
    char *reason;
} cmp_gate_metric;

/* The verdict, the metric and the gate are decided when the comparison is
 * made; the rows and the gate's reason are rendered from the held receipts
 * and policy view when first read (mcpp_comparison_explain). */
struct mcpp_comparison {
    mcpp_verdict verdict;
    const mcpp_receipt *base, *cand; /* held: mcpp_receipt_hold */
    const mcpp_policy *view;         /* held: mcpp_policy_view_hold */
    const char *base_id, *cand_id;   /* in the held receipts */
    rule_outcome *rules;             /* NULL when the policy has no rules */
    int has_metric;
    int metric_on_base, metric_on_cand; /* whether each side had the gate metric */
    int metric_disagrees; /* both had it, in another unit or direction: not compared */
    mcpp_metric_result metric;
    mcpp_gate_outcome gate;
    const char *gate_reason; /* made with the rows */
    cmp_gate_metric *gate_metrics; /* a multi-metric gate's metrics, else NULL */
    size_t n_gate_metrics;
    char *gate_metrics_reason; /* their reasons joined (owned) */
    char policy_digest[MCPP_POLICY_DIGEST_LEN + 1];
    atomic_int rows_state;
    pthread_mutex_t rows_lock;
    cmp_row *rows;
    size_t n_rows;
    char *arena;
    char text[]; /* metric name, method, unit, rule reasons */
};

static const char *const VERDICT_NAMES[] = {
    [MCPP_VERDICT_COMPARABLE] = "comparable",
    [MCPP_VERDICT_QUALIFIED] = "qualified",
    [MCPP_VERDICT_NOT_COMPARABLE] = "not_comparable",
    [MCPP_VERDICT_INSUFFICIENT] = "insufficient",
};
static const char *const DIM_STATUS_NAMES[] = {
    [MCPP_DIM_MATCH] = "match",     [MCPP_DIM_QUALIFY] = "qualify",           [MCPP_DIM_MISMATCH] = "mismatch",
    [MCPP_DIM_MISSING] = "missing", [MCPP_DIM_NOT_RECORDED] = "not_recorded",
};
static const char *const GATE_OUTCOME_NAMES[] = {
    [MCPP_GATE_PASSED] = "passed",
    [MCPP_GATE_FAILED] = "failed",
    [MCPP_GATE_UNDETERMINED] = "undetermined",
    [MCPP_GATE_ERROR] = "error",
    [MCPP_GATE_INCONCLUSIVE] = "inconclusive",
};

const char *mcpp_verdict_name(mcpp_verdict verdict) { return MCPP_ENUM_NAME(VERDICT_NAMES, verdict); }
const char *mcpp_dim_status_name(mcpp_dim_status status) { return MCPP_ENUM_NAME(DIM_STATUS_NAMES, status); }
const char *mcpp_gate_outcome_name(mcpp_gate_outcome outcome) { return MCPP_ENUM_NAME(GATE_OUTCOME_NAMES, outcome); }

int mcpp_output_format_parse(mcpp_output_format *out, const char *name)
{
    MCPP_CHECK_ARG(out && name, "output format: NULL argument");
    if (strcmp(name, "text") == 0) *out = MCPP_OUTPUT_TEXT;
    else if (strcmp(name, "json") == 0) *out = MCPP_OUTPUT_JSON;
    else if (strcmp(name, "markdown") == 0 || strcmp(name, "md") == 0) *out = MCPP_OUTPUT_MARKDOWN;
    else
        return MCPP_ERROR_ARG("unknown output format '%s' (expected text, json or markdown)", name);
    return MCPP_OK;
}

/* ---- Evaluation --------------------------------------------------------------------- */

/* What the evaluation writes while explaining: rows into a growable array,
 * text into the arena. NULL in the verdict-only path. */
typedef struct explain {
    mcpp_strbuf text;
    cmp_row *rows;
    size_t n_rows, cap_rows;
    int failed;
} explain;

/* lane.pattern of r, or NULL. */
static const char *pattern_of(const mcpp_policy *p, const mcpp_receipt *r)
{
    return mcpp_field_string(r, p->id_pattern);
}

static int get(const mcpp_receipt *r, int id, mcpp_value *v) { return mcpp_field_get(r, id, v); }

/* The short label of a field inside its dimension's text: the family for
 * backend.X.observed, the last component otherwise. */
static void put_label(mcpp_strbuf *b, const char *path)
{
    const char *last = strrchr(path, '.');
    if (!last) {
        mcpp_sb_puts(b, path);
        return;
    }
    if (strcmp(last, ".observed") == 0 || strcmp(last, ".requested") == 0) {
        const char *prev = last;
        while (prev > path && prev[-1] != '.') prev--;
        mcpp_sb_put(b, prev, (size_t)(last - prev));
        return;
    }
    mcpp_sb_puts(b, last + 1);
}

static size_t begin_text(explain *ex) { return ex->text.len; }
static void end_text(explain *ex) { mcpp_sb_putc(&ex->text, '\0'); }

static size_t add_text(explain *ex, const char *s)
{
    size_t off = begin_text(ex);
    mcpp_sb_puts(&ex->text, s);
    end_text(ex);
    return off;
}

/* A new row of status `st` and role `role`, its texts to come; NULL (and
 * ex->failed) when there is no room. */
static cmp_row *new_row(explain *ex, mcpp_dim_status st, mcpp_role role)
{
    cmp_row *r = MCPP_ARRAY_NEXT(ex->rows, ex->n_rows, ex->cap_rows, MCPP_ARRAY_MAX_ITEMS);
    if (!r) {
        ex->failed = 1;
        return NULL;
    }
    ex->n_rows++;
    r->status = (int)st;
    r->role = (int)role;
    return r;
}

/* The side's values of a FIELDS dimension as text. */
static size_t side_text(explain *ex, const mcpp_policy_dim *d, const mcpp_receipt *self,
                        const mcpp_receipt *other)
{
    size_t off = begin_text(ex);
    mcpp_value v, w;
    if (d->n_fields == 1) {
        if (get(self, d->ids[0], &v)) mcpp_value_text(&ex->text, &v, 0);
        else mcpp_sb_puts(&ex->text, "(absent)");
        end_text(ex);
        return off;
    }
    int any = 0;
    for (size_t i = 0; i < d->n_fields; i++) {
        int has = get(self, d->ids[i], &v);
        int other_has = get(other, d->ids[i], &w);
        if (!has && !other_has) continue;
        if (any) mcpp_sb_putc(&ex->text, ' ');
        put_label(&ex->text, d->paths[i]);
        mcpp_sb_putc(&ex->text, '=');
        mcpp_value_text(&ex->text, &v, 0);
        any = 1;
    }
    if (!any) mcpp_sb_puts(&ex->text, "(absent)");
    end_text(ex);
    return off;
}

/* 1 when r is the result of a benchmark suite with no model pattern
 * (pytest-benchmark, Google Benchmark, MLPerf): the model-shape dimensions
 * do not describe it; it compares on benchmark identity instead. */
static int suite_result(const mcpp_policy *p, const mcpp_receipt *r, const char *pat)
{
    return !pat && mcpp_field_present(r, p->id_suite);
}

/* 1 when r's source states it does not record the top-level section of `path`
 * (source.not_recorded, e.g. "compile" for MLPerf). */
static int not_recorded_by_source(const mcpp_policy *p, const mcpp_receipt *r, const char *path)
{
    mcpp_value v;
    if (!get(r, p->id_not_recorded, &v) || v.type != MCPP_TYPE_STRING_LIST) return 0;
    size_t section = strcspn(path, ".");
    for (size_t i = 0; i < v.count; i++)
        if (strlen(v.strings[i]) == section && strncmp(v.strings[i], path, section) == 0) return 1;
    return 0;
}

/* 1 when every field of d is absent from both and both sources say they do
 * not record it: "not recorded by source", neither a match nor missing. */
static int dim_not_recorded(const mcpp_policy *p, const mcpp_policy_dim *d, const mcpp_receipt *b,
                            const mcpp_receipt *c)
{
    if (!d->n_fields) return 0;
    for (size_t i = 0; i < d->n_fields; i++)
        if (mcpp_field_present(b, d->ids[i]) || mcpp_field_present(c, d->ids[i]) ||
            !not_recorded_by_source(p, b, d->paths[i]) || !not_recorded_by_source(p, c, d->paths[i]))
            return 0;
    return 1;
}

/* 1 when r states any field of d. */
static int dim_stated(const mcpp_policy_dim *d, const mcpp_receipt *r)
{
    for (size_t i = 0; i < d->n_fields; i++)
        if (mcpp_field_present(r, d->ids[i])) return 1;
    return 0;
}

/* A row for a dimension that is not compared, with its reason. */
static void uncompared_row(explain *ex, const mcpp_policy_dim *d, mcpp_dim_status st, const char *side,
                           const char *reason)
{
    cmp_row *row = ex ? new_row(ex, st, d->role) : NULL;
    if (!row)
        return;
    row->off_base = add_text(ex, side);
    row->off_cand = add_text(ex, side);
    row->off_reason = add_text(ex, reason);
}

/* Dimensions that are not compared for this pair: a model-only dimension
 * between two suite results, or one both sources say they do not record.
 * Returns 1 (row added, *st set) when d is one of them. */
static int skip_dimension(const mcpp_policy *p, const mcpp_policy_dim *d, const mcpp_receipt *b,
                          const mcpp_receipt *c, const char *pat_b, const char *pat_c, explain *ex,
                          mcpp_dim_status *st)
{
    if (d->applies == MCPP_APPLIES_MODEL && suite_result(p, b, pat_b) && suite_result(p, c, pat_c)) {
        *st = MCPP_DIM_MATCH;
        uncompared_row(ex, d, *st, "(not applicable)",
                       "not applicable: both are benchmark-suite results, compared on benchmark identity");
        return 1;
    }
    if (d->applies == MCPP_APPLIES_SUITE && !mcpp_field_present(b, p->id_suite) &&
        !mcpp_field_present(c, p->id_suite)) {
        *st = MCPP_DIM_MATCH;
        uncompared_row(ex, d, *st, "(not applicable)", "not applicable: neither is a benchmark-suite result");
        return 1;
    }
    if ((d->applies == MCPP_APPLIES_STATED ||
         (d->applies == MCPP_APPLIES_MODEL_OR_STATED && suite_result(p, b, pat_b) && suite_result(p, c, pat_c))) &&
        !dim_stated(d, b) && !dim_stated(d, c)) {
        *st = MCPP_DIM_MATCH;
        uncompared_row(ex, d, *st, "(not stated)", "not applicable: neither side states it");
        return 1;
    }
    if (dim_not_recorded(p, d, b, c)) {
        *st = MCPP_DIM_NOT_RECORDED;
        uncompared_row(ex, d, *st, "(not recorded by source)",
                       "not recorded by source on either side (source.not_recorded): not compared");
        return 1;
    }
    return 0;
}

/* Whether field i of d applies to a receipt with pattern `pat`. */
static int applies(const mcpp_policy_dim *d, size_t i, const char *pat)
{
    return !d->needs[i] || (pat && strchr(pat, d->needs[i]) != NULL);
}

static mcpp_dim_status eval_fields(const mcpp_policy_dim *d, const mcpp_receipt *b, const mcpp_receipt *c,
                                   const char *pat_b, const char *pat_c, explain *ex)
{
    int must = d->role == MCPP_ROLE_MUST_MATCH;
    size_t diffs = 0, one_sided = 0, present = 0, not_applicable = 0;
    mcpp_value vb, vc;
    mcpp_field_cmp stack_cmp[32], *cmp = stack_cmp;
    if (d->n_fields <= 32) mcpp_field_compare_many(stack_cmp, b, c, d->ids, d->n_fields);
    else cmp = NULL; /* a dimension this wide is rare: compare field by field */
    for (size_t i = 0; i < d->n_fields; i++) {
        int ab = applies(d, i, pat_b), ac = applies(d, i, pat_c);
        if (!ab && !ac) {
            not_applicable++;
            continue;
        }
        if (ab != ac) { /* the patterns differ in this block: a structural difference */
            diffs++;
            present++;
            continue;
        }
        mcpp_field_cmp fc = cmp ? cmp[i] : mcpp_field_compare(b, c, d->ids[i]);
        if (d->absent_is_none) /* absent means none: agreement, or a difference */
            fc = fc == MCPP_FIELD_ABSENT ? MCPP_FIELD_EQUAL : fc == MCPP_FIELD_ONE_SIDED ? MCPP_FIELD_DIFFERS : fc;
        switch (fc) {
        case MCPP_FIELD_ABSENT: break;
        case MCPP_FIELD_EQUAL: present++; break;
        case MCPP_FIELD_DIFFERS: present++, diffs++; break;
        case MCPP_FIELD_ONE_SIDED: present++, one_sided++; break;
        }
    }
    mcpp_dim_status st;
    if (d->n_fields && not_applicable == d->n_fields) st = MCPP_DIM_MATCH;
    else if (diffs) st = must ? MCPP_DIM_MISMATCH : MCPP_DIM_QUALIFY;
    else if (one_sided) st = must ? MCPP_DIM_MISSING : MCPP_DIM_QUALIFY;
    else if (!present) /* not recorded is not agreement */
        st = must && !d->unstated_qualifies ? MCPP_DIM_MISSING : MCPP_DIM_QUALIFY;
    else st = MCPP_DIM_MATCH;
    if (!ex) return st;

    cmp_row *row = new_row(ex, st, d->role);
    if (!row)
        return st;
    mcpp_strbuf *t = &ex->text;
    if (d->n_fields && not_applicable == d->n_fields) {
        row->off_base = add_text(ex, "(not applicable)");
        row->off_cand = add_text(ex, "(not applicable)");
        row->off_reason = begin_text(ex);
        mcpp_sb_printf(t, "not applicable: no %c blocks in either pattern", d->needs[0]);
        end_text(ex);
        return st;
    }
    row->off_base = side_text(ex, d, b, c);
    row->off_cand = side_text(ex, d, c, b);
    row->off_reason = begin_text(ex);
    if (diffs) {
        if (!must) mcpp_sb_puts(t, "qualifies: ");
        int first = 1;
        for (size_t i = 0; i < d->n_fields; i++) {
            int ab = applies(d, i, pat_b), ac = applies(d, i, pat_c);
            if (!ab && !ac) continue;
            if (ab != ac) {
                if (!first) mcpp_sb_puts(t, "; ");
                first = 0;
                mcpp_sb_printf(t, "%s applies to %s only (%c blocks in its pattern only)", d->paths[i],
                                    ab ? "base" : "cand", d->needs[i]);
                continue;
            }
            int pb = get(b, d->ids[i], &vb), pc = get(c, d->ids[i], &vc);
            /* field equality, not text: accelerator names compare by canonical id */
            mcpp_field_cmp fc = mcpp_field_compare(b, c, d->ids[i]);
            if (!(fc == MCPP_FIELD_DIFFERS || (d->absent_is_none && fc == MCPP_FIELD_ONE_SIDED))) continue;
            if (!first) mcpp_sb_puts(t, "; ");
            first = 0;
            mcpp_sb_printf(t, "%s differs: ", d->paths[i]);
            if (pb) mcpp_value_text(t, &vb, 0);
            else mcpp_sb_puts(t, "(none)");
            mcpp_sb_puts(t, " vs ");
            if (pc) mcpp_value_text(t, &vc, 0);
            else mcpp_sb_puts(t, "(none)");
        }
    } else if (one_sided) {
        int first = 1;
        for (size_t i = 0; i < d->n_fields; i++) {
            if (!applies(d, i, pat_b)) continue;
            int pb = get(b, d->ids[i], &vb), pc = get(c, d->ids[i], &vc);
            if (pb == pc) continue;
            if (!first) mcpp_sb_puts(t, "; ");
            first = 0;
            mcpp_sb_printf(t, "%s is absent on %s", d->paths[i], pb ? "cand" : "base");
        }
        mcpp_sb_puts(t, must ? " (missing is never a match)" : " (qualifies)");
    } else if (!present) {
        mcpp_sb_puts(t, must && !d->unstated_qualifies
                            ? "not stated on either side (missing is never a match)"
                            : "not recorded on either side (qualifies: absent on both is not agreement)");
    } else {
        mcpp_sb_puts(t, "same on both sides");
    }
    end_text(ex);
    return st;
}

/* Appends (when t is not NULL) one receipt's fired fallbacks and every
 * requested != observed pair, separated by `sep`; returns how many. */
size_t mcpp_fallback_items(const int *list_ids, size_t n_lists, const mcpp_receipt *r, mcpp_strbuf *t, const char *sep)
{
    size_t n = 0;
    mcpp_value v, req, obs, rc, oc;
    for (size_t f = 0; f < n_lists; f++) {
        if (mcpp_field_present(r, list_ids[f]) && get(r, list_ids[f], &v) && v.type == MCPP_TYPE_STRING_LIST) {
            for (size_t i = 0; i < v.count; i++) {
                if (t) {
                    if (n) mcpp_sb_puts(t, sep);
                    mcpp_sb_printf(t, "fallback fired: %s", v.strings[i]);
                }
                n++;
            }
        }
    }
    for (size_t i = 0; i < MCPP_REQUEST_PAIR_COUNT; i++) {
        const mcpp_request_pair *pr = &mcpp_request_pairs[i];
        /* Nothing requested, nothing to deviate from: skip the reads. */
        if (!mcpp_field_present(r, pr->requested) &&
            !mcpp_field_present(r, pr->requested_count))
            continue;
        /* the one rule of mcpp_fallback_count: a met request (an "auto", a
         * model met by any form of it) is not named */
        if (!mcpp_field_request_unmet(r, pr->requested, pr->observed, pr->requested_count, pr->observed_count))
            continue;
        int has_req = get(r, pr->requested, &req);
        int has_obs = get(r, pr->observed, &obs);
        int has_rc = get(r, pr->requested_count, &rc);
        int has_oc = get(r, pr->observed_count, &oc);
        if (t) {
            if (n) mcpp_sb_puts(t, sep);
            mcpp_sb_printf(t, "%s: requested ", pr->label);
            if (has_req) mcpp_value_text(t, &req, 0);
            else mcpp_sb_puts(t, "(unstated)");
            if (has_rc) {
                mcpp_sb_puts(t, " x");
                mcpp_value_text(t, &rc, 0);
            }
            mcpp_sb_puts(t, ", observed ");
            if (has_obs) mcpp_value_text(t, &obs, 0);
            else mcpp_sb_puts(t, "nothing recorded");
            if (has_oc) {
                mcpp_sb_puts(t, " x");
                mcpp_value_text(t, &oc, 0);
            }
        }
        n++;
    }
    return n;
}

/* Same fallbacks and the same requested/observed pairs on both sides. */
static int fallbacks_equal(const mcpp_policy_dim *d, const mcpp_receipt *b, const mcpp_receipt *c)
{
    for (size_t f = 0; f < d->n_fields; f++) {
        mcpp_field_cmp fc = mcpp_field_compare(b, c, d->ids[f]);
        if (fc == MCPP_FIELD_DIFFERS || fc == MCPP_FIELD_ONE_SIDED) return 0;
    }
    for (size_t i = 0; i < MCPP_REQUEST_PAIR_COUNT; i++) {
        const mcpp_request_pair *pr = &mcpp_request_pairs[i];
        const int ids[4] = {pr->requested, pr->observed, pr->requested_count, pr->observed_count};
        for (int k = 0; k < 4; k++) {
            mcpp_field_cmp fc = mcpp_field_compare(b, c, ids[k]);
            if (fc == MCPP_FIELD_DIFFERS || fc == MCPP_FIELD_ONE_SIDED) return 0;
        }
    }
    return 1;
}

/* How many fallbacks and requested != observed pairs a receipt has, read
 * straight from its slots (the count mcpp_fallback_items would give). */
size_t mcpp_fallback_count(const int *list_ids, size_t n_lists, const mcpp_receipt *r)
{
    size_t n = 0;
    for (size_t f = 0; f < n_lists; f++)
        n += mcpp_field_list_count(r, list_ids[f]);
    for (size_t i = 0; i < MCPP_REQUEST_PAIR_COUNT; i++) {
        const mcpp_request_pair *pr = &mcpp_request_pairs[i];
        n += mcpp_field_request_unmet(r, pr->requested, pr->observed, pr->requested_count, pr->observed_count);
    }
    return n;
}

size_t mcpp_request_not_met(const mcpp_policy *p, const mcpp_receipt *r, mcpp_strbuf *t)
{
    size_t n = mcpp_fallback_count(&p->id_fallbacks, 1, r);
    if (n && t) {
        mcpp_sb_puts(t, "request not met: ");
        mcpp_fallback_items(&p->id_fallbacks, 1, r, t, "; ");
    }
    return n;
}

static size_t fallback_items(const mcpp_policy_dim *d, const mcpp_receipt *r, mcpp_strbuf *t)
{
    return mcpp_fallback_items(d->ids, d->n_fields, r, t, "; ");
}

static mcpp_dim_status eval_fallbacks(const mcpp_policy_dim *d, const mcpp_receipt *b, const mcpp_receipt *c,
                                      explain *ex)
{
    size_t nb = mcpp_fallback_count(d->ids, d->n_fields, b), nc = mcpp_fallback_count(d->ids, d->n_fields, c);
    mcpp_dim_status st;
    if (!nb && !nc) st = MCPP_DIM_MATCH;
    else if (d->role == MCPP_ROLE_MUST_MATCH && !fallbacks_equal(d, b, c))
        st = MCPP_DIM_MISMATCH;
    else st = MCPP_DIM_QUALIFY;
    if (!ex) return st;
    cmp_row *row = new_row(ex, st, d->role);
    if (!row)
        return st;
    row->off_base = begin_text(ex);
    if (!fallback_items(d, b, &ex->text))
        mcpp_sb_puts(&ex->text, "none");
    end_text(ex);
    row->off_cand = begin_text(ex);
    if (!fallback_items(d, c, &ex->text))
        mcpp_sb_puts(&ex->text, "none");
    end_text(ex);
    row->off_reason = begin_text(ex);
    if (st == MCPP_DIM_MATCH) {
        mcpp_sb_puts(&ex->text, "no fallback fired and requested = observed on both sides");
    } else {
        mcpp_sb_puts(&ex->text, st == MCPP_DIM_MISMATCH ? "fallbacks differ: " : "qualifies: ");
        if (nb) {
            mcpp_sb_puts(&ex->text, "base ");
            fallback_items(d, b, &ex->text);
        }
        if (nc) {
            if (nb) mcpp_sb_puts(&ex->text, "; ");
            mcpp_sb_puts(&ex->text, "cand ");
            fallback_items(d, c, &ex->text);
        }
    }
    end_text(ex);
    return st;
}

/* The quality dimension (quality_check.c); its role decides what a
 * difference means: qualify by default, mismatch when a policy makes it
 * must-match. */
static mcpp_dim_status eval_quality(const mcpp_policy_dim *d, const mcpp_receipt *b, const mcpp_receipt *c, explain *ex)
{
    cmp_row *row = ex ? new_row(ex, MCPP_DIM_MATCH, d->role) : NULL; /* its status when known */
    if (row) {
        row->off_base = side_text(ex, d, b, c);
        row->off_cand = side_text(ex, d, c, b);
        row->off_reason = begin_text(ex);
    }
    mcpp_dim_status st = mcpp_quality_status(b, c, row ? &ex->text : NULL);
    if (st == MCPP_DIM_QUALIFY && d->role == MCPP_ROLE_MUST_MATCH)
        st = MCPP_DIM_MISMATCH;
    if (row) {
        end_text(ex);
        row->status = (int)st;
    }
    return st;
}

static mcpp_verdict fold(mcpp_verdict v, mcpp_dim_status st)
{
    mcpp_verdict from = st == MCPP_DIM_MISSING    ? MCPP_VERDICT_INSUFFICIENT
                        : st == MCPP_DIM_MISMATCH ? MCPP_VERDICT_NOT_COMPARABLE
                        : st == MCPP_DIM_QUALIFY  ? MCPP_VERDICT_QUALIFIED
                                                  : MCPP_VERDICT_COMPARABLE;
    /* The enum values are in precedence order: insufficient > not_comparable
     * > qualified > comparable. */
    return from > v ? from : v;
}

/* Runs custom rule `rule` on the pair: its status, and its reason in `reason`. */
static int run_rule(const mcpp_policy_rule *rule, const mcpp_receipt *b, const mcpp_receipt *c,
                    mcpp_dim_status *st, char *reason, size_t cap)
{
    reason[0] = '\0';
    mcpp_rule_outcome oc = MCPP_RULE_PASS;
    int rc = rule->fn(rule->userdata, b, c, &oc, reason, cap);
    if (rc != MCPP_OK) {
        const mcpp_error *e = mcpp_error_last();
        if (e->code == MCPP_OK)
            return mcpp_error_raise(MCPP_EPOLICY, MCPP_ERROR_KIND_POLICY, "rule '%s' failed", rule->name);
        return e->code; /* a sandbox bound keeps its MCPP_ELIMIT */
    }
    reason[cap - 1] = '\0';
    *st = oc == MCPP_RULE_QUALIFY        ? MCPP_DIM_QUALIFY
          : oc == MCPP_RULE_MISMATCH     ? MCPP_DIM_MISMATCH
          : oc == MCPP_RULE_INSUFFICIENT ? MCPP_DIM_MISSING
                                         : MCPP_DIM_MATCH;
    return MCPP_OK;
}

/* Adds a row the engine itself decides (not a policy dimension). */
static void builtin_row(explain *ex, const char *dim, mcpp_dim_status st, const char *base, const char *cand,
                        const char *reason)
{
    cmp_row *row = new_row(ex, st, st == MCPP_DIM_QUALIFY ? MCPP_ROLE_QUALIFY : MCPP_ROLE_MUST_MATCH);
    if (!row)
        return;
    row->off_dim = add_text(ex, dim);
    row->off_base = add_text(ex, base);
    row->off_cand = add_text(ex, cand);
    row->off_reason = add_text(ex, reason);
}

/* backend.verification.status as text, "(absent)" when not recorded. */
static const char *verification_status(const mcpp_policy *p, const mcpp_receipt *r)
{
    mcpp_value v;
    if (get(r, p->id_verification, &v) && (v.type == MCPP_TYPE_ENUM || v.type == MCPP_TYPE_STRING) && v.string)
        return v.string;
    return "(absent)";
}

static int verification_failed(const mcpp_policy *p, const mcpp_receipt *r)
{
    return strcmp(verification_status(p, r), "failed") == 0;
}

/* A failed kernel verification means the number was computed by kernels that
 * gave wrong answers: such a receipt is not comparable with anything, under
 * every policy. The row appears only when a side failed. */
static mcpp_dim_status eval_verification(const mcpp_policy *p, const mcpp_receipt *b, const mcpp_receipt *c,
                                         explain *ex)
{
    int fb = verification_failed(p, b), fc = verification_failed(p, c);
    if (!fb && !fc) return MCPP_DIM_MATCH;
    if (ex)
        builtin_row(ex, "verification", MCPP_DIM_MISMATCH, verification_status(p, b), verification_status(p, c),
                    fb && fc ? "kernel verification failed on both sides"
                    : fb     ? "base failed kernel verification: its number is not evidence"
                             : "cand failed kernel verification: its number is not evidence");
    return MCPP_DIM_MISMATCH;
}

/* The denominator of tokens/s (useful tokens per step) changing between runs
 * changes what "faster" means: named as a qualification with both values. A
 * receipt that does not state it is not held to it. */
static mcpp_dim_status eval_denominator(const mcpp_policy_dim *d, const mcpp_receipt *b, const mcpp_receipt *c,
                                        explain *ex)
{
    int id = d->n_fields ? d->ids[0] : -1;
    mcpp_field_cmp fc = mcpp_field_compare(b, c, id);
    mcpp_dim_status st = fc != MCPP_FIELD_DIFFERS          ? MCPP_DIM_MATCH
                         : d->role == MCPP_ROLE_MUST_MATCH ? MCPP_DIM_MISMATCH
                                                           : MCPP_DIM_QUALIFY;
    cmp_row *row = ex ? new_row(ex, st, d->role) : NULL;
    if (!row)
        return st;
    row->off_base = side_text(ex, d, b, c);
    row->off_cand = side_text(ex, d, c, b);
    row->off_reason = begin_text(ex);
    if (fc == MCPP_FIELD_DIFFERS) {
        mcpp_value vb, vc;
        get(b, id, &vb);
        get(c, id, &vc);
        mcpp_sb_puts(&ex->text, st == MCPP_DIM_QUALIFY ? "qualifies: " : "");
        mcpp_sb_printf(&ex->text, "%s differs: ", d->paths[0]);
        mcpp_value_text(&ex->text, &vb, 0);
        mcpp_sb_puts(&ex->text, " vs ");
        mcpp_value_text(&ex->text, &vc, 0);
        mcpp_sb_puts(&ex->text, " (the denominator of tokens/s changed: preserve it before accepting the win)");
    } else {
        mcpp_sb_puts(&ex->text, fc == MCPP_FIELD_EQUAL    ? "same on both sides"
                                : fc == MCPP_FIELD_ABSENT ? "stated on neither side"
                                                          : "stated on one side only: a receipt that does not state "
                                                            "it is not held to it");
    }
    end_text(ex);
    return st;
}

/* Rule i's status and reason: run now (and recorded when `log` records), or
 * replayed from `log`. *reason points into `scratch` (512 bytes) or the log. */
static int rule_status(const mcpp_policy *p, size_t i, const mcpp_receipt *b, const mcpp_receipt *c,
                       const rule_log *log, mcpp_dim_status *st, const char **reason, char *scratch)
{
    if (log && !log->record) {
        *st = (mcpp_dim_status)log->items[i].status;
        *reason = log->text + log->items[i].reason_off;
        return MCPP_OK;
    }
    int rc = run_rule(&p->rules[i], b, c, st, scratch, 512);
    if (rc != MCPP_OK) return rc;
    *reason = scratch;
    if (log) {
        log->items[i].status = (int)*st;
        log->items[i].reason_off = log->record->len;
        mcpp_sb_puts(log->record, scratch);
        mcpp_sb_putc(log->record, '\0');
    }
    return MCPP_OK;
}

/* The row of a custom rule. */
static void rule_row(explain *ex, const char *name, mcpp_dim_status st, const char *reason)
{
    cmp_row *row = new_row(ex, st, st == MCPP_DIM_QUALIFY ? MCPP_ROLE_QUALIFY : MCPP_ROLE_MUST_MATCH);
    if (!row)
        return;
    row->off_dim = add_text(ex, name);
    row->off_base = add_text(ex, "");
    row->off_cand = add_text(ex, "");
    row->off_reason = add_text(ex, reason[0] ? reason : (st == MCPP_DIM_MATCH ? "rule passed" : "rule fired"));
}

/* Runs the dimensions, the built-in checks, the required fields and the
 * custom rules (run, run and recorded, or replayed: see rule_log). */
static int evaluate(mcpp_verdict *out, const mcpp_policy *p, const mcpp_receipt *b, const mcpp_receipt *c,
                    explain *ex, const rule_log *rules)
{
    mcpp_verdict v = MCPP_VERDICT_COMPARABLE;
    const char *pat_b = pattern_of(p, b), *pat_c = pattern_of(p, c);
    for (size_t i = 0; i < p->n_dims; i++) {
        const mcpp_policy_dim *d = &p->dims[i];
        if (d->role == MCPP_ROLE_IGNORE) continue;
        size_t dim_off = ex ? add_text(ex, d->name) : 0;
        mcpp_dim_status st;
        if (!skip_dimension(p, d, b, c, pat_b, pat_c, ex, &st))
            st = d->kind == MCPP_DIM_KIND_FALLBACKS     ? eval_fallbacks(d, b, c, ex)
                 : d->kind == MCPP_DIM_KIND_QUALITY     ? eval_quality(d, b, c, ex)
                 : d->kind == MCPP_DIM_KIND_DENOMINATOR ? eval_denominator(d, b, c, ex)
                                                        : eval_fields(d, b, c, pat_b, pat_c, ex);
        if (ex && ex->n_rows) ex->rows[ex->n_rows - 1].off_dim = dim_off;
        v = fold(v, st);
    }
    v = fold(v, eval_verification(p, b, c, ex));
    for (size_t i = 0; i < p->n_required; i++) {
        int pb = mcpp_field_present(b, p->required_ids[i]), pc = mcpp_field_present(c, p->required_ids[i]);
        if (pb && pc) continue;
        v = fold(v, MCPP_DIM_MISSING);
        if (!ex) continue;
        cmp_row *row = new_row(ex, MCPP_DIM_MISSING, MCPP_ROLE_MUST_MATCH);
        if (!row)
            continue;
        row->off_dim = add_text(ex, p->required[i]);
        row->off_base = add_text(ex, pb ? "(present)" : "(absent)");
        row->off_cand = add_text(ex, pc ? "(present)" : "(absent)");
        row->off_reason = begin_text(ex);
        mcpp_sb_printf(&ex->text, "required by policy '%s'; absent on %s", p->name, mcpp_absent_sides(pb, pc));
        end_text(ex);
    }
    for (size_t i = 0; i < p->n_rules; i++) {
        mcpp_dim_status st = MCPP_DIM_MATCH;
        char scratch[512];
        const char *reason;
        int rc = rule_status(p, i, b, c, rules, &st, &reason, scratch);
        if (rc != MCPP_OK) return rc;
        v = fold(v, st);
        if (ex) rule_row(ex, p->rules[i].name, st, reason);
    }
    *out = v;
    return MCPP_OK;
}

int mcpp_compare_self_verdict(mcpp_verdict *out, const mcpp_policy *p, const mcpp_receipt *r)
{
    /* Compared with itself nothing differs: only absent must-match fields,
     * absent required fields, a failed verification and the rules can speak.
     * A dimension evaluate skips (not applicable, not recorded) stays silent
     * here too, so a clean receipt is never sent on to its rows. */
    mcpp_verdict v = MCPP_VERDICT_COMPARABLE;
    const char *pat = pattern_of(p, r);
    for (size_t i = 0; i < p->n_dims; i++) {
        const mcpp_policy_dim *d = &p->dims[i];
        mcpp_dim_status st;
        if (d->role != MCPP_ROLE_MUST_MATCH || d->kind != MCPP_DIM_KIND_FIELDS) continue;
        if (!skip_dimension(p, d, r, r, pat, pat, NULL, &st)) st = eval_fields(d, r, r, pat, pat, NULL);
        v = fold(v, st);
    }
    v = fold(v, eval_verification(p, r, r, NULL));
    for (size_t i = 0; i < p->n_required; i++)
        if (!mcpp_field_present(r, p->required_ids[i])) v = fold(v, MCPP_DIM_MISSING);
    for (size_t i = 0; i < p->n_rules; i++) {
        char reason[512];
        mcpp_dim_status st = MCPP_DIM_MATCH;
        int rc = run_rule(&p->rules[i], r, r, &st, reason, sizeof reason);
        if (rc != MCPP_OK) return rc;
        v = fold(v, st);
    }
    *out = v;
    return MCPP_OK;
}

int mcpp_compare_verdict(mcpp_verdict *out, const mcpp_policy *policy, const mcpp_receipt *base,
                         const mcpp_receipt *cand)
{
    MCPP_CHECK_ARG(out && base && cand, "mcpp_compare_verdict: NULL argument");
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    return evaluate(out, p, base, cand, NULL, NULL);
}


/* ---- One comparison: decided now, explained when read ------------------------------------ */

/* The gate metric's values on both sides under `p` (the policy, or the
 * view when the reason is written later). 1 when both sides have it, 0 when
 * a side lacks it, < 0 on error; *hb / *hc say which side had it. */
static int metric_sides(mcpp_metric_side *sb, mcpp_metric_side *sc, const mcpp_policy *p,
                        const mcpp_receipt *base, const mcpp_receipt *cand, int *hb, int *hc)
{
    memset(sb, 0, sizeof *sb);
    memset(sc, 0, sizeof *sc);
    *hb = mcpp_metric_side_add(sb, p, &p->gate_ref, base);
    *hc = mcpp_metric_side_add(sc, p, &p->gate_ref, cand);
    if (*hb < 0 || *hc < 0) return mcpp_error_nomem();
    return *hb && *hc;
}

static void gate_metrics_free(cmp_gate_metric *g, size_t n)
{
    for (size_t k = 0; g && k < n; k++) {
        free(g[k].name);
        free(g[k].reason);
        free((char *)g[k].result.metric);
        free((char *)g[k].result.unit);
        free((char *)g[k].result.method);
    }
    free(g);
}

/* Decides one metric of a multi-metric gate for the pair, as the gate does
 * for a pool: skipped when absent on both sides, undetermined when absent
 * on one, when the sides disagree on unit or direction or the policy states
 * another direction; else compared at the metric's own confidence and
 * allowance. */
static int decide_gate_metric(cmp_gate_metric *g, const mcpp_policy *p, const mcpp_gate_metric_spec *spec,
                              const mcpp_receipt *base, const mcpp_receipt *cand)
{
    mcpp_metric_side sb, sc;
    memset(&sb, 0, sizeof sb);
    memset(&sc, 0, sizeof sc);
    mcpp_strbuf reason;
    mcpp_sb_init_heap(&reason, 256);
    int failed = 0, rc = MCPP_OK;
    int hb = mcpp_metric_side_add(&sb, p, &spec->ref, base);
    int hc = mcpp_metric_side_add(&sc, p, &spec->ref, cand);
    g->outcome = MCPP_GATE_UNDETERMINED;
    if (hb < 0 || hc < 0) {
        rc = mcpp_error_nomem();
    } else if (!hb && !hc) {
        g->skipped = 1;
        mcpp_sb_printf(&reason, "%s is absent on both sides: skipped", spec->text);
    } else if (!hb || !hc) {
        mcpp_sb_printf(&reason, "%s is absent on %s: no metric comparison", spec->text, !hb ? "base" : "cand");
    } else if (mcpp_metric_sides_agree(&sb, &sc, &reason)) {
        if (spec->direction >= 0 && spec->direction != sb.ident.higher_is_better) {
            mcpp_sb_printf(&reason, "%s: the policy says %s is better, the receipts say %s: not compared",
                           sb.ident.name, spec->direction ? "higher" : "lower",
                           sb.ident.higher_is_better ? "higher" : "lower");
        } else if ((rc = mcpp_metric_compare(&g->result, p, spec->confidence, &sb, &sc, NULL)) == MCPP_OK) {
            g->has_result = 1;
            mcpp_metric_settle(&g->result, p, spec->max_regression, 0);
            g->outcome = mcpp_metric_gate(&g->result, p, spec->max_regression, &reason);
        }
    }
    /* the result's texts point into the receipts or static text: keep copies */
    g->result.metric = mcpp_strdup(g->result.metric, &failed);
    g->result.unit = mcpp_strdup(g->result.unit, &failed);
    g->result.method = mcpp_strdup(g->result.method, &failed);
    g->name = mcpp_strdup(spec->text, &failed);
    if (!rc && (failed || reason.failed)) rc = mcpp_error_nomem();
    g->reason = reason.data;
    reason.data = NULL;
    mcpp_sb_free(&reason);
    mcpp_metric_side_free(&sb);
    mcpp_metric_side_free(&sc);
    return rc;
}

/* Every metric of a multi-metric gate, and the pair's outcome: a breach of
 * any fails it; else an undetermined metric, or every metric skipped, leaves
 * it undetermined (the rule of the merge gate, gate.c). The first compared
 * metric is the comparison's metric. */
static int decide_gate_metrics(mcpp_comparison *cmp, const mcpp_policy *p, const mcpp_receipt *base,
                               const mcpp_receipt *cand)
{
    mcpp_gate_metric_spec single;
    const mcpp_gate_metric_spec *specs = NULL;
    size_t n = mcpp_policy_gate_metrics(p, &specs, &single);
    cmp_gate_metric *g = calloc(n, sizeof *g);
    if (!g) return mcpp_error_nomem();
    cmp->gate_metrics = g;
    cmp->n_gate_metrics = n;
    size_t counts[MCPP_GATE_OUTCOMES] = {0}, skipped = 0;
    mcpp_strbuf reason;
    mcpp_sb_init_heap(&reason, 256);
    for (size_t k = 0; k < n; k++) {
        int rc = decide_gate_metric(&g[k], p, &specs[k], base, cand);
        if (rc != MCPP_OK) {
            mcpp_sb_free(&reason);
            return rc;
        }
        skipped += g[k].skipped;
        if (!g[k].skipped)
            counts[g[k].outcome]++;
        if (g[k].has_result && !cmp->has_metric) {
            cmp->metric = g[k].result;
            cmp->has_metric = 1;
        }
        if (k) mcpp_sb_puts(&reason, "; ");
        mcpp_sb_puts(&reason, g[k].reason ? g[k].reason : "");
    }
    cmp->gate = mcpp_gate_outcome_of(counts, skipped == n);
    if (reason.failed) {
        mcpp_sb_free(&reason);
        return mcpp_error_nomem();
    }
    cmp->gate_metrics_reason = reason.data;
    return MCPP_OK;
}

/* The metric comparison and the gate outcome, without the reason's text. */
static int decide_gate(mcpp_comparison *cmp, const mcpp_policy *p, const mcpp_receipt *base,
                       const mcpp_receipt *cand)
{
    cmp->gate = MCPP_GATE_UNDETERMINED;
    if (cmp->verdict != MCPP_VERDICT_COMPARABLE && cmp->verdict != MCPP_VERDICT_QUALIFIED) return MCPP_OK;
    if (p->n_gate_metrics > 1) return decide_gate_metrics(cmp, p, base, cand);
    mcpp_metric_side sb, sc;
    mcpp_strbuf none; /* the reasons are written when they are first read */
    mcpp_sb_init_discard(&none);
    int rc = metric_sides(&sb, &sc, p, base, cand, &cmp->metric_on_base, &cmp->metric_on_cand);
    if (rc == 1) {
        rc = MCPP_OK;
        if (!mcpp_metric_sides_agree(&sb, &sc, &none)) {
            cmp->metric_disagrees = 1;
        } else if ((rc = mcpp_metric_compare(&cmp->metric, p, p->gate.confidence, &sb, &sc, NULL)) == MCPP_OK) {
            cmp->has_metric = 1;
            mcpp_metric_settle(&cmp->metric, p, p->gate.max_regression, 0);
            cmp->gate = mcpp_metric_gate(&cmp->metric, p, p->gate.max_regression, &none);
        }
    }
    mcpp_metric_side_free(&sb);
    mcpp_metric_side_free(&sc);
    return rc;
}

/* The gate's reason line: mcpp_metric_gate decides again on the kept metric
 * result under the policy view (the same settings, so the same outcome). */
static void write_gate_reason(const mcpp_comparison *c, mcpp_strbuf *reason)
{
    const mcpp_policy *p = c->view;
    int hb = c->metric_on_base, hc = c->metric_on_cand;
    if (c->verdict != MCPP_VERDICT_COMPARABLE && c->verdict != MCPP_VERDICT_QUALIFIED) {
        mcpp_sb_printf(reason, "comparability not established (verdict %s): no metric comparison",
                       mcpp_verdict_name(c->verdict));
    } else if (c->gate_metrics) {
        mcpp_sb_puts(reason, c->gate_metrics_reason);
    } else if (c->has_metric) {
        mcpp_metric_gate(&c->metric, p, p->gate.max_regression, reason);
    } else if (c->metric_disagrees) {
        mcpp_metric_side sb, sc; /* read again from the held receipts to say how they disagree */
        if (metric_sides(&sb, &sc, p, c->base, c->cand, &hb, &hc) == 1) mcpp_metric_sides_agree(&sb, &sc, reason);
        else reason->failed = 1;
        mcpp_metric_side_free(&sb);
        mcpp_metric_side_free(&sc);
    } else {
        mcpp_sb_printf(reason, "%s is absent on %s: no metric comparison", p->gate.metric, mcpp_absent_sides(hb, hc));
    }
}

/* Copies the texts decided now (metric name, method, unit, rule reasons)
 * into a new comparison; NULL when out of memory. */
static mcpp_comparison *comparison_new(const mcpp_comparison *decided, const mcpp_strbuf *rule_text)
{
    const char *metric = decided->metric.metric ? decided->metric.metric : "";
    const char *method = decided->has_metric ? decided->metric.method : "";
    const char *unit = decided->has_metric && decided->metric.unit ? decided->metric.unit : "";
    size_t lm = strlen(metric), lh = strlen(method), lu = strlen(unit), lt = rule_text->len;
    mcpp_comparison *cmp = malloc(sizeof *cmp + lm + lh + lu + lt + 3);
    if (!cmp) return NULL;
    *cmp = *decided;
    char *t = cmp->text;
    memcpy(t, metric, lm + 1);
    cmp->metric.metric = t;
    t += lm + 1;
    memcpy(t, method, lh + 1);
    cmp->metric.method = t;
    t += lh + 1;
    memcpy(t, unit, lu + 1);
    cmp->metric.unit = lu ? t : NULL;
    t += lu + 1;
    if (lt) memcpy(t, rule_text->data, lt);
    return cmp;
}

int mcpp_compare(mcpp_comparison **out, const mcpp_policy *policy, const mcpp_receipt *base,
                 const mcpp_receipt *cand)
{
    MCPP_CHECK_ARG(out, "mcpp_compare: NULL out");
    *out = NULL;
    MCPP_CHECK_ARG(base && cand, "mcpp_compare: NULL receipt");
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();

    mcpp_comparison d; /* decided here, copied into the allocation at the end */
    memset(&d, 0, sizeof d);
    char rules_initial[512];
    mcpp_strbuf rule_text;
    mcpp_sb_init(&rule_text, rules_initial, sizeof rules_initial);
    rule_log log = {NULL, &rule_text, NULL};
    int rc = MCPP_OK;
    if (p->n_rules && !(log.items = d.rules = malloc(p->n_rules * sizeof *d.rules))) rc = mcpp_error_nomem();
    if (!rc) rc = evaluate(&d.verdict, p, base, cand, NULL, p->n_rules ? &log : NULL);
    if (!rc) rc = decide_gate(&d, p, base, cand);
    if (!rc && rule_text.failed) rc = mcpp_error_nomem();
    if (!rc && !(d.view = mcpp_policy_view_hold(p)))
        rc = mcpp_error_nomem();
    mcpp_comparison *cmp = rc ? NULL : comparison_new(&d, &rule_text);
    mcpp_sb_free(&rule_text);
    if (!cmp) {
        if (!rc) rc = mcpp_error_nomem();
        mcpp_policy_view_release(d.view);
        free(d.rules);
        gate_metrics_free(d.gate_metrics, d.n_gate_metrics);
        free(d.gate_metrics_reason);
        return rc;
    }
    mcpp_policy_digest_fill(cmp->policy_digest, cmp->view);
    const char *bid = mcpp_receipt_id(base), *cid = mcpp_receipt_id(cand);
    cmp->base_id = bid ? bid : "";
    cmp->cand_id = cid ? cid : "";
    cmp->base = mcpp_receipt_retain(base);
    cmp->cand = mcpp_receipt_retain(cand);
    atomic_init(&cmp->rows_state, ROWS_PENDING);
    pthread_mutex_init(&cmp->rows_lock, NULL);
    *out = cmp;
    return MCPP_OK;
}

/* Renders the rows (rules replayed) and the gate reason from the held
 * receipts and view. */
static int build_rows(mcpp_comparison *c)
{
    explain ex;
    memset(&ex, 0, sizeof ex);
    mcpp_sb_init_heap(&ex.text, 2048);
    const char *rule_text = c->text;
    for (int skip = 0; skip < 3; skip++) rule_text += strlen(rule_text) + 1; /* past metric, method, unit */
    rule_log replay = {c->rules, NULL, rule_text};
    mcpp_verdict v;
    int rc = evaluate(&v, c->view, c->base, c->cand, &ex, c->rules ? &replay : NULL);
    size_t off_gate_reason = begin_text(&ex);
    write_gate_reason(c, &ex.text);
    end_text(&ex);
    if (rc == MCPP_OK && (ex.failed || ex.text.failed)) rc = mcpp_error_nomem();
    if (rc != MCPP_OK) {
        mcpp_sb_free(&ex.text);
        free(ex.rows);
        return rc;
    }
    c->arena = ex.text.data;
    c->gate_reason = c->arena + off_gate_reason;
    c->rows = ex.rows;
    c->n_rows = ex.n_rows;
    for (size_t i = 0; i < c->n_rows; i++) {
        cmp_row *r = &c->rows[i];
        r->dim = c->arena + r->off_dim;
        r->base = c->arena + r->off_base;
        r->cand = c->arena + r->off_cand;
        r->reason = c->arena + r->off_reason;
    }
    return MCPP_OK;
}

int mcpp_comparison_explain(const mcpp_comparison *comparison)
{
    MCPP_CHECK_ARG(comparison, "mcpp_comparison_explain: NULL comparison");
    mcpp_comparison *c = (mcpp_comparison *)comparison; /* rows are a cache: readers may build them */
    if (atomic_load_explicit(&c->rows_state, memory_order_acquire) == ROWS_READY) return MCPP_OK;
    pthread_mutex_lock(&c->rows_lock);
    int rc = MCPP_OK;
    if (atomic_load_explicit(&c->rows_state, memory_order_relaxed) != ROWS_READY) {
        rc = build_rows(c);
        if (rc == MCPP_OK) atomic_store_explicit(&c->rows_state, ROWS_READY, memory_order_release);
    }
    pthread_mutex_unlock(&c->rows_lock);
    return rc;
}

void mcpp_comparison_free(mcpp_comparison *comparison)
{
    if (!comparison) return;
    pthread_mutex_destroy(&comparison->rows_lock);
    mcpp_receipt_free((mcpp_receipt *)comparison->base);
    mcpp_receipt_free((mcpp_receipt *)comparison->cand);
    mcpp_policy_view_release(comparison->view);
    free(comparison->rules);
    gate_metrics_free(comparison->gate_metrics, comparison->n_gate_metrics);
    free(comparison->gate_metrics_reason);
    free(comparison->rows);
    free(comparison->arena);
    free(comparison);
}

mcpp_verdict mcpp_comparison_verdict(const mcpp_comparison *c)
{
    return c ? c->verdict : MCPP_VERDICT_INSUFFICIENT;
}

const char *mcpp_comparison_base_id(const mcpp_comparison *c) { return c ? c->base_id : NULL; }
const char *mcpp_comparison_cand_id(const mcpp_comparison *c) { return c ? c->cand_id : NULL; }
const char *mcpp_comparison_policy_name(const mcpp_comparison *c) { return c ? c->view->name : NULL; }
const char *mcpp_comparison_policy_digest(const mcpp_comparison *c) { return c ? c->policy_digest : NULL; }

/* The row at i, rendering the rows on first use; NULL when out of range or
 * when they cannot be rendered (the last error says why). */
static const cmp_row *row_at(const mcpp_comparison *c, size_t i)
{
    if (!c || mcpp_comparison_explain(c) != MCPP_OK) return NULL;
    return i < c->n_rows ? &c->rows[i] : NULL;
}

size_t mcpp_comparison_row_count(const mcpp_comparison *c)
{
    return c && mcpp_comparison_explain(c) == MCPP_OK ? c->n_rows : 0;
}

const char *mcpp_comparison_row_dimension(const mcpp_comparison *c, size_t i)
{
    const cmp_row *r = row_at(c, i);
    return r ? r->dim : NULL;
}

int mcpp_comparison_row_status(const mcpp_comparison *c, size_t i)
{
    const cmp_row *r = row_at(c, i);
    return r ? r->status : -1;
}

int mcpp_comparison_row_role(const mcpp_comparison *c, size_t i)
{
    const cmp_row *r = row_at(c, i);
    return r ? r->role : -1;
}

const char *mcpp_comparison_row_base(const mcpp_comparison *c, size_t i)
{
    const cmp_row *r = row_at(c, i);
    return r ? r->base : NULL;
}

const char *mcpp_comparison_row_cand(const mcpp_comparison *c, size_t i)
{
    const cmp_row *r = row_at(c, i);
    return r ? r->cand : NULL;
}

const char *mcpp_comparison_row_reason(const mcpp_comparison *c, size_t i)
{
    const cmp_row *r = row_at(c, i);
    return r ? r->reason : NULL;
}

const mcpp_metric_result *mcpp_comparison_metric(const mcpp_comparison *c)
{
    return c && c->has_metric ? &c->metric : NULL;
}

mcpp_gate_outcome mcpp_comparison_gate(const mcpp_comparison *c) { return c ? c->gate : MCPP_GATE_UNDETERMINED; }

/* A single-metric gate reads as one metric: the comparison's own. */
size_t mcpp_comparison_gate_metric_count(const mcpp_comparison *c)
{
    return !c ? 0 : c->gate_metrics ? c->n_gate_metrics : 1;
}

const char *mcpp_comparison_gate_metric_name(const mcpp_comparison *c, size_t k)
{
    if (!c || k >= mcpp_comparison_gate_metric_count(c)) return NULL;
    return c->gate_metrics ? c->gate_metrics[k].name : c->view->gate.metric;
}

mcpp_gate_outcome mcpp_comparison_gate_metric_outcome(const mcpp_comparison *c, size_t k)
{
    if (!c || k >= mcpp_comparison_gate_metric_count(c)) return MCPP_GATE_UNDETERMINED;
    return c->gate_metrics ? c->gate_metrics[k].outcome : c->gate;
}

int mcpp_comparison_gate_metric_skipped(const mcpp_comparison *c, size_t k)
{
    return c && c->gate_metrics && k < c->n_gate_metrics ? c->gate_metrics[k].skipped : 0;
}

const mcpp_metric_result *mcpp_comparison_gate_metric_result(const mcpp_comparison *c, size_t k)
{
    if (!c || k >= mcpp_comparison_gate_metric_count(c)) return NULL;
    if (!c->gate_metrics) return mcpp_comparison_metric(c);
    return c->gate_metrics[k].has_result ? &c->gate_metrics[k].result : NULL;
}

const char *mcpp_comparison_gate_metric_reason(const mcpp_comparison *c, size_t k)
{
    if (!c || k >= mcpp_comparison_gate_metric_count(c)) return NULL;
    if (!c->gate_metrics) return mcpp_comparison_gate_reason(c);
    if (c->verdict != MCPP_VERDICT_COMPARABLE && c->verdict != MCPP_VERDICT_QUALIFIED)
        return mcpp_comparison_gate_reason(c);
    return c->gate_metrics[k].reason;
}

const char *mcpp_comparison_gate_reason(const mcpp_comparison *c)
{
    if (!c) return NULL;
    /* never NULL: a reason that cannot be made says why (the last error too) */
    return mcpp_comparison_explain(c) == MCPP_OK ? c->gate_reason : "(out of memory writing the reason)";
}
