/* SPDX-License-Identifier: MIT */
/* The runtime's seccomp filters, written by one builder: the confinement
 * filter that both enforcers install on the command (the Landlock enforcer
 * on its own process, cp_ll_seccomp_install; bwrap on the sandbox through
 * --add-seccomp-fd, cp_rt_seccomp_memfd), and the one that closes Unix
 * sockets inside a bwrap sandbox with a filtered network (cp_rt_unix_close),
 * or hands every connect to the supervisor of named sockets
 * (cp_rt_unix_notify_install, runtime/unixsock.c; spec/runtime.md §14.5).
 *
 * The confinement filter (spec/runtime.md §6, §12.2), always: system calls
 * of a foreign ABI (i386 on x86_64, x32) kill the process, since their
 * socket multiplexer and numbers would pass every check below; TIOCSTI and
 * TIOCLINUX are refused (the Landlock enforcer makes no new session: a
 * sandboxed process shares the terminal of the user's shell); set-user-ID
 * and set-group-ID bits cannot be set (chmod family, and a creating open,
 * creat or mknod: their mode is an argument) and no owner can be changed
 * (chown family): Landlock has no right for them, and a root caller owns
 * the host's programs; openat2 (whose mode is behind a pointer) answers
 * ENOSYS, callers fall back to openat; io_uring is refused (it creates
 * sockets and files without the system calls checked here); socket()
 * only for the families a policy can need (AF_UNIX, AF_INET, AF_INET6,
 * AF_NETLINK), socketpair() only for AF_UNIX: AF_VSOCK reaches the host
 * from any network namespace, and the other families are kernel code no
 * policy asks for.
 * Landlock enforcer under a network rule (no namespace): socket() only for
 * AF_UNIX (unless unix_deny), AF_NETLINK and, when TCP is filtered by port
 * (inet_tcp_ok), AF_INET/AF_INET6 stream sockets of protocol TCP;
 * everything else (UDP, raw, SCTP, MPTCP, vsock, ...) is refused.
 * Without Landlock's TRUNCATE right (ABI < 3): truncate(2) and open/openat
 * with O_TRUNC on a read-only open (which needs no WRITE_FILE) are refused. */
#include "runtime.h"
#include "netproxy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

/* The native architecture: any other (32-bit compat, where socketcall
 * hides the family behind a pointer) passes no check below.  The Landlock
 * enforcer's filter is written for x86_64 and aarch64 only (elsewhere it
 * reports ENOTSUP); the Unix-socket filter for riscv64 too. */
#if defined(__x86_64__)
#define CP_AUDIT_ARCH AUDIT_ARCH_X86_64
#define CP_LL_FILTER 1
#elif defined(__aarch64__)
#define CP_AUDIT_ARCH AUDIT_ARCH_AARCH64
#define CP_LL_FILTER 1
#elif defined(__riscv) && __riscv_xlen == 64
#define CP_AUDIT_ARCH AUDIT_ARCH_RISCV64
#else
#error "seccomp filters: add this architecture's AUDIT_ARCH"
#endif

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
/* fchmodat2 (Linux 6.6) has the same number on every architecture. */
#ifdef __NR_fchmodat2
#define CP_NR_FCHMODAT2 __NR_fchmodat2
#else
#define CP_NR_FCHMODAT2 452
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* Offsets in struct seccomp_data; arguments are read as their low 32 bits
 * (little-endian: the low word comes first), which is what the kernel
 * uses for every int argument checked here. */
#define OFF_NR offsetof(struct seccomp_data, nr)
#define OFF_ARCH offsetof(struct seccomp_data, arch)
#define OFF_ARG(i) (offsetof(struct seccomp_data, args) + 8 * (i))

struct prog {
    struct sock_filter v[256];
    size_t n;
};

static void emit(struct prog *p, struct sock_filter f)
{
    if (p->n < sizeof p->v / sizeof p->v[0])
        p->v[p->n] = f;
    p->n++;
}

#define STMT(code, k) ((struct sock_filter)BPF_STMT((code), (k)))
#define JUMP(code, k, jt, jf)                                                  \
    ((struct sock_filter)BPF_JUMP((code), (k), (jt), (jf)))
