/*
 * json_cursor.c — walks a JSON document's outer objects and arrays token by
 * token and hands one value at a time to cJSON. A pytest-benchmark file with
 * long round-time lists, or a Google Benchmark file of 10^5 rows, parsed
 * whole is a cJSON tree of ~4x its text (80 bytes per number); through the
 * cursor an importer holds one benchmark at a time (issue 28).
 *
 * The cursor checks only the structure it walks (brackets, commas, colons,
 * member names); every value it hands out is parsed by cJSON, so what is
 * valid JSON is what cJSON says, as for the whole-file parse. The one value
 * it steps over unparsed (mcpp_jc_skip) is a list an importer comes back to
 * and parses element by element.
 */
#include <stdio.h>
#include <string.h>

#include "import/import_internal.h"
#include "util/error_internal.h"

/* cJSON's blanks: every byte up to and including the space. */
static void skip_blanks(mcpp_json_cursor *c)
{
    const unsigned char *t = (const unsigned char *)c->doc->text;
    while (c->pos < c->doc->len && t[c->pos] <= 32)
        c->pos++;
}

void mcpp_jc_init(mcpp_json_cursor *c, const mcpp_import_json *doc)
{
    c->doc = doc;
    c->pos = doc->len >= 3 && memcmp(doc->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    skip_blanks(c);
}

int mcpp_jc_syntax_error(const mcpp_json_cursor *c)
{
    const mcpp_import_json *d = c->doc;
    size_t at = c->pos < d->len || d->len == 0 ? c->pos : d->len - 1; /* where cJSON puts the end */
    return mcpp_import_json_syntax_error(d->text, d->len, at, d->path, d->line_base, d->col_base);
}

int mcpp_jc_peek(mcpp_json_cursor *c)
{
    skip_blanks(c);
    return c->pos < c->doc->len ? (unsigned char)c->doc->text[c->pos] : -1;
}

int mcpp_jc_enter(mcpp_json_cursor *c, char open)
{
    if (mcpp_jc_peek(c) != open)
        return 0;
    c->pos++;
    return 1;
}

/* The end of the string whose opening quote is at `i` (the closing quote), or
 * len: the next quote not escaped (an odd run of backslashes before it). */
static size_t string_end(const char *t, size_t len, size_t i)
{
    for (i++; i < len;) {
        const char *q = memchr(t + i, '"', len - i);
        if (!q)
            return len;
        size_t at = (size_t)(q - t), slashes = 0;
        while (at - slashes > i && t[at - slashes - 1] == '\\')
            slashes++;
        if (slashes % 2 == 0)
            return at;
        i = at + 1;
    }
    return len;
}

int mcpp_jc_next(mcpp_json_cursor *c, char close, int *first, char **key)
{
    int ch = mcpp_jc_peek(c);
    if (ch == close) {
        c->pos++;
        return 0;
    }
    if (!*first) {
        if (ch != ',')
            return mcpp_jc_syntax_error(c);
        c->pos++;
        ch = mcpp_jc_peek(c);
    }
    *first = 0;
    if (!key)
        return ch < 0 ? mcpp_jc_syntax_error(c) : 1;
    *key = NULL;
    if (ch != '"') {
        /* cJSON's position for a member name that is not a string: one past it */
        c->pos += ch >= 0;
        return mcpp_jc_syntax_error(c);
    }
    const char *t = c->doc->text;
    size_t end = string_end(t, c->doc->len, c->pos);
    if (end >= c->doc->len) { /* unterminated: cJSON names the byte after the opening quote */
        c->pos++;
        return mcpp_jc_syntax_error(c);
    }
    cJSON *name = NULL;
    size_t at;
    mcpp_json_cursor sub = {c->doc, c->pos};
    int rc = mcpp_jc_parse(&sub, &name, &at); /* decodes the escapes as cJSON does */
    if (rc != MCPP_OK)
        return rc;
    *key = name->valuestring;
    name->valuestring = NULL;
    cJSON_Delete(name);
    c->pos = sub.pos;
    if (mcpp_jc_peek(c) != ':') {
        cJSON_free(*key);
        *key = NULL;
        return mcpp_jc_syntax_error(c);
    }
    c->pos++;
    skip_blanks(c);
    return 1;
}

int mcpp_jc_parse(mcpp_json_cursor *c, cJSON **out, size_t *at)
{
    *out = NULL;
    skip_blanks(c);
    *at = c->pos;
    const char *t = c->doc->text;
    if (c->pos >= c->doc->len)
        return mcpp_jc_syntax_error(c);
    const char *end = NULL;
    *out = cJSON_ParseWithLengthOpts(t + c->pos, c->doc->len - c->pos, &end, 0);
    if (!*out) {
        size_t offset =
            end && end >= t + c->pos && end <= t + c->doc->len ? (size_t)(end - t) : c->pos;
        const mcpp_import_json *d = c->doc;
        return mcpp_import_json_syntax_error(d->text, d->len, offset, d->path, d->line_base,
                                             d->col_base);
    }
    c->pos = (size_t)(end - t);
    return MCPP_OK;
}

/* Where the value at the cursor is wrong, as cJSON finds it: its members or
 * elements parsed one at a time (no tree of the whole value). For a value
 * the fast walk below refused: its own guess (an unmatched bracket far
 * after a lost quote) would point at the wrong place. */
static int diagnose(mcpp_json_cursor *c)
{
    int open = mcpp_jc_peek(c), rc = MCPP_OK, more, first = 1;
    char close = open == '{' ? '}' : ']', *key = NULL;
    mcpp_jc_enter(c, (char)open);
    while (rc == MCPP_OK &&
           (more = mcpp_jc_next(c, close, &first, open == '{' ? &key : NULL)) > 0) {
        cJSON *v = NULL;
        size_t at;
        rc = mcpp_jc_parse(c, &v, &at);
        cJSON_Delete(v);
        cJSON_free(key);
        key = NULL;
    }
    return rc == MCPP_OK && more < 0 ? more : rc;
}

int mcpp_jc_skip(mcpp_json_cursor *c, size_t *at)
{
    skip_blanks(c);
    *at = c->pos;
    const char *t = c->doc->text;
    size_t len = c->doc->len, i = c->pos;
    if (i >= len)
        return mcpp_jc_syntax_error(c);
    if (t[i] != '{' && t[i] != '[') { /* a scalar: cJSON parses it, it is small */
        cJSON *v = NULL;
        int rc = mcpp_jc_parse(c, &v, at);
        cJSON_Delete(v);
        return rc;
    }
    char stack[CJSON_NESTING_LIMIT + 1];
    size_t depth = 0;
    mcpp_json_cursor start = *c;
    /* the bytes the walk stops at; everything else is stepped over in a tight loop */
    static const unsigned char stop[256] = {['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1};
    for (; i < len; i++) {
        while (i < len && !stop[(unsigned char)t[i]])
            i++;
        if (i >= len)
            break;
        char ch = t[i];
        if (ch == '"') {
            i = string_end(t, len, i);
        } else if (ch == '{' || ch == '[') {
            if (depth == sizeof stack)
                break;
            stack[depth++] = ch == '{' ? '}' : ']';
        } else if (ch == '}' || ch == ']') {
            if (stack[depth - 1] != ch)
                break;
            if (--depth == 0) {
                c->pos = i + 1;
                return MCPP_OK;
            }
        }
    }
    int rc = diagnose(&start); /* the walk failed: find the first error as cJSON would */
    *c = start;
    if (rc == MCPP_OK) { /* cJSON took what the walk did not (too deep for it) */
        c->pos = i < len ? i : len;
        rc = mcpp_jc_syntax_error(c);
    }
    return rc;
}

int mcpp_jc_end(mcpp_json_cursor *c)
{
    const char *t = c->doc->text;
    while (c->pos < c->doc->len && strchr(" \t\r\n", t[c->pos]) && t[c->pos])
        c->pos++;
    return c->pos == c->doc->len ? MCPP_OK : mcpp_jc_syntax_error(c);
}

void mcpp_jc_keep_first(cJSON **slot, cJSON **value)
{
    if (!*slot) {
        *slot = *value;
        *value = NULL;
    }
}

int mcpp_jc_suite_not_tool(const mcpp_import_json *doc, const mcpp_jc_suite_top *top, const char *tool,
                           const char *members, const char *other, const char *other_format)
{
    char hint[160] = "";
    if (other)
        snprintf(hint, sizeof hint, " (this is %s output: import it as %s)", other, other_format);
    return mcpp_import_json_error_at(doc, top->root_at, "type", NULL,
                                     "not %s JSON output: expected an object with %s%s", tool, members, hint);
}

int mcpp_jc_read_suite_top(mcpp_jc_suite_top *top, const mcpp_import_json *doc, mcpp_jc_member_fn member, void *ctx)
{
    mcpp_json_cursor c;
    mcpp_jc_init(&c, doc);
    memset(top, 0, sizeof *top);
    top->root_at = c.pos;
    int rc = MCPP_OK, more = 0, first = 1, seen_benchmarks = 0;
    size_t at;
    if (!mcpp_jc_enter(&c, '{')) { /* not an object: checked whole, then refused */
        cJSON *v = NULL;
        rc = mcpp_jc_parse(&c, &v, &at);
        cJSON_Delete(v);
        return rc == MCPP_OK ? mcpp_jc_end(&c) : rc;
    }
    char *key = NULL;
    while (rc == MCPP_OK && (more = mcpp_jc_next(&c, '}', &first, &key)) > 0) {
        int benchmarks = strcmp(key, "benchmarks") == 0 && !seen_benchmarks++;
        if (benchmarks && mcpp_jc_peek(&c) == '[') {
            rc = mcpp_jc_skip(&c, &top->benchmarks_at);
            top->has_benchmarks = 1;
        } else {
            cJSON *v = NULL;
            rc = mcpp_jc_parse(&c, &v, &at);
            if (rc == MCPP_OK)
                member(ctx, key, &v);
            cJSON_Delete(v);
        }
        cJSON_free(key);
        key = NULL;
    }
    if (rc == MCPP_OK && more < 0)
        rc = more;
    return rc == MCPP_OK ? mcpp_jc_end(&c) : rc;
}
