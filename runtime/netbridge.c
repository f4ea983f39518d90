/* SPDX-License-Identifier: MIT */
/* The sandbox's side of the network (spec/runtime.md, "Network"): the
 * launch glue that starts the proxy and tells bwrap and the stage about
 * it, the loopback bridge inside the sandbox, and the seccomp filter that
 * closes Unix sockets. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sched.h>
#include <unistd.h>

#include "netproxy.h"

/* ---- launch glue ----------------------------------------------------------- */

int cp_rt_net_prepare(const struct cp_rt_artifact *a, struct cp_rt_plan *pl,
                      const char *prog, struct cp_rt_proxy *px, struct cp_rt_err *e)
{
    memset(px, 0, sizeof *px);
    bool has_net = false, unshared = false;
    for (size_t i = 0; i < a->nrecs; i++) {
        has_net |= a->recs[i].tag == CP_RT_T_NET;
        unshared |= a->recs[i].tag == CP_RT_T_ARG && !strcmp(a->recs[i].f1, "--unshare-net");
    }
    /* Every network rule other than "allow everything" closes Unix
     * sockets; the network namespace alone leaves filesystem sockets
     * reachable. */
    pl->unix_closed = unshared;
    if (!has_net)
        return 0;
    if (!unshared) /* the proxy would be a detour, not a boundary */
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "invalid artifact: 'net' records without "
                          "--unshare-net");
    if (cp_rt_proxy_start(a, CP_RT_PROXY_UNIX, prog, px, e))
        return e->status;
    /* Read-only: the sandbox cannot replace the socket by its own. */
    cp_rt_strv_push(&pl->words, "--ro-bind");
    cp_rt_strv_push(&pl->words, px->dir);
    cp_rt_strv_push(&pl->words, px->dir);
    pl->proxy_sock = strdup(px->sock);
    if (!pl->proxy_sock) {
        cp_rt_proxy_stop(px, true);
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "out of memory");
    }
    return 0;
}

/* ---- the bridge (inside the sandbox) ---------------------------------------- */

static struct sockaddr_un br_addr;

/* Hands the client's socket to the proxy (SCM_RIGHTS) and forgets it: the
 * proxy relays between it and the upstream itself.  The proxy gone: the
 * connection is closed; there is no other way out of the namespace. */
static void br_pass(int c)
{
    int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (u >= 0 && connect(u, (struct sockaddr *)&br_addr, sizeof br_addr) == 0) {
        char byte = 'F';
        struct iovec iov = {.iov_base = &byte, .iov_len = 1};
        union {
            struct cmsghdr h;
            char b[CMSG_SPACE(sizeof(int))];
        } cm;
        memset(&cm, 0, sizeof cm);
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
                           .msg_controllen = sizeof cm.b};
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &c, sizeof c);
        if (sendmsg(u, &m, MSG_NOSIGNAL) < 0) { /* the proxy is gone */
        }
    }
    if (u >= 0)
        close(u);
    close(c);
}

static _Noreturn void br_main(int lfd)
{
    for (;;) {
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOMEM) {
                usleep(10000);
                continue;
            }
            _exit(1);
        }
        int one = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        br_pass(c);
    }
}

static const char *const br_vars[] = {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy",
                                      "https_proxy"};

const char *cp_rt_bridge_start(const char *sock)
{
    static char msg[300];
    if (strlen(sock) >= sizeof br_addr.sun_path)
        return "proxy socket path too long";
    br_addr.sun_family = AF_UNIX;
    memcpy(br_addr.sun_path, sock, strlen(sock) + 1);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sin;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof sin) < 0 || listen(fd, 128) < 0 ||
        getsockname(fd, (struct sockaddr *)&sin, &sl) < 0) {
        snprintf(msg, sizeof msg, "network bridge: cannot listen on 127.0.0.1: %s",
                 strerror(errno));
        return msg;
    }
    /* The bridge must be the child of the namespace's init, not of the
     * command, which then never sees it exit nor reaps it.  clone with
     * CLONE_PARENT makes it a sibling of the stage (the init reaps it), so
     * the stage waits for nothing.  A raw clone leaves glibc's idea of the
     * thread stale, so the bridge is one thread making plain system calls
     * (no threads, no locks of the C library's own). */
    long a = syscall(SYS_clone, (unsigned long)(CLONE_PARENT | SIGCHLD), NULL, NULL, NULL,
                     NULL);
    if (a < 0) {
        snprintf(msg, sizeof msg, "network bridge: clone: %s", strerror(errno));
        close(fd);
        return msg;
    }
    if (a == 0) {
        setsid();
        signal(SIGPIPE, SIG_IGN);
        for (int s = 1; s < NSIG; s++)
            if (s != SIGKILL && s != SIGSTOP && s != SIGPIPE)
                signal(s, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        br_main(fd);
    }
    close(fd);
    char url[64], socks[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", ntohs(sin.sin_port));
    snprintf(socks, sizeof socks, "socks5h://127.0.0.1:%u", ntohs(sin.sin_port));
    for (size_t i = 0; i < sizeof br_vars / sizeof *br_vars; i++)
        setenv(br_vars[i], url, 1);
    setenv("ALL_PROXY", socks, 1);
    setenv("all_proxy", socks, 1);
    /* Nothing bypasses the proxy: a NO_PROXY inherited from outside would
     * send clients straight at a network that does not exist here. */
    setenv("NO_PROXY", "", 1);
    setenv("no_proxy", "", 1);
    return NULL;
}

/* ---- closing Unix sockets ----------------------------------------------------- */

#if defined(__x86_64__)
#define BR_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define BR_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define BR_ARCH AUDIT_ARCH_RISCV64
#else
#error "cp_rt_unix_close: add this architecture's AUDIT_ARCH"
#endif

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

const char *cp_rt_unix_close(void)
{
    static char msg[200];
    /* Any other architecture (32-bit compat: socketcall hides the family
     * behind a pointer) gets ENOSYS for every call; the native
     * socket(AF_UNIX, ...) and io_uring_setup (an io_uring can create
     * sockets without socket(2)) get EACCES.  socketpair stays: it makes
     * a connected pair, reaching nothing outside. */
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BR_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        /* x32 calls (bit 30) share the native arch value. */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = (unsigned short)(sizeof f / sizeof *f), .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
        snprintf(msg, sizeof msg, "cannot close Unix sockets: seccomp: %s", strerror(errno));
        return msg;
    }
    return NULL;
}
