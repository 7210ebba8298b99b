/*
 * hyperfine_import.c — hyperfine --export-json FILE onto receipts: one receipt
 * per timed command, its wall-clock times (one per run: each run is a fresh
 * process) as samples of wall_time_s, kind run, so the gate's run-to-run
 * model sees them as runs. hyperfine states user and system time only as
 * means; they are metrics of aggregate mean without samples. hyperfine records
 * nothing about the machine or software. docs/import.md has the mapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_internal.h"
#include "util/error_internal.h"

static const char *const NOT_RECORDED[] = {"lane", "workload", "routing", "compile", "backend",
                                           "launch", "startup", "hardware", "software", "topology"};

/* Members of a result that map onto fields; every other one goes to extra. */
static const char *const MAPPED[] = {"command", "times", "exit_codes", "parameters", "user", "system",
                                     "memory_usage_byte"};

/* Checks a number array member (absent is fine); `positive` refuses <= 0. */
static int check_numbers(const mcpp_import_json *doc, const cJSON *result, const char *key,
                         const char *field, int positive)
{
    const cJSON *arr = mcpp_import_member(result, key);
    if (!arr)
        return MCPP_OK;
    char path[96];
    snprintf(path, sizeof path, "%s.%s", field, key);
    if (!cJSON_IsArray(arr))
        return mcpp_import_json_error(doc, arr, "type", path, "expected a list of numbers");
    for (const cJSON *v = arr->child; v; v = v->next) {
        double d;
        if (!mcpp_import_number(&d, v) || (positive && d <= 0))
            return mcpp_import_json_error(doc, v, "type", path, "expected a %snumber",
                                          positive ? "positive " : "");
    }
    return MCPP_OK;
}

static int check_shape(const mcpp_import_json *doc)
{
    const cJSON *results = mcpp_import_member(doc->root, "results");
    if (!cJSON_IsObject(doc->root) || !cJSON_IsArray(results))
        return mcpp_import_json_error(doc, doc->root, "type", NULL,
                                      "not hyperfine --export-json output: expected an object with "
                                      "\"results\"");
    int i = 0;
    for (const cJSON *r = results->child; r; r = r->next, i++) {
        char field[48];
        double mean;
        snprintf(field, sizeof field, "results[%d]", i);
        if (!cJSON_IsObject(r) || !mcpp_import_string(mcpp_import_member(r, "command")))
            return mcpp_import_json_error(doc, r, "missing", field, "expected a result with a string \"command\"");
        if (!mcpp_import_member(r, "times") && !(mcpp_import_number(&mean, mcpp_import_member(r, "mean")) && mean > 0))
            return mcpp_import_json_error(doc, r, "missing", field,
                                          "expected \"times\" or a positive number \"mean\"");
        int rc = check_numbers(doc, r, "times", field, 1);
        if (rc == MCPP_OK)
            rc = check_numbers(doc, r, "exit_codes", field, 0);
        if (rc == MCPP_OK)
            rc = check_numbers(doc, r, "memory_usage_byte", field, 1);
        if (rc != MCPP_OK)
            return rc;
    }
    if (i == 0)
        return mcpp_import_json_error(doc, results, "missing", "results", "no results");
    return MCPP_OK;
}

/* The numbers of array member `key` into buf (cap >= its size). */
static size_t numbers_of(double *buf, const cJSON *result, const char *key)
{
    size_t n = 0;
    const cJSON *arr = mcpp_import_member(result, key);
    for (const cJSON *v = cJSON_IsArray(arr) ? arr->child : NULL; v; v = v->next)
        if (mcpp_import_number(&buf[n], v))
            n++;
    return n;
}

