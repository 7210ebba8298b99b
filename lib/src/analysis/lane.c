/*
 * lane.c — lane keys and mergeable lane summaries.
 *
 * A summary keeps exactly what the lane's status and headline are computed
 * from: counts, sets of texts (blockers, fallbacks), the multiset of receipt
 * ids and the multiset of headline values. Every quantity is a function of the
 * multiset of receipts added, so summaries of disjoint partitions merge into
 * exactly the summary of the union. The step values of single runs are kept
 * only while the lane has fewer than two run values, because only then are
 * they used; dropping them later is also a function of the multiset.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/c_locale.h"
#include "util/enum_names.h"
#include "util/error_internal.h"
#include "util/struct_version.h"
#include "analysis/lane_internal.h"
#include "analysis/stats_internal.h"

/* The dimensions a lane is keyed by: every must-match one over fields, and
 * the qualifying ones that still key lanes (different starting lines,
 * framework versions and denominators are different benchmarks: issue 47). */
static int is_key_dim(const mcpp_policy_dim *d)
{
    if (d->role == MCPP_ROLE_MUST_MATCH)
        return d->kind == MCPP_DIM_KIND_FIELDS;
    return d->role == MCPP_ROLE_QUALIFY && d->keys_lane &&
           (d->kind == MCPP_DIM_KIND_FIELDS || d->kind == MCPP_DIM_KIND_DENOMINATOR);
}

size_t mcpp_lane_key_dim_count(const mcpp_policy *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_dims; i++) n += is_key_dim(&p->dims[i]);
    return n;
}

const char *mcpp_lane_key_dim_name(const mcpp_policy *p, size_t k)
{
    for (size_t i = 0; i < p->n_dims; i++)
        if (is_key_dim(&p->dims[i]) && k-- == 0) return p->dims[i].name;
    return NULL;
}

const mcpp_policy_dim *mcpp_lane_key_dim(const mcpp_policy *p, size_t k)
{
    for (size_t i = 0; i < p->n_dims; i++)
        if (is_key_dim(&p->dims[i]) && k-- == 0) return &p->dims[i];
    return NULL;
}

void mcpp_lane_key_append(mcpp_strbuf *b, const mcpp_policy *p, const mcpp_receipt *r, uint64_t *seg_hashes)
{
    size_t k = 0;
    for (size_t i = 0; i < p->n_dims; i++) {
        const mcpp_policy_dim *d = &p->dims[i];
        if (!is_key_dim(d)) continue;
        if (k) mcpp_sb_putc(b, ';');
        size_t start = b->len;
        mcpp_sb_puts(b, d->name);
        mcpp_sb_putc(b, '=');
        for (size_t f = 0; f < d->n_fields; f++) {
            if (f) mcpp_sb_putc(b, '|');
            mcpp_field_text(b, r, d->ids[f], 1);
        }
        if (seg_hashes && !b->failed) seg_hashes[k] = mcpp_fnv1a(b->data + start, b->len - start, MCPP_FNV_OFFSET);
        k++;
    }
}

uint64_t mcpp_lane_key_layout_hash(const mcpp_policy *p)
{
    uint64_t h = MCPP_FNV_OFFSET;
    for (size_t i = 0; i < p->n_dims; i++) {
        const mcpp_policy_dim *d = &p->dims[i];
        if (!is_key_dim(d))
            continue;
        h = mcpp_fnv1a(d->name, strlen(d->name) + 1, h); /* each text with its NUL: no two layouts run together */
        for (size_t f = 0; f < d->n_fields; f++)
            h = mcpp_fnv1a(d->paths[f], strlen(d->paths[f]) + 1, h);
        h = mcpp_fnv1a(";", 1, h);
    }
    return h;
}

uint64_t mcpp_lane_key_hash(const mcpp_policy *p, const mcpp_receipt *r)
{
    uint64_t h = MCPP_FNV_OFFSET;
    for (size_t i = 0; i < p->n_dims; i++) {
        const mcpp_policy_dim *d = &p->dims[i];
        if (!is_key_dim(d)) continue;
        for (size_t f = 0; f < d->n_fields; f++) h = mcpp_field_hash(r, d->ids[f], h);
    }
    return h;
}

int mcpp_lane_same(const mcpp_policy *p, const mcpp_receipt *a, const mcpp_receipt *b)
{
    for (size_t i = 0; i < p->n_dims; i++) {
        const mcpp_policy_dim *d = &p->dims[i];
        if (!is_key_dim(d)) continue;
        for (size_t f = 0; f < d->n_fields; f++)
            if (!mcpp_field_same(a, b, d->ids[f])) return 0;
    }
    return 1;
}

int mcpp_lane_key(char **out, const mcpp_policy *policy, const mcpp_receipt *receipt)
{
    MCPP_CHECK_ARG(out && receipt, "mcpp_lane_key: NULL argument");
    *out = NULL;
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    char text[1024]; /* copied out at its length: a report keeps one per candidate */
    mcpp_strbuf b;
    mcpp_sb_init(&b, text, sizeof text);
    mcpp_lane_key_append(&b, p, receipt, NULL);
    return mcpp_sb_finish(&b, out);
}

int mcpp_lane_key_short(char *buf, size_t cap, const char *key)
{
    MCPP_CHECK_ARG(buf && key && cap >= 18, "mcpp_lane_key_short: NULL key or cap < 18");
    uint64_t h = mcpp_fnv1a(key, strlen(key), MCPP_FNV_OFFSET);
    snprintf(buf, cap, "lane-%012llx", (unsigned long long)(h >> 16));
    return MCPP_OK;
}

static const char *const LANE_STATUS_NAMES[] = {
    [MCPP_LANE_STABLE] = "stable",
    [MCPP_LANE_UNSTABLE] = "unstable",
    [MCPP_LANE_INSUFFICIENT] = "insufficient",
};

const char *mcpp_lane_status_name(mcpp_lane_status status) { return MCPP_ENUM_NAME(LANE_STATUS_NAMES, status); }

/* ---- Text multisets ------------------------------------------------------------------ */

/* Counts and offsets in 32 bits: a list holds at most MCPP_ARRAY_MAX_ITEMS
 * (2^28) bytes or items, and a frontier keeps five of these a lane (48 bytes
 * each with size_t, 32 now; with dvec's the summary 656 -> 552 bytes). */
