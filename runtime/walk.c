/* SPDX-License-Identifier: MIT */
/* The one resolution of a path of both enforcers' planners (spec/runtime.md
 * §5, "Descriptors, not paths"): realpath, one component at a time beneath
 * the descriptor of the one before, each opened with O_NOFOLLOW, so that
 * what it returns is one consistent view, whatever another process renames
 * meanwhile, never a mix of two. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"

void cp_rt_walk_free(struct cp_rt_walk *w)
{
    free(w->real);
    free(w->rest);
    free(w->link);
    memset(w, 0, sizeof *w);
}

/* The walk in progress: the directory reached (`cur`, open as `fd`), what
 * is left to resolve (`todo` from `p`), the symlinks followed so far. */
struct walker {
    char *todo, *p, *cur;
    int fd, links;
    bool (*may_follow)(void *ctx, const char *dir);
    void *ctx;
};

/* Back to "/" (an absolute symlink's target).  0 or an errno. */
static int walk_root(struct walker *k)
{
    free(k->cur);
    k->cur = cp_xstrdup("/");
    if (k->fd >= 0)
        close(k->fd);
    k->fd = cp_rt_open_nofollow("/", O_PATH | O_DIRECTORY);
    return k->fd < 0 ? errno : 0;
}

/* The symlink `name` (open as nfd) met at k->cur with `next` left after
 * it: not followed where the sandbox could replace it (w->link), else its
 * target put in front of what is left.  0 or an errno. */
static int walk_link(struct walker *k, int nfd, const char *name,
                     const char *next, struct cp_rt_walk *w)
{
    if (k->may_follow && !k->may_follow(k->ctx, k->cur)) {
        w->link = cp_rt_path_child(k->cur, name);
        return 0;
    }
    char target[PATH_MAX];
    ssize_t n = readlinkat(nfd, "", target, sizeof target - 1);
    if (n <= 0 || ++k->links > 40)
        return n <= 0 ? EINVAL : ELOOP;
    target[n] = '\0';
    size_t tn = (size_t)n + strlen(next) + 2;
    char *t = cp_xmalloc(tn);
    snprintf(t, tn, "%s/%s", target, next);
    free(k->todo);
    k->p = k->todo = t;
    w->via_link = true;
    return *target == '/' ? walk_root(k) : 0;
}

/* "." or ".." in a symlink's target (bound paths are canonical: in the
 * path as given, EINVAL): "." stays, ".." goes to the parent of the
 * canonical directory reached, opened again without following a symlink.
 * 0 or an errno. */
static int walk_dot(struct walker *k, const char *name, char *next)
{
    if (!k->links)
        return EINVAL;
    k->p = next;
    if (!strcmp(name, ".") || !strcmp(k->cur, "/"))
        return 0;
    char *slash = strrchr(k->cur, '/');
    *(slash == k->cur ? slash + 1 : slash) = '\0';
    close(k->fd);
    k->fd = cp_rt_open_nofollow(k->cur, O_PATH | O_DIRECTORY);
    return k->fd < 0 ? errno : 0;
}

/* The walk goes on at `name` beneath k->cur, open as nfd.  0. */
static int walk_enter(struct walker *k, const char *name, char *next, int nfd)
{
    char *c = cp_rt_path_child(k->cur, name);
    free(k->cur);
    k->cur = c;
    close(k->fd);
    k->fd = nfd;
    k->p = next;
    return 0;
}

/* One component `name` of the walk, `next` what follows it.  0 to go on
 * (k->p advanced), 1 when the walk ends here (w->rest or w->link set), or
 * an errno. */
