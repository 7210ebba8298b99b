/*
 * import.c — the import API: format names, all-or-nothing imports into a
 * receipt set or straight into a directory, deterministic ids and file names,
 * and writing into a directory without leaving part of it behind.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "import/import_internal.h"
#include "io/io_internal.h"
#include "receipt/field_ids.h"
#include "receipt/fields.h"
#include "receipt/share.h"
#include "util/alloc.h"
#include "util/dir_list.h"
#include "util/edit_distance.h"
#include "util/error_internal.h"
#include "util/id_set.h"
#include "util/name_sort.h"
#include "util/quantile.h"
#include "util/strbuf.h"

/*
 * The importer registry: one row per format, from the format list of the
 * public header (MCPP_IMPORT_FORMATS in mcpp_receipts/import.h). Dispatch,
 * the format names, `mcpp-receipts import --help` and the formats table of
 * docs/import.md (checked by tests/import/formats_doc_check.py) all come from
 * it, so a new importer is one row there, its parser file, its tests and its
 * docs section (docs/ARCHITECTURE.md, "Adding an importer").
 */
#define MCPP_X_IMPORTER(id, number, name, parser, summary) {MCPP_IMPORT_##id, name, summary, mcpp_import_##parser},
static const mcpp_importer IMPORTERS[] = {MCPP_IMPORT_FORMATS(MCPP_X_IMPORTER)};
#undef MCPP_X_IMPORTER
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

/* The format a near miss of its name most likely meant ("gbench",
 * "google_benchmark", "pytest", "mlperf-training", "hyperfin"), or NULL:
 * named in the error, never taken in its place. */
static const char *meant_format(const char *name)
{
    static const struct {
        const char *alias, *format;
    } ALIASES[] = {{"gbench", "google-benchmark"}, {"googlebenchmark", "google-benchmark"},
                   {"mlperf-training", "mlperf"},  {"airspeed-velocity", "asv"},
                   {"go-test", "go-bench"},        {"gotest", "go-bench"},
                   {"gobench", "go-bench"},        {"pytestbenchmark", "pytest-benchmark"}};
    char norm[64];
    size_t n = 0;
    for (; name[n] && n < sizeof norm - 1; n++) /* lower case, '_' and ' ' as '-' */
        norm[n] = name[n] == '_' || name[n] == ' ' ? '-' : (char)tolower((unsigned char)name[n]);
    norm[n] = '\0';
    if (name[n] || !n)
        return NULL;
    for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0]; i++)
        if (strcmp(norm, ALIASES[i].alias) == 0)
            return ALIASES[i].format;
    const char *prefixed = NULL, *names[N_IMPORTERS];
    for (size_t i = 0; i < N_IMPORTERS; i++) { /* "pytest" for pytest-benchmark, "go" for go-bench */
        const char *f = names[i] = IMPORTERS[i].name;
        if (strcmp(norm, f) == 0)
            return f;
        if (strncmp(f, norm, n) == 0 && f[n] == '-')
            prefixed = prefixed ? "" : f;
    }
    if (prefixed && *prefixed)
        return prefixed;
    return mcpp_closest_name(norm, names, N_IMPORTERS); /* a typo: "hyperfin" */
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
    const char *meant = meant_format(name);
    return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                         "unknown import format '%s'%s%s%s (expected %s)", name, meant ? ": did you mean " : "",
                         meant ? meant : "", meant ? "?" : "", names);
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

static int import_one(mcpp_import_sink *sink, mcpp_import_format format, const char *path)
{
    const mcpp_importer *imp = mcpp_importer_of(format);
    if (!imp)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "unknown import format %d",
                              (int)format);
    return imp->import_path(sink, path);
}

static int check_inputs(mcpp_import_format format, const char *const *paths, size_t n_paths)
{
    if (!mcpp_import_format_name(format))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                             "unknown import format %d", (int)format);
    if (n_paths == 0 || !paths)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                             "no input to import");
    return MCPP_OK;
}

/* Every input of one import call into `sink`, stopping at the first failure. */
static int import_all(mcpp_import_sink *sink, mcpp_import_format format, const char *const *paths,
                      size_t n_paths)
{
    int rc = check_inputs(format, paths, n_paths);
    for (size_t i = 0; rc == MCPP_OK && i < n_paths; i++)
        rc = paths[i] ? import_one(sink, format, paths[i])
                      : mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                                      "path %zu is NULL", i);
    return rc;
}

/* The import API's sink: a receipt set (deduplicated when the import ends). */
typedef struct set_sink {
    mcpp_import_sink base;
    mcpp_receipt_set *set;
} set_sink;

