/*
 * json_diff_check.h — the differential property of the direct JSON reader
 * (lib/src/io/json_bind_reader.c): loading any bytes through it must give the
 * same result as loading them through cJSON's tree and bind.c. Same status,
 * same report (every diagnostic: severity, kind, message, file, field, line,
 * column), same last error, and for a receipt that loads the same canonical
 * JSON and id. Used by the libFuzzer target fuzz_json_diff.c and by the ctest
 * tests/core/test_core_json_reader.c, which replays seeds and mutations.
 */
#ifndef MCPP_JSON_DIFF_CHECK_H
#define MCPP_JSON_DIFF_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"
#include "io/json_bind_reader.h"

typedef struct json_diff_side {
    int rc;
    mcpp_report *report;
    mcpp_receipt *receipt;
    char error[1200]; /* the last error, flattened */
} json_diff_side;

static void json_diff_load(json_diff_side *side, const uint8_t *data, size_t size,
                           const mcpp_limits *limits, int tree_path)
{
    mcpp_json_reader_disabled = tree_path;
    side->report = NULL;
    side->receipt = NULL;
    side->rc = mcpp_receipt_load_buffer(&side->receipt, &side->report, (const char *)data, size,
                                        MCPP_FORMAT_JSON, "fuzz.json", limits);
    const mcpp_error *e = mcpp_error_last();
    snprintf(side->error, sizeof side->error, "%d|%s|%s|%s|%s|%d|%d", e->code,
             e->kind ? e->kind : "", e->message ? e->message : "", e->file ? e->file : "",
             e->field ? e->field : "", e->line, e->column);
    mcpp_json_reader_disabled = 0;
}

static void json_diff_free(json_diff_side *side)
{
    mcpp_report_free(side->report);
    mcpp_receipt_free(side->receipt);
}

static int json_diff_same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* 0 when the two reports say the same thing; else 1 with the difference in why. */
static int json_diff_reports(const mcpp_report *a, const mcpp_report *b, char *why, size_t cap)
{
    size_t n = mcpp_report_count(a);
    if (n != mcpp_report_count(b)) {
        snprintf(why, cap, "report sizes differ: %zu (reader) vs %zu (tree)", n,
                 mcpp_report_count(b));
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        const mcpp_diagnostic *x = mcpp_report_at(a, i), *y = mcpp_report_at(b, i);
        if (x->severity != y->severity || x->line != y->line || x->column != y->column ||
            !json_diff_same_str(x->kind, y->kind) || !json_diff_same_str(x->message, y->message) ||
            !json_diff_same_str(x->file, y->file) || !json_diff_same_str(x->field, y->field)) {
            snprintf(why, cap, "diagnostic %zu differs:\n  reader: %s %s %d:%d %s\n  tree:   %s %s %d:%d %s",
                     i, x->kind, x->field ? x->field : "-", x->line, x->column, x->message, y->kind,
                     y->field ? y->field : "-", y->line, y->column, y->message);
            return 1;
        }
    }
    return 0;
}

/* 0 when both loaded receipts write the same canonical JSON and id. */
static int json_diff_receipts(const mcpp_receipt *a, const mcpp_receipt *b, char *why, size_t cap)
{
    char *ta = NULL, *tb = NULL;
    size_t la = 0, lb = 0;
    int bad = 0;
    if (mcpp_receipt_write(&ta, &la, a, MCPP_FORMAT_JSON) != MCPP_OK ||
        mcpp_receipt_write(&tb, &lb, b, MCPP_FORMAT_JSON) != MCPP_OK) {
        snprintf(why, cap, "a loaded receipt cannot be written: %s", mcpp_error_last()->message);
        bad = 1;
    } else if (la != lb || memcmp(ta, tb, la) != 0) {
        snprintf(why, cap, "canonical JSON differs:\n--- reader\n%.*s\n--- tree\n%.*s", (int)la, ta,
                 (int)lb, tb);
        bad = 1;
    } else if (strcmp(mcpp_receipt_id(a), mcpp_receipt_id(b)) != 0) {
        snprintf(why, cap, "ids differ: %s vs %s", mcpp_receipt_id(a), mcpp_receipt_id(b));
        bad = 1;
    }
    mcpp_free(ta);
    mcpp_free(tb);
    return bad;
}

/* Loads data both ways: 0 when they agree, else 1 with why. *fell_back (may
 * be NULL) says whether the reader handed the text to the tree path. */
static int json_diff_check(const uint8_t *data, size_t size, const mcpp_limits *limits,
                           int *fell_back, char *why, size_t cap)
{
    json_diff_side reader, tree;
    unsigned long before = mcpp_json_reader_fallbacks;
    json_diff_load(&reader, data, size, limits, 0);
    if (fell_back)
        *fell_back = mcpp_json_reader_fallbacks != before;
    json_diff_load(&tree, data, size, limits, 1);
    int bad = 0;
    if (reader.rc != tree.rc) {
        snprintf(why, cap, "status differs: %d (reader) vs %d (tree): %s", reader.rc, tree.rc,
                 tree.error);
        bad = 1;
    } else if (strcmp(reader.error, tree.error) != 0) {
        snprintf(why, cap, "last error differs:\n  reader: %s\n  tree:   %s", reader.error,
                 tree.error);
        bad = 1;
    } else if ((reader.report != NULL) != (tree.report != NULL)) {
        snprintf(why, cap, "one side has no report");
        bad = 1;
    } else if (reader.report) {
        bad = json_diff_reports(reader.report, tree.report, why, cap);
    }
    if (!bad && reader.rc == MCPP_OK)
        bad = json_diff_receipts(reader.receipt, tree.receipt, why, cap);
    json_diff_free(&reader);
    json_diff_free(&tree);
    return bad;
}

#endif /* MCPP_JSON_DIFF_CHECK_H */
