/*
 * alloc.h — the library's one heap copy of a string and its one growable
 * array. Every module uses these instead of a local dup_or_null or a
 * hand-written "double the block when full" loop, so a copy treats NULL the
 * same everywhere and every array has a stated ceiling (curl's dynbuf model:
 * growth past the ceiling is an error, not a slow exhaustion of memory).
 */
#ifndef MCPP_UTIL_ALLOC_H
#define MCPP_UTIL_ALLOC_H

#include <stddef.h>
#include <string.h>

/* A heap copy of `s` (free with free()); NULL for NULL. When the copy fails
 * it returns NULL and, when `failed` is not NULL, sets *failed to 1, so a
 * function copying several strings checks once (as mcpp_strbuf latches). */
char *mcpp_strdup(const char *s, int *failed);
/* The first `n` bytes of `s` as a NUL-terminated heap string (s need not be
 * terminated); NULL with *failed set when out of memory. */
char *mcpp_strndup(const char *s, size_t n, int *failed);

/* The most items an array may hold when nothing smaller applies: beyond
 * this a count is a runaway loop or hostile input, not a workload. */
#define MCPP_ARRAY_MAX_ITEMS ((size_t)1 << 28)

/* Makes room for at least `need` items in the array `items` (a typed
 * pointer lvalue, NULL when empty) whose allocated count is `cap` (a size_t
 * lvalue): the block doubles from 8 items, never past `max` items. Returns 0;
 * MCPP_ELIMIT when `need` exceeds `max`, MCPP_ENOMEM when out of memory (last
 * error set for both; the array and `cap` are then unchanged, so the caller
 * still frees what it holds). Items past the old `cap` are uninitialised.
 *
 *     if ((rc = MCPP_ARRAY_RESERVE(list->items, list->cap, list->count + 1, MAX)) != 0)
 *         return rc;
 *     list->items[list->count++] = item;
 */
#define MCPP_ARRAY_RESERVE(items, cap, need, max)                                                  \
    ((need) <= (cap) ? 0 : mcpp_array_reserve(&(items), &(cap), (need), sizeof *(items), (max)))

/* Cuts the array `items` (as for MCPP_ARRAY_RESERVE) to its `n` items once
 * it is complete and kept: doubling leaves up to half the block unused, and
 * a report keeps such arrays for every lane. n 0 frees it (items NULL, cap
 * 0). When realloc fails the array stays as it is. */
#define MCPP_ARRAY_FIT(items, cap, n) mcpp_array_fit(&(items), &(cap), (n), sizeof *(items))

/* MCPP_ARRAY_RESERVE in a function returning int: returns its error code
 * (as MCPP_CHECK_ALLOC does for one allocation). */
#define MCPP_CHECK_ARRAY(items, cap, need, max)                                                    \
    do {                                                                                           \
        int mcpp_reserve_rc_ = MCPP_ARRAY_RESERVE(items, cap, need, max);                          \
        if (mcpp_reserve_rc_ != 0)                                                                 \
            return mcpp_reserve_rc_;                                                               \
    } while (0)

/* Room for one more item after the `n` of `items`: the address of items[n],
 * zeroed, or NULL with the last error set (as MCPP_ARRAY_RESERVE). The caller
 * counts it (n++) once it has made it, so a half-made item is never counted:
 *
 *     entry *e = MCPP_ARRAY_NEXT(list->items, list->count, list->cap, MAX);
 *     if (!e || !(e->name = mcpp_strdup(name, NULL)))
 *         return NULL;
 *     list->count++;
 */
#define MCPP_ARRAY_NEXT(items, n, cap, max)                                                                            \
    (MCPP_ARRAY_RESERVE(items, cap, (n) + 1, max) != 0 ? NULL : memset(&(items)[n], 0, sizeof *(items)))

/* The function behind MCPP_ARRAY_RESERVE: `slot` is the address of the typed
 * pointer (read and written with memcpy, so any object pointer type works). */
int mcpp_array_reserve(void *slot, size_t *cap, size_t need, size_t item_size, size_t max);
/* The function behind MCPP_ARRAY_FIT (`slot` as above). A small block is
 * copied into one of its size and freed, not shrunk where it is: shrinking
 * leaves its tail free between the blocks made after it, a gap no later
 * request of that size fills (a gate of 10^4 candidates left 16,000 of 224
 * bytes), while the freed whole block is what the next array of the same
 * growth asks for. A large one (MCPP_FIT_COPY_BELOW bytes and up, mapped by
 * malloc) is shrunk in place: no copy, and its pages go back. */
#define MCPP_FIT_COPY_BELOW ((size_t)64 * 1024)
void mcpp_array_fit(void *slot, size_t *cap, size_t n, size_t item_size);

#endif /* MCPP_UTIL_ALLOC_H */
