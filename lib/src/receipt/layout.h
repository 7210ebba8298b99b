/*
 * layout.h — the typed receipt struct: how a receipt is laid out in memory
 * (one member per schema field, presence bits, the packed arena with its
 * holder count and head). Private to receipt/ and io/: everyone else reads
 * fields through receipt/fields.h, so moving a field touches nothing there.
 *
 * Life of a receipt: the input is parsed into a cJSON tree (JSON directly;
 * YAML through the libyaml event reader), the binder fills a *staging*
 * struct mcpp_receipt whose strings still point into that tree (JSON usually
 * skips the tree: io/json_bind_reader.c binds while reading, with strings in
 * a buffer of its own and cJSON trees only for free-form values), the validator
 * checks cross-field rules on it, and the packer copies it into ONE exact-size
 * allocation (the receipt the caller gets). The builder owns a staging struct
 * whose strings are heap copies. receipt/schema.h maps field ids to members;
 * receipt/load_ctx.h is the binding, validating and packing around them.
 */
#ifndef MCPP_RECEIPT_LAYOUT_H
#define MCPP_RECEIPT_LAYOUT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts/receipt.h"
#include "receipt/field_ids.h"

struct cJSON;

/* ---- storage kinds, ranges, ids ------------------------------------------ */

enum mcpp_storage {
    MCPP_ST_BOOL,
    MCPP_ST_INT,
    MCPP_ST_INT32, /* an integer within +-2^31 (counts, degrees, widths) in four bytes */
    MCPP_ST_DOUBLE,
    MCPP_ST_STRING,
    MCPP_ST_ENUM,
    MCPP_ST_SLIST,
    MCPP_ST_DLIST,
    MCPP_ST_OBJECT,
    MCPP_ST_ARTIFACTS,
    MCPP_ST_METRICS /* metrics.named: validated metric objects, stored like OBJECT */
};

enum mcpp_range { MCPP_RANGE_NONE, MCPP_RANGE_GE0, MCPP_RANGE_GE1, MCPP_RANGE_GT0 };


/* ---- value storage ----------------------------------------------------------- */

typedef struct mcpp_string_list {
    const char **items;
    size_t count;
} mcpp_string_list;

typedef struct mcpp_double_list {
    double *items;
    size_t count;
} mcpp_double_list;

/* A free-form JSON value (extra, launch.fixed_policy) in packed form: a tree
 * of 24-byte nodes. Object members are sorted bytewise by key. A container's
 * compact canonical JSON is not kept in the tree: receipt/packed_text.h makes
 * it when it is first read and keeps it with the receipt (each level's text
 * beside the tree took a Google Benchmark row's 1.7 KB of JSON to 6.9 KB). */
enum mcpp_xkind { MCPP_X_NULL, MCPP_X_FALSE, MCPP_X_TRUE, MCPP_X_NUMBER, MCPP_X_STRING,
                  MCPP_X_ARRAY, MCPP_X_OBJECT };
typedef struct mcpp_xnode mcpp_xnode;
struct mcpp_xnode {
    const char *key;          /* member name inside an object, else NULL */
    union {                   /* by kind; zero for NULL, FALSE and TRUE */
        double number;        /* NUMBER */
        const char *str;      /* STRING: the string */
        mcpp_xnode *children; /* ARRAY, OBJECT: `count` of them (NULL when none) */
    };
    uint32_t count;
    uint8_t kind;
};
_Static_assert(sizeof(mcpp_xnode) == 24, "a packed free-form node is three words");

/* Whether a node is a scalar (neither array nor object), and whether every
 * child of a container is: the JSON and YAML writers print such a container
 * on one line. */
static inline int mcpp_xnode_is_scalar(const mcpp_xnode *n)
{
    return n->kind != MCPP_X_ARRAY && n->kind != MCPP_X_OBJECT;
}
static inline int mcpp_xnode_children_scalar(const mcpp_xnode *n)
{
    for (uint32_t i = 0; i < n->count; i++)
        if (!mcpp_xnode_is_scalar(&n->children[i]))
            return 0;
    return 1;
}

