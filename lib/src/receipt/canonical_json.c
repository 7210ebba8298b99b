/*
 * canonical_json.c — compact canonical JSON of a cJSON value: members sorted
 * bytewise by key, numbers in the canonical text. Used for free-form values
 * (extra, launch.fixed_policy) when packing and writing receipts.
 */
#include <stdlib.h>
#include <string.h>

#include "receipt/cjson_inline.h"
#include "receipt/canonical_json.h"

static int key_order(const void *x, const void *y)
{
    return strcmp((*(const cJSON *const *)x)->string, (*(const cJSON *const *)y)->string);
}

/* Insertion sort for the small objects receipts have (qsort may allocate);
 * qsort beyond that, so a hostile 10^6-key object stays O(n log n). */
void mcpp_cjson_sort_members(const cJSON **items, size_t n)
{
    if (n > 16) {
        qsort(items, n, sizeof *items, key_order);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        const cJSON *x = items[i];
        size_t j = i;
        while (j > 0 && strcmp(items[j - 1]->string, x->string) > 0) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = x;
    }
}

void mcpp_sb_cjson_compact(mcpp_strbuf *sb, const cJSON *v)
{
    if (mcpp_cj_is_object(v)) {
        size_t n = 0, i = 0;
        for (const cJSON *c = v->child; c; c = c->next)
            n++;
        const cJSON *stack_sorted[16];
        const cJSON **sorted = n <= 16 ? stack_sorted : malloc(n * sizeof *sorted);
        if (!sorted) {
            sb->failed = 1;
            return;
        }
        for (const cJSON *c = v->child; c; c = c->next)
            sorted[i++] = c;
        if (n > 1)
            mcpp_cjson_sort_members(sorted, n);
        mcpp_sb_putc(sb, '{');
        for (i = 0; i < n; i++) {
            if (i)
                mcpp_sb_putc(sb, ',');
            mcpp_sb_json_string(sb, sorted[i]->string);
            mcpp_sb_putc(sb, ':');
            mcpp_sb_cjson_compact(sb, sorted[i]);
        }
        mcpp_sb_putc(sb, '}');
        if (sorted != stack_sorted)
            free(sorted);
    } else if (mcpp_cj_is_array(v)) {
        mcpp_sb_putc(sb, '[');
        for (const cJSON *c = v->child; c; c = c->next) {
            if (c != v->child)
                mcpp_sb_putc(sb, ',');
            mcpp_sb_cjson_compact(sb, c);
        }
        mcpp_sb_putc(sb, ']');
    } else if (mcpp_cj_is_string(v)) {
        mcpp_sb_json_string(sb, v->valuestring);
    } else if (mcpp_cj_is_number(v)) {
        mcpp_sb_double(sb, v->valuedouble);
    } else if (mcpp_cj_is_true(v)) {
        mcpp_sb_puts(sb, "true");
    } else if (cJSON_IsFalse(v)) {
        mcpp_sb_puts(sb, "false");
    } else {
        mcpp_sb_puts(sb, "null");
    }
}
