/*
 * receipt_internal.h — the typed receipt struct and the private interfaces
 * between the files of the receipt core (schema, binder, validator, packer,
 * writers, builder). Nothing here is public.
 *
 * Life of a receipt: the input is parsed into a cJSON tree (JSON directly;
 * YAML through the libyaml event reader), the binder fills a *staging*
 * struct mcpp_receipt whose strings still point into that tree (JSON usually
 * skips the tree: io/json_bind_reader.c binds while reading, with strings in
 * a buffer of its own and cJSON trees only for free-form values), the validator
 * checks cross-field rules on it, and the packer copies it into ONE exact-size
 * allocation (the receipt the caller gets). The builder owns a staging struct
 * whose strings are heap copies.
 */
#ifndef MCPP_RECEIPT_INTERNAL_H
#define MCPP_RECEIPT_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "mcpp_receipts/receipt.h"
#include "receipt/schema_fields.h"
#include "util/hash.h"
#include "util/strbuf.h"

/* cJSON's type tests are exported functions; the binder asks them for every
 * value of every receipt, so it uses these inline equivalents instead. */
#define MCPP_CJ_TYPE(v) ((v)->type & 0xFF)
static inline int mcpp_cj_is_number(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_Number; }
static inline int mcpp_cj_is_string(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_String; }
static inline int mcpp_cj_is_object(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_Object; }
static inline int mcpp_cj_is_array(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_Array; }
static inline int mcpp_cj_is_true(const cJSON *v) { return MCPP_CJ_TYPE(v) == cJSON_True; }
static inline int mcpp_cj_is_bool(const cJSON *v)
{
    return MCPP_CJ_TYPE(v) == cJSON_True || MCPP_CJ_TYPE(v) == cJSON_False;
}

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

/* enum mcpp_field_id (MCPP_F_*) and enum mcpp_section_id (MCPP_S_*) */
#include "receipt/field_ids.h"

/* ---- value storage ----------------------------------------------------------- */

typedef struct mcpp_string_list {
    const char **items;
    size_t count;
} mcpp_string_list;

typedef struct mcpp_double_list {
    double *items;
    size_t count;
} mcpp_double_list;

/* A free-form JSON value (extra, launch.fixed_policy) in packed form. Containers
 * carry their compact canonical JSON text so mcpp_receipt_get can hand it out
 * without allocating. Object members are sorted bytewise by key. */
enum mcpp_xkind { MCPP_X_NULL, MCPP_X_FALSE, MCPP_X_TRUE, MCPP_X_NUMBER, MCPP_X_STRING,
                  MCPP_X_ARRAY, MCPP_X_OBJECT };
typedef struct mcpp_xnode mcpp_xnode;
struct mcpp_xnode {
    const char *key;  /* member name inside an object, else NULL */
    const char *text; /* STRING: the string; ARRAY/OBJECT: compact canonical JSON */
    double number;
    mcpp_xnode *children;
    uint32_t count;
    uint8_t kind;
};

/* OBJECT fields: packed receipts (arena != NULL) use `node`; staging structs
 * (arena == NULL) hold a cJSON tree, borrowed from the parse or owned by the
 * builder. One or the other, so they share the space. */
typedef union mcpp_object_slot {
    const mcpp_xnode *node;
    cJSON *staged;
} mcpp_object_slot;

typedef struct mcpp_artifact {
    const char *kind;
    const char *uri;
} mcpp_artifact;

