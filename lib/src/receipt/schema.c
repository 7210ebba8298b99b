/*
 * schema.c — the field table of mcpp.receipt/2 generated from schema_fields.h,
 * the public schema queries, and key lookup for the binder.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "util/edit_distance.h"
#include "receipt/schema.h"
#include "util/error_internal.h"
#include "util/strbuf.h"

/* Allowed names of the enum fields (and of the backend.moe strings). */
static const char *const mcpp_enum_data_path[] = {"real", "synthetic", NULL};
static const char *const mcpp_enum_routing_mode[] = {"token_choice", "expert_choice", NULL};
static const char *const mcpp_enum_routing_score[] = {"softmax", "sigmoid", NULL};
static const char *const mcpp_enum_routing_overflow[] = {"drop", "pad", "no_drop", NULL};
static const char *const mcpp_enum_compile_posture[] = {"eager", "partial", "regional",
                                                        "whole_model", "graph_replay", NULL};
static const char *const mcpp_enum_compile_warmup[] = {"explicit", "lazy", "skipped", NULL};
static const char *const mcpp_enum_moe_lane[] = {"padded", "jagged", "block_sparse", NULL};
/* a request may leave the choice to the dispatcher */
static const char *const mcpp_enum_moe_request[] = {"padded", "jagged", "block_sparse", "auto", NULL};
static const char *const mcpp_enum_verification[] = {"passed", "failed", "skipped", NULL};
static const char *const mcpp_enum_substrate[] = {"cuda", "tpu", "cpu", "rocm", "hpu",
                                                  "xpu", "neuron", "mps", NULL};
static const char *const mcpp_enum_observed_source[] = {"probed", "declared", NULL};
static const char *const mcpp_enum_cuda_graphs[] = {"off", "partial", "full", NULL};
static const char *const mcpp_enum_startup[] = {"cold_boot", "warm_cache", "snapshot_restore", NULL};
static const char *const mcpp_enum_cache_state[] = {"cold", "warm", "restored", NULL};
static const char *const mcpp_enum_outcome[] = {"ok", "failed", "partial", NULL};
static const char *const mcpp_enum_stability[] = {"stable", "unstable", "blocked", NULL};

#define MCPP_PUBLIC_TYPE_BOOL MCPP_TYPE_BOOL
#define MCPP_PUBLIC_TYPE_INT MCPP_TYPE_INT
#define MCPP_PUBLIC_TYPE_INT32 MCPP_TYPE_INT
#define MCPP_PUBLIC_TYPE_DOUBLE MCPP_TYPE_DOUBLE
#define MCPP_PUBLIC_TYPE_STRING MCPP_TYPE_STRING
#define MCPP_PUBLIC_TYPE_ENUM MCPP_TYPE_ENUM
#define MCPP_PUBLIC_TYPE_SLIST MCPP_TYPE_STRING_LIST
#define MCPP_PUBLIC_TYPE_DLIST MCPP_TYPE_DOUBLE_LIST
#define MCPP_PUBLIC_TYPE_OBJECT MCPP_TYPE_OBJECT
#define MCPP_PUBLIC_TYPE_ARTIFACTS MCPP_TYPE_OBJECT
#define MCPP_PUBLIC_TYPE_METRICS MCPP_TYPE_OBJECT

#define MCPP_X_ENTRY(id, sec, name_, path_, st, range_, allowed, doc_)                         \
    {{MCPP_F_##id, path_, MCPP_PUBLIC_TYPE_##st, allowed, doc_},                               \
     name_,                                                                                    \
     MCPP_S_##sec,                                                                             \
     MCPP_ST_##st,                                                                             \
     MCPP_RANGE_##range_,                                                                      \
     offsetof(mcpp_fields, id)},
const mcpp_schema_entry mcpp_schema_entries[MCPP_FIELD_COUNT] = {MCPP_SCHEMA_FIELDS(MCPP_X_ENTRY)};
#undef MCPP_X_ENTRY

#define MCPP_X_SECTION(id, parent, name_, path_, first, last)                                  \
    {name_, path_, MCPP_S_##parent, MCPP_F_##first, MCPP_F_##last},
const mcpp_section_entry mcpp_schema_sections[MCPP_SECTION_COUNT] = {
    MCPP_SCHEMA_SECTIONS(MCPP_X_SECTION)};
#undef MCPP_X_SECTION

int mcpp_schema_field_count(void) { return MCPP_FIELD_COUNT; }

const mcpp_field_info *mcpp_schema_field_at(int id)
{
    if (id < 0 || id >= MCPP_FIELD_COUNT)
        return NULL;
    return &mcpp_schema_entries[id].info;
}

int mcpp_schema_field_id(const char *path)
{
    if (!path)
        return -1;
    for (int i = 0; i < MCPP_FIELD_COUNT; i++)
        if (strcmp(mcpp_schema_entries[i].info.path, path) == 0)
            return i;
    /* schema 1 had one precision (what ran); policies and claims written
     * against schema 1 name it by its old path */
    if (strcmp(path, "backend.precision") == 0)
        return MCPP_F_backend_precision_observed;
    return -1;
}

#include "receipt/schema_index.h"

int mcpp_schema_lookup(int section, const char *key, int *field_out, int *section_out)
{
    *field_out = -1;
    *section_out = -1;
    uint32_t h = (0x811c9dc5u ^ (unsigned char)section) * 0x01000193u;
    size_t len = 0;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++, len++)
        h = (h ^ *p) * 0x01000193u;
    for (size_t i = h % MCPP_SCHEMA_INDEX_SIZE;; i = (i + 1) % MCPP_SCHEMA_INDEX_SIZE) {
        const char *name = mcpp_schema_index[i].name;
        if (!name)
            return -1;
        if (mcpp_schema_index[i].section != section || mcpp_schema_index[i].length != len)
            continue;
        size_t k = 0;
        while (k < len && name[k] == key[k])
            k++;
        if (k == len) {
            int code = mcpp_schema_index[i].code;
            if (code >= 0)
                *field_out = code;
            else
                *section_out = -code - 1;
            return 0;
        }
    }
}

/* The same by scanning the schema: the reference the generated index is tested against. */
int mcpp_schema_lookup_scan(int section, const char *key, int *field_out, int *section_out)
{
    *field_out = -1;
    *section_out = -1;
    for (int i = 1; i < MCPP_SECTION_COUNT; i++) {
        if (mcpp_schema_sections[i].parent == section &&
            strcmp(mcpp_schema_sections[i].name, key) == 0) {
            *section_out = i;
            return 0;
        }
    }
    for (int i = 0; i < MCPP_FIELD_COUNT; i++) {
        if (mcpp_schema_entries[i].section == section &&
            strcmp(mcpp_schema_entries[i].name, key) == 0) {
            *field_out = i;
            return 0;
        }
    }
    return -1;
}

const char *mcpp_schema_suggest(int section, const char *key)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    size_t klen = strlen(key);
    size_t limit = mcpp_edit_distance_limit(klen);
    for (int i = 0; i < MCPP_SECTION_COUNT; i++) {
        if (i == section || mcpp_schema_sections[i].parent != section)
            continue;
        size_t d = mcpp_edit_distance(key, mcpp_schema_sections[i].name);
        if (d < best_d) {
            best_d = d;
            best = mcpp_schema_sections[i].name;
        }
    }
    for (int i = 0; i < MCPP_FIELD_COUNT; i++) {
        if (mcpp_schema_entries[i].section != section)
            continue;
        size_t d = mcpp_edit_distance(key, mcpp_schema_entries[i].name);
        if (d < best_d) {
            best_d = d;
            best = mcpp_schema_entries[i].name;
        }
    }
    return best_d <= limit ? best : NULL;
}

