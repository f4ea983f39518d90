/* SPDX-License-Identifier: MIT */
/* confpol-stage: the program that runs inside the sandbox, after bwrap has
 * built the mount namespace and before the command (spec/runtime.md §6,
 * §11.1).  A Landlock-restricted process cannot mount, so Landlock must
 * come last: the stage reports that it started, verifies the mounts
 * (read-only where planned, the runtime's own mounts where and what they
 * were planned to be), applies the exec allow-list with Landlock's EXECUTE
 * right, starts the network bridge and the Unix-socket filter, and execs
 * the command.  Any failure before that exec is reported to the launcher
 * over the status socket, so that it is never mistaken for the command's
 * status.
 *
 * EXECUTE is an accident guard, not a boundary (spec/runtime.md §7): the
 * dynamic loader must be executable for any dynamic program to start, and
 * `ld.so FILE`, `sh FILE` or `python3 FILE` run a readable file that has no
 * EXECUTE grant. */
#include "runtime.h"
#include "netproxy.h"
#include "landlock_abi.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libc_compat.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

/* ---- mount verification (the identities runtime/mountid.c recorded) ---- */

/* "DEV:INO:TYPE" into want; false when malformed. */
/* One decimal field of an identity, ended by `stop`: false when it is not
 * one. */
static bool mid_field(const char **s, char stop, uintmax_t *out)
{
    char *end;
    errno = 0;
    *out = strtoumax(*s, &end, 10);
    if (errno || end == *s || *end != stop)
        return false;
    *s = end + (stop != '\0');
    return true;
}

static bool mid_parse(const char *s, struct stat *want)
{
    uintmax_t d, i, t;
    if (!mid_field(&s, ':', &d) || !mid_field(&s, ':', &i) ||
        !mid_field(&s, '\0', &t))
        return false;
    want->st_dev = (dev_t)d;
    want->st_ino = (ino_t)i;
    want->st_mode = (mode_t)t;
    return true;
}

void cp_rt_vwalk_free(struct cp_rt_vwalk *vw)
{
    while (vw->n)
        close(vw->fd[--vw->n]);
}

/* The component `name` beneath dirfd, a directory (dir) or anything, not
 * followed if it is a symlink: its descriptor, or -1 with errno, ELOOP
 * for a symlink on the way (as cp_rt_open_nofollow says it). */
static int vw_step(int dirfd, const char *name, bool dir)
{
    int fd = openat(dirfd, name,
                    O_PATH | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
    int err = errno;
    struct stat st;
    if (fd < 0 && err == ENOTDIR && dir &&
        fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode))
        err = ELOOP;
    errno = err;
    return fd;
}

/* Keeps the open directories of vw that `dir` (a canonical path, "" for
 * "/") begins with, component by component, and opens the rest of it.
 * 0, or -1 with errno. */
