/*
 * mlperf_log.c — reads one MLPerf Training result log (result_N.txt): the
 * `:::MLLOG {json}` lines of the mllog format, in order, into what the
 * mapping needs. Other lines (shell echoes, :::DLPAL) are skipped; a
 * `:::SYSJSON {json}` line carries the system description inline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/mlperf_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"

void mcpp_mllog_free(mcpp_mllog *log)
{
    cJSON_Delete(log->hyperparameters);
    cJSON_Delete(log->submission);
    cJSON_Delete(log->eval);
    cJSON_Delete(log->other_events);
    cJSON_Delete(log->run_stop_meta);
    free(log->throughput);
    free(log->text);
    memset(log, 0, sizeof *log);
}

static int push_throughput(mcpp_mllog *log, double v)
{
    MCPP_CHECK_ARRAY(log->throughput, log->cap_throughput, log->n_throughput + 1, MCPP_ARRAY_MAX_ITEMS);
    log->throughput[log->n_throughput++] = v;
    return MCPP_OK;
}

static void count_event(cJSON *counts, const char *key)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(counts, key);
    if (c)
        cJSON_SetNumberValue(c, c->valuedouble + 1);
    else
        cJSON_AddNumberToObject(counts, key, 1);
}

static int is_bookkeeping(const char *key)
{
    static const char *const KEYS[] = {"cache_clear", "init_start", "init_stop", "epoch_start",
                                       "epoch_stop", "block_start", "block_stop", "eval_start",
                                       "eval_stop"};
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strcmp(key, KEYS[i]) == 0)
            return 1;
    return 0;
}

/* An eval_* result after run_start: the trajectory entry and, as the latest, the quality. */
static int take_eval(mcpp_mllog *log, const char *key, cJSON *event, int line)
{
    double v;
    if (!mcpp_import_number(&v, cJSON_GetObjectItemCaseSensitive(event, "value")))
        return 0;
    cJSON *entry = cJSON_CreateObject();
    if (!entry)
        return mcpp_error_nomem();
    cJSON_AddStringToObject(entry, "key", key);
    cJSON_AddNumberToObject(entry, "value", v);
    cJSON *epoch = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(event, "metadata"),
                                                    "epoch_num");
    if (cJSON_IsNumber(epoch))
        cJSON_AddNumberToObject(entry, "epoch_num", epoch->valuedouble);
    cJSON_AddItemToArray(log->eval, entry);
    snprintf(log->quality_key, sizeof log->quality_key, "%s", key);
    log->quality_value = v;
    log->quality_line = line;
    return 1;
}

static int take_run_stop(mcpp_mllog *log, cJSON *event, int64_t t, int line)
{
    log->has_run_stop = 1;
    log->run_stop_ms = t;
    log->run_stop_line = line;
    cJSON *meta = cJSON_DetachItemFromObjectCaseSensitive(event, "metadata");
    if (cJSON_IsObject(meta)) {
        cJSON_DeleteItemFromObjectCaseSensitive(meta, "file");
        cJSON_DeleteItemFromObjectCaseSensitive(meta, "lineno");
        cJSON_Delete(log->run_stop_meta);
        log->run_stop_meta = meta;
    } else {
        cJSON_Delete(meta);
    }
    return MCPP_OK;
}

/* Files one parsed event (`event` is the line's object; values are detached from it). */
static int take_event(mcpp_mllog *log, cJSON *event, const char *key, int64_t t, int line)
{
    cJSON *value = cJSON_GetObjectItemCaseSensitive(event, "value");
    if (strcmp(key, "run_start") == 0) {
        log->has_run_start = 1;
        log->run_start_ms = t;
        log->run_start_line = line;
        return MCPP_OK;
    }
    if (strcmp(key, "run_stop") == 0)
        return take_run_stop(log, event, t, line);
    if (strncmp(key, "submission_", 11) == 0) {
        mcpp_import_json_keep(log->submission, key + 11, cJSON_DetachItemFromObjectCaseSensitive(event, "value"));
        return MCPP_OK;
    }
    if (strcmp(key, "seed") == 0 && mcpp_import_integer(&log->seed, value) && log->seed >= 0) {
        log->has_seed = 1;
        return MCPP_OK;
    }
    if (strcmp(key, "tracked_stats") == 0) {
        double tp;
        if (mcpp_import_number(&tp, cJSON_GetObjectItemCaseSensitive(value, "throughput")) && tp > 0)
            return push_throughput(log, tp);
    }
    if (is_bookkeeping(key))
        return MCPP_OK;
    if (!log->has_run_start) {
        mcpp_import_json_keep(log->hyperparameters, key, cJSON_DetachItemFromObjectCaseSensitive(event, "value"));
        return MCPP_OK;
    }
    if (strncmp(key, "eval_", 5) == 0) {
        int rc = take_eval(log, key, event, line);
        if (rc != 0)
            return rc < 0 ? rc : MCPP_OK;
    }
    count_event(log->other_events, key);
    return MCPP_OK;
}

