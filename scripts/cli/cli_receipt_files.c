/*
 * cli_receipt_files.c — the receipt files a path names, for the commands that
 * report on each file (validate): a file is itself; a directory is walked as a
 * receipt set walks it (mcpp_receipts/receipt_set.h): *.json, *.yaml and *.yml
 * files, recursively, in byte order of names, entries starting with '.'
 * skipped. `validate receipts/` said "not a regular file" where gate and
 * frontier read the same directory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define MAX_DEPTH 32 /* deeper is a loop of links, or not a tree of receipts */

static int has_receipt_extension(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcmp(dot, ".json") == 0 || strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int append(cli_path_list *list, char *path)
{
    if (list->n == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 16;
        char **grown = realloc(list->paths, cap * sizeof *grown);
        if (!grown) {
            free(path);
            return -1;
        }
        list->paths = grown;
        list->cap = cap;
    }
    list->paths[list->n++] = path;
    return 0;
}

static char *joined(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name), slash = a && dir[a - 1] == '/' ? 0 : 1;
    char *p = malloc(a + slash + b + 1);
    if (p) {
        memcpy(p, dir, a);
        if (slash)
            p[a] = '/';
        memcpy(p + a + slash, name, b + 1);
    }
    return p;
}

/* 0, or an exit code after a message. A directory that cannot be read, or
 * nests too deep (a link to itself), is named and the walk goes on with the
 * rest, as a receipt set's does; only running out of memory stops it. */
static int walk(cli_path_list *list, const char *dir, int depth)
{
    if (depth > MAX_DEPTH) {
        fprintf(stderr, "mcpp-receipts: %s: directories nested deeper than %d\n", dir, MAX_DEPTH);
        return CLI_EXIT_INVALID;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "mcpp-receipts: %s: cannot read the directory: %s\n", dir, strerror(errno));
        return CLI_EXIT_INVALID;
    }
    cli_path_list entries = {0};
    struct dirent *e;
    int ex = 0;
    while (!ex && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *name = strdup(e->d_name);
        if (!name || append(&entries, name) != 0)
            ex = CLI_EXIT_INTERNAL;
    }
    closedir(d);
    if (!ex && entries.n > 1)
        qsort(entries.paths, entries.n, sizeof *entries.paths, by_name);
    for (size_t i = 0; ex != CLI_EXIT_INTERNAL && i < entries.n; i++) {
        char *path = joined(dir, entries.paths[i]);
        struct stat st;
        if (!path) {
            ex = CLI_EXIT_INTERNAL;
        } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            int sub = walk(list, path, depth + 1);
            if (sub > ex)
                ex = sub;
            free(path);
        } else if (has_receipt_extension(entries.paths[i])) {
            if (append(list, path) != 0)
                ex = CLI_EXIT_INTERNAL; /* append freed it */
        } else {
            free(path);
        }
    }
    cli_path_list_free(&entries);
    return ex;
}

int cli_receipt_files(cli_path_list *list, const char *path)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t before = list->n;
        int ex = walk(list, path, 0);
        if (ex != CLI_EXIT_INTERNAL && list->n == before) {
            fprintf(stderr, "mcpp-receipts: %s: a directory with no receipt files (*.json, *.yaml, *.yml) in it\n",
                    path);
            ex = CLI_EXIT_INVALID;
        }
        return ex;
    }
    char *copy = strdup(path); /* a file, "-", or what the load will name as unreadable */
    return copy && append(list, copy) == 0 ? 0 : CLI_EXIT_INTERNAL;
}

void cli_path_list_free(cli_path_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->paths[i]);
    free(list->paths);
    memset(list, 0, sizeof *list);
}
