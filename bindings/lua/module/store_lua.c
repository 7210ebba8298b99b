/*
 * store_lua.c — mr.store(location): a receipt store from Lua, with the
 * methods of Python's mcpp_receipts.Store (docs/store.md, "Lua"):
 *
 *   local s <close> = mr.store("runs.db")     -- or "postgresql://host/db?..."
 *   s:add(receipts)            -> {added, unchanged, skipped_removed}
 *                                 (a receipt, a list of them, or a file or
 *                                 directory path; one transaction)
 *   s:remove(id, reason)
 *   s:query([lane | {lane=, where=, since=, until=, limit=, newest=}]) -> list
 *                                 (where: "column=value,..." or {column=value})
 *   s:count() -> live, removed     #s -> live
 *   s:removed() -> list of {id, reason, removed_at}
 *   s:check([repair]) -> report   (raises a "consistency" error with the
 *                                 report when the store is damaged)
 *   s:export([format [, query]]) -> text   ("jsonl", "json" or "yaml")
 *   s:frontier([policy [, query]]) -> table   as mr.frontier
 *   s:claim(selector, value [, policy [, metric [, query]]]) -> table
 *   s:lane_history(receipts [, runs]) -> list  (the newest runs of their lanes)
 *   s:gate(baseline, candidate [, policy [, {history=N, metric=}]]) -> table
 *                                 (baseline, candidate: where= selections)
 *   s:compare(base_id, cand_id [, policy]) -> table   as mr.compare
 *   s:history([lane [, metric [, {penalty=, min_change=, min_segment=}]]])
 *                              -> table: mcpp_history_render's JSON + "text"
 *   s:site(dir [, {title=, commit_url=}]) -> {pages, written, unchanged, removed}
 *   s:close()                     (also __close and __gc); s.path
 *
 * The store opens on first use, writable when it can be (an older schema is
 * then migrated, and lane summaries rebuilt for a frontier are saved),
 * read-only otherwise; only add creates a missing SQLite file. Receipts the
 * store hands out belong to Lua; on any failure nothing C allocated is left
 * behind (guards with __gc hold it while Lua values are made).
 */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "module_lua.h"
#include "store_lua.h"

#define STORE_MT "mcpp_receipts.store"
#define BATCH_MT "mcpp_receipts.store_batch"
#define SET_MT "mcpp_receipts.store_set"

typedef struct lua_store {
    mcpp_store *store;
    int writable;
    int closed;
    const char *shown; /* the location without a password: messages, tostring */
    char location[];   /* as given to mr.store, then `shown` */
} lua_store;

/* ---- guards: C memory held while Lua values are made -------------------------------- */

/* Receipts from a query, owned until handed to Lua one by one. */
typedef struct receipt_batch {
    mcpp_receipt **items;
    size_t n, cap, taken; /* [taken, n) are still the batch's */
} receipt_batch;

static int batch_gc(lua_State *L)
{
    receipt_batch *b = luaL_checkudata(L, 1, BATCH_MT);
    for (size_t i = b->taken; i < b->n; i++)
        mcpp_receipt_free(b->items[i]);
    free(b->items);
    memset(b, 0, sizeof *b);
    return 0;
}

static receipt_batch *new_batch(lua_State *L)
{
    receipt_batch *b = lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, BATCH_MT);
    return b;
}

static int batch_take(void *ctx, mcpp_receipt *receipt)
{
    receipt_batch *b = ctx;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        mcpp_receipt **grown = realloc(b->items, cap * sizeof *grown);
        if (!grown) {
            mcpp_receipt_free(receipt);
            return MCPP_ENOMEM;
        }
        b->items = grown;
        b->cap = cap;
    }
    b->items[b->n++] = receipt;
    return MCPP_OK;
}

static const mcpp_receipt *const *batch_items(const receipt_batch *b) { return (const mcpp_receipt *const *)b->items; }

