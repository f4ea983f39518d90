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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libc_compat.h"

#include "arena.h"
#include "netproxy.h"

extern char **environ;

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
    cp_rt_strv_free(&pl->verify_mount);
    free(pl->ids);
    pl->ids = NULL;
    pl->nids = pl->capids = 0;
    cp_rt_strv_free(&pl->placeholders);
    cp_rt_strv_free(&pl->warnings);
    cp_rt_strv_free(&pl->stricter);
    cp_rt_strv_free(&pl->sockets);
    free(pl->proxy_sock);
    pl->proxy_sock = NULL;
}

/* ---- paths ------------------------------------------------------------------ */

bool cp_rt_path_beneath(const char *root, const char *path)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return path[0] == '/';
    return !strncmp(root, path, n) && (path[n] == '\0' || path[n] == '/');
}

/* ---- the mount table bwrap will build, simulated in order ---------------- */

enum mkind {
    MK_RW,       /* writable host bind: creating here writes the host */
    MK_RW_MOVED, /* writable bind of another host path (--bind S D, S != D):
                    a placeholder at D would not be where bwrap looks */
    MK_RO,       /* read-only: nothing can be created beneath */
    MK_TMPFS,    /* writable tmpfs: creations stay inside the sandbox */
    MK_MASK,     /* a deny-read mask (read-only, empty): nothing beneath is
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
        if (cp_rt_path_beneath(s->v[i].path, path))
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
    bool mounts; /* places a mount at its last value */
} bwrap_opts[] = {
    {"--unshare-all", 0, false, false},
    {"--share-net", 0, false, false},
    {"--unshare-user", 0, false, false},
    {"--unshare-user-try", 0, false, false},
    {"--unshare-ipc", 0, false, false},
    {"--unshare-pid", 0, false, false},
    {"--unshare-net", 0, false, false},
    {"--unshare-uts", 0, false, false},
    {"--unshare-cgroup", 0, false, false},
    {"--unshare-cgroup-try", 0, false, false},
    {"--uid", 1, false, false},
    {"--gid", 1, false, false},
    {"--hostname", 1, false, false},
    {"--chdir", 1, false, false},
    {"--clearenv", 0, false, false},
    {"--setenv", 2, false, false},
    {"--unsetenv", 1, false, false},
    {"--lock-file", 1, false, false},
    {"--bind", 2, false, true},
    {"--bind-try", 2, false, true},
    {"--dev-bind", 2, false, true},
    {"--dev-bind-try", 2, false, true},
    {"--ro-bind", 2, false, true},
    {"--ro-bind-try", 2, false, true},
    {"--remount-ro", 1, false, false},
    {"--proc", 1, false, true},
    {"--dev", 1, false, true},
    {"--tmpfs", 1, false, true},
    {"--mqueue", 1, false, true},
    {"--dir", 1, false, false},
    {"--symlink", 2, false, false},
    {"--chmod", 2, false, false},
    {"--perms", 1, false, false},
    {"--size", 1, false, false},
    {"--new-session", 0, false, false},
    {"--die-with-parent", 0, false, false},
    {"--as-pid-1", 0, false, false},
    {"--cap-drop", 1, false, false},
    {"--disable-userns", 0, false, false},
    {"--assert-userns-disabled", 0, false, false},
    {"--exec-label", 1, false, false},
    {"--file-label", 1, false, false},
    {"--args", 1, true, false},
    {"--file", 2, true, false},
    {"--bind-data", 2, true, false},
    {"--ro-bind-data", 2, true, false},
    {"--seccomp", 1, true, false},
    {"--add-seccomp-fd", 1, true, false},
    {"--block-fd", 1, true, false},
    {"--userns-block-fd", 1, true, false},
    {"--info-fd", 1, true, false},
    {"--json-status-fd", 1, true, false},
    {"--sync-fd", 1, true, false},
    {"--userns", 1, true, false},
    {"--userns2", 1, true, false},
    {"--pidns", 1, true, false},
    {"--cap-add", 1, true, false},
    {"--argv0", 1, true, false},
    {"--", 0, true, false},
};

bool cp_rt_bwrap_mounts(const char *opt)
{
    for (size_t k = 0; k < sizeof bwrap_opts / sizeof bwrap_opts[0]; k++)
        if (!strcmp(bwrap_opts[k].opt, opt))
            return bwrap_opts[k].mounts;
    return false;
}

int cp_rt_bwrap_nargs(const char *opt)
{
    for (size_t k = 0; k < sizeof bwrap_opts / sizeof bwrap_opts[0]; k++)
        if (!strcmp(bwrap_opts[k].opt, opt))
            return bwrap_opts[k].nargs;
    return -1;
}

/* An option with two values (binds; the others change no mount). */
static void sim_apply_bind(struct sim *s, const char *opt, const char *src,
                           const char *dst)
{
    if (!strcmp(opt, "--bind") || !strcmp(opt, "--dev-bind") ||
        ((!strcmp(opt, "--bind-try") || !strcmp(opt, "--dev-bind-try")) &&
         access(src, F_OK) == 0)) {
        char *real = cp_rt_walk_real(src);
        sim_push(s, dst, real && !strcmp(real, dst) ? MK_RW : MK_RW_MOVED);
        free(real);
    } else if (!strcmp(opt, "--ro-bind"))
        sim_push(s, dst, MK_RO);
    else if (!strcmp(opt, "--ro-bind-try")) {
        if (access(src, F_OK) == 0)
            sim_push(s, dst, MK_RO);
    }
}

/* What a bwrap option does to the mount model; av: its values, NULL past
 * them. */
static void sim_apply_opt(struct sim *s, const char *opt, char **av)
{
    if (!av[0])
        return; /* a flag: no mount */
    if (av[1]) {
        sim_apply_bind(s, opt, av[0], av[1]);
        return;
    }
    if (!strcmp(opt, "--tmpfs") || !strcmp(opt, "--dev"))
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
    cp_rt_vfmt(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (P->unenforced_ok) {
        strv_pushf(&P->pl->warnings, "not enforced: %s", buf);
        return 0;
    }
    return cp_rt_fail(P->e, CP_RT_EXIT_CANNOT, "cannot enforce: %s", buf);
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
        char *parent = slash == q ? cp_xstrdup("/")
                                  : cp_xstrndup(q, (size_t)(slash - q));
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
        real = cp_rt_walk_real(q);
        if (slash == q)
            break;
    }
    bool w = real && sim_kind(&P->sim, real) == MK_RW;
    free(real);
    free(q);
    return w;
}

/* Creates the host placeholder for a missing deny target: an empty file
 * (mode 0444) for a deny-read target itself, else an empty directory
 * (mode 0555).  Either is removed at exit when still empty. */
static int make_placeholder(struct planner *P, const char *path, bool file)
{
    if (!P->h)
        return ENOSYS;
    int (*make)(void *, const char *) = file && P->h->make_file
                                            ? P->h->make_file
                                            : P->h->make_placeholder;
    return make ? make(P->h->ctx, path) : ENOSYS;
}

/* The mount over a placeholder (spec/runtime.md, "Missing deny targets"):
 * deny read: the masked-file device, so the name can be neither read nor
 * written, and it is a file, not a directory; deny write: a scratch tmpfs,
 * writable inside, never written through to the host and discarded at
 * exit (a missing .git/hooks takes git's sample hooks, and no hook
 * written inside reaches the host).  Both are mount points: the sandbox
 * cannot remove, rename or replace them (EBUSY). */
static void mount_placeholder(struct planner *P, const char *path, bool mask)
{
    struct cp_rt_plan *pl = P->pl;
    if (mask) {
        cp_rt_strv_push(&pl->words, "--ro-bind");
        cp_rt_strv_push(&pl->words, "/dev/null");
        cp_rt_strv_push(&pl->words, path);
        sim_push(&P->sim, path, MK_MASK);
    } else {
        cp_rt_strv_push(&pl->words, "--tmpfs");
        cp_rt_strv_push(&pl->words, path);
        sim_push(&P->sim, path, MK_TMPFS);
    }
}

static const char *deny_what(bool mask)
{
    return mask ? "deny-read target" : "deny-write target";
}

/* The mount of an existing deny target at its realpath. */
static void mount_existing(struct planner *P, const char *real,
                           const struct stat *st, bool mask)
{
    struct cp_rt_plan *pl = P->pl;
    if (mask && S_ISDIR(st->st_mode)) {
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
        if (S_ISDIR(st->st_mode) || S_ISREG(st->st_mode))
            cp_rt_strv_push(&pl->verify_ro, real);
    }
    sim_push(&P->sim, real, mask ? MK_MASK : MK_RO);
}

/* An existing deny target: refused where another name of it exists, else
 * pinned and mounted (a symlink on its way: deny_target). */
