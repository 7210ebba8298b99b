/*
 * bind.c — the binder: walks a parsed tree (cJSON, from JSON or YAML) against
 * the schema table and fills a staging mcpp_receipt, reporting every unknown
 * field, wrong type, bad enum value, out-of-range number and duplicate key.
 *
 * The binder never stops at the first problem: the user gets the whole list.
 * Locations are computed by mcpp_ctx_problem only when a problem is found.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/c_locale.h"
#include "receipt/cjson_inline.h"
#include "receipt/load_ctx.h"
#include "util/strbuf.h"
#include "receipt/schema.h"

#define MCPP_EXACT_INT_LIMIT 9007199254740992.0 /* 2^53 */

/* ---- reporting ---------------------------------------------------------------- */

/* Finds the node at `path` in a tree (for YAML marks). */
static const cJSON *node_at_path(const cJSON *root, const char *path, const cJSON **parent_out)
{
    const cJSON *node = root;
    const char *comp = path;
    char name[256];
    *parent_out = NULL;
    while (node && *comp) {
        *parent_out = node;
        if (*comp == '[') {
            int index = atoi(comp + 1);
            node = mcpp_cj_is_array(node) ? cJSON_GetArrayItem(node, index) : NULL;
            comp = strchr(comp, ']');
            if (!comp)
                return NULL;
            comp++;
        } else {
            size_t n = strcspn(comp, ".[");
            if (n >= sizeof name)
                return NULL;
            memcpy(name, comp, n);
            name[n] = '\0';
            node = mcpp_cj_is_object(node) ? cJSON_GetObjectItemCaseSensitive(node, name) : NULL;
            comp += n;
        }
        if (*comp == '.')
            comp++;
    }
    return node;
}

void mcpp_ctx_problem(mcpp_load_ctx *ctx, mcpp_severity severity, const char *kind,
                      const char *path, int want_key, const char *fmt, ...)
{
    char text[900];
    if (ctx->quiet) { /* the direct JSON reader asking "would this be refused?" */
        ctx->quiet_problems++;
        return;
    }
    if (severity == MCPP_SEVERITY_ERROR)
        ctx->errors++;
    /* Locating a problem scans the text, so a hostile file with a million bad
     * keys would take quadratic time: past a cap, problems are only counted. */
    if (ctx->shown >= MCPP_MAX_SHOWN_PROBLEMS) {
        if (ctx->shown++ == MCPP_MAX_SHOWN_PROBLEMS &&
            mcpp_report_add(ctx->report, MCPP_SEVERITY_WARNING, "limit", ctx->name, NULL, 0, 0,
                            "too many problems: only the first 32 are reported") != 0)
            ctx->nomem = 1;
        return;
    }
    ctx->shown++;
    if (!mcpp_report_keeps(ctx->report, severity))
        return; /* a warning nobody reads: neither formatted nor located (it cost a tenth of a load) */
    va_list ap;
    va_start(ap, fmt);
    mcpp_vsnprintf_c(text, sizeof text, fmt, ap);
    va_end(ap);

    int line = 0, column = 0;
    if (ctx->format == MCPP_FORMAT_JSON && ctx->buf && path) {
        /* a duplicate is reported where its second occurrence sits */
        int occurrence = strcmp(kind, "duplicate_key") == 0 ? 2 : 1;
        long off = mcpp_json_locate(ctx->buf, ctx->len, path, want_key, occurrence);
        /* a missing field: point at the nearest enclosing section that exists */
        char parent[512];
        snprintf(parent, sizeof parent, "%s", path);
        while (off < 0) {
            char *dot = strrchr(parent, '.');
            if (dot)
                *dot = '\0';
            else
                parent[0] = '\0';
            off = mcpp_json_locate(ctx->buf, ctx->len, parent, 1, 1);
            if (!parent[0])
                break;
        }
        if (off >= 0)
            mcpp_text_position(ctx->buf, ctx->len, (size_t)off, &line, &column);
    } else if (ctx->format == MCPP_FORMAT_YAML && ctx->yaml_position && ctx->root && path) {
        const cJSON *parent = NULL;
        const cJSON *node = node_at_path(ctx->root, path, &parent);
        if (!node && parent) {
            node = parent; /* a missing member: point at its section */
            want_key = 1;
        }
        if (node)
            ctx->yaml_position(ctx->marks, node, want_key, &line, &column);
    }
    if (mcpp_report_add(ctx->report, severity, kind, ctx->name, path && *path ? path : NULL, line,
                        column, text) != 0)
        ctx->nomem = 1;
}

