/*
 * cmd_site.c — `mcpp-receipts site`: a store's history site, a folder of
 * static pages (mcpp_site_write, html_report.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts.h"

static const char SITE_HELP[] = "usage: mcpp-receipts site --store DB --out DIR [--title TEXT] [--commit-url URL]\n\n"
                                "Writes the store's history as static pages into DIR (made when missing): index.html\n"
                                "lists every lane, grouped by label and told apart by what differs, with a filter\n"
                                "box; lanes/LANE.html plots the lane's runs with its change points, each dot linked\n"
                                "to its run (receipt id, date, commit); frontier.html is the store's frontier;\n"
                                "gate.html gates each lane's newest commit against the commit before it. The pages\n"
                                "fetch nothing and work from file:// or any static host. Run it again after new\n"
                                "receipts: only the pages whose content changed are written (their digests are in\n"
                                "DIR/site-digests.txt), and pages of lanes gone from the store are removed.\n"
                                "--commit-url makes each commit a link: {commit} in URL is replaced by it, e.g.\n"
                                "https://github.com/ORG/REPO/commit/{commit}.\n"
                                "exit codes: 0 ok, 3 invalid input or store, 4 internal error\n";

int cli_site(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(SITE_HELP, stdout);
        return CLI_EXIT_OK;
    }
    const char *db = NULL, *out = NULL;
    mcpp_site_options options = MCPP_SITE_OPTIONS_INIT;
    for (int i = 1; i < argc; i++) {
        const char **slot = strcmp(argv[i], "--store") == 0        ? &db
                            : strcmp(argv[i], "--out") == 0        ? &out
                            : strcmp(argv[i], "--title") == 0      ? &options.title
                            : strcmp(argv[i], "--commit-url") == 0 ? &options.commit_url
                                                                   : NULL;
        if (!slot || i + 1 >= argc) {
            return cli_usage_error("site", SITE_HELP, "%s '%s'", slot ? "a value is needed after" : "unknown argument",
                                   argv[i]);
        }
        *slot = argv[++i];
    }
    if (!db || !out) {
        return cli_usage_error("site", SITE_HELP, "%s is required", !db ? "--store DB" : "--out DIR");
    }
    mcpp_store *store = NULL;
    int rc = mcpp_store_open(&store, db, 0); /* writable when it can be: stale lane summaries are saved once rebuilt */
    if (rc) {
        mcpp_error_clear();
        rc = mcpp_store_open(&store, db, MCPP_STORE_READ_ONLY);
    }
    mcpp_site_result result;
    if (!rc)
        rc = mcpp_site_write(&result, store, out, &options);
    mcpp_store_close(store);
    if (rc) {
        cli_print_last_error();
        return cli_exit_for_status(rc);
    }
    printf("site ");
    cli_fputs_safe(stdout, out, 0);
    printf(": %zu pages, %zu written, %zu unchanged, %zu removed\n", result.pages, result.written, result.unchanged,
           result.removed);
    return CLI_EXIT_OK;
}
