/*
 * policy_internal.h — the layout of mcpp_policy, shared by the comparison,
 * frontier and claim code that reads it on their hot paths.
 *
 * Field paths are resolved to schema field ids when a dimension is set, so a
 * comparison reads fields by id and never looks a path up.
 */
#ifndef MCPP_POLICY_INTERNAL_H
#define MCPP_POLICY_INTERNAL_H

#include <stdatomic.h>

#include "mcpp_receipts/policy.h"
#include "receipt/metric_ref.h"

/* How a dimension's rows are computed. */
typedef enum mcpp_dim_kind {
    MCPP_DIM_KIND_FIELDS = 0,     /* compare the listed fields                          */
    MCPP_DIM_KIND_FALLBACKS = 1,  /* backend.fallbacks plus requested != observed pairs */
    MCPP_DIM_KIND_QUALITY = 2,    /* quality.*: the metric, its direction, throughput at unequal quality */
    MCPP_DIM_KIND_DENOMINATOR = 3 /* differs only when stated on both sides */
} mcpp_dim_kind;

/* Which receipts a dimension describes. A model-training run has a pattern;
 * a benchmark-suite result (pytest-benchmark, Google Benchmark, MLPerf) states
 * benchmark.suite and no pattern, and compares on benchmark identity. */
typedef enum mcpp_dim_applies {
    MCPP_APPLIES_ALL = 0,   /* every receipt                                           */
    MCPP_APPLIES_MODEL = 1, /* not between two suite results (model shape, workload,
                               compile, kernels, launch)                              */
    MCPP_APPLIES_SUITE = 2, /* only when a side states benchmark.suite (benchmark id)  */
    MCPP_APPLIES_STATED = 3, /* only when a side states one of its fields (software:
                                a stack nobody recorded is not a difference)         */
    MCPP_APPLIES_MODEL_OR_STATED = 4 /* model runs, and suite results that state one of
                                its fields (backend: a GEMM harness's implementation) */
} mcpp_dim_applies;

typedef struct mcpp_policy_dim {
    char *name;
    mcpp_role role;
    mcpp_dim_kind kind;
    char **paths; /* as resolved (".*" expanded), owned */
    int *ids;     /* schema field ids, parallel to paths */
    /* Per field: the block letter the field applies to ('E' for routing.* and
     * backend.moe.*, 'A' attention, 'M' mamba, 'R' recurrent), 0 for always.
     * A dense model has no routing; that is not "missing". */
    char *needs;
    size_t n_fields;
    mcpp_dim_applies applies;
    /* 1: an absent field means "none" rather than "unknown" (features: no
     * feature map is no feature in force), so absent on both is agreement and
     * absent on one side is a difference. */
    int absent_is_none;
    /* 1: absent on both sides qualifies ("not recorded") even under
     * must_match, and the lane key is still stated: model size, where the
     * pattern already names the architecture and the size only narrows it. */
    int unstated_qualifies;
    /* 1: a qualifying dimension that still keys lanes (MCPP_LANE_KEYING_QUALIFIERS
     * in dimension_table.h): runs that differ in it are different benchmarks. */
    int keys_lane;
} mcpp_policy_dim;

/* Who owns a rule's userdata: the policy that added the rule and its clones
 * (mcpp_policy_clone) share it; the last one freed frees it. */
typedef struct mcpp_rule_owner {
    void *userdata;
    void (*free_userdata)(void *);
    atomic_size_t refs;
} mcpp_rule_owner;

typedef struct mcpp_policy_rule {
    char *name;
    mcpp_rule_fn fn;
    void *userdata;         /* owner->userdata, read on every call */
    mcpp_rule_owner *owner; /* NULL in explanation views (names only) */
    /* 1: the rule judges each side on its own (a Lua rule given as `each`),
     * so two receipts that each pass it against themselves pass it together:
     * the frontier needs no pair check for it (frontier.c). */
    int per_run;
} mcpp_policy_rule;

/* One metric of a multi-metric gate (gate = { metrics = { {name=..}, .. } }). */
typedef struct mcpp_gate_metric_spec {
    char *text;            /* the metric as the policy names it (owned) */
    mcpp_metric_ref ref;   /* text, resolved */
    int direction;         /* -1: the receipts'; 1 higher / 0 lower is better, as the
                              policy states it (a receipt that disagrees is not compared) */
    double max_regression; /* relative allowance */
    double confidence;     /* two-sided interval level */
} mcpp_gate_metric_spec;

/* One benchmark suite's declared run-to-run noise (mcpp_policy_set_suite_noise);
 * run_to_run_df < 0: the policy's. Fixed size, so copies are plain copies. */
typedef struct mcpp_suite_noise {
    char suite[64];
    double run_to_run, run_to_run_df;
} mcpp_suite_noise;

