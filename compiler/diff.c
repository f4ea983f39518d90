/* SPDX-License-Identifier: MIT */
/* confpol diff (spec/semantics.md, "Diff"): every access one policy grants
 * that the other refuses, each with a witness that cp_decide (the one
 * decision model, what explain runs) decides differently on the two sides.
 *
 * Paths (read, write, exec).  A path's verdict depends only on the set of
 * rule patterns that cover it (and, for exec, on whether the policy has
 * exec rules).  Rules written identically on both sides (same kind, same
 * pattern after binding) cover the same paths on both sides, so the two
 * verdicts can differ only at a path that some *changed* rule (a kind and
 * pattern on one side only) covers.  The search walks the tree of paths
 * under each subject root (absolute, and every param unbound on both
 * sides), segment by segment, carrying for every tracked pattern the set
 * of its positions still alive (a pattern is a sequence of literal, glob
 * and `**` items; "accepted" once a prefix matched: it covers everything
 * beneath).  Tracked are the changed patterns and every pattern whose
 * literal prefix is prefix-related to a changed one's (a pattern that
 * overlaps a changed one has such a prefix, spec/semantics.md 4.2).  From a
 * node, one child is taken per class of segments that moves the tracked
 * patterns alike: each literal item alive there, one segment per set of
 * alive globs that some segment matches exactly (found by a breadth-first
 * search over the product of the globs' byte automata, avoiding the
 * literals), and a segment matching none.  Nodes with a state seen before
 * are not expanded again (the same state has the same subtree).  Every node
 * that a changed pattern covers is a probe, decided by cp_decide on both
 * sides; a node no changed pattern can reach any more is not expanded.
 * The number of states is finite, so the walk ends; past the work budget it
 * stops and says so (the caller fails closed).
 *
 * Sockets, net, gate, content: probes built from both policies' patterns
 * (section "Diff" of the spec says which are exact).  Regions: the probes
 * that differ, grouped by (access, verdicts, deciding rules of each side);
 * the first probe found is the witness. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "content.h"
#include "hash.h"
#include "json.h"
#include "match.h"
#include "match_int.h"
#include "sema.h"

#define DF_ACC ((uint64_t)1 << 63) /* a run that accepted: covers below */
#define DF_MAX_ITEMS 62            /* positions 0..61 in a run's bits */
#define DF_BUDGET 4000000u         /* product states per diff */
#define DF_FRESH "confpol-diff"    /* a name no pattern is meant to use */

/* ---- the whole comparison ------------------------------------------- */

struct df {
    const struct cp_policy *pol[2];  /* old, new (bound copies in a pass) */
    const struct cp_policy *orig[2]; /* as given: the rules reported */
    struct cp_arena *a;              /* results */
    struct cp_arena *w;              /* scratch of the current pass */
    struct cp_diff *out;
    struct cp_vec items;
    struct cp_strset seen; /* region keys */
    size_t budget, spent;
    const char **bn, **bv; /* the binding of the current pass */
    size_t nb;
    bool *chg[2]; /* per rule of pol[k]: no rule of the other side has its
                     kind and pattern */
    const struct cp_rule **chgl; /* the changed net and gate rules */
    size_t nchgl;
    /* In a binding pass: record only a region this rule (of OLD or NEW)
     * decides on its side, and stop looking once one is found. */
    const struct cp_rule *want;
    int want_side;
    bool found;
};

static bool df_spend(struct df *d, size_t n, const char *why)
{
    d->spent += n;
    if (d->spent <= d->budget)
        return true;
    if (!d->out->incomplete)
        d->out->incomplete = why;
    return false;
}

static int df_rank(enum cp_verdict v)
{
    return v == CP_DENY ? 0 : v == CP_ASK ? 1 : 2;
}

/* The side's decision with its rules mapped to the policy as given (a
 * bound copy shares ids with its original). */
static void df_side(struct df *d, int k, const struct cp_decision *dc,
                    struct cp_diff_side *s)
{
    s->verdict = dc->verdict;
    s->by_default = dc->by_default;
    s->unbound_param = dc->unbound_param
                           ? cp_arena_strdup(d->a, dc->unbound_param)
                           : NULL;
    s->nrules = dc->nrules;
    s->rules = cp_arena_alloc(d->a, (dc->nrules + 1) * sizeof *s->rules);
    for (size_t i = 0; i < dc->nrules; i++)
        s->rules[i] = d->orig[k]->rules[dc->rules[i]->id];
}

/* The region key: access, verdicts and the deciding rules' ids. */
static const char *df_key(struct df *d, struct cp_arena *pa, enum cp_access acc,
                          const struct cp_decision *o,
                          const struct cp_decision *n)
{
    struct cp_buf b = {0};
    cp_buf_printf(&b, "%d %d %d", (int)acc, (int)o->verdict, (int)n->verdict);
    for (size_t i = 0; i < o->nrules; i++)
        cp_buf_printf(&b, " o%u", o->rules[i]->id);
    for (size_t i = 0; i < n->nrules; i++)
        cp_buf_printf(&b, " n%u", n->rules[i]->id);
    const char *k = cp_arena_strndup(pa, b.data, b.len);
    cp_buf_free(&b);
    (void)d;
    return k;
}

/* A pattern of the region: the first deciding rule on either side that the
 * other side does not have (same kind and text). */
static const char *df_region(struct df *d, const struct cp_diff_item *it)
{
    for (int k = 0; k < 2; k++) {
        const struct cp_diff_side *s = k ? &it->new : &it->old;
        const struct cp_diff_side *t = k ? &it->old : &it->new;
        for (size_t i = 0; i < s->nrules; i++) {
            bool both = false;
            for (size_t j = 0; j < t->nrules && !both; j++)
                both = s->rules[i]->kind == t->rules[j]->kind &&
                       strcmp(s->rules[i]->text, t->rules[j]->text) == 0;
            if (!both)
                return cp_sema_rule_text(d->a, s->rules[i]);
        }
    }
    return NULL;
}

/* Decides SUBJ on both sides and records a region when they differ. */
/* Does the decision list the rule a binding pass looks for? */
static bool df_wanted(const struct df *d, const struct cp_decision *o,
                      const struct cp_decision *n)
{
    const struct cp_decision *dc = d->want_side ? n : o;
    for (size_t i = 0; i < dc->nrules; i++)
        if (dc->rules[i]->id == d->want->id)
            return true;
    return false;
}

static void df_record(struct df *d, struct cp_arena *pa, enum cp_access acc,
                      const char *subj, const struct cp_decision *o,
                      const struct cp_decision *n);

/* Decides SUBJ on both sides (in an arena of its own: a decision allocates
 * in proportion to the policy) and records a region when they differ. */
static void df_probe(struct df *d, enum cp_access acc, const char *subj)
{
    struct cp_decision o, n;
    d->out->nprobes++;
    struct cp_arena *pa = cp_arena_new();
    if (cp_decide(d->pol[0], acc, subj, pa, &o) == 0 &&
        cp_decide(d->pol[1], acc, subj, pa, &n) == 0 &&
        o.verdict != n.verdict && (!d->want || df_wanted(d, &o, &n)))
        df_record(d, pa, acc, subj, &o, &n);
    cp_arena_free(pa);
}

static void df_record(struct df *d, struct cp_arena *pa, enum cp_access acc,
                      const char *subj, const struct cp_decision *o,
                      const struct cp_decision *n)
{
    const char *key = df_key(d, pa, acc, o, n);
    d->found = true;
    if (!cp_strset_add(d->a, &d->seen, cp_json_str(d->a, key, strlen(key))))
        return;
    struct cp_diff_item *it = cp_arena_alloc(d->a, sizeof *it);
    it->access = acc;
    it->widened = df_rank(n->verdict) > df_rank(o->verdict);
    it->subject = cp_arena_strdup(d->a, subj);
    it->nbind = d->nb;
    it->bind_names = d->bn;
    it->bind_values = d->bv;
    df_side(d, 0, o, &it->old);
    df_side(d, 1, n, &it->new);
    it->region = df_region(d, it);
    cp_vec_push(d->a, &d->items, it);
}

/* ---- representative segments ---------------------------------------- */

/* A glob segment as byte tokens: 0..255 a byte, DF_STAR, DF_ONE. */
enum { DF_STAR = 256, DF_ONE = 257 };

struct df_glob {
    int tok[DF_MAX_ITEMS];
    size_t n;
};

static bool df_glob_parse(const char *s, size_t len, struct df_glob *g)
{
    g->n = 0;
    for (size_t i = 0; i < len; i++) {
        if (g->n == DF_MAX_ITEMS - 1)
            return false;
        if (s[i] == '\\' && i + 1 < len)
            g->tok[g->n++] = (unsigned char)s[++i];
        else if (s[i] == '*')
            g->tok[g->n++] = DF_STAR;
        else if (s[i] == '?')
            g->tok[g->n++] = DF_ONE;
        else
            g->tok[g->n++] = (unsigned char)s[i];
    }
    return true;
}

static uint64_t df_glob_close(const struct df_glob *g, uint64_t m)
{
    for (size_t j = 0; j < g->n; j++)
        if ((m >> j & 1) && g->tok[j] == DF_STAR)
            m |= (uint64_t)1 << (j + 1);
    return m;
}

static uint64_t df_glob_step(const struct df_glob *g, uint64_t m, int c)
{
    uint64_t r = 0;
    for (size_t j = 0; j < g->n; j++) {
        if (!(m >> j & 1))
            continue;
        if (g->tok[j] == DF_STAR)
            r |= (uint64_t)1 << j;
        else if (g->tok[j] == DF_ONE || g->tok[j] == c)
            r |= (uint64_t)1 << (j + 1);
    }
    return df_glob_close(g, r);
}

