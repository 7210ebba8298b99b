/*
 * edit_distance.c — see edit_distance.h.
 */
#include "util/edit_distance.h"

#include <string.h>

size_t mcpp_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *mcpp_closest_name(const char *name, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, limit = mcpp_edit_distance_limit(strlen(name));
    for (size_t i = 0; i < n; i++) {
        size_t d = mcpp_edit_distance(name, candidates[i]);
        if (d < best_d)
            best_d = d, best = candidates[i];
    }
    return best_d <= limit ? best : NULL;
}

static unsigned char ascii_lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c; }

static int is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (ascii_lower(c) >= 'a' && ascii_lower(c) <= 'z');
}

/* Whether `text` is `prefix` (whole), or starts with it and a word ends there
 * ("NAM56R hybrid", "flash_attn": never "AEME" in "AEMEAEMR", another
 * pattern), ASCII case aside. */
static int starts_caseless(const char *text, const char *prefix, int whole)
{
    const unsigned char *t = (const unsigned char *)text, *p = (const unsigned char *)prefix;
    for (; *p; t++, p++)
        if (ascii_lower(*t) != ascii_lower(*p))
            return 0;
    return whole ? !*t : *t && !is_alnum(*t);
}

const char *mcpp_meant_value(const char *value, const char *const *candidates, size_t n, size_t *others)
{
    if (others)
        *others = 0;
    const char *near = NULL;
    for (size_t i = 0; !near && i < n; i++)
        if (starts_caseless(candidates[i], value, 1))
            near = candidates[i];
    if (near || strlen(value) < 2)
        return near;
    for (size_t i = 0; i < n; i++)
        if (starts_caseless(candidates[i], value, 0)) {
            if (near && others)
                ++*others;
            else if (!near)
                near = candidates[i];
        }
    return near;
}
