/* SPDX-License-Identifier: MIT */
/* SHA-256 as FIPS 180-4 §6.2 states it: pad to a multiple of 64 bytes with
 * 0x80, zeros and the 64-bit big-endian bit length, then run the
 * compression function on each block.  Portable C, no tables beyond K;
 * tests/unit/test_sha256.c checks the NIST vectors and
 * tests/sh/sha256.sh cross-checks every length around the block edges
 * against python3's hashlib. */
#include "sha256.h"

#include <string.h>

static const uint32_t cp_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t cp_sha256_ror(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t cp_sha256_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

/* The compression function over n consecutive 64-byte blocks. */
static void cp_sha256_blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
    for (; n > 0; n--, p += 64) {
        uint32_t w[64];
        for (int t = 0; t < 16; t++)
            w[t] = cp_sha256_be32(p + 4 * t);
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = cp_sha256_ror(w[t - 15], 7) ^
                          cp_sha256_ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = cp_sha256_ror(w[t - 2], 17) ^
                          cp_sha256_ror(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
        uint32_t e = h[4], f = h[5], g = h[6], k = h[7];
        for (int t = 0; t < 64; t++) {
            uint32_t S1 = cp_sha256_ror(e, 6) ^ cp_sha256_ror(e, 11) ^
                          cp_sha256_ror(e, 25);
            uint32_t ch = (e & f) ^ (~e & g);
            uint32_t t1 = k + S1 + ch + cp_sha256_k[t] + w[t];
            uint32_t S0 = cp_sha256_ror(a, 2) ^ cp_sha256_ror(a, 13) ^
                          cp_sha256_ror(a, 22);
            uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
            uint32_t t2 = S0 + maj;
            k = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += k;
    }
}

void cp_sha256_init(struct cp_sha256 *c)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                   0xa54ff53a, 0x510e527f, 0x9b05688c,
                                   0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof iv);
    c->nbytes = 0;
    c->nblk = 0;
}

void cp_sha256_update(struct cp_sha256 *c, const void *data, size_t len)
{
    const unsigned char *p = data;
    if (len == 0)
        return; /* data may be NULL then */
    c->nbytes += len;
    if (c->nblk) {
        size_t n = 64 - c->nblk < len ? 64 - c->nblk : len;
        memcpy(c->blk + c->nblk, p, n);
        c->nblk += n;
        p += n;
        len -= n;
        if (c->nblk < 64)
            return;
        cp_sha256_blocks(c->h, c->blk, 1);
        c->nblk = 0;
    }
    cp_sha256_blocks(c->h, p, len / 64);
    p += len / 64 * 64;
    len %= 64;
    memcpy(c->blk, p, len);
    c->nblk = len;
}

void cp_sha256_final(struct cp_sha256 *c, unsigned char md[CP_SHA256_LEN])
{
    uint64_t bits = c->nbytes * 8;
    c->blk[c->nblk++] = 0x80;
    if (c->nblk > 56) { /* no room for the length: one more block */
        memset(c->blk + c->nblk, 0, 64 - c->nblk);
        cp_sha256_blocks(c->h, c->blk, 1);
        c->nblk = 0;
    }
    memset(c->blk + c->nblk, 0, 56 - c->nblk);
    for (int i = 0; i < 8; i++)
        c->blk[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    cp_sha256_blocks(c->h, c->blk, 1);
    for (int i = 0; i < 8; i++) {
        md[4 * i] = (unsigned char)(c->h[i] >> 24);
        md[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
        md[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
        md[4 * i + 3] = (unsigned char)c->h[i];
    }
    memset(c, 0, sizeof *c);
}

void cp_sha256_hex_encode(const unsigned char md[CP_SHA256_LEN],
                          char out[CP_SHA256_HEX])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < CP_SHA256_LEN; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[2 * CP_SHA256_LEN] = '\0';
}

void cp_sha256_hex(const void *data, size_t len, char out[CP_SHA256_HEX])
{
    struct cp_sha256 c;
    unsigned char md[CP_SHA256_LEN];
    cp_sha256_init(&c);
    cp_sha256_update(&c, data, len);
    cp_sha256_final(&c, md);
    cp_sha256_hex_encode(md, out);
}
