/*
 * import_json.c — JSON inputs of the importers with positions: cJSON keeps no
 * line numbers, so an error about a value finds the value's byte offset by
 * walking the tree and the text in the same (document) order.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_internal.h"
#include "util/error_internal.h"

/* Inputs beyond this are refused: results files are kilobytes to megabytes. */
#define MAX_INPUT_BYTES ((size_t)256 << 20)

int mcpp_import_read_file(char **out, size_t *out_len, const char *path)
{
    *out = NULL;
    *out_len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int rc = buf ? MCPP_OK : mcpp_error_nomem();
    while (rc == MCPP_OK) {
        if (len + 1 >= cap) {
            char *nb = cap < MAX_INPUT_BYTES ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                rc = cap < MAX_INPUT_BYTES ? mcpp_error_nomem()
                                           : mcpp_error_at(MCPP_ELIMIT, MCPP_ERROR_KIND_LIMIT, path, NULL, 0, 0,
                                                            "input larger than 256 MiB");
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - 1 - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f))
                rc = mcpp_error_at(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, 0, "read failed: %s", strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc != MCPP_OK) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return MCPP_OK;
}

static void line_col_of(int *line, int *col, const char *text, size_t offset)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

int mcpp_import_json_syntax_error(const char *text, size_t len, size_t offset, const char *path,
                                  int line_base, int col_base)
{
    if (offset > len)
        offset = len;
    size_t trimmed = len;
    while (trimmed > 0 && strchr(" \t\r\n", text[trimmed - 1]))
        trimmed--;
    int early = offset + 1 >= trimmed;
    /* Input that ends early is reported where it ends (cJSON points at its
     * last character: a file cut just after a newline would name the line
     * before the one it ends on). */
    if (early)
        offset = len;
    int line, col;
    line_col_of(&line, &col, text, offset);
    if (line == 1)
        col += col_base;
    const char *what = early ? "the JSON ends early (truncated?)" : "invalid JSON";
    return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_SYNTAX, path, NULL, line + line_base, col,
                         "%s", what);
}

int mcpp_import_json_parse(cJSON **out, const char *text, size_t len, const char *path,
                           int line_base, int col_base)
{
    const char *end = NULL;
    *out = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (*out) {
        while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
            end++;
        if (end == text + len)
            return MCPP_OK;
        cJSON_Delete(*out);
        *out = NULL;
    }
    size_t offset = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    return mcpp_import_json_syntax_error(text, len, offset, path, line_base, col_base);
}

/* The token at text[i..len) when it is one of the non-finite numbers' words,
 * its length; 0 otherwise (a longer name such as NaNs is not one). */
static size_t nonfinite_token(const char *text, size_t i, size_t len)
{
    static const char *const WORDS[] = {"NaN", "Infinity", "-Infinity"};
    for (size_t w = 0; w < sizeof WORDS / sizeof *WORDS; w++) {
        size_t n = strlen(WORDS[w]);
        if (len - i >= n && memcmp(text + i, WORDS[w], n) == 0 &&
            (i + n == len || !(isalnum((unsigned char)text[i + n]) || text[i + n] == '_')))
            return n;
    }
    return 0;
}

size_t mcpp_import_json_nonfinite_as_empty(char *text, size_t len)
{
    size_t rewritten = 0;
    char before = 0; /* the last character outside strings and blanks: a value follows : , or [ */
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (ch == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\')
                    i++;
            before = '"';
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
            continue;
        size_t n = before == ':' || before == ',' || before == '[' ? nonfinite_token(text, i, len) : 0;
        if (n) {
            memset(text + i, ' ', n);
            text[i] = '[';
            text[i + n - 1] = ']';
            rewritten++;
            i += n - 1;
            ch = ']';
        }
        before = ch;
    }
    return rewritten;
}

int mcpp_import_json_read(mcpp_import_json *doc, const char *path)
{
    memset(doc, 0, sizeof *doc);
    doc->path = path;
    return mcpp_import_read_file(&doc->text, &doc->len, path);
}

int mcpp_import_json_open(mcpp_import_json *doc, const char *path)
{
    memset(doc, 0, sizeof *doc);
    doc->path = path;
    int rc = mcpp_import_read_file(&doc->text, &doc->len, path);
    if (rc == MCPP_OK)
        rc = mcpp_import_json_parse(&doc->root, doc->text, doc->len, path, 0, 0);
    if (rc != MCPP_OK)
        mcpp_import_json_free(doc);
    return rc;
}

int mcpp_import_json_list_file(mcpp_import_sink *sink, const char *path, int (*check)(const mcpp_import_json *doc),
                               const char *list,
                               int (*one)(mcpp_import_sink *sink, const mcpp_import_json *doc, const cJSON *item))
{
    mcpp_import_json doc;
    int rc = mcpp_import_json_open(&doc, path);
    if (rc != MCPP_OK)
        return rc;
    rc = check(&doc);
    const cJSON *items = rc == MCPP_OK ? cJSON_GetObjectItemCaseSensitive(doc.root, list) : NULL;
    for (const cJSON *item = items ? items->child : NULL; rc == MCPP_OK && item; item = item->next)
        rc = one(sink, &doc, item);
    mcpp_import_json_free(&doc);
    return rc;
}

