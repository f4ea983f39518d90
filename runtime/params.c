/* SPDX-License-Identifier: MIT */
/* Binds the params an artifact uses: HOME from the environment, PROJECT
 * from the current directory, anything else (or an override) from -D.
 * The binding model of spec/semantics.md, "Binding params": an explicit
 * value (-D) must already be canonical: the runtime never "fixes" one,
 * because a value that differs from its realpath means the caller and the
 * policy disagree about which directory is meant; an implicit value (HOME,
 * the working directory) is canonicalised with realpath. */
#include "runtime.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"

int cp_rt_define_split(const char *text, struct cp_rt_define *out,
                       struct cp_rt_err *e)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "-D expects NAME=VALUE, got '%.200s'", text);
    size_t n = (size_t)(eq - text);
    if (n >= sizeof out->name)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "-D: param name too long");
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                  c == '_' || (i > 0 && c >= '0' && c <= '9');
        if (!ok)
            return cp_rt_fail(e, CP_RT_EXIT_ERROR, "-D: bad param name '%.*s'",
                              (int)(n > 64 ? 64 : n), text);
    }
    memcpy(out->name, text, n);
    out->name[n] = '\0';
    out->value = eq + 1;
    return 0;
}

/* No control byte, absolute. */
static int param_text_check(const char *name, const char *value,
                            struct cp_rt_err *e)
{
    for (const unsigned char *p = (const unsigned char *)value; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                              "param %s: value contains a control byte "
                              "(0x%02x); values must be "
                              "plain absolute paths",
                              name, *p);
    if (value[0] != '/')
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "param %s: '%.400s' is not an absolute path", name,
                          value);
    return 0;
}

/* The value of a param used only as the whole path of `socket` records
 * names a socket, not a directory, and may be missing at launch (the
 * stage then warns and allows nothing): canonical as far as it exists
 * (a missing last component: its directory's realpath joined with it). */
static int param_socket_check(const char *name, const char *value,
                              struct cp_rt_err *e)
{
    if (param_text_check(name, value, e))
        return e->status;
    char *real = cp_rt_realpath(value);
    if (!real && errno == ENOENT && strcmp(value, "/")) {
        const char *slash = strrchr(value, '/');
        char *dir = cp_xstrdup(value);
        dir[slash == value ? 1 : slash - value] = '\0';
        char *rdir = cp_rt_realpath(dir);
        free(dir);
        if (rdir) {
            size_t n = strlen(rdir) + strlen(slash) + 1;
            real = cp_xmalloc(n);
            snprintf(real, n, "%s%s", strcmp(rdir, "/") ? rdir : "", slash);
            free(rdir);
        }
    }
    if (!real)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "param %s: '%.400s': %s", name,
                          value, strerror(errno));
    int rc = 0;
    if (strcmp(real, value))
        rc = cp_rt_fail(e, CP_RT_EXIT_ERROR,
                        "param %s: '%.400s' is not canonical (it resolves to "
                        "'%.400s'); pass the resolved path",
                        name, value, real);
    free(real);
    return rc;
}

/* The checks after the canonical form: a directory. */
static int param_dir_check(const char *name, const char *value,
                           struct cp_rt_err *e)
{
    struct stat st;
    if (stat(value, &st) < 0 || !S_ISDIR(st.st_mode))
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "param %s: '%.400s' is not a directory", name, value);
    return 0;
}

int cp_rt_param_check(const char *name, const char *value, struct cp_rt_err *e)
{
    if (param_text_check(name, value, e))
        return e->status;
    char *real = cp_rt_realpath(value);
    if (!real)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "param %s: '%.400s': %s", name,
                          value, strerror(errno));
    if (strcmp(real, value)) {
        cp_rt_fail(e, CP_RT_EXIT_ERROR,
                   "param %s: '%.400s' is not canonical (it resolves to "
                   "'%.400s'); pass the "
                   "resolved path",
                   name, value, real);
        free(real);
        return CP_RT_EXIT_ERROR;
    }
    free(real);
    return param_dir_check(name, value, e);
}

