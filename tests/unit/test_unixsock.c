/* SPDX-License-Identifier: MIT */
/* The supervisor of named Unix sockets (runtime/unixsock.c) and its filter
 * (runtime/ll_seccomp.c), each case in a child process that installs the
 * filter and starts the supervisor as the stage does, then tries to reach
 * a named socket (ok.sock) and a refused one (no.sock) in one directory.
 * The oracle of every case: the refused listener, held by the test
 * process, never has a connection to accept.  The races swap the address
 * buffer and the descriptor while connect is being decided. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "netproxy.h"
#include "runtime.h"

/* The test's directory and its listeners. */
static char us_dir[64];
static int us_ok = -1, us_no = -1, us_noseq = -1, us_full = -1;

static void us_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", us_dir, name);
}

static int us_listen(const char *name, int type, int backlog)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    us_path(a.sun_path, sizeof a.sun_path, name);
    int fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(fd, backlog), 0);
    return fd;
}

static void us_setup(void)
{
    snprintf(us_dir, sizeof us_dir, "/tmp/cp-unixsock.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(us_dir));
    us_ok = us_listen("ok.sock", SOCK_STREAM, 64);
    us_no = us_listen("no.sock", SOCK_STREAM, 64);
    us_noseq = us_listen("noseq.sock", SOCK_SEQPACKET, 64);
    us_full = us_listen("full.sock", SOCK_STREAM, 0);
    char a[128], b[128];
    us_path(a, sizeof a, "ok.sock");
    us_path(b, sizeof b, "link-ok");
    ck_assert_int_eq(symlink(a, b), 0);
    us_path(a, sizeof a, "no.sock");
    us_path(b, sizeof b, "link-no");
    ck_assert_int_eq(symlink(a, b), 0);
}

static void us_teardown(void)
{
    close(us_ok);
    close(us_no);
    close(us_noseq);
    close(us_full);
    static const char *const names[] = {"ok.sock",   "no.sock", "noseq.sock",
                                        "full.sock", "link-ok", "link-no",
                                        "log"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char p[128];
        us_path(p, sizeof p, names[i]);
        unlink(p);
    }
    rmdir(us_dir);
}

/* The refused listeners never saw a connection. */
static void us_assert_untouched(void)
{
    ck_assert_int_lt(accept(us_no, NULL, NULL), 0);
    ck_assert_int_eq(errno, EAGAIN);
    ck_assert_int_lt(accept(us_noseq, NULL, NULL), 0);
    ck_assert_int_eq(errno, EAGAIN);
}

/* In the child: supervise ok.sock and full.sock (and a missing name). */
static pid_t us_supervise(void)
{
    char ok[128], full[128], gone[128];
    us_path(ok, sizeof ok, "ok.sock");
    us_path(full, sizeof full, "full.sock");
    us_path(gone, sizeof gone, "gone.sock");
    char *named[] = {ok, "t:1", full, "t:2", gone, "t:3"};
    static struct cp_rt_unix_set set;
    cp_rt_unix_resolve(named, 6, "test", &set);
    if (set.n != 2)
        _exit(90);
    struct cp_rt_err e = {0};
    pid_t sup = 0;
    if (cp_rt_unix_supervise(&set, "test", &sup, &e))
        _exit(91);
    return sup;
}

/* connect(fd, path); 0 or errno. */
static int us_connect_fd(int fd, const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    return connect(fd, (struct sockaddr *)&a, sizeof a) < 0 ? errno : 0;
}

/* A new stream socket connected to path: 0 or errno; *peer: whether its
 * peer is ok.sock. */
static int us_try(const char *path, bool *peer_ok)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int r = us_connect_fd(fd, path);
    if (!r && peer_ok) {
        struct sockaddr_un p;
        socklen_t n = sizeof p;
        char ok[128];
        us_path(ok, sizeof ok, "ok.sock");
        *peer_ok = getpeername(fd, (struct sockaddr *)&p, &n) == 0 &&
                   !strcmp(p.sun_path, ok);
    }
    close(fd);
    return r;
}

/* The supervisor's stderr (its denial lines), read back by us_log. */
static char us_logbuf[1 << 16];

/* Runs fn in a child under the supervisor; its exit status.  The child's
 * stderr, which the supervisor inherits, goes to DIR/log. */
