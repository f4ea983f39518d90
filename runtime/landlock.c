/* SPDX-License-Identifier: MIT */
/* The stage that runs inside the sandbox, after bwrap has built the mount
 * namespace (a Landlock-restricted process cannot mount, so Landlock must
 * come last): it reports that it started, checks read-only mounts, applies
 * the exec allow-list with Landlock's EXECUTE right, and execs the command.
 * Any failure before that exec is reported to the outer runtime over the
 * status socket, so that it is never mistaken for the command's status.
 *
 * EXECUTE is an accident guard, not a boundary (spec/runtime.md): the
 * dynamic loader must be executable for any dynamic program to start, and
 * `ld.so FILE`, `sh FILE` or `python3 FILE` run a readable file that has no
 * EXECUTE grant. */
#include "runtime.h"
#include "netproxy.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Own definitions: the installed linux/landlock.h may be older than the
 * kernel, and these values are ABI (include/uapi/linux/landlock.h). */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#define CP_LL_CREATE_RULESET_VERSION (1U << 0)
#define CP_LL_RULE_PATH_BENEATH 1
#define CP_LL_ACCESS_FS_EXECUTE (1ULL << 0)

struct cp_ll_ruleset_attr { /* first field only: accepted by every ABI */
    uint64_t handled_access_fs;
};

struct cp_ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

int cp_rt_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
                       CP_LL_CREATE_RULESET_VERSION);
    if (abi < 0)
        return -errno;
    return (int)abi;
}

int cp_rt_elf_interp(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned char id[EI_NIDENT];
    int rc = -1;
    if (pread(fd, id, sizeof id, 0) != (ssize_t)sizeof id ||
        memcmp(id, ELFMAG, SELFMAG))
        goto out;
    uint64_t phoff, phnum, phentsize;
    bool is64 = id[EI_CLASS] == ELFCLASS64;
    if (is64) {
        Elf64_Ehdr eh;
        if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
            goto out;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    } else if (id[EI_CLASS] == ELFCLASS32) {
        Elf32_Ehdr eh;
        if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
            goto out;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    } else {
        goto out;
    }
    if (phnum > 4096 ||
        phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
        goto out;
    for (uint64_t i = 0; i < phnum; i++) {
        uint64_t type, off, filesz;
        if (is64) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(phoff + i * phentsize)) !=
                (ssize_t)sizeof ph)
                goto out;
            type = ph.p_type, off = ph.p_offset, filesz = ph.p_filesz;
        } else {
            Elf32_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(phoff + i * phentsize)) !=
                (ssize_t)sizeof ph)
                goto out;
            type = ph.p_type, off = ph.p_offset, filesz = ph.p_filesz;
        }
        if (type != PT_INTERP)
            continue;
        if (filesz == 0 || filesz > size)
            goto out;
        if (pread(fd, buf, (size_t)filesz, (off_t)off) != (ssize_t)filesz)
            goto out;
        buf[filesz - 1] = '\0';
        rc = buf[0] == '/' ? 0 : -1;
        break;
    }
out:
    close(fd);
    return rc;
}

/* ---- the stage ------------------------------------------------------------- */

static int stage_status_fd = -1;

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
    struct cp_ll_path_beneath_attr pb = {
        .allowed_access = CP_LL_ACCESS_FS_EXECUTE,
        .parent_fd = fd};
    long r = syscall(SYS_landlock_add_rule, ruleset, CP_LL_RULE_PATH_BENEATH,
                     &pb, 0);
    int err = errno;
    close(fd);
    errno = err;
    return r < 0 ? -1 : 0;
}

/* The standard dynamic loaders: granted so that allowed dynamic programs
 * can start (Landlock checks EXECUTE on the ELF interpreter too). */
static const char *const std_loaders[] = {
    "/lib64/ld-linux-x86-64.so.2",
    "/lib/ld-linux-aarch64.so.1",
    "/lib/ld-linux-armhf.so.3",
    "/lib/ld-linux.so.2",
    "/lib/ld-musl-x86_64.so.1",
    "/lib/ld-musl-aarch64.so.1",
    "/lib64/ld64.so.2",
    "/lib/ld-linux-riscv64-lp64d.so.1",
};

/* PATH search as execvp does it, to find the command's file. */
static bool find_in_path(const char *cmd, char *out, size_t size)
{
    if (strchr(cmd, '/')) {
        snprintf(out, size, "%s", cmd);
        return true;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        if (snprintf(out, size, "%.*s%s%s", (int)n, path, n ? "/" : "", cmd) <
                (int)size &&
            access(out, X_OK) == 0)
            return true;
        path += n + (c ? 1 : 0);
        if (!c)
            break;
    }
    return false;
}

static bool under_entry(char *const *execs, size_t nexec, const char *file)
{
    char *real = realpath(file, NULL);
    bool allowed = false;
    for (size_t i = 0; real && i < nexec && !allowed; i++) {
        char *er = realpath(execs[i], NULL);
        if (er) {
            size_t n = strlen(er);
            allowed = !strncmp(er, real, n) &&
                      (real[n] == '\0' || real[n] == '/' ||
                       (n == 1 && er[0] == '/'));
            free(er);
        }
    }
    free(real);
    return allowed;
}

