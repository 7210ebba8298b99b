/*
 * claim.c — the benchmark-laundering check: is a quoted number backed by a
 * stable lane that matches the claim's selector, and if not, which lane did
 * the number really come from?
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcpp_receipts/accelerator.h"

#include "util/alloc.h"
#include "util/c_locale.h"
#include "util/edit_distance.h"
#include "util/enum_names.h"
#include "util/error_internal.h"
#include "receipt/field_ids.h"
#include "analysis/claim_internal.h"
#include "analysis/frontier_internal.h"
#include "analysis/metric_change.h"
#include "policy/dimension_table.h"

/* The short keys of a selector, per default dimension (policy/dimension_table.h):
 * "key", "path" pairs, NULL after the last. */
#define MCPP_X_DIM_KEYS(name, role, kind, applies, absent, since, fields, keys, note) keys,
static const char *const DIM_KEYS[][16] = {MCPP_DEFAULT_DIMENSIONS(MCPP_X_DIM_KEYS)};
#undef MCPP_X_DIM_KEYS
#define N_DIM_ROWS (sizeof DIM_KEYS / sizeof DIM_KEYS[0])

const char *mcpp_claim_selector_key(size_t index, const char **path)
{
    for (size_t d = 0; d < N_DIM_ROWS; d++)
        for (size_t k = 0; k + 1 < 16 && DIM_KEYS[d][k]; k += 2)
            if (index-- == 0) {
                if (path) *path = DIM_KEYS[d][k + 1];
                return DIM_KEYS[d][k];
            }
    if (path) *path = NULL;
    return NULL;
}

/* The path a selector key names, or NULL. */
static const char *selector_key_path(const char *key)
{
    const char *path = NULL, *name;
    for (size_t i = 0; (name = mcpp_claim_selector_key(i, &path)) != NULL; i++)
        if (strcmp(name, key) == 0) return path;
    return NULL;
}

typedef struct term {
    int id;
    char *value;
} term;

static const char *const CLAIM_VERDICT_NAMES[] = {
    [MCPP_CLAIM_SUPPORTED] = "supported",
    [MCPP_CLAIM_UNSUPPORTED] = "unsupported",
    [MCPP_CLAIM_CONTRADICTED] = "contradicted",
    [MCPP_CLAIM_AMBIGUOUS] = "ambiguous",
};

const char *mcpp_claim_verdict_name(mcpp_claim_verdict verdict) { return MCPP_ENUM_NAME(CLAIM_VERDICT_NAMES, verdict); }

static char *trim_dup(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    return mcpp_strndup(s, n, NULL);
}

static void free_terms(term *t, size_t n)
{
    for (size_t i = 0; i < n; i++) free(t[i].value);
    free(t);
}

static int parse_selector(term **out, size_t *n_out, const char *sel)
{
    size_t cap = 1;
    for (const char *p = sel; *p; p++) cap += *p == ',';
    term *t = calloc(cap, sizeof *t);
    MCPP_CHECK_ALLOC(t);
    size_t n = 0;
    const char *p = sel;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq) {
            free_terms(t, n);
            return MCPP_ERROR_ARG("selector term '%.*s' is not KEY=VALUE (and '%s' is no lane key)", (int)len, p, sel);
        }
        char *key = trim_dup(p, (size_t)(eq - p));
        char *val = trim_dup(eq + 1, len - (size_t)(eq - p) - 1);
        if (!key || !val) {
            free(key);
            free(val);
            free_terms(t, n);
            return mcpp_error_nomem();
        }
        const char *path = selector_key_path(key); /* a short key, else a schema path */
        if (!path) path = key;
        int id = mcpp_schema_field_id(path);
        if (id < 0) {
            int rc = mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, key, 0, 0,
                                    "unknown selector key '%s' (use family, pattern, moe, seq_len, ... or a schema path)", key);
            free(key);
            free(val);
            free_terms(t, n);
            return rc;
        }
        free(key);
        t[n].id = id;
        t[n].value = val;
        n++;
        p = end ? end + 1 : p + len;
    }
    *out = t;
    *n_out = n;
    return MCPP_OK;
}