typedef struct mcpp_artifact_list {
    mcpp_artifact *items;
    size_t count;
    const char *json; /* compact canonical JSON (packed receipts only) */
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

/* A packed receipt's arena is preceded, in the same allocation, by the count
 * of its holders besides the caller that made it (a comparison holds the two
 * receipts it explains): mcpp_receipt_free frees at the last one. Kept there
 * because the struct has to stay under that size. */
#define MCPP_RECEIPT_HOLD_BYTES 16 /* keeps the arena 16-byte aligned */

static inline atomic_uint *mcpp_receipt_holders(const mcpp_receipt *r)
{
    return (atomic_uint *)((char *)r->arena - MCPP_RECEIPT_HOLD_BYTES);
}

/* An arena of `size` bytes with its holder count before it (0 holders
 * besides the maker), for code that builds a receipt without mcpp_pack (the
 * store's images); NULL when out of memory. Freed by mcpp_receipt_free, or
 * by mcpp_receipt_arena_free before it is given to a receipt. */
static inline char *mcpp_receipt_arena_alloc(size_t size)
{
    char *hold = malloc(MCPP_RECEIPT_HOLD_BYTES + (size ? size : 1));
    if (!hold) return NULL;
    atomic_init((atomic_uint *)hold, 0);
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

/* ---- the schema table (schema.c) --------------------------------------------- */

typedef struct mcpp_schema_entry {
    mcpp_field_info info; /* public view: id, path, type, enum names, doc */
    const char *name;     /* last path component */
    int section;
    int storage;
    int range;
    size_t offset; /* of the member inside mcpp_fields */
} mcpp_schema_entry;

typedef struct mcpp_section_entry {
    const char *name;
    const char *path;
    int parent;
    int first_field, last_field;
} mcpp_section_entry;

extern const mcpp_schema_entry mcpp_schema_entries[MCPP_FIELD_COUNT];
extern const mcpp_section_entry mcpp_schema_sections[MCPP_SECTION_COUNT];

/* Member `key` of section `section`: sets *field_out (>= 0) for a field or
 * *section_out (>= 0) for a subsection; returns 0 when found, -1 otherwise. */
int mcpp_schema_lookup(int section, const char *key, int *field_out, int *section_out);
/* The lookup's shortcut: writers emit keys in schema order, so the key after
 * field `guess - 1` is most often field `guess` or the subsection holding it.
 * Returns 0 with *field or *sub set (the other -1) when `key` is that one. */
int mcpp_schema_predict(int section, int guess, const char *key, int *field, int *sub);
/* The name the shortcut expects after field `guess - 1` (with *field or *sub
 * set for it, the other -1), or NULL when there is none; the JSON reader
 * compares it with the key's bytes in place, without copying the key. */
const char *mcpp_schema_predict_name(int section, int guess, int *field, int *sub);
/* Reference implementation by linear scan (tests compare the two). */
int mcpp_schema_lookup_scan(int section, const char *key, int *field_out, int *section_out);
/* The known name inside `section` closest to `key` (for "did you mean"), or NULL. */
const char *mcpp_schema_suggest(int section, const char *key);
/* Pointer to the member of field `id` inside a fields struct. */
static inline void *mcpp_field_ptr(mcpp_fields *f, int id)
{
    return (char *)f + mcpp_schema_entries[id].offset;
}
static inline const void *mcpp_field_cptr(const mcpp_fields *f, int id)
{
    return (const char *)f + mcpp_schema_entries[id].offset;
}
/* Index of `value` in the NULL-terminated list, or -1. */
int mcpp_enum_index(const char *const *names, const char *value);
/* "a", "b" or "c" into buf (for messages). */
void mcpp_enum_list_text(char *buf, size_t cap, const char *const *names);

/* ---- metrics (metrics.c, metrics_check.c) ---------------------------------- */

typedef struct mcpp_well_known_metric {
    const char *name;
    const char *unit;
    mcpp_direction direction;
    int field; /* the field holding the value (step_time_s: its median) */
} mcpp_well_known_metric;
extern const mcpp_well_known_metric mcpp_well_known_metrics[];
extern const size_t mcpp_well_known_metric_count;

typedef struct mcpp_load_ctx mcpp_load_ctx;

/* Checks metrics.named (each entry's members, unique names, samples against
 * the stated aggregate) and metrics.primary on a staging struct. */
void mcpp_validate_metrics(mcpp_load_ctx *ctx, const mcpp_receipt *r);
/* 1 when |stated - derived| is beyond 0.5% of the larger (rounding to ~3 digits). */
int mcpp_rel_differs(double stated, double derived);

/* ---- reports (report.c) ------------------------------------------------------- */

mcpp_report *mcpp_report_new(void);
/* Adds a diagnostic; returns 0, or MCPP_ENOMEM. */
int mcpp_report_add(mcpp_report *report, mcpp_severity severity, const char *kind,
                    const char *file, const char *field, int line, int column, const char *text);
/* Sets mcpp_error_last() from the report's first error and returns `code`. */
int mcpp_report_set_last_error(const mcpp_report *report, int code);
/* The kind of the first error, or NULL. */
const char *mcpp_report_first_kind(const mcpp_report *report);

/* ---- JSON text helpers (json_scan.c) ----------------------------------------- */

/* One pass over the bytes before cJSON: UTF-8, "\u0000", depth and string
 * length. Returns 0 or a negative code with the problem added to `report`. */
int mcpp_json_prescan(const char *buf, size_t len, const mcpp_limits *limits, const char *name,
                      mcpp_report *report);
/* 0 when s[0..len) is valid UTF-8 (no overlongs, surrogates, > U+10FFFF), else -1. */
int mcpp_utf8_valid(const char *s, size_t len);
/* 1-based line and column (in characters) of byte `offset`. */
void mcpp_text_position(const char *buf, size_t len, size_t offset, int *line, int *column);
/* Byte offset of the value (or, with want_key, the key) at dotted `path`
 * ("a.b[2].c"); `occurrence` counts duplicate keys (1 = first). -1 if absent. */
long mcpp_json_locate(const char *buf, size_t len, const char *path, int want_key, int occurrence);

/* ---- YAML reader (yaml_read.c) ----------------------------------------------------- */

typedef struct mcpp_yaml_marks mcpp_yaml_marks;
/* Parses one YAML document into a cJSON tree with a side table of marks.
 * Refuses anchors, aliases, tags, multiple documents, non-scalar keys,
 * duplicate keys and depth/length beyond limits (added to report). */
int mcpp_yaml_read(cJSON **out, mcpp_yaml_marks **marks_out, const char *buf, size_t len,
                   const mcpp_limits *limits, const char *name, mcpp_report *report);
void mcpp_yaml_marks_free(mcpp_yaml_marks *marks);
/* Line/column of a node (or of its key), 0 when unknown. */
void mcpp_yaml_marks_find(const mcpp_yaml_marks *marks, const cJSON *node, int want_key, int *line,
                          int *column);

/* ---- binding and validation (bind.c, validate.c) ------------------------------ */

#define MCPP_MAX_SHOWN_PROBLEMS 32

typedef struct mcpp_load_ctx {
    const char *name; /* input name for messages (may be NULL) */
    const char *buf;  /* source text, for locating fields on the error path */
    size_t len;
    int format; /* MCPP_FORMAT_JSON / MCPP_FORMAT_YAML; 0 for the builder */
    const mcpp_limits *limits;
    mcpp_report *report;
    const cJSON *root;            /* for locating YAML nodes by path */
    const mcpp_yaml_marks *marks; /* YAML only */
    int errors; /* every error, counted */
    int shown;  /* problems located and reported (at most MCPP_MAX_SHOWN_PROBLEMS) */
    int nomem;
    int schema_version; /* 1 when the input was schema 1 (upgraded), else 0 */
    uint64_t tried[MCPP_PRESENT_WORDS]; /* fields seen (bound or not): duplicates */
    int quiet;          /* problems are only counted, in quiet_problems (the direct reader) */
    int quiet_problems;
    /* staging lists: a scratch area, then heap blocks freed by mcpp_ctx_release */
    size_t scratch_used;
    size_t heap_count;
    void *heap[16];
    _Alignas(16) char scratch[3072];
} mcpp_load_ctx;

/* Staging-list memory from the context's scratch area (or the heap when big);
 * NULL with ctx->nomem set when out of memory. */
void *mcpp_ctx_alloc(mcpp_load_ctx *ctx, size_t bytes);
/* Frees what the binder allocated for staging lists (call after packing). */
void mcpp_ctx_release(mcpp_load_ctx *ctx);

/* Adds an error (or warning) about `path`; locates it on the error path only. */
void mcpp_ctx_problem(mcpp_load_ctx *ctx, mcpp_severity severity, const char *kind,
                      const char *path, int want_key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Fills the staging struct `out` (zeroed by the caller) from the tree; strings
 * are borrowed from the tree. Problems go to ctx. */
void mcpp_bind_tree(mcpp_load_ctx *ctx, mcpp_receipt *out, const cJSON *root);
/* Binds value `v` into field `id` by the binder's rules without reporting:
 * 0 when bound, -1 when the binder would report a problem (nothing stored
 * that matters: the caller then loads the file through the tree path). */
int mcpp_bind_value_quiet(mcpp_load_ctx *ctx, mcpp_receipt *out, int id, const cJSON *v);
/* Checks that a number fits field `id`'s range; returns NULL or the words for the message. */
const char *mcpp_range_problem(int range, double value);
/* Cross-field rules on a staging struct. */
void mcpp_validate(mcpp_load_ctx *ctx, const mcpp_receipt *r);
/* The family registry against lane.family/pattern/depth/blocks (validate_v2.c). */
void mcpp_validate_family(mcpp_load_ctx *ctx, const mcpp_receipt *r, int has_e);
/* Rules of the fields schema 2 added (validate_v2.c). */
void mcpp_validate_v2(mcpp_load_ctx *ctx, const mcpp_receipt *r);
/* Checks a free-form tree for duplicate keys / non-finite numbers, reporting at `path`. */
int mcpp_check_free_form(mcpp_load_ctx *ctx, const cJSON *node, char *path, size_t path_len,
                         size_t path_cap);

/* ---- packing (pack.c) ---------------------------------------------------------- */

/* Copies a staging struct into the compact receipt, derives the id. Returns 0,
 * MCPP_ENOMEM, or MCPP_ELIMIT when free-form data would index to > 64 MiB. */
int mcpp_pack(mcpp_receipt **out, const mcpp_receipt *staging, const char *source_name);
/* Frees what a staging struct owns: list arrays always; strings and cJSON
 * trees too when `owns_strings`. Leaves *r zeroed. */
void mcpp_staging_release(mcpp_receipt *r, int owns_strings);

/* Median and linear-interpolation percentiles of `n` samples (n >= 1). */
void mcpp_sample_stats(const double *samples, size_t n, double *median, double *p10, double *p90);

/* mcpp_tokens_per_s_from_steps: receipt/metric_ref.h */
#include "receipt/metric_ref.h"

/* ---- writing (write_json.c, write_yaml.c, canonical_json.c) ------------------- */

/* Compact canonical JSON of a cJSON value (keys sorted, numbers canonical). */
void mcpp_sb_cjson_compact(mcpp_strbuf *sb, const cJSON *v);
/* Sorts object members bytewise by key: the canonical order of free-form objects. */
void mcpp_cjson_sort_members(const cJSON **items, size_t n);

/* Canonical JSON of a receipt (staging or packed); `with_id` 0 leaves id out.
 * `v1` writes the layout of schema 1 (callers check first that the content
 * fits, with mcpp_schema1_check). */
int mcpp_write_json(mcpp_strbuf *sb, const mcpp_receipt *r, int with_id, int v1);
int mcpp_write_yaml(mcpp_strbuf *sb, const mcpp_receipt *r, int v1);

/* Where a writer puts field `id`: schema 1 had backend.precision as one
 * string (the precision that ran), so in the v1 layout the observed precision
 * is the field "precision" of backend and the requested one is not written. */
static inline int mcpp_write_section(int id, int v1)
{
    return v1 && id == MCPP_F_backend_precision_observed ? MCPP_S_BACKEND
                                                         : mcpp_schema_entries[id].section;
}
static inline const char *mcpp_write_name(int id, int v1)
{
    return v1 && id == MCPP_F_backend_precision_observed ? "precision"
                                                         : mcpp_schema_entries[id].name;
}
static inline int mcpp_write_skips(const mcpp_receipt *r, int id, int v1)
{
    if (!mcpp_present(r, id))
        return 1;
    return v1 && (id == MCPP_F_backend_precision_requested ||
                  (id >= MCPP_F_lane_blocks_A && id <= MCPP_F_lane_blocks_R));
}

/* ---- schema 1 (schema_v1.c) ----------------------------------------------------- */

/* Rewrites a schema-1 tree into the layout of schema 2 in place (the only
 * moved field is backend.precision) and adds a warning saying so. Returns 0,
 * or -1 when out of memory. Trees of other schemas are left alone. */
int mcpp_schema1_upgrade(mcpp_load_ctx *ctx, cJSON *root);
/* The warning a schema-1 input gets when it is upgraded on load. */
void mcpp_schema1_upgrade_warning(mcpp_load_ctx *ctx);
/* 0 when `r` can be written as schema 1 without losing anything; else -1 with
 * the field and the reason in the last error. */
int mcpp_schema1_check(const mcpp_receipt *r);
/* Sets lane.blocks from lane.pattern tiled to lane.depth when both are stated
 * and no count is (builder, and schema-1 inputs being upgraded). */
void mcpp_derive_block_counts(mcpp_receipt *staging);
/* 1 when field `id` is new in schema 2 (a schema-1 file may not state it). */
int mcpp_schema1_lacks(int id);

#endif /* MCPP_RECEIPT_INTERNAL_H */
