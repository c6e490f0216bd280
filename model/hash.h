/*
 * hash.h - the hash functions of the containers (u64map.h, strtab.h) and of keys made of
 * several integers: a 64-bit finalizer (MurmurHash3's fmix64) and FNV-1a over bytes
 * finished by it. Not for anything an adversary chooses: inputs are experiments.
 */
#ifndef HPA_HASH_H
#define HPA_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Mix the bits of x so that any of its bits changes about half of the result's. */
static inline uint64_t hpa_hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* Hash of n bytes at p (p may be NULL when n is 0); seed varies it. */
static inline uint64_t hpa_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ULL ^ seed;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return hpa_hash64(h);
}

#endif
