/*
 * enum_names.c — the name of an enum value and the value of a name, from one
 * table (enum_names.h).
 */
#include <string.h>

#include "util/enum_names.h"

const char *mcpp_enum_name_of(const char *const *names, size_t n, int value)
{
    return value >= 0 && (size_t)value < n && names[value] ? names[value] : "unknown";
}

int mcpp_enum_value_of(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}
