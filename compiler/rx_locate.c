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

/* The scan's state: the open groups and whether an atom precedes (a
 * repetition may follow). */
struct rx_scan {
    size_t open[256];
    size_t depth;
    bool operand;
};

/* The interval opening at s[*ip] ('{'): *ip is moved to its '}'.  Returns
 * the offset of a byte that cannot be right, or n. */
static size_t rx_interval(const char *s, size_t n, size_t *ip)
{
    size_t i = *ip, j = i + 1;
    while (j < n && s[j] != '}')
        j++;
    if (j >= n)
        return i;
    for (size_t k = i + 1; k < j; k++)
        if (!(s[k] >= '0' && s[k] <= '9') && s[k] != ',')
            return k;
    *ip = j;
    return n;
}

/* Reads the token at s[*ip] (*ip is left on its last byte).  Returns the
 * offset of a byte that cannot be right, or n. */
static size_t rx_step(struct rx_scan *x, const char *s, size_t n, size_t *ip)
{
    size_t i = *ip;
    switch (s[i]) {
    case '\\':
        if (i + 1 >= n)
            return i; /* a trailing backslash */
        *ip = i + 1;
        x->operand = true;
        return n;
    case '[': {
        size_t e = rx_bracket_end(s, n, i);
        if (e >= n)
            return i; /* not closed */
        *ip = e;
        x->operand = true;
        return n;
    }
    case '(':
        if (x->depth < sizeof x->open / sizeof *x->open)
            x->open[x->depth] = i;
        x->depth++;
        x->operand = false;
        return n;
    case ')':
        if (x->depth == 0)
            return i; /* glibc accepts it as a literal, others do not */
        x->depth--;
        x->operand = true;
        return n;
    case '|':
        x->operand = false;
        return n;
    case '*':
    case '+':
    case '?':
        return x->operand ? n : i; /* else nothing to repeat */
    case '{':
        return x->operand ? rx_interval(s, n, ip) : i;
    default:
        x->operand = true;
        return n;
    }
}

size_t cp_rx_locate(const char *s, size_t n)
{
    struct rx_scan x;
    x.depth = 0;
    x.operand = false;
    bool repeated = false; /* a repetition precedes: another is refused */
    for (size_t i = 0; i < n; i++) {
        bool rep = s[i] == '*' || s[i] == '+' || s[i] == '?' || s[i] == '{';
        if (rep && repeated)
            return i; /* a repetition of a repetition */
        repeated = rep;
        size_t bad = rx_step(&x, s, n, &i);
        if (bad < n)
            return bad;
    }
    if (x.depth)
        return x.open[0]; /* the outermost '(' left open */
    return n;
}