typedef struct textset {
    char *arena;
    uint32_t *offs;
    uint32_t len, cap;
    uint32_t n, ncap;
} textset;

static void textset_free(textset *t)
{
    free(t->arena);
    free(t->offs);
    memset(t, 0, sizeof *t);
}

static const char *textset_at(const textset *t, size_t i) { return t->arena + t->offs[i]; }

static int textset_contains(const textset *t, const char *s)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(textset_at(t, i), s) == 0) return 1;
    return 0;
}

/* Adds s; with `unique` set, a text already present is not added again. */
static int textset_add(textset *t, const char *s, int unique)
{
    if (unique && textset_contains(t, s)) return MCPP_OK;
    size_t n = strlen(s) + 1, cap = t->cap, ncap = t->ncap;
    MCPP_CHECK_ARRAY(t->arena, cap, (size_t)t->len + n, MCPP_ARRAY_MAX_ITEMS);
    t->cap = (uint32_t)cap;
    MCPP_CHECK_ARRAY(t->offs, ncap, (size_t)t->n + 1, MCPP_ARRAY_MAX_ITEMS);
    t->ncap = (uint32_t)ncap;
    memcpy(t->arena + t->len, s, n);
    t->offs[t->n++] = t->len;
    t->len += (uint32_t)n;
    return MCPP_OK;
}

static void textset_fit(textset *t)
{
    size_t cap = t->cap, ncap = t->ncap;
    MCPP_ARRAY_FIT(t->arena, cap, t->len);
    MCPP_ARRAY_FIT(t->offs, ncap, t->n);
    t->cap = (uint32_t)cap;
    t->ncap = (uint32_t)ncap;
}

static int compare_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char **textset_sorted(const textset *t)
{
    const char **v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < t->n; i++) v[i] = textset_at(t, i);
    if (t->n > 1) qsort(v, t->n, sizeof *v, compare_cstr);
    return v;
}

static int textset_equal(const textset *a, const textset *b)
{
    if (a->n != b->n) return 0;
    const char **x = textset_sorted(a), **y = textset_sorted(b);
    int eq = x && y;
    for (size_t i = 0; eq && i < a->n; i++) eq = strcmp(x[i], y[i]) == 0;
    free(x);
    free(y);
    return eq;
}

/* ---- Summaries ------------------------------------------------------------------- */

typedef struct dvec {
    double *v;
    uint32_t n, cap; /* as textset's */
} dvec;

static int dvec_push(dvec *d, double x)
{
    size_t cap = d->cap;
    MCPP_CHECK_ARRAY(d->v, cap, (size_t)d->n + 1, MCPP_ARRAY_MAX_ITEMS);
    d->cap = (uint32_t)cap;
    d->v[d->n++] = x;
    return MCPP_OK;
}

static void dvec_free(dvec *d)
{
    free(d->v);
    memset(d, 0, sizeof *d);
}

static void dvec_fit(dvec *d)
{
    size_t cap = d->cap;
    MCPP_ARRAY_FIT(d->v, cap, d->n);
    d->cap = (uint32_t)cap;
}

struct mcpp_lane_summary {
    const mcpp_policy *policy;
    char *metric;        /* as asked: "primary", "time_to_train_s", "metrics.tokens_per_s" */
    mcpp_metric_ref ref; /* metric, resolved */
    /* What the runs say the metric is: the first run's name, unit and
     * direction; a later run that differs sets ident_conflict (the lane then
     * has no headline: its values are not one quantity). */
    char *ident_name, *ident_unit;
    int ident_higher, has_ident;
    char *ident_conflict;
    char *key; /* NULL while empty */
    char *label;
    mcpp_lane_summary_counts counts; /* runs by outcome, claim and fallback (lane_internal.h) */
    textset ids, blockers;
    textset excluded;     /* "id\x1freason", a multiset: runs kept out of the headline */
    textset insufficient; /* a set: key dimensions the lane does not state          */
    textset conflicts;    /* a set: runs or pairs the policy calls not comparable    */
    dvec values; /* one per run that stated the metric */
    dvec steps;  /* per-step values, kept while values.n < 2 */
    dvec excluded_values; /* stated values of excluded runs: where a quoted number may come from */
    /* Evaluation cache for the public accessors; cleared by add and merge. */
    int cache_valid;
    mcpp_lane_eval cache;
};

int mcpp_lane_summary_create(mcpp_lane_summary **out, const mcpp_policy *p, const char *metric, const char *key)
{
    *out = NULL;
    mcpp_lane_summary *s = calloc(1, sizeof *s);
    MCPP_CHECK_ALLOC(s);
    s->policy = p;
    s->metric = mcpp_strdup(metric, NULL);
    if (!s->metric || (key && !(s->key = mcpp_strdup(key, NULL)))) {
        mcpp_lane_summary_free(s);
        return mcpp_error_nomem();
    }
    int rc = mcpp_metric_ref_init(&s->ref, s->metric, p->gate.higher_is_better);
    if (rc) {
        mcpp_lane_summary_free(s);
        return rc;
    }
    if (s->ref.kind == MCPP_METRIC_REF_NAMED && s->ref.name == metric) s->ref.name = s->metric;
    *out = s;
    return MCPP_OK;
}

static void invalidate(mcpp_lane_summary *s);

static int set_text(char **into, const char *text)
{
    int failed = 0;
    char *d = mcpp_strdup(text, &failed);
    if (failed) return mcpp_error_nomem();
    free(*into);
    *into = d;
    return MCPP_OK;
}

