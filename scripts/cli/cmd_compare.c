/*
 * cmd_compare.c — `mcpp-receipts compare`, `frontier`, `gate` and `claim`:
 * argument parsing and exit codes; the work and the rendering are the
 * library's (compare.h, frontier.h), shared with the bindings.
 *
 * Exit codes: compare 0 comparable/qualified and no regression established
 * (gate passed or undetermined: the verdict is compare's answer, the gate's
 * undetermined is gate's exit 2), 1 regression beyond the gate, 2 not
 * comparable or insufficient; gate 0/1/2
 * as its outcome; claim 0 supported, 1 contradicted, 2 unsupported or
 * ambiguous (the selector matches more than one lane); frontier
 * 0. Any unreadable input or policy is 3 (the report of what did load is
 * still printed for frontier, gate and claim), internal errors 4.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_store.h"
#include "mcpp_receipts.h"
#include "mcpp_receipts/receipt_set.h"

typedef struct common_opts {
    const char *policy_path;
    const char *store_path; /* --store DB: inputs come from a receipt store */
    const char *metric;     /* --metric NAME: the metric to compare, gate or head lanes with */
    mcpp_output_format format;
    char **rest; /* the arguments no option took; free() it */
    int n_rest;
} common_opts;

/* Parses --policy and --format (also --opt=value); other arguments are left
 * for the command in o->rest (allocated here, freed by the caller even when
 * this fails). Returns 0, or an exit code; a slip (an unknown option, one
 * with no value) is named with the usage lines of `command`'s `help`. */
static int parse_common(int argc, char **argv, common_opts *o, const char *command, const char *help,
                        const char *const *extra_opts, const char **extra_vals)
{
    o->policy_path = NULL;
    o->store_path = NULL;
    o->metric = NULL;
    o->format = MCPP_OUTPUT_TEXT;
    o->n_rest = 0;
    o->rest = calloc((size_t)argc, sizeof *o->rest);
    if (!o->rest)
        return CLI_EXIT_INTERNAL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        const char *name = a;
        char namebuf[64];
        if (strncmp(a, "--", 2) == 0 && strchr(a, '=')) {
            size_t n = (size_t)(strchr(a, '=') - a);
            if (n >= sizeof namebuf) n = sizeof namebuf - 1;
            memcpy(namebuf, a, n);
            namebuf[n] = '\0';
            name = namebuf;
            val = strchr(a, '=') + 1;
        }
        int takes = strcmp(name, "--policy") == 0 || strcmp(name, "--format") == 0 || strcmp(name, "--store") == 0 ||
                    strcmp(name, "--metric") == 0;
        int extra = -1;
        for (int k = 0; extra_opts && extra_opts[k]; k++)
            if (strcmp(name, extra_opts[k]) == 0) extra = k;
        if (takes || extra >= 0) {
            if (!val) {
                if (i + 1 >= argc)
                    return cli_usage_error(command, help, "%s needs a value", name);
                val = argv[++i];
            }
            if (strcmp(name, "--policy") == 0) o->policy_path = val;
            else if (strcmp(name, "--store") == 0) o->store_path = val;
            else if (strcmp(name, "--metric") == 0) o->metric = val;
            else if (strcmp(name, "--format") == 0) {
                if (mcpp_output_format_parse(&o->format, val) != MCPP_OK) {
                    cli_print_last_error();
                    return CLI_EXIT_INVALID;
                }
            } else {
                extra_vals[extra] = val;
            }
            continue;
        }
        if (strncmp(a, "--", 2) == 0)
            return cli_usage_error(command, help, "unknown option '%s'", a);
        o->rest[o->n_rest++] = argv[i];
    }
    return 0;
}

/* 0 when a library call succeeded; otherwise prints its error and returns
 * the exit code for its status. */
static int exit_for(int rc)
{
    if (rc == MCPP_OK) return 0;
    cli_print_last_error();
    return cli_exit_for_status(rc);
}

/* The --policy file (NULL without one: the library's default), gating on
 * --metric alone when it is given. Returns 0 or an exit code. */
static int load_policy(mcpp_policy **out, const common_opts *o)
{
    *out = NULL;
    if (!o->policy_path && !o->metric) return 0;
    if (o->policy_path) {
        int ex = cli_policy_load(out, o->policy_path); /* refuses what `policy check` refuses */
        if (ex) return ex;
    }
    int rc = o->policy_path ? MCPP_OK : mcpp_policy_default(out);
    if (rc == MCPP_OK && o->metric) {
        mcpp_gate_settings g = *mcpp_policy_gate(*out);
        g.metric = o->metric;
        rc = mcpp_policy_set_gate(*out, &g);
    }
    return exit_for(rc);
}

/* 0 when the metric is "primary", a schema path, or stated by some receipt
 * of one of the lists; else prints the library's "did you mean" and returns 3
 * (a misspelt metric is an error, not a report in which nothing has a value).
 * The metric is --metric, else each one a policy file gates on (`policy`;
 * NULL: the default policy, whose metric is "primary"). */
