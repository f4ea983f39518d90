/* SPDX-License-Identifier: MIT */
/* Derives bwrap's argv from the artifact's records and the host state, then
 * launches it: the words go through `bwrap --args FD` (a memfd), the
 * command is this runtime's Landlock stage re-executed inside the sandbox,
 * which reports over a status socket whether the command really started.
 * Placeholders for missing deny targets are created and removed by a
 * separate janitor process, so they vanish even when the runtime is
 * SIGKILLed.  See spec/runtime.md for every rule applied here. */
#include "runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "netproxy.h"

extern char **environ;

/* ---- string vectors ------------------------------------------------------ */

void cp_rt_strv_push(struct cp_rt_strv *s, const char *str)
{
    if (s->n + 1 >= s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = cp_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = cp_xstrdup(str);
    s->v[s->n] = NULL;
}

void cp_rt_strv_free(struct cp_rt_strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static void strv_pushf(struct cp_rt_strv *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void strv_pushf(struct cp_rt_strv *s, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cp_rt_strv_push(s, buf);
}

void cp_rt_plan_free(struct cp_rt_plan *pl)
{
    cp_rt_strv_free(&pl->words);
    cp_rt_strv_free(&pl->exec);
    cp_rt_strv_free(&pl->verify_ro);
    cp_rt_strv_free(&pl->placeholders);
    cp_rt_strv_free(&pl->warnings);
    cp_rt_strv_free(&pl->stricter);
    free(pl->proxy_sock);
    pl->proxy_sock = NULL;
}

/* ---- paths ------------------------------------------------------------------ */

/* Is `path` equal to `root` or beneath it?  Both canonical. */
static bool beneath(const char *root, const char *path)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return path[0] == '/';
    return !strncmp(root, path, n) && (path[n] == '\0' || path[n] == '/');
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *root, const char *rest)
{
    size_t a = strlen(root), b = strlen(rest);
    if (a == 1 && root[0] == '/' && b)
        a = 0; /* "/" + "/x" */
    if (a == 0 && b == 0)
        return cp_xstrdup("/");
    char *s = cp_xmalloc(a + b + 1);
    memcpy(s, root, a);
    memcpy(s + a, rest, b + 1);
    return s;
}

/* ---- the mount table bwrap will build, simulated in order ---------------- */

enum mkind {
    MK_RW,    /* writable host bind: creating here writes the host */
    MK_RW_MOVED, /* writable bind of another host path (--bind S D, S != D):
                    a placeholder at D would not be where bwrap looks */
    MK_RO,    /* read-only: nothing can be created beneath */
    MK_TMPFS, /* writable tmpfs: creations stay inside the sandbox */
    MK_MASK,  /* a deny-read mask (read-only, empty): nothing beneath is
                 visible, so a deny target beneath needs no mount */
};

struct mnt {
    char *path;
    enum mkind kind;
};

struct sim {
    struct mnt *v;
    size_t n, cap;
};

static void sim_push(struct sim *s, const char *path, enum mkind k)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = cp_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n].path = cp_xstrdup(path);
    s->v[s->n].kind = k;
    s->n++;
}

/* The mount that covers `path` inside the sandbox: the last one at or
 * above it.  Nothing mounted: bwrap's own root tmpfs. */
static enum mkind sim_kind(const struct sim *s, const char *path)
{
    for (size_t i = s->n; i-- > 0;)
        if (beneath(s->v[i].path, path))
            return s->v[i].kind;
    return MK_TMPFS;
}

static bool sim_is_mount(const struct sim *s, const char *path)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].path, path))
            return true;
    return false;
}

static void sim_free(struct sim *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].path);
    free(s->v);
}

/* bwrap 0.8 options an `arg` record may carry, with their arity.  Options
 * that take file descriptors, nest argument files, add capabilities or
 * join foreign namespaces are refused: they would let an artifact reach
 * outside what the policy describes. */
static const struct {
    const char *opt;
    int nargs;
    bool forbidden;
} bwrap_opts[] = {
    {"--unshare-all", 0, false},     {"--share-net", 0, false},
    {"--unshare-user", 0, false},    {"--unshare-user-try", 0, false},
    {"--unshare-ipc", 0, false},     {"--unshare-pid", 0, false},
    {"--unshare-net", 0, false},     {"--unshare-uts", 0, false},
    {"--unshare-cgroup", 0, false},  {"--unshare-cgroup-try", 0, false},
    {"--uid", 1, false},             {"--gid", 1, false},
    {"--hostname", 1, false},        {"--chdir", 1, false},
    {"--clearenv", 0, false},        {"--setenv", 2, false},
    {"--unsetenv", 1, false},        {"--lock-file", 1, false},
    {"--bind", 2, false},            {"--bind-try", 2, false},
    {"--dev-bind", 2, false},        {"--dev-bind-try", 2, false},
    {"--ro-bind", 2, false},         {"--ro-bind-try", 2, false},
    {"--remount-ro", 1, false},      {"--proc", 1, false},
    {"--dev", 1, false},             {"--tmpfs", 1, false},
    {"--mqueue", 1, false},          {"--dir", 1, false},
    {"--symlink", 2, false},         {"--chmod", 2, false},
    {"--perms", 1, false},           {"--size", 1, false},
    {"--new-session", 0, false},     {"--die-with-parent", 0, false},
    {"--as-pid-1", 0, false},        {"--cap-drop", 1, false},
    {"--disable-userns", 0, false},  {"--assert-userns-disabled", 0, false},
    {"--exec-label", 1, false},      {"--file-label", 1, false},
    {"--args", 1, true},             {"--file", 2, true},
    {"--bind-data", 2, true},        {"--ro-bind-data", 2, true},
    {"--seccomp", 1, true},          {"--add-seccomp-fd", 1, true},
    {"--block-fd", 1, true},         {"--userns-block-fd", 1, true},
    {"--info-fd", 1, true},          {"--json-status-fd", 1, true},
    {"--sync-fd", 1, true},          {"--userns", 1, true},
    {"--userns2", 1, true},          {"--pidns", 1, true},
    {"--cap-add", 1, true},          {"--argv0", 1, true},
    {"--", 0, true},
};

static void sim_apply_opt(struct sim *s, const char *opt, char **av)
{
    if (!strcmp(opt, "--bind") || !strcmp(opt, "--dev-bind") ||
        ((!strcmp(opt, "--bind-try") || !strcmp(opt, "--dev-bind-try")) &&
         access(av[0], F_OK) == 0)) {
        char *src = realpath(av[0], NULL);
        sim_push(s, av[1], src && !strcmp(src, av[1]) ? MK_RW : MK_RW_MOVED);
        free(src);
    } else if (!strcmp(opt, "--ro-bind"))
        sim_push(s, av[1], MK_RO);
    else if (!strcmp(opt, "--ro-bind-try")) {
        if (access(av[0], F_OK) == 0)
            sim_push(s, av[1], MK_RO);
    } else if (!strcmp(opt, "--tmpfs") || !strcmp(opt, "--dev"))
        sim_push(s, av[0], MK_TMPFS);
    else if (!strcmp(opt, "--proc") || !strcmp(opt, "--mqueue"))
        sim_push(s, av[0], MK_RO);
    else if (!strcmp(opt, "--remount-ro")) {
        for (size_t i = s->n; i-- > 0;)
            if (!strcmp(s->v[i].path, av[0])) {
                s->v[i].kind = MK_RO;
                break;
            }
    }
}

/* ---- planning ------------------------------------------------------------- */

struct planner {
    struct cp_rt_plan *pl;
    const struct cp_rt_host *h;
    struct sim sim;
    bool unenforced_ok;
    struct cp_rt_err *e;
};

