/*
 * asv_import.c — airspeed velocity (asv) results onto receipts: one receipt per
 * benchmark and parameter combination of a results file
 * (results/<machine>/<commit>-<env>.json, format version 2). With
 * `asv run --record-samples` the samples (rounds × repeats) are the metric's
 * samples, kind repetition, and the value is their median (asv's result);
 * without, the value is asv's result and its quartiles and 99% interval stay
 * in extra. The benchmark's type and unit come from results/benchmarks.json
 * beside the machine directories, else from the name (time_, mem_, peakmem_,
 * track_ as asv itself tells them apart). docs/import.md has the mapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import/import_internal.h"
#include "util/error_internal.h"

#define MAX_DIR_DEPTH 8

static const char *const NOT_RECORDED[] = {"lane", "workload", "routing", "compile", "backend",
                                           "launch", "startup"};

/* One results file with what its rows need. */
typedef struct asv_file {
    mcpp_import_json doc;
    mcpp_import_json benchmarks; /* results/benchmarks.json; root NULL when absent */
    char *benchmarks_path;       /* owned: benchmarks.path points at it           */
    int col_result, col_params, col_version, col_started, col_duration, col_samples;
    const cJSON *columns;
} asv_file;

static int column(const cJSON *columns, const char *name)
{
    int i = 0;
    for (const cJSON *c = columns->child; c; c = c->next, i++)
        if (cJSON_IsString(c) && strcmp(c->valuestring, name) == 0)
            return i;
    return -1;
}

static const cJSON *cell(const cJSON *row, int col)
{
    return col >= 0 ? cJSON_GetArrayItem(row, col) : NULL;
}

/* The part of a benchmark name after the last '.': time_sort of suite.Class.time_sort. */
static const char *short_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

/* Metric name, unit and sample-free type of a benchmark. asv compares every type
 * the same way (a larger value is worse), so each is lower-is-better. */
static int metric_of(const char **metric, const char **unit, const asv_file *f, const char *bench)
{
    const cJSON *info = mcpp_import_member(f->benchmarks.root, bench);
    const char *type = mcpp_import_string(mcpp_import_member(info, "type"));
    const char *stated = mcpp_import_string(mcpp_import_member(info, "unit"));
    const char *s = short_name(bench);
    if (!type)
        type = strncmp(s, "time_", 5) == 0      ? "time"
               : strncmp(s, "mem_", 4) == 0     ? "memory"
               : strncmp(s, "peakmem_", 8) == 0 ? "peakmemory"
               : strncmp(s, "track_", 6) == 0   ? "track"
                                                : NULL;
    if (!type)
        return 0;
    if (strcmp(type, "time") == 0) {
        *metric = "time_s";
        *unit = "s";
    } else if (strcmp(type, "memory") == 0 || strcmp(type, "peakmemory") == 0) {
        *metric = type[0] == 'p' ? "peak_memory_bytes" : "memory_bytes";
        *unit = "B";
    } else {
        *metric = "value";
        *unit = stated ? stated : "1";
    }
    return 1;
}

static int check_row(const asv_file *f, const cJSON *row)
{
    char field[300];
    const char *metric, *unit;
    snprintf(field, sizeof field, "results.%.250s", row->string);
    if (!cJSON_IsArray(row))
        return mcpp_import_json_error(&f->doc, row, "type", field, "expected a list of columns");
    if (!metric_of(&metric, &unit, f, row->string))
        return mcpp_import_json_error(&f->doc, row, "type", field,
                                      "benchmark type unknown: no results/benchmarks.json entry and the "
                                      "name starts with none of time_, mem_, peakmem_, track_");
    const cJSON *result = cell(row, f->col_result), *params = cell(row, f->col_params);
    if (!cJSON_IsArray(result) || (params && !cJSON_IsArray(params)))
        return mcpp_import_json_error(&f->doc, row, "type", field,
                                      "expected \"result\" and \"params\" columns that are lists");
    size_t combos = 1;
    for (const cJSON *p = params ? params->child : NULL; p; p = p->next)
        combos *= (size_t)cJSON_GetArraySize(p);
    if ((size_t)cJSON_GetArraySize(result) != combos)
        return mcpp_import_json_error(&f->doc, result, "type", field,
                                      "%d results for %zu parameter combinations",
                                      cJSON_GetArraySize(result), combos);
    for (const cJSON *v = result->child; v; v = v->next) {
        double d;
        if (!cJSON_IsNull(v) && !mcpp_import_number(&d, v))
            return mcpp_import_json_error(&f->doc, v, "type", field, "expected a number or null");
    }
    return MCPP_OK;
}