static void bind_add(struct cp_rt_params *p, const char *name,
                     const char *value)
{
    p->v = cp_xrealloc(p->v, (p->n + 1) * sizeof *p->v);
    p->v[p->n].name = cp_xstrdup(name);
    p->v[p->n].value = cp_xstrdup(value);
    p->n++;
}

char *cp_rt_param_canon(const char *name, const char *value, bool implicit,
                        struct cp_rt_err *e)
{
    if (!implicit)
        return cp_rt_param_check(name, value, e) ? NULL : cp_xstrdup(value);
    if (value[0] != '/') {
        cp_rt_fail(e, CP_RT_EXIT_ERROR,
                   "param %s: '%.400s' is not an absolute path", name, value);
        return NULL;
    }
    char *real = cp_rt_realpath(value);
    if (!real) {
        cp_rt_fail(e, CP_RT_EXIT_ERROR, "param %s: '%.400s': %s", name, value,
                   strerror(errno));
        return NULL;
    }
    /* realpath's answer is canonical: checked as a value, but not
     * resolved a second time. */
    if (param_text_check(name, real, e) || param_dir_check(name, real, e)) {
        free(real);
        return NULL;
    }
    return real;
}

static bool name_in(const char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return true;
    return false;
}

static void note_add(struct cp_rt_params *p, const char *name)
{
    p->ignored = cp_xrealloc(p->ignored,
                             (p->nignored + 1) * sizeof *p->ignored);
    p->ignored[p->nignored++] = cp_xstrdup(name);
}

int cp_rt_params_bind(struct cp_rt_params *out, const char *const *needed,
                      size_t nneeded, const char *const *known, size_t nknown,
                      const struct cp_rt_define *defines, size_t ndefines,
                      const char *home_env, const char *cwd,
                      struct cp_rt_err *e)
{
    struct cp_rt_bind_names names = {.needed = needed,
                                     .nneeded = nneeded,
                                     .known = known,
                                     .nknown = nknown};
    return cp_rt_params_bind_names(out, &names, defines, ndefines, home_env,
                                   cwd, e);
}

int cp_rt_params_bind_names(struct cp_rt_params *out,
                            const struct cp_rt_bind_names *nm,
                            const struct cp_rt_define *defines, size_t ndefines,
                            const char *home_env, const char *cwd,
                            struct cp_rt_err *e)
{
    const char *const *needed = nm->needed, *const *known = nm->known;
    size_t nneeded = nm->nneeded, nknown = nm->nknown;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < ndefines; i++) {
        const char *n = defines[i].name;
        bool builtin = !strcmp(n, "HOME") || !strcmp(n, "PROJECT");
        if (!builtin && !name_in(needed, nneeded, n) &&
            !name_in(known, nknown, n)) {
            cp_rt_params_free(out);
            return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                              "-D %.64s: the policy has no param '%.64s'", n,
                              n);
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(defines[j].name, n)) {
                cp_rt_params_free(out);
                return cp_rt_fail(e, CP_RT_EXIT_ERROR, "-D %.64s given twice",
                                  n);
            }
        int bad = name_in(nm->sockets, nm->nsockets, n)
                      ? param_socket_check(n, defines[i].value, e)
                      : cp_rt_param_check(n, defines[i].value, e);
        if (bad) {
            cp_rt_params_free(out);
            return e->status;
        }
        /* A param the artifact no longer uses (bound when it was built, or
         * used by no rule): checked, then ignored with a note. */
        if (!name_in(needed, nneeded, n))
            note_add(out, n);
        bind_add(out, n, defines[i].value);
    }
    for (size_t j = 0; j < nneeded; j++) {
        const char *n = needed[j];
        if (cp_rt_params_get(out, n))
            continue;
        const char *v = NULL, *from = NULL;
        if (!strcmp(n, "HOME")) {
            v = home_env;
            from = "the environment (HOME)";
        } else if (!strcmp(n, "PROJECT")) {
            v = cwd;
            from = "the current directory";
        }
        if (!v) {
            cp_rt_params_free(out);
            if (!strcmp(n, "HOME"))
                return cp_rt_fail(
                    e, CP_RT_EXIT_ERROR,
                    "param HOME is unbound: HOME is not set; pass -D HOME=DIR");
            return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                              "param %.64s is unbound; pass -D %.64s=DIR", n,
                              n);
        }
        /* Implicit values are canonicalised (a HOME of "/home/u/" or one
         * reached through a symlink names the same directory). */
        char *canon = cp_rt_param_canon(n, v, true, e);
        if (!canon) {
            char tmp[sizeof e->msg];
            snprintf(tmp, sizeof tmp,
                     "%.1800s (taken from %s; pass -D %.64s=DIR)", e->msg, from,
                     n);
            memcpy(e->msg, tmp, sizeof tmp);
            cp_rt_params_free(out);
            return e->status;
        }
        bind_add(out, n, canon);
        free(canon);
    }
    return 0;
}