int mcpp_mllog_parse_event(cJSON **out, const char *path, const char *json, size_t len, int line, int col,
                           int last_unterminated)
{
    int rc = mcpp_import_json_parse(out, json, len, path, line - 1, col - 1);
    if (rc != MCPP_OK && last_unterminated)
        return mcpp_error_at(rc, MCPP_ERROR_KIND_SYNTAX, path, NULL, line, (int)len + col,
                             "the log ends inside this line's JSON (truncated log?)");
    return rc;
}

/* Parses the JSON after ":::MLLOG" on one line and files the event. */
static int parse_mllog_line(mcpp_mllog *log, const char *json, size_t len, int line, int col,
                            int last_unterminated)
{
    cJSON *event = NULL;
    int rc = mcpp_mllog_parse_event(&event, log->path, json, len, line, col, last_unterminated);
    if (rc != MCPP_OK)
        return rc;
    cJSON *key = cJSON_GetObjectItemCaseSensitive(event, "key");
    int64_t t = 0;
    if (!cJSON_IsObject(event) || !mcpp_import_string(key) ||
        !mcpp_import_integer(&t, cJSON_GetObjectItemCaseSensitive(event, "time_ms")))
        rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, log->path, NULL, line, col,
                            "an :::MLLOG event needs a string \"key\" and a number \"time_ms\"");
    else
        rc = take_event(log, event, key->valuestring, t, line);
    cJSON_Delete(event);
    return rc;
}

static const char *find_marker(const char *line, size_t len, const char *marker)
{
    size_t m = strlen(marker);
    for (size_t i = 0; i + m <= len; i++)
        if (memcmp(line + i, marker, m) == 0)
            return line + i;
    return NULL;
}

static int scan_line(mcpp_mllog *log, const char *s, size_t len, int line, int last_unterminated)
{
    const char *m = find_marker(s, len, ":::MLLOG");
    size_t skip = 8;
    if (!m) {
        m = find_marker(s, len, ":::SYSJSON");
        if (!m || s[0] == '+') /* `+ echo ':::SYSJSON ...'` is the shell trace, not the record */
            return MCPP_OK;
        log->sysjson = m + 10;
        log->sysjson_len = len - (size_t)(m + 10 - s);
        log->sysjson_line = line;
        log->sysjson_col = (int)(m + 10 - s) + 1;
        return MCPP_OK;
    }
    if (s[0] == '+')
        return MCPP_OK;
    const char *json = m + skip;
    return parse_mllog_line(log, json, len - (size_t)(json - s), line, (int)(json - s) + 1,
                            last_unterminated);
}

int mcpp_mllog_read(mcpp_mllog *log, const char *path)
{
    memset(log, 0, sizeof *log);
    log->path = path;
    log->hyperparameters = cJSON_CreateObject();
    log->submission = cJSON_CreateObject();
    log->eval = cJSON_CreateArray();
    log->other_events = cJSON_CreateObject();
    if (!log->hyperparameters || !log->submission || !log->eval || !log->other_events)
        return mcpp_error_nomem();
    int rc = mcpp_import_read_file(&log->text, &log->len, path);
    const char *p = log->text;
    int line = 0;
    while (rc == MCPP_OK && p && p < log->text + log->len) {
        const char *nl = memchr(p, '\n', (size_t)(log->text + log->len - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(log->text + log->len - p);
        if (n > 0 && p[n - 1] == '\r')
            n--;
        rc = scan_line(log, p, n, ++line, nl == NULL);
        p = nl ? nl + 1 : NULL;
    }
    log->lines = line;
    return rc;
}