static int check_shape(asv_file *f)
{
    const cJSON *root = f->doc.root, *results = mcpp_import_member(root, "results");
    int64_t version = 0;
    f->columns = mcpp_import_member(root, "result_columns");
    if (!cJSON_IsObject(root) || !cJSON_IsObject(results) || !cJSON_IsArray(f->columns))
        return mcpp_import_json_error(&f->doc, root, "type", NULL,
                                      "not an asv results file: expected an object with \"results\" "
                                      "and \"result_columns\"");
    if (!mcpp_import_integer(&version, mcpp_import_member(root, "version")) || version != 2)
        return mcpp_import_json_error(&f->doc, mcpp_import_member(root, "version"), "type", "version",
                                      "expected asv results format version 2");
    f->col_result = column(f->columns, "result");
    f->col_params = column(f->columns, "params");
    f->col_version = column(f->columns, "version");
    f->col_started = column(f->columns, "started_at");
    f->col_duration = column(f->columns, "duration");
    f->col_samples = column(f->columns, "samples");
    if (f->col_result < 0)
        return mcpp_import_json_error(&f->doc, f->columns, "missing", "result_columns",
                                      "no \"result\" column");
    int rc = MCPP_OK;
    for (const cJSON *row = results->child; rc == MCPP_OK && row; row = row->next)
        rc = check_row(f, row);
    return rc;
}

/* The machine facts (results "params", copied from machine.json by asv), commit,
 * environment: the same for every receipt of the file. */
static int map_file(mcpp_builder *b, cJSON *extra, const cJSON *root)
{
    const cJSON *params = mcpp_import_member(root, "params");
    const char *machine = mcpp_import_string(mcpp_import_member(params, "machine"));
    const char *commit = mcpp_import_string(mcpp_import_member(root, "commit_hash"));
    const char *python = mcpp_import_string(mcpp_import_member(root, "python"));
    int64_t cpus = 0;
    mcpp_import_integer(&cpus, mcpp_import_member(params, "num_cpu"));
    const char *cpu = mcpp_import_string(mcpp_import_member(params, "cpu"));
    int rc = mcpp_import_set_cpu(b, cpu && *cpu ? cpu : NULL, cpus);
    /* `asv machine --yes --machine NAME` records the name only: the hardware is
     * not recorded by the source (not missing), so two such runs still compare */
    if (rc == MCPP_OK && !(cpu && *cpu))
        rc = mcpp_builder_append_string(b, "source.not_recorded", "hardware");
    const mcpp_import_text texts[] = {{"source.host", machine},
                                      {"source.git_commit", commit},
                                      {"software.framework", python ? "python" : NULL},
                                      {"software.version", python}};
    if (rc == MCPP_OK)
        rc = mcpp_import_set_texts(b, texts, sizeof texts / sizeof texts[0]);
    if (rc == MCPP_OK && cJSON_GetArraySize(mcpp_import_member(root, "requirements")) > 0)
        rc = mcpp_import_set_json(b, "software.components", mcpp_import_member(root, "requirements"));
    static const char *const KEPT[] = {"env_name", "env_vars", "params", "date"};
    for (size_t i = 0; i < sizeof KEPT / sizeof KEPT[0]; i++)
        if (mcpp_import_member(root, KEPT[i]) && !cJSON_IsNull(mcpp_import_member(root, KEPT[i])))
            cJSON_AddItemToObject(extra, KEPT[i], cJSON_Duplicate(mcpp_import_member(root, KEPT[i]), 1));
    return rc;
}

/* Parameter combination `k` (asv's order: the first parameter varies slowest)
 * as {name: value}, the names from benchmarks.json, else param1, param2... */
static cJSON *combination(const asv_file *f, const char *bench, const cJSON *params, size_t k,
                          char *label, size_t cap)
{
    cJSON *obj = cJSON_CreateObject();
    const cJSON *names = mcpp_import_member(mcpp_import_member(f->benchmarks.root, bench), "param_names");
    int n = cJSON_GetArraySize(params);
    size_t used = 0;
    label[0] = '\0';
    for (int i = 0; obj && i < n; i++) {
        const cJSON *values = cJSON_GetArrayItem(params, i);
        size_t inner = 1;
        for (int j = i + 1; j < n; j++)
            inner *= (size_t)cJSON_GetArraySize(cJSON_GetArrayItem(params, j));
        const cJSON *v = cJSON_GetArrayItem(values, (int)((k / inner) % (size_t)cJSON_GetArraySize(values)));
        char fallback[16];
        const char *name = mcpp_import_string(cJSON_GetArrayItem(names, i));
        if (!name) {
            snprintf(fallback, sizeof fallback, "param%d", i + 1);
            name = fallback;
        }
        cJSON_AddItemToObject(obj, name, cJSON_Duplicate(v, 0));
        if (cJSON_IsString(v) && used < cap)
            used += (size_t)snprintf(label + used, cap - used, "-%s", v->valuestring);
    }
    return obj;
}

