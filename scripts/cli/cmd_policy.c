/*
 * cmd_policy.c — `mcpp-receipts policy check|test`: lint a Lua policy file, and
 * run it against example receipt pairs with expected verdicts, so a policy
 * change is reviewed together with its tests.
 *
 * The case runner and its file format are the library's (mcpp_policy_test_file
 * in compare.h); this file parses arguments, prints and picks exit codes.
 *
 * Exit codes: 0 every case ok / policy valid, 1 some case failed, 3 invalid
 * policy, case file or receipt.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/policy_lua.h"

#define CASES_SCHEMA "mcpp.policy-cases/1"

static const char POLICY_HELP[] =
    "usage: mcpp-receipts policy check [--strict] [--sample RECEIPT]... [--format text|json] POLICY.lua...\n"
    "       mcpp-receipts policy test POLICY.lua CASES.json...\n\n"
    "check  loads each policy in the sandbox and lints it: unknown keys, dimension\n"
    "       names and field paths, nonsensical thresholds are errors (exit 3);\n"
    "       doubtful settings are warnings (exit 3 with --strict). Custom rules run\n"
    "       on every pair of sample receipts (built-in examples, or --sample) under\n"
    "       the command's policy limits: a rule that fails or hits a limit is exit 3.\n"
    "       --format json: one document {schema, policies: [{path, status, error,\n"
    "       warnings, name, dimensions, required, noise, gate, adjacency_width, rules}],\n"
    "       exit_code}, the same exit code.\n"
    "test   runs the policy on every case (a base and a candidate receipt with the\n"
    "       expected verdict, and optionally row statuses and the gate outcome) and\n"
    "       prints ok/FAIL per case; exit 0 when all pass, 1 when one fails, 3 when\n"
    "       the policy, a case file or a receipt is invalid.\n"
    "Case file format: mcpp_policy_test_file in mcpp_receipts/compare.h (schema \"" CASES_SCHEMA "\").\n";

/* ---- check ------------------------------------------------------------------------ */

/* The gate's metrics, one line each. A metric's direction is the one its
 * receipts state (docs/metrics.md); the policy's applies only to a number
 * field that is no metric. */
static void print_gate(const mcpp_policy *p)
{
    size_t n = mcpp_policy_gate_metric_count(p);
    for (size_t k = 0; k < n; k++) {
        mcpp_gate_settings g = MCPP_GATE_SETTINGS_INIT;
        if (mcpp_policy_gate_metric_at(&g, p, k) != MCPP_OK) continue;
        int is_metric = strcmp(g.metric, "primary") == 0 || !strchr(g.metric, '.') ||
                        strncmp(g.metric, "metrics.", 8) == 0;
        fputs(k ? "              " : "  gate        ", stdout);
        cli_fputs_safe(stdout, g.metric, 0);
        printf(", %s, max_regression %g, confidence %g\n",
               is_metric || g.higher_is_better < 0 ? "direction as its receipts state it"
               : g.higher_is_better            ? "higher is better"
                                               : "lower is better",
               g.max_regression, g.confidence);
    }
    double bound;
    int fails;
    mcpp_policy_inconclusive(p, &bound, &fails);
    if (bound > 0)
        printf("              min_detectable %g", bound);
    else
        printf("              min_detectable twice each allowance (default)");
    printf(", on_inconclusive %s\n", fails ? "fail" : "pass");
}

static void print_dimension_list(const mcpp_policy *p, mcpp_role role)
{
    int first = 1;
    printf("  %-11s", mcpp_role_name(role));
    for (size_t i = 0; i < mcpp_policy_dimension_count(p); i++) {
        if (mcpp_policy_dimension_role(p, i) != (int)role)
            continue;
        fputs(first ? " " : ", ", stdout);
        cli_fputs_safe(stdout, mcpp_policy_dimension_name(p, i), 0);
        first = 0;
    }
    printf("%s\n", first ? " (none)" : "");
}

/* The warnings of one checked policy (without the "PATH: warning: " prefix
 * the text output adds), kept so that text and JSON say the same. */
