/* SPDX-License-Identifier: MIT */
/* The bwrap backend: lowers the resolved rule list to the record stream of
 * spec/artifacts.md (or, with --format shell, a readable bwrap command
 * line); spec/backends.md, "bwrap", has the lowering table.
 *
 * Algorithm: classify the path rules into literal sets (write roots W,
 * deny-write D, deny-read R) kept sorted so that a subtree is a contiguous
 * run (backends/ospath.c); then keep only the mounts the policy needs:
 *   bind  W  unless W lies in another write root, a deny-write or a mask;
 *   ro    D  unless D lies in another deny-write or a mask, or reaches no
 *            write root (the whole host is already read-only);
 *   mask  R  unless R lies in another mask;
 *   pin   the ancestors between a write root and a protected path (a mount
 *         point cannot be renamed); pinro when a param makes the enclosing
 *         write root unknown at compile time.
 * Every query is a binary search, so the cost is O(n log n) in the number
 * of rules.  Classes are emitted broad before narrow (depth, then path
 * order): pinro, bind, pin, ro, roglob, mask, maskglob, exec, so a deny
 * always comes after the allow it restricts. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_vocab.h"
#include "backend.h"
#include "fidelity.h"
#include "ospath.h"
#include "sha256.h"

/* bwrap's hard limit is 9,000 arguments (bwrap.md §4); keep room for the
 * runtime's own words and the command. */
#define BW_MAX_MOUNTS 2900
#define BW_MAX_ARGS 8800

struct bw_item {
    const struct cp_rule *r;
    const struct cp_path *path;
};

struct bw_list {
    struct bw_item *v;
    size_t n, cap;
};

struct bw {
    struct cp_analysis head; /* first: the driver reads it (fidelity.h) */
    const struct cp_policy *p;
    const struct cp_backend_opts *o; /* &head.o */
    struct cp_arena *a;
    struct cp_fidtab ft;
    int errors;
    /* inputs, by class */
    struct bw_list w, dw, dr, x, gdw, gdr;
    /* outputs, by record class */
    struct bw_list binds, pins, pinros, ros, roglobs, masks, maskglobs, execs;
    struct cp_pathset wset, dset, rset, bset, xset;
    bool bind_root;   /* a write root is "/": /dev and /proc are re-created */
    bool exec_warned; /* CP0714 is reported once per policy */
};

static void push(struct cp_arena *a, struct bw_list *l, const struct cp_rule *r,
                 const struct cp_path *path)
{
    l->v = cp_backend_grow(a, l->v, l->n, &l->cap, sizeof *l->v);
    l->v[l->n].r = r;
    l->v[l->n].path = path;
    l->n++;
}

/* Broad before narrow; drops duplicate paths. */
static void order(struct cp_arena *a, struct bw_list *l)
{
    if (l->n < 2)
        return;
    const struct cp_path **pv = cp_xmalloc(l->n * sizeof *pv);
    size_t *perm = cp_xmalloc(l->n * sizeof *perm);
    for (size_t i = 0; i < l->n; i++)
        pv[i] = l->v[i].path;
    size_t k = cp_ospath_sort_uniq(pv, l->n, true, perm);
    struct bw_item *v = cp_arena_alloc(a, k * sizeof *v);
    for (size_t i = 0; i < k; i++)
        v[i] = l->v[perm[i]];
    free(perm);
    free(pv);
    l->v = v;
    l->n = k;
    l->cap = k;
}

static void set_of(struct cp_arena *a, struct cp_pathset *s,
                   const struct bw_list *l)
{
    const struct cp_path **v = cp_arena_alloc(a, (l->n + 1) * sizeof *v);
    for (size_t i = 0; i < l->n; i++)
        v[i] = l->v[i].path;
    cp_pathset_init(a, s, v, l->n);
}

/* Has a member that is a strict ancestor of p. */
static bool strict_anc(const struct cp_pathset *s, const struct cp_path *p)
{
    if (p->nsegs == 0)
        return false;
    struct cp_path q = cp_ospath_prefix(p, p->nsegs - 1);
    return cp_pathset_ancestor_or_self(s, &q) != NULL;
}

static struct cp_diag *report(struct bw *b, enum cp_diag_code c,
                              const struct cp_rule *r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static struct cp_diag *report(struct bw *b, enum cp_diag_code c,
                              const struct cp_rule *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct cp_diag *g = cp_backend_vreport(cp_analysis_sink(&b->head, c), c, r,
                                           fmt, ap);
    va_end(ap);
    return g;
}

static bool seg_is(const struct cp_seg *s, const char *lit)
{
    return s->kind == CP_SEG_LIT && s->len == strlen(lit) &&
           memcmp(s->s, lit, s->len) == 0;
}

/* An absolute path under /dev or /proc: the sandbox has its own of both
 * (--dev, --proc), so the host's nodes there are not what it sees. */
static bool in_own_dev_proc(const struct cp_path *p)
{
    return !p->root && p->nsegs >= 1 &&
           (seg_is(&p->segs[0], "dev") || seg_is(&p->segs[0], "proc"));
}

/* bwrap's --dev provides these nodes (and /dev/pts, /dev/shm), writable. */
static bool dev_provided(const struct cp_path *p)
{
    static const char *const nodes[] = {"null",    "zero",   "full",   "random",
                                        "urandom", "tty",    "pts",    "shm",
                                        "stdin",   "stdout", "stderr", "fd"};
    if (p->nsegs < 2)
        return false;
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++)
        if (seg_is(&p->segs[1], nodes[i]))
            return true;
    return false;
}

/* The protected-path pins of one deny-write region (literal path, or the
 * literal prefix of a glob when `upto_self`). */