int mcpp_lane_summary_note_ident(mcpp_lane_summary *s, const mcpp_metric_ident *id, const char *conflict)
{
    int rc = MCPP_OK;
    invalidate(s);
    if (!s->has_ident && id) {
        s->has_ident = 1;
        s->ident_higher = id->higher_is_better;
        if ((rc = set_text(&s->ident_name, id->name)) || (rc = set_text(&s->ident_unit, id->unit))) return rc;
    } else if (id && !s->ident_conflict) {
        mcpp_metric_ident mine = {s->ident_name, s->ident_unit, s->ident_higher};
        const char *what;
        if (!mcpp_metric_ident_same(&mine, id, &what)) {
            mcpp_strbuf b;
            mcpp_sb_init_heap(&b, 128);
            if (strcmp(what, "metric") == 0)
                mcpp_sb_printf(&b, "runs name different primary metrics: %s and %s", mine.name ? mine.name : "(none)",
                               id->name ? id->name : "(none)");
            else if (strcmp(what, "unit") == 0)
                mcpp_sb_printf(&b, "runs state %s in different units: '%s' and '%s'", mine.name,
                               mine.unit ? mine.unit : "(no unit)", id->unit ? id->unit : "(no unit)");
            else
                mcpp_sb_printf(&b, "runs state %s with different directions (higher and lower is better)", mine.name);
            if ((rc = mcpp_sb_finish(&b, &s->ident_conflict)) != 0) return rc;
        }
    }
    if (conflict && !s->ident_conflict) rc = set_text(&s->ident_conflict, conflict);
    return rc;
}

int mcpp_lane_summary_ident(mcpp_metric_ident *out, const char **conflict, const mcpp_lane_summary *s)
{
    out->name = s->ident_name;
    out->unit = s->ident_unit;
    out->higher_is_better = s->ident_higher;
    *conflict = s->ident_conflict;
    return s->has_ident;
}

int mcpp_lane_summary_new(mcpp_lane_summary **out, const mcpp_policy *policy, const char *metric)
{
    MCPP_CHECK_ARG(out, "mcpp_lane_summary_new: NULL out");
    *out = NULL;
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    return mcpp_lane_summary_create(out, p, metric ? metric : p->gate.metric, NULL);
}

void mcpp_lane_summary_free(mcpp_lane_summary *s)
{
    if (!s) return;
    mcpp_lane_eval_clear(&s->cache);
    textset_free(&s->ids);
    textset_free(&s->blockers);
    textset_free(&s->excluded);
    textset_free(&s->insufficient);
    textset_free(&s->conflicts);
    dvec_free(&s->values);
    dvec_free(&s->steps);
    dvec_free(&s->excluded_values);
    free(s->metric);
    free(s->ident_name);
    free(s->ident_unit);
    free(s->ident_conflict);
    free(s->key);
    free(s->label);
    free(s);
}

static int enum_is(const mcpp_receipt *r, int id, const char *name)
{
    mcpp_value v;
    if (id < 0 || mcpp_value_at_field(r, id, &v) != MCPP_OK) return 0;
    return (v.type == MCPP_TYPE_ENUM || v.type == MCPP_TYPE_STRING) && v.string && strcmp(v.string, name) == 0;
}

static void invalidate(mcpp_lane_summary *s)
{
    if (s->cache_valid) mcpp_lane_eval_clear(&s->cache);
    s->cache_valid = 0;
}

static int set_label_min(mcpp_lane_summary *s, const char *name)
{
    if (s->label && strcmp(s->label, name) <= 0) return MCPP_OK;
    char *d = mcpp_strdup(name, NULL);
    MCPP_CHECK_ALLOC(d);
    free(s->label);
    s->label = d;
    return MCPP_OK;
}

/* Adds "id\x1freason" to the excluded runs. */
static int exclude(mcpp_lane_summary *s, const mcpp_receipt *r, const char *reason)
{
    const char *id = mcpp_receipt_id(r);
    mcpp_strbuf t;
    mcpp_sb_init_heap(&t, 256);
    mcpp_sb_puts(&t, id ? id : "");
    mcpp_sb_putc(&t, '\x1f');
    mcpp_sb_puts(&t, reason);
    int rc = t.failed ? mcpp_error_nomem() : textset_add(&s->excluded, t.data, 0);
    mcpp_sb_free(&t);
    return rc;
}

static int is_key_dim_name(const mcpp_policy *p, const char *name)
{
    for (size_t i = 0; i < p->n_dims; i++)
        if (is_key_dim(&p->dims[i]) && strcmp(p->dims[i].name, name) == 0) return 1;
    return 0;
}

/* Sorts the rows of a receipt compared with itself into the summary: key dimensions
 * not stated (the lane is insufficient), evidence the policy needs and this
 * run lacks (*excluded set, the reason in t), and rules that reject the run
 * (a conflict). A failed verification is counted by the caller. */
/* *flagged is set when a row makes r a conflict or leaves it insufficient,
 * whether or not the lane already had that reason (the sets keep one line per
 * distinct reason, so their size does not tell). */
static int sort_self_rows(mcpp_lane_summary *s, const mcpp_comparison *self, mcpp_strbuf *t, int *excluded,
                          int *flagged)
{
    int rc = MCPP_OK;
    for (size_t i = 0; !rc && i < mcpp_comparison_row_count(self); i++) {
        int st = mcpp_comparison_row_status(self, i);
        const char *dim = mcpp_comparison_row_dimension(self, i), *why = mcpp_comparison_row_reason(self, i);
        char line[1024];
        if (st == MCPP_DIM_MISSING && is_key_dim_name(s->policy, dim)) {
            snprintf(line, sizeof line, "%s not stated (policy '%s' requires it to match)", dim, s->policy->name);
            rc = textset_add(&s->insufficient, line, 1);
            *flagged = 1;
        } else if (st == MCPP_DIM_MISSING) {
            mcpp_sb_printf(t, "%sinsufficient evidence: %s: %s", *excluded ? "; " : "", dim, why);
            *excluded = 1;
        } else if (st == MCPP_DIM_MISMATCH && strcmp(dim, "verification") != 0) {
            /* No id in the text: the set stays one line per distinct reason. */
            snprintf(line, sizeof line, "a run is not comparable even with itself: %s: %s", dim, why);
            rc = textset_add(&s->conflicts, line, 1);
            *flagged = 1;
        }
    }
    return rc;
}

/* Decides whether r counts in the lane: 0 when it does, 1 when it was
 * excluded (and recorded with its reason), or an error code < 0. *flagged:
 * r counts but is a conflict or insufficient (see sort_self_rows). */
