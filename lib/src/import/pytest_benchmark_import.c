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
#include "util/alloc.h"
#include "util/error_internal.h"

static const char *const NOT_RECORDED[] = {"lane", "workload", "routing", "compile", "backend",
                                           "launch", "startup"};

/* What the reader keeps of the document's top level: the members every
 * receipt of the file shares (pytest-benchmark writes datetime and version
 * after the benchmarks, so the list is stepped over first and read after). */
typedef struct pytest_doc {
    mcpp_import_json text;
    mcpp_jc_suite_top top;
    cJSON *machine, *commit, *date, *version; /* first of each member, parsed */
    int context; /* Google Benchmark's "context"     */
} pytest_doc;

/* The top level's members (mcpp_jc_read_suite_top): the first of each one
 * the receipts share, as for cJSON's lookup. */
static void keep_member(void *ctx, const char *key, cJSON **v)
{
    pytest_doc *d = ctx;
    if (strcmp(key, "machine_info") == 0)
        mcpp_jc_keep_first(&d->machine, v);
    else if (strcmp(key, "commit_info") == 0)
        mcpp_jc_keep_first(&d->commit, v);
    else if (strcmp(key, "datetime") == 0)
        mcpp_jc_keep_first(&d->date, v);
    else if (strcmp(key, "version") == 0)
        mcpp_jc_keep_first(&d->version, v);
    d->context |= strcmp(key, "context") == 0;
}

static int check_top_level(const pytest_doc *d)
{
    if (cJSON_IsObject(d->machine) && d->top.has_benchmarks)
        return MCPP_OK;
    return mcpp_jc_suite_not_tool(&d->text, &d->top, "pytest-benchmark", "\"machine_info\" and \"benchmarks\"",
                                  d->context ? "Google Benchmark" : NULL, "google-benchmark");
}

static int check_benchmark(const pytest_doc *d, const cJSON *bench, size_t i, size_t at)
{
    char field[48];
    snprintf(field, sizeof field, "benchmarks[%zu]", i);
    double median;
    if (!cJSON_IsObject(bench) || !mcpp_import_string(mcpp_import_member(bench, "fullname")))
        return mcpp_import_json_error_at(&d->text, at, "missing", field,
                                         "expected a benchmark with a string \"fullname\"");
    if (!mcpp_import_number(&median, mcpp_import_member(mcpp_import_member(bench, "stats"), "median")) || median <= 0)
        return mcpp_import_json_error_at(&d->text, at, "missing", field,
                                         "expected \"stats\" with a positive number \"median\"");
    return MCPP_OK;
}

/* machine_info and commit_info: the same for every benchmark of the file. */
static int map_machine(mcpp_builder *b, cJSON *extra, const pytest_doc *d)
{
    cJSON *machine = cJSON_Duplicate(d->machine, 1);
    cJSON *commit = cJSON_Duplicate(d->commit, 1);
    cJSON *cpu = cJSON_GetObjectItemCaseSensitive(machine, "cpu");
    const char *node = mcpp_import_string(mcpp_import_member(machine, "node"));
    const char *impl = mcpp_import_string(mcpp_import_member(machine, "python_implementation"));
    const char *pyver = mcpp_import_string(mcpp_import_member(machine, "python_version"));
    const char *brand = mcpp_import_string(mcpp_import_member(cpu, "brand_raw"));
    const char *commit_id = mcpp_import_string(mcpp_import_member(commit, "id"));
    int64_t cores = 0;
    mcpp_import_integer(&cores, mcpp_import_member(cpu, "count"));
    const mcpp_import_text texts[] = {{"source.host", node}, {"software.framework", impl}, {"software.version", pyver}};
    int rc = machine ? mcpp_import_set_texts(b, texts, sizeof texts / sizeof texts[0]) : mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = mcpp_import_set_cpu(b, brand, cores);
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

/* The round times: the positive numbers of stats.data (numbers or numeric
 * strings, as mcpp_import_number reads them). */
typedef struct rounds {
    double *v;
    size_t n, cap;
} rounds;

/* Empties the list; a long one's block goes back (the receipt is packed
 * after the samples are in the builder: the block would only add to the
 * peak). */
static void rounds_clear(rounds *data)
{
    data->n = 0;
    if (data->cap > ((size_t)1 << 16)) {
        free(data->v);
        *data = (rounds){0};
    }
}

/* time_s from stats: the round times when stats.data has them, else the median. */
static int add_time_metric(mcpp_builder *b, const cJSON *stats, const rounds *data)
{
    double median = 0;
    mcpp_import_number(&median, mcpp_import_member(stats, "median"));
    size_t n = data->n;
    int rc =
        n > 0 ? mcpp_quantile(&median, data->v, n, 0.5) : MCPP_OK; /* the rounds' median, if any */
    if (rc == MCPP_OK && n > 1) /* many rounds are summarized there (a bounded receipt) */
        rc = mcpp_import_add_samples(b, "time_s", "s", MCPP_DIRECTION_LOWER, "round", data->v, n);
    else if (rc == MCPP_OK)
        rc = n > 0 ? mcpp_builder_add_metric(b, "time_s", "s", MCPP_DIRECTION_LOWER, median,
                                             "median", "round", data->v, n)
                   : mcpp_builder_add_metric(b, "time_s", "s", MCPP_DIRECTION_LOWER, median, NULL,
                                             NULL, NULL, 0);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "metrics.primary", "time_s");
    return rc;
}

