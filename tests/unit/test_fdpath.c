/* SPDX-License-Identifier: MIT */
/* Resolving without following symlinks, and the identities of mounts
 * (runtime/fdpath.c, runtime/mountid.c; spec/runtime.md §5, "Descriptors,
 * not paths"): each refusal asserted next to the case it lets through, so
 * that a refusal removed or inverted fails here (spec/runtime.md §8.1).
 * The walk of kernels without openat2 runs in a child whose seccomp
 * filter answers openat2 with ENOSYS, as such a kernel does. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime.h"

Suite *cp_test_fdpath_suite(void);

static char dir[64];

/* DIR/d/f (a file), DIR/d/sub/ (a directory), DIR/l -> d (a symlink to a
 * directory), DIR/d/lf -> f (a symlink to a file). */
static void fp_setup(void)
{
    strcpy(dir, "/tmp/cp-fdpath-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char p[256];
    snprintf(p, sizeof p, "%s/d", dir);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/d/sub", dir);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/d/f", dir);
    int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    close(fd);
    snprintf(p, sizeof p, "%s/l", dir);
    ck_assert_int_eq(symlink("d", p), 0);
    snprintf(p, sizeof p, "%s/d/lf", dir);
    ck_assert_int_eq(symlink("f", p), 0);
}

static void fp_teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* Opens DIR/REL with cp_rt_open_nofollow; the errno of a failure, or 0
 * (and the descriptor closed) when it opened. */
static int open_rel(const char *rel, int flags)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    errno = 0;
    int fd = cp_rt_open_nofollow(p, flags);
    if (fd < 0)
        return errno ? errno : -1;
    close(fd);
    return 0;
}

/* The cases both resolutions (openat2, the walk) must agree on: a bit
 * per case that went wrong, 0 when all held. */
static int nofollow_cases(void)
{
    int bad = 0;
    char name[300];
    memset(name, 'n', 299);
    name[299] = '\0';
    char longp[320];
    snprintf(longp, sizeof longp, "d/%s", name);
    if (open_rel("d/f", O_RDONLY) != 0)
        bad |= 1 << 0; /* a plain file opens */
    if (open_rel("d/sub", O_PATH | O_DIRECTORY) != 0)
        bad |= 1 << 1; /* a plain directory opens */
    if (open_rel("l/f", O_RDONLY) != ELOOP)
        bad |= 1 << 2; /* a symlink in the middle */
    if (open_rel("d/lf", O_PATH) != ELOOP)
        bad |= 1 << 3; /* a symlink at the end, O_PATH */
    if (open_rel("d/lf", O_RDONLY) != ELOOP)
        bad |= 1 << 4; /* a symlink at the end */
    if (open_rel("d/none/f", O_RDONLY) != ENOENT)
        bad |= 1 << 5; /* a missing component */
    if (open_rel(longp, O_RDONLY) != ENAMETOOLONG)
        bad |= 1 << 6; /* a component longer than a name can be */
    if (open_rel("d/sub/", O_PATH | O_DIRECTORY) != 0)
        bad |= 1 << 7; /* a trailing slash */
    errno = 0;
    if (cp_rt_open_nofollow("tmp", O_PATH) != -1 || errno != EINVAL)
        bad |= 1 << 8; /* relative paths are not the runtime's */
    int root = cp_rt_open_nofollow("/", O_PATH | O_DIRECTORY);
    if (root < 0)
        bad |= 1 << 9;
    else
        close(root);
    /* relative to a descriptor */
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int a = cp_rt_openat_nofollow(dfd, "d/f", O_RDONLY);
    int b = cp_rt_openat_nofollow(dfd, "l/f", O_RDONLY);
    if (a < 0 || b >= 0)
        bad |= 1 << 10;
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    close(dfd);
    return bad;
}

START_TEST(nofollow_openat2)
{
    ck_assert_int_eq(nofollow_cases(), 0);
}
END_TEST

/* Installs a filter answering system call nr with err: ENOSYS as a
 * kernel without it does, EPERM as some container runtimes' filters do. */
static int answer(long nr, int err)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* nofollow_cases in a child where openat2 fails with err: the walk. */
static void cases_without_openat2(int err)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (answer(SYS_openat2, err) < 0)
            _exit(255);
        int bad = nofollow_cases();
        _exit(bad ? 1 + __builtin_ctz((unsigned)bad) : 0); /* the first */
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 0);
}

