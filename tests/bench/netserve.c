/* SPDX-License-Identifier: MIT */
/* The network benchmark's HTTP server (tests/bench/net.py), in C so that
 * the first-byte figures measure the path to the server, not the server:
 * the Python server's thread per connection answers a loopback GET in
 * about 0.14 ms, this one in a few microseconds.  One thread answers every
 * request head as it arrives (epoll, no thread per connection); a request
 * for the file is sent by a thread of its own (sendfile), so that a long
 * transfer holds no other connection up.
 *
 *   netserve FILE     prints the port it listens on (127.0.0.1), then
 *                     serves until killed: GET /ping or HEAD: an empty
 *                     200; any other request: FILE. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *path;
static off_t size;

static void send_all(int c, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(c, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void *send_file(void *arg)
{
    int c = (int)(intptr_t)arg;
    int f = open(path, O_RDONLY | O_CLOEXEC);
    char head[128];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.0 200 OK\r\nContent-Length: %lld\r\n\r\n",
                     (long long)size);
    if (f >= 0) {
        send_all(c, head, (size_t)n);
        off_t off = 0;
        while (off < size && sendfile(c, f, &off, (size_t)(size - off)) > 0) {
        }
        close(f);
    }
    close(c);
    return NULL;
}

/* Reads what connection c has; answers once its head is complete.  The
 * head of a request fits in one read here (the bench's are short). */
static void serve(int ep, int c)
{
    char buf[4096];
    ssize_t r = recv(c, buf, sizeof buf - 1, 0);
    if (r > 0) {
        buf[r] = '\0';
        if (!strstr(buf, "\r\n\r\n"))
            return; /* more to come */
    }
    epoll_ctl(ep, EPOLL_CTL_DEL, c, NULL);
    if (r <= 0) {
        close(c);
        return;
    }
    if (!strncmp(buf, "HEAD", 4) || !strncmp(buf, "GET /ping ", 10)) {
        static const char ok[] = "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n";
        send_all(c, ok, sizeof ok - 1);
        close(c);
        return;
    }
    int fl = fcntl(c, F_GETFL);
    fcntl(c, F_SETFL, fl & ~O_NONBLOCK);
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, send_file, (void *)(intptr_t)c) != 0)
        close(c);
    pthread_attr_destroy(&at);
}

int main(int argc, char **argv)
{
    struct stat st;
    if (argc != 2 || stat(argv[1], &st) < 0) {
        fprintf(stderr, "usage: netserve FILE\n");
        return 2;
    }
    path = argv[1];
    size = st.st_size;
    signal(SIGPIPE, SIG_IGN);
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sin;
    if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof sin) < 0 ||
        listen(l, 128) < 0 || getsockname(l, (struct sockaddr *)&sin, &sl) < 0)
        return 1;
    printf("%d\n", ntohs(sin.sin_port));
    fflush(stdout);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = l};
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev) < 0)
        return 1;
    for (;;) {
        struct epoll_event got[64];
        int n = epoll_wait(ep, got, 64, -1);
        for (int i = 0; i < n; i++) {
            if (got[i].data.fd != l) {
                serve(ep, got[i].data.fd);
                continue;
            }
            int c;
            while ((c = accept4(l, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >=
                   0) {
                ev = (struct epoll_event){.events = EPOLLIN, .data.fd = c};
                if (epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev) < 0)
                    close(c);
            }
        }
    }
}
