/* SPDX-License-Identifier: MIT */
/* The launcher's side of the proxy (spec/runtime.md 14.1): the listening
 * socket, and the proxy's own program (CP_RT_PROXY_PROG, beside the
 * runtime's) exec'd as a child with that socket, its log and its rules
 * and nothing else of the runtime's.  The proxy's code (runtime/proxy.c)
 * is not in the launcher's binary: a proxy bug is not a launcher bug. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#if defined(__linux__)
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#endif
#include <unistd.h>

#include "libc_compat.h"

#include "netaddr.h"
#include "netproxy.h"

#if CP_RT_LINUX
#include <sys/prctl.h>
#endif
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

/* Where the private directory goes: $XDG_RUNTIME_DIR when it is the
 * user's own; else /dev/shm when it is a tmpfs (sticky like /tmp, or the
 * user's own), because creating and removing the directory, the socket and
 * the resolver's files on a disk file system cost the allow-list launch
 * about 3 ms of CPU (ext4's inode allocation), a third of the launch;
 * else /tmp. */
static const char *px_private_base(void)
{
    const char *base = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    if (base && base[0] == '/' && stat(base, &st) == 0 && S_ISDIR(st.st_mode) &&
        st.st_uid == getuid() && strlen(base) <= 60)
        return base;
#if defined(__linux__)
    struct statfs fs;
    if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC &&
        lstat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
        ((st.st_mode & S_ISVTX) || st.st_uid == getuid()) &&
        access("/dev/shm", W_OK | X_OK) == 0)
        return "/dev/shm";
#endif
    return "/tmp";
}

/* Unix mode: DIR/proxy.sock in a private directory (mode 0700). */
static int px_listen_unix(struct cp_rt_proxy *p, struct cp_rt_err *e)
{
    const char *base = px_private_base();
    snprintf(p->dir, sizeof p->dir, "%s/confpol-net.XXXXXX", base);
    if (!mkdtemp(p->dir)) { /* mode 0700 */
        int err = errno;
        p->dir[0] = '\0';
        return -cp_rt_fail(e, CP_RT_EXIT_ERROR,
                           "proxy: cannot create a private directory in %s: %s",
                           base, strerror(err));
    }
    if (snprintf(p->sock, sizeof p->sock, "%.200s/proxy.sock", p->dir) < 0)
        p->sock[0] = '\0';
    union cp_sockaddr sun;
    memset(&sun, 0, sizeof sun);
    sun.un.sun_family = AF_UNIX;
    int fd = -1;
    if (strlen(p->sock) < sizeof sun.un.sun_path) {
        memcpy(sun.un.sun_path, p->sock, strlen(p->sock) + 1);
        fd = cp_rt_sock_listen(&sun.sa, sizeof sun.un);
    }
    if (fd == -2)
        return -cp_rt_fail(e, CP_RT_EXIT_ERROR,
                           "proxy: cannot listen on '%s': %s", p->sock,
                           strerror(errno));
    if (fd < 0)
        return -cp_rt_fail(e, CP_RT_EXIT_ERROR,
                           "proxy: cannot create its socket '%s'", p->sock);
    return fd;
}

static int px_listen(enum cp_rt_proxy_listen how, struct cp_rt_proxy *p,
                     struct cp_rt_err *e)
{
    if (how != CP_RT_PROXY_TCP)
        return px_listen_unix(p, e);
    unsigned short port;
    int fd = cp_rt_sock_loopback(&port);
    if (fd < 0)
        return -cp_rt_fail(e, CP_RT_EXIT_ERROR,
                           "proxy: cannot listen on 127.0.0.1: %s",
                           strerror(errno));
    p->port = port;
    return fd;
}

/* The runtime's own executable, as the kernel knows it (never PATH, never
 * argv[0]); false when it cannot be told. */
static bool px_self_exe(char *out, size_t size)
{
#ifdef __APPLE__
    char raw[PATH_MAX];
    uint32_t n = sizeof raw;
    return _NSGetExecutablePath(raw, &n) == 0 && realpath(raw, out) &&
           strlen(out) < size;
#else
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    out[n] = '\0';
    return true;
#endif
}

/* Opens the proxy's program beside the runtime's own (O_PATH where there
 * is one: exec'd by descriptor, the file checked is the file run); the
 * descriptor, or -1 with e's message: no proxy, no run. */
