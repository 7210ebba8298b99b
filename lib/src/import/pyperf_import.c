/*
 * pyperf_import.c — pyperf JSON (a pyperf.Runner script's -o FILE, pyperformance
 * results) onto receipts: one receipt per benchmark. pyperf runs a benchmark in
 * several worker processes ("runs"), each measuring a few values; each run
 * becomes one sample (the mean of its values), kind run, so the gate's
 * run-to-run model sees the process-to-process spread. The values themselves
 * stay in extra. Machine facts come from the metadata pyperf collects.
 * docs/import.md has the mapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_internal.h"
#include "util/error_internal.h"

static const char *const NOT_RECORDED[] = {"lane", "workload", "routing", "compile", "backend",
                                           "launch", "startup"};

/* Metadata keys that map onto fields; every other one goes to extra.pyperf.metadata. */
static const char *const MAPPED[] = {"name", "hostname", "cpu_model_name", "cpu_count",
                                     "python_implementation", "python_version", "perf_version", "unit"};

/* pyperf's units: the metric name and unit of each. pyperf compares every unit
 * the same way (a larger value is "slower"), so each is lower-is-better. */
static int metric_of(const char **name, const char **unit, const char *pyperf_unit)
{
    static const struct { const char *pyperf, *name, *unit; } UNITS[] = {
        {"second", "time_s", "s"}, {"byte", "memory_bytes", "B"}, {"integer", "value", "1"}};
    for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++)
        if (strcmp(pyperf_unit, UNITS[i].pyperf) == 0) {
            *name = UNITS[i].name;
            *unit = UNITS[i].unit;
            return 1;
        }
    return 0;
}

/* A metadata value of the benchmark, else of the file (pyperf's "common metadata"). */
static const cJSON *meta(const cJSON *root, const cJSON *bench, const char *key)
{
    const cJSON *v = mcpp_import_member(mcpp_import_member(bench, "metadata"), key);
    return v ? v : mcpp_import_member(mcpp_import_member(root, "metadata"), key);
}

static const char *unit_of(const cJSON *root, const cJSON *bench)
{
    const char *u = mcpp_import_string(meta(root, bench, "unit"));
    return u ? u : "second"; /* pyperf's default */
}

static int check_benchmark(const mcpp_import_json *doc, const cJSON *bench, int i)
{
    char field[64];
    const char *name, *unit;
    snprintf(field, sizeof field, "benchmarks[%d]", i);
    if (!cJSON_IsObject(bench) || !mcpp_import_string(meta(doc->root, bench, "name")))
        return mcpp_import_json_error(doc, bench, "missing", field,
                                      "expected a benchmark with a string \"metadata\".\"name\"");
    if (!metric_of(&name, &unit, unit_of(doc->root, bench)))
        return mcpp_import_json_error(doc, meta(doc->root, bench, "unit"), "type", field,
                                      "unit: expected second, byte or integer");
    const cJSON *runs = mcpp_import_member(bench, "runs");
    if (!cJSON_IsArray(runs))
        return mcpp_import_json_error(doc, bench, "missing", field, "expected a list \"runs\"");
    int with_values = 0, r = 0;
    for (const cJSON *run = runs->child; run; run = run->next, r++) {
        const cJSON *values = mcpp_import_member(run, "values");
        snprintf(field, sizeof field, "benchmarks[%d].runs[%d].values", i, r);
        if (values && !cJSON_IsArray(values))
            return mcpp_import_json_error(doc, values, "type", field, "expected a list of numbers");
        for (const cJSON *v = values ? values->child : NULL; v; v = v->next) {
            double d;
            if (!mcpp_import_number(&d, v) || d < 0)
                return mcpp_import_json_error(doc, v, "type", field, "expected a number >= 0");
        }
        with_values += cJSON_GetArraySize(values) > 0;
    }
    snprintf(field, sizeof field, "benchmarks[%d].runs", i);
    if (with_values == 0)
        return mcpp_import_json_error(doc, runs, "missing", field,
                                      "no run with values (only calibration or warmup runs)");
    return MCPP_OK;
}

static int check_shape(const mcpp_import_json *doc)
{
    const cJSON *benchmarks = mcpp_import_member(doc->root, "benchmarks");
    if (!cJSON_IsObject(doc->root) || !cJSON_IsArray(benchmarks) || !mcpp_import_member(doc->root, "version")) {
        int pytest = cJSON_HasObjectItem(doc->root, "machine_info");
        return mcpp_import_json_error(doc, doc->root, "type", NULL,
                                      "not pyperf JSON: expected an object with \"version\" and "
                                      "\"benchmarks\"%s",
                                      pytest ? " (this is pytest-benchmark output: import it as "
                                               "pytest-benchmark)" : "");
    }
    int i = 0, rc = MCPP_OK;
    for (const cJSON *bench = benchmarks->child; rc == MCPP_OK && bench; bench = bench->next, i++)
        rc = check_benchmark(doc, bench, i);
    if (rc == MCPP_OK && i == 0)
        rc = mcpp_import_json_error(doc, benchmarks, "missing", "benchmarks", "no benchmarks");
    return rc;
}

