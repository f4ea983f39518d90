/* SPDX-License-Identifier: MIT */
/* The system calls glibc wraps and musl 1.2.3 (Debian 12) does not: the
 * stage is linked against musl where it is installed (Makefile,
 * spec/runtime.md §11), against glibc otherwise and in the sanitizer
 * builds.  Include it after <sys/stat.h>. */
#ifndef CP_LIBC_COMPAT_H
#define CP_LIBC_COMPAT_H

#if defined(__linux__) && !defined(__GLIBC__)
#include <linux/stat.h> /* struct statx, STATX_*: musl 1.2.3 has neither */
#include <sys/syscall.h>
#include <unistd.h>

static inline int statx(int dirfd, const char *path, int flags,
                        unsigned int mask, struct statx *buf)
{
    return (int)syscall(SYS_statx, dirfd, path, flags, mask, buf);
}

static inline int execveat(int dirfd, const char *path, char *const argv[],
                           char *const envp[], int flags)
{
    return (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
}
#endif

#endif
