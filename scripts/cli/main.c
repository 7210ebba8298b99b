/*
 * main.c — `mcpp-receipts`: dispatches to one command and maps the result to
 * the exit codes of cli.h (0 ok, 1 regression, 2 not comparable, 3 invalid
 * input, 4 internal error).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts.h"

static const cli_command COMMANDS[] = {
    {"validate", "check receipts against schema mcpp.receipt/2", cli_validate},
    {"show", "print a receipt for people (or as json/yaml)", cli_show},
    {"convert", "convert a receipt to canonical JSON or YAML", cli_convert},
    {"compare", "decide whether two receipts are comparable, and compare their numbers", cli_compare},
    {"frontier", "group receipts into lanes and label the stable frontier", cli_frontier},
    {"gate", "pre-merge gate: candidates against comparable baselines", cli_gate},
    {"claim", "check a quoted number against the receipts (benchmark laundering)", cli_claim},
    {"report", "write the frontier as one self-contained HTML page", cli_report},
    {"policy", "test and check Lua policy files", cli_policy},
    {"store", "keep receipts in a durable store (SQLite file or PostgreSQL URL): init, add, ls, export, rm, check",
     cli_store},
    {"history", "a lane's runs over time from a store, with change points", cli_history},
    {"site", "write a store's history as a static site: lanes, charts, frontier, latest gate", cli_site},
    {"import", "turn other tools' results into receipts ('import --help' lists the formats)", cli_import},
};

static void print_usage(FILE *to)
{
    fprintf(to, "usage: mcpp-receipts COMMAND [ARGS...]\n\n"
                "Receipts for ML-training benchmark numbers (schema %s, version %s).\n\n"
                "commands:\n",
            MCPP_SCHEMA_ID, mcpp_version_string());
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(to, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(to, "\nRun 'mcpp-receipts COMMAND --help' for a command's options.\n"
                "Options for every command that runs a Lua policy:\n"
                "  --policy P.lua|NAME      a policy file, or a shipped one by name (strict,\n"
                "                           shared_cpu, ...: the installed policies, then\n"
                "                           the directories on MCPP_POLICY_PATH)\n"
                "  --policy-time-limit MS   wall clock per rule call and per load (default 1000)\n"
                "  --policy-total-limit MS  wall clock for all policy code in the command\n"
                "                           (default 1500; -1: no bound)\n\n"
                "exit codes: 0 ok, 1 regression, 2 not comparable, 3 invalid input or policy, "
                "4 internal error\n");
}

/*
 * Output that could not be written must not look like success (`>/dev/full`,
 * a closed pipe, a full disk): every command's stdout is flushed and closed
 * here, and a failure turns any exit code into 4 with a message.
 */
static int finish_output(int exit_code)
{
    int failed = ferror(stdout) != 0;
    errno = 0;
    failed |= fflush(stdout) != 0;
    int saved = errno;
    failed |= fclose(stdout) != 0;
    if (!saved)
        saved = errno;
    if (!failed)
        return exit_code;
    fprintf(stderr, "mcpp-receipts: cannot write the output to stdout: %s\n",
            saved ? strerror(saved) : "write error");
    return CLI_EXIT_INTERNAL;
}

static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_INVALID;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("mcpp-receipts %s (schema %s)\n", mcpp_version_string(), MCPP_SCHEMA_ID);
        return CLI_EXIT_OK;
    }
    int ex = cli_take_policy_limits(&argc, argv);
    if (ex != CLI_EXIT_OK)
        return ex;
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0)
            return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "mcpp-receipts: unknown command '%s'\n\n", argv[1]);
    print_usage(stderr);
    return CLI_EXIT_INVALID;
}

int main(int argc, char **argv)
{
    return finish_output(run_command(argc, argv));
}
