/*
 * google_benchmark_import.c — Google Benchmark JSON (--benchmark_out=FILE
 * --benchmark_out_format=json) onto receipts: one receipt per run name, its
 * repetitions as samples of real_time_s and cpu_time_s and of every rate
 * counter (*_per_second); aggregate rows (mean, median, stddev, cv) are kept
 * in extra, never used as samples. docs/import.md has the field mapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_internal.h"
#include "util/error_internal.h"
#include "util/hash.h"
#include "util/parallel.h"

/* Members of a benchmark row that are not user counters. */
static const char *const ROW_KEYS[] = {
    "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "aggregate_name", "aggregate_unit", "label", "error_occurred", "error_message"};

/* Google Benchmark's context names the host and its core count but never the
 * processor model, so the hardware dimension (the accelerator) is not recorded
 * by the source: "not recorded", not "missing on both" (which would make every
 * pair of its results insufficient). */
static const char *const NOT_RECORDED[] = {"lane", "workload", "routing", "compile", "backend",
                                           "launch", "startup", "hardware"};

static int is_row_key(const char *key)
{
    for (size_t i = 0; i < sizeof ROW_KEYS / sizeof ROW_KEYS[0]; i++)
        if (strcmp(key, ROW_KEYS[i]) == 0)
            return 1;
    return 0;
}

static int seconds_per_unit(double *out, const char *unit)
{
    static const struct { const char *name; double s; } UNITS[] = {
        {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
    for (size_t i = 0; unit && i < sizeof UNITS / sizeof UNITS[0]; i++)
        if (strcmp(unit, UNITS[i].name) == 0) {
            *out = UNITS[i].s;
            return 1;
        }
    return 0;
}

static const char *run_name_of(const cJSON *row)
{
    const char *s = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "run_name"));
    return s ? s : mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "name"));
}

static int is_aggregate(const cJSON *row)
{
    const char *t = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "run_type"));
    return t && strcmp(t, "aggregate") == 0;
}

static int is_error(const cJSON *row)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "error_occurred"));
}

/* The checks that tell this tool's file from another's, before any mapping. */
static int check_shape(const mcpp_import_json *doc)
{
    const cJSON *root = doc->root;
    const cJSON *benchmarks = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "context")) || !cJSON_IsArray(benchmarks)) {
        int pytest = cJSON_HasObjectItem(root, "machine_info");
        return mcpp_import_json_error(doc, root, "type", NULL,
                                      "not Google Benchmark JSON output: expected an object with "
                                      "\"context\" and \"benchmarks\"%s",
                                      pytest ? " (this is pytest-benchmark output: import it as "
                                               "pytest-benchmark)" : "");
    }
    int i = 0;
    for (const cJSON *row = benchmarks->child; row; row = row->next, i++) {
        char field[48];
        snprintf(field, sizeof field, "benchmarks[%d]", i);
        double unit;
        if (!cJSON_IsObject(row) || !run_name_of(row))
            return mcpp_import_json_error(doc, row, "missing", field,
                                          "expected a benchmark row with a \"run_name\" or \"name\"");
        if (is_error(row))
            continue;
        if (!seconds_per_unit(&unit, mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "time_unit"))))
            return mcpp_import_json_error(doc, row, "type", field,
                                          "expected \"time_unit\" ns, us, ms or s");
        double t;
        if (!mcpp_import_number(&t, cJSON_GetObjectItemCaseSensitive(row, "real_time")) ||
            !mcpp_import_number(&t, cJSON_GetObjectItemCaseSensitive(row, "cpu_time")))
            return mcpp_import_json_error(doc, row, "missing", field,
                                          "expected numbers \"real_time\" and \"cpu_time\"");
    }
    if (i == 0)
        return mcpp_import_json_error(doc, benchmarks, "missing", "benchmarks", "no benchmark rows");
    return MCPP_OK;
}

/* The rows of one run name, in file order (a slice of the grouped rows). */
typedef struct run_rows {
    const cJSON *const *rows;
    size_t n;
} run_rows;