static int add_metric(mcpp_builder *b, cJSON *extra, const asv_file *f, const cJSON *row, size_t k,
                      const char *metric, const char *unit)
{
    double value = 0;
    mcpp_import_number(&value, cJSON_GetArrayItem(cell(row, f->col_result), (int)k));
    const cJSON *samples = cJSON_GetArrayItem(cell(row, f->col_samples), (int)k);
    int n = cJSON_IsArray(samples) ? cJSON_GetArraySize(samples) : 0;
    double *buf = malloc(((size_t)n + 1) * sizeof *buf);
    if (!buf)
        return mcpp_error_nomem();
    size_t m = 0;
    int rc = MCPP_OK, at = 0;
    for (const cJSON *s = n ? samples->child : NULL; s && rc == MCPP_OK; s = s->next, at++)
        if (mcpp_import_number(&buf[m], s)) {
            /* a time or a size below 0 is damage, not a measurement (issue 48:
             * a negative sample became a negative time); track_ values may be */
            if (buf[m] < 0 && (strcmp(unit, "s") == 0 || strcmp(unit, "B") == 0)) {
                char field[256];
                snprintf(field, sizeof field, "results.%s.samples[%zu][%d]", row->string ? row->string : "?", k, at);
                rc = mcpp_import_json_error(&f->doc, s, "range", field, "a %s sample of %g %s: it cannot be negative",
                                            metric, buf[m], unit);
            }
            m++;
        }
    if (rc != MCPP_OK) {
        free(buf);
        return rc;
    }
    rc = m > 0 ? mcpp_import_add_samples(b, metric, unit, MCPP_DIRECTION_LOWER, "repetition", buf, m)
               : mcpp_builder_add_metric(b, metric, unit, MCPP_DIRECTION_LOWER, value, NULL, NULL, NULL, 0);
    free(buf);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "metrics.primary", metric);
    /* asv's own statistics of this combination: result, quartiles, 99% interval, counts */
    cJSON *stats = cJSON_AddObjectToObject(extra, "stats");
    int i = 0;
    for (const cJSON *c = f->columns->child; stats && c; c = c->next, i++) {
        const cJSON *v = cJSON_GetArrayItem(cell(row, i), (int)k);
        if (cJSON_IsString(c) && (strcmp(c->valuestring, "result") == 0 || strncmp(c->valuestring, "stats_", 6) == 0) &&
            cJSON_IsNumber(v))
            cJSON_AddItemToObject(stats, c->valuestring, cJSON_Duplicate(v, 0));
    }
    return rc;
}

static int import_combination(mcpp_import_sink *sink, const asv_file *f, const cJSON *row, size_t k)
{
    const char *metric = "time_s", *unit = "s", *bench = row->string;
    metric_of(&metric, &unit, f, bench);
    char label[160];
    mcpp_builder *b = NULL;
    cJSON *extra = cJSON_CreateObject();
    cJSON *params = combination(f, bench, cell(row, f->col_params), k, label, sizeof label);
    int rc = extra && params ? mcpp_import_begin(&b, "asv", "asv", NOT_RECORDED,
                                                 sizeof NOT_RECORDED / sizeof NOT_RECORDED[0])
                             : mcpp_error_nomem();
    int64_t started = 0;
    if (rc == MCPP_OK)
        rc = mcpp_import_set_name(b, bench);
    if (rc == MCPP_OK && cJSON_GetArraySize(params) > 0)
        rc = mcpp_import_set_json(b, "benchmark.params", params);
    if (rc == MCPP_OK && (mcpp_import_integer(&started, cell(row, f->col_started)) ||
                          mcpp_import_integer(&started, mcpp_import_member(f->doc.root, "date")))) {
        char when[40];
        mcpp_import_rfc3339_from_ms(when, sizeof when, started);
        rc = mcpp_builder_set_string(b, "created_at", when);
    }
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "topology.substrate", "cpu");
    if (rc == MCPP_OK)
        rc = map_file(b, extra, f->doc.root);
    if (rc == MCPP_OK)
        rc = add_metric(b, extra, f, row, k, metric, unit);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "status.outcome", "ok");
    if (cell(row, f->col_version))
        cJSON_AddItemToObject(extra, "version", cJSON_Duplicate(cell(row, f->col_version), 0));
    if (cJSON_IsNumber(cell(row, f->col_duration)))
        cJSON_AddItemToObject(extra, "duration", cJSON_Duplicate(cell(row, f->col_duration), 0));
    if (rc == MCPP_OK)
        rc = mcpp_import_set_json(b, "extra.asv", extra);
    if (rc == MCPP_OK) {
        char readable[220];
        snprintf(readable, sizeof readable, "asv-%s%s", bench, label);
        rc = mcpp_import_finish(sink, b, readable, f->doc.path);
    }
    mcpp_builder_free(b);
    cJSON_Delete(extra);
    cJSON_Delete(params);
    return rc;
}

