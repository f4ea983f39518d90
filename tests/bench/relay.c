/* SPDX-License-Identifier: MIT */
/* The proxy's relay alone (runtime/proxy.c cp_rt_relay), without bwrap,
 * curl or a server process: MB megabytes from a writer thread through
 * loopback TCP, the relay and loopback TCP again to a reader, against the
 * same bytes over one loopback connection.  Prints per round the wall time
 * of each and the relay thread's CPU time (user + system), which the load
 * of other processes changes far less than wall time; then the medians.
 *
 *   relay [MB [ROUNDS]]      (default 200 MB, 5 rounds)
 *
 * Built and run by tests/bench/run.sh (section 6b). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "netproxy.h"

static void tcp_pair(int *a, int *b)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sin;
    if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof sin) < 0 ||
        listen(l, 1) < 0 || getsockname(l, (struct sockaddr *)&sin, &sl) < 0)
        exit(1);
    *a = socket(AF_INET, SOCK_STREAM, 0);
    if (*a < 0 || connect(*a, (struct sockaddr *)&sin, sizeof sin) < 0)
        exit(1);
    *b = accept(l, NULL, NULL);
    if (*b < 0)
        exit(1);
    close(l);
}

static size_t total;

static void *writer(void *p)
{
    int fd = *(int *)p;
    static char buf[1 << 16];
    for (size_t at = 0; at < total;) {
        size_t k = total - at < sizeof buf ? total - at : sizeof buf;
        ssize_t s = send(fd, buf, k, 0);
        if (s <= 0)
            break;
        at += (size_t)s;
    }
    shutdown(fd, SHUT_WR);
    return NULL;
}

struct relay_arg {
    int x, y;
    double cpu_ms;
};

static void *relay(void *p)
{
    struct relay_arg *r = p;
    cp_rt_relay(r->x, r->y, 10000);
    struct rusage u;
    getrusage(RUSAGE_THREAD, &u);
    r->cpu_ms = (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
                (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
    close(r->x);
    close(r->y);
    return NULL;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static size_t drain(int fd)
{
    static char buf[1 << 16];
    size_t n = 0;
    for (ssize_t r; (r = recv(fd, buf, sizeof buf, 0)) > 0;)
        n += (size_t)r;
    return n;
}

/* One transfer; relayed or direct.  Returns wall ms; *cpu the relay's. */
static double once(int relayed, double *cpu)
{
    int a, b, x, y;
    tcp_pair(&a, &b);
    pthread_t w, t;
    struct relay_arg r = {0};
    int src = a, dst = b;
    if (relayed) {
        tcp_pair(&x, &y); /* a -> b=relay in, relay out x -> y reader */
        r.x = b;
        r.y = x;
        dst = y;
    }
    double t0 = now_ms();
    if (relayed)
        pthread_create(&t, NULL, relay, &r);
    pthread_create(&w, NULL, writer, &src);
    size_t got = drain(dst);
    double ms = now_ms() - t0;
    pthread_join(w, NULL);
    if (relayed) {
        shutdown(dst, SHUT_WR);
        pthread_join(t, NULL);
        close(y);
    } else {
        close(b);
    }
    close(a);
    if (got != total) {
        fprintf(stderr, "relay: %zu of %zu bytes\n", got, total);
        exit(1);
    }
    *cpu = r.cpu_ms;
    return ms;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1 || rounds > 100)
        rounds = 5;
    total = mb * 1000 * 1000;
    signal(SIGPIPE, SIG_IGN);
    double d[100], p[100], c[100], unused;
    for (int i = 0; i < rounds; i++) {
        d[i] = once(0, &unused);
        p[i] = once(1, &c[i]);
    }
    qsort(d, (size_t)rounds, sizeof *d, cmp);
    qsort(p, (size_t)rounds, sizeof *p, cmp);
    qsort(c, (size_t)rounds, sizeof *c, cmp);
    double dm = d[rounds / 2], pm = p[rounds / 2];
    printf("direct_ms=%.1f relayed_ms=%.1f relay_cpu_ms=%.1f direct_MBps=%.0f "
           "relayed_MBps=%.0f ratio=%.2f\n",
           dm, pm, c[rounds / 2], (double)total / dm / 1e3,
           (double)total / pm / 1e3, pm / dm);
    return 0;
}
