/*
 * get.c — reading fields of a receipt: by id (the hot path, allocation-free
 * but for a free-form value's text the first time it is read), by dotted path,
 * and into free-form objects ("extra.team.name").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"
#include "util/struct_version.h"
#include "receipt/fields.h"
#include "receipt/packed_text.h"
#include "receipt/schema.h"

const char *mcpp_receipt_id(const mcpp_receipt *receipt)
{
    if (!receipt)
        return NULL;
    return mcpp_present(receipt, MCPP_F_id) ? MCPP_FIELD(receipt, id, char *) : mcpp_head_derived_id(receipt);
}

const char *mcpp_receipt_source_name(const mcpp_receipt *receipt)
{
    return receipt ? mcpp_head_source_name(receipt) : NULL;
}

int mcpp_value_at_field(const mcpp_receipt *receipt, int field_id, mcpp_value *out)
{
    if (!out)
        return MCPP_EARG;
    memset(out, 0, sizeof *out);
    out->version = MCPP_VALUE_VERSION;
    out->enum_index = -1;
    if (!receipt || field_id < 0 || field_id >= MCPP_FIELD_COUNT)
        return MCPP_EARG;
    if (!mcpp_present(receipt, field_id))
        return MCPP_OK; /* type ABSENT */
    const mcpp_schema_entry *e = &mcpp_schema_entries[field_id];
    const void *slot = mcpp_field_slot(receipt, field_id);
    out->type = e->info.type;
    switch (e->storage) {
    case MCPP_ST_BOOL: out->boolean = *(const uint8_t *)slot; break;
    case MCPP_ST_INT:
    case MCPP_ST_INT32:
        out->integer = mcpp_int_slot_read(slot, e->storage);
        out->number = (double)out->integer;
        break;
    case MCPP_ST_DOUBLE: out->number = *(const double *)slot; break;
    case MCPP_ST_STRING: out->string = *(const char *const *)slot; break;
    case MCPP_ST_ENUM:
        out->enum_index = *(const int8_t *)slot;
        out->string = e->info.enum_names[out->enum_index];
        break;
    case MCPP_ST_SLIST:
        out->strings = ((const mcpp_string_list *)slot)->items;
        out->count = ((const mcpp_string_list *)slot)->count;
        break;
    case MCPP_ST_DLIST:
        out->doubles = ((const mcpp_double_list *)slot)->items;
        out->count = ((const mcpp_double_list *)slot)->count;
        break;
    case MCPP_ST_OBJECT:
    case MCPP_ST_METRICS: {
        const mcpp_xnode *n = ((const mcpp_object_slot *)slot)->node;
        if (!receipt->arena) /* a staging struct holds a cJSON tree, and no text */
            return MCPP_OK;
        out->count = n ? n->count : 0;
        out->string = !n ? "{}" : mcpp_packed_text(receipt, n, NULL);
        return out->string ? MCPP_OK : mcpp_error_nomem();
    }
    case MCPP_ST_ARTIFACTS:
        out->count = ((const mcpp_artifact_list *)slot)->count;
        if (!receipt->arena)
            return MCPP_OK;
        out->string = mcpp_packed_text(receipt, NULL, slot);
        return out->string ? MCPP_OK : mcpp_error_nomem();
    default: return MCPP_EINTERNAL;
    }
    return MCPP_OK;
}

static int xnode_value(const mcpp_receipt *r, const mcpp_xnode *n, mcpp_value *out)
{
    switch (n->kind) {
    case MCPP_X_TRUE:
    case MCPP_X_FALSE:
        out->type = MCPP_TYPE_BOOL;
        out->boolean = n->kind == MCPP_X_TRUE;
        break;
    case MCPP_X_NUMBER:
        out->number = n->number;
        if (n->number == floor(n->number) && fabs(n->number) < 9007199254740992.0) {
            out->type = MCPP_TYPE_INT;
            out->integer = (int64_t)n->number;
        } else {
            out->type = MCPP_TYPE_DOUBLE;
        }
        break;
    case MCPP_X_STRING:
        out->type = MCPP_TYPE_STRING;
        out->string = n->str;
        break;
    case MCPP_X_NULL:
        out->type = MCPP_TYPE_OBJECT;
        out->string = "null";
        break;
    default:
        out->type = MCPP_TYPE_OBJECT;
        out->count = n->count;
        out->string = mcpp_packed_text(r, n, NULL);
        return out->string ? MCPP_OK : mcpp_error_nomem();
    }
    return MCPP_OK;
}

