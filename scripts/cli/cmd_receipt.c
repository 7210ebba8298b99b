/*
 * cmd_receipt.c — `mcpp-receipts validate`, `show` and `convert`: the commands
 * that read single receipts. Option parsing, exit codes and the json output of
 * validate live here; loading and diagnostics are in cmd_receipt_io.c, the
 * text rendering of show in cmd_receipt_text.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmd_receipt_io.h"

/* ---- help texts ------------------------------------------------------------ */

static const char VALIDATE_USAGE[] = "usage: mcpp-receipts validate [--quiet] [--format text|json] PATH...\n";
static const char VALIDATE_HELP[] =
    "\n"
    "Checks each receipt (JSON or YAML; \"-\" reads stdin) against schema mcpp.receipt/2 (schema 1 is read too).\n"
    "A directory stands for its *.json, *.yaml and *.yml files, walked as gate and frontier walk it.\n"
    "Prints \"ok FILE (id ID, lane NAME)\" for a valid receipt, or every problem as\n"
    "\"FILE:LINE:COL: FIELD: MESSAGE [KIND]\" (warnings as \"[warning: KIND]\"), then a summary.\n"
    "\n"
    "options:\n"
    "  -q, --quiet           print only errors (no ok lines, warnings or summary)\n"
    "  -f, --format FORMAT   text (default, for people) or json (for tools)\n"
    "  -h, --help            this help\n"
    "\n"
    "exit codes: 0 all valid, 3 any invalid input (or a bad option), 4 internal error\n"
    "\n"
    "example:\n"
    "  mcpp-receipts validate examples/receipts/\n";

static const char SHOW_USAGE[] = "usage: mcpp-receipts show [--format text|json|yaml] FILE\n";
static const char SHOW_HELP[] =
    "\n"
    "Prints one receipt (\"-\" reads stdin). text is for people: one section per part of\n"
    "the receipt (Lane, Workload, Routing, Compile, Backend requested -> observed,\n"
    "Hardware requested vs observed, Topology, Metrics with median/p10/p90 and n,\n"
    "Status with caveats), \"!\" marking where what ran differs from what was asked.\n"
    "json and yaml print the canonical form.\n"
    "\n"
    "options:\n"
    "  -f, --format FORMAT   text (default), json or yaml\n"
    "  -h, --help            this help\n"
    "\n"
    "exit codes: 0 ok, 3 invalid input (or a bad option), 4 internal error\n"
    "\n"
    "example:\n"
    "  mcpp-receipts show examples/receipts/h200_requested_h100_observed.json\n";

static const char CONVERT_USAGE[] =
    "usage: mcpp-receipts convert FILE --to json|yaml [--schema 1|2]\n";
static const char CONVERT_HELP[] =
    "\n"
    "Validates one receipt (\"-\" reads stdin) and writes it to stdout in canonical form:\n"
    "schema field order, absent fields left out, numbers in shortest round-trip form.\n"
    "JSON -> YAML -> JSON gives back the same bytes. Schema 1 receipts are read and\n"
    "written as schema 2; --schema 1 writes the layout of mcpp.receipt/1 for tools\n"
    "that only read it, and refuses (exit 3, naming the field) what does not fit.\n"
    "\n"
    "options:\n"
    "  -t, --to FORMAT       json or yaml (required)\n"
    "  --schema N            2 (the default) or 1\n"
    "  -h, --help            this help\n"
    "\n"
    "exit codes: 0 ok, 3 invalid input (or a bad option), 4 internal error\n"
    "\n"
    "example:\n"
    "  mcpp-receipts convert examples/receipts/nam52_dense.yaml --to json\n";

static int print_help(const char *usage, const char *help)
{
    fputs(usage, stdout);
    fputs(help, stdout);
    return CLI_EXIT_OK;
}

/* ---- option parsing ------------------------------------------------------------ */

/*
 * Matches argv[*i] against a value option given as "--long VALUE",
 * "--long=VALUE" or "-s VALUE". Returns 1 and sets *value when it matched,
 * 0 when it is another argument, -1 when the value is missing.
 */