static int set_take(mcpp_import_sink *sink, mcpp_receipt *r)
{
    return mcpp_receipt_set_add(((set_sink *)sink)->set, r);
}

/* Drops receipts whose id an earlier one has (the same input given twice:
 * the id carries the content hash, so equal ids are equal receipts). The ids
 * are sorted, not compared pairwise: 10^5 receipts are 5*10^9 pairs. */
static int dedupe(mcpp_receipt_set **set)
{
    size_t n = mcpp_receipt_set_count(*set), dups = 0;
    mcpp_name_at *ids = malloc((n ? n : 1) * sizeof *ids);
    unsigned char *drop = calloc(n ? n : 1, 1);
    int rc = ids && drop ? MCPP_OK : mcpp_error_nomem();
    for (size_t i = 0; rc == MCPP_OK && i < n; i++)
        ids[i] = (mcpp_name_at){mcpp_receipt_id(mcpp_receipt_set_at(*set, i)), i};
    if (rc == MCPP_OK)
        mcpp_name_at_sort(ids, n);
    for (size_t i = 1; rc == MCPP_OK && i < n; i++)
        if (strcmp(ids[i].name, ids[i - 1].name) == 0) {
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

/* A commit to stamp is a non-empty string or none (NULL and "" alike). */
static const char *commit_or_null(const char *git_commit)
{
    return git_commit && *git_commit ? git_commit : NULL;
}

int mcpp_import_files_at_commit(mcpp_receipt_set **out, mcpp_import_format format,
                                const char *const *paths, size_t n_paths, const char *git_commit)
{
    if (!out)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "out is NULL");
    *out = NULL;
    mcpp_receipt_set *set = NULL;
    int rc = mcpp_receipt_set_new(&set);
    /* the receipts of one import share what repeats (receipt/share.h); each
     * that points into the share holds it, so it may outlive the set */
    mcpp_share *share = rc == MCPP_OK ? mcpp_share_new() : NULL;
    if (rc == MCPP_OK && !share)
        rc = mcpp_error_nomem();
    set_sink sink = {{set_take, commit_or_null(git_commit), share}, set};
    if (rc == MCPP_OK)
        rc = import_all(&sink.base, format, paths, n_paths);
    mcpp_share_seal(share);
    mcpp_share_release(share);
    if (rc == MCPP_OK)
        rc = dedupe(&set);
    if (rc != MCPP_OK) {
        mcpp_receipt_set_free(set);
        return rc;
    }
    *out = set;
    return MCPP_OK;
}

int mcpp_import_files(mcpp_receipt_set **out, mcpp_import_format format,
                      const char *const *paths, size_t n_paths)
{
    return mcpp_import_files_at_commit(out, format, paths, n_paths, NULL);
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

/* An imported receipt is named "<readable>-<12 hex digits of its content
 * hash>", the hash known only once it is made: it is made with this
 * placeholder id, as long as any such name, and the name is written over it.
 * (Copying the made receipt with its name held two copies of its free-form
 * data at once: two 17 MB arenas for one 200,000-round pytest-benchmark.) */
#define IMPORT_PREFIX_MAX 111
#define IMPORT_ID_MAX (IMPORT_PREFIX_MAX + 1 + 12)

/* Gives the receipt being built the commit its import was told (Google
 * Benchmark, hyperfine, go test and MLPerf results never name one, and
 * without it a gate cannot tell a side's runs of one code from separate
 * experiments). An input that names a different commit is refused: one of
 * the two is wrong, and the receipt must not hide which. */
static int stamp_commit(mcpp_builder *b, const char *git_commit, const char *path)
{
    if (!git_commit)
        return MCPP_OK;
    const char *named = mcpp_field_string(mcpp_builder_staged(b), MCPP_F_source_git_commit);
    if (!named) { /* a failure stays with the builder: finishing it names the input */
        (void)mcpp_builder_set_string(b, "source.git_commit", git_commit);
        return MCPP_OK;
    }
    if (strcmp(named, git_commit) == 0)
        return MCPP_OK;
    return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, path, "source.git_commit", 0,
                         0, "the input names commit '%s', the import was told '%s'", named,
                         git_commit);
}

int mcpp_import_make(mcpp_receipt **out, mcpp_builder *b, const char *readable, const char *path,
                     const char *git_commit, mcpp_share *share)
{
    *out = NULL;
    int rc = stamp_commit(b, git_commit, path);
    if (rc != MCPP_OK)
        return rc;
    char placeholder[IMPORT_ID_MAX + 1];
    memset(placeholder, 'x', IMPORT_ID_MAX);
    placeholder[IMPORT_ID_MAX] = '\0';
    mcpp_receipt *r = NULL;
    rc = mcpp_builder_set_string(b, "id", placeholder);
    if (!rc) rc = mcpp_builder_finish(&r, NULL, b);
    if (rc == MCPP_OK) /* the builder is done: its samples (a cJSON node each) go now */
        (void)mcpp_builder_unset(b, "metrics.named"); /* failing only keeps them until the builder is freed */
    uint64_t hash = 0;
    if (!rc)
        rc = mcpp_receipt_content_hash(&hash, r);
    if (rc == MCPP_OK) {
        char prefix[IMPORT_PREFIX_MAX + 1], hex[17], id[IMPORT_ID_MAX + 1];
        mcpp_import_sanitize(prefix, sizeof prefix, readable);
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)hash);
        snprintf(id, sizeof id, "%s-%.12s", prefix, hex);
        rc = mcpp_receipt_rename_unshared(r, id);
    }
    if (rc == MCPP_OK && share) { /* named: now its repeated parts go to the share */
        mcpp_receipt *shared = NULL;
        rc = mcpp_pack_shared(&shared, r, share);
        mcpp_receipt_free(r);
        r = shared;
    }
    if (rc != MCPP_OK) {
        mcpp_receipt_free(r);
        const mcpp_error *e = mcpp_error_last();
        char why[512];
        snprintf(why, sizeof why, "%s", e->message ? e->message : "");
        return mcpp_error_set(rc, e->kind ? e->kind : "internal", path, e->field, 0, 0,
                              "the imported receipt does not validate: %s", why);
    }
    *out = r;
    return MCPP_OK;
}

