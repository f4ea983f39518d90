/* SPDX-License-Identifier: MIT */
/* The supervisor of named Unix sockets (spec/runtime.md §14.5): the
 * sandbox's connect calls reach it through a seccomp user notification,
 * and it answers each one by connecting the caller's own socket itself,
 * to a named socket's inode or not at all.
 *
 * Never SECCOMP_USER_NOTIF_FLAG_CONTINUE: letting the kernel re-read the
 * caller's address or descriptor after the check is a race another thread
 * of the caller wins.  The supervisor copies the address once
 * (process_vm_readv), takes the socket once (pidfd_getfd: the same open
 * file, so connecting it connects the caller's socket), opens a path
 * O_PATH, checks the inode it got and connects to exactly that inode
 * through /proc/self/fd/N.  Every failure of its own answers EACCES. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "netaddr.h"
#include "netproxy.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd of a thread */
#endif

/* The supervisor's state, shared by its threads (read-only but `running`). */
struct us_sup {
    const struct cp_rt_unix_set *set;
    const char *prog;
    int lfd;          /* the seccomp listener */
    struct stat root; /* the supervisor's "/" */
    pthread_mutex_t mu;
    int running; /* threads answering a connect */
};

/* One connect being answered. */
struct us_call {
    struct us_sup *s;
    struct seccomp_notif req;
    union cp_sockaddr addr; /* the caller's address, copied once */
    socklen_t len;
    int sock; /* the caller's socket, taken once */
};

/* ---- the allowed set ------------------------------------------------------ */

static bool us_allowed(const struct cp_rt_unix_set *set, const struct stat *st)
{
    if (!S_ISSOCK(st->st_mode))
        return false;
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].dev == st->st_dev && set->v[i].ino == st->st_ino)
            return true;
    return false;
}

void cp_rt_unix_resolve(char *const *named, size_t n, const char *prog,
                        struct cp_rt_unix_set *set)
{
    set->v = cp_xmalloc((n / 2 + 1) * sizeof *set->v);
    set->n = 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        struct stat st;
        /* Opened, following symlinks as connect does, and held: while the
         * supervisor holds it, its inode number names no other file. */
        int fd = open(named[i], O_PATH | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0) {
            cp_rt_warn(prog, "socket '%s' (%s): %s; it stays closed (stricter)",
                       named[i], named[i + 1], strerror(errno));
        } else if (!S_ISSOCK(st.st_mode)) {
            cp_rt_warn(prog,
                       "socket '%s' (%s) is not a socket; it stays closed "
                       "(stricter)",
                       named[i], named[i + 1]);
        } else {
            set->v[set->n++] = (struct cp_rt_unix_id){st.st_dev, st.st_ino, fd};
            continue;
        }
        if (fd >= 0)
            close(fd);
    }
}

void cp_rt_unix_set_free(struct cp_rt_unix_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        close(set->v[i].pin);
    free(set->v);
    memset(set, 0, sizeof *set);
}

/* ---- one connect ----------------------------------------------------------- */

/* Is the notification still pending?  Checked after each step that names
 * the caller by pid, so that a pid reused meanwhile is never trusted. */
