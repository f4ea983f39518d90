/* SPDX-License-Identifier: MIT */
/* SHA-256 as FIPS 180-4 §6.2 states it: pad to a multiple of 64 bytes with
 * 0x80, zeros and the 64-bit big-endian bit length, then run the
 * compression function on each block.  Two compression functions: portable
 * C, no tables beyond K; and on x86-64 the SHA extensions (SHA-NI), chosen
 * at run time when the CPU has them (`confpol build` hashes every artifact
 * it writes, megabytes for a large policy: the extensions are about five
 * times faster).  tests/unit/test_sha256.c runs the NIST vectors, every
 * split of a stream and every length around the block edges against
 * python3's hashlib through each engine. */
#include "sha256.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CP_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h> /* glibc 2.33 and later */
#endif
#endif
#endif

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

#ifdef CP_SHA256_X86
/* The compression function with the SHA extensions: four rounds per
 * sha256rnds2 pair, the message schedule by sha256msg1/msg2.  The state is
 * kept as the instructions want it, ABEF and CDGH; K is the same table.
 * The sixteen steps are unrolled (GCC leaves the loop rolled at -O2):
 * 14 MiB in 7.5 ms instead of 9.0 (1,950 MB/s against 1,630; OpenSSL's
 * `speed sha256` gives 1,910 here), the Claude artifact's pin of the
 * 100,000-rule bench policy. */
__attribute__((target("sha,ssse3,sse4.1"))) static void cp_sha256_blocks_shani(
    uint32_t h[8], const unsigned char *p, size_t n)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL,
                                         0x0405060700010203LL);
    __m128i t = _mm_loadu_si128((const __m128i *)(const void *)&h[0]);
    __m128i s1 = _mm_loadu_si128((const __m128i *)(const void *)&h[4]);
    t = _mm_shuffle_epi32(t, 0xB1);         /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);       /* EFGH */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8); /* ABEF */
    s1 = _mm_blend_epi16(s1, t, 0xF0);      /* CDGH */
    for (; n > 0; n--, p += 64) {
        const __m128i abef = s0, cdgh = s1;
        __m128i w[4];
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
            __m128i m;
            if (i < 4) {
                m = _mm_loadu_si128(
                    (const __m128i *)(const void *)(p + 16 * i));
                m = _mm_shuffle_epi8(m, bswap);
            } else {
                /* W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16],
                 * four at a time. */
                m = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
                m = _mm_add_epi32(
                    m, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
                m = _mm_sha256msg2_epu32(m, w[(i + 3) & 3]);
            }
            w[i & 3] = m;
            __m128i k = _mm_add_epi32(
                m, _mm_loadu_si128(
                       (const __m128i *)(const void *)&cp_sha256_k[4 * i]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, k);
            k = _mm_shuffle_epi32(k, 0x0E);
            s0 = _mm_sha256rnds2_epu32(s0, s1, k);
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    t = _mm_shuffle_epi32(s0, 0x1B);   /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);  /* DCHG */
    s0 = _mm_blend_epi16(t, s1, 0xF0); /* DCBA */
    s1 = _mm_alignr_epi8(s1, t, 8);    /* HGFE */
    _mm_storeu_si128((__m128i *)(void *)&h[0], s0);
    _mm_storeu_si128((__m128i *)(void *)&h[4], s1);
}

/* CPUID: leaf 7 EBX bit 29 (SHA), leaf 1 ECX bits 9 and 19 (SSSE3,
 * SSE4.1).  Where glibc has read them at start-up, from its copy: in a
 * virtual machine each CPUID exits to the hypervisor (3.8 us each on the
 * development VM), and the four took 15 us of every process that hashes. */
static bool cp_sha256_cpu_has_shani(void)
{
#ifdef CPU_FEATURE_ACTIVE
    return CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSSE3) &&
           CPU_FEATURE_ACTIVE(SSE4_1);
#else
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) ||
        !(c & (1u << 19)))
        return false;
    if (__get_cpuid_max(0, NULL) < 7)
        return false;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 29)) != 0;
#endif
}
#else
static void cp_sha256_blocks_shani(uint32_t h[8], const unsigned char *p,
                                   size_t n)
{
    cp_sha256_blocks(h, p, n); /* never chosen: no extensions here */
}

static bool cp_sha256_cpu_has_shani(void)
{
    return false;
}
#endif

/* The engine in use: 0 until the first hash looks at the CPU.  Relaxed
 * atomics: threads that race on the first hash store the same value. */
static int cp_sha256_engine_now;

bool cp_sha256_select(enum cp_sha256_engine e)
{
    if (e == CP_SHA256_AUTO)
        e = cp_sha256_cpu_has_shani() ? CP_SHA256_SHANI : CP_SHA256_PORTABLE;
    else if (e == CP_SHA256_SHANI && !cp_sha256_cpu_has_shani())
        return false;
    __atomic_store_n(&cp_sha256_engine_now, (int)e, __ATOMIC_RELAXED);
    return true;
}

/* Fewer blocks than this, before any engine is chosen, are hashed by the
 * portable code without asking the CPU: a runtime program linked against
 * musl has no copy of CPUID to read, and the three CPUIDs (15 us in a VM)
 * cost more than the extensions gain on an artifact of a few KiB. */
#define CP_SHA256_PROBE_BLOCKS 64

/* The compression function of the engine in use. */
static void cp_sha256_run(uint32_t h[8], const unsigned char *p, size_t n)
{
    int e = __atomic_load_n(&cp_sha256_engine_now, __ATOMIC_RELAXED);
    if (!e && n < CP_SHA256_PROBE_BLOCKS) {
        cp_sha256_blocks(h, p, n);
        return;
    }
    if (!e) {
        cp_sha256_select(CP_SHA256_AUTO);
        e = __atomic_load_n(&cp_sha256_engine_now, __ATOMIC_RELAXED);
    }
    if (e == CP_SHA256_SHANI)
        cp_sha256_blocks_shani(h, p, n);
    else
        cp_sha256_blocks(h, p, n);
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
        cp_sha256_run(c->h, c->blk, 1);
        c->nblk = 0;
    }
    cp_sha256_run(c->h, p, len / 64);
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
        cp_sha256_run(c->h, c->blk, 1);
        c->nblk = 0;
    }
    memset(c->blk + c->nblk, 0, 56 - c->nblk);
    for (int i = 0; i < 8; i++)
        c->blk[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    cp_sha256_run(c->h, c->blk, 1);
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
