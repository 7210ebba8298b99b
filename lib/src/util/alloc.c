/*
 * alloc.c — heap copies of strings and the growable array (util/alloc.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"

#include "util/alloc.h"

char *mcpp_strndup(const char *s, size_t n, int *failed)
{
    char *copy = malloc(n + 1);
    if (!copy) {
        if (failed)
            *failed = 1;
        return NULL;
    }
    memcpy(copy, s, n);
    copy[n] = '\0';
    return copy;
}

char *mcpp_strdup(const char *s, int *failed)
{
    return s ? mcpp_strndup(s, strlen(s), failed) : NULL;
}

int mcpp_array_reserve(void *slot, size_t *cap, size_t need, size_t item_size, size_t max)
{
    if (need <= *cap)
        return 0;
    if (need > max || need > SIZE_MAX / item_size)
        return mcpp_error_raise(MCPP_ELIMIT, MCPP_ERROR_KIND_LIMIT,
                                "a list would hold more than %zu items", max);
    size_t grown = *cap ? *cap : 8;
    if (grown > max)
        grown = max;
    while (grown < need)
        grown = grown > max / 2 ? max : 2 * grown;
    if (grown > SIZE_MAX / item_size)
        grown = need;
    void *items;
    memcpy(&items, slot, sizeof items);
    items = realloc(items, grown * item_size);
    if (!items)
        return mcpp_error_nomem();
    memcpy(slot, &items, sizeof items);
    *cap = grown;
    return 0;
}

void mcpp_array_fit(void *slot, size_t *cap, size_t n, size_t item_size)
{
    void *items;
    memcpy(&items, slot, sizeof items);
    if (!items || *cap <= n)
        return;
    if (!n) {
        free(items);
        items = NULL;
    } else if (n * item_size >= MCPP_FIT_COPY_BELOW) {
        if (!(items = realloc(items, n * item_size))) /* a mapped block shrinks in place (mremap) */
            return;
    } else {
        void *fit = malloc(n * item_size);
        if (!fit)
            return;
        memcpy(fit, items, n * item_size);
        free(items);
        items = fit;
    }
    memcpy(slot, &items, sizeof items);
    *cap = n;
}