typedef struct check_warnings {
    char **items;
    size_t n;
} check_warnings;

static void warn(check_warnings *w, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **grown = realloc(w->items, (w->n + 1) * sizeof *grown);
    char *copy = strdup(buf);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            w->items = grown;
        return; /* out of memory: the warning is lost, the check goes on */
    }
    w->items = grown;
    w->items[w->n++] = copy;
}

static void warnings_free(check_warnings *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->items[i]);
    free(w->items);
    w->items = NULL;
    w->n = 0;
}

/* How much a role holds two receipts to: must_match 2, qualify 1, ignore 0. */
static int role_strength(int role)
{
    return role == MCPP_ROLE_MUST_MATCH ? 2 : role == MCPP_ROLE_QUALIFY ? 1 : 0;
}

/* 1 when dimension `dim` of p lists `path`. */
static int dim_has_field(const mcpp_policy *p, size_t dim, const char *path)
{
    for (size_t f = 0; f < mcpp_policy_dimension_field_count(p, dim); f++)
        if (strcmp(mcpp_policy_dimension_field(p, dim, f), path) == 0)
            return 1;
    return 0;
}

/* The fields of dimension `dim` of def, ", "-joined into buf; with `other`,
 * only those its dimension `other_dim` lacks. */
static void join_fields(char *buf, size_t cap, const mcpp_policy *def, size_t dim, const mcpp_policy *other,
                        size_t other_dim)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t f = 0; f < mcpp_policy_dimension_field_count(def, dim); f++) {
        const char *path = mcpp_policy_dimension_field(def, dim, f);
        if (other && dim_has_field(other, other_dim, path))
            continue;
        int n = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", path);
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
    }
}

/* A built-in dimension the policy weakens (a weaker role) or redefines
 * without some of its fields: each is a warning naming what it now allows,
 * because the verdicts it changes look exactly like verdicts of the
 * default (issue 27: `define = { data = { "extra.team" } }` made real and
 * synthetic data match). A stronger role or extra fields are not warned. */
static void lint_builtin_changes(const mcpp_policy *p, check_warnings *w)
{
    mcpp_policy *def = NULL;
    if (mcpp_policy_default(&def) != MCPP_OK)
        return;
    char fields[256];
    for (size_t d = 0; d < mcpp_policy_dimension_count(def); d++) {
        const char *name = mcpp_policy_dimension_name(def, d);
        for (size_t i = 0; i < mcpp_policy_dimension_count(p); i++) {
            if (strcmp(mcpp_policy_dimension_name(p, i), name) != 0)
                continue;
            int was = mcpp_policy_dimension_role(def, d), now = mcpp_policy_dimension_role(p, i);
            if (role_strength(now) < role_strength(was)) {
                join_fields(fields, sizeof fields, def, d, NULL, 0);
                warn(w, "built-in dimension '%s' is weakened from %s to %s: receipts that differ in %s %s", name,
                     mcpp_role_name((mcpp_role)was), mcpp_role_name((mcpp_role)now), fields,
                     now == MCPP_ROLE_IGNORE       ? "are no longer looked at: they compare as comparable and share a lane"
                     : was == MCPP_ROLE_MUST_MATCH ? "now compare (qualified) and share a lane"
                                                   : "are no longer looked at");
            }
            join_fields(fields, sizeof fields, def, d, p, i);
            if (fields[0] && now != MCPP_ROLE_IGNORE)
                warn(w, "built-in dimension '%s' is redefined without %s: receipts that differ only there now %s",
                     name, fields,
                     now == MCPP_ROLE_MUST_MATCH ? "match and share a lane" : "compare without a qualification");
        }
    }
    mcpp_policy_free(def);
}

/* Whether some importer writes `suite` as benchmark.suite: the format's
 * name, but for MLPerf Training ("mlperf-training"). */
static int importer_suite(const char *suite)
{
    if (strcmp(suite, "mlperf-training") == 0) return 1;
    for (int f = 1; mcpp_import_format_name((mcpp_import_format)f); f++)
        if (strcmp(suite, mcpp_import_format_name((mcpp_import_format)f)) == 0 && strcmp(suite, "mlperf") != 0)
            return 1;
    return 0;
}

