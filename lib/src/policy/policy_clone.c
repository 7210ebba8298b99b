/*
 * policy_clone.c — mcpp_policy_clone: an independent copy of a policy, so a
 * caller can change one setting for one analysis (a binding's metric=
 * option, say) without touching the policy it was given, which other
 * threads or later calls may be using. The rules are shared, not copied: a
 * rule's userdata (a Lua policy's sandbox) cannot be duplicated, so the copy
 * holds a reference and the last policy freed frees it.
 */
#include <stdlib.h>

#include "policy/policy_internal.h"
#include "util/error_internal.h"

int mcpp_policy_clone(mcpp_policy **out, const mcpp_policy *policy)
{
    MCPP_CHECK_ARG(out, "mcpp_policy_clone: NULL out");
    *out = NULL;
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    mcpp_policy *c = mcpp_policy_copy_settings(p);
    if (c) c->digest[0] = '\0'; /* a clone is a policy: its digest follows its settings */
    if (!c) return mcpp_error_nomem();
    for (size_t i = 0; i < p->n_rules; i++) {
        mcpp_rule_owner *o = p->rules[i].owner;
        c->rules[i].fn = p->rules[i].fn;
        c->rules[i].userdata = p->rules[i].userdata;
        c->rules[i].owner = o;
        c->rules[i].per_run = p->rules[i].per_run;
        if (o) atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
    }
    int rc = p->n_gate_metrics ? mcpp_policy_set_gate_metrics(c, p->gate_metrics, p->n_gate_metrics) : MCPP_OK;
    if (rc != MCPP_OK) {
        mcpp_policy_free(c);
        return rc;
    }
    *out = c;
    return MCPP_OK;
}
