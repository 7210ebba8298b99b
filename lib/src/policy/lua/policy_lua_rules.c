/*
 * policy_lua_rules.c — custom policy rules: Lua functions called with
 * read-only views of the two receipts being compared.
 *
 * A view is a userdata whose __index reads the receipt through
 * mcpp_value_at_path(): `cand.compile.graph_breaks` walks sections (each
 * section is a cached view of a path prefix) and `cand["routing.top_k"]`
 * reads a dotted path directly. __newindex refuses, the metatable is
 * protected, and a view kept past its call refuses to read. The two root
 * views and all section views are created once per policy, so a rule call
 * allocates nothing for them.
 *
 * A rule given as `each = function(run, side)` is called once per side, the
 * base first ("base", then "candidate"), and the pair gets the first side's
 * answer that is not a pass: what a `fn` that loops over both sides gives,
 * without the rule seeing both (so the frontier need not check its pairs).
 *
 * Each call runs the defining file's chunk again in a fresh environment and
 * calls the rule from the table it returns, so globals, upvalues and tables
 * a rule changes are gone by the next call: the same pair always gets the
 * same verdict, in any order and from any thread. Calls are serialised by
 * the engine's mutex (one lua_State is not reentrant); each gets the full
 * per-call bounds, and its wall-clock time is charged to the policy's total.
 */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "util/c_locale.h"
#include "util/error_internal.h"
#include "receipt/fields.h"
#include "policy/policy_internal.h"
#include "policy/lua/lua_engine.h"
#include "mcpp_shared/lua_values.h"

static const char VIEW_META_KEY = 'm';
static const char ROOTS_KEY = 'o';    /* {base view, cand view}           */
static const char SECTIONS_KEY = 's'; /* {[1] = {prefix = view}, [2] = ...} */

typedef struct receipt_view {
    int which; /* 0 base, 1 candidate */
    size_t prefix_len;
    char prefix[]; /* "" for the root, else "compile", "backend.moe", ... */
} receipt_view;

typedef struct lua_rule {
    mcpp_lua_engine *engine;
    int index;
    int each; /* `each = function(run, side)`: called once per side */
    char *file;
    char name[];
} lua_rule;

/* ---- views ---------------------------------------------------------------------- */

/* Pushes a new view of `path` (a section, or "" for the root). Its uservalue
 * caches what each key resolved to: a child section view, or a field id. */
static void new_view(lua_State *L, int which, const char *path, size_t len)
{
    receipt_view *v = lua_newuserdatauv(L, sizeof *v + len + 1, 1);
    v->which = which;
    v->prefix_len = len;
    memcpy(v->prefix, path, len);
    v->prefix[len] = '\0';
    lua_newtable(L);
    lua_setiuservalue(L, -2, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &VIEW_META_KEY);
    lua_setmetatable(L, -2);
}

static void push_section(lua_State *L, int which, const char *path, size_t len)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &SECTIONS_KEY);
    lua_rawgeti(L, -1, which + 1);
    lua_remove(L, -2);
    lua_pushlstring(L, path, len);
    if (lua_rawget(L, -2) != LUA_TNIL) {
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    new_view(L, which, path, len);
    lua_pushlstring(L, path, len);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
    lua_remove(L, -2);
}

