/*
 * name_sort.c — see name_sort.h.
 */
#include "util/name_sort.h"

#include <stdlib.h>
#include <string.h>

static int by_name_then_index(const void *a, const void *b)
{
    const mcpp_name_at *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

void mcpp_name_at_sort(mcpp_name_at *items, size_t n)
{
    if (n > 1)
        qsort(items, n, sizeof *items, by_name_then_index);
}