int mcpp_import_finish(mcpp_import_sink *sink, mcpp_builder *b, const char *readable,
                       const char *path)
{
    mcpp_receipt *r = NULL;
    int rc = mcpp_import_make(&r, b, readable, path, sink->git_commit, sink->share);
    return rc == MCPP_OK ? sink->take(sink, r) : rc;
}

int mcpp_import_finish_tool(mcpp_import_sink *sink, mcpp_builder *b, const cJSON *extra, const char *tool,
                            const char *name, const char *path)
{
    char key[64], readable[200];
    snprintf(key, sizeof key, "extra.%s", tool);
    int rc = cJSON_GetArraySize(extra) > 0 ? mcpp_import_set_json(b, key, extra) : MCPP_OK;
    snprintf(readable, sizeof readable, "%s-%s", tool, name);
    return rc == MCPP_OK ? mcpp_import_finish(sink, b, readable, path) : rc;
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

/*
 * A directory being written, all or nothing: the files written so far (and
 * whether each existed before, so that taking them back leaves those), the
 * directories made for it, and the set of file names (util/id_set.h) so that a
 * receipt given twice (an input given twice: the id carries the content
 * hash) is written once. Also the sink of mcpp_import_files_to_dir, which
 * writes each receipt as the importer makes it and lets it go.
 *
 * The files go through one write batch (io/write_batch.c): each receipt is
 * written to a temporary file as it comes, and only when the import has
 * succeeded are they all synced at once, renamed into place and the directory
 * synced. An import that fails leaves no receipt file behind; a crash leaves
 * temporary ".mcpp-*" files and receipts that are each whole, never a
 * partly written receipt under a receipt's name. (Each receipt written with
 * its own fsync and directory fsync was 20,000 syncs for 10,000 benchmarks.)
 */
typedef struct dir_writer {
    mcpp_import_sink base;
    char *dir;
    size_t *created, n_created;
    char **paths;
    unsigned char *existed;
    size_t n, paths_cap, existed_cap;
    mcpp_id_set written; /* with dedupe: the paths written (borrowed from paths) */
    int dedupe;
    mcpp_write_batch *batch;
} dir_writer;

static int dir_begin(dir_writer *w, const char *dir_arg, int dedupe)
{
    memset(w, 0, sizeof *w);
    w->dedupe = dedupe;
    size_t slashes = 0;
    for (const char *c = dir_arg; *c; c++)
        slashes += *c == '/';
    w->dir = mcpp_strdup(dir_arg, NULL);
    w->created = calloc(slashes + 1, sizeof *w->created);
    int rc =
        w->dir && w->created ? make_dirs(w->dir, w->created, &w->n_created) : mcpp_error_nomem();
    if (rc == MCPP_OK && (rc = mcpp_write_batch_new(&w->batch)) != MCPP_OK)
        remove_dirs(w->dir, w->created, w->n_created);
    if (rc != MCPP_OK) {
        free(w->dir);
        free(w->created);
        memset(w, 0, sizeof *w);
    }
    return rc;
}

static int dir_grow(dir_writer *w)
{
    MCPP_CHECK_ARRAY(w->paths, w->paths_cap, w->n + 1, MCPP_ARRAY_MAX_ITEMS);
    MCPP_CHECK_ARRAY(w->existed, w->existed_cap, w->n + 1, MCPP_ARRAY_MAX_ITEMS);
    return MCPP_OK;
}

/* Writes `r` under its file name (into the batch: in place at dir_commit),
 * unless a receipt of the same id was. */
static int dir_write(dir_writer *w, const mcpp_receipt *r)
{
    char *name = NULL;
    int rc = mcpp_import_file_name(&name, r);
    char *path = rc == MCPP_OK ? join_path(w->dir, name) : NULL;
    free(name);
    if (rc == MCPP_OK && !path)
        rc = mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = dir_grow(w);
    int seen = rc == MCPP_OK && w->dedupe && mcpp_id_set_contains(&w->written, path);
    if (rc == MCPP_OK && w->dedupe && !seen && mcpp_id_set_add(&w->written, path) != 0)
        rc = mcpp_error_nomem();
    if (rc != MCPP_OK || seen) {
        free(path);
        return rc;
    }
    w->paths[w->n] = path;
    w->existed[w->n] = access(path, F_OK) == 0;
    w->n++;
    char *text = NULL;
    size_t len = 0;
    rc = mcpp_receipt_write(&text, &len, r, MCPP_FORMAT_JSON);
    if (rc == MCPP_OK)
        rc = mcpp_write_batch_add(w->batch, path, text, len);
    free(text);
    return rc;
}

/* Puts every file written in place, durably (mcpp_write_batch_commit). */
static int dir_commit(dir_writer *w) { return mcpp_write_batch_commit(w->batch); }

static int dir_take(mcpp_import_sink *sink, mcpp_receipt *r)
{
    int rc = dir_write((dir_writer *)sink, r);
    mcpp_receipt_free(r);
    return rc;
}

/* Ends the write: on failure takes back the files and directories it made
 * (the temporaries of a batch never committed, and the files of a commit
 * that failed part way). */
static void dir_end(dir_writer *w, int failed)
{
    mcpp_write_batch_free(w->batch);
    for (size_t i = 0; failed && i < w->n; i++)
        if (!w->existed[i])
            unlink(w->paths[i]);
    if (failed && w->dir)
        remove_dirs(w->dir, w->created, w->n_created);
    for (size_t i = 0; i < w->n; i++)
        free(w->paths[i]);
    free(w->paths);
    free(w->existed);
    mcpp_id_set_free(&w->written);
    free(w->created);
    free(w->dir);
    memset(w, 0, sizeof *w);
}

int mcpp_import_write_dir(size_t *out_written, const mcpp_receipt_set *set, const char *dir_arg)
{
    if (out_written)
        *out_written = 0;
    if (!set || !dir_arg)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "set and dir must not be NULL");
    if (!*dir_arg)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "dir is empty");
    dir_writer w;
    int rc = dir_begin(&w, dir_arg, 0);
    if (rc != MCPP_OK)
        return rc;
    size_t n = mcpp_receipt_set_count(set);
    for (size_t i = 0; rc == MCPP_OK && i < n; i++)
        rc = dir_write(&w, mcpp_receipt_set_at(set, i));
    if (rc == MCPP_OK)
        rc = dir_commit(&w);
    dir_end(&w, rc != MCPP_OK);
    if (rc == MCPP_OK && out_written)
        *out_written = n;
    return rc;
}

