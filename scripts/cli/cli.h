/*
 * cli.h — the commands of `mcpp-receipts`, one file per group of commands.
 *
 * Each command gets argv with argv[0] = the command name and returns the
 * process exit code of DESIGN §7: 0 ok / comparable / gate passed, 1 regression
 * beyond the gate, 2 not comparable or insufficient, 3 invalid input or policy,
 * 4 internal error.
 */
#ifndef MCPP_CLI_H
#define MCPP_CLI_H

#include <stdio.h>

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_REGRESSION = 1,
    CLI_EXIT_NOT_COMPARABLE = 2,
    CLI_EXIT_INVALID = 3,
    CLI_EXIT_INTERNAL = 4
};

typedef int (*cli_command_fn)(int argc, char **argv);

typedef struct cli_command {
    const char *name;
    const char *summary;
    cli_command_fn run;
} cli_command;

/* cmd_receipt.c */
int cli_validate(int argc, char **argv);
int cli_show(int argc, char **argv);
int cli_convert(int argc, char **argv);
/* cmd_compare.c */
int cli_compare(int argc, char **argv);
int cli_frontier(int argc, char **argv);
int cli_gate(int argc, char **argv);
int cli_claim(int argc, char **argv);
/* cmd_import.c */
int cli_import(int argc, char **argv);
/* cmd_policy.c */
int cli_policy(int argc, char **argv);

/* Maps a library status code to an exit code: invalid input and policy errors
 * are 3, everything unexpected is 4. */
int cli_exit_for_status(int status);

/* Prints mcpp_error_last() to stderr as "mcpp-receipts: MESSAGE". */
void cli_print_last_error(void);

/* True when argv has -h or --help. */
int cli_wants_help(int argc, char **argv);

#endif /* MCPP_CLI_H */