/* OBJECT fields: packed receipts (arena != NULL) use `node`; staging structs
 * (arena == NULL) hold a cJSON tree, borrowed from the parse or owned by the
 * builder. One or the other, so they share the space. */
typedef union mcpp_object_slot {
    const mcpp_xnode *node;
    struct cJSON *staged; /* cJSON's own struct: no cJSON header needed here */
} mcpp_object_slot;

typedef struct mcpp_artifact {
    const char *kind;
    const char *uri;
} mcpp_artifact;

typedef struct mcpp_artifact_list {
    mcpp_artifact *items;
    size_t count;
} mcpp_artifact_list;

/* Members are laid out by width: eight-byte ones first, then the four-byte
 * INT32 counts, then the one-byte ones (enums, booleans). In schema order a
 * narrow member between two pointers would cost padding, and the struct must
 * stay under 1000 bytes (see pack.c). Counts that cannot pass 2^31 (layers,
 * degrees, batch sizes, accelerators) are INT32 for the same reason; the
 * binder and the builder refuse a larger value for them. */
#define MCPP_MEMBER_WIDE_INT(id) int64_t id;
#define MCPP_MEMBER_WIDE_DOUBLE(id) double id;
#define MCPP_MEMBER_WIDE_STRING(id) const char *id;
#define MCPP_MEMBER_WIDE_SLIST(id) mcpp_string_list id;
#define MCPP_MEMBER_WIDE_DLIST(id) mcpp_double_list id;
#define MCPP_MEMBER_WIDE_OBJECT(id) mcpp_object_slot id;
#define MCPP_MEMBER_WIDE_ARTIFACTS(id) mcpp_artifact_list id;
#define MCPP_MEMBER_WIDE_METRICS(id) mcpp_object_slot id;
#define MCPP_MEMBER_MID_INT32(id) int32_t id;
#define MCPP_MEMBER_NARROW_BOOL(id) uint8_t id;
#define MCPP_MEMBER_NARROW_ENUM(id) int8_t id;
/* a pass declares only the members of its width */
#define MCPP_MEMBER_WIDE_BOOL(id)
#define MCPP_MEMBER_WIDE_ENUM(id)
#define MCPP_MEMBER_WIDE_INT32(id)
#define MCPP_MEMBER_MID_BOOL(id)
#define MCPP_MEMBER_MID_INT(id)
#define MCPP_MEMBER_MID_DOUBLE(id)
#define MCPP_MEMBER_MID_STRING(id)
#define MCPP_MEMBER_MID_ENUM(id)
#define MCPP_MEMBER_MID_SLIST(id)
#define MCPP_MEMBER_MID_DLIST(id)
#define MCPP_MEMBER_MID_OBJECT(id)
#define MCPP_MEMBER_MID_ARTIFACTS(id)
#define MCPP_MEMBER_MID_METRICS(id)
#define MCPP_MEMBER_NARROW_INT(id)
#define MCPP_MEMBER_NARROW_INT32(id)
#define MCPP_MEMBER_NARROW_DOUBLE(id)
#define MCPP_MEMBER_NARROW_STRING(id)
#define MCPP_MEMBER_NARROW_SLIST(id)
#define MCPP_MEMBER_NARROW_DLIST(id)
#define MCPP_MEMBER_NARROW_OBJECT(id)
#define MCPP_MEMBER_NARROW_ARTIFACTS(id)
#define MCPP_MEMBER_NARROW_METRICS(id)
#define MCPP_X_WIDE(id, sec, name, path, st, range, allowed, doc) MCPP_MEMBER_WIDE_##st(id)
#define MCPP_X_MID(id, sec, name, path, st, range, allowed, doc) MCPP_MEMBER_MID_##st(id)
#define MCPP_X_NARROW(id, sec, name, path, st, range, allowed, doc) MCPP_MEMBER_NARROW_##st(id)