static int metric_stated(const char *metric, const mcpp_policy *policy, const mcpp_receipt *const *const *lists,
                         const size_t *counts, size_t n_lists)
{
    int rc = MCPP_OK;
    for (size_t i = 0; i < n_lists; i++)
        if ((rc = metric || !policy ? mcpp_metric_check_stated(metric, lists[i], counts[i])
                                    : mcpp_policy_check_metrics_stated(policy, lists[i], counts[i])) == MCPP_OK)
            return 0;
    return exit_for(rc);
}

static int print_rendered(int rc, char *text)
{
    int ex = exit_for(rc);
    if (ex) return ex;
    fputs(text, stdout);
    mcpp_free(text);
    return 0;
}

/* Prints a rendered report with the sets' skipped files listed in it. */
static int print_report(int rc, char *text, mcpp_output_format format, const mcpp_receipt_set *const *sets,
                        size_t n_sets)
{
    int ex = exit_for(rc);
    if (ex) return ex;
    cli_print_with_skipped(stdout, text, format, sets, n_sets);
    mcpp_free(text);
    return 0;
}

/* 3 when a named input could not be read, or a file was skipped without
 * --skip-invalid; else 0 (the command's own verdict decides). */
static int inputs_exit(int bad, int skip_invalid, const mcpp_receipt_set *const *sets, size_t n_sets)
{
    if (bad) return CLI_EXIT_INVALID;
    for (size_t s = 0; s < n_sets; s++)
        if (mcpp_receipt_set_failure_count(sets[s]) && !skip_invalid) return CLI_EXIT_INVALID;
    return 0;
}

/* Named inputs that could not be read at all, with the loader's message,
 * for the reports that list them (the gate's). */
typedef struct unread_inputs {
    const char *paths[64];
    char *messages[64];
    int n;
} unread_inputs;

static void unread_free(unread_inputs *u)
{
    for (int i = 0; i < u->n; i++) free(u->messages[i]);
}

/* Loads paths into a set; a named path that cannot be read is counted in
 * *bad (and kept in *u when u is not NULL), files that fail to load stay
 * recorded in the set (and go to stderr). */
static int load_paths(mcpp_receipt_set *set, char **paths, int n, int *bad, unread_inputs *u)
{
    for (int i = 0; i < n; i++) {
        size_t before = mcpp_receipt_set_failure_count(set);
        int rc = mcpp_receipt_set_add_path(set, paths[i], NULL);
        if (rc != MCPP_OK) {
            cli_print_last_error();
            if (rc == MCPP_ENOMEM) return CLI_EXIT_INTERNAL;
            (*bad)++;
            if (u && u->n < 64 && (u->messages[u->n] = strdup(mcpp_error_last()->message)) != NULL)
                u->paths[u->n++] = paths[i];
        }
        for (size_t k = before; k < mcpp_receipt_set_failure_count(set); k++) {
            fputs("mcpp-receipts: skipped ", stderr);
            cli_fputs_safe(stderr, mcpp_receipt_set_failure_message(set, k), 1);
            fputc('\n', stderr); /* counted by inputs_exit, unless --skip-invalid */
        }
    }
    return 0;
}

/* A new set holding the receipts under `paths`; returns 0 or an exit code.
 * With --store the arguments select stored receipts instead (one
 * COLUMN=VALUE,... selection per input, none for all of them). */
static int load_set(mcpp_receipt_set **out, const char *store, char **paths, int n, int *bad, unread_inputs *u)
{
    if (store && n > 1) {
        fputs("mcpp-receipts: with --store give at most one selection (COLUMN=VALUE,...) per input\n", stderr);
        return CLI_EXIT_INVALID;
    }
    if (store) return cli_store_load(out, store, n ? paths[0] : NULL);
    if (mcpp_receipt_set_new(out) != MCPP_OK) return CLI_EXIT_INTERNAL;
    return load_paths(*out, paths, n, bad, u);
}

/* ---- compare ---------------------------------------------------------------------------- */

/* The stored receipt with this id (compare --store DB BASE_ID CAND_ID). */
static int load_stored(mcpp_receipt **out, const char *store, const char *id)
{
    char where[512];
    snprintf(where, sizeof where, "id=%s", id);
    mcpp_receipt_set *set = NULL;
    int ex = cli_store_load(&set, store, where);
    if (!ex && mcpp_receipt_set_count(set) == 0) {
        fputs("mcpp-receipts: ", stderr); /* both as given: escaped, never run as terminal controls */
        cli_fputs_safe(stderr, store, 0);
        fputs(": no stored receipt has id '", stderr);
        cli_fputs_safe(stderr, id, 0);
        fputs("'\n", stderr);
        ex = CLI_EXIT_INVALID;
    }
    if (!ex) ex = exit_for(mcpp_receipt_clone(out, mcpp_receipt_set_at(set, 0)));
    mcpp_receipt_set_free(set);
    return ex;
}

