/*
 * pytest_benchmark_import.c — pytest-benchmark JSON (pytest --benchmark-json=
 * FILE) onto receipts: one receipt per benchmark, metric time_s (seconds per
 * iteration, lower is better) with the raw round times as samples when the
 * file has them (stats.data), else the stated median alone. Machine and commit
 * info map onto source, software and hardware.host; the rest stays in extra.
 * docs/import.md has the field mapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_internal.h"
#include "util/error_internal.h"

static const char *const NOT_RECORDED[] = {"lane", "workload", "routing", "compile", "backend",
                                           "launch", "startup"};

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static int check_shape(const mcpp_import_json *doc)
{
    const cJSON *root = doc->root;
    const cJSON *benchmarks = member(root, "benchmarks");
    if (!cJSON_IsObject(member(root, "machine_info")) || !cJSON_IsArray(benchmarks)) {
        int gbench = cJSON_HasObjectItem(root, "context");
        return mcpp_import_json_error(doc, root, "type", NULL,
                                      "not pytest-benchmark JSON output: expected an object with "
                                      "\"machine_info\" and \"benchmarks\"%s",
                                      gbench ? " (this is Google Benchmark output: import it as "
                                               "google-benchmark)" : "");
    }
    int i = 0;
    for (const cJSON *bench = benchmarks->child; bench; bench = bench->next, i++) {
        char field[48];
        snprintf(field, sizeof field, "benchmarks[%d]", i);
        double median;
        if (!cJSON_IsObject(bench) || !mcpp_import_string(member(bench, "fullname")))
            return mcpp_import_json_error(doc, bench, "missing", field,
                                          "expected a benchmark with a string \"fullname\"");
        if (!mcpp_import_number(&median, member(member(bench, "stats"), "median")) || median <= 0)
            return mcpp_import_json_error(doc, bench, "missing", field,
                                          "expected \"stats\" with a positive number \"median\"");
    }
    if (i == 0)
        return mcpp_import_json_error(doc, benchmarks, "missing", "benchmarks", "no benchmarks");
    return MCPP_OK;
}

/* machine_info and commit_info: the same for every benchmark of the file. */
static int map_machine(mcpp_builder *b, cJSON *extra, const cJSON *root)
{
    cJSON *machine = cJSON_Duplicate(member(root, "machine_info"), 1);
    cJSON *commit = cJSON_Duplicate(member(root, "commit_info"), 1);
    cJSON *cpu = cJSON_GetObjectItemCaseSensitive(machine, "cpu");
    const char *node = mcpp_import_string(member(machine, "node"));
    const char *impl = mcpp_import_string(member(machine, "python_implementation"));
    const char *pyver = mcpp_import_string(member(machine, "python_version"));
    const char *brand = mcpp_import_string(member(cpu, "brand_raw"));
    const char *commit_id = mcpp_import_string(member(commit, "id"));
    int64_t cores = 0;
    int rc = machine ? MCPP_OK : mcpp_error_nomem();
    if (rc == MCPP_OK && node)
        rc = mcpp_builder_set_string(b, "source.host", node);
    if (rc == MCPP_OK && impl)
        rc = mcpp_builder_set_string(b, "software.framework", impl);
    if (rc == MCPP_OK && pyver)
        rc = mcpp_builder_set_string(b, "software.version", pyver);
    if (rc == MCPP_OK && brand) {
        char accel[300];
        snprintf(accel, sizeof accel, "cpu: %.250s", brand);
        rc = mcpp_builder_set_string(b, "hardware.host.cpu", brand);
        if (rc == MCPP_OK)
            rc = mcpp_builder_set_string(b, "hardware.observed.accelerator", accel);
        if (rc == MCPP_OK)
            rc = mcpp_builder_set_string(b, "hardware.observed.source", "probed");
    }
    if (rc == MCPP_OK && mcpp_import_integer(&cores, member(cpu, "count")) && cores >= 1)
        rc = mcpp_builder_set_int(b, "hardware.host.cores", cores);
    /* "unversioned" is what pytest-benchmark writes outside a repository: not a commit */
    if (rc == MCPP_OK && commit_id && strcmp(commit_id, "unversioned") != 0) {
        rc = mcpp_builder_set_string(b, "source.git_commit", commit_id);
        cJSON_DeleteItemFromObjectCaseSensitive(commit, "id");
    }
    if (cpu) {
        cJSON_DeleteItemFromObjectCaseSensitive(cpu, "brand_raw");
        cJSON_DeleteItemFromObjectCaseSensitive(cpu, "count");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(machine, "node");
    cJSON_DeleteItemFromObjectCaseSensitive(machine, "python_implementation");
    cJSON_DeleteItemFromObjectCaseSensitive(machine, "python_version");
    if (machine)
        cJSON_AddItemToObject(extra, "machine_info", machine);
    if (commit)
        cJSON_AddItemToObject(extra, "commit_info", commit);
    return rc;
}

/* time_s from stats: the round times when stats.data has them, else the median. */
static int add_time_metric(mcpp_builder *b, const cJSON *stats, double *buf, size_t cap)
{
    double median = 0;
    mcpp_import_number(&median, member(stats, "median"));
    const cJSON *data = member(stats, "data");
    size_t n = 0;
    for (const cJSON *d = cJSON_IsArray(data) ? data->child : NULL; d && n < cap; d = d->next)
        if (mcpp_import_number(&buf[n], d) && buf[n] > 0)
            n++;
    int rc = n > 0 ? mcpp_quantile(&median, buf, n, 0.5) : MCPP_OK; /* the rounds' median, if any */
    if (rc == MCPP_OK)
        rc = n > 0 ? mcpp_builder_add_metric(b, "time_s", "s", MCPP_DIRECTION_LOWER, median, "median", "round",
                                             buf, n)
                   : mcpp_builder_add_metric(b, "time_s", "s", MCPP_DIRECTION_LOWER, median, NULL, NULL, NULL,
                                             0);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "metrics.primary", "time_s");
    return rc;
}

