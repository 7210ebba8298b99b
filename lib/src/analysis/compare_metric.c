/*
 * compare_metric.c — the headline metric of a comparison: which values each
 * side contributes (per-step values when there are step samples, the stated
 * number otherwise), the relative delta with its interval and noise floor,
 * and the gate decision on that result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_internal.h"
#include "analysis/metric_change.h"
#include "util/error_internal.h"
#include "util/escape.h"
#include "analysis/stats_internal.h"
#include "receipt/receipt_internal.h"

static const char METHOD_HL[] = "hodges-lehmann/mann-whitney on log values";
static const char METHOD_POINT[] = "point";

void mcpp_metric_side_free(mcpp_metric_side *s)
{
    free(s->steps);
    free(s->stated);
    memset(s, 0, sizeof *s);
}

static int push(double **arr, size_t *n, size_t *cap, double v)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        double *na = realloc(*arr, nc * sizeof *na);
        MCPP_CHECK_ALLOC(na);
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = v;
    return MCPP_OK;
}

static int number_of(const mcpp_receipt *r, int id, double *out)
{
    mcpp_value v;
    if (id < 0 || mcpp_receipt_get_field(r, id, &v) != MCPP_OK) return 0;
    if (v.type == MCPP_TYPE_DOUBLE) *out = v.number;
    else if (v.type == MCPP_TYPE_INT) *out = (double)v.integer;
    else return 0;
    return 1;
}

static double median_of_samples(const double *samples, size_t n)
{
    double small[64];
    double *tmp = n <= 64 ? small : malloc(n * sizeof *tmp);
    if (!tmp) return NAN;
    memcpy(tmp, samples, n * sizeof *tmp);
    mcpp_sort_doubles(tmp, n);
    double m = mcpp_quantile_sorted(tmp, n, 0.5);
    if (tmp != small) free(tmp);
    return m;
}

/* What one receipt contributes: its stated (or derived) value, and how to
 * turn its samples into values (scale / t for tokens_per_s from step times,
 * the sample itself for any other metric with samples). */
typedef struct receipt_metric {
    int has_stated;
    double stated;
    int use_steps;
    double scale; /* tokens_per_s from step times: useful tokens per step */
    const double *samples;
    size_t n_samples;
    mcpp_metric view; /* a named metric's samples (read with mcpp_metric_sample) */
    int from_view;
    const char *sample_kind;
    mcpp_metric_ident ident;
} receipt_metric;

/* tokens_per_s and step_time_s keep the step-sample derivation of schema 1:
 * rates from the step times, the stated figure when there is one. */
static void resolve_step_metric(receipt_metric *m, const mcpp_policy *p, int metric_id, const mcpp_receipt *r)
{
    m->has_stated = number_of(r, metric_id, &m->stated);
    mcpp_value sv;
    if (p->id_samples >= 0 && mcpp_receipt_get_field(r, p->id_samples, &sv) == MCPP_OK &&
        sv.type == MCPP_TYPE_DOUBLE_LIST && sv.count > 0) {
        m->samples = sv.doubles;
        m->n_samples = sv.count;
        m->sample_kind = "step";
    }
    if (m->samples && metric_id == p->id_tokens_per_s) {
        double useful, med = NAN;
        if (number_of(r, p->id_useful_tokens, &useful) && useful > 0) {
            m->scale = useful;
        } else if (m->has_stated) {
            if (!number_of(r, p->id_step_median, &med)) med = median_of_samples(m->samples, m->n_samples);
            m->scale = m->stated * med;
        } else {
            m->scale = NAN;
        }
        m->use_steps = isfinite(m->scale) && m->scale > 0;
        if (m->use_steps && !m->has_stated) {
            if (!number_of(r, p->id_step_median, &med)) med = median_of_samples(m->samples, m->n_samples);
            if (med > 0) {
                m->stated = mcpp_tokens_per_s_from_steps(m->scale, med);
                m->has_stated = 1;
            }
        }
    } else if (m->samples && metric_id == p->id_step_median) {
        m->use_steps = 1;
        if (!m->has_stated) {
            m->stated = median_of_samples(m->samples, m->n_samples);
            m->has_stated = 1;
        }
    }
}

