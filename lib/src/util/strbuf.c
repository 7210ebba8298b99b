/*
 * strbuf.c — a growable output buffer and the canonical text of scalars:
 * shortest round-trip doubles, JSON string escapes, compact canonical JSON of
 * free-form values, and the FNV-1a hash used for derived ids.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/receipt_internal.h"

void mcpp_sb_init(mcpp_strbuf *sb, char *initial, size_t cap)
{
    sb->data = initial;
    sb->len = 0;
    sb->cap = initial ? cap : 0;
    sb->failed = 0;
    sb->owned = 0;
}

/* The first buffer may be the caller's (stack); growth always moves to the heap. */
static int sb_reserve(mcpp_strbuf *sb, size_t extra)
{
    if (sb->failed)
        return -1;
    if (sb->len + extra + 1 <= sb->cap)
        return 0;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *p = malloc(cap);
    if (!p) {
        sb->failed = 1;
        return -1;
    }
    if (sb->len)
        memcpy(p, sb->data, sb->len);
    if (sb->owned)
        free(sb->data);
    sb->data = p;
    sb->cap = cap;
    sb->owned = 1;
    return 0;
}

void mcpp_sb_put(mcpp_strbuf *sb, const char *s, size_t n)
{
    if (sb_reserve(sb, n) != 0)
        return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void mcpp_sb_puts(mcpp_strbuf *sb, const char *s) { mcpp_sb_put(sb, s, strlen(s)); }

void mcpp_sb_putc(mcpp_strbuf *sb, char c) { mcpp_sb_put(sb, &c, 1); }

void mcpp_sb_printf(mcpp_strbuf *sb, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = 1;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        mcpp_sb_put(sb, tmp, (size_t)n);
        return;
    }
    if (sb_reserve(sb, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void mcpp_sb_free(mcpp_strbuf *sb)
{
    if (sb->owned)
        free(sb->data);
    sb->owned = 0;
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

void mcpp_format_double(char *buf, size_t cap, double value, int force_fraction)
{
    static const char *const formats[] = {"%.15g", "%.16g", "%.17g"};
    for (int i = 0; i < 3; i++) {
        snprintf(buf, cap, formats[i], value);
        if (strtod(buf, NULL) == value)
            break;
    }
    if (force_fraction && isfinite(value) && !strpbrk(buf, ".eE")) {
        size_t n = strlen(buf);
        if (n + 2 < cap) {
            buf[n] = '.';
            buf[n + 1] = '0';
            buf[n + 2] = '\0';
        }
    }
}

void mcpp_sb_json_string(mcpp_strbuf *sb, const char *s)
{
    mcpp_sb_putc(sb, '"');
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        mcpp_sb_put(sb, run, (size_t)(s - run));
        run = s + 1;
        switch (c) {
        case '"': mcpp_sb_puts(sb, "\\\""); break;
        case '\\': mcpp_sb_puts(sb, "\\\\"); break;
        case '\n': mcpp_sb_puts(sb, "\\n"); break;
        case '\r': mcpp_sb_puts(sb, "\\r"); break;
        case '\t': mcpp_sb_puts(sb, "\\t"); break;
        case '\b': mcpp_sb_puts(sb, "\\b"); break;
        case '\f': mcpp_sb_puts(sb, "\\f"); break;
        default: mcpp_sb_printf(sb, "\\u%04x", c); break;
        }
    }
    mcpp_sb_put(sb, run, (size_t)(s - run));
    mcpp_sb_putc(sb, '"');
}

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

/* Integers without printf: free-form numbers are mostly small counts. */
static void put_integer(mcpp_strbuf *sb, double d)
{
    char digits[24];
    int n = 0;
    uint64_t u = (uint64_t)(d < 0 ? -d : d);
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (d < 0)
        digits[n++] = '-';
    char out[24];
    for (int i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    mcpp_sb_put(sb, out, (size_t)n);
}

void mcpp_sb_free_number(mcpp_strbuf *sb, double d)
{
    if (d == floor(d) && fabs(d) < 9007199254740992.0) {
        put_integer(sb, d);
    } else {
        char num[40];
        mcpp_format_double(num, sizeof num, d, 0);
        mcpp_sb_puts(sb, num);
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
        mcpp_sb_free_number(sb, v->valuedouble);
    } else if (mcpp_cj_is_true(v)) {
        mcpp_sb_puts(sb, "true");
    } else if (cJSON_IsFalse(v)) {
        mcpp_sb_puts(sb, "false");
    } else {
        mcpp_sb_puts(sb, "null");
    }
}

uint64_t mcpp_fnv1a64(const char *data, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)data[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