/* Pushes the batch's receipts as a list of receipt userdata. */
static void push_batch(lua_State *L, receipt_batch *b)
{
    lua_createtable(L, (int)b->n, 0);
    for (size_t i = b->taken; i < b->n; i++) {
        module_push_receipt(L, b->items[i]);
        b->taken = i + 1; /* the userdata owns it now */
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static int set_gc(lua_State *L)
{
    mcpp_receipt_set **set = luaL_checkudata(L, 1, SET_MT);
    mcpp_receipt_set_free(*set);
    *set = NULL;
    return 0;
}

/* ---- the store handle --------------------------------------------------------------- */

static lua_store *check_store(lua_State *L)
{
    lua_store *s = luaL_checkudata(L, 1, STORE_MT);
    if (s->closed)
        module_raise_error(L, MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, "store is closed", NULL, 0, 0, NULL);
    return s;
}

typedef enum store_need { NEED_READ, NEED_WRITE, NEED_CREATE } store_need;

/* The open handle, opened (again) as `need` requires: reading takes any
 * handle, else opens writable when it can, read-only otherwise; writing
 * needs a writable one; only an add creates the store. */
static mcpp_store *open_store(lua_State *L, lua_store *s, store_need need)
{
    if (s->store && (need == NEED_READ || s->writable))
        return s->store;
    mcpp_store_close(s->store);
    s->store = NULL;
    s->writable = 0;
    if (mcpp_store_open(&s->store, s->location, need == NEED_CREATE ? MCPP_STORE_CREATE : 0) == MCPP_OK) {
        s->writable = 1;
        return s->store;
    }
    s->store = NULL;
    if (need != NEED_READ || mcpp_store_open(&s->store, s->location, MCPP_STORE_READ_ONLY) != MCPP_OK) {
        s->store = NULL;
        module_raise_last_error(L);
    }
    return s->store;
}

int mcpp_lua_store_new(lua_State *L)
{
    size_t len;
    const char *location = luaL_checklstring(L, 1, &len);
    luaL_argcheck(L, len > 0 && strlen(location) == len, 1, "a SQLite path or a postgresql:// URL");
    char *shown = NULL; /* what messages and tostring show: no password (the library's rule) */
    if (mcpp_store_location_shown(&shown, location) != MCPP_OK)
        return module_raise_last_error(L);
    size_t shown_len = strlen(shown);
    lua_store *s = lua_newuserdatauv(L, sizeof *s + len + 1 + shown_len + 1, 0);
    s->store = NULL;
    s->writable = 0;
    s->closed = 0;
    memcpy(s->location, location, len + 1);
    memcpy(s->location + len + 1, shown, shown_len + 1);
    s->shown = s->location + len + 1;
    mcpp_free(shown);
    luaL_setmetatable(L, STORE_MT);
    return 1;
}

static int store_close(lua_State *L)
{
    lua_store *s = luaL_checkudata(L, 1, STORE_MT);
    mcpp_store_close(s->store);
    s->store = NULL;
    s->closed = 1;
    return 0;
}

/* ---- queries ------------------------------------------------------------------------ */

/* `where` as the store's "column=value,..." text: a string as it is, a table
 * {column = value} joined (the terms all hold, so their order is free). The
 * text is left on the stack. */
static const char *where_text(lua_State *L, int idx)
{
    if (lua_isnoneornil(L, idx)) {
        lua_pushnil(L);
        return NULL;
    }
    if (lua_type(L, idx) == LUA_TSTRING) {
        lua_pushvalue(L, idx);
        return lua_tostring(L, -1);
    }
    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "where: a string \"column=value,...\" or a table {column = value} expected, got %s",
                   luaL_typename(L, idx));
    idx = lua_absindex(L, idx);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int first = 1;
    for (lua_pushnil(L); lua_next(L, idx);) {
        if (lua_type(L, -2) != LUA_TSTRING || (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER))
            luaL_error(L, "where: each term is column = value (strings)");
        /* the buffer may sit on the stack: take copies of key and value below it */
        size_t klen, vlen;
        const char *k = lua_tolstring(L, -2, &klen);
        lua_pushvalue(L, -1);
        const char *v = lua_tolstring(L, -1, &vlen);
        if (!first)
            luaL_addchar(&b, ',');
        first = 0;
        luaL_addlstring(&b, k, klen);
        luaL_addchar(&b, '=');
        luaL_addlstring(&b, v, vlen);
        lua_pop(L, 2);
    }
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

static const char *opt_field_string(lua_State *L, int table, const char *name)
{
    lua_getfield(L, table, name); /* left on the stack: the table keeps it alive anyway */
    if (lua_isnil(L, -1))
        return NULL;
    if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "%s: a string expected, got %s", name, luaL_typename(L, -1));
    return lua_tostring(L, -1);
}

/* Refuses keys of an options table that `known` does not name (a typo would
 * otherwise select everything). */
static void check_keys(lua_State *L, int table, const char *const *known, const char *what)
{
    for (lua_pushnil(L); lua_next(L, table); lua_pop(L, 1)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        int ok = 0;
        for (const char *const *k = known; key && *k && !ok; k++)
            ok = strcmp(key, *k) == 0;
        if (!ok) {
            lua_pushvalue(L, -2);
            luaL_error(L, "%s: unknown key '%s'", what, luaL_tolstring(L, -1, NULL));
        }
    }
}

/* A query at `idx`: nil (every receipt), a lane selector, or a table
 * {lane, where, since, until, limit, newest}. Its strings stay on the stack. */
static mcpp_store_query check_query(lua_State *L, int idx)
{
    static const char *const KEYS[] = {"lane", "where", "since", "until", "limit", "newest", NULL};
    mcpp_store_query q = {NULL, NULL, NULL, NULL, 0, 0};
    idx = lua_absindex(L, idx);
    if (lua_isnoneornil(L, idx))
        return q;
    if (lua_type(L, idx) == LUA_TSTRING) {
        q.lane = lua_tostring(L, idx);
        return q;
    }
    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L,
                   "query: a lane selector or a table {lane=, where=, since=, until=, limit=, newest=} expected, "
                   "got %s",
                   luaL_typename(L, idx));
    check_keys(L, idx, KEYS, "query");
    q.lane = opt_field_string(L, idx, "lane");
    q.since = opt_field_string(L, idx, "since");
    q.until = opt_field_string(L, idx, "until");
    lua_getfield(L, idx, "where");
    q.where = where_text(L, -1);
    if (lua_getfield(L, idx, "limit") != LUA_TNIL) {
        lua_Integer limit = luaL_checkinteger(L, -1);
        if (limit < 0)
            luaL_error(L, "query: limit must be >= 0");
        q.limit = (size_t)limit;
    }
    lua_getfield(L, idx, "newest");
    q.newest = lua_toboolean(L, -1);
    return q;
}

