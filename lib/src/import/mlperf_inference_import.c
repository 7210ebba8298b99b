/*
 * mlperf_inference_import.c — MLPerf Inference loadgen logs onto receipts: one
 * receipt per performance run (mlperf_log_detail.txt, the `:::MLLOG {json}`
 * lines loadgen writes), read a line at a time. The scenario's metric is the
 * primary one (Offline samples/s, Server scheduled samples/s, SingleStream
 * p90 latency, MultiStream p99 per-query latency), every other result_*
 * number a metric of its own; each is one run (kind run, aggregate single).
 * The log names no hardware: where it sits in the public results layout
 * ROOT/<division>/<submitter>/results/<system>/<model>/<scenario>/performance/
 * run_N/, the system description <division>/<submitter>/systems/<system>.json
 * gives it, as for MLPerf Training. docs/import.md has the mapping.
 */
#define _XOPEN_SOURCE 700 /* realpath, getline */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import/mlperf_internal.h"
#include "util/error_internal.h"

#define MAX_LINE ((size_t)1 << 20)
#define MAX_DIR_DEPTH 16
#define DETAIL "mlperf_log_detail.txt"
#define SUMMARY "mlperf_log_summary.txt"

/* What one detail log says. */
typedef struct inf_log {
    const char *path;
    int lines, result_line;
    cJSON *results;  /* result_* and early_stopping_* {key: value}  */
    cJSON *settings; /* effective_* {key without prefix: value}     */
    cJSON *loadgen;  /* loadgen_*, sut_name, qsl_name, test_datetime, other keys: {key: value} */
    int errors, warnings;
} inf_log;

/* Where the log sits in the public results layout. */
typedef struct inf_layout {
    int standard;
    char division[128], submitter[256], system[256], model[256], scenario[64];
    char system_file[PATH_MAX + 64];
    char relative[1024];
    char suite_version[32];
    int64_t run, runs;
} inf_layout;

static void inf_log_free(inf_log *log)
{
    cJSON_Delete(log->results);
    cJSON_Delete(log->settings);
    cJSON_Delete(log->loadgen);
    memset(log, 0, sizeof *log);
}

/* Files one event. Bookkeeping of loadgen's own logger and power marks carry
 * nothing about the result and are dropped. */
static void take_event(inf_log *log, cJSON *event, const char *key, int line)
{
    const cJSON *metadata = mcpp_import_member(event, "metadata");
    log->errors += cJSON_IsTrue(mcpp_import_member(metadata, "is_error"));
    log->warnings += cJSON_IsTrue(mcpp_import_member(metadata, "is_warning"));
    if (strncmp(key, "logger_", 7) == 0 || strncmp(key, "power_", 6) == 0 ||
        strcmp(key, "generic_message") == 0 || strcmp(key, "warning_generic_message") == 0 ||
        strcmp(key, "error_generic_message") == 0)
        return;
    cJSON *value = cJSON_DetachItemFromObjectCaseSensitive(event, "value");
    if (strncmp(key, "result_", 7) == 0 || strncmp(key, "early_stopping_", 15) == 0) {
        mcpp_import_json_keep(log->results, key, value);
        if (strcmp(key, "result_validity") == 0)
            log->result_line = line;
    } else if (strncmp(key, "effective_", 10) == 0) {
        mcpp_import_json_keep(log->settings, key + 10, value);
    } else {
        mcpp_import_json_keep(log->loadgen, key, value);
    }
}

static int parse_line(inf_log *log, const char *json, size_t len, int line, int col, int last)
{
    cJSON *event = NULL;
    int rc = mcpp_mllog_parse_event(&event, log->path, json, len, line, col, last);
    if (rc != MCPP_OK)
        return rc;
    const char *key = mcpp_import_string(mcpp_import_member(event, "key"));
    if (!cJSON_IsObject(event) || !key || !mcpp_import_member(event, "value"))
        rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, log->path, NULL, line, col,
                            "an :::MLLOG event needs a string \"key\" and a \"value\"");
    else
        take_event(log, event, key, line);
    cJSON_Delete(event);
    return rc;
}

