/* SPDX-License-Identifier: MIT */
/* The codex backend: lowers the resolved rules to one configuration file of
 * OpenAI's Codex CLI (spec/backends.md, "Codex CLI"; facts measured in
 * spec/codex-facts.md): a permission profile `confpol` that extends
 * ":read-only" with a filesystem map, its network table, and the gate
 * patterns that are plain argument prefixes as exec-policy rules, carried
 * in the `[confpol]` table for `confpol codex` to write as a .rules file.
 *
 * Codex decides a path by the most specific entry of the map, so the map
 * holds one entry per path a rule names, each with the strictest mode any
 * rule at or above it asks for (a write root inside a deny-read path is
 * "none", never "write"), and only where it changes what the nearest entry
 * above it says.  Every path must be absolute: the target needs every
 * param bound with -D (the front end substitutes them). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "fidelity.h"
#include "match.h"
#include "outbuf.h"
#include "shell_read.h"
#include "text.h"
#include "utf8.h"

/* The profile's name in the artifact (`codex sandbox -P confpol`). */
#define CX_PROFILE "confpol"
/* The Codex CLI release the facts were measured on. */
#define CX_VERSION "0.171.0"

/* Filesystem modes, weakest last: a stricter mode compares lower. */
enum cx_mode {
    CX_NONE,  /* "none": neither read nor written */
    CX_READ,  /* "read" */
    CX_WRITE, /* "write" */
    CX_UNSET, /* no deny here (a key's own deny) */
};

static const char *const cx_mode_word[] = {"none", "read", "write"};

/* Names Codex keeps read-only directly inside every writable root of the
 * map, existing or not (measured, spec/codex-facts.md). */
static const char *const cx_protected[] = {".git", ".agents", ".codex", ".aws"};
#define CX_NPROTECTED (sizeof cx_protected / sizeof cx_protected[0])

struct cx_key {
    const char *path; /* absolute, canonical */
    size_t len;
    size_t depth;      /* number of segments */
    bool write;        /* a write rule names it */
    bool deny_write;   /* a deny-write rule names it (whole or prefix) */
    enum cx_mode deny; /* the strictest deny at it, CX_UNSET: none */
    bool cum_write;    /* a write rule at or above it */
    bool cum_dw;       /* a deny-write rule at or above it */
    enum cx_mode cum;  /* the strictest deny at or above it */
    enum cx_mode mode; /* what Codex applies at it */
    bool emit;         /* an entry of the map */
    size_t near;       /* 1 + the nearest emitted strict ancestor, or 0 */
};

/* Unbound params reported once each (interned names); more are rare. */
#define CX_MAX_UNBOUND 16

struct cx {
    struct cp_analysis head;
    struct cp_fidtab ft;
    struct cx_key *keys;
    size_t nkeys;
    const char **rpath; /* per rule id: its key's path, or NULL */
    bool *rcut;         /* per rule id: a glob cut to its literal prefix */
    const char **gates; /* exec-policy lines, rule order */
    size_t ngates;
    const char **domains; /* "NAME" = "allow" lines, rule order */
    size_t ndomains;
    bool cooperative;
    const char *unbound[CX_MAX_UNBOUND]; /* params reported unbound */
    size_t nunbound;
};

/* ---- reporting ---------------------------------------------------------- */

