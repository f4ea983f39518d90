/* SPDX-License-Identifier: MIT */
/* The direct path of the network (spec/runtime.md 14.8): one kernel
 * connection per allowed name, for clients that do not use the proxy
 * variables (Node's fetch, Go and Rust programs).
 *
 * The launcher (cp_rt_direct_prepare) points the sandbox's resolver at
 * 127.0.0.1 (a resolv.conf in the proxy's directory, bound over
 * /etc/resolv.conf).  The stage (cp_rt_direct_begin, cp_rt_direct_filter)
 * hands a UDP socket of the sandbox's network namespace to the proxy,
 * which binds it to 127.0.0.1:53 and answers every query there (an
 * allowed name: an address of 198.18.0.0/16 mapped to it; any other:
 * NXDOMAIN), and installs a seccomp filter on itself, inherited by the
 * command, that hands every connect() to the bridge
 * (SECCOMP_FILTER_FLAG_NEW_LISTENER, the listener sent over a socket pair).
 *
 * The bridge (cp_rt_direct_notify, cp_rt_direct_reply) reads the address
 * once from the caller's memory.  An address outside 198.18.0.0/16 is
 * let through to the kernel (SECCOMP_USER_NOTIF_FLAG_CONTINUE): whatever
 * the caller makes the kernel read then, it connects inside the sandbox's
 * own network namespace, which has only loopback.  A mapped address (also
 * IPv4-mapped in IPv6) on a TCP stream socket becomes a request to the
 * proxy ('C', the address, the port): the proxy decides on the name it
 * mapped to that address and the port, resolves, checks and connects
 * outside, and sends the connected socket back; the bridge installs it
 * over the caller's descriptor (SECCOMP_IOCTL_NOTIF_ADDFD with
 * SECCOMP_ADDFD_FLAG_SETFD) and answers 0, or answers the proxy's errno.
 * The address the proxy connects to is the one it resolved: nothing the
 * caller changes after the read reaches it.  One thread, non-blocking:
 * requests wait for the proxy's answers in a table, not in line. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
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
#include <sys/utsname.h>
#include <unistd.h>

#include "netaddr.h"
#include "netproxy.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd of a thread */
#endif
#ifndef SECCOMP_IOCTL_NOTIF_ADDFD /* Linux 5.9 */
#define SECCOMP_ADDFD_FLAG_SETFD (1UL << 0)
struct seccomp_notif_addfd {
    __u64 id;
    __u32 flags;
    __u32 srcfd;
    __u32 newfd;
    __u32 newfd_flags;
};
#define SECCOMP_IOCTL_NOTIF_ADDFD                                              \
    _IOW(SECCOMP_IOC_MAGIC, 3, struct seccomp_notif_addfd)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS /* Linux 6.6 */
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS _IOW(SECCOMP_IOC_MAGIC, 4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

#if defined(__x86_64__)
#define ND_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ND_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define ND_AUDIT_ARCH AUDIT_ARCH_RISCV64
#else
#error "the direct path's filter: add this architecture's AUDIT_ARCH"
#endif

/* ---- the launcher ------------------------------------------------------------ */

/* ADDFD with SETFD (5.9) is what the path needs; Linux before it keeps
 * the proxy alone. */
static bool nd_kernel_ok(void)
{
    struct utsname u;
    if (uname(&u) < 0)
        return false;
    char *end;
    unsigned long maj = strtoul(u.release, &end, 10), min = 0;
    if (*end == '.')
        min = strtoul(end + 1, NULL, 10);
    return maj > 5 || (maj == 5 && min >= 9);
}

int cp_rt_direct_prepare(const char *dir, struct cp_rt_strv *words,
                         struct cp_rt_err *e)
{
    const char *off = getenv("CONFPOL_NET_DIRECT");
    if ((off && !strcmp(off, "0")) || !nd_kernel_ok())
        return 0;
    char conf[PATH_MAX + 16];
    snprintf(conf, sizeof conf, "%s/resolv.conf", dir);
    /* No search line: names are asked as they are written. */
    static const char text[] = "nameserver 127.0.0.1\n"
                               "options attempts:2 timeout:2\n";
    int fd = open(conf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                  0644);
    if (fd < 0 ||
        write(fd, text, sizeof text - 1) != (ssize_t)sizeof text - 1) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "network: cannot write '%s': %s",
                          conf, strerror(err));
    }
    close(fd);
    cp_rt_strv_push(words, "--ro-bind");
    cp_rt_strv_push(words, conf);
    cp_rt_strv_push(words, "/etc/resolv.conf");
    return 0;
}

/* ---- the stage --------------------------------------------------------------- */

