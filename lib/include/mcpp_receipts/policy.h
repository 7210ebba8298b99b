/*
 * mcpp_receipts/policy.h — a comparability policy as data.
 *
 * A policy names the dimensions (groups of receipt fields) and what a
 * difference in each means (must match, only qualifies, ignored), the fields
 * that must be present, the noise bounds, the merge gate and the adjacency
 * width of the frontier. mcpp_policy_default() gives the built-in policy
 * (policy/default.lua is the same policy written as a Lua file). Lua policy
 * files (policy_lua.h) compile into this same type; custom Lua rules attach
 * through mcpp_policy_add_rule().
 *
 * Ownership: a policy returned through `out` belongs to the caller; free it
 * with mcpp_policy_free() (NULL-safe). A policy is not modified by comparing,
 * so one policy may be shared by threads once it is built, provided its custom
 * rules are thread-safe (the Lua glue serialises its own).
 *
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_POLICY_H
#define MCPP_RECEIPTS_POLICY_H

#include "receipt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thread safety: build a policy on one thread; once built, comparing does not
 * modify it, so threads may share it if its custom rules are thread-safe (the Lua
 * glue serialises its own). Setters must not overlap with any other call. */
typedef struct mcpp_policy mcpp_policy;

typedef enum mcpp_role {
    MCPP_ROLE_MUST_MATCH = 0, /* a difference makes the pair not comparable       */
    MCPP_ROLE_QUALIFY = 1,    /* a difference is listed; the pair stays comparable */
    MCPP_ROLE_IGNORE = 2      /* not looked at                                     */
} mcpp_role;

/* "must_match", "qualify", "ignore". Static. */
MCPP_EXPERIMENTAL const char *mcpp_role_name(mcpp_role role);
/* Parses those names; MCPP_EINVALID otherwise. */
MCPP_EXPERIMENTAL int mcpp_role_parse(mcpp_role *out, const char *name);

/* The built-in default policy: the default dimensions, must-match ones first
 * then those that qualify (mcpp_default_dimension_name lists them, and
 * docs/comparability.md tables them with their rules), with default noise
 * and gate settings. policy/default.lua is the same policy in Lua. */
MCPP_API int mcpp_policy_default(mcpp_policy **out);
/* An empty policy (no dimensions, no required fields, default noise and gate). */
MCPP_EXPERIMENTAL int mcpp_policy_new(mcpp_policy **out, const char *name);
MCPP_API void mcpp_policy_free(mcpp_policy *policy);
/* An independent copy of `policy` (NULL: the default) to change without
 * touching the original: name, dimensions, required fields, noise and gate
 * settings (every gate metric), adjacency width. Its custom rules are the
 * original's, shared: the same functions called with the same userdata
 * (a Lua policy's sandbox, with its lock), which the last of the policies
 * freed frees. A copy of the policy a comparison was made under decides as
 * it does. MCPP_ENOMEM when out of memory. */
MCPP_API int mcpp_policy_clone(mcpp_policy **out, const mcpp_policy *policy);

MCPP_API const char *mcpp_policy_name(const mcpp_policy *policy);
MCPP_EXPERIMENTAL int mcpp_policy_set_name(mcpp_policy *policy, const char *name, int64_t version);

/* ---- Dimensions ---------------------------------------------------------- */

/*
 * Adds a dimension or replaces the one of the same name. `field_paths` are
 * schema paths (receipt.h); a path ending in ".*" names every field under it
 * ("routing.*"). When n_fields is 0 and `name` is one of the default dimension
 * names, its default fields are used. Unknown field paths: MCPP_EINVALID.
 */
MCPP_EXPERIMENTAL int mcpp_policy_set_dimension(mcpp_policy *policy, const char *name, const char *const *field_paths,
                                                size_t n_fields, mcpp_role role);
/* Changes the role of an existing dimension; MCPP_ENOTFOUND when absent. */
MCPP_EXPERIMENTAL int mcpp_policy_set_role(mcpp_policy *policy, const char *name, mcpp_role role);