START_TEST(nofollow_walk)
{
    cases_without_openat2(ENOSYS);
}
END_TEST

/* A filter answering EPERM at the first call is taken for a kernel
 * without openat2 (the walk), not for a refusal of every path.  The
 * probe's result is kept for the process, so this holds only where no
 * resolution ran before in it: each case is a fresh child of the runner,
 * except under CK_FORK=no (valgrind), where this case checks nothing. */
START_TEST(nofollow_walk_eperm)
{
    const char *fk = getenv("CK_FORK");
    if (fk && !strcmp(fk, "no"))
        return;
    cases_without_openat2(EPERM);
}
END_TEST

/* The walk when no descriptor is free: it fails with EMFILE at its first
 * step (the start directory), and goes no further with a descriptor it
 * does not have.  Exit status: the failed expectation. */
static int walk_no_fd(void)
{
    if (answer(SYS_openat2, ENOSYS) < 0)
        return 1;
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int lowest = dup(0);
    if (lowest < 0)
        return 2;
    close(lowest);
    struct rlimit rl = {.rlim_cur = (rlim_t)lowest, .rlim_max = (rlim_t)lowest};
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 3; /* valgrind keeps descriptors of its own above the limit */
    char p[256];
    snprintf(p, sizeof p, "%s/d/f", dir);
    errno = 0;
    if (cp_rt_open_nofollow(p, O_RDONLY) != -1 || errno != EMFILE)
        return 4; /* from "/" */
    errno = 0;
    if (dfd < 0 || cp_rt_openat_nofollow(dfd, "d/f", O_RDONLY) != -1 ||
        errno != EMFILE)
        return 5; /* from a directory's descriptor */
    return 0;
}

START_TEST(nofollow_walk_no_fd)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(walk_no_fd());
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    const char *pre = getenv("LD_PRELOAD");
    if (WEXITSTATUS(st) == 3 && pre && strstr(pre, "vgpreload")) {
        fprintf(stderr, "fdpath: the descriptor limit cannot be lowered "
                        "under valgrind: the EMFILE case is not run\n");
        return;
    }
    ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

START_TEST(same_file_and_reopen)
{
    char p[256], q[256];
    snprintf(p, sizeof p, "%s/d/f", dir);
    snprintf(q, sizeof q, "%s/d/sub", dir);
    struct stat a, b;
    ck_assert_int_eq(lstat(p, &a), 0);
    ck_assert_int_eq(lstat(q, &b), 0);
    ck_assert(cp_rt_same_file(&a, &a));
    ck_assert(!cp_rt_same_file(&a, &b));
    struct stat c = a;
    c.st_mode = (c.st_mode & ~(mode_t)S_IFMT) | S_IFDIR;
    ck_assert(!cp_rt_same_file(&a, &c)); /* same numbers, another type */
    c = a;
    c.st_dev++;
    ck_assert(!cp_rt_same_file(&a, &c));

    int fd = cp_rt_reopen(p, &a);
    ck_assert_int_ge(fd, 0);
    close(fd);
    errno = 0;
    ck_assert_int_eq(cp_rt_reopen(p, &b), -1); /* another file is there */
    ck_assert_int_eq(errno, ESTALE);
    snprintf(q, sizeof q, "%s/l/f", dir);
    errno = 0;
    ck_assert_int_eq(cp_rt_reopen(q, &a), -1); /* a symlink on the way */
    ck_assert_int_eq(errno, ELOOP);
    ck_assert_str_eq(cp_rt_changed_why(ELOOP), "a symlink now lies on its way");
    ck_assert_str_eq(cp_rt_changed_why(ESTALE), "another file is there now");
    ck_assert_str_eq(cp_rt_changed_why(ENOENT), strerror(ENOENT));
}
END_TEST

/* The Landlock enforcer opens the entries of a split directory beneath the
 * directory's descriptor: the same answers as cp_rt_reopen by the whole
 * path. */
