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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/policy_lua.h"

#define CASES_SCHEMA "mcpp.policy-cases/1"

static void policy_usage(FILE *to)
{
    fprintf(to,
            "usage: mcpp-receipts policy check [--strict] [--sample RECEIPT]... POLICY.lua...\n"
            "       mcpp-receipts policy test POLICY.lua CASES.json...\n\n"
            "check  loads each policy in the sandbox and lints it: unknown keys, dimension\n"
            "       names and field paths, nonsensical thresholds are errors (exit 3);\n"
            "       doubtful settings are warnings (exit 3 with --strict). Custom rules run\n"
            "       on every pair of sample receipts (built-in examples, or --sample) under\n"
            "       the command's policy limits: a rule that fails or hits a limit is exit 3.\n"
            "test   runs the policy on every case (a base and a candidate receipt with the\n"
            "       expected verdict, and optionally row statuses and the gate outcome) and\n"
            "       prints ok/FAIL per case; exit 0 when all pass, 1 when one fails, 3 when\n"
            "       the policy, a case file or a receipt is invalid.\n"
            "Case file format: mcpp_policy_test_file in mcpp_receipts/compare.h (schema \"" CASES_SCHEMA "\").\n");
}

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

static int lint_policy(const mcpp_policy *p, const char *path)
{
    int warnings = 0;
    size_t n = mcpp_policy_dimension_count(p);
    int must = 0;
    for (size_t i = 0; i < n; i++)
        must += mcpp_policy_dimension_role(p, i) == MCPP_ROLE_MUST_MATCH;
    if (must == 0) {
        printf("%s: warning: no must_match dimension: every pair of receipts is comparable\n", path);
        warnings++;
    }
    for (size_t d = 0; d < mcpp_default_dimension_count(); d++) {
        const char *name = mcpp_default_dimension_name(d);
        int found = 0;
        for (size_t i = 0; i < n; i++)
            if (strcmp(mcpp_policy_dimension_name(p, i), name) == 0)
                found = 1;
        if (!found) {
            printf("%s: warning: default dimension '%s' has no role: differences in it are never "
                   "looked at (list it under ignore to say so on purpose)\n",
                   path, name);
            warnings++;
        }
    }
    const mcpp_noise_settings *noise = mcpp_policy_noise(p);
    const mcpp_gate_settings *gate = mcpp_policy_gate(p);
    if (noise->min_runs < 2) {
        printf("%s: warning: noise.min_runs = %lld: a single run can never show its noise\n", path,
               (long long)noise->min_runs);
        warnings++;
    }
    if (gate->max_regression < noise->noise_floor) {
        printf("%s: warning: gate.max_regression (%g) is below noise.noise_floor (%g): the gate "
               "would fail on changes the policy calls noise\n",
               path, gate->max_regression, noise->noise_floor);
        warnings++;
    }
    if (noise->max_rel_spread > 1.0) {
        printf("%s: warning: noise.max_rel_spread = %g allows a p10-p90 spread larger than the median\n",
               path, noise->max_rel_spread);
        warnings++;
    }
    if (gate->max_regression > 0.5) {
        printf("%s: warning: gate.max_regression = %g lets a candidate lose more than half\n", path,
               gate->max_regression);
        warnings++;
    }
    return warnings;
}

static int policy_check(int argc, char **argv)
{
    int strict = 0, files = 0, exit_code = CLI_EXIT_OK, n_samples = 0;
    char **samples = calloc((size_t)argc, sizeof *samples);
    if (!samples)
        return CLI_EXIT_INTERNAL;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--sample") == 0)
            samples[n_samples++] = argv[++i];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--strict") == 0) {
            strict = 1;
            continue;
        }
        if (strcmp(argv[i], "--sample") == 0) {
            i++;
            continue;
        }
        files++;
        mcpp_policy *p = NULL;
        if (mcpp_policy_load_lua_file(&p, argv[i], cli_policy_limits()) != MCPP_OK) {
            cli_print_last_error();
            exit_code = CLI_EXIT_INVALID;
            continue;
        }
        const mcpp_noise_settings *noise = mcpp_policy_noise(p);
        fputs("policy ", stdout);
        cli_fputs_safe(stdout, mcpp_policy_name(p), 0);
        printf(" (%s)\n", argv[i]);
        print_dimension_list(p, MCPP_ROLE_MUST_MATCH);
        print_dimension_list(p, MCPP_ROLE_QUALIFY);
        print_dimension_list(p, MCPP_ROLE_IGNORE);
        printf("  required   ");
        for (size_t k = 0; k < mcpp_policy_required_count(p); k++) {
            fputs(k ? ", " : " ", stdout);
            cli_fputs_safe(stdout, mcpp_policy_required_at(p, k), 0);
        }
        printf("%s\n", mcpp_policy_required_count(p) ? "" : " (none)");
        printf("  noise       max_rel_spread %g, min_runs %lld, noise_floor %g\n", noise->max_rel_spread,
               (long long)noise->min_runs, noise->noise_floor);
        print_gate(p);
        printf("  adjacency   width %d\n", mcpp_policy_adjacency_width(p));
        printf("  rules      ");
        for (size_t k = 0; k < mcpp_policy_rule_count(p); k++) {
            fputs(k ? ", " : " ", stdout);
            cli_fputs_safe(stdout, mcpp_policy_rule_name(p, k), 0);
        }
        printf("%s\n", mcpp_policy_rule_count(p) ? "" : " (none)");
        int ex = cli_policy_run_samples(p, samples, n_samples);
        if (ex != CLI_EXIT_OK) {
            exit_code = ex;
            mcpp_policy_free(p);
            continue;
        }
        if (mcpp_policy_dimension_count(p) == 0) {
            /* Not a doubt but a defect: every receipt would pool into one lane. */
            printf("%s: refused: the policy declares no dimensions at all, so every receipt would be "
                   "comparable with every other and pool into one lane (include default.lua, or list "
                   "the dimensions under must_match / qualify / ignore)\n", argv[i]);
            exit_code = CLI_EXIT_INVALID;
            mcpp_policy_free(p);
            continue;
        }
        int warnings = lint_policy(p, argv[i]);
        printf("%s: %s (%d warning%s)\n", argv[i], warnings && strict ? "refused" : "ok", warnings,
               warnings == 1 ? "" : "s");
        if (warnings && strict)
            exit_code = CLI_EXIT_INVALID;
        mcpp_policy_free(p);
    }
    free(samples);
    if (files == 0) {
        policy_usage(stderr);
        return CLI_EXIT_INVALID;
    }
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
    if (argc < 3) {
        policy_usage(stderr);
        return CLI_EXIT_INVALID;
    }
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
    if (argc < 2 || cli_wants_help(2, argv)) {
        policy_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_INVALID : CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "check") == 0)
        return cli_wants_help(argc - 1, argv + 1) ? (policy_usage(stdout), CLI_EXIT_OK)
                                                  : policy_check(argc - 1, argv + 1);
    if (strcmp(argv[1], "test") == 0)
        return cli_wants_help(argc - 1, argv + 1) ? (policy_usage(stdout), CLI_EXIT_OK)
                                                  : policy_test(argc - 1, argv + 1);
    fprintf(stderr, "mcpp-receipts policy: unknown subcommand '%s'\n", argv[1]);
    policy_usage(stderr);
    return CLI_EXIT_INVALID;
}
