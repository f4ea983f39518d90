/* SPDX-License-Identifier: MIT */
/* UTF-8 well-formedness (Unicode 15, table 3-7): the one validator every
 * room uses (the scanner, the SBPL string encoder, the gate's answer JSON,
 * the JSON reader). */
#ifndef CP_UTF8_H
#define CP_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length (1..4) of the well-formed UTF-8 sequence at s, which has n >= 1
 * bytes left; 0 if the bytes there are not one: a stray continuation byte,
 * an overlong form, a surrogate, a code point above U+10FFFF or a sequence
 * cut short by the end. */
size_t cp_utf8_len(const unsigned char *s, size_t n);

/* True if all n bytes of s are well-formed UTF-8. */
bool cp_utf8_valid(const char *s, size_t n);

#endif