static int us_run(int (*fn)(pid_t sup))
{
    char log[128];
    us_path(log, sizeof log, "log");
    int lfd = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ck_assert_int_ge(lfd, 0);
    pid_t c = fork();
    ck_assert_int_ge(c, 0);
    if (c == 0) {
        dup2(lfd, 2);
        pid_t sup = us_supervise();
        _exit(fn(sup));
    }
    int st = 0;
    ck_assert_int_eq(waitpid(c, &st, 0), c);
    ck_assert(WIFEXITED(st));
    ssize_t n = pread(lfd, us_logbuf, sizeof us_logbuf - 1, 0);
    us_logbuf[n > 0 ? n : 0] = '\0';
    close(lfd);
    return WEXITSTATUS(st);
}

static int case_paths(pid_t sup)
{
    (void)sup;
    char p[128];
    bool ok = false;
    us_path(p, sizeof p, "ok.sock");
    if (us_try(p, &ok) || !ok)
        return 1;
    us_path(p, sizeof p, "no.sock");
    if (us_try(p, NULL) != EACCES)
        return 2;
    us_path(p, sizeof p, "link-ok");
    ok = false;
    if (us_try(p, &ok) || !ok)
        return 3;
    us_path(p, sizeof p, "link-no");
    if (us_try(p, NULL) != EACCES)
        return 4;
    us_path(p, sizeof p, "gone.sock");
    if (us_try(p, NULL) != EACCES)
        return 5;
    if (chdir(us_dir) < 0)
        return 6;
    ok = false;
    if (us_try("ok.sock", &ok) || !ok || us_try("no.sock", NULL) != EACCES)
        return 7;
    if (us_try("./link-no", NULL) != EACCES || us_try(".", NULL) != EACCES)
        return 8;
    /* The path as the kernel reads it: up to the first NUL. */
    us_path(p, sizeof p, "ok.sock");
    if (us_try(p, &ok) || !ok)
        return 9;
    return 0;
}

/* The named socket removed and another bound at its path: a new inode,
 * closed until the next launch (the supervisor holds the old one, so its
 * number names nothing else meanwhile). */
static int case_recreated(pid_t sup)
{
    (void)sup;
    char ok[128];
    bool peer = false;
    us_path(ok, sizeof ok, "ok.sock");
    if (us_try(ok, &peer) || !peer)
        return 1;
    if (unlink(ok) < 0)
        return 2;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    us_path(a.sun_path, sizeof a.sun_path, "ok.sock");
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        listen(fd, 4) < 0)
        return 3;
    return us_try(ok, NULL) == EACCES ? 0 : 4;
}

static int case_types(pid_t sup)
{
    (void)sup;
    int sv[2];
    if (socket(AF_UNIX, SOCK_DGRAM, 0) >= 0 || errno != EACCES)
        return 1;
    if (socket(AF_UNIX, SOCK_RAW, 0) >= 0 || errno != EACCES)
        return 2;
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0 || errno != EACCES)
        return 3;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return 4;
    close(sv[0]);
    close(sv[1]);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return 5;
    /* seqpacket ignores sendto's address: not connected, ENOTCONN;
     * connected (a pair), the message goes to the peer */
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    us_path(a.sun_path, sizeof a.sun_path, "noseq.sock");
    if (sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof a) >= 0 ||
        errno != ENOTCONN)
        return 6;
    close(fd);
    char byte;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0 ||
        sendto(sv[0], "x", 1, 0, (struct sockaddr *)&a, sizeof a) != 1 ||
        recv(sv[1], &byte, 1, MSG_DONTWAIT) != 1)
        return 10;
    /* stream refuses an address: EOPNOTSUPP unconnected, EISCONN
     * connected */
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    us_path(a.sun_path, sizeof a.sun_path, "no.sock");
    if (fd < 0 ||
        sendto(fd, "x", 1, MSG_NOSIGNAL, (struct sockaddr *)&a, sizeof a) >=
            0 ||
        errno != EOPNOTSUPP)
        return 7;
    close(fd);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 ||
        sendto(sv[0], "x", 1, MSG_NOSIGNAL, (struct sockaddr *)&a, sizeof a) >=
            0 ||
        errno != EISCONN)
        return 11;
    /* A listener of its own would take connect before the supervisor. */
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog fp = {.len = 1, .filter = &allow};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp) >= 0 ||
        errno != EACCES)
        return 8;
    return 0;
}

