/* SPDX-License-Identifier: MIT */
/* The network side of the runtime (spec/runtime.md, "Network"): the
 * filtering proxy that runs outside the sandbox and decides every
 * connection with the decision model's network decision (cp_net_decide),
 * the bridge inside the sandbox that carries loopback TCP to the proxy's
 * Unix socket, and the seccomp filter that closes Unix sockets. */
#ifndef CP_NETPROXY_H
#define CP_NETPROXY_H

#include <limits.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "runtime.h"

/* The proxy and its sockets use Linux-only calls (splice, pipe2, accept4,
 * SOCK_CLOEXEC, PR_SET_PDEATHSIG, the SCM_RIGHTS hand-over) on Linux, and
 * portable ones elsewhere (macOS: spec/runtime.md 14.7).  CP_RT_PORTABLE
 * builds the portable path on Linux too, so that the code macOS runs is
 * compiled and run by the tests (build/confpol-run-portable). */
#if defined(__linux__) && !defined(CP_RT_PORTABLE)
#define CP_RT_LINUX 1
#else
#define CP_RT_LINUX 0
#endif
#ifndef SOCK_NONBLOCK /* cp_rt_sock_connect's flag where the OS has none */
#define SOCK_NONBLOCK 04000
#endif
#ifndef MSG_NOSIGNAL /* the proxy ignores SIGPIPE anyway */
#define MSG_NOSIGNAL 0
#endif

/* Limits (spec/runtime.md, "Network"). */
#define CP_PX_MAX_HEADER 16384 /* bytes of a request's head */
#define CP_PX_HEADER_MS 10000  /* the whole head must arrive in this */
#define CP_PX_CONNECT_MS 10000 /* connecting upstream */
#define CP_PX_IDLE_MS 600000   /* a relayed connection silent this long */
#define CP_PX_MAX_CONNS 256    /* connections open at once */

enum cp_rt_proxy_listen {
    CP_RT_PROXY_UNIX, /* a Unix socket in a private directory (bwrap) */
    CP_RT_PROXY_TCP,  /* 127.0.0.1 on a free port (Landlock-only, macOS) */
};

struct cp_rt_proxy {
    pid_t pid;           /* the proxy process, 0 when none runs */
    int life;            /* portable path: the pipe whose end stops it */
    char dir[PATH_MAX];  /* private directory (mode 0700), or "" */
    char sock[PATH_MAX]; /* DIR/proxy.sock (CP_RT_PROXY_UNIX) */
    int port;            /* the loopback port (CP_RT_PROXY_TCP) */
};

/* Starts the proxy for the artifact's `net` records as a child process of
 * the caller, the program CP_RT_PROXY_PROG exec'd with only its listening
 * socket, its log and its rules: it listens before this returns, dies with the caller (Linux:
 * PR_SET_PDEATHSIG, SIGTERM, on which it removes its socket and directory;
 * the portable path: the end of a pipe whose write end only the caller
 * holds, px->life) and runs in its own process group (terminal signals
 * reach only the runtime).  CP_RT_PROXY_UNIX needs Linux (the bridge's
 * hand-over).  `prog` prefixes its log lines.  Returns 0, or
 * CP_RT_EXIT_ERROR with e->msg. */
int cp_rt_proxy_start(const struct cp_rt_artifact *a,
                      enum cp_rt_proxy_listen how, const char *prog,
                      struct cp_rt_proxy *px, struct cp_rt_err *e);
/* The proxy's program, beside the runtime's own (the directory of
 * /proc/self/exe, never PATH): without it the runtime refuses to run. */
#if defined(CP_RT_PORTABLE) && defined(__linux__)
#define CP_RT_PROXY_PROG "confpol-proxy-portable"
#else
#define CP_RT_PROXY_PROG "confpol-proxy"
#endif

/* What the launcher gives the proxy's program (runtime/proxy_main.c reads
 * it from its arguments; the rules, from rules_fd, become the `net`
 * records of an artifact it builds). */
