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
#include "util/alloc.h"
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

/* What the reader keeps of the document's top level. */
typedef struct gbench_doc {
    mcpp_import_json text;
    mcpp_jc_suite_top top;
    cJSON *context;   /* the first "context" member, parsed               */
    int machine_info; /* a "machine_info" member: pytest-benchmark's file  */
    const char *git_commit; /* the import's (mcpp_import_make), or NULL   */
    mcpp_share *share;      /* the import's (mcpp_import_make), or NULL   */
} gbench_doc;

/* The top level's members (mcpp_jc_read_suite_top): "context" kept, the
 * first of a repeated member counting, as for cJSON's lookup. */
static void keep_member(void *ctx, const char *key, cJSON **v)
{
    gbench_doc *d = ctx;
    if (strcmp(key, "context") == 0)
        mcpp_jc_keep_first(&d->context, v);
    d->machine_info |= strcmp(key, "machine_info") == 0;
}

/* The checks that tell this tool's file from another's, before any mapping:
 * an object with "context" and "benchmarks". */
static int check_top_level(const gbench_doc *d)
{
    if (cJSON_IsObject(d->context) && d->top.has_benchmarks)
        return MCPP_OK;
    return mcpp_jc_suite_not_tool(&d->text, &d->top, "Google Benchmark", "\"context\" and \"benchmarks\"",
                                  d->machine_info ? "pytest-benchmark" : NULL, "pytest-benchmark");
}

/* The checks of one row (benchmarks[i], at byte `at`). */
static int check_row(const gbench_doc *d, const cJSON *row, size_t i, size_t at)
{
    char field[48];
    snprintf(field, sizeof field, "benchmarks[%zu]", i);
    double unit;
    if (!cJSON_IsObject(row) || !run_name_of(row))
        return mcpp_import_json_error_at(
            &d->text, at, "missing", field,
            "expected a benchmark row with a \"run_name\" or \"name\"");
    if (is_error(row))
        return MCPP_OK;
    if (!seconds_per_unit(&unit,
                          mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "time_unit"))))
        return mcpp_import_json_error_at(&d->text, at, "type", field,
                                         "expected \"time_unit\" ns, us, ms or s");
    double t;
    if (!mcpp_import_number(&t, cJSON_GetObjectItemCaseSensitive(row, "real_time")) ||
        !mcpp_import_number(&t, cJSON_GetObjectItemCaseSensitive(row, "cpu_time")))
        return mcpp_import_json_error_at(&d->text, at, "missing", field,
                                         "expected numbers \"real_time\" and \"cpu_time\"");
    return MCPP_OK;
}

/* One metric's values over a run's repetitions (its rows neither aggregate
 * nor failed that state it), in file order. */
typedef struct run_values {
    double *v;
    size_t n, cap;
} run_values;

/* What a run's receipt needs of its rows, gathered one row at a time: the
 * repetitions' numbers and the few members extra keeps, never the rows'
 * trees (a parsed row is ~2 KB: holding them, 60,000 repetitions of one run,
 * a 28 MB file, peaked at 171 MB; issue 48). */
typedef struct run_numbers {
    cJSON *first;         /* the run's first row: its name, its counters' names */
    run_values real, cpu; /* real_time and cpu_time in seconds                  */
    run_values *counters; /* per member of `first`, in its order (counters only) */
    cJSON *aggregates;    /* per aggregate name, its first row's kept members   */
    cJSON *iterations;    /* per repetition                                     */
    cJSON *caveats;       /* "repetition failed: ..." per failed row            */
    size_t nonfinite;     /* counter values NaN or Infinity in its repetitions    */
    cJSON *threads;       /* the first row's "threads" that has one, a number   */
    int threads_seen, errors;
} run_numbers;

static void run_numbers_free(run_numbers *r)
{
    size_t k = 0;
    for (const cJSON *c = r->first ? r->first->child : NULL; r->counters && c; c = c->next)
        free(r->counters[k++].v);
    free(r->counters);
    free(r->real.v);
    free(r->cpu.v);
    cJSON_Delete(r->first);
    cJSON_Delete(r->aggregates);
    cJSON_Delete(r->iterations);
    cJSON_Delete(r->caveats);
    cJSON_Delete(r->threads);
}

