/*
 * policy.c — comparability policies as data: dimensions with resolved field
 * ids, required fields, noise and gate settings, adjacency width, custom rules,
 * and the built-in default policy (policy/default.lua is the same policy
 * written out, with a reading guide for reviewers).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/enum_names.h"
#include "util/error_internal.h"
#include "util/struct_version.h"
#include "policy/dimension_table.h"
#include "policy/policy_internal.h"
#include "receipt/block_families.h"
#include "receipt/fields.h"

/* ---- The default dimensions (docs/comparability.md) ------------------------------ */

typedef struct default_dim {
    const char *name;
    mcpp_role role;
    mcpp_dim_kind kind;
    const char *fields[8];
    mcpp_dim_applies applies;
    int absent_is_none; /* see mcpp_policy_dim */
    int unstated_qualifies; /* see mcpp_policy_dim */
} default_dim;

/* The rows of policy/dimension_table.h (docs/comparability.md); fields the
 * schema lacks are skipped when the defaults are built. */
#define MCPP_ABSENT_IS_NONE_UNKNOWN 0
#define MCPP_ABSENT_IS_NONE_NONE 1
#define MCPP_ABSENT_IS_NONE_QUALIFIES 0
#define MCPP_UNSTATED_QUALIFIES_UNKNOWN 0
#define MCPP_UNSTATED_QUALIFIES_NONE 0
#define MCPP_UNSTATED_QUALIFIES_QUALIFIES 1
#define MCPP_X_DEFAULT_DIM(name, role, kind, applies, absent, since, fields, keys, note)                   \
    {#name, MCPP_ROLE_##role, MCPP_DIM_KIND_##kind, fields, MCPP_APPLIES_##applies,                        \
     MCPP_ABSENT_IS_NONE_##absent, MCPP_UNSTATED_QUALIFIES_##absent},
static const default_dim DEFAULT_DIMS[] = {MCPP_DEFAULT_DIMENSIONS(MCPP_X_DEFAULT_DIM)};

/* 1 when a dimension of this name keys lanes although it qualifies. */
static int keys_lane(const char *name)
{
    static const char *const names[] = MCPP_LANE_KEYING_QUALIFIERS;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}
#undef MCPP_X_DEFAULT_DIM

#define N_DEFAULT_DIMS (sizeof DEFAULT_DIMS / sizeof DEFAULT_DIMS[0])

static const char *const ROLE_NAMES[] = {
    [MCPP_ROLE_MUST_MATCH] = "must_match",
    [MCPP_ROLE_QUALIFY] = "qualify",
    [MCPP_ROLE_IGNORE] = "ignore",
};

const char *mcpp_role_name(mcpp_role role) { return MCPP_ENUM_NAME(ROLE_NAMES, role); }

int mcpp_role_parse(mcpp_role *out, const char *name)
{
    MCPP_CHECK_ARG(out && name, "role: NULL argument");
    int role = mcpp_enum_value_of(ROLE_NAMES, MCPP_ENUM_COUNT(ROLE_NAMES), name);
    if (role < 0)
        return mcpp_error_raise(MCPP_EINVALID, MCPP_ERROR_KIND_ENUM,
                                "unknown role '%s' (expected must_match, qualify or ignore)", name);
    *out = (mcpp_role)role;
    return MCPP_OK;
}

size_t mcpp_default_dimension_count(void) { return N_DEFAULT_DIMS; }

const char *mcpp_default_dimension_name(size_t index)
{
    return index < N_DEFAULT_DIMS ? DEFAULT_DIMS[index].name : NULL;
}

static const default_dim *find_default_dim(const char *name)
{
    for (size_t i = 0; i < N_DEFAULT_DIMS; i++)
        if (strcmp(DEFAULT_DIMS[i].name, name) == 0) return &DEFAULT_DIMS[i];
    return NULL;
}

static void dim_clear(mcpp_policy_dim *d)
{
    for (size_t i = 0; i < d->n_fields; i++) free(d->paths[i]);
    free(d->paths);
    free(d->ids);
    free(d->needs);
    free(d->name);
    memset(d, 0, sizeof *d);
}

/* Appends one resolved field; duplicates are dropped so ".*" and an explicit
 * path can be combined. */
static int dim_push(mcpp_policy_dim *d, size_t *cap, const char *path, int id)
{
    for (size_t i = 0; i < d->n_fields; i++)
        if (d->ids[i] == id) return MCPP_OK;
    /* three parallel arrays: from the same cap and need they grow in the same steps */
    size_t cap_ids = *cap, cap_needs = *cap;
    MCPP_CHECK_ARRAY(d->ids, cap_ids, d->n_fields + 1, MCPP_ARRAY_MAX_ITEMS);
    MCPP_CHECK_ARRAY(d->needs, cap_needs, d->n_fields + 1, MCPP_ARRAY_MAX_ITEMS);
    MCPP_CHECK_ARRAY(d->paths, *cap, d->n_fields + 1, MCPP_ARRAY_MAX_ITEMS);
    d->needs[d->n_fields] = mcpp_block_letter_of_path(path);
    char *p = mcpp_strdup(path, NULL);
    MCPP_CHECK_ALLOC(p);
    d->paths[d->n_fields] = p;
    d->ids[d->n_fields] = id;
    d->n_fields++;
    return MCPP_OK;
}

/* Resolves one path ("a.b" or "a.*") into the dimension. `lenient` skips paths
 * the schema lacks (the defaults name optional fields); otherwise they fail. */
static int dim_add_path(mcpp_policy_dim *d, size_t *cap, const char *path, int lenient)
{
    size_t len = strlen(path);
    if (len >= 2 && strcmp(path + len - 2, ".*") == 0) {
        int found = 0, n = mcpp_schema_field_count();
        for (int id = 0; id < n; id++) {
            const mcpp_field_info *f = mcpp_schema_field_at(id);
            if (f && strncmp(f->path, path, len - 1) == 0) {
                int rc = dim_push(d, cap, f->path, id);
                if (rc) return rc;
                found = 1;
            }
        }
        if (!found && !lenient)
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_UNKNOWN_FIELD, NULL, path, 0, 0,
                                  "no schema field under '%s'", path);
        return MCPP_OK;
    }
    int id = mcpp_schema_field_id(path);
    if (id < 0 && lenient) return MCPP_OK;
    /* a path inside a free-form value (extra.team, benchmark.params.n) is
     * compared by its value (an object by its canonical JSON) */
    if (id < 0 && (id = mcpp_free_path_id(path)) < 0) return id;
    return dim_push(d, cap, path, id);
}

