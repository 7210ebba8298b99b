/*
 * metrics.c — the named-metric view of a receipt: the well-known metrics at
 * their fixed paths (with fixed unit and direction) followed by the entries
 * of metrics.named, read without allocating.
 */
#include <string.h>

#include "util/error_internal.h"
#include "receipt/load_ctx.h"
#include "receipt/schema.h"
#include "receipt/metric_ref.h"

const mcpp_well_known_metric mcpp_well_known_metrics[] = {
    {"step_time_s", "s", MCPP_DIRECTION_LOWER, MCPP_F_metrics_step_time_s_median},
    {"tokens_per_s", "tokens/s", MCPP_DIRECTION_HIGHER, MCPP_F_metrics_tokens_per_s},
    {"peak_memory_gib", "GiB", MCPP_DIRECTION_LOWER, MCPP_F_metrics_peak_memory_gib},
    {"per_family_ms.A", "ms", MCPP_DIRECTION_LOWER, MCPP_F_metrics_per_family_ms_A},
    {"per_family_ms.M", "ms", MCPP_DIRECTION_LOWER, MCPP_F_metrics_per_family_ms_M},
    {"per_family_ms.E", "ms", MCPP_DIRECTION_LOWER, MCPP_F_metrics_per_family_ms_E},
    {"per_family_ms.R", "ms", MCPP_DIRECTION_LOWER, MCPP_F_metrics_per_family_ms_R},
    {"goodput.allocated_s", "s", MCPP_DIRECTION_LOWER, MCPP_F_metrics_goodput_allocated_s},
    {"goodput.kernel_busy_s", "s", MCPP_DIRECTION_LOWER, MCPP_F_metrics_goodput_kernel_busy_s},
    {"goodput.useful_s", "s", MCPP_DIRECTION_HIGHER, MCPP_F_metrics_goodput_useful_s},
    {"goodput.badput_s.compile", "s", MCPP_DIRECTION_LOWER, MCPP_F_metrics_goodput_badput_s_compile},
    {"goodput.badput_s.warmup", "s", MCPP_DIRECTION_LOWER, MCPP_F_metrics_goodput_badput_s_warmup},
    {"goodput.badput_s.data", "s", MCPP_DIRECTION_LOWER, MCPP_F_metrics_goodput_badput_s_data},
    {"goodput.badput_s.checkpoint", "s", MCPP_DIRECTION_LOWER,
     MCPP_F_metrics_goodput_badput_s_checkpoint},
    {"goodput.badput_s.eval", "s", MCPP_DIRECTION_LOWER, MCPP_F_metrics_goodput_badput_s_eval},
    {"goodput.badput_s.idle", "s", MCPP_DIRECTION_LOWER, MCPP_F_metrics_goodput_badput_s_idle},
};
const size_t mcpp_well_known_metric_count =
    sizeof mcpp_well_known_metrics / sizeof mcpp_well_known_metrics[0];

int mcpp_metric_well_known(const char *name, const char **unit_out, mcpp_direction *direction_out)
{
    for (size_t i = 0; name && i < mcpp_well_known_metric_count; i++) {
        if (strcmp(mcpp_well_known_metrics[i].name, name) == 0) {
            if (unit_out)
                *unit_out = mcpp_well_known_metrics[i].unit;
            if (direction_out)
                *direction_out = mcpp_well_known_metrics[i].direction;
            return 1;
        }
    }
    return 0;
}

/* step_time_s is present with its median or with samples alone (its value is
 * then the median of the samples). */
static int well_known_present(const mcpp_receipt *r, size_t k)
{
    if (mcpp_well_known_metrics[k].field == MCPP_F_metrics_step_time_s_median)
        return mcpp_present(r, MCPP_F_metrics_step_time_s_median) ||
               (mcpp_present(r, MCPP_F_metrics_step_time_s_samples) &&
                MCPP_FIELD(r, metrics_step_time_s_samples, mcpp_double_list).count > 0);
    return mcpp_present(r, mcpp_well_known_metrics[k].field);
}

static void well_known_view(mcpp_metric *out, const mcpp_receipt *r, size_t k)
{
    const mcpp_well_known_metric *w = &mcpp_well_known_metrics[k];
    memset(out, 0, sizeof *out);
    out->name = w->name;
    out->unit = w->unit;
    out->direction = w->direction;
    out->well_known = 1;
    out->path = mcpp_schema_entries[w->field].info.path;
    if (w->field != MCPP_F_metrics_step_time_s_median) {
        out->value = *(const double *)mcpp_field_slot(r, w->field);
        out->aggregate = "single";
        return;
    }
    out->path = "metrics.step_time_s";
    out->aggregate = "median";
    const mcpp_double_list *s = &MCPP_FIELD(r, metrics_step_time_s_samples, mcpp_double_list);
    if (mcpp_present(r, MCPP_F_metrics_step_time_s_samples) && s->count > 0) {
        out->sample_kind = "step";
        out->sample_count = s->count;
        out->samples_ = s->items;
    }
    if (mcpp_present(r, MCPP_F_metrics_step_time_s_median)) {
        out->value = MCPP_FIELD(r, metrics_step_time_s_median, double);
    } else {
        double p10, p90;
        mcpp_sample_stats(s->items, s->count, &out->value, &p10, &p90);
    }
}