/* A number the library wrote as NaN or Infinity, as mcpp_import_json_nonfinite_as_empty
 * marks it (an empty array). */
static int is_nonfinite(const cJSON *c) { return cJSON_IsArray(c) && !c->child; }

/* A member of the first row that is a user counter (a number, or one written
 * NaN or Infinity, under a name Google Benchmark does not use for itself). */
static int is_counter(const cJSON *c) { return !is_row_key(c->string) && (cJSON_IsNumber(c) || is_nonfinite(c)); }

static int values_add(run_values *x, double v)
{
    MCPP_CHECK_ARRAY(x->v, x->cap, x->n + 1, MCPP_ARRAY_MAX_ITEMS);
    x->v[x->n++] = v;
    return MCPP_OK;
}

/* A repetition: its times (scaled to seconds), counters and iterations. */
static int take_repetition(run_numbers *r, const cJSON *row)
{
    double v, unit = 1.0;
    int rc = MCPP_OK;
    seconds_per_unit(&unit, mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "time_unit")));
    if (mcpp_import_number(&v, cJSON_GetObjectItemCaseSensitive(row, "real_time")))
        rc = values_add(&r->real, v * unit);
    if (rc == MCPP_OK && mcpp_import_number(&v, cJSON_GetObjectItemCaseSensitive(row, "cpu_time")))
        rc = values_add(&r->cpu, v * unit);
    size_t k = 0;
    for (const cJSON *c = r->first->child; rc == MCPP_OK && c; c = c->next, k++)
        if (is_counter(c) && mcpp_import_number(&v, cJSON_GetObjectItemCaseSensitive(row, c->string)))
            rc = values_add(&r->counters[k], v);
    for (const cJSON *c = row->child; c; c = c->next) /* mcpp_import_json_nonfinite_as_empty's marks */
        r->nonfinite += is_nonfinite(c) && !is_row_key(c->string);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(row, "iterations");
    if (rc == MCPP_OK && cJSON_IsNumber(it) && !cJSON_AddItemToArray(r->iterations, cJSON_Duplicate(it, 0)))
        rc = mcpp_error_nomem();
    return rc;
}

/* One row of the run, in file order: the first row of each aggregate name is
 * kept (its times, units and counters), a failed row is a caveat, any other
 * is a repetition; the first "threads" met is the run's. */
static int take_row(run_numbers *r, const cJSON *row)
{
    const cJSON *threads = cJSON_GetObjectItemCaseSensitive(row, "threads");
    if (threads && !r->threads_seen) {
        r->threads_seen = 1;
        if (cJSON_IsNumber(threads) && !(r->threads = cJSON_Duplicate(threads, 0)))
            return mcpp_error_nomem();
    }
    const char *agg = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "aggregate_name"));
    if (is_aggregate(row) && agg && !cJSON_HasObjectItem(r->aggregates, agg)) {
        cJSON *a = cJSON_AddObjectToObject(r->aggregates, agg);
        for (const cJSON *c = row->child; a && c; c = c->next)
            if (strcmp(c->string, "real_time") == 0 || strcmp(c->string, "cpu_time") == 0 ||
                strcmp(c->string, "aggregate_unit") == 0 || strcmp(c->string, "time_unit") == 0 ||
                !is_row_key(c->string))
                cJSON_AddItemToObject(a, c->string, cJSON_Duplicate(c, 1));
        return a ? MCPP_OK : mcpp_error_nomem();
    }
    if (is_error(row)) {
        const char *msg = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(row, "error_message"));
        char caveat[300];
        snprintf(caveat, sizeof caveat, "repetition failed: %.250s", msg ? msg : "(no message)");
        r->errors++;
        return cJSON_AddItemToArray(r->caveats, cJSON_CreateString(caveat)) ? MCPP_OK : mcpp_error_nomem();
    }
    return is_aggregate(row) ? MCPP_OK : take_repetition(r, row);
}

/* The run's first row, kept: room for its counters' values. */
static int start_run(run_numbers *r, cJSON *first)
{
    r->first = first;
    size_t members = (size_t)cJSON_GetArraySize(first);
    r->counters = calloc(members ? members : 1, sizeof *r->counters);
    r->aggregates = cJSON_CreateObject();
    r->iterations = cJSON_CreateArray();
    r->caveats = cJSON_CreateArray();
    return r->counters && r->aggregates && r->iterations && r->caveats ? MCPP_OK : mcpp_error_nomem();
}

