/* SPDX-License-Identifier: MIT */
/* The analysis (spec/semantics.md, "Analysis"): shadowed, redundant,
 * conflicting, unreadable-write and vacuous rules, the same for gate
 * patterns and domains, and the expect statements.
 *
 * Not quadratic.  Path rules are indexed in a trie keyed by root and then by
 * literal segment: a rule sits at the node of its literal prefix (its
 * leading literal segments).  If rule q contains rule r, q's literal prefix
 * is a prefix of r's (a glob of r could otherwise be instantiated with a
 * segment q's literal does not accept), so the containers of r are found
 * among the rules at r's node and its ancestors.  If q and r overlap, their
 * literal prefixes are prefix-related, so q sits at an ancestor of r's node
 * or in its subtree.  Only these candidates go through the exact relations
 * of compiler/match.h (spec/patterns.md).  Across roots: an unbound param
 * can be bound anywhere, so a param-rooted pattern is contained in, or
 * certainly overlaps, only absolute patterns without literal prefix (they
 * sit at the absolute root node, visited as an extra ancestor of every
 * param root); every other cross-root relation is "may".
 *
 * Rules of one kind that name the same pattern (cp_path_cmp equal) form a
 * class; only its leader, the member kept first, is indexed, so that n
 * copies of a rule cost n queries and not n * n pairs.  What a query finds
 * at a leader holds for every member; a finding whose partner is a whole
 * class, or the members kept before the subject, is recorded once as that
 * set (reported at the subject: redundant, shadowed), any other once per
 * member.
 *
 * Findings are collected as (code, subject, partner), sorted by the source
 * position of the rule they are reported at (the later of the two source
 * rules), and reported grouped, with capped note lists. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "confpol.h"
#include "hash.h"
#include "match.h"
#include "sema.h"

#define CK_NONE UINT32_MAX
#define CK_MAX_NOTES 4 /* partner notes per diagnostic before "and N more" */

#define CK_NKINDS 5 /* path rule kinds: CP_R_WRITE .. CP_R_DENY_EXEC */

struct ck_node {
    uint32_t parent, first_child, next_sibling, depth;
    uint32_t head[CK_NKINDS]; /* first rule of each kind here (rule_next) */
    uint32_t len;
    const char *seg; /* root name ("" absolute) for a root node */
};

enum ck_code {
    CK_SHADOWED,
    CK_REDUNDANT,
    CK_CONFLICT_EXEC,
    CK_CONFLICT_WRITE,
    CK_UNREADABLE,
    CK_VACUOUS,
    CK_SHADOWED_GATE,
    CK_REDUNDANT_GATE,
    CK_SHADOWED_NET,
    CK_SOCKET_OPEN,
    CK_SOCKET_MASKED,
    CK_EXPECT,
};

/* Which rules a finding's partner stands for. */
enum ck_set {
    CK_SET_ONE,    /* the partner itself */
    CK_SET_ALL,    /* every member of the partner's class */
    CK_SET_BEFORE, /* the members of the partner's class kept before the
                      subject (ck_keep_before) */
};

struct ck_find {
    uint64_t key; /* order of the reporting position */
    uint32_t code;
    uint32_t subject; /* rule id (expect index for CK_EXPECT) */
    uint32_t partner; /* rule id (a class leader unless CK_SET_ONE) or
                         CK_NONE */
    uint32_t set;     /* enum ck_set */
};

struct ck {
    struct cp_ctx *cx;
    struct cp_arena *a;
    struct cp_policy *p;
    struct cp_diags *d;
    struct ck_node *nodes;
    size_t nnodes, capnodes;
    struct ck_slot *ht; /* node ids */
    size_t htcap;
    uint32_t *rule_node, *rule_next;
    /* Classes of identical path rules: per rule its leader; per leader
     * the place and size of its members in cls_mem (ascending ids), and
     * cls_impl[k] the implicit rules among cls_mem[0..k). */
    uint32_t *lead, *cls_at, *cls_n, *cls_mem, *cls_impl;
    /* Containment buckets: (node, kind, key) where key is the rule's first
     * literal segment after its literal prefix, or "" when it has none. */
    struct ck_bucket {
        uint32_t node, head;
        uint32_t kind, len;
        const char *s;
    } * buckets;
    size_t nbuckets, capbuckets;
    struct ck_slot *bht; /* bucket ids */
    size_t bhtcap;
    uint32_t *rule_bnext;
    uint64_t *sig;    /* per path rule: one bit per literal segment (hash) */
    uint32_t *minlen; /* per path rule: segments every named path has */
    uint32_t abs_root;
    const char *last_root; /* ck_root's cache */
    bool outdir_conflict;  /* a write root is the build output directory */
    uint32_t last_root_node;
    bool *shadowed; /* per rule: a write/exec rule contained in a deny */
    struct ck_find *finds;
    size_t nfinds, capfinds;
    uint32_t *stack;
    size_t nstack, capstack;
    size_t nwrite, nexec;
    struct ck_rootcount {
        const char *root; /* NULL: absolute */
        size_t write, exec;
    } * roots;
    size_t nroots;
};

/* ---- the trie ------------------------------------------------------------ */

static uint64_t ck_hash(uint32_t parent, const char *s, size_t n)
{
    uint64_t h = cp_fnv64(CP_FNV64_OFFSET ^ parent, s, n);
    /* splitmix64 finalizer: keys that differ only in `parent` must not
     * land in consecutive slots (linear probing). */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

/* Hash tables of ids: each slot keeps the low 32 bits of its key's hash,
 * so that a probe past another key and a rehash touch neither the node nor
 * the bucket it names (they are cache misses in a large policy). */
struct ck_slot {
    uint32_t id; /* CK_NONE: empty */
    uint32_t hash;
};

/* A table of `cap` (a power of two) empty slots holding `old`'s entries. */
static struct ck_slot *ck_slots_grow(struct ck_slot *old, size_t oldcap,
                                     size_t cap)
{
    struct ck_slot *t = cp_xmalloc(cap * sizeof *t);
    memset(t, 0xff, cap * sizeof *t);
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].id == CK_NONE)
            continue;
        size_t h = old[i].hash & (cap - 1);
        while (t[h].id != CK_NONE)
            h = (h + 1) & (cap - 1);
        t[h] = old[i];
    }
    free(old);
    return t;
}

static uint32_t ck_child(struct ck *c, uint32_t parent, const char *s, size_t n)
{
    if ((c->nnodes + 1) * 2 > c->htcap) {
        size_t cap = c->htcap ? c->htcap * 2 : 1024;
        c->ht = ck_slots_grow(c->ht, c->htcap, cap);
        c->htcap = cap;
    }
    uint32_t hv = (uint32_t)ck_hash(parent, s, n);
    size_t h = hv & (c->htcap - 1);
    for (;;) {
        struct ck_slot sl = c->ht[h];
        if (sl.id == CK_NONE)
            break;
        if (sl.hash == hv) {
            const struct ck_node *nd = &c->nodes[sl.id];
            if (nd->parent == parent && nd->len == n &&
                memcmp(nd->seg, s, n) == 0)
                return sl.id;
        }
        h = (h + 1) & (c->htcap - 1);
    }
    if (c->nnodes == c->capnodes) {
        c->capnodes = c->capnodes ? c->capnodes * 2 : 256;
        c->nodes = cp_xrealloc(c->nodes, c->capnodes * sizeof *c->nodes);
    }
    uint32_t id = (uint32_t)c->nnodes++;
    struct ck_node *nd = &c->nodes[id];
    nd->parent = parent;
    nd->seg = s;
    nd->len = (uint32_t)n;
    nd->first_child = CK_NONE;
    for (size_t k = 0; k < CK_NKINDS; k++)
        nd->head[k] = CK_NONE;
    nd->next_sibling = CK_NONE;
    nd->depth = parent == CK_NONE ? 0 : c->nodes[parent].depth + 1;
    if (parent != CK_NONE) {
        nd->next_sibling = c->nodes[parent].first_child;
        c->nodes[parent].first_child = id;
    }
    c->ht[h] = (struct ck_slot){id, hv};
    return id;
}

