/* SPDX-License-Identifier: MIT */
/* The loopback bridge inside the sandbox (spec/runtime.md §14.1), started
 * by the stage: a listener on 127.0.0.1 that hands each connection to the
 * proxy outside over its Unix socket.  Its own file so that the stage
 * links it without the launch glue of netbridge.c. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "netaddr.h"
#include "netproxy.h"

/* ---- the bridge (inside the sandbox) ---------------------------------------- */

static union cp_sockaddr br_addr;

/* Hands the client's socket to the proxy (SCM_RIGHTS) and forgets it: the
 * proxy relays between it and the upstream itself.  The proxy gone: the
 * connection is closed; there is no other way out of the namespace. */
static void br_pass(int c)
{
    int u = cp_rt_sock_connect(&br_addr.sa, sizeof br_addr.un, 0);
    if (u >= 0) {
        if (cp_rt_sock_send_fd(u, c) < 0) { /* the proxy is gone */
        }
        close(u);
    }
    close(c);
}

static void br_accept(int lfd)
{
    int c = cp_rt_sock_accept(lfd);
    if (c < 0)
        _exit(1);
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    br_pass(c);
}

/* The loopback listener lfd, and with the direct path the connect
 * listener nfd (-1 without) and the requests waiting for the proxy. */
static _Noreturn void br_main(int lfd, int nfd)
{
    for (;;) {
        struct pollfd p[2 + CP_RT_DIRECT_MAX];
        p[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
        p[1] = (struct pollfd){.fd = nfd, .events = POLLIN};
        size_t n = nfd < 0 ? 1 : 2 + cp_rt_direct_pollfds(p + 2);
        if (poll(p, n, -1) < 0)
            continue; /* EINTR */
        if (p[0].revents)
            br_accept(lfd);
        if (n > 1 && (p[1].revents & (POLLHUP | POLLERR)))
            nfd = -1; /* no process is left under the filter */
        else if (n > 1 && p[1].revents)
            cp_rt_direct_notify(nfd, &br_addr.sa, sizeof br_addr.un);
        for (size_t i = 2; i < n; i++)
            if (p[i].revents)
                cp_rt_direct_reply(nfd, p[i].fd);
    }
}

static void br_direct_drop(struct cp_rt_direct *d)
{
    if (d->sp[0] < 0)
        return;
    close(d->sp[0]);
    close(d->sp[1]);
    close(d->ask);
}

int cp_rt_bridge_start(const char *sock, struct cp_rt_err *e)
{
    if (strlen(sock) >= sizeof br_addr.un.sun_path)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "proxy socket path too long");
    br_addr.un.sun_family = AF_UNIX;
    memcpy(br_addr.un.sun_path, sock, strlen(sock) + 1);
    /* The direct path: the resolver socket and the pair that carries the
     * connect listener to the bridge, made before the bridge is. */
    struct cp_rt_direct d = {.sp = {-1, -1}, .ask = -1};
    if (cp_rt_direct_on(sock) &&
        cp_rt_direct_begin(&br_addr.sa, sizeof br_addr.un, &d, e))
        return e->status;
    unsigned short port;
    int fd = cp_rt_sock_loopback(&port);
    if (fd < 0) {
        int err = errno;
        br_direct_drop(&d);
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                          "network bridge: cannot listen on 127.0.0.1: %s",
                          strerror(err));
    }
    /* The bridge must be the child of the namespace's init, not of the
     * command, which then never sees it exit nor reaps it.  clone with
     * CLONE_PARENT makes it a sibling of the stage (the init reaps it), so
     * the stage waits for nothing.  A raw clone leaves glibc's idea of the
     * thread stale, so the bridge is one thread making plain system calls
     * (no threads, no locks of the C library's own). */
    long a = syscall(SYS_clone, (unsigned long)(CLONE_PARENT | SIGCHLD), NULL,
                     NULL, NULL, NULL);
    if (a < 0) {
        int err = errno;
        close(fd);
        br_direct_drop(&d);
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "network bridge: clone: %s",
                          strerror(err));
    }
    if (a == 0) {
        /* It runs without the Unix-socket filter: the command (same
         * user) must not trace it, nor take its descriptors. */
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        setsid();
        signal(SIGPIPE, SIG_IGN);
        for (int s = 1; s < NSIG; s++)
            if (s != SIGKILL && s != SIGSTOP && s != SIGPIPE)
                signal(s, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int nfd = -1;
        if (d.sp[0] >= 0) {
            close(d.sp[0]);
            close(d.ask);
            nfd = cp_rt_direct_take(d.sp[1]);
        }
        br_main(fd, nfd);
    }
    close(fd);
    /* After the clone: the bridge is not under the filter it serves. */
    if (d.sp[0] >= 0 && cp_rt_direct_filter(&d, e))
        return e->status;
    /* The proxy's variables (NO_PROXY empty: one inherited from outside
     * would send clients straight at a network that does not exist here). */
    struct cp_rt_strv vars;
    cp_rt_proxy_env(NULL, port, &vars);
    for (size_t i = 0; i < vars.n; i++) {
        char *eq = strchr(vars.v[i], '=');
        *eq = '\0';
        setenv(vars.v[i], eq + 1, 1);
    }
    cp_rt_strv_free(&vars);
    return 0;
}