/* The receipts `q` selects, in a batch left on the stack. */
static receipt_batch *query_batch(lua_State *L, mcpp_store *store, const mcpp_store_query *q)
{
    receipt_batch *b = new_batch(L);
    if (mcpp_store_query_each(store, q, batch_take, b) != MCPP_OK)
        module_raise_last_error(L);
    return b;
}

static int store_query(lua_State *L)
{
    lua_store *s = check_store(L);
    mcpp_store_query q = check_query(L, 2);
    push_batch(L, query_batch(L, open_store(L, s, NEED_READ), &q));
    return 1;
}

/* ---- writing ------------------------------------------------------------------------ */

/* Pushes {names[i] = counts[i]}: what an add or a site did. */
static int push_counts(lua_State *L, const char *const *names, const size_t *counts)
{
    lua_newtable(L);
    for (size_t i = 0; names[i]; i++) {
        lua_pushinteger(L, (lua_Integer)counts[i]);
        lua_setfield(L, -2, names[i]);
    }
    return 1;
}

/* The receipts of a file or directory, in a set (guarded on the stack); the
 * first file that fails raises its error, as Python's Store.add does. */
static const mcpp_receipt *const *load_path(lua_State *L, const char *path, size_t *n)
{
    mcpp_receipt_set **set = lua_newuserdatauv(L, sizeof *set, 0);
    *set = NULL;
    luaL_setmetatable(L, SET_MT);
    if (mcpp_receipt_set_new(set) != MCPP_OK || mcpp_receipt_set_add_path(*set, path, NULL) != MCPP_OK)
        module_raise_last_error(L);
    if (mcpp_receipt_set_failure_count(*set))
        module_raise_error(L, mcpp_receipt_set_failure_code(*set, 0), MCPP_ERROR_KIND_NONE,
                           mcpp_receipt_set_failure_message(*set, 0), mcpp_receipt_set_failure_path(*set, 0), 0, 0,
                           NULL);
    *n = mcpp_receipt_set_count(*set);
    return mcpp_receipt_set_items(*set);
}