static int case_ip(pid_t sup)
{
    (void)sup;
    /* IP and abstract sockets: decided by the kernel on the copied
     * address (a network namespace confines both in a sandbox). */
    unsigned short port = 0;
    int l = cp_rt_sock_loopback(&port);
    if (l < 0)
        return 1;
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_port = htons(port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof sin) < 0)
        return 2;
    close(fd);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int r = connect(fd, (struct sockaddr *)&sin, sizeof sin);
    if (r < 0 && errno != EINPROGRESS)
        return 3;
    close(fd);
    struct sockaddr_un ab = {.sun_family = AF_UNIX};
    snprintf(ab.sun_path + 1, sizeof ab.sun_path - 1, "cp-us-%d", getpid());
    socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                                 strlen(ab.sun_path + 1));
    int al = socket(AF_UNIX, SOCK_STREAM, 0);
    if (al < 0 || bind(al, (struct sockaddr *)&ab, alen) < 0 ||
        listen(al, 4) < 0)
        return 4;
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&ab, alen) < 0)
        return 5;
    /* bad descriptors and addresses answer as the kernel would */
    if (connect(999, (struct sockaddr *)&sin, sizeof sin) == 0 ||
        errno != EBADF)
        return 6;
    if (connect(fd, (struct sockaddr *)8, sizeof sin) == 0 || errno != EFAULT)
        return 7;
    if (connect(fd, (struct sockaddr *)&sin, 4096) == 0 || errno != EINVAL)
        return 8;
    /* an AF_UNIX address longer than struct sockaddr_un: EINVAL, as the
     * kernel says, and never a path longer than sun_path */
    struct sockaddr_storage big;
    memset(&big, 'a', sizeof big);
    big.ss_family = AF_UNIX;
    if (connect(fd, (struct sockaddr *)&big, sizeof big) == 0 ||
        errno != EINVAL)
        return 9;
    return 0;
}

/* ---- races ------------------------------------------------------------------ */

static struct sockaddr_un race_addr;
static atomic_bool race_stop;
static int race_fd = -1;

static void *race_flip_path(void *arg)
{
    (void)arg;
    char ok[108], no[108];
    us_path(ok, sizeof ok, "ok.sock");
    us_path(no, sizeof no, "no.sock");
    /* about as long on each name, so that either can be read */
    for (unsigned k = 0; !atomic_load(&race_stop); k++) {
        memcpy(race_addr.sun_path, k & 1 ? no : ok, sizeof ok);
        for (volatile int spin = 0; spin < 2000; spin++) {
        }
    }
    return NULL;
}

static int case_race_addr(pid_t sup)
{
    (void)sup;
    race_addr.sun_family = AF_UNIX;
    us_path(race_addr.sun_path, sizeof race_addr.sun_path, "ok.sock");
    pthread_t t;
    if (pthread_create(&t, NULL, race_flip_path, NULL))
        return 1;
    int reached = 0;
    for (int i = 0; i < 2000; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&race_addr, sizeof race_addr) == 0) {
            struct sockaddr_un p;
            socklen_t n = sizeof p;
            char ok[128];
            us_path(ok, sizeof ok, "ok.sock");
            if (getpeername(fd, (struct sockaddr *)&p, &n) < 0 ||
                strcmp(p.sun_path, ok))
                return 2;
            reached++;
        }
        close(fd);
        if (i % 32 == 31) /* keep ok.sock's backlog from filling */
            while (accept(us_ok, NULL, NULL) >= 0) {
            }
    }
    atomic_store(&race_stop, true);
    pthread_join(t, NULL);
    return reached > 0 ? 0 : 3;
}

/* Swaps an AF_UNIX and an IP socket under one descriptor number while the
 * address flips between IP and the refused path. */
static void *race_flip_fd(void *arg)
{
    (void)arg;
    char no[108];
    us_path(no, sizeof no, "no.sock");
    while (!atomic_load(&race_stop)) {
        int u = socket(AF_UNIX, SOCK_STREAM, 0);
        int ip = socket(AF_INET, SOCK_STREAM, 0);
        if (u >= 0) {
            dup2(u, race_fd);
            memcpy(race_addr.sun_path, no, sizeof no);
            close(u);
        }
        if (ip >= 0) {
            dup2(ip, race_fd);
            close(ip);
        }
    }
    return NULL;
}