static void pins_for(struct bw *b, const struct cp_rule *r,
                     const struct cp_path *p, bool upto_self)
{
    enum cp_ospath_rel rel = cp_pathset_overlaps(&b->bset, p);
    if (rel == CP_OSREL_NO)
        return;
    size_t end = upto_self ? p->nsegs + 1 : p->nsegs;
    size_t start;
    bool may = cp_pathset_other_root(&b->bset, p->root);
    if (may) {
        /* A param decides which ancestors are writable: pin every one with
         * a read-only self-bind placed before the write roots (buried
         * under a later bind, it still makes rename fail with EBUSY). */
        start = p->root ? 0 : 1;
    } else {
        const struct cp_path *w = cp_pathset_outermost_strict_ancestor(&b->bset,
                                                                       p);
        if (!w)
            return; /* p contains its write roots: nothing to rename */
        start = w->nsegs + 1;
    }
    for (size_t k = start; k < end; k++) {
        struct cp_path *q = cp_arena_alloc(b->a, sizeof *q);
        *q = cp_ospath_prefix(p, k);
        if (cp_pathset_has(&b->bset, q) || strict_anc(&b->dset, q) ||
            cp_pathset_ancestor_or_self(&b->rset, q))
            continue; /* already a mount point, or read-only */
        push(b->a, may ? &b->pinros : &b->pins, r, q);
    }
}

/* A deny glob expanded at start-up covers the matches that exist then
 * (each one mounted, its parents pinned by the runtime); a path that
 * starts to match later is not covered, so the rule is not fully
 * enforced, and the warning names both ways to get one. */
static void glob_expanded(struct bw *b, const struct cp_rule *r)
{
    cp_fidtab_set(
        &b->ft, r, CP_FID_NOT_ENFORCED,
        r->kind == CP_R_DENY_WRITE
            ? "expanded when the sandbox starts: a match created later, "
              "or one made by renaming or recreating a directory, is not "
              "covered"
            : "expanded when the sandbox starts: a match created later, "
              "or one made by renaming or recreating a directory, is not "
              "covered; each match is masked read-only, so writing it "
              "is denied too");
    report(b, CP0706, r,
           "bwrap: deny glob '%s' is expanded when the sandbox starts: a "
           "match created later is not covered, nor one made by renaming or "
           "recreating a directory (the parents of each match that exists "
           "then are pinned)",
           cp_backend_rule_text(b->a, r));
}

/* The exec allow-list as a path set, built when a deny exec first needs
 * it. */
struct bw_xs {
    struct cp_pathset set;
    bool ready; /* set is built */
    bool glob;  /* some exec rule is a glob */
};

/* A write rule: a bind, or not granted (a glob; a node the sandbox's own /dev and
 * /proc do not provide). */
static void classify_write(struct bw *b, const struct cp_rule *r)
{
    struct cp_arena *a = b->a;
    const struct cp_path *path = &r->u.path;
    if (path->has_glob) {
        cp_fidtab_set(&b->ft, r, CP_FID_STRICTER,
                      "a glob cannot be a mount: the write is not granted");
        report(b, CP0705, r,
               "bwrap: write glob '%s' cannot be a mount: the write "
               "is not granted",
               cp_backend_rule_text(b->a, r));
    } else if (in_own_dev_proc(path)) {
        if (seg_is(&path->segs[0], "dev") && dev_provided(path)) {
            cp_fidtab_set(&b->ft, r, CP_FID_EXACT,
                          "provided writable by --dev /dev");
        } else {
            cp_fidtab_set(&b->ft, r, CP_FID_STRICTER,
                          "the sandbox has its own /dev and /proc: the "
                          "host's node is not available");
            report(b, CP0712, r,
                   "bwrap: '%s' is not provided by the sandbox's own "
                   "/dev and /proc: the write is not granted",
                   cp_backend_rule_text(b->a, r));
        }
    } else {
        push(a, &b->w, r, path);
        cp_fidtab_set(&b->ft, r, CP_FID_EXACT, "--bind P P");
    }
}

/* An exec rule: a Landlock execute grant (the first one warns that the
 * allow-list is not fully enforced), or not granted (a glob). */
static void classify_exec(struct bw *b, const struct cp_rule *r)
{
    struct cp_arena *a = b->a;
    const struct cp_path *path = &r->u.path;
    if (path->has_glob) {
        cp_fidtab_set(&b->ft, r, CP_FID_STRICTER,
                      "a glob cannot be a Landlock rule: the exec is not "
                      "granted");
        report(b, CP0708, r,
               "bwrap: exec glob '%s' cannot be a Landlock rule: the "
               "exec is not granted",
               cp_backend_rule_text(b->a, r));
    } else {
        push(a, &b->x, r, path);
        /* The grant is exact; the allow-list's "nothing else" is
         * not: Landlock checks execve, not the loader's mmap. */
        cp_fidtab_set(&b->ft, r, CP_FID_NOT_ENFORCED,
                      "Landlock execute right; not fully enforced: the ELF "
                      "loader and PT_INTERP interpreters are granted, and "
                      "the loader runs any readable file (ld.so FILE); an "
                      "entry that is a symbolic link grants the program it "
                      "resolves to at launch, which may then run under any "
                      "name (its own path, another link to it)");
        if (!b->exec_warned) {
            b->exec_warned = true;
            report(b, CP0714, r,
                   "bwrap: the exec allow-list is not fully enforced: "
                   "the ELF loader, granted so that dynamic binaries "
                   "run, runs any readable file ('ld.so /usr/bin/id'), "
                   "and PT_INTERP interpreters of allowed binaries are "
                   "granted too");
        }
    }
}

/* A deny exec rule: already denied outside the exec allow-list, else a
 * deny-read mask. */
