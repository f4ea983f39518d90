/* SPDX-License-Identifier: MIT */
/* macOS: applies an SBPL artifact with `sandbox-exec -f PROFILE -D
 * NAME=VALUE... -- CMD`, binding every param the profile lists in its
 * `;; confpol-param NAME` lines.  Param values never pass through the
 * Scheme reader, so no escaping is involved.  Built and unit-tested on
 * Linux too, where running it is refused. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"

#define SB_PARAM_PREFIX ";; confpol-param "
#define SB_ANC_PREFIX ";; confpol-ancestors "

int cp_rt_sb_params(const char *text, size_t len, struct cp_rt_strv *names,
                    struct cp_rt_err *e)
{
    memset(names, 0, sizeof *names);
    size_t plen = strlen(SB_PARAM_PREFIX);
    for (size_t i = 0; i < len;) {
        const char *line = text + i;
        const char *nl = memchr(line, '\n', len - i);
        size_t n = nl ? (size_t)(nl - line) : len - i;
        i += n + 1;
        if (n < plen || memcmp(line, SB_PARAM_PREFIX, plen))
            continue;
        const char *name = line + plen;
        size_t k = n - plen;
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
                              (int)(n > 200 ? 200 : n), line);
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
    size_t plen = strlen(SB_ANC_PREFIX);
    for (size_t i = 0; i < len;) {
        const char *line = text + i;
        const char *nl = memchr(line, '\n', len - i);
        size_t n = nl ? (size_t)(nl - line) : len - i;
        i += n + 1;
        if (n < plen || memcmp(line, SB_ANC_PREFIX, plen))
            continue;
        const char *name = line + plen;
        size_t k = n - plen;
        bool known = false;
        for (size_t j = 0; j < names->n && !known; j++)
            known = strlen(names->v[j]) == k && !memcmp(names->v[j], name, k);
        if (!known) {
            cp_rt_strv_free(anc);
            return cp_rt_fail(
                e, CP_RT_EXIT_ERROR,
                "invalid profile: ancestors of an undeclared param '%.*s'",
                (int)(n > 200 ? 200 : n), line);
        }
        char buf[128];
        memcpy(buf, name, k);
        buf[k] = '\0';
        cp_rt_strv_push(anc, buf);
    }
    return 0;
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
                  char *const *cmd, size_t ncmd, struct cp_rt_strv *out,
                  struct cp_rt_err *e)
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
    /* "--": a command starting with '-' is not taken for an option. */
    cp_rt_strv_push(out, "--");
    for (size_t i = 0; i < ncmd; i++)
        cp_rt_strv_push(out, cmd[i]);
    return 0;
}

int cp_rt_run_sbpl(const char *prog, const char *profile_path,
                   const struct cp_rt_define *defines, size_t ndefines,
                   char *const *cmd, size_t ncmd)
{
#ifndef __APPLE__
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
#else
    struct cp_rt_err e = {0};
    int fd = open(profile_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        (unsigned long long)st.st_size > CP_RT_MAX_ARTIFACT) {
        fprintf(stderr, "%s: cannot read '%s': %s\n", prog, profile_path,
                fd < 0 ? strerror(errno) : "not a regular file of a sane size");
        if (fd >= 0)
            close(fd);
        return CP_RT_EXIT_ERROR;
    }
    size_t len = (size_t)st.st_size;
    char *text = cp_xmalloc(len + 1);
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, text + got, len - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    struct cp_rt_strv names, anc;
    if (cp_rt_sb_params(text, got, &names, &e)) {
        free(text);
        fprintf(stderr, "%s: '%s': %s\n", prog, profile_path, e.msg);
        return e.status;
    }
    if (cp_rt_sb_ancestors(text, got, &names, &anc, &e)) {
        free(text);
        cp_rt_strv_free(&names);
        fprintf(stderr, "%s: '%s': %s\n", prog, profile_path, e.msg);
        return e.status;
    }
    free(text);
    struct cp_rt_params params;
    char cwd[4096];
    const char *cwdp = getcwd(cwd, sizeof cwd);
    if (cp_rt_params_bind(&params, (const char *const *)names.v, names.n, NULL,
                          0, defines, ndefines, getenv("HOME"), cwdp, &e)) {
        cp_rt_strv_free(&names);
        cp_rt_strv_free(&anc);
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        return e.status;
    }
    struct cp_rt_strv argv;
    int rc = cp_rt_sb_argv(profile_path, &names, &anc, &params, cmd, ncmd,
                           &argv, &e);
    cp_rt_strv_free(&names);
    cp_rt_strv_free(&anc);
    cp_rt_params_free(&params);
    if (rc) {
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        return rc;
    }
    fflush(NULL);
    execvp("/usr/bin/sandbox-exec", argv.v);
    int err = errno;
    fprintf(stderr, "%s: cannot execute /usr/bin/sandbox-exec: %s\n", prog,
            strerror(err));
    cp_rt_strv_free(&argv);
    return CP_RT_EXIT_CANNOT;
#endif
}