/* Any other metric: the receipt's stated value, and its samples as values. */
static void resolve_named_metric(receipt_metric *m, const mcpp_receipt *r, const char *name)
{
    if (mcpp_receipt_metric_find(&m->view, r, name) != MCPP_OK) return;
    m->has_stated = 1;
    m->stated = m->view.value;
    m->ident.unit = m->view.unit;
    m->ident.higher_is_better = m->view.direction == MCPP_DIRECTION_HIGHER;
    if (m->view.sample_count > 0) {
        m->from_view = m->use_steps = 1;
        m->n_samples = m->view.sample_count;
        m->sample_kind = m->view.sample_kind ? m->view.sample_kind : "";
    }
}

/* A receipt's primary metric as the analyses read it: mcpp_receipt_metric_primary,
 * except that a step-runner receipt that does not state tokens_per_s but can
 * derive it (useful tokens per step and step samples) heads with tokens_per_s,
 * as the receipts that state it do: one lane, one headline metric. */
static const char *primary_of(const mcpp_policy *p, const mcpp_receipt *r)
{
    const char *name = mcpp_receipt_metric_primary(r);
    double useful;
    mcpp_value sv;
    if (name && strcmp(name, "step_time_s") == 0 && !mcpp_present(r, MCPP_F_metrics_primary) &&
        number_of(r, p->id_useful_tokens, &useful) && useful > 0 && p->id_samples >= 0 &&
        mcpp_receipt_get_field(r, p->id_samples, &sv) == MCPP_OK && sv.type == MCPP_TYPE_DOUBLE_LIST &&
        sv.count > 0)
        return "tokens_per_s";
    return name;
}

static void resolve_metric(receipt_metric *m, const mcpp_policy *p, const mcpp_metric_ref *ref, const mcpp_receipt *r)
{
    memset(m, 0, sizeof *m);
    const char *name = ref->kind == MCPP_METRIC_REF_PRIMARY ? primary_of(p, r) : ref->name;
    m->ident.name = name;
    if (!name) return;
    if (ref->kind == MCPP_METRIC_REF_FIELD) {
        m->has_stated = number_of(r, ref->field_id, &m->stated);
        m->ident.higher_is_better = ref->higher_is_better;
    } else if (strcmp(name, "tokens_per_s") == 0 || strcmp(name, "step_time_s") == 0) {
        int tokens = name[0] == 't';
        resolve_step_metric(m, p, tokens ? p->id_tokens_per_s : p->id_step_median, r);
        mcpp_metric_well_known(name, &m->ident.unit, NULL);
        m->ident.higher_is_better = tokens;
    } else {
        resolve_named_metric(m, r, name);
    }
    if (!isfinite(m->stated)) m->has_stated = 0;
}

int mcpp_metric_stated(double *out, mcpp_metric_ident *ident, const mcpp_policy *p, const mcpp_metric_ref *ref,
                       const mcpp_receipt *r)
{
    receipt_metric m;
    resolve_metric(&m, p, ref, r);
    if (m.has_stated) *out = m.stated;
    if (ident) *ident = m.ident;
    return m.has_stated;
}

