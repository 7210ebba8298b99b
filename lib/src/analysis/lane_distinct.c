/*
 * lane_distinct.c — what tells a lane apart from its neighbours: the key
 * fields in which it differs from the lanes next to it, as
 * "moe=jagged, seq_len=8192". Three lanes all named "NAM56R hybrid MoE lane"
 * read the same in any report; every display of a lane (text, Markdown, JSON,
 * Python, plots) shows this next to its label, and all of them take it from
 * here, so they never disagree.
 *
 * Works on key texts alone (mcpp_lane_key_append: "dim=v1|v2;dim=v3", with
 * ';', '|', '=' and ',' inside values escaped by '\'), so lanes rebuilt from
 * serialized summaries are described exactly like lanes built from receipts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"
#include "analysis/lane_internal.h"

#define MAX_PARTS 256

typedef struct part {
    const char *text;
    size_t len;
} part;

/* Splits s[0..len) at unescaped `sep` into at most MAX_PARTS parts (escapes kept). */
static size_t split_unescaped(const char *s, size_t len, char sep, part *parts)
{
    size_t n = 0;
    const char *start = s;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] == '\\' && i + 1 < len) {
            i++;
            continue;
        }
        if (i < len && s[i] != sep) continue;
        if (n < MAX_PARTS) parts[n++] = (part){start, (size_t)(s + i - start)};
        start = s + i + 1;
    }
    return n;
}

/* The field values of a key, in key order (each segment's "dim=" left out). */
static size_t key_values(const char *key, part *values)
{
    part segs[MAX_PARTS];
    size_t n_segs = split_unescaped(key, strlen(key), ';', segs), n = 0;
    for (size_t k = 0; k < n_segs; k++) {
        const char *eq = memchr(segs[k].text, '=', segs[k].len);
        if (!eq) continue;
        size_t skip = (size_t)(eq + 1 - segs[k].text);
        part fields[MAX_PARTS];
        size_t nf = split_unescaped(eq + 1, segs[k].len - skip, '|', fields);
        for (size_t f = 0; f < nf && n < MAX_PARTS; f++) values[n++] = fields[f];
    }
    return n;
}

/* Last path parts that say little alone: they keep their parent's name. */
static const char *const GENERIC_NAMES[] = {"path", "count", "mode", "name", "state", "per_node", "score", NULL};

/* A field's short name, written to buf: the path without its requested /
 * observed part, cut to its last part ("backend.moe.observed" -> "moe",
 * "workload.seq_len" -> "seq_len"), or its last two where the last alone says
 * little ("workload.data.path" -> "data.path"). */
static void short_name(char *buf, size_t cap, const char *path)
{
    char parts[8][64];
    size_t n = 0;
    for (const char *p = path; *p && n < 8;) {
        size_t len = strcspn(p, ".");
        if (len < sizeof parts[0] && !(len == 8 && strncmp(p, "observed", 8) == 0) &&
            !(len == 9 && strncmp(p, "requested", 9) == 0)) {
            memcpy(parts[n], p, len);
            parts[n++][len] = '\0';
        }
        p += len + (p[len] == '.');
    }
    if (n == 0) {
        snprintf(buf, cap, "%s", path);
        return;
    }
    int generic = 0;
    for (size_t i = 0; GENERIC_NAMES[i]; i++) generic |= strcmp(parts[n - 1], GENERIC_NAMES[i]) == 0;
    if (generic && n > 1)
        snprintf(buf, cap, "%s.%s", parts[n - 2], parts[n - 1]);
    else
        snprintf(buf, cap, "%s", parts[n - 1]);
}

/* Appends the name of key field `index` of the policy: its short name, or
 * its whole path when another key field has the same short name. */
static void put_field_name(mcpp_strbuf *b, const char *const *paths, size_t n_paths, size_t index)
{
    char name[160], other[160];
    short_name(name, sizeof name, paths[index]);
    for (size_t i = 0; i < n_paths; i++) {
        short_name(other, sizeof other, paths[i]);
        if (i != index && strcmp(name, other) == 0) {
            mcpp_sb_puts(b, paths[index]);
            return;
        }
    }
    mcpp_sb_puts(b, name);
}

/* Appends a value with its key escapes removed. */
static void put_unescaped(mcpp_strbuf *b, part v)
{
    for (size_t i = 0; i < v.len; i++) {
        if (v.text[i] == '\\' && i + 1 < v.len) i++;
        mcpp_sb_putc(b, v.text[i]);
    }
}

static int same_part(part a, part b) { return a.len == b.len && memcmp(a.text, b.text, a.len) == 0; }

int mcpp_lane_key_differences(char **out, const mcpp_policy *p, const char *key, const char *const *neighbours,
                              size_t n)
{
    MCPP_CHECK_ARG(out && p && key && (!n || neighbours), "mcpp_lane_key_differences: NULL argument");
    *out = NULL;
    const char *paths[MAX_PARTS];
    size_t n_paths = 0;
    for (size_t k = 0; k < mcpp_lane_key_dim_count(p); k++) {
        const mcpp_policy_dim *d = mcpp_lane_key_dim(p, k);
        for (size_t f = 0; f < d->n_fields && n_paths < MAX_PARTS; f++) paths[n_paths++] = d->paths[f];
    }
    part mine[MAX_PARTS], theirs[MAX_PARTS];
    size_t n_mine = key_values(key, mine);
    unsigned char differs[MAX_PARTS] = {0};
    for (size_t i = 0; i < n; i++) {
        size_t n_theirs = key_values(neighbours[i], theirs);
        for (size_t f = 0; f < n_mine && f < n_theirs; f++)
            if (!same_part(mine[f], theirs[f])) differs[f] = 1;
    }
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 64);
    size_t shown = 0;
    for (size_t f = 0; f < n_mine && f < n_paths; f++) {
        if (!differs[f]) continue;
        if (shown++) mcpp_sb_puts(&b, ", ");
        put_field_name(&b, paths, n_paths, f);
        mcpp_sb_putc(&b, '=');
        put_unescaped(&b, mine[f]);
    }
    return mcpp_sb_finish(&b, out);
}
