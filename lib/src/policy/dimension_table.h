/*
 * dimension_table.h — THE dimensions of the default comparability policy as
 * one X-macro list (private to the library, its tests and its build tools).
 *
 * Everything that knows the default dimensions is generated from this list:
 * the default policy (policy.c), the short keys of a claim selector
 * (analysis/claim.c; `claim --help` prints them through
 * mcpp_claim_selector_key), the dimension table of docs/comparability.md
 * (`mcpp-gen-fields-doc --dimensions`, checked by ctest) and the dimension
 * column of docs/fields.md. Order here IS the lane key's order.
 * policy/default.lua writes the same dimensions out for reviewers; a test
 * compares the two policies' content digests. docs/ARCHITECTURE.md says how
 * to add a dimension.
 *
 * X(NAME, ROLE, KIND, APPLIES, ABSENT, SINCE, FIELDS, KEYS, "note")
 *   NAME     the dimension's name in policies and reports
 *   ROLE     MUST_MATCH or QUALIFY
 *   KIND     FIELDS (compares its fields), FALLBACKS (also every request not met)
 *            QUALITY (quality.*: one metric, its direction, throughput at equal quality)
 *            or DENOMINATOR (differs only when stated on both sides: a receipt
 *            that does not state it is not held to it)
 *   APPLIES  between which receipts it compares (mcpp_dim_applies): ALL, MODEL
 *            (not between two benchmark-suite results), SUITE (when a side
 *            states benchmark.suite), STATED (when a side states one of its
 *            fields), MODEL_OR_STATED
 *   ABSENT   what absent on both sides means: UNKNOWN ("not recorded", never
 *            agreement), NONE (absent means none: absent on one side is a
 *            difference) or QUALIFIES (a must-match dimension that qualifies
 *            instead of being insufficient)
 *   SINCE    the first schema with a field of the dimension (1 or 2; a test
 *            checks it against the schema)
 *   FIELDS   MCPP_DIM_LIST("path", ...): schema paths, "section.*" for a section
 *   KEYS     MCPP_DIM_LIST("key", "path", ...): the short keys a claim selector
 *            takes for this dimension, each with the path it reads
 *   note     for the docs: what the rule is for, or ""
 */
#ifndef MCPP_POLICY_DIMENSION_TABLE_H
#define MCPP_POLICY_DIMENSION_TABLE_H

#define MCPP_DIM_LIST(...) {__VA_ARGS__}

