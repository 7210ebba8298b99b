/*
 * json_scan.c — byte-level passes over JSON text that cJSON does not do for us:
 *
 *   - the pre-scan, run before cJSON on every input: valid UTF-8, no "\u0000",
 *     nesting depth and string length within limits. It runs first so that a
 *     10^5-deep document is refused in microseconds, before cJSON recurses.
 *   - byte offset -> line:column, and the path locator that finds where a
 *     field sits in the text. Both run only on the error path, so a valid
 *     receipt pays nothing for precise messages.
 */
#include <stdio.h>
#include <string.h>

#include "receipt_internal.h"

/* Length of the valid UTF-8 sequence at s (at most `avail` bytes), 0 if invalid. */
static size_t utf8_sequence(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        if (avail >= 2 && (s[1] & 0xC0) == 0x80)
            return 2;
        return 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (avail < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && s[1] < 0xA0)
            return 0; /* overlong */
        if (c == 0xED && s[1] >= 0xA0)
            return 0; /* UTF-16 surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (avail < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
            (s[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && s[1] < 0x90)
            return 0; /* overlong */
        if (c == 0xF4 && s[1] >= 0x90)
            return 0; /* beyond U+10FFFF */
        return 4;
    }
    return 0;
}

int mcpp_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        size_t n = utf8_sequence(p + i, len - i);
        if (!n)
            return -1;
        i += n;
    }
    return 0;
}

void mcpp_text_position(const char *buf, size_t len, size_t offset, int *line, int *column)
{
    int l = 1, c = 1;
    if (offset > len)
        offset = len;
    for (size_t i = 0; i < offset; i++) {
        unsigned char ch = (unsigned char)buf[i];
        if (ch == '\n') {
            l++;
            c = 1;
        } else if ((ch & 0xC0) != 0x80) {
            c++; /* count characters, not continuation bytes */
        }
    }
    *line = l;
    *column = c;
}

static int prescan_fail(const char *buf, size_t len, size_t at, const char *kind, int code,
                        const char *name, mcpp_report *report, const char *text)
{
    int line, column;
    mcpp_text_position(buf, len, at, &line, &column);
    if (mcpp_report_add(report, MCPP_SEVERITY_ERROR, kind, name, NULL, line, column, text) != 0)
        return MCPP_ENOMEM;
    return code;
}

/* The pre-scan looks at 16 bytes at a time (SSE2, baseline on x86-64) or 8
 * (portable SWAR): a bit mask marks the bytes that matter — quotes,
 * backslashes, brackets, bytes >= 0x80 — and only those are visited, so plain
 * text and indentation cost about one instruction per byte. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define SCAN_BLOCK 16
static inline uint64_t interesting_block(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20)); /* '[' '{' and ']' '}' differ in bit 5 */
    __m128i hits = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
        _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')),
                     _mm_cmpeq_epi8(folded, _mm_set1_epi8('}'))));
    /* movemask of v itself gives the bytes >= 0x80 */
    return (uint64_t)(unsigned)(_mm_movemask_epi8(hits) | _mm_movemask_epi8(v));
}
#else
#define SCAN_BLOCK 8
#define ONES 0x0101010101010101ULL
#define LOWS 0x7F7F7F7F7F7F7F7FULL
#define HIGHS 0x8080808080808080ULL
/* High bit of each byte of w that equals c (exact per byte, no carries). */
static inline uint64_t eq_mask(uint64_t w, unsigned char c)
{
    uint64_t t = w ^ (ONES * c);
    return ~(((t & LOWS) + LOWS) | t) & HIGHS;
}
static inline uint64_t interesting_block(const unsigned char *p)
{
    uint64_t w, bits = 0;
    memcpy(&w, p, 8);
    uint64_t folded = w | (ONES * 0x20);
    uint64_t m = eq_mask(w, '"') | eq_mask(w, '\\') | eq_mask(folded, '{') |
                 eq_mask(folded, '}') | (w & HIGHS);
    for (int k = 0; k < 8; k++) /* one bit per byte, lowest address first */
        bits |= ((m >> (8 * k + 7)) & 1u) << k;
    return bits;
}
#endif

