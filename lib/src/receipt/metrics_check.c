/*
 * metrics_check.c — validation of metrics.named and metrics.primary: each
 * metric states name, unit, direction and value; names are unique and never
 * a well-known metric's; samples need a sample_kind and an aggregate, and the
 * stated value must be that aggregate of the samples (within 0.5%).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/cjson_inline.h"
#include "receipt/load_ctx.h"
#include "receipt/schema.h"
#include "util/name_sort.h"
#include "util/strbuf.h"

static const char *const aggregates[] = {"single", "median", "mean", "min", "max", "sum",
                                         "geomean", NULL};
static const char *const sample_kinds[] = {"step", "block", "run", "repetition", "round",
                                           "iteration", NULL};
static const char *const directions[] = {"higher", "lower", NULL};
static const char *const members[] = {"name", "unit", "direction", "value", "aggregate",
                                      "sample_kind", "samples", NULL};

int mcpp_rel_differs(double stated, double derived)
{
    double scale = fabs(derived) > fabs(stated) ? fabs(derived) : fabs(stated);
    if (scale == 0)
        return 0;
    return fabs(stated - derived) / scale > 0.005;
}

/* Metric names are used on command lines (--metric NAME): a restricted alphabet. */
static int name_ok(const char *s)
{
    if (!*s || strlen(s) > 128)
        return 0;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == ':' || c == '/' || c == '-' || c == '@'))
            return 0;
    }
    return 1;
}

/* The aggregate `kind` of the samples, or NAN when it has no single answer. */
static double aggregate_of(const char *kind, const cJSON *samples, size_t n)
{
    double acc = 0, lo = INFINITY, hi = -INFINITY, logs = 0;
    double stack[256];
    size_t i = 0;
    int positive = 1;
    for (const cJSON *s = samples->child; s; s = s->next, i++) {
        double x = s->valuedouble;
        acc += x;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        positive &= x > 0;
        logs += x > 0 ? log(x) : 0;
        if (i < 256)
            stack[i] = x;
    }
    if (strcmp(kind, "mean") == 0)
        return acc / (double)n;
    if (strcmp(kind, "sum") == 0)
        return acc;
    if (strcmp(kind, "min") == 0)
        return lo;
    if (strcmp(kind, "max") == 0)
        return hi;
    if (strcmp(kind, "geomean") == 0)
        return positive ? exp(logs / (double)n) : NAN;
    if (strcmp(kind, "median") == 0) {
        /* more samples than the stack holds (pytest-benchmark keeps every round) */
        double *all = n <= 256 ? stack : malloc(n * sizeof *all);
        double med = NAN, p10, p90;
        i = 0;
        for (const cJSON *s = all && all != stack ? samples->child : NULL; s; s = s->next)
            all[i++] = s->valuedouble;
        if (all)
            mcpp_sample_stats(all, n, &med, &p10, &p90);
        if (all != stack)
            free(all);
        return med;
    }
    if (strcmp(kind, "single") == 0)
        return n == 1 ? lo : NAN;
    return NAN;
}

static const char *string_member(mcpp_load_ctx *ctx, const cJSON *obj, const char *key,
                                 const char *const *allowed, int required, const char *path)
{
    char where[160], list[160];
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, key);
    snprintf(where, sizeof where, "%s.%s", path, key);
    if (!m) {
        if (required)
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "missing", where, 1,
                             "required field of a metric is missing");
        return NULL;
    }
    if (!mcpp_cj_is_string(m) || !m->valuestring[0]) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", where, 0, "expected a non-empty string");
        return NULL;
    }
    if (allowed && mcpp_enum_index(allowed, m->valuestring) < 0) {
        mcpp_enum_list_text(list, sizeof list, allowed);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "enum", where, 0,
                         "expected one of %s, got \"%s\"", list, m->valuestring);
        return NULL;
    }
    return m->valuestring;
}

static void check_samples(mcpp_load_ctx *ctx, const cJSON *obj, const char *path, double value,
                          const char *aggregate)
{
    char where[160];
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(obj, "samples");
    if (!samples)
        return;
    snprintf(where, sizeof where, "%s.samples", path);
    size_t n = 0;
    int numbers = mcpp_cj_is_array(samples);
    for (const cJSON *s = numbers ? samples->child : NULL; s; s = s->next, n++)
        numbers &= mcpp_cj_is_number(s);
    if (!numbers || n == 0) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", where, 0,
                         "expected a non-empty list of numbers");
        return;
    }
    string_member(ctx, obj, "sample_kind", sample_kinds, 1, path);
    if (!aggregate) {
        snprintf(where, sizeof where, "%s.aggregate", path);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "missing", where, 1,
                         "required with samples: say how value comes from them (single, median, "
                         "mean, min, max, sum, geomean)");
        return;
    }
    double derived = aggregate_of(aggregate, samples, n);
    if (isnan(derived) || mcpp_rel_differs(value, derived)) {
        char a[40], b[40];
        snprintf(where, sizeof where, "%s.value", path);
        mcpp_format_double(a, sizeof a, value, 0);
        if (isnan(derived))
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", where, 0,
                             "aggregate \"%s\" of %zu samples has no value to check %s against",
                             aggregate, n, a);
        else {
            mcpp_format_double(b, sizeof b, derived, 0);
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", where, 0,
                             "expected the %s of the %zu samples (%s, within 0.5%%), got %s",
                             aggregate, n, b, a);
        }
    }
}

