/* SPDX-License-Identifier: MIT */
/* The proxy's own confinement (spec/runtime.md 14.1), applied by the proxy
 * program before it accepts its first connection.  It runs outside the
 * sandbox with the user's authority and parses what the sandbox sends, so
 * a bug in it must reach as little as possible:
 *
 *  - Landlock: every file system right of the kernel's ABI is handled and
 *    only these are granted: reading the resolver's files (/etc/hosts,
 *    resolv.conf, nsswitch.conf, host.conf, gai.conf, the loader's cache)
 *    and the test-only hosts file, reading and mapping the C library's
 *    directories (getaddrinfo loads the NSS modules at run time, also into
 *    a static binary), removing its socket in its directory and that
 *    directory (when the runtime dies).  ABI 6 scopes: no signal to and no
 *    abstract Unix socket of any process outside.  Landlock also confines
 *    ptrace and process_vm_* to the domain: the proxy cannot reach into
 *    another process.  A kernel without Landlock: the filter alone.
 *  - seccomp: an allow-list of the system calls a proxy makes (sockets,
 *    I/O, threads, memory, time, and the reads of getaddrinfo), socket()
 *    only for AF_INET and AF_INET6 (no Unix socket: no docker.sock, no
 *    ssh-agent; no netlink, no raw family), ioctl only FIONREAD; every
 *    other call fails with EPERM (execve, ptrace, mount, bpf, io_uring, ...),
 *    a call of another ABI kills it. */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock_abi.h"
#include "netproxy.h"

#if CP_RT_LINUX

/* Every file system right of an ABI (1: 13 rights, 2: REFER, 3: TRUNCATE,
 * 5: IOCTL_DEV). */
static uint64_t pc_fs_all(int abi)
{
    uint64_t all = LL_ABI1_FS;
    if (abi >= 2)
        all |= LL_REFER;
    if (abi >= 3)
        all |= LL_TRUNCATE;
    if (abi >= 5)
        all |= LL_IOCTL_DEV;
    return all;
}

static const char *const pc_files[] = {
    "/etc/hosts",    "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/host.conf",
    "/etc/gai.conf", "/etc/ld.so.cache", "/etc/services",      "/etc/protocols",
};
static const char *const pc_libdirs[] = {"/lib", "/lib64", "/usr/lib",
                                         "/usr/lib64"};

/* Grants `access` beneath path (a missing path grants nothing); -1 only
 * when the kernel refuses a rule. */
static int pc_grant(int rs, const char *path, uint64_t access)
{
    int fd = open(path, O_PATH | O_CLOEXEC); /* follows: resolv.conf links */
    if (fd < 0)
        return 0;
    struct ll_path_beneath pb = {.allowed_access = access, .parent_fd = fd};
    long r = syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0);
    int err = errno;
    close(fd);
    errno = err;
    /* A file takes only file rights: granted read as a file instead. */
    if (r < 0 && errno == EINVAL && (access & ~(uint64_t)LL_READ_FILE))
        return pc_grant(rs, path, LL_READ_FILE);
    return r < 0 ? -1 : 0;
}

static int pc_rules(int rs, const struct cp_rt_proxy_args *pa,
                    const char *hosts)
{
    int rc = 0;
    for (size_t i = 0; i < sizeof pc_files / sizeof *pc_files; i++)
        rc |= pc_grant(rs, pc_files[i], LL_READ_FILE);
    for (size_t i = 0; i < sizeof pc_libdirs / sizeof *pc_libdirs; i++)
        rc |= pc_grant(rs, pc_libdirs[i],
                       LL_READ_FILE | LL_READ_DIR | LL_EXECUTE);
    if (hosts)
        rc |= pc_grant(rs, hosts, LL_READ_FILE);
    if (pa->dir[0]) {
        /* Its socket in its directory; the directory itself from its
         * parent (only an empty directory can be removed). */
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s", pa->dir);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent)
            *slash = '\0';
        rc |= pc_grant(rs, pa->dir, LL_REMOVE_FILE);
        rc |= pc_grant(rs, parent, LL_REMOVE_DIR);
    }
    return rc;
}

