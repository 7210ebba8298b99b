/*
 * policy_lua_disabled.c — the Lua policy loaders in builds without Lua: they
 * say so instead of pretending.
 */
#include "mcpp_receipts/policy_lua.h"
#include "util/error_internal.h"

void mcpp_lua_limits_default(mcpp_lua_limits *out)
{
    if (!out)
        return;
    const mcpp_lua_limits defaults = MCPP_LUA_LIMITS_INIT;
    *out = defaults;
}

void mcpp_policy_lua_reset_budget(const mcpp_policy *policy)
{
    (void)policy;
}

int mcpp_policy_load_lua_file(mcpp_policy **out, const char *path, const mcpp_lua_limits *limits)
{
    (void)limits;
    if (out)
        *out = NULL;
    return mcpp_error_at(MCPP_EUNSUPPORTED, MCPP_ERROR_KIND_UNSUPPORTED, path, NULL, 0, 0,
                          "this build has no Lua (configure with -DMCPP_LUA=ON)");
}

int mcpp_policy_load_lua_buffer(mcpp_policy **out, const char *buf, size_t len, const char *name,
                                const mcpp_lua_limits *limits)
{
    (void)buf;
    (void)len;
    return mcpp_policy_load_lua_file(out, name, limits);
}
