/*
 * pack.c — turns a staging receipt into the receipt callers hold: the fixed
 * struct plus ONE arena of exactly the size needed for its strings, lists and
 * free-form trees, so a loaded receipt costs two mallocs and stays small.
 * Packing runs twice over the same code: first to measure, then to copy (an
 * arena with no base only counts).
 *
 * Why two blocks and not one: glibc treats requests >= 1 KiB as "large" and
 * consolidates its fastbins on every such malloc — right after cJSON has freed
 * a few hundred small nodes that is a third of the cost of a load. The struct
 * (kept compact: its present members only, layout.h) and a typical arena
 * both stay below that size.
 *
 * Also here: releasing staging structs, and the derived id.
 */
#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"
#include "receipt/fields.h"
#include "receipt/cjson_inline.h"
#include "receipt/canonical_json.h"
#include "receipt/load_ctx.h"
#include "receipt/packed_text.h"
#include "receipt/share.h"
#include "util/hash.h"
#include "util/quantile.h"
#include "receipt/schema.h"

typedef struct arena {
    char *base; /* NULL while measuring */
    size_t used;
    /* string lengths found while measuring, replayed while copying (both
     * passes make the same calls in the same order): one strlen per string */
    uint32_t lengths[256];
    size_t n_lengths, next_length;
    /* repacking into a share (share.h): what the share gave while measuring
     * (NULL: a copy of our own), replayed while copying, so both passes take
     * the same path whatever the share holds by then */
    mcpp_share *share;
    const void *decided[512];
    size_t n_decided, next_decided, n_shared;
} arena;

static void *arena_take(arena *a, size_t n, size_t align)
{
    a->used = (a->used + align - 1) & ~(align - 1);
    void *p = a->base ? a->base + a->used : NULL;
    a->used += n;
    return p;
}

