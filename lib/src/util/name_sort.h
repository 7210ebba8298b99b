/*
 * name_sort.h — names with the positions they stood at, sorted by name and
 * then by position: how a long list finds its repeated names in O(n log n)
 * rather than pair by pair (the receipt ids an import made twice, the metric
 * names a receipt states twice). After the sort each repeat follows the
 * first of its name.
 */
#ifndef MCPP_UTIL_NAME_SORT_H
#define MCPP_UTIL_NAME_SORT_H

#include <stddef.h>

typedef struct mcpp_name_at {
    const char *name; /* borrowed */
    size_t index;     /* where it stood in its list */
} mcpp_name_at;

void mcpp_name_at_sort(mcpp_name_at *items, size_t n);

#endif