/* The repetitions as samples (many are summarized: import.c). */
static int add_metric(mcpp_builder *b, const char *name, const char *unit, mcpp_direction dir, const run_values *x)
{
    return mcpp_import_add_samples(b, name, unit, dir, "repetition", x->v, x->n);
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
static int add_metrics(mcpp_builder *b, cJSON *counters, const run_numbers *r)
{
    int rc = add_metric(b, "real_time_s", "s", MCPP_DIRECTION_LOWER, &r->real);
    if (rc == MCPP_OK)
        rc = add_metric(b, "cpu_time_s", "s", MCPP_DIRECTION_LOWER, &r->cpu);
    size_t k = 0;
    for (const cJSON *c = r->first->child; rc == MCPP_OK && c; c = c->next, k++) {
        if (!is_counter(c))
            continue;
        const run_values *x = &r->counters[k];
        size_t len = strlen(c->string);
        if (len > 11 && strcmp(c->string + len - 11, "_per_second") == 0) {
            char unit[160];
            const char *what = strncmp(c->string, "bytes", 5) == 0 ? "B" : NULL;
            snprintf(unit, sizeof unit, "%.*s/s", what ? 1 : (int)(len - 11), what ? what : c->string);
            rc = add_metric(b, c->string, unit, MCPP_DIRECTION_HIGHER, x);
        } else if (x->n > 0) {
            cJSON *values = cJSON_CreateDoubleArray(x->v, (int)x->n);
            if (!values)
                return mcpp_error_nomem();
            cJSON_AddItemToObject(counters, c->string, values);
        }
    }
    return rc;
}

/* context: host_name, executable, num_cpus, date and git_commit onto fields;
 * the rest to extra. Google Benchmark's JSON never names the commit, but
 * `--benchmark_context=git_commit=$(git rev-parse HEAD)` adds it to the
 * context, and with it the gate pools the runs of one commit as one side. */
static int map_context(mcpp_builder *b, cJSON *extra, const cJSON *context)
{
    const char *commit = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(context, "git_commit"));
    if (commit && !*commit) commit = NULL;
    const char *date = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(context, "date"));
    const char *host = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(context, "host_name"));
    const char *exe = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(context, "executable"));
    const char *version = mcpp_import_string(cJSON_GetObjectItemCaseSensitive(context, "library_version"));
    int64_t cpus = 0;
    int rc = mcpp_builder_set_string(b, "source.tool", "mcpp-receipts import google-benchmark");
    if (rc == MCPP_OK && date && mcpp_import_has_zone(date))
        rc = mcpp_builder_set_string(b, "created_at", date);
    const mcpp_import_text texts[] = {{"source.host", host},
                                      {"source.command", exe},
                                      {"benchmark.suite_version", version},
                                      {"source.git_commit", commit}};
    if (rc == MCPP_OK)
        rc = mcpp_import_set_texts(b, texts, sizeof texts / sizeof texts[0]);
    if (rc == MCPP_OK && mcpp_import_integer(&cpus, cJSON_GetObjectItemCaseSensitive(context, "num_cpus")) &&
        cpus >= 1)
        rc = mcpp_builder_set_int(b, "hardware.host.cores", cpus);
    cJSON *rest = cJSON_CreateObject();
    if (!rest)
        return mcpp_error_nomem();
    for (const cJSON *c = context->child; c; c = c->next) {
        int mapped = strcmp(c->string, "host_name") == 0 || strcmp(c->string, "executable") == 0 ||
                     strcmp(c->string, "num_cpus") == 0 || strcmp(c->string, "library_version") == 0 ||
                     (strcmp(c->string, "git_commit") == 0 && commit) ||
                     (strcmp(c->string, "date") == 0 && date && mcpp_import_has_zone(date));
        if (!mapped && !cJSON_IsNull(c))
            cJSON_AddItemToObject(rest, c->string, cJSON_Duplicate(c, 1));
    }
    cJSON_AddItemToObject(extra, "context", rest);
    return rc;
}

