/* SPDX-License-Identifier: MIT */
#include "utf8.h"

#include <stdint.h>
#include <string.h>

size_t cp_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    /* The lead byte's payload bits, then six from each continuation byte;
     * the minimum rejects overlong forms, the range checks the rest. */
    unsigned cp = c & (0x3fu >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

bool cp_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint64_t w;
        if (n - i >= 8 && (memcpy(&w, p + i, 8), !(w & 0x8080808080808080u))) {
            i += 8; /* eight ASCII bytes at once: most text */
            continue;
        }
        if (p[i] < 0x80) { /* most text: no call per byte */
            i++;
            continue;
        }
        size_t k = cp_utf8_len(p + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}