static int deny_existing(struct planner *P, const char *real, bool mask)
{
    const char *what = deny_what(mask);
    struct stat st;
    if (stat(real, &st) < 0)
        return cp_rt_fail(P->e, CP_RT_EXIT_CANNOT,
                          "cannot enforce: %s '%s': %s", what, real,
                          strerror(errno));
    if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
        int rc = unenforceable(
            P,
            "%s '%s' has %lu hard links; a read-only mount protects one "
            "name, and another name of the same file may be %s",
            what, real, (unsigned long)st.st_nlink,
            mask ? "readable" : "writable");
        if (rc)
            return rc;
    }
    pin_ancestors(P, real);
    mount_existing(P, real, &st, mask);
    return 0;
}

/* May a symlink in directory `dir` be followed while resolving a path?
 * Not where the sandbox could replace it: its directory is writable in the
 * mount model. */
static bool planner_may_follow(void *ctx, const char *dir)
{
    const struct planner *P = ctx;
    return sim_kind(&P->sim, dir) != MK_RW;
}

/* The planner's resolution of `path` (runtime/walk.c): follow_rw follows
 * every symlink, else one in a writable directory ends the walk. */
static int walk_path(struct planner *P, const char *path, bool follow_rw,
                     struct cp_rt_walk *w)
{
    return cp_rt_walk_path(path, follow_rw ? NULL : planner_may_follow, P, w);
}

/* Less collateral: C (`creal`) and the directories down to the target's
 * parent (`below` is the rest of the target under C) are ordinary
 * directories, removed at exit when still empty and pinned by
 * pin_ancestors; only the target is a placeholder.  0 or an errno. */
static int make_missing_dirs(struct planner *P, const char *creal, char *below)
{
    int err = P->h->make_dir(P->h->ctx, creal);
    for (char *q = below + 1; !err && *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        char *d = cp_rt_path_join(creal, below);
        err = P->h->make_dir(P->h->ctx, d);
        free(d);
        *q = '/';
    }
    return err;
}

static int deny_target(struct planner *P, const char *path, bool mask,
                       int depth);

/* A missing deny target whose placeholder `creal` lies in a writable host
 * bind; at_target: creal is the target itself, not an ancestor. */
static int missing_in_rw(struct planner *P, const char *path, const char *creal,
                         bool mask, bool at_target, int depth)
{
    int err = make_placeholder(P, creal, mask && at_target);
    if (err == 0) {
        pin_ancestors(P, creal);
        cp_rt_strv_push(&P->pl->placeholders, creal);
        mount_placeholder(P, creal, mask);
        return 0;
    }
    if (err == EEXIST && depth <= 2)
        return deny_target(P, path, mask, depth + 1);
    if (err == EROFS || err == EACCES || err == EPERM)
        return 0; /* not creatable by this user: not by the sandbox either */
    return unenforceable(
        P,
        "%s '%s' does not exist and the placeholder '%s' cannot be "
        "created: %s",
        deny_what(mask), path, creal, strerror(err));
}

/* A missing deny target, C its first missing component at `*creal` (its
 * parent's realpath joined with its name) and `below` the rest of the
 * target under C: what covers C decides (spec/runtime.md, "Missing deny
 * targets"). */
static int place_missing(struct planner *P, const char *path, char **creal,
                         char *below, bool mask, int depth)
{
    enum mkind ck = sim_kind(&P->sim, *creal);
    bool at_target = !*below;
    if (ck == MK_RW && *below && P->h && P->h->make_dir) {
        int err = make_missing_dirs(P, *creal, below);
        if (err == EROFS || err == EACCES || err == EPERM)
            return 0; /* not creatable by this user: not by the sandbox either */
        if (err)
            return unenforceable(
                P,
                "%s '%s' does not exist and its directories cannot be "
                "created: %s",
                deny_what(mask), path, strerror(err));
        char *full = cp_rt_path_join(*creal, below);
        free(*creal);
        *creal = full;
        at_target = true;
    }
    switch (ck) {
    case MK_RO:
    case MK_MASK:
        return 0; /* cannot be created inside anyway */
    case MK_TMPFS:
        /* bwrap creates the mount point inside the tmpfs, not on the host. */
        cp_rt_strv_push(&P->pl->words, "--tmpfs");
        cp_rt_strv_push(&P->pl->words, *creal);
        cp_rt_strv_push(&P->pl->words, "--remount-ro");
        cp_rt_strv_push(&P->pl->words, *creal);
        sim_push(&P->sim, *creal, mask ? MK_MASK : MK_RO);
        return 0;
    case MK_RW:
        return missing_in_rw(P, path, *creal, mask, at_target, depth);
    case MK_RW_MOVED:
        break;
    }
    return unenforceable(
        P,
        "%s '%s' does not exist and lies in a writable bind of another "
        "host directory, where no placeholder can be placed",
        deny_what(mask), path);
}

/* A missing deny target: find C, refuse a dangling symlink there, then
 * place it. */
static int deny_missing(struct planner *P, const char *path,
                        const struct cp_rt_walk *w, bool mask, int depth)
{
    if (w->via_link)
        return unenforceable(
            P,
            "%s '%s': a symlink on its way points to a missing place, which "
            "the sandbox could satisfy by creating it",
            deny_what(mask), path);
    size_t n = strcspn(w->rest, "/");
    char *first = cp_xstrndup(w->rest, n);
    char *creal = cp_rt_path_child(w->real, first);
    free(first);
    char *below = cp_xstrdup(w->rest + n);
    /* below: "" or "/..." (the rest under C, as place_missing takes it) */
    int rc = place_missing(P, path, &creal, below, mask, depth);
    free(below);
    free(creal);
    return rc;
}

/* A deny target (mask: deny read; else deny write).  spec/runtime.md,
 * "Deny targets".  Resolved once, by walk_path: a deny-write target
 * planned through a symlink the sandbox (or another session sharing the
 * write root) can replace would be protected where the link pointed then,
 * and left bare when the directory comes back: refused. */
static int deny_target(struct planner *P, const char *path, bool mask,
                       int depth)
{
    struct cp_rt_walk w;
    int err = walk_path(P, path, mask, &w);
    if (!err && w.link) {
        int rc = unenforceable(
            P,
            "%s '%s' passes through the symlink '%s', which lies in a "
            "writable directory and could be replaced inside the sandbox; "
            "replace the symlink by the directory it points to",
            deny_what(mask), path, w.link);
        cp_rt_walk_free(&w);
        if (rc)
            return rc;
        /* --allow-unenforced: protected where the link points now. */
        err = walk_path(P, path, true, &w);
    }
    if (err)
        return unenforceable(P, "%s '%s': %s", deny_what(mask), path,
                             strerror(err));
    int rc = 0;
    if (*w.rest)
        rc = deny_missing(P, path, &w, mask, depth);
    else if (sim_kind(&P->sim, w.real) != MK_MASK)
        /* beneath a mask: already hidden and read-only */
        rc = deny_existing(P, w.real, mask);
    cp_rt_walk_free(&w);
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
    int err;        /* the first directory that could not be read */
    char *err_path; /* (heap) */
};

/* A look at path failed while matching: gone is no match; anything else
 * (a directory that cannot be listed, a read error) could hide a match,
 * so the glob cannot be matched (cp_rt_glob_matches says where). */
static void gwalk_error(struct gwalk *g, const char *path, int err)
{
    if (err == ENOENT || err == ENOTDIR || g->err)
        return;
    g->err = err;
    g->err_path = cp_xstrdup(path);
}

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

static void gwalk_run(struct gwalk *g, const char *dir, size_t i);

/* The names in dir but "." and "..", sorted: the emitted mounts do not
 * depend on directory order. */
