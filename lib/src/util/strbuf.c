/*
 * strbuf.c — the growable text buffer and the canonical text of scalars
 * (doubles, integers, JSON strings) that every writer and renderer shares.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/c_locale.h"
#include "util/double_text.h"
#include "util/error_internal.h"
#include "util/strbuf.h"
#include "util/utf8.h"

void mcpp_sb_init(mcpp_strbuf *sb, char *initial, size_t cap)
{
    sb->data = initial;
    sb->len = 0;
    sb->cap = initial ? cap : 0;
    sb->failed = 0;
    sb->owned = 0;
    sb->sink = NULL;
    sb->sink_ctx = NULL;
    sb->sink_failed = 0;
    if (initial && cap)
        initial[0] = '\0';
}

void mcpp_sb_init_heap(mcpp_strbuf *sb, size_t initial)
{
    mcpp_sb_init(sb, NULL, 0);
    sb->cap = initial ? initial : 64;
    sb->data = malloc(sb->cap);
    if (!sb->data) {
        sb->failed = 1;
        sb->cap = 0;
        return;
    }
    sb->data[0] = '\0';
    sb->owned = 1;
}

void mcpp_sb_init_sink(mcpp_strbuf *sb, size_t block, int (*sink)(void *ctx, const char *data, size_t len), void *ctx)
{
    mcpp_sb_init_heap(sb, block);
    sb->sink = sink;
    sb->sink_ctx = ctx;
}

int mcpp_sb_flush(mcpp_strbuf *sb)
{
    if (sb->failed)
        return -1;
    if (sb->len && sb->sink(sb->sink_ctx, sb->data, sb->len) != 0) {
        sb->failed = sb->sink_failed = 1;
        return -1;
    }
    sb->len = 0;
    sb->data[0] = '\0';
    return 0;
}

/* The first block may be the caller's (stack); growth always moves to the
 * heap. A streaming buffer grows only for a single append longer than its
 * block. */
int mcpp_sb_grow(mcpp_strbuf *sb, size_t extra)
{
    if (sb->failed)
        return -1;
    if (sb->len + extra + 1 <= sb->cap)
        return 0;
    if (sb->sink) {
        if (mcpp_sb_flush(sb) != 0)
            return -1;
        if (extra + 1 <= sb->cap)
            return 0;
    }
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *p = sb->owned ? realloc(sb->data, cap) : malloc(cap);
    if (!p) {
        sb->failed = 1;
        return -1;
    }
    if (!sb->owned && sb->len)
        memcpy(p, sb->data, sb->len);
    p[sb->len] = '\0'; /* a text moved out of the caller's memory ends too (mcpp_sb_finish hands it over) */
    sb->data = p;
    sb->cap = cap;
    sb->owned = 1;
    return 0;
}