/* An accelerator term holds for a receipt whose chip the value names: its raw
 * name, an alias, the canonical id the frontier prints
 * ("nvidia-h100-sxm5-80gb"), or a model ("H200") any form factor satisfies. */
static int accelerator_holds(const char *want, const char *raw)
{
    if (strcmp(want, raw) == 0) return 1;
    mcpp_accelerator a;
    if (mcpp_accelerator_canonicalize(&a, NULL, raw) == MCPP_OK && strcasecmp(a.id, want) == 0) return 1;
    int ok = 0;
    return mcpp_accelerator_satisfies(&ok, NULL, 0, NULL, want, raw) == MCPP_OK && ok;
}

static int term_holds(const term *t, const mcpp_receipt *r, mcpp_strbuf *scratch)
{
    mcpp_value v;
    if (mcpp_value_at_field(r, t->id, &v) != MCPP_OK || v.type == MCPP_TYPE_ABSENT) return 0;
    if (v.type == MCPP_TYPE_INT || v.type == MCPP_TYPE_DOUBLE) {
        char *end;
        double want = mcpp_strtod_c(t->value, &end);
        if (end == t->value || *end) return 0;
        return (v.type == MCPP_TYPE_INT ? (double)v.integer : v.number) == want;
    }
    if (v.type == MCPP_TYPE_STRING && v.string &&
        (t->id == mcpp_schema_field_id("hardware.observed.accelerator") ||
         t->id == mcpp_schema_field_id("hardware.requested.accelerator")))
        return accelerator_holds(t->value, v.string);
    if (v.type == MCPP_TYPE_STRING && v.string &&
        (t->id == MCPP_F_backend_precision_observed || t->id == MCPP_F_backend_precision_requested)) {
        char want[128], have[128]; /* a recipe is a set: precision=fp8+bf16 holds for bf16+fp8 */
        mcpp_precision_recipe_canonical(want, sizeof want, t->value);
        mcpp_precision_recipe_canonical(have, sizeof have, v.string);
        return strcmp(want, have) == 0;
    }
    scratch->len = 0;
    mcpp_value_text(scratch, &v, 0);
    return !scratch->failed && strcmp(scratch->data, t->value) == 0;
}

static int in_interval(double x, double lo, double hi)
{
    double eps = 1e-9 * fmax(fabs(lo), fabs(hi));
    return x >= lo - eps && x <= hi + eps;
}

static int fill_lane(claim_lane *c, const mcpp_frontier *f, size_t lane, const char *metric)
{
    const mcpp_lane_eval *e = mcpp_frontier_lane_eval(f, lane);
    c->key = mcpp_strdup(mcpp_frontier_lane_key(f, lane), NULL);
    const char *label = mcpp_frontier_lane_display_label(f, lane); /* what tells it from its neighbours */
    c->label = mcpp_strdup(label, NULL);
    snprintf(c->short_key, sizeof c->short_key, "%s", mcpp_frontier_lane_short_key(f, lane));
    c->status = (int)e->status;
    c->has_headline = e->has_headline;
    c->headline = e->headline;
    c->headline.metric = metric;
    mcpp_metric_ident ident;
    const char *conflict;
    if (mcpp_lane_summary_ident(&ident, &conflict, mcpp_frontier_lane_summary(f, lane)) && ident.unit &&
        !(c->unit = mcpp_strdup(ident.unit, NULL)))
        return mcpp_error_nomem();
    c->headline.unit = c->unit;
    mcpp_strbuf t;
    mcpp_sb_init_heap(&t, 256);
    for (size_t i = 0; i < e->n_reasons; i++) {
        if (i) mcpp_sb_puts(&t, "; ");
        mcpp_sb_puts(&t, e->reasons[i]);
    }
    if (t.failed || !c->key || !c->label) {
        mcpp_sb_free(&t);
        return mcpp_error_nomem();
    }
    c->reasons = t.data;
    c->n_pooled = mcpp_frontier_lane_receipt_count(f, lane);
    c->n_set_aside = mcpp_frontier_lane_excluded_count(f, lane);
    c->pooled = calloc(c->n_pooled + 1, sizeof *c->pooled);
    c->set_aside = calloc(2 * c->n_set_aside + 1, sizeof *c->set_aside);
    int failed = !c->pooled || !c->set_aside;
    if (failed)
        c->n_pooled = c->n_set_aside = 0;
    for (size_t i = 0; i < c->n_pooled; i++)
        c->pooled[i] = mcpp_strdup(mcpp_frontier_lane_receipt_id(f, lane, i), &failed);
    for (size_t i = 0; i < c->n_set_aside; i++) {
        c->set_aside[2 * i] = mcpp_strdup(mcpp_frontier_lane_excluded_id(f, lane, i), &failed);
        c->set_aside[2 * i + 1] = mcpp_strdup(mcpp_frontier_lane_excluded_reason(f, lane, i), &failed);
    }
    return failed ? mcpp_error_nomem() : MCPP_OK;
}