/* Roots are interned and few: the last one looked up is remembered. */
static uint32_t ck_root(struct ck *c, const char *root)
{
    if (c->last_root_node != CK_NONE && c->last_root == root)
        return c->last_root_node;
    const char *s = root ? root : "";
    c->last_root = root;
    c->last_root_node = ck_child(c, CK_NONE, s, strlen(s));
    return c->last_root_node;
}

static uint32_t ck_bucket_find(struct ck *c, uint32_t node, unsigned kind,
                               const char *s, size_t n, bool create)
{
    if (create && (c->nbuckets + 1) * 2 > c->bhtcap) {
        size_t cap = c->bhtcap ? c->bhtcap * 2 : 1024;
        c->bht = ck_slots_grow(c->bht, c->bhtcap, cap);
        c->bhtcap = cap;
    }
    if (!c->bhtcap)
        return CK_NONE;
    uint32_t hv = (uint32_t)ck_hash(node * 16u + kind, s, n);
    size_t h = hv & (c->bhtcap - 1);
    for (;;) {
        struct ck_slot sl = c->bht[h];
        if (sl.id == CK_NONE)
            break;
        if (sl.hash == hv) {
            const struct ck_bucket *b = &c->buckets[sl.id];
            if (b->node == node && b->kind == kind && b->len == n &&
                memcmp(b->s, s, n) == 0)
                return sl.id;
        }
        h = (h + 1) & (c->bhtcap - 1);
    }
    if (!create)
        return CK_NONE;
    if (c->nbuckets == c->capbuckets) {
        c->capbuckets = c->capbuckets ? c->capbuckets * 2 : 256;
        c->buckets = cp_xrealloc(c->buckets,
                                 c->capbuckets * sizeof *c->buckets);
    }
    uint32_t id = (uint32_t)c->nbuckets++;
    c->buckets[id] = (struct ck_bucket){node, CK_NONE, kind, (uint32_t)n, s};
    c->bht[h] = (struct ck_slot){id, hv};
    return id;
}

/* Allow rules per root (few distinct roots: a linear list). */
static struct ck_rootcount *ck_rootcount(struct ck *c, const char *root)
{
    for (size_t i = 0; i < c->nroots; i++) {
        const char *x = c->roots[i].root;
        if ((!x && !root) || (x && root && strcmp(x, root) == 0))
            return &c->roots[i];
    }
    c->roots = cp_xrealloc(c->roots, (c->nroots + 1) * sizeof *c->roots);
    struct ck_rootcount *rc = &c->roots[c->nroots++];
    rc->root = root;
    rc->write = rc->exec = 0;
    return rc;
}

static bool ck_is_path(const struct cp_rule *r)
{
    return r->kind <= CP_R_DENY_EXEC;
}

static bool ck_outdir_rule(const struct cp_rule *r);

/* Links rule i, a class leader at node nd with literal prefix k, into its
 * node's list and its containment bucket. */
static void ck_index_rule(struct ck *c, uint32_t i, uint32_t nd, size_t k)
{
    const struct cp_rule *r = c->p->rules[i];
    const struct cp_path *pa = &r->u.path;
    const char *key = "";
    size_t keylen = 0;
    for (size_t j = k; j < pa->nsegs; j++)
        if (pa->segs[j].kind == CP_SEG_LIT) {
            key = pa->segs[j].s;
            keylen = pa->segs[j].len;
            break;
        }
    uint32_t b = ck_bucket_find(c, nd, r->kind, key, keylen, true);
    c->rule_bnext[i] = c->buckets[b].head;
    c->buckets[b].head = i;
    /* every leader of this kind at this node */
    c->rule_next[i] = c->nodes[nd].head[r->kind];
    c->nodes[nd].head[r->kind] = i;
}

/* Path rules by kind, pattern and id: the members of a class are
 * neighbours, in id order. */
