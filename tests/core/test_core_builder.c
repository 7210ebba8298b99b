/*
 * test_core_builder.c — emitting a receipt field by field (setters fail at
 * the line that made the mistake, finish() derives statistics and validates
 * like loading), and reading fields back by path, by id and inside extra.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mcpp_receipts/field_paths.h>

#include "core_test_helpers.h"
#include "test_util.h"

static mcpp_builder *nam56r_builder(void)
{
    mcpp_builder *b = NULL;
    if (mcpp_builder_new(&b) != MCPP_OK)
        return NULL;
    mcpp_builder_set_string(b, "created_at", "2026-11-22T01:00:00Z");
    mcpp_builder_set_string(b, "lane.family", "NAM56R");
    mcpp_builder_set_string(b, "lane.pattern", "AEMEAEMEAEMR");
    mcpp_builder_set_int(b, "lane.depth", 52);
    mcpp_builder_set_string(b, "routing.mode", "token_choice");
    mcpp_builder_set_int(b, "routing.top_k", 8);
    mcpp_builder_set_double(b, "routing.capacity_factor", 1.25);
    mcpp_builder_set_string(b, "backend.moe.requested", "jagged");
    mcpp_builder_set_string(b, "backend.moe.observed", "jagged");
    mcpp_builder_set_bool(b, "topology.fsdp", 1);
    mcpp_builder_append_string(b, "status.caveats", "graph break in router");
    for (int i = 1; i <= 10; i++)
        mcpp_builder_add_step_sample(b, (double)i);
    return b;
}

TEST(builder_finish_derives_median_and_interpolated_percentiles)
{
    mcpp_builder *b = nam56r_builder();
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_OK);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(r, "metrics.step_time_s.median", &v), MCPP_OK);
    CHECK(v.type == MCPP_TYPE_DOUBLE && v.number == 5.5);
    /* p10 of 1..10 by linear interpolation: position 0.1 * 9 = 0.9 -> 1.9 */
    mcpp_receipt_get(r, "metrics.step_time_s.p10", &v);
    CHECK(fabs(v.number - 1.9) < 1e-12);
    mcpp_receipt_get(r, "metrics.step_time_s.p90", &v);
    CHECK(fabs(v.number - 9.1) < 1e-12);
    mcpp_receipt_get(r, "metrics.step_time_s.samples", &v);
    CHECK(v.type == MCPP_TYPE_DOUBLE_LIST && v.count == 10 && v.doubles[9] == 10.0);
    mcpp_receipt_free(r);
    mcpp_builder_free(b);
}

TEST(built_receipt_round_trips_through_json_and_yaml)
{
    mcpp_builder *b = nam56r_builder();
    mcpp_builder_set_json(b, "extra.team", "\"perf\"");
    mcpp_builder_set_json(b, "extra.sweep.lr", "0.0003");
    mcpp_builder_set_json(b, "launch.fixed_policy.nccl", "{\"algo\": \"ring\", \"channels\": 8}");
    mcpp_builder_add_artifact(b, "trace", "file:///tmp/trace.json");
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_OK);
    char *json = r ? write_text(r, MCPP_FORMAT_JSON) : NULL;
    char *yaml = r ? write_text(r, MCPP_FORMAT_YAML) : NULL;
    mcpp_receipt *from_json = json ? must_load(json, strlen(json), MCPP_FORMAT_JSON) : NULL;
    mcpp_receipt *from_yaml = yaml ? must_load(yaml, strlen(yaml), MCPP_FORMAT_YAML) : NULL;
    char *j2 = from_json ? write_text(from_json, MCPP_FORMAT_JSON) : NULL;
    char *j3 = from_yaml ? write_text(from_yaml, MCPP_FORMAT_JSON) : NULL;
    CHECK(json && j2 && strcmp(json, j2) == 0);
    CHECK(json && j3 && strcmp(json, j3) == 0);
    CHECK_CONTAINS(json, "\"extra\": {\n    \"sweep\": {\n      \"lr\": 0.0003\n    },\n    \"team\": \"perf\"\n  }");
    CHECK(from_json && strcmp(mcpp_receipt_id(from_json), mcpp_receipt_id(r)) == 0);
    mcpp_free(json);
    mcpp_free(yaml);
    mcpp_free(j2);
    mcpp_free(j3);
    mcpp_receipt_free(r);
    mcpp_receipt_free(from_json);
    mcpp_receipt_free(from_yaml);
    mcpp_builder_free(b);
}