static void clear_lanes(claim_lane *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(l[i].key);
        free(l[i].label);
        free(l[i].reasons);
        free(l[i].unit);
        for (size_t k = 0; l[i].pooled && k < l[i].n_pooled; k++)
            free(l[i].pooled[k]);
        for (size_t k = 0; l[i].set_aside && k < 2 * l[i].n_set_aside; k++)
            free(l[i].set_aside[k]);
        free(l[i].pooled);
        free(l[i].set_aside);
    }
    free(l);
}

void mcpp_claim_result_free(mcpp_claim_result *r)
{
    if (!r) return;
    clear_lanes(r->matched, r->n_matched);
    clear_lanes(r->sources, r->n_sources);
    free(r->reason);
    free(r->selector);
    free(r->metric);
    free(r->policy_name);
    free(r);
}

static void describe_sources(mcpp_strbuf *t, const mcpp_claim_result *r, const char *skip_key)
{
    int first = 1;
    for (size_t i = 0; i < r->n_sources; i++) {
        const claim_lane *s = &r->sources[i];
        if (skip_key && strcmp(s->key, skip_key) == 0) continue;
        mcpp_sb_puts(t, first ? "; this number came from lane " : "; and from lane ");
        first = 0;
        mcpp_sb_printf(t, "%s (%s", s->short_key, s->label);
        if (s->status == MCPP_LANE_STABLE) mcpp_sb_puts(t, ", stable, but not the lane the claim names)");
        else mcpp_sb_printf(t, ", unstable: %s)", s->reasons);
    }
}

/* A result holding the claim's selector, metric (NULL: the gate metric; a
 * name mcpp_metric_ref_init takes) and value; *p receives the resolved policy. */
static int claim_new(mcpp_claim_result **out, const mcpp_policy **p, const mcpp_policy *policy,
                     const char *selector, const char *metric, double value)
{
    *out = NULL;
    MCPP_CHECK_ARG(selector, "claim: NULL selector");
    MCPP_CHECK_ARG(isfinite(value), "claimed value is not finite");
    if (!(*p = mcpp_policy_or_default(policy)))
        return mcpp_error_nomem();
    const char *m = metric ? metric : (*p)->gate.metric;
    mcpp_metric_ref ref;
    int rc = mcpp_metric_ref_init(&ref, m, 1);
    if (rc) return rc;
    mcpp_claim_result *r = calloc(1, sizeof *r);
    if (!r || !(r->selector = mcpp_strdup(selector, NULL)) || !(r->metric = mcpp_strdup(m, NULL)) ||
        !(r->policy_name = mcpp_strdup((*p)->name, NULL))) {
        mcpp_claim_result_free(r);
        return mcpp_error_nomem();
    }
    r->value = value;
    mcpp_policy_digest_fill(r->policy_digest, *p);
    *out = r;
    return MCPP_OK;
}