static int ck_class_cmp(const void *x, const void *y)
{
    const struct cp_rule *a = *(const struct cp_rule *const *)x;
    const struct cp_rule *b = *(const struct cp_rule *const *)y;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int k = cp_path_cmp(&a->u.path, &b->u.path);
    if (k)
        return k;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* One class: the members ms[0..n) (ascending ids) stored from *at.  The
 * leader is the member kept first: the first implicit one, else the
 * first. */
static void ck_class_add(struct ck *c, const struct cp_rule **ms, size_t n,
                         size_t *at)
{
    uint32_t lead = ms[0]->id;
    for (size_t k = 0; k < n; k++)
        if (ms[k]->origin != CP_ORIGIN_SOURCE) {
            lead = ms[k]->id;
            break;
        }
    c->cls_at[lead] = (uint32_t)*at;
    c->cls_n[lead] = (uint32_t)n;
    for (size_t k = 0; k < n; k++) {
        c->lead[ms[k]->id] = lead;
        c->cls_impl[*at + 1] = c->cls_impl[*at] +
                               (ms[k]->origin != CP_ORIGIN_SOURCE);
        c->cls_mem[(*at)++] = ms[k]->id;
    }
}

/* Groups the path rules into classes of identical patterns (the build
 * output directory's deny alone in its own: no finding names it). */
static void ck_classes(struct ck *c)
{
    size_t n = c->p->nrules, m = 0, at = 0;
    c->lead = cp_xmalloc((n + 1) * sizeof *c->lead);
    c->cls_at = cp_xcalloc(n + 1, sizeof *c->cls_at);
    c->cls_n = cp_xcalloc(n + 1, sizeof *c->cls_n);
    c->cls_mem = cp_xmalloc((n + 1) * sizeof *c->cls_mem);
    c->cls_impl = cp_xcalloc(n + 2, sizeof *c->cls_impl);
    const struct cp_rule **v = cp_xmalloc((n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const struct cp_rule *r = c->p->rules[i];
        c->lead[i] = (uint32_t)i;
        if (ck_is_path(r) && !ck_outdir_rule(r))
            v[m++] = r;
        else if (ck_is_path(r))
            ck_class_add(c, &r, 1, &at);
    }
    if (m > 1)
        qsort(v, m, sizeof *v, ck_class_cmp);
    for (size_t i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && v[j]->kind == v[i]->kind &&
                        cp_path_cmp(&v[j]->u.path, &v[i]->u.path) == 0;
             j++)
            ;
        ck_class_add(c, v + i, j - i, &at);
    }
    free(v);
}

static void ck_index(struct ck *c)
{
    size_t n = c->p->nrules;
    c->rule_node = cp_xcalloc(n + 1, sizeof *c->rule_node);
    c->rule_next = cp_xcalloc(n + 1, sizeof *c->rule_next);
    c->sig = cp_xcalloc(n + 1, sizeof *c->sig);
    c->rule_bnext = cp_xcalloc(n + 1, sizeof *c->rule_bnext);
    c->minlen = cp_xcalloc(n + 1, sizeof *c->minlen);
    /* Room for the worst case (a node per root and literal prefix segment,
     * a bucket per rule and kind), allocated once: pages never used are
     * never touched, and nothing is copied by growing. */
    size_t maxnodes = 1, maxbuckets = 1;
    for (size_t i = 0; i < n; i++) {
        const struct cp_rule *r = c->p->rules[i];
        if (!ck_is_path(r))
            continue;
        maxnodes += 1 + cp_path_literal_prefix(&r->u.path);
        maxbuckets++;
    }
    c->capnodes = maxnodes;
    c->nodes = cp_xmalloc(maxnodes * sizeof *c->nodes);
    c->capbuckets = maxbuckets;
    c->buckets = cp_xmalloc(maxbuckets * sizeof *c->buckets);
    c->last_root_node = CK_NONE;
    c->abs_root = ck_root(c, NULL);
    ck_classes(c);
    /* Insert in reverse so that each node's list is in rule order. */
    for (size_t i = n; i-- > 0;) {
        const struct cp_rule *r = c->p->rules[i];
        c->rule_node[i] = CK_NONE;
        if (!ck_is_path(r))
            continue;
        const struct cp_path *pa = &r->u.path;
        uint32_t nd = ck_root(c, pa->root);
        size_t k = cp_path_literal_prefix(pa);
        for (size_t j = 0; j < k; j++)
            nd = ck_child(c, nd, pa->segs[j].s, pa->segs[j].len);
        uint64_t sig = 0;
        uint32_t ml = 0;
        for (size_t j = 0; j < pa->nsegs; j++) {
            if (pa->segs[j].kind == CP_SEG_LIT)
                sig |= 1ull
                       << (ck_hash(0, pa->segs[j].s, pa->segs[j].len) & 63);
            if (pa->segs[j].kind != CP_SEG_ANY)
                ml++;
        }
        c->sig[i] = sig;
        c->minlen[i] = ml;
        c->rule_node[i] = nd;
        if (c->lead[i] == i)
            ck_index_rule(c, (uint32_t)i, nd, k);
        if (r->kind != CP_R_WRITE && r->kind != CP_R_EXEC)
            continue;
        struct ck_rootcount *rc = ck_rootcount(c, pa->root);
        if (r->kind == CP_R_WRITE) {
            c->nwrite++;
            rc->write++;
        } else {
            c->nexec++;
            rc->exec++;
        }
    }
}

/* The next node up from `nd` on the way from a rule's node to the roots:
 * its parent, and past a param root the absolute root (where the absolute
 * patterns without literal prefix sit), once. */
static uint32_t ck_parent(const struct ck *c, uint32_t nd, bool *param_root)
{
    uint32_t up = c->nodes[nd].parent;
    if (up == CK_NONE && *param_root) {
        *param_root = false;
        return c->abs_root;
    }
    return up;
}

/* Calls fn for each path rule of `kind` at r's node and its ancestors (the
 * candidates to contain r); stops when fn returns true. */
typedef bool (*ck_visit)(struct ck *c, const struct cp_rule *r,
                         const struct cp_rule *q, void *arg);

static bool ck_up(struct ck *c, const struct cp_rule *r, enum cp_rule_kind kind,
                  ck_visit fn, void *arg)
{
    bool param_root = r->u.path.root != NULL;
    for (uint32_t nd = c->rule_node[r->id]; nd != CK_NONE;
         nd = ck_parent(c, nd, &param_root)) {
        for (uint32_t q = c->nodes[nd].head[kind]; q != CK_NONE;
             q = c->rule_next[q]) {
            const struct cp_rule *qr = c->p->rules[q];
            if (qr != r && fn(c, r, qr, arg))
                return true;
        }
    }
    return false;
}

/* As ck_up, for containment queries only: at each node, only the rules
 * without a literal beyond their prefix and those whose first such literal
 * is a literal segment of r (a container's literals all are, see
 * ck_may_contain). */
static bool ck_upc(struct ck *c, const struct cp_rule *r,
                   enum cp_rule_kind kind, ck_visit fn, void *arg)
{
    const struct cp_path *rp = &r->u.path;
    bool param_root = rp->root != NULL;
    for (uint32_t nd = c->rule_node[r->id]; nd != CK_NONE;
         nd = ck_parent(c, nd, &param_root)) {
        if (c->nodes[nd].head[kind] == CK_NONE)
            continue; /* no rule of this kind here: no bucket either */
        /* q's key follows its literal prefix (the path's first depth
         * segments), so it can only be one of r's literals from there. */
        size_t from = c->nodes[nd].depth;
        for (size_t j = from; j <= rp->nsegs; j++) {
            const char *key = "";
            size_t len = 0;
            if (j < rp->nsegs) {
                const struct cp_seg *sg = &rp->segs[j];
                if (sg->kind != CP_SEG_LIT)
                    continue;
                bool dup = false;
                for (size_t i = from; i < j && !dup; i++)
                    dup = rp->segs[i].kind == CP_SEG_LIT &&
                          rp->segs[i].len == sg->len &&
                          memcmp(rp->segs[i].s, sg->s, sg->len) == 0;
                if (dup)
                    continue;
                key = sg->s;
                len = sg->len;
            }
            uint32_t b = ck_bucket_find(c, nd, kind, key, len, false);
            if (b == CK_NONE)
                continue;
            for (uint32_t q = c->buckets[b].head; q != CK_NONE;
                 q = c->rule_bnext[q]) {
                const struct cp_rule *qr = c->p->rules[q];
                if (qr != r && fn(c, r, qr, arg))
                    return true;
            }
        }
    }
    return false;
}

static void ck_push(struct ck *c, uint32_t nd)
{
    if (c->nstack == c->capstack) {
        c->capstack = c->capstack ? c->capstack * 2 : 64;
        c->stack = cp_xrealloc(c->stack, c->capstack * sizeof *c->stack);
    }
    c->stack[c->nstack++] = nd;
}

/* Calls fn for each rule of `kind` in the subtree below r's node (the node
 * itself excluded: ck_up covers it).  Below the absolute root lie, for this
 * purpose, the param roots. */
static bool ck_down(struct ck *c, const struct cp_rule *r,
                    enum cp_rule_kind kind, ck_visit fn, void *arg)
{
    uint32_t start = c->rule_node[r->id];
    c->nstack = 0;
    for (uint32_t ch = c->nodes[start].first_child; ch != CK_NONE;
         ch = c->nodes[ch].next_sibling)
        ck_push(c, ch);
    if (start == c->abs_root) {
        for (size_t i = 0; i < c->nnodes; i++)
            if (c->nodes[i].parent == CK_NONE && i != c->abs_root)
                ck_push(c, (uint32_t)i);
    }
    while (c->nstack) {
        uint32_t nd = c->stack[--c->nstack];
        for (uint32_t q = c->nodes[nd].head[kind]; q != CK_NONE;
             q = c->rule_next[q]) {
            const struct cp_rule *qr = c->p->rules[q];
            if (qr != r && fn(c, r, qr, arg))
                return true;
        }
        for (uint32_t ch = c->nodes[nd].first_child; ch != CK_NONE;
             ch = c->nodes[ch].next_sibling)
            ck_push(c, ch);
    }
    return false;
}

/* A necessary condition for "q contains r", cheap enough to run on every
 * candidate before the exact procedure: every literal segment of q is a
 * literal segment of r (a glob or '**' of r can be instantiated to avoid
 * it), and when q has no '**', every path r names has at least as many
 * segments as q needs.  Never rejects a true containment. */
static bool ck_may_contain(const struct ck *c, const struct cp_rule *q,
                           const struct cp_rule *r)
{
    if (c->sig[q->id] & ~c->sig[r->id])
        return false;
    const struct cp_path *qp = &q->u.path, *rp = &r->u.path;
    bool any = false;
    for (size_t j = 0; j < qp->nsegs && !any; j++)
        any = qp->segs[j].kind == CP_SEG_ANY;
    if (!any && qp->nsegs > c->minlen[r->id])
        return false;
    /* The signature may collide: check the literals beyond q's literal
     * prefix exactly (the prefix itself is shared by construction). */
    for (size_t j = cp_path_literal_prefix(qp); j < qp->nsegs; j++) {
        const struct cp_seg *x = &qp->segs[j];
        if (x->kind != CP_SEG_LIT)
            continue;
        bool found = false;
        for (size_t k = 0; k < rp->nsegs && !found; k++)
            found = rp->segs[k].kind == CP_SEG_LIT &&
                    rp->segs[k].len == x->len &&
                    memcmp(rp->segs[k].s, x->s, x->len) == 0;
        if (!found)
            return false;
    }
    return true;
}

static enum cp_rel ck_contains(const struct ck *c, const struct cp_rule *q,
                               const struct cp_rule *r)
{
    const char *param;
    if (!ck_may_contain(c, q, r))
        return CP_REL_NO;
    if (cp_path_cmp(&q->u.path, &r->u.path) == 0)
        return CP_REL_YES;
    return cp_path_contains(&q->u.path, &r->u.path, &param);
}

/* ---- findings -------------------------------------------------------------- */

static bool ck_src(const struct cp_rule *r)
{
    return r->origin == CP_ORIGIN_SOURCE;
}

/* Which of two rules to keep when they name the same paths: implicit rules
 * (the profile's) first, then the earlier one. */
static bool ck_keep_before(const struct cp_rule *a, const struct cp_rule *b)
{
    if (ck_src(a) != ck_src(b))
        return !ck_src(a);
    return a->id < b->id;
}

static bool ck_outdir_rule(const struct cp_rule *r);

/* Findings whose fix is to remove their subject: placed at it, so that the
 * caret, the SARIF region and the fix sit on the rule to remove. */
static bool ck_at_subject(enum ck_code code)
{
    return code == CK_REDUNDANT || code == CK_SHADOWED ||
           code == CK_REDUNDANT_GATE || code == CK_SHADOWED_GATE;
}

static void ck_add(struct ck *c, enum ck_code code, const struct cp_rule *subj,
                   const struct cp_rule *partner)
{
    /* The build output directory's deny is build's, not the author's: a
     * rule it makes redundant is not one to remove, and a write root it
     * conflicts with is the one error to read (no cascade of findings). */
    if (code != CK_CONFLICT_WRITE &&
        (ck_outdir_rule(partner) || ck_outdir_rule(subj)))
        return;
    if (code == CK_CONFLICT_WRITE &&
        (ck_outdir_rule(partner) || ck_outdir_rule(subj)))
        c->outdir_conflict = true;
    const struct cp_rule *at = subj;
    if (partner && ck_src(partner) &&
        (!ck_src(subj) || (partner->id > subj->id && !ck_at_subject(code))))
        at = partner;
    if (!ck_src(at))
        return; /* implicit rules are never the place of a report */
    if (c->nfinds == c->capfinds) {
        c->capfinds = c->capfinds ? c->capfinds * 2 : 64;
        c->finds = cp_xrealloc(c->finds, c->capfinds * sizeof *c->finds);
    }
    struct ck_find *f = &c->finds[c->nfinds++];
    f->key = 2 * (uint64_t)at->id + 1;
    f->code = code;
    f->subject = subj->id;
    f->partner = partner ? partner->id : CK_NONE;
    f->set = CK_SET_ONE;
}

/* The number of members of leader's class with ids below `id`. */
static size_t ck_class_below(const struct ck *c, uint32_t lead, uint32_t id)
{
    const uint32_t *m = c->cls_mem + c->cls_at[lead];
    size_t lo = 0, hi = c->cls_n[lead];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* How many rules the partner of f stands for; up to `max` of the smallest
 * of their ids go to ids[] (ascending), their number to *nids.  Kept
 * before a source subject: every member with a lower id, and the implicit
 * ones above it. */
static size_t ck_set_ids(const struct ck *c, const struct ck_find *f,
                         uint32_t *ids, size_t max, size_t *nids)
{
    *nids = 0;
    if (f->set == CK_SET_ONE) {
        if (f->partner != CK_NONE && max)
            ids[(*nids)++] = f->partner;
        return 1;
    }
    uint32_t at = c->cls_at[f->partner], n = c->cls_n[f->partner];
    const uint32_t *m = c->cls_mem + at;
    size_t below = f->set == CK_SET_ALL
                       ? n
                       : ck_class_below(c, f->partner, f->subject);
    size_t above = f->set == CK_SET_ALL
                       ? 0
                       : c->cls_impl[at + n] - c->cls_impl[at + below];
    for (size_t k = 0; k < below && *nids < max; k++)
        ids[(*nids)++] = m[k];
    for (size_t k = below; k < n && *nids < max && above; k++)
        if (c->p->rules[m[k]]->origin != CP_ORIGIN_SOURCE)
            ids[(*nids)++] = m[k];
    return below + above;
}

/* A finding whose partner is a set of leader's class: once when it is
 * reported at a source subject (the members only become notes), else
 * once per member. */
static void ck_add_set(struct ck *c, enum ck_code code,
                       const struct cp_rule *subj, const struct cp_rule *lead,
                       enum ck_set set)
{
    if (c->cls_n[lead->id] > 1 && ck_at_subject(code) && ck_src(subj) &&
        !ck_outdir_rule(subj)) {
        size_t before = c->nfinds;
        ck_add(c, code, subj, lead);
        if (c->nfinds > before)
            c->finds[before].set = set;
        return;
    }
    const uint32_t *m = c->cls_mem + c->cls_at[lead->id];
    for (size_t k = 0; k < c->cls_n[lead->id]; k++) {
        const struct cp_rule *q = c->p->rules[m[k]];
        if (set == CK_SET_ALL || ck_keep_before(q, subj))
            ck_add(c, code, subj, q);
    }
}

/* ---- path analyses ------------------------------------------------------- */

struct ck_acc {
    enum ck_code code;
    bool any;
    bool identical_only; /* conflict: write identical to a deny write */
};

static bool ck_contained_in(struct ck *c, const struct cp_rule *r,
                            const struct cp_rule *q, void *arg)
{
    struct ck_acc *acc = arg;
    if (acc->identical_only) {
        if (cp_path_cmp(&q->u.path, &r->u.path) != 0)
            return false;
    } else if (ck_contains(c, q, r) != CP_REL_YES) {
        return false;
    }
    acc->any = true;
    ck_add_set(c, acc->code, r, q, CK_SET_ALL);
    return false;
}

/* A redundancy partner: q contains r, and r is the one to drop (q does not
 * name the same paths, or q is kept before r). */
static bool ck_redundant_in(struct ck *c, const struct cp_rule *r,
                            const struct cp_rule *q, void *arg)
{
    struct ck_acc *acc = arg;
    if (ck_contains(c, q, r) != CP_REL_YES)
        return false;
    /* Same paths: only the members kept before r make it redundant (a
     * member kept after it is the redundant one). */
    enum ck_set set = ck_contains(c, r, q) == CP_REL_YES ? CK_SET_BEFORE
                                                         : CK_SET_ALL;
    struct ck_find probe = {.subject = r->id, .partner = q->id, .set = set};
    size_t nids;
    if (set == CK_SET_BEFORE && !ck_src(r)) {
        /* an implicit r: kept after source members, before none */
        bool any = false;
        const uint32_t *m = c->cls_mem + c->cls_at[q->id];
        for (size_t k = 0; k < c->cls_n[q->id] && !any; k++)
            any = ck_keep_before(c->p->rules[m[k]], r);
        if (!any)
            return false;
    } else if (ck_set_ids(c, &probe, NULL, 0, &nids) == 0) {
        return false;
    }
    acc->any = true;
    c->p->rules[r->id]->flags |= CP_RF_REDUNDANT;
    if (ck_src(r))
        ck_add_set(c, CK_REDUNDANT, r, q, set);
    return false;
}

static bool ck_overlap_any(struct ck *c, const struct cp_rule *r,
                           const struct cp_rule *q, void *arg)
{
    (void)c;
    (void)arg;
    const char *param;
    return cp_path_overlaps(&q->u.path, &r->u.path, &param) != CP_REL_NO;
}

static bool ck_unreadable(struct ck *c, const struct cp_rule *r,
                          const struct cp_rule *q, void *arg)
{
    (void)arg;
    const char *param;
    /* r: deny read, q: write */
    if (c->shadowed[q->id])
        return false;
    if (cp_path_overlaps(&q->u.path, &r->u.path, &param) != CP_REL_YES)
        return false;
    const uint32_t *m = c->cls_mem + c->cls_at[q->id];
    for (size_t k = 0; k < c->cls_n[q->id]; k++) /* q's class: its members */
        ck_add(c, CK_UNREADABLE, c->p->rules[m[k]], r);
    return false;
}

static bool ck_cover_true(struct ck *c, const struct cp_rule *r,
                          const struct cp_rule *q, void *arg)
{
    (void)arg;
    return ck_contains(c, q, r) == CP_REL_YES;
}

/* Could some allow rule of `kind` reach deny rule r?  Cross-root pairs
 * involving an unbound param may always overlap. */
static bool ck_reachable(struct ck *c, const struct cp_rule *r,
                         enum cp_rule_kind kind, size_t nkind)
{
    if (nkind == 0)
        return false;
    if (ck_up(c, r, kind, ck_overlap_any, NULL) ||
        ck_down(c, r, kind, ck_overlap_any, NULL))
        return true;
    /* Allow rules with another root: "may" unless none exists. */
    struct ck_rootcount *rc = ck_rootcount(c, r->u.path.root);
    return (kind == CP_R_WRITE ? rc->write : rc->exec) < nkind;
}

static void ck_paths(struct ck *c)
{
    struct cp_policy *p = c->p;
    c->shadowed = cp_xcalloc(p->nrules + 1, sizeof *c->shadowed);
    /* Allow rules first: their shadowed flags feed unreadable-write. */
    for (size_t i = 0; i < p->nrules; i++) {
        struct cp_rule *r = p->rules[i];
        struct ck_acc acc = {0};
        if (r->kind == CP_R_WRITE) {
            acc.code = CK_CONFLICT_WRITE;
            acc.identical_only = true;
            ck_upc(c, r, CP_R_DENY_WRITE, ck_contained_in, &acc);
            bool conflict = acc.any;
            acc = (struct ck_acc){.code = CK_SHADOWED};
            if (!conflict)
                ck_upc(c, r, CP_R_DENY_WRITE, ck_contained_in, &acc);
            c->shadowed[i] = conflict || acc.any;
        } else if (r->kind == CP_R_EXEC) {
            acc.code = CK_CONFLICT_EXEC;
            ck_upc(c, r, CP_R_DENY_READ, ck_contained_in, &acc);
            bool conflict = acc.any;
            acc = (struct ck_acc){.code = CK_SHADOWED};
            if (!conflict)
                ck_upc(c, r, CP_R_DENY_EXEC, ck_contained_in, &acc);
            c->shadowed[i] = conflict || acc.any;
        }
    }
    for (size_t i = 0; i < p->nrules; i++) {
        struct cp_rule *r = p->rules[i];
        if (!ck_is_path(r))
            continue;
        struct ck_acc acc = {.code = CK_REDUNDANT};
        if (!c->shadowed[i])
            ck_upc(c, r, r->kind, ck_redundant_in, &acc);
        if (r->kind == CP_R_DENY_READ) {
            /* unreadable-write, unless a deny write covers the region */
            if (!ck_upc(c, r, CP_R_DENY_WRITE, ck_cover_true, NULL)) {
                ck_up(c, r, CP_R_WRITE, ck_unreadable, NULL);
                ck_down(c, r, CP_R_WRITE, ck_unreadable, NULL);
            }
        } else if (r->kind == CP_R_DENY_WRITE && ck_src(r)) {
            if (!ck_reachable(c, r, CP_R_WRITE, c->nwrite))
                ck_add(c, CK_VACUOUS, r, NULL);
        } else if (r->kind == CP_R_DENY_EXEC && ck_src(r) && p->has_exec) {
            if (!ck_reachable(c, r, CP_R_EXEC, c->nexec))
                ck_add(c, CK_VACUOUS, r, NULL);
        }
    }
}

/* ---- gate patterns and domains ------------------------------------------ */

/* A literal positional word of a gate pattern: no glob, not an option,
 * alternatives or a redirection (those are matched out of place, so they
 * never take part in the positional comparisons below). */
static bool ck_word_literal(const char *w)
{
    return w && !strpbrk(w, "*?\\{|<>") && !(w[0] == '-' && w[1]);
}

struct ck_pair {
    const char *w;
    const char *w2; /* gates: the literal second word, or "" */
    uint32_t id;
};

static int ck_key_cmp(const struct ck_pair *a, const char *w, const char *w2)
{
    int r = strcmp(a->w, w);
    return r ? r : strcmp(a->w2, w2);
}

static int ck_pair_cmp(const void *x, const void *y)
{
    const struct ck_pair *a = x, *b = y;
    int r = ck_key_cmp(a, b->w, b->w2);
    if (r)
        return r;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The run of pairs with key (w, w2) in the sorted array: [*lo, *hi). */
static void ck_range(const struct ck_pair *pr, size_t m, const char *w,
                     const char *w2, size_t *lo, size_t *hi)
{
    size_t l = 0, h = m;
    while (l < h) {
        size_t mid = (l + h) / 2;
        if (ck_key_cmp(&pr[mid], w, w2) < 0)
            l = mid + 1;
        else
            h = mid;
    }
    *lo = *hi = l;
    while (*hi < m && ck_key_cmp(&pr[*hi], w, w2) == 0)
        (*hi)++;
}

/* Necessary for "q contains r" (both word patterns): compatible word
 * counts, and equal words wherever both are literal. */
static bool ck_gate_may_contain(const struct cp_gate_pat *q,
                                const struct cp_gate_pat *r)
{
    if (!q->trailing_any) {
        if (r->trailing_any || r->nwords != q->nwords)
            return false;
    } else if (r->nwords < q->nwords) {
        return false;
    }
    for (size_t i = 0; i < q->nwords; i++)
        if (ck_word_literal(q->words[i]) && ck_word_literal(r->words[i]) &&
            strcmp(q->words[i], r->words[i]) != 0)
            return false;
    return true;
}

/* A rule of the shipped gate library ("<NAME>" sources): the policy's
 * author cannot remove it, so it is flagged but not reported. */
static bool ck_library_rule(const struct cp_rule *r)
{
    return r->loc.src && r->loc.src->path && r->loc.src->path[0] == '<';
}

static bool ck_is_words(const struct cp_rule *r)
{
    return (r->kind == CP_R_GATE_ASK || r->kind == CP_R_GATE_DENY) &&
           r->u.gate.kind != CP_GATE_REGEX; /* words, and `unknown` */
}

/* Gate word patterns are indexed by their leading literal words P (the
 * words before the first one holding a glob).  Words are position-aligned
 * (a lone '*' is one word, only a trailing '*' spans several), so q can
 * contain r only if every literal word of q equals r's word at the same
 * place: P(q) is then a prefix of P(r).  The candidates for r are the
 * patterns whose P is one of the |P(r)|+1 prefixes of P(r), found by one
 * hash lookup each (the patterns with the same P are chained).  Regexes are
 * related to nothing ("may"), so they are not compared. */

/* Number of leading literal words. */
static size_t ck_gate_nlit(const struct cp_gate_pat *g)
{
    size_t k = 0;
    while (k < g->nwords && ck_word_literal(g->words[k]))
        k++;
    return k;
}

/* Hash of the first j words, extended by one word. */
static uint32_t ck_gate_hash(uint64_t h, const char *w)
{
    return (uint32_t)ck_hash((uint32_t)h, w, strlen(w) + 1);
}

struct ck_gindex {
    struct ck_slot *t; /* id: the first rule of a chain (its P is the key) */
    size_t cap;
    uint32_t *next; /* per rule: the next rule with the same P */
    uint32_t *nlit; /* per rule: |P| */
};

static bool ck_gate_same_prefix(const struct cp_gate_pat *a,
                                const struct cp_gate_pat *b, size_t j)
{
    for (size_t i = 0; i < j; i++)
        if (strcmp(a->words[i], b->words[i]) != 0)
            return false;
    return true;
}

/* The slot for the patterns whose P is the first j words of g (hash hv). */
static struct ck_slot *ck_gate_slot(const struct ck *c,
                                    const struct ck_gindex *x,
                                    const struct cp_gate_pat *g, size_t j,
                                    uint32_t hv)
{
    size_t h = hv & (x->cap - 1);
    for (;; h = (h + 1) & (x->cap - 1)) {
        struct ck_slot *sl = &x->t[h];
        if (sl->id == CK_NONE)
            return sl;
        if (sl->hash == hv && x->nlit[sl->id] == j &&
            ck_gate_same_prefix(&c->p->rules[sl->id]->u.gate, g, j))
            return sl;
    }
}

/* The index of the word-pattern gate rules by their literal prefix P, each
 * chain in rule order. */
static void ck_gindex_build(struct ck *c, struct ck_gindex *x)
{
    struct cp_policy *p = c->p;
    size_t n = p->nrules, m = 0;
    for (size_t i = 0; i < n; i++)
        m += ck_is_words(p->rules[i]);
    x->cap = 16;
    while (x->cap < 2 * m)
        x->cap *= 2;
    x->t = cp_xmalloc(x->cap * sizeof *x->t);
    memset(x->t, 0xff, x->cap * sizeof *x->t);
    x->next = cp_xmalloc((n + 1) * sizeof *x->next);
    x->nlit = cp_xmalloc((n + 1) * sizeof *x->nlit);
    /* Chains in rule order: insert in reverse. */
    for (size_t i = n; i-- > 0;) {
        const struct cp_rule *r = p->rules[i];
        if (!ck_is_words(r))
            continue;
        const struct cp_gate_pat *g = &r->u.gate;
        size_t k = ck_gate_nlit(g);
        uint32_t hv = (uint32_t)ck_hash(0, "", 0);
        for (size_t j = 0; j < k; j++)
            hv = ck_gate_hash(hv, g->words[j]);
        x->nlit[i] = (uint32_t)k;
        struct ck_slot *sl = ck_gate_slot(c, x, g, k, hv);
        x->next[i] = sl->id;
        *sl = (struct ck_slot){(uint32_t)i, hv};
    }
}

/* The rules that may contain rule I: those whose P is a prefix of its
 * own, into *cand. */
static void ck_gate_candidates(struct ck *c, const struct ck_gindex *x,
                               size_t i, struct cp_vec *cand)
{
    struct cp_policy *p = c->p;
    const struct cp_gate_pat *g = &p->rules[i]->u.gate;
    cand->len = 0;
    uint32_t hv = (uint32_t)ck_hash(0, "", 0);
    for (size_t j = 0; j <= x->nlit[i]; j++) {
        if (j)
            hv = ck_gate_hash(hv, g->words[j - 1]);
        for (uint32_t q = ck_gate_slot(c, x, g, j, hv)->id; q != CK_NONE;
             q = x->next[q])
            cp_vec_push(c->a, cand, p->rules[q]);
    }
}

/* Reports the gate ask R shadowed by a gate deny among CAND that contains
 * it; returns whether one does. */
static bool ck_gate_shadowed(struct ck *c, const struct cp_rule *r,
                             const struct cp_vec *cand)
{
    bool shadowed = false;
    for (size_t j = 0; j < cand->len; j++) {
        const struct cp_rule *q = cand->items[j];
        if (q != r && q->kind == CP_R_GATE_DENY && r->kind == CP_R_GATE_ASK &&
            ck_gate_may_contain(&q->u.gate, &r->u.gate) &&
            cp_gate_contains(&q->u.gate, &r->u.gate) == CP_REL_YES) {
            if (!ck_library_rule(r))
                ck_add(c, CK_SHADOWED_GATE, r, q);
            shadowed = true;
        }
    }
    return shadowed;
}

/* Marks and reports R redundant for each rule of its verdict among CAND
 * that contains it (of two equal rules, the one kept is the earlier). */
static void ck_gate_redundant(struct ck *c, struct cp_rule *r,
                              const struct cp_vec *cand)
{
    for (size_t j = 0; j < cand->len; j++) {
        const struct cp_rule *q = cand->items[j];
        if (q == r || q->kind != r->kind ||
            !ck_gate_may_contain(&q->u.gate, &r->u.gate) ||
            cp_gate_contains(&q->u.gate, &r->u.gate) != CP_REL_YES)
            continue;
        if (!ck_keep_before(q, r) &&
            cp_gate_contains(&r->u.gate, &q->u.gate) == CP_REL_YES)
            continue;
        r->flags |= CP_RF_REDUNDANT;
        if (!ck_library_rule(r))
            ck_add(c, CK_REDUNDANT_GATE, r, q);
    }
}

/* A word pattern matches the whole command: "git push" does not match
 * "git push origin main".  Written with positional words none of which
 * holds a glob (no trailing '*', no '**'), in the user's own files (the library's patterns say
 * what they mean: "{yarn|bun}" is yarn alone), it is most likely meant as
 * a prefix, as Claude Code's Bash(git push:*) is: warn, with the fix. */
static void ck_gate_whole(struct ck *c, const struct cp_rule *r)
{
    const struct cp_gate_pat *g = &r->u.gate;
    if (g->kind != CP_GATE_WORDS || g->trailing_any || !ck_src(r) ||
        !r->loc.src || r->loc.src->path[0] == '<')
        return;
    bool positional = false;
    for (size_t i = 0; i < g->nwords; i++) {
        const char *w = g->words[i];
        if (w[0] == '-' || w[0] == '<' || w[0] == '>')
            continue;
        if (strchr(w, '*'))
            return; /* a glob (rm -rf /tmp/x*) says what it takes */
        positional = true;
    }
    if (!positional)
        return;
    struct cp_diag *d = cp_diag_report(
        c->d, CP0510, &r->loc,
        "'%s' matches a command only when it has no other word (a pattern "
        "matches the whole command: '%s x' is not matched)",
        g->text, g->text);
    cp_diag_set_suggestion(d,
                           "write \"%s *\" to match it followed by any "
                           "words (-Wno-whole-command-gate if the bare "
                           "command is meant)",
                           g->text);
}

static void ck_gates(struct ck *c)
{
    struct cp_policy *p = c->p;
    struct ck_gindex x = {0};
    ck_gindex_build(c, &x);
    struct cp_vec cand = {0};
    for (size_t i = 0; i < p->nrules; i++) {
        struct cp_rule *r = p->rules[i];
        if (!ck_is_words(r))
            continue;
        ck_gate_whole(c, r);
        ck_gate_candidates(c, &x, i, &cand);
        if (!ck_gate_shadowed(c, r, &cand))
            ck_gate_redundant(c, r, &cand);
    }
    free(x.t);
    free(x.next);
    free(x.nlit);
}

/* net allow: shadowed by net deny; redundant when another allowed domain
 * contains it.  Candidates come from a sorted list of names: a container of
 * D is D itself or a wildcard on one of D's parent domains. */
static int ck_dom_cmp(const void *x, const void *y)
{
    return ck_pair_cmp(x, y);
}

static void ck_net(struct ck *c)
{
    struct cp_policy *p = c->p;
    size_t n = p->nrules, m = 0;
    const struct cp_rule *deny = NULL;
    struct ck_pair *pr = cp_xmalloc((n + 1) * sizeof *pr);
    for (size_t i = 0; i < n; i++) {
        const struct cp_rule *r = p->rules[i];
        if (r->kind == CP_R_NET_DENY) {
            if (deny && ck_src(r))
                ck_add(c, CK_REDUNDANT, r, deny);
            if (!deny)
                deny = r;
        } else if (r->kind == CP_R_NET_ALLOW) {
            pr[m].w = r->u.dom.name;
            pr[m].w2 = "";
            pr[m++].id = (uint32_t)i;
        }
    }
    qsort(pr, m, sizeof *pr, ck_dom_cmp);
    for (size_t i = 0; i < n; i++) {
        struct cp_rule *r = p->rules[i];
        if (r->kind != CP_R_NET_ALLOW)
            continue;
        if (deny) {
            ck_add(c, CK_SHADOWED_NET, r, deny);
            continue;
        }
        const char *name = r->u.dom.name;
        for (const char *sfx = name; sfx;) {
            size_t l, h;
            ck_range(pr, m, sfx, "", &l, &h);
            for (; l < h; l++) {
                const struct cp_rule *q = p->rules[pr[l].id];
                if (q == r ||
                    cp_domain_contains(&q->u.dom, &r->u.dom) != CP_REL_YES)
                    continue;
                if (!ck_keep_before(q, r) &&
                    cp_domain_contains(&r->u.dom, &q->u.dom) == CP_REL_YES)
                    continue;
                r->flags |= CP_RF_REDUNDANT;
                ck_add(c, CK_REDUNDANT, r, q);
            }
            sfx = strchr(sfx, '.');
            if (sfx)
                sfx++;
        }
    }
    free(pr);
}

/* net socket: a duplicate is redundant (the earlier rule kept); a rule in
 * a policy whose network is open changes nothing (every socket is
 * reachable); one whose path lies in a deny-read region names a socket the
 * sandbox cannot see (the region is masked), an error as for exec.  Few
 * rules name sockets: the duplicates are found by sorting them. */
static int ck_sock_cmp(const void *x, const void *y)
{
    const struct cp_rule *const *a = x, *const *b = y;
    int d = cp_path_cmp(&(*a)->u.path, &(*b)->u.path);
    if (d)
        return d;
    return (*a)->id < (*b)->id ? -1 : (*a)->id > (*b)->id;
}

static void ck_socket_one(struct ck *c, const struct cp_rule *r)
{
    if (!ck_src(r))
        return;
    if (c->p->net == CP_NET_ALL)
        ck_add(c, CK_SOCKET_OPEN, r, NULL);
    struct cp_decision rd;
    cp_sema_decide_path(c->p, CP_ACC_READ, &r->u.path, c->a, &rd);
    if (rd.verdict == CP_DENY && rd.nrules)
        ck_add(c, CK_SOCKET_MASKED, r, rd.rules[0]);
}

static void ck_sockets(struct ck *c)
{
    struct cp_policy *p = c->p;
    struct cp_rule **v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < p->nrules; i++) {
        struct cp_rule *r = p->rules[i];
        if (r->kind != CP_R_NET_SOCKET)
            continue;
        if (!v)
            v = cp_xmalloc((p->nrules - i) * sizeof *v);
        v[n++] = r;
        ck_socket_one(c, r);
    }
    if (n > 1)
        qsort(v, n, sizeof *v, ck_sock_cmp);
    for (size_t i = 1; i < n; i++)
        if (cp_path_cmp(&v[i - 1]->u.path, &v[i]->u.path) == 0) {
            v[i]->flags |= CP_RF_REDUNDANT;
            ck_add(c, CK_REDUNDANT, v[i], v[i - 1]);
        }
    free(v);
}

/* ---- expect ---------------------------------------------------------------- */

/* A passing expect whose verdict another binding of an unbound param would
 * change names its assumption (spec/semantics.md 2.1); run, build -D and
 * explain -D check it again under their bindings. */
static void ck_report_assumption(struct ck *c, const struct cp_expect *e,
                                 const struct cp_decision *dc)
{
    const struct cp_rule *r = dc->unbound_rule;
    const char *rt = r ? cp_sema_rule_text(c->a, r) : "";
    struct cp_diag *g = cp_diag_report(
        c->d, CP0602, &e->loc,
        "expect %s %s %s holds only while %s is bound so that '%s' does not "
        "match it",
        cp_verdict_text(e->verdict), cp_access_text(e->access), e->subject,
        dc->unbound_param, rt);
    if (g && r && r->loc.src)
        cp_diag_add_note(g, &r->loc, "'%s' is here", rt);
    if (g)
        cp_diag_set_suggestion(g,
                               "bind %s with -D to decide; run checks it "
                               "again under the values it runs with",
                               dc->unbound_param);
}

static bool ck_decided_by_outdir(const struct cp_decision *dc)
{
    for (size_t i = 0; i < dc->nrules; i++)
        if (ck_outdir_rule(dc->rules[i]))
            return true;
    return false;
}

static void ck_expects(struct ck *c)
{
    for (size_t i = 0; i < c->p->nexpects; i++) {
        const struct cp_expect *e = &c->p->expects[i];
        struct cp_decision dc;
        if (cp_access_is_path(e->access))
            cp_sema_decide_path(c->p, e->access, &e->path, c->a, &dc);
        else if (cp_decide(c->p, e->access, e->subject, c->a, &dc) != 0)
            continue;
        if (dc.verdict == e->verdict) {
            if (dc.unbound_param)
                ck_report_assumption(c, e, &dc);
            continue;
        }
        if (c->outdir_conflict && ck_decided_by_outdir(&dc))
            continue; /* the conflict with -o is the error to read */
        if (c->nfinds == c->capfinds) {
            c->capfinds = c->capfinds ? c->capfinds * 2 : 64;
            c->finds = cp_xrealloc(c->finds, c->capfinds * sizeof *c->finds);
        }
        struct ck_find *f = &c->finds[c->nfinds++];
        f->key = 2 * (uint64_t)e->rules_before;
        f->code = CK_EXPECT;
        f->subject = (uint32_t)i;
        f->partner = CK_NONE;
    }
}

/* ---- reporting ------------------------------------------------------------- */

static int ck_find_cmp(const void *x, const void *y)
{
    const struct ck_find *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->code != b->code)
        return a->code < b->code ? -1 : 1;
    if (a->subject != b->subject)
        return a->subject < b->subject ? -1 : 1;
    if (a->partner != b->partner)
        return a->partner < b->partner ? -1 : 1;
    if (a->set != b->set)
        return a->set < b->set ? -1 : 1;
    return 0;
}

static const char *ck_rt(struct ck *c, const struct cp_rule *r)
{
    return cp_sema_rule_text(c->a, r);
}

/* A note for the partner of a finding: at its source, or for an implicit
 * rule at the profile statement (or without location) naming the profile. */
static void ck_note_rule(struct ck *c, struct cp_diag *g,
                         const struct cp_rule *r)
{
    if (ck_src(r)) {
        cp_diag_add_note(g, &r->loc, "'%s' is here", ck_rt(c, r));
        return;
    }
    const struct cp_loc *pl = c->p->profile_loc.src ? &c->p->profile_loc : NULL;
    cp_diag_add_note(g, pl, "'%s' is added by %s (%s)", ck_rt(c, r),
                     cp_sema_origin_text(r->origin), r->why ? r->why : "");
}

static void ck_promote_note(struct ck *c, struct cp_diag *g)
{
    if (!g || g->sev != CP_SEV_NOTE || c->d->wstate[g->code] <= 0)
        return;
    if (c->d->werror || c->d->wstate[g->code] == 2) {
        g->sev = CP_SEV_ERROR;
        c->d->nerrors++;
    } else {
        g->sev = CP_SEV_WARNING;
        c->d->nwarnings++;
    }
}

static void ck_report_expect(struct ck *c, const struct cp_expect *e)
{
    struct cp_decision dc;
    if (cp_access_is_path(e->access))
        cp_sema_decide_path(c->p, e->access, &e->path, c->a, &dc);
    else
        cp_decide(c->p, e->access, e->subject, c->a, &dc);
    static const char *const says[] = {"allows it", "asks about it",
                                       "denies it"};
    struct cp_buf subj = {0};
    if (e->access == CP_ACC_GATE || e->access == CP_ACC_CONTENT)
        cp_sema_quote(&subj, e->subject, strlen(e->subject));
    else
        cp_buf_adds(&subj, e->subject);
    struct cp_diag *g = cp_diag_report(
        c->d, CP0601, &e->loc, "expect %s %s %s failed: the policy %s",
        cp_verdict_text(e->verdict), cp_access_text(e->access), subj.data,
        says[dc.verdict]);
    cp_buf_free(&subj);
    for (size_t i = 0; i < dc.nrules && i < CK_MAX_NOTES; i++) {
        const struct cp_rule *r = dc.rules[i];
        if (ck_src(r))
            cp_diag_add_note(g, &r->loc, "decided by '%s'", ck_rt(c, r));
        else
            cp_diag_add_note(
                g, c->p->profile_loc.src ? &c->p->profile_loc : NULL,
                "decided by '%s', added by %s (%s)", ck_rt(c, r),
                cp_sema_origin_text(r->origin), r->why ? r->why : "");
    }
    if (dc.nrules > CK_MAX_NOTES)
        cp_diag_add_note(g, NULL, "and %zu more rules",
                         dc.nrules - CK_MAX_NOTES);
    if (dc.by_default)
        cp_diag_add_note(g, NULL, "%s",
                         cp_sema_default_why(e->access, dc.verdict, c->p));
    if (dc.unbound_param)
        cp_diag_add_note(g, NULL,
                         "the answer may differ with another value of %s: "
                         "bind it with -D %s=DIR to decide",
                         dc.unbound_param, dc.unbound_param);
    cp_diag_set_suggestion(g, "fix the policy or the expectation");
}

/* Whether R is the implicit deny write of the build output directory. */
static bool ck_outdir_rule(const struct cp_rule *r)
{
    return r && !r->loc.src && r->why &&
           strcmp(r->why, "build output directory") == 0;
}

/* The partners of a run of findings with the same place, code and
 * subject: the CK_MAX_NOTES lowest ids (ascending) in ids[], their number
 * in *nids; returns how many partners there are. */
static size_t ck_partners(const struct ck *c, const struct ck_find *f,
                          size_t nf, uint32_t *ids, size_t *nids)
{
    size_t n = 0;
    *nids = 0;
    for (size_t i = 0; i < nf; i++) {
        uint32_t got[CK_MAX_NOTES];
        size_t ngot;
        n += ck_set_ids(c, &f[i], got, CK_MAX_NOTES, &ngot);
        for (size_t k = 0; k < ngot; k++) { /* insert, keeping the lowest */
            size_t at = *nids;
            while (at > 0 && ids[at - 1] > got[k])
                at--;
            if (at >= CK_MAX_NOTES)
                break;
            size_t end = *nids < CK_MAX_NOTES ? *nids : CK_MAX_NOTES - 1;
            memmove(ids + at + 1, ids + at, (end - at) * sizeof *ids);
            ids[at] = got[k];
            if (*nids < CK_MAX_NOTES)
                (*nids)++;
        }
    }
    return n;
}

/* One diagnostic for a run of nf findings with the same place, code and
 * subject; the partners become notes (capped). */
static void ck_report(struct ck *c, const struct ck_find *f, size_t nf)
{
    const struct cp_policy *p = c->p;
    if (f->code == CK_EXPECT) {
        ck_report_expect(c, &p->expects[f->subject]);
        return;
    }
    uint32_t ids[CK_MAX_NOTES];
    size_t nids;
    size_t n = ck_partners(c, f, nf, ids, &nids);
    const struct cp_rule *r = p->rules[f->subject];
    const struct cp_rule *q = nids ? p->rules[ids[0]] : NULL;
    const struct cp_rule *at = p->rules[(f->key - 1) / 2];
    const char *rt = ck_rt(c, r), *qt = q ? ck_rt(c, q) : "";
    const char *more = n > 1 ? cp_arena_printf(c->a, " (and %zu more)", n - 1)
                             : "";
    struct cp_diag *g = NULL;
    switch ((enum ck_code)f->code) {
    case CK_SHADOWED:
        g = cp_diag_report(c->d, CP0501, &at->loc,
                           "'%s' is shadowed: every path it names is denied "
                           "by '%s'%s",
                           rt, qt, more);
        cp_diag_set_suggestion(g, "remove '%s': a deny always wins", rt);
        break;
    case CK_SHADOWED_NET:
        g = cp_diag_report(c->d, CP0501, &at->loc,
                           "'%s' is shadowed: 'net deny' turns the network off",
                           rt);
        cp_diag_set_suggestion(g, "remove '%s' or 'net deny'", rt);
        break;
    case CK_REDUNDANT:
        g = cp_diag_report(c->d, CP0502, &at->loc,
                           "'%s' is redundant: '%s'%s already covers every "
                           "%s it names",
                           rt, qt, more,
                           r->kind == CP_R_NET_ALLOW || r->kind == CP_R_NET_DENY
                               ? "host"
                           : r->kind == CP_R_NET_SOCKET ? "socket"
                                                        : "path");
        cp_diag_set_suggestion(g, "remove '%s'", rt);
        break;
    case CK_CONFLICT_EXEC:
        g = cp_diag_report(c->d, CP0503, &at->loc,
                           "'%s' conflicts with '%s': every path it names is "
                           "denied for reading, so none can be executed",
                           rt, qt);
        cp_diag_set_suggestion(g, "remove the exec rule or narrow the deny");
        break;
    case CK_CONFLICT_WRITE:
        if (ck_outdir_rule(q) || ck_outdir_rule(r)) {
            /* Not a conflict between two rules of the policy: the build
             * output directory is where the policy allows writing. */
            const struct cp_rule *w = ck_outdir_rule(q) ? r : q;
            g = cp_diag_report(c->d, CP0503, &w->loc,
                               "'%s' makes the build output directory "
                               "writable: a confined process could rewrite "
                               "its own sandbox",
                               ck_rt(c, w));
            cp_diag_set_suggestion(g, "choose -o outside the write roots");
            return;
        }
        g = cp_diag_report(c->d, CP0503, &at->loc,
                           "'%s' conflicts with '%s': the same paths are "
                           "allowed and denied",
                           rt, qt);
        cp_diag_set_suggestion(g, "remove one of the two rules");
        break;
    case CK_SOCKET_OPEN:
        g = cp_diag_report(c->d, CP0508, &at->loc,
                           "'%s' has no effect: every socket is reachable "
                           "without 'net deny' or 'net allow'",
                           rt);
        cp_diag_set_suggestion(g,
                               "add 'net deny' to close every other Unix "
                               "socket, or remove '%s'",
                               rt);
        break;
    case CK_SOCKET_MASKED:
        g = cp_diag_report(c->d, CP0509, &at->loc,
                           "'%s' conflicts with '%s': the socket lies in a "
                           "region denied for reading, which the sandbox "
                           "cannot see, so it can never be reached",
                           rt, qt);
        cp_diag_set_suggestion(g, "remove the socket rule or narrow the deny");
        break;
    case CK_UNREADABLE:
        assert(q); /* an overlap always has its partner */
        g = cp_diag_report(c->d, CP0504, &at->loc,
                           "'%s' overlaps '%s': paths there can be written "
                           "but not read",
                           rt, qt);
        cp_diag_set_suggestion(g,
                               "add 'deny write %s' so that the region is "
                               "neither read nor written",
                               q->text);
        break;
    case CK_VACUOUS:
        if (r->kind == CP_R_DENY_EXEC)
            g = cp_diag_report(c->d, CP0505, &at->loc,
                               "'%s' is never reached: no exec rule names a "
                               "path it covers, and exec is an allow-list",
                               rt);
        else
            g = cp_diag_report(c->d, CP0505, &at->loc,
                               "'%s' is never reached: no write rule names a "
                               "path it covers, and writing is denied by "
                               "default",
                               rt);
        ck_promote_note(c, g);
        cp_diag_set_suggestion(g, "remove it, or add the allow rule it is "
                                  "meant to restrict");
        break;
    case CK_SHADOWED_GATE:
        g = cp_diag_report(c->d, CP0506, &at->loc,
                           "'%s' is shadowed: '%s'%s refuses every command it "
                           "matches",
                           rt, qt, more);
        cp_diag_set_suggestion(g, "remove '%s': a gate deny always wins", rt);
        break;
    case CK_REDUNDANT_GATE:
        g = cp_diag_report(c->d, CP0507, &at->loc,
                           "'%s' is redundant: '%s'%s already matches every "
                           "command it matches",
                           rt, qt, more);
        cp_diag_set_suggestion(g, "remove '%s'", rt);
        break;
    case CK_EXPECT:
        break;
    }
    if (!g)
        return;
    /* Notes: the other rule of each pair. */
    for (size_t i = 0; i < nids; i++) {
        const struct cp_rule *pr = p->rules[ids[i]];
        ck_note_rule(c, g, pr == at ? r : pr);
    }
    if (n > CK_MAX_NOTES)
        cp_diag_add_note(g, NULL, "and %zu more", n - CK_MAX_NOTES);
}

int cp_check(struct cp_ctx *cx)
{
    size_t before = cp_diag_errors(&cx->diags);
    if (!cx->policy)
        return 0;
    struct ck c = {0};
    c.cx = cx;
    c.a = cx->arena;
    c.p = cx->policy;
    c.d = &cx->diags;
    ck_index(&c);
    ck_paths(&c);
    ck_gates(&c);
    ck_net(&c);
    ck_sockets(&c);
    ck_expects(&c);
    if (c.nfinds > 1) /* c.finds is NULL when there is nothing to report */
        qsort(c.finds, c.nfinds, sizeof *c.finds, ck_find_cmp);
    for (size_t i = 0; i < c.nfinds;) {
        size_t j = i + 1;
        while (j < c.nfinds && c.finds[j].key == c.finds[i].key &&
               c.finds[j].code == c.finds[i].code &&
               c.finds[j].subject == c.finds[i].subject &&
               c.finds[i].code != CK_EXPECT)
            j++;
        ck_report(&c, &c.finds[i], j - i);
        i = j;
    }
    free(c.nodes);
    free(c.ht);
    free(c.rule_node);
    free(c.rule_next);
    free(c.sig);
    free(c.rule_bnext);
    free(c.buckets);
    free(c.bht);
    free(c.minlen);
    free(c.lead);
    free(c.cls_at);
    free(c.cls_n);
    free(c.cls_mem);
    free(c.cls_impl);
    free(c.shadowed);
    free(c.finds);
    free(c.stack);
    free(c.roots);
    return (int)(cp_diag_errors(&cx->diags) - before);
}

int cp_check_expects(struct cp_ctx *cx)
{
    size_t before = cp_diag_errors(&cx->diags);
    if (!cx->policy)
        return 0;
    struct ck c = {0};
    c.cx = cx;
    c.a = cx->arena;
    c.p = cx->policy;
    c.d = &cx->diags;
    ck_expects(&c);
    for (size_t i = 0; i < c.nfinds; i++)
        ck_report(&c, &c.finds[i], 1);
    free(c.finds);
    return (int)(cp_diag_errors(&cx->diags) - before);
}
