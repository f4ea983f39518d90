/* SPDX-License-Identifier: MIT */
/* The primitives every runtime program links (spec/runtime.md §11.1): the
 * one error idiom (cp_rt_fail), warnings, and string vectors.  Nothing
 * here knows of artifacts, plans or processes. */
#include "runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

int cp_rt_fail(struct cp_rt_err *e, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->status = status;
    return status;
}

void cp_rt_strv_push(struct cp_rt_strv *s, const char *str)
{
    if (s->n + 1 >= s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = cp_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = cp_xstrdup(str);
    s->v[s->n] = NULL;
}

void cp_rt_strv_free(struct cp_rt_strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

void cp_rt_warn(const char *prog, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: warning: %s\n", prog, buf);
}
