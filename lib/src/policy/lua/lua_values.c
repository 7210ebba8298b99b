/*
 * lua_values.c — receipt values and schema sections for Lua: what the
 * policy engine's receipt views and the Lua module both push (lua_values.h).
 */
#include <string.h>

#include "mcpp_shared/lua_values.h"

static const char PREFIXES_KEY = 'p'; /* registry: set of schema path prefixes */

void mcpp_lua_push_value(lua_State *L, const mcpp_value *v)
{
    switch (v->type) {
    case MCPP_TYPE_BOOL:
        lua_pushboolean(L, v->boolean);
        break;
    case MCPP_TYPE_INT:
        lua_pushinteger(L, (lua_Integer)v->integer);
        break;
    case MCPP_TYPE_DOUBLE:
        lua_pushnumber(L, (lua_Number)v->number);
        break;
    case MCPP_TYPE_STRING:
    case MCPP_TYPE_ENUM:
    case MCPP_TYPE_OBJECT:
        lua_pushstring(L, v->string);
        break;
    case MCPP_TYPE_STRING_LIST:
        lua_createtable(L, (int)v->count, 0);
        for (size_t i = 0; i < v->count; i++) {
            lua_pushstring(L, v->strings[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    case MCPP_TYPE_DOUBLE_LIST:
        lua_createtable(L, (int)v->count, 0);
        for (size_t i = 0; i < v->count; i++) {
            lua_pushnumber(L, (lua_Number)v->doubles[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    default:
        lua_pushnil(L); /* absent: nil, so `if cand.x then` reads naturally */
        break;
    }
}

void mcpp_lua_sections_install(lua_State *L)
{
    lua_newtable(L);
    int count = mcpp_schema_field_count();
    for (int id = 0; id < count; id++) {
        const mcpp_field_info *info = mcpp_schema_field_at(id);
        if (!info || !info->path)
            continue;
        for (const char *dot = strchr(info->path, '.'); dot; dot = strchr(dot + 1, '.')) {
            lua_pushlstring(L, info->path, (size_t)(dot - info->path));
            lua_pushboolean(L, 1);
            lua_rawset(L, -3);
        }
    }
    lua_rawsetp(L, LUA_REGISTRYINDEX, &PREFIXES_KEY);
}

int mcpp_lua_is_section(lua_State *L, const char *path, size_t len)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &PREFIXES_KEY);
    lua_pushlstring(L, path, len);
    int is_section = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return is_section;
}
