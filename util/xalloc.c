/* SPDX-License-Identifier: MIT */
/* The checked heap allocators (declared in arena.h): out of memory is
 * fatal.  A file of their own so that a program needing only them (the
 * runtime's stage and janitor, spec/runtime.md §11.1) links no arena. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

_Noreturn void cp_die_oom(void)
{
    fputs("confpol: out of memory\n", stderr);
    abort();
}

void *cp_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        cp_die_oom();
    return p;
}

void *cp_xcalloc(size_t n, size_t m)
{
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (!p)
        cp_die_oom();
    return p;
}

void *cp_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        cp_die_oom();
    return p;
}

char *cp_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(cp_xmalloc(n), s, n);
}

char *cp_xstrndup(const char *s, size_t n)
{
    char *r = cp_xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}
