/*
 * mcpp_receipts_lua.c — the Lua 5.4 module: `local mr = require "mcpp_receipts"`.
 *
 * Gives review scripts the library's load, compare, frontier, claim and policies:
 *
 *   mr.load(path)               -> receipt     (JSON or YAML, by extension)
 *   mr.loads(text [, fmt])      -> receipt     (fmt "json", "yaml" or "auto")
 *   mr.compare(a, b [, policy [, metric]]) -> table  the keys of mcpp_comparison_render's
 *                                              JSON {schema, base, cand, verdict, dimensions,
 *                                              metric, gate} plus its text as "text"
 *   mr.frontier(list [, policy [, metric]]) -> table  the keys of mcpp_frontier_render's
 *                                              JSON {schema, policy, receipts, lanes} plus "text"
 *   mr.claim(list, selector, value [, policy [, metric]]) -> table  the keys of
 *                                              mcpp_claim_result_render's JSON plus "text"
 *                                              (verdict "ambiguous" when several lanes match)
 *   mr.gate(baselines, candidates [, policy [, metric]]) -> table  the keys of
 *                                              mcpp_gate_report_render's JSON ("mcpp.gate/2")
 *                                              plus "text"
 *   metric: a metric name ("time_to_train_s"), "primary" or a schema path; nil:
 *   the policy's gate metric. It applies to that call only: the analysis runs
 *   under a clone of the policy (mcpp_policy_clone) gating on it, as Python's
 *   metric= does; the policy passed in is not changed.
 *   (a list holding two different receipts with one id raises a conflict error)
 *   mr.policy(path [, limits])  -> policy      (a sandboxed Lua policy file; limits is
 *                                              {time_limit_ms=, total_time_limit_ms=})
 *   mr.default_policy()         -> policy
 *   mr.policy_test(policy|nil, cases_path) -> table  the keys of
 *                                              mcpp_policy_test_report_render's JSON plus "text"
 *   mr.store(location)          -> store       (a SQLite path or a postgresql:// URL;
 *                                              the methods of Python's Store: store_lua.c)
 *   mr.version                  "0.1.0"
 *
 *   receipt.id, receipt.lane.pattern, receipt["routing.top_k"], receipt:get(path),
 *   receipt:json(), receipt:yaml(), receipt:render([format]), tostring(receipt)
 *   policy.name, policy.dimensions, policy.rules, tostring(policy)
 *
 * Receipts, policies and stores are userdata with __gc, __close and __tostring; a
 * closed one refuses further use. Failures raise an error object: a table
 * {kind = "policy_limit"|"syntax"|..., code = <status number>, status =
 * "ELIMIT"|..., message = "FILE:LINE: ...", path, line, column, field} whose
 * tostring() is the message (argument-type errors stay Lua's own strings).
 * The module holds no global state.
 */
#include <string.h>

#include <cjson/cJSON.h>
#include <lauxlib.h>
#include <lua.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/frontier.h"
#include "mcpp_receipts/policy_lua.h"
#include "mcpp_receipts/receipt_set.h"

#include "import_lua.h"
#include "module_lua.h"
#include "store_lua.h"
#include "mcpp_shared/lua_values.h" /* shared with the policy engine's receipt views */

#define SECTION_MT "mcpp_receipts.section"
#define POLICY_MT "mcpp_receipts.policy"
#define ERROR_MT "mcpp_receipts.error"

typedef struct lua_section {
    size_t prefix_len;
    char prefix[]; /* uservalue 1 is the receipt userdata, kept alive */
} lua_section;

typedef struct lua_policy {
    mcpp_policy *policy;
} lua_policy;

static void set_string_field(lua_State *L, const char *key, const char *value)
{
    if (!value || !*value)
        return;
    lua_pushstring(L, value);
    lua_setfield(L, -2, key);
}

/* Pushes `s` escaped as the CLI prints text for a terminal (mcpp_output_escape,
 * TEXT: control characters as \xNN, C1 controls and bidi overrides as
 * \uXXXX), line by line when `keep_newlines`: a receipt's id, a policy's name
 * and error messages quoting either are never sent to a terminal raw. */