/* Hands *item to `object` under `key` (*item then NULL); 0 when out of memory. */
static int move_to(cJSON *object, const char *key, cJSON **item)
{
    if (!cJSON_AddItemToObject(object, key, *item))
        return 0;
    *item = NULL;
    return 1;
}

/* Per run: aggregates by name, iterations and threads per repetition, errors
 * (what take_row gathered, handed to extra and the caveats). */
static int map_rows(mcpp_builder *b, cJSON *extra, run_numbers *r)
{
    if (!move_to(extra, "aggregates", &r->aggregates) || !move_to(extra, "iterations", &r->iterations))
        return mcpp_error_nomem();
    int rc = MCPP_OK;
    for (const cJSON *c = r->caveats->child; rc == MCPP_OK && c; c = c->next)
        rc = mcpp_builder_append_string(b, "status.caveats", c->valuestring);
    if (rc == MCPP_OK && r->nonfinite) {
        char caveat[200];
        snprintf(caveat, sizeof caveat,
                 "%zu counter value%s NaN or Infinity (as Google Benchmark writes a rate over a zero time): left out",
                 r->nonfinite, r->nonfinite == 1 ? " was" : "s were");
        rc = mcpp_builder_append_string(b, "status.caveats", caveat);
    }
    if (rc == MCPP_OK && r->threads && !move_to(extra, "threads", &r->threads))
        rc = mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "status.outcome", r->errors ? "failed" : "ok");
    return rc;
}

static int import_run(mcpp_receipt **out, const gbench_doc *doc, run_numbers *r)
{
    const char *name = run_name_of(r->first);
    mcpp_builder *b = NULL;
    cJSON *extra = cJSON_CreateObject(), *counters = cJSON_CreateObject();
    int rc = extra && counters ? mcpp_builder_new(&b) : mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = map_context(b, extra, doc->context);
    for (size_t i = 0; rc == MCPP_OK && i < sizeof NOT_RECORDED / sizeof NOT_RECORDED[0]; i++)
        rc = mcpp_builder_append_string(b, "source.not_recorded", NOT_RECORDED[i]);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "benchmark.suite", "google-benchmark");
    if (rc == MCPP_OK)
        rc = mcpp_import_set_name(b, name);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(b, "topology.substrate", "cpu");
    if (rc == MCPP_OK)
        rc = add_metrics(b, counters, r);
    if (rc == MCPP_OK)
        rc = set_primary(b, extra, name);
    if (rc == MCPP_OK)
        rc = map_rows(b, extra, r);
    if (rc == MCPP_OK && cJSON_GetArraySize(counters) > 0) {
        cJSON_AddItemToObject(extra, "counters", counters);
        counters = NULL;
    }
    if (rc == MCPP_OK)
        rc = mcpp_import_set_json(b, "extra.google_benchmark", extra);
    if (rc == MCPP_OK) {
        char readable[200];
        snprintf(readable, sizeof readable, "gbench-%s", name);
        rc = mcpp_import_make(out, b, readable, doc->text.path, doc->git_commit, doc->share);
    }
    mcpp_builder_free(b);
    cJSON_Delete(extra);
    cJSON_Delete(counters);
    return rc;
}

/*
 * The rows grouped by run name: rows[start[g] .. start[g + 1]) are the byte
 * offsets of the rows of the g-th name in the order names first appear, each
 * group in file order. Only offsets are kept: a row is parsed to check it and
 * find its name, dropped, and parsed again when its run's receipt is made, so
 * memory holds the text and one run's rows, not a tree of the file (a tree
 * is ~4x the text; issue 28). A hash table on the name keeps the grouping
 * linear (a suite of 1,000 benchmarks with 20 repetitions is 20,000 rows;
 * comparing each row with every earlier one took 30 s).
 */
typedef struct grouped_rows {
    size_t *rows;
    size_t *start;
    size_t n_groups;
} grouped_rows;

/* Row offsets and their groups while reading, and the name of each group. */
typedef struct row_index {
    size_t *at, *group, n, at_cap, group_cap;
    char **names;
    size_t names_cap;
    size_t *table, table_cap;
    size_t n_groups;
} row_index;

static void row_index_free(row_index *x)
{
    for (size_t g = 0; g < x->n_groups; g++)
        free(x->names[g]);
    free(x->names);
    free(x->at);
    free(x->group);
    free(x->table);
    memset(x, 0, sizeof *x);
}

