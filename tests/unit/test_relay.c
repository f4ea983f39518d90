/* SPDX-License-Identifier: MIT */
/* runtime/proxy.c cp_rt_relay between two real loopback TCP connections:
 * megabytes each way arrive intact and in order, a half-close passes on
 * while the other direction goes on, a reader slower than the writer gets
 * everything (the relay waits for room instead of dropping), a silent
 * connection ends after the idle time, and a reset peer ends the relay. */
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "netproxy.h"

/* A connected loopback TCP pair: *a (the client end) and *b. */
static void tcp_pair(int *a, int *b)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sin;
    ck_assert_int_ge(l, 0);
    ck_assert_int_eq(bind(l, (struct sockaddr *)&sin, sizeof sin), 0);
    ck_assert_int_eq(listen(l, 1), 0);
    ck_assert_int_eq(getsockname(l, (struct sockaddr *)&sin, &sl), 0);
    *a = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(*a, (struct sockaddr *)&sin, sizeof sin), 0);
    *b = accept(l, NULL, NULL);
    ck_assert_int_ge(*b, 0);
    close(l);
}

/* The relay under test, in a thread: client end a, server end b; the
 * relay sits between x (peer of a) and y (peer of b). */
struct rl {
    int a, x, y, b;
    int idle_ms;
    pthread_t t;
};

static void *rl_thread(void *p)
{
    struct rl *r = p;
    cp_rt_relay(r->x, r->y, r->idle_ms);
    close(r->x);
    close(r->y);
    return NULL;
}

static void rl_start(struct rl *r, int idle_ms)
{
    signal(SIGPIPE, SIG_IGN); /* as the proxy runs */
    tcp_pair(&r->a, &r->x);
    tcp_pair(&r->y, &r->b);
    r->idle_ms = idle_ms;
    ck_assert_int_eq(pthread_create(&r->t, NULL, rl_thread, r), 0);
}

static unsigned char rl_byte(size_t i, unsigned seed)
{
    return (unsigned char)((i * 2654435761u) >> 13 ^ seed);
}

/* Sends n pattern bytes on fd in a thread, then half-closes it. */
struct rl_writer {
    int fd;
    size_t n;
    unsigned seed;
    pthread_t t;
};

static void *rl_write_thread(void *p)
{
    struct rl_writer *w = p;
    unsigned char buf[65536];
    for (size_t at = 0; at < w->n;) {
        size_t k = w->n - at < sizeof buf ? w->n - at : sizeof buf;
        for (size_t i = 0; i < k; i++)
            buf[i] = rl_byte(at + i, w->seed);
        ssize_t s = send(w->fd, buf, k, 0);
        if (s <= 0)
            break;
        at += (size_t)s;
    }
    shutdown(w->fd, SHUT_WR);
    return NULL;
}

/* Reads fd to its end, in pieces of `piece` bytes, pausing every 64 reads
 * when slow; checks the pattern; returns the byte count. */
static size_t rl_read_all(int fd, unsigned seed, size_t piece, bool slow)
{
    unsigned char buf[65536];
    size_t at = 0;
    for (unsigned reads = 0;; reads++) {
        ssize_t r = recv(fd, buf, piece, 0);
        ck_assert_int_ge(r, 0);
        if (r == 0)
            return at;
        /* One assertion per read: check records every assertion it runs. */
        ssize_t bad = -1;
        for (ssize_t i = 0; i < r && bad < 0; i++)
            if (buf[i] != rl_byte(at + (size_t)i, seed))
                bad = i;
        ck_assert_msg(bad < 0, "byte %zu differs", at + (size_t)bad);
        at += (size_t)r;
        if (slow && reads % 64 == 0)
            usleep(2000);
    }
}

static double rl_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* 16 MB down and 32 MB up at once, each ended by a half-close; the up
 * bytes are read only after the down ones, so the relay must hold up bytes
 * it cannot pass on yet and keep moving down bytes meanwhile (a relay that
 * blocks in a write to a full socket deadlocks here). */
