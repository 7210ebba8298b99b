/*
 * cli.h — the commands of `mcpp-receipts`, one file per group of commands.
 *
 * Each command gets argv with argv[0] = the command name and returns the
 * process exit code (the table below): 0 ok / comparable / gate passed, 1 regression
 * beyond the gate, 2 not comparable or insufficient, 3 invalid input or policy,
 * 4 internal error.
 */
#ifndef MCPP_CLI_H
#define MCPP_CLI_H

#include <stdio.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/policy_lua.h"

/* The one exit-code table: the gate outcomes, then the two failure codes. */
enum {
    CLI_EXIT_OK = MCPP_GATE_PASSED,
    CLI_EXIT_REGRESSION = MCPP_GATE_FAILED,
    CLI_EXIT_NOT_COMPARABLE = MCPP_GATE_UNDETERMINED,
    CLI_EXIT_INVALID = MCPP_GATE_UNDETERMINED + 1,
    CLI_EXIT_INTERNAL = MCPP_GATE_UNDETERMINED + 2
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
/* cmd_report.c */
int cli_report(int argc, char **argv);
/* cmd_store.c, cmd_history.c */
int cli_store(int argc, char **argv);
int cli_history(int argc, char **argv);
/* cmd_site.c */
int cli_site(int argc, char **argv);
/* cmd_import.c */
int cli_import(int argc, char **argv);
/* cmd_policy.c */
int cli_policy(int argc, char **argv);

/* Maps a library status code to an exit code: invalid input and policy errors
 * are 3, everything unexpected is 4. */
int cli_exit_for_status(int status);
/* The exit code of an output file that could not be written (status of
 * mcpp_text_write_file): 4, as for stdout (main.c), whatever the cause (a full
 * disk, a read-only directory); 3 only for a path the library refuses. */
int cli_exit_for_write(int status);

/* Prints mcpp_error_last() to stderr as "mcpp-receipts: MESSAGE". */
void cli_print_last_error(void);

/* Writes a string from a receipt, a policy or an error for a terminal, the
 * library's way (mcpp_output_escape, TEXT): control characters and terminal
 * escapes are shown as \xNN / \uXXXX; with keep_newlines, '\n' passes. */
void cli_fputs_safe(FILE *to, const char *s, int keep_newlines);

/* Writes `s` as a JSON string literal (mcpp_output_escape, JSON); NULL as null. */
void cli_fputs_json(FILE *to, const char *s);

/* True when argv has -h or --help. */
int cli_wants_help(int argc, char **argv);
/* A usage slip: "mcpp-receipts COMMAND: REASON", the usage lines of `help`
 * (up to its first blank line) and where the whole help is, on stderr; the
 * whole help after a slip buried the one line that said what it was.
 * Returns CLI_EXIT_INVALID. */
int cli_usage_error(const char *command, const char *help, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* cli_policy_limits.c: removes --policy-time-limit / --policy-total-limit
 * from argv into the limits every policy load uses; 0 or an exit code. */
int cli_take_policy_limits(int *argc, char **argv);
const mcpp_lua_limits *cli_policy_limits(void);
/* Why a policy that compiled is still refused (NULL: it is not): `policy
 * check` reports it, and every command that takes --policy refuses it. */
const char *cli_policy_defect(const mcpp_policy *p);
/* Loads the --policy file with those limits and refuses a defect; prints
 * what went wrong; 0 or an exit code (*out NULL then). */
int cli_policy_load(mcpp_policy **out, const char *path);

/* cli_policy_samples.c: runs the policy's rules on every ordered pair of the
 * samples (the compiled-in examples when n_paths is 0), with `policy` and
 * again with `again` (a second load of the file `path`; NULL: once), and
 * refuses answers that differ; 0 or an exit code. */
int cli_policy_run_samples(const mcpp_policy *policy, const mcpp_policy *again, const char *path, char **sample_paths,
                           int n_paths);

/* The mcpp_write_fn that puts a streamed report on stdout. */
int cli_write_stdout(void *ctx, const char *data, size_t len);

/* cli_skipped.c: removes --skip-invalid from argv; 1 when it was given. */
int cli_take_skip_invalid(int *argc, char **argv);
/* How many files the sets skipped. */
size_t cli_skipped_count(const struct mcpp_receipt_set *const *sets, size_t n_sets);
/* Prints a rendered report with the files the sets skipped listed inside it
 * (a "skipped" member of the JSON object; lines after text and markdown). */
void cli_print_with_skipped(FILE *to, const char *text, mcpp_output_format format,
                      const struct mcpp_receipt_set *const *sets, size_t n_sets);
/* The same into *out (free() it), for --output files; MCPP_OK or MCPP_ENOMEM. */
int cli_render_with_skipped(char **out, const char *text, mcpp_output_format format,
                            const struct mcpp_receipt_set *const *sets, size_t n_sets);

/* cli_outputs.c: `--output FORMAT=PATH`, repeatable, so one run writes every
 * format it is asked for. Each file is written atomically (mcpp_text_write_file);
 * PATH "-" is stdout. A format the command streams goes to its file as it is
 * rendered (mcpp_text_write_file_from: a large report is never held whole);
 * the others are rendered whole first. */
typedef struct cli_output {
    const char *format; /* "text", "json", "markdown", "junit", "html" */
    const char *path;
} cli_output;
#define CLI_MAX_OUTPUTS 8
typedef struct cli_outputs {
    cli_output items[CLI_MAX_OUTPUTS];
    int n;
} cli_outputs;
/* Renders one format into *out (free with mcpp_free); a library status. */
typedef int (*cli_render_fn)(char **out, const char *format, const void *ctx);
/* Removes every --output SPEC / --output=SPEC from argv into *outs; a format
 * not in `allowed` (NULL-terminated) is an error. 0 or an exit code. */
int cli_take_outputs(int *argc, char **argv, cli_outputs *outs, const char *const *allowed);
/* Whether a command streams `format` of its report, and the streaming of it
 * (mcpp_frontier_render_stream and the like; a library status). */
typedef int (*cli_streams_fn)(const char *format, const void *ctx);
typedef int (*cli_stream_fn)(const char *format, const void *ctx, mcpp_write_fn write, void *wctx);
/* Renders and writes every output; 0 or an exit code. The whole renders come
 * first: nothing is written when one fails; a streamed output that fails
 * leaves its file as it was (and stops the outputs after it). `streams` and
 * `stream` may be NULL (every format rendered whole). */
int cli_write_outputs(const cli_outputs *outs, cli_render_fn render, cli_streams_fn streams, cli_stream_fn stream,
                      const void *ctx);

/* cmd_receipt.c: writes a JSON string literal (invalid UTF-8 becomes U+FFFD). */
void cli_json_string(FILE *to, const char *s);

/* Paths, each malloc'ed. */
typedef struct cli_path_list {
    char **paths;
    size_t n, cap;
} cli_path_list;
/* Appends the receipt files `path` names (cli_receipt_files.c): the file, or
 * a directory's *.json, *.yaml and *.yml files as a receipt set reads it.
 * 0, or an exit code after a message (a directory unreadable or holding none). */
int cli_receipt_files(cli_path_list *list, const char *path);
void cli_path_list_free(cli_path_list *list);

#endif /* MCPP_CLI_H */
