/*
 * test_core_schema2.c — what schema 2 added, on the data side: reading
 * schema-1 files (upgraded, with a warning), writing schema 1 back where the
 * content fits, byte-identical round trips of schema-2 receipts, named
 * metrics (storage, API, every validation rule), precision recipes, runs,
 * features, sections a source does not record, the accelerator alias table
 * and the model-family registry.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core_test_helpers.h"
#include "test_util.h"

#define HEAD "{\"schema\": \"mcpp.receipt/2\",\n"
#define SCHEMA2_DIR MCPP_EXAMPLES_DIR "/receipts/schema2"

static void expect(load_result r, int status, const char *kind, const char *message)
{
    CHECK_INT_EQ(r.status, status);
    CHECK_STR_EQ(r.kind, kind);
    CHECK_STR_EQ(r.message, message);
}

static mcpp_receipt *load_str(const char *text)
{
    return must_load(text, strlen(text), MCPP_FORMAT_AUTO);
}

/* ---- schema 1 in, schema 1 out ------------------------------------------------ */

static const char V1[] =
    "{\"schema\": \"mcpp.receipt/1\", \"id\": \"old\",\n"
    " \"lane\": {\"family\": \"NAM56R\", \"pattern\": \"AEMEAEMEAEMR\", \"depth\": 52},\n"
    " \"routing\": {\"mode\": \"token_choice\"},\n"
    " \"backend\": {\"precision\": \"bf16\"},\n"
    " \"metrics\": {\"step_time_s\": {\"samples\": [2.0, 1.0, 3.0], \"median\": 2.0},\n"
    "             \"tokens_per_s\": 500.0}}\n";

TEST(schema1_file_is_upgraded_with_a_warning)
{
    mcpp_receipt *r = NULL;
    mcpp_report *report = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, &report, V1, strlen(V1), MCPP_FORMAT_JSON,
                                          "v1.json", NULL),
                 MCPP_OK);
    CHECK_INT_EQ(mcpp_report_error_count(report), 0);
    CHECK_INT_EQ(mcpp_report_count(report), 1);
    const mcpp_diagnostic *d = mcpp_report_at(report, 0);
    CHECK(d && d->severity == MCPP_SEVERITY_WARNING);
    CHECK_STR_EQ(d ? d->kind : "", "schema");
    CHECK_STR_EQ(d ? d->message : "",
                 "v1.json:1:12: schema: read as mcpp.receipt/1 and upgraded to mcpp.receipt/2 in "
                 "memory (backend.precision is now backend.precision.observed); write the receipt "
                 "again to store schema 2");
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK(mcpp_receipt_get(r, "schema", &v) == MCPP_OK && strcmp(v.string, "mcpp.receipt/2") == 0);
    CHECK(mcpp_receipt_get(r, "backend.precision.observed", &v) == MCPP_OK &&
          strcmp(v.string, "bf16") == 0);
    /* the schema-1 path still names the precision that ran */
    CHECK(mcpp_receipt_get(r, "backend.precision", &v) == MCPP_OK && strcmp(v.string, "bf16") == 0);
    CHECK(mcpp_receipt_get(r, "backend.precision.requested", &v) == MCPP_OK &&
          v.type == MCPP_TYPE_ABSENT);
    /* schema 2 carries the block counts: derived on upgrade */
    CHECK(mcpp_receipt_get(r, "lane.blocks.E", &v) == MCPP_OK && v.integer == 22);
    CHECK(mcpp_receipt_get(r, "lane.blocks.A", &v) == MCPP_OK && v.integer == 13);
    /* its tokens_per_s and step_time_s are named metrics */
    mcpp_metric m;
    CHECK_INT_EQ(mcpp_receipt_metric_find(&m, r, "tokens_per_s"), MCPP_OK);
    CHECK(m.value == 500.0 && m.direction == MCPP_DIRECTION_HIGHER && m.well_known == 1);
    CHECK_STR_EQ(m.unit, "tokens/s");
    CHECK_INT_EQ(mcpp_receipt_metric_find(&m, r, "step_time_s"), MCPP_OK);
    CHECK(m.value == 2.0 && m.direction == MCPP_DIRECTION_LOWER && m.sample_count == 3);
    CHECK_STR_EQ(m.sample_kind, "step");
    CHECK_STR_EQ(m.aggregate, "median");
    CHECK(mcpp_metric_sample(&m, 1) == 1.0 && mcpp_metric_sample(&m, 3) == 0.0);
    CHECK_STR_EQ(mcpp_receipt_metric_primary(r), "tokens_per_s");
    mcpp_report_free(report);
    mcpp_receipt_free(r);
}

TEST(schema1_file_may_not_state_schema2_fields)
{
    expect(load_json("{\"schema\": \"mcpp.receipt/1\",\n \"run\": {\"seed\": 1}}"), MCPP_EINVALID,
           "unknown_field",
           "t.json:2:10: run.seed: not a field of schema mcpp.receipt/1 (it is new in "
           "mcpp.receipt/2)");
}