/* Cannot enforce a record soundly: fail (126) or, with fail open /
 * --allow-unenforced, keep going with a warning. */
static int unenforceable(struct planner *P, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int unenforceable(struct planner *P, const char *fmt, ...)
{
    char buf[1800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (P->unenforced_ok) {
        strv_pushf(&P->pl->warnings, "not enforced: %s", buf);
        return 0;
    }
    return cp_rt_fail(P->e, CP_RT_EXIT_CANNOT, "cannot enforce: %s", buf);
}

/* A symlink among the components of `path` whose own location lies in a
 * writable host bind: the sandbox could replace it.  Returns the first
 * such component (heap) or NULL. */
static char *replaceable_symlink(struct planner *P, const char *path)
{
    char *q = cp_xstrdup(path);
    for (char *s = q + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat st;
        if (lstat(q, &st) == 0 && S_ISLNK(st.st_mode)) {
            char *slash = strrchr(q, '/');
            char *parent = slash == q ? cp_xstrdup("/") : cp_xstrndup(q, (size_t)(slash - q));
            char *rp = realpath(parent, NULL);
            free(parent);
            bool w = rp && sim_kind(&P->sim, rp) == MK_RW;
            free(rp);
            if (w)
                return q; /* truncated at the symlink */
        }
        if (c == '\0')
            break;
        *s = c;
    }
    free(q);
    return NULL;
}

/* Pins every ancestor of `target` that the sandbox could rename: one whose
 * parent lies in a writable host bind and that is not a mount point yet
 * gets a writable self-bind (a mount point cannot be renamed: EBUSY).
 * Without it, renaming an ancestor moves the protected directory away and
 * frees its name, which the sandbox may then create anew.  This runs on
 * the bound paths, so a symbolic artifact bound at launch and an artifact
 * built with the same -D values get the same pins (spec/runtime.md,
 * "Pins").  Called before the target's own mount: a later self-bind of an
 * ancestor would hide it. */
static void pin_ancestors(struct planner *P, const char *target)
{
    char *q = cp_xstrdup(target);
    for (char *s = q + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        char *slash = strrchr(q, '/');
        char *parent = slash == q ? cp_xstrdup("/") : cp_xstrndup(q, (size_t)(slash - q));
        if (sim_kind(&P->sim, parent) == MK_RW && !sim_is_mount(&P->sim, q)) {
            cp_rt_strv_push(&P->pl->words, "--bind");
            cp_rt_strv_push(&P->pl->words, q);
            cp_rt_strv_push(&P->pl->words, q);
            sim_push(&P->sim, q, MK_RW);
        }
        free(parent);
        *s = '/';
    }
    free(q);
}

/* Can the sandbox create the missing `path`: is its nearest existing
 * ancestor covered by a writable host bind? */
static bool creatable(struct planner *P, const char *path)
{
    char *q = cp_xstrdup(path);
    char *real = NULL;
    while (!real) {
        char *slash = strrchr(q, '/');
        if (!slash)
            break;
        if (slash == q)
            slash[1] = '\0';
        else
            *slash = '\0';
        real = realpath(q, NULL);
        if (slash == q)
            break;
    }
    bool w = real && sim_kind(&P->sim, real) == MK_RW;
    free(real);
    free(q);
    return w;
}

/* A deny target (mask: deny read; else deny write).  spec/runtime.md,
 * "Deny targets". */
static int deny_target(struct planner *P, const char *path, bool mask, int depth)
{
    struct cp_rt_plan *pl = P->pl;
    const char *what = mask ? "deny-read target" : "deny-write target";
    char *real = realpath(path, NULL);
    if (real && sim_kind(&P->sim, real) == MK_MASK) {
        free(real); /* beneath a mask: already hidden and read-only */
        return 0;
    }
    if (real) {
        int rc = 0;
        if (strcmp(real, path) && !mask) {
            char *sl = replaceable_symlink(P, path);
            if (sl) {
                rc = unenforceable(P, "%s '%s' passes through the symlink '%s', which lies in a "
                                   "writable directory and could be replaced inside the sandbox; "
                                   "replace the symlink by the directory it points to",
                                   what, path, sl);
                free(sl);
                if (rc) {
                    free(real);
                    return rc;
                }
            }
        }
        struct stat st;
        if (stat(real, &st) < 0) {
            rc = cp_rt_fail(P->e, CP_RT_EXIT_CANNOT, "cannot enforce: %s '%s': %s", what, real,
                            strerror(errno));
            free(real);
            return rc;
        }
        if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
            rc = unenforceable(P, "%s '%s' has %lu hard links; a read-only mount protects one "
                               "name, and another name of the same file may be %s",
                               what, real, (unsigned long)st.st_nlink,
                               mask ? "readable" : "writable");
            if (rc) {
                free(real);
                return rc;
            }
        }
        pin_ancestors(P, real);
        if (mask && S_ISDIR(st.st_mode)) {
            cp_rt_strv_push(&pl->words, "--tmpfs");
            cp_rt_strv_push(&pl->words, real);
            cp_rt_strv_push(&pl->words, "--remount-ro");
            cp_rt_strv_push(&pl->words, real);
        } else if (mask) {
            cp_rt_strv_push(&pl->words, "--ro-bind");
            cp_rt_strv_push(&pl->words, "/dev/null");
            cp_rt_strv_push(&pl->words, real);
        } else {
            cp_rt_strv_push(&pl->words, "--ro-bind");
            cp_rt_strv_push(&pl->words, real);
            cp_rt_strv_push(&pl->words, real);
            if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
                cp_rt_strv_push(&pl->verify_ro, real);
        }
        sim_push(&P->sim, real, mask ? MK_MASK : MK_RO);
        free(real);
        return 0;
    }
    if (errno != ENOENT && errno != ENOTDIR)
        return unenforceable(P, "%s '%s': %s", what, path, strerror(errno));

    /* Missing: find the first missing component C. */
    char *c = cp_xstrdup(path);
    char *s = c + 1;
    for (;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char ch = *s;
        *s = '\0';
        struct stat st;
        if (stat(c, &st) < 0)
            break;
        if (ch == '\0') { /* appeared meanwhile */
            free(c);
            if (depth > 2)
                return cp_rt_fail(P->e, CP_RT_EXIT_CANNOT,
                                  "cannot enforce: %s '%s' keeps changing", what, path);
            return deny_target(P, path, mask, depth + 1);
        }
        *s = ch;
    }
    struct stat lst;
    if (lstat(c, &lst) == 0) {
        int rc = unenforceable(P, "%s '%s': '%s' is a dangling symlink, which the sandbox could "
                               "satisfy by creating its target", what, path, c);
        free(c);
        return rc;
    }
    char *slash = strrchr(c, '/');
    char *parent = slash == c ? cp_xstrdup("/") : cp_xstrndup(c, (size_t)(slash - c));
    char *preal = realpath(parent, NULL);
    free(parent);
    if (!preal) {
        int rc = unenforceable(P, "%s '%s': %s", what, path, strerror(errno));
        free(c);
        return rc;
    }
    char *creal = join(preal, slash);
    free(preal);
    /* The rest of the target below C (empty when C is the target). */
    char *below = cp_xstrdup(path + strlen(c));
    free(c);
    int rc = 0;
    enum mkind ck = sim_kind(&P->sim, creal);
    if (ck == MK_RW && *below && P->h && P->h->make_dir) {
        /* Less collateral: C and the directories down to the target are
         * ordinary directories (removed at exit when still empty), pinned
         * by pin_ancestors; only the target is a read-only placeholder.
         * A missing .git under 'deny write .git/hooks' stays usable. */
        int err = P->h->make_dir(P->h->ctx, creal);
        for (char *q = below + 1; !err && *q; q++) {
            if (*q != '/')
                continue;
            *q = '\0';
            char *d = join(creal, below);
            err = P->h->make_dir(P->h->ctx, d);
            free(d);
            *q = '/';
        }
        if (err == EROFS || err == EACCES || err == EPERM) {
            free(below);
            free(creal);
            return 0; /* not creatable by this user: not by the sandbox either */
        }
        if (err) {
            rc = unenforceable(P, "%s '%s' does not exist and its directories cannot be "
                               "created: %s", what, path, strerror(err));
            free(below);
            free(creal);
            return rc;
        }
        char *full = join(creal, below);
        free(creal);
        creal = full;
    }
    free(below);
    switch (ck) {
    case MK_RO:
    case MK_MASK:
        break; /* cannot be created inside anyway */
    case MK_TMPFS:
        /* bwrap creates the mount point inside the tmpfs, not on the host. */
        cp_rt_strv_push(&pl->words, "--tmpfs");
        cp_rt_strv_push(&pl->words, creal);
        cp_rt_strv_push(&pl->words, "--remount-ro");
        cp_rt_strv_push(&pl->words, creal);
        sim_push(&P->sim, creal, mask ? MK_MASK : MK_RO);
        break;
    case MK_RW: {
        int err = P->h && P->h->make_placeholder ? P->h->make_placeholder(P->h->ctx, creal)
                                                 : ENOSYS;
        if (err == 0) {
            pin_ancestors(P, creal);
            cp_rt_strv_push(&pl->placeholders, creal);
            cp_rt_strv_push(&pl->words, "--ro-bind");
            cp_rt_strv_push(&pl->words, creal);
            cp_rt_strv_push(&pl->words, creal);
            cp_rt_strv_push(&pl->verify_ro, creal);
            sim_push(&P->sim, creal, mask ? MK_MASK : MK_RO);
        } else if (err == EEXIST && depth <= 2) {
            rc = deny_target(P, path, mask, depth + 1);
        } else if (err == EROFS || err == EACCES || err == EPERM) {
            /* Not creatable by this user: not by the sandbox either. */
        } else {
            rc = unenforceable(P, "%s '%s' does not exist and the placeholder '%s' cannot be "
                               "created: %s", what, path, creal, strerror(err));
        }
        break;
    }
    case MK_RW_MOVED:
        rc = unenforceable(P, "%s '%s' does not exist and lies in a writable bind of another "
                           "host directory, where no placeholder can be placed", what, path);
        break;
    }
    free(creal);
    return rc;
}

/* ---- glob expansion (maskglob/roglob, only with build --expand-globs) ---- */

#define GLOB_MAX_MATCHES 2000
#define GLOB_MAX_VISITS 200000

struct gwalk {
    char **segs; /* fnmatch patterns ('[' escaped) or "**" */
    bool *lit;   /* literal segment (already unescaped) */
    size_t nsegs;
    struct cp_rt_strv out;
    size_t visits;
    bool overflow;
};

static bool seg_is_glob(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\') {
            i++;
            continue;
        }
        if (s[i] == '*' || s[i] == '?')
            return true;
    }
    return false;
}

