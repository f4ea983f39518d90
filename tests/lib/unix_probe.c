/* SPDX-License-Identifier: MIT */
/* A probe run inside `confpol run` by tests/sh/runtime-unix-socket.sh and
 * tests/bench/unixsock.sh: connects to Unix sockets the way an attacker
 * would (racing the address buffer or the descriptor against the check),
 * tries what the filter refuses, and attacks the supervisor.  One line of
 * result on stdout per command.  Servers answer each connection with
 * their own name, so a probe knows which socket it reached.
 *
 *   connect PATH         "ok NAME" (what the server sent) or "err ERRNO"
 *   dgram                the errno of each datagram attempt
 *   race-addr OK NO N    N connects while a thread flips OK/NO in the
 *                        buffer: "reached K refused-hit H"
 *   race-fd NO PORT N    N connects of one descriptor number that a thread
 *                        swaps between an AF_UNIX and an IP socket, with
 *                        the address flipping between 127.0.0.1:PORT and
 *                        NO: "refused-hit H"
 *   kill-sup PATH        kills the supervisor, then connect PATH: "err E"
 *   ptrace-sup [COMM]    PTRACE_ATTACH to the supervisor (or the process
 *                        named COMM, e.g. the bridge): "err E" or "ok"
 *   listener             a seccomp listener of its own: "err E" or "ok"
 *   latency PATH N       median microseconds of N connect+close */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *en(int e)
{
    const char *n = e ? strerrorname_np(e) : "0";
    return n ? n : "?";
}

/* Connects fd to path; 0 or errno. */
static int conn(int fd, const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    return connect(fd, (struct sockaddr *)&a, sizeof a) < 0 ? errno : 0;
}

/* What a connected server sent (its name), into buf. */
static void hello(int fd, char *buf, size_t n)
{
    ssize_t r = recv(fd, buf, n - 1, 0);
    buf[r > 0 ? r : 0] = '\0';
}

static int do_connect(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        printf("err %s\n", en(errno));
        return 0;
    }
    int r = conn(fd, path);
    char buf[64];
    if (r)
        printf("err %s\n", en(r));
    else {
        hello(fd, buf, sizeof buf);
        printf("ok %s\n", buf);
    }
    return 0;
}

static int do_dgram(void)
{
    int sv[2];
    int a = socket(AF_UNIX, SOCK_DGRAM, 0) < 0 ? errno : 0;
    int b = socket(AF_UNIX, SOCK_RAW, 0) < 0 ? errno : 0;
    int c = socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0 ? errno : 0;
    int d = socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 ? errno : 0;
    printf("dgram %s raw %s pair-dgram %s pair-stream %s\n", en(a), en(b),
           en(c), en(d));
    return 0;
}

static struct sockaddr_un race_addr;
static atomic_bool stop;
static const char *race_ok, *race_no;
static int race_fd;

static void *flip_path(void *arg)
{
    (void)arg;
    for (unsigned k = 0; !atomic_load(&stop); k++) {
        snprintf(race_addr.sun_path, sizeof race_addr.sun_path, "%s",
                 k & 1 ? race_no : race_ok);
        for (volatile int s = 0; s < 2000; s++) {
        }
    }
    return NULL;
}

static int do_race_addr(const char *ok, const char *no, int n)
{
    race_ok = ok, race_no = no;
    race_addr.sun_family = AF_UNIX;
    pthread_t t;
    pthread_create(&t, NULL, flip_path, NULL);
    int reached = 0, hit = 0;
    for (int i = 0; i < n; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&race_addr, sizeof race_addr) == 0) {
            char buf[64];
            hello(fd, buf, sizeof buf);
            reached++;
            hit += strcmp(buf, "ok") != 0;
        }
        close(fd);
    }
    atomic_store(&stop, true);
    pthread_join(t, NULL);
    printf("reached %d refused-hit %d\n", reached > 0, hit);
    return 0;
}

static void *flip_fd(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int u = socket(AF_UNIX, SOCK_STREAM, 0);
        if (u >= 0) {
            dup2(u, race_fd);
            close(u);
        }
        int ip = socket(AF_INET, SOCK_STREAM, 0);
        if (ip >= 0) {
            dup2(ip, race_fd);
            close(ip);
        }
    }
    return NULL;
}