TEST(setters_fail_at_once_with_type_enum_range_and_unknown_path)
{
    mcpp_builder *b = NULL;
    CHECK_INT_EQ(mcpp_builder_new(&b), MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_set_int(b, "routing.topk", 8), MCPP_ENOTFOUND);
    CHECK_STR_EQ(mcpp_error_last()->field, "routing.topk");
    CHECK_INT_EQ(mcpp_builder_set_string(b, "routing.top_k", "8"), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->message, "routing.top_k: expected integer, got a string");
    CHECK_INT_EQ(mcpp_builder_set_string(b, "compile.posture", "fast"), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->kind, "enum");
    CHECK_INT_EQ(mcpp_builder_set_string(b, "backend.moe.observed", "dense"), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_builder_set_int(b, "workload.seq_len", -4), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->message, "workload.seq_len: expected a value >= 1, got -4");
    CHECK_INT_EQ(mcpp_builder_set_double(b, "metrics.tokens_per_s", NAN), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->kind, "range");
    CHECK_INT_EQ(mcpp_builder_set_double(b, "lane.depth", 2.5), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_builder_set_double(b, "lane.depth", 24.0), MCPP_OK); /* integral: fine */
    CHECK_INT_EQ(mcpp_builder_set_bool(b, "lane.depth", 1), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_builder_add_step_sample(b, -1.0), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_builder_set_json(b, "lane.depth", "3"), MCPP_ENOTFOUND);
    CHECK_INT_EQ(mcpp_builder_set_json(b, "extra.x", "NaN"), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_builder_set_json(b, "extra.x", "{\"a\": 1, \"a\": 2}"), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->kind, "duplicate_key");
    CHECK_INT_EQ(mcpp_builder_set_string(b, "lane.name", "bad \xff utf8"), MCPP_EINVALID);
    mcpp_builder_free(b);
    mcpp_builder_free(NULL); /* NULL-safe */
}

TEST(setter_failures_are_sticky_and_finish_lists_them_all)
{
    mcpp_builder *b = nam56r_builder();
    /* a harness that ignores these return codes must not get a receipt */
    (void)mcpp_builder_set_int(b, "workload.seqlen", 4096);
    (void)mcpp_builder_set_string(b, "compile.posture", "fast");
    CHECK_INT_EQ(mcpp_builder_set_int(b, "workload.seq_len", 4096), MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_error_count(b), 2);
    mcpp_receipt *r = NULL;
    mcpp_report *report = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&r, &report, b), MCPP_ENOTFOUND); /* the first failure's status */
    CHECK(r == NULL);
    const mcpp_error *e = mcpp_error_last();
    CHECK_STR_EQ(e->kind, "unknown_field");
    CHECK_STR_EQ(e->field, "workload.seqlen");
    CHECK_STR_EQ(e->message, "workload.seqlen: unknown field of schema mcpp.receipt/2, did you mean "
                             "'workload.seq_len'?; compile.posture: expected one of \"eager\", "
                             "\"partial\", \"regional\", \"whole_model\", \"graph_replay\", got "
                             "\"fast\" (2 builder calls failed before finish)");
    CHECK(report && mcpp_report_error_count(report) == 1);
    CHECK_CONTAINS(report ? mcpp_report_at(report, 0)->message : "", "compile.posture");
    mcpp_report_free(report);
    /* still failing until the caller says it handled them */
    CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_ENOTFOUND);
    mcpp_builder_clear_errors(b);
    CHECK_INT_EQ(mcpp_builder_error_count(b), 0);
    CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_OK);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(r, "workload.seq_len", &v), MCPP_OK);
    CHECK_INT_EQ(v.integer, 4096);
    mcpp_receipt_free(r);
    mcpp_builder_free(b);
}

