/*
 * cmd_report.c — `mcpp-receipts report PATH... --out report.html`: the
 * frontier of the receipts as one self-contained HTML page
 * (mcpp_frontier_render_html). With --store DB the receipts come from a
 * store and the page gains a history section (each lane's runs over time with
 * its change points). Inputs that cannot be read are listed in the
 * page and make the exit code 3; the page is written atomically, so a failed
 * run leaves any earlier report as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts.h"
#include "mcpp_receipts/receipt_set.h"
#include "cmd_store.h"

static const char REPORT_HELP[] =
    "usage: mcpp-receipts report PATH... --out FILE.html [--policy P.lua] [--title TEXT]\n"
    "       mcpp-receipts report --store DB [COLUMN=VALUE,...] [--lane SELECTOR] --out FILE.html [...]\n\n"
    "Writes the frontier of the receipts under PATH (files, or directories read\n"
    "recursively) as one self-contained HTML page: stable and unstable lanes, a\n"
    "forest plot of each lane's headline median and interval, adjacency, reasons and\n"
    "blockers, and each lane's receipts with their caveats. No scripts, no network;\n"
    "light and dark colours. --out - writes the page to stdout.\n\n"
    "With --store DB the receipts are the store's (those a COLUMN=VALUE,... selection\n"
    "picks, as `store ls --where`), and a history section plots each lane's runs\n"
    "over time (or only the lanes --lane SELECTOR picks) with the change points of\n"
    "the default policy's gate metric and the commits on either side.\n\n"
    "example:\n  mcpp-receipts report runs/ --out report.html --policy policy/strict.lua\n"
    "  mcpp-receipts report --store receipts.db --lane family=NAM56R --out report.html\n\n"
    "exit codes: 0 written, 3 some input or the policy could not be read (the page\n"
    "still lists the rest and names what was skipped), 4 internal error\n";

typedef struct report_args {
    const char *out, *policy, *title, *store, *lane;
    char **paths;
    int n_paths;
} report_args;

/* Returns 0 or an exit code; a->paths is allocated (free it) even on failure. */
static int parse_args(report_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->paths = calloc((size_t)argc, sizeof *a->paths);
    if (!a->paths)
        return CLI_EXIT_INTERNAL;
    for (int i = 1; i < argc; i++) {
        const char **slot = strcmp(argv[i], "--out") == 0      ? &a->out
                            : strcmp(argv[i], "--policy") == 0 ? &a->policy
                            : strcmp(argv[i], "--title") == 0  ? &a->title
                            : strcmp(argv[i], "--store") == 0  ? &a->store
                            : strcmp(argv[i], "--lane") == 0   ? &a->lane
                                                               : NULL;
        if (slot) {
            if (i + 1 >= argc) {
                fprintf(stderr, "mcpp-receipts: %s needs a value\n", argv[i]);
                return CLI_EXIT_INVALID;
            }
            *slot = argv[++i];
        } else if (strncmp(argv[i], "--", 2) == 0) {
            return cli_usage_error("report", REPORT_HELP, "unknown option '%s'", argv[i]);
        } else {
            a->paths[a->n_paths++] = argv[i];
        }
    }
    if (!a->out)
        return cli_usage_error("report", REPORT_HELP, "--out FILE.html is missing: the page has to go somewhere");
    if (a->n_paths == 0 && !a->store)
        return cli_usage_error("report", REPORT_HELP, "name the receipts: files or directories, or --store DB");
    if (a->store ? a->n_paths > 1 : a->lane != NULL) {
        return cli_usage_error("report", REPORT_HELP, "%s",
                               a->store ? "with --store give at most one selection (COLUMN=VALUE,...), not paths"
                                        : "--lane selects the history of a store: give --store DB");
    }
    return 0;
}

/* Loads every path; what could not be read is printed and kept in *skipped
 * (messages owned by the set, or copied into *owned). 0 or an exit code. */