#define RET_ERRNO(e)                                                           \
    STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))
#define RET_ALLOW STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* A system call of another ABI than the native one (another audit arch;
 * on x86_64 also x32, whose calls share the native arch value with bit 30
 * set): return `ret`. */
static void foreign_abi(struct prog *p, unsigned ret)
{
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_ARCH));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, CP_AUDIT_ARCH, 1, 0));
    emit(p, STMT(BPF_RET | BPF_K, ret));
#if defined(__x86_64__)
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
    emit(p, JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1)); /* x32 */
    emit(p, STMT(BPF_RET | BPF_K, ret));
#endif
}

/* Installs the program (no_new_privs must be set); 0 or -errno. */
static int install(struct prog *p)
{
    if (p->n > sizeof p->v / sizeof p->v[0])
        return -E2BIG;
    struct sock_fprog fp = {.len = (unsigned short)p->n, .filter = p->v};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0) < 0)
        return -errno;
    return 0;
}

/* nr == N: return errno E; else go on. */
static void deny_nr(struct prog *p, long nr, int err)
{
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1));
    emit(p, RET_ERRNO(err));
}

/* The last 4 instructions of a set-ID check: (arg & bits) != 0: EPERM. */
static void deny_arg_tail(struct prog *p, int arg, unsigned bits)
{
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(arg)));
    emit(p, STMT(BPF_ALU | BPF_AND | BPF_K, bits));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
    emit(p, RET_ERRNO(EPERM));
}

/* nr == N and (arg & mask) == val: return errno E. */
static void deny_arg(struct prog *p, long nr, int arg, unsigned mask,
                     unsigned val, int err)
{
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 4));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(arg)));
    emit(p, STMT(BPF_ALU | BPF_AND | BPF_K, mask));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, val, 0, 1));
    emit(p, RET_ERRNO(err));
}

/* socket(): the families and types of the header comment. */
static void socket_block(struct prog *p, const struct cp_ll_seccomp *o)
{
    size_t start = p->n;
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
    size_t skip = p->n;
    emit(p,
         JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 0)); /* jf patched */
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(0)));
    if (!o->unix_deny) {
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1));
        emit(p, RET_ALLOW);
    }
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 0, 1));
    emit(p, RET_ALLOW);
    if (o->inet_tcp_ok) {
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0));
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 7));
        emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(1)));
        emit(p, STMT(BPF_ALU | BPF_AND | BPF_K,
                     ~(unsigned)(SOCK_NONBLOCK | SOCK_CLOEXEC)));
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 0, 4));
        emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(2)));
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 1));
        emit(p, RET_ALLOW);
    }
    emit(p, RET_ERRNO(EACCES));
    p->v[skip].jf = (unsigned char)(p->n - skip - 1);
    (void)start;
}

/* socket(AF_UNIX) and socketpair(AF_UNIX) (nr): a stream or seqpacket
 * socket (with any flags) goes on, any other type (a datagram socket can
 * send to a path with sendto, no connect needed; SOCK_RAW is a datagram
 * socket for AF_UNIX) gets EACCES. */
static void unix_stream_only(struct prog *p, long nr)
{
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 7));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(0)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 5));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(1)));
    emit(p, STMT(BPF_ALU | BPF_AND | BPF_K,
                 ~(unsigned)(SOCK_NONBLOCK | SOCK_CLOEXEC)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 2, 0));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_SEQPACKET, 1, 0));
    emit(p, RET_ERRNO(EACCES));
}

/* nr == N and (arg_flags & (O_CREAT | O_TMPFILE)) and (arg_mode & SETID):
 * return EPERM (flag_arg < 0: every call creates).  The mode of a call
 * that creates nothing is not looked at: it may be garbage. */
