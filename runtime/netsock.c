/* SPDX-License-Identifier: MIT */
/* Socket set-up for the network side of the runtime (spec/runtime.md,
 * "Network"): the proxy and the bridge listen and connect through these,
 * so every socket is close-on-exec and a failure leaves nothing open. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netaddr.h"
#include "netproxy.h"

/* Closes fd keeping errno (the caller reports the first failure). */
static void ns_close(int fd)
{
    int err = errno;
    close(fd);
    errno = err;
}

/* A stream socket, close-on-exec, non-blocking when asked; -1 on error. */
static int ns_socket(int af, bool nonblock)
{
#if CP_RT_LINUX
    return socket(
        af, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
#else
    /* No SOCK_CLOEXEC: set at once (nothing of the runtime execs while a
     * socket is being made: the proxy never execs, the runtime only after
     * it has started the proxy). */
    int fd = socket(af, SOCK_STREAM, 0);
    if (fd >= 0 && (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
                    (nonblock && fcntl(fd, F_SETFL, O_NONBLOCK) < 0))) {
        ns_close(fd);
        return -1;
    }
    return fd;
#endif
}

int cp_rt_sock_listen(const struct sockaddr *addr, socklen_t len)
{
    int fd = ns_socket(cp_sockaddr_family(addr, len), false);
    if (fd < 0)
        return -1;
    if (bind(fd, addr, len) < 0 || listen(fd, 128) < 0) {
        ns_close(fd);
        return -2;
    }
    return fd;
}

int cp_rt_sock_loopback(unsigned short *port)
{
    union cp_sockaddr u;
    memset(&u, 0, sizeof u);
    u.in4.sin_family = AF_INET;
    u.in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof u;
    int fd = cp_rt_sock_listen(&u.sa, sizeof u.in4);
    if (fd < 0)
        return -1;
    if (getsockname(fd, &u.sa, &sl) < 0 || sl < sizeof u.in4) {
        ns_close(fd);
        return -1;
    }
    *port = ntohs(u.in4.sin_port);
    return fd;
}

int cp_rt_sock_connect(const struct sockaddr *addr, socklen_t len, int flags)
{
    int fd = ns_socket(cp_sockaddr_family(addr, len),
                       (flags & SOCK_NONBLOCK) != 0);
    if (fd < 0)
        return -1;
    if (connect(fd, addr, len) < 0 &&
        !(errno == EINPROGRESS && (flags & SOCK_NONBLOCK))) {
        ns_close(fd);
        return -1;
    }
    return fd;
}

int cp_rt_sock_accept(int lfd)
{
    for (;;) {
#if CP_RT_LINUX
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
#else
        int c = accept(lfd, NULL, NULL);
        if (c >= 0 && fcntl(c, F_SETFD, FD_CLOEXEC) < 0) {
            close(c);
            continue;
        }
#endif
        if (c >= 0)
            return c;
        if (errno == EMFILE || errno == ENFILE || errno == ENOMEM)
            usleep(10000);
        else if (errno != EINTR && errno != ECONNABORTED)
            return -1;
    }
}

/* The descriptor-passing message: one byte, room for one descriptor. */
union ns_fd_msg {
    struct cmsghdr h;
    char b[CMSG_SPACE(sizeof(int))];
};

int cp_rt_sock_send_fd(int sock, int fd)
{
    return cp_rt_sock_send_msg(sock, "F", 1, fd);
}

int cp_rt_sock_send_msg(int sock, const void *buf, size_t len, int fd)
{
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    union ns_fd_msg cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        m.msg_control = cm.b;
        m.msg_controllen = sizeof cm.b;
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &fd, sizeof fd);
    }
    return sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* Closes every descriptor a received message carried (as many as were
 * installed: a truncated message may hold fewer than were sent). */
static void ns_close_passed(struct msghdr *m)
{
    for (struct cmsghdr *h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR(m, h)) {
        if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS ||
            h->cmsg_len < CMSG_LEN(0))
            continue;
        size_t n = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(h) + i * sizeof fd, sizeof fd);
            close(fd);
        }
    }
}

/* A second control message after h.  (Through a variable: musl's
 * CMSG_NXTHDR, used as a truth value, is pointer arithmetic that gcc's
 * -Waddress calls always true.) */
static bool ns_next_header(struct msghdr *m, struct cmsghdr *h)
{
    struct cmsghdr *next = CMSG_NXTHDR(m, h);
    return next != NULL;
}

ssize_t cp_rt_sock_recv_msg(int sock, void *buf, size_t cap, int *fd)
{
    struct iovec iov = {.iov_base = buf, .iov_len = cap};
    union ns_fd_msg cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = cm.b,
                       .msg_controllen = sizeof cm.b};
    *fd = -1;
#if CP_RT_LINUX
    ssize_t r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
#else
    ssize_t r = recvmsg(sock, &m, 0);
#endif
    if (r < 0)
        return -1;
    /* At most one descriptor in one message, nothing cut: anything else
     * is refused, and whatever it brought is closed (never kept open). */
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    if (r == 0 || (m.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) ||
        (h &&
         (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS ||
          h->cmsg_len != CMSG_LEN(sizeof(int)) || ns_next_header(&m, h)))) {
        ns_close_passed(&m);
        return -1;
    }
    if (!h)
        return r;
    memcpy(fd, CMSG_DATA(h), sizeof *fd);
#if !CP_RT_LINUX
    if (fcntl(*fd, F_SETFD, FD_CLOEXEC) < 0) {
        ns_close(*fd);
        *fd = -1;
        return -1;
    }
#endif
    return r;
}

int cp_rt_sock_recv_fd(int sock)
{
    char byte;
    int fd;
    ssize_t r = cp_rt_sock_recv_msg(sock, &byte, 1, &fd);
    /* Exactly one byte and one descriptor. */
    if (r != 1 || fd < 0) {
        if (fd >= 0)
            ns_close(fd);
        return -1;
    }
    return fd;
}
