/*
 * import_lua.c — mr.import(format, paths [, out_dir [, commit]]): other tools'
 * results as receipts, from Lua; `format` is any name of the library's
 * importer registry (mcpp-receipts import --help). `paths` is a string or a
 * list of strings; with out_dir the receipts are also written there (nil: not
 * written); with commit every receipt names it as source.git_commit
 * (mcpp_import_files_at_commit).
 */
#include <stdlib.h>

#include <lauxlib.h>

#include "import_lua.h"

static int raise_message(lua_State *L)
{
    const mcpp_error *e = mcpp_error_last();
    lua_pushstring(L, e->message && *e->message ? e->message : mcpp_status_name(e->code));
    return lua_error(L);
}

/* The paths argument as a NUL-terminated array of borrowed strings (kept
 * alive by the argument table on the stack). */
static const char **check_paths(lua_State *L, int index, size_t *n)
{
    if (lua_type(L, index) == LUA_TSTRING) {
        const char **one = lua_newuserdatauv(L, 2 * sizeof *one, 0);
        one[0] = lua_tostring(L, index);
        one[1] = NULL;
        *n = 1;
        return one;
    }
    luaL_checktype(L, index, LUA_TTABLE);
    *n = (size_t)luaL_len(L, index);
    const char **list = lua_newuserdatauv(L, (*n + 1) * sizeof *list, 0);
    for (size_t i = 0; i < *n; i++) {
        lua_geti(L, index, (lua_Integer)i + 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "bad argument #2 to 'import' (paths[%d] is not a string)", (int)i + 1);
        list[i] = lua_tostring(L, -1); /* the table keeps the string alive */
        lua_pop(L, 1);
    }
    list[*n] = NULL;
    return list;
}

int mcpp_lua_module_import(lua_State *L, void (*push_receipt)(lua_State *L, mcpp_receipt *receipt))
{
    mcpp_import_format format;
    if (mcpp_import_format_from_name(&format, luaL_checkstring(L, 1)) != MCPP_OK)
        return luaL_argerror(L, 1, mcpp_error_last()->message);
    const char *out_dir = luaL_optstring(L, 3, NULL), *commit = luaL_optstring(L, 4, NULL);
    size_t n = 0;
    const char **paths = check_paths(L, 2, &n);
    mcpp_receipt_set *set = NULL;
    int rc = mcpp_import_files_at_commit(&set, format, paths, n, commit);
    if (rc == MCPP_OK && out_dir)
        rc = mcpp_import_write_dir(NULL, set, out_dir);
    if (rc != MCPP_OK) {
        mcpp_receipt_set_free(set);
        return raise_message(L);
    }
    size_t count = mcpp_receipt_set_count(set);
    lua_createtable(L, (int)count, 0);
    for (size_t i = 0; i < count; i++) {
        mcpp_receipt *copy = NULL;
        if (mcpp_receipt_clone(&copy, mcpp_receipt_set_at(set, i)) != MCPP_OK) {
            mcpp_receipt_set_free(set);
            return raise_message(L);
        }
        push_receipt(L, copy);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    mcpp_receipt_set_free(set);
    return 1;
}
