/* SPDX-License-Identifier: MIT */
/* Exact containment and overlap of path patterns (spec/patterns.md,
 * "Relations").
 *
 * A pattern denotes a set of canonical paths, closed downwards.  Written as
 * byte strings ("/s1/s2/.../sk", the root itself being the empty string),
 * each pattern is a regular language; we build a small NFA per pattern
 * (one state per pattern byte, roughly) and decide
 *   - inclusion L(inner) ⊆ L(outer) by exploring the product of inner's NFA,
 *     the subset construction of outer's NFA and a 6-state automaton that
 *     accepts exactly the canonical paths, looking for a canonical path
 *     accepted by inner and not by outer;
 *   - overlap by emptiness of the product of both NFAs and the canonical
 *     path automaton.
 * The alphabet is reduced to byte classes: '/', '.', every byte a pattern
 * names, and one representative of all other bytes.  Literal cases (the
 * common ones) are decided first without automata. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "match.h"
#include "match_int.h"

/* ---- one segment ------------------------------------------------------ */

/* Does one segment glob (CP_SEG_GLOB syntax: '*', '?', '\\' escapes) match
 * the bytes s[0..n)? */
static bool cp_match_glob_seg(const char *pat, size_t plen, const char *s,
                              size_t n)
{
    /* Linear two-pointer glob matcher with backtracking to the last '*'. */
    size_t p = 0, i = 0, star_p = (size_t)-1, star_i = 0;
    while (i < n) {
        if (p < plen && pat[p] == '*') {
            star_p = ++p;
            star_i = i;
            continue;
        }
        if (p < plen) {
            if (pat[p] == '?') {
                p++;
                i++;
                continue;
            }
            char c = pat[p];
            size_t step = 1;
            if (c == '\\' && p + 1 < plen) {
                c = pat[p + 1];
                step = 2;
            }
            if (c == s[i]) {
                p += step;
                i++;
                continue;
            }
        }
        if (star_p == (size_t)-1)
            return false;
        p = star_p;
        i = ++star_i;
    }
    while (p < plen && pat[p] == '*')
        p++;
    return p == plen;
}

static bool seg_matches(const struct cp_seg *g, const char *s, size_t n)
{
    switch (g->kind) {
    case CP_SEG_LIT:
        return g->len == n && memcmp(g->s, s, n) == 0;
    case CP_SEG_GLOB:
        return cp_match_glob_seg(g->s, g->len, s, n);
    case CP_SEG_ANY:
        return true;
    }
    return false;
}

/* Does a glob segment hold an unescaped '*' or '?'? */
static bool glob_has_wild(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '*' || s[i] == '?')
            return true;
    }
    return false;
}

/* Is the (unescaped, for globs) literal value a valid canonical segment? */
static bool seg_value_valid(const char *s, size_t n, bool escaped)
{
    size_t len = 0, dots = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (escaped && c == '\\' && i + 1 < n)
            c = s[++i];
        if (c == '/' || c == '\0')
            return false;
        if (c == '.')
            dots++;
        len++;
    }
    return len > 0 && !(dots == len && len <= 2);
}

/* Some canonical segment matches the item.  A glob with a wildcard always
 * matches one (replace every '*' and '?' by 'a': never "", "." or ".."),
 * unless a literal byte of it is '/' or NUL. */
static bool seg_sat(const struct cp_seg *g)
{
    switch (g->kind) {
    case CP_SEG_ANY:
        return true;
    case CP_SEG_LIT:
        return seg_value_valid(g->s, g->len, false);
    case CP_SEG_GLOB:
        if (!glob_has_wild(g->s, g->len))
            return seg_value_valid(g->s, g->len, true);
        for (size_t i = 0; i < g->len; i++) {
            if (g->s[i] == '\\' && i + 1 < g->len)
                i++;
            if (g->s[i] == '/' || g->s[i] == '\0')
                return false;
        }
        return true;
    }
    return false;
}

/* Properties of a segment list used to pick a method. */
struct seginfo {
    bool sat;      /* nonempty language */
    bool literal;  /* every item CP_SEG_LIT */
    bool plain;    /* no wildcard-free CP_SEG_GLOB (every GLOB matches >= 2) */
    size_t single; /* leading items that match exactly one segment */
};

static void seg_info(const struct cp_seg *s, size_t n, struct seginfo *in)
{
    in->sat = true;
    in->literal = true;
    in->plain = true;
    in->single = 0;
    bool lead = true;
    for (size_t i = 0; i < n; i++) {
        if (!seg_sat(&s[i]))
            in->sat = false;
        bool one = s[i].kind == CP_SEG_LIT;
        if (s[i].kind == CP_SEG_GLOB && !glob_has_wild(s[i].s, s[i].len)) {
            in->plain = false;
            one = true;
        }
        if (s[i].kind != CP_SEG_LIT)
            in->literal = false;
        if (lead && one)
            in->single++;
        else
            lead = false;
    }
}

/* ---- matching a concrete segment list ------------------------------- */

/* A source of concrete segments: a path string or a literal item list. */
struct segsrc {
    const char *path;
    size_t len, pos;
    bool is_lits; /* else a path string */
    const struct cp_seg *lits;
    size_t nlits, idx;
};

static bool segsrc_next(struct segsrc *src, const char **s, size_t *n)
{
    if (src->is_lits) {
        if (src->idx >= src->nlits)
            return false;
        *s = src->lits[src->idx].s;
        *n = src->lits[src->idx].len;
        src->idx++;
        return true;
    }
    while (src->pos < src->len && src->path[src->pos] == '/')
        src->pos++;
    if (src->pos >= src->len)
        return false;
    size_t b = src->pos;
    while (src->pos < src->len && src->path[src->pos] != '/')
        src->pos++;
    *s = src->path + b;
    *n = src->pos - b;
    return true;
}

