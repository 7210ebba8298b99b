/*
 * test_core_schema.c — the schema table is consistent: the generated key
 * index (schema_index.h) agrees with a plain scan of the table, every section
 * range covers exactly its fields, paths are unique and dotted correctly.
 */
#include <stdio.h>
#include <string.h>

#include "policy/dimension_table.h"
#include "receipt/schema.h"
#include "receipt/load_ctx.h"
#include "test_util.h"

TEST(generated_index_agrees_with_a_scan_for_every_key)
{
    for (int s = 0; s < MCPP_SECTION_COUNT; s++) {
        for (int f = 0; f < MCPP_FIELD_COUNT; f++) {
            int a_field, a_sec, b_field, b_sec;
            const char *name = mcpp_schema_entries[f].name;
            int a = mcpp_schema_lookup(s, name, &a_field, &a_sec);
            int b = mcpp_schema_lookup_scan(s, name, &b_field, &b_sec);
            CHECK(a == b && a_field == b_field && a_sec == b_sec);
        }
        for (int t = 1; t < MCPP_SECTION_COUNT; t++) {
            int a_field, a_sec, b_field, b_sec;
            const char *name = mcpp_schema_sections[t].name;
            int a = mcpp_schema_lookup(s, name, &a_field, &a_sec);
            int b = mcpp_schema_lookup_scan(s, name, &b_field, &b_sec);
            CHECK(a == b && a_field == b_field && a_sec == b_sec);
        }
        int field, sec;
        CHECK_INT_EQ(mcpp_schema_lookup(s, "not_a_field", &field, &sec), -1);
        CHECK_INT_EQ(mcpp_schema_lookup(s, "", &field, &sec), -1);
    }
}

TEST(section_ranges_cover_their_fields_in_depth_first_order)
{
    for (int f = 0; f < MCPP_FIELD_COUNT; f++) {
        for (int s = mcpp_schema_entries[f].section; s != MCPP_S_ROOT;
             s = mcpp_schema_sections[s].parent) {
            CHECK(f >= mcpp_schema_sections[s].first_field);
            CHECK(f <= mcpp_schema_sections[s].last_field);
        }
        /* the path is the section path plus the name */
        char expected[256];
        const char *sp = mcpp_schema_sections[mcpp_schema_entries[f].section].path;
        snprintf(expected, sizeof expected, "%s%s%s", sp, *sp ? "." : "",
                 mcpp_schema_entries[f].name);
        CHECK_STR_EQ(mcpp_schema_entries[f].info.path, expected);
        for (int g = 0; g < f; g++)
            CHECK(strcmp(mcpp_schema_entries[f].info.path, mcpp_schema_entries[g].info.path) != 0);
    }
    for (int s = 1; s < MCPP_SECTION_COUNT; s++) {
        int first = mcpp_schema_sections[s].first_field, last = mcpp_schema_sections[s].last_field;
        for (int f = first; f <= last; f++) {
            int in = 0;
            for (int t = mcpp_schema_entries[f].section; t != MCPP_S_ROOT;
                 t = mcpp_schema_sections[t].parent)
                if (t == s)
                    in = 1;
            CHECK(in);
        }
    }
}