static int policy_set_dimension_impl(mcpp_policy *p, const char *name, const char *const *paths,
                                     size_t n, mcpp_role role, int lenient)
{
    mcpp_policy_dim nd;
    memset(&nd, 0, sizeof nd);
    size_t cap = 0;
    int rc;
    mcpp_policy_view_drop(p);
    const default_dim *def = find_default_dim(name);
    nd.name = mcpp_strdup(name, NULL);
    MCPP_CHECK_ALLOC(nd.name);
    nd.role = role;
    nd.applies = def ? def->applies : MCPP_APPLIES_ALL;
    nd.absent_is_none = def ? def->absent_is_none : 0;
    nd.unstated_qualifies = def ? def->unstated_qualifies : 0;
    nd.keys_lane = keys_lane(name);
    if (n == 0 && def) {
        nd.kind = def->kind;
        for (size_t i = 0; i < 8 && def->fields[i]; i++)
            if ((rc = dim_add_path(&nd, &cap, def->fields[i], 1)) != 0) goto fail;
    } else {
        for (size_t i = 0; i < n; i++) {
            if (!paths[i]) {
                rc = MCPP_ERROR_ARG("dimension '%s': field path %zu is NULL", name, i);
                goto fail;
            }
            if ((rc = dim_add_path(&nd, &cap, paths[i], lenient)) != 0) goto fail;
        }
        /* A user-defined "fallbacks" (or "quality") dimension keeps the
         * requested != observed check (the quality rule): that is what the
         * name promises. */
        if (def && def->kind != MCPP_DIM_KIND_FIELDS)
            nd.kind = def->kind;
    }
    for (size_t i = 0; i < p->n_dims; i++) {
        if (strcmp(p->dims[i].name, name) == 0) {
            dim_clear(&p->dims[i]);
            p->dims[i] = nd;
            return MCPP_OK;
        }
    }
    if ((rc = MCPP_ARRAY_RESERVE(p->dims, p->cap_dims, p->n_dims + 1, MCPP_ARRAY_MAX_ITEMS)) != MCPP_OK)
        goto fail;
    p->dims[p->n_dims++] = nd;
    return MCPP_OK;
fail:
    dim_clear(&nd);
    return rc;
}