static const char COMPARE_HELP[] =
    "usage: mcpp-receipts compare BASE CAND [--policy P.lua] [--metric M] [--format text|json|markdown]\n"
    "                             [--output FORMAT=FILE]...\n"
    "       mcpp-receipts compare --store DB BASE_ID CAND_ID [...]\n\n"
    "Decides whether CAND is comparable with BASE, dimension by dimension, and\n"
    "compares the policy's headline metric when it is. --metric M compares M instead:\n"
    "a metric name (time_to_train_s, BM_Sort/1024.real_time), \"primary\" (each\n"
    "receipt's headline metric, the default) or a schema path; unit and direction\n"
    "come from the receipts (docs/metrics.md). --output FORMAT=FILE (text, json or\n"
    "markdown; repeatable) also writes that format to FILE atomically (no html: the\n"
    "page is a frontier's; `report BASE CAND` or `gate --output html=FILE` make one).\n\n"
    "exit codes: 0 comparable or qualified, and no regression beyond the gate is\n"
    "established (the gate passed, or it is undetermined: a point comparison the\n"
    "policy refuses, the metric missing on a side, a unit or direction mismatch;\n"
    "the report says which), 1 regression beyond the gate, 2 not comparable or\n"
    "insufficient, 3 invalid input or policy, 4 internal error. `gate` over the\n"
    "same pair exits 2 when undetermined.\n";

static const char *const REPORT_FORMATS[] = {"text", "json", "markdown", NULL};

static int render_comparison(char **out, const char *format, const void *cmp)
{
    mcpp_output_format f = MCPP_OUTPUT_TEXT;
    int rc = mcpp_output_format_parse(&f, format);
    return rc == MCPP_OK ? mcpp_comparison_render(out, cmp, f) : rc;
}

int cli_compare(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(COMPARE_HELP, stdout);
        return CLI_EXIT_OK;
    }
    cli_outputs outs;
    common_opts o = {0};
    int ex = cli_take_outputs(&argc, argv, &outs, REPORT_FORMATS);
    if (!ex)
        ex = parse_common(argc, argv, &o, "compare", COMPARE_HELP, NULL, NULL);
    mcpp_policy *policy = NULL;
    mcpp_receipt *base = NULL, *cand = NULL;
    mcpp_comparison *cmp = NULL;
    if (ex) goto done;
    if (o.n_rest != 2) {
        ex = cli_usage_error("compare", COMPARE_HELP, "%s",
                             o.n_rest < 2 ? "name two receipts, BASE and CAND"
                                          : "more than two receipts named: BASE and CAND");
        goto done;
    }
    if ((ex = load_policy(&policy, &o)) != 0) goto done;
    int rc = MCPP_OK;
    if (o.store_path) {
        if ((ex = load_stored(&base, o.store_path, o.rest[0])) || (ex = load_stored(&cand, o.store_path, o.rest[1])))
            goto done;
    } else {
        rc = mcpp_receipt_load_file(&base, NULL, o.rest[0], NULL);
        if (rc == MCPP_OK) rc = mcpp_receipt_load_file(&cand, NULL, o.rest[1], NULL);
    }
    if ((ex = exit_for(rc)) != 0)
        goto done;
    const mcpp_receipt *pair[2] = {base, cand};
    const mcpp_receipt *const *lists[1] = {pair};
    size_t counts[1] = {2};
    if ((ex = metric_stated(o.metric, policy, lists, counts, 1)) != 0)
        goto done;
    rc = mcpp_compare(&cmp, policy, base, cand);
    if ((ex = exit_for(rc)) != 0) goto done;
    char *text = NULL;
    rc = mcpp_comparison_render(&text, cmp, o.format);
    if ((ex = print_rendered(rc, text)) != 0) goto done;
    if ((ex = cli_write_outputs(&outs, render_comparison, NULL, NULL, cmp)) != 0)
        goto done;
    mcpp_verdict v = mcpp_comparison_verdict(cmp);
    if (v == MCPP_VERDICT_NOT_COMPARABLE || v == MCPP_VERDICT_INSUFFICIENT) ex = CLI_EXIT_NOT_COMPARABLE;
    else if (mcpp_comparison_gate(cmp) == MCPP_GATE_FAILED) ex = CLI_EXIT_REGRESSION;
    else ex = CLI_EXIT_OK;
done:
    mcpp_comparison_free(cmp);
    mcpp_receipt_free(base);
    mcpp_receipt_free(cand);
    mcpp_policy_free(policy);
    free(o.rest);
    return ex;
}

/* ---- frontier --------------------------------------------------------------------------- */

static const char *const FRONTIER_FORMATS[] = {"text", "json", "markdown", "html", NULL};

/* What a frontier --output file is rendered from. */
typedef struct frontier_ctx {
    const mcpp_frontier *f;
    const mcpp_receipt_set *set; /* NULL for the whole store (its lane summaries) */
} frontier_ctx;

/* The page of `mcpp-receipts report`: the receipts per lane, the skipped files. */
static int render_frontier_html(char **out, const frontier_ctx *x)
{
    size_t n_skipped = x->set ? mcpp_receipt_set_failure_count(x->set) : 0;
    const char **skipped = malloc((n_skipped + 1) * sizeof *skipped);
    if (!skipped) return MCPP_ENOMEM;
    for (size_t i = 0; i < n_skipped; i++) skipped[i] = mcpp_receipt_set_failure_message(x->set, i);
    mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
    o.title = "Frontier";
    o.receipts = x->set ? mcpp_receipt_set_items(x->set) : NULL;
    o.n_receipts = x->set ? mcpp_receipt_set_count(x->set) : 0;
    o.skipped = skipped;
    o.n_skipped = n_skipped;
    int rc = mcpp_frontier_render_html(out, x->f, &o);
    free(skipped);
    return rc;
}

