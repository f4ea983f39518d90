/* SPDX-License-Identifier: MIT */
/* FNV-1a, the one string hash of the project (hash tables, de-duplication,
 * grouping).  Inline: the tables call it once per byte of every key.  Some
 * tables fold in more than bytes or add a finaliser of their own. */
#ifndef CP_HASH_H
#define CP_HASH_H

#include <stddef.h>
#include <stdint.h>

#define CP_FNV32_OFFSET 2166136261u
#define CP_FNV32_PRIME 16777619u
#define CP_FNV64_OFFSET 0xcbf29ce484222325ull
#define CP_FNV64_PRIME 0x100000001b3ull

/* Extends the 64-bit FNV-1a hash h over the n bytes at p. */
static inline uint64_t cp_fnv64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *q = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ q[i]) * CP_FNV64_PRIME;
    return h;
}

/* Extends the 32-bit FNV-1a hash h over the n bytes at p. */
static inline uint32_t cp_fnv32(uint32_t h, const void *p, size_t n)
{
    const unsigned char *q = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ q[i]) * CP_FNV32_PRIME;
    return h;
}

#endif