static void gwalk_run(struct gwalk *g, const char *dir, size_t i)
{
    if (g->overflow)
        return;
    if (++g->visits > GLOB_MAX_VISITS || g->out.n >= GLOB_MAX_MATCHES) {
        g->overflow = true;
        return;
    }
    if (i == g->nsegs) {
        cp_rt_strv_push(&g->out, dir);
        return;
    }
    const char *seg = g->segs[i];
    if (g->lit[i]) {
        size_t dl = strlen(dir);
        char *child = cp_xmalloc(dl + strlen(seg) + 2);
        sprintf(child, "%s/%s", dl == 1 ? "" : dir, seg);
        struct stat st;
        if (lstat(child, &st) == 0)
            gwalk_run(g, child, i + 1);
        free(child);
        return;
    }
    bool any = !strcmp(seg, "**");
    if (any) {
        gwalk_run(g, dir, i + 1); /* zero segments */
        if (i + 1 == g->nsegs)
            return;               /* dir covers everything beneath */
    }
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    struct cp_rt_strv names = {0};
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            cp_rt_strv_push(&names, de->d_name);
    closedir(d);
    /* Sorted: the emitted mounts do not depend on directory order. */
    if (names.n > 1) /* names.v is NULL for an empty directory */
        qsort(names.v, names.n, sizeof *names.v, cmp_str);
    for (size_t k = 0; k < names.n && !g->overflow; k++) {
        size_t dl = strlen(dir);
        char *child = cp_xmalloc(dl + strlen(names.v[k]) + 2);
        sprintf(child, "%s/%s", dl == 1 ? "" : dir, names.v[k]);
        if (any) {
            struct stat st;
            if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
                gwalk_run(g, child, i);
        } else if (fnmatch(seg, names.v[k], 0) == 0) {
            gwalk_run(g, child, i + 1);
        }
        free(child);
    }
    cp_rt_strv_free(&names);
}

int cp_rt_glob_matches(const char *root, const char *pat, struct cp_rt_strv *out)
{
    struct gwalk g = {0};
    size_t cap = 8;
    g.segs = cp_xmalloc(cap * sizeof *g.segs);
    g.lit = cp_xmalloc(cap * sizeof *g.lit);
    const char *p = pat;
    while (*p) {
        const char *s = ++p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - s);
        if (g.nsegs == cap) {
            cap *= 2;
            g.segs = cp_xrealloc(g.segs, cap * sizeof *g.segs);
            g.lit = cp_xrealloc(g.lit, cap * sizeof *g.lit);
        }
        char *seg = cp_xmalloc(2 * n + 1), *o = seg;
        bool glob = seg_is_glob(s, n);
        for (size_t i = 0; i < n; i++) {
            if (!glob) { /* unescape */
                if (s[i] == '\\' && i + 1 < n)
                    i++;
                *o++ = s[i];
            } else if (s[i] == '\\' && i + 1 < n) {
                *o++ = s[i++];
                *o++ = s[i];
            } else {
                if (s[i] == '[' || s[i] == ']')
                    *o++ = '\\';
                *o++ = s[i];
            }
        }
        *o = '\0';
        g.lit[g.nsegs] = !glob;
        g.segs[g.nsegs++] = seg;
    }
    gwalk_run(&g, root, 0);
    /* Drop matches beneath an earlier match: the earlier one covers them. */
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < g.out.n; i++) {
        bool covered = false;
        for (size_t j = 0; j < i && !covered; j++)
            covered = beneath(g.out.v[j], g.out.v[i]);
        if (!covered)
            cp_rt_strv_push(out, g.out.v[i]);
    }
    for (size_t i = 0; i < g.nsegs; i++)
        free(g.segs[i]);
    free(g.segs);
    free(g.lit);
    cp_rt_strv_free(&g.out);
    return g.overflow ? -1 : 0; /* out holds the matches found so far */
}

static int expand_glob(struct planner *P, const char *root, const char *pat, bool mask)
{
    struct cp_rt_strv m;
    int rc = 0;
    if (cp_rt_glob_matches(root, pat, &m))
        rc = unenforceable(P, "the glob '%s' under '%s' matches more than %d paths or needs "
                           "more than %d directory visits; use directory-level rules",
                           pat, root, GLOB_MAX_MATCHES, GLOB_MAX_VISITS);
    for (size_t i = 0; !rc && i < m.n; i++)
        rc = deny_target(P, m.v[i], mask, 0);
    cp_rt_strv_free(&m);
    return rc;
}