TEST(unknown_paths_name_the_closest_schema_path)
{
    static const struct {
        const char *typo, *meant;
    } table[] = {
        {"workload.seqlen", "workload.seq_len"},
        {"routing.topk", "routing.top_k"},
        {"workload.seq_len.x", NULL},
        {"hardwre.observed.acelerator", "hardware.observed.accelerator"},
        {"seq_len", "workload.seq_len"},
        {"metrics.tokens_per_sec", "metrics.tokens_per_s"},
        {"zzzzzzzz.qqqqqqq", NULL},
        {"workload.seq_len", NULL}, /* a field already: nothing to suggest */
    };
    char buf[128];
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int rc = mcpp_schema_field_suggest(buf, sizeof buf, table[i].typo);
        if (table[i].meant) {
            CHECK_INT_EQ(rc, MCPP_OK);
            CHECK_STR_EQ(buf, table[i].meant);
        } else {
            CHECK_INT_EQ(rc, MCPP_ENOTFOUND);
            CHECK_STR_EQ(buf, "");
        }
    }
    char tiny[4];
    CHECK_INT_EQ(mcpp_schema_field_suggest(tiny, sizeof tiny, "workload.seqlen"), MCPP_ENOTFOUND);
    CHECK_INT_EQ(mcpp_schema_field_suggest(NULL, 8, "x"), MCPP_EARG);
    mcpp_builder *b = NULL;
    CHECK_INT_EQ(mcpp_builder_new(&b), MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_set_int(b, "routing.topk", 8), MCPP_ENOTFOUND);
    CHECK_STR_EQ(mcpp_error_last()->message,
                 "routing.topk: unknown field of schema mcpp.receipt/2, did you mean 'routing.top_k'?");
    CHECK_INT_EQ(mcpp_builder_unset(b, "routing.topk"), MCPP_ENOTFOUND);
    CHECK_CONTAINS(mcpp_error_last()->message, "did you mean 'routing.top_k'?");
    mcpp_builder_free(b);
}

TEST(field_path_constants_are_the_schema_paths)
{
    CHECK_INT_EQ(MCPP_FIELD_PATH_COUNT, mcpp_schema_field_count());
    static const char *const constants[] = {MCPP_FIELD_WORKLOAD_SEQ_LEN, MCPP_FIELD_ROUTING_TOP_K,
                                            MCPP_FIELD_LANE_BLOCKS_A, MCPP_FIELD_BACKEND_MOE_OBSERVED,
                                            MCPP_FIELD_METRICS_GOODPUT_BADPUT_S_IDLE, MCPP_FIELD_EXTRA};
    static const char *const paths[] = {"workload.seq_len", "routing.top_k", "lane.blocks.A",
                                        "backend.moe.observed", "metrics.goodput.badput_s.idle", "extra"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        CHECK_STR_EQ(constants[i], paths[i]);
        CHECK(mcpp_schema_field_id(constants[i]) >= 0);
    }
    mcpp_builder *b = NULL;
    CHECK_INT_EQ(mcpp_builder_new(&b), MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_set_int(b, MCPP_FIELD_WORKLOAD_SEQ_LEN, 4096), MCPP_OK);
    mcpp_builder_free(b);
}

TEST(finish_derives_tokens_per_s_from_useful_tokens_over_the_median_step)
{
    /* samples 1..10 s: median 5.5; the analyses derive a receipt's rate with
     * the same function (mcpp_tokens_per_s_from_steps) */
    mcpp_builder *b = nam56r_builder();
    CHECK_INT_EQ(mcpp_builder_set_int(b, "workload.useful_tokens_per_step", 11000), MCPP_OK);
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_OK);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(r, "metrics.tokens_per_s", &v), MCPP_OK);
    CHECK(fabs(v.number - 2000.0) < 1e-9);
    /* a stated rate is kept as stated */
    CHECK_INT_EQ(mcpp_builder_set_double(b, "metrics.tokens_per_s", 1999.0), MCPP_OK);
    mcpp_receipt *stated = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&stated, NULL, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_get(stated, "metrics.tokens_per_s", &v), MCPP_OK);
    CHECK(v.number == 1999.0);
    /* without useful tokens nothing is derived */
    mcpp_builder_unset(b, "metrics.tokens_per_s");
    mcpp_builder_unset(b, "workload.useful_tokens_per_step");
    mcpp_receipt *bare = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&bare, NULL, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_get(bare, "metrics.tokens_per_s", &v), MCPP_OK);
    CHECK_INT_EQ(v.type, MCPP_TYPE_ABSENT);
    mcpp_receipt_free(r);
    mcpp_receipt_free(stated);
    mcpp_receipt_free(bare);
    mcpp_builder_free(b);
}