/* Text, JSON and markdown are written as they are rendered (a report of 10^5
 * lanes is ~300 MB of JSON, never held whole), the skipped files after them;
 * but a JSON report with skipped files to list inside its object is made
 * whole (render_frontier). */
static int frontier_streams_in(const frontier_ctx *x, mcpp_output_format fmt)
{
    const mcpp_receipt_set *sets[1] = {x->set};
    return !(fmt == MCPP_OUTPUT_JSON && cli_skipped_count(sets, x->set ? 1 : 0));
}

static int frontier_stream_in(const frontier_ctx *x, mcpp_output_format fmt, mcpp_write_fn write, void *wctx)
{
    int rc = mcpp_frontier_render_stream(x->f, fmt, write, wctx);
    if (rc == MCPP_OK && fmt != MCPP_OUTPUT_JSON) {
        char *list = NULL;
        const mcpp_receipt_set *sets[1] = {x->set};
        rc = cli_render_with_skipped(&list, "", fmt, sets, x->set ? 1 : 0);
        if (rc == MCPP_OK && *list && write(wctx, list, strlen(list)) != 0)
            rc = MCPP_EIO;
        free(list);
    }
    return rc;
}

/* The two above for --output FORMAT=FILE (cli_write_outputs). */
static int frontier_streams(const char *format, const void *ctx)
{
    mcpp_output_format fmt;
    return mcpp_output_format_parse(&fmt, format) == MCPP_OK && frontier_streams_in(ctx, fmt);
}

static int stream_frontier(const char *format, const void *ctx, mcpp_write_fn write, void *wctx)
{
    mcpp_output_format fmt = MCPP_OUTPUT_TEXT;
    int rc = mcpp_output_format_parse(&fmt, format);
    return rc == MCPP_OK ? frontier_stream_in(ctx, fmt, write, wctx) : rc;
}

/* A frontier --output file made whole: the report with the skipped files
 * listed in it, as stdout has them. */
static int render_frontier(char **out, const char *format, const void *ctx)
{
    const frontier_ctx *x = ctx;
    if (strcmp(format, "html") == 0) return render_frontier_html(out, x);
    mcpp_output_format fmt = MCPP_OUTPUT_TEXT;
    char *text = NULL;
    int rc = mcpp_output_format_parse(&fmt, format);
    if (rc == MCPP_OK) rc = mcpp_frontier_render(&text, x->f, fmt);
    if (rc == MCPP_OK) rc = cli_render_with_skipped(out, text, fmt, &x->set, x->set ? 1 : 0);
    mcpp_free(text);
    return rc;
}

static const char FRONTIER_HELP[] =
    "usage: mcpp-receipts frontier PATH... [--policy P.lua] [--metric M] [--format text|json|markdown]\n"
    "                              [--output FORMAT=FILE]... [--skip-invalid]\n"
    "       mcpp-receipts frontier --store DB [COLUMN=VALUE,...] [...]\n\n"
    "Groups the receipts under PATH (files, or directories read recursively for\n"
    "*.json, *.yaml, *.yml) into lanes and labels each lane stable or unstable with\n"
    "its reasons, headline number, interval and adjacent lanes. --metric M heads\n"
    "the lanes with M (default: the policy's gate metric, \"primary\"). --output\n"
    "FORMAT=FILE (text, json, markdown or html; repeatable) also writes that format\n"
    "to FILE atomically, with the skipped files listed in it as on stdout (html: the\n"
    "page of `mcpp-receipts report`).\n\n"
    "--skip-invalid decides on the receipts that loaded; every skipped file is\n"
    "listed in the report either way.\n\n"
    "exit codes: 0 report printed, 3 some input or the policy could not be read\n"
    "(the report of the rest is still printed; not for skipped files with\n"
    "--skip-invalid), 4 internal error\n";