static int vw_enter(struct cp_rt_vwalk *vw, const char *dir, size_t dlen)
{
    size_t keep = 0;
    while (keep < vw->n && vw->end[keep] <= dlen &&
           !memcmp(vw->path, dir, vw->end[keep]) &&
           (dir[vw->end[keep]] == '/' || vw->end[keep] == dlen))
        keep++;
    while (vw->n > keep)
        close(vw->fd[--vw->n]);
    if (!vw->n) {
        if ((vw->fd[0] = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
            return -1;
        vw->end[0] = 0;
        vw->n = 1;
    }
    memcpy(vw->path, dir, dlen);
    vw->path[dlen] = '\0';
    for (size_t at = vw->end[vw->n - 1]; at < dlen;) {
        size_t len = strcspn(dir + at + 1, "/");
        char name[NAME_MAX + 1];
        if (vw->n == CP_RT_VWALK_DEPTH || len > NAME_MAX) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, dir + at + 1, len);
        name[len] = '\0';
        int fd = vw_step(vw->fd[vw->n - 1], name, true);
        if (fd < 0)
            return -1;
        at += 1 + len;
        vw->fd[vw->n] = fd;
        vw->end[vw->n++] = at;
    }
    return 0;
}

/* Whether vw holds the directories of `path`: its length and its depth
 * within vw's bounds (else it is opened as from "/"). */
static bool vw_fits(const char *path)
{
    size_t depth = 0, len = 0;
    for (; path[len]; len++)
        depth += path[len] == '/';
    return len < PATH_MAX && depth < CP_RT_VWALK_DEPTH;
}

/* `path` opened O_PATH without following a symlink at any component:
 * through vw where the path is canonical (the plan's are), else as
 * cp_rt_open_nofollow opens it.  The descriptor, or -1 with errno. */
static int vw_open(struct cp_rt_vwalk *vw, const char *path)
{
    const char *slash = strrchr(path, '/');
    bool canonical = vw && *path == '/' && slash[1] && !strstr(path, "//") &&
                     !strstr(path, "/./") && !strstr(path, "/../") &&
                     strcmp(slash, "/.") && strcmp(slash, "/..");
    if (!canonical || !vw_fits(path))
        return cp_rt_open_nofollow(path, O_PATH);
    if (vw_enter(vw, path, (size_t)(slash - path)) < 0) {
        int err = errno;
        cp_rt_vwalk_free(vw); /* nothing half-entered is kept */
        errno = err;
        return -1;
    }
    return vw_step(vw->fd[vw->n - 1], slash + 1, false);
}

int cp_rt_verify_mount(const char *id, const char *path, char *why, size_t size)
{
    return cp_rt_verify_mount_at(NULL, id, path, why, size);
}

int cp_rt_verify_mount_at(struct cp_rt_vwalk *vw, const char *id,
                          const char *path, char *why, size_t size)
{
    struct stat want = {0}, st;
    bool has_id = strcmp(id, "-") != 0;
    if (has_id && !mid_parse(id, &want)) {
        snprintf(why, size, "bad identity '%.40s'", id);
        return -1;
    }
    int fd = vw_open(vw, path);
    if (fd < 0) {
        snprintf(why, size, "%s",
                 errno == ELOOP ? "a symlink lies on its way"
                                : strerror(errno));
        return -1;
    }
    /* One statx gives the mount-root attribute and the identity: no
     * fstat besides it. */
    struct statx sx;
    int r = statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
                  STATX_TYPE | STATX_INO, &sx);
    close(fd);
    if (r < 0) {
        snprintf(why, size, "%s", strerror(errno));
        return -1;
    }
    if ((sx.stx_mask & (STATX_TYPE | STATX_INO)) != (STATX_TYPE | STATX_INO)) {
        snprintf(why, size, "its identity cannot be read");
        return -1;
    }
    /* O_PATH | O_NOFOLLOW opens a symlink itself. */
    if (S_ISLNK(sx.stx_mode)) {
        snprintf(why, size, "a symlink lies on its way");
        return -1;
    }
    st.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    st.st_ino = sx.stx_ino;
    st.st_mode = sx.stx_mode;
    if ((sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
        !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
        snprintf(why, size, "no mount is there: it was placed elsewhere");
        return -1;
    }
    if (has_id && !cp_rt_same_file(&st, &want)) {
        snprintf(why, size, "another file is mounted there");
        return -1;
    }
    return 0;
}

/* ---- the stage ------------------------------------------------------------- */

static int stage_status_fd = -1;
/* bwrap's stderr pipe (the launcher reads it): what bwrap wrote there and
 * the launcher has not relayed yet is counted on it (FIONREAD). */
static int stage_pipe_fd = -1;

/* kind 'E': could not enforce or set up (the runtime may fall back to
 * running unconfined under fail open); 'X': the command itself could not
 * be executed (never retried). */
static _Noreturn void stage_report(char kind, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static _Noreturn void stage_report(char kind, int code, const char *fmt, ...)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%c%d ", kind, code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    if (stage_status_fd < 0 ||
        send(stage_status_fd, buf, strlen(buf), MSG_NOSIGNAL) < 0)
        fprintf(stderr, "confpol-run: %s\n", buf + n);
    _exit(code);
}