bool cp_rt_direct_on(const char *sock)
{
    char conf[PATH_MAX + 16];
    const char *slash = strrchr(sock, '/');
    int n = slash ? (int)(slash - sock) : 0;
    snprintf(conf, sizeof conf, "%.*s/resolv.conf", n, sock);
    struct stat st;
    return stat(conf, &st) == 0 && S_ISREG(st.st_mode);
}

int cp_rt_direct_begin(const struct sockaddr *proxy, socklen_t plen,
                       struct cp_rt_direct *d, struct cp_rt_err *e)
{
    d->sp[0] = d->sp[1] = d->ask = -1;
    /* The resolver's socket, made here (in the sandbox's network
     * namespace) and bound by the proxy: port 53 needs
     * CAP_NET_BIND_SERVICE in the user namespace that owns this network
     * namespace, which the user's processes outside have (the user created
     * it) and nothing in here has.  The proxy answers on it from outside;
     * the stage keeps no copy.  Its answer is awaited last
     * (cp_rt_direct_filter), so that the proxy binds while the stage
     * works. */
    int dns = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int u = dns < 0 ? -1 : cp_rt_sock_connect(proxy, plen, 0);
    int rc = u < 0 ? -1 : cp_rt_sock_send_msg(u, "D", 1, dns);
    int err = errno;
    if (dns >= 0)
        close(dns);
    if (rc < 0) {
        if (u >= 0)
            close(u);
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                          "network: the proxy does not take the resolver: %s",
                          strerror(err));
    }
    d->ask = u;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, d->sp) < 0) {
        err = errno;
        close(u);
        d->ask = -1;
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "network: socketpair: %s",
                          strerror(err));
    }
    return 0;
}

/* The proxy's answer to the resolver's hand-over: 0 (bound), or -1 with
 * errno. */
static int nd_resolver_bound(int u)
{
    unsigned char code = EIO;
    int none = -1;
    struct pollfd pf = {.fd = u, .events = POLLIN};
    ssize_t r = poll(&pf, 1, 5000) == 1
                    ? cp_rt_sock_recv_msg(u, &code, 1, &none)
                    : -1;
    if (none >= 0)
        close(none);
    close(u);
    if (r == 1 && code == 0)
        return 0;
    errno = r == 1 ? code : ETIMEDOUT;
    return -1;
}

int cp_rt_direct_filter(struct cp_rt_direct *d, struct cp_rt_err *e)
{
    close(d->sp[1]);
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        /* Another ABI: let through; it connects inside the namespace. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ND_AUDIT_ARCH, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
    int lfd = -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
        lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                           SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    int err = errno;
    int rc = lfd < 0 ? -1 : cp_rt_sock_send_msg(d->sp[0], "L", 1, lfd);
    if (lfd >= 0) {
        err = errno;
        close(lfd);
    }
    close(d->sp[0]);
    if (rc < 0) {
        close(d->ask);
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                          "network: the connect filter: %s", strerror(err));
    }
    if (nd_resolver_bound(d->ask) < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                          "network: no resolver on 127.0.0.1:53 (%s); "
                          "CONFPOL_NET_DIRECT=0 runs with the proxy alone",
                          strerror(errno));
    return 0;
}

/* ---- the bridge: answering connect ------------------------------------------ */

/* A connection to the proxy: waiting for the answer to a request, or
 * idle, kept for the next one (a new connection costs the proxy an accept
 * and a thread, a third of the connect's time).  At most ND_IDLE_KEEP
 * stay idle: the proxy counts each as an open connection. */
struct nd_pend {
    int sock;  /* the connection to the proxy, -1 when the slot is free */
    bool busy; /* a request waits for its answer */
    __u64 id;  /* the notification */
    int fd;    /* the caller's descriptor number */
    bool nonblock, cloexec;
};
enum { ND_IDLE_KEEP = 4 };
static struct nd_pend nd_pend[CP_RT_DIRECT_MAX];

int cp_rt_direct_take(int sp)
{
    char b;
    int lfd = -1;
    ssize_t r = cp_rt_sock_recv_msg(sp, &b, 1, &lfd);
    close(sp);
    if (r != 1 || b != 'L') {
        if (lfd >= 0)
            close(lfd);
        return -1;
    }
    for (size_t i = 0; i < CP_RT_DIRECT_MAX; i++)
        nd_pend[i].sock = -1;
    /* Linux 6.6: the caller and the supervisor wake each other on the
     * waker's CPU (the caller sleeps while the supervisor works): no
     * migration, no cross-CPU wake-up on each connect.  Older kernels
     * answer EINVAL or ENOTTY and wake as usual. */
    if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
              SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) < 0) {
    }
    return lfd;
}

