/* SPDX-License-Identifier: MIT */
/* A probe run inside `confpol run` by tests/sh/net-direct.sh and
 * tests/bench/netdirect.sh: connects to the direct path's mapped addresses
 * (spec/runtime.md 14.8) the ways an attacker or an odd client would.
 * One line of result on stdout.  The servers answer "GET /index.txt" with
 * their file, so a probe knows what it reached.
 *
 *   get IP PORT          connect, GET /index.txt: "ok BODY" or "err ERRNO"
 *   v6 IP PORT           the same from an AF_INET6 socket, ::ffff:IP
 *   nonblock IP PORT     non-blocking connect, poll, SO_ERROR, GET; also
 *                        that the socket is still non-blocking:
 *                        "ok BODY nonblock" or "err ..."
 *   cloexec IP PORT      "cloexec A B": FD_CLOEXEC after connect of a
 *                        SOCK_CLOEXEC socket (A) and of a plain one (B)
 *   twice IP PORT        connect, then connect again: "err ERRNO"
 *   udp IP PORT          connect of a UDP socket: "err ERRNO" or "ok"
 *   fastopen IP PORT     sendto MSG_FASTOPEN on a new TCP socket
 *   race IP PORT IP2 PORT2 N
 *                        N connects while a thread flips the address buffer
 *                        between IP:PORT and IP2:PORT2: "reached K other O
 *                        failed F" (K: answered by IP:PORT's file, O: by
 *                        anything else)
 *   latency IP PORT N    median microseconds from connect to the first
 *                        byte of the answer of N requests
 *   bulk IP PORT PATH    the bytes of GET PATH counted: "bytes N" */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in sin_of(const char *ip, const char *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((unsigned short)atoi(port))};
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

/* GET /index.txt on a connected socket: the body's first line into out. */
static int get(int s, char *out, size_t size)
{
    const char req[] = "GET /index.txt HTTP/1.0\r\nHost: x\r\n\r\n";
    if (write(s, req, sizeof req - 1) != (ssize_t)sizeof req - 1)
        return -1;
    char buf[4096];
    size_t n = 0;
    ssize_t r;
    while (n + 1 < sizeof buf && (r = read(s, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    char *body = strstr(buf, "\r\n\r\n");
    if (!body)
        return -1;
    body += 4;
    body[strcspn(body, "\r\n")] = '\0';
    snprintf(out, size, "%s", body);
    return 0;
}

static int report_get(int s, const struct sockaddr *a, socklen_t len)
{
    char body[256];
    if (connect(s, a, len) < 0) {
        printf("err %s\n", strerrorname_np(errno));
        return 0;
    }
    if (get(s, body, sizeof body) < 0) {
        printf("err noanswer\n");
        return 0;
    }
    printf("ok %s\n", body);
    return 0;
}

static int do_nonblock(const struct sockaddr_in *a)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int r = connect(s, (const struct sockaddr *)a, sizeof *a);
    if (r < 0 && errno != EINPROGRESS) {
        printf("err %s\n", strerrorname_np(errno));
        return 0;
    }
    struct pollfd p = {.fd = s, .events = POLLOUT};
    int err = 0;
    socklen_t el = sizeof err;
    if (poll(&p, 1, 5000) != 1 ||
        getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
        printf("err so_error %d\n", err);
        return 0;
    }
    bool nb = fcntl(s, F_GETFL) & O_NONBLOCK;
    fcntl(s, F_SETFL, 0);
    char body[256];
    if (get(s, body, sizeof body) < 0) {
        printf("err noanswer\n");
        return 0;
    }
    printf("ok %s %s\n", body, nb ? "nonblock" : "blocking");
    return 0;
}

static struct sockaddr_in race_buf, race_a, race_b;
static atomic_int race_stop;

static void *flipper(void *arg)
{
    (void)arg;
    while (!atomic_load(&race_stop)) {
        memcpy((void *)&race_buf, &race_a, sizeof race_a);
        memcpy((void *)&race_buf, &race_b, sizeof race_b);
    }
    return NULL;
}

static int do_race(char **v)
{
    race_a = sin_of(v[0], v[1]);
    race_b = sin_of(v[2], v[3]);
    race_buf = race_a;
    int n = atoi(v[4]), reached = 0, other = 0, failed = 0;
    pthread_t t;
    pthread_create(&t, NULL, flipper, NULL);
    for (int i = 0; i < n; i++) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        char body[256];
        if (connect(s, (struct sockaddr *)&race_buf, sizeof race_buf) < 0)
            failed++;
        else if (get(s, body, sizeof body) == 0 && !strcmp(body, "hello"))
            reached++;
        else
            other++;
        close(s);
    }
    atomic_store(&race_stop, 1);
    pthread_join(t, NULL);
    printf("reached %d other %d failed %d\n", reached, other, failed);
    return 0;
}

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static int do_latency(const struct sockaddr_in *a, int n)
{
    long long *t = calloc((size_t)n, sizeof *t);
    const char req[] = "GET /index.txt HTTP/1.0\r\nHost: x\r\n\r\n";
    for (int i = 0; i < n; i++) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        long long t0 = now_us();
        char c;
        if (connect(s, (const struct sockaddr *)a, sizeof *a) < 0 ||
            write(s, req, sizeof req - 1) < 0 || read(s, &c, 1) != 1) {
            printf("err %s\n", strerrorname_np(errno));
            return 0;
        }
        t[i] = now_us() - t0;
        close(s);
    }
    qsort(t, (size_t)n, sizeof *t, cmp_ll);
    printf("%lld\n", t[n / 2]);
    return 0;
}

