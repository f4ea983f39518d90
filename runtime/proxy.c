/* SPDX-License-Identifier: MIT */
/* The filtering proxy (spec/runtime.md, "Network"): HTTP CONNECT, plain
 * HTTP forwarding of absolute-URI requests, and SOCKS5 CONNECT, on one
 * listening socket.  Every connection is decided by cp_net_decide — the
 * decision model's network decision, the code `confpol explain` runs —
 * on the name the client asked for, from the artifact's `net` records.
 * Names are resolved here, outside the sandbox, as fully qualified; an
 * address a name resolves to that is special-purpose (util/netaddr.c) or
 * the host's own must be allowed as an IP literal too (anti-rebinding).
 * One thread per connection, blocking I/O bounded by poll deadlines. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "netaddr.h"
#include "netmatch.h"
#include "netproxy.h"

#if CP_RT_LINUX
#include <sys/prctl.h>
#endif

/* ---- configuration, fixed before the first connection -------------------- */

struct px_conf {
    struct cp_net_rule *rules;
    struct cp_domain *doms;
    const char **where; /* "FILE:LINE" of each rule */
    size_t n;
    const char *prog;
    int log_fd;
    const char *hosts; /* CONFPOL_PROXY_HOSTS: test-only resolver file */
    int max_conns;
    int header_ms;
    int connect_ms;  /* every address of one connection, together */
    bool fd_passing; /* Unix mode: the bridge passes each client's socket */
};

static struct px_conf px;
static struct cp_arena *px_arena; /* px's memory; the caller frees its copy */
static atomic_int px_open;

static long px_env_num(const char *name, long def, long lo, long hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    long n = strtol(v, &end, 10);
    return (*end || n < lo || n > hi) ? def : n;
}

static void px_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void px_log(const char *fmt, ...)
{
    char line[1200];
    int k = snprintf(line, sizeof line, "%s: proxy: ", px.prog);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + k, sizeof line - (size_t)k - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)k + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    /* A requested name is the client's text: no control byte reaches the
     * log (a newline would forge a second line). */
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = '?';
    /* One write per line: lines from concurrent connections never mix. */
    line[len++] = '\n';
    if (write(px.log_fd, line, len) < 0) { /* nowhere else to say it */
    }
}

/* ---- small I/O helpers ----------------------------------------------------- */