static int store_add(lua_State *L)
{
    lua_store *s = check_store(L);
    size_t n = 0;
    const mcpp_receipt *const *list;
    const mcpp_receipt *one;
    if (lua_type(L, 2) == LUA_TSTRING) {
        list = load_path(L, lua_tostring(L, 2), &n);
    } else if (luaL_testudata(L, 2, RECEIPT_MT)) {
        one = module_check_receipt(L, 2)->receipt;
        list = &one;
        n = 1;
    } else {
        list = module_check_receipt_list(L, 2, &n);
    }
    mcpp_store_add_result res = {0, 0, 0};
    if (mcpp_store_add(&res, open_store(L, s, NEED_CREATE), list, n) != MCPP_OK)
        return module_raise_last_error(L);
    static const char *const NAMES[] = {"added", "unchanged", "skipped_removed", NULL};
    const size_t counts[] = {res.added, res.unchanged, res.skipped_removed};
    return push_counts(L, NAMES, counts);
}

static int store_remove(lua_State *L)
{
    lua_store *s = check_store(L);
    const char *id = luaL_checkstring(L, 2), *reason = luaL_checkstring(L, 3);
    if (mcpp_store_remove(open_store(L, s, NEED_WRITE), id, reason) != MCPP_OK)
        return module_raise_last_error(L);
    return 0;
}

/* ---- counts and text ---------------------------------------------------------------- */

static int store_count(lua_State *L)
{
    lua_store *s = check_store(L);
    size_t live = 0, removed = 0;
    if (mcpp_store_count(&live, &removed, open_store(L, s, NEED_READ)) != MCPP_OK)
        return module_raise_last_error(L);
    lua_pushinteger(L, (lua_Integer)live);
    lua_pushinteger(L, (lua_Integer)removed);
    return 2;
}

static int store_len(lua_State *L)
{
    store_count(L);
    lua_pop(L, 1);
    return 1;
}

/* Pushes `text` (the library's; freed here) as a Lua string, or raises the
 * library's error for `rc`. */
static int push_text(lua_State *L, int rc, char *text)
{
    if (rc != MCPP_OK) {
        mcpp_free(text);
        return module_raise_last_error(L);
    }
    lua_pushstring(L, text);
    mcpp_free(text);
    return 1;
}

static int store_export(lua_State *L)
{
    lua_store *s = check_store(L);
    const char *format = luaL_optstring(L, 2, "jsonl");
    mcpp_store_query q = check_query(L, 3);
    mcpp_store *store = open_store(L, s, NEED_READ);
    char *text = NULL;
    int rc = mcpp_store_export(&text, store, &q, format);
    return push_text(L, rc, text);
}

static int store_removed(lua_State *L)
{
    lua_store *s = check_store(L);
    mcpp_store *store = open_store(L, s, NEED_READ);
    char *text = NULL;
    int rc = mcpp_store_removed_render(&text, store);
    push_text(L, rc, text);
    const char *lines = lua_tostring(L, -1);
    lua_newtable(L);
    lua_Integer i = 0;
    for (const char *line = lines; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        cJSON *row = len ? cJSON_ParseWithLength(line, len) : NULL;
        if (row) {
            module_push_json(L, row);
            cJSON_Delete(row);
            lua_rawseti(L, -2, ++i);
        }
        line += len + (end ? 1 : 0);
    }
    return 1;
}

/* s:check([repair]): the report, or a "consistency" error carrying it. */
static int store_check(lua_State *L)
{
    lua_store *s = check_store(L);
    int repair = lua_toboolean(L, 2);
    mcpp_store *store = open_store(L, s, repair ? NEED_WRITE : NEED_READ);
    char *report = NULL;
    int rc = repair ? mcpp_store_repair(&report, store) : mcpp_store_check(&report, store);
    if (rc == MCPP_OK || !report)
        return push_text(L, rc, report);
    lua_pushfstring(L, "%s: the store is damaged:\n%s", s->shown, report);
    mcpp_free(report);
    return module_raise_error(L, rc, MCPP_ERROR_KIND_CONSISTENCY, lua_tostring(L, -1), s->shown, 0, 0, NULL);
}

