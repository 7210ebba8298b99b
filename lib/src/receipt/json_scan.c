/*
 * json_scan.c — byte-level passes over JSON text that cJSON does not do for us:
 *
 *   - the pre-scan, run before cJSON on every input: valid UTF-8, no "\u0000",
 *     nesting depth and string length within limits. It runs first so that a
 *     10^5-deep document is refused in microseconds, before cJSON recurses.
 *     (The direct reader, io/json_bind_reader.c, checks the same rules as it
 *     reads, and runs it only over the free-form values it hands to cJSON.)
 *   - byte offset -> line:column, and the path locator that finds where a
 *     field sits in the text. Both run only on the error path, so a valid
 *     receipt pays nothing for precise messages.
 */
#include <stdio.h>
#include <string.h>

#include "util/error_internal.h"
#include "receipt/load_ctx.h"

size_t mcpp_utf8_sequence(const unsigned char *s, size_t avail)
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
        size_t n = mcpp_utf8_sequence(p + i, len - i);
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
        return mcpp_error_nomem();
    return code;
}

/* ---- the pre-scan ------------------------------------------------------------
 *
 * The input is read in chunks of 64 bytes. For each chunk, vector compares give
 * one bit per byte for quotes, backslashes, opening and closing brackets and
 * bytes >= 0x80 (SSE2 on x86-64, a portable SWAR fallback elsewhere).
 *
 * Fast path (almost every chunk of a receipt): no backslash, no byte >= 0x80.
 * Then the bytes inside strings are the prefix-XOR of the quote bits (the
 * simdjson trick), brackets outside strings are counted with popcount, and the
 * depth limit can only be crossed if depth + opens > limit — only then are the
 * brackets walked one by one.
 *
 * Slow path (a chunk with escapes, UTF-8, or a possible limit crossing): every
 * interesting byte is visited in order, which is exact for all rules. Both
 * paths share the same state (inside a string, depth, where the string began,
 * bytes to skip after an escape or a multi-byte character). */

typedef struct chunk_masks {
    uint64_t quote, backslash, open, close, high;
} chunk_masks;

/* Counting set bits without a call: on baseline x86-64 (no POPCNT)
 * __builtin_popcountll calls libgcc, twice per chunk. */
static inline unsigned bit_count(uint64_t x)
{
#if defined(__POPCNT__) || !defined(__GNUC__)
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (unsigned)((x * 0x0101010101010101ULL) >> 56);
#endif
}

#if defined(__SSE2__)
#include <emmintrin.h>
static inline uint64_t movemask64(__m128i a, __m128i b, __m128i c, __m128i d)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(a) |
           (uint64_t)(unsigned)_mm_movemask_epi8(b) << 16 |
           (uint64_t)(unsigned)_mm_movemask_epi8(c) << 32 |
           (uint64_t)(unsigned)_mm_movemask_epi8(d) << 48;
}
/* Quotes and brackets always; backslashes and bytes >= 0x80 only as "any in
 * this chunk" (one OR-reduced movemask), because a chunk with either takes the
 * slow path, which asks for them in full (full = 1). */
static inline void classify64(const unsigned char *p, chunk_masks *m, int full)
{
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'), bit5 = _mm_set1_epi8(0x20);
    __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    __m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
    /* '[' '{' and ']' '}' differ in bit 5 only */
    __m128i f0 = _mm_or_si128(v0, bit5), f1 = _mm_or_si128(v1, bit5);
    __m128i f2 = _mm_or_si128(v2, bit5), f3 = _mm_or_si128(v3, bit5);
    m->quote = movemask64(_mm_cmpeq_epi8(v0, quote), _mm_cmpeq_epi8(v1, quote),
                          _mm_cmpeq_epi8(v2, quote), _mm_cmpeq_epi8(v3, quote));
    m->open = movemask64(_mm_cmpeq_epi8(f0, open), _mm_cmpeq_epi8(f1, open),
                         _mm_cmpeq_epi8(f2, open), _mm_cmpeq_epi8(f3, open));
    m->close = movemask64(_mm_cmpeq_epi8(f0, close), _mm_cmpeq_epi8(f1, close),
                          _mm_cmpeq_epi8(f2, close), _mm_cmpeq_epi8(f3, close));
    __m128i b0 = _mm_cmpeq_epi8(v0, bslash), b1 = _mm_cmpeq_epi8(v1, bslash);
    __m128i b2 = _mm_cmpeq_epi8(v2, bslash), b3 = _mm_cmpeq_epi8(v3, bslash);
    if (full) {
        m->backslash = movemask64(b0, b1, b2, b3);
        m->high = movemask64(v0, v1, v2, v3);
    } else {
        /* the high bit of a byte is set for a backslash (0xFF) or a byte >= 0x80 */
        __m128i any = _mm_or_si128(_mm_or_si128(_mm_or_si128(b0, b1), _mm_or_si128(b2, b3)),
                                   _mm_or_si128(_mm_or_si128(v0, v1), _mm_or_si128(v2, v3)));
        m->backslash = (uint64_t)(unsigned)_mm_movemask_epi8(any); /* nonzero: not fast */
        m->high = 0;
    }
}
#else
#define ONES 0x0101010101010101ULL
#define LOWS 0x7F7F7F7F7F7F7F7FULL
#define HIGHS 0x8080808080808080ULL
/* High bit of each byte of w that equals c (exact per byte, no carries). */
static inline uint64_t eq_mask(uint64_t w, unsigned char c)
{
    uint64_t t = w ^ (ONES * c);
    return ~(((t & LOWS) + LOWS) | t) & HIGHS;
}
/* One bit per byte (lowest address first) from the byte-high-bit mask m. */
static inline uint64_t gather(uint64_t m)
{
    uint64_t bits = 0;
    for (int k = 0; k < 8; k++)
        bits |= ((m >> (8 * k + 7)) & 1u) << k;
    return bits;
}
static inline void classify64(const unsigned char *p, chunk_masks *m, int full)
{
    (void)full; /* always full */
    memset(m, 0, sizeof *m);
    for (int k = 0; k < 8; k++) {
        uint64_t w;
        memcpy(&w, p + 8 * k, 8);
        uint64_t folded = w | (ONES * 0x20);
        m->quote |= gather(eq_mask(w, '"')) << (8 * k);
        m->backslash |= gather(eq_mask(w, '\\')) << (8 * k);
        m->open |= gather(eq_mask(folded, '{')) << (8 * k);
        m->close |= gather(eq_mask(folded, '}')) << (8 * k);
        m->high |= gather(w & HIGHS) << (8 * k);
    }
}
#endif

