/*
 * schema_v1.c — the previous schema, mcpp.receipt/1: reading it (the parsed
 * tree is rewritten into the layout of schema 2 before binding, so one binder
 * serves both) and checking that a receipt fits it before it is written in
 * that layout (`convert --schema 1`).
 *
 * Schema 2 is schema 1 plus new fields, with one move: backend.precision was
 * one string (the precision that ran) and is now the section
 * backend.precision {requested, observed}.
 */
#include <string.h>

#include "util/error_internal.h"
#include "receipt/cjson_inline.h"
#include "receipt/load_ctx.h"
#include "receipt/schema.h"

int mcpp_schema1_upgrade(mcpp_load_ctx *ctx, cJSON *root)
{
    if (!root || !mcpp_cj_is_object(root))
        return 0;
    cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!schema || !mcpp_cj_is_string(schema) || strcmp(schema->valuestring, MCPP_SCHEMA_ID_V1) != 0)
        return 0;
    if (!cJSON_SetValuestring(schema, MCPP_SCHEMA_ID))
        return -1;
    ctx->schema_version = 1;
    cJSON *backend = cJSON_GetObjectItemCaseSensitive(root, "backend");
    cJSON *precision = backend && mcpp_cj_is_object(backend)
                           ? cJSON_GetObjectItemCaseSensitive(backend, "precision")
                           : NULL;
    if (precision && mcpp_cj_is_string(precision)) {
        cJSON *section = cJSON_CreateObject();
        if (!section)
            return -1;
        if (!cJSON_AddStringToObject(section, "observed", precision->valuestring) ||
            !cJSON_ReplaceItemInObjectCaseSensitive(backend, "precision", section)) {
            cJSON_Delete(section);
            return -1;
        }
    }
    mcpp_schema1_upgrade_warning(ctx);
    return 0;
}

void mcpp_schema1_upgrade_warning(mcpp_load_ctx *ctx)
{
    mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "schema", "schema", 0,
                     "read as %s and upgraded to %s in memory (backend.precision is now "
                     "backend.precision.observed); write the receipt again to store schema 2",
                     MCPP_SCHEMA_ID_V1, MCPP_SCHEMA_ID);
}

/* The fields of schema 1, frozen: every other field is new in schema 2, so
 * adding a field to the schema never touches this file. (A test checks this
 * list against schema 1's paths.) */
#define MCPP_SCHEMA1_FIELDS(X) \
    X(schema) \
    X(id) \
    X(created_at) \
    X(source_tool) X(source_git_commit) X(source_command) X(source_host) \
    X(lane_name) X(lane_family) X(lane_pattern) X(lane_depth) X(lane_params_total) X(lane_params_active) \
    X(workload_seq_len) X(workload_micro_batch) X(workload_global_batch) X(workload_tokens_per_step) \
    X(workload_useful_tokens_per_step) X(workload_data_path) X(workload_data_dataset) \
    X(routing_mode) X(routing_score) X(routing_num_experts) X(routing_top_k) X(routing_shared_experts) \
    X(routing_capacity_factor) X(routing_overflow) \
    X(compile_posture) X(compile_warmup) X(compile_graph_breaks) X(compile_disabled_regions) \
    X(compile_compile_s) \
    X(backend_precision_requested) X(backend_precision_observed) X(backend_attention_requested) \
    X(backend_attention_observed) X(backend_moe_requested) X(backend_moe_observed) X(backend_mamba_requested) \
    X(backend_mamba_observed) X(backend_recurrent_requested) X(backend_recurrent_observed) \
    X(backend_gemm_requested) X(backend_gemm_observed) X(backend_fallbacks) X(backend_verification_status) \
    X(backend_verification_max_rel_err) \
    X(hardware_requested_accelerator) X(hardware_requested_count) X(hardware_observed_accelerator) \
    X(hardware_observed_count) X(hardware_observed_memory_gib) X(hardware_observed_driver) \
    X(hardware_observed_runtime) X(hardware_host_cpu) X(hardware_host_cores) \
    X(topology_substrate) X(topology_nodes) X(topology_tp) X(topology_pp) X(topology_vpp) X(topology_ep) \
    X(topology_cp) X(topology_dp) X(topology_sp) X(topology_fsdp) \
    X(launch_mtp_depth) X(launch_generated_args) X(launch_fixed_policy) \
    X(startup_state) \
    X(metrics_window_warmup_steps) X(metrics_window_measured_steps) X(metrics_step_time_s_samples) \
    X(metrics_step_time_s_median) X(metrics_step_time_s_p10) X(metrics_step_time_s_p90) X(metrics_tokens_per_s) \
    X(metrics_peak_memory_gib) X(metrics_per_family_ms_A) X(metrics_per_family_ms_M) X(metrics_per_family_ms_E) \
    X(metrics_per_family_ms_R) X(metrics_goodput_allocated_s) X(metrics_goodput_kernel_busy_s) \
    X(metrics_goodput_useful_s) X(metrics_goodput_badput_s_compile) X(metrics_goodput_badput_s_warmup) \
    X(metrics_goodput_badput_s_data) X(metrics_goodput_badput_s_checkpoint) X(metrics_goodput_badput_s_eval) \
    X(metrics_goodput_badput_s_idle) \
    X(status_outcome) X(status_stability) X(status_caveats) X(status_blocker) \
    X(artifacts) \
    X(extra)
