/*
 * id_set.h — a set of borrowed strings (receipt ids), open addressing that
 * grows: checking each new id against a list of those before it made the
 * gate quadratic (a history of 10^5 runs of one lane pools 10^5 ids; a
 * failed baseline left out once per candidate was looked up in the list of
 * those left out before it).
 */
#ifndef MCPP_UTIL_ID_SET_H
#define MCPP_UTIL_ID_SET_H

#include <stddef.h>

typedef struct mcpp_id_set {
    const char **slots; /* borrowed: each id outlives the set */
    size_t cap, n;
} mcpp_id_set;

#define MCPP_ID_SET_INIT                                                                                               \
    {                                                                                                                  \
        NULL, 0, 0                                                                                                     \
    }

int mcpp_id_set_contains(const mcpp_id_set *s, const char *id);

/* Adds id (borrowed; not already in the set). 0, or -1 when out of memory. */
int mcpp_id_set_add(mcpp_id_set *s, const char *id);

/* Empties the set, keeping its room. */
void mcpp_id_set_clear(mcpp_id_set *s);

void mcpp_id_set_free(mcpp_id_set *s);

#endif