static void classify_deny_exec(struct bw *b, const struct cp_rule *r,
                               struct bw_xs *xs)
{
    const struct cp_policy *p = b->p;
    struct cp_arena *a = b->a;
    const struct cp_path *path = &r->u.path;
    /* Under an exec allow-list that never reaches the path, the
     * allow-list already denies it. */
    if (p->has_exec) {
        if (!xs->ready) {
            const struct cp_path **xv = cp_arena_alloc(a, (p->nrules + 1) *
                                                              sizeof *xv);
            size_t nx = 0;
            for (size_t j = 0; j < p->nrules; j++)
                if (p->rules[j]->kind == CP_R_EXEC) {
                    xv[nx] = &p->rules[j]->u.path;
                    xs->glob |= xv[nx]->has_glob;
                    nx++;
                }
            cp_pathset_init(a, &xs->set, xv, nx);
            xs->ready = true;
        }
        if (!xs->glob && cp_pathset_overlaps(&xs->set, path) == CP_OSREL_NO) {
            cp_fidtab_set(&b->ft, r, CP_FID_EXACT,
                          "outside the exec allow-list: already denied");
            return;
        }
    }
    push(a, path->has_glob ? &b->gdr : &b->dr, r, path);
    cp_fidtab_set(&b->ft, r, CP_FID_STRICTER,
                  "Landlock cannot subtract from a grant: masked, so "
                  "reading is denied too");
    report(b, CP0707, r,
           "bwrap: deny exec '%s' is lowered as a deny-read mask: "
           "reading it is denied too",
           cp_backend_rule_text(b->a, r));
}

/* 1. Classify every rule into its input class, rating what is settled here. */
/* net socket P: a `socket` record; confpol-run lets connect(2) reach the
 * socket found at P when the sandbox starts (spec/runtime.md §14.5).  With
 * the network open it changes nothing (every socket is reachable). */
static void classify_socket(struct bw *b, const struct cp_rule *r)
{
    if (b->p->net == CP_NET_ALL) {
        cp_fidtab_set(&b->ft, r, CP_FID_EXACT,
                      "no record: without 'net deny' or 'net allow' every "
                      "Unix socket is reachable");
        return;
    }
    const struct cp_path *p = &r->u.path;
    if (in_own_dev_proc(p)) {
        /* The record is written all the same: the runtime finds no socket
         * there and says so at launch. */
        cp_fidtab_set(&b->ft, r, CP_FID_STRICTER,
                      "the sandbox has its own /dev and /proc: the host's "
                      "socket there is not reachable");
        report(b, CP0715, r,
               "bwrap: '%s' lies in the sandbox's own /dev or /proc, which "
               "holds no socket of the host: it stays closed",
               cp_backend_rule_text(b->a, r));
        return;
    }
    cp_fidtab_set(&b->ft, r, CP_FID_STRICTER,
                  "a socket record: confpol-run's supervisor lets connect(2) "
                  "reach the socket found at P when the sandbox starts; a "
                  "socket re-created at P later, and datagram Unix sockets, "
                  "stay closed");
}

/* The direct path (runtime.md 14.8) serves names only: inside the sandbox
 * an IP literal or loopback is the sandbox's own, so a client that ignores
 * the proxy variables does not reach such a rule's host. */
static void classify_net_allow(struct bw *b, const struct cp_rule *r)
{
    const struct cp_domain *dm = &r->u.dom;
    bool proxy_only = dm->kind != CP_HOST_NAME ||
                      !strcmp(dm->name, "localhost");
    cp_fidtab_set(
        &b->ft, r, CP_FID_STRICTER,
        proxy_only
            ? "--unshare-net; confpol-run's filtering proxy decides each "
              "connection by this rule exactly, but not through the direct "
              "path: a client that ignores the proxy variables reaches the "
              "sandbox's own address, not the host's; Unix sockets are "
              "closed too (confpol-run's seccomp filter), except those a "
              "'net socket' rule names"
            : "--unshare-net; confpol-run's filtering proxy decides each "
              "connection by this rule exactly, through the proxy "
              "variables and the direct path alike; Unix sockets are "
              "closed too (confpol-run's seccomp filter), except those a "
              "'net socket' rule names");
}

static void classify(struct bw *b)
{
    const struct cp_policy *p = b->p;
    struct cp_arena *a = b->a;
    bool coop = p->profile == CP_PROFILE_COOPERATIVE;
    struct bw_xs xs0 = {0}, *xs = &xs0;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        const struct cp_path *path = &r->u.path;
        if (coop) {
            cp_fidtab_set(&b->ft, r, CP_FID_NOT_ENFORCED,
                          "cooperative profile: no bwrap artifact is emitted");
            continue;
        }
        switch (r->kind) {
        case CP_R_WRITE:
            classify_write(b, r);
            break;
        case CP_R_EXEC:
            classify_exec(b, r);
            break;
        case CP_R_DENY_WRITE:
            push(a, path->has_glob ? &b->gdw : &b->dw, r, path);
            cp_fidtab_set(
                &b->ft, r, CP_FID_EXACT,
                "--ro-bind P P after the write roots, ancestors pinned; "
                "no mount outside the write roots; a P missing at launch "
                "inside a write root is a scratch directory: writes there "
                "seem to succeed and are discarded at exit, nothing reaches "
                "the host (create P before the launch to make it "
                "read-only)");
            break;
        case CP_R_DENY_READ:
            push(a, path->has_glob ? &b->gdr : &b->dr, r, path);
            cp_fidtab_set(
                &b->ft, r, CP_FID_EXACT,
                "mask: --tmpfs P --remount-ro P, or /dev/null for a file");
            break;
        case CP_R_DENY_EXEC:
            classify_deny_exec(b, r, xs);
            break;
        case CP_R_GATE_ASK:
        case CP_R_GATE_DENY:
            cp_fidtab_set(&b->ft, r, CP_FID_NOT_ENFORCED,
                          "gates are enforced by the claude target's hook");
            break;
        case CP_R_NET_DENY:
            cp_fidtab_set(&b->ft, r, CP_FID_STRICTER,
                          "--unshare-net; Unix sockets are closed too "
                          "(confpol-run's seccomp filter), except those a "
                          "'net socket' rule names");
            break;
        case CP_R_NET_ALLOW:
            classify_net_allow(b, r);
            break;
        case CP_R_NET_SOCKET:
            classify_socket(b, r);
            break;
        }
    }
}

/* Write roots that are not inside another one or a deny: binds (one inside
 * a deny-read mask is not granted). */