#define BIT_GET(w, k) (((w)[(k) / 64] >> ((k) % 64)) & 1)
#define BIT_SET(w, k) ((w)[(k) / 64] |= (uint64_t)1 << ((k) % 64))

/* Runs the pattern over the concrete segments.  *hit: some prefix of them
 * (possibly all, possibly none) matches the whole pattern.  *alive: after
 * all of them, some pattern position is still reachable (so some extension
 * would match when every item is satisfiable). */
static void match_run(const struct cp_seg *segs, size_t nsegs,
                      struct segsrc *src, bool *hit, bool *alive)
{
    uint64_t small[4];
    size_t words = (nsegs + 1 + 63) / 64;
    uint64_t *cur = words <= 2 ? small : cp_xcalloc(2 * words, sizeof *cur);
    uint64_t *nxt = cur + words;

    *hit = false;
    *alive = true;
    memset(cur, 0, words * sizeof *cur);
    cur[0] = 1;
    for (;;) {
        for (size_t k = 0; k < nsegs; k++) /* '**' matches zero segments */
            if (BIT_GET(cur, k) && segs[k].kind == CP_SEG_ANY)
                BIT_SET(cur, k + 1);
        if (BIT_GET(cur, nsegs)) {
            *hit = true;
            break;
        }
        const char *s;
        size_t n;
        if (!segsrc_next(src, &s, &n))
            break;
        bool any = false;
        memset(nxt, 0, words * sizeof *nxt);
        for (size_t k = 0; k < nsegs; k++) {
            if (!BIT_GET(cur, k))
                continue;
            if (segs[k].kind == CP_SEG_ANY) {
                BIT_SET(nxt, k);
                any = true;
            } else if (seg_matches(&segs[k], s, n)) {
                BIT_SET(nxt, k + 1);
                any = true;
            }
        }
        if (!any) {
            *alive = false;
            break;
        }
        memcpy(cur, nxt, words * sizeof *cur);
    }
    if (cur != small)
        free(cur);
}

bool cp_match_segs(const struct cp_seg *segs, size_t nsegs, const char *path,
                   size_t len)
{
    struct segsrc src = {.path = path, .len = len};
    bool hit, alive;
    match_run(segs, nsegs, &src, &hit, &alive);
    return hit;
}

/* ---- byte-level automata ---------------------------------------------- */

enum { L_SLASH, L_BYTE, L_NONSLASH, L_ALL };

struct nst {
    uint8_t lab; /* which bytes the state consumes */
    uint8_t c;   /* L_BYTE: the byte */
    uint8_t acc; /* accepting */
    int32_t to;  /* target after consuming */
    int32_t eps; /* epsilon target (always > own index), or -1 */
};

struct nfa {
    struct nst *st;
    size_t n, cap;
    bool words; /* a gate word glob: no separator, no path validity, and
                   the last state is not a universal tail */
    struct nst local[96];
};

static void nfa_init(struct nfa *f)
{
    f->st = f->local;
    f->words = false;
    f->n = 0;
    f->cap = sizeof f->local / sizeof f->local[0];
}

static void nfa_fini(struct nfa *f)
{
    if (f->st != f->local)
        free(f->st);
}

static void nfa_add(struct nfa *f, uint8_t lab, uint8_t c, int32_t to,
                    int32_t eps)
{
    if (f->n == f->cap) {
        size_t cap = f->cap * 2;
        struct nst *st = cp_xmalloc(cap * sizeof *st);
        memcpy(st, f->st, f->n * sizeof *st);
        if (f->st != f->local)
            free(f->st);
        f->st = st;
        f->cap = cap;
    }
    struct nst *s = &f->st[f->n];
    s->lab = lab;
    s->c = c;
    s->acc = 0;
    s->to = to;
    s->eps = eps;
    f->n++;
}

static void nfa_item(struct nfa *f, const struct cp_seg *g)
{
    int32_t p = (int32_t)f->n;
    if (g->kind == CP_SEG_ANY) {
        nfa_add(f, L_SLASH, 0, p + 1, p + 2);
        nfa_add(f, L_ALL, 0, p + 1, p + 2);
        return;
    }
    nfa_add(f, L_SLASH, 0, p + 1, -1);
    bool glob = g->kind == CP_SEG_GLOB;
    for (size_t i = 0; i < g->len; i++) {
        int32_t j = (int32_t)f->n;
        char c = g->s[i];
        if (glob && c == '*') {
            while (i + 1 < g->len && g->s[i + 1] == '*')
                i++;
            nfa_add(f, L_NONSLASH, 0, j, j + 1);
            continue;
        }
        if (glob && c == '?') {
            nfa_add(f, L_NONSLASH, 0, j + 1, -1);
            continue;
        }
        if (glob && c == '\\' && i + 1 < g->len)
            c = g->s[++i];
        nfa_add(f, L_BYTE, (uint8_t)c, j + 1, -1);
    }
}

/* NFA of `pre` items then `segs`, closed downwards: the final position
 * accepts and leads on '/' to a universal tail state (the last state). */
static void nfa_build(struct nfa *f, const struct cp_seg *pre, size_t npre,
                      const struct cp_seg *segs, size_t nsegs)
{
    nfa_init(f);
    for (size_t i = 0; i < npre; i++)
        nfa_item(f, &pre[i]);
    for (size_t i = 0; i < nsegs; i++)
        nfa_item(f, &segs[i]);
    int32_t p = (int32_t)f->n;
    nfa_add(f, L_SLASH, 0, p + 1, -1);
    f->st[p].acc = 1;
    nfa_add(f, L_ALL, 0, p + 1, -1);
    f->st[p + 1].acc = 1;
}