MCPP_EXPERIMENTAL size_t mcpp_policy_dimension_count(const mcpp_policy *policy);
/* Borrowed views of dimension `index`; NULL/-1 when out of range. */
MCPP_EXPERIMENTAL const char *mcpp_policy_dimension_name(const mcpp_policy *policy, size_t index);
MCPP_EXPERIMENTAL int mcpp_policy_dimension_role(const mcpp_policy *policy, size_t index);
MCPP_EXPERIMENTAL size_t mcpp_policy_dimension_field_count(const mcpp_policy *policy, size_t index);
MCPP_EXPERIMENTAL const char *mcpp_policy_dimension_field(const mcpp_policy *policy, size_t index, size_t field);

/*
 * The policy's content digest: 16 lowercase hex digits of a hash over
 * everything it decides with (dimensions, roles, fields, required fields,
 * noise, gate metrics, adjacency, rule names and Lua rule source). Every
 * report names the policy by name and digest: two policies called "default"
 * that judge differently have different digests. NULL policy: the built-in
 * default. cap must exceed MCPP_POLICY_DIGEST_LEN.
 */
#define MCPP_POLICY_DIGEST_LEN 16
MCPP_EXPERIMENTAL int mcpp_policy_digest(char *buf, size_t cap, const mcpp_policy *policy);

/* The names of the built-in default dimensions, for linting policy files. */
MCPP_EXPERIMENTAL size_t mcpp_default_dimension_count(void);
MCPP_EXPERIMENTAL const char *mcpp_default_dimension_name(size_t index);

/* ---- Required fields, noise, gate, adjacency ----------------------------- */

MCPP_EXPERIMENTAL int mcpp_policy_add_required_field(mcpp_policy *policy, const char *path);
MCPP_EXPERIMENTAL size_t mcpp_policy_required_count(const mcpp_policy *policy);
MCPP_EXPERIMENTAL const char *mcpp_policy_required_at(const mcpp_policy *policy, size_t index);

/* Settings structs are versioned like mcpp_limits: start from the _INIT
 * initialiser (the defaults) or a copy of mcpp_policy_noise()/_gate(). */
#define MCPP_NOISE_SETTINGS_VERSION 2u
typedef struct mcpp_noise_settings {
    unsigned int version;  /* MCPP_NOISE_SETTINGS_VERSION (1 is still accepted: the
                              fields up to noise_floor, the rest keep their defaults) */
    double max_rel_spread; /* (p90-p10)/median above this makes a lane unstable; default 0.05 */
    int64_t min_runs;      /* ok receipts a lane needs to be stable; default 3                */
    double noise_floor;    /* relative deltas below this are noise; default 0.01              */
    /* Version 2: the run-to-run model of the gate (docs/statistics.md). */
    double run_to_run;     /* the declared run-to-run variation of a lane's headline: the
                              standard deviation of log(value) between runs of unchanged
                              code (0.05 ~ 5%); 0: none declared. Default 0.03           */
    double run_to_run_df;  /* how many degrees of freedom the declared figure weighs
                              against the runs at hand (a prior); default 20             */
} mcpp_noise_settings;

#define MCPP_NOISE_SETTINGS_INIT {MCPP_NOISE_SETTINGS_VERSION, 0.05, 3, 0.01, 0.03, 20}

#define MCPP_GATE_SETTINGS_VERSION 1u
typedef struct mcpp_gate_settings {
    unsigned int version;  /* MCPP_GATE_SETTINGS_VERSION */
    const char *metric;    /* the headline metric: "primary" (default: each receipt's
                              metrics.primary), a metric name ("tokens_per_s",
                              "time_to_train_s"), or a schema path
                              ("metrics.tokens_per_s"); docs/metrics.md */
    int higher_is_better;  /* default 1; the direction of a number field that is no
                              metric (a metric's direction is the receipt's)            */
    double max_regression; /* relative; default 0.03                                            */
    double confidence;     /* two-sided interval level; default 0.95                            */
} mcpp_gate_settings;

