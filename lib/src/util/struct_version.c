/*
 * struct_version.c — the one check behind every versioned public struct.
 */
#include <ctype.h>
#include <stdio.h>

#include "util/error_internal.h"
#include "util/struct_version.h"

#include <string.h>

/* "(initialise it with MCPP_LIMITS_INIT or mcpp_limits_default())": the
 * initialiser that sets the version, and the _default function for the
 * structs that have one (naming one that does not exist sends a reader
 * looking for it). */
static void how_to_initialise(char *buf, size_t cap, const char *type_name)
{
    static const char *const with_default[] = {"mcpp_limits", "mcpp_lua_limits", "mcpp_changepoint_settings"};
    char init[64];
    size_t n = 0;
    for (const char *p = type_name; *p && n + 6 < sizeof init; p++)
        init[n++] = (char)toupper((unsigned char)*p);
    snprintf(init + n, sizeof init - n, "_INIT");
    for (size_t i = 0; i < sizeof with_default / sizeof with_default[0]; i++)
        if (strcmp(type_name, with_default[i]) == 0) {
            snprintf(buf, cap, "initialise it with %s or %s_default()", init, type_name);
            return;
        }
    snprintf(buf, cap, "initialise it with %s", init);
}

int mcpp_struct_version_check(unsigned int got, unsigned int expected, const char *type_name)
{
    if (got == expected)
        return MCPP_OK;
    char how[160];
    how_to_initialise(how, sizeof how, type_name);
    return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                          "%s has version %u, this library knows version %u (%s)", type_name, got, expected, how);
}

int mcpp_struct_out_version_check(unsigned int declared, unsigned int newest, const char *type_name)
{
    if (declared >= 1 && declared <= newest)
        return MCPP_OK;
    char how[160];
    how_to_initialise(how, sizeof how, type_name);
    return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                          "%s has version %u, this library writes versions 1 to %u (%s)", type_name, declared,
                          newest, how);
}
