/* SPDX-License-Identifier: MIT */
/* Socket set-up for the network side of the runtime (spec/runtime.md,
 * "Network"): the proxy and the bridge listen and connect through these,
 * so every socket is close-on-exec and a failure leaves nothing open. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netproxy.h"

/* Closes fd keeping errno (the caller reports the first failure). */
static void ns_close(int fd)
{
    int err = errno;
    close(fd);
    errno = err;
}

int cp_rt_sock_listen(const struct sockaddr *addr, socklen_t len)
{
    int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
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
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sin;
    int fd = cp_rt_sock_listen((struct sockaddr *)&sin, sizeof sin);
    if (fd < 0)
        return -1;
    if (getsockname(fd, (struct sockaddr *)&sin, &sl) < 0) {
        ns_close(fd);
        return -1;
    }
    *port = ntohs(sin.sin_port);
    return fd;
}

int cp_rt_sock_connect(const struct sockaddr *addr, socklen_t len, int flags)
{
    int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
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
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c >= 0)
            return c;
        if (errno == EMFILE || errno == ENFILE || errno == ENOMEM)
            usleep(10000);
        else if (errno != EINTR && errno != ECONNABORTED)
            return -1;
    }
}