int cp_rt_plan_build(struct cp_rt_plan *pl, const struct cp_rt_artifact *a,
                     const struct cp_rt_params *p, const struct cp_rt_host *h,
                     bool unenforced_ok, struct cp_rt_err *e)
{
    memset(pl, 0, sizeof *pl);
    struct planner P = {.pl = pl, .h = h, .unenforced_ok = unenforced_ok, .e = e};
    int rc = 0;
    /* Pending bwrap option from `arg` records and its collected values. */
    const char *opt = NULL;
    int need = 0, have = 0;
    char *vals[2] = {NULL, NULL};

    for (size_t i = 0; i < a->nrecs && !rc; i++) {
        const struct cp_rt_rec *r = &a->recs[i];
        if (need > have && r->tag != CP_RT_T_ARG) {
            rc = cp_rt_fail(e, CP_RT_EXIT_ERROR,
                            "invalid artifact: record %zu: bwrap option '%s' lacks %d argument(s)",
                            i + 1, opt, need - have);
            break;
        }
        char *path = NULL;
        if (r->tag >= CP_RT_T_BIND && r->tag <= CP_RT_T_EXEC) {
            const char *root = "/";
            if (*r->f1) {
                root = cp_rt_params_get(p, r->f1);
                if (!root) {
                    rc = cp_rt_fail(e, CP_RT_EXIT_ERROR, "param %s is unbound", r->f1);
                    break;
                }
            }
            path = join(root, r->f2);
        }
        switch (r->tag) {
        case CP_RT_T_HEADER:
        case CP_RT_T_PROFILE:
        case CP_RT_T_FAIL:
        case CP_RT_T_PARAM:
        case CP_RT_T_END:
        case CP_RT_T_NET: /* the proxy's (cp_rt_net_prepare) */
            break;
        case CP_RT_T_ARG:
            cp_rt_strv_push(&pl->words, r->f1);
            if (need > have) {
                vals[have++] = cp_xstrdup(r->f1);
            } else {
                size_t k = 0, nk = sizeof bwrap_opts / sizeof bwrap_opts[0];
                while (k < nk && strcmp(bwrap_opts[k].opt, r->f1))
                    k++;
                if (k == nk || bwrap_opts[k].forbidden) {
                    rc = cp_rt_fail(e, CP_RT_EXIT_ERROR,
                                    "invalid artifact: record %zu: %s bwrap option '%.100s'",
                                    i + 1, k == nk ? "unknown" : "forbidden", r->f1);
                    break;
                }
                opt = bwrap_opts[k].opt;
                need = bwrap_opts[k].nargs;
                have = 0;
            }
            if (have == need && opt) {
                sim_apply_opt(&P.sim, opt, vals);
                free(vals[0]);
                free(vals[1]);
                vals[0] = vals[1] = NULL;
                opt = NULL;
                need = have = 0;
            }
            break;
        case CP_RT_T_BIND:
        case CP_RT_T_PIN:
        case CP_RT_T_PINRO: {
            /* Missing: skipped (nothing to write; the parent's mount holds).
             * pinro: a read-only self-bind placed before the write roots,
             * buried under them but still a mount point (rename: EBUSY). */
            char *real = realpath(path, NULL);
            if (real && r->tag != CP_RT_T_PINRO && strcmp(real, path) != 0) {
                /* A writable bind follows symlinks: binding the target would
                 * make a place writable that the policy never names.  The
                 * path stays read-only (stricter), and we say so. */
                strv_pushf(&pl->stricter,
                           "%s '%s' resolves to '%s' through a symlink: left "
                           "read-only (name '%s' in the policy to allow writes there)",
                           r->tag == CP_RT_T_BIND ? "write root" : "pinned ancestor",
                           path, real, real);
                free(real);
            } else if (real) {
                bool ro = r->tag == CP_RT_T_PINRO;
                cp_rt_strv_push(&pl->words, ro ? "--ro-bind" : "--bind");
                cp_rt_strv_push(&pl->words, real);
                cp_rt_strv_push(&pl->words, real);
                sim_push(&P.sim, real, ro ? MK_RO : MK_RW);
                free(real);
            } else if (errno != ENOENT && errno != ENOTDIR) {
                rc = unenforceable(&P, "%s '%s': %s",
                                   r->tag == CP_RT_T_BIND ? "write root" : "pinned ancestor",
                                   path, strerror(errno));
            } else if (r->tag == CP_RT_T_BIND && !creatable(&P, path)) {
                /* Nothing to bind, and the sandbox cannot create it. */
                strv_pushf(&pl->stricter,
                           "write root '%s' does not exist: writing there is denied (create "
                           "it before the launch)", path);
            }
            break;
        }
        case CP_RT_T_RO:
            rc = deny_target(&P, path, false, 0);
            break;
        case CP_RT_T_MASK:
            rc = deny_target(&P, path, true, 0);
            break;
        case CP_RT_T_MASKGLOB:
        case CP_RT_T_ROGLOB: {
            const char *root = *r->f1 ? cp_rt_params_get(p, r->f1) : "/";
            rc = expand_glob(&P, root, r->f2, r->tag == CP_RT_T_MASKGLOB);
            break;
        }
        case CP_RT_T_EXEC: {
            /* Landlock follows symlinks: an entry that is (or passes
             * through) a symlink would grant its target, a place the policy
             * never names (a planted `node_modules/.bin -> /`).  Like a
             * symlinked write root it grants nothing, and we say so. */
            char *real = realpath(path, NULL);
            if (real && strcmp(real, path)) {
                strv_pushf(&pl->stricter,
                           "exec entry '%s' resolves to '%s' through a symlink: not granted "
                           "(name '%s' in the policy to allow it)", path, real, real);
            } else {
                cp_rt_strv_push(&pl->exec, path);
            }
            free(real);
            break;
        }
        }
        free(path);
    }
    pl->exec_on = a->has_exec;
    if (!rc && need > have)
        rc = cp_rt_fail(e, CP_RT_EXIT_ERROR,
                        "invalid artifact: bwrap option '%s' lacks %d argument(s)", opt,
                        need - have);
    free(vals[0]);
    free(vals[1]);
    sim_free(&P.sim);
    if (rc)
        cp_rt_plan_free(pl);
    return rc;
}

int cp_rt_args_stream(const struct cp_rt_plan *pl, char *const *cmd, size_t ncmd,
                      struct cp_rt_strv *bwrap_words, struct cp_rt_strv *stage_words,
                      struct cp_rt_err *e)
{
    /* Always, whatever the artifact says (bwrap.md §12). */
    static const char *const pre[] = {"--die-with-parent", "--new-session",
                                      "--unshare-user", "--unshare-pid"};
    memset(bwrap_words, 0, sizeof *bwrap_words);
    memset(stage_words, 0, sizeof *stage_words);
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        cp_rt_strv_push(bwrap_words, pre[i]);
    for (size_t i = 0; i < pl->words.n; i++)
        cp_rt_strv_push(bwrap_words, pl->words.v[i]);
    if (pl->exec_on)
        cp_rt_strv_push(stage_words, "--landlock");
    for (size_t i = 0; i < pl->exec.n; i++) {
        cp_rt_strv_push(stage_words, "--exec");
        cp_rt_strv_push(stage_words, pl->exec.v[i]);
    }
    for (size_t i = 0; i < pl->verify_ro.n; i++) {
        cp_rt_strv_push(stage_words, "--verify-ro");
        cp_rt_strv_push(stage_words, pl->verify_ro.v[i]);
    }
    if (pl->proxy_sock) { /* spec/runtime.md, "Network" */
        cp_rt_strv_push(stage_words, "--proxy");
        cp_rt_strv_push(stage_words, pl->proxy_sock);
    }
    if (pl->unix_closed)
        cp_rt_strv_push(stage_words, "--no-unix");
    cp_rt_strv_push(stage_words, "--");
    for (size_t i = 0; i < ncmd; i++)
        cp_rt_strv_push(stage_words, cmd[i]);
    /* bwrap --args FD -- EXE STAGE-ARGV... STATUS ERR ARGS */
    size_t total = bwrap_words->n + 4 + 3 + 3;
    if (total > CP_RT_MAX_BWRAP_ARGS) {
        cp_rt_strv_free(bwrap_words);
        cp_rt_strv_free(stage_words);
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "the policy needs %zu bubblewrap arguments, more than its limit of "
                          "%d; merge rules into directory-level rules", total,
                          CP_RT_MAX_BWRAP_ARGS);
    }
    return 0;
}