TEST(schema1_written_back_is_the_schema1_layout_and_round_trips)
{
    mcpp_receipt *r = load_str(V1);
    char *v1 = NULL, *v2 = NULL;
    CHECK_INT_EQ(mcpp_receipt_write_schema(&v1, NULL, r, MCPP_FORMAT_JSON, 1), MCPP_OK);
    CHECK(v1 && strstr(v1, "\"schema\": \"mcpp.receipt/1\"") != NULL);
    CHECK(v1 && strstr(v1, "\"precision\": \"bf16\"") != NULL);
    CHECK(v1 && strstr(v1, "blocks") == NULL); /* derived, so left out */
    mcpp_receipt *back = v1 ? load_str(v1) : NULL;
    CHECK(back != NULL);
    v2 = back ? write_text(back, MCPP_FORMAT_JSON) : NULL;
    char *orig = write_text(r, MCPP_FORMAT_JSON);
    CHECK(v2 && orig && strcmp(v2, orig) == 0);
    mcpp_free(v1);
    mcpp_free(v2);
    mcpp_free(orig);
    mcpp_receipt_free(back);
    mcpp_receipt_free(r);
    CHECK_INT_EQ(mcpp_receipt_write_schema(&v1, NULL, r = load_str(V1), MCPP_FORMAT_JSON, 3),
                 MCPP_EARG);
    mcpp_receipt_free(r);
}

/* Writing schema 1 refuses content it cannot hold, naming the field. */
static void expect_no_v1(const char *text, const char *field, const char *message)
{
    mcpp_receipt *r = load_str(text);
    CHECK(r != NULL);
    char *out = NULL;
    CHECK_INT_EQ(mcpp_receipt_write_schema(&out, NULL, r, MCPP_FORMAT_YAML, 1), MCPP_EINVALID);
    CHECK(out == NULL);
    CHECK_STR_EQ(mcpp_error_last()->field ? mcpp_error_last()->field : "", field);
    CHECK_STR_EQ(mcpp_error_last()->message, message);
    mcpp_receipt_free(r);
}

TEST(schema1_write_refuses_what_does_not_fit)
{
    expect_no_v1(HEAD "\"run\": {\"seed\": 7}}", "run.seed",
                 "run.seed: run.seed has no place in schema mcpp.receipt/1; keep this receipt in "
                 "mcpp.receipt/2");
    expect_no_v1(HEAD "\"backend\": {\"precision\": {\"requested\": \"fp8\", \"observed\": "
                      "\"bf16\"}}}",
                 "backend.precision.requested",
                 "backend.precision.requested: backend.precision.requested differs from the "
                 "observed precision; schema mcpp.receipt/1 has one precision");
    expect_no_v1(HEAD "\"backend\": {\"precision\": {\"observed\": \"tf32\"}}}",
                 "backend.precision.observed",
                 "backend.precision.observed: precision \"tf32\" is not in schema mcpp.receipt/1 "
                 "(fp32, bf16, fp16, fp8)");
    expect_no_v1(HEAD "\"topology\": {\"substrate\": \"rocm\"}}", "topology.substrate",
                 "topology.substrate: substrate \"rocm\" is not in schema mcpp.receipt/1 (cuda, "
                 "tpu, cpu)");
    expect_no_v1(HEAD "\"metrics\": {\"named\": [{\"name\": \"x\", \"unit\": \"s\", "
                      "\"direction\": \"lower\", \"value\": 1}]}}",
                 "metrics.named",
                 "metrics.named: metrics.named has no place in schema mcpp.receipt/1; keep this "
                 "receipt in mcpp.receipt/2");
}

/* ---- round trips ------------------------------------------------------------------- */

static void round_trip(const char *stem)
{
    char path[512];
    size_t jlen, ylen;
    snprintf(path, sizeof path, SCHEMA2_DIR "/%s.json", stem);
    char *json = read_whole_file(path, &jlen);
    snprintf(path, sizeof path, SCHEMA2_DIR "/%s.yaml", stem);
    char *yaml = read_whole_file(path, &ylen);
    CHECK(json && yaml);
    mcpp_receipt *rj = json ? must_load(json, jlen, MCPP_FORMAT_JSON) : NULL;
    mcpp_receipt *ry = yaml ? must_load(yaml, ylen, MCPP_FORMAT_YAML) : NULL;
    CHECK(rj && ry);
    char *j = rj ? write_text(rj, MCPP_FORMAT_JSON) : NULL;
    char *y = rj ? write_text(rj, MCPP_FORMAT_YAML) : NULL;
    char *yj = ry ? write_text(ry, MCPP_FORMAT_JSON) : NULL;
    CHECK(j && json && strcmp(j, json) == 0);  /* JSON -> JSON byte-identical */
    CHECK(y && yaml && strcmp(y, yaml) == 0);  /* JSON -> YAML is its twin */
    CHECK(yj && json && strcmp(yj, json) == 0); /* YAML -> JSON too */
    CHECK_STR_EQ(rj ? mcpp_receipt_id(rj) : "", ry ? mcpp_receipt_id(ry) : "-");
    mcpp_free(j);
    mcpp_free(y);
    mcpp_free(yj);
    mcpp_receipt_free(rj);
    mcpp_receipt_free(ry);
    free(json);
    free(yaml);
}

