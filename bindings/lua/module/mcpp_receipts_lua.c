/*
 * mcpp_receipts_lua.c — the Lua 5.4 module: `local mr = require "mcpp_receipts"`.
 *
 * Gives review scripts the library's load, compare, frontier and policies:
 *
 *   mr.load(path)               -> receipt     (JSON or YAML, by extension)
 *   mr.loads(text [, fmt])      -> receipt     (fmt "json", "yaml" or "auto")
 *   mr.compare(a, b [, policy]) -> table       {verdict, base, cand, rows, metric, gate, text}
 *   mr.frontier(list [, policy])-> table       {lanes, stable_count, text}
 *   mr.policy(path)             -> policy      (a sandboxed Lua policy file)
 *   mr.default_policy()         -> policy
 *   mr.version                  "0.1.0"
 *
 *   receipt.id, receipt.lane.pattern, receipt["routing.top_k"], receipt:get(path),
 *   receipt:json(), receipt:yaml(), tostring(receipt)
 *   policy.name, policy.dimensions, policy.rules, tostring(policy)
 *
 * Receipts and policies are userdata with __gc, __close and __tostring; a
 * closed one refuses further use. Failures raise a Lua error whose message is
 * the library's "FILE:LINE: ..." text. The module holds no global state.
 */
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/frontier.h"
#include "mcpp_receipts/policy_lua.h"

#include "import_lua.h"
#include "policy/lua/lua_values.h" /* shared with the policy engine's receipt views */

#define RECEIPT_MT "mcpp_receipts.receipt"
#define SECTION_MT "mcpp_receipts.section"
#define POLICY_MT "mcpp_receipts.policy"

typedef struct lua_receipt {
    mcpp_receipt *receipt;
} lua_receipt;

typedef struct lua_section {
    size_t prefix_len;
    char prefix[]; /* uservalue 1 is the receipt userdata, kept alive */
} lua_section;

typedef struct lua_policy {
    mcpp_policy *policy;
} lua_policy;

static int raise_last_error(lua_State *L)
{
    const mcpp_error *e = mcpp_error_last();
    lua_pushstring(L, e->message && *e->message ? e->message : mcpp_status_name(e->code));
    return lua_error(L);
}

/* ---- receipts ------------------------------------------------------------------- */

static lua_receipt *check_receipt(lua_State *L, int index)
{
    lua_receipt *r = luaL_checkudata(L, index, RECEIPT_MT);
    if (!r->receipt)
        luaL_error(L, "receipt is closed");
    return r;
}

static void push_receipt(lua_State *L, mcpp_receipt *receipt)
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
    mcpp_value value;
    int rc = mcpp_receipt_get(receipt, path, &value);
    if (rc == MCPP_ENOTFOUND)
        return luaL_error(L, "no field '%s' in schema %s", path, MCPP_SCHEMA_ID);
    if (rc != MCPP_OK)
        return raise_last_error(L);
    mcpp_lua_push_value(L, &value);
    return 1;
}

static int receipt_get(lua_State *L)
{
    lua_receipt *r = check_receipt(L, 1);
    size_t len;
    const char *path = luaL_checklstring(L, 2, &len);
    return push_path(L, 1, r->receipt, path, len);
}

static int receipt_write(lua_State *L, mcpp_format format)
{
    lua_receipt *r = check_receipt(L, 1);
    char *text = NULL;
    size_t len = 0;
    if (mcpp_receipt_write(&text, &len, r->receipt, format) != MCPP_OK)
        return raise_last_error(L);
    lua_pushlstring(L, text, len);
    mcpp_free(text);
    return 1;
}

static int receipt_json(lua_State *L) { return receipt_write(L, MCPP_FORMAT_JSON); }
static int receipt_yaml(lua_State *L) { return receipt_write(L, MCPP_FORMAT_YAML); }

/* r:metric(name) -> {name, unit, direction, value, aggregate, sample_kind,
 * samples = {...}, well_known} or nil when the receipt does not state it. */