TEST(schema_covers_the_design_fields)
{
    static const char *const must[] = {
        "lane.pattern", "routing.top_k", "backend.moe.observed", "backend.gemm.requested",
        "metrics.per_family_ms.R", "metrics.goodput.badput_s.idle", "launch.fixed_policy",
        "hardware.observed.runtime", "topology.fsdp", "status.blocker", "artifacts", "extra"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        CHECK(mcpp_schema_field_id(must[i]) >= 0);
    CHECK_INT_EQ(mcpp_schema_field_count(), MCPP_FIELD_COUNT);
    const mcpp_field_info *posture = mcpp_schema_field_at(mcpp_schema_field_id("compile.posture"));
    CHECK(posture && posture->type == MCPP_TYPE_ENUM && strcmp(posture->enum_names[4], "graph_replay") == 0 &&
          posture->enum_names[5] == NULL);
}

/* mcpp_schema1_lacks is written as id ranges over the field list; a field
 * inserted inside a range would silently join it. The fields of schema 1 are
 * frozen, so every other field must be one schema 1 lacks. */
TEST(schema1_lacks_exactly_the_fields_schema_1_did_not_have)
{
    static const char *const v1[] = {
        "schema", "id", "created_at", "source.tool", "source.git_commit", "source.command",
        "source.host", "lane.name", "lane.family", "lane.pattern", "lane.depth", "lane.params_total",
        "lane.params_active", "workload.seq_len", "workload.micro_batch", "workload.global_batch",
        "workload.tokens_per_step", "workload.useful_tokens_per_step", "workload.data.path",
        "workload.data.dataset", "routing.mode", "routing.score", "routing.num_experts",
        "routing.top_k", "routing.shared_experts", "routing.capacity_factor", "routing.overflow",
        "compile.posture", "compile.warmup", "compile.graph_breaks", "compile.disabled_regions",
        "compile.compile_s", "backend.precision.requested", "backend.precision.observed",
        "backend.attention.requested", "backend.attention.observed", "backend.moe.requested",
        "backend.moe.observed", "backend.mamba.requested", "backend.mamba.observed",
        "backend.recurrent.requested", "backend.recurrent.observed", "backend.gemm.requested",
        "backend.gemm.observed", "backend.fallbacks", "backend.verification.status",
        "backend.verification.max_rel_err", "hardware.requested.accelerator",
        "hardware.requested.count", "hardware.observed.accelerator", "hardware.observed.count",
        "hardware.observed.memory_gib", "hardware.observed.driver", "hardware.observed.runtime",
        "hardware.host.cpu", "hardware.host.cores", "topology.substrate", "topology.nodes",
        "topology.tp", "topology.pp", "topology.vpp", "topology.ep", "topology.cp", "topology.dp",
        "topology.sp", "topology.fsdp", "launch.mtp_depth", "launch.generated_args",
        "launch.fixed_policy", "startup.state", "metrics.window.warmup_steps",
        "metrics.window.measured_steps", "metrics.step_time_s.samples", "metrics.step_time_s.median",
        "metrics.step_time_s.p10", "metrics.step_time_s.p90", "metrics.tokens_per_s",
        "metrics.peak_memory_gib", "metrics.per_family_ms.A", "metrics.per_family_ms.M",
        "metrics.per_family_ms.E", "metrics.per_family_ms.R", "metrics.goodput.allocated_s",
        "metrics.goodput.kernel_busy_s", "metrics.goodput.useful_s", "metrics.goodput.badput_s.compile",
        "metrics.goodput.badput_s.warmup", "metrics.goodput.badput_s.data",
        "metrics.goodput.badput_s.checkpoint", "metrics.goodput.badput_s.eval",
        "metrics.goodput.badput_s.idle", "status.outcome", "status.stability", "status.caveats",
        "status.blocker", "artifacts", "extra"};
    for (int id = 0; id < MCPP_FIELD_COUNT; id++) {
        const char *path = mcpp_schema_entries[id].info.path;
        int in_v1 = 0;
        for (size_t i = 0; i < sizeof v1 / sizeof v1[0]; i++) in_v1 |= strcmp(v1[i], path) == 0;
        if (mcpp_schema1_lacks(id) == in_v1) fprintf(stderr, "schema 1 %s %s\n", in_v1 ? "had" : "lacked", path);
        CHECK_INT_EQ(mcpp_schema1_lacks(id), !in_v1);
    }
}

/* The schema a path (or "section.*") first appears in: 1 or 2; 0 when no field matches. */
static int since_of(const char *path)
{
    size_t n = strlen(path);
    int since = 0, any = n >= 2 && strcmp(path + n - 2, ".*") == 0;
    for (int id = 0; id < MCPP_FIELD_COUNT; id++) {
        const char *p = mcpp_schema_entries[id].info.path;
        if (any ? strncmp(p, path, n - 1) != 0 : strcmp(p, path) != 0) continue;
        int s = mcpp_schema1_lacks(id) ? 2 : 1;
        if (!since || s < since) since = s;
    }
    return since;
}

typedef struct dim_row {
    const char *name;
    int since;
    const char *fields[8];
    const char *keys[16];
} dim_row;
#define X_DIM(name, role, kind, applies, absent, since, fields, keys, note) {#name, since, fields, keys},
static const dim_row DIMS[] = {MCPP_DEFAULT_DIMENSIONS(X_DIM)};
#undef X_DIM

/* The dimension table's "since schema" column and every path it names agree
 * with the schema: a field that is not there, or a wrong column, fails. */
TEST(dimension_table_paths_exist_and_since_matches_the_schema)
{
    for (size_t d = 0; d < sizeof DIMS / sizeof DIMS[0]; d++) {
        int since = 0;
        for (size_t i = 0; i < 8 && DIMS[d].fields[i]; i++) {
            int s = since_of(DIMS[d].fields[i]);
            if (!s) fprintf(stderr, "dimension %s: no field %s\n", DIMS[d].name, DIMS[d].fields[i]);
            CHECK(s > 0);
            if (s && (!since || s < since)) since = s;
        }
        if (since != DIMS[d].since) fprintf(stderr, "dimension %s: since %d, its fields say %d\n", DIMS[d].name, DIMS[d].since, since);
        CHECK_INT_EQ(DIMS[d].since, since);
        for (size_t k = 0; k + 1 < 16 && DIMS[d].keys[k]; k += 2) CHECK(mcpp_schema_field_id(DIMS[d].keys[k + 1]) >= 0);
    }
}

static const char COUNTS[] = "{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"params_total\": 1099511627776, "
                             "\"heads\": 64}, \"run\": {\"position\": {\"step\": 2147483647, "
                             "\"tokens_seen\": 1099511627776}}, \"compile\": {\"cache\": \"/var/cache/inductor\"}}";

/* Counts stored in 32 bits (INT32) take up to 2^31 - 1 and refuse more with
 * the field's path, from a file and from the builder; INT fields keep 2^53. */
TEST(a_count_beyond_32_bits_is_refused_with_its_path)
{
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, NULL, COUNTS, strlen(COUNTS), MCPP_FORMAT_JSON, "t", NULL), MCPP_OK);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(r, "run.position.step", &v), MCPP_OK);
    CHECK(v.integer == 2147483647);
    CHECK_INT_EQ(mcpp_receipt_get(r, "run.position.tokens_seen", &v), MCPP_OK);
    CHECK(v.integer == 1099511627776LL);
    CHECK_INT_EQ(mcpp_receipt_get(r, "lane.heads", &v), MCPP_OK);
    CHECK(v.integer == 64);
    /* JSON and YAML round trips keep every new field */
    char *json = NULL, *yaml = NULL;
    CHECK_INT_EQ(mcpp_receipt_write(&json, NULL, r, MCPP_FORMAT_JSON), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_write(&yaml, NULL, r, MCPP_FORMAT_YAML), MCPP_OK);
    mcpp_receipt *back = NULL;
    if (yaml) CHECK_INT_EQ(mcpp_receipt_load_buffer(&back, NULL, yaml, strlen(yaml), MCPP_FORMAT_YAML, "y", NULL), MCPP_OK);
    char *again = NULL;
    if (back) CHECK_INT_EQ(mcpp_receipt_write(&again, NULL, back, MCPP_FORMAT_JSON), MCPP_OK);
    if (json && again) CHECK_STR_EQ(again, json);
    if (json) CHECK_CONTAINS(json, "\"cache\": \"/var/cache/inductor\"");
    mcpp_free(json), mcpp_free(yaml), mcpp_free(again);
    mcpp_receipt_free(back);
    mcpp_receipt_free(r);

    static const char big[] = "{\"schema\": \"mcpp.receipt/2\", \"topology\": {\"tp\": 2147483648}}";
    mcpp_report *rep = NULL;
    CHECK(mcpp_receipt_load_buffer(&r, &rep, big, strlen(big), MCPP_FORMAT_JSON, "t", NULL) != MCPP_OK);
    CHECK(r == NULL);
    CHECK_STR_EQ(mcpp_error_last()->field, "topology.tp");
    CHECK_CONTAINS(mcpp_error_last()->message, "within +-2147483647");
    mcpp_report_free(rep);

    mcpp_builder *b = NULL;
    CHECK_INT_EQ(mcpp_builder_new(&b), MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_set_int(b, "lane.depth", 2147483648LL), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "within +-2147483647");
    CHECK_INT_EQ(mcpp_builder_set_int(b, "lane.params_total", 1099511627776LL), MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_set_int(b, "run.position.step", 2147483647LL), MCPP_OK);
    mcpp_builder_free(b);
}

TEST(suggestions_find_near_misses_only)
{
    CHECK_STR_EQ(mcpp_schema_suggest(MCPP_S_ROUTING, "topk"), "top_k");
    CHECK_STR_EQ(mcpp_schema_suggest(MCPP_S_ROOT, "metric"), "metrics");
    CHECK(mcpp_schema_suggest(MCPP_S_ROUTING, "completely_different") == NULL);
}

int main(void)
{
    RUN(generated_index_agrees_with_a_scan_for_every_key);
    RUN(section_ranges_cover_their_fields_in_depth_first_order);
    RUN(schema_covers_the_design_fields);
    RUN(suggestions_find_near_misses_only);
    RUN(schema1_lacks_exactly_the_fields_schema_1_did_not_have);
    RUN(a_count_beyond_32_bits_is_refused_with_its_path);
    RUN(dimension_table_paths_exist_and_since_matches_the_schema);
    TEST_MAIN_END();
}