/* The values of `key` (scaled) over the run's repetition rows. */
static size_t collect(double *out, run_rows run, const char *key, int time)
{
    size_t n = 0;
    for (size_t i = 0; i < run.n; i++) {
        const cJSON *row = run.rows[i];
        double v, unit = 1.0;
        if (is_aggregate(row) || is_error(row))
            continue;
        if (time)
            seconds_per_unit(&unit, mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "time_unit")));
        if (mcpp_import_number(&v, cJSON_GetObjectItemCaseSensitive(row, key)))
            out[n++] = v * unit;
    }
    return n;
}

static int add_metric(mcpp_builder *b, const char *name, const char *unit, mcpp_direction dir,
                      const double *samples, size_t n)
{
    if (n == 0)
        return MCPP_OK;
    double median = 0;
    int rc = mcpp_quantile(&median, samples, n, 0.5); /* the validator's median */
    if (rc != MCPP_OK)
        return rc;
    return mcpp_builder_add_metric(b, name, unit, dir, median, n == 1 ? "single" : "median", "repetition",
                                   samples, n);
}

/* 1 when the run measured wall-clock time on purpose: Google Benchmark puts
 * "/real_time" (UseRealTime) or "/manual_time" (UseManualTime) into the run
 * name, followed only by "/threads:N" or nothing. */
static int measured_real_time(const char *name)
{
    static const char *const marks[] = {"/real_time", "/manual_time"};
    for (size_t k = 0; k < 2; k++) {
        size_t len = strlen(marks[k]);
        for (const char *at = strstr(name, marks[k]); at; at = strstr(at + 1, marks[k]))
            if (at[len] == '\0' || at[len] == '/') return 1;
    }
    return 0;
}

/* The primary metric and why: CPU time unless the benchmark measured real
 * or manual time. On a shared machine the wall clock of unchanged code moved
 * +208% between two runs while CPU time moved 1.8% (docs/statistics.md). */
static int set_primary(mcpp_builder *b, cJSON *extra, const char *name)
{
    int real = measured_real_time(name);
    const char *why = real ? "real_time_s: the benchmark measured wall-clock time (its name has /real_time or "
                             "/manual_time)"
                           : "cpu_time_s: the benchmark measured neither real nor manual time, and the wall clock "
                             "of a shared machine moves with other jobs";
    if (!cJSON_AddStringToObject(extra, "primary_metric_reason", why)) return mcpp_error_nomem();
    return mcpp_builder_set_string(b, "metrics.primary", real ? "real_time_s" : "cpu_time_s");
}

/* real_time_s, cpu_time_s, then every *_per_second counter (higher is better);
 * other counters have no stated direction and go to extra (`counters`). */
static int add_metrics(mcpp_builder *b, cJSON *counters, run_rows run, double *buf)
{
    int rc = add_metric(b, "real_time_s", "s", MCPP_DIRECTION_LOWER, buf, collect(buf, run, "real_time", 1));
    if (rc == MCPP_OK)
        rc = add_metric(b, "cpu_time_s", "s", MCPP_DIRECTION_LOWER, buf, collect(buf, run, "cpu_time", 1));
    for (const cJSON *c = run.rows[0]->child; rc == MCPP_OK && c; c = c->next) {
        if (is_row_key(c->string) || !cJSON_IsNumber(c))
            continue;
        size_t n = collect(buf, run, c->string, 0), len = strlen(c->string);
        if (len > 11 && strcmp(c->string + len - 11, "_per_second") == 0) {
            char unit[160];
            const char *what = strncmp(c->string, "bytes", 5) == 0 ? "B" : NULL;
            snprintf(unit, sizeof unit, "%.*s/s", what ? 1 : (int)(len - 11), what ? what : c->string);
            rc = add_metric(b, c->string, unit, MCPP_DIRECTION_HIGHER, buf, n);
        } else if (n > 0) {
            cJSON *values = cJSON_CreateDoubleArray(buf, (int)n);
            if (!values)
                return mcpp_error_nomem();
            cJSON_AddItemToObject(counters, c->string, values);
        }
    }
    return rc;
}