static void cx_report(struct cx *c, enum cp_diag_code code,
                      const struct cp_rule *r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cx_report(struct cx *c, enum cp_diag_code code,
                      const struct cp_rule *r, const char *fmt, ...)
{
    if (cp_diag_code_default(code) == CP_SEV_ERROR)
        c->head.errors++;
    va_list ap;
    va_start(ap, fmt);
    cp_backend_vreport(cp_analysis_sink(&c->head, code), code, r, fmt, ap);
    va_end(ap);
}

/* Rates R and, for a loss, reports it at the rule under CODE. */
static void cx_rate(struct cx *c, const struct cp_rule *r, enum cp_fidelity f,
                    enum cp_diag_code code, const char *why)
{
    cp_fidtab_set(&c->ft, r, f, why);
    if (f == CP_FID_EXACT || code == CP_DIAG__COUNT)
        return;
    cx_report(c, code, r, "codex: rule '%s %s' is %s: %s",
              cp_rule_kind_text(r->kind), cp_backend_rule_text(c->head.a, r),
              f == CP_FID_STRICTER ? "enforced stricter" : "not fully enforced",
              why);
}

/* ---- paths -------------------------------------------------------------- */

/* A byte Codex could read as pattern syntax in a filesystem key. */
static bool cx_meta(char ch)
{
    return ch && strchr("*?[]{}$\\", ch) != NULL;
}

static bool cx_seg_plain(const struct cp_seg *s)
{
    if (s->kind != CP_SEG_LIT)
        return false;
    for (uint32_t i = 0; i < s->len; i++)
        if (cx_meta(s->s[i]))
            return false;
    return true;
}

/* The key of a rule's path: the path, or for a glob (or a name Codex would
 * read as one) its literal prefix, *cut set.  NULL (after an error) when
 * the path cannot be written. */
static const char *cx_key_path(struct cx *c, const struct cp_rule *r, bool *cut)
{
    const struct cp_path *pp = &r->u.path;
    if (pp->root) {
        /* Once per param: every rule rooted at it says the same. */
        bool seen = false;
        for (size_t i = 0; i < c->nunbound && !seen; i++)
            seen = c->unbound[i] == pp->root;
        if (seen) {
            c->head.errors++;
            return NULL;
        }
        if (c->nunbound < CX_MAX_UNBOUND)
            c->unbound[c->nunbound++] = pp->root;
        cx_report(c, CP0900, r,
                  "path is rooted at the param '%s', which the codex target "
                  "needs bound: build with -D %s=VALUE",
                  pp->root, pp->root);
        return NULL;
    }
    size_t n = 0;
    while (n < pp->nsegs && cx_seg_plain(&pp->segs[n]))
        n++;
    *cut = n < pp->nsegs;
    struct cp_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        cp_ob_addc(&b, '/');
        cp_ob_add(&b, pp->segs[i].s, pp->segs[i].len);
    }
    if (!b.len)
        cp_ob_addc(&b, '/');
    bool ok = cp_utf8_valid(b.data, b.len);
    const char *s = ok ? cp_arena_strndup(c->head.a, b.data, b.len) : NULL;
    cp_buf_free(&b);
    if (!ok)
        cx_report(c, CP0901, r,
                  "path is not valid UTF-8: a TOML file cannot hold it");
    return s;
}

/* Orders paths so that a subtree follows its root contiguously: '/' sorts
 * before every other byte. */
static int cx_cmp_path(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        if (x == y) {
            if (!x)
                return 0;
            continue;
        }
        x = x == '/' ? 1 : x;
        y = y == '/' ? 1 : y;
        return x < y ? -1 : 1;
    }
}

static int cx_cmp_key(const void *a, const void *b)
{
    return cx_cmp_path(((const struct cx_key *)a)->path,
                       ((const struct cx_key *)b)->path);
}

/* Is A a strict ancestor of B? */
static bool cx_above(const struct cx_key *a, const struct cx_key *b)
{
    if (a->len == 1)
        return b->len > 1;
    return b->len > a->len && memcmp(a->path, b->path, a->len) == 0 &&
           b->path[a->len] == '/';
}

static size_t cx_depth(const char *p)
{
    size_t n = 0;
    for (; *p; p++)
        n += p[1] && *p == '/';
    return n;
}

static struct cx_key *cx_find(struct cx *c, const char *path)
{
    struct cx_key k = {.path = path};
    return bsearch(&k, c->keys, c->nkeys, sizeof k, cx_cmp_key);
}

/* What a path rule asks of its key. */
static void cx_key_want(struct cx_key *k, enum cp_rule_kind kind)
{
    enum cx_mode m = CX_UNSET;
    if (kind == CP_R_WRITE)
        k->write = true;
    else if (kind == CP_R_DENY_WRITE)
        m = CX_READ, k->deny_write = true;
    else
        m = CX_NONE;
    if (m < k->deny)
        k->deny = m;
}

static bool cx_fs_kind(enum cp_rule_kind k)
{
    return k == CP_R_WRITE || k == CP_R_DENY_WRITE || k == CP_R_DENY_READ ||
           k == CP_R_DENY_EXEC;
}

