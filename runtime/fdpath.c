/* SPDX-License-Identifier: MIT */
/* Resolving a path once, without following a symlink at any component
 * (spec/runtime.md §5, "Descriptors, not paths").  Every path the runtime
 * grants, pins, masks or creates goes through here: a check made on a
 * name and a use of the same name later are two resolutions, and another
 * process (a second session sharing a write root) can swap a component for
 * a symlink between them.  The descriptor this yields is the thing that
 * was checked; the runtime hands on the descriptor, or compares its
 * identity with the one recorded when planning. */
#include "runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* include/uapi/linux/openat2.h (own copy: the installed headers may be
 * older than the kernel). */
struct fp_open_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};
#define FP_RESOLVE_NO_MAGICLINKS 0x02
#define FP_RESOLVE_NO_SYMLINKS 0x04

/* -1: not probed yet; 0: openat2 missing (ENOSYS, or a seccomp filter of
 * the caller's answering so); 1: present. */
static int fp_have_openat2 = -1;

static int fp_openat2(int dirfd, const char *path, int flags)
{
    struct fp_open_how how = {.flags = (uint64_t)(unsigned)flags,
                              .resolve = FP_RESOLVE_NO_SYMLINKS |
                                         FP_RESOLVE_NO_MAGICLINKS};
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

/* The component-by-component walk of kernels without openat2 (before
 * 5.6): each name opened O_NOFOLLOW beneath the descriptor of the one
 * before, each directory checked on its descriptor.  A symlink anywhere
 * fails with ELOOP, as openat2 does. */
static int fp_walk(int dirfd, const char *path, int flags)
{
    int cur = *path == '/' ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
                           : fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (cur < 0)
        return -1;
    const char *p = path;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            return cur; /* "/" itself, or a trailing slash */
        const char *end = strchrnul(p, '/');
        size_t n = (size_t)(end - p);
        char name[256];
        if (n >= sizeof name) {
            close(cur);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        bool last = !*end || !end[strspn(end, "/")];
        /* A directory on the way is opened O_DIRECTORY, so that a symlink
         * there fails at once (ENOTDIR) and no fstat is needed where it
         * does not. */
        int f = last ? (flags | O_NOFOLLOW)
                     : (O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        int next = openat(cur, name, f);
        int err = errno;
        struct stat st;
        /* The caller is told that a symlink lies on the way (ELOOP, as
         * openat2 says it), not ENOTDIR, which names another cause. */
        if (next < 0 && err == ENOTDIR && !last &&
            fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
            err = ELOOP;
        close(cur);
        if (next < 0) {
            errno = err;
            return -1;
        }
        /* O_PATH | O_NOFOLLOW opens a symlink itself. */
        if (last && (flags & O_PATH) && fstat(next, &st) == 0 &&
            S_ISLNK(st.st_mode)) {
            close(next);
            errno = ELOOP;
            return -1;
        }
        if (last)
            return next;
        cur = next;
        p = end;
    }
}

int cp_rt_openat_nofollow(int dirfd, const char *path, int flags)
{
    flags |= O_CLOEXEC;
    if (fp_have_openat2 != 0) {
        int fd = fp_openat2(dirfd, path, flags);
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) {
            fp_have_openat2 = 1;
            return fd;
        }
        if (fp_have_openat2 == 1 && errno == EPERM)
            return -1; /* a real EPERM of a kernel that has openat2 */
        fp_have_openat2 = 0;
    }
    return fp_walk(dirfd, path, flags);
}

bool cp_rt_have_openat2(void)
{
    return fp_have_openat2 != 0;
}

int cp_rt_open_nofollow(const char *path, int flags)
{
    if (*path != '/') {
        errno = EINVAL; /* the runtime's paths are canonical, absolute */
        return -1;
    }
    return cp_rt_openat_nofollow(AT_FDCWD, path, flags);
}

bool cp_rt_same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
           (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT);
}

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

static int fp_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Closes [lo, hi]: close_range where the kernel has it (5.9), else each
 * open descriptor found in /proc/self/fd (nothing to close when that is
 * unreadable is not an option: fail). */
static int fp_close_span(unsigned lo, unsigned hi)
{
    if (lo > hi)
        return 0;
    if (syscall(SYS_close_range, lo, hi, 0) == 0)
        return 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int self = dirfd(d), err;
    struct dirent *de;
    while ((de = cp_rt_readdir(d, &err))) {
        char *end;
        unsigned long v = strtoul(de->d_name, &end, 10);
        if (*end || end == de->d_name || (int)v == self)
            continue;
        if (v >= lo && v <= hi)
            close((int)v);
    }
    closedir(d);
    if (err) { /* some descriptors may be left open */
        errno = err;
        return -1;
    }
    return 0;
}

int cp_rt_close_inherited(const int *keep, size_t n)
{
    int *k = malloc((n ? n : 1) * sizeof *k);
    if (!k)
        return -1;
    if (n) /* keep may be NULL when there is nothing to keep */
        memcpy(k, keep, n * sizeof *k);
    qsort(k, n, sizeof *k, fp_cmp_int);
    unsigned lo = 3;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (k[i] < (int)lo)
            continue;
        rc = fp_close_span(lo, (unsigned)k[i] - 1);
        lo = (unsigned)k[i] + 1;
    }
    if (!rc)
        rc = fp_close_span(lo, ~0U);
    free(k);
    return rc;
}