static int read_log(inf_log *log, const char *path)
{
    memset(log, 0, sizeof *log);
    log->path = path;
    log->results = cJSON_CreateObject();
    log->settings = cJSON_CreateObject();
    log->loadgen = cJSON_CreateObject();
    if (!log->results || !log->settings || !log->loadgen)
        return mcpp_error_nomem();
    FILE *f = fopen(path, "rb");
    if (!f)
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot open: %s", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = MCPP_OK;
    while (rc == MCPP_OK && (n = getline(&line, &cap, f)) != -1) {
        log->lines++;
        if ((size_t)n > MAX_LINE) {
            rc = mcpp_error_at(MCPP_ELIMIT, MCPP_ERROR_KIND_LIMIT, path, NULL, log->lines, 1,
                                "a line longer than 1 MiB");
            break;
        }
        int last = line[n - 1] != '\n';
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            n--;
        const char *m = strstr(line, ":::MLLOG");
        if (m && m < line + n && line[0] != '+') /* `+ echo ...` is a shell trace, not the record */
            rc = parse_line(log, m + 8, (size_t)(line + n - (m + 8)), log->lines, (int)(m + 8 - line) + 1,
                            last);
    }
    if (rc == MCPP_OK && ferror(f))
        rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "read failed: %s", strerror(errno));
    free(line);
    fclose(f);
    return rc;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int64_t count_runs(const char *dir)
{
    DIR *d = opendir(dir);
    int64_t n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, "run_", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9';
    if (d)
        closedir(d);
    return n;
}

/* ROOT/<division>/<submitter>/results/<system>/<model>/<scenario>/performance/run_N/DETAIL */
static void layout_of(inf_layout *out, const char *path)
{
    memset(out, 0, sizeof *out);
    char full[PATH_MAX];
    if (!realpath(path, full))
        return;
    char *part[10] = {0}; /* file, run_N, performance, scenario, model, system, results, submitter, division, root */
    for (int i = 0; i < 10; i++) {
        char *slash = strrchr(full, '/');
        if (!slash)
            return;
        part[i] = slash + 1;
        *slash = '\0';
    }
    /* `full` is now the directory above ROOT; the parts point into the cut string */
    if (strncmp(part[1], "run_", 4) != 0 || strcmp(part[2], "performance") != 0 ||
        strcmp(part[6], "results") != 0)
        return;
    out->run = strtoll(part[1] + 4, NULL, 10);
    snprintf(out->division, sizeof out->division, "%s", part[8]);
    snprintf(out->submitter, sizeof out->submitter, "%s", part[7]);
    snprintf(out->system, sizeof out->system, "%s", part[5]);
    snprintf(out->model, sizeof out->model, "%s", part[4]);
    snprintf(out->scenario, sizeof out->scenario, "%s", part[3]);
    const char *v = strrchr(part[9], 'v');
    /* a version too long for the field is no version (checking the length also
     * tells gcc's -Wformat-truncation the cut is meant) */
    if (v && v[1] >= '0' && v[1] <= '9' && strspn(v + 1, "0123456789.") == strlen(v + 1) &&
        snprintf(out->suite_version, sizeof out->suite_version, "%s", v + 1) >= (int)sizeof out->suite_version)
        out->suite_version[0] = '\0';
    char perf[PATH_MAX + 64];
    int fits = snprintf(out->system_file, sizeof out->system_file, "%s/%s/%s/%s/systems/%s.json", full,
                        part[9], part[8], part[7], part[5]) < (int)sizeof out->system_file;
    fits &= snprintf(out->relative, sizeof out->relative, "%s/%s/results/%s/%s/%s/performance/%s/%s", part[8],
                     part[7], part[5], part[4], part[3], part[1], part[0]) < (int)sizeof out->relative;
    fits &= snprintf(perf, sizeof perf, "%s/%s/%s/%s/results/%s/%s/%s/performance", full, part[9], part[8],
                     part[7], part[5], part[4], part[3]) < (int)sizeof perf;
    out->standard = fits;
    out->runs = fits ? count_runs(perf) : 0;
}