static void lint_policy(const mcpp_policy *p, check_warnings *w)
{
    size_t n = mcpp_policy_dimension_count(p);
    int must = 0;
    for (size_t i = 0; i < n; i++)
        must += mcpp_policy_dimension_role(p, i) == MCPP_ROLE_MUST_MATCH;
    if (must == 0)
        warn(w, "no must_match dimension: every pair of receipts is comparable");
    for (size_t d = 0; d < mcpp_default_dimension_count(); d++) {
        const char *name = mcpp_default_dimension_name(d);
        int found = 0;
        for (size_t i = 0; i < n; i++)
            if (strcmp(mcpp_policy_dimension_name(p, i), name) == 0)
                found = 1;
        if (!found)
            warn(w, "default dimension '%s' has no role: differences in it are never "
                    "looked at (list it under ignore to say so on purpose)", name);
    }
    lint_builtin_changes(p, w);
    const mcpp_noise_settings *noise = mcpp_policy_noise(p);
    const mcpp_gate_settings *gate = mcpp_policy_gate(p);
    if (noise->min_runs < 2)
        warn(w, "noise.min_runs = %lld: a single run can never show its noise", (long long)noise->min_runs);
    if (gate->max_regression < noise->noise_floor)
        warn(w, "gate.max_regression (%g) is below noise.noise_floor (%g): the gate "
                "would fail on changes the policy calls noise", gate->max_regression, noise->noise_floor);
    if (noise->max_rel_spread > 1.0)
        warn(w, "noise.max_rel_spread = %g allows a p10-p90 spread larger than the median", noise->max_rel_spread);
    if (gate->max_regression > 0.5)
        warn(w, "gate.max_regression = %g lets a candidate lose more than half", gate->max_regression);
    for (size_t k = 0; k < mcpp_policy_suite_noise_count(p); k++) {
        const char *suite = mcpp_policy_suite_noise_at(p, k, NULL, NULL);
        if (!importer_suite(suite))
            warn(w, "noise.suites names '%s', which no importer writes as benchmark.suite (pytest-benchmark, "
                    "google-benchmark, mlperf-training, ...): it applies only to receipts that state it themselves",
                 suite);
    }
}

static void print_policy_text(const mcpp_policy *p, const char *path)
{
    const mcpp_noise_settings *noise = mcpp_policy_noise(p);
    fputs("policy ", stdout);
    cli_fputs_safe(stdout, mcpp_policy_name(p), 0);
    printf(" (%s)\n", path);
    print_dimension_list(p, MCPP_ROLE_MUST_MATCH);
    print_dimension_list(p, MCPP_ROLE_QUALIFY);
    print_dimension_list(p, MCPP_ROLE_IGNORE);
    printf("  required   ");
    for (size_t k = 0; k < mcpp_policy_required_count(p); k++) {
        fputs(k ? ", " : " ", stdout);
        cli_fputs_safe(stdout, mcpp_policy_required_at(p, k), 0);
    }
    printf("%s\n", mcpp_policy_required_count(p) ? "" : " (none)");
    printf("  noise       max_rel_spread %g, min_runs %lld, noise_floor %g, run_to_run %g (df %g, %s)\n",
           noise->max_rel_spread, (long long)noise->min_runs, noise->noise_floor, noise->run_to_run,
           noise->run_to_run_df, mcpp_policy_noise_declared(p) ? "declared" : "library default: not declared");
    for (size_t k = 0; k < mcpp_policy_suite_noise_count(p); k++) {
        double sd, df;
        const char *suite = mcpp_policy_suite_noise_at(p, k, &sd, &df);
        fputs("              suite ", stdout);
        cli_fputs_safe(stdout, suite, 0);
        printf(": run_to_run %g (df %g)\n", sd, df);
    }
    print_gate(p);
    printf("  adjacency   width %d\n", mcpp_policy_adjacency_width(p));
    printf("  rules      ");
    for (size_t k = 0; k < mcpp_policy_rule_count(p); k++) {
        fputs(k ? ", " : " ", stdout);
        cli_fputs_safe(stdout, mcpp_policy_rule_name(p, k), 0);
    }
    printf("%s\n", mcpp_policy_rule_count(p) ? "" : " (none)");
}