static bool lab_accepts(const struct nst *s, uint8_t c)
{
    switch (s->lab) {
    case L_SLASH:
        return c == '/';
    case L_BYTE:
        return c == s->c;
    case L_NONSLASH:
        return c != '/';
    default:
        return true;
    }
}

/* Byte classes of the alphabet: '/', '.', every byte named by a state, and
 * one byte named by none (if any is left). */
struct alpha {
    uint8_t c[258];
    size_t n;
};

static void alpha_build(struct alpha *al, const struct nfa *x,
                        const struct nfa *y)
{
    uint8_t seen[256] = {0};
    al->n = 0;
    seen[0] = 1; /* NUL never occurs in a path */
    seen['/'] = 1;
    seen['.'] = 1;
    al->c[al->n++] = '/';
    al->c[al->n++] = '.';
    const struct nfa *fs[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        if (!fs[k])
            continue;
        for (size_t i = 0; i < fs[k]->n; i++) {
            const struct nst *s = &fs[k]->st[i];
            if (s->lab == L_BYTE && !seen[s->c]) {
                seen[s->c] = 1;
                al->c[al->n++] = s->c;
            }
        }
    }
    for (int b = 'a'; b < 256 + 'a'; b++) {
        int c = b & 0xff;
        if (!seen[c]) {
            al->c[al->n++] = (uint8_t)c;
            break;
        }
    }
}

/* The canonical-path automaton: strings ("/" segment)* where a segment is
 * nonempty and neither "." nor "..". */
enum { V_B, V_E, V_D1, V_D2, V_OK, V_DEAD };

static int vstep(int v, uint8_t c)
{
    if (c == '/')
        return (v == V_B || v == V_OK) ? V_E : V_DEAD;
    switch (v) {
    case V_E:
        return c == '.' ? V_D1 : V_OK;
    case V_D1:
        return c == '.' ? V_D2 : V_OK;
    case V_D2:
    case V_OK:
        return V_OK;
    default:
        return V_DEAD;
    }
}

static bool vacc(int v)
{
    return v == V_B || v == V_OK;
}

/* Word globs are not paths: every string is acceptable. */
static int vstep_for(const struct nfa *f, int v, uint8_t c)
{
    return f->words ? V_OK : vstep(v, c);
}

/* ---- subsets ---------------------------------------------------------- */

static void set_close(const struct nfa *f, uint64_t *s)
{
    /* Epsilon edges point forward, so one ascending pass closes. */
    for (size_t j = 0; j < f->n; j++)
        if (BIT_GET(s, j) && f->st[j].eps >= 0)
            BIT_SET(s, (size_t)f->st[j].eps);
}

static bool set_step(const struct nfa *f, const uint64_t *s, uint8_t c,
                     uint64_t *out, size_t words)
{
    bool any = false;
    memset(out, 0, words * sizeof *out);
    for (size_t w = 0; w < words; w++) {
        uint64_t bits = s[w];
        while (bits) {
            size_t j = w * 64 + (size_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            if (lab_accepts(&f->st[j], c)) {
                BIT_SET(out, (size_t)f->st[j].to);
                any = true;
            }
        }
    }
    if (any)
        set_close(f, out);
    return any;
}

static bool set_has_acc(const struct nfa *f, const uint64_t *s)
{
    for (size_t j = 0; j < f->n; j++)
        if (BIT_GET(s, j) && f->st[j].acc)
            return true;
    return false;
}

/* ---- visited sets ----------------------------------------------------- */

/* Entries: a small header (two ints) then `words` set words, stored in one
 * growing array; an open-addressing table of entry indexes. */
struct visit {
    size_t words, stride; /* stride in uint64 units: 1 + words */
    uint64_t *ent;
    size_t nent, capent;
    uint32_t *tab; /* entry index + 1, 0 empty */
    size_t tabcap;
    uint64_t ent_local[64 * 2];
    uint32_t tab_local[128];
};

static void visit_init(struct visit *v, size_t words)
{
    v->words = words;
    v->stride = 1 + words;
    v->ent = v->ent_local;
    v->capent = sizeof v->ent_local / sizeof v->ent_local[0] / v->stride;
    v->nent = 0;
    v->tab = v->tab_local;
    v->tabcap = sizeof v->tab_local / sizeof v->tab_local[0];
    memset(v->tab, 0, sizeof v->tab_local);
}

static void visit_fini(struct visit *v)
{
    if (v->ent != v->ent_local)
        free(v->ent);
    if (v->tab != v->tab_local)
        free(v->tab);
}

static uint64_t visit_hash(const uint64_t *e, size_t stride)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < stride; i++) {
        h ^= e[i];
        h *= 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    return h;
}

static const uint64_t *visit_at(const struct visit *v, size_t i)
{
    return v->ent + i * v->stride;
}

static void visit_rehash(struct visit *v)
{
    size_t cap = v->tabcap * 2;
    uint32_t *tab = cp_xcalloc(cap, sizeof *tab);
    for (size_t i = 0; i < v->nent; i++) {
        size_t h = (size_t)visit_hash(visit_at(v, i), v->stride) & (cap - 1);
        while (tab[h])
            h = (h + 1) & (cap - 1);
        tab[h] = (uint32_t)(i + 1);
    }
    if (v->tab != v->tab_local)
        free(v->tab);
    v->tab = tab;
    v->tabcap = cap;
}