#define V1_HAS(id) [MCPP_F_##id] = 1,
static const unsigned char SCHEMA1_HAS[MCPP_FIELD_COUNT] = {MCPP_SCHEMA1_FIELDS(V1_HAS)};
#undef V1_HAS

/* Fields schema 1 does not have. */
int mcpp_schema1_lacks(int id)
{
    return !SCHEMA1_HAS[id];
}

#define V1_REFUSE(path, ...)                                                                  \
    mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_SCHEMA, NULL, path, 0, 0, __VA_ARGS__)

int mcpp_schema1_check(const mcpp_receipt *r)
{
    /* lane.blocks is derived from pattern and depth (validation makes them
     * agree), so writing schema 1 leaves it out without losing anything */
    for (int id = 0; id < MCPP_FIELD_COUNT; id++)
        if (mcpp_present(r, id) && mcpp_schema1_lacks(id) &&
            !(id >= MCPP_F_lane_blocks_A && id <= MCPP_F_lane_blocks_R))
            return V1_REFUSE(mcpp_schema_entries[id].info.path,
                             "%s has no place in schema %s; keep this receipt in %s",
                             mcpp_schema_entries[id].info.path, MCPP_SCHEMA_ID_V1,
                             MCPP_SCHEMA_ID);
    mcpp_receipt whole; /* a packed receipt keeps its struct compact (layout.h) */
    mcpp_receipt_expand(&whole, r);
    const mcpp_fields *f = &whole.f;
    if (mcpp_present(r, MCPP_F_backend_precision_requested) &&
        (!mcpp_present(r, MCPP_F_backend_precision_observed) ||
         strcmp(f->backend_precision_requested, f->backend_precision_observed) != 0))
        return V1_REFUSE("backend.precision.requested",
                         "backend.precision.requested differs from the observed precision; "
                         "schema %s has one precision", MCPP_SCHEMA_ID_V1);
    static const char *const v1_precisions[] = {"fp32", "bf16", "fp16", "fp8", NULL};
    if (mcpp_present(r, MCPP_F_backend_precision_observed) &&
        mcpp_enum_index(v1_precisions, f->backend_precision_observed) < 0)
        return V1_REFUSE("backend.precision.observed",
                         "precision \"%s\" is not in schema %s (fp32, bf16, fp16, fp8)",
                         f->backend_precision_observed, MCPP_SCHEMA_ID_V1);
    if (mcpp_present(r, MCPP_F_topology_substrate) && f->topology_substrate > 2)
        return V1_REFUSE("topology.substrate",
                         "substrate \"%s\" is not in schema %s (cuda, tpu, cpu)",
                         mcpp_schema_entries[MCPP_F_topology_substrate]
                             .info.enum_names[f->topology_substrate],
                         MCPP_SCHEMA_ID_V1);
    return 0;
}