static int import_benchmark(mcpp_receipt_set *set, const mcpp_import_json *doc, const cJSON *bench)
{
    const cJSON *root = doc->root;
    const char *fullname = mcpp_import_string(member(bench, "fullname"));
    const char *date = mcpp_import_string(member(root, "datetime"));
    const char *version = mcpp_import_string(member(root, "version"));
    const cJSON *stats = member(bench, "stats");
    int n_data = cJSON_GetArraySize(member(stats, "data"));
    double *buf = malloc(((size_t)(n_data > 0 ? n_data : 0) + 1) * sizeof *buf);
    mcpp_builder *b = NULL;
    cJSON *extra = cJSON_CreateObject();
    int rc = buf && extra ? mcpp_builder_new(&b) : mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "source.tool", "mcpp-receipts import pytest-benchmark");
    for (size_t i = 0; rc == MCPP_OK && i < sizeof NOT_RECORDED / sizeof NOT_RECORDED[0]; i++)
        rc = mcpp_builder_append_string(b, "source.not_recorded", NOT_RECORDED[i]);
    if (rc == MCPP_OK && date && mcpp_import_has_zone(date))
        rc = mcpp_builder_set_string(b, "created_at", date);
    else if (date)
        cJSON_AddStringToObject(extra, "datetime", date);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "benchmark.suite", "pytest-benchmark");
    if (rc == MCPP_OK && version)
        rc = mcpp_builder_set_string(b, "benchmark.suite_version", version);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "benchmark.name", fullname);
    if (rc == MCPP_OK) /* the lane's display label (no policy dimension reads lane.name) */
        rc = mcpp_builder_set_string(b, "lane.name", fullname);
    if (rc == MCPP_OK && cJSON_IsObject(member(bench, "params")))
        rc = mcpp_import_set_json(b, "benchmark.params", member(bench, "params"));
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "topology.substrate", "cpu");
    if (rc == MCPP_OK)
        rc = map_machine(b, extra, root);
    if (rc == MCPP_OK)
        rc = add_time_metric(b, stats, buf, (size_t)(n_data > 0 ? n_data : 0));
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "status.outcome", "ok");
    /* the benchmark's other members, and its stats but the round times */
    for (const cJSON *c = bench->child; rc == MCPP_OK && c; c = c->next) {
        if (strcmp(c->string, "fullname") == 0 || strcmp(c->string, "params") == 0 || cJSON_IsNull(c))
            continue;
        cJSON *copy = NULL;
        if (strcmp(c->string, "stats") == 0) {
            /* member by member, leaving out the round times: duplicating them
             * only to delete them cost ~100 bytes per round (issue 28) */
            copy = cJSON_CreateObject();
            for (const cJSON *m = c->child; copy && m; m = m->next)
                if (strcmp(m->string, "data") != 0)
                    cJSON_AddItemToObject(copy, m->string, cJSON_Duplicate(m, 1));
        } else {
            copy = cJSON_Duplicate(c, 1);
        }
        cJSON_AddItemToObject(extra, c->string, copy);
    }
    if (rc == MCPP_OK)
        rc = mcpp_import_set_json(b, "extra.pytest_benchmark", extra);
    if (rc == MCPP_OK) {
        char readable[200];
        snprintf(readable, sizeof readable, "pytest-%s", fullname);
        rc = mcpp_import_finish(set, b, readable, doc->path);
    }
    mcpp_builder_free(b);
    cJSON_Delete(extra);
    free(buf);
    return rc;
}

int mcpp_import_pytest_benchmark_file(mcpp_receipt_set *set, const char *path)
{
    mcpp_import_json doc;
    int rc = mcpp_import_json_open(&doc, path);
    if (rc != MCPP_OK)
        return rc;
    rc = check_shape(&doc);
    const cJSON *benchmarks = cJSON_GetObjectItemCaseSensitive(doc.root, "benchmarks");
    for (const cJSON *bench = rc == MCPP_OK ? benchmarks->child : NULL; rc == MCPP_OK && bench;
         bench = bench->next)
        rc = import_benchmark(set, &doc, bench);
    mcpp_import_json_free(&doc);
    return rc;
}