/* Adds the entry (key word + set) unless present; returns true if new. */
static bool visit_add(struct visit *v, uint64_t key, const uint64_t *set)
{
    uint64_t tmp[1 + 64];
    uint64_t *e = v->stride <= 65 ? tmp : cp_xmalloc(v->stride * sizeof *e);
    e[0] = key;
    if (v->words)
        memcpy(e + 1, set, v->words * sizeof *e);
    size_t h = (size_t)visit_hash(e, v->stride) & (v->tabcap - 1);
    bool fresh = true;
    while (v->tab[h]) {
        if (memcmp(visit_at(v, v->tab[h] - 1), e, v->stride * sizeof *e) == 0) {
            fresh = false;
            break;
        }
        h = (h + 1) & (v->tabcap - 1);
    }
    if (fresh) {
        if (v->nent == v->capent) {
            size_t cap = v->capent ? v->capent * 2 : 16;
            uint64_t *ne = cp_xmalloc(cap * v->stride * sizeof *ne);
            memcpy(ne, v->ent, v->nent * v->stride * sizeof *ne);
            if (v->ent != v->ent_local)
                free(v->ent);
            v->ent = ne;
            v->capent = cap;
        }
        memcpy(v->ent + v->nent * v->stride, e, v->stride * sizeof *e);
        v->nent++;
        v->tab[h] = (uint32_t)v->nent;
        if (v->nent * 2 > v->tabcap)
            visit_rehash(v);
    }
    if (e != tmp)
        free(e);
    return fresh;
}

/* ---- the small engine: outer automaton of at most 64 states ---------- */

/* With at most 64 states a subset is one word, and because every
 * transition goes to the same state or the next one and every epsilon edge
 * one or two states ahead, a step on a byte class is two shifts and a
 * closure a few more.  This is the engine used for all but very long
 * patterns. */
struct small {
    size_t ncls;
    uint8_t cls[258];
    uint64_t fwd[258], self[258]; /* per class: states moving on / staying */
    uint64_t e1, e2;              /* epsilon edges of length 1 and 2 */
    uint64_t acc;
    uint64_t tail; /* universal state (path automata), or 0 */
};

static bool small_init(struct small *sm, const struct nfa *x,
                       const struct nfa *y)
{
    if (y->n > 64)
        return false;
    struct alpha al;
    alpha_build(&al, x, y);
    sm->ncls = al.n;
    memcpy(sm->cls, al.c, al.n);
    sm->e1 = sm->e2 = sm->acc = 0;
    for (size_t k = 0; k < al.n; k++)
        sm->fwd[k] = sm->self[k] = 0;
    for (size_t j = 0; j < y->n; j++) {
        const struct nst *st = &y->st[j];
        uint64_t bit = (uint64_t)1 << j;
        if (st->acc)
            sm->acc |= bit;
        if (st->eps == (int32_t)j + 1)
            sm->e1 |= bit;
        else if (st->eps == (int32_t)j + 2)
            sm->e2 |= bit;
        else if (st->eps >= 0)
            return false;
        if (st->to != (int32_t)j && st->to != (int32_t)j + 1)
            return false;
        for (size_t k = 0; k < al.n; k++)
            if (lab_accepts(st, al.c[k])) {
                if (st->to == (int32_t)j)
                    sm->self[k] |= bit;
                else
                    sm->fwd[k] |= bit;
            }
    }
    sm->tail = y->words ? 0 : (uint64_t)1 << (y->n - 1);
    return true;
}

static uint64_t small_close(const struct small *sm, uint64_t s)
{
    for (;;) {
        uint64_t t = s | (s & sm->e1) << 1 | (s & sm->e2) << 2;
        if (t == s)
            return s;
        s = t;
    }
}

static uint64_t small_step(const struct small *sm, uint64_t s, size_t k)
{
    uint64_t t = (s & sm->fwd[k]) << 1 | (s & sm->self[k]);
    return t ? small_close(sm, t) : 0;
}

/* Visited (x, v, set) triples: open addressing on a growing table. */
struct svisit {
    uint64_t *set;
    uint32_t *xv;
    size_t n, cap;
    uint32_t *tab; /* index + 1 */
    size_t tabcap;
    uint64_t set_local[128];
    uint32_t xv_local[128];
    uint32_t tab_local[256];
};

static void svisit_init(struct svisit *v)
{
    v->set = v->set_local;
    v->xv = v->xv_local;
    v->n = 0;
    v->cap = 128;
    v->tab = v->tab_local;
    v->tabcap = 256;
    memset(v->tab_local, 0, sizeof v->tab_local);
}

static void svisit_fini(struct svisit *v)
{
    if (v->set != v->set_local) {
        free(v->set);
        free(v->xv);
    }
    if (v->tab != v->tab_local)
        free(v->tab);
}

static size_t svisit_hash(uint64_t set, uint32_t xv, size_t mask)
{
    uint64_t h = (set ^ ((uint64_t)xv << 40 | xv)) * 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 29) & mask;
}

static void svisit_add(struct svisit *v, uint32_t xv, uint64_t set)
{
    size_t mask = v->tabcap - 1, h = svisit_hash(set, xv, mask);
    while (v->tab[h]) {
        size_t i = v->tab[h] - 1;
        if (v->set[i] == set && v->xv[i] == xv)
            return;
        h = (h + 1) & mask;
    }
    if (v->n == v->cap) {
        size_t cap = v->cap * 2;
        uint64_t *ns = cp_xmalloc(cap * sizeof *ns);
        uint32_t *nx = cp_xmalloc(cap * sizeof *nx);
        memcpy(ns, v->set, v->n * sizeof *ns);
        memcpy(nx, v->xv, v->n * sizeof *nx);
        if (v->set != v->set_local) {
            free(v->set);
            free(v->xv);
        }
        v->set = ns;
        v->xv = nx;
        v->cap = cap;
    }
    v->set[v->n] = set;
    v->xv[v->n] = xv;
    v->n++;
    v->tab[h] = (uint32_t)v->n;
    if (v->n * 2 > v->tabcap) {
        size_t cap = v->tabcap * 2;
        uint32_t *tab = cp_xcalloc(cap, sizeof *tab);
        for (size_t i = 0; i < v->n; i++) {
            size_t g = svisit_hash(v->set[i], v->xv[i], cap - 1);
            while (tab[g])
                g = (g + 1) & (cap - 1);
            tab[g] = (uint32_t)(i + 1);
        }
        if (v->tab != v->tab_local)
            free(v->tab);
        v->tab = tab;
        v->tabcap = cap;
    }
}