int cli_frontier(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(FRONTIER_HELP, stdout);
        return CLI_EXIT_OK;
    }
    int skip = cli_take_skip_invalid(&argc, argv);
    cli_outputs outs;
    common_opts o = {0};
    int bad = 0, ex = cli_take_outputs(&argc, argv, &outs, FRONTIER_FORMATS);
    if (!ex)
        ex = parse_common(argc, argv, &o, "frontier", FRONTIER_HELP, NULL, NULL);
    mcpp_policy *policy = NULL;
    mcpp_receipt_set *set = NULL;
    mcpp_frontier *f = NULL;
    if (ex) goto done;
    if (o.n_rest < 1 && !o.store_path) {
        ex = cli_usage_error("frontier", FRONTIER_HELP, "name the receipts: files or directories, or --store DB");
        goto done;
    }
    if ((ex = load_policy(&policy, &o)) != 0) goto done;
    if (o.store_path && o.n_rest == 0) { /* the whole store: its lane summaries */
        if ((ex = cli_store_frontier(&f, o.store_path, policy)) != 0) goto done;
    } else {
        if ((ex = load_set(&set, o.store_path, o.rest, o.n_rest, &bad, NULL)) != 0) goto done;
        const mcpp_receipt *const *lists[1] = {mcpp_receipt_set_items(set)};
        size_t counts[1] = {mcpp_receipt_set_count(set)};
        if ((ex = metric_stated(o.metric, policy, lists, counts, 1)) != 0)
            goto done;
        int rc = mcpp_frontier_build(&f, policy, mcpp_receipt_set_items(set), mcpp_receipt_set_count(set));
        if ((ex = exit_for(rc)) != 0) goto done;
    }
    const mcpp_receipt_set *sets[1] = {set};
    size_t n_sets = set ? 1 : 0; /* the whole store: no set was loaded */
    frontier_ctx ctx = {f, set};
    if (frontier_streams_in(&ctx, o.format)) {
        ex = exit_for(frontier_stream_in(&ctx, o.format, cli_write_stdout, NULL));
    } else {
        char *text = NULL;
        int rc = mcpp_frontier_render(&text, f, o.format);
        ex = print_report(rc, text, o.format, sets, n_sets);
    }
    if (ex)
        goto done;
    if ((ex = cli_write_outputs(&outs, render_frontier, frontier_streams, stream_frontier, &ctx)) != 0)
        goto done;
    ex = inputs_exit(bad, skip, sets, n_sets);
done:
    mcpp_frontier_free(f);
    mcpp_receipt_set_free(set);
    mcpp_policy_free(policy);
    free(o.rest);
    return ex;
}

/* ---- gate -------------------------------------------------------------------------------- */

static const char GATE_HELP[] =
    "usage: mcpp-receipts gate --baseline PATH --candidate PATH [--policy P.lua] [--metric M]\n"
    "                          [--history DB [--history-runs N]] [--new-lanes pass|fail]\n"
    "                          [--format text|json|markdown] [--output FORMAT=FILE]...\n\n"
    "Pre-merge gate: pairs every candidate receipt with each baseline it is\n"
    "comparable with, pools those baselines' runs, and fails when the candidate's\n"
    "headline metric regresses beyond the policy's max_regression and the regression\n"
    "is established against the run-to-run noise (a policy may gate on several\n"
    "metrics; --metric M gates on M alone). Runs are the unit: each receipt is one\n"
    "run, and the noise comes from the runs on each side, the lane's history\n"
    "(--history DB: the newest N runs of each candidate's lane in that store,\n"
    "default N 20) and the policy's declared noise.run_to_run (default 3%; 5% for\n"
    "pytest-benchmark and Google Benchmark results: noise.suites, `policy check`\n"
    "prints them); every report names the source and the runs it rests on.\n"
    "Candidate runs of one lane pool as one side when they name the same\n"
    "source.git_commit. The tests of one gate share a\n"
    "Benjamini-Hochberg false discovery rate (docs/statistics.md). Each\n"
    "candidate is explained: its lane, the baseline files it was pooled with, every\n"
    "qualification or blocking dimension with both values, and the change in words\n"
    "(\"worse by 3.1%\"; JSON: improvement, positive is better).\n"
    "Both options may be repeated; PATH is a file or a directory (recursive).\n"
    "With --store DB each option is given once and selects stored receipts:\n"
    "COLUMN=VALUE,... on id, tool, git_commit (prefix), name, lane_label, metric.\n\n"
    "--output FORMAT=FILE (repeatable; FORMAT text, json, markdown, junit or html)\n"
    "writes that format of the same report to FILE atomically, besides stdout.\n\n"
    "A candidate whose lane no baseline has (a benchmark the change adds; every\n"
    "candidate of a first run against an empty --baseline directory) is a new lane:\n"
    "reported as new and passing, or undetermined with --new-lanes fail (policy:\n"
    "gate = { new_lanes = \"fail\" }); only while every baseline lane still has a\n"
    "candidate: a lane left without one may have changed into the new one (other\n"
    "settings, another machine), which stays undetermined either way.\n\n"
    "Inputs that cannot be read are listed in every format and make the outcome\n"
    "'error' (exit 3); --skip-invalid gates on the receipts that loaded and still\n"
    "lists every skipped file.\n\n"
    "exit codes: 0 passed, 1 regression beyond the gate, 2 a candidate could not be\n"
    "compared (no comparable baseline, metric missing, a point comparison), 3 invalid\n"
    "input (a skipped file without --skip-invalid) or policy, 4 internal error\n";

static const char *const GATE_FORMATS[] = {"text", "json", "markdown", "junit", "html", NULL};

typedef struct gate_ctx {
    const mcpp_gate_report *report;
    const mcpp_policy *policy;
    const mcpp_receipt_set *sets[2];
} gate_ctx;

/* The HTML report: the gate section (each candidate, its verdict and its
 * baselines), then the baselines' lanes. The candidates are not pooled into
 * those lanes: a regressed candidate would otherwise turn its baseline lane
 * unstable, and the page would blame the baselines for the candidate. */
