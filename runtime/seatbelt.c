/* SPDX-License-Identifier: MIT */
/* macOS: applies an SBPL artifact with `sandbox-exec -f PROFILE -D
 * NAME=VALUE... -- CMD`, binding every param the profile lists in its
 * `;; confpol-param NAME` lines.  A profile with `;; confpol-net` lines (a
 * `net allow` list) gets the filtering proxy, started here outside the
 * sandbox on 127.0.0.1 (spec/runtime.md 14.7): its port is bound as the
 * param confpol:proxy-port and the command's proxy variables point at it.
 * Param values never pass through the Scheme reader, so no escaping is
 * involved.  Built and unit-tested on Linux too, where running it is
 * refused (build/confpol-run-portable runs it, with a stand-in for
 * sandbox-exec, for the tests). */
#include "runtime.h"
#include "artifact_vocab.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "netmatch.h"
#include "netproxy.h"

#define SB_PARAM_PREFIX CP_SB_PARAM_LINE
#define SB_ANC_PREFIX CP_SB_ANCESTORS_LINE
#define SB_NET_PREFIX CP_SB_NET_LINE

/* A line of the profile that starts with a given prefix: the whole line
 * (n bytes) and its text after the prefix (k bytes). */
struct sb_line {
    const char *line, *rest;
    size_t n, k;
};

/* The next line of text[*i, len) that starts with PREFIX, in *l; false at
 * the end.  *i moves past it.  The one walk over a profile's lines that
 * each kind of `;; confpol-` line uses. */
static bool sb_next(const char *text, size_t len, size_t *i, const char *prefix,
                    struct sb_line *l)
{
    size_t plen = strlen(prefix);
    while (*i < len) {
        const char *line = text + *i;
        const char *nl = memchr(line, '\n', len - *i);
        size_t n = nl ? (size_t)(nl - line) : len - *i;
        *i += n + 1;
        if (n >= plen && !memcmp(line, prefix, plen)) {
            *l = (struct sb_line){line, line + plen, n, n - plen};
            return true;
        }
    }
    return false;
}

int cp_rt_sb_params(const char *text, size_t len, struct cp_rt_strv *names,
                    struct cp_rt_err *e)
{
    memset(names, 0, sizeof *names);
    struct sb_line l;
    for (size_t i = 0; sb_next(text, len, &i, SB_PARAM_PREFIX, &l);) {
        const char *name = l.rest;
        size_t k = l.k;
        bool ok = k > 0 && k < 128;
        for (size_t j = 0; ok && j < k; j++) {
            char c = name[j];
            ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
                 (j > 0 && c >= '0' && c <= '9');
        }
        if (!ok) {
            cp_rt_strv_free(names);
            return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                              "invalid profile: bad param line '%.*s'",
                              (int)(l.n > 200 ? 200 : l.n), l.line);
        }
        char buf[128];
        memcpy(buf, name, k);
        buf[k] = '\0';
        bool dup = false;
        for (size_t j = 0; j < names->n && !dup; j++)
            dup = !strcmp(names->v[j], buf);
        if (!dup)
            cp_rt_strv_push(names, buf);
    }
    return 0;
}

int cp_rt_sb_ancestors(const char *text, size_t len,
                       const struct cp_rt_strv *names, struct cp_rt_strv *anc,
                       struct cp_rt_err *e)
{
    memset(anc, 0, sizeof *anc);
    struct sb_line l;
    for (size_t i = 0; sb_next(text, len, &i, SB_ANC_PREFIX, &l);) {
        const char *name = l.rest;
        size_t k = l.k;
        bool known = false;
        for (size_t j = 0; j < names->n && !known; j++)
            known = strlen(names->v[j]) == k && !memcmp(names->v[j], name, k);
        if (!known) {
            cp_rt_strv_free(anc);
            return cp_rt_fail(
                e, CP_RT_EXIT_ERROR,
                "invalid profile: ancestors of an undeclared param '%.*s'",
                (int)(l.n > 200 ? 200 : l.n), l.line);
        }
        char buf[128];
        memcpy(buf, name, k);
        buf[k] = '\0';
        cp_rt_strv_push(anc, buf);
    }
    return 0;
}

/* One `;; confpol-net PATTERN WHERE` line (its text after the prefix,
 * n bytes) as a `net` record of a, its fields copied into a->buf at *off;
 * PATTERN is validated with the decision model's parser, as the bwrap
 * artifact's `net` records are (artifact.c). */