/* Product states one question may explore.  Subset construction is
 * exponential in the worst case (an outer pattern "**, a, *, *, *, ...");
 * past this budget the answer is "unknown" (-1), reported as CP_REL_MAY
 * with no param.  Realistic patterns need a few dozen states. */
#define MATCH_BUDGET 250000

/* Explores x (state by state) against y (as subsets, from `ystart`) over
 * canonical paths: is there a path x accepts and y does not?  1 yes, 0 no,
 * -1 over budget. */
static int small_seek(const struct small *sm, const struct nfa *x,
                      uint64_t ystart, size_t *budget)
{
    struct svisit vis;
    svisit_init(&vis);
    int found = 0;
    svisit_add(&vis, (uint32_t)V_B, small_close(sm, ystart));
    for (size_t q = 0; q < vis.n; q++) {
        if (*budget == 0) {
            found = -1;
            break;
        }
        --*budget;
        uint64_t sy = vis.set[q];
        size_t xs = vis.xv[q] >> 3;
        int v = (int)(vis.xv[q] & 7);
        if (sy & sm->tail)
            continue; /* y accepts every continuation */
        const struct nst *st = &x->st[xs];
        if (st->acc && vacc(v) && !(sy & sm->acc)) {
            found = 1;
            break;
        }
        if (st->eps >= 0)
            svisit_add(&vis, (uint32_t)st->eps << 3 | (uint32_t)v, sy);
        for (size_t k = 0; k < sm->ncls; k++) {
            uint8_t c = sm->cls[k];
            if (!lab_accepts(st, c))
                continue;
            int nv = vstep_for(x, v, c);
            if (nv == V_DEAD)
                continue;
            svisit_add(&vis, (uint32_t)st->to << 3 | (uint32_t)nv,
                       small_step(sm, sy, k));
        }
    }
    svisit_fini(&vis);
    return found;
}

/* Overlap needs no subsets: for each state of x and of the path automaton,
 * the union of the states of y reachable together with it.  Steps
 * distribute over unions, so a worklist fixpoint on these unions decides
 * emptiness of the product in polynomial time.  1 met, 0 not, -1 over
 * budget. */
static int small_meet(const struct small *sm, const struct nfa *x,
                      uint64_t ystart, size_t *budget)
{
    size_t nk = x->n * 6;
    uint64_t rloc[64 * 6];
    uint32_t qloc[64 * 6];
    bool inloc[64 * 6];
    uint64_t *r = nk <= 64 * 6 ? rloc : cp_xmalloc(nk * sizeof *r);
    uint32_t *queue = nk <= 64 * 6 ? qloc : cp_xmalloc(nk * sizeof *queue);
    bool *inq = nk <= 64 * 6 ? inloc : cp_xmalloc(nk * sizeof *inq);
    memset(r, 0, nk * sizeof *r);
    memset(inq, 0, nk * sizeof *inq);
    size_t qh = 0, qn = 0; /* circular queue of keys x*6+v */
    int met = 0;

#define MERGE(key, set)                                                        \
    do {                                                                       \
        uint64_t s_ = (set);                                                   \
        size_t k_ = (key);                                                     \
        if (s_ & ~r[k_]) {                                                     \
            r[k_] |= s_;                                                       \
            if (!inq[k_]) {                                                    \
                inq[k_] = true;                                                \
                queue[(qh + qn++) % nk] = (uint32_t)k_;                        \
            }                                                                  \
        }                                                                      \
    } while (0)

    MERGE(0 * 6 + V_B, small_close(sm, ystart));
    while (qn > 0) {
        if (*budget == 0) {
            met = -1;
            break;
        }
        --*budget;
        size_t key = queue[qh];
        qh = (qh + 1) % nk;
        qn--;
        inq[key] = false;
        size_t xs = key / 6;
        int v = (int)(key % 6);
        uint64_t sy = r[key];
        const struct nst *st = &x->st[xs];
        if (st->acc && vacc(v) && (sy & sm->acc)) {
            met = 1;
            break;
        }
        if (st->eps >= 0)
            MERGE((size_t)st->eps * 6 + (size_t)v, sy);
        for (size_t k = 0; k < sm->ncls; k++) {
            uint8_t c = sm->cls[k];
            if (!lab_accepts(st, c))
                continue;
            int nv = vstep_for(x, v, c);
            if (nv == V_DEAD)
                continue;
            uint64_t ns = small_step(sm, sy, k);
            if (ns)
                MERGE((size_t)st->to * 6 + (size_t)nv, ns);
        }
    }
#undef MERGE
    if (r != rloc)
        free(r);
    if (queue != qloc)
        free(queue);
    if (inq != inloc)
        free(inq);
    return met;
}

/* ---- inclusion -------------------------------------------------------- */

/* Is every canonical path accepted by x also accepted by y?  1 yes, 0 no,
 * -1 over budget. */
