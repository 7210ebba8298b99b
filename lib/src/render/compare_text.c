/*
 * compare_text.c — the text buffer every renderer writes into, and the
 * canonical text of field values (used in comparison rows and lane keys).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_internal.h"
#include "util/error_internal.h"

void mcpp_textbuf_init(mcpp_textbuf *b, size_t initial)
{
    b->len = 0;
    b->failed = 0;
    b->cap = initial ? initial : 64;
    b->data = malloc(b->cap);
    if (!b->data) {
        b->failed = 1;
        b->cap = 0;
    } else {
        b->data[0] = '\0';
    }
}

void mcpp_textbuf_free(mcpp_textbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static int grow(mcpp_textbuf *b, size_t extra)
{
    if (b->failed) return 0;
    if (b->len + extra + 1 <= b->cap) return 1;
    size_t nc = b->cap ? b->cap : 64;
    while (nc < b->len + extra + 1) nc *= 2;
    char *nd = realloc(b->data, nc);
    if (!nd) {
        b->failed = 1;
        return 0;
    }
    b->data = nd;
    b->cap = nc;
    return 1;
}

void mcpp_textbuf_append(mcpp_textbuf *b, const char *s, size_t n)
{
    if (!grow(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void mcpp_textbuf_puts(mcpp_textbuf *b, const char *s) { mcpp_textbuf_append(b, s, strlen(s)); }

void mcpp_textbuf_putc(mcpp_textbuf *b, char c)
{
    if (!grow(b, 1)) return;
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void mcpp_textbuf_printf(mcpp_textbuf *b, const char *fmt, ...)
{
    if (b->failed) return;
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        mcpp_textbuf_append(b, small, (size_t)n);
        return;
    }
    if (!grow(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void mcpp_textbuf_json_string(mcpp_textbuf *b, const char *s)
{
    if (!s) {
        mcpp_textbuf_puts(b, "null");
        return;
    }
    mcpp_textbuf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': mcpp_textbuf_puts(b, "\\\""); break;
        case '\\': mcpp_textbuf_puts(b, "\\\\"); break;
        case '\n': mcpp_textbuf_puts(b, "\\n"); break;
        case '\r': mcpp_textbuf_puts(b, "\\r"); break;
        case '\t': mcpp_textbuf_puts(b, "\\t"); break;
        default:
            if (*p < 0x20) mcpp_textbuf_printf(b, "\\u%04x", *p);
            else mcpp_textbuf_putc(b, (char)*p);
        }
    }
    mcpp_textbuf_putc(b, '"');
}

void mcpp_textbuf_json_number(mcpp_textbuf *b, double v)
{
    if (!isfinite(v)) mcpp_textbuf_puts(b, "null");
    else mcpp_text_double(b, v);
}

void mcpp_textbuf_md_cell(mcpp_textbuf *b, const char *s)
{
    if (!s) return;
    for (const char *p = s; *p; p++) {
        if (*p == '|') mcpp_textbuf_puts(b, "\\|");
        else if (*p == '\n' || *p == '\r') mcpp_textbuf_putc(b, ' ');
        else mcpp_textbuf_putc(b, *p);
    }
}

int mcpp_textbuf_finish(mcpp_textbuf *b, char **out)
{
    if (b->failed) {
        mcpp_textbuf_free(b);
        *out = NULL;
        return mcpp_error_nomem();
    }
    *out = b->data;
    b->data = NULL;
    b->len = b->cap = 0;
    return MCPP_OK;
}

void mcpp_text_double(mcpp_textbuf *b, double v)
{
    char buf[40];
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, sizeof buf, "%.0f", v);
        if (strcmp(buf, "-0") == 0) strcpy(buf, "0");
    } else {
        /* Shortest of %.15g..%.17g that reads back exactly. */
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, v);
            if (strtod(buf, NULL) == v) break;
        }
    }
    mcpp_textbuf_puts(b, buf);
}

static void put_int(mcpp_textbuf *b, int64_t v)
{
    char buf[24];
    char *p = buf + sizeof buf;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    *--p = '\0';
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--p = '-';
    mcpp_textbuf_puts(b, p);
}