typedef struct mcpp_fields {
    MCPP_SCHEMA_FIELDS(MCPP_X_WIDE)
    MCPP_SCHEMA_FIELDS(MCPP_X_MID)
    MCPP_SCHEMA_FIELDS(MCPP_X_NARROW)
} mcpp_fields;
#undef MCPP_X_WIDE
#undef MCPP_X_MID
#undef MCPP_X_NARROW

/* The integer stored in an INT or INT32 member. */
static inline int64_t mcpp_int_slot_read(const void *slot, int storage)
{
    return storage == MCPP_ST_INT32 ? (int64_t) * (const int32_t *)slot : *(const int64_t *)slot;
}
static inline void mcpp_int_slot_write(void *slot, int storage, int64_t value)
{
    if (storage == MCPP_ST_INT32) *(int32_t *)slot = (int32_t)value;
    else *(int64_t *)slot = value;
}
static inline int mcpp_storage_is_int(int storage)
{
    return storage == MCPP_ST_INT || storage == MCPP_ST_INT32;
}
/* The largest magnitude an INT32 member holds (INT members: 2^53, bind.c). */
#define MCPP_INT32_LIMIT 2147483647.0
/* NULL, or the words "expected ..." for an integer an INT32 member cannot hold. */
static inline const char *mcpp_int_width_problem(int storage, double value)
{
    return storage == MCPP_ST_INT32 && (value > MCPP_INT32_LIMIT || value < -MCPP_INT32_LIMIT)
               ? "an integer within +-2147483647 (a 32-bit count)"
               : NULL;
}

#define MCPP_PRESENT_WORDS ((MCPP_FIELD_COUNT + 63) / 64)

/* A packed receipt keeps only its present members (issue 50 item 5: a Google
 * Benchmark row states 17 of the 141 fields, and the whole struct was 952 of
 * its 3,400 bytes). Its `f` then holds, instead of the struct's members, a
 * pointer to its slot table, a byte per field id (0: absent; else 1 + the
 * 8-byte word where its member starts after that pointer), and then the
 * members, each in 8 bytes (16 for the lists), allocated to size. The table
 * depends only on which fields are present, so receipts stating the same
 * fields point to one table (compact.c keeps up to a few thousand, for the
 * process; past that a receipt keeps its own after its members). The last presence bit marks that form; staging
 * structs (the binder's, the builder's) keep the whole struct. Every read
 * goes through mcpp_field_slot (schema.h), which serves both; compact.c
 * turns one form into the other (the packer and the image build the whole
 * struct, then keep the compact one). */
#define MCPP_COMPACT_BIT (MCPP_PRESENT_WORDS * 64 - 1)
_Static_assert(MCPP_FIELD_COUNT <= MCPP_COMPACT_BIT, "the compact mark is a presence bit no field uses");
#define MCPP_SLOT_TABLE_BYTES ((MCPP_FIELD_COUNT + 7) & ~7)

/* The arena of a packed receipt starts with a head: one byte saying whether a
 * source name follows, the source name, then (when no id is stated) the
 * derived id, "r-" + 16 hex digits of the FNV-1a hash of the canonical JSON.
 * Keeping them there, not as pointers here, keeps the struct under the size
 * (1000 bytes) where glibc's malloc takes its slower large-request path. */
struct mcpp_receipt {
    uint64_t present[MCPP_PRESENT_WORDS];
    void *arena; /* packed receipts: the block holding every string and list */
    mcpp_fields f;
};
_Static_assert(sizeof(struct mcpp_receipt) <= 1000,
               "a receipt struct over 1000 bytes makes every load take malloc's large path");

/* A packed receipt's arena is preceded, in the same allocation, by its hold
 * block: the count of its holders besides the caller that made it (a
 * comparison holds the two receipts it explains; mcpp_receipt_free frees at
 * the last one), the texts made on demand (receipt/packed_text.h: the
 * canonical JSON of a free-form value, read through mcpp_receipt_get, lives
 * as long as the receipt), and the share its repeated parts point into
 * (receipt/share.h: the receipts of one import share strings and free-form
 * subtrees; NULL when none), released with the receipt. Kept there because
 * the struct has to stay under that size. */
