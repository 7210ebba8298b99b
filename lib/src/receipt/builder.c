/*
 * builder.c — mcpp_builder: a harness sets fields one by one (each setter
 * checks type and range at once, so a mistake fails at the line that made
 * it), appends step samples, then mcpp_builder_finish() derives the step
 * statistics and validates exactly like loading a file does.
 *
 * The builder owns a staging receipt whose strings are heap copies and whose
 * free-form objects are cJSON trees.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "receipt/fields.h"
#include "receipt/load_ctx.h"
#include "receipt/schema.h"
#include "receipt/metric_ref.h"
#include "util/strbuf.h"

/* Setter failures are sticky: a harness that ignores a setter's status still
 * cannot finish a receipt that silently lacks the field. */
typedef struct setter_failures {
    size_t count;
    int first_code;
    mcpp_error_kind first_kind;
    char *first_field;
    mcpp_strbuf messages; /* "; "-separated messages of every failure, in order */
} setter_failures;

struct mcpp_builder {
    mcpp_receipt staging;
    setter_failures failed;
};

int mcpp_builder_new(mcpp_builder **out)
{
    MCPP_CHECK_ARG(out, "out is NULL");
    *out = calloc(1, sizeof **out);
    MCPP_CHECK_ALLOC(*out);
    (*out)->staging.f.schema = mcpp_strdup(MCPP_SCHEMA_ID, NULL);
    if (!(*out)->staging.f.schema) {
        free(*out);
        *out = NULL;
        return mcpp_error_nomem();
    }
    mcpp_set_present(&(*out)->staging, MCPP_F_schema);
    return MCPP_OK;
}

const mcpp_receipt *mcpp_builder_staged(const mcpp_builder *b)
{
    return &b->staging;
}

void mcpp_builder_free(mcpp_builder *builder)
{
    if (!builder)
        return;
    mcpp_staging_release(&builder->staging, 1);
    mcpp_builder_clear_errors(builder);
    free(builder);
}

static const char *storage_words(int storage)
{
    switch (storage) {
    case MCPP_ST_BOOL: return "boolean";
    case MCPP_ST_INT:
    case MCPP_ST_INT32: return "integer";
    case MCPP_ST_DOUBLE: return "number";
    case MCPP_ST_STRING: return "string";
    case MCPP_ST_ENUM: return "enum name";
    case MCPP_ST_SLIST: return "list of strings";
    case MCPP_ST_DLIST: return "list of numbers";
    default: return "object";
    }
}

/* MCPP_ENOTFOUND for a path the schema lacks, with the closest path when one is near. */
static int unknown_field(const char *path)
{
    char near[128];
    if (mcpp_schema_field_suggest(near, sizeof near, path) == MCPP_OK)
        return mcpp_error_at(MCPP_ENOTFOUND, MCPP_ERROR_KIND_UNKNOWN_FIELD, NULL, path, 0, 0,
                             "unknown field of schema %s, did you mean '%s'?", MCPP_SCHEMA_ID, near);
    return mcpp_error_at(MCPP_ENOTFOUND, MCPP_ERROR_KIND_UNKNOWN_FIELD, NULL, path, 0, 0,
                         "unknown field of schema %s", MCPP_SCHEMA_ID);
}

/* Resolves a path for a setter; on failure sets the last error. */
static int resolve(mcpp_builder *b, const char *path, int *id_out)
{
    *id_out = -1; /* callers only read it on success; set so -O3 can see that */
    if (!b || !path)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0,
                              "builder and path must not be NULL");
    int id = mcpp_schema_field_id(path);
    if (id < 0)
        return unknown_field(path);
    *id_out = id;
    return 0;
}

static int wrong_type(const char *path, int storage, const char *given)
{
    return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_TYPE, NULL, path, 0, 0, "expected %s, got %s",
                          storage_words(storage), given);
}