static int load_inputs(mcpp_receipt_set *set, const report_args *a, const char ***skipped, size_t *n_skipped,
                       char ***owned, size_t *n_owned)
{
    for (int i = 0; i < a->n_paths; i++) {
        int rc = mcpp_receipt_set_add_path(set, a->paths[i], NULL);
        if (rc == MCPP_ENOMEM)
            return CLI_EXIT_INTERNAL;
        if (rc != MCPP_OK) {
            cli_print_last_error();
            char *copy = strdup(mcpp_error_last()->message);
            if (!copy)
                return CLI_EXIT_INTERNAL;
            (*owned)[(*n_owned)++] = copy;
            (*skipped)[(*n_skipped)++] = copy;
        }
    }
    size_t failures = mcpp_receipt_set_failure_count(set);
    const char **grown = realloc(*skipped, (*n_skipped + failures + 1) * sizeof *grown);
    if (!grown)
        return CLI_EXIT_INTERNAL;
    *skipped = grown;
    for (size_t k = 0; k < failures; k++) {
        fputs("mcpp-receipts: skipped ", stderr);
        cli_fputs_safe(stderr, mcpp_receipt_set_failure_message(set, k), 1);
        fputc('\n', stderr);
        (*skipped)[(*n_skipped)++] = mcpp_receipt_set_failure_message(set, k);
    }
    return 0;
}

static int write_page(const char *out, const char *html)
{
    if (strcmp(out, "-") == 0)
        return fputs(html, stdout) < 0 ? CLI_EXIT_INTERNAL : 0;
    int rc = mcpp_text_write_file(out, html, strlen(html));
    if (rc != MCPP_OK) {
        cli_print_last_error();
        return cli_exit_for_write(rc);
    }
    return 0;
}

/* The selected receipts of the store, and the history of its lanes. */
static int load_store(mcpp_receipt_set **set, mcpp_history **history, const report_args *a)
{
    mcpp_receipt_set_free(*set);
    *set = NULL;
    int ex = cli_store_load(set, a->store, a->n_paths ? a->paths[0] : NULL);
    if (ex) return ex;
    mcpp_store *store = NULL;
    int rc = mcpp_store_open(&store, a->store, MCPP_STORE_READ_ONLY);
    if (!rc) rc = mcpp_history_build(history, store, a->lane, NULL, NULL);
    mcpp_store_close(store);
    if (rc) {
        cli_print_last_error();
        return cli_exit_for_status(rc);
    }
    return 0;
}

static int build_and_write(const report_args *a, const mcpp_policy *policy, mcpp_receipt_set *set,
                           const mcpp_history *history, const char **skipped, size_t n_skipped)
{
    mcpp_frontier *f = NULL;
    char *html = NULL;
    int rc = mcpp_frontier_build(&f, policy, mcpp_receipt_set_items(set), mcpp_receipt_set_count(set));
    if (rc == MCPP_OK) {
        mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
        o.title = a->title;
        o.receipts = mcpp_receipt_set_items(set);
        o.n_receipts = mcpp_receipt_set_count(set);
        o.skipped = skipped;
        o.n_skipped = n_skipped;
        o.history = history;
        rc = mcpp_frontier_render_html(&html, f, &o);
    }
    int ex = rc == MCPP_OK ? write_page(a->out, html) : (cli_print_last_error(), cli_exit_for_status(rc));
    mcpp_free(html);
    mcpp_frontier_free(f);
    return ex;
}

int cli_report(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(REPORT_HELP, stdout);
        return CLI_EXIT_OK;
    }
    report_args a;
    mcpp_policy *policy = NULL;
    mcpp_receipt_set *set = NULL;
    mcpp_history *history = NULL;
    const char **skipped = calloc((size_t)argc + 1, sizeof *skipped);
    char **owned = calloc((size_t)argc + 1, sizeof *owned);
    size_t n_skipped = 0, n_owned = 0;
    int ex = parse_args(&a, argc, argv);
    if (!ex && (!skipped || !owned))
        ex = CLI_EXIT_INTERNAL;
    if (!ex && a.policy)
        ex = cli_policy_load(&policy, a.policy);
    if (!ex)
        ex = mcpp_receipt_set_new(&set) == MCPP_OK ? 0 : CLI_EXIT_INTERNAL;
    if (!ex)
        ex = a.store ? load_store(&set, &history, &a) : load_inputs(set, &a, &skipped, &n_skipped, &owned, &n_owned);
    if (!ex)
        ex = build_and_write(&a, policy, set, history, skipped, n_skipped);
    if (!ex && n_skipped)
        ex = CLI_EXIT_INVALID;
    for (size_t i = 0; i < n_owned; i++)
        free(owned[i]);
    free(owned);
    free(skipped);
    free(a.paths);
    mcpp_receipt_set_free(set);
    mcpp_history_free(history);
    mcpp_policy_free(policy);
    return ex;
}
