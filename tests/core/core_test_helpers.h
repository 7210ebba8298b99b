/*
 * core_test_helpers.h — small helpers shared by the receipt-core tests:
 * read a file, load text and capture the first diagnostic, write canonically.
 */
#ifndef MCPP_CORE_TEST_HELPERS_H
#define MCPP_CORE_TEST_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"

/* The outcome of loading one text: status, first error (message/kind/field), counts. */
typedef struct load_result {
    int status;
    char message[1024];
    char kind[64];
    char field[256];
    int line, column;
    size_t errors, total;
    char last_error[1024]; /* mcpp_error_last()->message */
} load_result;

static inline char *read_whole_file(const char *path, size_t *len_out)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf) {
        buf[n] = '\0';
        if (len_out)
            *len_out = (size_t)n;
    }
    return buf;
}

static inline load_result load_text_fmt(const char *text, size_t len, mcpp_format format,
                                 const char *name, const mcpp_limits *limits)
{
    load_result res;
    memset(&res, 0, sizeof res);
    mcpp_receipt *r = NULL;
    mcpp_report *report = NULL;
    res.status = mcpp_receipt_load_buffer(&r, &report, text, len, format, name, limits);
    res.errors = mcpp_report_error_count(report);
    res.total = mcpp_report_count(report);
    const mcpp_diagnostic *d = mcpp_report_at(report, 0);
    if (d) {
        snprintf(res.message, sizeof res.message, "%s", d->message);
        snprintf(res.kind, sizeof res.kind, "%s", d->kind);
        snprintf(res.field, sizeof res.field, "%s", d->field ? d->field : "");
        res.line = d->line;
        res.column = d->column;
    }
    snprintf(res.last_error, sizeof res.last_error, "%s", mcpp_error_last()->message);
    mcpp_report_free(report);
    mcpp_receipt_free(r);
    return res;
}

static inline load_result load_json(const char *text)
{
    return load_text_fmt(text, strlen(text), MCPP_FORMAT_JSON, "t.json", NULL);
}

static inline load_result load_yaml(const char *text)
{
    return load_text_fmt(text, strlen(text), MCPP_FORMAT_YAML, "t.yaml", NULL);
}

/* Loads text that must be valid and returns the receipt (NULL on failure, message printed). */
static inline mcpp_receipt *must_load(const char *text, size_t len, mcpp_format format)
{
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_buffer(&r, NULL, text, len, format, "t", NULL) != MCPP_OK) {
        fprintf(stderr, "load failed: %s\n", mcpp_error_last()->message);
        return NULL;
    }
    return r;
}

static inline char *write_text(const mcpp_receipt *r, mcpp_format format)
{
    char *out = NULL;
    if (mcpp_receipt_write(&out, NULL, r, format) != MCPP_OK)
        return NULL;
    return out;
}

#endif /* MCPP_CORE_TEST_HELPERS_H */