TEST(finish_validates_like_loading)
{
    mcpp_builder *b = nam56r_builder();
    mcpp_builder_unset(b, "routing.mode");
    mcpp_builder_set_string(b, "hardware.requested.accelerator", "H200");
    mcpp_receipt *r = NULL;
    mcpp_report *report = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&r, &report, b), MCPP_EINVALID);
    CHECK(r == NULL);
    CHECK_INT_EQ(mcpp_report_error_count(report), 2);
    CHECK_STR_EQ(mcpp_report_at(report, 0)->field, "routing.mode");
    CHECK_STR_EQ(mcpp_report_at(report, 1)->field, "hardware.observed.accelerator");
    mcpp_report_free(report);
    /* the builder stays usable: fix and finish again */
    mcpp_builder_set_string(b, "routing.mode", "expert_choice");
    mcpp_builder_set_string(b, "hardware.observed.accelerator", "H100");
    CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_OK);
    mcpp_receipt *again = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&again, NULL, b), MCPP_OK);
    CHECK(r && again && strcmp(mcpp_receipt_id(r), mcpp_receipt_id(again)) == 0);
    mcpp_receipt_free(r);
    mcpp_receipt_free(again);
    mcpp_builder_free(b);
}

TEST(stated_statistics_are_checked_against_samples_at_finish)
{
    mcpp_builder *b = nam56r_builder();
    mcpp_builder_set_double(b, "metrics.step_time_s.median", 7.0);
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->message, "metrics.step_time_s.median: expected the median of "
                                             "the 10 samples (5.5, within 0.5%), got 7");
    mcpp_builder_free(b);
}

static const char *const sample_json =
    "{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"pattern\": \"AMAM\", \"depth\": 8}, "
    "\"compile\": {\"posture\": \"regional\", \"disabled_regions\": [\"a\", \"b\"]}, "
    "\"topology\": {\"sp\": true}, \"metrics\": {\"tokens_per_s\": 1.5e5}, "
    "\"artifacts\": [{\"kind\": \"log\", \"uri\": \"s3://b/log\"}], "
    "\"extra\": {\"notes\": {\"who\": \"perf\", \"tags\": [\"a\", 2]}, \"n\": 3, \"r\": 0.5, "
    "\"t\": true, \"z\": null}}";

TEST(get_reads_every_type_by_path)
{
    mcpp_receipt *r = must_load(sample_json, strlen(sample_json), MCPP_FORMAT_JSON);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK(mcpp_receipt_get(r, "lane.depth", &v) == MCPP_OK && v.type == MCPP_TYPE_INT &&
          v.integer == 8);
    CHECK(mcpp_receipt_get(r, "lane.pattern", &v) == MCPP_OK && v.type == MCPP_TYPE_STRING &&
          strcmp(v.string, "AMAM") == 0);
    CHECK(mcpp_receipt_get(r, "compile.posture", &v) == MCPP_OK && v.type == MCPP_TYPE_ENUM &&
          v.enum_index == 2 && strcmp(v.string, "regional") == 0);
    CHECK(mcpp_receipt_get(r, "compile.disabled_regions", &v) == MCPP_OK &&
          v.type == MCPP_TYPE_STRING_LIST && v.count == 2 && strcmp(v.strings[1], "b") == 0);
    CHECK(mcpp_receipt_get(r, "topology.sp", &v) == MCPP_OK && v.type == MCPP_TYPE_BOOL &&
          v.boolean == 1);
    CHECK(mcpp_receipt_get(r, "metrics.tokens_per_s", &v) == MCPP_OK &&
          v.type == MCPP_TYPE_DOUBLE && v.number == 150000.0);
    CHECK(mcpp_receipt_get(r, "artifacts", &v) == MCPP_OK && v.type == MCPP_TYPE_OBJECT);
    CHECK_STR_EQ(v.string, "[{\"kind\":\"log\",\"uri\":\"s3://b/log\"}]");
    CHECK(mcpp_receipt_get(r, "extra", &v) == MCPP_OK && v.type == MCPP_TYPE_OBJECT);
    CHECK_STR_EQ(v.string, "{\"n\":3,\"notes\":{\"tags\":[\"a\",2],\"who\":\"perf\"},\"r\":0.5,"
                           "\"t\":true,\"z\":null}");
    /* absent but known: OK + ABSENT; unknown: ENOTFOUND */
    CHECK(mcpp_receipt_get(r, "routing.top_k", &v) == MCPP_OK && v.type == MCPP_TYPE_ABSENT);
    CHECK_INT_EQ(mcpp_receipt_get(r, "routing.topk", &v), MCPP_ENOTFOUND);
    mcpp_receipt_free(r);
}

