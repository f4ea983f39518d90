/* SPDX-License-Identifier: MIT */
/* main() of confpol-proxy, the filtering proxy's own program
 * (spec/runtime.md 14.1).  Started only by the runtime (proxy_start.c),
 * which passes its listening socket, its log and its parent's pid as
 * descriptor numbers and words, and the artifact's `net` records as
 * NUL-terminated PATTERN WHERE pairs in the file of --rules-fd.  Anything
 * else is a usage error: it is no command for a user. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netproxy.h"

static int pm_num(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* One NAME VALUE option into pa; -1 when NAME is unknown or VALUE bad. */
static int pm_opt(const char *name, const char *val,
                  struct cp_rt_proxy_args *pa)
{
    long v = 0;
    if (!strcmp(name, "--prog"))
        pa->prog = val;
    else if (!strcmp(name, "--sock"))
        pa->sock = val;
    else if (!strcmp(name, "--dir"))
        pa->dir = val;
    else if (!strcmp(name, "--parent") && !pm_num(val, 1, 1L << 30, &v))
        pa->parent = (pid_t)v;
    else if (!strcmp(name, "--listen-fd") && !pm_num(val, 0, 1L << 20, &v))
        pa->listen_fd = (int)v;
    else if (!strcmp(name, "--log-fd") && !pm_num(val, 0, 1L << 20, &v))
        pa->log_fd = (int)v;
    else if (!strcmp(name, "--life-fd") && !pm_num(val, -1, 1L << 20, &v))
        pa->life_fd = (int)v;
    else if (!strcmp(name, "--rules-fd") && !pm_num(val, 0, 1L << 20, &v))
        pa->rules_fd = (int)v;
    else
        return -1;
    return 0;
}

/* The whole file of fd (closed) into a NUL-terminated buffer; NULL on a
 * read error. */
static char *pm_slurp(int fd, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    ssize_t r = 0;
    while (buf && (r = read(fd, buf + n, cap - n)) > 0) {
        n += (size_t)r;
        if (n == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (!b)
                break;
            buf = b;
            cap *= 2;
        }
    }
    close(fd);
    if (!buf || r != 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The `net` records of the rules file: NUL-terminated PATTERN WHERE pairs;
 * NULL when the file is not exactly such pairs. */
static struct cp_rt_rec *pm_rules(const char *buf, size_t len, size_t *n)
{
    size_t nul = 0;
    for (size_t i = 0; i < len; i++)
        nul += buf[i] == '\0';
    if (nul % 2 || (len && buf[len - 1] != '\0'))
        return NULL;
    *n = nul / 2;
    struct cp_rt_rec *recs = calloc(*n + 1, sizeof *recs);
    const char *p = buf;
    for (size_t k = 0; recs && k < *n; k++) {
        recs[k].tag = CP_RT_T_NET;
        recs[k].f1 = p;
        p += strlen(p) + 1;
        recs[k].f2 = p;
        p += strlen(p) + 1;
        recs[k].f3 = "";
    }
    return recs;
}

int main(int argc, char **argv)
{
    struct cp_rt_proxy_args pa = {.prog = "confpol-proxy",
                                  .listen_fd = -1,
                                  .log_fd = 2,
                                  .life_fd = -1,
                                  .rules_fd = -1,
                                  .sock = "",
                                  .dir = ""};
    int i = 1;
    for (; i + 1 < argc; i += 2)
        if (pm_opt(argv[i], argv[i + 1], &pa) < 0)
            break;
    if (i != argc || pa.listen_fd < 0 || pa.rules_fd < 0 || pa.parent <= 0) {
        fprintf(stderr, "confpol-proxy: started by the runtime only "
                        "(spec/runtime.md 14.1)\n");
        return 2;
    }
    size_t len = 0, nrules = 0;
    char *buf = pm_slurp(pa.rules_fd, &len);
    struct cp_rt_rec *recs = buf ? pm_rules(buf, len, &nrules) : NULL;
    struct cp_rt_err e = {0};
    if (!recs) {
        free(buf);
        cp_rt_fail(&e, CP_RT_EXIT_ERROR, "its rules cannot be read");
    } else {
        struct cp_rt_artifact a = {.recs = recs, .nrecs = nrules};
        cp_rt_proxy_serve(&a, &pa, &e);
    }
    dprintf(pa.log_fd, "%s: proxy: %s\n", pa.prog, e.msg);
    return 1;
}