/* context: host_name, executable, num_cpus, date onto fields; the rest to extra. */
static int map_context(mcpp_builder *b, cJSON *extra, const cJSON *context)
{
    const char *date = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(context, "date"));
    const char *host = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(context, "host_name"));
    const char *exe = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(context, "executable"));
    const char *version = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(context, "library_version"));
    int64_t cpus = 0;
    int rc = mcpp_builder_set_string(b, "source.tool", "mcpp-receipts import google-benchmark");
    if (rc == MCPP_OK && date && mcpp_import_has_zone(date))
        rc = mcpp_builder_set_string(b, "created_at", date);
    if (rc == MCPP_OK && host)
        rc = mcpp_builder_set_string(b, "source.host", host);
    if (rc == MCPP_OK && exe)
        rc = mcpp_builder_set_string(b, "source.command", exe);
    if (rc == MCPP_OK && version)
        rc = mcpp_builder_set_string(b, "benchmark.suite_version", version);
    if (rc == MCPP_OK && mcpp_import_integer(&cpus, cJSON_GetObjectItemCaseSensitive(context, "num_cpus")) &&
        cpus >= 1)
        rc = mcpp_builder_set_int(b, "hardware.host.cores", cpus);
    cJSON *rest = cJSON_CreateObject();
    if (!rest)
        return mcpp_error_nomem();
    for (const cJSON *c = context->child; c; c = c->next) {
        int mapped = strcmp(c->string, "host_name") == 0 || strcmp(c->string, "executable") == 0 ||
                     strcmp(c->string, "num_cpus") == 0 || strcmp(c->string, "library_version") == 0 ||
                     (strcmp(c->string, "date") == 0 && date && mcpp_import_has_zone(date));
        if (!mapped && !cJSON_IsNull(c))
            cJSON_AddItemToObject(rest, c->string, cJSON_Duplicate(c, 1));
    }
    cJSON_AddItemToObject(extra, "context", rest);
    return rc;
}

/* Per run: aggregates by name, iterations and threads per repetition, errors. */
static int map_rows(mcpp_builder *b, cJSON *extra, run_rows run)
{
    cJSON *aggregates = cJSON_AddObjectToObject(extra, "aggregates");
    cJSON *iterations = cJSON_AddArrayToObject(extra, "iterations");
    if (!aggregates || !iterations)
        return mcpp_error_nomem();
    int rc = MCPP_OK, errors = 0;
    for (size_t i = 0; rc == MCPP_OK && i < run.n; i++) {
        const cJSON *row = run.rows[i];
        const char *agg = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "aggregate_name"));
        if (is_aggregate(row) && agg && !cJSON_HasObjectItem(aggregates, agg)) {
            cJSON *a = cJSON_AddObjectToObject(aggregates, agg);
            for (const cJSON *c = row->child; a && c; c = c->next)
                if (strcmp(c->string, "real_time") == 0 || strcmp(c->string, "cpu_time") == 0 ||
                    strcmp(c->string, "aggregate_unit") == 0 || strcmp(c->string, "time_unit") == 0 ||
                    !is_row_key(c->string))
                    cJSON_AddItemToObject(a, c->string, cJSON_Duplicate(c, 1));
        } else if (is_error(row)) {
            const char *msg = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "error_message"));
            char caveat[300];
            snprintf(caveat, sizeof caveat, "repetition failed: %.250s", msg ? msg : "(no message)");
            errors++;
            rc = mcpp_builder_append_string(b, "status.caveats", caveat);
        } else if (!is_aggregate(row)) {
            cJSON *it = cJSON_GetObjectItemCaseSensitive(row, "iterations");
            if (cJSON_IsNumber(it))
                cJSON_AddItemToArray(iterations, cJSON_Duplicate(it, 0));
        }
    }
    const cJSON *threads = NULL;
    for (size_t i = 0; i < run.n && !threads; i++)
        threads = cJSON_GetObjectItemCaseSensitive(run.rows[i], "threads");
    if (cJSON_IsNumber(threads))
        cJSON_AddItemToObject(extra, "threads", cJSON_Duplicate(threads, 0));
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "status.outcome", errors ? "failed" : "ok");
    return rc;
}