static int sb_net_line(struct cp_rt_artifact *a, size_t *off, const char *line,
                       size_t n, struct cp_rt_err *e)
{
    const char *sp = memchr(line, ' ', n);
    size_t plen = sp ? (size_t)(sp - line) : n;
    const char *why = NULL;
    struct cp_domain d;
    struct cp_arena *ar = cp_arena_new();
    if (!sp || plen == 0 || sp + 1 == line + n)
        why = "want ';; confpol-net PATTERN WHERE'";
    else if (memchr(line, '\0', n))
        why = "a NUL byte";
    else
        why = cp_domain_parse(ar, line, plen, &d);
    cp_arena_free(ar);
    if (why)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "invalid profile: net line '%.*s': %s",
                          (int)(n > 200 ? 200 : n), line, why);
    struct cp_rt_rec *r = &a->recs[a->nrecs++];
    r->tag = CP_RT_T_NET;
    r->off = 0; /* the caller knows the line's offset */
    memcpy(a->buf + *off, line, plen);
    a->buf[*off + plen] = '\0';
    r->f1 = a->buf + *off;
    *off += plen + 1;
    memcpy(a->buf + *off, sp + 1, n - plen - 1);
    a->buf[*off + n - plen - 1] = '\0';
    r->f2 = a->buf + *off;
    *off += n - plen;
    return 0;
}

int cp_rt_sb_net(const char *text, size_t len, struct cp_rt_artifact *a,
                 struct cp_rt_err *e)
{
    memset(a, 0, sizeof *a);
    size_t nlines = 0;
    struct sb_line l;
    for (size_t i = 0; sb_next(text, len, &i, SB_NET_PREFIX, &l);)
        nlines++;
    if (!nlines)
        return 0;
    /* Both fields of every line fit in len bytes plus their NULs. */
    a->buf = cp_xmalloc(len + 2 * nlines + 1);
    a->recs = cp_xmalloc(nlines * sizeof *a->recs);
    size_t off = 0;
    for (size_t i = 0; sb_next(text, len, &i, SB_NET_PREFIX, &l);) {
        if (sb_net_line(a, &off, l.rest, l.k, e)) {
            cp_rt_artifact_free(a);
            return e->status;
        }
        a->recs[a->nrecs - 1].off = (size_t)(l.line - text);
    }
    a->len = off;
    return 0;
}

int cp_rt_sb_read(const char *text, size_t len, struct cp_rt_sb_profile *sp,
                  struct cp_rt_err *e)
{
    memset(sp, 0, sizeof *sp);
    if (cp_rt_sb_params(text, len, &sp->names, e))
        return e->status;
    if (cp_rt_sb_ancestors(text, len, &sp->names, &sp->anc, e) ||
        cp_rt_sb_net(text, len, &sp->net, e)) {
        cp_rt_sb_profile_free(sp);
        return e->status;
    }
    return 0;
}

void cp_rt_sb_profile_free(struct cp_rt_sb_profile *sp)
{
    cp_rt_strv_free(&sp->names);
    cp_rt_strv_free(&sp->anc);
    cp_rt_artifact_free(&sp->net);
}

/* A regex byte: AppleMatch metacharacters get a backslash (the value is
 * passed with -D and never read as a Scheme string). */
static void sb_re_byte(char **d, char c)
{
    if (strchr(".*+?^$|\\()[]{}", c))
        *(*d)++ = '\\';
    *(*d)++ = c;
}

char *cp_rt_sb_ancestors_regex(const char *value)
{
    /* The proper ancestors are the prefixes of the value before its last
     * segment (empty segments of a non-canonical value are skipped). */
    size_t end = strlen(value);
    while (end && value[end - 1] == '/')
        end--;
    while (end && value[end - 1] != '/')
        end--;
    char *out = cp_xmalloc(4 * end + 8), *d = out;
    /* ^/(s1(/s2(...)?)?)?$ */
    *d++ = '^';
    *d++ = '/';
    size_t open = 0;
    for (size_t i = 0; i < end;) {
        while (i < end && value[i] == '/')
            i++;
        if (i == end)
            break;
        *d++ = '(';
        if (open++)
            *d++ = '/';
        for (; i < end && value[i] != '/'; i++)
            sb_re_byte(&d, value[i]);
    }
    for (size_t i = 0; i < open; i++) {
        *d++ = ')';
        *d++ = '?';
    }
    *d++ = '$';
    *d = '\0';
    return out;
}

