/*
 * mlperf_system.c — an MLPerf system description (<submitter>/systems/
 * <system>.json, or a :::SYSJSON log line) onto a receipt: what the submitter
 * declares about hardware and software. Values come as strings or numbers
 * ("1" and 1.0 alike); empty strings say nothing and are dropped; keys the
 * receipt has no field for are kept under extra.
 */
#include <stdio.h>
#include <string.h>

#include "import/mlperf_internal.h"
#include "util/error_internal.h"

/* Keys a receipt field takes; every other non-empty key goes to extra. */
static const char *const MAPPED[] = {
    "submitter", "division", "number_of_nodes", "accelerators_per_node", "accelerator_model_name",
    "accelerator_memory_capacity", "host_processor_model_name", "framework",
    "other_software_stack", "operating_system"};

static const cJSON *item(const mcpp_import_json *sys, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(sys->root, key);
}

static int set_string_of(mcpp_builder *b, const char *path, const mcpp_import_json *sys,
                         const char *key)
{
    const char *s = mcpp_import_string(item(sys, key));
    return s ? mcpp_builder_set_string(b, path, s) : MCPP_OK;
}

/* A whole count ("8", 8, 8.0); absent, "" or 0 (a CPU-only inference system's
 * accelerators) is 0, which sets nothing; anything else an error. */
static int count_of(int64_t *out, const mcpp_import_json *sys, const char *key)
{
    const cJSON *v = item(sys, key);
    *out = 0;
    if (!v || cJSON_IsNull(v) || (cJSON_IsString(v) && !mcpp_import_string(v)))
        return MCPP_OK;
    if (!mcpp_import_integer(out, v) || *out < 0)
        return mcpp_import_json_error(sys, v, "type", key, "expected a positive whole number or 0");
    return MCPP_OK;
}

/* "80 GB" / "80GB" / "80 GiB": accelerator memory as the vendor states it (HBM sizes
 * are binary: an "80 GB" H100 has 80 GiB). Other units are left to extra. */
static int memory_gib(double *out, const cJSON *v)
{
    const char *s = mcpp_import_string(v);
    char unit[8] = "";
    return s && sscanf(s, "%lf %7s", out, unit) == 2 && *out > 0 &&
           (strcmp(unit, "GB") == 0 || strcmp(unit, "GiB") == 0);
}

/* other_software_stack is an object, or (some submitters) a list of objects. */
static int map_software_stack(mcpp_builder *b, const mcpp_import_json *sys)
{
    const cJSON *stack = item(sys, "other_software_stack");
    cJSON *components = cJSON_CreateObject();
    if (!components)
        return mcpp_error_nomem();
    int rc = MCPP_OK;
    const cJSON *parts = cJSON_IsArray(stack) ? stack->child : stack;
    for (; rc == MCPP_OK && parts; parts = cJSON_IsArray(stack) ? parts->next : NULL) {
        for (const cJSON *c = cJSON_IsObject(parts) ? parts->child : NULL; rc == MCPP_OK && c; c = c->next) {
            const char *s = mcpp_import_string(c);
            if (!s && !cJSON_IsNumber(c))
                continue;
            if (s && strcmp(c->string, "cuda_driver_version") == 0)
                rc = mcpp_builder_set_string(b, "hardware.observed.driver", s);
            else if (s && strcmp(c->string, "cuda_version") == 0)
                rc = mcpp_builder_set_string(b, "hardware.observed.runtime", s);
            else if (!cJSON_HasObjectItem(components, c->string))
                cJSON_AddItemToObject(components, c->string, cJSON_Duplicate(c, 0));
        }
    }
    const char *os = mcpp_import_string(item(sys, "operating_system"));
    if (os && !cJSON_HasObjectItem(components, "operating_system"))
        cJSON_AddStringToObject(components, "operating_system", os);
    if (rc == MCPP_OK && cJSON_GetArraySize(components) > 0)
        rc = mcpp_import_set_json(b, "software.components", components);
    cJSON_Delete(components);
    return rc;
}

static int map_hardware(mcpp_builder *b, cJSON *extra, const mcpp_import_json *sys)
{
    int64_t nodes, per_node;
    int rc = count_of(&nodes, sys, "number_of_nodes");
    if (rc == MCPP_OK)
        rc = count_of(&per_node, sys, "accelerators_per_node");
    if (rc == MCPP_OK && nodes > 0)
        rc = mcpp_builder_set_int(b, "topology.nodes", nodes);
    if (rc == MCPP_OK && per_node > 0)
        rc = mcpp_builder_set_int(b, "hardware.observed.per_node", per_node);
    if (rc == MCPP_OK && per_node > 0 && nodes > 0)
        rc = mcpp_builder_set_int(b, "hardware.observed.count", per_node * nodes);
    if (rc == MCPP_OK && mcpp_import_string(item(sys, "accelerator_model_name"))) {
        rc = set_string_of(b, "hardware.observed.accelerator", sys, "accelerator_model_name");
        if (rc == MCPP_OK)
            rc = mcpp_builder_set_string(b, "hardware.observed.source", "declared");
    }
    double gib;
    const cJSON *mem = item(sys, "accelerator_memory_capacity");
    if (rc == MCPP_OK && memory_gib(&gib, mem))
        rc = mcpp_builder_set_double(b, "hardware.observed.memory_gib", gib);
    else if (mcpp_import_string(mem))
        cJSON_AddItemToObject(extra, "accelerator_memory_capacity", cJSON_Duplicate(mem, 0));
    if (rc == MCPP_OK)
        rc = set_string_of(b, "hardware.host.cpu", sys, "host_processor_model_name");
    return rc;
}

int mcpp_mlperf_map_system(mcpp_builder *b, cJSON *extra, const mcpp_import_json *sys,
                           int division_from_log)
{
    if (!cJSON_IsObject(sys->root))
        return mcpp_import_json_error(sys, sys->root, "type", NULL,
                                      "expected an MLPerf system description (a JSON object)");
    int rc = map_hardware(b, extra, sys);
    if (rc == MCPP_OK)
        rc = set_string_of(b, "benchmark.submitter", sys, "submitter");
    if (rc == MCPP_OK && !division_from_log)
        rc = set_string_of(b, "benchmark.division", sys, "division");
    else if (mcpp_import_string(item(sys, "division")))
        cJSON_AddItemToObject(extra, "division", cJSON_Duplicate(item(sys, "division"), 0));
    if (rc == MCPP_OK)
        rc = set_string_of(b, "software.framework", sys, "framework");
    if (rc == MCPP_OK)
        rc = map_software_stack(b, sys);
    for (const cJSON *c = sys->root->child; rc == MCPP_OK && c; c = c->next)
        if (!mcpp_import_is_one_of(c->string, MAPPED, sizeof MAPPED / sizeof MAPPED[0]) && !cJSON_IsNull(c) &&
            !(cJSON_IsString(c) && !mcpp_import_string(c)))
            cJSON_AddItemToObject(extra, c->string, cJSON_Duplicate(c, 1));
    return rc;
}
