/*
 * cmd_policy.c — `mcpp-receipts policy check|test`: lint a Lua policy file, and
 * run it against example receipt pairs with expected verdicts, so a policy
 * change is reviewed together with its tests.
 *
 * Case files (JSON, schema "mcpp.policy-cases/1"; paths relative to the case
 * file):
 *
 *   { "schema": "mcpp.policy-cases/1",
 *     "policy": "default.lua",                      for readers: the policy they test
 *     "cases": [
 *       { "name": "run 2 of the padded lane is comparable with run 1",
 *         "base": "../../examples/receipts/nam56r_padded.json",
 *         "cand": "../../examples/receipts/nam56r_padded_run2.json",
 *         "expect": "comparable",                   verdict (required)
 *         "rows": { "hardware": "match" },          dimension -> status (optional)
 *         "gate": "passed" } ] }                    gate outcome (optional)
 *
 * Exit codes: 0 every case ok / policy valid, 1 some case failed, 3 invalid
 * policy, case file or receipt (DESIGN §7).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/policy_lua.h"

#define CASES_SCHEMA "mcpp.policy-cases/1"
#define MAX_CASE_FILE_BYTES (4 << 20)

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
            "Case file format: see docs (schema \"" CASES_SCHEMA "\").\n");
}

/* ---- check ------------------------------------------------------------------------ */