/* Drops what field `id` holds (owned copies) and marks it absent. */
static void clear_field(mcpp_builder *b, int id)
{
    void *slot = mcpp_field_ptr(&b->staging.f, id);
    switch (mcpp_schema_entries[id].storage) {
    case MCPP_ST_STRING:
        free((char *)*(const char **)slot);
        *(const char **)slot = NULL;
        break;
    case MCPP_ST_SLIST: {
        mcpp_string_list *l = slot;
        for (size_t i = 0; i < l->count; i++)
            free((char *)l->items[i]);
        free(l->items);
        memset(l, 0, sizeof *l);
        break;
    }
    case MCPP_ST_DLIST:
        free(((mcpp_double_list *)slot)->items);
        memset(slot, 0, sizeof(mcpp_double_list));
        break;
    case MCPP_ST_OBJECT:
    case MCPP_ST_METRICS:
        cJSON_Delete(((mcpp_object_slot *)slot)->staged);
        memset(slot, 0, sizeof(mcpp_object_slot));
        break;
    case MCPP_ST_ARTIFACTS: {
        mcpp_artifact_list *l = slot;
        for (size_t i = 0; i < l->count; i++) {
            free((char *)l->items[i].kind);
            free((char *)l->items[i].uri);
        }
        free(l->items);
        memset(l, 0, sizeof *l);
        break;
    }
    default: break;
    }
    mcpp_clear_present(&b->staging, id);
}

static int try_set_string(mcpp_builder *b, const char *path, const char *value)
{
    int id, rc = resolve(b, path, &id);
    if (rc)
        return rc;
    const mcpp_schema_entry *e = &mcpp_schema_entries[id];
    if (!value)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0, "value is NULL");
    if (e->storage != MCPP_ST_STRING && e->storage != MCPP_ST_ENUM)
        return wrong_type(path, e->storage, "a string");
    if (mcpp_utf8_valid(value, strlen(value)) != 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_ENCODING, NULL, path, 0, 0,
                              "expected UTF-8 text, got invalid UTF-8");
    if (e->info.enum_names) {
        int index = mcpp_enum_index(e->info.enum_names, value);
        if (index < 0) {
            char list[200];
            mcpp_enum_list_text(list, sizeof list, e->info.enum_names);
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_ENUM, NULL, path, 0, 0,
                                  "expected one of %s, got \"%s\"", list, value);
        }
        if (e->storage == MCPP_ST_ENUM) {
            *(int8_t *)mcpp_field_ptr(&b->staging.f, id) = (int8_t)index;
            mcpp_set_present(&b->staging, id);
            return MCPP_OK;
        }
    }
    char *copy = mcpp_strdup(value, NULL);
    MCPP_CHECK_ALLOC(copy);
    clear_field(b, id);
    *(const char **)mcpp_field_ptr(&b->staging.f, id) = copy;
    mcpp_set_present(&b->staging, id);
    return MCPP_OK;
}

static int set_number(mcpp_builder *b, const char *path, int id, double value)
{
    const mcpp_schema_entry *e = &mcpp_schema_entries[id];
    if (!isfinite(value))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, path, 0, 0,
                              "expected a finite %s, got %g", storage_words(e->storage), value);
    if (mcpp_storage_is_int(e->storage)) {
        if (value != floor(value))
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_TYPE, NULL, path, 0, 0,
                                  "expected integer, got number %g", value);
        if (fabs(value) > 9007199254740992.0)
            return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, path, 0, 0,
                                  "expected integer, got %g which overflows the exact integer "
                                  "range (+-2^53)",
                                  value);
    }
    const char *rp = mcpp_int_width_problem(e->storage, value);
    if (!rp) rp = mcpp_range_problem(e->range, value);
    if (rp)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, path, 0, 0, "expected %s, got %g", rp,
                              value);
    if (mcpp_storage_is_int(e->storage))
        mcpp_int_slot_write(mcpp_field_ptr(&b->staging.f, id), e->storage, (int64_t)value);
    else
        *(double *)mcpp_field_ptr(&b->staging.f, id) = value;
    mcpp_set_present(&b->staging, id);
    return MCPP_OK;
}

#define ANY_NUMBER (-1) /* an integer of any width or a double */

/* The field at `path` (*id) when its storage is `storage` (or ANY_NUMBER);
 * else the error, saying `expected`. */