/* Fills r->matched (lanes the selector picks) and r->sources (lanes whose
 * values contain the claimed number); *support is the first stable matching
 * lane whose interval holds the value, *stable_match the first stable one. */
static int collect_lanes(mcpp_claim_result *r, const mcpp_frontier *f, const mcpp_policy *p,
                         const unsigned char *match, const claim_lane **support, const claim_lane **stable_match)
{
    size_t L = mcpp_frontier_lane_count(f);
    double value = r->value, nf = p->noise.noise_floor;
    r->matched = calloc(L ? L : 1, sizeof *r->matched);
    r->sources = calloc(L ? L : 1, sizeof *r->sources);
    if (!r->matched || !r->sources) return mcpp_error_nomem();
    for (size_t l = 0; l < L; l++) {
        const mcpp_lane_eval *e = mcpp_frontier_lane_eval(f, l);
        int rc, contains = (e->has_headline &&
                            (in_interval(value, e->headline.interval_low, e->headline.interval_high) ||
                             in_interval(value, e->min_value * (1 - nf), e->max_value * (1 + nf)))) ||
                           (e->has_excluded_values &&
                            in_interval(value, e->excluded_min * (1 - nf), e->excluded_max * (1 + nf)));
        if (match[l]) {
            claim_lane *c = &r->matched[r->n_matched];
            if ((rc = fill_lane(c, f, l, r->metric)) != 0) return rc;
            r->n_matched++;
            if (e->status == MCPP_LANE_STABLE) {
                if (!*stable_match) *stable_match = c;
                if (!*support && e->has_headline && in_interval(value, e->headline.interval_low, e->headline.interval_high))
                    *support = c;
            }
        }
        if (contains) {
            if ((rc = fill_lane(&r->sources[r->n_sources], f, l, r->metric)) != 0) return rc;
            r->n_sources++;
        }
    }
    return MCPP_OK;
}

/* The length of the first segment (up to an unescaped ';') of a lane key. */
static size_t segment_len(const char *k)
{
    size_t n = 0;
    while (k[n] && k[n] != ';') n += k[n] == '\\' && k[n + 1] ? 2 : 1;
    return n;
}

/* Appends the key dimensions in which the matched lanes differ ("data, backend"). */
static void differing_dimensions(mcpp_strbuf *t, const mcpp_claim_result *r)
{
    const char **at = calloc(r->n_matched, sizeof *at);
    if (!at) {
        t->failed = 1;
        return;
    }
    for (size_t i = 0; i < r->n_matched; i++) at[i] = r->matched[i].key;
    int first = 1;
    while (*at[0]) {
        size_t n0 = segment_len(at[0]);
        int differs = 0;
        for (size_t i = 1; i < r->n_matched; i++)
            if (segment_len(at[i]) != n0 || memcmp(at[i], at[0], n0) != 0) differs = 1;
        if (differs) {
            const char *eq = memchr(at[0], '=', n0);
            mcpp_sb_puts(t, first ? "" : ", ");
            mcpp_sb_put(t, at[0], eq ? (size_t)(eq - at[0]) : n0);
            first = 0;
        }
        for (size_t i = 0; i < r->n_matched; i++) {
            at[i] += segment_len(at[i]);
            if (*at[i] == ';') at[i]++;
        }
    }
    free(at);
}

/* More than one lane matches: the claim names no single lane, so no lane can
 * back it. Every matching lane is listed with its status and headline. */
static void decide_ambiguous(mcpp_claim_result *r, mcpp_strbuf *reason)
{
    r->verdict = MCPP_CLAIM_AMBIGUOUS;
    mcpp_sb_printf(reason, "ambiguous: the selector matches %zu lanes: ", r->n_matched);
    for (size_t i = 0; i < r->n_matched; i++) {
        const claim_lane *c = &r->matched[i];
        mcpp_sb_printf(reason, "%s%s (%s, %s", i ? "; " : "", c->short_key, c->label,
                       mcpp_lane_status_name((mcpp_lane_status)c->status));
        if (c->has_headline) mcpp_sb_printf(reason, ", median %.6g", c->headline.median);
        mcpp_sb_putc(reason, ')');
    }
    mcpp_sb_puts(reason, "; narrow the selector by ");
    differing_dimensions(reason, r);
    mcpp_sb_puts(reason, " (or name one lane by its short key)");
}