#define SETID_BITS ((unsigned)(S_ISUID | S_ISGID))
static void deny_setid_create(struct prog *p, long nr, int flag_arg,
                              int mode_arg)
{
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0,
                 flag_arg < 0 ? 4 : 7));
    if (flag_arg >= 0) {
        emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(flag_arg)));
        emit(p, STMT(BPF_ALU | BPF_AND | BPF_K,
                     O_CREAT | (O_TMPFILE & ~O_DIRECTORY)));
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 4, 0));
    }
    deny_arg_tail(p, mode_arg, SETID_BITS);
}

/* Set-ID bits and owners (see the header comment). */
static void setid_block(struct prog *p)
{
    static const struct {
        long nr;
        int arg;
    } chmods[] = {
#ifdef __NR_chmod
        {__NR_chmod, 1},
#endif
        {__NR_fchmod, 1},
        {__NR_fchmodat, 2},
        {CP_NR_FCHMODAT2, 2},
    };
    static const long chowns[] = {
#ifdef __NR_chown
        __NR_chown,
#endif
#ifdef __NR_lchown
        __NR_lchown,
#endif
        __NR_fchown,
        __NR_fchownat,
    };
    for (size_t i = 0; i < sizeof chmods / sizeof chmods[0]; i++)
        deny_setid_create(p, chmods[i].nr, -1, chmods[i].arg);
    for (size_t i = 0; i < sizeof chowns / sizeof chowns[0]; i++)
        deny_nr(p, chowns[i], EPERM);
#ifdef __NR_open
    deny_setid_create(p, __NR_open, 1, 2);
#endif
#ifdef __NR_creat
    deny_setid_create(p, __NR_creat, -1, 1);
#endif
#ifdef __NR_mknod
    deny_setid_create(p, __NR_mknod, -1, 1);
#endif
    deny_setid_create(p, __NR_openat, 2, 3);
    deny_setid_create(p, __NR_mknodat, -1, 2);
}

/* socket() and socketpair() outside a network rule: the families a policy
 * can need; any other gets EAFNOSUPPORT, as on a kernel without it. */
static void family_block(struct prog *p)
{
    static const unsigned fams[] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};
    const size_t nf = sizeof fams / sizeof fams[0];
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0,
                 (unsigned char)(nf + 3)));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(0)));
    for (size_t i = 0; i < nf; i++)
        emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, fams[i],
                     (unsigned char)(nf - i), 0));
    emit(p, RET_ERRNO(EAFNOSUPPORT));
    emit(p, RET_ALLOW);
}

/* The confinement filter of the header comment; net_deny etc. are the
 * Landlock enforcer's (bwrap passes all false: its namespaces do that). */
static void confine_filter(struct prog *p, const struct cp_ll_seccomp *o)
{
    foreign_abi(p, SECCOMP_RET_KILL_PROCESS);
    deny_arg(p, __NR_ioctl, 1, 0xffffffffu, TIOCSTI, EPERM);
    deny_arg(p, __NR_ioctl, 1, 0xffffffffu, TIOCLINUX, EPERM);
    deny_nr(p, __NR_io_uring_setup, EPERM);
    deny_nr(p, __NR_openat2, ENOSYS); /* callers fall back to openat */
    setid_block(p);
    if (o->no_truncate) {
        deny_nr(p, __NR_truncate, EPERM);
        deny_arg(p, __NR_openat, 2, O_ACCMODE | O_TRUNC, O_RDONLY | O_TRUNC,
                 EACCES);
#ifdef __NR_open
        deny_arg(p, __NR_open, 1, O_ACCMODE | O_TRUNC, O_RDONLY | O_TRUNC,
                 EACCES);
#endif
    }
    if (o->unix_deny)
        unix_stream_only(p, __NR_socketpair);
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socketpair, 0, 3));
    emit(p, STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)OFF_ARG(0)));
    emit(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0));
    emit(p, RET_ERRNO(EAFNOSUPPORT));
    if (o->net_deny)
        socket_block(p, o);
    else
        family_block(p);
    emit(p, RET_ALLOW);
}

/* The Landlock enforcer's program; 0 or -errno. */
static int ll_filter(const struct cp_ll_seccomp *o)
{
#ifndef CP_LL_FILTER
    (void)o;
    return -ENOTSUP;
#else
    struct prog p = {.n = 0};
    confine_filter(&p, o);
    return install(&p);
#endif
}