static void minimal_binds(struct bw *b)
{
    struct cp_arena *a = b->a;
    for (size_t i = 0; i < b->w.n; i++) {
        const struct cp_path *q = b->w.v[i].path;
        if (strict_anc(&b->wset, q) || cp_pathset_ancestor_or_self(&b->dset, q))
            continue;
        if (cp_pathset_ancestor_or_self(&b->rset, q)) {
            cp_fidtab_set(
                &b->ft, b->w.v[i].r, CP_FID_STRICTER,
                "inside a deny-read mask, which is read-only: the write "
                "is not granted");
            report(b, CP0709, b->w.v[i].r,
                   "bwrap: write root '%s' lies inside a deny-read mask, "
                   "which is read-only: the write is not granted",
                   cp_backend_rule_text(b->a, b->w.v[i].r));
            continue;
        }
        push(a, &b->binds, b->w.v[i].r, q);
        if (!q->root && q->nsegs == 0)
            b->bind_root = true;
    }
    set_of(a, &b->bset, &b->binds);
}

/* Deny-write paths a bind may reach: their ancestors pinned and a
 * read-only mount unless a mask covers them. */
static void deny_write_mounts(struct bw *b)
{
    struct cp_arena *a = b->a;
    for (size_t i = 0; i < b->dw.n; i++) {
        const struct bw_item *it = &b->dw.v[i];
        if (strict_anc(&b->dset, it->path))
            continue; /* inside another deny-write */
        if (cp_pathset_overlaps(&b->bset, it->path) == CP_OSREL_NO)
            continue; /* read-only already: --ro-bind / / */
        pins_for(b, it->r, it->path, false);
        if (cp_pathset_ancestor_or_self(&b->rset, it->path))
            continue; /* the mask is read-only too */
        push(a, &b->ros, it->r, it->path);
    }
}

/* Deny-read masks, rated stricter where a write root holds them. */
static void deny_read_masks(struct bw *b)
{
    struct cp_arena *a = b->a;
    for (size_t i = 0; i < b->dr.n; i++) {
        const struct bw_item *it = &b->dr.v[i];
        if (strict_anc(&b->rset, it->path))
            continue;
        push(a, &b->masks, it->r, it->path);
        enum cp_ospath_rel wr = cp_pathset_overlaps(&b->bset, it->path);
        if (it->r->kind == CP_R_DENY_READ && wr == CP_OSREL_MAY &&
            !cp_pathset_ancestor_or_self(&b->dset, it->path)) {
            /* A param decides: stricter for the bindings that put it in
             * a write root (PROJECT = HOME), exact for the others. */
            cp_fidtab_set(
                &b->ft, it->r, CP_FID_STRICTER,
                "when a param's value puts it inside a write root, the "
                "mask is read-only: writing is denied too");
        } else if (it->r->kind == CP_R_DENY_READ && wr == CP_OSREL_YES &&
                   !cp_pathset_ancestor_or_self(&b->dset, it->path)) {
            cp_fidtab_set(&b->ft, it->r, CP_FID_STRICTER,
                          "the mask is read-only: writing is denied too");
            report(b, CP0709, it->r,
                   "bwrap: '%s' lies inside a write root and its mask is "
                   "read-only: writing it is denied too",
                   cp_backend_rule_text(b->a, it->r));
        }
    }
}

/* 3. Deny-write globs under a bind: pinned, and read-only matches with
 * --expand-globs (an error without). */
static void deny_write_globs(struct bw *b)
{
    struct cp_arena *a = b->a;
    for (size_t i = 0; i < b->gdw.n; i++) {
        const struct bw_item *it = &b->gdw.v[i];
        if (cp_pathset_contains(&b->dset, it->path))
            continue; /* the deny-write path's pins cover it */
        if (cp_pathset_overlaps(&b->bset, it->path) == CP_OSREL_NO)
            continue;
        size_t lp = 0;
        while (lp < it->path->nsegs && it->path->segs[lp].kind == CP_SEG_LIT)
            lp++;
        struct cp_path *pre = cp_arena_alloc(a, sizeof *pre);
        *pre = cp_ospath_prefix(it->path, lp);
        if (cp_pathset_contains(&b->rset, it->path)) {
            /* Read-only inside the mask; the mask moves with a renamed
             * parent, so the parents above it are pinned. */
            pins_for(b, it->r, pre, true);
            continue;
        }
        if (!b->o || !b->o->expand_globs) {
            b->errors++;
            cp_fidtab_set(&b->ft, it->r, CP_FID_NOT_ENFORCED,
                          "a glob cannot be a mount (see --expand-globs)");
            struct cp_diag *g = report(
                b, CP0702, it->r,
                "bwrap: deny glob '%s' inside a write root cannot be a mount",
                cp_backend_rule_text(b->a, it->r));
            if (g)
                cp_diag_set_suggestion(
                    g, "pass --expand-globs to protect the matches that exist "
                       "when the sandbox starts, or deny a directory instead");
            continue;
        }
        pins_for(b, it->r, pre, true);
        push(a, &b->roglobs, it->r, it->path);
        glob_expanded(b, it->r);
    }
}

/* 3. Deny-read globs: masked matches with --expand-globs (an error
 * without). */
static void deny_read_globs(struct bw *b)
{
    struct cp_arena *a = b->a;
    for (size_t i = 0; i < b->gdr.n; i++) {
        const struct bw_item *it = &b->gdr.v[i];
        if (cp_pathset_contains(&b->rset, it->path))
            continue;
        if (!b->o || !b->o->expand_globs) {
            b->errors++;
            cp_fidtab_set(&b->ft, it->r, CP_FID_NOT_ENFORCED,
                          "a glob cannot be a mount (see --expand-globs)");
            struct cp_diag *g = report(
                b, CP0702, it->r, "bwrap: deny glob '%s' cannot be a mount",
                cp_backend_rule_text(b->a, it->r));
            if (g)
                cp_diag_set_suggestion(
                    g, "pass --expand-globs to mask the matches that exist "
                       "when the sandbox starts, or deny a directory instead");
            continue;
        }
        push(a, &b->maskglobs, it->r, it->path);
        glob_expanded(b, it->r);
    }
}

