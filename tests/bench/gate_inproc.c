/* SPDX-License-Identifier: MIT */
/* The gate's own work without process start: loads an artifact's gate
 * table (JSON parse, regex compile), decides one command and frees, N times
 * in one process, and prints the median time of one such call.  Linked
 * against libconfpol.a by tests/bench/run.sh.
 *
 *   gate_inproc N ARTIFACT.claude.json COMMAND */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gate.h"

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

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int n = atoi(argv[1]);
    if (n < 1)
        return 2;
    double *ms = calloc((size_t)n, sizeof *ms);
    const char *verdict = "allow";
    for (int i = 0; i < n; i++) {
        double t0 = now_ms();
        struct cp_arena *a = cp_arena_new();
        struct cp_gate_table t;
        const char *err = cp_gate_table_load(a, argv[2], &t);
        if (err) {
            fprintf(stderr, "gate_inproc: %s\n", err);
            return 1;
        }
        struct cp_gate_answer ans;
        cp_gate_table_decide(&t, argv[3], a, &ans);
        verdict = cp_verdict_text(ans.verdict);
        cp_gate_table_free(&t);
        cp_arena_free(a);
        ms[i] = now_ms() - t0;
    }
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    printf("median_ms=%.3f min_ms=%.3f verdict=%s\n", ms[n / 2], ms[0],
           verdict);
    free(ms);
    return 0;
}