static void push_escaped(lua_State *L, const char *s, int keep_newlines)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const char *line = s ? s : "";;) {
        const char *end = keep_newlines ? strchr(line, '\n') : NULL;
        size_t n = end ? (size_t)(end - line) : strlen(line);
        lua_pushlstring(L, line, n); /* a NUL-terminated copy of the line */
        char *text = NULL;
        if (mcpp_output_escape(&text, lua_tostring(L, -1), MCPP_OUTPUT_TEXT) == MCPP_OK) {
            lua_pop(L, 1);
            luaL_addstring(&b, text);
            mcpp_free(text);
        } else {
            lua_pop(L, 1);
            luaL_addstring(&b, "(out of memory)");
        }
        if (!end)
            break;
        luaL_addchar(&b, '\n');
        line = end + 1;
    }
    luaL_pushresult(&b);
}

/* The error object's `kind`: the stable name of the enum (what Python's
 * mapper switches on too), or the status name when the failure has none. */
static const char *kind_text(int code, mcpp_error_kind kind)
{
    switch (kind) {
    case MCPP_ERROR_KIND_NONE:
    case MCPP_ERROR_KIND_COUNT:
        return mcpp_status_name(code);
    default:
        return mcpp_error_kind_name(kind);
    }
}

/* Raises an error object (see the top of this file). */
int module_raise_error(lua_State *L, int code, mcpp_error_kind kind, const char *message, const char *file, int line,
                       int column, const char *field)
{
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, code);
    lua_setfield(L, -2, "code");
    set_string_field(L, "status", mcpp_status_name(code));
    set_string_field(L, "kind", kind_text(code, kind));
    push_escaped(L, message && *message ? message : mcpp_status_name(code), 1);
    lua_setfield(L, -2, "message");
    set_string_field(L, "path", file);
    set_string_field(L, "field", field);
    if (line > 0) {
        lua_pushinteger(L, line);
        lua_setfield(L, -2, "line");
    }
    if (column > 0) {
        lua_pushinteger(L, column);
        lua_setfield(L, -2, "column");
    }
    luaL_setmetatable(L, ERROR_MT);
    return lua_error(L);
}

int module_raise_last_error(lua_State *L)
{
    const mcpp_error *e = mcpp_error_last();
    return module_raise_error(L, e->code, mcpp_error_kind_of(e), e->message, e->file, e->line, e->column, e->field);
}

static int error_tostring(lua_State *L)
{
    lua_getfield(L, 1, "message");
    return 1;
}

/* ---- receipts ------------------------------------------------------------------- */

lua_receipt *module_check_receipt(lua_State *L, int index)
{
    lua_receipt *r = luaL_checkudata(L, index, RECEIPT_MT);
    if (!r->receipt)
        module_raise_error(L, MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, "receipt is closed", NULL, 0, 0, NULL);
    return r;
}

void module_push_receipt(lua_State *L, mcpp_receipt *receipt)
{
    lua_receipt *r = lua_newuserdatauv(L, sizeof *r, 0);
    r->receipt = receipt;
    luaL_setmetatable(L, RECEIPT_MT);
}

/* Reads `path` of the receipt at `owner`: a section view, a value or nil. */
static int push_path(lua_State *L, int owner, const mcpp_receipt *receipt, const char *path, size_t len)
{
    if (mcpp_lua_is_section(L, path, len)) {
        lua_section *s = lua_newuserdatauv(L, sizeof *s + len + 1, 1);
        s->prefix_len = len;
        memcpy(s->prefix, path, len);
        s->prefix[len] = '\0';
        lua_pushvalue(L, owner);
        lua_setiuservalue(L, -2, 1);
        luaL_setmetatable(L, SECTION_MT);
        return 1;
    }
    mcpp_value value = MCPP_VALUE_INIT;
    int rc = mcpp_receipt_get(receipt, path, &value);
    if (rc == MCPP_ENOTFOUND)
        return module_raise_error(L, MCPP_ENOTFOUND, MCPP_ERROR_KIND_UNKNOWN_FIELD,
                                  lua_pushfstring(L, "no field '%s' in schema %s", path, MCPP_SCHEMA_ID), NULL, 0, 0,
                                  path);
    if (rc != MCPP_OK)
        return module_raise_last_error(L);
    mcpp_lua_push_value(L, &value);
    return 1;
}