int cp_ll_seccomp_install(const struct cp_ll_seccomp *o, struct cp_rt_err *e)
{
    int r = ll_filter(o);
    if (r < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                          "installing the seccomp filter: %s", strerror(-r));
    return 0;
}

const char cp_rt_seccomp_text[] =
    "foreign ABIs killed, TIOCSTI refused, set-ID bits and owner changes "
    "refused, io_uring refused, socket families other than unix, inet, "
    "inet6 and netlink refused";

int cp_rt_seccomp_memfd(struct cp_rt_err *e)
{
    struct prog p = {.n = 0};
    const struct cp_ll_seccomp none = {0}; /* bwrap's namespaces do the rest */
    confine_filter(&p, &none);
    if (p.n > sizeof p.v / sizeof p.v[0]) {
        cp_rt_fail(e, CP_RT_EXIT_ERROR, "the seccomp filter is too long");
        return -1;
    }
    /* Not close-on-exec: bwrap inherits it, reads it and closes it; the
     * runtime closes its copy once bwrap has started. */
    int fd = memfd_create("confpol-seccomp", 0);
    if (fd < 0) {
        cp_rt_fail(e, CP_RT_EXIT_ERROR, "memfd_create: %s", strerror(errno));
        return -1;
    }
    size_t len = p.n * sizeof p.v[0];
    ssize_t w = write(fd, p.v, len);
    if (w != (ssize_t)len || lseek(fd, 0, SEEK_SET) < 0) {
        int err = w < 0 ? errno : EIO;
        close(fd);
        cp_rt_fail(e, CP_RT_EXIT_ERROR, "writing the seccomp filter: %s",
                   strerror(err));
        return -1;
    }
    return fd;
}

/* The Unix-socket filter: closed (every socket(AF_UNIX) refused), or
 * supervised (stream and seqpacket sockets allowed, every connect handed
 * to the supervisor's listener, returned in *listener). */
static int unix_filter(bool supervised, int *listener)
{
    /* Any other ABI gets ENOSYS for every call; io_uring_setup (an
     * io_uring can create and connect sockets without socket(2) or
     * connect(2)) gets EACCES. */
    struct prog p = {.n = 0};
    foreign_abi(&p, SECCOMP_RET_ERRNO | ENOSYS);
    deny_nr(&p, __NR_io_uring_setup, EACCES);
    /* A stream or seqpacket pair is connected and reaches nothing
     * outside; a datagram pair still sends to any path (sendto). */
    unix_stream_only(&p, __NR_socketpair);
    if (!supervised) {
        deny_arg(&p, __NR_socket, 0, 0xffffffffu, AF_UNIX, EACCES);
    } else {
        unix_stream_only(&p, __NR_socket);
        /* A later filter's listener would take connect first (the newest
         * notifying filter wins) and could let it continue unchecked. */
        deny_arg(&p, __NR_seccomp, 1, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                 SECCOMP_FILTER_FLAG_NEW_LISTENER, EACCES);
        emit(&p, STMT(BPF_LD | BPF_W | BPF_ABS, OFF_NR));
        emit(&p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 0, 1));
        emit(&p, STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
    }
    emit(&p, RET_ALLOW);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -errno;
    if (!supervised)
        return install(&p);
    if (p.n > sizeof p.v / sizeof p.v[0])
        return -E2BIG;
    struct sock_fprog fp = {.len = (unsigned short)p.n, .filter = p.v};
    long fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
                      SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp);
    if (fd < 0)
        return -errno;
    *listener = (int)fd;
    return 0;
}

int cp_rt_unix_notify_install(int *listener, struct cp_rt_err *e)
{
    int rc = unix_filter(true, listener);
    if (rc < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                          "cannot supervise Unix sockets: seccomp: %s",
                          strerror(-rc));
    return 0;
}

int cp_rt_unix_close(struct cp_rt_err *e)
{
    int rc = unix_filter(false, NULL);
    if (rc < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                          "cannot close Unix sockets: seccomp: %s",
                          strerror(-rc));
    return 0;
}