/* One key per path a filesystem rule names, sorted, duplicates merged. */
static void cx_collect(struct cx *c)
{
    const struct cp_policy *p = c->head.p;
    c->keys = cp_arena_alloc(c->head.a, (p->nrules + 1) * sizeof *c->keys);
    size_t n = 0;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if (!cx_fs_kind(r->kind))
            continue;
        bool cut = false;
        const char *s = cx_key_path(c, r, &cut);
        if (!s)
            continue;
        c->rpath[r->id] = s;
        c->rcut[r->id] = cut;
        if (cut && r->kind == CP_R_WRITE)
            continue; /* not granted: the prefix would grant more */
        struct cx_key *k = &c->keys[n++];
        memset(k, 0, sizeof *k);
        k->path = s;
        k->len = strlen(s);
        k->depth = cx_depth(s);
        k->deny = CX_UNSET;
        cx_key_want(k, r->kind);
    }
    qsort(c->keys, n, sizeof *c->keys, cx_cmp_key);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        struct cx_key *k = &c->keys[i];
        if (m && cx_cmp_path(c->keys[m - 1].path, k->path) == 0) {
            struct cx_key *t = &c->keys[m - 1];
            t->write |= k->write;
            t->deny_write |= k->deny_write;
            if (k->deny < t->deny)
                t->deny = k->deny;
            continue;
        }
        c->keys[m++] = *k;
    }
    c->nkeys = m;
}

static const char *cx_protected_at(struct cx *c, const struct cx_key *w,
                                   const char *path);

/* A "read" entry inside a protected name of its writable root (W/.git):
 * Codex keeps that read-only already, and an entry there whose path is
 * missing at the start keeps the sandbox from starting (measured). */
static bool cx_redundant(struct cx *c, const struct cx_key *k)
{
    const struct cx_key *w = k->near ? &c->keys[k->near - 1] : NULL;
    return k->mode == CX_READ && w && w->mode == CX_WRITE &&
           cx_protected_at(c, w, k->path);
}

/* The mode of every key and which keys the map needs, walking the sorted
 * keys with the chain of their ancestors. */
static void cx_modes(struct cx *c)
{
    size_t *stack = cp_arena_alloc(c->head.a, (c->nkeys + 1) * sizeof *stack);
    size_t top = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        struct cx_key *k = &c->keys[i];
        while (top && !cx_above(&c->keys[stack[top - 1]], k))
            top--;
        const struct cx_key *up = top ? &c->keys[stack[top - 1]] : NULL;
        k->cum_write = k->write || (up && up->cum_write);
        k->cum_dw = k->deny_write || (up && up->cum_dw);
        k->cum = up && up->cum < k->deny ? up->cum : k->deny;
        enum cx_mode granted = k->cum_write ? CX_WRITE : CX_READ;
        k->mode = k->cum < granted ? k->cum : granted;
        k->near = !up ? 0 : up->emit ? stack[top - 1] + 1 : up->near;
        enum cx_mode inherited = k->near ? c->keys[k->near - 1].mode : CX_READ;
        k->emit = k->mode != inherited && !cx_redundant(c, k);
        stack[top++] = i;
    }
}

/* ---- rating ------------------------------------------------------------- */

/* The emitted key that decides K: K itself, or its nearest emitted
 * ancestor (NULL: the ":read-only" base). */
static const struct cx_key *cx_decider(const struct cx *c,
                                       const struct cx_key *k)
{
    return k->emit ? k : k->near ? &c->keys[k->near - 1] : NULL;
}

/* The protected name of writable root W that holds PATH (W/.git...), or
 * NULL. */
static const char *cx_protected_at(struct cx *c, const struct cx_key *w,
                                   const char *path)
{
    for (size_t i = 0; i < CX_NPROTECTED; i++) {
        const char *pp = cp_arena_cat(c->head.a, w->len > 1 ? w->path : "", "/",
                                      cx_protected[i], (char *)NULL);
        size_t n = strlen(pp);
        if (!strncmp(path, pp, n) && (!path[n] || path[n] == '/'))
            return pp;
    }
    return NULL;
}

/* The writable root of the map that holds K's decider with a directory
 * between them that can be renamed (entries are mount points; a protected
 * name is read-only), or NULL. */
static const struct cx_key *cx_renamable(struct cx *c, const struct cx_key *k)
{
    const struct cx_key *d = cx_decider(c, k);
    if (!d || d->mode == CX_WRITE || !d->near)
        return NULL;
    const struct cx_key *w = &c->keys[d->near - 1];
    if (w->mode != CX_WRITE || d->depth < w->depth + 2 ||
        cx_protected_at(c, w, d->path))
        return NULL;
    return w;
}

/* A writable root of the map above K whose protected name holds K: the
 * protected path, or NULL. */
static const char *cx_in_protected(struct cx *c, const struct cx_key *k)
{
    const struct cx_key *w = cx_decider(c, k);
    if (!w || w->mode != CX_WRITE || w == k)
        return NULL;
    return cx_protected_at(c, w, k->path);
}