static int resolve_as(mcpp_builder *b, const char *path, int *id, int storage, const char *expected)
{
    int rc = resolve(b, path, id);
    if (rc)
        return rc;
    int st = mcpp_schema_entries[*id].storage;
    int fits = storage == ANY_NUMBER ? mcpp_storage_is_int(st) || st == MCPP_ST_DOUBLE : st == storage;
    return fits ? MCPP_OK : wrong_type(path, st, expected);
}

static int try_set_int(mcpp_builder *b, const char *path, int64_t value)
{
    int id, rc = resolve_as(b, path, &id, ANY_NUMBER, "an integer");
    if (rc)
        return rc;
    if (mcpp_schema_entries[id].storage == MCPP_ST_INT && (value > 9007199254740992LL || value < -9007199254740992LL))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, path, 0, 0,
                              "expected integer, got %lld which overflows the exact integer "
                              "range (+-2^53)",
                              (long long)value);
    return set_number(b, path, id, (double)value);
}

static int try_set_double(mcpp_builder *b, const char *path, double value)
{
    int id, rc = resolve_as(b, path, &id, ANY_NUMBER, "a number");
    return rc ? rc : set_number(b, path, id, value);
}

static int try_set_bool(mcpp_builder *b, const char *path, int value)
{
    int id, rc = resolve_as(b, path, &id, MCPP_ST_BOOL, "a boolean");
    if (rc)
        return rc;
    *(uint8_t *)mcpp_field_ptr(&b->staging.f, id) = value ? 1 : 0;
    mcpp_set_present(&b->staging, id);
    return MCPP_OK;
}

static int try_append_string(mcpp_builder *b, const char *path, const char *value)
{
    int id, rc = resolve_as(b, path, &id, MCPP_ST_SLIST, "a string to append");
    if (rc)
        return rc;
    if (!value)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0, "value is NULL");
    if (mcpp_utf8_valid(value, strlen(value)) != 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_ENCODING, NULL, path, 0, 0,
                              "expected UTF-8 text, got invalid UTF-8");
    mcpp_string_list *l = mcpp_field_ptr(&b->staging.f, id);
    const char **items = realloc(l->items, (l->count + 1) * sizeof *items);
    MCPP_CHECK_ALLOC(items);
    l->items = items;
    char *copy = mcpp_strdup(value, NULL);
    MCPP_CHECK_ALLOC(copy);
    l->items[l->count++] = copy;
    mcpp_set_present(&b->staging, id);
    return MCPP_OK;
}

static int try_add_step_sample(mcpp_builder *b, double seconds)
{
    const char *path = mcpp_schema_entries[MCPP_F_metrics_step_time_s_samples].info.path;
    if (!b)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0, "builder is NULL");
    if (!isfinite(seconds) || !(seconds > 0))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, path, 0, 0,
                              "expected a finite step time > 0 seconds, got %g", seconds);
    mcpp_double_list *l = &b->staging.f.metrics_step_time_s_samples;
    mcpp_limits limits = MCPP_LIMITS_INIT;
    if (l->count >= limits.max_array_items) /* what validate and the store would refuse */
        return mcpp_error_at(MCPP_ELIMIT, MCPP_ERROR_KIND_LIMIT, NULL, path, 0, 0,
                             "more than %zu step samples: over the limit of items per list every receipt is "
                             "read with (a receipt holding them would not load)",
                             limits.max_array_items);
    double *items = realloc(l->items, (l->count + 1) * sizeof *items);
    MCPP_CHECK_ALLOC(items);
    l->items = items;
    l->items[l->count++] = seconds;
    mcpp_set_present(&b->staging, MCPP_F_metrics_step_time_s_samples);
    return MCPP_OK;
}

static int try_add_artifact(mcpp_builder *b, const char *kind, const char *uri)
{
    if (!b || !kind || !uri)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, "artifacts", 0, 0,
                              "builder, kind and uri must not be NULL");
    mcpp_artifact_list *l = &b->staging.f.artifacts;
    mcpp_artifact *items = realloc(l->items, (l->count + 1) * sizeof *items);
    MCPP_CHECK_ALLOC(items);
    l->items = items;
    char *k = mcpp_strdup(kind, NULL), *u = mcpp_strdup(uri, NULL);
    if (!k || !u) {
        free(k);
        free(u);
        return mcpp_error_nomem();
    }
    l->items[l->count].kind = k;
    l->items[l->count].uri = u;
    l->count++;
    mcpp_set_present(&b->staging, MCPP_F_artifacts);
    return MCPP_OK;
}