static void gwalk_names(struct gwalk *g, const char *dir,
                        struct cp_rt_strv *names)
{
    memset(names, 0, sizeof *names);
    DIR *d = opendir(dir);
    if (!d) {
        gwalk_error(g, dir, errno);
        return;
    }
    struct dirent *de;
    int err;
    while ((de = cp_rt_readdir(d, &err)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            cp_rt_strv_push(names, de->d_name);
    closedir(d);
    if (err)
        gwalk_error(g, dir, err);
    if (names->n > 1) /* names->v is NULL for an empty directory */
        qsort(names->v, names->n, sizeof *names->v, cp_rt_cmp_str);
}

/* Segment i is a pattern or "**": match it against dir's entries. */
static void gwalk_pattern(struct gwalk *g, const char *dir, size_t i)
{
    const char *seg = g->segs[i];
    bool any = !strcmp(seg, "**");
    if (any) {
        gwalk_run(g, dir, i + 1); /* zero segments */
        if (i + 1 == g->nsegs)
            return; /* dir covers everything beneath */
    }
    struct cp_rt_strv names;
    gwalk_names(g, dir, &names);
    for (size_t k = 0; k < names.n && !g->overflow; k++) {
        char *child = cp_rt_path_child(dir, names.v[k]);
        struct stat st;
        bool seen = !any || lstat(child, &st) == 0;
        if (!seen)
            gwalk_error(g, child, errno);
        if (any && seen && S_ISDIR(st.st_mode))
            gwalk_run(g, child, i);
        else if (!any && fnmatch(seg, names.v[k], 0) == 0)
            gwalk_run(g, child, i + 1);
        free(child);
    }
    cp_rt_strv_free(&names);
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
    if (!g->lit[i]) {
        gwalk_pattern(g, dir, i);
        return;
    }
    char *child = cp_rt_path_child(dir, g->segs[i]);
    struct stat st;
    if (lstat(child, &st) == 0)
        gwalk_run(g, child, i + 1);
    else
        gwalk_error(g, child, errno);
    free(child);
}

int cp_rt_glob_matches(const char *root, const char *pat,
                       struct cp_rt_strv *out, char **unread)
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
            covered = cp_rt_path_beneath(g.out.v[j], g.out.v[i]);
        if (!covered)
            cp_rt_strv_push(out, g.out.v[i]);
    }
    for (size_t i = 0; i < g.nsegs; i++)
        free(g.segs[i]);
    free(g.segs);
    free(g.lit);
    cp_rt_strv_free(&g.out);
    *unread = g.err_path;
    if (g.overflow)
        return -1; /* out holds the matches found so far */
    return g.err;
}

static int expand_glob(struct planner *P, const char *root, const char *pat,
                       bool mask)
{
    struct cp_rt_strv m;
    char *unread;
    int rc = 0, g = cp_rt_glob_matches(root, pat, &m, &unread);
    if (g < 0)
        rc = unenforceable(
            P,
            "the glob '%s' under '%s' matches more than %d paths or needs "
            "more than %d directory visits; use directory-level rules",
            pat, root, GLOB_MAX_MATCHES, GLOB_MAX_VISITS);
    else if (g > 0)
        rc = unenforceable(P,
                           "the glob '%s' under '%s' cannot be matched: '%s' "
                           "cannot be read (%s), and could hold a match",
                           pat, root, unread, strerror(g));
    free(unread);
    for (size_t i = 0; !rc && i < m.n; i++)
        rc = deny_target(P, m.v[i], mask, 0);
    cp_rt_strv_free(&m);
    return rc;
}

/* A bwrap option from `arg` records, pending until its values arrived. */
struct argopt {
    const char *opt;
    int need, have;
    char *vals[2];
};

static void argopt_clear(struct argopt *o)
{
    free(o->vals[0]);
    free(o->vals[1]);
    memset(o, 0, sizeof *o);
}

/* An `arg` record (number i, from 0): a known, allowed option starts a
 * pending one; its values complete it, and the mount model learns it. */
static int plan_arg(struct planner *P, struct argopt *o, const char *word,
                    size_t i)
{
    cp_rt_strv_push(&P->pl->words, word);
    if (o->need > o->have) {
        o->vals[o->have++] = cp_xstrdup(word);
    } else {
        size_t k = 0, nk = sizeof bwrap_opts / sizeof bwrap_opts[0];
        while (k < nk && strcmp(bwrap_opts[k].opt, word))
            k++;
        if (k == nk || bwrap_opts[k].forbidden)
            return cp_rt_fail(
                P->e, CP_RT_EXIT_ERROR,
                "invalid artifact: record %zu: %s bwrap option '%.100s'", i + 1,
                k == nk ? "unknown" : "forbidden", word);
        o->opt = bwrap_opts[k].opt;
        o->need = bwrap_opts[k].nargs;
        o->have = 0;
    }
    if (o->have == o->need && o->opt) {
        sim_apply_opt(&P->sim, o->opt, o->vals);
        argopt_clear(o);
    }
    return 0;
}

/* `bind`, `pin`, `pinro`.  Missing: skipped (nothing to write; the
 * parent's mount holds).  pinro: a read-only self-bind placed before the
 * write roots, buried under them but still a mount point (rename: EBUSY). */
static int plan_bind(struct planner *P, enum cp_rt_tag tag, const char *path)
{
    const char *what = tag == CP_RT_T_BIND ? "write root" : "pinned ancestor";
    char *real = cp_rt_walk_real(path);
    if (!real && errno != ENOENT && errno != ENOTDIR)
        return unenforceable(P, "%s '%s': %s", what, path, strerror(errno));
    if (!real) {
        if (tag == CP_RT_T_BIND && !creatable(P, path))
            /* Nothing to bind, and the sandbox cannot create it. */
            strv_pushf(&P->pl->stricter,
                       "write root '%s' does not exist: writing there is "
                       "denied (create "
                       "it before the launch)",
                       path);
        return 0;
    }
    if (tag != CP_RT_T_PINRO && strcmp(real, path) != 0) {
        /* A writable bind follows symlinks: binding the target would make
         * a place writable that the policy never names.  The path stays
         * read-only (stricter), and we say so. */
        strv_pushf(&P->pl->stricter,
                   "%s '%s' resolves to '%s' through a symlink: left "
                   "read-only (name '%s' in the policy to allow writes there)",
                   what, path, real, real);
    } else {
        bool ro = tag == CP_RT_T_PINRO;
        cp_rt_strv_push(&P->pl->words, ro ? "--ro-bind" : "--bind");
        cp_rt_strv_push(&P->pl->words, real);
        cp_rt_strv_push(&P->pl->words, real);
        sim_push(&P->sim, real, ro ? MK_RO : MK_RW);
    }
    free(real);
    return 0;
}

/* An exec entry that is, or passes through, a symlink names the program it
 * runs (`exec /usr/bin/python3` on Debian is python3.11): the resolved
 * target is granted, and may then run under any name (build --fidelity
 * says so).  A symlink the sandbox could replace (in a writable bind: a
 * planted `node_modules/.bin -> /`) is never followed: that entry grants
 * nothing, and we say so.  Missing: passed on, the stage grants nothing. */
static void plan_exec(struct planner *P, const char *path)
{
    struct cp_rt_walk w;
    int err = walk_path(P, path, false, &w);
    if (!err && w.link)
        strv_pushf(&P->pl->stricter,
                   "exec entry '%s' passes through the symlink '%s' in a "
                   "writable directory, which the sandbox could point "
                   "elsewhere: not granted (name its target in the policy)",
                   path, w.link);
    else if (!err && !*w.rest)
        cp_rt_strv_push(&P->pl->exec, w.real);
    else
        cp_rt_strv_push(&P->pl->exec, path);
    cp_rt_walk_free(&w);
}

/* The path of a record with ROOT REST fields: the bound root joined with
 * REST (heap), or NULL with the failure in P->e. */
static char *rec_path(struct planner *P, const struct cp_rt_rec *r,
                      const struct cp_rt_params *p)
{
    const char *root = "/";
    if (*r->f1) {
        root = cp_rt_params_get(p, r->f1);
        if (!root) {
            cp_rt_fail(P->e, CP_RT_EXIT_ERROR, "param %s is unbound", r->f1);
            return NULL;
        }
    }
    return cp_rt_path_join(root, r->f2);
}

/* One record with a path. */
static int plan_path_rec(struct planner *P, const struct cp_rt_rec *r,
                         const struct cp_rt_params *p)
{
    char *path = rec_path(P, r,
                          p); /* for a glob too: its param must be bound */
    if (!path)
        return P->e->status;
    int rc = 0;
    if (r->tag == CP_RT_T_MASKGLOB || r->tag == CP_RT_T_ROGLOB)
        rc = expand_glob(P, *r->f1 ? cp_rt_params_get(p, r->f1) : "/", r->f2,
                         r->tag == CP_RT_T_MASKGLOB);
    else if (r->tag == CP_RT_T_RO || r->tag == CP_RT_T_MASK)
        rc = deny_target(P, path, r->tag == CP_RT_T_MASK, 0);
    else if (r->tag == CP_RT_T_EXEC)
        plan_exec(P, path);
    else
        rc = plan_bind(P, r->tag, path);
    free(path);
    return rc;
}

/* A named socket: its bound path and rule, for the stage to resolve
 * inside the sandbox (spec/runtime.md §14.5). */
static int plan_socket(struct planner *P, const struct cp_rt_rec *r,
                       const struct cp_rt_params *p)
{
    char *path = rec_path(P, r, p);
    if (!path)
        return P->e->status;
    cp_rt_strv_push(&P->pl->sockets, path);
    cp_rt_strv_push(&P->pl->sockets, r->f3);
    free(path);
    return 0;
}