const char *cp_rt_params_get(const struct cp_rt_params *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->v[i].name, name))
            return p->v[i].value;
    return NULL;
}

void cp_rt_params_free(struct cp_rt_params *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].name);
        free(p->v[i].value);
    }
    free(p->v);
    for (size_t i = 0; i < p->nignored; i++)
        free(p->ignored[i]);
    free(p->ignored);
    memset(p, 0, sizeof *p);
}

/* Does the path of record r, with its root param bound to `value`, cover
 * `top` ("/" or HOME): is `top` at or beneath it? */
static bool rec_covers(const struct cp_rt_rec *r, const char *value,
                       const char *top)
{
    size_t vn = strlen(value), rn = strlen(r->f2);
    char *path = malloc(vn + rn + 2);
    if (!path)
        return true; /* be strict */
    snprintf(path, vn + rn + 2, "%s%s", strcmp(value, "/") || !rn ? value : "",
             r->f2);
    bool c = cp_rt_path_beneath(*path ? path : "/", top);
    free(path);
    return c;
}

int cp_rt_params_sane(const struct cp_rt_artifact *a,
                      const struct cp_rt_params *p,
                      const struct cp_rt_define *defines, size_t ndefines,
                      struct cp_rt_err *e)
{
    const char *home = cp_rt_params_get(p, "HOME");
    for (size_t i = 0; i < a->nrecs; i++) {
        const struct cp_rt_rec *r = &a->recs[i];
        if ((r->tag != CP_RT_T_BIND && r->tag != CP_RT_T_EXEC) || !*r->f1)
            continue;
        bool explicit_ = false;
        for (size_t k = 0; k < ndefines; k++)
            explicit_ |= !strcmp(defines[k].name, r->f1);
        const char *v = cp_rt_params_get(p, r->f1);
        if (explicit_ || !v ||
            (strcmp(r->f1, "PROJECT") && strcmp(r->f1, "HOME")))
            continue;
        const char *what = rec_covers(r, v, "/") ? "the whole file system"
                           : !strcmp(r->f1, "PROJECT") && home &&
                                   rec_covers(r, v, home)
                               ? "HOME"
                               : NULL;
        if (what)
            return cp_rt_fail(
                e, CP_RT_EXIT_ERROR,
                "%s is bound to %s '%s', under which the artifact's '%s %s%s' "
                "covers %s; run it from the directory the policy is meant "
                "for, or pass -D %s=%s to mean it",
                r->f1,
                strcmp(r->f1, "HOME") ? "the current directory"
                                      : "the environment's HOME",
                v, cp_rt_tag_name(r->tag), r->f1, r->f2, what, r->f1, v);
    }
    return 0;
}
