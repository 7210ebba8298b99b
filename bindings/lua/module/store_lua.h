/*
 * store_lua.h — mr.store(location) of the Lua module: a receipt store (a
 * SQLite path or a postgresql:// URL) with the methods of Python's
 * mcpp_receipts.Store (store_lua.c).
 */
#ifndef MCPP_STORE_LUA_H
#define MCPP_STORE_LUA_H

#include <lua.h>

/* Registers the store's metatables; call once when the module opens. */
void mcpp_lua_store_install(lua_State *L);

/* mr.store(location) -> store */
int mcpp_lua_store_new(lua_State *L);

#endif /* MCPP_STORE_LUA_H */