static int px_prog_open(char *path, size_t size, struct cp_rt_err *e)
{
    char self[PATH_MAX];
    if (!px_self_exe(self, sizeof self))
        return -cp_rt_fail(e, CP_RT_EXIT_ERROR,
                           "proxy: cannot find the runtime's own executable");
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    if (snprintf(path, size, "%s/%s", slash ? self : ".", CP_RT_PROXY_PROG) >=
        (int)size)
        return -cp_rt_fail(e, CP_RT_EXIT_ERROR, "proxy: path too long");
#ifdef O_PATH
    int fd = open(path, O_PATH | O_CLOEXEC);
#else
    int fd = open(path, O_RDONLY | O_CLOEXEC);
#endif
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        access(path, X_OK) < 0) {
        int err = fd < 0 ? errno : ENOEXEC;
        if (fd >= 0)
            close(fd);
        return -cp_rt_fail(e, CP_RT_EXIT_ERROR,
                           "proxy: cannot run '%s': %s (it is installed beside "
                           "the runtime)",
                           path, strerror(err));
    }
    return fd;
}

/* The portable path's life pipe (both ends close-on-exec); 0, or -1 with
 * errno.  Linux needs none (PR_SET_PDEATHSIG). */
static int px_life_pipe(int life[2])
{
    life[0] = life[1] = -1;
#if CP_RT_LINUX
    return 0;
#else
    if (pipe(life) < 0)
        return -1;
    if (fcntl(life[0], F_SETFD, FD_CLOEXEC) < 0 ||
        fcntl(life[1], F_SETFD, FD_CLOEXEC) < 0) {
        close(life[0]);
        close(life[1]);
        life[0] = life[1] = -1;
        return -1;
    }
    return 0;
#endif
}

/* The log: the runtime's stderr, or CONFPOL_PROXY_LOG opened for append
 * (created mode 0600) by the runtime, so that the proxy opens no file for
 * writing; -1 with e's message. */
static int px_log_open(struct cp_rt_err *e)
{
    const char *log = getenv("CONFPOL_PROXY_LOG");
    if (!log || !*log)
        return fcntl(2, F_DUPFD_CLOEXEC, 3);
    int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        cp_rt_fail(e, CP_RT_EXIT_ERROR, "CONFPOL_PROXY_LOG '%s': %s", log,
                   strerror(errno));
    return fd;
}

/* The rules: a file of NUL-terminated PATTERN WHERE pairs, one per `net`
 * record in order (an artifact may hold tens of thousands: more than a
 * command line takes), read by the proxy from its descriptor (memfd on
 * Linux, an unlinked temporary file elsewhere), positioned at its start;
 * -1 with e's message. */
static int px_rules_fd(const struct cp_rt_artifact *a, struct cp_rt_err *e)
{
#if CP_RT_LINUX
    int fd = memfd_create("confpol-proxy-rules", MFD_CLOEXEC);
    FILE *f = fd < 0 ? NULL : fdopen(dup(fd), "w");
#else
    FILE *f = tmpfile();
    int fd = f ? fcntl(fileno(f), F_DUPFD_CLOEXEC, 3) : -1;
#endif
    bool ok = f && fd >= 0;
    for (size_t i = 0; ok && i < a->nrecs; i++)
        if (a->recs[i].tag == CP_RT_T_NET)
            ok = fwrite(a->recs[i].f1, 1, strlen(a->recs[i].f1) + 1, f) &&
                 fwrite(a->recs[i].f2, 1, strlen(a->recs[i].f2) + 1, f);
    if (f && fclose(f) != 0)
        ok = false;
    if (ok && lseek(fd, 0, SEEK_SET) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -cp_rt_fail(e, CP_RT_EXIT_ERROR, "proxy: cannot pass its rules: %s",
                       strerror(errno));
}

/* The proxy's words: PROG, then NAME VALUE options. */
static void px_argv(const struct cp_rt_proxy_args *pa, struct cp_rt_strv *w)
{
    char num[5][24];
    snprintf(num[0], sizeof num[0], "%ld", (long)pa->parent);
    snprintf(num[1], sizeof num[1], "%d", pa->listen_fd);
    snprintf(num[2], sizeof num[2], "%d", pa->log_fd);
    snprintf(num[3], sizeof num[3], "%d", pa->life_fd);
    snprintf(num[4], sizeof num[4], "%d", pa->rules_fd);
    const char *words[] = {
        CP_RT_PROXY_PROG, "--prog",     pa->prog,   "--parent", num[0],
        "--listen-fd",    num[1],       "--log-fd", num[2],     "--life-fd",
        num[3],           "--rules-fd", num[4],     "--sock",   pa->sock,
        "--dir",          pa->dir};
    memset(w, 0, sizeof *w);
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        cp_rt_strv_push(w, words[i]);
}

extern char **environ;

/* In the child: only the listening socket, the log and the life pipe stay
 * open (a copy of another of the runtime's descriptors there would keep,
 * say, the janitor from seeing the runtime's end), stdin and stdout become
 * /dev/null, its own process group (terminal signals reach only the
 * runtime), then the program.  Never returns. */
static _Noreturn void px_exec(int prog_fd, const struct cp_rt_proxy_args *pa,
                              char *const *argv)
{
    int keep[] = {pa->listen_fd, pa->log_fd, pa->rules_fd, prog_fd,
                  pa->life_fd};
    if (cp_rt_close_inherited(keep, pa->life_fd >= 0 ? 5 : 4) < 0)
        _exit(127);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0 && (dup2(null, 0) < 0 || dup2(null, 1) < 0))
        _exit(127);
    if (null > 2)
        close(null);
    for (size_t i = 0; i < 3; i++) /* all but the program and the pipe */
        if (fcntl(keep[i], F_SETFD, 0) < 0)
            _exit(127);
    if (pa->life_fd >= 0 && fcntl(pa->life_fd, F_SETFD, 0) < 0)
        _exit(127);
    setpgid(0, 0);
#if CP_RT_LINUX
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* kept across the exec */
    execveat(prog_fd, "", argv, environ, AT_EMPTY_PATH);
#else
    fexecve(prog_fd, argv, environ);
#endif
    _exit(127);
}

