/* SPDX-License-Identifier: MIT */
/* Times commands, process start included: runs each of one or more
 * commands RUNS times, round-robin (interleaved, so that drift in the
 * machine's load hits every command alike), and prints per command the
 * median and minimum wall time and the peak RSS of the child (wait4).
 *
 *   bench [-n RUNS] [-w WARMUP] [-i STDIN-FILE] [-p PREP] -- CMD [ARG]... [:: CMD [ARG]...]...
 *
 * PREP, if given, is a shell command run (untimed) before every run of
 * every command, e.g. to empty an output directory.
 *
 * Output, one line per command in the order given:
 *   median_ms=M min_ms=M max_ms=M cpu_ms=M rss_kb=K fails=F p99_ms=M p99_cpu_ms=M
 *   max_cpu_ms=M
 * cpu_ms is the median user+system CPU time of the child (rusage): unlike
 * wall time it does not grow when other processes compete for the CPU.
 * A run "fails" when the command exits non-zero or by a signal; timing is
 * still recorded.  stdout and stderr of the commands go to /dev/null. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct cmd {
    char **argv;
    double *ms;
    double *cpu;
    long rss_kb;
    int fails;
};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double run_once(struct cmd *c, const char *input, const char *prep,
                       double *cpu)
{
    if (prep && system(prep) != 0) {
        fprintf(stderr, "bench: '%s' failed\n", prep);
        exit(2);
    }
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench: fork");
        exit(2);
    }
    if (pid == 0) {
        int in = open(input ? input : "/dev/null", O_RDONLY);
        int out = open("/dev/null", O_WRONLY);
        if (in < 0 || out < 0)
            _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        execvp(c->argv[0], c->argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid) {
        perror("bench: wait4");
        exit(2);
    }
    double ms = now_ms() - t0;
    *cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    if (ru.ru_maxrss > c->rss_kb)
        c->rss_kb = ru.ru_maxrss;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        c->fails++;
    return ms;
}

int main(int argc, char **argv)
{
    int runs = 10, warmup = 1;
    const char *input = NULL, *prep = NULL;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
            warmup = atoi(argv[++i]);
        else if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
            input = argv[++i];
        else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
            prep = argv[++i];
        else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else {
            fprintf(stderr,
                    "usage: bench [-n RUNS] [-w WARMUP] [-i FILE] [-p PREP] -- "
                    "CMD [ARG]... [:: CMD [ARG]...]...\n");
            return 2;
        }
    }
    if (runs < 1 || i >= argc) {
        fprintf(stderr, "bench: nothing to run\n");
        return 2;
    }
    struct cmd cmds[16];
    int ncmds = 0;
    cmds[0].argv = &argv[i];
    for (int j = i; j < argc; j++) {
        if (strcmp(argv[j], "::") == 0) {
            argv[j] = NULL;
            if (++ncmds >= 15) {
                fprintf(stderr, "bench: at most 15 commands\n");
                return 2;
            }
            cmds[ncmds].argv = &argv[j + 1];
        }
    }
    ncmds++;
    for (int k = 0; k < ncmds; k++) {
        cmds[k].ms = calloc((size_t)runs, sizeof(double));
        cmds[k].cpu = calloc((size_t)runs, sizeof(double));
        cmds[k].rss_kb = 0;
        cmds[k].fails = 0;
        if (!cmds[k].ms || !cmds[k].cpu || !cmds[k].argv[0]) {
            fprintf(stderr, "bench: empty command\n");
            return 2;
        }
    }
    double scratch;
    for (int r = 0; r < warmup; r++)
        for (int k = 0; k < ncmds; k++)
            run_once(&cmds[k], input, prep, &scratch);
    for (int k = 0; k < ncmds; k++)
        cmds[k].fails = 0;
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < ncmds; k++)
            cmds[k].ms[r] = run_once(&cmds[k], input, prep, &cmds[k].cpu[r]);
    for (int k = 0; k < ncmds; k++) {
        qsort(cmds[k].ms, (size_t)runs, sizeof(double), cmp_double);
        qsort(cmds[k].cpu, (size_t)runs, sizeof(double), cmp_double);
        /* the 99th percentile, nearest rank */
        int r99 = (99 * runs + 99) / 100 - 1;
        printf("median_ms=%.3f min_ms=%.3f max_ms=%.3f cpu_ms=%.3f rss_kb=%ld "
               "fails=%d p99_ms=%.3f p99_cpu_ms=%.3f max_cpu_ms=%.3f\n",
               median(cmds[k].ms, runs), cmds[k].ms[0], cmds[k].ms[runs - 1],
               median(cmds[k].cpu, runs), cmds[k].rss_kb, cmds[k].fails,
               cmds[k].ms[r99 < 0 ? 0 : r99], cmds[k].cpu[r99 < 0 ? 0 : r99],
               cmds[k].cpu[runs - 1]);
        free(cmds[k].ms);
        free(cmds[k].cpu);
    }
    return 0;
}