/* ---- check --format json: one document, a list with one object per policy file ---- */

/* The shortest of %.15g..%.17g that reads back as x (the CLI runs in the "C"
 * locale: it never calls setlocale); null when x is not finite. */
static void json_number(double x)
{
    if (!isfinite(x)) {
        fputs("null", stdout);
        return;
    }
    char buf[64];
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(buf, sizeof buf, "%.*g", precision, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    fputs(buf, stdout);
}

static void json_dimensions(const mcpp_policy *p, mcpp_role role)
{
    int first = 1;
    printf("\"%s\": [", mcpp_role_name(role));
    for (size_t i = 0; i < mcpp_policy_dimension_count(p); i++) {
        if (mcpp_policy_dimension_role(p, i) != (int)role)
            continue;
        fputs(first ? "" : ", ", stdout);
        cli_fputs_json(stdout, mcpp_policy_dimension_name(p, i));
        first = 0;
    }
    fputs("]", stdout);
}

static void json_policy_body(const mcpp_policy *p)
{
    const mcpp_noise_settings *noise = mcpp_policy_noise(p);
    fputs(", \"name\": ", stdout);
    cli_fputs_json(stdout, mcpp_policy_name(p));
    fputs(", \"dimensions\": {", stdout);
    json_dimensions(p, MCPP_ROLE_MUST_MATCH);
    fputs(", ", stdout);
    json_dimensions(p, MCPP_ROLE_QUALIFY);
    fputs(", ", stdout);
    json_dimensions(p, MCPP_ROLE_IGNORE);
    fputs("}, \"required\": [", stdout);
    for (size_t k = 0; k < mcpp_policy_required_count(p); k++) {
        fputs(k ? ", " : "", stdout);
        cli_fputs_json(stdout, mcpp_policy_required_at(p, k));
    }
    fputs("], \"noise\": {\"max_rel_spread\": ", stdout);
    json_number(noise->max_rel_spread);
    printf(", \"min_runs\": %lld, \"noise_floor\": ", (long long)noise->min_runs);
    json_number(noise->noise_floor);
    fputs(", \"run_to_run\": ", stdout);
    json_number(noise->run_to_run);
    fputs(", \"run_to_run_df\": ", stdout);
    json_number(noise->run_to_run_df);
    printf(", \"run_to_run_source\": \"%s\", \"suites\": {", mcpp_policy_noise_declared(p) ? "policy" : "default");
    for (size_t k = 0; k < mcpp_policy_suite_noise_count(p); k++) {
        double sd, df;
        fputs(k ? ", " : "", stdout);
        cli_fputs_json(stdout, mcpp_policy_suite_noise_at(p, k, &sd, &df));
        fputs(": {\"run_to_run\": ", stdout);
        json_number(sd);
        fputs(", \"run_to_run_df\": ", stdout);
        json_number(df);
        fputs("}", stdout);
    }
    fputs("}}, \"gate\": [", stdout);
    for (size_t k = 0; k < mcpp_policy_gate_metric_count(p); k++) {
        mcpp_gate_settings g = MCPP_GATE_SETTINGS_INIT;
        if (mcpp_policy_gate_metric_at(&g, p, k) != MCPP_OK)
            continue;
        fputs(k ? ", {\"metric\": " : "{\"metric\": ", stdout);
        cli_fputs_json(stdout, g.metric);
        fputs(", \"max_regression\": ", stdout);
        json_number(g.max_regression);
        fputs(", \"confidence\": ", stdout);
        json_number(g.confidence);
        fputs("}", stdout);
    }
    double bound;
    int fails;
    mcpp_policy_inconclusive(p, &bound, &fails);
    fputs("], \"min_detectable\": ", stdout);
    json_number(bound);
    printf(", \"on_inconclusive\": \"%s\"", fails ? "fail" : "pass");
    printf(", \"adjacency_width\": %d, \"rules\": [", mcpp_policy_adjacency_width(p));
    for (size_t k = 0; k < mcpp_policy_rule_count(p); k++) {
        fputs(k ? ", " : "", stdout);
        cli_fputs_json(stdout, mcpp_policy_rule_name(p, k));
    }
    fputs("]", stdout);
}

/* {"path", "status": ok|refused|invalid, "error", "warnings", and the policy's settings when it loaded} */
static void json_result(int index, const char *path, const mcpp_policy *p, const char *status, const char *error,
                        const check_warnings *w)
{
    fputs(index ? ",\n  {\"path\": " : "\n  {\"path\": ", stdout);
    cli_fputs_json(stdout, path);
    printf(", \"status\": \"%s\", \"error\": ", status);
    cli_fputs_json(stdout, error);
    fputs(", \"warnings\": [", stdout);
    for (size_t k = 0; k < w->n; k++) {
        fputs(k ? ", " : "", stdout);
        cli_fputs_json(stdout, w->items[k]);
    }
    fputs("]", stdout);
    if (p)
        json_policy_body(p);
    fputs("}", stdout);
}

/* Checks one policy file: prints its text report, or its JSON object. Returns its exit code. */
static int check_one(const char *path, int strict, int json, int index, char **samples, int n_samples)
{
    check_warnings w = {NULL, 0};
    mcpp_policy *p = NULL;
    if (mcpp_policy_load_lua_file(&p, path, cli_policy_limits()) != MCPP_OK) {
        cli_print_last_error();
        if (json)
            json_result(index, path, NULL, "invalid", mcpp_error_last()->message, &w);
        return CLI_EXIT_INVALID;
    }
    if (!json)
        print_policy_text(p, path);
    mcpp_policy *again = NULL; /* a state of its own: another hash seed, other addresses */
    int ex = CLI_EXIT_OK;
    if (mcpp_policy_rule_count(p) > 0 && mcpp_policy_load_lua_file(&again, path, cli_policy_limits()) != MCPP_OK) {
        cli_print_last_error();
        ex = CLI_EXIT_INVALID;
    }
    if (ex == CLI_EXIT_OK)
        ex = cli_policy_run_samples(p, again, path, samples, n_samples);
    mcpp_policy_free(again);
    const char *error = ex != CLI_EXIT_OK ? mcpp_error_last()->message : NULL;
    const char *defect = ex == CLI_EXIT_OK ? cli_policy_defect(p) : NULL;
    if (defect) {
        /* Not a doubt but a defect: compare, gate and the rest refuse it too. */
        if (!json)
            printf("%s: refused: %s\n", path, defect);
        error = defect;
        ex = CLI_EXIT_INVALID;
    }
    if (ex == CLI_EXIT_OK) {
        lint_policy(p, &w);
        for (size_t k = 0; !json && k < w.n; k++)
            printf("%s: warning: %s\n", path, w.items[k]);
        if (!json)
            printf("%s: %s (%zu warning%s)\n", path, w.n && strict ? "refused" : "ok", w.n, w.n == 1 ? "" : "s");
        if (w.n && strict)
            ex = CLI_EXIT_INVALID;
    }
    if (json)
        json_result(index, path, p, ex == CLI_EXIT_OK ? "ok" : error ? "invalid" : "refused", error, &w);
    warnings_free(&w);
    mcpp_policy_free(p);
    return ex;
}

static int policy_check(int argc, char **argv)
{
    int strict = 0, files = 0, exit_code = CLI_EXIT_OK, n_samples = 0, json = 0;
    char **samples = calloc((size_t)argc, sizeof *samples);
    if (!samples)
        return CLI_EXIT_INTERNAL;
    for (int i = 1; i < argc; i++) {
        const char *format = NULL;
        if (strcmp(argv[i], "--sample") == 0 && i + 1 < argc)
            samples[n_samples++] = argv[++i];
        else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
            format = argv[++i];
        else if (strncmp(argv[i], "--format=", 9) == 0)
            format = argv[i] + 9;
        if (format && strcmp(format, "json") != 0 && strcmp(format, "text") != 0) {
            fprintf(stderr, "mcpp-receipts policy check: unknown --format '%s' (text or json)\n", format);
            free(samples);
            return CLI_EXIT_INVALID;
        }
        if (format)
            json = strcmp(format, "json") == 0;
    }
    if (json)
        fputs("{\"schema\": \"mcpp.policy-check/1\", \"policies\": [", stdout);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--strict") == 0)
            strict = 1;
        else if (strcmp(argv[i], "--sample") == 0 || strcmp(argv[i], "--format") == 0)
            i++;
        else if (strncmp(argv[i], "--format=", 9) != 0) {
            int ex = check_one(argv[i], strict, json, files++, samples, n_samples);
            if (ex != CLI_EXIT_OK)
                exit_code = ex;
        }
    }
    free(samples);
    if (files == 0) {
        if (json)
            fputs("]}\n", stdout);
        return cli_usage_error("policy", POLICY_HELP, "check needs at least one POLICY.lua");
    }
    if (json)
        printf("\n], \"exit_code\": %d}\n", exit_code);
    return exit_code;
}