/* ---- analyses ----------------------------------------------------------------------- */

/* Pushes the result table of `object` (freed here by `free_fn`), or raises. */
static int push_result(lua_State *L, render_fn render, void *object, void (*free_fn)(void *))
{
    int rc = module_push_rendered(L, render, object);
    free_fn(object);
    return rc == MCPP_OK ? 1 : module_raise_last_error(L);
}

static void free_frontier(void *f) { mcpp_frontier_free(f); }
static void free_claim(void *r) { mcpp_claim_result_free(r); }
static void free_gate(void *r) { mcpp_gate_report_free(r); }
static void free_comparison(void *c) { mcpp_comparison_free(c); }
static void free_history(void *h) { mcpp_history_free(h); }

static int render_history(char **out, const void *h, int format)
{
    return mcpp_history_render(out, h, (mcpp_output_format)format);
}

/* s:frontier([policy [, query]]): over the whole store under the default
 * policy it comes from the lane summaries the store keeps, without loading
 * the receipts (the same frontier). */
static int store_frontier(lua_State *L)
{
    lua_store *s = check_store(L);
    const mcpp_policy *policy = module_opt_policy(L, 2);
    mcpp_frontier *f = NULL;
    int rc;
    if (!policy && lua_isnoneornil(L, 3)) {
        rc = mcpp_store_frontier(&f, open_store(L, s, NEED_READ), NULL);
    } else {
        mcpp_store_query q = check_query(L, 3);
        receipt_batch *b = query_batch(L, open_store(L, s, NEED_READ), &q);
        module_check_metric_stated(L, NULL, policy, batch_items(b), b->n, NULL,
                                   0); /* a policy file's, as mr.frontier */
        rc = mcpp_frontier_build(&f, policy, batch_items(b), b->n);
    }
    if (rc != MCPP_OK)
        return module_raise_last_error(L);
    return push_result(L, module_render_frontier, f, free_frontier);
}

static int store_claim(lua_State *L)
{
    lua_store *s = check_store(L);
    const char *selector = luaL_checkstring(L, 2);
    double value = luaL_checknumber(L, 3);
    const mcpp_policy *policy = module_opt_policy(L, 4);
    const char *metric = luaL_optstring(L, 5, NULL);
    mcpp_store_query q = check_query(L, 6);
    receipt_batch *b = query_batch(L, open_store(L, s, NEED_READ), &q);
    mcpp_claim_result *r = NULL;
    if (mcpp_claim_check(&r, policy, batch_items(b), b->n, selector, metric, value) != MCPP_OK)
        return module_raise_last_error(L);
    return push_result(L, module_render_claim, r, free_claim);
}

/* Appends to `out` the newest `runs` stored receipts of each lane (default
 * policy, first seen first) of receipts[0..n). */
static void lane_history(lua_State *L, mcpp_store *store, const mcpp_receipt *const *receipts, size_t n, size_t runs,
                         receipt_batch *out)
{
    lua_newtable(L); /* the short keys seen */
    int seen = lua_gettop(L);
    for (size_t i = 0; i < n; i++) {
        char *key = NULL, short_key[32];
        int rc = mcpp_lane_key(&key, NULL, receipts[i]);
        if (rc == MCPP_OK)
            rc = mcpp_lane_key_short(short_key, sizeof short_key, key);
        mcpp_free(key);
        if (rc != MCPP_OK)
            module_raise_last_error(L);
        if (lua_getfield(L, seen, short_key) != LUA_TNIL) {
            lua_pop(L, 1);
            continue;
        }
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
        lua_setfield(L, seen, short_key);
        mcpp_store_query q = {short_key, NULL, NULL, NULL, runs, 1};
        if (mcpp_store_query_each(store, &q, batch_take, out) != MCPP_OK)
            module_raise_last_error(L);
    }
    lua_pop(L, 1);
}

static int store_lane_history(lua_State *L)
{
    lua_store *s = check_store(L);
    size_t n = 0;
    const mcpp_receipt **list = module_check_receipt_list(L, 2, &n);
    lua_Integer runs = luaL_optinteger(L, 3, 20);
    luaL_argcheck(L, runs > 0, 3, "runs must be > 0");
    receipt_batch *b = new_batch(L);
    lane_history(L, open_store(L, s, NEED_READ), list, n, (size_t)runs, b);
    push_batch(L, b);
    return 1;
}

