/*
 * policy_gate_metrics.c — the metrics a multi-metric gate decides on
 * (gate = { metrics = { {name = "tokens_per_s", max_regression = 0.02}, ... } }):
 * each with its own allowance, confidence and, optionally, direction. A
 * policy without a list gates on the one metric of its gate settings.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/struct_version.h"

void mcpp_policy_gate_metrics_clear(mcpp_policy *p)
{
    for (size_t i = 0; i < p->n_gate_metrics; i++) free(p->gate_metrics[i].text);
    free(p->gate_metrics);
    p->gate_metrics = NULL;
    p->n_gate_metrics = 0;
}

size_t mcpp_policy_gate_metrics(const mcpp_policy *p, const mcpp_gate_metric_spec **out,
                                mcpp_gate_metric_spec *single)
{
    if (p->n_gate_metrics) {
        *out = p->gate_metrics;
        return p->n_gate_metrics;
    }
    memset(single, 0, sizeof *single);
    single->text = p->gate_metric;
    single->ref = p->gate_ref;
    single->direction = -1;
    single->max_regression = p->gate.max_regression;
    single->confidence = p->gate.confidence;
    *out = single;
    return 1;
}

static int check_spec(const mcpp_gate_metric_spec *s, size_t i, mcpp_metric_ref *ref)
{
    char field[64];
    snprintf(field, sizeof field, "gate.metrics[%zu]", i + 1);
    if (mcpp_metric_ref_init(ref, s->text, s->direction != 0) != MCPP_OK)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_TYPE, NULL, field, 0, 0, "%s",
                             mcpp_error_last()->message);
    if (!isfinite(s->max_regression) || s->max_regression < 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, field, 0, 0,
                             "max_regression must be a finite number >= 0");
    if (!(s->confidence > 0 && s->confidence < 1))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, field, 0, 0,
                             "confidence must lie strictly between 0 and 1");
    if (s->direction < -1 || s->direction > 1)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, field, 0, 0,
                             "direction must be -1 (the receipts'), 0 (lower) or 1 (higher)");
    return MCPP_OK;
}

int mcpp_policy_set_gate_metrics(mcpp_policy *p, const mcpp_gate_metric_spec *specs, size_t n)
{
    MCPP_CHECK_ARG(p && specs && n, "mcpp_policy_set_gate_metrics: no metrics");
    mcpp_gate_metric_spec *list = calloc(n, sizeof *list);
    MCPP_CHECK_ALLOC(list);
    int rc = MCPP_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        mcpp_metric_ref ref;
        if ((rc = check_spec(&specs[i], i, &ref)) != 0) break;
        for (size_t k = 0; k < i; k++)
            if (strcmp(list[k].text, specs[i].text) == 0)
                rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, NULL, "gate.metrics", 0, 0,
                                   "'%s' is listed twice", specs[i].text);
        if (rc) break;
        char *text = mcpp_strdup(specs[i].text, NULL);
        if (!text) {
            rc = mcpp_error_nomem();
            break;
        }
        list[i] = specs[i];
        list[i].text = text;
        ref.text = list[i].text;
        if (ref.kind == MCPP_METRIC_REF_NAMED && ref.name == specs[i].text) ref.name = list[i].text;
        list[i].ref = ref;
    }
    mcpp_gate_settings g = p->gate;
    if (!rc) {
        g.metric = list[0].text;
        g.max_regression = list[0].max_regression;
        g.confidence = list[0].confidence;
        if (list[0].direction >= 0) g.higher_is_better = list[0].direction;
        rc = mcpp_policy_set_gate(p, &g); /* clears the old list */
    }
    if (rc) {
        for (size_t i = 0; i < n; i++) free(list[i].text);
        free(list);
        return rc;
    }
    p->gate_metrics = list;
    p->n_gate_metrics = n;
    return MCPP_OK;
}

size_t mcpp_policy_gate_metric_count(const mcpp_policy *policy)
{
    return !policy ? 0 : policy->n_gate_metrics ? policy->n_gate_metrics : 1;
}

int mcpp_policy_gate_metric_at(mcpp_gate_settings *out, const mcpp_policy *policy, size_t index)
{
    MCPP_CHECK_ARG(out && policy, "mcpp_policy_gate_metric_at: NULL argument");
    if (mcpp_struct_out_version_check(out->version, MCPP_GATE_SETTINGS_VERSION, "mcpp_gate_settings") != MCPP_OK)
        return MCPP_EARG;
    mcpp_gate_metric_spec single;
    const mcpp_gate_metric_spec *specs;
    size_t n = mcpp_policy_gate_metrics(policy, &specs, &single);
    MCPP_CHECK_ARG(index < n, "gate metric %zu out of range (%zu)", index, n);
    out->metric = specs[index].text;
    out->higher_is_better = specs[index].direction;
    out->max_regression = specs[index].max_regression;
    out->confidence = specs[index].confidence;
    return MCPP_OK;
}
