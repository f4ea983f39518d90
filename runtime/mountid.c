/* SPDX-License-Identifier: MIT */
/* The identities of the bwrap launch's mounts (spec/runtime.md §5,
 * "Descriptors, not paths").  Three steps, one per moment of the launch:
 *
 *   planning   each bind's source is looked at once (lstat: a canonical
 *              path, so never a symlink) and its identity recorded;
 *   spawning   the source is opened without following a symlink at any
 *              component and must still be that file; bwrap gets the
 *              descriptor (--bind-fd, --ro-bind-fd) where it has them;
 *   the stage  inside the sandbox, before the command runs, each mount
 *              the runtime placed is found at its place without a
 *              symlink on the way, is the root of a mount, and shows the
 *              source's identity.
 *
 * bwrap resolves a mount's destination by name, following symlinks: a
 * second session that swaps a component for a symlink while bwrap mounts
 * moves the mount elsewhere and leaves the protected name bare.  The
 * stage's check is what catches that; the descriptors make a swapped
 * source impossible instead of detected. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

/* Is `opt` one of the binds whose source is a host path? */
static bool mid_is_bind(const char *opt)
{
    return !strcmp(opt, "--bind") || !strcmp(opt, "--ro-bind");
}

/* The last word index at which each destination is mounted, sorted by
 * path: word i's mount at d is hidden by a later mount at d or above it
 * when one of d's prefixes was mounted after i.  Built in one pass, asked
 * once per component of d: no quadratic scan of the words. */
struct mid_last {
    const char *path;
    size_t word;
};

static int mid_last_cmp(const void *a, const void *b)
{
    return strcmp(((const struct mid_last *)a)->path,
                  ((const struct mid_last *)b)->path);
}