int mcpp_policy_set_dimension(mcpp_policy *policy, const char *name, const char *const *field_paths,
                              size_t n_fields, mcpp_role role)
{
    MCPP_CHECK_ARG(policy && name && *name && (!n_fields || field_paths), "mcpp_policy_set_dimension: NULL policy, name or field list");
    if (role != MCPP_ROLE_MUST_MATCH && role != MCPP_ROLE_QUALIFY && role != MCPP_ROLE_IGNORE)
        return mcpp_error_raise(MCPP_EINVALID, MCPP_ERROR_KIND_ENUM, "dimension '%s': bad role %d",
                              name, (int)role);
    if (n_fields == 0 && !find_default_dim(name))
        return mcpp_error_raise(MCPP_EINVALID, MCPP_ERROR_KIND_POLICY, "dimension '%s' has no fields and is not a default dimension", name);
    return policy_set_dimension_impl(policy, name, field_paths, n_fields, role, 0);
}

int mcpp_policy_set_role(mcpp_policy *policy, const char *name, mcpp_role role)
{
    MCPP_CHECK_ARG(policy && name, "mcpp_policy_set_role: NULL argument");
    if (role != MCPP_ROLE_MUST_MATCH && role != MCPP_ROLE_QUALIFY && role != MCPP_ROLE_IGNORE)
        return mcpp_error_raise(MCPP_EINVALID, MCPP_ERROR_KIND_ENUM, "bad role %d", (int)role);
    mcpp_policy_view_drop(policy);
    for (size_t i = 0; i < policy->n_dims; i++) {
        if (strcmp(policy->dims[i].name, name) == 0) {
            policy->dims[i].role = role;
            return MCPP_OK;
        }
    }
    return mcpp_error_raise(MCPP_ENOTFOUND, MCPP_ERROR_KIND_POLICY, "no dimension named '%s'", name);
}

size_t mcpp_policy_dimension_count(const mcpp_policy *policy) { return policy ? policy->n_dims : 0; }

const char *mcpp_policy_dimension_name(const mcpp_policy *policy, size_t index)
{
    return policy && index < policy->n_dims ? policy->dims[index].name : NULL;
}

int mcpp_policy_dimension_role(const mcpp_policy *policy, size_t index)
{
    return policy && index < policy->n_dims ? (int)policy->dims[index].role : -1;
}

size_t mcpp_policy_dimension_field_count(const mcpp_policy *policy, size_t index)
{
    return policy && index < policy->n_dims ? policy->dims[index].n_fields : 0;
}

const char *mcpp_policy_dimension_field(const mcpp_policy *policy, size_t index, size_t field)
{
    if (!policy || index >= policy->n_dims || field >= policy->dims[index].n_fields) return NULL;
    return policy->dims[index].paths[field];
}

/* ---- Creation -------------------------------------------------------------------- */

static int resolve(const char *path) { return mcpp_schema_field_id(path); }