/* "string \"8\"", "number 8.5", "boolean true", "null", "an object", ... */
static void describe(char *buf, size_t cap, const cJSON *v)
{
    if (mcpp_cj_is_string(v)) {
        const char *s = v->valuestring;
        size_t n = strlen(s);
        if (n > 40)
            snprintf(buf, cap, "string \"%.40s...\"", s);
        else
            snprintf(buf, cap, "string \"%s\"", s);
    } else if (mcpp_cj_is_number(v)) {
        char num[40];
        mcpp_format_double(num, sizeof num, v->valuedouble, 0);
        snprintf(buf, cap, "number %s", num);
    } else if (mcpp_cj_is_true(v)) {
        snprintf(buf, cap, "boolean true");
    } else if (cJSON_IsFalse(v)) {
        snprintf(buf, cap, "boolean false");
    } else if (cJSON_IsNull(v)) {
        snprintf(buf, cap, "null");
    } else if (mcpp_cj_is_array(v)) {
        snprintf(buf, cap, "a list");
    } else {
        snprintf(buf, cap, "an object");
    }
}

static void type_problem(mcpp_load_ctx *ctx, const char *path, const char *expected,
                         const cJSON *v)
{
    char got[96];
    describe(got, sizeof got, v);
    mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", path, 0, "expected %s, got %s", expected,
                     got);
}

const char *mcpp_range_problem(int range, double value)
{
    switch (range) {
    case MCPP_RANGE_GE0: return value >= 0 ? NULL : "a value >= 0";
    case MCPP_RANGE_GE1: return value >= 1 ? NULL : "a value >= 1";
    case MCPP_RANGE_GT0: return value > 0 ? NULL : "a value > 0";
    default: return NULL;
    }
}

/* Checks a number for a field of kind INT, INT32 or DOUBLE; returns 0 when fine. */
static int check_number(mcpp_load_ctx *ctx, const char *path, int storage, int range,
                        const cJSON *v)
{
    const char *expected = mcpp_storage_is_int(storage) ? "integer" : "number";
    if (!mcpp_cj_is_number(v)) {
        type_problem(ctx, path, expected, v);
        return -1;
    }
    double d = v->valuedouble;
    if (!isfinite(d)) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "range", path, 0,
                         "expected a finite %s, got a number too large for a double (infinity)",
                         expected);
        return -1;
    }
    if (mcpp_storage_is_int(storage)) {
        if (fabs(d) > MCPP_EXACT_INT_LIMIT) {
            char num[40];
            mcpp_format_double(num, sizeof num, d, 0);
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "range", path, 0,
                             "expected integer, got %s which overflows the exact integer range "
                             "(+-2^53)",
                             num);
            return -1;
        }
        if (d != floor(d)) {
            type_problem(ctx, path, "integer", v);
            return -1;
        }
    }
    const char *rp = mcpp_int_width_problem(storage, d);
    if (!rp) rp = mcpp_range_problem(range, d);
    if (rp) {
        char num[40];
        mcpp_format_double(num, sizeof num, d, 0);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "range", path, 0, "expected %s, got %s", rp,
                         num);
        return -1;
    }
    return 0;
}


static int check_array_size(mcpp_load_ctx *ctx, const char *path, const cJSON *v, size_t *n_out)
{
    size_t n = 0;
    for (const cJSON *it = v->child; it; it = it->next)
        n++;
    if (n > ctx->limits->max_array_items) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "limit", path, 0,
                         "list of %zu items is beyond the limit of %zu", n,
                         ctx->limits->max_array_items);
        return -1;
    }
    *n_out = n;
    return 0;
}

/* `v` is a list of at most the limit's items (its length in *n_out), and
 * *items_out room for them in the load's staging memory (zeroed; NULL when the
 * list is empty); else -1: the problem, naming `what` was expected when it is
 * not a list, or out of memory (ctx->nomem). */