TEST(schema2_receipts_round_trip_byte_identical_in_json_and_yaml)
{
    round_trip("pytest_benchmark_sorted");
    round_trip("mlperf_llama2_70b_lora");
}

TEST(new_fields_read_back_by_path_and_by_metric)
{
    size_t len;
    char *json = read_whole_file(SCHEMA2_DIR "/mlperf_llama2_70b_lora.json", &len);
    mcpp_receipt *r = json ? must_load(json, len, MCPP_FORMAT_JSON) : NULL;
    CHECK(r != NULL);
    if (!r) {
        free(json);
        return;
    }
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK(mcpp_receipt_get(r, "benchmark.suite", &v) == MCPP_OK &&
          strcmp(v.string, "mlperf-training") == 0);
    CHECK(mcpp_receipt_get(r, "benchmark.params.lora_rank", &v) == MCPP_OK && v.integer == 16);
    CHECK(mcpp_receipt_get(r, "software.components.nemo", &v) == MCPP_OK &&
          strcmp(v.string, "24.09") == 0);
    CHECK(mcpp_receipt_get(r, "features.fused_rope", &v) == MCPP_OK && v.type == MCPP_TYPE_BOOL &&
          v.boolean == 1);
    CHECK(mcpp_receipt_get(r, "features", &v) == MCPP_OK &&
          strcmp(v.string, "{\"fp8_attention\":false,\"fused_rope\":true,\"lora_dropout\":\"0.1\"}") ==
              0);
    CHECK(mcpp_receipt_get(r, "launch.cuda_graphs", &v) == MCPP_OK && strcmp(v.string, "full") == 0);
    CHECK(mcpp_receipt_get(r, "hardware.observed.source", &v) == MCPP_OK &&
          strcmp(v.string, "declared") == 0);
    CHECK(mcpp_receipt_get(r, "source.not_recorded", &v) == MCPP_OK && v.count == 2);
    CHECK(mcpp_receipt_get(r, "quality.achieved", &v) == MCPP_OK && v.number == 0.9238);
    CHECK(mcpp_receipt_get(r, "run.of", &v) == MCPP_OK && v.integer == 10);
    CHECK(mcpp_receipt_get(r, "metrics.named.0.unit", &v) == MCPP_OK && strcmp(v.string, "min") == 0);
    CHECK_INT_EQ(mcpp_receipt_metric_count(r), 1);
    mcpp_metric m;
    CHECK_INT_EQ(mcpp_receipt_metric_at(&m, r, 0), MCPP_OK);
    CHECK_STR_EQ(m.name, "time_to_train");
    CHECK_STR_EQ(m.unit, "min");
    CHECK(m.direction == MCPP_DIRECTION_LOWER && m.value == 24.31 && m.sample_count == 1 &&
          m.well_known == 0 && mcpp_metric_sample(&m, 0) == 24.31);
    CHECK_STR_EQ(m.path, "metrics.named");
    CHECK_INT_EQ(mcpp_receipt_metric_at(&m, r, 1), MCPP_ENOTFOUND);
    CHECK_INT_EQ(mcpp_receipt_metric_find(&m, r, "tokens_per_s"), MCPP_ENOTFOUND);
    CHECK_STR_EQ(mcpp_receipt_metric_primary(r), "time_to_train");
    mcpp_receipt_free(r);
    free(json);
}

/* ---- validation rules -------------------------------------------------------------- */

#define METRIC(body) HEAD " \"metrics\": {\"named\": [" body "]}}"

