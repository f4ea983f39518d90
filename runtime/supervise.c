/* SPDX-License-Identifier: MIT */
/* The process lifetime of a launch without namespaces (the Landlock
 * enforcer; spec/runtime.md §12, "Process lifetime").  bwrap's PID
 * namespace takes every process of the sandbox with it; without one, a
 * detached descendant (`setsid sh -c 'sleep 1000 &'`) would outlive the
 * launch with the session's rights.  So the runtime stays as the parent:
 * a child subreaper (orphans of the session are reparented to it, not to
 * init), that forwards the signals meant for the command to its process
 * group, and that, when the command exits, kills every descendant left
 * before it returns. */
#include "runtime.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Without CONFIG_PROC_CHILDREN: every process whose parent is this one. */
static size_t sv_children_by_stat(pid_t *out, size_t max)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    size_t n = 0;
    int err = 0;
    while (d && n < max && (de = cp_rt_readdir(d, &err))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (!*end && pid > 0 && cp_rt_proc_stat_field(pid, 2) == (long)getpid())
            out[n++] = (pid_t)pid;
    }
    if (d)
        closedir(d);
    (void)err; /* a read that failed shows fewer: sv_kill_rest says so */
    return n;
}

/* The pids whose parent is this process, read from /proc (the children of
 * every thread; the runtime has one).  Returns the count, at most max. */
static size_t sv_children(pid_t *out, size_t max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
    FILE *f = fopen(path, "re");
    if (f) {
        char buf[4096];
        size_t k = fread(buf, 1, sizeof buf - 1, f), n = 0;
        fclose(f);
        buf[k] = '\0';
        for (char *p = buf, *end; n < max; p = end) {
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            out[n++] = (pid_t)v;
        }
        return n;
    }
    return sv_children_by_stat(out, max);
}

/* Kills and reaps every descendant left: each child found is killed and
 * reaped, its own children are reparented here (subreaper) and found on
 * the next round.  Bounded: 10 s, then the rest is left (said).  A child
 * left that /proc did not show (its read failed) is said too. */
static void sv_kill_rest(const char *prog)
{
    struct timespec t0, now, ms = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t kids[256];
    size_t n;
    while ((n = sv_children(kids, sizeof kids / sizeof kids[0])) > 0) {
        for (size_t i = 0; i < n; i++)
            kill(kids[i], SIGKILL);
        for (size_t i = 0; i < n; i++)
            while (waitpid(kids[i], NULL, WNOHANG) == 0) {
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (now.tv_sec - t0.tv_sec > 10) {
                    cp_rt_eprintf(
                        "%s: warning: processes of the session could not "
                        "be stopped within 10 s\n",
                        prog);
                    return;
                }
                nanosleep(&ms, NULL);
            }
    }
    if (waitpid(-1, NULL, WNOHANG) == 0) /* a child, not found above */
        cp_rt_eprintf("%s: warning: processes of the session could not be "
                      "found to stop them (/proc)\n",
                      prog);
}

/* A signal for the command goes to its process group: `sh -c` and every
 * child it started, as a Ctrl-C reaches a foreground job. */
static void sv_forward(const struct signalfd_siginfo *si, pid_t child)
{
    if (kill(-child, (int)si->ssi_signo) < 0)
        kill(child, (int)si->ssi_signo);
}

/* Reaps every child that has exited: the command's status as a shell
 * reports it once it is among them, else -1. */
static int sv_reap(pid_t child)
{
    int w, status = -1;
    pid_t p;
    while ((p = waitpid(-1, &w, WNOHANG)) > 0)
        if (p == child)
            status = WIFEXITED(w)     ? WEXITSTATUS(w)
                     : WIFSIGNALED(w) ? 128 + WTERMSIG(w)
                                      : CP_RT_EXIT_ERROR;
    return status;
}

int cp_rt_supervise(int (*child_fn)(void *), void *ctx, const char *prog)
{
    static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
    sigset_t mask, old;
    sigemptyset(&mask);
    for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++)
        sigaddset(&mask, fwd[i]);
    int sfd = -1;
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ||
        sigprocmask(SIG_BLOCK, &mask, &old) < 0 ||
        (sfd = signalfd(-1, &mask, SFD_CLOEXEC)) < 0) {
        cp_rt_eprintf("%s: cannot supervise the command: %s\n", prog,
                      strerror(errno));
        return CP_RT_EXIT_CANNOT;
    }
    pid_t parent = getpid();
    fflush(NULL);
    pid_t child = cp_rt_fork();
    if (child == 0) {
        close(sfd);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* it dies with the runtime */
        if (getppid() != parent)
            _exit(CP_RT_EXIT_ERROR);
        /* Its own session, as bwrap --new-session gives the command: the
         * terminal is not its controlling one (no TIOCSTI into the
         * caller's shell), and the terminal's signals reach the runtime,
         * which forwards them to the command's group. */
        setsid();
        /* Left blocked, the command would never see a signal forwarded
         * to it (a Ctrl-C, a SIGTERM). */
        if (sigprocmask(SIG_SETMASK, &old, NULL) < 0) {
            cp_rt_eprintf("%s: cannot unblock signals for the command: %s; "
                          "nothing was run\n",
                          prog, strerror(errno));
            _exit(CP_RT_EXIT_ERROR);
        }
        _exit(child_fn(ctx) & 0xff);
    }
    if (child < 0) {
        cp_rt_eprintf("%s: fork: %s\n", prog, strerror(errno));
        close(sfd);
        return CP_RT_EXIT_ERROR;
    }
    int status = -1;
    while (status < 0) {
        /* Reaped on every wake-up and at least every 200 ms: a SIGCHLD
         * whose waitpid failed comes only once. */
        struct pollfd pf = {.fd = sfd, .events = POLLIN};
        struct signalfd_siginfo si;
        if (poll(&pf, 1, 200) > 0 && read(sfd, &si, sizeof si) == sizeof si &&
            si.ssi_signo != SIGCHLD)
            sv_forward(&si, child);
        status = sv_reap(child);
    }
    sv_kill_rest(prog);
    close(sfd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return status;
}