/* One receipt: `bench` is the benchmark without its round times, which are
 * in `data`. */
static int import_benchmark(mcpp_import_sink *sink, const pytest_doc *d, const cJSON *bench,
                            rounds *data)
{
    const char *fullname = mcpp_import_string(mcpp_import_member(bench, "fullname"));
    const char *date = mcpp_import_string(d->date);
    const char *version = mcpp_import_string(d->version);
    const cJSON *stats = mcpp_import_member(bench, "stats");
    mcpp_builder *b = NULL;
    cJSON *extra = cJSON_CreateObject();
    int rc = extra ? mcpp_builder_new(&b) : mcpp_error_nomem();
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
        rc = mcpp_import_set_name(b, fullname);
    if (rc == MCPP_OK && cJSON_IsObject(mcpp_import_member(bench, "params")))
        rc = mcpp_import_set_json(b, "benchmark.params", mcpp_import_member(bench, "params"));
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "topology.substrate", "cpu");
    if (rc == MCPP_OK)
        rc = map_machine(b, extra, d);
    if (rc == MCPP_OK)
        rc = add_time_metric(b, stats, data);
    rounds_clear(data);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "status.outcome", "ok");
    /* the benchmark's other members (its stats came without the round times) */
    for (const cJSON *c = bench->child; rc == MCPP_OK && c; c = c->next) {
        if (strcmp(c->string, "fullname") == 0 || strcmp(c->string, "params") == 0 || cJSON_IsNull(c))
            continue;
        cJSON_AddItemToObject(extra, c->string, cJSON_Duplicate(c, 1));
    }
    if (rc == MCPP_OK)
        rc = mcpp_import_set_json(b, "extra.pytest_benchmark", extra);
    if (rc == MCPP_OK) {
        char readable[200];
        snprintf(readable, sizeof readable, "pytest-%s", fullname);
        rc = mcpp_import_finish(sink, b, readable, d->text.path);
    }
    mcpp_builder_free(b);
    cJSON_Delete(extra);
    return rc;
}

/* Appends the positive numbers of the list at the cursor to `data`; each
 * element is parsed on its own (a tree of the list would be 80 bytes a round). */
static int read_rounds(mcpp_json_cursor *c, rounds *data)
{
    int rc = MCPP_OK, more, first = 1;
    mcpp_jc_enter(c, '[');
    while (rc == MCPP_OK && (more = mcpp_jc_next(c, ']', &first, NULL)) > 0) {
        cJSON *v = NULL;
        size_t at;
        double x;
        rc = mcpp_jc_parse(c, &v, &at);
        if (rc == MCPP_OK && mcpp_import_number(&x, v) && x > 0 &&
            (rc = MCPP_ARRAY_RESERVE(data->v, data->cap, data->n + 1, MCPP_ARRAY_MAX_ITEMS)) ==
                MCPP_OK)
            data->v[data->n++] = x;
        cJSON_Delete(v);
    }
    return rc == MCPP_OK && more < 0 ? more : rc;
}

