/*
 * report.c — mcpp_report: every problem found in one input, errors first.
 *
 * Diagnostics are appended as found; readers see errors before warnings
 * (mcpp_report_at maps the index), each group in input order.
 */
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "receipt/load_ctx.h"

struct mcpp_report {
    mcpp_diagnostic *items;
    size_t count, cap;
    size_t errors;
    /* index order: errors first, then warnings, each in insertion order */
    size_t *order;
    int errors_only; /* warnings are dropped: nobody will read them */
};

mcpp_report *mcpp_report_new(void) { return calloc(1, sizeof(mcpp_report)); }

void mcpp_report_errors_only(mcpp_report *report) { report->errors_only = 1; }

int mcpp_report_keeps(const mcpp_report *report, mcpp_severity severity)
{
    return report && (severity == MCPP_SEVERITY_ERROR || !report->errors_only);
}

int mcpp_report_add(mcpp_report *report, mcpp_severity severity, const char *kind,
                    const char *file, const char *field, int line, int column, const char *text)
{
    if (!mcpp_report_keeps(report, severity))
        return 0;
    /* `order` grows in the same steps as `items` (same cap, same need), so one cap serves both */
    size_t order_cap = report->cap;
    if (MCPP_ARRAY_RESERVE(report->order, order_cap, report->count + 1, MCPP_ARRAY_MAX_ITEMS) != 0 ||
        MCPP_ARRAY_RESERVE(report->items, report->cap, report->count + 1, MCPP_ARRAY_MAX_ITEMS) != 0)
        return mcpp_error_nomem();
    char message[1200];
    mcpp_error_format_location(message, sizeof message, file, field, line, column, text);
    mcpp_diagnostic *d = &report->items[report->count];
    d->severity = severity;
    d->kind = mcpp_strdup(kind ? kind : "invalid", NULL);
    d->message = mcpp_strdup(message, NULL);
    d->file = mcpp_strdup(file, NULL);
    d->field = mcpp_strdup(field, NULL);
    d->line = line;
    d->column = column;
    if (!d->kind || !d->message || (file && !d->file) || (field && !d->field)) {
        free((char *)d->kind);
        free((char *)d->message);
        free((char *)d->file);
        free((char *)d->field);
        return mcpp_error_nomem();
    }
    /* keep `order` = errors (insertion order) then warnings (insertion order) */
    size_t pos = report->count;
    if (severity == MCPP_SEVERITY_ERROR) {
        pos = report->errors;
        memmove(report->order + pos + 1, report->order + pos,
                (report->count - pos) * sizeof *report->order);
        report->errors++;
    }
    report->order[pos] = report->count;
    report->count++;
    return 0;
}

size_t mcpp_report_count(const mcpp_report *report) { return report ? report->count : 0; }

size_t mcpp_report_error_count(const mcpp_report *report) { return report ? report->errors : 0; }

const mcpp_diagnostic *mcpp_report_at(const mcpp_report *report, size_t index)
{
    if (!report || index >= report->count)
        return NULL;
    return &report->items[report->order[index]];
}

void mcpp_report_free(mcpp_report *report)
{
    if (!report)
        return;
    for (size_t i = 0; i < report->count; i++) {
        free((char *)report->items[i].kind);
        free((char *)report->items[i].message);
        free((char *)report->items[i].file);
        free((char *)report->items[i].field);
    }
    free(report->items);
    free(report->order);
    free(report);
}

const char *mcpp_report_first_kind(const mcpp_report *report)
{
    const mcpp_diagnostic *d = report && report->errors ? mcpp_report_at(report, 0) : NULL;
    return d ? d->kind : NULL;
}

int mcpp_report_set_last_error(const mcpp_report *report, int code)
{
    const mcpp_diagnostic *d = report && report->errors ? mcpp_report_at(report, 0) : NULL;
    if (!d)
        return mcpp_error_set(code, NULL, NULL, NULL, 0, 0, "%s", mcpp_status_name(code));
    /* The message already carries the location prefix; rebuild it from parts so
     * mcpp_error_last() has the same text. */
    const char *text = d->message;
    char prefix[1200];
    mcpp_error_format_location(prefix, sizeof prefix, d->file, d->field, d->line, d->column, "");
    size_t plen = strlen(prefix);
    if (strncmp(text, prefix, plen) == 0)
        text += plen;
    return mcpp_error_set(code, d->kind, d->file, d->field, d->line, d->column, "%s", text);
}