/* The primary metric of each scenario, as MLPerf Inference ranks results. */
static const char *primary_key(const char *scenario)
{
    static const struct { const char *scenario, *key; } PRIMARY[] = {
        {"Offline", "result_samples_per_second"},
        {"Server", "result_scheduled_samples_per_sec"},
        {"SingleStream", "result_90.00_percentile_latency_ns"},
        {"MultiStream", "result_99.00_percentile_per_query_latency_ns"}};
    for (size_t i = 0; scenario && i < sizeof PRIMARY / sizeof PRIMARY[0]; i++)
        if (strcmp(scenario, PRIMARY[i].scenario) == 0)
            return PRIMARY[i].key;
    return NULL;
}

/* A result_* key as a metric: name, unit, direction; 0 for keys that are not one. */
static int metric_of(char *name, size_t cap, const char **unit, mcpp_direction *dir, const char *key)
{
    static const struct { const char *key, *name, *unit; mcpp_direction dir; } RATES[] = {
        {"result_samples_per_second", "samples_per_s", "samples/s", MCPP_DIRECTION_HIGHER},
        {"result_scheduled_samples_per_sec", "scheduled_samples_per_s", "samples/s", MCPP_DIRECTION_HIGHER},
        {"result_completed_samples_per_sec", "completed_samples_per_s", "samples/s", MCPP_DIRECTION_HIGHER},
        {"result_completed_tokens_per_second", "completed_tokens_per_s", "tokens/s", MCPP_DIRECTION_HIGHER},
        {"result_qps_with_loadgen_overhead", "qps_with_loadgen_overhead", "queries/s", MCPP_DIRECTION_HIGHER},
        {"result_qps_without_loadgen_overhead", "qps_without_loadgen_overhead", "queries/s",
         MCPP_DIRECTION_HIGHER}};
    for (size_t i = 0; i < sizeof RATES / sizeof RATES[0]; i++)
        if (strcmp(key, RATES[i].key) == 0) {
            snprintf(name, cap, "%s", RATES[i].name);
            *unit = RATES[i].unit;
            *dir = RATES[i].dir;
            return 1;
        }
    size_t n = strlen(key);
    if (strncmp(key, "result_", 7) != 0 || n < 11 || strcmp(key + n - 3, "_ns") != 0)
        return 0;
    /* result_90.00_percentile_latency_ns -> latency_p90_ns; result_mean_latency_ns -> latency_mean_ns */
    const char *pct = strstr(key, "_percentile_");
    char body[160];
    if (pct) {
        char number[16];
        snprintf(number, sizeof number, "%.*s", (int)(pct - key - 7 < 15 ? pct - key - 7 : 15), key + 7);
        char *dot = strchr(number, '.');
        if (dot) { /* 90.00 -> 90, 99.90 -> 99.9 */
            char *end = number + strlen(number);
            while (end > dot + 1 && end[-1] == '0')
                *--end = '\0';
            if (end == dot + 1)
                *dot = '\0';
            for (char *c = number; *c; c++)
                *c = *c == '.' ? '_' : *c;
        }
        const char *what = pct + 12; /* latency_ns, per_query_latency_ns, first_token_latency_ns ... */
        snprintf(body, sizeof body, "%.*s_p%s_ns", (int)(strlen(what) - 3), what, number);
    } else if (n > 15 && strcmp(key + n - 11, "_latency_ns") == 0) {
        /* result_<stat>_latency_ns (min, max, mean) -> latency_<stat>_ns */
        const char *stat = key + 7, *us = strchr(stat, '_');
        snprintf(body, sizeof body, "%.*s_%.*s_ns", (int)(n - 3 - (size_t)(us + 1 - key)), us + 1,
                 (int)(us - stat), stat);
    } else {
        snprintf(body, sizeof body, "%s", key + 7);
    }
    mcpp_import_sanitize(name, cap, body);
    *unit = "ns";
    *dir = MCPP_DIRECTION_LOWER;
    return 1;
}

