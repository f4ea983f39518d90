/* SPDX-License-Identifier: MIT */
/* The regex engine of gate and content patterns: POSIX extended regexes
 * (the subset in spec/patterns.md, "Regexes") searched in time linear in
 * the subject, by a lazily built DFA over a Thompson NFA (compiler/rx.c). */
#ifndef CP_RX_H
#define CP_RX_H

#include <stdbool.h>
#include <stddef.h>

struct cp_rx;

enum {
    CP_RX_NEWLINE = 1, /* as REG_NEWLINE: '.' and [^...] never match a
                          newline (^ and $ hold at line ends always) */
};

/* Bounds: states of the NFA with every repetition expanded, and the bytes
 * the DFA cache may hold before it is emptied and built again. */
#define CP_RX_MAX_STATES 400000
#define CP_RX_CACHE_BYTES (4u << 20)

/* Compiles T (N bytes, no NUL).  Returns NULL and sets *out, or a message
 * (static text) saying why T is refused. */
const char *cp_rx_compile(const char *t, size_t n, int flags,
                          struct cp_rx **out);
/* Does some substring of S[0..N) match?  Mutates only the DFA cache. */
bool cp_rx_search(struct cp_rx *rx, const char *s, size_t n);
void cp_rx_free(struct cp_rx *rx);

#endif