static int receipt_get(lua_State *L)
{
    lua_receipt *r = module_check_receipt(L, 1);
    size_t len;
    const char *path = luaL_checklstring(L, 2, &len);
    return push_path(L, 1, r->receipt, path, len);
}

static int receipt_write(lua_State *L, mcpp_format format)
{
    lua_receipt *r = module_check_receipt(L, 1);
    char *text = NULL;
    size_t len = 0;
    if (mcpp_receipt_write(&text, &len, r->receipt, format) != MCPP_OK)
        return module_raise_last_error(L);
    lua_pushlstring(L, text, len);
    mcpp_free(text);
    return 1;
}

static int receipt_json(lua_State *L) { return receipt_write(L, MCPP_FORMAT_JSON); }

/* receipt:render([format]): "text" (default), "json" or "markdown". */
static int receipt_render(lua_State *L)
{
    lua_receipt *r = module_check_receipt(L, 1);
    mcpp_output_format format = MCPP_OUTPUT_TEXT;
    if (mcpp_output_format_parse(&format, luaL_optstring(L, 2, "text")) != MCPP_OK)
        return module_raise_last_error(L);
    char *text = NULL;
    if (mcpp_receipt_render(&text, r->receipt, (int)format) != MCPP_OK)
        return module_raise_last_error(L);
    lua_pushstring(L, text);
    mcpp_free(text);
    return 1;
}
static int receipt_yaml(lua_State *L) { return receipt_write(L, MCPP_FORMAT_YAML); }

/* r:metric(name) -> {name, unit, direction, value, aggregate, sample_kind,
 * samples = {...}, well_known} or nil when the receipt does not state it. */