static int classify(mcpp_lane_summary *s, const mcpp_receipt *r, mcpp_lane_self_mode mode, const mcpp_verdict *known,
                    int *flagged)
{
    const mcpp_policy *p = s->policy;
    /* A missing or mismatched row makes the self-verdict insufficient or not
     * comparable (fold), so a receipt with any other verdict has no row that
     * sort_self_rows would record: most receipts skip rendering rows. */
    mcpp_verdict v = MCPP_VERDICT_INSUFFICIENT;
    int rc = MCPP_OK;
    if (known) v = *known;
    else if (mode != MCPP_LANE_SELF_ROWS) rc = mcpp_compare_self_verdict(&v, p, r);
    if (rc) return rc;
    int excluded = 0;
    mcpp_strbuf t;
    mcpp_sb_init_heap(&t, 256);
    if (v == MCPP_VERDICT_INSUFFICIENT || v == MCPP_VERDICT_NOT_COMPARABLE) {
        mcpp_comparison *self = NULL;
        if ((rc = mcpp_compare(&self, p, r, r)) == MCPP_OK) rc = sort_self_rows(s, self, &t, &excluded, flagged);
        mcpp_comparison_free(self);
    }
    if (!rc && mcpp_request_not_met(p, r, NULL)) {
        s->counts.fallback_runs++;
        if (excluded)
            mcpp_sb_puts(&t, "; ");
        mcpp_request_not_met(p, r, &t);
        excluded = 1;
    }
    if (!rc && t.failed) rc = mcpp_error_nomem();
    if (!rc && excluded) rc = exclude(s, r, t.data);
    double stated;
    mcpp_metric_ident ident;
    if (!rc && excluded && mcpp_metric_stated(&stated, &ident, p, &s->ref, r)) {
        rc = dvec_push(&s->excluded_values, stated);
        if (!rc) rc = mcpp_lane_summary_note_ident(s, &ident, NULL);
    }
    mcpp_sb_free(&t);
    return rc ? rc : excluded;
}

int mcpp_lane_run_set_aside(char **reason, const mcpp_policy *p, const mcpp_receipt *r, const char *metric)
{
    *reason = NULL;
    mcpp_lane_summary *s = NULL;
    int flagged = 0, rc = mcpp_lane_summary_create(&s, p, metric ? metric : p->gate.metric, NULL);
    if (!rc)
        rc = classify(s, r, MCPP_LANE_SELF_FAST, NULL, &flagged);
    if (rc == 1) { /* excluded: its one text is "id\x1freason" */
        const char *text = textset_at(&s->excluded, 0), *sep = strchr(text, '\x1f');
        rc = (*reason = mcpp_strdup(sep ? sep + 1 : text, NULL)) ? MCPP_OK : mcpp_error_nomem();
    }
    mcpp_lane_summary_free(s);
    return rc;
}

int mcpp_lane_summary_add_keyed(mcpp_lane_summary *s, const mcpp_receipt *r)
{
    return mcpp_lane_summary_add_checked(s, r, NULL);
}

int mcpp_lane_summary_add_checked(mcpp_lane_summary *s, const mcpp_receipt *r, int *clean)
{
    return mcpp_lane_summary_add_mode(s, r, clean, MCPP_LANE_SELF_FAST);
}

static int add_receipt(mcpp_lane_summary *s, const mcpp_receipt *r, int *clean, mcpp_lane_self_mode mode,
                       const mcpp_verdict *known)
{
    const mcpp_policy *p = s->policy;
    int rc;
    if (clean) *clean = 0;
    invalidate(s);
    s->counts.receipts++;
    mcpp_value v;
    if (p->id_lane_name >= 0 && mcpp_value_at_field(r, p->id_lane_name, &v) == MCPP_OK &&
        v.type == MCPP_TYPE_STRING && v.string)
        if ((rc = set_label_min(s, v.string)) != 0) return rc;
    int flagged = 0;
    if ((rc = classify(s, r, mode, known, &flagged)) != 0) return rc < 0 ? rc : MCPP_OK;
    /* Not from the sets' sizes: a second run with the same self-conflict adds
     * no line, and was taken for clean (its pairs were then compared too). */
    if (clean) *clean = !flagged && !enum_is(r, p->id_verification, "failed");
    const char *id = mcpp_receipt_id(r);
    if ((rc = textset_add(&s->ids, id ? id : "", 0)) != 0) return rc;
    if (enum_is(r, p->id_outcome, "ok"))
        s->counts.ok++;
    else if (enum_is(r, p->id_outcome, "failed"))
        s->counts.failed++;
    else if (enum_is(r, p->id_outcome, "partial"))
        s->counts.partial++;
    if (enum_is(r, p->id_verification, "failed"))
        s->counts.verification_failed++;
    if (enum_is(r, p->id_stability, "unstable"))
        s->counts.claim_unstable++;
    if (enum_is(r, p->id_stability, "blocked"))
        s->counts.claim_blocked++;
    if (p->id_blocker >= 0 && mcpp_value_at_field(r, p->id_blocker, &v) == MCPP_OK &&
        v.type == MCPP_TYPE_STRING && v.string && *v.string)
        if ((rc = textset_add(&s->blockers, v.string, 1)) != 0) return rc;
    if (s->values.n >= 1) {
        /* A second run value drops the step values: only the stated value is needed. */
        double stated;
        mcpp_metric_ident ident;
        if (!mcpp_metric_stated(&stated, &ident, p, &s->ref, r)) return MCPP_OK;
        if ((rc = dvec_push(&s->values, stated)) != 0) return rc;
        dvec_free(&s->steps);
        return mcpp_lane_summary_note_ident(s, &ident, NULL);
    }
    mcpp_metric_side side;
    memset(&side, 0, sizeof side);
    rc = mcpp_metric_side_add(&side, p, &s->ref, r);
    if (rc < 0) {
        mcpp_metric_side_free(&side);
        return rc;
    }
    if (rc == 1) {
        rc = mcpp_lane_summary_note_ident(s, &side.ident, NULL);
        if (!rc) rc = dvec_push(&s->values, side.stated[0]);
        for (size_t i = 0; rc == 0 && s->values.n < 2 && i < side.n_steps; i++) rc = dvec_push(&s->steps, side.steps[i]);
        if (s->values.n >= 2) dvec_free(&s->steps);
    } else {
        rc = MCPP_OK;
    }
    mcpp_metric_side_free(&side);
    return rc;
}