/* ---- janitor ----------------------------------------------------------------
 * A child process that creates placeholders on request and removes them
 * when its socket reaches EOF, which happens when the runtime exits for
 * any reason (SIGKILL included).  It ignores terminal signals and lives in
 * its own session so that a Ctrl-C does not take it down with the rest. */

struct janitor {
    pid_t pid;
    int sock;
    struct cp_rt_strv paths;
    dev_t *dev;
    ino_t *ino;
};

static void remove_placeholder(const char *path, dev_t dev, ino_t ino)
{
    for (int tries = 0; tries < 40; tries++) {
        struct stat st;
        if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_dev != dev ||
            st.st_ino != ino)
            return; /* not ours any more: leave it */
        if (rmdir(path) == 0 || errno != EBUSY)
            return;
        usleep(50 * 1000);
    }
}

static _Noreturn void janitor_main(int sock)
{
    struct cp_rt_strv paths = {0};
    dev_t devs[4096];
    ino_t inos[4096];
    int pidfd = -1;
    char buf[PATH_MAX + 16];
    for (;;) {
        ssize_t n = recv(sock, buf, sizeof buf - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        buf[n] = '\0';
        if (buf[0] == 'P') {
            pidfd = (int)syscall(SYS_pidfd_open, (pid_t)atol(buf + 1), 0);
        } else if (buf[0] == 'M' || buf[0] == 'D') {
            int err = 0;
            if (paths.n >= sizeof devs / sizeof devs[0])
                err = EMFILE;
            else if (mkdir(buf + 1, buf[0] == 'M' ? 0555 : 0755) < 0)
                err = errno;
            else {
                struct stat st;
                if (lstat(buf + 1, &st) < 0)
                    err = errno;
                else {
                    devs[paths.n] = st.st_dev;
                    inos[paths.n] = st.st_ino;
                    cp_rt_strv_push(&paths, buf + 1);
                }
            }
            if (send(sock, &err, sizeof err, MSG_NOSIGNAL) < 0)
                break;
        }
    }
    /* The runtime is gone.  If it did not wait for bwrap (it was killed),
     * give the sandbox a moment to die with it (--die-with-parent). */
    if (pidfd >= 0) {
        struct pollfd pf = {.fd = pidfd, .events = POLLIN};
        poll(&pf, 1, 5000);
    }
    for (size_t i = paths.n; i-- > 0;)
        remove_placeholder(paths.v[i], devs[i], inos[i]);
    _exit(0);
}

static int janitor_start(struct janitor *j, struct cp_rt_err *e)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "socketpair: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        setsid();
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        signal(SIGQUIT, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        sigset_t all;
        sigemptyset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        for (int fd = 3; fd < 4096; fd++)
            if (fd != sv[1])
                close(fd);
        janitor_main(sv[1]);
    }
    close(sv[1]);
    j->pid = pid;
    j->sock = sv[0];
    return 0;
}

static int janitor_req(void *ctx, const char *path, char mode);

static int janitor_make(void *ctx, const char *path)
{
    return janitor_req(ctx, path, 'M');
}

static int janitor_make_dir(void *ctx, const char *path)
{
    return janitor_req(ctx, path, 'D');
}

/* mode 'M': a placeholder (0555), 'D': an ordinary directory (0755); both
 * removed at exit when still empty. */
static int janitor_req(void *ctx, const char *path, char mode)
{
    struct janitor *j = ctx;
    struct cp_rt_err e;
    if (j->pid <= 0 && janitor_start(j, &e))
        return EAGAIN;
    size_t n = strlen(path);
    if (n >= PATH_MAX)
        return ENAMETOOLONG;
    char *msg = cp_xmalloc(n + 2);
    msg[0] = mode;
    memcpy(msg + 1, path, n + 1);
    ssize_t w = send(j->sock, msg, n + 1, MSG_NOSIGNAL);
    free(msg);
    int err = EIO;
    if (w < 0 || recv(j->sock, &err, sizeof err, 0) != (ssize_t)sizeof err)
        return EIO;
    if (err == 0) {
        struct stat st;
        if (lstat(path, &st) < 0)
            return errno;
        size_t k = j->paths.n;
        j->dev = cp_xrealloc(j->dev, (k + 1) * sizeof *j->dev);
        j->ino = cp_xrealloc(j->ino, (k + 1) * sizeof *j->ino);
        j->dev[k] = st.st_dev;
        j->ino[k] = st.st_ino;
        cp_rt_strv_push(&j->paths, path);
    }
    return err;
}

static void janitor_tell_pid(struct janitor *j, pid_t pid)
{
    if (j->pid <= 0)
        return;
    char buf[32];
    int n = snprintf(buf, sizeof buf, "P%ld", (long)pid);
    send(j->sock, buf, (size_t)n, MSG_NOSIGNAL);
}

/* Normal end: close the socket (the janitor removes), wait for it, and
 * remove anything left ourselves in case the janitor was killed. */
static void janitor_finish(struct janitor *j)
{
    if (j->pid > 0) {
        close(j->sock);
        while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        for (size_t i = j->paths.n; i-- > 0;)
            remove_placeholder(j->paths.v[i], j->dev[i], j->ino[i]);
    }
    cp_rt_strv_free(&j->paths);
    free(j->dev);
    free(j->ino);
    memset(j, 0, sizeof *j);
}

/* ---- launching ------------------------------------------------------------- */