static int check_list(mcpp_load_ctx *ctx, const char *path, const cJSON *v, const char *what, size_t item_size,
                      void **items_out, size_t *n_out)
{
    *items_out = NULL;
    if (!mcpp_cj_is_array(v)) {
        type_problem(ctx, path, what, v);
        return -1;
    }
    if (check_array_size(ctx, path, v, n_out) != 0)
        return -1;
    if (*n_out == 0)
        return 0;
    if (!(*items_out = mcpp_ctx_alloc(ctx, *n_out * item_size)))
        return -1;
    memset(*items_out, 0, *n_out * item_size);
    return 0;
}

/* Appends "[i]" or ".key" to path; returns the old length to restore. Plain
 * memcpy: this runs for every key of every receipt. */
static size_t path_push_index(char *path, size_t cap, size_t i)
{
    size_t old = strlen(path);
    snprintf(path + old, cap - old, "[%zu]", i);
    return old;
}

static size_t path_push_key(char *path, size_t cap, const char *key)
{
    size_t old = strlen(path), n = strlen(key);
    size_t at = old;
    if (old && at + 1 < cap)
        path[at++] = '.';
    if (at + n >= cap)
        n = at < cap ? cap - at - 1 : 0;
    memcpy(path + at, key, n);
    path[at + n] = '\0';
    return old;
}

static int key_ptr_cmp(const void *x, const void *y)
{
    const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
    int c = strcmp(a->string, b->string);
    if (c)
        return c;
    return (a > b) - (a < b); /* stable enough: only equality matters */
}

static void report_duplicate(mcpp_load_ctx *ctx, const char *key, char *path, size_t cap)
{
    size_t old = path_push_key(path, cap, key);
    mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "duplicate_key", path, 1,
                     "duplicate key \"%s\" (each key may appear once)", key);
    path[old] = '\0';
}

/* Duplicate keys in one object: cJSON keeps both, we refuse the second. Small
 * objects compare pairwise; big ones (a hostile 10^6-key object) sort a copy
 * of the member pointers so the check stays O(n log n). */
static int check_duplicates(mcpp_load_ctx *ctx, const cJSON *obj, char *path, size_t cap)
{
    size_t n = 0;
    for (const cJSON *a = obj->child; a; a = a->next)
        n++;
    if (n <= 32) {
        int bad = 0;
        for (const cJSON *a = obj->child; a; a = a->next) {
            for (const cJSON *b = obj->child; b != a; b = b->next) {
                if (a->string && b->string && strcmp(a->string, b->string) == 0) {
                    report_duplicate(ctx, a->string, path, cap);
                    bad = 1;
                    break;
                }
            }
        }
        return bad ? -1 : 0;
    }
    const cJSON **members = malloc(n * sizeof *members);
    if (!members) {
        ctx->nomem = 1;
        return -1;
    }
    size_t i = 0;
    for (const cJSON *a = obj->child; a; a = a->next)
        members[i++] = a;
    qsort(members, n, sizeof *members, key_ptr_cmp);
    int bad = 0;
    for (i = 1; i < n; i++) {
        if (strcmp(members[i - 1]->string, members[i]->string) == 0 &&
            (i < 2 || strcmp(members[i - 2]->string, members[i]->string) != 0)) {
            report_duplicate(ctx, members[i]->string, path, cap);
            bad = 1;
        }
    }
    free(members);
    return bad ? -1 : 0;
}

int mcpp_check_free_form(mcpp_load_ctx *ctx, const cJSON *node, char *path, size_t cap)
{
    int bad = 0;
    if (mcpp_cj_is_object(node)) {
        if (check_duplicates(ctx, node, path, cap) != 0)
            bad = -1;
        for (const cJSON *c = node->child; c; c = c->next) {
            size_t old = path_push_key(path, cap, c->string ? c->string : "");
            if (mcpp_check_free_form(ctx, c, path, cap) != 0)
                bad = -1;
            path[old] = '\0';
        }
    } else if (mcpp_cj_is_array(node)) {
        size_t i = 0, n;
        if (check_array_size(ctx, path, node, &n) != 0)
            return -1;
        for (const cJSON *c = node->child; c; c = c->next, i++) {
            size_t old = path_push_index(path, cap, i);
            if (mcpp_check_free_form(ctx, c, path, cap) != 0)
                bad = -1;
            path[old] = '\0';
        }
    } else if (mcpp_cj_is_number(node) && !isfinite(node->valuedouble)) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "range", path, 0,
                         "expected a finite number, got a number too large for a double "
                         "(infinity)");
        bad = -1;
    } else if (cJSON_IsInvalid(node) || cJSON_IsRaw(node)) {
        bad = -1;
    }
    return bad;
}