static const char *cx_protected_list(struct cx *c, const struct cx_key *k)
{
    const char *base = k->len > 1 ? k->path : "";
    return cp_arena_printf(c->head.a, "%s/%s, %s/%s, %s/%s and %s/%s", base,
                           cx_protected[0], base, cx_protected[1], base,
                           cx_protected[2], base, cx_protected[3]);
}

static void cx_rate_write(struct cx *c, const struct cp_rule *r,
                          const struct cx_key *k)
{
    struct cp_arena *a = c->head.a;
    if (k->mode == CX_NONE && !k->cum_dw) {
        cx_rate(c, r, CP_FID_STRICTER, CP0909,
                "it lies in a path the profile maps to \"none\" (a deny read "
                "or deny exec): writing there is denied too");
        return;
    }
    if (k->mode != CX_WRITE) {
        cx_rate(c, r, CP_FID_EXACT, CP_DIAG__COUNT,
                "a deny write above it wins, as in the policy");
        return;
    }
    const char *pp = cx_in_protected(c, k);
    if (pp) {
        cx_rate(c, r, CP_FID_STRICTER, CP0910,
                cp_arena_cat(a, "not granted: it lies in ", pp,
                             ", which Codex keeps read-only in a writable "
                             "root",
                             (char *)NULL));
        return;
    }
    if (!k->emit) {
        cx_rate(c, r, CP_FID_EXACT, CP_DIAG__COUNT,
                "inside a write root of the map");
        return;
    }
    cx_rate(c, r, CP_FID_STRICTER, CP0910,
            cp_arena_cat(a, "filesystem \"", k->path,
                         "\" = \"write\"; Codex keeps ",
                         cx_protected_list(c, k),
                         " read-only (they cannot be created either), and "
                         "does not create the root when it is missing at "
                         "the start: nothing can be written there then",
                         (char *)NULL));
}

static void cx_rate_write_glob(struct cx *c, const struct cp_rule *r)
{
    cx_rate(c, r, CP_FID_STRICTER, CP0904,
            "a glob (or a name Codex reads as one) is not granted");
}

/* A verdict being composed: the strongest finding and every reason. */
struct cx_verdict {
    enum cp_fidelity f;
    enum cp_diag_code code; /* of the first loss */
    const char *why;        /* the first reason, or NULL */
    const char *more;       /* further stricter reasons, or NULL */
};

static void cx_add(struct cx *c, struct cx_verdict *v, enum cp_fidelity f,
                   enum cp_diag_code code, const char *why)
{
    if (f > v->f || !v->why) {
        if (v->why)
            v->more = v->more ? cp_arena_cat(c->head.a, v->why, "; ", v->more,
                                             (char *)NULL)
                              : v->why;
        v->f = f;
        v->code = code;
        v->why = why;
        return;
    }
    v->more = v->more
                  ? cp_arena_cat(c->head.a, v->more, "; ", why, (char *)NULL)
                  : why;
}

/* The writable root of the map above D (an emitted deny), or NULL. */
static const struct cx_key *cx_root_of(const struct cx *c,
                                       const struct cx_key *d)
{
    const struct cx_key *w = d->near ? &c->keys[d->near - 1] : NULL;
    return w && w->mode == CX_WRITE ? w : NULL;
}

/* Another emitted deny in writable root W sharing with D the directory
 * right below W (both deeper): where that directory is missing at the
 * start, Codex puts two placeholders on it and cannot start.  Keys
 * sharing it are contiguous in the sorted table. */
static bool cx_collides(const struct cx *c, const struct cx_key *d,
                        const struct cx_key *w)
{
    const char *seg = d->path + (w->len > 1 ? w->len : 0) + 1;
    const char *end = strchr(seg, '/');
    size_t n = (size_t)(end - d->path) + 1; /* "W/seg/" */
    size_t i = (size_t)(d - c->keys);
    for (int dir = -1; dir <= 1; dir += 2) {
        for (size_t j = i + (size_t)dir; j < c->nkeys; j += (size_t)dir) {
            const struct cx_key *o = &c->keys[j];
            if (o->len < n || memcmp(o->path, d->path, n) != 0)
                break;
            if (o->emit && o->mode != CX_WRITE && o->near == d->near)
                return true;
        }
    }
    return false;
}

#define CX_CANNOT_START                                                        \
    " is missing when the command starts, Codex cannot start the sandbox "     \
    "at all"

/* What Codex does where the deny's path, or a directory on the way to it,
 * is missing when the command starts (measured): inside a writable root
 * it blocks the first missing one; below a read-only entry or a protected
 * name, or where two placeholders would collide, it cannot start. */
