/*
 * strbuf.h — the one growable text buffer of the library, and the canonical
 * text of scalars written into it: shortest round-trip doubles, decimal
 * integers and JSON string literals. Every writer and renderer uses these, so
 * a value reads the same in a receipt, a lane key and a report.
 */
#ifndef MCPP_UTIL_STRBUF_H
#define MCPP_UTIL_STRBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A NUL-terminated buffer that grows on the heap. It may start in caller
 * memory (a stack array); on allocation failure it latches `failed` and
 * ignores further appends, so callers check once at the end. */
typedef struct mcpp_strbuf {
    char *data;
    size_t len, cap;
    int failed;
    int owned; /* data is heap memory this buffer must free */
    /* A streaming buffer hands its text to sink whenever its block is full
     * (and at mcpp_sb_flush) and starts again at the block's beginning: what
     * was written before is gone from data, so only writers that append
     * (never read back or cut) may write into one. */
    int (*sink)(void *ctx, const char *data, size_t len);
    void *sink_ctx;
    int sink_failed; /* the sink refused a piece (failed is latched too) */
} mcpp_strbuf;

/* Starts in `initial` (cap bytes, may be NULL): nothing is allocated yet. */
void mcpp_sb_init(mcpp_strbuf *sb, char *initial, size_t cap);
/* Starts with a heap block of `initial` bytes holding "" (data is never NULL
 * unless the allocation failed, which latches `failed`). */
void mcpp_sb_init_heap(mcpp_strbuf *sb, size_t initial);
/* A buffer that keeps nothing: every append is skipped before any formatting
 * (for a caller that wants a function's decision now and its text later). */
void mcpp_sb_init_discard(mcpp_strbuf *sb);
/* A streaming buffer (see mcpp_strbuf) with a heap block of `block` bytes. */
void mcpp_sb_init_sink(mcpp_strbuf *sb, size_t block, int (*sink)(void *ctx, const char *data, size_t len), void *ctx);
/* Hands what a streaming buffer holds to its sink; -1 when the sink refused
 * it or an append failed. */
int mcpp_sb_flush(mcpp_strbuf *sb);
/* Makes room for `extra` more bytes and the NUL (a streaming buffer first
 * hands its text to the sink); -1 (and `failed` latched) when that fails or
 * an earlier append failed. */
int mcpp_sb_grow(mcpp_strbuf *sb, size_t extra);

/* The appends are inline: writers call them once per character or token,
 * and a call into strbuf.c for each cost a third of writing a receipt's
 * canonical JSON (perf, the store's add). The room check is the fast path. */
static inline void mcpp_sb_put(mcpp_strbuf *sb, const char *s, size_t n)
{
    if (sb->len + n + 1 > sb->cap || sb->failed) {
        if (mcpp_sb_grow(sb, n) != 0)
            return;
    }
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

static inline void mcpp_sb_puts(mcpp_strbuf *sb, const char *s) { mcpp_sb_put(sb, s, strlen(s)); }

static inline void mcpp_sb_putc(mcpp_strbuf *sb, char c)
{
    if (sb->len + 2 > sb->cap || sb->failed) {
        if (mcpp_sb_grow(sb, 1) != 0)
            return;
    }
    sb->data[sb->len++] = c;
    sb->data[sb->len] = '\0';
}
void mcpp_sb_printf(mcpp_strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void mcpp_sb_free(mcpp_strbuf *sb);
/* Hands the text over as a heap string (caller frees with mcpp_free) and
 * empties the buffer; MCPP_ENOMEM (last error set) when an append failed. */
int mcpp_sb_finish(mcpp_strbuf *sb, char **out);

/* The canonical text of a double: integral values below 2^53 in magnitude as
 * exact integers ("-0" as "0"), others as the shortest of %.15g..%.17g that
 * reads back to the same double. With `force_fraction` a ".0" is added when
 * the text would otherwise read as an integer (receipt DOUBLE fields). */
size_t mcpp_format_double(char *buf, size_t cap, double value, int force_fraction); /* its length */
/* Appends mcpp_format_double(value, 0). */
void mcpp_sb_double(mcpp_strbuf *sb, double value);
/* Appends a JSON number: the canonical double, or null when not finite. */
void mcpp_sb_json_number(mcpp_strbuf *sb, double value);
/* Appends a decimal integer. */
void mcpp_sb_int(mcpp_strbuf *sb, int64_t value);
/* Appends `s` as a JSON string literal (quotes included; \b \f \n \r \t \" \\
 * short; other control characters, DEL, the C1 controls U+0080..U+009F and
 * U+2028/U+2029 as \uXXXX; a byte that is not UTF-8 as \ufffd); NULL gives
 * null. The escapers for the other output kinds are in util/escape.h. */
void mcpp_sb_json_string(mcpp_strbuf *sb, const char *s);
/* One member of a JSON object a writer spells out: `key` as it is (the
 * punctuation and quoted name before the value, such as ", \"label\": "),
 * then the value as mcpp_sb_json_string / mcpp_sb_json_number write it. */
void mcpp_sb_json_key_string(mcpp_strbuf *sb, const char *key, const char *s);
void mcpp_sb_json_key_number(mcpp_strbuf *sb, const char *key, double value);

#endif /* MCPP_UTIL_STRBUF_H */