static void nd_answer(int lfd, __u64 id, int err, bool cont)
{
    struct seccomp_notif_resp resp = {
        .id = id,
        .error = -err,
        .flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0};
    if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0) {
    } /* the caller is gone, or its call was interrupted */
}

/* The IPv4 address of a mapped destination in a (len bytes), into ip[4]
 * with the port; false when it is not in 198.18.0.0/16 (IPv4, or
 * IPv4-mapped IPv6). */
static bool nd_mapped(const union cp_sockaddr *a, socklen_t len,
                      unsigned char ip[4], unsigned char port[2])
{
    static const unsigned char v4mapped[12] = {0, 0, 0, 0, 0,    0,
                                               0, 0, 0, 0, 0xff, 0xff};
    if (len >= sizeof a->in4 && a->sa.sa_family == AF_INET) {
        memcpy(ip, &a->in4.sin_addr, 4);
        memcpy(port, &a->in4.sin_port, 2);
    } else if (len >= sizeof a->in6 && a->sa.sa_family == AF_INET6 &&
               !memcmp(&a->in6.sin6_addr, v4mapped, 12)) {
        memcpy(ip, (const unsigned char *)&a->in6.sin6_addr + 12, 4);
        memcpy(port, &a->in6.sin6_port, 2);
    } else {
        return false;
    }
    return ip[0] == 198 && ip[1] == 18;
}

static bool nd_connected(int s)
{
    union cp_sockaddr peer;
    socklen_t pl = sizeof peer;
    return getpeername(s, &peer.sa, &pl) == 0;
}

/* The caller's descriptor `fd`, taken once: a TCP stream socket?  0, or
 * the errno to answer. */
static int nd_check_socket(pid_t pid, int fd)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD);
    if (pidfd < 0 && errno == EINVAL) /* before 6.9: leaders only */
        pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0)
        return EACCES;
    int s = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    close(pidfd);
    if (s < 0)
        return errno == EBADF ? EBADF : EACCES;
    int type = 0, proto = 0;
    socklen_t l1 = sizeof type, l2 = sizeof proto;
    int rc = 0;
    if (getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &l1) < 0)
        rc = ENOTSOCK;
    else if (getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &proto, &l2) < 0 ||
             type != SOCK_STREAM || proto != IPPROTO_TCP)
        rc = EACCES; /* UDP, raw, SCTP, MPTCP: only TCP is carried */
    else if (nd_connected(s))
        rc = EISCONN; /* as the kernel answers: no second connection */
    close(s);
    return rc;
}

/* The caller's descriptor's flags (/proc/PID/fdinfo/FD): its file's
 * O_NONBLOCK, the descriptor's close-on-exec. */
static void nd_fdflags(pid_t pid, int fd, bool *nonblock, bool *cloexec)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, fd);
    int f = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = f < 0 ? -1 : read(f, buf, sizeof buf - 1);
    if (f >= 0)
        close(f);
    *nonblock = *cloexec = false;
    if (n <= 0)
        return;
    buf[n] = '\0';
    const char *p = strstr(buf, "flags:");
    unsigned long fl = p ? strtoul(p + 6, NULL, 8) : 0;
    *nonblock = (fl & O_NONBLOCK) != 0;
    *cloexec = (fl & O_CLOEXEC) != 0;
}

/* A slot with an idle connection, else a free one, else -1. */
static int nd_slot(void)
{
    int free = -1;
    for (int i = 0; i < CP_RT_DIRECT_MAX; i++) {
        if (nd_pend[i].sock >= 0 && !nd_pend[i].busy)
            return i;
        if (free < 0 && nd_pend[i].sock < 0)
            free = i;
    }
    return free;
}

static void nd_drop(struct nd_pend *p)
{
    close(p->sock);
    p->sock = -1;
    p->busy = false;
}

/* Sends request m in slot p: on its idle connection, or (none, or the
 * proxy closed it) on a new one; 0, or -1 when the proxy does not
 * answer. */
static int nd_ask(struct nd_pend *p, const unsigned char m[7],
                  const struct sockaddr *proxy, socklen_t plen)
{
    if (p->sock >= 0 && cp_rt_sock_send_msg(p->sock, m, 7, -1) == 0)
        return 0;
    if (p->sock >= 0)
        nd_drop(p);
    p->sock = cp_rt_sock_connect(proxy, plen, SOCK_NONBLOCK);
    if (p->sock >= 0 && cp_rt_sock_send_msg(p->sock, m, 7, -1) == 0)
        return 0;
    if (p->sock >= 0)
        nd_drop(p);
    return -1;
}

/* Reads the address of the connect in req once; 0 and the mapped
 * destination in m[1..6], 1 to let the call through, or an errno. */