static int receipt_metric(lua_State *L)
{
    lua_receipt *r = module_check_receipt(L, 1);
    const char *name = luaL_checkstring(L, 2);
    mcpp_metric m;
    if (mcpp_receipt_metric_find(&m, r->receipt, name) != MCPP_OK) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 8);
    lua_pushstring(L, m.name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, m.unit);
    lua_setfield(L, -2, "unit");
    lua_pushstring(L, m.direction == MCPP_DIRECTION_LOWER ? "lower" : "higher");
    lua_setfield(L, -2, "direction");
    lua_pushnumber(L, m.value);
    lua_setfield(L, -2, "value");
    lua_pushstring(L, m.aggregate); /* nil when unstated */
    lua_setfield(L, -2, "aggregate");
    lua_pushstring(L, m.sample_kind);
    lua_setfield(L, -2, "sample_kind");
    lua_pushboolean(L, m.well_known);
    lua_setfield(L, -2, "well_known");
    lua_createtable(L, (int)m.sample_count, 0);
    for (size_t i = 0; i < m.sample_count; i++) {
        lua_pushnumber(L, mcpp_metric_sample(&m, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "samples");
    return 1;
}

static const luaL_Reg RECEIPT_METHODS[] = {{"get", receipt_get},       {"json", receipt_json},
                                           {"yaml", receipt_yaml},     {"metric", receipt_metric},
                                           {"render", receipt_render}, {NULL, NULL}};

static int receipt_index(lua_State *L)
{
    lua_receipt *r = module_check_receipt(L, 1);
    size_t len;
    const char *key = luaL_checklstring(L, 2, &len);
    for (const luaL_Reg *m = RECEIPT_METHODS; m->name; m++)
        if (strcmp(key, m->name) == 0) {
            lua_pushcfunction(L, m->func);
            return 1;
        }
    if (strcmp(key, "id") == 0) {
        lua_pushstring(L, mcpp_receipt_id(r->receipt));
        return 1;
    }
    return push_path(L, 1, r->receipt, key, len);
}

static int receipt_tostring(lua_State *L)
{
    lua_receipt *r = luaL_checkudata(L, 1, RECEIPT_MT);
    if (!r->receipt) {
        lua_pushliteral(L, "mcpp_receipts.receipt (closed)");
        return 1;
    }
    mcpp_value name = MCPP_VALUE_INIT;
    int has_name = mcpp_receipt_get(r->receipt, "lane.name", &name) == MCPP_OK &&
                   name.type == MCPP_TYPE_STRING;
    push_escaped(L, mcpp_receipt_id(r->receipt), 0);
    push_escaped(L, has_name ? name.string : "unnamed lane", 0);
    lua_pushfstring(L, "mcpp_receipts.receipt %s (%s)", lua_tostring(L, -2), lua_tostring(L, -1));
    return 1;
}

static int receipt_gc(lua_State *L)
{
    lua_receipt *r = luaL_checkudata(L, 1, RECEIPT_MT);
    mcpp_receipt_free(r->receipt);
    r->receipt = NULL;
    return 0;
}

static int receipt_newindex(lua_State *L)
{
    return module_raise_error(L, MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, "receipts are read-only", NULL, 0, 0, NULL);
}

static int section_index(lua_State *L)
{
    lua_section *s = luaL_checkudata(L, 1, SECTION_MT);
    size_t klen;
    const char *key = luaL_checklstring(L, 2, &klen);
    lua_getiuservalue(L, 1, 1);
    int owner = lua_gettop(L);
    lua_receipt *r = module_check_receipt(L, owner);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addlstring(&b, s->prefix, s->prefix_len);
    luaL_addchar(&b, '.');
    luaL_addlstring(&b, key, klen);
    luaL_pushresult(&b);
    size_t len;
    const char *path = lua_tolstring(L, -1, &len);
    return push_path(L, owner, r->receipt, path, len);
}

static int section_tostring(lua_State *L)
{
    lua_section *s = luaL_checkudata(L, 1, SECTION_MT);
    lua_pushfstring(L, "mcpp_receipts.section %s", s->prefix);
    return 1;
}

/* ---- loading ---------------------------------------------------------------------- */

static int mr_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    mcpp_receipt *receipt = NULL;
    if (mcpp_receipt_load_file(&receipt, NULL, path, NULL) != MCPP_OK)
        return module_raise_last_error(L);
    module_push_receipt(L, receipt);
    return 1;
}

static int mr_loads(lua_State *L)
{
    static const char *const FORMATS[] = {"auto", "json", "yaml", NULL};
    static const mcpp_format VALUES[] = {MCPP_FORMAT_AUTO, MCPP_FORMAT_JSON, MCPP_FORMAT_YAML};
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    int f = luaL_checkoption(L, 2, "auto", FORMATS);
    const char *name = luaL_optstring(L, 3, "<string>");
    mcpp_receipt *receipt = NULL;
    if (mcpp_receipt_load_buffer(&receipt, NULL, text, len, VALUES[f], name, NULL) != MCPP_OK)
        return module_raise_last_error(L);
    module_push_receipt(L, receipt);
    return 1;
}

/* mr.import(format, paths [, out_dir]) -> list of receipts (import_lua.c) */
static int mr_import(lua_State *L) { return mcpp_lua_module_import(L, module_push_receipt); }

/* ---- policies ------------------------------------------------------------------------ */

static void push_policy(lua_State *L, mcpp_policy *policy)
{
    lua_policy *p = lua_newuserdatauv(L, sizeof *p, 0);
    p->policy = policy;
    luaL_setmetatable(L, POLICY_MT);
}

const mcpp_policy *module_opt_policy(lua_State *L, int index)
{
    if (lua_isnoneornil(L, index))
        return NULL; /* the library's default */
    lua_policy *p = luaL_checkudata(L, index, POLICY_MT);
    if (!p->policy)
        module_raise_error(L, MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, "policy is closed", NULL, 0, 0, NULL);
    return p->policy;
}

/* The policy of one call that takes an optional metric (the argument at
 * `metric_index`): `policy` itself (NULL: the default) without one; with one,
 * a clone of `policy` gating on that metric alone, left on the stack as a
 * policy userdata so that the collector frees it whatever raises later.
 * Raises the library's error for a malformed metric. */