/* ---- Goodput fractions: derived from the seconds, as the notes define them ----
 * Seconds compare the wrong way round (more useful seconds over a longer
 * allocation is not better goodput), so the fractions of the allocated time
 * are metrics of their own, with their own direction: useful and kernel-busy
 * share (higher is better) and badput share (lower is better). Each is
 * present when allocated_s > 0 and its numerator is stated. */
/* The fourth, padding_waste_fraction (issue 47 item 12), is the share of the
 * tokens computed per step that were padding: 1 - useful / computed, lower is
 * better; present when both are stated and tokens_per_step > 0. */
enum { N_DERIVED = 4 };
static const char *const DERIVED_NAMES[N_DERIVED] = {"goodput.useful_fraction", "goodput.kernel_busy_fraction",
                                                     "goodput.badput_fraction", "padding_waste_fraction"};
/* Each its own path (and so its own pandas column), beside the seconds it is made of. */
static const char *const DERIVED_PATHS[N_DERIVED] = {
    "metrics.goodput.useful_fraction", "metrics.goodput.kernel_busy_fraction", "metrics.goodput.badput_fraction",
    "metrics.padding_waste_fraction"};

/* Derived metric k of r into *value; 1 when present. */
static int derived_value(const mcpp_receipt *r, size_t k, double *value)
{
    if (k == 3) {
        if (!mcpp_present(r, MCPP_F_workload_tokens_per_step) ||
            !mcpp_present(r, MCPP_F_workload_useful_tokens_per_step) ||
            MCPP_FIELD(r, workload_tokens_per_step, int64_t) <= 0)
            return 0;
        *value = 1.0 - (double)MCPP_FIELD(r, workload_useful_tokens_per_step, int64_t) /
                           (double)MCPP_FIELD(r, workload_tokens_per_step, int64_t);
        return 1;
    }
    if (!mcpp_present(r, MCPP_F_metrics_goodput_allocated_s) ||
        !(MCPP_FIELD(r, metrics_goodput_allocated_s, double) > 0))
        return 0;
    double allocated = MCPP_FIELD(r, metrics_goodput_allocated_s, double), sum = 0;
    int any = 0;
    switch (k) {
    case 0:
        if (!mcpp_present(r, MCPP_F_metrics_goodput_useful_s)) return 0;
        sum = MCPP_FIELD(r, metrics_goodput_useful_s, double), any = 1;
        break;
    case 1:
        if (!mcpp_present(r, MCPP_F_metrics_goodput_kernel_busy_s)) return 0;
        sum = MCPP_FIELD(r, metrics_goodput_kernel_busy_s, double), any = 1;
        break;
    default:
        for (int id = MCPP_F_metrics_goodput_badput_s_compile; id <= MCPP_F_metrics_goodput_badput_s_idle; id++)
            if (mcpp_present(r, id))
                sum += *(const double *)mcpp_field_slot(r, id), any = 1;
    }
    *value = sum / allocated;
    return any;
}

static void derived_view(mcpp_metric *out, size_t k, double value)
{
    memset(out, 0, sizeof *out);
    out->name = DERIVED_NAMES[k];
    out->unit = "fraction";
    out->direction = k >= 2 ? MCPP_DIRECTION_LOWER : MCPP_DIRECTION_HIGHER;
    out->value = value;
    out->aggregate = "single";
    out->well_known = 1;
    out->path = DERIVED_PATHS[k];
}

/* The member `key` of a packed metric object (members are sorted; few). */
static const mcpp_xnode *member(const mcpp_xnode *obj, const char *key)
{
    for (uint32_t i = 0; i < obj->count; i++)
        if (strcmp(obj->children[i].key, key) == 0)
            return &obj->children[i];
    return NULL;
}

static const char *member_text(const mcpp_xnode *obj, const char *key)
{
    const mcpp_xnode *m = member(obj, key);
    return m && m->kind == MCPP_X_STRING ? m->str : NULL;
}