/* A trie of the literal segments (to avoid them: a literal is a
 * representative of its own). */
struct df_trie {
    int *child; /* node*nalpha + letter -> node, or -1 */
    bool *term;
    size_t n, cap, nalpha;
};

static int df_trie_insert(struct cp_arena *a, struct df_trie *t,
                          const int *amap, const char *s, size_t len)
{
    int cur = 0;
    for (size_t i = 0; i < len; i++) {
        int *slot = &t->child[(size_t)cur * t->nalpha +
                              (size_t)amap[(unsigned char)s[i]]];
        if (*slot < 0) {
            if (t->n == t->cap)
                return -1;
            *slot = (int)t->n++;
        }
        cur = *slot;
    }
    t->term[cur] = true;
    (void)a;
    return 0;
}

/* One state of the segment search. */
struct df_bst {
    uint64_t *m; /* per glob */
    int trie;    /* -1: off the trie */
    int dot;     /* 0 empty, 1 ".", 2 "..", 3 a valid segment */
    int parent, byte;
};

struct df_segs {
    const char **lit;
    size_t *litlen;
    size_t nlit;
    const struct cp_seg **glob;
    size_t nglob;
    struct cp_vec out; /* char* segments, NUL-terminated */
};

/* The alphabet: a byte no segment names first (it stands for every such
 * byte), '.', then every byte the literals and globs name. */
static size_t df_alpha(const struct df_segs *s, int *alpha, int *amap)
{
    bool used[256] = {false};
    for (size_t i = 0; i < s->nlit; i++)
        for (size_t j = 0; j < s->litlen[i]; j++)
            used[(unsigned char)s->lit[i][j]] = true;
    for (size_t i = 0; i < s->nglob; i++)
        for (size_t j = 0; j < s->glob[i]->len; j++)
            used[(unsigned char)s->glob[i]->s[j]] = true;
    static const char pool[] = "zqjxkvwyfgbhmpucodeinarstl0123456789";
    size_t n = 0;
    for (const char *p = pool; *p; p++)
        if (!used[(unsigned char)*p]) {
            alpha[n++] = (unsigned char)*p;
            break;
        }
    alpha[n++] = '.';
    used['.'] = false;
    used['/'] = false;
    used[0] = false;
    for (int c = 1; c < 256; c++)
        if (used[c])
            alpha[n++] = c;
    for (int c = 0; c < 256; c++)
        amap[c] = 0; /* unnamed bytes behave as alpha[0] */
    for (size_t i = 0; i < n; i++)
        amap[alpha[i]] = (int)i;
    return n;
}

struct df_bfs {
    struct df *d;
    struct df_segs *s;
    struct df_glob *g;
    struct df_trie t;
    int alpha[258], amap[256];
    size_t nalpha;
    struct df_bst *st;
    size_t nst, cap;
    uint64_t *tab; /* hash of states -> index+1 */
    size_t tabcap;
    uint64_t *sigs; /* signatures found */
    size_t nsig;
};

static uint64_t df_bst_hash(const struct df_bfs *b, const struct df_bst *x)
{
    uint64_t h = cp_fnv64(14695981039346656037ull, x->m,
                          b->s->nglob * sizeof *x->m);
    h = cp_fnv64(h, &x->trie, sizeof x->trie);
    return cp_fnv64(h, &x->dot, sizeof x->dot);
}

static bool df_bst_eq(const struct df_bfs *b, const struct df_bst *x,
                      const struct df_bst *y)
{
    return x->trie == y->trie && x->dot == y->dot &&
           memcmp(x->m, y->m, b->s->nglob * sizeof *x->m) == 0;
}

/* Adds state X unless seen; false when it was seen. */
static bool df_bst_add(struct df_bfs *b, struct df_bst *x)
{
    uint64_t h = df_bst_hash(b, x);
    size_t i = h & (b->tabcap - 1);
    while (b->tab[i]) {
        if (df_bst_eq(b, &b->st[b->tab[i] - 1], x))
            return false;
        i = (i + 1) & (b->tabcap - 1);
    }
    b->st[b->nst] = *x;
    b->tab[i] = ++b->nst;
    return true;
}

static char *df_bst_text(struct df_bfs *b, int at)
{
    size_t len = 0;
    for (int k = at; b->st[k].parent >= 0; k = b->st[k].parent)
        len++;
    char *t = cp_arena_alloc(b->d->w, len + 1);
    for (int k = at; b->st[k].parent >= 0; k = b->st[k].parent)
        t[--len] = (char)b->st[k].byte;
    return t;
}

/* At an accepting state: the set of globs that match (the literal itself
 * is a representative of its own when the text is one). */
static void df_bst_accept(struct df_bfs *b, int at)
{
    const struct df_bst *x = &b->st[at];
    if (x->dot != 3 || (x->trie >= 0 && b->t.term[x->trie]))
        return;
    uint64_t sig = 0;
    for (size_t i = 0; i < b->s->nglob; i++)
        if (x->m[i] >> b->g[i].n & 1)
            sig |= (uint64_t)1 << i;
    for (size_t i = 0; i < b->nsig; i++)
        if (b->sigs[i] == sig)
            return;
    b->sigs[b->nsig++] = sig;
    cp_vec_push(b->d->w, &b->s->out, df_bst_text(b, at));
}

static int df_dot(int dot, int c)
{
    if (dot == 3 || c != '.')
        return 3;
    return dot + 1 > 2 ? 3 : dot + 1;
}

static void df_bst_expand(struct df_bfs *b, int at)
{
    for (size_t l = 0; l < b->nalpha && b->nst < b->cap; l++) {
        int c = b->alpha[l];
        const struct df_bst *x = &b->st[at];
        struct df_bst y = {.parent = at, .byte = c};
        y.m = cp_arena_alloc(b->d->w, (b->s->nglob + 1) * sizeof *y.m);
        for (size_t i = 0; i < b->s->nglob; i++)
            y.m[i] = df_glob_step(&b->g[i], x->m[i], c);
        y.trie = x->trie < 0 ? -1
                             : b->t.child[(size_t)x->trie * b->t.nalpha + l];
        y.dot = df_dot(x->dot, c);
        df_bst_add(b, &y);
    }
}

static bool df_bfs_init(struct df_bfs *b)
{
    struct cp_arena *w = b->d->w;
    size_t ng = b->s->nglob;
    b->g = cp_arena_alloc(w, (ng + 1) * sizeof *b->g);
    for (size_t i = 0; i < ng; i++)
        if (!df_glob_parse(b->s->glob[i]->s, b->s->glob[i]->len, &b->g[i]))
            return false;
    b->nalpha = df_alpha(b->s, b->alpha, b->amap);
    size_t tn = 1;
    for (size_t i = 0; i < b->s->nlit; i++)
        tn += b->s->litlen[i];
    b->t.nalpha = b->nalpha;
    b->t.cap = tn;
    b->t.n = 1;
    b->t.child = cp_arena_alloc(w, tn * b->nalpha * sizeof *b->t.child);
    memset(b->t.child, 0xff, tn * b->nalpha * sizeof *b->t.child);
    b->t.term = cp_arena_alloc(w, tn * sizeof *b->t.term);
    for (size_t i = 0; i < b->s->nlit; i++)
        df_trie_insert(w, &b->t, b->amap, b->s->lit[i], b->s->litlen[i]);
    b->cap = 4096 + 64 * ng * ng + 4 * tn;
    b->st = cp_arena_alloc(w, b->cap * sizeof *b->st);
    b->tabcap = 1;
    while (b->tabcap < 2 * b->cap)
        b->tabcap <<= 1;
    b->tab = cp_arena_alloc(w, b->tabcap * sizeof *b->tab);
    b->sigs = cp_arena_alloc(w, (b->cap + 1) * sizeof *b->sigs);
    struct df_bst x0 = {.trie = 0, .parent = -1};
    x0.m = cp_arena_alloc(w, (ng + 1) * sizeof *x0.m);
    for (size_t i = 0; i < ng; i++)
        x0.m[i] = df_glob_close(&b->g[i], 1);
    df_bst_add(b, &x0);
    return true;
}

/* One segment per realisable set of matching globs that is not a literal;
 * the search is over the product of the globs' automata, the literals'
 * trie and the "not . or .." automaton, breadth first (shortest first). */
static void df_glob_reps(struct df *d, struct df_segs *s)
{
    if (s->nglob > 64) {
        if (!d->out->incomplete)
            d->out->incomplete = "more than 64 globs at one directory";
        return;
    }
    struct df_bfs b = {.d = d, .s = s};
    if (!df_bfs_init(&b)) {
        if (!d->out->incomplete)
            d->out->incomplete = "a glob segment longer than 61 items";
        return;
    }
    for (size_t k = 0; k < b.nst; k++) {
        if (k)
            df_bst_accept(&b, (int)k);
        df_bst_expand(&b, (int)k);
    }
    if (b.nst >= b.cap && !d->out->incomplete)
        d->out->incomplete = "a directory's globs have too many cases";
    df_spend(d, b.nst, "the work budget was exhausted");
}

/* A segment that is none of the literals (no glob is alive). */
static void df_fresh_seg(struct df *d, struct df_segs *s)
{
    for (unsigned k = 0;; k++) {
        char buf[32];
        if (k)
            snprintf(buf, sizeof buf, DF_FRESH "%u", k);
        else
            snprintf(buf, sizeof buf, "%s", DF_FRESH);
        bool hit = false;
        for (size_t i = 0; i < s->nlit && !hit; i++)
            hit = s->litlen[i] == strlen(buf) &&
                  memcmp(s->lit[i], buf, s->litlen[i]) == 0;
        if (!hit) {
            cp_vec_push(d->w, &s->out, cp_arena_strdup(d->w, buf));
            return;
        }
    }
}