int mcpp_metric_value(double *out, const char *metric, const mcpp_receipt *r)
{
    const mcpp_policy *p = mcpp_policy_builtin();
    if (!p) return MCPP_ENOMEM;
    mcpp_metric_ref ref;
    int rc = mcpp_metric_ref_init(&ref, metric, 1);
    return rc ? rc : mcpp_metric_stated(out, NULL, p, &ref, r);
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int mcpp_metric_ident_same(const mcpp_metric_ident *a, const mcpp_metric_ident *b, const char **what)
{
    *what = !same_text(a->name, b->name)                 ? "metric"
            : !same_text(a->unit, b->unit)               ? "unit"
            : a->higher_is_better != b->higher_is_better ? "direction"
                                                         : NULL;
    return *what == NULL;
}

/* Records the receipt's identity on the side: the first sets it, a later one
 * that differs marks the side as mixing metrics, units or directions. */
static void note_ident(mcpp_metric_side *s, const mcpp_metric_ident *id)
{
    const char *what;
    if (s->receipts == 0) s->ident = *id;
    else if (!s->conflict && !mcpp_metric_ident_same(&s->ident, id, &what)) {
        s->conflict = what;
        s->other = *id;
    }
}

int mcpp_metric_side_add(mcpp_metric_side *s, const mcpp_policy *p, const mcpp_metric_ref *ref,
                         const mcpp_receipt *r)
{
    receipt_metric m;
    resolve_metric(&m, p, ref, r);
    if (!m.has_stated) return 0;
    int rc = push(&s->stated, &s->n_stated, &s->cap_stated, m.stated);
    if (rc) return rc;
    note_ident(s, &m.ident);
    s->receipts++;
    /* Samples of another kind than the side's first (rounds against
     * repetitions) are not one population: that receipt counts as a point. */
    if (m.use_steps && s->sample_kind && strcmp(s->sample_kind, m.sample_kind) != 0) m.use_steps = 0;
    if (m.use_steps) {
        if (!s->sample_kind) s->sample_kind = m.sample_kind;
        for (size_t i = 0; i < m.n_samples; i++) {
            double t = m.from_view ? mcpp_metric_sample(&m.view, i) : m.samples[i];
            if (!m.from_view && !(t > 0)) continue; /* a zero-length step carries no rate */
            double v = m.from_view || m.scale == 0 ? t : mcpp_tokens_per_s_from_steps(m.scale, t);
            if ((rc = push(&s->steps, &s->n_steps, &s->cap_steps, v)) != 0) return rc;
        }
        s->with_samples++;
    }
    return 1;
}

static void put_ident(mcpp_strbuf *why, const mcpp_metric_ident *id, const char *what)
{
    if (strcmp(what, "metric") == 0) mcpp_sb_printf(why, "'%s'", id->name ? id->name : "(none)");
    else if (strcmp(what, "unit") == 0) mcpp_sb_printf(why, "'%s'", id->unit ? id->unit : "(no unit)");
    else mcpp_sb_puts(why, id->higher_is_better ? "higher is better" : "lower is better");
}

static void conflict_reason(mcpp_strbuf *why, const char *name, const char *what, const mcpp_metric_ident *a,
                            const char *a_side, const mcpp_metric_ident *b, const char *b_side)
{
    mcpp_sb_printf(why, "%s: %s ", name ? name : "metric", strcmp(what, "metric") == 0 ? "primary metric" : what);
    put_ident(why, a, what);
    mcpp_sb_printf(why, " on %s, ", a_side);
    put_ident(why, b, what);
    mcpp_sb_printf(why, " on %s: not compared", b_side);
}

int mcpp_metric_sides_agree(const mcpp_metric_side *base, const mcpp_metric_side *cand, mcpp_strbuf *why)
{
    const char *what;
    if (base->conflict) {
        conflict_reason(why, base->ident.name, base->conflict, &base->ident, "one baseline", &base->other, "another");
        return 0;
    }
    if (cand->conflict) {
        conflict_reason(why, cand->ident.name, cand->conflict, &cand->ident, "one candidate", &cand->other, "another");
        return 0;
    }
    if (!mcpp_metric_ident_same(&base->ident, &cand->ident, &what)) {
        conflict_reason(why, base->ident.name, what, &base->ident, "the base", &cand->ident, "the candidate");
        return 0;
    }
    return 1;
}

static int all_positive(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] > 0)) return 0;
    return 1;
}

