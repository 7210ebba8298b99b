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

/* Fields schema 1 does not have. */
int mcpp_schema1_lacks(int id)
{
    return (id >= MCPP_F_source_not_recorded && id <= MCPP_F_run_position_tokens_seen) ||
           id == MCPP_F_lane_d_model || id == MCPP_F_lane_heads || id == MCPP_F_compile_cache_state ||
           id == MCPP_F_compile_cache || (id >= MCPP_F_lane_blocks_A && id <= MCPP_F_lane_blocks_R) || id == MCPP_F_hardware_requested_per_node ||
           id == MCPP_F_hardware_observed_per_node || id == MCPP_F_hardware_observed_source ||
           id == MCPP_F_launch_cuda_graphs || id == MCPP_F_features ||
           id == MCPP_F_metrics_primary || id == MCPP_F_metrics_named ||
           (id >= MCPP_F_quality_metric && id <= MCPP_F_quality_achieved);
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
    const mcpp_fields *f = &r->f;
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
