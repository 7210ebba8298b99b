/*
 * receipt_set.c — many receipts from files and directories (recursively), for
 * the CLI and the bindings; bad files are recorded and skipped, never fatal.
 * Two receipts with one id and different canonical content are two runs
 * claiming one name: the second is recorded as a failure naming both files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/dir_list.h"
#include "util/error_internal.h"
#include "util/hash.h"
#include "util/struct_version.h"
#include "mcpp_receipts/receipt_set.h"

/* Directory nesting beyond this is refused (also stops symlink loops). */
#define MAX_DIR_DEPTH 32

typedef struct failure {
    char *path;
    char *message;
    int code;
} failure;

struct mcpp_receipt_set {
    mcpp_receipt **items;
    size_t n, cap;
    size_t *by_id; /* open addressing on the id hash: item index + 1, 0 when empty */
    size_t id_cap;
    failure *failures;
    size_t n_failures, cap_failures;
    /* what the receipts loaded from files share (made at the first): a
     * suite's receipts repeat their member names, tool strings and context,
     * and the CLI holds every one for a whole frontier or gate (10^5 Google
     * Benchmark results as files: 2.8 -> 1.5 KB a receipt) */
    mcpp_receipt_share *share;
};

int mcpp_receipt_set_new(mcpp_receipt_set **out)
{
    MCPP_CHECK_ARG(out, "mcpp_receipt_set_new: NULL out");
    *out = calloc(1, sizeof **out);
    return *out ? MCPP_OK : mcpp_error_nomem();
}

void mcpp_receipt_set_free(mcpp_receipt_set *set)
{
    if (!set) return;
    for (size_t i = 0; i < set->n; i++) mcpp_receipt_free(set->items[i]);
    free(set->items);
    free(set->by_id);
    for (size_t i = 0; i < set->n_failures; i++) {
        free(set->failures[i].path);
        free(set->failures[i].message);
    }
    free(set->failures);
    mcpp_receipt_share_free(set->share);
    free(set);
}

static size_t id_slot_start(const mcpp_receipt_set *set, const char *id)
{
    return (size_t)mcpp_fnv1a(id, strlen(id), MCPP_FNV_OFFSET) & (set->id_cap - 1);
}

/* Rebuilds the id table at twice the size (it stays at most half full). */
static int grow_ids(mcpp_receipt_set *set)
{
    size_t nc = set->id_cap ? set->id_cap * 2 : 128;
    size_t *nt = calloc(nc, sizeof *nt);
    MCPP_CHECK_ALLOC(nt);
    free(set->by_id);
    set->by_id = nt;
    set->id_cap = nc;
    for (size_t i = 0; i < set->n; i++) {
        size_t pos = id_slot_start(set, mcpp_receipt_id(set->items[i]));
        while (set->by_id[pos]) pos = (pos + 1) & (nc - 1);
        set->by_id[pos] = i + 1;
    }
    return MCPP_OK;
}

/* 1 when a and b have the same canonical content, 0 when not, < 0 on error. */
static int same_content(const mcpp_receipt *a, const mcpp_receipt *b)
{
    char *ta = NULL, *tb = NULL;
    int rc = mcpp_receipt_write(&ta, NULL, a, MCPP_FORMAT_JSON);
    if (!rc) rc = mcpp_receipt_write(&tb, NULL, b, MCPP_FORMAT_JSON);
    int same = rc ? rc : strcmp(ta, tb) == 0;
    mcpp_free(ta);
    mcpp_free(tb);
    return same;
}

/* The receipt already in the set with r's id and other content, else NULL
 * (*rc says whether the check itself failed). Same id and same content is
 * the same run loaded twice (as JSON and YAML, say): that is no conflict. */
static const mcpp_receipt *conflicting(const mcpp_receipt_set *set, const mcpp_receipt *r, int *rc)
{
    *rc = MCPP_OK;
    if (!set->id_cap) return NULL;
    const char *id = mcpp_receipt_id(r);
    for (size_t pos = id_slot_start(set, id); set->by_id[pos]; pos = (pos + 1) & (set->id_cap - 1)) {
        const mcpp_receipt *other = set->items[set->by_id[pos] - 1];
        if (strcmp(mcpp_receipt_id(other), id) != 0) continue;
        int same = same_content(other, r);
        if (same < 0) *rc = same;
        if (same <= 0) return same < 0 ? NULL : other;
    }
    return NULL;
}