static int take_value_option(int argc, char **argv, int *i, const char *long_name,
                             const char *short_name, const char **value)
{
    const char *arg = argv[*i];
    size_t n = strlen(long_name);
    if (strncmp(arg, long_name, n) == 0 && arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (strcmp(arg, long_name) == 0 || (short_name && strcmp(arg, short_name) == 0)) {
        if (*i + 1 >= argc)
            return -1;
        *value = argv[++*i];
        return 1;
    }
    return 0;
}

/* An argument that looks like an option ("-" alone is stdin, not an option). */
static int is_option(const char *arg) { return arg[0] == '-' && arg[1] != '\0'; }

/* ---- json output for validate ------------------------------------------------ */

/* Writes a JSON string literal (NULL as ""). Bytes that are not UTF-8 (a
 * file name can hold anything) become U+FFFD so the output always parses. */
static void json_string(FILE *to, const char *s) { cli_fputs_json(to, s ? s : ""); }

void cli_json_string(FILE *to, const char *s) { json_string(to, s); }

static void json_diagnostics(FILE *to, const mcpp_report *report, int load_status,
                             const char *name)
{
    size_t n = mcpp_report_count(report), written = 0;
    fputs("[", to);
    for (size_t i = 0; i < n; i++) {
        const mcpp_diagnostic *d = mcpp_report_at(report, i);
        if (!d)
            continue;
        fputs(written++ ? ",\n        {" : "\n        {", to);
        fputs("\"severity\": ", to);
        json_string(to, d->severity == MCPP_SEVERITY_WARNING ? "warning" : "error");
        fputs(", \"kind\": ", to);
        json_string(to, d->kind);
        fputs(", \"file\": ", to);
        json_string(to, d->file && *d->file ? d->file : name);
        fprintf(to, ", \"line\": %d, \"column\": %d, \"field\": ", d->line, d->column);
        if (d->field && *d->field)
            json_string(to, d->field);
        else
            fputs("null", to);
        fputs(", \"message\": ", to);
        json_string(to, d->message);
        fputs("}", to);
    }
    if (load_status != MCPP_OK && mcpp_report_error_count(report) == 0) {
        const mcpp_error *e = mcpp_error_last();
        fputs(written++ ? ",\n        {" : "\n        {", to);
        fputs("\"severity\": \"error\", \"kind\": ", to);
        json_string(to, e->kind && *e->kind ? e->kind : mcpp_status_name(load_status));
        fputs(", \"file\": ", to);
        json_string(to, e->file && *e->file ? e->file : name);
        fprintf(to, ", \"line\": %d, \"column\": %d, \"field\": ", e->line, e->column);
        if (e->field && *e->field)
            json_string(to, e->field);
        else
            fputs("null", to);
        fputs(", \"message\": ", to);
        json_string(to, e->message && *e->message ? e->message : mcpp_status_name(load_status));
        fputs("}", to);
    }
    fputs(written ? "\n      ]" : "]", to);
}

/* ---- validate ------------------------------------------------------------------ */

/* The lane as a person names it: lane.name, else family and pattern. */
static void lane_label(char *buf, size_t cap, const mcpp_receipt *r)
{
    mcpp_value name = MCPP_VALUE_INIT, family = MCPP_VALUE_INIT, pattern = MCPP_VALUE_INIT;
    if (mcpp_receipt_get(r, "lane.name", &name) == MCPP_OK && name.type == MCPP_TYPE_STRING) {
        snprintf(buf, cap, "%s", name.string);
        return;
    }
    int has_family = mcpp_receipt_get(r, "lane.family", &family) == MCPP_OK &&
                     family.type == MCPP_TYPE_STRING;
    int has_pattern = mcpp_receipt_get(r, "lane.pattern", &pattern) == MCPP_OK &&
                      pattern.type == MCPP_TYPE_STRING;
    snprintf(buf, cap, "%s%s%s", has_family ? family.string : "",
             has_family && has_pattern ? " " : "", has_pattern ? pattern.string : "");
    if (!*buf)
        snprintf(buf, cap, "unnamed");
}

/* The exit code one file earns; the worst over all files is validate's. */
static int exit_for_load(int status)
{
    return status == MCPP_OK ? CLI_EXIT_OK : cli_exit_for_status(status);
}

/* What `validate` was asked for; files point into argv. */
typedef struct validate_args {
    int quiet, json, nfiles;
    char **files;
} validate_args;

/* Counts over all files, for the summary line and the exit code. */
typedef struct validate_totals {
    size_t valid, invalid, warnings, files;
    int exit_code;
} validate_totals;

/* Parses options and collects every FILE first, so a bad option is reported
 * before anything is read. Returns -1 to go on, or the exit code to stop with
 * (after --help, 0); args->files is then freed. */
static int parse_validate_args(validate_args *args, int argc, char **argv)
{
    int only_files = 0;
    memset(args, 0, sizeof *args);
    args->files = calloc((size_t)argc, sizeof *args->files); /* room for every FILE */
    if (!args->files) {
        fprintf(stderr, "mcpp-receipts validate: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        if (only_files || !is_option(argv[i])) {
            args->files[args->nfiles++] = argv[i];
            continue;
        }
        if (strcmp(argv[i], "--") == 0) {
            only_files = 1;
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            free(args->files);
            return print_help(VALIDATE_USAGE, VALIDATE_HELP);
        }
        if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
            args->quiet = 1;
            continue;
        }
        int taken = take_value_option(argc, argv, &i, "--format", "-f", &value);
        if (taken > 0 && (strcmp(value, "text") == 0 || strcmp(value, "json") == 0)) {
            args->json = strcmp(value, "json") == 0;
            continue;
        }
        free(args->files);
        if (taken < 0)
            return cli_usage_error("validate", VALIDATE_USAGE, "option '%s' needs a value", argv[i]);
        if (taken > 0)
            return cli_usage_error("validate", VALIDATE_USAGE, "unknown format '%s' (expected text or json)", value);
        return cli_usage_error("validate", VALIDATE_USAGE, "unknown option '%s'", argv[i]);
    }
    if (!args->nfiles) {
        free(args->files);
        return cli_usage_error("validate", VALIDATE_USAGE, "no FILE given");
    }
    return -1;
}

