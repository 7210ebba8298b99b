/*
 * policy_test_file.c — mcpp_policy_test_file(): runs a policy against a file of
 * example receipt pairs with expected verdicts, so that a policy change is
 * reviewed together with its tests. The CLI (`mcpp-receipts policy test`),
 * Python and Lua all call this one runner and print its report.
 *
 * The whole case file is checked before any case runs, so a typo ("expct",
 * "comparble") is an invalid file with its location, never a failing case.
 *
 * It lives in analysis/, not policy/: it runs comparisons (mcpp_compare), and
 * policy/ sits below analysis (docs/ARCHITECTURE.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "analysis/policy_test_internal.h"
#include "mcpp_receipts/compare.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/strbuf.h"

#define CASES_SCHEMA "mcpp.policy-cases/1"
#define MAX_CASE_FILE_BYTES (4 << 20)

static const char *const CASE_KEYS[] = {"name", "base", "cand", "expect", "rows", "gate", "gate_metrics", NULL};
static const char *const FILE_KEYS[] = {"schema", "policy", "cases", NULL};
static const char *const VERDICTS[] = {"comparable", "qualified", "not_comparable", "insufficient", NULL};
static const char *const GATES[] = {"passed", "failed", "undetermined", NULL};
static const char *const METRIC_GATES[] = {"passed", "failed", "undetermined", "skipped", NULL};
static const char *const STATUSES[] = {"match", "qualify", "mismatch", "missing", NULL};

static void case_release(test_case *c)
{
    for (size_t i = 0; i < c->n_rows; i++) {
        free(c->rows[i].name);
        free(c->rows[i].status);
        free(c->rows[i].reason);
    }
    free(c->rows);
    free(c->name);
    free(c->verdict);
    free(c->failures);
}

void mcpp_policy_test_report_free(mcpp_policy_test_report *report)
{
    if (!report)
        return;
    for (size_t i = 0; i < report->count; i++)
        case_release(&report->cases[i]);
    free(report->cases);
    free(report->file);
    free(report->policy);
    free(report);
}

/* ---- reading and checking the case file ---------------------------------------- */

static const char *string_member(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

static int one_of(const char *s, const char *const *names)
{
    for (; s && *names; names++)
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
        if (!m->string)
            return "(unnamed)";
        if (!one_of(m->string, known))
            return m->string;
    }
    return NULL;
}

static cJSON *read_case_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot open the case file");
        return NULL;
    }
    char *buf = malloc(MAX_CASE_FILE_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_CASE_FILE_BYTES + 1, f) : 0;
    fclose(f);
    if (!buf) {
        mcpp_error_nomem();
        return NULL;
    }
    cJSON *root = n <= MAX_CASE_FILE_BYTES ? cJSON_ParseWithLength(buf, n) : NULL;
    free(buf);
    const cJSON *cases = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "cases");
    const char *schema = string_member(root, "schema");
    const char *typo = cJSON_IsObject(root) ? unknown_member(root, FILE_KEYS) : NULL;
    if (!cJSON_IsArray(cases) || (schema && strcmp(schema, CASES_SCHEMA) != 0) || typo) {
        mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_SYNTAX, path, NULL, 0, 0,
                       "not a readable case file (JSON of at most 4 MiB with a \"cases\" array, "
                       "schema \"%s\")", CASES_SCHEMA);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* Checks the shape of one case; MCPP_OK or MCPP_EINVALID with the case named. */
static int check_case(const char *path, const cJSON *c, int number)
{
    const char *name = string_member(c, "name");
    const char *typo = cJSON_IsObject(c) ? unknown_member(c, CASE_KEYS) : NULL;
    if (typo)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_UNKNOWN_FIELD, path, NULL, 0, 0,
                              "case %d %s: unknown member \"%s\" (allowed: name, base, cand, expect, "
                              "rows, gate, gate_metrics)", number, name ? name : "(unnamed case)", typo);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(c, "rows");
    const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(c, "gate_metrics");
    const char *expect = string_member(c, "expect");
    if (!cJSON_IsObject(c) || !string_member(c, "base") || !string_member(c, "cand") || !expect ||
        (rows && !cJSON_IsObject(rows)) || (metrics && !cJSON_IsObject(metrics)))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_MISSING, path, NULL, 0, 0,
                              "case %d %s: needs string members base, cand, expect (and rows and "
                              "gate_metrics as objects when given)", number, name ? name : "(unnamed case)");
    const char *gate = string_member(c, "gate");
    const char *bad = !one_of(expect, VERDICTS)          ? expect
                      : gate && !one_of(gate, GATES)     ? gate
                                                         : NULL;
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        if (!bad && (!cJSON_IsString(row) || !one_of(row->valuestring, STATUSES)))
            bad = cJSON_IsString(row) ? row->valuestring : "(not a string)";
    }
    cJSON_ArrayForEach(row, metrics)
    {
        if (!bad && (!cJSON_IsString(row) || !one_of(row->valuestring, METRIC_GATES)))
            bad = cJSON_IsString(row) ? row->valuestring : "(not a string)";
    }
    if (bad)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_ENUM, path, NULL, 0, 0,
                              "case %d %s: \"%s\" is not a verdict (comparable, qualified, "
                              "not_comparable, insufficient), gate outcome (passed, failed, "
                              "undetermined; skipped for a gate metric) or row status (match, "
                              "qualify, mismatch, missing) "
                              "where it is used", number, name ? name : "(unnamed case)", bad);
    return MCPP_OK;
}