static void put_key_text(mcpp_textbuf *b, const char *s, int escape_key)
{
    if (!escape_key) {
        mcpp_textbuf_puts(b, s);
        return;
    }
    for (const char *p = s; *p; p++) {
        if (*p == '\\' || *p == ';' || *p == '|' || *p == '=' || *p == ',') mcpp_textbuf_putc(b, '\\');
        mcpp_textbuf_putc(b, *p);
    }
}

void mcpp_value_text(mcpp_textbuf *b, const mcpp_value *v, int escape_key)
{
    switch (v->type) {
    case MCPP_TYPE_ABSENT: mcpp_textbuf_putc(b, '-'); break;
    case MCPP_TYPE_BOOL: mcpp_textbuf_puts(b, v->boolean ? "true" : "false"); break;
    case MCPP_TYPE_INT: put_int(b, v->integer); break;
    case MCPP_TYPE_DOUBLE: mcpp_text_double(b, v->number); break;
    case MCPP_TYPE_STRING:
    case MCPP_TYPE_ENUM:
    case MCPP_TYPE_OBJECT: put_key_text(b, v->string ? v->string : "", escape_key); break;
    case MCPP_TYPE_STRING_LIST:
        mcpp_textbuf_putc(b, '[');
        for (size_t i = 0; i < v->count; i++) {
            if (i) mcpp_textbuf_puts(b, escape_key ? "\\, " : ", ");
            put_key_text(b, v->strings[i] ? v->strings[i] : "", escape_key);
        }
        mcpp_textbuf_putc(b, ']');
        break;
    case MCPP_TYPE_DOUBLE_LIST:
        mcpp_textbuf_putc(b, '[');
        for (size_t i = 0; i < v->count; i++) {
            if (i) mcpp_textbuf_puts(b, escape_key ? "\\, " : ", ");
            mcpp_text_double(b, v->doubles[i]);
        }
        mcpp_textbuf_putc(b, ']');
        break;
    }
}

int mcpp_value_equal(const mcpp_value *a, const mcpp_value *b)
{
    /* INT and DOUBLE compare by value: a schema field has one type, but a
     * free-form path may give either. */
    if ((a->type == MCPP_TYPE_INT || a->type == MCPP_TYPE_DOUBLE) &&
        (b->type == MCPP_TYPE_INT || b->type == MCPP_TYPE_DOUBLE)) {
        double x = a->type == MCPP_TYPE_INT ? (double)a->integer : a->number;
        double y = b->type == MCPP_TYPE_INT ? (double)b->integer : b->number;
        if (a->type == MCPP_TYPE_INT && b->type == MCPP_TYPE_INT) return a->integer == b->integer;
        return x == y;
    }
    int as = a->type == MCPP_TYPE_STRING || a->type == MCPP_TYPE_ENUM;
    int bs = b->type == MCPP_TYPE_STRING || b->type == MCPP_TYPE_ENUM;
    if (as && bs) return strcmp(a->string ? a->string : "", b->string ? b->string : "") == 0;
    if (a->type != b->type) return 0;
    switch (a->type) {
    case MCPP_TYPE_ABSENT: return 1;
    case MCPP_TYPE_BOOL: return !a->boolean == !b->boolean;
    case MCPP_TYPE_OBJECT: return strcmp(a->string ? a->string : "", b->string ? b->string : "") == 0;
    case MCPP_TYPE_STRING_LIST:
        if (a->count != b->count) return 0;
        for (size_t i = 0; i < a->count; i++)
            if (strcmp(a->strings[i] ? a->strings[i] : "", b->strings[i] ? b->strings[i] : "") != 0) return 0;
        return 1;
    case MCPP_TYPE_DOUBLE_LIST:
        if (a->count != b->count) return 0;
        for (size_t i = 0; i < a->count; i++)
            if (a->doubles[i] != b->doubles[i]) return 0;
        return 1;
    default: return 0;
    }
}