TEST(get_reaches_inside_extra)
{
    mcpp_receipt *r = must_load(sample_json, strlen(sample_json), MCPP_FORMAT_JSON);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK(mcpp_receipt_get(r, "extra.notes.who", &v) == MCPP_OK && v.type == MCPP_TYPE_STRING &&
          strcmp(v.string, "perf") == 0);
    CHECK(mcpp_receipt_get(r, "extra.notes.tags", &v) == MCPP_OK && v.type == MCPP_TYPE_OBJECT);
    CHECK_STR_EQ(v.string, "[\"a\",2]");
    CHECK(mcpp_receipt_get(r, "extra.notes.tags.1", &v) == MCPP_OK && v.type == MCPP_TYPE_INT &&
          v.integer == 2);
    CHECK(mcpp_receipt_get(r, "extra.r", &v) == MCPP_OK && v.type == MCPP_TYPE_DOUBLE &&
          v.number == 0.5);
    CHECK(mcpp_receipt_get(r, "extra.t", &v) == MCPP_OK && v.type == MCPP_TYPE_BOOL &&
          v.boolean == 1);
    CHECK(mcpp_receipt_get(r, "extra.missing", &v) == MCPP_OK && v.type == MCPP_TYPE_ABSENT);
    CHECK(mcpp_receipt_get(r, "launch.fixed_policy.x", &v) == MCPP_OK &&
          v.type == MCPP_TYPE_ABSENT);
    mcpp_receipt_free(r);
}

TEST(get_field_by_id_matches_get_by_path_for_every_field)
{
    size_t len;
    char *text = read_whole_file(MCPP_CORE_GOLDEN_DIR "/nam56r_padded.json", &len);
    mcpp_receipt *r = text ? must_load(text, len, MCPP_FORMAT_JSON) : NULL;
    int present = 0;
    for (int id = 0; r && id < mcpp_schema_field_count(); id++) {
        const mcpp_field_info *info = mcpp_schema_field_at(id);
        mcpp_value a = MCPP_VALUE_INIT, b = MCPP_VALUE_INIT;
        CHECK(info != NULL && info->id == id && info->doc && *info->doc);
        CHECK_INT_EQ(mcpp_schema_field_id(info->path), id);
        CHECK_INT_EQ(mcpp_receipt_get_field(r, id, &a), MCPP_OK);
        CHECK_INT_EQ(mcpp_receipt_get(r, info->path, &b), MCPP_OK);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
        CHECK(a.type == MCPP_TYPE_ABSENT || a.type == info->type);
        if (a.type != MCPP_TYPE_ABSENT)
            present++;
    }
    CHECK(present > 80);
    CHECK(mcpp_schema_field_at(-1) == NULL);
    CHECK(mcpp_schema_field_at(mcpp_schema_field_count()) == NULL);
    CHECK_INT_EQ(mcpp_schema_field_id("no.such.field"), -1);
    mcpp_receipt_free(r);
    free(text);
}

int main(void)
{
    RUN(builder_finish_derives_median_and_interpolated_percentiles);
    RUN(built_receipt_round_trips_through_json_and_yaml);
    RUN(setters_fail_at_once_with_type_enum_range_and_unknown_path);
    RUN(setter_failures_are_sticky_and_finish_lists_them_all);
    RUN(unknown_paths_name_the_closest_schema_path);
    RUN(field_path_constants_are_the_schema_paths);
    RUN(finish_derives_tokens_per_s_from_useful_tokens_over_the_median_step);
    RUN(finish_validates_like_loading);
    RUN(stated_statistics_are_checked_against_samples_at_finish);
    RUN(get_reads_every_type_by_path);
    RUN(get_reaches_inside_extra);
    RUN(get_field_by_id_matches_get_by_path_for_every_field);
    TEST_MAIN_END();
}