const mcpp_policy *module_policy_for_metric(lua_State *L, const mcpp_policy *policy, int metric_index)
{
    const char *metric = luaL_optstring(L, metric_index, NULL);
    if (!metric)
        return policy;
    lua_policy *holder = lua_newuserdatauv(L, sizeof *holder, 0);
    holder->policy = NULL;
    luaL_setmetatable(L, POLICY_MT);
    int rc = mcpp_policy_clone(&holder->policy, policy);
    if (rc == MCPP_OK) {
        mcpp_gate_settings g = *mcpp_policy_gate(holder->policy);
        g.metric = metric;
        rc = mcpp_policy_set_gate(holder->policy, &g);
    }
    if (rc != MCPP_OK)
        module_raise_last_error(L);
    return holder->policy;
}

static int metric_stated(const char *metric, const mcpp_policy *policy, const mcpp_receipt *const *list, size_t n)
{
    return metric || !policy ? mcpp_metric_check_stated(metric, list, n)
                             : mcpp_policy_check_metrics_stated(policy, list, n);
}

void module_check_metric_stated(lua_State *L, const char *metric, const mcpp_policy *policy,
                                const mcpp_receipt *const *a, size_t na, const mcpp_receipt *const *b, size_t nb)
{
    if (metric_stated(metric, policy, a, na) != MCPP_OK && (!b || metric_stated(metric, policy, b, nb) != MCPP_OK))
        module_raise_last_error(L);
    mcpp_error_clear(); /* the first list's miss, when the second states it */
}

/* limits.NAME as milliseconds into *out (unchanged when absent). */
static void opt_limit_ms(lua_State *L, int limits, const char *name, int64_t *out, int allow_none)
{
    if (lua_getfield(L, limits, name) != LUA_TNIL) {
        lua_Integer v = luaL_checkinteger(L, -1);
        if (v <= 0 && !(allow_none && v == -1))
            luaL_error(L, "%s must be > 0%s", name, allow_none ? " (or -1 for no bound)" : "");
        *out = (int64_t)v;
    }
    lua_pop(L, 1);
}

static int mr_policy(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    mcpp_lua_limits limits;
    mcpp_lua_limits_default(&limits);
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        opt_limit_ms(L, 2, "time_limit_ms", &limits.max_call_ms, 0);
        opt_limit_ms(L, 2, "total_time_limit_ms", &limits.max_total_ms, 1);
    }
    mcpp_policy *policy = NULL;
    char *found = NULL; /* mr.policy("strict"): the shipped one */
    int rc = mcpp_policy_locate(&found, path);
    if (rc == MCPP_OK)
        rc = mcpp_policy_load_lua_file(&policy, found, &limits);
    mcpp_free(found);
    if (rc != MCPP_OK)
        return module_raise_last_error(L);
    push_policy(L, policy);
    return 1;
}

static int mr_default_policy(lua_State *L)
{
    mcpp_policy *policy = NULL;
    if (mcpp_policy_default(&policy) != MCPP_OK)
        return module_raise_last_error(L);
    push_policy(L, policy);
    return 1;
}