int cp_rt_plan_build(struct cp_rt_plan *pl, const struct cp_rt_artifact *a,
                     const struct cp_rt_params *p, const struct cp_rt_host *h,
                     bool unenforced_ok, struct cp_rt_err *e)
{
    memset(pl, 0, sizeof *pl);
    struct planner P = {.pl = pl,
                        .h = h,
                        .unenforced_ok = unenforced_ok,
                        .e = e};
    struct argopt o = {0};
    int rc = 0;
    for (size_t i = 0; i < a->nrecs && !rc; i++) {
        const struct cp_rt_rec *r = &a->recs[i];
        if (o.need > o.have && r->tag != CP_RT_T_ARG)
            rc = cp_rt_fail(e, CP_RT_EXIT_ERROR,
                            "invalid artifact: record %zu: bwrap option '%s' "
                            "lacks %d argument(s)",
                            i + 1, o.opt, o.need - o.have);
        else if (r->tag == CP_RT_T_ARG)
            rc = plan_arg(&P, &o, r->f1, i);
        else if (r->tag >= CP_RT_T_BIND && r->tag <= CP_RT_T_EXEC)
            rc = plan_path_rec(&P, r, p);
        else if (r->tag == CP_RT_T_SOCKET)
            rc = plan_socket(&P, r, p);
        /* header, profile, fail, param, end: read by artifact.c; net: by
         * the proxy (cp_rt_net_prepare) */
    }
    pl->exec_on = a->has_exec;
    if (!rc && o.need > o.have)
        rc = cp_rt_fail(
            e, CP_RT_EXIT_ERROR,
            "invalid artifact: bwrap option '%s' lacks %d argument(s)", o.opt,
            o.need - o.have);
    argopt_clear(&o);
    sim_free(&P.sim);
    if (!rc)
        rc = cp_rt_plan_identities(pl, e);
    if (rc)
        cp_rt_plan_free(pl);
    return rc;
}

int cp_rt_args_stream(const struct cp_rt_plan *pl, char *const *cmd,
                      size_t ncmd, struct cp_rt_strv *bwrap_words,
                      struct cp_rt_strv *stage_words, struct cp_rt_err *e)
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
    char kw[16];
    for (size_t i = 0; i < pl->nkeep; i++) {
        snprintf(kw, sizeof kw, "%d", pl->keep[i]);
        cp_rt_strv_push(stage_words, "--keep-fd");
        cp_rt_strv_push(stage_words, kw);
    }
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
    for (size_t i = 0; i < pl->verify_mount.n; i++)
        cp_rt_strv_push(stage_words, pl->verify_mount.v[i]);
    if (pl->proxy_sock) { /* spec/runtime.md, "Network" */
        cp_rt_strv_push(stage_words, "--proxy");
        cp_rt_strv_push(stage_words, pl->proxy_sock);
    }
    if (pl->unix_closed)
        cp_rt_strv_push(stage_words, "--no-unix");
    if (pl->unix_closed) {
        cp_rt_strv_push(stage_words, "--prog");
        cp_rt_strv_push(stage_words, pl->prog ? pl->prog : "confpol-run");
    }
    if (pl->say) {
        cp_rt_strv_push(stage_words, "--say");
        cp_rt_strv_push(stage_words, pl->say);
    }
    for (size_t i = 0; pl->unix_closed && i + 1 < pl->sockets.n; i += 2) {
        cp_rt_strv_push(stage_words, "--socket");
        cp_rt_strv_push(stage_words, pl->sockets.v[i]);
        cp_rt_strv_push(stage_words, pl->sockets.v[i + 1]);
    }
    cp_rt_strv_push(stage_words, "--");
    for (size_t i = 0; i < ncmd; i++)
        cp_rt_strv_push(stage_words, cmd[i]);
    /* bwrap --args FD --add-seccomp-fd FD -- EXE STAGE-ARGV... STATUS ERR
     * ARGS */
    size_t total = bwrap_words->n + 6 + 3 + 3;
    if (total > CP_RT_MAX_BWRAP_ARGS) {
        cp_rt_strv_free(bwrap_words);
        cp_rt_strv_free(stage_words);
        return cp_rt_fail(
            e, CP_RT_EXIT_ERROR,
            "the policy needs %zu bubblewrap arguments, more than its limit of "
            "%d; merge rules into directory-level rules",
            total, CP_RT_MAX_BWRAP_ARGS);
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
    int exe;     /* confpol-janitor, checked (runtime/helper.c) */
    bool broken; /* it did not start or did not answer: refuse the launch */
    struct cp_rt_strv paths;
    struct cp_rt_placeholder *made;
};

/* The janitor's child, between fork and exec: only async-signal-safe
 * calls.  Its socket becomes descriptor CP_RT_JANITOR_FD, 0 and 1 are
 * /dev/null, and nothing else of the launcher's stays open (with the
 * launcher's end, or any other copy of it, open there, EOF would never
 * come). */
static _Noreturn void janitor_child(int sock, int exe, int null)
{
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
    }
    if (sock == CP_RT_JANITOR_FD) {
        if (fcntl(sock, F_SETFD, 0) < 0)
            _exit(127);
    } else if (dup2(sock, CP_RT_JANITOR_FD) < 0) {
        _exit(127);
    }
    int keep[2] = {CP_RT_JANITOR_FD, exe}; /* exe: close-on-exec */
    cp_rt_close_inherited(keep, 2);
    /* Out of the terminal's process group, terminal signals ignored (kept
     * across exec): a Ctrl-C must not take the placeholders' owner down
     * with the rest. */
    setsid();
    static const int ign[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    for (size_t i = 0; i < sizeof ign / sizeof ign[0]; i++)
        signal(ign[i], SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    static char *const argv[] = {CP_RT_JANITOR_EXE, NULL};
    syscall(SYS_execveat, exe, "", argv, environ, AT_EMPTY_PATH);
    _exit(127);
}

static int janitor_start(struct janitor *j, struct cp_rt_err *e)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "socketpair: %s",
                          strerror(errno));
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    pid_t pid = cp_rt_fork();
    if (pid == 0)
        janitor_child(sv[1], j->exe, null);
    int err = errno;
    if (null >= 0)
        close(null);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "fork: %s", strerror(err));
    }
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

static int janitor_make_file(void *ctx, const char *path)
{
    return janitor_req(ctx, path, 'F');
}

/* mode: as janitor_create's; removed at exit when still empty. */
static int janitor_req(void *ctx, const char *path, char mode)
{
    struct janitor *j = ctx;
    struct cp_rt_err e = {0};
    if (j->broken || (j->pid <= 0 && janitor_start(j, &e))) {
        j->broken = true;
        return EAGAIN;
    }
    size_t n = strlen(path);
    if (n >= PATH_MAX)
        return ENAMETOOLONG;
    char *msg = cp_xmalloc(n + 2);
    msg[0] = mode;
    memcpy(msg + 1, path, n + 1);
    ssize_t w = send(j->sock, msg, n + 1, MSG_NOSIGNAL);
    free(msg);
    struct cp_rt_janitor_reply rep;
    if (w < 0 || recv(j->sock, &rep, sizeof rep, 0) != (ssize_t)sizeof rep) {
        j->broken = true; /* gone (its exec failed, or it was killed) */
        return EIO;
    }
    if (rep.err == 0) {
        size_t k = j->paths.n;
        j->made = cp_xrealloc(j->made, (k + 1) * sizeof *j->made);
        j->made[k] = rep.ph;
        cp_rt_strv_push(&j->paths, path);
    }
    return rep.err;
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
            cp_rt_placeholder_remove(j->paths.v[i], &j->made[i]);
    }
    cp_rt_strv_free(&j->paths);
    free(j->made);
    int exe = j->exe; /* borrowed from the launch's helpers */
    memset(j, 0, sizeof *j);
    j->exe = exe;
}

/* ---- launching ------------------------------------------------------------- */

/* The entry points' one way to report: `PROG: MESSAGE` on stderr, and the
 * status returned (runtime/runtime.h, "Errors"). */
