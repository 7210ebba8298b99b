/*
 * enum_names.h — a public enum's names in one table indexed by its values
 * (which count up from 0), read both ways: the name of a value (the *_name
 * calls: verdicts, statuses, outcomes, roles) and the value of a name (the
 * *_parse calls), so that the two cannot disagree.
 */
#ifndef MCPP_UTIL_ENUM_NAMES_H
#define MCPP_UTIL_ENUM_NAMES_H

#include <stddef.h>

/* names[value], or "unknown" for a value off the table (a caller's cast). */
const char *mcpp_enum_name_of(const char *const *names, size_t n, int value);

/* The value whose name is `name`, or -1. */
int mcpp_enum_value_of(const char *const *names, size_t n, const char *name);

#define MCPP_ENUM_COUNT(names) (sizeof(names) / sizeof(names)[0])
#define MCPP_ENUM_NAME(names, value) mcpp_enum_name_of(names, MCPP_ENUM_COUNT(names), (int)(value))

#endif /* MCPP_UTIL_ENUM_NAMES_H */