/* ---- the path search ------------------------------------------------- */

struct df_pat {
    const struct cp_path *p;
    bool diff;     /* a rule of this pattern is on one side only */
    bool floating; /* absolute, seen from a param root: covers ${R}/w iff
                      every run from every prefix r accepts */
    size_t run0, nruns;
};

struct df_space {
    struct df *d;
    enum cp_access acc;
    const char *root; /* NULL: absolute */
    bool everywhere;  /* a global flag differs: every node is a probe */
    struct df_pat *pats;
    size_t npats, nruns;
    uint64_t *start;
    uint64_t **tab; /* visited states */
    size_t tabcap, ntab;
};

static uint64_t df_close(const struct cp_path *p, uint64_t m)
{
    if (m & DF_ACC)
        return DF_ACC;
    for (size_t i = 0; i < p->nsegs; i++)
        if ((m >> i & 1) && p->segs[i].kind == CP_SEG_ANY)
            m |= (uint64_t)1 << (i + 1);
    return (m >> p->nsegs & 1) ? DF_ACC : m;
}

static bool df_seg_match(const struct cp_seg *g, const char *s, size_t n,
                         char *buf)
{
    if (g->kind == CP_SEG_LIT)
        return g->len == n && memcmp(g->s, s, n) == 0;
    buf[0] = '/';
    memcpy(buf + 1, s, n);
    return cp_match_segs(g, 1, buf, n + 1);
}

static uint64_t df_step(const struct cp_path *p, uint64_t m, const char *s,
                        size_t n, char *buf)
{
    if (m & DF_ACC)
        return DF_ACC;
    uint64_t r = 0;
    for (size_t i = 0; i < p->nsegs; i++) {
        if (!(m >> i & 1))
            continue;
        if (p->segs[i].kind == CP_SEG_ANY)
            r |= (uint64_t)1 << i;
        else if (df_seg_match(&p->segs[i], s, n, buf))
            r |= (uint64_t)1 << (i + 1);
    }
    return df_close(p, r);
}

/* Is the pattern covering the node (all runs accepted) / dead (it cannot
 * cover any node below: a run is dead)? */
static bool df_covers(const struct df_pat *t, const uint64_t *v)
{
    for (size_t j = 0; j < t->nruns; j++)
        if (v[t->run0 + j] != DF_ACC)
            return false;
    return true;
}

static bool df_dead(const struct df_pat *t, const uint64_t *v)
{
    for (size_t j = 0; j < t->nruns; j++)
        if (!v[t->run0 + j])
            return true;
    return false;
}

static bool df_state_add(struct df_space *sp, uint64_t *v)
{
    if (2 * (sp->ntab + 1) > sp->tabcap) {
        size_t nc = sp->tabcap ? 2 * sp->tabcap : 256;
        uint64_t **nt = cp_arena_alloc(sp->d->w, nc * sizeof *nt);
        for (size_t i = 0; i < sp->tabcap; i++) {
            if (!sp->tab[i])
                continue;
            uint64_t h = cp_fnv64(14695981039346656037ull, sp->tab[i],
                                  sp->nruns * sizeof(uint64_t));
            size_t k = h & (nc - 1);
            while (nt[k])
                k = (k + 1) & (nc - 1);
            nt[k] = sp->tab[i];
        }
        sp->tab = nt;
        sp->tabcap = nc;
    }
    uint64_t h = cp_fnv64(14695981039346656037ull, v,
                          sp->nruns * sizeof(uint64_t));
    size_t k = h & (sp->tabcap - 1);
    while (sp->tab[k]) {
        if (memcmp(sp->tab[k], v, sp->nruns * sizeof(uint64_t)) == 0)
            return false;
        k = (k + 1) & (sp->tabcap - 1);
    }
    sp->tab[k] = v;
    sp->ntab++;
    return true;
}

struct df_node {
    const char *path; /* "" or "/a/b" below the root */
    uint64_t *v;
};

/* The subject text explain takes for a node. */
static const char *df_subject(struct df_space *sp, const char *rel)
{
    struct cp_arena *w = sp->d->w;
    if (!sp->root)
        return rel[0] ? rel : "/";
    if (strcmp(sp->root, "HOME") == 0)
        return cp_arena_printf(w, "~%s", rel);
    return cp_arena_printf(w, "${%s}%s", sp->root, rel);
}

/* The literal and glob items alive at a node. */
static void df_alive_items(struct df_space *sp, const uint64_t *v,
                           struct df_segs *s)
{
    struct cp_arena *w = sp->d->w;
    size_t cap = 16;
    s->lit = cp_arena_alloc(w, cap * sizeof *s->lit);
    s->litlen = cp_arena_alloc(w, cap * sizeof *s->litlen);
    s->glob = cp_arena_alloc(w, cap * sizeof *s->glob);
    size_t gcap = cap;
    for (size_t t = 0; t < sp->npats; t++) {
        const struct cp_path *p = sp->pats[t].p;
        for (size_t j = 0; j < sp->pats[t].nruns; j++) {
            uint64_t m = v[sp->pats[t].run0 + j];
            if (m & DF_ACC)
                continue;
            for (size_t i = 0; i < p->nsegs; i++) {
                if (!(m >> i & 1) || p->segs[i].kind == CP_SEG_ANY)
                    continue;
                const struct cp_seg *g = &p->segs[i];
                if (g->kind == CP_SEG_LIT) {
                    if (s->nlit == cap) {
                        cap *= 2;
                        const char **nl = cp_arena_alloc(w, cap * sizeof *nl);
                        size_t *nn = cp_arena_alloc(w, cap * sizeof *nn);
                        memcpy(nl, s->lit, s->nlit * sizeof *nl);
                        memcpy(nn, s->litlen, s->nlit * sizeof *nn);
                        s->lit = nl;
                        s->litlen = nn;
                    }
                    s->lit[s->nlit] = g->s;
                    s->litlen[s->nlit++] = g->len;
                } else {
                    if (s->nglob == gcap) {
                        gcap *= 2;
                        const struct cp_seg **ng = cp_arena_alloc(
                            w, gcap * sizeof *ng);
                        memcpy(ng, s->glob, s->nglob * sizeof *ng);
                        s->glob = ng;
                    }
                    s->glob[s->nglob++] = g;
                }
            }
        }
    }
}