static void grouped_free(grouped_rows *g)
{
    free(g->rows);
    free(g->start);
}

static size_t *name_slot(const row_index *x, const char *name)
{
    size_t pos = (size_t)mcpp_fnv1a(name, strlen(name), MCPP_FNV_OFFSET) & (x->table_cap - 1);
    while (x->table[pos] && strcmp(x->names[x->table[pos] - 1], name) != 0)
        pos = (pos + 1) & (x->table_cap - 1);
    return &x->table[pos];
}

/* Room for one more row (and group), the table kept at most half full. */
static int row_index_grow(row_index *x)
{
    MCPP_CHECK_ARRAY(x->at, x->at_cap, x->n + 1, MCPP_ARRAY_MAX_ITEMS);
    MCPP_CHECK_ARRAY(x->group, x->group_cap, x->n + 1, MCPP_ARRAY_MAX_ITEMS);
    MCPP_CHECK_ARRAY(x->names, x->names_cap, x->n_groups + 1, MCPP_ARRAY_MAX_ITEMS);
    if ((x->n_groups + 1) * 2 > x->table_cap) {
        size_t *old = x->table, old_cap = x->table_cap, nc = old_cap ? old_cap * 2 : 512;
        if (!(x->table = calloc(nc, sizeof *x->table))) {
            x->table = old;
            return mcpp_error_nomem();
        }
        x->table_cap = nc;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                *name_slot(x, x->names[old[i] - 1]) = old[i];
        free(old);
    }
    return MCPP_OK;
}

/* Records the row at `at` under its run name. */
static int row_index_add(row_index *x, size_t at, const char *name)
{
    int rc = row_index_grow(x);
    if (rc != MCPP_OK)
        return rc;
    size_t *slot = name_slot(x, name);
    if (!*slot) {
        int failed = 0;
        if (!(x->names[x->n_groups] = mcpp_strdup(name, &failed)))
            return mcpp_error_nomem();
        *slot = ++x->n_groups;
    }
    x->at[x->n] = at;
    x->group[x->n++] = *slot - 1;
    return MCPP_OK;
}

/* Every row of the "benchmarks" list: parsed, checked, indexed, dropped. */
static int index_rows(row_index *x, const gbench_doc *d)
{
    mcpp_json_cursor c = {&d->text, d->top.benchmarks_at};
    mcpp_jc_enter(&c, '[');
    int rc = MCPP_OK, more, first = 1;
    while (rc == MCPP_OK && (more = mcpp_jc_next(&c, ']', &first, NULL)) > 0) {
        cJSON *row = NULL;
        size_t at;
        rc = mcpp_jc_parse(&c, &row, &at);
        if (rc == MCPP_OK)
            rc = check_row(d, row, x->n, at);
        if (rc == MCPP_OK)
            rc = row_index_add(x, at, run_name_of(row));
        cJSON_Delete(row);
    }
    if (rc == MCPP_OK && more < 0)
        rc = more;
    if (rc == MCPP_OK && x->n == 0)
        rc = mcpp_import_json_error_at(&d->text, d->top.benchmarks_at, "missing", "benchmarks",
                                       "no benchmark rows");
    return rc;
}

/* The row offsets in group order (a counting sort: each group in file order). */
static int group_rows(grouped_rows *g, const row_index *x)
{
    g->n_groups = x->n_groups;
    g->rows = malloc((x->n ? x->n : 1) * sizeof *g->rows);
    g->start = calloc(x->n_groups + 1, sizeof *g->start);
    size_t *fill = malloc((x->n_groups + 1) * sizeof *fill);
    int rc = g->rows && g->start && fill ? MCPP_OK : mcpp_error_nomem();
    for (size_t i = 0; rc == MCPP_OK && i < x->n; i++)
        g->start[x->group[i] + 1]++;
    for (size_t k = 0; rc == MCPP_OK && k < x->n_groups; k++)
        g->start[k + 1] += g->start[k];
    if (rc == MCPP_OK) {
        memcpy(fill, g->start, (x->n_groups + 1) * sizeof *fill);
        for (size_t i = 0; i < x->n; i++)
            g->rows[fill[x->group[i]]++] = x->at[i];
    }
    free(fill);
    return rc;
}