static void cx_missing(struct cx *c, struct cx_verdict *v,
                       const struct cx_key *d)
{
    struct cp_arena *a = c->head.a;
    const struct cx_key *w = cx_root_of(c, d);
    const char *pp = w ? cx_protected_at(c, w, d->path) : NULL;
    const struct cx_key *up = d->near ? &c->keys[d->near - 1] : NULL;
    const char *ro = pp                                           ? pp
                     : up && up->mode == CX_READ && up->cum_write ? up->path
                                                                  : NULL;
    if (ro)
        cx_add(c, v, CP_FID_STRICTER, CP0909,
               cp_arena_cat(a, "where ", d->path,
                            " or a directory on the way to it" CX_CANNOT_START
                            " (it cannot create its mount point in the "
                            "read-only ",
                            ro, ")", (char *)NULL));
    if (!w || pp || d->depth < w->depth + 2)
        return;
    cx_add(c, v, CP_FID_STRICTER, CP0909,
           cp_arena_cat(a, "where a directory between the write root ", w->path,
                        " and ", d->path,
                        " is missing when the command starts, Codex "
                        "blocks the first missing one: nothing can be "
                        "created at it",
                        (char *)NULL));
    if (cx_collides(c, d, w))
        cx_add(c, v, CP_FID_STRICTER, CP0909,
               cp_arena_cat(a, "where the directory below the write root ",
                            w->path, " on the way to ", d->path,
                            CX_CANNOT_START
                            " (another entry needs a mount point there too)",
                            (char *)NULL));
}

static void cx_rate_deny(struct cx *c, const struct cp_rule *r,
                         const struct cx_key *k)
{
    struct cp_arena *a = c->head.a;
    const struct cx_key *d = cx_decider(c, k);
    struct cx_verdict v = {CP_FID_EXACT, CP_DIAG__COUNT, NULL, NULL};
    const char *pp = d && d->mode == CX_WRITE ? cx_protected_at(c, d, k->path)
                                              : NULL;
    cx_add(c, &v, CP_FID_EXACT, CP_DIAG__COUNT,
           pp  ? cp_arena_cat(a, "Codex keeps ", pp, " read-only", (char *)NULL)
           : d ? cp_arena_cat(a, "filesystem \"", d->path, "\" = \"",
                              cx_mode_word[d->mode], "\"", (char *)NULL)
               : "read-only outside every write root (\":read-only\")");
    if (c->rcut[r->id])
        cx_add(c, &v, CP_FID_STRICTER, CP0904,
               cp_arena_cat(a,
                            "the profile takes no glob: the whole of its "
                            "literal prefix ",
                            c->rpath[r->id], " is denied ",
                            r->kind == CP_R_DENY_WRITE ? "writing" : "reading",
                            " (denied too)", (char *)NULL));
    if (r->kind == CP_R_DENY_EXEC)
        cx_add(c, &v, CP_FID_STRICTER, CP0909,
               "mapped to \"none\": reading is denied too (Codex has no "
               "exec control of its own)");
    if (r->kind != CP_R_DENY_WRITE && k->cum_write && !k->cum_dw)
        cx_add(c, &v, CP_FID_STRICTER, CP0909,
               "mapped to \"none\" inside a write root: writing (creating "
               "it included) is denied too");
    if (d && d->mode != CX_WRITE)
        cx_missing(c, &v, d);
    if (r->kind != CP_R_DENY_WRITE && d && d->mode == CX_NONE && !d->cum_write)
        cx_add(c, &v, CP_FID_NOT_ENFORCED, CP0912,
               cp_arena_cat(a, "partially: where ", d->path,
                            " is missing when the command starts, Codex "
                            "mounts nothing there (outside every write "
                            "root): created while the command runs, by "
                            "another process, it is readable",
                            (char *)NULL));
    const struct cx_key *w = cx_renamable(c, k);
    if (w)
        cx_add(c, &v, CP_FID_NOT_ENFORCED, CP0905,
               cp_arena_cat(a, "partially: Codex mounts over ", d->path,
                            " when the command starts, but a directory "
                            "between the write root ",
                            w->path,
                            " and it can be renamed or replaced, which "
                            "carries its contents to a name no entry "
                            "denies (in this run and later ones) and lets "
                            "the path be created anew",
                            (char *)NULL));
    const char *why = v.why;
    if (v.more)
        why = cp_arena_cat(
            a, v.why, v.f == CP_FID_NOT_ENFORCED ? "; also stricter: " : "; ",
            v.more, (char *)NULL);
    cx_rate(c, r, v.f, v.code, why);
}

