/*
 * lua_engine.h — what the policy loader and the custom-rule glue share
 * (internal). An engine is a sandbox that outlives the load because custom
 * rules keep calling into it; it is reference-counted by those rules and
 * closed when the last one is freed with its policy.
 */
#ifndef MCPP_LUA_ENGINE_H
#define MCPP_LUA_ENGINE_H

#include <pthread.h>

#include "policy/lua/lua_sandbox.h"
#include "mcpp_receipts/policy.h"

typedef struct mcpp_lua_engine {
    mcpp_lua_sandbox sb; /* first: the allocator's userdata is this address */
    pthread_mutex_t mutex;
    int refs;
} mcpp_lua_engine;

/* Registry keys of the tables the loader fills, parallel sequences over the
 * rules: the compiled chunk of the file that defines each rule, the rule's
 * place in that file's `rules` list, its name, the file's path and whether
 * it is a per-run rule (`each = function(run, side)`). A rule
 * call runs the chunk again in a fresh environment and calls the rule it
 * returns, so no state survives from one call to the next. */
extern const char mcpp_lua_rules_key;
extern const char mcpp_lua_rule_slots_key;
extern const char mcpp_lua_rule_names_key;
extern const char mcpp_lua_rule_files_key;
extern const char mcpp_lua_rule_each_key;

/* Builds the read-only receipt views (protected mode only). */
void mcpp_lua_views_install(lua_State *L);

/* Adds one mcpp_policy rule per Lua rule function, each holding a reference
 * to `engine`. Call outside protected mode, after a successful load. */
int mcpp_lua_rules_register(mcpp_policy *policy, mcpp_lua_engine *engine, int n_rules);

/* Drops one reference; the last one closes the state and frees the engine. */
void mcpp_lua_engine_release(mcpp_lua_engine *engine);

/* Rewrites Lua's shortened chunk name ("...tail.lua:3:") in the string error
 * at the top of the stack to `path` when it is that file's. Protected mode. */
void mcpp_lua_fix_error_position(lua_State *L, const char *path);

#endif /* MCPP_LUA_ENGINE_H */
