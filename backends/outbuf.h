/* SPDX-License-Identifier: MIT */
/* Inline appends to a struct cp_buf for the backends' hot loops: one
 * capacity check per append and no formatting, with the buffer's
 * invariants kept (heap data, NUL-terminated), so cp_buf_* and these
 * mix freely. */
#ifndef CP_OUTBUF_H
#define CP_OUTBUF_H

#include <string.h>

#include "arena.h"

static inline void cp_ob_grow(struct cp_buf *b, size_t extra)
{
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + extra + 1)
        ncap *= 2;
    b->data = cp_xrealloc(b->data, ncap);
    b->cap = ncap;
}

/* Room for n more bytes and the NUL. */
static inline char *cp_ob_room(struct cp_buf *b, size_t n)
{
    if (b->len + n + 1 > b->cap)
        cp_ob_grow(b, n);
    return b->data + b->len;
}

static inline void cp_ob_add(struct cp_buf *b, const void *p, size_t n)
{
    char *d = cp_ob_room(b, n);
    if (n)
        memcpy(d, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static inline void cp_ob_addc(struct cp_buf *b, char c)
{
    char *d = cp_ob_room(b, 1);
    d[0] = c;
    d[1] = '\0';
    b->len++;
}

static inline void cp_ob_adds(struct cp_buf *b, const char *s)
{
    cp_ob_add(b, s, strlen(s));
}

#endif