TEST(named_metric_rules_each_with_its_message)
{
    expect(load_json(METRIC("{\"name\": \"t\", \"direction\": \"lower\", \"value\": 1}")),
           MCPP_EINVALID, "missing",
           "t.json:2:24: metrics.named[0].unit: required field of a metric is missing");
    expect(load_json(METRIC("{\"name\": \"t\", \"unit\": \"s\", \"direction\": \"down\", "
                            "\"value\": 1}")),
           MCPP_EINVALID, "enum",
           "t.json:2:64: metrics.named[0].direction: expected one of \"higher\", \"lower\", got "
           "\"down\"");
    expect(load_json(METRIC("{\"name\": \"t\", \"unit\": \"s\", \"direction\": \"lower\"}")),
           MCPP_EINVALID, "missing",
           "t.json:2:24: metrics.named[0].value: required field of a metric is missing (the "
           "stated aggregate)");
    expect(load_json(METRIC("{\"name\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", "
                            "\"value\": 1},\n{\"name\": \"t\", \"unit\": \"s\", \"direction\": "
                            "\"lower\", \"value\": 2}")),
           MCPP_EINVALID, "consistency",
           "t.json:3:10: metrics.named[1].name: metric \"t\" is named twice (names are unique)");
    expect(load_json(METRIC("{\"name\": \"tokens_per_s\", \"unit\": \"tok/s\", \"direction\": "
                            "\"higher\", \"value\": 1}")),
           MCPP_EINVALID, "consistency",
           "t.json:2:33: metrics.named[0].name: \"tokens_per_s\" is a well-known metric (unit "
           "tokens/s, higher is better): state it at its schema path under metrics, not in "
           "metrics.named");
    expect(load_json(METRIC("{\"name\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", "
                            "\"value\": 2, \"samples\": [1, 3], \"sample_kind\": \"run\"}")),
           MCPP_EINVALID, "missing",
           "t.json:2:24: metrics.named[0].aggregate: required with samples: say how value comes "
           "from them (single, median, mean, min, max, sum, geomean)");
    expect(load_json(METRIC("{\"name\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", "
                            "\"value\": 2.5, \"aggregate\": \"mean\", \"samples\": [1, 3], "
                            "\"sample_kind\": \"round\"}")),
           MCPP_EINVALID, "consistency",
           "t.json:2:82: metrics.named[0].value: expected the mean of the 2 samples (2, within "
           "0.5%), got 2.5");
    expect(load_json(METRIC("{\"name\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", "
                            "\"value\": 1, \"aggregate\": \"single\", \"samples\": [1, 1], "
                            "\"sample_kind\": \"run\"}")),
           MCPP_EINVALID, "consistency",
           "t.json:2:82: metrics.named[0].value: aggregate \"single\" of 2 samples has no value "
           "to check 1 against");
    expect(load_json(METRIC("{\"name\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", "
                            "\"value\": 1, \"aggregate\": \"min\", \"samples\": [1, 2]}")),
           MCPP_EINVALID, "missing",
           "t.json:2:24: metrics.named[0].sample_kind: required field of a metric is missing");
    expect(load_json(METRIC("{\"name\": \"a b\", \"unit\": \"s\", \"direction\": \"lower\", "
                            "\"value\": 1}")),
           MCPP_EINVALID, "range",
           "t.json:2:33: metrics.named[0].name: expected a name of letters, digits and _ . : / - @ "
           "(at most 128), got \"a b\"");
    expect(load_json(METRIC("{\"name\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", "
                            "\"value\": 1, \"units\": \"s\"}")),
           MCPP_EINVALID, "unknown_field",
           "t.json:2:85: metrics.named[0].units: unknown field of a metric (name, unit, direction, "
           "value, aggregate, sample_kind, samples)");
    expect(load_json(HEAD " \"metrics\": {\"primary\": \"x\"}}"), MCPP_EINVALID, "consistency",
           "t.json:2:25: metrics.primary: names \"x\", which this receipt does not state");
    /* all rules met: the median of the samples, within 0.5% */
    CHECK_INT_EQ(load_json(METRIC("{\"name\": \"t\", \"unit\": \"s\", \"direction\": \"lower\", "
                                  "\"value\": 2.001, \"aggregate\": \"median\", \"samples\": [1, "
                                  "2, 9], \"sample_kind\": \"iteration\"}"))
                     .status,
                 MCPP_OK);
}

/* A hostile list of 100,000 metrics named alike: every repeat counted, the
 * check stays O(n log n) (a pairwise scan would be 5e9 comparisons). */
TEST(a_huge_list_of_repeated_metric_names_is_refused_promptly)
{
    const char item[] = "{\"name\":\"t\",\"unit\":\"s\",\"direction\":\"lower\",\"value\":1},";
    const size_t n = 100000, head = strlen(HEAD " \"metrics\": {\"named\": [");
    size_t cap = head + n * (sizeof item - 1) + 16;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text)
        return;
    char *p = text + snprintf(text, cap, HEAD " \"metrics\": {\"named\": [");
    for (size_t i = 0; i < n; i++, p += sizeof item - 1)
        memcpy(p, item, sizeof item - 1);
    memcpy(p - 1, "]}}", 4);
    load_result r = load_text_fmt(text, strlen(text), MCPP_FORMAT_JSON, "t.json", NULL);
    CHECK_INT_EQ(r.status, MCPP_EINVALID);
    CHECK_STR_EQ(r.kind, "consistency");
    CHECK(strstr(r.message, "metrics.named[1].name: metric \"t\" is named twice") != NULL);
    CHECK_INT_EQ(r.errors, 32); /* the located ones; the rest are counted */
    free(text);
}