static int vfail_msg(const char *prog, int status, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static int vfail_msg(const char *prog, int status, const char *fmt, va_list ap)
{
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    cp_rt_eprintf("%s: %s\n", prog, buf);
    return status;
}

static int fail_msg(const char *prog, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_msg(const char *prog, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_msg(prog, status, fmt, ap);
    va_end(ap);
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
        return fail_msg(prog, CP_RT_EXIT_NOTFOUND, "%s: command not found",
                        cmd[0]);
    return fail_msg(prog, CP_RT_EXIT_CANNOT, "cannot execute %s: %s", cmd[0],
                    strerror(err));
}

bool cp_rt_bwrap_ns_failure(const char *t)
{
    return strstr(t, "setting up uid map: Permission denied") ||
           strstr(t, "RTM_NEWADDR") ||
           strstr(t, "Creating new namespace failed") ||
           strstr(t, "No permissions to create new namespace") ||
           strstr(
               t,
               "Failed to make / slave"); /* a container without mount rights */
}

const char *cp_rt_bwrap_hint(const char *t)
{
    if (strstr(t, "setting up uid map: Permission denied") ||
        strstr(t, "RTM_NEWADDR"))
        return "the host restricts unprivileged user namespaces (Ubuntu 23.10+ "
               "AppArmor: "
               "kernel.apparmor_restrict_unprivileged_userns=1). Fix, most "
               "targeted first: "
               "install the bwrap-userns-restrict AppArmor profile (package "
               "apparmor on 25.04, "
               "apparmor-profiles extra-profiles on 24.04), or add a local "
               "AppArmor profile for "
               "/usr/bin/bwrap granting 'userns,', or set the sysctl to 0";
    if (strstr(t, "Creating new namespace failed") ||
        strstr(t, "No permissions to create new namespace"))
        return "user namespaces are disabled or blocked here (sysctl "
               "user.max_user_namespaces=0 "
               "or kernel.unprivileged_userns_clone=0, or a container's "
               "seccomp profile). Enable "
               "them, or run in a container started with a permissive seccomp "
               "profile";
    if (strstr(t, "Can't find source path") ||
        strstr(t, "Can't get type of source"))
        return "a path changed between planning and the start of bwrap; run "
               "again";
    if (strstr(t, "Exceeded maximum number of arguments"))
        return "the policy needs more bwrap arguments than bubblewrap allows; "
               "merge rules";
    return NULL;
}

char *cp_rt_find_bwrap(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = cp_xstrdup(path), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d;
         d = strtok_r(NULL, ":", &save)) {
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
            fprintf(
                out,
                "user namespaces: bwrap cannot create its sandbox: %s%s%s\n",
                text, hint ? "; " : "", hint ? hint : "");
            rc = CP_RT_EXIT_CANNOT;
        }
        free(bwrap);
    }
    struct cp_ll_features f;
    cp_ll_probe(&f);
    char ft[256];
    cp_ll_features_text(&f, ft, sizeof ft);
    if (f.abi >= 1)
        fprintf(out,
                "landlock: %s (exec allow-lists are enforced; --enforcer "
                "landlock is "
                "usable)\n",
                ft);
    else {
        fprintf(out, "landlock: %s: policies with exec rules are refused\n",
                ft);
        rc = rc ? rc : CP_RT_EXIT_CANNOT;
    }
    fprintf(out, "enforcer auto: %s\n",
            ns_ok        ? "bwrap"
            : f.abi >= 1 ? "landlock"
                         : "none");
    return rc;
}

/* Status messages from inside: 'S' (stage started; credentials carry its
 * pid, and a pidfd of itself rides along where the kernel has pidfd_open),
 * 'W' (the stage waits for 'G' before it executes the command: bwrap wrote
 * on stderr before it started), 'E' CODE ' ' MESSAGE (could not enforce),
 * 'X' CODE ' ' MESSAGE (the command could not be executed), 'B' ERRNO (the
 * forked child could not exec bwrap). */
struct status {
    bool started;
    bool wants_go; /* 'W' came */
    pid_t cmd_pid;
    int cmd_pidfd;   /* from 'S', -1 without */
    int code;        /* from 'E' or 'X' */
    bool cmd_failed; /* 'X' */
    char msg[1024];
    int bwrap_errno; /* from 'B' */
    bool eof;
};

/* The credentials of the first 'S' (its pid in our namespace) and the
 * pidfd it carries; any other descriptor is closed. */
static void status_cmsgs(struct msghdr *mh, bool first_s, struct status *s)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level != SOL_SOCKET)
            continue;
        if (c->cmsg_type == SCM_CREDENTIALS && first_s) {
            struct ucred uc;
            memcpy(&uc, CMSG_DATA(c), sizeof uc);
            s->cmd_pid = uc.pid;
        } else if (c->cmsg_type == SCM_RIGHTS) {
            size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < nfd; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
                if (first_s && s->cmd_pidfd < 0)
                    s->cmd_pidfd = fd;
                else
                    close(fd);
            }
        }
    }
}

static void status_read(int fd, struct status *s)
{
    for (;;) {
        char buf[1100];
        union {
            struct cmsghdr h;
            char b[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
        } cm;
        struct iovec iov = {buf, sizeof buf - 1};
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = &cm,
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
        status_cmsgs(&mh, buf[0] == 'S' && !s->started, s);
        if (buf[0] == 'S')
            s->started = true;
        else if (buf[0] == 'W')
            s->wants_go = true;
        else if (buf[0] == 'E' || buf[0] == 'X') {
            char *sp = strchr(buf, ' ');
            s->code = (int)strtol(buf + 1, NULL, 10);
            s->cmd_failed = buf[0] == 'X';
            if (s->code != CP_RT_EXIT_NOTFOUND && s->code != CP_RT_EXIT_ERROR)
                s->code = CP_RT_EXIT_CANNOT;
            snprintf(s->msg, sizeof s->msg, "%s",
                     sp ? sp + 1 : "the stage failed");
        } else if (buf[0] == 'B') {
            s->bwrap_errno = (int)strtol(buf + 1, NULL, 10);
            if (!s->bwrap_errno)
                s->bwrap_errno = EIO;
        }
    }
}

/* A memfd holding the words, NUL-separated, read from its start: 0 with
 * *out set, or a status. */
static int make_memfd(const struct cp_rt_strv *words, int *out,
                      struct cp_rt_err *e)
{
    int fd = memfd_create("confpol-bwrap-args", MFD_CLOEXEC);
    if (fd < 0)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "memfd_create: %s",
                          strerror(errno));
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
            return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                              "writing the bwrap arguments: %s",
                              strerror(errno));
        }
        off += (size_t)w;
    }
    free(buf);
    if (lseek(fd, 0, SEEK_SET) < 0) {
        close(fd);
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "lseek: %s", strerror(errno));
    }
    *out = fd;
    return 0;
}

/* cmd_pidfd: -1 with cmd_gone when the command already exited (its pid may
 * be reused: never signal it by number then); -1 without cmd_gone when the
 * kernel lacks pidfd_open (before 5.3): signal by pid. */
/* The command shares a process group with bwrap's init inside the
 * sandbox (bwrap --new-session calls setsid before it forks the init), so
 * a signal goes to that group: `sh -c` and every child it started, as a
 * Ctrl-C at a terminal reaches a foreground job (bwrap's init, pid 1 of
 * the namespace, ignores what it has no handler for).  Only while the
 * command's pidfd says it runs (no pid reuse); else to the command. */
static void forward_signal(int sig, pid_t cmd_pid, int cmd_pidfd, bool cmd_gone,
                           pid_t bwrap_pid)
{
    pid_t pg = cmd_pid > 0 && !cmd_gone ? getpgid(cmd_pid) : -1;
    bool alive = cmd_pidfd >= 0 &&
                 syscall(SYS_pidfd_send_signal, cmd_pidfd, 0, NULL, 0) == 0;
    if (pg > 1 && (alive || cmd_pidfd < 0) && kill(-pg, sig) == 0)
        return;
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
    /* The command has not started: stop the whole setup, bwrap's group at
     * once.  bwrap's sandbox child, cloned into that group, waits on an
     * eventfd for its parent to write the user namespace's maps: a
     * signal that ends the outer bwrap first leaves it blocked for ever,
     * holding the caller's stdout and stderr.  SIGKILL to the group takes
     * both (before it calls setsid; after, it dies with its parent). */
    (void)sig;
    if (kill(-bwrap_pid, SIGKILL) < 0)
        kill(bwrap_pid, SIGKILL);
}

/* What the bwrap child needs; all of it prepared by the parent. */
struct bwrap_spawn {
    pid_t parent;
    const sigset_t *oldmask;
    int err_fd;     /* becomes the child's stderr */
    int inherit[4]; /* lose close-on-exec: bwrap and the stage need them */
    const struct cp_rt_fds *binds; /* the bind sources (--bind-fd) too */
    int status_fd;                 /* 'B' ERRNO when bwrap cannot be executed */
    const char *bwrap;
    char *const *argv;
};

/* "B" and a positive errno in decimal, without stdio: the forked child may
 * only make async-signal-safe calls. */
static size_t exec_errno_msg(char *b, int err)
{
    char d[12];
    size_t n = 0;
    unsigned v = err > 0 ? (unsigned)err : 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    b[0] = 'B';
    for (size_t i = 0; i < n; i++)
        b[1 + i] = d[n - 1 - i];
    return n + 1;
}