int mcpp_metric_compare(mcpp_metric_result *out, const mcpp_policy *p, double confidence,
                        const mcpp_metric_side *base, const mcpp_metric_side *cand)
{
    memset(out, 0, sizeof *out);
    out->metric = base->ident.name;
    out->unit = base->ident.unit;
    out->higher_is_better = base->ident.higher_is_better;
    out->confidence = confidence;
    int steps = base->receipts && cand->receipts && base->with_samples == base->receipts &&
                cand->with_samples == cand->receipts && base->n_steps >= 1 && cand->n_steps >= 1 &&
                same_text(base->sample_kind, cand->sample_kind);
    const double *bv = steps ? base->steps : base->stated;
    const double *cv = steps ? cand->steps : cand->stated;
    size_t nb = steps ? base->n_steps : base->n_stated;
    size_t nc = steps ? cand->n_steps : cand->n_stated;
    double *sorted = malloc((nb + nc) * sizeof *sorted);
    MCPP_CHECK_ALLOC(sorted);
    double *bs = sorted, *cs = sorted + nb;
    memcpy(bs, bv, nb * sizeof *bs);
    memcpy(cs, cv, nc * sizeof *cs);
    mcpp_sort_doubles(bs, nb);
    mcpp_sort_doubles(cs, nc);
    out->base_median = mcpp_quantile_sorted(bs, nb, 0.5);
    out->cand_median = mcpp_quantile_sorted(cs, nc, 0.5);
    out->n_base = nb;
    out->n_cand = nc;
    out->rel_delta = out->base_median != 0 ? out->cand_median / out->base_median - 1 : NAN;
    double spread = mcpp_stats_rel_spread_sorted(bs, nb) / 2;
    out->noise_floor = spread > p->noise.noise_floor ? spread : p->noise.noise_floor;
    /* Two values per side at least, all positive (logs): otherwise a point. */
    int interval = steps && nb >= 2 && nc >= 2 && all_positive(bs, nb) && all_positive(cs, nc);
    if (interval) {
        if (mcpp_stats_hl_ratio_interval(bs, nb, cs, nc, confidence, &out->interval_low,
                                         &out->interval_high) != 0) {
            free(sorted);
            return mcpp_error_nomem();
        }
        out->method = METHOD_HL;
        out->point_comparison = 0;
    } else {
        out->interval_low = out->interval_high = out->rel_delta;
        out->method = METHOD_POINT;
        out->point_comparison = 1;
    }
    free(sorted);
    return MCPP_OK;
}

mcpp_gate_outcome mcpp_metric_gate(const mcpp_metric_result *m, const mcpp_policy *p, double allowance,
                                   mcpp_strbuf *reason)
{
    if (!isfinite(m->rel_delta)) {
        mcpp_sb_printf(reason, "%s: base median is 0, no relative change can be formed", m->metric);
        return MCPP_GATE_UNDETERMINED;
    }
    /* The sign convention of metric_change.h: u > 0 is better. */
    double u = mcpp_metric_improvement(m->rel_delta, m->higher_is_better);
    double lo, best; /* best: the end of the interval most favourable to the candidate */
    mcpp_metric_improvement_interval(m, &lo, &best);
    const char *dir = m->higher_is_better ? "higher is better" : "lower is better";
    mcpp_gate_outcome outcome;
    if (m->point_comparison && !p->allow_point_comparisons) {
        mcpp_sb_puts(reason, "point comparison (");
        mcpp_sb_change_words(reason, u);
        mcpp_sb_printf(reason,
                       " on %s): a side has a single value and no step samples, so "
                       "no change can be established; policy '%s' does not allow point comparisons",
                       m->metric, p->name);
        return MCPP_GATE_UNDETERMINED;
    }
    if (best < -allowance) {
        outcome = MCPP_GATE_FAILED;
        mcpp_sb_change_words(reason, u);
        mcpp_sb_printf(reason, " on %s (%s): ", m->metric, dir);
        if (m->point_comparison) {
            mcpp_sb_printf(reason, "beyond the %.1f%% allowance", allowance * 100);
        } else {
            mcpp_sb_printf(reason, "established, even the favourable end of the %.0f%% interval (",
                           m->confidence * 100);
            mcpp_sb_change_words(reason, best);
            mcpp_sb_printf(reason, ") is beyond the %.1f%% allowance", allowance * 100);
        }
    } else {
        outcome = MCPP_GATE_PASSED;
        if (fabs(u) < m->noise_floor) mcpp_sb_puts(reason, "within noise: ");
        mcpp_sb_change_words(reason, u);
        mcpp_sb_printf(reason, " on %s (%s)", m->metric, dir);
        if (fabs(u) < m->noise_floor)
            mcpp_sb_printf(reason, ", noise floor %.1f%%", m->noise_floor * 100);
        else if (u < 0)
            mcpp_sb_printf(reason, ", not established beyond the %.1f%% allowance", allowance * 100);
        if (!m->point_comparison) {
            mcpp_sb_printf(reason, " (%.0f%% interval: ", m->confidence * 100);
            mcpp_sb_change_words(reason, lo);
            mcpp_sb_puts(reason, " .. ");
            mcpp_sb_change_words(reason, best);
            mcpp_sb_putc(reason, ')');
        }
    }
    if (m->point_comparison)
        mcpp_sb_puts(reason, " [point comparison: no step samples on at least one side]");
    return outcome;
}

