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

/* One word mixed into h: (h ^ word) * odd, then h ^= h >> 29. Each is a
 * bijection of h, so changing the word always changes the result (the
 * checksum's lanes below, and the receipt share's hash of packed values). */
static inline uint64_t mcpp_hash_word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

/* One step of a checksum lane: the 8 bytes at p as a word (mcpp_hash_word). */
static inline uint64_t mcpp_checksum_step(uint64_t h, const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return mcpp_hash_word(h, w);
}

/* A checksum of n bytes, continuing from h. For damage checks of blobs
 * (receipt images, the store's dictionaries and LZ4 bodies): byte-at-a-time FNV-1a
 * was 40% of loading a stored receipt, one 8-byte lane still 20% (each step
 * waits on the multiply before it). Four lanes take 32 bytes a step, then a
 * fifth takes the whole words left and FNV-1a the tail. The lanes are joined
 * by xor, so changing any one word changes its lane and the result. Stores
 * keep it (store_codec.c): changing it is a new store schema version. */
static inline uint64_t mcpp_checksum_blob(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    uint64_t a = h, b = h ^ 1, c = h ^ 2, d = h ^ 3;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a = mcpp_checksum_step(a, p + i);
        b = mcpp_checksum_step(b, p + i + 8);
        c = mcpp_checksum_step(c, p + i + 16);
        d = mcpp_checksum_step(d, p + i + 24);
    }
    h = a ^ (b * 3) ^ (c * 5) ^ (d * 7);
    for (; i + 8 <= n; i += 8) h = mcpp_checksum_step(h, p + i);
    return mcpp_fnv1a(p + i, n - i, h);
}

#endif /* MCPP_UTIL_HASH_H */