static void resolve_engine_fields(mcpp_policy *p)
{
    p->id_pattern = resolve("lane.pattern");
    p->id_family = resolve("lane.family");
    p->id_lane_name = resolve("lane.name");
    p->id_fallbacks = resolve("backend.fallbacks");
    p->id_outcome = resolve("status.outcome");
    p->id_stability = resolve("status.stability");
    p->id_blocker = resolve("status.blocker");
    p->id_verification = resolve("backend.verification.status");
    p->id_samples = resolve("metrics.step_time_s.samples");
    p->id_useful_tokens = resolve("workload.useful_tokens_per_step");
    p->id_tokens_per_s = resolve("metrics.tokens_per_s");
    p->id_suite = resolve("benchmark.suite");
    p->id_not_recorded = resolve("source.not_recorded");
    p->id_step_median = resolve("metrics.step_time_s.median");
}

int mcpp_policy_new(mcpp_policy **out, const char *name)
{
    MCPP_CHECK_ARG(out, "mcpp_policy_new: NULL out");
    *out = NULL;
    mcpp_policy *p = calloc(1, sizeof *p);
    MCPP_CHECK_ALLOC(p);
    p->name = mcpp_strdup(name ? name : "unnamed", NULL);
    p->gate_metric = mcpp_strdup(MCPP_METRIC_PRIMARY, NULL);
    if (!p->name || !p->gate_metric) {
        mcpp_policy_free(p);
        return mcpp_error_nomem();
    }
    p->version = 1;
    const mcpp_noise_settings noise = MCPP_NOISE_SETTINGS_INIT;
    const mcpp_gate_settings gate = MCPP_GATE_SETTINGS_INIT;
    p->noise = noise;
    p->gate = gate;
    p->gate.metric = p->gate_metric;
    mcpp_metric_ref_init(&p->gate_ref, p->gate_metric, 1); /* "primary" always parses */
    p->adjacency_width = 1;
    resolve_engine_fields(p);
    *out = p;
    return MCPP_OK;
}

/* The run-to-run noise default.lua declares for the micro-benchmark suites
 * measured on a shared CI machine (docs/statistics.md, "How the shipped
 * policies chose their figures"): a process of Python or C++ micro-benchmarks
 * moves 2-6% from the one before, more than a training run between jobs. */
static const struct {
    const char *suite;
    double run_to_run;
} DEFAULT_SUITE_NOISE[] = {{"pytest-benchmark", 0.05}, {"google-benchmark", 0.05}};

int mcpp_policy_default(mcpp_policy **out)
{
    mcpp_policy *p = NULL;
    int rc = mcpp_policy_new(&p, "default");
    if (rc) return rc;
    p->noise_declared = 1; /* the default policy declares its 3% (default.lua says why) */
    for (size_t i = 0; !rc && i < sizeof DEFAULT_SUITE_NOISE / sizeof *DEFAULT_SUITE_NOISE; i++)
        rc = mcpp_policy_set_suite_noise(p, DEFAULT_SUITE_NOISE[i].suite, DEFAULT_SUITE_NOISE[i].run_to_run, -1);
    for (size_t i = 0; !rc && i < N_DEFAULT_DIMS; i++)
        rc = policy_set_dimension_impl(p, DEFAULT_DIMS[i].name, NULL, 0, DEFAULT_DIMS[i].role, 1);
    if (rc)
        goto fail;
    *out = p;
    return MCPP_OK;
fail:
    mcpp_policy_free(p);
    *out = NULL;
    return rc;
}

void mcpp_policy_free(mcpp_policy *policy)
{
    if (!policy) return;
    mcpp_policy_view_drop(policy); /* comparisons still holding it keep it */
    for (size_t i = 0; i < policy->n_dims; i++) dim_clear(&policy->dims[i]);
    free(policy->dims);
    for (size_t i = 0; i < policy->n_required; i++) free(policy->required[i]);
    free(policy->required);
    free(policy->required_ids);
    for (size_t i = 0; i < policy->n_rules; i++) {
        mcpp_rule_owner *o = policy->rules[i].owner;
        if (o && atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1) {
            if (o->free_userdata) o->free_userdata(o->userdata);
            free(o);
        }
        free(policy->rules[i].name);
    }
    free(policy->rules);
    free(policy->gate_metric);
    mcpp_policy_gate_metrics_clear(policy);
    free(policy->name);
    free(policy);
}

