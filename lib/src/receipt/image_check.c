/*
 * image_check.c — every value of a relocated image checked against what the
 * binder would have let into a receipt (image.h), before anything reads it.
 *
 * The image's checksum catches bit rot but not a forger, who can recompute
 * it; its offsets are checked while relocating. What is left is the values
 * themselves: an enum index outside its name table is read as an index into
 * that table (a crash, or another field's name), a string that is not UTF-8
 * goes into exports that no longer load, an integer beyond 2^53 is not exact
 * in JSON. So each present field gets the binder's rules for its storage
 * kind, and every absent field is zeroed (the image may hold anything there,
 * and a reader that forgot a presence test must not find a stale pointer).
 * A value that breaks a rule refuses the whole image: the store then parses
 * the row's body, the receipt's truth.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "receipt/image.h"
#include "receipt/load_ctx.h"
#include "receipt/schema.h"
#include "util/utf8.h"


typedef struct check {
    char *why; /* the first rule broken, for `store check` (may be NULL) */
    size_t why_len;
    const mcpp_limits *limits;
    int bad;
} check;

static void refuse(check *c, const char *path, const char *fmt, ...)
{
    if (c->bad++ || !c->why) return;
    int n = snprintf(c->why, c->why_len, "%s: ", path);
    if (n < 0 || (size_t)n >= c->why_len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why + n, c->why_len - (size_t)n, fmt, ap);
    va_end(ap);
}

/* 1 when s[0..n) is well-formed UTF-8 (util/utf8.h: no overlongs, surrogates
 * or code points beyond U+10FFFF, as the loader's prescan). */
static int utf8_ok(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        /* ASCII eight bytes at a time: most of what is checked is keys,
         * names and paths in plain ASCII */
        uint64_t word;
        while (end - p >= 8 && (memcpy(&word, p, 8), (word & 0x8080808080808080ull) == 0)) p += 8;
        if (p == end) break;
        if (*p < 0x80) {
            p++;
            continue;
        }
        uint32_t cp;
        size_t len = mcpp_utf8_decode(p, &cp);
        if (len == 0 || len > (size_t)(end - p)) return 0;
        p += len;
    }
    return 1;
}

/* A string the binder could have stored: present, UTF-8, within the length limit. */
static void check_text(check *c, const char *path, const char *s)
{
    if (!s) {
        refuse(c, path, "a string is missing");
        return;
    }
    size_t n = strlen(s);
    if (n > c->limits->max_string_bytes) refuse(c, path, "a string of %zu bytes is over the limit", n);
    else if (!utf8_ok(s, n)) refuse(c, path, "a string is not valid UTF-8");
}

/* Says what is wrong with a number that failed check_doubles. */
static void check_number(check *c, const mcpp_schema_entry *e, double d)
{
    const char *range;
    if (!isfinite(d)) refuse(c, e->info.path, "a number is not finite");
    else if ((range = mcpp_range_problem(e->range, d))) refuse(c, e->info.path, "expected %s", range);
}

/* The lowest value a range allows (step samples run to thousands: one
 * comparison each instead of a call). */
static double range_floor(int range, int *strict)
{
    *strict = range == MCPP_RANGE_GT0;
    switch (range) {
    case MCPP_RANGE_GE0:
    case MCPP_RANGE_GT0: return 0;
    case MCPP_RANGE_GE1: return 1;
    default: return -INFINITY;
    }
}

static void check_doubles(check *c, const mcpp_schema_entry *e, const double *items, size_t n)
{
    int strict;
    double lo = range_floor(e->range, &strict);
    for (size_t i = 0; i < n; i++) {
        double d = items[i];
        if (isfinite(d) && (strict ? d > lo : d >= lo)) continue;
        check_number(c, e, d);
        return;
    }
}

static size_t enum_count(const char *const *names)
{
    size_t n = 0;
    while (names && names[n]) n++;
    return n;
}

/* A free-form value: kinds, keys only on object members, strings, numbers. */
static void check_xnode(check *c, const char *path, const mcpp_xnode *node, int in_object)
{
    if (c->bad) return;
    if (in_object) check_text(c, path, node->key);
    else if (node->key) refuse(c, path, "an array item has a key");
    switch (node->kind) {
    case MCPP_X_NUMBER:
        if (!isfinite(node->number)) refuse(c, path, "a number is not finite");
        break;
    case MCPP_X_STRING: check_text(c, path, node->str); break;
    case MCPP_X_ARRAY:
    case MCPP_X_OBJECT:
        if (node->count && !node->children) refuse(c, path, "a container has no items");
        for (uint32_t i = 0; node->children && i < node->count && !c->bad; i++)
            check_xnode(c, path, &node->children[i], node->kind == MCPP_X_OBJECT);
        break;
    default: break;
    }
}

