/*
 * hash.h — 64-bit FNV-1a, the core's one hash: derived receipt ids, lane keys
 * and the frontier's lane and order hashes. (The kernels keep their own copy:
 * it is part of their token-file format.) Beside it, a checksum of large
 * blobs that reads 8 bytes a step.
 */
#ifndef MCPP_UTIL_HASH_H
#define MCPP_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* A checksum of n bytes, 8 at a time (the tail through FNV-1a), continuing
 * from h. For damage checks of blobs read back by the build that wrote them
 * (receipt images): byte-at-a-time FNV-1a was 40% of loading a stored
 * receipt. Each step, (h ^ word) * odd then h ^= h >> 29, is a bijection of
 * h, so changing any one word always changes the result. Not a stable
 * format: never store it where another version reads it. */
static inline uint64_t mcpp_checksum_blob(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, sizeof w);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    return mcpp_fnv1a(p + i, n - i, h);
}

#endif /* MCPP_UTIL_HASH_H */
