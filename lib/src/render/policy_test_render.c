/*
 * policy_test_render.c — a policy case report (analysis/policy_test_file.c) as
 * text, markdown (the text in a fence) and JSON, for `policy test`.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/policy_test_internal.h"
#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/escape.h"
#include "util/strbuf.h"

/* One line per case: "ok   N NAME (verdict)" or "FAIL N NAME; what differs",
 * followed for a failure by the rows that did not match. */
static void render_case_text(mcpp_strbuf *sb, const test_case *c)
{
    mcpp_sb_printf(sb, "%s %d ", c->passed ? "ok  " : "FAIL", c->number);
    mcpp_sb_terminal(sb, c->name ? c->name : "(unnamed case)");
    if (c->passed) {
        mcpp_sb_printf(sb, " (%s)\n", c->verdict);
        return;
    }
    mcpp_sb_puts(sb, "; ");
    mcpp_sb_terminal(sb, c->failures);
    mcpp_sb_putc(sb, '\n');
    mcpp_strbuf t;
    mcpp_sb_init(&t, NULL, 0);
    for (size_t i = 0; i < c->n_rows; i++) {
        mcpp_sb_printf(sb, "       %-10s ", mcpp_terminal_scratch(&t, c->rows[i].name, sb));
        mcpp_sb_printf(sb, "%-8s ", c->rows[i].status);
        mcpp_sb_terminal(sb, c->rows[i].reason);
        mcpp_sb_putc(sb, '\n');
    }
    mcpp_sb_free(&t);
}

static void json_key_string(mcpp_strbuf *sb, const char *key, const char *value)
{
    mcpp_sb_printf(sb, "\"%s\":", key);
    if (value)
        mcpp_sb_json_string(sb, value);
    else
        mcpp_sb_puts(sb, "null");
}

/* {name, number, passed, verdict, failures, rows [{name, status, reason}]} */
static void render_case_json(mcpp_strbuf *sb, const test_case *c)
{
    mcpp_sb_putc(sb, '{');
    json_key_string(sb, "name", c->name);
    mcpp_sb_printf(sb, ",\"number\":%d,\"passed\":%s,", c->number, c->passed ? "true" : "false");
    json_key_string(sb, "verdict", c->verdict);
    mcpp_sb_putc(sb, ',');
    json_key_string(sb, "failures", c->failures);
    mcpp_sb_puts(sb, ",\"rows\":[");
    for (size_t i = 0; i < c->n_rows; i++) {
        mcpp_sb_puts(sb, i ? ",{" : "{");
        json_key_string(sb, "name", c->rows[i].name);
        mcpp_sb_putc(sb, ',');
        json_key_string(sb, "status", c->rows[i].status);
        mcpp_sb_putc(sb, ',');
        json_key_string(sb, "reason", c->rows[i].reason);
        mcpp_sb_putc(sb, '}');
    }
    mcpp_sb_puts(sb, "]}");
}

static void render_json(mcpp_strbuf *sb, const mcpp_policy_test_report *report)
{
    mcpp_sb_puts(sb, "{\"schema\":\"" MCPP_POLICY_TEST_REPORT_SCHEMA "\",");
    json_key_string(sb, "file", report->file);
    mcpp_sb_putc(sb, ',');
    json_key_string(sb, "policy", report->policy);
    mcpp_sb_printf(sb, ",\"total\":%zu,\"passed\":%zu,\"failed\":%zu,\"cases\":[", report->count,
                   report->count - report->failed, report->failed);
    for (size_t i = 0; i < report->count; i++) {
        if (i)
            mcpp_sb_putc(sb, ',');
        render_case_json(sb, &report->cases[i]);
    }
    mcpp_sb_puts(sb, "]}\n");
}

int mcpp_policy_test_report_render(char **out, const mcpp_policy_test_report *report, int format)
{
    if (out)
        *out = NULL;
    if (!out || !report)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "mcpp_policy_test_report_render: out and report must not be NULL");
    if (format != MCPP_OUTPUT_TEXT && format != MCPP_OUTPUT_JSON && format != MCPP_OUTPUT_MARKDOWN)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "mcpp_policy_test_report_render: unknown output format %d", format);
    mcpp_strbuf sb;
    mcpp_sb_init(&sb, NULL, 0);
    if (format == MCPP_OUTPUT_JSON) {
        render_json(&sb, report);
    } else {
        for (size_t i = 0; i < report->count; i++)
            render_case_text(&sb, &report->cases[i]);
        if (format == MCPP_OUTPUT_MARKDOWN && mcpp_sb_fence_text(&sb) != MCPP_OK)
            sb.failed = 1;
    }
    if (sb.failed) {
        mcpp_sb_free(&sb);
        return mcpp_error_nomem();
    }
    *out = sb.data ? sb.data : mcpp_strdup("", NULL);
    return *out ? MCPP_OK : mcpp_error_nomem();
}