struct cp_rt_proxy_args {
    const char *prog; /* prefix of its log lines */
    pid_t parent;     /* the runtime: the proxy stops when it is gone */
    int listen_fd;    /* the listening socket */
    int log_fd;       /* stderr or CONFPOL_PROXY_LOG, opened for append */
    int life_fd;      /* portable path: the life pipe's read end, else -1 */
    int rules_fd;     /* NUL-terminated PATTERN WHERE pairs (proxy_start.c) */
    const char *sock; /* Unix mode: DIR/proxy.sock, else "" */
    const char *dir;  /* Unix mode: DIR, else "" */
};

/* The proxy program's body: loads the rules, confines itself
 * (cp_rt_proxy_confine) and serves until the runtime is gone.  Returns only
 * on a failure before serving: its status, with e->msg. */
int cp_rt_proxy_serve(const struct cp_rt_artifact *a,
                      const struct cp_rt_proxy_args *pa, struct cp_rt_err *e);
/* The proxy's own confinement (runtime/proxy_confine.c, Linux): Landlock
 * (read access to the resolver's files and the C library only; removing
 * its own socket and directory) and a seccomp filter allowing only the
 * system calls a proxy makes.  `hosts` is the test-only hosts file or
 * NULL.  0, or CP_RT_EXIT_CANNOT with e->msg. */
int cp_rt_proxy_confine(const struct cp_rt_proxy_args *pa, const char *hosts,
                        struct cp_rt_err *e);

/* Kills the proxy (SIGKILL) and removes its socket and directory; with
 * `reap`, also waits for it (a caller that exits right after need not:
 * the wait costs about 2 ms on a busy machine).  Safe on a zeroed or
 * already stopped proxy. */
void cp_rt_proxy_stop(struct cp_rt_proxy *px, bool reap);
/* The command's environment for a proxy on 127.0.0.1:port: env with every
 * HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY entry (and the lowercase
 * forms) replaced by the proxy's (ALL_PROXY socks5h: names are resolved by
 * the proxy; NO_PROXY empty: nothing goes around it). */
void cp_rt_proxy_env(char *const *env, unsigned port, struct cp_rt_strv *out);

/* launch.c's one call: for an artifact with `net` records, starts the
 * proxy on a Unix socket and adds to the plan the read-only bind of its
 * directory and the stage's --proxy; with --unshare-net, the stage's
 * --no-unix.  Returns 0 or CP_RT_EXIT_ERROR. */
int cp_rt_net_prepare(const struct cp_rt_artifact *a, struct cp_rt_plan *pl,
                      const char *prog, struct cp_rt_proxy *px,
                      struct cp_rt_err *e);

/* The direct path (runtime/netdirect.c, spec/runtime.md 14.8).
 * Launcher: unless CONFPOL_NET_DIRECT=0 or the kernel predates 5.9, writes
 * DIR/resolv.conf (nameserver 127.0.0.1) and adds to words its bind over
 * /etc/resolv.conf and bwrap's --cap-add CAP_NET_BIND_SERVICE.  0 or
 * CP_RT_EXIT_ERROR.
 * Stage: cp_rt_direct_on(SOCK): the launcher prepared it (DIR/resolv.conf
 * beside the proxy's socket).  cp_rt_direct_begin: hands a UDP socket of
 * the sandbox to the proxy ('D'), which binds it to 127.0.0.1:53, and
 * makes the socket pair over which the listener goes to the bridge (the
 * bridge keeps sp[1] and closes the rest).  cp_rt_direct_filter (after the
 * bridge is started): installs the connect filter, sends its listener, and
 * waits for the proxy's answer to the hand-over.  Both 0 or
 * CP_RT_EXIT_CANNOT.
 * Bridge: cp_rt_direct_take(sp[1]): the listener, or -1; then each time it
 * is readable cp_rt_direct_notify, each time one of the descriptors of
 * cp_rt_direct_pollfds (room for CP_RT_DIRECT_MAX) is, cp_rt_direct_reply. */