static int do_race_fd(const char *no, int port, int n)
{
    race_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_port = htons((unsigned short)port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    snprintf(un.sun_path, sizeof un.sun_path, "%s", no);
    pthread_t t;
    pthread_create(&t, NULL, flip_fd, NULL);
    int hit = 0;
    for (int i = 0; i < n; i++) {
        int r = i & 1 ? connect(race_fd, (struct sockaddr *)&sin, sizeof sin)
                      : connect(race_fd, (struct sockaddr *)&un, sizeof un);
        struct sockaddr_un p;
        socklen_t pl = sizeof p;
        if (r == 0 && getpeername(race_fd, (struct sockaddr *)&p, &pl) == 0 &&
            p.sun_family == AF_UNIX && !strcmp(p.sun_path, no))
            hit++;
    }
    atomic_store(&stop, true);
    pthread_join(t, NULL);
    printf("refused-hit %d\n", hit);
    return 0;
}

static const char *sup_name = "confpol-unixsoc";

/* The supervisor's pid (or another process's, by sup_name), found by its
 * name in /proc; 0 when none. */
static pid_t supervisor(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && (e = readdir(d))) {
        char p[300], comm[64] = "";
        snprintf(p, sizeof p, "/proc/%s/comm", e->d_name);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof comm, f) &&
            !strncmp(comm, sup_name, strlen(sup_name)) &&
            atoi(e->d_name) != getpid())
            found = atoi(e->d_name);
        fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

static int do_kill_sup(const char *path)
{
    pid_t s = supervisor();
    if (!s) {
        printf("no supervisor\n");
        return 0;
    }
    if (kill(s, SIGKILL) < 0) {
        printf("kill: %s\n", en(errno));
        return 0;
    }
    /* until it is gone (up to 10 s): then the kernel answers ENOSYS */
    struct timespec d = {.tv_nsec = 20 * 1000 * 1000};
    for (int i = 0; i < 500; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        int r = fd < 0 ? errno : conn(fd, path);
        if (fd >= 0)
            close(fd);
        if (r == ENOSYS)
            break;
        nanosleep(&d, NULL);
    }
    return do_connect(path);
}

static int do_ptrace_sup(void)
{
    pid_t s = supervisor();
    if (!s) {
        printf("no supervisor\n");
        return 0;
    }
    if (ptrace(PTRACE_ATTACH, s, 0, 0) < 0) {
        printf("err %s\n", en(errno));
        return 0;
    }
    /* attached: let it go on, so that a failing test does not hang */
    int st;
    waitpid(s, &st, __WALL);
    ptrace(PTRACE_DETACH, s, 0, 0);
    printf("ok\n");
    return 0;
}

static int do_listener(void)
{
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog fp = {.len = 1, .filter = &allow};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp) < 0)
        printf("err %s\n", en(errno));
    else
        printf("ok\n");
    return 0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static int do_latency(const char *path, int n)
{
    long *v = calloc((size_t)n, sizeof *v);
    for (int i = 0; i < n; i++) {
        struct timespec a, b;
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        clock_gettime(CLOCK_MONOTONIC, &a);
        int r = conn(fd, path);
        clock_gettime(CLOCK_MONOTONIC, &b);
        close(fd);
        if (r) {
            printf("err %s\n", en(r));
            return 1;
        }
        v[i] = (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
    }
    qsort(v, (size_t)n, sizeof *v, cmp_long);
    printf("%.1f\n", v[n / 2] / 1000.0);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "connect") && argc == 3)
        return do_connect(argv[2]);
    if (!strcmp(m, "dgram"))
        return do_dgram();
    if (!strcmp(m, "race-addr") && argc == 5)
        return do_race_addr(argv[2], argv[3], atoi(argv[4]));
    if (!strcmp(m, "race-fd") && argc == 5)
        return do_race_fd(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (!strcmp(m, "kill-sup") && argc == 3)
        return do_kill_sup(argv[2]);
    if (!strcmp(m, "ptrace-sup") && argc <= 3) {
        if (argc == 3)
            sup_name = argv[2];
        return do_ptrace_sup();
    }
    if (!strcmp(m, "listener"))
        return do_listener();
    if (!strcmp(m, "latency") && argc == 4)
        return do_latency(argv[2], atoi(argv[3]));
    fprintf(stderr, "unix_probe: bad arguments\n");
    return 2;
}
