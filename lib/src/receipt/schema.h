/*
 * schema.h — the schema table (schema.c, from schema_fields.h): each field's
 * path, storage, range, allowed names and member offset, each section's
 * fields, the lookups the binder and the JSON reader use, and the
 * well-known metrics (metrics.c). Private to receipt/ and io/.
 */
#ifndef MCPP_RECEIPT_SCHEMA_H
#define MCPP_RECEIPT_SCHEMA_H

#include <stddef.h>

#include "receipt/layout.h"
#include "util/strbuf.h"

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

/* The name the lookup's shortcut expects after field `guess - 1` (with *field
 * or *sub set for it, the other -1), or NULL when there is none. Writers (ours
 * included) emit keys in schema order, so the key after field f is most often
 * field f+1, or the subsection that holds it. Inline: the JSON reader asks it
 * for every key it reads. */
static inline const char *mcpp_schema_predict_name(int section, int guess, int *field, int *sub)
{
    if (guess < 0 || guess >= MCPP_FIELD_COUNT)
        return NULL;
    int s = mcpp_schema_entries[guess].section;
    if (s == section) {
        *field = guess;
        *sub = -1;
        return mcpp_schema_entries[guess].name;
    }
    while (s != MCPP_S_ROOT && mcpp_schema_sections[s].parent != section)
        s = mcpp_schema_sections[s].parent;
    if (s == MCPP_S_ROOT)
        return NULL;
    *field = -1;
    *sub = s;
    return mcpp_schema_sections[s].name;
}

/* Member `key` of section `section`: sets *field_out (>= 0) for a field or
 * *section_out (>= 0) for a subsection; returns 0 when found, -1 otherwise. */
int mcpp_schema_lookup(int section, const char *key, int *field_out, int *section_out);
/* The lookup's shortcut: writers emit keys in schema order, so the key after
 * field `guess - 1` is most often field `guess` or the subsection holding it.
 * Returns 0 with *field or *sub set (the other -1) when `key` is that one. */
int mcpp_schema_predict(int section, int guess, const char *key, int *field, int *sub);
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
/* Bytes of field `id`'s member in mcpp_fields. */
static inline size_t mcpp_member_size(int id)
{
    switch (mcpp_schema_entries[id].storage) {
    case MCPP_ST_BOOL:
    case MCPP_ST_ENUM: return 1;
    case MCPP_ST_INT: return sizeof(int64_t);
    case MCPP_ST_INT32: return sizeof(int32_t);
    case MCPP_ST_DOUBLE: return sizeof(double);
    case MCPP_ST_STRING: return sizeof(const char *);
    case MCPP_ST_SLIST: return sizeof(mcpp_string_list);
    case MCPP_ST_DLIST: return sizeof(mcpp_double_list);
    case MCPP_ST_ARTIFACTS: return sizeof(mcpp_artifact_list);
    default: return sizeof(mcpp_object_slot);
    }
}
/* Zeros, read for an absent member of a compact receipt (layout.h). */
extern const uint64_t mcpp_absent_member[2];
/* The member of field `id` of r, a staging struct or a compact packed one
 * (layout.h): the one way to read a receipt's field. An absent member of a
 * compact receipt reads as zeros. */
static inline const void *mcpp_field_slot(const mcpp_receipt *r, int id)
{
    if (!mcpp_is_compact(r))
        return (const char *)&r->f + mcpp_schema_entries[id].offset;
    const uint8_t *table = *(const uint8_t *const *)&r->f;
    unsigned word = table[id];
    return word ? (const void *)((const char *)&r->f + 8u * word) : (const void *)mcpp_absent_member;
}
/* Field `name`'s member of r as a value of `type` (mcpp_field_slot). */
#define MCPP_FIELD(r, name, type) (*(const type *)mcpp_field_slot((r), MCPP_F_##name))
/* Index of `value` in the NULL-terminated list, or -1. */
int mcpp_enum_index(const char *const *names, const char *value);
/* "a", "b" or "c" into buf (for messages). */
void mcpp_enum_list_text(char *buf, size_t cap, const char *const *names);

/* ---- the well-known metrics (metrics.c) ------------------------------------ */

typedef struct mcpp_well_known_metric {
    const char *name;
    const char *unit;
    mcpp_direction direction;
    int field; /* the field holding the value (step_time_s: its median) */
} mcpp_well_known_metric;
extern const mcpp_well_known_metric mcpp_well_known_metrics[];
extern const size_t mcpp_well_known_metric_count;

/* ---- where the writers put a field (write_json.c, io/write_yaml.c) ------------ */

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

/* A scalar list as both writers write it, inline: "[a, b]" (write_json.c).
 * Strings go through `put`, the output's own string writer (JSON's escaper,
 * YAML's quoting); numbers are canonical doubles, the same text in JSON and
 * YAML. */
void mcpp_write_string_list(mcpp_strbuf *sb, const mcpp_string_list *l, void (*put)(mcpp_strbuf *sb, const char *s));
void mcpp_write_number_list(mcpp_strbuf *sb, const mcpp_double_list *l);

#endif /* MCPP_RECEIPT_SCHEMA_H */