static int render_gate_html(char **out, const gate_ctx *g)
{
    size_t nb = mcpp_receipt_set_count(g->sets[0]);
    const mcpp_receipt **all = malloc((nb + 1) * sizeof *all);
    if (!all) return MCPP_ENOMEM;
    for (size_t i = 0; i < nb; i++) all[i] = mcpp_receipt_set_at(g->sets[0], i);
    mcpp_frontier *f = NULL;
    int rc = mcpp_frontier_build(&f, g->policy, all, nb);
    if (rc == MCPP_OK) {
        mcpp_html_report_options o = MCPP_HTML_REPORT_OPTIONS_INIT;
        o.title = "Merge gate";
        o.receipts = all;
        o.n_receipts = nb;
        o.gate = g->report;
        rc = mcpp_frontier_render_html(out, f, &o);
    }
    mcpp_frontier_free(f);
    free(all);
    return rc;
}

static int render_gate(char **out, const char *format, const void *ctx)
{
    const gate_ctx *g = ctx;
    if (strcmp(format, "junit") == 0) return mcpp_gate_report_render_junit(out, g->report);
    if (strcmp(format, "html") == 0) return render_gate_html(out, g);
    mcpp_output_format f = MCPP_OUTPUT_TEXT;
    int rc = mcpp_output_format_parse(&f, format);
    return rc == MCPP_OK ? mcpp_gate_report_render(out, g->report, f) : rc;
}

/* Text, JSON and markdown stream to their --output file (the report lists its skipped inputs itself). */
static int gate_streams(const char *format, const void *ctx)
{
    (void)ctx;
    mcpp_output_format fmt;
    return mcpp_output_format_parse(&fmt, format) == MCPP_OK;
}

static int stream_gate(const char *format, const void *ctx, mcpp_write_fn write, void *wctx)
{
    const gate_ctx *g = ctx;
    mcpp_output_format fmt = MCPP_OUTPUT_TEXT;
    int rc = mcpp_output_format_parse(&fmt, format);
    return rc == MCPP_OK ? mcpp_gate_report_render_stream(g->report, fmt, write, wctx) : rc;
}

static int by_id_text(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return strcmp(x ? x : "", y ? y : "");
}

/* `gate --baseline R --candidate R` by mistake: a run is never its own
 * baseline, so each such candidate is undetermined; said once on stderr, not
 * only in every candidate's reason. */
static void warn_if_candidates_are_baselines(const mcpp_receipt_set *bs, const mcpp_receipt_set *cs)
{
    size_t nb = mcpp_receipt_set_count(bs), nc = mcpp_receipt_set_count(cs), own = 0;
    const char **ids = nb ? malloc(nb * sizeof *ids) : NULL;
    if (!ids)
        return; /* none, or no memory for a note */
    for (size_t i = 0; i < nb; i++)
        ids[i] = mcpp_receipt_id(mcpp_receipt_set_at(bs, i));
    qsort(ids, nb, sizeof *ids, by_id_text);
    for (size_t i = 0; i < nc; i++) {
        const char *id = mcpp_receipt_id(mcpp_receipt_set_at(cs, i));
        own += bsearch(&id, ids, nb, sizeof *ids, by_id_text) != NULL;
    }
    free(ids);
    if (own)
        fprintf(stderr,
                "mcpp-receipts gate: %zu of %zu candidates are also among the baselines (the same receipts on both "
                "sides?): a run is never its own baseline\n",
                own, nc);
}

/* Puts the inputs that were not gated into the report itself, so every
 * format lists them; 0 or an exit code. */
static int note_inputs(mcpp_gate_report *report, const unread_inputs *u, const mcpp_receipt_set *const *sets,
                       int skip)
{
    int rc = MCPP_OK;
    for (int i = 0; i < u->n && rc == MCPP_OK; i++)
        rc = mcpp_gate_report_add_input_error(report, u->paths[i], u->messages[i], 0);
    for (size_t s = 0; s < 2; s++)
        for (size_t i = 0; i < mcpp_receipt_set_failure_count(sets[s]) && rc == MCPP_OK; i++)
            rc = mcpp_gate_report_add_input_error(report, mcpp_receipt_set_failure_path(sets[s], i),
                                                  mcpp_receipt_set_failure_message(sets[s], i), skip);
    return exit_for(rc);
}

/* Splits the repeatable --baseline/--candidate from the other arguments. */
static int split_gate_args(int argc, char **argv, char **bpaths, int *nb, char **cpaths, int *nc, char **others,
                           int *no)
{
    others[0] = argv[0];
    for (int i = 1; i < argc; i++) {
        int is_b = strcmp(argv[i], "--baseline") == 0, is_c = strcmp(argv[i], "--candidate") == 0;
        if (is_b || is_c) {
            if (i + 1 >= argc) {
                fprintf(stderr, "mcpp-receipts: %s needs a value\n", argv[i]);
                return CLI_EXIT_INVALID;
            }
            if (is_b) bpaths[(*nb)++] = argv[++i];
            else cpaths[(*nc)++] = argv[++i];
        } else if (strncmp(argv[i], "--baseline=", 11) == 0) {
            bpaths[(*nb)++] = argv[i] + 11;
        } else if (strncmp(argv[i], "--candidate=", 12) == 0) {
            cpaths[(*nc)++] = argv[i] + 12;
        } else {
            others[(*no)++] = argv[i];
        }
    }
    return 0;
}

