/*
 * example_variants.h — receipts made from the shipped examples by text
 * substitutions, so a case states exactly what differs; and one-row checks
 * of a comparison. Shared by the comparability tests (test_comparability_v2.c,
 * test_comparability_audit.c). MCPP_EXAMPLES_DIR is examples/receipts.
 */
#ifndef MCPP_EXAMPLE_VARIANTS_H
#define MCPP_EXAMPLE_VARIANTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test_util.h"
#include "mcpp_receipts.h"

static inline char *read_text(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MCPP_EXAMPLES_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        abort();
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) abort();
    text[n] = '\0';
    fclose(f);
    return text;
}

/* Replaces the first `from` with `to`; aborts when absent (a case must say
 * what it changes). */
static inline char *replace(char *text, const char *from, const char *to)
{
    char *at = strstr(text, from);
    if (!at) {
        fprintf(stderr, "pattern not found: %s\n", from);
        abort();
    }
    size_t pre = (size_t)(at - text), fl = strlen(from), tl = strlen(to), total = strlen(text);
    char *out = malloc(total - fl + tl + 1);
    if (!out) abort();
    memcpy(out, text, pre);
    memcpy(out + pre, to, tl);
    memcpy(out + pre + tl, at + fl, total - pre - fl + 1);
    free(text);
    return out;
}

/* Example `name` with the id made unique and up to two substitutions. */
static inline mcpp_receipt *variant(const char *name, const char *id, const char *from1, const char *to1,
                                    const char *from2, const char *to2)
{
    char *text = read_text(name);
    char *id_at = strstr(text, "\"id\": \"");
    char *id_end = id_at ? strchr(id_at + 7, '"') : NULL;
    if (!id_end) abort();
    char old_id[160];
    snprintf(old_id, sizeof old_id, "%.*s", (int)(id_end - id_at + 1), id_at);
    char new_id[160];
    snprintf(new_id, sizeof new_id, "\"id\": \"%s\"", id);
    text = replace(text, old_id, new_id);
    if (from1) text = replace(text, from1, to1);
    if (from2) text = replace(text, from2, to2);
    mcpp_receipt *r = NULL;
    if (mcpp_receipt_load_buffer(&r, NULL, text, strlen(text), MCPP_FORMAT_JSON, name, NULL) != MCPP_OK) {
        fprintf(stderr, "variant does not load: %s\n", mcpp_error_last()->message);
        abort();
    }
    free(text);
    return r;
}

static inline size_t row_of(const mcpp_comparison *c, const char *dim)
{
    for (size_t i = 0; i < mcpp_comparison_row_count(c); i++)
        if (strcmp(mcpp_comparison_row_dimension(c, i), dim) == 0) return i;
    return (size_t)-1;
}

/* Compares a and b (freeing both) and checks the verdict and one row. */
static inline void expect(mcpp_receipt *a, mcpp_receipt *b, mcpp_verdict verdict, const char *dim,
                          mcpp_dim_status status, const char *reason_part)
{
    mcpp_comparison *c = NULL;
    CHECK_INT_EQ(mcpp_compare(&c, NULL, a, b), MCPP_OK);
    mcpp_verdict quick;
    CHECK_INT_EQ(mcpp_compare_verdict(&quick, NULL, a, b), MCPP_OK);
    if (c) {
        CHECK_STR_EQ(mcpp_verdict_name(mcpp_comparison_verdict(c)), mcpp_verdict_name(verdict));
        CHECK_INT_EQ((int)quick, (int)mcpp_comparison_verdict(c));
        size_t r = row_of(c, dim);
        CHECK(r != (size_t)-1);
        if (r != (size_t)-1) {
            CHECK_STR_EQ(mcpp_dim_status_name(mcpp_comparison_row_status(c, r)), mcpp_dim_status_name(status));
            if (reason_part) CHECK_CONTAINS(mcpp_comparison_row_reason(c, r), reason_part);
        }
    }
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
}

#endif /* MCPP_EXAMPLE_VARIANTS_H */