/* s:gate(baseline, candidate [, policy [, {history = N, metric = NAME}]]):
 * the receipts where=baseline against those where=candidate; history=N adds
 * the newest N stored runs of each candidate's lane as the run-to-run noise
 * source (Python's Store.gate). */
static int store_gate(lua_State *L)
{
    static const char *const KEYS[] = {"history", "metric", NULL};
    lua_store *s = check_store(L);
    lua_Integer history = 0;
    lua_settop(L, 5);
    if (lua_isnil(L, 5)) {
        lua_pushnil(L); /* index 6: no metric */
    } else {
        luaL_checktype(L, 5, LUA_TTABLE);
        check_keys(L, 5, KEYS, "gate");
        if (lua_getfield(L, 5, "history") != LUA_TNIL)
            history = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        luaL_argcheck(L, history >= 0, 5, "history must be >= 0");
        lua_getfield(L, 5, "metric"); /* index 6 */
    }
    const mcpp_policy *given = module_opt_policy(L, 4);
    const mcpp_policy *policy = module_policy_for_metric(L, given, 6);
    mcpp_store *store = open_store(L, s, NEED_READ);
    mcpp_store_query qb = {NULL, where_text(L, 2), NULL, NULL, 0, 0};
    mcpp_store_query qc = {NULL, where_text(L, 3), NULL, NULL, 0, 0};
    luaL_argcheck(L, qb.where, 2, "a where= selection of the baselines");
    luaL_argcheck(L, qc.where, 3, "a where= selection of the candidates");
    receipt_batch *base = query_batch(L, store, &qb), *cand = query_batch(L, store, &qc);
    receipt_batch *earlier = new_batch(L);
    if (history > 0)
        lane_history(L, store, batch_items(cand), cand->n, (size_t)history, earlier);
    /* stated on either side, or "did you mean", as mr.gate */
    module_check_metric_stated(L, lua_tostring(L, 6), given, batch_items(cand), cand->n, batch_items(base), base->n);
    mcpp_gate_report *r = NULL;
    if (mcpp_gate_run_with_history(&r, policy, batch_items(base), base->n, batch_items(cand), cand->n,
                                   batch_items(earlier), earlier->n) != MCPP_OK)
        return module_raise_last_error(L);
    return push_result(L, module_render_gate, r, free_gate);
}

/* The stored receipt `id` (a batch of one on the stack), or a "not found" error. */
static const mcpp_receipt *stored(lua_State *L, lua_store *s, mcpp_store *store, const char *id)
{
    lua_pushfstring(L, "id=%s", id);
    mcpp_store_query q = {NULL, lua_tostring(L, -1), NULL, NULL, 0, 0};
    receipt_batch *b = query_batch(L, store, &q);
    if (!b->n)
        module_raise_error(L, MCPP_ENOTFOUND, MCPP_ERROR_KIND_NONE,
                           lua_pushfstring(L, "%s: no stored receipt has id '%s'", s->shown, id), s->shown, 0, 0, "id");
    return b->items[0];
}

static int store_compare(lua_State *L)
{
    lua_store *s = check_store(L);
    const char *base_id = luaL_checkstring(L, 2), *cand_id = luaL_checkstring(L, 3);
    const mcpp_policy *policy = module_opt_policy(L, 4);
    mcpp_store *store = open_store(L, s, NEED_READ);
    const mcpp_receipt *base = stored(L, s, store, base_id), *cand = stored(L, s, store, cand_id);
    mcpp_comparison *c = NULL;
    if (mcpp_compare(&c, policy, base, cand) != MCPP_OK)
        return module_raise_last_error(L);
    return push_result(L, module_render_comparison, c, free_comparison);
}