/* Loads `rel`, resolved next to the case file unless absolute. */
static int load_case_receipt(mcpp_receipt **out, const char *case_file, const char *rel)
{
    const char *slash = strrchr(case_file, '/');
    size_t dir = rel[0] == '/' || !slash ? 0 : (size_t)(slash - case_file) + 1;
    char *path = malloc(dir + strlen(rel) + 1);
    if (!path)
        return mcpp_error_nomem();
    memcpy(path, case_file, dir);
    strcpy(path + dir, rel);
    int rc = mcpp_receipt_load_file(out, NULL, path, NULL);
    free(path);
    return rc;
}

/* ---- running one case ---------------------------------------------------------------- */

/* What differs from the expectation, "; "-separated; empty when the case passed. */
static void describe_failures(mcpp_strbuf *why, const cJSON *c, const mcpp_comparison *cmp)
{
    const char *expect = string_member(c, "expect");
    const char *expect_gate = string_member(c, "gate");
    const char *got = mcpp_verdict_name(mcpp_comparison_verdict(cmp));
    if (strcmp(got, expect) != 0)
        mcpp_sb_printf(why, "expected %s, got %s", expect, got);
    const char *gate = mcpp_gate_outcome_name(mcpp_comparison_gate(cmp));
    if (expect_gate && strcmp(gate, expect_gate) != 0) {
        mcpp_sb_printf(why, "%sgate expected %s, got %s (", why->len ? "; " : "", expect_gate, gate);
        mcpp_sb_puts(why, mcpp_comparison_gate_reason(cmp));
        mcpp_sb_putc(why, ')');
    }
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(c, "rows"))
    {
        const char *have = "(no such row)";
        for (size_t i = 0; i < mcpp_comparison_row_count(cmp); i++)
            if (strcmp(mcpp_comparison_row_dimension(cmp, i), row->string) == 0)
                have = mcpp_dim_status_name((mcpp_dim_status)mcpp_comparison_row_status(cmp, i));
        if (strcmp(row->valuestring, have) != 0) {
            mcpp_sb_puts(why, why->len ? "; row " : "row ");
            mcpp_sb_puts(why, row->string);
            mcpp_sb_printf(why, " expected %s, got %s", row->valuestring, have);
        }
    }
    /* each metric of a multi-metric gate, decided as compare and gate decide it */
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(c, "gate_metrics"))
    {
        const char *have = "(no such gate metric)";
        size_t k = 0;
        for (; k < mcpp_comparison_gate_metric_count(cmp); k++)
            if (strcmp(mcpp_comparison_gate_metric_name(cmp, k), row->string) == 0) {
                have = mcpp_comparison_gate_metric_skipped(cmp, k)
                           ? "skipped"
                           : mcpp_gate_outcome_name(mcpp_comparison_gate_metric_outcome(cmp, k));
                break;
            }
        if (strcmp(row->valuestring, have) != 0) {
            mcpp_sb_puts(why, why->len ? "; gate metric " : "gate metric ");
            mcpp_sb_puts(why, row->string);
            mcpp_sb_printf(why, " expected %s, got %s", row->valuestring, have);
            if (k < mcpp_comparison_gate_metric_count(cmp)) {
                mcpp_sb_puts(why, " (");
                mcpp_sb_puts(why, mcpp_comparison_gate_metric_reason(cmp, k));
                mcpp_sb_putc(why, ')');
            }
        }
    }
}

/* Keeps the rows that did not match (the evidence of a failed case). */
static int keep_unmatched_rows(test_case *tc, const mcpp_comparison *cmp)
{
    size_t n = mcpp_comparison_row_count(cmp);
    tc->rows = calloc(n ? n : 1, sizeof *tc->rows);
    if (!tc->rows)
        return mcpp_error_nomem();
    for (size_t i = 0; i < n; i++) {
        int st = mcpp_comparison_row_status(cmp, i);
        if (st == MCPP_DIM_MATCH)
            continue;
        test_row *r = &tc->rows[tc->n_rows++];
        r->name = mcpp_strdup(mcpp_comparison_row_dimension(cmp, i), NULL);
        r->status = mcpp_strdup(mcpp_dim_status_name((mcpp_dim_status)st), NULL);
        r->reason = mcpp_strdup(mcpp_comparison_row_reason(cmp, i), NULL);
        if (!r->name || !r->status || !r->reason)
            return mcpp_error_nomem();
    }
    return MCPP_OK;
}