static int view_index(lua_State *L)
{
    receipt_view *v = lua_touserdata(L, 1);
    const mcpp_receipt *r = mcpp_lua_sandbox_of(L)->views[v->which];
    if (!r)
        return luaL_error(L, "a receipt view was used outside the rule call it was given to");
    if (lua_type(L, 2) != LUA_TSTRING)
        return luaL_error(L, "receipt fields are named by strings, not by a %s", luaL_typename(L, 2));
    mcpp_value value;
    /* Fast path: this key was resolved before (the usual case in a rule that
     * runs for every pair): no path building, no name lookup. */
    lua_getiuservalue(L, 1, 1);
    int cache = lua_gettop(L);
    lua_pushvalue(L, 2);
    int cached = lua_rawget(L, cache);
    if (cached == LUA_TUSERDATA)
        return 1;
    if (cached == LUA_TNUMBER) {
        mcpp_value_at_field(r, (int)lua_tointeger(L, -1), &value);
        mcpp_lua_push_value(L, &value);
        return 1;
    }
    lua_pop(L, 1);

    size_t klen;
    const char *key = lua_tolstring(L, 2, &klen);
    char path[256];
    if (v->prefix_len + 1 + klen >= sizeof path)
        return luaL_error(L, "field path too long");
    size_t n = 0;
    if (v->prefix_len) {
        memcpy(path, v->prefix, v->prefix_len);
        path[v->prefix_len] = '.';
        n = v->prefix_len + 1;
    }
    memcpy(path + n, key, klen);
    n += klen;
    path[n] = '\0';

    if (mcpp_lua_is_section(L, path, n)) {
        push_section(L, v->which, path, n);
        lua_pushvalue(L, 2);
        lua_pushvalue(L, -2);
        lua_rawset(L, cache);
        return 1;
    }
    int id = mcpp_schema_field_id(path);
    if (id >= 0) {
        lua_pushvalue(L, 2);
        lua_pushinteger(L, id);
        lua_rawset(L, cache);
        mcpp_value_at_field(r, id, &value);
        mcpp_lua_push_value(L, &value);
        return 1;
    }
    /* Paths into free-form objects (extra.team) are not schema fields. */
    int rc = mcpp_value_at_path(r, path, &value);
    if (rc == MCPP_ENOTFOUND)
        return luaL_error(L, "no field '%s' in schema %s", path, MCPP_SCHEMA_ID);
    if (rc != MCPP_OK)
        return luaL_error(L, "cannot read '%s': %s", path, mcpp_error_last()->message);
    mcpp_lua_push_value(L, &value);
    return 1;
}

static int view_newindex(lua_State *L)
{
    return luaL_error(L, "receipts are read-only in policy rules");
}

static int view_tostring(lua_State *L)
{
    receipt_view *v = lua_touserdata(L, 1);
    const mcpp_receipt *r = mcpp_lua_sandbox_of(L)->views[v->which];
    const char *id = r ? mcpp_receipt_id(r) : NULL;
    if (v->prefix_len)
        lua_pushfstring(L, "receipt %s section %s", id ? id : "?", v->prefix);
    else
        lua_pushfstring(L, "receipt %s", id ? id : "?");
    return 1;
}

void mcpp_lua_views_install(lua_State *L)
{
    static const luaL_Reg META[] = {
        {"__index", view_index}, {"__newindex", view_newindex}, {"__tostring", view_tostring}, {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, META, 0);
    lua_pushliteral(L, "read-only receipt");
    lua_setfield(L, -2, "__metatable");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &VIEW_META_KEY);

    mcpp_lua_sections_install(L);

    lua_createtable(L, 2, 0);
    lua_newtable(L);
    lua_rawseti(L, -2, 1);
    lua_newtable(L);
    lua_rawseti(L, -2, 2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &SECTIONS_KEY);

    lua_createtable(L, 2, 0);
    for (int which = 0; which < 2; which++) {
        new_view(L, which, "", 0);
        lua_rawseti(L, -2, which + 1);
    }
    lua_rawsetp(L, LUA_REGISTRYINDEX, &ROOTS_KEY);
}

/* ---- rule calls ------------------------------------------------------------------ */

/* Reads the rule's two results (at -2 and -1) without allocating in Lua. */
static int read_outcome(lua_State *L, const lua_rule *rule, mcpp_rule_outcome *outcome, char *reason,
                        size_t reason_cap)
{
    int vt = lua_type(L, -2);
    const char *verdict = vt == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (vt == LUA_TNIL || (verdict && strcmp(verdict, "pass") == 0))
        *outcome = MCPP_RULE_PASS;
    else if (verdict && strcmp(verdict, "qualify") == 0)
        *outcome = MCPP_RULE_QUALIFY;
    else if (verdict && strcmp(verdict, "mismatch") == 0)
        *outcome = MCPP_RULE_MISMATCH;
    else if (verdict && strcmp(verdict, "insufficient") == 0)
        *outcome = MCPP_RULE_INSUFFICIENT;
    else
        return mcpp_error_set(MCPP_EPOLICY, "policy", rule->file, NULL, 0, 0,
                              "rule '%s' returned %s%.60s%s; expected nil, \"qualify\", \"mismatch\" or "
                              "\"insufficient\"",
                              rule->name, verdict ? "\"" : "a ", verdict ? verdict : lua_typename(L, vt),
                              verdict ? "\"" : "");
    if (!reason || reason_cap == 0 || *outcome == MCPP_RULE_PASS)
        return MCPP_OK;
    int rt = lua_type(L, -1);
    if (rt == LUA_TSTRING)
        snprintf(reason, reason_cap, "%s", lua_tostring(L, -1));
    else if (rt == LUA_TNUMBER)
        mcpp_snprintf_c(reason, reason_cap, "%.14g", (double)lua_tonumber(L, -1));
    else if (rt == LUA_TNIL)
        snprintf(reason, reason_cap, "%s", rule->name);
    else
        return mcpp_error_set(MCPP_EPOLICY, "policy", rule->file, NULL, 0, 0,
                              "rule '%s' gave a %s as its reason; expected a string", rule->name,
                              lua_typename(L, rt));
    return MCPP_OK;
}

