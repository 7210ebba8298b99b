/*
 * import.c — the import API: format names, all-or-nothing imports into a
 * receipt set, deterministic ids and file names, and writing a set into a
 * directory without leaving part of it behind.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "import/import_internal.h"
#include "receipt/fields.h"
#include "util/error_internal.h"

/*
 * The importer registry: one row per format, in enum order. Dispatch, the
 * format names, `mcpp-receipts import --help` and the formats table of
 * docs/import.md (checked by tests/import/formats_doc_test.sh) all come from
 * it, so a new importer is one row here, its parser file, its tests and its
 * docs section.
 */
static const mcpp_importer IMPORTERS[] = {
    {MCPP_IMPORT_MLPERF, "mlperf",
     "MLPerf Training result_N.txt logs, or results trees <submitter>/results/<system>/<benchmark>/",
     mcpp_import_mlperf_path},
    {MCPP_IMPORT_PYTEST_BENCHMARK, "pytest-benchmark", "files written by pytest --benchmark-json=FILE",
     mcpp_import_pytest_benchmark_file},
    {MCPP_IMPORT_GOOGLE_BENCHMARK, "google-benchmark",
     "files written by --benchmark_out=FILE --benchmark_out_format=json", mcpp_import_google_benchmark_file},
    {MCPP_IMPORT_HYPERFINE, "hyperfine", "files written by hyperfine --export-json FILE",
     mcpp_import_hyperfine_file},
    {MCPP_IMPORT_PYPERF, "pyperf", "pyperf JSON files (-o FILE of a pyperf.Runner script, pyperformance)",
     mcpp_import_pyperf_file},
    {MCPP_IMPORT_ASV, "asv", "asv results files, or results directories (results/<machine>/<commit>-<env>.json)",
     mcpp_import_asv_path},
    {MCPP_IMPORT_GO_BENCH, "go-bench", "output of go test -bench, as text or as go test -json",
     mcpp_import_go_bench_file},
    {MCPP_IMPORT_MLPERF_INFERENCE, "mlperf-inference",
     "MLPerf Inference loadgen mlperf_log_detail.txt files, or results trees holding them",
     mcpp_import_mlperf_inference_path},
};
#define N_IMPORTERS (sizeof IMPORTERS / sizeof IMPORTERS[0])

const mcpp_importer *mcpp_importer_of(mcpp_import_format format)
{
    for (size_t i = 0; i < N_IMPORTERS; i++)
        if (IMPORTERS[i].format == format)
            return &IMPORTERS[i];
    return NULL;
}

/* "a, b or c": the names of every format, for messages. */
static void list_names(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_IMPORTERS && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i == 0 ? "" : i + 1 == N_IMPORTERS ? " or " : ", ",
                              IMPORTERS[i].name);
}

int mcpp_import_format_from_name(mcpp_import_format *out, const char *name)
{
    if (!out || !name)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "format name is NULL");
    for (size_t i = 0; i < N_IMPORTERS; i++)
        if (strcmp(name, IMPORTERS[i].name) == 0) {
            *out = IMPORTERS[i].format;
            return MCPP_OK;
        }
    char names[512];
    list_names(names, sizeof names);
    return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                          "unknown import format '%s' (expected %s)", name, names);
}

const char *mcpp_import_format_name(mcpp_import_format format)
{
    const mcpp_importer *imp = mcpp_importer_of(format);
    return imp ? imp->name : NULL;
}

const char *mcpp_import_format_summary(mcpp_import_format format)
{
    const mcpp_importer *imp = mcpp_importer_of(format);
    return imp ? imp->summary : NULL;
}

static int import_one(mcpp_receipt_set *set, mcpp_import_format format, const char *path)
{
    const mcpp_importer *imp = mcpp_importer_of(format);
    if (!imp)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "unknown import format %d",
                              (int)format);
    return imp->import_path(set, path);
}

typedef struct id_at {
    const char *id;
    size_t index;
} id_at;