int mcpp_json_prescan(const char *buf, size_t len, const mcpp_limits *limits, const char *name,
                      mcpp_report *report)
{
    const unsigned char *s = (const unsigned char *)buf;
    size_t depth = 0, skip_until = 0, string_start = 0;
    int in_string = 0;
    char text[160];
    for (size_t base = 0; base < len; base += SCAN_BLOCK) {
        uint64_t mask;
        if (base + SCAN_BLOCK <= len) {
            mask = interesting_block(s + base);
        } else {
            unsigned char tail[SCAN_BLOCK] = {0};
            memcpy(tail, s + base, len - base);
            mask = interesting_block(tail);
        }
        while (mask) {
            int bit = __builtin_ctzll(mask);
            mask &= mask - 1;
            size_t i = base + (size_t)bit;
            if (i < skip_until || i >= len)
                continue;
            unsigned char c = s[i];
            if (c >= 0x80) {
                size_t n = utf8_sequence(s + i, len - i);
                if (!n) {
                    snprintf(text, sizeof text, "invalid UTF-8 (byte 0x%02X)", c);
                    return prescan_fail(buf, len, i, "encoding", MCPP_EINVALID, name, report,
                                        text);
                }
                skip_until = i + n;
            } else if (c == '"') {
                if (!in_string) {
                    in_string = 1;
                    string_start = i;
                } else {
                    in_string = 0;
                    if (i - string_start - 1 > limits->max_string_bytes) {
                        snprintf(text, sizeof text, "string longer than the limit of %zu bytes",
                                 limits->max_string_bytes);
                        return prescan_fail(buf, len, string_start, "limit", MCPP_ELIMIT, name,
                                            report, text);
                    }
                }
            } else if (c == '\\') {
                if (i + 5 < len && s[i + 1] == 'u' && s[i + 2] == '0' && s[i + 3] == '0' &&
                    s[i + 4] == '0' && s[i + 5] == '0')
                    return prescan_fail(buf, len, i, "encoding", MCPP_EINVALID, name, report,
                                        "\\u0000 (NUL) is not allowed inside strings");
                skip_until = i + 2; /* an escaped quote or backslash is not structure */
            } else if (!in_string) {
                if (c == '{' || c == '[') {
                    if (++depth > limits->max_depth) {
                        snprintf(text, sizeof text, "nesting deeper than the limit of %zu levels",
                                 limits->max_depth);
                        return prescan_fail(buf, len, i, "limit", MCPP_ELIMIT, name, report,
                                            text);
                    }
                } else if (depth) {
                    depth--;
                }
            }
        }
    }
    if (in_string && len - string_start - 1 > limits->max_string_bytes) {
        snprintf(text, sizeof text, "string longer than the limit of %zu bytes",
                 limits->max_string_bytes);
        return prescan_fail(buf, len, string_start, "limit", MCPP_ELIMIT, name, report, text);
    }
    return 0;
}

/* ---- the path locator ------------------------------------------------------- */

static size_t skip_ws(const char *b, size_t len, size_t p)
{
    while (p < len && (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r'))
        p++;
    return p;
}

static size_t skip_string(const char *b, size_t len, size_t p)
{
    p++; /* opening quote */
    while (p < len && b[p] != '"')
        p += b[p] == '\\' ? 2 : 1;
    return p < len ? p + 1 : len;
}

static size_t skip_value(const char *b, size_t len, size_t p)
{
    if (p >= len)
        return len;
    if (b[p] == '"')
        return skip_string(b, len, p);
    if (b[p] == '{' || b[p] == '[') {
        size_t depth = 0;
        while (p < len) {
            char c = b[p];
            if (c == '"') {
                p = skip_string(b, len, p);
                continue;
            }
            if (c == '{' || c == '[')
                depth++;
            else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return p + 1;
            }
            p++;
        }
        return len;
    }
    while (p < len && b[p] != ',' && b[p] != '}' && b[p] != ']' && b[p] != ' ' && b[p] != '\n' &&
           b[p] != '\t' && b[p] != '\r')
        p++;
    return p;
}

long mcpp_json_locate(const char *b, size_t len, const char *path, int want_key, int occurrence)
{
    size_t p = skip_ws(b, len, 0);
    size_t key_pos = p;
    const char *comp = path;
    while (*comp) {
        if (*comp == '[') {
            unsigned long index = 0;
            comp++;
            while (*comp >= '0' && *comp <= '9')
                index = index * 10 + (unsigned long)(*comp++ - '0');
            if (*comp == ']')
                comp++;
            if (*comp == '.')
                comp++;
            if (p >= len || b[p] != '[')
                return -1;
            p = skip_ws(b, len, p + 1);
            for (unsigned long k = 0; k < index; k++) {
                p = skip_ws(b, len, skip_value(b, len, p));
                if (p >= len || b[p] != ',')
                    return -1;
                p = skip_ws(b, len, p + 1);
            }
            key_pos = p;
            continue;
        }
        size_t n = strcspn(comp, ".[");
        int last = comp[n] == '\0';
        int seen = 0, found = 0;
        if (p >= len || b[p] != '{')
            return -1;
        p = skip_ws(b, len, p + 1);
        while (p < len && b[p] == '"') {
            size_t kstart = p;
            size_t kend = skip_string(b, len, p);
            int match = kend - kstart - 2 == n && memcmp(b + kstart + 1, comp, n) == 0;
            p = skip_ws(b, len, kend);
            if (p < len && b[p] == ':')
                p = skip_ws(b, len, p + 1);
            if (match && (!last || ++seen == occurrence)) {
                key_pos = kstart;
                found = 1;
                break;
            }
            p = skip_ws(b, len, skip_value(b, len, p));
            if (p < len && b[p] == ',')
                p = skip_ws(b, len, p + 1);
        }
        if (!found)
            return -1;
        comp += n;
        if (*comp == '.')
            comp++;
    }
    return (long)(want_key ? key_pos : p);
}