int mcpp_import_files_to_dir(size_t *out_written, mcpp_import_format format,
                             const char *const *paths, size_t n_paths, const char *dir_arg,
                             mcpp_import_each_fn each, void *ctx)
{
    return mcpp_import_files_to_dir_at_commit(out_written, format, paths, n_paths, dir_arg, NULL,
                                              each, ctx);
}

int mcpp_import_files_to_dir_at_commit(size_t *out_written, mcpp_import_format format,
                                       const char *const *paths, size_t n_paths, const char *dir_arg,
                                       const char *git_commit, mcpp_import_each_fn each, void *ctx)
{
    if (out_written)
        *out_written = 0;
    if (!dir_arg || !*dir_arg)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                             "dir is NULL or empty");
    dir_writer w;
    int rc = check_inputs(format, paths, n_paths); /* before the directory is made */
    if (rc == MCPP_OK)
        rc = dir_begin(&w, dir_arg, 1);
    if (rc != MCPP_OK)
        return rc;
    w.base.take = dir_take;
    w.base.git_commit = commit_or_null(git_commit);
    rc = import_all(&w.base, format, paths, n_paths);
    if (rc == MCPP_OK)
        rc = dir_commit(&w);
    for (size_t i = 0; rc == MCPP_OK && each && i < w.n; i++)
        each(w.paths[i], ctx);
    if (rc == MCPP_OK && out_written)
        *out_written = w.n;
    dir_end(&w, rc != MCPP_OK);
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