int mcpp_lane_summary_add_mode(mcpp_lane_summary *s, const mcpp_receipt *r, int *clean, mcpp_lane_self_mode mode)
{
    return add_receipt(s, r, clean, mode, NULL);
}

int mcpp_lane_summary_add_known(mcpp_lane_summary *s, const mcpp_receipt *r, int *clean, mcpp_verdict self)
{
    return add_receipt(s, r, clean, MCPP_LANE_SELF_FAST, &self);
}

int mcpp_lane_summary_add(mcpp_lane_summary *s, const mcpp_receipt *r)
{
    MCPP_CHECK_ARG(s && r, "mcpp_lane_summary_add: NULL argument");
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 512);
    mcpp_lane_key_append(&b, s->policy, r, NULL);
    int rc = MCPP_OK;
    if (b.failed) {
        rc = mcpp_error_nomem();
        goto done;
    }
    if (s->key && strcmp(s->key, b.data) != 0) {
        rc = mcpp_error_raise(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY,
                              "receipt '%s' belongs to another lane than this summary", mcpp_receipt_id(r));
        goto done;
    }
    if (!s->key) { /* the first receipt's key is the summary's */
        s->key = b.data;
        b.data = NULL;
    }
    rc = mcpp_lane_summary_add_keyed(s, r);
done:
    mcpp_sb_free(&b);
    return rc;
}

static int textset_merge(textset *into, const textset *from, int unique)
{
    for (size_t i = 0; i < from->n; i++) {
        int rc = textset_add(into, textset_at(from, i), unique);
        if (rc) return rc;
    }
    return MCPP_OK;
}

int mcpp_lane_summary_merge(mcpp_lane_summary *into, const mcpp_lane_summary *from)
{
    MCPP_CHECK_ARG(into && from, "mcpp_lane_summary_merge: NULL argument");
    if (into->policy != from->policy || strcmp(into->metric, from->metric) != 0)
        return mcpp_error_raise(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, "lane summaries of different policies or metrics cannot merge");
    if (into->key && from->key && strcmp(into->key, from->key) != 0)
        return mcpp_error_raise(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, "lane summaries of different lanes cannot merge");
    MCPP_CHECK_ARG(into != from, "cannot merge a summary into itself");
    int rc;
    invalidate(into);
    if (!into->key && from->key && !(into->key = mcpp_strdup(from->key, NULL)))
        return mcpp_error_nomem();
    if (from->label && (rc = set_label_min(into, from->label)) != 0) return rc;
    into->counts.receipts += from->counts.receipts;
    into->counts.ok += from->counts.ok;
    into->counts.failed += from->counts.failed;
    into->counts.partial += from->counts.partial;
    into->counts.verification_failed += from->counts.verification_failed;
    into->counts.claim_unstable += from->counts.claim_unstable;
    into->counts.claim_blocked += from->counts.claim_blocked;
    into->counts.fallback_runs += from->counts.fallback_runs;
    if (from->has_ident) {
        mcpp_metric_ident id = {from->ident_name, from->ident_unit, from->ident_higher};
        if ((rc = mcpp_lane_summary_note_ident(into, &id, from->ident_conflict)) != 0) return rc;
    }
    if ((rc = textset_merge(&into->ids, &from->ids, 0)) != 0) return rc;
    if ((rc = textset_merge(&into->blockers, &from->blockers, 1)) != 0) return rc;
    if ((rc = textset_merge(&into->excluded, &from->excluded, 0)) != 0) return rc;
    if ((rc = textset_merge(&into->insufficient, &from->insufficient, 1)) != 0) return rc;
    if ((rc = textset_merge(&into->conflicts, &from->conflicts, 1)) != 0) return rc;
    for (size_t i = 0; i < from->values.n; i++)
        if ((rc = dvec_push(&into->values, from->values.v[i])) != 0) return rc;
    for (size_t i = 0; i < from->excluded_values.n; i++)
        if ((rc = dvec_push(&into->excluded_values, from->excluded_values.v[i])) != 0) return rc;
    if (into->values.n >= 2) {
        dvec_free(&into->steps);
    } else {
        for (size_t i = 0; i < from->steps.n; i++)
            if ((rc = dvec_push(&into->steps, from->steps.v[i])) != 0) return rc;
    }
    return MCPP_OK;
}

static int sorted_equal(const dvec *a, const dvec *b)
{
    if (a->n != b->n) return 0;
    if (a->n == 0) return 1;
    double *x = malloc(2 * a->n * sizeof *x);
    if (!x) return 0;
    memcpy(x, a->v, a->n * sizeof *x);
    memcpy(x + a->n, b->v, a->n * sizeof *x);
    mcpp_sort_doubles(x, a->n);
    mcpp_sort_doubles(x + a->n, a->n);
    int eq = memcmp(x, x + a->n, a->n * sizeof *x) == 0;
    free(x);
    return eq;
}

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

int mcpp_lane_summary_equal(const mcpp_lane_summary *a, const mcpp_lane_summary *b)
{
    if (!a || !b) return a == b;
    return same_text(a->key, b->key) && same_text(a->metric, b->metric) && same_text(a->label, b->label) &&
           a->has_ident == b->has_ident && same_text(a->ident_name, b->ident_name) &&
           same_text(a->ident_unit, b->ident_unit) && a->ident_higher == b->ident_higher &&
           same_text(a->ident_conflict, b->ident_conflict) && memcmp(&a->counts, &b->counts, sizeof a->counts) == 0 &&
           textset_equal(&a->ids, &b->ids) && textset_equal(&a->blockers, &b->blockers) &&
           textset_equal(&a->excluded, &b->excluded) && textset_equal(&a->insufficient, &b->insufficient) &&
           textset_equal(&a->conflicts, &b->conflicts) && sorted_equal(&a->values, &b->values) &&
           sorted_equal(&a->steps, &b->steps) && sorted_equal(&a->excluded_values, &b->excluded_values);
}

const char *mcpp_lane_summary_label(const mcpp_lane_summary *s) { return s ? s->label : NULL; }