#define MCPP_GATE_SETTINGS_INIT {MCPP_GATE_SETTINGS_VERSION, "primary", 1, 0.03, 0.95}

/* Copies the settings in (the metric string too). Nonsense (negative bounds,
 * confidence outside (0,1), an empty metric name or a schema field that is
 * not a number) is MCPP_EINVALID; a version
 * this library does not know is MCPP_EARG. */
MCPP_EXPERIMENTAL int mcpp_policy_set_noise(mcpp_policy *policy, const mcpp_noise_settings *noise);
MCPP_API int mcpp_policy_set_gate(mcpp_policy *policy, const mcpp_gate_settings *gate);
/* Borrowed views (strings live as long as the policy). */
MCPP_EXPERIMENTAL const mcpp_noise_settings *mcpp_policy_noise(const mcpp_policy *policy);
MCPP_EXPERIMENTAL const mcpp_gate_settings *mcpp_policy_gate(const mcpp_policy *policy);
/* Run-to-run noise declared for the results of one benchmark suite (the
 * receipts' benchmark.suite: "pytest-benchmark", "google-benchmark", ...),
 * used instead of noise.run_to_run for them: Python micro-benchmarks move
 * between processes far more than a training run between jobs
 * (docs/statistics.md). run_to_run_df < 0: the policy's run_to_run_df.
 * Setting a suite again replaces it. At most MCPP_POLICY_SUITE_NOISE_MAX
 * suites of up to 63 bytes; MCPP_EINVALID otherwise or out of range. Lua:
 * noise = { suites = { ["pytest-benchmark"] = { run_to_run = 0.05 } } }. */
#define MCPP_POLICY_SUITE_NOISE_MAX 16
MCPP_EXPERIMENTAL int mcpp_policy_set_suite_noise(mcpp_policy *policy, const char *suite, double run_to_run,
                                                  double run_to_run_df);
MCPP_EXPERIMENTAL size_t mcpp_policy_suite_noise_count(const mcpp_policy *policy);
/* Suite `index` (borrowed name; NULL out of range) and its figure, df resolved. */
MCPP_EXPERIMENTAL const char *mcpp_policy_suite_noise_at(const mcpp_policy *policy, size_t index, double *run_to_run,
                                                         double *run_to_run_df);
/* The metrics the gate decides on: 1 for a policy with one gate metric (the
 * settings above), n for gate = { metrics = { ... } } (docs/metrics.md). */
MCPP_EXPERIMENTAL size_t mcpp_policy_gate_metric_count(const mcpp_policy *policy);
/* Gate metric `index` into *out (out->version must be MCPP_GATE_SETTINGS_VERSION;
 * metric borrowed). higher_is_better is 1 or 0 when the policy states the
 * direction, -1 when it comes from the receipts. MCPP_EARG out of range. */
MCPP_EXPERIMENTAL int mcpp_policy_gate_metric_at(mcpp_gate_settings *out, const mcpp_policy *policy, size_t index);

/* Lanes are adjacent when their keys differ in at most `width` must-match
 * dimensions (default 1). */
MCPP_EXPERIMENTAL int mcpp_policy_set_adjacency_width(mcpp_policy *policy, int width);
MCPP_EXPERIMENTAL int mcpp_policy_adjacency_width(const mcpp_policy *policy);

/* Whether the gate may decide on a point comparison (a side with a single
 * value: one run without step samples). Default 0: such a gate is
 * undetermined, since one value says nothing about noise. Lua:
 * gate = { allow_point_comparisons = true }. */
MCPP_API int mcpp_policy_set_allow_point_comparisons(mcpp_policy *policy, int allow);
MCPP_EXPERIMENTAL int mcpp_policy_allow_point_comparisons(const mcpp_policy *policy);

/* What the gate does with a new lane: a candidate whose lane no baseline
 * shares (a benchmark the pull request adds, or every candidate of a first
 * run against an empty baseline). Default 0: the candidate is reported as
 * new (reason_code "new_lane") and passes; 1: it is undetermined (exit 2).
 * Only while every baseline lane still has a candidate: a baseline lane left
 * without one may have changed into the candidate's (top_k changed, another
 * machine), so such candidates stay undetermined whatever this says. Lua:
 * gate = { new_lanes = "fail" }; CLI: gate --new-lanes=pass|fail. */
