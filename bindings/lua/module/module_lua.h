/*
 * module_lua.h — what the files of the Lua module share (mcpp_receipts_lua.c
 * defines it): its error objects, receipt and policy arguments, and result
 * tables made from the library's JSON renderings. store_lua.c uses them so
 * that mr.store(...) raises, takes and answers exactly as the rest of the
 * module does.
 */
#ifndef MCPP_MODULE_LUA_H
#define MCPP_MODULE_LUA_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <lauxlib.h>
#include <lua.h>

#include "mcpp_receipts.h"

#define RECEIPT_MT "mcpp_receipts.receipt"

typedef struct lua_receipt {
    mcpp_receipt *receipt;
} lua_receipt;

/* Raises the module's error object {kind, code, status, message, path, line,
 * column, field} (mcpp_receipts_lua.c, top). Does not return. */
int module_raise_error(lua_State *L, int code, mcpp_error_kind kind, const char *message, const char *file, int line,
                       int column, const char *field);
/* Raises the library's last error as an error object. Does not return. */
int module_raise_last_error(lua_State *L);

/* The open receipt userdata at `index` (a closed one raises). */
lua_receipt *module_check_receipt(lua_State *L, int index);
/* Pushes `receipt` as a receipt userdata, which owns it from then on. */
void module_push_receipt(lua_State *L, mcpp_receipt *receipt);
/* The receipts of the list at `idx` (borrowed; the array lives in Lua memory
 * on the stack); two different receipts with one id raise a conflict. */
const mcpp_receipt **module_check_receipt_list(lua_State *L, int idx, size_t *n_out);

/* The policy at `index`, NULL (the library's default) for none or nil. */
const mcpp_policy *module_opt_policy(lua_State *L, int index);
/* `policy`, or with a metric at `metric_index` a clone gating on it (left on
 * the stack so that the collector frees it). */
const mcpp_policy *module_policy_for_metric(lua_State *L, const mcpp_policy *policy, int metric_index);

/* The metric a call names (`metric`), else each one `policy` gates on (a
 * policy file's; NULL policy: the default's "primary"), must be stated by a
 * receipt of list `a` or of list `b` (NULL, 0: none): else raises the
 * library's "did you mean", as the CLI and Python do, instead of a result in
 * which nothing has a value. */
void module_check_metric_stated(lua_State *L, const char *metric, const mcpp_policy *policy,
                                const mcpp_receipt *const *a, size_t na, const mcpp_receipt *const *b, size_t nb);

/* Registers the metatable `name` with `methods`, its __metatable locked. */
void module_new_metatable(lua_State *L, const char *name, const luaL_Reg *methods);

/* A JSON value as Lua values (null leaves the key out). */
void module_push_json(lua_State *L, const cJSON *v);

typedef int (*render_fn)(char **out, const void *object, int format);
/* Pushes the result table of `object`: its JSON rendering as Lua values plus
 * its text rendering as "text". Returns MCPP_OK or the library's error code
 * (nothing pushed then). */
int module_push_rendered(lua_State *L, render_fn render, const void *object);
int module_render_comparison(char **out, const void *comparison, int format);
int module_render_frontier(char **out, const void *frontier, int format);
int module_render_claim(char **out, const void *claim_result, int format);
int module_render_gate(char **out, const void *gate_report, int format);

#endif /* MCPP_MODULE_LUA_H */