static int nfa_included(const struct nfa *x, const struct nfa *y,
                        size_t *budget)
{
    struct small sm;
    if (small_init(&sm, x, y)) {
        int r = small_seek(&sm, x, 1, budget);
        return r < 0 ? -1 : !r;
    }
    struct alpha al;
    alpha_build(&al, x, y);
    size_t words = (y->n + 63) / 64;
    size_t tail = y->words ? SIZE_MAX : y->n - 1;
    struct visit vis;
    visit_init(&vis, words);
    uint64_t local[2 * 8];
    uint64_t *sy = words <= 8 ? local : cp_xcalloc(2 * words, sizeof *sy);
    uint64_t *ny = sy + words;
    int ok = 1;

    memset(sy, 0, words * sizeof *sy);
    BIT_SET(sy, 0);
    set_close(y, sy);
    visit_add(&vis, (uint64_t)0 << 3 | V_B, sy);
    for (size_t q = 0; q < vis.nent && ok == 1; q++) {
        if (*budget == 0) {
            ok = -1;
            break;
        }
        --*budget;
        const uint64_t *e = visit_at(&vis, q);
        size_t xs = (size_t)(e[0] >> 3);
        int v = (int)(e[0] & 7);
        memcpy(sy, e + 1, words * sizeof *sy);
        if (tail != SIZE_MAX && BIT_GET(sy, tail))
            continue; /* y accepts every continuation */
        const struct nst *s = &x->st[xs];
        if (s->acc && vacc(v) && !set_has_acc(y, sy)) {
            ok = 0;
            break;
        }
        if (s->eps >= 0)
            visit_add(&vis, (uint64_t)s->eps << 3 | (uint64_t)v, sy);
        for (size_t k = 0; k < al.n; k++) {
            uint8_t c = al.c[k];
            if (!lab_accepts(s, c))
                continue;
            int nv = vstep_for(x, v, c);
            if (nv == V_DEAD)
                continue;
            set_step(y, sy, c, ny, words);
            visit_add(&vis, (uint64_t)s->to << 3 | (uint64_t)nv, ny);
        }
    }
    if (sy != local)
        free(sy);
    visit_fini(&vis);
    return ok;
}

/* ---- overlap ---------------------------------------------------------- */

/* Is some canonical path accepted by x (from its start) and by y from any
 * state of `ystart` (NULL: y's start)? */
static int nfa_meet(const struct nfa *x, const struct nfa *y,
                    const uint64_t *ystart, size_t *budget)
{
    struct small sm;
    if (small_init(&sm, x, y))
        return small_meet(&sm, x, ystart ? ystart[0] : 1, budget);
    struct alpha al;
    alpha_build(&al, x, y);
    struct visit vis;
    visit_init(&vis, 0);
    int met = 0;
    uint64_t ny = (uint64_t)y->n;
#define PAIR(a, b, v)                                                          \
    ((((uint64_t)(a)*ny + (uint64_t)(b)) << 3) | (uint64_t)(v))
    if (ystart) {
        for (size_t j = 0; j < y->n; j++)
            if (BIT_GET(ystart, j))
                visit_add(&vis, PAIR(0, j, V_B), NULL);
    } else {
        visit_add(&vis, PAIR(0, 0, V_B), NULL);
    }
    for (size_t q = 0; q < vis.nent; q++) {
        if (*budget == 0) {
            met = -1;
            break;
        }
        --*budget;
        uint64_t key = visit_at(&vis, q)[0];
        int v = (int)(key & 7);
        size_t xs = (size_t)((key >> 3) / ny), ys = (size_t)((key >> 3) % ny);
        const struct nst *a = &x->st[xs], *b = &y->st[ys];
        if (a->acc && b->acc && vacc(v)) {
            met = 1;
            break;
        }
        if (a->eps >= 0)
            visit_add(&vis, PAIR(a->eps, ys, v), NULL);
        if (b->eps >= 0)
            visit_add(&vis, PAIR(xs, b->eps, v), NULL);
        for (size_t k = 0; k < al.n; k++) {
            uint8_t c = al.c[k];
            if (!lab_accepts(a, c) || !lab_accepts(b, c))
                continue;
            int nv = vstep_for(x, v, c);
            if (nv != V_DEAD)
                visit_add(&vis, PAIR(a->to, b->to, nv), NULL);
        }
    }
#undef PAIR
    visit_fini(&vis);
    return met;
}

/* For every canonical path r, does r·L(q) meet L(a)?  Explores the subset
 * construction of a over r and tests the overlap at each segment
 * boundary.  1 yes, 0 no, -1 over budget. */
static int forall_root_meet(const struct nfa *a, const struct nfa *q,
                            size_t *budget)
{
    struct alpha al;
    alpha_build(&al, a, q);
    size_t words = (a->n + 63) / 64;
    size_t tail = a->n - 1;
    struct visit vis;
    visit_init(&vis, words);
    uint64_t local[2 * 8];
    uint64_t *sa = words <= 8 ? local : cp_xcalloc(2 * words, sizeof *sa);
    uint64_t *na = sa + words;
    int ok = 1;

    memset(sa, 0, words * sizeof *sa);
    BIT_SET(sa, 0);
    set_close(a, sa);
    visit_add(&vis, V_B, sa);
    for (size_t i = 0; i < vis.nent && ok == 1; i++) {
        if (*budget == 0) {
            ok = -1;
            break;
        }
        --*budget;
        const uint64_t *e = visit_at(&vis, i);
        int v = (int)e[0];
        memcpy(sa, e + 1, words * sizeof *sa);
        if (BIT_GET(sa, tail))
            continue; /* a covers everything below r */
        if (vacc(v)) {
            int m = nfa_meet(q, a, sa, budget);
            if (m != 1) {
                ok = m < 0 ? -1 : 0;
                break;
            }
        }
        for (size_t k = 0; k < al.n; k++) {
            int nv = vstep(v, al.c[k]);
            if (nv == V_DEAD)
                continue;
            if (!set_step(a, sa, al.c[k], na, words)) {
                ok = 0; /* r can be completed with no state of a left */
                break;
            }
            visit_add(&vis, (uint64_t)nv, na);
        }
    }
    if (sa != local)
        free(sa);
    visit_fini(&vis);
    return ok;
}