static int nd_read(int lfd, const struct seccomp_notif *req, unsigned char m[7])
{
    union cp_sockaddr a;
    long len = (long)req->data.args[2];
    if (req->data.nr != __NR_connect || len < 2 || (size_t)len > sizeof a)
        return 1; /* the kernel answers as it would */
    struct iovec here = {.iov_base = &a, .iov_len = (size_t)len};
    struct iovec there = {.iov_base = (void *)(uintptr_t)req->data.args[1],
                          .iov_len = (size_t)len};
    if (process_vm_readv((pid_t)req->pid, &here, 1, &there, 1, 0) != len)
        return 1; /* unreadable: the kernel's EFAULT */
    __u64 id = req->id;
    if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0)
        return EACCES; /* the pid may be another process's by now */
    m[0] = 'C';
    return nd_mapped(&a, (socklen_t)len, m + 1, m + 5) ? 0 : 1;
}

void cp_rt_direct_notify(int lfd, const struct sockaddr *proxy, socklen_t plen)
{
    struct seccomp_notif req;
    memset(&req, 0, sizeof req);
    if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
        return; /* interrupted, or the caller already gone */
    unsigned char m[7];
    int rc = nd_read(lfd, &req, m);
    if (rc == 1) {
        nd_answer(lfd, req.id, 0, true);
        return;
    }
    int fd = (int)req.data.args[0];
    if (!rc)
        rc = nd_check_socket((pid_t)req.pid, fd);
    __u64 id = req.id;
    if (!rc && ioctl(lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0)
        rc = EACCES;
    int slot = rc ? -1 : nd_slot();
    if (!rc && slot < 0)
        rc = EAGAIN; /* CP_RT_DIRECT_MAX connects already wait */
    if (!rc && nd_ask(&nd_pend[slot], m, proxy, plen) < 0)
        rc = ENETUNREACH; /* the proxy is gone: no network */
    if (rc) {
        nd_answer(lfd, req.id, rc, false);
        return;
    }
    struct nd_pend *p = &nd_pend[slot];
    p->busy = true;
    p->id = req.id;
    p->fd = fd;
    /* Needed only to install the answer: read while the proxy connects. */
    nd_fdflags((pid_t)req.pid, fd, &p->nonblock, &p->cloexec);
}

size_t cp_rt_direct_pollfds(struct pollfd *out)
{
    size_t n = 0;
    for (size_t i = 0; i < CP_RT_DIRECT_MAX; i++)
        if (nd_pend[i].sock >= 0)
            out[n++] = (struct pollfd){.fd = nd_pend[i].sock, .events = POLLIN};
    return n;
}

/* The proxy's answer for slot p: installed over the caller's descriptor
 * and 0, or its errno. */
static void nd_finish(int lfd, struct nd_pend *p)
{
    unsigned char code = ECONNREFUSED;
    int fd = -1;
    ssize_t r = cp_rt_sock_recv_msg(p->sock, &code, 1, &fd);
    int err = r == 1 ? code : ECONNREFUSED;
    if (!err && fd < 0)
        err = ECONNREFUSED;
    if (!err) {
        /* The status flags belong to the open file: the caller's
         * non-blocking socket stays non-blocking. */
        if (p->nonblock)
            fcntl(fd, F_SETFL, O_NONBLOCK);
        struct seccomp_notif_addfd add = {.id = p->id,
                                          .flags = SECCOMP_ADDFD_FLAG_SETFD,
                                          .srcfd = (__u32)fd,
                                          .newfd = (__u32)p->fd,
                                          .newfd_flags = p->cloexec ? O_CLOEXEC
                                                                    : 0};
        if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0)
            err = errno == ENOENT ? 0 : EACCES; /* ENOENT: caller gone */
    }
    if (fd >= 0)
        close(fd);
    if (err || r == 1)
        nd_answer(lfd, p->id, err, false);
    p->busy = false;
    size_t idle = 0;
    for (size_t i = 0; i < CP_RT_DIRECT_MAX; i++)
        idle += nd_pend[i].sock >= 0 && !nd_pend[i].busy;
    if (r != 1 || idle > ND_IDLE_KEEP)
        nd_drop(p); /* the proxy's side broke, or enough are kept */
}

void cp_rt_direct_reply(int lfd, int sock)
{
    for (size_t i = 0; i < CP_RT_DIRECT_MAX; i++) {
        if (nd_pend[i].sock != sock)
            continue;
        if (nd_pend[i].busy)
            nd_finish(lfd, &nd_pend[i]);
        else
            nd_drop(&nd_pend[i]); /* an idle one closed by the proxy */
    }
}