int cp_rt_sb_argv(const char *profile_path, const struct cp_rt_strv *names,
                  const struct cp_rt_strv *anc, const struct cp_rt_params *p,
                  unsigned proxy_port, char *const *cmd, size_t ncmd,
                  struct cp_rt_strv *out, struct cp_rt_err *e)
{
    memset(out, 0, sizeof *out);
    cp_rt_strv_push(out, "sandbox-exec");
    cp_rt_strv_push(out, "-f");
    cp_rt_strv_push(out, profile_path);
    for (size_t i = 0; i < names->n; i++) {
        const char *v = cp_rt_params_get(p, names->v[i]);
        if (!v) {
            cp_rt_strv_free(out);
            return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                              "param %s is unbound; pass -D %s=DIR",
                              names->v[i], names->v[i]);
        }
        cp_rt_strv_push(out, "-D");
        char *kv = cp_xmalloc(strlen(names->v[i]) + strlen(v) + 2);
        sprintf(kv, "%s=%s", names->v[i], v);
        cp_rt_strv_push(out, kv);
        free(kv);
    }
    /* NAME:ancestors: the profile pins the ancestors of NAME's value,
     * which it cannot compute itself (spec/backends.md, "Params"). */
    for (size_t i = 0; anc && i < anc->n; i++) {
        const char *v = cp_rt_params_get(p, anc->v[i]);
        if (!v) {
            cp_rt_strv_free(out);
            return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                              "param %s is unbound; pass -D %s=DIR", anc->v[i],
                              anc->v[i]);
        }
        char *re = cp_rt_sb_ancestors_regex(v);
        char *kv = cp_xmalloc(strlen(anc->v[i]) + strlen(re) + 16);
        sprintf(kv, "%s:ancestors=%s", anc->v[i], re);
        cp_rt_strv_push(out, "-D");
        cp_rt_strv_push(out, kv);
        free(kv);
        free(re);
    }
    /* The proxy's port, which the profile's one network allow names. */
    if (proxy_port) {
        char kv[64];
        snprintf(kv, sizeof kv, "%s=%u", CP_RT_SB_PROXY_PARAM, proxy_port);
        cp_rt_strv_push(out, "-D");
        cp_rt_strv_push(out, kv);
    }
    /* "--": a command starting with '-' is not taken for an option. */
    cp_rt_strv_push(out, "--");
    for (size_t i = 0; i < ncmd; i++)
        cp_rt_strv_push(out, cmd[i]);
    return 0;
}

int cp_rt_sb_plan(const char *profile_path, const struct cp_rt_sb_profile *sp,
                  const struct cp_rt_params *p, unsigned proxy_port,
                  char *const *envp, char *const *cmd, size_t ncmd,
                  struct cp_rt_strv *argv, struct cp_rt_strv *env,
                  struct cp_rt_err *e)
{
    memset(argv, 0, sizeof *argv);
    memset(env, 0, sizeof *env);
    if (sp->net.nrecs && !proxy_port)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "the profile's net allow list needs the proxy");
    int rc = cp_rt_sb_argv(profile_path, &sp->names, &sp->anc, p,
                           sp->net.nrecs ? proxy_port : 0, cmd, ncmd, argv, e);
    if (rc)
        return rc;
    if (sp->net.nrecs)
        cp_rt_proxy_env(envp, proxy_port, env);
    return 0;
}

#if defined(__APPLE__) || defined(CP_RT_PORTABLE)
/* The profile's bytes (at most CP_RT_MAX_ARTIFACT), NUL-terminated; NULL
 * with the message printed. */
static char *sb_load(const char *prog, const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        (unsigned long long)st.st_size > CP_RT_MAX_ARTIFACT) {
        fprintf(stderr, "%s: cannot read '%s': %s\n", prog, path,
                fd < 0 ? strerror(errno) : "not a regular file of a sane size");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    size_t want = (size_t)st.st_size, got = 0;
    char *text = cp_xmalloc(want + 1);
    while (got < want) {
        ssize_t n = read(fd, text + got, want - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    text[got] = '\0';
    *len = got;
    return text;
}

/* The command's exit status as the runtime's (128+N when killed by N). */
static int sb_status(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : CP_RT_EXIT_ERROR;
}

/* With the proxy: sandbox-exec runs as a child, so that the proxy is
 * stopped when the command ends; terminal signals reach the command (the
 * proxy has its own process group) and are ignored here meanwhile, as
 * system(3) does. */
static int sb_spawn(const char *prog, const char *sandbox_exec,
                    const struct cp_rt_strv *argv, const struct cp_rt_strv *env,
                    struct cp_rt_proxy *px)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    fflush(NULL);
    pid_t pid = cp_rt_fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        execve(sandbox_exec, argv->v, env->v);
        fprintf(stderr, "%s: cannot execute %s: %s\n", prog, sandbox_exec,
                strerror(errno));
        _exit(CP_RT_EXIT_CANNOT);
    }
    int st = 0, rc;
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
        rc = CP_RT_EXIT_ERROR;
    } else {
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        rc = sb_status(st);
    }
    cp_rt_proxy_stop(px, true);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return rc;
}