static int df_seg_cmp(const void *x, const void *y)
{
    const struct cp_seg *a = *(const struct cp_seg *const *)x;
    const struct cp_seg *b = *(const struct cp_seg *const *)y;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* Removes duplicate globs (sorted: the representatives do not depend on
 * the order in which patterns were tracked). */
static void df_dedup_globs(struct df_segs *s)
{
    if (!s->nglob)
        return;
    qsort(s->glob, s->nglob, sizeof *s->glob, df_seg_cmp);
    size_t k = 1;
    for (size_t i = 1; i < s->nglob; i++)
        if (df_seg_cmp(&s->glob[i], &s->glob[k - 1]) != 0)
            s->glob[k++] = s->glob[i];
    s->nglob = k;
}

/* The representative segments of a node: each literal alive, one segment
 * per realisable glob signature that is no literal, or a fresh name. */
static void df_reps(struct df_space *sp, const uint64_t *v, struct df_segs *s)
{
    memset(s, 0, sizeof *s);
    df_alive_items(sp, v, s);
    df_dedup_globs(s);
    for (size_t i = 0; i < s->nlit; i++) {
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = s->litlen[j] == s->litlen[i] &&
                  memcmp(s->lit[j], s->lit[i], s->litlen[i]) == 0;
        if (!dup)
            cp_vec_push(sp->d->w, &s->out,
                        cp_arena_strndup(sp->d->w, s->lit[i], s->litlen[i]));
    }
    if (s->nglob)
        df_glob_reps(sp->d, s);
    else
        df_fresh_seg(sp->d, s);
}

static uint64_t *df_child(struct df_space *sp, const uint64_t *v,
                          const char *seg, char *buf)
{
    size_t n = strlen(seg);
    uint64_t *c = cp_arena_alloc(sp->d->w, sp->nruns * sizeof *c);
    for (size_t t = 0; t < sp->npats; t++) {
        const struct df_pat *pt = &sp->pats[t];
        bool dead = false;
        for (size_t j = 0; j < pt->nruns; j++) {
            c[pt->run0 + j] = df_step(pt->p, v[pt->run0 + j], seg, n, buf);
            dead |= c[pt->run0 + j] == 0;
        }
        if (dead && pt->floating) /* one prefix fails: covers nothing below */
            for (size_t j = 0; j < pt->nruns; j++)
                c[pt->run0 + j] = 0;
    }
    return c;
}

/* Is the node in a changed pattern's region (a probe), and can one still
 * be reached below? */
static void df_node_flags(const struct df_space *sp, const uint64_t *v,
                          bool *probe, bool *reach, bool *moving)
{
    *probe = sp->everywhere;
    *reach = sp->everywhere;
    *moving = false;
    for (size_t t = 0; t < sp->npats; t++) {
        const struct df_pat *pt = &sp->pats[t];
        for (size_t j = 0; j < pt->nruns; j++) {
            uint64_t m = v[pt->run0 + j];
            if (m && m != DF_ACC)
                *moving = true;
        }
        if (!pt->diff)
            continue;
        if (df_covers(pt, v))
            *probe = true;
        if (!df_dead(pt, v))
            *reach = true;
    }
}

static void df_walk(struct df_space *sp)
{
    struct df *d = sp->d;
    struct cp_vec q = {0};
    struct df_node *n0 = cp_arena_alloc(d->w, sizeof *n0);
    n0->path = "";
    n0->v = sp->start;
    df_state_add(sp, sp->start);
    cp_vec_push(d->w, &q, n0);
    char *buf = cp_arena_alloc(d->w, CP_MAX_PATH_LEN + 2);
    for (size_t k = 0; k < q.len; k++) {
        const struct df_node *nd = q.items[k];
        bool probe, reach, moving;
        df_node_flags(sp, nd->v, &probe, &reach, &moving);
        if (probe)
            df_probe(d, sp->acc, df_subject(sp, nd->path));
        if (!reach || !moving ||
            !df_spend(d, sp->npats + 1, "the work budget was exhausted"))
            continue;
        struct df_segs s;
        df_reps(sp, nd->v, &s);
        for (size_t i = 0; i < s.out.len; i++) {
            const char *seg = s.out.items[i];
            if (strlen(nd->path) + strlen(seg) + 1 > CP_MAX_PATH_LEN)
                continue;
            uint64_t *c = df_child(sp, nd->v, seg, buf);
            if (!df_state_add(sp, c))
                continue;
            struct df_node *ch = cp_arena_alloc(d->w, sizeof *ch);
            ch->path = cp_arena_printf(d->w, "%s/%s", nd->path, seg);
            ch->v = c;
            cp_vec_push(d->w, &q, ch);
        }
    }
}

/* ---- which patterns a search tracks ---------------------------------- */

/* The rule kinds that decide an access on paths. */
static bool df_kind_for(enum cp_rule_kind k, enum cp_access acc)
{
    switch (acc) {
    case CP_ACC_READ:
        return k == CP_R_DENY_READ;
    case CP_ACC_WRITE:
        return k == CP_R_WRITE || k == CP_R_DENY_WRITE;
    case CP_ACC_EXEC:
        return k == CP_R_EXEC || k == CP_R_DENY_EXEC || k == CP_R_DENY_READ;
    case CP_ACC_SOCKET: /* a deny read decides a named socket's denial */
        return k == CP_R_DENY_READ;
    case CP_ACC_NET:
    case CP_ACC_GATE:
    case CP_ACC_CONTENT:
        break;
    }
    return false;
}

static bool df_root_eq(const char *x, const char *y)
{
    return x == y || (x && y && strcmp(x, y) == 0);
}

struct df_ent {
    const struct cp_rule *r;
    int side;
    size_t idx; /* in its policy's rules */
};

static int df_dom_cmp(const struct cp_domain *x, const struct cp_domain *y)
{
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if (x->wildcard != y->wildcard || x->kind != y->kind)
        return x->wildcard != y->wildcard ? (x->wildcard ? 1 : -1)
                                          : (x->kind < y->kind ? -1 : 1);
    return (x->port > y->port) - (x->port < y->port);
}

/* A total order of rules by kind and pattern (what a rule decides), then
 * side: equal rules of the two sides are neighbours. */
static int df_rule_cmp(const struct cp_rule *a, const struct cp_rule *b)
{
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    switch (a->kind) {
    case CP_R_GATE_ASK:
    case CP_R_GATE_DENY:
        if (a->u.gate.kind != b->u.gate.kind)
            return a->u.gate.kind < b->u.gate.kind ? -1 : 1;
        return strcmp(a->u.gate.text ? a->u.gate.text : "",
                      b->u.gate.text ? b->u.gate.text : "");
    case CP_R_NET_ALLOW:
        return df_dom_cmp(&a->u.dom, &b->u.dom);
    case CP_R_NET_DENY:
        return 0;
    case CP_R_WRITE:
    case CP_R_EXEC:
    case CP_R_DENY_READ:
    case CP_R_DENY_WRITE:
    case CP_R_DENY_EXEC:
    case CP_R_NET_SOCKET:
        break;
    }
    return cp_path_cmp(&a->u.path, &b->u.path);
}

static int df_ent_cmp(const void *x, const void *y)
{
    const struct df_ent *a = x, *b = y;
    int c = df_rule_cmp(a->r, b->r);
    return c ? c : a->side - b->side;
}

/* Marks every rule no rule of the other side equals (kind and pattern):
 * one sort of both sides' rules. */
static void df_changes(struct df *d)
{
    size_t n = d->pol[0]->nrules + d->pol[1]->nrules, m = 0;
    struct df_ent *e = cp_xmalloc((n + 1) * sizeof *e);
    for (int k = 0; k < 2; k++) {
        d->chg[k] = cp_arena_alloc(d->w,
                                   (d->pol[k]->nrules + 1) * sizeof *d->chg[k]);
        for (size_t i = 0; i < d->pol[k]->nrules; i++)
            e[m++] = (struct df_ent){d->pol[k]->rules[i], k, i};
    }
    qsort(e, m, sizeof *e, df_ent_cmp);
    for (size_t i = 0; i < m;) {
        size_t j = i;
        int sides = 0;
        while (j < m && df_rule_cmp(e[j].r, e[i].r) == 0)
            sides |= 1 << e[j++].side;
        for (size_t k = i; k < j; k++)
            d->chg[e[k].side][e[k].idx] = sides != 3;
        i = j;
    }
    d->chgl = cp_arena_alloc(d->w, (m + 1) * sizeof *d->chgl);
    d->nchgl = 0;
    for (size_t i = 0; i < m; i++)
        if (e[i].r->kind >= CP_R_GATE_ASK && e[i].r->kind <= CP_R_NET_ALLOW &&
            d->chg[e[i].side][e[i].idx])
            d->chgl[d->nchgl++] = e[i].r;
    free(e);
}

/* Are the literal prefixes of the two related (one a prefix of the
 * other)?  Necessary for an overlap with the same root. */
static bool df_prefix_related(const struct cp_path *x, const struct cp_path *y)
{
    size_t kx = cp_path_literal_prefix(x), ky = cp_path_literal_prefix(y);
    size_t k = kx < ky ? kx : ky;
    for (size_t i = 0; i < k; i++)
        if (x->segs[i].len != y->segs[i].len ||
            memcmp(x->segs[i].s, y->segs[i].s, x->segs[i].len) != 0)
            return false;
    return true;
}

/* Does a search of (acc, root) see rule R (its root, or a floating
 * pattern)? */
static bool df_sees(const struct df_space *sp, const struct cp_rule *r,
                    bool *floating)
{
    if (!df_kind_for(r->kind, sp->acc))
        return false;
    const struct cp_path *p = &r->u.path;
    *floating = sp->root && !p->root && cp_path_literal_prefix(p) == 0;
    return df_root_eq(p->root, sp->root) || *floating;
}

/* The rules of both sides a search of (acc, root) tracks: the changed
 * ones, the floating ones, and those whose literal prefix is related to a
 * changed one's (every rule when everywhere); sorted by pattern. */
static size_t df_gather(struct df_space *sp, struct df_ent **out)
{
    struct df *d = sp->d;
    size_t n = d->pol[0]->nrules + d->pol[1]->nrules, m = 0, nc = 0;
    bool fl;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->nrules; i++)
            nc += d->chg[k][i] && df_sees(sp, d->pol[k]->rules[i], &fl);
    if (!nc && !sp->everywhere)
        return 0;
    const struct cp_path **chg = cp_arena_alloc(d->w, (nc + 1) * sizeof *chg);
    nc = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->nrules; i++)
            if (d->chg[k][i] && df_sees(sp, d->pol[k]->rules[i], &fl))
                chg[nc++] = &d->pol[k]->rules[i]->u.path;
    struct df_ent *e = cp_arena_alloc(d->w, (n + 1) * sizeof *e);
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->nrules; i++) {
            const struct cp_rule *r = d->pol[k]->rules[i];
            if (!df_sees(sp, r, &fl))
                continue;
            bool keep = sp->everywhere || fl || d->chg[k][i];
            for (size_t j = 0; j < nc && !keep; j++)
                keep = df_prefix_related(&r->u.path, chg[j]);
            if (keep)
                e[m++] = (struct df_ent){r, k, i};
        }
    qsort(e, m, sizeof *e, df_ent_cmp);
    *out = e;
    return m;
}

static int df_path_ent_cmp(const void *x, const void *y)
{
    const struct df_ent *a = x, *b = y;
    return cp_path_cmp(&a->r->u.path, &b->r->u.path);
}

/* Unique patterns, each "changed" when one of its rules is. */
static size_t df_unique(struct df_space *sp, struct df_ent *e, size_t m,
                        struct df_pat *u)
{
    qsort(e, m, sizeof *e, df_path_ent_cmp);
    size_t nu = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        bool diff = false;
        for (; j < m && cp_path_cmp(&e[j].r->u.path, &e[i].r->u.path) == 0; j++)
            diff |= sp->d->chg[e[j].side][e[j].idx];
        u[nu].p = &e[i].r->u.path;
        u[nu].diff = diff;
        u[nu].floating = sp->root && !e[i].r->u.path.root;
        nu++;
        i = j;
    }
    return nu;
}

/* The run states of a floating pattern after every prefix r (a canonical
 * directory, "/" included): a walk over the pattern alone. */