/* ---- gate word globs --------------------------------------------------- */

/* A gate word glob: '*' any run of bytes, every other byte literal. */
static void nfa_build_word(struct nfa *f, const char *w)
{
    nfa_init(f);
    f->words = true;
    for (size_t i = 0; w[i]; i++) {
        int32_t j = (int32_t)f->n;
        if (w[i] == '*') {
            while (w[i + 1] == '*')
                i++;
            nfa_add(f, L_ALL, 0, j, j + 1);
        } else {
            nfa_add(f, L_BYTE, (uint8_t)w[i], j + 1, -1);
        }
    }
    /* final state: consumes nothing (NUL is never in the alphabet) */
    nfa_add(f, L_BYTE, 0, (int32_t)f->n, -1);
    f->st[f->n - 1].acc = 1;
}

int cp_match_word_contains(const char *outer, const char *inner)
{
    if (!strchr(outer, '*'))
        return !strchr(inner, '*') && strcmp(outer, inner) == 0;
    struct nfa x, y;
    nfa_build_word(&x, inner);
    nfa_build_word(&y, outer);
    size_t budget = MATCH_BUDGET;
    int r = nfa_included(&x, &y, &budget);
    nfa_fini(&x);
    nfa_fini(&y);
    return r;
}

/* Does the word s match the glob g ('*' any run, every other byte
 * itself)?  One backtrack point: O(|s| x |g|) at worst. */
static bool word_star_match(const char *g, const char *s)
{
    const char *star_g = NULL, *star_s = NULL;
    while (*s) {
        if (*g == '*') {
            star_g = ++g;
            star_s = s;
        } else if (*g && *g == *s) {
            g++;
            s++;
        } else if (star_g) {
            g = star_g;
            s = ++star_s;
        } else {
            return false;
        }
    }
    while (*g == '*')
        g++;
    return *g == '\0';
}

/* Two globs whose only wildcard is '*' share a word exactly when their
 * literal prefixes (before the first '*') agree over the shorter one and
 * their literal suffixes (after the last '*') do too, when both hold a
 * '*': the word prefix + the middles' literals in turn + suffix is in
 * both (each side's stars take the other's middle).  With one side
 * without '*', that word must match the other.  Linear, without automata
 * (a line of 35,000 glob words met patterns of 40 alternatives each). */
int cp_match_word_overlaps(const char *a, const char *b)
{
    const char *sa = strchr(a, '*'), *sb = strchr(b, '*');
    if (!sa && !sb)
        return strcmp(a, b) == 0;
    if (!sa)
        return word_star_match(b, a);
    if (!sb)
        return word_star_match(a, b);
    size_t pa = (size_t)(sa - a), pb = (size_t)(sb - b);
    if (memcmp(a, b, pa < pb ? pa : pb) != 0)
        return 0;
    const char *ea = strrchr(a, '*') + 1, *eb = strrchr(b, '*') + 1;
    size_t la = strlen(ea), lb = strlen(eb), m = la < lb ? la : lb;
    return memcmp(ea + la - m, eb + lb - m, m) == 0;
}

/* ---- relations on segment lists (same root) --------------------------- */

static const struct cp_seg seg_any = {.kind = CP_SEG_ANY};

/* A trailing '**' adds nothing to a set that is closed downwards. */
static size_t trim_any(const struct cp_seg *s, size_t n)
{
    while (n > 0 && s[n - 1].kind == CP_SEG_ANY)
        n--;
    return n;
}

/* L(in) ⊆ L(o) (with "**" before `in` when in_any_root): 1, 0, or -1 when
 * over budget. */
/* Zero segments may come with a NULL array; pointer arithmetic on it is
 * undefined even for offset 0. */
static const struct cp_seg no_segs[1];
#define SEGS(x) ((x) ? (x) : no_segs)

static int segs_contain(const struct cp_seg *o, size_t m,
                        const struct cp_seg *in, size_t n, bool in_any_root,
                        size_t *budget)
{
    o = SEGS(o);
    in = SEGS(in);
    m = trim_any(o, m);
    n = trim_any(in, n);
    struct seginfo io, ii;
    seg_info(o, m, &io);
    seg_info(in, n, &ii);
    if (!ii.sat)
        return 1;
    if (!io.sat)
        return 0;
    if (!in_any_root && io.plain && ii.plain) {
        size_t k = 0;
        while (k < m && k < n && o[k].kind == CP_SEG_LIT &&
               in[k].kind == CP_SEG_LIT) {
            if (o[k].len != in[k].len || memcmp(o[k].s, in[k].s, o[k].len) != 0)
                return 0;
            k++;
        }
        if (k == m)
            return 1; /* outer is a literal prefix of inner */
        if (io.literal)
            return 0; /* inner varies (or stops) where outer is fixed */
        if (ii.literal) {
            struct segsrc src = {.is_lits = true,
                                 .lits = in + k,
                                 .nlits = n - k};
            bool hit, alive;
            match_run(o + k, m - k, &src, &hit, &alive);
            return hit;
        }
        o += k;
        m -= k;
        in += k;
        n -= k;
    }
    struct nfa x, y;
    nfa_build(&x, &seg_any, in_any_root ? 1 : 0, in, n);
    nfa_build(&y, NULL, 0, o, m);
    int r = nfa_included(&x, &y, budget);
    nfa_fini(&x);
    nfa_fini(&y);
    return r;
}