/* Protected: runs chunk (1) in a fresh environment, takes rule number slot
 * (2) from the `rules` of the table it returns and calls it with (3, 4): the
 * two views for `fn`; for `each`, one view and its side (0 base, 1 candidate),
 * passed on by name. Returns the rule's two results. */
static int call_fresh_rule(lua_State *L)
{
    lua_Integer slot = lua_tointeger(L, 2);
    lua_pushvalue(L, 1);
    mcpp_lua_sandbox_push_env(L);
    lua_setupvalue(L, -2, 1);
    lua_call(L, 0, 1);
    if (lua_type(L, -1) != LUA_TTABLE)
        return luaL_error(L, "the policy file returned a %s when run again", luaL_typename(L, -1));
    lua_pushliteral(L, "rules");
    if (lua_rawget(L, -2) != LUA_TTABLE || lua_rawgeti(L, -1, slot) == LUA_TNIL)
        return luaL_error(L, "the policy file returned no rule %d when run again", (int)slot);
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushstring(L, lua_type(L, 4) == LUA_TNUMBER ? "each" : "fn");
        lua_rawget(L, -2);
    }
    if (lua_type(L, -1) != LUA_TFUNCTION)
        return luaL_error(L, "rule %d is not a function when the policy file is run again", (int)slot);
    lua_pushvalue(L, 3);
    if (lua_type(L, 4) == LUA_TNUMBER)
        lua_pushstring(L, lua_tointeger(L, 4) ? "candidate" : "base");
    else
        lua_pushvalue(L, 4);
    lua_call(L, 2, 2);
    return 2;
}

/* Pushes call_fresh_rule and its four arguments for `rule`: both views, or
 * for an `each` rule the view of side `which` (0 base, 1 candidate) and
 * `which`. Raw reads of our own registry tables: nothing here allocates
 * inside Lua. */
static void push_rule_call(lua_State *L, const lua_rule *rule, int which)
{
    lua_pushcfunction(L, call_fresh_rule);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &mcpp_lua_rules_key);
    lua_rawgeti(L, -1, rule->index);
    lua_remove(L, -2);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &mcpp_lua_rule_slots_key);
    lua_rawgeti(L, -1, rule->index);
    lua_remove(L, -2);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &ROOTS_KEY);
    if (rule->each) {
        lua_rawgeti(L, -1, which + 1);
        lua_remove(L, -2);
        lua_pushinteger(L, which);
        return;
    }
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    lua_remove(L, -3);
}

/*
 * Calls one rule. Only the lua_pcall runs policy code; what surrounds it
 * reads our own registry tables and the results with calls that never
 * allocate, so they cannot raise outside protected mode.
 */