static int add_metrics(mcpp_builder *b, cJSON *extra, const inf_log *log, const char *scenario)
{
    const char *primary = primary_key(scenario);
    char primary_name[96] = "";
    int rc = MCPP_OK;
    cJSON *other = cJSON_AddObjectToObject(extra, "results");
    if (!other)
        return mcpp_error_nomem();
    for (const cJSON *c = log->results->child; rc == MCPP_OK && c; c = c->next) {
        char name[96];
        const char *unit;
        mcpp_direction dir;
        double v;
        if (cJSON_IsNumber(c) && metric_of(name, sizeof name, &unit, &dir, c->string) &&
            mcpp_import_number(&v, c)) {
            rc = mcpp_builder_add_metric(b, name, unit, dir, v, "single", "run", &v, 1);
            if (primary && strcmp(c->string, primary) == 0)
                snprintf(primary_name, sizeof primary_name, "%s", name);
        } else {
            cJSON_AddItemToObject(other, c->string, cJSON_Duplicate(c, 1));
        }
    }
    if (rc == MCPP_OK && !primary_name[0])
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, log->path, NULL, log->lines, 0,
                              "no %s result for scenario %s in %d lines (truncated log, or a "
                              "scenario this importer does not know)",
                              primary ? primary : "primary", scenario ? scenario : "(none)", log->lines);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "metrics.primary", primary_name);
    return rc;
}

/* result_validity VALID is ok; anything else failed, with loadgen's reason and
 * the *_met checks it logged as false. */
static int map_status(mcpp_builder *b, const inf_log *log)
{
    const char *validity = mcpp_import_string(mcpp_import_member(log->results, "result_validity"));
    if (validity && strcmp(validity, "VALID") == 0)
        return mcpp_builder_set_string(b, "status.outcome", "ok");
    const char *why = mcpp_import_string(mcpp_import_member(log->results, "result_invalid_reason"));
    size_t why_len = why ? strlen(why) : 0;
    while (why_len > 0 && (why[why_len - 1] == ' ' || why[why_len - 1] == '\n'))
        why_len--;
    char caveat[512];
    size_t n = (size_t)snprintf(caveat, sizeof caveat, "result_validity %s%s%.*s", validity ? validity : "(absent)",
                                why_len ? ": " : "", (int)(why_len < 300 ? why_len : 300), why ? why : "");
    int first = 1;
    for (const cJSON *c = log->results->child; c && n < sizeof caveat; c = c->next) {
        size_t k = strlen(c->string);
        if (cJSON_IsFalse(c) && k > 4 && strcmp(c->string + k - 4, "_met") == 0) {
            n += (size_t)snprintf(caveat + n, sizeof caveat - n, "%s%s", first ? "; not met: " : ", ", c->string);
            first = 0;
        }
    }
    int rc = mcpp_builder_append_string(b, "status.caveats", caveat);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "status.outcome", "failed");
    return rc;
}

/* The system description of the layout (hardware, software, submitter); a CPU
 * system (no accelerator: "N/A", "", 0) is the accelerator "cpu: <host CPU>". */
static int map_system(mcpp_builder *b, cJSON *extra, const inf_layout *at, int *has_system)
{
    struct stat st;
    *has_system = at->standard && stat(at->system_file, &st) == 0;
    if (!*has_system)
        return MCPP_OK;
    mcpp_import_json sys;
    cJSON *sys_extra = cJSON_CreateObject();
    int rc = sys_extra ? mcpp_import_json_open(&sys, at->system_file) : mcpp_error_nomem();
    if (rc != MCPP_OK) {
        cJSON_Delete(sys_extra);
        return rc;
    }
    rc = mcpp_mlperf_map_system(b, sys_extra, &sys, 1);
    const char *accel = mcpp_import_string(mcpp_import_member(sys.root, "accelerator_model_name"));
    const char *cpu = mcpp_import_string(mcpp_import_member(sys.root, "host_processor_model_name"));
    if (rc == MCPP_OK && (!accel || strcmp(accel, "N/A") == 0) && cpu) {
        char name[300];
        snprintf(name, sizeof name, "cpu: %.250s", cpu);
        rc = mcpp_builder_set_string(b, "hardware.observed.accelerator", name);
        if (rc == MCPP_OK)
            rc = mcpp_builder_set_string(b, "hardware.observed.source", "declared");
    }
    cJSON_AddItemToObject(extra, "system", sys_extra);
    mcpp_import_json_free(&sys);
    return rc;
}