static int policy_index(lua_State *L)
{
    const mcpp_policy *p = module_opt_policy(L, 1);
    const char *key = luaL_checkstring(L, 2);
    if (strcmp(key, "name") == 0) {
        lua_pushstring(L, mcpp_policy_name(p));
    } else if (strcmp(key, "dimensions") == 0) {
        size_t n = mcpp_policy_dimension_count(p);
        lua_createtable(L, (int)n, 0);
        for (size_t i = 0; i < n; i++) {
            lua_createtable(L, 0, 3);
            lua_pushstring(L, mcpp_policy_dimension_name(p, i));
            lua_setfield(L, -2, "name");
            lua_pushstring(L, mcpp_role_name((mcpp_role)mcpp_policy_dimension_role(p, i)));
            lua_setfield(L, -2, "role");
            size_t nf = mcpp_policy_dimension_field_count(p, i);
            lua_createtable(L, (int)nf, 0);
            for (size_t k = 0; k < nf; k++) {
                lua_pushstring(L, mcpp_policy_dimension_field(p, i, k));
                lua_rawseti(L, -2, (lua_Integer)k + 1);
            }
            lua_setfield(L, -2, "fields");
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else if (strcmp(key, "rules") == 0) {
        size_t n = mcpp_policy_rule_count(p);
        lua_createtable(L, (int)n, 0);
        for (size_t i = 0; i < n; i++) {
            lua_pushstring(L, mcpp_policy_rule_name(p, i));
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else {
        lua_pushnil(L);
    }
    return 1;
}

static int policy_tostring(lua_State *L)
{
    lua_policy *p = luaL_checkudata(L, 1, POLICY_MT);
    if (!p->policy)
        lua_pushliteral(L, "mcpp_receipts.policy (closed)");
    else {
        push_escaped(L, mcpp_policy_name(p->policy), 0);
        lua_pushfstring(L, "mcpp_receipts.policy %s (%d dimensions, %d rules)", lua_tostring(L, -1),
                        (int)mcpp_policy_dimension_count(p->policy), (int)mcpp_policy_rule_count(p->policy));
    }
    return 1;
}

static int policy_gc(lua_State *L)
{
    lua_policy *p = luaL_checkudata(L, 1, POLICY_MT);
    mcpp_policy_free(p->policy);
    p->policy = NULL;
    return 0;
}

/* ---- compare, frontier and policy tests ----------------------------------------------------- */

/* Result tables are the library's JSON rendering turned into Lua values (null
 * leaves the key out), plus the text rendering as "text": a Lua script sees
 * exactly the keys the JSON renderer documents, and no key can drift. */
void module_push_json(lua_State *L, const cJSON *v)
{
    if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        lua_createtable(L, cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0, cJSON_IsObject(v) ? 8 : 0);
        lua_Integer i = 0;
        for (const cJSON *item = v->child; item; item = item->next) {
            if (cJSON_IsNull(item))
                continue;
            module_push_json(L, item);
            if (cJSON_IsArray(v))
                lua_rawseti(L, -2, ++i);
            else
                lua_setfield(L, -2, item->string);
        }
    } else if (cJSON_IsString(v)) {
        lua_pushstring(L, v->valuestring);
    } else if (cJSON_IsBool(v)) {
        lua_pushboolean(L, cJSON_IsTrue(v));
    } else if (cJSON_IsNumber(v) && v->valuedouble == (double)(lua_Integer)v->valuedouble &&
               v->valuedouble > -9007199254740992.0 && v->valuedouble < 9007199254740992.0) {
        lua_pushinteger(L, (lua_Integer)v->valuedouble);
    } else if (cJSON_IsNumber(v)) {
        lua_pushnumber(L, (lua_Number)v->valuedouble);
    } else {
        lua_pushnil(L);
    }
}

/* Pushes the result table of `object`: its JSON rendering as Lua values and
 * its text rendering as "text". Returns MCPP_OK or a library error code; the
 * rendered strings are freed before anything can raise. */
int module_push_rendered(lua_State *L, render_fn render, const void *object)
{
    char *json = NULL, *text = NULL;
    int rc = render(&json, object, MCPP_OUTPUT_JSON);
    if (rc == MCPP_OK)
        rc = render(&text, object, MCPP_OUTPUT_TEXT);
    cJSON *root = rc == MCPP_OK ? cJSON_Parse(json) : NULL;
    mcpp_free(json);
    if (rc != MCPP_OK || !root) {
        mcpp_free(text);
        if (rc == MCPP_OK) /* the library's own JSON always parses: only memory can fail */
            return luaL_error(L, "out of memory");
        return rc;
    }
    module_push_json(L, root);
    cJSON_Delete(root);
    lua_pushstring(L, text);
    mcpp_free(text);
    lua_setfield(L, -2, "text");
    return MCPP_OK;
}

int module_render_comparison(char **out, const void *c, int format)
{
    return mcpp_comparison_render(out, c, (mcpp_output_format)format);
}

int module_render_frontier(char **out, const void *f, int format)
{
    return mcpp_frontier_render(out, f, (mcpp_output_format)format);
}

static int render_policy_test(char **out, const void *report, int format)
{
    return mcpp_policy_test_report_render(out, report, format);
}

static int mr_compare(lua_State *L)
{
    lua_receipt *a = module_check_receipt(L, 1);
    lua_receipt *b = module_check_receipt(L, 2);
    const mcpp_policy *given = module_opt_policy(L, 3);
    const mcpp_policy *policy = module_policy_for_metric(L, given, 4);
    const mcpp_receipt *pair[2] = {a->receipt, b->receipt};
    module_check_metric_stated(L, luaL_optstring(L, 4, NULL), given, pair, 2, NULL, 0);
    mcpp_comparison *c = NULL;
    if (mcpp_compare(&c, policy, a->receipt, b->receipt) != MCPP_OK)
        return module_raise_last_error(L);
    int rc = module_push_rendered(L, module_render_comparison, c);
    mcpp_comparison_free(c);
    if (rc != MCPP_OK)
        return module_raise_last_error(L);
    return 1;
}

/* The receipts of the table at `idx` as an array in Lua memory (so an error
 * leaks nothing); two different runs with one id are refused, as the CLI and
 * Python refuse them. */
const mcpp_receipt **module_check_receipt_list(lua_State *L, int idx, size_t *n_out)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_Integer n = luaL_len(L, idx);
    luaL_argcheck(L, n >= 0 && n < (1 << 24), idx, "too many receipts");
    const mcpp_receipt **list = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *list, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, idx, i);
        list[i - 1] = module_check_receipt(L, lua_gettop(L))->receipt;
        lua_pop(L, 1); /* the table keeps the receipt alive */
    }
    if (mcpp_receipts_check_ids(list, (size_t)n) != MCPP_OK)
        module_raise_last_error(L);
    *n_out = (size_t)n;
    return list;
}