static void check_metric(mcpp_load_ctx *ctx, const cJSON *obj, const char *path)
{
    char where[160];
    if (!mcpp_cj_is_object(obj)) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", path, 0,
                         "expected a metric object {name, unit, direction, value, ...}");
        return;
    }
    for (const cJSON *m = obj->child; m; m = m->next) {
        if (mcpp_enum_index(members, m->string) < 0) {
            snprintf(where, sizeof where, "%s.%s", path, m->string);
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "unknown_field", where, 1,
                             "unknown field of a metric (name, unit, direction, value, aggregate, "
                             "sample_kind, samples)");
        }
    }
    const char *name = string_member(ctx, obj, "name", NULL, 1, path);
    const char *wk_unit;
    mcpp_direction wk_dir;
    if (name && !name_ok(name)) {
        snprintf(where, sizeof where, "%s.name", path);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "range", where, 0,
                         "expected a name of letters, digits and _ . : / - @ (at most 128), got "
                         "\"%s\"", name);
    } else if (name && mcpp_metric_well_known(name, &wk_unit, &wk_dir)) {
        snprintf(where, sizeof where, "%s.name", path);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", where, 0,
                         "\"%s\" is a well-known metric (unit %s, %s is better): state it at its "
                         "schema path under metrics, not in metrics.named",
                         name, wk_unit, wk_dir == MCPP_DIRECTION_HIGHER ? "higher" : "lower");
    }
    string_member(ctx, obj, "unit", NULL, 1, path);
    string_member(ctx, obj, "direction", directions, 1, path);
    const char *aggregate = string_member(ctx, obj, "aggregate", aggregates, 0, path);
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(obj, "value");
    snprintf(where, sizeof where, "%s.value", path);
    if (!value) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "missing", where, 1,
                         "required field of a metric is missing (the stated aggregate)");
        return;
    }
    if (!mcpp_cj_is_number(value)) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", where, 0, "expected a number");
        return;
    }
    check_samples(ctx, obj, path, value->valuedouble, aggregate);
}

/* The name of metric object `m`, or NULL. */
static const char *name_of(const cJSON *m)
{
    const cJSON *n = mcpp_cj_is_object(m) ? cJSON_GetObjectItemCaseSensitive(m, "name") : NULL;
    return n && mcpp_cj_is_string(n) ? n->valuestring : NULL;
}

/* Is `name` stated by the receipt (a present well-known metric or a named one)? */
static int metric_stated(const mcpp_receipt *r, const cJSON *list, const char *name)
{
    for (size_t k = 0; k < mcpp_well_known_metric_count; k++)
        if (strcmp(mcpp_well_known_metrics[k].name, name) == 0)
            return mcpp_present(r, mcpp_well_known_metrics[k].field) ||
                   (mcpp_well_known_metrics[k].field == MCPP_F_metrics_step_time_s_median &&
                    mcpp_present(r, MCPP_F_metrics_step_time_s_samples));
    for (const cJSON *m = list ? list->child : NULL; m; m = m->next) {
        const char *n = name_of(m);
        if (n && strcmp(n, name) == 0)
            return 1;
    }
    return 0;
}

/* Names are unique: sorted, so a hostile list of a million metrics stays
 * O(n log n); each repeat is reported at its later position. */
static void check_unique_names(mcpp_load_ctx *ctx, const cJSON *list, size_t n)
{
    mcpp_name_at *all = n ? malloc(n * sizeof *all) : NULL;
    if (n && !all) {
        ctx->nomem = 1;
        return;
    }
    size_t k = 0, i = 0;
    for (const cJSON *m = list->child; m; m = m->next, i++) {
        const char *name = name_of(m);
        if (name)
            all[k++] = (mcpp_name_at){name, i};
    }
    mcpp_name_at_sort(all, k);
    char path[64];
    for (i = 1; i < k; i++) {
        if (strcmp(all[i - 1].name, all[i].name) != 0)
            continue;
        snprintf(path, sizeof path, "metrics.named[%zu].name", all[i].index);
        /* "consistency", not "duplicate_key": that kind locates a repeated JSON key */
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", path, 0,
                         "metric \"%s\" is named twice (names are unique)", all[i].name);
    }
    free(all);
}

void mcpp_validate_metrics(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    const cJSON *list = mcpp_present(r, MCPP_F_metrics_named) ? r->f.metrics_named.staged : NULL;
    char path[64];
    size_t n = 0;
    for (const cJSON *m = list ? list->child : NULL; m; m = m->next, n++) {
        snprintf(path, sizeof path, "metrics.named[%zu]", n);
        check_metric(ctx, m, path);
    }
    if (n > 1)
        check_unique_names(ctx, list, n);
    if (mcpp_present(r, MCPP_F_metrics_primary) && !metric_stated(r, list, r->f.metrics_primary))
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", "metrics.primary", 0,
                         "names \"%s\", which this receipt does not state", r->f.metrics_primary);
}
