/*
 * schema_fields.h — THE schema of mcpp.receipt/2 as one X-macro list (private).
 *
 * Everything that knows about fields is generated from this list: the typed
 * struct mcpp_receipt (layout.h), the public field table
 * (schema.c), the binder that reads JSON/YAML, the writers, mcpp_receipt_get
 * and the builder. Order here IS canonical output order, and it is a
 * depth-first walk of the sections, so every section's fields are contiguous
 * (schema.c relies on that and a test checks it).
 *
 * X(ID, SECTION, "name", "dotted.path", STORAGE, RANGE, ALLOWED, "doc")
 *   STORAGE  BOOL INT INT32 DOUBLE STRING ENUM SLIST DLIST OBJECT ARTIFACTS METRICS
 *            (INT32: an integer within +-2^31, stored in four bytes: counts,
 *            degrees and sizes that cannot grow past it; INT: within +-2^53)
 *            (METRICS: a list of metric objects, kept like OBJECT as a packed tree)
 *   RANGE    NONE, GE0 (>= 0), GE1 (>= 1), GT0 (> 0)
 *   ALLOWED  enum names (NULL-terminated array) or NULL
 */
/* The tables below keep one row a line, aligned by hand: */
/* clang-format off */
#define MCPP_SCHEMA_FIELDS(X) \
X(schema,          ROOT, "schema", "schema", STRING, NONE, NULL, "schema identifier: mcpp.receipt/2 (mcpp.receipt/1 is upgraded on load)") \
X(id,              ROOT, "id", "id", STRING, NONE, NULL, "unique id; derived from a content hash when absent") \
X(created_at,      ROOT, "created_at", "created_at", STRING, NONE, NULL, "RFC 3339 time the run finished") \
X(source_tool,     SOURCE, "tool", "source.tool", STRING, NONE, NULL, "tool that produced the receipt") \
X(source_git_commit, SOURCE, "git_commit", "source.git_commit", STRING, NONE, NULL, "git commit of the code that ran") \
X(source_command,  SOURCE, "command", "source.command", STRING, NONE, NULL, "command line that ran") \
X(source_host,     SOURCE, "host", "source.host", STRING, NONE, NULL, "host name") \
X(source_not_recorded, SOURCE, "not_recorded", "source.not_recorded", SLIST, NONE, NULL, "top-level sections the source does not record, e.g. compile") \
X(benchmark_suite, BENCHMARK, "suite", "benchmark.suite", STRING, NONE, NULL, "benchmark suite, e.g. mcpp-step, mlperf-training, pytest-benchmark") \
X(benchmark_suite_version, BENCHMARK, "suite_version", "benchmark.suite_version", STRING, NONE, NULL, "version of the suite") \
X(benchmark_name, BENCHMARK, "name", "benchmark.name", STRING, NONE, NULL, "benchmark inside the suite, e.g. llama2_70b_lora, BM_Sort/1024") \
X(benchmark_params, BENCHMARK, "params", "benchmark.params", OBJECT, NONE, NULL, "parameters of the benchmark (compared)") \
X(benchmark_submitter, BENCHMARK, "submitter", "benchmark.submitter", STRING, NONE, NULL, "who submitted the result") \
X(benchmark_system, BENCHMARK, "system", "benchmark.system", STRING, NONE, NULL, "system name as the suite states it") \
X(benchmark_division, BENCHMARK, "division", "benchmark.division", STRING, NONE, NULL, "suite division, e.g. closed, open") \
X(software_framework, SOFTWARE, "framework", "software.framework", STRING, NONE, NULL, "training framework, e.g. pytorch, jax") \
X(software_version, SOFTWARE, "version", "software.version", STRING, NONE, NULL, "framework version") \
X(software_image, SOFTWARE, "image", "software.image", STRING, NONE, NULL, "container image the run used") \
X(software_components, SOFTWARE, "components", "software.components", OBJECT, NONE, NULL, "other components and their versions") \
X(run_seed,        RUN, "seed", "run.seed", INT, GE0, NULL, "random seed of the run") \
X(run_index,       RUN, "index", "run.index", INT32, GE1, NULL, "1-based index of this run among repeated runs") \
X(run_of,          RUN, "of", "run.of", INT32, GE1, NULL, "number of repeated runs of this configuration") \
X(run_position_step, RUN_POSITION, "step", "run.position.step", INT32, GE0, NULL, "training step at the start of the measured window (counted from the start of training, resumes included)") \
X(run_position_tokens_seen, RUN_POSITION, "tokens_seen", "run.position.tokens_seen", INT, GE0, NULL, "tokens trained on before the measured window") \
X(lane_name,       LANE, "name", "lane.name", STRING, NONE, NULL, "human label of the lane") \
X(lane_family,     LANE, "family", "lane.family", STRING, NONE, NULL, "model family label, e.g. NAM52, NAM56R") \
X(lane_pattern,    LANE, "pattern", "lane.pattern", STRING, NONE, NULL, "block-family pattern of A, M, E, R") \
X(lane_depth,      LANE, "depth", "lane.depth", INT32, GE1, NULL, "layers the pattern is tiled to") \
X(lane_params_total, LANE, "params_total", "lane.params_total", INT, GE1, NULL, "total parameters") \
X(lane_params_active, LANE, "params_active", "lane.params_active", INT, GE1, NULL, "parameters active per token") \
X(lane_d_model,    LANE, "d_model", "lane.d_model", INT32, GE1, NULL, "model width (hidden size)") \
X(lane_heads,      LANE, "heads", "lane.heads", INT32, GE1, NULL, "attention heads per attention layer") \
X(lane_blocks_A,   LANE_BLOCKS, "A", "lane.blocks.A", INT32, GE0, NULL, "attention blocks in the tiled stack") \
X(lane_blocks_M,   LANE_BLOCKS, "M", "lane.blocks.M", INT32, GE0, NULL, "Mamba blocks in the tiled stack") \
X(lane_blocks_E,   LANE_BLOCKS, "E", "lane.blocks.E", INT32, GE0, NULL, "MoE blocks in the tiled stack") \
X(lane_blocks_R,   LANE_BLOCKS, "R", "lane.blocks.R", INT32, GE0, NULL, "recurrent blocks in the tiled stack") \
X(workload_seq_len, WORKLOAD, "seq_len", "workload.seq_len", INT32, GE1, NULL, "sequence length") \
X(workload_micro_batch, WORKLOAD, "micro_batch", "workload.micro_batch", INT32, GE1, NULL, "micro-batch size") \
X(workload_global_batch, WORKLOAD, "global_batch", "workload.global_batch", INT32, GE1, NULL, "global batch size") \
X(workload_tokens_per_step, WORKLOAD, "tokens_per_step", "workload.tokens_per_step", INT, GE1, NULL, "tokens computed per step") \
X(workload_useful_tokens_per_step, WORKLOAD, "useful_tokens_per_step", "workload.useful_tokens_per_step", INT, GE0, NULL, "non-padding tokens per step (the denominator)") \
X(workload_data_path, WORKLOAD_DATA, "path", "workload.data.path", ENUM, NONE, mcpp_enum_data_path, "real or synthetic data") \
X(workload_data_dataset, WORKLOAD_DATA, "dataset", "workload.data.dataset", STRING, NONE, NULL, "dataset identity when real") \
X(routing_mode,    ROUTING, "mode", "routing.mode", ENUM, NONE, mcpp_enum_routing_mode, "MoE routing mode; required when the pattern has E") \
X(routing_score,   ROUTING, "score", "routing.score", ENUM, NONE, mcpp_enum_routing_score, "router score function") \
X(routing_num_experts, ROUTING, "num_experts", "routing.num_experts", INT32, GE1, NULL, "experts per MoE layer") \
X(routing_top_k,   ROUTING, "top_k", "routing.top_k", INT32, GE1, NULL, "experts chosen per token") \
X(routing_shared_experts, ROUTING, "shared_experts", "routing.shared_experts", INT32, GE0, NULL, "always-on shared experts") \
X(routing_capacity_factor, ROUTING, "capacity_factor", "routing.capacity_factor", DOUBLE, GT0, NULL, "expert capacity factor") \
X(routing_overflow, ROUTING, "overflow", "routing.overflow", ENUM, NONE, mcpp_enum_routing_overflow, "what happens to tokens over capacity") \
X(routing_groups,  ROUTING, "groups", "routing.groups", INT32, GE1, NULL, "expert groups of group-limited routing (absent: ungrouped)") \
X(routing_group_top_k, ROUTING, "group_top_k", "routing.group_top_k", INT32, GE1, NULL, "groups a token may route to under group-limited routing") \
X(routing_expert_precision, ROUTING, "expert_precision", "routing.expert_precision", STRING, NONE, NULL, "precision recipe of the expert GEMMs when it is not backend.precision's, e.g. fp8") \
X(compile_posture, COMPILE, "posture", "compile.posture", ENUM, NONE, mcpp_enum_compile_posture, "execution stance that gave the number") \
X(compile_warmup,  COMPILE, "warmup", "compile.warmup", ENUM, NONE, mcpp_enum_compile_warmup, "how compilation was warmed up") \
X(compile_graph_breaks, COMPILE, "graph_breaks", "compile.graph_breaks", INT32, GE0, NULL, "graph breaks observed") \
X(compile_disabled_regions, COMPILE, "disabled_regions", "compile.disabled_regions", SLIST, NONE, NULL, "paths excluded from compile") \
X(compile_compile_s, COMPILE, "compile_s", "compile.compile_s", DOUBLE, GE0, NULL, "seconds paid to compile") \
X(compile_cache_state, COMPILE, "cache_state", "compile.cache_state", ENUM, NONE, mcpp_enum_cache_state, "the compile cache when the run started: cold, warm or restored") \
X(compile_cache,   COMPILE, "cache", "compile.cache", STRING, NONE, NULL, "where the compile cache lives or its key, e.g. a directory or a remote cache name") \
X(backend_precision_requested, BACKEND_PRECISION, "requested", "backend.precision.requested", STRING, NONE, NULL, "precision recipe requested, e.g. bf16, bf16+fp8") \
X(backend_precision_observed, BACKEND_PRECISION, "observed", "backend.precision.observed", STRING, NONE, NULL, "precision recipe that ran") \
X(backend_attention_requested, BACKEND_ATTENTION, "requested", "backend.attention.requested", STRING, NONE, NULL, "attention backend requested") \
X(backend_attention_observed, BACKEND_ATTENTION, "observed", "backend.attention.observed", STRING, NONE, NULL, "attention backend that ran") \
X(backend_moe_requested, BACKEND_MOE, "requested", "backend.moe.requested", STRING, NONE, mcpp_enum_moe_request, "MoE lane requested (auto: the dispatcher chooses)") \
X(backend_moe_observed, BACKEND_MOE, "observed", "backend.moe.observed", STRING, NONE, mcpp_enum_moe_lane, "MoE lane that ran") \
X(backend_mamba_requested, BACKEND_MAMBA, "requested", "backend.mamba.requested", STRING, NONE, NULL, "Mamba backend requested") \
X(backend_mamba_observed, BACKEND_MAMBA, "observed", "backend.mamba.observed", STRING, NONE, NULL, "Mamba backend that ran") \
X(backend_recurrent_requested, BACKEND_RECURRENT, "requested", "backend.recurrent.requested", STRING, NONE, NULL, "recurrent backend requested") \
X(backend_recurrent_observed, BACKEND_RECURRENT, "observed", "backend.recurrent.observed", STRING, NONE, NULL, "recurrent backend that ran") \
X(backend_gemm_requested, BACKEND_GEMM, "requested", "backend.gemm.requested", STRING, NONE, NULL, "GEMM backend requested") \
X(backend_gemm_observed, BACKEND_GEMM, "observed", "backend.gemm.observed", STRING, NONE, NULL, "GEMM backend that ran") \
X(backend_fallbacks, BACKEND, "fallbacks", "backend.fallbacks", SLIST, NONE, NULL, "every fallback that fired, e.g. attention:flash->sdpa") \
X(backend_verification_status, BACKEND_VERIFICATION, "status", "backend.verification.status", ENUM, NONE, mcpp_enum_verification, "kernel output checked against a reference") \
X(backend_verification_max_rel_err, BACKEND_VERIFICATION, "max_rel_err", "backend.verification.max_rel_err", DOUBLE, GE0, NULL, "largest relative error against the reference") \
X(hardware_requested_accelerator, HARDWARE_REQUESTED, "accelerator", "hardware.requested.accelerator", STRING, NONE, NULL, "accelerator asked for") \
X(hardware_requested_count, HARDWARE_REQUESTED, "count", "hardware.requested.count", INT32, GE1, NULL, "accelerators asked for") \
X(hardware_requested_per_node, HARDWARE_REQUESTED, "per_node", "hardware.requested.per_node", INT32, GE1, NULL, "accelerators asked for per node") \
X(hardware_observed_accelerator, HARDWARE_OBSERVED, "accelerator", "hardware.observed.accelerator", STRING, NONE, NULL, "accelerator that ran, as the runtime reports it") \
X(hardware_observed_count, HARDWARE_OBSERVED, "count", "hardware.observed.count", INT32, GE0, NULL, "accelerators that ran") \
X(hardware_observed_per_node, HARDWARE_OBSERVED, "per_node", "hardware.observed.per_node", INT32, GE0, NULL, "accelerators that ran per node") \
X(hardware_observed_source, HARDWARE_OBSERVED, "source", "hardware.observed.source", ENUM, NONE, mcpp_enum_observed_source, "probed by the runtime or declared by a submitter") \
X(hardware_observed_memory_gib, HARDWARE_OBSERVED, "memory_gib", "hardware.observed.memory_gib", DOUBLE, GE0, NULL, "memory per accelerator (GiB)") \
X(hardware_observed_driver, HARDWARE_OBSERVED, "driver", "hardware.observed.driver", STRING, NONE, NULL, "driver version") \
X(hardware_observed_runtime, HARDWARE_OBSERVED, "runtime", "hardware.observed.runtime", STRING, NONE, NULL, "runtime version (CUDA, XLA...)") \
X(hardware_observed_threads, HARDWARE_OBSERVED, "threads", "hardware.observed.threads", INT32, GE1, NULL, "CPU threads the run's kernels used (the CPU path's execution resources; part of the lane)") \
X(hardware_host_cpu, HARDWARE_HOST, "cpu", "hardware.host.cpu", STRING, NONE, NULL, "host CPU model") \
X(hardware_host_cores, HARDWARE_HOST, "cores", "hardware.host.cores", INT32, GE1, NULL, "host CPU cores") \
X(topology_substrate, TOPOLOGY, "substrate", "topology.substrate", ENUM, NONE, mcpp_enum_substrate, "execution substrate") \
X(topology_nodes,  TOPOLOGY, "nodes", "topology.nodes", INT32, GE1, NULL, "nodes") \
X(topology_tp,     TOPOLOGY, "tp", "topology.tp", INT32, GE1, NULL, "tensor parallel degree") \
X(topology_pp,     TOPOLOGY, "pp", "topology.pp", INT32, GE1, NULL, "pipeline parallel degree") \
X(topology_vpp,    TOPOLOGY, "vpp", "topology.vpp", INT32, GE1, NULL, "virtual pipeline stages") \
X(topology_ep,     TOPOLOGY, "ep", "topology.ep", INT32, GE1, NULL, "expert parallel degree") \
X(topology_cp,     TOPOLOGY, "cp", "topology.cp", INT32, GE1, NULL, "context parallel degree") \
X(topology_dp,     TOPOLOGY, "dp", "topology.dp", INT32, GE1, NULL, "data parallel degree") \
X(topology_sp,     TOPOLOGY, "sp", "topology.sp", BOOL, NONE, NULL, "sequence parallelism on") \
X(topology_fsdp,   TOPOLOGY, "fsdp", "topology.fsdp", BOOL, NONE, NULL, "fully sharded data parallel on") \
X(launch_mtp_depth, LAUNCH, "mtp_depth", "launch.mtp_depth", INT32, GE0, NULL, "multi-token prediction depth") \
X(launch_cuda_graphs, LAUNCH, "cuda_graphs", "launch.cuda_graphs", ENUM, NONE, mcpp_enum_cuda_graphs, "CUDA graph capture: off, partial or full") \
X(launch_generated_args, LAUNCH, "generated_args", "launch.generated_args", SLIST, NONE, NULL, "translated framework arguments") \
X(launch_fixed_policy, LAUNCH, "fixed_policy", "launch.fixed_policy", OBJECT, NONE, NULL, "runtime policy pinned by the launcher") \
X(features,        ROOT, "features", "features", OBJECT, NONE, NULL, "named features in force: {name: true|false|string|number}") \
X(startup_state,   STARTUP, "state", "startup.state", ENUM, NONE, mcpp_enum_startup, "the starting line") \
X(metrics_primary, METRICS, "primary", "metrics.primary", STRING, NONE, NULL, "name of the headline metric") \
X(metrics_window_warmup_steps, METRICS_WINDOW, "warmup_steps", "metrics.window.warmup_steps", INT32, GE0, NULL, "steps before the measured window") \
X(metrics_window_measured_steps, METRICS_WINDOW, "measured_steps", "metrics.window.measured_steps", INT32, GE1, NULL, "steps in the measured window") \
X(metrics_window_recompiles, METRICS_WINDOW, "recompiles", "metrics.window.recompiles", INT32, GE0, NULL, "recompilations inside the measured window") \
X(metrics_window_graph_recaptures, METRICS_WINDOW, "graph_recaptures", "metrics.window.graph_recaptures", INT32, GE0, NULL, "CUDA graph captures inside the measured window") \
X(metrics_window_profiled_steps, METRICS_WINDOW, "profiled_steps", "metrics.window.profiled_steps", INT32, GE0, NULL, "measured steps under a profiler capture (cudaProfilerStart/Stop, torch.profiler): their times hold its overhead") \
X(metrics_window_began, METRICS_WINDOW, "began", "metrics.window.began", STRING, NONE, NULL, "RFC 3339 time the measured window began: the start of its capture (first measured step)") \
X(metrics_window_ended, METRICS_WINDOW, "ended", "metrics.window.ended", STRING, NONE, NULL, "RFC 3339 time the measured window ended: the end of its capture (last measured step, synchronised)") \
X(metrics_step_time_s_samples, METRICS_STEP_TIME, "samples", "metrics.step_time_s.samples", DLIST, GT0, NULL, "per-step seconds of the measured window") \
X(metrics_step_time_s_median, METRICS_STEP_TIME, "median", "metrics.step_time_s.median", DOUBLE, GT0, NULL, "median step seconds") \
X(metrics_step_time_s_p10, METRICS_STEP_TIME, "p10", "metrics.step_time_s.p10", DOUBLE, GT0, NULL, "10th percentile step seconds (linear interpolation)") \
X(metrics_step_time_s_p90, METRICS_STEP_TIME, "p90", "metrics.step_time_s.p90", DOUBLE, GT0, NULL, "90th percentile step seconds (linear interpolation)") \
X(metrics_tokens_per_s, METRICS, "tokens_per_s", "metrics.tokens_per_s", DOUBLE, GE0, NULL, "useful tokens per second") \
X(metrics_peak_memory_gib, METRICS, "peak_memory_gib", "metrics.peak_memory_gib", DOUBLE, GE0, NULL, "peak accelerator memory (GiB)") \
X(metrics_per_family_ms_A, METRICS_PER_FAMILY, "A", "metrics.per_family_ms.A", DOUBLE, GE0, NULL, "milliseconds per step in attention blocks") \
X(metrics_per_family_ms_M, METRICS_PER_FAMILY, "M", "metrics.per_family_ms.M", DOUBLE, GE0, NULL, "milliseconds per step in Mamba blocks") \
X(metrics_per_family_ms_E, METRICS_PER_FAMILY, "E", "metrics.per_family_ms.E", DOUBLE, GE0, NULL, "milliseconds per step in MoE blocks") \
X(metrics_per_family_ms_R, METRICS_PER_FAMILY, "R", "metrics.per_family_ms.R", DOUBLE, GE0, NULL, "milliseconds per step in recurrent blocks") \
X(metrics_goodput_allocated_s, METRICS_GOODPUT, "allocated_s", "metrics.goodput.allocated_s", DOUBLE, GE0, NULL, "seconds of allocated accelerator time") \
X(metrics_goodput_kernel_busy_s, METRICS_GOODPUT, "kernel_busy_s", "metrics.goodput.kernel_busy_s", DOUBLE, GE0, NULL, "seconds kernels were busy") \
X(metrics_goodput_useful_s, METRICS_GOODPUT, "useful_s", "metrics.goodput.useful_s", DOUBLE, GE0, NULL, "seconds of useful training work") \
X(metrics_goodput_badput_s_compile, METRICS_BADPUT, "compile", "metrics.goodput.badput_s.compile", DOUBLE, GE0, NULL, "seconds lost to compilation") \
X(metrics_goodput_badput_s_warmup, METRICS_BADPUT, "warmup", "metrics.goodput.badput_s.warmup", DOUBLE, GE0, NULL, "seconds lost to warmup") \
X(metrics_goodput_badput_s_data, METRICS_BADPUT, "data", "metrics.goodput.badput_s.data", DOUBLE, GE0, NULL, "seconds lost waiting for data") \
X(metrics_goodput_badput_s_checkpoint, METRICS_BADPUT, "checkpoint", "metrics.goodput.badput_s.checkpoint", DOUBLE, GE0, NULL, "seconds lost to checkpointing") \
X(metrics_goodput_badput_s_eval, METRICS_BADPUT, "eval", "metrics.goodput.badput_s.eval", DOUBLE, GE0, NULL, "seconds spent in evaluation") \
X(metrics_goodput_badput_s_idle, METRICS_BADPUT, "idle", "metrics.goodput.badput_s.idle", DOUBLE, GE0, NULL, "seconds idle") \
X(metrics_named,   METRICS, "named", "metrics.named", METRICS, NONE, NULL, "list of named metrics {name, unit, direction, value, aggregate, sample_kind, samples}") \
X(quality_metric,  QUALITY, "metric", "quality.metric", STRING, NONE, NULL, "quality metric trained to, e.g. eval_accuracy, log_perplexity") \
X(quality_target,  QUALITY, "target", "quality.target", DOUBLE, NONE, NULL, "target value of the quality metric") \
X(quality_achieved, QUALITY, "achieved", "quality.achieved", DOUBLE, NONE, NULL, "value reached") \
X(status_outcome,  STATUS, "outcome", "status.outcome", ENUM, NONE, mcpp_enum_outcome, "how the run ended") \
X(status_stability, STATUS, "stability", "status.stability", ENUM, NONE, mcpp_enum_stability, "what the author claims about the lane") \
X(status_caveats,  STATUS, "caveats", "status.caveats", SLIST, NONE, NULL, "caveats in plain words") \
X(status_blocker,  STATUS, "blocker", "status.blocker", STRING, NONE, NULL, "the next blocker when not stable") \
X(artifacts,       ROOT, "artifacts", "artifacts", ARTIFACTS, NONE, NULL, "list of {kind, uri}: trace, report, log") \
X(extra,           ROOT, "extra", "extra", OBJECT, NONE, NULL, "anything else; kept and round-tripped, never compared by default")