void mcpp_sb_printf(mcpp_strbuf *sb, const char *fmt, ...)
{
    if (sb->failed)
        return;
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = mcpp_vsnprintf_c(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = 1;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        mcpp_sb_put(sb, tmp, (size_t)n);
        return;
    }
    if (mcpp_sb_grow(sb, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    mcpp_vsnprintf_c(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void mcpp_sb_init_discard(mcpp_strbuf *sb)
{
    mcpp_sb_init(sb, NULL, 0);
    sb->failed = 1; /* appends return at their first check */
}

void mcpp_sb_free(mcpp_strbuf *sb)
{
    if (sb->owned)
        free(sb->data);
    sb->owned = 0;
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

int mcpp_sb_finish(mcpp_strbuf *sb, char **out)
{
    *out = NULL;
    if (!sb->failed && !sb->owned) { /* still in caller memory (or empty): copied out, a block of its length */
        char *copy = malloc(sb->len + 1);
        if (copy) {
            if (sb->len)
                memcpy(copy, sb->data, sb->len);
            copy[sb->len] = '\0';
            sb->data = copy;
            sb->cap = sb->len + 1;
            sb->owned = 1;
        } else {
            sb->failed = 1;
        }
    }
    if (sb->failed || !sb->data) {
        mcpp_sb_free(sb);
        return mcpp_error_nomem();
    }
    /* The text is kept (a report's labels, reasons and keys): its block is
     * cut to the text, not left at the doubled capacity (a lane key of ~300
     * bytes sat in 512, a reason in up to twice its length). */
    if (sb->cap > sb->len + 1) /* as MCPP_ARRAY_FIT cuts a kept array (util/alloc.h says how) */
        MCPP_ARRAY_FIT(sb->data, sb->cap, sb->len + 1);
    *out = sb->data;
    sb->owned = 0;
    mcpp_sb_free(sb);
    return MCPP_OK;
}

/* Integers without printf: most numbers in receipts and keys are small counts. */
static size_t integer_text(char *out, uint64_t magnitude, int negative)
{
    char digits[24];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (negative)
        digits[n++] = '-';
    for (size_t i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    out[n] = '\0';
    return n;
}

/* The %.15g text of a non-integral v when it has at most 15 significant digits
 * and fixed notation (1e-4 <= |v| < 1e14), found without printf: with x the
 * exponent of |v|'s leading digit and k = 14 - x decimals (15 significant
 * digits), m = round(|v| * 10^k) is that decimal's digits whenever one reads
 * back to v (|v| * 10^k < 10^15 is off by less than 0.2 from it), and with
 * m <= 2^53 and 10^k exact the division is correctly rounded, so
 * m / 10^k == |v| is exactly strtod("m/10^k") == v; the trailing zeros are
 * then dropped. A decimal of at most 15 digits that reads back to v is the
 * one %.15g prints (the 15-digit grid is coarser than the doubles'). 0 when
 * the slow path must decide (more than 15 digits, range). (It tried k = 1,
 * 2, ... in turn: up to 14 divisions for a value of 16 or 17 digits, most
 * measured ones.) */
static size_t short_decimal_text(char *out, double v)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                   1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    double a = fabs(v);
    if (!(a >= 1e-4 && a < 1e14)) return 0;
    int x = 13; /* a below 10^x (as a double) lowers it: off by one only costs the slow path */
    while (x > 0 && a < pow10[x])
        x--;
    while (x > -4 && x <= 0 && a * pow10[-x] < 1.0)
        x--;
    int k = 14 - x;
    double m = nearbyint(a * pow10[k]);
    if (m >= 1e15 || m / pow10[k] != a)
        return 0; /* more than 15 significant digits */
    uint64_t mi = (uint64_t)m;
    while (k > 0 && mi % 10 == 0) {
        mi /= 10;
        k--;
    }
    if (k == 0)
        return 0;
    uint64_t scale = (uint64_t)pow10[k];
    size_t n = integer_text(out, mi / scale, v < 0);
    out[n++] = '.';
    uint64_t frac = mi % scale;
    for (int d = k - 1; d >= 0; d--, frac /= 10)
        out[n + (size_t)d] = (char)('0' + frac % 10);
    n += (size_t)k;
    out[n] = '\0';
    return n;
}

/* The 16th and 17th significant digits of a %.17g text, as 0..99. */
static int digits_16_17(const char *text)
{
    int seen = 0, tail = 0;
    for (const char *c = text; *c && *c != 'e' && seen < 17; c++) {
        if (*c < '0' || *c > '9' || (*c == '0' && seen == 0))
            continue; /* sign, point, leading zeros */
        if (++seen >= 16)
            tail = tail * 10 + (*c - '0');
    }
    return seen == 17 ? tail : seen == 16 ? tail * 10 : 0; /* %g drops trailing zeros */
}

/* The first of %.15g, %.16g, %.17g that reads back to v (%.17g always does).
 * When %.15g reads back, v is within half an ulp (< 23 units of the 17th
 * digit) of that 15-digit decimal, so the 16th and 17th digits of %.17g are
 * near 00 (<= 23 or >= 77): outside that the %.15g attempt is skipped (for
 * normal doubles). The text is the same; most measured doubles need 16 or 17
 * digits. */
static size_t printf_shortest_uncached(char *text, size_t cap, double v)
{
    char longest[32];
    mcpp_c_locale_scope scope; /* "2.5", never "2,5": see util/c_locale.h */
    mcpp_c_locale_enter(&scope);
    snprintf(longest, sizeof longest, "%.17g", v);
    int tail = digits_16_17(longest), found = 0;
    if (!isnormal(v) || tail <= 24 || tail >= 76) { /* a subnormal's ulp is wider */
        snprintf(text, cap, "%.15g", v);
        found = strtod(text, NULL) == v;
    }
    if (!found) {
        snprintf(text, cap, "%.16g", v);
        found = strtod(text, NULL) == v;
    }
    if (!found)
        snprintf(text, cap, "%s", longest);
    mcpp_c_locale_leave(&scope);
    return strlen(text);
}

/* A per-thread memo of the doubles printf_shortest_uncached formatted last:
 * making a receipt writes its numbers several times (packing, the canonical
 * text its derived id hashes, packing again with the id), and printf with
 * the strtod check costs ~1 µs a number. Keyed by the exact bits, so a hit
 * is the same text. */
enum { DOUBLE_MEMO_SLOTS = 1024 };
typedef struct double_memo {
    uint64_t bits;
    unsigned char len; /* 0: empty */
    char text[27];
} double_memo;
static _Thread_local double_memo double_memos[DOUBLE_MEMO_SLOTS];

static size_t printf_shortest(char *text, size_t cap, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    double_memo *m = &double_memos[(bits * 0x9e3779b97f4a7c15ULL) >> 54];
    if (m->len && m->bits == bits) {
        memcpy(text, m->text, (size_t)m->len + 1);
        return m->len;
    }
    size_t n = printf_shortest_uncached(text, cap, v);
    if (n < sizeof m->text) {
        m->bits = bits;
        m->len = (unsigned char)n;
        memcpy(m->text, text, n + 1);
    }
    return n;
}

size_t mcpp_format_double(char *buf, size_t cap, double value, int force_fraction)
{
    char text[48];
    size_t n;
    if (value == floor(value) && fabs(value) < 9007199254740992.0) {
        n = integer_text(text, (uint64_t)fabs(value), value < 0);
        if (force_fraction) {
            memcpy(text + n, ".0", 3);
            n += 2;
        }
    } else if ((n = short_decimal_text(text, value)) == 0) {
        if ((n = mcpp_double_text_exact(text, value)) == 0)
            n = printf_shortest(text, sizeof text, value);
        if (force_fraction && isfinite(value) && !strpbrk(text, ".eE")) {
            memcpy(text + n, ".0", 3);
            n += 2;
        }
    }
    if (cap == 0)
        return 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return n;
}

void mcpp_sb_double(mcpp_strbuf *sb, double value)
{
    char num[48];
    mcpp_sb_put(sb, num, mcpp_format_double(num, sizeof num, value, 0));
}

void mcpp_sb_json_number(mcpp_strbuf *sb, double value)
{
    if (!isfinite(value))
        mcpp_sb_puts(sb, "null");
    else
        mcpp_sb_double(sb, value);
}

void mcpp_sb_json_key_number(mcpp_strbuf *sb, const char *key, double value)
{
    mcpp_sb_puts(sb, key);
    mcpp_sb_json_number(sb, value);
}

void mcpp_sb_json_key_string(mcpp_strbuf *sb, const char *key, const char *s)
{
    mcpp_sb_puts(sb, key);
    mcpp_sb_json_string(sb, s);
}

void mcpp_sb_int(mcpp_strbuf *sb, int64_t value)
{
    char num[24];
    uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    mcpp_sb_put(sb, num, integer_text(num, magnitude, value < 0));
}

/* Characters JSON allows raw but that should not reach a terminal or a
 * JavaScript parser when the output is viewed or embedded: DEL, the C1
 * controls (U+0080..U+009F) and the line/paragraph separators. */
static int json_escapes_code_point(uint32_t cp)
{
    return cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029;
}

/* Past the bytes from p on that a JSON string holds as they are (printable
 * ASCII but '"' and '\\'), 8 a step while 8 remain before `end`: a byte at a
 * time was 6% of a store add's CPU (its bodies' strings). A word needs a
 * look when a byte is below 0x20, is '"', '\\' or 0x7F (each found as a zero
 * byte of the word xor'ed with it), or has its high bit set; each test is
 * exact for the word as a whole. */
static const unsigned char *plain_ascii_end(const unsigned char *p, const unsigned char *end)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, sizeof w);
        uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\'), del = w ^ (ones * 0x7F);
        uint64_t look = ((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) |
                        ((del - ones) & ~del) | w;
        if (look & highs)
            break;
    }
    while (p < end && *p >= 0x20 && *p < 0x7F && *p != '"' && *p != '\\')
        p++;
    return p;
}

void mcpp_sb_json_string(mcpp_strbuf *sb, const char *s)
{
    if (!s) {
        mcpp_sb_puts(sb, "null");
        return;
    }
    mcpp_sb_putc(sb, '"');
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s), *run = p;
    while ((p = plain_ascii_end(p, end)) < end) {
        uint32_t cp = 0;
        size_t n = mcpp_utf8_decode(p, &cp);
        if (n && cp >= 0x20 && cp != '"' && cp != '\\' && !json_escapes_code_point(cp)) {
            p += n;
            continue;
        }
        mcpp_sb_put(sb, (const char *)run, (size_t)(p - run));
        switch (n ? cp : 0xFFFD) {
        case '"': mcpp_sb_puts(sb, "\\\""); break;
        case '\\': mcpp_sb_puts(sb, "\\\\"); break;
        case '\n': mcpp_sb_puts(sb, "\\n"); break;
        case '\r': mcpp_sb_puts(sb, "\\r"); break;
        case '\t': mcpp_sb_puts(sb, "\\t"); break;
        case '\b': mcpp_sb_puts(sb, "\\b"); break;
        case '\f': mcpp_sb_puts(sb, "\\f"); break;
        default: mcpp_sb_printf(sb, "\\u%04x", n ? cp : 0xFFFDu); break; /* a stray byte: U+FFFD */
        }
        p += n ? n : 1;
        run = p;
    }
    mcpp_sb_put(sb, (const char *)run, (size_t)(p - run));
    mcpp_sb_putc(sb, '"');
}