void cp_rt_exec_grants(char *const *execs, size_t nexec, const char *cmd,
                       struct cp_rt_strv *out)
{
    char interp[PATH_MAX];
    for (size_t i = 0; i < nexec; i++) {
        cp_rt_strv_push(out, execs[i]);
        struct stat st;
        if (stat(execs[i], &st) == 0 && S_ISREG(st.st_mode) &&
            cp_rt_elf_interp(execs[i], interp, sizeof interp) == 0)
            cp_rt_strv_push(out, interp);
    }
    /* The command's own interpreter: only if the command itself may run. */
    char file[PATH_MAX];
    if (cmd && find_in_path(cmd, file, sizeof file) &&
        cp_rt_elf_interp(file, interp, sizeof interp) == 0 &&
        under_entry(execs, nexec, file))
        cp_rt_strv_push(out, interp);
    for (size_t i = 0; i < sizeof std_loaders / sizeof std_loaders[0]; i++)
        cp_rt_strv_push(out, std_loaders[i]);
}

static void apply_landlock(char **execs, size_t nexec, const char *cmd)
{
    int abi = cp_rt_landlock_abi();
    if (abi < 1)
        stage_report('E', CP_RT_EXIT_CANNOT,
                     "cannot enforce the exec allow-list: Landlock is "
                     "unavailable inside the sandbox (%s)",
                     strerror(-abi));
    struct cp_ll_ruleset_attr attr = {
        .handled_access_fs = CP_LL_ACCESS_FS_EXECUTE};
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
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
    struct cp_ll_ruleset_attr attr = {
        .handled_access_fs = CP_LL_ACCESS_FS_EXECUTE};
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
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
static void stage_verify_mount(const char *id, const char *p)
{
    char why[256];
    if (cp_rt_verify_mount(id, p, why, sizeof why) < 0)
        stage_report('E', CP_RT_EXIT_CHANGED,
                     "verification failed: '%s': %s (another process changed "
                     "the path while the sandbox was set up)",
                     p, why);
}

/* The stage's own options, read from its argument stream. */
struct stage_opts {
    bool landlock, no_unix;
    const char *proxy;
    const char *prog; /* prefix of the supervisor's lines */
    char **execs;
    size_t nexec;
    char **socks; /* named sockets: PATH WHERE pairs */
    size_t nsock;
};

/* Reads the options up to "--"; returns the index of the command. */
static int stage_args(int argc, char **argv, struct stage_opts *o)
{
    int i = 0;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (!strcmp(argv[i], "--landlock")) {
            o->landlock = true;
        } else if (!strcmp(argv[i], "--exec") && i + 1 < argc) {
            o->execs[o->nexec++] = argv[++i];
        } else if (!strcmp(argv[i], "--proxy") && i + 1 < argc) {
            o->proxy = argv[++i];
        } else if (!strcmp(argv[i], "--no-unix")) {
            o->no_unix = true;
        } else if (!strcmp(argv[i], "--prog") && i + 1 < argc) {
            o->prog = argv[++i];
        } else if (!strcmp(argv[i], "--socket") && i + 2 < argc) {
            o->socks[o->nsock++] = argv[++i];
            o->socks[o->nsock++] = argv[++i];
        } else if (!strcmp(argv[i], "--verify-ro") && i + 1 < argc) {
            stage_verify_ro(argv[++i]);
        } else if (!strcmp(argv[i], "--verify-mount") && i + 2 < argc) {
            stage_verify_mount(argv[i + 1], argv[i + 2]);
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
    /* The command's stderr is the runtime's own, not bwrap's pipe. */
    if (dup2(efd, 2) < 0)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: dup2: %s", strerror(errno));
    close(efd);
    /* Started: the kernel attaches our credentials, translating our pid
     * into the runtime's pid namespace (SO_PASSCRED on its end). */
    if (send(sfd, "S", 1, MSG_NOSIGNAL) < 0)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: status: %s",
                     strerror(errno));
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
    int argc = (int)nw;
    struct cp_rt_err e = {0};
    struct stage_opts o = {.execs = calloc((size_t)argc + 1, sizeof(char *)),
                           .socks = calloc((size_t)argc + 1, sizeof(char *)),
                           .prog = "confpol-run"};
    if (!o.execs || !o.socks)
        stage_report('E', CP_RT_EXIT_ERROR, "stage: out of memory");
    char **cmd = argv + stage_args(argc, argv, &o);
    if (!cmd[0]) /* the runtime always passes one */
        stage_report('E', CP_RT_EXIT_ERROR, "stage: no command");
    /* The bridge first: it needs a Unix socket, which --no-unix closes. */
    if (o.proxy && cp_rt_bridge_start(o.proxy, &e))
        stage_report('E', e.status, "%s", e.msg);
    if (o.landlock)
        apply_landlock(o.execs, o.nexec, cmd[0]);
    free(o.execs);
    if (o.no_unix && o.nsock)
        stage_unix_supervise(&o);
    else if (o.no_unix && cp_rt_unix_close(&e))
        stage_report('E', e.status, "%s", e.msg);
    if (o.no_unix)
        stage_ptrace_guard(o.prog);
    free(o.socks);
    stage_exec(cmd, o.landlock);
}