TEST(precision_recipes_follow_the_grammar)
{
    CHECK_INT_EQ(load_json(HEAD " \"backend\": {\"precision\": {\"requested\": \"bf16+fp8\", "
                                "\"observed\": \"bf16+fp8_e4m3\"}}}")
                     .status,
                 MCPP_OK);
    CHECK_INT_EQ(load_json(HEAD " \"backend\": {\"precision\": {\"observed\": \"nvfp4\"}}}").status,
                 MCPP_OK);
    expect(load_json(HEAD " \"backend\": {\"precision\": {\"observed\": \"fp8+fp8\"}}}"),
           MCPP_EINVALID, "enum",
           "t.json:2:40: backend.precision.observed: expected a precision or a recipe of them "
           "joined by '+' (fp32, tf32, bf16, fp16, fp8, fp8_e4m3, fp8_e5m2, mxfp8, mxfp4, nvfp4, "
           "fp4; each once), got \"fp8+fp8\"");
    CHECK_INT_EQ(load_json(HEAD " \"backend\": {\"precision\": {\"observed\": \"int8\"}}}").status,
                 MCPP_EINVALID);
    CHECK_INT_EQ(load_json(HEAD " \"backend\": {\"precision\": {\"observed\": \"bf16+\"}}}").status,
                 MCPP_EINVALID);
    expect(load_json(HEAD " \"backend\": {\"precision\": {\"requested\": \"bf16\"}}}"),
           MCPP_EINVALID, "missing",
           "t.json:2:14: backend.precision.observed: required because backend.precision.requested "
           "is stated: a receipt must say what actually ran, not only what was asked for");
}

TEST(run_features_not_recorded_and_enums)
{
    expect(load_json(HEAD " \"run\": {\"index\": 4, \"of\": 3}}"), MCPP_EINVALID, "consistency",
           "t.json:2:19: run.index: expected at most run.of (3), got 4");
    expect(load_json(HEAD " \"features\": {\"stp\": true, \"moe\": {\"k\": 2}}}"), MCPP_EINVALID,
           "type",
           "t.json:2:35: features.moe: expected true, false, a string or a number (a feature's "
           "setting)");
    expect(load_json(HEAD " \"source\": {\"not_recorded\": [\"compile\", \"kompile\"]}}"),
           MCPP_EINVALID, "enum",
           "t.json:2:41: source.not_recorded[1]: expected the name of a top-level section (e.g. "
           "compile, startup), got \"kompile\"");
    expect(load_json(HEAD " \"launch\": {\"cuda_graphs\": \"on\"}}"), MCPP_EINVALID, "enum",
           "t.json:2:28: launch.cuda_graphs: expected one of \"off\", \"partial\", \"full\", got "
           "\"on\"");
    CHECK_INT_EQ(load_json(HEAD " \"topology\": {\"substrate\": \"hpu\"}, \"hardware\": "
                                "{\"observed\": {\"accelerator\": \"Gaudi2\", \"source\": "
                                "\"probed\"}}}")
                     .status,
                 MCPP_OK);
    expect(load_json(HEAD " \"lane\": {\"params_total\": 8, \"params_active\": 9}}"),
           MCPP_EINVALID, "consistency",
           "t.json:2:47: lane.params_active: expected at most lane.params_total (8), got 9");
}

TEST(registered_families_fix_pattern_depth_and_counts)
{
    expect(load_json(HEAD " \"lane\": {\"family\": \"NAM56R\", \"pattern\": \"AEMEAEMEAEMR\", "
                          "\"depth\": 56}, \"routing\": {\"mode\": \"token_choice\"}}"),
           MCPP_EINVALID, "consistency",
           "t.json:2:21: lane.family: registered family NAM56R has depth 52, got lane.depth 56");
    expect(load_json(HEAD " \"lane\": {\"family\": \"NAM56R\", \"pattern\": \"AEMEAEMEAEMR\", "
                          "\"depth\": 52, \"blocks\": {\"A\": 13, \"M\": 13, \"E\": 20, \"R\": "
                          "4}}, \"routing\": {\"mode\": \"token_choice\"}}"),
           MCPP_EINVALID, "consistency",
           "t.json:2:105: lane.blocks.E: expected 22 E blocks (pattern \"AEMEAEMEAEMR\" tiled to "
           "depth 52), got 20");
    expect(load_json(HEAD " \"lane\": {\"family\": \"NAM56R\", \"blocks\": {\"A\": 13, \"M\": "
                          "13, \"E\": 22, \"R\": 3}}}"),
           MCPP_EINVALID, "consistency",
           "t.json:2:74: lane.blocks.R: expected 4 R blocks (registered family NAM56R: "
           "\"AEMEAEMEAEMR\" at depth 52), got 3");
    CHECK_INT_EQ(load_json(HEAD " \"lane\": {\"family\": \"NAM56R\", \"pattern\": "
                                "\"AEMEAEMEAEMR\", \"depth\": 52, \"blocks\": {\"A\": 13, \"M\": "
                                "13, \"E\": 22, \"R\": 4}}, \"routing\": {\"mode\": "
                                "\"token_choice\"}}")
                     .status,
                 MCPP_OK);
    expect(load_json(HEAD " \"lane\": {\"family\": \"NAM52\", \"pattern\": \"AMMM\", \"depth\": "
                          "48}}"),
           MCPP_EINVALID, "consistency",
           "t.json:2:21: lane.family: registered family NAM52 has depth 52, got lane.depth 48");
    mcpp_model_family f;
    CHECK_INT_EQ(mcpp_model_family_find(&f, "NAM56R"), MCPP_OK);
    CHECK(f.depth == 52 && f.blocks[0] == 13 && f.blocks[1] == 13 && f.blocks[2] == 22 &&
          f.blocks[3] == 4);
    CHECK_STR_EQ(f.pattern, "AEMEAEMEAEMR");
    CHECK_INT_EQ(mcpp_model_family_for_pattern(&f, "AEMEAEMEAEMR", 52), MCPP_OK);
    CHECK_STR_EQ(f.name, "NAM56R");
    CHECK_INT_EQ(mcpp_model_family_for_pattern(&f, "AEMEAEMEAEMR", 56), MCPP_ENOTFOUND);
    CHECK_INT_EQ(mcpp_model_family_find(&f, "NAM52"), MCPP_OK);
    CHECK(f.depth == 52 && f.pattern[0] == '\0');
    CHECK_STR_EQ(f.letters, "AMR");
    int64_t c[4];
    mcpp_model_family_block_counts(c, "AMMM", 52);
    CHECK(c[0] == 13 && c[1] == 39 && c[2] == 0 && c[3] == 0);
}

