/*
 * struct_version.c — the one check behind every versioned public struct.
 */
#include <ctype.h>
#include <stdio.h>

#include "util/error_internal.h"
#include "util/struct_version.h"

int mcpp_struct_version_check(unsigned int got, unsigned int expected, const char *type_name)
{
    if (got == expected)
        return MCPP_OK;
    /* "mcpp_limits" -> "MCPP_LIMITS_INIT", the initialiser that sets the version */
    char init[64];
    size_t n = 0;
    for (const char *p = type_name; *p && n + 6 < sizeof init; p++)
        init[n++] = (char)toupper((unsigned char)*p);
    snprintf(init + n, sizeof init - n, "_INIT");
    return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                          "%s has version %u, this library knows version %u (initialise it with %s "
                          "or its _default function)", type_name, got, expected, init);
}