/* 4. The exec allow-list, without entries inside other entries; an
 * allow-list of globs only is refused. */
static void exec_list(struct bw *b)
{
    const struct cp_policy *p = b->p;
    struct cp_arena *a = b->a;
    for (size_t i = 0; i < b->x.n; i++)
        if (!strict_anc(&b->xset, b->x.v[i].path))
            push(a, &b->execs, b->x.v[i].r, b->x.v[i].path);

    /* An exec allow-list whose every entry is a glob grants nothing on
     * Linux; without exec records the runtime would not restrict exec at
     * all, so refuse rather than be looser. */
    if (p->has_exec && b->x.n == 0) {
        b->errors++;
        const struct cp_rule *first = NULL;
        for (size_t i = 0; i < p->nrules && !first; i++)
            if (p->rules[i]->kind == CP_R_EXEC)
                first = p->rules[i];
        struct cp_diag *g = report(
            b, CP0713, first,
            "bwrap: every exec rule is a glob, which Landlock cannot "
            "express: the sandbox could execute nothing");
        if (g)
            cp_diag_set_suggestion(
                g, "allow the directories that hold the binaries, e.g. "
                   "'exec /usr/bin'");
    }
}

/* The mount count bwrap accepts: an error beyond it. */
static void mount_limit(struct bw *b)
{
    size_t mounts = b->pinros.n + b->binds.n + b->pins.n + b->ros.n +
                    b->masks.n;
    size_t args = 3 * (mounts - b->masks.n) + 4 * b->masks.n + 32;
    if (mounts > BW_MAX_MOUNTS || args > BW_MAX_ARGS) {
        b->errors++;
        struct cp_diags *d = cp_analysis_sink(&b->head, CP0703);
        if (d) {
            struct cp_diag *g = cp_diag_report(
                d, CP0703, NULL,
                "bwrap: the policy needs %zu mounts (about %zu bwrap "
                "arguments); bwrap accepts at most 9000 arguments, so at most "
                "%d mounts",
                mounts, args, BW_MAX_MOUNTS);
            if (g)
                cp_diag_set_suggestion(
                    g, "deny or allow whole directories instead of many files");
        }
    }
}

static void analyse(struct bw *b)
{
    const struct cp_policy *p = b->p;
    struct cp_arena *a = b->a;
    cp_fidtab_init(&b->ft, a, p->nrules);
    classify(b);
    if (p->profile == CP_PROFILE_COOPERATIVE)
        return;

    /* 2. Sets and minimal mounts. */
    set_of(a, &b->wset, &b->w);
    set_of(a, &b->dset, &b->dw);
    set_of(a, &b->rset, &b->dr);
    set_of(a, &b->xset, &b->x);
    minimal_binds(b);
    set_of(a, &b->bset, &b->binds);
    deny_write_mounts(b);
    deny_read_masks(b);
    deny_write_globs(b);
    deny_read_globs(b);
    exec_list(b);

    order(a, &b->pinros);
    order(a, &b->binds);
    order(a, &b->pins);
    order(a, &b->ros);
    order(a, &b->roglobs);
    order(a, &b->masks);
    order(a, &b->maskglobs);
    order(a, &b->execs);

    mount_limit(b);
}

/* ---- records -------------------------------------------------------------- */

/* One record of the artifact: a tag and up to three fields. */
struct rec {
    const char *tag;
    const char *f[3];
    size_t nf;
    const struct cp_path *path; /* path records: the path (for shell form) */
    bool glob;
};

struct recs {
    struct rec *v;
    size_t n, cap;
};

static struct rec *rec_add(struct cp_arena *a, struct recs *rs, const char *tag)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 64;
        struct rec *v = cp_arena_alloc(a, cap * sizeof *v);
        if (rs->n)
            memcpy(v, rs->v, rs->n * sizeof *v);
        rs->v = v;
        rs->cap = cap;
    }
    struct rec *r = &rs->v[rs->n++];
    memset(r, 0, sizeof *r);
    r->tag = tag;
    return r;
}

static void rec_arg(struct cp_arena *a, struct recs *rs, const char *word)
{
    struct rec *r = rec_add(a, rs, CP_BW_TAG_ARG);
    r->f[0] = word;
    r->nf = 1;
}

/* REST of a path: "" or "/seg/seg"; glob segments keep their syntax
 * ('\\' escapes), literal segments that hold '*', '?' or '\\' in a glob
 * pattern are escaped so the pattern reads back unambiguously. */
static const char *rest_of(struct cp_arena *a, const struct cp_path *p,
                           bool pattern)
{
    /* Written straight into the arena: at most 1 + 2 * len bytes a
     * segment. */
    size_t bound = 1;
    for (size_t i = 0; i < p->nsegs; i++)
        bound += 1 + (p->segs[i].kind == CP_SEG_ANY ? 2 : 2 * p->segs[i].len);
    char *r = cp_arena_alloc(a, bound), *q = r;
    for (size_t i = 0; i < p->nsegs; i++) {
        const struct cp_seg *s = &p->segs[i];
        *q++ = '/';
        if (s->kind == CP_SEG_ANY) {
            *q++ = '*';
            *q++ = '*';
            continue;
        }
        if (!pattern || s->kind != CP_SEG_LIT) {
            if (s->len)
                memcpy(q, s->s, s->len);
            q += s->len;
            continue;
        }
        for (size_t j = 0; j < s->len; j++) {
            char c = s->s[j];
            if (c == '*' || c == '?' || c == '\\')
                *q++ = '\\';
            *q++ = c;
        }
    }
    *q = '\0';
    return r;
}

static void rec_path(struct cp_arena *a, struct recs *rs, const char *tag,
                     const struct bw_list *l, bool pattern)
{
    for (size_t i = 0; i < l->n; i++) {
        struct rec *r = rec_add(a, rs, tag);
        r->f[0] = l->v[i].path->root ? l->v[i].path->root : "";
        r->f[1] = rest_of(a, l->v[i].path, pattern);
        r->nf = 2;
        r->path = l->v[i].path;
        r->glob = pattern;
    }
}