static int run_case(test_case *tc, const mcpp_policy *policy, const char *path, const cJSON *c)
{
    mcpp_receipt *base = NULL, *cand = NULL;
    mcpp_comparison *cmp = NULL;
    mcpp_strbuf why;
    mcpp_sb_init(&why, NULL, 0);
    int rc = load_case_receipt(&base, path, string_member(c, "base"));
    if (rc == MCPP_OK)
        rc = load_case_receipt(&cand, path, string_member(c, "cand"));
    if (rc == MCPP_OK)
        rc = mcpp_compare(&cmp, policy, base, cand);
    if (rc != MCPP_OK)
        goto done;
    describe_failures(&why, c, cmp);
    tc->passed = why.len == 0;
    tc->verdict = mcpp_strdup(mcpp_verdict_name(mcpp_comparison_verdict(cmp)), NULL);
    if (why.failed || !tc->verdict) {
        rc = mcpp_error_nomem();
        goto done;
    }
    if (!tc->passed) {
        tc->failures = mcpp_strdup(why.data, NULL);
        rc = tc->failures ? keep_unmatched_rows(tc, cmp) : mcpp_error_nomem();
    }
done:
    mcpp_sb_free(&why);
    mcpp_comparison_free(cmp);
    mcpp_receipt_free(base);
    mcpp_receipt_free(cand);
    return rc;
}

static int run_cases(mcpp_policy_test_report *report, const mcpp_policy *policy, const char *path,
                     const cJSON *cases)
{
    int number = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        int rc = check_case(path, c, ++number);
        if (rc != MCPP_OK)
            return rc;
    }
    report->cases = calloc(number ? (size_t)number : 1, sizeof *report->cases);
    if (!report->cases)
        return mcpp_error_nomem();
    cJSON_ArrayForEach(c, cases)
    {
        test_case *tc = &report->cases[report->count++];
        tc->number = (int)report->count;
        const char *name = string_member(c, "name");
        if (name && !(tc->name = mcpp_strdup(name, NULL)))
            return mcpp_error_nomem();
        int rc = run_case(tc, policy, path, c);
        if (rc != MCPP_OK)
            return rc;
        report->failed += !tc->passed;
    }
    return MCPP_OK;
}

int mcpp_policy_test_file(mcpp_policy_test_report **out, const mcpp_policy *policy, const char *path)
{
    if (out)
        *out = NULL;
    if (!out || !policy || !path)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "mcpp_policy_test_file: out, policy and path must not be NULL");
    cJSON *root = read_case_file(path);
    if (!root)
        return mcpp_error_last()->code;
    const cJSON *cases = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "cases");
    mcpp_policy_test_report *report = calloc(1, sizeof *report);
    int rc = report ? MCPP_OK : mcpp_error_nomem();
    if (rc == MCPP_OK && (!(report->file = mcpp_strdup(path, NULL)) ||
                          !(report->policy = mcpp_strdup(mcpp_policy_name(policy), NULL))))
        rc = mcpp_error_nomem();
    if (rc == MCPP_OK)
        rc = run_cases(report, policy, path, cases);
    cJSON_Delete(root);
    if (rc != MCPP_OK) {
        mcpp_policy_test_report_free(report);
        return rc;
    }
    *out = report;
    return MCPP_OK;
}

/* ---- accessors ------------------------------------------------------------------------- */

static const test_case *case_at(const mcpp_policy_test_report *report, size_t index)
{
    return report && index < report->count ? &report->cases[index] : NULL;
}

size_t mcpp_policy_test_report_count(const mcpp_policy_test_report *report)
{
    return report ? report->count : 0;
}

size_t mcpp_policy_test_report_failed_count(const mcpp_policy_test_report *report)
{
    return report ? report->failed : 0;
}

const char *mcpp_policy_test_case_name(const mcpp_policy_test_report *report, size_t index)
{
    const test_case *c = case_at(report, index);
    return c ? c->name : NULL;
}

int mcpp_policy_test_case_passed(const mcpp_policy_test_report *report, size_t index)
{
    const test_case *c = case_at(report, index);
    return c ? c->passed : -1;
}

const char *mcpp_policy_test_case_verdict(const mcpp_policy_test_report *report, size_t index)
{
    const test_case *c = case_at(report, index);
    return c ? c->verdict : NULL;
}

const char *mcpp_policy_test_case_failures(const mcpp_policy_test_report *report, size_t index)
{
    const test_case *c = case_at(report, index);
    return c ? c->failures : NULL;
}