void mcpp_import_json_keep(cJSON *obj, const char *key, cJSON *value)
{
    if (!value)
        return;
    int placed = cJSON_GetObjectItemCaseSensitive(obj, key) ? cJSON_ReplaceItemInObjectCaseSensitive(obj, key, value)
                                                             : cJSON_AddItemToObject(obj, key, value);
    if (!placed)
        cJSON_Delete(value);
}

void mcpp_import_json_free(mcpp_import_json *doc)
{
    cJSON_Delete(doc->root);
    free(doc->text);
    memset(doc, 0, sizeof *doc);
}

/* Index of `item` in a pre-order walk from `node`, or -1 when absent. */
static long preorder_index(const cJSON *node, const cJSON *item, long *counter)
{
    long mine = (*counter)++;
    if (node == item)
        return mine;
    for (const cJSON *c = node->child; c; c = c->next) {
        long found = preorder_index(c, item, counter);
        if (found >= 0)
            return found;
    }
    return -1;
}

static size_t skip_string(const char *t, size_t len, size_t i)
{
    for (i++; i < len && t[i] != '"'; i++)
        if (t[i] == '\\')
            i++;
    return i; /* at the closing quote */
}

/* Byte offset of the k-th value (keys are not values) of valid JSON text. */
static size_t nth_value_offset(const char *t, size_t len, long k)
{
    char stack[CJSON_NESTING_LIMIT + 2];
    int depth = 0, expect_key = 0;
    long count = 0;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':') {
            if (c == ':')
                expect_key = 0;
            continue;
        }
        if (c == ',') {
            expect_key = depth > 0 && stack[depth - 1] == '{';
            continue;
        }
        if (c == '}' || c == ']') {
            if (depth > 0)
                depth--;
            expect_key = 0;
            continue;
        }
        int is_key = c == '"' && expect_key;
        if (!is_key && count++ == k)
            return i;
        if (c == '"') {
            i = skip_string(t, len, i);
        } else if (c == '{' || c == '[') {
            if (depth < (int)sizeof stack)
                stack[depth++] = c;
            expect_key = c == '{';
        } else {
            while (i + 1 < len && !strchr(",]} \t\r\n", t[i + 1]))
                i++;
        }
    }
    return 0;
}

/* MCPP_EINVALID at byte `offset` of the document (SIZE_MAX: no position). */
static int error_at_v(const mcpp_import_json *doc, size_t offset, const char *kind, const char *field,
                      const char *fmt, va_list ap)
{
    char text[768];
    vsnprintf(text, sizeof text, fmt, ap);
    int line = 0, col = 0;
    if (offset != SIZE_MAX) {
        line_col_of(&line, &col, doc->text, offset < doc->len ? offset : doc->len);
        if (line == 1)
            col += doc->col_base;
        line += doc->line_base;
    }
    return mcpp_error_set(MCPP_EINVALID, kind, doc->path, field, line, col, "%s", text);
}

int mcpp_import_json_error_at(const mcpp_import_json *doc, size_t offset, const char *kind,
                              const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = error_at_v(doc, offset == SIZE_MAX ? SIZE_MAX - 1 : offset, kind, field, fmt, ap);
    va_end(ap);
    return rc;
}

int mcpp_import_json_error(const mcpp_import_json *doc, const cJSON *item, const char *kind,
                           const char *field, const char *fmt, ...)
{
    long counter = 0;
    long index = item && doc->root ? preorder_index(doc->root, item, &counter) : -1;
    va_list ap;
    va_start(ap, fmt);
    int rc = error_at_v(doc, index >= 0 ? nth_value_offset(doc->text, doc->len, index) : SIZE_MAX, kind, field,
                        fmt, ap);
    va_end(ap);
    return rc;
}

int mcpp_import_number(double *out, const cJSON *v)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return isfinite(*out);
    }
    const char *s = mcpp_import_string(v);
    if (!s)
        return 0;
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    while (end && (*end == ' ' || *end == '\t'))
        end++;
    if (end == s || !end || *end || errno || !isfinite(d))
        return 0;
    *out = d;
    return 1;
}

int mcpp_import_integer(int64_t *out, const cJSON *v)
{
    double d;
    if (!mcpp_import_number(&d, v) || d != floor(d) || fabs(d) > 9007199254740992.0)
        return 0;
    *out = (int64_t)d;
    return 1;
}

const char *mcpp_import_string(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring && v->valuestring[0] ? v->valuestring : NULL;
}

int mcpp_import_is_one_of(const char *key, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, names[i]) == 0)
            return 1;
    return 0;
}

int mcpp_import_set_texts(mcpp_builder *b, const mcpp_import_text *texts, size_t n)
{
    int rc = MCPP_OK;
    for (size_t i = 0; rc == MCPP_OK && i < n; i++)
        if (texts[i].value)
            rc = mcpp_builder_set_string(b, texts[i].path, texts[i].value);
    return rc;
}

int mcpp_import_set_json(mcpp_builder *b, const char *path, const cJSON *value)
{
    if (!value || cJSON_IsNull(value))
        return MCPP_OK;
    char *text = cJSON_PrintUnformatted(value);
    if (!text)
        return mcpp_error_nomem();
    int rc = mcpp_builder_set_json(b, path, text);
    cJSON_free(text);
    return rc;
}