/* One `net PATTERN WHERE` record per net rule, in source order, when the
 * policy has an allow-list: the runtime's proxy decides with them
 * (spec/artifacts.md).  WHERE names the rule in 403 answers and logs. */
static void rec_net(struct bw *b, struct recs *rs)
{
    const struct cp_policy *p = b->p;
    if (p->net != CP_NET_LIST)
        return;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if (r->kind != CP_R_NET_ALLOW && r->kind != CP_R_NET_DENY)
            continue;
        struct rec *rc = rec_add(b->a, rs, CP_BW_TAG_NET);
        rc->f[0] = r->kind == CP_R_NET_ALLOW ? cp_domain_format(b->a, &r->u.dom)
                                             : "";
        rc->f[1] = cp_backend_rule_where(b->a, r);
        rc->nf = 2;
    }
}

/* One `socket ROOT REST WHERE` record per path of each `net socket` rule,
 * in source order, when the network is not open: the runtime lets the
 * sandbox connect to these sockets only (spec/artifacts.md). */
static void rec_socket(struct bw *b, struct recs *rs)
{
    const struct cp_policy *p = b->p;
    if (p->net == CP_NET_ALL)
        return;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if (r->kind != CP_R_NET_SOCKET)
            continue;
        struct rec *rc = rec_add(b->a, rs, CP_BW_TAG_SOCKET);
        rc->f[0] = r->u.path.root ? r->u.path.root : "";
        rc->f[1] = rest_of(b->a, &r->u.path, false);
        rc->f[2] = cp_backend_rule_where(b->a, r);
        rc->nf = 3;
        rc->path = &r->u.path;
    }
}

static const char *const bw_base[] = {
    "--ro-bind",
    "/",
    "/", /* the host, read-only */
    "--dev",
    "/dev", /* a private minimal /dev */
    "--proc",
    "/proc",            /* procfs of the new pid namespace */
    "--unshare-user",   /* also when run as root */
    "--disable-userns", /* no nested user namespaces */
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent", /* no orphaned sandbox */
    "--new-session",     /* no TIOCSTI (CVE-2017-5226) */
    "--cap-drop",
    "ALL", /* no capabilities, also as root */
};

static bool param_used(const struct recs *rs, const char *name)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->v[i].path && rs->v[i].path->root &&
            strcmp(rs->v[i].path->root, name) == 0)
            return true;
    return false;
}

/* The lowering order of spec/artifacts.md, without the header records. */
static void build_records(struct bw *b, struct recs *rs)
{
    struct cp_arena *a = b->a;
    for (size_t i = 0; i < sizeof bw_base / sizeof *bw_base; i++)
        rec_arg(a, rs, bw_base[i]);
    rec_path(a, rs, CP_BW_TAG_PINRO, &b->pinros, false);
    rec_path(a, rs, CP_BW_TAG_BIND, &b->binds, false);
    if (b->bind_root) {
        /* "write /" replaced the whole tree: re-create /dev and /proc. */
        rec_arg(a, rs, "--dev");
        rec_arg(a, rs, "/dev");
        rec_arg(a, rs, "--proc");
        rec_arg(a, rs, "/proc");
    }
    rec_path(a, rs, CP_BW_TAG_PIN, &b->pins, false);
    rec_path(a, rs, CP_BW_TAG_RO, &b->ros, false);
    rec_path(a, rs, CP_BW_TAG_ROGLOB, &b->roglobs, true);
    rec_path(a, rs, CP_BW_TAG_MASK, &b->masks, false);
    rec_path(a, rs, CP_BW_TAG_MASKGLOB, &b->maskglobs, true);
    rec_path(a, rs, CP_BW_TAG_EXEC, &b->execs, false);
    if (b->p->net != CP_NET_ALL)
        rec_arg(a, rs, "--unshare-net");
    rec_net(b, rs);
    rec_socket(b, rs);
}

static void field(struct cp_buf *out, const char *s)
{
    cp_buf_adds(out, s);
    cp_buf_addc(out, '\0');
}

static void emit_stream(struct bw *b, const struct recs *rs, struct cp_buf *out)
{
    const struct cp_policy *p = b->p;
    size_t start = out->len, nrec = 0;
    field(out, CP_BW_TAG_HEADER);
    field(out, "1");
    nrec++;
    field(out, CP_BW_TAG_PROFILE);
    field(out, cp_profile_text(p->profile));
    nrec++;
    field(out, CP_BW_TAG_FAIL);
    field(out, p->fail == CP_FAIL_OPEN ? "open" : "closed");
    nrec++;
    /* Used params, and every declared one: the runtime accepts -D for a
     * declared param that the artifact no longer uses (bound at build
     * time, or used by no rule) and refuses an unknown name. */
    for (size_t i = 0; i < p->nparams; i++)
        if (param_used(rs, p->params[i].name) ||
            (strcmp(p->params[i].name, "HOME") &&
             strcmp(p->params[i].name, "PROJECT"))) {
            field(out, CP_BW_TAG_PARAM);
            field(out, p->params[i].name);
            nrec++;
        }
    for (size_t i = 0; i < rs->n; i++) {
        field(out, rs->v[i].tag);
        for (size_t k = 0; k < rs->v[i].nf; k++)
            field(out, rs->v[i].f[k]);
        nrec++;
    }
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(out->data + start, out->len - start, hex);
    field(out, CP_BW_TAG_END);
    cp_buf_printf(out, "%zu", nrec);
    cp_buf_addc(out, '\0');
    field(out, hex);
}

/* ---- --format shell --------------------------------------------------------- */

static bool shell_safe(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || strchr("_./:=@%+,-", c);
}

static void sh_quote(struct cp_buf *out, const char *s)
{
    bool safe = *s != '\0';
    for (const char *q = s; *q; q++)
        if (!shell_safe((unsigned char)*q))
            safe = false;
    if (safe) {
        cp_buf_adds(out, s);
        return;
    }
    cp_buf_addc(out, '\'');
    for (const char *q = s; *q; q++) {
        if (*q == '\'')
            cp_buf_adds(out, "'\\''");
        else
            cp_buf_addc(out, *q);
    }
    cp_buf_addc(out, '\'');
}