/* ---- scratch memory for staging lists ------------------------------------------------ */

/* Staging lists live only until packing: they come from a scratch area in the
 * load context (no malloc for ordinary receipts), or from the heap when big. */
void *mcpp_ctx_alloc(mcpp_load_ctx *ctx, size_t bytes)
{
    size_t at = (ctx->scratch_used + 15) & ~(size_t)15;
    if (at + bytes <= sizeof ctx->scratch) {
        ctx->scratch_used = at + bytes;
        return ctx->scratch + at;
    }
    if (ctx->heap_count == sizeof ctx->heap / sizeof ctx->heap[0]) {
        ctx->nomem = 1; /* more big lists than a receipt has list fields */
        return NULL;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        ctx->nomem = 1;
        return NULL;
    }
    ctx->heap[ctx->heap_count++] = p;
    return p;
}

void mcpp_ctx_release(mcpp_load_ctx *ctx)
{
    for (size_t i = 0; i < ctx->heap_count; i++)
        free(ctx->heap[i]);
    ctx->heap_count = 0;
    ctx->scratch_used = 0;
}

/* ---- one field -------------------------------------------------------------------- */

static int bind_string_list(mcpp_load_ctx *ctx, mcpp_string_list *dst, const cJSON *v,
                            char *path, size_t cap)
{
    size_t n;
    const char **items;
    if (check_list(ctx, path, v, "list of strings", sizeof *items, (void **)&items, &n) != 0)
        return -1;
    int bad = 0;
    size_t i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        if (!mcpp_cj_is_string(it)) {
            size_t old = path_push_index(path, cap, i);
            type_problem(ctx, path, "string", it);
            path[old] = '\0';
            bad = 1;
        }
    }
    if (bad)
        return -1;
    i = 0;
    for (const cJSON *it = v->child; it; it = it->next)
        items[i++] = it->valuestring;
    dst->items = items;
    dst->count = n;
    return 0;
}

static int bind_double_list(mcpp_load_ctx *ctx, mcpp_double_list *dst, int range, const cJSON *v,
                            char *path, size_t cap)
{
    size_t n;
    double *items;
    if (check_list(ctx, path, v, "list of numbers", sizeof *items, (void **)&items, &n) != 0)
        return -1;
    /* checked and copied in one walk (step windows are the longest lists) */
    int bad = 0;
    size_t i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        /* the path of an item is built only when the item is wrong */
        if (mcpp_cj_is_number(it) && isfinite(it->valuedouble) &&
            !mcpp_range_problem(range, it->valuedouble)) {
            items[i] = it->valuedouble;
            continue;
        }
        size_t old = path_push_index(path, cap, i);
        check_number(ctx, path, MCPP_ST_DOUBLE, range, it);
        path[old] = '\0';
        bad = 1;
    }
    if (bad)
        return -1;
    dst->items = items;
    dst->count = n;
    return 0;
}