static int store_history(lua_State *L)
{
    static const char *const KEYS[] = {"penalty", "min_change", "min_segment", NULL};
    lua_store *s = check_store(L);
    const char *lane = luaL_optstring(L, 2, NULL), *metric = luaL_optstring(L, 3, NULL);
    mcpp_changepoint_settings cfg;
    mcpp_changepoint_settings_default(&cfg);
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        check_keys(L, 4, KEYS, "history");
        if (lua_getfield(L, 4, "penalty") != LUA_TNIL)
            cfg.penalty_per_log_n = luaL_checknumber(L, -1);
        if (lua_getfield(L, 4, "min_change") != LUA_TNIL)
            cfg.min_rel_change = luaL_checknumber(L, -1);
        if (lua_getfield(L, 4, "min_segment") != LUA_TNIL) {
            lua_Integer m = luaL_checkinteger(L, -1);
            cfg.min_segment = m > 0 ? (size_t)m : 1;
        }
    }
    mcpp_history *h = NULL;
    if (mcpp_history_build(&h, open_store(L, s, NEED_READ), lane, metric, &cfg) != MCPP_OK)
        return module_raise_last_error(L);
    return push_result(L, render_history, h, free_history);
}

static int store_site(lua_State *L)
{
    static const char *const KEYS[] = {"title", "commit_url", NULL};
    lua_store *s = check_store(L);
    const char *dir = luaL_checkstring(L, 2);
    mcpp_site_options options = MCPP_SITE_OPTIONS_INIT;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        check_keys(L, 3, KEYS, "site");
        options.title = opt_field_string(L, 3, "title");
        options.commit_url = opt_field_string(L, 3, "commit_url");
    }
    mcpp_site_result res = {0, 0, 0, 0};
    if (mcpp_site_write(&res, open_store(L, s, NEED_READ), dir, &options) != MCPP_OK)
        return module_raise_last_error(L);
    static const char *const NAMES[] = {"pages", "written", "unchanged", "removed", NULL};
    const size_t counts[] = {res.pages, res.written, res.unchanged, res.removed};
    return push_counts(L, NAMES, counts);
}

/* ---- the metatables ------------------------------------------------------------------ */

static const luaL_Reg STORE_METHODS[] = {{"add", store_add},         {"remove", store_remove},
                                         {"query", store_query},     {"count", store_count},
                                         {"removed", store_removed}, {"check", store_check},
                                         {"export", store_export},   {"frontier", store_frontier},
                                         {"claim", store_claim},     {"lane_history", store_lane_history},
                                         {"gate", store_gate},       {"compare", store_compare},
                                         {"history", store_history}, {"site", store_site},
                                         {"close", store_close},     {NULL, NULL}};

static int store_index(lua_State *L)
{
    lua_store *s = luaL_checkudata(L, 1, STORE_MT);
    const char *key = luaL_checkstring(L, 2);
    for (const luaL_Reg *m = STORE_METHODS; m->name; m++)
        if (strcmp(key, m->name) == 0) {
            lua_pushcfunction(L, m->func);
            return 1;
        }
    if (strcmp(key, "path") == 0)
        lua_pushstring(L, s->location);
    else
        lua_pushnil(L);
    return 1;
}

static int store_tostring(lua_State *L)
{
    lua_store *s = luaL_checkudata(L, 1, STORE_MT);
    char *shown = NULL;
    if (mcpp_output_escape(&shown, s->shown, MCPP_OUTPUT_TEXT) != MCPP_OK)
        return module_raise_last_error(L);
    lua_pushliteral(L, "mcpp_receipts.store ");
    lua_pushstring(L, shown); /* a Lua copy; the library's text is freed next */
    mcpp_free(shown);
    lua_pushstring(L, s->closed ? " (closed)" : "");
    lua_concat(L, 3);
    return 1;
}

void mcpp_lua_store_install(lua_State *L)
{
    static const luaL_Reg STORE_META[] = {{"__index", store_index}, {"__tostring", store_tostring},
                                          {"__len", store_len},     {"__gc", store_close},
                                          {"__close", store_close}, {NULL, NULL}};
    static const luaL_Reg BATCH_META[] = {{"__gc", batch_gc}, {NULL, NULL}};
    static const luaL_Reg SET_META[] = {{"__gc", set_gc}, {NULL, NULL}};
    module_new_metatable(L, STORE_MT, STORE_META);
    module_new_metatable(L, BATCH_MT, BATCH_META);
    module_new_metatable(L, SET_MT, SET_META);
}