/* Binds the params, starts the proxy when the profile has a net allow
 * list (refusing to run when it cannot: the profile would not load
 * without its port, and running unconfined would be looser), and runs
 * sandbox-exec. */
static int sb_launch(const char *prog, const char *profile_path,
                     const char *sandbox_exec, struct cp_rt_sb_profile *sp,
                     const struct cp_rt_params *params, char *const *cmd,
                     size_t ncmd)
{
    extern char **environ;
    struct cp_rt_err e = {0};
    struct cp_rt_proxy px = {0};
    if (sp->net.nrecs &&
        cp_rt_proxy_start(&sp->net, CP_RT_PROXY_TCP, prog, &px, &e)) {
        fprintf(stderr, "%s: %s; refusing to run\n", prog, e.msg);
        return e.status;
    }
    struct cp_rt_strv argv = {0}, env = {0};
    int rc = cp_rt_sb_plan(profile_path, sp, params, (unsigned)px.port, environ,
                           cmd, ncmd, &argv, &env, &e);
    if (!rc && (!argv.v || (px.pid > 0 && !env.v))) {
        cp_rt_fail(&e, CP_RT_EXIT_ERROR, "internal error: empty plan");
        rc = CP_RT_EXIT_ERROR;
    }
    if (rc) {
        cp_rt_proxy_stop(&px, true);
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        return rc;
    }
    if (px.pid > 0)
        rc = sb_spawn(prog, sandbox_exec, &argv, &env, &px);
    else {
        fflush(NULL);
        execv(sandbox_exec, argv.v);
        fprintf(stderr, "%s: cannot execute %s: %s\n", prog, sandbox_exec,
                strerror(errno));
        rc = CP_RT_EXIT_CANNOT;
    }
    cp_rt_strv_free(&argv);
    cp_rt_strv_free(&env);
    return rc;
}

int cp_rt_sb_run(const char *prog, const char *profile_path,
                 const char *sandbox_exec, const struct cp_rt_define *defines,
                 size_t ndefines, char *const *cmd, size_t ncmd)
{
    struct cp_rt_err e = {0};
    size_t len;
    char *text = sb_load(prog, profile_path, &len);
    if (!text)
        return CP_RT_EXIT_ERROR;
    struct cp_rt_sb_profile sp;
    int rc = cp_rt_sb_read(text, len, &sp, &e);
    free(text);
    if (rc) {
        fprintf(stderr, "%s: '%s': %s\n", prog, profile_path, e.msg);
        return rc;
    }
    struct cp_rt_params params;
    char cwd[4096];
    const char *cwdp = getcwd(cwd, sizeof cwd);
    rc = cp_rt_params_bind(&params, (const char *const *)sp.names.v, sp.names.n,
                           NULL, 0, defines, ndefines, getenv("HOME"), cwdp,
                           &e);
    if (rc) {
        cp_rt_sb_profile_free(&sp);
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        return rc;
    }
    rc = sb_launch(prog, profile_path, sandbox_exec, &sp, &params, cmd, ncmd);
    cp_rt_params_free(&params);
    cp_rt_sb_profile_free(&sp);
    return rc;
}
#endif

int cp_rt_run_sbpl(const char *prog, const char *profile_path,
                   const struct cp_rt_define *defines, size_t ndefines,
                   char *const *cmd, size_t ncmd)
{
#if defined(CP_RT_PORTABLE)
    /* The test build only: a stand-in for sandbox-exec, which Linux has
     * not (tests/sh/runtime-macos-path.sh). */
    const char *se = getenv("CONFPOL_TEST_SANDBOX_EXEC");
    return cp_rt_sb_run(prog, profile_path, se ? se : "/usr/bin/sandbox-exec",
                        defines, ndefines, cmd, ncmd);
#elif defined(__APPLE__)
    return cp_rt_sb_run(prog, profile_path, "/usr/bin/sandbox-exec", defines,
                        ndefines, cmd, ncmd);
#else
    (void)defines;
    (void)ndefines;
    (void)cmd;
    (void)ncmd;
    fprintf(stderr,
            "%s: '%s' is a macOS Seatbelt profile: applying it needs "
            "sandbox-exec, which only "
            "macOS has; on Linux use the .bwrap artifact\n",
            prog, profile_path);
    return CP_RT_EXIT_CANNOT;
#endif
}