static int bind_artifacts(mcpp_load_ctx *ctx, mcpp_artifact_list *dst, const cJSON *v, char *path,
                          size_t cap)
{
    size_t n;
    mcpp_artifact *items;
    if (check_list(ctx, path, v, "list of {kind, uri} objects", sizeof *items, (void **)&items, &n) != 0)
        return -1;
    int bad = 0;
    size_t i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        size_t old = path_push_index(path, cap, i);
        if (!mcpp_cj_is_object(it)) {
            type_problem(ctx, path, "object {kind, uri}", it);
            bad = 1;
        } else {
            if (check_duplicates(ctx, it, path, cap) != 0)
                bad = 1;
            for (const cJSON *m = it->child; m; m = m->next) {
                size_t old2 = path_push_key(path, cap, m->string);
                int is_kind = strcmp(m->string, "kind") == 0;
                if (!is_kind && strcmp(m->string, "uri") != 0) {
                    mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "unknown_field", path, 1,
                                     "unknown field (an artifact has only 'kind' and 'uri')");
                    bad = 1;
                } else if (!mcpp_cj_is_string(m)) {
                    type_problem(ctx, path, "string", m);
                    bad = 1;
                } else if (is_kind) {
                    items[i].kind = m->valuestring;
                } else {
                    items[i].uri = m->valuestring;
                }
                path[old2] = '\0';
            }
            if (!bad && (!items[i].kind || !items[i].uri)) {
                mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "missing", path, 0,
                                 "an artifact needs both 'kind' and 'uri'");
                bad = 1;
            }
        }
        path[old] = '\0';
    }
    if (bad)
        return -1;
    dst->items = items;
    dst->count = n;
    return 0;
}

/* A free-form value (an object, or the list of named metrics) of the shape
 * `shape_ok` says, checked (depth, strings, numbers) and staged for the
 * packer; its path, the text in buf (cap bytes), names it in a problem. */
static int stage_free_form(mcpp_load_ctx *ctx, void *slot, const cJSON *v, int shape_ok, const char *expected,
                           char *buf, size_t cap)
{
    if (!shape_ok) {
        type_problem(ctx, buf, expected, v);
        return -1;
    }
    if (mcpp_check_free_form(ctx, v, buf, cap) != 0)
        return -1;
    ((mcpp_object_slot *)slot)->staged = (cJSON *)v;
    return 0;
}

/* Scalars report at the field's static path; lists and objects copy it into a
 * buffer they can extend with "[i]" / ".key" (only they need to). */
static int bind_field(mcpp_load_ctx *ctx, mcpp_receipt *out, int id, const cJSON *v)
{
    const mcpp_schema_entry *e = &mcpp_schema_entries[id];
    void *slot = mcpp_field_ptr(&out->f, id);
    const char *path = e->info.path;
    char buf[512];
    const size_t cap = sizeof buf;
    int failed = 0; /* a list or free-form value the binder of its kind refused */
    if (e->storage >= MCPP_ST_SLIST) {
        size_t n = strlen(path); /* schema paths are short */
        memcpy(buf, path, n + 1);
    }
    switch (e->storage) {
    case MCPP_ST_BOOL:
        if (!mcpp_cj_is_bool(v)) {
            type_problem(ctx, path, "boolean", v);
            return -1;
        }
        *(uint8_t *)slot = mcpp_cj_is_true(v) ? 1 : 0;
        break;
    case MCPP_ST_INT:
    case MCPP_ST_INT32:
        if (check_number(ctx, path, e->storage, e->range, v) != 0)
            return -1;
        mcpp_int_slot_write(slot, e->storage, (int64_t)v->valuedouble);
        break;
    case MCPP_ST_DOUBLE:
        if (check_number(ctx, path, MCPP_ST_DOUBLE, e->range, v) != 0)
            return -1;
        *(double *)slot = v->valuedouble;
        break;
    case MCPP_ST_STRING:
        if (!mcpp_cj_is_string(v)) {
            type_problem(ctx, path, "string", v);
            return -1;
        }
        if (e->info.enum_names && mcpp_enum_index(e->info.enum_names, v->valuestring) < 0) {
            char list[200];
            mcpp_enum_list_text(list, sizeof list, e->info.enum_names);
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "enum", path, 0,
                             "expected one of %s, got \"%s\"", list, v->valuestring);
            return -1;
        }
        *(const char **)slot = v->valuestring;
        break;
    case MCPP_ST_ENUM: {
        char list[200];
        if (!mcpp_cj_is_string(v)) {
            mcpp_enum_list_text(list, sizeof list, e->info.enum_names);
            char got[96];
            describe(got, sizeof got, v);
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", path, 0,
                             "expected one of %s, got %s", list, got);
            return -1;
        }
        int index = mcpp_enum_index(e->info.enum_names, v->valuestring);
        if (index < 0) {
            mcpp_enum_list_text(list, sizeof list, e->info.enum_names);
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "enum", path, 0,
                             "expected one of %s, got \"%s\"", list, v->valuestring);
            return -1;
        }
        *(int8_t *)slot = (int8_t)index;
        break;
    }
    case MCPP_ST_SLIST: failed = bind_string_list(ctx, slot, v, buf, cap); break;
    case MCPP_ST_DLIST: failed = bind_double_list(ctx, slot, e->range, v, buf, cap); break;
    case MCPP_ST_OBJECT: failed = stage_free_form(ctx, slot, v, mcpp_cj_is_object(v), "object", buf, cap); break;
    case MCPP_ST_ARTIFACTS: failed = bind_artifacts(ctx, slot, v, buf, cap); break;
    case MCPP_ST_METRICS: /* the members of each metric are checked by validation */
        failed = stage_free_form(ctx, slot, v, mcpp_cj_is_array(v), "list of metric objects", buf, cap);
        break;
    default:
        return -1;
    }
    if (failed)
        return -1;
    mcpp_set_present(out, id);
    return 0;
}