static bool us_valid(const struct us_call *c)
{
    __u64 id = c->req.id;
    return ioctl(c->s->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* One line per denial, one write: `PROG: socket: deny PATH: WHY`. */
static void us_deny_line(const struct us_call *c, const char *path,
                         const char *why)
{
    char line[sizeof(((struct sockaddr_un *)0)->sun_path) + 256];
    int n = snprintf(line, sizeof line, "%s: socket: deny %s: %s\n", c->s->prog,
                     path, why);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    for (int i = 0; i < n - 1; i++) /* a path cannot break the line */
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = '?';
    if (write(2, line, (size_t)n) < 0) { /* nowhere left to say it */
    }
}

/* Copies the address and takes the socket; 0 or the errno to answer. */
static int us_take(struct us_call *c, int *pidfd)
{
    pid_t pid = (pid_t)c->req.pid;
    int len = (int)c->req.data.args[2];
    if (c->req.data.nr != __NR_connect) /* the filter notifies no other */
        return ENOSYS;
    if (len < 0 || (size_t)len > sizeof c->addr)
        return EINVAL;
    c->len = (socklen_t)len;
    if (len > 0) {
        struct iovec here = {.iov_base = &c->addr, .iov_len = (size_t)len};
        struct iovec there = {
            .iov_base = (void *)(uintptr_t)c->req.data.args[1],
            .iov_len = (size_t)len};
        ssize_t r = process_vm_readv(pid, &here, 1, &there, 1, 0);
        if (r != len)
            return r < 0 && errno == EFAULT ? EFAULT : EACCES;
    }
    *pidfd = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD);
    if (*pidfd < 0 && errno == EINVAL) /* before 6.9: leaders only */
        *pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (*pidfd < 0)
        return EACCES;
    c->sock = (int)syscall(SYS_pidfd_getfd, *pidfd, (int)c->req.data.args[0],
                           0);
    if (c->sock < 0)
        return errno == EBADF ? EBADF : EACCES;
    return us_valid(c) ? 0 : EACCES;
}

/* Opens the caller's path O_PATH as the caller names it: a relative path
 * from its working directory, an absolute one from "/", which must be the
 * supervisor's own.  The descriptor, or -1 with *why. */
static int us_open(const struct us_call *c, const char *path, const char **why)
{
    char proc[64];
    struct stat st;
    snprintf(proc, sizeof proc, "/proc/%d/root", (int)c->req.pid);
    if (stat(proc, &st) < 0 || st.st_dev != c->s->root.st_dev ||
        st.st_ino != c->s->root.st_ino) {
        *why = "the caller's root directory is not the sandbox's";
        return -1;
    }
    int fd;
    if (path[0] == '/') {
        fd = open(path, O_PATH | O_CLOEXEC);
    } else {
        snprintf(proc, sizeof proc, "/proc/%d/cwd", (int)c->req.pid);
        int dfd = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
        fd = dfd < 0 ? -1 : openat(dfd, path, O_PATH | O_CLOEXEC);
        int err = errno;
        if (dfd >= 0)
            close(dfd);
        errno = err;
    }
    if (fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    if (!us_valid(c)) {
        close(fd);
        *why = "the caller is gone";
        return -1;
    }
    return fd;
}

/* A pathname address: connect to the inode the path names now, if it is a
 * named socket.  0 or the errno to answer. */
static int us_path(const struct us_call *c)
{
    char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
    size_t n = c->len - offsetof(struct sockaddr_un, sun_path);
    memcpy(path, c->addr.un.sun_path, n);
    path[n] = '\0'; /* the kernel reads up to the first NUL or len */
    const char *why = "not a named socket";
    int fd = us_open(c, path, &why);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) < 0)
        why = strerror(errno);
    else if (fd >= 0 && !S_ISSOCK(st.st_mode))
        why = "not a socket";
    else if (fd >= 0 && us_allowed(c->s->set, &st)) {
        /* /proc/self/fd/N reaches exactly the inode just checked. */
        union cp_sockaddr u;
        memset(&u, 0, sizeof u);
        u.un.sun_family = AF_UNIX;
        snprintf(u.un.sun_path, sizeof u.un.sun_path, "/proc/self/fd/%d", fd);
        int r = connect(c->sock, &u.sa, sizeof u.un);
        int err = r < 0 ? errno : 0;
        close(fd);
        return err;
    }
    if (fd >= 0)
        close(fd);
    us_deny_line(c, path, why);
    return EACCES;
}

/* The answer to one connect: 0 or an errno. */
static int us_decide(struct us_call *c)
{
    int pidfd = -1;
    c->sock = -1;
    int err = us_take(c, &pidfd);
    const struct sockaddr_un *u = &c->addr.un;
    size_t base = offsetof(struct sockaddr_un, sun_path);
    bool unix_path = c->len > base && u->sun_family == AF_UNIX;
    if (err) {
    } else if (unix_path && c->len > sizeof(struct sockaddr_un)) {
        err = EINVAL; /* as the kernel answers: longer than sun_path */
    } else if (unix_path && u->sun_path[0]) {
        err = us_path(c);
    } else {
        /* IP (only the sandbox's own loopback exists: the bridge),
         * abstract and malformed addresses: the sandbox's own network
         * namespace holds only its own abstract sockets, so the kernel
         * decides these on the copied address. */
        err = connect(c->sock, &c->addr.sa, c->len) < 0 ? errno : 0;
    }
    if (c->sock >= 0)
        close(c->sock);
    if (pidfd >= 0)
        close(pidfd);
    return err;
}

static void us_answer(int lfd, __u64 id, int err)
{
    struct seccomp_notif_resp resp = {.id = id, .error = -err};
    /* ENOENT: the caller is gone (killed, or interrupted by a signal and
     * restarting); nothing waits for this answer. */
    if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0) {
    }
}

static void *us_thread(void *arg)
{
    struct us_call *c = arg;
    struct us_sup *s = c->s;
    us_answer(s->lfd, c->req.id, us_decide(c));
    free(c);
    pthread_mutex_lock(&s->mu);
    s->running--;
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* One thread per connect, so that a blocking connect (a listener whose
 * backlog is full) stalls nobody else; over the cap: EAGAIN. */
static void us_dispatch(struct us_sup *s, const struct seccomp_notif *req)
{
    struct us_call *c = malloc(sizeof *c);
    pthread_mutex_lock(&s->mu);
    bool room = c && s->running < CP_RT_UNIX_MAX_THREADS;
    s->running += room;
    pthread_mutex_unlock(&s->mu);
    if (!room) {
        free(c);
        us_answer(s->lfd, req->id, EAGAIN);
        return;
    }
    memset(c, 0, sizeof *c);
    c->s = s;
    c->req = *req;
    pthread_attr_t at;
    pthread_t t;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 128 * 1024);
    int r = pthread_create(&t, &at, us_thread, c);
    pthread_attr_destroy(&at);
    if (r) {
        free(c);
        pthread_mutex_lock(&s->mu);
        s->running--;
        pthread_mutex_unlock(&s->mu);
        us_answer(s->lfd, req->id, EAGAIN);
    }
}