static long long px_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is readable before the deadline; 0, or -1 on timeout. */
static int px_wait(int fd, short ev, long long deadline)
{
    for (;;) {
        long long left = deadline - px_now_ms();
        if (left <= 0)
            return -1;
        struct pollfd p = {.fd = fd, .events = ev};
        int r = poll(&p, 1, left > 60000 ? 60000 : (int)left);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

static int px_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Reads exactly len bytes before the deadline. */
static int px_read_n(int fd, void *buf, size_t len, long long deadline)
{
    char *p = buf;
    while (len) {
        if (px_wait(fd, POLLIN, deadline) < 0)
            return -1;
        ssize_t r = recv(fd, p, len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

/* One direction of a relay: from -> to through a pipe with splice, so that
 * the bytes are never copied into this process (the 200 MB figure of
 * spec/runtime.md 14); recv/send through buf when splice refuses the pair.
 * Both sockets are non-blocking while they are relayed: a direction moves
 * what it can until the source is empty or the destination full, and only
 * then waits in poll (for input, or for room to pass on what it holds). */
struct px_dir {
    int from, to;
    int pipe[2];   /* -1: copy through buf */
    size_t inpipe; /* bytes in the pipe, not yet passed on */
    char *buf;     /* the copy (allocated when it starts): pending bytes
                       * are buf[off, off + len) */
    size_t off, len;
    bool eof;  /* `from` has ended */
    bool open; /* `to` not yet shut down for writing */
};

enum { PX_RELAY_BUF = 64 * 1024, PX_PIPE = 256 << 10 };

/* Passes on what d holds.  1: all of it; 2: `to` is full; -1: error. */
static int px_flush(struct px_dir *d)
{
    while (d->inpipe || d->len) {
        ssize_t w;
#if CP_RT_LINUX
        if (d->pipe[0] >= 0)
            w = splice(d->pipe[0], NULL, d->to, NULL, d->inpipe,
                       SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        else
#endif
            w = send(d->to, d->buf + d->off, d->len,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return 2;
        if (w <= 0)
            return -1;
        if (d->pipe[0] >= 0) {
            d->inpipe -= (size_t)w;
        } else {
            d->off += (size_t)w;
            d->len -= (size_t)w;
        }
    }
    return 1;
}

/* Takes in what `from` has now.  1: took some; 2: nothing there; 0: end
 * of stream; -1: error. */
static int px_fill(struct px_dir *d)
{
    ssize_t n;
    if (d->pipe[0] < 0 && !d->buf && !(d->buf = malloc(PX_RELAY_BUF)))
        return -1;
#if CP_RT_LINUX
    if (d->pipe[0] >= 0) {
        n = splice(d->from, NULL, d->pipe[1], NULL, PX_PIPE,
                   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n < 0 && errno == EINVAL) {
            close(d->pipe[0]);
            close(d->pipe[1]);
            d->pipe[0] = d->pipe[1] = -1; /* not spliceable: copy */
            return px_fill(d);
        }
    } else
#endif
    {
        n = recv(d->from, d->buf, PX_RELAY_BUF, MSG_DONTWAIT);
    }
    if (n < 0 && errno == EINTR)
        return 1;
    if (n < 0 && errno == EAGAIN)
        return 2;
    if (n <= 0)
        return n == 0 ? 0 : -1;
    if (d->pipe[0] >= 0) {
        d->inpipe = (size_t)n;
    } else {
        d->off = 0;
        d->len = (size_t)n;
    }
    return 1;
}

/* Moves d on as far as it goes now: at most a few fills, so that one busy
 * direction does not starve the other.  1: may go on (or waits for input);
 * 2: waits for room in `to`; -1: error.  At the end of `from`, once all is
 * passed on, `to` is shut down for writing (the half-close passed on). */
static int px_step(struct px_dir *d)
{
    for (int round = 0; round < 16; round++) {
        int f = px_flush(d);
        if (f != 1)
            return f;
        if (d->eof) {
            shutdown(d->to, SHUT_WR);
            d->open = false;
            return 1;
        }
        int m = px_fill(d);
        if (m < 0)
            return -1;
        if (m == 2)
            return 1;
        if (m == 0)
            d->eof = true;
    }
    return 1;
}

/* The poll entry of d: room in `to` while it holds bytes, else input. */
static struct pollfd px_want(const struct px_dir *d)
{
    if (!d->open)
        return (struct pollfd){.fd = -1};
    if (d->inpipe || d->len)
        return (struct pollfd){.fd = d->to, .events = POLLOUT};
    return (struct pollfd){.fd = d->from, .events = POLLIN};
}

/* O_NONBLOCK on or off: 0, or -1 when either fcntl fails (a descriptor
 * left in the wrong mode would block a relay or spin on EAGAIN). */
static int px_nonblock_set(int fd, bool on)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -1;
    return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static void px_nonblock(int fd)
{
    px_nonblock_set(fd, true); /* else the relay's writes block: slower */
}

void cp_rt_relay(int x, int y, int idle_ms)
{
    struct px_dir d[2] = {{.from = x, .to = y, .open = true},
                          {.from = y, .to = x, .open = true}};
    for (int k = 0; k < 2; k++) {
        d[k].pipe[0] = d[k].pipe[1] = -1; /* the portable path: recv/send */
#if CP_RT_LINUX
        if (pipe2(d[k].pipe, O_CLOEXEC) < 0)
            d[k].pipe[0] = d[k].pipe[1] = -1;
        else
            /* Best effort; 256 KiB bounds what 256 connections can pin
             * in pipes (128 MiB) while keeping the splices large. */
            fcntl(d[k].pipe[1], F_SETPIPE_SZ, PX_PIPE);
#endif
    }
    px_nonblock(x);
    px_nonblock(y);
    while (d[0].open || d[1].open) {
        struct pollfd p[2] = {px_want(&d[0]), px_want(&d[1])};
        int r = poll(p, 2, idle_ms);
        if (r == 0)
            break; /* idle */
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        int err = 0;
        for (int k = 0; k < 2 && !err; k++)
            if (p[k].revents && px_step(&d[k]) < 0)
                err = 1;
        if (err)
            break;
    }
    for (int k = 0; k < 2; k++) {
        if (d[k].pipe[0] >= 0) {
            close(d[k].pipe[0]);
            close(d[k].pipe[1]);
        }
        free(d[k].buf);
    }
}

/* ---- the decision ------------------------------------------------------------ */

struct px_verdict {
    bool allow;
    const char *rule; /* "FILE:LINE" of the deciding rule, or "no rule" */
};

static struct px_verdict px_decide(const struct cp_domain *req)
{
    size_t first = 0, nm = 0;
    enum cp_verdict v = cp_net_decide_first(px.rules, px.n, req, &first, &nm);
    struct px_verdict out = {.allow = v == CP_ALLOW, .rule = "no rule"};
    if (nm)
        out.rule = px.where[first];
    return out;
}

/* Is ip one of this host's own addresses (a service bound to 0.0.0.0 or
 * :: answers there)?  Asked of the kernel: binding a socket to an address
 * succeeds only for a local one (IP_BIND_ADDRESS_NO_PORT: no port is
 * taken).  Any failure but "not local" counts as local (refused), as does
 * everything when non-local binds are enabled on the host. */
static bool px_host_own(const struct cp_ip *ip)
{
    struct cp_addr_class c;
    cp_addr_classify(ip, &c);
    const struct cp_ip *a = c.embed == CP_EMBED_MAPPED ? &c.inner : ip;
    int fd = socket(a->af, SOCK_STREAM, 0); /* the proxy never execs */
    if (fd < 0)
        return errno != EAFNOSUPPORT; /* no such sockets: not dialled */
    int one = 1;
#ifdef IP_BIND_ADDRESS_NO_PORT
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
#else
    (void)one;
#endif
    union cp_sockaddr u;
    socklen_t len = cp_ip_to_sockaddr(a, 0, &u);
    bool own = bind(fd, &u.sa, len) == 0 || errno != EADDRNOTAVAIL;
    close(fd);
    return own;
}

/* May a connection for an allowed name go to this address?  The one
 * decision of spec/runtime.md 14.3 (cp_net_addr_allowed); *why gets the
 * reason of a refusal. */
static bool px_addr_ok(const struct cp_ip *ip, unsigned port, const char **why)
{
    struct cp_addr_class c;
    cp_addr_classify(ip, &c);
    bool own = !c.range && px_host_own(ip);
    return cp_net_addr_allowed(px.rules, px.n, ip, port, own, why);
}

/* ---- resolving and connecting -------------------------------------------- */

/* An address in text form into *out; false when it is none. */
static bool px_ip_parse(const char *text, struct cp_ip *out)
{
    memset(out, 0, sizeof *out);
    if (inet_pton(AF_INET, text, out->b) == 1)
        out->af = AF_INET;
    else if (inet_pton(AF_INET6, text, out->b) == 1)
        out->af = AF_INET6;
    return out->af != 0;
}

/* The test-only hosts file: "ADDRESS NAME..." lines, '#' comments. */
static bool px_hosts_lookup(const char *name, struct cp_ip *out)
{
    if (!px.hosts)
        return false;
    FILE *f = fopen(px.hosts, "re");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char *save = NULL, *addr = strtok_r(line, " \t\r\n", &save);
        if (!addr || addr[0] == '#')
            continue;
        for (char *w; !found && (w = strtok_r(NULL, " \t\r\n", &save));)
            found = !strcasecmp(w, name) && px_ip_parse(addr, out);
    }
    fclose(f);
    return found;
}

/* Connects to ip:port before the deadline; the descriptor or -1. */
static int px_connect_one(const struct cp_ip *ip, unsigned port,
                          long long deadline)
{
    union cp_sockaddr u;
    socklen_t len = cp_ip_to_sockaddr(ip, port, &u);
    int fd = cp_rt_sock_connect(&u.sa, len, SOCK_NONBLOCK);
    if (fd < 0)
        return -1;
    int err = 0;
    socklen_t el = sizeof err;
    if (px_wait(fd, POLLOUT, deadline) < 0 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err ||
        px_nonblock_set(fd, false) < 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

enum px_fail { PX_OK, PX_DENIED_ADDR, PX_NO_NAME, PX_NO_CONNECT };
enum { PX_MAX_ADDRS = 16 };

/* The addresses the name resolves to, those refused by px_addr_ok left
 * out (*dropped: some were; *why: the first one's reason).  The resolver
 * is asked for the name as fully qualified: the proxy runs with an empty
 * search list (LOCALDOMAIN, set in px_child_setup), so that a name that
 * does not exist is not looked up again under the host's search domains. */
static size_t px_resolve(const struct cp_domain *req, struct cp_ip *cand,
                         bool *dropped, const char **why)
{
    size_t nc = 0;
    struct cp_ip one;
    if (px_hosts_lookup(req->name, &one)) {
        if (px_addr_ok(&one, req->port, why))
            cand[nc++] = one;
        else
            *dropped = true;
        return nc;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_family = AF_UNSPEC};
    struct addrinfo *res = NULL;
    const char *name = strcmp(req->name, "localhost") ? req->name : "127.0.0.1";
    if (getaddrinfo(name, NULL, &hints, &res) != 0)
        return 0;
    for (struct addrinfo *r = res; r && nc < PX_MAX_ADDRS; r = r->ai_next) {
        if (!cp_ip_from_sockaddr(r->ai_addr, r->ai_addrlen, &one))
            continue;
        const char *w = NULL;
        if (px_addr_ok(&one, req->port, &w)) {
            cand[nc++] = one;
        } else if (!*dropped) {
            *dropped = true;
            *why = w;
        }
    }
    freeaddrinfo(res);
    return nc;
}

/* Connects to the decided request, within one deadline for every address
 * tried.  IP literals are used as they are (a rule named them); names are
 * resolved here and every answer must pass px_addr_ok. */
static enum px_fail px_connect(const struct cp_domain *req, int *fd,
                               const char **why)
{
    struct cp_ip cand[PX_MAX_ADDRS];
    size_t nc = 0;
    bool dropped = false;
    *fd = -1;
    if (req->kind != CP_HOST_NAME) {
        if (!px_ip_parse(req->name, &cand[0]))
            return PX_NO_NAME;
        nc = 1;
    } else {
        nc = px_resolve(req, cand, &dropped, why);
    }
    if (nc == 0)
        return dropped ? PX_DENIED_ADDR : PX_NO_NAME;
    long long deadline = px_now_ms() + px.connect_ms;
    for (size_t i = 0; i < nc && px_now_ms() < deadline; i++) {
        *fd = px_connect_one(&cand[i], req->port, deadline);
        if (*fd >= 0)
            return PX_OK;
    }
    return PX_NO_CONNECT;
}

/* ---- HTTP ------------------------------------------------------------------------ */

static void px_http_reply(int c, int code, const char *reason, const char *rule,
                          const char *body)
{
    char msg[1024];
    int n = snprintf(msg, sizeof msg,
                     "HTTP/1.1 %d %s\r\n%s%s%sContent-Type: text/plain\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     code, reason, rule ? "X-Confpol-Rule: " : "",
                     rule ? rule : "", rule ? "\r\n" : "", strlen(body), body);
    if (n > 0)
        px_write_all(c, msg,
                     (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

/* Reads the request head (through the blank line) within the limits.
 * Returns its length (>0) with *have bytes read in total, or -408/-431/-400. */
static int px_read_head(int c, char *buf, size_t cap, size_t *have,
                        long long deadline)
{
    size_t len = *have;
    for (;;) {
        buf[len] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (end) {
            *have = len;
            return (int)(end + 4 - buf);
        }
        if (memchr(buf, '\0', len))
            return -400;
        if (len >= cap - 1)
            return -431;
        if (px_wait(c, POLLIN, deadline) < 0)
            return -408;
        ssize_t r = recv(c, buf + len, cap - 1 - len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -400;
        len += (size_t)r;
    }
}

/* Is this header (a line "Name: value") one the proxy drops? */
static bool px_hop_header(const char *line, size_t len)
{
    static const char *const drop[] = {"proxy-connection:", "connection:",
                                       "keep-alive:", "proxy-authorization:"};
    for (size_t i = 0; i < sizeof drop / sizeof *drop; i++) {
        size_t k = strlen(drop[i]);
        if (len >= k && strncasecmp(line, drop[i], k) == 0)
            return true;
    }
    return false;
}

static void px_deny_log(const char *what, const char *target, const char *rule,
                        const char *why)
{
    px_log("deny %s %s (%s)%s%s", what, target, rule, why ? ": " : "",
           why ? why : "");
}

/* A name whose every address was refused (spec/runtime.md 14.3). */
static void px_addr_deny_log(const char *what, const char *target,
                             const char *why)
{
    px_log("deny %s %s (no rule): resolves to an address that no rule "
           "allows: %s",
           what, target, why);
}

/* A request head that could not be read: 408, 431 or 400. */
static void px_http_unread(int c, int code)
{
    px_http_reply(c, code,
                  code == 408   ? "Request Timeout"
                  : code == 431 ? "Request Header Fields Too Large"
                                : "Bad Request",
                  NULL, "confpol: the proxy could not read the request\n");
    px_log("refused a request: %s",
           code == 408   ? "the head did not arrive in time"
           : code == 431 ? "the head is over the size limit"
                         : "malformed");
}

/* The parts of an HTTP request line the proxy needs. */
struct px_req {
    char *eol, *sp1, *sp2; /* end of the line, the spaces around the target */
    bool connect_m;        /* CONNECT HOST:PORT */
    const char *hostport;  /* HOST[:PORT] of the target */
    size_t hplen;
    const char *path; /* origin-form path of an absolute URI ("/" if none) */
    size_t pathlen;
    unsigned defport; /* 443 for CONNECT, 80 for http:// */
};

/* A refused request line: the answer's body and the log's reason. */
struct px_bad {
    const char *body, *why;
};

/* The target of a plain request: an absolute http:// URI. */
static const struct px_bad *px_req_uri(struct px_req *q)
{
    static const struct px_bad not_abs = {
        "confpol: a proxy request needs an absolute http:// URI\n",
        "not an absolute http:// URI"};
    static const struct px_bad bad_host = {"confpol: bad host in the URI\n",
                                           "bad host in the URI"};
    const char *target = q->sp1 + 1;
    size_t tlen = (size_t)(q->sp2 - target);
    if (tlen < 7 || strncasecmp(target, "http://", 7) != 0)
        return &not_abs;
    q->hostport = target + 7;
    const char *slash = memchr(q->hostport, '/', tlen - 7);
    q->hplen = slash ? (size_t)(slash - q->hostport) : tlen - 7;
    if (slash) {
        q->path = slash;
        q->pathlen = (size_t)(q->sp2 - slash);
    }
    q->defport = 80;
    if (memchr(q->hostport, '@', q->hplen) ||
        memchr(q->hostport, '?', q->hplen) ||
        memchr(q->hostport, '#', q->hplen))
        return &bad_host;
    return NULL;
}

/* A method: a token (RFC 9110 5.6.2) of at most PX_MAX_METHOD bytes. */
enum { PX_MAX_METHOD = 32 };
static bool px_method_ok(const char *m, size_t len)
{
    if (len == 0 || len > PX_MAX_METHOD)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((m[i] >= 'A' && m[i] <= 'Z') || (m[i] >= 'a' && m[i] <= 'z') ||
              (m[i] >= '0' && m[i] <= '9') ||
              (m[i] && strchr("!#$%&'*+-.^_`|~", m[i]))))
            return false;
    return true;
}

/* Request line: METHOD SP TARGET SP HTTP/1.0|1.1 CRLF.  NULL, or why not. */
static const struct px_bad *px_req_line(char *buf, struct px_req *q)
{
    static const struct px_bad malformed = {"confpol: malformed request line\n",
                                            "malformed request line"};
    q->eol = strstr(buf, "\r\n");
    q->sp1 = memchr(buf, ' ', (size_t)(q->eol - buf));
    q->sp2 = q->sp1 ? memchr(q->sp1 + 1, ' ', (size_t)(q->eol - q->sp1 - 1))
                    : NULL;
    if (!q->sp1 || !q->sp2 || q->eol - q->sp2 != 9 ||
        (strncmp(q->sp2 + 1, "HTTP/1.1", 8) != 0 &&
         strncmp(q->sp2 + 1, "HTTP/1.0", 8) != 0) ||
        !px_method_ok(buf, (size_t)(q->sp1 - buf)))
        return &malformed;
    q->connect_m = (size_t)(q->sp1 - buf) == 7 &&
                   strncmp(buf, "CONNECT", 7) == 0;
    q->hostport = q->sp1 + 1;
    q->hplen = (size_t)(q->sp2 - q->hostport);
    q->path = "/";
    q->pathlen = 1;
    q->defport = 443;
    return q->connect_m ? NULL : px_req_uri(q);
}

/* The requested host, parsed into *req (port defaulted); false when
 * refused (answered and logged). */
static bool px_http_host(int c, struct cp_arena *ar, const struct px_req *q,
                         struct cp_domain *req)
{
    const char *msg = cp_net_host_parse(ar, q->hostport, q->hplen, req);
    if (!msg && !req->port && q->connect_m)
        msg = "CONNECT needs HOST:PORT";
    if (msg) {
        int shown = (int)(q->hplen > 200 ? 200 : q->hplen);
        char body[400];
        snprintf(body, sizeof body, "confpol: bad host '%.*s': %s\n", shown,
                 q->hostport, msg);
        px_http_reply(c, 400, "Bad Request", NULL, body);
        px_log("refused a request: bad host '%.*s': %s", shown, q->hostport,
               msg);
        return false;
    }
    if (!req->port)
        req->port = q->defport;
    return true;
}

/* Decides and connects; the upstream socket, or -1 when refused or
 * unreachable (answered and logged). */
static int px_http_upstream(int c, struct cp_arena *ar, const struct px_req *q,
                            const struct cp_domain *req)
{
    const char *shown = cp_domain_format(ar, req);
    const char *what = q->connect_m ? "CONNECT" : "HTTP";
    struct px_verdict v = px_decide(req);
    char body[600];
    /* Logged before the answer: a client that has its 403 may end the
     * command, and the runtime then stops the proxy at once. */
    if (!v.allow) {
        px_deny_log(what, shown, v.rule, NULL);
        snprintf(body, sizeof body,
                 "confpol: %s is denied by the policy (%s)\n", shown, v.rule);
        px_http_reply(c, 403, "Forbidden", v.rule, body);
        return -1;
    }
    int u;
    const char *why = NULL;
    enum px_fail f = px_connect(req, &u, &why);
    if (f == PX_DENIED_ADDR) {
        px_addr_deny_log(what, shown, why);
        snprintf(body, sizeof body,
                 "confpol: %s resolves to an address that no rule allows: "
                 "%s (no rule)\n",
                 shown, why);
        px_http_reply(c, 403, "Forbidden", "no rule", body);
        return -1;
    }
    if (f != PX_OK) {
        px_http_reply(c, 502, "Bad Gateway", NULL,
                      f == PX_NO_NAME
                          ? "confpol: cannot resolve the host\n"
                          : "confpol: cannot connect to the host\n");
        return -1;
    }
    return u;
}

/* Plain HTTP: the head rewritten in origin form, hop-by-hop headers
 * dropped, one request per connection ("Connection: close"); NULL when out
 * of memory. */
static char *px_http_rewrite(const char *buf, int head, const struct px_req *q,
                             size_t *len)
{
    char *out = malloc(CP_PX_MAX_HEADER + 256);
    size_t ol = 0;
    if (!out)
        return NULL;
    /* Every part is copied by its length: the method was checked to be a
     * short token (px_req_line). */
    size_t ml = (size_t)(q->sp1 + 1 - buf);
    memcpy(out, buf, ml);
    ol += ml;
    memcpy(out + ol, q->path, q->pathlen);
    ol += q->pathlen;
    size_t vl = (size_t)(q->eol - q->sp2);
    memcpy(out + ol, q->sp2, vl);
    ol += vl;
    memcpy(out + ol, "\r\n", 2);
    ol += 2;
    for (char *line = q->eol + 2; line < buf + head - 2;) {
        char *le = strstr(line, "\r\n");
        if (!le)
            break;
        if (!px_hop_header(line, (size_t)(le - line))) {
            memcpy(out + ol, line, (size_t)(le + 2 - line));
            ol += (size_t)(le + 2 - line);
        }
        line = le + 2;
    }
    memcpy(out + ol, "Connection: close\r\n\r\n", 21);
    ol += 21;
    *len = ol;
    return out;
}

/* Sends `first` (the answer to CONNECT or the rewritten head) and what the
 * client sent after its head, then relays. */
static void px_http_relay(int c, int u, int to_first, const char *first,
                          size_t flen, const char *buf, int head, size_t have)
{
    if (px_write_all(to_first, first, flen) == 0 &&
        (have == (size_t)head ||
         px_write_all(u, buf + head, have - (size_t)head) == 0))
        cp_rt_relay(c, u, CP_PX_IDLE_MS);
}

static void px_http(int c, char *buf, size_t have, long long deadline,
                    struct cp_arena *ar)
{
    int head = px_read_head(c, buf, CP_PX_MAX_HEADER + 1, &have, deadline);
    if (head < 0) {
        px_http_unread(c, -head);
        return;
    }
    struct px_req q;
    const struct px_bad *bad = px_req_line(buf, &q);
    if (bad) {
        px_http_reply(c, 400, "Bad Request", NULL, bad->body);
        px_log("refused a request: %s", bad->why);
        return;
    }
    struct cp_domain req;
    if (!px_http_host(c, ar, &q, &req))
        return;
    int u = px_http_upstream(c, ar, &q, &req);
    if (u < 0)
        return;
    if (q.connect_m) {
        static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
        px_http_relay(c, u, c, ok, sizeof ok - 1, buf, head, have);
    } else {
        size_t ol;
        char *out = px_http_rewrite(buf, head, &q, &ol);
        if (out)
            px_http_relay(c, u, u, out, ol, buf, head, have);
        free(out);
    }
    close(u);
}

/* ---- SOCKS5 (RFC 1928), CONNECT only, no authentication ------------------------ */

static void px_socks_reply(int c, unsigned char code)
{
    unsigned char r[10] = {5, code, 0, 1, 0, 0, 0, 0, 0, 0};
    px_write_all(c, r, sizeof r);
}

/* The greeting (the version byte was read by px_conn: NMETHODS
 * METHODS...) and the request's head into q; true when a CONNECT request
 * follows, q[3] its address type (otherwise answered and logged). */
static bool px_socks_hello(int c, long long deadline, unsigned char q[4])
{
    unsigned char h[2], m[255];
    if (px_read_n(c, h + 1, 1, deadline) < 0 || h[1] == 0 ||
        px_read_n(c, m, h[1], deadline) < 0) {
        px_log("refused a SOCKS5 request: malformed or too slow greeting");
        return false;
    }
    if (!memchr(m, 0, h[1])) {
        px_write_all(c, "\x05\xff", 2);
        px_log("refused a SOCKS5 request: only 'no authentication' is offered");
        return false;
    }
    px_write_all(c, "\x05\x00", 2);
    if (px_read_n(c, q, 4, deadline) < 0 || q[0] != 5) {
        px_log("refused a SOCKS5 request: malformed request");
        return false;
    }
    if (q[1] != 1) {
        px_socks_reply(c, 7); /* command not supported */
        px_log("refused a SOCKS5 request: only CONNECT is supported");
        return false;
    }
    return true;
}

/* The request's address as text into host (size bytes, at least 257);
 * false when refused (answered and logged). */
static bool px_socks_addr(int c, long long deadline, unsigned atyp, char *host,
                          size_t size)
{
    unsigned char a[256];
    if (atyp == 1 && px_read_n(c, a, 4, deadline) == 0)
        inet_ntop(AF_INET, a, host, (socklen_t)size);
    else if (atyp == 4 && px_read_n(c, a, 16, deadline) == 0)
        inet_ntop(AF_INET6, a, host, (socklen_t)size);
    else if (atyp == 3 && px_read_n(c, a, 1, deadline) == 0 && a[0] > 0 &&
             px_read_n(c, host, a[0], deadline) == 0 &&
             !memchr(host, '\0', a[0]))
        host[a[0]] = '\0';
    else {
        px_socks_reply(c, 8); /* address type not supported */
        px_log("refused a SOCKS5 request: bad address");
        return false;
    }
    return true;
}

/* Decides and connects; the upstream socket, or -1 when refused or
 * unreachable (answered and logged). */
static int px_socks_upstream(int c, struct cp_arena *ar,
                             const struct cp_domain *req)
{
    const char *shown = cp_domain_format(ar, req);
    struct px_verdict v = req->port ? px_decide(req)
                                    : (struct px_verdict){false, "no rule"};
    if (!v.allow) { /* logged first, as in px_http_upstream */
        px_deny_log("SOCKS5", shown, v.rule, NULL);
        px_socks_reply(c, 2); /* connection not allowed by ruleset */
        return -1;
    }
    int u;
    const char *why = NULL;
    enum px_fail f = px_connect(req, &u, &why);
    if (f == PX_DENIED_ADDR) {
        px_addr_deny_log("SOCKS5", shown, why);
        px_socks_reply(c, 2);
        return -1;
    }
    if (f != PX_OK) {
        px_socks_reply(c, f == PX_NO_NAME ? 4 : 5);
        return -1;
    }
    return u;
}

static void px_socks(int c, long long deadline, struct cp_arena *ar)
{
    unsigned char q[4], p[2];
    char host[300];
    if (!px_socks_hello(c, deadline, q) ||
        !px_socks_addr(c, deadline, q[3], host, sizeof host))
        return;
    if (px_read_n(c, p, 2, deadline) < 0)
        return;
    struct cp_domain req;
    const char *msg = cp_net_host_parse(ar, host, strlen(host), &req);
    if (msg || req.port) { /* a SOCKS name carries no port of its own */
        px_socks_reply(c, 1);
        px_log("refused a SOCKS5 request: bad host '%.200s': %s", host,
               msg ? msg : "a port in the name");
        return;
    }
    req.port = (unsigned)p[0] << 8 | p[1];
    int u = px_socks_upstream(c, ar, &req);
    if (u < 0)
        return;
    px_socks_reply(c, 0);
    cp_rt_relay(c, u, CP_PX_IDLE_MS);
    close(u);
}

/* ---- connections ------------------------------------------------------------------ */

/* Closes after an answer without losing it: a close with unread input
 * resets the connection, and the client (or the bridge relaying to it)
 * could then drop the answer.  Reads what is left for a moment first. */
static void px_close_soft(int c)
{
    shutdown(c, SHUT_WR);
    long long deadline = px_now_ms() + 100;
    char sink[4096];
    size_t total = 0;
    while (total < 65536 && px_wait(c, POLLIN, deadline) == 0) {
        ssize_t r = recv(c, sink, sizeof sink, MSG_DONTWAIT);
        if (r <= 0)
            break;
        total += (size_t)r;
    }
    close(c);
}

#if CP_RT_LINUX
/* ---- the direct path (spec/runtime.md 14.8) ------------------------------- */

/* Each allowed name the sandbox's resolver asked for gets one address of
 * 198.18.0.0/16 for the sandbox's life: 198.18.0.1 the first, and so on.
 * The decision of a connection to such an address is made on the name
 * mapped here and the port, never on anything the sandbox says. */
enum { PX_MAP_MAX = 4096 };
static pthread_mutex_t px_map_lock = PTHREAD_MUTEX_INITIALIZER;
static char *px_map_names[PX_MAP_MAX];
static size_t px_map_n;
static atomic_int px_dns_on;

/* The address of a name (mapped now if it is new): its host number
 * 1..PX_MAP_MAX, or 0 when the table is full. */
static unsigned px_map_name(const char *name)
{
    unsigned h = 0;
    pthread_mutex_lock(&px_map_lock);
    for (size_t i = 0; i < px_map_n && !h; i++)
        if (!strcmp(px_map_names[i], name))
            h = (unsigned)i + 1;
    if (!h && px_map_n < PX_MAP_MAX) {
        char *copy = strdup(name);
        if (copy) {
            px_map_names[px_map_n++] = copy;
            h = (unsigned)px_map_n;
        }
    }
    pthread_mutex_unlock(&px_map_lock);
    return h;
}

/* The name mapped to 198.18.a.b, or NULL (names are never freed). */
static const char *px_map_lookup(const unsigned char ip[4])
{
    if (ip[0] != 198 || ip[1] != 18)
        return NULL;
    size_t h = (size_t)ip[2] << 8 | ip[3];
    pthread_mutex_lock(&px_map_lock);
    const char *name = h >= 1 && h <= px_map_n ? px_map_names[h - 1] : NULL;
    pthread_mutex_unlock(&px_map_lock);
    return name;
}

/* May some connection to the name be allowed (at the port of some rule
 * that names it)?  Decided by the same function as every connection. */
static bool px_name_allowed(const char *name)
{
    for (size_t i = 0; i < px.n; i++) {
        const struct cp_domain *d = px.rules[i].dom;
        if (!d || d->kind != CP_HOST_NAME || !cp_domain_matches(d, name))
            continue;
        struct cp_domain req = {.name = name,
                                .kind = CP_HOST_NAME,
                                .port = d->port ? d->port : 443};
        if (px_decide(&req).allow)
            return true;
    }
    return false;
}

/* A DNS question (RFC 1035 4.1.2) at q of a query of len bytes: the name
 * into name (lower-case, dotted, no final dot), its type and the end of
 * the question; false when it is none of those (compression in a
 * question, a label over 63 bytes, a name over 253). */
static bool px_dns_question(const unsigned char *q, size_t len, char *name,
                            unsigned *type, size_t *end)
{
    size_t i = 12, n = 0;
    while (i < len && q[i]) {
        size_t l = q[i++];
        if (l > 63 || i + l > len || n + l + 1 > 254)
            return false;
        if (n)
            name[n++] = '.';
        for (size_t k = 0; k < l; k++) {
            unsigned char c = q[i + k];
            if (c == '.' || c <= ' ' || c >= 0x7f)
                return false; /* one label must stay one label */
            name[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        i += l;
    }
    name[n] = '\0';
    if (i + 5 > len || n == 0)
        return false;
    *type = (unsigned)q[i + 1] << 8 | q[i + 2];
    unsigned cls = (unsigned)q[i + 3] << 8 | q[i + 4];
    *end = i + 5;
    return cls == 1; /* IN */
}

enum { PX_DNS_A = 1, PX_DNS_AAAA = 28 };

/* The answer to one query in q (len bytes) into a (room for 512); its
 * length, or 0 for no answer (not a query).  An allowed name: its mapped
 * address for A, no data for any other type; another name: NXDOMAIN. */
static size_t px_dns_answer(unsigned char *q, size_t len, unsigned char *a)
{
    if (len < 12 || (q[2] & 0x80)) /* short, or a response */
        return 0;
    char name[256];
    unsigned type = 0;
    size_t end = 0;
    unsigned rcode = 0, host = 0;
    struct cp_domain req;
    struct cp_arena *ar = cp_arena_new();
    if (((q[2] >> 3) & 0xf) != 0)
        rcode = 4; /* NOTIMP: only standard queries */
    else if (q[4] != 0 || q[5] != 1 ||
             !px_dns_question(q, len, name, &type, &end))
        rcode = 1; /* FORMERR */
    else if (cp_net_host_parse(ar, name, strlen(name), &req) ||
             req.kind != CP_HOST_NAME || !px_name_allowed(req.name)) {
        rcode = 3;               /* NXDOMAIN: not a name the rules allow */
        if (type != PX_DNS_AAAA) /* resolvers ask both: one line */
            px_deny_log("DNS", name, "no rule", NULL);
    } else if (type == PX_DNS_A && !(host = px_map_name(req.name)))
        rcode = 2; /* SERVFAIL: every address of the range is taken */
    cp_arena_free(ar);
    size_t n = rcode == 1 ? 12 : end;
    memcpy(a, q, n);
    a[2] = (unsigned char)(0x84 | (q[2] & 0x01)); /* QR, AA, RD as asked */
    a[3] = (unsigned char)(0x80 | rcode);         /* RA */
    memset(a + 4, 0, 8);
    a[5] = rcode == 1 ? 0 : 1;
    if (rcode || type != PX_DNS_A)
        return n;
    static const unsigned char rr[] = {0xc0, 12, 0, PX_DNS_A, 0, 1,
                                       0,    0,  1, 0x2c,     0, 4};
    a[7] = 1; /* one answer, TTL 300 */
    memcpy(a + n, rr, sizeof rr);
    a[n + 12] = 198;
    a[n + 13] = 18;
    a[n + 14] = (unsigned char)(host >> 8);
    a[n + 15] = (unsigned char)host;
    return n + 16;
}

/* The sandbox's resolver: UDP on its 127.0.0.1:53, a socket the stage
 * made there and handed over.  One query, one answer, no other I/O. */
static void *px_dns(void *arg)
{
    int fd = (int)(intptr_t)arg;
    unsigned char q[512], a[512 + 16];
    for (;;) {
        union cp_sockaddr from;
        socklen_t fl = sizeof from;
        ssize_t r = recvfrom(fd, q, sizeof q, 0, &from.sa, &fl);
        if (r < 0 && errno != EINTR)
            break;
        size_t n = r > 0 ? px_dns_answer(q, (size_t)r, a) : 0;
        if (n && sendto(fd, a, n, MSG_NOSIGNAL, &from.sa, fl) < 0) {
        } /* the asker is gone: nothing to do */
    }
    close(fd);
    return NULL;
}

/* The first DNS socket handed over is bound to 127.0.0.1:53 of its
 * network namespace (the sandbox's: the proxy, as the user who made that
 * namespace's user namespace, may bind a low port there; nothing inside
 * may) and served; any later one is refused.  Only an unbound UDP socket
 * of the sandbox's: one of its own it already held.  Answers u with one
 * byte, 0 or an errno value. */
static void px_dns_take(int u, int fd)
{
    int dom = 0, type = 0;
    socklen_t l1 = sizeof dom, l2 = sizeof type;
    union cp_sockaddr a;
    memset(&a, 0, sizeof a);
    a.in4.sin_family = AF_INET;
    a.in4.sin_port = htons(53);
    a.in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    unsigned char code = 0;
    pthread_t t;
    pthread_attr_t at;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l1) < 0 ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l2) < 0 || dom != AF_INET ||
        type != SOCK_DGRAM || atomic_exchange(&px_dns_on, 1))
        code = EINVAL;
    else if (bind(fd, &a.sa, sizeof a.in4) < 0)
        code = (unsigned char)errno;
    else if (pthread_attr_init(&at) != 0)
        code = ENOMEM;
    if (!code) {
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, 128 * 1024);
        if (pthread_create(&t, &at, px_dns, (void *)(intptr_t)fd) != 0)
            code = EAGAIN;
        pthread_attr_destroy(&at);
    }
    if (code)
        close(fd);
    if (cp_rt_sock_send_msg(u, &code, 1, -1) < 0) {
    } /* the stage is gone */
}

/* A connection to a mapped address, asked by the sandbox's supervisor
 * (the bridge, which took it from the client's connect): m is 'C', the
 * IPv4 address, the port.  Decided on the mapped name and the port like
 * every connection; answered with one byte, 0 and the connected socket,
 * or an errno value (EACCES: refused; ENETUNREACH: an address no name
 * has; EHOSTUNREACH: the name does not resolve; ECONNREFUSED: no address
 * answered). */
static void px_direct(int u, const unsigned char m[7])
{
    const char *name = px_map_lookup(m + 1);
    unsigned port = (unsigned)m[5] << 8 | m[6];
    unsigned char code = ENETUNREACH;
    int fd = -1;
    char shown[300];
    snprintf(shown, sizeof shown, "%s:%u", name ? name : "?", port);
    struct cp_domain req = {.name = name, .kind = CP_HOST_NAME, .port = port};
    struct px_verdict v = {false, "no rule"};
    if (name && port)
        v = px_decide(&req);
    const char *why = NULL;
    if (!name) {
    } else if (!v.allow) {
        px_deny_log("DIRECT", shown, v.rule, NULL);
        code = EACCES;
    } else {
        enum px_fail f = px_connect(&req, &fd, &why);
        if (f == PX_DENIED_ADDR)
            px_addr_deny_log("DIRECT", shown, why);
        code = f == PX_OK            ? 0
               : f == PX_DENIED_ADDR ? EACCES
               : f == PX_NO_NAME     ? EHOSTUNREACH
                                     : ECONNREFUSED;
    }
    if (cp_rt_sock_send_msg(u, &code, 1, code ? -1 : fd) < 0) {
    } /* the supervisor gave up: the socket goes */
    if (fd >= 0)
        close(fd);
}

/* The supervisor keeps its connection for its next request (no new
 * connection, accept and thread per connect: spec/runtime.md 14.8): after
 * the first 'C', the connection carries only 'C' requests, one at a time,
 * and ends with the first other message or the supervisor's close (it
 * dies with the sandbox).  It waits without a deadline: the supervisor
 * opens a connection only when all of its others wait for an answer. */
static void px_direct_channel(int u, const unsigned char first[7])
{
    unsigned char m[8];
    memcpy(m, first, 7);
    for (;;) {
        px_direct(u, m);
        int fd = -1;
        ssize_t r;
        do /* blocking: the next request, or the end */
            r = cp_rt_sock_recv_msg(u, m, sizeof m, &fd);
        while (r < 0 && errno == EINTR);
        if (fd >= 0)
            close(fd);
        if (r != 7 || m[0] != 'C' || fd >= 0)
            return;
    }
}

/* Unix mode: what comes over an accepted connection of the proxy's
 * socket, within 1 s (in the connection's own thread: a hand-over that
 * is slow to come holds no other connection up):
 *  'F' + a descriptor: the bridge's client, a connected TCP stream
 *      socket, which the proxy then serves itself (one relay, not two);
 *      anything else the sandbox could pass it already held, and is
 *      refused all the same;
 *  'D' + a descriptor: the sandbox's resolver socket (the first only);
 *  'C' + 6 bytes, no descriptor: a direct connection (px_direct), and
 *      then the next ones on the same connection (px_direct_channel).
 * Returns the client socket of 'F', else -1 (served or refused). */
static int px_take_client(int fd);

static int px_recv_client(int u, bool serve)
{
    if (px_wait(u, POLLIN, px_now_ms() + 1000) < 0)
        return -1;
    unsigned char m[8];
    int fd = -1;
    ssize_t r = cp_rt_sock_recv_msg(u, m, sizeof m, &fd);
    if (r == 7 && m[0] == 'C' && fd < 0 && serve)
        px_direct_channel(u, m);
    if (r == 1 && m[0] == 'D' && fd >= 0 && serve) {
        px_dns_take(u, fd);
        fd = -1;
    }
    if (r != 1 || m[0] != 'F' || fd < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return px_take_client(fd);
}

/* The bridge's client socket fd: a connected TCP stream socket, made
 * blocking; fd or -1 (closed). */
static int px_take_client(int fd)
{
    int dom = 0, type = 0;
    socklen_t l1 = sizeof dom, l2 = sizeof type;
    union cp_sockaddr peer;
    socklen_t pl = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l1) < 0 ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l2) < 0 ||
        (dom != AF_INET && dom != AF_INET6) || type != SOCK_STREAM ||
        getpeername(fd, &peer.sa, &pl) < 0 || px_nonblock_set(fd, false) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}
#endif

/* The client's socket of an accepted connection c: c itself, or in Unix
 * mode the socket the bridge passes over c (c is closed); -1 when none
 * (or when c carried a request of the direct path, served here when
 * `serve`). */
static int px_client(int c, bool serve)
{
#if CP_RT_LINUX
    if (px.fd_passing) {
        int client = px_recv_client(c, serve);
        close(c);
        return client;
    }
#else
    (void)serve;
#endif
    return c;
}

static void *px_conn(void *arg)
{
    int c = px_client((int)(intptr_t)arg, true);
    if (c < 0) {
        atomic_fetch_sub(&px_open, 1);
        return NULL;
    }
    long long deadline = px_now_ms() + px.header_ms;
    char *buf = malloc(CP_PX_MAX_HEADER + 2);
    struct cp_arena *ar = cp_arena_new();
    if (buf && px_wait(c, POLLIN, deadline) == 0) {
        ssize_t n = recv(c, buf, 1, 0);
        if (n == 1 && buf[0] == 5)
            px_socks(c, deadline, ar);
        else if (n == 1)
            px_http(c, buf, 1, deadline, ar);
    } else if (buf) {
        px_http_reply(c, 408, "Request Timeout", NULL,
                      "confpol: the proxy could not read the request\n");
        px_log("refused a request: the head did not arrive in time");
    }
    cp_arena_free(ar);
    free(buf);
    px_close_soft(c);
    atomic_fetch_sub(&px_open, 1);
    return NULL;
}

/* Surplus connections (more than max_conns open) are answered 503 each in
 * a small thread of its own, at most PX_MAX_REFUSING at once, so that
 * none waits for another's answer and drain; past that they are closed at
 * once. */
enum { PX_MAX_REFUSING = 64, PX_REFUSE_STACK = 64 * 1024 };
static atomic_int px_refusing;

static void *px_refuse(void *arg)
{
    int c = px_client((int)(intptr_t)arg, false);
    if (c >= 0) {
        px_http_reply(c, 503, "Service Unavailable", NULL,
                      "confpol: too many connections through the proxy\n");
        px_close_soft(c);
    }
    atomic_fetch_sub(&px_refusing, 1);
    return NULL;
}

/* Starts fn(c) in a detached thread counted by *count (at most max);
 * false (c untouched, nothing counted) when none could start. */
static bool px_spawn(void *(*fn)(void *), int c, atomic_int *count, int max,
                     size_t stack)
{
    if (atomic_fetch_add(count, 1) >= max) {
        atomic_fetch_sub(count, 1);
        return false;
    }
    pthread_attr_t at;
    pthread_t t;
    bool ok = pthread_attr_init(&at) == 0;
    if (ok) {
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, stack);
        ok = pthread_create(&t, &at, fn, (void *)(intptr_t)c) == 0;
        pthread_attr_destroy(&at);
    }
    if (!ok)
        atomic_fetch_sub(count, 1);
    return ok;
}

static _Noreturn void px_main(int lfd)
{
    for (;;) {
        int c = cp_rt_sock_accept(lfd);
        if (c < 0)
            _exit(1);
        if (px_spawn(px_conn, c, &px_open, px.max_conns, 256 * 1024))
            continue;
        px_log("refused a connection: %d are open already", px.max_conns);
        if (!px_spawn(px_refuse, c, &px_refusing, PX_MAX_REFUSING,
                      PX_REFUSE_STACK))
            close(c);
    }
}

/* ---- the program's setup ------------------------------------------------------ */

/* The rules: the artifact's `net` records, in order.  The log is the
 * descriptor the launcher opened (its stderr, or CONFPOL_PROXY_LOG), so
 * that the proxy opens no file for writing. */
static int px_conf_load(const struct cp_rt_artifact *a, const char *prog,
                        int log_fd, struct cp_rt_err *e)
{
    struct cp_arena *ar = px_arena = cp_arena_new();
    memset(&px, 0, sizeof px);
    px.prog = prog;
    px.log_fd = log_fd;
    for (size_t i = 0; i < a->nrecs; i++)
        px.n += a->recs[i].tag == CP_RT_T_NET;
    px.rules = cp_arena_alloc(ar, (px.n + 1) * sizeof *px.rules);
    px.doms = cp_arena_alloc(ar, (px.n + 1) * sizeof *px.doms);
    px.where = cp_arena_alloc(ar, (px.n + 1) * sizeof *px.where);
    size_t k = 0;
    for (size_t i = 0; i < a->nrecs; i++) {
        const struct cp_rt_rec *r = &a->recs[i];
        if (r->tag != CP_RT_T_NET)
            continue;
        px.rules[k].dom = NULL;
        if (*r->f1) {
            const char *msg = cp_domain_parse(ar, r->f1, strlen(r->f1),
                                              &px.doms[k]);
            if (msg)
                return cp_rt_fail(e, CP_RT_EXIT_ERROR, "net rule '%.200s': %s",
                                  r->f1, msg);
            px.rules[k].dom = &px.doms[k];
        }
        /* WHERE goes into a header: a file name with a CR or LF must
         * not add lines to the answer. */
        char *w = cp_arena_strndup(ar, r->f2, strlen(r->f2));
        for (char *q = w; *q; q++)
            if ((unsigned char)*q < 0x20 || *q == 0x7f)
                *q = '?';
        px.where[k++] = w;
    }
    px.hosts = getenv("CONFPOL_PROXY_HOSTS");
    px.max_conns = (int)px_env_num("CONFPOL_PROXY_MAX_CONNS", CP_PX_MAX_CONNS,
                                   1, 65536);
    px.header_ms = (int)px_env_num("CONFPOL_PROXY_HEADER_MS", CP_PX_HEADER_MS,
                                   10, 3600000);
    px.connect_ms = (int)px_env_num("CONFPOL_PROXY_CONNECT_MS",
                                    CP_PX_CONNECT_MS, 10, 3600000);
    return 0;
}

/* Paths the proxy removes itself when the runtime dies (its parent-death
 * signal): the runtime killed with SIGKILL cannot. */
static char px_sock_path[PATH_MAX], px_dir_path[PATH_MAX];
static char px_conf_path[PATH_MAX + 16];

static void px_on_parent_death(int sig)
{
    (void)sig;
    if (px_sock_path[0])
        unlink(px_sock_path);
    if (px_conf_path[0])
        unlink(px_conf_path); /* the direct path's, when there is one */
    if (px_dir_path[0])
        rmdir(px_dir_path);
    _exit(0);
}

#if !CP_RT_LINUX
/* The portable path's parent-death signal: a thread that waits for the
 * end of the pipe whose write end only the runtime holds (closed by
 * cp_rt_proxy_stop, or by the kernel when the runtime dies, however). */
static void *px_life_watch(void *arg)
{
    struct pollfd p = {.fd = (int)(intptr_t)arg, .events = POLLIN};
    char b;
    while (poll(&p, 1, -1) < 0 ||
           (p.revents == POLLIN && read(p.fd, &b, 1) > 0))
        ;
    px_on_parent_death(0);
    return NULL;
}
#endif

/* Dies with the runtime, takes the signals it wants.  The parent-death
 * signal was asked for before the exec; the runtime may have died before
 * the handler below was in place, hence the check of the parent. */
static void px_child_setup(pid_t parent, int life)
{
    struct sigaction sa = {.sa_handler = px_on_parent_death};
    sigfillset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
#if CP_RT_LINUX
    (void)life;
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        px_on_parent_death(0);
    prctl(PR_SET_NAME, "confpol-proxy"); /* found by name in ps and tests */
#else
    (void)parent;
    pthread_t t;
    if (pthread_create(&t, NULL, px_life_watch, (void *)(intptr_t)life))
        _exit(1); /* cannot know when to stop: do not serve */
    pthread_detach(t);
#endif
    /* Names are resolved as fully qualified: no search domain of the
     * host's resolver configuration is ever appended (glibc reads the
     * search list from LOCALDOMAIN, when set, instead of resolv.conf). */
    setenv("LOCALDOMAIN", "", 1);
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
}

int cp_rt_proxy_serve(const struct cp_rt_artifact *a,
                      const struct cp_rt_proxy_args *pa, struct cp_rt_err *e)
{
    if (px_conf_load(a, pa->prog, pa->log_fd, e))
        return e->status;
    px.fd_passing = pa->sock[0] != '\0';
    snprintf(px_sock_path, sizeof px_sock_path, "%s", pa->sock);
    snprintf(px_dir_path, sizeof px_dir_path, "%s", pa->dir);
    if (pa->dir[0])
        snprintf(px_conf_path, sizeof px_conf_path, "%s/resolv.conf", pa->dir);
    px_child_setup(pa->parent, pa->life_fd);
#if CP_RT_LINUX
    if (cp_rt_proxy_confine(pa, px.hosts, e)) {
        px_log("cannot confine itself: %s", e->msg);
        return e->status;
    }
#endif
    px_main(pa->listen_fd);
}
