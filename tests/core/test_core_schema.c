/*
 * test_core_schema.c — the schema table is consistent: the generated key
 * index (schema_index.h) agrees with a plain scan of the table, every section
 * range covers exactly its fields, paths are unique and dotted correctly.
 */
#include <stdio.h>
#include <string.h>

#include "receipt/receipt_internal.h"
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
    TEST_MAIN_END();
}