static int mr_frontier(lua_State *L)
{
    const char *metric = luaL_optstring(L, 3, NULL);
    const mcpp_policy *given = module_opt_policy(L, 2);
    const mcpp_policy *policy = module_policy_for_metric(L, given, 3); /* before the stack grows */
    size_t n = 0;
    const mcpp_receipt **list = module_check_receipt_list(L, 1, &n);
    module_check_metric_stated(L, metric, given, list, n, NULL, 0);
    mcpp_frontier *f = NULL;
    if (mcpp_frontier_build(&f, policy, list, n) != MCPP_OK)
        return module_raise_last_error(L);
    int rc = module_push_rendered(L, module_render_frontier, f);
    mcpp_frontier_free(f);
    if (rc != MCPP_OK)
        return module_raise_last_error(L);
    return 1;
}

int module_render_claim(char **out, const void *r, int format)
{
    return mcpp_claim_result_render(out, r, (mcpp_output_format)format);
}

/* claim(receipts, selector, value [, policy [, metric]]): the verdict
 * ("supported", "contradicted", "unsupported", "ambiguous") and its lanes. */
static int mr_claim(lua_State *L)
{
    const char *selector = luaL_checkstring(L, 2);
    double value = luaL_checknumber(L, 3);
    const mcpp_policy *policy = module_opt_policy(L, 4);
    const char *metric = luaL_optstring(L, 5, NULL);
    size_t n = 0;
    const mcpp_receipt **list = module_check_receipt_list(L, 1, &n);
    mcpp_claim_result *r = NULL;
    if (mcpp_claim_check(&r, policy, list, n, selector, metric, value) != MCPP_OK)
        return module_raise_last_error(L);
    int rc = module_push_rendered(L, module_render_claim, r);
    mcpp_claim_result_free(r);
    if (rc != MCPP_OK)
        return module_raise_last_error(L);
    return 1;
}

int module_render_gate(char **out, const void *r, int format)
{
    return mcpp_gate_report_render(out, r, (mcpp_output_format)format);
}

/* gate(baselines, candidates [, policy [, metric]]): the merge gate; the
 * keys of the gate JSON ("mcpp.gate/2": outcome, exit_code, candidates with
 * their lane, pooled baselines, differences and metric) plus "text". */