static void warn(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(const char *prog, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: warning: %s\n", prog, buf);
}

static int fail_msg(const char *prog, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_msg(const char *prog, int status, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", prog, buf);
    return status;
}

int cp_rt_exec_unconfined(const char *prog, char *const *cmd)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    fflush(NULL);
    execvp(cmd[0], cmd);
    int err = errno;
    if (err == ENOENT)
        return fail_msg(prog, CP_RT_EXIT_NOTFOUND, "%s: command not found", cmd[0]);
    return fail_msg(prog, CP_RT_EXIT_CANNOT, "cannot execute %s: %s", cmd[0], strerror(err));
}

bool cp_rt_bwrap_ns_failure(const char *t)
{
    return strstr(t, "setting up uid map: Permission denied") || strstr(t, "RTM_NEWADDR") ||
           strstr(t, "Creating new namespace failed") ||
           strstr(t, "No permissions to create new namespace") ||
           strstr(t, "Failed to make / slave"); /* a container without mount rights */
}

const char *cp_rt_bwrap_hint(const char *t)
{
    if (strstr(t, "setting up uid map: Permission denied") || strstr(t, "RTM_NEWADDR"))
        return "the host restricts unprivileged user namespaces (Ubuntu 23.10+ AppArmor: "
               "kernel.apparmor_restrict_unprivileged_userns=1). Fix, most targeted first: "
               "install the bwrap-userns-restrict AppArmor profile (package apparmor on 25.04, "
               "apparmor-profiles extra-profiles on 24.04), or add a local AppArmor profile for "
               "/usr/bin/bwrap granting 'userns,', or set the sysctl to 0";
    if (strstr(t, "Creating new namespace failed") || strstr(t, "No permissions to create new namespace"))
        return "user namespaces are disabled or blocked here (sysctl user.max_user_namespaces=0 "
               "or kernel.unprivileged_userns_clone=0, or a container's seccomp profile). Enable "
               "them, or run in a container started with a permissive seccomp profile";
    if (strstr(t, "Can't find source path") || strstr(t, "Can't get type of source"))
        return "a path changed between planning and the start of bwrap; run again";
    if (strstr(t, "Exceeded maximum number of arguments"))
        return "the policy needs more bwrap arguments than bubblewrap allows; merge rules";
    return NULL;
}

char *cp_rt_find_bwrap(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = cp_xstrdup(path), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        if (d[0] != '/')
            continue; /* never a relative PATH entry */
        char *f = cp_xmalloc(strlen(d) + 7);
        sprintf(f, "%s/bwrap", d);
        if (access(f, X_OK) == 0) {
            free(copy);
            return f;
        }
        free(f);
    }
    free(copy);
    return NULL;
}

int cp_rt_check(FILE *out)
{
    int rc = 0;
    bool ns_ok = false;
    char *bwrap = cp_rt_find_bwrap();
    if (!bwrap) {
        fputs("bwrap: not found on PATH (install bubblewrap)\n", out);
        rc = CP_RT_EXIT_CANNOT;
    } else {
        fprintf(out, "bwrap: %s\n", bwrap);
        /* A minimal sandbox: user, pid and network namespaces. */
        char text[4096];
        if (cp_rt_bwrap_probe(bwrap, text, sizeof text) == 0) {
            fputs("user namespaces: usable by bwrap\n", out);
            ns_ok = true;
        } else {
            const char *hint = cp_rt_bwrap_hint(text);
            fprintf(out, "user namespaces: bwrap cannot create its sandbox: %s%s%s\n", text,
                    hint ? "; " : "", hint ? hint : "");
            rc = CP_RT_EXIT_CANNOT;
        }
        free(bwrap);
    }
    struct cp_ll_features f;
    cp_ll_probe(&f);
    char ft[256];
    cp_ll_features_text(&f, ft, sizeof ft);
    if (f.abi >= 1)
        fprintf(out, "landlock: %s (exec allow-lists are enforced; --enforcer landlock is "
                "usable)\n", ft);
    else {
        fprintf(out, "landlock: %s: policies with exec rules are refused\n", ft);
        rc = rc ? rc : CP_RT_EXIT_CANNOT;
    }
    fprintf(out, "enforcer auto: %s\n", ns_ok ? "bwrap" : f.abi >= 1 ? "landlock" : "none");
    return rc;
}

/* Status messages from inside: 'S' (stage started; credentials carry its
 * pid), 'E' CODE ' ' MESSAGE (could not enforce), 'X' CODE ' ' MESSAGE (the
 * command could not be executed), 'B' ERRNO (the forked child could not
 * exec bwrap). */
struct status {
    bool started;
    pid_t cmd_pid;
    int code;         /* from 'E' or 'X' */
    bool cmd_failed;  /* 'X' */
    char msg[1024];
    int bwrap_errno;  /* from 'B' */
    bool eof;
};

static void status_read(int fd, struct status *s)
{
    for (;;) {
        char buf[1100];
        union {
            struct cmsghdr h;
            char b[CMSG_SPACE(sizeof(struct ucred))];
        } cm;
        struct iovec iov = {buf, sizeof buf - 1};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &cm,
                            .msg_controllen = sizeof cm};
        ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
        if (n == 0) {
            s->eof = true;
            return;
        }
        buf[n] = '\0';
        if (buf[0] == 'S') {
            s->started = true;
            for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
                    struct ucred uc;
                    memcpy(&uc, CMSG_DATA(c), sizeof uc);
                    s->cmd_pid = uc.pid;
                }
        } else if (buf[0] == 'E' || buf[0] == 'X') {
            char *sp = strchr(buf, ' ');
            s->code = atoi(buf + 1);
            s->cmd_failed = buf[0] == 'X';
            if (s->code != CP_RT_EXIT_NOTFOUND && s->code != CP_RT_EXIT_ERROR)
                s->code = CP_RT_EXIT_CANNOT;
            snprintf(s->msg, sizeof s->msg, "%s", sp ? sp + 1 : "the stage failed");
        } else if (buf[0] == 'B') {
            s->bwrap_errno = atoi(buf + 1);
            if (!s->bwrap_errno)
                s->bwrap_errno = EIO;
        }
    }
}

static int make_memfd(const struct cp_rt_strv *words, struct cp_rt_err *e)
{
    int fd = memfd_create("confpol-bwrap-args", MFD_CLOEXEC);
    if (fd < 0)
        return -cp_rt_fail(e, CP_RT_EXIT_ERROR, "memfd_create: %s", strerror(errno));
    /* One buffer, one write: a write per word was a system call per word. */
    size_t total = 0;
    for (size_t i = 0; i < words->n; i++)
        total += strlen(words->v[i]) + 1; /* with its NUL */
    char *buf = cp_xmalloc(total ? total : 1), *p = buf;
    for (size_t i = 0; i < words->n; i++) {
        size_t n = strlen(words->v[i]) + 1;
        memcpy(p, words->v[i], n);
        p += n;
    }
    for (size_t off = 0; off < total;) {
        ssize_t w = write(fd, buf + off, total - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            free(buf);
            close(fd);
            return -cp_rt_fail(e, CP_RT_EXIT_ERROR, "writing the bwrap arguments: %s",
                               strerror(errno));
        }
        off += (size_t)w;
    }
    free(buf);
    if (lseek(fd, 0, SEEK_SET) < 0) {
        close(fd);
        return -cp_rt_fail(e, CP_RT_EXIT_ERROR, "lseek: %s", strerror(errno));
    }
    return fd;
}

/* cmd_pidfd: -1 with cmd_gone when the command already exited (its pid may
 * be reused: never signal it by number then); -1 without cmd_gone when the
 * kernel lacks pidfd_open (before 5.3): signal by pid. */
static void forward_signal(int sig, pid_t cmd_pid, int cmd_pidfd, bool cmd_gone,
                           pid_t bwrap_pid)
{
    if (cmd_pidfd >= 0) {
        syscall(SYS_pidfd_send_signal, cmd_pidfd, sig, NULL, 0);
        return;
    }
    if (cmd_gone)
        return; /* bwrap is about to exit with the command's status */
    if (cmd_pid > 0) {
        kill(cmd_pid, sig);
        return;
    }
    /* The command has not started: stop the whole setup. */
    kill(bwrap_pid, sig);
}

/* What the bwrap child needs; all of it prepared by the parent. */
struct bwrap_spawn {
    pid_t parent;
    const sigset_t *oldmask;
    int err_fd;     /* becomes the child's stderr */
    int inherit[4]; /* lose close-on-exec: bwrap and the stage need them */
    int status_fd;  /* 'B' ERRNO when bwrap cannot be executed */
    const char *bwrap;
    char *const *argv;
};

/* The child between vfork and execve: it runs on the parent's memory (the
 * parent is suspended until the exec), so it only makes system calls on
 * its own process state and writes nothing but its stack. */
