/*
 * mlperf_import.c — MLPerf Training results onto receipts: finds the result
 * logs of a results tree, locates each one's system description by the
 * submission layout, and maps one run (one result_N.txt) onto one receipt.
 * docs/import.md has the table of which input field goes where.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import/mlperf_internal.h"
#include "util/error_internal.h"

#define MAX_DIR_DEPTH 32

/* Sections an MLPerf result does not record at all. */
static const char *const NOT_RECORDED[] = {"lane", "routing", "compile", "backend", "launch", "startup"};

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int result_index(int64_t *out, const char *name)
{
    char *end = NULL;
    if (strncmp(name, "result_", 7) != 0 || name[7] < '0' || name[7] > '9')
        return 0;
    long long n = strtoll(name + 7, &end, 10);
    if (!end || strcmp(end, ".txt") != 0)
        return 0;
    *out = n;
    return 1;
}

/* "training_results_v3.1", "mlperf-v3.1" -> "3.1" */
static void version_of(char *buf, size_t cap, const char *dir_name)
{
    buf[0] = '\0';
    const char *v = strrchr(dir_name, 'v');
    if (!v || !v[1] || v[1] < '0' || v[1] > '9')
        return;
    for (const char *p = v + 1; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return;
    snprintf(buf, cap, "%s", v + 1);
}

static int64_t count_results(const char *dir)
{
    DIR *d = opendir(dir);
    int64_t n = 0, idx;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += result_index(&idx, e->d_name);
    if (d)
        closedir(d);
    return n;
}

void mcpp_mlperf_layout_of(mcpp_mlperf_layout *out, const char *path)
{
    memset(out, 0, sizeof *out);
    out->index = -1;
    char full[PATH_MAX];
    if (!realpath(path, full))
        return;
    result_index(&out->index, base_name(full));
    char *part[6] = {0}; /* result file, benchmark, system, "results", submitter, root */
    char *p = full;
    for (int i = 0; i < 6; i++) {
        char *slash = strrchr(p, '/');
        if (!slash)
            return;
        part[i] = slash + 1;
        if (i < 5)
            *slash = '\0';
        else
            break;
    }
    snprintf(out->benchmark, sizeof out->benchmark, "%s", part[1]);
    char bench_dir[PATH_MAX + 1];
    snprintf(out->system, sizeof out->system, "%s", part[2]);
    out->standard = strcmp(part[3], "results") == 0 && out->index >= 0;
    snprintf(out->submitter, sizeof out->submitter, "%s", part[4]);
    version_of(out->suite_version, sizeof out->suite_version, part[5]);
    /* `full` is cut down to ROOT now; the parts still point into it */
    int fits = snprintf(out->system_file, sizeof out->system_file, "%s/%s/systems/%s.json", full,
                        part[4], part[2]) < (int)sizeof out->system_file;
    fits &= snprintf(out->relative, sizeof out->relative, "%s/results/%s/%s/%s", part[4], part[2],
                     part[1], part[0]) < (int)sizeof out->relative;
    fits &= snprintf(bench_dir, sizeof bench_dir, "%s/%s/results/%s/%s", full, part[4], part[2],
                     part[1]) < (int)sizeof bench_dir;
    out->standard &= fits;
    out->runs = fits ? count_results(bench_dir) : 0;
}

/* The system description: the standard system file, else the log's :::SYSJSON line. */
static int open_system(mcpp_import_json *sys, const mcpp_mllog *log, const mcpp_mlperf_layout *at)
{
    memset(sys, 0, sizeof *sys);
    struct stat st;
    if (at->standard && stat(at->system_file, &st) == 0)
        return mcpp_import_json_open(sys, at->system_file);
    if (log->sysjson) {
        sys->path = log->path;
        sys->text = malloc(log->sysjson_len + 1);
        if (!sys->text)
            return mcpp_error_nomem();
        memcpy(sys->text, log->sysjson, log->sysjson_len);
        sys->text[log->sysjson_len] = '\0';
        sys->len = log->sysjson_len;
        sys->line_base = log->sysjson_line - 1;
        sys->col_base = log->sysjson_col - 1;
        int rc = mcpp_import_json_parse(&sys->root, sys->text, sys->len, log->path,
                                        sys->line_base, sys->col_base);
        if (rc != MCPP_OK)
            mcpp_import_json_free(sys);
        return rc;
    }
    if (at->standard)
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, at->system_file, NULL, 0, 0,
                              "the system description of %s is absent (and the log has no "
                              ":::SYSJSON line)", log->path);
    return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, log->path, NULL, 0, 0,
                          "no system description: the file is not at <submitter>/results/<system>/"
                          "<benchmark>/result_N.txt and the log has no :::SYSJSON line");
}