/* Sections in depth-first order: X(ID, PARENT, "name", "path", FIRST_FIELD, LAST_FIELD).
 * FIRST/LAST bound every field under the section (descendants included). */
#define MCPP_SCHEMA_SECTIONS(X) \
X(ROOT, ROOT, "", "", schema, extra) \
X(SOURCE, ROOT, "source", "source", source_tool, source_not_recorded) \
X(BENCHMARK, ROOT, "benchmark", "benchmark", benchmark_suite, benchmark_division) \
X(SOFTWARE, ROOT, "software", "software", software_framework, software_components) \
X(RUN, ROOT, "run", "run", run_seed, run_position_tokens_seen) \
X(RUN_POSITION, RUN, "position", "run.position", run_position_step, run_position_tokens_seen) \
X(LANE, ROOT, "lane", "lane", lane_name, lane_blocks_R) \
X(LANE_BLOCKS, LANE, "blocks", "lane.blocks", lane_blocks_A, lane_blocks_R) \
X(WORKLOAD, ROOT, "workload", "workload", workload_seq_len, workload_data_dataset) \
X(WORKLOAD_DATA, WORKLOAD, "data", "workload.data", workload_data_path, workload_data_dataset) \
X(ROUTING, ROOT, "routing", "routing", routing_mode, routing_expert_precision) \
X(COMPILE, ROOT, "compile", "compile", compile_posture, compile_cache) \
X(BACKEND, ROOT, "backend", "backend", backend_precision_requested, backend_verification_max_rel_err) \
X(BACKEND_PRECISION, BACKEND, "precision", "backend.precision", backend_precision_requested, backend_precision_observed) \
X(BACKEND_ATTENTION, BACKEND, "attention", "backend.attention", backend_attention_requested, backend_attention_observed) \
X(BACKEND_MOE, BACKEND, "moe", "backend.moe", backend_moe_requested, backend_moe_observed) \
X(BACKEND_MAMBA, BACKEND, "mamba", "backend.mamba", backend_mamba_requested, backend_mamba_observed) \
X(BACKEND_RECURRENT, BACKEND, "recurrent", "backend.recurrent", backend_recurrent_requested, backend_recurrent_observed) \
X(BACKEND_GEMM, BACKEND, "gemm", "backend.gemm", backend_gemm_requested, backend_gemm_observed) \
X(BACKEND_VERIFICATION, BACKEND, "verification", "backend.verification", backend_verification_status, backend_verification_max_rel_err) \
X(HARDWARE, ROOT, "hardware", "hardware", hardware_requested_accelerator, hardware_host_cores) \
X(HARDWARE_REQUESTED, HARDWARE, "requested", "hardware.requested", hardware_requested_accelerator, hardware_requested_per_node) \
X(HARDWARE_OBSERVED, HARDWARE, "observed", "hardware.observed", hardware_observed_accelerator, hardware_observed_threads) \
X(HARDWARE_HOST, HARDWARE, "host", "hardware.host", hardware_host_cpu, hardware_host_cores) \
X(TOPOLOGY, ROOT, "topology", "topology", topology_substrate, topology_fsdp) \
X(LAUNCH, ROOT, "launch", "launch", launch_mtp_depth, launch_fixed_policy) \
X(STARTUP, ROOT, "startup", "startup", startup_state, startup_state) \
X(METRICS, ROOT, "metrics", "metrics", metrics_primary, metrics_named) \
X(METRICS_WINDOW, METRICS, "window", "metrics.window", metrics_window_warmup_steps, metrics_window_ended) \
X(METRICS_STEP_TIME, METRICS, "step_time_s", "metrics.step_time_s", metrics_step_time_s_samples, metrics_step_time_s_p90) \
X(METRICS_PER_FAMILY, METRICS, "per_family_ms", "metrics.per_family_ms", metrics_per_family_ms_A, metrics_per_family_ms_R) \
X(METRICS_GOODPUT, METRICS, "goodput", "metrics.goodput", metrics_goodput_allocated_s, metrics_goodput_badput_s_idle) \
X(METRICS_BADPUT, METRICS_GOODPUT, "badput_s", "metrics.goodput.badput_s", metrics_goodput_badput_s_compile, metrics_goodput_badput_s_idle) \
X(QUALITY, ROOT, "quality", "quality", quality_metric, quality_achieved) \
X(STATUS, ROOT, "status", "status", status_outcome, status_blocker)

/* Block families of lane.pattern, in the order reports list them:
 * X(LETTER, "name", "backend section"). The letter is what lane.pattern
 * uses; the backend section records the requested and observed kernel for
 * blocks of that family (routing.* also belongs to E). */
#define MCPP_BLOCK_FAMILIES(X) \
X('A', "attention", "backend.attention") \
X('E', "moe", "backend.moe") \
X('M', "mamba", "backend.mamba") \
X('R', "recurrent", "backend.recurrent")
/* clang-format on */