char **mcpp_lane_summary_every_id(const mcpp_lane_summary *s, size_t *n)
{
    *n = 0;
    size_t total = s->ids.n + s->excluded.n;
    char **v = calloc(total ? total : 1, sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < total; i++) {
        const char *text = i < s->ids.n ? textset_at(&s->ids, i) : textset_at(&s->excluded, i - s->ids.n);
        const char *sep = i < s->ids.n ? NULL : strchr(text, '\x1f');
        if (!(v[i] = mcpp_strndup(text, sep ? (size_t)(sep - text) : strlen(text), NULL))) {
            for (size_t k = 0; k < i; k++) free(v[k]);
            free(v);
            return NULL;
        }
    }
    qsort(v, total, sizeof *v, compare_cstr);
    *n = total;
    return v;
}

int mcpp_lane_summary_add_conflict(mcpp_lane_summary *s, const char *reason)
{
    invalidate(s);
    return textset_add(&s->conflicts, reason, 1);
}

const char **mcpp_lane_summary_excluded_sorted(const mcpp_lane_summary *s, size_t *n)
{
    *n = 0;
    const char **v = textset_sorted(&s->excluded);
    if (v) *n = s->excluded.n;
    return v;
}

const char **mcpp_lane_summary_sorted_ids(const mcpp_lane_summary *s, size_t *n)
{
    *n = 0;
    const char **v = textset_sorted(&s->ids);
    if (v) *n = s->ids.n;
    return v;
}

/* ---- Evaluation ---------------------------------------------------------------------- */

void mcpp_lane_eval_clear(mcpp_lane_eval *e)
{
    for (size_t i = 0; i < e->n_reasons; i++) free(e->reasons[i]);
    free(e->reasons);
    memset(e, 0, sizeof *e);
}