/* Walks "a.b.2.c" below a free-form root; NULL when a step is missing. */
static const mcpp_xnode *xnode_walk(const mcpp_xnode *n, const char *rest)
{
    while (n && *rest) {
        size_t len = strcspn(rest, ".");
        const mcpp_xnode *next = NULL;
        if (n->kind == MCPP_X_OBJECT) {
            for (uint32_t i = 0; i < n->count; i++) {
                const char *k = n->children[i].key;
                if (strlen(k) == len && memcmp(k, rest, len) == 0) {
                    next = &n->children[i];
                    break;
                }
            }
        } else if (n->kind == MCPP_X_ARRAY && len > 0 && rest[0] >= '0' && rest[0] <= '9') {
            char *end;
            unsigned long index = strtoul(rest, &end, 10);
            if ((size_t)(end - rest) == len && index < n->count)
                next = &n->children[index];
        }
        n = next;
        rest += len;
        if (*rest == '.')
            rest++;
    }
    return n;
}

int mcpp_value_at_path(const mcpp_receipt *receipt, const char *path, mcpp_value *out)
{
    if (!out || !receipt || !path)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, path, 0, 0,
                              "receipt, path and out must not be NULL");
    int id = mcpp_schema_field_id(path);
    if (id >= 0)
        return mcpp_value_at_field(receipt, id, out);
    /* paths into free-form values: extra, launch.fixed_policy, features,
     * benchmark.params, software.components and metrics.named ("metrics.named.0.unit") */
    for (int k = 0; k < MCPP_FIELD_COUNT; k++) {
        int st = mcpp_schema_entries[k].storage;
        if (st != MCPP_ST_OBJECT && st != MCPP_ST_METRICS)
            continue;
        const char *root = mcpp_schema_entries[k].info.path;
        size_t rl = strlen(root);
        if (strncmp(path, root, rl) != 0 || path[rl] != '.' || path[rl + 1] == '\0')
            continue;
        memset(out, 0, sizeof *out);
        out->version = MCPP_VALUE_VERSION;
        out->enum_index = -1;
        if (!mcpp_present(receipt, k))
            return MCPP_OK;
        const mcpp_object_slot *slot = mcpp_field_slot(receipt, k);
        const mcpp_xnode *n = xnode_walk(slot->node, path + rl + 1);
        return n ? xnode_value(receipt, n, out) : MCPP_OK;
    }
    return mcpp_error_at(MCPP_ENOTFOUND, MCPP_ERROR_KIND_UNKNOWN_FIELD, NULL, path, 0, 0,
                          "no such field in schema %s", MCPP_SCHEMA_ID);
}

/* ---- The public readers: the caller's mcpp_value layout ------------------------------ */

/* The bytes of each layout of mcpp_value (one so far). A caller compiled with
 * layout v gets only v's bytes, so a newer library never writes past an
 * older caller's struct; a version it does not know is refused. */
static const size_t value_layout_size[MCPP_VALUE_VERSION + 1] = {0, sizeof(mcpp_value)};

static int put_value(mcpp_value *out, const mcpp_value *full, unsigned int version)
{
    memcpy(out, full, value_layout_size[version]);
    out->version = version;
    return MCPP_OK;
}

/* The caller's `out` can be written: not NULL, and a layout this library knows
 * (checked before anything is read, so a refused one is left untouched). */
static int out_check(const mcpp_value *out, const char *call)
{
    if (!out)
        return MCPP_ERROR_ARG("%s: NULL out", call);
    return mcpp_struct_out_version_check(out->version, MCPP_VALUE_VERSION, "mcpp_value");
}

int mcpp_receipt_get_field(const mcpp_receipt *receipt, int field_id, mcpp_value *out)
{
    int rc = out_check(out, "mcpp_receipt_get_field");
    if (rc != MCPP_OK)
        return rc;
    mcpp_value v;
    rc = mcpp_value_at_field(receipt, field_id, &v);
    put_value(out, &v, out->version);
    return rc;
}

int mcpp_receipt_get(const mcpp_receipt *receipt, const char *path, mcpp_value *out)
{
    int rc = out_check(out, "mcpp_receipt_get");
    if (rc != MCPP_OK)
        return rc;
    mcpp_value v = MCPP_VALUE_INIT;
    rc = mcpp_value_at_path(receipt, path, &v);
    put_value(out, &v, out->version);
    return rc;
}