static void cx_rate_path(struct cx *c, const struct cp_rule *r)
{
    const char *p = c->rpath[r->id];
    if (!p)
        return; /* reported */
    if (r->kind == CP_R_WRITE && c->rcut[r->id]) {
        cx_rate_write_glob(c, r);
        return;
    }
    const struct cx_key *k = cx_find(c, p);
    if (k->mode == CX_NONE && k->len == 1) {
        cx_report(c, CP0902, r,
                  "the profile would map / to \"none\": no command could "
                  "run under it");
        return;
    }
    if (r->kind == CP_R_WRITE)
        cx_rate_write(c, r, k);
    else
        cx_rate_deny(c, r, k);
}

/* ---- gates -------------------------------------------------------------- */

/* TEXT for a justification: printable ASCII, quotes and backslashes as
 * '?' (the rules live in a TOML literal string). */
static const char *cx_just(struct cx *c, const char *text)
{
    char *s = cp_arena_strdup(c->head.a, text);
    for (char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e ||
            strchr("'\"\\", *p))
            *p = '?';
    return s;
}

/* Does confpol read LINE as one command, with no wrapper or shell string
 * read through? */
static bool cx_one_command(struct cx *c, const char *line)
{
    struct cp_sh_read rd;
    cp_sh_read(c->head.a, line, strlen(line), &rd);
    return !rd.error && !rd.unknown && rd.ncmds == 1;
}

/* The words of a gate pattern as written (its text split at single
 * spaces, a trailing `*` dropped), when an exec-policy prefix says them:
 * the first word names the program by its name (confpol reads a leading
 * option or assignment, `-x` or `A=b`, otherwise, a path such as
 * `./run.sh` by what it names, and what a wrapper such as `sudo` or `env`
 * runs: the matcher decides), every word of cp_backend_plain_word.  NULL
 * otherwise. */
static char **cx_gate_words(struct cx *c, const struct cp_gate_pat *g,
                            size_t *n)
{
    if (g->kind != CP_GATE_WORDS || !g->text || !*g->text)
        return NULL;
    char *t = cp_arena_strdup(c->head.a, g->text);
    size_t len = strlen(t);
    if (g->trailing_any) {
        if (len < 2 || strcmp(t + len - 2, " *") != 0)
            return NULL;
        t[len - 2] = '\0';
    }
    size_t body = strlen(t); /* the words, before they are split */
    char **w = cp_arena_alloc(c->head.a, (body / 2 + 2) * sizeof *w);
    *n = 0;
    for (char *p = t, *e; p; p = e ? e + 1 : NULL) {
        e = strchr(p, ' ');
        if (e)
            *e = '\0';
        if (!cp_backend_plain_word(p))
            return NULL;
        w[(*n)++] = p;
    }
    if (*n != g->nwords || w[0][0] == '-' || strpbrk(w[0], "=/"))
        return NULL;
    /* The words must read as one command, as Codex compares them: confpol
     * reads a wrapper (`sudo`, `env`, `timeout`) or a shell's `-c` through,
     * and its own matcher must take the words as written. */
    const char *line = cp_arena_strndup(c->head.a, g->text, body);
    if (!cx_one_command(c, line) ||
        (g->trailing_any &&
         !cx_one_command(c,
                         cp_arena_cat(c->head.a, line, " x", (char *)NULL))) ||
        !cp_gate_matches(g, line, c->head.a))
        return NULL;
    return w;
}

static void cx_gate(struct cx *c, const struct cp_rule *r)
{
    const struct cp_gate_pat *g = &r->u.gate;
    bool deny = r->kind == CP_R_GATE_DENY;
    size_t nw = 0;
    char **words = cx_gate_words(c, g, &nw);
    if (!words) {
        cx_rate(c, r, CP_FID_NOT_ENFORCED, CP0907,
                "no exec-policy rule can express it (Codex's rules match "
                "literal argument prefixes only); Codex does not run "
                "confpol's gate");
        return;
    }
    struct cp_buf b = {0};
    cp_buf_adds(&b, "prefix_rule(pattern = [");
    for (size_t i = 0; i < nw; i++)
        cp_buf_printf(&b, "%s\"%s\"", i ? ", " : "", words[i]);
    cp_buf_printf(&b,
                  "], decision = \"%s\", justification = \"confpol: gate %s "
                  "%s (%s)\")\n",
                  deny ? "forbidden" : "prompt", deny ? "deny" : "ask",
                  cx_just(c, g->text ? g->text : ""),
                  cx_just(c, cp_backend_rule_where(c->head.a, r)));
    c->gates[c->ngates++] = cp_arena_strndup(c->head.a, b.data, b.len);
    cp_buf_free(&b);
    cx_rate(c, r, CP_FID_NOT_ENFORCED, CP0907,
            g->trailing_any
                ? "partially: an exec-policy prefix rule, which matches the "
                  "argument vector's first words only (not through 'bash "
                  "-c', 'env', 'sudo', options before a subcommand or "
                  "other spellings); Codex does not run confpol's gate"
                : "partially: an exec-policy prefix rule, which matches the "
                  "argument vector's first words only (not through 'bash "
                  "-c', 'env', 'sudo', options before a subcommand or "
                  "other spellings) and also matches longer commands "
                  "(stricter there); Codex does not run confpol's gate");
}