struct mcpp_packed_text;
struct mcpp_share;
typedef struct mcpp_receipt_hold_block {
    atomic_uint holders;
    _Atomic(struct mcpp_packed_text *) texts;
    struct mcpp_share *share;
} mcpp_receipt_hold_block;
#define MCPP_RECEIPT_HOLD_BYTES 32 /* keeps the arena 16-byte aligned */
_Static_assert(sizeof(mcpp_receipt_hold_block) <= MCPP_RECEIPT_HOLD_BYTES, "the hold block fits before the arena");

static inline mcpp_receipt_hold_block *mcpp_receipt_hold_of(const void *arena)
{
    return (mcpp_receipt_hold_block *)((char *)arena - MCPP_RECEIPT_HOLD_BYTES);
}

static inline atomic_uint *mcpp_receipt_holders(const mcpp_receipt *r)
{
    return &mcpp_receipt_hold_of(r->arena)->holders;
}

/* An empty hold block (no holders besides the maker, no texts) before `arena`. */
static inline void mcpp_receipt_hold_init(char *arena)
{
    mcpp_receipt_hold_block *hold = mcpp_receipt_hold_of(arena);
    atomic_init(&hold->holders, 0);
    atomic_init(&hold->texts, NULL);
    hold->share = NULL;
}

/* An arena of `size` bytes with its holder count before it (0 holders
 * besides the maker), for code that builds a receipt without mcpp_pack (the
 * store's images); NULL when out of memory. Freed by mcpp_receipt_free, or
 * by mcpp_receipt_arena_free before it is given to a receipt. */
static inline char *mcpp_receipt_arena_alloc(size_t size)
{
    char *hold = malloc(MCPP_RECEIPT_HOLD_BYTES + (size ? size : 1));
    if (!hold) return NULL;
    mcpp_receipt_hold_init(hold + MCPP_RECEIPT_HOLD_BYTES);
    return hold + MCPP_RECEIPT_HOLD_BYTES;
}

static inline void mcpp_receipt_arena_free(char *arena)
{
    if (arena) free(arena - MCPP_RECEIPT_HOLD_BYTES);
}

/* Keeps a packed receipt alive until a matching mcpp_receipt_free. Receipts
 * are immutable, so a holder reads later exactly what it would read now. */
static inline const mcpp_receipt *mcpp_receipt_hold(const mcpp_receipt *r)
{
    atomic_fetch_add_explicit(mcpp_receipt_holders(r), 1, memory_order_relaxed);
    return r;
}

static inline const char *mcpp_head_source_name(const mcpp_receipt *r)
{
    const char *head = (const char *)r->arena;
    return head && head[0] ? head + 1 : NULL;
}
static inline char *mcpp_head_derived_id(const mcpp_receipt *r)
{
    char *head = (char *)r->arena;
    return head[0] ? head + 2 + strlen(head + 1) : head + 1;
}

static inline int mcpp_is_compact(const mcpp_receipt *r)
{
    return (int)((r->present[MCPP_COMPACT_BIT >> 6] >> (MCPP_COMPACT_BIT & 63)) & 1u);
}

/* The compact copy of the whole struct `full` (malloc'ed; its arena pointer
 * and presence as full's), or NULL when out of memory. */
mcpp_receipt *mcpp_receipt_compact(const mcpp_receipt *full);
/* The whole struct of r (compact or not) into *full. */
void mcpp_receipt_expand(mcpp_receipt *full, const mcpp_receipt *r);

static inline int mcpp_present(const mcpp_receipt *r, int id)
{
    return (int)((r->present[id >> 6] >> (id & 63)) & 1u);
}
static inline void mcpp_set_present(mcpp_receipt *r, int id)
{
    r->present[id >> 6] |= (uint64_t)1 << (id & 63);
}
static inline void mcpp_clear_present(mcpp_receipt *r, int id)
{
    r->present[id >> 6] &= ~((uint64_t)1 << (id & 63));
}

#endif /* MCPP_RECEIPT_LAYOUT_H */
