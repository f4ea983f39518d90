/* SPDX-License-Identifier: MIT */
/* The Claude artifact's integrity pin (gate_pin.h). */
#ifndef _GNU_SOURCE /* memmem; the Makefile defines it for every file */
#define _GNU_SOURCE
#endif
#include "gate_pin.h"

#include <stdbool.h>
#include <string.h>

void cp_gate_pin_digest(const char *data, size_t len, char out[CP_SHA256_HEX])
{
    static const char mark[] = "gate --sha256 ";
    const size_t ml = sizeof mark - 1;
    static const char zeros[64] =
        "0000000000000000000000000000000000000000000000000000000000000000";
    struct cp_sha256 c;
    cp_sha256_init(&c);
    size_t i = 0;
    for (;;) {
        const char *p = len - i >= ml ? memmem(data + i, len - i, mark, ml)
                                      : NULL;
        size_t at = p ? (size_t)(p - data) + ml : len;
        bool hex = p && len - at >= 64;
        for (size_t k = 0; hex && k < 64; k++)
            hex = (data[at + k] >= '0' && data[at + k] <= '9') ||
                  (data[at + k] >= 'a' && data[at + k] <= 'f');
        if (!p) {
            cp_sha256_update(&c, data + i, len - i);
            break;
        }
        cp_sha256_update(&c, data + i, at - i);
        i = at;
        if (hex) {
            cp_sha256_update(&c, zeros, 64);
            i += 64;
        }
    }
    unsigned char md[CP_SHA256_LEN];
    cp_sha256_final(&c, md);
    cp_sha256_hex_encode(md, out);
}