/* "; the claimed value is better by 14.4% than that median": the claim
 * against the lane in the words of metric_change.h. */
static void claim_change(mcpp_strbuf *reason, const mcpp_claim_result *r, const claim_lane *lane)
{
    if (lane->headline.median == 0) return;
    double u = mcpp_metric_improvement(r->value / lane->headline.median - 1, lane->headline.higher_is_better);
    mcpp_sb_puts(reason, "; the claimed value is ");
    mcpp_sb_change_words(reason, u);
    mcpp_sb_puts(reason, mcpp_change_word(u)[0] == 'u' ? " from that median" : " than that median");
}

/* A stable lane's headline, as the supported and contradicted reasons state it:
 * "KEY (LABEL) has METRIC median M, interval [LOW, HIGH] (n=N)". */
static void lane_headline_words(mcpp_strbuf *reason, const claim_lane *l, const char *metric)
{
    mcpp_sb_printf(reason, "%s (%s) has %s median %.6g, interval [%.6g, %.6g] (n=%zu)", l->short_key, l->label, metric,
                   l->headline.median, l->headline.interval_low, l->headline.interval_high, l->headline.n);
}

/* Sets the verdict and writes its reason. */
static void decide(mcpp_claim_result *r, mcpp_strbuf *reason, const claim_lane *support,
                   const claim_lane *stable_match)
{
    if (r->n_matched > 1) {
        decide_ambiguous(r, reason);
        return;
    }
    if (support) {
        r->verdict = MCPP_CLAIM_SUPPORTED;
        mcpp_sb_puts(reason, "supported: stable lane ");
        lane_headline_words(reason, support, r->metric);
        mcpp_sb_puts(reason, "; this number belongs to this lane only");
        claim_change(reason, r, support);
        return;
    }
    if (stable_match) {
        r->verdict = MCPP_CLAIM_CONTRADICTED;
        mcpp_sb_puts(reason, "contradicted: the matching stable lane ");
        lane_headline_words(reason, stable_match, r->metric);
        mcpp_sb_printf(reason, "; %.6g lies outside it", r->value);
        claim_change(reason, r, stable_match);
        describe_sources(reason, r, NULL);
        return;
    }
    r->verdict = MCPP_CLAIM_UNSUPPORTED;
    if (r->n_matched == 0) {
        mcpp_sb_puts(reason, "unsupported: no lane matches the selector");
    } else {
        mcpp_sb_puts(reason, "unsupported: no stable lane matches the selector (");
        for (size_t i = 0; i < r->n_matched; i++)
            mcpp_sb_printf(reason, "%s%s is %s: %s", i ? "; " : "", r->matched[i].short_key,
                           mcpp_lane_status_name((mcpp_lane_status)r->matched[i].status), r->matched[i].reasons);
        mcpp_sb_putc(reason, ')');
    }
    describe_sources(reason, r, NULL);
}

/* The verdict and reason from the frontier and which of its lanes match. */
static int decide_on(mcpp_claim_result *r, const mcpp_policy *p, const mcpp_frontier *f,
                     const unsigned char *match)
{
    const claim_lane *support = NULL, *stable_match = NULL;
    mcpp_strbuf reason;
    mcpp_sb_init_heap(&reason, 512);
    int rc = collect_lanes(r, f, p, match, &support, &stable_match);
    for (size_t i = 0; !rc && !r->unit && i < r->n_matched + r->n_sources; i++)
        r->unit = i < r->n_matched ? r->matched[i].unit : r->sources[i - r->n_matched].unit;
    if (!rc) {
        decide(r, &reason, support, stable_match);
        rc = mcpp_sb_finish(&reason, &r->reason);
    }
    mcpp_sb_free(&reason);
    return rc;
}