START_TEST(reopen_at)
{
    char p[256], d[256];
    snprintf(p, sizeof p, "%s/d/f", dir);
    snprintf(d, sizeof d, "%s/d", dir);
    struct stat a, b;
    ck_assert_int_eq(lstat(p, &a), 0);
    ck_assert_int_eq(lstat(d, &b), 0);
    int dfd = cp_rt_open_nofollow(d, O_PATH | O_DIRECTORY);
    ck_assert_int_ge(dfd, 0);
    int fd = cp_rt_reopen_at(dfd, "f", &a);
    ck_assert_int_ge(fd, 0);
    close(fd);
    errno = 0;
    ck_assert_int_eq(cp_rt_reopen_at(dfd, "f", &b), -1); /* another file */
    ck_assert_int_eq(errno, ESTALE);
    errno = 0;
    ck_assert_int_eq(cp_rt_reopen_at(dfd, "gone", &a), -1);
    ck_assert_int_eq(errno, ENOENT);
    close(dfd);
    int top = cp_rt_open_nofollow(dir, O_PATH | O_DIRECTORY);
    ck_assert_int_ge(top, 0);
    errno = 0; /* l is a symlink to d: never followed, said as openat2 does */
    ck_assert_int_eq(cp_rt_reopen_at(top, "l", &b), -1);
    ck_assert_int_eq(errno, ELOOP);
    close(top);
}
END_TEST

START_TEST(path_child)
{
    char *s = cp_rt_path_child("/", "a");
    ck_assert_str_eq(s, "/a");
    free(s);
    s = cp_rt_path_child("/x/y", "a");
    ck_assert_str_eq(s, "/x/y/a");
    free(s);
}
END_TEST

/* The parent of an absolute path, opened without following a symlink,
 * and its last component; a path without a slash or ending in one has no
 * last component (EINVAL), and nothing is opened for it. */
START_TEST(parent_open)
{
    static const struct {
        const char *path, *parent, *name;
    } good[] = {{"/etc/hostname", "/etc", "hostname"}, {"/x", "/", "x"}};
    const char *name = NULL;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct stat a, b;
        int fd = cp_rt_parent_open(good[i].path, &name);
        ck_assert_int_ge(fd, 0);
        ck_assert_str_eq(name, good[i].name);
        ck_assert_int_eq(fstat(fd, &a), 0);
        ck_assert_int_eq(stat(good[i].parent, &b), 0);
        ck_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
        close(fd);
    }
    static const char *const bad[] = {"etc", "/etc/", "/", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        errno = 0;
        ck_assert_int_eq(cp_rt_parent_open(bad[i], &name), -1);
        ck_assert_int_eq(errno, EINVAL);
    }
}
END_TEST

START_TEST(keep_fd)
{
    struct cp_rt_err e = {0};
    int out = -1;
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 3);
    char w[16];
    snprintf(w, sizeof w, "%d", fd);
    ck_assert_int_eq(cp_rt_keep_fd_parse(w, &out, &e), 0);
    ck_assert_int_eq(out, fd);
    close(fd);
    /* the same number, now closed */
    ck_assert_int_eq(cp_rt_keep_fd_parse(w, &out, &e), CP_RT_EXIT_ERROR);
    ck_assert_ptr_nonnull(strstr(e.msg, "no such open descriptor"));
    static const char *const badw[] = {
        "2", "0", "", "x", "3x", "65536", "99999999999999999999", "-4"};
    for (size_t i = 0; i < sizeof badw / sizeof badw[0]; i++) {
        out = -7;
        memset(&e, 0, sizeof e);
        ck_assert_int_eq(cp_rt_keep_fd_parse(badw[i], &out, &e),
                         CP_RT_EXIT_ERROR);
        ck_assert_int_eq(out, -7);
        ck_assert_ptr_nonnull(strstr(e.msg, "from 3 up"));
    }
}
END_TEST

/* In a child: descriptors 3.. opened, some kept; every other one above 2
 * closed, the kept ones and 0-2 open. */
START_TEST(close_inherited)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fds[6];
        for (int i = 0; i < 6; i++)
            fds[i] = open("/dev/null", O_RDONLY);
        int keep[] = {fds[4], fds[1], 1}; /* unsorted, one below 3 */
        if (cp_rt_close_inherited(keep, 3) != 0)
            _exit(10);
        for (int i = 0; i < 6; i++) {
            bool open_now = fcntl(fds[i], F_GETFD) >= 0;
            if (open_now != (i == 1 || i == 4))
                _exit(20 + i);
        }
        int nul = open("/dev/null", O_RDONLY);
        int hi = fcntl(nul, F_DUPFD, 4000);
        if (hi < 0 || cp_rt_close_inherited(NULL, 0) != 0)
            _exit(40);
        if (fcntl(hi, F_GETFD) >= 0 || fcntl(fds[4], F_GETFD) >= 0)
            _exit(41); /* nothing kept: everything above 2 goes */
        _exit(0);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