static const char *source_of(const mcpp_receipt *r)
{
    const char *s = mcpp_receipt_source_name(r);
    return s ? s : "(built in memory)";
}

int mcpp_receipt_set_add(mcpp_receipt_set *set, mcpp_receipt *receipt)
{
    if (!set || !receipt) {
        mcpp_receipt_free(receipt);
        return MCPP_ERROR_ARG("mcpp_receipt_set_add: NULL argument");
    }
    int rc;
    const mcpp_receipt *other = conflicting(set, receipt, &rc);
    if (other)
        rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, source_of(receipt), "id", 0, 0,
                           "conflict: receipt '%s' in %s has other content than the receipt with the same "
                           "id in %s (two different runs cannot share an id)",
                           mcpp_receipt_id(receipt), source_of(receipt), source_of(other));
    if (rc)
        goto fail;
    if ((set->n + 1) * 2 > set->id_cap && (rc = grow_ids(set)) != MCPP_OK)
        goto fail;
    if ((rc = MCPP_ARRAY_RESERVE(set->items, set->cap, set->n + 1, MCPP_ARRAY_MAX_ITEMS)) != MCPP_OK)
        goto fail;
    size_t pos = id_slot_start(set, mcpp_receipt_id(receipt));
    while (set->by_id[pos]) pos = (pos + 1) & (set->id_cap - 1);
    set->items[set->n++] = receipt;
    set->by_id[pos] = set->n;
    return MCPP_OK;
fail: /* the set takes the receipt only when it is added */
    mcpp_receipt_free(receipt);
    return rc;
}

static int record_failure(mcpp_receipt_set *set, const char *path, int code, const char *message)
{
    MCPP_CHECK_ARRAY(set->failures, set->cap_failures, set->n_failures + 1, MCPP_ARRAY_MAX_ITEMS);
    failure *f = &set->failures[set->n_failures];
    f->path = mcpp_strdup(path, NULL);
    f->message = mcpp_strdup(message && *message ? message : mcpp_status_name(code), NULL);
    f->code = code;
    if (!f->path || !f->message) {
        free(f->path);
        free(f->message);
        return mcpp_error_nomem();
    }
    set->n_failures++;
    return MCPP_OK;
}

static int load_one(mcpp_receipt_set *set, const char *path, const mcpp_limits *limits)
{
    mcpp_receipt *r = NULL;
    int rc = mcpp_receipt_load_file(&r, NULL, path, limits);
    if (rc == MCPP_ENOMEM) return rc;
    if (rc != MCPP_OK) return record_failure(set, path, rc, mcpp_error_last()->message);
    mcpp_receipt *shared = NULL;
    if (!set->share)
        rc = mcpp_receipt_share_new(&set->share);
    if (!rc)
        rc = mcpp_receipt_share_pack(&shared, r, set->share);
    mcpp_receipt_free(r);
    if (rc)
        return rc;
    rc = mcpp_receipt_set_add(set, shared);
    if (rc == MCPP_EINVALID) return record_failure(set, path, rc, mcpp_error_last()->message);
    return rc;
}

static int has_receipt_extension(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcmp(dot, ".json") == 0 || strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0);
}

static int walk(const char *dir, int depth, mcpp_receipt_file_fn fn, void *ctx)
{
    char reason[96];
    if (depth > MAX_DIR_DEPTH) {
        snprintf(reason, sizeof reason, "directories nested deeper than %d", MAX_DIR_DEPTH);
        return fn(ctx, dir, MCPP_ELIMIT, reason);
    }
    mcpp_dir_list list;
    int rc = mcpp_dir_list_read(&list, dir);
    if (rc == MCPP_EIO) {
        snprintf(reason, sizeof reason, "cannot read the directory: %s", strerror(errno));
        return fn(ctx, dir, MCPP_EIO, reason);
    }
    for (size_t i = 0; i < list.count && !rc; i++) {
        const char *path = list.paths[i];
        struct stat st;
        if (stat(path, &st) != 0)
            rc = fn(ctx, path, MCPP_EIO, strerror(errno));
        else if (S_ISDIR(st.st_mode))
            rc = walk(path, depth + 1, fn, ctx);
        else if (S_ISREG(st.st_mode) && has_receipt_extension(path + list.name_offset))
            rc = fn(ctx, path, MCPP_OK, NULL);
    }
    mcpp_dir_list_free(&list);
    return rc;
}