void mcpp_metric_render_json(mcpp_strbuf *b, const mcpp_metric_result *m)
{
    mcpp_sb_puts(b, "{\"name\": ");
    mcpp_sb_json_string(b, m->metric);
    mcpp_sb_puts(b, ", \"unit\": ");
    if (m->unit) mcpp_sb_json_string(b, m->unit);
    else mcpp_sb_puts(b, "null");
    mcpp_sb_printf(b, ", \"higher_is_better\": %s, \"base_median\": ", m->higher_is_better ? "true" : "false");
    mcpp_sb_json_number(b, m->base_median);
    mcpp_sb_puts(b, ", \"cand_median\": ");
    mcpp_sb_json_number(b, m->cand_median);
    mcpp_sb_puts(b, ", \"rel_delta\": ");
    mcpp_sb_json_number(b, m->rel_delta);
    mcpp_sb_puts(b, ", \"interval\": [");
    mcpp_sb_json_number(b, m->interval_low);
    mcpp_sb_puts(b, ", ");
    mcpp_sb_json_number(b, m->interval_high);
    double lo, hi;
    mcpp_metric_improvement_interval(m, &lo, &hi);
    mcpp_sb_puts(b, "], \"improvement\": ");
    mcpp_sb_json_number(b, mcpp_metric_improvement(m->rel_delta, m->higher_is_better));
    mcpp_sb_puts(b, ", \"improvement_interval\": [");
    mcpp_sb_json_number(b, lo);
    mcpp_sb_puts(b, ", ");
    mcpp_sb_json_number(b, hi);
    mcpp_sb_puts(b, "], \"change\": \"");
    mcpp_sb_change_words(b, mcpp_metric_improvement(m->rel_delta, m->higher_is_better));
    mcpp_sb_puts(b, "\", \"confidence\": ");
    mcpp_sb_json_number(b, m->confidence);
    mcpp_sb_printf(b, ", \"n_base\": %zu, \"n_cand\": %zu, \"noise_floor\": ", m->n_base, m->n_cand);
    mcpp_sb_json_number(b, m->noise_floor);
    mcpp_sb_puts(b, ", \"method\": ");
    mcpp_sb_json_string(b, m->method);
    mcpp_sb_printf(b, ", \"point_comparison\": %s}", m->point_comparison ? "true" : "false");
}

void mcpp_metric_render_text(mcpp_strbuf *b, const mcpp_metric_result *m, const char *indent)
{
    mcpp_sb_printf(b, "%smetric      ", indent);
    mcpp_sb_terminal(b, m->metric);
    mcpp_sb_puts(b, " (");
    if (m->unit) {
        mcpp_sb_terminal(b, m->unit);
        mcpp_sb_puts(b, ", ");
    }
    mcpp_sb_printf(b, "%s)\n", m->higher_is_better ? "higher is better" : "lower is better");
    mcpp_sb_printf(b, "%sbase        %.6g (median of %zu)\n", indent, m->base_median, m->n_base);
    mcpp_sb_printf(b, "%scandidate   %.6g (median of %zu)\n", indent, m->cand_median, m->n_cand);
    mcpp_sb_printf(b, "%schange      ", indent);
    mcpp_sb_change_words(b, mcpp_metric_improvement(m->rel_delta, m->higher_is_better));
    if (m->point_comparison) {
        mcpp_sb_puts(b, " (point comparison: no interval)\n");
    } else {
        mcpp_sb_printf(b, "  [%.0f%% interval: ", m->confidence * 100);
        mcpp_sb_interval_words(b, m);
        mcpp_sb_puts(b, "]\n");
    }
    mcpp_sb_printf(b, "%snoise floor %.2f%%   method: %s\n", indent, m->noise_floor * 100, m->method);
}
