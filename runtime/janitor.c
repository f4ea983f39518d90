/* SPDX-License-Identifier: MIT */
/* The janitor (confpol-janitor; spec/runtime.md §6, §11.1): a program the
 * launcher starts for the first placeholder, which creates placeholders
 * on request and removes them when its socket reaches EOF, which happens
 * when the launcher exits for any reason (SIGKILL included).  It ignores
 * terminal signals and lives in its own session so that a Ctrl-C does not
 * take it down with the rest.  Its requests come from the launcher alone,
 * over the one descriptor it starts with. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"

/* 'M': a placeholder directory (0555), 'D': an ordinary directory (0755),
 * 'F': a placeholder file (0444).  Made beneath its parent's descriptor
 * (no symlink followed on the way), never following or replacing an
 * existing name (mkdirat, O_EXCL); its identity and its parent's in *ph.
 * 0 or an errno. */
static int janitor_create(char mode, const char *path,
                          struct cp_rt_placeholder *ph)
{
    const char *name;
    int pfd = cp_rt_parent_open(path, &name);
    if (pfd < 0)
        return errno; /* ELOOP: a symlink on the way: refused */
    int rc = 0;
    struct stat pst, st;
    if (mode != 'F') {
        rc = mkdirat(pfd, name, mode == 'M' ? 0555 : 0755);
    } else {
        int fd = openat(pfd, name,
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0444);
        rc = fd < 0 ? -1 : close(fd);
    }
    if (rc == 0 && (fstat(pfd, &pst) < 0 ||
                    fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0))
        rc = -1;
    int err = rc ? errno : 0;
    close(pfd);
    if (err)
        return err;
    *ph = (struct cp_rt_placeholder){.pdev = pst.st_dev,
                                     .pino = pst.st_ino,
                                     .dev = st.st_dev,
                                     .ino = st.st_ino};
    return 0;
}

_Noreturn void cp_rt_janitor_main(int sock)
{
    struct cp_rt_strv paths = {0};
    struct cp_rt_placeholder *made = NULL;
    int pidfd = -1;
    char buf[PATH_MAX + 16];
    for (;;) {
        ssize_t n = recv(sock, buf, sizeof buf - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        buf[n] = '\0';
        if (buf[0] == 'P') {
            pidfd = (int)syscall(SYS_pidfd_open,
                                 (pid_t)strtol(buf + 1, NULL, 10), 0);
        } else if (buf[0] == 'M' || buf[0] == 'D' || buf[0] == 'F') {
            struct cp_rt_janitor_reply rep = {0};
            rep.err = janitor_create(buf[0], buf + 1, &rep.ph);
            if (!rep.err) {
                made = cp_xrealloc(made, (paths.n + 1) * sizeof *made);
                made[paths.n] = rep.ph;
                cp_rt_strv_push(&paths, buf + 1);
            }
            if (send(sock, &rep, sizeof rep, MSG_NOSIGNAL) < 0)
                break;
        }
    }
    /* The runtime is gone.  If it did not wait for bwrap (it was killed),
     * give the sandbox a moment to die with it (--die-with-parent). */
    if (pidfd >= 0) {
        struct pollfd pf = {.fd = pidfd, .events = POLLIN};
        poll(&pf, 1, 5000);
    }
    for (size_t i = paths.n; i-- > 0;)
        cp_rt_placeholder_remove(paths.v[i], &made[i]);
    _exit(0);
}