static void print_dimension_list(const mcpp_policy *p, mcpp_role role)
{
    int first = 1;
    printf("  %-11s", mcpp_role_name(role));
    for (size_t i = 0; i < mcpp_policy_dimension_count(p); i++) {
        if (mcpp_policy_dimension_role(p, i) != (int)role)
            continue;
        printf("%s%s", first ? " " : ", ", mcpp_policy_dimension_name(p, i));
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
        const mcpp_gate_settings *gate = mcpp_policy_gate(p);
        printf("policy %s (%s)\n", mcpp_policy_name(p), argv[i]);
        print_dimension_list(p, MCPP_ROLE_MUST_MATCH);
        print_dimension_list(p, MCPP_ROLE_QUALIFY);
        print_dimension_list(p, MCPP_ROLE_IGNORE);
        printf("  required   ");
        for (size_t k = 0; k < mcpp_policy_required_count(p); k++)
            printf("%s%s", k ? ", " : " ", mcpp_policy_required_at(p, k));
        printf("%s\n", mcpp_policy_required_count(p) ? "" : " (none)");
        printf("  noise       max_rel_spread %g, min_runs %lld, noise_floor %g\n", noise->max_rel_spread,
               (long long)noise->min_runs, noise->noise_floor);
        printf("  gate        %s, %s is better, max_regression %g, confidence %g\n", gate->metric,
               gate->higher_is_better ? "higher" : "lower", gate->max_regression, gate->confidence);
        printf("  adjacency   width %d\n", mcpp_policy_adjacency_width(p));
        printf("  rules      ");
        for (size_t k = 0; k < mcpp_policy_rule_count(p); k++)
            printf("%s%s", k ? ", " : " ", mcpp_policy_rule_name(p, k));
        printf("%s\n", mcpp_policy_rule_count(p) ? "" : " (none)");
        int ex = cli_policy_run_samples(p, samples, n_samples);
        if (ex != CLI_EXIT_OK) {
            exit_code = ex;
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

static char *read_text_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(MAX_CASE_FILE_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_CASE_FILE_BYTES + 1, f) : 0;
    fclose(f);
    if (!buf || n > MAX_CASE_FILE_BYTES) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* `rel` relative to the directory of `file` (unless absolute). Caller frees. */
static char *resolve_next_to(const char *file, const char *rel)
{
    const char *slash = strrchr(file, '/');
    size_t dir = rel[0] == '/' || !slash ? 0 : (size_t)(slash - file) + 1;
    char *out = malloc(dir + strlen(rel) + 1);
    if (!out)
        return NULL;
    memcpy(out, file, dir);
    strcpy(out + dir, rel);
    return out;
}

static const char *string_member(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

static int one_of(const char *s, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(s, *names) == 0)
            return 1;
    return 0;
}

/* The first member of `obj` not in `known` (a typo such as "expct"), or NULL. */
static const char *unknown_member(const cJSON *obj, const char *const *known)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, obj)
    {
        int ok = 0;
        for (const char *const *k = known; *k; k++)
            if (m->string && strcmp(m->string, *k) == 0)
                ok = 1;
        if (!ok)
            return m->string ? m->string : "(unnamed)";
    }
    return NULL;
}

static int load_case_receipt(mcpp_receipt **out, const char *case_file, const char *rel)
{
    char *path = resolve_next_to(case_file, rel);
    if (!path) {
        fprintf(stderr, "mcpp-receipts: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    int rc = mcpp_receipt_load_file(out, NULL, path, NULL);
    free(path);
    if (rc != MCPP_OK) {
        cli_print_last_error();
        return CLI_EXIT_INVALID;
    }
    return CLI_EXIT_OK;
}

/* Checks one case; returns 1 when it passed, 0 when it failed, or -exit code. */
static int run_case(const mcpp_policy *policy, const char *case_file, const cJSON *c, int number)
{
    const char *name = string_member(c, "name");
    const char *base_rel = string_member(c, "base");
    const char *cand_rel = string_member(c, "cand");
    const char *expect = string_member(c, "expect");
    const char *expect_gate = string_member(c, "gate");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(c, "rows");
    char label[300];
    snprintf(label, sizeof label, "%d %s", number, name ? name : "(unnamed case)");
    static const char *const CASE_KEYS[] = {"name", "base", "cand", "expect", "rows", "gate", NULL};
    const char *typo = cJSON_IsObject(c) ? unknown_member(c, CASE_KEYS) : NULL;
    if (typo) {
        fprintf(stderr, "mcpp-receipts: %s: case %s: unknown member \"%s\" (allowed: name, base, cand, "
                        "expect, rows, gate)\n", case_file, label, typo);
        return -CLI_EXIT_INVALID;
    }
    if (!cJSON_IsObject(c) || !base_rel || !cand_rel || !expect || (rows && !cJSON_IsObject(rows))) {
        fprintf(stderr, "mcpp-receipts: %s: case %s: needs string members base, cand, expect "
                        "(and rows as an object when given)\n", case_file, label);
        return -CLI_EXIT_INVALID;
    }
    static const char *const VERDICTS[] = {"comparable", "qualified", "not_comparable", "insufficient", NULL};
    static const char *const GATES[] = {"passed", "failed", "undetermined", NULL};
    static const char *const STATUSES[] = {"match", "qualify", "mismatch", "missing", NULL};
    const char *bad = NULL;
    if (expect && !one_of(expect, VERDICTS))
        bad = expect;
    else if (expect_gate && !one_of(expect_gate, GATES))
        bad = expect_gate;
    const cJSON *row_item;
    cJSON_ArrayForEach(row_item, rows)
    {
        if (!bad && (!cJSON_IsString(row_item) || !one_of(row_item->valuestring, STATUSES)))
            bad = cJSON_IsString(row_item) ? row_item->valuestring : "(not a string)";
    }
    if (bad) {
        fprintf(stderr, "mcpp-receipts: %s: case %s: \"%s\" is not a verdict (comparable, qualified, "
                        "not_comparable, insufficient), gate outcome (passed, failed, undetermined) or row "
                        "status (match, qualify, mismatch, missing) where it is used\n", case_file, label, bad);
        return -CLI_EXIT_INVALID;
    }
    mcpp_receipt *base = NULL, *cand = NULL;
    mcpp_comparison *cmp = NULL;
    int result = -CLI_EXIT_INVALID;
    int rc = load_case_receipt(&base, case_file, base_rel);
    if (rc == CLI_EXIT_OK)
        rc = load_case_receipt(&cand, case_file, cand_rel);
    if (rc != CLI_EXIT_OK) {
        result = -rc;
        goto cleanup;
    }
    if (mcpp_compare(&cmp, policy, base, cand) != MCPP_OK) {
        printf("FAIL %s: the policy failed while comparing\n", label);
        cli_print_last_error();
        result = -CLI_EXIT_INVALID;
        goto cleanup;
    }
    const char *got = mcpp_verdict_name(mcpp_comparison_verdict(cmp));
    char why[1024] = "";
    size_t used = 0;
    if (strcmp(got, expect) != 0)
        used += (size_t)snprintf(why + used, sizeof why - used, "; expected %s, got %s", expect, got);
    if (expect_gate && used < sizeof why) {
        const char *gate = mcpp_gate_outcome_name(mcpp_comparison_gate(cmp));
        if (strcmp(gate, expect_gate) != 0)
            used += (size_t)snprintf(why + used, sizeof why - used, "; gate expected %s, got %s (%s)",
                                     expect_gate, gate, mcpp_comparison_gate_reason(cmp));
    }
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        if (used >= sizeof why)
            break;
        const char *want = cJSON_IsString(row) ? row->valuestring : "(not a string)";
        const char *have = "(no such row)";
        for (size_t i = 0; i < mcpp_comparison_row_count(cmp); i++)
            if (strcmp(mcpp_comparison_row_dimension(cmp, i), row->string) == 0)
                have = mcpp_dim_status_name((mcpp_dim_status)mcpp_comparison_row_status(cmp, i));
        if (strcmp(want, have) != 0)
            used += (size_t)snprintf(why + used, sizeof why - used, "; row %s expected %s, got %s",
                                     row->string, want, have);
    }
    if (used == 0) {
        printf("ok   %s (%s)\n", label, got);
        result = 1;
    } else {
        printf("FAIL %s%s\n", label, why);
        /* The rows that decided it, so the reviewer sees why without rerunning. */
        for (size_t i = 0; i < mcpp_comparison_row_count(cmp); i++) {
            int st = mcpp_comparison_row_status(cmp, i);
            if (st != MCPP_DIM_MATCH)
                printf("       %-10s %-8s %s\n", mcpp_comparison_row_dimension(cmp, i),
                       mcpp_dim_status_name((mcpp_dim_status)st), mcpp_comparison_row_reason(cmp, i));
        }
        result = 0;
    }
cleanup:
    mcpp_comparison_free(cmp);
    mcpp_receipt_free(base);
    mcpp_receipt_free(cand);
    return result;
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
    int passed = 0, failed = 0, exit_code = CLI_EXIT_OK;
    for (int f = 2; f < argc && exit_code == CLI_EXIT_OK; f++) {
        char *text = read_text_file(argv[f]);
        cJSON *root = text ? cJSON_Parse(text) : NULL;
        free(text);
        const cJSON *cases = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "cases");
        const char *schema = string_member(root, "schema");
        static const char *const FILE_KEYS[] = {"schema", "policy", "cases", NULL};
        const char *typo = cJSON_IsObject(root) ? unknown_member(root, FILE_KEYS) : NULL;
        if (!cJSON_IsArray(cases) || (schema && strcmp(schema, CASES_SCHEMA) != 0) || typo) {
            fprintf(stderr, "mcpp-receipts: %s: not a readable case file (JSON with a \"cases\" array, "
                            "schema \"%s\")\n", argv[f], CASES_SCHEMA);
            exit_code = CLI_EXIT_INVALID;
        }
        int number = 0;
        const cJSON *c;
        if (exit_code == CLI_EXIT_OK) {
            cJSON_ArrayForEach(c, cases)
            {
                int r = run_case(policy, argv[f], c, ++number);
                if (r < 0) {
                    exit_code = -r;
                    break;
                }
                if (r)
                    passed++;
                else
                    failed++;
            }
        }
        cJSON_Delete(root);
    }
    printf("policy %s: %d case%s, %d ok, %d failed\n", mcpp_policy_name(policy), passed + failed,
           passed + failed == 1 ? "" : "s", passed, failed);
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