const char *mcpp_policy_name(const mcpp_policy *policy) { return policy ? policy->name : NULL; }

int mcpp_policy_set_name(mcpp_policy *policy, const char *name, int64_t version)
{
    MCPP_CHECK_ARG(policy && name, "mcpp_policy_set_name: NULL argument");
    char *n = mcpp_strdup(name, NULL);
    MCPP_CHECK_ALLOC(n);
    mcpp_policy_view_drop(policy);
    free(policy->name);
    policy->name = n;
    policy->version = version;
    return MCPP_OK;
}

/* ---- Required fields, noise, gate, adjacency ---------------------------------- */

int mcpp_policy_add_required_field(mcpp_policy *policy, const char *path)
{
    MCPP_CHECK_ARG(policy && path, "mcpp_policy_add_required_field: NULL argument");
    int id = mcpp_schema_field_id(path);
    if (id < 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_UNKNOWN_FIELD, NULL, path, 0, 0,
                              "required field '%s' is not a field of schema %s", path, MCPP_SCHEMA_ID);
    for (size_t i = 0; i < policy->n_required; i++)
        if (policy->required_ids[i] == id) return MCPP_OK;
    mcpp_policy_view_drop(policy);
    size_t cap_ids = policy->cap_required; /* the two arrays grow in the same steps */
    MCPP_CHECK_ARRAY(policy->required_ids, cap_ids, policy->n_required + 1, MCPP_ARRAY_MAX_ITEMS);
    MCPP_CHECK_ARRAY(policy->required, policy->cap_required, policy->n_required + 1, MCPP_ARRAY_MAX_ITEMS);
    char *p = mcpp_strdup(path, NULL);
    MCPP_CHECK_ALLOC(p);
    policy->required[policy->n_required] = p;
    policy->required_ids[policy->n_required] = id;
    policy->n_required++;
    return MCPP_OK;
}

size_t mcpp_policy_required_count(const mcpp_policy *policy) { return policy ? policy->n_required : 0; }

const char *mcpp_policy_required_at(const mcpp_policy *policy, size_t index)
{
    return policy && index < policy->n_required ? policy->required[index] : NULL;
}

/* A declared run-to-run figure: a standard deviation of log values, 0 to 5. */
static int run_to_run_in_range(double v) { return isfinite(v) && v >= 0 && v <= 5; }

int mcpp_policy_set_noise(mcpp_policy *policy, const mcpp_noise_settings *noise)
{
    MCPP_CHECK_ARG(policy && noise, "mcpp_policy_set_noise: NULL argument");
    mcpp_noise_settings s = MCPP_NOISE_SETTINGS_INIT;
    if (noise->version == 1) { /* the layout before the run-to-run fields: read no further */
        s.max_rel_spread = noise->max_rel_spread;
        s.min_runs = noise->min_runs;
        s.noise_floor = noise->noise_floor;
        noise = &s;
    } else if (mcpp_struct_version_check(noise->version, MCPP_NOISE_SETTINGS_VERSION, "mcpp_noise_settings") !=
               MCPP_OK) {
        return MCPP_EARG;
    }
    if (!isfinite(noise->max_rel_spread) || noise->max_rel_spread < 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "noise.max_rel_spread", 0, 0,
                              "must be a finite number >= 0");
    if (noise->min_runs < 1)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "noise.min_runs", 0, 0, "must be >= 1");
    if (!isfinite(noise->noise_floor) || noise->noise_floor < 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "noise.noise_floor", 0, 0,
                              "must be a finite number >= 0");
    if (!run_to_run_in_range(noise->run_to_run))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "noise.run_to_run", 0, 0,
                             "must be a finite number from 0 to 5 (a standard deviation of log values)");
    if (!isfinite(noise->run_to_run_df) || noise->run_to_run_df < 0 || noise->run_to_run_df > 1e6)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "noise.run_to_run_df", 0, 0,
                             "must be a finite number from 0 to 10^6");
    mcpp_policy_view_drop(policy);
    policy->noise = *noise;
    policy->noise_declared = 1; /* the caller set the figure (the Lua loader says whether a file did) */
    return MCPP_OK;
}