static int case_race_fd(pid_t sup)
{
    (void)sup;
    unsigned short port = 0;
    int l = cp_rt_sock_loopback(&port);
    if (l < 0)
        return 1;
    fcntl(l, F_SETFL, O_NONBLOCK); /* the loop takes what arrived */
    race_fd = socket(AF_INET, SOCK_STREAM, 0);
    race_addr.sun_family = AF_UNIX;
    pthread_t t;
    if (pthread_create(&t, NULL, race_flip_fd, NULL))
        return 2;
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_port = htons(port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (int i = 0; i < 2000; i++) {
        /* either address, on whichever socket the number holds now */
        if (i & 1)
            connect(race_fd, (struct sockaddr *)&sin, sizeof sin);
        else
            connect(race_fd, (struct sockaddr *)&race_addr, sizeof race_addr);
        int a = accept(l, NULL, NULL);
        if (a >= 0)
            close(a);
    }
    atomic_store(&race_stop, true);
    pthread_join(t, NULL);
    return 0;
}

/* ---- blocking, the cap, the supervisor gone ---------------------------------- */

static void *block_connect(void *arg)
{
    (void)arg;
    char full[128];
    us_path(full, sizeof full, "full.sock");
    /* waits while full.sock's backlog is full; EAGAIN: every slot was
     * taken for a moment (by the probing connect), so try again */
    struct timespec d = {.tv_nsec = 10 * 1000 * 1000};
    while (us_try(full, NULL) == EAGAIN)
        nanosleep(&d, NULL);
    return NULL;
}

static int case_blocking(pid_t sup)
{
    (void)sup;
    char full[128], ok[128];
    us_path(full, sizeof full, "full.sock");
    us_path(ok, sizeof ok, "ok.sock");
    /* fill the backlog (0: one pending connection), then block */
    for (int i = 0; i < 2; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        us_connect_fd(fd, full);
    }
    pthread_t t[CP_RT_UNIX_MAX_THREADS];
    for (int i = 0; i < CP_RT_UNIX_MAX_THREADS; i++)
        if (pthread_create(&t[i], NULL, block_connect, NULL))
            return 1;
    /* every slot comes to wait on full.sock: then the next connect is
     * refused (waits up to 10 s for the threads on a loaded machine) */
    struct timespec d = {.tv_nsec = 50 * 1000 * 1000};
    for (int i = 0; i < 200; i++) {
        int r = us_try(ok, NULL);
        if (r == EAGAIN)
            return 0;
        if (r)
            return 3;
        while (accept(us_ok, NULL, NULL) >= 0) {
        }
        nanosleep(&d, NULL);
    }
    return 2;
}

static int case_one_blocked(pid_t sup)
{
    (void)sup;
    char full[128], ok[128];
    us_path(full, sizeof full, "full.sock");
    us_path(ok, sizeof ok, "ok.sock");
    for (int i = 0; i < 2; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        us_connect_fd(fd, full);
    }
    pthread_t t;
    if (pthread_create(&t, NULL, block_connect, NULL))
        return 1;
    struct timespec d = {.tv_nsec = 100 * 1000 * 1000};
    nanosleep(&d, NULL);
    /* ... while one blocked connect stalls nobody else */
    bool peer = false;
    if (us_try(ok, &peer) || !peer)
        return 2;
    return 0;
}

static int case_killed(pid_t sup)
{
    char ok[128];
    us_path(ok, sizeof ok, "ok.sock");
    if (us_try(ok, NULL))
        return 1;
    if (kill(sup, SIGKILL) < 0)
        return 2;
    /* until it is gone (up to 10 s): then the kernel answers ENOSYS */
    struct timespec d = {.tv_nsec = 20 * 1000 * 1000};
    int r = 0;
    for (int i = 0; i < 500 && (r = us_try(ok, NULL)) != ENOSYS; i++) {
        while (accept(us_ok, NULL, NULL) >= 0) {
        }
        nanosleep(&d, NULL);
    }
    if (r != ENOSYS)
        return 3;
    char no[128];
    us_path(no, sizeof no, "no.sock");
    return us_try(no, NULL) == ENOSYS ? 0 : 4;
}

/* Arguments the supervisor cannot take are answered as the kernel would
 * answer them: an address longer than any (EINVAL), one it cannot read
 * (EFAULT), a descriptor the caller does not have (EBADF); never a
 * connection, never another error. */
static int case_bad_args(pid_t sup)
{
    (void)sup;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 1;
    char big[200];
    memset(big, 0, sizeof big);
    struct sockaddr_un *a = (struct sockaddr_un *)(void *)big;
    a->sun_family = AF_UNIX;
    us_path(a->sun_path, sizeof a->sun_path, "ok.sock");
    if (connect(fd, (struct sockaddr *)a, sizeof big) == 0 || errno != EINVAL)
        return 2;
    if (connect(fd, (struct sockaddr *)(uintptr_t)8, sizeof *a) == 0 ||
        errno != EFAULT)
        return 3;
    if (us_connect_fd(4000, a->sun_path) != EBADF)
        return 4;
    bool ok = false;
    close(fd);
    return us_try(a->sun_path, &ok) || !ok ? 5 : 0; /* still served */
}

START_TEST(bad_args)
{
    ck_assert_int_eq(us_run(case_bad_args), 0);
    us_assert_untouched();
}
END_TEST

START_TEST(paths)
{
    ck_assert_int_eq(us_run(case_paths), 0);
    us_assert_untouched();
    char want[512];
    snprintf(want, sizeof want,
             "test: warning: socket '%s/gone.sock' (t:3): No such file or "
             "directory; it stays closed (stricter)\n"
             "test: socket: deny %s/no.sock: not a named socket\n",
             us_dir, us_dir);
    ck_assert_ptr_nonnull(strstr(us_logbuf, want));
    snprintf(want, sizeof want,
             "test: socket: deny %s/gone.sock: No such file or directory\n",
             us_dir);
    ck_assert_ptr_nonnull(strstr(us_logbuf, want));
    ck_assert_ptr_nonnull(strstr(us_logbuf, "test: socket: deny .: not a "
                                            "socket\n"));
}
END_TEST

START_TEST(recreated)
{
    ck_assert_int_eq(us_run(case_recreated), 0);
    us_assert_untouched();
}
END_TEST

START_TEST(types)
{
    ck_assert_int_eq(us_run(case_types), 0);
    us_assert_untouched();
}
END_TEST

START_TEST(ip_abstract)
{
    ck_assert_int_eq(us_run(case_ip), 0);
    us_assert_untouched();
}
END_TEST

START_TEST(race_address)
{
    ck_assert_int_eq(us_run(case_race_addr), 0);
    us_assert_untouched();
}
END_TEST

START_TEST(race_descriptor)
{
    ck_assert_int_eq(us_run(case_race_fd), 0);
    us_assert_untouched();
}
END_TEST

START_TEST(blocking_cap)
{
    ck_assert_int_eq(us_run(case_blocking), 0);
    us_assert_untouched();
}
END_TEST

START_TEST(blocking_one)
{
    ck_assert_int_eq(us_run(case_one_blocked), 0);
    us_assert_untouched();
}
END_TEST

START_TEST(supervisor_killed)
{
    ck_assert_int_eq(us_run(case_killed), 0);
    us_assert_untouched();
}
END_TEST

/* Whether seccomp(2) itself can be called.  valgrind (3.19) does not know
 * the system call and answers ENOSYS, so under `make check-valgrind` the
 * supervisor cannot start; `make check` and `make check-asan` run these
 * cases (and tests/sh/runtime-unix-socket.sh the real launch). */
static bool us_seccomp_callable(void)
{
    uint32_t action = SECCOMP_RET_USER_NOTIF;
    return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0 ||
           errno != ENOSYS;
}

Suite *cp_test_unixsock_suite(void); /* collected by the Makefile */
Suite *cp_test_unixsock_suite(void)
{
    Suite *s = suite_create("unixsock");
    if (!us_seccomp_callable()) {
        fprintf(stderr, "unixsock: seccomp(2) is not callable here (ENOSYS: "
                        "valgrind?): the supervisor cases are not run\n");
        return s;
    }
    TCase *tc = tcase_create("supervisor");
    tcase_add_checked_fixture(tc, us_setup, us_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, paths);
    tcase_add_test(tc, recreated);
    tcase_add_test(tc, types);
    tcase_add_test(tc, ip_abstract);
    tcase_add_test(tc, race_address);
    tcase_add_test(tc, race_descriptor);
    tcase_add_test(tc, blocking_cap);
    tcase_add_test(tc, blocking_one);
    tcase_add_test(tc, supervisor_killed);
    tcase_add_test(tc, bad_args);
    suite_add_tcase(s, tc);
    return s;
}