/* One file's entry of the --format json output. */
static void print_validate_json_entry(const char *name, const mcpp_receipt *receipt,
                                      const mcpp_report *report, int status, const char *lane,
                                      size_t n_warn, const char *gaps, int first)
{
    fputs(first ? "\n    {" : ",\n    {", stdout);
    fputs("\"file\": ", stdout);
    json_string(stdout, name);
    fprintf(stdout, ", \"valid\": %s, \"id\": ", status == MCPP_OK ? "true" : "false");
    if (receipt)
        json_string(stdout, mcpp_receipt_id(receipt));
    else
        fputs("null", stdout);
    fputs(", \"lane\": ", stdout);
    if (receipt)
        json_string(stdout, lane);
    else
        fputs("null", stdout);
    fprintf(stdout, ", \"errors\": %zu, \"warnings\": %zu,\n      \"diagnostics\": ",
            status == MCPP_OK ? (size_t)0
                              : (mcpp_report_error_count(report) ? mcpp_report_error_count(report) : 1),
            n_warn);
    json_diagnostics(stdout, report, status, name);
    /* what the receipt lacks to be compared under the default policy */
    fputs(",\n      \"not_comparable_because\": ", stdout);
    if (gaps)
        json_string(stdout, gaps);
    else
        fputs("null", stdout);
    fputs("}", stdout);
}

/* Loads, validates and reports one file; adds to the totals. */
static void validate_one_file(const validate_args *args, const char *path, validate_totals *t)
{
    const char *name = cli_receipt_display_name(path);
    mcpp_receipt *receipt = NULL;
    mcpp_report *report = NULL;
    int status = cli_receipt_load(&receipt, &report, path, NULL);
    size_t n_warn = mcpp_report_count(report) - mcpp_report_error_count(report);
    int code = exit_for_load(status);
    /* A receipt that states none of a must-match dimension validates, but
     * nothing can ever be compared with it: a warning naming what is missing. */
    char *gaps = NULL;
    if (receipt && mcpp_receipt_comparability_gaps(&gaps, NULL, receipt) != MCPP_OK)
        gaps = NULL;
    n_warn += gaps != NULL;
    char lane[256] = "";
    if (receipt)
        lane_label(lane, sizeof lane, receipt);
    if (code > t->exit_code)
        t->exit_code = code;
    t->files++;
    t->warnings += n_warn;
    if (status == MCPP_OK)
        t->valid++;
    else
        t->invalid++;

    if (args->json) {
        print_validate_json_entry(name, receipt, report, status, lane, n_warn, gaps, t->files == 1);
    } else if (status == MCPP_OK) {
        /* the report is the product of validate: all of it on stdout, in
         * file order, so it pipes and greps as one stream */
        if (!args->quiet) {
            fputs("ok ", stdout);
            cli_fputs_safe(stdout, name, 0);
            fputs(" (id ", stdout);
            cli_fputs_safe(stdout, mcpp_receipt_id(receipt), 0);
            fputs(", lane ", stdout);
            cli_fputs_safe(stdout, lane, 0);
            fputs(")\n", stdout);
            cli_print_report(stdout, report, status, MCPP_SEVERITY_WARNING, name);
            if (gaps) {
                cli_fputs_safe(stdout, name, 0);
                fputs(": warning: can never be compared under the default policy (every comparison is "
                      "insufficient); not stated: ", stdout);
                cli_fputs_safe(stdout, gaps, 0);
                fputs("\n", stdout);
            }
        }
    } else {
        cli_print_report(stdout, report, status, args->quiet ? MCPP_SEVERITY_ERROR : -1, name);
    }
    free(gaps);
    mcpp_receipt_free(receipt);
    mcpp_report_free(report);
}

