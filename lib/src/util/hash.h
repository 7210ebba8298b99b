/*
 * hash.h — 64-bit FNV-1a, the core's one hash: derived receipt ids, lane keys
 * and the frontier's lane and order hashes. (The kernels keep their own copy:
 * it is part of their token-file format.)
 */
#ifndef MCPP_UTIL_HASH_H
#define MCPP_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define MCPP_FNV_OFFSET 0xcbf29ce484222325ULL

/* FNV-1a over n bytes, continuing from h (start with MCPP_FNV_OFFSET). */
static inline uint64_t mcpp_fnv1a(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

#endif /* MCPP_UTIL_HASH_H */
