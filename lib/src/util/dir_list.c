/*
 * dir_list.c — a directory's entries, sorted (util/dir_list.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error_internal.h"

#include "util/dir_list.h"

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "DIR/NAME" (no doubled '/' when DIR ends in one), or NULL. */
static char *join(const char *dir, size_t dlen, const char *name)
{
    size_t nlen = strlen(name);
    char *path = malloc(dlen + 1 + nlen + 1);
    if (!path)
        return NULL;
    memcpy(path, dir, dlen);
    size_t off = dlen;
    if (off && path[off - 1] != '/')
        path[off++] = '/';
    memcpy(path + off, name, nlen + 1);
    return path;
}

int mcpp_dir_list_read(mcpp_dir_list *out, const char *dir)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d) {
        int err = errno;
        mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, dir, NULL, 0, 0, "cannot open the directory: %s",
                      strerror(err));
        errno = err;
        return MCPP_EIO;
    }
    size_t dlen = strlen(dir);
    out->name_offset = dlen + (dlen && dir[dlen - 1] != '/');
    int rc = MCPP_OK;
    for (struct dirent *e; rc == MCPP_OK && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        rc = MCPP_ARRAY_RESERVE(out->paths, out->cap, out->count + 1, MCPP_ARRAY_MAX_ITEMS);
        if (rc == MCPP_OK && !(out->paths[out->count] = join(dir, dlen, e->d_name)))
            rc = mcpp_error_nomem();
        if (rc == MCPP_OK)
            out->count++;
    }
    closedir(d);
    if (rc != MCPP_OK) {
        mcpp_dir_list_free(out);
        return rc;
    }
    /* one directory: every path has the same prefix, so this is name order */
    if (out->count > 1)
        qsort(out->paths, out->count, sizeof *out->paths, by_path);
    return MCPP_OK;
}

void mcpp_dir_list_free(mcpp_dir_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->paths[i]);
    free(list->paths);
    memset(list, 0, sizeof *list);
}
