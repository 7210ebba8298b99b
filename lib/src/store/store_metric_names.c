/*
 * store_metric_names.c — a metric no stored receipt states is a misspelling
 * ("tokens_per_sec"), refused naming the closest stated name, as it is for
 * receipts in memory (analysis/input_names.c): `history --metric` and
 * `frontier --store` with --metric or a policy file's gate metrics answered
 * with lanes that had no value. One receipt of each lane is read; only when
 * none of them states the metric are all the receipts read, to be sure.
 */
#include "mcpp_receipts/compare.h"
#include "analysis/compare_internal.h"
#include "store/store_internal.h"

static int check(const mcpp_receipt_set *set, const char *metric, const mcpp_policy *policy)
{
    const mcpp_receipt *const *items = mcpp_receipt_set_items(set);
    size_t n = mcpp_receipt_set_count(set);
    return policy ? mcpp_policy_check_metrics_stated(policy, items, n) : mcpp_metric_check_stated(metric, items, n);
}

int mcpp_store_check_metric_stated(mcpp_store *s, const char *metric, const mcpp_policy *policy)
{
    if (policy ? !mcpp_policy_metrics_named(policy) : !mcpp_metric_named(metric))
        return MCPP_OK; /* "primary" or a schema path: nothing to look for */
    mcpp_receipt_set *set = NULL;
    int rc = mcpp_store_lane_exemplars(&set, s);
    if (!rc)
        rc = check(set, metric, policy);
    mcpp_receipt_set_free(set);
    set = NULL;
    if (rc != MCPP_EARG)
        return rc;
    if ((rc = mcpp_store_query_set(&set, s, NULL)) == MCPP_OK)
        rc = check(set, metric, policy);
    mcpp_receipt_set_free(set);
    return rc;
}