int cli_validate(int argc, char **argv)
{
    validate_args args;
    int rc = parse_validate_args(&args, argc, argv);
    if (rc >= 0)
        return rc;
    validate_totals t;
    memset(&t, 0, sizeof t);
    /* a directory stands for its receipt files, as gate and frontier read it */
    cli_path_list files = {0};
    for (int f = 0; f < args.nfiles; f++) {
        int ex = cli_receipt_files(&files, args.files[f]);
        if (ex > t.exit_code)
            t.exit_code = ex;
    }
    free(args.files);
    if (args.json)
        fputs("{\n  \"files\": [", stdout);
    for (size_t f = 0; f < files.n; f++)
        validate_one_file(&args, files.paths[f], &t);
    cli_path_list_free(&files);
    if (args.json) {
        fprintf(stdout, "\n  ],\n  \"valid\": %zu,\n  \"invalid\": %zu,\n  \"warnings\": %zu\n}\n",
                t.valid, t.invalid, t.warnings);
    } else if (!args.quiet) {
        printf("%zu file%s: %zu valid, %zu invalid, %zu warning%s\n", t.files, t.files == 1 ? "" : "s",
               t.valid, t.invalid, t.warnings, t.warnings == 1 ? "" : "s");
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        /* a verdict nobody could read is not a verdict */
        fprintf(stderr, "mcpp-receipts validate: could not write to stdout\n");
        return CLI_EXIT_INTERNAL;
    }
    return t.exit_code;
}

/* ---- show and convert --------------------------------------------------------- */

/* Loads one receipt for show/convert, printing every problem on failure and
 * the warnings on success (to stderr, so stdout stays the document). */
static int load_one(mcpp_receipt **out, const char *path)
{
    mcpp_report *report = NULL;
    const char *name = cli_receipt_display_name(path);
    int status = cli_receipt_load(out, &report, path, NULL);
    cli_print_report(stderr, report, status, -1, name);
    mcpp_report_free(report);
    return status;
}

/* Prints library-made text (freed here), ending it with a newline. */
static int print_owned_text(char *text)
{
    size_t len = strlen(text);
    int failed = fwrite(text, 1, len, stdout) != len;
    if (!failed && len && text[len - 1] != '\n')
        failed = fputc('\n', stdout) == EOF;
    failed |= fflush(stdout) != 0;
    mcpp_free(text);
    if (failed) {
        fprintf(stderr, "mcpp-receipts: could not write to stdout\n");
        return CLI_EXIT_INTERNAL;
    }
    return CLI_EXIT_OK;
}

static int write_canonical(const mcpp_receipt *receipt, mcpp_format format, int schema)
{
    char *text = NULL;
    int status = mcpp_receipt_write_schema(&text, NULL, receipt, format, schema);
    if (status == MCPP_EINVALID) { /* the content does not fit the older schema */
        cli_print_last_error();
        return CLI_EXIT_INVALID;
    }
    if (status != MCPP_OK) {
        cli_print_last_error();
        return CLI_EXIT_INTERNAL; /* a valid receipt that cannot be written is a bug */
    }
    return print_owned_text(text);
}

/* Parses "show"/"convert" arguments: exactly one FILE and one format option.
 * Returns -1 to go on, or the exit code to stop with (after --help, 0). */