int cli_gate(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(GATE_HELP, stdout);
        return CLI_EXIT_OK;
    }
    int skip = cli_take_skip_invalid(&argc, argv);
    cli_outputs outs;
    char **bpaths = calloc((size_t)argc, sizeof *bpaths);
    char **cpaths = calloc((size_t)argc, sizeof *cpaths);
    char **others = calloc((size_t)argc + 1, sizeof *others);
    int nb = 0, nc = 0, no = 1, bad = 0, ex = cli_take_outputs(&argc, argv, &outs, GATE_FORMATS);
    mcpp_policy *policy = NULL;
    mcpp_receipt_set *bs = NULL, *cs = NULL, *hs = NULL;
    mcpp_gate_report *report = NULL;
    unread_inputs unread = {{NULL}, {NULL}, 0};
    common_opts o = {0};
    if (!ex && (!bpaths || !cpaths || !others)) ex = CLI_EXIT_INTERNAL;
    if (ex || (ex = split_gate_args(argc, argv, bpaths, &nb, cpaths, &nc, others, &no)) != 0) goto done;
    static const char *const gate_extra[] = {"--history", "--history-runs", "--new-lanes", NULL};
    const char *hist_vals[3] = {NULL, NULL, NULL};
    if ((ex = parse_common(no, others, &o, "gate", GATE_HELP, gate_extra, hist_vals)) != 0)
        goto done;
    long history_runs = 20;
    char *end = NULL;
    if (hist_vals[1]) history_runs = strtol(hist_vals[1], &end, 10);
    if (o.n_rest || !nb || !nc || (hist_vals[1] && (!hist_vals[0] || *end || history_runs < 2))) {
        if (o.n_rest)
            ex = cli_usage_error("gate", GATE_HELP, "'%s': say which side it is, --baseline %s or --candidate %s",
                                 o.rest[0], o.rest[0], o.rest[0]);
        else if (!nb || !nc)
            ex = cli_usage_error("gate", GATE_HELP, "%s PATH is missing: a gate compares candidates with baselines",
                                 !nb ? "--baseline" : "--candidate");
        else if (!hist_vals[0])
            ex = cli_usage_error("gate", GATE_HELP, "--history-runs needs --history DB");
        else
            ex = cli_usage_error("gate", GATE_HELP, "--history-runs '%s' is not a whole number >= 2", hist_vals[1]);
        goto done;
    }
    if (hist_vals[2] && strcmp(hist_vals[2], "pass") != 0 && strcmp(hist_vals[2], "fail") != 0) {
        ex = cli_usage_error("gate", GATE_HELP, "--new-lanes '%s': expected pass or fail", hist_vals[2]);
        goto done;
    }
    if ((ex = load_policy(&policy, &o)) != 0) goto done;
    if (hist_vals[2] && ((!policy && (ex = exit_for(mcpp_policy_default(&policy))) != 0) ||
                         (ex = exit_for(mcpp_policy_set_new_lanes_fail(policy, hist_vals[2][0] == 'f'))) != 0))
        goto done;
    if ((ex = load_set(&bs, o.store_path, bpaths, nb, &bad, &unread)) != 0 ||
        (ex = load_set(&cs, o.store_path, cpaths, nc, &bad, &unread)) != 0)
        goto done;
    warn_if_candidates_are_baselines(bs, cs);
    const mcpp_receipt *const *lists[2] = {mcpp_receipt_set_items(cs), mcpp_receipt_set_items(bs)};
    size_t counts[2] = {mcpp_receipt_set_count(cs), mcpp_receipt_set_count(bs)};
    if ((ex = metric_stated(o.metric, policy, lists, counts, 2)) != 0)
        goto done;
    if (hist_vals[0] && (ex = cli_store_lane_history(&hs, hist_vals[0], mcpp_receipt_set_items(cs),
                                                     mcpp_receipt_set_count(cs), (size_t)history_runs)) != 0)
        goto done;
    int rc = mcpp_gate_run_with_history(&report, policy, mcpp_receipt_set_items(bs), mcpp_receipt_set_count(bs),
                                        mcpp_receipt_set_items(cs), mcpp_receipt_set_count(cs),
                                        mcpp_receipt_set_items(hs), mcpp_receipt_set_count(hs));
    if ((ex = exit_for(rc)) != 0) goto done;
    const mcpp_receipt_set *sets[2] = {bs, cs};
    if ((ex = note_inputs(report, &unread, sets, skip)) != 0) goto done;
    /* printed as it is rendered: the report of 10^5 pairs is ~400 MB of JSON */
    if ((ex = exit_for(mcpp_gate_report_render_stream(report, o.format, cli_write_stdout, NULL))) != 0)
        goto done;
    gate_ctx ctx = {report, policy, {bs, cs}};
    if ((ex = cli_write_outputs(&outs, render_gate, gate_streams, stream_gate, &ctx)) != 0)
        goto done;
    ex = bad ? CLI_EXIT_INVALID : mcpp_gate_report_exit_code(report); /* bad: named in the report */