static int pc_landlock(const struct cp_rt_proxy_args *pa, const char *hosts,
                       struct cp_rt_err *e)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
    if (abi < 0 && (errno == ENOSYS || errno == EOPNOTSUPP))
        return 0; /* no Landlock in this kernel: the filter alone */
    if (abi < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "landlock: %s",
                          strerror(errno));
    struct ll_attr attr = {.handled_access_fs = pc_fs_all((int)abi)};
    size_t size = offsetof(struct ll_attr, handled_access_net);
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
        size = sizeof attr;
    }
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "landlock_create_ruleset: %s",
                          strerror(errno));
    int rc = pc_rules(rs, pa, hosts);
    if (rc == 0)
        rc = (int)syscall(SYS_landlock_restrict_self, rs, 0);
    int err = errno;
    close(rs);
    if (rc != 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "landlock: %s", strerror(err));
    return 0;
}

/* ---- the system call filter ---------------------------------------------- */

#if defined(__x86_64__)
#define PC_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PC_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define PC_AUDIT_ARCH AUDIT_ARCH_RISCV64
#else
#error "the proxy's filter: add this architecture's AUDIT_ARCH"
#endif

/* The calls allowed as they are.  Each is named where the architecture
 * has it (aarch64 has no open, poll, ...). */
static const int pc_allowed[] = {
    SYS_read,
    SYS_write,
    SYS_readv,
    SYS_writev,
    SYS_pread64,
    SYS_close,
    SYS_openat,
    SYS_fstat,
    SYS_newfstatat,
    SYS_lseek,
    SYS_mmap,
    SYS_munmap,
    SYS_mprotect,
    SYS_mremap,
    SYS_madvise,
    SYS_brk,
    SYS_futex,
    SYS_set_robust_list,
    SYS_exit,
    SYS_exit_group,
    SYS_rt_sigaction,
    SYS_rt_sigprocmask,
    SYS_rt_sigreturn,
    SYS_sigaltstack,
    SYS_getpid,
    SYS_gettid,
    SYS_getppid,
    SYS_getuid,
    SYS_geteuid,
    SYS_getgid,
    SYS_getegid,
    SYS_tgkill,
    SYS_clock_gettime,
    SYS_clock_nanosleep,
    SYS_nanosleep,
    SYS_gettimeofday,
    SYS_ppoll,
    SYS_connect,
    SYS_bind,
    SYS_accept4,
    SYS_getsockopt,
    SYS_setsockopt,
    SYS_getsockname,
    SYS_getpeername,
    SYS_sendto,
    SYS_recvfrom,
    SYS_sendmsg,
    SYS_recvmsg,
    SYS_sendmmsg,
    SYS_recvmmsg,
    SYS_shutdown,
    SYS_splice,
    SYS_pipe2,
    SYS_fcntl,
    SYS_unlinkat,
    SYS_getrandom,
    SYS_sched_getaffinity,
    SYS_sched_yield,
    SYS_uname,
    SYS_faccessat,
    SYS_readlinkat,
    SYS_prlimit64,
    SYS_statx,
#ifdef SYS_poll
    SYS_poll,
#endif
#ifdef SYS_open
    SYS_open,
#endif
#ifdef SYS_stat
    SYS_stat,
    SYS_lstat,
#endif
#ifdef SYS_accept
    SYS_accept,
#endif
#ifdef SYS_unlink
    SYS_unlink,
    SYS_rmdir,
#endif
#ifdef SYS_access
    SYS_access,
    SYS_readlink,
#endif
#ifdef SYS_rseq
    SYS_rseq,
#endif
#ifdef SYS_faccessat2
    SYS_faccessat2,
#endif
};

#define PC_STMT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define PC_JUMP(code, k, jt, jf)                                               \
    ((struct sock_filter)BPF_JUMP((code), (k), (jt), (jf)))
