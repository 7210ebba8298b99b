/*
 * store_export.c — the one-line canonical JSON the store keeps (the writer's
 * JSON with its line breaks and indentation folded away), and exporting
 * selected receipts as a JSON array, JSON lines or YAML documents.
 */
#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"
#include "util/strbuf.h"
#include "store/store_internal.h"

/* JSON strings cannot hold a raw newline, so every "\n" plus the indentation
 * after it lies between tokens and can go. Folds in place; returns the length. */
size_t mcpp_store_fold_json(char *text, size_t len)
{
    size_t w = 0;
    for (size_t r = 0; r < len; r++) {
        if (text[r] == '\n') {
            while (r + 1 < len && text[r + 1] == ' ') r++;
            continue;
        }
        text[w++] = text[r];
    }
    text[w] = '\0';
    return w;
}

static int append_receipt(mcpp_strbuf *b, const mcpp_receipt *r, const char *format, size_t index)
{
    int yaml = strcmp(format, "yaml") == 0;
    char *text = NULL;
    size_t len = 0;
    int rc = mcpp_receipt_write(&text, &len, r, yaml ? MCPP_FORMAT_YAML : MCPP_FORMAT_JSON);
    if (rc) return rc;
    if (yaml) {
        mcpp_sb_puts(b, "---\n");
        mcpp_sb_put(b, text, len);
    } else if (strcmp(format, "jsonl") == 0) {
        len = mcpp_store_fold_json(text, len);
        mcpp_sb_put(b, text, len);
        mcpp_sb_putc(b, '\n');
    } else {
        mcpp_sb_puts(b, index ? ",\n" : "\n");
        while (len && text[len - 1] == '\n') len--;
        mcpp_sb_put(b, text, len);
    }
    mcpp_free(text);
    return MCPP_OK;
}

typedef struct export_state {
    mcpp_strbuf *b;
    const char *format;
    size_t index;
} export_state;

static int export_one(void *ctx, mcpp_receipt *r)
{
    export_state *e = ctx;
    int rc = append_receipt(e->b, r, e->format, e->index++);
    mcpp_receipt_free(r);
    return rc;
}

/* Export reads the stored bodies only, never the images (which are a cache
 * of them that `store check` verifies): what goes out is the receipts' truth,
 * parsed and written again by this library. */
int mcpp_store_export(char **out, mcpp_store *store, const mcpp_store_query *query, const char *format)
{
    if (!out || !store || !format)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0, "mcpp_store_export: NULL argument");
    *out = NULL;
    int array = strcmp(format, "json") == 0;
    if (!array && strcmp(format, "jsonl") != 0 && strcmp(format, "yaml") != 0)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, "format", 0, 0, "unknown export format '%s' (json, jsonl, yaml)", format);
    mcpp_strbuf b;
    mcpp_sb_init(&b, NULL, 0);
    if (array) mcpp_sb_putc(&b, '[');
    export_state e = {&b, format, 0};
    int rc = mcpp_store_query_from(store, query, 1, export_one, &e);
    if (array) mcpp_sb_puts(&b, e.index ? "\n]\n" : "]\n");
    if (rc) {
        mcpp_sb_free(&b);
        return rc;
    }
    return mcpp_store_take_text(out, &b);
}