static _Noreturn void bwrap_child(const struct bwrap_spawn *s)
{
    /* bwrap dies with us; terminal signals reach only the runtime, which
     * forwards them to the command. */
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != s->parent)
        _exit(CP_RT_EXIT_ERROR);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    sigprocmask(SIG_SETMASK, s->oldmask, NULL);
    bool ok = dup2(s->err_fd, 2) >= 0;
    for (int i = 0; ok && i < 4; i++)
        ok = fcntl(s->inherit[i], F_SETFD, 0) >= 0;
    if (ok)
        execve(s->bwrap, s->argv, environ);
    char b[32];
    int m = snprintf(b, sizeof b, "B%d", errno);
    send(s->status_fd, b, (size_t)m, MSG_NOSIGNAL);
    _exit(CP_RT_EXIT_CANNOT);
}

/* vfork, not fork: no copy of the page tables and no copy-on-write faults
 * afterwards, which on a small VM cost more than the exec itself.  Kept
 * out of line so that no caller variable lives across the vfork. */
static __attribute__((noinline)) pid_t spawn_bwrap(const struct bwrap_spawn *s)
{
    pid_t pid = vfork();
    if (pid == 0)
        bwrap_child(s);
    return pid;
}

/* --enforcer auto kept bwrap: said once, as the fall-back to Landlock is
 * (spec/runtime.md 12.1), when the command has started, so that a launch
 * that falls back says only the Landlock line. */
static void auto_chose_bwrap(const struct cp_rt_launch *l)
{
    fprintf(stderr, "%s: enforcer: bwrap (auto: bwrap can create its namespaces); "
                    "mounts and namespaces as build --fidelity rates the bwrap target\n",
            l->prog);
}

