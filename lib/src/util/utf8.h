/*
 * utf8.h — decoding one UTF-8 sequence, for the escapers that must tell a
 * character from a stray byte (util/escape.c, the JSON string escaper).
 */
#ifndef MCPP_UTIL_UTF8_H
#define MCPP_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length (1..4) of the well-formed UTF-8 sequence at `s` (NUL-terminated)
 * with its code point in *cp; 0 when the byte at `s` starts none (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF, or a
 * sequence cut short). */
static inline size_t mcpp_utf8_decode(const unsigned char *s, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) n = 2, v = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, v = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, v = c & 0x07, min = 0x10000;
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0; /* also stops at the terminating NUL */
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

#endif /* MCPP_UTIL_UTF8_H */
