/*
 * cli_policy_limits.c — the bounds every command puts on Lua policy code:
 * --policy-time-limit MS (wall clock per rule call and per load) and
 * --policy-total-limit MS (wall clock for all the policy's Lua in the
 * command, -1 for none), taken out of argv before the command parses it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static mcpp_lua_limits limits;
static int limits_ready;

const mcpp_lua_limits *cli_policy_limits(void)
{
    if (!limits_ready) {
        mcpp_lua_limits_default(&limits);
        limits_ready = 1;
    }
    return &limits;
}

/* Parses MS (a whole number of milliseconds, > 0, or -1 where allowed). */
static int parse_ms(int64_t *out, const char *option, const char *text, int allow_none)
{
    char *end = NULL;
    errno = 0;
    long long v = text ? strtoll(text, &end, 10) : 0;
    if (!text || !*text || *end || errno || (v <= 0 && !(allow_none && v == -1))) {
        fprintf(stderr, "mcpp-receipts: %s needs a whole number of milliseconds > 0%s (got '%s')\n",
                option, allow_none ? " or -1 for no bound" : "", text ? text : "");
        return CLI_EXIT_INVALID;
    }
    *out = v;
    return CLI_EXIT_OK;
}

int cli_take_policy_limits(int *argc, char **argv)
{
    static const char *const OPTIONS[] = {"--policy-time-limit", "--policy-total-limit"};
    mcpp_lua_limits *l = (mcpp_lua_limits *)cli_policy_limits();
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        int which = -1;
        const char *value = NULL;
        for (int k = 0; k < 2; k++) {
            size_t n = strlen(OPTIONS[k]);
            if (strncmp(argv[i], OPTIONS[k], n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) {
                which = k;
                value = argv[i][n] == '=' ? argv[i] + n + 1 : (i + 1 < *argc ? argv[++i] : NULL);
            }
        }
        if (which < 0) {
            argv[kept++] = argv[i];
            continue;
        }
        int rc = parse_ms(which == 0 ? &l->max_call_ms : &l->max_total_ms, OPTIONS[which], value, which == 1);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    *argc = kept;
    argv[kept] = NULL;
    return CLI_EXIT_OK;
}

const char *cli_policy_defect(const mcpp_policy *p)
{
    if (mcpp_policy_dimension_count(p) == 0)
        return "the policy declares no dimensions at all, so every receipt would be comparable with every other "
               "and pool into one lane (include default.lua, or list the dimensions under must_match / qualify / "
               "ignore)";
    return NULL;
}

static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The shipped policies' names, sorted, on stderr after a --policy that is
 * neither a file nor one of them. */
static void list_shipped(void)
{
    char *dirs = NULL, *names[64];
    size_t n = 0;
    if (mcpp_policy_search_path(&dirs, NULL) != MCPP_OK) {
        mcpp_error_clear();
        return;
    }
    char *save = NULL;
    for (char *dir = strtok_r(dirs, "\n", &save); dir; dir = strtok_r(NULL, "\n", &save)) {
        DIR *d = opendir(dir);
        for (struct dirent *e; d && n < 64 && (e = readdir(d));) {
            size_t len = strlen(e->d_name);
            if (len > 4 && e->d_name[0] != '.' && strcmp(e->d_name + len - 4, ".lua") == 0 &&
                (names[n] = strndup(e->d_name, len - 4)))
                n++;
        }
        if (d)
            closedir(d);
    }
    qsort(names, n, sizeof *names, by_text);
    fputs("mcpp-receipts: --policy takes a .lua file or a shipped policy's name:", stderr);
    for (size_t i = 0; i < n; i++) {
        if (!i || strcmp(names[i], names[i - 1]) != 0)
            fprintf(stderr, " %s", names[i]);
    }
    fputc('\n', stderr);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    mcpp_free(dirs);
}

int cli_policy_load(mcpp_policy **out, const char *path)
{
    *out = NULL;
    char *found = NULL; /* --policy strict: the shipped one (mcpp_policy_locate) */
    int rc = mcpp_policy_locate(&found, path);
    if (rc == MCPP_OK)
        rc = mcpp_policy_load_lua_file(out, found, cli_policy_limits());
    mcpp_free(found);
    if (rc != MCPP_OK) {
        cli_print_last_error();
        if (rc == MCPP_EIO && !strchr(path, '/'))
            list_shipped();
        return cli_exit_for_status(rc);
    }
    const char *defect = cli_policy_defect(*out);
    if (!defect)
        return CLI_EXIT_OK;
    fputs("mcpp-receipts: ", stderr);
    cli_fputs_safe(stderr, path, 0);
    fprintf(stderr, ": refused: %s\n", defect);
    mcpp_policy_free(*out);
    *out = NULL;
    return CLI_EXIT_INVALID;
}