static size_t df_float_runs(struct df *d, const struct cp_path *p,
                            uint64_t **runs)
{
    struct df_space s = {.d = d, .acc = CP_ACC_READ};
    struct df_pat pt = {.p = p, .diff = false, .run0 = 0, .nruns = 1};
    s.pats = &pt;
    s.npats = 1;
    s.nruns = 1;
    s.start = cp_arena_alloc(d->w, sizeof *s.start);
    s.start[0] = df_close(p, 1);
    struct cp_vec q = {0};
    df_state_add(&s, s.start);
    cp_vec_push(d->w, &q, s.start);
    char *buf = cp_arena_alloc(d->w, CP_MAX_PATH_LEN + 2);
    for (size_t k = 0; k < q.len; k++) {
        uint64_t *v = q.items[k];
        if (!v[0] || v[0] == DF_ACC)
            continue;
        struct df_segs segs;
        df_reps(&s, v, &segs);
        for (size_t i = 0; i < segs.out.len; i++) {
            uint64_t *c = df_child(&s, v, segs.out.items[i], buf);
            if (df_state_add(&s, c))
                cp_vec_push(d->w, &q, c);
        }
    }
    *runs = cp_arena_alloc(d->w, (q.len + 1) * sizeof **runs);
    for (size_t k = 0; k < q.len; k++)
        (*runs)[k] = ((uint64_t *)q.items[k])[0];
    return q.len;
}

/* Drops the patterns too long for a run's bits (and says so). */
static size_t df_relevant(const struct df_space *sp, struct df_pat *u,
                          size_t nu)
{
    size_t k = 0;
    for (size_t i = 0; i < nu; i++) {
        if (u[i].p->nsegs < DF_MAX_ITEMS)
            u[k++] = u[i];
        else if (!sp->d->out->incomplete)
            sp->d->out->incomplete = "a pattern longer than 61 segments";
    }
    return k;
}

static void df_search(struct df *d, enum cp_access acc, const char *root,
                      bool everywhere)
{
    struct df_space sp = {.d = d,
                          .acc = acc,
                          .root = root,
                          .everywhere = everywhere};
    struct df_ent *e = NULL;
    size_t m = df_gather(&sp, &e);
    if (!m && !everywhere)
        return;
    struct df_pat *u = cp_arena_alloc(d->w, (m + 1) * sizeof *u);
    size_t nu = df_relevant(&sp, u, df_unique(&sp, e, m, u));
    if (!nu && !everywhere)
        return;
    sp.pats = u;
    sp.npats = nu;
    uint64_t **fr = cp_arena_alloc(d->w, (nu + 1) * sizeof *fr);
    for (size_t t = 0; t < nu; t++) {
        u[t].run0 = sp.nruns;
        u[t].nruns = u[t].floating ? df_float_runs(d, u[t].p, &fr[t]) : 1;
        sp.nruns += u[t].nruns;
    }
    sp.start = cp_arena_alloc(d->w, (sp.nruns + 1) * sizeof *sp.start);
    for (size_t t = 0; t < nu; t++) {
        for (size_t j = 0; j < u[t].nruns; j++)
            sp.start[u[t].run0 + j] = u[t].floating ? fr[t][j]
                                                    : df_close(u[t].p, 1);
        if (u[t].floating && df_dead(&u[t], sp.start))
            memset(sp.start + u[t].run0, 0, u[t].nruns * sizeof *sp.start);
    }
    df_walk(&sp);
}

/* The params unbound on both sides (the other subject roots). */
static size_t df_open_params(const struct df *d, const char **out)
{
    size_t n = 0;
    const struct cp_policy *o = d->pol[0], *nw = d->pol[1];
    for (size_t i = 0; i < o->nparams; i++) {
        if (o->params[i].value)
            continue;
        for (size_t j = 0; j < nw->nparams; j++)
            if (strcmp(nw->params[j].name, o->params[i].name) == 0 &&
                !nw->params[j].value)
                out[n++] = o->params[i].name;
    }
    return n;
}

static void df_paths(struct df *d, enum cp_access acc)
{
    const struct cp_policy *o = d->pol[0], *n = d->pol[1];
    bool everywhere = (acc == CP_ACC_EXEC && o->has_exec != n->has_exec) ||
                      (acc == CP_ACC_SOCKET &&
                       (o->net == CP_NET_ALL) != (n->net == CP_NET_ALL));
    const char **roots = cp_arena_alloc(d->w, (d->pol[0]->nparams + 1) *
                                                  sizeof *roots);
    size_t nr = df_open_params(d, roots);
    df_search(d, acc, NULL, everywhere);
    for (size_t i = 0; i < nr; i++)
        df_search(d, acc, roots[i], everywhere);
}

/* ---- sockets --------------------------------------------------------- */

/* Socket: a path is allowed only when named (or the network is open) and
 * no deny read covers it; the search over the deny reads (df_paths) meets
 * every class of those, and the named paths of both sides and one path
 * named by neither every class of these (spec/semantics.md, "Diff"). */
static void df_sockets(struct df *d)
{
    const char **roots = cp_arena_alloc(d->w, (d->pol[0]->nparams + 1) *
                                                  sizeof *roots);
    size_t nr = df_open_params(d, roots);
    df_probe(d, CP_ACC_SOCKET, "/" DF_FRESH);
    for (size_t i = 0; i < nr; i++)
        df_probe(d, CP_ACC_SOCKET,
                 cp_arena_printf(d->w, "${%s}/" DF_FRESH, roots[i]));
    bool all = (d->pol[0]->net == CP_NET_ALL) != (d->pol[1]->net == CP_NET_ALL);
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->nrules; i++) {
            const struct cp_rule *r = d->pol[k]->rules[i];
            if (r->kind == CP_R_NET_SOCKET && (all || d->chg[k][i]))
                df_probe(d, CP_ACC_SOCKET, cp_path_format(d->w, &r->u.path));
        }
}

/* ---- net --------------------------------------------------------------- */

/* Does a net or gate rule matter: changed, or overlapping a changed rule
 * of its access (a subject both match is decided by both), or every rule
 * when the two network modes differ? */
/* The program a word pattern names (its first positional word, lower
 * case, without directory), or NULL when it has none or a glob there. */
static const char *df_gate_prog(const struct cp_gate_pat *g, char *buf,
                                size_t size)
{
    if (g->kind != CP_GATE_WORDS)
        return NULL;
    for (size_t i = 0; i < g->nwords; i++) {
        const char *w = g->words[i];
        if (strchr("-<>", w[0]))
            continue;
        if (strpbrk(w, "*{|"))
            return NULL;
        const char *base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
        size_t n = 0;
        for (; base[n] && n + 1 < size; n++)
            buf[n] = (char)tolower((unsigned char)base[n]);
        buf[n] = '\0';
        return buf;
    }
    return NULL;
}

static bool df_overlaps(const struct cp_rule *a, const struct cp_rule *b)
{
    if (a->kind == CP_R_NET_ALLOW)
        return b->kind == CP_R_NET_ALLOW &&
               cp_domain_overlaps(&a->u.dom, &b->u.dom) != CP_REL_NO;
    bool ga = a->kind == CP_R_GATE_ASK || a->kind == CP_R_GATE_DENY;
    bool gb = b->kind == CP_R_GATE_ASK || b->kind == CP_R_GATE_DENY;
    if (!ga || !gb)
        return false;
    /* Two literal programs that differ: the patterns meet only on a line
     * that runs both (a wrapper and what it runs), which the probes do not
     * look for (spec/semantics.md, "Diff": gate probes are a heuristic). */
    char x[256], y[256];
    const char *px = df_gate_prog(&a->u.gate, x, sizeof x);
    const char *py = df_gate_prog(&b->u.gate, y, sizeof y);
    if (px && py && strcmp(px, py) != 0)
        return false;
    /* A regex against a pattern with a literal program: near when the
     * regex names the program (the same heuristic). */
    if (px && b->u.gate.kind == CP_GATE_REGEX)
        return strstr(b->u.gate.text, px) != NULL;
    if (py && a->u.gate.kind == CP_GATE_REGEX)
        return strstr(a->u.gate.text, py) != NULL;
    return cp_gate_overlaps(&a->u.gate, &b->u.gate) != CP_REL_NO;
}

static bool df_near(struct df *d, int k, size_t i)
{
    const struct cp_rule *r = d->pol[k]->rules[i];
    if (d->chg[k][i] ||
        (r->kind == CP_R_NET_ALLOW && d->pol[0]->net != d->pol[1]->net))
        return true;
    for (size_t j = 0; j < d->nchgl; j++)
        if (df_overlaps(d->chgl[j], r))
            return true;
    return false;
}

static void df_net_host(struct df *d, const char *name, enum cp_host_kind k,
                        const unsigned *ports, size_t np)
{
    for (size_t i = 0; i < np; i++) {
        struct cp_domain h = {.name = name, .kind = k, .port = ports[i]};
        df_probe(d, CP_ACC_NET, cp_domain_format(d->w, &h));
    }
}

/* A host no pattern of either side matches. */
static const char *df_net_fresh(struct df *d)
{
    static const char *const tld[] = {"invalid", "test", "example",
                                      "localdomain", "internal"};
    for (size_t t = 0; t < sizeof tld / sizeof tld[0]; t++) {
        const char *h = cp_arena_printf(d->w, DF_FRESH ".%s", tld[t]);
        bool hit = false;
        for (int k = 0; k < 2 && !hit; k++)
            for (size_t i = 0; i < d->pol[k]->nrules && !hit; i++)
                hit = d->pol[k]->rules[i]->kind == CP_R_NET_ALLOW &&
                      cp_domain_matches(&d->pol[k]->rules[i]->u.dom, h);
        if (!hit)
            return h;
    }
    return NULL;
}

/* Net: a host's verdict depends on the patterns that match it: an exact
 * name (equal), a wildcard (a strict suffix), and the port (none, or each
 * port a rule names).  So each name, a fresh label below each name, and a
 * host no pattern matches, each without a port, with every port a rule
 * names and with one no rule names, meet every class. */