static int lua_rule_run(void *userdata, const mcpp_receipt *base, const mcpp_receipt *cand,
                        mcpp_rule_outcome *outcome, char *reason, size_t reason_cap)
{
    lua_rule *rule = userdata;
    mcpp_lua_engine *e = rule->engine;
    mcpp_rule_outcome result = MCPP_RULE_PASS;
    if (outcome)
        *outcome = MCPP_RULE_PASS;
    if (reason && reason_cap)
        reason[0] = '\0';
    pthread_mutex_lock(&e->mutex);
    lua_State *L = e->sb.L;
    lua_settop(L, 0);
    mcpp_lua_sandbox_settle(&e->sb);
    mcpp_lua_sandbox_begin_run(&e->sb, rule->name);
    e->sb.views[0] = base;
    e->sb.views[1] = cand;
    int rc = MCPP_OK;
    /* a pair rule runs once; an `each` rule on the base, then on the
     * candidate unless the base already decided */
    for (int which = 0; rc == MCPP_OK && result == MCPP_RULE_PASS && which < (rule->each ? 2 : 1); which++) {
        if (which) {
            lua_settop(L, 0);
            mcpp_lua_sandbox_settle(&e->sb);
            mcpp_lua_sandbox_begin_run(&e->sb, rule->name);
        }
        push_rule_call(L, rule, which);
        int status = lua_pcall(L, 4, 2, 0);
        mcpp_lua_sandbox_end_run(&e->sb);
        if (status != LUA_OK)
            rc = mcpp_lua_sandbox_error(&e->sb, status, rule->file);
        else if (mcpp_lua_sandbox_limit_hit(&e->sb))
            rc = mcpp_lua_sandbox_error(&e->sb, LUA_ERRRUN, rule->file);
        else
            rc = read_outcome(L, rule, &result, reason, reason_cap);
    }
    e->sb.views[0] = NULL;
    e->sb.views[1] = NULL;
    lua_settop(L, 0);
    pthread_mutex_unlock(&e->mutex);
    if (rc == MCPP_OK && outcome)
        *outcome = result;
    return rc;
}

void mcpp_policy_lua_reset_budget(const mcpp_policy *policy)
{
    for (size_t i = 0; policy && i < policy->n_rules; i++) {
        if (policy->rules[i].fn != lua_rule_run)
            continue;
        mcpp_lua_engine *e = ((lua_rule *)policy->rules[i].userdata)->engine;
        pthread_mutex_lock(&e->mutex);
        mcpp_lua_sandbox_reset_total(&e->sb);
        pthread_mutex_unlock(&e->mutex);
    }
}

/* ---- lifetime ------------------------------------------------------------------- */

void mcpp_lua_engine_release(mcpp_lua_engine *engine)
{
    if (!engine)
        return;
    pthread_mutex_lock(&engine->mutex);
    int last = --engine->refs == 0;
    pthread_mutex_unlock(&engine->mutex);
    if (!last)
        return;
    mcpp_lua_sandbox_close(&engine->sb);
    pthread_mutex_destroy(&engine->mutex);
    free(engine);
}

static void lua_rule_free(void *userdata)
{
    lua_rule *rule = userdata;
    if (!rule)
        return;
    mcpp_lua_engine *engine = rule->engine;
    free(rule->file);
    free(rule);
    mcpp_lua_engine_release(engine);
}

int mcpp_lua_rules_register(mcpp_policy *policy, mcpp_lua_engine *engine, int n_rules)
{
    lua_State *L = engine->sb.L;
    /* Raw reads of our own tables: nothing here allocates inside Lua. */
    lua_rawgetp(L, LUA_REGISTRYINDEX, &mcpp_lua_rule_each_key);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &mcpp_lua_rule_names_key);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &mcpp_lua_rule_files_key);
    int rc = MCPP_OK;
    for (int i = 1; i <= n_rules && rc == MCPP_OK; i++) {
        lua_rawgeti(L, -3, i);
        int each = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_rawgeti(L, -2, i);
        lua_rawgeti(L, -2, i);
        const char *name = lua_tostring(L, -2);
        const char *file = lua_tostring(L, -1);
        size_t nlen = strlen(name);
        lua_rule *rule = malloc(sizeof *rule + nlen + 1);
        char *file_copy = rule ? malloc(strlen(file) + 1) : NULL;
        if (!rule || !file_copy) {
            free(rule);
            lua_pop(L, 2);
            rc = mcpp_error_nomem();
            break;
        }
        strcpy(file_copy, file);
        memcpy(rule->name, name, nlen + 1);
        rule->file = file_copy;
        rule->engine = engine;
        rule->index = i;
        rule->each = each;
        lua_pop(L, 2);
        pthread_mutex_lock(&engine->mutex);
        engine->refs++;
        pthread_mutex_unlock(&engine->mutex);
        rc = mcpp_policy_add_rule(policy, rule->name, lua_rule_run, rule, lua_rule_free);
        if (rc == MCPP_OK)
            policy->rules[policy->n_rules - 1].per_run = each;
    }
    lua_pop(L, 3);
    return rc;
}