/* The mounts' destinations of w, sorted, each with its last word; *n. */
static struct mid_last *mid_last_build(const struct cp_rt_strv *w, size_t *n)
{
    struct mid_last *v = cp_xmalloc((w->n + 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < w->n;) {
        int na = cp_rt_bwrap_nargs(w->v[i]);
        if (na < 0)
            break; /* cp_rt_plan_identities refuses such words */
        if (na && cp_rt_bwrap_mounts(w->v[i]) && i + (size_t)na < w->n)
            v[k++] = (struct mid_last){w->v[i + (size_t)na], i};
        i += 1 + (size_t)na;
    }
    /* qsort is not stable: of equal paths the largest word is kept. */
    qsort(v, k, sizeof *v, mid_last_cmp);
    size_t out = 0;
    for (size_t i = 0; i < k; i++) {
        if (out && !strcmp(v[out - 1].path, v[i].path)) {
            if (v[i].word > v[out - 1].word)
                v[out - 1].word = v[i].word;
        } else {
            v[out++] = v[i];
        }
    }
    *n = out;
    return v;
}

/* Was `path` (a prefix of a destination, exactly) mounted after word i? */
static bool mid_later_at(const struct mid_last *v, size_t n, const char *path,
                         size_t i)
{
    struct mid_last key = {path, 0};
    const struct mid_last *f = bsearch(&key, v, n, sizeof *v, mid_last_cmp);
    return f && f->word > i;
}

/* Is word i's destination d hidden by a later mount of the words at d
 * itself or above it?  Then the later mount is the one the sandbox sees,
 * and the one verified. */
static bool mid_covered(const struct mid_last *v, size_t n, size_t i,
                        const char *d)
{
    if (mid_later_at(v, n, "/", i) || mid_later_at(v, n, d, i))
        return true;
    char *p = cp_xstrdup(d);
    bool hit = false;
    for (char *s = strrchr(p, '/'); s && s > p && !hit; s = strrchr(p, '/')) {
        *s = '\0';
        hit = mid_later_at(v, n, p, i);
    }
    free(p);
    return hit;
}

static void mid_push(struct cp_rt_plan *pl, size_t word, const struct stat *st,
                     bool verify)
{
    if (pl->nids == pl->capids) {
        pl->capids = pl->capids ? 2 * pl->capids : 16;
        pl->ids = cp_xrealloc(pl->ids, pl->capids * sizeof *pl->ids);
    }
    struct cp_rt_mountid *m = &pl->ids[pl->nids++];
    m->word = word;
    m->dev = st ? st->st_dev : 0;
    m->ino = st ? st->st_ino : 0;
    m->type = st ? st->st_mode & S_IFMT : 0;
    m->has_id = st != NULL;
    m->verify = verify;
}

/* Verified inside: the runtime's own mounts, at canonical places
 * (self-binds, masks with /dev/null, scratch tmpfs). */
static bool mid_own(const char *opt, const char *src, const char *dst)
{
    if (!dst || *dst != '/')
        return false;
    if (src)
        return !strcmp(src, dst) || !strcmp(src, "/dev/null");
    return !strcmp(opt, "--tmpfs");
}

int cp_rt_plan_identities(struct cp_rt_plan *pl, struct cp_rt_err *e)
{
    const struct cp_rt_strv *w = &pl->words;
    size_t nlast;
    struct mid_last *last = mid_last_build(w, &nlast);
    int rc = 0;
    for (size_t i = 0; i < w->n && !rc;) {
        int na = cp_rt_bwrap_nargs(w->v[i]);
        if (na < 0 || i + (size_t)na >= w->n) {
            rc = cp_rt_fail(e, CP_RT_EXIT_ERROR,
                            "internal error: bwrap word '%.100s' at %zu",
                            w->v[i], i);
            break;
        }
        const char *src = na == 2 ? w->v[i + 1] : NULL;
        const char *dst = na ? w->v[i + (size_t)na] : NULL;
        bool own = mid_own(w->v[i], src, dst);
        bool verify = own && !mid_covered(last, nlast, i, dst);
        struct stat st;
        int r = mid_is_bind(w->v[i]) && src && *src == '/' ? lstat(src, &st)
                                                           : -1;
        if (r == 0 && !S_ISLNK(st.st_mode)) {
            mid_push(pl, i, &st, verify);
        } else if (own && mid_is_bind(w->v[i])) {
            /* The planner's own binds are canonical: a symlink or nothing
             * there now is another process at work. */
            rc = cp_rt_fail(e, CP_RT_EXIT_CHANGED,
                            "cannot enforce: '%s' %s while the launch was "
                            "planned",
                            src, r == 0 ? "became a symlink" : "disappeared");
        } else if (verify) {
            mid_push(pl, i, NULL, true);
        }
        i += 1 + (size_t)na;
    }
    free(last);
    return rc;
}

/* The source of identity m opened without following a symlink and checked
 * against what planning saw: 0 and *fd, or CP_RT_EXIT_CANNOT. */
static int mid_open(const struct cp_rt_plan *pl, const struct cp_rt_mountid *m,
                    int *fd, struct cp_rt_err *e)
{
    const char *src = pl->words.v[m->word + 1];
    struct stat want = {.st_dev = m->dev, .st_ino = m->ino, .st_mode = m->type};
    *fd = cp_rt_reopen(src, &want);
    if (*fd >= 0)
        return 0;
    return cp_rt_fail(e, CP_RT_EXIT_CHANGED,
                      "cannot enforce: '%s' changed since the launch was "
                      "planned (%s): another process replaced it",
                      src, cp_rt_changed_why(errno));
}

static void mid_verify_words(const struct cp_rt_plan *pl,
                             const struct cp_rt_mountid *m,
                             struct cp_rt_strv *out)
{
    char buf[64];
    const char *dst = pl->words.v[m->word + (m->has_id ? 2 : 1)];
    cp_rt_strv_push(out, "--verify-mount");
    if (m->has_id) {
        snprintf(buf, sizeof buf, "%" PRIuMAX ":%" PRIuMAX ":%u",
                 (uintmax_t)m->dev, (uintmax_t)m->ino, (unsigned)m->type);
        cp_rt_strv_push(out, buf);
    } else {
        cp_rt_strv_push(out, "-");
    }
    cp_rt_strv_push(out, dst);
}

int cp_rt_bind_fds(struct cp_rt_plan *pl, bool bind_fd, struct cp_rt_fds *fds,
                   struct cp_rt_strv *verify, struct cp_rt_err *e)
{
    for (size_t i = 0; i < pl->nids; i++) {
        const struct cp_rt_mountid *m = &pl->ids[i];
        if (m->verify)
            mid_verify_words(pl, m, verify);
        if (!m->has_id)
            continue;
        int fd;
        int rc = mid_open(pl, m, &fd, e);
        if (rc)
            return rc;
        if (fds->n == fds->cap) {
            fds->cap = fds->cap ? 2 * fds->cap : 16;
            fds->v = cp_xrealloc(fds->v, fds->cap * sizeof *fds->v);
        }
        fds->v[fds->n++] = fd;
        if (!bind_fd)
            continue; /* checked now, and again by the stage */
        char num[16];
        snprintf(num, sizeof num, "%d", fd);
        char **opt = &pl->words.v[m->word], **src = &pl->words.v[m->word + 1];
        const char *fdopt = strcmp(*opt, "--bind") ? "--ro-bind-fd"
                                                   : "--bind-fd";
        free(*opt);
        *opt = cp_xstrdup(fdopt);
        free(*src);
        *src = cp_xstrdup(num);
    }
    return 0;
}

void cp_rt_fds_close(struct cp_rt_fds *fds)
{
    for (size_t i = 0; i < fds->n; i++)
        close(fds->v[i]);
    free(fds->v);
    memset(fds, 0, sizeof *fds);
}

bool cp_rt_bwrap_has_bind_fd(const char *bwrap)
{
    int fd = open(bwrap, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0 ||
        st.st_size > 16 * 1024 * 1024) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    /* Mapped, not read: the pages come from the page cache as they are,
     * where a read copied the whole binary into a buffer (measured: a
     * tenth of a millisecond of the launcher's CPU on the development
     * VM). */
    size_t len = (size_t)st.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return false;
    static const char opt[] = "--ro-bind-fd";
    bool has = memmem(map, len, opt, sizeof opt) != NULL; /* with its NUL */
    munmap(map, len);
    return has;
}