static void named_view(mcpp_metric *out, const mcpp_xnode *obj)
{
    memset(out, 0, sizeof *out);
    out->name = member_text(obj, "name");
    out->unit = member_text(obj, "unit");
    const char *dir = member_text(obj, "direction");
    out->direction = dir && strcmp(dir, "lower") == 0 ? MCPP_DIRECTION_LOWER
                                                      : MCPP_DIRECTION_HIGHER;
    const mcpp_xnode *v = member(obj, "value");
    out->value = v ? v->number : 0;
    out->aggregate = member_text(obj, "aggregate");
    out->sample_kind = member_text(obj, "sample_kind");
    const mcpp_xnode *s = member(obj, "samples");
    if (s && s->kind == MCPP_X_ARRAY) {
        out->sample_count = s->count;
        out->samples_ = s->children;
    }
    out->path = "metrics.named";
}

static const mcpp_xnode *named_list(const mcpp_receipt *r)
{
    if (!mcpp_present(r, MCPP_F_metrics_named))
        return NULL;
    const mcpp_xnode *n = MCPP_FIELD(r, metrics_named, mcpp_object_slot).node;
    return n && n->kind == MCPP_X_ARRAY ? n : NULL;
}

size_t mcpp_receipt_metric_count(const mcpp_receipt *receipt)
{
    if (!receipt)
        return 0;
    size_t n = 0;
    for (size_t k = 0; k < mcpp_well_known_metric_count; k++)
        n += (size_t)well_known_present(receipt, k);
    double v;
    for (size_t k = 0; k < N_DERIVED; k++)
        n += (size_t)derived_value(receipt, k, &v);
    const mcpp_xnode *list = named_list(receipt);
    return n + (list ? list->count : 0);
}

int mcpp_receipt_metric_at(mcpp_metric *out, const mcpp_receipt *receipt, size_t index)
{
    if (!out || !receipt)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "out and receipt must not be NULL");
    for (size_t k = 0; k < mcpp_well_known_metric_count; k++) {
        if (!well_known_present(receipt, k))
            continue;
        if (index-- == 0) {
            well_known_view(out, receipt, k);
            return MCPP_OK;
        }
    }
    double v;
    for (size_t k = 0; k < N_DERIVED; k++) {
        if (!derived_value(receipt, k, &v))
            continue;
        if (index-- == 0) {
            derived_view(out, k, v);
            return MCPP_OK;
        }
    }
    const mcpp_xnode *list = named_list(receipt);
    if (list && index < list->count) {
        named_view(out, &list->children[index]);
        return MCPP_OK;
    }
    return MCPP_ENOTFOUND;
}

int mcpp_receipt_metric_find(mcpp_metric *out, const mcpp_receipt *receipt, const char *name)
{
    if (!out || !receipt || !name)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "out, receipt and name must not be NULL");
    for (size_t k = 0; k < mcpp_well_known_metric_count; k++) {
        if (strcmp(mcpp_well_known_metrics[k].name, name) != 0)
            continue;
        if (!well_known_present(receipt, k))
            return MCPP_ENOTFOUND;
        well_known_view(out, receipt, k);
        return MCPP_OK;
    }
    for (size_t k = 0; k < N_DERIVED; k++) {
        if (strcmp(DERIVED_NAMES[k], name) != 0)
            continue;
        double v;
        if (!derived_value(receipt, k, &v))
            return MCPP_ENOTFOUND;
        derived_view(out, k, v);
        return MCPP_OK;
    }
    const mcpp_xnode *list = named_list(receipt);
    for (uint32_t i = 0; list && i < list->count; i++) {
        const char *n = member_text(&list->children[i], "name");
        if (n && strcmp(n, name) == 0) {
            named_view(out, &list->children[i]);
            return MCPP_OK;
        }
    }
    return MCPP_ENOTFOUND;
}

double mcpp_tokens_per_s_from_steps(double useful_tokens_per_step, double step_seconds)
{
    return useful_tokens_per_step > 0 && step_seconds > 0 ? useful_tokens_per_step / step_seconds : 0;
}

const char *mcpp_receipt_metric_primary(const mcpp_receipt *receipt)
{
    if (!receipt)
        return NULL;
    if (mcpp_present(receipt, MCPP_F_metrics_primary))
        return MCPP_FIELD(receipt, metrics_primary, char *);
    mcpp_metric m;
    if (mcpp_receipt_metric_find(&m, receipt, "tokens_per_s") == MCPP_OK ||
        mcpp_receipt_metric_find(&m, receipt, "step_time_s") == MCPP_OK ||
        mcpp_receipt_metric_at(&m, receipt, 0) == MCPP_OK)
        return m.name;
    return NULL;
}

double mcpp_metric_sample(const mcpp_metric *metric, size_t index)
{
    if (!metric || !metric->samples_ || index >= metric->sample_count)
        return 0;
    if (metric->well_known)
        return ((const double *)metric->samples_)[index];
    return ((const mcpp_xnode *)metric->samples_)[index].number;
}