/* The same without close_range (kernels before 5.9): the descriptors
 * found in /proc/self/fd are closed one by one. */
START_TEST(close_inherited_fallback)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (answer(436 /* close_range */, ENOSYS) < 0)
            _exit(255);
        int a = open("/dev/null", O_RDONLY), b = open("/dev/null", O_RDONLY);
        int c = fcntl(a, F_DUPFD, 3000);
        int keep[] = {b};
        if (a < 3 || b < 3 || c < 3 || cp_rt_close_inherited(keep, 1) != 0)
            _exit(10);
        if (fcntl(a, F_GETFD) >= 0 || fcntl(c, F_GETFD) >= 0)
            _exit(11);
        if (fcntl(b, F_GETFD) < 0 || fcntl(2, F_GETFD) < 0)
            _exit(12);
        _exit(0);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

START_TEST(proc_stat_field)
{
    ck_assert_int_eq(cp_rt_proc_stat_field(0, 2), (long)getppid());
    ck_assert_int_eq(cp_rt_proc_stat_field(getpid(), 2), (long)getppid());
    ck_assert_int_eq(cp_rt_proc_stat_field(0, 3), (long)getpgrp());
    ck_assert_int_eq(cp_rt_proc_stat_field(0, 1), -1); /* the state: a letter */
    ck_assert_int_eq(cp_rt_proc_stat_field(0, 9999), -1); /* past the end */
    ck_assert_int_eq(cp_rt_proc_stat_field(0x7ffffffe, 2),
                     -1); /* no such pid */
}
END_TEST

START_TEST(verify_mount)
{
    char why[128];
    struct stat st;
    ck_assert_int_eq(stat("/", &st), 0);
    char id[96];
    snprintf(id, sizeof id, "%ju:%ju:%ju", (uintmax_t)st.st_dev,
             (uintmax_t)st.st_ino, (uintmax_t)st.st_mode);
    /* "/" is a mount: with its identity, or none asked */
    ck_assert_int_eq(cp_rt_verify_mount(id, "/", why, sizeof why), 0);
    ck_assert_int_eq(cp_rt_verify_mount("-", "/", why, sizeof why), 0);
    /* another identity */
    char other[96];
    snprintf(other, sizeof other, "%ju:%ju:%ju", (uintmax_t)st.st_dev,
             (uintmax_t)st.st_ino + 1, (uintmax_t)st.st_mode);
    ck_assert_int_eq(cp_rt_verify_mount(other, "/", why, sizeof why), -1);
    ck_assert_str_eq(why, "another file is mounted there");
    /* malformed identities */
    static const char *const badid[] = {
        "",     "1",       "1:2",
        "1:2:", "1:2:3x",  "a:2:3",
        "1::3", "1:2:3:4", "99999999999999999999999:1:1"};
    for (size_t i = 0; i < sizeof badid / sizeof badid[0]; i++) {
        why[0] = '\0';
        ck_assert_int_eq(cp_rt_verify_mount(badid[i], "/", why, sizeof why),
                         -1);
        ck_assert_ptr_nonnull(strstr(why, "bad identity"));
    }
    /* not a mount: a plain directory */
    char p[256];
    snprintf(p, sizeof p, "%s/d/sub", dir);
    ck_assert_int_eq(cp_rt_verify_mount("-", p, why, sizeof why), -1);
    ck_assert_str_eq(why, "no mount is there: it was placed elsewhere");
    /* a symlink on the way, a missing path */
    snprintf(p, sizeof p, "%s/l/sub", dir);
    ck_assert_int_eq(cp_rt_verify_mount("-", p, why, sizeof why), -1);
    ck_assert_str_eq(why, "a symlink lies on its way");
    snprintf(p, sizeof p, "%s/none", dir);
    ck_assert_int_eq(cp_rt_verify_mount("-", p, why, sizeof why), -1);
    ck_assert_str_eq(why, strerror(ENOENT));
}
END_TEST

/* The same answers through the directories kept open between paths
 * (cp_rt_vwalk, the stage's), whatever the path before them left open:
 * a shared directory is not a way around a symlink further on. */