static int add_exec_rule(int ruleset, const char *path)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -1;
    struct ll_path_beneath pb = {.allowed_access = LL_EXECUTE, .parent_fd = fd};
    long r = syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb,
                     0);
    int err = errno;
    close(fd);
    errno = err;
    return r < 0 ? -1 : 0;
}

static void apply_landlock(char **execs, size_t nexec, const char *cmd)
{
    int abi = cp_rt_landlock_abi();
    if (abi < 1)
        stage_report('E', CP_RT_EXIT_CANNOT,
                     "cannot enforce the exec allow-list: Landlock is "
                     "unavailable inside the sandbox (%s)",
                     strerror(-abi));
    struct ll_attr attr = {.handled_access_fs = LL_EXECUTE};
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, LL_ATTR_SIZE_V1,
                          0);
    if (rs < 0)
        stage_report('E', CP_RT_EXIT_CANNOT, "landlock_create_ruleset: %s",
                     strerror(errno));
    struct cp_rt_strv grants = {0};
    cp_rt_exec_grants(execs, nexec, cmd, &grants);
    for (size_t i = 0; i < grants.n; i++)
        if (add_exec_rule(rs, grants.v[i]) < 0)
            stage_report('E', CP_RT_EXIT_CANNOT, "landlock_add_rule '%s': %s",
                         grants.v[i], strerror(errno));
    cp_rt_strv_free(&grants);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        stage_report('E', CP_RT_EXIT_CANNOT, "PR_SET_NO_NEW_PRIVS: %s",
                     strerror(errno));
    if (syscall(SYS_landlock_restrict_self, rs, 0) < 0)
        stage_report('E', CP_RT_EXIT_CANNOT, "landlock_restrict_self: %s",
                     strerror(errno));
    close(rs);
}

/* With a network rule, processes of the sandbox run without the
 * Unix-socket filter: bwrap's init (pid 1), the bridge, the socket
 * supervisor.  The command runs as the same user and could trace one of
 * them and connect through it to any socket.  A Landlock domain confines
 * ptrace to its own members (every ABI): this one handles EXECUTE and
 * grants it beneath "/", so it restricts nothing else (but, as every
 * domain, mounting).  Landlock unavailable: said, not refused. */
static void stage_ptrace_guard(const char *prog)
{
    int abi = cp_rt_landlock_abi();
    if (abi < 1) {
        cp_rt_warn(prog,
                   "Landlock is unavailable (%s): the command can trace "
                   "bwrap's init, which runs without the Unix-socket "
                   "filter, and reach a Unix socket through it",
                   strerror(-abi));
        return;
    }
    struct ll_attr attr = {.handled_access_fs = LL_EXECUTE};
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, LL_ATTR_SIZE_V1,
                          0);
    if (rs < 0 || add_exec_rule(rs, "/") < 0 ||
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
        syscall(SYS_landlock_restrict_self, rs, 0) < 0)
        stage_report('E', CP_RT_EXIT_CANNOT,
                     "cannot keep the command from tracing the sandbox's "
                     "unfiltered processes: Landlock: %s",
                     strerror(errno));
    close(rs);
}

static int parse_fd(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < 0 || v > INT_MAX)
        return -1;
    return (int)v;
}

/* Reads the whole stage stream and splits it at NULs into a NULL-terminated
 * vector; the last field must be NUL-terminated. */