static int add_metrics(mcpp_builder *b, const cJSON *result, double *buf)
{
    double mean = 0, user, sys;
    size_t n = numbers_of(buf, result, "times");
    int rc = n > 0 ? mcpp_import_add_samples(b, "wall_time_s", "s", MCPP_DIRECTION_LOWER, "run", buf, n)
                   : (mcpp_import_number(&mean, mcpp_import_member(result, "mean")),
                      mcpp_builder_add_metric(b, "wall_time_s", "s", MCPP_DIRECTION_LOWER, mean, NULL, NULL, NULL, 0));
    if (rc == MCPP_OK && mcpp_import_number(&user, mcpp_import_member(result, "user")) && user >= 0)
        rc = mcpp_builder_add_metric(b, "user_time_s", "s", MCPP_DIRECTION_LOWER, user, NULL, NULL, NULL, 0);
    if (rc == MCPP_OK && mcpp_import_number(&sys, mcpp_import_member(result, "system")) && sys >= 0)
        rc = mcpp_builder_add_metric(b, "system_time_s", "s", MCPP_DIRECTION_LOWER, sys, NULL, NULL, NULL, 0);
    n = numbers_of(buf, result, "memory_usage_byte");
    if (rc == MCPP_OK)
        rc = mcpp_import_add_samples(b, "max_rss_bytes", "B", MCPP_DIRECTION_LOWER, "run", buf, n);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "metrics.primary", "wall_time_s");
    return rc;
}

/* Any non-zero exit code fails the receipt (hyperfine -i keeps such runs). */
static int map_exit_codes(mcpp_builder *b, const cJSON *result)
{
    int failed = 0, rc = MCPP_OK, run = 0;
    const cJSON *codes = mcpp_import_member(result, "exit_codes");
    for (const cJSON *c = cJSON_IsArray(codes) ? codes->child : NULL; rc == MCPP_OK && c; c = c->next, run++) {
        int64_t code = 0;
        if (mcpp_import_integer(&code, c) && code != 0) {
            char caveat[96];
            snprintf(caveat, sizeof caveat, "run %d exited with code %lld", run + 1, (long long)code);
            failed = 1;
            rc = mcpp_builder_append_string(b, "status.caveats", caveat);
        }
    }
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "status.outcome", failed ? "failed" : "ok");
    return rc;
}

static int import_result(mcpp_import_sink *sink, const mcpp_import_json *doc, const cJSON *result)
{
    const char *command = mcpp_import_string(mcpp_import_member(result, "command"));
    int n = cJSON_GetArraySize(mcpp_import_member(result, "times")),
        m = cJSON_GetArraySize(mcpp_import_member(result, "memory_usage_byte"));
    double *buf = malloc(((size_t)(n > m ? n : m) + 1) * sizeof *buf);
    mcpp_builder *b = NULL;
    cJSON *extra = cJSON_CreateObject();
    int rc = buf && extra ? mcpp_import_begin(&b, "hyperfine", "hyperfine", NOT_RECORDED,
                                              sizeof NOT_RECORDED / sizeof NOT_RECORDED[0])
                          : mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = mcpp_import_set_name(b, command);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "source.command", command);
    if (rc == MCPP_OK && cJSON_IsObject(mcpp_import_member(result, "parameters")))
        rc = mcpp_import_set_json(b, "benchmark.params", mcpp_import_member(result, "parameters"));
    if (rc == MCPP_OK)
        rc = add_metrics(b, result, buf);
    if (rc == MCPP_OK)
        rc = map_exit_codes(b, result);
    for (const cJSON *c = result->child; rc == MCPP_OK && c; c = c->next)
        if (!mcpp_import_is_one_of(c->string, MAPPED, sizeof MAPPED / sizeof MAPPED[0]) && !cJSON_IsNull(c))
            cJSON_AddItemToObject(extra, c->string, cJSON_Duplicate(c, 1));
    if (rc == MCPP_OK)
        rc = mcpp_import_finish_tool(sink, b, extra, "hyperfine", command, doc->path);
    mcpp_builder_free(b);
    cJSON_Delete(extra);
    free(buf);
    return rc;
}

int mcpp_import_hyperfine_file(mcpp_import_sink *sink, const char *path)
{
    return mcpp_import_json_list_file(sink, path, check_shape, "results", import_result);
}