/* One sample per run with values: the mean of its values. The values per run,
 * the first and last run's date (local time, no zone) go to extra. */
static int add_runs(mcpp_builder *b, cJSON *extra, const cJSON *root, const cJSON *bench, double *buf)
{
    const char *name = "time_s", *unit = "s";
    metric_of(&name, &unit, unit_of(root, bench));
    cJSON *values = cJSON_AddArrayToObject(extra, "values");
    cJSON *dates = cJSON_AddArrayToObject(extra, "run_dates");
    if (!values || !dates)
        return mcpp_error_nomem();
    size_t n = 0;
    double total = 0;
    const char *first = NULL, *last = NULL;
    for (const cJSON *run = mcpp_import_member(bench, "runs")->child; run; run = run->next) {
        const cJSON *vs = mcpp_import_member(run, "values");
        int k = cJSON_GetArraySize(vs);
        if (k == 0)
            continue;
        double sum = 0, d;
        for (const cJSON *v = vs->child; v; v = v->next)
            sum += mcpp_import_number(&d, v) ? d : 0;
        buf[n] = sum / k;
        total += buf[n++];
        cJSON_AddItemToArray(values, cJSON_Duplicate(vs, 1));
        const char *date = mcpp_import_string(mcpp_import_member(mcpp_import_member(run, "metadata"), "date"));
        if (date) {
            first = first ? first : date;
            last = date;
        }
    }
    if (first) {
        cJSON_AddItemToArray(dates, cJSON_CreateString(first));
        cJSON_AddItemToArray(dates, cJSON_CreateString(last));
    }
    int rc = mcpp_builder_add_metric(b, name, unit, MCPP_DIRECTION_LOWER, total / (double)n,
                                     n == 1 ? "single" : "mean", "run", buf, n);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "metrics.primary", name);
    return rc;
}

/* The merged metadata (benchmark over file) onto source, software, hardware. */
static int map_metadata(mcpp_builder *b, cJSON *extra, const cJSON *root, const cJSON *bench)
{
    const char *host = mcpp_import_string(meta(root, bench, "hostname"));
    const char *impl = mcpp_import_string(meta(root, bench, "python_implementation"));
    const char *pyver = mcpp_import_string(meta(root, bench, "python_version"));
    const char *version = mcpp_import_string(meta(root, bench, "perf_version"));
    int64_t cores = 0;
    mcpp_import_integer(&cores, meta(root, bench, "cpu_count"));
    int rc = mcpp_import_set_cpu(b, mcpp_import_string(meta(root, bench, "cpu_model_name")), cores);
    const mcpp_import_text texts[] = {{"source.host", host},
                                      {"software.framework", impl},
                                      {"software.version", pyver},
                                      {"benchmark.suite_version", version}};
    if (rc == MCPP_OK)
        rc = mcpp_import_set_texts(b, texts, sizeof texts / sizeof texts[0]);
    cJSON *rest = cJSON_AddObjectToObject(extra, "metadata");
    if (!rest)
        return mcpp_error_nomem();
    const cJSON *layers[2] = {mcpp_import_member(root, "metadata"), mcpp_import_member(bench, "metadata")};
    for (int l = 0; l < 2; l++)
        for (const cJSON *c = cJSON_IsObject(layers[l]) ? layers[l]->child : NULL; c; c = c->next) {
            if (mcpp_import_is_one_of(c->string, MAPPED, sizeof MAPPED / sizeof MAPPED[0]) || cJSON_IsNull(c))
                continue;
            cJSON_DeleteItemFromObjectCaseSensitive(rest, c->string); /* the benchmark's wins */
            cJSON_AddItemToObject(rest, c->string, cJSON_Duplicate(c, 1));
        }
    return rc;
}

static int import_benchmark(mcpp_import_sink *sink, const mcpp_import_json *doc, const cJSON *bench)
{
    const char *name = mcpp_import_string(meta(doc->root, bench, "name"));
    int n_runs = cJSON_GetArraySize(mcpp_import_member(bench, "runs"));
    double *buf = malloc(((size_t)n_runs + 1) * sizeof *buf);
    mcpp_builder *b = NULL;
    cJSON *extra = cJSON_CreateObject();
    int rc = buf && extra ? mcpp_import_begin(&b, "pyperf", "pyperf", NOT_RECORDED,
                                              sizeof NOT_RECORDED / sizeof NOT_RECORDED[0])
                          : mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = mcpp_import_set_name(b, name);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "topology.substrate", "cpu");
    if (rc == MCPP_OK)
        rc = map_metadata(b, extra, doc->root, bench);
    if (rc == MCPP_OK)
        rc = add_runs(b, extra, doc->root, bench, buf);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "status.outcome", "ok");
    if (rc == MCPP_OK) /* extra.pyperf always holds the runs' values and dates */
        rc = mcpp_import_finish_tool(sink, b, extra, "pyperf", name, doc->path);
    mcpp_builder_free(b);
    cJSON_Delete(extra);
    free(buf);
    return rc;
}

int mcpp_import_pyperf_file(mcpp_import_sink *sink, const char *path)
{
    return mcpp_import_json_list_file(sink, path, check_shape, "benchmarks", import_benchmark);
}
