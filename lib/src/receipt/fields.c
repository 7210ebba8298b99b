/*
 * fields.c — present / compare / hash / text / get of a receipt field by id.
 * The only code outside the receipt module's readers and writers that knows
 * where a field's value lives and how it is stored.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/accelerator.h"
#include "receipt/fields.h"
#include "mcpp_receipts/model_family.h"
#include "receipt/schema.h"
#include "receipt/packed_text.h"
#include "util/strbuf.h"
#include "util/hash.h"

static void put_key_text(mcpp_strbuf *b, const char *s, int escape_key)
{
    if (!escape_key) {
        mcpp_sb_puts(b, s);
        return;
    }
    for (const char *p = s; *p; p++) {
        if (*p == '\\' || *p == ';' || *p == '|' || *p == '=' || *p == ',') mcpp_sb_putc(b, '\\');
        mcpp_sb_putc(b, *p);
    }
}

void mcpp_value_text(mcpp_strbuf *b, const mcpp_value *v, int escape_key)
{
    switch (v->type) {
    case MCPP_TYPE_ABSENT: mcpp_sb_putc(b, '-'); break;
    case MCPP_TYPE_BOOL: mcpp_sb_puts(b, v->boolean ? "true" : "false"); break;
    case MCPP_TYPE_INT: mcpp_sb_int(b, v->integer); break;
    case MCPP_TYPE_DOUBLE: mcpp_sb_double(b, v->number); break;
    case MCPP_TYPE_STRING:
    case MCPP_TYPE_ENUM:
    case MCPP_TYPE_OBJECT: put_key_text(b, v->string ? v->string : "", escape_key); break;
    case MCPP_TYPE_STRING_LIST:
        mcpp_sb_putc(b, '[');
        for (size_t i = 0; i < v->count; i++) {
            if (i) mcpp_sb_puts(b, escape_key ? "\\, " : ", ");
            put_key_text(b, v->strings[i] ? v->strings[i] : "", escape_key);
        }
        mcpp_sb_putc(b, ']');
        break;
    case MCPP_TYPE_DOUBLE_LIST:
        mcpp_sb_putc(b, '[');
        for (size_t i = 0; i < v->count; i++) {
            if (i) mcpp_sb_puts(b, escape_key ? "\\, " : ", ");
            mcpp_sb_double(b, v->doubles[i]);
        }
        mcpp_sb_putc(b, ']');
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

static inline int valid_id(int id) { return id >= 0 && id < MCPP_FIELD_COUNT; }

/* Where each field lives and how it is stored, packed densely: comparisons
 * read this for every field of every pair, and the schema table's entries
 * are too wide to stay in cache. */
typedef struct field_slot {
    uint32_t offset;
    uint8_t storage;
} field_slot;