struct mcpp_policy {
    char *name;
    int64_t version;
    mcpp_policy_dim *dims;
    size_t n_dims, cap_dims;
    char **required;
    int *required_ids;
    size_t n_required, cap_required;
    mcpp_noise_settings noise;
    mcpp_suite_noise suite_noise[MCPP_POLICY_SUITE_NOISE_MAX];
    size_t n_suite_noise;
    mcpp_gate_settings gate; /* gate.metric points at gate_metric */
    char *gate_metric;
    mcpp_metric_ref gate_ref; /* gate_metric, resolved */
    /* The metrics of a multi-metric gate; n_gate_metrics 0: the one metric of
     * `gate` (mcpp_policy_set_gate clears the list). gate_metrics[0] and
     * `gate` agree on metric, allowance and confidence. */
    mcpp_gate_metric_spec *gate_metrics;
    size_t n_gate_metrics;
    int adjacency_width;
    int allow_point_comparisons; /* 0: a one-value side leaves the gate undetermined */
    int new_lanes_fail;          /* 1: a candidate in a lane no baseline has is undetermined */
    double min_detectable;       /* gate.min_detectable; 0: twice each gate metric's allowance */
    int inconclusive_fails;      /* gate.on_inconclusive = "fail": an inconclusive gate exits 1 */
    int noise_declared;          /* 1: noise.run_to_run was declared (not the library's default) */
    mcpp_run_aggregate run_aggregate; /* how a side's runs are summed up (policy.h) */
    mcpp_policy_rule *rules;
    size_t n_rules, cap_rules;
    /* Fields the engine itself reads, resolved once. -1 when the schema lacks one. */
    int id_pattern, id_fallbacks, id_outcome, id_stability, id_blocker, id_verification;
    int id_samples, id_useful_tokens, id_tokens_per_s, id_step_median, id_lane_name;
    int id_suite, id_not_recorded;
    int id_family;
    /* FNV-1a of the Lua files' source, folded in load order: the digest of
     * a policy with Lua rules covers what the rules say, not only their names */
    uint64_t rules_source;
    /* An explanation view: its policy's digest, taken when the view was made
     * (the view copies no gate metric list); "" in a policy. */
    char digest[MCPP_POLICY_DIGEST_LEN + 1];
    /* The explanation view (policy_view.c): made on first use, dropped by
     * the setters that change what it copies; `holders` counts on a view. */
    _Atomic(struct mcpp_policy *) explain_view;
    atomic_size_t holders;
};

/* The gate's metrics: the list, or `single` filled from the gate settings
 * (direction from the receipts) when there is no list. Returns the count. */
size_t mcpp_policy_gate_metrics(const mcpp_policy *p, const mcpp_gate_metric_spec **out,
                                mcpp_gate_metric_spec *single);

/* Replaces the gate's metric list with copies of specs[0..n-1] (n >= 1; each
 * text parsed); the gate settings take the first one's metric, allowance and
 * confidence. MCPP_EINVALID naming gate.metrics[i] for a bad entry. */
int mcpp_policy_set_gate_metrics(mcpp_policy *p, const mcpp_gate_metric_spec *specs, size_t n);

/* Drops the metric list (back to the gate settings' one metric). */
void mcpp_policy_gate_metrics_clear(mcpp_policy *p);

/* The run-to-run figure the gate assumes for results of `suite` (NULL: a
 * model lane): the suite's own when the policy declares one, else
 * noise.run_to_run and run_to_run_df (either out may be NULL). */
void mcpp_policy_declared_noise(const mcpp_policy *p, const char *suite, double *run_to_run, double *run_to_run_df);
/* 1 when the figure mcpp_policy_declared_noise gives for `suite` was declared
 * (the suite's, or noise.run_to_run set by the policy), 0 when it is the
 * library's default. */
int mcpp_policy_noise_is_declared(const mcpp_policy *p, const char *suite);
/* The smallest regression a passed metric's interval must rule out: the
 * policy's gate.min_detectable, else twice the metric's allowance. */
double mcpp_policy_min_detectable_for(const mcpp_policy *p, double allowance);

/* The policy's content digest (policy_digest.c), 16 hex digits. */
void mcpp_policy_digest_fill(char out[MCPP_POLICY_DIGEST_LEN + 1], const mcpp_policy *p);

/* The built-in default policy, built once per process and immutable after
 * that (so NULL policies cost nothing per call). Never NULL unless out of
 * memory at first use. */
const mcpp_policy *mcpp_policy_builtin(void);

/* `policy` or, when NULL, the built-in default; NULL only when out of memory
 * (and then the last error is set). */
const mcpp_policy *mcpp_policy_or_default(const mcpp_policy *policy);

/* ---- The explanation view (policy_view.c) ----------------------------------------
 * A comparison renders its rows when they are first read, maybe after the
 * caller changed or freed the policy: it holds this immutable copy of what the
 * rows and the gate reason read (name, dimensions, required fields, rule
 * names, gate and noise settings and the engine's field ids), shared by every
 * comparison made under the same policy state.
 * The built-in policy is its own view. */

/* The view of `p` with one more holder; NULL when out of memory (error set).
 * Safe from several threads at once, like any read of a built policy. */
const mcpp_policy *mcpp_policy_view_hold(const mcpp_policy *p);
/* Ends one holder of a view (NULL-safe); the last one frees it. */
void mcpp_policy_view_release(const mcpp_policy *view);
/* Called by the setters that change what a view copies: later comparisons
 * get a new view, earlier ones keep theirs. */
void mcpp_policy_view_drop(mcpp_policy *p);

/* A copy of what p decides with, without its rules (their names only) and
 * without its multi-metric gate list: the explanation view's contents, and
 * the start of mcpp_policy_clone. NULL when out of memory (error not set);
 * free with mcpp_policy_free. */
mcpp_policy *mcpp_policy_copy_settings(const mcpp_policy *p);

/* 1 when `name` is a plain file name a policy may include or be asked for by
 * (letters, digits, '_', '-', '.'; not ".", no "..", no '/'); policy_search.c. */
int mcpp_policy_name_is_plain(const char *name);

#endif /* MCPP_POLICY_INTERNAL_H */
