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

/* The stated value a text that matches none was surely meant for: one equal
 * to it but for the case of ASCII letters ("nam56r": "NAM56R"), else the
 * first one whose first
 * words it is, case aside, when it has 2 bytes or more ("NAM56R": "NAM56R
 * hybrid MoE lane"; not "AEME" for "AEMEAEMR"); NULL when none is. Unlike a
 * spelling (mcpp_closest_name: "top1" for "top2", two lanes' names), neither
 * is another name. For names and labels, not numbers; *others (when not
 * NULL) gets how many more begin with its words. */
const char *mcpp_meant_value(const char *value, const char *const *candidates, size_t n, size_t *others);

#endif /* MCPP_UTIL_EDIT_DISTANCE_H */