#define MCPP_X_SLOT(id, sec, name, path, st, range, allowed, doc) \
    {(uint32_t)offsetof(mcpp_fields, id), (uint8_t)MCPP_ST_##st},
static const field_slot slots[MCPP_FIELD_COUNT] = {MCPP_SCHEMA_FIELDS(MCPP_X_SLOT)};
#undef MCPP_X_SLOT

/* mcpp_field_slot (schema.h) with the dense table for staging structs. */
static inline const void *slot_of(const mcpp_receipt *r, int id)
{
    return mcpp_is_compact(r) ? mcpp_field_slot(r, id) : (const char *)&r->f + slots[id].offset;
}

/* ---- Paths inside free-form values (free_paths.c): read by path, compared as values ---- */

/* The value at free path `id` into *v; 1 when present. */
static int free_get(const mcpp_receipt *r, int id, mcpp_value *v)
{
    const char *path = mcpp_free_path_at(id);
    memset(v, 0, sizeof *v);
    v->version = MCPP_VALUE_VERSION;
    v->enum_index = -1;
    if (!path || mcpp_value_at_path(r, path, v) != MCPP_OK) v->type = MCPP_TYPE_ABSENT;
    return v->type != MCPP_TYPE_ABSENT;
}

static mcpp_field_cmp free_compare(const mcpp_receipt *a, const mcpp_receipt *b, int id)
{
    mcpp_value va, vb;
    int pa = free_get(a, id, &va), pb = free_get(b, id, &vb);
    if (!pa && !pb) return MCPP_FIELD_ABSENT;
    if (pa != pb) return MCPP_FIELD_ONE_SIDED;
    return mcpp_value_equal(&va, &vb) ? MCPP_FIELD_EQUAL : MCPP_FIELD_DIFFERS;
}

/* Hashes the value's text (an object's is its canonical JSON), so values
 * mcpp_value_equal calls equal hash equal. */
static uint64_t free_hash(const mcpp_receipt *r, int id, uint64_t h)
{
    mcpp_value v;
    unsigned char tag = (unsigned char)free_get(r, id, &v);
    h = mcpp_fnv1a(&tag, 1, h);
    if (!tag) return h;
    char small[256];
    mcpp_strbuf b;
    mcpp_sb_init(&b, small, sizeof small);
    mcpp_value_text(&b, &v, 0);
    h = mcpp_fnv1a(b.data ? b.data : "", b.len, h);
    mcpp_sb_free(&b);
    return h;
}

static inline int is_free(int id) { return id >= MCPP_FIELD_COUNT; }

static inline int present(const mcpp_receipt *r, int id)
{
    mcpp_value v;
    return is_free(id) ? free_get(r, id, &v) : valid_id(id) && mcpp_present(r, id);
}

int mcpp_field_present(const mcpp_receipt *r, int id) { return present(r, id); }

const mcpp_receipt *mcpp_receipt_retain(const mcpp_receipt *r) { return mcpp_receipt_hold(r); }

static int strings_equal(const char *s, const char *t)
{
    return s == t || (s && t && strcmp(s, t) == 0);
}

/* ---- Accelerator names --------------------------------------------------------
 * compare by what they mean (the alias table, receipt/accelerator.h): "H100",
 * "NVIDIA H100 80GB HBM3" and "NVIDIA H100-SXM5-80GB" are one chip, "NVIDIA
 * H100 PCIe" another. Equality, hashing and lane-key text all use the
 * canonical id, so lanes group by chip; displays keep the raw strings. */

static int is_accelerator(int id)
{
    return id == MCPP_F_hardware_requested_accelerator || id == MCPP_F_hardware_observed_accelerator;
}

/* The canonical id of a raw name (the normalised name when unknown). Lane
 * keys ask for it once or twice per receipt, almost always for the same few
 * names, and the shipped table never changes once loaded: a small per-thread
 * memo of the last names spares normalising and scanning the alias table. */
static void accelerator_id(char *out, size_t cap, const char *raw)
{
    enum { MEMO = 4, MEMO_TEXT = 96 };
    static _Thread_local struct { char raw[MEMO_TEXT], id[MEMO_TEXT]; } memo[MEMO];
    static _Thread_local unsigned memo_next;
    size_t len = strlen(raw);
    int memoable = len > 0 && len < MEMO_TEXT;
    for (unsigned i = 0; memoable && i < MEMO; i++)
        if (strcmp(memo[i].raw, raw) == 0) {
            snprintf(out, cap, "%s", memo[i].id);
            return;
        }
    mcpp_accelerator a;
    if (mcpp_accelerator_canonicalize(&a, NULL, raw) != MCPP_OK) {
        snprintf(out, cap, "%s", raw);
        return;
    }
    snprintf(out, cap, "%s", a.id);
    if (memoable) {
        unsigned slot = memo_next++ % MEMO;
        memcpy(memo[slot].raw, raw, len + 1);
        snprintf(memo[slot].id, MEMO_TEXT, "%s", a.id);
    }
}

/* ---- Precision recipes: a set of formats -------------------------------------------
 * "fp8+bf16" and "bf16+fp8" name one recipe (a recipe is a set: each format
 * once, schema-2.md). Equality, hashing, lane-key text, the request check and
 * claim selectors all read the formats in sorted order; displays keep the
 * raw string (issue 47 item 2). */

static int is_precision(int id)
{
    return id == MCPP_F_backend_precision_requested || id == MCPP_F_backend_precision_observed ||
           id == MCPP_F_routing_expert_precision;
}

static int compare_parts(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t mcpp_precision_recipe_canonical(char *out, size_t cap, const char *raw)
{
    enum { MAX_PARTS = 16, TEXT = 128 };
    char text[TEXT];
    const char *parts[MAX_PARTS];
    size_t n = 0, len = strlen(raw);
    if (len >= TEXT)
        return (size_t)snprintf(out, cap, "%s", raw); /* longer than any valid recipe: as written */
    memcpy(text, raw, len + 1);
    for (char *p = text; n < MAX_PARTS;) {
        parts[n++] = p;
        char *plus = strchr(p, '+');
        if (!plus)
            break;
        *plus = '\0';
        p = plus + 1;
    }
    qsort(parts, n, sizeof parts[0], compare_parts);
    char sorted[TEXT]; /* as long as raw: the same parts, reordered */
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(parts[i]);
        if (i)
            sorted[used++] = '+';
        memcpy(sorted + used, parts[i], k);
        used += k;
    }
    sorted[used] = '\0';
    return (size_t)snprintf(out, cap, "%s", sorted);
}

/* Equality of two names by what they mean: accelerators by canonical id,
 * precision recipes as sets (field `id` says which). */
static int names_equal(int id, const char *s, const char *t)
{
    if (strings_equal(s, t))
        return 1; /* the common case: the same text, no table lookup */
    if (!s || !t)
        return 0;
    char a[128], b[128];
    if (is_precision(id)) {
        mcpp_precision_recipe_canonical(a, sizeof a, s);
        mcpp_precision_recipe_canonical(b, sizeof b, t);
    } else {
        accelerator_id(a, sizeof a, s);
        accelerator_id(b, sizeof b, t);
    }
    return strcmp(a, b) == 0;
}

/* Equality of the stored values of field x in a and field y in b, which
 * share a storage kind; lists and objects compare as values. */
static inline int slots_equal(const mcpp_receipt *a, int x, const mcpp_receipt *b, int y)
{
    const void *p = slot_of(a, x), *q = slot_of(b, y);
    switch (slots[x].storage) {
    case MCPP_ST_BOOL: return *(const uint8_t *)p == *(const uint8_t *)q;
    case MCPP_ST_INT: return *(const int64_t *)p == *(const int64_t *)q;
    case MCPP_ST_INT32: return *(const int32_t *)p == *(const int32_t *)q;
    case MCPP_ST_DOUBLE: return *(const double *)p == *(const double *)q;
    case MCPP_ST_ENUM: return *(const int8_t *)p == *(const int8_t *)q;
    case MCPP_ST_STRING:
        if (is_accelerator(x) || is_precision(x))
            return names_equal(x, *(const char *const *)p, *(const char *const *)q);
        return strings_equal(*(const char *const *)p, *(const char *const *)q);
    default: {
        mcpp_value va, vb;
        mcpp_value_at_field(a, x, &va);
        mcpp_value_at_field(b, y, &vb);
        return mcpp_value_equal(&va, &vb);
    }
    }
}

/* ---- features: a feature stated false is off, the same as not stated ----------------
 * `{"stp": false}`, `{}` and no features map all say "no feature in force"
 * (issue 27), so features compare, hash and key by the members that are not
 * false. Rows still show what each receipt stated. */

static const mcpp_xnode *features_node(const mcpp_receipt *r)
{
    if (!mcpp_present(r, MCPP_F_features)) return NULL;
    const mcpp_xnode *n = ((const mcpp_object_slot *)slot_of(r, MCPP_F_features))->node;
    return n && n->kind == MCPP_X_OBJECT ? n : NULL;
}

/* The i-th member not stated false at or after *at, or NULL; advances *at. */
static const mcpp_xnode *feature_on(const mcpp_xnode *n, uint32_t *at)
{
    for (; n && *at < n->count; (*at)++)
        if (n->children[*at].kind != MCPP_X_FALSE) return &n->children[(*at)++];
    return NULL;
}

static size_t features_on(const mcpp_receipt *r)
{
    const mcpp_xnode *n = features_node(r);
    uint32_t at = 0;
    size_t k = 0;
    while (feature_on(n, &at)) k++;
    return k;
}

/* A member's value as its canonical text: a string's own, a container's
 * compact JSON written into `sb` (the packed tree keeps none); NULL for the
 * other kinds, which compare by kind or number. */
static const char *member_value_text(mcpp_strbuf *sb, const mcpp_xnode *x)
{
    if (x->kind == MCPP_X_STRING)
        return x->str;
    if (x->kind != MCPP_X_ARRAY && x->kind != MCPP_X_OBJECT)
        return NULL;
    mcpp_xnode_compact(sb, x);
    return sb->failed ? "" : sb->data;
}

static int feature_equal(const mcpp_xnode *x, const mcpp_xnode *y)
{
    if (strcmp(x->key, y->key) != 0 || x->kind != y->kind) return 0;
    if (x->kind == MCPP_X_NUMBER) return x->number == y->number;
    if (x->kind == MCPP_X_STRING)
        return strcmp(x->str, y->str) == 0;
    if (x->kind != MCPP_X_ARRAY && x->kind != MCPP_X_OBJECT)
        return 1;
    char ia[256], ib[256];
    mcpp_strbuf ta, tb;
    mcpp_sb_init(&ta, ia, sizeof ia);
    mcpp_sb_init(&tb, ib, sizeof ib);
    int equal = strcmp(member_value_text(&ta, x), member_value_text(&tb, y)) == 0;
    mcpp_sb_free(&ta);
    mcpp_sb_free(&tb);
    return equal;
}

static mcpp_field_cmp features_compare(const mcpp_receipt *a, const mcpp_receipt *b)
{
    size_t na = features_on(a), nb = features_on(b);
    if (!na && !nb) return MCPP_FIELD_ABSENT;
    if (!na || !nb) return MCPP_FIELD_ONE_SIDED;
    if (na != nb) return MCPP_FIELD_DIFFERS;
    const mcpp_xnode *x, *y, *fa = features_node(a), *fb = features_node(b);
    uint32_t ia = 0, ib = 0;
    while ((x = feature_on(fa, &ia)) && (y = feature_on(fb, &ib)))
        if (!feature_equal(x, y)) return MCPP_FIELD_DIFFERS;
    return MCPP_FIELD_EQUAL;
}

/* One member of a free-form object (a feature, a pinned launch setting) into
 * a hash, and as lane-key text "name":value. */
static uint64_t member_hash(const mcpp_xnode *x, uint64_t h)
{
    h = mcpp_fnv1a(x->key, strlen(x->key) + 1, h);
    h = mcpp_fnv1a(&x->kind, 1, h);
    if (x->kind == MCPP_X_NUMBER) {
        double v = x->number == 0 ? 0 : x->number;
        return mcpp_fnv1a(&v, sizeof v, h);
    }
    char initial[256];
    mcpp_strbuf sb;
    mcpp_sb_init(&sb, initial, sizeof initial);
    const char *text = member_value_text(&sb, x);
    if (text)
        h = mcpp_fnv1a(text, strlen(text) + 1, h);
    mcpp_sb_free(&sb);
    return h;
}

static void member_text(mcpp_strbuf *sb, const mcpp_xnode *x)
{
    mcpp_sb_json_string(sb, x->key);
    mcpp_sb_putc(sb, ':');
    if (x->kind == MCPP_X_NUMBER)
        mcpp_sb_double(sb, x->number);
    else if (x->kind == MCPP_X_TRUE)
        mcpp_sb_puts(sb, "true");
    else if (x->kind == MCPP_X_FALSE)
        mcpp_sb_puts(sb, "false");
    else if (x->kind == MCPP_X_NULL)
        mcpp_sb_puts(sb, "null");
    else if (x->kind == MCPP_X_STRING)
        mcpp_sb_json_string(sb, x->str);
    else
        mcpp_xnode_compact(sb, x);
}

static uint64_t features_hash(const mcpp_receipt *r, uint64_t h)
{
    unsigned char tag = features_on(r) != 0;
    h = mcpp_fnv1a(&tag, 1, h);
    const mcpp_xnode *x, *n = features_node(r);
    uint32_t at = 0;
    while ((x = feature_on(n, &at))) {
        h = member_hash(x, h);
    }
    return h;
}

/* The features in force as lane-key text: {"name":value,...}, or absent's. */
static void features_text(mcpp_strbuf *sb, const mcpp_receipt *r, int escape_key)
{
    if (!features_on(r)) {
        mcpp_value none;
        memset(&none, 0, sizeof none);
        none.type = MCPP_TYPE_ABSENT;
        mcpp_value_text(sb, &none, escape_key);
        return;
    }
    const mcpp_xnode *x, *n = features_node(r);
    uint32_t at = 0;
    int first = 1;
    mcpp_sb_putc(sb, '{');
    while ((x = feature_on(n, &at))) {
        if (!first) mcpp_sb_putc(sb, ',');
        first = 0;
        member_text(sb, x);
    }
    mcpp_sb_putc(sb, '}');
}

/* ---- CUDA graphs: one spelling --------------------------------------------------------
 * launch.cuda_graphs (off, partial, full) is the field; a launcher's pinned
 * policy may also say `cuda_graphs` (launch.fixed_policy.cuda_graphs: false,
 * true or one of the names). Comparisons read the capture once (issue 47 item
 * 10): launch.cuda_graphs, else the pinned policy's, and the pinned policy
 * without that member, so "off" in one receipt and `false` in the other are
 * the same launch. */

static const mcpp_xnode *fixed_policy_node(const mcpp_receipt *r)
{
    if (!mcpp_present(r, MCPP_F_launch_fixed_policy))
        return NULL;
    const mcpp_xnode *n = ((const mcpp_object_slot *)slot_of(r, MCPP_F_launch_fixed_policy))->node;
    return n && n->kind == MCPP_X_OBJECT ? n : NULL;
}

static int is_graphs_key(const mcpp_xnode *x) { return x->key && strcmp(x->key, "cuda_graphs") == 0; }

int mcpp_cuda_graphs_pinned(const mcpp_receipt *r)
{
    const mcpp_xnode *n = fixed_policy_node(r);
    for (uint32_t i = 0; n && i < n->count; i++) {
        const mcpp_xnode *x = &n->children[i];
        if (!is_graphs_key(x))
            continue;
        if (x->kind == MCPP_X_FALSE || (x->kind == MCPP_X_NUMBER && x->number == 0))
            return 0;
        if (x->kind == MCPP_X_TRUE)
            return 3;
        if (x->kind == MCPP_X_STRING) {
            if (strcmp(x->str, "off") == 0)
                return 0;
            if (strcmp(x->str, "partial") == 0)
                return 1;
            if (strcmp(x->str, "full") == 0)
                return 2;
        }
        return 4;
    }
    return -1;
}

/* The capture a receipt ran with: 0 off, 1 partial, 2 full (launch.cuda_graphs'
 * order), 3 on (true: captured, extent not said), 4 another value; -1 none. */
static int graphs_of(const mcpp_receipt *r)
{
    if (mcpp_present(r, MCPP_F_launch_cuda_graphs))
        return *(const int8_t *)slot_of(r, MCPP_F_launch_cuda_graphs);
    return mcpp_cuda_graphs_pinned(r);
}

/* The pinned policy's members but cuda_graphs: how many. */
static size_t pinned_count(const mcpp_xnode *n)
{
    size_t k = 0;
    for (uint32_t i = 0; n && i < n->count; i++)
        k += !is_graphs_key(&n->children[i]);
    return k;
}

static mcpp_field_cmp graphs_compare(const mcpp_receipt *a, const mcpp_receipt *b, int id)
{
    if (id == MCPP_F_launch_cuda_graphs) {
        int ga = graphs_of(a), gb = graphs_of(b);
        if (ga < 0 && gb < 0)
            return MCPP_FIELD_ABSENT;
        if (ga < 0 || gb < 0)
            return MCPP_FIELD_ONE_SIDED;
        return ga == gb ? MCPP_FIELD_EQUAL : MCPP_FIELD_DIFFERS;
    }
    const mcpp_xnode *na = fixed_policy_node(a), *nb = fixed_policy_node(b);
    size_t ca = pinned_count(na), cb = pinned_count(nb);
    if (!ca && !cb)
        return MCPP_FIELD_ABSENT;
    if (!ca || !cb)
        return MCPP_FIELD_ONE_SIDED;
    if (ca != cb)
        return MCPP_FIELD_DIFFERS;
    uint32_t i = 0, j = 0;
    for (size_t k = 0; k < ca; k++, i++, j++) { /* members in canonical (sorted) order */
        while (is_graphs_key(&na->children[i]))
            i++;
        while (is_graphs_key(&nb->children[j]))
            j++;
        if (!feature_equal(&na->children[i], &nb->children[j]))
            return MCPP_FIELD_DIFFERS;
    }
    return MCPP_FIELD_EQUAL;
}

static uint64_t graphs_hash(const mcpp_receipt *r, int id, uint64_t h)
{
    if (id == MCPP_F_launch_cuda_graphs) {
        int g = graphs_of(r);
        return mcpp_fnv1a(&g, sizeof g, h);
    }
    const mcpp_xnode *n = fixed_policy_node(r);
    size_t count = pinned_count(n);
    h = mcpp_fnv1a(&count, sizeof count, h);
    for (uint32_t i = 0; count && i < n->count; i++) {
        const mcpp_xnode *x = &n->children[i];
        if (is_graphs_key(x))
            continue;
        h = member_hash(x, h);
    }
    return h;
}

/* Lane-key text of the capture or of the pinned policy without it. */
static void graphs_text(mcpp_strbuf *sb, const mcpp_receipt *r, int id, int escape_key)
{
    static const char *const names[] = {"off", "partial", "full", "on", "other"};
    mcpp_value none;
    memset(&none, 0, sizeof none);
    none.type = MCPP_TYPE_ABSENT;
    if (id == MCPP_F_launch_cuda_graphs) {
        int g = graphs_of(r);
        if (g < 0)
            mcpp_value_text(sb, &none, escape_key);
        else
            mcpp_sb_puts(sb, names[g]);
        return;
    }
    const mcpp_xnode *n = fixed_policy_node(r);
    if (!pinned_count(n)) {
        mcpp_value_text(sb, &none, escape_key);
        return;
    }
    int first = 1;
    mcpp_sb_putc(sb, '{');
    for (uint32_t i = 0; i < n->count; i++) {
        const mcpp_xnode *x = &n->children[i];
        if (is_graphs_key(x))
            continue;
        if (!first)
            mcpp_sb_putc(sb, ',');
        first = 0;
        member_text(sb, x);
    }
    mcpp_sb_putc(sb, '}');
}

static int is_graphs(int id) { return id == MCPP_F_launch_cuda_graphs || id == MCPP_F_launch_fixed_policy; }

/* ---- lane.pattern and lane.depth: one stack, however it is written -----------------
 * The 52-letter expanded pattern (Megatron style) and "AEMEAEMEAEMR" tiled to
 * depth 52 are one stack (issue 27): both fields compare, hash and key by
 * the canonical form (mcpp_pattern_canonical); a depth not stated is the
 * written pattern's length. */

static int is_shape(int id) { return id == MCPP_F_lane_pattern || id == MCPP_F_lane_depth; }

/* The canonical text (pattern) or depth of r into buf / *depth; 0 when absent. */
static int shape_of(const mcpp_receipt *r, int id, char *buf, size_t cap, int64_t *depth)
{
    int has_pattern = mcpp_present(r, MCPP_F_lane_pattern), has_depth = mcpp_present(r, MCPP_F_lane_depth);
    int64_t stated = has_depth ? mcpp_int_slot_read(slot_of(r, MCPP_F_lane_depth), slots[MCPP_F_lane_depth].storage) : 0;
    if (!has_pattern) {
        *depth = stated;
        buf[0] = '\0';
        return id == MCPP_F_lane_depth ? has_depth : 0;
    }
    const char *pattern = *(const char *const *)slot_of(r, MCPP_F_lane_pattern);
    size_t n = mcpp_pattern_canonical(buf, cap, depth, pattern, stated);
    if (n >= cap) snprintf(buf, cap, "%s", pattern); /* longer than any real period: as written */
    return 1;
}

static mcpp_field_cmp shape_compare(const mcpp_receipt *a, const mcpp_receipt *b, int id)
{
    char ta[256], tb[256];
    int64_t da, db;
    int pa = shape_of(a, id, ta, sizeof ta, &da), pb = shape_of(b, id, tb, sizeof tb, &db);
    if (!pa && !pb) return MCPP_FIELD_ABSENT;
    if (pa != pb) return MCPP_FIELD_ONE_SIDED;
    if (id == MCPP_F_lane_depth) return da == db ? MCPP_FIELD_EQUAL : MCPP_FIELD_DIFFERS;
    return strcmp(ta, tb) == 0 ? MCPP_FIELD_EQUAL : MCPP_FIELD_DIFFERS;
}

static uint64_t shape_hash(const mcpp_receipt *r, int id, uint64_t h)
{
    char t[256];
    int64_t d;
    unsigned char tag = (unsigned char)shape_of(r, id, t, sizeof t, &d);
    h = mcpp_fnv1a(&tag, 1, h);
    if (!tag) return h;
    return id == MCPP_F_lane_depth ? mcpp_fnv1a(&d, sizeof d, h) : mcpp_fnv1a(t, strlen(t) + 1, h);
}

/* ---- run.position: where in training the window was measured ----------------------
 * The step and the tokens seen compare and hash by their power-of-two range
 * (0, 1, 2-3, 4-7, ..., 4096-8191, ...): windows in one range are at the same
 * position, and a warm-up window (step 20) against steady state (step 6000)
 * differs (issue 27 item 14). A range, not a ratio, so that equality stays
 * transitive and equal positions hash equal. */

static int is_position(int id) { return id == MCPP_F_run_position_step || id == MCPP_F_run_position_tokens_seen; }

static unsigned position_range(const mcpp_receipt *r, int id)
{
    int64_t v = mcpp_int_slot_read(slot_of(r, id), slots[id].storage);
    return v <= 0 ? 0u : 64u - (unsigned)__builtin_clzll((uint64_t)v);
}

/* ---- metrics.window.warmup_steps: is the warm-up inside the measured window ----------
 * Compared, hashed and keyed by whether any step ran before the window: 0
 * (compile and warm-up measured, a cold window) against some (steady state)
 * is a different starting line (issue 47 items 3 and 11); 10 against 20 is
 * the same one. */

static int is_warmup(int id) { return id == MCPP_F_metrics_window_warmup_steps; }

static unsigned warmup_class(const mcpp_receipt *r)
{
    return mcpp_int_slot_read(slot_of(r, MCPP_F_metrics_window_warmup_steps),
                              slots[MCPP_F_metrics_window_warmup_steps].storage) > 0;
}

/* ---- launch.generated_args: a set of arguments --------------------------------------
 * The same arguments generated in another order are the same launch (issue
 * 47 item 6): compared, hashed and keyed in sorted order. */

enum { MAX_SORTED_ARGS = 256 };

/* r's generated arguments sorted into out (at most MAX_SORTED_ARGS); their count. */
static size_t sorted_args(const char **out, const mcpp_receipt *r)
{
    const mcpp_string_list *l = &MCPP_FIELD(r, launch_generated_args, mcpp_string_list);
    size_t n = l->count < MAX_SORTED_ARGS ? l->count : MAX_SORTED_ARGS;
    memcpy(out, l->items, n * sizeof *out);
    qsort(out, n, sizeof *out, compare_parts);
    return n;
}

static mcpp_field_cmp args_compare(const mcpp_receipt *a, const mcpp_receipt *b)
{
    const char *x[MAX_SORTED_ARGS], *y[MAX_SORTED_ARGS];
    size_t nx = sorted_args(x, a), ny = sorted_args(y, b);
    if (nx != ny || MCPP_FIELD(a, launch_generated_args, mcpp_string_list).count !=
                        MCPP_FIELD(b, launch_generated_args, mcpp_string_list).count)
        return MCPP_FIELD_DIFFERS;
    for (size_t i = 0; i < nx; i++)
        if (strcmp(x[i], y[i]) != 0)
            return MCPP_FIELD_DIFFERS;
    return MCPP_FIELD_EQUAL;
}

static inline mcpp_field_cmp compare_one(const mcpp_receipt *a, const mcpp_receipt *b, int id)
{
    if (is_free(id)) return free_compare(a, b, id);
    if (id == MCPP_F_features) return features_compare(a, b);
    if (is_shape(id)) return shape_compare(a, b, id);
    if (is_graphs(id))
        return graphs_compare(a, b, id);
    if (!valid_id(id))
        return MCPP_FIELD_ABSENT;
    int pa = mcpp_present(a, id), pb = mcpp_present(b, id);
    if (!pa && !pb)
        return MCPP_FIELD_ABSENT;
    if (pa != pb)
        return MCPP_FIELD_ONE_SIDED;
    if (is_position(id))
        return position_range(a, id) == position_range(b, id) ? MCPP_FIELD_EQUAL : MCPP_FIELD_DIFFERS;
    if (is_warmup(id))
        return warmup_class(a) == warmup_class(b) ? MCPP_FIELD_EQUAL : MCPP_FIELD_DIFFERS;
    if (id == MCPP_F_launch_generated_args)
        return args_compare(a, b);
    return slots_equal(a, id, b, id) ? MCPP_FIELD_EQUAL : MCPP_FIELD_DIFFERS;
}

mcpp_field_cmp mcpp_field_compare(const mcpp_receipt *a, const mcpp_receipt *b, int id)
{
    return compare_one(a, b, id);
}

void mcpp_field_compare_many(mcpp_field_cmp *out, const mcpp_receipt *a, const mcpp_receipt *b,
                             const int *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = compare_one(a, b, ids[i]);
}

int mcpp_field_same(const mcpp_receipt *a, const mcpp_receipt *b, int id)
{
    mcpp_field_cmp c = mcpp_field_compare(a, b, id);
    return c == MCPP_FIELD_ABSENT || c == MCPP_FIELD_EQUAL;
}

int mcpp_field_pair_equal(const mcpp_receipt *r, int x, int y)
{
    if (!valid_id(x) || !valid_id(y) || !mcpp_present(r, x) || !mcpp_present(r, y))
        return 0;
    int storage = mcpp_schema_entries[x].storage;
    if (storage != mcpp_schema_entries[y].storage)
        return 0;
    if (is_accelerator(x) && is_accelerator(y)) { /* a request for a model takes any form of it */
        int ok = 0;
        return mcpp_accelerator_satisfies(&ok, NULL, 0, NULL, *(const char *const *)slot_of(r, x),
                                          *(const char *const *)slot_of(r, y)) == MCPP_OK && ok;
    }
    if (mcpp_storage_is_int(storage) || storage == MCPP_ST_STRING)
        return slots_equal(r, x, r, y);
    mcpp_value vx, vy; /* enums of a pair may list their names differently: compare names */
    mcpp_value_at_field(r, x, &vx);
    mcpp_value_at_field(r, y, &vy);
    return mcpp_value_equal(&vx, &vy);
}

/* 1 when the string field `id` of r reads "auto" (any case). */
static int request_is_auto(const mcpp_receipt *r, int id)
{
    if (!valid_id(id) || mcpp_schema_entries[id].storage != MCPP_ST_STRING) return 0;
    const char *s = *(const char *const *)slot_of(r, id);
    return s && (s[0] | 32) == 'a' && (s[1] | 32) == 'u' && (s[2] | 32) == 't' && (s[3] | 32) == 'o' && !s[4];
}

int mcpp_field_request_unmet(const mcpp_receipt *r, int requested, int observed, int requested_count,
                             int observed_count)
{
    int has_req = present(r, requested), has_rc = present(r, requested_count);
    if (!has_req && !has_rc) /* nothing requested: the common case, decided by presence bits */
        return 0;
    int has_obs = present(r, observed), has_oc = present(r, observed_count);
    /* "auto" asks a dispatcher to choose: whatever ran meets it (what ran is
     * the lane); only nothing observed leaves it unmet */
    if (has_req && has_obs && request_is_auto(r, requested)) has_req = 0;
    return (has_req && (!has_obs || !mcpp_field_pair_equal(r, requested, observed))) ||
           (has_rc && has_oc && !mcpp_field_pair_equal(r, requested_count, observed_count)) ||
           (has_rc && !has_oc);
}

uint64_t mcpp_field_hash(const mcpp_receipt *r, int id, uint64_t h)
{
    /* Hashes what equality compares (slots_equal), so equal fields hash equal. */
    if (is_free(id)) return free_hash(r, id, h);
    if (id == MCPP_F_features) return features_hash(r, h);
    if (is_shape(id)) return shape_hash(r, id, h);
    if (is_graphs(id))
        return graphs_hash(r, id, h);
    unsigned char tag = 0;
    if (!valid_id(id) || !mcpp_present(r, id))
        return mcpp_fnv1a(&tag, 1, h);
    tag = 1;
    h = mcpp_fnv1a(&tag, 1, h);
    if (is_position(id)) {
        unsigned range = position_range(r, id);
        return mcpp_fnv1a(&range, sizeof range, h);
    }
    if (is_warmup(id)) {
        unsigned cls = warmup_class(r);
        return mcpp_fnv1a(&cls, sizeof cls, h);
    }
    if (id == MCPP_F_launch_generated_args) {
        const char *x[MAX_SORTED_ARGS];
        size_t n = sorted_args(x, r);
        for (size_t i = 0; i < n; i++)
            h = mcpp_fnv1a(x[i], strlen(x[i]) + 1, h);
        return h;
    }
    const void *x = slot_of(r, id);
    switch (slots[id].storage) {
    case MCPP_ST_BOOL: return mcpp_fnv1a(x, 1, h);
    case MCPP_ST_INT: return mcpp_fnv1a(x, sizeof(int64_t), h);
    case MCPP_ST_INT32: return mcpp_fnv1a(x, sizeof(int32_t), h);
    case MCPP_ST_ENUM: return mcpp_fnv1a(x, 1, h);
    case MCPP_ST_DOUBLE: {
        double v = *(const double *)x;
        if (v == 0)
            v = 0; /* -0.0 equals 0.0 */
        return mcpp_fnv1a(&v, sizeof v, h);
    }
    case MCPP_ST_STRING: {
        const char *s = *(const char *const *)x;
        if (s && is_accelerator(id)) {
            char canonical[96];
            accelerator_id(canonical, sizeof canonical, s);
            return mcpp_fnv1a(canonical, strlen(canonical) + 1, h);
        }
        if (s && is_precision(id)) {
            char canonical[128];
            mcpp_precision_recipe_canonical(canonical, sizeof canonical, s);
            return mcpp_fnv1a(canonical, strlen(canonical) + 1, h);
        }
        return s ? mcpp_fnv1a(s, strlen(s) + 1, h) : h;
    }
    default: {
        mcpp_value v;
        mcpp_value_at_field(r, id, &v);
        if (v.type == MCPP_TYPE_STRING_LIST) {
            for (size_t i = 0; i < v.count; i++)
                h = mcpp_fnv1a(v.strings[i], strlen(v.strings[i]) + 1, h);
            return h;
        }
        if (v.type == MCPP_TYPE_DOUBLE_LIST)
            return mcpp_fnv1a(v.doubles, v.count * sizeof(double), h);
        return v.string ? mcpp_fnv1a(v.string, strlen(v.string), h) : h;
    }
    }
}

int mcpp_field_get(const mcpp_receipt *r, int id, mcpp_value *out)
{
    if (is_free(id)) return free_get(r, id, out);
    if (mcpp_value_at_field(r, id, out) != MCPP_OK) {
        memset(out, 0, sizeof *out);
        out->type = MCPP_TYPE_ABSENT;
        out->enum_index = -1;
    }
    return out->type != MCPP_TYPE_ABSENT;
}

const char *mcpp_field_string(const mcpp_receipt *r, int id)
{
    if (!mcpp_field_present(r, id) || mcpp_schema_entries[id].storage != MCPP_ST_STRING)
        return NULL;
    return *(const char *const *)mcpp_field_slot(r, id);
}

size_t mcpp_field_list_count(const mcpp_receipt *r, int id)
{
    if (!mcpp_field_present(r, id) || mcpp_schema_entries[id].storage != MCPP_ST_SLIST)
        return 0;
    return ((const mcpp_string_list *)mcpp_field_slot(r, id))->count;
}

void mcpp_field_text(mcpp_strbuf *sb, const mcpp_receipt *r, int id, int escape_key)
{
    mcpp_value v;
    char canonical[128];
    if (is_graphs(id) && escape_key) { /* lane keys: the capture read once */
        graphs_text(sb, r, id, escape_key);
        return;
    }
    if (id == MCPP_F_features && escape_key) { /* lane keys: the features in force */
        features_text(sb, r, escape_key);
        return;
    }
    if (is_shape(id) && escape_key) { /* lane keys: the canonical stack */
        char t[256];
        int64_t d;
        if (shape_of(r, id, t, sizeof t, &d)) {
            if (id == MCPP_F_lane_depth) mcpp_sb_int(sb, d);
            else mcpp_sb_puts(sb, t);
            return;
        }
    }
    if (escape_key && id == MCPP_F_launch_generated_args && mcpp_present(r, id)) { /* lane keys: the set */
        const char *x[MAX_SORTED_ARGS];
        size_t n = sorted_args(x, r);
        mcpp_value sorted;
        memset(&sorted, 0, sizeof sorted);
        sorted.type = MCPP_TYPE_STRING_LIST;
        sorted.strings = x;
        sorted.count = n;
        mcpp_value_text(sb, &sorted, escape_key);
        return;
    }
    if (escape_key && is_warmup(id) && mcpp_present(r, id)) { /* lane keys: the class */
        mcpp_sb_puts(sb, warmup_class(r) ? "warmup" : "no_warmup");
        return;
    }
    if (mcpp_field_get(r, id, &v) && escape_key && is_accelerator(id) && v.string) {
        accelerator_id(canonical, sizeof canonical, v.string); /* lane keys group by chip */
        v.string = canonical;
    } else if (escape_key && is_precision(id) && v.type == MCPP_TYPE_STRING && v.string) {
        mcpp_precision_recipe_canonical(canonical, sizeof canonical, v.string); /* one recipe, one lane */
        v.string = canonical;
    }
    mcpp_value_text(sb, &v, escape_key);
}