struct cp_rt_direct {
    int sp[2]; /* the listener's way: the stage's end, the bridge's */
    int ask;   /* the resolver hand-over, waiting for the proxy's answer */
};
enum { CP_RT_DIRECT_MAX = 64 };
int cp_rt_direct_prepare(const char *dir, struct cp_rt_strv *words,
                         struct cp_rt_err *e);
bool cp_rt_direct_on(const char *sock);
int cp_rt_direct_begin(const struct sockaddr *proxy, socklen_t plen,
                       struct cp_rt_direct *d, struct cp_rt_err *e);
int cp_rt_direct_filter(struct cp_rt_direct *d, struct cp_rt_err *e);
int cp_rt_direct_take(int sp);
void cp_rt_direct_notify(int lfd, const struct sockaddr *proxy, socklen_t plen);
size_t cp_rt_direct_pollfds(struct pollfd *out);
void cp_rt_direct_reply(int lfd, int sock);

/* Inside the sandbox (the stage, before exec): listens on 127.0.0.1 and
 * forks the bridge that carries each connection to the proxy's socket
 * `sock`; sets HTTP_PROXY and the other proxy variables.  0, or
 * CP_RT_EXIT_CANNOT with e's message. */
int cp_rt_bridge_start(const char *sock, struct cp_rt_err *e);
/* Installs the seccomp filter that refuses socket(AF_UNIX) (and
 * io_uring, which could create one past it); sets no_new_privs.  0, or
 * CP_RT_EXIT_CANNOT with e's message. */
int cp_rt_unix_close(struct cp_rt_err *e);

/* Sockets (netsock.c), all SOCK_STREAM and close-on-exec; on failure
 * errno says why and nothing is left open.
 * cp_rt_sock_listen: bound to addr and listening; the descriptor, -1 when
 * socket() failed, -2 when bind or listen did.
 * cp_rt_sock_loopback: listening on 127.0.0.1 at a free port (*port); the
 * descriptor or -1.
 * cp_rt_sock_connect: connected to addr (with SOCK_NONBLOCK in flags: the
 * connection may still be in progress); the descriptor or -1. */
int cp_rt_sock_listen(const struct sockaddr *addr, socklen_t len);
int cp_rt_sock_loopback(unsigned short *port);
int cp_rt_sock_connect(const struct sockaddr *addr, socklen_t len, int flags);
/* The next connection on the listening socket lfd (close-on-exec): retries
 * an interrupted or aborted accept, and waits 10 ms while descriptors or
 * memory run out (the clients already connected keep working); -1 on any
 * other error. */
int cp_rt_sock_accept(int lfd);
/* Descriptor passing over a connected Unix socket: one byte with
 * fd attached (SCM_RIGHTS), 0 or -1; and its receiving end, the descriptor
 * (close-on-exec) or -1 on end-of-file, error, or a message that is not
 * exactly one descriptor. */
int cp_rt_sock_send_fd(int sock, int fd);
int cp_rt_sock_recv_fd(int sock);
/* The general form: len bytes of buf with fd attached when fd >= 0; 0 or
 * -1.  Receiving: the message's length (its bytes in buf, at most cap),
 * the descriptor it carried in *fd (close-on-exec) or -1 when none; -1
 * on end-of-file, error, more than one descriptor, or a message the
 * kernel cut (MSG_CTRUNC, MSG_TRUNC on a datagram), whatever it brought
 * closed. */
int cp_rt_sock_send_msg(int sock, const void *buf, size_t len, int fd);
ssize_t cp_rt_sock_recv_msg(int sock, void *buf, size_t cap, int *fd);

/* Copies bytes both ways between two connected sockets until both
 * directions ended or nothing moved for idle_ms; half-closes a side when
 * its peer's direction ends.  Closes neither descriptor. */
void cp_rt_relay(int x, int y, int idle_ms);

#endif