/* ---- sections --------------------------------------------------------------------- */

static void duplicate_problem(mcpp_load_ctx *ctx, const char *path, const char *key)
{
    mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "duplicate_key", path, 1,
                     "duplicate key \"%s\" (each key may appear once)", key);
}

/* Known sections need no pairwise duplicate scan: a second occurrence of a
 * field finds its presence bit set, of a section its bit in *seen. Unknown
 * keys are errors anyway. */
/* "section.key" for messages about a key the schema does not place. */
static const char *member_path(char *buf, size_t cap, int section, const char *key)
{
    const char *sp = mcpp_schema_sections[section].path;
    snprintf(buf, cap, "%s%s%s", sp, *sp ? "." : "", key);
    return buf;
}

/* The tree path's form of the shortcut, for a key already copied out: libc's
 * strcmp compares a vector at a time (safely near the end of the key's
 * allocation), fewer instructions and faster here than a byte loop. */
int mcpp_schema_predict(int section, int guess, const char *key, int *field, int *sub)
{
    int f, s;
    const char *name = mcpp_schema_predict_name(section, guess, &f, &s);
    if (!name || strcmp(name, key) != 0)
        return -1;
    *field = f;
    *sub = s;
    return 0;
}

/* The common case of one scalar field, inline and without calls: a value of
 * the right type and range is stored and 0 returned. Anything else (a wrong
 * value, lists, objects, strings restricted to names) returns -1 with nothing
 * stored, and bind_field takes it from the start: it checks the same rules
 * again and reports what is wrong. The tests below accept exactly what
 * bind_field accepts. */
/* bind_scalar_fast's numbers: d stored in an INT, INT32 or DOUBLE field
 * whose rules it meets (0), else -1 with nothing stored. */
static inline int bind_number_fast(mcpp_receipt *out, int id, double d)
{
    const mcpp_schema_entry *e = &mcpp_schema_entries[id];
    void *slot = (char *)&out->f + e->offset;
    if (mcpp_storage_is_int(e->storage)) {
        /* within +-2^53 (false for NaN and infinities), then integral: the
         * cast is exact there, so it stands in for floor() */
        if (!(fabs(d) <= MCPP_EXACT_INT_LIMIT) || (double)(int64_t)d != d ||
            mcpp_int_width_problem(e->storage, d) || mcpp_range_problem(e->range, d))
            return -1;
        mcpp_int_slot_write(slot, e->storage, (int64_t)d);
    } else if (e->storage == MCPP_ST_DOUBLE) {
        if (!isfinite(d) || mcpp_range_problem(e->range, d))
            return -1;
        *(double *)slot = d;
    } else {
        return -1;
    }
    mcpp_set_present(out, id);
    return 0;
}