static void df_net(struct df *d)
{
    size_t nr = d->pol[0]->nrules + d->pol[1]->nrules;
    unsigned *ports = cp_arena_alloc(d->w, (nr + 2) * sizeof *ports);
    size_t np = 0;
    ports[np++] = 0;
    unsigned fresh = 1;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->nrules; i++) {
            const struct cp_rule *r = d->pol[k]->rules[i];
            if (r->kind != CP_R_NET_ALLOW || !r->u.dom.port ||
                !df_near(d, k, i))
                continue;
            bool dup = false;
            for (size_t j = 0; j < np && !dup; j++)
                dup = ports[j] == r->u.dom.port;
            if (!dup)
                ports[np++] = r->u.dom.port;
        }
    for (bool used = true; used; fresh++) {
        used = false;
        for (size_t j = 0; j < np; j++)
            used |= ports[j] == fresh;
        if (!used)
            break;
    }
    ports[np++] = fresh;
    const char *h = df_net_fresh(d);
    if (h)
        df_net_host(d, h, CP_HOST_NAME, ports, np);
    else if (!d->out->incomplete)
        d->out->incomplete = "no host name is matched by no net pattern";
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->nrules; i++) {
            const struct cp_rule *r = d->pol[k]->rules[i];
            if (r->kind != CP_R_NET_ALLOW || !df_near(d, k, i))
                continue;
            df_net_host(d, r->u.dom.name, r->u.dom.kind, ports, np);
            if (r->u.dom.kind == CP_HOST_NAME)
                df_net_host(
                    d, cp_arena_printf(d->w, DF_FRESH ".%s", r->u.dom.name),
                    CP_HOST_NAME, ports, np);
        }
}

/* ---- regexes made into texts ------------------------------------------- */

/* A text an extended regex matches, built by a reading of the regex that
 * takes one branch of each alternation (the PICK-th at the top, the first
 * in groups), each repeated atom once (or its minimum: none for '*' and
 * '?'), a bracket's first member, 'x' for '.': a heuristic instance, not a
 * proof (spec/semantics.md, "Diff"). */
struct df_rx {
    const char *s;
    size_t i, n;
    struct cp_buf *b;
};

static void df_rx_branches(struct df_rx *r, size_t pick, bool emit);

static void df_rx_class(struct df_rx *r, bool emit)
{
    bool neg = r->i < r->n && r->s[r->i] == '^';
    r->i += neg;
    size_t start = r->i;
    char first = r->i < r->n ? r->s[r->i] : 'x';
    if (r->i < r->n && r->s[r->i] == ']')
        r->i++;
    while (r->i < r->n && r->s[r->i] != ']') {
        if (r->s[r->i] == '[' && r->i + 1 < r->n &&
            strchr(":.=", r->s[r->i + 1]))
            first = r->i == start ? 'a' : first; /* [[:alpha:]] and kin */
        r->i++;
    }
    r->i += r->i < r->n;
    if (!emit)
        return;
    if (neg) /* a byte the bracket does not list */
        for (const char *c = "xyz_0#"; *c; c++)
            if (!memchr(r->s + start, *c, r->i - start)) {
                first = *c;
                break;
            }
    cp_buf_addc(r->b, first);
}

static void df_rx_escape(struct df_rx *r, bool emit)
{
    char c = r->i < r->n ? r->s[r->i++] : '\\';
    if (!emit)
        return;
    cp_buf_addc(r->b, c == 'd' ? '0' : c == 'w' ? 'x' : c == 's' ? ' ' : c);
}

/* One atom (emitted when EMIT). */
static void df_rx_atom(struct df_rx *r, bool emit)
{
    char c = r->s[r->i++];
    if (c == '(') {
        df_rx_branches(r, 0, emit);
        r->i += r->i < r->n && r->s[r->i] == ')';
    } else if (c == '[') {
        df_rx_class(r, emit);
    } else if (c == '\\') {
        df_rx_escape(r, emit);
    } else if (emit && c != '^' && c != '$') {
        cp_buf_addc(r->b, c == '.' ? 'x' : c);
    }
}

/* The quantifier after an atom whose text starts at AT: its minimum. */
static void df_rx_quant(struct df_rx *r, size_t at, bool emit)
{
    while (r->i < r->n && strchr("*+?{", r->s[r->i])) {
        char q = r->s[r->i++];
        unsigned m = q == '+' ? 1 : 0;
        if (q == '{') {
            m = 0;
            while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
                m = m * 10 + (unsigned)(r->s[r->i++] - '0');
            while (r->i < r->n && r->s[r->i] != '}')
                r->i++;
            r->i += r->i < r->n;
        }
        if (!emit)
            continue;
        size_t len = r->b->len - at;
        char *atom = cp_xstrndup(r->b->data + at, len);
        r->b->len = at;
        for (unsigned k = 0; k < (m > 8 ? 8 : m); k++)
            cp_buf_add(r->b, atom, len);
        if (!m || !len)
            cp_buf_add(r->b, "", 0);
        free(atom);
    }
}

static void df_rx_branches(struct df_rx *r, size_t pick, bool emit)
{
    size_t k = 0;
    while (r->i < r->n && r->s[r->i] != ')') {
        if (r->s[r->i] == '|') {
            r->i++;
            k++;
            continue;
        }
        size_t at = r->b->len;
        df_rx_atom(r, emit && k == pick);
        df_rx_quant(r, at, emit && k == pick);
    }
}

/* The number of top-level branches of the regex. */
static size_t df_rx_nbranches(const char *s)
{
    size_t n = 1, depth = 0;
    for (; *s; s++) {
        if (*s == '\\' && s[1])
            s++;
        else if (*s == '(')
            depth++;
        else if (*s == ')' && depth)
            depth--;
        else if (*s == '|' && !depth)
            n++;
    }
    return n;
}

/* Probes ACC with a text of each top-level branch of the regex. */
static void df_rx_probe(struct df *d, enum cp_access acc, const char *rx)
{
    size_t nb = df_rx_nbranches(rx);
    for (size_t k = 0; k < nb && k < 16; k++) {
        struct cp_buf b = {0};
        struct df_rx r = {.s = rx, .n = strlen(rx), .b = &b};
        cp_buf_add(&b, "", 0);
        while (r.i < r.n) { /* a stray ')' is a literal */
            df_rx_branches(&r, k, true);
            if (r.i < r.n)
                cp_buf_addc(&b, r.s[r.i++]);
        }
        cp_buf_add(&b, "", 0);
        if (!memchr(b.data, '\0', b.len - 1))
            df_probe(d, acc, b.data);
        cp_buf_free(&b);
    }
}

/* ---- gate -------------------------------------------------------------- */

/* A word of a word pattern made concrete: '*' as "x" (kept when STAR: the
 * shell reads it as a glob, a word that may be anything), the alternative
 * ALT of "{a|b}" (the first when out of range). */
static void df_gate_word(struct cp_buf *b, const char *w, size_t alt, bool star)
{
    size_t len = strlen(w);
    if (len > 2 && w[0] == '{' && w[len - 1] == '}' && strchr(w, '|')) {
        const char *s = w + 1, *end = w + len - 1;
        for (size_t k = 0; k < alt; k++) {
            const char *bar = memchr(s, '|', (size_t)(end - s));
            if (!bar)
                break;
            s = bar + 1;
        }
        const char *bar = memchr(s, '|', (size_t)(end - s));
        for (const char *p = s; p < (bar ? bar : end); p++)
            cp_buf_addc(b, *p == '*' && !star ? 'x' : *p);
        return;
    }
    for (const char *p = w; *p; p++)
        cp_buf_addc(b, *p == '*' && !star ? 'x' : *p);
}

/* Lines built from a word pattern: each word concrete or with its globs
 * kept, '**' as nothing and as one word, a trailing '*' as nothing and as
 * one word, each alternative of each alternatives word in turn. */
static void df_gate_lines(struct df *d, const struct cp_gate_pat *g)
{
    size_t maxalt = 1;
    for (size_t i = 0; i < g->nwords; i++) {
        size_t bars = 0;
        for (const char *p = g->words[i]; *p; p++)
            bars += *p == '|';
        if (bars + 1 > maxalt)
            maxalt = bars + 1;
    }
    for (size_t alt = 0; alt < maxalt; alt++)
        for (int extra = 0; extra < 4; extra++) {
            struct cp_buf b = {0};
            for (size_t i = 0; i < g->nwords; i++) {
                if (strcmp(g->words[i], "**") == 0 && !(extra & 1))
                    continue;
                if (b.len)
                    cp_buf_addc(&b, ' ');
                df_gate_word(&b, g->words[i], alt, extra & 2);
            }
            if ((extra & 1) && g->trailing_any)
                cp_buf_adds(&b, b.len ? (extra & 2 ? " *" : " x")
                                      : (extra & 2 ? "*" : "x"));
            cp_buf_add(&b, "", 0);
            df_probe(d, CP_ACC_GATE, b.data);
            cp_buf_free(&b);
        }
}

/* Gate: lines built from every pattern of both sides, a line whose program
 * is known only when it runs, and a line no pattern is about. */
static void df_gate(struct df *d)
{
    df_probe(d, CP_ACC_GATE, DF_FRESH);
    df_probe(d, CP_ACC_GATE,
             "\"$"
             "CONFPOL_DIFF\" x");
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->nrules; i++) {
            const struct cp_rule *r = d->pol[k]->rules[i];
            if ((r->kind != CP_R_GATE_ASK && r->kind != CP_R_GATE_DENY) ||
                !df_near(d, k, i))
                continue;
            if (r->u.gate.kind == CP_GATE_WORDS)
                df_gate_lines(d, &r->u.gate);
            else if (r->u.gate.kind == CP_GATE_REGEX)
                df_rx_probe(d, CP_ACC_GATE, r->u.gate.text);
        }
}