/* One metric object {name, unit, direction, value, aggregate, sample_kind, samples}. */
static cJSON *metric_object(const char *name, const char *unit, mcpp_direction direction,
                            double value, const char *aggregate, const char *sample_kind,
                            const double *samples, size_t n)
{
    cJSON *m = cJSON_CreateObject();
    int ok = m && cJSON_AddStringToObject(m, "name", name) &&
             cJSON_AddStringToObject(m, "unit", unit) &&
             cJSON_AddStringToObject(m, "direction",
                                     direction == MCPP_DIRECTION_LOWER ? "lower" : "higher") &&
             cJSON_AddNumberToObject(m, "value", value);
    if (ok && aggregate)
        ok = cJSON_AddStringToObject(m, "aggregate", aggregate) != NULL;
    if (ok && sample_kind)
        ok = cJSON_AddStringToObject(m, "sample_kind", sample_kind) != NULL;
    if (ok && n) {
        cJSON *list = cJSON_AddArrayToObject(m, "samples");
        for (size_t i = 0; ok && list && i < n; i++) {
            cJSON *x = cJSON_CreateNumber(samples[i]);
            ok = x && cJSON_AddItemToArray(list, x);
        }
        ok = ok && list;
    }
    if (!ok) {
        cJSON_Delete(m);
        return NULL;
    }
    return m;
}

static int try_add_metric(mcpp_builder *b, const char *name, const char *unit,
                            mcpp_direction direction, double value, const char *aggregate,
                            const char *sample_kind, const double *samples, size_t n_samples)
{
    const char *path = mcpp_schema_entries[MCPP_F_metrics_named].info.path;
    if (!b || !name || !unit || (n_samples && !samples))
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0,
                              "builder, name, unit (and samples when n_samples > 0) must not be "
                              "NULL");
    mcpp_limits limits = MCPP_LIMITS_INIT;
    if (n_samples > limits.max_array_items) /* what validate and the store would refuse */
        return mcpp_error_at(MCPP_ELIMIT, MCPP_ERROR_KIND_LIMIT, NULL, path, 0, 0,
                             "metric \"%s\": %zu samples are over the limit of %zu items per list every receipt "
                             "is read with (a receipt holding them would not load)",
                             name, n_samples, limits.max_array_items);
    if (mcpp_metric_well_known(name, NULL, NULL))
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, NULL, path, 0, 0,
                              "\"%s\" is a well-known metric: set its schema field under "
                              "metrics instead",
                              name);
    if (direction != MCPP_DIRECTION_HIGHER && direction != MCPP_DIRECTION_LOWER)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_ENUM, NULL, path, 0, 0,
                              "direction must be MCPP_DIRECTION_HIGHER or _LOWER");
    int finite = isfinite(value);
    for (size_t i = 0; i < n_samples; i++)
        finite &= isfinite(samples[i]);
    if (!finite)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, NULL, path, 0, 0,
                              "metric \"%s\": value and samples must be finite", name);
    if (mcpp_utf8_valid(name, strlen(name)) != 0 || mcpp_utf8_valid(unit, strlen(unit)) != 0)
        return mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_ENCODING, NULL, path, 0, 0,
                              "expected UTF-8 text, got invalid UTF-8");
    mcpp_object_slot *slot = &b->staging.f.metrics_named;
    if (!slot->staged && !(slot->staged = cJSON_CreateArray()))
        return mcpp_error_nomem();
    cJSON *m = metric_object(name, unit, direction, value, aggregate, sample_kind, samples,
                             n_samples);
    if (!m || !cJSON_AddItemToArray(slot->staged, m)) {
        cJSON_Delete(m);
        return mcpp_error_nomem();
    }
    mcpp_set_present(&b->staging, MCPP_F_metrics_named);
    return MCPP_OK;
}

/* The free-form (OBJECT) field a path lives in ("extra", "features",
 * "benchmark.params", ...), and the rest of the path. */