static void check_field(check *c, mcpp_receipt *r, int id)
{
    const mcpp_schema_entry *e = &mcpp_schema_entries[id];
    const char *path = e->info.path;
    void *f = mcpp_field_ptr(&r->f, id);
    switch (e->storage) {
    case MCPP_ST_BOOL:
        if (*(uint8_t *)f > 1) refuse(c, path, "a boolean is %u", *(uint8_t *)f);
        break;
    case MCPP_ST_INT:
    case MCPP_ST_INT32: {
        int64_t v = mcpp_int_slot_read(f, e->storage); /* only its size and range can be wrong */
        if (v > (int64_t)1 << 53 || v < -((int64_t)1 << 53)) refuse(c, path, "an integer is outside +-2^53");
        else if (mcpp_int_width_problem(e->storage, (double)v)) refuse(c, path, "an integer is outside +-2^31");
        else check_doubles(c, e, &(double){(double)v}, 1);
        break;
    }
    case MCPP_ST_DOUBLE: check_doubles(c, e, (double *)f, 1); break;
    case MCPP_ST_ENUM: {
        int8_t v = *(int8_t *)f;
        if (v < 0 || (size_t)v >= enum_count(e->info.enum_names)) refuse(c, path, "enum index %d is out of range", v);
        break;
    }
    case MCPP_ST_STRING: {
        const char *s = *(const char **)f;
        check_text(c, path, s);
        if (!c->bad && e->info.enum_names && mcpp_enum_index(e->info.enum_names, s) < 0)
            refuse(c, path, "a value outside its names");
        break;
    }
    case MCPP_ST_SLIST: {
        const mcpp_string_list *l = f;
        if (l->count > c->limits->max_array_items || (l->count && !l->items))
            refuse(c, path, "a list of %zu items", l->count);
        for (size_t i = 0; l->items && i < l->count && !c->bad; i++) check_text(c, path, l->items[i]);
        break;
    }
    case MCPP_ST_DLIST: {
        const mcpp_double_list *l = f;
        if (l->count > c->limits->max_array_items || (l->count && !l->items))
            refuse(c, path, "a list of %zu items", l->count);
        if (l->items && !c->bad) check_doubles(c, e, l->items, l->count);
        break;
    }
    case MCPP_ST_OBJECT:
    case MCPP_ST_METRICS: {
        const mcpp_xnode *node = ((mcpp_object_slot *)f)->node;
        int want = e->storage == MCPP_ST_OBJECT ? MCPP_X_OBJECT : MCPP_X_ARRAY;
        if (!node || node->kind != want) refuse(c, path, "not an %s", want == MCPP_X_OBJECT ? "object" : "array");
        else check_xnode(c, path, node, 0);
        break;
    }
    case MCPP_ST_ARTIFACTS: {
        const mcpp_artifact_list *l = f;
        if (l->count > c->limits->max_array_items || (l->count && !l->items))
            refuse(c, path, "a list of %zu items", l->count);
        for (size_t i = 0; l->items && i < l->count && !c->bad; i++) {
            check_text(c, path, l->items[i].kind);
            check_text(c, path, l->items[i].uri);
        }
        break;
    }
    default: refuse(c, path, "an unknown storage kind"); break;
    }
}

/* The derived id in the head: "r-" and 16 lowercase hex digits. */
static int derived_id_ok(const mcpp_receipt *r)
{
    const char *id = mcpp_head_derived_id(r);
    if (id[0] != 'r' || id[1] != '-' || id[18] != '\0') return 0;
    for (int i = 2; i < 18; i++)
        if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f'))) return 0;
    return 1;
}

int mcpp_receipt_image_check_values(mcpp_receipt *r, char *why, size_t why_len)
{
    mcpp_limits limits = MCPP_LIMITS_INIT;
    check c = {why, why_len, &limits, 0};
    if (why && why_len) why[0] = '\0';
    for (int w = 0; w < MCPP_PRESENT_WORDS; w++) {
        int first = w * 64, last = first + 64;
        uint64_t known = last <= MCPP_FIELD_COUNT ? ~(uint64_t)0 : ((uint64_t)1 << (MCPP_FIELD_COUNT - first)) - 1;
        if (r->present[w] & ~known) refuse(&c, "(presence)", "a field beyond the schema is marked present");
    }
    for (int id = 0; id < MCPP_FIELD_COUNT && !c.bad; id++) {
        if (mcpp_present(r, id)) check_field(&c, r, id);
        else
            memset(mcpp_field_ptr(&r->f, id), 0, mcpp_member_size(id));
    }
    if (!c.bad && !mcpp_present(r, MCPP_F_id) && !derived_id_ok(r)) refuse(&c, "id", "the derived id is malformed");
    return c.bad ? MCPP_EINVALID : MCPP_OK;
}