static int import_run(mcpp_receipt **out, const mcpp_import_json *doc, run_rows run, double *buf)
{
    const char *name = run_name_of(run.rows[0]);
    mcpp_builder *b = NULL;
    cJSON *extra = cJSON_CreateObject(), *counters = cJSON_CreateObject();
    int rc = extra && counters ? mcpp_builder_new(&b) : mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = map_context(b, extra, cJSON_GetObjectItemCaseSensitive(doc->root, "context"));
    for (size_t i = 0; rc == MCPP_OK && i < sizeof NOT_RECORDED / sizeof NOT_RECORDED[0]; i++)
        rc = mcpp_builder_append_string(b, "source.not_recorded", NOT_RECORDED[i]);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "benchmark.suite", "google-benchmark");
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "benchmark.name", name);
    if (rc == MCPP_OK) /* the lane's display label (no policy dimension reads lane.name) */
        rc = mcpp_builder_set_string(b, "lane.name", name);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "topology.substrate", "cpu");
    if (rc == MCPP_OK)
        rc = add_metrics(b, counters, run, buf);
    if (rc == MCPP_OK)
        rc = set_primary(b, extra, name);
    if (rc == MCPP_OK)
        rc = map_rows(b, extra, run);
    if (rc == MCPP_OK && cJSON_GetArraySize(counters) > 0) {
        cJSON_AddItemToObject(extra, "counters", counters);
        counters = NULL;
    }
    if (rc == MCPP_OK)
        rc = mcpp_import_set_json(b, "extra.google_benchmark", extra);
    if (rc == MCPP_OK) {
        char readable[200];
        snprintf(readable, sizeof readable, "gbench-%s", name);
        rc = mcpp_import_make(out, b, readable, doc->path);
    }
    mcpp_builder_free(b);
    cJSON_Delete(extra);
    cJSON_Delete(counters);
    return rc;
}

/*
 * The rows grouped by run name: rows[start[g] .. start[g + 1]) are the rows of
 * the g-th name in the order names first appear, each group in file order.
 * A hash table on the name keeps this linear (a suite of 1,000 benchmarks
 * with 20 repetitions is 20,000 rows; comparing each row with every earlier
 * one took 30 s).
 */
typedef struct grouped_rows {
    const cJSON **rows;
    size_t *start;
    size_t n_groups;
} grouped_rows;

static void grouped_free(grouped_rows *g)
{
    free(g->rows);
    free(g->start);
}

/* The group of `name`, a new one when unseen; names[g] is group g's name. */
static size_t group_of(size_t *table, size_t cap, const char **names, size_t *n_groups, const char *name)
{
    size_t pos = (size_t)mcpp_fnv1a(name, strlen(name), MCPP_FNV_OFFSET) & (cap - 1);
    for (; table[pos]; pos = (pos + 1) & (cap - 1))
        if (strcmp(names[table[pos] - 1], name) == 0)
            return table[pos] - 1;
    names[*n_groups] = name;
    table[pos] = ++*n_groups;
    return *n_groups - 1;
}

