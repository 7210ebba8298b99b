/*
 * cmd_import.c — `mcpp-receipts import FORMAT INPUT... --out DIR`: other
 * tools' results as receipt files, all or nothing. The formats and their
 * one-line summaries come from the library's importer registry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts.h"

static const char IMPORT_USAGE[] = "usage: mcpp-receipts import FORMAT INPUT... --out DIR [--commit SHA] [--quiet]\n";
static const char IMPORT_HELP_HEAD[] =
    "\n"
    "Turns benchmark results of other tools into receipts (schema " MCPP_SCHEMA_ID "),\n"
    "one file per run, named <id>.json, each written atomically.\n"
    "\n"
    "formats (docs/import.md has each one's field mapping):\n";
static const char IMPORT_HELP[] =
    "\n"
    "options:\n"
    "  --out DIR   directory the receipts go to (created with its parents when absent)\n"
    "  --commit SHA\n"
    "              the commit the inputs measured (git rev-parse HEAD), recorded as\n"
    "              source.git_commit: a gate pools a side's runs of one commit, and judges\n"
    "              runs that name none one by one. Google Benchmark, hyperfine, pyperf,\n"
    "              go test and MLPerf results never name it; an input naming another\n"
    "              commit is refused\n"
    "  -q, --quiet print nothing on success\n"
    "\n"
    "The same inputs give the same ids and bytes, so importing again is harmless.\n"
    "A malformed input (truncated log, missing run_stop, JSON of another tool,\n"
    "absent system file) is reported as FILE:LINE:COL and nothing is written.\n"
    "A receipt or directory that cannot be written (a full disk, an --out under a\n"
    "file) is exit 4 and also leaves --out as it was.\n"
    "exit codes: 0 imported, 3 invalid input or usage, 4 the output could not be\n"
    "written, or an internal error\n";

/* One line per registered format: "  NAME  SUMMARY". */
static void print_formats(void)
{
    for (int f = 1; mcpp_import_format_name((mcpp_import_format)f); f++)
        printf("  %-17s %s\n", mcpp_import_format_name((mcpp_import_format)f),
               mcpp_import_format_summary((mcpp_import_format)f));
}

static void print_written(const char *path, void *ctx)
{
    (void)ctx;
    printf("%s\n", path);
}

/* The length of `prefix` when `path` is it or lies under it (whole path
 * components; trailing slashes of the prefix ignored); 0 otherwise. */
static size_t path_under(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    while (n > 1 && prefix[n - 1] == '/')
        n--;
    if (n == 0 || strncmp(path, prefix, n) != 0)
        return 0;
    return path[n] == '\0' || path[n] == '/' || prefix[n - 1] == '/' ? n : 0;
}

/* 1 when the import failed writing its output rather than reading an input.
 * Both are MCPP_EIO; the library names the file of either, and the output's
 * files are the directory, those in it and the parents it makes (`mkdir -p`).
 * An input inside the output directory, or one holding it, is still an input
 * when it names the failure as closely. */
static int failed_writing(const char *out_dir, const char *const *inputs, size_t n)
{
    const mcpp_error *e = mcpp_error_last();
    if (e->code != MCPP_EIO || !e->file)
        return 0;
    size_t out = path_under(e->file, out_dir);
    if (!out && path_under(out_dir, e->file)) /* a parent that could not be made */
        out = strlen(e->file);
    for (size_t i = 0; out && i < n; i++)
        if (path_under(e->file, inputs[i]) >= out)
            return 0;
    return out > 0;
}

/* Imports straight into the directory: each receipt is written as it is made
 * (memory follows one benchmark of the input, not all of it); all or nothing. */
static int run_import(mcpp_import_format format, const char *const *inputs, size_t n,
                      const char *out_dir, const char *commit, int quiet)
{
    size_t written = 0;
    int rc = mcpp_import_files_to_dir_at_commit(&written, format, inputs, n, out_dir, commit,
                                                quiet ? NULL : print_written, NULL);
    if (rc != MCPP_OK) {
        int writing = failed_writing(out_dir, inputs, n);
        cli_print_last_error();
        fputs(writing ? "mcpp-receipts import: could not write the receipts to "
                      : "mcpp-receipts import: nothing was written to ",
              stderr);
        cli_fputs_safe(stderr, out_dir, 0);
        fputs(writing ? " (nothing was written)\n" : "\n", stderr);
        return writing ? cli_exit_for_write(rc) : cli_exit_for_status(rc);
    }
    if (!quiet)
        printf("imported %zu receipt%s (%s) into %s\n", written, written == 1 ? "" : "s",
               mcpp_import_format_name(format), out_dir);
    return CLI_EXIT_OK;
}

int cli_import(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("%s%s", IMPORT_USAGE, IMPORT_HELP_HEAD);
        print_formats();
        printf("%s", IMPORT_HELP);
        return CLI_EXIT_OK;
    }
    const char **inputs = calloc((size_t)argc, sizeof *inputs);
    if (!inputs)
        return CLI_EXIT_INTERNAL;
    const char *format_name = NULL, *out_dir = NULL, *commit = NULL;
    size_t n = 0;
    int quiet = 0, rc = -1;
    for (int i = 1; i < argc && rc < 0; i++) {
        if (strcmp(argv[i], "--out") == 0 || strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                rc = cli_usage_error("import", IMPORT_USAGE, "--out needs a directory");
            else
                out_dir = argv[++i];
        } else if (strncmp(argv[i], "--out=", 6) == 0) {
            out_dir = argv[i] + 6;
        } else if (strcmp(argv[i], "--commit") == 0) {
            if (i + 1 >= argc || !*argv[i + 1])
                rc = cli_usage_error("import", IMPORT_USAGE, "--commit needs a commit (git rev-parse HEAD)");
            else
                commit = argv[++i];
        } else if (strncmp(argv[i], "--commit=", 9) == 0) {
            commit = argv[i] + 9;
            if (!*commit)
                rc = cli_usage_error("import", IMPORT_USAGE, "--commit needs a commit (git rev-parse HEAD)");
        } else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            rc = cli_usage_error("import", IMPORT_USAGE, "unknown option '%s'", argv[i]);
        } else if (!format_name) {
            format_name = argv[i];
        } else {
            inputs[n++] = argv[i];
        }
    }
    mcpp_import_format format = MCPP_IMPORT_MLPERF;
    if (rc < 0 && !format_name)
        rc = cli_usage_error("import", IMPORT_USAGE, "name a FORMAT (mcpp-receipts import --help lists them)");
    else if (rc < 0 && mcpp_import_format_from_name(&format, format_name) != MCPP_OK)
        rc = cli_usage_error("import", IMPORT_USAGE, "%s", mcpp_error_last()->message);
    else if (rc < 0 && n == 0)
        rc = cli_usage_error("import", IMPORT_USAGE, "name at least one INPUT");
    else if (rc < 0 && !out_dir)
        rc = cli_usage_error("import", IMPORT_USAGE, "--out DIR is required");
    if (rc < 0)
        rc = run_import(format, inputs, n, out_dir, commit, quiet);
    free(inputs);
    return rc;
}