static int parse_single(int argc, char **argv, const char *command, const char *usage,
                        const char *help, const char *long_name, const char *short_name,
                        const char **file, const char **format)
{
    int only_files = 0;
    *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int taken;
        if (only_files || !is_option(argv[i])) {
            if (*file)
                return cli_usage_error(command, usage, "unexpected argument '%s' (one FILE only)", argv[i]);
            *file = argv[i];
            continue;
        }
        if (strcmp(argv[i], "--") == 0) {
            only_files = 1;
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return print_help(usage, help);
        taken = take_value_option(argc, argv, &i, long_name, short_name, &value);
        if (taken < 0)
            return cli_usage_error(command, usage, "option '%s' needs a value", argv[i]);
        if (taken > 0) {
            *format = value;
            continue;
        }
        return cli_usage_error(command, usage, "unknown option '%s'", argv[i]);
    }
    if (!*file)
        return cli_usage_error(command, usage, "no FILE given");
    struct stat st;
    if (stat(*file, &st) == 0 && S_ISDIR(st.st_mode)) /* the load said "not a regular file [io]" */
        return cli_usage_error(command, usage,
                               "'%s' is a directory: %s takes one receipt file (validate DIR checks each file in "
                               "it, frontier DIR groups them into lanes)",
                               *file, command);
    if (*format && strcmp(*format, "yml") == 0)
        *format = "yaml"; /* the files' own extension */
    return -1;
}

int cli_show(int argc, char **argv)
{
    const char *file = NULL, *format = "text";
    int rc = parse_single(argc, argv, "show", SHOW_USAGE, SHOW_HELP, "--format", "-f", &file, &format);
    if (rc >= 0)
        return rc;
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0 && strcmp(format, "yaml") != 0)
        return cli_usage_error("show", SHOW_USAGE, "unknown format '%s' (expected text, json or yaml)", format);

    mcpp_receipt *receipt = NULL;
    int status = load_one(&receipt, file);
    if (status != MCPP_OK)
        return cli_exit_for_status(status);
    if (strcmp(format, "text") == 0) {
        char *text = NULL;
        if (mcpp_receipt_render(&text, receipt, MCPP_OUTPUT_TEXT) != MCPP_OK) {
            cli_print_last_error();
            rc = CLI_EXIT_INTERNAL;
        } else {
            rc = print_owned_text(text);
        }
    } else {
        rc = write_canonical(receipt, strcmp(format, "json") == 0 ? MCPP_FORMAT_JSON : MCPP_FORMAT_YAML,
                             2);
    }
    mcpp_receipt_free(receipt);
    return rc;
}

/* Takes "--schema N" / "--schema=N" out of argv (into *schema); -1 when its value is bad. */
static int take_schema_option(int *argc, char **argv, int *schema)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *value = NULL;
        if (strcmp(argv[i], "--schema") == 0 && i + 1 < *argc)
            value = argv[++i];
        else if (strncmp(argv[i], "--schema=", 9) == 0)
            value = argv[i] + 9;
        else if (strcmp(argv[i], "--") == 0) {
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        if (strcmp(value, "1") != 0 && strcmp(value, "2") != 0)
            return -1;
        *schema = value[0] - '0';
    }
    *argc = out;
    return 0;
}

int cli_convert(int argc, char **argv)
{
    const char *file = NULL, *format = NULL;
    int schema = 2;
    if (take_schema_option(&argc, argv, &schema) != 0)
        return cli_usage_error("convert", CONVERT_USAGE, "--schema takes 1 or 2");
    int rc = parse_single(argc, argv, "convert", CONVERT_USAGE, CONVERT_HELP, "--to", "-t", &file, &format);
    if (rc >= 0)
        return rc;
    if (!format)
        return cli_usage_error("convert", CONVERT_USAGE, "--to json|yaml is required");
    if (strcmp(format, "json") != 0 && strcmp(format, "yaml") != 0)
        return cli_usage_error("convert", CONVERT_USAGE, "unknown format '%s' (expected json or yaml)", format);

    mcpp_receipt *receipt = NULL;
    int status = load_one(&receipt, file);
    if (status != MCPP_OK)
        return cli_exit_for_status(status);
    rc = write_canonical(receipt, strcmp(format, "json") == 0 ? MCPP_FORMAT_JSON : MCPP_FORMAT_YAML,
                         schema);
    mcpp_receipt_free(receipt);
    return rc;
}
