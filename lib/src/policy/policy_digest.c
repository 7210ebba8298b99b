/*
 * policy_digest.c — the content digest of a policy: 16 hex digits of FNV-1a
 * over a canonical text of everything the policy decides with (dimensions
 * with roles, fields and applicability, required fields, noise, gate metrics,
 * adjacency, point comparisons, rule names and, for Lua rules, their files'
 * source). Every report names its policy by name and this digest, so two
 * policies of the same name that judge differently never look alike
 * (issue 27: a policy that redefines a built-in dimension).
 */
#include <stdio.h>
#include <string.h>

#include "policy/policy_internal.h"
#include "receipt/request_pairs.h"
#include "util/error_internal.h"
#include "util/hash.h"
#include "util/strbuf.h"

static void put_gate(mcpp_strbuf *b, const mcpp_policy *p)
{
    mcpp_gate_metric_spec single;
    const mcpp_gate_metric_spec *specs = NULL;
    size_t n = mcpp_policy_gate_metrics(p, &specs, &single);
    for (size_t i = 0; i < n; i++) {
        mcpp_sb_printf(b, "gate %s %d ", specs[i].text ? specs[i].text : "", specs[i].direction);
        mcpp_sb_double(b, specs[i].max_regression);
        mcpp_sb_putc(b, ' ');
        mcpp_sb_double(b, specs[i].confidence);
        mcpp_sb_putc(b, '\n');
    }
}

/* The requested/observed pairs every policy judges requests by (the one
 * table, receipt/request_pairs.h): a pair added changes verdicts, so it
 * changes the digest. */
static void put_request_pairs(mcpp_strbuf *b)
{
    for (size_t i = 0; i < MCPP_REQUEST_PAIR_COUNT; i++) {
        const mcpp_request_pair *pr = &mcpp_request_pairs[i];
        const int ids[4] = {pr->requested, pr->observed, pr->requested_count, pr->observed_count};
        mcpp_sb_printf(b, "request %s", pr->label);
        for (int k = 0; k < 4; k++)
            if (ids[k] >= 0)
                mcpp_sb_printf(b, " %s", mcpp_schema_field_at(ids[k])->path);
        mcpp_sb_putc(b, '\n');
    }
}

/* The canonical text the digest is taken over. */
static void digest_text(mcpp_strbuf *b, const mcpp_policy *p)
{
    mcpp_sb_printf(b, "policy %s %lld\n", p->name ? p->name : "", (long long)p->version);
    for (size_t i = 0; i < p->n_dims; i++) {
        const mcpp_policy_dim *d = &p->dims[i];
        mcpp_sb_printf(b, "dim %s %d %d %d %d %d %d", d->name, (int)d->role, (int)d->kind, (int)d->applies,
                       d->absent_is_none, d->unstated_qualifies, d->keys_lane);
        for (size_t f = 0; f < d->n_fields; f++) mcpp_sb_printf(b, " %s", d->paths[f]);
        mcpp_sb_putc(b, '\n');
    }
    put_request_pairs(b);
    for (size_t i = 0; i < p->n_required; i++) mcpp_sb_printf(b, "required %s\n", p->required[i]);
    mcpp_sb_puts(b, "noise ");
    mcpp_sb_double(b, p->noise.max_rel_spread);
    mcpp_sb_printf(b, " %lld ", (long long)p->noise.min_runs);
    mcpp_sb_double(b, p->noise.noise_floor);
    mcpp_sb_putc(b, ' ');
    mcpp_sb_double(b, p->noise.run_to_run);
    mcpp_sb_putc(b, ' ');
    mcpp_sb_double(b, p->noise.run_to_run_df);
    mcpp_sb_putc(b, '\n');
    for (size_t i = 0; i < p->n_suite_noise; i++) { /* in name order */
        mcpp_sb_printf(b, "suite_noise %s ", p->suite_noise[i].suite);
        mcpp_sb_double(b, p->suite_noise[i].run_to_run);
        mcpp_sb_putc(b, ' ');
        mcpp_sb_double(b, p->suite_noise[i].run_to_run_df);
        mcpp_sb_putc(b, '\n');
    }
    put_gate(b, p);
    mcpp_sb_printf(b, "adjacency %d point %d\n", p->adjacency_width, p->allow_point_comparisons);
    if (p->new_lanes_fail) mcpp_sb_puts(b, "new_lanes fail\n"); /* only when set: older digests stay */
    if (p->min_detectable > 0 || p->inconclusive_fails) { /* only when set: the digests of policies without them stay */
        mcpp_sb_puts(b, "inconclusive ");
        mcpp_sb_double(b, p->min_detectable);
        mcpp_sb_printf(b, " %d\n", p->inconclusive_fails);
    }
    for (size_t i = 0; i < p->n_rules; i++) mcpp_sb_printf(b, "rule %s\n", p->rules[i].name);
    if (p->n_rules) mcpp_sb_printf(b, "rules_source %016llx\n", (unsigned long long)p->rules_source);
}

void mcpp_policy_digest_fill(char out[MCPP_POLICY_DIGEST_LEN + 1], const mcpp_policy *p)
{
    if (p->digest[0]) { /* an explanation view keeps its policy's digest */
        memcpy(out, p->digest, MCPP_POLICY_DIGEST_LEN + 1);
        return;
    }
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 1024);
    digest_text(&b, p);
    uint64_t h = mcpp_fnv1a(b.data ? b.data : "", b.len, MCPP_FNV_OFFSET);
    mcpp_sb_free(&b);
    snprintf(out, MCPP_POLICY_DIGEST_LEN + 1, "%016llx", (unsigned long long)h);
}

int mcpp_policy_digest(char *buf, size_t cap, const mcpp_policy *policy)
{
    MCPP_CHECK_ARG(buf && cap > MCPP_POLICY_DIGEST_LEN, "mcpp_policy_digest: NULL buffer or cap <= 16");
    const mcpp_policy *p = mcpp_policy_or_default(policy);
    if (!p)
        return mcpp_error_nomem();
    mcpp_policy_digest_fill(buf, p);
    return MCPP_OK;
}
