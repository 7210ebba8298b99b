/*
 * free_paths.c — field ids for paths inside free-form values ("extra.team",
 * "benchmark.params.n", "software.components.numpy"), so that a policy may
 * name them as dimension fields and the comparison, lane key and hash code
 * (receipt/fields.c) read them by id like schema fields. Ids are
 * MCPP_FIELD_COUNT + index into a process-wide table of interned paths that
 * only grows (a handful per policy), guarded by a mutex for registration;
 * entries never move once published, so readers need no lock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/fields.h"
#include "receipt/schema.h"
#include "util/alloc.h"
#include "util/error_internal.h"

#define MAX_FREE_PATHS 1024

static char *paths[MAX_FREE_PATHS];
static size_t n_paths;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 when `path` lies below a free-form root of the schema ("extra.x"), with
 * no empty step. */
static int below_free_root(const char *path)
{
    for (int k = 0; k < MCPP_FIELD_COUNT; k++) {
        if (mcpp_schema_entries[k].storage != MCPP_ST_OBJECT) continue;
        const char *root = mcpp_schema_entries[k].info.path;
        size_t rl = strlen(root);
        if (strncmp(path, root, rl) != 0 || path[rl] != '.' || path[rl + 1] == '\0') continue;
        return !strstr(path + rl, "..") && path[strlen(path) - 1] != '.';
    }
    return 0;
}

int mcpp_free_path_id(const char *path)
{
    if (!path || !below_free_root(path))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_UNKNOWN_FIELD, NULL, path, 0, 0,
                             "'%s' is not a field of schema %s nor a path inside a free-form value "
                             "(extra.*, features.*, benchmark.params.*, software.components.*, ...)",
                             path ? path : "(null)", MCPP_SCHEMA_ID);
    pthread_mutex_lock(&lock);
    int id = -1;
    for (size_t i = 0; i < n_paths && id < 0; i++)
        if (strcmp(paths[i], path) == 0) id = MCPP_FIELD_COUNT + (int)i;
    if (id < 0 && n_paths < MAX_FREE_PATHS && (paths[n_paths] = mcpp_strdup(path, NULL)) != NULL)
        id = MCPP_FIELD_COUNT + (int)n_paths++;
    pthread_mutex_unlock(&lock);
    if (id < 0) return mcpp_error_nomem();
    return id;
}

const char *mcpp_free_path_at(int id)
{
    size_t i = (size_t)(id - MCPP_FIELD_COUNT);
    /* published entries never change: a stale count only hides a newer path */
    return id >= MCPP_FIELD_COUNT && i < MAX_FREE_PATHS ? paths[i] : NULL;
}