int mcpp_receipt_files_walk(const char *dir, mcpp_receipt_file_fn fn, void *ctx)
{
    MCPP_CHECK_ARG(dir && fn, "mcpp_receipt_files_walk: NULL argument");
    struct stat st;
    if (stat(dir, &st) != 0)
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, dir, NULL, 0, 0, "cannot read: %s", strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, dir, NULL, 0, 0, "not a directory");
    return walk(dir, 0, fn, ctx);
}

typedef struct set_walk {
    mcpp_receipt_set *set;
    const mcpp_limits *limits;
} set_walk;

/* A walk's file loaded into the set, or its failure recorded. */
static int take_file(void *ctx, const char *path, int code, const char *message)
{
    set_walk *w = ctx;
    return code ? record_failure(w->set, path, code, message) : load_one(w->set, path, w->limits);
}

int mcpp_receipt_set_add_path(mcpp_receipt_set *set, const char *path, const mcpp_limits *limits)
{
    MCPP_CHECK_ARG(set && path, "mcpp_receipt_set_add_path: NULL argument");
    /* checked here, not per file: a wrong struct is the caller's bug, not a bad file */
    if (limits && mcpp_struct_version_check(limits->version, MCPP_LIMITS_VERSION, "mcpp_limits") != MCPP_OK)
        return MCPP_EARG;
    struct stat st;
    if (stat(path, &st) != 0)
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot read: %s", strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        set_walk w = {set, limits};
        return walk(path, 0, take_file, &w);
    }
    return load_one(set, path, limits);
}

static int compare_ids(const void *a, const void *b)
{
    const mcpp_receipt *x = *(const mcpp_receipt *const *)a, *y = *(const mcpp_receipt *const *)b;
    int c = strcmp(mcpp_receipt_id(x), mcpp_receipt_id(y));
    return c ? c : (x > y) - (x < y);
}

int mcpp_receipts_check_ids(const mcpp_receipt *const *receipts, size_t n)
{
    MCPP_CHECK_ARG(!n || receipts, "mcpp_receipts_check_ids: NULL receipts");
    const mcpp_receipt **sorted = malloc((n ? n : 1) * sizeof *sorted);
    MCPP_CHECK_ALLOC(sorted);
    for (size_t i = 0; i < n; i++) {
        if (!receipts[i]) {
            free(sorted);
            return MCPP_ERROR_ARG("receipt %zu is NULL", i);
        }
        sorted[i] = receipts[i];
    }
    qsort(sorted, n, sizeof *sorted, compare_ids);
    int rc = MCPP_OK;
    for (size_t i = 1; i < n && !rc; i++) {
        if (strcmp(mcpp_receipt_id(sorted[i]), mcpp_receipt_id(sorted[i - 1])) != 0) continue;
        int same = same_content(sorted[i - 1], sorted[i]);
        if (same < 0) rc = same;
        else if (!same)
            rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, source_of(sorted[i]), "id", 0, 0,
                               "conflict: receipt '%s' in %s has other content than the receipt with the same "
                               "id in %s (two different runs cannot share an id)",
                               mcpp_receipt_id(sorted[i]), source_of(sorted[i]), source_of(sorted[i - 1]));
    }
    free(sorted);
    return rc;
}

size_t mcpp_receipt_set_count(const mcpp_receipt_set *set) { return set ? set->n : 0; }

const mcpp_receipt *mcpp_receipt_set_at(const mcpp_receipt_set *set, size_t index)
{
    return set && index < set->n ? set->items[index] : NULL;
}

const mcpp_receipt *const *mcpp_receipt_set_items(const mcpp_receipt_set *set)
{
    return set && set->n ? (const mcpp_receipt *const *)set->items : NULL;
}

size_t mcpp_receipt_set_failure_count(const mcpp_receipt_set *set) { return set ? set->n_failures : 0; }

const char *mcpp_receipt_set_failure_path(const mcpp_receipt_set *set, size_t index)
{
    return set && index < set->n_failures ? set->failures[index].path : NULL;
}

int mcpp_receipt_set_failure_code(const mcpp_receipt_set *set, size_t index)
{
    return set && index < set->n_failures ? set->failures[index].code : 0;
}

const char *mcpp_receipt_set_failure_message(const mcpp_receipt_set *set, size_t index)
{
    return set && index < set->n_failures ? set->failures[index].message : NULL;
}