/* ---- the accelerator alias table ----------------------------------------------------- */

static void expect_id(const char *raw, const char *id, int model_only)
{
    mcpp_accelerator a;
    CHECK_INT_EQ(mcpp_accelerator_canonicalize(&a, NULL, raw), MCPP_OK);
    CHECK_STR_EQ(a.id, id);
    CHECK_INT_EQ(a.matched, 1);
    CHECK_INT_EQ(a.model_only, model_only);
}

TEST(alias_table_maps_raw_names_to_one_id)
{
    expect_id("H200", "nvidia-h200-sxm5-141gb", 1);
    expect_id("NVIDIA H200", "nvidia-h200-sxm5-141gb", 1);
    expect_id("NVIDIA H200 141GB HBM3e", "nvidia-h200-sxm5-141gb", 0);
    expect_id("H200-SXM5-141GB", "nvidia-h200-sxm5-141gb", 0);
    expect_id("H100", "nvidia-h100-sxm5-80gb", 1);
    expect_id("NVIDIA H100 80GB HBM3", "nvidia-h100-sxm5-80gb", 0);
    expect_id("NVIDIA H100-SXM5-80GB", "nvidia-h100-sxm5-80gb", 0);
    expect_id("nvidia  h100_sxm5-80gb", "nvidia-h100-sxm5-80gb", 0); /* normalised */
    expect_id("NVIDIA H100 PCIe", "nvidia-h100-pcie-80gb", 0);
    expect_id("Gaudi2", "intel-gaudi2", 1);
    expect_id("AMD Instinct MI300X", "amd-mi300x", 0);
    expect_id("NVIDIA L40S", "nvidia-l40s", 0);
    expect_id("NVIDIA A100-SXM4-40GB", "nvidia-a100-sxm4-40gb", 0);
    expect_id("NVIDIA A100 80GB", "nvidia-a100-sxm4-80gb", 0);
    expect_id("TPU v5p", "google-tpu-v5p", 1);
    expect_id("NVIDIA B200", "nvidia-b200", 0);
    expect_id("GB200", "nvidia-gb200", 1);
    expect_id("cpu: AMD EPYC 7B13", "cpu:amd epyc 7b13", 0);
    mcpp_accelerator a;
    CHECK_INT_EQ(mcpp_accelerator_canonicalize(&a, NULL, "NVIDIA H100 80GB HBM3"), MCPP_OK);
    CHECK_STR_EQ(a.vendor, "NVIDIA");
    CHECK_STR_EQ(a.model, "H100");
    CHECK_STR_EQ(a.form_factor, "SXM5");
    CHECK_STR_EQ(a.memory_type, "HBM3");
    CHECK(a.memory_gb == 80.0);
    CHECK_INT_EQ(mcpp_accelerator_canonicalize(&a, NULL, "Quantum QPU-9000"), MCPP_OK);
    CHECK_INT_EQ(a.matched, 0);
    CHECK_STR_EQ(a.id, "quantum qpu 9000");
}

TEST(satisfies_compares_ids_and_model_only_requests)
{
    int ok = -1;
    char why[256];
    CHECK_INT_EQ(mcpp_accelerator_satisfies(&ok, why, sizeof why, NULL, "H200", "NVIDIA H200"),
                 MCPP_OK);
    CHECK_INT_EQ(ok, 1);
    CHECK_STR_EQ(why, "same accelerator: H200 and NVIDIA H200 are both nvidia-h200-sxm5-141gb");
    mcpp_accelerator_satisfies(&ok, why, sizeof why, NULL, "H100", "NVIDIA H100 PCIe");
    CHECK_INT_EQ(ok, 1);
    CHECK_STR_EQ(why, "request names only the model H100; NVIDIA H100 PCIe (nvidia-h100-pcie-80gb) "
                      "is one");
    mcpp_accelerator_satisfies(&ok, why, sizeof why, NULL, "NVIDIA H100-SXM5-80GB",
                               "NVIDIA H100 PCIe");
    CHECK_INT_EQ(ok, 0);
    CHECK_STR_EQ(why, "requested NVIDIA H100-SXM5-80GB (nvidia-h100-sxm5-80gb), observed NVIDIA "
                      "H100 PCIe (nvidia-h100-pcie-80gb)");
    mcpp_accelerator_satisfies(&ok, why, sizeof why, NULL, "H200", "NVIDIA H100 80GB HBM3");
    CHECK_INT_EQ(ok, 0);
    mcpp_accelerator_satisfies(&ok, why, sizeof why, NULL, "Foo X1", "foo-x1");
    CHECK_INT_EQ(ok, 1); /* unknown names: normalised exact match */
    mcpp_accelerator_satisfies(&ok, why, sizeof why, NULL, "Foo X1", "Foo X2");
    CHECK_INT_EQ(ok, 0);
    CHECK_STR_EQ(why, "requested Foo X1 (foo x1), observed Foo X2 (foo x2); an unknown name is "
                      "compared as written");
    CHECK_INT_EQ(mcpp_accelerator_satisfies(NULL, why, sizeof why, NULL, "a", "b"), MCPP_EARG);
}