/* ---- the supervisor process -------------------------------------------------- */

/* Closes every descriptor from 3 up but those in keep (n small). */
static void us_close_others(int *keep, size_t n)
{
    for (size_t i = 1; i < n; i++) /* insertion sort */
        for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
            int t = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    unsigned from = 3;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned)keep[i] > from)
            syscall(SYS_close_range, from, (unsigned)keep[i] - 1, 0u);
        if ((unsigned)keep[i] + 1 > from)
            from = (unsigned)keep[i] + 1;
    }
    syscall(SYS_close_range, from, ~0u, 0u);
}

/* The supervisor keeps stderr (its denial lines), its end of the pair and
 * the pins, and nothing else of the stage's: no terminal, no status
 * socket. */
static void us_detach(const struct cp_rt_unix_set *set, int sv)
{
    close(0);
    close(1);
    int *keep = cp_xmalloc((set->n + 1) * sizeof *keep);
    keep[0] = sv;
    for (size_t i = 0; i < set->n; i++)
        keep[i + 1] = set->v[i].pin;
    us_close_others(keep, set->n + 1);
    free(keep);
    signal(SIGPIPE, SIG_IGN);
    for (int n = 1; n < NSIG; n++)
        if (n != SIGKILL && n != SIGSTOP && n != SIGPIPE)
            signal(n, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_NAME, "confpol-unixsock", 0, 0, 0);
}

static _Noreturn void us_main(const struct cp_rt_unix_set *set,
                              const char *prog, int sv)
{
    /* Not dumpable: the sandbox (same user) can then neither ptrace it,
     * nor read or write its memory, nor take its descriptors — it runs
     * without the filter. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        _exit(1);
    us_detach(set, sv);
    struct us_sup s = {.set = set, .prog = prog};
    pthread_mutex_init(&s.mu, NULL);
    if (stat("/", &s.root) < 0 || (s.lfd = cp_rt_sock_recv_fd(sv)) < 0)
        _exit(1);
    /* Ready (named, detached, holding the listener): the stage waits for
     * this before it runs the command. */
    if (send(sv, "R", 1, MSG_NOSIGNAL) != 1)
        _exit(1);
    close(sv);
    for (;;) {
        struct pollfd p = {.fd = s.lfd, .events = POLLIN};
        int r = poll(&p, 1, -1);
        if (r < 0 && errno == EINTR)
            continue;
        /* POLLHUP: every process under the filter is gone. */
        if (r < 0 || !(p.revents & POLLIN))
            _exit(0);
        struct seccomp_notif req;
        memset(&req, 0, sizeof req);
        if (ioctl(s.lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
            if (errno == EINTR || errno == ENOENT)
                continue;
            _exit(1);
        }
        us_dispatch(&s, &req);
    }
}

/* Starts the supervisor: fork twice, so that it is a child of the
 * namespace's init (reparented when the middle process exits), never of
 * the command, and a process whose C library state is its own (it runs
 * threads).  Its pid, or -1 with errno. */
static pid_t us_spawn(const struct cp_rt_unix_set *set, const char *prog,
                      int sv[2])
{
    pid_t mid = fork();
    if (mid < 0)
        return -1;
    if (mid == 0) {
        close(sv[0]);
        pid_t g = fork();
        if (g == 0)
            us_main(set, prog, sv[1]);
        _exit(g < 0 || send(sv[1], &g, sizeof g, MSG_NOSIGNAL) < 0);
    }
    int st = 0;
    while (waitpid(mid, &st, 0) < 0 && errno == EINTR) {
    }
    pid_t g = -1;
    if (!WIFEXITED(st) || WEXITSTATUS(st) ||
        recv(sv[0], &g, sizeof g, 0) != (ssize_t)sizeof g) {
        errno = ECHILD;
        return -1;
    }
    return g;
}

int cp_rt_unix_supervise(const struct cp_rt_unix_set *set, const char *prog,
                         pid_t *pid_out, struct cp_rt_err *e)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                          "socket supervisor: socketpair: %s", strerror(errno));
    pid_t pid = us_spawn(set, prog, sv);
    int err = errno;
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                          "socket supervisor: cannot start it: %s",
                          strerror(err));
    }
    int lfd = -1;
    int rc = cp_rt_unix_notify_install(&lfd, e);
    char ready = 0;
    errno = 0;
    if (!rc &&
        (cp_rt_sock_send_fd(sv[0], lfd) < 0 || recv(sv[0], &ready, 1, 0) != 1))
        /* The filter is on and nobody answers it: every connect fails
         * (ENOSYS), so this is still closed; but say so and stop. */
        rc = cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                        "socket supervisor: cannot pass it the listener, or "
                        "it did not start: %s",
                        errno ? strerror(errno) : "no answer");
    if (lfd >= 0)
        close(lfd);
    close(sv[0]);
    if (pid_out)
        *pid_out = pid;
    return rc;
}