static int compare_ids(const void *a, const void *b)
{
    const id_at *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Drops receipts whose id an earlier one has (the same input given twice:
 * the id carries the content hash, so equal ids are equal receipts). The ids
 * are sorted, not compared pairwise: 10^5 receipts are 5*10^9 pairs. */
static int dedupe(mcpp_receipt_set **set)
{
    size_t n = mcpp_receipt_set_count(*set), dups = 0;
    id_at *ids = malloc((n ? n : 1) * sizeof *ids);
    unsigned char *drop = calloc(n ? n : 1, 1);
    int rc = ids && drop ? MCPP_OK : mcpp_error_nomem();
    for (size_t i = 0; rc == MCPP_OK && i < n; i++) ids[i] = (id_at){mcpp_receipt_id(mcpp_receipt_set_at(*set, i)), i};
    if (rc == MCPP_OK)
        qsort(ids, n, sizeof *ids, compare_ids);
    for (size_t i = 1; rc == MCPP_OK && i < n; i++)
        if (strcmp(ids[i].id, ids[i - 1].id) == 0) {
            drop[ids[i].index] = 1; /* not the first of its id: sorted by index within one id */
            dups++;
        }
    mcpp_receipt_set *kept = NULL;
    if (rc == MCPP_OK && dups)
        rc = mcpp_receipt_set_new(&kept);
    for (size_t i = 0; rc == MCPP_OK && dups && i < n; i++) {
        mcpp_receipt *copy = NULL;
        if (!drop[i] && (rc = mcpp_receipt_clone(&copy, mcpp_receipt_set_at(*set, i))) == MCPP_OK)
            rc = mcpp_receipt_set_add(kept, copy);
    }
    free(ids);
    free(drop);
    if (kept) {
        mcpp_receipt_set_free(*set);
        *set = kept;
    }
    return rc;
}

int mcpp_import_files(mcpp_receipt_set **out, mcpp_import_format format,
                      const char *const *paths, size_t n_paths)
{
    if (!out)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!mcpp_import_format_name(format))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "unknown import format %d",
                              (int)format);
    if (n_paths == 0 || !paths)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "no input to import");
    mcpp_receipt_set *set = NULL;
    int rc = mcpp_receipt_set_new(&set);
    for (size_t i = 0; rc == MCPP_OK && i < n_paths; i++)
        rc = paths[i] ? import_one(set, format, paths[i])
                      : mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "path %zu is NULL", i);
    if (rc == MCPP_OK)
        rc = dedupe(&set);
    if (rc != MCPP_OK) {
        mcpp_receipt_set_free(set);
        return rc;
    }
    *out = set;
    return MCPP_OK;
}

void mcpp_import_sanitize(char *buf, size_t cap, const char *s)
{
    size_t n = 0;
    for (; s && *s && n + 1 < cap; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        buf[n++] = ok ? c : '_';
    }
    if (cap)
        buf[n] = '\0';
}

int mcpp_import_make(mcpp_receipt **out, mcpp_builder *b, const char *readable, const char *path)
{
    *out = NULL;
    mcpp_receipt *r = NULL, *named = NULL;
    int rc = mcpp_builder_finish(&r, NULL, b);
    if (rc == MCPP_OK) {
        /* the derived id is "r-" + 16 hex digits of the content hash; the
         * copy with the id copies the packed receipt, it does not pack it again */
        char prefix[112], id[140];
        mcpp_import_sanitize(prefix, sizeof prefix, readable);
        snprintf(id, sizeof id, "%s-%.12s", prefix, mcpp_receipt_id(r) + 2);
        rc = mcpp_receipt_copy_with_id(&named, r, id);
        mcpp_receipt_free(r);
        r = named;
    }
    if (rc != MCPP_OK) {
        const mcpp_error *e = mcpp_error_last();
        char why[512];
        snprintf(why, sizeof why, "%s", e->message ? e->message : "");
        return mcpp_error_set(rc, e->kind ? e->kind : "internal", path, e->field, 0, 0,
                              "the imported receipt does not validate: %s", why);
    }
    *out = r;
    return MCPP_OK;
}

int mcpp_import_finish(mcpp_receipt_set *set, mcpp_builder *b, const char *readable,
                       const char *path)
{
    mcpp_receipt *r = NULL;
    int rc = mcpp_import_make(&r, b, readable, path);
    return rc == MCPP_OK ? mcpp_receipt_set_add(set, r) : rc;
}

void mcpp_import_rfc3339_from_ms(char *buf, size_t cap, int64_t ms)
{
    time_t secs = (time_t)(ms / 1000);
    int millis = (int)(ms % 1000);
    if (millis < 0) {
        millis += 1000;
        secs -= 1;
    }
    struct tm tm;
    gmtime_r(&secs, &tm);
    snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

int mcpp_import_has_zone(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 20)
        return 0;
    if (s[n - 1] == 'Z' || s[n - 1] == 'z')
        return 1;
    return n >= 25 && (s[n - 6] == '+' || s[n - 6] == '-') && s[n - 3] == ':';
}

int mcpp_import_file_name(char **out, const mcpp_receipt *receipt)
{
    if (!out || !receipt)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "out and receipt must not be NULL");
    const char *id = mcpp_receipt_id(receipt);
    size_t n = strlen(id) + 6;
    *out = malloc(n);
    if (!*out)
        return mcpp_error_nomem();
    mcpp_import_sanitize(*out, n, id);
    strcat(*out, ".json");
    return MCPP_OK;
}

static char *join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Removes the files of paths[0..n) that did not exist before this call. */
static void remove_created(char **paths, const unsigned char *existed, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (paths[i] && !existed[i])
            unlink(paths[i]);
}

/* Removes the directories make_dirs created (recorded as the lengths of dir's
 * prefixes, outermost first), innermost first; a directory that is not empty
 * stays. */
static void remove_dirs(char *dir, const size_t *created, size_t n_created)
{
    while (n_created--) {
        char saved = dir[created[n_created]];
        dir[created[n_created]] = '\0';
        rmdir(dir);
        dir[created[n_created]] = saved;
    }
}

