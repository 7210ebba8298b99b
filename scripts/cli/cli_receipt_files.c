/*
 * cli_receipt_files.c — the receipt files a path names, for the commands that
 * report on each file (validate): a file is itself; a directory is walked as a
 * receipt set walks it (mcpp_receipt_files_walk, the library's one walk).
 * `validate receipts/` said "not a regular file" where gate and frontier read
 * the same directory.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static int append(cli_path_list *list, const char *path)
{
    if (list->n == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 16;
        char **grown = realloc(list->paths, cap * sizeof *grown);
        if (!grown)
            return -1;
        list->paths = grown;
        list->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        return -1;
    list->paths[list->n++] = copy;
    return 0;
}

typedef struct files_walk {
    cli_path_list *list;
    int ex; /* CLI_EXIT_INVALID once a path could not be read */
} files_walk;

/* A directory that cannot be read, or nests too deep (a link to itself), is
 * named and the walk goes on with the rest, as a receipt set's does; only
 * running out of memory stops it. */
static int take(void *ctx, const char *path, int code, const char *message)
{
    files_walk *w = ctx;
    if (code) {
        fprintf(stderr, "mcpp-receipts: %s: %s\n", path, message);
        w->ex = CLI_EXIT_INVALID;
        return MCPP_OK;
    }
    return append(w->list, path) == 0 ? MCPP_OK : MCPP_ENOMEM;
}

int cli_receipt_files(cli_path_list *list, const char *path)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t before = list->n;
        files_walk w = {list, 0};
        int rc = mcpp_receipt_files_walk(path, take, &w);
        if (rc) {
            cli_print_last_error();
            return rc == MCPP_ENOMEM ? CLI_EXIT_INTERNAL : CLI_EXIT_INVALID;
        }
        if (list->n == before) {
            fprintf(stderr, "mcpp-receipts: %s: a directory with no receipt files (*.json, *.yaml, *.yml) in it\n",
                    path);
            w.ex = CLI_EXIT_INVALID;
        }
        return w.ex;
    }
    /* a file, "-", or what the load will name as unreadable */
    return append(list, path) == 0 ? 0 : CLI_EXIT_INTERNAL;
}

void cli_path_list_free(cli_path_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->paths[i]);
    free(list->paths);
    memset(list, 0, sizeof *list);
}