int cp_rt_proxy_start(const struct cp_rt_artifact *a,
                      enum cp_rt_proxy_listen how, const char *prog,
                      struct cp_rt_proxy *p, struct cp_rt_err *e)
{
    memset(p, 0, sizeof *p);
    if (!CP_RT_LINUX && how == CP_RT_PROXY_UNIX)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "proxy: a Unix socket (the bridge's hand-over) "
                          "needs Linux");
    char path[PATH_MAX];
    int prog_fd = px_prog_open(path, sizeof path, e);
    if (prog_fd < 0)
        return e->status;
    int log_fd = px_log_open(e);
    int rules_fd = log_fd < 0 ? -1 : px_rules_fd(a, e);
    int lfd = rules_fd < 0 ? -1 : px_listen(how, p, e);
    int life[2] = {-1, -1};
    pid_t pid = -1;
    if (lfd >= 0 && px_life_pipe(life) == 0) {
        struct cp_rt_proxy_args pa = {.prog = prog,
                                      .parent = getpid(),
                                      .listen_fd = lfd,
                                      .log_fd = log_fd,
                                      .rules_fd = rules_fd,
                                      .life_fd = life[0],
                                      .sock = p->sock,
                                      .dir = p->dir};
        struct cp_rt_strv argv;
        px_argv(&pa, &argv);
        fflush(NULL);
        pid = cp_rt_fork();
        if (pid == 0)
            px_exec(prog_fd, &pa, argv.v);
        if (pid < 0)
            cp_rt_fail(e, CP_RT_EXIT_ERROR, "proxy: fork: %s", strerror(errno));
        cp_rt_strv_free(&argv);
    } else if (lfd >= 0) {
        cp_rt_fail(e, CP_RT_EXIT_ERROR, "proxy: pipe: %s", strerror(errno));
    }
    close(prog_fd);
    if (log_fd >= 0)
        close(log_fd);
    if (rules_fd >= 0)
        close(rules_fd);
    if (lfd >= 0)
        close(lfd);
    if (life[0] >= 0)
        close(life[0]);
    if (pid < 0) {
        if (life[1] >= 0)
            close(life[1]);
        cp_rt_proxy_stop(p, true);
        return e->status;
    }
    p->life = life[1] >= 0 ? life[1] : 0;
    p->pid = pid;
    return 0;
}

void cp_rt_proxy_stop(struct cp_rt_proxy *p, bool reap)
{
    if (p->life > 0) { /* 0: none (descriptors 0-2 are always open) */
        close(p->life);
        p->life = 0;
    }
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        while (reap && waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        p->pid = 0;
    }
    if (p->sock[0]) {
        unlink(p->sock);
        p->sock[0] = '\0';
    }
    if (p->dir[0]) {
        char conf[PATH_MAX + 16];
        snprintf(conf, sizeof conf, "%s/resolv.conf", p->dir);
        unlink(conf); /* the direct path's (netbridge.c), if any */
        rmdir(p->dir);
        p->dir[0] = '\0';
    }
}