/* A path word: "$ROOT" followed by the quoted rest. */
static void sh_path(struct cp_buf *out, const struct rec *r)
{
    if (r->f[0][0]) {
        cp_buf_printf(out, "\"$%s\"", r->f[0]);
        if (r->f[1][0])
            sh_quote(out, r->f[1]);
    } else {
        sh_quote(out, r->f[1][0] ? r->f[1] : "/");
    }
}

/* Comment text: control bytes and backslashes escaped, so that a path
 * cannot end the comment. */
static void sh_comment_path(struct cp_buf *out, const struct rec *r)
{
    struct cp_buf w = {0};
    sh_path(&w, r);
    for (size_t i = 0; i < w.len; i++) {
        unsigned char c = (unsigned char)w.data[i];
        if (c == '\\')
            cp_buf_adds(out, "\\\\");
        else if (c < 0x20 || c == 0x7f)
            cp_buf_printf(out, "\\x%02x", c);
        else
            cp_buf_addc(out, (char)c);
    }
    cp_buf_free(&w);
}

/* The shell form of a deny target that is missing when the script runs:
 * inside a write root the sandbox could create it, so it is covered as
 * confpol-run covers it (spec/runtime.md, "Missing deny targets"): a
 * write-denied target with a scratch tmpfs (writes inside are thrown away
 * at exit, so `git init` works under `deny write .git/hooks`; bwrap leaves
 * an empty directory on the host), a read-denied one with a read-only
 * /dev/null (bwrap leaves an empty file); anywhere else everything is
 * read-only and it cannot be created, so nothing is needed.  The write
 * roots are compared when the script runs, with the params' values. */
static void sh_missing(struct cp_buf *out, const struct recs *rs,
                       const struct rec *r, bool write_denied)
{
    cp_buf_adds(out, "\nelse case ");
    sh_path(out, r);
    cp_buf_adds(out, " in ");
    bool any = false;
    for (size_t i = 0; i < rs->n; i++)
        if (strcmp(rs->v[i].tag, CP_BW_TAG_BIND) == 0) {
            cp_buf_adds(out, any ? "|" : "");
            sh_path(out, &rs->v[i]);
            cp_buf_adds(out, "/*");
            any = true;
        }
    if (!any)
        cp_buf_adds(out, "/dev/null/*"); /* matches nothing */
    cp_buf_adds(out, write_denied ? ") set -- \"$@\" --tmpfs "
                                  : ") set -- \"$@\" --ro-bind /dev/null ");
    sh_path(out, r);
    cp_buf_adds(out, ";; esac; fi\nset -- \"$@\"");
}

/* The script's header: what it is, and the params it needs. */
static void sh_header(const struct bw *b, const struct recs *rs,
                      struct cp_buf *out)
{
    const struct cp_policy *p = b->p;
    cp_buf_printf(out,
                  "# bwrap command line of %s.confpol (profile %s, fail %s)"
                  "\n# generated by confpol build --format shell: for "
                  "reading; confpol-run applies the .bwrap artifact\n",
                  p->stem ? p->stem : "policy", cp_profile_text(p->profile),
                  p->fail == CP_FAIL_OPEN ? "open" : "closed");
    bool any = false;
    for (size_t i = 0; i < p->nparams; i++)
        if (param_used(rs, p->params[i].name)) {
            cp_buf_adds(out, any ? " " : "# params (set before use):");
            cp_buf_printf(out, " %s", p->params[i].name);
            any = true;
        }
    if (any)
        cp_buf_addc(out, '\n');
}

/* Comments for what confpol-run applies beside bwrap's arguments (exec
 * list, glob records, the network proxy). */
static void sh_comments(const struct recs *rs, struct cp_buf *out)
{
    for (size_t i = 0; i < rs->n; i++) {
        const struct rec *r = &rs->v[i];
        const char *what = NULL;
        if (strcmp(r->tag, CP_BW_TAG_EXEC) == 0)
            what = "# exec allowed (Landlock, applied by confpol-run): ";
        else if (strcmp(r->tag, CP_BW_TAG_MASKGLOB) == 0)
            what = "# masked when the sandbox starts, each match of: ";
        else if (strcmp(r->tag, CP_BW_TAG_ROGLOB) == 0)
            what = "# read-only when the sandbox starts, each match of: ";
        else if (strcmp(r->tag, CP_BW_TAG_SOCKET) == 0) {
            cp_buf_adds(out, "# Unix socket the sandbox may connect to "
                             "(confpol-run's supervisor): ");
            sh_comment_path(out, r);
            cp_buf_printf(out, " (%s)\n", r->f[2]);
            continue;
        } else if (strcmp(r->tag, CP_BW_TAG_NET) == 0) {
            cp_buf_printf(out,
                          "# network through confpol-run's proxy: "
                          "allow %s (%s)\n",
                          r->f[0], r->f[1]);
            continue;
        }
        if (what) {
            cp_buf_adds(out, what);
            sh_comment_path(out, r);
            cp_buf_addc(out, '\n');
        }
    }
}

/* "[ -e P ] || [ -L P ]; then set -- "$@" ": the path exists (a dangling
 * link too). */
static void sh_exists(struct cp_buf *out, const struct rec *r)
{
    cp_buf_adds(out, "[ -e ");
    sh_path(out, r);
    cp_buf_adds(out, " ] || [ -L ");
    sh_path(out, r);
    cp_buf_adds(out, " ]; then set -- \"$@\" ");
}

/* A deny-write record: a read-only bind where the path exists. */
static void sh_ro(const struct recs *rs, const struct rec *r,
                  struct cp_buf *out)
{
    cp_buf_adds(out, "\nif ");
    sh_exists(out, r);
    cp_buf_adds(out, "--ro-bind ");
    sh_path(out, r);
    cp_buf_addc(out, ' ');
    sh_path(out, r);
    sh_missing(out, rs, r, true);
}