/* ---- network ------------------------------------------------------------ */

static void cx_net(struct cx *c, const struct cp_rule *r)
{
    const struct cp_policy *p = c->head.p;
    if (r->kind == CP_R_NET_SOCKET) {
        if (p->net == CP_NET_ALL)
            cx_rate(c, r, CP_FID_EXACT, CP_DIAG__COUNT,
                    "the network is open: every socket is reachable");
        else
            cx_rate(c, r, CP_FID_STRICTER, CP0911,
                    "Codex's seccomp filter closes every Unix socket while "
                    "the network is limited: this one stays closed");
        return;
    }
    if (r->kind == CP_R_NET_DENY && p->net == CP_NET_NONE) {
        cx_rate(c, r, CP_FID_STRICTER, CP0911,
                "network.enabled = false: Codex's seccomp filter refuses "
                "IP sockets, and Unix sockets too");
        return;
    }
    if (r->kind == CP_R_NET_ALLOW) {
        const struct cp_domain *dm = &r->u.dom;
        const char *name = dm->kind == CP_HOST_IPV6
                               ? cp_arena_cat(c->head.a, "[", dm->name, "]",
                                              (char *)NULL)
                               : dm->name;
        c->domains[c->ndomains++] = cp_arena_cat(
            c->head.a, dm->wildcard ? "*." : "", name, (char *)NULL);
    }
    cx_rate(c, r, CP_FID_NOT_ENFORCED, CP0908,
            "partially: Codex's network proxy (features.network_proxy) "
            "decides each name by its own matching, which was not measured "
            "against confpol's (wildcards, ports: the list names hosts, "
            "not ports); direct connections, UDP and Unix sockets are "
            "closed");
}

/* ---- the analysis ------------------------------------------------------- */

static void cx_cooperative(struct cx *c)
{
    const struct cp_policy *p = c->head.p;
    for (size_t i = 0; i < p->nrules; i++)
        cp_fidtab_set(&c->ft, p->rules[i], CP_FID_NOT_ENFORCED,
                      "profile cooperative: the codex target writes no "
                      "file");
}

static void cx_rate_rule(struct cx *c, const struct cp_rule *r)
{
    switch (r->kind) {
    case CP_R_WRITE:
    case CP_R_DENY_WRITE:
    case CP_R_DENY_READ:
    case CP_R_DENY_EXEC:
        cx_rate_path(c, r);
        break;
    case CP_R_EXEC:
        cx_rate(c, r, CP_FID_NOT_ENFORCED, CP0906,
                "Codex has no exec control: the profile lets every readable "
                "file run");
        break;
    case CP_R_GATE_ASK:
    case CP_R_GATE_DENY:
        cx_gate(c, r);
        break;
    case CP_R_NET_ALLOW:
    case CP_R_NET_DENY:
    case CP_R_NET_SOCKET:
        cx_net(c, r);
        break;
    }
}

static struct cp_analysis *cx_analyse(const struct cp_policy *p,
                                      const struct cp_backend_opts *o,
                                      struct cp_arena *a, struct cp_diags *d,
                                      enum cp_report rep)
{
    struct cx *c = cp_arena_alloc(a, sizeof *c);
    memset(c, 0, sizeof *c);
    cp_analysis_init(&c->head, &cp_backend_codex, p, o, a, d, rep);
    cp_fidtab_init(&c->ft, a, p->nrules);
    c->cooperative = p->profile == CP_PROFILE_COOPERATIVE;
    if (c->cooperative) {
        cx_cooperative(c);
    } else {
        size_t n = p->nrules + 1;
        c->rpath = cp_arena_alloc(a, n * sizeof *c->rpath);
        c->rcut = cp_arena_alloc(a, n * sizeof *c->rcut);
        c->gates = cp_arena_alloc(a, n * sizeof *c->gates);
        c->domains = cp_arena_alloc(a, n * sizeof *c->domains);
        memset(c->rpath, 0, n * sizeof *c->rpath);
        memset(c->rcut, 0, n * sizeof *c->rcut);
        cx_collect(c);
        cx_modes(c);
        for (size_t i = 0; i < p->nrules; i++)
            cx_rate_rule(c, p->rules[i]);
    }
    cp_fidtab_rate(&c->ft, &c->head);
    return &c->head;
}

