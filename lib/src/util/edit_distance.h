/*
 * edit_distance.h — the one "did you mean" distance of the library: the
 * schema's field suggestions, and the metric names and selector values that
 * no receipt states (analysis/input_names.c, claim.c).
 */
#ifndef MCPP_UTIL_EDIT_DISTANCE_H
#define MCPP_UTIL_EDIT_DISTANCE_H

#include <stddef.h>

/* Optimal string alignment distance, for short names (99 beyond 63 bytes). */
size_t mcpp_edit_distance(const char *a, const char *b);

/* How far a name of `len` bytes may be from a suggestion: 1 up to 3 bytes, 2
 * up to 6, else 3. */
static inline size_t mcpp_edit_distance_limit(size_t len) { return len <= 3 ? 1 : (len <= 6 ? 2 : 3); }

/* The candidate closest to `name` within mcpp_edit_distance_limit, or NULL. */
const char *mcpp_closest_name(const char *name, const char *const *candidates, size_t n);

#endif /* MCPP_UTIL_EDIT_DISTANCE_H */