START_TEST(verify_mount_kept_dirs)
{
    struct cp_rt_vwalk vw = {0};
    char why[128], p[256];
    static const struct {
        const char *rest, *why; /* NULL: verified */
    } seq[] = {
        {"/d/sub", "no mount is there: it was placed elsewhere"},
        {"/l/sub", "a symlink lies on its way"},
        {"/d/sub", "no mount is there: it was placed elsewhere"},
        {"/d/lf", "a symlink lies on its way"},
        {"/l", "a symlink lies on its way"},
        {"/none/sub", NULL},
        {"/d/f/x", NULL},
        {"/d/./sub", "no mount is there: it was placed elsewhere"},
        {"/d/sub", "no mount is there: it was placed elsewhere"},
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        snprintf(p, sizeof p, "%s%s", dir, seq[i].rest);
        why[0] = '\0';
        ck_assert_int_eq(cp_rt_verify_mount_at(&vw, "-", p, why, sizeof why),
                         -1);
        if (seq[i].why)
            ck_assert_str_eq(why, seq[i].why);
        else /* missing, or a file on the way */
            ck_assert(!strcmp(why, strerror(ENOENT)) ||
                      !strcmp(why, strerror(ENOTDIR)));
        char w2[128];
        ck_assert_int_eq(cp_rt_verify_mount("-", p, w2, sizeof w2), -1);
        ck_assert_str_eq(why, w2); /* as from "/" every time */
    }
    /* a name longer than NAME_MAX on the way; a path deeper than the
     * directories kept (opened as from "/"): the kernel's answers */
    char w2[128], deep[PATH_MAX];
    int k = snprintf(deep, sizeof deep, "%s/d/", dir);
    memset(deep + k, 'x', 300);
    snprintf(deep + k + 300, sizeof deep - (size_t)k - 300, "/sub");
    ck_assert_int_eq(cp_rt_verify_mount_at(&vw, "-", deep, why, sizeof why),
                     -1);
    ck_assert_str_eq(why, strerror(ENAMETOOLONG));
    k = snprintf(deep, sizeof deep, "%s/d/sub", dir);
    for (int i = 0; i < CP_RT_VWALK_DEPTH; i++) {
        k += snprintf(deep + k, sizeof deep - (size_t)k, "/a");
        ck_assert_int_eq(mkdir(deep, 0755), 0);
    }
    ck_assert_int_eq(cp_rt_verify_mount_at(&vw, "-", deep, why, sizeof why),
                     -1);
    ck_assert_int_eq(cp_rt_verify_mount("-", deep, w2, sizeof w2), -1);
    ck_assert_str_eq(why, w2);
    ck_assert_str_eq(why, "no mount is there: it was placed elsewhere");
    ck_assert_int_eq(cp_rt_verify_mount_at(&vw, "-", "/", why, sizeof why), 0);
    cp_rt_vwalk_free(&vw);
    ck_assert_uint_eq(vw.n, 0);
}
END_TEST

/* Writes BYTES (LEN of them) to DIR/NAME; its path in out. */
static void write_file(const char *name, const char *bytes, size_t len,
                       char *out, size_t size)
{
    snprintf(out, size, "%s/%s", dir, name);
    FILE *f = fopen(out, "we");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
}

START_TEST(bwrap_has_bind_fd)
{
    char p[256];
    static const char yes[] = "ELF...--bind-fd\0--ro-bind-fd\0--help";
    write_file("yes", yes, sizeof yes, p, sizeof p);
    ck_assert(cp_rt_bwrap_has_bind_fd(p));
    static const char no[] = "ELF...--ro-bind-fdx--ro-bind\0";
    write_file("no", no, sizeof no - 1, p, sizeof p);
    ck_assert(!cp_rt_bwrap_has_bind_fd(p));
    write_file("empty", "", 0, p, sizeof p);
    ck_assert(!cp_rt_bwrap_has_bind_fd(p));
    snprintf(p, sizeof p, "%s/missing", dir);
    ck_assert(!cp_rt_bwrap_has_bind_fd(p));
}
END_TEST

/* A plan of the words given (NULL-ended), DIR/ prefixed where a word
 * starts with '@'. */