static int free_form_root(const char *path, const char **rest)
{
    for (int id = 0; id < MCPP_FIELD_COUNT; id++) {
        if (mcpp_schema_entries[id].storage != MCPP_ST_OBJECT)
            continue;
        const char *root = mcpp_schema_entries[id].info.path;
        size_t rl = strlen(root);
        if (strncmp(path, root, rl) == 0 && (path[rl] == '\0' || path[rl] == '.')) {
            *rest = path[rl] ? path + rl + 1 : path + rl;
            return id;
        }
    }
    return -1;
}

/* `json_text` as one JSON value, checked as the binder checks a free-form value
 * (*out, the caller's; NULL on failure). */
static int parse_free_form(cJSON **out, const char *path, const char *json_text)
{
    *out = NULL;
    mcpp_limits lim;
    mcpp_limits_default(&lim);
    mcpp_report *report = mcpp_report_new();
    MCPP_CHECK_ALLOC(report);
    size_t len = strlen(json_text);
    cJSON *value = NULL;
    int rc = mcpp_json_prescan(json_text, len, &lim, NULL, report);
    if (rc == 0) {
        const char *end = NULL;
        value = cJSON_ParseWithLengthOpts(json_text, len, &end, 0);
        while (value && end && (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r'))
            end++;
        if (!value || (end && *end)) {
            rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_SYNTAX, NULL, path, 0, 0,
                               "expected one JSON value, got invalid JSON");
            goto done;
        }
        mcpp_load_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.limits = &lim;
        ctx.report = report;
        char p[512];
        strncpy(p, path, sizeof p - 1);
        p[sizeof p - 1] = '\0';
        if (mcpp_check_free_form(&ctx, value, p, sizeof p) != 0 || ctx.errors)
            rc = MCPP_EINVALID;
    }
    if (rc != 0)
        rc = mcpp_report_set_last_error(report, rc);
done:
    mcpp_report_free(report);
    if (rc == 0)
        *out = value;
    else
        cJSON_Delete(value);
    return rc;
}

static int try_set_json(mcpp_builder *b, const char *path, const char *json_text)
{
    const char *rest;
    if (!b || !path || !json_text)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0,
                             "builder, path and json_text must not be NULL");
    int id = free_form_root(path, &rest);
    if (id < 0)
        return mcpp_error_at(MCPP_ENOTFOUND, MCPP_ERROR_KIND_UNKNOWN_FIELD, NULL, path, 0, 0,
                             "set_json takes a free-form object or a key in one (extra.KEY, "
                             "launch.fixed_policy.KEY, features.KEY, benchmark.params.KEY, "
                             "software.components.KEY); use the typed setters for schema "
                             "fields");
    cJSON *value;
    int rc = parse_free_form(&value, path, json_text);
    if (rc != 0)
        return rc;

    /* from here `value` is held until the staging receipt takes it */
    mcpp_object_slot *slot = mcpp_field_ptr(&b->staging.f, id);
    if (*rest == '\0') { /* the whole object */
        if (!cJSON_IsObject(value)) {
            rc = mcpp_error_at(MCPP_EINVALID, MCPP_ERROR_KIND_TYPE, NULL, path, 0, 0, "expected a JSON object");
            goto fail;
        }
        cJSON_Delete(slot->staged);
        slot->staged = value;
        mcpp_set_present(&b->staging, id);
        return MCPP_OK;
    }
    if (!slot->staged && !(slot->staged = cJSON_CreateObject())) {
        rc = mcpp_error_nomem();
        goto fail;
    }
    /* walk/create the objects along "a.b", then replace or add the last key */
    cJSON *obj = slot->staged;
    char key[256];
    for (;;) {
        size_t n = strcspn(rest, ".");
        if (n == 0 || n >= sizeof key) {
            rc = mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0, "bad key in path");
            goto fail;
        }
        memcpy(key, rest, n);
        key[n] = '\0';
        rest += n;
        if (*rest == '\0')
            break;
        rest++;
        cJSON *next = cJSON_GetObjectItemCaseSensitive(obj, key);
        if (!cJSON_IsObject(next)) {
            cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
            if (!(next = cJSON_AddObjectToObject(obj, key))) {
                rc = mcpp_error_nomem();
                goto fail;
            }
        }
        obj = next;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    if (!cJSON_AddItemToObject(obj, key, value)) {
        rc = mcpp_error_nomem();
        goto fail;
    }
    mcpp_set_present(&b->staging, id);
    return MCPP_OK;
fail:
    cJSON_Delete(value);
    return rc;
}