/* ---- writing ------------------------------------------------------------ */

/* A TOML basic string: '"' and '\\' escaped, control bytes as \uXXXX
 * (the text is valid UTF-8). */
static void cx_toml_str(struct cp_buf *b, const char *s)
{
    cp_ob_addc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            cp_ob_addc(b, '\\');
            cp_ob_addc(b, (char)*p);
        } else if (*p < 0x20 || *p == 0x7f) {
            cp_buf_printf(b, "\\u%04X", *p);
        } else {
            cp_ob_addc(b, (char)*p);
        }
    }
    cp_ob_addc(b, '"');
}

/* The stem as TOML may hold it: bytes of invalid UTF-8 as '?'. */
static const char *cx_stem(struct cp_arena *a, const char *stem)
{
    char *s = cp_arena_strdup(a, stem ? stem : "");
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t k = cp_utf8_len((const unsigned char *)s + i, n - i);
        if (!k) {
            s[i++] = '?';
            continue;
        }
        i += k;
    }
    return s;
}

static void cx_write_fs(const struct cx *c, struct cp_buf *out)
{
    cp_buf_adds(out, "\n[permissions." CX_PROFILE ".filesystem]\n");
    for (size_t i = 0; i < c->nkeys; i++) {
        const struct cx_key *k = &c->keys[i];
        if (!k->emit)
            continue;
        cx_toml_str(out, k->path);
        cp_buf_printf(out, " = \"%s\"\n", cx_mode_word[k->mode]);
    }
}

static void cx_write_net(const struct cx *c, struct cp_buf *out)
{
    const struct cp_policy *p = c->head.p;
    cp_buf_printf(out, "\n[permissions." CX_PROFILE ".network]\nenabled = %s\n",
                  p->net == CP_NET_NONE ? "false" : "true");
    if (p->net != CP_NET_LIST)
        return;
    cp_buf_adds(out, "\n[permissions." CX_PROFILE ".network.domains]\n");
    for (size_t i = 0; i < c->ndomains; i++) {
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = !strcmp(c->domains[i], c->domains[j]);
        if (dup)
            continue;
        cx_toml_str(out, c->domains[i]);
        cp_buf_adds(out, " = \"allow\"\n");
    }
}

static void cx_write(const struct cp_analysis *an, struct cp_diags *d,
                     struct cp_buf *out)
{
    const struct cx *c = (const struct cx *)an;
    const struct cp_policy *p = an->p;
    if (c->cooperative) {
        if (d)
            cp_diag_report(d, CP0903, NULL,
                           "a cooperative policy: the codex target writes no "
                           "file");
        return;
    }
    const char *stem = cx_stem(an->a, p->stem);
    cp_buf_printf(out,
                  "# generated by confpol from %s.confpol (profile %s) for "
                  "Codex CLI " CX_VERSION "\n"
                  "default_permissions = \"" CX_PROFILE "\"\n",
                  stem, cp_profile_text(p->profile));
    if (p->net == CP_NET_LIST)
        cp_buf_adds(out, "\n[features]\nnetwork_proxy = true\n");
    cp_buf_adds(out, "\n[permissions." CX_PROFILE "]\n"
                     "extends = \":read-only\"\n");
    cx_write_fs(c, out);
    cx_write_net(c, out);
    cp_buf_adds(out, "\n[confpol]\nversion = 1\nstem = ");
    cx_toml_str(out, stem);
    cp_buf_adds(out, "\nprofile = \"" CX_PROFILE "\"\nrules = '''\n");
    for (size_t i = 0; i < c->ngates; i++) {
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = !strcmp(c->gates[i], c->gates[j]);
        if (!dup)
            cp_buf_adds(out, c->gates[i]);
    }
    cp_buf_adds(out, "'''\n");
}

const struct cp_backend cp_backend_codex = {
    .name = "codex",
    .suffix = ".codex.toml",
    .truncation_detected = false,
    .bound_only = true,
    .analyse = cx_analyse,
    .write = cx_write,
};
