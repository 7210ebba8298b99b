/*
 * lua_values.h — receipt values and schema sections as Lua sees them
 * (internal, not installed). Shared by the policy engine's read-only receipt
 * views (lib/src/policy/lua) and by the `mcpp_receipts` Lua module
 * (bindings/lua), so that both read a receipt the same way. It lives in
 * lib/shared, not lib/src, because the module is a caller outside the library:
 * it links the engine's objects (whose symbols are hidden from the shared
 * library, so this is no public API) and sees only lib/include and lib/shared.
 * The module links the engine's objects but not liblua, so nothing here may
 * need more than the lua_* API of whichever interpreter runs it.
 */
#ifndef MCPP_LUA_VALUES_H
#define MCPP_LUA_VALUES_H

#include <stddef.h>

#include <lua.h>

#include "mcpp_receipts/receipt.h"

/* Pushes `value`: booleans, integers, numbers and strings (enums and objects
 * as their text) as themselves, lists as sequences, an absent value as nil.
 * May allocate, so it may raise. */
void mcpp_lua_push_value(lua_State *L, const mcpp_value *value);

/* Stores in the registry the set of schema sections: every proper prefix of a
 * schema path ("backend", "backend.moe"). May raise. */
void mcpp_lua_sections_install(lua_State *L);

/* True when `path` names a schema section (mcpp_lua_sections_install must have
 * run on this state). May raise. */
int mcpp_lua_is_section(lua_State *L, const char *path, size_t len);

#endif /* MCPP_LUA_VALUES_H */
