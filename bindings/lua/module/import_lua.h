/*
 * import_lua.h — mr.import(format, paths [, out_dir]) of the Lua module.
 */
#ifndef MCPP_IMPORT_LUA_H
#define MCPP_IMPORT_LUA_H

#include <lua.h>

#include "mcpp_receipts.h"

/* Implements mr.import; `push_receipt` wraps one receipt (taking ownership) as
 * the module's receipt userdata. Returns a list of receipts; raises the
 * library's message (FILE:LINE:COL: ...) on a malformed input. */
int mcpp_lua_module_import(lua_State *L, void (*push_receipt)(lua_State *L, mcpp_receipt *receipt));

#endif /* MCPP_IMPORT_LUA_H */
