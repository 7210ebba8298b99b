/*
 * lua_guards.h — bounds on the C library functions of the policy sandbox
 * (internal; see lua_guards.c). Each function takes the library table at the
 * top of the stack and replaces its functions in place by guarded ones.
 * Called while the sandbox is set up, in protected mode.
 */
#ifndef MCPP_LUA_GUARDS_H
#define MCPP_LUA_GUARDS_H

#include <lua.h>

void mcpp_lua_guard_string_library(lua_State *L);
void mcpp_lua_guard_table_library(lua_State *L);
void mcpp_lua_guard_utf8_library(lua_State *L);

/* Only coroutine.close: the rest of the library runs Lua code under the hook. */
void mcpp_lua_guard_coroutine_library(lua_State *L);
/* tostring for policies: a table, function, thread or userdata without
 * __tostring is shown by its type name alone, never by its address, so a
 * rule's result does not change between runs. */
int mcpp_lua_sandbox_tostring(lua_State *L);

#endif /* MCPP_LUA_GUARDS_H */