static inline int bind_scalar_fast(mcpp_receipt *out, int id, const cJSON *v)
{
    const mcpp_schema_entry *e = &mcpp_schema_entries[id];
    void *slot = (char *)&out->f + e->offset;
    switch (e->storage) {
    case MCPP_ST_INT:
    case MCPP_ST_INT32:
    case MCPP_ST_DOUBLE: return mcpp_cj_is_number(v) ? bind_number_fast(out, id, v->valuedouble) : -1;
    case MCPP_ST_STRING:
        if (!mcpp_cj_is_string(v) || e->info.enum_names)
            return -1;
        *(const char **)slot = v->valuestring;
        break;
    case MCPP_ST_ENUM: {
        if (!mcpp_cj_is_string(v))
            return -1;
        int index = mcpp_enum_index(e->info.enum_names, v->valuestring);
        if (index < 0)
            return -1;
        *(int8_t *)slot = (int8_t)index;
        break;
    }
    case MCPP_ST_BOOL:
        if (!mcpp_cj_is_bool(v))
            return -1;
        *(uint8_t *)slot = mcpp_cj_is_true(v) ? 1 : 0;
        break;
    default:
        return -1;
    }
    mcpp_set_present(out, id);
    return 0;
}

int mcpp_bind_value_quiet(mcpp_load_ctx *ctx, mcpp_receipt *out, int id, const cJSON *v)
{
    if (bind_scalar_fast(out, id, v) == 0)
        return 0;
    int before = ctx->quiet_problems;
    ctx->quiet = 1;
    int rc = bind_field(ctx, out, id, v);
    ctx->quiet = 0;
    return rc != 0 || ctx->quiet_problems != before || ctx->nomem ? -1 : 0;
}

int mcpp_bind_number_quiet(mcpp_load_ctx *ctx, mcpp_receipt *out, int id, double d)
{
    if (bind_number_fast(out, id, d) == 0)
        return 0;
    cJSON v; /* the number as cJSON would hold it, for the binder's rules */
    memset(&v, 0, sizeof v);
    v.type = cJSON_Number;
    v.valuedouble = d;
    return mcpp_bind_value_quiet(ctx, out, id, &v);
}

static void bind_section(mcpp_load_ctx *ctx, mcpp_receipt *out, int section, const cJSON *obj,
                         uint64_t *seen)
{
    char path[512];
    int guess = mcpp_schema_sections[section].first_field;
    for (const cJSON *m = obj->child; m; m = m->next) {
        int field, sub;
        if (mcpp_schema_predict(section, guess, m->string, &field, &sub) != 0 &&
            mcpp_schema_lookup(section, m->string, &field, &sub) != 0) {
            const char *hint = ctx->shown < MCPP_MAX_SHOWN_PROBLEMS
                                   ? mcpp_schema_suggest(section, m->string)
                                   : NULL;
            const char *where = section == MCPP_S_ROOT ? "top-level field" : "field";
            member_path(path, sizeof path, section, m->string);
            if (hint)
                mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "unknown_field", path, 1,
                                 "unknown %s, did you mean '%s'? (free-form data goes in "
                                 "'extra')",
                                 where, hint);
            else
                mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "unknown_field", path, 1,
                                 "unknown %s (free-form data goes in 'extra')", where);
        } else if (sub >= 0) {
            if (*seen & ((uint64_t)1 << sub))
                duplicate_problem(ctx, mcpp_schema_sections[sub].path, m->string);
            else if (!mcpp_cj_is_object(m))
                type_problem(ctx, mcpp_schema_sections[sub].path, "object", m);
            else
                bind_section(ctx, out, sub, m, seen);
            *seen |= (uint64_t)1 << sub;
            guess = mcpp_schema_sections[sub].last_field + 1;
        } else {
            uint64_t bit = (uint64_t)1 << (field & 63);
            uint64_t *tried = &ctx->tried[field >> 6];
            if (*tried & bit)
                duplicate_problem(ctx, mcpp_schema_entries[field].info.path, m->string);
            else if (bind_scalar_fast(out, field, m) != 0)
                bind_field(ctx, out, field, m);
            *tried |= bit;
            guess = field + 1;
        }
    }
}

void mcpp_bind_tree(mcpp_load_ctx *ctx, mcpp_receipt *out, const cJSON *root)
{
    if (!mcpp_cj_is_object(root)) {
        char got[96];
        describe(got, sizeof got, root);
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", NULL, 0,
                         "expected a receipt object at the top level, got %s", got);
        return;
    }
    uint64_t seen = 0;
    bind_section(ctx, out, MCPP_S_ROOT, root, &seen);
}