/* More samples than this are kept as their order statistics at this many
 * evenly spaced quantiles (odd: the middle one is the median the value
 * states). 990,000 rounds of a pytest-benchmark file made a 22.5 MB receipt
 * that `validate` refused (over 16 MiB) and peaked at 65x the input; the
 * samples' spread, the run's own precision, is all the analyses read of them. */
#define SAMPLES_KEPT 1001

/* samples[0..n) as SAMPLES_KEPT quantiles in *kept (malloc'ed), and what was
 * done said in extra.samples_summarized_NAME. */
static int summarize_samples(double **kept, mcpp_builder *b, const char *name, const double *samples, size_t n)
{
    double *sorted = malloc(n * sizeof *sorted);
    *kept = malloc(SAMPLES_KEPT * sizeof **kept);
    if (!sorted || !*kept) {
        free(sorted);
        free(*kept);
        *kept = NULL;
        return mcpp_error_nomem();
    }
    memcpy(sorted, samples, n * sizeof *sorted);
    mcpp_sort_doubles(sorted, n);
    for (size_t i = 0; i < SAMPLES_KEPT; i++)
        (*kept)[i] = mcpp_quantile_sorted(sorted, n, (double)i / (SAMPLES_KEPT - 1));
    free(sorted);
    mcpp_strbuf json;
    mcpp_sb_init_heap(&json, 256);
    mcpp_sb_puts(&json, "{\"metric\": ");
    mcpp_sb_json_string(&json, name);
    mcpp_sb_printf(&json,
                   ", \"samples\": %zu, \"kept\": %d, \"as\": \"quantiles at i/%d, i = 0..%d (min, median "
                   "and max included)\"}",
                   n, SAMPLES_KEPT, SAMPLES_KEPT - 1, SAMPLES_KEPT - 1);
    mcpp_sb_putc(&json, '\0');
    char key[160]; /* one per metric: hyperfine has two with samples */
    snprintf(key, sizeof key, "extra.samples_summarized_%s", name);
    int rc = json.failed ? mcpp_error_nomem() : mcpp_builder_set_json(b, key, json.data);
    mcpp_sb_free(&json);
    return rc;
}

int mcpp_import_add_samples(mcpp_builder *b, const char *name, const char *unit, mcpp_direction dir,
                            const char *kind, const double *samples, size_t n)
{
    if (n == 0)
        return MCPP_OK;
    double median = 0, *kept = NULL;
    int rc = mcpp_quantile(&median, samples, n, 0.5); /* the validator's median; MCPP_ENOMEM */
    if (rc == MCPP_OK && n > SAMPLES_KEPT && (rc = summarize_samples(&kept, b, name, samples, n)) == MCPP_OK) {
        samples = kept;
        n = SAMPLES_KEPT;
    }
    if (rc == MCPP_OK)
        rc = mcpp_builder_add_metric(b, name, unit, dir, median, n == 1 ? "single" : "median", kind, samples, n);
    free(kept);
    return rc;
}

static int walk_dir(mcpp_import_walk *w, const char *dir, int depth)
{
    mcpp_dir_list list;
    int rc = mcpp_dir_list_read(&list, dir);
    for (size_t i = 0; rc == MCPP_OK && i < list.count; i++) {
        const char *p = list.paths[i];
        struct stat st;
        if (stat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth < w->max_depth)
            rc = walk_dir(w, p, depth + 1);
        else if (S_ISDIR(st.st_mode) && w->deeper_is_error)
            rc = mcpp_error_at(MCPP_ELIMIT, MCPP_ERROR_KIND_LIMIT, p, NULL, 0, 0, "directories nested deeper than %d",
                               w->max_depth);
        else if (S_ISREG(st.st_mode) && w->is_input(p + list.name_offset, dir))
            rc = w->take(w, p);
    }
    mcpp_dir_list_free(&list);
    return rc;
}

int mcpp_import_walk_dir(mcpp_import_walk *w, const char *dir) { return walk_dir(w, dir, 0); }

int mcpp_import_set_name(mcpp_builder *b, const char *name)
{
    int rc = mcpp_builder_set_string(b, "benchmark.name", name);
    return rc == MCPP_OK ? mcpp_builder_set_string(b, "lane.name", name) : rc;
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