static int try_unset(mcpp_builder *b, const char *path)
{
    const char *rest;
    if (!b || !path)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0,
                              "builder and path must not be NULL");
    int id = mcpp_schema_field_id(path);
    if (id >= 0) {
        clear_field(b, id);
        return MCPP_OK;
    }
    id = free_form_root(path, &rest);
    if (id < 0)
        return unknown_field(path);
    mcpp_object_slot *slot = mcpp_field_ptr(&b->staging.f, id);
    cJSON *obj = slot->staged;
    char key[256];
    while (obj && *rest) {
        size_t n = strcspn(rest, ".");
        if (n >= sizeof key)
            return MCPP_OK;
        memcpy(key, rest, n);
        key[n] = '\0';
        rest += n;
        if (*rest == '\0') {
            cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
            break;
        }
        rest++;
        obj = cJSON_GetObjectItemCaseSensitive(obj, key);
    }
    return MCPP_OK;
}

/* ---- Sticky setter failures ----------------------------------------------------------- */

void mcpp_builder_clear_errors(mcpp_builder *b)
{
    if (!b)
        return;
    free(b->failed.first_field);
    mcpp_sb_free(&b->failed.messages);
    memset(&b->failed, 0, sizeof b->failed);
}

size_t mcpp_builder_error_count(const mcpp_builder *b) { return b ? b->failed.count : 0; }

/* Records a failed setter (status rc, message in the last error) and passes rc on. */
static int remember(mcpp_builder *b, int rc)
{
    if (rc >= 0 || !b)
        return rc;
    const mcpp_error *e = mcpp_error_last();
    setter_failures *f = &b->failed;
    if (f->count == 0) {
        f->first_code = rc;
        f->first_kind = mcpp_error_kind_of(e);
        f->first_field = e->field ? mcpp_strdup(e->field, NULL) : NULL;
        mcpp_sb_init(&f->messages, NULL, 0);
    }
    const char *text = e->message;
    size_t field_len = f->count == 0 && e->field ? strlen(e->field) : 0;
    /* the first message's field leads the combined message already */
    if (field_len && strncmp(text, e->field, field_len) == 0 && strncmp(text + field_len, ": ", 2) == 0)
        text += field_len + 2;
    f->count++;
    if (f->count > 1)
        mcpp_sb_puts(&f->messages, "; ");
    mcpp_sb_puts(&f->messages, text);
    return rc;
}

int mcpp_builder_set_string(mcpp_builder *b, const char *path, const char *value)
{
    return remember(b, try_set_string(b, path, value));
}

int mcpp_builder_set_int(mcpp_builder *b, const char *path, int64_t value)
{
    return remember(b, try_set_int(b, path, value));
}

int mcpp_builder_set_double(mcpp_builder *b, const char *path, double value)
{
    return remember(b, try_set_double(b, path, value));
}

int mcpp_builder_set_bool(mcpp_builder *b, const char *path, int value)
{
    return remember(b, try_set_bool(b, path, value));
}

int mcpp_builder_append_string(mcpp_builder *b, const char *path, const char *value)
{
    return remember(b, try_append_string(b, path, value));
}

int mcpp_builder_add_step_sample(mcpp_builder *b, double seconds)
{
    return remember(b, try_add_step_sample(b, seconds));
}

int mcpp_builder_add_artifact(mcpp_builder *b, const char *kind, const char *uri)
{
    return remember(b, try_add_artifact(b, kind, uri));
}

int mcpp_builder_add_metric(mcpp_builder *b, const char *name, const char *unit,
                            mcpp_direction direction, double value, const char *aggregate,
                            const char *sample_kind, const double *samples, size_t n_samples)
{
    return remember(b, try_add_metric(b, name, unit, direction, value, aggregate, sample_kind,
                                      samples, n_samples));
}