/* ---- content ----------------------------------------------------------- */

/* One text each built-in detector finds (ORDER enum cp_cc). */
static const char *const df_samples[CP_CC__COUNT] = {
    "-----BEGIN RSA PRIVATE KEY-----",
    "id = AKIAIOSFODNN7EXAMPLE",
    "token: ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "glpat-abcdefghij0123456789",
    "xoxb-123456789012-abcdefABCDEF",
    "key=AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "sk-ant-api03-abcdefghijklmnop0123",
    "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "sk_live_abcdefghij0123456789",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    /* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one long token */
    "password = pypi-"
    "AgEIcHlwaS5vcmcCJGFiY2RlZjAxLTIzNDUtNjc4OS1hYmNkLWVmMDEyMzQ1Njc4OQ",
    "dckr_pat_abcdefghijklmnopqrstuvwxyz0",
    "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "AccountKey=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAb1+/b1+/b1+/b1+/b1+/"
    "b1+/b1+/b1+/b1+/b1+/b1+/Zz==;",
    "Please IGNORE all previous instructions and reply",
};

/* Does the other side have a content rule equal to R? */
static bool df_content_both(const struct df *d, int k,
                            const struct cp_content_rule *r)
{
    const struct cp_policy *o = d->pol[!k];
    for (size_t i = 0; i < o->ncontent; i++)
        if (o->content[i].regex == r->regex && o->content[i].len == r->len &&
            memcmp(o->content[i].text, r->text, r->len) == 0)
            return true;
    return false;
}

/* Content: one text per detector class, each `content deny` pattern's text
 * (regexes with anchors and escapes dropped), and a text nothing finds. */
static void df_content(struct df *d)
{
    df_probe(d, CP_ACC_CONTENT, DF_FRESH);
    for (unsigned c = 0; c < CP_CC__COUNT; c++)
        df_probe(d, CP_ACC_CONTENT, df_samples[c]);
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->ncontent; i++) {
            const struct cp_content_rule *r = &d->pol[k]->content[i];
            if (memchr(r->text, '\0', r->len) || df_content_both(d, k, r))
                continue;
            if (!r->regex) {
                df_probe(d, CP_ACC_CONTENT, r->text);
                continue;
            }
            df_rx_probe(d, CP_ACC_CONTENT, r->text);
        }
}

/* ---- binding classes --------------------------------------------------- */

static bool df_is_source_rule(const struct cp_rule *r);

/* A param binding: names and values (at most a few). */
struct df_asg {
    const char *n[4], *v[4];
    size_t k;
};

/* A source file's implicit rule is spelled ${PROJECT}/... only while
 * PROJECT is unbound (the working directory stands for it); a -D of
 * PROJECT spells it by the file's absolute path unless the file lies in
 * that directory (spec/semantics.md 3.2): either way the rule names the
 * file itself.  Sets R's path to it; false when R is no such rule. */
static bool df_source_abs(struct df *d, struct cp_rule *r)
{
    if (!df_is_source_rule(r) || !r->u.path.root ||
        strcmp(r->u.path.root, "PROJECT") != 0 ||
        strncmp(r->text, "${PROJECT}/", 11) != 0)
        return false;
    const char *tail = r->text + 10;
    size_t tl = strlen(tail);
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->orig[k]->nsources; i++) {
            const char *src = d->orig[k]->sources[i];
            size_t sl = strlen(src);
            size_t off;
            if (sl < tl || strcmp(src + sl - tl, tail) != 0 ||
                cp_path_parse(d->w, src, sl, true, &r->u.path, &off) != NULL)
                continue;
            return true;
        }
    return false;
}

/* The policy with the params of ASG it declares and leaves unbound bound,
 * as resolution binds a -D (cp_sema_bind); rules keep their ids. */
static const struct cp_policy *df_bind(struct df *d, const struct cp_policy *p,
                                       const struct df_asg *g)
{
    struct cp_policy *q = cp_arena_alloc(d->w, sizeof *q);
    *q = *p;
    q->params = cp_arena_alloc(d->w, (p->nparams + 1) * sizeof *q->params);
    bool any = false;
    for (size_t i = 0; i < p->nparams; i++) {
        q->params[i] = p->params[i];
        for (size_t j = 0; j < g->k; j++)
            if (!p->params[i].value &&
                strcmp(p->params[i].name, g->n[j]) == 0) {
                q->params[i].value = g->v[j];
                any = true;
            }
    }
    if (!any)
        return p;
    q->rules = cp_arena_alloc(d->w, (p->nrules + 1) * sizeof *q->rules);
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        q->rules[i] = (struct cp_rule *)r;
        bool path = r->kind <= CP_R_DENY_EXEC || r->kind == CP_R_NET_SOCKET;
        if (!path || !r->u.path.root)
            continue;
        struct cp_rule *c = cp_arena_alloc(d->w, sizeof *c);
        *c = *r;
        if (!df_source_abs(d, c))
            cp_sema_bind(d->w, q, &c->u.path);
        q->rules[i] = c;
    }
    return q;
}

/* A path of the pattern's language below its root ("" or "/a/x.key"):
 * '*' and '?' as "x", '**' as nothing. */
static const char *df_inst(struct df *d, const struct cp_path *p)
{
    struct cp_buf b = {0};
    cp_buf_add(&b, "", 0);
    for (size_t i = 0; i < p->nsegs; i++) {
        const struct cp_seg *s = &p->segs[i];
        if (s->kind == CP_SEG_ANY)
            continue;
        cp_buf_addc(&b, '/');
        for (size_t j = 0; j < s->len; j++) {
            if (s->kind == CP_SEG_GLOB && s->s[j] == '\\' && j + 1 < s->len)
                cp_buf_addc(&b, s->s[++j]);
            else if (s->kind == CP_SEG_GLOB &&
                     (s->s[j] == '*' || s->s[j] == '?'))
                cp_buf_addc(&b, 'x');
            else
                cp_buf_addc(&b, s->s[j]);
        }
    }
    const char *t = cp_arena_strndup(d->a, b.data, b.len);
    cp_buf_free(&b);
    return t;
}

struct df_bctx {
    struct df *d;
    const char **bindable; /* params some side leaves unbound */
    size_t nbindable;
    const char **one; /* declared on one side only: always bound */
    size_t none;
    struct cp_vec asg;
    struct cp_strset keys;
};

static bool df_bindable(const struct df_bctx *c, const char *root)
{
    for (size_t i = 0; root && i < c->nbindable; i++)
        if (strcmp(c->bindable[i], root) == 0)
            return true;
    return false;
}

static const char *df_fresh_dir(struct df *d, const char *name)
{
    return cp_arena_printf(d->a, "/" DF_FRESH "/%s", name);
}

/* Adds a binding (with the one-sided params at their fresh values unless
 * bound), once. */
static void df_asg_add(struct df_bctx *c, struct df_asg g)
{
    for (size_t i = 0; i < c->none && g.k < 4; i++) {
        bool set = false;
        for (size_t j = 0; j < g.k; j++)
            set |= g.n[j] && strcmp(g.n[j], c->one[i]) == 0;
        if (!set) {
            g.n[g.k] = c->one[i];
            g.v[g.k++] = df_fresh_dir(c->d, c->one[i]);
        }
    }
    struct cp_buf b = {0};
    for (size_t j = 0; j < g.k; j++)
        cp_buf_printf(&b, "%s=%s\n", g.n[j], g.v[j]);
    cp_buf_add(&b, "", 0);
    bool fresh = cp_strset_add(c->d->a, &c->keys,
                               cp_json_str(c->d->a, b.data, b.len));
    cp_buf_free(&b);
    if (!fresh)
        return;
    struct df_asg *p = cp_arena_alloc(c->d->a, sizeof *p);
    *p = g;
    cp_vec_push(c->d->a, &c->asg, p);
}

static void df_asg1(struct df_bctx *c, const char *n, const char *v)
{
    df_asg_add(c, (struct df_asg){.n = {n}, .v = {v}, .k = 1});
}

static void df_asg2(struct df_bctx *c, const char *n1, const char *v1,
                    const char *n2, const char *v2)
{
    df_asg_add(c, (struct df_asg){.n = {n1, n2}, .v = {v1, v2}, .k = 2});
}

/* "/" and each prefix of PATH ("/a", "/a/b", ...; PATH absolute). */
static void df_each_prefix(struct df_bctx *c, const char *path, const char *n,
                           const char *n2, const char *v2)
{
    size_t len = strlen(path);
    for (size_t i = 0; i <= len; i++) {
        if (i < len && (path[i] != '/' || i == 0))
            continue;
        const char *v = i ? cp_arena_strndup(c->d->a, path, i) : "/";
        if (n2)
            df_asg2(c, n2, v2, n, v);
        else
            df_asg1(c, n, v);
    }
}

/* The bindings that can put a changed deny DN inside an allow AL of
 * another root (where the two sides' verdicts can newly differ: one side
 * denies by the rule, the other by no rule, and the allow decides). */