static int group_rows(grouped_rows *g, const cJSON *benchmarks, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    size_t *table = calloc(cap, sizeof *table), *group = malloc(n * sizeof *group);
    const char **names = malloc(n * sizeof *names);
    g->rows = malloc(n * sizeof *g->rows);
    g->start = calloc(n + 1, sizeof *g->start);
    g->n_groups = 0;
    int rc = table && group && names && g->rows && g->start ? MCPP_OK : mcpp_error_nomem();
    size_t i = 0;
    for (const cJSON *row = benchmarks->child; rc == MCPP_OK && row; row = row->next, i++) {
        group[i] = group_of(table, cap, names, &g->n_groups, run_name_of(row));
        g->start[group[i] + 1]++;
    }
    for (size_t k = 0; rc == MCPP_OK && k < g->n_groups; k++) g->start[k + 1] += g->start[k];
    /* place each row after the rows of its group placed before it (counting sort) */
    size_t *fill = rc == MCPP_OK ? malloc((g->n_groups + 1) * sizeof *fill) : NULL;
    if (rc == MCPP_OK && !fill)
        rc = mcpp_error_nomem();
    if (rc == MCPP_OK) {
        memcpy(fill, g->start, (g->n_groups + 1) * sizeof *fill);
        i = 0;
        for (const cJSON *row = benchmarks->child; row; row = row->next, i++) g->rows[fill[group[i]]++] = row;
    }
    free(fill);
    free(table);
    free(group);
    free(names);
    return rc;
}

/* The runs of one file, made on several threads: each run's receipt is
 * independent and reads the parsed document only. */
typedef struct run_jobs {
    const mcpp_import_json *doc;
    const grouped_rows *g;
    mcpp_receipt **made; /* per run; NULL where making it failed */
    size_t max_rows;     /* rows of the largest run: each thread's scratch */
} run_jobs;

static void make_runs(void *ctx, size_t from, size_t to)
{
    run_jobs *j = ctx;
    double *buf = malloc((j->max_rows + 1) * sizeof *buf);
    for (size_t k = from; buf && k < to; k++)
        if (import_run(&j->made[k], j->doc, (run_rows){j->g->rows + j->g->start[k], j->g->start[k + 1] - j->g->start[k]},
                       buf) != MCPP_OK)
            j->made[k] = NULL;
    free(buf);
}

/* Adds the runs' receipts to `set` in the order the names first appear. A
 * run that failed on a worker thread is made again on this one, so its
 * error is this thread's last error. */
static int import_runs(mcpp_receipt_set *set, const mcpp_import_json *doc, const grouped_rows *g)
{
    run_jobs j = {doc, g, calloc(g->n_groups ? g->n_groups : 1, sizeof *j.made), 0};
    if (!j.made)
        return mcpp_error_nomem();
    for (size_t k = 0; k < g->n_groups; k++)
        if (g->start[k + 1] - g->start[k] > j.max_rows)
            j.max_rows = g->start[k + 1] - g->start[k];
    mcpp_parallel_ranges(g->n_groups, mcpp_parallel_threads(g->n_groups, MCPP_PARALLEL_MAX_THREADS, 64), make_runs,
                         &j);
    int rc = MCPP_OK;
    double *buf = NULL;
    for (size_t k = 0; k < g->n_groups; k++) {
        if (rc == MCPP_OK && !j.made[k]) {
            buf = buf ? buf : malloc((j.max_rows + 1) * sizeof *buf);
            rc = buf ? import_run(&j.made[k], doc, (run_rows){g->rows + g->start[k], g->start[k + 1] - g->start[k]}, buf)
                     : mcpp_error_nomem();
        }
        if (rc == MCPP_OK)
            rc = mcpp_receipt_set_add(set, j.made[k]);
        else
            mcpp_receipt_free(j.made[k]);
    }
    free(buf);
    free(j.made);
    return rc;
}

int mcpp_import_google_benchmark_file(mcpp_receipt_set *set, const char *path)
{
    mcpp_import_json doc;
    int rc = mcpp_import_json_open(&doc, path);
    if (rc != MCPP_OK)
        return rc;
    rc = check_shape(&doc);
    const cJSON *benchmarks = cJSON_GetObjectItemCaseSensitive(doc.root, "benchmarks");
    size_t n = rc == MCPP_OK ? (size_t)cJSON_GetArraySize(benchmarks) : 0;
    grouped_rows g = {0};
    if (rc == MCPP_OK)
        rc = group_rows(&g, benchmarks, n);
    if (rc == MCPP_OK)
        rc = import_runs(set, &doc, &g);
    grouped_free(&g);
    mcpp_import_json_free(&doc);
    return rc;
}