/* The receipt of run k: its rows parsed again (they parsed once: no error),
 * one at a time. */
static int make_run(mcpp_receipt **out, const gbench_doc *d, const grouped_rows *g, size_t k)
{
    run_numbers r = {0};
    int rc = MCPP_OK;
    for (size_t i = g->start[k]; rc == MCPP_OK && i < g->start[k + 1]; i++) {
        mcpp_json_cursor c = {&d->text, g->rows[i]};
        cJSON *row = NULL;
        size_t at;
        rc = mcpp_jc_parse(&c, &row, &at);
        if (rc == MCPP_OK && !r.first)
            rc = start_run(&r, row); /* keeps the row */
        if (rc == MCPP_OK)
            rc = take_row(&r, row);
        if (row != r.first)
            cJSON_Delete(row);
    }
    if (rc == MCPP_OK)
        rc = import_run(out, d, &r);
    run_numbers_free(&r);
    return rc;
}

/* The runs of one file, made on several threads a batch at a time: each
 * run's receipt is independent and reads the text only. */
typedef struct run_jobs {
    const gbench_doc *doc;
    const grouped_rows *g;
    size_t first;        /* the batch's first run                  */
    mcpp_receipt **made; /* per run of the batch; NULL where making it failed */
} run_jobs;

static void make_runs(void *ctx, size_t from, size_t to)
{
    run_jobs *j = ctx;
    for (size_t k = from; k < to; k++)
        if (make_run(&j->made[k], j->doc, j->g, j->first + k) != MCPP_OK)
            j->made[k] = NULL;
}

/* Runs per batch: the receipts of a batch are held until they are handed
 * on in order, so a batch bounds what an import into a directory holds. */
enum { RUN_BATCH = 1024 };

/* Hands the runs' receipts to `sink` in the order the names first appear. A
 * run that failed on a worker thread is made again on this one, so its
 * error is this thread's last error. */
static int import_runs(mcpp_import_sink *sink, const gbench_doc *doc, const grouped_rows *g)
{
    run_jobs j = {doc, g, 0, calloc(RUN_BATCH, sizeof *j.made)};
    if (!j.made)
        return mcpp_error_nomem();
    int rc = MCPP_OK;
    for (; rc == MCPP_OK && j.first < g->n_groups; j.first += RUN_BATCH) {
        size_t n = g->n_groups - j.first < RUN_BATCH ? g->n_groups - j.first : RUN_BATCH;
        memset(j.made, 0, n * sizeof *j.made);
        mcpp_parallel_ranges(n, mcpp_parallel_threads(n, MCPP_PARALLEL_MAX_THREADS, 64), make_runs,
                             &j);
        for (size_t k = 0; k < n; k++) {
            if (rc == MCPP_OK && !j.made[k])
                rc = make_run(&j.made[k], doc, g, j.first + k);
            if (rc == MCPP_OK)
                rc = sink->take(sink, j.made[k]);
            else
                mcpp_receipt_free(j.made[k]);
        }
    }
    free(j.made);
    return rc;
}

int mcpp_import_google_benchmark_file(mcpp_import_sink *sink, const char *path)
{
    gbench_doc doc = {.git_commit = sink->git_commit, .share = sink->share};
    row_index x = {0};
    grouped_rows g = {0};
    int rc = mcpp_import_json_read(&doc.text, path);
    if (rc == MCPP_OK) /* the library writes a non-finite counter as a bare NaN or Infinity */
        mcpp_import_json_nonfinite_as_empty(doc.text.text, doc.text.len);
    if (rc == MCPP_OK)
        rc = mcpp_jc_read_suite_top(&doc.top, &doc.text, keep_member, &doc);
    if (rc == MCPP_OK)
        rc = check_top_level(&doc);
    if (rc == MCPP_OK)
        rc = index_rows(&x, &doc);
    if (rc == MCPP_OK)
        rc = group_rows(&g, &x);
    row_index_free(&x);
    if (rc == MCPP_OK)
        rc = import_runs(sink, &doc, &g);
    grouped_free(&g);
    cJSON_Delete(doc.context);
    mcpp_import_json_free(&doc.text);
    return rc;
}