/* Which lanes of f match `selector`: a lane (short) key names one lane; terms
 * hold for a lane when they hold for each of its receipts (lane_of[i] is the
 * lane of receipts[i]). */
static int match_receipts(unsigned char *match, const mcpp_frontier *f, const char *selector,
                          const mcpp_receipt *const *receipts, size_t n, const size_t *lane_of)
{
    size_t found, L = mcpp_frontier_lane_count(f);
    if (mcpp_frontier_find_lane(&found, f, selector) == MCPP_OK) {
        match[found] = 1;
        return MCPP_OK;
    }
    mcpp_error_clear();
    unsigned char *holds = malloc(n ? n : 1);
    MCPP_CHECK_ALLOC(holds);
    int rc = mcpp_claim_selector_holds(holds, selector, receipts, n);
    if (!rc) {
        memset(match, 1, L);
        for (size_t i = 0; i < n; i++)
            if (!holds[i]) match[lane_of[i]] = 0;
    }
    free(holds);
    return rc;
}

/* Distinct texts of a field over the receipts (at most 64), into texts[]; returns how many. */
static size_t field_texts(char **texts, int id, const mcpp_receipt *const *receipts, size_t n, mcpp_strbuf *scratch)
{
    size_t count = 0;
    for (size_t i = 0; i < n && count < 64; i++) {
        mcpp_value v;
        if (mcpp_value_at_field(receipts[i], id, &v) != MCPP_OK || v.type == MCPP_TYPE_ABSENT)
            continue;
        scratch->len = 0;
        mcpp_value_text(scratch, &v, 0);
        if (scratch->failed)
            break;
        int seen = 0;
        for (size_t j = 0; j < count && !seen; j++)
            seen = strcmp(texts[j], scratch->data) == 0;
        if (!seen && (texts[count] = mcpp_strdup(scratch->data, NULL)) != NULL)
            count++;
    }
    mcpp_error_clear();
    return count;
}

/* A selector whose term holds for no receipt, when a stated value is a
 * spelling away ("moe=jaged": jagged), or the same but for case, or begins
 * with its words ("name=NAM56R": "NAM56R hybrid MoE lane";
 * mcpp_meant_value), is a slip, refused with that value rather than
 * answered "unsupported" or, from a store, nothing. A value far from every stated
 * one ("seq_len=16384" where 4096 was measured) is a claim about a lane that
 * was not measured, and keeps its verdict (the number's real lane is named).
 * Called when no lane matched. */
static int check_selector_values(const char *selector, const mcpp_receipt *const *receipts, size_t n)
{
    term *terms = NULL;
    size_t n_terms = 0;
    int rc = n ? parse_selector(&terms, &n_terms, selector) : MCPP_OK;
    mcpp_strbuf scratch;
    mcpp_sb_init_heap(&scratch, 128);
    for (size_t k = 0; k < n_terms && rc == MCPP_OK; k++) {
        int held = 0;
        for (size_t i = 0; i < n && !held; i++)
            held = term_holds(&terms[k], receipts[i], &scratch);
        if (held)
            continue;
        char *texts[64];
        size_t count = field_texts(texts, terms[k].id, receipts, n, &scratch);
        const mcpp_field_info *field = mcpp_schema_field_at(terms[k].id);
        const char *path = field->path;
        int number = field->type == MCPP_TYPE_INT || field->type == MCPP_TYPE_DOUBLE;
        /* names: a spelling, the case or the start of one ("name=nam56r");
         * numbers: a slip in a long one (4069 for 4096), never top_k=9 against 1 */
        const char *near = mcpp_closest_name(terms[k].value, (const char *const *)texts, count);
        if (!near && !number)
            near = mcpp_meant_value(terms[k].value, (const char *const *)texts, count, NULL);
        if (near && number && (strlen(terms[k].value) < 3 || mcpp_edit_distance(terms[k].value, near) > 1))
            near = NULL;
        mcpp_strbuf msg;
        mcpp_sb_init_heap(&msg, 256);
        mcpp_sb_printf(&msg, "no receipt has %s = '%s'; did you mean '%s'?", path, terms[k].value, near ? near : "");
        mcpp_sb_puts(&msg, " (values stated: ");
        for (size_t j = 0; j < count; j++)
            mcpp_sb_printf(&msg, "%s%s", j ? ", " : "", texts[j]);
        mcpp_sb_puts(&msg, count ? ")" : "none)");
        rc = !near        ? MCPP_OK
             : msg.failed ? mcpp_error_nomem()
                          : mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0, "%s", msg.data);
        mcpp_sb_free(&msg);
        for (size_t j = 0; j < count; j++)
            free(texts[j]);
    }
    mcpp_sb_free(&scratch);
    free_terms(terms, n_terms);
    return rc;
}