static int do_bulk(const struct sockaddr_in *a, const char *path)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(s, (const struct sockaddr *)a, sizeof *a) < 0) {
        printf("err %s\n", strerrorname_np(errno));
        return 0;
    }
    char req[512];
    int k = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: x\r\n\r\n",
                     path);
    if (write(s, req, (size_t)k) != k)
        return 1;
    static char buf[1 << 16];
    long long total = 0;
    ssize_t r;
    while ((r = read(s, buf, sizeof buf)) > 0)
        total += r;
    printf("bytes %lld\n", total);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc < 4)
        return 2;
    const char *m = argv[1];
    struct sockaddr_in a = sin_of(argv[2], argv[3]);
    if (!strcmp(m, "get"))
        return report_get(socket(AF_INET, SOCK_STREAM, 0),
                          (struct sockaddr *)&a, sizeof a);
    if (!strcmp(m, "v6")) {
        struct sockaddr_in6 b = {.sin6_family = AF_INET6,
                                 .sin6_port = a.sin_port};
        b.sin6_addr.s6_addr[10] = b.sin6_addr.s6_addr[11] = 0xff;
        memcpy(&b.sin6_addr.s6_addr[12], &a.sin_addr, 4);
        return report_get(socket(AF_INET6, SOCK_STREAM, 0),
                          (struct sockaddr *)&b, sizeof b);
    }
    if (!strcmp(m, "nonblock"))
        return do_nonblock(&a);
    if (!strcmp(m, "cloexec")) {
        int x = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int y = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(x, (struct sockaddr *)&a, sizeof a) < 0 ||
            connect(y, (struct sockaddr *)&a, sizeof a) < 0) {
            printf("err %s\n", strerrorname_np(errno));
            return 0;
        }
        printf("cloexec %d %d\n", fcntl(x, F_GETFD) & FD_CLOEXEC,
               fcntl(y, F_GETFD) & FD_CLOEXEC);
        return 0;
    }
    if (!strcmp(m, "twice")) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
            printf("err first %s\n", strerrorname_np(errno));
            return 0;
        }
        int r = connect(s, (struct sockaddr *)&a, sizeof a);
        printf(r < 0 ? "err %s\n" : "ok%s\n",
               r < 0 ? strerrorname_np(errno) : "");
        return 0;
    }
    if (!strcmp(m, "udp")) {
        int s = socket(AF_INET, SOCK_DGRAM, 0);
        int r = connect(s, (struct sockaddr *)&a, sizeof a);
        printf(r < 0 ? "err %s\n" : "ok%s\n",
               r < 0 ? strerrorname_np(errno) : "");
        return 0;
    }
    if (!strcmp(m, "fastopen")) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        const char req[] = "GET /index.txt HTTP/1.0\r\n\r\n";
        ssize_t r = sendto(s, req, sizeof req - 1, MSG_FASTOPEN,
                           (struct sockaddr *)&a, sizeof a);
        printf(r < 0 ? "err %s\n" : "ok%s\n",
               r < 0 ? strerrorname_np(errno) : "");
        return 0;
    }
    if (!strcmp(m, "race") && argc >= 7)
        return do_race(argv + 2);
    if (!strcmp(m, "latency") && argc >= 5)
        return do_latency(&a, atoi(argv[4]));
    if (!strcmp(m, "bulk") && argc >= 5)
        return do_bulk(&a, argv[4]);
    return 2;
}