/* A deny-read record: a read-only tmpfs on a directory, /dev/null on
 * anything else. */
static void sh_mask(const struct recs *rs, const struct rec *r,
                    struct cp_buf *out)
{
    cp_buf_adds(out, "\nif [ -d ");
    sh_path(out, r);
    cp_buf_adds(out, " ]; then set -- \"$@\" --tmpfs ");
    sh_path(out, r);
    cp_buf_adds(out, " --remount-ro ");
    sh_path(out, r);
    cp_buf_adds(out, "\nelif ");
    sh_exists(out, r);
    cp_buf_adds(out, "--ro-bind /dev/null ");
    sh_path(out, r);
    sh_missing(out, rs, r, false);
}

/* The words of one record. */
static void sh_record(const struct recs *rs, const struct rec *r,
                      struct cp_buf *out)
{
    if (strcmp(r->tag, CP_BW_TAG_ARG) == 0) {
        if (r->f[0][0] == '-' && r->f[0][1] == '-')
            cp_buf_adds(out, " \\\n    ");
        else
            cp_buf_addc(out, ' ');
        sh_quote(out, r->f[0]);
        return;
    }
    /* A missing write root or pin is skipped, as by confpol-run. */
    const char *opt = NULL;
    if (strcmp(r->tag, CP_BW_TAG_BIND) == 0 ||
        strcmp(r->tag, CP_BW_TAG_PIN) == 0)
        opt = "--bind-try";
    else if (strcmp(r->tag, CP_BW_TAG_PINRO) == 0)
        opt = "--ro-bind-try";
    if (opt) {
        cp_buf_printf(out, " \\\n    %s ", opt);
        sh_path(out, r);
        cp_buf_addc(out, ' ');
        sh_path(out, r);
    } else if (strcmp(r->tag, CP_BW_TAG_RO) == 0) {
        sh_ro(rs, r, out);
    } else if (strcmp(r->tag, CP_BW_TAG_MASK) == 0) {
        sh_mask(rs, r, out);
    }
}

static void emit_shell(struct bw *b, const struct recs *rs, struct cp_buf *out)
{
    sh_header(b, rs, out);
    sh_comments(rs, out);
    /* The words are collected in "$@" after the command's own, then the
     * command is rotated behind "--": POSIX sh has no arrays, and a mask is
     * decided when the script runs, as confpol-run decides it
     * (spec/runtime.md): a directory gets a read-only tmpfs, anything else
     * a read-only /dev/null (a tmpfs cannot be mounted on a file). */
    cp_buf_adds(out, "# a deny target missing at launch is covered as "
                     "confpol-run covers it: deny write by a\n# scratch "
                     "tmpfs, deny read by a /dev/null bind; bwrap leaves the "
                     "empty directory or\n# file on the host (confpol-run "
                     "removes its placeholder after the run)\n"
                     "n=$#\nset -- \"$@\"");
    for (size_t i = 0; i < rs->n; i++)
        sh_record(rs, &rs->v[i], out);
    cp_buf_adds(out, " --\nwhile [ \"$n\" -gt 0 ]; do set -- \"$@\" \"$1\"; "
                     "shift; n=$((n - 1)); done\nbwrap \"$@\"\n");
}

/* Fields after TAG in a .bwrap record stream (util/artifact_vocab.h); -1
 * for `end` (the trailer) or a tag that is none. */
static int tag_fields(const char *tag)
{
    int t = cp_bw_tag_find(tag);
    return t < 0 || t == CP_BW_END ? -1 : cp_bw_tags[t].arity;
}

/* Number of mount records (bind, pin, pinro, ro, mask) of a .bwrap record
 * stream. */
static size_t count_mounts(const char *data, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        const char *f = data + i;
        int nf = tag_fields(f);
        if (nf < 0)
            break;
        if (cp_bw_tags[cp_bw_tag_find(f)].mount)
            n++;
        for (int k = 0; k <= nf && i < len; k++) /* the tag and its fields */
            i += strnlen(data + i, len - i) + 1;
    }
    return n;
}

/* ---- the backend ------------------------------------------------------------ */

static struct cp_analysis *bw_analyse(const struct cp_policy *p,
                                      const struct cp_backend_opts *o,
                                      struct cp_arena *a, struct cp_diags *d,
                                      enum cp_report rep)
{
    struct bw *b = cp_arena_alloc(a, sizeof *b);
    cp_analysis_init(&b->head, &cp_backend_bwrap, p, o, a, d, rep);
    b->p = p;
    b->o = &b->head.o;
    b->a = a;
    analyse(b);
    b->head.errors = b->errors;
    cp_fidtab_rate(&b->ft, &b->head);
    return &b->head;
}

/* Step 2: the record stream (or its shell form), or for a cooperative
 * policy the note that none is written; with `verbose`, the stream's
 * mount count. */
static void bw_write(const struct cp_analysis *an, struct cp_diags *d,
                     struct cp_buf *out)
{
    const struct cp_policy *p = an->p;
    if (p->profile == CP_PROFILE_COOPERATIVE) {
        if (d)
            cp_diag_report(d, CP0720, NULL,
                           "bwrap: policy '%s' is cooperative: no bwrap "
                           "artifact is written",
                           p->stem ? p->stem : "");
        return;
    }
    struct bw *b = (struct bw *)an;
    struct recs rs = {0};
    size_t start = out->len;
    build_records(b, &rs);
    if (an->o.shell_format) {
        emit_shell(b, &rs, out);
        return;
    }
    emit_stream(b, &rs, out);
    if (an->o.verbose && d)
        cp_diag_report(d, CP0722, NULL, "bwrap: %zu mounts",
                       count_mounts(out->data + start, out->len - start));
}

const struct cp_backend cp_backend_bwrap = {
    .name = "bwrap",
    .suffix = ".bwrap",
    .truncation_detected = true,
    .shell_format = true,
    .rated_beside = &cp_backend_landlock,
    .analyse = bw_analyse,
    .write = bw_write,
};