static int receipt_metric(lua_State *L)
{
    lua_receipt *r = check_receipt(L, 1);
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

static const luaL_Reg RECEIPT_METHODS[] = {{"get", receipt_get},
                                           {"json", receipt_json},
                                           {"yaml", receipt_yaml},
                                           {"metric", receipt_metric},
                                           {NULL, NULL}};

static int receipt_index(lua_State *L)
{
    lua_receipt *r = check_receipt(L, 1);
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
    mcpp_value name;
    int has_name = mcpp_receipt_get(r->receipt, "lane.name", &name) == MCPP_OK &&
                   name.type == MCPP_TYPE_STRING;
    lua_pushfstring(L, "mcpp_receipts.receipt %s (%s)", mcpp_receipt_id(r->receipt),
                    has_name ? name.string : "unnamed lane");
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
    return luaL_error(L, "receipts are read-only");
}

static int section_index(lua_State *L)
{
    lua_section *s = luaL_checkudata(L, 1, SECTION_MT);
    size_t klen;
    const char *key = luaL_checklstring(L, 2, &klen);
    lua_getiuservalue(L, 1, 1);
    int owner = lua_gettop(L);
    lua_receipt *r = check_receipt(L, owner);
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
        return raise_last_error(L);
    push_receipt(L, receipt);
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
        return raise_last_error(L);
    push_receipt(L, receipt);
    return 1;
}

/* mr.import(format, paths [, out_dir]) -> list of receipts (import_lua.c) */
static int mr_import(lua_State *L)
{
    return mcpp_lua_module_import(L, push_receipt);
}

/* ---- policies ------------------------------------------------------------------------ */

static void push_policy(lua_State *L, mcpp_policy *policy)
{
    lua_policy *p = lua_newuserdatauv(L, sizeof *p, 0);
    p->policy = policy;
    luaL_setmetatable(L, POLICY_MT);
}

static const mcpp_policy *opt_policy(lua_State *L, int index)
{
    if (lua_isnoneornil(L, index))
        return NULL; /* the library's default */
    lua_policy *p = luaL_checkudata(L, index, POLICY_MT);
    if (!p->policy)
        luaL_error(L, "policy is closed");
    return p->policy;
}

static int mr_policy(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    mcpp_policy *policy = NULL;
    if (mcpp_policy_load_lua_file(&policy, path, NULL) != MCPP_OK)
        return raise_last_error(L);
    push_policy(L, policy);
    return 1;
}

static int mr_default_policy(lua_State *L)
{
    mcpp_policy *policy = NULL;
    if (mcpp_policy_default(&policy) != MCPP_OK)
        return raise_last_error(L);
    push_policy(L, policy);
    return 1;
}

static int policy_index(lua_State *L)
{
    const mcpp_policy *p = opt_policy(L, 1);
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
    else
        lua_pushfstring(L, "mcpp_receipts.policy %s (%d dimensions, %d rules)", mcpp_policy_name(p->policy),
                        (int)mcpp_policy_dimension_count(p->policy), (int)mcpp_policy_rule_count(p->policy));
    return 1;
}

static int policy_gc(lua_State *L)
{
    lua_policy *p = luaL_checkudata(L, 1, POLICY_MT);
    mcpp_policy_free(p->policy);
    p->policy = NULL;
    return 0;
}

/* ---- compare and frontier ------------------------------------------------------------------ */

static void set_string(lua_State *L, const char *key, const char *value)
{
    if (value)
        lua_pushstring(L, value);
    else
        lua_pushnil(L);
    lua_setfield(L, -2, key);
}

static void set_number(lua_State *L, const char *key, double value)
{
    lua_pushnumber(L, (lua_Number)value);
    lua_setfield(L, -2, key);
}

static void set_integer(lua_State *L, const char *key, lua_Integer value)
{
    lua_pushinteger(L, value);
    lua_setfield(L, -2, key);
}

static void push_metric(lua_State *L, const mcpp_metric_result *m)
{
    lua_createtable(L, 0, 14);
    set_string(L, "name", m->metric);
    lua_pushboolean(L, m->higher_is_better);
    lua_setfield(L, -2, "higher_is_better");
    set_number(L, "base_median", m->base_median);
    set_number(L, "cand_median", m->cand_median);
    set_number(L, "rel_delta", m->rel_delta);
    set_number(L, "interval_low", m->interval_low);
    set_number(L, "interval_high", m->interval_high);
    set_number(L, "confidence", m->confidence);
    set_integer(L, "n_base", (lua_Integer)m->n_base);
    set_integer(L, "n_cand", (lua_Integer)m->n_cand);
    set_number(L, "noise_floor", m->noise_floor);
    set_string(L, "method", m->method);
    lua_pushboolean(L, m->point_comparison);
    lua_setfield(L, -2, "point_comparison");
}

/* Stores rendered `text` as field "text" of the table on top; frees it. */
static int set_rendered(lua_State *L, int rc, char *text)
{
    if (rc != MCPP_OK) {
        mcpp_free(text);
        return rc;
    }
    lua_pushstring(L, text);
    mcpp_free(text);
    lua_setfield(L, -2, "text");
    return MCPP_OK;
}

static int mr_compare(lua_State *L)
{
    lua_receipt *a = check_receipt(L, 1);
    lua_receipt *b = check_receipt(L, 2);
    const mcpp_policy *policy = opt_policy(L, 3);
    mcpp_comparison *c = NULL;
    if (mcpp_compare(&c, policy, a->receipt, b->receipt) != MCPP_OK)
        return raise_last_error(L);
    lua_createtable(L, 0, 8);
    set_string(L, "verdict", mcpp_verdict_name(mcpp_comparison_verdict(c)));
    set_string(L, "base", mcpp_comparison_base_id(c));
    set_string(L, "cand", mcpp_comparison_cand_id(c));
    size_t n = mcpp_comparison_row_count(c);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 6);
        set_string(L, "dimension", mcpp_comparison_row_dimension(c, i));
        int role = mcpp_comparison_row_role(c, i);
        set_string(L, "role", role >= 0 ? mcpp_role_name((mcpp_role)role) : NULL);
        set_string(L, "status", mcpp_dim_status_name((mcpp_dim_status)mcpp_comparison_row_status(c, i)));
        set_string(L, "base_value", mcpp_comparison_row_base(c, i));
        set_string(L, "cand_value", mcpp_comparison_row_cand(c, i));
        set_string(L, "reason", mcpp_comparison_row_reason(c, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "rows");
    const mcpp_metric_result *m = mcpp_comparison_metric(c);
    if (m) {
        push_metric(L, m);
        lua_setfield(L, -2, "metric");
    }
    lua_createtable(L, 0, 2);
    set_string(L, "outcome", mcpp_gate_outcome_name(mcpp_comparison_gate(c)));
    set_string(L, "reason", mcpp_comparison_gate_reason(c));
    lua_setfield(L, -2, "gate");
    char *text = NULL;
    int rc = mcpp_comparison_render(&text, c, MCPP_OUTPUT_TEXT);
    rc = set_rendered(L, rc, text);
    mcpp_comparison_free(c);
    if (rc != MCPP_OK)
        return raise_last_error(L);
    return 1;
}

static void push_lane(lua_State *L, const mcpp_frontier *f, size_t lane)
{
    lua_createtable(L, 0, 9);
    set_string(L, "key", mcpp_frontier_lane_key(f, lane));
    set_string(L, "short_key", mcpp_frontier_lane_short_key(f, lane));
    set_string(L, "label", mcpp_frontier_lane_label(f, lane));
    set_string(L, "status", mcpp_lane_status_name((mcpp_lane_status)mcpp_frontier_lane_status(f, lane)));
    set_string(L, "blocker", mcpp_frontier_lane_blocker(f, lane));
    size_t n = mcpp_frontier_lane_receipt_count(f, lane);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, mcpp_frontier_lane_receipt_id(f, lane, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "receipts");
    n = mcpp_frontier_lane_reason_count(f, lane);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, mcpp_frontier_lane_reason(f, lane, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "reasons");
    mcpp_lane_headline h;
    if (mcpp_frontier_lane_headline(&h, f, lane) == MCPP_OK) {
        lua_createtable(L, 0, 10);
        set_string(L, "metric", h.metric);
        set_number(L, "median", h.median);
        set_number(L, "interval_low", h.interval_low);
        set_number(L, "interval_high", h.interval_high);
        set_number(L, "confidence", h.confidence);
        set_integer(L, "n", (lua_Integer)h.n);
        set_integer(L, "n_runs", (lua_Integer)h.n_runs);
        set_number(L, "rel_spread", h.rel_spread);
        lua_setfield(L, -2, "headline");
    }
    n = mcpp_frontier_lane_adjacent_count(f, lane);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        size_t other = mcpp_frontier_lane_adjacent_index(f, lane, i);
        lua_createtable(L, 0, 3);
        set_string(L, "short_key", mcpp_frontier_lane_short_key(f, other));
        set_string(L, "status", mcpp_lane_status_name((mcpp_lane_status)mcpp_frontier_lane_status(f, other)));
        set_string(L, "differs_in", mcpp_frontier_lane_adjacent_dimensions(f, lane, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "adjacent");
}

static int mr_frontier(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    const mcpp_policy *policy = opt_policy(L, 2);
    lua_Integer n = luaL_len(L, 1);
    luaL_argcheck(L, n >= 0 && n < (1 << 24), 1, "too many receipts");
    /* The array lives in Lua memory, so an error below leaks nothing. */
    const mcpp_receipt **list = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *list, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 1, i);
        list[i - 1] = check_receipt(L, lua_gettop(L))->receipt;
        lua_pop(L, 1); /* the table keeps the receipt alive */
    }
    mcpp_frontier *f = NULL;
    if (mcpp_frontier_build(&f, policy, list, (size_t)n) != MCPP_OK)
        return raise_last_error(L);
    size_t lanes = mcpp_frontier_lane_count(f);
    lua_createtable(L, 0, 3);
    set_integer(L, "stable_count", (lua_Integer)mcpp_frontier_stable_count(f));
    lua_createtable(L, (int)lanes, 0);
    for (size_t i = 0; i < lanes; i++) {
        push_lane(L, f, i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "lanes");
    char *text = NULL;
    int rc = mcpp_frontier_render(&text, f, MCPP_OUTPUT_TEXT);
    rc = set_rendered(L, rc, text);
    mcpp_frontier_free(f);
    if (rc != MCPP_OK)
        return raise_last_error(L);
    return 1;
}

/* ---- the module ----------------------------------------------------------------------------- */

static void new_metatable(lua_State *L, const char *name, const luaL_Reg *methods)
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
                                         {"policy", mr_policy},
                                         {"default_policy", mr_default_policy},
                                         {NULL, NULL}};
    new_metatable(L, RECEIPT_MT, RECEIPT_META);
    new_metatable(L, SECTION_MT, SECTION_META);
    new_metatable(L, POLICY_MT, POLICY_META);

    mcpp_lua_sections_install(L);

    luaL_newlib(L, FUNCTIONS);
    lua_pushstring(L, mcpp_version_string());
    lua_setfield(L, -2, "version");
    lua_pushliteral(L, MCPP_SCHEMA_ID);
    lua_setfield(L, -2, "schema");
    return 1;
}
