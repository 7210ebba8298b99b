/*
 * cmd_history.c — `mcpp-receipts history`: a lane's runs over time from a
 * store, with the change points of its metric (store.h has the method).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts.h"

static const char HISTORY_HELP[] =
    "usage: mcpp-receipts history --store DB [--lane SELECTOR] [--metric M]\n"
    "                             [--format text|json|markdown]\n"
    "                             [--penalty P] [--min-change R] [--min-segment N]\n\n"
    "Lists each selected lane's runs in created_at order with their git commits and the\n"
    "metric (default: the default policy's gate metric), and finds change points: the\n"
    "first run after which the metric shifted beyond noise. Method: binary segmentation\n"
    "on ln(value); a split is kept when its squared-error gain over the noise variance\n"
    "(from the MAD of successive differences) exceeds P*ln(n) (default P 6) and the\n"
    "medians on either side differ by at least R (default 0.01); each side needs N runs\n"
    "(default 4; a middle part that differs from both ends, a drop and a recovery, is\n"
    "searched when no single split is kept). Without --lane every lane is listed.\n"
    "exit codes: 0 ok, 3 invalid input or store, 4 internal error\n";

typedef struct history_args {
    const char *db, *lane, *metric, *format, *penalty, *min_change, *min_segment;
} history_args;

static const char **slot_for(history_args *a, const char *name)
{
    if (strcmp(name, "--store") == 0) return &a->db;
    if (strcmp(name, "--lane") == 0) return &a->lane;
    if (strcmp(name, "--metric") == 0) return &a->metric;
    if (strcmp(name, "--format") == 0) return &a->format;
    if (strcmp(name, "--penalty") == 0) return &a->penalty;
    if (strcmp(name, "--min-change") == 0) return &a->min_change;
    if (strcmp(name, "--min-segment") == 0) return &a->min_segment;
    return NULL;
}

/* Parses a non-negative number option into *out; 0 or an exit code. */
static int number_option(double *out, const char *name, const char *text)
{
    if (!text) return 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (!end || *end || end == text || !(v >= 0)) {
        fprintf(stderr, "mcpp-receipts history: %s '%s' is not a non-negative number\n", name, text);
        return CLI_EXIT_INVALID;
    }
    *out = v;
    return 0;
}

static int parse(history_args *a, mcpp_changepoint_settings *cfg, mcpp_output_format *format, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char **slot = slot_for(a, argv[i]);
        if (!slot || i + 1 >= argc) {
            return cli_usage_error("history", HISTORY_HELP, "%s '%s'",
                                   slot ? "a value is needed after" : "unknown argument", argv[i]);
        }
        *slot = argv[++i];
    }
    if (!a->db) {
        return cli_usage_error("history", HISTORY_HELP, "--store DB is required");
    }
    *format = MCPP_OUTPUT_TEXT;
    if (a->format && mcpp_output_format_parse(format, a->format) != MCPP_OK) {
        cli_print_last_error();
        return CLI_EXIT_INVALID;
    }
    mcpp_changepoint_settings_default(cfg);
    double segment = (double)cfg->min_segment;
    int ex = number_option(&cfg->penalty_per_log_n, "--penalty", a->penalty);
    if (!ex) ex = number_option(&cfg->min_rel_change, "--min-change", a->min_change);
    if (!ex) ex = number_option(&segment, "--min-segment", a->min_segment);
    cfg->min_segment = (size_t)segment;
    return ex;
}

int cli_history(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(HISTORY_HELP, stdout);
        return CLI_EXIT_OK;
    }
    history_args a;
    mcpp_changepoint_settings cfg;
    mcpp_output_format format;
    int ex = parse(&a, &cfg, &format, argc, argv);
    if (ex) return ex;
    mcpp_store *store = NULL;
    mcpp_history *history = NULL;
    char *text = NULL;
    int rc = mcpp_store_open(&store, a.db, MCPP_STORE_READ_ONLY);
    if (!rc) rc = mcpp_history_build(&history, store, a.lane, a.metric, &cfg);
    if (!rc) rc = mcpp_history_render(&text, history, format);
    if (rc) {
        cli_print_last_error();
        ex = cli_exit_for_status(rc);
    } else {
        fputs(text, stdout);
    }
    mcpp_free(text);
    mcpp_history_free(history);
    mcpp_store_close(store);
    return ex;
}