/* The field whose name is `last` when exactly one field has it ("seq_len" ->
 * "workload.seq_len"), for a path that left out its sections. */
static const char *field_named(const char *last)
{
    const char *found = NULL;
    for (int i = 0; i < MCPP_FIELD_COUNT; i++) {
        if (strcmp(mcpp_schema_entries[i].name, last) != 0)
            continue;
        if (found)
            return NULL;
        found = mcpp_schema_entries[i].info.path;
    }
    return found;
}

/* Walks `path` section by section, replacing each unknown segment by the
 * closest known name there (mcpp_schema_suggest, as the loader does). */
static int suggest_by_segments(mcpp_strbuf *out, const char *path)
{
    int section = MCPP_S_ROOT;
    for (const char *seg = path;;) {
        size_t n = strcspn(seg, ".");
        char key[64];
        if (n == 0 || n >= sizeof key)
            return -1;
        memcpy(key, seg, n);
        key[n] = '\0';
        int field, sub;
        const char *name = key;
        if (mcpp_schema_lookup_scan(section, key, &field, &sub) != 0) {
            if (!(name = mcpp_schema_suggest(section, key)))
                return -1;
            mcpp_schema_lookup_scan(section, name, &field, &sub);
        }
        if (out->len)
            mcpp_sb_putc(out, '.');
        mcpp_sb_puts(out, name);
        if (seg[n] == '\0')
            return field >= 0 ? 0 : -1;
        if (sub < 0)
            return -1;
        section = sub;
        seg += n + 1;
    }
}

int mcpp_schema_field_suggest(char *buf, size_t cap, const char *path)
{
    MCPP_CHECK_ARG(buf && cap && path, "mcpp_schema_field_suggest: NULL argument");
    buf[0] = '\0';
    mcpp_strbuf sb;
    mcpp_sb_init(&sb, buf, cap);
    int rc = suggest_by_segments(&sb, path);
    if (rc == 0 && strcmp(sb.data, path) == 0)
        rc = -1; /* the path is a field already */
    if (rc != 0) {
        const char *last = strrchr(path, '.');
        const char *named = field_named(last ? last + 1 : path);
        sb.len = 0;
        if (named && strcmp(named, path) != 0) {
            mcpp_sb_puts(&sb, named);
            rc = 0;
        }
    }
    int fits = rc == 0 && !sb.failed && sb.data == buf;
    mcpp_sb_free(&sb);
    if (fits)
        return MCPP_OK;
    buf[0] = '\0';
    return mcpp_error_raise(MCPP_ENOTFOUND, MCPP_ERROR_KIND_UNKNOWN_FIELD, "no schema path close to '%s'", path);
}

int mcpp_enum_index(const char *const *names, const char *value)
{
    /* the first byte rules out most names without a call; libc's strcmp
     * compares the rest a vector at a time */
    for (int i = 0; names && names[i]; i++)
        if (names[i][0] == value[0] && strcmp(names[i], value) == 0)
            return i;
    return -1;
}

void mcpp_enum_list_text(char *buf, size_t cap, const char *const *names)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; names && names[i] && used < cap; i++) {
        int n = snprintf(buf + used, cap - used, "%s\"%s\"", i ? ", " : "", names[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

void mcpp_limits_default(mcpp_limits *out)
{
    if (!out)
        return;
    const mcpp_limits defaults = MCPP_LIMITS_INIT;
    *out = defaults;
}