static mcpp_suite_noise *suite_noise_find(const mcpp_policy *p, const char *suite)
{
    for (size_t i = 0; suite && i < p->n_suite_noise; i++)
        if (strcmp(p->suite_noise[i].suite, suite) == 0) return (mcpp_suite_noise *)&p->suite_noise[i];
    return NULL;
}

int mcpp_policy_set_suite_noise(mcpp_policy *policy, const char *suite, double run_to_run, double run_to_run_df)
{
    MCPP_CHECK_ARG(policy && suite, "mcpp_policy_set_suite_noise: NULL argument");
    if (!*suite || strlen(suite) >= sizeof policy->suite_noise[0].suite)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "noise.suites", 0, 0,
                             "a suite name must have 1 to 63 bytes (got %zu)", strlen(suite));
    if (!run_to_run_in_range(run_to_run))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "noise.suites", 0, 0,
                             "%s: run_to_run must be a finite number from 0 to 5 (a standard deviation of log "
                             "values)", suite);
    if (!isfinite(run_to_run_df) || run_to_run_df > 1e6)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "noise.suites", 0, 0,
                             "%s: run_to_run_df must be a finite number up to 10^6 (below 0: the policy's)", suite);
    mcpp_suite_noise *e = suite_noise_find(policy, suite);
    if (!e) {
        if (policy->n_suite_noise == MCPP_POLICY_SUITE_NOISE_MAX)
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "noise.suites", 0, 0,
                                 "at most %d suites", MCPP_POLICY_SUITE_NOISE_MAX);
        /* kept in name order: a Lua table's keys come in no fixed order, and
         * the digest must not depend on it */
        size_t at = 0;
        while (at < policy->n_suite_noise && strcmp(policy->suite_noise[at].suite, suite) < 0) at++;
        memmove(&policy->suite_noise[at + 1], &policy->suite_noise[at],
                (policy->n_suite_noise++ - at) * sizeof *policy->suite_noise);
        e = &policy->suite_noise[at];
        strcpy(e->suite, suite);
    }
    mcpp_policy_view_drop(policy);
    e->run_to_run = run_to_run;
    e->run_to_run_df = run_to_run_df < 0 ? -1 : run_to_run_df;
    return MCPP_OK;
}

size_t mcpp_policy_suite_noise_count(const mcpp_policy *policy) { return policy ? policy->n_suite_noise : 0; }

const char *mcpp_policy_suite_noise_at(const mcpp_policy *policy, size_t index, double *run_to_run,
                                       double *run_to_run_df)
{
    if (!policy || index >= policy->n_suite_noise) return NULL;
    const mcpp_suite_noise *e = &policy->suite_noise[index];
    if (run_to_run) *run_to_run = e->run_to_run;
    if (run_to_run_df) *run_to_run_df = e->run_to_run_df < 0 ? policy->noise.run_to_run_df : e->run_to_run_df;
    return e->suite;
}

void mcpp_policy_declared_noise(const mcpp_policy *p, const char *suite, double *run_to_run, double *run_to_run_df)
{
    const mcpp_suite_noise *e = suite_noise_find(p, suite);
    if (run_to_run) *run_to_run = e ? e->run_to_run : p->noise.run_to_run;
    if (run_to_run_df) *run_to_run_df = e && e->run_to_run_df >= 0 ? e->run_to_run_df : p->noise.run_to_run_df;
}