static const char *arena_strn(arena *a, const char *s, size_t n)
{
    char *p = arena_take(a, n + 1, 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static const char *arena_str(arena *a, const char *s)
{
    size_t n;
    if (!a->base) {
        n = strlen(s);
        if (a->n_lengths < sizeof a->lengths / sizeof a->lengths[0])
            a->lengths[a->n_lengths++] = (uint32_t)n;
    } else if (a->next_length < a->n_lengths) {
        n = a->lengths[a->next_length++];
    } else {
        n = strlen(s);
    }
    return arena_strn(a, s, n);
}

/* What the share holds of a string (children NULL) or a members array, or
 * NULL when the receipt keeps its own copy. */
static const void *share_decide(arena *a, const char *str, const mcpp_xnode *children, uint32_t count)
{
    if (!a->share)
        return NULL;
    const void *d = NULL;
    if (!a->base) {
        if (a->n_decided == sizeof a->decided / sizeof a->decided[0])
            return NULL;
        d = children ? (const void *)mcpp_share_children(a->share, children, count)
                     : (const void *)mcpp_share_string(a->share, str);
        a->decided[a->n_decided++] = d;
    } else if (a->next_decided < a->n_decided) {
        d = a->decided[a->next_decided++];
        a->n_shared += d != NULL;
    }
    return d;
}

/* A string of a packed source: the share's copy or one in the arena. */
static const char *arena_str_shared(arena *a, const char *s)
{
    const char *shared = share_decide(a, s, NULL, 0);
    return shared ? shared : arena_str(a, s);
}

/* Builds the packed form of cJSON value `v` into *dst (dst NULL while
 * measuring). No text is kept for containers (packed_text.h makes it when
 * read). Returns -1 when out of memory. */
static int pack_xnode(arena *a, mcpp_xnode *dst, const cJSON *v, const char *key)
{
    mcpp_xnode node;
    memset(&node, 0, sizeof node);
    node.key = key ? arena_str(a, key) : NULL;
    if (mcpp_cj_is_object(v) || mcpp_cj_is_array(v)) {
        size_t n = 0, i = 0;
        for (const cJSON *c = v->child; c; c = c->next)
            n++;
        int object = mcpp_cj_is_object(v);
        node.kind = object ? MCPP_X_OBJECT : MCPP_X_ARRAY;
        node.count = (uint32_t)n;
        node.children = n ? arena_take(a, n * sizeof(mcpp_xnode), alignof(mcpp_xnode)) : NULL;
        /* an object's members in canonical (sorted) order; an array's are
         * walked as they are (a list of 200,000 round times needs no copy) */
        const cJSON *stack_order[16];
        const cJSON **order = !object ? NULL : n <= 16 ? stack_order : malloc(n * sizeof *order);
        if (object && !order)
            return -1;
        for (const cJSON *c = v->child; order && c; c = c->next)
            order[i++] = c;
        if (object && n > 1)
            mcpp_cjson_sort_members(order, n);
        int rc = 0;
        const cJSON *c = NULL;
        for (i = 0; !rc && i < n; i++) {
            c = order ? order[i] : c ? c->next : v->child;
            rc = pack_xnode(a, node.children ? &node.children[i] : NULL, c, object ? c->string : NULL);
        }
        if (order && order != stack_order)
            free(order);
        if (rc)
            return -1;
    } else if (mcpp_cj_is_string(v)) {
        node.kind = MCPP_X_STRING;
        node.str = arena_str(a, v->valuestring);
    } else if (mcpp_cj_is_number(v)) {
        node.kind = MCPP_X_NUMBER;
        node.number = v->valuedouble;
    } else if (mcpp_cj_is_true(v)) {
        node.kind = MCPP_X_TRUE;
    } else if (cJSON_IsFalse(v)) {
        node.kind = MCPP_X_FALSE;
    } else {
        node.kind = MCPP_X_NULL;
    }
    if (dst)
        *dst = node;
    return 0;
}

/* Copies an already packed tree (clone, builder re-finish, a repack into a
 * share, which may hand out the members of a container whole). */
static void copy_xnode(arena *a, mcpp_xnode *dst, const mcpp_xnode *src)
{
    mcpp_xnode node = *src;
    node.key = src->key ? arena_str_shared(a, src->key) : NULL;
    if (src->kind == MCPP_X_STRING) {
        node.str = arena_str_shared(a, src->str);
    } else if ((src->kind == MCPP_X_ARRAY || src->kind == MCPP_X_OBJECT) && src->count) {
        const mcpp_xnode *shared = share_decide(a, NULL, src->children, src->count);
        node.children =
            shared ? (mcpp_xnode *)shared : arena_take(a, src->count * sizeof(mcpp_xnode), alignof(mcpp_xnode));
        for (uint32_t i = 0; !shared && i < src->count; i++)
            copy_xnode(a, node.children ? &node.children[i] : NULL, &src->children[i]);
    } else if (src->kind == MCPP_X_ARRAY || src->kind == MCPP_X_OBJECT) {
        node.children = NULL;
    }
    if (dst)
        *dst = node;
}

/* Which fields hold pointers into the arena (strings, lists, objects), one
 * bit per field id like `present`, worked out at compile time. Both passes
 * visit only present fields of these kinds: the scalars are already in place
 * after the struct copy, and walking all ~95 fields twice, branching on each
 * one's presence, was about half the time packing took. */
#define MCPP_HOLDS_PTR_BOOL 0
#define MCPP_HOLDS_PTR_INT 0
#define MCPP_HOLDS_PTR_INT32 0
#define MCPP_HOLDS_PTR_DOUBLE 0
#define MCPP_HOLDS_PTR_ENUM 0
#define MCPP_HOLDS_PTR_STRING 1
#define MCPP_HOLDS_PTR_SLIST 1
#define MCPP_HOLDS_PTR_DLIST 1
#define MCPP_HOLDS_PTR_OBJECT 1
#define MCPP_HOLDS_PTR_ARTIFACTS 1
#define MCPP_HOLDS_PTR_METRICS 1
#define MCPP_PTR_BIT(id, st, word)                                                               \
    | (MCPP_F_##id >> 6 == (word) ? (uint64_t)MCPP_HOLDS_PTR_##st << (MCPP_F_##id & 63) : 0)
#define MCPP_X_PTR_BIT0(id, sec, name, path, st, range, allowed, doc) MCPP_PTR_BIT(id, st, 0)
#define MCPP_X_PTR_BIT1(id, sec, name, path, st, range, allowed, doc) MCPP_PTR_BIT(id, st, 1)
#define MCPP_X_PTR_BIT2(id, sec, name, path, st, range, allowed, doc) MCPP_PTR_BIT(id, st, 2)
_Static_assert(MCPP_PRESENT_WORDS == 3, "pointer_fields has one initializer per presence word");
static const uint64_t pointer_fields[MCPP_PRESENT_WORDS] = {0 MCPP_SCHEMA_FIELDS(MCPP_X_PTR_BIT0),
                                                            0 MCPP_SCHEMA_FIELDS(MCPP_X_PTR_BIT1),
                                                            0 MCPP_SCHEMA_FIELDS(MCPP_X_PTR_BIT2)};
#undef MCPP_X_PTR_BIT0
#undef MCPP_X_PTR_BIT1
#undef MCPP_X_PTR_BIT2
#undef MCPP_PTR_BIT

/* A free-form object: packed from the staged tree, copied from a packed
 * node, or the empty object. `to` is NULL in the sizing pass. */
static int pack_object(arena *a, const mcpp_object_slot *from, int from_packed, mcpp_object_slot *to)
{
    mcpp_xnode *node = arena_take(a, sizeof(mcpp_xnode), alignof(mcpp_xnode));
    /* the slot is a union: a packed source holds a node, a staging one a tree */
    if (from_packed && from->node) {
        copy_xnode(a, node, from->node);
    } else if (!from_packed && from->staged) {
        if (pack_xnode(a, node, from->staged, NULL) != 0)
            return -1;
    } else if (node) {
        memset(node, 0, sizeof *node);
        node->kind = MCPP_X_OBJECT;
    }
    if (to)
        to->node = node;
    return 0;
}

/* The artifact list (its text is made when read: packed_text.h). */
static void pack_artifacts(arena *a, const mcpp_artifact_list *from, mcpp_artifact_list *to)
{
    mcpp_artifact *items =
        from->count ? arena_take(a, from->count * sizeof(mcpp_artifact), alignof(mcpp_artifact)) : NULL;
    for (size_t i = 0; i < from->count; i++) {
        const char *k = arena_str(a, from->items[i].kind);
        const char *u = arena_str(a, from->items[i].uri);
        if (items) {
            items[i].kind = k;
            items[i].uri = u;
        }
    }
    if (to)
        to->items = items;
}

/* One pass of packing: dst (the whole struct) is NULL while measuring. */
static int pack_pass(arena *a, mcpp_receipt *dst, const mcpp_receipt *src, const char *source_name)
{
    mcpp_receipt *r = dst;
    if (r) {
        mcpp_receipt_expand(r, src); /* scalars and presence; pointers are replaced below */
        r->arena = NULL;
    }
    /* the head (layout.h): flag, source name, room for the derived id */
    char *flag = arena_take(a, 1, 1);
    if (flag)
        *flag = source_name != NULL;
    if (source_name)
        arena_str(a, source_name);
    if (!mcpp_present(src, MCPP_F_id))
        arena_take(a, 19, 1); /* "r-" + 16 hex + NUL */
    /* present pointer fields in increasing id order (the arena layout) */
    for (int w = 0; w < MCPP_PRESENT_WORDS; w++) {
        for (uint64_t bits = src->present[w] & pointer_fields[w]; bits; bits &= bits - 1) {
            int id = w * 64 + __builtin_ctzll(bits);
            const void *from = mcpp_field_slot(src, id);
            void *to = r ? mcpp_field_ptr(&r->f, id) : NULL;
            switch (mcpp_schema_entries[id].storage) {
            case MCPP_ST_STRING: { /* never a shared id: mcpp_receipt_rename_unshared writes it */
                const char *from_s = *(const char *const *)from;
                const char *s = id == MCPP_F_id ? arena_str(a, from_s) : arena_str_shared(a, from_s);
                if (to)
                    *(const char **)to = s;
                break;
            }
            case MCPP_ST_SLIST: {
                const mcpp_string_list *l = from;
                const char **items =
                    l->count ? arena_take(a, l->count * sizeof(char *), alignof(char *)) : NULL;
                for (size_t i = 0; i < l->count; i++) {
                    const char *s = arena_str_shared(a, l->items[i]);
                    if (items)
                        items[i] = s;
                }
                if (to)
                    ((mcpp_string_list *)to)->items = items;
                break;
            }
            case MCPP_ST_DLIST: {
                const mcpp_double_list *l = from;
                double *items = l->count ? arena_take(a, l->count * sizeof(double), alignof(double))
                                         : NULL;
                if (items)
                    memcpy(items, l->items, l->count * sizeof(double));
                if (to)
                    ((mcpp_double_list *)to)->items = items;
                break;
            }
            case MCPP_ST_OBJECT:
            case MCPP_ST_METRICS:
                if (pack_object(a, from, src->arena != NULL, to) != 0)
                    return -1;
                break;
            case MCPP_ST_ARTIFACTS: pack_artifacts(a, from, to); break;
            default:
                break;
            }
        }
    }
    return 0;
}

static int pack_into(mcpp_receipt **out, const mcpp_receipt *staging, const char *source_name, mcpp_share *share)
{
    arena a;
    a.base = NULL;
    a.used = 0;
    a.n_lengths = a.next_length = 0;
    a.share = share;
    a.n_decided = a.next_decided = a.n_shared = 0;
    *out = NULL;
    if (pack_pass(&a, NULL, staging, source_name) != 0)
        return mcpp_error_nomem();
    size_t size = a.used;                         /* never 0: the head has its flag byte */
    char *block = mcpp_receipt_arena_alloc(size); /* the hold block, then the arena */
    if (!block)
        return mcpp_error_nomem();
    a.base = block;
    a.used = 0;
    mcpp_receipt full; /* the whole struct, kept compact (layout.h) */
    mcpp_receipt *r = NULL;
    if (pack_pass(&a, &full, staging, source_name) == 0) {
        full.arena = block;
        r = mcpp_receipt_compact(&full);
    }
    if (!r) {
        mcpp_receipt_arena_free(block);
        return mcpp_error_nomem();
    }
    if (a.n_shared) { /* the receipt points into the share: it holds it */
        mcpp_share_retain(share);
        mcpp_receipt_hold_of(block)->share = share;
    }
    if (!mcpp_present(r, MCPP_F_id) && staging->arena) { /* a repack: the same content, the same id */
        memcpy(mcpp_head_derived_id(r), mcpp_head_derived_id(staging), 19);
    } else if (!mcpp_present(r, MCPP_F_id)) { /* derived id: deterministic */
        uint64_t hash;
        if (mcpp_receipt_content_hash(&hash, r) != MCPP_OK) {
            mcpp_receipt_free(r);
            return mcpp_error_nomem();
        }
        snprintf(mcpp_head_derived_id(r), 19, "r-%016llx", (unsigned long long)hash);
    }
    *out = r;
    return 0;
}

int mcpp_pack(mcpp_receipt **out, const mcpp_receipt *staging, const char *source_name)
{
    return pack_into(out, staging, source_name, NULL);
}

int mcpp_pack_shared(mcpp_receipt **out, const mcpp_receipt *src, mcpp_share *share)
{
    return pack_into(out, src, mcpp_head_source_name(src), share);
}

int mcpp_receipt_content_hash(uint64_t *out, const mcpp_receipt *r)
{
    char initial[2048];
    mcpp_strbuf text;
    mcpp_sb_init(&text, initial, sizeof initial);
    int rc = mcpp_write_json(&text, r, 0, 0) != 0 || text.failed ? mcpp_error_nomem() : MCPP_OK;
    if (!rc)
        *out = mcpp_fnv1a(text.data, text.len, MCPP_FNV_OFFSET);
    mcpp_sb_free(&text);
    return rc;
}

void mcpp_staging_release(mcpp_receipt *r, int owns_strings)
{
    for (int id = 0; id < MCPP_FIELD_COUNT; id++) {
        void *slot = mcpp_field_ptr(&r->f, id);
        switch (mcpp_schema_entries[id].storage) {
        case MCPP_ST_STRING:
            if (owns_strings)
                free((char *)*(const char **)slot);
            break;
        case MCPP_ST_SLIST: {
            mcpp_string_list *l = slot;
            if (owns_strings)
                for (size_t i = 0; i < l->count; i++)
                    free((char *)l->items[i]);
            free(l->items);
            break;
        }
        case MCPP_ST_DLIST:
            free(((mcpp_double_list *)slot)->items);
            break;
        case MCPP_ST_OBJECT:
        case MCPP_ST_METRICS:
            if (owns_strings)
                cJSON_Delete(((mcpp_object_slot *)slot)->staged);
            break;
        case MCPP_ST_ARTIFACTS: {
            mcpp_artifact_list *l = slot;
            if (owns_strings)
                for (size_t i = 0; i < l->count; i++) {
                    free((char *)l->items[i].kind);
                    free((char *)l->items[i].uri);
                }
            free(l->items);
            break;
        }
        default:
            break;
        }
    }
    memset(r, 0, sizeof *r);
}

void mcpp_receipt_free(mcpp_receipt *receipt)
{
    if (!receipt)
        return;
    /* The last holder frees (acq_rel: its reads happen before the free). */
    if (!receipt->arena) { /* not packed: nobody can hold it */
        free(receipt);
        return;
    }
    if (atomic_fetch_sub_explicit(mcpp_receipt_holders(receipt), 1, memory_order_acq_rel) != 0)
        return;
    mcpp_packed_texts_free(receipt->arena);
    mcpp_share_release(mcpp_receipt_hold_of(receipt->arena)->share);
    mcpp_receipt_arena_free(receipt->arena);
    free(receipt);
}

int mcpp_receipt_clone(mcpp_receipt **out, const mcpp_receipt *receipt)
{
    MCPP_CHECK_ARG(out, "out is NULL");
    *out = NULL;
    MCPP_CHECK_ARG(receipt, "receipt is NULL");
    /* A packed receipt never changes, so its copy is the receipt itself with
     * one more holder: the bindings hand each imported receipt out as a copy
     * of the set's, and a packed copy each (~7 KB for a Google Benchmark row)
     * doubled an import's peak memory while the set was still held. */
    if (receipt->arena) {
        *out = (mcpp_receipt *)mcpp_receipt_hold(receipt);
        return MCPP_OK;
    }
    /* a staging struct is packed into a receipt of its own */
    if (mcpp_pack(out, receipt, mcpp_head_source_name(receipt)) != 0)
        return mcpp_error_nomem();
    return MCPP_OK;
}

int mcpp_receipt_rename_unshared(mcpp_receipt *r, const char *id)
{
    MCPP_CHECK_ARG(r && id && *id, "mcpp_receipt_rename_unshared: NULL argument or empty id");
    size_t n = strlen(id);
    if (!mcpp_present(r, MCPP_F_id) || strlen(MCPP_FIELD(r, id, char *)) < n)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, "id", 0, 0,
                             "mcpp_receipt_rename_unshared: the receipt's id is shorter than '%s'", id);
    memcpy((char *)MCPP_FIELD(r, id, char *), id, n + 1); /* the id lies in r's own arena */
    return MCPP_OK;
}

/* Sorting a copy keeps the caller's sample order (it is the step order). */
void mcpp_sample_stats(const double *samples, size_t n, double *median, double *p10, double *p90)
{
    double stack[64];
    double *s = n <= 64 ? stack : malloc(n * sizeof *s);
    if (!s) {
        *median = *p10 = *p90 = samples[0];
        return;
    }
    memcpy(s, samples, n * sizeof *s);
    mcpp_sort_doubles(s, n);
    *median = mcpp_quantile_sorted(s, n, 0.5);
    *p10 = mcpp_quantile_sorted(s, n, 0.1);
    *p90 = mcpp_quantile_sorted(s, n, 0.9);
    if (s != stack)
        free(s);
}