static int set_identity(mcpp_builder *b, const inf_log *log, const inf_layout *at, const char *scenario)
{
    const char *qsl = mcpp_import_string(mcpp_import_member(log->loadgen, "qsl_name"));
    const char *sut = mcpp_import_string(mcpp_import_member(log->loadgen, "sut_name"));
    const char *when = mcpp_import_string(mcpp_import_member(log->loadgen, "test_datetime"));
    int rc = MCPP_OK;
    const char *name = at->standard ? at->model : qsl;
    if (name)
        rc = mcpp_builder_set_string(b, "benchmark.name", name);
    if (rc == MCPP_OK && at->suite_version[0])
        rc = mcpp_builder_set_string(b, "benchmark.suite_version", at->suite_version);
    if (rc == MCPP_OK && (at->standard || sut))
        rc = mcpp_builder_set_string(b, "benchmark.system", at->standard ? at->system : sut);
    const char *system = at->standard ? at->system : sut;
    if (rc == MCPP_OK && name) {
        /* the lane's display label, "resnet50 Offline on 1xH100" (no policy dimension
         * reads lane.name): reports then name the system, not lane-21efb3a4aae9 */
        char label[512];
        snprintf(label, sizeof label, system ? "%s %s on %s" : "%s %s", name, scenario, system ? system : "");
        rc = mcpp_builder_set_string(b, "lane.name", label);
    }
    if (rc == MCPP_OK && at->standard)
        rc = mcpp_builder_set_string(b, "benchmark.division", at->division);
    if (rc == MCPP_OK && at->standard)
        rc = mcpp_builder_set_string(b, "benchmark.submitter", at->submitter);
    if (rc == MCPP_OK) {
        cJSON *params = cJSON_CreateObject();
        if (!params)
            return mcpp_error_nomem();
        cJSON_AddStringToObject(params, "scenario", scenario);
        rc = mcpp_import_set_json(b, "benchmark.params", params);
        cJSON_Delete(params);
    }
    if (rc == MCPP_OK && when && mcpp_import_has_zone(when))
        rc = mcpp_builder_set_string(b, "created_at", when);
    if (rc == MCPP_OK && at->standard && at->run >= 1)
        rc = mcpp_builder_set_int(b, "run.index", at->run);
    if (rc == MCPP_OK && at->standard && at->runs >= at->run && at->run >= 1)
        rc = mcpp_builder_set_int(b, "run.of", at->runs);
    if (rc == MCPP_OK && at->standard)
        rc = mcpp_builder_add_artifact(b, "log", at->relative);
    return rc;
}

