/* SPDX-License-Identifier: MIT */
/* HMAC-SHA256 as RFC 2104 defines it: H((K' ^ opad) || H((K' ^ ipad) || m)),
 * K' the key hashed when longer than the 64-byte block, then padded with
 * zeros.  Checked against the RFC 4231 vectors (tests/unit/test_content.c). */
#include "hmac.h"

#include <string.h>

static void cp_hmac_sha256(const void *key, size_t keylen, const void *data,
                           size_t len, unsigned char mac[CP_SHA256_LEN])
{
    unsigned char k[64] = {0}, pad[64], inner[CP_SHA256_LEN];
    struct cp_sha256 c;
    if (keylen > sizeof k) {
        cp_sha256_init(&c);
        cp_sha256_update(&c, key, keylen);
        cp_sha256_final(&c, k);
    } else if (keylen) {
        memcpy(k, key, keylen);
    }
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = k[i] ^ 0x36;
    cp_sha256_init(&c);
    cp_sha256_update(&c, pad, sizeof pad);
    cp_sha256_update(&c, data, len);
    cp_sha256_final(&c, inner);
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = k[i] ^ 0x5c;
    cp_sha256_init(&c);
    cp_sha256_update(&c, pad, sizeof pad);
    cp_sha256_update(&c, inner, sizeof inner);
    cp_sha256_final(&c, mac);
}

void cp_hmac_sha256_hex(const void *key, size_t keylen, const void *data,
                        size_t len, char out[CP_SHA256_HEX])
{
    unsigned char mac[CP_SHA256_LEN];
    cp_hmac_sha256(key, keylen, data, len, mac);
    cp_sha256_hex_encode(mac, out);
}