static int check_complete(const mcpp_mllog *log)
{
    if (!log->has_run_start)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, log->path, NULL, log->lines, 0,
                              "no run_start event in %d lines: not an MLPerf result log, or a "
                              "truncated one", log->lines);
    if (!log->has_run_stop)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, log->path, NULL, log->lines, 0,
                              "no run_stop event: the log ends at line %d, after run_start at "
                              "line %d (truncated log, or the run did not finish)",
                              log->lines, log->run_start_line);
    if (log->run_stop_ms < log->run_start_ms)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, log->path, NULL, log->run_stop_line, 0,
                              "run_stop (time_ms %lld) is before run_start (line %d, time_ms %lld)",
                              (long long)log->run_stop_ms, log->run_start_line,
                              (long long)log->run_start_ms);
    return MCPP_OK;
}

static int add_metrics(mcpp_builder *b, const mcpp_mllog *log)
{
    double ttt = (double)(log->run_stop_ms - log->run_start_ms) / 1000.0;
    int rc = mcpp_builder_add_metric(b, "time_to_train_s", "s", MCPP_DIRECTION_LOWER, ttt,
                                     "single", "run", &ttt, 1);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "metrics.primary", "time_to_train_s");
    if (rc == MCPP_OK && log->n_throughput > 0) {
        int one = log->n_throughput == 1;
        double value = 0;
        rc = mcpp_quantile(&value, log->throughput, log->n_throughput, 0.5);
        if (rc == MCPP_OK)
            rc = mcpp_builder_add_metric(b, "throughput", "samples/s", MCPP_DIRECTION_HIGHER, value,
                                         one ? "single" : "median", "block", log->throughput,
                                         log->n_throughput);
    }
    return rc;
}

/* run_stop's status: "success" is ok, anything else (aborted) failed. */
static int map_status(mcpp_builder *b, const mcpp_mllog *log)
{
    const char *status = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(log->run_stop_meta, "status"));
    if (!status)
        return MCPP_OK;
    int ok = strcmp(status, "success") == 0;
    int rc = mcpp_builder_set_string(b, "status.outcome", ok ? "ok" : "failed");
    if (rc == MCPP_OK && !ok) {
        char caveat[160];
        snprintf(caveat, sizeof caveat, "run_stop status: %.120s", status);
        rc = mcpp_builder_append_string(b, "status.caveats", caveat);
    }
    return rc;
}

static int map_identity(mcpp_builder *b, const mcpp_mllog *log, const mcpp_mlperf_layout *at)
{
    const char *bench = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(log->submission, "benchmark"));
    const char *division = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(log->submission, "division"));
    char created[40];
    mcpp_import_rfc3339_from_ms(created, sizeof created, log->run_stop_ms);
    int rc = mcpp_builder_set_string(b, "created_at", created);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "source.tool", "mcpp-receipts import mlperf");
    for (size_t i = 0; rc == MCPP_OK && i < sizeof NOT_RECORDED / sizeof NOT_RECORDED[0]; i++)
        rc = mcpp_builder_append_string(b, "source.not_recorded", NOT_RECORDED[i]);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "benchmark.suite", "mlperf-training");
    if (rc == MCPP_OK && at->suite_version[0])
        rc = mcpp_builder_set_string(b, "benchmark.suite_version", at->suite_version);
    if (rc == MCPP_OK && (bench || at->benchmark[0]))
        rc = mcpp_builder_set_string(b, "benchmark.name", bench ? bench : at->benchmark);
    if (rc == MCPP_OK && at->standard)
        rc = mcpp_builder_set_string(b, "benchmark.system", at->system);
    if (rc == MCPP_OK && (bench || at->benchmark[0])) {
        /* the lane's display label, "dlrm_dcnv2 on 2xXE8640x4H100-SXM-80GB" (no policy
         * dimension reads lane.name): reports then name the system, not lane-21efb3a4aae9 */
        char label[512];
        snprintf(label, sizeof label, at->standard ? "%s on %s" : "%s", bench ? bench : at->benchmark,
                 at->system);
        rc = mcpp_builder_set_string(b, "lane.name", label);
    }
    if (rc == MCPP_OK && division)
        rc = mcpp_builder_set_string(b, "benchmark.division", division);
    if (rc == MCPP_OK && log->has_seed)
        rc = mcpp_builder_set_int(b, "run.seed", log->seed);
    if (rc == MCPP_OK && at->index >= 0 && at->index < at->runs) {
        rc = mcpp_builder_set_int(b, "run.index", at->index + 1);
        if (rc == MCPP_OK)
            rc = mcpp_builder_set_int(b, "run.of", at->runs);
    }
    if (rc == MCPP_OK && log->quality_key[0]) {
        rc = mcpp_builder_set_string(b, "quality.metric", log->quality_key);
        if (rc == MCPP_OK)
            rc = mcpp_builder_set_double(b, "quality.achieved", log->quality_value);
    }
    if (rc == MCPP_OK)
        rc = mcpp_builder_add_artifact(b, "log", at->relative[0] ? at->relative : base_name(log->path));
    return rc;
}