/* The child between fork and execve.  The runtime may be multithreaded by
 * then (libc's or a library's threads), so the child makes only
 * async-signal-safe calls (POSIX, fork): system calls on its own process
 * state, no stdio, no allocation. */
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
    /* Our mask blocks the signals we forward (signalfd): left on bwrap,
     * the command would start with them blocked and never see a Ctrl-C
     * or a SIGTERM forwarded to it.  A refusal, never a fall-back. */
    if (sigprocmask(SIG_SETMASK, s->oldmask, NULL) < 0) {
        _Static_assert(CP_RT_EXIT_ERROR == 125, "the code in the message");
        static const char m[] = "E125 cannot unblock signals for bwrap; "
                                "nothing was run";
        send(s->status_fd, m, sizeof m - 1, MSG_NOSIGNAL);
        _exit(CP_RT_EXIT_ERROR);
    }
    bool ok = dup2(s->err_fd, 2) >= 0;
    for (int i = 0; ok && i < 4; i++)
        ok = fcntl(s->inherit[i], F_SETFD, 0) >= 0;
    for (size_t i = 0; ok && s->binds && i < s->binds->n; i++)
        ok = fcntl(s->binds->v[i], F_SETFD, 0) >= 0;
    if (ok)
        execve(s->bwrap, s->argv, environ);
    char b[16];
    size_t m = exec_errno_msg(b, errno);
    send(s->status_fd, b, m, MSG_NOSIGNAL);
    _exit(CP_RT_EXIT_CANNOT);
}

/* fork, not vfork: between vfork and exec POSIX allows only _exit and the
 * exec functions, and the child needs a process group, a parent-death
 * signal and its signal state first; posix_spawn cannot set the
 * parent-death signal.  The cost is measured in `make bench` (section 3,
 * spec/runtime.md §11). */
static pid_t spawn_bwrap(const struct bwrap_spawn *s)
{
    pid_t pid = cp_rt_fork();
    if (pid == 0)
        bwrap_child(s);
    return pid;
}

/* --enforcer auto kept bwrap: said once, as the fall-back to Landlock is
 * (spec/runtime.md 12.1), by the stage just before it executes the
 * command, so that a launch that falls back says only the Landlock line
 * and the line comes before anything the command writes. */
static void auto_chose_bwrap(const struct cp_rt_launch *l, char *b, size_t n)
{
    snprintf(b, n,
             "%s: enforcer: bwrap (auto: bwrap can create its namespaces); "
             "mounts and namespaces as build --fidelity rates the bwrap "
             "target\n",
             l->prog);
}

/* ---- one bwrap launch: its resources, their one teardown ------------------ */

struct bw_run {
    const struct cp_rt_launch *l;
    bool open_ok;         /* fail open or --allow-unenforced */
    const char *open_why; /* which of the two, for the warnings */
    char *bwrap;
    struct cp_rt_helper stage;   /* confpol-stage, next to the launcher */
    struct cp_rt_helper janitor; /* confpol-janitor, next to it too */
    struct janitor jan;
    struct cp_rt_plan pl;
    struct cp_rt_proxy proxy;
    struct cp_rt_strv words, swords;
    struct cp_rt_fds binds; /* the bind sources, open until bwrap starts */
    /* Status socket, bwrap's stderr pipe, the original stderr, the two
     * memfds, the signalfd; -1 when closed. */
    int st[2], ep[2], orig_err, args_fd, stage_fd, sigfd;
    sigset_t mask, oldmask;
    bool masked; /* mask is blocked, oldmask to restore */
    pid_t child;
    char say[256]; /* the stage's line for --enforcer auto */
};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The one teardown.  reap_proxy: wait for the proxy too (the runtime goes
 * on to run the command unconfined); otherwise the runtime exits next. */