#define PC_ARG0 (offsetof(struct seccomp_data, args))
#define PC_ARG1 (offsetof(struct seccomp_data, args) + 8)

enum { PC_MAX = 256 };
struct pc_prog {
    struct sock_filter v[PC_MAX];
    size_t n;
};

static void pc_emit(struct pc_prog *p, struct sock_filter f)
{
    if (p->n < PC_MAX)
        p->v[p->n] = f;
    p->n++;
}

/* nr == call: check its argument `off` (the low 32 bits) against the
 * allowed values a and b; else deny with `err`.  Leaves the number loaded
 * again for the next test. */
static void pc_arg_rule(struct pc_prog *p, int call, unsigned off, unsigned a,
                        unsigned b, int err)
{
    pc_emit(p, PC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)call, 0, 5));
    pc_emit(p, PC_STMT(BPF_LD | BPF_W | BPF_ABS, off));
    pc_emit(p, PC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, a, 2, 0));
    pc_emit(p, PC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, b, 1, 0));
    pc_emit(p, PC_STMT(BPF_RET | BPF_K,
                       SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)));
    pc_emit(p, PC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}

static void pc_build(struct pc_prog *p)
{
    p->n = 0;
    pc_emit(p, PC_STMT(BPF_LD | BPF_W | BPF_ABS,
                       offsetof(struct seccomp_data, arch)));
    pc_emit(p, PC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PC_AUDIT_ARCH, 1, 0));
    pc_emit(p, PC_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    pc_emit(p, PC_STMT(BPF_LD | BPF_W | BPF_ABS,
                       offsetof(struct seccomp_data, nr)));
    /* System call -1 is no call (the kernel answers ENOSYS): a tracer's
     * fault injection skips a call that way, which the x32 test below
     * would take for a foreign ABI and kill. */
    pc_emit(p, PC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 1));
    pc_emit(p, PC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
#if defined(__x86_64__)
    pc_emit(p, PC_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1)); /* x32 */
    pc_emit(p, PC_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
    for (size_t i = 0; i < sizeof pc_allowed / sizeof *pc_allowed; i++) {
        pc_emit(p, PC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)pc_allowed[i],
                           0, 1));
        pc_emit(p, PC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    }
    /* Threads only, no process: clone with CLONE_THREAD; clone3, whose
     * flags are behind a pointer, answers ENOSYS (glibc then uses clone). */
    pc_emit(p, PC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3));
    pc_emit(p, PC_STMT(BPF_LD | BPF_W | BPF_ABS, PC_ARG0));
    pc_emit(p, PC_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
    pc_emit(p, PC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    pc_emit(p, PC_STMT(BPF_LD | BPF_W | BPF_ABS,
                       offsetof(struct seccomp_data, nr)));
#ifdef SYS_clone3
    pc_emit(p, PC_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
    pc_emit(p, PC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
#endif
    /* glibc asks the name service cache daemon over a Unix socket first,
     * and goes on without it when socket() fails. */
    pc_arg_rule(p, SYS_socket, PC_ARG0, AF_INET, AF_INET6, EAFNOSUPPORT);
    pc_emit(p, PC_STMT(BPF_LD | BPF_W | BPF_ABS,
                       offsetof(struct seccomp_data, nr)));
    pc_arg_rule(p, SYS_ioctl, PC_ARG1, FIONREAD, FIONREAD, ENOTTY);
    pc_emit(p, PC_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
}

static int pc_seccomp(struct cp_rt_err *e)
{
    struct pc_prog p;
    pc_build(&p);
    if (p.n > PC_MAX)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "seccomp: filter too long");
    struct sock_fprog fp = {.len = (unsigned short)p.n, .filter = p.v};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "seccomp: %s", strerror(errno));
    return 0;
}

int cp_rt_proxy_confine(const struct cp_rt_proxy_args *pa, const char *hosts,
                        struct cp_rt_err *e)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "no_new_privs: %s",
                          strerror(errno));
    if (pc_landlock(pa, hosts, e) || pc_seccomp(e))
        return e->status;
    return 0;
}

#endif