int mcpp_policy_set_gate(mcpp_policy *policy, const mcpp_gate_settings *gate)
{
    MCPP_CHECK_ARG(policy && gate, "mcpp_policy_set_gate: NULL argument");
    if (mcpp_struct_version_check(gate->version, MCPP_GATE_SETTINGS_VERSION, "mcpp_gate_settings") != MCPP_OK)
        return MCPP_EARG;
    const char *metric = gate->metric ? gate->metric : policy->gate_metric;
    mcpp_metric_ref ref;
    if (mcpp_metric_ref_init(&ref, metric, gate->higher_is_better) != MCPP_OK)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_TYPE, NULL, "gate.metric", 0, 0, "%s",
                             mcpp_error_last()->message);
    if (!isfinite(gate->max_regression) || gate->max_regression < 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "gate.max_regression", 0, 0,
                              "must be a finite number >= 0");
    if (!(gate->confidence > 0 && gate->confidence < 1))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "gate.confidence", 0, 0,
                              "must lie strictly between 0 and 1");
    char *m = mcpp_strdup(metric, NULL);
    MCPP_CHECK_ALLOC(m);
    mcpp_policy_view_drop(policy);
    free(policy->gate_metric);
    policy->gate_metric = m;
    ref.text = m;
    if (ref.kind == MCPP_METRIC_REF_NAMED && ref.name == metric) ref.name = m;
    policy->gate_ref = ref;
    policy->gate.metric = m;
    mcpp_policy_gate_metrics_clear(policy); /* the single form replaces a list */
    policy->gate.higher_is_better = gate->higher_is_better ? 1 : 0;
    policy->gate.max_regression = gate->max_regression;
    policy->gate.confidence = gate->confidence;
    return MCPP_OK;
}

const mcpp_noise_settings *mcpp_policy_noise(const mcpp_policy *policy)
{
    return policy ? &policy->noise : NULL;
}

const mcpp_gate_settings *mcpp_policy_gate(const mcpp_policy *policy)
{
    return policy ? &policy->gate : NULL;
}

int mcpp_policy_set_adjacency_width(mcpp_policy *policy, int width)
{
    MCPP_CHECK_ARG(policy, "mcpp_policy_set_adjacency_width: NULL policy");
    if (width < 1)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "adjacency_width", 0, 0, "must be >= 1");
    mcpp_policy_view_drop(policy);
    policy->adjacency_width = width;
    return MCPP_OK;
}

int mcpp_policy_adjacency_width(const mcpp_policy *policy) { return policy ? policy->adjacency_width : 0; }

int mcpp_policy_set_allow_point_comparisons(mcpp_policy *policy, int allow)
{
    MCPP_CHECK_ARG(policy, "mcpp_policy_set_allow_point_comparisons: NULL policy");
    mcpp_policy_view_drop(policy);
    policy->allow_point_comparisons = allow != 0;
    return MCPP_OK;
}

int mcpp_policy_set_new_lanes_fail(mcpp_policy *policy, int fail)
{
    MCPP_CHECK_ARG(policy, "mcpp_policy_set_new_lanes_fail: NULL policy");
    mcpp_policy_view_drop(policy);
    policy->new_lanes_fail = fail != 0;
    return MCPP_OK;
}

int mcpp_policy_new_lanes_fail(const mcpp_policy *policy) { return policy ? policy->new_lanes_fail : 0; }
int mcpp_policy_set_inconclusive(mcpp_policy *policy, double min_detectable, int fails)
{
    MCPP_CHECK_ARG(policy, "mcpp_policy_set_inconclusive: NULL policy");
    if (!isfinite(min_detectable) || min_detectable < 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, "gate.min_detectable", 0, 0,
                             "must be a finite number >= 0 (0: twice the allowance)");
    mcpp_policy_view_drop(policy);
    policy->min_detectable = min_detectable;
    policy->inconclusive_fails = fails != 0;
    return MCPP_OK;
}

void mcpp_policy_inconclusive(const mcpp_policy *policy, double *min_detectable, int *fails)
{
    if (min_detectable)
        *min_detectable = policy ? policy->min_detectable : 0;
    if (fails)
        *fails = policy ? policy->inconclusive_fails : 0;
}

double mcpp_policy_min_detectable_for(const mcpp_policy *p, double allowance)
{
    return p->min_detectable > 0 ? p->min_detectable : 2 * allowance;
}

