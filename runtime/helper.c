/* SPDX-License-Identifier: MIT */
/* The launcher's helper programs (spec/runtime.md §11.1): confpol-stage,
 * which bwrap runs inside the sandbox, and confpol-janitor, which owns the
 * placeholders.  They are installed next to the launcher and found there,
 * never on PATH: the directory of /proc/self/exe is opened as a
 * descriptor, each helper opened beneath it without following a symlink
 * and checked on that descriptor.  A helper that is missing or not what an
 * installation leaves (a symlink, not a regular executable file, writable
 * by others, owned by someone else) refuses the launch with
 * CP_RT_EXIT_ERROR: never "cannot enforce", which fail open would turn
 * into running the command unconfined. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"

/* The directory of this program's own binary, canonical (the kernel's
 * name of the file it runs): heap, or NULL with errno. */
static char *helper_self_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (buf[0] != '/' || !slash) {
        errno = ENOENT;
        return NULL;
    }
    return cp_xstrndup(buf, slash == buf ? 1 : (size_t)(slash - buf));
}

/* What an installation leaves: a regular file this user may execute,
 * writable by its owner alone, owned by root or by the launcher's owner.
 * NULL, or the words of what is wrong. */
static const char *helper_problem(int fd, const struct stat *self)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return strerror(errno);
    if (!S_ISREG(st.st_mode))
        return "not a regular file (a symlink is not followed)";
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return "writable by others than its owner";
    if (st.st_uid != 0 && st.st_uid != self->st_uid)
        return "owned by neither root nor the launcher's owner";
    if (faccessat(fd, "", X_OK, AT_EMPTY_PATH) < 0)
        return "not executable";
    return NULL;
}

int cp_rt_helper_open(const char *name, struct cp_rt_helper *h,
                      struct cp_rt_err *e)
{
    memset(h, 0, sizeof *h);
    h->fd = -1;
    char *dir = helper_self_dir();
    if (!dir)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "cannot find its own directory (/proc/self/exe: "
                          "%s); refusing to run",
                          strerror(errno));
    h->path = cp_rt_path_child(dir, name);
    int dfd = cp_rt_open_nofollow(dir, O_PATH | O_DIRECTORY);
    free(dir);
    struct stat self;
    const char *why = NULL;
    if (dfd < 0 || stat("/proc/self/exe", &self) < 0)
        why = strerror(errno);
    else if ((h->fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
        why = errno == ENOENT ? "missing" : strerror(errno);
    else
        why = helper_problem(h->fd, &self);
    if (dfd >= 0)
        close(dfd);
    if (!why)
        return 0;
    cp_rt_fail(e, CP_RT_EXIT_ERROR,
               "its helper program %s cannot be used: %s (it is installed "
               "next to the launcher); refusing to run",
               h->path, why);
    cp_rt_helper_close(h);
    return e->status;
}

void cp_rt_helper_close(struct cp_rt_helper *h)
{
    if (h->fd >= 0)
        close(h->fd);
    free(h->path);
    h->fd = -1;
    h->path = NULL;
}