TEST(a_table_can_be_extended_without_touching_the_shipped_one)
{
    mcpp_accel_table *t = NULL;
    CHECK_INT_EQ(mcpp_accel_table_new(&t), MCPP_OK);
    CHECK_INT_EQ(mcpp_accel_table_add(t, "acme-x1", "Acme", "X1", "PCIe", 64, "HBM3"), MCPP_OK);
    CHECK_INT_EQ(mcpp_accel_table_add(t, "acme-x1", "Acme", "X1", "PCIe", 64, "HBM3"),
                 MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_accel_table_add_alias(t, "ACME X-1", "acme-x1", 0), MCPP_OK);
    CHECK_INT_EQ(mcpp_accel_table_add_alias(t, "x", "no-such-id", 0), MCPP_ENOTFOUND);
    const char rows[] = "# more\naccel\tacme-x2\tAcme\tX2\tSXM\t96\tHBM3e\nmodel\tacme-x2\tX2\n";
    CHECK_INT_EQ(mcpp_accel_table_add_tsv(t, rows, strlen(rows), "p.tsv"), MCPP_OK);
    const char bad[] = "\nalias\tonly-two-columns\n";
    CHECK_INT_EQ(mcpp_accel_table_add_tsv(t, bad, strlen(bad), "p.tsv"), MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_error_last()->line, 2);
    mcpp_accelerator a;
    mcpp_accelerator_canonicalize(&a, t, "acme x 1");
    CHECK_STR_EQ(a.id, "acme-x1");
    mcpp_accelerator_canonicalize(&a, t, "X2");
    CHECK(a.matched == 1 && a.model_only == 1 && strcmp(a.id, "acme-x2") == 0);
    mcpp_accelerator_canonicalize(&a, t, "H100");
    CHECK_STR_EQ(a.id, "nvidia-h100-sxm5-80gb"); /* the shipped rows are there too */
    mcpp_accelerator_canonicalize(&a, NULL, "ACME X-1");
    CHECK_INT_EQ(a.matched, 0); /* ... and the shipped table did not change */
    mcpp_accel_table_free(t);
}

static void *canonicalize_many(void *arg)
{
    int *bad = arg;
    for (int i = 0; i < 2000; i++) {
        mcpp_accelerator a;
        if (mcpp_accelerator_canonicalize(&a, NULL, "NVIDIA H200 141GB HBM3e") != MCPP_OK ||
            strcmp(a.id, "nvidia-h200-sxm5-141gb") != 0)
            (*bad)++;
    }
    return NULL;
}