static int walk_step(struct walker *k, const char *name, char *next,
                     struct cp_rt_walk *w)
{
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return walk_dot(k, name, next);
    /* A directory first (most components are): then no fstat is needed to
     * tell it from a symlink or a file.  Anything else fails with ENOTDIR
     * and is opened again as it is. */
    struct stat st;
    int nfd = openat(k->fd, name,
                     O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    if (nfd >= 0)
        return walk_enter(k, name, next, nfd);
    if (errno == ENOTDIR)
        nfd = openat(k->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (nfd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
        if (strstr(k->p, "/..") || !strncmp(k->p, "..", 2))
            return EINVAL; /* a missing part a link's '..' would leave */
        w->rest = cp_xstrdup(k->p);
        return 1;
    }
    if (nfd < 0 || fstat(nfd, &st) < 0) {
        int err = errno;
        if (nfd >= 0)
            close(nfd);
        return err;
    }
    if (S_ISLNK(st.st_mode)) {
        int err = walk_link(k, nfd, name, next, w);
        close(nfd);
        return err ? err : w->link ? 1 : 0;
    }
    walk_enter(k, name, next, nfd);
    if (!S_ISDIR(st.st_mode) && *next) { /* a file in the way */
        w->rest = cp_xstrdup(next + 1);
        return 1;
    }
    return 0;
}

/* An absolute path as realpath writes one: no empty, "." or ".."
 * component, no trailing "/". */
static bool walk_canonical(const char *p)
{
    if (*p != '/')
        return false;
    if (!p[1])
        return true;
    while (*p) { /* at a '/' */
        size_t n = strcspn(p + 1, "/");
        if (n == 0 || (n == 1 && p[1] == '.') ||
            (n == 2 && p[1] == '.' && p[2] == '.'))
            return false;
        p += 1 + n;
    }
    return true;
}

int cp_rt_walk_path(const char *path,
                    bool (*may_follow)(void *ctx, const char *dir), void *ctx,
                    struct cp_rt_walk *w)
{
    memset(w, 0, sizeof *w);
    /* Most paths exist and hold no symlink: then one openat2 that follows
     * none (RESOLVE_NO_SYMLINKS, one lookup: one consistent view too)
     * finds what the walk would, the path itself with nothing missing.
     * Anything else (a symlink, a missing part, a file on the way) is
     * the walk's to tell. */
    if (walk_canonical(path) && cp_rt_have_openat2()) {
        int fd = cp_rt_open_nofollow(path, O_PATH);
        if (fd >= 0) {
            close(fd);
            w->real = cp_xstrdup(path);
            w->rest = cp_xstrdup("");
            return 0;
        }
    }
    struct walker k = {.todo = cp_xstrdup(path),
                       .cur = NULL,
                       .fd = -1,
                       .may_follow = may_follow,
                       .ctx = ctx};
    k.p = k.todo;
    int err = walk_root(&k);
    while (!err) {
        k.p += strspn(k.p, "/");
        if (!*k.p)
            break;
        size_t n = strcspn(k.p, "/");
        char *name = cp_xstrndup(k.p, n);
        err = walk_step(&k, name, k.p + n, w);
        free(name);
        if (err == 1) {
            err = 0;
            break;
        }
    }
    if (k.fd >= 0)
        close(k.fd);
    free(k.todo);
    if (err || w->link) {
        free(k.cur);
        free(w->rest);
        w->rest = NULL;
        return err;
    }
    w->real = k.cur;
    if (!w->rest)
        w->rest = cp_xstrdup("");
    return 0;
}

char *cp_rt_walk_real(const char *path)
{
    struct cp_rt_walk w;
    int err = cp_rt_walk_path(path, NULL, NULL, &w);
    if (!err && (!w.real || !w.rest)) /* a link not followed: none here */
        err = ELOOP;
    else if (!err && *w.rest)
        err = ENOENT;
    char *real = err ? NULL : w.real;
    if (!err)
        w.real = NULL;
    cp_rt_walk_free(&w);
    errno = err;
    return real;
}

bool cp_rt_path_links(const char *path,
                      bool (*fn)(void *ctx, const char *link,
                                 const char *parent),
                      void *ctx)
{
    char *q = cp_xstrdup(path);
    bool stop = false;
    for (char *s = q + 1; !stop; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat st;
        if (lstat(q, &st) == 0 && S_ISLNK(st.st_mode)) {
            char *slash = strrchr(q, '/');
            *slash = '\0';
            char *pr = cp_rt_walk_real(*q ? q : "/");
            *slash = '/';
            stop = pr && fn(ctx, q, pr);
            free(pr);
        }
        if (c == '\0')
            break;
        *s = c;
    }
    free(q);
    return stop;
}
