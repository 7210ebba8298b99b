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
 * turn its step samples into values (scale / t for rates, t for times). */
typedef struct receipt_metric {
    int has_stated;
    double stated;
    int use_steps;
    double scale;
    const double *samples;
    size_t n_samples;
} receipt_metric;

static void resolve_metric(receipt_metric *m, const mcpp_policy *p, int metric_id, const mcpp_receipt *r)
{
    memset(m, 0, sizeof *m);
    m->has_stated = number_of(r, metric_id, &m->stated);
    mcpp_value sv;
    if (p->id_samples >= 0 && mcpp_receipt_get_field(r, p->id_samples, &sv) == MCPP_OK &&
        sv.type == MCPP_TYPE_DOUBLE_LIST && sv.count > 0) {
        m->samples = sv.doubles;
        m->n_samples = sv.count;
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
    if (!isfinite(m->stated)) m->has_stated = 0;
}

int mcpp_metric_stated(double *out, const mcpp_policy *p, int metric_id, const mcpp_receipt *r)
{
    receipt_metric m;
    resolve_metric(&m, p, metric_id, r);
    if (m.has_stated) *out = m.stated;
    return m.has_stated;
}

int mcpp_metric_side_add(mcpp_metric_side *s, const mcpp_policy *p, int metric_id, const mcpp_receipt *r)
{
    receipt_metric m;
    resolve_metric(&m, p, metric_id, r);
    if (!m.has_stated) return 0;
    int rc = push(&s->stated, &s->n_stated, &s->cap_stated, m.stated);
    if (rc) return rc;
    s->receipts++;
    if (m.use_steps) {
        for (size_t i = 0; i < m.n_samples; i++) {
            double t = m.samples[i];
            if (!(t > 0)) continue; /* a zero-length step carries no rate */
            double v = metric_id == p->id_step_median ? t : mcpp_tokens_per_s_from_steps(m.scale, t);
            if ((rc = push(&s->steps, &s->n_steps, &s->cap_steps, v)) != 0) return rc;
        }
        s->with_samples++;
    }
    return 1;
}

static int all_positive(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] > 0)) return 0;
    return 1;
}

int mcpp_metric_compare(mcpp_metric_result *out, const mcpp_policy *p, const mcpp_metric_side *base,
                        const mcpp_metric_side *cand)
{
    memset(out, 0, sizeof *out);
    out->metric = p->gate.metric;
    out->higher_is_better = p->gate.higher_is_better;
    out->confidence = p->gate.confidence;
    int steps = base->receipts && cand->receipts && base->with_samples == base->receipts &&
                cand->with_samples == cand->receipts && base->n_steps >= 1 && cand->n_steps >= 1;
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
        if (mcpp_stats_hl_ratio_interval(bs, nb, cs, nc, p->gate.confidence, &out->interval_low,
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

mcpp_gate_outcome mcpp_metric_gate(const mcpp_metric_result *m, const mcpp_policy *p, mcpp_strbuf *reason)
{
    double allowance = p->gate.max_regression;
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
    mcpp_sb_printf(b, " (%s)\n", m->higher_is_better ? "higher is better" : "lower is better");
    mcpp_sb_printf(b, "%sbase        %.6g (median of %zu)\n", indent, m->base_median, m->n_base);
    mcpp_sb_printf(b, "%scandidate   %.6g (median of %zu)\n", indent, m->cand_median, m->n_cand);
    mcpp_sb_printf(b, "%schange      ", indent);
    mcpp_sb_change_words(b, mcpp_metric_improvement(m->rel_delta, m->higher_is_better));
    if (m->point_comparison) {
        mcpp_sb_puts(b, " (point comparison: no interval)\n");
    } else {
        double lo, hi;
        mcpp_metric_improvement_interval(m, &lo, &hi);
        mcpp_sb_printf(b, "  [%.0f%% interval: ", m->confidence * 100);
        mcpp_sb_change_words(b, lo);
        mcpp_sb_puts(b, " .. ");
        mcpp_sb_change_words(b, hi);
        mcpp_sb_puts(b, "]\n");
    }
    mcpp_sb_printf(b, "%snoise floor %.2f%%   method: %s\n", indent, m->noise_floor * 100, m->method);
}