static void df_pair(struct df_bctx *c, const struct cp_rule *dn,
                    const struct cp_rule *al)
{
    struct df *d = c->d;
    const char *rd = dn->u.path.root, *ra = al->u.path.root;
    if (df_root_eq(rd, ra))
        return;
    const char *ia = df_inst(d, &al->u.path), *id = df_inst(d, &dn->u.path);
    if (df_bindable(c, rd) && !ra) {
        df_asg1(c, rd, ia[0] ? ia : "/");
        df_asg1(c, rd, cp_arena_printf(d->a, "%s/" DF_FRESH, ia));
    } else if (df_bindable(c, rd) && df_bindable(c, ra)) {
        const char *va = df_fresh_dir(d, ra);
        df_asg2(c, ra, va, rd, cp_arena_printf(d->a, "%s%s", va, ia));
        df_asg2(c, ra, va, rd, cp_arena_printf(d->a, "%s%s/" DF_FRESH, va, ia));
    }
    if (df_bindable(c, ra) && !rd) {
        df_each_prefix(c, id, ra, NULL, NULL);
    } else if (df_bindable(c, ra) && df_bindable(c, rd)) {
        const char *vd = df_fresh_dir(d, rd);
        df_each_prefix(c, cp_arena_printf(d->a, "%s%s", vd, id), ra, rd, vd);
    }
}

/* The params a binding may give a value: unbound on a side that declares
 * them; those only one side declares are always bound. */
static void df_bind_params(struct df_bctx *c)
{
    struct df *d = c->d;
    size_t n = d->pol[0]->nparams + d->pol[1]->nparams;
    c->bindable = cp_arena_alloc(d->a, (n + 1) * sizeof *c->bindable);
    c->one = cp_arena_alloc(d->a, (n + 1) * sizeof *c->one);
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->nparams; i++) {
            const struct cp_param *pm = &d->pol[k]->params[i];
            if (pm->value || df_bindable(c, pm->name))
                continue;
            c->bindable[c->nbindable++] = pm->name;
            bool other = false;
            for (size_t j = 0; j < d->pol[!k]->nparams; j++)
                other |= strcmp(d->pol[!k]->params[j].name, pm->name) == 0;
            if (!other)
                c->one[c->none++] = pm->name;
        }
}

static bool df_is_deny(const struct df *d, enum cp_rule_kind k)
{
    bool xl = d->pol[0]->has_exec || d->pol[1]->has_exec;
    return k == CP_R_DENY_WRITE ||
           (xl && (k == CP_R_DENY_EXEC || k == CP_R_DENY_READ));
}

/* Is rule R of side K among the deciding rules of a region found? */
static bool df_reported(const struct df *d, int k, const struct cp_rule *r)
{
    for (size_t i = 0; i < d->items.len; i++) {
        const struct cp_diff_item *it = d->items.items[i];
        const struct cp_diff_side *s = k ? &it->new : &it->old;
        for (size_t j = 0; j < s->nrules; j++)
            if (s->rules[j]->id == r->id)
                return true;
    }
    return false;
}

/* The searches of one binding (write and exec: the accesses whose verdict
 * an allow of another root can newly decide).  The changed flags of the
 * unbound policies stay: a binding makes no two different rules equal
 * that were not (it may make more equal: then a rule is searched around
 * that need not be, which costs time only). */
static void df_pass(struct df *d, const struct df_asg *g, bool all)
{
    const struct cp_policy *o0 = d->pol[0], *o1 = d->pol[1];
    struct cp_arena *w0 = d->w;
    d->w = cp_arena_new();
    d->pol[0] = df_bind(d, o0, g);
    d->pol[1] = df_bind(d, o1, g);
    d->bn = (const char **)g->n;
    d->bv = (const char **)g->v;
    d->nb = g->k;
    if (all)
        df_paths(d, CP_ACC_READ);
    df_paths(d, CP_ACC_WRITE);
    if (all || o0->has_exec || o1->has_exec)
        df_paths(d, CP_ACC_EXEC);
    if (all)
        df_paths(d, CP_ACC_SOCKET);
    cp_arena_free(d->w);
    d->w = w0;
    d->pol[0] = o0;
    d->pol[1] = o1;
    d->nb = 0;
    d->bn = d->bv = NULL;
}

#define DF_MAX_PASSES 512

/* The bindings of a changed deny DN of side K that no region found shows:
 * each class that puts it inside an allow of another root, until one
 * shows it. */
static void df_bind_deny(struct df_bctx *c, int k, const struct cp_rule *dn,
                         size_t *passes)
{
    struct df *d = c->d;
    c->asg = (struct cp_vec){0};
    c->keys = (struct cp_strset){0};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < d->pol[s]->nrules; i++) {
            const struct cp_rule *r = d->pol[s]->rules[i];
            if (r->kind == CP_R_WRITE || r->kind == CP_R_EXEC)
                df_pair(c, dn, r);
        }
    d->want = dn;
    d->want_side = k;
    d->found = false;
    for (size_t i = 0; i < c->asg.len && !d->found; i++) {
        if (++*passes > DF_MAX_PASSES) {
            if (!d->out->incomplete)
                d->out->incomplete = "more binding classes than the search "
                                     "tries";
            break;
        }
        df_pass(d, c->asg.items[i], false);
    }
    d->want = NULL;
}

/* Binding classes (spec/semantics.md, "Diff"): the params a side declares
 * alone are bound (to a fresh directory) and the whole comparison runs
 * under that binding; then every changed deny that no region shows yet is
 * searched under the bindings that put it inside an allow of another root
 * (where only a binding makes the two verdicts differ). */
static void df_bindings(struct df *d)
{
    struct df_bctx c = {.d = d};
    df_bind_params(&c);
    if (!c.nbindable)
        return;
    if (c.none) {
        df_asg_add(&c, (struct df_asg){.k = 0});
        df_pass(d, c.asg.items[0], true);
    }
    size_t passes = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < d->pol[k]->nrules; i++) {
            const struct cp_rule *r = d->pol[k]->rules[i];
            if (d->chg[k][i] && df_is_deny(d, r->kind) && !df_reported(d, k, r))
                df_bind_deny(&c, k, r, &passes);
        }
}

/* ---- the policies' own files --------------------------------------------- */

static bool df_is_source_rule(const struct cp_rule *r)
{
    return r->origin == CP_ORIGIN_CONFINED && r->kind == CP_R_DENY_WRITE &&
           r->why && strcmp(r->why, "policy source file") == 0;
}

static size_t df_count_source_rules(const struct cp_policy *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nrules; i++)
        n += df_is_source_rule(p->rules[i]);
    return n;
}

/* The two policies are two revisions of one policy, and the implicit rules
 * that protect a policy's own files protect the files the policy in force
 * is made of: when both sides have them, OLD is compared with NEW's (an
 * include inlined, a file renamed or compared from another directory change
 * nothing, nor does OLD read from standard input, which has no file);
 * when NEW has none (it is cooperative), OLD keeps its own and their loss
 * is reported (spec/semantics.md, "Diff").  A copy of OLD, its rules
 * renumbered. */
static const struct cp_policy *df_relocate(struct df *d)
{
    const struct cp_policy *o = d->pol[0], *n = d->pol[1];
    size_t so = df_count_source_rules(o), sn = df_count_source_rules(n);
    if (!sn || o->profile == CP_PROFILE_COOPERATIVE)
        return o;
    struct cp_policy *q = cp_arena_alloc(d->a, sizeof *q);
    *q = *o;
    q->rules = cp_arena_alloc(d->a,
                              (o->nrules - so + sn + 1) * sizeof *q->rules);
    q->nrules = 0;
    bool moved = false;
    for (size_t i = 0; i <= o->nrules; i++) {
        const struct cp_rule *r = i < o->nrules ? o->rules[i] : NULL;
        bool src = r && df_is_source_rule(r);
        if (!moved && (src || !r)) { /* NEW's, where OLD's were (or last) */
            for (size_t j = 0; j < n->nrules; j++)
                if (df_is_source_rule(n->rules[j]))
                    q->rules[q->nrules++] = (struct cp_rule *)n->rules[j];
            moved = true;
        }
        if (r && !src)
            q->rules[q->nrules++] = (struct cp_rule *)r;
    }
    for (size_t i = 0; i < q->nrules; i++) {
        if (i < o->nrules && q->rules[i] == o->rules[i] && q->rules[i]->id == i)
            continue; /* before the first moved rule: ids hold */
        struct cp_rule *c = cp_arena_alloc(d->a, sizeof *c);
        *c = *q->rules[i];
        c->id = (unsigned)i;
        q->rules[i] = c;
    }
    return q;
}

/* ---- entry ------------------------------------------------------------- */

static void df_collect(struct df *d)
{
    struct cp_diff *o = d->out;
    o->items = cp_arena_alloc(d->a, (d->items.len + 1) * sizeof *o->items);
    for (int widened = 1; widened >= 0; widened--)
        for (int acc = CP_ACC_READ; acc <= CP_ACC_SOCKET; acc++)
            for (size_t i = 0; i < d->items.len; i++) {
                const struct cp_diff_item *it = d->items.items[i];
                if (it->widened != (bool)widened || (int)it->access != acc)
                    continue;
                o->items[o->n++] = *it;
                if (widened)
                    o->nwidened++;
                else
                    o->nnarrowed++;
            }
}

void cp_diff_policies(const struct cp_policy *old, const struct cp_policy *new,
                      const struct cp_diff_opts *o, struct cp_arena *a,
                      struct cp_diff *out)
{
    memset(out, 0, sizeof *out);
    struct df d = {.pol = {old, new}, .orig = {old, new}, .a = a, .out = out};
    d.budget = o && o->budget ? o->budget : DF_BUDGET;
    d.w = cp_arena_new();
    d.pol[0] = d.orig[0] = df_relocate(&d);
    df_changes(&d);
    df_paths(&d, CP_ACC_READ);
    df_paths(&d, CP_ACC_WRITE);
    df_paths(&d, CP_ACC_EXEC);
    df_paths(&d, CP_ACC_SOCKET);
    df_sockets(&d);
    df_net(&d);
    df_gate(&d);
    df_content(&d);
    if (!o || o->bindings)
        df_bindings(&d);
    cp_arena_free(d.w);
    df_collect(&d);
}