/* `mkdir -p dir`: creates each missing directory of the path (the README's
 * `--out receipts/py` in a fresh checkout has no receipts/), recording in
 * created[] the prefix length of each one it made so that a failure can remove
 * them again. created has room for one entry per '/' in dir plus one. */
static int make_dirs(char *dir, size_t *created, size_t *n_created)
{
    *n_created = 0;
    size_t len = strlen(dir);
    for (size_t end = 1; end <= len; end++) {
        if (end < len && dir[end] != '/')
            continue;
        if (dir[end - 1] == '/')
            continue; /* "a//b", a trailing '/' */
        char saved = dir[end];
        dir[end] = '\0';
        int made = mkdir(dir, 0755) == 0;
        int err = errno;
        struct stat st;
        int ok = made || (err == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
        if (made)
            created[(*n_created)++] = end;
        if (!ok) {
            int rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, dir, NULL, 0, 0, "cannot create the directory: %s",
                                   err == EEXIST ? "it exists and is not a directory" : strerror(err));
            dir[end] = saved;
            remove_dirs(dir, created, *n_created);
            *n_created = 0;
            return rc;
        }
        dir[end] = saved;
    }
    return MCPP_OK;
}

int mcpp_import_write_dir(size_t *out_written, const mcpp_receipt_set *set, const char *dir_arg)
{
    if (out_written)
        *out_written = 0;
    if (!set || !dir_arg)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "set and dir must not be NULL");
    if (!*dir_arg)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "dir is empty");
    size_t slashes = 0;
    for (const char *c = dir_arg; *c; c++)
        slashes += *c == '/';
    char *dir = strdup(dir_arg);
    size_t *created = calloc(slashes + 1, sizeof *created);
    size_t n_created = 0;
    int mk = dir && created ? make_dirs(dir, created, &n_created) : mcpp_error_nomem();
    if (mk != MCPP_OK) {
        free(dir);
        free(created);
        return mk;
    }
    size_t n = mcpp_receipt_set_count(set);
    char **paths = calloc(n + 1, sizeof *paths);
    unsigned char *existed = calloc(n + 1, 1);
    int rc = paths && existed ? MCPP_OK : mcpp_error_nomem();
    size_t done = 0;
    for (; rc == MCPP_OK && done < n; done++) {
        char *name = NULL;
        rc = mcpp_import_file_name(&name, mcpp_receipt_set_at(set, done));
        if (rc != MCPP_OK)
            break;
        paths[done] = join_path(dir, name);
        free(name);
        if (!paths[done]) {
            rc = mcpp_error_nomem();
            break;
        }
        existed[done] = access(paths[done], F_OK) == 0;
        rc = mcpp_receipt_write_file(mcpp_receipt_set_at(set, done), paths[done], MCPP_FORMAT_JSON);
    }
    if (rc != MCPP_OK) {
        if (paths && existed)
            remove_created(paths, existed, n);
        remove_dirs(dir, created, n_created);
    } else if (out_written) {
        *out_written = n;
    }
    for (size_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
    free(existed);
    free(created);
    free(dir);
    return rc;
}

int mcpp_import_begin(mcpp_builder **out, const char *format, const char *suite,
                      const char *const *not_recorded, size_t n_not_recorded)
{
    char tool[96];
    snprintf(tool, sizeof tool, "mcpp-receipts import %s", format);
    int rc = mcpp_builder_new(out);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(*out, "source.tool", tool);
    for (size_t i = 0; rc == MCPP_OK && i < n_not_recorded; i++)
        rc = mcpp_builder_append_string(*out, "source.not_recorded", not_recorded[i]);
    if (rc == MCPP_OK)
        rc = mcpp_builder_set_string(*out, "benchmark.suite", suite);
    return rc;
}

int mcpp_import_add_samples(mcpp_builder *b, const char *name, const char *unit, mcpp_direction dir,
                            const char *kind, const double *samples, size_t n)
{
    if (n == 0)
        return MCPP_OK;
    double median = 0;
    int rc = mcpp_quantile(&median, samples, n, 0.5); /* the validator's median; MCPP_ENOMEM */
    if (rc != MCPP_OK)
        return rc;
    return mcpp_builder_add_metric(b, name, unit, dir, median, n == 1 ? "single" : "median", kind, samples, n);
}

int mcpp_import_set_cpu(mcpp_builder *b, const char *model, int64_t cores)
{
    int rc = MCPP_OK;
    if (model) {
        char accel[300];
        snprintf(accel, sizeof accel, "cpu: %.250s", model);
        rc = mcpp_builder_set_string(b, "hardware.host.cpu", model);
        if (rc == MCPP_OK)
            rc = mcpp_builder_set_string(b, "hardware.observed.accelerator", accel);
        if (rc == MCPP_OK)
            rc = mcpp_builder_set_string(b, "hardware.observed.source", "probed");
    }
    if (rc == MCPP_OK && cores >= 1)
        rc = mcpp_builder_set_int(b, "hardware.host.cores", cores);
    return rc;
}