static int add_reason(mcpp_lane_eval *e, size_t *cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int add_reason(mcpp_lane_eval *e, size_t *cap, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    mcpp_vsnprintf_c(buf, sizeof buf, fmt, ap);
    va_end(ap);
    MCPP_CHECK_ARRAY(e->reasons, *cap, e->n_reasons + 1, MCPP_ARRAY_MAX_ITEMS);
    char *d = mcpp_strdup(buf, NULL);
    MCPP_CHECK_ALLOC(d);
    e->reasons[e->n_reasons++] = d;
    return MCPP_OK;
}

int mcpp_lane_summary_evaluate(const mcpp_lane_summary *s, mcpp_lane_eval *e)
{
    const mcpp_policy *p = s->policy;
    memset(e, 0, sizeof *e);
    size_t cap = 0;
    int rc = MCPP_OK;
    /* Headline values: runs when there are two or more, else one run's steps. */
    const dvec *src = s->values.n >= 2 || s->steps.n == 0 ? &s->values : &s->steps;
    double spread = 0;
    if (s->ident_conflict) {
        rc = add_reason(e, &cap, "no headline: %s", s->ident_conflict);
    } else if (src->n) {
        double *sorted = malloc(src->n * sizeof *sorted);
        MCPP_CHECK_ALLOC(sorted);
        memcpy(sorted, src->v, src->n * sizeof *sorted);
        mcpp_sort_doubles(sorted, src->n);
        mcpp_lane_headline *h = &e->headline;
        h->metric = s->ident_name ? s->ident_name : s->metric;
        h->unit = s->ident_unit;
        h->higher_is_better = s->has_ident ? s->ident_higher : s->ref.higher_is_better;
        h->median = mcpp_quantile_sorted(sorted, src->n, 0.5);
        mcpp_stats_median_interval(sorted, src->n, p->gate.confidence, &h->interval_low, &h->interval_high,
                                   &h->confidence);
        h->n = src->n;
        h->n_runs = s->values.n;
        spread = mcpp_stats_rel_spread_sorted(sorted, src->n);
        h->rel_spread = spread;
        h->from_steps = src == &s->steps;
        e->has_headline = 1;
        e->min_value = sorted[0];
        e->max_value = sorted[src->n - 1];
        free(sorted);
    }
    if (s->insufficient.n) {
        const char **m = textset_sorted(&s->insufficient);
        MCPP_CHECK_ALLOC(m);
        for (size_t i = 0; !rc && i < s->insufficient.n; i++) rc = add_reason(e, &cap, "insufficient: %s", m[i]);
        free(m);
    }
    for (size_t i = 0; i < s->excluded_values.n; i++) {
        double x = s->excluded_values.v[i];
        e->excluded_min = !i || x < e->excluded_min ? x : e->excluded_min;
        e->excluded_max = !i || x > e->excluded_max ? x : e->excluded_max;
    }
    e->has_excluded_values = s->excluded_values.n > 0;
    if (s->counts.ok < (size_t)p->noise.min_runs && s->excluded.n)
        rc = rc ? rc
                : add_reason(e, &cap, "too few ok runs: %zu of %lld needed (%zu excluded from the headline)",
                             s->counts.ok, (long long)p->noise.min_runs, (size_t)s->excluded.n);
    else if (s->counts.ok < (size_t)p->noise.min_runs)
        rc =
            rc ? rc
               : add_reason(e, &cap, "too few ok runs: %zu of %lld needed", s->counts.ok, (long long)p->noise.min_runs);
    if (s->counts.failed || s->counts.partial)
        rc =
            rc ? rc
               : add_reason(e, &cap, "%zu run%s not ok (%zu failed, %zu partial)", s->counts.failed + s->counts.partial,
                            s->counts.failed + s->counts.partial == 1 ? "" : "s", s->counts.failed, s->counts.partial);
    if (s->conflicts.n) {
        const char **c = textset_sorted(&s->conflicts);
        MCPP_CHECK_ALLOC(c);
        for (size_t i = 0; !rc && i < s->conflicts.n; i++) rc = add_reason(e, &cap, "%s", c[i]);
        free(c);
    }
    if (s->counts.verification_failed)
        rc = rc ? rc
                : add_reason(e, &cap, "verification failed in %zu run%s", s->counts.verification_failed,
                             s->counts.verification_failed == 1 ? "" : "s");
    if (e->has_headline && spread > p->noise.max_rel_spread)
        rc = rc ? rc : add_reason(e, &cap, "noise over bound: relative spread %.1f%% > %.1f%% (%s)", spread * 100,
                                  p->noise.max_rel_spread * 100, e->headline.from_steps ? "within one run's steps" : "across runs");
    if (!e->has_headline && s->ids.n && !s->ident_conflict) rc = rc ? rc : add_reason(e, &cap, "%s absent in every run", s->metric);
    if (s->counts.claim_unstable)
        rc = rc ? rc
                : add_reason(e, &cap, "%zu run%s claim%s unstable", s->counts.claim_unstable,
                             s->counts.claim_unstable == 1 ? "" : "s", s->counts.claim_unstable == 1 ? "s" : "");
    if (s->counts.claim_blocked)
        rc = rc ? rc
                : add_reason(e, &cap, "%zu run%s claim%s blocked", s->counts.claim_blocked,
                             s->counts.claim_blocked == 1 ? "" : "s", s->counts.claim_blocked == 1 ? "s" : "");
    if (!rc && s->blockers.n) {
        const char **bl = textset_sorted(&s->blockers);
        if (!bl) rc = mcpp_error_nomem();
        else
            e->blocker = bl[0]; /* the summary's own text */
        free(bl);
    }
    e->status = s->insufficient.n ? MCPP_LANE_INSUFFICIENT : e->n_reasons ? MCPP_LANE_UNSTABLE : MCPP_LANE_STABLE;
    if (!rc && e->status != MCPP_LANE_STABLE && !e->blocker)
        e->blocker = e->reasons[0];
    if (e->status == MCPP_LANE_STABLE)
        e->blocker = NULL;
    if (rc) mcpp_lane_eval_clear(e);
    else
        MCPP_ARRAY_FIT(e->reasons, cap, e->n_reasons); /* kept with the summary */
    return rc;
}

/* ---- Public accessors of a summary ------------------------------------------------------- */

int mcpp_lane_summary_eval_cached(const mcpp_lane_summary *s, const mcpp_lane_eval **out)
{
    mcpp_lane_summary *m = (mcpp_lane_summary *)s; /* the cache only memoises evaluate() */
    if (!m->cache_valid) {
        int rc = mcpp_lane_summary_evaluate(s, &m->cache);
        if (rc)
            return rc;
        m->cache_valid = 1;
    }
    *out = &m->cache;
    return MCPP_OK;
}

static const mcpp_lane_eval *cached(const mcpp_lane_summary *s)
{
    const mcpp_lane_eval *e = NULL;
    return mcpp_lane_summary_eval_cached(s, &e) == MCPP_OK ? e : NULL;
}

void mcpp_lane_summary_fit(mcpp_lane_summary *s)
{
    invalidate(s); /* its evaluation points into the texts that move */
    textset_fit(&s->ids);
    textset_fit(&s->blockers);
    textset_fit(&s->excluded);
    textset_fit(&s->insufficient);
    textset_fit(&s->conflicts);
    dvec_fit(&s->values);
    dvec_fit(&s->steps);
    dvec_fit(&s->excluded_values);
}

const char *mcpp_lane_summary_key(const mcpp_lane_summary *s) { return s ? (s->key ? s->key : "") : NULL; }
size_t mcpp_lane_summary_receipt_count(const mcpp_lane_summary *s) { return s ? s->counts.receipts : 0; }

mcpp_lane_status mcpp_lane_summary_status(const mcpp_lane_summary *s)
{
    const mcpp_lane_eval *e = s ? cached(s) : NULL;
    return e ? e->status : MCPP_LANE_UNSTABLE;
}

size_t mcpp_lane_summary_reason_count(const mcpp_lane_summary *s)
{
    const mcpp_lane_eval *e = s ? cached(s) : NULL;
    return e ? e->n_reasons : 0;
}

const char *mcpp_lane_summary_reason(const mcpp_lane_summary *s, size_t index)
{
    const mcpp_lane_eval *e = s ? cached(s) : NULL;
    return e && index < e->n_reasons ? e->reasons[index] : NULL;
}

/* The bytes of each layout of mcpp_lane_headline: version 1 ended before
 * `unit` (its size, padding included, is unit's offset). */
static const size_t headline_layout_size[MCPP_LANE_HEADLINE_VERSION + 1] = {
    0, offsetof(mcpp_lane_headline, unit), sizeof(mcpp_lane_headline)};

int mcpp_lane_headline_version_ok(const mcpp_lane_headline *out)
{
    return mcpp_struct_out_version_check(out->version, MCPP_LANE_HEADLINE_VERSION, "mcpp_lane_headline");
}

int mcpp_lane_headline_put(mcpp_lane_headline *out, const mcpp_lane_headline *full)
{
    int rc = mcpp_lane_headline_version_ok(out);
    if (rc != MCPP_OK)
        return rc;
    unsigned int version = out->version;
    memcpy(out, full, headline_layout_size[version]);
    out->version = version;
    return MCPP_OK;
}

int mcpp_lane_summary_headline(mcpp_lane_headline *out, const mcpp_lane_summary *s)
{
    MCPP_CHECK_ARG(out && s, "mcpp_lane_summary_headline: NULL argument");
    int rc = mcpp_lane_headline_version_ok(out);
    if (rc != MCPP_OK)
        return rc;
    const mcpp_lane_eval *e = cached(s);
    if (!e)
        return mcpp_error_nomem();
    if (!e->has_headline)
        return mcpp_error_at(MCPP_ENOTFOUND, MCPP_ERROR_KIND_MISSING, NULL, s->metric, 0, 0, "the lane has no value of %s", s->metric);
    return mcpp_lane_headline_put(out, &e->headline);
}

static void json_sorted_doubles(mcpp_strbuf *b, const dvec *d)
{
    double *x = malloc((d->n ? d->n : 1) * sizeof *x);
    if (!x) {
        b->failed = 1;
        return;
    }
    if (d->n) memcpy(x, d->v, d->n * sizeof *x);
    mcpp_sort_doubles(x, d->n);
    mcpp_sb_putc(b, '[');
    for (size_t i = 0; i < d->n; i++) {
        if (i) mcpp_sb_puts(b, ", ");
        mcpp_sb_json_number(b, x[i]);
    }
    mcpp_sb_putc(b, ']');
    free(x);
}

static void json_sorted_texts(mcpp_strbuf *b, const textset *t)
{
    const char **v = textset_sorted(t);
    if (!v) {
        b->failed = 1;
        return;
    }
    mcpp_sb_putc(b, '[');
    for (size_t i = 0; i < t->n; i++) {
        if (i) mcpp_sb_puts(b, ", ");
        mcpp_sb_json_string(b, v[i]);
    }
    mcpp_sb_putc(b, ']');
    free(v);
}

void mcpp_lane_headline_json(mcpp_strbuf *b, const mcpp_lane_headline *h)
{
    if (!h) {
        mcpp_sb_puts(b, "null");
        return;
    }
    mcpp_sb_json_key_number(b, "{\"median\": ", h->median);
    mcpp_sb_puts(b, ", \"interval\": [");
    mcpp_sb_json_number(b, h->interval_low);
    mcpp_sb_puts(b, ", ");
    mcpp_sb_json_number(b, h->interval_high);
    mcpp_sb_printf(b, "], \"n\": %zu}", h->n);
}

int mcpp_lane_summary_serialize(char **out, const mcpp_lane_summary *s)
{
    MCPP_CHECK_ARG(out && s, "mcpp_lane_summary_serialize: NULL argument");
    *out = NULL;
    const mcpp_lane_eval *e = cached(s);
    if (!e)
        return mcpp_error_nomem();
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 1024);
    mcpp_sb_printf(&b, "{\"format\": %d, \"key\": ", MCPP_LANE_SUMMARY_FORMAT);
    mcpp_sb_json_string(&b, s->key ? s->key : "");
    mcpp_sb_puts(&b, ", \"metric\": ");
    mcpp_sb_json_string(&b, s->metric);
    mcpp_sb_puts(&b, ", \"metric_name\": ");
    mcpp_sb_json_string(&b, s->ident_name); /* NULL: null */
    mcpp_sb_puts(&b, ", \"unit\": ");
    mcpp_sb_json_string(&b, s->ident_unit);
    mcpp_sb_printf(&b, ", \"higher_is_better\": %s, \"metric_conflict\": ",
                   !s->has_ident ? "null" : s->ident_higher ? "true" : "false");
    mcpp_sb_json_string(&b, s->ident_conflict);
    mcpp_sb_puts(&b, ", \"label\": ");
    mcpp_sb_json_string(&b, s->label);
    mcpp_sb_puts(&b, ", \"receipts\": ");
    json_sorted_texts(&b, &s->ids);
    mcpp_sb_printf(&b,
                   ", \"ok\": %zu, \"failed\": %zu, \"partial\": %zu, \"verification_failed\": %zu, "
                   "\"claim_unstable\": %zu, \"claim_blocked\": %zu, \"fallback_runs\": %zu",
                   s->counts.ok, s->counts.failed, s->counts.partial, s->counts.verification_failed,
                   s->counts.claim_unstable, s->counts.claim_blocked, s->counts.fallback_runs);
    mcpp_sb_puts(&b, ", \"blockers\": ");
    json_sorted_texts(&b, &s->blockers);
    mcpp_sb_puts(&b, ", \"excluded\": ");
    json_sorted_texts(&b, &s->excluded);
    mcpp_sb_puts(&b, ", \"insufficient\": ");
    json_sorted_texts(&b, &s->insufficient);
    mcpp_sb_puts(&b, ", \"conflicts\": ");
    json_sorted_texts(&b, &s->conflicts);
    mcpp_sb_printf(&b, ", \"status\": \"%s\", \"reasons\": [", mcpp_lane_status_name(e->status));
    for (size_t i = 0; i < e->n_reasons; i++) {
        if (i) mcpp_sb_puts(&b, ", ");
        mcpp_sb_json_string(&b, e->reasons[i]);
    }
    mcpp_sb_puts(&b, "], \"headline\": ");
    mcpp_lane_headline_json(&b, e->has_headline ? &e->headline : NULL);
    mcpp_sb_puts(&b, ", \"values\": ");
    json_sorted_doubles(&b, &s->values);
    mcpp_sb_puts(&b, ", \"steps\": ");
    json_sorted_doubles(&b, &s->steps);
    mcpp_sb_puts(&b, ", \"excluded_values\": ");
    json_sorted_doubles(&b, &s->excluded_values);
    mcpp_sb_puts(&b, "}");
    return mcpp_sb_finish(&b, out);
}