static void run_teardown(struct bw_run *r, bool reap_proxy)
{
    int *fds[] = {&r->st[0],    &r->st[1],   &r->ep[0],    &r->ep[1],
                  &r->orig_err, &r->args_fd, &r->stage_fd, &r->sigfd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        close_fd(fds[i]);
    cp_rt_fds_close(&r->binds);
    cp_rt_proxy_stop(&r->proxy, reap_proxy);
    janitor_finish(&r->jan);
    if (r->masked)
        sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
    r->masked = false;
    cp_rt_plan_free(&r->pl);
    cp_rt_strv_free(&r->words);
    cp_rt_strv_free(&r->swords);
    free(r->bwrap);
    r->bwrap = NULL;
    cp_rt_helper_close(&r->stage);
    cp_rt_helper_close(&r->janitor);
}

/* Prints the failure, tears down, returns its status. */
static int run_fail(struct bw_run *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int run_fail(struct bw_run *r, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_msg(r->l->prog, status, fmt, ap);
    va_end(ap);
    run_teardown(r, false);
    return status;
}

/* With exec records: is Landlock there to enforce them?  0 (and *enforce)
 * or the status of a refusal. */
static int exec_preflight(const struct cp_rt_artifact *a,
                          const struct bw_run *r, bool *enforce)
{
    *enforce = a->has_exec;
    if (!a->has_exec)
        return 0;
    int abi = cp_rt_landlock_abi();
    if (abi >= 1)
        return 0;
    const char *why = abi == -EOPNOTSUPP
                          ? "Landlock is built but not enabled at boot "
                            "(add 'landlock' to the lsm= boot parameter)"
                          : "the kernel does not offer Landlock (kernel "
                            "< 5.13, CONFIG_SECURITY_LANDLOCK off, or a "
                            "seccomp filter such as a container's hides "
                            "the landlock_* system calls)";
    if (!r->open_ok)
        return fail_msg(
            r->l->prog, CP_RT_EXIT_CANNOT,
            "cannot enforce the exec allow-list: %s; refusing to run (use "
            "--allow-unenforced to run without it)",
            why);
    cp_rt_warn(r->l->prog, "exec allow-list NOT enforced: %s (%s)", why,
               r->open_why);
    *enforce = false;
    return 0;
}

/* bwrap is not installed: fall back, refuse, or run unconfined. */
static int no_bwrap(const struct bw_run *r)
{
    const struct cp_rt_launch *l = r->l;
    if (l->fallback_why) { /* --enforcer auto: Landlock instead */
        snprintf(l->fallback_why, l->fallback_why_size,
                 "bubblewrap (bwrap) is not installed");
        return CP_RT_FALLBACK;
    }
    if (!r->open_ok)
        return fail_msg(
            l->prog, CP_RT_EXIT_CANNOT,
            "cannot enforce the policy: bubblewrap (bwrap) is not installed; "
            "install it (e.g. apt-get install bubblewrap) or use "
            "--allow-unenforced to run unconfined");
    cp_rt_warn(
        l->prog,
        "bubblewrap (bwrap) is not installed: running %s UNCONFINED (%s)",
        l->cmd[0], r->open_why);
    return cp_rt_exec_unconfined(l->prog, l->cmd);
}

/* Plans the words (placeholders through the janitor), says what is
 * stricter or not enforced, and starts the proxy.  0 or a status. */
static int run_plan(struct bw_run *r, const struct cp_rt_artifact *a,
                    const struct cp_rt_params *p, bool enforce_exec)
{
    const char *prog = r->l->prog;
    struct cp_rt_err e = {0};
    struct cp_rt_host host = {.make_placeholder = janitor_make,
                              .make_dir = janitor_make_dir,
                              .make_file = janitor_make_file,
                              .ctx = &r->jan};
    int rc = cp_rt_plan_build(&r->pl, a, p, &host, r->open_ok, &e);
    if (r->jan.broken) /* never a fallback: placeholders are not optional */
        return run_fail(r, CP_RT_EXIT_ERROR,
                        "its helper program %s did not answer; refusing to "
                        "run",
                        r->janitor.path);
    if (rc)
        return run_fail(r, e.status, "%s%s", e.msg,
                        e.status == CP_RT_EXIT_CANNOT
                            ? "; refusing to run (use "
                              "--allow-unenforced to run anyway)"
                            : "");
    for (size_t i = 0; i < r->pl.stricter.n; i++)
        cp_rt_warn(prog, "%s", r->pl.stricter.v[i]);
    if (enforce_exec)
        cp_rt_warn(prog,
                   "the exec allow-list is not fully enforced: Landlock checks "
                   "execve only, and "
                   "the ELF loader and the PT_INTERP interpreters of allowed "
                   "binaries are granted, so "
                   "a readable binary outside the list runs through the loader "
                   "('ld.so /usr/bin/id'); see spec/threat-model.md");
    for (size_t i = 0; i < r->pl.warnings.n; i++)
        cp_rt_warn(prog, "%s (%s)", r->pl.warnings.v[i], r->open_why);
    if (!enforce_exec) {
        cp_rt_strv_free(&r->pl.exec);
        r->pl.exec_on = false;
    }
    r->pl.keep = r->l->keep;
    r->pl.nkeep = r->l->nkeep;
    if (cp_rt_net_prepare(a, &r->pl, prog, &r->proxy, &e))
        return run_fail(r, e.status, "%s", e.msg);
    return 0;
}

/* Blocks the forwarded signals (read through a signalfd) and opens the
 * descriptors bwrap and the stage inherit.  0 or a status. */
static int run_open(struct bw_run *r)
{
    struct cp_rt_err e = {0};
    static const int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
    sigemptyset(&r->mask);
    for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++)
        sigaddset(&r->mask, fwd[i]);
    sigprocmask(SIG_BLOCK, &r->mask, &r->oldmask);
    r->masked = true;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->st) < 0 ||
        pipe2(r->ep, O_CLOEXEC) < 0 ||
        (r->orig_err = fcntl(2, F_DUPFD_CLOEXEC, 3)) < 0)
        return run_fail(r, CP_RT_EXIT_ERROR, "cannot set up the launch: %s",
                        strerror(errno));
    int one = 1;
    setsockopt(r->st[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    if (cp_rt_bind_fds(&r->pl, cp_rt_bwrap_has_bind_fd(r->bwrap), &r->binds,
                       &r->pl.verify_mount, &e))
        return run_fail(r, e.status, "%s; nothing was run", e.msg);
    if (r->l->fallback_why && !r->l->quiet) {
        auto_chose_bwrap(r->l, r->say, sizeof r->say);
        r->pl.say = r->say;
    }
    if (cp_rt_args_stream(&r->pl, r->l->cmd, r->l->ncmd, &r->words, &r->swords,
                          &e))
        return run_fail(r, e.status, "%s", e.msg);
    if (make_memfd(&r->words, &r->args_fd, &e) ||
        make_memfd(&r->swords, &r->stage_fd, &e))
        return run_fail(r, e.status, "%s", e.msg);
    r->sigfd = signalfd(-1, &r->mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (r->sigfd < 0)
        return run_fail(r, CP_RT_EXIT_ERROR, "signalfd: %s", strerror(errno));
    return 0;
}

/* Starts `bwrap --args FD -- EXE STAGE-ARGV... STATUS ERR ARGS` and closes
 * what only the child needed.  0 or a status. */
static int run_spawn(struct bw_run *r)
{
    char fds[4][16];
    snprintf(fds[0], sizeof fds[0], "%d", r->args_fd);
    snprintf(fds[1], sizeof fds[1], "%d", r->st[1]);
    snprintf(fds[2], sizeof fds[2], "%d", r->orig_err);
    snprintf(fds[3], sizeof fds[3], "%d", r->stage_fd);
    /* bwrap --args FD --add-seccomp-fd FD -- STAGE, 3 descriptors, NULL */
    const char *bargv[3 + 2 + 1 + 1 + 3 + 1];
    size_t nb = 0;
    bargv[nb++] = "bwrap";
    bargv[nb++] = "--args";
    bargv[nb++] = fds[0];
    /* The confinement filter (spec/runtime.md §6), inherited by bwrap
     * alone: closed here once it has started. */
    struct cp_rt_err se = {0};
    int sfd = cp_rt_seccomp_memfd(&se);
    if (sfd < 0)
        return run_fail(r, se.status, "%s", se.msg);
    char sfd_word[16];
    snprintf(sfd_word, sizeof sfd_word, "%d", sfd);
    bargv[nb++] = "--add-seccomp-fd";
    bargv[nb++] = sfd_word;
    bargv[nb++] = "--";
    bargv[nb++] = r->stage.path;
    bargv[nb++] = fds[1];
    bargv[nb++] = fds[2];
    bargv[nb++] = fds[3];
    bargv[nb] = NULL;
    struct bwrap_spawn sp = {
        .parent = getpid(),
        .oldmask = &r->oldmask,
        .err_fd = r->ep[1],
        .inherit = {r->args_fd, r->stage_fd, r->st[1], r->orig_err},
        .binds = &r->binds,
        .status_fd = r->st[1],
        .bwrap = r->bwrap,
        .argv = (char *const *)bargv,
    };
    fflush(NULL); /* the child must not inherit unwritten stdio buffers */
    r->child = spawn_bwrap(&sp);
    close(sfd);
    if (r->child < 0)
        return run_fail(r, CP_RT_EXIT_ERROR, "fork: %s", strerror(errno));
    janitor_tell_pid(&r->jan, r->child);
    cp_rt_fds_close(&r->binds);
    close_fd(&r->st[1]);
    close_fd(&r->ep[1]);
    close_fd(&r->args_fd);
    close_fd(&r->stage_fd);
    return 0;
}

/* ---- supervision -------------------------------------------------------- */

/* bwrap's stderr: relayed as it arrives, except under --enforcer auto
 * before the command started (held: a namespace failure then falls back
 * to Landlock silently); its first 8 KiB kept to recognise failures. */
struct errbuf {
    char text[8192];
    size_t len;
};

static void errbuf_take(struct errbuf *b, const char *s, size_t n, bool relay)
{
    if (relay && write(2, s, n) < 0) { /* stderr gone: keep going */
    }
    size_t room = sizeof b->text - 1 - b->len;
    size_t k = n < room ? n : room;
    memcpy(b->text + b->len, s, k);
    b->len += k;
    b->text[b->len] = '\0';
}

struct superv {
    const struct cp_rt_launch *l;
    pid_t child;
    int sigfd, st, ep;
    struct status ss;
    struct errbuf err;
    bool held_said; /* 'H' sent: bwrap's stderr was about to be read */
    bool go_sent;   /* 'G' sent */
    bool stop_sent; /* 'K' sent: a signal came before the command started */
    int wstatus;
    int got_signal; /* a signal that arrived before the command started */
    int cmd_pidfd;  /* the command, once started (-1: none or gone) */
    bool cmd_gone;  /* it had exited when its pidfd was asked for */
};

static bool superv_relays(const struct superv *s)
{
    return !s->l->fallback_why || s->ss.started;
}

/* One message to the stage ('H' or 'G').  Unsent, the stage sees the end
 * of the socket instead and refuses (125); if not even that, bwrap is
 * stopped. */
static void superv_tell(struct superv *s, const char *m)
{
    if (send(s->st, m, 1, MSG_NOSIGNAL) != 1 && shutdown(s->st, SHUT_WR) != 0)
        kill(s->child, SIGKILL);
}

static bool superv_stderr(struct superv *s);

/* The stage spoke.  On its first 'S': release held stderr and keep the
 * command's pidfd for signal forwarding (the stage's own, sent with 'S';
 * opened here by pid on a kernel without pidfd_open).  On 'W': relay what
 * bwrap wrote that is still in the pipe, then let the stage go on ('G'):
 * what bwrap wrote before the stage's check comes before anything the
 * command writes. */
static void superv_status(struct superv *s)
{
    bool was = s->ss.started;
    status_read(s->st, &s->ss);
    if (!was && s->ss.started) {
        if (s->l->fallback_why && s->err.len &&
            write(2, s->err.text, s->err.len) < 0) {
        }
        if (s->ss.cmd_pidfd >= 0) {
            s->cmd_pidfd = s->ss.cmd_pidfd;
            s->ss.cmd_pidfd = -1;
        } else if (s->ss.cmd_pid > 0) {
            s->cmd_pidfd = (int)syscall(SYS_pidfd_open, s->ss.cmd_pid, 0);
            s->cmd_gone = s->cmd_pidfd < 0 && errno == ESRCH;
        }
    }
    if (!s->ss.wants_go || s->go_sent)
        return;
    int left = 0;
    while (ioctl(s->ep, FIONREAD, &left) == 0 && left > 0 && superv_stderr(s))
        ;
    superv_tell(s, "G");
    s->go_sent = true;
}
/* One read of bwrap's stderr; false when the pipe is done.  Before the
 * first read the stage is told ('H'), whatever is done with the bytes:
 * held (--enforcer auto before the stage started) or relayed, a read
 * empties the pipe before its bytes reach our stderr, and a stage that
 * counted an empty pipe in between would execute the command first.  A
 * stage that found the pipe empty finds the 'H' and waits for the 'G'
 * this loop sends only after the write (spec/runtime.md §6, step 7). */
static bool superv_stderr(struct superv *s)
{
    if (!s->held_said && !s->go_sent) {
        superv_tell(s, "H");
        s->held_said = true;
    }
    char b[4096];
    ssize_t n = read(s->ep, b, sizeof b);
    if (n > 0) {
        errbuf_take(&s->err, b, (size_t)n, superv_relays(s));
        return true;
    }
    return n < 0 && (errno == EINTR || errno == EAGAIN);
}

/* A signal before the stage's 'S' was read: the stage is told ('K' and
 * the signal) before anything else, then its messages are read again.
 * Without the 'S' the setup is killed (forward_signal), but bwrap's
 * sandbox can outlive that kill (its parent-death signal is set after it
 * starts): a stage that starts later, or is still before its check, finds
 * the 'K' and dies by the signal instead of executing the command after
 * we returned.  An 'S' read now was sent before the 'K': the command may
 * run already, and the signal is forwarded to it as to any started one
 * (spec/runtime.md §6, step 7). */
static void superv_stop(struct superv *s, int sig)
{
    if (s->stop_sent)
        return;
    char m[16];
    int n = snprintf(m, sizeof m, "K%d", sig);
    s->stop_sent = true;
    if (send(s->st, m, (size_t)n, MSG_NOSIGNAL) != n &&
        shutdown(s->st, SHUT_WR) != 0)
        kill(s->child, SIGKILL);
    superv_status(s);
}

/* Pending signals: SIGCHLD reaps bwrap, the others are forwarded.  True
 * when bwrap was reaped. */
static bool superv_signals(struct superv *s)
{
    bool reaped = false;
    struct signalfd_siginfo si;
    while (read(s->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reaped = reaped ||
                     waitpid(s->child, &s->wstatus, WNOHANG) == s->child;
            continue;
        }
        if (!s->ss.started)
            superv_stop(s, sig);
        if (!s->ss.started)
            s->got_signal = sig;
        forward_signal(sig, s->ss.cmd_pid, s->cmd_pidfd, s->cmd_gone, s->child);
    }
    return reaped;
}

/* Supervises bwrap until it exits: relays its stderr, reads the stage's
 * status, forwards signals; then drains what the sandbox wrote before it
 * ended.  spec/runtime.md §6, items 5 to 7. */
static void supervise(struct superv *s)
{
    bool reaped = false, ep_open = true;
    while (!reaped) {
        struct pollfd pf[3] = {{.fd = s->sigfd, .events = POLLIN},
                               {.fd = s->ss.eof ? -1 : s->st, .events = POLLIN},
                               {.fd = ep_open ? s->ep : -1, .events = POLLIN}};
        if (poll(pf, 3, -1) < 0 && errno != EINTR)
            break;
        if (pf[1].revents)
            superv_status(s);
        if (pf[2].revents)
            ep_open = superv_stderr(s);
        reaped = superv_signals(s);
        if (!reaped && waitpid(s->child, &s->wstatus, WNOHANG) == s->child)
            reaped = true;
    }
    if (!reaped) {
        /* Supervision ended early (poll failed): a stage still waiting for
         * 'G' sees the end of the socket and refuses. */
        shutdown(s->st, SHUT_WR);
        while (waitpid(s->child, &s->wstatus, 0) < 0 && errno == EINTR)
            ;
    }
    status_read(s->st, &s->ss);
    /* What bwrap wrote last, without waiting for an end that a process
     * still holding the pipe would never give: nothing read when the
     * descriptor cannot be made non-blocking. */
    int fl = fcntl(s->ep, F_GETFL);
    bool drain = fl >= 0 && fcntl(s->ep, F_SETFL, fl | O_NONBLOCK) == 0;
    char b[4096];
    ssize_t n;
    while (drain && (n = read(s->ep, b, sizeof b)) > 0)
        errbuf_take(&s->err, b, (size_t)n, superv_relays(s));
    if (s->cmd_pidfd >= 0)
        close(s->cmd_pidfd);
    if (s->ss.cmd_pidfd >= 0) /* an 'S' read only once bwrap had ended */
        close(s->ss.cmd_pidfd);
}

/* What the end of bwrap means (spec/runtime.md §6): the status to return,
 * or *why set (in `reason`) when the policy could not be enforced. */
static int launch_outcome(struct superv *s, const char *bwrap, char *reason,
                          size_t size, const char **why)
{
    const struct cp_rt_launch *l = s->l;
    int w = s->wstatus;
    int bwrap_status = WIFEXITED(w)     ? WEXITSTATUS(w)
                       : WIFSIGNALED(w) ? 128 + WTERMSIG(w)
                                        : CP_RT_EXIT_ERROR;
    *why = reason;
    if (s->ss.bwrap_errno) {
        snprintf(reason, size, "cannot execute %s: %s", bwrap,
                 strerror(s->ss.bwrap_errno));
        return 0;
    }
    if (s->ss.code && (s->ss.cmd_failed || s->ss.code == CP_RT_EXIT_ERROR)) {
        *why = NULL;
        return fail_msg(l->prog, s->ss.code, "%s", s->ss.msg);
    }
    if (s->ss.code) {
        snprintf(reason, size, "%s", s->ss.msg);
        return 0;
    }
    *why = NULL;
    /* A signal before 'S' was read: the stage, if it ran, found the 'K'
     * first and never executed the command (superv_stop). */
    if (s->got_signal)
        return 128 + s->got_signal;
    if (s->ss.started)
        return bwrap_status; /* the command's own status */
    if (l->fallback_why && cp_rt_bwrap_ns_failure(s->err.text)) {
        snprintf(l->fallback_why, l->fallback_why_size,
                 "bwrap cannot create its "
                 "namespaces here (%.200s)",
                 strtok(s->err.text, "\n"));
        return CP_RT_FALLBACK;
    }
    if (l->fallback_why && s->err.len &&
        write(2, s->err.text, s->err.len) < 0) {
    }
    if (strstr(s->err.text, "Unknown option --bind-fd") ||
        strstr(s->err.text, "Unknown option --ro-bind-fd"))
        /* cp_rt_bwrap_has_bind_fd said yes wrongly (its binary names the
         * option but does not take it): a refusal, never a fallback. */
        return fail_msg(l->prog, CP_RT_EXIT_ERROR,
                        "%s does not take --bind-fd although its binary "
                        "names it; refusing to run",
                        bwrap);
    const char *hint = cp_rt_bwrap_hint(s->err.text);
    snprintf(reason, size,
             "bwrap failed before the command started (exit %d)%s%s",
             bwrap_status, hint ? ": " : "", hint ? hint : "");
    *why = reason;
    return 0;
}

int cp_rt_run_bwrap(const struct cp_rt_artifact *a,
                    const struct cp_rt_params *p, const struct cp_rt_launch *l)
{
    struct bw_run r = {.l = l,
                       .open_ok = a->fail_open || l->allow_unenforced,
                       .st = {-1, -1},
                       .ep = {-1, -1},
                       .orig_err = -1,
                       .args_fd = -1,
                       .stage_fd = -1,
                       .sigfd = -1,
                       .stage = {.fd = -1},
                       .janitor = {.fd = -1},
                       .jan = {.exe = -1}};
    r.open_why = l->allow_unenforced ? "--allow-unenforced"
                                     : "'fail open' in the policy";
    bool enforce_exec;
    int rc = exec_preflight(a, &r, &enforce_exec);
    if (rc)
        return rc;
    r.bwrap = cp_rt_find_bwrap();
    if (!r.bwrap)
        return no_bwrap(&r);
    struct cp_rt_err e = {0};
    if (cp_rt_helper_open(CP_RT_STAGE_EXE, &r.stage, &e) ||
        cp_rt_helper_open(CP_RT_JANITOR_EXE, &r.janitor, &e))
        return run_fail(&r, e.status, "%s", e.msg);
    r.jan.exe = r.janitor.fd;
    if ((rc = run_plan(&r, a, p, enforce_exec)) || (rc = run_open(&r)) ||
        (rc = run_spawn(&r)))
        return rc;

    struct superv s = {.l = l,
                       .child = r.child,
                       .sigfd = r.sigfd,
                       .st = r.st[0],
                       .ep = r.ep[0],
                       .ss = {.cmd_pidfd = -1},
                       .cmd_pidfd = -1};
    supervise(&s);
    char reason[1400];
    const char *why;
    rc = launch_outcome(&s, r.bwrap, reason, sizeof reason, &why);
    if (!why) {
        run_teardown(&r, false);
        return rc;
    }
    if (!r.open_ok)
        return run_fail(&r, CP_RT_EXIT_CANNOT,
                        "cannot enforce the policy: %s; refusing to "
                        "run (use --allow-unenforced to run unconfined)",
                        why);
    cp_rt_warn(l->prog,
               "cannot enforce the policy (%s): running %s UNCONFINED (%s)",
               why, l->cmd[0], r.open_why);
    run_teardown(&r, true);
    return cp_rt_exec_unconfined(l->prog, l->cmd);
}