/* Hands r over, or frees it on failure. */
static int hand_over(mcpp_claim_result **out, mcpp_claim_result *r, int rc)
{
    if (rc) {
        mcpp_claim_result_free(r);
        return rc;
    }
    *out = r;
    return MCPP_OK;
}

int mcpp_claim_check(mcpp_claim_result **out, const mcpp_policy *policy, const mcpp_receipt *const *receipts, size_t n,
                     const char *lane_selector, const char *metric, double value)
{
    MCPP_CHECK_ARG(out, "mcpp_claim_check: NULL out");
    *out = NULL;
    MCPP_CHECK_ARG(!n || receipts, "mcpp_claim_check: NULL receipts");
    const mcpp_policy *p = NULL;
    mcpp_claim_result *r = NULL;
    /* a misspelt metric, here or in the policy file, is no unsupported claim */
    int rc = metric || !policy ? mcpp_metric_check_stated(metric, receipts, n)
                               : mcpp_metric_check_stated_in(mcpp_policy_gate(policy)->metric, receipts, n,
                                                             mcpp_policy_name(policy), 0);
    if (!rc)
        rc = claim_new(&r, &p, policy, lane_selector, metric, value);
    if (rc) return rc;
    size_t *lane_of = malloc((n ? n : 1) * sizeof *lane_of);
    mcpp_frontier *f = NULL;
    unsigned char *match = NULL;
    if (!lane_of) rc = mcpp_error_nomem();
    if (!rc) rc = mcpp_frontier_build_metric(&f, p, receipts, n, r->metric, lane_of);
    if (!rc && !(match = calloc(mcpp_frontier_lane_count(f) + 1, 1))) rc = mcpp_error_nomem();
    if (!rc) rc = match_receipts(match, f, lane_selector, receipts, n, lane_of);
    if (!rc && !memchr(match, 1, mcpp_frontier_lane_count(f)))
        rc = check_selector_values(lane_selector, receipts, n);
    if (!rc) rc = decide_on(r, p, f, match);
    free(match);
    free(lane_of);
    mcpp_frontier_free(f);
    return hand_over(out, r, rc);
}

int mcpp_claim_selector_holds(unsigned char *out, const char *selector, const mcpp_receipt *const *receipts, size_t n)
{
    MCPP_CHECK_ARG(out && selector && (!n || receipts), "mcpp_claim_selector_holds: NULL argument");
    term *terms = NULL;
    size_t n_terms = 0;
    int rc = parse_selector(&terms, &n_terms, selector);
    if (rc) return rc;
    mcpp_strbuf scratch;
    mcpp_sb_init_heap(&scratch, 128);
    for (size_t i = 0; i < n; i++) {
        out[i] = 1;
        for (size_t k = 0; k < n_terms && out[i]; k++)
            out[i] = (unsigned char)term_holds(&terms[k], receipts[i], &scratch);
    }
    if (scratch.failed) rc = mcpp_error_nomem();
    mcpp_sb_free(&scratch);
    free_terms(terms, n_terms);
    return rc;
}

