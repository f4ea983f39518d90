/* SPDX-License-Identifier: MIT */
/* SHA-256 (FIPS 180-4), in-tree: the artifact trailer and the gate's
 * decision log need nothing else from a crypto library, and loading one
 * costs more than the gate's whole decision (spec/runtime.md, "Cost"). */
#ifndef CP_SHA256_H
#define CP_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CP_SHA256_LEN 32
#define CP_SHA256_HEX 65 /* 64 lower-case hex digits and a NUL */

struct cp_sha256 {
    uint32_t h[8];
    uint64_t nbytes;       /* message length so far */
    unsigned char blk[64]; /* pending partial block */
    size_t nblk;
};

void cp_sha256_init(struct cp_sha256 *c);
void cp_sha256_update(struct cp_sha256 *c, const void *data, size_t len);
/* Writes the digest; c must be initialised again before reuse. */
void cp_sha256_final(struct cp_sha256 *c, unsigned char md[CP_SHA256_LEN]);
/* Lower-case hex of a digest, NUL-terminated. */
void cp_sha256_hex_encode(const unsigned char md[CP_SHA256_LEN],
                          char out[CP_SHA256_HEX]);
/* One-shot: the lower-case hex SHA-256 of data. */
void cp_sha256_hex(const void *data, size_t len, char out[CP_SHA256_HEX]);

/* The compression function: AUTO (the default, chosen at the first hash)
 * takes the CPU's SHA extensions where it has them, else the portable C.
 * Tests name one to check each against the same vectors; returns false,
 * changing nothing, when the CPU lacks the one named. */
enum cp_sha256_engine {
    CP_SHA256_AUTO,
    CP_SHA256_PORTABLE,
    CP_SHA256_SHANI, /* x86-64 SHA extensions */
};
bool cp_sha256_select(enum cp_sha256_engine e);

#endif