MCPP_EXPERIMENTAL int mcpp_policy_set_new_lanes_fail(mcpp_policy *policy, int fail);
MCPP_EXPERIMENTAL int mcpp_policy_new_lanes_fail(const mcpp_policy *policy);
/* The gate's third outcome (docs/statistics.md, "Inconclusive"): a compared
 * metric with no established regression whose interval at the gate's
 * confidence reaches past `min_detectable` (relative; 0: twice each gate
 * metric's max_regression, the default) is inconclusive, not passed, since a
 * regression that large is not ruled out. `fails`: an inconclusive gate exits
 * 1 (default 0: it exits 0, and every output names what it could not rule
 * out). MCPP_EINVALID for a bound that is negative or not finite. Lua:
 * gate = { min_detectable = 0.1, on_inconclusive = "pass" | "fail" }. */
MCPP_EXPERIMENTAL int mcpp_policy_set_inconclusive(mcpp_policy *policy, double min_detectable, int fails);
/* The settings above into either out (may be NULL); 0 / 0 for NULL. */
MCPP_EXPERIMENTAL void mcpp_policy_inconclusive(const mcpp_policy *policy, double *min_detectable, int *fails);
/* 1 when the policy declares noise.run_to_run itself (a shipped policy does),
 * 0 when it holds the library's default (outputs name that source "default"). */
MCPP_EXPERIMENTAL int mcpp_policy_noise_declared(const mcpp_policy *policy);

/* How the gate sums up a side's runs (docs/statistics.md): the geometric
 * mean of the run values (default), or MLPerf's olympic mean (the runs'
 * mean without the fastest and the slowest, on log values, from 3 runs on).
 * Lua: gate = { aggregate = "olympic_mean" }. */
typedef enum mcpp_run_aggregate {
    MCPP_AGGREGATE_GEOMETRIC_MEAN = 0,
    MCPP_AGGREGATE_OLYMPIC_MEAN = 1
} mcpp_run_aggregate;
MCPP_EXPERIMENTAL int mcpp_policy_set_run_aggregate(mcpp_policy *policy, mcpp_run_aggregate aggregate);
MCPP_EXPERIMENTAL mcpp_run_aggregate mcpp_policy_run_aggregate(const mcpp_policy *policy);

/* ---- Custom rules -------------------------------------------------------- */

typedef enum mcpp_rule_outcome {
    MCPP_RULE_PASS = 0,         /* no opinion                                    */
    MCPP_RULE_QUALIFY = 1,      /* comparable, with this qualification listed    */
    MCPP_RULE_MISMATCH = 2,     /* not comparable                                */
    MCPP_RULE_INSUFFICIENT = 3  /* cannot decide: something needed is missing    */
} mcpp_rule_outcome;

/*
 * A custom check run after the declarative dimensions. It writes its outcome
 * and a one-line reason (NUL-terminated, at most reason_cap bytes) and returns
 * MCPP_OK, or a negative code when the rule itself failed (the comparison then
 * fails with MCPP_EPOLICY and the rule's last error).
 */
typedef int (*mcpp_rule_fn)(void *userdata, const mcpp_receipt *base, const mcpp_receipt *cand,
                            mcpp_rule_outcome *outcome, char *reason, size_t reason_cap);

/* Adds a rule. The policy owns `userdata` from here on and calls
 * free_userdata(userdata) (when not NULL) as it is freed. */
MCPP_EXPERIMENTAL int mcpp_policy_add_rule(mcpp_policy *policy, const char *name, mcpp_rule_fn fn, void *userdata,
                                           void (*free_userdata)(void *));
MCPP_EXPERIMENTAL size_t mcpp_policy_rule_count(const mcpp_policy *policy);
MCPP_EXPERIMENTAL const char *mcpp_policy_rule_name(const mcpp_policy *policy, size_t index);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_POLICY_H */