int mcpp_claim_check_frontier(mcpp_claim_result **out, const mcpp_policy *policy, const mcpp_frontier *frontier,
                              const unsigned char *lane_holds, const char *lane_selector, const char *metric,
                              double value)
{
    MCPP_CHECK_ARG(out && frontier, "mcpp_claim_check_frontier: NULL argument");
    const mcpp_policy *p = NULL;
    mcpp_claim_result *r = NULL;
    int rc = claim_new(&r, &p, policy, lane_selector, metric, value);
    if (rc) return rc;
    size_t found, L = mcpp_frontier_lane_count(frontier);
    unsigned char *match = calloc(L + 1, 1);
    if (!match) rc = mcpp_error_nomem();
    if (!rc && mcpp_frontier_find_lane(&found, frontier, lane_selector) == MCPP_OK) {
        match[found] = 1;
    } else if (!rc) {
        mcpp_error_clear();
        if (!lane_holds)
            rc = MCPP_ERROR_ARG("'%s' names no lane of the frontier and no selector terms were evaluated",
                                lane_selector);
        else if (L)
            memcpy(match, lane_holds, L);
    }
    if (!rc) rc = decide_on(r, p, frontier, match);
    free(match);
    return hand_over(out, r, rc);
}

mcpp_claim_verdict mcpp_claim_result_verdict(const mcpp_claim_result *r) { return r ? r->verdict : MCPP_CLAIM_UNSUPPORTED; }
const char *mcpp_claim_result_reason(const mcpp_claim_result *r) { return r ? r->reason : NULL; }
const char *mcpp_claim_result_policy_name(const mcpp_claim_result *r) { return r ? r->policy_name : NULL; }
const char *mcpp_claim_result_policy_digest(const mcpp_claim_result *r) { return r ? r->policy_digest : NULL; }
const char *mcpp_claim_result_unit(const mcpp_claim_result *r) { return r ? r->unit : NULL; }

/* The first lane (matched, else source) whose unit differs from `unit`. */
static const claim_lane *other_unit(const mcpp_claim_result *r, const char *unit)
{
    for (size_t i = 0; i < r->n_matched + r->n_sources; i++) {
        const claim_lane *c = i < r->n_matched ? &r->matched[i] : &r->sources[i - r->n_matched];
        /* a lane whose runs state the metric (counted or excluded) has a unit */
        if ((c->has_headline || c->unit) && (!c->unit || strcmp(c->unit, unit) != 0)) return c;
    }
    return NULL;
}

int mcpp_claim_result_check_unit(const mcpp_claim_result *r, const char *unit)
{
    MCPP_CHECK_ARG(r && unit, "mcpp_claim_result_check_unit: NULL argument");
    const claim_lane *c = other_unit(r, unit);
    if (!c) return MCPP_OK;
    return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, NULL, "unit", 0, 0,
                         "the claim states %s in '%s' but lane %s (%s) states it in %s%s%s: not compared", r->metric,
                         unit, c->short_key, c->label, c->unit ? "'" : "", c->unit ? c->unit : "no unit",
                         c->unit ? "'" : "");
}
size_t mcpp_claim_result_matched_count(const mcpp_claim_result *r) { return r ? r->n_matched : 0; }
size_t mcpp_claim_result_source_count(const mcpp_claim_result *r) { return r ? r->n_sources : 0; }

const char *mcpp_claim_result_matched_key(const mcpp_claim_result *r, size_t i)
{
    return r && i < r->n_matched ? r->matched[i].key : NULL;
}

int mcpp_claim_result_matched_status(const mcpp_claim_result *r, size_t i)
{
    return r && i < r->n_matched ? r->matched[i].status : -1;
}

const char *mcpp_claim_result_source_key(const mcpp_claim_result *r, size_t i)
{
    return r && i < r->n_sources ? r->sources[i].key : NULL;
}

int mcpp_claim_result_source_status(const mcpp_claim_result *r, size_t i)
{
    return r && i < r->n_sources ? r->sources[i].status : -1;
}

const char *mcpp_claim_result_source_reason(const mcpp_claim_result *r, size_t i)
{
    return r && i < r->n_sources ? r->sources[i].reasons : NULL;
}
