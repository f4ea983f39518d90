/* SPDX-License-Identifier: MIT */
/* The hook's own deadline (spec/gate.md, "Deadline"): a client whose hook
 * times out runs the command anyway, so past CP_GATE_DEADLINE_MS of wall
 * time the hook answers deny, whatever it was doing.  The answer is built
 * when the deadline is armed; the signal handler only writes it and exits
 * (write(2) and _exit(2) are async-signal-safe; nothing else is called). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "gate.h"

static char *cp_dl_answer, *cp_dl_reason;
static size_t cp_dl_answer_len, cp_dl_reason_len;

static void cp_dl_write(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void cp_dl_fire(int sig)
{
    (void)sig;
    cp_dl_write(STDOUT_FILENO, cp_dl_answer, cp_dl_answer_len);
    cp_dl_write(STDERR_FILENO, cp_dl_reason, cp_dl_reason_len);
    _exit(2);
}

unsigned cp_gate_deadline_ms(const char *env)
{
    if (!env || !*env)
        return CP_GATE_DEADLINE_MS;
    char *end;
    unsigned long v = strtoul(env, &end, 10);
    if (*end || v == 0 || v > CP_GATE_DEADLINE_MS)
        return CP_GATE_DEADLINE_MS; /* only ever shorter */
    return (unsigned)v;
}

void cp_gate_deadline_arm(unsigned ms)
{
    struct cp_arena *a = cp_arena_new();
    const char *why = cp_arena_printf(a,
                                      "confpol gate: no decision within %u "
                                      "ms; denying (the hook's deadline)",
                                      ms);
    struct cp_buf b = {0};
    cp_gate_format_answer(&b, CP_DENY, why);
    free(cp_dl_answer);
    free(cp_dl_reason);
    cp_dl_answer = b.data;
    cp_dl_answer_len = b.len;
    cp_dl_reason_len = strlen(why) + 1;
    cp_dl_reason = cp_xmalloc(cp_dl_reason_len);
    memcpy(cp_dl_reason, why, cp_dl_reason_len - 1);
    cp_dl_reason[cp_dl_reason_len - 1] = '\n';
    cp_arena_free(a);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cp_dl_fire;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {
        .it_value = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
}

void cp_gate_deadline_disarm(void)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
}