TEST(the_shipped_table_loads_once_under_concurrent_first_use)
{
    pthread_t th[4];
    int bad[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, canonicalize_many, &bad[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT_EQ(bad[i], 0);
    }
}

TEST(unknown_accelerator_names_warn)
{
    load_result r = load_json(HEAD " \"hardware\": {\"observed\": {\"accelerator\": \"Acme "
                                   "X9\"}}}");
    CHECK_INT_EQ(r.status, MCPP_OK);
    CHECK_INT_EQ(r.total, 1);
    CHECK_STR_EQ(r.kind, "unknown_accelerator");
    CHECK_STR_EQ(r.message, "t.json:2:43: hardware.observed.accelerator: \"Acme X9\" is not in the "
                            "accelerator alias table: compared by its normalised name \"acme x9\"");
}

TEST(plain_cpu_is_a_known_accelerator_and_draws_no_warning)
{
    /* Every CPU-only run (the step runner's CPU path, Builder examples) records "cpu". */
    load_result r = load_json(HEAD " \"hardware\": {\"observed\": {\"accelerator\": \"cpu\"}}}");
    CHECK_INT_EQ(r.status, MCPP_OK);
    CHECK_INT_EQ(r.total, 0);
    mcpp_accelerator a;
    CHECK_INT_EQ(mcpp_accelerator_canonicalize(&a, NULL, "CPU"), MCPP_OK);
    CHECK(a.matched);
    CHECK_STR_EQ(a.id, "cpu");
    CHECK_STR_EQ(a.form_factor, "cpu");
    int ok = -1;
    CHECK_INT_EQ(mcpp_accelerator_satisfies(&ok, NULL, 0, NULL, "cuda", "cpu"), MCPP_OK);
    CHECK_INT_EQ(ok, 0); /* a CPU is no device of a GPU platform */
}

/* ---- the builder ----------------------------------------------------------------------- */

TEST(builder_adds_named_metrics_and_derives_block_counts)
{
    mcpp_builder *b = NULL;
    CHECK_INT_EQ(mcpp_builder_new(&b), MCPP_OK);
    mcpp_builder_set_string(b, "lane.family", "NAM56R");
    mcpp_builder_set_string(b, "lane.pattern", "AEMEAEMEAEMR");
    mcpp_builder_set_int(b, "lane.depth", 52);
    mcpp_builder_set_string(b, "routing.mode", "token_choice");
    const double s[] = {10.0, 12.0, 11.0};
    CHECK_INT_EQ(mcpp_builder_add_metric(b, "gemm_tflops", "TFLOP/s", MCPP_DIRECTION_HIGHER, 11.0,
                                         "median", "repetition", s, 3),
                 MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_add_metric(b, "tokens_per_s", "tokens/s", MCPP_DIRECTION_HIGHER, 1,
                                         NULL, NULL, NULL, 0),
                 MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_builder_add_metric(b, "x", "s", MCPP_DIRECTION_LOWER, NAN, NULL, NULL, NULL,
                                         0),
                 MCPP_EINVALID);
    /* more samples than a receipt file may hold are refused here, naming the
     * limit, so no path builds a receipt that validate and the store refuse */
    enum { OVER = 1000001 };
    double *many = malloc(OVER * sizeof *many);
    for (size_t i = 0; many && i < OVER; i++) many[i] = 1.0 + (double)(i % 7);
    CHECK_INT_EQ(mcpp_builder_add_metric(b, "many", "s", MCPP_DIRECTION_LOWER, 4.0, NULL, "round", many, OVER),
                 MCPP_ELIMIT);
    CHECK_CONTAINS(mcpp_error_last()->message, "1000001 samples are over the limit of 1000000 items per list");
    free(many);
    /* failed setters are sticky until the caller says it handled them */
    CHECK_INT_EQ(mcpp_builder_error_count(b), 3);
    mcpp_builder_clear_errors(b);
    CHECK_INT_EQ(mcpp_builder_set_json(b, "features.stp", "true"), MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_set_string(b, "metrics.primary", "gemm_tflops"), MCPP_OK);
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_OK);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK(r && mcpp_receipt_get(r, "lane.blocks.E", &v) == MCPP_OK && v.integer == 22);
    CHECK(r && mcpp_receipt_get(r, "lane.blocks.R", &v) == MCPP_OK && v.integer == 4);
    CHECK(r && mcpp_receipt_get(r, "schema", &v) == MCPP_OK &&
          strcmp(v.string, "mcpp.receipt/2") == 0);
    mcpp_metric m;
    CHECK(r && mcpp_receipt_metric_find(&m, r, "gemm_tflops") == MCPP_OK && m.sample_count == 3 &&
          mcpp_metric_sample(&m, 1) == 12.0);
    CHECK_STR_EQ(r ? mcpp_receipt_metric_primary(r) : "", "gemm_tflops");
    mcpp_receipt_free(r);
    /* a value that is not the stated aggregate fails at finish, like a file would */
    CHECK_INT_EQ(mcpp_builder_add_metric(b, "bad", "s", MCPP_DIRECTION_LOWER, 5.0, "max",
                                         "repetition", s, 3),
                 MCPP_OK);
    CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->message,
                 "metrics.named[1].value: expected the max of the 3 samples (12, within 0.5%), got "
                 "5");
    mcpp_builder_free(b);
}

int main(void)
{
    RUN(schema1_file_is_upgraded_with_a_warning);
    RUN(schema1_file_may_not_state_schema2_fields);
    RUN(schema1_written_back_is_the_schema1_layout_and_round_trips);
    RUN(schema1_write_refuses_what_does_not_fit);
    RUN(schema2_receipts_round_trip_byte_identical_in_json_and_yaml);
    RUN(new_fields_read_back_by_path_and_by_metric);
    RUN(named_metric_rules_each_with_its_message);
    RUN(a_huge_list_of_repeated_metric_names_is_refused_promptly);
    RUN(precision_recipes_follow_the_grammar);
    RUN(run_features_not_recorded_and_enums);
    RUN(registered_families_fix_pattern_depth_and_counts);
    RUN(alias_table_maps_raw_names_to_one_id);
    RUN(satisfies_compares_ids_and_model_only_requests);
    RUN(a_table_can_be_extended_without_touching_the_shipped_one);
    RUN(the_shipped_table_loads_once_under_concurrent_first_use);
    RUN(unknown_accelerator_names_warn);
    RUN(plain_cpu_is_a_known_accelerator_and_draws_no_warning);
    RUN(builder_adds_named_metrics_and_derives_block_counts);
    TEST_MAIN_END();
}
