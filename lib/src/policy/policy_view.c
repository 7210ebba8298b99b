/*
 * policy_view.c — the immutable copy of a policy that comparisons hold so
 * their rows can be rendered when first read (see policy_internal.h). It
 * copies what the row text and the gate reason read: rules keep only their
 * names (their outcomes are recorded when the comparison is made).
 */
#include <stdlib.h>
#include <string.h>

#include "policy/policy_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"

/* A view is a policy without rule owners and without a view of its own. */
static void view_free(mcpp_policy *v) { mcpp_policy_free(v); }

/* Copies dimension d into out; 0 on failure (out then holds what was made,
 * for the view's free). */
static int dim_copy(mcpp_policy_dim *out, const mcpp_policy_dim *d)
{
    int failed = 0;
    size_t n = d->n_fields;
    *out = *d; /* the settings (role, kind, applies, flags) as they are; every pointer replaced below */
    out->n_fields = 0;
    out->name = mcpp_strdup(d->name, &failed);
    out->paths = calloc(n ? n : 1, sizeof *out->paths);
    out->ids = malloc((n ? n : 1) * sizeof *out->ids);
    out->needs = malloc(n ? n : 1);
    if (failed || !out->paths || !out->ids || !out->needs) return 0;
    out->n_fields = n;
    for (size_t k = 0; k < n; k++) out->paths[k] = mcpp_strdup(d->paths[k], &failed);
    memcpy(out->ids, d->ids, n * sizeof *out->ids);
    memcpy(out->needs, d->needs, n);
    return !failed;
}

mcpp_policy *mcpp_policy_copy_settings(const mcpp_policy *p)
{
    mcpp_policy *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    int failed = 0;
    v->name = mcpp_strdup(p->name, &failed);
    v->version = p->version;
    v->rules_source = p->rules_source;
    mcpp_policy_digest_fill(v->digest, p);
    v->id_pattern = p->id_pattern, v->id_fallbacks = p->id_fallbacks, v->id_outcome = p->id_outcome;
    v->id_stability = p->id_stability, v->id_blocker = p->id_blocker, v->id_verification = p->id_verification;
    v->id_samples = p->id_samples, v->id_useful_tokens = p->id_useful_tokens;
    v->id_tokens_per_s = p->id_tokens_per_s, v->id_step_median = p->id_step_median;
    v->id_lane_name = p->id_lane_name, v->id_suite = p->id_suite, v->id_not_recorded = p->id_not_recorded;
    v->id_family = p->id_family;
    v->noise = p->noise;
    memcpy(v->suite_noise, p->suite_noise, sizeof v->suite_noise);
    v->n_suite_noise = p->n_suite_noise;
    v->gate = p->gate;
    v->gate.metric = v->gate_metric = mcpp_strdup(p->gate_metric, &failed);
    /* resolved again so that the reference borrows the view's own text */
    if (!failed && mcpp_metric_ref_init(&v->gate_ref, v->gate_metric, p->gate.higher_is_better) != MCPP_OK)
        failed = 1;
    v->adjacency_width = p->adjacency_width;
    v->allow_point_comparisons = p->allow_point_comparisons;
    v->new_lanes_fail = p->new_lanes_fail;
    v->min_detectable = p->min_detectable;
    v->inconclusive_fails = p->inconclusive_fails;
    v->noise_declared = p->noise_declared;
    v->run_aggregate = p->run_aggregate;
    v->dims = calloc(p->n_dims ? p->n_dims : 1, sizeof *v->dims);
    v->required = calloc(p->n_required ? p->n_required : 1, sizeof *v->required);
    v->required_ids = malloc((p->n_required ? p->n_required : 1) * sizeof *v->required_ids);
    v->rules = calloc(p->n_rules ? p->n_rules : 1, sizeof *v->rules);
    if (failed || !v->dims || !v->required || !v->required_ids || !v->rules) goto fail;
    for (; v->n_dims < p->n_dims; v->n_dims++)
        if (!dim_copy(&v->dims[v->n_dims], &p->dims[v->n_dims])) {
            v->n_dims++; /* frees what the failed copy made */
            goto fail;
        }
    for (; v->n_required < p->n_required; v->n_required++) {
        v->required_ids[v->n_required] = p->required_ids[v->n_required];
        if (!(v->required[v->n_required] = mcpp_strdup(p->required[v->n_required], &failed))) goto fail;
    }
    for (; v->n_rules < p->n_rules; v->n_rules++)
        if (!(v->rules[v->n_rules].name = mcpp_strdup(p->rules[v->n_rules].name, &failed))) goto fail;
    v->cap_dims = v->n_dims, v->cap_required = v->n_required, v->cap_rules = v->n_rules;
    return v;
fail:
    view_free(v);
    return NULL;
}

const mcpp_policy *mcpp_policy_view_hold(const mcpp_policy *p)
{
    if (p == mcpp_policy_builtin()) return p; /* immutable for the process' life */
    mcpp_policy *owner = (mcpp_policy *)p;
    mcpp_policy *v = atomic_load_explicit(&owner->explain_view, memory_order_acquire);
    if (!v) {
        mcpp_policy *made = mcpp_policy_copy_settings(p);
        if (!made) {
            mcpp_error_nomem();
            return NULL;
        }
        atomic_init(&made->holders, 1); /* the policy's own hold */
        /* Two threads may make one at once: the first published wins. */
        if (atomic_compare_exchange_strong_explicit(&owner->explain_view, &v, made, memory_order_acq_rel,
                                                    memory_order_acquire))
            v = made;
        else
            view_free(made);
    }
    atomic_fetch_add_explicit(&v->holders, 1, memory_order_relaxed);
    return v;
}

void mcpp_policy_view_release(const mcpp_policy *view)
{
    if (!view || view == mcpp_policy_builtin()) return;
    mcpp_policy *v = (mcpp_policy *)view;
    if (atomic_fetch_sub_explicit(&v->holders, 1, memory_order_acq_rel) == 1) view_free(v);
}

void mcpp_policy_view_drop(mcpp_policy *p)
{
    mcpp_policy_view_release(atomic_exchange_explicit(&p->explain_view, NULL, memory_order_acq_rel));
}