/* results/benchmarks.json for results/<machine>/<file>.json, when it exists. */
static int open_benchmarks(asv_file *f, const char *path)
{
    size_t n = strlen(path);
    char *bj = f->benchmarks_path = malloc(n + 32);
    if (!bj)
        return mcpp_error_nomem();
    memcpy(bj, path, n + 1);
    char *slash = strrchr(bj, '/');
    if (slash)
        *slash = '\0';
    slash = strrchr(bj, '/');
    if (slash)
        strcpy(slash + 1, "benchmarks.json");
    else
        snprintf(bj, n + 32, "../benchmarks.json");
    struct stat st;
    int rc = stat(bj, &st) == 0 && S_ISREG(st.st_mode) ? mcpp_import_json_open(&f->benchmarks, bj) : MCPP_OK;
    if (rc == MCPP_OK && f->benchmarks.root && !cJSON_IsObject(f->benchmarks.root))
        rc = mcpp_import_json_error(&f->benchmarks, f->benchmarks.root, "type", NULL,
                                    "expected asv's benchmarks.json (an object of benchmarks)");
    return rc;
}

static int import_file(mcpp_import_sink *sink, const char *path)
{
    asv_file f;
    memset(&f, 0, sizeof f);
    int rc = mcpp_import_json_open(&f.doc, path);
    if (rc == MCPP_OK)
        rc = open_benchmarks(&f, path);
    if (rc == MCPP_OK)
        rc = check_shape(&f);
    const cJSON *results = rc == MCPP_OK ? mcpp_import_member(f.doc.root, "results") : NULL;
    for (const cJSON *row = results ? results->child : NULL; rc == MCPP_OK && row; row = row->next) {
        const cJSON *result = cell(row, f.col_result);
        size_t k = 0;
        /* a null result is a benchmark asv skipped or that failed: no measurement */
        for (const cJSON *v = result->child; rc == MCPP_OK && v; v = v->next, k++)
            if (!cJSON_IsNull(v))
                rc = import_combination(sink, &f, row, k);
    }
    mcpp_import_json_free(&f.benchmarks);
    mcpp_import_json_free(&f.doc);
    free(f.benchmarks_path);
    return rc;
}

static int is_results_name(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".json") == 0 && strcmp(name, "machine.json") != 0 &&
           strcmp(name, "benchmarks.json") != 0 && name[0] != '.';
}

/* asv keeps a machine.json beside the results files of each machine: a JSON
 * file elsewhere (asv.conf.json, html/) is not a results file. */
static int has_machine_file(const char *dir)
{
    size_t len = strlen(dir) + 16;
    char *p = malloc(len);
    struct stat st;
    int yes = p && (snprintf(p, len, "%s/machine.json", dir), stat(p, &st) == 0);
    free(p);
    return yes;
}

static int is_results_file(const char *name, const char *dir) { return is_results_name(name) && has_machine_file(dir); }

static int take_results_file(mcpp_import_walk *w, const char *path)
{
    w->found++;
    return import_file(w->sink, path);
}

int mcpp_import_asv_path(mcpp_import_sink *sink, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return import_file(sink, path);
    mcpp_import_walk w = {sink, MAX_DIR_DEPTH, 0, is_results_file, take_results_file, 0};
    int rc = mcpp_import_walk_dir(&w, path);
    if (rc == MCPP_OK && w.found == 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, path, NULL, 0, 0,
                              "no asv results files (results/<machine>/<commit>-<env>.json) under it");
    return rc;
}