/* ---- test -------------------------------------------------------------------------- */

/* Runs one case file and prints its report; adds to the counts. Returns the
 * exit code to stop with, or CLI_EXIT_OK to go on. */
static int test_one_file(const mcpp_policy *policy, const char *path, size_t *passed, size_t *failed)
{
    mcpp_policy_test_report *report = NULL;
    char *text = NULL;
    if (mcpp_policy_test_file(&report, policy, path) != MCPP_OK) {
        cli_print_last_error();
        return cli_exit_for_status(mcpp_error_last()->code);
    }
    int rc = mcpp_policy_test_report_render(&text, report, MCPP_OUTPUT_TEXT);
    if (rc == MCPP_OK) {
        fputs(text, stdout);
        *failed += mcpp_policy_test_report_failed_count(report);
        *passed += mcpp_policy_test_report_count(report) - mcpp_policy_test_report_failed_count(report);
    } else {
        cli_print_last_error();
    }
    mcpp_free(text);
    mcpp_policy_test_report_free(report);
    return rc == MCPP_OK ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

static int policy_test(int argc, char **argv)
{
    if (argc < 3)
        return cli_usage_error("policy", POLICY_HELP, "test needs the POLICY.lua and at least one CASES.json");
    mcpp_policy *policy = NULL;
    if (mcpp_policy_load_lua_file(&policy, argv[1], cli_policy_limits()) != MCPP_OK) {
        cli_print_last_error();
        return CLI_EXIT_INVALID;
    }
    size_t passed = 0, failed = 0;
    int exit_code = CLI_EXIT_OK;
    for (int f = 2; f < argc && exit_code == CLI_EXIT_OK; f++)
        exit_code = test_one_file(policy, argv[f], &passed, &failed);
    fputs("policy ", stdout);
    cli_fputs_safe(stdout, mcpp_policy_name(policy), 0);
    printf(": %zu case%s, %zu ok, %zu failed\n", passed + failed, passed + failed == 1 ? "" : "s", passed, failed);
    mcpp_policy_free(policy);
    if (exit_code != CLI_EXIT_OK)
        return exit_code;
    return failed ? CLI_EXIT_REGRESSION : CLI_EXIT_OK;
}

int cli_policy(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("policy", POLICY_HELP, "name a subcommand: check or test");
    if (cli_wants_help(2, argv) ||
        ((strcmp(argv[1], "check") == 0 || strcmp(argv[1], "test") == 0) && cli_wants_help(argc - 1, argv + 1))) {
        fputs(POLICY_HELP, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "check") == 0)
        return policy_check(argc - 1, argv + 1);
    if (strcmp(argv[1], "test") == 0)
        return policy_test(argc - 1, argv + 1);
    return cli_usage_error("policy", POLICY_HELP, "unknown subcommand '%s'", argv[1]);
}
