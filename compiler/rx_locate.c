/* SPDX-License-Identifier: MIT */
/* Where a POSIX extended regex goes wrong: regcomp says what (REG_EPAREN,
 * REG_EBRACK, ...) but not where, and a diagnostic should point at the
 * offending character.  A small scan of ERE syntax finds the first byte
 * that cannot be right; it does not validate, it only locates. */
#include <stdbool.h>
#include <stddef.h>

#include "sema.h"

/* Offset of the ']' that closes the bracket expression opening at `i`
 * ('['), or n when it is not closed. */
static size_t rx_bracket_end(const char *s, size_t n, size_t i)
{
    size_t j = i + 1;
    if (j < n && s[j] == '^')
        j++;
    if (j < n && s[j] == ']')
        j++; /* a leading ']' is a literal */
    while (j < n && s[j] != ']') {
        if (s[j] == '[' && j + 1 < n &&
            (s[j + 1] == ':' || s[j + 1] == '.' || s[j + 1] == '=')) {
            char close = s[j + 1];
            size_t k = j + 2;
            while (k + 1 < n && !(s[k] == close && s[k + 1] == ']'))
                k++;
            if (k + 1 >= n)
                return n;
            j = k + 2;
            continue;
        }
        j++;
    }
    return j;
}

size_t cp_rx_locate(const char *s, size_t n)
{
    size_t open[256];
    size_t depth = 0;
    bool operand = false; /* an atom precedes: a repetition may follow */
    bool repeated = false; /* a repetition precedes: another is refused */
    for (size_t i = 0; i < n; i++) {
        bool rep = s[i] == '*' || s[i] == '+' || s[i] == '?' || s[i] == '{';
        if (rep && repeated)
            return i; /* a repetition of a repetition */
        repeated = rep;
        switch (s[i]) {
        case '\\':
            if (i + 1 >= n)
                return i; /* a trailing backslash */
            i++;
            operand = true;
            break;
        case '[': {
            size_t e = rx_bracket_end(s, n, i);
            if (e >= n)
                return i; /* not closed */
            i = e;
            operand = true;
            break;
        }
        case '(':
            if (depth < sizeof open / sizeof *open)
                open[depth] = i;
            depth++;
            operand = false;
            break;
        case ')':
            if (depth == 0)
                return i; /* glibc accepts it as a literal, others do not */
            depth--;
            operand = true;
            break;
        case '|':
            operand = false;
            break;
        case '*':
        case '+':
        case '?':
            if (!operand)
                return i; /* nothing to repeat */
            break;
        case '{': {
            if (!operand)
                return i;
            size_t j = i + 1;
            while (j < n && s[j] != '}')
                j++;
            if (j >= n)
                return i;
            for (size_t k = i + 1; k < j; k++)
                if (!(s[k] >= '0' && s[k] <= '9') && s[k] != ',')
                    return k;
            i = j;
            break;
        }
        default:
            operand = true;
            break;
        }
    }
    if (depth)
        return open[0]; /* the outermost '(' left open */
    return n;
}
