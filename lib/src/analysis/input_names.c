/*
 * input_names.c — a metric name no receipt states is a misspelling
 * ("tokens_per_sec"), not a lane without a value: every front end (the CLI's
 * compare, frontier, gate and claim, the Python and Lua bindings) refuses it
 * through mcpp_metric_check_stated, naming the closest stated name; a
 * metric a policy file gates on is checked alike
 * (mcpp_policy_check_metrics_stated), naming the policy.
 */
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/policy.h"
#include "analysis/compare_internal.h"
#include "util/alloc.h"
#include "util/edit_distance.h"
#include "util/error_internal.h"
#include "util/strbuf.h"

static int by_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int mcpp_metric_named(const char *metric)
{
    return metric && *metric && strcmp(metric, "primary") != 0 && mcpp_schema_field_id(metric) < 0;
}

int mcpp_policy_metrics_named(const mcpp_policy *policy)
{
    size_t k = mcpp_policy_gate_metric_count(policy);
    for (size_t i = 0; i < k; i++) {
        mcpp_gate_settings g = MCPP_GATE_SETTINGS_INIT;
        if (mcpp_policy_gate_metric_at(&g, policy, i) == MCPP_OK && mcpp_metric_named(g.metric))
            return 1;
    }
    return 0;
}

int mcpp_metric_check_stated_in(const char *metric, const mcpp_receipt *const *receipts, size_t n,
                                const char *policy_name, int misspelt_only)
{
    if (!mcpp_metric_named(metric) || n == 0)
        return MCPP_OK;
    const char **names = NULL; /* the distinct names stated, borrowed from the receipts */
    size_t count = 0, cap = 0;
    int rc = MCPP_OK, stated = 0;
    for (size_t i = 0; !stated && rc == MCPP_OK && i < n; i++) {
        mcpp_metric m;
        for (size_t k = 0; !stated && rc == MCPP_OK && mcpp_receipt_metric_at(&m, receipts[i], k) == MCPP_OK; k++) {
            int seen = stated = strcmp(m.name, metric) == 0;
            for (size_t j = 0; j < count && !seen; j++)
                seen = strcmp(names[j], m.name) == 0;
            if (!seen && (rc = MCPP_ARRAY_RESERVE(names, cap, count + 1, MCPP_ARRAY_MAX_ITEMS)) == MCPP_OK)
                names[count++] = m.name;
        }
    }
    if (rc != MCPP_OK)
        goto done;
    mcpp_error_clear(); /* metric_at's MCPP_ENOTFOUND ends each list */
    if (stated)
        goto done;
    qsort(names, count, sizeof *names, by_name);
    const char *near = mcpp_closest_name(metric, names, count);
    if (misspelt_only && !near) /* a metric of another suite: not gated here, as before */
        goto done;
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 256);
    if (policy_name)
        mcpp_sb_printf(&b, "policy '%s' gates on the metric '%s', which no receipt states", policy_name, metric);
    else
        mcpp_sb_printf(&b, "no receipt states the metric '%s'", metric);
    if (near)
        mcpp_sb_printf(&b, "; did you mean '%s'?", near);
    mcpp_sb_puts(&b, " (metrics stated: ");
    for (size_t j = 0; j < count && j < 20; j++)
        mcpp_sb_printf(&b, "%s%s", j ? ", " : "", names[j]);
    if (count > 20)
        mcpp_sb_printf(&b, ", ... %zu more", count - 20);
    mcpp_sb_puts(&b, count ? "" : "none");
    mcpp_sb_puts(&b, "; or 'primary', or a schema path such as 'metrics.tokens_per_s')");
    rc = b.failed ? mcpp_error_nomem()
                  : mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, metric, 0, 0, "%s", b.data);
    mcpp_sb_free(&b);
done:
    free(names);
    return rc;
}

int mcpp_metric_check_stated(const char *metric, const mcpp_receipt *const *receipts, size_t n)
{
    MCPP_CHECK_ARG(!n || receipts, "mcpp_metric_check_stated: NULL receipts");
    return mcpp_metric_check_stated_in(metric, receipts, n, NULL, 0);
}

int mcpp_policy_check_metrics_stated(const mcpp_policy *policy, const mcpp_receipt *const *receipts, size_t n)
{
    MCPP_CHECK_ARG(policy && (!n || receipts), "mcpp_policy_check_metrics_stated: NULL argument");
    int rc = MCPP_OK;
    size_t k = mcpp_policy_gate_metric_count(policy);
    for (size_t i = 0; rc == MCPP_OK && i < k; i++) {
        mcpp_gate_settings g = MCPP_GATE_SETTINGS_INIT;
        rc = mcpp_policy_gate_metric_at(&g, policy, i);
        /* of several, one no stated name is near is a metric of another suite, which the gate skips */
        if (rc == MCPP_OK)
            rc = mcpp_metric_check_stated_in(g.metric, receipts, n, mcpp_policy_name(policy), k > 1);
    }
    return rc;
}