int mcpp_policy_noise_declared(const mcpp_policy *policy) { return policy ? policy->noise_declared : 0; }

int mcpp_policy_noise_is_declared(const mcpp_policy *p, const char *suite)
{
    return p->noise_declared || suite_noise_find(p, suite) != NULL;
}

int mcpp_policy_set_run_aggregate(mcpp_policy *policy, mcpp_run_aggregate aggregate)
{
    MCPP_CHECK_ARG(policy, "mcpp_policy_set_run_aggregate: NULL policy");
    MCPP_CHECK_ARG(aggregate == MCPP_AGGREGATE_GEOMETRIC_MEAN || aggregate == MCPP_AGGREGATE_OLYMPIC_MEAN,
                   "mcpp_policy_set_run_aggregate: unknown aggregate %d", (int)aggregate);
    mcpp_policy_view_drop(policy);
    policy->run_aggregate = aggregate;
    return MCPP_OK;
}

mcpp_run_aggregate mcpp_policy_run_aggregate(const mcpp_policy *policy)
{
    return policy ? policy->run_aggregate : MCPP_AGGREGATE_GEOMETRIC_MEAN;
}

int mcpp_policy_allow_point_comparisons(const mcpp_policy *policy)
{
    return policy ? policy->allow_point_comparisons : 0;
}

/* ---- Custom rules ------------------------------------------------------------- */

int mcpp_policy_add_rule(mcpp_policy *policy, const char *name, mcpp_rule_fn fn, void *userdata,
                         void (*free_userdata)(void *))
{
    if (!policy || !name || !fn) {
        /* The policy owns userdata from the call on, failure included. */
        if (free_userdata) free_userdata(userdata);
        return MCPP_ERROR_ARG("mcpp_policy_add_rule: NULL argument");
    }
    mcpp_policy_view_drop(policy);
    int grown = MCPP_ARRAY_RESERVE(policy->rules, policy->cap_rules, policy->n_rules + 1, MCPP_ARRAY_MAX_ITEMS);
    if (grown != MCPP_OK) {
        if (free_userdata) free_userdata(userdata);
        return grown;
    }
    char *n = mcpp_strdup(name, NULL);
    mcpp_rule_owner *owner = malloc(sizeof *owner);
    if (!n || !owner) {
        free(n);
        free(owner);
        if (free_userdata) free_userdata(userdata);
        return mcpp_error_nomem();
    }
    owner->userdata = userdata;
    owner->free_userdata = free_userdata;
    atomic_init(&owner->refs, 1);
    mcpp_policy_rule *r = &policy->rules[policy->n_rules++];
    r->name = n;
    r->fn = fn;
    r->userdata = userdata;
    r->owner = owner;
    r->per_run = 0; /* a C rule sees both sides */
    return MCPP_OK;
}

size_t mcpp_policy_rule_count(const mcpp_policy *policy) { return policy ? policy->n_rules : 0; }

const char *mcpp_policy_rule_name(const mcpp_policy *policy, size_t index)
{
    return policy && index < policy->n_rules ? policy->rules[index].name : NULL;
}

/* ---- The built-in default, shared ----------------------------------------------- */

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static mcpp_policy *builtin_policy; /* written once under builtin_once, read-only after */

/* Made once and never changed, so its digest is taken once as well: every
 * comparison under it states the digest, and taken each time (printf of every
 * setting) it was a fifth of a gate whose candidates had no comparable
 * baseline, each compared with every baseline to say why. */
static void builtin_init(void)
{
    if (mcpp_policy_default(&builtin_policy) == MCPP_OK && builtin_policy)
        mcpp_policy_digest_fill(builtin_policy->digest, builtin_policy);
}

const mcpp_policy *mcpp_policy_builtin(void)
{
    pthread_once(&builtin_once, builtin_init);
    return builtin_policy;
}

const mcpp_policy *mcpp_policy_or_default(const mcpp_policy *policy)
{
    if (policy) return policy;
    const mcpp_policy *p = mcpp_policy_builtin();
    if (!p) mcpp_error_nomem();
    return p;
}