static int mr_gate(lua_State *L)
{
    const char *metric = luaL_optstring(L, 4, NULL);
    const mcpp_policy *given = module_opt_policy(L, 3);
    const mcpp_policy *policy = module_policy_for_metric(L, given, 4); /* before the stack grows */
    size_t nb = 0, nc = 0;
    const mcpp_receipt **baselines = module_check_receipt_list(L, 1, &nb);
    const mcpp_receipt **candidates = module_check_receipt_list(L, 2, &nc);
    module_check_metric_stated(L, metric, given, candidates, nc, baselines, nb); /* on either side */
    mcpp_gate_report *r = NULL;
    if (mcpp_gate_run(&r, policy, baselines, nb, candidates, nc) != MCPP_OK)
        return module_raise_last_error(L);
    int rc = module_push_rendered(L, module_render_gate, r);
    mcpp_gate_report_free(r);
    if (rc != MCPP_OK)
        return module_raise_last_error(L);
    return 1;
}

static int mr_policy_test(lua_State *L)
{
    const mcpp_policy *policy = module_opt_policy(L, 1);
    const char *path = luaL_checkstring(L, 2);
    mcpp_policy *fallback = NULL;
    if (!policy && mcpp_policy_default(&fallback) != MCPP_OK)
        return module_raise_last_error(L);
    mcpp_policy_test_report *report = NULL;
    int rc = mcpp_policy_test_file(&report, policy ? policy : fallback, path);
    mcpp_policy_free(fallback);
    if (rc == MCPP_OK)
        rc = module_push_rendered(L, render_policy_test, report);
    mcpp_policy_test_report_free(report);
    if (rc != MCPP_OK)
        return module_raise_last_error(L);
    return 1;
}

/* ---- the module ----------------------------------------------------------------------------- */

void module_new_metatable(lua_State *L, const char *name, const luaL_Reg *methods)
{
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, methods, 0);
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int luaopen_mcpp_receipts(lua_State *L);

int luaopen_mcpp_receipts(lua_State *L)
{
    static const luaL_Reg RECEIPT_META[] = {{"__index", receipt_index},  {"__newindex", receipt_newindex},
                                            {"__tostring", receipt_tostring}, {"__gc", receipt_gc},
                                            {"__close", receipt_gc},      {NULL, NULL}};
    static const luaL_Reg SECTION_META[] = {{"__index", section_index},
                                            {"__newindex", receipt_newindex},
                                            {"__tostring", section_tostring},
                                            {NULL, NULL}};
    static const luaL_Reg POLICY_META[] = {{"__index", policy_index}, {"__tostring", policy_tostring},
                                           {"__gc", policy_gc},       {"__close", policy_gc},
                                           {NULL, NULL}};
    static const luaL_Reg FUNCTIONS[] = {{"load", mr_load},
                                         {"loads", mr_loads},
                                         {"import", mr_import},
                                         {"compare", mr_compare},
                                         {"frontier", mr_frontier},
                                         {"claim", mr_claim},
                                         {"gate", mr_gate},
                                         {"policy", mr_policy},
                                         {"default_policy", mr_default_policy},
                                         {"policy_test", mr_policy_test},
                                         {"store", mcpp_lua_store_new},
                                         {NULL, NULL}};
    module_new_metatable(L, RECEIPT_MT, RECEIPT_META);
    module_new_metatable(L, SECTION_MT, SECTION_META);
    module_new_metatable(L, POLICY_MT, POLICY_META);
    static const luaL_Reg ERROR_META[] = {{"__tostring", error_tostring}, {NULL, NULL}};
    module_new_metatable(L, ERROR_MT, ERROR_META);

    mcpp_lua_sections_install(L);
    mcpp_lua_store_install(L);

    luaL_newlib(L, FUNCTIONS);
    lua_pushstring(L, mcpp_version_string());
    lua_setfield(L, -2, "version");
    lua_pushliteral(L, MCPP_SCHEMA_ID);
    lua_setfield(L, -2, "schema");
    return 1;
}
