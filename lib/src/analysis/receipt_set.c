/*
 * receipt_set.c — many receipts from files and directories (recursively), for
 * the CLI and the bindings; bad files are recorded and skipped, never fatal.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error_internal.h"
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
    failure *failures;
    size_t n_failures, cap_failures;
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
    for (size_t i = 0; i < set->n_failures; i++) {
        free(set->failures[i].path);
        free(set->failures[i].message);
    }
    free(set->failures);
    free(set);
}

int mcpp_receipt_set_add(mcpp_receipt_set *set, mcpp_receipt *receipt)
{
    if (!set || !receipt) {
        mcpp_receipt_free(receipt);
        return MCPP_ERROR_ARG("mcpp_receipt_set_add: NULL argument");
    }
    if (set->n == set->cap) {
        size_t nc = set->cap ? set->cap * 2 : 64;
        mcpp_receipt **ni = realloc(set->items, nc * sizeof *ni);
        if (!ni) {
            mcpp_receipt_free(receipt);
            return mcpp_error_nomem();
        }
        set->items = ni;
        set->cap = nc;
    }
    set->items[set->n++] = receipt;
    return MCPP_OK;
}

static int record_failure(mcpp_receipt_set *set, const char *path, int code, const char *message)
{
    if (set->n_failures == set->cap_failures) {
        size_t nc = set->cap_failures ? set->cap_failures * 2 : 8;
        failure *nf = realloc(set->failures, nc * sizeof *nf);
        MCPP_CHECK_ALLOC(nf);
        set->failures = nf;
        set->cap_failures = nc;
    }
    failure *f = &set->failures[set->n_failures];
    f->path = strdup(path);
    f->message = strdup(message && *message ? message : mcpp_status_name(code));
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
    return mcpp_receipt_set_add(set, r);
}

static int has_receipt_extension(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcmp(dot, ".json") == 0 || strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(mcpp_receipt_set *set, const char *dir, const mcpp_limits *limits, int depth)
{
    if (depth > MAX_DIR_DEPTH) return record_failure(set, dir, MCPP_ELIMIT, "directory nesting too deep");
    DIR *d = opendir(dir);
    if (!d) return record_failure(set, dir, MCPP_EIO, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = MCPP_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn) {
                rc = mcpp_error_nomem();
                break;
            }
            names = nn;
            cap = nc;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = mcpp_error_nomem();
            break;
        }
        n++;
    }
    closedir(d);
    if (!rc && n > 1) qsort(names, n, sizeof *names, compare_names);
    size_t dlen = strlen(dir);
    for (size_t i = 0; i < n && !rc; i++) {
        size_t len = dlen + 1 + strlen(names[i]) + 1;
        char *path = malloc(len);
        if (!path) {
            rc = mcpp_error_nomem();
            break;
        }
        memcpy(path, dir, dlen);
        size_t off = dlen;
        if (off && path[off - 1] != '/') path[off++] = '/';
        strcpy(path + off, names[i]);
        struct stat st;
        if (stat(path, &st) != 0) rc = record_failure(set, path, MCPP_EIO, strerror(errno));
        else if (S_ISDIR(st.st_mode)) rc = walk(set, path, limits, depth + 1);
        else if (S_ISREG(st.st_mode) && has_receipt_extension(names[i])) rc = load_one(set, path, limits);
        free(path);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return rc;
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
    if (S_ISDIR(st.st_mode)) return walk(set, path, limits, 0);
    return load_one(set, path, limits);
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
