/* SPDX-License-Identifier: MIT */
/* HMAC-SHA256 (RFC 2104) over the in-tree SHA-256, for the keyed fields of
 * the gate's decision log (spec/gate.md, "Decision log"). */
#ifndef CP_HMAC_H
#define CP_HMAC_H

#include <stddef.h>

#include "sha256.h"

/* Lower-case hex of the MAC, NUL-terminated. */
void cp_hmac_sha256_hex(const void *key, size_t keylen, const void *data,
                        size_t len, char out[CP_SHA256_HEX]);

#endif