static void plan_words(struct cp_rt_plan *pl, const char *const *w)
{
    memset(pl, 0, sizeof *pl);
    for (; *w; w++) {
        char buf[256];
        if (**w == '@')
            snprintf(buf, sizeof buf, "%s/%s", dir, *w + 1);
        else
            snprintf(buf, sizeof buf, "%s", *w);
        cp_rt_strv_push(&pl->words, buf);
    }
}

/* Planning records each bind's source; spawning opens it again without
 * following symlinks, hands bwrap the descriptor (--bind-fd) and has the
 * stage verify the runtime's own mounts that no later mount hides. */
START_TEST(mount_identities)
{
    static const char *const w[] = {"--ro-bind",
                                    "/",
                                    "/",
                                    "--bind",
                                    "@d",
                                    "@d",
                                    "--unshare-net",
                                    "--ro-bind",
                                    "@d/f",
                                    "@d/f",
                                    "--tmpfs",
                                    "@d/sub",
                                    "--bind",
                                    "@d",
                                    "/elsewhere",
                                    NULL};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    plan_words(&pl, w);
    ck_assert_int_eq(cp_rt_plan_identities(&pl, &e), 0);
    ck_assert_uint_eq(pl.nids, 5); /* 4 binds, 1 tmpfs */
    struct cp_rt_fds fds = {0};
    struct cp_rt_strv ver = {0};
    ck_assert_int_eq(cp_rt_bind_fds(&pl, true, &fds, &ver, &e), 0);
    ck_assert_uint_eq(fds.n, 4);
    ck_assert_str_eq(pl.words.v[0], "--ro-bind-fd");
    ck_assert_str_eq(pl.words.v[3], "--bind-fd");
    ck_assert_str_eq(pl.words.v[7], "--ro-bind-fd");
    ck_assert_str_eq(pl.words.v[12], "--bind-fd");
    struct stat a, b;
    ck_assert_int_eq(fstat(atoi(pl.words.v[4]), &a), 0);
    char p[256];
    snprintf(p, sizeof p, "%s/d", dir);
    ck_assert_int_eq(stat(p, &b), 0);
    ck_assert(cp_rt_same_file(&a, &b));
    /* verified inside: the runtime's own mounts (source = destination,
     * or a tmpfs), in order; not the bind to another place */
    ck_assert_uint_eq(ver.n, 12);
    const char *const dst[] = {"/", "d", "d/f", "d/sub"};
    for (size_t i = 0; i < 4; i++) {
        ck_assert_str_eq(ver.v[3 * i], "--verify-mount");
        snprintf(p, sizeof p, "%s/%s", dir, dst[i]);
        ck_assert_str_eq(ver.v[3 * i + 2], i ? p : "/");
        ck_assert_int_eq(!strcmp(ver.v[3 * i + 1], "-"), i == 3);
    }
    cp_rt_fds_close(&fds);
    cp_rt_strv_free(&ver);
    cp_rt_plan_free(&pl);

    /* a mount hidden by a later one at its place or above is not
     * verified (the later one is what the sandbox sees) */
    static const char *const wh[] = {"--bind",  "@d/sub", "@d/sub",
                                     "--tmpfs", "@d",     NULL};
    plan_words(&pl, wh);
    ck_assert_int_eq(cp_rt_plan_identities(&pl, &e), 0);
    memset(&fds, 0, sizeof fds);
    memset(&ver, 0, sizeof ver);
    ck_assert_int_eq(cp_rt_bind_fds(&pl, true, &fds, &ver, &e), 0);
    ck_assert_uint_eq(ver.n, 3);
    snprintf(p, sizeof p, "%s/d", dir);
    ck_assert_str_eq(ver.v[2], p);
    cp_rt_fds_close(&fds);
    cp_rt_strv_free(&ver);
    cp_rt_plan_free(&pl);

    /* without --bind-fd: the words stay, the sources are still checked */
    plan_words(&pl, w);
    ck_assert_int_eq(cp_rt_plan_identities(&pl, &e), 0);
    memset(&fds, 0, sizeof fds);
    memset(&ver, 0, sizeof ver);
    ck_assert_int_eq(cp_rt_bind_fds(&pl, false, &fds, &ver, &e), 0);
    ck_assert_uint_eq(fds.n, 4);
    ck_assert_str_eq(pl.words.v[3], "--bind");
    cp_rt_fds_close(&fds);
    cp_rt_strv_free(&ver);
    cp_rt_plan_free(&pl);
}
END_TEST