static int segs_overlap(const struct cp_seg *a, size_t m,
                        const struct cp_seg *b, size_t n, size_t *budget)
{
    a = SEGS(a);
    b = SEGS(b);
    m = trim_any(a, m);
    n = trim_any(b, n);
    struct seginfo ia, ib;
    seg_info(a, m, &ia);
    seg_info(b, n, &ib);
    if (!ia.sat || !ib.sat)
        return 0;
    if (ia.plain && ib.plain) {
        size_t k = 0;
        while (k < m && k < n && a[k].kind == CP_SEG_LIT &&
               b[k].kind == CP_SEG_LIT) {
            if (a[k].len != b[k].len || memcmp(a[k].s, b[k].s, a[k].len) != 0)
                return 0;
            k++;
        }
        if (k == m || k == n)
            return 1; /* one is a literal prefix of the other */
        if (ia.literal || ib.literal) {
            const struct cp_seg *lit = ia.literal ? a : b;
            const struct cp_seg *pat = ia.literal ? b : a;
            size_t nl = ia.literal ? m : n, np = ia.literal ? n : m;
            struct segsrc src = {.is_lits = true,
                                 .lits = lit + k,
                                 .nlits = nl - k};
            bool hit, alive;
            match_run(pat + k, np - k, &src, &hit, &alive);
            return hit || alive;
        }
        a += k;
        m -= k;
        b += k;
        n -= k;
    }
    struct nfa x, y;
    nfa_build(&x, NULL, 0, a, m);
    nfa_build(&y, NULL, 0, b, n);
    int r = nfa_meet(&x, &y, NULL, budget);
    nfa_fini(&x);
    nfa_fini(&y);
    return r;
}

/* ---- public relations ------------------------------------------------- */

static bool same_root(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The param named when two different params decide a relation. */
static const char *pick_param(const char *a, const char *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    return strcmp(a, b) <= 0 ? a : b;
}

static enum cp_rel tri_rel(int t)
{
    return t < 0 ? CP_REL_MAY : t ? CP_REL_YES : CP_REL_NO;
}

enum cp_rel cp_path_contains(const struct cp_path *outer,
                             const struct cp_path *inner, const char **param)
{
    const char *dummy;
    size_t budget = MATCH_BUDGET;
    if (!param)
        param = &dummy;
    *param = NULL;
    if (same_root(outer->root, inner->root) && cp_path_cmp(outer, inner) == 0)
        return CP_REL_YES; /* also spares the search on identical patterns */
    if (same_root(outer->root, inner->root))
        return tri_rel(segs_contain(outer->segs, outer->nsegs, inner->segs,
                                    inner->nsegs, false, &budget));
    struct seginfo io, ii;
    seg_info(outer->segs, outer->nsegs, &io);
    seg_info(inner->segs, inner->nsegs, &ii);
    if (!ii.sat)
        return CP_REL_YES;
    if (!io.sat)
        return CP_REL_NO;
    if (!outer->root) {
        /* r·L(inner) ⊆ L(outer) for every r iff L(** inner) ⊆ L(outer);
         * r inside outer's region makes it hold, so never NO.  An outer
         * pattern that starts with a literal segment fails for an r that
         * starts with another one: no search (the decision model asks this
         * of every absolute rule for a param-rooted subject). */
        if (outer->nsegs && outer->segs[0].kind == CP_SEG_LIT) {
            *param = inner->root;
            return CP_REL_MAY;
        }
        int t = segs_contain(outer->segs, outer->nsegs, inner->segs,
                             inner->nsegs, true, &budget);
        if (t == 1)
            return CP_REL_YES;
        if (t == 0)
            *param = inner->root;
        return CP_REL_MAY;
    }
    if (!inner->root) {
        /* L(inner) ⊆ r·L(outer) needs r to prefix every path of inner:
         * r is one of inner's fixed leading segments (or "/").  A deeper
         * unrelated r always makes it fail, so never YES. */
        bool unknown = false;
        for (size_t k = 0; k <= ii.single; k++) {
            int t = segs_contain(outer->segs, outer->nsegs,
                                 SEGS(inner->segs) + k, inner->nsegs - k, false,
                                 &budget);
            if (t == 1) {
                *param = outer->root;
                return CP_REL_MAY;
            }
            unknown |= t < 0;
        }
        return unknown ? CP_REL_MAY : CP_REL_NO;
    }
    /* Two independent params: r2 inside r1's region contains, unrelated
     * values do not. */
    *param = pick_param(outer->root, inner->root);
    return CP_REL_MAY;
}

enum cp_rel cp_path_overlaps(const struct cp_path *a, const struct cp_path *b,
                             const char **param)
{
    const char *dummy;
    size_t budget = MATCH_BUDGET;
    if (!param)
        param = &dummy;
    *param = NULL;
    if (same_root(a->root, b->root))
        return tri_rel(
            segs_overlap(a->segs, a->nsegs, b->segs, b->nsegs, &budget));
    struct seginfo ia, ib;
    seg_info(a->segs, a->nsegs, &ia);
    seg_info(b->segs, b->nsegs, &ib);
    if (!ia.sat || !ib.sat)
        return CP_REL_NO;
    if (a->root && b->root) {
        *param = pick_param(a->root, b->root);
        return CP_REL_MAY;
    }
    /* One absolute pattern A, one rooted at param R: some value of R lies
     * inside A's region, so never NO; YES iff it holds for every value. */
    const struct cp_path *abs = a->root ? b : a, *rel = a->root ? a : b;
    struct nfa x, q;
    nfa_build(&x, NULL, 0, abs->segs, trim_any(abs->segs, abs->nsegs));
    nfa_build(&q, NULL, 0, rel->segs, trim_any(rel->segs, rel->nsegs));
    int all = forall_root_meet(&x, &q, &budget);
    nfa_fini(&x);
    nfa_fini(&q);
    if (all == 1)
        return CP_REL_YES;
    if (all == 0)
        *param = rel->root;
    return CP_REL_MAY;
}
