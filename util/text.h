/* SPDX-License-Identifier: MIT */
/* Small text primitives shared by the rooms: hex digits, the decoding of
 * a quoted string's escapes, shell word quoting. */
#ifndef CP_TEXT_H
#define CP_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct cp_buf;

/* The decimal digits of V, written at the end of BUF (CP_UTOA_LEN bytes);
 * returns the first. */
enum { CP_UTOA_LEN = 24 };
const char *cp_utoa(char *buf, unsigned long v);

/* The first byte c in p[0..n), or NULL: memchr, sixteen bytes at a time
 * where the compiler has SSE2.  The gate's scans of a 1 MiB input (the
 * JSON reader's quotes, the NUL check, the content scan's lines) call it
 * for spans from a few bytes to the whole input, where the C library's
 * memchr differs tenfold between libraries (confpol-gate links musl). */
const char *cp_find_byte(const char *p, size_t n, char c);

/* The value (0..15) of the hex digit c, or -1. */
int cp_hex_digit(int c);

/* Decodes the escapes of a quoted string's body s (n bytes, as the scanner
 * let it through): \" and \\ give the quoted byte, \xHH the byte HH; any
 * other backslash is kept as written.  out has room for n + 1 bytes and is
 * NUL-terminated; if map is not NULL it has room for n + 1 offsets and
 * map[k] is the offset in s of decoded byte k (map[len] = n).  *nul_at is
 * set to the offset of the first \x00 escape, or to n if there is none.
 * Returns the decoded length. */
size_t cp_unquote(const char *s, size_t n, char *out, size_t *map,
                  size_t *nul_at);

/* Shell word quoting (the Claude artifact's hook command, the settings
 * wiring's): the word unchanged when it holds only [A-Za-z0-9_./:=+@%,-]
 * and does not start with '-' (and is not empty), else single-quoted with
 * ' written as '\''. */
void cp_shell_quote(struct cp_buf *b, const char *s);

/* A fixed set of names (program names of the shell reader's and the
 * command tables' lists), found in time linear in the name looked up: an
 * open-addressing table filled once.  At most CP_NAMESET_MAX names. */
#define CP_NAMESET_MAX 256
struct cp_nameset {
    const char *name[2 * CP_NAMESET_MAX];
    int value[2 * CP_NAMESET_MAX];
    size_t n;
};
/* Adds name with value (the first value added for a name stays); false
 * when the set is full. */
bool cp_nameset_put(struct cp_nameset *s, const char *name, int value);
/* The value of name, or -1. */
int cp_nameset_get(const struct cp_nameset *s, const char *name);

#endif