/* A source swapped between planning and spawning refuses the launch. */
START_TEST(mount_identity_changed)
{
    static const char *const w[] = {"--bind", "@d/sub", "@d/sub", NULL};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    char p[256], q[256];
    snprintf(p, sizeof p, "%s/d/sub", dir);
    snprintf(q, sizeof q, "%s/d/sub2", dir);
    for (int swap = 0; swap < 2; swap++) {
        plan_words(&pl, w);
        ck_assert_int_eq(cp_rt_plan_identities(&pl, &e), 0);
        ck_assert_int_eq(rename(p, q), 0);
        if (swap == 0)
            ck_assert_int_eq(mkdir(p, 0755), 0); /* another directory */
        else
            ck_assert_int_eq(symlink("sub2", p), 0); /* a symlink */
        struct cp_rt_fds fds = {0};
        struct cp_rt_strv ver = {0};
        memset(&e, 0, sizeof e);
        ck_assert_int_eq(cp_rt_bind_fds(&pl, true, &fds, &ver, &e),
                         CP_RT_EXIT_CHANGED);
        ck_assert_ptr_nonnull(
            strstr(e.msg, "changed since the launch was planned"));
        ck_assert_ptr_nonnull(
            strstr(e.msg, swap ? "a symlink now lies on its way"
                               : "another file is there now"));
        cp_rt_fds_close(&fds);
        cp_rt_strv_free(&ver);
        cp_rt_plan_free(&pl);
        if (swap == 0)
            ck_assert_int_eq(rmdir(p), 0);
        else
            ck_assert_int_eq(unlink(p), 0);
        ck_assert_int_eq(rename(q, p), 0);
    }
    /* the runtime's own bind already a symlink, or gone, when planned */
    static const char *const wl[] = {"--bind", "@l", "@l", NULL};
    plan_words(&pl, wl);
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(cp_rt_plan_identities(&pl, &e), CP_RT_EXIT_CHANGED);
    ck_assert_ptr_nonnull(strstr(e.msg, "became a symlink"));
    cp_rt_plan_free(&pl);
    static const char *const wn[] = {"--bind", "@none", "@none", NULL};
    plan_words(&pl, wn);
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(cp_rt_plan_identities(&pl, &e), CP_RT_EXIT_CHANGED);
    ck_assert_ptr_nonnull(strstr(e.msg, "disappeared"));
    cp_rt_plan_free(&pl);
    /* words the planner cannot have made */
    static const char *const wb[] = {"--no-such-option", NULL};
    plan_words(&pl, wb);
    ck_assert_int_eq(cp_rt_plan_identities(&pl, &e), CP_RT_EXIT_ERROR);
    ck_assert_ptr_nonnull(strstr(e.msg, "internal error"));
    cp_rt_plan_free(&pl);
    static const char *const wt[] = {"--bind", "@d", NULL};
    plan_words(&pl, wt);
    ck_assert_int_eq(cp_rt_plan_identities(&pl, &e), CP_RT_EXIT_ERROR);
    cp_rt_plan_free(&pl);
}
END_TEST

Suite *cp_test_fdpath_suite(void)
{
    Suite *s = suite_create("fdpath");
    TCase *tc = tcase_create("fdpath");
    tcase_add_checked_fixture(tc, fp_setup, fp_teardown);
    tcase_add_test(tc, nofollow_openat2);
    tcase_add_test(tc, nofollow_walk);
    tcase_add_test(tc, nofollow_walk_eperm);
    tcase_add_test(tc, nofollow_walk_no_fd);
    tcase_add_test(tc, close_inherited_fallback);
    tcase_add_test(tc, same_file_and_reopen);
    tcase_add_test(tc, reopen_at);
    tcase_add_test(tc, path_child);
    tcase_add_test(tc, keep_fd);
    tcase_add_test(tc, close_inherited);
    tcase_add_test(tc, proc_stat_field);
    tcase_add_test(tc, verify_mount);
    tcase_add_test(tc, verify_mount_kept_dirs);
    tcase_add_test(tc, bwrap_has_bind_fd);
    tcase_add_test(tc, mount_identities);
    tcase_add_test(tc, mount_identity_changed);
    tcase_add_test(tc, parent_open);
    suite_add_tcase(s, tc);
    return s;
}