static char **read_words(int fd, size_t *n_out)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (len == cap) {
            char *nb = cap > CP_RT_MAX_ARTIFACT ? NULL : realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (len == 0 || buf[len - 1] != '\0') {
        free(buf);
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += buf[i] == '\0';
    char **v = malloc((n + 1) * sizeof *v);
    if (!v) {
        free(buf);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
        v[k++] = buf + i;
    v[k] = NULL;
    *n_out = k; /* = n: one word per NUL */
    return v;   /* buf stays allocated: the words live until exec */
}

/* Verify after apply: the mount at p (or, hidden by a later mount such as
 * a mask of a parent, the mount that now covers it) is read-only. */
static void stage_verify_ro(const char *p)
{
    char q[PATH_MAX];
    snprintf(q, sizeof q, "%s", p);
    struct statvfs sv;
    int r;
    while ((r = statvfs(q, &sv)) < 0 && errno == ENOENT && strrchr(q, '/') != q)
        *strrchr(q, '/') = '\0';
    if (r < 0)
        stage_report('E', CP_RT_EXIT_CANNOT, "verification failed: '%s': %s", p,
                     strerror(errno));
    if (!(sv.f_flag & ST_RDONLY))
        stage_report('E', CP_RT_EXIT_CANNOT,
                     "verification failed: '%s' is not on a "
                     "read-only mount inside the sandbox",
                     p);
}

/* Verify after apply: the runtime's own mount at p is where it was meant
 * to be, and is what was planned (runtime/mountid.c). */
static void stage_verify_mount(struct cp_rt_vwalk *vw, const char *id,
                               const char *p)
{
    char why[256];
    if (cp_rt_verify_mount_at(vw, id, p, why, sizeof why) < 0)
        stage_report('E', CP_RT_EXIT_CHANGED,
                     "verification failed: '%s': %s (another process changed "
                     "the path while the sandbox was set up)",
                     p, why);
}

/* The stage's own options, read from its argument stream. */
struct stage_opts {
    bool landlock, no_unix;
    const char *say; /* the launcher's line, written just before exec */
    const char *proxy;
    const char *prog; /* prefix of the supervisor's lines */
    char **execs;
    size_t nexec;
    char **socks; /* named sockets: PATH WHERE pairs */
    size_t nsock;
    struct cp_rt_vwalk vw; /* the mounts' directories, open while verified */
};

/* Reads the options up to "--"; returns the index of the command. */
/* An option that takes one word, stored as it is: its slot, or NULL. */
static const char **stage_word_opt(struct stage_opts *o, const char *a)
{
    if (!strcmp(a, "--say"))
        return &o->say;
    if (!strcmp(a, "--proxy"))
        return &o->proxy;
    if (!strcmp(a, "--prog"))
        return &o->prog;
    return NULL;
}

static int stage_args(int argc, char **argv, struct stage_opts *o)
{
    int i = 0;
    for (; i < argc; i++) {
        const char **slot = stage_word_opt(o, argv[i]);
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (slot && i + 1 < argc) {
            *slot = argv[++i];
        } else if (!strcmp(argv[i], "--landlock")) {
            o->landlock = true;
        } else if (!strcmp(argv[i], "--exec") && i + 1 < argc) {
            o->execs[o->nexec++] = argv[++i];
        } else if (!strcmp(argv[i], "--no-unix")) {
            o->no_unix = true;
        } else if (!strcmp(argv[i], "--socket") && i + 2 < argc) {
            o->socks[o->nsock++] = argv[++i];
            o->socks[o->nsock++] = argv[++i];
        } else if (!strcmp(argv[i], "--keep-fd") && i + 1 < argc) {
            i++; /* kept open by stage_close_others */
        } else if (!strcmp(argv[i], "--verify-ro") && i + 1 < argc) {
            stage_verify_ro(argv[++i]);
        } else if (!strcmp(argv[i], "--verify-mount") && i + 2 < argc) {
            stage_verify_mount(&o->vw, argv[i + 1], argv[i + 2]);
            i += 2;
        } else {
            stage_report('E', CP_RT_EXIT_ERROR,
                         "stage: unknown argument '%.100s'", argv[i]);
        }
    }
    if (i >= argc)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: no command");
    return i;
}

/* Everything bwrap let through but the status socket and the --keep-fd
 * descriptors the user passes to the command (the stream names them before
 * "--"): the bind sources, the launcher's streams and anything bwrap itself
 * left open are not the command's (spec/runtime.md §11.1). */
static void stage_close_others(char **w, int sfd)
{
    int keep[66];
    size_t n = 0;
    keep[n++] = sfd;
    keep[n++] = stage_pipe_fd;
    for (size_t i = 0; w[i] && strcmp(w[i], "--"); i++) {
        if (strcmp(w[i], "--keep-fd") || !w[i + 1])
            continue;
        int fd = parse_fd(w[++i]);
        if (fd < 3 || n >= sizeof keep / sizeof keep[0])
            stage_report('E', CP_RT_EXIT_ERROR, "stage: bad --keep-fd");
        else
            keep[n++] = fd;
    }
    if (cp_rt_close_inherited(keep, n) < 0)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: cannot close descriptors");
}

/* Started: the kernel attaches our credentials, translating our pid into
 * the runtime's pid namespace (SO_PASSCRED on its end), and a pidfd of
 * ourselves, the command's once we exec it, goes along: the launcher
 * forwards signals through it without a pid that could be reused by then
 * (without pidfd_open, kernel < 5.3, it opens one by pid). */
static void stage_started(int sfd)
{
    int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    int rc = cp_rt_sock_send_msg(sfd, "S", 1, pfd);
    int err = errno;
    if (pfd >= 0)
        close(pfd);
    if (rc < 0)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: status: %s", strerror(err));
}

/* Takes over the descriptors bwrap passed (status, stderr, arguments),
 * reports the start and returns the argument words. */
static char **stage_open(int sargc, char **sargv, size_t *nw)
{
    if (sargc != 3)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: bad arguments");
    int sfd = parse_fd(sargv[0]), efd = parse_fd(sargv[1]),
        afd = parse_fd(sargv[2]);
    if (sfd < 3 || efd < 3 || afd < 3 || fcntl(sfd, F_SETFD, FD_CLOEXEC) < 0)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: bad status descriptor");
    stage_status_fd = sfd;
    /* The command's stderr is the runtime's own, not bwrap's pipe; the
     * pipe is kept (close-on-exec) for the check before exec. */
    if ((stage_pipe_fd = fcntl(2, F_DUPFD_CLOEXEC, 3)) < 0 || dup2(efd, 2) < 0)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: dup2: %s", strerror(errno));
    close(efd);
    stage_started(sfd);
    char **argv = read_words(afd, nw);
    close(afd);
    if (!argv)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: cannot read its arguments");
    return argv;
}

/* Named sockets: resolved in the sandbox's own view, then the supervisor
 * answers every connect (spec/runtime.md §14.5).  Last before exec: the
 * filter it installs hands connect to the supervisor. */
static void stage_unix_supervise(const struct stage_opts *o)
{
    struct cp_rt_err e = {0};
    static struct cp_rt_unix_set set; /* the supervisor's copy is forked */
    cp_rt_unix_resolve(o->socks, o->nsock, o->prog, &set);
    if (cp_rt_unix_supervise(&set, o->prog, NULL, &e))
        stage_report('E', e.status, "%s", e.msg);
    cp_rt_unix_set_free(&set);
}

/* Whether the launcher holds or has yet to relay something bwrap wrote:
 * bytes still in bwrap's stderr pipe (counted first), or an 'H' the
 * launcher sends before it reads from the pipe ahead of our 'S'.  In that
 * order nothing written before this check is missed: what the launcher
 * read after the count was told by an 'H' sent before that read.  The end
 * of the socket (the launcher is gone) refuses. */
/* 'K' SIGNAL: a signal reached the launcher before it read our 'S' (it
 * may have killed bwrap's setup, which does not always take this process
 * with it): we die by that signal, as the command would have, and never
 * execute it. */
static void stage_stop_if_told(const char *m, ssize_t n)
{
    if (n < 2 || m[0] != 'K')
        return;
    long v = strtol(m + 1, NULL, 10);
    int sig = v > 0 && v < NSIG ? (int)v : 0;
    if (sig && sig != SIGKILL && sig != SIGSTOP) {
        sigset_t u;
        signal(sig, SIG_DFL);
        sigemptyset(&u);
        sigaddset(&u, sig);
        sigprocmask(SIG_UNBLOCK, &u, NULL);
        raise(sig);
    }
    _exit(CP_RT_EXIT_ERROR);
}

/* One message from the launcher ('H', 'G' or 'K' SIGNAL) into m (NUL
 * ended), its length, or -1 with errno; 'K' ends the stage here. */
static ssize_t stage_recv(char *m, size_t size, int flags)
{
    ssize_t n;
    while ((n = recv(stage_status_fd, m, size - 1, flags)) < 0 &&
           errno == EINTR)
        ;
    m[n > 0 ? n : 0] = '\0';
    stage_stop_if_told(m, n);
    return n;
}

static bool stage_bwrap_spoke(void)
{
    int unread = 0;
    bool spoke = ioctl(stage_pipe_fd, FIONREAD, &unread) < 0 || unread > 0;
    char m[16];
    ssize_t n = stage_recv(m, sizeof m, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ||
        (n > 0 && strcmp(m, "H")))
        stage_report('E', CP_RT_EXIT_ERROR, "stage: the launcher is gone");
    return spoke || n > 0;
}

/* Before exec: when bwrap has written on stderr, asks the launcher ('W')
 * and waits for its 'G', sent once it has relayed that: what bwrap wrote
 * comes before anything the command writes.  Then the launcher's line (one
 * write) and no pipe of bwrap's left open.  Otherwise no round trip to the
 * launcher: it has nothing to say before the command. */
static void stage_go(const char *say)
{
    if (stage_bwrap_spoke()) {
        char m[16];
        ssize_t n;
        if (send(stage_status_fd, "W", 1, MSG_NOSIGNAL) != 1)
            stage_report('E', CP_RT_EXIT_ERROR, "stage: the launcher is gone");
        /* An 'H' may come first: the launcher read after our count. */
        while ((n = stage_recv(m, sizeof m, 0)) > 0 && !strcmp(m, "H"))
            ;
        if (n <= 0 || strcmp(m, "G"))
            stage_report('E', CP_RT_EXIT_ERROR, "stage: the launcher is gone");
    }
    close(stage_pipe_fd);
    stage_pipe_fd = -1;
    if (say && write(2, say, strlen(say)) < 0) { /* stderr gone: go on */
    }
}

/* Runs the command; reports why when it cannot. */
static _Noreturn void stage_exec(char **cmd, bool landlock)
{
    execvp(cmd[0], cmd);
    int err = errno;
    if (err == ENOENT)
        stage_report('X', CP_RT_EXIT_NOTFOUND, "%s: command not found", cmd[0]);
    if (err == EACCES && landlock)
        stage_report('X', CP_RT_EXIT_CANNOT,
                     "cannot execute %s: %s (is it in the exec allow-list?)",
                     cmd[0], strerror(err));
    stage_report('X', CP_RT_EXIT_CANNOT, "cannot execute %s: %s", cmd[0],
                 strerror(err));
}

int cp_rt_stage_main(int sargc, char **sargv)
{
    size_t nw = 0;
    char **argv = stage_open(sargc, sargv, &nw);
    stage_close_others(argv, stage_status_fd);
    int argc = (int)nw;
    struct cp_rt_err e = {0};
    struct stage_opts o = {.execs = calloc((size_t)argc + 1, sizeof(char *)),
                           .socks = calloc((size_t)argc + 1, sizeof(char *)),
                           .prog = "confpol-run"};
    if (!o.execs || !o.socks)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: out of memory");
    char **cmd = argv + stage_args(argc, argv, &o);
    cp_rt_vwalk_free(&o.vw);
    if (!cmd[0]) /* the runtime always passes one */
        stage_report('E', CP_RT_EXIT_ERROR, "stage: no command");
    /* The bridge first: it needs a Unix socket, which --no-unix closes. */
    if (o.proxy && cp_rt_bridge_start(o.proxy, &e))
        stage_report('E', e.status, "%s", e.msg);
    if (o.landlock)
        apply_landlock(o.execs, o.nexec, cmd[0]);
    free(o.execs);
    stage_go(o.say);
    if (o.no_unix && o.nsock)
        stage_unix_supervise(&o);
    else if (o.no_unix && cp_rt_unix_close(&e))
        stage_report('E', e.status, "%s", e.msg);
    if (o.no_unix)
        stage_ptrace_guard(o.prog);
    free(o.socks);
    stage_exec(cmd, o.landlock);
}
