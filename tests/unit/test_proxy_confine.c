/* SPDX-License-Identifier: MIT */
/* The proxy's own confinement (spec/runtime.md 14.1, cp_rt_proxy_confine):
 * applied in a child, each thing a proxy bug could try is refused — a file
 * outside the resolver's, creating a file, a Unix socket (docker.sock,
 * ssh-agent), exec, reading another process's memory, signalling a process
 * outside, mount, an ioctl other than FIONREAD — while what a proxy needs
 * still works: an IP socket, /etc/hosts, a lookup of localhost. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netdb.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "landlock_abi.h"
#include "netproxy.h"

/* Each check a bit of the child's exit status: 0 when all held. */
static int pc_checks(void)
{
    int bad = 0;
    errno = 0;
    if (open("/etc/passwd", O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES)
        bad |= 1 << 0;
    if (open("/tmp/confpol-proxy-confine-test", O_WRONLY | O_CREAT | O_CLOEXEC,
             0600) >= 0)
        bad |= 1 << 1;
    if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0 || errno != EAFNOSUPPORT)
        bad |= 1 << 2;
    if (socket(AF_NETLINK, SOCK_RAW, 0) >= 0)
        bad |= 1 << 3;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0)
        bad |= 1 << 4;
    char *argv[] = {"true", NULL};
    execv("/bin/true", argv);
    if (errno != EPERM)
        bad |= 1 << 5;
    char buf[8];
    struct iovec l = {buf, sizeof buf}, r = {(void *)pc_checks, sizeof buf};
    if (process_vm_readv(getppid(), &l, 1, &r, 1, 0) >= 0)
        bad |= 1 << 6;
    if (kill(getppid(), 0) == 0)
        bad |= 1 << 7;
    if (mount("none", "/tmp", "tmpfs", 0, NULL) == 0 || errno != EPERM)
        bad |= 1 << 8;
    int pending = 0;
    if (s >= 0 && ioctl(s, FIONREAD, &pending) < 0)
        bad |= 1 << 9;
    char c = 'x';
    if (ioctl(0, TIOCSTI, &c) == 0)
        bad |= 1 << 10;
    if (access("/etc/hosts", F_OK) == 0 &&
        open("/etc/hosts", O_RDONLY | O_CLOEXEC) < 0)
        bad |= 1 << 11;
    struct addrinfo *res = NULL;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
    if (getaddrinfo("127.0.0.1", NULL, &hints, &res) != 0)
        bad |= 1 << 12;
    else
        freeaddrinfo(res);
    if (fork() >= 0 || errno != EPERM) /* no process of its own */
        bad |= 1 << 13;
    return bad;
}

START_TEST(confined_child)
{
    int pfd[2];
    ck_assert_int_eq(pipe(pfd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(pfd[0]);
        struct cp_rt_proxy_args pa = {.prog = "t",
                                      .listen_fd = -1,
                                      .log_fd = 2,
                                      .life_fd = -1,
                                      .rules_fd = -1,
                                      .sock = "",
                                      .dir = ""};
        struct cp_rt_err e = {0};
        int bad = cp_rt_proxy_confine(&pa, NULL, &e) ? -1 : pc_checks();
        _exit(write(pfd[1], &bad, sizeof bad) == sizeof bad ? 0 : 1);
    }
    close(pfd[1]);
    int bad = -2;
    ck_assert_int_eq(read(pfd[0], &bad, sizeof bad), (ssize_t)sizeof bad);
    close(pfd[0]);
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    /* -1: could not confine; else the bits of pc_checks that failed. */
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* In the calling process: system call `nr` answers EPERM (only when its
 * third argument is `arg2`, unless that is -1), every other call runs. */
static int pc_fail_call(long nr, long arg2)
{
    struct sock_filter f[6];
    unsigned short n = 0;
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, nr));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                          (unsigned)nr, 0, arg2 >= 0 ? 3 : 1);
    if (arg2 >= 0) {
        f[n++] = (struct sock_filter)BPF_STMT(
            BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args) + 16);
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                              (unsigned)arg2, 0, 1);
    }
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                          SECCOMP_RET_ERRNO | EPERM);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {.len = n, .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* A Landlock call that fails (other than "no Landlock in this kernel"),
 * or the system call filter that cannot be installed: the proxy refuses
 * to run (126), naming the kernel's answer, rather than go on with one
 * confinement alone or with fewer rights handled.  Each call made to fail
 * in a child of its own: every create_ruleset, the ABI probe alone, the
 * ruleset alone, a rule, restrict_self, seccomp, the no_new_privs prctl
 * (the test's own filter set the flag already). */
START_TEST(confine_failure_refused)
{
    static const struct {
        long nr, arg2;
        const char *what;
    } fail[] = {
        {SYS_landlock_create_ruleset, -1, "landlock"},
        {SYS_landlock_create_ruleset, 1 /* the ABI probe */, "landlock"},
        {SYS_landlock_create_ruleset, 0, "landlock"},
        {SYS_landlock_add_rule, -1, "landlock"},
        {SYS_landlock_restrict_self, -1, "landlock"},
        {SYS_seccomp, -1, "seccomp"},
        {SYS_prctl, -1, "no_new_privs"}};
    for (size_t i = 0; i < sizeof fail / sizeof *fail; i++) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            if (pc_fail_call(fail[i].nr, fail[i].arg2) < 0)
                _exit(2);
            struct cp_rt_proxy_args pa = {.prog = "t",
                                          .listen_fd = -1,
                                          .log_fd = 2,
                                          .life_fd = -1,
                                          .rules_fd = -1,
                                          .sock = "",
                                          .dir = ""};
            struct cp_rt_err e = {0};
            int rc = cp_rt_proxy_confine(&pa, NULL, &e);
            _exit(rc == CP_RT_EXIT_CANNOT && strstr(e.msg, fail[i].what) &&
                          strstr(e.msg, strerror(EPERM))
                      ? 0
                      : 1);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                      "case %zu: %s failing was not refused (status %d)", i,
                      fail[i].what, st);
    }
}
END_TEST

/* Whether Landlock and seccomp(2) can be called.  valgrind (3.19) knows
 * neither and answers ENOSYS, so under `make check-valgrind` the proxy
 * cannot confine itself; `make check` and `make check-asan` run the case
 * (and tests/sh/net-proxy-program.sh the real program). */
static bool pc_confine_callable(void)
{
    uint32_t action = SECCOMP_RET_KILL_PROCESS;
    bool sc = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0 ||
              errno != ENOSYS;
    bool ll = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_VERSION) >= 0 ||
              errno != ENOSYS;
    return sc && ll;
}

Suite *cp_test_proxy_confine_suite(void); /* collected by the Makefile */
Suite *cp_test_proxy_confine_suite(void)
{
    Suite *s = suite_create("proxy_confine");
    if (!pc_confine_callable()) {
        fprintf(stderr, "proxy_confine: Landlock or seccomp(2) is not "
                        "callable here (ENOSYS: valgrind?): not run\n");
        return s;
    }
    TCase *tc = tcase_create("confine");
    tcase_add_test(tc, confined_child);
    tcase_add_test(tc, confine_failure_refused);
    suite_add_tcase(s, tc);
    return s;
}