int mcpp_builder_set_json(mcpp_builder *b, const char *path, const char *json_text)
{
    return remember(b, try_set_json(b, path, json_text));
}

int mcpp_builder_unset(mcpp_builder *b, const char *path)
{
    return remember(b, try_unset(b, path));
}

/* finish() after failed setters: the first failure's status, kind and field,
 * with every failure's message, as the last error and in the report. */
static int fail_with_setter_errors(mcpp_report **report_out, const setter_failures *f)
{
    const char *all = f->messages.failed || !f->messages.data ? "(messages lost: out of memory)"
                                                              : f->messages.data;
    if (report_out && (*report_out = mcpp_report_new()) != NULL)
        mcpp_report_add(*report_out, MCPP_SEVERITY_ERROR, mcpp_error_kind_name(f->first_kind),
                        NULL, f->first_field, 0, 0, all);
    return mcpp_error_at(f->first_code, f->first_kind, NULL, f->first_field, 0, 0,
                         "%s (%zu builder call%s failed before finish)", all, f->count,
                         f->count == 1 ? "" : "s");
}

/* What finish derives into the (shallow) staging copy: block counts, step
 * statistics from the samples, and useful tokens/s as the analyses derive it. */
static void derive_statistics(mcpp_receipt *staging)
{
    mcpp_derive_block_counts(staging);
    const mcpp_double_list *samples = &staging->f.metrics_step_time_s_samples;
    if (mcpp_present(staging, MCPP_F_metrics_step_time_s_samples) && samples->count > 0) {
        double stats[3]; /* median, p10, p90 */
        static const int ids[3] = {MCPP_F_metrics_step_time_s_median, MCPP_F_metrics_step_time_s_p10,
                                   MCPP_F_metrics_step_time_s_p90};
        mcpp_sample_stats(samples->items, samples->count, &stats[0], &stats[1], &stats[2]);
        for (int i = 0; i < 3; i++) {
            if (!mcpp_present(staging, ids[i])) {
                *(double *)mcpp_field_ptr(&staging->f, ids[i]) = stats[i];
                mcpp_set_present(staging, ids[i]);
            }
        }
    }
    if (!mcpp_present(staging, MCPP_F_metrics_tokens_per_s) &&
        mcpp_present(staging, MCPP_F_workload_useful_tokens_per_step) &&
        mcpp_present(staging, MCPP_F_metrics_step_time_s_median)) {
        double rate = mcpp_tokens_per_s_from_steps((double)staging->f.workload_useful_tokens_per_step,
                                                   staging->f.metrics_step_time_s_median);
        if (rate > 0) {
            staging->f.metrics_tokens_per_s = rate;
            mcpp_set_present(staging, MCPP_F_metrics_tokens_per_s);
        }
    }
}

int mcpp_builder_finish(mcpp_receipt **out, mcpp_report **report_out, const mcpp_builder *b)
{
    if (report_out)
        *report_out = NULL;
    MCPP_CHECK_ARG(out && b, "out and builder must not be NULL");
    *out = NULL;
    if (b->failed.count)
        return fail_with_setter_errors(report_out, &b->failed);
    /* a shallow copy: derived statistics go in the copy, the builder is unchanged */
    mcpp_receipt staging = b->staging;
    derive_statistics(&staging);
    mcpp_limits lim;
    mcpp_limits_default(&lim);
    mcpp_report *report = mcpp_report_new();
    MCPP_CHECK_ALLOC(report);
    mcpp_load_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.limits = &lim;
    ctx.report = report;
    mcpp_validate(&ctx, &staging);
    int rc = MCPP_OK;
    if (ctx.nomem)
        rc = mcpp_error_nomem();
    else if (ctx.errors)
        rc = MCPP_EINVALID;
    else
        rc = mcpp_pack(out, &staging, NULL);
    if (rc == MCPP_ENOMEM) {
        mcpp_report_free(report);
        return mcpp_error_nomem();
    }
    if (rc != MCPP_OK)
        mcpp_report_set_last_error(report, rc);
    if (report_out)
        *report_out = report;
    else
        mcpp_report_free(report);
    return rc;
}