/* Parses the object at the cursor member by member into *out, leaving out
 * every member named `skip_list`: the first of them, when a list, goes to
 * `data` (NULL: dropped too). Each member named `nested` whose value is an
 * object is read the same way (stats, holding data), the first one into
 * `data`. Other members are parsed whole. */
static int read_members(mcpp_json_cursor *c, cJSON **out, const char *nested, const char *skip_list,
                        rounds *data)
{
    *out = cJSON_CreateObject();
    int rc = *out ? MCPP_OK : mcpp_error_nomem(), more = 0, first = 1, seen_nested = 0,
        seen_list = 0;
    mcpp_jc_enter(c, '{');
    char *key = NULL;
    while (rc == MCPP_OK && (more = mcpp_jc_next(c, '}', &first, &key)) > 0) {
        cJSON *v = NULL;
        size_t at;
        if (nested && strcmp(key, nested) == 0 && mcpp_jc_peek(c) == '{') {
            rc = read_members(c, &v, NULL, skip_list, seen_nested++ ? NULL : data);
        } else if (!nested && skip_list && strcmp(key, skip_list) == 0) {
            /* the round times never go to extra (one list, the first, are the samples) */
            if (data && !seen_list++ && mcpp_jc_peek(c) == '[')
                rc = read_rounds(c, data);
            else if ((rc = mcpp_jc_parse(c, &v, &at)) == MCPP_OK)
                cJSON_Delete(v);
            v = NULL;
        } else {
            rc = mcpp_jc_parse(c, &v, &at);
        }
        if (rc == MCPP_OK && v && !cJSON_AddItemToObject(*out, key, v)) {
            cJSON_Delete(v);
            rc = mcpp_error_nomem();
        } else if (rc != MCPP_OK) {
            cJSON_Delete(v);
        }
        cJSON_free(key);
        key = NULL;
    }
    return rc == MCPP_OK && more < 0 ? more : rc;
}

/* Each benchmark of the list, one at a time: read, checked, imported, dropped. */
static int import_benchmarks(mcpp_import_sink *sink, const pytest_doc *d)
{
    mcpp_json_cursor c = {&d->text, d->top.benchmarks_at};
    mcpp_jc_enter(&c, '[');
    rounds data = {0};
    size_t i = 0;
    int rc = MCPP_OK, more, first = 1;
    for (; rc == MCPP_OK && (more = mcpp_jc_next(&c, ']', &first, NULL)) > 0; i++) {
        cJSON *bench = NULL;
        size_t at = c.pos;
        if (mcpp_jc_peek(&c) == '{')
            rc = read_members(&c, &bench, "stats", "data", &data);
        else
            rc = mcpp_jc_parse(&c, &bench, &at);
        if (rc == MCPP_OK)
            rc = check_benchmark(d, bench, i, at);
        if (rc == MCPP_OK)
            rc = import_benchmark(sink, d, bench, &data);
        cJSON_Delete(bench);
        rounds_clear(&data);
    }
    free(data.v);
    if (rc == MCPP_OK && more < 0)
        rc = more;
    if (rc == MCPP_OK && i == 0)
        rc = mcpp_import_json_error_at(&d->text, d->top.benchmarks_at, "missing", "benchmarks",
                                       "no benchmarks");
    return rc;
}

int mcpp_import_pytest_benchmark_file(mcpp_import_sink *sink, const char *path)
{
    pytest_doc d = {0};
    int rc = mcpp_import_json_read(&d.text, path);
    if (rc == MCPP_OK)
        rc = mcpp_jc_read_suite_top(&d.top, &d.text, keep_member, &d);
    if (rc == MCPP_OK)
        rc = check_top_level(&d);
    if (rc == MCPP_OK)
        rc = import_benchmarks(sink, &d);
    cJSON_Delete(d.machine);
    cJSON_Delete(d.commit);
    cJSON_Delete(d.date);
    cJSON_Delete(d.version);
    mcpp_import_json_free(&d.text);
    return rc;
}
