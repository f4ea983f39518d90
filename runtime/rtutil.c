/* SPDX-License-Identifier: MIT */
/* The primitives every runtime program links (spec/runtime.md §11.1): the
 * one error idiom (cp_rt_fail), warnings, and string vectors.  Nothing
 * here knows of artifacts, plans or processes. */
#include "runtime.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"

void cp_rt_vfmt(char *dst, size_t size, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(dst, size, fmt, aq);
    va_end(aq);
    static const char gap[] = " ... ";
    size_t keep = size > 2 * sizeof gap ? (size - sizeof gap) / 2 : 0;
    if (n < 0 || (size_t)n < size || !keep)
        return;
    char *whole = malloc((size_t)n + 1);
    if (!whole)
        return; /* the head alone, as vsnprintf left it */
    vsnprintf(whole, (size_t)n + 1, fmt, ap);
    memcpy(dst, whole, keep);
    memcpy(dst + keep, gap, sizeof gap - 1);
    memcpy(dst + keep + sizeof gap - 1, whole + (size_t)n - keep, keep);
    dst[2 * keep + sizeof gap - 1] = '\0';
    free(whole);
}

int cp_rt_fail(struct cp_rt_err *e, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cp_rt_vfmt(e->msg, sizeof e->msg, fmt, ap);
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

void cp_rt_eprintf(const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t len = n < 0                    ? 0
                 : (size_t)n < sizeof buf ? (size_t)n
                                          : sizeof buf - 1;
    for (size_t off = 0; off < len;) {
        ssize_t w = write(2, buf + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* stderr gone: nothing else to tell it with */
        off += (size_t)w;
    }
}

void cp_rt_warn(const char *prog, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cp_rt_eprintf("%s: warning: %s\n", prog, buf);
}

pid_t cp_rt_fork(void)
{
#ifdef __GLIBC__
    return fork();
#else
    /* musl's fork blocks every signal around the clone and restores the
     * mask without checking: a failing rt_sigprocmask leaves the parent
     * or the child with every signal blocked, and the answer to that
     * failure would be musl's, not ours (runtime-pin-faults.sh).  Each
     * caller is one thread and sets the child's signal state itself, so
     * the system call alone is fork here (no atfork handler is ours). */
    return (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
}

char *cp_rt_realpath(const char *path)
{
    char *r = realpath(path, NULL);
    /* musl keeps exactly two leading slashes, as POSIX allows; glibc and
     * the kernel's own resolution answer one: a param given as "//x" is
     * not canonical under either C library. */
    if (r && r[0] == '/' && r[1] == '/')
        memmove(r, r + 1, strlen(r));
    return r;
}