/* Everything the log says that no receipt field holds, under extra.mlperf. */
static int map_extra(mcpp_builder *b, const mcpp_mllog *log, cJSON *system_extra)
{
    cJSON *mlperf = cJSON_CreateObject();
    cJSON *fields = cJSON_CreateArray();
    if (!mlperf || !fields) {
        cJSON_Delete(mlperf);
        cJSON_Delete(fields);
        return mcpp_error_nomem();
    }
    cJSON_AddItemReferenceToObject(mlperf, "submission", log->submission);
    cJSON_AddItemReferenceToObject(mlperf, "hyperparameters", log->hyperparameters);
    cJSON_AddItemReferenceToObject(mlperf, "eval", log->eval);
    if (cJSON_GetArraySize(log->other_events) > 0)
        cJSON_AddItemReferenceToObject(mlperf, "other_events", log->other_events);
    if (log->run_stop_meta)
        cJSON_AddItemReferenceToObject(mlperf, "run_stop", log->run_stop_meta);
    cJSON_AddItemReferenceToObject(mlperf, "system", system_extra);
    cJSON_AddNumberToObject(mlperf, "run_start_ms", (double)log->run_start_ms);
    cJSON_AddNumberToObject(mlperf, "run_stop_ms", (double)log->run_stop_ms);
    /* fields of the receipt an MLPerf log has no source for */
    cJSON_AddItemToArray(fields, cJSON_CreateString("quality.target"));
    if (!log->has_seed)
        cJSON_AddItemToArray(fields, cJSON_CreateString("run.seed"));
    cJSON_AddItemToObject(mlperf, "not_recorded_fields", fields);
    int rc = mcpp_import_set_json(b, "extra.mlperf", mlperf);
    cJSON_Delete(mlperf);
    return rc;
}

int mcpp_import_mlperf_log(mcpp_import_sink *sink, const char *path)
{
    mcpp_mllog log;
    mcpp_mlperf_layout at;
    mcpp_import_json sys;
    memset(&sys, 0, sizeof sys);
    mcpp_builder *b = NULL;
    cJSON *system_extra = cJSON_CreateObject();
    int rc = system_extra ? mcpp_mllog_read(&log, path) : mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = check_complete(&log);
    if (rc == MCPP_OK) {
        mcpp_mlperf_layout_of(&at, path);
        rc = open_system(&sys, &log, &at);
    }
    if (rc == MCPP_OK)
        rc = mcpp_builder_new(&b);
    if (rc == MCPP_OK)
        rc = map_identity(b, &log, &at);
    if (rc == MCPP_OK)
        rc = mcpp_mlperf_map_system(b, system_extra, &sys,
                                    cJSON_HasObjectItem(log.submission, "division"));
    if (rc == MCPP_OK)
        rc = add_metrics(b, &log);
    if (rc == MCPP_OK)
        rc = map_status(b, &log);
    if (rc == MCPP_OK)
        rc = map_extra(b, &log, system_extra);
    if (rc == MCPP_OK) {
        char readable[1024];
        snprintf(readable, sizeof readable, "mlperf-%s-%s-%s-r%lld", at.submitter, at.system,
                 at.benchmark, (long long)at.index);
        rc = mcpp_import_finish(sink, b, readable, path);
    }
    mcpp_builder_free(b);
    mcpp_import_json_free(&sys);
    mcpp_mllog_free(&log);
    cJSON_Delete(system_extra);
    return rc;
}

/* A result_N.txt, wherever it stands. */
static int is_result_log(const char *name, const char *dir)
{
    (void)dir;
    int64_t idx;
    return result_index(&idx, name);
}

static int take_result_log(mcpp_import_walk *w, const char *path)
{
    w->found++;
    return mcpp_import_mlperf_log(w->sink, path);
}

int mcpp_import_mlperf_path(mcpp_import_sink *sink, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot open: %s", strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mcpp_import_mlperf_log(sink, path);
    mcpp_import_walk w = {sink, MAX_DIR_DEPTH, 1, is_result_log, take_result_log, 0};
    int rc = mcpp_import_walk_dir(&w, path);
    if (rc == MCPP_OK && w.found == 0)
        rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, path, NULL, 0, 0,
                            "no MLPerf result logs (result_N.txt) under this directory");
    return rc;
}