done:
    mcpp_gate_report_free(report);
    mcpp_receipt_set_free(bs);
    mcpp_receipt_set_free(cs);
    mcpp_receipt_set_free(hs);
    mcpp_policy_free(policy);
    unread_free(&unread);
    free(o.rest);
    free(bpaths);
    free(cpaths);
    free(others);
    return ex;
}

/* ---- claim -------------------------------------------------------------------------------- */

static const char CLAIM_HELP[] =
    "usage: mcpp-receipts claim --lane SELECTOR --value V [--metric M] [--unit U] PATH...\n"
    "                           [--policy P.lua] [--format text|json|markdown]\n"
    "       mcpp-receipts claim --store DB [COLUMN=VALUE,...] --lane SELECTOR --value V [...]\n\n"
    "Checks a quoted number against the receipts under PATH: supported only when a\n"
    "stable lane matching SELECTOR produced V within its interval; otherwise names\n"
    "the lane the number really came from (the benchmark-laundering check).\n"
    "SELECTOR: a lane key, a short key (lane-...), or KEY=VALUE,... with KEY one of\n";
/* then the selector keys (the library's list: claim_help) */
static const char CLAIM_HELP_REST[] =
    "or any schema path.\n"
    "M is a metric name (time_to_train_s, tokens_per_s, ...), \"primary\" or a schema\n"
    "path; default the policy's gate metric (\"primary\"). --unit U states the claim's\n"
    "unit: a lane stating M in another unit refuses the claim (exit 3). A SELECTOR\n"
    "that matches more than one lane is ambiguous: every matching lane is listed.\n\n"
    "--skip-invalid checks against the receipts that loaded; every skipped file is\n"
    "listed in the report either way.\n\n"
    "exit codes: 0 supported, 1 contradicted, 2 unsupported or ambiguous, 3 invalid\n"
    "input (a skipped file without --skip-invalid) or policy, 4 internal error\n";

/* The help, with every selector key the library takes, wrapped at 80 columns. */
static void claim_help(void)
{
    fputs(CLAIM_HELP, stdout);
    size_t col = 0;
    const char *key;
    for (size_t i = 0; (key = mcpp_claim_selector_key(i, NULL)) != NULL; i++) {
        size_t w = strlen(key) + 1;
        if (col && col + w > 80) fputc('\n', stdout), col = 0;
        printf("%s%s", col ? " " : "", key);
        col += col ? w : w - 1;
    }
    fputs(col + 22 > 80 ? ",\n" : ", ", stdout);
    fputs(CLAIM_HELP_REST, stdout);
}

int cli_claim(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        claim_help();
        return CLI_EXIT_OK;
    }
    int skip = cli_take_skip_invalid(&argc, argv);
    static const char *const extra[] = {"--lane", "--unit", "--value", NULL};
    const char *vals[3] = {NULL, NULL, NULL};
    common_opts o;
    int bad = 0, ex = parse_common(argc, argv, &o, "claim", CLAIM_HELP, extra, vals);
    mcpp_policy *policy = NULL;
    mcpp_receipt_set *set = NULL;
    mcpp_claim_result *res = NULL;
    if (ex) goto done;
    char *end = NULL;
    double value = vals[2] ? strtod(vals[2], &end) : 0;
    if (!vals[0] || !vals[2] || (o.n_rest < 1 && !o.store_path) || !end || *end || end == vals[2]) {
        if (!vals[0] || !vals[2])
            ex = cli_usage_error("claim", CLAIM_HELP, "%s is missing: a claim is a value quoted for a lane",
                                 !vals[0] ? "--lane SELECTOR" : "--value V");
        else if (!end || *end || end == vals[2])
            ex = cli_usage_error("claim", CLAIM_HELP, "--value '%s' is not a number", vals[2]);
        else
            ex = cli_usage_error("claim", CLAIM_HELP, "name the receipts: files or directories, or --store DB");
        goto done;
    }
    if ((ex = load_policy(&policy, &o)) != 0) goto done;
    if ((ex = load_set(&set, o.store_path, o.rest, o.n_rest, &bad, NULL)) != 0) goto done;
    int rc = mcpp_claim_check(&res, policy, mcpp_receipt_set_items(set), mcpp_receipt_set_count(set), vals[0], o.metric,
                              value);
    if (rc == MCPP_OK && vals[1]) rc = mcpp_claim_result_check_unit(res, vals[1]); /* refused: exit 3 */
    if ((ex = exit_for(rc)) != 0) goto done;
    char *text = NULL;
    rc = mcpp_claim_result_render(&text, res, o.format);
    const mcpp_receipt_set *sets[1] = {set};
    if ((ex = print_report(rc, text, o.format, sets, 1)) != 0) goto done;
    if ((ex = inputs_exit(bad, skip, sets, 1)) != 0) goto done;
    switch (mcpp_claim_result_verdict(res)) {
    case MCPP_CLAIM_SUPPORTED: ex = CLI_EXIT_OK; break;
    case MCPP_CLAIM_CONTRADICTED: ex = CLI_EXIT_REGRESSION; break;
    default: ex = CLI_EXIT_NOT_COMPARABLE; break;
    }
done:
    mcpp_claim_result_free(res);
    mcpp_receipt_set_free(set);
    mcpp_policy_free(policy);
    free(o.rest);
    return ex;
}