/* ---- Raw access for restoring a serialized summary (lane_summary_io.c) ------------------- */

const mcpp_policy *mcpp_lane_summary_policy(const mcpp_lane_summary *s) { return s->policy; }
const char *mcpp_lane_summary_metric(const mcpp_lane_summary *s) { return s->metric; }

void mcpp_lane_summary_set_counts(mcpp_lane_summary *s, const mcpp_lane_summary_counts *c)
{
    invalidate(s);
    s->counts = *c;
}

int mcpp_lane_summary_restore_text(mcpp_lane_summary *s, mcpp_lane_summary_part part, const char *text)
{
    invalidate(s);
    switch (part) {
    case MCPP_SUMMARY_LABEL: return set_label_min(s, text);
    case MCPP_SUMMARY_IDS: return textset_add(&s->ids, text, 0);
    case MCPP_SUMMARY_BLOCKERS: return textset_add(&s->blockers, text, 1);
    case MCPP_SUMMARY_EXCLUDED: return textset_add(&s->excluded, text, 0);
    case MCPP_SUMMARY_INSUFFICIENT: return textset_add(&s->insufficient, text, 1);
    case MCPP_SUMMARY_CONFLICTS: return textset_add(&s->conflicts, text, 1);
    default: return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "not a text part of a lane summary");
    }
}

int mcpp_lane_summary_restore_value(mcpp_lane_summary *s, mcpp_lane_summary_part part, double value)
{
    invalidate(s);
    if (part == MCPP_SUMMARY_VALUES) return dvec_push(&s->values, value);
    if (part == MCPP_SUMMARY_STEPS) return dvec_push(&s->steps, value);
    if (part == MCPP_SUMMARY_EXCLUDED_VALUES) return dvec_push(&s->excluded_values, value);
    return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "not a number part of a lane summary");
}