/* Bit i set when an odd number of bits at positions <= i are set. */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

typedef struct prescan_state {
    const unsigned char *s;
    size_t len;
    const mcpp_limits *limits;
    const char *name;
    mcpp_report *report;
    size_t depth, skip_until, string_start;
    int in_string;
} prescan_state;

static int fail_string_limit(prescan_state *st)
{
    char text[160];
    snprintf(text, sizeof text, "string longer than the limit of %zu bytes",
             st->limits->max_string_bytes);
    return prescan_fail((const char *)st->s, st->len, st->string_start, "limit", MCPP_ELIMIT,
                        st->name, st->report, text);
}

static int fail_depth_limit(prescan_state *st, size_t at)
{
    char text[160];
    snprintf(text, sizeof text, "nesting deeper than the limit of %zu levels",
             st->limits->max_depth);
    return prescan_fail((const char *)st->s, st->len, at, "limit", MCPP_ELIMIT, st->name,
                        st->report, text);
}

/* Visits every interesting byte of one chunk in order: exact for every rule. */
static int scan_chunk_slow(prescan_state *st, size_t base, uint64_t mask)
{
    const unsigned char *s = st->s;
    size_t len = st->len;
    char text[160];
    while (mask) {
        size_t i = base + (size_t)__builtin_ctzll(mask);
        mask &= mask - 1;
        if (i < st->skip_until || i >= len)
            continue;
        unsigned char c = s[i];
        if (c >= 0x80) {
            size_t n = mcpp_utf8_sequence(s + i, len - i);
            if (!n) {
                snprintf(text, sizeof text, "invalid UTF-8 (byte 0x%02X)", c);
                return prescan_fail((const char *)s, len, i, "encoding", MCPP_EINVALID,
                                    st->name, st->report, text);
            }
            st->skip_until = i + n;
        } else if (c == '"') {
            if (!st->in_string) {
                st->in_string = 1;
                st->string_start = i;
            } else {
                st->in_string = 0;
                if (i - st->string_start - 1 > st->limits->max_string_bytes)
                    return fail_string_limit(st);
            }
        } else if (c == '\\') {
            if (i + 5 < len && s[i + 1] == 'u' && s[i + 2] == '0' && s[i + 3] == '0' &&
                s[i + 4] == '0' && s[i + 5] == '0')
                return prescan_fail((const char *)s, len, i, "encoding", MCPP_EINVALID, st->name,
                                    st->report, "\\u0000 (NUL) is not allowed inside strings");
            st->skip_until = i + 2; /* an escaped quote or backslash is not structure */
        } else if (!st->in_string) {
            if (c == '{' || c == '[') {
                if (++st->depth > st->limits->max_depth)
                    return fail_depth_limit(st, i);
            } else if (st->depth) {
                st->depth--;
            }
        }
    }
    return 0;
}

int mcpp_json_prescan(const char *buf, size_t len, const mcpp_limits *limits, const char *name,
                      mcpp_report *report)
{
    prescan_state st = {(const unsigned char *)buf, len, limits, name, report, 0, 0, 0, 0};
    /* strings that fit in a chunk need no length check only if the limit is >= 64 */
    int fast_ok = limits->max_string_bytes >= 64;
    for (size_t base = 0; base < len; base += 64) {
        chunk_masks m;
        unsigned char tail[64];
        const unsigned char *chunk = st.s + base;
        if (base + 64 > len) {
            memset(tail, 0, sizeof tail); /* NUL bytes are not interesting */
            memcpy(tail, st.s + base, len - base);
            chunk = tail;
        }
        classify64(chunk, &m, 0);
        if (fast_ok && !m.backslash && !m.high && st.skip_until <= base) {
            uint64_t inside = prefix_xor(m.quote) ^ (st.in_string ? ~(uint64_t)0 : 0);
            if (st.in_string && m.quote) { /* the string carried in ends here */
                size_t end = base + (size_t)__builtin_ctzll(m.quote);
                if (end - st.string_start - 1 > limits->max_string_bytes)
                    return fail_string_limit(&st);
            }
            uint64_t opens = m.open & ~inside, closes = m.close & ~inside;
            size_t n_open = bit_count(opens);
            size_t n_close = bit_count(closes);
            if (st.depth + n_open <= limits->max_depth && n_close <= st.depth) {
                st.depth = st.depth + n_open - n_close;
                if (inside >> 63 && m.quote) /* a string opens here and runs on */
                    st.string_start = base + 63 - (size_t)__builtin_clzll(m.quote);
                st.in_string = (int)(inside >> 63);
                continue;
            }
        }
        classify64(chunk, &m, 1);
        int rc = scan_chunk_slow(&st, base, m.quote | m.backslash | m.open | m.close | m.high);
        if (rc)
            return rc;
    }
    if (st.in_string && len - st.string_start - 1 > limits->max_string_bytes)
        return fail_string_limit(&st);
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