static int import_log(mcpp_import_sink *sink, const inf_log *log, const inf_layout *at)
{
    const char *scenario = mcpp_import_string(mcpp_import_member(log->settings, "scenario"));
    if (!scenario)
        scenario = mcpp_import_string(mcpp_import_member(log->loadgen, "requested_scenario"));
    if (!scenario || !mcpp_import_member(log->results, "result_validity"))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, log->path, NULL, log->lines, 0,
                              "no %s: the log ends at line %d (truncated log, the run did not finish, "
                              "or not a loadgen mlperf_log_detail.txt)",
                              scenario ? "result_validity event" : "scenario", log->lines);
    mcpp_builder *b = NULL;
    cJSON *extra = cJSON_CreateObject();
    int has_system = 0;
    const char *sut = mcpp_import_string(mcpp_import_member(log->loadgen, "sut_name"));
    static const char *const NOT_RECORDED[] = {"lane", "workload", "routing", "compile", "backend",
                                               "launch", "startup", "hardware", "software"};
    int rc = extra ? mcpp_builder_new(&b) : mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = map_system(b, extra, at, &has_system);
    /* without a system description the log names neither hardware nor software */
    size_t n_not = has_system ? 7 : 9;
    for (size_t i = 0; rc == MCPP_OK && i < n_not; i++)
        rc = mcpp_builder_append_string(b, "source.not_recorded", NOT_RECORDED[i]);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "source.tool", "mcpp-receipts import mlperf-inference");
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "benchmark.suite", "mlperf-inference");
    if (rc == MCPP_OK)
        rc = set_identity(b, log, at, scenario);
    if (rc == MCPP_OK)
        rc = add_metrics(b, extra, log, scenario);
    if (rc == MCPP_OK)
        rc = map_status(b, log);
    cJSON_AddItemToObject(extra, "settings", cJSON_Duplicate(log->settings, 1));
    cJSON_AddItemToObject(extra, "loadgen", cJSON_Duplicate(log->loadgen, 1));
    cJSON_AddNumberToObject(extra, "errors", log->errors);
    cJSON_AddNumberToObject(extra, "warnings", log->warnings);
    if (rc == MCPP_OK)
        rc = mcpp_import_set_json(b, "extra.mlperf_inference", extra);
    if (rc == MCPP_OK) {
        char readable[300];
        if (at->standard)
            snprintf(readable, sizeof readable, "mlperf-inf-%.60s-%.60s-%.60s-%.30s-r%lld", at->submitter,
                     at->system, at->model, scenario, (long long)at->run);
        else
            snprintf(readable, sizeof readable, "mlperf-inf-%.100s-%.30s", sut ? sut : "sut", scenario);
        rc = mcpp_import_finish(sink, b, readable, log->path);
    }
    mcpp_builder_free(b);
    cJSON_Delete(extra);
    return rc;
}

/* One detail log; `walking`: found in a directory, where accuracy-mode logs
 * (no performance result) are passed over rather than refused. */
static int import_detail(mcpp_import_sink *sink, const char *path, int walking, size_t *found)
{
    inf_log log;
    int rc = read_log(&log, path);
    const char *mode = mcpp_import_string(mcpp_import_member(log.settings, "test_mode"));
    if (rc == MCPP_OK && walking && mode && strcmp(mode, "PerformanceOnly") != 0) {
        inf_log_free(&log);
        return MCPP_OK;
    }
    if (rc == MCPP_OK && mode && strcmp(mode, "PerformanceOnly") != 0)
        rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_TYPE, path, NULL, 0, 0,
                            "a %s log has no performance result: import the performance/run_N logs", mode);
    if (rc == MCPP_OK) {
        inf_layout at;
        layout_of(&at, path);
        rc = import_log(sink, &log, &at);
        (*found)++;
    }
    inf_log_free(&log);
    return rc;
}

static int is_detail_log(const char *name, const char *dir)
{
    (void)dir;
    return strcmp(name, DETAIL) == 0;
}

static int take_detail_log(mcpp_import_walk *w, const char *path) { return import_detail(w->sink, path, 1, &w->found); }

int mcpp_import_mlperf_inference_path(mcpp_import_sink *sink, const char *path)
{
    struct stat st;
    size_t found = 0;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        mcpp_import_walk w = {sink, MAX_DIR_DEPTH, 0, is_detail_log, take_detail_log, 0};
        int rc = mcpp_import_walk_dir(&w, path);
        if (rc == MCPP_OK && w.found == 0)
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, path, NULL, 0, 0,
                                  "no performance-mode " DETAIL " under it");
        return rc;
    }
    if (strcmp(base_name(path), SUMMARY) == 0) {
        /* the summary restates the detail log in prose; the detail log beside it is read */
        size_t n = strlen(path) - strlen(SUMMARY);
        char *detail = malloc(n + sizeof DETAIL);
        if (!detail)
            return mcpp_error_nomem();
        snprintf(detail, n + sizeof DETAIL, "%.*s%s", (int)n, path, DETAIL);
        int rc = stat(detail, &st) == 0
                     ? import_detail(sink, detail, 0, &found)
                     : mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, path, NULL, 0, 0,
                                     "the summary is imported through the " DETAIL
                                     " beside it, which is absent");
        free(detail);
        return rc;
    }
    return import_detail(sink, path, 0, &found);
}