int cp_rt_keep_fd_parse(const char *s, int *out, struct cp_rt_err *e)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 3 || v > 65535)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "--keep-fd needs a descriptor number from 3 up, "
                          "not '%.40s' (0, 1 and 2 are always passed)",
                          s);
    if (fcntl((int)v, F_GETFD) < 0)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "--keep-fd %ld: no such open descriptor", v);
    *out = (int)v;
    return 0;
}

struct dirent *cp_rt_readdir(DIR *d, int *err)
{
    errno = 0;
    struct dirent *de = readdir(d);
    *err = de ? 0 : errno;
    return de;
}

char *cp_rt_path_child(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    if (a == 1 && dir[0] == '/')
        a = 0;
    char *s = cp_xmalloc(a + b + 2);
    memcpy(s, dir, a);
    s[a] = '/';
    memcpy(s + a + 1, name, b + 1);
    return s;
}

/* fd when it is the file `want` describes; else it is closed and -1
 * returned with errno ELOOP (a symlink), ESTALE (another file) or
 * fstat's. */
static int fp_keep_same(int fd, const struct stat *want)
{
    struct stat st;
    int f = fstat(fd, &st);
    if (f == 0 && cp_rt_same_file(&st, want))
        return fd;
    int err = f < 0 ? errno : S_ISLNK(st.st_mode) ? ELOOP : ESTALE;
    close(fd);
    errno = err;
    return -1;
}

int cp_rt_reopen(const char *path, const struct stat *want)
{
    int fd = cp_rt_open_nofollow(path, O_PATH);
    return fd < 0 ? -1 : fp_keep_same(fd, want);
}

int cp_rt_reopen_at(int dirfd, const char *name, const struct stat *want)
{
    int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -1 : fp_keep_same(fd, want);
}

const char *cp_rt_changed_why(int err)
{
    return err == ELOOP    ? "a symlink now lies on its way"
           : err == ESTALE ? "another file is there now"
                           : strerror(err);
}

long cp_rt_proc_stat_field(long pid, int field)
{
    char path[64], buf[1024];
    if (pid)
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    else
        snprintf(path, sizeof path, "/proc/self/stat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "PID (COMM) STATE PPID PGRP SESSION TTY_NR ...": COMM may hold
     * anything, spaces and ')' included, but ends at the last ')'. */
    const char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    p++;
    for (int i = 1;; i++) {
        p += strspn(p, " ");
        if (i == field)
            break;
        p += strcspn(p, " ");
        if (!*p)
            return -1;
    }
    char *end;
    long v = strtol(p, &end, 10);
    return end == p ? -1 : v;
}

int cp_rt_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *cp_rt_path_join(const char *root, const char *rest)
{
    size_t a = strlen(root), b = strlen(rest);
    if (a == 1 && root[0] == '/' && b)
        a = 0; /* "/" + "/x" */
    if (a == 0 && b == 0)
        return cp_xstrdup("/");
    char *s = cp_xmalloc(a + b + 1);
    memcpy(s, root, a);
    memcpy(s + a, rest, b + 1);
    return s;
}