#define MCPP_DEFAULT_DIMENSIONS(X)                                                                                     \
    X(benchmark, MUST_MATCH, FIELDS, SUITE, UNKNOWN, 2,                                                                \
      MCPP_DIM_LIST("benchmark.suite", "benchmark.name", "benchmark.params", "benchmark.division",                     \
                    "benchmark.submitter", "benchmark.system"),                                                        \
      MCPP_DIM_LIST("suite", "benchmark.suite", "benchmark", "benchmark.name", "system", "benchmark.system",           \
                    "submitter", "benchmark.submitter"),                                                               \
      "what was measured; its submitter and system name the submission, so two submitters' 8xH100 results are two "    \
      "lanes")                                                                                                         \
    X(pattern, MUST_MATCH, FIELDS, MODEL, UNKNOWN, 1, MCPP_DIM_LIST("lane.pattern", "lane.depth"),                     \
      MCPP_DIM_LIST("family", "lane.family", "pattern", "lane.pattern", "depth", "lane.depth", "name", "lane.name"),   \
      "the stack by its canonical form; the layers are lane.depth")                                                    \
    X(model_size, MUST_MATCH, FIELDS, MODEL, QUALIFIES, 1,                                                             \
      MCPP_DIM_LIST("lane.params_total", "lane.params_active", "lane.d_model", "lane.heads"), MCPP_DIM_LIST(NULL),     \
      "the same pattern at another width, head count or parameter count is another model")                             \
    X(routing, MUST_MATCH, FIELDS, MODEL, UNKNOWN, 1, MCPP_DIM_LIST("routing.*"),                                      \
      MCPP_DIM_LIST("routing", "routing.mode", "top_k", "routing.top_k", "experts", "routing.num_experts"),            \
      "only with E blocks")                                                                                            \
    X(sequence, MUST_MATCH, FIELDS, MODEL, UNKNOWN, 1, MCPP_DIM_LIST("workload.seq_len"),                              \
      MCPP_DIM_LIST("seq_len", "workload.seq_len"), "")                                                                \
    X(batch, MUST_MATCH, FIELDS, MODEL, UNKNOWN, 1, MCPP_DIM_LIST("workload.micro_batch", "workload.global_batch"),    \
      MCPP_DIM_LIST("micro_batch", "workload.micro_batch", "global_batch", "workload.global_batch"), "")               \
    X(compile, MUST_MATCH, FIELDS, MODEL, UNKNOWN, 1, MCPP_DIM_LIST("compile.posture", "compile.warmup"),              \
      MCPP_DIM_LIST("compile", "compile.posture", "warmup", "compile.warmup"), "")                                     \
    X(topology, MUST_MATCH, FIELDS, ALL, UNKNOWN, 1, MCPP_DIM_LIST("topology.*"),                                      \
      MCPP_DIM_LIST("substrate", "topology.substrate", "tp", "topology.tp", "pp", "topology.pp", "ep", "topology.ep",  \
                    "cp", "topology.cp", "dp", "topology.dp"),                                                         \
      "")                                                                                                              \
    X(hardware, MUST_MATCH, FIELDS, ALL, UNKNOWN, 1,                                                                   \
      MCPP_DIM_LIST("hardware.observed.accelerator", "hardware.observed.count", "hardware.observed.per_node",          \
                    "hardware.observed.threads"),                                                                      \
      MCPP_DIM_LIST("accelerator", "hardware.observed.accelerator", "count", "hardware.observed.count", "threads",     \
                    "hardware.observed.threads"),                                                                      \
      "what ran, not what was asked; accelerators by canonical id; the CPU threads a run used")                        \
    X(data, MUST_MATCH, FIELDS, MODEL, UNKNOWN, 1, MCPP_DIM_LIST("workload.data.path", "workload.data.dataset"),       \
      MCPP_DIM_LIST("data", "workload.data.path", "dataset", "workload.data.dataset"), "")                             \
    X(backend, MUST_MATCH, FIELDS, MODEL_OR_STATED, UNKNOWN, 1,                                                        \
      MCPP_DIM_LIST("backend.attention.observed", "backend.moe.observed", "backend.mamba.observed",                    \
                    "backend.recurrent.observed", "backend.gemm.observed", "backend.precision.observed"),              \
      MCPP_DIM_LIST("moe", "backend.moe.observed", "attention", "backend.attention.observed", "mamba",                 \
                    "backend.mamba.observed", "recurrent", "backend.recurrent.observed", "gemm",                       \
                    "backend.gemm.observed", "precision", "backend.precision.observed"),                               \
      "the kernels that ran; a suite result's implementation (a GEMM harness's) too")                                  \
    X(launch, MUST_MATCH, FIELDS, MODEL, NONE, 1, MCPP_DIM_LIST("launch.*"), MCPP_DIM_LIST(NULL),                      \
      "the launch contract changes the executed runtime shape (MTP depth, CUDA graphs, a pinned policy, the "          \
      "arguments)")                                                                                                    \
    X(features, MUST_MATCH, FIELDS, ALL, NONE, 2, MCPP_DIM_LIST("features"), MCPP_DIM_LIST(NULL),                      \
      "the members not stated false: a feature in force is a tax to measure against its absence")                      \
    X(compile_detail, QUALIFY, FIELDS, MODEL, UNKNOWN, 1,                                                              \
      MCPP_DIM_LIST("compile.graph_breaks", "compile.disabled_regions", "metrics.window.recompiles",                   \
                    "metrics.window.graph_recaptures", "metrics.window.profiled_steps"),                               \
      MCPP_DIM_LIST(NULL),                                                                                             \
      "a graph break, a region left out of compile, or a recompile, graph capture or profiler capture inside the "     \
      "measured window changes what ran")                                                                              \
    X(software, QUALIFY, FIELDS, STATED, UNKNOWN, 2,                                                                   \
      MCPP_DIM_LIST("software.framework", "software.version", "software.image", "software.components"),                \
      MCPP_DIM_LIST(NULL), "")                                                                                         \
    X(suite_version, QUALIFY, FIELDS, STATED, UNKNOWN, 2, MCPP_DIM_LIST("benchmark.suite_version"),                    \
      MCPP_DIM_LIST(NULL),                                                                                             \
      "the suite's or tool's release (pytest-benchmark 5.3.1 vs 5.4.0, an MLPerf round): an upgrade qualifies, it "    \
      "does not start a new lane")                                                                                     \
    X(startup, QUALIFY, FIELDS, ALL, UNKNOWN, 1, MCPP_DIM_LIST("startup.state"),                                       \
      MCPP_DIM_LIST("startup", "startup.state"), "")                                                                   \
    X(position, QUALIFY, FIELDS, STATED, UNKNOWN, 2, MCPP_DIM_LIST("run.position.step", "run.position.tokens_seen"),   \
      MCPP_DIM_LIST(NULL), "by power-of-two range: a warm-up window against steady state qualifies")                   \
    X(window, QUALIFY, FIELDS, STATED, UNKNOWN, 1, MCPP_DIM_LIST("metrics.window.warmup_steps"),                       \
      MCPP_DIM_LIST("warmup_steps", "metrics.window.warmup_steps"),                                                    \
      "no step before the measured window (compile and warm-up measured) against some: another starting line; 10 "     \
      "against 20 warm-up steps is one")                                                                               \
    X(denominator, QUALIFY, DENOMINATOR, MODEL, UNKNOWN, 1, MCPP_DIM_LIST("workload.useful_tokens_per_step"),          \
      MCPP_DIM_LIST("useful_tokens", "workload.useful_tokens_per_step"),                                               \
      "tokens/s over another useful-token denominator is not the same speed (stated on both sides)")                   \
    X(cache, QUALIFY, FIELDS, MODEL, UNKNOWN, 1,                                                                       \
      MCPP_DIM_LIST("compile.cache_state", "hardware.observed.driver", "hardware.observed.runtime"),                   \
      MCPP_DIM_LIST(NULL), "")                                                                                         \
    X(quality, QUALIFY, QUALITY, STATED, UNKNOWN, 2,                                                                   \
      MCPP_DIM_LIST("quality.metric", "quality.target", "quality.achieved"), MCPP_DIM_LIST(NULL),                      \
      "what the run trained to: another metric or target, or throughput at unequal quality, qualifies; quality "       \
      "compares in its metric's own direction (data/quality_metrics.tsv)")                                             \
    X(fallbacks, QUALIFY, FALLBACKS, ALL, UNKNOWN, 1, MCPP_DIM_LIST("backend.fallbacks"), MCPP_DIM_LIST(NULL),         \
      "and every request not met (each pair of receipt/request_pairs.h; auto is met by whatever ran)")

/* Qualifying dimensions that still key lanes (issue 47 item 3): the notes
 * call runs that differ in them different benchmarks (cold boot, warm cache
 * and snapshot restore are different starting lines; compile warm-up is kept
 * apart from steady state; a framework version; preserve the denominator), so
 * a comparison of two such runs qualifies and the frontier keeps them in
 * separate lanes: no headline blends them. A policy's dimension of one of
 * these names keys lanes too, unless it ignores it. */
#define MCPP_LANE_KEYING_QUALIFIERS                                                                                    \
    {                                                                                                                  \
        "startup", "software", "window", "denominator"                                                                 \
    }

#endif /* MCPP_POLICY_DIMENSION_TABLE_H */