int cp_rt_run_bwrap(const struct cp_rt_artifact *a, const struct cp_rt_params *p,
                    const struct cp_rt_launch *l)
{
    const char *prog = l->prog;
    bool open_ok = a->fail_open || l->allow_unenforced;
    const char *open_why = l->allow_unenforced ? "--allow-unenforced" : "'fail open' in the policy";
    struct cp_rt_err e = {0};
    bool enforce_exec = a->has_exec;

    if (a->has_exec) {
        int abi = cp_rt_landlock_abi();
        if (abi < 1) {
            const char *why = abi == -EOPNOTSUPP ? "Landlock is built but not enabled at boot "
                                                   "(add 'landlock' to the lsm= boot parameter)"
                                                 : "the kernel does not offer Landlock (kernel "
                                                   "< 5.13, CONFIG_SECURITY_LANDLOCK off, or a "
                                                   "seccomp filter such as a container's hides "
                                                   "the landlock_* system calls)";
            if (!open_ok)
                return fail_msg(prog, CP_RT_EXIT_CANNOT,
                                "cannot enforce the exec allow-list: %s; refusing to run (use "
                                "--allow-unenforced to run without it)", why);
            warn(prog, "exec allow-list NOT enforced: %s (%s)", why, open_why);
            enforce_exec = false;
        }
    }

    char *bwrap = cp_rt_find_bwrap();
    if (!bwrap && l->fallback_why) { /* --enforcer auto: Landlock instead */
        snprintf(l->fallback_why, l->fallback_why_size, "bubblewrap (bwrap) is not installed");
        return CP_RT_FALLBACK;
    }
    if (!bwrap) {
        if (!open_ok)
            return fail_msg(prog, CP_RT_EXIT_CANNOT,
                            "cannot enforce the policy: bubblewrap (bwrap) is not installed; "
                            "install it (e.g. apt-get install bubblewrap) or use "
                            "--allow-unenforced to run unconfined");
        warn(prog, "bubblewrap (bwrap) is not installed: running %s UNCONFINED (%s)", l->cmd[0],
             open_why);
        return cp_rt_exec_unconfined(prog, l->cmd);
    }

    struct janitor jan = {0};
    struct cp_rt_host host = {.make_placeholder = janitor_make, .make_dir = janitor_make_dir,
                              .ctx = &jan};
    struct cp_rt_plan pl;
    if (cp_rt_plan_build(&pl, a, p, &host, open_ok, &e)) {
        janitor_finish(&jan);
        free(bwrap);
        return fail_msg(prog, e.status, "%s%s", e.msg,
                        e.status == CP_RT_EXIT_CANNOT ? "; refusing to run (use "
                                                        "--allow-unenforced to run anyway)" : "");
    }
    for (size_t i = 0; i < pl.stricter.n; i++)
        warn(prog, "%s", pl.stricter.v[i]);
    if (enforce_exec)
        warn(prog, "the exec allow-list is not fully enforced: Landlock checks execve only, and "
             "the ELF loader and the PT_INTERP interpreters of allowed binaries are granted, so "
             "a readable binary outside the list runs through the loader "
             "('ld.so /usr/bin/id'); see spec/threat-model.md");
    for (size_t i = 0; i < pl.warnings.n; i++)
        warn(prog, "%s (%s)", pl.warnings.v[i], open_why);
    if (!enforce_exec) {
        cp_rt_strv_free(&pl.exec);
        pl.exec_on = false;
    }
    struct cp_rt_proxy proxy;
    if (cp_rt_net_prepare(a, &pl, prog, &proxy, &e)) {
        janitor_finish(&jan);
        cp_rt_plan_free(&pl);
        free(bwrap);
        return fail_msg(prog, e.status, "%s", e.msg);
    }

    /* Descriptors inherited by bwrap and, through it, by the stage. */
    int st[2] = {-1, -1}, ep[2] = {-1, -1};
    int orig_err = -1, args_fd = -1, stage_fd = -1, sigfd = -1;
    int status = CP_RT_EXIT_ERROR;
    struct cp_rt_strv words = {0}, swords = {0};
    sigset_t mask, oldmask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    sigaddset(&mask, SIGCHLD);
    sigprocmask(SIG_BLOCK, &mask, &oldmask);

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, st) < 0 ||
        pipe2(ep, O_CLOEXEC) < 0 || (orig_err = fcntl(2, F_DUPFD_CLOEXEC, 3)) < 0) {
        status = fail_msg(prog, CP_RT_EXIT_ERROR, "cannot set up the launch: %s", strerror(errno));
        goto out;
    }
    int one = 1;
    setsockopt(st[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    if (cp_rt_args_stream(&pl, l->cmd, l->ncmd, &words, &swords, &e)) {
        status = fail_msg(prog, e.status, "%s", e.msg);
        goto out;
    }
    args_fd = make_memfd(&words, &e);
    if (args_fd >= 0)
        stage_fd = make_memfd(&swords, &e);
    if (args_fd < 0 || stage_fd < 0) {
        status = fail_msg(prog, e.status, "%s", e.msg);
        goto out;
    }
    sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sigfd < 0) {
        status = fail_msg(prog, CP_RT_EXIT_ERROR, "signalfd: %s", strerror(errno));
        goto out;
    }

    /* bwrap --args FD -- EXE STAGE-ARGV... STATUS ERR ARGS, built before
     * the child exists: it shares our memory until it execs. */
    char fds[4][16];
    snprintf(fds[0], sizeof fds[0], "%d", args_fd);
    snprintf(fds[1], sizeof fds[1], "%d", st[1]);
    snprintf(fds[2], sizeof fds[2], "%d", orig_err);
    snprintf(fds[3], sizeof fds[3], "%d", stage_fd);
    const char *bargv[16];
    size_t nb = 0;
    bargv[nb++] = "bwrap";
    bargv[nb++] = "--args";
    bargv[nb++] = fds[0];
    bargv[nb++] = "--";
    bargv[nb++] = l->stage.exe;
    for (size_t k = 0; k < l->stage.nargv && k < 8; k++)
        bargv[nb++] = l->stage.argv[k];
    bargv[nb++] = fds[1];
    bargv[nb++] = fds[2];
    bargv[nb++] = fds[3];
    bargv[nb] = NULL;
    struct bwrap_spawn sp = {
        .parent = getpid(), .oldmask = &oldmask, .err_fd = ep[1],
        .inherit = {args_fd, stage_fd, st[1], orig_err}, .status_fd = st[1],
        .bwrap = bwrap, .argv = (char *const *)bargv,
    };
    fflush(NULL);
    pid_t child = spawn_bwrap(&sp);
    if (child < 0) {
        status = fail_msg(prog, CP_RT_EXIT_ERROR, "fork: %s", strerror(errno));
        goto out;
    }
    janitor_tell_pid(&jan, child);
    close(st[1]);
    st[1] = -1;
    close(ep[1]);
    ep[1] = -1;
    close(args_fd);
    args_fd = -1;
    close(stage_fd);
    stage_fd = -1;

    /* Supervise: relay bwrap's stderr, read the stage status, forward
     * signals, until bwrap exits. */
    struct status ss = {0};
    char errtext[8192];
    size_t errlen = 0;
    int wstatus = 0, got_signal = 0, cmd_pidfd = -1;
    bool reaped = false, ep_open = true, cmd_gone = false;
    while (!reaped) {
        struct pollfd pf[3] = {{.fd = sigfd, .events = POLLIN},
                               {.fd = ss.eof ? -1 : st[0], .events = POLLIN},
                               {.fd = ep_open ? ep[0] : -1, .events = POLLIN}};
        if (poll(pf, 3, -1) < 0 && errno != EINTR)
            break;
        if (pf[1].revents) {
            bool was = ss.started;
            status_read(st[0], &ss);
            if (!was && ss.started && l->fallback_why && !l->quiet)
                auto_chose_bwrap(l);
            if (!was && ss.started && l->fallback_why && errlen &&
                write(2, errtext, errlen) < 0) { /* what was held: the command started */
            }
            if (!was && ss.started && ss.cmd_pid > 0) {
                cmd_pidfd = (int)syscall(SYS_pidfd_open, ss.cmd_pid, 0);
                cmd_gone = cmd_pidfd < 0 && errno == ESRCH;
            }
        }
        if (pf[2].revents) {
            char b[4096];
            ssize_t n = read(ep[0], b, sizeof b);
            if (n > 0) {
                /* Under --enforcer auto, held until the command started:
                 * a namespace failure falls back silently to Landlock. */
                bool hold = l->fallback_why && !ss.started;
                if (!hold && write(2, b, (size_t)n) < 0) { /* stderr gone: keep going */
                }
                size_t k = (size_t)n < sizeof errtext - 1 - errlen ? (size_t)n
                                                                  : sizeof errtext - 1 - errlen;
                memcpy(errtext + errlen, b, k);
                errlen += k;
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                ep_open = false;
            }
        }
        struct signalfd_siginfo si;
        while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
            int sig = (int)si.ssi_signo;
            if (sig == SIGCHLD) {
                pid_t w = waitpid(child, &wstatus, WNOHANG);
                if (w == child)
                    reaped = true;
            } else {
                if (!ss.started)
                    got_signal = sig;
                forward_signal(sig, ss.cmd_pid, cmd_pidfd, cmd_gone, child);
            }
        }
        if (!reaped && waitpid(child, &wstatus, WNOHANG) == child)
            reaped = true;
    }
    if (!reaped)
        while (waitpid(child, &wstatus, 0) < 0 && errno == EINTR)
            ;
    /* Everything the sandbox wrote before it ended is buffered: drain. */
    status_read(st[0], &ss);
    for (;;) {
        char b[4096];
        int fl = fcntl(ep[0], F_GETFL);
        fcntl(ep[0], F_SETFL, fl | O_NONBLOCK);
        ssize_t n = read(ep[0], b, sizeof b);
        if (n <= 0)
            break;
        if ((!l->fallback_why || ss.started) && write(2, b, (size_t)n) < 0) {
        }
        size_t k = (size_t)n < sizeof errtext - 1 - errlen ? (size_t)n : sizeof errtext - 1 - errlen;
        memcpy(errtext + errlen, b, k);
        errlen += k;
    }
    errtext[errlen] = '\0';
    if (cmd_pidfd >= 0)
        close(cmd_pidfd);

    int bwrap_status = WIFEXITED(wstatus)  ? WEXITSTATUS(wstatus)
                       : WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus)
                                              : CP_RT_EXIT_ERROR;
    const char *unconf_why = NULL;
    char reason[1400];
    if (ss.bwrap_errno) {
        snprintf(reason, sizeof reason, "cannot execute %s: %s", bwrap, strerror(ss.bwrap_errno));
        unconf_why = reason;
    } else if (ss.code) {
        if (ss.cmd_failed || ss.code == CP_RT_EXIT_ERROR) {
            status = fail_msg(prog, ss.code, "%s", ss.msg);
            goto out;
        }
        snprintf(reason, sizeof reason, "%s", ss.msg);
        unconf_why = reason;
    } else if (ss.started) {
        status = bwrap_status; /* the command's own status */
        goto out;
    } else if (got_signal) {
        status = 128 + got_signal;
        goto out;
    } else {
        if (l->fallback_why && cp_rt_bwrap_ns_failure(errtext)) {
            snprintf(l->fallback_why, l->fallback_why_size, "bwrap cannot create its "
                     "namespaces here (%.200s)", strtok(errtext, "\n"));
            status = CP_RT_FALLBACK;
            goto out;
        }
        if (l->fallback_why && errlen && write(2, errtext, errlen) < 0) {
        }
        const char *hint = cp_rt_bwrap_hint(errtext);
        snprintf(reason, sizeof reason,
                 "bwrap failed before the command started (exit %d)%s%s", bwrap_status,
                 hint ? ": " : "", hint ? hint : "");
        unconf_why = reason;
    }
    if (!open_ok) {
        status = fail_msg(prog, CP_RT_EXIT_CANNOT, "cannot enforce the policy: %s; refusing to "
                          "run (use --allow-unenforced to run unconfined)", unconf_why);
        goto out;
    }
    warn(prog, "cannot enforce the policy (%s): running %s UNCONFINED (%s)", unconf_why,
         l->cmd[0], open_why);
    close(sigfd);
    sigfd = -1;
    cp_rt_proxy_stop(&proxy, true);
    janitor_finish(&jan);
    cp_rt_plan_free(&pl);
    cp_rt_strv_free(&words);
    cp_rt_strv_free(&swords);
    free(bwrap);
    close(st[0]);
    close(ep[0]);
    close(orig_err);
    return cp_rt_exec_unconfined(prog, l->cmd);

out:
    for (int i = 0; i < 2; i++) {
        if (st[i] >= 0)
            close(st[i]);
        if (ep[i] >= 0)
            close(ep[i]);
    }
    if (orig_err >= 0)
        close(orig_err);
    if (args_fd >= 0)
        close(args_fd);
    if (stage_fd >= 0)
        close(stage_fd);
    if (sigfd >= 0)
        close(sigfd);
    cp_rt_proxy_stop(&proxy, false); /* we exit next: no need to reap it */
    janitor_finish(&jan);
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    cp_rt_plan_free(&pl);
    cp_rt_strv_free(&words);
    cp_rt_strv_free(&swords);
    free(bwrap);
    return status;
}