START_TEST(both_ways_half_close)
{
    struct rl r;
    rl_start(&r, 10000);
    struct rl_writer down = {.fd = r.b, .n = 16u << 20, .seed = 1};
    struct rl_writer up = {.fd = r.a, .n = 32u << 20, .seed = 2};
    ck_assert_int_eq(pthread_create(&down.t, NULL, rl_write_thread, &down), 0);
    ck_assert_int_eq(pthread_create(&up.t, NULL, rl_write_thread, &up), 0);
    ck_assert_uint_eq(rl_read_all(r.a, 1, 65536, false), down.n);
    ck_assert_uint_eq(rl_read_all(r.b, 2, 65536, false), up.n);
    pthread_join(down.t, NULL);
    pthread_join(up.t, NULL);
    pthread_join(r.t, NULL); /* both directions ended: the relay returns */
    close(r.a);
    close(r.b);
}
END_TEST

/* One direction ends, the other goes on after it: the half-close is passed
 * on at once (the client sees its end before the server answers). */
START_TEST(half_close_then_answer)
{
    struct rl r;
    rl_start(&r, 10000);
    ck_assert_int_eq(send(r.a, "ask", 3, 0), 3);
    shutdown(r.a, SHUT_WR);
    char buf[16];
    size_t got = 0;
    for (ssize_t n; (n = recv(r.b, buf + got, sizeof buf - got, 0)) > 0;)
        got += (size_t)n;
    ck_assert_uint_eq(got, 3); /* and then the end */
    ck_assert_int_eq(memcmp(buf, "ask", 3), 0);
    struct rl_writer w = {.fd = r.b, .n = 1u << 20, .seed = 3};
    ck_assert_int_eq(pthread_create(&w.t, NULL, rl_write_thread, &w), 0);
    ck_assert_uint_eq(rl_read_all(r.a, 3, 65536, false), w.n);
    pthread_join(w.t, NULL);
    pthread_join(r.t, NULL);
    close(r.a);
    close(r.b);
}
END_TEST

/* A reader far slower than the writer, in small reads: the relay waits for
 * room and loses nothing. */
START_TEST(slow_reader)
{
    struct rl r;
    rl_start(&r, 10000);
    struct rl_writer w = {.fd = r.b, .n = 6u << 20, .seed = 4};
    ck_assert_int_eq(pthread_create(&w.t, NULL, rl_write_thread, &w), 0);
    ck_assert_uint_eq(rl_read_all(r.a, 4, 1000, true), w.n);
    pthread_join(w.t, NULL);
    shutdown(r.a, SHUT_WR);
    pthread_join(r.t, NULL);
    close(r.a);
    close(r.b);
}
END_TEST

/* Nothing moves: the relay ends after idle_ms, not before. */
START_TEST(idle_ends)
{
    struct rl r;
    double t0 = rl_now_ms();
    rl_start(&r, 300);
    char c;
    ck_assert_int_eq(recv(r.a, &c, 1, 0), 0); /* closed by the relay's end */
    pthread_join(r.t, NULL);
    ck_assert_double_ge(rl_now_ms() - t0, 290);
    close(r.a);
    close(r.b);
}
END_TEST

/* The server resets while the client sends: the relay ends (the client's
 * side is closed), it does not spin or hang. */
START_TEST(reset_ends)
{
    struct rl r;
    rl_start(&r, 10000);
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    setsockopt(r.b, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(r.b); /* RST */
    static char big[1 << 16];
    for (int i = 0; i < 64; i++)
        if (send(r.a, big, sizeof big, MSG_NOSIGNAL) < 0)
            break;
    pthread_join(r.t, NULL);
    close(r.a);
}
END_TEST

Suite *cp_test_relay_suite(void); /* collected by the Makefile */
Suite *cp_test_relay_suite(void)
{
    Suite *s = suite_create("relay");
    TCase *tc = tcase_create("relay");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, both_ways_half_close);
    tcase_add_test(tc, half_close_then_answer);
    tcase_add_test(tc, slow_reader);
    tcase_add_test(tc, idle_ends);
    tcase_add_test(tc, reset_ends);
    suite_add_tcase(s, tc);
    return s;
}
